// SPDX-License-Identifier: GPL-2.0
/*
 * twheel_ctx.c - one timer set: timers, wheels, hrtimers, expiry records.
 *
 * Life of a timer: twheel_ctx_add() puts it in the wheel of its clock
 * (pending) and re-arms that clock's hrtimer if the new deadline comes
 * first. When the hrtimer fires, its callback bumps ctx->fire_seq and wakes
 * the waiters, nothing else (O(1), no lock of ours). The wheel is advanced
 * by the next task that uses the context: a reader or poller woken by the
 * callback, or any ioctl or read (fdinfo only looks). A wall clock set past
 * the hrtimer's time counts as fired from that moment on (the kernel runs
 * the callback soon after, but not at once). That task advances the wheel to
 * the clock's present, turns every timer handed back into a queued record,
 * re-arms the hrtimer for the wheel's next event: at its own priority, on
 * its own CPU time, and in chunks of at most TWHEEL_CHUNK entries per hold
 * of the lock. read() consumes records and frees their one-shot timers;
 * a periodic timer goes back into the wheel when its record is read, for
 * the first deadline of its period's grid after the present, with the
 * record's count telling how many deadlines passed (as timerfd re-arms in
 * read, not in its callback: an unread periodic timer costs no interrupt).
 * A cancel frees a timer in either state; a modify takes it out of either
 * and places it again. Each expiry thus ends exactly once: read, or
 * retracted by a cancel or a modify.
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
#include <linux/percpu.h>
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

#define CREATE_TRACE_POINTS
#include "twheel_trace.h"

/**
 * struct twheel_timer - one timer
 * @entry: while pending: its place in the wheel
 * @rec: while queued: its record
 * @rec.link: in ctx->ready (the same list_head as @entry.node)
 * @rec.time_ns: when the record was queued, on the timer's clock (kernel
 *               time, not the namespace's)
 * @word: the id (key of ctx->ids), with the state, the clock and the size
 *        kept in bits ids leave free (TWHEEL_IDS_FREE_BITS)
 * @cookie: the caller's cookie
 *
 * 40 bytes: the wheel's entry is reused for the record once the wheel has
 * handed the timer back. A one-shot timer is only this; a timer that is,
 * or was once, periodic is a struct twheel_ptimer (TWHEEL_TIMER_BIG).
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

/**
 * struct twheel_ptimer - a timer that can be periodic
 * @t: the timer
 * @deadline_ns: its next deadline while pending; while queued, the first
 *               deadline its record counts (kernel time, exact)
 * @period_ns: its period, at least one tick; 0 for one-shot
 */
struct twheel_ptimer {
	struct twheel_timer t;
	s64 deadline_ns;
	u64 period_ns;
};

#define TWHEEL_TIMER_QUEUED	BIT_ULL(31)	/* else pending */
#define TWHEEL_TIMER_CLOCK_SHIFT	32
#define TWHEEL_TIMER_CLOCK_MASK	(3ULL << TWHEEL_TIMER_CLOCK_SHIFT)
#define TWHEEL_TIMER_BIG	BIT_ULL(34)	/* a struct twheel_ptimer */

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

static inline struct twheel_ptimer *twheel_ptimer(struct twheel_timer *t)
{
	return t->word & TWHEEL_TIMER_BIG ?
	       container_of(t, struct twheel_ptimer, t) : NULL;
}

static inline bool twheel_timer_periodic(struct twheel_timer *t)
{
	struct twheel_ptimer *pt = twheel_ptimer(t);

	return pt && pt->period_ns;
}

static struct kmem_cache *twheel_timer_cache;
static struct kmem_cache *twheel_ptimer_cache;
static struct kmem_cache *twheel_ctx_cache;
static struct kmem_cache *twheel_base_cache;

/* Module-wide counters, summed over CPUs by twheel_stats_read(). */
static DEFINE_PER_CPU(struct twheel_stats, twheel_stats);
#define twheel_stat_add(field, n)	this_cpu_add(twheel_stats.field, (n))

/* The trace id of the next context. */
static atomic64_t twheel_trace_ids = ATOMIC64_INIT(0);

/**
 * twheel_stats_read() - the module-wide counters
 * @sum: set to their sums over every CPU
 *
 * Each counter only grows; read while they change, the sums are each a
 * value the counter had or went through, not one instant's snapshot. The
 * counters of ends (closed, freed, read) are read before those of the
 * beginnings they follow (opened, created, expired), so an end is never
 * counted without its beginning.
 */
void twheel_stats_read(struct twheel_stats *sum)
{
	int cpu;

	memset(sum, 0, sizeof(*sum));
	/*
	 * The ends (closed, freed) before the beginnings (opened, created),
	 * so that every end counted has its beginning counted too.
	 */
	for_each_possible_cpu(cpu) {
		const struct twheel_stats *s = per_cpu_ptr(&twheel_stats, cpu);

		sum->closed += READ_ONCE(s->closed);
		sum->freed += READ_ONCE(s->freed);
		sum->read += READ_ONCE(s->read);
	}
	smp_rmb();	/* the ends' sums before the beginnings' */
	for_each_possible_cpu(cpu) {
		const struct twheel_stats *s = per_cpu_ptr(&twheel_stats, cpu);

		sum->opened += READ_ONCE(s->opened);
		sum->created += READ_ONCE(s->created);
		sum->expired += READ_ONCE(s->expired);
	}
}

static void twheel_timer_release(struct twheel_timer *t)
{
	struct twheel_ptimer *pt = twheel_ptimer(t);

	if (pt)
		kmem_cache_free(twheel_ptimer_cache, pt);
	else
		kmem_cache_free(twheel_timer_cache, t);
}

static const clockid_t twheel_clockids[TWHEEL_NR_CLOCKS] = {
	[TWHEEL_CLK_MONOTONIC] = CLOCK_MONOTONIC,
	[TWHEEL_CLK_BOOTTIME] = CLOCK_BOOTTIME,
	[TWHEEL_CLK_REALTIME] = CLOCK_REALTIME,
	[TWHEEL_CLK_TAI] = CLOCK_TAI,
};

static const char *const twheel_clock_names[TWHEEL_NR_CLOCKS] = {
	[TWHEEL_CLK_MONOTONIC] = "monotonic",
	[TWHEEL_CLK_BOOTTIME] = "boottime",
	[TWHEEL_CLK_REALTIME] = "realtime",
	[TWHEEL_CLK_TAI] = "tai",
};

/**
 * twheel_clock_index() - the index of a clock the ABI names by clockid_t
 * @clockid: CLOCK_MONOTONIC, CLOCK_BOOTTIME, CLOCK_REALTIME or CLOCK_TAI
 *
 * Return: its enum twheel_clk, or -EINVAL for any other value.
 */
int twheel_clock_index(u32 clockid)
{
	int i;

	for (i = 0; i < TWHEEL_NR_CLOCKS; i++)
		if (clockid == (u32)twheel_clockids[i])
			return i;
	return -EINVAL;
}
EXPORT_SYMBOL_IF_KUNIT(twheel_clock_index);

