// SPDX-License-Identifier: GPL-2.0
/*
 * twheel-sessions - `make demo`'s comparison on a real clock: idle
 * sessions of a server, their timeouts kept three ways, side by side in
 * one run, whichever wins:
 *
 *	table	   twheel's shared timer table through libtwheel's idle
 *		   tracker (twheel_idle_*): a store per activity
 *	timerfd	   one timerfd per session, timerfd_settime() per activity,
 *		   all of them in one epoll set
 *	heap	   a binary heap in the program on one timerfd, lazy as good
 *		   servers keep it: an activity stores the new deadline; an
 *		   entry whose deadline moved is re-keyed when it reaches the
 *		   top, and the timerfd is set only when the top changes
 *
 *   twheel-sessions [--sessions N] [--timeout MS] [--seconds S]
 *
 * N sessions (default 2000) open at once with an idle timeout (default
 * 500 ms); for S seconds (default 3) four in five are active, each with
 * an activity every timeout / 4 (all in the same 10 ms step), then
 * they go quiet; the fifth stay silent from the start. One thread, one
 * epoll loop, which wakes every 10 ms for the activities due. Every
 * session must be closed for idleness exactly once, never before its last
 * activity plus the timeout, and no active one while active.
 *
 * Per way: the system calls the loop made for its timers (counted at the
 * call, setting up included, epoll_wait not: the loop's own), the thread's voluntary context switches (getrusage: its wake-ups
 * from epoll_wait), its CPU time (user + system), and the kernel memory
 * the sessions' timers took, measured as the memory cgroup's charge (run
 * as root with cgroup v2: the process moves into a memory cgroup of its
 * own; "kernel" of memory.stat, or its slab where the kernel has no such
 * line). Exit status 1 if a session was closed early, twice or never.
 */
#define _GNU_SOURCE
#include <err.h>
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include "libtwheel.h"

#define CG_ROOT		"/sys/fs/cgroup"
#define CG		CG_ROOT "/twheel-sessions"
#define STEP_NS		(10 * TWHEEL_MSEC)	/* the loop's own wake-ups */

enum way { TABLE, TIMERFD, HEAP, NR_WAYS };
static const char *const way_name[NR_WAYS] = { "table", "timerfd", "heap" };

struct session {
	int64_t last;		/* start of its last activity */
	int64_t deadline;	/* heap: last + timeout, stored at activity */
	int64_t key;		/* heap: the deadline it is ordered by */
	int64_t closed;		/* when closed for idleness, 0: open */
	int handle;		/* table: its handle; timerfd: its fd */
	long heap_pos;		/* heap: its index there */
	bool active;
};

struct run {
	struct session *s;
	long n;
	int64_t timeout, start, active_until;
	long syscalls, closed, early, twice;
	int ep;
	/* heap */
	long *heap, heap_n;
	int tfd;
	int64_t armed;
};

static int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * TWHEEL_SEC + ts.tv_nsec;
}

static struct timespec ts_of(int64_t ns)
{
	struct timespec ts = { ns / TWHEEL_SEC, ns % TWHEEL_SEC };

	return ts;
}

/* ---- memory: the memory cgroup's charge ------------------------------ */

static int write_str(const char *path, const char *s)
{
	FILE *f = fopen(path, "w");
	int ret;

	if (!f)
		return -1;
	ret = fputs(s, f) < 0 ? -1 : 0;
	if (fclose(f))
		ret = -1;
	return ret;
}

/* Into a memory cgroup of our own; false if there is none. */
static bool enter_cgroup(void)
{
	char pid[32];

	mkdir(CG_ROOT, 0755);
	if (access(CG_ROOT "/cgroup.controllers", F_OK) &&
	    mount("none", CG_ROOT, "cgroup2", 0, NULL) && errno != EBUSY)
		return false;
	if (write_str(CG_ROOT "/cgroup.subtree_control", "+memory") ||
	    (mkdir(CG, 0755) && errno != EEXIST))
		return false;
	snprintf(pid, sizeof(pid), "%d", getpid());
	return !write_str(CG "/cgroup.procs", pid);
}

static const char *mem_key = "kernel";

