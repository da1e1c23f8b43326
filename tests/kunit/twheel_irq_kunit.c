// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite of the work an hrtimer callback does itself (twheel_irq.c):
 * on a set without a table, an early event wakes nobody and an expiry
 * wakes the waiters; on a set with a shared table, timers whose entry
 * pushed them later are
 * put back into the wheel with nobody woken (fire_seq unchanged), at the
 * tick the update would have put them, and a cascade (the callback's or
 * the task's) places a pushed timer by its later deadline at once;
 * timers cancelled by their entry
 * are parked with nobody woken (fire_seq bumped, so the next update in a
 * task ends them, counted once); a real expiry, a level the wheel lacks,
 * or the per-user rate bound fall back to the wake-up, and the set's task
 * then does the rest as before, records in order; an advance longer than
 * the per-interrupt budget goes on in a later callback; an alarm base's
 * callback keeps its alarm armed when it leaves work to the task. The
 * callback's work is called directly, with a given present (on a manual
 * clock, or an hour ahead of a real one): no test depends on the
 * machine's speed.
 */
#include <kunit/test.h>
#include <linux/alarmtimer.h>
#include <linux/delay.h>
#include <linux/jiffies.h>
#include <linux/timekeeping.h>

#include "twheel_irq.h"
#include "twheel_kunit.h"
#include "twheel_user.h"

/* The callback's work at @now_ns, as the hrtimer would run it. */
static bool irq_at(struct twheel_ctx *ctx, s64 now_ns)
{
	return twheel_irq_run(twheel_ctx_timers(ctx), mono(ctx), now_ns);
}

/* Move the manual clock with no update and no kick (as time passes). */
static void manual_to(struct twheel_ctx *ctx, s64 now_ns)
{
	twheel_ctx_lock_update(ctx, TWHEEL_UPDATE_ALL);
	twheel_ctx_timers(ctx)->clocks.manual_ns = now_ns;
	twheel_ctx_unlock(ctx);
}

static int fire_seq(struct twheel_ctx *ctx)
{
	return atomic_read(&twheel_ctx_timers(ctx)->clocks.fire_seq);
}

/* The callback's work at @now_ns is all there was: it wakes nobody. */
static void irq_quiet(struct kunit *test, struct twheel_ctx *ctx, s64 now_ns)
{
	int seq = fire_seq(ctx);

	KUNIT_EXPECT_TRUE(test, irq_at(ctx, now_ns));
	KUNIT_EXPECT_EQ(test, fire_seq(ctx), seq);
}

static void twheel_irq_pushed_wake_nobody(struct kunit *test)
{
	struct twheel_ctx *ctx = ctx_table(test);
	struct ctx_records *r = ctx_recs(test);
	u64 a, b;

	KUNIT_ASSERT_EQ(test, ctx_add(ctx, 1, 10 * MS, 0, CLOCK_MONOTONIC,
				      &a), 0);
	KUNIT_ASSERT_EQ(test, ctx_add(ctx, 2, 10 * MS, 0, CLOCK_MONOTONIC,
				      &b), 0);
	store(ctx, a, TWHEEL_TABLE_DEADLINE(a, 30));
	store(ctx, b, TWHEEL_TABLE_DEADLINE(b, 30));
	irq_quiet(test, ctx, 10 * MS);
	KUNIT_EXPECT_EQ(test, mono(ctx)->wheel.clk, 10ULL);
	/* Armed for the new deadline, as the update would arm it. */
	KUNIT_EXPECT_EQ(test, mono(ctx)->armed, 30ULL);
	KUNIT_EXPECT_EQ(test, ctx_query(ctx, a).expires_ns, 30 * MS);
	KUNIT_EXPECT_EQ(test, ctx_query(ctx, b).expires_ns, 30 * MS);
	KUNIT_EXPECT_EQ(test, ctx_timers(ctx), 2ULL);
	/* The update in the task finds nothing to do (manual time 20). */
	ctx_advance(test, ctx, 20 * MS);
	KUNIT_EXPECT_FALSE(test, twheel_ctx_readable(ctx));
	/* Nothing due: the callback again wakes nobody. */
	irq_quiet(test, ctx, 25 * MS);
	/* Never early, never twice, in order (manual time: 29, then 30). */
	ctx_advance(test, ctx, 9 * MS);
	KUNIT_EXPECT_FALSE(test, twheel_ctx_readable(ctx));
	ctx_advance(test, ctx, MS);
	KUNIT_ASSERT_EQ(test, twheel_ctx_read(ctx, 16, ctx_emit, r), 2L);
	KUNIT_EXPECT_EQ(test, r->ev[0].id, a);
	KUNIT_EXPECT_EQ(test, r->ev[1].id, b);
	KUNIT_EXPECT_EQ(test, r->ev[0].time_ns, 30 * MS);
	KUNIT_EXPECT_EQ(test, ctx_timers(ctx), 0ULL);
	twheel_ctx_destroy(ctx);
}

/*
 * Cancelled by their entry, one-shot and periodic: parked, nobody woken;
 * the next update (here INFO's) ends them, counted once, entries zeroed.
 */
