// SPDX-License-Identifier: GPL-2.0
/*
 * twheel_timer_mem.c - the memory of timers: their two slab caches (small
 * one-shot timers, big periodic ones), the small timers a set keeps for
 * its next adds, and the memory of a batch, allocated before the set's
 * lock is taken and freed after it is dropped.
 *
 * Part of the timers' layer (twheel_timer.h), beside twheel_timer.c.
 * Every allocation is the user's (TWHEEL_GFP: charged to their memory
 * cgroup); what a set may keep is bounded by its free id slots.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/build_bug.h>
#include <linux/slab.h>

#include "twheel_compat.h"
#include "twheel_timer.h"
#include "twheel_user.h"

static struct kmem_cache *twheel_timer_cache;
static struct kmem_cache *twheel_ptimer_cache;

/**
 * twheel_timer_release() - give a timer's memory back to its slab cache
 * @t: a timer nobody holds (forgotten, in no list)
 */
void twheel_timer_release(struct twheel_timer *t)
{
	struct twheel_ptimer *pt = twheel_ptimer(t);

	if (pt)
		kmem_cache_free(twheel_ptimer_cache, pt);
	else
		kmem_cache_free(twheel_timer_cache, t);
}

/**
 * twheel_timer_spare_put() - keep a small timer for the next add
 * @tm: the timers
 * @t: a small (one-shot) timer nobody holds
 *
 * Return: true when kept; false when the set may keep no more (the caller
 * frees it).
 */
bool twheel_timer_spare_put(struct twheel_timers *tm, struct twheel_timer *t)
{
	/* One object per free id slot at most: see TWHEEL_SPARE_MAX. */
	if (tm->nr_spare == TWHEEL_SPARE_MAX ||
	    tm->nr_timers + tm->nr_spare >= tm->ids.nr_slots)
		return false;
	t->entry.node.next = (struct list_head *)tm->spare;
	tm->spare = t;
	WRITE_ONCE(tm->nr_spare, tm->nr_spare + 1);
	return true;
}

/**
 * twheel_timers_spare_free() - free the small timers a set kept
 * @tm: the timers of a set nobody else uses any more
 */
void twheel_timers_spare_free(struct twheel_timers *tm)
{
	while (tm->spare)
		kmem_cache_free(twheel_timer_cache, twheel_timer_spare_get(tm));
}

/**
 * twheel_timers_free_bulk() - give small timers back in one bulk free
 * @n: how many, >= 1
 * @objs: small (one-shot) timers nobody holds
 */
void twheel_timers_free_bulk(size_t n, void **objs)
{
	kmem_cache_free_bulk(twheel_timer_cache, n, objs);
}

/**
 * __twheel_mem_alloc() - the memory of a batch, before the lock is taken
 * @mem: set, one per operation
 * @ops: the operations
 * @nr: their number, at most TWHEEL_MEM_OPS
 * @spare: how many small timers the set keeps (read without its lock):
 *         that many adds find theirs there, under the lock
 *
 * The small timers the spare ones do not cover come in one bulk
 * allocation (one memory cgroup charge, one pass over the slab's free
 * list), each alone if that fails. An add left without one takes a spare
 * one under the lock, or allocates it there (twheel_timer_spare_get()).
 */
void __twheel_mem_alloc(struct twheel_mem *mem, const struct twheel_op *ops,
			u32 nr, u32 spare)
{
	void *small[TWHEEL_MEM_OPS] __uninitialized;
	const gfp_t gfp = TWHEEL_GFP;
	u32 i, n = 0;
	bool bulk;

	for (i = 0; i < nr; i++) {
		mem[i].obj = NULL;
		mem[i].big = ops[i].period_ns &&
			     (ops[i].op == TWHEEL_OP_ADD ||
			      ops[i].op == TWHEEL_OP_MODIFY);
		n += ops[i].op == TWHEEL_OP_ADD && !mem[i].big;
	}
	n = n > spare ? n - spare : 0;
	bulk = n > 1 &&
	       kmem_cache_alloc_bulk(twheel_timer_cache, gfp, n, small) == n;
	for (i = 0; i < nr; i++) {
		if (mem[i].big) {
			mem[i].obj = kmem_cache_alloc(twheel_ptimer_cache, gfp);
		} else if (ops[i].op == TWHEEL_OP_ADD && n) {
			n--;
			mem[i].obj = bulk ? small[n] :
				     kmem_cache_alloc(twheel_timer_cache, gfp);
		}
	}
}

