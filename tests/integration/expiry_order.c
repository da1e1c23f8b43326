// SPDX-License-Identifier: GPL-2.0
/*
 * expiry_order: order of many timers (deadline order, ties in add order,
 * at every level of the wheel), on the real clock and on the manual one;
 * also a timer added already due behind an older one whose expiry the
 * kernel has not processed yet. Single timers, their records and the
 * clocks: expiry.c.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>

#include "twtest.h"

static int64_t ceil_ms(int64_t ns)
{
	return (ns + TWT_MS - 1) / TWT_MS * TWT_MS;
}

static void shuffle(int *v, int n, uint64_t *seed)
{
	int i;

	for (i = n - 1; i > 0; i--) {
		int j = twt_rand(seed) % (i + 1), t = v[i];

		v[i] = v[j];
		v[j] = t;
	}
}

/*
 * 1000 absolute timers, shuffled, on whole milliseconds 1..300 after a
 * base: they come out by deadline, ties in add order, none early.
 */
#define N_ORD	1000
static void many_ordered(void)
{
	int fd = twt_open(0);
	static int d[N_ORD];
	static struct twheel_event ev[N_ORD];
	static int64_t late[N_ORD];
	uint64_t seed = 0x1234567;
	int64_t base = 0, t_add = 0, margin;
	int i, attempt;

	for (attempt = 0; attempt < 3; attempt++) {
		margin = (500 * TWT_MS) << attempt;
		for (i = 0; i < N_ORD; i++)
			d[i] = 1 + i % 300;
		shuffle(d, N_ORD, &seed);
		base = ceil_ms(twt_mono() + margin);
		t_add = twt_mono();
		for (i = 0; i < N_ORD; i++)
			twt_add_abs(fd, i, base + d[i] * TWT_MS,
				    CLOCK_MONOTONIC);
		t_add = twt_mono() - t_add;
		printf("# %d adds took %.3f ms\n", N_ORD, t_add / 1e6);
		if (twt_mono() < base)
			break;
		/* Too slow to be sure none was due on add: drop, retry. */
		close(fd);
		fd = twt_open(0);
	}
	CHECK(attempt < 3);
	CHECK_EQ(twt_timers(fd), N_ORD);
	twt_read_n(fd, ev, N_ORD, 30000);
	for (i = 0; i < N_ORD; i++) {
		int c = (int)ev[i].cookie;
		int64_t dl;

		CHECK(ev[i].cookie < N_ORD);
		dl = base + d[c] * TWT_MS;
		CHECK_EQ(ev[i].count, 1);
		CHECK_EQ(ev[i].clock, CLOCK_MONOTONIC);
		if (ev[i].time_ns < dl)
			twt_fail(__FILE__, __LINE__, "EARLY: cookie %d by %lld ns",
				 c, (long long)(dl - ev[i].time_ns));
		late[i] = ev[i].time_ns - dl;
		if (i > 0) {
			int p = (int)ev[i - 1].cookie;

			if (d[p] > d[c] || (d[p] == d[c] && p > c))
				twt_fail(__FILE__, __LINE__,
					 "record %d: cookie %d (deadline +%d ms) after cookie %d (+%d ms)",
					 i, c, d[c], p, d[p]);
		}
	}
	twt_print_dist("lateness many_ordered", late, N_ORD);
	CHECK_EQ(twt_timers(fd), 0);
	close(fd);
}

/*
 * 1000 relative timers, 1..300 ms, ns-granular. The true deadline of each
 * lies in [before + d, after + d] around its ioctl; whenever one timer's
 * earliest possible deadline is a whole tick after another's latest, it
 * must come out after it. And none early.
 */
