// SPDX-License-Identifier: GPL-2.0
/*
 * twheel-prof - where the kernel spends a twheel workload's time: the
 * in-guest profiler behind `make bench-prof`.
 *
 *   twheel-prof [-n ITERATIONS] [-p PERIOD_NS] [-t TOP] MODE
 *
 * Samples this process with perf_event_open(PERF_COUNT_SW_CPU_CLOCK) every
 * PERIOD_NS of its CPU time while it runs MODE, resolves each kernel
 * sample's instruction pointer against /proc/kallsyms (module symbols
 * included, "name[module]"), and prints the TOP functions by share of all
 * samples. User-space samples are counted, not resolved. Run as root with
 * twheel.ko loaded. Modes (10^4 timers pending, an hour ahead, unless
 * said):
 *
 *   ppid    getppid(): the bare system call
 *   info    TWHEEL_IOC_INFO: an ioctl that touches no timer
 *   single  TWHEEL_IOC_ADD then TWHEEL_IOC_CANCEL of that timer
 *   b64     TWHEEL_IOC_SUBMIT of 64 ADDs, then of their 64 CANCELs
 *   mod     as b64, with a SUBMIT of 64 MODIFYs between
 *   modify  TWHEEL_IOC_MODIFY of one of the 10^4 pending timers (picked
 *           at random) to a new deadline an hour ahead
 *   settime timerfd_settime() of one timerfd (of 10^4 armed, picked at
 *           random) to a new deadline an hour ahead: modify's peer
 *   expiry  10^4 timers due together (none pending before): only the
 *           delivery is sampled, poll() then read() of 64 records
 *   spread  10^4 timers due over 1 s (10 a 1 ms tick, none pending
 *           before), delivered as `make bench`'s idle expiry run does
 *           without the ring (its modify and table-read modes):
 *           epoll_wait() then read() of up to 256 records, per wake-up;
 *           only the delivery is sampled, and the time it prints is
 *           this thread's CPU time per record (the wait's idle time
 *           left out), so under icount: its instructions per record;
 *           then per wake-up, this thread's CPU in epoll_wait() and in
 *           the read()s apart (each with the cost of one
 *           clock_gettime(CLOCK_THREAD_CPUTIME_ID) that measures it)
 *   spread-table   spread on an fd with a shared timer table
 *           (TWHEEL_CONFIG_TABLE): the hrtimer's callback reads the due
 *           timers' entries first (`make bench`'s table-read mode)
 *   spread-ring    spread-table with the record ring
 *           (TWHEEL_CONFIG_RING, mapped), as `make bench`'s table mode:
 *           epoll_wait(), whose poll moves the due records into the
 *           ring, then the ring consumed from its head to its tail (each
 *           record copied out of it) instead of read(); a read() of up
 *           to 256 records only when a wake-up found the ring empty. Its
 *           "read()" figure is the ring's consumption, read()s included
 *   spread-timerfd  spread's peer: one timerfd in epoll, set with
 *           timerfd_settime() to each of the 1000 ticks in turn (as a
 *           heap on one timerfd re-arms it), counted as 10 records per
 *           wake-up; its "read()" figure is the timerfd_settime()
 *   idle    the shared timer table on the real clock, as `make bench`'s
 *           idle timeouts at N = 10^4, K = 10, edge: 10^4 timers on
 *           CLOCK_MONOTONIC with a timeout of 1000 ticks of 1 ms, 100
 *           TWHEEL_TABLE_DEADLINE stores on each tick boundary (each
 *           timer pushed every 100 ticks), the loop asleep in
 *           epoll_pwait2() on the fd between; sampled on all of CPU 0 (the
 *           hrtimer's callbacks run in interrupts, mostly in the idle
 *           task), after a lead of 3 periods; one operation a tick
 *   table   the shared timer table on a manual-clock fd: 10^5 timers with
 *           a timeout of 1000 ticks, one activity per timer per period
 *           (100 a tick, each a TWHEEL_TABLE_DEADLINE store pushing the
 *           timer one period back), then TWHEEL_IOC_ADVANCE of a tick,
 *           in which the kernel re-places the 100 timers due (as
 *           tests/bench/user/table.c, K = 1)
 *
 * Under QEMU TCG an interrupt is taken at the start of a translated block,
 * so a sample lands on the first instruction after a call, a branch or an
 * emulated device access rather than where the time went: read the shares
 * per function, not per instruction. The sampling itself costs time: the
 * time per operation it prints (wall time of the sampled part over the
 * operations) is for the profiled run, not a benchmark figure.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/perf_event.h>
#include <poll.h>
#include <sys/epoll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include <linux/twheel.h>

#include "prof_sampler.h"

#define PENDING		10000
#define BATCH		64
#define EXPIRY_K	10240
#define SPREAD_N	10000
#define SPREAD_TICKS	1000	/* of 1 ms */
#define TABLE_N		100000
#define TABLE_P		1000	/* ticks of 1 ms */
#define TABLE_TICK	(TABLE_N / TABLE_P)

