// SPDX-License-Identifier: GPL-2.0
/*
 * twheel_wheel_kunit.c - KUnit suite "twheel_wheel" for the wheel core.
 *
 * The directed cases and the seeded random differential test live in
 * tests/wheel/wheel_ref.h, shared with the native test and the fuzzer; this
 * file runs them under KUnit, plus a few plain-KUnit checks of the
 * guarantees and of the level API that read without the model. The wheel
 * never allocates: wheel_ref.h gives it levels with kvzalloc(GFP_KERNEL)
 * (WREF_ZALLOC) and frees them; the plain checks here with kunit_kzalloc(),
 * so that KUnit frees whatever a failed assertion leaves given.
 *
 * The random test's seed and length are module parameters; the seed used
 * is printed, so a failure replays with
 *	insmod twheel_kunit.ko wheel_seed=<seed>
 * or natively, the very same operation sequence (the generators draw in a
 * fixed order, and run 0 uses 4096 objects too), with
 *	build/wheel/wheel_test <seed> <ops> 1
 */
#include <kunit/test.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/string.h>

#include "twheel_wheel.h"
#include "../wheel/wheel_ref.h"

static unsigned long long wheel_seed = 0x74776865656cULL;
module_param(wheel_seed, ullong, 0444);
MODULE_PARM_DESC(wheel_seed, "seed of the random differential test");

static unsigned int wheel_ops = 200000;
module_param(wheel_ops, uint, 0444);
MODULE_PARM_DESC(wheel_ops, "operations of the random differential test");

static struct wref *twheel_test_wref(struct kunit *test, u32 nobj)
{
	struct wref *r = wref_alloc(nobj, 0);

	KUNIT_ASSERT_NOT_NULL(test, r);
	return r;
}

static void twheel_wheel_test_entry_size(struct kunit *test)
{
	KUNIT_EXPECT_LE(test, sizeof(struct twheel_entry), 32);
	KUNIT_EXPECT_EQ(test, TWHEEL_SLOTS, 64);
	/* a level is its 64 slot pointers, nothing else */
	KUNIT_EXPECT_EQ(test, sizeof(struct twheel_level),
			TWHEEL_SLOTS * sizeof(void *));
	/* 11 levels of 6 bits hold every bit of a u64 tick */
	KUNIT_EXPECT_GE(test, TWHEEL_LEVELS * TWHEEL_LVL_BITS, 64);
	KUNIT_EXPECT_LT(test, (TWHEEL_LEVELS - 1) * TWHEEL_LVL_BITS, 64);
}

/* Give @w level @lvl, which it must lack, zeroed. */
static void twheel_test_give(struct kunit *test, struct twheel_wheel *w,
			     int lvl)
{
	struct twheel_level *l;

	KUNIT_ASSERT_GE(test, lvl, 0);
	KUNIT_ASSERT_LT(test, lvl, TWHEEL_LEVELS);
	KUNIT_ASSERT_NULL(test, w->lvl[lvl]);
	KUNIT_ASSERT_EQ(test, w->pending[lvl], 0);
	l = kunit_kzalloc(test, sizeof(*l), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, l);
	twheel_wheel_give_level(w, lvl, l);
	KUNIT_ASSERT_PTR_EQ(test, w->lvl[lvl], l);
}

/* twheel_wheel_add(), giving first the level it needs. */
static void twheel_test_add(struct kunit *test, struct twheel_wheel *w,
			    struct twheel_entry *e, u64 expires)
{
	int lvl = twheel_wheel_level_needed(w, expires);

	if (lvl >= 0) {
		twheel_test_give(test, w, lvl);
		KUNIT_EXPECT_EQ(test, twheel_wheel_level_needed(w, expires), -1);
	}
	twheel_wheel_add(w, e, expires);
}

