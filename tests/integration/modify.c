// SPDX-License-Identifier: GPL-2.0
/*
 * modify: TWHEEL_IOC_MODIFY. A new relative or absolute deadline, the id
 * kept, the cookie kept or replaced (TWHEEL_SET_COOKIE), the result
 * PENDING or QUEUED (a queued record retracted, never read), one-shot and
 * periodic turned into each other, the order among timers of one deadline
 * tick, every ENOENT and EINVAL (the timer unchanged), a due timer not yet
 * read on the real clock, and a race against expiry on the real clock:
 * every expiry is read once or retracted once.
 * Exact cases run on the manual clock.
 */
#include <pthread.h>
#include <stdatomic.h>

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

/* ---- the race against expiry, on the real clock ---- */

#define RACE_TIMERS	3000
#define RACE_SLOTS	16
#define RACE_ARMS	8

struct modify_race_timer {
	uint64_t id;
	int arms;			/* arms made: add, then modifies */
	int64_t deadline[RACE_ARMS];
	int64_t ended_at[RACE_ARMS];	/* clock after the op that ended it */
	int result[RACE_ARMS + 1];	/* of op j (1..): 1, 2 or -ENOENT */
	int ops;			/* ops after the add */
};

struct modify_race_rec {
	uint64_t cookie;
	int64_t time_ns;
	int64_t read_at;
};

static struct modify_race_timer race_t[RACE_TIMERS];
static struct modify_race_rec race_r[RACE_TIMERS + 1];
static atomic_int race_nr;
static atomic_int race_done;

static void *modify_race_reader(void *arg)
{
	int fd = *(int *)arg;
	struct twheel_event ev[64];

	for (;;) {
		int pr = twt_poll(fd, 20);
		int64_t now;
		ssize_t r;
		int i;

		if (pr == 0) {
			if (atomic_load(&race_done))
				break;
			continue;
		}
		r = read(fd, ev, sizeof(ev));
		now = twt_mono();
		if (r < 0 && errno == EAGAIN)
			continue;
		if (r <= 0 || r % TWT_EV_SIZE)
			twt_fail(__FILE__, __LINE__, "read: %zd", r);
		for (i = 0; i < r / TWT_EV_SIZE; i++) {
			int k = atomic_load(&race_nr);

			if (k > RACE_TIMERS)
				twt_fail(__FILE__, __LINE__, "too many records");
			race_r[k].cookie = ev[i].cookie;
			race_r[k].time_ns = ev[i].time_ns;
			race_r[k].read_at = now;
			atomic_store(&race_nr, k + 1);
		}
	}
	return NULL;
}

static int64_t modify_race_deadline(uint64_t *seed)
{
	/* From 0.5 ms in the past to 2.5 ms ahead. */
	return twt_mono() - 500 * TWT_US +
	       (int64_t)(twt_rand(seed) % (3 * TWT_MS));
}

