// SPDX-License-Identifier: GPL-2.0
/*
 * twheel_timer.c - the timers of a set: their objects and slab caches,
 * their ids, where they wait (a clock base's wheel, pending; the set's
 * queue of records, queued), the periodic arithmetic, the records that
 * read() hands over, and the memory of a batch.
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

#include <linux/build_bug.h>
#include <linux/ktime.h>
#include <linux/math64.h>
#include <linux/overflow.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <kunit/visibility.h>

#include "twheel_compat.h"
#include "twheel_stats.h"
#include "twheel_time.h"
#include "twheel_timer.h"
#include "twheel_user.h"

#define CREATE_TRACE_POINTS
#include "twheel_trace.h"

static struct kmem_cache *twheel_timer_cache;
static struct kmem_cache *twheel_ptimer_cache;

static void twheel_timer_release(struct twheel_timer *t)
{
	struct twheel_ptimer *pt = twheel_ptimer(t);

	if (pt)
		kmem_cache_free(twheel_ptimer_cache, pt);
	else
		kmem_cache_free(twheel_timer_cache, t);
}

/* Keep @t, a small timer nobody holds, for the next add if the set may. */
static bool twheel_timer_spare_put(struct twheel_timers *tm,
				   struct twheel_timer *t)
{
	/* One object per free id slot at most: see TWHEEL_SPARE_MAX. */
	if (tm->nr_spare == TWHEEL_SPARE_MAX ||
	    tm->nr_timers + tm->nr_spare >= tm->ids.nr_slots)
		return false;
	t->entry.node.next = (struct list_head *)tm->spare;
	tm->spare = t;
	WRITE_ONCE(tm->nr_spare, tm->nr_spare + 1);
	return true;
}

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
	while (tm->spare)
		kmem_cache_free(twheel_timer_cache, twheel_timer_spare_get(tm));
	twheel_stat_add(freed, tm->nr_timers);
	if (tm->user)
		twheel_user_close(tm->user, tm->ids.nr_slots);
	twheel_ids_destroy(&tm->ids);
	twheel_table_free(&tm->table);
	kfree(tm->sets);
	twheel_clocks_free(&tm->clocks);
}

