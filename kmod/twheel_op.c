// SPDX-License-Identifier: GPL-2.0
/*
 * twheel_op.c - the operations on timers: add, modify, cancel, query,
 * each as one struct twheel_op of the ABI, validated, done, handed to
 * the caller's output function, and taken back if that fails.
 *
 * The timers layer (with twheel_timer.c): called by the set with its
 * lock held and the wheels up to date; calls twheel_timer.c, the clock
 * bases, the ids, the user accounting and the counters, nothing of the
 * set. An operation that fails sets its error and changes nothing.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/capability.h>
#include <linux/errno.h>
#include <linux/ktime.h>
#include <linux/minmax.h>
#include <kunit/visibility.h>

#include "twheel_stats.h"
#include "twheel_time.h"
#include "twheel_timer.h"
#include "twheel_trace.h"
#include "twheel_user.h"

/* A deadline given by the user (@flags, @expires_ns) in kernel time. */
static s64 twheel_op_deadline(struct twheel_timers *tm, u32 clock, u32 flags,
			      s64 expires_ns, s64 now_ns)
{
	if (flags & TWHEEL_ABSTIME)
		return twheel_clocks_to_kernel(&tm->clocks, clock, expires_ns);
	return twheel_add_ns(now_ns, expires_ns);
}

/* A period given by the user: 0, or one tick to TWHEEL_MAX_PERIOD_NS. */
static u64 twheel_op_period(struct twheel_timers *tm, u64 period_ns)
{
	if (!period_ns)
		return 0;
	return clamp_t(u64, period_ns, tm->clocks.tick_ns,
		       TWHEEL_MAX_PERIOD_NS);
}

/* A missed-deadline policy given without a period (ADD and MODIFY). */
static bool twheel_op_missed_invalid(const struct twheel_op *op)
{
	return !op->period_ns && op->flags & TWHEEL_MISSED_MASK;
}

/* The period and missed-deadline policy of @op, into @pt. */
static void twheel_op_set_period(struct twheel_timers *tm,
				 struct twheel_ptimer *pt,
				 const struct twheel_op *op)
{
	pt->period_ns = twheel_op_period(tm, op->period_ns);
	pt->missed = (op->flags & TWHEEL_MISSED_MASK) >> TWHEEL_MISSED_SHIFT;
}

/*
 * TWHEEL_CANCEL_ON_SET in @op's flags for a timer of @clock: EINVAL but
 * with an absolute deadline on a wall clock. Then, and for a timer that
 * has it (@had), a wall clock set not yet acted on must be first: the
 * operation then comes after it (-EAGAIN: the set's update acts on it,
 * and the operation is done again). -ENOMEM when the state of watching
 * sets cannot be allocated.
 */
static __always_inline int twheel_op_cos(struct twheel_timers *tm,
					 const struct twheel_op *op, u32 clock,
					 bool had)
{
	int ret;

	if (op->flags & TWHEEL_CANCEL_ON_SET) {
		if (!(op->flags & TWHEEL_ABSTIME) ||
		    (clock != TWHEEL_CLK_REALTIME && clock != TWHEEL_CLK_TAI &&
		     clock != TWHEEL_CLK_REALTIME_ALARM))
			return -EINVAL;
		if (tm->clocks.manual)
			return 0;
		ret = twheel_timers_watch_sets(tm, false);
		if (ret)
			return ret;
	} else if (!had) {
		return 0;
	}
	return twheel_timers_set_pending(tm) ? -EAGAIN : 0;
}

/* Leave @t, forgotten, in @m to be freed. */
static void twheel_mem_keep(struct twheel_mem *m, struct twheel_timer *t)
{
	struct twheel_ptimer *pt = twheel_ptimer(t);

	m->big = !!pt;
	m->obj = pt ? (void *)pt : t;
}

