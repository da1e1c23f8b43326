// SPDX-License-Identifier: GPL-2.0
/*
 * twheel_irq.c - the timers' work done in a clock base's hrtimer callback:
 * re-placing the timers whose shared table entry moved their deadline
 * later, and setting aside for the task those it cancelled, so that a
 * program whose timeouts are all pushed back or cancelled by stores is
 * never woken for them; and the re-keying of the wheel's cascades by the
 * table (twheel_irq_rekey()), which the task's update shares. What runs
 * where, and the bounds: twheel_irq.h.
 *
 * Layering: part of the timers' layer (twheel_timer.h), called by the
 * clock bases' hrtimer callback through clocks->fired, set by
 * twheel_timers_init(). It calls the wheel core, the base's arming
 * (__twheel_base_arm()), the table's lockless read and the user's rate
 * bound (twheel_user.h); it allocates nothing, sleeps never, touches no
 * user memory, and takes only the base's spinlock.
 *
 * Against the process side: every read or change of a wheel, in either
 * context, is under its base's spinlock, base->lock; the task using the
 * set holds the set's mutex as well. A timer the callback moves stays in
 * its wheel (only its place and tick change, or it is parked, still the
 * wheel's), so no timer is ever in a state the set's task does not know:
 * pending stays pending until the task ends it. What the
 * callback does not finish it gives back to the wheel first in line
 * (twheel_wheel_unhand()), and the next update hands it back in the order
 * one advance would have: records keep their order.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/hrtimer.h>
#include <linux/ktime.h>
#include <linux/list.h>
#include <linux/rcupdate.h>
#include <linux/spinlock.h>
#include <kunit/visibility.h>

#include "twheel_irq.h"
#include "twheel_time.h"
#include "twheel_timer.h"
#include "twheel_trace.h"
#include "twheel_user.h"

/* What the callback does with a timer that fell due. */
enum twheel_irq_act {
	TWHEEL_IRQ_LEAVE,	/* for the task: it expires, or may */
	TWHEEL_IRQ_MOVE,	/* back into the wheel, for a later tick */
	TWHEEL_IRQ_END,		/* parked: cancelled by its entry */
};

/*
 * Has @base's wheel the level an entry of deadline @tick needs? When it
 * lacks it, the callback cannot allocate it: the base asks the set's task
 * for it (base->wanted, given by its next update, see
 * twheel_base_update()), and the callback wakes the task for it at once,
 * before the timer comes due by its own deadline (twheel_irq_run()).
 */
static bool twheel_irq_level(struct twheel_base *base, u64 tick)
{
	int lvl = twheel_wheel_level_needed(&base->wheel, tick);

	/* A bit for every level of a wheel. */
	BUILD_BUG_ON(BITS_PER_TYPE(base->wanted) < TWHEEL_LEVELS);
	if (lvl < 0)
		return true;
	base->wanted |= BIT(lvl);
	return false;
}

/*
 * The tick @t's table entry @v (meant for it, no cancel) asks for, when
 * it is after the present, after the wheel's clock and after @after, in
 * a level the wheel has: else 0. Only a one-shot timer's may; a large
 * one keeps its deadline then (pt->deadline_ns).
 *
 * Without a namespace offset (r->fast) a stored tick D is the wheel's own
 * tick D, compared as it is; the time arithmetic of
 * twheel_timer_entry_deadline() is for the other clocks and for a tick
 * beyond a ktime_t, where it saturates. Both readings agree (KUnit
 * twheel_irq_fast_agrees).
 */
static u64 twheel_irq_later_tick(struct twheel_irq_rekey *r,
				 struct twheel_timer *t, u64 v, u64 after)
{
	u64 tick_ns = r->tm->clocks.tick_ns;
	struct twheel_ptimer *pt = NULL;
	s64 deadline, d;

	if (READ_ONCE(t->word) & TWHEEL_TIMER_BIG) {
		pt = container_of(t, struct twheel_ptimer, t);
		/* A MODIFY may be changing it: see twheel_timer_move(). */
		if (data_race(pt->period_ns != 0))
			return 0;
	}
	d = r->fast ? twheel_table_tick(v, r->now_tick) : 0;
	if (r->fast && d <= r->max_tick) {
		if (d <= (s64)r->now_tick)
			return 0;
		deadline = d * (s64)tick_ns;
	} else {
		deadline = twheel_timer_entry_deadline(r->tm, r->base->clock,
						       v, r->now_ns);
		if (deadline <= r->now_ns)
			return 0;
		d = twheel_deadline_tick(deadline, tick_ns);
	}
	if ((u64)d <= after || (u64)d <= r->base->wheel.clk ||
	    !twheel_irq_level(r->base, d))
		return 0;
	if (pt)
		pt->deadline_ns = deadline;
	return d;
}

