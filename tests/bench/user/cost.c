// SPDX-License-Identifier: GPL-2.0
/*
 * cost.c - the cost phase of twheel-bench: wall time per schedule, modify
 * and cancel with N timers pending, for N = 10^3 .. nmax (powers of ten).
 *
 * Three populations are held at once, one per implementation: timers on
 * one twheel fd, N timerfds registered in one epoll set, and the heap
 * baseline. They grow from one N to the next (never rebuilt). Deadlines
 * are absolute CLOCK_MONOTONIC times, uniform over a 30 s span that starts
 * an hour after the phase began, so that nothing expires while it runs
 * (under QEMU, filling 10^6 timerfds takes tens of seconds); checked at the
 * end.
 *
 * One round of a configuration, with the population at N - M/2:
 *	schedule M new timers (timed loop)    -> N + M/2 pending
 *	modify M random live timers (timed loop)
 *	cancel M random live timers (timed loop) -> N - M/2 pending
 * so the population averages N. M = 1024 (256 for N < 4096). A rep runs
 * ops/M rounds of every configuration (in an order rotated per rep) and
 * reports, per operation kind, the loops' total wall time / operations.
 * Every configuration of one (N, rep, round) gets the same deadlines and
 * the same random choices (one seeded stream each); the heap, whose loops
 * last only microseconds and so suffer most from a preempted vCPU, runs
 * HEAP_MORE times as many rounds (the first ones those of the others, then
 * more of the same kind). One untimed round of each configuration warms up
 * before the first rep of every N.
 *
 * Configurations: twheel-ioctl (TWHEEL_IOC_ADD/MODIFY/CANCEL, one per
 * call), twheel-bB (TWHEEL_IOC_SUBMIT of B operations, B = 1, 8, 64, 256),
 * timerfd (schedule = timerfd_create + timerfd_settime; its
 * EPOLL_CTL_ADD is a second timed loop reported as timerfd-epoll_ctl;
 * modify = timerfd_settime; cancel = close, which also leaves the epoll
 * set), heap (push/re-key/delete, each with the settime of the one
 * timerfd when the minimum changed).
 */
#include <fcntl.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include "bench.h"

#define OFFSET_NS	(3600 * NSEC)
#define SPAN_NS		(30 * NSEC)
#define MMAX		1024
/* The heap's loops are short: it runs this many times the rounds. */
#define HEAP_MORE	4

enum cfg {
	TW_IOCTL, TW_B1, TW_B8, TW_B64, TW_B256, TFD, HEAP, NR_CFG
};

static const char *const cfg_name[NR_CFG] = {
	"twheel-ioctl", "twheel-b1", "twheel-b8", "twheel-b64", "twheel-b256",
	"timerfd", "heap",
};
static const int cfg_batch[NR_CFG] = { 0, 1, 8, 64, 256, 0, 0 };

struct pops {
	int twfd;
	uint64_t *tw;
	size_t tw_n;
	int ep;
	int *tfd;
	size_t tfd_n;
	struct heap heap;
	uint32_t *hp;
	size_t hp_n;
};

/* Per round: the deadlines and choices every configuration gets. */
struct round {
	int m;
	int64_t dl_add[MMAX];
	int64_t dl_mod[MMAX];
	uint32_t sel_mod[MMAX];
	uint32_t sel_cancel[MMAX];
};

/* Time of the loops of one configuration, summed over a rep's rounds. */
struct sums {
	int64_t sched, epoll_add, mod, cancel;
};

static int64_t base_ns;
static struct twheel_op ops[256];

static int64_t deadline(struct rng *r)
{
	return base_ns + OFFSET_NS + (int64_t)rng_below(r, SPAN_NS);
}

/* pending: the population size before the round (the same for all). */
static void make_round(struct round *rd, long n, int rep, int round, int m,
		       size_t pending)
{
	struct rng a = rng_make(n, rep * 100000 + round, 1);
	struct rng b = rng_make(n, rep * 100000 + round, 2);
	struct rng c = rng_make(n, rep * 100000 + round, 3);
	int i;

	rd->m = m;
	for (i = 0; i < m; i++) {
		rd->dl_add[i] = deadline(&a);
		rd->dl_mod[i] = deadline(&b);
		rd->sel_mod[i] = rng_below(&c, pending + m);
	}
	for (i = 0; i < m; i++)
		rd->sel_cancel[i] = rng_below(&c, pending + m - i);
}

/* ---- twheel ---- */

