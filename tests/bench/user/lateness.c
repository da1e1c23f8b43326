// SPDX-License-Identifier: GPL-2.0
/*
 * lateness.c - the lateness phase of twheel-bench: late_n timers (10^4)
 * with deadlines uniform over 2 s, one blocking reader; for every timer,
 * lateness = the CLOCK_MONOTONIC time when user space has it in hand minus
 * its deadline. Reported per rep: p50, p99, max, the count of early ones,
 * and 201 quantiles (every 0.5 %) for the plot.
 *
 *	twheel-1ms:  default tick; blocking read(64 records); the time is
 *		     taken when read returns. Early: that time, or the
 *		     record's time_ns, before the deadline.
 *	twheel-1us:  the same after TWHEEL_IOC_CONFIG tick_ns = 1000.
 *	timerfd:     late_n timerfds in one epoll set, epoll_wait(64); the
 *		     time is taken when epoll_wait returns (before the reads).
 *	heap:        the heap baseline's timerfd in epoll; the time is taken
 *		     after the wake, every due entry is popped, then re-armed.
 *
 * Every implementation gets the same deadlines in a rep (one seeded
 * stream), and the implementations run one after the other in an order
 * rotated per rep. The deadlines start after a lead that adapts to how
 * long arming takes (a run armed less than 10 ms before its first
 * deadline is discarded and redone).
 */
#include <fcntl.h>
#include <sys/epoll.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include "bench.h"

#define LATE_SPAN_NS	(2 * NSEC)

enum { L_TW1MS, L_TW1US, L_TIMERFD, L_HEAP, NR_L };
static const char *const l_name[NR_L] = {
	"twheel-1ms", "twheel-1us", "timerfd", "heap"
};
static const int64_t l_tick[NR_L] = { 1000000, 1000, 0, 0 };

struct lctx {
	long n;
	int64_t *off;		/* deadline offsets from the start */
	int64_t *dl;		/* this run's deadlines */
	int64_t *lat;
	int *tfd, tfd_ep;
	long early;
};

static int cmp64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
}

static int64_t quantile(const int64_t *sorted, long n, double q)
{
	long i = (long)(q * (n - 1) + 0.5);

	return sorted[i < 0 ? 0 : i >= n ? n - 1 : i];
}

static int tw_open(int64_t tick)
{
	struct twheel_config cfg = { .tick_ns = tick };
	int fd = twheel_open(O_CLOEXEC);

	if (fd < 0)
		die("twheel_open");
	if (twheel_config(fd, &cfg))
		die("TWHEEL_IOC_CONFIG tick %lld", (long long)tick);
	return fd;
}

static void tw_arm(int fd, const int64_t *dl, long n)
{
	static struct twheel_op ops[256];
	long i, j;

	for (i = 0; i < n; i += 256) {
		int b = n - i < 256 ? n - i : 256;

		for (j = 0; j < b; j++)
			ops[j] = (struct twheel_op){
				.op = TWHEEL_OP_ADD,
				.flags = TWHEEL_ABSTIME,
				.cookie = i + j,
				.expires_ns = dl[i + j],
				.clock = CLOCK_MONOTONIC,
			};
		if (twheel_submit(fd, ops, b) != b)
			die("lateness: TWHEEL_IOC_SUBMIT");
		for (j = 0; j < b; j++)
			if (ops[j].error)
				die("lateness: add error %d", ops[j].error);
	}
}

static void tw_collect(struct lctx *l, int fd)
{
	struct twheel_event ev[64];
	long got = 0;
	ssize_t r;
	int i, cnt;

	while (got < l->n) {
		int64_t t;

		r = read(fd, ev, sizeof(ev));
		t = mono_ns();
		if (r <= 0)
			die("lateness: read twheel");
		cnt = r / sizeof(ev[0]);
		for (i = 0; i < cnt; i++) {
			int64_t d;

			if (ev[i].cookie >= (uint64_t)l->n || ev[i].count != 1)
				die("lateness: bad record");
			d = l->dl[ev[i].cookie];
			if (t < d || ev[i].time_ns < d)
				l->early++;
			l->lat[got++] = t - d;
		}
	}
}

static void tfd_collect(struct lctx *l)
{
	struct epoll_event evs[64];
	long got = 0;
	uint64_t v;
	int i, cnt;

	while (got < l->n) {
		int64_t t;

		cnt = epoll_wait(l->tfd_ep, evs, 64, -1);
		t = mono_ns();
		if (cnt < 0)
			die("lateness: epoll_wait");
		for (i = 0; i < cnt; i++) {
			uint32_t k = evs[i].data.u32;

			if (read(l->tfd[k], &v, 8) != 8)
				die("lateness: read timerfd");
			if (t < l->dl[k])
				l->early++;
			l->lat[got++] = t - l->dl[k];
		}
	}
}

