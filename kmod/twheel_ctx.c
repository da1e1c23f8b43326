// SPDX-License-Identifier: GPL-2.0
/*
 * twheel_ctx.c - one timer set: timers, wheels, hrtimers, expiry records.
 *
 * Life of a timer: twheel_ctx_add() puts it in the wheel of its clock
 * (pending) and re-arms that clock's hrtimer if the new deadline comes
 * first. When the hrtimer fires, its callback bumps ctx->fire_seq and wakes
 * the waiters, nothing else (O(1), no lock of ours). The wheel is advanced
 * by the next task that uses the context: a reader or poller woken by the
 * callback, or any ioctl, read or fdinfo. That task advances the wheel to
 * the clock's present, turns every timer handed back into a queued record,
 * re-arms the hrtimer for the wheel's next event: at its own priority, on
 * its own CPU time, and in chunks of at most TWHEEL_CHUNK entries per hold
 * of the lock. read() consumes records and frees their timers;
 * twheel_ctx_cancel() frees a timer in either state. Each timer thus ends
 * exactly once: read, or cancelled.
 *
 * Time: deadlines round up to the next tick and the present rounds down
 * (twheel_time.h), so no timer is queued early; the hrtimer is armed for
 * the start of the wheel's next event tick, so none is queued more than
 * one tick late plus the latency of the hrtimer and of the woken task.
 * Times the user gives and reads are in the time namespace of the task
 * that opened the fd; the wheels run on the kernel's clocks.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/build_bug.h>
#include <linux/err.h>
#include <linux/hrtimer.h>
#include <linux/ktime.h>
#include <linux/lockdep.h>
#include <linux/mm.h>
#include <linux/overflow.h>
#include <linux/poll.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/time_namespace.h>
#include <linux/timekeeping.h>
#include <kunit/visibility.h>

#include "twheel_compat.h"
#include "twheel_ctx.h"
#include "twheel_time.h"

/**
 * struct twheel_timer - one timer
 * @entry: while pending: its place in the wheel
 * @rec: while queued: its record
 * @rec.link: in ctx->ready (the same list_head as @entry.node)
 * @rec.time_ns: when the record was queued, on the timer's clock (kernel
 *               time, not the namespace's)
 * @word: the id (key of ctx->ids), with the state and the clock kept in
 *        bits ids leave free (TWHEEL_IDS_FREE_BITS)
 * @cookie: the caller's cookie
 *
 * 40 bytes: the wheel's entry is reused for the record once the wheel has
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
	u64 word;
	u64 cookie;
};

#define TWHEEL_TIMER_QUEUED	BIT_ULL(31)	/* else pending */
#define TWHEEL_TIMER_CLOCK_SHIFT	32
#define TWHEEL_TIMER_CLOCK_MASK	(3ULL << TWHEEL_TIMER_CLOCK_SHIFT)

static inline u64 twheel_timer_id(const struct twheel_timer *t)
{
	return t->word & ~TWHEEL_IDS_FREE_BITS;
}

static inline u32 twheel_timer_clock(const struct twheel_timer *t)
{
	return (t->word & TWHEEL_TIMER_CLOCK_MASK) >> TWHEEL_TIMER_CLOCK_SHIFT;
}

static inline bool twheel_timer_queued(const struct twheel_timer *t)
{
	return t->word & TWHEEL_TIMER_QUEUED;
}

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

/*
 * The callback: O(1), in hard-IRQ context (softirq on PREEMPT_RT), no lock
 * of ours. It wakes every waiter; the task that then updates the wheels
 * wakes nobody again (twheel_ctx_fired() keeps the others from sleeping
 * until the records are there). The wake-up carries no event mask, so that pollers (epoll,
 * io_uring, select) ask twheel_poll(), which advances the wheel, rather
 * than report the fd readable: a cascade-only event queues no record.
 */
static void twheel_ctx_kick(struct twheel_ctx *ctx)
{
	atomic_inc(&ctx->fire_seq);
	wake_up(&ctx->wqh);
}

