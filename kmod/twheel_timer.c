// SPDX-License-Identifier: GPL-2.0
/*
 * twheel_timer.c - the timers of a set: their objects and slab caches,
 * their ids, where they wait (a clock base's wheel, pending; the set's
 * queue of records, queued), the periodic arithmetic, the records that
 * read() hands over. Their memory (slab caches, spare objects, the
 * memory of a batch) is in twheel_timer_mem.c; bringing the wheels up to
 * date (the update, the table's re-placement, wall clock sets) in
 * twheel_update.c.
 *
 * Life of a timer: an add (twheel_op.c) places it in the wheel of its
 * clock (pending) and re-arms that clock's hrtimer if the new deadline
 * comes first. When the hrtimer fires, its callback marks the set and
 * wakes the waiters, nothing else (twheel_base.c). The wheel is advanced
 * by the next task that uses the set (twheel_timers_update(), under the
 * set's lock); every timer it hands back becomes a queued record.
 * read() consumes records and frees their one-shot timers; a periodic
 * timer goes back into the wheel when its record is read, for the first
 * deadline of its period's grid after the present, with the record's
 * count telling how many deadlines passed (as timerfd re-arms in read,
 * not in its callback: an unread periodic timer costs no interrupt). A
 * cancel frees a timer in either state; a modify takes it out of either
 * and places it again. Each expiry thus ends exactly once: read, or
 * retracted by a cancel or a modify.
 *
 * Layering: called by the set (twheel_ctx.c) with its lock held; calls
 * the clock bases (twheel_base.c), the ids (twheel_ids.c), the user
 * accounting (twheel_user.c) and the counters (twheel_stats.c), and
 * nothing of the set. The trace events are created here.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ktime.h>
#include <linux/math64.h>
#include <linux/overflow.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <kunit/visibility.h>

#include "twheel_compat.h"
#include "twheel_irq.h"
#include "twheel_stats.h"
#include "twheel_time.h"
#include "twheel_timer.h"
#include "twheel_user.h"

#define CREATE_TRACE_POINTS
#include "twheel_trace.h"

/**
 * twheel_timers_init() - the timers of a new set: none
 * @tm: zeroed
 * @user: the user the set is charged to, or NULL
 * @max_timers: the most live timers it may hold, >= 1
 * @tick_ns: its resolution, >= 1
 * @trace_id: its trace id
 */
void twheel_timers_init(struct twheel_timers *tm, struct twheel_user *user,
			u64 max_timers, u64 tick_ns, u64 trace_id)
{
	tm->user = user;
	twheel_ids_init(&tm->ids);
	INIT_LIST_HEAD(&tm->ready);
	twheel_clocks_init(&tm->clocks, tick_ns, trace_id);
	/* Its hrtimer callbacks' own work on a set with a table. */
	tm->clocks.fired = twheel_irq_fired;
	tm->max_timers = max_timers;
}

/**
 * twheel_timers_destroy() - cancel and free every timer and clock base
 * @tm: the timers of a set nobody else uses any more
 *
 * Waits for running hrtimer callbacks, so nothing of @tm runs after it
 * returns. Walks the id slots TWHEEL_CHUNK at a time, offering to
 * reschedule between two chunks: closing a million timers, or an fd
 * whose million slots are free, delays nobody else. Gives the set's
 * timer slots back to its user.
 */
void twheel_timers_destroy(struct twheel_timers *tm)
{
	struct twheel_timer *t;
	u32 slot = 0, budget;

	/* Nobody else holds the file, so nothing re-arms after this. */
	twheel_clocks_unwatch(&tm->clocks);
	twheel_clocks_stop(&tm->clocks);
	while (slot < tm->ids.nr_slots) {
		budget = TWHEEL_CHUNK;
		while ((t = twheel_ids_next(&tm->ids, &slot, &budget)))
			twheel_timer_release(t);
		cond_resched();
	}
	twheel_timers_spare_free(tm);
	twheel_stat_add(freed, tm->nr_timers);
	if (tm->user)
		twheel_user_close(tm->user, tm->ids.nr_slots);
	twheel_ids_destroy(&tm->ids);
	twheel_table_free(&tm->table);
	kfree(tm->sets);
	twheel_clocks_free(&tm->clocks);
}

