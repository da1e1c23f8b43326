// SPDX-License-Identifier: GPL-2.0
/*
 * heap.c - the userspace baseline of twheel-bench: an indexed binary
 * min-heap of deadlines (a position array makes delete and re-key
 * O(log n)) that keeps ONE timerfd armed at its minimum, re-arming it with
 * timerfd_settime() whenever the minimum changes, which is what a
 * libuv/libevent-style event loop on a timerfd does. Its schedule, modify
 * and cancel are counted with that settime included.
 */
#include <sys/timerfd.h>
#include <unistd.h>

#include "bench.h"

void heap_init(struct heap *h, uint32_t cap)
{
	uint32_t i;

	memset(h, 0, sizeof(*h));
	h->cap = cap;
	h->key = xcalloc(cap, sizeof(*h->key));
	h->who = xcalloc(cap, sizeof(*h->who));
	h->pos = xcalloc(cap, sizeof(*h->pos));
	h->free_h = xcalloc(cap, sizeof(*h->free_h));
	for (i = 0; i < cap; i++)
		h->free_h[i] = cap - 1 - i;
	h->nfree = cap;
	h->armed = -1;
	h->tfd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
	if (h->tfd < 0)
		die("heap: timerfd_create");
}

void heap_destroy(struct heap *h)
{
	close(h->tfd);
	free(h->key);
	free(h->who);
	free(h->pos);
	free(h->free_h);
	memset(h, 0, sizeof(*h));
}

static inline void heap_place(struct heap *h, uint32_t i, int64_t k,
			      uint32_t who)
{
	h->key[i] = k;
	h->who[i] = who;
	h->pos[who] = i;
}

static void sift_up(struct heap *h, uint32_t i)
{
	int64_t k = h->key[i];
	uint32_t w = h->who[i];

	while (i) {
		uint32_t p = (i - 1) / 2;

		if (h->key[p] <= k)
			break;
		heap_place(h, i, h->key[p], h->who[p]);
		i = p;
	}
	heap_place(h, i, k, w);
}

static void sift_down(struct heap *h, uint32_t i)
{
	int64_t k = h->key[i];
	uint32_t w = h->who[i];

	for (;;) {
		uint32_t c = 2 * i + 1;

		if (c >= h->n)
			break;
		if (c + 1 < h->n && h->key[c + 1] < h->key[c])
			c++;
		if (k <= h->key[c])
			break;
		heap_place(h, i, h->key[c], h->who[c]);
		i = c;
	}
	heap_place(h, i, k, w);
}

/* Keep the timerfd armed at the minimum: one settime when it changed. */
static void heap_sync(struct heap *h)
{
	int64_t m = h->n ? h->key[0] : -1;
	struct itimerspec its = { 0 };

	if (m == h->armed)
		return;
	if (m >= 0)
		its.it_value = ns_ts(m > 0 ? m : 1);
	if (timerfd_settime(h->tfd, TFD_TIMER_ABSTIME, &its, NULL))
		die("heap: timerfd_settime");
	h->armed = m;
	h->settimes++;
}

uint32_t heap_add(struct heap *h, int64_t deadline)
{
	uint32_t who;

	if (!h->nfree)
		die("heap: full");
	who = h->free_h[--h->nfree];
	heap_place(h, h->n, deadline, who);
	sift_up(h, h->n++);
	heap_sync(h);
	return who;
}

static void heap_remove_at(struct heap *h, uint32_t i)
{
	uint32_t who = h->who[i];

	h->free_h[h->nfree++] = who;
	if (i != --h->n) {
		heap_place(h, i, h->key[h->n], h->who[h->n]);
		if (i && h->key[(i - 1) / 2] > h->key[i])
			sift_up(h, i);
		else
			sift_down(h, i);
	}
}

void heap_del(struct heap *h, uint32_t handle)
{
	heap_remove_at(h, h->pos[handle]);
	heap_sync(h);
}

void heap_modify(struct heap *h, uint32_t handle, int64_t deadline)
{
	uint32_t i = h->pos[handle];
	int64_t old = h->key[i];

	h->key[i] = deadline;
	if (deadline < old)
		sift_up(h, i);
	else
		sift_down(h, i);
	heap_sync(h);
}

/* Pop without re-arming: the event loop re-arms once after its batch. */
uint32_t heap_pop(struct heap *h)
{
	uint32_t who = h->who[0];

	heap_remove_at(h, 0);
	return who;
}

/* After a batch of heap_pop(): re-arm the timerfd at the new minimum. */
void heap_rearm(struct heap *h)
{
	heap_sync(h);
}

int64_t heap_deadline(const struct heap *h, uint32_t handle)
{
	return h->key[h->pos[handle]];
}