/*
 * @t was just placed with @deadline, due by @now_ns. If it went into the
 * wheel all the same, behind timers of its tick that the hrtimer callback
 * gave back to the wheel since @now_ns was read (twheel_timer_place()),
 * bring the wheel to the present: that queues them and then it, before
 * the operation returns. (One whose deadline passed inside the current
 * tick, waiting behind a pending timer of its slot, stays for its tick.)
 * Past one chunk of wheel work, or with a wall clock set to act on first,
 * the update is kicked instead: the rest comes with the fd's next use.
 */
static bool twheel_op_unsettled(struct twheel_timer *t, s64 deadline,
				s64 now_ns)
{
	return deadline <= now_ns && !twheel_timer_queued(t);
}

/* twheel_op_unsettled(): the update, @t's clock's; @t may end in it. */
static void twheel_op_settle(struct twheel_timers *tm, u32 clock)
{
	s64 now_ns;

	(void)__twheel_timers_present(tm, clock, &now_ns);
}

/* TWHEEL_OP_ADD; @obj is the new timer's memory. */
static int twheel_op_add(struct twheel_timers *tm, struct twheel_op *op,
			 void **obj, struct twheel_timer **created,
			 bool *settle)
{
	struct twheel_timer *t = *obj;
	s64 now_ns, deadline;
	int clock, ret;
	bool charge;

	clock = twheel_clock_index(op->clock);
	if (clock < 0 || op->flags & ~(TWHEEL_ABSTIME | TWHEEL_MISSED_MASK |
				       TWHEEL_CANCEL_ON_SET) ||
	    twheel_op_missed_invalid(op) ||
	    (!(op->flags & TWHEEL_ABSTIME) && op->expires_ns < 0))
		return -EINVAL;
	ret = twheel_op_cos(tm, op, clock, false);
	if (ret)
		return ret;
	/* A wake source, as timerfd_create() asks for one. */
	if (twheel_clock_alarm(clock) && !capable(CAP_WAKE_ALARM))
		return -EPERM;
	if (tm->nr_timers >= tm->max_timers)
		return -ENOSPC;
	if (!t && !op->period_ns) {
		/* A kept one, or allocated here (see twheel_mem_alloc()). */
		t = twheel_timer_spare_get(tm);
		*obj = t;
	}
	if (!t)
		return -ENOMEM;
	ret = twheel_timers_present(tm, clock, &now_ns);
	if (ret)
		return ret;
	deadline = twheel_op_deadline(tm, clock, op->flags, op->expires_ns,
				      now_ns);
	ret = twheel_base_prepare(twheel_base_of(&tm->clocks, clock), deadline);
	if (ret)
		return ret;
	/* The slot's table entry: backed first, as it may fail. */
	if (twheel_table_on(&tm->table)) {
		ret = twheel_table_back(&tm->table,
					twheel_ids_next_slot(&tm->ids));
		if (ret)
			return ret;
	}
	/* A new id slot counts against the user's limit; a reused one not. */
	charge = tm->user && twheel_ids_full(&tm->ids);
	if (charge && !twheel_user_charge_slot(tm->user))
		return -ENOSPC;
	ret = twheel_ids_alloc(&tm->ids, t, &op->id);
	if (ret) {
		if (charge)
			twheel_user_uncharge_slot(tm->user);
		return ret;
	}
	*obj = NULL;
	tm->nr_timers++;
	twheel_stat_add(created, 1);
	t->word = op->id | (u64)clock << TWHEEL_TIMER_CLOCK_SHIFT;
	if (op->flags & TWHEEL_CANCEL_ON_SET)
		t->word |= TWHEEL_TIMER_COS;
	t->cookie = op->cookie;
	if (op->period_ns) {
		t->word |= TWHEEL_TIMER_BIG;
		twheel_op_set_period(tm, twheel_ptimer(t), op);
	}
	trace_twheel_timer_add(tm->clocks.trace_id, op->id, op->cookie,
			       op->clock, deadline,
			       twheel_ptimer(t) ? twheel_ptimer(t)->period_ns : 0,
			       0);
	if (twheel_table_on(&tm->table))
		twheel_timer_publish(tm, t, deadline);
	twheel_timer_place(tm, t, deadline, now_ns);
	*settle = twheel_op_unsettled(t, deadline, now_ns);
	*created = t;
	return 0;
}