static void many_relative(void)
{
	int fd = twt_open(0);
	static int64_t lo[N_ORD], hi[N_ORD], late[N_ORD];
	static struct twheel_event ev[N_ORD];
	uint64_t seed = 0xABCDEF;
	int i, max_i = -1;

	for (i = 0; i < N_ORD; i++) {
		int64_t d = TWT_MS + (int64_t)(twt_rand(&seed) % (299 * TWT_MS));

		lo[i] = twt_mono() + d;
		twt_add_rel(fd, i, d);
		hi[i] = twt_mono() + d;
	}
	twt_read_n(fd, ev, N_ORD, 30000);
	for (i = 0; i < N_ORD; i++) {
		int c = (int)ev[i].cookie;

		CHECK(ev[i].cookie < N_ORD);
		if (ev[i].time_ns < lo[c])
			twt_fail(__FILE__, __LINE__, "EARLY: cookie %d by %lld ns",
				 c, (long long)(lo[c] - ev[i].time_ns));
		late[i] = ev[i].time_ns - hi[c];
		/*
		 * No record before this one may have had a deadline a whole
		 * tick after this one's latest possible deadline.
		 */
		if (max_i >= 0 && hi[c] + (int64_t)TWHEEL_DEFAULT_TICK_NS <= lo[max_i])
			twt_fail(__FILE__, __LINE__,
				 "record %d: cookie %d due by %lld came after cookie %d due from %lld",
				 i, c, (long long)hi[c], max_i, (long long)lo[max_i]);
		if (max_i < 0 || lo[c] > lo[max_i])
			max_i = c;
	}
	twt_print_dist("lateness many_relative (vs latest possible deadline)",
		       late, N_ORD);
	close(fd);
}

/* Equal deadlines come out in add order, also interleaved with others. */
static void ties_add_order(void)
{
	int fd = twt_open(0);
	static struct twheel_event ev[300];
	/* 1 s: 300 adds take up to ~150 ms on the debug kernel under TCG. */
	int64_t d1 = twt_mono() + 1000 * TWT_MS + 123, d2 = d1 + 7 * TWT_MS;
	int i;

	for (i = 0; i < 300; i++)
		twt_add_abs(fd, i, (i % 3 == 2) ? d2 : d1, CLOCK_MONOTONIC);
	CHECK(twt_mono() < d1);
	twt_read_n(fd, ev, 300, 10000);
	for (i = 0; i < 300; i++) {
		/* First the 200 on d1 in add order, then the 100 on d2. */
		int want = i < 200 ? (i / 2) * 3 + (i % 2) : (i - 200) * 3 + 2;

		CHECK_EQ(ev[i].cookie, want);
		CHECK(ev[i].time_ns >= ((i < 200) ? d1 : d2));
	}
	close(fd);
}

/*
 * Ties where the wheel moves them once. ties_add_order's deadline lies
 * a level up (1000 ticks ahead): a slot there is cascaded to level 0 and
 * then handed back, so a wheel that reversed the order of a slot's
 * entries at each move would reverse them twice and pass. Here ties sit
 * where they are moved exactly once: at level 0 (under 64 ticks ahead,
 * in the clock's block of 64), and at exact multiples of 64 ticks (128,
 * 4096: the slot's event tick is the deadline, handed back straight from
 * the slot), next to ties that do cascade (1000, 4100); several timers
 * each, their adds interleaved across the deadlines. Each deadline's
 * records must come out exactly in add order.
 */
#define TIE_K		5	/* timers per deadline */

static const int64_t tie_ticks[] = { 5, 37, 63, 64, 128, 1000, 4096, 4100 };
#define TIE_ND		((int)(sizeof(tie_ticks) / sizeof(tie_ticks[0])))

/*
 * ev[0..n) against the cookies of want[0..n): -1 when equal, else the
 * first index that differs.
 */
static int tie_first_diff(const struct twheel_event *ev, const uint64_t *want,
			  int n)
{
	int i;

	for (i = 0; i < n; i++)
		if (ev[i].cookie != want[i])
			return i;
	return -1;
}

/* Fail unless ev[] is exactly want[], saying which record differs. */
#define CHECK_TIES(ev, want, n) do {					\
	int _d = tie_first_diff((ev), (want), (n));			\
									\
	if (_d >= 0)							\
		twt_fail(__FILE__, __LINE__,				\
			 "record %d: cookie %llu, want %llu (cookie: deadline index * 100 + add order)", \
			 _d, (unsigned long long)(ev)[_d].cookie,	\
			 (unsigned long long)(want)[_d]);		\
} while (0)

