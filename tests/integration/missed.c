// SPDX-License-Identifier: GPL-2.0
/*
 * missed: what a periodic timer does with the deadlines it missed while
 * its record waited (TWHEEL_MISSED_COUNT, BURST, DELAY, SKIP): exact
 * counts and next deadlines on the manual clock, the flags' errors, a
 * change of policy by MODIFY, and the delay policy within bounds on a
 * real clock.
 */
#include "twtest.h"

#define MS	1000000LL

/* A periodic timer on a new manual-clock fd: first deadline and period 10 ms. */
static int open_periodic(uint32_t missed, uint64_t *id)
{
	int fd = twt_open_manual(O_NONBLOCK, MS);

	*id = twt_addp(fd, 7, 10 * MS, 10 * MS, TWHEEL_ABSTIME | missed,
		       CLOCK_MONOTONIC);
	return fd;
}

/*
 * Read one record of timer @id, queued at @time_ns, with room for @room
 * (room for two: it must be the only one); return its count.
 */
static uint64_t read_rec(int fd, uint64_t id, int64_t time_ns, int room)
{
	struct twheel_event ev[2];

	CHECK_EQ(read(fd, ev, room * sizeof(ev[0])), sizeof(ev[0]));
	CHECK_EQ(ev[0].id, id);
	CHECK_EQ(ev[0].time_ns, time_ns);
	return ev[0].count;
}

#define read_one(fd, id, time_ns)	read_rec((fd), (id), (time_ns), 2)
/* A burst re-queues the next missed one as the record is read. */
#define read_first(fd, id, time_ns)	read_rec((fd), (id), (time_ns), 1)

/*
 * A policy that keeps the grid (COUNT, SKIP): read at 35 ms, its record
 * counts @count deadlines, and the next is the grid's at 40 ms.
 */
static void grid_policy(uint32_t missed, uint64_t count)
{
	uint64_t id;
	int fd = open_periodic(missed, &id);

	twt_advance(fd, 35 * MS);
	CHECK_EQ(twt_query(fd, id).count, count);
	CHECK_EQ(read_one(fd, id, 35 * MS), count);
	/* The grid's next point after the read. */
	CHECK_EQ(twt_query(fd, id).deadline_ns, 40 * MS);
	CHECK_EQ(twt_queued(fd), 0);
	twt_advance(fd, 5 * MS);
	CHECK_EQ(read_one(fd, id, 40 * MS), 1);
	close(fd);
}

/* The default, as timerfd: one record counting every passed deadline. */
static void count_default(void)
{
	grid_policy(TWHEEL_MISSED_COUNT, 3);
}

/* One record per deadline, the missed ones at once, until caught up. */
static void burst(void)
{
	uint64_t id;
	int fd = open_periodic(TWHEEL_MISSED_BURST, &id);
	struct twheel_status st;
	struct twheel_event ev[8];

	twt_advance(fd, 35 * MS);
	st = twt_query(fd, id);
	CHECK_EQ(st.count, 1);
	CHECK_EQ(st.deadline_ns, 20 * MS);	/* the one after 10 ms */
	/* Read one at a time: each read queues the next missed one. */
	CHECK_EQ(read_first(fd, id, 35 * MS), 1);
	CHECK_EQ(twt_queued(fd), 1);
	CHECK_EQ(read_first(fd, id, 35 * MS), 1);
	CHECK_EQ(twt_queued(fd), 1);
	CHECK_EQ(read_one(fd, id, 35 * MS), 1);
	/* Caught up: 40 ms is ahead. */
	CHECK_EQ(twt_queued(fd), 0);
	CHECK_EQ(twt_query(fd, id).deadline_ns, 40 * MS);
	/* At 100 ms, one read with room gets 40, 50, ... 100: seven. */
	twt_advance(fd, 65 * MS);
	CHECK_EQ(read(fd, ev, sizeof(ev)), 7 * sizeof(ev[0]));
	for (int i = 0; i < 7; i++) {
		CHECK_EQ(ev[i].id, id);
		CHECK_EQ(ev[i].count, 1);
	}
	CHECK_EQ(twt_query(fd, id).deadline_ns, 110 * MS);
	close(fd);
}