/* The present of @clock, in the kernel's time (or the manual clock). */
static s64 twheel_clock_now(struct twheel_ctx *ctx, u32 clock)
{
	if (ctx->manual)
		return ctx->manual_ns;
	switch (clock) {
	case TWHEEL_CLK_BOOTTIME:
		return ktime_get_boottime();
	case TWHEEL_CLK_REALTIME:
		return ktime_get_real();
	case TWHEEL_CLK_TAI:
		return ktime_get_clocktai();
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

/* Give @base's wheel level @lvl (-1: none needed). Return: 0 or -ENOMEM. */
static int twheel_base_give_level(struct twheel_base *base, int lvl, gfp_t gfp)
{
	struct twheel_level *l;

	if (lvl < 0)
		return 0;
	l = kzalloc(sizeof(*l), gfp | __GFP_NOWARN);
	if (!l)
		return -ENOMEM;
	twheel_wheel_give_level(&base->wheel, lvl, l);
	return 0;
}

/* Free the levels of @base's wheel that hold no timer. */
static void twheel_base_trim(struct twheel_base *base)
{
	struct twheel_level *l;

	while ((l = twheel_wheel_take_empty_level(&base->wheel)))
		kfree(l);
}

/* Free @base and every level of its wheel; its hrtimer is stopped. */
static void twheel_base_free(struct twheel_base *base)
{
	int i;

	for (i = 0; i < TWHEEL_LEVELS; i++)
		kfree(base->wheel.lvl[i]);
	kmem_cache_free(twheel_base_cache, base);
}

/* Add @e to @base's wheel at @tick, given the level it needs. */
static void twheel_base_add(struct twheel_base *base, struct twheel_entry *e,
			    u64 tick)
{
	twheel_base_give_level(base,
			       twheel_wheel_level_needed(&base->wheel, tick),
			       TWHEEL_GFP_HELD);
	twheel_wheel_add(&base->wheel, e, tick);
}

/*
 * Arm the hrtimer for the wheel's next event, or stop it when empty.
 * base->armed is TWHEEL_NEVER while stopped: no tick of ours reaches it,
 * since deadlines are at most KTIME_MAX nanoseconds.
 */
static void twheel_base_arm(struct twheel_base *base)
{
	struct twheel_ctx *ctx = base->ctx;
	s64 when;
	u64 next;

	if (twheel_wheel_empty(&base->wheel))
		twheel_base_trim(base);
	if (ctx->manual) {
		/* Only TWHEEL_IOC_ADVANCE moves a manual clock. */
		base->armed = twheel_wheel_empty(&base->wheel) ? TWHEEL_NEVER :
			      twheel_wheel_next(&base->wheel);
		return;
	}
	if (twheel_wheel_empty(&base->wheel)) {
		base->armed = TWHEEL_NEVER;
		WRITE_ONCE(ctx->armed_ns[base->clock], KTIME_MAX);
		/* A callback running now only marks and wakes: harmless. */
		hrtimer_try_to_cancel(&base->hrtimer);
		return;
	}
	next = twheel_wheel_next(&base->wheel);
	if (next == base->armed && hrtimer_is_queued(&base->hrtimer))
		return;
	base->armed = next;
	when = twheel_tick_ns(next, ctx->tick_ns);
	WRITE_ONCE(ctx->armed_ns[base->clock], when);
	hrtimer_start(&base->hrtimer, ns_to_ktime(when), HRTIMER_MODE_ABS);
}

/**
 * twheel_ctx_wall_due() - was a wall clock set past its wheel's next event?
 * @ctx: the context
 *
 * Lockless, for twheel_ctx_fired(). When CLOCK_REALTIME or CLOCK_TAI is
 * set forward past the time its hrtimer is armed for, the kernel runs the
 * callback soon, not at once; until then this says the wheel is due, so
 * that the next read, poll or ioctl queues its records. Reads a clock
 * only for a wall clock whose hrtimer is armed.
 *
 * Return: true when a wall clock's armed time has been reached.
 */
bool twheel_ctx_wall_due(struct twheel_ctx *ctx)
{
	s64 rt = READ_ONCE(ctx->armed_ns[TWHEEL_CLK_REALTIME]);
	s64 tai = READ_ONCE(ctx->armed_ns[TWHEEL_CLK_TAI]);

	return (rt != KTIME_MAX && ktime_get_real() >= rt) ||
	       (tai != KTIME_MAX && ktime_get_clocktai() >= tai);
}
EXPORT_SYMBOL_IF_KUNIT(twheel_ctx_wall_due);

/*
 * When pending @t falls due, as the trace events show it: a periodic
 * timer's exact deadline, or the start of the tick a one-shot's deadline
 * rounded up to (all it keeps).
 */
static s64 twheel_timer_due_ns(struct twheel_ctx *ctx, struct twheel_timer *t)
{
	struct twheel_ptimer *pt = twheel_ptimer(t);

	return pt ? pt->deadline_ns :
	       twheel_tick_ns(t->entry.expires, ctx->tick_ns);
}

static void twheel_trace_expire(struct twheel_ctx *ctx, struct twheel_timer *t,
				s64 deadline_ns, s64 now_ns)
{
	trace_twheel_timer_expire(ctx->trace_id, twheel_timer_id(t),
				  t->cookie,
				  twheel_clockids[twheel_timer_clock(t)],
				  deadline_ns, now_ns);
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
	twheel_stat_add(expired, n);
	if (wake)
		ctx->need_wake = true;
}

/*
 * Caller holds the lock. Bring one clock's wheel up to @now_ns (kernel
 * time on that clock), moving at most *@budget entries. A clock set back
 * behind the wheel's clock (CLOCK_REALTIME and CLOCK_TAI can be) first
 * has its entries taken out and added again against the new, earlier
 * present, so that no new deadline counts as due early; that too goes in
 * chunks.
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
	u64 from = base->wheel.clk, start = *budget;
	struct twheel_entry *e;
	struct twheel_timer *t;
	LIST_HEAD(expired);
	bool done = false;
	u64 n = 0;
	int lvl;

	if (list_empty(&base->rebase) && now < base->wheel.clk)
		twheel_wheel_take_all(&base->wheel, now, &base->rebase);
	while (!list_empty(&base->rebase)) {
		if (!*budget)
			goto out;
		(*budget)--;
		e = list_first_entry(&base->rebase, struct twheel_entry, node);
		list_del(&e->node);
		twheel_base_add(base, e, e->expires);
	}

	for (;;) {
		n += twheel_wheel_advance_some(&base->wheel, now, &expired,
					       budget);
		if (!twheel_wheel_behind(&base->wheel, now)) {
			done = true;
			break;
		}
		/* Stopped for a level it lacks, or for its budget. */
		lvl = twheel_wheel_level_missing(&base->wheel);
		if (lvl < 0)
			break;
		twheel_base_give_level(base, lvl, TWHEEL_GFP_HELD);
	}
	if (n) {
		/* entry.node and rec.link are one list_head: walk, then splice. */
		list_for_each_entry(t, &expired, rec.link) {
			if (trace_twheel_timer_expire_enabled())
				twheel_trace_expire(ctx, t,
						    twheel_timer_due_ns(ctx, t),
						    now_ns);
			t->word |= TWHEEL_TIMER_QUEUED;
			t->rec.time_ns = now_ns;
		}
		twheel_ctx_queue(ctx, &expired, n, wake);
	}
out:
	if (n || base->wheel.clk != from || *budget != start)
		trace_twheel_wheel_advance(ctx->trace_id,
					   twheel_clockids[base->clock], from,
					   base->wheel.clk, now_ns, n,
					   start - *budget);
	if (done)
		twheel_base_arm(base);
	return done;
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

		if (!base)
			continue;
		if (twheel_base_update(base, twheel_clock_now(ctx, base->clock),
				       &budget, false))
			twheel_base_trim(base);	/* levels cascaded empty */
		else
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
		ctx->now_valid = 0;
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

/*
 * The base that runs timers of @clock: its own, or on a manual clock the
 * one base all timers share, so that they fall due in one order.
 */
static u32 twheel_ctx_base_index(struct twheel_ctx *ctx, u32 clock)
{
	return ctx->manual ? TWHEEL_CLK_MONOTONIC : clock;
}

/* Caller holds the lock. The base of a timer of @clock (it exists). */
static struct twheel_base *twheel_ctx_base_of(struct twheel_ctx *ctx,
					      u32 clock)
{
	return ctx->bases[twheel_ctx_base_index(ctx, clock)];
}

/* Caller holds the lock. The base for @clock, created on first use. */
static struct twheel_base *twheel_ctx_base(struct twheel_ctx *ctx, u32 clock)
{
	struct twheel_base *base;

	clock = twheel_ctx_base_index(ctx, clock);
	base = ctx->bases[clock];

	if (base)
		return base;
	/*
	 * A few hundred bytes: the wheel's levels come as timers need them.
	 * Quietly: a user reaching a limit is no kernel event.
	 */
	base = kmem_cache_zalloc(twheel_base_cache, TWHEEL_GFP | __GFP_NOWARN);
	if (!base)
		return NULL;
	base->ctx = ctx;
	base->clock = clock;
	base->armed = TWHEEL_NEVER;
	INIT_LIST_HEAD(&base->rebase);
	twheel_wheel_init(&base->wheel,
			  twheel_now_tick(twheel_clock_now(ctx, clock),
					  ctx->tick_ns));
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
	ctx->ns_offset[TWHEEL_CLK_MONOTONIC] = timespec64_to_ns(&ts);
	ts = (struct timespec64){ 0, 0 };
	timens_add_boottime(&ts);
	ctx->ns_offset[TWHEEL_CLK_BOOTTIME] = timespec64_to_ns(&ts);
	/* Time namespaces leave CLOCK_REALTIME and CLOCK_TAI alone. */
}

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
	int i;

	ctx = kmem_cache_zalloc(twheel_ctx_cache, TWHEEL_GFP);
	if (!ctx)
		return ERR_PTR(-ENOMEM);
	ctx->user = user;
	for (i = 0; i < TWHEEL_NR_CLOCKS; i++)
		ctx->armed_ns[i] = KTIME_MAX;
	mutex_init(&ctx->lock);
	twheel_ids_init(&ctx->ids);
	INIT_LIST_HEAD(&ctx->ready);
	init_waitqueue_head(&ctx->wqh);
	twheel_ctx_timens(ctx);
	ctx->max_timers = max_timers;
	ctx->tick_ns = tick_ns;
	ctx->trace_id = atomic64_inc_return(&twheel_trace_ids);
	twheel_stat_add(opened, 1);
	return ctx;
}
EXPORT_SYMBOL_IF_KUNIT(twheel_ctx_create);