/* twheel_wheel_advance(), giving each level it stops for. */
static u64 twheel_test_advance(struct kunit *test, struct twheel_wheel *w,
			       u64 now, struct list_head *out)
{
	u64 n = twheel_wheel_advance(w, now, out);
	int lvl;

	while ((lvl = twheel_wheel_level_missing(w)) >= 0) {
		KUNIT_EXPECT_TRUE(test, twheel_wheel_behind(w, now));
		twheel_test_give(test, w, lvl);	/* asserts it lacked it */
		n += twheel_wheel_advance(w, now, out);
	}
	KUNIT_EXPECT_FALSE(test, twheel_wheel_behind(w, now));
	return n;
}

/* Take every empty level back; return how many. */
static unsigned int twheel_test_take_empty(struct kunit *test,
					   struct twheel_wheel *w)
{
	struct twheel_level *l;
	unsigned int n = 0;

	while ((l = twheel_wheel_take_empty_level(w, false))) {
		KUNIT_EXPECT_LT(test, n, TWHEEL_LEVELS);
		if (n++ >= TWHEEL_LEVELS)
			break;
		kunit_kfree(test, l);
	}
	return n;
}

/* The guarantees, by hand, from an unaligned clock. */
static void twheel_wheel_test_guarantees(struct kunit *test)
{
	const u64 start = 0x0123456789abcdefULL;
	struct twheel_wheel *w;
	struct twheel_entry *e;
	struct list_head out;
	int i;

	w = kunit_kzalloc(test, sizeof(*w), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, w);
	e = kunit_kcalloc(test, 4, sizeof(*e), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, e);
	twheel_wheel_init(w, start);
	INIT_LIST_HEAD(&out);
	KUNIT_EXPECT_TRUE(test, twheel_wheel_empty(w));
	KUNIT_EXPECT_EQ(test, twheel_wheel_next(w), TWHEEL_NEVER);
	for (i = 0; i < TWHEEL_LEVELS; i++)
		KUNIT_EXPECT_NULL(test, w->lvl[i]);

	/* never early; handed back by the first advance with now >= it */
	twheel_test_add(test, w, &e[0], start + 100000);
	twheel_test_add(test, w, &e[1], start + 100000);
	KUNIT_EXPECT_LE(test, twheel_wheel_next(w), start + 100000);
	KUNIT_EXPECT_EQ(test, twheel_test_advance(test, w, start + 99999, &out), 0);
	KUNIT_EXPECT_TRUE(test, list_empty(&out));
	KUNIT_EXPECT_EQ(test, twheel_wheel_next(w), start + 100000);
	KUNIT_EXPECT_EQ(test, twheel_test_advance(test, w, start + 100000, &out), 2);
	KUNIT_EXPECT_PTR_EQ(test, out.next, &e[0].node);	/* insertion order */
	KUNIT_EXPECT_PTR_EQ(test, out.prev, &e[1].node);
	KUNIT_EXPECT_TRUE(test, twheel_wheel_empty(w));

	/* removal after a cascade; re-add behaves as new */
	INIT_LIST_HEAD(&out);
	twheel_test_add(test, w, &e[0], start + 5000000);
	twheel_test_add(test, w, &e[1], start + 5000000);
	for (i = 0; i < 3; i++)
		twheel_test_advance(test, w, twheel_wheel_next(w), &out);
	KUNIT_EXPECT_TRUE(test, list_empty(&out));
	twheel_wheel_remove(w, &e[0]);
	KUNIT_EXPECT_TRUE(test, list_empty(&e[0].node));
	twheel_test_add(test, w, &e[0], start + 5000000);
	KUNIT_EXPECT_EQ(test, twheel_test_advance(test, w, U64_MAX, &out), 2);
	KUNIT_EXPECT_PTR_EQ(test, out.next, &e[1].node);
	KUNIT_EXPECT_PTR_EQ(test, out.prev, &e[0].node);
	KUNIT_EXPECT_EQ(test, w->clk, U64_MAX);

	/* past, now and U64_MAX at the end of time: all due */
	INIT_LIST_HEAD(&out);
	twheel_test_add(test, w, &e[2], 0);
	twheel_test_add(test, w, &e[3], U64_MAX);
	KUNIT_EXPECT_EQ(test, twheel_wheel_next(w), U64_MAX);
	KUNIT_EXPECT_EQ(test, twheel_test_advance(test, w, 0, &out), 2);
	KUNIT_EXPECT_PTR_EQ(test, out.next, &e[2].node);
	KUNIT_EXPECT_TRUE(test, twheel_wheel_empty(w));

	/* empty, it gives every level back */
	KUNIT_EXPECT_GE(test, twheel_test_take_empty(test, w), 1);
	for (i = 0; i < TWHEEL_LEVELS; i++)
		KUNIT_EXPECT_NULL(test, w->lvl[i]);

	/* a jump of 10^12 ticks over an empty wheel */
	twheel_wheel_init(w, 17);
	INIT_LIST_HEAD(&out);
	KUNIT_EXPECT_EQ(test, twheel_test_advance(test, w, 17 + WREF_T12, &out), 0);
	KUNIT_EXPECT_EQ(test, w->clk, 17 + WREF_T12);
	for (i = 0; i < TWHEEL_LEVELS; i++) {
		KUNIT_EXPECT_EQ(test, w->pending[i], 0);
		KUNIT_EXPECT_NULL(test, w->lvl[i]);
	}
}

