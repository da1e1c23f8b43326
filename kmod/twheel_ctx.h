/* SPDX-License-Identifier: GPL-2.0 */
/*
 * twheel_ctx.h - one timer set: what one open /dev/twheel holds.
 *
 * A context owns, per clock in use, a timing wheel and an hrtimer armed for
 * the wheel's next event; the ids of its timers; and the queue of expiry
 * records not yet read. It knows nothing of files or user memory: the
 * device (twheel_dev.c) passes in the functions that copy results out.
 *
 * Delivery: an hrtimer callback only marks the context (ctx->fire_seq) and
 * wakes its waiters. The wheels are advanced by whoever next uses the
 * context (read, poll, every ioctl; not fdinfo, which only looks), in
 * that task, in chunks of at most TWHEEL_CHUNK entries per hold of
 * ctx->lock. A wall clock set past a wheel's next event counts as fired
 * at once, without waiting for the hrtimer's callback.
 *
 * Locking: ctx->lock (a mutex) serialises everything but the hrtimer
 * callbacks, which take no lock of ours, and twheel_ctx_readable() and
 * twheel_ctx_fired(), which read one word each. It is never held while
 * waiting on user memory: the functions that copy out under it must not
 * fault (the device copies with page faults disabled).
 */
#ifndef _TWHEEL_CTX_H
#define _TWHEEL_CTX_H

#include <linux/atomic.h>
#include <linux/hrtimer.h>
#include <linux/mutex.h>
#include <linux/seq_file.h>
#include <linux/types.h>
#include <linux/wait.h>

#include <linux/twheel.h>

#include "twheel_ids.h"
#include "twheel_user.h"
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
	TWHEEL_NR_CLOCKS
};

/*
 * The most work one hold of ctx->lock does: entries moved in a wheel (a
 * cascade or a hand-back), entries re-added after the wall clock was set
 * back, records copied out, id slots looked at by a listing, or timers
 * freed at close. Between two chunks the lock is released and the task
 * may be rescheduled.
 */
#define TWHEEL_CHUNK		256

/* The most operations twheel_ctx_submit() takes in one call. */
#define TWHEEL_SUBMIT_CHUNK	32

/* The most records twheel_ctx_read() hands its emit function at once. */
#define TWHEEL_READ_BATCH	8

struct twheel_ctx;

/**
 * struct twheel_base - the timers of one context on one clock
 * @wheel: the timing wheel, in ticks of the context
 * @hrtimer: armed (absolute, on @clock's clock) for the wheel's next event
 * @rebase: entries taken out of @wheel when its clock went back, not yet
 *          added again
 * @ctx: the context
 * @armed: the tick @hrtimer is armed for, or TWHEEL_NEVER
 * @clock: the enum twheel_clk of this base
 *
 * The wheel's levels (512 bytes each) are allocated as timers need them
 * and freed once empty: a base holding a few timers is a few hundred
 * bytes.
 */
struct twheel_base {
	struct twheel_wheel wheel;
	struct hrtimer hrtimer;
	struct list_head rebase;
	struct twheel_ctx *ctx;
	u64 armed;
	u32 clock;
};

/**
 * struct twheel_ctx - one timer set
 * @lock: serialises all but the hrtimer callbacks and the lockless reads
 * @bases: per clock, allocated on first use
 * @user: the user the context is charged to (its opener)
 * @ids: id -> struct twheel_timer, for every live timer
 * @ready: expired timers whose records are unread, oldest first
 * @ns_offset: per clock, the opener's time namespace offset: the time the
 *             user sees minus the kernel's (not used with @manual)
 * @manual_ns: with @manual, the time of every clock
 * @nr_timers: live timers: pending plus queued
 * @nr_queued: records on @ready; read without the lock by poll
 * @max_timers: the most live timers allowed
 * @tick_ns: the resolution: one wheel tick in nanoseconds
 * @armed_ns: per clock, when its hrtimer fires (kernel time), KTIME_MAX
 *            when it is not armed; read without the lock to see a wall
 *            clock set past it (twheel_ctx_fired())
 * @spare_ops: a buffer of TWHEEL_SUBMIT_CHUNK operations kept for
 *             TWHEEL_IOC_SUBMIT, or NULL; taken and given back with xchg()
 *             and cmpxchg() (no lock), freed with the context
 * @wqh: readers and pollers wait here
 * @fire_seq: bumped by every hrtimer callback
 * @done_seq: the @fire_seq value the last complete update started from;
 *            while they differ the wheels may hold due timers ("fired")
 * @need_wake: records were queued under the lock, with no hrtimer callback
 *             having woken the waiters for them; wake at unlock
 * @now_ns: per clock, its present as read once in this hold of @lock
 * @now_valid: bit per clock: @now_ns is valid (cleared at each lock)
 * @trace_id: names the context in trace events and fdinfo (trace_id)
 * @manual: the clocks are the manual clock @manual_ns (TWHEEL_CONFIG_MANUAL)
 * @used: a timer was created: the configuration is fixed
 */
