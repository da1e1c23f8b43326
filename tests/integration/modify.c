// SPDX-License-Identifier: GPL-2.0
/*
 * modify: TWHEEL_IOC_MODIFY. A new relative or absolute deadline, the id
 * kept, the cookie kept or replaced (TWHEEL_SET_COOKIE), the result
 * PENDING or QUEUED (a queued record retracted, never read), one-shot and
 * periodic turned into each other, the order among timers of one deadline
 * tick, every ENOENT and EINVAL (the timer unchanged), and a due timer not
 * yet read on the real clock (the race against expiry: modify_race.c).
 * Exact cases run on the manual clock.
 */
#include "twtest.h"

#define RD		(POLLIN | POLLRDNORM)
#define TICK		((int64_t)TWHEEL_DEFAULT_TICK_NS)

/* The whole status, field by field. */
#define CHECK_STATUS_EQ(a, b) do {					\
	struct twheel_status _x = (a), _y = (b);			\
									\
	CHECK_EQ(_x.id, _y.id);						\
	CHECK_EQ(_x.cookie, _y.cookie);					\
	CHECK_EQ(_x.deadline_ns, _y.deadline_ns);			\
	CHECK_EQ(_x.period_ns, _y.period_ns);				\
	CHECK_EQ(_x.count, _y.count);					\
	CHECK_EQ(_x.remaining_ns, _y.remaining_ns);			\
	CHECK_EQ(_x.clock, _y.clock);					\
	CHECK_EQ(_x.state, _y.state);					\
} while (0)

/* MODIFY with a cookie and flags as given; the result or -1. */
static int modify_full(int fd, uint64_t id, uint64_t cookie, int64_t expires,
		       uint64_t period, uint32_t flags)
{
	uint32_t res = 0;

	if (twt_modify_raw(fd, id, cookie, expires, period, flags, &res))
		return -1;
	return (int)res;
}

static int modify_open(void)
{
	return twt_open_manual(O_NONBLOCK, TWHEEL_DEFAULT_TICK_NS);
}

/* ---- deadlines ---- */

static void modify_relative(void)
{
	int fd = modify_open();
	struct twheel_event ev[2];
	struct twheel_status st;
	uint64_t id;

	twt_advance(fd, TWT_S);
	id = twt_add(fd, 7, 10 * TWT_S, 0, CLOCK_MONOTONIC);
	CHECK_EQ(twt_advance(fd, 2 * TWT_S), 3 * TWT_S);
	/* From now (3 s): 8 s. The cookie given is not used. */
	CHECK_EQ(modify_full(fd, id, 99, 5 * TWT_S, 0, 0), TWHEEL_STATE_PENDING);
	st = twt_query(fd, id);
	CHECK_EQ(st.id, id);
	CHECK_EQ(st.cookie, 7);
	CHECK_EQ(st.deadline_ns, 8 * TWT_S);
	CHECK_EQ(st.remaining_ns, 5 * TWT_S);
	CHECK_EQ(st.period_ns, 0);
	CHECK_EQ(st.count, 0);
	CHECK_EQ(st.clock, CLOCK_MONOTONIC);
	CHECK_EQ(st.state, TWHEEL_STATE_PENDING);
	CHECK_EQ(twt_timers(fd), 1);
	CHECK_EQ(twt_advance(fd, 5 * TWT_S - 1), 8 * TWT_S - 1);
	CHECK_NONE_QUEUED(fd);
	CHECK_EQ(twt_advance(fd, 1), 8 * TWT_S);
	CHECK_EQ(twt_drain(fd, ev, 2), 1);
	CHECK_EQ(ev[0].id, id);
	CHECK_EQ(ev[0].cookie, 7);
	CHECK_EQ(ev[0].time_ns, 8 * TWT_S);
	CHECK_EQ(ev[0].count, 1);
	/* The old deadline (11 s) passes: nothing. */
	twt_advance(fd, 4 * TWT_S);
	CHECK_NONE_QUEUED(fd);
	CHECK_EQ(twt_timers(fd), 0);
	close(fd);
}

