// SPDX-License-Identifier: GPL-2.0
/*
 * cost.c - the cost phase of twheel-bench: time per schedule, modify and
 * cancel with N timers pending, for N = 10^3 .. nmax (powers of ten), in
 * two deadline modes:
 *
 *	span:   absolute CLOCK_MONOTONIC deadlines uniform over one 30 s
 *		span that starts an hour after the phase began (one or two
 *		slots of a wheel's upper level), so that nothing expires
 *		while it runs (checked at the end);
 *	spread: deadlines as real timeouts have them, log-uniform between
 *		1 s and 1 h after the operation (after the start of its
 *		timed loop, which lasts milliseconds). Timers then expire
 *		while the phase runs. Every implementation is treated alike:
 *		before each timed loop (untimed), its expired timers are
 *		drained and re-armed with a new spread deadline (twheel:
 *		read the records, add again; timerfd: epoll_wait(0), read,
 *		timerfd_settime; heap: re-key every due entry, re-arm its
 *		timerfd), so the population stays N; the expiries whose
 *		deadline fell inside a timed loop (their work, an hrtimer
 *		interrupt or a record queued by the next ioctl, is inside
 *		the loop's time) are counted and reported per configuration
 *		(R costx).
 *
 * One round of a configuration, with the population at N - M/2:
 *	schedule M new timers (timed loop)    -> N + M/2 pending
 *	modify M random live timers (timed loop)
 *	cancel M random live timers (timed loop) -> N - M/2 pending
 * so the population averages N. M = 1024 (256 for N < 4096). A rep runs
 * ops/M rounds of every configuration (in an order rotated per rep) and
 * reports, per operation kind, the loops' total time / operations.
 * Every configuration of one (N, rep, round) gets the same deadlines and
 * the same random choices (one seeded stream each); the heap, whose loops
 * last only microseconds and so suffer most from a preempted vCPU, runs
 * HEAP_MORE times as many rounds (the first ones those of the others, then
 * more of the same kind). One untimed round of each configuration warms up
 * before the first rep of every N.
 *
 * The configurations, the populations and the operations timed: cost_impl.c.
 */
#include <fcntl.h>
#include <math.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "cost.h"

#define OFFSET_NS	(3600 * NSEC)
#define SPAN_NS		(30 * NSEC)
/* The heap's loops are short: it runs this many times the rounds. */
#define HEAP_MORE	4

static const char *const cfg_name[NR_CFG] = {
	"twheel-ioctl", "twheel-b1", "twheel-b8", "twheel-b64", "twheel-b256",
	"timerfd", "heap",
};

static int64_t base_ns;

/* Log-uniform in [1 s, 1 h). */
int64_t cost_spread_off(struct rng *r)
{
	double u = (rng_next(r) >> 11) * 0x1.0p-53;

	return (int64_t)(NSEC * exp(u * log(3600.0)));
}

int64_t cost_deadline(struct rng *r, int spread)
{
	if (spread)
		return cost_spread_off(r);
	return base_ns + OFFSET_NS + (int64_t)rng_below(r, SPAN_NS);
}

/* pending: the population size before the round (the same for all). */
static void make_round(struct round *rd, long n, int rep, int round, int m,
		       size_t pending, int spread)
{
	struct rng a = rng_make(n, rep * 100000 + round, 1);
	struct rng b = rng_make(n, rep * 100000 + round, 2);
	struct rng c = rng_make(n, rep * 100000 + round, 3);
	int i;

	rd->m = m;
	for (i = 0; i < m; i++) {
		rd->dl_add[i] = cost_deadline(&a, spread);
		rd->dl_mod[i] = cost_deadline(&b, spread);
		rd->sel_mod[i] = rng_below(&c, pending + m);
	}
	for (i = 0; i < m; i++)
		rd->sel_cancel[i] = rng_below(&c, pending + m - i);
}

/*
 * The floor, for reading the others, nops each: a bare system call
 * (getppid); an ioctl on the twheel fd that the driver refuses (an unknown
 * command: the system call, fdget, the LSM's ioctl hook, the dispatch,
 * ENOTTY; no lock, no copy), what any twheel ioctl costs before it does
 * anything; and TWHEEL_IOC_INFO, the cheapest that does something (the
 * fd's mutex, a 96-byte copy out) but touches no timer.
 */
#define FLOOR_UNKNOWN_IOC	_IO(TWHEEL_IOC_TYPE, 0x0f)	/* in twheel's range, unused */

static void floor_costs(struct pops *p, long n, int rep, long nops)
{
	const char *mode = p->spread ? "spread" : "span";
	struct twheel_info info;
	int64_t t0, t1, t2, t3;
	long i;

	t0 = mono_ns();
	for (i = 0; i < nops; i++)
		syscall(SYS_getppid);
	t1 = mono_ns();
	for (i = 0; i < nops; i++)
		if (ioctl(p->twfd, FLOOR_UNKNOWN_IOC) != -1 || errno != ENOTTY)
			die("an unknown twheel ioctl did not fail with ENOTTY");
	t2 = mono_ns();
	for (i = 0; i < nops; i++)
		if (twheel_info(p->twfd, &info))
			die("TWHEEL_IOC_INFO");
	t3 = mono_ns();
	result("R cost %s %s floor getppid %ld %d %.1f %ld", opt.cg, mode, n,
	       rep, (double)(t1 - t0) / nops, nops);
	result("R cost %s %s floor twheel-enotty %ld %d %.1f %ld", opt.cg, mode,
	       n, rep, (double)(t2 - t1) / nops, nops);
	result("R cost %s %s floor twheel-info %ld %d %.1f %ld", opt.cg, mode,
	       n, rep, (double)(t3 - t2) / nops, nops);
}

