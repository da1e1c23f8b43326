// SPDX-License-Identifier: GPL-2.0
/*
 * idle.c - the idle-timeout phase of twheel-bench (issue 27, phase i):
 * what a server pays for per-connection idle timeouts, on the real clock.
 *
 * One thread, one epoll loop, blocked in epoll_pwait2() between its
 * activities. N timers (connections), K activities per timer per timeout
 * period P, evenly spread: a random permutation of the timers is cut
 * into L = P / K buckets of A = K * N / P timers, and at loop turn s (the
 * tick B + s of CLOCK_MONOTONIC, 1 ms ticks) the timers of bucket s mod L
 * have their activity: the deadline is pushed to tick B + s + P + 1 (now
 * + P, rounded up to a tick: never early). P = max(1000, K * N / 100)
 * ticks, so that A <= 100 activities a tick: every mode keeps up on one
 * vCPU. A timer that comes due unpushed is a close (checked: never before
 * its last pushed deadline, never twice), re-added as a new connection;
 * in the steady state nothing closes.
 *
 * Two loop shapes: the activities on the tick boundary (shape "edge"),
 * or half a tick after it ("half"); the loop sleeps in epoll_pwait2()
 * to that point (timer slack 1 ns).
 *
 * Each run starts in the steady state: every timer's last activity was
 * in the period before B, its deadline where that left it; a lazy mode's
 * placed deadline (its key) drawn uniformly between B + 1 and that
 * deadline, where re-keying at due time leaves it. Then a lead of
 * I_LEAD ticks, then the timed window of W ticks. Measured over the
 * window: CPU 0's busy time (elapsed - idle, cpu0_idle_ns(): under
 * the icount boot, guest instructions; everything: user, kernel,
 * interrupts; measured for the modes with an hrtimer per timer only when
 * tests/bench/idlestat's module gives the idle time, since
 * /proc/timer_list costs O(N^2) to read with them: at N = 10^3 its read
 * alone, about 10^8 guest instructions, stalls the loop past its timers'
 * deadlines), the process's CPU time (CLOCK_PROCESS_CPUTIME_ID),
 * voluntary context switches (the loop's
 * wake-ups), the system calls the loop made (counted here) and CPU 0's
 * local timer interrupts (LOC of /proc/interrupts). The report subtracts
 * the store-only mode (the same loop, which only stores the deadline).
 *
 * Repetitions (-r R): every case runs R times, REP 0..R-1, each run its
 * own fresh start (start() ... finish()), the modes interleaved (rep 0 of
 * every mode, then rep 1 of every mode, ...), the store-only mode in each:
 * a repetition's figures are net of that repetition's store-only run.
 * Under icount a case's figures move with the phase of the clock at its
 * start (up to about 10%); successive repetitions start later, at other
 * phases (time moves on by every mode's run in between). The same timers,
 * activity order and lazy keys in every repetition: only the clock's
 * phase differs. The expiry run likewise, R times.
 *
 *	R itime CG MODE N K SHAPE REP ACTS TICKS BUSY_NS PROC_NS VCSW SYSCALLS
 *		LOC CLOSES LATE RACED LATE_TURNS
 *	R iexp  CG MODE N REP RECORDS BUSY_NS PROC_NS VCSW SYSCALLS LOC
 *
 * BUSY_NS is -1 where not measured. iexp: the expiry cost, N = 10^4
 * deadlines spread over 1 s (10 a tick), no activity, until every timer
 * has closed once.
 */
#define _GNU_SOURCE
#include <sys/prctl.h>
#include <sys/resource.h>
#include <unistd.h>

#include "idle.h"

#define I_LEAD		100	/* ticks before the timed window */
#define I_EXP_N		10000	/* timers of the expiry run */
#define I_EXP_TICKS	1000	/* ... spread over that many ticks */

static const struct imode *const modes[] = {
	&im_store, &im_table, &im_table_read, &im_modify, &im_b64,
	&im_timerfd, &im_uring, &im_heap_lazy, &im_heap_eager, &im_wheel_lazy,
	&im_wheel_eager,
};
#define I_NMODES	(sizeof(modes) / sizeof(*modes))

