// SPDX-License-Identifier: GPL-2.0
/*
 * table.c - the shared timer table phase of twheel-bench (issue 20): what
 * one "activity" costs, an event loop pushing a connection's idle timeout
 * back by one period because the connection just did something, with the
 * table (one store into the mapped entry; the kernel re-places the timer
 * when its old deadline comes due) beside TWHEEL_IOC_MODIFY (one ioctl per
 * activity, or TWHEEL_IOC_SUBMIT of up to 64 in an event-loop iteration),
 * timerfd_settime() (one timerfd per timer) and the userspace heap's
 * re-key (plus the settime of its one timerfd when its minimum changed).
 * Meant for the icount boot: per activity, guest instructions.
 *
 * The pattern, the same for every implementation: N timers, a timeout of
 * P = 1000 ticks (1 ms ticks: 1 s), K = 1, 10 or 100 activities per timer
 * per timeout period, evenly spaced: a random permutation of the timers
 * is cut into L = P / K buckets of K * N / P timers, and at tick s the
 * timers of bucket s mod L have their activity. An activity stores the
 * deadline now + P + 1 ticks (now: the tick the loop cached; + 1 so that
 * it is never early). Before the first tick every timer is placed where
 * that pattern would have left it (bucket b at b - L + P + 1).
 *
 * The twheel fds run on the manual clock (TWHEEL_CONFIG_MANUAL, 1 ms
 * tick): after each tick's activities one TWHEEL_IOC_ADVANCE of a tick,
 * the work a real clock's hrtimer and the waiter's poll would do in that
 * tick (the table's timers come due every tick: the kernel must look at
 * their entries; with P = 1000 and N >= 1000 every tick has activities).
 * Those ADVANCE calls, with the cascades and re-placements they do, are
 * counted in the table's and MODIFY's figures: a figure is the whole run
 * (stores or calls, and the ADVANCEs) divided by the activities. timerfd
 * and the heap need nothing per tick (their timers never fire: they are
 * always re-armed later first).
 *
 * The table runs one untimed period, then one timed period (P ticks,
 * K * N activities, every timer re-placed about once). The others run a
 * window of W ticks (at least opt.ops activities, at most P ticks; a
 * multiple of 64 ticks, the span of the wheel's first level, when K = 1,
 * the only pattern where a MODIFYed timer reaches the first level and
 * cascades), untimed once, then timed. Then, once per N, cancel (after
 * the K = 1 runs): the table stores TWHEEL_TABLE_CANCELLED for all N
 * timers in random order, then the clock advances tick by tick until the
 * kernel has freed them all (P + 1 ticks; the ADVANCEs are counted);
 * MODIFY's fd takes TWHEEL_IOC_CANCEL per timer; the heap deletes all N
 * (with its settimes), each in one random order of its own (the activity
 * order would take the heap's minimum every time). Figures: total / N.
 *
 *	R table   CG IMPL K N REP INSTR_PER_ACTIVITY ACTIVITIES TICKS
 *	R tcancel CG IMPL N REP INSTR_PER_TIMER N
 *
 * IMPL: table, modify, b64, timerfd, heap. One rep: icount repeats.
 */
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include "bench.h"

#define T_TICK_NS	1000000ULL
#define T_P		1000L
#define T_OFFSET_NS	(3600 * NSEC)

enum { I_TABLE, I_MODIFY, I_B64, I_TFD, I_HEAP };

struct tctx {
	long n, k, L, per_tick;
	uint32_t *perm;		/* the timers in activity order */
	uint32_t *corder;	/* the timers in cancel order */
	/* twheel */
	int fd;
	uint64_t *ids;		/* handle -> id */
	uint64_t *tab;		/* the mapped table */
	size_t tab_len;
	/* timerfd and heap: deadline base (ns) and their own tick origin */
	int64_t base_ns;
	long t0;
	int *tfd;
	long tfd_n;
	struct heap heap;
	uint32_t *hh;		/* handle -> heap handle */
};

static struct twheel_op tops[256];

/* Tick (from the run's origin) at which the pattern had left handle @p. */
static inline long fill_tick(const struct tctx *c, long p)
{
	return p / c->per_tick - c->L + T_P + 1;
}

static int tw_fd(const struct tctx *c, int table)
{
	struct twheel_config cfg = {
		.tick_ns = T_TICK_NS,
		.flags = TWHEEL_CONFIG_MANUAL | TWHEEL_CONFIG_MAX_TIMERS |
			 (table ? TWHEEL_CONFIG_TABLE : 0),
		.max_timers = c->n,
	};
	int fd = twheel_open(O_CLOEXEC | O_NONBLOCK);

	if (fd < 0)
		die("table: twheel_open");
	if (twheel_config(fd, &cfg))
		die("table: TWHEEL_IOC_CONFIG");
	return fd;
}

