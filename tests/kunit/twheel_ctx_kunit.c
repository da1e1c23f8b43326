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
#include <linux/wait.h>

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
	struct twheel_ctx *ctx = twheel_ctx_create(NULL, max,
						   TWHEEL_DEFAULT_TICK_NS);

	KUNIT_ASSERT_FALSE(test, IS_ERR(ctx));
	return ctx;
}

static int ctx_out_ok(void *arg, u32 i, const struct twheel_op *op)
{
	return 0;
}

static int ctx_fail(void *arg, u32 i, const struct twheel_op *op)
{
	return -EFAULT;
}

/* One operation: its error, or what @out returned when it failed. */
static int ctx_do(struct twheel_ctx *ctx, struct twheel_op *op,
		  int (*out)(void *arg, u32 i, const struct twheel_op *op))
{
	int err = 0;

	if (twheel_ctx_submit(ctx, op, 1, out ?: ctx_out_ok, NULL, &err) != 1)
		return err;
	return op->error;
}

static int ctx_add(struct twheel_ctx *ctx, u64 cookie, s64 ns, u32 flags,
		   u32 clock, u64 *id)
{
	struct twheel_op op = {
		.op = TWHEEL_OP_ADD, .cookie = cookie, .expires_ns = ns,
		.flags = flags, .clock = clock,
	};
	int ret;

	ret = ctx_do(ctx, &op, NULL);
	if (id)
		*id = op.id;
	return ret;
}

static int ctx_cancel(struct twheel_ctx *ctx, u64 id, u32 *result)
{
	struct twheel_op op = { .op = TWHEEL_OP_CANCEL, .id = id };
	int ret;

	ret = ctx_do(ctx, &op, NULL);
	if (result)
		*result = op.result;
	return ret;
}

static u64 ctx_timers(struct twheel_ctx *ctx)
{
	struct twheel_info info;

	twheel_ctx_info(ctx, &info);
	return info.timers;
}

/* Records handed over by twheel_ctx_read(), for the tests to look at. */
struct ctx_records {
	struct twheel_event ev[16];
	unsigned int n;
	unsigned int fail_at;	/* emit fails for this record number + 1 */
};

static int ctx_emit(void *arg, const struct twheel_event *ev, u32 n)
{
	struct ctx_records *r = arg;
	u32 i;

	for (i = 0; i < n; i++) {
		if (r->n + 1 == r->fail_at || r->n == ARRAY_SIZE(r->ev))
			break;
		r->ev[r->n++] = ev[i];
	}
	return i ? i : -EFAULT;
}

static void twheel_ctx_due_now_is_queued_at_once(struct kunit *test)
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

static void twheel_ctx_bad_requests_change_nothing(struct kunit *test)
{
	static const u32 bad_clocks[] = { 2, 3, 4, 5, 6, 8, 9, 10, 12, U32_MAX };
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
static void twheel_ctx_ids_unique_slots_reused(struct kunit *test)
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
	KUNIT_EXPECT_EQ(test, twheel_ids_bytes(&ctx->ids),
			TWHEEL_IDS_FIRST * sizeof(u64) + sizeof(void *));
	KUNIT_EXPECT_EQ(test, ctx_timers(ctx), 0ULL);
	twheel_ctx_destroy(ctx);
}

static void twheel_ctx_cancel_outcomes(struct kunit *test)
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
	KUNIT_EXPECT_EQ(test, ctx->nr_queued, 0ULL);
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
static void twheel_ctx_add_taken_back(struct kunit *test)
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

