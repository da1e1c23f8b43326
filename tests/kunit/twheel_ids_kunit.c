// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of the id table (twheel_ids.c): ids never repeat, slots are
 * reused so that the table's memory follows the most ids live at once,
 * and a slot whose generations are used up is retired.
 */
#include <kunit/test.h>
#include <linux/random.h>
#include <linux/slab.h>
#include <linux/sort.h>

#include "twheel_ids.h"

/* Objects the table points to: 2-byte aligned, as it requires. */
struct ids_obj {
	u64 id;
	bool live;
};

static int ids_cmp(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return (x > y) - (x < y);
}

static void twheel_ids_alloc_find_remove(struct kunit *test)
{
	struct twheel_ids ids;
	struct ids_obj a, b;
	u64 old;

	twheel_ids_init(&ids);
	KUNIT_EXPECT_EQ(test, twheel_ids_bytes(&ids), (size_t)0);
	KUNIT_ASSERT_EQ(test, twheel_ids_alloc(&ids, &a, &a.id), 0);
	KUNIT_ASSERT_EQ(test, twheel_ids_alloc(&ids, &b, &b.id), 0);
	KUNIT_EXPECT_NE(test, a.id, 0ULL);
	KUNIT_EXPECT_NE(test, a.id, b.id);
	KUNIT_EXPECT_PTR_EQ(test, twheel_ids_find(&ids, a.id), (void *)&a);
	KUNIT_EXPECT_PTR_EQ(test, twheel_ids_find(&ids, b.id), (void *)&b);
	KUNIT_EXPECT_NULL(test, twheel_ids_find(&ids, 0));
	KUNIT_EXPECT_NULL(test, twheel_ids_find(&ids, U64_MAX));
	KUNIT_EXPECT_NULL(test, twheel_ids_find(&ids, b.id + 1));
	/* The bits left to the caller are never part of an id. */
	KUNIT_EXPECT_EQ(test, a.id & TWHEEL_IDS_FREE_BITS, 0ULL);
	KUNIT_EXPECT_NULL(test, twheel_ids_find(&ids, a.id | 1ULL << 31));

	old = a.id;
	twheel_ids_remove(&ids, a.id);
	KUNIT_EXPECT_NULL(test, twheel_ids_find(&ids, old));
	/* The slot comes back with a new id. */
	KUNIT_ASSERT_EQ(test, twheel_ids_alloc(&ids, &a, &a.id), 0);
	KUNIT_EXPECT_NE(test, a.id, old);
	KUNIT_EXPECT_EQ(test, (u32)a.id, (u32)old);
	/* The old id finds the slot's new object: callers compare ids. */
	KUNIT_EXPECT_PTR_EQ(test, twheel_ids_find(&ids, old), (void *)&a);
	KUNIT_EXPECT_EQ(test, twheel_ids_bytes(&ids),
			PAGE_SIZE + 8 * sizeof(void *));
	twheel_ids_destroy(&ids);
}

/* A slot at its last generation is retired, not reused. */
static void twheel_ids_retire(struct kunit *test)
{
	struct twheel_ids ids;
	struct ids_obj a, b;
	u64 last;

	twheel_ids_init(&ids);
	KUNIT_ASSERT_EQ(test, twheel_ids_alloc(&ids, &a, &a.id), 0);
	/* Pretend the slot went through 2^29 - 1 uses already. */
	last = (u64)((1U << 29) - 1) << TWHEEL_IDS_GEN_SHIFT | (u32)a.id;
	twheel_ids_remove(&ids, last);
	KUNIT_EXPECT_NULL(test, twheel_ids_find(&ids, a.id));
	KUNIT_ASSERT_EQ(test, twheel_ids_alloc(&ids, &b, &b.id), 0);
	KUNIT_EXPECT_NE(test, (u32)b.id, (u32)a.id);
	KUNIT_EXPECT_NULL(test, twheel_ids_find(&ids, last));
	twheel_ids_destroy(&ids);
}

/*
 * Random adds and removes: every id handed out is new, every live one is
 * found, every removed one is not, and the table never has more slots
 * than the most objects live at once.
 */
static void twheel_ids_random(struct kunit *test)
{
	const unsigned int nobj = 3000, ops = 60000;
	unsigned int i, k, live = 0, peak = 0, nseen = 0;
	struct ids_obj *obj;
	struct twheel_ids ids;
	u64 *seen;
	u32 slot;

	obj = kunit_kcalloc(test, nobj, sizeof(*obj), GFP_KERNEL);
	seen = kunit_kcalloc(test, ops, sizeof(*seen), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, obj);
	KUNIT_ASSERT_NOT_NULL(test, seen);
	twheel_ids_init(&ids);
	for (i = 0; i < ops; i++) {
		k = get_random_u32_below(nobj);
		if (obj[k].live) {
			KUNIT_ASSERT_PTR_EQ(test, twheel_ids_find(&ids, obj[k].id),
					    (void *)&obj[k]);
			twheel_ids_remove(&ids, obj[k].id);
			KUNIT_EXPECT_NULL(test, twheel_ids_find(&ids, obj[k].id));
			obj[k].live = false;
			live--;
		} else {
			KUNIT_ASSERT_EQ(test, twheel_ids_alloc(&ids, &obj[k],
							       &obj[k].id), 0);
			obj[k].live = true;
			seen[nseen++] = obj[k].id;
			if (++live > peak)
				peak = live;
		}
	}
	KUNIT_EXPECT_LE(test, ids.nr_slots, peak);
	/* Walking finds exactly the live ones. */
	for (slot = 0, k = 0; twheel_ids_next(&ids, &slot); k++)
		;
	KUNIT_EXPECT_EQ(test, k, live);
	sort(seen, nseen, sizeof(*seen), ids_cmp, NULL);
	for (i = 1; i < nseen; i++)
		KUNIT_ASSERT_NE(test, seen[i], seen[i - 1]);
	twheel_ids_destroy(&ids);
}

static struct kunit_case twheel_ids_cases[] = {
	KUNIT_CASE(twheel_ids_alloc_find_remove),
	KUNIT_CASE(twheel_ids_retire),
	KUNIT_CASE(twheel_ids_random),
	{}
};

static struct kunit_suite twheel_ids_suite = {
	.name = "twheel_ids",
	.test_cases = twheel_ids_cases,
};

kunit_test_suite(twheel_ids_suite);
