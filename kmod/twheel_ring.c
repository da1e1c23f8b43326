// SPDX-License-Identifier: GPL-2.0
/*
 * twheel_ring.c - the record ring of a set: its pages, the room its head
 * leaves, the records written into it, and its pages found by number for
 * the application's mapping.
 *
 * A utility of the set; it calls nothing of twheel's but the memory
 * policy of twheel_user.h (TWHEEL_GFP). The pages are allocated together
 * (one zeroed block, so that the kernel's view of the ring is contiguous),
 * split into pages of their own for the mapping, and charged to the
 * caller's memory cgroup; they are part of what an fd may hold
 * (TWHEEL_FD_MAX_BYTES).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/build_bug.h>
#include <linux/errno.h>
#include <linux/gfp.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/string.h>
#include <asm/barrier.h>
#include <kunit/visibility.h>

#include "twheel_ring.h"
#include "twheel_user.h"

/**
 * twheel_ring_alloc() - make sure a set has the ring's pages
 * @ring: the ring; its pages are allocated here the first time (zeroed:
 *        head and tail 0, no kernel data in them), kept after
 *
 * Return: 0, or -ENOMEM (nothing changed).
 */
int twheel_ring_alloc(struct twheel_rec_ring *ring)
{
	unsigned int order = get_order(sizeof(struct twheel_ring));
	struct page *page;

	if (ring->shared)
		return 0;
	/* The index wraps with the 32-bit counts: a power of two. */
	BUILD_BUG_ON(!is_power_of_2(TWHEEL_RING_ENTRIES));
	page = alloc_pages(TWHEEL_GFP | __GFP_ZERO, order);
	if (!page)
		return -ENOMEM;
	/* Pages of their own: each is mapped, and freed, by itself. */
	if (order)
		split_page(page, order);
	ring->shared = page_address(page);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(twheel_ring_alloc);

/**
 * twheel_ring_clear() - empty an allocated ring: head, tail and records 0
 * @ring: the ring, not mapped (a configuration, before any mapping)
 */
void twheel_ring_clear(struct twheel_rec_ring *ring)
{
	memset(ring->shared, 0, sizeof(*ring->shared));
	WRITE_ONCE(ring->tail, 0);
}
EXPORT_SYMBOL_IF_KUNIT(twheel_ring_clear);

/**
 * twheel_ring_free() - give the ring's pages back
 * @ring: the ring; afterwards it has none
 *
 * A page still mapped somewhere stays until it is unmapped (the mapping
 * holds a reference); nobody can map the set's ring by then.
 */
void twheel_ring_free(struct twheel_rec_ring *ring)
{
	struct page *page;
	unsigned int i;

	if (!ring->shared)
		return;
	page = virt_to_page(ring->shared);
	for (i = 0; i < 1U << get_order(sizeof(struct twheel_ring)); i++)
		__free_page(page + i);
	memset(ring, 0, sizeof(*ring));
}
EXPORT_SYMBOL_IF_KUNIT(twheel_ring_free);

/**
 * twheel_ring_room() - how many records the ring can take now
 * @ring: a set's ring (twheel_ring_on())
 *
 * Reads the application's head once, with acquire ordering: its reads of
 * the records before the head are done before the kernel writes over
 * them. A head the tail is more than TWHEEL_RING_ENTRIES records ahead
 * of, or behind (modulo 2^32 both: garbage), leaves no room.
 *
 * Return: 0 to TWHEEL_RING_ENTRIES.
 */
u32 twheel_ring_room(const struct twheel_rec_ring *ring)
{
	/* Pairs with the application's store-release of its head. */
	u32 used = ring->tail - smp_load_acquire(&ring->shared->head);

	return used > TWHEEL_RING_ENTRIES ? 0 : TWHEEL_RING_ENTRIES - used;
}
EXPORT_SYMBOL_IF_KUNIT(twheel_ring_room);

/**
 * twheel_ring_put() - write records into the ring and publish them
 * @ring: a set's ring (twheel_ring_on())
 * @ev: the records, in order
 * @n: how many, at most what twheel_ring_room() said since the last put
 *
 * The records first, then the tail (release ordering): an application
 * that reads the tail with acquire ordering finds the records written.
 */
void twheel_ring_put(struct twheel_rec_ring *ring,
		     const struct twheel_event *ev, u32 n)
{
	struct twheel_ring *r = ring->shared;
	u32 i;

	for (i = 0; i < n; i++)
		r->events[(ring->tail + i) % TWHEEL_RING_ENTRIES] = ev[i];
	WRITE_ONCE(ring->tail, ring->tail + n);
	/* Pairs with the application's load-acquire of the tail. */
	smp_store_release(&r->tail, ring->tail);
}
EXPORT_SYMBOL_IF_KUNIT(twheel_ring_put);

/**
 * twheel_ring_page() - a page of the ring, for a mapping
 * @ring: a set's ring
 * @pgoff: the page's number in the ring
 *
 * Return: the page, with a reference taken for the caller; NULL when the
 * set has no ring or @pgoff is beyond it.
 */
struct page *twheel_ring_page(const struct twheel_rec_ring *ring, u64 pgoff)
{
	struct page *page;

	if (!ring->shared || pgoff >= TWHEEL_RING_PAGES)
		return NULL;
	page = virt_to_page(ring->shared) + pgoff;
	get_page(page);
	return page;
}
EXPORT_SYMBOL_IF_KUNIT(twheel_ring_page);
