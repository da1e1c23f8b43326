/* SPDX-License-Identifier: GPL-2.0 */
/*
 * wheel_ref_run.h - the random differential driver: the generators of
 * ids, deadlines, clocks and starts, one random operation (wref_step()),
 * the end of a run (wref_finish()), the random caller the fuzzer and the
 * random runs play (wref_random_caller()) and the seeded run (wref_run()).
 * Part of wheel_ref.h.
 */
#ifndef _TWHEEL_WHEEL_REF_RUN_H
#define _TWHEEL_WHEEL_REF_RUN_H

#include "wheel_ref_advance.h"

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

#endif /* _TWHEEL_WHEEL_REF_RUN_H */