static void modify_absolute(void)
{
	int fd = modify_open();
	struct twheel_event ev[2];
	struct twheel_status st;
	uint64_t id;

	twt_advance(fd, TWT_S);
	id = twt_add(fd, 3, TWT_S, 0, CLOCK_BOOTTIME);
	CHECK_EQ(twt_modify(fd, id, 4500 * TWT_MS, 0, TWHEEL_ABSTIME),
		 TWHEEL_STATE_PENDING);
	st = twt_query(fd, id);
	CHECK_EQ(st.deadline_ns, 4500 * TWT_MS);
	CHECK_EQ(st.remaining_ns, 3500 * TWT_MS);
	CHECK_EQ(st.clock, CLOCK_BOOTTIME);	/* the clock does not change */
	/* Not rounded by the caller: up to the tick. */
	CHECK_EQ(twt_modify(fd, id, 4500 * TWT_MS + 1, 0, TWHEEL_ABSTIME),
		 TWHEEL_STATE_PENDING);
	CHECK_EQ(twt_query(fd, id).deadline_ns, 4500 * TWT_MS + TICK);
	/* In the past (also negative): due before the ioctl returns. */
	CHECK_EQ(twt_modify(fd, id, 500 * TWT_MS, 0, TWHEEL_ABSTIME),
		 TWHEEL_STATE_PENDING);
	CHECK_EQ(twt_queued(fd), 1);
	CHECK_EQ(twt_query(fd, id).state, TWHEEL_STATE_QUEUED);
	CHECK_EQ(twt_modify(fd, id, -5, 0, TWHEEL_ABSTIME),
		 TWHEEL_STATE_QUEUED);
	CHECK_EQ(twt_queued(fd), 1);
	CHECK_EQ(twt_drain(fd, ev, 2), 1);
	CHECK_EQ(ev[0].id, id);
	CHECK_EQ(ev[0].cookie, 3);
	CHECK_EQ(ev[0].time_ns, TWT_S);
	CHECK_EQ(ev[0].clock, CLOCK_BOOTTIME);
	CHECK_EQ(twt_timers(fd), 0);
	close(fd);
}

/* A relative deadline of 0 (now) is due at once, behind what is queued. */
static void modify_to_now_queues_behind(void)
{
	int fd = modify_open();
	struct twheel_event ev[4];
	uint64_t a, b, c;

	a = twt_add(fd, 1, 0, 0, CLOCK_MONOTONIC);
	b = twt_add(fd, 2, TWT_S, 0, CLOCK_MONOTONIC);
	c = twt_add(fd, 3, 0, 0, CLOCK_MONOTONIC);
	CHECK_EQ(twt_queued(fd), 2);
	CHECK_EQ(twt_modify(fd, b, 0, 0, 0), TWHEEL_STATE_PENDING);
	CHECK_EQ(twt_queued(fd), 3);
	CHECK_EQ(twt_drain(fd, ev, 4), 3);
	CHECK_EQ(ev[0].id, a);
	CHECK_EQ(ev[1].id, c);
	CHECK_EQ(ev[2].id, b);
	close(fd);
}

/* ---- cookies ---- */