/**
 * twheel_timer_forget() - end a timer's life in the set
 * @tm: the timers
 * @t: the timer, in no list any more; the caller frees it or keeps it
 *
 * Its table entry goes to 0, its id slot is freed, it no longer counts.
 */
void twheel_timer_forget(struct twheel_timers *tm, struct twheel_timer *t)
{
	if (twheel_table_on(&tm->table))
		twheel_table_write(&tm->table, twheel_timer_id(t), 0);
	twheel_ids_remove(&tm->ids, twheel_timer_id(t));
	tm->nr_timers--;
	twheel_stat_add(freed, 1);
}

/* Forget @t and free it. */
static void twheel_timer_free(struct twheel_timers *tm, struct twheel_timer *t)
{
	twheel_timer_forget(tm, t);
	twheel_timer_release(t);
}

/**
 * twheel_timer_unlink() - take a timer out of the wheel or the queue
 * @tm: the timers
 * @t: the timer, pending or queued
 */
void twheel_timer_unlink(struct twheel_timers *tm, struct twheel_timer *t)
{
	struct twheel_base *base;
	unsigned long flags;

	if (!twheel_timer_queued(t)) {
		base = twheel_base_of(&tm->clocks, twheel_timer_clock(t));
		twheel_base_lock(base, flags);
		twheel_wheel_remove(&base->wheel, &t->entry);
		__twheel_base_left(base, t->entry.expires);
		twheel_base_unlock(base, flags);
	} else {
		list_del(&t->rec.link);
		WRITE_ONCE(tm->nr_queued, tm->nr_queued - 1);
		t->word &= ~(TWHEEL_TIMER_QUEUED | TWHEEL_TIMER_SET);
	}
}

/**
 * twheel_timer_cancel() - take a timer out of the wheel or the queue and
 *                         forget it
 * @tm: the timers
 * @t: the timer; the caller frees it
 */
void twheel_timer_cancel(struct twheel_timers *tm, struct twheel_timer *t)
{
	struct twheel_base *base = twheel_base_of(&tm->clocks,
						  twheel_timer_clock(t));
	bool pending = !twheel_timer_queued(t);

	trace_twheel_timer_cancel(tm->clocks.trace_id, twheel_timer_id(t),
				  t->cookie,
				  twheel_clock_id(twheel_timer_clock(t)),
				  pending ? TWHEEL_STATE_PENDING :
					    TWHEEL_STATE_QUEUED);
	twheel_timer_unlink(tm, t);
	/* Keep an idle fd free of wake-ups. */
	if (pending)
		twheel_base_arm_idle(base);
	twheel_timer_forget(tm, t);
}

/**
 * twheel_periods_after() - a deadline @n periods after another
 * @d: the deadline (kernel time)
 * @n: how many periods
 * @p: the period
 *
 * The step may exceed KTIME_MAX when @d is negative (a first deadline far
 * in the past): the sum is taken in u64, where KTIME_MAX - @d and the
 * result are exact.
 *
 * Return: @d + @n * @p, saturating at KTIME_MAX.
 */
s64 twheel_periods_after(s64 d, u64 n, u64 p)
{
	u64 step;

	if (check_mul_overflow(n, p, &step) ||
	    step > (u64)KTIME_MAX - (u64)d)
		return KTIME_MAX;
	return (s64)((u64)d + step);
}

/*
 * The deadlines of a queued periodic timer's grid that have passed at
 * @now_ns: its first, and every later one. At least 1 (the wall clock may
 * have been set back since it was queued).
 */
static u64 twheel_ptimer_passed(const struct twheel_ptimer *pt, s64 now_ns)
{
	if (now_ns <= pt->deadline_ns)
		return 1;
	return 1 + div64_u64((u64)now_ns - (u64)pt->deadline_ns, pt->period_ns);
}