#define IDLE_N		10000
#define IDLE_P		1000	/* ticks of 1 ms */
#define IDLE_TICK	100	/* activities a tick: K = 10 */
#define IDLE_LEAD	(3 * IDLE_P)

static uint64_t *table, *table_ids;
static int64_t idle_base;	/* idle: the tick of loop turn 0 */
static uint64_t pend_ids[PENDING];
static int tfds[PENDING];
static int64_t table_tick;
static struct twheel_ring *ring;	/* spread-ring: the mapped ring */
static uint32_t ring_head;
static volatile uint64_t ring_sink;	/* what the records held */

static int64_t sampled_ns;	/* expiry: the time the sampler was on */
/*
 * spread: this thread's CPU in epoll_wait() and in read() (spread-ring:
 * in consuming the ring), and calls
 */
static int64_t spread_wait_ns, spread_read_ns;
static long spread_wakes, spread_reads;

static int64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static int64_t cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static uint64_t rng = 0x74776865656c2131ULL;

/* An hour ahead, uniform over 30 s in ms steps. */
static int64_t far_deadline(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return 3600LL * 1000000000 + (int64_t)(rng % 30000) * 1000000;
}

static void submit(int fd, struct twheel_op *ops, uint32_t n)
{
	struct twheel_submit s = {
		.ops = (uintptr_t)ops, .nr = n, .op_size = sizeof(*ops),
	};
	uint32_t i;

	if (ioctl(fd, TWHEEL_IOC_SUBMIT, &s) != (int)n)
		die("TWHEEL_IOC_SUBMIT");
	for (i = 0; i < n; i++)
		if (ops[i].error) {
			errno = -ops[i].error;
			die("an operation of the batch");
		}
}

static void fill(struct twheel_op *ops, uint32_t op, const uint64_t *ids)
{
	int i;

	memset(ops, 0, BATCH * sizeof(*ops));
	for (i = 0; i < BATCH; i++) {
		ops[i].op = op;
		ops[i].clock = CLOCK_MONOTONIC;
		ops[i].expires_ns = far_deadline();
		if (ids)
			ops[i].id = ids[i];
	}
}

/*
 * spread-ring: the records in the ring, from its head up to its tail,
 * each copied out of it (as a program reads a record's fields); returns
 * how many.
 */
static long ring_consume(void)
{
	uint32_t tail = __atomic_load_n(&ring->tail, __ATOMIC_ACQUIRE);
	uint32_t n = tail - ring_head;
	uint64_t sum = 0;

	if (n > TWHEEL_RING_ENTRIES) {
		errno = EPROTO;
		die("the ring's tail is past its head by more than its size");
	}
	while (ring_head != tail) {
		struct twheel_event x = ring->events[ring_head %
						     TWHEEL_RING_ENTRIES];

		sum += x.id + x.time_ns;
		ring_head++;
	}
	__atomic_store_n(&ring->head, ring_head, __ATOMIC_RELEASE);
	ring_sink += sum;
	return n;
}