/**
 * twheel_ctx_destroy() - cancel and free every timer, then the context
 * @ctx: the context; nobody else may use it any more
 *
 * Waits for running hrtimer callbacks, so nothing of @ctx runs after it
 * returns. Walks the id slots TWHEEL_CHUNK at a time, offering to
 * reschedule between two chunks: closing a million timers, or an fd
 * whose million slots are free, delays nobody else. Gives the context's
 * timer slots back to its user.
 */
void twheel_ctx_destroy(struct twheel_ctx *ctx)
{
	struct twheel_timer *t;
	u32 slot = 0, budget;
	int i;

	/* Nobody else holds the file, so nothing re-arms after this. */
	for (i = 0; i < TWHEEL_NR_CLOCKS; i++)
		if (ctx->bases[i])
			hrtimer_cancel(&ctx->bases[i]->hrtimer);
	while (slot < ctx->ids.nr_slots) {
		budget = TWHEEL_CHUNK;
		while ((t = twheel_ids_next(&ctx->ids, &slot, &budget)))
			twheel_timer_release(t);
		cond_resched();
	}
	twheel_stat_add(freed, ctx->nr_timers);
	twheel_stat_add(closed, 1);
	if (ctx->user)
		twheel_user_close(ctx->user, ctx->ids.nr_slots);
	twheel_ids_destroy(&ctx->ids);
	for (i = 0; i < TWHEEL_NR_CLOCKS; i++)
		if (ctx->bases[i])
			twheel_base_free(ctx->bases[i]);
	kfree(ctx->spare_ops);
	mutex_destroy(&ctx->lock);
	kmem_cache_free(twheel_ctx_cache, ctx);
}
EXPORT_SYMBOL_IF_KUNIT(twheel_ctx_destroy);

/* Caller holds the lock. The live timer @id, or NULL. */
static struct twheel_timer *twheel_ctx_find(struct twheel_ctx *ctx, u64 id)
{
	struct twheel_timer *t = twheel_ids_find(&ctx->ids, id);

	return t && twheel_timer_id(t) == id ? t : NULL;
}

/* Caller holds the lock. Forget @t, whose lists no longer hold it. */
static void twheel_timer_forget(struct twheel_ctx *ctx, struct twheel_timer *t)
{
	twheel_ids_remove(&ctx->ids, twheel_timer_id(t));
	ctx->nr_timers--;
	twheel_stat_add(freed, 1);
}

/* Caller holds the lock. Forget @t and free it. */
static void twheel_timer_free(struct twheel_ctx *ctx, struct twheel_timer *t)
{
	twheel_timer_forget(ctx, t);
	twheel_timer_release(t);
}

/* Caller holds the lock. Take @t out of the wheel or the queue. */
static void twheel_timer_unlink(struct twheel_ctx *ctx, struct twheel_timer *t)
{
	if (!twheel_timer_queued(t)) {
		twheel_wheel_remove(&twheel_ctx_base_of(ctx, twheel_timer_clock(t))->wheel,
				    &t->entry);
	} else {
		list_del(&t->rec.link);
		WRITE_ONCE(ctx->nr_queued, ctx->nr_queued - 1);
		t->word &= ~TWHEEL_TIMER_QUEUED;
	}
}

/*
 * Caller holds the lock. Take @t out of the wheel or the queue and forget
 * it; the caller frees it.
 */
static void twheel_timer_cancel(struct twheel_ctx *ctx, struct twheel_timer *t)
{
	struct twheel_base *base = twheel_ctx_base_of(ctx,
						       twheel_timer_clock(t));
	bool pending = !twheel_timer_queued(t);

	trace_twheel_timer_cancel(ctx->trace_id, twheel_timer_id(t),
				  t->cookie,
				  twheel_clockids[twheel_timer_clock(t)],
				  pending ? TWHEEL_STATE_PENDING :
					    TWHEEL_STATE_QUEUED);
	twheel_timer_unlink(ctx, t);
	/* Keep an idle fd free of wake-ups. */
	if (pending && twheel_wheel_empty(&base->wheel))
		twheel_base_arm(base);
	twheel_timer_forget(ctx, t);
}

/* The opener's namespace offset of @clock; none on a manual clock. */
static s64 twheel_ctx_offset(struct twheel_ctx *ctx, u32 clock)
{
	return ctx->manual ? 0 : ctx->ns_offset[clock];
}

