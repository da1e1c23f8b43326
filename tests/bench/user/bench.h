/* SPDX-License-Identifier: GPL-2.0 */
/*
 * bench.h - shared pieces of twheel-bench, the in-guest benchmark of
 * `make bench`: twheel beside timerfd+epoll and beside a userspace binary
 * heap driving one timerfd.
 *
 * twheel-bench runs inside the stock-kernel VM and prints one line per
 * measurement to its results file:
 *
 *	R cost   CG MODE OP IMPL N REP NS_PER_OP OPS
 *	R costx  CG MODE IMPL N REP IN_LOOPS DRAINED
 *	R expiry CG IMPL K REP BUSY_NS_PER_REC CPU_NS_PER_REC WALL_NS
 *	R late   CG IMPL TICK_NS REP P50 P99 MAX EARLY COUNT
 *	Q late   CG IMPL TICK_NS REP QUANTILE VALUE_NS
 *	R mem    CG PATTERN LIVE REP TW_CACHES_B INDEX_B MEMCG_B SLABINFO_B
 *		 SLAB_B SUNRECLAIM_B VMALLOC_B MEMAVAIL_B
 *	R idle   CG WHAT NS BUSY_NS       (check of the busy-time clock)
 *	R table  CG IMPL K N REP NS_PER_ACTIVITY ACTIVITIES TICKS
 *	R tcancel CG IMPL N REP NS_PER_TIMER N  (shared table: table.c)
 *	R itime, R iexp                     (idle timeouts: idle.c)
 *	M KEY VALUE...                      (facts about the run)
 *
 * CG is "root" (no memory cgroup) or "memcg" (inside a fresh cgroup v2
 * memory group). MODE is "span" (deadlines in one 30 s span an hour
 * ahead) or "spread" (log-uniform from 1 s to 1 h after the operation).
 * Times are CLOCK_MONOTONIC nanoseconds: under QEMU's -icount shift=0,
 * guest instructions. tests/bench/report.py turns them into the report.
 */
#ifndef TWHEEL_BENCH_H
#define TWHEEL_BENCH_H

#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "libtwheel.h"

#define NSEC	1000000000LL

/* What the command line asked for; see usage() in main.c. */
struct bench_opts {
	const char *cg;		/* "root" or "memcg" */
	int reps;
	long nmax;		/* largest N of the cost phase */
	long kmax;		/* largest K of the expiry phase */
	long ops;		/* operations per kind per rep (cost phase) */
	long late_n;		/* timers of the lateness phase */
	long mem_live;		/* live timers of the memory phase */
	long idle_ticks;	/* timed window of the idle-timeout phase */
	const char *idle_modes;	/* its modes (comma-separated), NULL: all */
	const char *phases;	/* letters: c(ost, one span) s(pread cost)
				 * e(xpiry) l(ateness) m(emory)
				 * t(able, shared timer table)
				 * i(dle timeouts, real clock: idle.c) */
	uint64_t seed;
};

extern struct bench_opts opt;
extern FILE *results;

/* Fatal error: message, errno, exit 1 (the VM run then fails). */
void die(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));
/* A line of the results file (also echoed to stdout). */
void result(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Progress to stderr (the console), with the time since start. */
void note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static inline int64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * NSEC + ts.tv_nsec;
}

static inline int64_t cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec * NSEC + ts.tv_nsec;
}

static inline struct timespec ns_ts(int64_t ns)
{
	struct timespec ts = { .tv_sec = ns / NSEC, .tv_nsec = ns % NSEC };

	return ts;
}

/* splitmix64: one seeded stream per measurement, the same for every impl. */
struct rng {
	uint64_t s;
};

static inline uint64_t rng_next(struct rng *r)
{
	uint64_t z = (r->s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* Uniform in [0, n), n > 0 (the bias of the modulo is below 2^-40 here). */
static inline uint64_t rng_below(struct rng *r, uint64_t n)
{
	return rng_next(r) % n;
}

static inline struct rng rng_make(uint64_t a, uint64_t b, uint64_t c)
{
	struct rng r = { .s = opt.seed ^ (a * 0x100000001b3ULL) };

	r.s ^= b * 0xc2b2ae3d27d4eb4fULL + c * 0x165667b19e3779f9ULL;
	rng_next(&r);
	return r;
}

void *xcalloc(size_t n, size_t size);

/*
 * CPU 0's idle time in ns (idle_sleeptime + iowait_sleeptime of "cpu: 0"
 * in /proc/timer_list). Call it on CPU 0 (twheel-bench pins itself
 * there), so that CPU 0 is not inside an idle period whose time is not
 * yet added, and only while few hrtimers are armed (the file lists them
 * all). busy = elapsed CLOCK_MONOTONIC - idle: everything CPU 0 did,
 * process, kernel and interrupt work alike.
 */
int64_t cpu0_idle_ns(void);
int idle_clock_cheap(void);

/* cgroup v2 memory group of this run (memcg mode); NULL in root mode. */
extern const char *cg_dir;
long long cg_stat(const char *key);
/* The first number in a sysfs or cgroup file, or -1. */
long long bench_read_ll(const char *path);

/*
 * The heap baseline: a binary min-heap of (deadline, handle) with a
 * position index, re-arming one timerfd to its minimum whenever that
 * changes, as libuv-style event loops do.
 */
struct heap {
	int64_t *key;		/* key[i]: deadline of the entry at heap slot i */
	uint32_t *who;		/* who[i]: handle at heap slot i */
	uint32_t *pos;		/* pos[h]: heap slot of handle h */
	uint32_t *free_h;	/* stack of free handles */
	uint32_t n, cap, nfree;
	int tfd;
	int64_t armed;		/* deadline the timerfd is armed at, or -1 */
	uint64_t settimes;	/* timerfd_settime calls made */
};

void heap_init(struct heap *h, uint32_t cap);
void heap_destroy(struct heap *h);
uint32_t heap_add(struct heap *h, int64_t deadline);
void heap_modify(struct heap *h, uint32_t handle, int64_t deadline);
void heap_del(struct heap *h, uint32_t handle);
/* The minimum's deadline (INT64_MAX if empty) and handle. */
static inline int64_t heap_min(const struct heap *h, uint32_t *handle)
{
	if (!h->n)
		return INT64_MAX;
	if (handle)
		*handle = h->who[0];
	return h->key[0];
}
/*
 * Expiry, as an event loop does it: after the timerfd fired (read it, then
 * heap_fired()), heap_pop() every due entry, then heap_rearm() once.
 */
static inline void heap_fired(struct heap *h)
{
	h->armed = -1;		/* a fired one-shot timerfd is disarmed */
}
uint32_t heap_pop(struct heap *h);
void heap_rearm(struct heap *h);
int64_t heap_deadline(const struct heap *h, uint32_t handle);

void phase_cost(int spread);
void phase_expiry(void);
void phase_lateness(void);
void phase_memory(void);
void phase_table(void);
void phase_idle(void);

#endif /* TWHEEL_BENCH_H */
