/* SPDX-License-Identifier: GPL-2.0 */
/*
 * wheel_ref.h - reference model, differential driver and directed cases
 * for the twheel wheel core.
 *
 * Header-only and written in the C common to the kernel and userspace, so
 * that one source serves the KUnit suite (tests/kunit/), the native test
 * (wheel_test.c) and the libFuzzer target (wheel_fuzz.c).
 *
 * The reference model is deliberately plain: the live entries' ids in an
 * array sorted by (effective deadline, insertion sequence), where the
 * effective deadline is max(expires, clock at add): an entry added at or
 * before the clock is due at once, and comes back ahead of everything
 * else, in insertion order. An advance to @now hands back, in array order,
 * exactly the prefix whose effective deadline is <= max(clock, @now); the
 * driver checks every entry the wheel hands back against that prefix: the
 * same entries, in the same order, in the same call (so at the same tick),
 * none missing and none extra. It also checks twheel_wheel_next() exactly
 * (see wref_check_next()), the count, and, now and then, the wheel's
 * internal layout (wref_check_layout()); after every add and remove, the
 * one slot the deadline names (wref_check_slot_of()), and after every
 * advance, every slot's bit against its pointer (wref_check_bits()).
 *
 * Levels. The wheel never allocates: the driver is its caller, and gives
 * it each level (struct twheel_level, zeroed) when asked: before an add,
 * the level twheel_wheel_level_needed() names (wref_add()); when an advance
 * stops with budget left, the level twheel_wheel_level_missing() names,
 * and the advance goes on with what is left of the same budget
 * (wref_advance_some()). Both answers are checked against an independent
 * computation. After advances the driver takes empty levels back with
 * twheel_wheel_take_empty_level() and frees them (none, one or all: see
 * wref_churn()), so that levels come and go; in random runs an advance
 * stopped for a level is at times left waiting for it while other
 * operations go on, as one stopped by its budget is. The model knows
 * nothing of levels: whatever levels come and go, the wheel must hand back
 * exactly what and when the model says.
 *
 * Parking. In random runs the driver, as a caller that cannot finish some
 * of what an advance handed back, parks a random subset of it with
 * twheel_wheel_park() (wref_park()). The model keeps a parked entry live
 * but out of ord[], in park[], in parking order: it is counted and
 * removable (wref_remove()), but never due, so next() must not see it and
 * no advance may hand it back; twheel_wheel_idle() must be true exactly
 * when every live entry is parked. twheel_wheel_take_parked()
 * (wref_take_parked()) must give back exactly park[], in order, and
 * twheel_wheel_take_all() must list the parked entries last, in order.
 *
 * Re-keying. In random runs the driver answers the cascades' questions
 * (struct twheel_rekey, wref_rekey()): now and then with a later deadline,
 * close (often still in the slot being cascaded) or far, now and then
 * with an earlier one or one in a level the wheel lacks, which must change
 * nothing. The model takes a later one as a remove and an add at that
 * moment: behind every entry of the new deadline, those still on the
 * cascade list too; the hand-backs of an advance are compared with the
 * model as it stands after it.
 *
 * Randomness comes from a seeded PRNG or, for the fuzzer, from the fuzz
 * input itself, so both explore operation sequences through the same
 * generators.
 */
#ifndef _TWHEEL_WHEEL_REF_H
#define _TWHEEL_WHEEL_REF_H

#ifdef __KERNEL__
#include <linux/kernel.h>
#include <linux/mm.h>
#include <linux/stdarg.h>
#include <linux/slab.h>
#include <linux/string.h>
#define WREF_ZALLOC(sz)		kvzalloc(sz, GFP_KERNEL)
#define WREF_FREE(p)		kvfree(p)
#else
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#define WREF_ZALLOC(sz)		calloc(1, sz)
#define WREF_FREE(p)		free(p)
#endif

#include "twheel_wheel.h"

#define WREF_T12		1000000000000ULL	/* 10^12 ticks */

/* One caller object: the wheel's entry plus what the model knows. */
struct wref_obj {
	struct twheel_entry ent;
	u64 expires;		/* the deadline asked for */
	u64 eff;		/* max(expires, clock at add) */
	u64 seq;		/* insertion sequence number */
	u32 pos;		/* scratch: position in a take_all list or in
				 * its list or ring (wref_check_layout()) */
	u32 tag;		/* scratch: WREF_TAG_* or WREF_TAG_SLOT + ring */
	u64 mark;		/* scratch: the layout check that last saw it */
	u64 handed;		/* the epoch (wref.epoch) of the advance that
				 * handed it back, 0 once added or parked */
	u64 rekeyed;		/* the epoch it was last re-keyed in */
	bool live;		/* held by the wheel: in ord[] or park[] */
	bool parked;		/* live, parked: in park[], not in ord[] */
};

/* Where wref_check_layout() found an entry (wref_obj.tag). */
#define WREF_TAG_DUE		0
#define WREF_TAG_CASCADE	1
#define WREF_TAG_PARKED		2
#define WREF_TAG_SLOT		3	/* + lvl * TWHEEL_SLOTS + slot */

/* When the driver takes empty levels back (wref_churn()). */
enum {
	WREF_CHURN_NONE,	/* never (but at a restart, all) */
	WREF_CHURN_ALL,		/* after every advance, every empty level */
	WREF_CHURN_RANDOM,	/* after an advance: none, one or all */
};

/* What the driver does when an advance stops for a missing level. */
enum {
	WREF_GIVE_ALWAYS,	/* give it, and the advance goes on */
	WREF_GIVE_RANDOM,	/* mostly so; at times leave it waiting */
	WREF_GIVE_NEVER,	/* leave it waiting (directed cases give it) */
};

struct wref_stats {
	u64 ops;
	u64 adds;
	u64 removes;
	u64 advances;
	u64 handed;
	u64 nexts;
	u64 forwards;		/* forward() calls */
	u64 forwarded;		/* those that moved the clock */
	u64 layouts;
	u64 resets;
	u64 partial;		/* advances stopped by their budget */
	u64 level_stops;	/* advance_some() stops for a missing level */
	u64 level_waits;	/* advances left waiting for a level */
	u64 given;		/* levels given */
	u64 taken;		/* levels taken back empty */
	u64 take_alls;
	u64 holds;
	u64 parks;		/* entries parked */
	u64 rekeys;		/* cascades answered with a later deadline */
	u64 rekeys_ignored;	/* the same, in a level the wheel lacked */
	u64 parked_removes;	/* parked entries removed */
	u64 take_parkeds;	/* take_parked() calls */
	u64 took_parked;	/* entries they gave back */
	u32 max_parked;
	u64 max_handed;		/* most entries handed back by one advance */
	u64 live_sum;		/* sum over advances of the live count */
	u32 max_live;
};

struct wref {
	struct twheel_wheel *w;
	struct wref_obj *obj;
	u32 *ord;		/* live ids not parked, sorted by (eff, seq) */
	u32 *park;		/* parked ids, in parking order */
	u32 nobj;
	u32 nlive;		/* in ord[]: live and not parked */
	u32 npark;		/* in park[] */
	u64 epoch;		/* advances, take_alls and restarts so far */
	u64 clk;		/* the model's clock */
	u64 seq;
	bool exact;		/* every hand-back must happen at tick == eff */
	u32 scale;		/* random runs: typical step is 2^scale ticks */
	u32 layout_every;	/* check the layout every so many ops (0: no) */
	u64 last_layout;
	u8 churn;		/* WREF_CHURN_* */
	u8 give;		/* WREF_GIVE_* */
	bool parking;		/* park some of what advances hand back */
	bool rekeying;		/* answer cascades with later deadlines */
	struct twheel_rekey rk;	/* what the advances are given then */
	int waiting;		/* level the last advance was left waiting
				 * for, or -1 */
	u64 last_left;		/* budget the last advance left */
	/* randomness: a PRNG, or the bytes of @buf when it is set */
	u64 rng;
	const u8 *buf;
	size_t len;
	size_t pos;
	struct wref_stats st;
	bool failed;
	char msg[320];
};

static __maybe_unused __printf(3, 4)
int wref_fail(struct wref *r, int line, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (r->failed)
		return -1;
	r->failed = true;
	n = snprintf(r->msg, sizeof(r->msg), "wheel_ref.h:%d: ", line);
	va_start(ap, fmt);
	vsnprintf(r->msg + n, sizeof(r->msg) - n, fmt, ap);
	va_end(ap);
	return -1;
}

#define WREF_FAIL(r, ...)	wref_fail(r, __LINE__, __VA_ARGS__)

static inline u64 wref_max(u64 a, u64 b)
{
	return a > b ? a : b;
}

/* a + b, saturating at U64_MAX. */
static inline u64 wref_sat(u64 a, u64 b)
{
	return a + b < a ? U64_MAX : a + b;
}

/* a - b, saturating at 0. */
static inline u64 wref_satsub(u64 a, u64 b)
{
	return a < b ? 0 : a - b;
}

/*
 * Free the wheel as a caller destroying it does: every level it still
 * has, whether or not it holds entries, then the wheel.
 */
static __maybe_unused void wref_free(struct wref *r)
{
	unsigned int lvl;

	if (!r)
		return;
	if (r->w)
		for (lvl = 0; lvl < TWHEEL_LEVELS; lvl++)
			WREF_FREE(r->w->lvl[lvl]);
	WREF_FREE(r->w);
	WREF_FREE(r->obj);
	WREF_FREE(r->ord);
	WREF_FREE(r->park);
	WREF_FREE(r);
}

/* A model and a wheel for @nobj objects (ids 0..nobj-1), clock at @start. */
static __maybe_unused struct wref *wref_alloc(u32 nobj, u64 start)
{
	struct wref *r = WREF_ZALLOC(sizeof(*r));

	if (!r)
		return NULL;
	r->w = WREF_ZALLOC(sizeof(*r->w));
	r->obj = WREF_ZALLOC(sizeof(*r->obj) * (size_t)nobj);
	r->ord = WREF_ZALLOC(sizeof(*r->ord) * (size_t)nobj);
	r->park = WREF_ZALLOC(sizeof(*r->park) * (size_t)nobj);
	if (!r->w || !r->obj || !r->ord || !r->park) {
		wref_free(r);
		return NULL;
	}
	r->nobj = nobj;
	r->clk = start;
	r->layout_every = 1024;
	r->scale = 10;
	r->churn = WREF_CHURN_ALL;
	r->give = WREF_GIVE_ALWAYS;
	r->waiting = -1;
	twheel_wheel_init(r->w, start);
	return r;
}

/* ------------------------------------------------------------------ */
/* Randomness                                                         */

static inline u8 wref_byte(struct wref *r)
{
	if (r->pos >= r->len) {
		r->pos = r->len + 1;	/* remember we ran dry */
		return 0;
	}
	return r->buf[r->pos++];
}

static inline bool wref_dry(const struct wref *r)
{
	return r->buf && r->pos > r->len;
}

