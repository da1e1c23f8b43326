// SPDX-License-Identifier: GPL-2.0
/*
 * bench_core_twheel.c - the twheel structure of bench_core: its run of the
 * timing table's workload and of the timeout.c workload, and the cost of
 * advance() over an empty wheel.
 *
 * The structure:
 *   twheel   kmod/twheel_wheel.c, as a caller of it does: the wheel never
 *            allocates, so each add is tw_add() (twheel_wheel_level_needed(),
 *            and when it names a level, a zeroed 512-byte calloc given to
 *            the wheel) and each advance is tw_advance() (when the advance
 *            stops for a level it lacks, twheel_wheel_level_missing() names
 *            it, it is given, and the advance goes on). That is what the
 *            timed loops of twheel measure: add, remove and advance with the
 *            level checks, and the few level allocations (at most one per
 *            level, 11, in a whole run: no level is taken back during a run)
 *            where they fall, which at N >= 1000 is noise. The levels are
 *            freed after the last timed loop, untimed.
 */
#include <stdlib.h>

#include "bench_core.h"

struct tw_obj {
	struct twheel_entry e;
	u64 id;
};

/* Give @w level @lvl: a zeroed allocation, as the wheel's caller does. */
static void tw_give(struct twheel_wheel *w, int lvl)
{
	twheel_wheel_give_level(w, (unsigned int)lvl,
				xcalloc(1, sizeof(struct twheel_level)));
}

/* twheel_wheel_add(), giving first the level the add needs. */
static inline void tw_add(struct twheel_wheel *w, struct twheel_entry *e,
			  u64 expires)
{
	int lvl = twheel_wheel_level_needed(w, expires);

	if (lvl >= 0)
		tw_give(w, lvl);
	twheel_wheel_add(w, e, expires);
}

/*
 * twheel_wheel_advance(), giving each level it stops for: unbounded, it
 * stops only for a level (then level_missing() >= 0) or when done.
 */
static inline u64 tw_advance(struct twheel_wheel *w, u64 now,
			     struct list_head *out)
{
	u64 n = twheel_wheel_advance(w, now, out);
	int lvl;

	while ((lvl = twheel_wheel_level_missing(w)) >= 0) {
		tw_give(w, lvl);
		n += twheel_wheel_advance(w, now, out);
	}
	return n;
}

/* Free a wheel's levels, as a caller destroying it does. */
static void tw_free_levels(struct twheel_wheel *w)
{
	unsigned int lvl;

	for (lvl = 0; lvl < TWHEEL_LEVELS; lvl++) {
		free(w->lvl[lvl]);
		w->lvl[lvl] = NULL;
	}
}

void run_twheel(const struct work *wk, struct res *res)
{
	struct twheel_wheel *w = xcalloc(1, sizeof(*w));
	struct tw_obj *o = xcalloc(wk->n, sizeof(*o));
	struct list_head out;
	struct twheel_entry *e, *tmp;
	u64 handed = 0, sum = 0, t;
	double t0;
	u32 i;

	twheel_wheel_init(w, 0);
	for (i = 0; i < wk->n; i++)
		o[i].id = i;

	phase_start();
	t0 = now_ns();
	for (i = 0; i < wk->n; i++)
		tw_add(w, &o[i].e, wk->dl[i]);
	res->add = (now_ns() - t0) / wk->n;
	phase_end("twheel", "add", wk->n);

	phase_start();
	t0 = now_ns();
	for (i = 0; i < wk->n; i++)
		twheel_wheel_remove(w, &o[wk->perm[i]].e);
	res->remove = (now_ns() - t0) / wk->n;
	phase_end("twheel", "remove", wk->n);

	for (i = 0; i < wk->n; i++)
		tw_add(w, &o[i].e, wk->dl[i]);
	INIT_LIST_HEAD(&out);
	phase_start();
	t0 = now_ns();
	for (t = STEP; t <= DL_MAX; t += STEP) {
		handed += tw_advance(w, t, &out);
		list_for_each_entry_safe(e, tmp, &out, node)
			sum += e->expires;
		INIT_LIST_HEAD(&out);
	}
	res->expire = (now_ns() - t0) / wk->n;
	phase_end("twheel", "expire", wk->n);
	check("twheel", handed, wk->n, sum, wk->sum);
	tw_free_levels(w);
	free(o);
	free(w);
}

/* timeout.c workload: add N, cancel some, expire the rest 1 tick a call. */
void run_twheel_to(const struct work *wk, struct res *res)
{
	struct twheel_wheel *w = xcalloc(1, sizeof(*w));
	struct tw_obj *o = xcalloc(wk->n, sizeof(*o));
	u32 i, nc = to_ncancel(wk->n);
	struct twheel_entry *e, *tmp;
	u64 handed = 0, sum = 0, t;
	struct list_head out;
	double t0, ta, tc, te;

	twheel_wheel_init(w, 0);
	INIT_LIST_HEAD(&out);
	prefault(o, wk->n * sizeof(*o));
	t0 = now_ns();
	for (i = 0; i < wk->n; i++)
		tw_add(w, &o[i].e, wk->dl[i]);
	ta = now_ns() - t0;
	t0 = now_ns();
	for (i = 0; i < nc; i++)
		twheel_wheel_remove(w, &o[wk->perm[i]].e);
	tc = now_ns() - t0;
	t0 = now_ns();
	for (t = 1; t <= TO_MAX; t++) {
		handed += tw_advance(w, t, &out);
		list_for_each_entry_safe(e, tmp, &out, node)
			sum += e->expires;
		INIT_LIST_HEAD(&out);
	}
	te = now_ns() - t0;
	check("twheel (timeout.c workload)", handed, wk->n - nc, sum, wk->sum);
	res->add = ta / wk->n;
	res->remove = nc ? tc / nc : 0;
	res->expire = te / (wk->n - nc);
	res->life = (ta + tc + te) / wk->n;
	tw_free_levels(w);
	free(o);
	free(w);
}

/* ns per advance() over an empty wheel: 1 tick, and 10^12 ticks. */
void idle_jump(double *one, double *huge)
{
	struct twheel_wheel *w = xcalloc(1, sizeof(*w));
	struct list_head out;
	const int calls = 1000000;
	double t0;
	u64 got = 0;
	int i;

	INIT_LIST_HEAD(&out);
	twheel_wheel_init(w, 0);
	t0 = now_ns();
	for (i = 0; i < calls; i++)
		got += tw_advance(w, w->clk + 1, &out);
	*one = (now_ns() - t0) / calls;
	t0 = now_ns();
	for (i = 0; i < calls; i++)
		got += tw_advance(w, w->clk + 1000000000000ULL, &out);
	*huge = (now_ns() - t0) / calls;
	if (got)
		exit(3);
	tw_free_levels(w);
	free(w);
}