/* The user's time on @clock (namespace time) to the kernel's, saturating. */
static s64 twheel_ctx_to_kernel(struct twheel_ctx *ctx, u32 clock, s64 ns)
{
	s64 off = twheel_ctx_offset(ctx, clock), r;

	if (check_sub_overflow(ns, off, &r))
		return off > 0 ? KTIME_MIN : KTIME_MAX;
	return r;
}

/* The kernel's time on @clock to the user's, saturating. */
static s64 twheel_ctx_to_user(struct twheel_ctx *ctx, u32 clock, s64 ns)
{
	s64 off = twheel_ctx_offset(ctx, clock), r;

	if (check_add_overflow(ns, off, &r))
		return off > 0 ? KTIME_MAX : KTIME_MIN;
	return r;
}

/*
 * @d + @n * @p, saturating at KTIME_MAX. The step may exceed KTIME_MAX
 * when @d is negative (a first deadline far in the past): the sum is
 * taken in u64, where KTIME_MAX - @d and the result are exact.
 */
static s64 twheel_periods_after(s64 d, u64 n, u64 p)
{
	u64 step;

	if (check_mul_overflow(n, p, &step) ||
	    step > (u64)KTIME_MAX - (u64)d)
		return KTIME_MAX;
	return (s64)((u64)d + step);
}

/*
 * The expiries a queued periodic timer stands for at @now_ns: its first
 * deadline, and every later one of its grid that has passed. At least 1
 * (the wall clock may have been set back since it was queued).
 */
static u64 twheel_ptimer_count(const struct twheel_ptimer *pt, s64 now_ns)
{
	if (now_ns <= pt->deadline_ns)
		return 1;
	return 1 + div64_u64((u64)now_ns - (u64)pt->deadline_ns, pt->period_ns);
}

/*
 * Caller holds the lock; @t is in neither the wheel nor the queue, and
 * its clock's wheel is up to date at @now_ns unless @deadline is after
 * @now_ns. Place @t for @deadline (kernel time): queue its record at once
 * when its deadline has passed and its deadline tick has been reached, or
 * no timer of that tick waits in the wheel (one that does was added
 * earlier and comes first: this one then waits for the tick, behind it);
 * else put it in the wheel. A deadline after @now_ns always goes to the
 * wheel, also when the wheel's clock is ahead of @now_ns (the wall clock
 * was set back): the wheel's next update takes it out and adds it again.
 */
static void twheel_timer_place(struct twheel_ctx *ctx, struct twheel_timer *t,
			       s64 deadline, s64 now_ns)
{
	struct twheel_base *base = twheel_ctx_base_of(ctx,
						       twheel_timer_clock(t));
	struct twheel_ptimer *pt = twheel_ptimer(t);
	u64 tick = twheel_deadline_tick(deadline, ctx->tick_ns);
	LIST_HEAD(one);

	if (pt)
		pt->deadline_ns = deadline;
	if (deadline <= now_ns && (tick <= base->wheel.clk ||
				   !twheel_wheel_holds(&base->wheel, tick))) {
		if (trace_twheel_timer_expire_enabled())
			twheel_trace_expire(ctx, t, pt ? deadline :
					    twheel_tick_ns(tick, ctx->tick_ns),
					    now_ns);
		t->word |= TWHEEL_TIMER_QUEUED;
		t->rec.time_ns = now_ns;
		list_add_tail(&t->rec.link, &one);
		twheel_ctx_queue(ctx, &one, 1, true);
		return;
	}
	twheel_base_add(base, &t->entry, tick);
	if (tick < base->armed)
		twheel_base_arm(base);
}

/*
 * Caller holds the lock. Before a new deadline is placed by an operation
 * that may still fail: give the wheel the level it would need (so that
 * placing it cannot fail). Return: 0, or -ENOMEM.
 */
static int twheel_base_prepare(struct twheel_base *base, s64 deadline)
{
	u64 tick = twheel_deadline_tick(deadline, base->ctx->tick_ns);

	return twheel_base_give_level(base,
				      twheel_wheel_level_needed(&base->wheel,
								tick),
				      TWHEEL_GFP);
}

/* A deadline given by the user (@flags, @expires_ns) in kernel time. */
static s64 twheel_ctx_deadline(struct twheel_ctx *ctx, u32 clock, u32 flags,
			       s64 expires_ns, s64 now_ns)
{
	if (flags & TWHEEL_ABSTIME)
		return twheel_ctx_to_kernel(ctx, clock, expires_ns);
	return twheel_add_ns(now_ns, expires_ns);
}

/* A period given by the user: 0, or at least one tick. */
static u64 twheel_ctx_period(struct twheel_ctx *ctx, u64 period_ns)
{
	if (!period_ns)
		return 0;
	return clamp_t(u64, period_ns, ctx->tick_ns, KTIME_MAX);
}

/*
 * Caller holds the lock. Bring the wheel of @clock (created if need be)
 * up to its present, which is returned in *@now_ns. The present is read
 * once per clock per hold of the lock: the operations of one batch share
 * it, and the wheel is brought up to it once.
 * Return: 0; -EAGAIN when that takes more than one chunk (the caller
 * releases the lock and comes back: the rest is done as if an hrtimer
 * had fired); -ENOMEM.
 */
static int twheel_ctx_present(struct twheel_ctx *ctx, u32 clock, s64 *now_ns)
{
	struct twheel_base *base = twheel_ctx_base(ctx, clock);
	u64 budget = TWHEEL_CHUNK;

	if (!base)
		return -ENOMEM;
	if (ctx->now_valid & BIT(clock)) {
		*now_ns = ctx->now_ns[clock];
		return 0;
	}
	/* Whatever is due by the present used for a new deadline goes first. */
	*now_ns = twheel_clock_now(ctx, clock);
	if (!twheel_base_update(base, *now_ns, &budget, true)) {
		twheel_ctx_kick(ctx);
		return -EAGAIN;
	}
	ctx->now_ns[clock] = *now_ns;
	ctx->now_valid |= BIT(clock);
	return 0;
}

/* Caller holds the lock. A timer's status, every field set. */
static void twheel_timer_status(struct twheel_ctx *ctx, struct twheel_timer *t,
				struct twheel_status *st)
{
	struct twheel_ptimer *pt = twheel_ptimer(t);
	u32 clock = twheel_timer_clock(t);
	s64 now_ns = twheel_clock_now(ctx, clock);
	s64 next = 0;
	bool coming = true;

	memset(st, 0, sizeof(*st));
	st->id = twheel_timer_id(t);
	st->cookie = t->cookie;
	st->clock = twheel_clockids[clock];
	st->period_ns = pt ? pt->period_ns : 0;
	if (!twheel_timer_queued(t)) {
		st->state = TWHEEL_STATE_PENDING;
		/* A periodic timer's grid is exact; a one-shot's, its tick. */
		next = pt && pt->period_ns ? pt->deadline_ns :
		       twheel_tick_ns(t->entry.expires, ctx->tick_ns);
	} else if (pt && pt->period_ns) {
		st->state = TWHEEL_STATE_QUEUED;
		st->count = twheel_ptimer_count(pt, now_ns);
		next = twheel_periods_after(pt->deadline_ns, st->count,
					    pt->period_ns);
	} else {
		st->state = TWHEEL_STATE_QUEUED;
		st->count = 1;
		coming = false;
	}
	if (coming) {
		st->deadline_ns = twheel_ctx_to_user(ctx, clock, next);
		st->remaining_ns = next > now_ns ? next - now_ns : 0;
	}
}

