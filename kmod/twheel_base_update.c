// SPDX-License-Identifier: GPL-2.0
/*
 * twheel_base_update.c - bringing a clock base's wheel up to a present,
 * in the task using the set: the entries a clock set back took out go
 * back first, then the wheel advances in chunks and hands back what fell
 * due; the hrtimer is armed again once it is up to date.
 *
 * Part of the clock bases' layer (twheel_base.h), beside twheel_base.c;
 * called by the timers' update (twheel_update.c) with the set's lock held.
 * Every read or change of a wheel here is under its base's spinlock,
 * against the hrtimer callback's own work (twheel_irq.c); levels are
 * allocated with it dropped (twheel_base_give()).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bitops.h>
#include <linux/list.h>
#include <linux/spinlock.h>
#include <kunit/visibility.h>

#include "twheel_base.h"
#include "twheel_time.h"
#include "twheel_trace.h"

/**
 * twheel_base_finish_rebase() - go on re-adding the entries a clock set
 *                               back took out of a base's wheel
 * @base: the base
 * @budget: the most entries to re-add; decremented by those re-added
 *
 * Until it is done, those entries are on base->rebase, in no wheel: a
 * timer there is neither removed from the wheel nor handed back. The
 * set's update finishes every base's rebase first (twheel_timers_update()).
 *
 * Return: true when none is left to re-add.
 */
bool twheel_base_finish_rebase(struct twheel_base *base, u64 *budget)
{
	struct twheel_entry *e;

	while (!list_empty(&base->rebase)) {
		if (!*budget)
			return false;
		(*budget)--;
		e = list_first_entry(&base->rebase, struct twheel_entry, node);
		list_del(&e->node);
		twheel_base_add(base, e, e->expires, false);
	}
	return true;
}

/*
 * Under @base's lock, before an update's advance: when the wheel's clock
 * is past the present the update read, read the clock again. The hrtimer
 * callback (twheel_irq.c) may have moved it there, never past the clock's
 * own present: then the advance hands back what is due by the wheel's
 * clock stamped with a present at or after its deadline, never early. A
 * wall clock still behind the wheel's after that was set back.
 */
static void twheel_base_catch_up(struct twheel_base *base,
				 struct twheel_base_step *adv, u64 *now)
{
	if (*now >= base->wheel.clk || base->clocks->manual)
		return;
	adv->now_ns = twheel_clock_now(base->clocks, base->clock);
	*now = twheel_now_tick(adv->now_ns, base->clocks->tick_ns);
}

/*
 * Under @base's lock: a level the wheel lacks that a table entry's later
 * deadline asked for in a cascade or an expiry (base->wanted, set by
 * twheel_irq.c, which cannot allocate), lowest first; -1 for none. The
 * update gives it before any level its advance waits for: that may be
 * the same timer's own, earlier deadline's, never needed once the later
 * one's is there (the cascade then places the timer by the later one).
 */
static int twheel_base_wanted(struct twheel_base *base)
{
	int lvl;

	while (base->wanted) {
		lvl = __ffs(base->wanted);
		base->wanted &= ~BIT(lvl);
		if (!base->wheel.lvl[lvl])
			return lvl;
	}
	return -1;
}

/**
 * twheel_base_forward() - bring a base's wheel up to a present by which
 *                         nothing is due, in one short hold of its lock
 * @base: the base
 * @now_ns: the present, kernel time on the base's clock
 *
 * The common case of an operation's present: no entry due or cascading
 * by @now_ns, none parked by the callback for the task to end, none
 * waiting to be added again after a clock set back, no level wanted
 * (twheel_base_wanted()), and the wheel's clock not past @now_ns. Then
 * the wheel's clock moves to @now_ns, as twheel_base_update() would move
 * it, and the hrtimer is armed again when the wheel's next event is not
 * the one it is armed for, as twheel_base_update() would arm it.
 * Anything else is left to twheel_base_update().
 *
 * Return: true when done; false, nothing done, when the caller must
 * call twheel_base_update().
 */
bool twheel_base_forward(struct twheel_base *base, s64 now_ns)
{
	u64 now = twheel_now_tick(now_ns, base->clocks->tick_ns), next, from;
	unsigned long flags;
	bool done;

	twheel_base_lock(base, flags);
	from = base->wheel.clk;
	done = list_empty(&base->wheel.parked) && list_empty(&base->rebase) &&
	       !base->wanted && twheel_wheel_forward(&base->wheel, now, &next);
	if (done && next != base->armed)
		__twheel_base_arm(base);
	twheel_base_unlock(base, flags);
	if (done && now != from)
		trace_twheel_wheel_advance(base->clocks->trace_id,
					   twheel_clock_id(base->clock), from,
					   now, now_ns, 0, 0);
	return done;
}
EXPORT_SYMBOL_IF_KUNIT(twheel_base_forward);

