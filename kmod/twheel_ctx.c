// SPDX-License-Identifier: GPL-2.0
/*
 * twheel_ctx.c - one timer set: timers, wheels, hrtimers, expiry records.
 *
 * Life of a timer: twheel_ctx_add() puts it in the wheel of its clock
 * (PENDING) and re-arms that clock's hrtimer if the new deadline comes
 * first. When the hrtimer fires, its callback only queues ctx->work (O(1)
 * in hard-IRQ context); the work advances the wheel to the clock's present
 * tick in process context, where unbounded work is allowed, turns every
 * timer handed back into a queued record (QUEUED), re-arms the hrtimer for
 * the wheel's next event and wakes the readers. read() consumes records
 * and frees their timers; twheel_ctx_cancel() frees a timer in either
 * state. Each timer thus ends exactly once: read, or cancelled.
 *
 * Time: deadlines round up to the next tick and the present rounds down
 * (twheel_time.h), so no timer fires early; the hrtimer is armed for the
 * start of the wheel's next event tick, so none fires more than one tick
 * late plus the latency of the hrtimer and of the work.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/build_bug.h>
#include <linux/err.h>
#include <linux/hrtimer.h>
#include <linux/ktime.h>
#include <linux/lockdep.h>
#include <linux/mm.h>
#include <linux/poll.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/timekeeping.h>
#include <kunit/visibility.h>

#include "twheel_compat.h"
#include "twheel_ctx.h"
#include "twheel_time.h"

enum twheel_timer_state {
	TWHEEL_TIMER_PENDING,	/* in the wheel of its clock */
	TWHEEL_TIMER_QUEUED,	/* expired; its record is on ctx->ready */
};

/**
 * struct twheel_timer - one timer
 * @entry: while PENDING: its place in the wheel
 * @rec: while QUEUED: its record
 * @rec.link: in ctx->ready (the same list_head as @entry.node)
 * @rec.time_ns: when the record was queued, on the timer's clock
 * @id: the id, key of ctx->timers
 * @cookie: the caller's cookie
 * @state: an enum twheel_timer_state
 * @clock: the enum twheel_clock
 *
 * 48 bytes: the wheel's entry is reused for the record once the wheel has
 * handed the timer back.
 */
struct twheel_timer {
	union {
		struct twheel_entry entry;
		struct {
			struct list_head link;
			s64 time_ns;
		} rec;
	};
	u64 id;
	u64 cookie;
	u8 state;
	u8 clock;
};

static struct kmem_cache *twheel_timer_cache;

static const clockid_t twheel_clockids[TWHEEL_NR_CLOCKS] = {
	[TWHEEL_CLOCK_MONOTONIC] = CLOCK_MONOTONIC,
	[TWHEEL_CLOCK_BOOTTIME] = CLOCK_BOOTTIME,
	[TWHEEL_CLOCK_REALTIME] = CLOCK_REALTIME,
};

static const char *const twheel_clock_names[TWHEEL_NR_CLOCKS] = {
	[TWHEEL_CLOCK_MONOTONIC] = "monotonic",
	[TWHEEL_CLOCK_BOOTTIME] = "boottime",
	[TWHEEL_CLOCK_REALTIME] = "realtime",
};

static s64 twheel_clock_now(u32 clock)
{
	switch (clock) {
	case TWHEEL_CLOCK_BOOTTIME:
		return ktime_get_boottime();
	case TWHEEL_CLOCK_REALTIME:
		return ktime_get_real();
	default:
		return ktime_get();
	}
}

/* Hard-IRQ context: O(1), no lock; the work does the rest. */
static enum hrtimer_restart twheel_base_fired(struct hrtimer *hrtimer)
{
	struct twheel_base *base = container_of(hrtimer, struct twheel_base,
						hrtimer);

	queue_work(system_highpri_wq, &base->ctx->work);
	return HRTIMER_NORESTART;
}

/*
 * Arm the hrtimer for the wheel's next event, or stop it when empty.
 * base->armed is TWHEEL_NEVER while stopped: no tick of ours reaches it,
 * since deadlines are at most KTIME_MAX nanoseconds.
 */
