// SPDX-License-Identifier: GPL-2.0
/*
 * expiry: one-shot timers on every clock (CLOCK_MONOTONIC, CLOCK_BOOTTIME,
 * CLOCK_REALTIME, CLOCK_TAI), relative and absolute; the record's fields;
 * deadlines already due; huge deadlines that must never wrap; wall-clock
 * timers, relative or absolute, following changes of the wall clock.
 * The order in which many timers come out: expiry_order.c.
 */
#define _GNU_SOURCE

#include "twtest.h"

/* Allowed lateness in a TCG VM: one tick plus generous latency. */
#define MAX_LATE_NS	(2 * TWT_S)

/* Check one record against what was added. */
#define CHECK_RECORD(ev, id_, cookie_, clock_, deadline, now) do {	\
	CHECK_EQ((ev).id, (id_));					\
	CHECK_EQ((ev).cookie, (cookie_));				\
	CHECK_EQ((ev).clock, (clock_));					\
	CHECK_EQ((ev).count, 1);					\
	CHECK_EQ((ev).flags, 0);					\
	if ((ev).time_ns < (deadline))					\
		twt_fail(__FILE__, __LINE__, "EARLY: time_ns %lld < deadline %lld by %lld ns", \
			 (long long)(ev).time_ns, (long long)(deadline),	\
			 (long long)((deadline) - (ev).time_ns));	\
	CHECK((ev).time_ns <= (now));					\
} while (0)

/* ... and it was not more than MAX_LATE_NS late. */
#define CHECK_LATE(ev, deadline)					\
	CHECK((ev).time_ns - (deadline) <= MAX_LATE_NS)

/* One timer, blocking read, every field of the record. */
static void oneshot(clockid_t clock, int abs)
{
	int fd = twt_open(0);
	uint64_t cookie = 0xC0FFEE0000000000ULL | clock | (abs << 8);
	int64_t delay = 50 * TWT_MS, t0, deadline, t1;
	struct twheel_event ev[2];
	uint64_t id;

	t0 = twt_now(clock);
	if (abs) {
		deadline = t0 + delay;
		id = twt_add_abs(fd, cookie, deadline, clock);
	} else {
		/* Conservative: the true deadline is at or after this. */
		deadline = t0 + delay;
		id = twt_add(fd, cookie, delay, 0, clock);
	}
	CHECK_EQ(twt_timers(fd), 1);
	CHECK_EQ(twt_queued(fd), 0);
	/* A big buffer: still just the one record. */
	CHECK_EQ(read(fd, ev, sizeof(ev)), sizeof(ev[0]));
	t1 = twt_now(clock);
	CHECK(t1 >= deadline);
	CHECK_RECORD(ev[0], id, cookie, clock, deadline, t1);
	CHECK_LATE(ev[0], deadline);
	printf("# %s %s: late %.3f ms, read %.3f ms after the deadline\n",
	       twt_clockname(clock), abs ? "absolute" : "relative",
	       (ev[0].time_ns - deadline) / 1e6, (t1 - deadline) / 1e6);
	CHECK_EQ(twt_timers(fd), 0);
	CHECK_EQ(twt_queued(fd), 0);
	CHECK_EQ(twt_poll(fd, 100), 0);
	close(fd);
}

static void rel_monotonic(void) { oneshot(CLOCK_MONOTONIC, 0); }
static void rel_boottime(void)  { oneshot(CLOCK_BOOTTIME, 0); }
static void rel_realtime(void)  { oneshot(CLOCK_REALTIME, 0); }
static void rel_tai(void)       { oneshot(CLOCK_TAI, 0); }
static void abs_monotonic(void) { oneshot(CLOCK_MONOTONIC, 1); }
static void abs_boottime(void)  { oneshot(CLOCK_BOOTTIME, 1); }
static void abs_realtime(void)  { oneshot(CLOCK_REALTIME, 1); }
static void abs_tai(void)       { oneshot(CLOCK_TAI, 1); }

/*
 * A deadline already due is queued before the ioctl returns: a
 * non-blocking read right after it succeeds, without any wait. time_ns is
 * the moment of queueing, inside the ioctl.
 */