/* Add the N timers where the pattern leaves them (untimed). */
static void tw_fill(struct tctx *c)
{
	long i, j, nb;

	for (i = 0; i < c->n; i += nb) {
		nb = c->n - i < 256 ? c->n - i : 256;
		for (j = 0; j < nb; j++)
			tops[j] = (struct twheel_op){
				.op = TWHEEL_OP_ADD,
				.flags = TWHEEL_ABSTIME,
				.cookie = c->perm[i + j],
				.expires_ns = fill_tick(c, i + j) * T_TICK_NS,
				.clock = CLOCK_MONOTONIC,
			};
		if (twheel_submit(c->fd, tops, nb) != nb)
			die("table: fill SUBMIT");
		for (j = 0; j < nb; j++) {
			if (tops[j].error)
				die("table: fill: add error %d", tops[j].error);
			c->ids[tops[j].cookie] = tops[j].id;
		}
	}
}

static inline void tick_advance(const struct tctx *c)
{
	if (twheel_advance(c->fd, T_TICK_NS, NULL))
		die("table: TWHEEL_IOC_ADVANCE");
}

/* The activities of ticks [s0, s0 + nt) with the table. */
static void run_table(const struct tctx *c, long s0, long nt)
{
	uint64_t *tab = c->tab;
	const uint64_t *ids = c->ids;
	long s, j;

	for (s = s0; s < s0 + nt; s++) {
		const uint32_t *h = c->perm + (s % c->L) * c->per_tick;
		uint64_t d = (uint32_t)(s + T_P + 1);

		for (j = 0; j < c->per_tick; j++) {
			uint64_t id = ids[h[j]];

			tab[(uint32_t)id - 1] = TWHEEL_TABLE_TAG(id) | d;
		}
		tick_advance(c);
	}
}

static void run_modify(const struct tctx *c, long s0, long nt)
{
	long s, j;

	for (s = s0; s < s0 + nt; s++) {
		const uint32_t *h = c->perm + (s % c->L) * c->per_tick;
		int64_t d = (s + T_P + 1) * T_TICK_NS;

		for (j = 0; j < c->per_tick; j++) {
			struct twheel_modify md = {
				.id = c->ids[h[j]],
				.expires_ns = d,
				.flags = TWHEEL_ABSTIME,
			};

			if (twheel_modify(c->fd, &md) != TWHEEL_STATE_PENDING)
				die("table: TWHEEL_IOC_MODIFY");
		}
		tick_advance(c);
	}
}

static void submit64(const struct tctx *c, int nb)
{
	int j;

	if (twheel_submit(c->fd, tops, nb) != nb)
		die("table: SUBMIT of %d modifies", nb);
	for (j = 0; j < nb; j++)
		if (tops[j].error || tops[j].result != TWHEEL_STATE_PENDING)
			die("table: batched modify: error %d result %u",
			    tops[j].error, tops[j].result);
}

/* Up to 64 MODIFYs per SUBMIT, the rest of a tick's before its ADVANCE. */
static void run_b64(const struct tctx *c, long s0, long nt)
{
	long s, j;
	int nb;

	for (s = s0; s < s0 + nt; s++) {
		const uint32_t *h = c->perm + (s % c->L) * c->per_tick;
		int64_t d = (s + T_P + 1) * T_TICK_NS;

		nb = 0;
		for (j = 0; j < c->per_tick; j++) {
			tops[nb++] = (struct twheel_op){
				.op = TWHEEL_OP_MODIFY,
				.flags = TWHEEL_ABSTIME,
				.id = c->ids[h[j]],
				.expires_ns = d,
			};
			if (nb == 64) {
				submit64(c, nb);
				nb = 0;
			}
		}
		if (nb)
			submit64(c, nb);
		tick_advance(c);
	}
}

static void run_tfd(const struct tctx *c, long s0, long nt)
{
	long s, j;

	for (s = s0; s < s0 + nt; s++) {
		const uint32_t *h = c->perm + (s % c->L) * c->per_tick;
		struct itimerspec its = {
			.it_value = ns_ts(c->base_ns +
					  (c->t0 + s + T_P + 1) * T_TICK_NS),
		};

		for (j = 0; j < c->per_tick; j++)
			if (timerfd_settime(c->tfd[h[j]], TFD_TIMER_ABSTIME,
					    &its, NULL))
				die("table: timerfd_settime");
	}
}

