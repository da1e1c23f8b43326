/* SPDX-License-Identifier: GPL-2.0 */
/*
 * bench_core.h - what the files of bench_core share: the workload
 * constants, the workload and per-run result structs, the helpers around
 * the timed loops, the helpers of bench_core.c the structures use, and
 * each structure's runs.
 *
 * The helpers around the timed loops (now_ns(), xcalloc(), phase_start(),
 * phase_end()) are static here, not in bench_core.c: each file gets its
 * own copy, which the compiler inlines or not as it did when the
 * benchmark was one file, so that the measured loops compile as they did
 * then (as functions of bench_core.c, or as static inline, they changed
 * the callgrind counts of some loops by 1 to 4 instructions per op).
 *
 * Files: bench_core.c (harness, timing, tables, main), bench_core_twheel.c,
 * bench_core_heap.c, bench_core_hwheel.c (one measured structure each).
 */
#ifndef _BENCH_CORE_H
#define _BENCH_CORE_H

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

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

/* The timeout.c-shaped workload: span, and share cancelled (percent). */
#define TO_MAX		60000ULL
#define TO_CANCEL_PCT	50U

static __maybe_unused double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static __maybe_unused void *xcalloc(size_t n, size_t sz)
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
static inline u32 to_ncancel(u32 n)
{
	return (u32)((u64)n * TO_CANCEL_PCT / 100);
}

/* Callgrind mode: count instructions of one phase. */
extern int cg_mode;

static __maybe_unused void phase_start(void)
{
	if (cg_mode) {
		CALLGRIND_START_INSTRUMENTATION;
		CALLGRIND_ZERO_STATS;
	}
}

static __maybe_unused void phase_end(const char *what, const char *op, u32 n)
{
	char label[256];

	if (cg_mode) {
		snprintf(label, sizeof(label), "bench %s %s %u", what, op, n);
		CALLGRIND_DUMP_STATS_AT(label);
		CALLGRIND_STOP_INSTRUMENTATION;
	}
}

/* bench_core.c */
void check(const char *what, u64 got_n, u64 want_n, u64 got_sum,
	   u64 want_sum);
void prefault(void *p, size_t len);

/* bench_core_twheel.c */
void run_twheel(const struct work *wk, struct res *res);
void run_twheel_to(const struct work *wk, struct res *res);
void idle_jump(double *one, double *huge);

/* bench_core_heap.c */
void run_heap(const struct work *wk, struct res *res);
void run_heap_to(const struct work *wk, struct res *res);

/* bench_core_hwheel.c */
void run_hwheel(const struct work *wk, struct res *res, u32 hw_slots,
		const char *name);
void run_hwheel_to(const struct work *wk, struct res *res, u32 hw_slots);

#endif /* _BENCH_CORE_H */
