// SPDX-License-Identifier: GPL-2.0
/*
 * twheel_base.c - the clock bases: per clock of a context, a timing wheel
 * and an hrtimer armed for the wheel's next event; reading the clocks,
 * the opener's time-namespace offsets, the manual clock.
 *
 * Layering: below the timers (twheel_timer.c, twheel_op.c), above the
 * wheel core (twheel_wheel.c). This file calls nothing above it: it moves
 * wheel entries, never timers. An update (twheel_base_update()) hands the
 * entries that fell due back to its caller, which turns them into
 * records. The hrtimer callback first calls clocks->fired, the timers'
 * layer's bounded work in the interrupt (twheel_irq.c: it may re-place
 * timers a store into the shared table moved later, and arm the hrtimer
 * again, waking nobody); when that declines, it bumps clocks->fire_seq
 * and wakes clocks->wqh, where the set's waiters sleep, who do the rest.
 * The time the hrtimer is armed for is published in clocks->armed_ns[]
 * for the set's lockless check of a wall clock set past it.
 *
 * Locking: the set's lock (a mutex) serialises the process side; each
 * base's spinlock, base->lock, guards its wheel and armed tick against
 * the callback, which runs in hard interrupt context (a softirq thread on
 * PREEMPT_RT). Levels are allocated with it dropped (twheel_base_give()).
 *
 * Time: deadlines round up to the next tick and the present rounds down
 * (twheel_time.h); the hrtimer is armed for the start of the wheel's next
 * event tick. Times the user gives and reads are in the time namespace of
 * the task that opened the fd; the wheels run on the kernel's clocks.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/hrtimer.h>
#include <linux/ktime.h>
#include <linux/list.h>
#include <linux/overflow.h>
#include <linux/slab.h>
#include <linux/time_namespace.h>
#include <linux/timekeeping.h>
#include <kunit/visibility.h>

#include "twheel_base.h"
#include "twheel_compat.h"
#include "twheel_time.h"
#include "twheel_trace.h"
#include "twheel_user.h"

/* Bases of the other clocks end with their hrtimer; alarm bases are whole. */
static struct kmem_cache *twheel_base_cache;
static struct kmem_cache *twheel_alarm_base_cache;

static const char *const twheel_clock_names[TWHEEL_NR_CLOCKS] = {
	[TWHEEL_CLK_MONOTONIC] = "monotonic",
	[TWHEEL_CLK_BOOTTIME] = "boottime",
	[TWHEEL_CLK_REALTIME] = "realtime",
	[TWHEEL_CLK_TAI] = "tai",
	[TWHEEL_CLK_REALTIME_ALARM] = "realtime_alarm",
	[TWHEEL_CLK_BOOTTIME_ALARM] = "boottime_alarm",
};

/**
 * twheel_clock_name() - the name of a clock, as fdinfo shows it
 * @clock: its enum twheel_clk
 *
 * Return: "monotonic", "boottime", "realtime", "tai", "realtime_alarm"
 * or "boottime_alarm".
 */
const char *twheel_clock_name(u32 clock)
{
	return twheel_clock_names[clock];
}

/* The opener's time namespace: what it adds to the kernel's clocks. */
static void twheel_clocks_timens(struct twheel_clocks *clocks)
{
	struct timespec64 ts = { 0, 0 };

	timens_add_monotonic(&ts);
	clocks->mono_offset = timespec64_to_ns(&ts);
	ts = (struct timespec64){ 0, 0 };
	timens_add_boottime(&ts);
	clocks->boot_offset = timespec64_to_ns(&ts);
	/* Time namespaces leave the wall clocks alone. */
}

/**
 * twheel_clocks_init() - the clocks of a new context, with no base yet
 * @clocks: zeroed
 * @tick_ns: the resolution, >= 1
 * @trace_id: the context's trace id
 *
 * Times are in the calling task's time namespace.
 */
void twheel_clocks_init(struct twheel_clocks *clocks, u64 tick_ns,
			u64 trace_id)
{
	int i;

	for (i = 0; i < TWHEEL_NR_CLOCKS; i++)
		clocks->armed_ns[i] = KTIME_MAX;
	init_waitqueue_head(&clocks->wqh);
	twheel_clocks_timens(clocks);
	clocks->tick_ns = tick_ns;
	clocks->trace_id = trace_id;
}

