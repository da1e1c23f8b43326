/* SPDX-License-Identifier: GPL-2.0 */
/*
 * twheel_wheel.h - the hierarchical timing wheel, as a pure data structure.
 *
 * The wheel knows nothing of files, locks, clocks or memory: the caller
 * embeds a struct twheel_entry in its own object, serialises all calls on
 * one wheel, and passes "now" in as a tick number. The same source builds
 * in the kernel and as ordinary userspace C (see tests/wheel/).
 *
 * Layout: TWHEEL_LEVELS levels of TWHEEL_SLOTS slots. Level L slot s holds
 * the entries whose deadline agrees with the wheel's clock on every bit
 * above level L and has digit s at level L (digit = 6 bits). With 6-bit
 * digits, 11 levels cover all 64 bits of a tick, so every deadline that
 * fits in a u64 is held exactly: there is no horizon, no clamping and no
 * overflow list.
 *
 * Invariant: every entry sits where its deadline places it relative to the
 * current clock. All entries sharing a deadline therefore share one slot,
 * in insertion order, and every occupied slot lies strictly in the future
 * of the clock at its level (so the bitmaps never wrap).
 *
 * Bounded work: twheel_wheel_advance_some() does at most a given number of
 * entry moves and may stop in the middle of a slot; the wheel then holds
 * that slot's remaining entries on its cascade list and stays correct for
 * every other call, so a caller can drop its lock between two chunks.
 *
 * Memory grows with use: a level's 64 slot heads (struct twheel_level,
 * 512 bytes) exist only while the caller has given them. The wheel never
 * allocates; it says which level it lacks. Before twheel_wheel_add() the
 * caller gives the level twheel_wheel_level_needed() names; an advance
 * that would move an entry into a missing level stops there (as for its
 * budget) and twheel_wheel_level_missing() names it. Levels left empty
 * are taken back with twheel_wheel_take_empty_level().
 */
#ifndef _TWHEEL_WHEEL_H
#define _TWHEEL_WHEEL_H

#ifdef __KERNEL__
#include <linux/bitops.h>
#include <linux/limits.h>
#include <linux/list.h>
#include <linux/types.h>
#else
#include "twheel_shim.h"
#endif

#define TWHEEL_LVL_BITS		6
#define TWHEEL_SLOTS		64	/* 2^TWHEEL_LVL_BITS */
#define TWHEEL_SLOT_MASK	(TWHEEL_SLOTS - 1)
/* Enough levels for every bit of a u64 tick: DIV_ROUND_UP(64, 6). */
#define TWHEEL_LEVELS		11

/*
 * Returned by twheel_wheel_next() when the wheel holds nothing. U64_MAX is
 * also a tick like any other (a deadline of U64_MAX, or entries due with
 * the clock at U64_MAX), so tell "never" apart with twheel_wheel_empty().
 */
#define TWHEEL_NEVER		U64_MAX

/**
 * struct twheel_entry - the wheel's part of a caller-owned timer object
 * @node: link in a slot (a ring without a list head: the slot points at
 *        its first entry), in the due or cascade list, or (after hand-back)
 *        in the caller's list
 * @expires: the deadline, in ticks
 *
 * 24 bytes. The wheel reads and writes it only between twheel_wheel_add()
 * and the moment it is removed or handed back; after that the caller owns
 * the storage again and may reuse it (for example to queue the object
 * elsewhere) until the next twheel_wheel_add().
 */
struct twheel_entry {
	struct list_head node;
	u64 expires;
};

/**
 * struct twheel_level - the slots of one level
 * @slot: per slot, its first entry's node (the entries form a ring through
 *        their nodes, oldest first), or NULL when the slot is empty
 *
 * Given by the caller zeroed (every slot empty), and owned by the wheel
 * until taken back.
 */
struct twheel_level {
	struct list_head *slot[TWHEEL_SLOTS];
};

/**
 * struct twheel_wheel - a hierarchical timing wheel
 * @clk: the wheel's current tick; only moves forward, by an advance
 * @count: number of entries held (in slots, due, cascading or parked)
 * @due: entries added with a deadline at or before @clk, in insertion
 *       order; handed back by the next advance
 * @cascade: while an advance is unfinished: the entries of the slot being
 *           cascaded (its event tick is @clk) not yet moved, in order
 * @parked: entries handed back and set aside by the caller
 *          (twheel_wheel_park()): still held and counted, in no slot, no
 *          event of the wheel's; twheel_wheel_take_parked() takes them
 * @casc_shift: while @cascade is not empty: 6 * that slot's level; an
 *              entry belongs to it iff (expires >> @casc_shift) equals
 *              (@clk >> @casc_shift)
 * @pending: per level, bit s set iff slot s of that level is non-empty
 * @lvl: per level, its slots, or NULL while the caller has not given them
 *       (a level without slots holds no entry: its @pending is 0)
 */
struct twheel_wheel {
	u64 clk;
	u64 count;
	struct list_head due;
	struct list_head cascade;
	struct list_head parked;
	unsigned int casc_shift;
	u64 pending[TWHEEL_LEVELS];
	struct twheel_level *lvl[TWHEEL_LEVELS];
};

void twheel_wheel_init(struct twheel_wheel *w, u64 now);
void twheel_wheel_add(struct twheel_wheel *w, struct twheel_entry *e,
		      u64 expires);
