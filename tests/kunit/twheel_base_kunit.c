// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite of the clock bases (twheel_base.c) and their time
 * arithmetic (twheel_time.h): ticks rounded never early and saturating,
 * the clock index, and a base's wheel as the set drives it: cascades,
 * the hrtimer that only wakes, a rebase after the clock went back, levels
 * allocated and freed with use, far deadlines held.
 */
#include <kunit/test.h>
#include <linux/ktime.h>
#include <linux/list.h>
#include <linux/timekeeping.h>
#include <linux/wait.h>

#include "twheel_kunit.h"
#include "twheel_time.h"

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

static void twheel_base_clock_index(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, twheel_clock_index(CLOCK_MONOTONIC),
			(int)TWHEEL_CLK_MONOTONIC);
	KUNIT_EXPECT_EQ(test, twheel_clock_index(CLOCK_BOOTTIME),
			(int)TWHEEL_CLK_BOOTTIME);
	KUNIT_EXPECT_EQ(test, twheel_clock_index(CLOCK_REALTIME),
			(int)TWHEEL_CLK_REALTIME);
	KUNIT_EXPECT_EQ(test, twheel_clock_index(CLOCK_TAI),
			(int)TWHEEL_CLK_TAI);
	KUNIT_EXPECT_EQ(test, twheel_clock_index(CLOCK_REALTIME_ALARM),
			(int)TWHEEL_CLK_REALTIME_ALARM);
	KUNIT_EXPECT_EQ(test, twheel_clock_index(CLOCK_BOOTTIME_ALARM),
			(int)TWHEEL_CLK_BOOTTIME_ALARM);
	KUNIT_EXPECT_EQ(test, twheel_clock_index(CLOCK_MONOTONIC_RAW), -EINVAL);
	KUNIT_EXPECT_EQ(test, twheel_clock_index(10), -EINVAL);
	KUNIT_EXPECT_TRUE(test, twheel_clock_alarm(TWHEEL_CLK_REALTIME_ALARM));
	KUNIT_EXPECT_TRUE(test, twheel_clock_alarm(TWHEEL_CLK_BOOTTIME_ALARM));
	KUNIT_EXPECT_FALSE(test, twheel_clock_alarm(TWHEEL_CLK_REALTIME));
	KUNIT_EXPECT_EQ(test, twheel_clock_id(TWHEEL_CLK_BOOTTIME_ALARM),
			CLOCK_BOOTTIME_ALARM);
}

/* Deadlines far away are held, not wrapped into the past. */
static void twheel_base_saturated_deadlines(struct kunit *test)
{
	struct twheel_ctx *ctx = ctx_new(test, 16);

	KUNIT_EXPECT_EQ(test, ctx_add(ctx, 1, KTIME_MAX, 0, CLOCK_MONOTONIC, NULL), 0);
	KUNIT_EXPECT_EQ(test, ctx_add(ctx, 2, KTIME_MAX, TWHEEL_ABSTIME,
				      CLOCK_REALTIME, NULL), 0);
	KUNIT_EXPECT_EQ(test, ctx_add(ctx, 3, KTIME_MAX, 0,
				      CLOCK_BOOTTIME, NULL), 0);
	twheel_ctx_lock_update(ctx, TWHEEL_UPDATE_ALL);
	ctx_update_at(ctx, TWHEEL_CLK_MONOTONIC, KTIME_MAX - 1);
	twheel_ctx_unlock(ctx);
	KUNIT_EXPECT_FALSE(test, twheel_ctx_readable(ctx));
	KUNIT_EXPECT_EQ(test, ctx_timers(ctx), 3ULL);
	twheel_ctx_destroy(ctx);
}

