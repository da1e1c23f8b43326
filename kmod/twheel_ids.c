// SPDX-License-Identifier: GPL-2.0
/*
 * twheel_ids.c - timer ids: slots reused, a generation in the id.
 *
 * A utility of the timers layer (twheel_timer.c, twheel_op.c), which
 * keeps its timers here; it calls nothing of twheel's but the memory
 * policy of twheel_user.h (TWHEEL_GFP).
 *
 * Slot values: a live slot holds its object's pointer (bit 0 clear, as
 * objects are aligned); a free slot holds 1 | (next free slot + 1) << 1 |
 * (generation of its next use) << 32; a retired slot holds all ones.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/build_bug.h>
#include <linux/limits.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <kunit/visibility.h>

#include "twheel_ids.h"
#include "twheel_user.h"

/**
 * twheel_ids_init() - make an empty table
 * @ids: the table
 *
 * Allocates nothing: the first twheel_ids_alloc() does.
 */
void twheel_ids_init(struct twheel_ids *ids)
{
	memset(ids, 0, sizeof(*ids));
}
EXPORT_SYMBOL_IF_KUNIT(twheel_ids_init);

/**
 * twheel_ids_destroy() - free the table (not the objects it points to)
 * @ids: the table
 */
void twheel_ids_destroy(struct twheel_ids *ids)
{
	u32 i;

	for (i = 0; i < ids->nr_pages; i++)
		kfree(ids->pages[i]);
	kvfree(ids->pages);
	memset(ids, 0, sizeof(*ids));
}
EXPORT_SYMBOL_IF_KUNIT(twheel_ids_destroy);

/*
 * Room for more slots, charged to the caller: the first page grows from
 * TWHEEL_IDS_FIRST slots by doubling, so that an fd with a few timers
 * keeps a few slots; then one page more at a time. Every allocation comes
 * before the table changes: a failure leaves it as it was.
 */
static int twheel_ids_grow(struct twheel_ids *ids)
{
	u64 **pages = NULL;
	u64 *page;
	u32 max;

	if (ids->nr_pages == 1 && ids->first < TWHEEL_IDS_PER_PAGE) {
		page = krealloc(ids->pages[0], 2 * ids->first * sizeof(u64),
				TWHEEL_GFP);
		if (!page)
			return -ENOMEM;
		ids->pages[0] = page;
		ids->first *= 2;
		return 0;
	}
	page = kmalloc(ids->nr_pages ? PAGE_SIZE :
		       TWHEEL_IDS_FIRST * sizeof(u64), TWHEEL_GFP);
	if (!page)
		return -ENOMEM;
	if (ids->nr_pages == ids->max_pages) {
		max = ids->max_pages ? 2 * ids->max_pages : 1;
		pages = kvmalloc_array(max, sizeof(*pages),
				       TWHEEL_GFP);
		if (!pages)
			goto err_page;
		if (ids->nr_pages)
			memcpy(pages, ids->pages,
			       ids->nr_pages * sizeof(*pages));
		kvfree(ids->pages);
		ids->pages = pages;
		ids->max_pages = max;
	}
	ids->pages[ids->nr_pages++] = page;
	if (ids->nr_pages == 1)
		ids->first = TWHEEL_IDS_FIRST;
	return 0;

err_page:
	kfree(page);
	return -ENOMEM;
}

/**
 * __twheel_ids_alloc_new() - give an object an id in a new slot (the rare
 *                            part of twheel_ids_alloc())
 * @ids: the table, with no freed slot
 * @ptr: the object; at least 2-byte aligned, not NULL
 * @id: set to the new id on success
 *
 * Allocates room for more slots, charged to the caller's memory cgroup,
 * when the table is full (see twheel_ids_grow()).
 *
 * Return: 0, -ENOMEM, or -ENOSPC when 2^31 - 1 slots are in use.
 */
int __twheel_ids_alloc_new(struct twheel_ids *ids, void *ptr, u64 *id)
{
	int ret;

	if (ids->nr_slots == TWHEEL_IDS_MAX_SLOTS)
		return -ENOSPC;
	ret = twheel_ids_grow(ids);
	if (ret)
		return ret;
	*__twheel_ids_slot(ids, ids->nr_slots) = (u64)(uintptr_t)ptr;
	*id = (u64)ids->nr_slots++ + 1;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(__twheel_ids_alloc_new);

/**
 * twheel_ids_replace() - point a live id at another object
 * @ids: the table
 * @id: a live id (twheel_ids_find() returns non-NULL for it)
 * @ptr: the object it now stands for, 2-byte aligned
 */
void twheel_ids_replace(struct twheel_ids *ids, u64 id, void *ptr)
{
	*__twheel_ids_slot(ids, (u32)id - 1) = (u64)(uintptr_t)ptr;
}
EXPORT_SYMBOL_IF_KUNIT(twheel_ids_replace);

/**
 * twheel_ids_next() - walk the live objects, looking at a bounded number
 *                     of slots
 * @ids: the table
 * @slot: where to start; on return, the slot after the last one looked at
 * @budget: the most slots to look at; decremented by those looked at
 *
 * Return: the first live object at or after *@slot, or NULL when none is
 * left (*@slot is then at the end) or the budget ran out first (*@slot
 * is then before the end).
 */
void *twheel_ids_next(const struct twheel_ids *ids, u32 *slot, u32 *budget)
{
	u64 v;

	while (*slot < ids->nr_slots && *budget) {
		(*budget)--;
		v = *__twheel_ids_slot(ids, (*slot)++);
		if (!(v & TWHEEL_IDS_FREE_BIT))
			return (void *)(uintptr_t)v;
	}
	return NULL;
}
EXPORT_SYMBOL_IF_KUNIT(twheel_ids_next);

/**
 * twheel_ids_bytes() - the table's own memory
 * @ids: the table
 *
 * Return: the bytes of its pages and of its page array.
 */
size_t twheel_ids_bytes(const struct twheel_ids *ids)
{
	BUILD_BUG_ON(TWHEEL_IDS_PER_PAGE * sizeof(u64) != PAGE_SIZE);
	/* slot + 1 fits below the caller's bits, the generation above them. */
	BUILD_BUG_ON(TWHEEL_IDS_MAX_SLOTS >= (1ULL << 31));
	BUILD_BUG_ON(TWHEEL_IDS_FREE_BITS >> TWHEEL_IDS_GEN_SHIFT);
	if (!ids->nr_pages)
		return 0;
	return (size_t)(ids->nr_pages - 1) * PAGE_SIZE +
	       (size_t)ids->first * sizeof(u64) +
	       (size_t)ids->max_pages * sizeof(*ids->pages);
}
EXPORT_SYMBOL_IF_KUNIT(twheel_ids_bytes);
