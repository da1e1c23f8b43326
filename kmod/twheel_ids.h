/* SPDX-License-Identifier: GPL-2.0 */
/*
 * twheel_ids.h - timer ids: a table of slots, reused, with a generation
 * in the id so that no id is ever handed out twice.
 *
 * An id is (generation << TWHEEL_IDS_GEN_SHIFT) | (slot + 1): never 0,
 * with slot + 1 below 2^31 and a 26-bit generation; bits 31 to 37 are
 * always 0, free for the caller's own flags in its copy of the id. A slot
 * holds either the pointer of a live object or, while free, its next
 * generation and the next free slot. Freed slots are reused first (last
 * freed, first reused), so the table has as many slots as the most
 * objects it ever held at once, whatever the pattern of adds and removes:
 * 8 bytes per slot, charged to the caller's memory cgroup (the first page
 * grows from 32 slots by doubling, then whole pages are added). A
 * slot whose generations are used up (2^26 uses) is retired, never
 * reused.
 *
 * The table does not lock; the caller serialises every call.
 */
#ifndef _TWHEEL_IDS_H
#define _TWHEEL_IDS_H

#include <linux/limits.h>
#include <linux/types.h>
#include <asm/page.h>

#define TWHEEL_IDS_GEN_SHIFT	38
/* Bits of an id that are always 0: for the caller's flags. */
#define TWHEEL_IDS_FREE_BITS	(0x7fULL << 31)
/* In a slot: it is free (a live object's pointer is aligned). */
#define TWHEEL_IDS_FREE_BIT	1ULL
/* A free slot: next generation << 32 | next free slot + 1 << 1 | 1. */
#define TWHEEL_IDS_NEXT_MASK	0x7fffffffU
#define TWHEEL_IDS_RETIRED	U64_MAX
#define TWHEEL_IDS_GEN_MAX	((1U << (64 - TWHEEL_IDS_GEN_SHIFT)) - 1)
/* Slots are numbered below this: a free slot links to slot + 1 in 31 bits. */
#define TWHEEL_IDS_MAX_SLOTS	TWHEEL_IDS_NEXT_MASK

/* Slots per page of the table; the first page starts with fewer. */
#define TWHEEL_IDS_PER_PAGE	(PAGE_SIZE / sizeof(u64))
#define TWHEEL_IDS_FIRST	32

/**
 * struct twheel_ids - an id table
 * @pages: the table's pages, each TWHEEL_IDS_PER_PAGE slots
 * @nr_pages: pages allocated
 * @max_pages: room in @pages
 * @nr_slots: slots handed out so far (used or free)
 * @free: the first free slot plus one, 0 when none is free
 * @first: slots in the first page (TWHEEL_IDS_FIRST up to
 *         TWHEEL_IDS_PER_PAGE; the others are whole)
 */
struct twheel_ids {
	u64 **pages;
	u32 nr_pages;
	u32 max_pages;
	u32 nr_slots;
	u32 free;
	u32 first;
};

void twheel_ids_init(struct twheel_ids *ids);
void twheel_ids_destroy(struct twheel_ids *ids);
int __twheel_ids_alloc_new(struct twheel_ids *ids, void *ptr, u64 *id);
void twheel_ids_replace(struct twheel_ids *ids, u64 id, void *ptr);
void *twheel_ids_next(const struct twheel_ids *ids, u32 *slot, u32 *budget);
size_t twheel_ids_bytes(const struct twheel_ids *ids);

/* The slot itself; the table's own code and the inline lookups below. */
static inline u64 *__twheel_ids_slot(const struct twheel_ids *ids, u32 slot)
{
	return &ids->pages[slot / TWHEEL_IDS_PER_PAGE][slot % TWHEEL_IDS_PER_PAGE];
}

/**
 * twheel_ids_find() - the live object in @id's slot
 * @ids: the table
 * @id: any value
 *
 * O(1), inline: every operation on a timer starts here. The slot may hold
 * an object of another generation: the caller keeps each object's id and
 * compares it with @id.
 *
 * Return: the object, or NULL when @id's slot does not exist or is free.
 */
static inline void *twheel_ids_find(const struct twheel_ids *ids, u64 id)
{
	u32 slot = (u32)id - 1;
	u64 v;

	if ((u32)id == 0 || slot >= ids->nr_slots ||
	    (id & TWHEEL_IDS_FREE_BITS))
		return NULL;
	v = *__twheel_ids_slot(ids, slot);
	if (v & TWHEEL_IDS_FREE_BIT)
		return NULL;
	return (void *)(uintptr_t)v;
}

/**
 * twheel_ids_full() - will the next twheel_ids_alloc() take a new slot?
 * @ids: the table
 *
 * Return: true when no freed slot is left for reuse.
 */
static inline bool twheel_ids_full(const struct twheel_ids *ids)
{
	return !ids->free;
}

/* The slot the next twheel_ids_alloc() takes. */
static inline u32 twheel_ids_next_slot(const struct twheel_ids *ids)
{
	return ids->free ? ids->free - 1 : ids->nr_slots;
}

/* Slots the table has room for. */
static inline u32 twheel_ids_room(const struct twheel_ids *ids)
{
	return ids->nr_pages > 1 ?
	       ids->nr_pages * TWHEEL_IDS_PER_PAGE : ids->first;
}

/**
 * twheel_ids_alloc() - give an object an id
 * @ids: the table
 * @ptr: the object; at least 2-byte aligned, not NULL
 * @id: set to the new id on success
 *
 * O(1), inline but for the growth of the table: room for more slots is
 * allocated, charged to the caller's memory cgroup, as it grows (see
 * __twheel_ids_alloc_new()). The id has never been handed out by this
 * table before. A new slot is taken only when no freed one is left
 * (twheel_ids_full()).
 *
 * Return: 0, -ENOMEM, or -ENOSPC when 2^31 - 1 slots are in use.
 */
static inline int twheel_ids_alloc(struct twheel_ids *ids, void *ptr, u64 *id)
{
	u64 *s, gen = 0;
	u32 slot;

	if (ids->free) {
		slot = ids->free - 1;
		s = __twheel_ids_slot(ids, slot);
		ids->free = (*s >> 1) & TWHEEL_IDS_NEXT_MASK;
		gen = *s >> 32;
	} else if (ids->nr_slots < twheel_ids_room(ids) &&
		   ids->nr_slots < TWHEEL_IDS_MAX_SLOTS) {
		slot = ids->nr_slots++;
		s = __twheel_ids_slot(ids, slot);
	} else {
		return __twheel_ids_alloc_new(ids, ptr, id);
	}
	*s = (u64)(uintptr_t)ptr;
	*id = gen << TWHEEL_IDS_GEN_SHIFT | ((u64)slot + 1);
	return 0;
}

/**
 * twheel_ids_remove() - free a live id's slot for reuse
 * @ids: the table
 * @id: a live id, as twheel_ids_alloc() gave it
 *
 * O(1). The slot's next use gets the next generation, so @id is never
 * handed out again; after 2^26 uses the slot is retired instead.
 */
static inline void twheel_ids_remove(struct twheel_ids *ids, u64 id)
{
	u32 slot = (u32)id - 1;
	u64 gen = id >> TWHEEL_IDS_GEN_SHIFT, *s = __twheel_ids_slot(ids, slot);

	if (gen == TWHEEL_IDS_GEN_MAX) {
		*s = TWHEEL_IDS_RETIRED;
		return;
	}
	*s = (gen + 1) << 32 | (u64)ids->free << 1 | TWHEEL_IDS_FREE_BIT;
	ids->free = slot + 1;
}

#endif /* _TWHEEL_IDS_H */