/* A record whose copy fails stays queued, and the ones after it too. */
static void twheel_ctx_read_keeps_unwritten(struct kunit *test)
{
	struct twheel_ctx *ctx = ctx_new(test, 16);
	struct ctx_records r = { .fail_at = 2 };
	int i;

	for (i = 0; i < 3; i++)
		KUNIT_ASSERT_EQ(test, ctx_add(ctx, i, 0, 0, CLOCK_MONOTONIC, NULL), 0);
	KUNIT_EXPECT_EQ(test, twheel_ctx_read(ctx, 16, ctx_emit, &r), 1L);
	KUNIT_EXPECT_EQ(test, r.ev[0].cookie, 0ULL);
	/* The first record of a call fails: the call says so. */
	r.n = 0;
	r.fail_at = 1;
	KUNIT_EXPECT_EQ(test, twheel_ctx_read(ctx, 16, ctx_emit, &r), -EFAULT);
	KUNIT_EXPECT_EQ(test, ctx->nr_queued, 2ULL);
	r.fail_at = 0;
	KUNIT_EXPECT_EQ(test, twheel_ctx_read(ctx, 1, ctx_emit, &r), 1L);
	KUNIT_EXPECT_EQ(test, twheel_ctx_read(ctx, 16, ctx_emit, &r), 1L);
	KUNIT_EXPECT_EQ(test, r.ev[0].cookie, 1ULL);
	KUNIT_EXPECT_EQ(test, r.ev[1].cookie, 2ULL);
	KUNIT_EXPECT_EQ(test, ctx_timers(ctx), 0ULL);
	twheel_ctx_destroy(ctx);
}

static void twheel_ctx_cap(struct kunit *test)
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

/* Deadlines far away are held, not wrapped into the past. */
static void twheel_ctx_saturated_deadlines(struct kunit *test)
{
	struct twheel_ctx *ctx = ctx_new(test, 16);

	KUNIT_EXPECT_EQ(test, ctx_add(ctx, 1, KTIME_MAX, 0, CLOCK_MONOTONIC, NULL), 0);
	KUNIT_EXPECT_EQ(test, ctx_add(ctx, 2, KTIME_MAX, TWHEEL_ABSTIME,
				      CLOCK_REALTIME, NULL), 0);
	KUNIT_EXPECT_EQ(test, ctx_add(ctx, 3, KTIME_MAX, 0,
				      CLOCK_BOOTTIME, NULL), 0);
	twheel_ctx_lock_update(ctx, TWHEEL_UPDATE_ALL);
	twheel_ctx_update_at(ctx, TWHEEL_CLK_MONOTONIC, KTIME_MAX - 1);
	twheel_ctx_unlock(ctx);
	KUNIT_EXPECT_FALSE(test, twheel_ctx_readable(ctx));
	KUNIT_EXPECT_EQ(test, ctx_timers(ctx), 3ULL);
	twheel_ctx_destroy(ctx);
}

/*
 * Records come out in deadline order, ties in add order, never early:
 * the deadlines are an hour ahead and the test advances the wheel itself,
 * so the outcome cannot depend on how fast the machine is.
 */
static void twheel_ctx_expiry_order(struct kunit *test)
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
	twheel_ctx_update_at(ctx, TWHEEL_CLK_MONOTONIC, start + 9 * MS + MS / 2);
	KUNIT_EXPECT_EQ(test, ctx->nr_queued, 1ULL);
	for (i = 10; i <= 60; i++)
		twheel_ctx_update_at(ctx, TWHEEL_CLK_MONOTONIC, start + i * MS);
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