/* Is mode @m asked for (-M: a comma-separated list)? */
static int wanted(const struct imode *m)
{
	const char *p = opt.idle_modes;
	size_t len = strlen(m->name);

	if (!p)
		return 1;
	while (p) {
		if (!strncmp(p, m->name, len) && (!p[len] || p[len] == ','))
			return 1;
		p = strchr(p, ',');
		if (p)
			p++;
	}
	return 0;
}

static int lazy_mode(const struct imode *m)
{
	return m == &im_table || m == &im_table_read || m == &im_heap_lazy ||
	       m == &im_wheel_lazy;
}

int64_t idle_close(struct ictx *c, uint32_t h, int64_t when_ns)
{
	int64_t d = c->last[h];

	if (h >= c->n)
		die("idle %s: close of handle %u, not a timer", c->m->name, h);
	/* a record queued by the read after the wake-up: a later now */
	if (when_ns > c->now)
		c->now = when_ns;
	if (when_ns < d * I_TICK_NS || c->now < d * I_TICK_NS)
		die("idle %s N=%ld K=%ld: timer %u closed at %lld (now %lld), before its deadline %lld",
		    c->m->name, c->n, c->k, h, (long long)when_ns,
		    (long long)c->now, (long long)(d * I_TICK_NS));
	if (c->closed[h] == d)
		die("idle %s N=%ld K=%ld: timer %u closed twice for deadline %lld",
		    c->m->name, c->n, c->k, h, (long long)d);
	c->closed[h] = d;
	c->closes++;
	if (c->now > (d + 1) * I_TICK_NS)
		c->late_closes++;
	if (c->expiry)
		return -1;
	c->last[h] = i_tick_ceil(c->now) + c->P + 1;
	return c->last[h];
}

void idle_epoll_add(struct ictx *c, int fd, uint64_t u64)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.u64 = u64 };

	if (epoll_ctl(c->ep, EPOLL_CTL_ADD, fd, &ev))
		die("idle: EPOLL_CTL_ADD");
}

/* One wait of the loop: events until @until_ns (or one, if < 0). */
static void wait_until(struct ictx *c, int64_t until_ns)
{
	struct epoll_event evs[64];
	int i, nev;

	for (;;) {
		struct timespec ts;

		if (c->m->flush)
			c->m->flush(c);
		if (until_ns < 0 && c->closes >= (uint64_t)c->n)
			return;		/* the expiry run's last closed */
		if (until_ns >= 0) {
			int64_t d = until_ns - mono_ns();

			ts = ns_ts(d > 0 ? d : 0);
		}
		nev = SYS(c, epoll_pwait2(c->ep, evs, 64,
					  until_ns >= 0 ? &ts : NULL, NULL));
		if (nev < 0) {
			if (errno == EINTR)
				continue;
			die("idle: epoll_pwait2");
		}
		c->now = mono_ns();
		for (i = 0; i < nev; i++)
			c->m->event(c, evs[i].data.u64);
		if (until_ns < 0)
			return;
		if (c->now >= until_ns) {
			if (c->now - until_ns > I_TICK_NS)
				c->late_turns++;
			return;
		}
	}
}

static int64_t base_tick;

/* Loop turns [s0, s1): wait for the turn's point, then its activities. */
static void loop(struct ictx *c, long s0, long s1)
{
	long s, j;

	for (s = s0; s < s1; s++) {
		const uint32_t *b = c->perm + (s % c->L) * c->per_tick;
		int64_t d = base_tick + s + c->P + 1;

		wait_until(c, (base_tick + s) * I_TICK_NS +
			   (c->half ? I_TICK_NS / 2 : 0));
		for (j = 0; j < c->per_tick; j++) {
			c->last[b[j]] = d;
			c->m->act(c, b[j]);
		}
	}
}

struct snap {
	int64_t t, idle, cpu;
	long vcsw;
	uint64_t nsys;
	long long loc;
};

/* CPU 0's local timer interrupts (first column of LOC:). */
static long long read_loc(void)
{
	char line[4096];
	long long v = -1;
	FILE *f = fopen("/proc/interrupts", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, " LOC: %lld", &v) == 1)
			break;
	fclose(f);
	return v;
}

static long vcsw(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_nvcsw;
}

static void snap_begin(struct ictx *c, struct snap *s, int busy)
{
	s->loc = read_loc();
	s->vcsw = vcsw();
	s->idle = busy ? cpu0_idle_ns() : 0;
	s->nsys = c->nsys;
	s->t = mono_ns();
	s->cpu = cpu_ns();
}