/*
 * What to do with @t, just handed back by r->rk's advance: its table
 * entry is meant for it and says cancelled (END); or @t is one-shot and
 * the entry asks for a later deadline (twheel_irq_later_tick(): MOVE,
 * *@tick set); else LEAVE.
 */
static enum twheel_irq_act twheel_irq_act(struct twheel_irq_rekey *r,
					  struct twheel_timer *t, u64 *tick)
{
	u64 v;

	/* Its id, clock and size are constant while it is in the wheel. */
	if (!twheel_table_read_irq(&r->tm->table, twheel_timer_id(t), &v))
		return TWHEEL_IRQ_LEAVE;
	if (v & TWHEEL_TABLE_CANCEL)
		return TWHEEL_IRQ_END;
	*tick = twheel_irq_later_tick(r, t, v, 0);
	return *tick ? TWHEEL_IRQ_MOVE : TWHEEL_IRQ_LEAVE;
}

/*
 * Does @e, the first entry an advance hands back (NULL: none), expire
 * there? Always on a set without a table (@r NULL); with one, when its
 * entry neither cancels it nor moves it later (twheel_irq_act(), whose
 * reading is made again by whoever advances the wheel). Not asked of a
 * large timer: the reading of a later deadline sets its deadline_ns
 * (twheel_irq_later_tick()), which only the move that follows may do.
 */
static bool twheel_irq_expiring(struct twheel_irq_rekey *r,
				struct twheel_entry *e)
{
	struct twheel_timer *t;
	u64 tick;
	bool leave;

	if (!e || !r)
		return e;
	t = container_of(e, struct twheel_timer, entry);
	if (READ_ONCE(t->word) & TWHEEL_TIMER_BIG)
		return false;
	rcu_read_lock();
	leave = twheel_irq_act(r, t, &tick) == TWHEEL_IRQ_LEAVE;
	rcu_read_unlock();
	return leave;
}

/*
 * The wheel's question on @e, about to cascade to a lower level: the
 * deadline its table entry asks for when a later one (see
 * twheel_irq_later_tick()), else its own. A cancel waits for the deadline.
 */
static u64 twheel_irq_rekey_entry(struct twheel_rekey *rk,
				  struct twheel_entry *e)
{
	struct twheel_irq_rekey *r = container_of(rk, struct twheel_irq_rekey,
						  rk);
	struct twheel_timer *t = container_of(e, struct twheel_timer, entry);
	u64 v, tick;
	s64 d;

	if (!twheel_table_read_irq(&r->tm->table, twheel_timer_id(t), &v) ||
	    (v & TWHEEL_TABLE_CANCEL))
		return e->expires;
	/*
	 * Not pushed, the common case: the entry names the timer's own tick
	 * (on r->fast, the wheel's tick). twheel_irq_later_tick() reads the
	 * tick within 2^31 of the present with these low 32 bits: that one,
	 * or one before it when it is further ahead, never a later one.
	 */
	if (r->fast && (u32)v == (u32)e->expires)
		return e->expires;
	/*
	 * Pushed, a small timer, on r->fast: twheel_irq_later_tick()'s
	 * reading inline, where the deadline (after @e's own, so after the
	 * wheel's clock) is after the present. Its level is the wheel's to
	 * check: one it lacks comes back in rk->lacked, for base->wanted.
	 */
	if (r->fast && !(READ_ONCE(t->word) & TWHEEL_TIMER_BIG)) {
		d = twheel_table_tick(v, r->now_tick);
		if (d <= r->max_tick)
			return d > (s64)r->now_tick && (u64)d > e->expires ?
			       (u64)d : e->expires;
	}
	tick = twheel_irq_later_tick(r, t, v, e->expires);
	return tick ? tick : e->expires;
}

/**
 * twheel_irq_rekey() - what the cascades of an advance ask a set's table
 * @r: set up here
 * @tm: the timers
 * @base: one of their bases, about to be advanced
 * @now_ns: the present it is advanced to (kernel time on its clock)
 *
 * For the hrtimer callback and the task's update alike: a one-shot timer
 * that a cascade moves closer to its deadline goes by the later deadline
 * its table entry holds, if any (struct twheel_rekey), decided as when it
 * falls due. On a clock without a namespace offset (r->fast) a stored
 * tick D is the wheel's own tick D: it is compared as it is, the time
 * arithmetic of twheel_timer_entry_deadline() left for the rest. Called
 * with @base's lock held, inside an RCU read-side section or with the
 * set's lock held (see twheel_table_read_irq()).
 *
 * Return: &r->rk for twheel_wheel_advance_some(); NULL for a set without
 * a table.
 */