static void modify_cookie(void)
{
	int fd = modify_open();
	struct twheel_event ev[4];
	uint64_t a, b, c;

	a = twt_add(fd, 100, TWT_MS, 0, CLOCK_MONOTONIC);
	b = twt_add(fd, 200, TWT_MS, 0, CLOCK_MONOTONIC);
	c = twt_add(fd, 300, TWT_MS, 0, CLOCK_MONOTONIC);
	/* Without TWHEEL_SET_COOKIE the cookie given is ignored. */
	CHECK_EQ(modify_full(fd, a, 0xDEAD, 2 * TWT_MS, 0, 0),
		 TWHEEL_STATE_PENDING);
	CHECK_EQ(twt_query(fd, a).cookie, 100);
	CHECK_EQ(modify_full(fd, b, 0xBEEF, 2 * TWT_MS, 0, TWHEEL_SET_COOKIE),
		 TWHEEL_STATE_PENDING);
	CHECK_EQ(twt_query(fd, b).cookie, 0xBEEF);
	/* A cookie of 0 is a cookie like any other. */
	CHECK_EQ(modify_full(fd, c, 0, 2 * TWT_MS, 0,
			     TWHEEL_SET_COOKIE | TWHEEL_ABSTIME),
		 TWHEEL_STATE_PENDING);
	CHECK_EQ(twt_query(fd, c).cookie, 0);
	CHECK_EQ(twt_query(fd, c).deadline_ns, 2 * TWT_MS);
	CHECK_EQ(modify_full(fd, c, UINT64_MAX, 2 * TWT_MS, 0,
			     TWHEEL_SET_COOKIE | TWHEEL_ABSTIME),
		 TWHEEL_STATE_PENDING);
	twt_advance(fd, 2 * TWT_MS);
	CHECK_EQ(twt_drain(fd, ev, 4), 3);
	CHECK_EQ(ev[0].id, a);
	CHECK_EQ(ev[0].cookie, 100);
	CHECK_EQ(ev[1].id, b);
	CHECK_EQ(ev[1].cookie, 0xBEEF);
	CHECK_EQ(ev[2].id, c);
	CHECK_EQ(ev[2].cookie, UINT64_MAX);
	close(fd);
}

/* ---- PENDING and QUEUED ---- */

static void modify_queued_retracts(void)
{
	int fd = modify_open();
	struct twheel_event ev[4];
	struct twheel_status st;
	uint64_t id;

	id = twt_add(fd, 1, TWT_MS, 0, CLOCK_MONOTONIC);
	twt_advance(fd, TWT_MS);
	CHECK_EQ(twt_queued(fd), 1);
	CHECK_EQ(twt_poll(fd, 0), RD);
	CHECK_EQ(twt_modify(fd, id, 5 * TWT_MS, 0, 0), TWHEEL_STATE_QUEUED);
	/* The record is gone: poll, read and INFO agree. */
	CHECK_NONE_QUEUED(fd);
	CHECK_EQ(twt_timers(fd), 1);
	st = twt_query(fd, id);
	CHECK_EQ(st.state, TWHEEL_STATE_PENDING);
	CHECK_EQ(st.deadline_ns, 6 * TWT_MS);
	CHECK_EQ(st.count, 0);
	/* It comes back once, at the new deadline. */
	twt_advance(fd, 5 * TWT_MS - 1);
	CHECK_NONE_QUEUED(fd);
	twt_advance(fd, 1);
	CHECK_EQ(twt_drain(fd, ev, 4), 1);
	CHECK_EQ(ev[0].id, id);
	CHECK_EQ(ev[0].time_ns, 6 * TWT_MS);
	twt_advance(fd, TWT_S);
	CHECK_NONE_QUEUED(fd);
	close(fd);
}

/* Retracting from the middle of the queue leaves the others in order. */
static void modify_queued_middle(void)
{
	int fd = modify_open();
	struct twheel_event ev[8];
	uint64_t id[5];
	int i;

	for (i = 0; i < 5; i++)
		id[i] = twt_add(fd, i, TWT_MS, 0, CLOCK_MONOTONIC);
	twt_advance(fd, TWT_MS);
	CHECK_EQ(twt_queued(fd), 5);
	CHECK_EQ(twt_modify(fd, id[1], TWT_S, 0, 0), TWHEEL_STATE_QUEUED);
	CHECK_EQ(twt_modify(fd, id[3], TWT_S, 0, 0), TWHEEL_STATE_QUEUED);
	CHECK_EQ(twt_queued(fd), 3);
	CHECK_EQ(twt_drain(fd, ev, 8), 3);
	CHECK_EQ(ev[0].id, id[0]);
	CHECK_EQ(ev[1].id, id[2]);
	CHECK_EQ(ev[2].id, id[4]);
	CHECK_EQ(twt_timers(fd), 2);
	close(fd);
}

/* ---- errors ---- */