static void twheel_irq_cancel_wakes_nobody(struct kunit *test)
{
	struct twheel_ctx *ctx = ctx_table(test);
	struct ctx_records *r = ctx_recs(test);
	struct twheel_op op = {
		.op = TWHEEL_OP_ADD, .expires_ns = 10 * MS,
		.period_ns = 10 * MS, .clock = CLOCK_MONOTONIC,
	};
	struct twheel_info info = { };
	u64 a, b, c;
	int seq;

	KUNIT_ASSERT_EQ(test, ctx_add(ctx, 1, 10 * MS, 0, CLOCK_MONOTONIC,
				      &a), 0);
	KUNIT_ASSERT_EQ(test, ctx_do(ctx, &op, NULL), 0);
	b = op.id;
	KUNIT_ASSERT_EQ(test, ctx_add(ctx, 3, 10 * MS, 0, CLOCK_MONOTONIC,
				      &c), 0);
	store(ctx, a, TWHEEL_TABLE_CANCELLED(a));
	store(ctx, b, TWHEEL_TABLE_CANCELLED(b));
	store(ctx, c, TWHEEL_TABLE_DEADLINE(c, 30));
	manual_to(ctx, 10 * MS);
	seq = fire_seq(ctx);
	KUNIT_EXPECT_TRUE(test, irq_at(ctx, 10 * MS));
	/* Marked for the next update, with no wake-up. */
	KUNIT_EXPECT_EQ(test, fire_seq(ctx), seq + 1);
	KUNIT_EXPECT_EQ(test, mono(ctx)->armed, 30ULL);
	KUNIT_EXPECT_FALSE(test, twheel_ctx_readable(ctx));
	twheel_ctx_info(ctx, &info);
	KUNIT_EXPECT_EQ(test, info.cancelled, 2ULL);
	KUNIT_EXPECT_EQ(test, info.timers, 1ULL);
	KUNIT_EXPECT_EQ(test, *twheel_table_entry(&twheel_ctx_timers(ctx)->table,
						  twheel_table_slot(a)), 0ULL);
	KUNIT_EXPECT_EQ(test, *twheel_table_entry(&twheel_ctx_timers(ctx)->table,
						  twheel_table_slot(b)), 0ULL);
	KUNIT_EXPECT_EQ(test, ctx_cancel(ctx, a, NULL), -ENOENT);
	KUNIT_EXPECT_EQ(test, ctx_cancel(ctx, b, NULL), -ENOENT);
	KUNIT_EXPECT_FALSE(test, twheel_ctx_readable(ctx));
	/* Manual time 30: only c, once. */
	ctx_advance(test, ctx, 20 * MS);
	KUNIT_ASSERT_EQ(test, twheel_ctx_read(ctx, 16, ctx_emit, r), 1L);
	KUNIT_EXPECT_EQ(test, r->ev[0].id, c);
	KUNIT_EXPECT_EQ(test, r->ev[0].time_ns, 30 * MS);
	twheel_ctx_info(ctx, &info);
	KUNIT_EXPECT_EQ(test, info.cancelled, 2ULL);
	KUNIT_EXPECT_EQ(test, info.timers, 0ULL);
	twheel_ctx_destroy(ctx);
}

/*
 * Timers parked by a callback that also fell back (another timer
 * expired), named by an ioctl before any update ran: CANCEL ends one as
 * a pending timer (the ioctl's outcome, not counted as the table's),
 * MODIFY's own update ends the other (ENOENT, counted); the wheel's count
 * stays right and the expiry comes once.
 */
static void twheel_irq_parked_then_ioctl(struct kunit *test)
{
	struct twheel_ctx *ctx = ctx_table(test);
	struct ctx_records *r = ctx_recs(test);
	struct twheel_info info = { };
	u32 result = 0;
	u64 a, b, c;

	ctx_add3(test, ctx, 10 * MS, &a, &b, &c);
	store(ctx, a, TWHEEL_TABLE_CANCELLED(a));
	store(ctx, c, TWHEEL_TABLE_CANCELLED(c));
	manual_to(ctx, 10 * MS);
	/* b expires: the callback's caller is to wake the waiters. */
	KUNIT_EXPECT_FALSE(test, irq_at(ctx, 10 * MS));
	KUNIT_EXPECT_EQ(test, mono(ctx)->wheel.count, 3ULL);
	KUNIT_EXPECT_EQ(test, ctx_cancel(ctx, a, &result), 0);
	KUNIT_EXPECT_EQ(test, result, (u32)TWHEEL_STATE_PENDING);
	KUNIT_EXPECT_EQ(test, mono(ctx)->wheel.count, 2ULL);
	KUNIT_EXPECT_EQ(test, ctx_modify(ctx, c, 50 * MS), -ENOENT);
	twheel_ctx_info(ctx, &info);
	KUNIT_EXPECT_EQ(test, info.cancelled, 1ULL);
	KUNIT_EXPECT_EQ(test, info.timers, 1ULL);
	ctx_advance(test, ctx, MS);
	KUNIT_ASSERT_EQ(test, twheel_ctx_read(ctx, 16, ctx_emit, r), 1L);
	KUNIT_EXPECT_EQ(test, r->ev[0].id, b);
	KUNIT_EXPECT_EQ(test, mono(ctx)->wheel.count, 0ULL);
	KUNIT_EXPECT_EQ(test, ctx_timers(ctx), 0ULL);
	twheel_ctx_destroy(ctx);
}