/*
 * The present of a MODIFY that need not bring the wheel up to it: @t is
 * pending on a steady clock (one that no clock set moves), its tick comes
 * after the present, and so does its new deadline. Then nothing the wheel
 * would hand back by the present bears on it: @t itself is not due, and
 * its new deadline goes behind whatever is (the callback, or the next
 * update, hands that back). This saves a hold of the base's lock for the
 * common MODIFY, an idle timeout pushed back. For a MODIFY done alone
 * only: the operations of a batch share one present, read once and
 * cheaper than a clock read each.
 *
 * Return: true, mc->now_ns and mc->deadline set; false for the full
 * present.
 */
static bool twheel_op_modify_ahead(struct twheel_timers *tm,
				   const struct twheel_op *op,
				   struct twheel_timer *t, u32 clock,
				   struct twheel_modify_ctl *mc)
{
	struct twheel_base *base = twheel_base_of(&tm->clocks, clock);
	u64 now;

	if (twheel_timer_queued(t) ||
	    !twheel_base_steady(base) || twheel_timers_set_pending(tm))
		return false;
	mc->now_ns = twheel_clock_now(&tm->clocks, clock);
	now = twheel_now_tick(mc->now_ns, tm->clocks.tick_ns);
	/*
	 * Read without base->lock: before a pending timer's tick has come by
	 * its own present, the callback only moves the tick later (a cascade
	 * re-keyed by the table), and it hands the timer back only once the
	 * tick has come; a tick seen after ours is not due by ours. If the
	 * callback hands it back meanwhile, twheel_timer_move() takes it out
	 * again.
	 */
	if (data_race(READ_ONCE(t->entry.expires)) <= now)
		return false;
	mc->deadline = twheel_op_deadline(tm, clock, op->flags,
					  op->expires_ns, mc->now_ns);
	return mc->deadline > mc->now_ns;
}

/**
 * twheel_timers_modify_check() - the checks of a TWHEEL_OP_MODIFY
 * @tm: the timers; the caller holds the set's lock, the wheels up to date
 * @op: the operation; op->result is set when it passes
 * @obj: a large timer object for a timer that becomes periodic, or NULL
 * @alone: the only operation of this hold of the set's lock (the
 *         single-MODIFY ioctl): it may leave the wheel behind the present
 *         when nothing it does depends on it
 * @mc: set when it passes, for twheel_timers_modify_apply()
 *
 * Changes nothing but the wheel's present, when the operation needs the
 * wheel brought up to it. On success op->result is what the timer was,
 * and the new deadline's wheel level is there.
 *
 * Return: 0; -EAGAIN when the caller must release the lock and come back
 * (nothing changed); or the operation's errno.
 */
int twheel_timers_modify_check(struct twheel_timers *tm, struct twheel_op *op,
			       void *obj, bool alone,
			       struct twheel_modify_ctl *mc)
{
	struct twheel_timer *t;
	u64 ended;
	u32 clock;
	int ret;