static void modify_enoent(void)
{
	int fd = modify_open(), fd2 = modify_open();
	struct twheel_event ev[2];
	uint64_t keep, gone, done, other;
	struct twheel_status before;
	uint32_t res;

	/* Nothing at all. */
	CHECK_ERR(twt_modify_raw(fd, 0, 0, TWT_MS, 0, 0, &res), ENOENT);
	CHECK_ERR(twt_modify_raw(fd, 1, 0, TWT_MS, 0, 0, &res), ENOENT);
	CHECK_ERR(twt_modify_raw(fd, UINT64_MAX, 0, TWT_MS, 0, 0, &res), ENOENT);
	keep = twt_add(fd, 1, TWT_S, 0, CLOCK_MONOTONIC);
	CHECK_ERR(twt_modify_raw(fd, keep + 1, 0, TWT_MS, 0, 0, &res), ENOENT);
	CHECK_ERR(twt_modify_raw(fd, ~keep, 0, TWT_MS, 0, 0, &res), ENOENT);
	/* Cancelled. */
	gone = twt_add(fd, 2, TWT_S, 0, CLOCK_MONOTONIC);
	CHECK_EQ(twt_cancel(fd, gone), TWHEEL_STATE_PENDING);
	CHECK_ERR(twt_modify_raw(fd, gone, 0, TWT_MS, 0, 0, &res), ENOENT);
	/* A one-shot timer whose record was read. */
	done = twt_add(fd, 3, 0, 0, CLOCK_MONOTONIC);
	CHECK_EQ(twt_drain(fd, ev, 2), 1);
	CHECK_EQ(ev[0].id, done);
	CHECK_ERR(twt_modify_raw(fd, done, 0, TWT_MS, 0, 0, &res), ENOENT);
	CHECK_ERR(twt_modify_raw(fd, done, 5, TWT_MS, 0, TWHEEL_SET_COOKIE,
				 &res), ENOENT);
	/*
	 * Another fd's timer, whose id this fd does not hold (ids are per
	 * fd and may coincide, so pick one that does not): untouched.
	 */
	do {
		other = twt_add(fd2, 4, 2 * TWT_S, 0, CLOCK_MONOTONIC);
	} while (other == keep && twt_cancel(fd2, other));
	before = twt_query(fd2, other);
	CHECK_ERR(twt_modify_raw(fd, other, 0, TWT_MS, 0, 0, &res), ENOENT);
	CHECK_STATUS_EQ(twt_query(fd2, other), before);
	/* And this fd's timer by its id on fd2, which does not hold it. */
	CHECK_ERR(twt_modify_raw(fd2, keep, 0, TWT_MS, 0, 0, &res), ENOENT);
	CHECK_EQ(twt_query(fd, keep).deadline_ns, TWT_S);
	CHECK_EQ(twt_timers(fd), 1);
	CHECK_EQ(twt_timers(fd2), 1);
	close(fd2);
	close(fd);
}

static void modify_einval(void)
{
	static const uint32_t bad_flags[] = {
		4, 8, 0x80000000U, ~0U, TWHEEL_ABSTIME | 4,
	};
	int fd = modify_open();
	struct twheel_status before;
	unsigned int k;
	uint32_t res;
	uint64_t id, q;

	twt_advance(fd, TWT_S);
	id = twt_addp(fd, 5, 3 * TWT_MS, 7 * TWT_MS, 0, CLOCK_TAI);
	q = twt_add(fd, 6, 0, 0, CLOCK_TAI);	/* queued */
	before = twt_query(fd, id);
	for (k = 0; k < sizeof(bad_flags) / sizeof(bad_flags[0]); k++) {
		CHECK_ERR(twt_modify_raw(fd, id, 1, TWT_MS, 0, bad_flags[k],
					 &res), EINVAL);
		CHECK_ERR(twt_modify_raw(fd, q, 1, TWT_MS, 0, bad_flags[k],
					 &res), EINVAL);
	}
	/* A negative relative deadline. */
	CHECK_ERR(twt_modify_raw(fd, id, 1, -1, 0, 0, &res), EINVAL);
	CHECK_ERR(twt_modify_raw(fd, id, 1, INT64_MIN, 0, TWHEEL_SET_COOKIE,
				 &res), EINVAL);
	CHECK_ERR(twt_modify_raw(fd, q, 1, -TWT_S, 0, 0, &res), EINVAL);
	/* Unchanged, both: the queued one still queued. */
	CHECK_STATUS_EQ(twt_query(fd, id), before);
	CHECK_EQ(twt_query(fd, q).state, TWHEEL_STATE_QUEUED);
	CHECK_EQ(twt_query(fd, q).cookie, 6);
	CHECK_EQ(twt_queued(fd), 1);
	/* A negative absolute deadline is fine (due at once). */
	CHECK_EQ(twt_modify(fd, id, -1, 7 * TWT_MS, TWHEEL_ABSTIME),
		 TWHEEL_STATE_PENDING);
	CHECK_EQ(twt_queued(fd), 2);
	close(fd);
}