static void due_at_once(void)
{
	int fd = twt_open(O_NONBLOCK);
	struct {
		int64_t expires;
		uint32_t flags;
		clockid_t clock;
	} cases[] = {
		{ 0, 0, CLOCK_MONOTONIC },
		{ 0, 0, CLOCK_BOOTTIME },
		{ 0, 0, CLOCK_REALTIME },
		{ 0, 0, CLOCK_TAI },
		{ 0, TWHEEL_ABSTIME, CLOCK_MONOTONIC },
		{ 0, TWHEEL_ABSTIME, CLOCK_BOOTTIME },
		{ 0, TWHEEL_ABSTIME, CLOCK_REALTIME },
		{ 0, TWHEEL_ABSTIME, CLOCK_TAI },
		{ -1, TWHEEL_ABSTIME, CLOCK_MONOTONIC },
		{ -1, TWHEEL_ABSTIME, CLOCK_REALTIME },
		{ -1, TWHEEL_ABSTIME, CLOCK_TAI },
		{ INT64_MIN, TWHEEL_ABSTIME, CLOCK_MONOTONIC },
		{ INT64_MIN, TWHEEL_ABSTIME, CLOCK_BOOTTIME },
		{ INT64_MIN, TWHEEL_ABSTIME, CLOCK_REALTIME },
		{ INT64_MIN, TWHEEL_ABSTIME, CLOCK_TAI },
		{ 1, TWHEEL_ABSTIME, CLOCK_MONOTONIC },
		/* Now minus one second, filled in below. */
		{ -TWT_S, TWHEEL_ABSTIME, CLOCK_MONOTONIC },
		{ -TWT_S, TWHEEL_ABSTIME, CLOCK_BOOTTIME },
		{ -TWT_S, TWHEEL_ABSTIME, CLOCK_REALTIME },
		{ -TWT_S, TWHEEL_ABSTIME, CLOCK_TAI },
	};
	unsigned int k;

	for (k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		clockid_t c = cases[k].clock;
		int64_t exp = cases[k].expires, deadline, t0, t1;
		struct twheel_event ev;
		uint64_t id;

		t0 = twt_now(c);
		if (exp == -TWT_S)
			exp += t0;
		deadline = (cases[k].flags & TWHEEL_ABSTIME) ? exp : t0 + exp;
		id = twt_add(fd, 77 + k, exp, cases[k].flags, c);
		t1 = twt_now(c);
		/* No poll, no sleep: it must be there already. */
		CHECK_EQ(read(fd, &ev, sizeof(ev)), sizeof(ev));
		CHECK_RECORD(ev, id, 77 + k, c, deadline, t1);
		if (ev.time_ns < t0)
			printf("# case %u: time_ns %.3f ms before the add began\n",
			       k, (t0 - ev.time_ns) / 1e6);
		/* Queued inside the ioctl (a tick of rounding allowed). */
		CHECK(ev.time_ns >= t0 - (int64_t)TWHEEL_DEFAULT_TICK_NS);
		CHECK_ERR(read(fd, &ev, sizeof(ev)), EAGAIN);
	}
	CHECK_EQ(twt_timers(fd), 0);
	close(fd);
}

/* The same on a blocking fd, and visible to poll at once. */
static void due_at_once_poll(void)
{
	int fd = twt_open(0);
	struct twheel_event ev;
	uint64_t id;

	id = twt_add_rel(fd, 5, 0);
	CHECK_EQ(twt_queued(fd), 1);
	CHECK_EQ(twt_poll(fd, 0), POLLIN | POLLRDNORM);
	CHECK_EQ(read(fd, &ev, sizeof(ev)), sizeof(ev));
	CHECK_EQ(ev.id, id);
	CHECK_EQ(twt_poll(fd, 0), 0);
	close(fd);
}

/* Cookies come back bit for bit. */
static void cookies(void)
{
	int fd = twt_open(O_NONBLOCK);
	uint64_t c[] = { 0, 1, UINT64_MAX, 0x8000000000000000ULL,
			 0xDEADBEEFCAFEF00DULL };
	struct twheel_event ev[5];
	uint64_t id[5];
	unsigned int k;

	for (k = 0; k < 5; k++)
		id[k] = twt_add_rel(fd, c[k], 0);
	CHECK_EQ(read(fd, ev, sizeof(ev)), sizeof(ev));
	for (k = 0; k < 5; k++) {
		CHECK_EQ(ev[k].id, id[k]);
		CHECK(ev[k].cookie == c[k]);
	}
	close(fd);
}