static void snap_end(struct ictx *c, struct snap *s, int busy)
{
	s->t = mono_ns();
	s->cpu = cpu_ns();
	s->nsys = c->nsys;
	s->idle = busy ? cpu0_idle_ns() : 0;
	s->vcsw = vcsw();
	s->loc = read_loc();
}

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

static int64_t *keys;

/* Set the mode up, its deadlines where the steady state leaves them. */
static void start(struct ictx *c, const struct imode *m, long n)
{
	struct rng r = rng_make(n, c->k, 27);
	int64_t margin = 100 + n / 20;	/* ticks for the setup */
	long p;

	c->m = m;
	c->ep = epoll_create1(EPOLL_CLOEXEC);
	if (c->ep < 0)
		die("idle: epoll_create1");
	c->nsys = c->closes = c->late_closes = c->raced = 0;
	c->late_turns = 0;
	base_tick = i_tick_ceil(mono_ns()) + margin;
	for (p = 0; p < n; p++) {
		uint32_t h = c->perm[p];

		c->closed[h] = -1;
		if (c->expiry) {
			c->last[h] = base_tick + 1 + p * I_EXP_TICKS / n;
			keys[h] = c->last[h];
			continue;
		}
		/* bucket p / A had its last activity at turn p / A - L */
		c->last[h] = base_tick + p / c->per_tick - c->L + c->P + 1;
		keys[h] = lazy_mode(m) ?
			base_tick + 1 + (int64_t)rng_below(&r, c->last[h] -
							   base_tick) :
			c->last[h];
	}
	m->setup(c, keys);
	c->now = mono_ns();
	if (mono_ns() >= base_tick * I_TICK_NS)
		die("idle %s N=%ld: the set-up outlasted its %lld ticks",
		    m->name, n, (long long)margin);
}

/* No timer left due and unclosed; the facility holds @want timers. */
static void check_end(struct ictx *c, long want)
{
	int64_t t = mono_ns(), now_tick = t / I_TICK_NS;
	long h, have;

	/* what is due by now: processed by one more (untimed) turn */
	wait_until(c, t);
	for (h = 0; h < c->n && c->m != &im_store; h++)
		if (c->last[h] + 3 <= now_tick && c->closed[h] != c->last[h])
			die("idle %s N=%ld K=%ld: timer %ld due at tick %lld, now %lld: never closed",
			    c->m->name, c->n, c->k, h, (long long)c->last[h],
			    (long long)now_tick);
	have = c->m->count(c);
	if (have != want)
		die("idle %s N=%ld K=%ld: the facility holds %ld timers, expected %ld",
		    c->m->name, c->n, c->k, have, want);
}

static void finish(struct ictx *c)
{
	c->m->teardown(c);
	close(c->ep);
}

/*
 * A mode with an hrtimer per timer (timerfd per timer, io_uring) keeps
 * them in the kernel's hrtimer tree, which cascades nothing: its cost per
 * activity does not depend on where the window falls, and at N = 10^5 its
 * loop is the slowest to emulate by far. Its window is at most this long.
 */
#define I_HRTIMER_WINDOW	1000

/*
 * Where the store-only runs' windows began, modulo one period of level 2
 * of a 64-slot wheel (4096 ticks): the console's note of a case shows
 * that its repetitions began at other phases of the clock.
 */
static char phases[256];

static void add_phase(const struct ictx *c, int rep)
{
	size_t len = strlen(phases);

	snprintf(phases + len, sizeof(phases) - len, " %s%d:%lld",
		 c->half ? "half" : "edge", rep,
		 (long long)((base_tick + I_LEAD) % 4096));
}

