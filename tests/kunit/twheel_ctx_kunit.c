// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of the device's internals: tick arithmetic (twheel_time.h)
 * and the timer set (twheel_ctx.c), driven directly, without a file.
 */
#include <kunit/test.h>
#include <linux/delay.h>
#include <linux/err.h>
#include <linux/ktime.h>
#include <linux/timekeeping.h>

#include "twheel_ctx.h"
#include "twheel_time.h"

#define MS	1000000LL

static void twheel_time_deadline_rounds_up(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, twheel_deadline_tick(0, MS), 0ULL);
	KUNIT_EXPECT_EQ(test, twheel_deadline_tick(-5, MS), 0ULL);
	KUNIT_EXPECT_EQ(test, twheel_deadline_tick(1, MS), 1ULL);
	KUNIT_EXPECT_EQ(test, twheel_deadline_tick(MS, MS), 1ULL);
	KUNIT_EXPECT_EQ(test, twheel_deadline_tick(MS + 1, MS), 2ULL);
	KUNIT_EXPECT_EQ(test, twheel_deadline_tick(KTIME_MAX, MS),
			(u64)KTIME_MAX / MS + 1);
	KUNIT_EXPECT_EQ(test, twheel_deadline_tick(KTIME_MAX, 1),
			(u64)KTIME_MAX);
}

static void twheel_time_now_rounds_down(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, twheel_now_tick(-1, MS), 0ULL);
	KUNIT_EXPECT_EQ(test, twheel_now_tick(MS - 1, MS), 0ULL);
	KUNIT_EXPECT_EQ(test, twheel_now_tick(MS, MS), 1ULL);
	KUNIT_EXPECT_EQ(test, twheel_now_tick(KTIME_MAX, MS),
			(u64)KTIME_MAX / MS);
}

/* Never early: a deadline's tick starts at or after the deadline. */
static void twheel_time_never_early(struct kunit *test)
{
	static const s64 ticks[] = { 1, 3, 1000, MS, 7 * MS + 3 };
	s64 ns;
	int i;

	for (i = 0; i < ARRAY_SIZE(ticks); i++) {
		for (ns = 1; ns < 5 * MS; ns += 999983) {
			u64 t = twheel_deadline_tick(ns, ticks[i]);

			KUNIT_EXPECT_GE(test, twheel_tick_ns(t, ticks[i]), ns);
			KUNIT_EXPECT_LT(test, twheel_tick_ns(t, ticks[i]),
					ns + ticks[i]);
			/* Due exactly when the present reaches it. */
			KUNIT_EXPECT_GE(test, twheel_now_tick(ns, ticks[i]) + 1, t);
		}
	}
}

static void twheel_time_saturates(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, twheel_tick_ns(U64_MAX, MS), KTIME_MAX);
	KUNIT_EXPECT_EQ(test, twheel_tick_ns((u64)KTIME_MAX / MS + 1, MS),
			KTIME_MAX);
	KUNIT_EXPECT_EQ(test, twheel_tick_ns(5, MS), 5 * MS);
	KUNIT_EXPECT_EQ(test, twheel_add_ns(10, KTIME_MAX), KTIME_MAX);
	KUNIT_EXPECT_EQ(test, twheel_add_ns(KTIME_MAX - 1, 1), KTIME_MAX);
	KUNIT_EXPECT_EQ(test, twheel_add_ns(KTIME_MAX - 1, 2), KTIME_MAX);
	KUNIT_EXPECT_EQ(test, twheel_add_ns(5, 7), 12LL);
}

static struct twheel_ctx *ctx_new(struct kunit *test, u64 max)
{
	struct twheel_ctx *ctx = twheel_ctx_create(max, TWHEEL_DEFAULT_TICK_NS);

	KUNIT_ASSERT_FALSE(test, IS_ERR(ctx));
	return ctx;
}

static int ctx_add(struct twheel_ctx *ctx, u64 cookie, s64 ns, u32 flags,
		   u32 clock, u64 *id)
{
	struct twheel_add req = {
		.cookie = cookie, .expires_ns = ns, .flags = flags,
		.clock = clock,
	};
	int ret;

	twheel_ctx_lock(ctx);
	ret = twheel_ctx_add(ctx, &req);
	twheel_ctx_unlock(ctx);
	if (id)
		*id = req.id;
	return ret;
}

