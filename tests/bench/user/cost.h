/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cost.h - the cost phase of twheel-bench, shared by its driver (cost.c)
 * and its per-implementation operations (cost_impl.c): the configurations,
 * the three populations, a round's deadlines and choices, the time sums.
 */
#ifndef TWHEEL_BENCH_COST_H
#define TWHEEL_BENCH_COST_H

#include "bench.h"

#define MMAX		1024

enum cfg {
	TW_IOCTL, TW_B1, TW_B8, TW_B64, TW_B256, TFD, HEAP, NR_CFG
};

struct pops {
	int spread;
	struct rng rr;		/* deadlines of re-armed timers */
	int twfd;
	uint32_t *tw;		/* slot -> handle */
	size_t tw_n;
	uint64_t *tw_id;	/* handle -> id */
	int64_t *tw_dl;		/* handle -> deadline */
	uint32_t *tw_free;	/* free handles */
	size_t tw_nfree;
	int ep;
	int *tfd;
	size_t tfd_n;
	int64_t *tfd_dl;	/* fd -> deadline */
	struct heap heap;
	uint32_t *hp;
	size_t hp_n;
	long in_loops[NR_CFG], drained[NR_CFG];
};

/* Per round: the deadlines and choices every configuration gets. */
struct round {
	int m;
	int64_t dl_add[MMAX];	/* span: absolute; spread: from the loop's start */
	int64_t dl_mod[MMAX];
	uint32_t sel_mod[MMAX];
	uint32_t sel_cancel[MMAX];
	uint32_t h_add[MMAX];	/* twheel: the handles of the adds */
	uint32_t h_gone[MMAX];	/* twheel: the handles cancelled */
	int fd_gone[MMAX];	/* timerfd: the fds taken out of the set */
};

/* Time of the loops of one configuration, summed over a rep's rounds. */
struct sums {
	int64_t sched, mod, cancel;
	int64_t create, settime, epoll_add, epoll_del, close;	/* timerfd */
};

/* cost.c */
int64_t cost_spread_off(struct rng *r);
int64_t cost_deadline(struct rng *r, int spread);

/* cost_impl.c */
void cost_run_round(struct pops *p, int c, struct round *rd, struct sums *s);
void cost_fill(struct pops *p, size_t target, long n);

#endif /* TWHEEL_BENCH_COST_H */