/**
 * twheel_clock_now() - the present of a clock
 * @clocks: the context's clocks
 * @clock: the enum twheel_clk
 *
 * Return: the present in the kernel's time, or the manual clock's.
 */
s64 twheel_clock_now(struct twheel_clocks *clocks, u32 clock)
{
	if (clocks->manual)
		return clocks->manual_ns;
	switch (clock) {
	case TWHEEL_CLK_BOOTTIME:
	case TWHEEL_CLK_BOOTTIME_ALARM:
		return ktime_get_boottime();
	case TWHEEL_CLK_REALTIME:
	case TWHEEL_CLK_REALTIME_ALARM:
		return ktime_get_real();
	case TWHEEL_CLK_TAI:
		return ktime_get_clocktai();
	default:
		return ktime_get();
	}
}

/**
 * twheel_clocks_kick() - mark the context fired and wake its waiters
 * @clocks: the context's clocks
 *
 * What the hrtimer callback does, and what a task does that leaves due
 * timers in a wheel for the next update. O(1), no lock of ours. The task
 * that then updates the wheels wakes nobody again (the set's
 * twheel_ctx_fired() keeps the others from sleeping until the records
 * are there). The wake-up carries no event mask, so that pollers (epoll,
 * io_uring, select) ask twheel_poll(), which advances the wheel, rather
 * than report the fd readable: a cascade-only event queues no record.
 */
void twheel_clocks_kick(struct twheel_clocks *clocks)
{
	atomic_inc(&clocks->fire_seq);
	wake_up(&clocks->wqh);
}

/*
 * @base's timer fired: in hard-IRQ context (softirq on PREEMPT_RT), no
 * lock of ours. clocks->fired re-arms the timer itself, under base->lock,
 * when it has done all there was to do; else the set's waiters do it.
 */
static void twheel_base_event(struct twheel_base *base)
{
	bool (*fired)(struct twheel_base *base) = READ_ONCE(base->clocks->fired);

	if (!fired || !fired(base))
		twheel_clocks_kick(base->clocks);
}

static enum hrtimer_restart twheel_base_fired(struct hrtimer *hrtimer)
{
	twheel_base_event(container_of(hrtimer, struct twheel_base, hrtimer));
	return HRTIMER_NORESTART;
}

/* The same for an alarm clock: the alarmtimer's hrtimer callback. */
static enum alarmtimer_restart twheel_base_alarm_fired(struct alarm *alarm,
						       ktime_t now)
{
	twheel_base_event(container_of(alarm, struct twheel_base, alarm));
	return ALARMTIMER_NORESTART;
}

/* Stop @base's timer; wait for its callback when @wait. */
static void twheel_base_stop(struct twheel_base *base, bool wait)
{
	if (twheel_base_alarm(base)) {
		if (wait)
			alarm_cancel(&base->alarm);
		else
			alarm_try_to_cancel(&base->alarm);
	} else if (wait) {
		hrtimer_cancel(&base->hrtimer);
	} else {
		hrtimer_try_to_cancel(&base->hrtimer);
	}
}

/* Is @base's timer queued? */
static bool twheel_base_queued(struct twheel_base *base)
{
	if (twheel_base_alarm(base))
		return base->alarm.state & ALARMTIMER_STATE_ENQUEUED;
	return hrtimer_is_queued(&base->hrtimer);
}

/*
 * How the wheel's levels are allocated: for a new timer (an add, or a
 * modify, which may fail), as everything else a user makes the kernel
 * allocate; for timers the fd already holds (moved by an advance, re-added
 * after the clock was set back, or a periodic timer going back in after
 * its record was read), without fail, so that no accepted timer is ever
 * held back. __GFP_NORETRY with __GFP_NOFAIL: at the memory cgroup's limit
 * the charge is forced rather than the OOM killer called (the cgroup goes
 * over it by at most TWHEEL_LEVELS levels of 512 bytes per clock base),
 * and the page allocator retries without calling it either.
 */