static int64_t tw_schedule(struct pops *p, int batch, const struct round *rd)
{
	int64_t t0 = mono_ns();
	int i, j;

	if (!batch) {
		for (i = 0; i < rd->m; i++) {
			struct twheel_add a = {
				.cookie = i,
				.expires_ns = rd->dl_add[i],
				.flags = TWHEEL_ABSTIME,
				.clock = CLOCK_MONOTONIC,
			};

			if (twheel_add(p->twfd, &a))
				die("TWHEEL_IOC_ADD");
			p->tw[p->tw_n++] = a.id;
		}
		return mono_ns() - t0;
	}
	for (i = 0; i < rd->m; i += batch) {
		for (j = 0; j < batch; j++)
			ops[j] = (struct twheel_op){
				.op = TWHEEL_OP_ADD,
				.flags = TWHEEL_ABSTIME,
				.cookie = i + j,
				.expires_ns = rd->dl_add[i + j],
				.clock = CLOCK_MONOTONIC,
			};
		if (twheel_submit(p->twfd, ops, batch) != batch)
			die("TWHEEL_IOC_SUBMIT of %d adds", batch);
		for (j = 0; j < batch; j++) {
			if (ops[j].error)
				die("batched add: error %d", ops[j].error);
			p->tw[p->tw_n++] = ops[j].id;
		}
	}
	return mono_ns() - t0;
}

static int64_t tw_modify(struct pops *p, int batch, const struct round *rd)
{
	int64_t t0 = mono_ns();
	int i, j;

	if (!batch) {
		for (i = 0; i < rd->m; i++) {
			struct twheel_modify md = {
				.id = p->tw[rd->sel_mod[i]],
				.expires_ns = rd->dl_mod[i],
				.flags = TWHEEL_ABSTIME,
			};

			if (twheel_modify(p->twfd, &md) != TWHEEL_STATE_PENDING)
				die("TWHEEL_IOC_MODIFY");
		}
		return mono_ns() - t0;
	}
	for (i = 0; i < rd->m; i += batch) {
		for (j = 0; j < batch; j++)
			ops[j] = (struct twheel_op){
				.op = TWHEEL_OP_MODIFY,
				.flags = TWHEEL_ABSTIME,
				.id = p->tw[rd->sel_mod[i + j]],
				.expires_ns = rd->dl_mod[i + j],
			};
		if (twheel_submit(p->twfd, ops, batch) != batch)
			die("TWHEEL_IOC_SUBMIT of %d modifies", batch);
		for (j = 0; j < batch; j++)
			if (ops[j].error || ops[j].result != TWHEEL_STATE_PENDING)
				die("batched modify: error %d result %u",
				    ops[j].error, ops[j].result);
	}
	return mono_ns() - t0;
}

static int64_t tw_cancel(struct pops *p, int batch, const struct round *rd)
{
	int64_t t0 = mono_ns();
	uint64_t id;
	int i, j;

	if (!batch) {
		for (i = 0; i < rd->m; i++) {
			id = p->tw[rd->sel_cancel[i]];
			p->tw[rd->sel_cancel[i]] = p->tw[--p->tw_n];
			if (twheel_cancel(p->twfd, id) != TWHEEL_STATE_PENDING)
				die("TWHEEL_IOC_CANCEL");
		}
		return mono_ns() - t0;
	}
	for (i = 0; i < rd->m; i += batch) {
		for (j = 0; j < batch; j++) {
			id = p->tw[rd->sel_cancel[i + j]];
			p->tw[rd->sel_cancel[i + j]] = p->tw[--p->tw_n];
			ops[j] = (struct twheel_op){
				.op = TWHEEL_OP_CANCEL,
				.id = id,
			};
		}
		if (twheel_submit(p->twfd, ops, batch) != batch)
			die("TWHEEL_IOC_SUBMIT of %d cancels", batch);
		for (j = 0; j < batch; j++)
			if (ops[j].error || ops[j].result != TWHEEL_STATE_PENDING)
				die("batched cancel: error %d result %u",
				    ops[j].error, ops[j].result);
	}
	return mono_ns() - t0;
}

/* ---- timerfd + epoll ---- */

static int tfd_new(int64_t dl)
{
	struct itimerspec its = { .it_value = ns_ts(dl) };
	int fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);

	if (fd < 0)
		die("timerfd_create");
	if (timerfd_settime(fd, TFD_TIMER_ABSTIME, &its, NULL))
		die("timerfd_settime");
	return fd;
}