/*
 * Four timers due at tick 100, in level 1 (ticks 64 to 127) until its
 * cascade at tick 64; their entries: a pushed to 300, b as the kernel
 * wrote it, c an earlier deadline (50), d cancelled.
 */
static void rekey_setup(struct kunit *test, struct twheel_ctx *ctx, u64 *id)
{
	int i;

	for (i = 0; i < 4; i++)
		KUNIT_ASSERT_EQ(test, ctx_add(ctx, i, 100 * MS, 0,
					      CLOCK_MONOTONIC, &id[i]), 0);
	store(ctx, id[0], TWHEEL_TABLE_DEADLINE(id[0], 300));
	store(ctx, id[2], TWHEEL_TABLE_DEADLINE(id[2], 50));
	store(ctx, id[3], TWHEEL_TABLE_CANCELLED(id[3]));
}

/*
 * After the cascade, at manual time @now_ns: a is placed for 300; b, c and d stay for 100, where
 * b and c expire in order and d ends; a comes at 300, never before.
 */
static void rekey_check(struct kunit *test, struct twheel_ctx *ctx,
			const u64 *id, s64 now_ns)
{
	struct ctx_records *r = ctx_recs(test);
	int i;

	KUNIT_EXPECT_EQ(test, ctx_query(ctx, id[0]).expires_ns, 300 * MS);
	for (i = 1; i < 4; i++)
		KUNIT_EXPECT_EQ(test, ctx_query(ctx, id[i]).expires_ns,
				100 * MS);
	KUNIT_EXPECT_EQ(test, ctx_timers(ctx), 4ULL);
	ctx_advance(test, ctx, 100 * MS - now_ns);
	KUNIT_ASSERT_EQ(test, twheel_ctx_read(ctx, 16, ctx_emit, r), 2L);
	KUNIT_EXPECT_EQ(test, r->ev[0].id, id[1]);
	KUNIT_EXPECT_EQ(test, r->ev[1].id, id[2]);
	KUNIT_EXPECT_EQ(test, ctx_timers(ctx), 1ULL);
	ctx_advance(test, ctx, 199 * MS);
	KUNIT_EXPECT_FALSE(test, twheel_ctx_readable(ctx));
	ctx_advance(test, ctx, MS);
	KUNIT_ASSERT_EQ(test, twheel_ctx_read(ctx, 16, ctx_emit, r), 1L);
	KUNIT_EXPECT_EQ(test, r->ev[2].id, id[0]);
	KUNIT_EXPECT_EQ(test, r->ev[2].time_ns, 300 * MS);
	KUNIT_EXPECT_EQ(test, ctx_timers(ctx), 0ULL);
}

/*
 * The callback's cascade at tick 64 asks the table: the pushed timer goes
 * by its later deadline at once, with nobody woken and no callback at its
 * old one (armed for 100). Level 0, which the cascade needs and the
 * callback cannot allocate, is there for a fifth timer (tick 63), pushed
 * back by its entry in the same callback, then cancelled.
 */
static void twheel_irq_cascade_rekey(struct kunit *test)
{
	struct twheel_ctx *ctx = ctx_table(test);
	u32 result;
	u64 id[4], e;

	rekey_setup(test, ctx, id);
	KUNIT_ASSERT_EQ(test, ctx_add(ctx, 4, 63 * MS, 0, CLOCK_MONOTONIC, &e),
			0);
	store(ctx, e, TWHEEL_TABLE_DEADLINE(e, 1000));
	irq_quiet(test, ctx, 64 * MS);
	KUNIT_EXPECT_EQ(test, mono(ctx)->wheel.clk, 64ULL);
	KUNIT_EXPECT_EQ(test, mono(ctx)->armed, 100ULL);
	KUNIT_EXPECT_EQ(test, ctx_query(ctx, e).expires_ns, 1000 * MS);
	KUNIT_EXPECT_EQ(test, ctx_cancel(ctx, e, &result), 0);
	KUNIT_EXPECT_EQ(test, result, (u32)TWHEEL_STATE_PENDING);
	rekey_check(test, ctx, id, 0);
	twheel_ctx_destroy(ctx);
}

/* The same cascade done by the task's update (a manual ADVANCE). */
static void twheel_update_cascade_rekey(struct kunit *test)
{
	struct twheel_ctx *ctx = ctx_table(test);
	u64 id[4];

	rekey_setup(test, ctx, id);
	ctx_advance(test, ctx, 64 * MS);
	KUNIT_EXPECT_EQ(test, mono(ctx)->wheel.clk, 64ULL);
	KUNIT_EXPECT_FALSE(test, twheel_ctx_readable(ctx));
	rekey_check(test, ctx, id, 64 * MS);
	twheel_ctx_destroy(ctx);
}

