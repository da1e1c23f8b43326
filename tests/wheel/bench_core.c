// SPDX-License-Identifier: GPL-2.0
/*
 * bench_core.c - cost of the twheel wheel core against two baselines.
 *
 * For N outstanding entries with deadlines uniform over [1000, 10^7] ticks
 * (1 ms .. 10 s at 1 us per tick), clock starting at 0, it measures per
 * structure:
 *   add     N adds into an empty structure, ns per add;
 *   remove  N removes, in a random order, from the full structure (so of
 *           sizes N down to 1), ns per remove;
 *   expire  the N entries re-added, then the clock advanced from 0 to 10^7
 *           in steps of 1000 ticks (a 1 kHz periodic caller: 10^4 advance
 *           calls), the caller reading each handed-back entry; ns per
 *           entry handed back, all advance calls included.
 * Each (N, structure) is measured BENCH_REPS times (median, min-max), all
 * three structures on the same deadlines and removal order in each rep.
 * Timing is clock_gettime(CLOCK_MONOTONIC) around whole loops only.
 *
 * The structures:
 *   twheel   kmod/twheel_wheel.c, as a caller of it does: the wheel never
 *            allocates, so each add is tw_add() (twheel_wheel_level_needed(),
 *            and when it names a level, a zeroed 512-byte calloc given to
 *            the wheel) and each advance is tw_advance() (when the advance
 *            stops for a level it lacks, twheel_wheel_level_missing() names
 *            it, it is given, and the advance goes on). That is what the
 *            timed loops of twheel measure: add, remove and advance with the
 *            level checks, and the few level allocations (at most one per
 *            level, 11, in a whole run: no level is taken back during a run)
 *            where they fall, which at N >= 1000 is noise. The levels are
 *            freed after the last timed loop, untimed.
 *   heap     binary min-heap of (deadline, insertion seq, id) in an array,
 *            with each id's heap index tracked for O(log n) remove; expire
 *            pops while the minimum is <= now. Same ordering guarantee as
 *            the wheel (deadline, then insertion order).
 *   hwN      single-level hashed wheel with rounds, in the style of Netty's
 *            HashedWheelTimer: N buckets of one tick each, an entry goes to
 *            bucket deadline % N carrying the number of whole turns left;
 *            every tick visits its bucket, hands back the entries with 0
 *            rounds and decrements the others. Its expire cost is
 *            O(ticks + sum of deadline / N) by design. Two sizes: 512
 *            (Netty's default; timed only up to N = 10^4, as beyond that
 *            5 repetitions take minutes, but counted under callgrind at
 *            N = 10^5) and 65536.
 *
 * A second table runs the workload shape of the benchmark that comes with
 * William Ahern's timeout.c (a hierarchical timing wheel library for
 * event loops): fill with N timeouts of random deadlines, cancel part of
 * them, then expire the rest stepping the clock one tick at a time. Here:
 *   add     N adds, deadlines uniform over [1, 60000] ticks (one minute of
 *           1 ms ticks), clock at 0;
 *   cancel  a random half of them removed, in random order;
 *   expire  the clock advanced 1 tick per call, 1 .. 60000, each entry
 *           handed back read; ns per entry handed back (N / 2), all
 *           60000 calls included;
 *   life    (add + cancel + expire time) / N: the whole life of a timer.
 * The same four structures, all at every N (the span is 60000 ticks, so
 * hw512 visits each entry about 59 times, not 10^4).
 * Only the shape is taken from timeout.c: no code of it is used or copied.
 * Written for this benchmark; no code taken from elsewhere.
 *
 * Modes:
 *   bench_core [-r REPS] [-n N] [-o FILE]   timing table
 *   bench_core -c [-n N]      one rep per structure under callgrind, with
 *                             instrumentation on only around each loop and
 *                             a dump per (structure, op)
 *   bench_core -C DIR [-n N] [-o FILE]   instructions/op table from DIR
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#if defined(__has_include)
#if __has_include(<valgrind/callgrind.h>)
#include <valgrind/callgrind.h>
#define HAVE_CALLGRIND 1
#endif
#endif
#ifndef HAVE_CALLGRIND
#define CALLGRIND_START_INSTRUMENTATION
#define CALLGRIND_STOP_INSTRUMENTATION
#define CALLGRIND_ZERO_STATS
#define CALLGRIND_DUMP_STATS_AT(s)
#endif

#include "twheel_wheel.h"

#define DL_MIN		1000ULL
#define DL_MAX		10000000ULL
#define STEP		1000ULL
#define MAX_REPS	64

/* The timeout.c-shaped workload: span, and share cancelled (percent). */
#define TO_MAX		60000ULL
#define TO_CANCEL_PCT	50U

