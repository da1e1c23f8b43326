/* SPDX-License-Identifier: GPL-2.0 */
/*
 * twheel_time.h - nanoseconds to wheel ticks and back, never early, never
 * wrapping.
 *
 * A deadline rounds up to the next tick and "now" rounds down, so an entry
 * handed back by an advance to now_tick has deadline_ns <= now_ns: a timer
 * never fires early, and fires at most one tick late (plus latency).
 */
#ifndef _TWHEEL_TIME_H
#define _TWHEEL_TIME_H

#include <linux/ktime.h>
#include <linux/math64.h>
#include <linux/types.h>

/**
 * twheel_deadline_tick() - the first tick at or after a deadline
 * @ns: the deadline in nanoseconds on the timer's clock
 * @tick_ns: the tick length, > 0
 *
 * Return: ceil(@ns / @tick_ns), or 0 for a deadline at or before time 0.
 */
static inline u64 twheel_deadline_tick(s64 ns, u64 tick_ns)
{
	u64 rem;
	u64 q;

	if (ns <= 0)
		return 0;
	q = div64_u64_rem(ns, tick_ns, &rem);
	return q + (rem != 0);
}

/**
 * twheel_now_tick() - the last tick at or before a time
 * @ns: the time in nanoseconds on the timer's clock
 * @tick_ns: the tick length, > 0
 *
 * Return: floor(@ns / @tick_ns), or 0 for a time before 0.
 */
static inline u64 twheel_now_tick(s64 ns, u64 tick_ns)
{
	if (ns <= 0)
		return 0;
	return div64_u64(ns, tick_ns);
}

/**
 * twheel_tick_ns() - the time at which a tick starts
 * @tick: the tick
 * @tick_ns: the tick length, > 0
 *
 * Return: @tick * @tick_ns, saturated at KTIME_MAX.
 */
static inline s64 twheel_tick_ns(u64 tick, u64 tick_ns)
{
	if (tick > div64_u64(KTIME_MAX, tick_ns))
		return KTIME_MAX;
	return tick * tick_ns;
}

/**
 * twheel_add_ns() - a relative delay added to a time, saturating
 * @now: the current time, >= 0
 * @delay: the delay, >= 0
 *
 * Return: @now + @delay, or KTIME_MAX where that would overflow.
 */
static inline s64 twheel_add_ns(s64 now, s64 delay)
{
	if (delay > KTIME_MAX - now)
		return KTIME_MAX;
	return now + delay;
}

/**
 * twheel_floor_div() - the tick a time falls in, for times before 0 too
 * @ns: the time in nanoseconds
 * @tick_ns: the tick length, 1 to TWHEEL_MAX_TICK_NS
 *
 * Return: floor(@ns / @tick_ns).
 */
static inline s64 twheel_floor_div(s64 ns, u64 tick_ns)
{
	s32 rem;
	s64 q;

	if (ns >= 0)
		return div64_u64(ns, tick_ns);
	/* tick_ns <= TWHEEL_MAX_TICK_NS fits s32. */
	q = div_s64_rem(ns, (s32)tick_ns, &rem);
	return rem ? q - 1 : q;
}

#endif /* _TWHEEL_TIME_H */