/* An event that only cascades queues nothing and leaves the timer armed. */
static void twheel_base_cascade_queues_nothing(struct kunit *test)
{
	struct twheel_ctx *ctx = ctx_new(test, 16);
	/* 64 ticks start a new level-1 slot: a deadline 10 ticks after it. */
	s64 t0 = (ktime_get() / (64 * MS) + 3600 * 1000 / 64) * 64 * MS;
	struct twheel_base *base;

	KUNIT_ASSERT_EQ(test, ctx_add(ctx, 9, t0 + 10 * MS, TWHEEL_ABSTIME,
				      CLOCK_MONOTONIC, NULL), 0);
	twheel_ctx_lock_update(ctx, TWHEEL_UPDATE_ALL);
	base = twheel_ctx_timers(ctx)->clocks.bases[TWHEEL_CLK_MONOTONIC];
	/* From 32 ticks before the slot starts, its start is the event. */
	ctx_update_at(ctx, TWHEEL_CLK_MONOTONIC, t0 - 32 * MS);
	KUNIT_EXPECT_EQ(test, twheel_ctx_timers(ctx)->nr_queued, 0ULL);
	KUNIT_EXPECT_EQ(test, twheel_wheel_next(&base->wheel) * MS, (u64)t0);
	ctx_update_at(ctx, TWHEEL_CLK_MONOTONIC, t0);
	KUNIT_EXPECT_EQ(test, twheel_ctx_timers(ctx)->nr_queued, 0ULL);
	KUNIT_EXPECT_EQ(test, base->armed * MS, (u64)t0 + 10 * MS);
	ctx_update_at(ctx, TWHEEL_CLK_MONOTONIC, t0 + 10 * MS);
	KUNIT_EXPECT_EQ(test, twheel_ctx_timers(ctx)->nr_queued, 1ULL);
	KUNIT_EXPECT_TRUE(test, twheel_wheel_empty(&base->wheel));
	twheel_ctx_unlock(ctx);
	twheel_ctx_destroy(ctx);
}

/*
 * The hrtimer callback only marks and wakes: no record is queued until
 * someone uses the context, and then it is. A deadline 200 ticks ahead
 * sits at level 1 or 2 (it crosses a 64-tick boundary, perhaps a 4096-tick
 * one), so one or two callbacks are cascades, which queue nothing, before
 * the deadline's own. The deadline is far enough that it has not fired
 * yet when the add returns, however slow the machine.
 */
static void twheel_base_hrtimer_only_wakes(struct kunit *test)
{
	struct twheel_ctx *ctx = ctx_new(test, 16);
	struct ctx_records r = { };
	s64 deadline = (ktime_get() / MS + 200) * MS, before;
	long left, got = 0;
	int events;

	KUNIT_ASSERT_EQ(test, ctx_add(ctx, 7, deadline, TWHEEL_ABSTIME,
				      CLOCK_MONOTONIC, NULL), 0);
	KUNIT_EXPECT_FALSE(test, twheel_ctx_fired(ctx));
	for (events = 0; !got && events < 3; events++) {
		left = wait_event_timeout(*twheel_ctx_wqh(ctx),
					  twheel_ctx_fired(ctx), 10 * HZ);
		KUNIT_ASSERT_GT(test, left, 0L);
		KUNIT_EXPECT_FALSE(test, twheel_ctx_readable(ctx));
		before = ktime_get();
		got = twheel_ctx_read(ctx, 16, ctx_emit, &r);
		KUNIT_ASSERT_GE(test, got, 0L);
		/* Nothing queued: a cascade, before the deadline. */
		if (!got)
			KUNIT_EXPECT_LT(test, before, deadline);
	}
	KUNIT_EXPECT_EQ(test, got, 1L);
	KUNIT_EXPECT_EQ(test, r.ev[0].cookie, 7ULL);
	KUNIT_EXPECT_FALSE(test, twheel_ctx_fired(ctx));
	twheel_ctx_destroy(ctx);
}

/*
 * An alarm clock's base runs an alarm (the alarmtimer), whose callback
 * only wakes, as the hrtimer's: the record comes from the read, on the
 * alarm clock, never early. On a manual fd the alarm clocks share the
 * manual base like the others.
 */