/* The cgroup's kernel memory in bytes; -1 without a cgroup. */
static long long cg_kernel(void)
{
	long long v, slab = 0, kernel = -1;
	char line[256];
	FILE *f = fopen(CG "/memory.stat", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "kernel %lld", &v) == 1)
			kernel = v;
		else if (sscanf(line, "slab %lld", &v) == 1)
			slab = v;
	}
	fclose(f);
	if (kernel < 0)
		mem_key = "slab";
	return kernel >= 0 ? kernel : slab;
}

/* ---- the heap: lazy, on one timerfd ---------------------------------- */

static bool heap_less(struct run *r, long a, long b)
{
	return r->s[r->heap[a]].key < r->s[r->heap[b]].key;
}

static void heap_swap(struct run *r, long a, long b)
{
	long t = r->heap[a];

	r->heap[a] = r->heap[b];
	r->heap[b] = t;
	r->s[r->heap[a]].heap_pos = a;
	r->s[r->heap[b]].heap_pos = b;
}

static void heap_down(struct run *r, long i)
{
	for (;;) {
		long l = 2 * i + 1, m = i;

		if (l < r->heap_n && heap_less(r, l, m))
			m = l;
		if (l + 1 < r->heap_n && heap_less(r, l + 1, m))
			m = l + 1;
		if (m == i)
			return;
		heap_swap(r, i, m);
		i = m;
	}
}

static void heap_up(struct run *r, long i)
{
	while (i && heap_less(r, i, (i - 1) / 2)) {
		heap_swap(r, i, (i - 1) / 2);
		i = (i - 1) / 2;
	}
}

/* Arm the timerfd for the top's key, if it changed. */
static void heap_arm(struct run *r, int64_t key)
{
	struct itimerspec its = { .it_value = ts_of(key) };

	if (key == r->armed)
		return;
	r->armed = key;
	r->syscalls++;
	if (timerfd_settime(r->tfd, TFD_TIMER_ABSTIME, &its, NULL))
		err(1, "timerfd_settime");
}

/* ---- the three ways ---------------------------------------------------- */

static struct twheel_idle *idle;

/* A push came too late for the kernel: the tracker added a timer again. */
static void readded(void *arg, unsigned int what,
		    const struct twheel_event *ev, int64_t deadline_ns)
{
	(void)ev;
	(void)deadline_ns;
	if (what == TWHEEL_IDLE_READDED)
		((struct run *)arg)->syscalls++;
}

static void open_all(struct run *r, enum way w)
{
	struct epoll_event ev = { .events = EPOLLIN };

	r->ep = epoll_create1(EPOLL_CLOEXEC);
	if (r->ep < 0)
		err(1, "epoll_create1");
	if (w == TABLE) {
		struct twheel_idle_config cfg = {
			.max_conns = r->n, .timeout_ns = r->timeout,
			.observe = readded, .arg = r,
		};

		idle = twheel_idle_open(&cfg);
		if (!idle)
			err(1, "twheel_idle_open");
		ev.data.u64 = UINT64_MAX;
		epoll_ctl(r->ep, EPOLL_CTL_ADD, twheel_idle_fd(idle), &ev);
		for (long i = 0; i < r->n; i++) {
			r->s[i].handle = twheel_idle_add(idle, i);
			if (r->s[i].handle < 0)
				err(1, "twheel_idle_add");
		}
		r->syscalls += r->n;
		return;
	}
	if (w == TIMERFD) {
		struct itimerspec its = { .it_value = ts_of(r->timeout) };

		for (long i = 0; i < r->n; i++) {
			int fd = timerfd_create(CLOCK_MONOTONIC,
						TFD_CLOEXEC | TFD_NONBLOCK);

			if (fd < 0 || timerfd_settime(fd, 0, &its, NULL))
				err(1, "timerfd");
			ev.data.u64 = i;
			if (epoll_ctl(r->ep, EPOLL_CTL_ADD, fd, &ev))
				err(1, "epoll_ctl");
			r->s[i].handle = fd;
		}
		r->syscalls += 3 * r->n;
		return;
	}
	r->tfd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
	r->heap = malloc(r->n * sizeof(*r->heap));
	if (r->tfd < 0 || !r->heap)
		err(1, "heap");
	ev.data.u64 = UINT64_MAX;
	epoll_ctl(r->ep, EPOLL_CTL_ADD, r->tfd, &ev);
	for (long i = 0; i < r->n; i++) {
		r->s[i].deadline = r->s[i].last + r->timeout;
		r->s[i].key = r->s[i].deadline;
		r->heap[i] = i;
		r->s[i].heap_pos = i;
		r->heap_n++;
		heap_up(r, i);
	}
	r->armed = -1;
	r->syscalls += 2;
	heap_arm(r, r->s[r->heap[0]].key);
}

