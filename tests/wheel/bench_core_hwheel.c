// SPDX-License-Identifier: GPL-2.0
/*
 * bench_core_hwheel.c - the hashed wheel baselines (hwN) of bench_core: a
 * single-level hashed wheel with rounds, its run of the timing table's
 * workload and of the timeout.c workload.
 *
 * The structure:
 *   hwN      single-level hashed wheel with rounds, in the style of Netty's
 *            HashedWheelTimer: N buckets of one tick each, an entry goes to
 *            bucket deadline % N carrying the number of whole turns left;
 *            every tick visits its bucket, hands back the entries with 0
 *            rounds and decrements the others. Its expire cost is
 *            O(ticks + sum of deadline / N) by design. Two sizes: 512
 *            (Netty's default; timed only up to N = 10^4, as beyond that
 *            5 repetitions take minutes, but counted under callgrind at
 *            N = 10^5) and 65536.
 */
#include <stdlib.h>

#include "bench_core.h"

struct hw_obj {
	struct list_head node;
	u64 expires;
	u64 rounds;		/* whole turns left before it is due */
};

struct hwheel {
	struct list_head *b;
	u64 mask;
	u64 cur;		/* next tick to process */
};

static void hw_add(struct hwheel *hw, struct hw_obj *o, u64 expires)
{
	u64 t = expires > hw->cur ? expires : hw->cur;

	o->expires = expires;
	o->rounds = (t - hw->cur) / (hw->mask + 1);
	list_add_tail(&o->node, &hw->b[t & hw->mask]);
}

static void hw_remove(struct hw_obj *o)
{
	list_del_init(&o->node);
}

/* Process every tick up to @now; append due entries to @out. */
static u64 hw_advance(struct hwheel *hw, u64 now, struct list_head *out)
{
	struct hw_obj *o, *tmp;
	struct list_head *b;
	u64 n = 0;

	for (; hw->cur <= now; hw->cur++) {
		b = &hw->b[hw->cur & hw->mask];
		list_for_each_entry_safe(o, tmp, b, node) {
			if (o->rounds) {
				o->rounds--;
			} else {
				list_move_tail(&o->node, out);
				n++;
			}
		}
	}
	return n;
}

void run_hwheel(const struct work *wk, struct res *res, u32 hw_slots,
		const char *name)
{
	struct hwheel hw = {
		.b = xcalloc(hw_slots, sizeof(*hw.b)),
		.mask = hw_slots - 1,
		.cur = 0,
	};
	struct hw_obj *o = xcalloc(wk->n, sizeof(*o)), *e, *tmp;
	struct list_head out;
	u64 handed = 0, sum = 0, t;
	double t0;
	u32 i;

	for (i = 0; i < hw_slots; i++)
		INIT_LIST_HEAD(&hw.b[i]);

	phase_start();
	t0 = now_ns();
	for (i = 0; i < wk->n; i++)
		hw_add(&hw, &o[i], wk->dl[i]);
	res->add = (now_ns() - t0) / wk->n;
	phase_end(name, "add", wk->n);

	phase_start();
	t0 = now_ns();
	for (i = 0; i < wk->n; i++)
		hw_remove(&o[wk->perm[i]]);
	res->remove = (now_ns() - t0) / wk->n;
	phase_end(name, "remove", wk->n);

	for (i = 0; i < wk->n; i++)
		hw_add(&hw, &o[i], wk->dl[i]);
	INIT_LIST_HEAD(&out);
	phase_start();
	t0 = now_ns();
	for (t = STEP; t <= DL_MAX; t += STEP) {
		handed += hw_advance(&hw, t, &out);
		list_for_each_entry_safe(e, tmp, &out, node)
			sum += e->expires;
		INIT_LIST_HEAD(&out);
	}
	res->expire = (now_ns() - t0) / wk->n;
	phase_end(name, "expire", wk->n);
	check(name, handed, wk->n, sum, wk->sum);
	free(o);
	free(hw.b);
}

void run_hwheel_to(const struct work *wk, struct res *res, u32 hw_slots)
{
	struct hwheel hw = {
		.b = xcalloc(hw_slots, sizeof(*hw.b)),
		.mask = hw_slots - 1,
		.cur = 0,
	};
	struct hw_obj *o = xcalloc(wk->n, sizeof(*o)), *e, *tmp;
	u32 i, nc = to_ncancel(wk->n);
	u64 handed = 0, sum = 0, t;
	double t0, ta, tc, te;
	struct list_head out;

	for (i = 0; i < hw_slots; i++)
		INIT_LIST_HEAD(&hw.b[i]);
	INIT_LIST_HEAD(&out);
	prefault(o, wk->n * sizeof(*o));
	t0 = now_ns();
	for (i = 0; i < wk->n; i++)
		hw_add(&hw, &o[i], wk->dl[i]);
	ta = now_ns() - t0;
	t0 = now_ns();
	for (i = 0; i < nc; i++)
		hw_remove(&o[wk->perm[i]]);
	tc = now_ns() - t0;
	t0 = now_ns();
	for (t = 1; t <= TO_MAX; t++) {
		handed += hw_advance(&hw, t, &out);
		list_for_each_entry_safe(e, tmp, &out, node)
			sum += e->expires;
		INIT_LIST_HEAD(&out);
	}
	te = now_ns() - t0;
	check("hashed wheel (timeout.c workload)", handed, wk->n - nc, sum,
	      wk->sum);
	res->add = ta / wk->n;
	res->remove = nc ? tc / nc : 0;
	res->expire = te / (wk->n - nc);
	res->life = (ta + tc + te) / wk->n;
	free(o);
	free(hw.b);
}