/*
 * Without a table: an event that comes early (nothing due) wakes nobody;
 * a timer that falls due wakes the waiters, record in order.
 */
static void twheel_irq_plain_set(struct kunit *test)
{
	struct twheel_ctx *ctx = ctx_new(test, 64);
	struct ctx_records *r = ctx_recs(test);
	u64 a;

	KUNIT_ASSERT_EQ(test, twheel_ctx_config(ctx, MS, TWHEEL_CONFIG_MANUAL,
						0), 0);
	KUNIT_ASSERT_EQ(test, ctx_add(ctx, 1, 10 * MS, 0, CLOCK_MONOTONIC,
				      &a), 0);
	KUNIT_EXPECT_EQ(test, mono(ctx)->armed, 10ULL);
	/* Later: the hrtimer follows (twheel_base_follows_first). */
	KUNIT_ASSERT_EQ(test, ctx_modify(ctx, a, 30 * MS), 0);
	KUNIT_EXPECT_EQ(test, mono(ctx)->armed, 30ULL);
	/* A callback at tick 10 all the same (one that ran early). */
	manual_to(ctx, 10 * MS);
	irq_quiet(test, ctx, 10 * MS);
	KUNIT_EXPECT_EQ(test, mono(ctx)->armed, 30ULL);
	manual_to(ctx, 30 * MS);
	KUNIT_EXPECT_FALSE(test, irq_at(ctx, 30 * MS));
	KUNIT_EXPECT_FALSE(test, twheel_ctx_readable(ctx));
	/* What the waker's update then does: the record, once. */
	ctx_advance(test, ctx, 0);
	KUNIT_ASSERT_EQ(test, twheel_ctx_read(ctx, 16, ctx_emit, r), 1L);
	KUNIT_EXPECT_EQ(test, r->ev[0].id, a);
	KUNIT_EXPECT_EQ(test, r->ev[0].time_ns, 30 * MS);
	KUNIT_EXPECT_EQ(test, ctx_timers(ctx), 0ULL);
	twheel_ctx_destroy(ctx);
}

/* The timers that really expire come first in line, in their order. */
static void twheel_irq_expiry_falls_back(struct kunit *test)
{
	struct twheel_ctx *ctx = ctx_table(test);
	struct ctx_records *r = ctx_recs(test);
	struct twheel_info info = { };
	u64 a, b, c, d;
	int seq;

	/* B first in line: the callback reads on (see twheel_irq_read). */
	ctx_add3(test, ctx, 10 * MS, &b, &a, &c);
	KUNIT_ASSERT_EQ(test, ctx_add(ctx, 4, 10 * MS, 0, CLOCK_MONOTONIC,
				      &d), 0);
	store(ctx, b, TWHEEL_TABLE_DEADLINE(b, 30));
	store(ctx, d, TWHEEL_TABLE_CANCELLED(d));
	seq = fire_seq(ctx);
	/* The callback itself does not wake: its caller does. */
	KUNIT_EXPECT_FALSE(test, irq_at(ctx, 10 * MS));
	KUNIT_EXPECT_EQ(test, fire_seq(ctx), seq);
	KUNIT_EXPECT_EQ(test, ctx_query(ctx, b).expires_ns, 30 * MS);
	twheel_ctx_info(ctx, &info);
	KUNIT_EXPECT_EQ(test, info.cancelled, 0ULL);
	ctx_advance(test, ctx, 10 * MS);
	KUNIT_ASSERT_EQ(test, twheel_ctx_read(ctx, 16, ctx_emit, r), 2L);
	KUNIT_EXPECT_EQ(test, r->ev[0].id, a);
	KUNIT_EXPECT_EQ(test, r->ev[1].id, c);
	KUNIT_EXPECT_EQ(test, r->ev[0].time_ns, 10 * MS);
	twheel_ctx_info(ctx, &info);
	KUNIT_EXPECT_EQ(test, info.cancelled, 1ULL);
	KUNIT_EXPECT_EQ(test, info.timers, 1ULL);
	KUNIT_EXPECT_EQ(test, ctx_cancel(ctx, d, NULL), -ENOENT);
	/* Manual time 30. */
	ctx_advance(test, ctx, 20 * MS);
	r->n = 0;
	KUNIT_ASSERT_EQ(test, twheel_ctx_read(ctx, 16, ctx_emit, r), 1L);
	KUNIT_EXPECT_EQ(test, r->ev[0].id, b);
	twheel_ctx_info(ctx, &info);
	KUNIT_EXPECT_EQ(test, info.cancelled, 1ULL);
	twheel_ctx_destroy(ctx);
}

/* SUBMIT's out: after the first op, the hrtimer fires at 10 ms. */
static int irq_between(void *arg, u32 i, const struct twheel_op *op)
{
	struct twheel_ctx *ctx = arg;

	if (i == 0) {
		/* The set's lock is held: the clock moves, as time does. */
		twheel_ctx_timers(ctx)->clocks.manual_ns = 10 * MS;
		/* A expires: the callback gives it back and wakes. */
		if (irq_at(ctx, 10 * MS))
			return -EINVAL;
	}
	return 0;
}