#define TWHEEL_GFP_HELD	(GFP_KERNEL_ACCOUNT | __GFP_NORETRY | __GFP_NOFAIL)

/*
 * Give @base's wheel level @lvl (-1: none needed); an alarm base also
 * every level below it that it lacks, so that the entries placed there
 * cascade in the alarm's callback (twheel_irq.c) without waiting for a
 * task, which a suspend may keep frozen. Each is allocated without
 * base->lock, given under it (unless it came meanwhile: the callback
 * never takes a level, but two tasks may give one).
 * Return: 0 or -ENOMEM (the levels given so far stay).
 */
static int twheel_base_give_level(struct twheel_base *base, int lvl, gfp_t gfp)
{
	int last = twheel_base_alarm(base) ? 0 : lvl;
	struct twheel_level *l;
	unsigned long flags;

	for (; lvl >= last && lvl >= 0; lvl--) {
		/* A hint: whoever needs a level checks it under the lock. */
		if (data_race(base->wheel.lvl[lvl]))
			continue;
		l = kzalloc(sizeof(*l), gfp | __GFP_NOWARN);
		if (!l)
			return -ENOMEM;
		twheel_base_lock(base, flags);
		if (!base->wheel.lvl[lvl]) {
			twheel_wheel_give_level(&base->wheel, lvl, l);
			l = NULL;
		}
		twheel_base_unlock(base, flags);
		kfree(l);
	}
	return 0;
}

/**
 * twheel_base_trim() - free the levels of a base's wheel above the highest
 *                      level holding a timer
 * @base: the base
 *
 * The empty levels below it stay: the timers above cascade into them, and
 * in the hrtimer callback a cascade into a missing level falls back to
 * waking the set's task to allocate it.
 */
void twheel_base_trim(struct twheel_base *base)
{
	struct twheel_level *l;
	unsigned long flags;

	for (;;) {
		twheel_base_lock(base, flags);
		l = twheel_wheel_take_empty_level(&base->wheel, true);
		twheel_base_unlock(base, flags);
		if (!l)
			break;
		kfree(l);
	}
}

/* Free @base and every level of its wheel; its hrtimer is stopped. */
static void twheel_base_free(struct twheel_base *base)
{
	int i;

	for (i = 0; i < TWHEEL_LEVELS; i++)
		kfree(base->wheel.lvl[i]);
	kmem_cache_free(twheel_base_alarm(base) ? twheel_alarm_base_cache :
						  twheel_base_cache, base);
}

/**
 * twheel_clocks_stop() - stop every base's hrtimer
 * @clocks: the clocks of a context nobody else uses any more
 *
 * Waits for running hrtimer callbacks, so none runs after it returns.
 */
void twheel_clocks_stop(struct twheel_clocks *clocks)
{
	int i;

	for (i = 0; i < TWHEEL_NR_CLOCKS; i++)
		if (clocks->bases[i])
			twheel_base_stop(clocks->bases[i], true);
}

/**
 * twheel_clocks_free() - free every base and its wheel's levels
 * @clocks: the clocks, stopped by twheel_clocks_stop(); their wheels'
 *          entries are the caller's and were freed by it
 */
void twheel_clocks_free(struct twheel_clocks *clocks)
{
	int i;

	for (i = 0; i < TWHEEL_NR_CLOCKS; i++)
		if (clocks->bases[i])
			twheel_base_free(clocks->bases[i]);
}

/**
 * twheel_clocks_reset() - start the clocks afresh with a new tick
 * @clocks: the clocks, whose wheels hold no entry
 * @tick_ns: the new resolution
 * @manual: run every clock on the manual clock, starting at 0
 *
 * Every base is stopped and freed; the next use creates it again.
 */
void twheel_clocks_reset(struct twheel_clocks *clocks, u64 tick_ns,
			 bool manual)
{
	int i;

	twheel_clocks_stop(clocks);
	twheel_clocks_free(clocks);
	for (i = 0; i < TWHEEL_NR_CLOCKS; i++) {
		WRITE_ONCE(clocks->armed_ns[i], KTIME_MAX);
		clocks->bases[i] = NULL;
	}
	clocks->tick_ns = tick_ns;
	clocks->manual = manual;
	clocks->manual_ns = 0;
}