/**
 * struct twheel_mem - the memory of one operation of a batch
 * @obj: allocated before the lock is taken: a timer for TWHEEL_OP_ADD, a
 *       large one for an operation with a period; after the operation,
 *       NULL, or memory to free once the lock is dropped (unused, or a
 *       timer the operation took out)
 * @big: @obj is (to be) a struct twheel_ptimer
 */
struct twheel_mem {
	void *obj;
	bool big;
};

/* Caller holds the lock. Leave @t, forgotten, in @m to be freed. */
static void twheel_mem_keep(struct twheel_mem *m, struct twheel_timer *t)
{
	struct twheel_ptimer *pt = twheel_ptimer(t);

	m->big = !!pt;
	m->obj = pt ? (void *)pt : t;
}

/* Caller holds the lock. TWHEEL_OP_ADD; @obj is the new timer's memory. */
static int twheel_op_add(struct twheel_ctx *ctx, struct twheel_op *op,
			 void **obj, struct twheel_timer **created)
{
	struct twheel_timer *t = *obj;
	s64 now_ns, deadline;
	int clock, ret;
	bool charge;

	clock = twheel_clock_index(op->clock);
	if (clock < 0 || op->flags & ~TWHEEL_ABSTIME ||
	    (!(op->flags & TWHEEL_ABSTIME) && op->expires_ns < 0))
		return -EINVAL;
	if (!t)
		return -ENOMEM;
	if (ctx->nr_timers >= ctx->max_timers)
		return -ENOSPC;
	ret = twheel_ctx_present(ctx, clock, &now_ns);
	if (ret)
		return ret;
	deadline = twheel_ctx_deadline(ctx, clock, op->flags, op->expires_ns,
				       now_ns);
	ret = twheel_base_prepare(twheel_ctx_base_of(ctx, clock), deadline);
	if (ret)
		return ret;
	/* A new id slot counts against the user's limit; a reused one not. */
	charge = ctx->user && twheel_ids_full(&ctx->ids);
	if (charge && !twheel_user_charge_slot(ctx->user))
		return -ENOSPC;
	ret = twheel_ids_alloc(&ctx->ids, t, &op->id);
	if (ret) {
		if (charge)
			twheel_user_uncharge_slot(ctx->user);
		return ret;
	}
	*obj = NULL;
	ctx->nr_timers++;
	twheel_stat_add(created, 1);
	t->word = op->id | (u64)clock << TWHEEL_TIMER_CLOCK_SHIFT;
	t->cookie = op->cookie;
	if (op->period_ns) {
		t->word |= TWHEEL_TIMER_BIG;
		twheel_ptimer(t)->period_ns = twheel_ctx_period(ctx,
								op->period_ns);
	}
	trace_twheel_timer_add(ctx->trace_id, op->id, op->cookie, op->clock,
			       deadline,
			       twheel_ptimer(t) ? twheel_ptimer(t)->period_ns : 0,
			       0);
	twheel_timer_place(ctx, t, deadline, now_ns);
	*created = t;
	return 0;
}

/*
 * Caller holds the lock. Checks of TWHEEL_OP_MODIFY that change nothing;
 * then op->result is what the timer was.
 */
static int twheel_op_modify_check(struct twheel_ctx *ctx,
				  struct twheel_op *op, void *obj,
				  struct twheel_timer **tp, s64 *now_ns)
{
	struct twheel_timer *t;
	int ret;

	if (op->flags & ~(TWHEEL_ABSTIME | TWHEEL_SET_COOKIE) ||
	    (!(op->flags & TWHEEL_ABSTIME) && op->expires_ns < 0))
		return -EINVAL;
	t = twheel_ctx_find(ctx, op->id);
	if (!t)
		return -ENOENT;
	if (op->period_ns && !twheel_ptimer(t) && !obj)
		return -ENOMEM;
	ret = twheel_ctx_present(ctx, twheel_timer_clock(t), now_ns);
	if (ret)
		return ret;
	ret = twheel_base_prepare(twheel_ctx_base_of(ctx, twheel_timer_clock(t)),
				  twheel_ctx_deadline(ctx, twheel_timer_clock(t),
						      op->flags, op->expires_ns,
						      *now_ns));
	if (ret)
		return ret;
	op->result = twheel_timer_queued(t) ? TWHEEL_STATE_QUEUED :
					      TWHEEL_STATE_PENDING;
	*tp = t;
	return 0;
}

/* Caller holds the lock. TWHEEL_OP_MODIFY once checked: cannot fail. */
static void twheel_op_modify_apply(struct twheel_ctx *ctx,
				   const struct twheel_op *op,
				   struct twheel_mem *m, struct twheel_timer *t,
				   s64 now_ns)
{
	u32 clock = twheel_timer_clock(t);
	struct twheel_base *base;
	struct twheel_ptimer *pt;
	s64 deadline;

	twheel_timer_unlink(ctx, t);
	if (op->period_ns && !twheel_ptimer(t)) {
		/* It becomes periodic: move it into a larger object. */
		pt = m->obj;
		pt->t.word = t->word | TWHEEL_TIMER_BIG;
		pt->t.cookie = t->cookie;
		twheel_ids_replace(&ctx->ids, twheel_timer_id(t), &pt->t);
		/* The small one is freed in place of the unused large one. */
		m->obj = t;
		m->big = false;
		t = &pt->t;
	}
	pt = twheel_ptimer(t);
	if (pt)
		pt->period_ns = twheel_ctx_period(ctx, op->period_ns);
	if (op->flags & TWHEEL_SET_COOKIE)
		t->cookie = op->cookie;
	deadline = twheel_ctx_deadline(ctx, clock, op->flags, op->expires_ns,
				       now_ns);
	trace_twheel_timer_modify(ctx->trace_id, op->id, t->cookie,
				  twheel_clockids[clock], deadline,
				  pt ? pt->period_ns : 0, op->result);
	twheel_timer_place(ctx, t, deadline, now_ns);
	/*
	 * An earlier deadline re-armed the hrtimer above. A later one leaves
	 * it armed early, at most one event that queues nothing (cheaper
	 * than re-arming on every re-arm of an idle timeout); an fd left
	 * with nothing pending stops it.
	 */
	base = twheel_ctx_base_of(ctx, clock);
	if (twheel_wheel_empty(&base->wheel))
		twheel_base_arm(base);
}

/*
 * Caller holds the lock. TWHEEL_OP_QUERY's outputs. Apart from the other
 * operations: its struct twheel_status would otherwise be set up (zeroed
 * with CONFIG_INIT_STACK_ALL_ZERO) for every operation of a batch.
 */
static noinline void twheel_op_query(struct twheel_ctx *ctx,
				     struct twheel_op *op,
				     struct twheel_timer *t)
{
	struct twheel_status st;

	twheel_timer_status(ctx, t, &st);
	op->cookie = st.cookie;
	op->expires_ns = st.deadline_ns;
	op->period_ns = st.period_ns;
	op->clock = st.clock;
	op->result = st.state;
	op->count = st.count;
	op->remaining_ns = st.remaining_ns;
}

/* The outputs of @op zeroed, as before it is done or when it fails. */
static void twheel_op_clear(struct twheel_op *op)
{
	if (op->op == TWHEEL_OP_ADD)
		op->id = 0;
	if (op->op == TWHEEL_OP_QUERY) {
		op->cookie = 0;
		op->expires_ns = 0;
		op->period_ns = 0;
		op->clock = 0;
	}
	op->error = 0;
	op->result = 0;
	op->count = 0;
	op->remaining_ns = 0;
}

