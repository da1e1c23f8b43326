// SPDX-License-Identifier: GPL-2.0
/*
 * twheel_update.c - bringing a set's wheels up to date: the update that
 * the task using the set runs after an hrtimer fired (in chunks of at
 * most TWHEEL_CHUNK entries or id slots), the present read once per hold
 * of the lock for the operations of a batch, the shared table's entries
 * read when their timers come due (a later deadline re-places the timer,
 * a cancel ends it) or are cascaded (a later deadline re-places the
 * timer: twheel_irq_rekey()), and the set's part of a wall clock set (its
 * record, and the timers it cancels).
 *
 * Order of an update (twheel_timers_update()): the entries a clock set
 * back took out of a wheel go back first; then the clocks are read, then
 * the wall clock set sequence (twheel_clock_set_seq()), so that a set the
 * times read follow is acted on before any timer is handed back by them;
 * then each wheel is advanced and what it hands back becomes records.
 *
 * Layering: part of the timers' layer (twheel_timer.h), called by the set
 * (twheel_ctx.c) with its lock held; calls the clock bases (twheel_base.c)
 * and the table (twheel_table.c).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ktime.h>
#include <linux/list.h>
#include <linux/overflow.h>
#include <linux/slab.h>
#include <kunit/visibility.h>

#include "twheel_irq.h"
#include "twheel_time.h"
#include "twheel_timer.h"
#include "twheel_trace.h"
#include "twheel_user.h"

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

/**
 * twheel_timer_entry_deadline() - the deadline a table entry asks for
 * @tm: the timers
 * @clock: the timer's enum twheel_clk
 * @v: a one-shot timer's table entry, meant for it
 * @now_ns: when it is read (kernel time on @clock)
 *
 * Pure arithmetic on constants of the set: also for the hrtimer callback
 * (twheel_irq.c), so that both re-place a timer alike.
 *
 * Return: the tick whose low 32 bits @v holds, within 2^31 ticks of the
 * present tick (in the opener's time), as kernel time; saturating.
 */
s64 twheel_timer_entry_deadline(struct twheel_timers *tm, u32 clock, u64 v,
				s64 now_ns)
{
	u64 tick_ns = tm->clocks.tick_ns;
	s64 ref, d, ns;

	ref = twheel_floor_div(twheel_clocks_to_user(&tm->clocks, clock,
						     now_ns), tick_ns);
	d = twheel_table_tick(v, ref);
	if (check_mul_overflow(d, (s64)tick_ns, &ns))
		ns = d > 0 ? KTIME_MAX : KTIME_MIN;
	return twheel_clocks_to_kernel(&tm->clocks, clock, ns);
}

/*
 * End @t, pending and out of its wheel, as its table entry's cancel asks:
 * no record, counted in tm->table_cancelled, its memory freed or kept.
 */
static void twheel_timers_end_cancelled(struct twheel_timers *tm,
					struct twheel_timer *t)
{
	trace_twheel_timer_cancel(tm->clocks.trace_id, twheel_timer_id(t),
				  t->cookie,
				  twheel_clock_id(twheel_timer_clock(t)),
				  TWHEEL_STATE_PENDING);
	twheel_timer_forget(tm, t);
	if (twheel_ptimer(t) || !twheel_timer_spare_put(tm, t))
		twheel_timer_release(t);
	tm->table_cancelled++;
}

/*
 * Act on the table entries of the timers an update of @clock's wheel
 * handed back at @now_ns, due: a one-shot timer whose entry holds a later
 * deadline goes back into the wheel for it, a timer whose entry says
 * cancelled ends (counted in tm->table_cancelled); either leaves
 * @expired, without a record. The others stay, to be queued. Each entry
 * is read once, and what is put back is due after @now_ns: no timer comes
 * back in this update.
 *
 * Return: how many left @expired.
 */
