// SPDX-License-Identifier: GPL-2.0
/*
 * timens: times are in the time namespace of the task that opened the fd,
 * as timerfd's are in its caller's. Absolute CLOCK_MONOTONIC and
 * CLOCK_BOOTTIME deadlines, record times and fdinfo's next expiry are
 * namespace times; CLOCK_REALTIME and CLOCK_TAI, which namespaces do not
 * offset, stay as they are there; an fd opened outside the namespace
 * keeps the times of its opener even when used inside.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <sched.h>
#include <sys/ioctl.h>

#include "twtest.h"

#ifndef CLONE_NEWTIME
#define CLONE_NEWTIME 0x00000080
#endif

/* Enter a new time namespace whose clocks are @off_s seconds off: forks. */
static pid_t fork_in_timens(int off_s)
{
	char buf[128];
	int fd, len;
	pid_t pid;

	if (unshare(CLONE_NEWTIME))
		twt_skip("no time namespaces here");
	len = snprintf(buf, sizeof(buf), "monotonic %d 0\nboottime %d 0\n",
		       off_s, off_s);
	fd = open("/proc/self/timens_offsets", O_WRONLY);
	CHECK_OK(fd);
	CHECK_EQ(write(fd, buf, len), len);
	close(fd);
	pid = fork();
	CHECK(pid >= 0);
	return pid;
}

/* Only children enter; the parent waits and passes on the verdict. */
static void wait_child(pid_t pid)
{
	int st;

	CHECK_EQ(waitpid(pid, &st, 0), pid);
	if (WIFEXITED(st) && WEXITSTATUS(st) == TWT_SKIP_STATUS)
		twt_skip("see above");
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
}

/*
 * In the namespace: a timer due at namespace-now + 300 ms gives no record
 * before then and one soon after, its time in namespace time; on each of
 * the four clocks (the wall clocks have no namespace offset).
 */
static void in_namespace(int off_s)
{
	int64_t host_before = twt_mono(), ns_now;
	unsigned int k;
	pid_t pid;

	/* The offset must not take the namespace's clocks below zero. */
	if (off_s < 0 && host_before < (-off_s + 1) * TWT_S)
		twt_sleep_ns((-off_s + 1) * TWT_S - host_before);
	pid = fork_in_timens(off_s);
	if (pid) {
		wait_child(pid);
		return;
	}
	ns_now = twt_mono();
	printf("# namespace %+d s: monotonic %.3f s here, %.3f s outside\n",
	       off_s, ns_now / 1e9, host_before / 1e9);
	CHECK(ns_now - host_before > (off_s - 1) * TWT_S &&
	      ns_now - host_before < (off_s + 60) * TWT_S);
	for (k = 0; k < TWT_NCLOCKS; k++) {
		clockid_t c = twt_clock(k);
		int fd = twt_open(0);
		struct twheel_event ev;
		int64_t d = twt_now(c) + 300 * TWT_MS;
		long long next;
		char key[64];

		twt_add_abs(fd, 1, d, c);
		snprintf(key, sizeof(key), "next_expiry_%s_ns",
			 twt_clockname(c));
		CHECK_OK(twt_fdinfo(fd, key, &next));
		/* Never after the deadline's tick (1 ms), in namespace time. */
		if (next > d - d % TWT_MS + TWT_MS || next < d - 3600 * TWT_S)
			printf("# %s: next expiry %lld, deadline %lld\n",
			       twt_clockname(c), next, (long long)d);
		CHECK(next <= d - d % TWT_MS + TWT_MS && next > d - 3600 * TWT_S);
		/*
		 * Nothing before the deadline: readable within 250 ms only
		 * if the poll returned after the deadline (a slow VM), and
		 * never with a record queued before it.
		 */
		if (twt_poll(fd, 250) != 0) {
			int64_t now = twt_now(c);

			printf("# %s: readable %+.3f ms from the deadline\n",
			       twt_clockname(c), (now - d) / 1e6);
			CHECK(now >= d);
		}
		CHECK_EQ(read(fd, &ev, sizeof(ev)), sizeof(ev));
		CHECK(twt_now(c) >= d);
		printf("# %s: record at deadline %+.3f ms (namespace time)\n",
		       twt_clockname(c), (ev.time_ns - d) / 1e6);
		CHECK(ev.time_ns >= d && ev.time_ns < d + 1000 * TWT_MS);
		close(fd);
	}
	_exit(0);
}

static void offset_minus_3s(void) { in_namespace(-3); }
static void offset_plus_100s(void) { in_namespace(100); }

/* An fd opened outside keeps its opener's times inside the namespace. */
static void opener_namespace(void)
{
	int outside = twt_open(0), inside;
	struct twheel_event ev;
	int64_t d_host, d_ns;
	pid_t pid;

	pid = fork_in_timens(50);
	if (pid) {
		wait_child(pid);
		close(outside);
		return;
	}
	inside = twt_open(0);
	d_ns = twt_mono() + 200 * TWT_MS;
	d_host = d_ns - 50 * TWT_S;
	twt_add_abs(outside, 1, d_host, CLOCK_MONOTONIC);
	twt_add_abs(inside, 2, d_ns, CLOCK_MONOTONIC);
	CHECK_EQ(read(outside, &ev, sizeof(ev)), sizeof(ev));
	CHECK(twt_mono() >= d_ns);
	CHECK(ev.time_ns >= d_host && ev.time_ns < d_host + 1000 * TWT_MS);
	CHECK_EQ(read(inside, &ev, sizeof(ev)), sizeof(ev));
	CHECK(ev.time_ns >= d_ns && ev.time_ns < d_ns + 1000 * TWT_MS);
	_exit(0);
}

TWT_MAIN("timens",
	 TWT_CASE(offset_minus_3s),
	 TWT_CASE(offset_plus_100s),
	 TWT_CASE(opener_namespace))
