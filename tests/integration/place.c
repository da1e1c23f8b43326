// SPDX-License-Identifier: GPL-2.0
/*
 * place: where an ADD whose deadline has passed goes, as struct
 * twheel_add says. A deadline whose tick has been reached: queued before
 * the ioctl returns, whatever else is pending. A deadline passed inside
 * the current tick: queued at once unless the wheel holds a pending timer
 * in that tick's slot (a timer of that tick; or, when the tick's number is
 * a multiple of 64^k, one due in the 64^k ticks from it); then queued
 * when the tick is reached, behind the timers of that tick added before
 * it. On the manual clock (tick 1 ms), so the ticks are exact. (twfuzz
 * found the slot case, which the header once left out.)
 */
#include "twtest.h"

#define T	TWT_MS

/*
 * The clock half-way through tick @nt, a timer A with deadline tick
 * @other, then B due "now" (deadline tick nt + 1): is B queued at once?
 */
static int b_at_once(uint64_t nt, uint64_t other, int fd_out[1],
		     uint64_t *b_out)
{
	int fd = twt_open_manual(O_NONBLOCK, T);
	struct twheel_status st;
	uint64_t b;

	twt_advance(fd, nt * T + T / 2);
	twt_add(fd, 1, (int64_t)(other - nt) * T - T / 2, 0, CLOCK_MONOTONIC);
	b = twt_add(fd, 2, 0, 0, CLOCK_MONOTONIC);
	st = twt_query(fd, b);
	CHECK_EQ(twt_queued(fd), st.state == TWHEEL_STATE_QUEUED);
	if (fd_out) {
		fd_out[0] = fd;
		*b_out = b;
	} else {
		close(fd);
	}
	return st.state == TWHEEL_STATE_QUEUED;
}

static void reached_tick_at_once(void)
{
	int fd = twt_open_manual(O_NONBLOCK, T);
	struct twheel_event ev[2];
	uint64_t b;

	twt_advance(fd, 63 * T);		/* exactly on tick 63 */
	twt_add(fd, 1, 7 * T, 0, CLOCK_MONOTONIC);	/* tick 70: slot of 64 */
	/* Deadline 62.5 ms: tick 63, reached. */
	b = twt_add_abs(fd, 2, 62 * T + T / 2, CLOCK_MONOTONIC);
	CHECK_EQ(twt_drain(fd, ev, 2), 1);
	CHECK_EQ(ev[0].id, b);
	close(fd);
}

static void inside_tick_slot_free(void)
{
	CHECK(b_at_once(10, 20, NULL, NULL));	/* level 0: tick 11 free */
	CHECK(b_at_once(63, 200, NULL, NULL));	/* 64's slot is 64..127 */
	CHECK(b_at_once(62, 70, NULL, NULL));	/* tick 63: level 0 */
	CHECK(b_at_once(4095, 8192, NULL, NULL));	/* 4096's: 4096..8191 */
}

/* Held back by a timer in the slot, B comes with the tick, alone. */
static void inside_tick_slot_held(void)
{
	static const uint64_t cases[][2] = {
		{ 63, 70 }, { 63, 127 }, { 127, 130 }, { 4095, 4100 },
		{ 4095, 8191 },
	};
	unsigned int i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct twheel_event ev[2];
		uint64_t b;
		int fd;

		CHECK(!b_at_once(cases[i][0], cases[i][1], &fd, &b));
		CHECK_NONE_QUEUED(fd);
		/* Tick nt + 1 reached: B, and A not yet. */
		CHECK_EQ(twt_advance(fd, T / 2), (int64_t)(cases[i][0] + 1) * T);
		CHECK_EQ(twt_drain(fd, ev, 2), 1);
		CHECK_EQ(ev[0].id, b);
		CHECK_EQ(ev[0].time_ns, (int64_t)(cases[i][0] + 1) * T);
		close(fd);
	}
}

/* A timer of that very tick added before: B comes right behind it. */
static void inside_tick_behind_same_tick(void)
{
	int fd = twt_open_manual(O_NONBLOCK, T);
	struct twheel_event ev[3];
	uint64_t a, b, c;

	twt_advance(fd, 10 * T + T / 2);
	/* a: 10.9 ms, tick 11, not passed; b: 10.2 ms, passed, tick 11. */
	a = twt_add_abs(fd, 1, 10 * T + 9 * T / 10, CLOCK_MONOTONIC);
	b = twt_add_abs(fd, 2, 10 * T + 2 * T / 10, CLOCK_MONOTONIC);
	c = twt_add_abs(fd, 3, 11 * T + T / 10, CLOCK_MONOTONIC); /* tick 12 */
	CHECK_EQ(twt_query(fd, b).state, TWHEEL_STATE_PENDING);
	CHECK_NONE_QUEUED(fd);
	twt_advance(fd, 2 * T);
	CHECK_EQ(twt_drain(fd, ev, 3), 3);
	CHECK_EQ(ev[0].id, a);
	CHECK_EQ(ev[1].id, b);
	CHECK_EQ(ev[2].id, c);
	close(fd);
}

TWT_MAIN("place",
	 TWT_CASE(reached_tick_at_once),
	 TWT_CASE(inside_tick_slot_free),
	 TWT_CASE(inside_tick_slot_held),
	 TWT_CASE(inside_tick_behind_same_tick))