/* Forget @t, whose lists no longer hold it. */
static void twheel_timer_forget(struct twheel_timers *tm,
				struct twheel_timer *t)
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
	if (!twheel_timer_queued(t)) {
		twheel_wheel_remove(&twheel_base_of(&tm->clocks,
						    twheel_timer_clock(t))->wheel,
				    &t->entry);
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
	if (pending && twheel_wheel_empty(&base->wheel))
		twheel_base_arm(base);
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

/*
 * When pending @t falls due, as the trace events show it: a periodic
 * timer's exact deadline, or the start of the tick a one-shot's deadline
 * rounded up to (all it keeps).
 */
static s64 twheel_timer_due_ns(struct twheel_timers *tm,
			       struct twheel_timer *t)
{
	struct twheel_ptimer *pt = twheel_ptimer(t);

	return pt ? pt->deadline_ns :
	       twheel_tick_ns(t->entry.expires, tm->clocks.tick_ns);
}

static void twheel_trace_expire(struct twheel_timers *tm,
				struct twheel_timer *t, s64 deadline_ns,
				s64 now_ns)
{
	trace_twheel_timer_expire(tm->clocks.trace_id, twheel_timer_id(t),
				  t->cookie,
				  twheel_clock_id(twheel_timer_clock(t)),
				  deadline_ns, now_ns);
}

/*
 * Append @n records to the queue; with @wake, have the set wake the
 * waiters at unlock (not needed when an hrtimer callback woke them for
 * these records: see twheel_ctx_fired()).
 */
static void twheel_timers_queue(struct twheel_timers *tm,
				struct list_head *recs, u64 n, bool wake)
{
	list_splice_tail(recs, &tm->ready);
	WRITE_ONCE(tm->nr_queued, tm->nr_queued + n);
	twheel_stat_add(expired, n);
	if (wake)
		tm->need_wake = true;
}

/* The floor of @ns / @tick_ns, for times before 0 too. */
static s64 twheel_floor_div(s64 ns, u64 tick_ns)
{
	s32 rem;
	s64 q;

	if (ns >= 0)
		return div64_u64(ns, tick_ns);
	/* tick_ns <= TWHEEL_MAX_TICK_NS fits s32. */
	q = div_s64_rem(ns, (s32)tick_ns, &rem);
	return rem ? q - 1 : q;
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

/*
 * The deadline a one-shot timer's table entry @v (meant for it) asks for,
 * read at @now_ns (kernel time on its clock): the tick whose low 32 bits
 * @v holds, within 2^31 ticks of the present tick (in the opener's time),
 * as kernel time; saturating.
 */
static s64 twheel_timer_entry_deadline(struct twheel_timers *tm, u32 clock,
				       u64 v, s64 now_ns)
{
	u64 tick_ns = tm->clocks.tick_ns;
	s64 ref, d, ns;

	ref = twheel_floor_div(twheel_clocks_to_user(&tm->clocks, clock,
						     now_ns), tick_ns);
	d = ref + (s32)((u32)v - (u32)ref);
	if (check_mul_overflow(d, (s64)tick_ns, &ns))
		ns = d > 0 ? KTIME_MAX : KTIME_MIN;
	return twheel_clocks_to_kernel(&tm->clocks, clock, ns);
}

/*
 * Act on the table entries of the timers an update of a wheel handed back
 * at @now_ns, due: a one-shot timer whose entry holds a later deadline
 * goes back into the wheel for it, a timer whose entry says cancelled
 * ends (counted in tm->table_cancelled); either leaves @expired, without
 * a record. The others stay, to be queued. Each entry is read once, and
 * what is put back is due after @now_ns: no timer comes back in this
 * update.
 *
 * Return: how many left @expired.
 */
static u64 twheel_timers_entries(struct twheel_timers *tm,
				 struct list_head *expired, s64 now_ns)
{
	struct twheel_timer *t, *next;
	struct twheel_ptimer *pt;
	s64 deadline;
	u64 v, n = 0;

	list_for_each_entry_safe(t, next, expired, rec.link) {
		if (!twheel_table_read(&tm->table, twheel_timer_id(t), &v))
			continue;
		pt = twheel_ptimer(t);
		if (v & TWHEEL_TABLE_CANCEL) {
			list_del(&t->rec.link);
			trace_twheel_timer_cancel(tm->clocks.trace_id,
						  twheel_timer_id(t), t->cookie,
						  twheel_clock_id(twheel_timer_clock(t)),
						  TWHEEL_STATE_PENDING);
			twheel_timer_forget(tm, t);
			if (pt || !twheel_timer_spare_put(tm, t))
				twheel_timer_release(t);
			tm->table_cancelled++;
			n++;
			continue;
		}
		if (pt && pt->period_ns)
			continue;
		deadline = twheel_timer_entry_deadline(tm,
						       twheel_timer_clock(t),
						       v, now_ns);
		if (deadline <= now_ns)
			continue;
		list_del(&t->rec.link);
		twheel_timer_place(tm, t, deadline, now_ns);
		n++;
	}
	return n;
}

/*
 * Bring @base's wheel up to @now_ns (kernel time on its clock), moving at
 * most *@budget entries, and queue the records of the timers it hands
 * back. @wake: records queued here were not announced by an hrtimer
 * callback.
 *
 * Return: true when the wheel is up to date (and its hrtimer armed for
 * its next event); false when the budget ran out first.
 */
static bool twheel_timers_update_base(struct twheel_timers *tm,
				      struct twheel_base *base, s64 now_ns,
				      u64 *budget, bool wake)
{
	struct twheel_base_step adv;
	struct twheel_timer *t;
	LIST_HEAD(expired);
	bool done;
	u64 n;

	done = twheel_base_update(base, now_ns, budget, &expired, &adv);
	n = adv.n;
	if (n && twheel_table_on(&tm->table))
		n -= twheel_timers_entries(tm, &expired, now_ns);
	if (n) {
		/* entry.node and rec.link are one list_head: walk, then splice. */
		list_for_each_entry(t, &expired, rec.link) {
			if (trace_twheel_timer_expire_enabled())
				twheel_trace_expire(tm, t,
						    twheel_timer_due_ns(tm, t),
						    now_ns);
			t->word |= TWHEEL_TIMER_QUEUED;
			t->rec.time_ns = now_ns;
		}
		twheel_timers_queue(tm, &expired, n, wake);
	}
	twheel_base_updated(base, *budget, &adv);
	return done;
}

/**
 * twheel_timers_watch_sets() - act on wall clock sets from now on
 * @tm: the timers
 * @records: also queue the set's record of them (TWHEEL_CONFIG_CLOCK_SET)
 *
 * Sets before are none of the set's business. Not for a manual set:
 * nothing sets a manual clock. The state it needs is allocated on the
 * first call (charged to the caller).
 *
 * Return: 0 or -ENOMEM.
 */
int twheel_timers_watch_sets(struct twheel_timers *tm, bool records)
{
	struct twheel_sets *sets;
	int ret;

	if (tm->sets) {
		tm->set_records |= records;
		return 0;
	}
	sets = kzalloc(sizeof(*sets), TWHEEL_GFP);
	if (!sets)
		return -ENOMEM;
	ret = twheel_clocks_watch(&tm->clocks);
	if (ret) {
		kfree(sets);
		return ret;
	}
	sets->seen = twheel_clock_set_seq();
	sets->rec.word = (u64)TWHEEL_CLK_REALTIME << TWHEEL_TIMER_CLOCK_SHIFT;
	/* Set up before twheel_timers_set_pending() can see it, lockless. */
	smp_store_release(&tm->sets, sets);
	tm->set_records |= records;
	return 0;
}

/**
 * twheel_timers_drop_set_rec() - forget the wall clock sets so far
 * @tm: the timers, none created yet
 *
 * For a configuration: the sets before it are not reported (their record
 * leaves the queue), nor acted on (no timer exists to end).
 */
void twheel_timers_drop_set_rec(struct twheel_timers *tm)
{
	struct twheel_sets *sets = tm->sets;

	if (!sets)
		return;
	if (twheel_timer_queued(&sets->rec))
		twheel_timer_unlink(tm, &sets->rec);
	sets->count = 0;
	WRITE_ONCE(sets->walk, false);
	WRITE_ONCE(sets->seen, twheel_clock_set_seq());
}

/**
 * twheel_timers_set_pending() - is a wall clock set still to be acted on?
 * @tm: the timers
 *
 * Lockless (for twheel_ctx_fired()); under the set's lock, exact: an
 * operation that depends on the sets done asks this first.
 *
 * Return: true when the wall clock was set since the set last acted on
 * it, or while it is acting on it.
 */
bool twheel_timers_set_pending(struct twheel_timers *tm)
{
	/* Pairs with the release that publishes it. */
	struct twheel_sets *sets = smp_load_acquire(&tm->sets);

	return sets && !READ_ONCE(tm->clocks.manual) &&
	       (READ_ONCE(sets->walk) ||
		twheel_clock_set_seq() != READ_ONCE(sets->seen));
}
EXPORT_SYMBOL_IF_KUNIT(twheel_timers_set_pending);

/* Is @t the set's record of wall clock sets (id 0)? */
static bool twheel_timer_is_sets_rec(struct twheel_timers *tm,
				     struct twheel_timer *t)
{
	return tm->sets && t == &tm->sets->rec;
}

/* End pending @t, a TWHEEL_CANCEL_ON_SET timer, by a clock set. */
static void twheel_timer_set_end(struct twheel_timers *tm,
				 struct twheel_timer *t)
{
	struct twheel_base *base = twheel_base_of(&tm->clocks,
						  twheel_timer_clock(t));

	twheel_timer_unlink(tm, t);
	if (twheel_wheel_empty(&base->wheel))
		twheel_base_arm(base);
	t->word |= TWHEEL_TIMER_QUEUED | TWHEEL_TIMER_SET;
	t->rec.time_ns = twheel_clock_now(&tm->clocks, twheel_timer_clock(t));
	list_add_tail(&t->rec.link, &tm->ready);
	WRITE_ONCE(tm->nr_queued, tm->nr_queued + 1);
	tm->need_wake = true;
}

/*
 * Act on the wall clock sets not yet acted on: queue the set's record of
 * them, then walk the id slots and end every pending timer that asked to
 * be cancelled by a set, at most *@budget slots per call. Timers added
 * meanwhile cannot be among them: an operation on such a timer waits for
 * the walk to end (twheel_timers_set_pending()).
 *
 * Return: true when done.
 */
static bool twheel_timers_sets(struct twheel_timers *tm, u64 *budget)
{
	u32 b = min_t(u64, *budget, U32_MAX), start = b;
	struct twheel_sets *sets = tm->sets;
	struct twheel_timer *t;

	if (!sets->walk) {
		sets->target = twheel_clock_set_seq();
		if (tm->set_records) {
			sets->count += sets->target - sets->seen;
			if (!twheel_timer_queued(&sets->rec)) {
				sets->rec.word |= TWHEEL_TIMER_QUEUED |
						  TWHEEL_TIMER_SET;
				sets->rec.rec.time_ns =
					twheel_clock_now(&tm->clocks,
							 TWHEEL_CLK_REALTIME);
				list_add_tail(&sets->rec.rec.link, &tm->ready);
				WRITE_ONCE(tm->nr_queued, tm->nr_queued + 1);
				tm->need_wake = true;
			}
		}
		sets->slot = 0;
		WRITE_ONCE(sets->walk, true);
	}
	while ((t = twheel_ids_next(&tm->ids, &sets->slot, &b)))
		if ((t->word & (TWHEEL_TIMER_COS | TWHEEL_TIMER_QUEUED)) ==
		    TWHEEL_TIMER_COS)
			twheel_timer_set_end(tm, t);
	*budget -= start - b;
	if (sets->slot < tm->ids.nr_slots)
		return false;
	WRITE_ONCE(sets->seen, sets->target);
	WRITE_ONCE(sets->walk, false);
	return true;
}

/**
 * twheel_timers_update() - one chunk of bringing every clock up to date
 * @tm: the timers
 * @budget: the most entries to move, over all clocks
 *
 * The records of the timers that fell due are queued; the hrtimer's
 * callback already woke the waiters for them.
 *
 * Return: true when all are up to date.
 */
bool twheel_timers_update(struct twheel_timers *tm, u64 *budget)
{
	struct twheel_base *base;
	s64 now[TWHEEL_NR_CLOCKS];
	bool done = true;
	int i;

	/*
	 * The entries a clock set back took out go back into their wheel
	 * first: a set's walk ends its timers in a wheel, where they are.
	 */
	for (i = 0; i < TWHEEL_NR_CLOCKS; i++) {
		base = tm->clocks.bases[i];
		if (base && !twheel_base_finish_rebase(base, budget))
			return false;
	}
	/*
	 * The clocks, then the sets (twheel_clock_set_seq()): every set the
	 * times read follow is acted on first. A set cancels what was pending
	 * then, due by the new time or not.
	 */
	for (i = 0; i < TWHEEL_NR_CLOCKS; i++)
		if (tm->clocks.bases[i])
			now[i] = twheel_clock_now(&tm->clocks,
						  tm->clocks.bases[i]->clock);
	if (twheel_timers_set_pending(tm) && !twheel_timers_sets(tm, budget))
		return false;

	for (i = 0; i < TWHEEL_NR_CLOCKS; i++) {
		base = tm->clocks.bases[i];
		if (!base)
			continue;
		if (twheel_timers_update_base(tm, base, now[i], budget, false))
			twheel_base_trim(base);	/* levels cascaded empty */
		else
			done = false;
	}
	return done;
}
EXPORT_SYMBOL_IF_KUNIT(twheel_timers_update);

/**
 * __twheel_timers_present() - bring one clock's wheel up to its present
 * @tm: the timers
 * @clock: the enum twheel_clk; its base is created if need be
 * @now_ns: set to the present (kernel time)
 *
 * Not yet done in this hold of the lock (see twheel_timers_present()).
 * The present is read once per clock per hold of the lock: the
 * operations of one batch share it, and the wheel is brought up to it
 * once. Whatever is due by it is queued first.
 *
 * Return: 0; -EAGAIN when that takes more than one chunk, or a wall
 * clock set is to be acted on first (the caller releases the lock and
 * comes back: the rest is done as if an hrtimer had fired); -ENOMEM.
 */
int __twheel_timers_present(struct twheel_timers *tm, u32 clock, s64 *now_ns)
{
	struct twheel_base *base = twheel_base_get(&tm->clocks, clock);
	u64 budget = TWHEEL_CHUNK;

	if (!base)
		return -ENOMEM;
	/* Whatever is due by the present used for a new deadline goes first. */
	*now_ns = twheel_clock_now(&tm->clocks, clock);
	/*
	 * And before it, a wall clock set that present follows (read after
	 * the clock): its update ends the timers it cancels, then the
	 * operation is done again.
	 */
	if (twheel_timers_set_pending(tm)) {
		twheel_clocks_kick(&tm->clocks);
		return -EAGAIN;
	}
	if (!twheel_timers_update_base(tm, base, *now_ns, &budget, true)) {
		twheel_clocks_kick(&tm->clocks);
		return -EAGAIN;
	}
	tm->now_ns[clock] = *now_ns;
	tm->now_valid |= BIT(clock);
	return 0;
}

/**
 * twheel_timer_place() - put a timer in the wheel, or queue its record
 * @tm: the timers
 * @t: in neither the wheel nor the queue
 * @deadline: its deadline (kernel time)
 * @now_ns: the present; its clock's wheel is up to date at @now_ns unless
 *          @deadline is after @now_ns
 *
 * Queue @t's record at once when its deadline has passed and its deadline
 * tick has been reached, or no timer of that tick waits in the wheel (one
 * that does was added earlier and comes first: this one then waits for
 * the tick, behind it); else put it in the wheel. A deadline after
 * @now_ns always goes to the wheel, also when the wheel's clock is ahead
 * of @now_ns (the wall clock was set back): the wheel's next update takes
 * it out and adds it again.
 */
void twheel_timer_place(struct twheel_timers *tm, struct twheel_timer *t,
			s64 deadline, s64 now_ns)
{
	struct twheel_base *base = twheel_base_of(&tm->clocks,
						  twheel_timer_clock(t));
	struct twheel_ptimer *pt = twheel_ptimer(t);
	u64 tick = twheel_deadline_tick(deadline, tm->clocks.tick_ns);
	LIST_HEAD(one);

	if (pt)
		pt->deadline_ns = deadline;
	if (deadline <= now_ns && (tick <= base->wheel.clk ||
				   !twheel_wheel_holds(&base->wheel, tick))) {
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
	twheel_base_add(base, &t->entry, tick);
	if (tick < base->armed)
		twheel_base_arm(base);
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
	s64 next = 0;
	bool coming = true;

	memset(st, 0, sizeof(*st));
	st->id = twheel_timer_id(t);
	st->cookie = t->cookie;
	st->clock = twheel_clock_id(clock);
	st->period_ns = pt ? pt->period_ns : 0;
	if (!twheel_timer_queued(t)) {
		st->state = TWHEEL_STATE_PENDING;
		/* A periodic timer's grid is exact; a one-shot's, its tick. */
		next = pt && pt->period_ns ? pt->deadline_ns :
		       twheel_tick_ns(t->entry.expires, tm->clocks.tick_ns);
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

/**
 * twheel_timers_peek() - the records at the head of the queue
 * @tm: the timers
 * @ev: set to the records, oldest first
 * @n: room in @ev, at most TWHEEL_READ_BATCH
 * @now: per clock, its present once read for this batch of records
 * @valid: bit per clock: @now is valid (set here when read)
 *
 * Nothing leaves the queue: twheel_timers_take() ends the records the
 * caller could hand over.
 *
 * Return: the number of records set, fewer than @n when the queue holds
 * fewer.
 */
u32 twheel_timers_peek(struct twheel_timers *tm, struct twheel_event *ev,
		       u32 n, s64 *now, u8 *valid)
{
	struct twheel_timer *t;
	u32 k = 0;

	list_for_each_entry(t, &tm->ready, rec.link) {
		if (k == n)
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
		kmem_cache_free_bulk(twheel_timer_cache, nbulk, bulk);
}

/**
 * twheel_mem_alloc() - the memory of a batch, before the lock is taken
 * @mem: set, one per operation
 * @ops: the operations
 * @nr: their number, at most TWHEEL_MEM_OPS
 * @spare: how many small timers the set keeps (read without its lock):
 *         that many adds find theirs there, under the lock
 *
 * The small timers the spare ones do not cover come in one bulk
 * allocation (one memory cgroup charge, one pass over the slab's free
 * list), each alone if that fails. An add left without one takes a spare
 * one under the lock, or allocates it there (twheel_timer_spare_get()).
 */
void twheel_mem_alloc(struct twheel_mem *mem, const struct twheel_op *ops,
		      u32 nr, u32 spare)
{
	void *small[TWHEEL_MEM_OPS] __uninitialized;
	const gfp_t gfp = TWHEEL_GFP;
	u32 i, n = 0;
	bool bulk;

	for (i = 0; i < nr; i++) {
		mem[i].obj = NULL;
		mem[i].big = ops[i].period_ns &&
			     (ops[i].op == TWHEEL_OP_ADD ||
			      ops[i].op == TWHEEL_OP_MODIFY);
		n += ops[i].op == TWHEEL_OP_ADD && !mem[i].big;
	}
	n = n > spare ? n - spare : 0;
	bulk = n > 1 &&
	       kmem_cache_alloc_bulk(twheel_timer_cache, gfp, n, small) == n;
	for (i = 0; i < nr; i++) {
		if (mem[i].big) {
			mem[i].obj = kmem_cache_alloc(twheel_ptimer_cache, gfp);
		} else if (ops[i].op == TWHEEL_OP_ADD && n) {
			n--;
			mem[i].obj = bulk ? small[n] :
				     kmem_cache_alloc(twheel_timer_cache, gfp);
		}
	}
}

/**
 * twheel_timer_spare_get() - a small timer for an add that has none
 * @tm: the timers; the caller holds the set's lock
 *
 * One the set kept, or else a new one (allocated under the lock, as a
 * user's allocation: the rare case of two batches racing for the spare
 * ones).
 *
 * Return: the timer's memory, or NULL when out of memory.
 */
struct twheel_timer *twheel_timer_spare_get(struct twheel_timers *tm)
{
	struct twheel_timer *t = tm->spare;

	if (!t)
		return kmem_cache_alloc(twheel_timer_cache, TWHEEL_GFP);
	tm->spare = (struct twheel_timer *)t->entry.node.next;
	WRITE_ONCE(tm->nr_spare, tm->nr_spare - 1);
	return t;
}

/**
 * twheel_mem_spare() - keep what the operations of a batch left, if small
 * @tm: the timers; the caller holds the set's lock
 * @mem: their memory; what is kept is taken out of it
 * @nr: their number
 */
void twheel_mem_spare(struct twheel_timers *tm, struct twheel_mem *mem,
		      u32 nr)
{
	u32 i;

	for (i = 0; i < nr; i++)
		if (mem[i].obj && !mem[i].big &&
		    twheel_timer_spare_put(tm, mem[i].obj))
			mem[i].obj = NULL;
}

/**
 * twheel_mem_free() - free what the operations of a batch left
 * @mem: their memory
 * @nr: their number
 *
 * The small timers go in one bulk free.
 */
void twheel_mem_free(struct twheel_mem *mem, u32 nr)
{
	void *small[TWHEEL_MEM_OPS] __uninitialized;
	u32 i, n = 0;

	for (i = 0; i < nr; i++) {
		if (!mem[i].obj)
			continue;
		if (mem[i].big)
			kmem_cache_free(twheel_ptimer_cache, mem[i].obj);
		else
			small[n++] = mem[i].obj;
	}
	if (n)
		kmem_cache_free_bulk(twheel_timer_cache, n, small);
}

#if IS_ENABLED(CONFIG_KUNIT)
/**
 * twheel_timers_update_at() - bring one clock's wheel up to a given time
 * @tm: the timers; the caller holds the set's lock
 * @clk: the clock's enum twheel_clk, in use by @tm
 * @now_ns: kernel time on that clock to advance to
 *
 * For tests that must not depend on the machine's speed: the records of
 * every timer due by @now_ns are queued, in order, whatever the real
 * clock says.
 */
void twheel_timers_update_at(struct twheel_timers *tm, u32 clk, s64 now_ns)
{
	u64 budget = U64_MAX;

	twheel_timers_update_base(tm, tm->clocks.bases[clk], now_ns, &budget,
				  true);
}
EXPORT_SYMBOL_IF_KUNIT(twheel_timers_update_at);
#endif

/**
 * twheel_timer_cache_init() - create the slab caches of timers
 *
 * Return: 0 or -ENOMEM.
 */
int twheel_timer_cache_init(void)
{
	/* The record reuses the wheel's list node: same offset. */
	BUILD_BUG_ON(offsetof(struct twheel_timer, rec.link) !=
		     offsetof(struct twheel_timer, entry.node));
	BUILD_BUG_ON(sizeof(struct twheel_timer) > 40);
	BUILD_BUG_ON(sizeof(struct twheel_ptimer) > 56);
	/* The state, the clock and the size live in bits ids leave free. */
	BUILD_BUG_ON((TWHEEL_TIMER_QUEUED | TWHEEL_TIMER_CLOCK_MASK |
		      TWHEEL_TIMER_BIG) & ~TWHEEL_IDS_FREE_BITS);
	BUILD_BUG_ON(TWHEEL_NR_CLOCKS > 8);

	/*
	 * Caches of their own, never merged with another cache of the same
	 * size (see twheel_cache_create()): /proc/slabinfo and slabtop show
	 * twheel's timers by name, and a stray write in another subsystem's
	 * objects cannot land in a timer. The cost: partly used slabs are
	 * not shared with other caches (a few pages per CPU at most).
	 */
	twheel_timer_cache =
		twheel_cache_create("twheel_timer", sizeof(struct twheel_timer),
				    offsetof(struct twheel_timer, cookie));
	if (!twheel_timer_cache)
		return -ENOMEM;
	twheel_ptimer_cache =
		twheel_cache_create("twheel_ptimer",
				    sizeof(struct twheel_ptimer),
				    offsetof(struct twheel_ptimer, t.cookie));
	if (!twheel_ptimer_cache)
		goto err_timer;
	return 0;

err_timer:
	kmem_cache_destroy(twheel_timer_cache);
	return -ENOMEM;
}

/**
 * twheel_timer_cache_exit() - destroy the slab caches of timers
 *
 * Every set is destroyed by then, so they are empty.
 */
void twheel_timer_cache_exit(void)
{
	kmem_cache_destroy(twheel_ptimer_cache);
	kmem_cache_destroy(twheel_timer_cache);
}
