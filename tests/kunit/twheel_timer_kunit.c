// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite of the timers (twheel_timer.c, twheel_op.c): the
 * operations' semantics (add, modify, cancel, query, what is taken back),
 * ids, the cap, the order of expiries and the periodic arithmetic.
 */
#include <kunit/test.h>
#include <linux/ktime.h>
#include <linux/timekeeping.h>

#include "twheel_kunit.h"

static void twheel_timer_due_now_is_queued_at_once(struct kunit *test)
{
	struct twheel_ctx *ctx = ctx_new(test, 16);
	struct ctx_records r = { };
	s64 before = ktime_get();
	u64 id;

	KUNIT_EXPECT_EQ(test, ctx_add(ctx, 42, 0, 0, CLOCK_MONOTONIC,
				      &id), 0);
	KUNIT_EXPECT_NE(test, id, 0ULL);
	KUNIT_EXPECT_TRUE(test, twheel_ctx_readable(ctx));
	KUNIT_ASSERT_EQ(test, twheel_ctx_read(ctx, 16, ctx_emit, &r), 1L);
	KUNIT_EXPECT_EQ(test, r.ev[0].id, id);
	KUNIT_EXPECT_EQ(test, r.ev[0].cookie, 42ULL);
	KUNIT_EXPECT_EQ(test, r.ev[0].count, 1ULL);
	KUNIT_EXPECT_EQ(test, r.ev[0].clock, (u32)CLOCK_MONOTONIC);
	KUNIT_EXPECT_EQ(test, r.ev[0].flags, 0U);
	KUNIT_EXPECT_GE(test, r.ev[0].time_ns, before);
	KUNIT_EXPECT_EQ(test, twheel_ctx_read(ctx, 16, ctx_emit, &r), 0L);
	KUNIT_EXPECT_FALSE(test, twheel_ctx_readable(ctx));
	KUNIT_EXPECT_EQ(test, ctx_timers(ctx), 0ULL);
	twheel_ctx_destroy(ctx);
}

static void twheel_timer_bad_requests_change_nothing(struct kunit *test)
{
	static const u32 bad_clocks[] = { 2, 3, 4, 5, 6, 10, 12, 16, U32_MAX };
	struct twheel_ctx *ctx = ctx_new(test, 16);
	struct twheel_op op = { .op = TWHEEL_OP_ADD, .clock = CLOCK_MONOTONIC };
	int i;

	KUNIT_EXPECT_EQ(test, ctx_add(ctx, 1, MS, 0x2, CLOCK_MONOTONIC, NULL),
			-EINVAL);
	for (i = 0; i < ARRAY_SIZE(bad_clocks); i++)
		KUNIT_EXPECT_EQ(test, ctx_add(ctx, 1, MS, 0, bad_clocks[i],
					      NULL), -EINVAL);
	KUNIT_EXPECT_EQ(test, ctx_add(ctx, 1, -1, 0, CLOCK_MONOTONIC, NULL),
			-EINVAL);
	op.__reserved = 1;
	KUNIT_EXPECT_EQ(test, ctx_do(ctx, &op, NULL), -EINVAL);
	op.__reserved = 0;
	op.op = 5;
	KUNIT_EXPECT_EQ(test, ctx_do(ctx, &op, NULL), -EINVAL);
	op.op = TWHEEL_OP_CANCEL;
	op.flags = 1;
	KUNIT_EXPECT_EQ(test, ctx_do(ctx, &op, NULL), -EINVAL);
	KUNIT_EXPECT_EQ(test, ctx_timers(ctx), 0ULL);
	KUNIT_EXPECT_FALSE(test, twheel_ctx_readable(ctx));
	/* A negative absolute deadline is merely in the past. */
	KUNIT_EXPECT_EQ(test, ctx_add(ctx, 1, -1, TWHEEL_ABSTIME,
				      CLOCK_MONOTONIC, NULL), 0);
	KUNIT_EXPECT_TRUE(test, twheel_ctx_readable(ctx));
	/* Relative deadlines on the wall clocks are fine. */
	KUNIT_EXPECT_EQ(test, ctx_add(ctx, 1, MS, 0, CLOCK_REALTIME, NULL), 0);
	KUNIT_EXPECT_EQ(test, ctx_add(ctx, 1, MS, 0, CLOCK_TAI, NULL), 0);
	twheel_ctx_destroy(ctx);
}

