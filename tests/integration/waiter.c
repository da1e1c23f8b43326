// SPDX-License-Identifier: GPL-2.0
/*
 * waiter: expiry runs in the waiter's context. No kernel worker stands
 * between the hrtimer and the reader, so a real-time reader is woken like
 * a timerfd's (one fd's big batch not delaying another fd's timer is
 * isolation.c's); a read stuck on a page fault holds no lock anyone else needs; poll only
 * says readable when a record can be read; the order of records is the
 * one the header promises, also for a timer added after its deadline.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <linux/userfaultfd.h>

#include "twtest.h"

static int64_t ceil_ms(int64_t ns)
{
	return (ns + TWT_MS - 1) / TWT_MS * TWT_MS;
}

/* ------------------------------------------------------------------ */
/* Real-time load                                                     */

static atomic_int hog_stop;

static void *hog(void *arg)
{
	(void)arg;
	while (!atomic_load_explicit(&hog_stop, memory_order_relaxed))
		;
	return NULL;
}

/*
 * On PREEMPT_RT, hrtimers not marked hard (timerfd's and twheel's alike)
 * expire in the per-CPU "ktimers/N" threads, SCHED_FIFO 1: below the
 * hogs below, which would starve both until they stop. A real-time user
 * raises them above its load, as done here (to FIFO 20) for the length of
 * the test. Returns how many threads were raised (0 elsewhere).
 */
static int rt_raise_ktimers(int prio)
{
	struct sched_param sp = { .sched_priority = prio };
	char path[300], comm[32];
	struct dirent *de;
	int n = 0;
	DIR *d;

	if (twt_sysfs_read("/sys/kernel/realtime") != 1)
		return 0;
	d = opendir("/proc");
	CHECK(d);
	while ((de = readdir(d))) {
		FILE *f;

		if (de->d_name[0] < '1' || de->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/comm", de->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		if (fgets(comm, sizeof(comm), f) &&
		    !strncmp(comm, "ktimers/", 8)) {
			CHECK_OK(sched_setscheduler(atoi(de->d_name),
						    SCHED_FIFO, &sp));
			n++;
		}
		fclose(f);
	}
	closedir(d);
	CHECK(n > 0);
	return n;
}

/*
 * A SCHED_FIFO 50 thread waits for a timerfd and a twheel timer due at the
 * same instant (a tick boundary, so twheel adds no rounding) while
 * SCHED_FIFO 10 threads spin on every CPU. Both are woken from the
 * hrtimer's expiry (the interrupt; on PREEMPT_RT the ktimers threads,
 * raised above the spinners first); twheel's lateness may exceed
 * timerfd's by at most one tick (its promise: a tick plus scheduling
 * latency). Never early in any round; the tick bound holds for the
 * median of RT_ROUNDS rounds: a guest stall (QEMU's vCPU thread
 * descheduled on the host) can delay one wake-up by milliseconds in one
 * round, while a twheel that depended on a task the spinners starve
 * would be late in every round.
 */
#define RT_ROUNDS	5

