/* SPDX-License-Identifier: GPL-2.0 */
/*
 * twheel_ctx.h - one timer set: what one open /dev/twheel holds.
 *
 * A context owns, per clock in use, a timing wheel and an hrtimer armed for
 * the wheel's next event; the ids of its timers; and the queue of expiry
 * records not yet read. It knows nothing of files or user memory: the
 * device (twheel_dev.c) copies in and out and calls these functions.
 *
 * Locking: ctx->lock (a mutex) serialises everything but the hrtimer
 * callbacks, which only queue ctx->work, and twheel_ctx_readable(), which
 * reads one counter. Functions documented "caller holds the lock" expect
 * twheel_ctx_lock(); twheel_ctx_unlock() then wakes the readers if records
 * were queued meanwhile.
 */
#ifndef _TWHEEL_CTX_H
#define _TWHEEL_CTX_H

#include <linux/hrtimer.h>
#include <linux/mutex.h>
#include <linux/seq_file.h>
#include <linux/types.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>

#include <linux/twheel.h>

#include "twheel_wheel.h"

#define TWHEEL_NR_CLOCKS	(TWHEEL_CLOCK_REALTIME + 1)

struct twheel_ctx;

/**
 * struct twheel_base - the timers of one context on one clock
 * @wheel: the timing wheel, in ticks of the context
 * @hrtimer: armed (absolute, on @clock's clock) for the wheel's next event
 * @ctx: the context
 * @armed: the tick @hrtimer is armed for, or TWHEEL_NEVER
 * @clock: the enum twheel_clock of this base
 */
struct twheel_base {
	struct twheel_wheel wheel;
	struct hrtimer hrtimer;
	struct twheel_ctx *ctx;
	u64 armed;
	u32 clock;
};

/**
 * struct twheel_ctx - one timer set
 * @lock: serialises all but the hrtimer callbacks and twheel_ctx_readable()
 * @bases: per clock, allocated on first use
 * @timers: id -> struct twheel_timer, for every live timer
 * @ready: expired timers whose records are unread, oldest first
 * @next_id: the id the next timer gets; ids are never reused
 * @nr_timers: live timers: pending plus queued
 * @nr_queued: records on @ready; read without the lock by poll
 * @max_timers: the most live timers allowed
 * @tick_ns: the resolution: one wheel tick in nanoseconds
 * @wqh: readers and pollers wait here
 * @work: advances the wheels when an hrtimer fired
 * @need_wake: records were queued under the lock; wake at unlock
 * @dying: set by twheel_ctx_destroy(); nothing re-arms after it
 */
struct twheel_ctx {
	struct mutex lock;	/* see the kernel-doc above */
	struct twheel_base *bases[TWHEEL_NR_CLOCKS];
	struct xarray timers;
	struct list_head ready;
	u64 next_id;
	u64 nr_timers;
	u64 nr_queued;
	u64 max_timers;
	u64 tick_ns;
	wait_queue_head_t wqh;
	struct work_struct work;
	bool need_wake;
	bool dying;
};

int twheel_ctx_cache_init(void);
void twheel_ctx_cache_exit(void);

struct twheel_ctx *twheel_ctx_create(u64 max_timers, u64 tick_ns);
void twheel_ctx_destroy(struct twheel_ctx *ctx);

/**
 * twheel_ctx_lock() - take the context's lock
 * @ctx: the context
 */
static inline void twheel_ctx_lock(struct twheel_ctx *ctx)
{
	mutex_lock(&ctx->lock);
}

void twheel_ctx_unlock(struct twheel_ctx *ctx);

int twheel_ctx_add(struct twheel_ctx *ctx, struct twheel_add *req);
int twheel_ctx_cancel(struct twheel_ctx *ctx, u64 id, u32 *result,
		      bool commit);
bool twheel_ctx_peek(struct twheel_ctx *ctx, struct twheel_event *ev);
void twheel_ctx_consume(struct twheel_ctx *ctx);
void twheel_ctx_run(struct twheel_ctx *ctx);
void twheel_ctx_info(struct twheel_ctx *ctx, struct twheel_info *info);
void twheel_ctx_show(struct twheel_ctx *ctx, struct seq_file *m);

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

#endif /* _TWHEEL_CTX_H */
