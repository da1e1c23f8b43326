// SPDX-License-Identifier: GPL-2.0
/*
 * twheel_ctx_read.c - one timer set's records handed over: to read(2),
 * into the record ring when the fd is polled, and the pages of the
 * shared table and the ring found for the application's mappings.
 *
 * Part of the set (twheel_ctx.c has its life, its lock and the update of
 * its wheels): a read or a poll first brings the wheels up to date
 * (twheel_ctx_lock_update()), then takes queued records, oldest first,
 * under the set's lock. read(2) copies them out with page faults
 * disabled (twheel_dev.c); the ring is the kernel's own memory (plain
 * stores, twheel_ring.c): neither waits on user memory under the lock.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/lockdep.h>
#include <linux/minmax.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <kunit/visibility.h>

#include "twheel_ctx_priv.h"
#include "twheel_stats.h"
#include "twheel_timer.h"

/*
 * Caller holds the lock, released here: hand over up to @max queued
 * records (TWHEEL_CHUNK at most), as twheel_ctx_read_in() says.
 */
static long twheel_ctx_take(struct twheel_ctx *ctx, u64 max,
			    int (*emit)(void *arg,
					const struct twheel_event *ev, u32 n),
			    void *arg, struct twheel_read *rd)
{
	struct twheel_timers *tm = &ctx->timers;
	struct twheel_event ev[TWHEEL_READ_BATCH];
	s64 now[TWHEEL_NR_CLOCKS];
	u8 valid = 0;
	u64 n = 0;
	int ret = 0;
	u32 k, i;

	lockdep_assert_held(&ctx->lock);
	while (n < max && n < TWHEEL_CHUNK) {
		k = twheel_timers_peek(tm, ev,
				       min3(max - n, TWHEEL_CHUNK - n,
					    (u64)TWHEEL_READ_BATCH),
				       now, &valid, rd ? rd->first : NULL,
				       rd ? rd->seen : 0);
		if (!k)
			break;
		ret = emit(arg, ev, k);
		if (ret <= 0)
			break;
		/* Only the records taken leave the queue. */
		twheel_timers_take(tm, ret, now);
		n += ret;
		if (ret < k)
			break;
	}
	/* The earliest presents the read's periodic timers were put back at. */
	if (rd && n) {
		for (i = 0; i < TWHEEL_NR_CLOCKS; i++) {
			if (!(valid & BIT(i)))
				continue;
			if (!(rd->seen & BIT(i)) || now[i] < rd->first[i])
				rd->first[i] = now[i];
			rd->seen |= BIT(i);
		}
	}
	twheel_stat_add(read, n);
	twheel_ctx_unlock(ctx);
	return n ? n : ret;
}

/**
 * twheel_ctx_read_in() - hand over queued records, oldest first: one call
 *                        of a read(2) that may make several
 * @ctx: the context; the caller does not hold the lock
 * @rd: the read, zeroed before its first call; NULL for a read of one call
 * @max: the most records to hand over
 * @emit: called under the lock with @arg and up to TWHEEL_READ_BATCH
 *        records, in order (must not sleep); returns how many of them it
 *        took (the first ones), or a negative errno when it took none;
 *        only records it took are consumed
 * @arg: for @emit
 * @nowait: never sleep: the lock taken only if it is free, and at most one
 *          chunk of wheel work done (twheel_ctx_trylock_update())
 *
 * Advances the wheels first if an hrtimer fired, until a record is queued.
 * Hands over at most TWHEEL_CHUNK records in one call. The records are
 * gathered TWHEEL_READ_BATCH at a time on the stack, so that @emit copies
 * them out together.
 *
 * Once the read took records, a later call hands over no record of a
 * periodic timer for a deadline after the earliest present at which the
 * read took records on that timer's clock (@rd->first): it stops before
 * it, leaving it and the records after it for the next read. A periodic
 * timer whose record the read took went back into the wheel for a
 * deadline after that present; should the deadline pass while the read
 * goes on (the wheels are advanced again when the queue runs dry), one
 * read would otherwise hold two records of one timer, and the reader's
 * answer to the first (a cancel, a modify) could not retract the second.
 *
 * Return: the number of records handed over; 0 when none is queued; or,
 * when @emit failed on the first one, what it returned; with @nowait,
 * -EAGAIN when the lock was taken or more than one chunk of wheel work
 * was due.
 */
long twheel_ctx_read_in(struct twheel_ctx *ctx, struct twheel_read *rd,
			u64 max,
			int (*emit)(void *arg, const struct twheel_event *ev,
				    u32 n),
			void *arg, bool nowait)
{
	if (!nowait)
		twheel_ctx_lock_update(ctx, TWHEEL_UPDATE_RECORD);
	else if (!twheel_ctx_trylock_update(ctx, TWHEEL_UPDATE_RECORD))
		return -EAGAIN;
	return twheel_ctx_take(ctx, max, emit, arg, rd);
}
EXPORT_SYMBOL_IF_KUNIT(twheel_ctx_read_in);