static void rt_load(void)
{
	struct sched_param hp = { .sched_priority = 50 };
	struct sched_param lp = { .sched_priority = 10 };
	int ncpu = (int)sysconf(_SC_NPROCESSORS_ONLN), rep, i;
	int64_t diff[RT_ROUNDS];

	if (sched_setscheduler(0, SCHED_FIFO, &hp))
		twt_skip("cannot run SCHED_FIFO here");
	if (rt_raise_ktimers(20))
		printf("# PREEMPT_RT: ktimers threads raised to FIFO 20\n");
	for (rep = 0; rep < RT_ROUNDS; rep++) {
		int fd = twt_open(O_NONBLOCK);
		int tfd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK);
		int64_t d = ceil_ms(twt_mono() + 50 * TWT_MS), t_tw = 0, t_tfd = 0;
		struct itimerspec its = { 0 };
		pthread_t th[16];
		pthread_attr_t a;

		CHECK_OK(tfd);
		its.it_value.tv_sec = d / TWT_S;
		its.it_value.tv_nsec = d % TWT_S;
		CHECK_OK(timerfd_settime(tfd, TFD_TIMER_ABSTIME, &its, NULL));
		twt_add_abs(fd, 1, d, CLOCK_MONOTONIC);

		atomic_store(&hog_stop, 0);
		for (i = 0; i < ncpu && i < 16; i++) {
			cpu_set_t set;

			CPU_ZERO(&set);
			CPU_SET(i, &set);
			pthread_attr_init(&a);
			pthread_attr_setinheritsched(&a, PTHREAD_EXPLICIT_SCHED);
			pthread_attr_setschedpolicy(&a, SCHED_FIFO);
			pthread_attr_setschedparam(&a, &lp);
			pthread_attr_setaffinity_np(&a, sizeof(set), &set);
			CHECK_OK(-pthread_create(&th[i], &a, hog, NULL));
			pthread_attr_destroy(&a);
		}
		while (!t_tw || !t_tfd) {
			struct pollfd p[2] = {
				{ .fd = fd, .events = POLLIN },
				{ .fd = tfd, .events = POLLIN },
			};
			struct twheel_event ev;
			uint64_t ticks;
			int64_t now;

			CHECK_OK(poll(p, 2, 5000));
			now = twt_mono();
			if ((p[0].revents & POLLIN) && !t_tw) {
				CHECK_EQ(read(fd, &ev, sizeof(ev)), sizeof(ev));
				t_tw = now;
			}
			if ((p[1].revents & POLLIN) && !t_tfd) {
				CHECK_EQ(read(tfd, &ticks, sizeof(ticks)), 8);
				t_tfd = now;
			}
			CHECK(now < d + 5 * TWT_S);
		}
		atomic_store(&hog_stop, 1);
		for (i = 0; i < ncpu && i < 16; i++)
			pthread_join(th[i], NULL);
		printf("# rt load, %d FIFO 10 hogs: timerfd %.3f ms late, twheel %.3f ms late\n",
		       ncpu, (t_tfd - d) / 1e6, (t_tw - d) / 1e6);
		CHECK(t_tw >= d);
		diff[rep] = t_tw - t_tfd;
		close(fd);
		close(tfd);
	}
	rt_raise_ktimers(1);	/* back to the kernel's default */
	qsort(diff, RT_ROUNDS, sizeof(diff[0]), twt_cmp_i64);
	twt_print_dist("twheel minus timerfd lateness", diff, RT_ROUNDS);
	CHECK(diff[RT_ROUNDS / 2] <= (int64_t)TWHEEL_DEFAULT_TICK_NS);
}

/* ------------------------------------------------------------------ */
/* A read stuck on a page fault                                       */

struct stuck {
	int fd;
	char *buf;
	ssize_t got;
	pid_t tid;
};

static void *stuck_reader(void *arg)
{
	struct stuck *s = arg;

	s->tid = (pid_t)syscall(SYS_gettid);
	s->got = read(s->fd, s->buf, 3 * sizeof(struct twheel_event));
	return NULL;
}

static char task_state(pid_t tid)
{
	char path[64], buf[256], *p;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/task/%d/stat", tid);
	f = fopen(path, "r");
	CHECK(f);
	CHECK(fgets(buf, sizeof(buf), f));
	fclose(f);
	p = strrchr(buf, ')');
	CHECK(p && p[1] == ' ');
	return p[2];
}

/*
 * read() into memory whose page fault never resolves (userfaultfd): the
 * reader waits without holding the fd's lock. INFO and fdinfo answer,
 * another fd's timer fires, the hung-task detector (its timeout lowered
 * to 2 s) sees nobody stuck; resolving the fault delivers each record
 * exactly once.
 */