/**
 * twheel_base_give() - give a base's wheel a level an entry it holds needs
 * @base: the base
 * @lvl: the level, one twheel_wheel_level_needed() or
 *       twheel_wheel_level_missing() named; -1 for none
 *
 * Without fail (TWHEEL_GFP_HELD), base->lock not held.
 */
void twheel_base_give(struct twheel_base *base, int lvl)
{
	twheel_base_give_level(base, lvl, TWHEEL_GFP_HELD);
}

/**
 * twheel_base_prepare() - give the wheel the level a new deadline needs
 * @base: the base
 * @deadline: the deadline (kernel time)
 *
 * Before a new deadline is placed by an operation that may still fail:
 * allocate the level it would need, as a user's allocation (TWHEEL_GFP).
 * Should the callback move the wheel's clock meanwhile so that it needs
 * another, twheel_base_add() gives that one without fail.
 *
 * Return: 0, or -ENOMEM.
 */
int twheel_base_prepare(struct twheel_base *base, s64 deadline)
{
	u64 tick = twheel_deadline_tick(deadline, base->clocks->tick_ns);
	int lvl;

	/*
	 * Without base->lock: only this task gives and takes levels, and
	 * whatever the callback does to the clock meanwhile, the add checks
	 * again under the lock.
	 */
	lvl = data_race(twheel_wheel_level_needed(&base->wheel, tick));
	return twheel_base_give_level(base, lvl, TWHEEL_GFP);
}

/**
 * __twheel_base_add() - add an entry the context holds to a base's wheel,
 *                       if the wheel has the level it needs
 * @base: the base, whose lock is held
 * @e: the entry
 * @tick: its tick
 * @arm: also arm the hrtimer when @tick is before the tick it is armed for
 *
 * Return: true when @e was added; false, nothing done, when the level it
 * needs is missing (twheel_base_add() allocates it).
 */
bool __twheel_base_add(struct twheel_base *base, struct twheel_entry *e,
		       u64 tick, bool arm)
{
	lockdep_assert_held(&base->lock);
	if (twheel_wheel_level_needed(&base->wheel, tick) >= 0)
		return false;
	twheel_wheel_add(&base->wheel, e, tick);
	if (arm && tick < base->armed)
		__twheel_base_arm(base);
	return true;
}

/**
 * __twheel_base_left() - an entry left the tick the hrtimer is armed for
 * @base: the base, whose lock is held
 * @tick: the tick the entry had (a timer taken out of the wheel, or moved
 *        to a later tick)
 *
 * When that was the wheel's next event and nothing else holds it there
 * (the wheel's next event is later now, or there is none), the hrtimer
 * goes to the next one at once, as timerfd_settime() and a timerfd's
 * close move theirs, rather than fire at @tick for nothing. An event
 * still held there, or an hrtimer armed for another tick (a cascade's,
 * at an aligned tick, which its timers' moves leave alone), stays.
 */
void __twheel_base_left(struct twheel_base *base, u64 tick)
{
	lockdep_assert_held(&base->lock);
	if (tick == base->armed && twheel_wheel_next(&base->wheel) > tick)
		__twheel_base_arm(base);
}

/**
 * twheel_base_add() - add an entry the context holds to a base's wheel
 * @base: the base
 * @e: the entry
 * @tick: its tick
 * @arm: also arm the hrtimer when @tick is before the tick it is armed for
 *
 * The level it needs is allocated without fail (TWHEEL_GFP_HELD), with
 * base->lock dropped.
 */
void twheel_base_add(struct twheel_base *base, struct twheel_entry *e,
		     u64 tick, bool arm)
{
	unsigned long flags;

	twheel_base_lock(base, flags);
	while (!__twheel_base_add(base, e, tick, arm)) {
		int lvl = twheel_wheel_level_needed(&base->wheel, tick);

		twheel_base_unlock(base, flags);
		twheel_base_give(base, lvl);
		twheel_base_lock(base, flags);
	}
	twheel_base_unlock(base, flags);
}