/* An event that only cascades queues nothing and leaves the timer armed. */
static void twheel_ctx_cascade_queues_nothing(struct kunit *test)
{
	struct twheel_ctx *ctx = ctx_new(test, 16);
	/* 64 ticks start a new level-1 slot: a deadline 10 ticks after it. */
	s64 t0 = (ktime_get() / (64 * MS) + 3600 * 1000 / 64) * 64 * MS;
	struct twheel_base *base;

	KUNIT_ASSERT_EQ(test, ctx_add(ctx, 9, t0 + 10 * MS, TWHEEL_ABSTIME,
				      CLOCK_MONOTONIC, NULL), 0);
	twheel_ctx_lock_update(ctx, TWHEEL_UPDATE_ALL);
	base = ctx->bases[TWHEEL_CLK_MONOTONIC];
	/* From 32 ticks before the slot starts, its start is the event. */
	twheel_ctx_update_at(ctx, TWHEEL_CLK_MONOTONIC, t0 - 32 * MS);
	KUNIT_EXPECT_EQ(test, ctx->nr_queued, 0ULL);
	KUNIT_EXPECT_EQ(test, twheel_wheel_next(&base->wheel) * MS, (u64)t0);
	twheel_ctx_update_at(ctx, TWHEEL_CLK_MONOTONIC, t0);
	KUNIT_EXPECT_EQ(test, ctx->nr_queued, 0ULL);
	KUNIT_EXPECT_EQ(test, base->armed * MS, (u64)t0 + 10 * MS);
	twheel_ctx_update_at(ctx, TWHEEL_CLK_MONOTONIC, t0 + 10 * MS);
	KUNIT_EXPECT_EQ(test, ctx->nr_queued, 1ULL);
	KUNIT_EXPECT_TRUE(test, twheel_wheel_empty(&base->wheel));
	twheel_ctx_unlock(ctx);
	twheel_ctx_destroy(ctx);
}

/*
 * The hrtimer callback only marks and wakes: no record is queued until
 * someone uses the context, and then it is.
 */
static void twheel_ctx_hrtimer_only_wakes(struct kunit *test)
{
	struct twheel_ctx *ctx = ctx_new(test, 16);
	struct ctx_records r = { };
	long left;

	KUNIT_ASSERT_EQ(test, ctx_add(ctx, 7, 5 * MS, 0, CLOCK_MONOTONIC, NULL), 0);
	KUNIT_EXPECT_FALSE(test, twheel_ctx_fired(ctx));
	left = wait_event_timeout(ctx->wqh, twheel_ctx_fired(ctx), 10 * HZ);
	KUNIT_ASSERT_GT(test, left, 0L);
	KUNIT_EXPECT_FALSE(test, twheel_ctx_readable(ctx));
	KUNIT_EXPECT_EQ(test, twheel_ctx_read(ctx, 16, ctx_emit, &r), 1L);
	KUNIT_EXPECT_EQ(test, r.ev[0].cookie, 7ULL);
	KUNIT_EXPECT_FALSE(test, twheel_ctx_fired(ctx));
	twheel_ctx_destroy(ctx);
}

/*
 * The clock set back behind the wheel (as CLOCK_REALTIME can be): every
 * timer is taken out and added again, in chunks, none lost, none early,
 * ties in order.
 */
static void twheel_ctx_rebase(struct kunit *test)
{
	const int n = 3 * TWHEEL_CHUNK + 17;
	struct twheel_ctx *ctx = ctx_new(test, 4096);
	s64 t0 = ktime_get() + 3600LL * 1000 * MS;
	struct ctx_records r = { };
	struct twheel_base *base;
	long got = 0, k;
	int i;

	for (i = 0; i < n; i++)
		KUNIT_ASSERT_EQ(test, ctx_add(ctx, i, t0 + (i % 5) * MS,
					      TWHEEL_ABSTIME, CLOCK_MONOTONIC, NULL), 0);
	twheel_ctx_lock_update(ctx, TWHEEL_UPDATE_ALL);
	base = ctx->bases[TWHEEL_CLK_MONOTONIC];
	/* Run the wheel an hour ahead of the clock, then let it catch up. */
	twheel_ctx_update_at(ctx, TWHEEL_CLK_MONOTONIC, t0 - MS);
	KUNIT_EXPECT_EQ(test, ctx->nr_queued, 0ULL);
	twheel_ctx_unlock(ctx);
	atomic_inc(&ctx->fire_seq);
	twheel_ctx_lock_update(ctx, TWHEEL_UPDATE_ALL);
	KUNIT_EXPECT_TRUE(test, list_empty(&base->rebase));
	KUNIT_EXPECT_EQ(test, base->wheel.count, (u64)n);
	KUNIT_EXPECT_LT(test, base->wheel.clk * MS, (u64)t0 - MS);
	twheel_ctx_update_at(ctx, TWHEEL_CLK_MONOTONIC, t0 + 10 * MS);
	twheel_ctx_unlock(ctx);
	/* Deadline order, ties in add order: cookies 0, 5, 10, ..., 1, 6, ... */
	for (i = 0; i < n; i += r.n) {
		r.n = 0;
		k = twheel_ctx_read(ctx, ARRAY_SIZE(r.ev), ctx_emit, &r);
		KUNIT_ASSERT_GT(test, k, 0L);
		for (k = 0; k < r.n; k++, got++) {
			int d = 0, m = got;

			while (m >= (n - d + 4) / 5) {
				m -= (n - d + 4) / 5;
				d++;
			}
			KUNIT_EXPECT_EQ(test, r.ev[k].cookie, (u64)(d + 5 * m));
		}
	}
	KUNIT_EXPECT_EQ(test, got, (long)n);
	twheel_ctx_destroy(ctx);
}