/*
 * Caller holds the lock, the wheels up to date. Do @op and hand it to
 * @out: an operation that changes something is taken back if @out fails
 * (or changes nothing before @out succeeded).
 * Return: 0 when @op is done (op->error tells how it went); -EAGAIN when
 * the caller must release the lock and come back (nothing changed); or
 * what @out returned (nothing changed).
 */
static int twheel_ctx_op(struct twheel_ctx *ctx, struct twheel_op *op,
			 struct twheel_mem *m, u32 i,
			 int (*out)(void *arg, u32 i, const struct twheel_op *op),
			 void *arg)
{
	struct twheel_timer *t = NULL;
	s64 now_ns = 0;
	int ret = -EINVAL;

	twheel_op_clear(op);
	if (op->__reserved)
		goto failed;
	switch (op->op) {
	case TWHEEL_OP_ADD:
		ret = twheel_op_add(ctx, op, &m->obj, &t);
		if (ret)
			break;
		ret = out(arg, i, op);
		if (ret) {
			twheel_timer_cancel(ctx, t);
			twheel_mem_keep(m, t);
			return ret;
		}
		ctx->used = true;
		return 0;
	case TWHEEL_OP_MODIFY:
		ret = twheel_op_modify_check(ctx, op, m->obj, &t, &now_ns);
		if (ret)
			break;
		ret = out(arg, i, op);
		if (!ret)
			twheel_op_modify_apply(ctx, op, m, t, now_ns);
		return ret;
	case TWHEEL_OP_CANCEL:
		if (op->flags)
			break;
		t = twheel_ctx_find(ctx, op->id);
		ret = -ENOENT;
		if (!t)
			break;
		op->result = twheel_timer_queued(t) ? TWHEEL_STATE_QUEUED :
						      TWHEEL_STATE_PENDING;
		ret = out(arg, i, op);
		if (!ret) {
			twheel_timer_cancel(ctx, t);
			twheel_mem_keep(m, t);
		}
		return ret;
	case TWHEEL_OP_QUERY:
		if (op->flags)
			break;
		t = twheel_ctx_find(ctx, op->id);
		ret = -ENOENT;
		if (!t)
			break;
		twheel_op_query(ctx, op, t);
		return out(arg, i, op);
	}
	if (ret == -EAGAIN)
		return ret;
failed:
	twheel_op_clear(op);
	op->error = ret;
	return out(arg, i, op);
}

/*
 * The memory @nr operations may need, allocated before the lock is taken:
 * the small timers in one bulk allocation (one memory cgroup charge, one
 * pass over the slab's free list), each alone if that fails.
 */
static void twheel_mem_alloc(struct twheel_mem *mem,
			     const struct twheel_op *ops, u32 nr)
{
	void *small[TWHEEL_SUBMIT_CHUNK] __uninitialized;
	const gfp_t gfp = TWHEEL_GFP;
	u32 i, n = 0;
	bool bulk;

	for (i = 0; i < nr; i++) {
		mem[i].obj = NULL;
		mem[i].big = ops[i].period_ns &&
			     (ops[i].op == TWHEEL_OP_ADD ||
			      ops[i].op == TWHEEL_OP_MODIFY);
		n += ops[i].op == TWHEEL_OP_ADD && !mem[i].big;
	}
	bulk = n > 1 &&
	       kmem_cache_alloc_bulk(twheel_timer_cache, gfp, n, small) == n;
	for (i = 0; i < nr; i++) {
		if (mem[i].big)
			mem[i].obj = kmem_cache_alloc(twheel_ptimer_cache, gfp);
		else if (ops[i].op == TWHEEL_OP_ADD)
			mem[i].obj = bulk ? small[--n] :
				     kmem_cache_alloc(twheel_timer_cache, gfp);
	}
}

