/* SPDX-License-Identifier: GPL-2.0 */
/*
 * twheel-orders: the declarations its files share. orders.c (the live
 * demo: orders on the real clock), orders_manual.c (the same rule on the
 * manual clock, and checkout sessions in the shared timer table) and
 * orders_main.c (the command line, the helpers, the live demo's memory
 * measurement and report).
 */
#ifndef TWHEEL_ORDERS_H
#define TWHEEL_ORDERS_H

#include <stdbool.h>
#include <stdint.h>

#include "libtwheel.h"

#define BATCH		TWHEEL_MAX_BATCH

enum { OPEN, PAID, EXPIRED };

struct order {
	int64_t deadline;	/* CLOCK_MONOTONIC, absolute */
	uint64_t id;		/* its timer */
	uint8_t state;
	uint8_t outcomes;	/* must end as 1 */
};

/* The live demo's state (orders.c), and what its report counts. */
struct live {
	int fd;
	long n;
	struct order *o;
	long paid, retracted, expired, refused, early, twice;
	long submits;
	int64_t *late;
	long nlate;
};

/* Kernel memory, measured three ways, each said for what it is. */
struct mem {
	long long cg_slab;	/* memory cgroup slab bytes, -1: none */
	long long objects;	/* twheel_timer slab objects, -1: none */
	long long slab_kb, avail_kb;	/* /proc/meminfo */
};

/* The three modes: orders.c, orders_manual.c. */
int live(long n, int paid_pct, bool cgroup);
int manual(long n, int paid_pct);
int sessions(long n);

/* orders_main.c */
uint64_t rnd(void);
int64_t rnd_range(int64_t lo, int64_t hi);
int64_t now_ns(void);
bool enter_cgroup(void);
void mem_sample(struct mem *m, bool cgroup);
bool live_report(struct live *l, const struct mem *m0, const struct mem *m1);

#endif /* TWHEEL_ORDERS_H */