struct twheel_ctx {
	struct mutex lock;	/* see the kernel-doc above */
	struct twheel_base *bases[TWHEEL_NR_CLOCKS];
	struct twheel_user *user;
	struct twheel_ids ids;
	struct list_head ready;
	s64 ns_offset[TWHEEL_NR_CLOCKS];
	s64 manual_ns;
	u64 nr_timers;
	u64 nr_queued;
	u64 max_timers;
	u64 tick_ns;
	s64 armed_ns[TWHEEL_NR_CLOCKS];
	struct twheel_op *spare_ops;
	wait_queue_head_t wqh;
	atomic_t fire_seq;
	int done_seq;
	bool need_wake;
	s64 now_ns[TWHEEL_NR_CLOCKS];
	u64 trace_id;
	u8 now_valid;
	bool manual;
	bool used;
};

/**
 * enum twheel_update - how far twheel_ctx_lock_update() brings the wheels
 * @TWHEEL_UPDATE_ALL: every clock up to its present
 * @TWHEEL_UPDATE_RECORD: until at least one record is queued, or all of it
 */
enum twheel_update {
	TWHEEL_UPDATE_ALL,
	TWHEEL_UPDATE_RECORD,
};

/**
 * struct twheel_stats - module-wide counters, since the module was loaded
 * @opened: contexts created (files opened)
 * @closed: contexts destroyed (files released)
 * @created: timers created
 * @freed: timers freed (read, cancelled, or closed with their file)
 * @expired: expiry records queued
 * @read: records read
 */
struct twheel_stats {
	u64 opened;
	u64 closed;
	u64 created;
	u64 freed;
	u64 expired;
	u64 read;
};

void twheel_stats_read(struct twheel_stats *sum);

int twheel_ctx_cache_init(void);
void twheel_ctx_cache_exit(void);

struct twheel_ctx *twheel_ctx_create(struct twheel_user *user, u64 max_timers,
				     u64 tick_ns);
void twheel_ctx_destroy(struct twheel_ctx *ctx);

void twheel_ctx_lock_update(struct twheel_ctx *ctx, enum twheel_update how);
void twheel_ctx_unlock(struct twheel_ctx *ctx);

int twheel_ctx_config(struct twheel_ctx *ctx, u64 tick_ns, bool manual);
int twheel_ctx_advance(struct twheel_ctx *ctx, u64 delta_ns,
		       int (*out)(void *arg, s64 now_ns), void *arg);
u32 twheel_ctx_submit(struct twheel_ctx *ctx, struct twheel_op *ops, u32 nr,
		      int (*out)(void *arg, u32 i, const struct twheel_op *op),
		      void *arg, int *err);
u32 twheel_ctx_list(struct twheel_ctx *ctx, u64 *cursor,
		    struct twheel_status *st, u32 n);
long twheel_ctx_read(struct twheel_ctx *ctx, u64 max,
		     int (*emit)(void *arg, const struct twheel_event *ev,
				 u32 n),
		     void *arg);
void twheel_ctx_info(struct twheel_ctx *ctx, struct twheel_info *info);
void twheel_ctx_show(struct twheel_ctx *ctx, struct seq_file *m);
int twheel_clock_index(u32 clockid);
bool twheel_ctx_wall_due(struct twheel_ctx *ctx);
#if IS_ENABLED(CONFIG_KUNIT)
void twheel_ctx_update_at(struct twheel_ctx *ctx, u32 clk, s64 now_ns);
#endif

/**
 * twheel_ctx_readable() - is at least one record queued?
 * @ctx: the context
 *
 * Lockless: for poll and for the wait condition of a blocking read.
 *
 * Return: true while a record is queued.
 */
static inline bool twheel_ctx_readable(struct twheel_ctx *ctx)
{
	return READ_ONCE(ctx->nr_queued) != 0;
}

/**
 * twheel_ctx_fired() - may the wheels hold timers that are due?
 * @ctx: the context
 *
 * Lockless. False means that no hrtimer fired since the wheels were last
 * brought all the way up to date, and no wall clock was set past the
 * next event of its wheel: nothing is due beyond the latency of the
 * hrtimer, whose callback will wake the waiters. It stays true until
 * an update has finished, records queued; so a waiter woken by a callback
 * never misses records queued by another task's update (such updates do
 * not wake anyone: the callback already did).
 *
 * Return: true when an update may queue records.
 */
static inline bool twheel_ctx_fired(struct twheel_ctx *ctx)
{
	/* Acquire: pairs with the release that marks an update done. */
	if (atomic_read(&ctx->fire_seq) != smp_load_acquire(&ctx->done_seq))
		return true;
	return twheel_ctx_wall_due(ctx);
}

#endif /* _TWHEEL_CTX_H */