/* Ids are unique while the fd lives, and their slots are reused. */
static void twheel_timer_ids_unique_slots_reused(struct kunit *test)
{
	struct twheel_ctx *ctx = ctx_new(test, 16);
	u64 ids[10];
	u32 result;
	int i, j;

	for (i = 0; i < ARRAY_SIZE(ids); i++) {
		KUNIT_ASSERT_EQ(test, ctx_add(ctx, i, 3600 * 1000 * MS, 0,
					      CLOCK_MONOTONIC, &ids[i]),
				0);
		for (j = 0; j < i; j++)
			KUNIT_EXPECT_NE(test, ids[i], ids[j]);
		KUNIT_EXPECT_EQ(test, ctx_cancel(ctx, ids[i], &result), 0);
		/* The id of a cancelled timer finds nothing any more. */
		KUNIT_EXPECT_EQ(test, ctx_cancel(ctx, ids[i], &result), -ENOENT);
	}
	/* One slot, reused: the index's first size, and one page pointer. */
	KUNIT_EXPECT_EQ(test, twheel_ids_bytes(&twheel_ctx_timers(ctx)->ids),
			TWHEEL_IDS_FIRST * sizeof(u64) + sizeof(void *));
	KUNIT_EXPECT_EQ(test, ctx_timers(ctx), 0ULL);
	twheel_ctx_destroy(ctx);
}

static void twheel_timer_cancel_outcomes(struct kunit *test)
{
	struct twheel_ctx *ctx = ctx_new(test, 16);
	struct twheel_op req = { .op = TWHEEL_OP_CANCEL };
	u64 pending, queued;
	u32 result = 0;

	KUNIT_ASSERT_EQ(test, ctx_add(ctx, 1, 3600 * 1000 * MS, 0,
				      CLOCK_BOOTTIME, &pending), 0);
	KUNIT_ASSERT_EQ(test, ctx_add(ctx, 2, 0, 0, CLOCK_MONOTONIC,
				      &queued), 0);
	/* If the outcome cannot be handed over, nothing is cancelled. */
	req.id = pending;
	KUNIT_EXPECT_EQ(test, ctx_do(ctx, &req, ctx_fail), -EFAULT);
	KUNIT_EXPECT_EQ(test, req.result, (u32)TWHEEL_STATE_PENDING);
	req.id = queued;
	KUNIT_EXPECT_EQ(test, ctx_do(ctx, &req, ctx_fail), -EFAULT);
	KUNIT_EXPECT_EQ(test, req.result, (u32)TWHEEL_STATE_QUEUED);
	KUNIT_EXPECT_EQ(test, ctx_timers(ctx), 2ULL);
	KUNIT_EXPECT_TRUE(test, twheel_ctx_readable(ctx));

	KUNIT_EXPECT_EQ(test, ctx_cancel(ctx, pending, &result), 0);
	KUNIT_EXPECT_EQ(test, result, (u32)TWHEEL_STATE_PENDING);
	KUNIT_EXPECT_EQ(test, ctx_cancel(ctx, pending, &result), -ENOENT);
	KUNIT_EXPECT_EQ(test, ctx_cancel(ctx, queued, &result), 0);
	KUNIT_EXPECT_EQ(test, result, (u32)TWHEEL_STATE_QUEUED);
	KUNIT_EXPECT_EQ(test, twheel_ctx_timers(ctx)->nr_queued, 0ULL);
	KUNIT_EXPECT_EQ(test, ctx_cancel(ctx, 0, &result), -ENOENT);
	KUNIT_EXPECT_EQ(test, ctx_cancel(ctx, U64_MAX, &result), -ENOENT);
	/* Same slot, another generation: not the live timer's id. */
	KUNIT_ASSERT_EQ(test, ctx_add(ctx, 3, 3600 * 1000 * MS, 0, CLOCK_MONOTONIC,
				      &pending), 0);
	KUNIT_EXPECT_EQ(test, ctx_cancel(ctx, pending ^ (1ULL << 40), &result),
			-ENOENT);
	KUNIT_EXPECT_EQ(test, ctx_cancel(ctx, pending, &result), 0);
	KUNIT_EXPECT_FALSE(test, twheel_ctx_readable(ctx));
	KUNIT_EXPECT_EQ(test, ctx_timers(ctx), 0ULL);
	twheel_ctx_destroy(ctx);
}