	if (op->flags & ~(TWHEEL_ABSTIME | TWHEEL_SET_COOKIE |
			  TWHEEL_MISSED_MASK | TWHEEL_CANCEL_ON_SET) ||
	    twheel_op_missed_invalid(op) ||
	    (!(op->flags & TWHEEL_ABSTIME) && op->expires_ns < 0))
		return -EINVAL;
	t = twheel_timer_find(tm, op->id);
	if (!t)
		return -ENOENT;
	if (op->period_ns && !twheel_ptimer(t) && !obj)
		return -ENOMEM;
	clock = twheel_timer_clock(t);
	ret = twheel_op_cos(tm, op, clock, t->word & TWHEEL_TIMER_COS);
	if (ret)
		return ret;
	if (!alone || !twheel_op_modify_ahead(tm, op, t, clock, mc)) {
		ended = tm->table_cancelled;
		ret = twheel_timers_present(tm, clock, &mc->now_ns);
		if (ret)
			return ret;
		/*
		 * Bringing the wheel to the present can end this very timer
		 * (a cancel stored in its table entry) and free it: when it
		 * ended any, look it up again.
		 */
		if (tm->table_cancelled != ended) {
			t = twheel_timer_find(tm, op->id);
			if (!t)
				return -ENOENT;
		}
		mc->deadline = twheel_op_deadline(tm, clock, op->flags,
						  op->expires_ns, mc->now_ns);
	}
	ret = twheel_base_prepare(twheel_base_of(&tm->clocks, clock),
				  mc->deadline);
	if (ret)
		return ret;
	op->result = twheel_timer_queued(t) ? TWHEEL_STATE_QUEUED :
					      TWHEEL_STATE_PENDING;
	mc->t = t;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(twheel_timers_modify_check);

/**
 * twheel_timers_modify_apply() - a checked TWHEEL_OP_MODIFY, done
 * @tm: the timers; the caller holds the set's lock, still, since the check
 * @op: the operation, passed by twheel_timers_modify_check()
 * @m: its memory (the large object of a timer that becomes periodic);
 *     NULL for an operation without a period
 * @mc: what the check set
 *
 * Cannot fail.
 */
void twheel_timers_modify_apply(struct twheel_timers *tm,
				const struct twheel_op *op, struct twheel_mem *m,
				const struct twheel_modify_ctl *mc)
{
	struct twheel_timer *t = mc->t;
	s64 now_ns = mc->now_ns, deadline = mc->deadline;
	u32 clock = twheel_timer_clock(t);
	struct twheel_base *base;
	struct twheel_ptimer *pt;
	bool grow = op->period_ns && !twheel_ptimer(t);
	/* Out of the wheel and in again in one hold of its lock. */
	bool move = !grow && !twheel_timer_queued(t);

	if (!move)
		twheel_timer_unlink(tm, t);
	if (grow) {
		/* It becomes periodic: move it into a larger object. */
		pt = m->obj;
		pt->t.word = t->word | TWHEEL_TIMER_BIG;
		pt->t.cookie = t->cookie;
		twheel_ids_replace(&tm->ids, twheel_timer_id(t), &pt->t);
		/* The small one is freed in place of the unused large one. */
		m->obj = t;
		m->big = false;
		t = &pt->t;
	}
	pt = twheel_ptimer(t);
	if (pt)
		twheel_op_set_period(tm, pt, op);
	t->word &= ~TWHEEL_TIMER_COS;
	if (op->flags & TWHEEL_CANCEL_ON_SET)
		t->word |= TWHEEL_TIMER_COS;
	if (op->flags & TWHEEL_SET_COOKIE)
		t->cookie = op->cookie;
	trace_twheel_timer_modify(tm->clocks.trace_id, op->id, t->cookie,
				  twheel_clock_id(clock), deadline,
				  pt ? pt->period_ns : 0, op->result);
	if (twheel_table_on(&tm->table))
		twheel_timer_publish(tm, t, deadline);
	if (move)
		twheel_timer_move(tm, t, deadline, now_ns);
	else
		twheel_timer_place(tm, t, deadline, now_ns);
	/*
	 * An earlier deadline re-armed the hrtimer above, and so did a later
	 * one of the timer it was armed for when no other timer holds that
	 * tick (__twheel_base_left()). A later deadline of any other timer
	 * leaves it alone (at worst armed for a cascade that moves nothing:
	 * one event that queues nothing, whose callback re-arms it and wakes
	 * nobody); an fd left with nothing pending stops it. One in the
	 * wheel and not yet due leaves it pending: nothing to stop.
	 */
	if (twheel_op_unsettled(t, deadline, now_ns))
		twheel_op_settle(tm, clock);
	else if (!twheel_timer_queued(t))
		return;
	base = twheel_base_of(&tm->clocks, clock);
	twheel_base_arm_idle(base);
}
EXPORT_SYMBOL_IF_KUNIT(twheel_timers_modify_apply);

/*
 * TWHEEL_OP_QUERY's outputs. Apart from the other operations: its struct
 * twheel_status would otherwise be set up (zeroed with
 * CONFIG_INIT_STACK_ALL_ZERO) for every operation of a batch.
 */
static noinline void twheel_op_query(struct twheel_timers *tm,
				     struct twheel_op *op,
				     struct twheel_timer *t)
{
	struct twheel_status st;