/*
 * A added before its deadline D, B after it with the same D, and the
 * callback hands A back between the present B's add read (before D's
 * tick) and B's placing: A still comes first, and both are queued before
 * the call returns (B's add brings the wheel to the present). The present
 * is read once per batch, so a SUBMIT whose first op reads it and whose
 * @out runs the callback puts the interrupt exactly there.
 */
static void twheel_irq_same_tick_add_after(struct kunit *test)
{
	struct twheel_ctx *ctx = ctx_new(test, 64);
	struct ctx_records *r = ctx_recs(test);
	struct twheel_op ops[2] = {
		{ .op = TWHEEL_OP_ADD, .cookie = 3, .expires_ns = 1000 * MS,
		  .clock = CLOCK_MONOTONIC },
		{ .op = TWHEEL_OP_ADD, .cookie = 2, .expires_ns = 9 * MS + MS / 2,
		  .flags = TWHEEL_ABSTIME, .clock = CLOCK_MONOTONIC },
	};
	int err = 0;
	u64 a;

	KUNIT_ASSERT_EQ(test, twheel_ctx_config(ctx, MS, TWHEEL_CONFIG_MANUAL,
						0), 0);
	KUNIT_ASSERT_EQ(test, ctx_add(ctx, 1, 9 * MS + MS / 2, TWHEEL_ABSTIME,
				      CLOCK_MONOTONIC, &a), 0);
	/* Past D, inside its tick (10): B's add reads this present. */
	manual_to(ctx, 9 * MS + 7 * MS / 10);
	KUNIT_ASSERT_EQ(test, twheel_ctx_submit(ctx, ops, 2, irq_between, ctx,
						&err), 2U);
	KUNIT_ASSERT_EQ(test, err, 0);
	KUNIT_ASSERT_EQ(test, ops[1].error, 0);
	/* Both queued before the SUBMIT returned: A, then B. */
	KUNIT_EXPECT_EQ(test, twheel_ctx_timers(ctx)->nr_queued, 2ULL);
	KUNIT_ASSERT_EQ(test, twheel_ctx_read(ctx, 16, ctx_emit, r), 2L);
	KUNIT_EXPECT_EQ(test, r->ev[0].id, a);
	KUNIT_EXPECT_EQ(test, r->ev[1].id, ops[1].id);
	KUNIT_EXPECT_GE(test, r->ev[0].time_ns, 9 * MS + MS / 2);
	KUNIT_EXPECT_GE(test, r->ev[1].time_ns, 9 * MS + MS / 2);
	KUNIT_EXPECT_EQ(test, ctx_timers(ctx), 1ULL);
	twheel_ctx_destroy(ctx);
}

/*
 * @n timers (cookies 0 to @n - 1) added for tick @tick, each entry then
 * pushed to tick @to: their ids.
 */
static u64 *pushed(struct kunit *test, struct twheel_ctx *ctx, u32 n,
		   s64 tick, u64 to)
{
	u64 *id = kunit_kcalloc(test, n, sizeof(*id), GFP_KERNEL);
	u32 i;

	KUNIT_ASSERT_NOT_NULL(test, id);
	for (i = 0; i < n; i++) {
		KUNIT_ASSERT_EQ(test, ctx_add(ctx, i, tick * MS, 0,
					      CLOCK_MONOTONIC, &id[i]), 0);
		store(ctx, id[i], TWHEEL_TABLE_DEADLINE(id[i], to));
	}
	return id;
}

/*
 * More than TWHEEL_IRQ_BUDGET entries due: one callback moves the budget,
 * the next goes on; one that finds a real expiry falls back, and the
 * task's update hands it back after the pushed ones were put back.
 */
static void twheel_irq_budget(struct kunit *test)
{
	const u32 n = TWHEEL_IRQ_BUDGET + 8;
	struct twheel_ctx *ctx = ctx_table(test);
	struct ctx_records *r = ctx_recs(test);
	u64 *id = pushed(test, ctx, n, 10, 30);

	irq_quiet(test, ctx, 10 * MS);
	KUNIT_EXPECT_EQ(test, ctx_query(ctx, id[TWHEEL_IRQ_BUDGET - 1])
			      .expires_ns, 30 * MS);
	/* Not moved yet: the next callback's work. */
	KUNIT_EXPECT_EQ(test, ctx_query(ctx, id[TWHEEL_IRQ_BUDGET])
			      .expires_ns, 10 * MS);
	KUNIT_EXPECT_EQ(test, mono(ctx)->armed, 10ULL);
	/* The last one really expires. */
	store(ctx, id[n - 1], 0);
	KUNIT_EXPECT_FALSE(test, irq_at(ctx, 10 * MS));
	KUNIT_EXPECT_EQ(test, ctx_query(ctx, id[n - 2]).expires_ns, 30 * MS);
	ctx_advance(test, ctx, 10 * MS);
	KUNIT_ASSERT_EQ(test, twheel_ctx_read(ctx, 16, ctx_emit, r), 1L);
	KUNIT_EXPECT_EQ(test, r->ev[0].id, id[n - 1]);
	KUNIT_EXPECT_EQ(test, ctx_timers(ctx), (u64)n - 1);
	twheel_ctx_destroy(ctx);
}