/* Destroying a set with timers in every state frees them all. */
static void twheel_ctx_destroy_busy(struct kunit *test)
{
	struct twheel_ctx *ctx = ctx_new(test, 4096);
	int i;

	for (i = 0; i < 3000; i++)
		KUNIT_ASSERT_EQ(test, ctx_add(ctx, i, (i % 3) * MS, 0,
					      i % 2 ? CLOCK_MONOTONIC : CLOCK_TAI,
					      NULL), 0);
	fsleep(2000);
	twheel_ctx_destroy(ctx);
}

/* Records on the heap: the stack of a KASAN kernel is tight. */
static struct ctx_records *ctx_recs(struct kunit *test)
{
	struct ctx_records *r = kunit_kzalloc(test, sizeof(*r), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, r);
	return r;
}

static void twheel_ctx_clock_index(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, twheel_clock_index(CLOCK_MONOTONIC),
			(int)TWHEEL_CLK_MONOTONIC);
	KUNIT_EXPECT_EQ(test, twheel_clock_index(CLOCK_BOOTTIME),
			(int)TWHEEL_CLK_BOOTTIME);
	KUNIT_EXPECT_EQ(test, twheel_clock_index(CLOCK_REALTIME),
			(int)TWHEEL_CLK_REALTIME);
	KUNIT_EXPECT_EQ(test, twheel_clock_index(CLOCK_TAI),
			(int)TWHEEL_CLK_TAI);
	KUNIT_EXPECT_EQ(test, twheel_clock_index(CLOCK_MONOTONIC_RAW), -EINVAL);
	KUNIT_EXPECT_EQ(test, twheel_clock_index(CLOCK_BOOTTIME_ALARM),
			-EINVAL);
}

/* A context on a manual clock with a 1 ms tick. */
static struct twheel_ctx *ctx_manual(struct kunit *test)
{
	struct twheel_ctx *ctx = ctx_new(test, 4096);

	KUNIT_ASSERT_EQ(test, twheel_ctx_config(ctx, MS, true), 0);
	return ctx;
}

static int ctx_now_out(void *arg, s64 now_ns)
{
	*(s64 *)arg = now_ns;
	return 0;
}

static int ctx_now_fail(void *arg, s64 now_ns)
{
	return -EFAULT;
}

static s64 ctx_advance(struct kunit *test, struct twheel_ctx *ctx, s64 ns)
{
	s64 now = -1;

	KUNIT_EXPECT_EQ(test, twheel_ctx_advance(ctx, ns, ctx_now_out, &now),
			0);
	return now;
}

static struct twheel_op ctx_query(struct twheel_ctx *ctx, u64 id)
{
	struct twheel_op op = { .op = TWHEEL_OP_QUERY, .id = id };

	ctx_do(ctx, &op, NULL);
	return op;
}

