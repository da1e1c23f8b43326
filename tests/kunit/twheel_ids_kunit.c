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
	/* One slot: the index's first size, and one page pointer. */
	KUNIT_EXPECT_EQ(test, twheel_ids_bytes(&ids),
			TWHEEL_IDS_FIRST * sizeof(u64) + sizeof(void *));
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
	/* Pretend the slot went through TWHEEL_IDS_GEN_MAX uses already. */
	last = (u64)TWHEEL_IDS_GEN_MAX << TWHEEL_IDS_GEN_SHIFT | (u32)a.id;
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
	u32 slot, budget, looked;

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
	/*
	 * Walking finds exactly the live ones, in chunks of at most 7 slots
	 * looked at, each slot looked at once.
	 */
	for (slot = 0, k = 0, looked = 0; slot < ids.nr_slots; ) {
		budget = 7;
		while (twheel_ids_next(&ids, &slot, &budget))
			k++;
		KUNIT_ASSERT_LE(test, 7 - budget, 7U);
		looked += 7 - budget;
	}
	KUNIT_EXPECT_EQ(test, k, live);
	KUNIT_EXPECT_EQ(test, looked, ids.nr_slots);
	sort(seen, nseen, sizeof(*seen), ids_cmp, NULL);
	for (i = 1; i < nseen; i++)
		KUNIT_ASSERT_NE(test, seen[i], seen[i - 1]);
	twheel_ids_destroy(&ids);
}

/*
 * The index grows with its slots: the first page from TWHEEL_IDS_FIRST
 * slots by doubling, then a page at a time; every id stays found.
 */
static void twheel_ids_grows_with_use(struct kunit *test)
{
	const u32 n = 3 * TWHEEL_IDS_PER_PAGE + 5;
	struct ids_obj *obj;
	struct twheel_ids ids;
	size_t room = 0;
	u32 i, pages;

	obj = kunit_kcalloc(test, n, sizeof(*obj), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, obj);
	twheel_ids_init(&ids);
	for (i = 0; i < n; i++) {
		KUNIT_EXPECT_TRUE(test, twheel_ids_full(&ids));
		KUNIT_ASSERT_EQ(test, twheel_ids_alloc(&ids, &obj[i],
						       &obj[i].id), 0);
		/* Room: the smallest size of the sequence holding i + 1. */
		if (i < TWHEEL_IDS_PER_PAGE) {
			room = TWHEEL_IDS_FIRST;
			while (room < i + 1)
				room *= 2;
			KUNIT_EXPECT_EQ(test, twheel_ids_bytes(&ids),
					room * sizeof(u64) + sizeof(void *));
		} else {
			pages = i / TWHEEL_IDS_PER_PAGE + 1;
			KUNIT_EXPECT_EQ(test, twheel_ids_bytes(&ids),
					pages * PAGE_SIZE + ids.max_pages *
					sizeof(void *));
			KUNIT_EXPECT_GE(test, ids.max_pages, pages);
			KUNIT_EXPECT_LE(test, ids.max_pages, 2 * pages);
		}
	}
	for (i = 0; i < n; i++)
		KUNIT_EXPECT_PTR_EQ(test, twheel_ids_find(&ids, obj[i].id),
				    (void *)&obj[i]);
	/* A freed slot is reused before the table grows again. */
	twheel_ids_remove(&ids, obj[7].id);
	KUNIT_EXPECT_FALSE(test, twheel_ids_full(&ids));
	KUNIT_ASSERT_EQ(test, twheel_ids_alloc(&ids, &obj[7], &obj[7].id), 0);
	KUNIT_EXPECT_EQ(test, ids.nr_slots, n);
	KUNIT_EXPECT_TRUE(test, twheel_ids_full(&ids));
	twheel_ids_destroy(&ids);
}

static struct kunit_case twheel_ids_cases[] = {
	KUNIT_CASE(twheel_ids_alloc_find_remove),
	KUNIT_CASE(twheel_ids_retire),
	KUNIT_CASE(twheel_ids_random),
	KUNIT_CASE(twheel_ids_grows_with_use),
	{}
};

static struct kunit_suite twheel_ids_suite = {
	.name = "twheel_ids",
	.test_cases = twheel_ids_cases,
};

kunit_test_suite(twheel_ids_suite);
