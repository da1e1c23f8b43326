// SPDX-License-Identifier: GPL-2.0
/*
 * twheel_wheel_kunit.c - KUnit suite "twheel_wheel" for the wheel core.
 *
 * The directed cases and the seeded random differential test live in
 * tests/wheel/wheel_ref.h, shared with the native test and the fuzzer; this
 * file runs them under KUnit, plus a few plain-KUnit checks of the
 * guarantees that read without the model.
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
	/* 11 levels of 6 bits hold every bit of a u64 tick */
	KUNIT_EXPECT_GE(test, TWHEEL_LEVELS * TWHEEL_LVL_BITS, 64);
	KUNIT_EXPECT_LT(test, (TWHEEL_LEVELS - 1) * TWHEEL_LVL_BITS, 64);
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

	/* never early; handed back by the first advance with now >= it */
	twheel_wheel_add(w, &e[0], start + 100000);
	twheel_wheel_add(w, &e[1], start + 100000);
	KUNIT_EXPECT_LE(test, twheel_wheel_next(w), start + 100000);
	KUNIT_EXPECT_EQ(test, twheel_wheel_advance(w, start + 99999, &out), 0);
	KUNIT_EXPECT_TRUE(test, list_empty(&out));
	KUNIT_EXPECT_EQ(test, twheel_wheel_next(w), start + 100000);
	KUNIT_EXPECT_EQ(test, twheel_wheel_advance(w, start + 100000, &out), 2);
	KUNIT_EXPECT_PTR_EQ(test, out.next, &e[0].node);	/* insertion order */
	KUNIT_EXPECT_PTR_EQ(test, out.prev, &e[1].node);
	KUNIT_EXPECT_TRUE(test, twheel_wheel_empty(w));

	/* removal after a cascade; re-add behaves as new */
	INIT_LIST_HEAD(&out);
	twheel_wheel_add(w, &e[0], start + 5000000);
	twheel_wheel_add(w, &e[1], start + 5000000);
	for (i = 0; i < 3; i++)
		twheel_wheel_advance(w, twheel_wheel_next(w), &out);
	KUNIT_EXPECT_TRUE(test, list_empty(&out));
	twheel_wheel_remove(w, &e[0]);
	KUNIT_EXPECT_TRUE(test, list_empty(&e[0].node));
	twheel_wheel_add(w, &e[0], start + 5000000);
	KUNIT_EXPECT_EQ(test, twheel_wheel_advance(w, U64_MAX, &out), 2);
	KUNIT_EXPECT_PTR_EQ(test, out.next, &e[1].node);
	KUNIT_EXPECT_PTR_EQ(test, out.prev, &e[0].node);
	KUNIT_EXPECT_EQ(test, w->clk, U64_MAX);

	/* past, now and U64_MAX at the end of time: all due */
	INIT_LIST_HEAD(&out);
	twheel_wheel_add(w, &e[2], 0);
	twheel_wheel_add(w, &e[3], U64_MAX);
	KUNIT_EXPECT_EQ(test, twheel_wheel_next(w), U64_MAX);
	KUNIT_EXPECT_EQ(test, twheel_wheel_advance(w, 0, &out), 2);
	KUNIT_EXPECT_PTR_EQ(test, out.next, &e[2].node);
	KUNIT_EXPECT_TRUE(test, twheel_wheel_empty(w));

	/* a jump of 10^12 ticks over an empty wheel */
	twheel_wheel_init(w, 17);
	INIT_LIST_HEAD(&out);
	KUNIT_EXPECT_EQ(test, twheel_wheel_advance(w, 17 + WREF_T12, &out), 0);
	KUNIT_EXPECT_EQ(test, w->clk, 17 + WREF_T12);
	for (i = 0; i < TWHEEL_LEVELS; i++)
		KUNIT_EXPECT_EQ(test, w->pending[i], 0);
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
	KUNIT_EXPECT_FALSE_MSG(test, ret || r->failed,
			       "seed 0x%llx after %llu ops: %s", wheel_seed,
			       r->st.ops, r->msg);
	KUNIT_EXPECT_GE(test, r->st.ops, (u64)wheel_ops);
	wref_free(r);
}

static struct kunit_case twheel_wheel_test_cases[] = {
	KUNIT_CASE(twheel_wheel_test_entry_size),
	KUNIT_CASE(twheel_wheel_test_guarantees),
	KUNIT_CASE_PARAM(twheel_wheel_test_case, twheel_wheel_case_gen_params),
	KUNIT_CASE_SLOW(twheel_wheel_test_random),
	{}
};

static struct kunit_suite twheel_wheel_test_suite = {
	.name = "twheel_wheel",
	.test_cases = twheel_wheel_test_cases,
};

kunit_test_suite(twheel_wheel_test_suite);