/* One iteration of @mode; returns the operations it did. */
static long step(const char *mode, int fd, struct sampler *s)
{
	static struct twheel_op ops[256];
	static uint64_t ids[BATCH];
	int i;

	if (!strcmp(mode, "ppid")) {
		getppid();
		return 1;
	}
	if (!strcmp(mode, "info")) {
		struct twheel_info in;

		if (ioctl(fd, TWHEEL_IOC_INFO, &in))
			die("TWHEEL_IOC_INFO");
		return 1;
	}
	if (!strcmp(mode, "single")) {
		struct twheel_add a = {
			.expires_ns = far_deadline(), .clock = CLOCK_MONOTONIC,
		};
		struct twheel_cancel c = { 0 };

		if (ioctl(fd, TWHEEL_IOC_ADD, &a))
			die("TWHEEL_IOC_ADD");
		c.id = a.id;
		if (ioctl(fd, TWHEEL_IOC_CANCEL, &c))
			die("TWHEEL_IOC_CANCEL");
		return 2;
	}
	if (!strcmp(mode, "modify")) {
		struct twheel_modify m = { .expires_ns = far_deadline() };

		m.id = pend_ids[rng % PENDING];
		if (ioctl(fd, TWHEEL_IOC_MODIFY, &m))
			die("TWHEEL_IOC_MODIFY");
		return 1;
	}
	if (!strcmp(mode, "settime")) {
		struct itimerspec its = { { 0, 0 }, { 0, 0 } };
		int64_t d = far_deadline();

		its.it_value.tv_sec = d / 1000000000;
		its.it_value.tv_nsec = d % 1000000000;
		if (timerfd_settime(tfds[rng % PENDING], 0, &its, NULL))
			die("timerfd_settime");
		return 1;
	}
	if (!strcmp(mode, "b64") || !strcmp(mode, "mod")) {
		fill(ops, TWHEEL_OP_ADD, NULL);
		submit(fd, ops, BATCH);
		for (i = 0; i < BATCH; i++)
			ids[i] = ops[i].id;
		if (!strcmp(mode, "mod")) {
			fill(ops, TWHEEL_OP_MODIFY, ids);
			submit(fd, ops, BATCH);
		}
		fill(ops, TWHEEL_OP_CANCEL, ids);
		submit(fd, ops, BATCH);
		return (!strcmp(mode, "mod") ? 3 : 2) * BATCH;
	}
	if (!strcmp(mode, "expiry")) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		struct twheel_event ev[64];
		int64_t due = (mono_ns() + 50000000) / 1000000 * 1000000;
		long got = 0, k;
		ssize_t r;

		for (k = 0; k < EXPIRY_K; k += 256) {
			memset(ops, 0, sizeof(ops));
			for (i = 0; i < 256; i++) {
				ops[i].op = TWHEEL_OP_ADD;
				ops[i].flags = TWHEEL_ABSTIME;
				ops[i].clock = CLOCK_MONOTONIC;
				ops[i].expires_ns = due;
			}
			submit(fd, ops, 256);
		}
		if (poll(&p, 1, -1) != 1)
			die("poll");
		sampled_ns -= mono_ns();
		sampler_on(s, 1);
		while (got < EXPIRY_K) {
			while ((r = read(fd, ev, sizeof(ev))) > 0)
				got += r / sizeof(ev[0]);
			if (r < 0 && errno != EAGAIN)
				die("read");
			if (got < EXPIRY_K && poll(&p, 1, -1) != 1)
				die("poll");
		}
		sampler_on(s, 0);
		sampled_ns += mono_ns();
		return got;
	}
	if (!strcmp(mode, "spread-timerfd")) {
		struct epoll_event e = { .events = EPOLLIN };
		int64_t t0 = (mono_ns() + 50000000) / 1000000 * 1000000;
		struct itimerspec its = { { 0, 0 }, { 0, 0 } };
		int ep = epoll_create1(EPOLL_CLOEXEC);
		int tfd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC);
		long tick;

		if (ep < 0 || tfd < 0 || epoll_ctl(ep, EPOLL_CTL_ADD, tfd, &e))
			die("spread-timerfd: epoll, timerfd");
		sampled_ns -= cpu_ns();
		sampler_on(s, 1);
		for (tick = 1; tick <= SPREAD_TICKS; tick++) {
			int64_t c0 = cpu_ns(), c1, d = t0 + tick * 1000000LL;

			its.it_value.tv_sec = d / 1000000000;
			its.it_value.tv_nsec = d % 1000000000;
			if (timerfd_settime(tfd, TFD_TIMER_ABSTIME, &its, NULL))
				die("timerfd_settime");
			c1 = cpu_ns();
			spread_read_ns += c1 - c0;
			if (epoll_wait(ep, &e, 1, -1) != 1)
				die("epoll_wait");
			spread_wait_ns += cpu_ns() - c1;
			spread_wakes++;
			spread_reads++;
		}
		sampler_on(s, 0);
		sampled_ns += cpu_ns();
		close(tfd);
		close(ep);
		return SPREAD_N;
	}
	if (!strncmp(mode, "spread", 6)) {
		static int ep = -1;
		struct epoll_event e = { .events = EPOLLIN };
		struct twheel_event ev[256];
		int64_t t0 = (mono_ns() + 50000000) / 1000000 * 1000000;
		long got = 0, k, n;
		ssize_t r;

		if (ep < 0 && (!strcmp(mode, "spread-table") ||
				!strcmp(mode, "spread-ring"))) {
			struct twheel_config cfg = {
				.tick_ns = 1000000, .flags = TWHEEL_CONFIG_TABLE,
			};

			if (!strcmp(mode, "spread-ring"))
				cfg.flags |= TWHEEL_CONFIG_RING;
			if (ioctl(fd, TWHEEL_IOC_CONFIG, &cfg))
				die("TWHEEL_IOC_CONFIG");
			if (cfg.flags & TWHEEL_CONFIG_RING) {
				ring = mmap(NULL, sizeof(*ring),
					    PROT_READ | PROT_WRITE, MAP_SHARED,
					    fd, TWHEEL_RING_OFFSET);
				if (ring == MAP_FAILED)
					die("mmap of the record ring");
			}
		}
		if (ep < 0) {
			ep = epoll_create1(EPOLL_CLOEXEC);
			if (ep < 0 || epoll_ctl(ep, EPOLL_CTL_ADD, fd, &e))
				die("epoll");
		}
		for (k = 0; k < SPREAD_N; k += 250) {
			memset(ops, 0, sizeof(ops));
			for (i = 0; i < 250; i++) {
				ops[i].op = TWHEEL_OP_ADD;
				ops[i].flags = TWHEEL_ABSTIME;
				ops[i].clock = CLOCK_MONOTONIC;
				ops[i].expires_ns = t0 + (k + i) * SPREAD_TICKS /
						    SPREAD_N * 1000000LL;
			}
			submit(fd, ops, 250);
		}
		sampled_ns -= cpu_ns();
		sampler_on(s, 1);
		while (got < SPREAD_N) {
			int64_t c0 = cpu_ns(), c1;

			if (epoll_wait(ep, &e, 1, -1) != 1)
				die("epoll_wait");
			c1 = cpu_ns();
			spread_wait_ns += c1 - c0;
			spread_wakes++;
			/* spread-ring: read() only if the ring was empty. */
			n = ring ? ring_consume() : 0;
			got += n;
			while (!n) {
				r = read(fd, ev, sizeof(ev));
				if (r < 0 && errno != EAGAIN)
					die("read");
				got += r > 0 ? r / (ssize_t)sizeof(ev[0]) : 0;
				spread_reads++;
				if (r != sizeof(ev))
					break;
			}
			spread_read_ns += cpu_ns() - c1;
		}
		sampler_on(s, 0);
		sampled_ns += cpu_ns();
		return got;
	}
	if (!strcmp(mode, "idle")) {
		int64_t now_tick = idle_base + table_tick;
		uint64_t d = (uint32_t)(now_tick + IDLE_P + 1), id;
		long b = table_tick % (IDLE_N / IDLE_TICK) * IDLE_TICK;
		struct timespec ts;

		static struct twheel_event ev[64];
		struct epoll_event e;
		static int ep = -1;

		if (ep < 0) {
			e.events = EPOLLIN;
			ep = epoll_create1(EPOLL_CLOEXEC);
			if (ep < 0 || epoll_ctl(ep, EPOLL_CTL_ADD, fd, &e))
				die("epoll");
		}
		/* As the bench's loop: epoll_pwait2() up to the tick. */
		for (;;) {
			int64_t left = now_tick * 1000000 - mono_ns();

			ts.tv_sec = left > 0 ? left / 1000000000 : 0;
			ts.tv_nsec = left > 0 ? left % 1000000000 : 0;
			if (syscall(SYS_epoll_pwait2, ep, &e, 1, &ts, NULL,
				    0) > 0 &&
			    read(fd, ev, sizeof(ev)) < 0 && errno != EAGAIN)
				die("read");
			if (left <= 0)
				break;
		}
		for (i = 0; i < IDLE_TICK; i++) {
			id = table_ids[b + i];
			table[(uint32_t)id - 1] = TWHEEL_TABLE_TAG(id) | d;
		}
		if (++table_tick == IDLE_LEAD)
			sampler_on(s, 1);
		return table_tick > IDLE_LEAD;
	}
	if (!strcmp(mode, "table")) {
		struct twheel_advance adv = { .delta_ns = 1000000 };
		uint64_t d = (uint32_t)(table_tick + TABLE_P + 1), id;
		long b = table_tick % TABLE_P * TABLE_TICK;

		for (i = 0; i < TABLE_TICK; i++) {
			id = table_ids[b + i];
			table[(uint32_t)id - 1] = TWHEEL_TABLE_TAG(id) | d;
		}
		if (ioctl(fd, TWHEEL_IOC_ADVANCE, &adv))
			die("TWHEEL_IOC_ADVANCE");
		table_tick++;
		return TABLE_TICK;
	}
	fprintf(stderr, "twheel-prof: unknown mode %s\n", mode);
	exit(2);
}

