// SPDX-License-Identifier: GPL-2.0
/*
 * twheel_kbench.c - in-kernel cost of the twheel wheel core against the
 * kernel's own timers: timer_list and hrtimer.
 *
 * A benchmark module, not part of twheel: its init measures, prints a
 * table to the kernel log, frees everything and returns 0; the module then
 * holds nothing and is removed with rmmod. (It does not fail its init to
 * unload itself: busybox's insmod retries a failed finit_module() with
 * init_module(), which would run the whole benchmark twice.) A failed run
 * returns an error instead. tests/bench/kbench/run.sh loads it in the
 * stock-kernel VM and turns the log into build/bench/kbench.md.
 *
 * For each N = 10^3, 10^4, ... up to the parameter n, and for each of
 * reps repetitions, it draws N deadlines uniform over
 * [min_ms, min_ms + span_ms] milliseconds from now and a random removal
 * order, then measures per operation, for each implementation in turn on
 * the same deadlines:
 *
 *   add      N timers armed in an empty structure;
 *   remove   the N removed again, in the random order;
 *   add+rm   (add + remove) per timer, the target figure;
 *   expire   wheel only: the N re-armed, then twheel_wheel_advance()
 *            called once per millisecond of time (every 1 ms / tick_ns
 *            ticks, at least 1: a 1 kHz periodic caller, as in
 *            make bench-core) from 0 up to the last deadline, each
 *            handed-back entry read; ns per entry, every call included.
 *
 * The implementations:
 *   wheel       kmod/twheel_wheel.c, built into this module from the same
 *               source file as twheel.ko; deadlines in ticks of tick_ns
 *               (default TWHEEL_DEFAULT_TICK_NS, the module's default);
 *   wheel+mutex the same with a mutex taken and released around every
 *               add and every remove: twheel.ko serialises a wheel with a
 *               mutex held once per ioctl batch, so this is its worst case
 *               (batches of one), where the plain wheel is its best; the
 *               kernel's timers pay their own base lock on every call;
 *   timer_list  add_timer() with the deadlines in jiffies, timer_delete();
 *   hrtimer     hrtimer_start(HRTIMER_MODE_ABS) on CLOCK_MONOTONIC,
 *               hrtimer_cancel().
 * timer_setup() and hrtimer initialisation happen before the clock starts,
 * as a user does them once per object; deadline conversions too.
 *
 * The deadlines start min_ms (10 s) ahead so that no kernel timer fires
 * while it is measured: a callback that runs counts in "fired", which
 * the table reports and should be 0.
 *
 * Timing: ktime_get_ns() around batches of batch operations, summed; the
 * task may be preempted and calls cond_resched() between two batches, so
 * the whole run is in process context with preemption allowed. Each
 * figure is the median of reps, with min and max. Log lines, one per
 * figure, machine-readable:
 *
 *   twheel_kbench: m=MEASURE impl=IMPL n=N ns_op=X.Y min=X.Y max=X.Y
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/hrtimer.h>
#include <linux/jiffies.h>
#include <linux/ktime.h>
#include <linux/math64.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/overflow.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/timer.h>
#include <linux/vmalloc.h>
#include <linux/twheel.h>

#include "twheel_compat.h"
#include "twheel_wheel.h"

/* timer_delete() replaced del_timer() in 6.2 (detected by the Kbuild). */
#ifndef KBENCH_HAVE_TIMER_DELETE
#define timer_delete(t) del_timer(t)
#endif

#define KBENCH_MIN_N	1000U
#define KBENCH_MAX_REPS	31U

static unsigned int n = 100000;
module_param(n, uint, 0444);
MODULE_PARM_DESC(n, "largest N (powers of 10 from 1000 up to it)");

static unsigned int reps = 5;
module_param(reps, uint, 0444);
MODULE_PARM_DESC(reps, "repetitions per figure, 1..31 (median reported)");

static unsigned long tick_ns = TWHEEL_DEFAULT_TICK_NS;
module_param(tick_ns, ulong, 0444);
MODULE_PARM_DESC(tick_ns, "the wheel's tick in ns");