static void tfd_watch(int ep, int fd)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.fd = fd };

	if (epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev))
		die("EPOLL_CTL_ADD");
}

static void tfd_round(struct pops *p, const struct round *rd, struct sums *s)
{
	size_t first = p->tfd_n;
	int64_t t0, t1, t2, t3, t4;
	int i, fd;

	t0 = mono_ns();
	for (i = 0; i < rd->m; i++)
		p->tfd[p->tfd_n++] = tfd_new(rd->dl_add[i]);
	t1 = mono_ns();
	for (i = 0; i < rd->m; i++)
		tfd_watch(p->ep, p->tfd[first + i]);
	t2 = mono_ns();
	for (i = 0; i < rd->m; i++) {
		struct itimerspec its = { .it_value = ns_ts(rd->dl_mod[i]) };

		if (timerfd_settime(p->tfd[rd->sel_mod[i]], TFD_TIMER_ABSTIME,
				    &its, NULL))
			die("timerfd_settime");
	}
	t3 = mono_ns();
	for (i = 0; i < rd->m; i++) {
		fd = p->tfd[rd->sel_cancel[i]];
		p->tfd[rd->sel_cancel[i]] = p->tfd[--p->tfd_n];
		if (close(fd))
			die("close");
	}
	t4 = mono_ns();
	s->sched += t1 - t0;
	s->epoll_add += t2 - t1;
	s->mod += t3 - t2;
	s->cancel += t4 - t3;
}

/* ---- heap ---- */

static void heap_round(struct pops *p, const struct round *rd, struct sums *s)
{
	int64_t t0, t1, t2, t3;
	uint32_t hd;
	int i;

	t0 = mono_ns();
	for (i = 0; i < rd->m; i++)
		p->hp[p->hp_n++] = heap_add(&p->heap, rd->dl_add[i]);
	t1 = mono_ns();
	for (i = 0; i < rd->m; i++)
		heap_modify(&p->heap, p->hp[rd->sel_mod[i]], rd->dl_mod[i]);
	t2 = mono_ns();
	for (i = 0; i < rd->m; i++) {
		hd = p->hp[rd->sel_cancel[i]];
		p->hp[rd->sel_cancel[i]] = p->hp[--p->hp_n];
		heap_del(&p->heap, hd);
	}
	t3 = mono_ns();
	s->sched += t1 - t0;
	s->mod += t2 - t1;
	s->cancel += t3 - t2;
}

static void run_round(struct pops *p, int c, const struct round *rd,
		      struct sums *s)
{
	switch (c) {
	case TFD:
		tfd_round(p, rd, s);
		break;
	case HEAP:
		heap_round(p, rd, s);
		break;
	default:
		s->sched += tw_schedule(p, cfg_batch[c], rd);
		s->mod += tw_modify(p, cfg_batch[c], rd);
		s->cancel += tw_cancel(p, cfg_batch[c], rd);
	}
}

/* Grow every population to @target pending timers (untimed). */
static void fill(struct pops *p, size_t target, long n)
{
	struct rng r = rng_make(n, 999999, 4);
	size_t start = p->tw_n, k = target - start, i, j;
	int64_t *dl = xcalloc(k, sizeof(*dl));
	int64_t t0 = mono_ns(), t1, t2;

	for (i = 0; i < k; i++)
		dl[i] = deadline(&r);
	for (i = 0; i < k; i += j) {
		size_t b = k - i < 256 ? k - i : 256;

		for (j = 0; j < b; j++)
			ops[j] = (struct twheel_op){
				.op = TWHEEL_OP_ADD,
				.flags = TWHEEL_ABSTIME,
				.expires_ns = dl[i + j],
				.clock = CLOCK_MONOTONIC,
			};
		if (twheel_submit(p->twfd, ops, b) != (int)b)
			die("fill: TWHEEL_IOC_SUBMIT");
		for (j = 0; j < b; j++) {
			if (ops[j].error)
				die("fill: add error %d", ops[j].error);
			p->tw[p->tw_n++] = ops[j].id;
		}
	}
	t1 = mono_ns();
	for (i = 0; i < k; i++) {
		int fd = tfd_new(dl[i]);

		tfd_watch(p->ep, fd);
		p->tfd[p->tfd_n++] = fd;
	}
	t2 = mono_ns();
	for (i = 0; i < k; i++)
		p->hp[p->hp_n++] = heap_add(&p->heap, dl[i]);
	note("cost: filled to %zu pending: twheel %.2fs, timerfd %.2fs, heap %.3fs",
	     target, (t1 - t0) / 1e9, (t2 - t1) / 1e9, (mono_ns() - t2) / 1e9);
	free(dl);
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
	result("R cost %s floor getppid %ld %d %.1f %ld", opt.cg, n, rep,
	       (double)(t1 - t0) / nops, nops);
	result("R cost %s floor twheel-enotty %ld %d %.1f %ld", opt.cg, n, rep,
	       (double)(t2 - t1) / nops, nops);
	result("R cost %s floor twheel-info %ld %d %.1f %ld", opt.cg, n, rep,
	       (double)(t3 - t2) / nops, nops);
}

