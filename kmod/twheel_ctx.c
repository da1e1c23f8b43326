// SPDX-License-Identifier: GPL-2.0
/*
 * twheel_ctx.c - one timer set: its life, its lock, the update of its
 * wheels by the task that uses it, and the set-wide requests that change
 * it (SUBMIT's locking loop, CONFIG, ADVANCE). Its records handed over
 * (read, the ring, the mappings) are in twheel_ctx_read.c; what it shows
 * (LIST, INFO, fdinfo) is in twheel_ctx_show.c.
 *
 * Layering: the device (twheel_dev.c) calls this file; this file calls
 * the timers (twheel_timer.c, twheel_op.c) and, for what is set-wide
 * (configuring, stopping, showing the clocks), the clock bases
 * (twheel_base.c). Nothing below calls back up here: what the timers
 * leave for the set to do is state (need_wake), what the hrtimer
 * callbacks leave is the fire sequence and a wake-up on the wait queue.
 *
 * Delivery: when the hrtimer fires, its callback bumps the fire sequence
 * and wakes the waiters, nothing else (O(1), no lock of ours). The wheel
 * is advanced by the next task that uses the context: a reader or poller
 * woken by the callback, or any ioctl or read (fdinfo only looks). A wall
 * clock set past the hrtimer's time counts as fired from that moment on
 * (the kernel runs the callback soon after, but not at once). That task
 * advances the wheel to the clock's present, turns every timer handed
 * back into a queued record, re-arms the hrtimer for the wheel's next
 * event: at its own priority, on its own CPU time, and in chunks of at
 * most TWHEEL_CHUNK entries per hold of the lock.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/err.h>
#include <linux/fault-inject-usercopy.h>
#include <linux/lockdep.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/poll.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <kunit/visibility.h>

#include "twheel_compat.h"
#include "twheel_ctx_priv.h"
#include "twheel_stats.h"
#include "twheel_time.h"
#include "twheel_timer.h"
#include "twheel_user.h"

static_assert(TWHEEL_SUBMIT_CHUNK <= TWHEEL_MEM_OPS);

static struct kmem_cache *twheel_ctx_cache;

/**
 * twheel_ctx_readable() - is at least one record queued?
 * @ctx: the context
 *
 * Lockless: for poll and for the wait condition of a blocking read.
 *
 * Return: true while a record is queued.
 */
bool twheel_ctx_readable(struct twheel_ctx *ctx)
{
	return READ_ONCE(ctx->timers.nr_queued) != 0;
}
EXPORT_SYMBOL_IF_KUNIT(twheel_ctx_readable);

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
bool twheel_ctx_fired(struct twheel_ctx *ctx)
{
	int seq = atomic_read(&ctx->timers.clocks.fire_seq);

	/* Acquire: pairs with the release that marks an update done. */
	if (seq != smp_load_acquire(&ctx->done_seq))
		return true;
	return twheel_clocks_wall_due(&ctx->timers.clocks) ||
	       twheel_timers_set_pending(&ctx->timers);
}
EXPORT_SYMBOL_IF_KUNIT(twheel_ctx_fired);

/**
 * twheel_ctx_wqh() - where the set's readers and pollers wait
 * @ctx: the context
 *
 * Return: the wait queue its hrtimers' callbacks and its updates wake.
 */
wait_queue_head_t *twheel_ctx_wqh(struct twheel_ctx *ctx)
{
	return &ctx->timers.clocks.wqh;
}
EXPORT_SYMBOL_IF_KUNIT(twheel_ctx_wqh);

/**
 * twheel_ctx_ops_get() - a buffer of TWHEEL_SUBMIT_CHUNK operations
 * @ctx: the context; the caller does not hold the lock
 *
 * The fd's spare buffer, unless another call has it; else a new one.
 * Give it back with twheel_ctx_ops_put().
 *
 * Return: the buffer, or NULL when out of memory.
 */