static void twheel_ctx_config_rules(struct kunit *test)
{
	struct twheel_ctx *ctx = ctx_new(test, 16);
	s64 now;
	u64 id;

	KUNIT_EXPECT_EQ(test, twheel_ctx_advance(ctx, MS, ctx_now_out, &now),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, twheel_ctx_config(ctx, 999, false), -EINVAL);
	KUNIT_EXPECT_EQ(test, twheel_ctx_config(ctx, 1000000001, false),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, twheel_ctx_config(ctx, 1000, true), 0);
	KUNIT_EXPECT_EQ(test, twheel_ctx_config(ctx, 100 * MS, false), 0);
	KUNIT_EXPECT_EQ(test, ctx->tick_ns, 100ULL * MS);
	/* A failed add fixes nothing. */
	KUNIT_EXPECT_EQ(test, ctx_add(ctx, 1, -1, 0, CLOCK_MONOTONIC, NULL),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, twheel_ctx_config(ctx, MS, true), 0);
	KUNIT_ASSERT_EQ(test, ctx_add(ctx, 1, MS, 0, CLOCK_MONOTONIC, &id), 0);
	KUNIT_EXPECT_EQ(test, twheel_ctx_config(ctx, MS, true), -EBUSY);
	KUNIT_EXPECT_EQ(test, ctx_cancel(ctx, id, NULL), 0);
	KUNIT_EXPECT_EQ(test, twheel_ctx_config(ctx, MS, true), -EBUSY);
	/* A time that cannot be handed over does not move the clock. */
	KUNIT_EXPECT_EQ(test, twheel_ctx_advance(ctx, 5, ctx_now_fail, NULL),
			-EFAULT);
	KUNIT_EXPECT_EQ(test, ctx_advance(test, ctx, 5), 5LL);
	KUNIT_EXPECT_EQ(test, ctx_advance(test, ctx, U64_MAX), KTIME_MAX);
	twheel_ctx_destroy(ctx);
}

/* The manual clock: everything due is queued by the advance, in order. */
static void twheel_ctx_manual_order(struct kunit *test)
{
	static const int delay_ms[] = { 30, 10, 20, 10, 40, 1 };
	static const u64 want[] = { 5, 1, 3, 2, 0 };
	struct twheel_ctx *ctx = ctx_manual(test);
	struct ctx_records *r = ctx_recs(test);
	int i;

	/* Order holds within a clock: the one not due runs on another. */
	for (i = 0; i < ARRAY_SIZE(delay_ms); i++)
		KUNIT_ASSERT_EQ(test, ctx_add(ctx, i, delay_ms[i] * MS, 0,
					      i == 4 ? CLOCK_BOOTTIME :
					      CLOCK_MONOTONIC, NULL), 0);
	KUNIT_EXPECT_EQ(test, ctx_advance(test, ctx, 30 * MS - 1),
			30 * MS - 1);
	KUNIT_EXPECT_EQ(test, ctx->nr_queued, 4ULL);
	KUNIT_EXPECT_EQ(test, ctx_advance(test, ctx, 1), 30 * MS);
	KUNIT_ASSERT_EQ(test, twheel_ctx_read(ctx, 16, ctx_emit, r), 5L);
	for (i = 0; i < ARRAY_SIZE(want); i++)
		KUNIT_EXPECT_EQ(test, r->ev[i].cookie, want[i]);
	/* Queued by the advance, at the manual clock's time then. */
	KUNIT_EXPECT_EQ(test, r->ev[0].time_ns, 30 * MS - 1);
	KUNIT_EXPECT_EQ(test, r->ev[4].time_ns, 30 * MS);
	KUNIT_EXPECT_EQ(test, ctx_timers(ctx), 1ULL);
	/* Every clock runs on the one manual clock. */
	KUNIT_EXPECT_EQ(test, ctx_advance(test, ctx, 10 * MS), 40 * MS);
	r->n = 0;
	KUNIT_ASSERT_EQ(test, twheel_ctx_read(ctx, 16, ctx_emit, r), 1L);
	KUNIT_EXPECT_EQ(test, r->ev[0].clock, (u32)CLOCK_BOOTTIME);
	KUNIT_EXPECT_EQ(test, r->ev[0].time_ns, 40 * MS);
	twheel_ctx_destroy(ctx);
}