/* The next deadline one period after the read; count 1. */
static void delay(void)
{
	uint64_t id;
	int fd = open_periodic(TWHEEL_MISSED_DELAY, &id);

	twt_advance(fd, 35 * MS);
	CHECK_EQ(twt_query(fd, id).count, 1);
	/* Read now (35 ms): next at 45 ms. */
	CHECK_EQ(twt_query(fd, id).deadline_ns, 45 * MS);
	CHECK_EQ(read_one(fd, id, 35 * MS), 1);
	CHECK_EQ(twt_query(fd, id).deadline_ns, 45 * MS);
	twt_advance(fd, 9 * MS);
	CHECK_EQ(twt_queued(fd), 0);
	twt_advance(fd, 1 * MS);
	/* Read late again (at 52 ms): count 1, next at 62 ms. */
	twt_advance(fd, 7 * MS);
	CHECK_EQ(read_one(fd, id, 45 * MS), 1);
	CHECK_EQ(twt_query(fd, id).deadline_ns, 62 * MS);
	close(fd);
}

/* The missed deadlines dropped: count 1, next on the grid. */
static void skip(void)
{
	grid_policy(TWHEEL_MISSED_SKIP, 1);
}

/* A policy without a period, or a value outside the mask: EINVAL. */
static void flags_errors(void)
{
	int fd = twt_open_manual(O_NONBLOCK, MS);
	struct twheel_op op;
	uint64_t id;

	CHECK_ERR(twt_add_raw(fd, 1, 10 * MS, TWHEEL_MISSED_DELAY,
			      CLOCK_MONOTONIC, NULL), EINVAL);
	CHECK_ERR(twt_addp_raw(fd, 1, 10 * MS, 10 * MS, 0x10,
			       CLOCK_MONOTONIC, NULL), EINVAL);
	id = twt_addp(fd, 1, 10 * MS, 10 * MS, TWHEEL_MISSED_SKIP,
		      CLOCK_MONOTONIC);
	/* MODIFY to one-shot with a policy: EINVAL, the timer unchanged. */
	CHECK_ERR(twt_modify_raw(fd, id, 0, 20 * MS, 0, TWHEEL_MISSED_BURST,
				 NULL), EINVAL);
	CHECK_EQ(twt_query(fd, id).period_ns, 10 * MS);
	/* In a batch, as alone. */
	memset(&op, 0, sizeof(op));
	op.op = TWHEEL_OP_ADD;
	op.expires_ns = 10 * MS;
	op.flags = TWHEEL_MISSED_BURST;
	op.clock = CLOCK_MONOTONIC;
	CHECK_EQ(twt_submit_raw(fd, &op, 1), 1);
	CHECK_EQ(op.error, -EINVAL);
	CHECK_EQ(twt_info(fd).timers, 1);
	close(fd);
}

/* MODIFY sets the policy from then on (here COUNT to BURST). */
static void modify_sets_policy(void)
{
	uint64_t id;
	int fd = open_periodic(TWHEEL_MISSED_COUNT, &id);

	CHECK_EQ(twt_modify_raw(fd, id, 0, 10 * MS, 10 * MS,
				TWHEEL_ABSTIME | TWHEEL_MISSED_BURST, NULL), 0);
	twt_advance(fd, 35 * MS);
	CHECK_EQ(read_first(fd, id, 35 * MS), 1);
	CHECK_EQ(twt_queued(fd), 1);
	/* And back: the default counts again. */
	CHECK_EQ(twt_modify_raw(fd, id, 0, 40 * MS, 10 * MS, TWHEEL_ABSTIME,
				NULL), 0);
	twt_advance(fd, 30 * MS);		/* at 65 ms: 40, 50, 60 */
	CHECK_EQ(read_one(fd, id, 65 * MS), 3);
	close(fd);
}

/*
 * On a real clock: with DELAY, each record is read late on purpose, and
 * the next never comes before one period after that read; count 1.
 */
static void delay_real_clock(void)
{
	int fd = twt_open(0);
	struct twheel_event ev;
	int64_t before;
	int i;

	twt_addp(fd, 3, 20 * MS, 20 * MS, TWHEEL_MISSED_DELAY,
		 CLOCK_MONOTONIC);
	for (i = 0; i < 5; i++) {
		twt_sleep_ms(50);		/* more than two periods late */
		before = twt_mono();
		CHECK_EQ(read(fd, &ev, sizeof(ev)), sizeof(ev));
		CHECK_EQ(ev.count, 1);
		CHECK_EQ(read(fd, &ev, sizeof(ev)), sizeof(ev));
		CHECK_EQ(ev.count, 1);
		/* Queued no earlier than a period after the read. */
		CHECK(ev.time_ns >= before + 20 * MS);
	}
	close(fd);
}

TWT_MAIN("missed",
	 TWT_CASE(count_default),
	 TWT_CASE(burst),
	 TWT_CASE(delay),
	 TWT_CASE(skip),
	 TWT_CASE(flags_errors),
	 TWT_CASE(modify_sets_policy),
	 TWT_CASE(delay_real_clock))