	twheel_timer_status(tm, t, &st);
	op->cookie = st.cookie;
	op->expires_ns = st.deadline_ns;
	op->period_ns = st.period_ns;
	op->clock = st.clock;
	op->result = st.state;
	op->count = st.count;
	op->remaining_ns = st.remaining_ns;
}

/* The outputs of @op zeroed, as before it is done or when it fails. */
static void twheel_op_clear(struct twheel_op *op)
{
	if (op->op == TWHEEL_OP_ADD)
		op->id = 0;
	if (op->op == TWHEEL_OP_QUERY) {
		op->cookie = 0;
		op->expires_ns = 0;
		op->period_ns = 0;
		op->clock = 0;
	}
	op->error = 0;
	op->result = 0;
	op->count = 0;
	op->remaining_ns = 0;
}

/**
 * twheel_timers_op() - do one operation and hand it to an output function
 * @tm: the timers; the caller holds the set's lock, the wheels up to date
 * @op: the operation; its outputs and error are set
 * @m: its memory, from twheel_mem_alloc()
 * @i: its index in the batch, for @out
 * @out: called with @arg, @i and @op once done (must not sleep)
 * @arg: for @out
 *
 * An operation that changes something is taken back if @out fails (or
 * changes nothing before @out succeeded).
 *
 * Return: 0 when @op is done (op->error tells how it went); -EAGAIN when
 * the caller must release the lock and come back (nothing changed); or
 * what @out returned (nothing changed).
 */
int twheel_timers_op(struct twheel_timers *tm, struct twheel_op *op,
		     struct twheel_mem *m, u32 i,
		     int (*out)(void *arg, u32 i, const struct twheel_op *op),
		     void *arg)
{
	struct twheel_timer *t = NULL;
	struct twheel_modify_ctl mc;
	bool settle = false;
	int ret = -EINVAL;

	twheel_op_clear(op);
	if (op->__reserved)
		goto failed;
	switch (op->op) {
	case TWHEEL_OP_ADD:
		ret = twheel_op_add(tm, op, &m->obj, &t, &settle);
		if (ret)
			break;
		ret = out(arg, i, op);
		if (ret) {
			twheel_timer_cancel(tm, t);
			twheel_mem_keep(m, t);
			return ret;
		}
		tm->used = true;
		if (settle)
			twheel_op_settle(tm, twheel_timer_clock(t));
		return 0;
	case TWHEEL_OP_MODIFY:
		ret = twheel_timers_modify_check(tm, op, m->obj, false, &mc);
		if (ret)
			break;
		ret = out(arg, i, op);
		if (!ret)
			twheel_timers_modify_apply(tm, op, m, &mc);
		return ret;
	case TWHEEL_OP_CANCEL:
		if (op->flags)
			break;
		t = twheel_timer_find(tm, op->id);
		ret = -ENOENT;
		if (!t)
			break;
		op->result = twheel_timer_queued(t) ? TWHEEL_STATE_QUEUED :
						      TWHEEL_STATE_PENDING;
		ret = out(arg, i, op);
		if (!ret) {
			twheel_timer_cancel(tm, t);
			twheel_mem_keep(m, t);
		}
		return ret;
	case TWHEEL_OP_QUERY:
		if (op->flags)
			break;
		t = twheel_timer_find(tm, op->id);
		ret = -ENOENT;
		if (!t)
			break;
		twheel_op_query(tm, op, t);
		return out(arg, i, op);
	}
	if (ret == -EAGAIN)
		return ret;
failed:
	twheel_op_clear(op);
	op->error = ret;
	return out(arg, i, op);
}