/*
 * A cascade longer than the budget, every timer pushed: the callback
 * stops for the budget before a timer whose own deadline (100) needs
 * level 0, which the wheel lacks; it must go on in a later callback,
 * which re-keys that timer too (300, level 1), not wake the task for a
 * level nobody needs.
 */
static void twheel_irq_budget_in_cascade(struct kunit *test)
{
	const u32 n = TWHEEL_IRQ_BUDGET + 8;
	struct twheel_ctx *ctx = ctx_table(test);
	struct ctx_records *r = ctx_recs(test);
	u64 *id = pushed(test, ctx, n, 100, 300);

	KUNIT_ASSERT_NULL(test, mono(ctx)->wheel.lvl[0]);
	manual_to(ctx, 64 * MS);
	irq_quiet(test, ctx, 64 * MS);
	KUNIT_EXPECT_EQ(test, ctx_query(ctx, id[TWHEEL_IRQ_BUDGET - 1])
			      .expires_ns, 300 * MS);
	KUNIT_EXPECT_EQ(test, ctx_query(ctx, id[TWHEEL_IRQ_BUDGET])
			      .expires_ns, 100 * MS);
	/* The rest, in the callback after the gap. */
	irq_quiet(test, ctx, 64 * MS);
	KUNIT_EXPECT_EQ(test, ctx_query(ctx, id[n - 1]).expires_ns, 300 * MS);
	/* For the cascade of 300's slot of level 1, at 256. */
	KUNIT_EXPECT_EQ(test, mono(ctx)->armed, 256ULL);
	KUNIT_EXPECT_NULL(test, mono(ctx)->wheel.lvl[0]);
	ctx_advance(test, ctx, 235 * MS);
	KUNIT_EXPECT_FALSE(test, twheel_ctx_readable(ctx));
	ctx_advance(test, ctx, MS);
	KUNIT_ASSERT_EQ(test, twheel_ctx_read(ctx, 16, ctx_emit, r), 16L);
	KUNIT_EXPECT_EQ(test, r->ev[0].id, id[0]);
	KUNIT_EXPECT_EQ(test, r->ev[0].time_ns, 300 * MS);
	twheel_ctx_destroy(ctx);
}

/* A pushed deadline in a level the wheel lacks: the task allocates it. */
static void twheel_irq_missing_level(struct kunit *test)
{
	struct twheel_ctx *ctx = ctx_table(test);
	int seq;
	u64 a;

	KUNIT_ASSERT_EQ(test, ctx_add(ctx, 1, 10 * MS, 0, CLOCK_MONOTONIC,
				      &a), 0);
	KUNIT_EXPECT_NULL(test, mono(ctx)->wheel.lvl[2]);
	store(ctx, a, TWHEEL_TABLE_DEADLINE(a, 100000));
	seq = fire_seq(ctx);
	KUNIT_EXPECT_FALSE(test, irq_at(ctx, 10 * MS));
	KUNIT_EXPECT_EQ(test, fire_seq(ctx), seq);
	KUNIT_EXPECT_EQ(test, ctx_query(ctx, a).expires_ns, 10 * MS);
	ctx_advance(test, ctx, 10 * MS);
	KUNIT_EXPECT_FALSE(test, twheel_ctx_readable(ctx));
	KUNIT_EXPECT_EQ(test, ctx_query(ctx, a).expires_ns, 100000 * MS);
	KUNIT_EXPECT_NOT_NULL(test, mono(ctx)->wheel.lvl[2]);
	twheel_ctx_destroy(ctx);
}

/*
 * Pushed, in a cascade, to a deadline in a level the wheel lacks (level 2:
 * the timeouts crossed into the next 4096-tick range), while the level
 * their own deadline needs is missing too (level 0, which nothing needed):
 * one wake-up, whose update gives level 2 alone and places them by the
 * pushed deadline; nothing is armed for their old one.
 */
static void twheel_irq_level_wanted_once(struct kunit *test)
{
	struct twheel_ctx *ctx = ctx_table(test);
	u64 *id = pushed(test, ctx, 3, 100, 5000);
	int seq = fire_seq(ctx);

	KUNIT_ASSERT_NULL(test, mono(ctx)->wheel.lvl[0]);
	KUNIT_ASSERT_NULL(test, mono(ctx)->wheel.lvl[2]);
	manual_to(ctx, 64 * MS);
	KUNIT_EXPECT_FALSE(test, irq_at(ctx, 64 * MS));
	KUNIT_EXPECT_EQ(test, fire_seq(ctx), seq);
	/* The woken task's update. */
	ctx_advance(test, ctx, 0);
	KUNIT_EXPECT_NOT_NULL(test, mono(ctx)->wheel.lvl[2]);
	KUNIT_EXPECT_NULL(test, mono(ctx)->wheel.lvl[0]);
	KUNIT_EXPECT_EQ(test, ctx_query(ctx, id[0]).expires_ns, 5000 * MS);
	KUNIT_EXPECT_EQ(test, ctx_query(ctx, id[2]).expires_ns, 5000 * MS);
	/* For the cascade of level 2's slot, at 4096: not at 100. */
	KUNIT_EXPECT_EQ(test, mono(ctx)->armed, 4096ULL);
	KUNIT_EXPECT_EQ(test, mono(ctx)->wanted, 0);
	twheel_ctx_destroy(ctx);
}