static unsigned int min_ms = 10000;
module_param(min_ms, uint, 0444);
MODULE_PARM_DESC(min_ms, "earliest deadline, ms from the start of a phase");

static unsigned int span_ms = 10000;
module_param(span_ms, uint, 0444);
MODULE_PARM_DESC(span_ms, "deadlines uniform over [min_ms, min_ms + span_ms]");

static unsigned int batch = 1000;
module_param(batch, uint, 0444);
MODULE_PARM_DESC(batch, "operations per timed batch");

enum { IMPL_WHEEL, IMPL_WLOCK, IMPL_TLIST, IMPL_HRT, NR_IMPL };
enum { M_ADD, M_REMOVE, M_ADDRM, M_EXPIRE, NR_MEASURE };

static const char *const impl_name[NR_IMPL] = {
	"wheel", "wheel+mutex", "timer_list", "hrtimer",
};

static const char *const measure_name[NR_MEASURE] = {
	"add", "remove", "add+rm", "expire",
};

/* Callbacks that ran: must stay 0, no deadline is reached. */
static atomic_t kbench_fired = ATOMIC_INIT(0);

/* Everything one N needs; allocated once per N. */
struct kbench {
	unsigned int n;
	u64 *dl_us;			/* deadline of timer i, us from now */
	u64 *key;			/* the same, in the implementation's unit */
	u32 *perm;			/* removal order */
	struct twheel_wheel *wheel;
	struct twheel_entry *went;
	struct timer_list *tl;
	struct hrtimer *hrt;
	/* total ns of each rep, per implementation and measure */
	u64 ns[NR_IMPL][NR_MEASURE][KBENCH_MAX_REPS];
	u64 rng;
};