static void twheel_base_arm(struct twheel_base *base)
{
	if (twheel_wheel_empty(&base->wheel)) {
		base->armed = TWHEEL_NEVER;
		/* A callback running now only queues the work: harmless. */
		hrtimer_try_to_cancel(&base->hrtimer);
		return;
	}
	base->armed = twheel_wheel_next(&base->wheel);
	hrtimer_start(&base->hrtimer,
		      ns_to_ktime(twheel_tick_ns(base->armed, base->ctx->tick_ns)),
		      HRTIMER_MODE_ABS);
}

/*
 * The wall clock was set back behind the wheel's clock. Entries sit where
 * their deadlines fall relative to the wheel's clock, and a new deadline
 * at or before it would count as due at once, i.e. early: re-place every
 * entry relative to the new, earlier present. O(timers of this clock);
 * only CLOCK_REALTIME ever goes back.
 */
static void twheel_base_rebase(struct twheel_base *base, u64 now)
{
	struct twheel_entry *e, *tmp;
	LIST_HEAD(all);

	/* Everything, in deadline order, so ties keep their order. */
	twheel_wheel_advance(&base->wheel, TWHEEL_NEVER, &all);
	twheel_wheel_init(&base->wheel, now);
	list_for_each_entry_safe(e, tmp, &all, node)
		twheel_wheel_add(&base->wheel, e, e->expires);
}

/* @t left its wheel at @now_ns: it becomes a record. */
static void twheel_timer_expired(struct twheel_timer *t, s64 now_ns)
{
	t->state = TWHEEL_TIMER_QUEUED;
	t->rec.time_ns = now_ns;
}

/* Caller holds the lock. Append @n records to the queue; wake at unlock. */
static void twheel_ctx_queue(struct twheel_ctx *ctx, struct list_head *recs,
			     u64 n)
{
	list_splice_tail(recs, &ctx->ready);
	WRITE_ONCE(ctx->nr_queued, ctx->nr_queued + n);
	ctx->need_wake = true;
}

/* Caller holds the lock. Queue a record for every timer due at @now_ns. */
static void twheel_base_run(struct twheel_base *base, s64 now_ns)
{
	struct twheel_ctx *ctx = base->ctx;
	u64 now = twheel_now_tick(now_ns, ctx->tick_ns);
	struct twheel_timer *t;
	LIST_HEAD(expired);
	u64 n;

	if (now < base->wheel.clk)
		twheel_base_rebase(base, now);
	n = twheel_wheel_advance(&base->wheel, now, &expired);
	if (n) {
		/* entry.node and rec.link are one list_head: walk, then splice. */
		list_for_each_entry(t, &expired, rec.link)
			twheel_timer_expired(t, now_ns);
		twheel_ctx_queue(ctx, &expired, n);
	}
	twheel_base_arm(base);
}

/**
 * twheel_ctx_run() - queue the records of every timer now due
 * @ctx: the context; the caller holds the lock
 *
 * Advances the wheel of each clock in use to that clock's present tick and
 * re-arms its hrtimer. Process context: the work is proportional to the
 * timers handed back.
 */
void twheel_ctx_run(struct twheel_ctx *ctx)
{
	int i;

	lockdep_assert_held(&ctx->lock);
	for (i = 0; i < TWHEEL_NR_CLOCKS; i++) {
		struct twheel_base *base = ctx->bases[i];

		if (base)
			twheel_base_run(base, twheel_clock_now(base->clock));
	}
}
EXPORT_SYMBOL_IF_KUNIT(twheel_ctx_run);

static void twheel_ctx_work(struct work_struct *work)
{
	struct twheel_ctx *ctx = container_of(work, struct twheel_ctx, work);

	twheel_ctx_lock(ctx);
	if (!ctx->dying)
		twheel_ctx_run(ctx);
	twheel_ctx_unlock(ctx);
}

/* Caller holds the lock. The base of @clock, created on first use. */
static struct twheel_base *twheel_ctx_base(struct twheel_ctx *ctx, u32 clock)
{
	struct twheel_base *base = ctx->bases[clock];
	s64 now;