/* Activity on session @i at @t: its timeout moves to @t + timeout. */
static void touch(struct run *r, enum way w, long i, int64_t t)
{
	struct itimerspec its = { .it_value = ts_of(r->timeout) };

	r->s[i].last = t;
	if (w == TABLE) {
		if (twheel_idle_touch(idle, r->s[i].handle))
			err(1, "twheel_idle_touch");
	} else if (w == TIMERFD) {
		r->syscalls++;
		if (timerfd_settime(r->s[i].handle, 0, &its, NULL))
			err(1, "timerfd_settime");
	} else {
		r->s[i].deadline = t + r->timeout;	/* lazy: a store */
	}
}

/* Session @i found idle at @t: close it (its timer ends). */
static void close_idle(struct run *r, enum way w, long i, int64_t t)
{
	struct session *s = &r->s[i];

	if (s->closed) {
		r->twice++;
		return;
	}
	if (t < s->last + r->timeout)
		r->early++;
	s->closed = t;
	r->closed++;
	if (w == TABLE) {
		twheel_idle_remove(idle, s->handle);	/* a store */
	} else if (w == TIMERFD) {
		r->syscalls++;
		close(s->handle);
	}
}

/* The timers that fired: close their sessions. */
static void expired(struct run *r, enum way w, uint64_t data)
{
	int64_t t = now_ns();

	if (w == TABLE) {
		struct twheel_event ev[64];
		ssize_t n;

		do {
			r->syscalls++;
			n = twheel_idle_drain(idle, ev, 64);
			for (ssize_t k = 0; k < n; k++)
				close_idle(r, w, ev[k].cookie, t);
		} while (n == 64);
	} else if (w == TIMERFD) {
		uint64_t c;

		r->syscalls++;
		if (read(r->s[data].handle, &c, sizeof(c)) == sizeof(c))
			close_idle(r, w, data, t);
	} else {
		uint64_t c;

		r->syscalls++;
		if (read(r->tfd, &c, sizeof(c)) < 0 && errno != EAGAIN)
			err(1, "read");
		/*
		 * The top is due: re-keyed if its deadline moved since it was
		 * keyed (the lazy rule), else idle: popped and closed.
		 */
		while (r->heap_n && r->s[r->heap[0]].key <= t) {
			long top = r->heap[0];
			struct session *s = &r->s[top];

			if (s->deadline > s->key) {
				s->key = s->deadline;
				heap_down(r, 0);
				continue;
			}
			heap_swap(r, 0, --r->heap_n);
			heap_down(r, 0);
			close_idle(r, w, top, t);
		}
		if (r->heap_n)
			heap_arm(r, r->s[r->heap[0]].key);
	}
}

static void run_way(struct run *r, enum way w, int64_t active_ns,
		    struct rusage *ru, long long *mem)
{
	long long m0 = cg_kernel();
	int64_t period = r->timeout / 4, next_step;
	struct epoll_event evs[64];

	r->start = now_ns();
	r->active_until = r->start + active_ns;
	for (long i = 0; i < r->n; i++) {
		r->s[i] = (struct session){ .last = r->start,
					    .active = i % 5 != 4 };
	}
	r->syscalls = r->closed = r->early = r->twice = 0;
	r->heap_n = 0;
	open_all(r, w);
	*mem = m0 >= 0 ? cg_kernel() - m0 : -1;
	getrusage(RUSAGE_THREAD, &ru[0]);
	next_step = r->start + STEP_NS;
	while (r->closed < r->n) {
		int64_t t = now_ns();
		int nev;

		if (t >= next_step) {
			/* The activities due: a timeout / 4 after the last. */
			for (long i = 0; i < r->n; i++) {
				struct session *s = &r->s[i];

				if (s->active && !s->closed && t < r->active_until &&
				    t - s->last >= period)
					touch(r, w, i, t);
			}
			next_step += STEP_NS;
		}
		nev = epoll_wait(r->ep, evs, 64,
				 t < r->active_until ?
				 (int)((next_step - t + 999999) / 1000000) : 1000);
		for (int k = 0; k < nev; k++)
			expired(r, w, evs[k].data.u64);
		if (now_ns() - r->start > 60 * TWHEEL_SEC)
			break;		/* reported as never closed */
	}
	getrusage(RUSAGE_THREAD, &ru[1]);
	if (w == TABLE)
		twheel_idle_close(idle);
	else if (w == HEAP)
		close(r->tfd), free(r->heap);
	close(r->ep);
}