/* Free what @nr operations left, the small timers in one bulk free. */
static void twheel_mem_free(struct twheel_mem *mem, u32 nr)
{
	void *small[TWHEEL_SUBMIT_CHUNK] __uninitialized;
	u32 i, n = 0;

	for (i = 0; i < nr; i++) {
		if (!mem[i].obj)
			continue;
		if (mem[i].big)
			kmem_cache_free(twheel_ptimer_cache, mem[i].obj);
		else
			small[n++] = mem[i].obj;
	}
	if (n)
		kmem_cache_free_bulk(twheel_timer_cache, n, small);
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
	/* Set up by twheel_mem_alloc() (no zeroing of the whole array). */
	struct twheel_mem mem[TWHEEL_SUBMIT_CHUNK] __uninitialized;
	u32 i;
	int ret;

	if (WARN_ON_ONCE(nr > TWHEEL_SUBMIT_CHUNK))
		nr = TWHEEL_SUBMIT_CHUNK;
	twheel_mem_alloc(mem, ops, nr);
	twheel_ctx_lock_update(ctx, TWHEEL_UPDATE_ALL);
	for (i = 0; i < nr; ) {
		ret = twheel_ctx_op(ctx, &ops[i], &mem[i], i, out, arg);
		if (ret == -EAGAIN) {
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
	twheel_ctx_unlock(ctx);
	twheel_mem_free(mem, nr);
	return i;
}
EXPORT_SYMBOL_IF_KUNIT(twheel_ctx_submit);

/**
 * twheel_ctx_list() - statuses of the context's timers, resumably
 * @ctx: the context; the caller does not hold the lock
 * @cursor: in: 0 to start, or what the previous call left; out: where the
 *          next call goes on, 0 when every timer has been seen
 * @st: filled with up to @n statuses
 * @n: room in @st
 *
 * The cursor is a position in the id table, whose slots do not move: a
 * timer that stays is seen exactly once in a listing; a slot freed and
 * reused behind the cursor is not seen again. One call looks at no more
 * than TWHEEL_CHUNK slots, live or free, so it may return fewer than @n
 * statuses (even none) with a non-zero cursor.
 *
 * Return: the number of statuses written.
 */
u32 twheel_ctx_list(struct twheel_ctx *ctx, u64 *cursor,
		    struct twheel_status *st, u32 n)
{
	u32 slot, done = 0, budget = TWHEEL_CHUNK;
	struct twheel_timer *t;

	if (*cursor >= U32_MAX) {
		*cursor = 0;
		return 0;
	}
	slot = *cursor;
	twheel_ctx_lock_update(ctx, TWHEEL_UPDATE_ALL);
	while (done < n && (t = twheel_ids_next(&ctx->ids, &slot, &budget)))
		twheel_timer_status(ctx, t, &st[done++]);
	/* Complete when no slot is left after the last one looked at. */
	*cursor = slot < ctx->ids.nr_slots ? slot : 0;
	twheel_ctx_unlock(ctx);
	return done;
}
EXPORT_SYMBOL_IF_KUNIT(twheel_ctx_list);

/**
 * twheel_ctx_config() - set the tick and the clock before the first timer
 * @ctx: the context; the caller does not hold the lock
 * @tick_ns: the tick, TWHEEL_MIN_TICK_NS to TWHEEL_MAX_TICK_NS
 * @manual: run every clock on the manual clock, starting at 0
 *
 * Return: 0; -EINVAL for a tick out of range; -EBUSY once a timer was
 * created.
 */
int twheel_ctx_config(struct twheel_ctx *ctx, u64 tick_ns, bool manual)
{
	int i, ret = 0;

	if (tick_ns < TWHEEL_MIN_TICK_NS || tick_ns > TWHEEL_MAX_TICK_NS)
		return -EINVAL;
	mutex_lock(&ctx->lock);
	if (ctx->used) {
		ret = -EBUSY;
		goto out;
	}
	/* Wheels made by failed adds hold nothing: start them afresh. */
	for (i = 0; i < TWHEEL_NR_CLOCKS; i++) {
		WRITE_ONCE(ctx->armed_ns[i], KTIME_MAX);
		if (!ctx->bases[i])
			continue;
		hrtimer_cancel(&ctx->bases[i]->hrtimer);
		twheel_base_free(ctx->bases[i]);
		ctx->bases[i] = NULL;
	}
	ctx->tick_ns = tick_ns;
	ctx->manual = manual;
	ctx->manual_ns = 0;
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
	s64 now_ns;
	int ret;

	mutex_lock(&ctx->lock);
	if (!ctx->manual) {
		mutex_unlock(&ctx->lock);
		return -EINVAL;
	}
	now_ns = delta_ns > KTIME_MAX - ctx->manual_ns ? KTIME_MAX :
		 ctx->manual_ns + delta_ns;
	ret = out(arg, now_ns);
	if (ret) {
		mutex_unlock(&ctx->lock);
		return ret;
	}
	ctx->manual_ns = now_ns;
	/* As if an hrtimer fired: the update below (or a waiter's) queues. */
	twheel_ctx_kick(ctx);
	mutex_unlock(&ctx->lock);
	twheel_ctx_lock_update(ctx, TWHEEL_UPDATE_ALL);
	twheel_ctx_unlock(ctx);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(twheel_ctx_advance);

/*
 * Caller holds the lock. The record of @t, a queued timer, in @ev; @now
 * holds per clock its present once read in this batch (@valid: which).
 */
static void twheel_ctx_record(struct twheel_ctx *ctx, struct twheel_timer *t,
			      struct twheel_event *ev, s64 *now, u8 *valid)
{
	u32 clock = twheel_timer_clock(t);

	ev->id = twheel_timer_id(t);
	ev->cookie = t->cookie;
	ev->time_ns = twheel_ctx_to_user(ctx, clock, t->rec.time_ns);
	ev->count = 1;
	ev->clock = twheel_clockids[clock];
	ev->flags = 0;
	if (twheel_timer_periodic(t)) {
		if (!(*valid & BIT(clock))) {
			now[clock] = twheel_clock_now(ctx, clock);
			*valid |= BIT(clock);
		}
		ev->count = twheel_ptimer_count(twheel_ptimer(t), now[clock]);
	}
}

/*
 * Caller holds the lock and has taken @t's record, @ev, off the queue
 * (with the others it took). Free a one-shot timer (a small one is left
 * in @bulk[*@nbulk] for the caller to free with the others); put a
 * periodic one back for its next deadline.
 */
static void twheel_ctx_consume(struct twheel_ctx *ctx, struct twheel_timer *t,
			       const struct twheel_event *ev, const s64 *now,
			       void **bulk, u32 *nbulk)
{
	struct twheel_ptimer *pt = twheel_ptimer(t);

	t->word &= ~TWHEEL_TIMER_QUEUED;
	if (!pt || !pt->period_ns) {
		if (pt) {
			twheel_timer_free(ctx, t);
			return;
		}
		twheel_timer_forget(ctx, t);
		bulk[(*nbulk)++] = t;
		return;
	}
	/* After the present: into the wheel, whose clock is not past it. */
	twheel_timer_place(ctx, t, twheel_periods_after(pt->deadline_ns,
							ev->count,
							pt->period_ns),
			   now[twheel_timer_clock(t)]);
}

/**
 * twheel_ctx_read() - hand over queued records, oldest first
 * @ctx: the context; the caller does not hold the lock
 * @max: the most records to hand over
 * @emit: called under the lock with @arg and up to TWHEEL_READ_BATCH
 *        records, in order (must not sleep); returns how many of them it
 *        took (the first ones), or a negative errno when it took none;
 *        only records it took are consumed
 * @arg: for @emit
 *
 * Advances the wheels first if an hrtimer fired, until a record is queued.
 * Hands over at most TWHEEL_CHUNK records in one call. The records are
 * gathered TWHEEL_READ_BATCH at a time on the stack, so that @emit copies
 * them out together.
 *
 * Return: the number of records handed over; 0 when none is queued; or,
 * when @emit failed on the first one, what it returned.
 */
long twheel_ctx_read(struct twheel_ctx *ctx, u64 max,
		     int (*emit)(void *arg, const struct twheel_event *ev,
				 u32 n),
		     void *arg)
{
	struct twheel_event ev[TWHEEL_READ_BATCH];
	void *bulk[TWHEEL_READ_BATCH];
	struct twheel_timer *t, *next, *last = NULL;
	s64 now[TWHEEL_NR_CLOCKS];
	struct list_head taken;
	u32 k, i, nbulk = 0;
	u8 valid = 0;
	u64 n = 0;
	int ret = 0;

	twheel_ctx_lock_update(ctx, TWHEEL_UPDATE_RECORD);
	while (n < max && n < TWHEEL_CHUNK) {
		k = 0;
		list_for_each_entry(t, &ctx->ready, rec.link) {
			if (k == TWHEEL_READ_BATCH || n + k == max ||
			    n + k == TWHEEL_CHUNK)
				break;
			twheel_ctx_record(ctx, t, &ev[k++], now, &valid);
			last = t;
		}
		if (!k)
			break;
		ret = emit(arg, ev, k);
		if (ret <= 0)
			break;
		/* The records taken leave the queue in one cut. */
		if (ret < k) {
			last = list_first_entry(&ctx->ready, struct twheel_timer,
						rec.link);
			for (i = 1; i < ret; i++)
				last = list_next_entry(last, rec.link);
		}
		list_cut_position(&taken, &ctx->ready, &last->rec.link);
		WRITE_ONCE(ctx->nr_queued, ctx->nr_queued - ret);
		i = 0;
		list_for_each_entry_safe(t, next, &taken, rec.link)
			twheel_ctx_consume(ctx, t, &ev[i++], now, bulk, &nbulk);
		n += ret;
		if (nbulk) {
			kmem_cache_free_bulk(twheel_timer_cache, nbulk, bulk);
			nbulk = 0;
		}
		if (ret < k)
			break;
	}
	twheel_stat_add(read, n);
	twheel_ctx_unlock(ctx);
	return n ? n : ret;
}
EXPORT_SYMBOL_IF_KUNIT(twheel_ctx_read);

/**
 * twheel_ctx_info() - describe the context
 * @ctx: the context; the caller does not hold the lock
 * @info: its per-fd fields set (tick_ns, max_timers, timers, queued,
 *        config_flags); the others are left alone
 *
 * Advances the wheels first if an hrtimer fired, so the counts are
 * current.
 */
void twheel_ctx_info(struct twheel_ctx *ctx, struct twheel_info *info)
{
	twheel_ctx_lock_update(ctx, TWHEEL_UPDATE_ALL);
	info->tick_ns = ctx->tick_ns;
	info->max_timers = ctx->max_timers;
	info->timers = ctx->nr_timers;
	info->queued = ctx->nr_queued;
	info->config_flags = ctx->manual ? TWHEEL_CONFIG_MANUAL : 0;
	twheel_ctx_unlock(ctx);
}
EXPORT_SYMBOL_IF_KUNIT(twheel_ctx_info);

/**
 * twheel_ctx_show() - the context as "key:\tvalue" lines, for fdinfo
 * @ctx: the context; the caller does not hold the lock
 * @m: where to print
 *
 * Only looks: it advances no wheel and queues no record (a reader, root
 * running lsof say, must not do the owner's work nor change what the
 * owner reads), so timers that fell due since the fd was last used count
 * as pending until then. Its cost is bounded: one hold of the lock and
 * O(clocks) work. next_expiry_<clock>_ns is when that clock's wheel has
 * its next event (a cascade or an expiry), in the opener's time
 * namespace: never after the earliest deadline's tick on that clock; on
 * a real clock, when its hrtimer fires. index_bytes is the memory of the
 * id table, slots its slots. trace_id names the context in trace events.
 * manual_now_ns is the manual clock's time. uid, user_fds and
 * user_timers: the user the fd is charged to (in the reader's user
 * namespace), their open fds and timer slots over all of them.
 */
void twheel_ctx_show(struct twheel_ctx *ctx, struct seq_file *m)
{
	u64 fds, slots;
	kuid_t uid;
	int i;

	mutex_lock(&ctx->lock);
	seq_printf(m, "tick_ns:\t%llu\n", ctx->tick_ns);
	seq_printf(m, "timers:\t%llu\n", ctx->nr_timers);
	seq_printf(m, "pending:\t%llu\n", ctx->nr_timers - ctx->nr_queued);
	seq_printf(m, "queued:\t%llu\n", ctx->nr_queued);
	seq_printf(m, "max_timers:\t%llu\n", ctx->max_timers);
	seq_printf(m, "index_bytes:\t%zu\n", twheel_ids_bytes(&ctx->ids));
	seq_printf(m, "slots:\t%u\n", ctx->ids.nr_slots);
	seq_printf(m, "trace_id:\t%llu\n", ctx->trace_id);
	if (ctx->manual)
		seq_printf(m, "manual_now_ns:\t%lld\n", ctx->manual_ns);
	for (i = 0; i < TWHEEL_NR_CLOCKS; i++) {
		struct twheel_base *base = ctx->bases[i];

		if (!base || twheel_wheel_empty(&base->wheel))
			continue;
		seq_printf(m, "next_expiry_%s_ns:\t%lld\n", twheel_clock_names[i],
			   twheel_ctx_to_user(ctx, i,
					      twheel_tick_ns(twheel_wheel_next(&base->wheel),
							     ctx->tick_ns)));
	}
	mutex_unlock(&ctx->lock);
	if (ctx->user) {
		twheel_user_usage(ctx->user, &uid, &fds, &slots);
		seq_printf(m, "uid:\t%u\n",
			   from_kuid_munged(seq_user_ns(m), uid));
		seq_printf(m, "user_fds:\t%llu\n", fds);
		seq_printf(m, "user_timers:\t%llu\n", slots);
	}
}
EXPORT_SYMBOL_IF_KUNIT(twheel_ctx_show);

#if IS_ENABLED(CONFIG_KUNIT)
/**
 * twheel_ctx_update_at() - bring one clock's wheel up to a given time
 * @ctx: the context; the caller holds the lock
 * @clk: the clock's enum twheel_clk, in use by @ctx
 * @now_ns: kernel time on that clock to advance to
 *
 * For tests that must not depend on the machine's speed: the records of
 * every timer due by @now_ns are queued, in order, whatever the real
 * clock says.
 */
void twheel_ctx_update_at(struct twheel_ctx *ctx, u32 clk, s64 now_ns)
{
	u64 budget = U64_MAX;

	lockdep_assert_held(&ctx->lock);
	twheel_base_update(ctx->bases[clk], now_ns, &budget, true);
}
EXPORT_SYMBOL_IF_KUNIT(twheel_ctx_update_at);
#endif

/**
 * twheel_ctx_cache_init() - create the slab caches of timers, contexts
 *                           and clock bases
 *
 * Return: 0 or -ENOMEM.
 */
int twheel_ctx_cache_init(void)
{
	/* The record reuses the wheel's list node: same offset. */
	BUILD_BUG_ON(offsetof(struct twheel_timer, rec.link) !=
		     offsetof(struct twheel_timer, entry.node));
	BUILD_BUG_ON(sizeof(struct twheel_timer) > 40);
	BUILD_BUG_ON(sizeof(struct twheel_ptimer) > 56);
	/* The state, the clock and the size live in bits ids leave free. */
	BUILD_BUG_ON((TWHEEL_TIMER_QUEUED | TWHEEL_TIMER_CLOCK_MASK |
		      TWHEEL_TIMER_BIG) & ~TWHEEL_IDS_FREE_BITS);
	BUILD_BUG_ON(TWHEEL_NR_CLOCKS > 4);

	/*
	 * Caches of their own, never merged with another cache of the same
	 * size (see twheel_cache_create()): /proc/slabinfo and slabtop show
	 * twheel's timers by name, and a stray write in another subsystem's
	 * objects cannot land in a timer. The cost: partly used slabs are
	 * not shared with other caches (a few pages per CPU at most).
	 */
	twheel_timer_cache =
		twheel_cache_create("twheel_timer", sizeof(struct twheel_timer),
				    offsetof(struct twheel_timer, cookie));
	if (!twheel_timer_cache)
		return -ENOMEM;
	twheel_ptimer_cache =
		twheel_cache_create("twheel_ptimer",
				    sizeof(struct twheel_ptimer),
				    offsetof(struct twheel_ptimer, t.cookie));
	if (!twheel_ptimer_cache)
		goto err_timer;
	/*
	 * An fd's state and its clock bases are a few hundred bytes each:
	 * caches of their exact size (kmalloc would round them up to 512),
	 * so that an fd with a few timers stays under 4 KiB. Their usercopy
	 * regions (before 6.5, what keeps them apart) are a trace id and a
	 * tick, never copied. A wheel level is 512 bytes: kmalloc's size.
	 */
	twheel_ctx_cache =
		twheel_cache_create("twheel_ctx", sizeof(struct twheel_ctx),
				    offsetof(struct twheel_ctx, trace_id));
	if (!twheel_ctx_cache)
		goto err_ptimer;
	twheel_base_cache =
		twheel_cache_create("twheel_base", sizeof(struct twheel_base),
				    offsetof(struct twheel_base, armed));
	if (!twheel_base_cache)
		goto err_ctx;
	return 0;

err_ctx:
	kmem_cache_destroy(twheel_ctx_cache);
err_ptimer:
	kmem_cache_destroy(twheel_ptimer_cache);
err_timer:
	kmem_cache_destroy(twheel_timer_cache);
	return -ENOMEM;
}

/**
 * twheel_ctx_cache_exit() - destroy the slab caches
 *
 * Every context is destroyed by then (the module cannot unload while a
 * file is open), so the cache is empty.
 */
void twheel_ctx_cache_exit(void)
{
	kmem_cache_destroy(twheel_base_cache);
	kmem_cache_destroy(twheel_ctx_cache);
	kmem_cache_destroy(twheel_ptimer_cache);
	kmem_cache_destroy(twheel_timer_cache);
}