static void check_twheel(struct pops *p, long n)
{
	struct twheel_info info;

	if (twheel_info(p->twfd, &info))
		die("TWHEEL_IOC_INFO");
	if (info.timers != p->tw_n || info.queued != 0)
		die("cost N=%ld: twheel holds %llu timers (%llu queued), expected %zu pending",
		    n, (unsigned long long)info.timers,
		    (unsigned long long)info.queued, p->tw_n);
	if (p->tfd_n != p->tw_n || p->hp_n != p->tw_n ||
	    p->heap.n != p->hp_n)
		die("cost: populations differ");
}

static void report(const char *op, const char *impl, long n, int rep,
		   int64_t ns, long nops)
{
	result("R cost %s %s %s %ld %d %.1f %ld", opt.cg, op, impl, n, rep,
	       (double)ns / nops, nops);
}

void phase_cost(void)
{
	size_t cap = opt.nmax + MMAX;
	struct round *rd = xcalloc(1, sizeof(*rd));
	struct pops p = { 0 };
	long n;

	base_ns = mono_ns();
	p.twfd = twheel_open(O_CLOEXEC);
	if (p.twfd < 0)
		die("twheel_open");
	p.ep = epoll_create1(EPOLL_CLOEXEC);
	if (p.ep < 0)
		die("epoll_create1");
	p.tw = xcalloc(cap, sizeof(*p.tw));
	p.tfd = xcalloc(cap, sizeof(*p.tfd));
	p.hp = xcalloc(cap, sizeof(*p.hp));
	heap_init(&p.heap, cap);

	for (n = 1000; n <= opt.nmax; n *= 10) {
		int m = n >= 4096 ? 1024 : 256;
		long rounds = (opt.ops + m - 1) / m;
		size_t low = n - m / 2;
		int rep, k, c;
		long r;

		fill(&p, low, n);
		/* Warm-up, untimed: one round of each configuration. */
		for (c = 0; c < NR_CFG; c++) {
			struct sums s = { 0 };

			make_round(rd, n, 1000 + c, 0, m, low);
			run_round(&p, c, rd, &s);
		}
		for (rep = 0; rep < opt.reps; rep++) {
			int64_t t0 = mono_ns();

			for (k = 0; k < NR_CFG; k++) {
				struct sums s = { 0 };
				long nr, nops;

				c = (k + rep) % NR_CFG;
				nr = c == HEAP ? HEAP_MORE * rounds : rounds;
				nops = nr * m;
				for (r = 0; r < nr; r++) {
					make_round(rd, n, rep, r, m, low);
					run_round(&p, c, rd, &s);
				}
				report("schedule", cfg_name[c], n, rep, s.sched, nops);
				report("modify", cfg_name[c], n, rep, s.mod, nops);
				report("cancel", cfg_name[c], n, rep, s.cancel, nops);
				if (c == TFD)
					report("schedule", "timerfd-epoll_ctl", n,
					       rep, s.epoll_add, nops);
			}
			floor_costs(&p, n, rep, rounds * m);
			check_twheel(&p, n);
			note("cost: N=%ld rep %d: %.1fs", n, rep,
			     (mono_ns() - t0) / 1e9);
		}
		result("M cost_heap_settimes N %ld %llu", n,
		       (unsigned long long)p.heap.settimes);
	}
	if (mono_ns() >= base_ns + OFFSET_NS)
		die("cost phase outlasted its deadline offset: timers expired");
	note("cost: tearing down");
	close(p.twfd);
	while (p.tfd_n)
		close(p.tfd[--p.tfd_n]);
	close(p.ep);
	heap_destroy(&p.heap);
	free(p.tw);
	free(p.tfd);
	free(p.hp);
	free(rd);
}