	if (base)
		return base;
	/* About 11 KiB, mostly slot heads: kvzalloc, charged to the caller. */
	base = kvzalloc(sizeof(*base), GFP_KERNEL_ACCOUNT);
	if (!base)
		return NULL;
	base->ctx = ctx;
	base->clock = clock;
	base->armed = TWHEEL_NEVER;
	now = twheel_clock_now(clock);
	twheel_wheel_init(&base->wheel, twheel_now_tick(now, ctx->tick_ns));
	twheel_hrtimer_setup(&base->hrtimer, twheel_base_fired, twheel_clockids[clock],
			     HRTIMER_MODE_ABS);
	ctx->bases[clock] = base;
	return base;
}

/**
 * twheel_ctx_unlock() - release the lock, then wake readers if records
 *                       were queued while it was held
 * @ctx: the context
 */
void twheel_ctx_unlock(struct twheel_ctx *ctx)
{
	bool wake = ctx->need_wake;

	ctx->need_wake = false;
	mutex_unlock(&ctx->lock);
	if (wake)
		wake_up_poll(&ctx->wqh, EPOLLIN | EPOLLRDNORM);
}
EXPORT_SYMBOL_IF_KUNIT(twheel_ctx_unlock);

/**
 * twheel_ctx_create() - a new, empty timer set
 * @max_timers: the most live timers it may hold, >= 1
 * @tick_ns: its resolution, >= 1
 *
 * Return: the context, or ERR_PTR(-ENOMEM).
 */
struct twheel_ctx *twheel_ctx_create(u64 max_timers, u64 tick_ns)
{
	struct twheel_ctx *ctx;

	ctx = kzalloc(sizeof(*ctx), GFP_KERNEL_ACCOUNT);
	if (!ctx)
		return ERR_PTR(-ENOMEM);
	mutex_init(&ctx->lock);
	xa_init(&ctx->timers);
	INIT_LIST_HEAD(&ctx->ready);
	init_waitqueue_head(&ctx->wqh);
	INIT_WORK(&ctx->work, twheel_ctx_work);
	ctx->next_id = 1;
	ctx->max_timers = max_timers;
	ctx->tick_ns = tick_ns;
	return ctx;
}
EXPORT_SYMBOL_IF_KUNIT(twheel_ctx_create);

/**
 * twheel_ctx_destroy() - cancel and free every timer, then the context
 * @ctx: the context; nobody else may use it any more
 *
 * Waits for running hrtimer callbacks and work, so nothing of @ctx runs
 * after it returns.
 */
void twheel_ctx_destroy(struct twheel_ctx *ctx)
{
	struct twheel_timer *t;
	unsigned long id;
	int i;

	/* The work re-arms hrtimers; after this it no longer does. */
	twheel_ctx_lock(ctx);
	ctx->dying = true;
	mutex_unlock(&ctx->lock);
	for (i = 0; i < TWHEEL_NR_CLOCKS; i++)
		if (ctx->bases[i])
			hrtimer_cancel(&ctx->bases[i]->hrtimer);
	/* A callback that ran before the cancel may have queued the work. */
	cancel_work_sync(&ctx->work);

	xa_for_each(&ctx->timers, id, t) {
		kmem_cache_free(twheel_timer_cache, t);
		cond_resched();
	}
	xa_destroy(&ctx->timers);
	for (i = 0; i < TWHEEL_NR_CLOCKS; i++)
		kvfree(ctx->bases[i]);
	mutex_destroy(&ctx->lock);
	kfree(ctx);
}
EXPORT_SYMBOL_IF_KUNIT(twheel_ctx_destroy);

/**
 * twheel_ctx_add() - schedule one timer
 * @ctx: the context; the caller holds the lock
 * @req: the request, as documented for struct twheel_add; on success
 *       @req->id is set
 *
 * A deadline at or before the present is queued before this returns.
 *
 * Return: 0; -EINVAL for a bad request, -ENOSPC when @ctx is full,
 * -ENOMEM. On error nothing changed.
 */
