/* SPDX-License-Identifier: GPL-2.0 */
/*
 * twheel_base.h - the clock bases of one timer set: per clock a timing
 * wheel and the hrtimer armed for its next event; the clocks' reads, the
 * opener's time-namespace offsets, and the manual clock.
 *
 * The layer below the timers (twheel_timer.h) and above the wheel core
 * (twheel_wheel.h). It knows wheel entries, not timers: an update hands
 * the entries that fell due back to its caller. It calls nothing above
 * it: its hrtimer callback first lets the timers' layer act on the
 * wheel (clocks->fired, see twheel_irq.h), else bumps clocks->fire_seq and
 * wakes clocks->wqh (the set waits there); the lockless wall-clock check
 * reads clocks->armed_ns[].
 *
 * Locking: the caller (the set's lock) serialises every call but
 * twheel_clocks_wall_due() and the hrtimer callback. Each base's wheel and
 * armed tick are also under its spinlock, base->lock: the hrtimer callback
 * may change them (twheel_irq.c). Process context takes it with
 * twheel_base_lock() (interrupts off: the callback is a hard interrupt
 * but on PREEMPT_RT); every function here that reads or changes the wheel
 * takes it itself, but those named __twheel_base_*(), which want it held.
 * A wheel's levels are allocated outside it.
 */
#ifndef _TWHEEL_BASE_H
#define _TWHEEL_BASE_H

#include <linux/alarmtimer.h>
#include <linux/atomic.h>
#include <linux/errno.h>
#include <linux/hrtimer.h>
#include <linux/ktime.h>
#include <linux/list.h>
#include <linux/overflow.h>
#include <linux/spinlock.h>
#include <linux/time.h>
#include <linux/types.h>
#include <linux/wait.h>

#include "twheel_time.h"
#include "twheel_wheel.h"

/*
 * The clocks a context runs, by index (the ABI names them by clockid_t;
 * twheel_clock_index() maps one to the other).
 */
enum twheel_clk {
	TWHEEL_CLK_MONOTONIC,
	TWHEEL_CLK_BOOTTIME,
	TWHEEL_CLK_REALTIME,
	TWHEEL_CLK_TAI,
	TWHEEL_CLK_REALTIME_ALARM,
	TWHEEL_CLK_BOOTTIME_ALARM,
	TWHEEL_NR_CLOCKS
};

struct twheel_clocks;
struct twheel_set_watch;

/**
 * struct twheel_base - the timers of one context on one clock
 * @wheel: the timing wheel, in ticks of the context
 * @lock: guards @wheel and @armed against the hrtimer callback
 * @rebase: entries taken out of @wheel when its clock went back, not yet
 *          added again
 * @clocks: the clocks of the context it belongs to
 * @armed: the tick @hrtimer is armed for, or TWHEEL_NEVER
 * @clock: the enum twheel_clk of this base
 * @wanted: bit L set when a table entry's later deadline (twheel_irq.c)
 *          needed level L of @wheel, which it lacked: the set's task gives
 *          it in its next update (twheel_base_update()); under @lock
 * @hrtimer: armed (absolute, on @clock's clock) for the wheel's next event
 * @alarm: instead of @hrtimer on an alarm clock (twheel_clock_alarm()): the
 *         same, and it wakes the system from suspend; last, so that the
 *         other bases are allocated without its extra bytes
 *
 * The wheel's levels (512 bytes each) are allocated as timers need them
 * and freed once they and every level above them are empty (a level below
 * one holding timers is kept for their cascades, which would otherwise
 * wait for the task to allocate it): a base holding a few timers is a
 * few hundred bytes to a few KiB.
 */
struct twheel_base {
	struct twheel_wheel wheel;
	spinlock_t lock;	/* @wheel, @armed: against the hrtimer callback */
	struct list_head rebase;
	struct twheel_clocks *clocks;
	u64 armed;
	u32 clock;
	u16 wanted;
	union {
		struct hrtimer hrtimer;
		struct alarm alarm;
	};
};

/**
 * struct twheel_clocks - the clocks of one context
 * @bases: per clock, allocated on first use
 * @mono_offset: the opener's time namespace offset of CLOCK_MONOTONIC: the
 *               time the user sees minus the kernel's (not used with
 *               @manual); the wall clocks have none
 * @boot_offset: the same of CLOCK_BOOTTIME and its alarm clock
 * @armed_ns: per clock, when its hrtimer fires (kernel time), KTIME_MAX
 *            when it is not armed; read without the lock to see a wall
 *            clock set past it (twheel_clocks_wall_due())
 * @manual_ns: with @manual, the time of every clock
 * @tick_ns: the resolution: one wheel tick in nanoseconds
 * @trace_id: names the context in trace events
 * @wqh: the context's readers and pollers wait here
 * @fire_seq: bumped by every hrtimer callback (twheel_clocks_kick())
 * @set_watch: its place on the module's list of contexts told of wall
 *             clock sets (twheel_clocks_watch()), or NULL
 * @manual: the clocks are the manual clock @manual_ns (TWHEEL_CONFIG_MANUAL)
 * @fired: called first by a base's hrtimer callback, with its time; true
 *         when it did the base's work and armed its hrtimer again (no
 *         wake-up), false for the usual kick; NULL for none
 */
