/* SPDX-License-Identifier: GPL-2.0 */
/*
 * twheel_trace.h - twheel's trace events (tracefs: events/twheel/).
 *
 * Every event names the context by its trace id ("ctx", the trace_id
 * line of the fd's /proc/PID/fdinfo) and a timer by its id and cookie.
 * Times are the kernel's, on the timer's clock (not the opener's time
 * namespace), in nanoseconds:
 *
 *   twheel_timer_add     a timer was created: its deadline and period
 *   twheel_timer_modify  a timer was re-armed: its new deadline and
 *                        period, and whether it was pending or had a
 *                        record queued (retracted)
 *   twheel_timer_cancel  a timer was cancelled, pending or with a record
 *                        queued
 *   twheel_timer_expire  a timer's record was queued: its deadline, when
 *                        the record was queued, and the lateness (the
 *                        difference); a one-shot timer keeps only the tick
 *                        its deadline rounds up to, so its deadline here
 *                        is that tick's start
 *   twheel_wheel_advance one clock's wheel was advanced by a task, in one
 *                        hold of the fd's lock: the wheel's time before
 *                        and after (in ticks), the records that queued,
 *                        and the entries moved (handed back, cascaded or
 *                        re-added after the clock was set back: at most
 *                        256 per hold, over all the fd's clocks)
 *
 * Every event's name begins with "twheel_", so that none of their symbols
 * (__tracepoint_<name>, trace_<name>, ...) is also one of the kernel's
 * own events (the kernel has a timer_cancel).
 *
 * Disabled, an event costs a patched-out branch.
 *
 * The events are created (CREATE_TRACE_POINTS) in twheel_timer.c, whose
 * Kbuild flags let <trace/define_trace.h> find this header; the timers
 * (twheel_timer.c, twheel_op.c) emit the timer events, the clock bases
 * (twheel_base.c) twheel_wheel_advance.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM twheel

#if !defined(_TWHEEL_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _TWHEEL_TRACE_H

#include <linux/time.h>
#include <linux/tracepoint.h>

#include <linux/twheel.h>

#define twheel_show_clock(c)					\
	__print_symbolic(c,					\
			 { CLOCK_MONOTONIC, "MONOTONIC" },	\
			 { CLOCK_BOOTTIME, "BOOTTIME" },	\
			 { CLOCK_REALTIME, "REALTIME" },	\
			 { CLOCK_TAI, "TAI" },			\
			 { CLOCK_REALTIME_ALARM, "REALTIME_ALARM" },	\
			 { CLOCK_BOOTTIME_ALARM, "BOOTTIME_ALARM" })

#define twheel_show_state(s)					\
	__print_symbolic(s,					\
			 { TWHEEL_STATE_PENDING, "pending" },	\
			 { TWHEEL_STATE_QUEUED, "queued" })

DECLARE_EVENT_CLASS(twheel_timer_arm,
		    TP_PROTO(u64 ctx, u64 id, u64 cookie, u32 clock,
			     s64 deadline_ns, u64 period_ns, u32 state),
		    TP_ARGS(ctx, id, cookie, clock, deadline_ns, period_ns,
			    state),
		    TP_STRUCT__entry(__field(u64, ctx)
				     __field(u64, id)
				     __field(u64, cookie)
				     __field(s64, deadline_ns)
				     __field(u64, period_ns)
				     __field(u32, clock)
				     __field(u32, state)),
		    TP_fast_assign(__entry->ctx = ctx;
				   __entry->id = id;
				   __entry->cookie = cookie;
				   __entry->deadline_ns = deadline_ns;
				   __entry->period_ns = period_ns;
				   __entry->clock = clock;
				   __entry->state = state;),
		    TP_printk("ctx=%llu id=%llu cookie=%llu clock=%s deadline=%lld period=%llu was=%s",
			      __entry->ctx, __entry->id, __entry->cookie,
			      twheel_show_clock(__entry->clock),
			      __entry->deadline_ns, __entry->period_ns,
			      __entry->state ?
			      twheel_show_state(__entry->state) : "new"));

/* state: 0 (a new timer) */
DEFINE_EVENT(twheel_timer_arm, twheel_timer_add,
	     TP_PROTO(u64 ctx, u64 id, u64 cookie, u32 clock, s64 deadline_ns,
		      u64 period_ns, u32 state),
	     TP_ARGS(ctx, id, cookie, clock, deadline_ns, period_ns, state));