/* An add whose id cannot be handed over is taken back, due or not. */
static void twheel_timer_add_taken_back(struct kunit *test)
{
	struct twheel_ctx *ctx = ctx_new(test, 16);
	struct twheel_op req = {
		.op = TWHEEL_OP_ADD, .expires_ns = 3600 * 1000 * MS,
		.clock = CLOCK_MONOTONIC,
	};

	KUNIT_EXPECT_EQ(test, ctx_do(ctx, &req, ctx_fail), -EFAULT);
	req.expires_ns = 0;
	KUNIT_EXPECT_EQ(test, ctx_do(ctx, &req, ctx_fail), -EFAULT);
	req.period_ns = MS;
	KUNIT_EXPECT_EQ(test, ctx_do(ctx, &req, ctx_fail), -EFAULT);
	KUNIT_EXPECT_EQ(test, ctx_timers(ctx), 0ULL);
	KUNIT_EXPECT_FALSE(test, twheel_ctx_readable(ctx));
	twheel_ctx_destroy(ctx);
}

static void twheel_timer_cap(struct kunit *test)
{
	struct twheel_ctx *ctx = ctx_new(test, 3);
	u64 id;
	u32 result;

	KUNIT_EXPECT_EQ(test, ctx_add(ctx, 1, MS * 1000, 0, CLOCK_MONOTONIC, &id), 0);
	KUNIT_EXPECT_EQ(test, ctx_add(ctx, 2, MS * 1000, 0, CLOCK_MONOTONIC, NULL), 0);
	/* A queued record still counts until it is read. */
	KUNIT_EXPECT_EQ(test, ctx_add(ctx, 3, 0, 0, CLOCK_MONOTONIC, NULL), 0);
	KUNIT_EXPECT_EQ(test, ctx_add(ctx, 4, MS, 0, CLOCK_MONOTONIC, NULL), -ENOSPC);
	KUNIT_EXPECT_EQ(test, ctx_timers(ctx), 3ULL);
	KUNIT_EXPECT_EQ(test, ctx_cancel(ctx, id, &result), 0);
	KUNIT_EXPECT_EQ(test, ctx_add(ctx, 5, MS, 0, CLOCK_MONOTONIC, NULL), 0);
	twheel_ctx_destroy(ctx);
}

/*
 * Records come out in deadline order, ties in add order, never early:
 * the deadlines are an hour ahead and the test advances the wheel itself,
 * so the outcome cannot depend on how fast the machine is.
 */