static u64 rng_state;

static u64 rnd64(void)
{
	u64 z;

	rng_state += 0x9e3779b97f4a7c15ULL;
	z = rng_state;
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static u64 rnd_below(u64 n)
{
	return (u64)(((unsigned __int128)rnd64() * n) >> 64);
}

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static void *xcalloc(size_t n, size_t sz)
{
	void *p = calloc(n, sz);

	if (!p) {
		fprintf(stderr, "bench_core: out of memory\n");
		exit(2);
	}
	return p;
}

/* The workload of one repetition, shared by the three structures. */
struct work {
	u32 n;
	u64 *dl;		/* deadline of id i */
	u32 *perm;		/* removal order */
	u64 sum;		/* sum of the deadlines, to check hand-back */
};

/* Per-op results of one run of one structure. */
struct res {
	double add, remove, expire;	/* ns per op */
	double life;			/* timeout.c workload: ns per timer */
};

/*
 * The timeout.c workload of one repetition: dl[] over [1, TO_MAX], the
 * first ncancel ids of perm[] are cancelled (in that order), sum is the
 * sum of the deadlines of the others.
 */
static u32 to_ncancel(u32 n)
{
	return (u32)((u64)n * TO_CANCEL_PCT / 100);
}

/* Callgrind mode: count instructions of one phase. */
static int cg_mode;

static void phase_start(void)
{
	if (cg_mode) {
		CALLGRIND_START_INSTRUMENTATION;
		CALLGRIND_ZERO_STATS;
	}
}

static void phase_end(const char *what, const char *op, u32 n)
{
	char label[256];

	if (cg_mode) {
		snprintf(label, sizeof(label), "bench %s %s %u", what, op, n);
		CALLGRIND_DUMP_STATS_AT(label);
		CALLGRIND_STOP_INSTRUMENTATION;
	}
}

static void check(const char *what, u64 got_n, u64 want_n, u64 got_sum,
		  u64 want_sum)
{
	if (got_n != want_n || got_sum != want_sum) {
		fprintf(stderr, "bench_core: %s handed back %llu (sum %llu), want %llu (sum %llu)\n",
			what, got_n, got_sum, want_n, want_sum);
		exit(3);
	}
}

/* ------------------------------------------------------------------ */
/* twheel                                                             */

struct tw_obj {
	struct twheel_entry e;
	u64 id;
};

/* Give @w level @lvl: a zeroed allocation, as the wheel's caller does. */
static void tw_give(struct twheel_wheel *w, int lvl)
{
	twheel_wheel_give_level(w, (unsigned int)lvl,
				xcalloc(1, sizeof(struct twheel_level)));
}

/* twheel_wheel_add(), giving first the level the add needs. */
static inline void tw_add(struct twheel_wheel *w, struct twheel_entry *e,
			  u64 expires)
{
	int lvl = twheel_wheel_level_needed(w, expires);

	if (lvl >= 0)
		tw_give(w, lvl);
	twheel_wheel_add(w, e, expires);
}

/*
 * twheel_wheel_advance(), giving each level it stops for: unbounded, it
 * stops only for a level (then level_missing() >= 0) or when done.
 */
static inline u64 tw_advance(struct twheel_wheel *w, u64 now,
			     struct list_head *out)
{
	u64 n = twheel_wheel_advance(w, now, out);
	int lvl;

	while ((lvl = twheel_wheel_level_missing(w)) >= 0) {
		tw_give(w, lvl);
		n += twheel_wheel_advance(w, now, out);
	}
	return n;
}

/* Free a wheel's levels, as a caller destroying it does. */
static void tw_free_levels(struct twheel_wheel *w)
{
	unsigned int lvl;

	for (lvl = 0; lvl < TWHEEL_LEVELS; lvl++) {
		free(w->lvl[lvl]);
		w->lvl[lvl] = NULL;
	}
}

static void run_twheel(const struct work *wk, struct res *res)
{
	struct twheel_wheel *w = xcalloc(1, sizeof(*w));
	struct tw_obj *o = xcalloc(wk->n, sizeof(*o));
	struct list_head out;
	struct twheel_entry *e, *tmp;
	u64 handed = 0, sum = 0, t;
	double t0;
	u32 i;

	twheel_wheel_init(w, 0);
	for (i = 0; i < wk->n; i++)
		o[i].id = i;

	phase_start();
	t0 = now_ns();
	for (i = 0; i < wk->n; i++)
		tw_add(w, &o[i].e, wk->dl[i]);
	res->add = (now_ns() - t0) / wk->n;
	phase_end("twheel", "add", wk->n);

	phase_start();
	t0 = now_ns();
	for (i = 0; i < wk->n; i++)
		twheel_wheel_remove(w, &o[wk->perm[i]].e);
	res->remove = (now_ns() - t0) / wk->n;
	phase_end("twheel", "remove", wk->n);

	for (i = 0; i < wk->n; i++)
		tw_add(w, &o[i].e, wk->dl[i]);
	INIT_LIST_HEAD(&out);
	phase_start();
	t0 = now_ns();
	for (t = STEP; t <= DL_MAX; t += STEP) {
		handed += tw_advance(w, t, &out);
		list_for_each_entry_safe(e, tmp, &out, node)
			sum += e->expires;
		INIT_LIST_HEAD(&out);
	}
	res->expire = (now_ns() - t0) / wk->n;
	phase_end("twheel", "expire", wk->n);
	check("twheel", handed, wk->n, sum, wk->sum);
	tw_free_levels(w);
	free(o);
	free(w);
}

/*
 * Touch every page of a fresh allocation, so that the timed loops of the
 * timeout.c workload do not pay its first-touch page faults.
 */
static void prefault(void *p, size_t len)
{
	volatile char *c = p;
	size_t off;

	for (off = 0; off < len; off += 4096)
		c[off] = 0;	/* volatile: not dropped as a store of zero */
}

/* timeout.c workload: add N, cancel some, expire the rest 1 tick a call. */
static void run_twheel_to(const struct work *wk, struct res *res)
{
	struct twheel_wheel *w = xcalloc(1, sizeof(*w));
	struct tw_obj *o = xcalloc(wk->n, sizeof(*o));
	u32 i, nc = to_ncancel(wk->n);
	struct twheel_entry *e, *tmp;
	u64 handed = 0, sum = 0, t;
	struct list_head out;
	double t0, ta, tc, te;

	twheel_wheel_init(w, 0);
	INIT_LIST_HEAD(&out);
	prefault(o, wk->n * sizeof(*o));
	t0 = now_ns();
	for (i = 0; i < wk->n; i++)
		tw_add(w, &o[i].e, wk->dl[i]);
	ta = now_ns() - t0;
	t0 = now_ns();
	for (i = 0; i < nc; i++)
		twheel_wheel_remove(w, &o[wk->perm[i]].e);
	tc = now_ns() - t0;
	t0 = now_ns();
	for (t = 1; t <= TO_MAX; t++) {
		handed += tw_advance(w, t, &out);
		list_for_each_entry_safe(e, tmp, &out, node)
			sum += e->expires;
		INIT_LIST_HEAD(&out);
	}
	te = now_ns() - t0;
	check("twheel (timeout.c workload)", handed, wk->n - nc, sum, wk->sum);
	res->add = ta / wk->n;
	res->remove = nc ? tc / nc : 0;
	res->expire = te / (wk->n - nc);
	res->life = (ta + tc + te) / wk->n;
	tw_free_levels(w);
	free(o);
	free(w);
}

/* ------------------------------------------------------------------ */
/* binary min-heap with index tracking                                */

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

static void run_heap(const struct work *wk, struct res *res)
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

static void run_heap_to(const struct work *wk, struct res *res)
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

/* ------------------------------------------------------------------ */
/* single-level hashed wheel with rounds                              */

struct hw_obj {
	struct list_head node;
	u64 expires;
	u64 rounds;		/* whole turns left before it is due */
};

struct hwheel {
	struct list_head *b;
	u64 mask;
	u64 cur;		/* next tick to process */
};

static void hw_add(struct hwheel *hw, struct hw_obj *o, u64 expires)
{
	u64 t = expires > hw->cur ? expires : hw->cur;

	o->expires = expires;
	o->rounds = (t - hw->cur) / (hw->mask + 1);
	list_add_tail(&o->node, &hw->b[t & hw->mask]);
}

static void hw_remove(struct hw_obj *o)
{
	list_del_init(&o->node);
}

/* Process every tick up to @now; append due entries to @out. */
static u64 hw_advance(struct hwheel *hw, u64 now, struct list_head *out)
{
	struct hw_obj *o, *tmp;
	struct list_head *b;
	u64 n = 0;

	for (; hw->cur <= now; hw->cur++) {
		b = &hw->b[hw->cur & hw->mask];
		list_for_each_entry_safe(o, tmp, b, node) {
			if (o->rounds) {
				o->rounds--;
			} else {
				list_move_tail(&o->node, out);
				n++;
			}
		}
	}
	return n;
}

static void run_hwheel(const struct work *wk, struct res *res, u32 hw_slots,
		       const char *name)
{
	struct hwheel hw = {
		.b = xcalloc(hw_slots, sizeof(*hw.b)),
		.mask = hw_slots - 1,
		.cur = 0,
	};
	struct hw_obj *o = xcalloc(wk->n, sizeof(*o)), *e, *tmp;
	struct list_head out;
	u64 handed = 0, sum = 0, t;
	double t0;
	u32 i;

	for (i = 0; i < hw_slots; i++)
		INIT_LIST_HEAD(&hw.b[i]);

	phase_start();
	t0 = now_ns();
	for (i = 0; i < wk->n; i++)
		hw_add(&hw, &o[i], wk->dl[i]);
	res->add = (now_ns() - t0) / wk->n;
	phase_end(name, "add", wk->n);

	phase_start();
	t0 = now_ns();
	for (i = 0; i < wk->n; i++)
		hw_remove(&o[wk->perm[i]]);
	res->remove = (now_ns() - t0) / wk->n;
	phase_end(name, "remove", wk->n);

	for (i = 0; i < wk->n; i++)
		hw_add(&hw, &o[i], wk->dl[i]);
	INIT_LIST_HEAD(&out);
	phase_start();
	t0 = now_ns();
	for (t = STEP; t <= DL_MAX; t += STEP) {
		handed += hw_advance(&hw, t, &out);
		list_for_each_entry_safe(e, tmp, &out, node)
			sum += e->expires;
		INIT_LIST_HEAD(&out);
	}
	res->expire = (now_ns() - t0) / wk->n;
	phase_end(name, "expire", wk->n);
	check(name, handed, wk->n, sum, wk->sum);
	free(o);
	free(hw.b);
}

static void run_hwheel_to(const struct work *wk, struct res *res,
			  u32 hw_slots)
{
	struct hwheel hw = {
		.b = xcalloc(hw_slots, sizeof(*hw.b)),
		.mask = hw_slots - 1,
		.cur = 0,
	};
	struct hw_obj *o = xcalloc(wk->n, sizeof(*o)), *e, *tmp;
	u32 i, nc = to_ncancel(wk->n);
	u64 handed = 0, sum = 0, t;
	double t0, ta, tc, te;
	struct list_head out;

	for (i = 0; i < hw_slots; i++)
		INIT_LIST_HEAD(&hw.b[i]);
	INIT_LIST_HEAD(&out);
	prefault(o, wk->n * sizeof(*o));
	t0 = now_ns();
	for (i = 0; i < wk->n; i++)
		hw_add(&hw, &o[i], wk->dl[i]);
	ta = now_ns() - t0;
	t0 = now_ns();
	for (i = 0; i < nc; i++)
		hw_remove(&o[wk->perm[i]]);
	tc = now_ns() - t0;
	t0 = now_ns();
	for (t = 1; t <= TO_MAX; t++) {
		handed += hw_advance(&hw, t, &out);
		list_for_each_entry_safe(e, tmp, &out, node)
			sum += e->expires;
		INIT_LIST_HEAD(&out);
	}
	te = now_ns() - t0;
	check("hashed wheel (timeout.c workload)", handed, wk->n - nc, sum,
	      wk->sum);
	res->add = ta / wk->n;
	res->remove = nc ? tc / nc : 0;
	res->expire = te / (wk->n - nc);
	res->life = (ta + tc + te) / wk->n;
	free(o);
	free(hw.b);
}

/* ------------------------------------------------------------------ */

/* The structures measured; a max_n of 0 means every N. */
struct bench_struct {
	char name[16];
	int kind;		/* 0 twheel, 1 heap, 2 hashed wheel */
	u32 slots;		/* hashed wheel only */
	u32 max_n;
	bool in_cg;		/* also measured under callgrind */
};

#define NSTRUCT		4
static struct bench_struct structs[NSTRUCT] = {
	{ "twheel", 0, 0, 0, true },
	{ "heap", 1, 0, 0, true },
	{ "hw512", 2, 512, 10000, true },	/* Netty's default size */
	{ "hw64k", 2, 65536, 0, true },
};

static void run_struct(const struct bench_struct *b, const struct work *wk,
		       struct res *res)
{
	if (b->kind == 0)
		run_twheel(wk, res);
	else if (b->kind == 1)
		run_heap(wk, res);
	else
		run_hwheel(wk, res, b->slots, b->name);
}

static bool struct_runs(const struct bench_struct *b, u32 n)
{
	return !b->max_n || n <= b->max_n;
}

static void make_work(struct work *wk, u32 n, u64 seed)
{
	u32 i, j, x;

	wk->n = n;
	wk->dl = xcalloc(n, sizeof(*wk->dl));
	wk->perm = xcalloc(n, sizeof(*wk->perm));
	wk->sum = 0;
	rng_state = seed;
	for (i = 0; i < n; i++) {
		wk->dl[i] = DL_MIN + rnd_below(DL_MAX - DL_MIN + 1);
		wk->sum += wk->dl[i];
		wk->perm[i] = i;
	}
	for (i = n - 1; i > 0; i--) {
		j = (u32)rnd_below(i + 1);
		x = wk->perm[i];
		wk->perm[i] = wk->perm[j];
		wk->perm[j] = x;
	}
}

static void free_work(struct work *wk)
{
	free(wk->dl);
	free(wk->perm);
}

/* The timeout.c workload: deadlines over [1, TO_MAX], a random cancel set. */
static void make_work_to(struct work *wk, u32 n, u64 seed)
{
	u32 i;

	make_work(wk, n, seed);		/* for the random order */
	for (i = 0; i < n; i++)
		wk->dl[i] = 1 + rnd_below(TO_MAX);
	wk->sum = 0;
	for (i = to_ncancel(n); i < n; i++)
		wk->sum += wk->dl[wk->perm[i]];
}

static void run_struct_to(const struct bench_struct *b, const struct work *wk,
			  struct res *res)
{
	if (b->kind == 0)
		run_twheel_to(wk, res);
	else if (b->kind == 1)
		run_heap_to(wk, res);
	else
		run_hwheel_to(wk, res, b->slots);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* "median [min-max]" of @n values. */
static void stat_str(char *buf, size_t len, double *v, int n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	snprintf(buf, len, "%8.1f [%.1f-%.1f]",
		 n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2, v[0],
		 v[n - 1]);
}

/* ns per advance() over an empty wheel: 1 tick, and 10^12 ticks. */
static void idle_jump(double *one, double *huge)
{
	struct twheel_wheel *w = xcalloc(1, sizeof(*w));
	struct list_head out;
	const int calls = 1000000;
	double t0;
	u64 got = 0;
	int i;

	INIT_LIST_HEAD(&out);
	twheel_wheel_init(w, 0);
	t0 = now_ns();
	for (i = 0; i < calls; i++)
		got += tw_advance(w, w->clk + 1, &out);
	*one = (now_ns() - t0) / calls;
	t0 = now_ns();
	for (i = 0; i < calls; i++)
		got += tw_advance(w, w->clk + 1000000000000ULL, &out);
	*huge = (now_ns() - t0) / calls;
	if (got)
		exit(3);
	tw_free_levels(w);
	free(w);
}

static FILE *out_file;

static __printf(1, 2) void emit(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	if (out_file) {
		va_start(ap, fmt);
		vfprintf(out_file, fmt, ap);
		va_end(ap);
	}
}

/* The second table: the timeout.c-shaped workload, every structure. */
static void bench_time_to(const u32 *ns, int nn, int reps)
{
	static double v[NSTRUCT][4][MAX_REPS];
	struct work wk;
	char s[4][64];
	struct res r;
	int in, k, rep;

	emit("\nbench-core, timeout.c workload: ns per operation, median of %d repetitions [min-max]\n",
	     reps);
	emit("  the shape of the benchmark of W. Ahern's timeout.c (reimplemented, no code taken):\n");
	emit("  add: N adds, deadlines uniform over [1, %llu] ticks (1 ms ticks: up to a minute),\n",
	     TO_MAX);
	emit("       clock at 0; cancel: a random %u%% of them removed, random order, ns per cancel;\n",
	     TO_CANCEL_PCT);
	emit("  expire: the clock advanced 1 tick per call, 1 .. %llu, ns per entry handed back,\n",
	     TO_MAX);
	emit("          all %llu calls included; life: (add + cancel + expire) / N, ns per timer\n",
	     TO_MAX);
	emit("  every structure at every N (in hwN an entry of deadline d is visited\n"
	     "  d / N + 1 times: about 59 times in hw512, once in hw64k)\n");
	emit("\n%9s  %-7s  %-24s  %-24s  %-24s  %-24s\n", "N", "struct",
	     "add ns/op", "cancel ns/op", "expire ns/entry", "life ns/timer");
	for (in = 0; in < nn; in++) {
		for (rep = 0; rep < reps; rep++) {
			make_work_to(&wk, ns[in], 0x746fULL * (rep + 1) + ns[in]);
			for (k = 0; k < NSTRUCT; k++) {
				run_struct_to(&structs[k], &wk, &r);
				v[k][0][rep] = r.add;
				v[k][1][rep] = r.remove;
				v[k][2][rep] = r.expire;
				v[k][3][rep] = r.life;
			}
			free_work(&wk);
		}
		for (k = 0; k < NSTRUCT; k++) {
			stat_str(s[0], sizeof(s[0]), v[k][0], reps);
			stat_str(s[1], sizeof(s[1]), v[k][1], reps);
			stat_str(s[2], sizeof(s[2]), v[k][2], reps);
			stat_str(s[3], sizeof(s[3]), v[k][3], reps);
			emit("%9u  %-7s  %-24s  %-24s  %-24s  %-24s\n", ns[in],
			     structs[k].name, s[0], s[1], s[2], s[3]);
		}
		fflush(stdout);
	}
}

static int bench_time(const u32 *ns, int nn, int reps)
{
	static double v[NSTRUCT][3][MAX_REPS];
	double one, huge;
	char s[3][64];
	struct work wk;
	struct res r;
	int in, k, rep;

	emit("bench-core: ns per operation, median of %d repetitions [min-max]\n",
	     reps);
	emit("  deadlines uniform over [%llu, %llu] ticks (1 us ticks: 1 ms .. 10 s), clock from 0\n",
	     DL_MIN, DL_MAX);
	emit("  add: N adds to an empty structure; remove: the N removed in random order;\n");
	emit("  expire: N re-added, clock advanced 0 -> 10^7 in 1000-tick (1 ms) steps,\n");
	emit("          per entry handed back, all 10^4 advance calls included\n");
	emit("  twheel: kmod/twheel_wheel.c; heap: binary min-heap, index-tracked remove;\n");
	emit("  hwN: single-level hashed wheel with rounds (Netty-style), N one-tick slots;\n");
	for (k = 0; k < NSTRUCT; k++)
		if (structs[k].max_n)
			emit("  %s timed only up to N = %u: it visits each entry once per turn, about\n"
			     "        N * 5e6 / %u visits in all, %.0e at N = 10^5 (see the callgrind table)\n",
			     structs[k].name, structs[k].max_n, structs[k].slots,
			     1e5 * 5e6 / structs[k].slots);
	emit("\n%9s  %-7s  %-24s  %-24s  %-24s\n", "N", "struct", "add ns/op",
	     "remove ns/op", "expire ns/entry");
	for (in = 0; in < nn; in++) {
		for (rep = 0; rep < reps; rep++) {
			make_work(&wk, ns[in], 0x7477ULL * (rep + 1) + ns[in]);
			for (k = 0; k < NSTRUCT; k++) {
				if (!struct_runs(&structs[k], ns[in]))
					continue;
				run_struct(&structs[k], &wk, &r);
				v[k][0][rep] = r.add;
				v[k][1][rep] = r.remove;
				v[k][2][rep] = r.expire;
			}
			free_work(&wk);
		}
		for (k = 0; k < NSTRUCT; k++) {
			if (!struct_runs(&structs[k], ns[in]))
				continue;
			stat_str(s[0], sizeof(s[0]), v[k][0], reps);
			stat_str(s[1], sizeof(s[1]), v[k][1], reps);
			stat_str(s[2], sizeof(s[2]), v[k][2], reps);
			emit("%9u  %-7s  %-24s  %-24s  %-24s\n", ns[in],
			     structs[k].name, s[0], s[1], s[2]);
		}
		fflush(stdout);
	}
	idle_jump(&one, &huge);
	emit("\ntwheel advance() over an empty wheel: %.1f ns for 1 tick, %.1f ns for 10^12 ticks\n",
	     one, huge);
	bench_time_to(ns, nn, reps);
	return 0;
}

/* Callgrind mode: one rep of each structure at one N. */
static int bench_cg(u32 n)
{
	struct work wk;
	struct res r;
	int k;

	cg_mode = 1;
	make_work(&wk, n, 0x7477ULL + n);
	for (k = 0; k < NSTRUCT; k++)
		if (structs[k].in_cg)
			run_struct(&structs[k], &wk, &r);
	free_work(&wk);
	return 0;
}

/* Read the instruction count of the dump labelled @label in @dir. */
static long long cg_read(const char *dir, const char *label)
{
	char path[4096], line[4096], want[320];
	long long ir = -1, v;
	int part, match;
	FILE *f;

	snprintf(want, sizeof(want), "desc: Trigger: Client Request: %s\n",
		 label);
	for (part = 1; part < 1000; part++) {
		snprintf(path, sizeof(path), "%s/cg.out.%d", dir, part);
		f = fopen(path, "r");
		if (!f)
			break;
		match = 0;
		while (fgets(line, sizeof(line), f)) {
			if (!strcmp(line, want))
				match = 1;
			if (match && sscanf(line, "summary: %lld", &v) == 1)
				ir = v;
		}
		fclose(f);
		if (match)
			return ir;
	}
	return -1;
}

static int bench_cg_table(const char *dir, u32 n)
{
	static const char *const ops[] = { "add", "remove", "expire" };
	char label[256];
	long long ir;
	int k, op;

	emit("bench-core (callgrind): instructions per operation at N = %u\n", n);
	emit("  valgrind --tool=callgrind, counting only inside each measured loop; same\n");
	emit("  workload and loops as the timing table; expire is per entry handed back,\n");
	emit("  including the 10^4 advance calls (and for hwN the 10^7 bucket visits)\n\n");
	emit("%-7s  %14s  %14s  %16s\n", "struct", "add Ir/op", "remove Ir/op",
	     "expire Ir/entry");
	for (k = 0; k < NSTRUCT; k++) {
		if (!structs[k].in_cg)
			continue;
		emit("%-7s", structs[k].name);
		for (op = 0; op < 3; op++) {
			snprintf(label, sizeof(label), "bench %s %s %u",
				 structs[k].name, ops[op], n);
			ir = cg_read(dir, label);
			if (ir < 0) {
				fprintf(stderr, "bench_core: no callgrind dump '%s' in %s\n",
					label, dir);
				return 1;
			}
			emit("  %*.1f", op == 2 ? 16 : 14, (double)ir / n);
		}
		emit("\n");
	}
	return 0;
}

int main(int argc, char **argv)
{
	static const u32 all_n[] = { 1000, 10000, 100000, 1000000 };
	const char *outpath = NULL, *cgdir = NULL;
	int reps = 5, c, ret, cg = 0;
	u32 one_n = 0;

	while ((c = getopt(argc, argv, "r:n:o:cC:")) != -1) {
		switch (c) {
		case 'r':
			reps = atoi(optarg);
			break;
		case 'n':
			one_n = (u32)strtoul(optarg, NULL, 0);
			break;
		case 'o':
			outpath = optarg;
			break;
		case 'c':
			cg = 1;
			break;
		case 'C':
			cgdir = optarg;
			break;
		default:
			fprintf(stderr, "usage: %s [-r reps] [-n N] [-o file] [-c | -C dir]\n",
				argv[0]);
			return 2;
		}
	}
	if (reps < 1 || reps > MAX_REPS) {
		fprintf(stderr, "bench_core: -r must be 1..%d\n", MAX_REPS);
		return 2;
	}
	if (cg)
		return bench_cg(one_n ? one_n : 100000);
	if (outpath) {
		out_file = fopen(outpath, "w");
		if (!out_file) {
			fprintf(stderr, "bench_core: %s: %s\n", outpath,
				strerror(errno));
			return 2;
		}
	}
	if (cgdir)
		ret = bench_cg_table(cgdir, one_n ? one_n : 100000);
	else if (one_n)
		ret = bench_time(&one_n, 1, reps);
	else
		ret = bench_time(all_n, 4, reps);
	if (out_file) {
		fclose(out_file);
		printf("(written to %s)\n", outpath);
	}
	return ret;
}