static void heap_collect(struct lctx *l, struct heap *h, uint32_t *idx)
{
	struct epoll_event ev;
	long got = 0;
	uint64_t v;
	int ep = epoll_create1(EPOLL_CLOEXEC);

	ev.events = EPOLLIN;
	ev.data.u32 = 0;
	if (ep < 0 || epoll_ctl(ep, EPOLL_CTL_ADD, h->tfd, &ev))
		die("lateness: heap epoll");
	while (got < l->n) {
		int64_t t, d;
		uint32_t who = 0;

		if (epoll_wait(ep, &ev, 1, -1) < 0)
			die("lateness: epoll_wait");
		if (read(h->tfd, &v, 8) != 8)
			die("lateness: read heap timerfd");
		heap_fired(h);
		t = mono_ns();
		while ((d = heap_min(h, &who)) <= t) {
			heap_pop(h);
			if (t < l->dl[idx[who]])
				l->early++;
			l->lat[got++] = t - d;
		}
		heap_rearm(h);
	}
	close(ep);
}

/* One run; returns the time arming took, or -1 if it ended too late. */
static int64_t one_run(struct lctx *l, int impl, int64_t lead, int rep)
{
	int64_t t0 = mono_ns(), start, armed;
	struct heap h;
	uint32_t *idx = NULL;
	int fd = -1;
	long i;

	start = t0 + lead;
	for (i = 0; i < l->n; i++)
		l->dl[i] = start + l->off[i];
	l->early = 0;
	switch (impl) {
	case L_TW1MS:
	case L_TW1US:
		fd = tw_open(l_tick[impl]);
		tw_arm(fd, l->dl, l->n);
		armed = mono_ns();
		tw_collect(l, fd);
		close(fd);
		break;
	case L_TIMERFD:
		for (i = 0; i < l->n; i++) {
			struct itimerspec its = { .it_value = ns_ts(l->dl[i]) };

			if (timerfd_settime(l->tfd[i], TFD_TIMER_ABSTIME, &its,
					    NULL))
				die("lateness: timerfd_settime");
		}
		armed = mono_ns();
		tfd_collect(l);
		break;
	default:
		heap_init(&h, l->n);
		idx = xcalloc(l->n, sizeof(*idx));
		for (i = 0; i < l->n; i++)
			idx[heap_add(&h, l->dl[i])] = i;
		armed = mono_ns();
		heap_collect(l, &h, idx);
		heap_destroy(&h);
		free(idx);
		break;
	}
	if (armed > start - 10000000)
		return -1;
	if (rep >= 0) {
		qsort(l->lat, l->n, sizeof(*l->lat), cmp64);
		result("R late %s %s %lld %d %lld %lld %lld %ld %ld", opt.cg,
		       l_name[impl], (long long)l_tick[impl], rep,
		       (long long)quantile(l->lat, l->n, 0.5),
		       (long long)quantile(l->lat, l->n, 0.99),
		       (long long)l->lat[l->n - 1], l->early, l->n);
		for (i = 0; i <= 200; i++)
			result("Q late %s %s %lld %d %.3f %lld", opt.cg,
			       l_name[impl], (long long)l_tick[impl], rep,
			       i / 200.0,
			       (long long)quantile(l->lat, l->n, i / 200.0));
	}
	return armed - t0;
}

void phase_lateness(void)
{
	struct lctx l = { .n = opt.late_n };
	int64_t lead[NR_L], a;
	int rep, i, impl;
	long j;

	l.off = xcalloc(l.n, sizeof(*l.off));
	l.dl = xcalloc(l.n, sizeof(*l.dl));
	l.lat = xcalloc(l.n, sizeof(*l.lat));
	l.tfd = xcalloc(l.n, sizeof(*l.tfd));
	l.tfd_ep = epoll_create1(EPOLL_CLOEXEC);
	if (l.tfd_ep < 0)
		die("epoll_create1");
	for (j = 0; j < l.n; j++) {
		struct epoll_event ev = { .events = EPOLLIN, .data.u32 = j };

		l.tfd[j] = timerfd_create(CLOCK_MONOTONIC,
					  TFD_NONBLOCK | TFD_CLOEXEC);
		if (l.tfd[j] < 0 ||
		    epoll_ctl(l.tfd_ep, EPOLL_CTL_ADD, l.tfd[j], &ev))
			die("lateness: timerfd setup");
	}
	/* Calibration run per implementation (same stream as rep 0). */
	for (impl = 0; impl < NR_L; impl++) {
		struct rng r = rng_make(77, 0, 5);

		for (j = 0; j < l.n; j++)
			l.off[j] = rng_below(&r, LATE_SPAN_NS);
		a = one_run(&l, impl, 300000000 + l.n * 50000LL, -1);
		lead[impl] = a < 0 ? 2 * (300000000 + l.n * 50000LL) :
				     2 * a + 100000000;
	}
	for (rep = 0; rep < opt.reps; rep++) {
		struct rng r = rng_make(77, rep, 5);

		for (j = 0; j < l.n; j++)
			l.off[j] = rng_below(&r, LATE_SPAN_NS);
		for (i = 0; i < NR_L; i++) {
			impl = (i + rep) % NR_L;
			while (one_run(&l, impl, lead[impl], rep) < 0) {
				note("lateness: %s armed too late, doubling the lead",
				     l_name[impl]);
				lead[impl] *= 2;
			}
		}
		note("lateness: rep %d done", rep);
	}
	for (j = 0; j < l.n; j++)
		close(l.tfd[j]);
	close(l.tfd_ep);
	free(l.off);
	free(l.dl);
	free(l.lat);
	free(l.tfd);
}