/*
 * The check itself tells reversed ties apart: the records of each
 * deadline in reverse add order are refused.
 */
static void tie_check_sees_reversal(const uint64_t *want, int n)
{
	struct twheel_event rev[TIE_ND * TIE_K];
	int i, j;

	memset(rev, 0, sizeof(rev));
	for (i = 0; i < n; i += TIE_K)
		for (j = 0; j < TIE_K; j++)
			rev[i + j].cookie = want[i + TIE_K - 1 - j];
	CHECK(tie_first_diff(rev, want, n) >= 0);
	for (j = 0; j < TIE_K; j++)
		rev[j].cookie = want[j];
	CHECK(tie_first_diff(rev, want, n) >= 0);
}

/*
 * Add TIE_K timers for each deadline (manual clock at 0, 1 ms tick),
 * interleaved: round j adds the j-th timer of each deadline, the
 * deadlines in a different order each round. Cookie: deadline index *
 * 100 + add order within it. want[] gets the expected order.
 */
static void tie_add_all(int fd, uint64_t *want)
{
	int j, d;

	for (j = 0; j < TIE_K; j++)
		for (d = 0; d < TIE_ND; d++) {
			/* 3 is prime to TIE_ND: a permutation each round. */
			int dd = (d * 3 + j * 5) % TIE_ND;

			twt_add_abs(fd, dd * 100 + j, tie_ticks[dd] * TWT_MS,
				    CLOCK_MONOTONIC);
		}
	for (d = 0; d < TIE_ND; d++)
		for (j = 0; j < TIE_K; j++)
			want[d * TIE_K + j] = d * 100 + j;
}

/* One advance past every deadline: deadline order, ties in add order. */
static void ties_levels_one_advance(void)
{
	int fd = twt_open_manual(O_NONBLOCK, TWT_MS);
	struct twheel_event ev[TIE_ND * TIE_K + 1];
	uint64_t want[TIE_ND * TIE_K];

	tie_add_all(fd, want);
	tie_check_sees_reversal(want, TIE_ND * TIE_K);
	CHECK_EQ(twt_advance(fd, 5000 * TWT_MS), 5000 * TWT_MS);
	CHECK_EQ(twt_drain(fd, ev, TIE_ND * TIE_K + 1), TIE_ND * TIE_K);
	CHECK_TIES(ev, want, TIE_ND * TIE_K);
	close(fd);
}

/*
 * The clock moved to each deadline in turn, exactly: that deadline's
 * timers, and only they, in add order; also for ties added once the
 * clock has moved (at 100 ticks: 128 is then in the next block of 64,
 * its slot's event tick).
 */
static void ties_levels_each_deadline(void)
{
	int fd = twt_open_manual(O_NONBLOCK, TWT_MS);
	struct twheel_event ev[TIE_ND * TIE_K + 1];
	uint64_t want[TIE_ND * TIE_K];
	int64_t now = 0;
	int d, j;

	tie_add_all(fd, want);
	for (d = 0; d < TIE_ND; d++) {
		now = twt_advance(fd, tie_ticks[d] * TWT_MS - now);
		CHECK_EQ(now, tie_ticks[d] * TWT_MS);
		CHECK_EQ(twt_drain(fd, ev, TIE_ND * TIE_K + 1), TIE_K);
		CHECK_TIES(ev, &want[d * TIE_K], TIE_K);
		for (j = 0; j < TIE_K; j++)
			CHECK_EQ(ev[j].time_ns, now);
	}
	close(fd);

	/* Ties added at 100 ticks: at 110 (level 0), 128 and 192 (level 1). */
	fd = twt_open_manual(O_NONBLOCK, TWT_MS);
	CHECK_EQ(twt_advance(fd, 100 * TWT_MS), 100 * TWT_MS);
	for (j = 0; j < TIE_K; j++) {
		twt_add_abs(fd, 200 + j, 192 * TWT_MS, CLOCK_MONOTONIC);
		twt_add_abs(fd, 100 + j, 128 * TWT_MS, CLOCK_MONOTONIC);
		twt_add_abs(fd, j, 110 * TWT_MS, CLOCK_MONOTONIC);
	}
	for (j = 0; j < 3 * TIE_K; j++)
		want[j] = j / TIE_K * 100 + j % TIE_K;
	CHECK_EQ(twt_advance(fd, 100 * TWT_MS), 200 * TWT_MS);
	CHECK_EQ(twt_drain(fd, ev, TIE_ND * TIE_K + 1), 3 * TIE_K);
	CHECK_TIES(ev, want, 3 * TIE_K);
	close(fd);
}

