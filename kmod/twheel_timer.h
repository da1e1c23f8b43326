/* SPDX-License-Identifier: GPL-2.0 */
/*
 * twheel_timer.h - the timers of one timer set and the operations on
 * them: add, modify, cancel, query; their records; the periodic
 * arithmetic; the memory of a batch.
 *
 * The layer between the set (twheel_ctx.h), which owns the lock, and the
 * clock bases (twheel_base.h). Its state, struct twheel_timers, is
 * embedded in the set's struct twheel_ctx; every function here is called
 * with the set's lock held (but the slab caches' and twheel_mem_*()) and
 * calls nothing of the set: what the set must do after it (wake its
 * readers at unlock) is left in need_wake.
 */
#ifndef _TWHEEL_TIMER_H
#define _TWHEEL_TIMER_H

#include <asm/barrier.h>
#include <linux/bits.h>
#include <linux/container_of.h>
#include <linux/list.h>
#include <linux/types.h>

#include <linux/twheel.h>

#include "twheel_base.h"
#include "twheel_ids.h"
#include "twheel_table.h"
#include "twheel_wheel.h"

struct twheel_user;

/*
 * The most work one hold of the set's lock does: entries moved in a wheel
 * (a cascade or a hand-back), entries re-added after the wall clock was
 * set back, records copied out, id slots looked at by a listing, or
 * timers freed at close. Between two chunks the lock is released and the
 * task may be rescheduled.
 */
#define TWHEEL_CHUNK		256

/*
 * The most records twheel_timers_peek() and twheel_timers_take() handle
 * at once: gathered on the reader's stack, copied out together.
 */
#define TWHEEL_READ_BATCH	8

/*
 * The most freed one-shot timers a set keeps for its next adds (40 KiB):
 * a churn of adds and cancels, or of adds and reads, then goes without
 * the slab allocator. They are kept only while the set has a free id
 * slot for each (see twheel_timer_spare_put()), so that what one slot
 * can hold stays within TWHEEL_TIMER_MAX_BYTES.
 */
#define TWHEEL_SPARE_MAX	1024

/* The most operations twheel_mem_alloc() serves at once. */
#define TWHEEL_MEM_OPS		32

/**
 * struct twheel_timer - one timer
 * @entry: while pending: its place in the wheel
 * @rec: while queued: its record
 * @rec.link: in timers->ready (the same list_head as @entry.node)
 * @rec.time_ns: when the record was queued, on the timer's clock (kernel
 *               time, not the namespace's)
 * @word: the id (key of timers->ids), with the state, the clock and the
 *        size kept in bits ids leave free (TWHEEL_IDS_FREE_BITS)
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
 * @period_ns: its period, one tick to TWHEEL_MAX_PERIOD_NS; 0 for one-shot
 * @missed: what its records do with missed deadlines: TWHEEL_MISSED_*
 *          >> TWHEEL_MISSED_SHIFT
 */
struct twheel_ptimer {
	struct twheel_timer t;
	s64 deadline_ns;
	u64 period_ns : 62;
	u64 missed : 2;
};

/* The longest period, 2^62 - 1 ns (146 years): what @period_ns holds. */
#define TWHEEL_MAX_PERIOD_NS	((1ULL << 62) - 1)
#define TWHEEL_MISSED_SHIFT	2

#define TWHEEL_TIMER_QUEUED	BIT_ULL(31)	/* else pending */
#define TWHEEL_TIMER_CLOCK_SHIFT	32
#define TWHEEL_TIMER_CLOCK_MASK	(7ULL << TWHEEL_TIMER_CLOCK_SHIFT)
#define TWHEEL_TIMER_BIG	BIT_ULL(35)	/* a struct twheel_ptimer */
#define TWHEEL_TIMER_COS	BIT_ULL(36)	/* TWHEEL_CANCEL_ON_SET */
#define TWHEEL_TIMER_SET	BIT_ULL(37)	/* queued: ended by a clock set */

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

/* Queued as the record of a wall clock set, not of an expiry? */
static inline bool twheel_timer_set_rec(const struct twheel_timer *t)
{
	return t->word & TWHEEL_TIMER_SET;
}

static inline struct twheel_ptimer *twheel_ptimer(struct twheel_timer *t)
{
	return t->word & TWHEEL_TIMER_BIG ?
	       container_of(t, struct twheel_ptimer, t) : NULL;
}