/* A re-key by table: a later deadline per entry (0: none), calls counted. */
struct twheel_test_rekey {
	struct twheel_rekey rk;
	struct twheel_entry *e;
	u64 to[4];
	unsigned int calls[4];
};

static u64 twheel_test_rekey_fn(struct twheel_rekey *rk, struct twheel_entry *e)
{
	struct twheel_test_rekey *r = container_of(rk, struct twheel_test_rekey,
						   rk);
	unsigned int i = e - r->e;

	r->calls[i]++;
	return r->to[i] ? r->to[i] : e->expires;
}

/* An empty wheel at tick 0, and @r's four entries. */
static struct twheel_wheel *twheel_test_rekey_new(struct kunit *test,
						  struct twheel_test_rekey *r)
{
	struct twheel_wheel *w = kunit_kzalloc(test, sizeof(*w), GFP_KERNEL);

	r->e = kunit_kcalloc(test, ARRAY_SIZE(r->to), sizeof(*r->e),
			     GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, w);
	KUNIT_ASSERT_NOT_NULL(test, r->e);
	twheel_wheel_init(w, 0);
	return w;
}

/*
 * Re-keying: only the entries a cascade moves to a lower level are asked;
 * a later deadline places the entry by it (never handed back at the old
 * one, handed back at the new), an earlier one counts as its own, each
 * move is one of the budget, and an entry due at the cascade's tick is
 * handed back unasked.
 */