/* twheel_ctx_take()'s @emit for the ring: room was asked for all @n. */
static int twheel_ring_emit(void *arg, const struct twheel_event *ev, u32 n)
{
	twheel_ring_put(arg, ev, n);
	return n;
}

/**
 * twheel_ctx_poll() - bring the set up to date for poll, fill its ring
 * @ctx: the context; the caller does not hold the lock
 *
 * Without a ring: after an hrtimer fired, advance the wheels (in this
 * task) until a record is queued or nothing more is due. With one: the
 * same whenever an hrtimer fired or a record is queued, then queued
 * records move into the ring, oldest first, as far as its head leaves
 * room (each ends there as if read), again until the wheels are up to
 * date or the ring is full, as a read(2) goes on: the wheels are read up
 * to the present before the program sees the records (and may answer
 * them with stores). A fill, like a read, holds at most one record of a
 * periodic timer (see twheel_ctx_read_in()); the rest stay queued.
 *
 * Return: true when the fd is readable: a record is queued, or the
 * ring's head is not at its tail.
 */
bool twheel_ctx_poll(struct twheel_ctx *ctx)
{
	struct twheel_rec_ring *ring = &ctx->ring;
	struct twheel_read rd = {};
	u32 room;

	if (!READ_ONCE(ring->on)) {
		if (!twheel_ctx_readable(ctx) && twheel_ctx_fired(ctx)) {
			twheel_ctx_lock_update(ctx, TWHEEL_UPDATE_RECORD);
			twheel_ctx_unlock(ctx);
		}
		return twheel_ctx_readable(ctx);
	}
	while (twheel_ctx_readable(ctx) || twheel_ctx_fired(ctx)) {
		twheel_ctx_lock_update(ctx, TWHEEL_UPDATE_RECORD);
		/* A configuration may have taken the ring away meanwhile. */
		room = ring->on ? twheel_ring_room(ring) : 0;
		if (!room || !ctx->timers.nr_queued) {
			twheel_ctx_unlock(ctx);
			break;
		}
		if (twheel_ctx_take(ctx, room, twheel_ring_emit, ring, &rd) <= 0 ||
		    !twheel_ctx_fired(ctx) || fatal_signal_pending(current))
			break;
		cond_resched();
	}
	return twheel_ctx_readable(ctx) || twheel_ring_unread(ring);
}
EXPORT_SYMBOL_IF_KUNIT(twheel_ctx_poll);

/**
 * twheel_ctx_mmap() - allow a mapping of the table or of the ring
 * @ctx: the context; the caller does not hold the lock
 * @pgoff: the mapping's first page: 0 for the table, TWHEEL_RING_PGOFF
 *         for the ring
 * @pages: its length in pages
 *
 * Marks the table, or the ring, mapped: the configuration is fixed from
 * now on.
 *
 * Return: 0; -ENODEV when the context has no table (no ring, for an
 * offset at or after the ring's); -EINVAL when the mapping does not start
 * at the table's or the ring's first page or goes beyond it.
 */
int twheel_ctx_mmap(struct twheel_ctx *ctx, u64 pgoff, u64 pages)
{
	struct twheel_table *tab = &ctx->timers.table;
	struct twheel_rec_ring *ring = &ctx->ring;
	int ret = 0;

	mutex_lock(&ctx->lock);
	if (pgoff >= TWHEEL_RING_PGOFF) {
		if (!ring->on)
			ret = -ENODEV;
		else if (pgoff != TWHEEL_RING_PGOFF ||
			 pages > TWHEEL_RING_PAGES)
			ret = -EINVAL;
		else
			ring->mapped = true;
	} else if (!twheel_table_on(tab)) {
		ret = -ENODEV;
	} else if (pgoff || pages > tab->size_pages) {
		ret = -EINVAL;
	} else {
		tab->mapped = true;
	}
	mutex_unlock(&ctx->lock);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(twheel_ctx_mmap);

/**
 * twheel_ctx_map_page() - a page of the table or of the ring, for a page
 *                         fault
 * @ctx: the context; the caller does not hold the lock (it may hold the
 *       mm's lock: this lock nests inside it)
 * @pgoff: the page's number in the fd's mappings (the ring's pages from
 *         TWHEEL_RING_PGOFF)
 *
 * Return: the page with a reference for the caller, or NULL when it is
 * not backed (yet: an entry is backed before its id is handed out).
 */
struct page *twheel_ctx_map_page(struct twheel_ctx *ctx, u64 pgoff)
{
	struct page *page;

	mutex_lock(&ctx->lock);
	if (pgoff >= TWHEEL_RING_PGOFF)
		page = twheel_ring_page(&ctx->ring, pgoff - TWHEEL_RING_PGOFF);
	else
		page = twheel_table_page(&ctx->timers.table, pgoff);
	mutex_unlock(&ctx->lock);
	return page;
}
EXPORT_SYMBOL_IF_KUNIT(twheel_ctx_map_page);