/*
 * On CLOCK_MONOTONIC: ties a few ticks ahead inside the present block of
 * 64 ticks (level 0), and ties at the start of the next block but one (a
 * multiple of 64 ticks, handed back straight from its level-1 slot). The
 * tick number is the kernel's monotonic time over the tick (no time
 * namespace here). A try whose adds were not all done before the first
 * deadline proves nothing and is repeated.
 */
static void ties_levels_real_clock(void)
{
	struct twheel_event ev[4 * TIE_K];
	uint64_t want[4 * TIE_K];
	int attempt, j;

	for (attempt = 0; attempt < 10; attempt++) {
		int fd = twt_open(O_NONBLOCK);
		int64_t tick = twt_mono() / TWT_MS, near, far;

		if (tick % 64 > 30) {
			/* Too close to the block's end: wait for the next. */
			twt_sleep_ns(((tick / 64 + 1) * 64 + 1) * TWT_MS -
				     twt_mono());
			tick = twt_mono() / TWT_MS;
		}
		near = tick - tick % 64 + 60;		/* level 0 */
		far = tick - tick % 64 + 128;		/* 64 * k */
		twt_add_rel(fd, 999, 0);	/* brings the wheel to now */
		CHECK_EQ(read(fd, ev, sizeof(ev)), TWT_EV_SIZE);
		for (j = 0; j < TIE_K; j++) {
			twt_add_abs(fd, 100 + j, far * TWT_MS, CLOCK_MONOTONIC);
			twt_add_abs(fd, j, near * TWT_MS, CLOCK_MONOTONIC);
		}
		if (twt_mono() >= near * TWT_MS) {
			printf("# adds not done before the deadline: again\n");
			close(fd);
			continue;
		}
		for (j = 0; j < 2 * TIE_K; j++)
			want[j] = j / TIE_K * 100 + j % TIE_K;
		twt_read_n(fd, ev, 2 * TIE_K, 10000);
		CHECK_TIES(ev, want, 2 * TIE_K);
		for (j = 0; j < 2 * TIE_K; j++)
			CHECK(ev[j].time_ns >= (j < TIE_K ? near : far) * TWT_MS);
		close(fd);
		return;
	}
	twt_fail(__FILE__, __LINE__, "never added %d timers within 30 ticks",
		 2 * TIE_K);
}

/*
 * Deadline order within one tick: the header promises deadline order; a
 * wheel at tick resolution may only keep add order inside a tick.
 */