static void twheel_wheel_test_rekey(struct kunit *test)
{
	struct twheel_test_rekey r = { .rk.fn = twheel_test_rekey_fn };
	struct twheel_wheel *w;
	struct list_head out;
	u64 budget;
	int i;

	w = twheel_test_rekey_new(test, &r);
	INIT_LIST_HEAD(&out);
	/* all in level 1, slot 1 (ticks 64 to 127): its event tick is 64 */
	twheel_test_add(test, w, &r.e[0], 100);
	twheel_test_add(test, w, &r.e[1], 100);
	twheel_test_add(test, w, &r.e[2], 70);
	twheel_test_add(test, w, &r.e[3], 64);
	twheel_test_give(test, w, 0);
	r.to[0] = 300;			/* pushed back: level 1, slot 4 */
	r.to[1] = 50;			/* earlier: counts as 100 */
	budget = 10;
	KUNIT_EXPECT_EQ(test, twheel_wheel_advance_some(w, 64, &out, &budget,
							&r.rk), 1);
	KUNIT_EXPECT_PTR_EQ(test, out.next, &r.e[3].node);
	KUNIT_EXPECT_EQ(test, r.calls[3], 0);	/* due at 64: not asked */
	for (i = 0; i < 3; i++)
		KUNIT_EXPECT_EQ(test, r.calls[i], 1);
	KUNIT_EXPECT_EQ(test, budget, 6);	/* one hand-back, 3 moves */
	KUNIT_EXPECT_EQ(test, r.e[0].expires, 300);
	KUNIT_EXPECT_EQ(test, r.e[1].expires, 100);
	KUNIT_EXPECT_EQ(test, r.rk.lacked, 0U);
	KUNIT_EXPECT_TRUE(test, twheel_wheel_holds(w, 300));
	KUNIT_EXPECT_EQ(test, w->count, 3);

	/* at 100, e[2] (70) then e[1]; e[0] not at its old deadline */
	INIT_LIST_HEAD(&out);
	KUNIT_EXPECT_EQ(test, twheel_wheel_advance_some(w, 255, &out, &budget,
							&r.rk), 2);
	KUNIT_EXPECT_PTR_EQ(test, out.next, &r.e[2].node);
	KUNIT_EXPECT_PTR_EQ(test, out.prev, &r.e[1].node);
	KUNIT_EXPECT_EQ(test, twheel_wheel_next(w), 256);
	/* its own cascade (256) asks again; at 300 it comes back */
	INIT_LIST_HEAD(&out);
	budget = 10;
	KUNIT_EXPECT_EQ(test, twheel_wheel_advance_some(w, 300, &out, &budget,
							&r.rk), 1);
	KUNIT_EXPECT_PTR_EQ(test, out.next, &r.e[0].node);
	KUNIT_EXPECT_EQ(test, r.calls[0], 2);
	KUNIT_EXPECT_EQ(test, w->clk, 300);
	KUNIT_EXPECT_TRUE(test, twheel_wheel_empty(w));
}

/*
 * Re-keying within the slot being cascaded: the entry goes behind the
 * entries of its new deadline still cascading, as if added then (one
 * move of the budget more); to a level the wheel lacks: by its own, the
 * level named in the re-key's lacked.
 */
static void twheel_wheel_test_rekey_order(struct kunit *test)
{
	struct twheel_test_rekey r = { .rk.fn = twheel_test_rekey_fn };
	struct twheel_wheel *w;
	struct list_head out;
	u64 budget = 20;

	w = twheel_test_rekey_new(test, &r);
	INIT_LIST_HEAD(&out);
	/* level 1, slot 1 (ticks 64 to 127), in this order */
	twheel_test_add(test, w, &r.e[0], 70);
	twheel_test_add(test, w, &r.e[1], 100);
	twheel_test_add(test, w, &r.e[2], 80);
	twheel_test_give(test, w, 0);
	r.to[0] = 100;		/* in the slot cascading: behind e[1] */
	r.to[2] = 5000;		/* level 2, which the wheel lacks */
	KUNIT_EXPECT_EQ(test, twheel_wheel_advance_some(w, 100, &out, &budget,
							&r.rk), 3);
	KUNIT_EXPECT_PTR_EQ(test, out.next, &r.e[2].node);
	KUNIT_EXPECT_PTR_EQ(test, out.next->next, &r.e[1].node);
	KUNIT_EXPECT_PTR_EQ(test, out.prev, &r.e[0].node);
	KUNIT_EXPECT_EQ(test, r.e[0].expires, 100);
	KUNIT_EXPECT_EQ(test, r.e[2].expires, 80);
	KUNIT_EXPECT_EQ(test, r.calls[0], 2);	/* asked again at the tail */
	KUNIT_EXPECT_EQ(test, budget, 13);	/* 4 moves, 3 hand-backs */
	KUNIT_EXPECT_NULL(test, w->lvl[2]);
	KUNIT_EXPECT_EQ(test, r.rk.lacked, 1U << 2);	/* named */
	KUNIT_EXPECT_TRUE(test, twheel_wheel_empty(w));
}