struct twheel_rekey *twheel_irq_rekey(struct twheel_irq_rekey *r,
				      struct twheel_timers *tm,
				      struct twheel_base *base, s64 now_ns)
{
	if (!READ_ONCE(tm->table.size_pages))
		return NULL;
	r->rk.fn = twheel_irq_rekey_entry;
	r->rk.lacked = 0;
	r->tm = tm;
	r->base = base;
	r->now_ns = now_ns;
	r->now_tick = twheel_now_tick(now_ns, tm->clocks.tick_ns);
	r->max_tick = div64_u64(KTIME_MAX, tm->clocks.tick_ns);
	r->fast = now_ns >= 0 &&
		  !twheel_clocks_offset(&tm->clocks, base->clock);
	return &r->rk;
}
EXPORT_SYMBOL_IF_KUNIT(twheel_irq_rekey);

/*
 * Arm @base's hrtimer @delay_ns after @now_ns, for an advance to go on
 * there: its next event is the wheel's clock, which must move.
 */
static void twheel_irq_again(struct twheel_base *base, s64 now_ns,
			     s64 delay_ns)
{
	if (base->clocks->manual)
		base->armed = base->wheel.clk;
	else
		twheel_base_start(base, base->wheel.clk, now_ns + delay_ns);
}

/*
 * An alarm base's callback leaves work to the set's task (@base's lock
 * held; the due list set aside, the entries handed back not given back
 * yet): keep the alarm armed for the wheel's next event after the
 * present, so that the system is resumed for it (and for what a later
 * callback finds) even when no task comes before a suspend. When the
 * wheel's next event is not after the present (an advance left
 * unfinished, or not made at all), the alarm comes again
 * TWHEEL_IRQ_ALARM_RETRY_NS later.
 */
static void twheel_irq_alarm_keep(struct twheel_base *base, u64 now,
				  s64 now_ns)
{
	struct twheel_wheel *w = &base->wheel;
	u64 next = twheel_wheel_next(w);

	if (twheel_wheel_idle(w))
		return;
	if (next > now)
		twheel_base_start(base, next,
				  twheel_tick_ns(next, base->clocks->tick_ns));
	else
		twheel_irq_again(base, now_ns, TWHEEL_IRQ_ALARM_RETRY_NS);
}

/**
 * twheel_irq_run() - a base's work in its hrtimer callback
 * @tm: the timers
 * @base: one of their bases whose hrtimer fired (or, in a test, any)
 * @now_ns: the present, kernel time on its clock
 *
 * Advance @base's wheel to @now_ns, within the bounds of twheel_irq.h; on a
 * set with a table, put back every timer that fell due whose table entry
 * holds a later deadline, and park those whose entry says cancelled. In
 * interrupt context, or with interrupts off.
 *
 * Return: true when that was all there was to do: the hrtimer is armed
 * for the wheel's next event (or stopped when it is empty), and nobody
 * need wake; false when the set's waiters must be woken to do the rest
 * (the wheel then holds what is left, first in line, and the hrtimer is
 * not armed again: their update arms it; an alarm base's alarm is, see
 * twheel_irq_alarm_keep()).
 */