static enum hrtimer_restart twheel_base_fired(struct hrtimer *hrtimer)
{
	struct twheel_base *base = container_of(hrtimer, struct twheel_base,
						hrtimer);

	twheel_ctx_kick(base->ctx);
	return HRTIMER_NORESTART;
}

/*
 * Arm the hrtimer for the wheel's next event, or stop it when empty.
 * base->armed is TWHEEL_NEVER while stopped: no tick of ours reaches it,
 * since deadlines are at most KTIME_MAX nanoseconds.
 */
static void twheel_base_arm(struct twheel_base *base)
{
	u64 next;

	if (twheel_wheel_empty(&base->wheel)) {
		base->armed = TWHEEL_NEVER;
		/* A callback running now only marks and wakes: harmless. */
		hrtimer_try_to_cancel(&base->hrtimer);
		return;
	}
	next = twheel_wheel_next(&base->wheel);
	if (next == base->armed && hrtimer_is_queued(&base->hrtimer))
		return;
	base->armed = next;
	hrtimer_start(&base->hrtimer,
		      ns_to_ktime(twheel_tick_ns(next, base->ctx->tick_ns)),
		      HRTIMER_MODE_ABS);
}

/*
 * Caller holds the lock. Append @n records to the queue; with @wake, wake
 * the waiters at unlock (not needed when an hrtimer callback woke them for
 * these records: see twheel_ctx_fired()).
 */
static void twheel_ctx_queue(struct twheel_ctx *ctx, struct list_head *recs,
			     u64 n, bool wake)
{
	list_splice_tail(recs, &ctx->ready);
	WRITE_ONCE(ctx->nr_queued, ctx->nr_queued + n);
	if (wake)
		ctx->need_wake = true;
}

/*
 * Caller holds the lock. Bring one clock's wheel up to @now_ns (kernel
 * time on that clock), moving at most *@budget entries. A clock set back
 * behind the wheel's clock (only CLOCK_REALTIME does that) first has its
 * entries taken out and added again against the new, earlier present, so
 * that no new deadline counts as due early; that too goes in chunks.
 *
 * @wake: records queued here were not announced by an hrtimer callback
 *
 * Return: true when the wheel is up to date (and its hrtimer armed for
 * its next event); false when the budget ran out first.
 */
static bool twheel_base_update(struct twheel_base *base, s64 now_ns,
			       u64 *budget, bool wake)
{
	struct twheel_ctx *ctx = base->ctx;
	u64 now = twheel_now_tick(now_ns, ctx->tick_ns);
	struct twheel_entry *e;
	struct twheel_timer *t;
	LIST_HEAD(expired);
	u64 n;

	if (list_empty(&base->rebase) && now < base->wheel.clk)
		twheel_wheel_take_all(&base->wheel, now, &base->rebase);
	while (!list_empty(&base->rebase)) {
		if (!*budget)
			return false;
		(*budget)--;
		e = list_first_entry(&base->rebase, struct twheel_entry, node);
		list_del(&e->node);
		twheel_wheel_add(&base->wheel, e, e->expires);
	}

	n = twheel_wheel_advance_some(&base->wheel, now, &expired, budget);
	if (n) {
		/* entry.node and rec.link are one list_head: walk, then splice. */
		list_for_each_entry(t, &expired, rec.link) {
			t->word |= TWHEEL_TIMER_QUEUED;
			t->rec.time_ns = now_ns;
		}
		twheel_ctx_queue(ctx, &expired, n, wake);
	}
	if (twheel_wheel_behind(&base->wheel, now))
		return false;
	twheel_base_arm(base);
	return true;
}

/*
 * Caller holds the lock. One chunk of bringing every clock up to date.
 * Return: true when all are up to date.
 */