/**
 * __twheel_base_arm() - arm the hrtimer for the wheel's next event, or
 *                       stop it when the wheel has none
 * @base: the base, whose lock is held
 *
 * base->armed is TWHEEL_NEVER while stopped: no tick of ours reaches it,
 * since deadlines are at most KTIME_MAX nanoseconds. Also from the
 * hrtimer's own callback (twheel_irq.c), which the hrtimer core allows.
 */
void __twheel_base_arm(struct twheel_base *base)
{
	struct twheel_clocks *clocks = base->clocks;
	u64 next;

	lockdep_assert_held(&base->lock);
	if (clocks->manual) {
		/* Only TWHEEL_IOC_ADVANCE moves a manual clock. */
		base->armed = twheel_wheel_next(&base->wheel);
		return;
	}
	/* Empty, or only timers the callback parked for the task to end. */
	if (twheel_wheel_idle(&base->wheel)) {
		base->armed = TWHEEL_NEVER;
		WRITE_ONCE(clocks->armed_ns[base->clock], KTIME_MAX);
		/*
		 * A callback running now waits for base->lock, then finds
		 * nothing due: harmless.
		 */
		twheel_base_stop(base, false);
		return;
	}
	next = twheel_wheel_next(&base->wheel);
	if (next == base->armed && twheel_base_queued(base))
		return;
	twheel_base_start(base, next, twheel_tick_ns(next, clocks->tick_ns));
}

/**
 * twheel_base_start() - arm a base's hrtimer (or alarm)
 * @base: the base, whose lock is held; not on the manual clock
 * @tick: what base->armed is to say: the tick its event is for
 * @when: when it fires, kernel time on the base's clock
 *
 * Also from the callback of that hrtimer (or alarm), which the hrtimer
 * core allows: twheel_irq.c.
 */
void twheel_base_start(struct twheel_base *base, u64 tick, s64 when)
{
	lockdep_assert_held(&base->lock);
	base->armed = tick;
	WRITE_ONCE(base->clocks->armed_ns[base->clock], when);
	if (twheel_base_alarm(base))
		alarm_start(&base->alarm, ns_to_ktime(when));
	else
		hrtimer_start(&base->hrtimer, ns_to_ktime(when),
			      HRTIMER_MODE_ABS);
}

/**
 * twheel_base_arm_idle() - stop the hrtimer if the wheel is empty
 * @base: the base, whose lock is not held
 *
 * After a timer left it: an idle fd gets no wake-up. A wheel that still
 * holds timers keeps its hrtimer armed (__twheel_base_left() moved it
 * when the timer was the one it was armed for), early at worst (one event
 * that queues nothing; its callback re-arms it and wakes nobody, see
 * twheel_irq.h).
 */
void twheel_base_arm_idle(struct twheel_base *base)
{
	unsigned long flags;
	bool empty;

	/*
	 * Without the lock first: only the task holding the set's lock takes
	 * entries out for good; the callback puts back, within its hold of
	 * base->lock, every entry it takes. Seen held, the wheel stays so.
	 */
	if (data_race(!twheel_wheel_empty(&base->wheel)))
		return;
	twheel_base_lock(base, flags);
	empty = twheel_wheel_empty(&base->wheel);
	if (empty)
		__twheel_base_arm(base);
	twheel_base_unlock(base, flags);
	if (empty)
		twheel_base_trim(base);
}

/**
 * twheel_clocks_wall_due() - was a wall clock set past its wheel's next
 *                            event?
 * @clocks: the context's clocks
 *
 * Lockless, for the set's twheel_ctx_fired(). When CLOCK_REALTIME (or its
 * alarm clock) or CLOCK_TAI is set forward past the time its hrtimer is
 * armed for, the
 * kernel runs the callback soon, not at once; until then this says the
 * wheel is due, so that the next read, poll or ioctl queues its records.
 * Reads a clock only for a wall clock whose hrtimer is armed.
 *
 * Return: true when a wall clock's armed time has been reached.
 */