static void twheel_base_alarm_wakes(struct kunit *test)
{
	struct twheel_ctx *ctx = ctx_new(test, 16);
	struct ctx_records *r = ctx_recs(test);
	s64 deadline = (ktime_get_boottime() / MS + 200) * MS;
	struct twheel_base *base;
	long left, got = 0;
	int events;

	KUNIT_ASSERT_EQ(test, ctx_add(ctx, 9, deadline, TWHEEL_ABSTIME,
				      CLOCK_BOOTTIME_ALARM, NULL), 0);
	base = twheel_ctx_timers(ctx)->clocks.bases[TWHEEL_CLK_BOOTTIME_ALARM];
	KUNIT_ASSERT_NOT_NULL(test, base);
	KUNIT_EXPECT_EQ(test, base->alarm.type, ALARM_BOOTTIME);
	KUNIT_EXPECT_TRUE(test, base->alarm.state & ALARMTIMER_STATE_ENQUEUED);
	for (events = 0; !got && events < 3; events++) {
		left = wait_event_timeout(*twheel_ctx_wqh(ctx),
					  twheel_ctx_fired(ctx), 10 * HZ);
		KUNIT_ASSERT_GT(test, left, 0L);
		got = twheel_ctx_read(ctx, 16, ctx_emit, r);
	}
	KUNIT_ASSERT_EQ(test, got, 1L);
	KUNIT_EXPECT_EQ(test, r->ev[0].cookie, 9ULL);
	KUNIT_EXPECT_EQ(test, r->ev[0].clock, (u32)CLOCK_BOOTTIME_ALARM);
	KUNIT_EXPECT_GE(test, r->ev[0].time_ns, deadline);
	/* Empty: the alarm is stopped. */
	KUNIT_EXPECT_FALSE(test, base->alarm.state & ALARMTIMER_STATE_ENQUEUED);
	twheel_ctx_destroy(ctx);

	ctx = ctx_manual(test);
	KUNIT_ASSERT_EQ(test, ctx_add(ctx, 1, 5 * MS, 0, CLOCK_REALTIME_ALARM,
				      NULL), 0);
	KUNIT_EXPECT_NULL(test,
			  twheel_ctx_timers(ctx)->clocks.bases[TWHEEL_CLK_REALTIME_ALARM]);
	ctx_advance(test, ctx, 5 * MS);
	r->n = 0;
	KUNIT_ASSERT_EQ(test, twheel_ctx_read(ctx, 16, ctx_emit, r), 1L);
	KUNIT_EXPECT_EQ(test, r->ev[0].clock, (u32)CLOCK_REALTIME_ALARM);
	KUNIT_EXPECT_EQ(test, r->ev[0].time_ns, 5 * MS);
	twheel_ctx_destroy(ctx);
}

/*
 * A wall clock set (here to the time it already has: still a set) ends the
 * pending TWHEEL_CANCEL_ON_SET timers with a set record, leaves the others
 * and the ones added after it alone, and gives a TWHEEL_CONFIG_CLOCK_SET
 * fd one record, woken without a read.
 */