bool twheel_irq_run(struct twheel_timers *tm, struct twheel_base *base,
		    s64 now_ns)
{
	u64 now = twheel_now_tick(now_ns, tm->clocks.tick_ns);
	struct twheel_wheel *w = &base->wheel;
	struct twheel_entry *e, *next;
	struct twheel_timer *t;
	struct twheel_irq_rekey rk;
	/* With a table: the cascades' and the due timers' reads of it. */
	struct twheel_rekey *table = twheel_irq_rekey(&rk, tm, base, now_ns);
	u64 budget, start, from, tick = 0, left = 0;
	bool behind, parked = false, done = false;
	bool alarm = twheel_base_alarm(base);
	unsigned long flags;
	LIST_HEAD(handed);
	LIST_HEAD(held);

	/* Interrupts are off but on PREEMPT_RT, and for KUnit. */
	spin_lock_irqsave(&base->lock, flags);
	/* A task is re-adding the entries after a clock set back. */
	if (!list_empty(&base->rebase))
		goto out;
	/*
	 * Due entries come from the set's task, or were left for it by an
	 * earlier callback: theirs to hand back. An alarm base sets them
	 * aside, ahead of what this advance leaves, and goes on, so that
	 * its alarm stays armed for what comes after them.
	 */
	if (!list_empty(&w->due)) {
		if (!alarm)
			goto out;
		list_splice_init(&w->due, &held);
	}
	/*
	 * When the next event hands timers back before any cascade and the
	 * first of them expires (every timer does, without a table), the
	 * waiter's update takes them from the wheel as it is, those its
	 * entry pushed or cancelled included: advancing here first, only to
	 * give them back, would be the same work twice.
	 */
	if (!alarm && twheel_irq_expiring(table ? &rk : NULL,
					  twheel_wheel_expires(w, now)))
		goto out;
	start = tm->user ? twheel_user_irq_budget(tm->user, TWHEEL_IRQ_BUDGET) :
			   TWHEEL_IRQ_BUDGET;
	if (!start)
		goto out;
	budget = start;
	from = w->clk;
	rcu_read_lock();
	twheel_wheel_advance_some(w, now, &handed, &budget, table);
	behind = twheel_wheel_behind(w, now);
	/* Later deadlines its cascades could not take: see twheel_irq_level(). */
	if (table)
		base->wanted |= table->lacked;

	list_for_each_entry_safe(e, next, &handed, node) {
		t = container_of(e, struct twheel_timer, entry);
		/* Without a table, a timer that fell due expires. */
		switch (table ? twheel_irq_act(&rk, t, &tick) :
				TWHEEL_IRQ_LEAVE) {
		case TWHEEL_IRQ_MOVE:
			list_del(&e->node);
			twheel_wheel_add(w, e, tick);
			break;
		case TWHEEL_IRQ_END:
			list_del(&e->node);
			twheel_wheel_park(w, e);
			parked = true;
			break;
		default:
			left++;
		}
	}
	rcu_read_unlock();
	if (tm->user)
		twheel_user_irq_charge(tm->user, start - budget);
	/* Records are queued by the task only: none here. */
	if (start != budget || w->clk != from)
		trace_twheel_wheel_advance(tm->clocks.trace_id,
					   twheel_clock_id(base->clock), from,
					   w->clk, now_ns, 0, start - budget);
	/*
	 * Something expired, or the wheel lacks a level for a cascade or
	 * for a later deadline a table entry asks for (or an alarm base
	 * holds records for the task): the task is woken, once for all the
	 * timers that want the level. An advance the budget stopped goes
	 * on in the next callback, which asks the table first: the level
	 * the next entry's own deadline needs may never be needed.
	 */
	if (left || !list_empty(&held) || base->wanted ||
	    (behind && budget && twheel_wheel_level_missing(w) >= 0))
		goto out;
	if (behind)
		twheel_irq_again(base, now_ns, TWHEEL_IRQ_GAP_NS);
	else
		__twheel_base_arm(base);
	/*
	 * Timers parked to end: the next update, in whichever task uses
	 * the set next (any ioctl, read or poll), ends them; nobody is
	 * woken for it.
	 */
	if (parked)
		atomic_inc(&base->clocks->fire_seq);
	done = true;
out:
	if (!done && alarm)
		twheel_irq_alarm_keep(base, now, now_ns);
	/* Back first in line: those set aside, then those left now. */
	if (left)
		twheel_wheel_unhand(w, &handed, left);
	if (!list_empty(&held))
		list_splice(&held, list_empty(&w->cascade) ? &w->due :
							     &w->cascade);
	spin_unlock_irqrestore(&base->lock, flags);
	return done;
}
EXPORT_SYMBOL_IF_KUNIT(twheel_irq_run);

/**
 * twheel_irq_fired() - what a clock base's hrtimer callback does first
 * @base: the base whose hrtimer fired
 *
 * The set's clocks->fired, for a base on any clock but the manual one
 * (see twheel_irq.h).
 *
 * Return: true when the callback is done and wakes nobody; false when it
 * is to wake the set's waiters as usual.
 */
bool twheel_irq_fired(struct twheel_base *base)
{
	struct twheel_timers *tm = container_of(base->clocks,
						struct twheel_timers, clocks);

	if (base->clocks->manual)
		return false;
	return twheel_irq_run(tm, base,
			      twheel_clock_now(&tm->clocks, base->clock));
}
