// SPDX-License-Identifier: GPL-2.0
/*
 * expiry.c - the expiry-delivery phase of twheel-bench: K timers due at
 * the same instant D (K = 10^3, 10^4, 10^5), one task waiting. Measured,
 * per record delivered:
 *
 *	BUSY: all the CPU time spent from the first ADD (or settime, or
 *	      heap push) to the last record read: the process's system calls,
 *	      the kernel's work on its behalf, interrupt work (hrtimer
 *	      callbacks, the wheel's cascades before D) and anything else CPU
 *	      0 ran. The whole bench runs pinned to CPU 0, where its hrtimers
 *	      are armed and fire (timer migration off); CPU 0's busy time is
 *	      the elapsed CLOCK_MONOTONIC time minus its idle time, read from
 *	      cpu0_idle_ns() (idle_sleeptime + iowait_sleeptime, in ns)
 *	      before the first ADD and after the last read, when no timer of
 *	      the run is armed, on CPU 0 (so that no idle period is open).
 *	      Under -icount shift=0 it counts guest instructions.
 *	CPU:  the process's CPU time (CLOCK_PROCESS_CPUTIME_ID) over the
 *	      same span: its own system calls, not interrupt work done while
 *	      it slept.
 *	WALL: from D until user space has read all K (the whole run, not
 *	      per record).
 *
 *	twheel:  K adds in SUBMITs of 256; epoll_wait on the twheel fd, then
 *		 read(64 records) until EAGAIN, until K records are read
 *	timerfd: K timerfd_settime (the K timerfds are created and
 *		 registered in one epoll set once per K, outside every
 *		 measurement); epoll_wait(64), then a read of 8 bytes per
 *		 ready fd
 *	heap:    K pushes (with the settimes of its one timerfd); epoll_wait
 *		 on that timerfd, read it, pop every due entry, re-arm
 *
 * The timers are armed before D with absolute deadlines (D on a 1 ms
 * boundary); the lead before D is twice what arming took plus 20 ms (a
 * first, unreported run per implementation calibrates it) and a run whose
 * arming ended less than 10 ms before D is discarded and redone with
 * twice the lead. Time spent idle waiting for D is not busy time, but
 * whatever else CPU 0 does meanwhile is (R idle measures that rate: about
 * 0.07% of an idle CPU under icount), hence a short lead.
 */
#include <fcntl.h>
#include <sys/epoll.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include "bench.h"

enum { X_TWHEEL, X_TIMERFD, X_HEAP, NR_X };
static const char *const x_name[NR_X] = { "twheel", "timerfd", "heap" };

struct xctx {
	long k;
	int tw, tw_ep;
	int *tfd, tfd_ep;
	struct heap heap;
	int heap_ep;
	struct twheel_event ev[64];
	struct epoll_event evs[64];
};

static int64_t arm(struct xctx *x, int impl, int64_t d)
{
	static struct twheel_op ops[256];
	struct itimerspec its = { .it_value = ns_ts(d) };
	long i, j;

	switch (impl) {
	case X_TWHEEL:
		for (i = 0; i < x->k; i += 256) {
			int b = x->k - i < 256 ? x->k - i : 256;

			for (j = 0; j < b; j++)
				ops[j] = (struct twheel_op){
					.op = TWHEEL_OP_ADD,
					.flags = TWHEEL_ABSTIME,
					.cookie = i + j,
					.expires_ns = d,
					.clock = CLOCK_MONOTONIC,
				};
			if (twheel_submit(x->tw, ops, b) != b)
				die("expiry: TWHEEL_IOC_SUBMIT");
			for (j = 0; j < b; j++)
				if (ops[j].error)
					die("expiry: add error %d", ops[j].error);
		}
		break;
	case X_TIMERFD:
		for (i = 0; i < x->k; i++)
			if (timerfd_settime(x->tfd[i], TFD_TIMER_ABSTIME, &its,
					    NULL))
				die("expiry: timerfd_settime");
		break;
	case X_HEAP:
		for (i = 0; i < x->k; i++)
			heap_add(&x->heap, d);
		break;
	}
	return mono_ns();
}