static void twheel_timer_expiry_order(struct kunit *test)
{
	static const int delay_ms[] = { 30, 10, 20, 10, 40, 1 };
	static const u64 want[] = { 5, 1, 3, 2, 0, 4 };
	struct twheel_ctx *ctx = ctx_new(test, 16);
	/* On a tick boundary, an hour ahead. */
	s64 start = (ktime_get() / MS + 3600LL * 1000) * MS;
	struct ctx_records r = { };
	int i;

	for (i = 0; i < ARRAY_SIZE(delay_ms); i++)
		KUNIT_ASSERT_EQ(test, ctx_add(ctx, i, start + delay_ms[i] * MS,
					      TWHEEL_ABSTIME, CLOCK_MONOTONIC, NULL), 0);
	twheel_ctx_lock_update(ctx, TWHEEL_UPDATE_ALL);
	/* 9.5 ms: nothing yet; then one tick at a time up to 60 ms. */
	ctx_update_at(ctx, TWHEEL_CLK_MONOTONIC, start + 9 * MS + MS / 2);
	KUNIT_EXPECT_EQ(test, twheel_ctx_timers(ctx)->nr_queued, 1ULL);
	for (i = 10; i <= 60; i++)
		ctx_update_at(ctx, TWHEEL_CLK_MONOTONIC, start + i * MS);
	twheel_ctx_unlock(ctx);
	KUNIT_ASSERT_EQ(test, twheel_ctx_read(ctx, 16, ctx_emit, &r),
			(long)ARRAY_SIZE(want));
	/* The first was queued by the update at 9.5 ms. */
	KUNIT_EXPECT_EQ(test, r.ev[0].time_ns, start + 9 * MS + MS / 2);
	for (i = 0; i < ARRAY_SIZE(want); i++) {
		KUNIT_EXPECT_EQ(test, r.ev[i].cookie, want[i]);
		/* The others at their own tick: not before, not after. */
		if (i)
			KUNIT_EXPECT_EQ(test, r.ev[i].time_ns,
					start + delay_ms[r.ev[i].cookie] * MS);
	}
	twheel_ctx_destroy(ctx);
}

/* timerfd's semantics: a 50 ms timer left unread for 160 ms reads 3. */
static void twheel_timer_periodic_counts(struct kunit *test)
{
	struct twheel_ctx *ctx = ctx_manual(test);
	struct ctx_records *r = ctx_recs(test);
	struct twheel_op q = {
		.op = TWHEEL_OP_ADD, .cookie = 9, .expires_ns = 50 * MS,
		.period_ns = 50 * MS, .clock = CLOCK_MONOTONIC,
	};
	u64 id;

	KUNIT_ASSERT_EQ(test, ctx_do(ctx, &q, NULL), 0);
	id = q.id;
	ctx_advance(test, ctx, 160 * MS);
	/* One record, however many periods pass while it is unread. */
	KUNIT_EXPECT_EQ(test, twheel_ctx_timers(ctx)->nr_queued, 1ULL);
	q = ctx_query(ctx, id);
	KUNIT_EXPECT_EQ(test, q.error, 0);
	KUNIT_EXPECT_EQ(test, q.result, (u32)TWHEEL_STATE_QUEUED);
	KUNIT_EXPECT_EQ(test, q.count, 3ULL);
	KUNIT_EXPECT_EQ(test, q.expires_ns, 200 * MS);
	KUNIT_EXPECT_EQ(test, q.remaining_ns, 40 * MS);
	KUNIT_ASSERT_EQ(test, twheel_ctx_read(ctx, 16, ctx_emit, r), 1L);
	KUNIT_EXPECT_EQ(test, r->ev[0].count, 3ULL);
	KUNIT_EXPECT_EQ(test, r->ev[0].cookie, 9ULL);
	KUNIT_EXPECT_EQ(test, r->ev[0].time_ns, 160 * MS);
	/* Read: pending again, for the next deadline of its grid. */
	q = ctx_query(ctx, id);
	KUNIT_EXPECT_EQ(test, q.result, (u32)TWHEEL_STATE_PENDING);
	KUNIT_EXPECT_EQ(test, q.count, 0ULL);
	KUNIT_EXPECT_EQ(test, q.expires_ns, 200 * MS);
	KUNIT_EXPECT_EQ(test, q.period_ns, 50ULL * MS);
	ctx_advance(test, ctx, 40 * MS - 1);
	KUNIT_EXPECT_EQ(test, twheel_ctx_timers(ctx)->nr_queued, 0ULL);
	ctx_advance(test, ctx, 1);
	r->n = 0;
	KUNIT_ASSERT_EQ(test, twheel_ctx_read(ctx, 16, ctx_emit, r), 1L);
	KUNIT_EXPECT_EQ(test, r->ev[0].count, 1ULL);
	/* Cancel of a queued periodic timer retracts its record. */
	ctx_advance(test, ctx, 50 * MS);
	KUNIT_EXPECT_EQ(test, ctx_cancel(ctx, id, &q.result), 0);
	KUNIT_EXPECT_EQ(test, q.result, (u32)TWHEEL_STATE_QUEUED);
	KUNIT_EXPECT_EQ(test, ctx_timers(ctx), 0ULL);
	KUNIT_EXPECT_FALSE(test, twheel_ctx_readable(ctx));
	/* A period below the tick is one tick. */
	q = (struct twheel_op){ .op = TWHEEL_OP_ADD, .expires_ns = MS,
				.period_ns = 1, .clock = CLOCK_MONOTONIC };
	KUNIT_ASSERT_EQ(test, ctx_do(ctx, &q, NULL), 0);
	KUNIT_EXPECT_EQ(test, ctx_query(ctx, q.id).period_ns, (u64)MS);
	twheel_ctx_destroy(ctx);
}