/**
 * struct twheel_timers - the timers of one set
 * @clocks: their clock bases
 * @ids: id -> struct twheel_timer, for every live timer
 * @ready: expired timers whose records are unread, oldest first
 * @user: the user the set is charged to (its opener), or NULL
 * @nr_timers: live timers: pending plus queued
 * @nr_queued: records on @ready; read without the lock by poll
 * @max_timers: the most live timers allowed
 * @now_ns: per clock, its present as read once in this hold of the lock
 * @now_valid: bit per clock: @now_ns is valid (cleared at each lock)
 * @need_wake: records were queued under the lock, with no hrtimer callback
 *             having woken the waiters for them; the set wakes at unlock
 * @used: a timer was created: the configuration is fixed
 * @spare: freed one-shot timers kept for the next adds, linked through
 *         their entry.node.next (twheel_timer_spare_get() and _put())
 * @nr_spare: their number, at most TWHEEL_SPARE_MAX; read without the
 *            lock by twheel_mem_alloc()
 * @table: the shared timer table, if the set has one
 * @table_cancelled: the timers ended because their table entry said
 *                   TWHEEL_TABLE_CANCELLED when their deadline tick came
 *                   due (twheel_timers_entries()), since the set was made
 * @sets: how it acts on wall clock sets, once it does (it has or had a
 *        timer with TWHEEL_CANCEL_ON_SET, or TWHEEL_CONFIG_CLOCK_SET on a
 *        real clock); NULL before
 * @set_records: TWHEEL_CONFIG_CLOCK_SET
 */
struct twheel_timers {
	struct twheel_clocks clocks;
	struct twheel_ids ids;
	struct list_head ready;
	struct twheel_user *user;
	u64 nr_timers;
	u64 nr_queued;
	u64 max_timers;
	s64 now_ns[TWHEEL_NR_CLOCKS];
	u8 now_valid;
	bool need_wake;
	bool used;
	struct twheel_timer *spare;
	u32 nr_spare;
	struct twheel_table table;
	u64 table_cancelled;
	struct twheel_sets *sets;
	bool set_records;
};

/**
 * struct twheel_sets - how a set of timers acts on wall clock sets
 * @rec: the record of sets (TWHEEL_CONFIG_CLOCK_SET), id 0, in the set's
 *       ready queue while queued
 * @count: the sets @rec stands for
 * @seen: the twheel_clock_set_seq() whose sets are done
 * @target: while @walk, the one the walk is doing
 * @slot: while @walk, the next id slot it looks at
 * @walk: a walk over the slots, ending the timers a set cancels, is under
 *        way
 */
struct twheel_sets {
	struct twheel_timer rec;
	u64 count;
	u32 seen;
	u32 target;
	u32 slot;
	bool walk;
};

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

void twheel_timers_init(struct twheel_timers *tm, struct twheel_user *user,
			u64 max_timers, u64 tick_ns, u64 trace_id);
void twheel_timers_destroy(struct twheel_timers *tm);
bool twheel_timers_update(struct twheel_timers *tm, u64 *budget);
int __twheel_timers_present(struct twheel_timers *tm, u32 clock, s64 *now_ns);

/**
 * twheel_timers_present() - bring one clock's wheel up to its present
 * @tm: the timers
 * @clock: the enum twheel_clk; its base is created if need be
 * @now_ns: set to the present (kernel time)
 *
 * Inline for the operations of a batch after the first, which share the
 * present read once per hold of the lock; see __twheel_timers_present().
 *
 * Return: 0, -EAGAIN or -ENOMEM (see __twheel_timers_present()).
 */
static inline int twheel_timers_present(struct twheel_timers *tm, u32 clock,
					s64 *now_ns)
{
	if (likely(tm->now_valid & BIT(clock))) {
		*now_ns = tm->now_ns[clock];
		return 0;
	}
	return __twheel_timers_present(tm, clock, now_ns);
}

#if IS_ENABLED(CONFIG_KUNIT)
void twheel_timers_update_at(struct twheel_timers *tm, u32 clk, s64 now_ns);
#endif

/**
 * twheel_timer_find() - a live timer by id
 * @tm: the timers
 * @id: its id
 *
 * Return: the timer, or NULL.
 */
static inline struct twheel_timer *twheel_timer_find(struct twheel_timers *tm,
						     u64 id)
{
	struct twheel_timer *t = twheel_ids_find(&tm->ids, id);

	return t && twheel_timer_id(t) == id ? t : NULL;
}

/* Within the timers' layer (twheel_timer.c, twheel_update.c). */
void twheel_timer_release(struct twheel_timer *t);
bool twheel_timer_spare_put(struct twheel_timers *tm, struct twheel_timer *t);
void twheel_timer_forget(struct twheel_timers *tm, struct twheel_timer *t);
void twheel_trace_expire(struct twheel_timers *tm, struct twheel_timer *t,
			 s64 deadline_ns, s64 now_ns);
void twheel_timers_queue(struct twheel_timers *tm, struct list_head *recs,
			 u64 n, bool wake);

s64 twheel_timer_entry_deadline(struct twheel_timers *tm, u32 clock, u64 v,
				s64 now_ns);
void twheel_timer_unlink(struct twheel_timers *tm, struct twheel_timer *t);
void twheel_timer_cancel(struct twheel_timers *tm, struct twheel_timer *t);
void twheel_timer_place(struct twheel_timers *tm, struct twheel_timer *t,
			s64 deadline, s64 now_ns);
void twheel_timer_move(struct twheel_timers *tm, struct twheel_timer *t,
		       s64 deadline, s64 now_ns);