static double cpu_ms(const struct rusage *a, const struct rusage *b)
{
	return (b->ru_utime.tv_sec - a->ru_utime.tv_sec) * 1e3 +
	       (b->ru_utime.tv_usec - a->ru_utime.tv_usec) / 1e3 +
	       (b->ru_stime.tv_sec - a->ru_stime.tv_sec) * 1e3 +
	       (b->ru_stime.tv_usec - a->ru_stime.tv_usec) / 1e3;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "sessions", required_argument, NULL, 'n' },
		{ "timeout", required_argument, NULL, 't' },
		{ "seconds", required_argument, NULL, 's' },
		{ 0 }
	};
	long n = 2000, timeout_ms = 500, seconds = 3;
	struct rusage ru[NR_WAYS][2];
	long long mem[NR_WAYS];
	long sys[NR_WAYS], bad = 0;
	struct rlimit rl;
	struct run r;
	bool cg;
	int c;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		if (c == 'n')
			n = atol(optarg);
		else if (c == 't')
			timeout_ms = atol(optarg);
		else if (c == 's')
			seconds = atol(optarg);
		else
			return 2;
	}
	if (n < 5 || timeout_ms < 20 || seconds < 1)
		errx(2, "--sessions >= 5, --timeout >= 20, --seconds >= 1");
	/* A timerfd per session. */
	rl.rlim_cur = rl.rlim_max = n + 64;
	if (setrlimit(RLIMIT_NOFILE, &rl))
		err(1, "setrlimit (run as root for a timerfd per session)");
	setvbuf(stdout, NULL, _IOLBF, 0);
	cg = enter_cgroup();
	memset(&r, 0, sizeof(r));
	r.n = n;
	r.timeout = timeout_ms * TWHEEL_MSEC;
	r.s = calloc(n, sizeof(*r.s));
	if (!r.s)
		err(1, "calloc");
	printf("%ld sessions, idle timeout %ld ms; for %ld s four in five are active (an activity every %ld ms), one in five silent\n",
	       n, timeout_ms, seconds, timeout_ms / 4);
	for (int w = 0; w < NR_WAYS; w++) {
		run_way(&r, w, seconds * TWHEEL_SEC, ru[w], &mem[w]);
		sys[w] = r.syscalls;
		printf("%-8s closed %ld of %ld, early %ld, twice %ld\n",
		       way_name[w], r.closed, n, r.early, r.twice);
		bad += r.early + r.twice + (n - r.closed);
	}
	printf("\n%-34s %12s %12s %12s\n", "", "table", "timerfd", "heap");
	printf("%-34s %12ld %12ld %12ld\n", "system calls for the timers",
	       sys[0], sys[1], sys[2]);
	printf("%-34s %12ld %12ld %12ld\n", "wake-ups of the loop (voluntary)",
	       ru[0][1].ru_nvcsw - ru[0][0].ru_nvcsw,
	       ru[1][1].ru_nvcsw - ru[1][0].ru_nvcsw,
	       ru[2][1].ru_nvcsw - ru[2][0].ru_nvcsw);
	printf("%-34s %12.1f %12.1f %12.1f\n", "CPU time of the loop, ms",
	       cpu_ms(&ru[0][0], &ru[0][1]), cpu_ms(&ru[1][0], &ru[1][1]),
	       cpu_ms(&ru[2][0], &ru[2][1]));
	if (cg)
		printf("%-34s %12lld %12lld %12lld\n",
		       strcmp(mem_key, "kernel") ? "kernel memory (cgroup slab), KiB" :
		       "kernel memory (cgroup), KiB",
		       mem[0] / 1024, mem[1] / 1024, mem[2] / 1024);
	else
		printf("kernel memory: not measured (no memory cgroup: run as root with cgroup v2)\n");
	printf("sessions: %s\n", bad ? "FAILED" : "passed");
	return bad ? 1 : 0;
}