struct twheel_op *twheel_ctx_ops_get(struct twheel_ctx *ctx)
{
	struct twheel_op *ops = xchg(&ctx->spare_ops, NULL);

	if (ops)
		return ops;
	return kmalloc_array(TWHEEL_SUBMIT_CHUNK, sizeof(*ops), TWHEEL_GFP);
}

/**
 * twheel_ctx_ops_put() - give back a buffer from twheel_ctx_ops_get()
 * @ctx: the context
 * @ops: the buffer: kept for the next call, unless another was kept
 *       meanwhile (then it is freed)
 */
void twheel_ctx_ops_put(struct twheel_ctx *ctx, struct twheel_op *ops)
{
	if (cmpxchg(&ctx->spare_ops, NULL, ops))
		kfree(ops);
}

#if IS_ENABLED(CONFIG_KUNIT)
/**
 * twheel_ctx_timers() - the timers of a set, for the tests to look at
 * @ctx: the context
 *
 * Return: its struct twheel_timers.
 */
struct twheel_timers *twheel_ctx_timers(struct twheel_ctx *ctx)
{
	return &ctx->timers;
}
EXPORT_SYMBOL_IF_KUNIT(twheel_ctx_timers);
#endif

/*
 * Caller holds the lock. One chunk of bringing every clock up to date.
 * Return: true when all are up to date.
 */
static bool twheel_ctx_update_chunk(struct twheel_ctx *ctx)
{
	int seq = atomic_read(&ctx->timers.clocks.fire_seq);
	u64 budget = TWHEEL_CHUNK;
	bool done;

	lockdep_assert_held(&ctx->lock);
	/*
	 * Take the sequence before reading the clocks: a callback that fires
	 * after the read leaves fire_seq ahead of done_seq, one that fired
	 * before it is covered by the read.
	 */
	smp_mb();
	done = twheel_timers_update(&ctx->timers, &budget);
	if (done)	/* release: pairs with the acquire in twheel_ctx_fired() */
		smp_store_release(&ctx->done_seq, seq);
	return done;
}

/*
 * Caller holds the lock. Is a record queued, as TWHEEL_UPDATE_RECORD asks,
 * and no wall clock set still to act on (a read must not consume and
 * re-arm a timer the set, which came first, ends)?
 */
static bool twheel_ctx_enough(struct twheel_ctx *ctx, enum twheel_update how)
{
	return how == TWHEEL_UPDATE_RECORD && ctx->timers.nr_queued &&
	       !twheel_timers_set_pending(&ctx->timers);
}

/*
 * The caller just took the lock: one chunk of wheel work at most.
 * Return: true, the lock kept, when the wheels are as far as @how asks;
 * false, the lock released, when more is due.
 */
static bool twheel_ctx_update_step(struct twheel_ctx *ctx,
				   enum twheel_update how)
{
	ctx->timers.now_valid = 0;
	if (!twheel_ctx_fired(ctx) || twheel_ctx_enough(ctx, how))
		return true;
	if (twheel_ctx_update_chunk(ctx) || twheel_ctx_enough(ctx, how))
		return true;
	twheel_ctx_unlock(ctx);
	return false;
}

/**
 * twheel_ctx_lock_update() - take the lock with the wheels up to date
 * @ctx: the context
 * @how: how far to bring them (enum twheel_update)
 *
 * When an hrtimer has fired since the last update (or an update stopped
 * early), advances the wheels first, in chunks of TWHEEL_CHUNK entries,
 * releasing the lock and offering to reschedule between two chunks; the
 * work is done by the calling task. Returns with ctx->lock held.
 */
void twheel_ctx_lock_update(struct twheel_ctx *ctx, enum twheel_update how)
{
	for (;;) {
		mutex_lock(&ctx->lock);
		if (twheel_ctx_update_step(ctx, how))
			return;
		cond_resched();
	}
}
EXPORT_SYMBOL_IF_KUNIT(twheel_ctx_lock_update);