static void twheel_base_clock_set(struct kunit *test)
{
	struct twheel_ctx *ctx = ctx_new(test, 16);
	struct ctx_records *r = ctx_recs(test);
	s64 far = ktime_get_real() + 3600LL * 1000 * MS;
	struct timespec64 ts;
	u64 a, b, c;
	long left;

	KUNIT_ASSERT_EQ(test, twheel_ctx_config(ctx, MS,
						TWHEEL_CONFIG_CLOCK_SET, 0), 0);
	KUNIT_ASSERT_EQ(test, ctx_add(ctx, 1, far, TWHEEL_ABSTIME |
				      TWHEEL_CANCEL_ON_SET, CLOCK_REALTIME, &a),
			0);
	KUNIT_ASSERT_EQ(test, ctx_add(ctx, 2, far, TWHEEL_ABSTIME,
				      CLOCK_REALTIME, &b), 0);
	KUNIT_EXPECT_EQ(test, ctx_add(ctx, 3, far, TWHEEL_CANCEL_ON_SET,
				      CLOCK_REALTIME, NULL), -EINVAL);
	KUNIT_EXPECT_EQ(test, ctx_add(ctx, 3, far, TWHEEL_ABSTIME |
				      TWHEEL_CANCEL_ON_SET, CLOCK_BOOTTIME,
				      NULL), -EINVAL);
	KUNIT_EXPECT_FALSE(test, twheel_ctx_fired(ctx));
	ktime_get_real_ts64(&ts);
	KUNIT_ASSERT_EQ(test, do_settimeofday64(&ts), 0);
	left = wait_event_timeout(*twheel_ctx_wqh(ctx), twheel_ctx_fired(ctx),
				  10 * HZ);
	KUNIT_ASSERT_GT(test, left, 0L);
	KUNIT_ASSERT_EQ(test, ctx_add(ctx, 4, far, TWHEEL_ABSTIME |
				      TWHEEL_CANCEL_ON_SET, CLOCK_REALTIME, &c),
			0);
	KUNIT_ASSERT_EQ(test, twheel_ctx_read(ctx, 16, ctx_emit, r), 2L);
	KUNIT_EXPECT_EQ(test, r->ev[0].id, 0ULL);
	KUNIT_EXPECT_EQ(test, r->ev[0].flags, TWHEEL_EVENT_CLOCK_SET);
	KUNIT_EXPECT_EQ(test, r->ev[0].count, 1ULL);
	KUNIT_EXPECT_EQ(test, r->ev[1].id, a);
	KUNIT_EXPECT_EQ(test, r->ev[1].flags, TWHEEL_EVENT_CLOCK_SET);
	KUNIT_EXPECT_EQ(test, r->ev[1].count, 0ULL);
	KUNIT_EXPECT_EQ(test, ctx_cancel(ctx, a, NULL), -ENOENT);
	KUNIT_EXPECT_EQ(test, ctx_cancel(ctx, b, NULL), 0);
	KUNIT_EXPECT_EQ(test, ctx_cancel(ctx, c, NULL), 0);
	KUNIT_EXPECT_EQ(test, ctx_cancel(ctx, 0, NULL), -ENOENT);
	twheel_ctx_destroy(ctx);
}

/*
 * Every context watching sets is told of one, each woken in turn by the
 * module's walk of its watchers (process context, no lock held across
 * contexts with interrupts off), those closed meanwhile no more.
 */
static void twheel_base_clock_set_many(struct kunit *test)
{
	const int n = 64;
	struct twheel_ctx **ctx = kunit_kcalloc(test, n, sizeof(*ctx),
						GFP_KERNEL);
	struct ctx_records *r = ctx_recs(test);
	struct timespec64 ts;
	long left;
	int i;

	KUNIT_ASSERT_NOT_NULL(test, ctx);
	for (i = 0; i < n; i++) {
		ctx[i] = ctx_new(test, 4);
		KUNIT_ASSERT_EQ(test, twheel_ctx_config(ctx[i], MS,
							TWHEEL_CONFIG_CLOCK_SET,
							0), 0);
	}
	/* Closed ones leave the list: the walk never meets them. */
	for (i = 0; i < n; i += 4) {
		twheel_ctx_destroy(ctx[i]);
		ctx[i] = NULL;
	}
	ktime_get_real_ts64(&ts);
	KUNIT_ASSERT_EQ(test, do_settimeofday64(&ts), 0);
	for (i = 0; i < n; i++) {
		if (!ctx[i])
			continue;
		left = wait_event_timeout(*twheel_ctx_wqh(ctx[i]),
					  twheel_ctx_fired(ctx[i]), 10 * HZ);
		KUNIT_EXPECT_GT(test, left, 0L);
		r->n = 0;
		KUNIT_EXPECT_EQ(test, twheel_ctx_read(ctx[i], 16, ctx_emit, r),
				1L);
		KUNIT_EXPECT_EQ(test, r->ev[0].id, 0ULL);
		KUNIT_EXPECT_EQ(test, r->ev[0].flags, TWHEEL_EVENT_CLOCK_SET);
		KUNIT_EXPECT_GE(test, r->ev[0].count, 1ULL);
		twheel_ctx_destroy(ctx[i]);
	}
}

/*
 * The clock set back behind the wheel (as CLOCK_REALTIME can be): every
 * timer is taken out and added again, in chunks, none lost, none early,
 * ties in order.
 */