bool twheel_clocks_wall_due(struct twheel_clocks *clocks)
{
	s64 rt = READ_ONCE(clocks->armed_ns[TWHEEL_CLK_REALTIME]);
	s64 rta = READ_ONCE(clocks->armed_ns[TWHEEL_CLK_REALTIME_ALARM]);
	s64 tai = READ_ONCE(clocks->armed_ns[TWHEEL_CLK_TAI]);

	rt = min(rt, rta);
	return (rt != KTIME_MAX && ktime_get_real() >= rt) ||
	       (tai != KTIME_MAX && ktime_get_clocktai() >= tai);
}

/**
 * twheel_base_get() - the base for a clock, created on first use
 * @clocks: the context's clocks
 * @clock: the enum twheel_clk
 *
 * Return: the base, or NULL when out of memory.
 */
struct twheel_base *twheel_base_get(struct twheel_clocks *clocks, u32 clock)
{
	struct twheel_base *base;

	clock = __twheel_base_index(clocks, clock);
	base = clocks->bases[clock];

	if (base)
		return base;
	/*
	 * A few hundred bytes: the wheel's levels come as timers need them.
	 * Quietly: a user reaching a limit is no kernel event.
	 */
	base = kmem_cache_zalloc(twheel_clock_alarm(clock) && !clocks->manual ?
				 twheel_alarm_base_cache : twheel_base_cache,
				 TWHEEL_GFP | __GFP_NOWARN);
	if (!base)
		return NULL;
	base->clocks = clocks;
	base->clock = clock;
	base->armed = TWHEEL_NEVER;
	spin_lock_init(&base->lock);
	INIT_LIST_HEAD(&base->rebase);
	twheel_wheel_init(&base->wheel,
			  twheel_now_tick(twheel_clock_now(clocks, clock),
					  clocks->tick_ns));
	if (twheel_base_alarm(base))
		alarm_init(&base->alarm,
			   clock == TWHEEL_CLK_REALTIME_ALARM ? ALARM_REALTIME :
								ALARM_BOOTTIME,
			   twheel_base_alarm_fired);
	else
		twheel_hrtimer_setup(&base->hrtimer, twheel_base_fired,
				     twheel_clock_id(clock), HRTIMER_MODE_ABS);
	clocks->bases[clock] = base;
	return base;
}

/**
 * twheel_base_cache_init() - create the slab cache of clock bases, and
 *                            listen for wall clock sets
 *
 * Return: 0 or a negative errno.
 */
int twheel_base_cache_init(void)
{
	int ret;

	/*
	 * A base is a few hundred bytes: a cache of its exact size (kmalloc
	 * would round it up to 512), so that an fd with a few timers stays
	 * under 4 KiB. Its usercopy region (before 6.5, what keeps it apart)
	 * is the armed tick, never copied. A wheel level is 512 bytes:
	 * kmalloc's size.
	 */
	twheel_base_cache =
		twheel_cache_create("twheel_base",
				    offsetofend(struct twheel_base, hrtimer),
				    offsetof(struct twheel_base, armed));
	if (!twheel_base_cache)
		return -ENOMEM;
	twheel_alarm_base_cache =
		twheel_cache_create("twheel_alarm_base",
				    sizeof(struct twheel_base),
				    offsetof(struct twheel_base, armed));
	if (!twheel_alarm_base_cache) {
		ret = -ENOMEM;
		goto err_cache;
	}
	ret = twheel_clock_set_init();
	if (ret)
		goto err_alarm;
	return 0;

err_alarm:
	kmem_cache_destroy(twheel_alarm_base_cache);
err_cache:
	kmem_cache_destroy(twheel_base_cache);
	return ret;
}

/**
 * twheel_base_cache_exit() - destroy the slab cache of clock bases, and
 *                            stop listening for wall clock sets
 *
 * Every context is destroyed by then, so it is empty and nobody watches.
 */
void twheel_base_cache_exit(void)
{
	twheel_clock_set_exit();
	kmem_cache_destroy(twheel_alarm_base_cache);
	kmem_cache_destroy(twheel_base_cache);
}