/* timerfd's semantics: a 50 ms timer left unread for 160 ms reads 3. */
static void twheel_ctx_periodic_counts(struct kunit *test)
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
	KUNIT_EXPECT_EQ(test, ctx->nr_queued, 1ULL);
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
	KUNIT_EXPECT_EQ(test, ctx->nr_queued, 0ULL);
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

static void twheel_ctx_modify(struct kunit *test)
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
	KUNIT_EXPECT_EQ(test, ctx->nr_queued, 0ULL);
	ctx_advance(test, ctx, 10 * MS);
	KUNIT_EXPECT_EQ(test, ctx->nr_queued, 2ULL);
	/* Modify of a queued timer retracts its record. */
	m.expires_ns = 5 * MS;
	m.flags = TWHEEL_SET_COOKIE;
	KUNIT_EXPECT_EQ(test, ctx_do(ctx, &m, NULL), 0);
	KUNIT_EXPECT_EQ(test, m.result, (u32)TWHEEL_STATE_QUEUED);
	KUNIT_EXPECT_EQ(test, ctx->nr_queued, 1ULL);
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

/* A batch that cannot hand an operation over stops there, it undone. */
static int ctx_fail_second(void *arg, u32 i, const struct twheel_op *op)
{
	return i == 1 ? -EFAULT : 0;
}

static void twheel_ctx_submit_stops(struct kunit *test)
{
	struct twheel_ctx *ctx = ctx_manual(test);
	struct twheel_op *ops = kunit_kcalloc(test, 3, sizeof(*ops), GFP_KERNEL);
	int i, err = 0;

	KUNIT_ASSERT_NOT_NULL(test, ops);

	for (i = 0; i < 3; i++)
		ops[i] = (struct twheel_op){ .op = TWHEEL_OP_ADD,
			.expires_ns = i * MS, .period_ns = i * MS,
			.clock = CLOCK_MONOTONIC };
	KUNIT_EXPECT_EQ(test, twheel_ctx_submit(ctx, ops, 3, ctx_fail_second,
						NULL, &err), 1U);
	KUNIT_EXPECT_EQ(test, err, -EFAULT);
	KUNIT_EXPECT_EQ(test, ctx_timers(ctx), 1ULL);
	KUNIT_EXPECT_NE(test, ops[0].id, 0ULL);
	/* A failing operation does not stop the batch. */
	ops[1].clock = 4;
	err = 0;
	KUNIT_EXPECT_EQ(test, twheel_ctx_submit(ctx, ops, 3, ctx_out_ok, NULL,
						&err), 3U);
	KUNIT_EXPECT_EQ(test, err, 0);
	KUNIT_EXPECT_EQ(test, ops[1].error, -EINVAL);
	KUNIT_EXPECT_EQ(test, ops[1].id, 0ULL);
	KUNIT_EXPECT_EQ(test, ops[2].error, 0);
	KUNIT_EXPECT_EQ(test, ctx_timers(ctx), 3ULL);
	twheel_ctx_destroy(ctx);
}