static void deliver(struct xctx *x, int impl)
{
	long got = 0;
	ssize_t r;
	uint64_t v;
	int n, i;

	switch (impl) {
	case X_TWHEEL:
		while (got < x->k) {
			if (epoll_wait(x->tw_ep, x->evs, 1, -1) < 0)
				die("expiry: epoll_wait");
			while ((r = read(x->tw, x->ev, sizeof(x->ev))) > 0) {
				n = r / sizeof(x->ev[0]);
				for (i = 0; i < n; i++)
					if (x->ev[i].cookie >= (uint64_t)x->k ||
					    x->ev[i].count != 1)
						die("expiry: bad record");
				got += n;
			}
			if (r < 0 && errno != EAGAIN)
				die("expiry: read twheel");
		}
		break;
	case X_TIMERFD:
		while (got < x->k) {
			n = epoll_wait(x->tfd_ep, x->evs, 64, -1);
			if (n < 0)
				die("expiry: epoll_wait");
			for (i = 0; i < n; i++)
				if (read(x->tfd[x->evs[i].data.u32], &v, 8) != 8)
					die("expiry: read timerfd");
			got += n;
		}
		break;
	case X_HEAP:
		while (got < x->k) {
			int64_t now;

			if (epoll_wait(x->heap_ep, x->evs, 1, -1) < 0)
				die("expiry: epoll_wait");
			if (read(x->heap.tfd, &v, 8) != 8)
				die("expiry: read heap timerfd");
			heap_fired(&x->heap);
			now = mono_ns();
			while (heap_min(&x->heap, NULL) <= now) {
				heap_pop(&x->heap);
				got++;
			}
			heap_rearm(&x->heap);
		}
		break;
	}
	if (got != x->k)
		die("expiry: %ld records for %ld timers", got, x->k);
}

/* One measured run; returns 0 if arming ended too close to D. */
static int one_run(struct xctx *x, int impl, int64_t lead, int rep,
		   int64_t *arm_ns)
{
	int64_t t0 = mono_ns(), d, armed, i0, w0, c0, w1, c1, i1;

	d = (t0 + lead + 999999) / 1000000 * 1000000;
	i0 = cpu0_idle_ns();
	w0 = mono_ns();
	c0 = cpu_ns();
	armed = arm(x, impl, d);
	*arm_ns = armed - t0;
	if (armed > d - 10000000) {
		/* Too late to measure from D: wait it out, consume, retry. */
		deliver(x, impl);
		return 0;
	}
	deliver(x, impl);
	c1 = cpu_ns();
	w1 = mono_ns();
	i1 = cpu0_idle_ns();
	if (rep >= 0)
		result("R expiry %s %s %ld %d %.1f %.1f %lld", opt.cg,
		       x_name[impl], x->k, rep,
		       (double)((w1 - w0) - (i1 - i0)) / x->k,
		       (double)(c1 - c0) / x->k, (long long)(w1 - d));
	return 1;
}

static int new_epoll(void)
{
	int ep = epoll_create1(EPOLL_CLOEXEC);

	if (ep < 0)
		die("epoll_create1");
	return ep;
}

static void watch(int ep, int fd, uint32_t data)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.u32 = data };

	if (epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev))
		die("EPOLL_CTL_ADD");
}

void phase_expiry(void)
{
	long k;

	for (k = 1000; k <= opt.kmax; k *= 10) {
		struct xctx *x = xcalloc(1, sizeof(*x));
		int64_t lead[NR_X], armt;
		int rep, i, impl;
		long j;

		x->k = k;
		x->tw = twheel_open(O_CLOEXEC | O_NONBLOCK);
		if (x->tw < 0)
			die("twheel_open");
		x->tw_ep = new_epoll();
		watch(x->tw_ep, x->tw, 0);
		x->tfd = xcalloc(k, sizeof(*x->tfd));
		x->tfd_ep = new_epoll();
		for (j = 0; j < k; j++) {
			x->tfd[j] = timerfd_create(CLOCK_MONOTONIC,
						   TFD_NONBLOCK | TFD_CLOEXEC);
			if (x->tfd[j] < 0)
				die("timerfd_create");
			watch(x->tfd_ep, x->tfd[j], j);
		}
		heap_init(&x->heap, k);
		x->heap_ep = new_epoll();
		watch(x->heap_ep, x->heap.tfd, 0);

		/* Calibration: a generous lead, then twice the arming time. */
		for (impl = 0; impl < NR_X; impl++) {
			one_run(x, impl, 300000000 + k * 50000LL, -1, &armt);
			lead[impl] = 2 * armt + 20000000;
		}
		for (rep = 0; rep < opt.reps; rep++) {
			for (i = 0; i < NR_X; i++) {
				impl = (i + rep) % NR_X;
				while (!one_run(x, impl, lead[impl], rep, &armt)) {
					note("expiry: K=%ld %s: armed too late, doubling the lead",
					     k, x_name[impl]);
					lead[impl] *= 2;
				}
			}
			note("expiry: K=%ld rep %d done", k, rep);
		}
		close(x->tw_ep);
		close(x->tw);
		close(x->tfd_ep);
		for (j = 0; j < k; j++)
			close(x->tfd[j]);
		close(x->heap_ep);
		heap_destroy(&x->heap);
		free(x->tfd);
		free(x);
	}
}