static void twheel_base_rebase(struct kunit *test)
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
	base = twheel_ctx_timers(ctx)->clocks.bases[TWHEEL_CLK_MONOTONIC];
	/* Run the wheel an hour ahead of the clock, then let it catch up. */
	ctx_update_at(ctx, TWHEEL_CLK_MONOTONIC, t0 - MS);
	KUNIT_EXPECT_EQ(test, twheel_ctx_timers(ctx)->nr_queued, 0ULL);
	twheel_ctx_unlock(ctx);
	atomic_inc(&twheel_ctx_timers(ctx)->clocks.fire_seq);
	twheel_ctx_lock_update(ctx, TWHEEL_UPDATE_ALL);
	KUNIT_EXPECT_TRUE(test, list_empty(&base->rebase));
	KUNIT_EXPECT_EQ(test, base->wheel.count, (u64)n);
	KUNIT_EXPECT_LT(test, base->wheel.clk * MS, (u64)t0 - MS);
	ctx_update_at(ctx, TWHEEL_CLK_MONOTONIC, t0 + 10 * MS);
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

/*
 * A wall clock set while a rebase is unfinished (the clock went back
 * behind a wheel holding more timers than a chunk re-adds): the rebase
 * ends first, then the set ends each TWHEEL_CANCEL_ON_SET timer once,
 * from the wheel that holds it. The wheel's count stays the number of
 * its pending timers, round after round, and every timer ends exactly
 * once: a set-ended record, or a CANCEL.
 */
static void twheel_base_set_during_rebase(struct kunit *test)
{
	const int n = 2 * TWHEEL_CHUNK + 33;
	struct twheel_ctx *ctx = ctx_new(test, 4096);
	struct twheel_timers *tm = twheel_ctx_timers(ctx);
	struct ctx_records *r = ctx_recs(test);
	u64 *ids = kunit_kcalloc(test, n, sizeof(*ids), GFP_KERNEL);
	u8 *ended = kunit_kzalloc(test, n, GFP_KERNEL);
	struct twheel_base *base;
	struct timespec64 ts;
	int round, i, k, got;
	u64 budget;
	s64 t0;
	long m;

	KUNIT_ASSERT_NOT_NULL(test, ids);
	KUNIT_ASSERT_NOT_NULL(test, ended);
	for (round = 0; round < 3; round++) {
		t0 = ktime_get_real() + 3600LL * 1000 * MS;
		for (i = 0; i < n; i++)
			KUNIT_ASSERT_EQ(test,
					ctx_add(ctx, i, t0 + (i % 5) * MS,
						TWHEEL_ABSTIME |
						(i & 1 ? TWHEEL_CANCEL_ON_SET : 0),
						CLOCK_REALTIME, &ids[i]), 0);
		memset(ended, 0, n);
		twheel_ctx_lock_update(ctx, TWHEEL_UPDATE_ALL);
		base = tm->clocks.bases[TWHEEL_CLK_REALTIME];
		/* The wheel an hour ahead; the clock then reads behind it. */
		ctx_update_at(ctx, TWHEEL_CLK_REALTIME, t0 - MS);
		budget = TWHEEL_CHUNK / 2;
		KUNIT_EXPECT_FALSE(test, twheel_timers_update(tm, &budget));
		KUNIT_EXPECT_FALSE(test, list_empty(&base->rebase));
		KUNIT_EXPECT_EQ(test, base->wheel.count, (u64)TWHEEL_CHUNK / 2);
		twheel_ctx_unlock(ctx);
		/* A set (to the time it has) with half the timers out. */
		ktime_get_real_ts64(&ts);
		KUNIT_ASSERT_EQ(test, do_settimeofday64(&ts), 0);
		twheel_ctx_lock_update(ctx, TWHEEL_UPDATE_ALL);
		KUNIT_EXPECT_TRUE(test, list_empty(&base->rebase));
		KUNIT_EXPECT_FALSE(test, twheel_timers_set_pending(tm));
		KUNIT_EXPECT_EQ(test, base->wheel.count, (u64)(n + 1) / 2);
		KUNIT_EXPECT_EQ(test, tm->nr_queued, (u64)n / 2);
		twheel_ctx_unlock(ctx);
		/* One set-ended record per CANCEL_ON_SET timer, none twice. */
		for (got = 0;; got += r->n) {
			r->n = 0;
			m = twheel_ctx_read(ctx, ARRAY_SIZE(r->ev), ctx_emit, r);
			if (m <= 0)
				break;
			for (k = 0; k < r->n; k++) {
				i = r->ev[k].cookie;
				KUNIT_ASSERT_LT(test, i, n);
				KUNIT_EXPECT_EQ(test, i & 1, 1);
				KUNIT_EXPECT_EQ(test, r->ev[k].id, ids[i]);
				KUNIT_EXPECT_EQ(test, r->ev[k].flags,
						TWHEEL_EVENT_CLOCK_SET);
				KUNIT_EXPECT_EQ(test, ended[i], 0);
				ended[i] = 1;
			}
		}
		KUNIT_EXPECT_EQ(test, got, n / 2);
		/* The others are pending, each cancelled once. */
		for (i = 0; i < n; i++)
			KUNIT_EXPECT_EQ(test, ctx_cancel(ctx, ids[i], NULL),
					i & 1 ? -ENOENT : 0);
		KUNIT_EXPECT_EQ(test, base->wheel.count, 0ULL);
		KUNIT_EXPECT_EQ(test, ctx_timers(ctx), 0ULL);
	}
	twheel_ctx_destroy(ctx);
}