/*
 * A table fd of @n timers on CLOCK_MONOTONIC, 1 ms tick, configured with
 * @flags (TWHEEL_CONFIG_TABLE and TWHEEL_CONFIG_MAX_TIMERS added), timer i
 * added for deadline(i) (absolute), its id in table_ids[i].
 */
static void table_fd_setup(int fd, uint32_t flags, long n,
			   int64_t (*deadline)(long i))
{
	struct twheel_config cfg = {
		.tick_ns = 1000000,
		.flags = flags | TWHEEL_CONFIG_TABLE | TWHEEL_CONFIG_MAX_TIMERS,
		.max_timers = n,
	};
	static struct twheel_op ops[256];
	struct twheel_info info;
	long i, j;

	if (ioctl(fd, TWHEEL_IOC_CONFIG, &cfg))
		die("TWHEEL_IOC_CONFIG");
	if (ioctl(fd, TWHEEL_IOC_INFO, &info))
		die("TWHEEL_IOC_INFO");
	table = mmap(NULL, info.table_size, PROT_READ | PROT_WRITE,
		     MAP_SHARED, fd, 0);
	if (table == MAP_FAILED)
		die("mmap of the table");
	table_ids = calloc(n, sizeof(*table_ids));
	if (!table_ids)
		die("calloc");
	for (i = 0; i < n; i += 256) {
		memset(ops, 0, sizeof(ops));
		for (j = 0; j < 256 && i + j < n; j++) {
			ops[j].op = TWHEEL_OP_ADD;
			ops[j].flags = TWHEEL_ABSTIME;
			ops[j].clock = CLOCK_MONOTONIC;
			ops[j].expires_ns = deadline(i + j);
		}
		submit(fd, ops, j);
		for (j = 0; j < 256 && i + j < n; j++)
			table_ids[i + j] = ops[j].id;
	}
}