/* The expiries its record stands for at @now_ns: all, or just one. */
static u64 twheel_ptimer_count(const struct twheel_ptimer *pt, s64 now_ns)
{
	if (pt->missed != TWHEEL_MISSED_COUNT >> TWHEEL_MISSED_SHIFT)
		return 1;
	return twheel_ptimer_passed(pt, now_ns);
}

/*
 * The next deadline of a queued periodic timer whose record is read at
 * @now_ns (see TWHEEL_MISSED_*): the next point of its grid after
 * @now_ns; the next after the one its record was for (burst); or one
 * period after @now_ns (delay).
 */
static s64 twheel_ptimer_next(const struct twheel_ptimer *pt, s64 now_ns)
{
	switch (pt->missed << TWHEEL_MISSED_SHIFT) {
	case TWHEEL_MISSED_BURST:
		return twheel_periods_after(pt->deadline_ns, 1, pt->period_ns);
	case TWHEEL_MISSED_DELAY:
		return twheel_periods_after(now_ns, 1, pt->period_ns);
	default:
		return twheel_periods_after(pt->deadline_ns,
					    twheel_ptimer_passed(pt, now_ns),
					    pt->period_ns);
	}
}

/**
 * twheel_trace_expire() - the trace event of a timer's expiry
 * @tm: the timers
 * @t: the timer whose record is queued
 * @deadline_ns: when it was due (kernel time)
 * @now_ns: the present its record is made at
 */
void twheel_trace_expire(struct twheel_timers *tm, struct twheel_timer *t,
			 s64 deadline_ns, s64 now_ns)
{
	trace_twheel_timer_expire(tm->clocks.trace_id, twheel_timer_id(t),
				  t->cookie,
				  twheel_clock_id(twheel_timer_clock(t)),
				  deadline_ns, now_ns);
}

/**
 * twheel_timers_queue() - append records to the queue
 * @tm: the timers
 * @recs: the timers, marked queued, their records made
 * @n: how many
 * @wake: have the set wake the waiters at unlock (not needed when an
 *        hrtimer callback woke them for these records: see
 *        twheel_ctx_fired())
 */
void twheel_timers_queue(struct twheel_timers *tm, struct list_head *recs,
			 u64 n, bool wake)
{
	list_splice_tail(recs, &tm->ready);
	WRITE_ONCE(tm->nr_queued, tm->nr_queued + n);
	twheel_stat_add(expired, n);
	if (wake)
		tm->need_wake = true;
}

/**
 * twheel_timer_publish() - write a timer's deadline into its table entry
 * @tm: the timers, with a table (twheel_table_on())
 * @t: the timer, just given @deadline by an add or a modify
 * @deadline: its deadline (kernel time)
 *
 * The entry says TWHEEL_TABLE_DEADLINE(id, D), D the tick struct
 * twheel_status.deadline_ns falls in: read back when the timer falls
 * due, it asks for nothing later.
 */
void twheel_timer_publish(struct twheel_timers *tm, struct twheel_timer *t,
			  s64 deadline)
{
	struct twheel_ptimer *pt = twheel_ptimer(t);
	u64 tick_ns = tm->clocks.tick_ns, id = twheel_timer_id(t);
	s64 at = deadline;

	if (!pt || !pt->period_ns)
		at = twheel_tick_ns(twheel_deadline_tick(deadline, tick_ns),
				    tick_ns);
	at = twheel_clocks_to_user(&tm->clocks, twheel_timer_clock(t), at);
	twheel_table_write(&tm->table, id,
			   TWHEEL_TABLE_DEADLINE(id, twheel_floor_div(at,
								      tick_ns)));
}

/* Is @t the set's record of wall clock sets (id 0)? */
static bool twheel_timer_is_sets_rec(struct twheel_timers *tm,
				     struct twheel_timer *t)
{
	return tm->sets && t == &tm->sets->rec;
}