static void run_heap(struct tctx *c, long s0, long nt)
{
	long s, j;

	for (s = s0; s < s0 + nt; s++) {
		const uint32_t *h = c->perm + (s % c->L) * c->per_tick;
		int64_t d = c->base_ns + (c->t0 + s + T_P + 1) * T_TICK_NS;

		for (j = 0; j < c->per_tick; j++)
			heap_modify(&c->heap, c->hh[h[j]], d);
	}
}

static void run(struct tctx *c, int impl, long s0, long nt)
{
	switch (impl) {
	case I_TABLE:
		run_table(c, s0, nt);
		break;
	case I_MODIFY:
		run_modify(c, s0, nt);
		break;
	case I_B64:
		run_b64(c, s0, nt);
		break;
	case I_TFD:
		run_tfd(c, s0, nt);
		break;
	default:
		run_heap(c, s0, nt);
	}
}

static const char *const impl_name[] = {
	"table", "modify", "b64", "timerfd", "heap",
};

/* Run ticks [s0, s0 + nt) timed; report per activity. */
static void timed(struct tctx *c, int impl, long s0, long nt)
{
	long acts = nt * c->per_tick;
	int64_t t0 = mono_ns(), t1;

	run(c, impl, s0, nt);
	t1 = mono_ns();
	result("R table %s %s %ld %ld 0 %.1f %ld %ld", opt.cg, impl_name[impl],
	       c->k, c->n, (double)(t1 - t0) / acts, acts, nt);
}

static void check_tw(const struct tctx *c, uint64_t timers, const char *what)
{
	struct twheel_info info;

	if (twheel_info(c->fd, &info))
		die("TWHEEL_IOC_INFO");
	if (info.timers != timers || info.queued)
		die("table N=%ld K=%ld %s: %llu timers, %llu queued; expected %llu, 0",
		    c->n, c->k, what, (unsigned long long)info.timers,
		    (unsigned long long)info.queued,
		    (unsigned long long)timers);
}

static void report_cancel(const struct tctx *c, const char *impl,
			  int64_t ns)
{
	result("R tcancel %s %s %ld 0 %.1f %ld", opt.cg, impl, c->n,
	       (double)ns / c->n, c->n);
}

/* Cancel every timer by a store; the kernel frees them at their ticks. */
static void table_cancel(struct tctx *c)
{
	struct twheel_info info;
	int64_t t0 = mono_ns(), t1;
	long i;

	for (i = 0; i < c->n; i++) {
		uint64_t id = c->ids[c->corder[i]];

		c->tab[(uint32_t)id - 1] = TWHEEL_TABLE_CANCELLED(id);
	}
	for (i = 0; i <= T_P; i++)
		tick_advance(c);
	t1 = mono_ns();
	if (twheel_info(c->fd, &info))
		die("TWHEEL_IOC_INFO");
	if (info.timers || info.queued || info.cancelled != (uint64_t)c->n)
		die("table N=%ld: after cancel by store and a period: %llu timers, %llu queued, %llu cancelled (expected N)",
		    c->n, (unsigned long long)info.timers,
		    (unsigned long long)info.queued,
		    (unsigned long long)info.cancelled);
	report_cancel(c, "table", t1 - t0);
}

static void do_table(struct tctx *c)
{
	struct twheel_info info;

	c->fd = tw_fd(c, 1);
	if (twheel_info(c->fd, &info))
		die("TWHEEL_IOC_INFO");
	if (!(info.features & TWHEEL_FEATURE_TABLE) || !info.table_size)
		die("table: no shared timer table (features %#llx, size %llu)",
		    (unsigned long long)info.features,
		    (unsigned long long)info.table_size);
	c->tab_len = info.table_size;
	c->tab = mmap(NULL, c->tab_len, PROT_READ | PROT_WRITE, MAP_SHARED,
		      c->fd, 0);
	if (c->tab == MAP_FAILED)
		die("table: mmap %zu", c->tab_len);
	tw_fill(c);
	run(c, I_TABLE, 0, T_P);
	timed(c, I_TABLE, T_P, T_P);
	check_tw(c, c->n, "after the table's period");
	if (c->k == 1)
		table_cancel(c);
	munmap(c->tab, c->tab_len);
	close(c->fd);
}