static bool twheel_ctx_update_chunk(struct twheel_ctx *ctx)
{
	int seq = atomic_read(&ctx->fire_seq);
	u64 budget = TWHEEL_CHUNK;
	bool done = true;
	int i;

	lockdep_assert_held(&ctx->lock);
	/*
	 * Take the sequence before reading the clocks: a callback that fires
	 * after the read leaves fire_seq ahead of done_seq, one that fired
	 * before it is covered by the read.
	 */
	smp_mb();
	for (i = 0; i < TWHEEL_NR_CLOCKS; i++) {
		struct twheel_base *base = ctx->bases[i];

		if (base && !twheel_base_update(base,
						twheel_clock_now(base->clock),
						&budget, false))
			done = false;
	}
	if (done)	/* release: pairs with the acquire in twheel_ctx_fired() */
		smp_store_release(&ctx->done_seq, seq);
	return done;
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
		if (!twheel_ctx_fired(ctx) ||
		    (how == TWHEEL_UPDATE_RECORD && ctx->nr_queued))
			return;
		if (twheel_ctx_update_chunk(ctx) ||
		    (how == TWHEEL_UPDATE_RECORD && ctx->nr_queued))
			return;
		twheel_ctx_unlock(ctx);
		cond_resched();
	}
}
EXPORT_SYMBOL_IF_KUNIT(twheel_ctx_lock_update);

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

/* Caller holds the lock. The base of @clock, created on first use. */
static struct twheel_base *twheel_ctx_base(struct twheel_ctx *ctx, u32 clock)
{
	struct twheel_base *base = ctx->bases[clock];

	if (base)
		return base;
	/* About 11 KiB, mostly slot heads: kvzalloc, charged to the caller. */
	base = kvzalloc(sizeof(*base), GFP_KERNEL_ACCOUNT);
	if (!base)
		return NULL;
	base->ctx = ctx;
	base->clock = clock;
	base->armed = TWHEEL_NEVER;
	INIT_LIST_HEAD(&base->rebase);
	twheel_wheel_init(&base->wheel,
			  twheel_now_tick(twheel_clock_now(clock), ctx->tick_ns));
	twheel_hrtimer_setup(&base->hrtimer, twheel_base_fired,
			     twheel_clockids[clock], HRTIMER_MODE_ABS);
	ctx->bases[clock] = base;
	return base;
}

/* The opener's time namespace: what it adds to the kernel's clocks. */
static void twheel_ctx_timens(struct twheel_ctx *ctx)
{
	struct timespec64 ts = { 0, 0 };

	timens_add_monotonic(&ts);
	ctx->ns_offset[TWHEEL_CLOCK_MONOTONIC] = timespec64_to_ns(&ts);
	ts = (struct timespec64){ 0, 0 };
	timens_add_boottime(&ts);
	ctx->ns_offset[TWHEEL_CLOCK_BOOTTIME] = timespec64_to_ns(&ts);
	/* Time namespaces leave CLOCK_REALTIME alone. */
	ctx->ns_offset[TWHEEL_CLOCK_REALTIME] = 0;
}

/**
 * twheel_ctx_create() - a new, empty timer set
 * @max_timers: the most live timers it may hold, >= 1
 * @tick_ns: its resolution, >= 1
 *
 * Times given to and read from it are in the calling task's time
 * namespace.
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
	twheel_ids_init(&ctx->ids);
	INIT_LIST_HEAD(&ctx->ready);
	init_waitqueue_head(&ctx->wqh);
	twheel_ctx_timens(ctx);
	ctx->max_timers = max_timers;
	ctx->tick_ns = tick_ns;
	return ctx;
}
EXPORT_SYMBOL_IF_KUNIT(twheel_ctx_create);

/**
 * twheel_ctx_destroy() - cancel and free every timer, then the context
 * @ctx: the context; nobody else may use it any more
 *
 * Waits for running hrtimer callbacks, so nothing of @ctx runs after it
 * returns. Frees the timers in chunks, offering to reschedule between
 * them: closing a million timers delays nobody else.
 */