static u64 ctx_timers(struct twheel_ctx *ctx)
{
	struct twheel_info info;

	twheel_ctx_lock(ctx);
	twheel_ctx_info(ctx, &info);
	twheel_ctx_unlock(ctx);
	return info.timers;
}

static void twheel_ctx_due_now_is_queued_at_once(struct kunit *test)
{
	struct twheel_ctx *ctx = ctx_new(test, 16);
	struct twheel_event ev;
	s64 before = ktime_get();
	u64 id;

	KUNIT_EXPECT_EQ(test, ctx_add(ctx, 42, 0, 0, TWHEEL_CLOCK_MONOTONIC,
				      &id), 0);
	KUNIT_EXPECT_EQ(test, id, 1ULL);
	KUNIT_EXPECT_TRUE(test, twheel_ctx_readable(ctx));
	twheel_ctx_lock(ctx);
	KUNIT_ASSERT_TRUE(test, twheel_ctx_peek(ctx, &ev));
	KUNIT_EXPECT_EQ(test, ev.id, 1ULL);
	KUNIT_EXPECT_EQ(test, ev.cookie, 42ULL);
	KUNIT_EXPECT_EQ(test, ev.count, 1ULL);
	KUNIT_EXPECT_EQ(test, ev.clock, (u32)TWHEEL_CLOCK_MONOTONIC);
	KUNIT_EXPECT_EQ(test, ev.flags, 0U);
	KUNIT_EXPECT_GE(test, ev.time_ns, before);
	twheel_ctx_consume(ctx);
	KUNIT_EXPECT_FALSE(test, twheel_ctx_peek(ctx, &ev));
	twheel_ctx_unlock(ctx);
	KUNIT_EXPECT_FALSE(test, twheel_ctx_readable(ctx));
	KUNIT_EXPECT_EQ(test, ctx_timers(ctx), 0ULL);
	twheel_ctx_destroy(ctx);
}

static void twheel_ctx_bad_requests_change_nothing(struct kunit *test)
{
	struct twheel_ctx *ctx = ctx_new(test, 16);

	KUNIT_EXPECT_EQ(test, ctx_add(ctx, 1, MS, 0x2, 0, NULL), -EINVAL);
	KUNIT_EXPECT_EQ(test, ctx_add(ctx, 1, MS, 0, 3, NULL), -EINVAL);
	KUNIT_EXPECT_EQ(test, ctx_add(ctx, 1, MS, 0, U32_MAX, NULL), -EINVAL);
	KUNIT_EXPECT_EQ(test, ctx_add(ctx, 1, -1, 0, 0, NULL), -EINVAL);
	KUNIT_EXPECT_EQ(test, ctx_add(ctx, 1, MS, 0, TWHEEL_CLOCK_REALTIME,
				      NULL), -EINVAL);
	KUNIT_EXPECT_EQ(test, ctx_timers(ctx), 0ULL);
	KUNIT_EXPECT_FALSE(test, twheel_ctx_readable(ctx));
	/* A negative absolute deadline is merely in the past. */
	KUNIT_EXPECT_EQ(test, ctx_add(ctx, 1, -1, TWHEEL_ADD_ABSTIME, 0, NULL),
			0);
	KUNIT_EXPECT_TRUE(test, twheel_ctx_readable(ctx));
	twheel_ctx_destroy(ctx);
}

static void twheel_ctx_ids_unique_never_reused(struct kunit *test)
{
	struct twheel_ctx *ctx = ctx_new(test, 16);
	u64 id, prev = 0;
	u32 result;
	int i;

	for (i = 0; i < 10; i++) {
		KUNIT_ASSERT_EQ(test, ctx_add(ctx, i, 3600 * 1000 * MS, 0,
					      TWHEEL_CLOCK_MONOTONIC, &id), 0);
		KUNIT_EXPECT_GT(test, id, prev);
		prev = id;
		twheel_ctx_lock(ctx);
		KUNIT_EXPECT_EQ(test, twheel_ctx_cancel(ctx, id, &result, true),
				0);
		twheel_ctx_unlock(ctx);
	}
	KUNIT_EXPECT_EQ(test, ctx_timers(ctx), 0ULL);
	twheel_ctx_destroy(ctx);
}