static void do_modify(struct tctx *c, long w)
{
	int64_t t0;
	long i;

	c->fd = tw_fd(c, 0);
	tw_fill(c);
	run(c, I_MODIFY, 0, w);
	timed(c, I_MODIFY, w, w);
	timed(c, I_B64, 2 * w, w);
	check_tw(c, c->n, "after MODIFY");
	if (c->k == 1) {
		t0 = mono_ns();
		for (i = 0; i < c->n; i++)
			if (twheel_cancel(c->fd, c->ids[c->corder[i]]) !=
			    TWHEEL_STATE_PENDING)
				die("table: TWHEEL_IOC_CANCEL");
		report_cancel(c, "cancel-ioctl", mono_ns() - t0);
		check_tw(c, 0, "after CANCEL");
	}
	close(c->fd);
}

static void do_heap(struct tctx *c, long w)
{
	int64_t t0;
	long i;

	heap_init(&c->heap, c->n);
	for (i = 0; i < c->n; i++)
		c->hh[c->perm[i]] = heap_add(&c->heap, c->base_ns +
					     (c->t0 + fill_tick(c, i)) *
					     T_TICK_NS);
	run(c, I_HEAP, 0, w);
	c->heap.settimes = 0;
	timed(c, I_HEAP, w, w);
	result("M table_heap_settimes K %ld N %ld %llu in %ld activities",
	       c->k, c->n, (unsigned long long)c->heap.settimes,
	       w * c->per_tick);
	if (c->k == 1) {
		t0 = mono_ns();
		for (i = 0; i < c->n; i++)
			heap_del(&c->heap, c->hh[c->corder[i]]);
		report_cancel(c, "heap", mono_ns() - t0);
	}
	heap_destroy(&c->heap);
}

/* N timerfds, grown from one N to the next, armed an hour ahead. */
/* A random permutation of [0, n) into @p. */
static void shuffle(uint32_t *p, long n, struct rng *r)
{
	long i, j;
	uint32_t t;

	for (i = 0; i < n; i++)
		p[i] = i;
	for (i = n - 1; i > 0; i--) {
		j = rng_below(r, i + 1);
		t = p[i];
		p[i] = p[j];
		p[j] = t;
	}
}

static void tfd_grow(struct tctx *c, long n)
{
	struct itimerspec its = { .it_value = ns_ts(c->base_ns + T_P * T_TICK_NS) };

	c->tfd = realloc(c->tfd, n * sizeof(*c->tfd));
	if (!c->tfd)
		die("table: out of memory");
	for (; c->tfd_n < n; c->tfd_n++) {
		int fd = timerfd_create(CLOCK_MONOTONIC,
					TFD_NONBLOCK | TFD_CLOEXEC);

		if (fd < 0)
			die("table: timerfd_create");
		if (timerfd_settime(fd, TFD_TIMER_ABSTIME, &its, NULL))
			die("table: timerfd_settime");
		c->tfd[c->tfd_n] = fd;
	}
}

void phase_table(void)
{
	static const long ks[] = { 1, 10, 100 };
	struct tctx c = { 0 };
	long n, ki;

	c.base_ns = mono_ns() + T_OFFSET_NS;
	for (n = 1000; n <= opt.nmax; n *= 10) {
		struct rng r = rng_make(n, 2020, 5);
		int64_t tn = mono_ns();

		c.n = n;
		c.perm = xcalloc(n, sizeof(*c.perm));
		c.corder = xcalloc(n, sizeof(*c.corder));
		c.ids = xcalloc(n, sizeof(*c.ids));
		c.hh = xcalloc(n, sizeof(*c.hh));
		/*
		 * Cancels in an order of their own: in the activity order they
		 * would take the heap's minimum again and again.
		 */
		shuffle(c.perm, n, &r);
		shuffle(c.corder, n, &r);
		tfd_grow(&c, n);
		for (ki = 0; ki < 3; ki++) {
			long w;

			c.k = ks[ki];
			c.L = T_P / c.k;
			c.per_tick = c.k * n / T_P;
			w = (opt.ops + c.per_tick - 1) / c.per_tick;
			if (w > T_P)
				w = T_P;
			if (c.k == 1)
				w = (w + 63) / 64 * 64;
			do_table(&c);
			do_modify(&c, w);
			run(&c, I_TFD, 0, w);
			timed(&c, I_TFD, w, w);
			do_heap(&c, w);
			/* timerfd and heap deadlines keep rising */
			c.t0 += 2 * w + T_P + 1;
			note("table: N=%ld K=%ld done (%.1fs)", n, c.k,
			     (mono_ns() - tn) / 1e9);
		}
		free(c.perm);
		free(c.corder);
		free(c.ids);
		free(c.hh);
	}
	if (mono_ns() >= c.base_ns)
		die("table phase outlasted its deadline offset: timerfds fired");
	while (c.tfd_n)
		close(c.tfd[--c.tfd_n]);
	free(c.tfd);
}
