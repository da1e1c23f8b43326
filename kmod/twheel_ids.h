/* SPDX-License-Identifier: GPL-2.0 */
/*
 * twheel_ids.h - timer ids: a table of slots, reused, with a generation
 * in the id so that no id is ever handed out twice.
 *
 * An id is (generation << TWHEEL_IDS_GEN_SHIFT) | (slot + 1): never 0,
 * with slot + 1 below 2^31 and a 29-bit generation; bits 31 to 34 are
 * always 0, free for the caller's own flags in its copy of the id. A slot
 * holds either the pointer of a live object or, while free, its next
 * generation and the next free slot. Freed slots are reused first (last
 * freed, first reused), so the table has as many slots as the most
 * objects it ever held at once, whatever the pattern of adds and removes:
 * 8 bytes per slot, charged to the caller's memory cgroup (the first page
 * grows from 32 slots by doubling, then whole pages are added). A
 * slot whose generations are used up (2^29 uses) is retired, never
 * reused.
 *
 * The table does not lock; the caller serialises every call.
 */
#ifndef _TWHEEL_IDS_H
#define _TWHEEL_IDS_H

#include <linux/types.h>
#include <asm/page.h>

#define TWHEEL_IDS_GEN_SHIFT	35
/* Bits of an id that are always 0: for the caller's flags. */
#define TWHEEL_IDS_FREE_BITS	(0xfULL << 31)
/* In a slot: it is free (a live object's pointer is aligned). */
#define TWHEEL_IDS_FREE_BIT	1ULL

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
int twheel_ids_alloc(struct twheel_ids *ids, void *ptr, u64 *id);
void twheel_ids_remove(struct twheel_ids *ids, u64 id);
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

#endif /* _TWHEEL_IDS_H */