/*
 * An operation's present in one short hold (twheel_base_forward()): the
 * wheel's clock moves to a present by which nothing is due, and the
 * hrtimer stays armed for the same event; a present by which a timer is
 * due, or one behind the wheel's clock, is left to the full update and
 * changes nothing.
 */
static void twheel_base_forward_quiet_only(struct kunit *test)
{
	struct twheel_ctx *ctx = ctx_new(test, 64);
	s64 now = ktime_get(), t0 = now + 3600LL * 1000 * MS;
	struct twheel_base *base;
	u64 clk, armed, next;

	KUNIT_ASSERT_EQ(test, ctx_add(ctx, 0, t0, TWHEEL_ABSTIME,
				      CLOCK_MONOTONIC, NULL), 0);
	twheel_ctx_lock_update(ctx, TWHEEL_UPDATE_ALL);
	base = twheel_ctx_timers(ctx)->clocks.bases[TWHEEL_CLK_MONOTONIC];
	armed = base->armed;
	KUNIT_EXPECT_EQ(test, armed, twheel_wheel_next(&base->wheel));
	now = ktime_get();
	KUNIT_EXPECT_TRUE(test, twheel_base_forward(base, now));
	KUNIT_EXPECT_EQ(test, base->wheel.clk, twheel_now_tick(now, MS));
	KUNIT_EXPECT_EQ(test, base->armed, armed);
	KUNIT_EXPECT_EQ(test, base->wheel.count, 1ULL);
	/*
	 * The next event: the timer's tick, or before it a cascade of the
	 * slot that holds it. By then (a cascade to do, or the timer due)
	 * nothing moves.
	 */
	next = twheel_wheel_next(&base->wheel);
	KUNIT_EXPECT_LE(test, next, twheel_deadline_tick(t0, MS));
	clk = base->wheel.clk;
	KUNIT_EXPECT_FALSE(test, twheel_base_forward(base, next * MS));
	KUNIT_EXPECT_FALSE(test, twheel_base_forward(base, t0 + MS));
	KUNIT_EXPECT_EQ(test, base->wheel.clk, clk);
	/* A tick before it: the clock moves, the event stays. */
	KUNIT_EXPECT_TRUE(test, twheel_base_forward(base, next * MS - 1));
	KUNIT_EXPECT_EQ(test, base->wheel.clk, next - 1);
	KUNIT_EXPECT_EQ(test, twheel_wheel_next(&base->wheel), next);
	KUNIT_EXPECT_EQ(test, base->armed, armed);
	/* Behind the wheel's clock (as after a clock set back): nothing. */
	clk = base->wheel.clk;
	KUNIT_EXPECT_FALSE(test, twheel_base_forward(base, now));
	KUNIT_EXPECT_EQ(test, base->wheel.clk, clk);
	twheel_ctx_unlock(ctx);
	twheel_ctx_destroy(ctx);
}