/**
 * twheel_base_update() - bring a base's wheel up to a present
 * @base: the base
 * @now_ns: the present, kernel time on the base's clock
 * @budget: the most entries to move; decremented by those moved
 * @expired: the entries that fell due are appended here, in order
 * @ended: the entries the hrtimer callback parked are appended here: timers
 *	   it found cancelled by their table entry (twheel_irq.c), for the
 *	   caller to end
 * @adv: set up for twheel_base_updated(); adv->n counts @expired's entries
 * @rk: NULL, or what the wheel's cascades ask for a later deadline
 *      (twheel_wheel_advance_some())
 *
 * A clock set back behind the wheel's clock (CLOCK_REALTIME and CLOCK_TAI
 * can be) first has its entries taken out and added again against the
 * new, earlier present, so that no new deadline counts as due early;
 * that too goes in chunks. The caller turns @expired into records, at
 * adv->now_ns (later than @now_ns when the hrtimer callback had moved the
 * wheel past it), then calls twheel_base_updated().
 *
 * The common case, no clock set back and no level to allocate, takes
 * base->lock once; an update that brings the wheel up to date arms its
 * hrtimer for the next event in that same hold.
 *
 * Return: true when the wheel is up to date; false when the budget ran
 * out first.
 */
bool twheel_base_update(struct twheel_base *base, s64 now_ns, u64 *budget,
			struct list_head *expired, struct list_head *ended,
			struct twheel_base_step *adv, struct twheel_rekey *rk)
{
	u64 now = twheel_now_tick(now_ns, base->clocks->tick_ns);
	unsigned long flags;
	bool behind;
	int lvl;

	adv->now_ns = now_ns;
	adv->start = *budget;
	adv->n = 0;
	adv->done = false;
	adv->empty = false;
	twheel_base_lock(base, flags);
	adv->from = base->wheel.clk;
	twheel_wheel_take_parked(&base->wheel, ended);
	/*
	 * Only a wall clock goes back: a present before the wheel's clock
	 * read again is a set back (see twheel_base_catch_up()).
	 */
	twheel_base_catch_up(base, adv, &now);
	if (list_empty(&base->rebase) && now < base->wheel.clk &&
	    !twheel_base_steady(base))
		twheel_wheel_take_all(&base->wheel, now, &base->rebase);
	if (!list_empty(&base->rebase)) {
		twheel_base_unlock(base, flags);
		if (!twheel_base_finish_rebase(base, budget))
			return false;
		twheel_base_lock(base, flags);
	}
	for (;;) {
		twheel_base_catch_up(base, adv, &now);
		adv->n += twheel_wheel_advance_some(&base->wheel, now, expired,
						    budget, rk);
		behind = twheel_wheel_behind(&base->wheel, now);
		/* Later deadlines its cascades could not take. */
		if (rk) {
			base->wanted |= rk->lacked;
			rk->lacked = 0;
		}
		lvl = twheel_base_wanted(base);
		/*
		 * Stopped for a level it lacks, or for its budget? A level
		 * is waited for only with budget left: the next chunk asks
		 * the table first, and the level the next entry's own
		 * deadline needs may never be needed (twheel_irq_run()).
		 */
		if (lvl < 0 && behind && *budget)
			lvl = twheel_wheel_level_missing(&base->wheel);
		if (lvl < 0)
			break;
		twheel_base_unlock(base, flags);
		twheel_base_give(base, lvl);
		twheel_base_lock(base, flags);
	}
	if (!behind) {
		/* Up to date: the hrtimer goes to its next event. */
		adv->done = true;
		__twheel_base_arm(base);
		adv->empty = twheel_wheel_empty(&base->wheel);
	}
	twheel_base_unlock(base, flags);
	return adv->done;
}

/**
 * twheel_base_updated() - finish an update once its entries are queued
 * @base: the base twheel_base_update() updated
 * @budget: the budget left
 * @adv: what twheel_base_update() set
 *
 * Traces the advance (after the expiries it queued) and, when the update
 * left the wheel empty, frees its levels.
 */
void twheel_base_updated(struct twheel_base *base, u64 budget,
			 const struct twheel_base_step *adv)
{
	u64 clk = READ_ONCE(base->wheel.clk);

	if (adv->n || clk != adv->from || budget != adv->start)
		trace_twheel_wheel_advance(base->clocks->trace_id,
					   twheel_clock_id(base->clock),
					   adv->from, clk, adv->now_ns, adv->n,
					   adv->start - budget);
	if (adv->empty)
		twheel_base_trim(base);
}
