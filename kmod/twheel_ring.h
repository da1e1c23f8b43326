/* SPDX-License-Identifier: GPL-2.0 */
/*
 * twheel_ring.h - the record ring of one timer set: struct twheel_ring
 * (uapi/linux/twheel.h, "The record ring") in pages the kernel allocates
 * and the application maps.
 *
 * A utility of the set (twheel_ctx_read.c), which moves queued records
 * into it when the fd is polled. The kernel writes the records and the
 * tail, and reads the head, through its own mapping of the pages: plain
 * loads and stores that cannot fault. The head is the application's and
 * is never trusted: a head that would give more room than the ring has
 * gives none.
 *
 * The ring does not lock: the set's lock serialises every call that
 * writes (twheel_ring_put()); twheel_ring_unread() is lockless, for poll.
 */
#ifndef _TWHEEL_RING_H
#define _TWHEEL_RING_H

#include <linux/compiler.h>
#include <linux/mm_types.h>
#include <linux/types.h>
#include <asm/page.h>

#include <linux/twheel.h>

/* The ring's pages: struct twheel_ring, rounded up to the page size. */
#define TWHEEL_RING_PAGES \
	((sizeof(struct twheel_ring) + PAGE_SIZE - 1) / PAGE_SIZE)

/* The ring's first page number in the fd's mappings. */
#define TWHEEL_RING_PGOFF	(TWHEEL_RING_OFFSET >> PAGE_SHIFT)

/**
 * struct twheel_rec_ring - a set's record ring
 * @shared: the kernel's address of the ring's pages, NULL when the set
 *          has none
 * @tail: the records written into the ring, modulo 2^32: the kernel's
 *        own count, which it stores into @shared->tail and never reads
 *        back from there
 * @on: the set has the ring (its configuration asked for it); the pages,
 *      once allocated, stay until the set is freed (lockless readers)
 * @mapped: the ring was mapped: the set's configuration is fixed
 */
struct twheel_rec_ring {
	struct twheel_ring *shared;
	u32 tail;
	bool on;
	bool mapped;
};

int twheel_ring_alloc(struct twheel_rec_ring *ring);
void twheel_ring_clear(struct twheel_rec_ring *ring);
void twheel_ring_free(struct twheel_rec_ring *ring);
u32 twheel_ring_room(const struct twheel_rec_ring *ring);
void twheel_ring_put(struct twheel_rec_ring *ring,
		     const struct twheel_event *ev, u32 n);
struct page *twheel_ring_page(const struct twheel_rec_ring *ring,
			      u64 pgoff);

/**
 * twheel_ring_unread() - does the ring hold records the head has not
 *                        passed?
 * @ring: a set's ring, allocated
 *
 * Lockless, for poll: true whenever the head differs from the tail,
 * garbage in the head included (the application's own doing).
 *
 * Return: true when head and tail differ.
 */
static inline bool twheel_ring_unread(const struct twheel_rec_ring *ring)
{
	return READ_ONCE(ring->shared->head) != READ_ONCE(ring->tail);
}

#endif /* _TWHEEL_RING_H */