static void twheel_ctx_cancel_outcomes(struct kunit *test)
{
	struct twheel_ctx *ctx = ctx_new(test, 16);
	u64 pending, queued;
	u32 result = 0;

	KUNIT_ASSERT_EQ(test, ctx_add(ctx, 1, 3600 * 1000 * MS, 0,
				      TWHEEL_CLOCK_BOOTTIME, &pending), 0);
	KUNIT_ASSERT_EQ(test, ctx_add(ctx, 2, 0, 0, TWHEEL_CLOCK_MONOTONIC,
				      &queued), 0);
	twheel_ctx_lock(ctx);
	/* A dry run tells the outcome and changes nothing. */
	KUNIT_EXPECT_EQ(test, twheel_ctx_cancel(ctx, pending, &result, false),
			0);
	KUNIT_EXPECT_EQ(test, result, (u32)TWHEEL_CANCELLED_PENDING);
	KUNIT_EXPECT_EQ(test, ctx->nr_timers, 2ULL);
	KUNIT_EXPECT_EQ(test, twheel_ctx_cancel(ctx, pending, &result, true),
			0);
	KUNIT_EXPECT_EQ(test, result, (u32)TWHEEL_CANCELLED_PENDING);
	KUNIT_EXPECT_EQ(test, twheel_ctx_cancel(ctx, pending, &result, true),
			-ENOENT);
	KUNIT_EXPECT_EQ(test, twheel_ctx_cancel(ctx, queued, &result, true),
			0);
	KUNIT_EXPECT_EQ(test, result, (u32)TWHEEL_CANCELLED_QUEUED);
	KUNIT_EXPECT_EQ(test, ctx->nr_queued, 0ULL);
	KUNIT_EXPECT_EQ(test, twheel_ctx_cancel(ctx, 0, &result, true),
			-ENOENT);
	KUNIT_EXPECT_EQ(test, twheel_ctx_cancel(ctx, U64_MAX, &result, true),
			-ENOENT);
	twheel_ctx_unlock(ctx);
	KUNIT_EXPECT_FALSE(test, twheel_ctx_readable(ctx));
	KUNIT_EXPECT_EQ(test, ctx_timers(ctx), 0ULL);
	twheel_ctx_destroy(ctx);
}

static void twheel_ctx_cap(struct kunit *test)
{
	struct twheel_ctx *ctx = ctx_new(test, 3);
	u64 id;
	u32 result;

	KUNIT_EXPECT_EQ(test, ctx_add(ctx, 1, MS * 1000, 0, 0, &id), 0);
	KUNIT_EXPECT_EQ(test, ctx_add(ctx, 2, MS * 1000, 0, 0, NULL), 0);
	/* A queued record still counts until it is read. */
	KUNIT_EXPECT_EQ(test, ctx_add(ctx, 3, 0, 0, 0, NULL), 0);
	KUNIT_EXPECT_EQ(test, ctx_add(ctx, 4, MS, 0, 0, NULL), -ENOSPC);
	KUNIT_EXPECT_EQ(test, ctx_timers(ctx), 3ULL);
	twheel_ctx_lock(ctx);
	KUNIT_EXPECT_EQ(test, twheel_ctx_cancel(ctx, id, &result, true), 0);
	twheel_ctx_unlock(ctx);
	KUNIT_EXPECT_EQ(test, ctx_add(ctx, 5, MS, 0, 0, NULL), 0);
	twheel_ctx_destroy(ctx);
}

/* Deadlines far away are held, not wrapped into the past. */
static void twheel_ctx_saturated_deadlines(struct kunit *test)
{
	struct twheel_ctx *ctx = ctx_new(test, 16);

	KUNIT_EXPECT_EQ(test, ctx_add(ctx, 1, KTIME_MAX, 0, 0, NULL), 0);
	KUNIT_EXPECT_EQ(test, ctx_add(ctx, 2, KTIME_MAX, TWHEEL_ADD_ABSTIME,
				      TWHEEL_CLOCK_REALTIME, NULL), 0);
	KUNIT_EXPECT_EQ(test, ctx_add(ctx, 3, KTIME_MAX, 0,
				      TWHEEL_CLOCK_BOOTTIME, NULL), 0);
	twheel_ctx_lock(ctx);
	twheel_ctx_run(ctx);
	twheel_ctx_unlock(ctx);
	KUNIT_EXPECT_FALSE(test, twheel_ctx_readable(ctx));
	KUNIT_EXPECT_EQ(test, ctx_timers(ctx), 3ULL);
	twheel_ctx_destroy(ctx);
}