/* twheel_timer_place(); with @held, twheel_timer_move(). */
static void __twheel_timer_place(struct twheel_timers *tm,
				 struct twheel_timer *t, s64 deadline,
				 s64 now_ns, bool held)
{
	struct twheel_base *base = twheel_base_of(&tm->clocks,
						  twheel_timer_clock(t));
	struct twheel_ptimer *pt = twheel_ptimer(t);
	u64 tick = twheel_deadline_tick(deadline, tm->clocks.tick_ns);
	u64 old = t->entry.expires;
	bool now, added = false;
	unsigned long flags;
	LIST_HEAD(one);

	twheel_base_lock(base, flags);
	/* Wherever the callback left it: a slot, the due or parked list. */
	if (held)
		twheel_wheel_remove(&base->wheel, &t->entry);
	if (pt)
		pt->deadline_ns = deadline;
	/*
	 * The wheel's clock at @tick is not enough: the hrtimer callback
	 * may have advanced it there since @now_ns was read and given back
	 * the tick's timers, still in the wheel (twheel_irq.c).
	 */
	now = deadline <= now_ns && !twheel_wheel_holds(&base->wheel, tick);
	if (!now)
		added = __twheel_base_add(base, &t->entry, tick, true);
	/* First in line and moved later (or queued): the hrtimer follows. */
	if (held && (added || now))
		__twheel_base_left(base, old);
	twheel_base_unlock(base, flags);
	if (now) {
		if (trace_twheel_timer_expire_enabled())
			twheel_trace_expire(tm, t, pt ? deadline :
					    twheel_tick_ns(tick,
							   tm->clocks.tick_ns),
					    now_ns);
		t->word |= TWHEEL_TIMER_QUEUED;
		t->rec.time_ns = now_ns;
		list_add_tail(&t->rec.link, &one);
		twheel_timers_queue(tm, &one, 1, true);
		return;
	}
	if (!added)
		twheel_base_add(base, &t->entry, tick, true);
}

/**
 * twheel_timer_place() - put a timer in the wheel, or queue its record
 * @tm: the timers
 * @t: in neither the wheel nor the queue
 * @deadline: its deadline (kernel time)
 * @now_ns: the present; its clock's wheel is up to date at @now_ns unless
 *          @deadline is after @now_ns
 *
 * Queue @t's record at once when its deadline has passed and no timer of
 * its tick waits in the wheel, not yet queued (one that does was added
 * earlier and comes first: this one then goes in the wheel behind it,
 * handed back after it); else put it in the wheel. A deadline after
 * @now_ns always goes to the wheel, also when the wheel's clock is ahead
 * of @now_ns (the wall clock was set back): the wheel's next update takes
 * it out and adds it again. One hold of the base's lock decides and adds,
 * unless the wheel lacks the level @t needs.
 */
void twheel_timer_place(struct twheel_timers *tm, struct twheel_timer *t,
			s64 deadline, s64 now_ns)
{
	__twheel_timer_place(tm, t, deadline, now_ns, false);
}

/**
 * twheel_timer_move() - a pending timer to a new deadline
 * @tm: the timers
 * @t: pending: held by its clock's wheel
 * @deadline: its new deadline (kernel time)
 * @now_ns: as for twheel_timer_place()
 *
 * twheel_timer_unlink() and twheel_timer_place() in one hold of the base's
 * lock. The caller may change @t's period, flags and cookie first: until
 * that hold the callback may act on old or new ones (twheel_irq.c), and
 * the hold takes @t out of wherever it left it and places it anew.
 */
void twheel_timer_move(struct twheel_timers *tm, struct twheel_timer *t,
		       s64 deadline, s64 now_ns)
{
	__twheel_timer_place(tm, t, deadline, now_ns, true);
}

/**
 * twheel_timer_status() - a timer's status, every field set
 * @tm: the timers
 * @t: the timer
 * @st: set
 */