/*
 * The task's own update, in chunks of TWHEEL_CHUNK entry moves, stops for
 * its budget right before a pushed timer whose own deadline needs a level
 * the wheel lacks: the next chunk re-keys it, and the level is never
 * allocated.
 */
static void twheel_update_chunk_no_level(struct kunit *test)
{
	const u32 n = TWHEEL_CHUNK + 8;
	struct twheel_ctx *ctx = ctx_table(test);
	u64 *id = pushed(test, ctx, n, 100, 300);

	KUNIT_ASSERT_NULL(test, mono(ctx)->wheel.lvl[0]);
	ctx_advance(test, ctx, 64 * MS);
	KUNIT_EXPECT_EQ(test, ctx_query(ctx, id[TWHEEL_CHUNK]).expires_ns,
			300 * MS);
	KUNIT_EXPECT_EQ(test, ctx_query(ctx, id[n - 1]).expires_ns, 300 * MS);
	KUNIT_EXPECT_NULL(test, mono(ctx)->wheel.lvl[0]);
	twheel_ctx_destroy(ctx);
}

/* Past TWHEEL_IRQ_RATE entries in a second, a user's callbacks wake. */
static void twheel_irq_rate(struct kunit *test)
{
	struct twheel_user *u = twheel_user_open();
	struct twheel_ctx *ctx;
	unsigned long sec, end;
	int tries = 3;
	bool first;
	u64 a;

	KUNIT_ASSERT_FALSE(test, IS_ERR_OR_NULL(u));
	do {
		ctx = ctx_table(test);
		KUNIT_ASSERT_EQ(test, ctx_add(ctx, 1, 10 * MS, 0,
					      CLOCK_MONOTONIC, &a), 0);
		store(ctx, a, TWHEEL_TABLE_DEADLINE(a, 30));
		twheel_ctx_timers(ctx)->user = u;
		end = jiffies;
		sec = end / HZ;
		KUNIT_EXPECT_LE(test, twheel_user_irq_budget(u, 8), 8U);
		twheel_user_irq_charge(u, TWHEEL_IRQ_RATE);
		KUNIT_EXPECT_EQ(test, twheel_user_irq_budget(u, 8), 0U);
		first = irq_at(ctx, 10 * MS);
		twheel_ctx_timers(ctx)->user = NULL;
		twheel_ctx_destroy(ctx);
		end = jiffies;
	} while (sec != end / HZ && --tries);
	KUNIT_EXPECT_FALSE(test, first);
	/* The next second brings a new budget. */
	msleep(1100);
	KUNIT_EXPECT_EQ(test, twheel_user_irq_budget(u, 8), 8U);
	twheel_user_close(u, 0);
}

/*
 * An alarm base's callback keeps the alarm armed whenever it leaves work
 * to the set's task (whose tasks may be frozen for a suspend): after an
 * expiry, for the wheel's next event after the present; while the timers
 * it left are still due, it sets them aside, does the next cascade and
 * arms for the one after, until the last deadline. The task then gets
 * the records in order. On the real CLOCK_BOOTTIME_ALARM, the callback's
 * work called directly an hour ahead of the clock: the alarm never fires.
 */