static u64 twheel_timers_entries(struct twheel_timers *tm, u32 clock,
				 struct list_head *expired, s64 now_ns)
{
	/*
	 * Without a namespace offset, a stored tick at or before the present
	 * one names a deadline passed (twheel_timer_entry_deadline()'s
	 * arithmetic gives the same): the common case, a timer not pushed.
	 */
	bool plain = now_ns >= 0 && !twheel_clocks_offset(&tm->clocks, clock);
	s64 ref = plain ? div64_u64(now_ns, tm->clocks.tick_ns) : 0;
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
			twheel_timers_end_cancelled(tm, t);
			n++;
			continue;
		}
		if ((pt && pt->period_ns) ||
		    (plain && twheel_table_tick(v, ref) <= ref))
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
 * Bring @base's wheel up to *@now_ns (kernel time on its clock), moving at
 * most *@budget entries, and queue the records of the timers it hands
 * back; *@now_ns is set to the present they were queued at (a later one
 * when the hrtimer callback had moved the wheel past it). @wake: records
 * queued here were not announced by an hrtimer callback.
 *
 * Return: true when the wheel is up to date (and its hrtimer armed for
 * its next event); false when the budget ran out first.
 */
static bool twheel_timers_update_base(struct twheel_timers *tm,
				      struct twheel_base *base, s64 *now_p,
				      u64 *budget, bool wake)
{
	struct twheel_timer *t, *next;
	struct twheel_base_step adv;
	struct twheel_irq_rekey rk;
	LIST_HEAD(expired);
	LIST_HEAD(ended);
	s64 now_ns;
	bool done;
	u64 n;

	done = twheel_base_update(base, *now_p, budget, &expired, &ended,
				  &adv, twheel_irq_rekey(&rk, tm, base, *now_p));
	/* Cancelled by their entry, as the hrtimer callback found them. */
	list_for_each_entry_safe(t, next, &ended, entry.node) {
		list_del(&t->entry.node);
		twheel_timers_end_cancelled(tm, t);
	}
	now_ns = adv.now_ns;
	*now_p = now_ns;
	n = adv.n;
	if (n && twheel_table_on(&tm->table))
		n -= twheel_timers_entries(tm, base->clock, &expired, now_ns);
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
 * __twheel_timers_set_pending() - twheel_timers_set_pending() of a set
 *                                 that watches wall clock sets
 * @tm: the timers
 * @sets: tm->sets, read with acquire
 *
 * Return: as twheel_timers_set_pending().
 */
bool __twheel_timers_set_pending(struct twheel_timers *tm,
				 const struct twheel_sets *sets)
{
	return !READ_ONCE(tm->clocks.manual) &&
	       (READ_ONCE(sets->walk) ||
		twheel_clock_set_seq() != READ_ONCE(sets->seen));
}
EXPORT_SYMBOL_IF_KUNIT(__twheel_timers_set_pending);

/* End pending @t, a TWHEEL_CANCEL_ON_SET timer, by a clock set. */
static void twheel_timer_set_end(struct twheel_timers *tm,
				 struct twheel_timer *t)
{
	struct twheel_base *base = twheel_base_of(&tm->clocks,
						  twheel_timer_clock(t));

	twheel_timer_unlink(tm, t);
	twheel_base_arm_idle(base);
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
		if (twheel_timers_update_base(tm, base, &now[i], budget, false))
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
	/* Mostly nothing is due: one short hold of the base's lock. */
	if (!twheel_base_forward(base, *now_ns) &&
	    !twheel_timers_update_base(tm, base, now_ns, &budget, true)) {
		twheel_clocks_kick(&tm->clocks);
		return -EAGAIN;
	}
	tm->now_ns[clock] = *now_ns;
	tm->now_valid |= BIT(clock);
	return 0;
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

	twheel_timers_update_base(tm, tm->clocks.bases[clk], &now_ns, &budget,
				  true);
}
EXPORT_SYMBOL_IF_KUNIT(twheel_timers_update_at);
#endif