void twheel_timer_status(struct twheel_timers *tm, struct twheel_timer *t,
			 struct twheel_status *st)
{
	struct twheel_ptimer *pt = twheel_ptimer(t);
	u32 clock = twheel_timer_clock(t);
	s64 now_ns = twheel_clock_now(&tm->clocks, clock);
	struct twheel_base *base;
	unsigned long flags;
	s64 next = 0;
	bool coming = true;
	u64 tick;

	memset(st, 0, sizeof(*st));
	st->id = twheel_timer_id(t);
	st->cookie = t->cookie;
	st->clock = twheel_clock_id(clock);
	st->period_ns = pt ? pt->period_ns : 0;
	if (!twheel_timer_queued(t)) {
		st->state = TWHEEL_STATE_PENDING;
		/* A periodic timer's grid is exact; a one-shot's, its tick. */
		base = twheel_base_of(&tm->clocks, clock);
		/* The callback may have moved it later (twheel_irq.c). */
		twheel_base_lock(base, flags);
		tick = t->entry.expires;
		twheel_base_unlock(base, flags);
		next = pt && pt->period_ns ? pt->deadline_ns :
		       twheel_tick_ns(tick, tm->clocks.tick_ns);
	} else if (twheel_timer_set_rec(t)) {
		/* Ended by a clock set: no expiry, none coming. */
		st->state = TWHEEL_STATE_QUEUED;
		coming = false;
	} else if (pt && pt->period_ns) {
		st->state = TWHEEL_STATE_QUEUED;
		st->count = twheel_ptimer_count(pt, now_ns);
		next = twheel_ptimer_next(pt, now_ns);
	} else {
		st->state = TWHEEL_STATE_QUEUED;
		st->count = 1;
		coming = false;
	}
	if (coming) {
		st->deadline_ns = twheel_clocks_to_user(&tm->clocks, clock, next);
		st->remaining_ns = next > now_ns ? next - now_ns : 0;
	}
}

/*
 * twheel_timer_record() - the record of a queued timer
 * @tm: the timers
 * @t: the timer, queued
 * @ev: set to its record
 * @now: per clock, its present once read in this batch of records
 * @valid: bit per clock: @now is valid (set here when read)
 */
static void twheel_timer_record(struct twheel_timers *tm,
				struct twheel_timer *t, struct twheel_event *ev,
				s64 *now, u8 *valid)
{
	struct twheel_ptimer *pt = twheel_ptimer(t);
	u32 clock = twheel_timer_clock(t);

	ev->id = twheel_timer_id(t);
	ev->cookie = t->cookie;
	ev->time_ns = twheel_clocks_to_user(&tm->clocks, clock,
					    t->rec.time_ns);
	ev->count = 1;
	ev->clock = twheel_clock_id(clock);
	ev->flags = 0;
	if (twheel_timer_set_rec(t)) {
		ev->flags = TWHEEL_EVENT_CLOCK_SET;
		ev->count = twheel_timer_is_sets_rec(tm, t) ? tm->sets->count : 0;
		return;
	}
	if (pt && pt->period_ns) {
		if (!(*valid & BIT(clock))) {
			now[clock] = twheel_clock_now(&tm->clocks, clock);
			*valid |= BIT(clock);
		}
		ev->count = twheel_ptimer_count(pt, now[clock]);
	}
}

/*
 * twheel_timer_consume() - end a record that was read
 * @tm: the timers
 * @t: the timer whose record the caller took off the queue (with the
 *     others it took)
 * @now: per clock, the present the records were made at
 * @bulk: a small one-shot timer not kept for the next adds is left in
 *        @bulk[*@nbulk], for the caller to free with the others
 * @nbulk: counts @bulk
 *
 * Frees a one-shot timer; puts a periodic one back for its next deadline.
 */
