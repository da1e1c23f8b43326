/* SPDX-License-Identifier: GPL-2.0 */
/*
 * idle.h - the idle-timeout phase of twheel-bench (issue 27): one thread,
 * one epoll loop on the real clock, N per-connection idle timeouts pushed
 * back by activities, with each timer facility behind the same loop.
 * The loop is in idle.c, the facilities ("modes") in idle_tw.c (twheel,
 * timerfd, io_uring) and idle_user.c (heaps and a userspace wheel).
 */
#ifndef TWHEEL_BENCH_IDLE_H
#define TWHEEL_BENCH_IDLE_H

#include <sys/epoll.h>

#include "bench.h"

#define I_TICK_NS	1000000LL	/* the fd's tick and the loop's */

struct ictx;

/*
 * A timer facility behind the loop. Handles h are 0..n-1 (connections);
 * deadlines are absolute CLOCK_MONOTONIC ticks of I_TICK_NS. c->last[h]
 * is the deadline the program pushed last (the loop's own store, which
 * the store-only mode does alone, and which the lazy modes use as their
 * stored deadline).
 */
struct imode {
	const char *name;
	long maxn;		/* largest N it runs at */
	int hrtimers;		/* arms an hrtimer per timer: no busy clock */
	/* Create the n timers: deadline key[h] (== last[h] unless lazy). */
	void (*setup)(struct ictx *c, const int64_t *key);
	/* Activity of timer h: its deadline is now c->last[h]. */
	void (*act)(struct ictx *c, uint32_t h);
	/* Before the loop sleeps (flush a batch, re-arm a timerfd). */
	void (*flush)(struct ictx *c);
	/* An epoll event with data @u64 (the mode's own fds). */
	void (*event)(struct ictx *c, uint64_t u64);
	/* Timers the facility holds (for the check at the end). */
	long (*count)(struct ictx *c);
	void (*teardown)(struct ictx *c);
};

struct ictx {
	const struct imode *m;
	long n, k, P, L, per_tick;
	int half;		/* activities half a tick off the boundary */
	int expiry;		/* the expiry run: closes are not re-added */
	int ep;			/* the loop's epoll fd */
	uint32_t *perm;		/* timers in activity order */
	int64_t *last;		/* deadline pushed last (ticks) */
	int64_t *closed;	/* deadline of the last close, or -1 */
	int64_t now;		/* CLOCK_MONOTONIC ns, read at each wake-up */
	uint64_t nsys;		/* system calls the loop made */
	uint64_t closes;	/* timers that came due unpushed */
	uint64_t late_closes;	/* closes later than 1 tick after deadline */
	uint64_t raced;		/* io_uring: fired before the update came */
	uint64_t late_turns;	/* turns the loop began > 1 tick late */
	void *priv;		/* the mode's state */
};

/* Counted system calls: SYS(c, call). */
#define SYS(c, x)	((c)->nsys++, (x))

static inline int64_t i_tick_ceil(int64_t ns)
{
	return (ns + I_TICK_NS - 1) / I_TICK_NS;
}

/*
 * Timer h came due at its deadline, unpushed: a close (checked: never
 * before its last pushed deadline, never twice for one deadline). Outside
 * the expiry run, it comes back as a new connection: returns the new
 * deadline (ticks), also stored in last[h]; in the expiry run, -1.
 */
int64_t idle_close(struct ictx *c, uint32_t h, int64_t when_ns);
void idle_epoll_add(struct ictx *c, int fd, uint64_t u64);

extern const struct imode im_store, im_table, im_table_read, im_modify,
	im_b64, im_timerfd, im_uring, im_heap_lazy, im_heap_eager,
	im_wheel_lazy, im_wheel_eager;

#endif /* TWHEEL_BENCH_IDLE_H */
