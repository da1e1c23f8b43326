/* SPDX-License-Identifier: GPL-2.0 */
/*
 * wheel_ref_cases.h - the table of the directed cases (wref_cases[]) that
 * the native test and KUnit run, with the cases that only re-run others:
 * a short random run, and a few with every level kept. Part of
 * wheel_ref.h, which includes it last.
 */
#ifndef _TWHEEL_WHEEL_REF_CASES_H
#define _TWHEEL_WHEEL_REF_CASES_H

#include "wheel_ref_case_level.h"

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

#endif /* _TWHEEL_WHEEL_REF_CASES_H */