/*
 * Timers on all four clocks at once, absolute and relative: each record
 * on its own clock.
 */
#define N_ALL	(4 * TWT_NCLOCKS)
static void all_clocks(void)
{
	int fd = twt_open(0);
	struct twheel_event ev[N_ALL];
	int64_t dl[N_ALL];
	uint64_t id[N_ALL];
	int i;

	for (i = 0; i < N_ALL; i++) {
		clockid_t c = twt_clock(i % TWT_NCLOCKS);
		int64_t d = (50 + 20 * i) * TWT_MS;

		/* Relative: the true deadline is at or after this. */
		dl[i] = twt_now(c) + d;
		if (i / TWT_NCLOCKS % 2)
			id[i] = twt_add(fd, i, d, 0, c);
		else
			id[i] = twt_add_abs(fd, i, dl[i], c);
	}
	twt_read_n(fd, ev, N_ALL, 10000);
	for (i = 0; i < N_ALL; i++) {
		int c = (int)ev[i].cookie;
		clockid_t clk;
		int64_t now;

		CHECK(c >= 0 && c < N_ALL);
		clk = twt_clock(c % TWT_NCLOCKS);
		now = twt_now(clk);
		CHECK_RECORD(ev[i], id[c], c, clk, dl[c], now);
		CHECK_LATE(ev[i], dl[c]);
	}
	close(fd);
}

/*
 * Huge deadlines: accepted, never wrap into the past. Relative INT64_MAX
 * saturates; absolute INT64_MAX is just very far.
 */
static void saturation(void)
{
	int fd = twt_open(O_NONBLOCK);
	struct {
		int64_t expires;
		uint32_t flags;
		clockid_t clock;
	} cases[] = {
		{ INT64_MAX, 0, CLOCK_MONOTONIC },
		{ INT64_MAX, 0, CLOCK_BOOTTIME },
		{ INT64_MAX, 0, CLOCK_REALTIME },
		{ INT64_MAX, 0, CLOCK_TAI },
		{ INT64_MAX - 1, 0, CLOCK_REALTIME },
		{ INT64_MAX - 1, 0, CLOCK_MONOTONIC },
		{ INT64_MAX - 1000 * TWT_S, 0, CLOCK_MONOTONIC },
		{ INT64_MAX / 2 + 1, 0, CLOCK_MONOTONIC },
		{ 4000000000000000000LL, 0, CLOCK_BOOTTIME },
		{ INT64_MAX, TWHEEL_ABSTIME, CLOCK_MONOTONIC },
		{ INT64_MAX, TWHEEL_ABSTIME, CLOCK_BOOTTIME },
		{ INT64_MAX, TWHEEL_ABSTIME, CLOCK_REALTIME },
		{ INT64_MAX, TWHEEL_ABSTIME, CLOCK_TAI },
		{ INT64_MAX - 1, TWHEEL_ABSTIME, CLOCK_REALTIME },
		{ INT64_MAX - 1, TWHEEL_ABSTIME, CLOCK_TAI },
		{ 1LL << 62, TWHEEL_ABSTIME, CLOCK_MONOTONIC },
	};
	const unsigned int n = sizeof(cases) / sizeof(cases[0]);
	uint64_t id[sizeof(cases) / sizeof(cases[0])];
	uint64_t near;
	struct twheel_event ev;
	long long v;
	unsigned int k;

	for (k = 0; k < n; k++)
		id[k] = twt_add(fd, k, cases[k].expires, cases[k].flags,
				cases[k].clock);
	/* A near timer proves the wheel still runs with those in it. */
	near = twt_add_rel(fd, 100, 30 * TWT_MS);
	CHECK_EQ(twt_timers(fd), n + 1);
	CHECK(twt_poll(fd, 5000) & POLLIN);
	CHECK_EQ(read(fd, &ev, sizeof(ev)), sizeof(ev));
	CHECK_EQ(ev.id, near);
	/* Nothing else, for a while. */
	CHECK_EQ(twt_poll(fd, 300), 0);
	CHECK_ERR(read(fd, &ev, sizeof(ev)), EAGAIN);
	CHECK_EQ(twt_timers(fd), n);
	CHECK_EQ(twt_queued(fd), 0);
	if (twt_fdinfo(fd, "next_expiry_monotonic_ns", &v) == 0)
		printf("# next_expiry_monotonic_ns %lld\n", v);
	CHECK_EQ(twt_fdinfo(fd, "next_expiry_monotonic_ns", &v), 0);
	/* In the future, not wrapped into the past. */
	CHECK(v > twt_mono() + 24 * 3600 * TWT_S);
	for (k = 0; k < n; k++)
		CHECK_EQ(twt_cancel(fd, id[k]), TWHEEL_STATE_PENDING);
	CHECK_EQ(twt_timers(fd), 0);
	close(fd);
}