/**
 * twheel_ctx_trylock_update() - twheel_ctx_lock_update(), never sleeping
 * @ctx: the context
 * @how: how far to bring the wheels (enum twheel_update)
 *
 * For callers that must not wait (io_uring's inline issue, a read with
 * IOCB_NOWAIT): the lock is taken only if it is free, and at most one
 * chunk of TWHEEL_CHUNK entries of wheel work is done.
 *
 * Return: true with ctx->lock held and the wheels as far as @how asks;
 * false, the lock not held, when it was taken or more than one chunk was
 * due (the chunk done stays done; the rest is for the next user).
 */
bool twheel_ctx_trylock_update(struct twheel_ctx *ctx, enum twheel_update how)
{
	return mutex_trylock(&ctx->lock) && twheel_ctx_update_step(ctx, how);
}
EXPORT_SYMBOL_IF_KUNIT(twheel_ctx_trylock_update);

/**
 * twheel_ctx_unlock() - release the lock, then wake readers if records
 *                       were queued while it was held
 * @ctx: the context
 */
void twheel_ctx_unlock(struct twheel_ctx *ctx)
{
	bool wake = ctx->timers.need_wake;

	ctx->timers.need_wake = false;
	mutex_unlock(&ctx->lock);
	if (wake)
		wake_up_poll(twheel_ctx_wqh(ctx), EPOLLIN | EPOLLRDNORM);
}
EXPORT_SYMBOL_IF_KUNIT(twheel_ctx_unlock);

/**
 * twheel_ctx_create() - a new, empty timer set
 * @user: the user it is charged to; its timer slots are charged to them
 *        as they are taken, and given back by twheel_ctx_destroy(); NULL
 *        for none (KUnit's contexts)
 * @max_timers: the most live timers it may hold, >= 1
 * @tick_ns: its resolution, >= 1
 *
 * Times given to and read from it are in the calling task's time
 * namespace.
 *
 * Return: the context, or ERR_PTR(-ENOMEM).
 */
struct twheel_ctx *twheel_ctx_create(struct twheel_user *user, u64 max_timers,
				     u64 tick_ns)
{
	struct twheel_ctx *ctx;

	ctx = kmem_cache_zalloc(twheel_ctx_cache, TWHEEL_GFP);
	if (!ctx)
		return ERR_PTR(-ENOMEM);
	mutex_init(&ctx->lock);
	ctx->max_timers = max_timers;
	twheel_timers_init(&ctx->timers, user, max_timers, tick_ns,
			   twheel_trace_id_next());
	twheel_stat_add(opened, 1);
	return ctx;
}
EXPORT_SYMBOL_IF_KUNIT(twheel_ctx_create);

/**
 * twheel_ctx_destroy() - cancel and free every timer, then the context
 * @ctx: the context; nobody else may use it any more
 *
 * Waits for running hrtimer callbacks, so nothing of @ctx runs after it
 * returns; frees the timers in chunks (twheel_timers_destroy()).
 */
void twheel_ctx_destroy(struct twheel_ctx *ctx)
{
	twheel_timers_destroy(&ctx->timers);
	twheel_ring_free(&ctx->ring);
	twheel_stat_add(closed, 1);
	kfree(ctx->spare_ops);
	mutex_destroy(&ctx->lock);
	kmem_cache_free(twheel_ctx_cache, ctx);
}
EXPORT_SYMBOL_IF_KUNIT(twheel_ctx_destroy);