static void subtick_order(void)
{
	int fd = twt_open(0);
	struct twheel_event ev[4];
	int64_t base = ceil_ms(twt_mono() + 200 * TWT_MS);

	/* Added latest-first, all inside the tick (base, base + 1 ms]. */
	twt_add_abs(fd, 3, base + 900 * TWT_US, CLOCK_MONOTONIC);
	twt_add_abs(fd, 2, base + 600 * TWT_US, CLOCK_MONOTONIC);
	twt_add_abs(fd, 1, base + 300 * TWT_US, CLOCK_MONOTONIC);
	twt_add_abs(fd, 0, base + 1, CLOCK_MONOTONIC);
	CHECK(twt_mono() < base);
	twt_read_n(fd, ev, 4, 10000);
	printf("# order %llu %llu %llu %llu\n",
	       (unsigned long long)ev[0].cookie, (unsigned long long)ev[1].cookie,
	       (unsigned long long)ev[2].cookie, (unsigned long long)ev[3].cookie);
	/*
	 * The header promises deadline order at the resolution of a tick:
	 * deadlines within one tick come out in add order, like ties.
	 */
	CHECK_EQ(ev[0].cookie, 3);
	CHECK_EQ(ev[1].cookie, 2);
	CHECK_EQ(ev[2].cookie, 1);
	CHECK_EQ(ev[3].cookie, 0);
	/* And none before its own deadline. */
	CHECK(ev[0].time_ns >= base + 900 * TWT_US);
	CHECK(ev[1].time_ns >= base + 600 * TWT_US);
	CHECK(ev[2].time_ns >= base + 300 * TWT_US);
	CHECK(ev[3].time_ns >= base + 1);
	close(fd);
}

/*
 * Deadlines around the wheel's level boundaries (64^k ticks), with odd
 * nanoseconds: all on time, in order.
 */
static void level_boundaries(void)
{
	int fd = twt_open(0);
	static const int64_t off[] = {
		1, 2, 3, 62, 63, 64, 65, 66, 127, 128, 129, 191, 192, 255, 256,
		257, 1000, 2047, 2048, 4094, 4095, 4096, 4097,
	};
	const int n = sizeof(off) / sizeof(off[0]);
	int64_t dl[3 * sizeof(off) / sizeof(off[0])];
	struct twheel_event ev[3 * sizeof(off) / sizeof(off[0])];
	int64_t late[3 * sizeof(off) / sizeof(off[0])];
	/* On a whole ms, so +-1 ns straddles a tick boundary. */
	int64_t base = ceil_ms(twt_mono() + 400 * TWT_MS), maxdl = INT64_MIN;
	int i, j;

	/* Each offset three times: on the ms, 1 ns after, 1 ns before. */
	for (i = n - 1; i >= 0; i--)
		for (j = 0; j < 3; j++) {
			int k = i * 3 + j;

			dl[k] = base + off[i] * TWT_MS + (j == 1 ? 1 : j == 2 ? -1 : 0);
			twt_add_abs(fd, k, dl[k], CLOCK_MONOTONIC);
		}
	CHECK(twt_mono() < base);
	twt_read_n(fd, ev, 3 * n, 20000);
	for (i = 0; i < 3 * n; i++) {
		int c = (int)ev[i].cookie;

		CHECK(c >= 0 && c < 3 * n);
		if (ev[i].time_ns < dl[c])
			twt_fail(__FILE__, __LINE__, "EARLY: +%lld ms (%d) by %lld ns",
				 (long long)off[c / 3], c % 3,
				 (long long)(dl[c] - ev[i].time_ns));
		late[i] = ev[i].time_ns - dl[c];
		/*
		 * In order, at tick resolution (subtick_order checks finer):
		 * never one a whole tick later before this one.
		 */
		CHECK(maxdl < dl[c] + (int64_t)TWHEEL_DEFAULT_TICK_NS);
		if (dl[c] > maxdl)
			maxdl = dl[c];
	}
	twt_print_dist("lateness level_boundaries", late, 3 * n);
	close(fd);
}

/*
 * A timer added with a deadline already past is queued at once; an older
 * timer whose deadline, a whole tick earlier, has also passed, but whose
 * expiry the kernel has not processed yet, must still come out first:
 * deadline order within a clock.
 *
 * The window (older timer expired, its expiry not yet processed) is the
 * expiry work's latency. First it is forced: this thread and a spinner on
 * the other CPU run SCHED_FIFO, so the (SCHED_OTHER) expiry work cannot
 * run while the second timer is added, as on a busy machine. Then it is
 * left to chance over many tries ("# window hit" counts the tries where
 * the older timer was still unprocessed just before the second add).
 */
static atomic_int spin_stop;