static void check_twheel(struct pops *p, long n)
{
	struct twheel_info info;

	if (twheel_info(p->twfd, &info))
		die("TWHEEL_IOC_INFO");
	if (info.timers != p->tw_n || (!p->spread && info.queued != 0))
		die("cost N=%ld: twheel holds %llu timers (%llu queued), expected %zu pending",
		    n, (unsigned long long)info.timers,
		    (unsigned long long)info.queued, p->tw_n);
	if (p->tfd_n != p->tw_n || p->hp_n != p->tw_n ||
	    p->heap.n != p->hp_n)
		die("cost: populations differ");
}

static void report(const struct pops *p, const char *op, const char *impl,
		   long n, int rep, int64_t ns, long nops)
{
	result("R cost %s %s %s %s %ld %d %.1f %ld", opt.cg,
	       p->spread ? "spread" : "span", op, impl, n, rep,
	       (double)ns / nops, nops);
}

void phase_cost(int spread)
{
	size_t cap = opt.nmax + MMAX;
	struct round *rd = xcalloc(1, sizeof(*rd));
	struct pops p = { .spread = spread };
	size_t i;
	long n;

	base_ns = mono_ns();
	p.rr = rng_make(spread, 424242, 7);
	p.twfd = twheel_open(O_CLOEXEC | O_NONBLOCK);
	if (p.twfd < 0)
		die("twheel_open");
	p.ep = epoll_create1(EPOLL_CLOEXEC);
	if (p.ep < 0)
		die("epoll_create1");
	p.tw = xcalloc(cap, sizeof(*p.tw));
	p.tw_id = xcalloc(cap, sizeof(*p.tw_id));
	p.tw_dl = xcalloc(cap, sizeof(*p.tw_dl));
	p.tw_free = xcalloc(cap, sizeof(*p.tw_free));
	for (i = 0; i < cap; i++)
		p.tw_free[i] = cap - 1 - i;
	p.tw_nfree = cap;
	p.tfd = xcalloc(cap, sizeof(*p.tfd));
	/* fds: the population, the program's own, and what is closed late */
	p.tfd_dl = xcalloc(cap + 4096, sizeof(*p.tfd_dl));
	p.hp = xcalloc(cap, sizeof(*p.hp));
	heap_init(&p.heap, cap);

	for (n = 1000; n <= opt.nmax; n *= 10) {
		int m = n >= 4096 ? 1024 : 256;
		long rounds = (opt.ops + m - 1) / m;
		size_t low = n - m / 2;
		int rep, k, c;
		long r;

		cost_fill(&p, low, n);
		/* Warm-up, untimed: one round of each configuration. */
		for (c = 0; c < NR_CFG; c++) {
			struct sums s = { 0 };

			make_round(rd, n, 1000 + c, 0, m, low, spread);
			cost_run_round(&p, c, rd, &s);
		}
		memset(p.drained, 0, sizeof(p.drained));
		memset(p.in_loops, 0, sizeof(p.in_loops));
		for (rep = 0; rep < opt.reps; rep++) {
			int64_t t0 = mono_ns();

			for (k = 0; k < NR_CFG; k++) {
				struct sums s = { 0 };
				long nr, nops;

				c = (k + rep) % NR_CFG;
				nr = c == HEAP ? HEAP_MORE * rounds : rounds;
				nops = nr * m;
				for (r = 0; r < nr; r++) {
					make_round(rd, n, rep, r, m, low, spread);
					cost_run_round(&p, c, rd, &s);
				}
				report(&p, "schedule", cfg_name[c], n, rep, s.sched, nops);
				report(&p, "modify", cfg_name[c], n, rep, s.mod, nops);
				report(&p, "cancel", cfg_name[c], n, rep, s.cancel, nops);
				if (c == TFD) {
					report(&p, "schedule", "timerfd.create", n, rep, s.create, nops);
					report(&p, "schedule", "timerfd.settime", n, rep, s.settime, nops);
					report(&p, "schedule", "timerfd.epoll_add", n, rep, s.epoll_add, nops);
					report(&p, "cancel", "timerfd.epoll_del", n, rep, s.epoll_del, nops);
					report(&p, "cancel", "timerfd.close", n, rep, s.close, nops);
				}
				if (spread)
					result("R costx %s spread %s %ld %d %ld %ld",
					       opt.cg, cfg_name[c], n, rep,
					       p.in_loops[c], p.drained[c]);
				p.in_loops[c] = 0;
				p.drained[c] = 0;
			}
			floor_costs(&p, n, rep, rounds * m);
			check_twheel(&p, n);
			note("cost %s: N=%ld rep %d: %.1fs",
			     spread ? "spread" : "span", n, rep,
			     (mono_ns() - t0) / 1e9);
		}
		result("M cost_heap_settimes %s N %ld %llu",
		       spread ? "spread" : "span", n,
		       (unsigned long long)p.heap.settimes);
	}
	if (!spread && mono_ns() >= base_ns + OFFSET_NS)
		die("cost phase outlasted its deadline offset: timers expired");
	note("cost: tearing down");
	close(p.twfd);
	while (p.tfd_n)
		close(p.tfd[--p.tfd_n]);
	close(p.ep);
	heap_destroy(&p.heap);
	free(p.tw);
	free(p.tw_id);
	free(p.tw_dl);
	free(p.tw_free);
	free(p.tfd);
	free(p.tfd_dl);
	free(p.hp);
	free(rd);
}