/**
 * twheel_timer_spare_get() - a small timer for an add that has none
 * @tm: the timers; the caller holds the set's lock
 *
 * One the set kept, or else a new one (allocated under the lock, as a
 * user's allocation: the rare case of two batches racing for the spare
 * ones).
 *
 * Return: the timer's memory, or NULL when out of memory.
 */
struct twheel_timer *twheel_timer_spare_get(struct twheel_timers *tm)
{
	struct twheel_timer *t = tm->spare;

	if (!t)
		return kmem_cache_alloc(twheel_timer_cache, TWHEEL_GFP);
	tm->spare = (struct twheel_timer *)t->entry.node.next;
	WRITE_ONCE(tm->nr_spare, tm->nr_spare - 1);
	return t;
}

/**
 * __twheel_mem_spare() - keep what the operations of a batch left, if small
 * @tm: the timers; the caller holds the set's lock
 * @mem: their memory; what is kept is taken out of it
 * @nr: their number
 */
void __twheel_mem_spare(struct twheel_timers *tm, struct twheel_mem *mem,
			u32 nr)
{
	u32 i;

	for (i = 0; i < nr; i++)
		if (mem[i].obj && !mem[i].big &&
		    twheel_timer_spare_put(tm, mem[i].obj))
			mem[i].obj = NULL;
}

/**
 * __twheel_mem_free() - free what the operations of a batch left
 * @mem: their memory
 * @nr: their number
 *
 * The small timers go in one bulk free.
 */
void __twheel_mem_free(struct twheel_mem *mem, u32 nr)
{
	void *small[TWHEEL_MEM_OPS] __uninitialized;
	u32 i, n = 0;

	for (i = 0; i < nr; i++) {
		if (!mem[i].obj)
			continue;
		if (mem[i].big)
			kmem_cache_free(twheel_ptimer_cache, mem[i].obj);
		else
			small[n++] = mem[i].obj;
	}
	if (n)
		kmem_cache_free_bulk(twheel_timer_cache, n, small);
}

/**
 * twheel_timer_cache_init() - create the slab caches of timers
 *
 * Return: 0 or -ENOMEM.
 */
int twheel_timer_cache_init(void)
{
	/* The record reuses the wheel's list node: same offset. */
	BUILD_BUG_ON(offsetof(struct twheel_timer, rec.link) !=
		     offsetof(struct twheel_timer, entry.node));
	BUILD_BUG_ON(sizeof(struct twheel_timer) > 40);
	BUILD_BUG_ON(sizeof(struct twheel_ptimer) > 56);
	/* The state, the clock and the size live in bits ids leave free. */
	BUILD_BUG_ON((TWHEEL_TIMER_QUEUED | TWHEEL_TIMER_CLOCK_MASK |
		      TWHEEL_TIMER_BIG) & ~TWHEEL_IDS_FREE_BITS);
	BUILD_BUG_ON(TWHEEL_NR_CLOCKS > 8);

	/*
	 * Caches of their own, never merged with another cache of the same
	 * size (see twheel_cache_create()): /proc/slabinfo and slabtop show
	 * twheel's timers by name, and a stray write in another subsystem's
	 * objects cannot land in a timer. The cost: partly used slabs are
	 * not shared with other caches (a few pages per CPU at most).
	 */
	twheel_timer_cache =
		twheel_cache_create("twheel_timer", sizeof(struct twheel_timer),
				    offsetof(struct twheel_timer, cookie));
	if (!twheel_timer_cache)
		return -ENOMEM;
	twheel_ptimer_cache =
		twheel_cache_create("twheel_ptimer",
				    sizeof(struct twheel_ptimer),
				    offsetof(struct twheel_ptimer, t.cookie));
	if (!twheel_ptimer_cache)
		goto err_timer;
	return 0;

err_timer:
	kmem_cache_destroy(twheel_timer_cache);
	return -ENOMEM;
}

/**
 * twheel_timer_cache_exit() - destroy the slab caches of timers
 *
 * Every set is destroyed by then, so they are empty.
 */
void twheel_timer_cache_exit(void)
{
	kmem_cache_destroy(twheel_ptimer_cache);
	kmem_cache_destroy(twheel_timer_cache);
}