/* Records come out in deadline order, ties in add order, never early. */
static void twheel_ctx_expiry_order(struct kunit *test)
{
	static const int delay_ms[] = { 30, 10, 20, 10, 40, 1 };
	static const u64 want[] = { 5, 1, 3, 2, 0, 4 };
	struct twheel_ctx *ctx = ctx_new(test, 16);
	s64 start = ktime_get();
	struct twheel_event ev;
	int i;

	for (i = 0; i < ARRAY_SIZE(delay_ms); i++)
		KUNIT_ASSERT_EQ(test, ctx_add(ctx, i, start + delay_ms[i] * MS,
					      TWHEEL_ADD_ABSTIME, 0, NULL), 0);
	msleep(60);
	twheel_ctx_lock(ctx);
	twheel_ctx_run(ctx);
	for (i = 0; i < ARRAY_SIZE(want); i++) {
		KUNIT_ASSERT_TRUE(test, twheel_ctx_peek(ctx, &ev));
		KUNIT_EXPECT_EQ(test, ev.cookie, want[i]);
		KUNIT_EXPECT_GE(test, ev.time_ns, start + delay_ms[ev.cookie] * MS);
		twheel_ctx_consume(ctx);
	}
	KUNIT_EXPECT_FALSE(test, twheel_ctx_peek(ctx, &ev));
	twheel_ctx_unlock(ctx);
	twheel_ctx_destroy(ctx);
}

/* The hrtimer and the work queue records without anyone calling run. */
static void twheel_ctx_hrtimer_drives_expiry(struct kunit *test)
{
	struct twheel_ctx *ctx = ctx_new(test, 16);
	int waited = 0;

	KUNIT_ASSERT_EQ(test, ctx_add(ctx, 7, 5 * MS, 0, 0, NULL), 0);
	KUNIT_EXPECT_FALSE(test, twheel_ctx_readable(ctx));
	while (!twheel_ctx_readable(ctx) && waited < 5000) {
		fsleep(10000);
		waited += 10;
	}
	KUNIT_EXPECT_TRUE(test, twheel_ctx_readable(ctx));
	twheel_ctx_destroy(ctx);
}

/* Destroying a set with timers in every state frees them all. */
static void twheel_ctx_destroy_busy(struct kunit *test)
{
	struct twheel_ctx *ctx = ctx_new(test, 4096);
	int i;

	for (i = 0; i < 3000; i++)
		KUNIT_ASSERT_EQ(test, ctx_add(ctx, i, (i % 3) * MS, 0, i % 2,
					      NULL), 0);
	fsleep(2000);
	twheel_ctx_destroy(ctx);
}

static struct kunit_case twheel_ctx_cases[] = {
	KUNIT_CASE(twheel_time_deadline_rounds_up),
	KUNIT_CASE(twheel_time_now_rounds_down),
	KUNIT_CASE(twheel_time_never_early),
	KUNIT_CASE(twheel_time_saturates),
	KUNIT_CASE(twheel_ctx_due_now_is_queued_at_once),
	KUNIT_CASE(twheel_ctx_bad_requests_change_nothing),
	KUNIT_CASE(twheel_ctx_ids_unique_never_reused),
	KUNIT_CASE(twheel_ctx_cancel_outcomes),
	KUNIT_CASE(twheel_ctx_cap),
	KUNIT_CASE(twheel_ctx_saturated_deadlines),
	KUNIT_CASE(twheel_ctx_expiry_order),
	KUNIT_CASE(twheel_ctx_hrtimer_drives_expiry),
	KUNIT_CASE(twheel_ctx_destroy_busy),
	{}
};

static struct kunit_suite twheel_ctx_suite = {
	.name = "twheel_ctx",
	.test_cases = twheel_ctx_cases,
};

kunit_test_suite(twheel_ctx_suite);
