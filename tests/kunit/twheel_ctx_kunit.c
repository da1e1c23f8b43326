// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite of the timer set (twheel_ctx.c): read and its records,
 * destroy, CONFIG and the manual clock's ADVANCE, SUBMIT's batches, LIST,
 * and the entry points that never sleep (io_uring's inline issue).
 */
#include <kunit/test.h>
#include <linux/delay.h>
#include <linux/ktime.h>

#include "twheel_kunit.h"

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
	KUNIT_EXPECT_EQ(test, twheel_ctx_timers(ctx)->nr_queued, 2ULL);
	r.fail_at = 0;
	KUNIT_EXPECT_EQ(test, twheel_ctx_read(ctx, 1, ctx_emit, &r), 1L);
	KUNIT_EXPECT_EQ(test, twheel_ctx_read(ctx, 16, ctx_emit, &r), 1L);
	KUNIT_EXPECT_EQ(test, r.ev[0].cookie, 1ULL);
	KUNIT_EXPECT_EQ(test, r.ev[1].cookie, 2ULL);
	KUNIT_EXPECT_EQ(test, ctx_timers(ctx), 0ULL);
	twheel_ctx_destroy(ctx);
}

/*
 * One read(2), one record of a periodic timer: once a read took its
 * record (its next deadline set), that deadline passing before the read's
 * next call (which brings the wheels up to date again) leaves the record,
 * and those behind it, for the next read. echo10k's server closed a
 * connection on the first record, cancelling its timer, then met the
 * second in the same buffer.
 */