/*
 * The level API by hand: an add names the level it needs; an advance
 * stops in the middle of a slot for a level the wheel lacks, names it,
 * and goes on once given it; emptied levels come back.
 */
static void twheel_wheel_test_levels(struct kunit *test)
{
	struct twheel_wheel *w;
	struct twheel_entry *e;
	struct twheel_level *l;
	struct list_head out;
	u64 budget;
	int i;

	w = kunit_kzalloc(test, sizeof(*w), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, w);
	e = kunit_kcalloc(test, 3, sizeof(*e), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, e);
	twheel_wheel_init(w, 0);
	INIT_LIST_HEAD(&out);
	KUNIT_EXPECT_NULL(test, twheel_wheel_take_empty_level(w, false));
	KUNIT_EXPECT_EQ(test, twheel_wheel_level_needed(w, 0), -1);	/* due */
	KUNIT_EXPECT_EQ(test, twheel_wheel_level_needed(w, 63), 0);
	KUNIT_EXPECT_EQ(test, twheel_wheel_level_needed(w, 64), 1);
	KUNIT_EXPECT_EQ(test, twheel_wheel_level_needed(w, 4096), 2);
	KUNIT_EXPECT_EQ(test, twheel_wheel_level_needed(w, U64_MAX), 10);
	KUNIT_EXPECT_EQ(test, twheel_wheel_level_missing(w), -1);

	/* slot 1 of level 2: 4096 itself, then 4101 (level 0 from 4096) */
	twheel_test_add(test, w, &e[0], 4096);
	twheel_test_add(test, w, &e[1], 4101);
	KUNIT_EXPECT_NOT_NULL(test, w->lvl[2]);
	KUNIT_EXPECT_NULL(test, w->lvl[0]);
	KUNIT_EXPECT_NULL(test, twheel_wheel_take_empty_level(w, false));

	/* hands back e[0], then stops for level 0, budget left */
	budget = 100;
	KUNIT_EXPECT_EQ(test,
			twheel_wheel_advance_some(w, 4101, &out, &budget, NULL),
			1);
	KUNIT_EXPECT_PTR_EQ(test, out.next, &e[0].node);
	KUNIT_EXPECT_EQ(test, budget, 99);
	KUNIT_EXPECT_TRUE(test, twheel_wheel_behind(w, 4101));
	KUNIT_EXPECT_EQ(test, twheel_wheel_level_missing(w), 0);
	KUNIT_EXPECT_EQ(test, w->clk, 4096);
	KUNIT_EXPECT_EQ(test, twheel_wheel_next(w), 4096);
	/* the same stop again, nothing moved */
	KUNIT_EXPECT_EQ(test, twheel_wheel_advance(w, 4101, &out), 0);
	KUNIT_EXPECT_EQ(test, twheel_wheel_level_missing(w), 0);

	/* level 2, emptied by the cascade, comes back; nothing else */
	l = w->lvl[2];
	KUNIT_EXPECT_PTR_EQ(test, twheel_wheel_take_empty_level(w, false), l);
	KUNIT_EXPECT_NULL(test, w->lvl[2]);
	kunit_kfree(test, l);
	KUNIT_EXPECT_NULL(test, twheel_wheel_take_empty_level(w, false));

	/* a tie added while it waits joins the cascade: no level needed */
	KUNIT_EXPECT_EQ(test, twheel_wheel_level_needed(w, 4101), -1);
	twheel_wheel_add(w, &e[2], 4101);

	/* given level 0, it goes on: e[1] then e[2] at 4101 */
	twheel_test_give(test, w, 0);
	KUNIT_EXPECT_EQ(test, twheel_wheel_level_missing(w), -1);
	budget = 100;
	KUNIT_EXPECT_EQ(test,
			twheel_wheel_advance_some(w, 4101, &out, &budget, NULL),
			2);
	KUNIT_EXPECT_FALSE(test, twheel_wheel_behind(w, 4101));
	KUNIT_EXPECT_EQ(test, w->clk, 4101);
	KUNIT_EXPECT_PTR_EQ(test, out.next->next, &e[1].node);
	KUNIT_EXPECT_PTR_EQ(test, out.prev, &e[2].node);
	KUNIT_EXPECT_TRUE(test, twheel_wheel_empty(w));

	/* every level empty: all come back */
	KUNIT_EXPECT_EQ(test, twheel_test_take_empty(test, w), 1);
	for (i = 0; i < TWHEEL_LEVELS; i++)
		KUNIT_EXPECT_NULL(test, w->lvl[i]);
}

