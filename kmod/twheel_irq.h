/* SPDX-License-Identifier: GPL-2.0 */
/*
 * twheel_irq.h - the work an hrtimer callback does itself, and its bounds.
 *
 * What runs where. A clock base's hrtimer callback (twheel_base.c; on an
 * alarm clock the alarmtimer's) runs in hard interrupt context (on
 * PREEMPT_RT in the hrtimer softirq thread). On every clock (the manual
 * clock has no hrtimer), it first calls twheel_irq_fired(): under the
 * base's spinlock it advances the wheel (cascades included).
 * On a set with a shared timer table, each one-shot timer a cascade moves
 * to a lower level goes by the later deadline its entry holds, if any
 * (twheel_irq_rekey(); the task's update does the same with its
 * cascades): placed for it at once, it never reaches the lower levels
 * for its old deadline, so a timeout pushed back at least once per level
 * period costs one entry move per cascade and no callback at its old
 * deadline. Then it reads the table entries of the timers that fell due:
 * a one-shot timer whose entry holds a later deadline goes back into the
 * wheel for it, exactly as the update in the waiter's task would put it
 * (twheel_timers_entries()); a timer (one-shot or periodic) whose entry
 * says cancelled is parked (twheel_wheel_park()):
 * still counted by the wheel, with no event, and clocks->fire_seq is
 * bumped without a wake-up, so that the next update, in whichever task
 * next uses the set (an ioctl, a read, a poll; not fdinfo, which only
 * looks), ends it there: its memory is freed, its id and table entry
 * released, and it counts in the set's cancelled count from then on.
 * When nothing fell due (an hrtimer armed for a cascade whose timers
 * all moved later with TWHEEL_IOC_MODIFY or were cancelled, where a move
 * of the one timer it is armed for at level 0 re-arms it at once, see
 * __twheel_base_left(); or an event that only cascades), or every timer
 * that did was moved or parked so, the
 * callback arms the hrtimer for the wheel's next event and wakes nobody.
 * Anything else (a timer that really expires, a level the wheel lacks, a
 * bound reached) is left in the wheel, first in line, and the callback
 * falls back to waking the set's waiters, whose task does the rest as
 * before: records, allocation, trace of the advance. A later deadline
 * in a level the wheel lacks is not taken meanwhile (the timer stays by
 * its own); the base asks the task for that level (base->wanted), which
 * its update gives before anything else, so that one wake-up serves
 * every timer that wants it and none comes at their old deadlines. A
 * next event that hands timers back before any cascade
 * (twheel_wheel_expires()) whose first timer in line expires (on a set
 * without a table, where every due timer does; with one, read as above:
 * no later deadline, no cancel) is left to the task as it is: the
 * callback only wakes, as it must for that timer, and the task's update
 * reads every entry of the tick (one advance, one reading of each).
 * While a task re-adds a wall clock's entries after the clock was set
 * back, the callback only wakes too.
 *
 * Alarm clocks. The system must be resumed for an alarm timer whether or
 * not a task uses the set before the next suspend (its tasks may be
 * frozen already). So an alarm base's callback also advances a wheel
 * whose next event only hands timers back, sets aside the timers that
 * earlier callbacks left for the task (they stay first in line), and,
 * whenever it leaves work to the task, arms the alarm itself for the
 * wheel's next event after the present; when there is none because the
 * advance could not finish (a bound reached), TWHEEL_IRQ_ALARM_RETRY_NS
 * later. Its cascades never wait for a task to allocate a level: an
 * alarm base is given every level below the highest one its timers need
 * (twheel_base.c).
 *
 * Bounds. One callback moves at most TWHEEL_IRQ_BUDGET wheel entries
 * (hand-backs and cascades, re-keyed or not: each a few list operations,
 * one load of the table and, on a clock without a namespace offset,
 * integer compares: about 110 instructions each, counted under QEMU's
 * -icount in `twheel-prof idle`, so some 14 000 for a callback's entry
 * moves at most); when an advance needs more and nothing has really
 * expired yet, it goes on TWHEEL_IRQ_GAP_NS later
 * in another callback. Over all the fds of a user (and of each user
 * namespace's creator above them, as for the limits of twheel_user.h),
 * callbacks move at most TWHEEL_IRQ_RATE entries per second; beyond it,
 * they fall back to waking. So a 1 us tick, or many fds, buys a user at
 * most TWHEEL_IRQ_RATE entry moves of interrupt time per second, plus the
 * callbacks that would have woken a task anyway.
 */
#ifndef _TWHEEL_IRQ_H
#define _TWHEEL_IRQ_H

#include <linux/time64.h>
#include <linux/types.h>

#include "twheel_wheel.h"

/* The most wheel entries one callback moves (or parks). */
#define TWHEEL_IRQ_BUDGET	128

/* How long after a callback that ran out of budget the next one goes on. */
#define TWHEEL_IRQ_GAP_NS	(20 * NSEC_PER_USEC)

/* The most wheel entries callbacks move per second, per user. */
#define TWHEEL_IRQ_RATE		65536

/* When an alarm base's callback that could not finish comes again. */
#define TWHEEL_IRQ_ALARM_RETRY_NS	NSEC_PER_SEC

struct twheel_base;
struct twheel_timers;

/**
 * struct twheel_irq_rekey - a set's answer to the wheel's cascades
 * @rk: what twheel_wheel_advance_some() calls
 * @tm: the timers
 * @base: the base advanced
 * @now_ns: the present it is advanced to (kernel time on its clock)
 * @now_tick: its tick
 * @max_tick: the last tick whose time fits a ktime_t
 * @fast: the base's clock has no namespace offset, @now_ns is not before 0
 */
struct twheel_irq_rekey {
	struct twheel_rekey rk;
	struct twheel_timers *tm;
	struct twheel_base *base;
	s64 now_ns;
	u64 now_tick;
	s64 max_tick;
	bool fast;
};

bool twheel_irq_fired(struct twheel_base *base);
bool twheel_irq_run(struct twheel_timers *tm, struct twheel_base *base,
		    s64 now_ns);
struct twheel_rekey *twheel_irq_rekey(struct twheel_irq_rekey *r,
				      struct twheel_timers *tm,
				      struct twheel_base *base, s64 now_ns);

#endif /* _TWHEEL_IRQ_H */