/* splitmix64: a reproducible stream per (N, rep). */
static u64 kbench_rnd(struct kbench *kb)
{
	u64 z;

	kb->rng += 0x9e3779b97f4a7c15ULL;
	z = kb->rng;
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* Uniform in [0, bound), bound < 2^32. */
static u32 kbench_below(struct kbench *kb, u32 bound)
{
	return (u32)(((kbench_rnd(kb) >> 32) * bound) >> 32);
}

/*
 * The wheel's levels, all given before anything is timed: the module
 * gives a clock's wheel a level (512 bytes) the first time a timer needs
 * it, at most 11 times, and that allocation is not what this compares.
 */
static int kbench_levels_give(struct twheel_wheel *w)
{
	struct twheel_level *l;
	unsigned int lvl;

	for (lvl = 0; lvl < TWHEEL_LEVELS; lvl++) {
		l = kzalloc(sizeof(*l), GFP_KERNEL);
		if (!l)
			return -ENOMEM;
		twheel_wheel_give_level(w, lvl, l);
	}
	return 0;
}

static void kbench_levels_free(struct twheel_wheel *w)
{
	unsigned int lvl;

	for (lvl = 0; lvl < TWHEEL_LEVELS; lvl++) {
		kfree(w->lvl[lvl]);
		w->lvl[lvl] = NULL;
	}
}

static void kbench_free(struct kbench *kb)
{
	vfree(kb->dl_us);
	vfree(kb->key);
	vfree(kb->perm);
	vfree(kb->went);
	vfree(kb->tl);
	vfree(kb->hrt);
	if (kb->wheel)
		kbench_levels_free(kb->wheel);
	kfree(kb->wheel);
	kfree(kb);
}

static struct kbench *kbench_alloc(unsigned int nr)
{
	struct kbench *kb = kzalloc(sizeof(*kb), GFP_KERNEL);

	if (!kb)
		return NULL;
	kb->n = nr;
	kb->dl_us = vzalloc(array_size(nr, sizeof(*kb->dl_us)));
	kb->key = vzalloc(array_size(nr, sizeof(*kb->key)));
	kb->perm = vzalloc(array_size(nr, sizeof(*kb->perm)));
	kb->went = vzalloc(array_size(nr, sizeof(*kb->went)));
	kb->tl = vzalloc(array_size(nr, sizeof(*kb->tl)));
	kb->hrt = vzalloc(array_size(nr, sizeof(*kb->hrt)));
	kb->wheel = kzalloc(sizeof(*kb->wheel), GFP_KERNEL);
	if (!kb->dl_us || !kb->key || !kb->perm || !kb->went || !kb->tl ||
	    !kb->hrt || !kb->wheel) {
		kbench_free(kb);
		return NULL;
	}
	return kb;
}

/* Deadlines and removal order of one repetition. */
static void kbench_draw(struct kbench *kb, unsigned int rep)
{
	u32 span_us = span_ms * 1000U + 1, i, j, x;

	kb->rng = 0x7477ULL * (rep + 1) + kb->n;
	for (i = 0; i < kb->n; i++) {
		kb->dl_us[i] = (u64)min_ms * 1000 + kbench_below(kb, span_us);
		kb->perm[i] = i;
	}
	for (i = kb->n - 1; i > 0; i--) {
		j = kbench_below(kb, i + 1);
		x = kb->perm[i];
		kb->perm[i] = kb->perm[j];
		kb->perm[j] = x;
	}
}

/* ------------------------------------------------------------------ */
/* the wheel core                                                     */

static int kbench_wheel(struct kbench *kb, unsigned int rep)
{
	struct twheel_wheel *w = kb->wheel;
	struct twheel_entry *e, *tmp;
	u64 t0, total, handed = 0, sum = 0, want = 0, last = 0, tick, calls;
	u64 step = max_t(u64, NSEC_PER_MSEC / tick_ns, 1);
	unsigned int i, j;
	LIST_HEAD(out);

	for (i = 0; i < kb->n; i++) {
		kb->key[i] = DIV64_U64_ROUND_UP(kb->dl_us[i] * NSEC_PER_USEC,
						tick_ns);
		want += kb->key[i];
		last = max(last, kb->key[i]);
	}
	kbench_levels_free(w);
	twheel_wheel_init(w, 0);
	if (kbench_levels_give(w))
		return -ENOMEM;

	total = 0;
	for (i = 0; i < kb->n; i = j) {
		t0 = ktime_get_ns();
		for (j = i; j < kb->n && j < i + batch; j++)
			twheel_wheel_add(w, &kb->went[j], kb->key[j]);
		total += ktime_get_ns() - t0;
		cond_resched();
	}
	kb->ns[IMPL_WHEEL][M_ADD][rep] = total;

	total = 0;
	for (i = 0; i < kb->n; i = j) {
		t0 = ktime_get_ns();
		for (j = i; j < kb->n && j < i + batch; j++)
			twheel_wheel_remove(w, &kb->went[kb->perm[j]]);
		total += ktime_get_ns() - t0;
		cond_resched();
	}
	kb->ns[IMPL_WHEEL][M_REMOVE][rep] = total;
	if (!twheel_wheel_empty(w)) {
		pr_err("wheel not empty after removing all\n");
		return -EIO;
	}

	/* Expiry: one advance per step, reading what comes back. */
	for (i = 0; i < kb->n; i++)
		twheel_wheel_add(w, &kb->went[i], kb->key[i]);
	total = 0;
	tick = 0;
	while (tick < last) {
		t0 = ktime_get_ns();
		for (calls = 0; calls < batch && tick < last; calls++) {
			tick = min(tick + step, last);
			handed += twheel_wheel_advance(w, tick, &out);
			list_for_each_entry_safe(e, tmp, &out, node)
				sum += e->expires;
			INIT_LIST_HEAD(&out);
		}
		total += ktime_get_ns() - t0;
		cond_resched();
	}
	kb->ns[IMPL_WHEEL][M_EXPIRE][rep] = total;
	if (handed != kb->n || sum != want || !twheel_wheel_empty(w)) {
		pr_err("wheel expiry handed back %llu (sum %llu), want %u (sum %llu)\n",
		       handed, sum, kb->n, want);
		return -EIO;
	}
	return 0;
}

/* The wheel under a mutex taken per operation: add and remove only. */
static DEFINE_MUTEX(kbench_lock);

static int kbench_wheel_locked(struct kbench *kb, unsigned int rep)
{
	struct twheel_wheel *w = kb->wheel;
	unsigned int i, j;
	u64 t0, total;

	for (i = 0; i < kb->n; i++)
		kb->key[i] = DIV64_U64_ROUND_UP(kb->dl_us[i] * NSEC_PER_USEC,
						tick_ns);
	kbench_levels_free(w);
	twheel_wheel_init(w, 0);
	if (kbench_levels_give(w))
		return -ENOMEM;

	total = 0;
	for (i = 0; i < kb->n; i = j) {
		t0 = ktime_get_ns();
		for (j = i; j < kb->n && j < i + batch; j++) {
			mutex_lock(&kbench_lock);
			twheel_wheel_add(w, &kb->went[j], kb->key[j]);
			mutex_unlock(&kbench_lock);
		}
		total += ktime_get_ns() - t0;
		cond_resched();
	}
	kb->ns[IMPL_WLOCK][M_ADD][rep] = total;

	total = 0;
	for (i = 0; i < kb->n; i = j) {
		t0 = ktime_get_ns();
		for (j = i; j < kb->n && j < i + batch; j++) {
			mutex_lock(&kbench_lock);
			twheel_wheel_remove(w, &kb->went[kb->perm[j]]);
			mutex_unlock(&kbench_lock);
		}
		total += ktime_get_ns() - t0;
		cond_resched();
	}
	kb->ns[IMPL_WLOCK][M_REMOVE][rep] = total;
	if (!twheel_wheel_empty(w)) {
		pr_err("wheel not empty after removing all\n");
		return -EIO;
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* timer_list                                                         */

static void kbench_tl_fn(struct timer_list *t)
{
	atomic_inc(&kbench_fired);
}

static int kbench_tlist(struct kbench *kb, unsigned int rep)
{
	unsigned long base;
	unsigned int i, j, gone = 0;
	u64 t0, total;

	for (i = 0; i < kb->n; i++) {
		kb->key[i] = usecs_to_jiffies(kb->dl_us[i]);
		timer_setup(&kb->tl[i], kbench_tl_fn, 0);
	}

	base = jiffies;
	total = 0;
	for (i = 0; i < kb->n; i = j) {
		t0 = ktime_get_ns();
		for (j = i; j < kb->n && j < i + batch; j++) {
			kb->tl[j].expires = base + kb->key[j];
			add_timer(&kb->tl[j]);
		}
		total += ktime_get_ns() - t0;
		cond_resched();
	}
	kb->ns[IMPL_TLIST][M_ADD][rep] = total;

	total = 0;
	for (i = 0; i < kb->n; i = j) {
		t0 = ktime_get_ns();
		for (j = i; j < kb->n && j < i + batch; j++)
			gone += !timer_delete(&kb->tl[kb->perm[j]]);
		total += ktime_get_ns() - t0;
		cond_resched();
	}
	kb->ns[IMPL_TLIST][M_REMOVE][rep] = total;
	if (gone)
		pr_warn("timer_list: %u timers no longer pending at removal\n",
			gone);
	return 0;
}

/* ------------------------------------------------------------------ */
/* hrtimer                                                            */

static enum hrtimer_restart kbench_hrt_fn(struct hrtimer *t)
{
	atomic_inc(&kbench_fired);
	return HRTIMER_NORESTART;
}

static int kbench_hrtimer(struct kbench *kb, unsigned int rep)
{
	unsigned int i, j, gone = 0;
	u64 t0, total;
	ktime_t base;

	for (i = 0; i < kb->n; i++) {
		kb->key[i] = kb->dl_us[i] * NSEC_PER_USEC;
		twheel_hrtimer_setup(&kb->hrt[i], kbench_hrt_fn,
				     CLOCK_MONOTONIC, HRTIMER_MODE_ABS);
	}

	base = ktime_get();
	total = 0;
	for (i = 0; i < kb->n; i = j) {
		t0 = ktime_get_ns();
		for (j = i; j < kb->n && j < i + batch; j++)
			hrtimer_start(&kb->hrt[j], ktime_add_ns(base, kb->key[j]),
				      HRTIMER_MODE_ABS);
		total += ktime_get_ns() - t0;
		cond_resched();
	}
	kb->ns[IMPL_HRT][M_ADD][rep] = total;

	total = 0;
	for (i = 0; i < kb->n; i = j) {
		t0 = ktime_get_ns();
		for (j = i; j < kb->n && j < i + batch; j++)
			gone += !hrtimer_cancel(&kb->hrt[kb->perm[j]]);
		total += ktime_get_ns() - t0;
		cond_resched();
	}
	kb->ns[IMPL_HRT][M_REMOVE][rep] = total;
	if (gone)
		pr_warn("hrtimer: %u timers no longer active at removal\n",
			gone);
	return 0;
}

/* ------------------------------------------------------------------ */

static int kbench_cmp_u64(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

/* Print one figure: tenths of ns per op, median [min, max] of the reps. */
static void kbench_report(struct kbench *kb, int impl, int m)
{
	u64 v[KBENCH_MAX_REPS], med;
	unsigned int i;

	for (i = 0; i < reps; i++)
		v[i] = div_u64(kb->ns[impl][m][i] * 10 + kb->n / 2, kb->n);
	sort(v, reps, sizeof(v[0]), kbench_cmp_u64, NULL);
	med = reps % 2 ? v[reps / 2] : (v[reps / 2 - 1] + v[reps / 2]) / 2;
	pr_info("m=%s impl=%s n=%u ns_op=%llu.%llu min=%llu.%llu max=%llu.%llu\n",
		measure_name[m], impl_name[impl], kb->n, med / 10, med % 10,
		v[0] / 10, v[0] % 10, v[reps - 1] / 10, v[reps - 1] % 10);
}

static int kbench_one_n(unsigned int nr)
{
	struct kbench *kb = kbench_alloc(nr);
	unsigned int rep, k;
	int impl, m, ret = 0;

	if (!kb) {
		pr_info("skip n=%u: out of memory\n", nr);
		return -ENOMEM;
	}
	for (rep = 0; rep < reps && !ret; rep++) {
		kbench_draw(kb, rep);
		/* Rotate the order so that no implementation always goes first. */
		for (k = 0; k < NR_IMPL && !ret; k++) {
			impl = (rep + k) % NR_IMPL;
			if (impl == IMPL_WHEEL)
				ret = kbench_wheel(kb, rep);
			else if (impl == IMPL_WLOCK)
				ret = kbench_wheel_locked(kb, rep);
			else if (impl == IMPL_TLIST)
				ret = kbench_tlist(kb, rep);
			else
				ret = kbench_hrtimer(kb, rep);
		}
		for (impl = 0; impl < NR_IMPL; impl++)
			kb->ns[impl][M_ADDRM][rep] = kb->ns[impl][M_ADD][rep] +
						     kb->ns[impl][M_REMOVE][rep];
	}
	if (!ret) {
		for (m = 0; m < NR_MEASURE; m++)
			for (impl = 0; impl < NR_IMPL; impl++)
				if (m != M_EXPIRE || impl == IMPL_WHEEL)
					kbench_report(kb, impl, m);
	}
	kbench_free(kb);
	return ret;
}

static int __init kbench_init(void)
{
	unsigned int nr;
	int ret = 0;

	if (!reps || reps > KBENCH_MAX_REPS || n < KBENCH_MIN_N || !batch ||
	    !span_ms || !tick_ns || min_ms < 1000) {
		pr_err("bad parameters\n");
		return -EINVAL;
	}
	pr_info("start n=%u reps=%u tick_ns=%lu min_ms=%u span_ms=%u batch=%u hz=%u\n",
		n, reps, tick_ns, min_ms, span_ms, batch, HZ);
	for (nr = KBENCH_MIN_N; nr <= n && !ret; nr *= 10) {
		ret = kbench_one_n(nr);
		if (nr > U32_MAX / 10)
			break;
	}
	if (ret == -ENOMEM)
		ret = 0;	/* the larger N are skipped, the rest stands */
	pr_info("done status=%d fired=%d\n", ret, atomic_read(&kbench_fired));
	return ret;
}
module_init(kbench_init);

/* Nothing to undo: every timer is removed and all memory freed by init. */
static void __exit kbench_exit(void)
{
}
module_exit(kbench_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("twheel wheel core vs timer_list and hrtimer, in-kernel benchmark");