void twheel_ctx_destroy(struct twheel_ctx *ctx)
{
	struct twheel_timer *t;
	u32 slot = 0, n = 0;
	int i;

	/* Nobody else holds the file, so nothing re-arms after this. */
	for (i = 0; i < TWHEEL_NR_CLOCKS; i++)
		if (ctx->bases[i])
			hrtimer_cancel(&ctx->bases[i]->hrtimer);
	while ((t = twheel_ids_next(&ctx->ids, &slot))) {
		kmem_cache_free(twheel_timer_cache, t);
		if (++n % TWHEEL_CHUNK == 0)
			cond_resched();
	}
	twheel_ids_destroy(&ctx->ids);
	for (i = 0; i < TWHEEL_NR_CLOCKS; i++)
		kvfree(ctx->bases[i]);
	mutex_destroy(&ctx->lock);
	kfree(ctx);
}
EXPORT_SYMBOL_IF_KUNIT(twheel_ctx_destroy);

/* Caller holds the lock. The live timer @id, or NULL. */
static struct twheel_timer *twheel_ctx_find(struct twheel_ctx *ctx, u64 id)
{
	struct twheel_timer *t = twheel_ids_find(&ctx->ids, id);

	return t && twheel_timer_id(t) == id ? t : NULL;
}

/* Caller holds the lock. Forget @t, whose lists no longer hold it. */
static void twheel_timer_free(struct twheel_ctx *ctx, struct twheel_timer *t)
{
	twheel_ids_remove(&ctx->ids, twheel_timer_id(t));
	ctx->nr_timers--;
	kmem_cache_free(twheel_timer_cache, t);
}

/* Caller holds the lock. Take @t out of the wheel or the queue, and free it. */
static void twheel_timer_cancel(struct twheel_ctx *ctx, struct twheel_timer *t)
{
	struct twheel_base *base;

	if (!twheel_timer_queued(t)) {
		base = ctx->bases[twheel_timer_clock(t)];
		twheel_wheel_remove(&base->wheel, &t->entry);
		/* Keep an idle fd free of wake-ups. */
		if (twheel_wheel_empty(&base->wheel))
			twheel_base_arm(base);
	} else {
		list_del(&t->rec.link);
		WRITE_ONCE(ctx->nr_queued, ctx->nr_queued - 1);
	}
	twheel_timer_free(ctx, t);
}

/* The user's time on @clock (namespace time) to the kernel's, saturating. */
static s64 twheel_ctx_to_kernel(struct twheel_ctx *ctx, u32 clock, s64 ns)
{
	s64 off = ctx->ns_offset[clock], r;

	if (check_sub_overflow(ns, off, &r))
		return off > 0 ? KTIME_MIN : KTIME_MAX;
	return r;
}

/* The kernel's time on @clock to the user's, saturating. */
static s64 twheel_ctx_to_user(struct twheel_ctx *ctx, u32 clock, s64 ns)
{
	s64 r;

	if (check_add_overflow(ns, ctx->ns_offset[clock], &r))
		return ctx->ns_offset[clock] > 0 ? KTIME_MAX : KTIME_MIN;
	return r;
}

/*
 * Caller holds the lock, the wheels updated. Schedule @t for @req.
 * Return: 0; -EAGAIN when the clock's wheel is not up to date yet (the
 * caller releases the lock and comes back); -ENOSPC, -ENOMEM.
 */
static int twheel_ctx_add_locked(struct twheel_ctx *ctx,
				 struct twheel_add *req,
				 struct twheel_timer *t)
{
	u64 budget = TWHEEL_CHUNK, tick;
	struct twheel_base *base;
	s64 now_ns, deadline;
	LIST_HEAD(one);
	int ret;