static __maybe_unused u64 wref_rnd64(struct wref *r)
{
	u64 z;
	int i;

	if (r->buf) {
		for (z = 0, i = 0; i < 8; i++)
			z = z << 8 | wref_byte(r);
		return z;
	}
	/* splitmix64 */
	r->rng += 0x9e3779b97f4a7c15ULL;
	z = r->rng;
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* Uniform-ish in [0, n), n >= 1; no 64-bit division. */
static __maybe_unused u32 wref_below(struct wref *r, u32 n)
{
	u32 v;

	if (r->buf) {
		v = wref_byte(r);
		if (n > 0x100)
			v = v << 8 | wref_byte(r);
		if (n > 0x10000) {
			v = v << 8 | wref_byte(r);
			v = v << 8 | wref_byte(r);
		}
		return v % n;
	}
	return (u32)(((wref_rnd64(r) >> 32) * (u64)n) >> 32);
}

/*
 * A uniform value of @bits bits (1..64). Every draw is its own statement:
 * C leaves the order of two draws in one expression unspecified, and a
 * seed must replay the same in every build (plain, sanitised, kernel).
 */
static __maybe_unused u64 wref_rnd_bits(struct wref *r, unsigned int bits)
{
	return wref_rnd64(r) >> (64 - bits);
}

/* ------------------------------------------------------------------ */
/* The model and the checks                                           */

/* Number of live entries whose effective deadline is <= @t. */
static __maybe_unused u32 wref_count_le(const struct wref *r, u64 t)
{
	u32 lo = 0, hi = r->nlive, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (r->obj[r->ord[mid]].eff <= t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Position of live @id in ord[]. */
static __maybe_unused u32 wref_find(const struct wref *r, u32 id)
{
	const struct wref_obj *o = &r->obj[id], *m;
	u32 lo = 0, hi = r->nlive, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		m = &r->obj[r->ord[mid]];
		if (m->eff < o->eff || (m->eff == o->eff && m->seq < o->seq))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Put live @id into ord[] by its (eff, seq): behind every equal deadline. */
static __maybe_unused void wref_ord_insert(struct wref *r, u32 id)
{
	u32 at = wref_count_le(r, r->obj[id].eff);

	memmove(&r->ord[at + 1], &r->ord[at],
		sizeof(*r->ord) * (r->nlive - at));
	r->ord[at] = id;
	r->nlive++;
}

/* Take @id out of ord[]; false (nothing changed) when it is not there. */
static __maybe_unused bool wref_ord_delete(struct wref *r, u32 id)
{
	u32 at = wref_find(r, id);

	if (at >= r->nlive || r->ord[at] != id)
		return false;
	memmove(&r->ord[at], &r->ord[at + 1],
		sizeof(*r->ord) * (r->nlive - at - 1));
	r->nlive--;
	return true;
}

/*
 * What twheel_wheel_next() must say, computed independently of the wheel
 * (plain digit scan, no fls64): the clock if something is due; otherwise
 * the earliest deadline with the digits below its level cleared, its level
 * being the highest 6-bit digit in which it differs from the clock.
 * Parked entries are not in ord[]: they have no event, and with nothing
 * but them the answer is TWHEEL_NEVER.
 */
static __maybe_unused u64 wref_want_next(const struct wref *r)
{
	const struct wref_obj *o;
	unsigned int lvl;
	u64 d;

	if (!r->nlive)
		return TWHEEL_NEVER;
	/* An advance stopped by its budget must go on first. */
	if (!list_empty(&r->w->cascade))
		return r->clk;
	o = &r->obj[r->ord[0]];
	if (o->eff <= r->clk)
		return r->clk;
	d = o->expires;
	for (lvl = TWHEEL_LEVELS - 1; lvl > 0; lvl--)
		if ((d ^ r->clk) >> (TWHEEL_LVL_BITS * lvl))
			break;
	return d & ~((1ULL << (TWHEEL_LVL_BITS * lvl)) - 1);
}

/*
 * The count holds the parked entries too; twheel_wheel_empty() says none
 * is held at all, twheel_wheel_idle() that none but parked ones is.
 */
static __maybe_unused int wref_check_count(struct wref *r)
{
	if (r->w->count != (u64)r->nlive + r->npark)
		return WREF_FAIL(r, "count %llu, model has %u live + %u parked",
				 r->w->count, r->nlive, r->npark);
	if (twheel_wheel_empty(r->w) != !(r->nlive + r->npark))
		return WREF_FAIL(r, "twheel_wheel_empty() wrong with %u live + %u parked",
				 r->nlive, r->npark);
	if (twheel_wheel_idle(r->w) != !r->nlive)
		return WREF_FAIL(r, "twheel_wheel_idle() = %d with %u live + %u parked",
				 twheel_wheel_idle(r->w), r->nlive, r->npark);
	return 0;
}

static int wref_check_expires(struct wref *r, u64 now)
{
	const struct wref_obj *o = r->nlive ? &r->obj[r->ord[0]] : NULL;
	bool want, got = twheel_wheel_expires(r->w, now);

	want = list_empty(&r->w->cascade) && o &&
	       (o->eff <= r->clk ||
		(!((o->expires ^ r->clk) >> TWHEEL_LVL_BITS) &&
		 o->expires <= now));
	if (got != want)
		return WREF_FAIL(r, "expires(%llu) = %d, want %d (clk %llu, %u live, earliest deadline %llu)",
				 now, got, want, r->clk, r->nlive,
				 o ? o->expires : 0ULL);
	return 0;
}

static __maybe_unused int wref_check_next(struct wref *r)
{
	u64 got, want;

	if (r->failed)		/* the wheel may be broken: leave it */
		return -1;
	got = twheel_wheel_next(r->w);
	want = wref_want_next(r);
	r->st.nexts++;
	if (got != want)
		return WREF_FAIL(r,
				 "next() = %llu, want %llu (clk %llu, %u live, earliest deadline %llu)",
				 got, want, r->clk, r->nlive,
				 r->nlive ? r->obj[r->ord[0]].eff : 0ULL);
	if (r->nlive && got > r->obj[r->ord[0]].eff)
		return WREF_FAIL(r, "next() = %llu after earliest deadline %llu",
				 got, r->obj[r->ord[0]].eff);
	/*
	 * expires(): an advance hands back before it cascades. At the next
	 * event and a tick before it: exactly when no advance is unfinished
	 * and the earliest entry is due, or in the clock's level-0 window
	 * and due by then.
	 */
	if (wref_check_expires(r, got) ||
	    (got > r->clk && wref_check_expires(r, got - 1)))
		return -1;
	/* idle() iff nothing but parked entries is held (next() is never). */
	if (twheel_wheel_idle(r->w) != !r->nlive)
		return WREF_FAIL(r, "idle() = %d with %u live + %u parked, next() = %llu",
				 twheel_wheel_idle(r->w), r->nlive, r->npark,
				 got);
	return 0;
}

/*
 * Level of a deadline @x after @clk, by a plain digit scan (no fls64): the
 * highest 6-bit digit in which it differs from @clk.
 */
static inline unsigned int wref_level_of(u64 x, u64 clk)
{
	unsigned int lvl;

	for (lvl = TWHEEL_LEVELS - 1; lvl > 0; lvl--)
		if ((x ^ clk) >> (TWHEEL_LVL_BITS * lvl))
			break;
	return lvl;
}

/* The wref_obj whose entry's node is @p, or NULL if @p is no such node. */
static __maybe_unused struct wref_obj *wref_obj_of(const struct wref *r,
						   const struct list_head *p)
{
	unsigned long base = (unsigned long)&r->obj[0].ent.node;
	unsigned long off = (unsigned long)p - base;

	if (!p || (unsigned long)p < base ||
	    off >= (unsigned long)r->nobj * sizeof(*r->obj) ||
	    off % sizeof(*r->obj))
		return NULL;
	return &r->obj[off / sizeof(*r->obj)];
}

/*
 * Level (0..10) at which @e sits, TWHEEL_LEVELS if due, TWHEEL_LEVELS + 1
 * if on the cascade list of an unfinished advance, -1 if lost. A slot has
 * no list head: an entry is in slot s of level L iff its ring (followed
 * through the nodes' next) holds the node the slot points at.
 */
static __maybe_unused int wref_where(const struct twheel_wheel *w,
				     const struct twheel_entry *e)
{
	const struct list_head *p = &e->node;
	unsigned int lvl, slot;
	u32 guard = 0;

	/* The due and cascade lists first: a walk to their head. */
	do {
		if (p == &w->due)
			return TWHEEL_LEVELS;
		if (p == &w->cascade)
			return TWHEEL_LEVELS + 1;
		p = p->next;
	} while (p && p != &e->node && ++guard < 0x1000000);
	if (p != &e->node)
		return -1;
	/* A ring: which slot points into it? */
	do {
		for (lvl = 0; lvl < TWHEEL_LEVELS; lvl++) {
			if (!w->lvl[lvl])
				continue;
			for (slot = 0; slot < TWHEEL_SLOTS; slot++)
				if (w->lvl[lvl]->slot[slot] == p)
					return (int)lvl;
		}
		p = p->next;
	} while (p != &e->node);
	return -1;
}

/*
 * What twheel_wheel_level_missing() must say, from the wheel's cascade
 * list and its levels: the level the next entry to cascade goes to, when
 * the wheel lacks it.
 */
static __maybe_unused int wref_want_missing(const struct twheel_wheel *w)
{
	const struct twheel_entry *e;
	unsigned int lvl;

	if (list_empty(&w->cascade))
		return -1;
	e = list_first_entry(&w->cascade, struct twheel_entry, node);
	if (e->expires <= w->clk)
		return -1;
	lvl = wref_level_of(e->expires, w->clk);
	return w->lvl[lvl] ? -1 : (int)lvl;
}

/*
 * What twheel_wheel_level_needed(@expires) must say: the level an add
 * would put the entry in (none if due, or if it joins the slot being
 * cascaded), when the wheel lacks it.
 */
static __maybe_unused int wref_want_needed(const struct twheel_wheel *w,
					   u64 expires)
{
	unsigned int lvl;

	if (expires <= w->clk)
		return -1;
	if (!list_empty(&w->cascade) &&
	    (expires >> w->casc_shift) == (w->clk >> w->casc_shift))
		return -1;
	lvl = wref_level_of(expires, w->clk);
	return w->lvl[lvl] ? -1 : (int)lvl;
}

/* Give the wheel level @lvl, which it must lack: a zeroed allocation. */
static __maybe_unused int wref_give(struct wref *r, int lvl)
{
	struct twheel_level *l;

	if (r->failed)		/* the wheel may be broken: leave it */
		return -1;

	if (lvl < 0 || lvl >= TWHEEL_LEVELS)
		return WREF_FAIL(r, "asked for level %d", lvl);
	if (r->w->lvl[lvl])
		return WREF_FAIL(r, "asked for level %d, which it has", lvl);
	if (r->w->pending[lvl])
		return WREF_FAIL(r, "level %d absent, but its bitmap is %llx",
				 lvl, r->w->pending[lvl]);
	l = WREF_ZALLOC(sizeof(*l));
	if (!l)
		return WREF_FAIL(r, "out of memory for level %d", lvl);
	twheel_wheel_give_level(r->w, (unsigned int)lvl, l);
	if (r->w->lvl[lvl] != l)
		return WREF_FAIL(r, "give_level(%d) did not take it", lvl);
	r->st.given++;
	return 0;
}

/*
 * Take back up to @max empty levels with twheel_wheel_take_empty_level(),
 * and free them, asking for any empty level and for one above every level
 * holding entries in turn. Each must be one the wheel had and held nothing
 * in (bitmap 0, every slot NULL), above the highest level holding entries
 * when asked so, now gone from the wheel, nothing else changed; a NULL
 * answer means every level the wheel has (above that one) holds entries.
 */
static __maybe_unused int wref_take_levels(struct wref *r, u32 max)
{
	struct twheel_wheel *w = r->w;
	struct twheel_level *was[TWHEEL_LEVELS], *l;
	u64 pend[TWHEEL_LEVELS];
	unsigned int i, at, slot, low;
	bool top;
	u32 k;

	if (r->failed)		/* the wheel may be broken: leave it */
		return -1;

	for (k = 0; k < max; k++) {
		top = k & 1;
		memcpy(was, w->lvl, sizeof(was));
		memcpy(pend, w->pending, sizeof(pend));
		/* The lowest level @top lets it take: above any pending. */
		for (low = TWHEEL_LEVELS; top && low && !pend[low - 1]; low--)
			;
		if (!top)
			low = 0;
		l = twheel_wheel_take_empty_level(w, top);
		for (at = 0; l && at < TWHEEL_LEVELS && was[at] != l; at++)
			;
		for (i = 0; i < TWHEEL_LEVELS; i++) {
			if (l && i == at)
				continue;
			if (w->lvl[i] != was[i] || w->pending[i] != pend[i])
				return WREF_FAIL(r, "take_empty_level() changed level %u",
						 i);
		}
		if (!l) {
			for (i = low; i < TWHEEL_LEVELS; i++)
				if (was[i] && !pend[i])
					return WREF_FAIL(r, "take_empty_level() = NULL, but level %u is empty",
							 i);
			return 0;
		}
		if (at == TWHEEL_LEVELS)
			return WREF_FAIL(r, "take_empty_level() returned a level it was not given");
		if (at < low)
			return WREF_FAIL(r, "take_empty_level(top) took level %u, below a level holding entries",
					 at);
		for (slot = 0; slot < TWHEEL_SLOTS; slot++)
			if (l->slot[slot])
				break;
		WREF_FREE(l);	/* detached: the wheel has it no more */
		if (pend[at] || w->pending[at])
			return WREF_FAIL(r, "took back level %u with bitmap %llx",
					 at, pend[at]);
		if (w->lvl[at])
			return WREF_FAIL(r, "level %u still given after take_empty_level()",
					 at);
		if (slot < TWHEEL_SLOTS)
			return WREF_FAIL(r, "level %u taken back with slot %u not empty",
					 at, slot);
		r->st.taken++;
	}
	return 0;
}

/*
 * twheel_wheel_take_empty_level() where it must return NULL: true if it
 * returned a level after all (freed: detached, it is the caller's).
 */
static __maybe_unused bool wref_took_one(struct wref *r)
{
	struct twheel_level *l = twheel_wheel_take_empty_level(r->w, false);

	if (!l)
		return false;
	WREF_FREE(l);
	return true;
}

/* After an advance: take empty levels back, per @r->churn. */
static __maybe_unused int wref_churn(struct wref *r)
{
	switch (r->churn) {
	case WREF_CHURN_ALL:
		return wref_take_levels(r, TWHEEL_LEVELS + 1);
	case WREF_CHURN_RANDOM:
		switch (wref_below(r, 4)) {
		case 0:
			return 0;
		case 1:
			return wref_take_levels(r, 1);
		default:
			return wref_take_levels(r, TWHEEL_LEVELS + 1);
		}
	}
	return 0;
}

static inline const char *wref_list_name(u32 tag)
{
	return tag == WREF_TAG_DUE ? "due" :
	       tag == WREF_TAG_CASCADE ? "cascade" : "parked";
}

/*
 * A list with a head (the due, cascade or parked list) in the layout
 * check: sound links, only the model's entries, each seen once; records
 * their place (@tag, position) for the order checks.
 */
static __maybe_unused int wref_layout_list(struct wref *r,
					   const struct list_head *h,
					   u32 tag, u64 *n)
{
	const struct list_head *p;
	struct wref_obj *o;
	u32 i = 0;

	for (p = h->next; p != h; p = p->next, i++) {
		o = wref_obj_of(r, p);
		if (!o || i > r->nobj)
			return WREF_FAIL(r, "%s list holds a foreign node",
					 wref_list_name(tag));
		if (!p->next || p->next->prev != p || p->prev->next != p)
			return WREF_FAIL(r, "%s list: links of id %ld broken",
					 wref_list_name(tag), (long)(o - r->obj));
		if (o->mark == r->st.layouts)
			return WREF_FAIL(r, "id %ld is in two places",
					 (long)(o - r->obj));
		o->mark = r->st.layouts;
		o->tag = tag;
		o->pos = i;
		(*n)++;
	}
	return 0;
}

/*
 * One slot's ring, from the node the slot points at: sound links, only
 * the model's entries, each seen once, each where its deadline places it
 * relative to the clock (this level, this slot).
 */
static __maybe_unused int wref_layout_ring(struct wref *r, unsigned int lvl,
					   unsigned int slot,
					   const struct list_head *first,
					   u64 *n)
{
	const struct twheel_wheel *w = r->w;
	const struct list_head *p = first;
	struct wref_obj *o;
	u32 i = 0;

	do {
		o = wref_obj_of(r, p);
		if (!o)
			return WREF_FAIL(r, "level %u slot %u: ring holds a foreign node",
					 lvl, slot);
		if (!wref_obj_of(r, p->next) || !wref_obj_of(r, p->prev) ||
		    p->next->prev != p || p->prev->next != p)
			return WREF_FAIL(r, "level %u slot %u: links of id %ld broken",
					 lvl, slot, (long)(o - r->obj));
		if (o->mark == r->st.layouts)
			return WREF_FAIL(r, "id %ld is in two places (level %u slot %u)",
					 (long)(o - r->obj), lvl, slot);
		o->mark = r->st.layouts;
		if (o->ent.expires <= w->clk || !o->live || o->parked ||
		    wref_level_of(o->ent.expires, w->clk) != lvl ||
		    ((o->ent.expires >> (TWHEEL_LVL_BITS * lvl)) &
		     TWHEEL_SLOT_MASK) != slot || o->expires != o->ent.expires)
			return WREF_FAIL(r,
					 "entry %ld (expires %llu) misplaced at level %u slot %u, clk %llu",
					 (long)(o - r->obj), o->ent.expires,
					 lvl, slot, w->clk);
		o->tag = WREF_TAG_SLOT + lvl * TWHEEL_SLOTS + slot;
		o->pos = i++;
		(*n)++;
		p = p->next;
	} while (p != first);
	return 0;
}

/* Rank of a place in the order of ties: slot, then cascade, then due. */
static inline u32 wref_tag_rank(u32 tag)
{
	return tag >= WREF_TAG_SLOT ? 0 : tag == WREF_TAG_CASCADE ? 1 : 2;
}

/*
 * White-box: every entry sits where its deadline puts it relative to the
 * wheel's clock, the levels and bitmaps match the slots (a level the wheel
 * lacks has a zero bitmap; a slot's bit is set iff it points at a ring),
 * every ring and list is soundly linked, the counts add up, the entries are
 * the model's live ones, each in one place, ties in insertion order, and
 * level_missing() answers right. The parked list holds exactly park[], in
 * order, each with a deadline at or before the clock (so that remove()
 * finds it in no slot).
 */
static __maybe_unused int wref_check_layout(struct wref *r)
{
	const struct twheel_wheel *w = r->w;
	const struct twheel_entry *e;
	const struct list_head *first;
	const struct wref_obj *o, *q;
	unsigned int lvl, slot;
	int got, want;
	u64 n = 0;
	u32 i;

	if (r->failed)		/* the wheel may be broken: leave it */
		return -1;

	r->st.layouts++;
	if (w->clk != r->clk)
		return WREF_FAIL(r, "clk %llu, model %llu", w->clk, r->clk);
	if (wref_layout_list(r, &w->due, WREF_TAG_DUE, &n) ||
	    wref_layout_list(r, &w->cascade, WREF_TAG_CASCADE, &n) ||
	    wref_layout_list(r, &w->parked, WREF_TAG_PARKED, &n))
		return -1;
	list_for_each_entry(e, &w->due, node) {
		o = container_of(e, struct wref_obj, ent);
		if (e->expires > w->clk || !o->live || o->parked ||
		    o->eff != w->clk)
			return WREF_FAIL(r, "due entry %ld expires %llu clk %llu",
					 (long)(o - r->obj), e->expires, w->clk);
	}
	list_for_each_entry(e, &w->cascade, node) {
		o = container_of(e, struct wref_obj, ent);
		if (e->expires < w->clk || !o->live || o->parked ||
		    (e->expires >> w->casc_shift) != (w->clk >> w->casc_shift))
			return WREF_FAIL(r, "cascading entry %ld expires %llu clk %llu shift %u",
					 (long)(o - r->obj), e->expires, w->clk,
					 w->casc_shift);
	}
	i = 0;
	list_for_each_entry(e, &w->parked, node) {
		o = container_of(e, struct wref_obj, ent);
		if (i >= r->npark || o != &r->obj[r->park[i]])
			return WREF_FAIL(r, "parked #%u is id %ld, want id %ld (%u parked)",
					 i, (long)(o - r->obj),
					 i < r->npark ? (long)r->park[i] : -1L,
					 r->npark);
		if (!o->live || !o->parked || e->expires > w->clk ||
		    e->expires != o->expires)
			return WREF_FAIL(r, "parked entry %ld expires %llu (asked %llu) clk %llu",
					 (long)(o - r->obj), e->expires,
					 o->expires, w->clk);
		i++;
	}
	if (i != r->npark)
		return WREF_FAIL(r, "parked list holds %u, model %u", i,
				 r->npark);
	for (lvl = 0; lvl < TWHEEL_LEVELS; lvl++) {
		if (!w->lvl[lvl]) {
			if (w->pending[lvl])
				return WREF_FAIL(r, "level %u absent, bitmap %llx",
						 lvl, w->pending[lvl]);
			continue;
		}
		for (slot = 0; slot < TWHEEL_SLOTS; slot++) {
			bool bit = (w->pending[lvl] >> slot) & 1;

			first = w->lvl[lvl]->slot[slot];
			if (bit != !!first)
				return WREF_FAIL(r, "level %u slot %u: bit %d, slot %s",
						 lvl, slot, bit,
						 first ? "not empty" : "empty");
			if (first && wref_layout_ring(r, lvl, slot, first, &n))
				return -1;
		}
	}
	if (n != w->count || n != (u64)r->nlive + r->npark)
		return WREF_FAIL(r, "layout holds %llu, count %llu, model %u + %u parked",
				 n, w->count, r->nlive, r->npark);
	/*
	 * Ties in insertion order. ord[] is sorted by (eff, seq); live
	 * entries of one eff after the clock share their deadline, hence
	 * their slot, where they are in ring order unless the slot is being
	 * cascaded: then its older ones may be in a lower slot already, the
	 * others on the cascade list. Entries of eff == clk are on the
	 * cascade list (a deadline of the slot's tick) and then due.
	 */
	for (i = 0; i + 1 < r->nlive; i++) {
		o = &r->obj[r->ord[i]];
		q = &r->obj[r->ord[i + 1]];
		if (o->mark != r->st.layouts || q->mark != r->st.layouts)
			return WREF_FAIL(r, "live id %ld or %ld not in the wheel",
					 (long)(o - r->obj), (long)(q - r->obj));
		if (o->eff != q->eff)
			continue;
		if (o->tag == q->tag ? o->pos >= q->pos :
		    wref_tag_rank(o->tag) >= wref_tag_rank(q->tag))
			return WREF_FAIL(r,
					 "ties out of insertion order: id %ld (place %u #%u) before id %ld (place %u #%u), deadline %llu, clk %llu",
					 (long)(o - r->obj), o->tag, o->pos,
					 (long)(q - r->obj), q->tag, q->pos,
					 o->expires, w->clk);
	}
	got = twheel_wheel_level_missing(w);
	want = wref_want_missing(w);
	if (got != want)
		return WREF_FAIL(r, "level_missing() = %d, want %d", got, want);
	return 0;
}

/*
 * The slot a deadline names relative to the clock (NULL if it is due, or
 * its level absent): the only slot an add or a remove may change.
 */
static __maybe_unused struct list_head **wref_slot_of(const struct twheel_wheel *w,
						      u64 expires,
						      unsigned int *lvl,
						      unsigned int *slot)
{
	if (expires <= w->clk)
		return NULL;
	*lvl = wref_level_of(expires, w->clk);
	*slot = (expires >> (TWHEEL_LVL_BITS * *lvl)) & TWHEEL_SLOT_MASK;
	return w->lvl[*lvl] ? &w->lvl[*lvl]->slot[*slot] : NULL;
}

/*
 * Right after an add (@added) or a remove of @o, with @before the value
 * its slot had before the call (and, for a remove, @next its node's next
 * then): the slot changed exactly as it must, and its bit says whether it
 * is empty. An add to a slot appends (the slot gets the node if it was
 * empty, and the node is the ring's last); an add that joined the cascade
 * list is at its tail and touched no slot; a remove changes the slot only
 * when the entry was its first: to the next one, or empty.
 */
static __maybe_unused int wref_check_slot_of(struct wref *r,
					     const struct wref_obj *o,
					     bool added,
					     const struct list_head *before,
					     const struct list_head *next)
{
	const struct twheel_wheel *w = r->w;
	const struct list_head *node = &o->ent.node, *want;
	struct list_head **sp;
	unsigned int lvl = 0, slot = 0;
	bool bit;

	sp = wref_slot_of(w, o->expires, &lvl, &slot);
	if (!sp)	/* due, or a level it lacks: in no slot */
		return 0;
	bit = (w->pending[lvl] >> slot) & 1;
	if (added && !list_empty(&w->cascade) &&
	    (o->expires >> w->casc_shift) == (w->clk >> w->casc_shift)) {
		if (w->cascade.prev != node)
			return WREF_FAIL(r, "id %ld (expires %llu) added in the cascading slot's range, not at the cascade list's tail",
					 (long)(o - r->obj), o->expires);
		want = before;
	} else if (added) {
		want = before ? before : node;
		if (!*sp || (*sp)->prev != node)
			return WREF_FAIL(r, "id %ld (expires %llu) added, not last in level %u slot %u",
					 (long)(o - r->obj), o->expires, lvl, slot);
	} else {
		want = before != node ? before : next == node ? NULL : next;
	}
	if (*sp != want)
		return WREF_FAIL(r, "%s id %ld (expires %llu) made level %u slot %u point %s",
				 added ? "adding" : "removing",
				 (long)(o - r->obj), o->expires, lvl, slot,
				 !*sp ? "nowhere" : *sp == node ? "at it" :
				 *sp == before ? "where it did" : "elsewhere");
	if (bit != !!*sp)
		return WREF_FAIL(r, "after %s id %ld: level %u slot %u has bit %d, slot %s",
				 added ? "adding" : "removing",
				 (long)(o - r->obj), lvl, slot, bit,
				 *sp ? "not empty" : "empty");
	return 0;
}

/*
 * After an advance or take_all: in every level the wheel has, a slot's bit
 * is set iff it points somewhere (O(levels * slots), no entry visited);
 * an absent level has no bit set.
 */
static __maybe_unused int wref_check_bits(struct wref *r)
{
	const struct twheel_wheel *w = r->w;
	unsigned int lvl, slot;

	for (lvl = 0; lvl < TWHEEL_LEVELS; lvl++) {
		if (!w->lvl[lvl]) {
			if (w->pending[lvl])
				return WREF_FAIL(r, "level %u absent, bitmap %llx",
						 lvl, w->pending[lvl]);
			continue;
		}
		for (slot = 0; slot < TWHEEL_SLOTS; slot++)
			if (((w->pending[lvl] >> slot) & 1) !=
			    !!w->lvl[lvl]->slot[slot])
				return WREF_FAIL(r, "level %u slot %u: bit %llu, slot %s",
						 lvl, slot,
						 (w->pending[lvl] >> slot) & 1,
						 w->lvl[lvl]->slot[slot] ?
						 "not empty" : "empty");
	}
	return 0;
}

/*
 * Add as a caller does: give the level twheel_wheel_level_needed() names
 * first (checked against wref_want_needed(); afterwards it must name none).
 */
static __maybe_unused int wref_add(struct wref *r, u32 id, u64 expires)
{
	struct wref_obj *o = &r->obj[id];
	struct list_head **sp, *before;
	unsigned int lvl, slot;
	int need, want;

	if (r->failed)		/* the wheel may be broken: leave it */
		return -1;

	if (o->live)
		return WREF_FAIL(r, "driver bug: add of live %u", id);
	o->expires = expires;
	o->eff = wref_max(expires, r->clk);
	o->seq = r->seq++;
	o->live = true;
	o->handed = 0;
	wref_ord_insert(r, id);
	if (r->nlive > r->st.max_live)
		r->st.max_live = r->nlive;
	r->st.adds++;
	r->st.ops++;

	need = twheel_wheel_level_needed(r->w, expires);
	want = wref_want_needed(r->w, expires);
	if (need != want)
		return WREF_FAIL(r, "level_needed(%llu) = %d, want %d (clk %llu)",
				 expires, need, want, r->w->clk);
	if (need >= 0) {
		if (wref_give(r, need))
			return -1;
		need = twheel_wheel_level_needed(r->w, expires);
		if (need != -1)
			return WREF_FAIL(r, "level_needed(%llu) = %d after it was given",
					 expires, need);
	}
	sp = wref_slot_of(r->w, expires, &lvl, &slot);
	before = sp ? *sp : NULL;
	twheel_wheel_add(r->w, &o->ent, expires);
	if (o->ent.expires != expires)
		return WREF_FAIL(r, "add(%llu) stored %llu", expires,
				 o->ent.expires);
	if (wref_check_slot_of(r, o, true, before, NULL))
		return -1;
	return wref_check_count(r);
}

/*
 * Remove a live entry, parked or not. A parked one (its deadline is at or
 * before the clock: in no slot) leaves park[] and the parked list, which
 * must close over it; the count must drop by one either way.
 */
static __maybe_unused int wref_remove(struct wref *r, u32 id)
{
	struct wref_obj *o = &r->obj[id];
	struct list_head **sp, *before, *next, *prev;
	unsigned int lvl, slot;
	bool parked = o->parked;
	u32 at;

	if (r->failed)		/* the wheel may be broken: leave it */
		return -1;

	if (!o->live)
		return WREF_FAIL(r, "driver bug: remove of idle %u", id);
	if (parked) {
		for (at = 0; at < r->npark && r->park[at] != id; at++)
			;
		if (at >= r->npark)
			return WREF_FAIL(r, "model bug: parked %u not found", id);
		memmove(&r->park[at], &r->park[at + 1],
			sizeof(*r->park) * (r->npark - at - 1));
		r->npark--;
		o->parked = false;
		r->st.parked_removes++;
	} else {
		if (!wref_ord_delete(r, id))
			return WREF_FAIL(r, "model bug: %u not found", id);
	}
	o->live = false;
	r->st.removes++;
	r->st.ops++;

	sp = wref_slot_of(r->w, o->expires, &lvl, &slot);
	before = sp ? *sp : NULL;
	next = o->ent.node.next;
	prev = o->ent.node.prev;
	twheel_wheel_remove(r->w, &o->ent);
	if (!list_empty(&o->ent.node))
		return WREF_FAIL(r, "remove(%u) left the node linked", id);
	if (parked && (o->expires > r->w->clk || prev->next != next ||
		       next->prev != prev))
		return WREF_FAIL(r, "remove(%u) of a parked entry (expires %llu, clk %llu): %s",
				 id, o->expires, r->w->clk,
				 o->expires > r->w->clk ? "after the clock" :
				 "the parked list did not close over it");
	if (wref_check_slot_of(r, o, false, before, next))
		return -1;
	return wref_check_count(r);
}

/*
 * Park @id, which the last advance handed back (no advance, take_all or
 * restart since: its epoch is @r->epoch) and which is on no list, with
 * twheel_wheel_park(). It goes at the parked list's tail; the count grows
 * by one, the clock and next() stay as they were (a parked entry has no
 * event) and so does idle(): parking never makes the wheel busy.
 */
static __maybe_unused int wref_park(struct wref *r, u32 id)
{
	struct wref_obj *o = &r->obj[id];
	u64 next, clk;
	bool idle;

	if (r->failed)		/* the wheel may be broken: leave it */
		return -1;

	if (o->live || !o->handed || o->handed != r->epoch)
		return WREF_FAIL(r, "driver bug: park of %u, not just handed back",
				 id);
	o->live = true;
	o->parked = true;
	o->handed = 0;
	r->park[r->npark++] = id;
	if (r->npark > r->st.max_parked)
		r->st.max_parked = r->npark;
	r->st.parks++;
	r->st.ops++;

	next = twheel_wheel_next(r->w);
	idle = twheel_wheel_idle(r->w);
	clk = r->w->clk;
	twheel_wheel_park(r->w, &o->ent);
	if (r->w->parked.prev != &o->ent.node ||
	    o->ent.node.next != &r->w->parked)
		return WREF_FAIL(r, "park(%u) did not put it at the parked list's tail",
				 id);
	if (twheel_wheel_next(r->w) != next || r->w->clk != clk)
		return WREF_FAIL(r, "park(%u) moved next() %llu -> %llu, clk %llu -> %llu",
				 id, next, twheel_wheel_next(r->w), clk,
				 r->w->clk);
	if (twheel_wheel_idle(r->w) != idle)
		return WREF_FAIL(r, "park(%u) changed idle() %d -> %d", id, idle,
				 !idle);
	return wref_check_count(r);
}

/*
 * twheel_wheel_take_parked(): the list (after a marker node the caller
 * had there) must hold exactly park[], in parking order; it returns
 * their number, the count drops by it, the parked list is empty, and the
 * rest of the wheel (next(), the clock) is untouched.
 */
static __maybe_unused int wref_take_parked(struct wref *r)
{
	struct list_head got, mark, *p;
	struct wref_obj *o;
	u64 n, next, clk;
	u32 i;

	if (r->failed)		/* the wheel may be broken: leave it */
		return -1;

	INIT_LIST_HEAD(&got);
	list_add_tail(&mark, &got);
	next = twheel_wheel_next(r->w);
	clk = r->w->clk;
	n = twheel_wheel_take_parked(r->w, &got);
	r->st.take_parkeds++;
	r->st.ops++;
	if (got.next != &mark)
		return WREF_FAIL(r, "take_parked() did not append");
	p = mark.next;
	for (i = 0; i < r->npark; i++, p = p->next) {
		if (p == &got)
			return WREF_FAIL(r, "take_parked() gave %u, want %u",
					 i, r->npark);
		o = wref_obj_of(r, p);
		if (o != &r->obj[r->park[i]])
			return WREF_FAIL(r, "take_parked(): #%u is id %ld, want id %u",
					 i, o ? (long)(o - r->obj) : -1L,
					 r->park[i]);
		if (p->next->prev != p || p->prev->next != p)
			return WREF_FAIL(r, "take_parked(): links of id %u broken",
					 r->park[i]);
		o->live = false;
		o->parked = false;
	}
	if (p != &got)
		return WREF_FAIL(r, "take_parked() gave more than the %u parked",
				 r->npark);
	if (n != r->npark)
		return WREF_FAIL(r, "take_parked() returned %llu, %u were parked",
				 n, r->npark);
	r->st.took_parked += n;
	r->npark = 0;
	if (!list_empty(&r->w->parked))
		return WREF_FAIL(r, "take_parked() left the parked list not empty");
	if (twheel_wheel_next(r->w) != next || r->w->clk != clk)
		return WREF_FAIL(r, "take_parked() changed next() %llu -> %llu or clk %llu -> %llu",
				 next, twheel_wheel_next(r->w), clk, r->w->clk);
	return wref_check_count(r);
}

/*
 * The caller's side of what an advance just handed back (the entries
 * after @mark on @got): each leaves the list; in random runs
 * (@r->parking) a random subset of them is parked, in hand-back order:
 * none, about half, or all of them.
 */
static __maybe_unused int wref_park_some(struct wref *r,
					 struct list_head *got,
					 struct list_head *mark)
{
	struct twheel_entry *e, *tmp;
	u32 mode = 0;

	list_del(mark);
	if (r->parking && !list_empty(got))
		mode = wref_below(r, 4);
	list_for_each_entry_safe(e, tmp, got, node) {
		list_del_init(&e->node);
		if ((mode == 3 || (mode == 2 && wref_below(r, 2))) &&
		    wref_park(r, (u32)(container_of(e, struct wref_obj, ent) -
				      r->obj)))
			return -1;
	}
	return 0;
}

/*
 * The driver's answer to a cascade about to move @e to a lower level (see
 * "Re-keying" at the top). Only a live entry in no list of the model's
 * but ord[], whose deadline is after the wheel's clock, may be asked.
 */
static __maybe_unused u64 wref_rekey(struct twheel_rekey *rk,
				     struct twheel_entry *e)
{
	struct wref *r = container_of(rk, struct wref, rk);
	struct wref_obj *o = container_of(e, struct wref_obj, ent);
	u32 id = (u32)(o - r->obj);
	u64 t;

	if (r->failed)
		return 0;
	if (!o->live || o->parked || e->expires != o->expires ||
	    e->expires <= r->w->clk)
		return WREF_FAIL(r, "rekey asked of id %u (live %d, parked %d, expires %llu, model %llu, clk %llu)",
				 id, o->live, o->parked, e->expires, o->expires,
				 r->w->clk), 0;
	/* Once per advance at most: a run out of fuzz input draws zeros. */
	if (o->rekeyed == r->epoch)
		return e->expires;
	switch (wref_below(r, 16)) {
	case 0:		/* close: often in the slot being cascaded */
		t = wref_sat(e->expires, 1 + wref_below(r, 64));
		break;
	case 1:		/* far */
		t = wref_sat(e->expires,
			     1 + wref_rnd_bits(r, 1 + wref_below(r, 40)));
		break;
	case 2:		/* earlier, or its own: nothing changes */
		return wref_satsub(e->expires, wref_below(r, 3));
	default:
		return e->expires;
	}
	if (t <= e->expires)
		return e->expires;
	/* Out of the slot cascading, to a level the wheel lacks: ignored. */
	if ((t >> r->w->casc_shift) != (r->w->clk >> r->w->casc_shift) &&
	    !r->w->lvl[wref_level_of(t, r->w->clk)]) {
		r->st.rekeys_ignored++;
		return t;
	}
	if (!wref_ord_delete(r, id))
		return WREF_FAIL(r, "model bug: %u not found", id), 0;
	o->expires = t;
	o->eff = t;
	o->seq = r->seq++;
	o->rekeyed = r->epoch;
	wref_ord_insert(r, id);
	r->st.rekeys++;
	return t;
}

/*
 * Advance both to @now, the wheel within @budget entry moves, and compare
 * what comes back. A marker node is put on the list first to check that
 * the wheel appends and keeps what the caller had there.
 *
 * The wheel may stop with budget left only for a level it lacks: then
 * twheel_wheel_level_missing() must name it (checked against
 * wref_want_missing()); the driver gives it and calls again with what is
 * left of the same budget, so the budget counts entry moves only, and the
 * hand-backs of all the calls together are compared as one advance. Per
 * @r->give the driver may instead leave the advance waiting for the level
 * (@r->waiting), as a caller that could not allocate it.
 *
 * An advance stopped (twheel_wheel_behind()) by its budget or waiting for
 * a level must have handed back a prefix of what the model says is due,
 * in order; the model then takes the wheel's clock (the tick of the slot
 * it was working on) as its own, which is the clock later adds are placed
 * against. Afterwards the entries handed back leave the list, some of
 * them parked in random runs (wref_park_some()), and empty levels are
 * taken back per @r->churn.
 */
static __maybe_unused int wref_advance_some(struct wref *r, u64 now,
					    u64 budget)
{
	u64 newclk = wref_max(r->clk, now), n = 0, left;
	struct list_head got, mark, *p;
	struct wref_obj *o, *want;
	bool behind;
	int miss, wmiss;
	u32 k, i;

	if (r->failed)		/* the wheel may be broken: leave it */
		return -1;

	INIT_LIST_HEAD(&got);
	list_add_tail(&mark, &got);
	left = budget;
	r->waiting = -1;
	r->epoch++;
	for (;;) {
		n += twheel_wheel_advance_some(r->w, now, &got, &left,
					       r->rekeying ? &r->rk : NULL);
		behind = twheel_wheel_behind(r->w, now);
		/* Behind needs an event to come: never so when idle. */
		if (behind && twheel_wheel_idle(r->w))
			return WREF_FAIL(r, "advance(%llu, %llu) from %llu: behind() yet idle()",
					 now, budget, r->clk);
		if (!behind || !left || left > budget)
			break;
		/* Stopped with budget left: only for a level it lacks. */
		miss = twheel_wheel_level_missing(r->w);
		wmiss = wref_want_missing(r->w);
		if (miss < 0 || miss != wmiss)
			return WREF_FAIL(r, "advance(%llu, budget %llu) from clk %llu stopped at clk %llu with %llu left; level_missing() = %d, want %d",
					 now, budget, r->clk, r->w->clk, left,
					 miss, wmiss);
		r->st.level_stops++;
		if (r->give == WREF_GIVE_NEVER ||
		    (r->give == WREF_GIVE_RANDOM && !wref_below(r, 8))) {
			r->waiting = miss;
			break;
		}
		if (wref_give(r, miss))	/* at most once per level: no loop */
			return -1;
	}
	/* What is due now, re-keyed entries placed anew (wref_rekey()). */
	k = wref_count_le(r, newclk);
	r->last_left = left;
	if (left > budget || n > budget - left)
		return WREF_FAIL(r, "advance(%llu, budget %llu): %llu left, %llu handed back",
				 now, budget, left, n);
	if (behind) {
		if (r->w->clk < r->clk || r->w->clk > newclk)
			return WREF_FAIL(r, "advance(%llu, budget %llu) from clk %llu stopped at clk %llu",
					 now, budget, r->clk, r->w->clk);
		if (n > budget)
			return WREF_FAIL(r, "advance(%llu, budget %llu) handed back %llu",
					 now, budget, n);
		if (n < k)
			k = (u32)n;
	}
	r->st.advances++;
	r->st.live_sum += r->nlive;
	r->st.ops++;

	if (got.next != &mark)
		return WREF_FAIL(r, "advance(%llu) did not append", now);
	p = mark.next;
	for (i = 0; i < k; i++, p = p->next) {
		want = &r->obj[r->ord[i]];
		if (p == &got)
			return WREF_FAIL(r,
					 "advance(%llu) from clk %llu handed back %u, want %u; missing id %ld (expires %llu)",
					 now, r->clk, i, k,
					 (long)(want - r->obj), want->expires);
		o = container_of(list_entry(p, struct twheel_entry, node),
				 struct wref_obj, ent);
		if (o != want)
			return WREF_FAIL(r,
					 "advance(%llu) from clk %llu: #%u is id %ld (expires %llu, eff %llu, seq %llu), want id %ld (expires %llu, eff %llu, seq %llu)",
					 now, r->clk, i, (long)(o - r->obj),
					 o->expires, o->eff, o->seq,
					 (long)(want - r->obj), want->expires,
					 want->eff, want->seq);
		if (o->ent.expires != o->expires || o->expires > newclk)
			return WREF_FAIL(r, "advance(%llu): id %ld expires %llu handed back early",
					 now, (long)(o - r->obj), o->expires);
		if (r->exact && o->eff != now)
			return WREF_FAIL(r,
					 "advance(%llu): id %ld (deadline %llu) handed back late",
					 now, (long)(o - r->obj), o->eff);
		o->live = false;
		o->handed = r->epoch;
	}
	if (p != &got)
		return WREF_FAIL(r,
				 "advance(%llu) from clk %llu handed back more than the %u expected",
				 now, r->clk, k);
	if (n != k)
		return WREF_FAIL(r, "advance(%llu) returned %llu, handed back %u",
				 now, n, k);
	memmove(&r->ord[0], &r->ord[k], sizeof(*r->ord) * (r->nlive - k));
	r->nlive -= k;
	r->st.handed += k;
	if (k > r->st.max_handed)
		r->st.max_handed = k;
	if (behind) {
		if (r->waiting >= 0)
			r->st.level_waits++;
		else
			r->st.partial++;	/* stopped by its budget */
		r->clk = r->w->clk;
	} else {
		r->clk = newclk;
		if (r->w->clk != newclk)
			return WREF_FAIL(r, "advance(%llu): clk %llu, want %llu",
					 now, r->w->clk, newclk);
	}
	if (wref_check_count(r) || wref_check_bits(r) ||
	    wref_park_some(r, &got, &mark))
		return -1;
	return wref_churn(r);
}

/*
 * twheel_wheel_forward(@now) moves the clock exactly when an advance to
 * @now would hand back and cascade nothing: @now not before the clock and
 * the next event (the model's) after @now. Then the clock is @now, the
 * next event the one it returns, unchanged, and every slot's bit right;
 * else nothing changed. The model takes the new clock, as after an
 * advance that handed nothing back.
 */
static __maybe_unused int wref_forward(struct wref *r, u64 now)
{
	u64 want, next = 0, clk = r->w->clk;
	bool expect, moved;

	if (r->failed)		/* the wheel may be broken: leave it */
		return -1;
	want = wref_want_next(r);
	expect = now >= r->clk && want > now;
	moved = twheel_wheel_forward(r->w, now, &next);
	r->st.forwards++;
	r->st.ops++;
	if (moved != expect)
		return WREF_FAIL(r, "forward(%llu) from clk %llu = %d, want %d (next %llu)",
				 now, clk, moved, expect, want);
	if (!moved)
		return r->w->clk == clk ? 0 :
		       WREF_FAIL(r, "forward(%llu) failed yet moved clk %llu to %llu",
				 now, clk, r->w->clk);
	r->st.forwarded++;
	if (r->w->clk != now || next != want)
		return WREF_FAIL(r, "forward(%llu) from clk %llu: clk %llu, next %llu, want next %llu",
				 now, clk, r->w->clk, next, want);
	r->clk = now;
	r->epoch++;
	if (wref_check_count(r) || wref_check_bits(r) || wref_check_next(r))
		return -1;
	return 0;
}

static __maybe_unused int wref_advance(struct wref *r, u64 now)
{
	return wref_advance_some(r, now, U64_MAX);
}

/*
 * The clock goes back (or anywhere): take every entry out with
 * twheel_wheel_take_all() and re-add them in the order given, as a caller
 * whose clock was set back does. The list must hold exactly the live
 * entries, entries of one deadline in their insertion order, the parked
 * ones last, in parking order; the model then re-adds them all in that
 * order too (the parked ones as new entries: the caller takes them back).
 */
static __maybe_unused int wref_take_all(struct wref *r, u64 now)
{
	struct twheel_entry *e, *tmp;
	struct wref_obj *o, *q;
	struct list_head all;
	u32 i, j, m, g, n = 0;
	u64 got;

	if (r->failed)		/* the wheel may be broken: leave it */
		return -1;

	INIT_LIST_HEAD(&all);
	got = twheel_wheel_take_all(r->w, now, &all);
	r->st.take_alls++;
	r->epoch++;
	list_for_each_entry(e, &all, node) {
		o = container_of(e, struct wref_obj, ent);
		if (!o->live || o->expires != e->expires)
			return WREF_FAIL(r, "take_all: id %ld not live or changed",
					 (long)(o - r->obj));
		o->pos = n++;
	}
	if (n != r->nlive + r->npark || got != n || r->w->count ||
	    r->w->clk != now)
		return WREF_FAIL(r, "take_all: %u listed, returned %llu, %u+%u parked, count %llu",
				 n, got, r->nlive, r->npark, r->w->count);
	/* The parked entries last, in the order parked. */
	for (i = 0; i < r->npark; i++)
		if (r->obj[r->park[i]].pos != r->nlive + i)
			return WREF_FAIL(r, "take_all: parked #%u (id %u) listed #%u, want #%u",
					 i, r->park[i],
					 r->obj[r->park[i]].pos, r->nlive + i);
	if (!list_empty(&r->w->parked) || !list_empty(&r->w->due) ||
	    !list_empty(&r->w->cascade))
		return WREF_FAIL(r, "take_all: a parked, due or cascade list not emptied");
	for (i = 0; i < TWHEEL_LEVELS; i++)
		for (j = 0; r->w->lvl[i] && j < TWHEEL_SLOTS; j++)
			if (r->w->lvl[i]->slot[j])
				return WREF_FAIL(r, "take_all: level %u slot %u not emptied",
						 i, j);
	/*
	 * Ties in insertion order: ord[] is sorted by (eff, seq), and live
	 * entries of one deadline share their eff, so compare within each
	 * run of equal eff.
	 */
	for (i = 0; i < r->nlive; i = g) {
		u64 eff = r->obj[r->ord[i]].eff;

		for (g = i; g < r->nlive && r->obj[r->ord[g]].eff == eff; g++)
			;
		for (j = i; j < g; j++) {
			o = &r->obj[r->ord[j]];
			for (m = j + 1; m < g; m++) {
				q = &r->obj[r->ord[m]];
				if (q->expires == o->expires && q->pos < o->pos)
					return WREF_FAIL(r, "take_all: ties out of insertion order (deadline %llu)",
							 o->expires);
			}
		}
	}
	/* Every level is empty now: take them back, per @r->churn. */
	for (i = 0; i < TWHEEL_LEVELS; i++)
		if (r->w->pending[i])
			return WREF_FAIL(r, "take_all: level %u bitmap %llx left",
					 i, r->w->pending[i]);
	if (wref_check_bits(r) || wref_churn(r))
		return -1;
	/* Re-add in list order, as new entries behind one another. */
	r->clk = now;
	r->nlive = 0;
	r->npark = 0;
	list_for_each_entry_safe(e, tmp, &all, node) {
		o = container_of(e, struct wref_obj, ent);
		list_del(&e->node);
		o->live = false;
		o->parked = false;
		if (wref_add(r, (u32)(o - r->obj), o->expires))
			return -1;
	}
	return 0;
}

/*
 * Take every live entry out with remove (the parked ones too), take every
 * level back (all are empty then) and free it, then restart the wheel at
 * @start: it has no level after twheel_wheel_init().
 */
static __maybe_unused int wref_reset(struct wref *r, u64 start)
{
	unsigned int lvl;

	while (r->nlive && !r->failed)
		wref_remove(r, r->ord[r->nlive / 2]);
	while (r->npark && !r->failed)
		wref_remove(r, r->park[r->npark / 2]);
	if (r->failed)
		return -1;
	for (lvl = 0; lvl < TWHEEL_LEVELS; lvl++)
		if (r->w->pending[lvl])
			return WREF_FAIL(r, "empty wheel has level %u bitmap %llx",
					 lvl, r->w->pending[lvl]);
	if (!list_empty(&r->w->due) || !list_empty(&r->w->cascade) ||
	    !list_empty(&r->w->parked))
		return WREF_FAIL(r, "empty wheel has due, cascading or parked entries");
	if (wref_take_levels(r, TWHEEL_LEVELS + 1))
		return -1;
	for (lvl = 0; lvl < TWHEEL_LEVELS; lvl++)
		if (r->w->lvl[lvl])
			return WREF_FAIL(r, "empty level %u not taken back", lvl);
	twheel_wheel_init(r->w, start);
	for (lvl = 0; lvl < TWHEEL_LEVELS; lvl++)
		if (r->w->lvl[lvl] || r->w->pending[lvl])
			return WREF_FAIL(r, "init() left level %u", lvl);
	r->clk = start;
	r->waiting = -1;
	r->epoch++;
	r->st.resets++;
	return 0;
}

/*
 * Walk to the end the way an event-driven caller does: advance to next()
 * each time (and, before it, to the tick just before). Every entry must
 * come back exactly at its deadline tick, not before and not after.
 */
static __maybe_unused int wref_drain_exact(struct wref *r)
{
	u8 give = r->give;
	u64 t;

	r->give = WREF_GIVE_ALWAYS;	/* each advance must finish */
	r->exact = false;
	while (!r->failed && r->nlive) {
		if (wref_check_next(r))
			break;
		t = twheel_wheel_next(r->w);
		if (t > r->clk && wref_advance(r, t - 1))
			break;
		if (r->nlive && r->obj[r->ord[0]].eff == t)
			r->exact = true;
		wref_advance(r, t);
		r->exact = false;
	}
	r->give = give;
	if (!r->failed)
		wref_check_next(r);
	if (!r->failed)
		wref_check_layout(r);
	return r->failed ? -1 : 0;
}

/* ------------------------------------------------------------------ */
/* The random differential driver                                     */

/* Pick an id that is not live, or nobj if all are. */
static __maybe_unused u32 wref_idle_id(struct wref *r)
{
	u32 id, i;

	if (r->nlive == r->nobj)
		return r->nobj;
	id = wref_below(r, r->nobj);
	for (i = 0; i < r->nobj; i++, id = id + 1 == r->nobj ? 0 : id + 1)
		if (!r->obj[id].live)
			return id;
	return r->nobj;
}

static __maybe_unused u64 wref_gen_deadline(struct wref *r)
{
	u64 clk = r->clk, span, d;
	unsigned int lvl;

	switch (wref_below(r, 20)) {
	case 0:
		return wref_sat(clk, wref_below(r, 64));
	case 1:		/* in the past, or exactly now */
		return wref_satsub(clk, wref_below(r, 5000));
	case 2:		/* log-uniform distance, any size */
		return wref_sat(clk, wref_rnd_bits(r, 1 + wref_below(r, 64)));
	case 3:		/* level boundary from the (unaligned) clock */
		lvl = 1 + wref_below(r, TWHEEL_LEVELS - 1);
		span = 1ULL << (TWHEEL_LVL_BITS * lvl);
		return wref_sat(clk, span - 1 + wref_below(r, 3));
	case 4:		/* level boundary from the aligned clock */
		lvl = wref_below(r, TWHEEL_LEVELS);
		span = 1ULL << (TWHEEL_LVL_BITS * lvl);
		d = span * (1 + wref_below(r, 3));
		return wref_satsub(wref_sat(clk & ~(span - 1), d),
				   wref_below(r, 3));
	case 5:
		return U64_MAX - wref_below(r, 200);
	case 6:
		return wref_rnd64(r);
	case 7:		/* the deadline of a live entry: a tie */
	case 8:
		if (r->nlive)
			return r->obj[r->ord[wref_below(r, r->nlive)]].expires;
		return wref_sat(clk, 1);
	case 9:
		return wref_sat(clk, WREF_T12 + wref_below(r, 1U << 20));
	case 10:	/* log-uniform distance up to 2^44 */
	case 11:
		return wref_sat(clk, wref_rnd_bits(r, 1 + wref_below(r, 44)));
	default:	/* uniform over 2^(scale + 10) ticks */
		return wref_sat(clk, wref_rnd_bits(r, r->scale + 10));
	}
}

static __maybe_unused u64 wref_gen_now(struct wref *r)
{
	u64 clk = r->clk, t;
	u32 c = wref_below(r, 200);

	if (c < 130)		/* a step of up to 2^scale ticks */
		return wref_sat(clk, wref_rnd_bits(r, r->scale));
	if (c < 140)		/* small steps, log-uniform up to 2^18 */
		return wref_sat(clk, wref_below(r, 1U << (2 * wref_below(r, 10))));
	if (c < 156) {		/* exactly the next event, or the tick before */
		t = twheel_wheel_next(r->w);
		if (t == TWHEEL_NEVER && !r->nlive)
			return wref_sat(clk, 1);
		return t > clk ? t - wref_below(r, 2) : t;
	}
	if (c < 162) {		/* the earliest deadline, or the tick before */
		if (!r->nlive)
			return clk;
		t = r->obj[r->ord[0]].eff;
		return t > clk ? t - wref_below(r, 2) : t;
	}
	if (c < 166)		/* log-uniform jump up to 2^40 */
		return wref_sat(clk, wref_rnd_bits(r, 1 + wref_below(r, 40)));
	if (c < 168)
		return wref_sat(clk, WREF_T12 + wref_below(r, 1U << 20));
	if (c < 182)		/* a stale now: the clock must not move */
		return wref_satsub(clk, wref_below(r, 100));
	if (c < 199)
		return clk;
	if (c < 199 || wref_below(r, 4))
		return wref_sat(clk, wref_rnd_bits(r, 1 + wref_below(r, 64)));
	return U64_MAX - wref_below(r, 300);
}

static __maybe_unused u64 wref_gen_start(struct wref *r)
{
	unsigned int lvl;

	switch (wref_below(r, 6)) {
	case 0:
		return 0;
	case 1:
		return U64_MAX - wref_below(r, 1U << 16);
	case 2:		/* just below or at a high digit boundary */
		lvl = 1 + wref_below(r, TWHEEL_LEVELS - 1);
		return (1ULL << (TWHEEL_LVL_BITS * lvl)) - wref_below(r, 3);
	case 3:
		return U64_MAX - WREF_T12 * (1 + wref_below(r, 4));
	default:
		return wref_rnd64(r);
	}
}

/*
 * twheel_wheel_holds() may say "maybe", but never "no" for a deadline a
 * live entry has.
 */
static __maybe_unused int wref_check_holds(struct wref *r)
{
	u64 d;
	u32 i;

	if (r->failed)		/* the wheel may be broken: leave it */
		return -1;

	r->st.holds++;
	if (r->nlive && wref_below(r, 2)) {
		d = r->obj[r->ord[wref_below(r, r->nlive)]].expires;
		if (!twheel_wheel_holds(r->w, d))
			return WREF_FAIL(r, "holds(%llu) false, but an entry has it (clk %llu)",
					 d, r->clk);
		return 0;
	}
	d = wref_gen_deadline(r);
	if (twheel_wheel_holds(r->w, d))
		return 0;
	for (i = 0; i < r->nlive; i++)
		if (r->obj[r->ord[i]].expires == d)
			return WREF_FAIL(r, "holds(%llu) false, but id %u has it (clk %llu)",
					 d, r->ord[i], r->clk);
	return 0;
}

/* One random operation (a burst of same-deadline adds counts several). */
static __maybe_unused int wref_step(struct wref *r)
{
	u32 c = wref_below(r, 100), id, n;
	u64 d;

	if (c < 40) {
		id = wref_below(r, r->nobj);
		if (r->obj[id].live)
			wref_remove(r, id);
		else
			wref_add(r, id, wref_gen_deadline(r));
	} else if (c < 45) {
		if (r->nlive)
			wref_remove(r, r->ord[wref_below(r, r->nlive)]);
	} else if (c < 48) {
		d = wref_gen_deadline(r);
		for (n = 1 + wref_below(r, 16); n && !r->failed; n--) {
			id = wref_idle_id(r);
			if (id == r->nobj)
				break;
			wref_add(r, id, d);
		}
	} else if (c < 51) {	/* re-add a live entry: it goes behind */
		if (r->nlive) {
			id = r->ord[wref_below(r, r->nlive)];
			d = wref_below(r, 2) ? r->obj[id].expires :
					       wref_gen_deadline(r);
			if (!wref_remove(r, id))
				wref_add(r, id, d);
		}
	} else if (c < 82) {
		n = wref_below(r, 4);
		if (n == 3)	/* nothing due: the clock moves, or nothing */
			wref_forward(r, wref_gen_now(r));
		else if (n)
			wref_advance(r, wref_gen_now(r));
		else	/* a caller that bounds its work per lock hold */
			wref_advance_some(r, wref_gen_now(r),
					  1 + wref_below(r, 64));
	} else if (c < 94) {
		wref_check_next(r);
	} else if (c < 96) {
		/* parked entries: one removed, or all taken back */
		if (r->npark && wref_below(r, 2))
			wref_remove(r, r->park[wref_below(r, r->npark)]);
		else
			wref_take_parked(r);
	} else if (c < 99) {
		wref_check_holds(r);
	} else if (r->clk > U64_MAX - (1ULL << (r->scale + 12)) ?
		   wref_below(r, 2) : !wref_below(r, 256)) {
		wref_reset(r, wref_gen_start(r));
		r->scale = 1 + wref_below(r, 40);
	} else if (!wref_below(r, 16)) {
		/* the clock set back (or anywhere): take all, re-add */
		wref_take_all(r, wref_below(r, 2) ?
			      wref_satsub(r->clk, wref_rnd_bits(r, r->scale)) :
			      wref_gen_start(r));
	} else if (!wref_below(r, 8)) {
		r->scale = 1 + wref_below(r, 40);
	} else if (wref_below(r, 2)) {
		/* a caller that gives a level ahead of need */
		n = wref_below(r, TWHEEL_LEVELS);
		if (!r->w->lvl[n])
			wref_give(r, (int)n);
	} else {		/* or takes one back between advances */
		wref_take_levels(r, 1);
	}
	if (!r->failed && r->layout_every &&
	    r->st.ops - r->last_layout >= r->layout_every) {
		r->last_layout = r->st.ops;
		wref_check_layout(r);
	}
	return r->failed ? -1 : 0;
}

/*
 * Hand back everything that is left (parked entries stay parked, and
 * more may be parked), take the parked ones back, then check the wheel
 * is empty.
 */
static __maybe_unused int wref_finish(struct wref *r)
{
	r->give = WREF_GIVE_ALWAYS;	/* advance(U64_MAX) must finish */
	if (!r->failed)
		wref_check_layout(r);
	if (!r->failed)
		wref_advance(r, U64_MAX);
	if (!r->failed && r->nlive)
		WREF_FAIL(r, "%u entries left after advance(U64_MAX)",
			  r->nlive);
	if (!r->failed)
		wref_check_next(r);
	if (!r->failed)
		wref_take_parked(r);
	if (!r->failed && r->w->count)
		WREF_FAIL(r, "count %llu after advance(U64_MAX)", r->w->count);
	if (!r->failed && (!twheel_wheel_empty(r->w) ||
			   !twheel_wheel_idle(r->w) ||
			   twheel_wheel_next(r->w) != TWHEEL_NEVER))
		WREF_FAIL(r, "after take_parked(): empty() %d, idle() %d, next() %llu",
			  twheel_wheel_empty(r->w), twheel_wheel_idle(r->w),
			  twheel_wheel_next(r->w));
	/* Every level is empty: all of them come back. */
	if (!r->failed && !wref_take_levels(r, TWHEEL_LEVELS + 1)) {
		unsigned int lvl;

		for (lvl = 0; lvl < TWHEEL_LEVELS; lvl++)
			if (r->w->lvl[lvl])
				WREF_FAIL(r, "empty level %u not taken back", lvl);
	}
	return r->failed ? -1 : 0;
}

/*
 * The caller the fuzzer and the random runs play: levels taken back at
 * random, advances at times left waiting for a level, some of what they
 * hand back parked, cascades at times answered with a later deadline.
 */
static __maybe_unused void wref_random_caller(struct wref *r)
{
	r->churn = WREF_CHURN_RANDOM;
	r->give = WREF_GIVE_RANDOM;
	r->parking = true;
	r->rekeying = true;
	r->rk.fn = wref_rekey;
}

/*
 * The seeded random differential test: @nops operations from seed @seed,
 * starting at a clock drawn from the seed too, parking some of what the
 * advances hand back.
 */
static __maybe_unused int wref_run(struct wref *r, u64 seed, u64 nops)
{
	wref_random_caller(r);
	r->buf = NULL;
	r->rng = seed;
	if (wref_reset(r, wref_gen_start(r)))
		return -1;
	r->scale = 1 + wref_below(r, 40);
	while (r->st.ops < nops && !r->failed)
		wref_step(r);
	return wref_finish(r);
}

/* ------------------------------------------------------------------ */
/* Directed cases                                                     */

/* Every level boundary (span - 1, span, span + 1) from @start. */
static __maybe_unused int wref_boundaries_from(struct wref *r, u64 start)
{
	unsigned int lvl;
	u64 span, b;
	u32 id = 0;
	u64 k;

	if (wref_reset(r, start))
		return -1;
	for (lvl = 0; lvl < TWHEEL_LEVELS; lvl++) {
		span = 1ULL << (TWHEEL_LVL_BITS * lvl);
		/* the next multiple of span above start: a digit carry */
		b = wref_sat(start | (span - 1), 1);
		for (k = 0; k < 3; k++) {
			wref_add(r, id++, wref_satsub(wref_sat(start, span + k), 1));
			wref_add(r, id++, wref_satsub(wref_sat(b, k), 1));
		}
		/* also 64 * span: the first deadline of the next level */
		if (lvl + 1 < TWHEEL_LEVELS) {
			wref_add(r, id++, wref_sat(start, span << 6) - 1);
			wref_add(r, id++, wref_sat(start, span << 6));
		}
	}
	wref_add(r, id++, U64_MAX);
	wref_add(r, id++, U64_MAX - 1);
	if (wref_check_layout(r) || wref_check_next(r))
		return -1;
	return wref_drain_exact(r);
}

static __maybe_unused int wref_case_boundaries(struct wref *r)
{
	static const u64 starts[] = {
		0, 1ULL << 42, 1ULL << 60, 0x0123456789abcdefULL, 63, 64,
		4095, 0x00000fffffffffffULL, U64_MAX - (1ULL << 40),
		0xfedcba9876543210ULL,
	};
	unsigned int i, lvl;
	int where;

	for (i = 0; i < ARRAY_SIZE(starts); i++)
		if (wref_boundaries_from(r, starts[i]))
			return -1;

	/* From an aligned clock, span - 1 is one level below span. */
	wref_reset(r, 0);
	for (lvl = 1; lvl < TWHEEL_LEVELS; lvl++) {
		u64 span = 1ULL << (TWHEEL_LVL_BITS * lvl);

		wref_add(r, 0, span - 1);
		wref_add(r, 1, span);
		wref_add(r, 2, span + 1);
		where = wref_where(r->w, &r->obj[0].ent);
		if (where != (int)lvl - 1)
			return WREF_FAIL(r, "span-1 = %llu at level %d, want %u",
					 span - 1, where, lvl - 1);
		where = wref_where(r->w, &r->obj[1].ent);
		if (where != (int)lvl)
			return WREF_FAIL(r, "span = %llu at level %d, want %u",
					 span, where, lvl);
		where = wref_where(r->w, &r->obj[2].ent);
		if (where != (int)lvl)
			return WREF_FAIL(r, "span+1 = %llu at level %d, want %u",
					 span + 1, where, lvl);
		wref_remove(r, 0);
		wref_remove(r, 1);
		wref_remove(r, 2);
	}
	wref_add(r, 0, U64_MAX);
	where = wref_where(r->w, &r->obj[0].ent);
	if (where != TWHEEL_LEVELS - 1)
		return WREF_FAIL(r, "U64_MAX at level %d", where);
	return wref_drain_exact(r);
}

/* Deadlines in the past and equal to now: due, in insertion order. */
static __maybe_unused int wref_case_past(struct wref *r)
{
	wref_reset(r, 1000);
	wref_add(r, 0, 999);
	wref_add(r, 1, 1000);
	wref_add(r, 2, 0);
	wref_add(r, 3, 1001);
	wref_add(r, 4, 1000);
	if (wref_where(r->w, &r->obj[1].ent) != TWHEEL_LEVELS)
		return WREF_FAIL(r, "deadline == clk is not due");
	if (wref_check_next(r) || twheel_wheel_next(r->w) != 1000)
		return WREF_FAIL(r, "next() with due entries is not the clock");
	wref_remove(r, 4);		/* removal from the due list */
	wref_advance(r, 500);		/* stale: hands back due only */
	if (r->w->clk != 1000 || r->nlive != 1)
		return WREF_FAIL(r, "stale advance moved the clock or kept due");
	wref_add(r, 4, 1000);
	wref_add(r, 5, 3);
	wref_advance(r, 1000);		/* advance(clk) hands back due */
	if (r->nlive != 1)
		return WREF_FAIL(r, "advance(clk) kept due entries");
	wref_advance(r, 1000);
	wref_add(r, 0, 1001);		/* behind id 3, same deadline */
	wref_add(r, 1, 1000);		/* due: ahead of both */
	wref_advance(r, 1001);
	wref_add(r, 0, 0);
	wref_add(r, 1, U64_MAX);
	wref_add(r, 2, 1001);
	wref_advance(r, 0);
	return wref_drain_exact(r);
}

/* The largest deadline, and a clock near (and at) U64_MAX. */
static __maybe_unused int wref_case_u64_max(struct wref *r)
{
	static const u64 starts[] = {
		0, U64_MAX - 1000, U64_MAX - 64, U64_MAX - 63, U64_MAX - 1,
		1ULL << 63, (1ULL << 60) - 1,
	};
	unsigned int i;
	u32 id;

	for (i = 0; i < ARRAY_SIZE(starts); i++) {
		wref_reset(r, starts[i]);
		id = 0;
		wref_add(r, id++, U64_MAX);
		wref_add(r, id++, U64_MAX - 1);
		wref_add(r, id++, U64_MAX - 64);
		wref_add(r, id++, U64_MAX - 63);
		wref_add(r, id++, U64_MAX);
		wref_add(r, id++, wref_sat(starts[i], 1));
		wref_add(r, id++, 1ULL << 63);
		wref_add(r, id++, starts[i]);
		if (wref_drain_exact(r))
			return -1;
		if (r->w->clk != U64_MAX)
			return WREF_FAIL(r, "clk %llu after U64_MAX", r->w->clk);
		/* at the end of time, everything is due */
		wref_add(r, 0, U64_MAX);
		wref_add(r, 1, 0);
		if (wref_check_next(r) || twheel_wheel_next(r->w) != U64_MAX)
			return WREF_FAIL(r, "next() at U64_MAX");
		wref_remove(r, 0);
		wref_advance(r, 5);
		wref_add(r, 2, U64_MAX);
		wref_advance(r, U64_MAX);
		if (r->nlive)
			return WREF_FAIL(r, "entries left at U64_MAX");
	}
	/* a loaded wheel jumping straight to U64_MAX */
	wref_reset(r, 12345);
	for (id = 0; id < 200; id++)
		wref_add(r, id, wref_sat(12345, 1ULL << (id % 64)) + id);
	wref_advance(r, U64_MAX);
	return wref_finish(r);
}

/* Removal from every level, and after cascades. */
static __maybe_unused int wref_case_remove(struct wref *r)
{
	static const u64 starts[] = { 0, 0x0123456789abcdefULL, 1ULL << 59 };
	unsigned int i, lvl, step;
	u64 span;
	u32 id;

	for (i = 0; i < ARRAY_SIZE(starts); i++) {
		wref_reset(r, starts[i]);
		for (lvl = 0; lvl < TWHEEL_LEVELS; lvl++) {
			span = 1ULL << (TWHEEL_LVL_BITS * lvl);
			for (id = 0; id < 3; id++)
				wref_add(r, id, wref_sat(starts[i], span) + id);
			wref_add(r, 3, U64_MAX);
			wref_remove(r, 1);
			wref_check_layout(r);
			wref_remove(r, 0);
			wref_remove(r, 2);
			wref_check_next(r);
			wref_remove(r, 3);
			if (wref_check_layout(r) || wref_check_next(r))
				return -1;
			for (step = 0; step < TWHEEL_LEVELS; step++)
				if (r->w->pending[step])
					return WREF_FAIL(r, "level %u bits left", step);
		}
		/* after cascades: step event by event, removing as we go */
		for (id = 0; id < 400; id++)
			wref_add(r, id, wref_sat(starts[i],
						 (1ULL << (id % 61)) + id * 7));
		for (step = 0; r->nlive && !r->failed; step++) {
			wref_advance(r, twheel_wheel_next(r->w));
			if (r->nlive && step % 2)
				wref_remove(r, r->ord[r->nlive / 2]);
			if (r->nlive && step % 3 == 0)
				wref_remove(r, r->ord[r->nlive - 1]);
			if (step % 8 == 0)
				wref_check_layout(r);
			wref_check_next(r);
		}
		if (r->failed)
			return -1;
	}
	return 0;
}

/* Many entries in one slot, at level 0 and at level 3: order is kept. */
static __maybe_unused int wref_case_one_slot(struct wref *r)
{
	const u64 d = 3ULL * (1ULL << 18) + 1000;
	u32 id;

	if (r->nobj < 2000)
		return WREF_FAIL(r, "case needs 2000 objects");
	wref_reset(r, 0);
	for (id = 0; id < 1500; id++) {
		switch (id % 3) {
		case 0:
			wref_add(r, id, d);
			break;
		case 1:
			wref_add(r, id, d + 1);
			break;
		default:
			wref_add(r, id, d - 64 * (id % 5));
		}
	}
	for (id = 0; id < 1500; id += 7)
		wref_remove(r, id);
	for (id = 1500; id < 1800; id++)
		wref_add(r, id, 7);
	if (wref_check_layout(r))
		return -1;
	return wref_drain_exact(r);
}

/* Jumps of 10^12 ticks over an empty and over a loaded wheel. */
static __maybe_unused int wref_case_idle_jump(struct wref *r)
{
	unsigned int i;
	u32 id;

	wref_reset(r, 5);
	for (i = 0; i < 1000; i++) {
		wref_advance(r, r->clk + WREF_T12);
		if (twheel_wheel_next(r->w) != TWHEEL_NEVER)
			return WREF_FAIL(r, "empty wheel has a next event");
	}
	if (r->w->clk != 5 + 1000 * WREF_T12)
		return WREF_FAIL(r, "clk %llu after 1000 jumps", r->w->clk);
	r->rng = 42;
	r->buf = NULL;
	for (id = 0; id < 1500; id++)
		wref_add(r, id, r->clk + (wref_rnd64(r) >> 22));
	for (i = 0; i < 6 && !r->failed; i++) {
		wref_advance(r, r->clk + WREF_T12);
		wref_check_next(r);
		wref_check_layout(r);
	}
	return wref_finish(r);
}

/* Re-adding after removal or hand-back behaves as new. */
static __maybe_unused int wref_case_readd(struct wref *r)
{
	u32 id;

	wref_reset(r, 100);
	wref_add(r, 0, 300);
	wref_add(r, 1, 300);
	wref_remove(r, 0);
	wref_add(r, 0, 300);		/* now behind id 1 */
	wref_add(r, 2, 5000);
	wref_advance(r, 4096);		/* cascades id 2 */
	wref_remove(r, 2);
	wref_add(r, 2, 4097);
	wref_add(r, 0, 4097);		/* handed back, re-added */
	wref_add(r, 1, 100);		/* due */
	if (wref_drain_exact(r))
		return -1;
	/* the same object many times over, at many levels */
	for (id = 0; id < 200 && !r->failed; id++) {
		wref_add(r, 0, wref_sat(r->clk, 1ULL << (id % 64)));
		if (id % 2)
			wref_remove(r, 0);
		else
			wref_advance(r, twheel_wheel_next(r->w));
		if (r->obj[0].live)
			wref_remove(r, 0);
	}
	return r->failed ? -1 : 0;
}

/* Never early, and handed back by the first advance past the deadline. */
static __maybe_unused int wref_case_never_early(struct wref *r)
{
	u64 start = 0x00000123456789abULL;
	u32 id;

	wref_reset(r, start);
	r->rng = 7;
	r->buf = NULL;
	for (id = 0; id < 1000; id++)
		wref_add(r, id, start + wref_below(r, 1000000));
	while (r->nlive && !r->failed)
		wref_advance(r, r->clk + 1 + wref_below(r, 5000));
	/* tick by tick over a dense range: each at exactly its tick */
	for (id = 0; id < 900; id++)
		wref_add(r, id, r->clk + 1 + id / 3);
	r->exact = true;
	while (r->nlive && !r->failed)
		wref_advance(r, r->clk + 1);
	r->exact = false;
	return wref_finish(r);
}

/* next() against the model after every kind of change. */
static __maybe_unused int wref_case_next(struct wref *r)
{
	unsigned int lvl;
	u32 id;

	wref_reset(r, 0x00abcdef01234567ULL);
	wref_check_next(r);
	for (lvl = 0; lvl < TWHEEL_LEVELS; lvl++) {
		id = TWHEEL_LEVELS - 1 - lvl;
		wref_add(r, id, wref_sat(r->clk, 3ULL << (TWHEEL_LVL_BITS * id)));
		wref_check_next(r);
	}
	for (id = 0; id < TWHEEL_LEVELS && !r->failed; id++) {
		wref_remove(r, id);
		wref_check_next(r);
	}
	r->rng = 99;
	r->buf = NULL;
	for (id = 0; id < 3000 && !r->failed; id++) {
		wref_step(r);
		wref_check_next(r);
	}
	return wref_finish(r);
}

/*
 * Advances cut short by their budget in the middle of one big slot, with
 * adds (ties with cascading entries, the slot's own tick, the past),
 * removes of entries still cascading, next(), holds() and take_all() in
 * between: everything must come back as from one unbounded advance.
 */
static __maybe_unused int wref_case_budget(struct wref *r)
{
	const u64 base = 1ULL << 24;	/* a level-3 slot from clock 0 */
	u32 id, round, joined = 0;

	for (round = 0; round < 4 && !r->failed; round++) {
		wref_reset(r, round == 3 ? U64_MAX - (1ULL << 26) : 0);
		for (id = 0; id < 1200; id++)
			wref_add(r, id, r->clk + base + (id % 7) * 4099 +
				 (id % 3 ? 0 : 1ULL << 17));
		for (id = 0; r->nlive && !r->failed; id++) {
			wref_advance_some(r, r->clk + base + (1ULL << 20),
					  1 + id % 5);
			if (!list_empty(&r->w->cascade) && id + 1200 < 1800) {
				/* a tie with a cascading deadline */
				wref_add(r, id + 1200,
					 r->obj[r->ord[r->nlive - 1]].expires);
				joined += wref_where(r->w, &r->obj[id + 1200].ent) ==
					  TWHEEL_LEVELS + 1;
				if (id % 4 == 0)	/* the slot's own tick */
					wref_add(r, 2400 + id, r->clk);
				if (id % 9 == 0)	/* in the past */
					wref_add(r, 3200 + id, r->clk / 2);
			}
			if (id % 3 == 0 && r->nlive)
				wref_remove(r, r->ord[r->nlive / 2]);
			wref_check_next(r);
			wref_check_holds(r);
			if (id % 16 == 0)
				wref_check_layout(r);
			if (round == 2 && id == 40)
				wref_take_all(r, r->clk - 12345);
		}
	}
	if (!r->failed && joined < 10)
		return WREF_FAIL(r, "only %u adds joined a cascading slot", joined);
	return r->failed ? -1 : wref_finish(r);
}

/*
 * An advance stopped for a level it lacks in the middle of cascading a
 * slot, and left waiting while adds, removes, next() and holds() go on:
 * it must go on, once given the level, exactly where it stopped, and hand
 * back in the order of one advance. First a level-2 slot from clock 0
 * (ticks 4096..8191) whose entries go down to levels 0 and 1, neither
 * given; then a level-3 slot whose entries go down to levels 2, 1, 0.
 */
static __maybe_unused int wref_case_level_stop(struct wref *r)
{
	/* deadline - 4096: 0 handed back at the slot's tick, 1..63 go to
	 * level 0, 64..4095 to level 1 */
	static const u64 off[] = { 0, 0, 5, 200, 0, 5, 64, 4095, 1, 0 };
	static const u64 deep[] = {
		0, (3ULL << 12) + 5, 0, 70, 3, 0, (3ULL << 12) + 5, 70, 3,
	};
	static const int deep_want[] = { 2, 1, 0 };
	const u64 base = 4096, end = base + 300;
	unsigned int i, lvl;
	u64 partial, waits;

	if (wref_reset(r, 0))
		return -1;
	r->churn = WREF_CHURN_ALL;
	for (i = 0; i < ARRAY_SIZE(off); i++)
		wref_add(r, i, base + off[i]);
	for (lvl = 0; lvl < TWHEEL_LEVELS; lvl++)
		if (!r->w->lvl[lvl] != (lvl != 2))
			return WREF_FAIL(r, "level %u %s, only level 2 was needed",
					 lvl, r->w->lvl[lvl] ? "given" : "absent");
	if (wref_where(r->w, &r->obj[2].ent) != 2)
		return WREF_FAIL(r, "deadline %llu not at level 2", base + 5);
	r->give = WREF_GIVE_NEVER;

	/*
	 * A budget of 2 hands back the two of the slot's tick and stops: for
	 * its budget, even though the next entry needs a level it lacks.
	 */
	partial = r->st.partial;
	waits = r->st.level_waits;
	wref_advance_some(r, end, 2);
	if (r->failed)
		return -1;
	if (r->st.partial != partial + 1 || r->st.level_waits != waits ||
	    r->w->clk != base || r->obj[0].live || r->obj[1].live ||
	    !r->obj[2].live)
		return WREF_FAIL(r, "budget 2: partial %llu, waits %llu, clk %llu",
				 r->st.partial - partial,
				 r->st.level_waits - waits, r->w->clk);
	if (twheel_wheel_level_missing(r->w) != 0)
		return WREF_FAIL(r, "level_missing() = %d after the budget stop, want 0",
				 twheel_wheel_level_missing(r->w));

	/*
	 * Now it stops at once, id 2 needing level 0: a stop for a level
	 * moves nothing and costs no budget.
	 */
	wref_advance_some(r, end, 100);
	if (r->failed)
		return -1;
	if (r->last_left != 100)
		return WREF_FAIL(r, "a stop for a level cost %llu of the budget",
				 100 - r->last_left);
	if (r->waiting != 0 || r->st.level_waits != waits + 1 ||
	    twheel_wheel_level_missing(r->w) != 0 ||
	    !twheel_wheel_behind(r->w, end) || r->w->clk != base ||
	    wref_where(r->w, &r->obj[2].ent) != TWHEEL_LEVELS + 1)
		return WREF_FAIL(r, "no stop for level 0: waiting %d, clk %llu",
				 r->waiting, r->w->clk);
	/* The cascading slot's level was emptied, and taken back. */
	if (r->w->lvl[2])
		return WREF_FAIL(r, "empty level 2 not taken back");

	/* While it waits. */
	wref_add(r, 10, base + 5);	/* a tie: the cascade list's tail */
	wref_add(r, 11, base + 3000);	/* the slot's range: the same */
	if (wref_where(r->w, &r->obj[10].ent) != TWHEEL_LEVELS + 1 ||
	    wref_where(r->w, &r->obj[11].ent) != TWHEEL_LEVELS + 1)
		return WREF_FAIL(r, "adds in the cascading slot's range not cascading");
	if (twheel_wheel_level_needed(r->w, base + 100000) != 2)
		return WREF_FAIL(r, "level_needed(%llu) = %d, want 2",
				 base + 100000,
				 twheel_wheel_level_needed(r->w, base + 100000));
	wref_add(r, 12, base + 100000);	/* level 2, given again */
	wref_add(r, 13, base - 7);	/* due: after the cascade */
	wref_remove(r, 6);		/* still cascading */
	if (wref_where(r->w, &r->obj[12].ent) != 2 ||
	    wref_where(r->w, &r->obj[13].ent) != TWHEEL_LEVELS)
		return WREF_FAIL(r, "adds while waiting misplaced");
	if (!twheel_wheel_holds(r->w, base + 5) || wref_check_next(r) ||
	    wref_check_layout(r))
		return WREF_FAIL(r, "holds(), next() or layout while waiting");
	/* Still waiting: the same stop, nothing handed back. */
	wref_advance(r, end);
	if (r->waiting != 0)
		return WREF_FAIL(r, "waiting %d, want 0 again", r->waiting);

	/* Level 0 given: id 2 moves (one unit of budget), id 3 waits. */
	wref_give(r, 0);
	wref_advance_some(r, end, 100);
	if (r->failed)
		return -1;
	if (r->last_left != 99)
		return WREF_FAIL(r, "one move and a stop cost %llu of the budget",
				 100 - r->last_left);
	if (r->waiting != 1 || wref_where(r->w, &r->obj[2].ent) != 0 ||
	    twheel_wheel_level_missing(r->w) != 1)
		return WREF_FAIL(r, "no stop for level 1: waiting %d", r->waiting);
	/* Level 1 given: the slot finishes, ids 4 and 9, then 13 come back. */
	wref_give(r, 1);
	wref_advance(r, end);
	if (r->failed)
		return -1;
	if (r->waiting != -1 || twheel_wheel_behind(r->w, end) ||
	    r->obj[4].live || r->obj[9].live || r->obj[13].live ||
	    r->w->clk != end || r->st.level_waits != waits + 3)
		return WREF_FAIL(r, "the cascade did not finish: waiting %d, clk %llu",
				 r->waiting, r->w->clk);
	r->give = WREF_GIVE_ALWAYS;
	if (wref_drain_exact(r))
		return -1;

	/* A level-3 slot: stops for levels 2, 1 and 0, in that order. */
	if (wref_reset(r, 0))
		return -1;
	for (i = 0; i < ARRAY_SIZE(deep); i++)
		wref_add(r, i, (1ULL << 18) + deep[i]);
	r->give = WREF_GIVE_NEVER;
	for (i = 0; !r->failed; i++) {
		wref_advance(r, (1ULL << 18) + 100);
		if (r->waiting < 0)
			break;
		if (i >= ARRAY_SIZE(deep_want) || r->waiting != deep_want[i])
			return WREF_FAIL(r, "stop #%u for level %d", i,
					 r->waiting);
		wref_check_layout(r);
		wref_give(r, r->waiting);
	}
	r->give = WREF_GIVE_ALWAYS;
	if (!r->failed && i != ARRAY_SIZE(deep_want))
		return WREF_FAIL(r, "%u stops for a level, want %u", i,
				 (u32)ARRAY_SIZE(deep_want));
	return r->failed ? -1 : wref_drain_exact(r);
}

/* Check that slot @slot of level @lvl is the ring of @ids (NULL if none). */
static __maybe_unused int wref_ring_is(struct wref *r, unsigned int lvl,
				       unsigned int slot, const u32 *ids,
				       u32 n)
{
	const struct twheel_wheel *w = r->w;
	const struct list_head *first, *p;
	bool bit = (w->pending[lvl] >> slot) & 1;
	u32 i;

	first = w->lvl[lvl] ? w->lvl[lvl]->slot[slot] : NULL;
	if (!n) {
		if (first || bit)
			return WREF_FAIL(r, "level %u slot %u not empty (bit %d)",
					 lvl, slot, bit);
		return 0;
	}
	if (!bit || first != &r->obj[ids[0]].ent.node)
		return WREF_FAIL(r, "level %u slot %u: bit %d, first is not id %u",
				 lvl, slot, bit, ids[0]);
	for (i = 0, p = first; i < n; i++, p = p->next) {
		if (p != &r->obj[ids[i]].ent.node ||
		    p->prev != &r->obj[ids[(i + n - 1) % n]].ent.node)
			return WREF_FAIL(r, "level %u slot %u: ring #%u is not id %u",
					 lvl, slot, i, ids[i]);
	}
	if (p != first)
		return WREF_FAIL(r, "level %u slot %u: ring longer than %u",
				 lvl, slot, n);
	return wref_check_layout(r);
}

/*
 * Ids 0..3 form the ring of slot @slot of level @lvl, in that order, the
 * only entries of the level: remove the first, a middle one, the last and
 * then the only one, checking the slot and its ring after each. The slot
 * moves to the next entry only when the first goes, and empties with the
 * only one: bit cleared, and the level, empty, is the one taken back.
 */
static __maybe_unused int wref_ring_removes(struct wref *r, unsigned int lvl,
					    unsigned int slot)
{
	static const u32 all[] = { 0, 1, 2, 3 }, no0[] = { 1, 2, 3 };
	static const u32 no02[] = { 1, 3 }, only1[] = { 1 };
	struct twheel_level *l, *got;

	if (wref_ring_is(r, lvl, slot, all, 4))
		return -1;
	wref_remove(r, 0);		/* the first */
	if (wref_ring_is(r, lvl, slot, no0, 3))
		return -1;
	wref_remove(r, 2);		/* a middle one */
	if (wref_ring_is(r, lvl, slot, no02, 2))
		return -1;
	wref_remove(r, 3);		/* the last */
	if (wref_ring_is(r, lvl, slot, only1, 1))
		return -1;
	if (r->obj[1].ent.node.next != &r->obj[1].ent.node ||
	    r->obj[1].ent.node.prev != &r->obj[1].ent.node)
		return WREF_FAIL(r, "a ring of one is not its own");
	wref_remove(r, 1);		/* the only one */
	if (wref_ring_is(r, lvl, slot, NULL, 0))
		return -1;
	l = r->w->lvl[lvl];
	if (r->w->pending[lvl] || !l)
		return WREF_FAIL(r, "level %u: bitmap %llx after its last remove",
				 lvl, r->w->pending[lvl]);
	got = twheel_wheel_take_empty_level(r->w, false);
	if (got)
		WREF_FREE(got);
	if (got != l || r->w->lvl[lvl])
		return WREF_FAIL(r, "level %u, emptied by a remove, not the one taken back",
				 lvl);
	r->st.taken++;
	return 0;
}

/*
 * The first deadline after @start at level @lvl (digit @lvl one above the
 * clock's, every lower digit 0), or 0 when there is none (the clock's
 * digit there is the highest).
 */
static __maybe_unused u64 wref_first_at(u64 start, unsigned int lvl)
{
	unsigned int shift = TWHEEL_LVL_BITS * lvl;
	unsigned int max = lvl == TWHEEL_LEVELS - 1 ? 15 : TWHEEL_SLOT_MASK;
	unsigned int dig = (start >> shift) & TWHEEL_SLOT_MASK;
	u64 low = lvl == TWHEEL_LEVELS - 1 ? U64_MAX :
		  ((u64)TWHEEL_SLOTS << shift) - 1;

	if (dig >= max)
		return 0;
	return (start & ~low) | ((u64)(dig + 1) << shift);
}

/*
 * remove() of the first, a middle, the last and the only entry of a ring,
 * at several levels from several clocks, in rings built by adds and by a
 * cascade.
 */
static __maybe_unused int wref_case_remove_ring(struct wref *r)
{
	static const u64 starts[] = {
		0, 0x0123456789abcdefULL, U64_MAX - (1ULL << 61), 4095,
	};
	static const unsigned int lvls[] = { 0, 1, 2, 5, 9, 10 };
	unsigned int i, j, lvl;
	u64 base;
	u32 id;

	for (i = 0; i < ARRAY_SIZE(starts); i++) {
		for (j = 0; j < ARRAY_SIZE(lvls); j++) {
			lvl = lvls[j];
			base = wref_first_at(starts[i], lvl);
			if (!base)
				continue;
			if (wref_reset(r, starts[i]))
				return -1;
			/* four in one slot (at level 0, of one deadline) */
			for (id = 0; id < 4; id++)
				wref_add(r, id, base + (lvl ? (id * 5) % 7 : 0));
			if (wref_level_of(base, starts[i]) != lvl)
				return WREF_FAIL(r, "case bug: %llu not at level %u",
						 base, lvl);
			if (wref_ring_removes(r, lvl, (base >> (TWHEEL_LVL_BITS * lvl)) &
						      TWHEEL_SLOT_MASK))
				return -1;
			/* again, the rest handed back in order */
			for (id = 0; id < 4; id++)
				wref_add(r, id, base + (lvl ? (id * 5) % 7 : 0));
			wref_remove(r, 3);
			wref_remove(r, 1);
			if (wref_drain_exact(r))
				return -1;
		}
	}
	/*
	 * Rings built by a cascade: a level-2 slot from clock 64 (ticks
	 * 4096..8191) into slot 5 of level 0 (ties) and slot 3 of level 1.
	 */
	for (i = 0; i < 2; i++) {
		if (wref_reset(r, 64))
			return -1;
		for (id = 0; id < 4; id++)
			wref_add(r, id, 4096 + (i ? 3 * 64 + id : 5));
		wref_add(r, 4, 4096);
		wref_advance(r, 4096);
		if (r->failed || r->obj[4].live)
			return WREF_FAIL(r, "the cascade did not happen");
		if (wref_ring_removes(r, i, i ? 3 : 5))
			return -1;
	}
	return r->failed ? -1 : 0;
}

/*
 * The levels come and go: an empty wheel has none; an add asks for the
 * level of its deadline, and only while the wheel lacks it; with every
 * level holding entries none is taken back, and when one level empties it
 * is exactly the one taken back; then asked for again, and given again,
 * it serves again.
 */
static __maybe_unused int wref_case_levels(struct wref *r)
{
	static const u64 starts[] = {
		0, 0x0123456789abcdefULL, 4095, 0xfedcba9876543210ULL,
	};
	static const unsigned int order[] = { 5, 0, 10, 3, 1, 9, 2, 8, 4, 7, 6 };
	u64 d[TWHEEL_LEVELS], given;
	struct twheel_level *l, *got;
	unsigned int i, j, lvl;
	int need;

	for (i = 0; i < ARRAY_SIZE(starts); i++) {
		if (wref_reset(r, starts[i]))
			return -1;
		r->churn = WREF_CHURN_NONE;
		if (wref_took_one(r))
			return WREF_FAIL(r, "an empty wheel gave a level back");
		for (lvl = 0; lvl < TWHEEL_LEVELS; lvl++) {
			d[lvl] = wref_first_at(starts[i], lvl);
			need = d[lvl] ? twheel_wheel_level_needed(r->w, d[lvl]) :
			       (int)lvl;
			if (need != (int)lvl)
				return WREF_FAIL(r, "level_needed(%llu) = %d, want %u",
						 d[lvl], need, lvl);
		}
		given = r->st.given;
		for (lvl = 0; lvl < TWHEEL_LEVELS; lvl++) {
			if (!d[lvl])
				continue;
			wref_add(r, lvl, d[lvl]);
			wref_add(r, TWHEEL_LEVELS + lvl, d[lvl] + 1);
			if (twheel_wheel_level_needed(r->w, d[lvl]) != -1 ||
			    !r->w->lvl[lvl])
				return WREF_FAIL(r, "level %u not given", lvl);
			if (r->st.given != ++given)
				return WREF_FAIL(r, "level %u given twice", lvl);
		}
		if (wref_take_levels(r, 1) || wref_took_one(r))
			return WREF_FAIL(r, "a level holding entries taken back");
		for (j = 0; j < ARRAY_SIZE(order); j++) {
			lvl = order[j];
			if (!d[lvl])
				continue;
			l = r->w->lvl[lvl];
			wref_remove(r, lvl);
			if (wref_took_one(r))
				return WREF_FAIL(r, "level %u taken back with an entry",
						 lvl);
			wref_remove(r, TWHEEL_LEVELS + lvl);
			got = twheel_wheel_take_empty_level(r->w, false);
			if (got)
				WREF_FREE(got);
			if (got != l || r->w->lvl[lvl])
				return WREF_FAIL(r, "emptied level %u not the one taken back",
						 lvl);
			r->st.taken++;
			if (wref_took_one(r))
				return WREF_FAIL(r, "a second level taken back");
			if (twheel_wheel_level_needed(r->w, d[lvl]) != (int)lvl)
				return WREF_FAIL(r, "level %u taken back, not asked for",
						 lvl);
			if (wref_check_layout(r))
				return -1;
		}
		/* asked for and given again, the levels serve again */
		for (lvl = 0; lvl < TWHEEL_LEVELS; lvl++) {
			if (d[lvl])
				wref_add(r, lvl, d[lvl]);
			if (d[TWHEEL_LEVELS - 1 - lvl])
				wref_add(r, TWHEEL_LEVELS + lvl,
					 d[TWHEEL_LEVELS - 1 - lvl]);
		}
		r->churn = WREF_CHURN_ALL;
		if (wref_drain_exact(r))
			return -1;
	}
	return r->failed ? -1 : 0;
}

/*
 * Parking: entries an advance handed back, parked (twheel_wheel_park()),
 * are held (counted, removable) but have no event. With nothing else
 * held, next() is TWHEEL_NEVER, idle() is true and behind() false
 * whatever @now, and an advance hands nothing back; a remove takes one
 * from the middle of the parked list; take_parked() gives back the rest,
 * in parking order, and leaves the wheel empty. Then take_all() lists
 * parked entries last, in parking order.
 */
static __maybe_unused int wref_case_park(struct wref *r)
{
	static const u64 nows[] = { 0, 1003, 1004, 1ULL << 40, U64_MAX };
	unsigned int i;

	if (wref_reset(r, 1000))
		return -1;
	wref_add(r, 0, 1003);
	wref_add(r, 1, 1001);
	wref_add(r, 2, 1003);
	wref_add(r, 3, 999);			/* due */
	wref_add(r, 4, 1000 + 3 * 4096);	/* level 2: stays */
	wref_advance(r, 1003);			/* hands back 3, 1, 0, 2 */
	if (r->failed)
		return -1;
	/* Parked in the caller's order, 2, 3, 0; 1 is not parked. */
	wref_park(r, 2);
	wref_park(r, 3);
	wref_park(r, 0);
	/* next() is id 4's slot's: the parked ones do not make it earlier. */
	if (wref_check_layout(r) || wref_check_next(r))
		return -1;
	if (twheel_wheel_idle(r->w) || r->w->count != 4)
		return WREF_FAIL(r, "3 parked, 1 in a slot: idle() %d, count %llu",
				 twheel_wheel_idle(r->w), r->w->count);

	wref_remove(r, 4);			/* nothing but parked left */
	if (r->failed)
		return -1;
	if (twheel_wheel_next(r->w) != TWHEEL_NEVER ||
	    !twheel_wheel_idle(r->w) || twheel_wheel_empty(r->w) ||
	    r->w->count != 3)
		return WREF_FAIL(r, "parked only: next() %llu, idle() %d, empty() %d, count %llu",
				 twheel_wheel_next(r->w), twheel_wheel_idle(r->w),
				 twheel_wheel_empty(r->w), r->w->count);
	for (i = 0; i < ARRAY_SIZE(nows); i++)
		if (twheel_wheel_behind(r->w, nows[i]))
			return WREF_FAIL(r, "parked only: behind(%llu) true",
					 nows[i]);
	wref_advance(r, 1ULL << 40);		/* hands nothing back */
	wref_remove(r, 3);			/* the middle parked one */
	if (wref_check_layout(r))
		return -1;
	wref_take_parked(r);			/* 2, then 0 */
	if (r->failed)
		return -1;
	if (r->w->count || !twheel_wheel_empty(r->w) ||
	    !twheel_wheel_idle(r->w) ||
	    twheel_wheel_next(r->w) != TWHEEL_NEVER)
		return WREF_FAIL(r, "taken back: count %llu, empty() %d, idle() %d, next() %llu",
				 r->w->count, twheel_wheel_empty(r->w),
				 twheel_wheel_idle(r->w),
				 twheel_wheel_next(r->w));

	/* take_all(): the one in a slot, then the parked ones, 1 and 0. */
	wref_add(r, 0, r->clk + 1);
	wref_add(r, 1, r->clk + 1);
	wref_add(r, 2, r->clk + 100000);
	wref_advance(r, r->clk + 1);		/* hands back 0, 1 */
	wref_park(r, 1);
	wref_park(r, 0);
	wref_take_all(r, 5);
	return r->failed ? -1 : wref_finish(r);
}

/* A short random run, as a directed case (the long one is separate). */
static __maybe_unused int wref_case_random_short(struct wref *r)
{
	return wref_run(r, 0x5eedULL, 20000);
}

/*
 * The cases run with every empty level taken back after each advance
 * (WREF_CHURN_ALL, the wref_alloc() default), so that cascades keep
 * stopping for levels; a few run again with a caller that never takes a
 * level back (but at restarts).
 */
static __maybe_unused int wref_case_boundaries_kept(struct wref *r)
{
	r->churn = WREF_CHURN_NONE;
	return wref_case_boundaries(r);
}

static __maybe_unused int wref_case_remove_kept(struct wref *r)
{
	r->churn = WREF_CHURN_NONE;
	return wref_case_remove(r);
}

static __maybe_unused int wref_case_budget_kept(struct wref *r)
{
	r->churn = WREF_CHURN_NONE;
	return wref_case_budget(r);
}

static __maybe_unused int wref_case_never_early_kept(struct wref *r)
{
	r->churn = WREF_CHURN_NONE;
	return wref_case_never_early(r);
}

struct wref_case {
	const char *name;
	int (*fn)(struct wref *r);
};

static const struct wref_case wref_cases[] __maybe_unused = {
	{ "level_boundaries", wref_case_boundaries },
	{ "past_and_now", wref_case_past },
	{ "u64_max", wref_case_u64_max },
	{ "remove_every_level", wref_case_remove },
	{ "one_slot_order", wref_case_one_slot },
	{ "idle_jump", wref_case_idle_jump },
	{ "readd", wref_case_readd },
	{ "never_early", wref_case_never_early },
	{ "budget", wref_case_budget },
	{ "next_vs_model", wref_case_next },
	{ "random_short", wref_case_random_short },
	{ "level_stop_mid_cascade", wref_case_level_stop },
	{ "remove_ring", wref_case_remove_ring },
	{ "levels_come_and_go", wref_case_levels },
	{ "park", wref_case_park },
	{ "level_boundaries_levels_kept", wref_case_boundaries_kept },
	{ "remove_every_level_levels_kept", wref_case_remove_kept },
	{ "budget_levels_kept", wref_case_budget_kept },
	{ "never_early_levels_kept", wref_case_never_early_kept },
};

/* Objects a wref needs for the directed cases. */
#define WREF_CASE_OBJS		4096

#endif /* _TWHEEL_WHEEL_REF_H */