static void twheel_irq_alarm_keeps_armed(struct kunit *test)
{
	struct twheel_ctx *ctx = ctx_new(test, 4096);
	struct twheel_timers *tm = twheel_ctx_timers(ctx);
	struct ctx_records *r = ctx_recs(test);
	u64 t0 = round_up((u64)ktime_get_boottime() / MS + 3600 * 1000, 4096);
	struct twheel_base *base;
	u64 a, b, armed;
	int i;

	KUNIT_ASSERT_EQ(test, ctx_add(ctx, 1, (t0 + 10) * MS, TWHEEL_ABSTIME,
				      CLOCK_BOOTTIME_ALARM, &a), 0);
	KUNIT_ASSERT_EQ(test, ctx_add(ctx, 2, (t0 + 10000) * MS,
				      TWHEEL_ABSTIME, CLOCK_BOOTTIME_ALARM,
				      &b), 0);
	base = tm->clocks.bases[TWHEEL_CLK_BOOTTIME_ALARM];
	KUNIT_ASSERT_NOT_NULL(test, base);
	/* a expires: left for the task, the alarm armed for what comes next. */
	KUNIT_EXPECT_FALSE(test, twheel_irq_run(tm, base, (t0 + 10) * MS));
	for (i = 0, armed = t0 + 10; i < TWHEEL_LEVELS; i++) {
		KUNIT_EXPECT_TRUE(test,
				  base->alarm.state & ALARMTIMER_STATE_ENQUEUED);
		KUNIT_EXPECT_GT(test, base->armed, armed);
		KUNIT_EXPECT_LE(test, base->armed, t0 + 10000);
		KUNIT_EXPECT_EQ(test, tm->clocks.armed_ns[base->clock],
				(s64)base->armed * MS);
		armed = base->armed;
		/* That event, with a still due: b cascades (or expires). */
		KUNIT_EXPECT_FALSE(test, twheel_irq_run(tm, base, armed * MS));
		if (armed == t0 + 10000)
			break;
	}
	KUNIT_EXPECT_EQ(test, armed, t0 + 10000);
	/* Both due, for the task, in order. */
	KUNIT_EXPECT_EQ(test, base->wheel.count, 2ULL);
	KUNIT_EXPECT_FALSE(test, list_empty(&base->wheel.due));
	/* What the alarm's callback does when the work returns false. */
	atomic_inc(&tm->clocks.fire_seq);
	KUNIT_ASSERT_EQ(test, twheel_ctx_read(ctx, 16, ctx_emit, r), 2L);
	KUNIT_EXPECT_EQ(test, r->ev[0].id, a);
	KUNIT_EXPECT_EQ(test, r->ev[1].id, b);
	KUNIT_EXPECT_EQ(test, ctx_timers(ctx), 0ULL);
	twheel_ctx_destroy(ctx);
}

/*
 * An alarm base's callback that cannot finish with timers due (more due
 * at one tick than it may move) comes again TWHEEL_IRQ_ALARM_RETRY_NS
 * later; the task then reads every record, in order. As above, called
 * directly an hour ahead of the real clock.
 */
static void twheel_irq_alarm_retry(struct kunit *test)
{
	const int n = TWHEEL_IRQ_BUDGET + 8;
	struct twheel_ctx *ctx = ctx_new(test, 4096);
	struct twheel_timers *tm = twheel_ctx_timers(ctx);
	struct ctx_records *r = ctx_recs(test);
	u64 t0 = (u64)ktime_get_boottime() / MS + 3600 * 1000;
	struct twheel_base *base;
	int i, calls = 0;
	long got = 0, k;
	unsigned int j;

	for (i = 0; i < n; i++)
		KUNIT_ASSERT_EQ(test, ctx_add(ctx, i, t0 * MS, TWHEEL_ABSTIME,
					      CLOCK_BOOTTIME_ALARM, NULL), 0);
	base = tm->clocks.bases[TWHEEL_CLK_BOOTTIME_ALARM];
	KUNIT_ASSERT_NOT_NULL(test, base);
	/* Cascades first, 20 us apart, until the timers fall due. */
	while (twheel_irq_run(tm, base, t0 * MS))
		KUNIT_ASSERT_LT(test, ++calls, TWHEEL_LEVELS * n);
	KUNIT_EXPECT_TRUE(test, base->alarm.state & ALARMTIMER_STATE_ENQUEUED);
	KUNIT_EXPECT_EQ(test, tm->clocks.armed_ns[base->clock],
			(s64)t0 * MS + TWHEEL_IRQ_ALARM_RETRY_NS);
	atomic_inc(&tm->clocks.fire_seq);
	while (got < n) {
		r->n = 0;
		k = twheel_ctx_read(ctx, ARRAY_SIZE(r->ev), ctx_emit, r);
		KUNIT_ASSERT_GT(test, k, 0L);
		for (j = 0; j < r->n; j++, got++)
			KUNIT_EXPECT_EQ(test, r->ev[j].cookie, (u64)got);
	}
	KUNIT_EXPECT_EQ(test, ctx_timers(ctx), 0ULL);
	twheel_ctx_destroy(ctx);
}

static struct kunit_case twheel_irq_cases[] = {
	KUNIT_CASE(twheel_irq_pushed_wake_nobody),
	KUNIT_CASE(twheel_irq_cancel_wakes_nobody),
	KUNIT_CASE(twheel_irq_parked_then_ioctl),
	KUNIT_CASE(twheel_irq_cascade_rekey),
	KUNIT_CASE(twheel_update_cascade_rekey),
	KUNIT_CASE(twheel_irq_plain_set),
	KUNIT_CASE(twheel_irq_expiry_falls_back),
	KUNIT_CASE(twheel_irq_same_tick_add_after),
	KUNIT_CASE(twheel_irq_budget),
	KUNIT_CASE(twheel_irq_budget_in_cascade),
	KUNIT_CASE(twheel_irq_missing_level),
	KUNIT_CASE(twheel_irq_level_wanted_once),
	KUNIT_CASE(twheel_update_chunk_no_level),
	KUNIT_CASE(twheel_irq_rate),
	KUNIT_CASE(twheel_irq_alarm_keeps_armed),
	KUNIT_CASE(twheel_irq_alarm_retry),
	{}
};

static struct kunit_suite twheel_irq_suite = {
	.name = "twheel_irq",
	.test_cases = twheel_irq_cases,
};

kunit_test_suite(twheel_irq_suite);