struct twheel_clocks {
	struct twheel_base *bases[TWHEEL_NR_CLOCKS];
	s64 mono_offset;
	s64 boot_offset;
	s64 armed_ns[TWHEEL_NR_CLOCKS];
	s64 manual_ns;
	u64 tick_ns;
	u64 trace_id;
	wait_queue_head_t wqh;
	atomic_t fire_seq;
	struct twheel_set_watch *set_watch;
	bool manual;
	bool (*fired)(struct twheel_base *base);
};

/**
 * struct twheel_base_step - one update of a base, between
 *                         twheel_base_update() and twheel_base_updated()
 * @now_ns: the present it brings the wheel to (kernel time)
 * @from: the wheel's clock before
 * @start: the budget before
 * @n: entries handed back (due)
 * @done: the wheel is up to date, its hrtimer armed
 * @empty: ... and it holds no entry: twheel_base_updated() frees its levels
 */
struct twheel_base_step {
	s64 now_ns;
	u64 from;
	u64 start;
	u64 n;
	bool done;
	bool empty;
};

/**
 * twheel_clock_index() - the index of a clock the ABI names by clockid_t
 * @clockid: CLOCK_MONOTONIC, CLOCK_BOOTTIME, CLOCK_REALTIME, CLOCK_TAI,
 *           CLOCK_REALTIME_ALARM or CLOCK_BOOTTIME_ALARM
 *
 * Return: its enum twheel_clk, or -EINVAL for any other value.
 */
static inline int twheel_clock_index(u32 clockid)
{
	switch (clockid) {
	case CLOCK_MONOTONIC:
		return TWHEEL_CLK_MONOTONIC;
	case CLOCK_BOOTTIME:
		return TWHEEL_CLK_BOOTTIME;
	case CLOCK_REALTIME:
		return TWHEEL_CLK_REALTIME;
	case CLOCK_TAI:
		return TWHEEL_CLK_TAI;
	case CLOCK_REALTIME_ALARM:
		return TWHEEL_CLK_REALTIME_ALARM;
	case CLOCK_BOOTTIME_ALARM:
		return TWHEEL_CLK_BOOTTIME_ALARM;
	}
	return -EINVAL;
}

/**
 * twheel_clock_alarm() - does a clock wake the system from suspend?
 * @clock: its enum twheel_clk
 *
 * Return: true for the alarm clocks, whose bases use the alarmtimer.
 */
static inline bool twheel_clock_alarm(u32 clock)
{
	return clock == TWHEEL_CLK_REALTIME_ALARM ||
	       clock == TWHEEL_CLK_BOOTTIME_ALARM;
}

/**
 * twheel_clock_id() - the clockid_t of a clock
 * @clock: its enum twheel_clk
 *
 * Return: the clockid_t the ABI names it by.
 */
static inline clockid_t twheel_clock_id(u32 clock)
{
	static const clockid_t ids[TWHEEL_NR_CLOCKS] = {
		[TWHEEL_CLK_MONOTONIC] = CLOCK_MONOTONIC,
		[TWHEEL_CLK_BOOTTIME] = CLOCK_BOOTTIME,
		[TWHEEL_CLK_REALTIME] = CLOCK_REALTIME,
		[TWHEEL_CLK_TAI] = CLOCK_TAI,
		[TWHEEL_CLK_REALTIME_ALARM] = CLOCK_REALTIME_ALARM,
		[TWHEEL_CLK_BOOTTIME_ALARM] = CLOCK_BOOTTIME_ALARM,
	};

	return ids[clock];
}

const char *twheel_clock_name(u32 clock);

void twheel_clocks_init(struct twheel_clocks *clocks, u64 tick_ns,
			u64 trace_id);
void twheel_clocks_stop(struct twheel_clocks *clocks);
void twheel_clocks_reset(struct twheel_clocks *clocks, u64 tick_ns,
			 bool manual);
void twheel_clocks_free(struct twheel_clocks *clocks);
void twheel_clocks_kick(struct twheel_clocks *clocks);
bool twheel_clocks_wall_due(struct twheel_clocks *clocks);
int twheel_clocks_watch(struct twheel_clocks *clocks);
void twheel_clocks_unwatch(struct twheel_clocks *clocks);
u32 twheel_clock_set_seq(void);
int twheel_clock_set_init(void);
void twheel_clock_set_exit(void);
s64 twheel_clock_now(struct twheel_clocks *clocks, u32 clock);