static void modify_race_expiry(void)
{
	int fd = twt_open(O_NONBLOCK);
	int slot[RACE_SLOTS];
	uint64_t seed = 0x4ACE;
	int next = 0, active = 0, i, k;
	int reads = 0, queued = 0, pending = 0, enoent = 0, arms = 0;
	int64_t t0 = twt_mono();
	pthread_t rd;

	atomic_store(&race_nr, 0);
	atomic_store(&race_done, 0);
	CHECK_OK(pthread_create(&rd, NULL, modify_race_reader, &fd));
	for (i = 0; i < RACE_SLOTS; i++)
		slot[i] = -1;
	while (next < RACE_TIMERS || active) {
		int s = (int)(twt_rand(&seed) % RACE_SLOTS);
		struct modify_race_timer *t;
		int64_t dl;
		int res, op, cancel;

		if (slot[s] < 0) {
			if (next == RACE_TIMERS)
				continue;
			t = &race_t[next];
			t->deadline[0] = modify_race_deadline(&seed);
			t->id = twt_add(fd, (uint64_t)next << 8, t->deadline[0],
					TWHEEL_ABSTIME, CLOCK_MONOTONIC);
			t->arms = 1;
			slot[s] = next++;
			active++;
			continue;
		}
		t = &race_t[slot[s]];
		op = ++t->ops;		/* op j ends arm j - 1 */
		cancel = t->arms == RACE_ARMS || twt_rand(&seed) % 4 == 0;
		if (!cancel) {
			/* Modify: a new arm, with its own cookie. */
			dl = modify_race_deadline(&seed);
			res = modify_full(fd, t->id,
					  ((uint64_t)slot[s] << 8) | t->arms, dl,
					  0, TWHEEL_ABSTIME | TWHEEL_SET_COOKIE);
			t->ended_at[t->arms - 1] = twt_mono();
			if (res > 0)
				t->deadline[t->arms++] = dl;
		} else {
			uint32_t r32 = 0;

			res = twt_cancel_raw(fd, t->id, 0, &r32) ? -1 : (int)r32;
			t->ended_at[t->arms - 1] = twt_mono();
		}
		if (res < 0) {
			if (errno != ENOENT)
				twt_fail(__FILE__, __LINE__, "timer %d op %d: %s",
					 slot[s], op, strerror(errno));
			res = -ENOENT;
		}
		t->result[op] = res;
		/* Gone: its record was read (ENOENT), or cancelled. */
		if (res == -ENOENT || cancel) {
			slot[s] = -1;
			active--;
		}
		if (twt_rand(&seed) % 8 == 0)
			twt_sleep_ns((int64_t)(twt_rand(&seed) % (400 * TWT_US)));
	}
	atomic_store(&race_done, 1);
	CHECK_OK(pthread_join(rd, NULL));
	/* Every timer ended: no timer, no record left. */
	CHECK_EQ(twt_timers(fd), 0);
	CHECK_EQ(twt_queued(fd), 0);

	/* Each record: the arm it reports, never retracted, never early. */
	{
		static int nread[RACE_TIMERS];
		static int read_arm[RACE_TIMERS];
		int n = atomic_load(&race_nr);

		for (k = 0; k < n; k++) {
			int ti = (int)(race_r[k].cookie >> 8);
			int arm = (int)(race_r[k].cookie & 0xFF);

			CHECK(ti < RACE_TIMERS && arm < race_t[ti].arms);
			nread[ti]++;
			read_arm[ti] = arm;
			CHECK(race_r[k].time_ns >= race_t[ti].deadline[arm]);
			CHECK(race_r[k].read_at >= race_t[ti].deadline[arm]);
			reads++;
		}
		for (i = 0; i < RACE_TIMERS; i++) {
			struct modify_race_timer *t = &race_t[i];
			int j, first_enoent = 0;

			CHECK(nread[i] <= 1);
			for (j = 1; j <= t->ops; j++) {
				if (t->result[j] == -ENOENT) {
					/* Only the last op can find it gone. */
					CHECK_EQ(j, t->ops);
					first_enoent = j;
				} else if (t->result[j] == TWHEEL_STATE_QUEUED) {
					/* Retracted: expired, not early. */
					CHECK(t->ended_at[j - 1] >=
					      t->deadline[j - 1]);
					queued++;
				} else {
					CHECK_EQ(t->result[j],
						 TWHEEL_STATE_PENDING);
					pending++;
				}
			}
			arms += t->arms;
			if (first_enoent) {
				/* Read exactly once: the arm the op met. */
				enoent++;
				if (nread[i] != 1 ||
				    read_arm[i] != first_enoent - 1)
					twt_fail(__FILE__, __LINE__,
						 "timer %d: ENOENT at op %d, %d "
						 "records (arm %d)", i,
						 first_enoent, nread[i],
						 read_arm[i]);
			} else {
				/* Cancelled at the end: never read. */
				if (nread[i] != 0)
					twt_fail(__FILE__, __LINE__,
						 "timer %d: read and retracted",
						 i);
			}
		}
	}
	/* Every arm ended exactly once: read, retracted, or still pending. */
	CHECK_EQ(reads + queued + pending, arms);
	printf("# %d timers, %d arms in %.1f ms: expiries %d = %d read + %d "
	       "retracted (QUEUED); %d ended pending\n", RACE_TIMERS, arms,
	       (twt_mono() - t0) / 1e6, reads + queued, reads, queued,
	       pending);
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
	 TWT_CASE(modify_due_unread),
	 TWT_CASE_T(modify_race_expiry, 180))