static void stuck_copy(void)
{
	struct uffdio_register reg = { 0 };
	struct uffdio_zeropage zp = { 0 };
	long long old_hung = twt_sysfs_read("/proc/sys/kernel/hung_task_timeout_secs");
	size_t pg = (size_t)sysconf(_SC_PAGESIZE);
	struct twheel_event *ev;
	struct stuck s = { 0 };
	uint64_t ids[3];
	long long v;
	pthread_t th;
	int uffd, fd2, i, j;
	int64_t d;
	char *mem;

	uffd = twt_uffd(O_NONBLOCK, 0);
	mem = mmap(NULL, 2 * pg, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK(mem != MAP_FAILED);
	reg.range.start = (uintptr_t)mem;
	reg.range.len = 2 * pg;
	reg.mode = UFFDIO_REGISTER_MODE_MISSING;
	CHECK_OK(ioctl(uffd, UFFDIO_REGISTER, &reg));
	if (old_hung > 0)
		CHECK_OK(twt_sysfs_write("/proc/sys/kernel/hung_task_timeout_secs", "2"));

	s.fd = twt_open(0);
	for (i = 0; i < 3; i++)
		ids[i] = twt_add_rel(s.fd, 10 + i, 0);
	/* The records straddle the two pages. */
	s.buf = mem + pg - sizeof(struct twheel_event);
	CHECK_OK(-pthread_create(&th, NULL, stuck_reader, &s));
	twt_sleep_ms(1000);

	CHECK_EQ(twt_info(s.fd).queued, 3);
	CHECK_OK(twt_fdinfo(s.fd, "queued", &v));
	CHECK_EQ(v, 3);
	CHECK_EQ(task_state(s.tid), 'S');	/* interruptible, not D */
	fd2 = twt_open(0);
	d = twt_mono() + 50 * TWT_MS;
	twt_add_abs(fd2, 1, d, CLOCK_MONOTONIC);
	{
		struct twheel_event e;

		CHECK_EQ(read(fd2, &e, sizeof(e)), sizeof(e));
		printf("# another fd's timer, during the stuck read: %.3f ms late\n",
		       (twt_mono() - d) / 1e6);
		CHECK(e.time_ns >= d);
	}
	/* Long enough for the hung-task detector to look twice. */
	twt_sleep_ms(4500);
	CHECK_EQ(task_state(s.tid), 'S');
	CHECK_EQ(s.got, 0);

	zp.range.start = (uintptr_t)mem;
	zp.range.len = 2 * pg;
	CHECK_OK(ioctl(uffd, UFFDIO_ZEROPAGE, &zp));
	pthread_join(th, NULL);
	if (old_hung > 0) {
		char b[32];

		snprintf(b, sizeof(b), "%lld", old_hung);
		twt_sysfs_write("/proc/sys/kernel/hung_task_timeout_secs", b);
	}
	CHECK_EQ(s.got, 3 * TWT_EV_SIZE);
	ev = (struct twheel_event *)s.buf;
	for (i = 0; i < 3; i++) {
		for (j = 0; j < 3 && ids[j] != ev[i].id; j++)
			;
		CHECK(j < 3);
		ids[j] = 0;	/* exactly once */
	}
	CHECK_EQ(twt_info(s.fd).timers, 0);
	close(fd2);
	close(s.fd);
	close(uffd);
}

/* ------------------------------------------------------------------ */
/* Poll is exact                                                      */

/*
 * Timers placed so that the wheel must cascade before they are due (the
 * fd's next expiry is earlier than any deadline): the hrtimer fires for
 * the cascades too, yet epoll, in level and in edge mode, and poll(2)
 * report the fd readable only when a record can be read, every time.
 */
static void poll_exact_mode(int mode)
{
	int fd = twt_open(O_NONBLOCK), ep = -1, n = 12, got = 0, wakes = 0, i;
	/* 5 ms after a 64 ms boundary: no deadline below falls on one. */
	int64_t base = (twt_mono() / (64 * TWT_MS) + 1) * 64 * TWT_MS + 5 * TWT_MS;
	int64_t first = INT64_MAX;
	struct twheel_event ev[16];
	long long next;

	for (i = 0; i < n; i++) {
		/* 70 to 400 ms, off the 64 ms cascade boundaries. */
		int64_t dl = base + (70 + 30 * i) * TWT_MS + 333 * TWT_US;

		twt_add_abs(fd, i, dl, CLOCK_MONOTONIC);
		if (dl < first)
			first = dl;
	}
	CHECK_OK(twt_fdinfo(fd, "next_expiry_monotonic_ns", &next));
	CHECK(next < first);	/* a cascade comes first */
	if (mode) {
		struct epoll_event e = {
			.events = EPOLLIN | (mode == 2 ? EPOLLET : 0),
		};

		ep = epoll_create1(0);
		CHECK_OK(ep);
		CHECK_OK(epoll_ctl(ep, EPOLL_CTL_ADD, fd, &e));
	}
	while (got < n) {
		int r;

		if (mode) {
			struct epoll_event e;

			r = epoll_wait(ep, &e, 1, 5000);
		} else {
			r = twt_poll(fd, 5000);
		}
		CHECK(r > 0);
		wakes++;
		/* Readable: a record is there (mode 2 drains, as edge needs). */
		do {
			ssize_t k = read(fd, ev, sizeof(ev));

			CHECK(k > 0);
			for (i = 0; i < k / TWT_EV_SIZE; i++)
				CHECK(ev[i].time_ns >= base + (70 + 30 * (int64_t)ev[i].cookie) *
				      TWT_MS + 333 * TWT_US);
			got += k / TWT_EV_SIZE;
		} while (mode == 2 && got < n && twt_info(fd).queued);
	}
	printf("# %s: %d records, %d wake-ups to user space\n",
	       mode == 0 ? "poll" : mode == 1 ? "epoll" : "epoll edge", got,
	       wakes);
	CHECK_EQ(got, n);
	CHECK_ERR(read(fd, ev, sizeof(ev)), EAGAIN);
	if (ep >= 0)
		close(ep);
	close(fd);
}

static void poll_exact(void) { poll_exact_mode(0); }
static void epoll_exact(void) { poll_exact_mode(1); }
static void epoll_edge_exact(void) { poll_exact_mode(2); }

/* ------------------------------------------------------------------ */
/* Order: a timer added after its deadline, inside the same tick       */

/*
 * A is added before its deadline D, B after it with the same D, both in
 * D's tick as often as the machine manages: A is read first, always (equal
 * deadlines come out in add order), and neither before D.
 */
static void same_tick_after_deadline(void)
{
	int fd = twt_open(0), rep, in_tick = 0;

	for (rep = 0; rep < 200; rep++) {
		int64_t d = ceil_ms(twt_mono() + 2 * TWT_MS) + 100 * TWT_US;
		struct twheel_event ev[2];
		uint64_t a, b;

		a = twt_add_abs(fd, 1, d, CLOCK_MONOTONIC);
		while (twt_mono() <= d)
			;
		b = twt_add_abs(fd, 2, d, CLOCK_MONOTONIC);
		in_tick += twt_mono() < ceil_ms(d);
		twt_read_n(fd, ev, 2, 5000);
		CHECK_EQ(ev[0].id, a);
		CHECK_EQ(ev[1].id, b);
		CHECK(ev[0].time_ns >= d && ev[1].time_ns >= d);
	}
	printf("# B added within D's tick in %d of 200 runs\n", in_tick);
	close(fd);
}

/*
 * A timer added after its deadline with no earlier timer of that tick
 * pending is queued before the add returns; one whose deadline tick has
 * passed is too, behind the records already due.
 */
static void due_add_alone_at_once(void)
{
	int fd = twt_open(O_NONBLOCK), rep;

	for (rep = 0; rep < 50; rep++) {
		int64_t d = twt_mono();
		struct twheel_event ev;
		uint64_t id;

		id = twt_add_abs(fd, rep, d, CLOCK_MONOTONIC);
		CHECK_EQ(read(fd, &ev, sizeof(ev)), sizeof(ev));
		CHECK_EQ(ev.id, id);
		CHECK(ev.time_ns >= d);
	}
	close(fd);
}

TWT_MAIN("waiter",
	 TWT_CASE_T(rt_load, 60),
	 TWT_CASE_T(stuck_copy, 60),
	 TWT_CASE(poll_exact),
	 TWT_CASE(epoll_exact),
	 TWT_CASE(epoll_edge_exact),
	 TWT_CASE(same_tick_after_deadline),
	 TWT_CASE(due_add_alone_at_once))