/* A relative deadline that overflows saturates; it never wraps. */
static void modify_saturates(void)
{
	int fd = modify_open();
	struct twheel_status st;
	uint64_t id;

	twt_advance(fd, 10 * TWT_S);
	id = twt_add(fd, 1, TWT_S, 0, CLOCK_MONOTONIC);
	CHECK_EQ(twt_modify(fd, id, INT64_MAX, 0, 0), TWHEEL_STATE_PENDING);
	st = twt_query(fd, id);
	CHECK_EQ(st.state, TWHEEL_STATE_PENDING);
	CHECK(st.deadline_ns > 4000000000000000000LL);
	CHECK(st.remaining_ns > 4000000000000000000LL);
	twt_advance(fd, 1000000 * TWT_S);
	CHECK_NONE_QUEUED(fd);
	close(fd);
}

/* ---- one-shot and periodic ---- */

static void oneshot_to_periodic(void)
{
	int fd = modify_open();
	struct twheel_event ev[2];
	struct twheel_status st;
	uint64_t id;

	id = twt_add(fd, 1, 10 * TWT_MS, 0, CLOCK_MONOTONIC);
	CHECK_EQ(twt_modify(fd, id, 10 * TWT_MS, 20 * TWT_MS, 0),
		 TWHEEL_STATE_PENDING);
	st = twt_query(fd, id);
	CHECK_EQ(st.period_ns, 20 * TWT_MS);
	CHECK_EQ(st.deadline_ns, 10 * TWT_MS);
	/* Deadlines 10, 30, 50 ms. */
	twt_advance(fd, 50 * TWT_MS);
	CHECK_EQ(twt_drain(fd, ev, 2), 1);
	CHECK_EQ(ev[0].id, id);
	CHECK_EQ(ev[0].count, 3);
	CHECK_EQ(ev[0].time_ns, 50 * TWT_MS);
	/* Still there, next on the grid. */
	st = twt_query(fd, id);
	CHECK_EQ(st.state, TWHEEL_STATE_PENDING);
	CHECK_EQ(st.deadline_ns, 70 * TWT_MS);
	/* From a queued one-shot record, too: retracted. */
	id = twt_add(fd, 2, 0, 0, CLOCK_MONOTONIC);
	CHECK_EQ(twt_queued(fd), 1);
	CHECK_EQ(twt_modify(fd, id, 5 * TWT_MS, 5 * TWT_MS, 0),
		 TWHEEL_STATE_QUEUED);
	CHECK_EQ(twt_queued(fd), 0);
	twt_advance(fd, 10 * TWT_MS);	/* 60: the new one's 55 and 60 */
	CHECK_EQ(twt_drain(fd, ev, 2), 1);
	CHECK_EQ(ev[0].id, id);
	CHECK_EQ(ev[0].count, 2);
	close(fd);
}