/*
 * A MODIFY to a later deadline, or a cancel, of the timer the hrtimer is
 * armed for moves the hrtimer to the wheel's next event at once (as
 * timerfd_settime() and a timerfd's close move theirs), unless another
 * timer still holds that tick; a timer of a slot the hrtimer is armed to
 * cascade leaves it there.
 */
static void twheel_base_follows_first(struct kunit *test)
{
	struct twheel_ctx *ctx = ctx_new(test, 64);
	u64 a, b, c, d;

	KUNIT_ASSERT_EQ(test, twheel_ctx_config(ctx, MS, TWHEEL_CONFIG_MANUAL,
						0), 0);
	KUNIT_ASSERT_EQ(test, ctx_add(ctx, 1, 10 * MS, 0, CLOCK_MONOTONIC,
				      &a), 0);
	KUNIT_ASSERT_EQ(test, ctx_add(ctx, 2, 10 * MS, 0, CLOCK_MONOTONIC,
				      &b), 0);
	KUNIT_ASSERT_EQ(test, ctx_add(ctx, 3, 20 * MS, 0, CLOCK_MONOTONIC,
				      &c), 0);
	KUNIT_EXPECT_EQ(test, mono(ctx)->armed, 10ULL);
	/* b still holds tick 10. */
	KUNIT_ASSERT_EQ(test, ctx_modify(ctx, a, 30 * MS), 0);
	KUNIT_EXPECT_EQ(test, mono(ctx)->armed, 10ULL);
	/* Nothing does now: on to c's tick. */
	KUNIT_ASSERT_EQ(test, ctx_modify(ctx, b, 40 * MS), 0);
	KUNIT_EXPECT_EQ(test, mono(ctx)->armed, 20ULL);
	KUNIT_EXPECT_EQ(test, ctx_cancel(ctx, c, NULL), 0);
	KUNIT_EXPECT_EQ(test, mono(ctx)->armed, 30ULL);
	/* Tick 100 is in level 1: its slot cascades at tick 64. */
	KUNIT_ASSERT_EQ(test, ctx_add(ctx, 4, 100 * MS, 0, CLOCK_MONOTONIC,
				      &d), 0);
	KUNIT_EXPECT_EQ(test, ctx_cancel(ctx, a, NULL), 0);
	KUNIT_EXPECT_EQ(test, mono(ctx)->armed, 40ULL);
	KUNIT_EXPECT_EQ(test, ctx_cancel(ctx, b, NULL), 0);
	KUNIT_EXPECT_EQ(test, mono(ctx)->armed, 64ULL);
	/* The cascade's event stays for d's later deadline... */
	KUNIT_ASSERT_EQ(test, ctx_modify(ctx, d, 200 * MS), 0);
	KUNIT_EXPECT_EQ(test, mono(ctx)->armed, 64ULL);
	/* ... and goes with the wheel's last timer. */
	KUNIT_EXPECT_EQ(test, ctx_cancel(ctx, d, NULL), 0);
	KUNIT_EXPECT_EQ(test, mono(ctx)->armed, TWHEEL_NEVER);
	KUNIT_EXPECT_EQ(test, ctx_timers(ctx), 0ULL);
	twheel_ctx_destroy(ctx);
}