int twheel_ctx_add(struct twheel_ctx *ctx, struct twheel_add *req)
{
	bool abs = req->flags & TWHEEL_ADD_ABSTIME;
	struct twheel_base *base;
	struct twheel_timer *t;
	s64 now_ns, deadline;
	u64 tick, now;
	int ret;

	lockdep_assert_held(&ctx->lock);
	if (req->flags & ~TWHEEL_ADD_FLAGS || req->clock >= TWHEEL_NR_CLOCKS)
		return -EINVAL;
	if (!abs && (req->expires_ns < 0 ||
		     req->clock == TWHEEL_CLOCK_REALTIME))
		return -EINVAL;
	if (ctx->nr_timers >= ctx->max_timers)
		return -ENOSPC;

	base = twheel_ctx_base(ctx, req->clock);
	if (!base)
		return -ENOMEM;
	t = kmem_cache_alloc(twheel_timer_cache, GFP_KERNEL_ACCOUNT);
	if (!t)
		return -ENOMEM;
	t->id = ctx->next_id;
	t->cookie = req->cookie;
	t->state = TWHEEL_TIMER_PENDING;
	t->clock = req->clock;
	ret = xa_insert(&ctx->timers, t->id, t, GFP_KERNEL_ACCOUNT);
	if (ret) {
		kmem_cache_free(twheel_timer_cache, t);
		return ret;
	}
	ctx->next_id++;
	ctx->nr_timers++;
	req->id = t->id;

	now_ns = twheel_clock_now(req->clock);
	deadline = abs ? req->expires_ns : twheel_add_ns(now_ns, req->expires_ns);
	if (deadline <= now_ns) {
		/*
		 * Already due. Timers of this clock that expired before now
		 * but whose work has not run yet come first: queue them, then
		 * this one behind them, bypassing the wheel.
		 */
		LIST_HEAD(one);

		twheel_base_run(base, now_ns);
		twheel_timer_expired(t, now_ns);
		list_add_tail(&t->rec.link, &one);
		twheel_ctx_queue(ctx, &one, 1);
		return 0;
	}
	now = twheel_now_tick(now_ns, ctx->tick_ns);
	if (now < base->wheel.clk)
		twheel_base_rebase(base, now);
	tick = twheel_deadline_tick(deadline, ctx->tick_ns);
	twheel_wheel_add(&base->wheel, &t->entry, tick);
	if (tick < base->armed)
		twheel_base_arm(base);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(twheel_ctx_add);

/* Caller holds the lock. Forget @t, whose lists no longer hold it. */
static void twheel_timer_free(struct twheel_ctx *ctx, struct twheel_timer *t)
{
	xa_erase(&ctx->timers, t->id);
	ctx->nr_timers--;
	kmem_cache_free(twheel_timer_cache, t);
}

/**
 * twheel_ctx_cancel() - cancel one timer, pending or with its record queued
 * @ctx: the context; the caller holds the lock
 * @id: the timer's id
 * @result: set to TWHEEL_CANCELLED_PENDING or TWHEEL_CANCELLED_QUEUED
 * @commit: false to only tell what a cancel would do, changing nothing
 *
 * Return: 0, or -ENOENT when @ctx holds no timer @id.
 */
int twheel_ctx_cancel(struct twheel_ctx *ctx, u64 id,
		      u32 *result, bool commit)
{
	struct twheel_timer *t;
	struct twheel_base *base;

	lockdep_assert_held(&ctx->lock);
	t = xa_load(&ctx->timers, id);
	if (!t)
		return -ENOENT;
	if (t->state == TWHEEL_TIMER_PENDING) {
		*result = TWHEEL_CANCELLED_PENDING;
		if (!commit)
			return 0;
		base = ctx->bases[t->clock];
		twheel_wheel_remove(&base->wheel, &t->entry);
		/* Keep an idle fd free of wake-ups. */
		if (twheel_wheel_empty(&base->wheel))
			twheel_base_arm(base);
	} else {
		*result = TWHEEL_CANCELLED_QUEUED;
		if (!commit)
			return 0;
		list_del(&t->rec.link);
		WRITE_ONCE(ctx->nr_queued, ctx->nr_queued - 1);
	}
	twheel_timer_free(ctx, t);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(twheel_ctx_cancel);

/**
 * twheel_ctx_peek() - the oldest queued record, left queued
 * @ctx: the context; the caller holds the lock
 * @ev: filled in, every byte, when a record is queued
 *
 * Return: true when a record was queued.
 */
bool twheel_ctx_peek(struct twheel_ctx *ctx, struct twheel_event *ev)
{
	struct twheel_timer *t;

	lockdep_assert_held(&ctx->lock);
	t = list_first_entry_or_null(&ctx->ready, struct twheel_timer,
				     rec.link);
	if (!t)
		return false;
	memset(ev, 0, sizeof(*ev));
	ev->id = t->id;
	ev->cookie = t->cookie;
	ev->time_ns = t->rec.time_ns;
	ev->count = 1;
	ev->clock = t->clock;
	return true;
}
EXPORT_SYMBOL_IF_KUNIT(twheel_ctx_peek);

/**
 * twheel_ctx_consume() - drop the oldest queued record and its timer
 * @ctx: the context; the caller holds the lock and saw twheel_ctx_peek()
 *       return true
 */
void twheel_ctx_consume(struct twheel_ctx *ctx)
{
	struct twheel_timer *t;

	lockdep_assert_held(&ctx->lock);
	t = list_first_entry(&ctx->ready, struct twheel_timer, rec.link);
	list_del(&t->rec.link);
	WRITE_ONCE(ctx->nr_queued, ctx->nr_queued - 1);
	twheel_timer_free(ctx, t);
}
EXPORT_SYMBOL_IF_KUNIT(twheel_ctx_consume);

/**
 * twheel_ctx_info() - describe the context
 * @ctx: the context; the caller holds the lock
 * @info: filled in, every byte
 */
void twheel_ctx_info(struct twheel_ctx *ctx, struct twheel_info *info)
{
	lockdep_assert_held(&ctx->lock);
	memset(info, 0, sizeof(*info));
	info->version = TWHEEL_ABI_VERSION;
	info->event_size = sizeof(struct twheel_event);
	info->tick_ns = ctx->tick_ns;
	info->max_timers = ctx->max_timers;
	info->timers = ctx->nr_timers;
	info->queued = ctx->nr_queued;
}
EXPORT_SYMBOL_IF_KUNIT(twheel_ctx_info);

/**
 * twheel_ctx_show() - the context as "key:\tvalue" lines, for fdinfo
 * @ctx: the context; the caller holds the lock
 * @m: where to print
 *
 * next_expiry_<clock>_ns is when that clock's hrtimer fires next: never
 * after the earliest deadline on that clock.
 */
void twheel_ctx_show(struct twheel_ctx *ctx, struct seq_file *m)
{
	int i;

	lockdep_assert_held(&ctx->lock);
	seq_printf(m, "tick_ns:\t%llu\n", ctx->tick_ns);
	seq_printf(m, "timers:\t%llu\n", ctx->nr_timers);
	seq_printf(m, "pending:\t%llu\n", ctx->nr_timers - ctx->nr_queued);
	seq_printf(m, "queued:\t%llu\n", ctx->nr_queued);
	seq_printf(m, "max_timers:\t%llu\n", ctx->max_timers);
	for (i = 0; i < TWHEEL_NR_CLOCKS; i++) {
		struct twheel_base *base = ctx->bases[i];

		if (!base || twheel_wheel_empty(&base->wheel))
			continue;
		seq_printf(m, "next_expiry_%s_ns:\t%lld\n", twheel_clock_names[i],
			   twheel_tick_ns(twheel_wheel_next(&base->wheel),
					  ctx->tick_ns));
	}
}
EXPORT_SYMBOL_IF_KUNIT(twheel_ctx_show);

/**
 * twheel_ctx_cache_init() - create the slab cache of timers
 *
 * Return: 0 or -ENOMEM.
 */
int twheel_ctx_cache_init(void)
{
	/* The record reuses the wheel's list node: same offset. */
	BUILD_BUG_ON(offsetof(struct twheel_timer, rec.link) !=
		     offsetof(struct twheel_timer, entry.node));
	BUILD_BUG_ON(sizeof(struct twheel_timer) > 48);
	/* Timer ids are xarray indices. */
	BUILD_BUG_ON(sizeof(unsigned long) < sizeof(u64));

	twheel_timer_cache = kmem_cache_create("twheel_timer",
					       sizeof(struct twheel_timer), 0,
					       SLAB_ACCOUNT, NULL);
	return twheel_timer_cache ? 0 : -ENOMEM;
}

/**
 * twheel_ctx_cache_exit() - destroy the slab cache of timers
 *
 * Every context is destroyed by then (the module cannot unload while a
 * file is open), so the cache is empty.
 */
void twheel_ctx_cache_exit(void)
{
	kmem_cache_destroy(twheel_timer_cache);
}