static void twheel_timer_consume(struct twheel_timers *tm,
				 struct twheel_timer *t, const s64 *now,
				 void **bulk, u32 *nbulk)
{
	struct twheel_ptimer *pt = twheel_ptimer(t);
	bool set = twheel_timer_set_rec(t);

	t->word &= ~(TWHEEL_TIMER_QUEUED | TWHEEL_TIMER_SET);
	if (twheel_timer_is_sets_rec(tm, t)) {
		tm->sets->count = 0;
		return;
	}
	/* A clock set ends any timer; an expiry, a one-shot one. */
	if (set || !pt || !pt->period_ns) {
		if (pt) {
			twheel_timer_free(tm, t);
			return;
		}
		twheel_timer_forget(tm, t);
		if (!twheel_timer_spare_put(tm, t))
			bulk[(*nbulk)++] = t;
		return;
	}
	/*
	 * After the present, into the wheel, whose clock is not past it; or,
	 * bursting through missed deadlines, queued again at once.
	 */
	twheel_timer_place(tm, t,
			   twheel_ptimer_next(pt, now[twheel_timer_clock(t)]),
			   now[twheel_timer_clock(t)]);
}

/*
 * Is @t's record that of a periodic timer for a deadline after @until on
 * its clock (@until_valid: bit per clock, @until is set)?
 */
static bool twheel_timer_after(struct twheel_timer *t, const s64 *until,
			       u8 until_valid)
{
	struct twheel_ptimer *pt = twheel_ptimer(t);
	u32 clock = twheel_timer_clock(t);

	return pt && pt->period_ns && !twheel_timer_set_rec(t) &&
	       (until_valid & BIT(clock)) && pt->deadline_ns > until[clock];
}

/**
 * twheel_timers_peek() - the records at the head of the queue
 * @tm: the timers
 * @ev: set to the records, oldest first
 * @n: room in @ev, at most TWHEEL_READ_BATCH
 * @now: per clock, its present once read for this batch of records
 * @valid: bit per clock: @now is valid (set here when read)
 * @until: NULL; or, per clock, a present: stop before the record of a
 *        periodic timer for a deadline after it (a read that took that
 *        timer's record before put it back in the wheel for a deadline
 *        after that present: its next record is for the next read)
 * @until_valid: bit per clock: @until is set
 *
 * Nothing leaves the queue: twheel_timers_take() ends the records the
 * caller could hand over.
 *
 * Return: the number of records set, fewer than @n when the queue holds
 * fewer (or @until stopped it).
 */
u32 twheel_timers_peek(struct twheel_timers *tm, struct twheel_event *ev,
		       u32 n, s64 *now, u8 *valid, const s64 *until,
		       u8 until_valid)
{
	struct twheel_timer *t;
	u32 k = 0;

	list_for_each_entry(t, &tm->ready, rec.link) {
		if (k == n || (until && twheel_timer_after(t, until, until_valid)))
			break;
		twheel_timer_record(tm, t, &ev[k++], now, valid);
	}
	return k;
}

/**
 * twheel_timers_take() - end the records at the head of the queue, read
 * @tm: the timers
 * @n: how many were read, >= 1, at most what twheel_timers_peek() set
 * @now: the presents twheel_timers_peek() read
 *
 * They leave the queue in one cut. One-shot timers are freed (the small
 * ones together, or kept for the next adds); periodic ones go back into
 * the wheel for their next deadline (see TWHEEL_MISSED_*).
 */
void twheel_timers_take(struct twheel_timers *tm, u32 n, const s64 *now)
{
	struct twheel_timer *t, *next, *last;
	void *bulk[TWHEEL_READ_BATCH];
	struct list_head taken;
	u32 i, nbulk = 0;

	if (WARN_ON_ONCE(n > TWHEEL_READ_BATCH || n > tm->nr_queued))
		return;
	last = list_first_entry(&tm->ready, struct twheel_timer, rec.link);
	for (i = 1; i < n; i++)
		last = list_next_entry(last, rec.link);
	list_cut_position(&taken, &tm->ready, &last->rec.link);
	WRITE_ONCE(tm->nr_queued, tm->nr_queued - n);
	list_for_each_entry_safe(t, next, &taken, rec.link)
		twheel_timer_consume(tm, t, now, bulk, &nbulk);
	if (nbulk)
		twheel_timers_free_bulk(nbulk, bulk);
}
