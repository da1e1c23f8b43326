/* SPDX-License-Identifier: GPL-2.0 */
/*
 * wheel_ref_case_clock.h - directed cases, first part: deadlines and the
 * clock (every level boundary, the past, U64_MAX, removes, one slot, long
 * jumps, re-adds, never early, next(), budgets). Part of wheel_ref.h; the
 * table of the cases is in wheel_ref_cases.h.
 */
#ifndef _TWHEEL_WHEEL_REF_CASE_CLOCK_H
#define _TWHEEL_WHEEL_REF_CASE_CLOCK_H

#include "wheel_ref_run.h"

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

#endif /* _TWHEEL_WHEEL_REF_CASE_CLOCK_H */
