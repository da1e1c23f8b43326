/* SPDX-License-Identifier: GPL-2.0 */
/*
 * wheel_ref_model.h - the reference model of the twheel wheel core: its
 * state, failure reports, allocation, randomness and the order of its
 * entries. Part of wheel_ref.h, which includes it first.
 *
 * The reference model is deliberately plain: the live entries' ids in an
 * array sorted by (effective deadline, insertion sequence), where the
 * effective deadline is max(expires, clock at add): an entry added at or
 * before the clock is due at once, and comes back ahead of everything
 * else, in insertion order. An advance to @now hands back, in array order,
 * exactly the prefix whose effective deadline is <= max(clock, @now).
 *
 * Randomness comes from a seeded PRNG or, for the fuzzer, from the fuzz
 * input itself, so both explore operation sequences through the same
 * generators.
 */
#ifndef _TWHEEL_WHEEL_REF_MODEL_H
#define _TWHEEL_WHEEL_REF_MODEL_H

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

static __maybe_unused __printf(4, 5)
int wref_fail(struct wref *r, const char *file, int line, const char *fmt,
	      ...)
{
	const char *base = strrchr(file, '/');
	va_list ap;
	int n;

	if (r->failed)
		return -1;
	r->failed = true;
	n = snprintf(r->msg, sizeof(r->msg), "%s:%d: ", base ? base + 1 : file,
		     line);
	va_start(ap, fmt);
	vsnprintf(r->msg + n, sizeof(r->msg) - n, fmt, ap);
	va_end(ap);
	return -1;
}

#define WREF_FAIL(r, ...)	wref_fail(r, __FILE__, __LINE__, __VA_ARGS__)

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
/* The model                                                          */

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

#endif /* _TWHEEL_WHEEL_REF_MODEL_H */