/* The opener's namespace offset of @clock; none on a manual clock. */
static inline s64 twheel_clocks_offset(struct twheel_clocks *clocks, u32 clock)
{
	if (clocks->manual)
		return 0;
	switch (clock) {
	case TWHEEL_CLK_MONOTONIC:
		return clocks->mono_offset;
	case TWHEEL_CLK_BOOTTIME:
	case TWHEEL_CLK_BOOTTIME_ALARM:
		return clocks->boot_offset;
	}
	return 0;
}

/**
 * twheel_clocks_to_kernel() - the user's time on a clock to the kernel's
 * @clocks: the context's clocks
 * @clock: the enum twheel_clk
 * @ns: a time in the opener's time namespace
 *
 * Return: the kernel's time, saturating at KTIME_MIN and KTIME_MAX.
 */
static inline s64 twheel_clocks_to_kernel(struct twheel_clocks *clocks,
					  u32 clock, s64 ns)
{
	s64 off = twheel_clocks_offset(clocks, clock), r;

	if (check_sub_overflow(ns, off, &r))
		return off > 0 ? KTIME_MIN : KTIME_MAX;
	return r;
}

/**
 * twheel_clocks_to_user() - the kernel's time on a clock to the user's
 * @clocks: the context's clocks
 * @clock: the enum twheel_clk
 * @ns: a time in the kernel's time
 *
 * Return: the time in the opener's namespace, saturating.
 */
static inline s64 twheel_clocks_to_user(struct twheel_clocks *clocks,
					u32 clock, s64 ns)
{
	s64 off = twheel_clocks_offset(clocks, clock), r;

	if (check_add_overflow(ns, off, &r))
		return off > 0 ? KTIME_MAX : KTIME_MIN;
	return r;
}

/*
 * The base that runs timers of @clock: its own, or on a manual clock the
 * one base all timers share, so that they fall due in one order.
 */
static inline u32 __twheel_base_index(const struct twheel_clocks *clocks,
				      u32 clock)
{
	return clocks->manual ? TWHEEL_CLK_MONOTONIC : clock;
}

/**
 * twheel_base_of() - the base of a timer of a clock
 * @clocks: the context's clocks
 * @clock: the timer's enum twheel_clk
 *
 * Inline: every operation on a timer looks its base up.
 *
 * Return: the base; it exists (the timer is in it or was placed by it).
 */
static inline struct twheel_base *twheel_base_of(struct twheel_clocks *clocks,
						 u32 clock)
{
	return clocks->bases[__twheel_base_index(clocks, clock)];
}

struct twheel_base *twheel_base_get(struct twheel_clocks *clocks, u32 clock);

/* Take @base's lock in process context; *@flags for twheel_base_unlock(). */
#define twheel_base_lock(base, flags) spin_lock_irqsave(&(base)->lock, flags)
#define twheel_base_unlock(base, flags) \
	spin_unlock_irqrestore(&(base)->lock, flags)

int twheel_base_prepare(struct twheel_base *base, s64 deadline);
bool __twheel_base_add(struct twheel_base *base, struct twheel_entry *e,
		       u64 tick, bool arm);
void twheel_base_add(struct twheel_base *base, struct twheel_entry *e,
		     u64 tick, bool arm);

/*
 * Does @base run on a clock that no clock set moves: CLOCK_MONOTONIC,
 * CLOCK_BOOTTIME or CLOCK_BOOTTIME_ALARM, not manual? Its wheel's clock
 * is then never after the clock's present, whatever the callback did.
 */
static inline bool twheel_base_steady(const struct twheel_base *base)
{
	return !base->clocks->manual &&
	       (base->clock == TWHEEL_CLK_MONOTONIC ||
		base->clock == TWHEEL_CLK_BOOTTIME ||
		base->clock == TWHEEL_CLK_BOOTTIME_ALARM);
}

/* Does @base run its timer as an alarm (a real alarm clock)? */
static inline bool twheel_base_alarm(const struct twheel_base *base)
{
	return twheel_clock_alarm(base->clock) && !base->clocks->manual;
}

void __twheel_base_arm(struct twheel_base *base);
void twheel_base_start(struct twheel_base *base, u64 tick, s64 when);
void __twheel_base_left(struct twheel_base *base, u64 tick);
void twheel_base_arm_idle(struct twheel_base *base);
void twheel_base_trim(struct twheel_base *base);
void twheel_base_give(struct twheel_base *base, int lvl);
bool twheel_base_finish_rebase(struct twheel_base *base, u64 *budget);
bool twheel_base_forward(struct twheel_base *base, s64 now_ns);
bool twheel_base_update(struct twheel_base *base, s64 now_ns, u64 *budget,
			struct list_head *expired, struct list_head *ended,
			struct twheel_base_step *adv,
			struct twheel_rekey *rk);
void twheel_base_updated(struct twheel_base *base, u64 budget,
			 const struct twheel_base_step *adv);

int twheel_base_cache_init(void);
void twheel_base_cache_exit(void);

#endif /* _TWHEEL_BASE_H */
