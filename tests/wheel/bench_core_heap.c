// SPDX-License-Identifier: GPL-2.0
/*
 * bench_core_heap.c - the heap baseline of bench_core: a binary min-heap
 * with index tracking, its run of the timing table's workload and of the
 * timeout.c workload.
 *
 * The structure:
 *   heap     binary min-heap of (deadline, insertion seq, id) in an array,
 *            with each id's heap index tracked for O(log n) remove; expire
 *            pops while the minimum is <= now. Same ordering guarantee as
 *            the wheel (deadline, then insertion order).
 */
#include <stdlib.h>

#include "bench_core.h"

struct hnode {
	u64 key;
	u32 seq;
	u32 id;
};

struct heap {
	struct hnode *a;
	u32 *pos;		/* heap index of each id */
	u32 n;
	u32 seq;
};

static inline int hless(const struct hnode *x, const struct hnode *y)
{
	return x->key < y->key || (x->key == y->key && x->seq < y->seq);
}

static inline void hput(struct heap *h, u32 i, const struct hnode *x)
{
	h->a[i] = *x;
	h->pos[x->id] = i;
}

static void hsift_up(struct heap *h, u32 i, struct hnode x)
{
	u32 p;

	while (i) {
		p = (i - 1) / 2;
		if (!hless(&x, &h->a[p]))
			break;
		hput(h, i, &h->a[p]);
		i = p;
	}
	hput(h, i, &x);
}

static void hsift_down(struct heap *h, u32 i, struct hnode x)
{
	u32 c;

	for (;;) {
		c = 2 * i + 1;
		if (c >= h->n)
			break;
		if (c + 1 < h->n && hless(&h->a[c + 1], &h->a[c]))
			c++;
		if (!hless(&h->a[c], &x))
			break;
		hput(h, i, &h->a[c]);
		i = c;
	}
	hput(h, i, &x);
}

static void heap_add(struct heap *h, u32 id, u64 key)
{
	struct hnode x = { key, h->seq++, id };

	hsift_up(h, h->n++, x);
}

static void heap_del_at(struct heap *h, u32 i)
{
	struct hnode x;

	if (--h->n == i)
		return;
	x = h->a[h->n];
	if (i && hless(&x, &h->a[(i - 1) / 2]))
		hsift_up(h, i, x);
	else
		hsift_down(h, i, x);
}

void run_heap(const struct work *wk, struct res *res)
{
	struct heap h = {
		.a = xcalloc(wk->n, sizeof(*h.a)),
		.pos = xcalloc(wk->n, sizeof(*h.pos)),
	};
	u64 handed = 0, sum = 0, t;
	double t0;
	u32 i;

	phase_start();
	t0 = now_ns();
	for (i = 0; i < wk->n; i++)
		heap_add(&h, i, wk->dl[i]);
	res->add = (now_ns() - t0) / wk->n;
	phase_end("heap", "add", wk->n);

	phase_start();
	t0 = now_ns();
	for (i = 0; i < wk->n; i++)
		heap_del_at(&h, h.pos[wk->perm[i]]);
	res->remove = (now_ns() - t0) / wk->n;
	phase_end("heap", "remove", wk->n);

	h.seq = 0;
	for (i = 0; i < wk->n; i++)
		heap_add(&h, i, wk->dl[i]);
	phase_start();
	t0 = now_ns();
	for (t = STEP; t <= DL_MAX; t += STEP) {
		while (h.n && h.a[0].key <= t) {
			sum += h.a[0].key;	/* the caller reads it */
			handed++;
			heap_del_at(&h, 0);
		}
	}
	res->expire = (now_ns() - t0) / wk->n;
	phase_end("heap", "expire", wk->n);
	check("heap", handed, wk->n, sum, wk->sum);
	free(h.a);
	free(h.pos);
}

void run_heap_to(const struct work *wk, struct res *res)
{
	struct heap h = {
		.a = xcalloc(wk->n, sizeof(*h.a)),
		.pos = xcalloc(wk->n, sizeof(*h.pos)),
	};
	u32 i, nc = to_ncancel(wk->n);
	u64 handed = 0, sum = 0, t;
	double t0, ta, tc, te;

	prefault(h.a, wk->n * sizeof(*h.a));
	prefault(h.pos, wk->n * sizeof(*h.pos));
	t0 = now_ns();
	for (i = 0; i < wk->n; i++)
		heap_add(&h, i, wk->dl[i]);
	ta = now_ns() - t0;
	t0 = now_ns();
	for (i = 0; i < nc; i++)
		heap_del_at(&h, h.pos[wk->perm[i]]);
	tc = now_ns() - t0;
	t0 = now_ns();
	for (t = 1; t <= TO_MAX; t++) {
		while (h.n && h.a[0].key <= t) {
			sum += h.a[0].key;	/* the caller reads it */
			handed++;
			heap_del_at(&h, 0);
		}
	}
	te = now_ns() - t0;
	check("heap (timeout.c workload)", handed, wk->n - nc, sum, wk->sum);
	res->add = ta / wk->n;
	res->remove = nc ? tc / nc : 0;
	res->expire = te / (wk->n - nc);
	res->life = (ta + tc + te) / wk->n;
	free(h.a);
	free(h.pos);
}