/* A listing sees every timer that stays exactly once. */
static void twheel_ctx_list_cursor(struct kunit *test)
{
	const int n = 300;
	struct twheel_ctx *ctx = ctx_manual(test);
	struct twheel_status st[7];
	unsigned long *seen;
	u64 cursor = 0, *ids;
	int i, got = 0;
	u32 k, j;

	seen = kunit_kzalloc(test, BITS_TO_LONGS(n) * sizeof(long),
			     GFP_KERNEL);
	ids = kunit_kcalloc(test, n, sizeof(*ids), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, seen);
	KUNIT_ASSERT_NOT_NULL(test, ids);
	for (i = 0; i < n; i++)
		KUNIT_ASSERT_EQ(test, ctx_add(ctx, i, (i + 1) * MS, 0,
					      CLOCK_MONOTONIC, &ids[i]), 0);
	for (i = 0; i < n; i += 3)
		KUNIT_ASSERT_EQ(test, ctx_cancel(ctx, ids[i], NULL), 0);
	do {
		k = twheel_ctx_list(ctx, &cursor, st, ARRAY_SIZE(st));
		for (j = 0; j < k; j++) {
			i = st[j].cookie;
			KUNIT_ASSERT_LT(test, i, n);
			KUNIT_EXPECT_EQ(test, st[j].id, ids[i]);
			KUNIT_EXPECT_NE(test, i % 3, 0);
			KUNIT_EXPECT_FALSE(test, __test_and_set_bit(i, seen));
			KUNIT_EXPECT_EQ(test, st[j].deadline_ns, (i + 1) * MS);
			KUNIT_EXPECT_EQ(test, st[j].state,
					(u32)TWHEEL_STATE_PENDING);
			got++;
		}
	} while (cursor);
	KUNIT_EXPECT_EQ(test, got, 200);
	twheel_ctx_destroy(ctx);
}

/* A listing looks at no more than TWHEEL_CHUNK id slots per hold. */
static void twheel_ctx_list_bounded(struct kunit *test)
{
	const int n = 3 * TWHEEL_CHUNK + 10;
	struct twheel_ctx *ctx = ctx_new(test, n);
	struct twheel_status st[4];
	u64 cursor = 0, last;
	int i, calls = 0, got = 0;
	u32 k;
	u64 *ids = kunit_kcalloc(test, n, sizeof(*ids), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, ids);
	/* n slots, of which only the last holds a live timer. */
	for (i = 0; i < n; i++)
		KUNIT_ASSERT_EQ(test, ctx_add(ctx, i, 3600LL * 1000 * MS, 0,
					      CLOCK_MONOTONIC, &ids[i]), 0);
	for (i = 0; i < n - 1; i++)
		KUNIT_ASSERT_EQ(test, ctx_cancel(ctx, ids[i], NULL), 0);
	last = ids[n - 1];
	KUNIT_ASSERT_EQ(test, ctx_timers(ctx), 1ULL);
	do {
		k = twheel_ctx_list(ctx, &cursor, st, ARRAY_SIZE(st));
		calls++;
		/* Each call ends at most TWHEEL_CHUNK slots further on. */
		KUNIT_EXPECT_TRUE(test, !cursor ||
				  cursor == (u64)calls * TWHEEL_CHUNK);
		if (k)
			KUNIT_EXPECT_EQ(test, st[0].id, last);
		got += k;
	} while (cursor && calls < 100);
	KUNIT_EXPECT_EQ(test, got, 1);
	KUNIT_EXPECT_EQ(test, calls, DIV_ROUND_UP(n, TWHEEL_CHUNK));
	twheel_ctx_destroy(ctx);
}