static void twheel_timer_modify(struct kunit *test)
{
	struct twheel_ctx *ctx = ctx_manual(test);
	struct twheel_op m = { .op = TWHEEL_OP_MODIFY };
	struct ctx_records *r = ctx_recs(test);
	u64 id, other;

	KUNIT_ASSERT_EQ(test, ctx_add(ctx, 1, 10 * MS, 0, CLOCK_MONOTONIC,
				      &id), 0);
	KUNIT_ASSERT_EQ(test, ctx_add(ctx, 2, 20 * MS, 0, CLOCK_MONOTONIC,
				      &other), 0);
	/* Later, same id and cookie; behind the timer already at 20 ms. */
	m.id = id;
	m.expires_ns = 20 * MS;
	m.cookie = 77;
	KUNIT_EXPECT_EQ(test, ctx_do(ctx, &m, NULL), 0);
	KUNIT_EXPECT_EQ(test, m.result, (u32)TWHEEL_STATE_PENDING);
	ctx_advance(test, ctx, 10 * MS);
	KUNIT_EXPECT_EQ(test, twheel_ctx_timers(ctx)->nr_queued, 0ULL);
	ctx_advance(test, ctx, 10 * MS);
	KUNIT_EXPECT_EQ(test, twheel_ctx_timers(ctx)->nr_queued, 2ULL);
	/* Modify of a queued timer retracts its record. */
	m.expires_ns = 5 * MS;
	m.flags = TWHEEL_SET_COOKIE;
	KUNIT_EXPECT_EQ(test, ctx_do(ctx, &m, NULL), 0);
	KUNIT_EXPECT_EQ(test, m.result, (u32)TWHEEL_STATE_QUEUED);
	KUNIT_EXPECT_EQ(test, twheel_ctx_timers(ctx)->nr_queued, 1ULL);
	KUNIT_ASSERT_EQ(test, twheel_ctx_read(ctx, 16, ctx_emit, r), 1L);
	KUNIT_EXPECT_EQ(test, r->ev[0].id, other);
	/* Not handed over: nothing changes. Made periodic: a new object. */
	m.flags = 0;
	m.period_ns = 7 * MS;
	KUNIT_EXPECT_EQ(test, ctx_do(ctx, &m, ctx_fail), -EFAULT);
	KUNIT_EXPECT_EQ(test, ctx_query(ctx, id).expires_ns, 25 * MS);
	KUNIT_EXPECT_EQ(test, ctx_query(ctx, id).period_ns, 0ULL);
	KUNIT_EXPECT_EQ(test, ctx_do(ctx, &m, NULL), 0);
	KUNIT_EXPECT_EQ(test, ctx_query(ctx, id).period_ns, 7ULL * MS);
	KUNIT_EXPECT_EQ(test, ctx_query(ctx, id).expires_ns, 25 * MS);
	ctx_advance(test, ctx, 5 * MS + 7 * MS);
	r->n = 0;
	KUNIT_ASSERT_EQ(test, twheel_ctx_read(ctx, 16, ctx_emit, r), 1L);
	KUNIT_EXPECT_EQ(test, r->ev[0].id, id);
	KUNIT_EXPECT_EQ(test, r->ev[0].cookie, 77ULL);
	KUNIT_EXPECT_EQ(test, r->ev[0].count, 2ULL);
	/* Back to one-shot; gone once read. */
	m.period_ns = 0;
	m.expires_ns = 0;
	KUNIT_EXPECT_EQ(test, ctx_do(ctx, &m, NULL), 0);
	r->n = 0;
	KUNIT_ASSERT_EQ(test, twheel_ctx_read(ctx, 16, ctx_emit, r), 1L);
	KUNIT_EXPECT_EQ(test, ctx_do(ctx, &m, NULL), -ENOENT);
	KUNIT_EXPECT_EQ(test, ctx_timers(ctx), 0ULL);
	twheel_ctx_destroy(ctx);
}