/*
 * An earlier timer added after later ones fires on its own time (the
 * wheel re-arms for it); cancelling the earliest does not delay the next.
 */
static void rearm_earlier(void)
{
	int fd = twt_open(0);
	struct twheel_event ev;
	uint64_t far, mid, a, b;
	int64_t t0 = twt_mono();

	far = twt_add_rel(fd, 1, 20 * TWT_S);
	mid = twt_add_rel(fd, 2, 10 * TWT_S);
	twt_add_rel(fd, 3, 100 * TWT_MS);
	CHECK_EQ(read(fd, &ev, sizeof(ev)), sizeof(ev));
	CHECK_EQ(ev.cookie, 3);
	CHECK(twt_mono() - t0 >= 100 * TWT_MS);
	CHECK(twt_mono() - t0 < 5 * TWT_S);

	t0 = twt_mono();
	a = twt_add_rel(fd, 4, 100 * TWT_MS);
	b = twt_add_rel(fd, 5, 200 * TWT_MS);
	CHECK_EQ(twt_cancel(fd, a), TWHEEL_STATE_PENDING);
	CHECK_EQ(read(fd, &ev, sizeof(ev)), sizeof(ev));
	CHECK_EQ(ev.id, b);
	CHECK(twt_mono() - t0 >= 200 * TWT_MS);
	CHECK(twt_mono() - t0 < 5 * TWT_S);

	/* Same on boottime, with monotonic ones pending. */
	t0 = twt_mono();
	twt_add(fd, 6, 100 * TWT_MS, 0, CLOCK_BOOTTIME);
	CHECK_EQ(read(fd, &ev, sizeof(ev)), sizeof(ev));
	CHECK_EQ(ev.cookie, 6);
	CHECK(twt_mono() - t0 < 5 * TWT_S);
	CHECK_EQ(twt_cancel(fd, far), TWHEEL_STATE_PENDING);
	CHECK_EQ(twt_cancel(fd, mid), TWHEEL_STATE_PENDING);
	close(fd);
}

static void shift_realtime(int64_t delta)
{
	CHECK_OK(twt_set_realtime(twt_now(CLOCK_REALTIME) + delta));
}

/*
 * add_wall(fd, cookie, clock, abs, delay): a one-shot timer @delay from
 * now on @clock, given absolute or relative. Returns its id; *dl: a
 * deadline at or before the true one (exact when absolute).
 */
static uint64_t add_wall(int fd, uint64_t cookie, clockid_t clock, int abs,
			 int64_t delay, int64_t *dl)
{
	*dl = twt_now(clock) + delay;
	if (abs)
		return twt_add_abs(fd, cookie, *dl, clock);
	return twt_add(fd, cookie, delay, 0, clock);
}

/*
 * A CLOCK_REALTIME or CLOCK_TAI timer follows changes of the wall clock,
 * also when it was given relative (the header: "its deadline is an
 * absolute time of that clock, also when it was given relative"): set
 * forward past its deadline it fires at once; set back before it, it
 * waits. A CLOCK_MONOTONIC timer meanwhile ignores the wall clock.
 */