/* A wheel holds the levels its timers use, and frees them when empty. */
static void twheel_ctx_levels_follow_use(struct kunit *test)
{
	struct twheel_ctx *ctx = ctx_new(test, 16);
	struct ctx_records *r;
	struct twheel_wheel *w;
	u64 a, b;
	int i;

	KUNIT_ASSERT_EQ(test, twheel_ctx_config(ctx, MS, true), 0);
	r = kunit_kzalloc(test, sizeof(*r), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, r);
	/* Level 0: under 64 ticks; level 2: 4096 to 262143 ticks. */
	KUNIT_ASSERT_EQ(test, ctx_add(ctx, 1, 10 * MS, 0, CLOCK_MONOTONIC,
				      &a), 0);
	w = &ctx->bases[TWHEEL_CLK_MONOTONIC]->wheel;
	KUNIT_EXPECT_NOT_NULL(test, w->lvl[0]);
	for (i = 1; i < TWHEEL_LEVELS; i++)
		KUNIT_EXPECT_NULL(test, w->lvl[i]);
	KUNIT_ASSERT_EQ(test, ctx_add(ctx, 2, 5000 * MS, 0, CLOCK_MONOTONIC,
				      &b), 0);
	KUNIT_EXPECT_NOT_NULL(test, w->lvl[2]);
	KUNIT_EXPECT_NULL(test, w->lvl[1]);
	/* An empty wheel keeps no level. */
	KUNIT_EXPECT_EQ(test, ctx_cancel(ctx, a, NULL), 0);
	KUNIT_EXPECT_EQ(test, ctx_cancel(ctx, b, NULL), 0);
	for (i = 0; i < TWHEEL_LEVELS; i++)
		KUNIT_EXPECT_NULL(test, w->lvl[i]);
	/* Cascades take the levels they need, and give them back. */
	KUNIT_ASSERT_EQ(test, ctx_add(ctx, 3, 5000 * MS, 0, CLOCK_MONOTONIC,
				      &b), 0);
	ctx_advance(test, ctx, 4999 * MS);
	KUNIT_EXPECT_EQ(test, ctx->nr_queued, 0ULL);
	KUNIT_EXPECT_NULL(test, w->lvl[2]);
	ctx_advance(test, ctx, MS);
	KUNIT_ASSERT_EQ(test, twheel_ctx_read(ctx, 16, ctx_emit, r), 1L);
	KUNIT_EXPECT_EQ(test, r->ev[0].id, b);
	KUNIT_EXPECT_EQ(test, r->ev[0].time_ns, 5000 * MS);
	for (i = 0; i < TWHEEL_LEVELS; i++)
		KUNIT_EXPECT_NULL(test, w->lvl[i]);
	twheel_ctx_destroy(ctx);
}

/* A periodic timer whose first deadline is far in the past goes on. */
static void twheel_ctx_periodic_far_past(struct kunit *test)
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

static struct kunit_case twheel_ctx_cases[] = {
	KUNIT_CASE(twheel_time_deadline_rounds_up),
	KUNIT_CASE(twheel_time_now_rounds_down),
	KUNIT_CASE(twheel_time_never_early),
	KUNIT_CASE(twheel_time_saturates),
	KUNIT_CASE(twheel_ctx_due_now_is_queued_at_once),
	KUNIT_CASE(twheel_ctx_bad_requests_change_nothing),
	KUNIT_CASE(twheel_ctx_ids_unique_slots_reused),
	KUNIT_CASE(twheel_ctx_cancel_outcomes),
	KUNIT_CASE(twheel_ctx_add_taken_back),
	KUNIT_CASE(twheel_ctx_read_keeps_unwritten),
	KUNIT_CASE(twheel_ctx_cap),
	KUNIT_CASE(twheel_ctx_saturated_deadlines),
	KUNIT_CASE(twheel_ctx_expiry_order),
	KUNIT_CASE(twheel_ctx_cascade_queues_nothing),
	KUNIT_CASE(twheel_ctx_hrtimer_only_wakes),
	KUNIT_CASE(twheel_ctx_rebase),
	KUNIT_CASE(twheel_ctx_destroy_busy),
	KUNIT_CASE(twheel_ctx_clock_index),
	KUNIT_CASE(twheel_ctx_config_rules),
	KUNIT_CASE(twheel_ctx_manual_order),
	KUNIT_CASE(twheel_ctx_periodic_counts),
	KUNIT_CASE(twheel_ctx_modify),
	KUNIT_CASE(twheel_ctx_submit_stops),
	KUNIT_CASE(twheel_ctx_list_cursor),
	KUNIT_CASE(twheel_ctx_list_bounded),
	KUNIT_CASE(twheel_ctx_levels_follow_use),
	KUNIT_CASE(twheel_ctx_periodic_far_past),
	{}
};

static struct kunit_suite twheel_ctx_suite = {
	.name = "twheel_ctx",
	.test_cases = twheel_ctx_cases,
};

kunit_test_suite(twheel_ctx_suite);