static void periodic_to_oneshot(void)
{
	int fd = modify_open();
	struct twheel_event ev[2];
	uint32_t res;
	uint64_t a, b;

	/* Queued periodic record: retracted; then one record only. */
	a = twt_addp(fd, 1, 10 * TWT_MS, 10 * TWT_MS, 0, CLOCK_MONOTONIC);
	twt_advance(fd, 30 * TWT_MS);
	CHECK_EQ(twt_query(fd, a).count, 3);
	CHECK_EQ(twt_modify(fd, a, 5 * TWT_MS, 0, 0), TWHEEL_STATE_QUEUED);
	CHECK_NONE_QUEUED(fd);
	CHECK_EQ(twt_query(fd, a).period_ns, 0);
	twt_advance(fd, 5 * TWT_MS);
	CHECK_EQ(twt_drain(fd, ev, 2), 1);
	CHECK_EQ(ev[0].id, a);
	CHECK_EQ(ev[0].count, 1);
	CHECK_EQ(ev[0].time_ns, 35 * TWT_MS);
	/* One-shot now: read, it is gone. */
	CHECK_ERR(twt_modify_raw(fd, a, 0, TWT_MS, 0, 0, &res), ENOENT);
	CHECK_ERR(twt_query_raw(fd, a, NULL), ENOENT);
	twt_advance(fd, TWT_S);
	CHECK_NONE_QUEUED(fd);
	/*
	 * A pending periodic timer made one-shot: as if added now as a
	 * one-shot timer, its deadline rounded up to the tick (1035.5 ms
	 * to 1036 ms).
	 */
	b = twt_addp(fd, 2, 10 * TWT_MS, TWT_MS, 0, CLOCK_MONOTONIC);
	CHECK_EQ(twt_modify(fd, b, 500 * TWT_US, 0, 0), TWHEEL_STATE_PENDING);
	CHECK_EQ(twt_query(fd, b).period_ns, 0);
	CHECK_EQ(twt_query(fd, b).deadline_ns, 1036 * TWT_MS);
	CHECK_EQ(twt_query(fd, b).remaining_ns, TWT_MS);
	twt_advance(fd, 100 * TWT_MS);
	CHECK_EQ(twt_drain(fd, ev, 2), 1);
	CHECK_EQ(ev[0].count, 1);
	CHECK_EQ(twt_timers(fd), 0);
	close(fd);
}

/* ---- order among timers of one deadline tick ---- */

static void modify_order_same_tick(void)
{
	int fd = modify_open();
	struct twheel_event ev[8];
	uint64_t x, a, b, d, e;

	x = twt_add(fd, 'x', 9 * TWT_MS, 0, CLOCK_MONOTONIC);
	a = twt_add(fd, 'a', 5 * TWT_MS, 0, CLOCK_MONOTONIC);
	b = twt_add(fd, 'b', 4200 * TWT_US, 0, CLOCK_MONOTONIC);
	/* x into the 5 ms tick: after a and b, added before. */
	CHECK_EQ(twt_modify(fd, x, 4700 * TWT_US, 0, 0), TWHEEL_STATE_PENDING);
	d = twt_add(fd, 'd', 4900 * TWT_US, 0, CLOCK_MONOTONIC);
	/* e into an earlier tick: first, whatever its age. */
	e = twt_add(fd, 'e', 7 * TWT_MS, 0, CLOCK_MONOTONIC);
	CHECK_EQ(twt_modify(fd, e, 4 * TWT_MS, 0, TWHEEL_ABSTIME),
		 TWHEEL_STATE_PENDING);
	twt_advance(fd, 5 * TWT_MS);
	CHECK_EQ(twt_drain(fd, ev, 8), 5);
	CHECK_EQ(ev[0].id, e);
	CHECK_EQ(ev[1].id, a);
	CHECK_EQ(ev[2].id, b);
	CHECK_EQ(ev[3].id, x);
	CHECK_EQ(ev[4].id, d);
	close(fd);
}

/* Modified to the very same deadline, a timer still moves to the back. */
static void modify_same_deadline_moves_back(void)
{
	int fd = modify_open();
	struct twheel_event ev[8];
	uint64_t id[4];
	int i;

	for (i = 0; i < 4; i++)
		id[i] = twt_add(fd, i, 3 * TWT_MS, TWHEEL_ABSTIME,
				CLOCK_MONOTONIC);
	CHECK_EQ(twt_modify(fd, id[0], 3 * TWT_MS, 0, TWHEEL_ABSTIME),
		 TWHEEL_STATE_PENDING);
	CHECK_EQ(twt_modify(fd, id[2], 3 * TWT_MS, 0, TWHEEL_ABSTIME),
		 TWHEEL_STATE_PENDING);
	twt_advance(fd, 3 * TWT_MS);
	CHECK_EQ(twt_drain(fd, ev, 8), 4);
	CHECK_EQ(ev[0].id, id[1]);
	CHECK_EQ(ev[1].id, id[3]);
	CHECK_EQ(ev[2].id, id[0]);
	CHECK_EQ(ev[3].id, id[2]);
	close(fd);
}