static void wall_clock_jumps(clockid_t clock, int abs)
{
	int fd = twt_open(O_NONBLOCK);
	struct twheel_event ev;
	int64_t dl, dl3, dlm, m0;
	uint64_t id, mono;
	/* More than any add takes: relative deadlines are a bit later. */
	const int64_t jump = 3600 * TWT_S + 500 * TWT_MS;

	/* Forward: an hour away, then the wall clock jumps an hour on. */
	id = add_wall(fd, 1, clock, abs, 3600 * TWT_S, &dl);
	CHECK_EQ(twt_poll(fd, 100), 0);
	m0 = twt_mono();
	shift_realtime(jump);
	CHECK(twt_poll(fd, 10000) & POLLIN);
	printf("# %s %s: fired %.3f ms after the jump forward\n",
	       twt_clockname(clock), abs ? "absolute" : "relative",
	       (twt_mono() - m0) / 1e6);
	shift_realtime(-jump);
	CHECK(twt_mono() - m0 < 5 * TWT_S);
	CHECK_EQ(read(fd, &ev, sizeof(ev)), sizeof(ev));
	CHECK_EQ(ev.id, id);
	CHECK_EQ(ev.clock, clock);
	CHECK(ev.time_ns >= dl);

	/*
	 * Back: 300 ms away, the wall clock goes back an hour: no expiry.
	 * A monotonic timer of 300 ms fires regardless.
	 */
	id = add_wall(fd, 2, clock, abs, 300 * TWT_MS, &dl);
	mono = add_wall(fd, 4, CLOCK_MONOTONIC, abs, 300 * TWT_MS, &dlm);
	shift_realtime(-3600 * TWT_S);
	m0 = twt_mono();
	CHECK(twt_poll(fd, 10000) & POLLIN);
	CHECK_EQ(read(fd, &ev, sizeof(ev)), sizeof(ev));
	if (ev.id != mono) {
		shift_realtime(3600 * TWT_S);
		twt_fail(__FILE__, __LINE__,
			 "cookie %llu fired with the wall clock an hour before its deadline (time_ns %+.3f s from it)",
			 (unsigned long long)ev.cookie,
			 (ev.time_ns - dl) / 1e9);
	}
	CHECK(ev.time_ns >= dlm);
	if (twt_poll(fd, 500) != 0) {
		shift_realtime(3600 * TWT_S);
		CHECK_EQ(read(fd, &ev, sizeof(ev)), sizeof(ev));
		twt_fail(__FILE__, __LINE__,
			 "fired with the wall clock an hour before its deadline (time_ns %+.3f s from it)",
			 (ev.time_ns - dl) / 1e9);
	}
	/* A new timer on the earlier wall clock still works meanwhile. */
	add_wall(fd, 3, clock, abs, 50 * TWT_MS, &dl3);
	CHECK(twt_poll(fd, 5000) & POLLIN);
	CHECK_EQ(read(fd, &ev, sizeof(ev)), sizeof(ev));
	CHECK_EQ(ev.cookie, 3);
	CHECK(ev.time_ns >= dl3);
	/* Forward again by the hour: the first one is now past due. */
	shift_realtime(3600 * TWT_S);
	CHECK(twt_poll(fd, 10000) & POLLIN);
	CHECK_EQ(read(fd, &ev, sizeof(ev)), sizeof(ev));
	CHECK_EQ(ev.id, id);
	CHECK(ev.time_ns >= dl);
	CHECK(twt_mono() - m0 < 20 * TWT_S);
	CHECK_EQ(twt_timers(fd), 0);
	close(fd);
}

static void realtime_clock_jumps(void)
{
	wall_clock_jumps(CLOCK_REALTIME, 1);
}

static void realtime_rel_clock_jumps(void)
{
	wall_clock_jumps(CLOCK_REALTIME, 0);
}

static void tai_clock_jumps(void)
{
	wall_clock_jumps(CLOCK_TAI, 1);
}

static void tai_rel_clock_jumps(void)
{
	wall_clock_jumps(CLOCK_TAI, 0);
}

TWT_MAIN("expiry",
	 TWT_CASE(rel_monotonic),
	 TWT_CASE(rel_boottime),
	 TWT_CASE(abs_monotonic),
	 TWT_CASE(abs_boottime),
	 TWT_CASE(abs_realtime),
	 TWT_CASE(rel_realtime),
	 TWT_CASE(abs_tai),
	 TWT_CASE(rel_tai),
	 TWT_CASE(due_at_once),
	 TWT_CASE(due_at_once_poll),
	 TWT_CASE(cookies),
	 TWT_CASE(all_clocks),
	 TWT_CASE(rearm_earlier),
	 TWT_CASE(realtime_clock_jumps),
	 TWT_CASE(realtime_rel_clock_jumps),
	 TWT_CASE(tai_clock_jumps),
	 TWT_CASE(tai_rel_clock_jumps),
	 TWT_CASE(saturation))