void twheel_timer_status(struct twheel_timers *tm, struct twheel_timer *t,
			 struct twheel_status *st);
void twheel_timer_publish(struct twheel_timers *tm, struct twheel_timer *t,
			  s64 deadline);
bool __twheel_timers_set_pending(struct twheel_timers *tm,
				 const struct twheel_sets *sets);

/**
 * twheel_timers_set_pending() - is a wall clock set still to be acted on?
 * @tm: the timers
 *
 * Lockless (for twheel_ctx_fired()); under the set's lock, exact: an
 * operation that depends on the sets done asks this first. Inline: most
 * sets watch no clock set, and every operation asks.
 *
 * Return: true when the wall clock was set since the set last acted on
 * it, or while it is acting on it.
 */
static inline bool twheel_timers_set_pending(struct twheel_timers *tm)
{
	/* Pairs with the release that publishes it. */
	const struct twheel_sets *sets = smp_load_acquire(&tm->sets);

	return sets && __twheel_timers_set_pending(tm, sets);
}

int twheel_timers_watch_sets(struct twheel_timers *tm, bool records);
void twheel_timers_drop_set_rec(struct twheel_timers *tm);
u32 twheel_timers_peek(struct twheel_timers *tm, struct twheel_event *ev,
		       u32 n, s64 *now, u8 *valid, const s64 *until,
		       u8 until_valid);
void twheel_timers_take(struct twheel_timers *tm, u32 n, const s64 *now);
s64 twheel_periods_after(s64 d, u64 n, u64 p);

struct twheel_timer *twheel_timer_spare_get(struct twheel_timers *tm);
void __twheel_mem_spare(struct twheel_timers *tm, struct twheel_mem *mem,
			u32 nr);
void __twheel_mem_alloc(struct twheel_mem *mem, const struct twheel_op *ops,
			u32 nr, u32 spare);
void __twheel_mem_free(struct twheel_mem *mem, u32 nr);

/*
 * One operation that holds no memory (its own ioctl's common case: a
 * MODIFY or a CANCEL that failed, a QUERY) costs the calls below nothing.
 */
static inline bool twheel_mem_none(const struct twheel_mem *mem, u32 nr)
{
	return nr == 1 && !mem->obj;
}

/**
 * twheel_mem_alloc() - the memory of a batch, before the lock is taken
 * @mem: set, one per operation
 * @ops: the operations
 * @nr: their number, at most TWHEEL_MEM_OPS
 * @spare: how many small timers the set keeps (read without its lock)
 *
 * See __twheel_mem_alloc(); one operation that is no add and has no
 * period needs none.
 */
static inline void twheel_mem_alloc(struct twheel_mem *mem,
				    const struct twheel_op *ops, u32 nr,
				    u32 spare)
{
	if (nr == 1 && ops->op != TWHEEL_OP_ADD && !ops->period_ns) {
		mem->obj = NULL;
		mem->big = false;
		return;
	}
	__twheel_mem_alloc(mem, ops, nr, spare);
}

/**
 * twheel_mem_spare() - keep what the operations of a batch left, if small
 * @tm: the timers; the caller holds the set's lock
 * @mem: their memory; what is kept is taken out of it
 * @nr: their number
 */
static inline void twheel_mem_spare(struct twheel_timers *tm,
				    struct twheel_mem *mem, u32 nr)
{
	if (!twheel_mem_none(mem, nr))
		__twheel_mem_spare(tm, mem, nr);
}

/**
 * twheel_mem_free() - free what the operations of a batch left
 * @mem: their memory
 * @nr: their number
 */
static inline void twheel_mem_free(struct twheel_mem *mem, u32 nr)
{
	if (!twheel_mem_none(mem, nr))
		__twheel_mem_free(mem, nr);
}

void twheel_timers_spare_free(struct twheel_timers *tm);
void twheel_timers_free_bulk(size_t n, void **objs);

/**
 * struct twheel_modify_ctl - a TWHEEL_OP_MODIFY between its check and its
 *                            application
 * @t: the timer
 * @now_ns: the present of its clock (kernel time)
 * @deadline: its new deadline (kernel time)
 */
struct twheel_modify_ctl {
	struct twheel_timer *t;
	s64 now_ns;
	s64 deadline;
};

int twheel_timers_modify_check(struct twheel_timers *tm, struct twheel_op *op,
			       void *obj, bool alone,
			       struct twheel_modify_ctl *mc);
void twheel_timers_modify_apply(struct twheel_timers *tm,
				const struct twheel_op *op, struct twheel_mem *m,
				const struct twheel_modify_ctl *mc);
int twheel_timers_op(struct twheel_timers *tm, struct twheel_op *op,
		     struct twheel_mem *m, u32 i,
		     int (*out)(void *arg, u32 i, const struct twheel_op *op),
		     void *arg);

int twheel_timer_cache_init(void);
void twheel_timer_cache_exit(void);

#endif /* _TWHEEL_TIMER_H */