static void twheel_wheel_case_desc(const struct wref_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(twheel_wheel_case, wref_cases, twheel_wheel_case_desc);

/* One directed case of wheel_ref.h, checked against the model. */
static void twheel_wheel_test_case(struct kunit *test)
{
	const struct wref_case *c = test->param_value;
	struct wref *r = twheel_test_wref(test, WREF_CASE_OBJS);
	int ret = c->fn(r);

	KUNIT_EXPECT_FALSE_MSG(test, ret || r->failed, "%s: %s", c->name,
			       r->msg);
	wref_free(r);
}

/* The seeded random differential test, >= 200 000 operations. */
static void twheel_wheel_test_random(struct kunit *test)
{
	struct wref *r = twheel_test_wref(test, 4096);
	int ret;

	kunit_info(test, "seed 0x%llx, %u ops (replay: wheel_seed=0x%llx, or natively build/wheel/wheel_test 0x%llx %u 1)\n",
		   wheel_seed, wheel_ops, wheel_seed, wheel_seed, wheel_ops);
	ret = wref_run(r, wheel_seed, wheel_ops);
	kunit_info(test, "ops %llu: add %llu, remove %llu, advance %llu, next %llu; handed back %llu; layouts %llu, restarts %llu, max live %u\n",
		   r->st.ops, r->st.adds, r->st.removes, r->st.advances,
		   r->st.nexts, r->st.handed, r->st.layouts, r->st.resets,
		   r->st.max_live);
	kunit_info(test, "levels given %llu, taken back %llu; advances stopped by their budget %llu, for a level %llu (left waiting %llu)\n",
		   r->st.given, r->st.taken, r->st.partial, r->st.level_stops,
		   r->st.level_waits);
	kunit_info(test, "forward %llu, moved the clock %llu\n",
		   r->st.forwards, r->st.forwarded);
	KUNIT_EXPECT_GT(test, r->st.forwarded, 0);
	KUNIT_EXPECT_GT(test, r->st.forwards, r->st.forwarded);
	KUNIT_EXPECT_FALSE_MSG(test, ret || r->failed,
			       "seed 0x%llx after %llu ops: %s", wheel_seed,
			       r->st.ops, r->msg);
	KUNIT_EXPECT_GE(test, r->st.ops, (u64)wheel_ops);
	wref_free(r);
}

static struct kunit_case twheel_wheel_test_cases[] = {
	KUNIT_CASE(twheel_wheel_test_entry_size),
	KUNIT_CASE(twheel_wheel_test_guarantees),
	KUNIT_CASE(twheel_wheel_test_levels),
	KUNIT_CASE(twheel_wheel_test_rekey),
	KUNIT_CASE(twheel_wheel_test_rekey_order),
	KUNIT_CASE_PARAM(twheel_wheel_test_case, twheel_wheel_case_gen_params),
	KUNIT_CASE_SLOW(twheel_wheel_test_random),
	{}
};

static struct kunit_suite twheel_wheel_test_suite = {
	.name = "twheel_wheel",
	.test_cases = twheel_wheel_test_cases,
};

kunit_test_suite(twheel_wheel_test_suite);