/* twheel_ctx_submit(), or with @nowait twheel_ctx_submit_nowait(). */
static u32 __twheel_ctx_submit(struct twheel_ctx *ctx, struct twheel_op *ops,
			       u32 nr,
			       int (*out)(void *arg, u32 i,
					  const struct twheel_op *op),
			       void *arg, int *err, bool nowait)
{
	/* Set up by twheel_mem_alloc() (no zeroing of the whole array). */
	struct twheel_mem mem[TWHEEL_SUBMIT_CHUNK] __uninitialized;
	u32 i = 0;
	int ret;

	if (WARN_ON_ONCE(nr > TWHEEL_SUBMIT_CHUNK))
		nr = TWHEEL_SUBMIT_CHUNK;
	twheel_mem_alloc(mem, ops, nr, READ_ONCE(ctx->timers.nr_spare));
	if (!nowait) {
		twheel_ctx_lock_update(ctx, TWHEEL_UPDATE_ALL);
	} else if (!twheel_ctx_trylock_update(ctx, TWHEEL_UPDATE_ALL)) {
		*err = -EAGAIN;
		goto out;
	}
	while (i < nr) {
		ret = twheel_timers_op(&ctx->timers, &ops[i], &mem[i], i, out,
				       arg);
		if (ret == -EAGAIN && !nowait) {
			twheel_ctx_unlock(ctx);
			cond_resched();
			twheel_ctx_lock_update(ctx, TWHEEL_UPDATE_ALL);
			continue;
		}
		if (ret) {
			*err = ret;
			break;
		}
		i++;
	}
	twheel_mem_spare(&ctx->timers, mem, nr);
	twheel_ctx_unlock(ctx);
out:
	twheel_mem_free(mem, nr);
	return i;
}

/**
 * twheel_ctx_submit() - do operations in order, as TWHEEL_IOC_SUBMIT does
 * @ctx: the context; the caller does not hold the lock
 * @ops: the operations, at most TWHEEL_SUBMIT_CHUNK; each is updated with
 *       its outputs and error (struct twheel_op)
 * @nr: their number
 * @out: called under the lock for each operation, with @arg, its index
 *       and its result, before the next starts (must not sleep); if it
 *       fails, that operation is taken back and the call stops there
 * @arg: for @out
 * @err: set to what @out returned when it failed; untouched otherwise
 *
 * An operation that fails sets its error and changes nothing; the next
 * one goes on. Memory the operations need is allocated before the lock is
 * taken; the lock is held across them, released between chunks of wheel
 * work.
 *
 * Return: the number of operations done and handed to @out.
 */
u32 twheel_ctx_submit(struct twheel_ctx *ctx, struct twheel_op *ops, u32 nr,
		      int (*out)(void *arg, u32 i, const struct twheel_op *op),
		      void *arg, int *err)
{
	return __twheel_ctx_submit(ctx, ops, nr, out, arg, err, false);
}
EXPORT_SYMBOL_IF_KUNIT(twheel_ctx_submit);

/**
 * twheel_ctx_submit_nowait() - twheel_ctx_submit(), never sleeping
 * @ctx: the context; the caller does not hold the lock
 * @ops: the operations, at most TWHEEL_SUBMIT_CHUNK
 * @nr: their number
 * @out: as for twheel_ctx_submit()
 * @arg: for @out
 * @err: as for twheel_ctx_submit(); -EAGAIN where the call would wait
 *
 * Under one hold of the lock, taken by twheel_ctx_trylock_update(): stops
 * before the first operation when that fails, before one that needs more
 * wheel work than its hold may do.
 *
 * Return: the number of operations done and handed to @out.
 */
u32 twheel_ctx_submit_nowait(struct twheel_ctx *ctx, struct twheel_op *ops,
			     u32 nr,
			     int (*out)(void *arg, u32 i,
					const struct twheel_op *op),
			     void *arg, int *err)
{
	return __twheel_ctx_submit(ctx, ops, nr, out, arg, err, true);
}
EXPORT_SYMBOL_IF_KUNIT(twheel_ctx_submit_nowait);

/**
 * twheel_ctx_modify() - one TWHEEL_OP_MODIFY without a period, alone
 * @ctx: the context; the caller does not hold the lock
 * @op: the operation, its period_ns 0 (it needs no memory)
 * @result: where op->result is written, under the lock with page faults
 *          disabled, before anything changes
 *
 * twheel_ctx_submit() of @op alone, with its output written here rather
 * than by a callback: the single-operation ioctl's path, which the batch
 * path's memory and callbacks would make dearer than timerfd_settime().
 *
 * Return: 0 when done, op->result written; the operation's errno (nothing
 * changed, nothing written); -EFAULT, nothing changed, when @result
 * cannot be written without a page fault: make it writable with no lock
 * held, then call again.
 */