/* A wheel holds the levels its timers use, and frees them when empty. */
static void twheel_base_levels_follow_use(struct kunit *test)
{
	struct twheel_ctx *ctx = ctx_new(test, 16);
	struct ctx_records *r;
	struct twheel_wheel *w;
	u64 a, b;
	int i;

	KUNIT_ASSERT_EQ(test, twheel_ctx_config(ctx, MS, true, 0), 0);
	r = kunit_kzalloc(test, sizeof(*r), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, r);
	/* Level 0: under 64 ticks; level 2: 4096 to 262143 ticks. */
	KUNIT_ASSERT_EQ(test, ctx_add(ctx, 1, 10 * MS, 0, CLOCK_MONOTONIC,
				      &a), 0);
	w = &twheel_ctx_timers(ctx)->clocks.bases[TWHEEL_CLK_MONOTONIC]->wheel;
	KUNIT_EXPECT_NOT_NULL(test, w->lvl[0]);
	for (i = 1; i < TWHEEL_LEVELS; i++)
		KUNIT_EXPECT_NULL(test, w->lvl[i]);
	KUNIT_ASSERT_EQ(test, ctx_add(ctx, 2, 5000 * MS, 0, CLOCK_MONOTONIC,
				      &b), 0);
	KUNIT_EXPECT_NOT_NULL(test, w->lvl[2]);
	KUNIT_EXPECT_NULL(test, w->lvl[1]);
	/*
	 * Level 0, emptied by a's expiry, stays below level 2, which holds
	 * b: b's cascade will need it, and taking it back now would make
	 * that cascade wait for the task (a wake-up, on a real clock).
	 */
	ctx_advance(test, ctx, 10 * MS);
	KUNIT_ASSERT_EQ(test, twheel_ctx_read(ctx, 16, ctx_emit, r), 1L);
	KUNIT_EXPECT_EQ(test, r->ev[0].id, a);
	KUNIT_EXPECT_EQ(test, w->pending[0], 0ULL);
	KUNIT_EXPECT_NOT_NULL(test, w->lvl[0]);
	KUNIT_EXPECT_NOT_NULL(test, w->lvl[2]);
	/* An empty wheel keeps no level. */
	KUNIT_EXPECT_EQ(test, ctx_cancel(ctx, b, NULL), 0);
	for (i = 0; i < TWHEEL_LEVELS; i++)
		KUNIT_EXPECT_NULL(test, w->lvl[i]);
	/* Cascades take the levels they need, and give them back. */
	KUNIT_ASSERT_EQ(test, ctx_add(ctx, 3, 5000 * MS, 0, CLOCK_MONOTONIC,
				      &b), 0);
	ctx_advance(test, ctx, 4999 * MS);
	KUNIT_EXPECT_EQ(test, twheel_ctx_timers(ctx)->nr_queued, 0ULL);
	KUNIT_EXPECT_NULL(test, w->lvl[2]);
	ctx_advance(test, ctx, MS);
	r->n = 0;
	KUNIT_ASSERT_EQ(test, twheel_ctx_read(ctx, 16, ctx_emit, r), 1L);
	KUNIT_EXPECT_EQ(test, r->ev[0].id, b);
	KUNIT_EXPECT_EQ(test, r->ev[0].time_ns, 5010 * MS);
	for (i = 0; i < TWHEEL_LEVELS; i++)
		KUNIT_EXPECT_NULL(test, w->lvl[i]);
	twheel_ctx_destroy(ctx);
}

static struct kunit_case twheel_base_cases[] = {
	KUNIT_CASE(twheel_time_deadline_rounds_up),
	KUNIT_CASE(twheel_time_now_rounds_down),
	KUNIT_CASE(twheel_time_never_early),
	KUNIT_CASE(twheel_time_saturates),
	KUNIT_CASE(twheel_base_clock_index),
	KUNIT_CASE(twheel_base_saturated_deadlines),
	KUNIT_CASE(twheel_base_cascade_queues_nothing),
	KUNIT_CASE(twheel_base_hrtimer_only_wakes),
	KUNIT_CASE(twheel_base_alarm_wakes),
	KUNIT_CASE(twheel_base_clock_set),
	KUNIT_CASE(twheel_base_clock_set_many),
	KUNIT_CASE(twheel_base_rebase),
	KUNIT_CASE(twheel_base_set_during_rebase),
	KUNIT_CASE(twheel_base_levels_follow_use),
	KUNIT_CASE(twheel_base_forward_quiet_only),
	KUNIT_CASE(twheel_base_follows_first),
	{}
};

static struct kunit_suite twheel_base_suite = {
	.name = "twheel_base",
	.test_cases = twheel_base_cases,
};

kunit_test_suite(twheel_base_suite);