	if (ctx->nr_timers >= ctx->max_timers)
		return -ENOSPC;
	base = twheel_ctx_base(ctx, req->clock);
	if (!base)
		return -ENOMEM;
	/*
	 * This clock's wheel must be up to date at the present used below:
	 * whatever is due by then goes first.
	 */
	now_ns = twheel_clock_now(req->clock);
	if (!twheel_base_update(base, now_ns, &budget, true)) {
		/* The rest is done as if an hrtimer had fired. */
		twheel_ctx_kick(ctx);
		return -EAGAIN;
	}
	ret = twheel_ids_alloc(&ctx->ids, t, &req->id);
	if (ret)
		return ret;
	ctx->nr_timers++;
	t->word = req->id | (u64)req->clock << TWHEEL_TIMER_CLOCK_SHIFT;
	t->cookie = req->cookie;

	if (req->flags & TWHEEL_ADD_ABSTIME)
		deadline = twheel_ctx_to_kernel(ctx, req->clock,
						req->expires_ns);
	else
		deadline = twheel_add_ns(now_ns, req->expires_ns);
	tick = twheel_deadline_tick(deadline, ctx->tick_ns);
	/*
	 * Queue it at once when its deadline tick has been reached; or when
	 * its deadline has passed inside the current tick and no timer of
	 * that tick waits in the wheel (one that does was added earlier and
	 * comes first: this one then waits for the tick, behind it).
	 */
	if (tick <= base->wheel.clk ||
	    (deadline <= now_ns && !twheel_wheel_holds(&base->wheel, tick))) {
		t->word |= TWHEEL_TIMER_QUEUED;
		t->rec.time_ns = now_ns;
		list_add_tail(&t->rec.link, &one);
		twheel_ctx_queue(ctx, &one, 1, true);
		return 0;
	}
	twheel_wheel_add(&base->wheel, &t->entry, tick);
	if (tick < base->armed)
		twheel_base_arm(base);
	return 0;
}

/**
 * twheel_ctx_add() - schedule one timer
 * @ctx: the context; the caller does not hold the lock
 * @req: the request, as documented for struct twheel_add; on success
 *       @req->id is set
 * @out: called under the lock once the timer exists, with @arg, to hand
 *       @req to the caller (must not sleep); if it fails, the timer is
 *       taken back before anyone could see it
 * @arg: for @out
 *
 * A timer whose deadline tick has been reached is queued before this
 * returns (see twheel_ctx_add_locked() for the exact rule).
 *
 * Return: 0; -EINVAL for a bad request, -ENOSPC when @ctx is full,
 * -ENOMEM, or what @out returned. On error nothing changed.
 */