void twheel_wheel_remove(struct twheel_wheel *w, struct twheel_entry *e);
/**
 * struct twheel_rekey - the caller's say on the entries an advance cascades
 * @fn: called with @rk and the entry at the head of a cascade, about to
 *      move to a lower level (its deadline is after the wheel's clock);
 *      returns the deadline to place it by: its own or a later one (an
 *      earlier one, or one in a level the wheel lacks, counts as its
 *      own). It must not change the wheel.
 * @lacked: bit L set by the advance for a later deadline @fn returned
 *      that needed level L, which the wheel lacks (the entry went by its
 *      own deadline); the caller's to clear
 *
 * Embedded in the caller's own state, which @fn finds by container_of().
 */
struct twheel_rekey {
	u64 (*fn)(struct twheel_rekey *rk, struct twheel_entry *e);
	u32 lacked;
};

u64 twheel_wheel_advance_some(struct twheel_wheel *w, u64 now,
			      struct list_head *expired, u64 *budget,
			      struct twheel_rekey *rk);
void twheel_wheel_unhand(struct twheel_wheel *w, struct list_head *list,
			 u64 n);
bool twheel_wheel_behind(const struct twheel_wheel *w, u64 now);
u64 twheel_wheel_next(const struct twheel_wheel *w);
bool twheel_wheel_forward(struct twheel_wheel *w, u64 now, u64 *next);
struct twheel_entry *twheel_wheel_expires(const struct twheel_wheel *w,
					  u64 now);
bool twheel_wheel_idle(const struct twheel_wheel *w);
bool twheel_wheel_holds(const struct twheel_wheel *w, u64 expires);
u64 twheel_wheel_take_all(struct twheel_wheel *w, u64 now,
			  struct list_head *all);
void twheel_wheel_park(struct twheel_wheel *w, struct twheel_entry *e);
u64 twheel_wheel_take_parked(struct twheel_wheel *w, struct list_head *list);
struct twheel_level *twheel_wheel_take_empty_level(struct twheel_wheel *w,
						   bool top);

/* The level of an entry of deadline @expires, after clock @clk. */
static inline unsigned int twheel_level(u64 expires, u64 clk)
{
	return (fls64(expires ^ clk) - 1) / TWHEEL_LVL_BITS;
}

/* Does @expires belong to the slot being cascaded (see twheel_wheel.c)? */
static inline bool twheel_in_cascade(const struct twheel_wheel *w, u64 expires)
{
	return !list_empty(&w->cascade) && expires > w->clk &&
	       (expires >> w->casc_shift) == (w->clk >> w->casc_shift);
}

/**
 * twheel_wheel_level_needed() - the level an add would need and lacks
 * @w: the wheel
 * @expires: the deadline of an entry about to be added
 *
 * O(1), inline: every add asks it.
 *
 * Return: the level twheel_wheel_add(@w, ..., @expires) would put the
 * entry in, when the wheel lacks it; -1 when the add needs no level it
 * lacks (the level exists, or the entry goes to the due or cascade list).
 */
static inline int twheel_wheel_level_needed(const struct twheel_wheel *w,
					    u64 expires)
{
	unsigned int lvl;

	if (expires <= w->clk || twheel_in_cascade(w, expires))
		return -1;
	lvl = twheel_level(expires, w->clk);
	return w->lvl[lvl] ? -1 : (int)lvl;
}

/**
 * twheel_wheel_level_missing() - the level an unfinished advance waits for
 * @w: the wheel
 *
 * O(1), inline: only the next entry to cascade can be waiting.
 *
 * Return: the level the next entry of an unfinished cascade goes to, when
 * the wheel lacks it; -1 otherwise.
 */
static inline int twheel_wheel_level_missing(const struct twheel_wheel *w)
{
	const struct twheel_entry *e;
	unsigned int lvl;

	if (list_empty(&w->cascade))
		return -1;
	e = list_first_entry(&w->cascade, struct twheel_entry, node);
	if (e->expires == w->clk)
		return -1;
	lvl = twheel_level(e->expires, w->clk);
	return w->lvl[lvl] ? -1 : (int)lvl;
}

/**
 * twheel_wheel_advance() - advance all the way to @now
 * @w: the wheel
 * @now: the current tick
 * @expired: the caller's list; entries handed back are appended to it
 *
 * twheel_wheel_advance_some() without a bound on the entries moved:
 * afterwards the wheel is not behind @now, unless it stopped for a level
 * it lacks (twheel_wheel_level_missing()). Its cost follows the entries
 * handed back and moved.
 *
 * Return: the number of entries appended to @expired.
 */
static inline u64 twheel_wheel_advance(struct twheel_wheel *w, u64 now,
				       struct list_head *expired)
{
	u64 budget = U64_MAX;

	return twheel_wheel_advance_some(w, now, expired, &budget, NULL);
}

/**
 * twheel_wheel_empty() - does the wheel hold no entry?
 * @w: the wheel
 *
 * Return: true when no entry is held (neither in a slot, nor due, nor
 * parked).
 */
static inline bool twheel_wheel_empty(const struct twheel_wheel *w)
{
	return w->count == 0;
}

/**
 * twheel_wheel_give_level() - give the wheel the slots of a level it lacks
 * @w: the wheel
 * @lvl: the level, below TWHEEL_LEVELS, which the wheel lacks
 * @l: its slots, zeroed (all empty); the wheel owns them until
 *     twheel_wheel_take_empty_level() hands them back
 */
static inline void twheel_wheel_give_level(struct twheel_wheel *w,
					   unsigned int lvl,
					   struct twheel_level *l)
{
	w->lvl[lvl] = l;
}

#endif /* _TWHEEL_WHEEL_H */