/*
 * Modified to a deadline already passed inside the current tick while an
 * earlier timer of that tick is pending: behind that one (as an add).
 */
static void modify_inside_current_tick(void)
{
	int fd = modify_open();
	struct twheel_event ev[4];
	uint64_t a, b;

	twt_advance(fd, 10500 * TWT_US);
	a = twt_add(fd, 1, 10800 * TWT_US, TWHEEL_ABSTIME, CLOCK_MONOTONIC);
	b = twt_add(fd, 2, TWT_S, 0, CLOCK_MONOTONIC);
	CHECK_EQ(twt_modify(fd, b, 10100 * TWT_US, 0, TWHEEL_ABSTIME),
		 TWHEEL_STATE_PENDING);
	CHECK_NONE_QUEUED(fd);
	twt_advance(fd, 500 * TWT_US);
	CHECK_EQ(twt_drain(fd, ev, 4), 2);
	CHECK_EQ(ev[0].id, a);
	CHECK_EQ(ev[1].id, b);
	close(fd);
}

/*
 * On the real clock, where MODIFY may leave the wheel's clock behind the
 * present when nothing it does depends on it: a timer whose deadline
 * passed while the fd lay unused is due, whatever the hrtimer's callback
 * did with it meanwhile. MODIFY finds it QUEUED and retracts its record.
 * One pushed back before its deadline is PENDING and never comes at the
 * old one.
 */
static void modify_due_unread(void)
{
	int fd = twt_open(O_NONBLOCK);
	int64_t t0 = twt_mono(), old, after;
	uint64_t a, b;
	int res;

	a = twt_add(fd, 1, t0 + 2 * TWT_MS, TWHEEL_ABSTIME, CLOCK_MONOTONIC);
	/* No system call on the fd until its deadline is 3 ticks past. */
	while (twt_mono() < t0 + 5 * TWT_MS)
		;
	CHECK_EQ(twt_modify(fd, a, 60 * TWT_S, 0, 0), TWHEEL_STATE_QUEUED);
	CHECK_NONE_QUEUED(fd);
	CHECK_EQ(twt_query(fd, a).state, TWHEEL_STATE_PENDING);

	old = twt_mono() + 50 * TWT_MS;
	b = twt_add(fd, 2, old, TWHEEL_ABSTIME, CLOCK_MONOTONIC);
	res = twt_modify(fd, b, 60 * TWT_S, 0, 0);
	after = twt_mono();
	/* QUEUED only if the machine stalled past the old deadline. */
	if (res != TWHEEL_STATE_PENDING) {
		CHECK_EQ(res, TWHEEL_STATE_QUEUED);
		CHECK(after >= old);
	}
	while (twt_mono() < old + 5 * TWT_MS)
		;
	CHECK_NONE_QUEUED(fd);
	CHECK_EQ(twt_query(fd, b).state, TWHEEL_STATE_PENDING);
	CHECK_EQ(twt_timers(fd), 2);
	close(fd);
}

TWT_MAIN("modify",
	 TWT_CASE(modify_relative),
	 TWT_CASE(modify_absolute),
	 TWT_CASE(modify_to_now_queues_behind),
	 TWT_CASE(modify_cookie),
	 TWT_CASE(modify_queued_retracts),
	 TWT_CASE(modify_queued_middle),
	 TWT_CASE(modify_enoent),
	 TWT_CASE(modify_einval),
	 TWT_CASE(modify_saturates),
	 TWT_CASE(oneshot_to_periodic),
	 TWT_CASE(periodic_to_oneshot),
	 TWT_CASE(modify_order_same_tick),
	 TWT_CASE(modify_same_deadline_moves_back),
	 TWT_CASE(modify_inside_current_tick),
	 TWT_CASE(modify_due_unread))