/* state: what the timer was before, TWHEEL_STATE_PENDING or _QUEUED */
DEFINE_EVENT(twheel_timer_arm, twheel_timer_modify,
	     TP_PROTO(u64 ctx, u64 id, u64 cookie, u32 clock, s64 deadline_ns,
		      u64 period_ns, u32 state),
	     TP_ARGS(ctx, id, cookie, clock, deadline_ns, period_ns, state));

TRACE_EVENT(twheel_timer_cancel,
	    TP_PROTO(u64 ctx, u64 id, u64 cookie, u32 clock, u32 state),
	    TP_ARGS(ctx, id, cookie, clock, state),
	    TP_STRUCT__entry(__field(u64, ctx)
			     __field(u64, id)
			     __field(u64, cookie)
			     __field(u32, clock)
			     __field(u32, state)),
	    TP_fast_assign(__entry->ctx = ctx;
			   __entry->id = id;
			   __entry->cookie = cookie;
			   __entry->clock = clock;
			   __entry->state = state;),
	    TP_printk("ctx=%llu id=%llu cookie=%llu clock=%s was=%s",
		      __entry->ctx, __entry->id, __entry->cookie,
		      twheel_show_clock(__entry->clock),
		      twheel_show_state(__entry->state)));

TRACE_EVENT(twheel_timer_expire,
	    TP_PROTO(u64 ctx, u64 id, u64 cookie, u32 clock, s64 deadline_ns,
		     s64 now_ns),
	    TP_ARGS(ctx, id, cookie, clock, deadline_ns, now_ns),
	    TP_STRUCT__entry(__field(u64, ctx)
			     __field(u64, id)
			     __field(u64, cookie)
			     __field(s64, deadline_ns)
			     __field(s64, now_ns)
			     __field(s64, lateness_ns)
			     __field(u32, clock)),
	    TP_fast_assign(__entry->ctx = ctx;
			   __entry->id = id;
			   __entry->cookie = cookie;
			   __entry->deadline_ns = deadline_ns;
			   __entry->now_ns = now_ns;
			   __entry->lateness_ns = now_ns - deadline_ns;
			   __entry->clock = clock;),
	    TP_printk("ctx=%llu id=%llu cookie=%llu clock=%s deadline=%lld now=%lld lateness=%lld",
		      __entry->ctx, __entry->id, __entry->cookie,
		      twheel_show_clock(__entry->clock), __entry->deadline_ns,
		      __entry->now_ns, __entry->lateness_ns));

TRACE_EVENT(twheel_wheel_advance,
	    TP_PROTO(u64 ctx, u32 clock, u64 from_tick, u64 to_tick,
		     s64 now_ns, u64 queued, u64 moved),
	    TP_ARGS(ctx, clock, from_tick, to_tick, now_ns, queued, moved),
	    TP_STRUCT__entry(__field(u64, ctx)
			     __field(u64, from_tick)
			     __field(u64, to_tick)
			     __field(s64, now_ns)
			     __field(u64, queued)
			     __field(u64, moved)
			     __field(u32, clock)),
	    TP_fast_assign(__entry->ctx = ctx;
			   __entry->from_tick = from_tick;
			   __entry->to_tick = to_tick;
			   __entry->now_ns = now_ns;
			   __entry->queued = queued;
			   __entry->moved = moved;
			   __entry->clock = clock;),
	    TP_printk("ctx=%llu clock=%s from=%llu to=%llu now=%lld queued=%llu moved=%llu",
		      __entry->ctx, twheel_show_clock(__entry->clock),
		      __entry->from_tick, __entry->to_tick, __entry->now_ns,
		      __entry->queued, __entry->moved));

#endif /* _TWHEEL_TRACE_H */

/* This part must be outside the include guard. */
#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE twheel_trace
#include <trace/define_trace.h>