/* The table mode's timers: where K = 1 leaves them. */
static int64_t table_deadline(long i)
{
	return (i / TABLE_TICK + 1) * 1000000LL;
}

/*
 * The idle mode's timers, pushed IDLE_TICK a tick: timer i at turn s when
 * s = i / IDLE_TICK mod (IDLE_N / IDLE_TICK), each first placed where its
 * last push would have left it.
 */
static int64_t idle_deadline(long i)
{
	return (idle_base + i / IDLE_TICK - IDLE_N / IDLE_TICK + IDLE_P + 1) *
	       1000000LL;
}

int main(int argc, char **argv)
{
	long iters = 0, ops = 0, it, top = 40;
	uint64_t period = 50000;
	struct sampler s;
	const char *mode;
	int64_t t0, t1;
	int c, fd, i;

	while ((c = getopt(argc, argv, "n:p:t:")) != -1) {
		switch (c) {
		case 'n':
			iters = atol(optarg);
			break;
		case 'p':
			period = strtoull(optarg, NULL, 0);
			break;
		case 't':
			top = atol(optarg);
			break;
		default:
			fprintf(stderr, "usage: twheel-prof [-n iterations] [-p period_ns] [-t top] ppid|info|single|b64|mod|modify|settime|expiry|spread|spread-table|spread-ring|spread-timerfd|idle|table\n");
			return 2;
		}
	}
	if (optind != argc - 1 || !period) {
		fprintf(stderr, "twheel-prof: one mode, and a period above 0\n");
		return 2;
	}
	mode = argv[optind];
	if (!iters)
		iters = !strcmp(mode, "expiry") ? 20 :
			!strncmp(mode, "spread", 6) ? 3 :
			!strcmp(mode, "b64") || !strcmp(mode, "mod") ? 2000 :
			!strcmp(mode, "table") ? 4 * TABLE_P :
			!strcmp(mode, "idle") ? IDLE_LEAD + 2 * IDLE_P :
			40000;
	fd = open("/dev/twheel", O_RDWR | O_CLOEXEC |
		  (strcmp(mode, "expiry") && strncmp(mode, "spread", 6) &&
		   strcmp(mode, "idle") ? 0 : O_NONBLOCK));
	if (fd < 0)
		die("/dev/twheel");
	if (!strcmp(mode, "table")) {
		table_fd_setup(fd, TWHEEL_CONFIG_MANUAL, TABLE_N,
			       table_deadline);
	} else if (!strcmp(mode, "idle")) {
		idle_base = mono_ns() / 1000000 + 2;
		table_fd_setup(fd, 0, IDLE_N, idle_deadline);
	}
	else if (!strcmp(mode, "settime"))
		for (i = 0; i < PENDING; i++) {
			struct rlimit rl = { PENDING + 64, PENDING + 64 };

			/* root in the VM: room for PENDING timerfds. */
			if (!i && setrlimit(RLIMIT_NOFILE, &rl))
				die("setrlimit");
			struct itimerspec its = { { 0, 0 }, { 3600, 0 } };

			tfds[i] = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC);
			if (tfds[i] < 0 || timerfd_settime(tfds[i], 0, &its, NULL))
				die("timerfd");
		}
	else if (strcmp(mode, "expiry") && strncmp(mode, "spread", 6))
		for (i = 0; i < PENDING; i++) {
			struct twheel_add a = {
				.expires_ns = far_deadline(),
				.clock = CLOCK_MONOTONIC,
			};

			if (ioctl(fd, TWHEEL_IOC_ADD, &a))
				die("TWHEEL_IOC_ADD");
			pend_ids[i] = a.id;
		}
	load_kallsyms();
	sampler_open(&s, period, !strcmp(mode, "idle"));
	t0 = mono_ns();
	if (strcmp(mode, "expiry") && strncmp(mode, "spread", 6) &&
	    strcmp(mode, "idle"))
		sampler_on(&s, 1);
	for (it = 0; it < iters; it++) {
		ops += step(mode, fd, &s);
		sampler_drain(&s);
	}
	if (strcmp(mode, "expiry") && strncmp(mode, "spread", 6))
		sampler_on(&s, 0);
	t1 = mono_ns();
	if (!strcmp(mode, "expiry") || !strncmp(mode, "spread", 6))
		t1 = t0 + sampled_ns;
	sampler_drain(&s);

	printf("mode %s: %ld operations, %.3f us each while sampled every %" PRIu64 " ns of CPU; ",
	       mode, ops, (t1 - t0) / 1e3 / ops, period);
	sampler_print_share();
	if (spread_wakes && ring)
		printf("per wake-up: %.2f records, %.0f ns of CPU in epoll_wait(), %.0f ns consuming the ring, with %.2f read()s (each figure with one clock_gettime(CLOCK_THREAD_CPUTIME_ID))\n",
		       (double)ops / spread_wakes,
		       (double)spread_wait_ns / spread_wakes,
		       (double)spread_read_ns / spread_wakes,
		       (double)spread_reads / spread_wakes);
	else if (spread_wakes)
		printf("per wake-up: %.2f records, %.0f ns of CPU in epoll_wait(), %.0f ns in %.2f read()s (each figure with one clock_gettime(CLOCK_THREAD_CPUTIME_ID))\n",
		       (double)ops / spread_wakes,
		       (double)spread_wait_ns / spread_wakes,
		       (double)spread_read_ns / spread_wakes,
		       (double)spread_reads / spread_wakes);
	sampler_print_top((size_t)top);
	return 0;
}
