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
 * internal layout (wref_check_layout()).
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
	u32 pos;		/* scratch: position in a take_all list */
	bool live;
};

struct wref_stats {
	u64 ops;
	u64 adds;
	u64 removes;
	u64 advances;
	u64 handed;
	u64 nexts;
	u64 layouts;
	u64 resets;
	u64 partial;		/* advances stopped by their budget */
	u64 take_alls;
	u64 holds;
	u64 max_handed;		/* most entries handed back by one advance */
	u64 live_sum;		/* sum over advances of the live count */
	u32 max_live;
};

struct wref {
	struct twheel_wheel *w;
	struct wref_obj *obj;
	u32 *ord;		/* live ids, sorted by (eff, seq) */
	u32 nobj;
	u32 nlive;
	u64 clk;		/* the model's clock */
	u64 seq;
	bool exact;		/* every hand-back must happen at tick == eff */
	u32 scale;		/* random runs: typical step is 2^scale ticks */
	u32 layout_every;	/* check the layout every so many ops (0: no) */
	u64 last_layout;
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

static __maybe_unused void wref_free(struct wref *r)
{
	if (!r)
		return;
	WREF_FREE(r->w);
	WREF_FREE(r->obj);
	WREF_FREE(r->ord);
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
	if (!r->w || !r->obj || !r->ord) {
		wref_free(r);
		return NULL;
	}
	r->nobj = nobj;
	r->clk = start;
	r->layout_every = 1024;
	r->scale = 10;
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

/*
 * What twheel_wheel_next() must say, computed independently of the wheel
 * (plain digit scan, no fls64): the clock if something is due; otherwise
 * the earliest deadline with the digits below its level cleared, its level
 * being the highest 6-bit digit in which it differs from the clock.
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

static __maybe_unused int wref_check_count(struct wref *r)
{
	if (r->w->count != r->nlive)
		return WREF_FAIL(r, "count %llu, model has %u live",
				 r->w->count, r->nlive);
	if (twheel_wheel_empty(r->w) != !r->nlive)
		return WREF_FAIL(r, "twheel_wheel_empty() wrong with %u live",
				 r->nlive);
	return 0;
}

static __maybe_unused int wref_check_next(struct wref *r)
{
	u64 got = twheel_wheel_next(r->w), want = wref_want_next(r);

	r->st.nexts++;
	if (got != want)
		return WREF_FAIL(r,
				 "next() = %llu, want %llu (clk %llu, %u live, earliest deadline %llu)",
				 got, want, r->clk, r->nlive,
				 r->nlive ? r->obj[r->ord[0]].eff : 0ULL);
	if (r->nlive && got > r->obj[r->ord[0]].eff)
		return WREF_FAIL(r, "next() = %llu after earliest deadline %llu",
				 got, r->obj[r->ord[0]].eff);
	return 0;
}

/*
 * Level (0..10) at which @e sits, TWHEEL_LEVELS if due, TWHEEL_LEVELS + 1
 * if on the cascade list of an unfinished advance, -1 if lost.
 */
static __maybe_unused int wref_where(const struct twheel_wheel *w,
				     const struct twheel_entry *e)
{
	const struct list_head *p = e->node.next;
	const struct list_head *lo = &w->slots[0][0];
	const struct list_head *hi = &w->slots[TWHEEL_LEVELS - 1][TWHEEL_SLOTS - 1];
	u32 guard = 0;

	for (; p != &e->node && guard < 0x1000000; p = p->next, guard++) {
		if (p == &w->due)
			return TWHEEL_LEVELS;
		if (p >= lo && p <= hi)
			return (int)((p - lo) / TWHEEL_SLOTS);
		if (p == &w->cascade)
			return TWHEEL_LEVELS + 1;
	}
	return -1;
}

/*
 * White-box: every entry sits where its deadline puts it relative to the
 * wheel's clock, the bitmaps match the slots, the counts add up, the
 * entries are the model's live ones.
 */
static __maybe_unused int wref_check_layout(struct wref *r)
{
	const struct twheel_wheel *w = r->w;
	const struct twheel_entry *e;
	const struct wref_obj *o;
	unsigned int lvl, slot, want;
	u64 n = 0, x;

	r->st.layouts++;
	if (w->clk != r->clk)
		return WREF_FAIL(r, "clk %llu, model %llu", w->clk, r->clk);
	list_for_each_entry(e, &w->due, node) {
		o = container_of(e, struct wref_obj, ent);
		if (e->expires > w->clk || !o->live || o->eff != w->clk)
			return WREF_FAIL(r, "due entry %ld expires %llu clk %llu",
					 (long)(o - r->obj), e->expires, w->clk);
		n++;
	}
	list_for_each_entry(e, &w->cascade, node) {
		o = container_of(e, struct wref_obj, ent);
		if (e->expires < w->clk || !o->live ||
		    (e->expires >> w->casc_shift) != (w->clk >> w->casc_shift))
			return WREF_FAIL(r, "cascading entry %ld expires %llu clk %llu shift %u",
					 (long)(o - r->obj), e->expires, w->clk,
					 w->casc_shift);
		n++;
	}
	for (lvl = 0; lvl < TWHEEL_LEVELS; lvl++) {
		for (slot = 0; slot < TWHEEL_SLOTS; slot++) {
			const struct list_head *h = &w->slots[lvl][slot];
			bool bit = (w->pending[lvl] >> slot) & 1;

			if (bit == list_empty(h))
				return WREF_FAIL(r, "level %u slot %u: bit %d, list %s",
						 lvl, slot, bit,
						 list_empty(h) ? "empty" : "not empty");
			list_for_each_entry(e, h, node) {
				o = container_of(e, struct wref_obj, ent);
				x = e->expires ^ w->clk;
				for (want = TWHEEL_LEVELS - 1; want > 0; want--)
					if (x >> (TWHEEL_LVL_BITS * want))
						break;
				if (e->expires <= w->clk || want != lvl ||
				    ((e->expires >> (TWHEEL_LVL_BITS * lvl)) &
				     TWHEEL_SLOT_MASK) != slot || !o->live ||
				    o->expires != e->expires)
					return WREF_FAIL(r,
							 "entry %ld (expires %llu) misplaced at level %u slot %u, clk %llu",
							 (long)(o - r->obj),
							 e->expires, lvl, slot,
							 w->clk);
				n++;
			}
		}
	}
	if (n != w->count || n != r->nlive)
		return WREF_FAIL(r, "layout holds %llu, count %llu, model %u",
				 n, w->count, r->nlive);
	return 0;
}

static __maybe_unused int wref_add(struct wref *r, u32 id, u64 expires)
{
	struct wref_obj *o = &r->obj[id];
	u32 at;

	if (o->live)
		return WREF_FAIL(r, "driver bug: add of live %u", id);
	o->expires = expires;
	o->eff = wref_max(expires, r->clk);
	o->seq = r->seq++;
	o->live = true;
	at = wref_count_le(r, o->eff);	/* behind every equal deadline */
	memmove(&r->ord[at + 1], &r->ord[at],
		sizeof(*r->ord) * (r->nlive - at));
	r->ord[at] = id;
	r->nlive++;
	if (r->nlive > r->st.max_live)
		r->st.max_live = r->nlive;
	r->st.adds++;
	r->st.ops++;

	twheel_wheel_add(r->w, &o->ent, expires);
	if (o->ent.expires != expires)
		return WREF_FAIL(r, "add(%llu) stored %llu", expires,
				 o->ent.expires);
	return wref_check_count(r);
}

static __maybe_unused int wref_remove(struct wref *r, u32 id)
{
	struct wref_obj *o = &r->obj[id];
	u32 at;

	if (!o->live)
		return WREF_FAIL(r, "driver bug: remove of idle %u", id);
	at = wref_find(r, id);
	if (at >= r->nlive || r->ord[at] != id)
		return WREF_FAIL(r, "model bug: %u not found", id);
	memmove(&r->ord[at], &r->ord[at + 1],
		sizeof(*r->ord) * (r->nlive - at - 1));
	r->nlive--;
	o->live = false;
	r->st.removes++;
	r->st.ops++;

	twheel_wheel_remove(r->w, &o->ent);
	if (!list_empty(&o->ent.node))
		return WREF_FAIL(r, "remove(%u) left the node linked", id);
	return wref_check_count(r);
}

/*
 * Advance both to @now, the wheel within @budget entry moves, and compare
 * what comes back. A marker node is put on the list first to check that
 * the wheel appends and keeps what the caller had there. An advance the
 * budget stopped (twheel_wheel_behind()) must have handed back a prefix of
 * what the model says is due, in order; the model then takes the wheel's
 * clock (the tick of the slot it was working on) as its own, which is the
 * clock later adds are placed against.
 */
static __maybe_unused int wref_advance_some(struct wref *r, u64 now,
					    u64 budget)
{
	u64 newclk = wref_max(r->clk, now), n, left;
	struct list_head got, mark, *p;
	struct wref_obj *o, *want;
	bool behind;
	u32 k, i;

	k = wref_count_le(r, newclk);
	INIT_LIST_HEAD(&got);
	list_add_tail(&mark, &got);
	left = budget;
	n = twheel_wheel_advance_some(r->w, now, &got, &left);
	behind = twheel_wheel_behind(r->w, now);
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
		r->st.partial++;
		r->clk = r->w->clk;
		return wref_check_count(r);
	}
	r->clk = newclk;
	if (r->w->clk != newclk)
		return WREF_FAIL(r, "advance(%llu): clk %llu, want %llu", now,
				 r->w->clk, newclk);
	return wref_check_count(r);
}

static __maybe_unused int wref_advance(struct wref *r, u64 now)
{
	return wref_advance_some(r, now, U64_MAX);
}

/*
 * The clock goes back (or anywhere): take every entry out with
 * twheel_wheel_take_all() and re-add them in the order given, as a caller
 * whose clock was set back does. The list must hold exactly the live
 * entries, entries of one deadline in their insertion order; the model
 * then re-adds them in that order too.
 */
static __maybe_unused int wref_take_all(struct wref *r, u64 now)
{
	struct twheel_entry *e, *tmp;
	struct wref_obj *o, *q;
	struct list_head all;
	u32 i, j, m, g, n = 0;
	u64 got;

	INIT_LIST_HEAD(&all);
	got = twheel_wheel_take_all(r->w, now, &all);
	r->st.take_alls++;
	list_for_each_entry(e, &all, node) {
		o = container_of(e, struct wref_obj, ent);
		if (!o->live || o->expires != e->expires)
			return WREF_FAIL(r, "take_all: id %ld not live or changed",
					 (long)(o - r->obj));
		o->pos = n++;
	}
	if (n != r->nlive || got != n || r->w->count || r->w->clk != now)
		return WREF_FAIL(r, "take_all: %u listed, returned %llu, %u live, count %llu",
				 n, got, r->nlive, r->w->count);
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
	/* Re-add in list order, as new entries behind one another. */
	r->clk = now;
	r->nlive = 0;
	list_for_each_entry_safe(e, tmp, &all, node) {
		o = container_of(e, struct wref_obj, ent);
		list_del(&e->node);
		o->live = false;
		if (wref_add(r, (u32)(o - r->obj), o->expires))
			return -1;
	}
	return 0;
}

/* Take every live entry out with remove, then restart the wheel at @start. */
static __maybe_unused int wref_reset(struct wref *r, u64 start)
{
	while (r->nlive && !r->failed)
		wref_remove(r, r->ord[r->nlive / 2]);
	if (r->failed)
		return -1;
	if (r->w->pending[0] | r->w->pending[1] | r->w->pending[5] |
	    r->w->pending[TWHEEL_LEVELS - 1] || !list_empty(&r->w->due))
		return WREF_FAIL(r, "empty wheel still has bits set");
	twheel_wheel_init(r->w, start);
	r->clk = start;
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
	u64 t;

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
		if (wref_below(r, 3))
			wref_advance(r, wref_gen_now(r));
		else	/* a caller that bounds its work per lock hold */
			wref_advance_some(r, wref_gen_now(r),
					  1 + wref_below(r, 64));
	} else if (c < 96) {
		wref_check_next(r);
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
	}
	if (!r->failed && r->layout_every &&
	    r->st.ops - r->last_layout >= r->layout_every) {
		r->last_layout = r->st.ops;
		wref_check_layout(r);
	}
	return r->failed ? -1 : 0;
}

/* Hand back everything that is left, then check the wheel is empty. */
static __maybe_unused int wref_finish(struct wref *r)
{
	if (!r->failed)
		wref_check_layout(r);
	if (!r->failed)
		wref_advance(r, U64_MAX);
	if (!r->failed && r->nlive)
		WREF_FAIL(r, "%u entries left after advance(U64_MAX)",
			  r->nlive);
	if (!r->failed)
		wref_check_next(r);
	return r->failed ? -1 : 0;
}

/*
 * The seeded random differential test: @nops operations from seed @seed,
 * starting at a clock drawn from the seed too.
 */
static __maybe_unused int wref_run(struct wref *r, u64 seed, u64 nops)
{
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

/* A short random run, as a directed case (the long one is separate). */
static __maybe_unused int wref_case_random_short(struct wref *r)
{
	return wref_run(r, 0x5eedULL, 20000);
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
};

/* Objects a wref needs for the directed cases. */
#define WREF_CASE_OBJS		4096

#endif /* _TWHEEL_WHEEL_REF_H */