static void run_one(struct ictx *c, const struct imode *m, long w, int rep)
{
	int busy = !m->hrtimers || idle_clock_cheap();
	struct snap a, b;

	if (m->hrtimers && w > I_HRTIMER_WINDOW)
		w = I_HRTIMER_WINDOW;

	start(c, m, c->n);
	if (m == &im_store && opt.reps > 1)
		add_phase(c, rep);
	loop(c, 0, I_LEAD);
	c->late_turns = 0;
	snap_begin(c, &a, busy);
	loop(c, I_LEAD, I_LEAD + w);
	snap_end(c, &b, busy);
	check_end(c, c->n);
	result("R itime %s %s %ld %ld %s %d %ld %ld %lld %lld %ld %llu %lld %llu %llu %llu %llu",
	       opt.cg, m->name, c->n, c->k, c->half ? "half" : "edge", rep,
	       w * c->per_tick, w,
	       busy ? (long long)((b.t - a.t) - (b.idle - a.idle)) : -1LL,
	       (long long)(b.cpu - a.cpu), b.vcsw - a.vcsw,
	       (unsigned long long)(b.nsys - a.nsys), b.loc - a.loc,
	       (unsigned long long)c->closes,
	       (unsigned long long)c->late_closes,
	       (unsigned long long)c->raced,
	       (unsigned long long)c->late_turns);
	finish(c);
}

/* Expiry: I_EXP_N deadlines over I_EXP_TICKS ticks, no activity. */
static void run_expiry(struct ictx *c, const struct imode *m, int rep)
{
	int busy = !m->hrtimers || idle_clock_cheap();
	struct timespec ts;
	struct snap a, b;

	c->expiry = 1;
	start(c, m, c->n);
	if (m->flush)
		m->flush(c);
	ts = ns_ts(base_tick * I_TICK_NS);
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL))
		;
	snap_begin(c, &a, busy);
	while (c->closes < (uint64_t)c->n)
		wait_until(c, -1);
	snap_end(c, &b, busy);
	check_end(c, 0);
	result("R iexp %s %s %ld %d %llu %lld %lld %ld %llu %lld", opt.cg,
	       m->name, c->n, rep, (unsigned long long)c->closes,
	       busy ? (long long)((b.t - a.t) - (b.idle - a.idle)) : -1LL,
	       (long long)(b.cpu - a.cpu), b.vcsw - a.vcsw,
	       (unsigned long long)(b.nsys - a.nsys), b.loc - a.loc);
	finish(c);
	c->expiry = 0;
}

static void alloc(struct ictx *c, long n)
{
	struct rng r = rng_make(n, 27, 1);

	c->n = n;
	c->perm = xcalloc(n, sizeof(*c->perm));
	c->last = xcalloc(n, sizeof(*c->last));
	c->closed = xcalloc(n, sizeof(*c->closed));
	keys = xcalloc(n, sizeof(*keys));
	shuffle(c->perm, n, &r);
}

static void release(struct ictx *c)
{
	free(c->perm);
	free(c->last);
	free(c->closed);
	free(keys);
}

/*
 * opt.idle_ticks: the timed window (ticks; 4096 unless told, see main.c);
 * N up to opt.nmax (10^6 at most); opt.reps repetitions of every case.
 * Modes run in the order of modes[], the store-only loop first, in each
 * repetition.
 */
void phase_idle(void)
{
	static const long ks[] = { 1, 10, 100 };
	struct ictx c = { 0 };
	long n, ki, w = opt.idle_ticks;
	unsigned int mi;
	int half, rep;

	prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
	for (n = 1000; n <= opt.nmax && n <= 1000000; n *= 10) {
		alloc(&c, n);
		for (ki = 0; ki < 3; ki++) {
			c.k = ks[ki];
			c.P = c.k * n / 100 > 1000 ? c.k * n / 100 : 1000;
			c.L = c.P / c.k;
			c.per_tick = c.k * n / c.P;
			for (half = 0; half < 2; half++) {
				c.half = half;
				for (rep = 0; rep < opt.reps; rep++)
					for (mi = 0; mi < I_NMODES; mi++)
						if (n <= modes[mi]->maxn &&
						    wanted(modes[mi]))
							run_one(&c, modes[mi],
								w, rep);
			}
			note("idle: N=%ld K=%ld P=%ld done%s%s", n, c.k, c.P,
			     phases[0] ? "; windows from tick mod 4096:" : "",
			     phases);
			phases[0] = 0;
		}
		release(&c);
	}
	alloc(&c, I_EXP_N);
	c.k = 1;
	c.P = I_EXP_TICKS;
	c.L = c.P;
	c.per_tick = 1;
	for (rep = 0; rep < opt.reps; rep++)
		for (mi = 1; mi < I_NMODES; mi++)
			if (modes[mi] != &im_b64 && wanted(modes[mi]))
				run_expiry(&c, modes[mi], rep);
	release(&c);
	note("idle: expiry done");
}