int twheel_ctx_modify(struct twheel_ctx *ctx, struct twheel_op *op,
		      u32 __user *result)
{
	struct twheel_modify_ctl mc;
	int ret;

	if (WARN_ON_ONCE(op->period_ns))
		return -EINVAL;
	for (;;) {
		twheel_ctx_lock_update(ctx, TWHEEL_UPDATE_ALL);
		ret = twheel_timers_modify_check(&ctx->timers, op, NULL, true,
						 &mc);
		if (ret != -EAGAIN)
			break;
		twheel_ctx_unlock(ctx);
		cond_resched();
	}
	if (!ret) {
		pagefault_disable();
		if (should_fail_usercopy() || put_user(op->result, result))
			ret = -EFAULT;
		pagefault_enable();
	}
	if (!ret)
		twheel_timers_modify_apply(&ctx->timers, op, NULL, &mc);
	twheel_ctx_unlock(ctx);
	return ret;
}

/**
 * twheel_ctx_config() - set the tick, the clock, the maximum of timers,
 *                       the table and the ring before the first timer
 * @ctx: the context; the caller does not hold the lock
 * @tick_ns: the tick, TWHEEL_MIN_TICK_NS to TWHEEL_MAX_TICK_NS
 * @flags: TWHEEL_CONFIG_MANUAL: run every clock on the manual clock,
 *         starting at 0; TWHEEL_CONFIG_TABLE: a shared timer table of one
 *         entry per timer; TWHEEL_CONFIG_CLOCK_SET: a record of each wall
 *         clock set (none on a manual clock); TWHEEL_CONFIG_RING: a
 *         record ring, empty; other bits are ignored
 * @max_timers: the most live timers, at most the maximum the context was
 *              created with; 0 for that maximum
 *
 * Return: 0; -EINVAL for a tick or a maximum out of range; -EBUSY once a
 * timer was created or the table or the ring was mapped; -ENOMEM.
 */