static void twheel_ctx_read_once_per_timer(struct kunit *test)
{
	struct twheel_ctx *ctx = ctx_manual(test);
	struct ctx_records *r = ctx_recs(test);
	struct twheel_read *rd = kunit_kzalloc(test, sizeof(*rd), GFP_KERNEL);
	struct twheel_op op = {
		.op = TWHEEL_OP_ADD, .cookie = 7, .expires_ns = 10 * MS,
		.period_ns = 10 * MS, .clock = CLOCK_MONOTONIC,
	};

	KUNIT_ASSERT_NOT_NULL(test, rd);
	KUNIT_ASSERT_EQ(test, ctx_do(ctx, &op, NULL), 0);
	KUNIT_ASSERT_EQ(test, ctx_add(ctx, 8, 25 * MS, 0, CLOCK_MONOTONIC,
				      NULL), 0);
	KUNIT_EXPECT_EQ(test, ctx_advance(test, ctx, 19 * MS), 19 * MS);
	/* The read's first call: its record; the next deadline is 20 ms. */
	KUNIT_ASSERT_EQ(test, twheel_ctx_read_in(ctx, rd, 16, ctx_emit, r,
						 false), 1L);
	KUNIT_EXPECT_EQ(test, r->ev[0].cookie, 7ULL);
	/* Due again, and the one-shot behind it, before the next call. */
	KUNIT_EXPECT_EQ(test, ctx_advance(test, ctx, 11 * MS), 30 * MS);
	KUNIT_EXPECT_EQ(test, twheel_ctx_timers(ctx)->nr_queued, 2ULL);
	KUNIT_EXPECT_EQ(test, twheel_ctx_read_in(ctx, rd, 16, ctx_emit, r,
						 false), 0L);
	KUNIT_EXPECT_EQ(test, twheel_ctx_timers(ctx)->nr_queued, 2ULL);
	/* The next read has both, the periodic one counting 20 and 30 ms. */
	memset(rd, 0, sizeof(*rd));
	KUNIT_ASSERT_EQ(test, twheel_ctx_read_in(ctx, rd, 16, ctx_emit, r,
						 false), 2L);
	KUNIT_EXPECT_EQ(test, r->ev[1].cookie, 7ULL);
	KUNIT_EXPECT_EQ(test, r->ev[1].count, 2ULL);
	KUNIT_EXPECT_EQ(test, r->ev[2].cookie, 8ULL);
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

static void twheel_ctx_config_rules(struct kunit *test)
{
	struct twheel_ctx *ctx = ctx_new(test, 16);
	s64 now;
	u64 id;

	KUNIT_EXPECT_EQ(test, twheel_ctx_advance(ctx, MS, ctx_now_out, &now),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, twheel_ctx_config(ctx, 999, false, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, twheel_ctx_config(ctx, 1000000001, false, 0),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, twheel_ctx_config(ctx, 1000, true, 0), 0);
	KUNIT_EXPECT_EQ(test, twheel_ctx_config(ctx, 100 * MS, false, 0), 0);
	KUNIT_EXPECT_EQ(test, twheel_ctx_timers(ctx)->clocks.tick_ns, 100ULL * MS);
	/* A maximum of timers: at most the one it was made with; 0 is that. */
	KUNIT_EXPECT_EQ(test, twheel_ctx_config(ctx, MS, false, 17), -EINVAL);
	KUNIT_EXPECT_EQ(test, twheel_ctx_config(ctx, MS, false, 2), 0);
	KUNIT_EXPECT_EQ(test, twheel_ctx_timers(ctx)->max_timers, 2ULL);
	KUNIT_EXPECT_EQ(test, twheel_ctx_config(ctx, MS, false, 0), 0);
	KUNIT_EXPECT_EQ(test, twheel_ctx_timers(ctx)->max_timers, 16ULL);
	KUNIT_EXPECT_EQ(test, twheel_ctx_config(ctx, 100 * MS, false, 0), 0);
	/* A failed add fixes nothing. */
	KUNIT_EXPECT_EQ(test, ctx_add(ctx, 1, -1, 0, CLOCK_MONOTONIC, NULL),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, twheel_ctx_config(ctx, MS, true, 0), 0);
	KUNIT_ASSERT_EQ(test, ctx_add(ctx, 1, MS, 0, CLOCK_MONOTONIC, &id), 0);
	KUNIT_EXPECT_EQ(test, twheel_ctx_config(ctx, MS, true, 0), -EBUSY);
	KUNIT_EXPECT_EQ(test, ctx_cancel(ctx, id, NULL), 0);
	KUNIT_EXPECT_EQ(test, twheel_ctx_config(ctx, MS, true, 0), -EBUSY);
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
	KUNIT_EXPECT_EQ(test, twheel_ctx_timers(ctx)->nr_queued, 4ULL);
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

/*
 * The lock held (by this task here: a trylock fails the same for any
 * holder): the entry points that never sleep do nothing and say -EAGAIN,
 * the read without sleeping (preemption off: a sleep would be reported);
 * once it is free they do their work at once.
 */
static void twheel_ctx_nowait_busy(struct kunit *test)
{
	struct twheel_ctx *ctx = ctx_manual(test);
	struct ctx_records *r = ctx_recs(test);
	struct twheel_read rd = { };
	struct twheel_op op = {
		.op = TWHEEL_OP_ADD, .cookie = 2, .expires_ns = 5 * MS,
		.clock = CLOCK_MONOTONIC,
	};
	bool locked;
	long got;
	s64 now;
	int err = 0;

	KUNIT_ASSERT_EQ(test, ctx_add(ctx, 1, MS, 0, CLOCK_MONOTONIC, NULL), 0);
	KUNIT_ASSERT_EQ(test, twheel_ctx_advance(ctx, MS, ctx_now_out, &now), 0);
	twheel_ctx_lock_update(ctx, TWHEEL_UPDATE_ALL);
	preempt_disable();
	locked = twheel_ctx_trylock_update(ctx, TWHEEL_UPDATE_RECORD);
	got = twheel_ctx_read_in(ctx, &rd, 16, ctx_emit, r, true);
	preempt_enable();
	KUNIT_EXPECT_FALSE(test, locked);
	KUNIT_EXPECT_EQ(test, got, -EAGAIN);
	KUNIT_EXPECT_EQ(test, r->n, 0U);
	KUNIT_EXPECT_EQ(test, twheel_ctx_submit_nowait(ctx, &op, 1, ctx_out_ok,
						       NULL, &err), 0U);
	KUNIT_EXPECT_EQ(test, err, -EAGAIN);
	KUNIT_EXPECT_EQ(test, op.id, 0ULL);
	KUNIT_EXPECT_EQ(test, twheel_ctx_timers(ctx)->nr_queued, 1ULL);
	twheel_ctx_unlock(ctx);

	KUNIT_EXPECT_EQ(test, twheel_ctx_read_in(ctx, &rd, 16, ctx_emit, r,
						 true), 1L);
	KUNIT_EXPECT_EQ(test, r->ev[0].cookie, 1ULL);
	KUNIT_EXPECT_EQ(test, twheel_ctx_read_in(ctx, &rd, 16, ctx_emit, r,
						 true), 0L);
	err = 0;
	KUNIT_EXPECT_EQ(test, twheel_ctx_submit_nowait(ctx, &op, 1, ctx_out_ok,
						       NULL, &err), 1U);
	KUNIT_EXPECT_EQ(test, err, 0);
	KUNIT_EXPECT_EQ(test, op.error, 0);
	KUNIT_EXPECT_NE(test, op.id, 0ULL);
	/* A result that cannot be written: undone, as without waiting. */
	op.id = 0;
	KUNIT_EXPECT_EQ(test, twheel_ctx_submit_nowait(ctx, &op, 1, ctx_fail,
						       NULL, &err), 0U);
	KUNIT_EXPECT_EQ(test, err, -EFAULT);
	KUNIT_EXPECT_EQ(test, ctx_timers(ctx), 1ULL);
	KUNIT_EXPECT_TRUE(test, twheel_ctx_trylock_update(ctx,
							  TWHEEL_UPDATE_ALL));
	twheel_ctx_unlock(ctx);
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

/*
 * On the real clock a MODIFY done alone may leave the wheel's clock behind
 * the present (twheel_op_modify_ahead()), but not for a timer due by it
 * whose hrtimer callback has not run yet: that one is QUEUED, its record
 * retracted, as after the callback. The test holds the callback off by
 * stopping the hrtimer, waits on the clock past the deadline, then does
 * what twheel_ctx_modify() does, the result kept in the kernel.
 */
static void twheel_ctx_modify_due_before_irq(struct kunit *test)
{
	struct twheel_ctx *ctx = ctx_new(test, 8);
	struct twheel_timers *tm = twheel_ctx_timers(ctx);
	struct twheel_op op = {
		.op = TWHEEL_OP_MODIFY, .expires_ns = 1000 * MS,
	};
	struct twheel_modify_ctl mc;
	s64 d = ktime_get_ns() + 2 * MS;
	u64 id;
	int ret;

	KUNIT_ASSERT_EQ(test, ctx_add(ctx, 1, d, TWHEEL_ABSTIME,
				      CLOCK_MONOTONIC, &id), 0);
	hrtimer_cancel(&tm->clocks.bases[TWHEEL_CLK_MONOTONIC]->hrtimer);
	while (ktime_get_ns() < d + 2 * MS)
		cpu_relax();
	op.id = id;
	twheel_ctx_lock_update(ctx, TWHEEL_UPDATE_ALL);
	ret = twheel_timers_modify_check(tm, &op, NULL, true, &mc);
	if (!ret)
		twheel_timers_modify_apply(tm, &op, NULL, &mc);
	twheel_ctx_unlock(ctx);
	KUNIT_ASSERT_EQ(test, ret, 0);
	KUNIT_EXPECT_EQ(test, op.result, (u32)TWHEEL_STATE_QUEUED);
	KUNIT_EXPECT_EQ(test, tm->nr_queued, 0ULL);
	KUNIT_EXPECT_EQ(test, ctx_timers(ctx), 1ULL);
	twheel_ctx_destroy(ctx);
}

static struct kunit_case twheel_ctx_cases[] = {
	KUNIT_CASE(twheel_ctx_read_keeps_unwritten),
	KUNIT_CASE(twheel_ctx_read_once_per_timer),
	KUNIT_CASE(twheel_ctx_destroy_busy),
	KUNIT_CASE(twheel_ctx_config_rules),
	KUNIT_CASE(twheel_ctx_manual_order),
	KUNIT_CASE(twheel_ctx_submit_stops),
	KUNIT_CASE(twheel_ctx_list_cursor),
	KUNIT_CASE(twheel_ctx_list_bounded),
	KUNIT_CASE(twheel_ctx_nowait_busy),
	KUNIT_CASE(twheel_ctx_modify_due_before_irq),
	{}
};

static struct kunit_suite twheel_ctx_suite = {
	.name = "twheel_ctx",
	.test_cases = twheel_ctx_cases,
};

kunit_test_suite(twheel_ctx_suite);