/* A periodic timer whose first deadline is far in the past goes on. */
static void twheel_timer_periodic_far_past(struct kunit *test)
{
	struct twheel_ctx *ctx = ctx_manual(test);
	struct ctx_records *r = ctx_recs(test);
	const u64 p = 1000 * MS;
	/* Every point of the grid from KTIME_MIN up to 0 has passed. */
	const u64 passed = 1 + ((u64)0 - (u64)KTIME_MIN) / p;
	const s64 next = (s64)((u64)KTIME_MIN + passed * p);
	struct twheel_op q = {
		.op = TWHEEL_OP_ADD, .expires_ns = KTIME_MIN, .period_ns = p,
		.flags = TWHEEL_ABSTIME, .clock = CLOCK_MONOTONIC,
	};
	u64 id;
	int i;

	KUNIT_ASSERT_EQ(test, ctx_do(ctx, &q, NULL), 0);
	id = q.id;
	KUNIT_ASSERT_EQ(test, twheel_ctx_read(ctx, 16, ctx_emit, r), 1L);
	KUNIT_EXPECT_EQ(test, r->ev[0].count, passed);
	q = ctx_query(ctx, id);
	KUNIT_EXPECT_EQ(test, q.result, (u32)TWHEEL_STATE_PENDING);
	KUNIT_EXPECT_EQ(test, q.expires_ns, next);
	KUNIT_EXPECT_GT(test, next, 0LL);
	KUNIT_EXPECT_LE(test, next, (s64)p);
	/* Due when the clock reaches the deadline's tick. */
	ctx_advance(test, ctx, DIV_ROUND_UP(next, MS) * MS);
	for (i = 0; i < 3; i++) {
		r->n = 0;
		KUNIT_ASSERT_EQ(test, twheel_ctx_read(ctx, 16, ctx_emit, r), 1L);
		KUNIT_EXPECT_EQ(test, r->ev[0].count, 1ULL);
		ctx_advance(test, ctx, p);
	}
	twheel_ctx_destroy(ctx);
}

static struct kunit_case twheel_timer_cases[] = {
	KUNIT_CASE(twheel_timer_due_now_is_queued_at_once),
	KUNIT_CASE(twheel_timer_bad_requests_change_nothing),
	KUNIT_CASE(twheel_timer_ids_unique_slots_reused),
	KUNIT_CASE(twheel_timer_cancel_outcomes),
	KUNIT_CASE(twheel_timer_add_taken_back),
	KUNIT_CASE(twheel_timer_cap),
	KUNIT_CASE(twheel_timer_expiry_order),
	KUNIT_CASE(twheel_timer_periodic_counts),
	KUNIT_CASE(twheel_timer_modify),
	KUNIT_CASE(twheel_timer_periodic_far_past),
	{}
};

static struct kunit_suite twheel_timer_suite = {
	.name = "twheel_timer",
	.test_cases = twheel_timer_cases,
};

kunit_test_suite(twheel_timer_suite);