static void *rt_spin(void *arg)
{
	(void)arg;
	while (!atomic_load(&spin_stop))
		;
	return NULL;
}

/* One try: 0 in order, 1 out of order. *hit: the window was open. */
static int due_add_try(int fd, int *hit)
{
	struct twheel_event ev[2];
	/* Just after a tick boundary, and the next one a whole tick later. */
	int64_t dla = ceil_ms(twt_mono() + 2 * TWT_MS) + 1;
	int64_t dlb = dla + TWT_MS;
	uint64_t a, b;

	a = twt_add_abs(fd, 1, dla, CLOCK_MONOTONIC);
	while (twt_mono() < dlb + 20 * TWT_US)
		;
	*hit = twt_queued(fd) == 0;
	b = twt_add_abs(fd, 2, dlb, CLOCK_MONOTONIC);
	twt_read_n(fd, ev, 2, 5000);
	return ev[0].id != a || ev[1].id != b;
}

static void due_add_keeps_order(void)
{
	int fd = twt_open(O_NONBLOCK);
	struct sched_param rt = { .sched_priority = 10 }, normal = { 0 };
	int i, hit, hits = 0, bad = 0, rt_bad = 0, rt_tries = 0;
	cpu_set_t cpus;

	/* Forced: both CPUs busy with SCHED_FIFO threads. */
	for (i = 0; i < 5; i++) {
		pthread_attr_t attr;
		pthread_t t;

		CPU_ZERO(&cpus);
		CPU_SET(0, &cpus);
		if (sched_setaffinity(0, sizeof(cpus), &cpus) ||
		    sched_setscheduler(0, SCHED_FIFO, &rt)) {
			printf("# cannot run SCHED_FIFO on CPU 0: %s\n", strerror(errno));
			break;
		}
		atomic_store(&spin_stop, 0);
		CPU_ZERO(&cpus);
		CPU_SET(1, &cpus);
		pthread_attr_init(&attr);
		pthread_attr_setinheritsched(&attr, PTHREAD_EXPLICIT_SCHED);
		pthread_attr_setschedpolicy(&attr, SCHED_FIFO);
		pthread_attr_setschedparam(&attr, &rt);
		pthread_attr_setaffinity_np(&attr, sizeof(cpus), &cpus);
		if (pthread_create(&t, &attr, rt_spin, NULL)) {
			printf("# no SCHED_FIFO spinner on CPU 1\n");
			sched_setscheduler(0, SCHED_OTHER, &normal);
			break;
		}
		twt_sleep_ms(1);	/* let the spinner take CPU 1 */
		rt_bad += due_add_try(fd, &hit);
		rt_tries++;
		atomic_store(&spin_stop, 1);
		pthread_join(t, NULL);
		pthread_attr_destroy(&attr);
		CHECK_OK(sched_setscheduler(0, SCHED_OTHER, &normal));
		hits += hit;
	}
	CPU_ZERO(&cpus);
	CPU_SET(0, &cpus);
	CPU_SET(1, &cpus);
	sched_setaffinity(0, sizeof(cpus), &cpus);
	printf("# with the expiry work held off: window hit %d of %d, out of order %d\n",
	       hits, rt_tries, rt_bad);

	/* Natural latency. */
	hits = 0;
	for (i = 0; i < 100; i++) {
		int r = due_add_try(fd, &hit);

		hits += hit;
		bad += r;
	}
	printf("# by chance: window hit %d of %d tries, out of order %d\n",
	       hits, i, bad);
	CHECK_EQ(rt_bad, 0);
	CHECK_EQ(bad, 0);
	close(fd);
}

TWT_MAIN("expiry_order",
	 TWT_CASE(many_ordered),
	 TWT_CASE(many_relative),
	 TWT_CASE(ties_add_order),
	 TWT_CASE(ties_levels_one_advance),
	 TWT_CASE(ties_levels_each_deadline),
	 TWT_CASE(ties_levels_real_clock),
	 TWT_CASE(subtick_order),
	 TWT_CASE(level_boundaries),
	 TWT_CASE(due_add_keeps_order))