int twheel_ctx_add(struct twheel_ctx *ctx, struct twheel_add *req,
		   int (*out)(void *arg), void *arg)
{
	bool abs = req->flags & TWHEEL_ADD_ABSTIME;
	struct twheel_timer *t;
	int ret;

	if (req->flags & ~TWHEEL_ADD_FLAGS || req->clock >= TWHEEL_NR_CLOCKS)
		return -EINVAL;
	if (!abs && (req->expires_ns < 0 ||
		     req->clock == TWHEEL_CLOCK_REALTIME))
		return -EINVAL;

	/*
	 * Allocate before taking the lock: reclaim holds nobody else up. At
	 * the memory cgroup's limit the add fails with ENOMEM rather than
	 * calling the OOM killer.
	 */
	t = kmem_cache_alloc(twheel_timer_cache,
			     GFP_KERNEL_ACCOUNT | __GFP_NORETRY);
	if (!t)
		return -ENOMEM;
	for (;;) {
		twheel_ctx_lock_update(ctx, TWHEEL_UPDATE_ALL);
		ret = twheel_ctx_add_locked(ctx, req, t);
		if (ret != -EAGAIN)
			break;
		twheel_ctx_unlock(ctx);
		cond_resched();
	}
	if (ret) {
		twheel_ctx_unlock(ctx);
		kmem_cache_free(twheel_timer_cache, t);
		return ret;
	}
	ret = out ? out(arg) : 0;
	if (ret)
		twheel_timer_cancel(ctx, t);
	twheel_ctx_unlock(ctx);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(twheel_ctx_add);

/**
 * twheel_ctx_cancel() - cancel one timer, pending or with its record queued
 * @ctx: the context; the caller does not hold the lock
 * @req: @req->id is the timer; @req->result is set to
 *       TWHEEL_CANCELLED_PENDING or TWHEEL_CANCELLED_QUEUED
 * @out: called under the lock with @arg once @req->result is known, to
 *       hand it to the caller (must not sleep); the timer is cancelled
 *       only if it succeeds. NULL: cancel without telling.
 * @arg: for @out
 *
 * Return: 0; -ENOENT when @ctx holds no timer @req->id; or what @out
 * returned (then nothing changed).
 */
int twheel_ctx_cancel(struct twheel_ctx *ctx, struct twheel_cancel *req,
		      int (*out)(void *arg), void *arg)
{
	struct twheel_timer *t;
	int ret = -ENOENT;

	twheel_ctx_lock_update(ctx, TWHEEL_UPDATE_ALL);
	t = twheel_ctx_find(ctx, req->id);
	if (t) {
		req->result = twheel_timer_queued(t) ?
			      TWHEEL_CANCELLED_QUEUED :
			      TWHEEL_CANCELLED_PENDING;
		ret = out ? out(arg) : 0;
		if (!ret)
			twheel_timer_cancel(ctx, t);
	}
	twheel_ctx_unlock(ctx);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(twheel_ctx_cancel);

/* Caller holds the lock. The oldest queued record, left queued. */
static bool twheel_ctx_peek(struct twheel_ctx *ctx, struct twheel_event *ev)
{
	struct twheel_timer *t;

	t = list_first_entry_or_null(&ctx->ready, struct twheel_timer,
				     rec.link);
	if (!t)
		return false;
	memset(ev, 0, sizeof(*ev));
	ev->id = twheel_timer_id(t);
	ev->cookie = t->cookie;
	ev->clock = twheel_timer_clock(t);
	ev->time_ns = twheel_ctx_to_user(ctx, ev->clock, t->rec.time_ns);
	ev->count = 1;
	return true;
}

/* Caller holds the lock. Drop the oldest queued record and its timer. */
static void twheel_ctx_consume(struct twheel_ctx *ctx)
{
	struct twheel_timer *t;

	t = list_first_entry(&ctx->ready, struct twheel_timer, rec.link);
	list_del(&t->rec.link);
	WRITE_ONCE(ctx->nr_queued, ctx->nr_queued - 1);
	twheel_timer_free(ctx, t);
}

/**
 * twheel_ctx_read() - hand over queued records, oldest first
 * @ctx: the context; the caller does not hold the lock
 * @max: the most records to hand over
 * @emit: called under the lock with @arg for each record, in order (must
 *        not sleep); a record is consumed only if it returns 0
 * @arg: for @emit
 *
 * Advances the wheels first if an hrtimer fired, until a record is queued.
 * Hands over at most TWHEEL_CHUNK records in one call.
 *
 * Return: the number of records handed over; 0 when none is queued; or,
 * when @emit failed on the first one, what it returned.
 */
long twheel_ctx_read(struct twheel_ctx *ctx, u64 max,
		     int (*emit)(void *arg, const struct twheel_event *ev),
		     void *arg)
{
	struct twheel_event ev;
	u64 n = 0;
	int ret = 0;

	twheel_ctx_lock_update(ctx, TWHEEL_UPDATE_RECORD);
	while (n < max && n < TWHEEL_CHUNK && twheel_ctx_peek(ctx, &ev)) {
		ret = emit(arg, &ev);
		if (ret)
			break;
		twheel_ctx_consume(ctx);
		n++;
	}
	twheel_ctx_unlock(ctx);
	return n ? n : ret;
}
EXPORT_SYMBOL_IF_KUNIT(twheel_ctx_read);

/**
 * twheel_ctx_info() - describe the context
 * @ctx: the context; the caller does not hold the lock
 * @info: filled in, every byte
 *
 * Advances the wheels first if an hrtimer fired, so the counts are
 * current.
 */
void twheel_ctx_info(struct twheel_ctx *ctx, struct twheel_info *info)
{
	memset(info, 0, sizeof(*info));
	twheel_ctx_lock_update(ctx, TWHEEL_UPDATE_ALL);
	info->version = TWHEEL_ABI_VERSION;
	info->event_size = sizeof(struct twheel_event);
	info->tick_ns = ctx->tick_ns;
	info->max_timers = ctx->max_timers;
	info->timers = ctx->nr_timers;
	info->queued = ctx->nr_queued;
	twheel_ctx_unlock(ctx);
}
EXPORT_SYMBOL_IF_KUNIT(twheel_ctx_info);

/**
 * twheel_ctx_show() - the context as "key:\tvalue" lines, for fdinfo
 * @ctx: the context; the caller does not hold the lock
 * @m: where to print
 *
 * Advances the wheels first if an hrtimer fired. next_expiry_<clock>_ns
 * is when that clock's hrtimer fires next, in the opener's time
 * namespace: never after the earliest deadline's tick on that clock.
 * index_bytes is the memory of the id table.
 */
void twheel_ctx_show(struct twheel_ctx *ctx, struct seq_file *m)
{
	int i;

	twheel_ctx_lock_update(ctx, TWHEEL_UPDATE_ALL);
	seq_printf(m, "tick_ns:\t%llu\n", ctx->tick_ns);
	seq_printf(m, "timers:\t%llu\n", ctx->nr_timers);
	seq_printf(m, "pending:\t%llu\n", ctx->nr_timers - ctx->nr_queued);
	seq_printf(m, "queued:\t%llu\n", ctx->nr_queued);
	seq_printf(m, "max_timers:\t%llu\n", ctx->max_timers);
	seq_printf(m, "index_bytes:\t%zu\n", twheel_ids_bytes(&ctx->ids));
	for (i = 0; i < TWHEEL_NR_CLOCKS; i++) {
		struct twheel_base *base = ctx->bases[i];

		if (!base || twheel_wheel_empty(&base->wheel))
			continue;
		seq_printf(m, "next_expiry_%s_ns:\t%lld\n", twheel_clock_names[i],
			   twheel_ctx_to_user(ctx, i,
					      twheel_tick_ns(twheel_wheel_next(&base->wheel),
							     ctx->tick_ns)));
	}
	twheel_ctx_unlock(ctx);
}
EXPORT_SYMBOL_IF_KUNIT(twheel_ctx_show);

#if IS_ENABLED(CONFIG_KUNIT)
/**
 * twheel_ctx_update_at() - bring one clock's wheel up to a given time
 * @ctx: the context; the caller holds the lock
 * @clock: the clock, in use by @ctx
 * @now_ns: kernel time on @clock to advance to
 *
 * For tests that must not depend on the machine's speed: the records of
 * every timer due by @now_ns are queued, in order, whatever the real
 * clock says.
 */
void twheel_ctx_update_at(struct twheel_ctx *ctx, u32 clock, s64 now_ns)
{
	u64 budget = U64_MAX;

	lockdep_assert_held(&ctx->lock);
	twheel_base_update(ctx->bases[clock], now_ns, &budget, true);
}
EXPORT_SYMBOL_IF_KUNIT(twheel_ctx_update_at);
#endif

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
	BUILD_BUG_ON(sizeof(struct twheel_timer) > 40);
	/* The state and the clock live in bits that ids leave free. */
	BUILD_BUG_ON((TWHEEL_TIMER_QUEUED | TWHEEL_TIMER_CLOCK_MASK) &
		     ~TWHEEL_IDS_FREE_BITS);
	BUILD_BUG_ON(TWHEEL_NR_CLOCKS > 4);

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