int twheel_ctx_config(struct twheel_ctx *ctx, u64 tick_ns, u32 flags,
		      u64 max_timers)
{
	struct twheel_timers *tm = &ctx->timers;
	struct twheel_table tab = { };
	int ret = 0;

	if (tick_ns < TWHEEL_MIN_TICK_NS || tick_ns > TWHEEL_MAX_TICK_NS ||
	    max_timers > ctx->max_timers)
		return -EINVAL;
	max_timers = max_timers ?: ctx->max_timers;
	mutex_lock(&ctx->lock);
	if (tm->used || tm->table.mapped || ctx->ring.mapped) {
		ret = -EBUSY;
		goto out;
	}
	/* What may fail comes first: a failed configuration changes nothing. */
	if ((flags & TWHEEL_CONFIG_CLOCK_SET) &&
	    !(flags & TWHEEL_CONFIG_MANUAL)) {
		ret = twheel_timers_watch_sets(tm, false);
		if (ret)
			goto out;
	}
	if (flags & TWHEEL_CONFIG_TABLE) {
		ret = twheel_table_set_size(&tab, max_timers);
		/* Slots left by failed adds have their entries too. */
		if (!ret && tm->ids.nr_slots)
			ret = twheel_table_back(&tab,
						min_t(u64, tm->ids.nr_slots,
						      max_timers) - 1);
		if (ret) {
			twheel_table_free(&tab);
			goto out;
		}
	}
	if (flags & TWHEEL_CONFIG_RING) {
		ret = twheel_ring_alloc(&ctx->ring);
		if (ret) {
			twheel_table_free(&tab);
			goto out;
		}
		/* Records of sets before this configuration go with it. */
		twheel_ring_clear(&ctx->ring);
	}
	WRITE_ONCE(ctx->ring.on, flags & TWHEEL_CONFIG_RING);
	/* The old table's entries hold nothing: no timer was ever added. */
	twheel_table_free(&tm->table);
	tm->table = tab;
	tm->max_timers = max_timers;
	/* Wheels made by failed adds hold nothing: start them afresh. */
	twheel_clocks_reset(&tm->clocks, tick_ns,
			    flags & TWHEEL_CONFIG_MANUAL);
	/* A record of sets before this configuration goes with it. */
	twheel_timers_drop_set_rec(tm);
	tm->set_records = flags & TWHEEL_CONFIG_CLOCK_SET;
out:
	mutex_unlock(&ctx->lock);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(twheel_ctx_config);

/**
 * twheel_ctx_advance() - move the manual clock forward
 * @ctx: the context; the caller does not hold the lock
 * @delta_ns: by how much (saturating at KTIME_MAX)
 * @out: called under the lock with @arg and the clock's new time before
 *       the clock moves (must not sleep); if it fails, the clock does not
 *       move
 * @arg: for @out
 *
 * Every timer due by then is queued before this returns, in order, and
 * the waiters are woken.
 *
 * Return: 0; -EINVAL when the context has no manual clock; or what @out
 * returned.
 */
int twheel_ctx_advance(struct twheel_ctx *ctx, u64 delta_ns,
		       int (*out)(void *arg, s64 now_ns), void *arg)
{
	struct twheel_clocks *clocks = &ctx->timers.clocks;
	s64 now_ns;
	int ret;

	mutex_lock(&ctx->lock);
	if (!clocks->manual) {
		mutex_unlock(&ctx->lock);
		return -EINVAL;
	}
	now_ns = delta_ns > KTIME_MAX - clocks->manual_ns ? KTIME_MAX :
		 clocks->manual_ns + delta_ns;
	ret = out(arg, now_ns);
	if (ret) {
		mutex_unlock(&ctx->lock);
		return ret;
	}
	clocks->manual_ns = now_ns;
	/* As if an hrtimer fired: the update below (or a waiter's) queues. */
	twheel_clocks_kick(clocks);
	mutex_unlock(&ctx->lock);
	twheel_ctx_lock_update(ctx, TWHEEL_UPDATE_ALL);
	twheel_ctx_unlock(ctx);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(twheel_ctx_advance);

/**
 * twheel_ctx_cache_init() - create the slab caches: the contexts' here,
 *                           the timers' and the clock bases' below
 *
 * Return: 0 or -ENOMEM.
 */
int twheel_ctx_cache_init(void)
{
	int ret;

	ret = twheel_timer_cache_init();
	if (ret)
		return ret;
	/*
	 * An fd's state is a few hundred bytes: a cache of its exact size
	 * (kmalloc would round it up to 512), so that an fd with a few
	 * timers stays under 4 KiB. Its usercopy region (before 6.5, what
	 * keeps it apart) is the trace id, never copied.
	 */
	twheel_ctx_cache =
		twheel_cache_create("twheel_ctx", sizeof(struct twheel_ctx),
				    offsetof(struct twheel_ctx,
					     timers.clocks.trace_id));
	if (!twheel_ctx_cache) {
		ret = -ENOMEM;
		goto err_timer;
	}
	ret = twheel_base_cache_init();
	if (ret)
		goto err_ctx;
	return 0;

err_ctx:
	kmem_cache_destroy(twheel_ctx_cache);
err_timer:
	twheel_timer_cache_exit();
	return ret;
}

/**
 * twheel_ctx_cache_exit() - destroy the slab caches
 *
 * Every context is destroyed by then (the module cannot unload while a
 * file is open), so the caches are empty.
 */
void twheel_ctx_cache_exit(void)
{
	twheel_base_cache_exit();
	kmem_cache_destroy(twheel_ctx_cache);
	twheel_timer_cache_exit();
}
