// SPDX-License-Identifier: GPL-2.0
/*
 * faults: every allocation and user copy an ioctl or read() makes is made
 * to fail in turn (fail-nth: FAILSLAB and FAULT_INJECTION_USERCOPY, in the
 * debug kernel), and each failure must leave the fd exactly as it was:
 * "ENOMEM/EFAULT with nothing half-done".
 *
 * Kernels without fault injection (Debian's) have no fail-nth file: the
 * cases report themselves skipped there.
 */
#include <fcntl.h>
#include <sys/ioctl.h>

#include <linux/twheel.h>

#include "twtest.h"

#define FAIL_NTH "/proc/thread-self/fail-nth"
#define HOUR_NS (3600LL * 1000000000)

static int fail_nth_fd = -1;

static void debugfs_set(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY);

	CHECK_OK(fd);
	CHECK_EQ(write(fd, val, strlen(val)), (ssize_t)strlen(val));
	close(fd);
}

static void need_fail_nth(void)
{
	fail_nth_fd = open(FAIL_NTH, O_RDWR);
	if (fail_nth_fd < 0)
		twt_skip("no fault injection (fail-nth) in this kernel");
	/* Fail sleeping allocations too: ours are all GFP_KERNEL_ACCOUNT. */
	debugfs_set("/sys/kernel/debug/failslab/ignore-gfp-wait", "N");
	/* An injected fault is expected here: no stack trace for it. */
	debugfs_set("/sys/kernel/debug/failslab/verbose", "0");
	debugfs_set("/sys/kernel/debug/fail_usercopy/verbose", "0");
}

/*
 * Make the nth fault-injectable call (slab allocation, user copy) of this
 * thread fail. Disarming writes 0; the write itself is injectable, and if
 * the fault lands there the count is spent anyway, so its result does not
 * matter. (Reading fail-nth back would be injectable too: not done.)
 */
static void arm(int nth)
{
	char buf[16];
	int len = snprintf(buf, sizeof(buf), "%d", nth);

	CHECK_EQ(pwrite(fail_nth_fd, buf, len, 0), len);
}

static void disarm(void)
{
	if (pwrite(fail_nth_fd, "0", 1, 0) != 1)
		CHECK_EQ(errno, EFAULT);
}

static struct twheel_info info(int fd)
{
	struct twheel_info i;

	memset(&i, 0, sizeof(i));
	CHECK_OK(ioctl(fd, TWHEEL_IOC_INFO, &i));
	return i;
}

/* Past the last injectable call, each call simply succeeds. */
#define NTH_MAX 40

static void add_fails_cleanly(void)
{
	int fd, nth, failures = 0;

	need_fail_nth();
	for (nth = 1; nth <= 2 * NTH_MAX; nth++) {
		struct twheel_add a = { .cookie = nth, .expires_ns = HOUR_NS };
		struct twheel_info after;
		int r, err;

		/*
		 * A fresh fd each time, so that the nth call is the same one
		 * in every round. In the first rounds the add also allocates
		 * the clock's wheel; in the later ones the fd has its wheel
		 * already (an add and a cancel made it).
		 */
		fd = open("/dev/twheel", O_RDWR | O_NONBLOCK);
		CHECK_OK(fd);
		if (nth > NTH_MAX) {
			struct twheel_cancel c = { 0 };

			CHECK_OK(ioctl(fd, TWHEEL_IOC_ADD, &a));
			c.id = a.id;
			CHECK_OK(ioctl(fd, TWHEEL_IOC_CANCEL, &c));
		}

		/* Alternate a pending and an already due timer. */
		if (nth % 2)
			a.expires_ns = 0;
		arm(nth > NTH_MAX ? nth - NTH_MAX : nth);
		r = ioctl(fd, TWHEEL_IOC_ADD, &a);
		err = errno;
		disarm();
		after = info(fd);
		if (r == 0) {
			CHECK_EQ(after.timers, 1);
			CHECK_EQ(after.queued, nth % 2);
			CHECK(a.id != 0);
		} else {
			failures++;
			printf("# add (%s fd): call %d failed: %s\n",
			       nth > NTH_MAX ? "warm" : "new",
			       nth > NTH_MAX ? nth - NTH_MAX : nth, strerror(err));
			CHECK(err == ENOMEM || err == EFAULT);
			CHECK_EQ(after.timers, 0);
			CHECK_EQ(after.queued, 0);
			/* The fd still works, and nothing fires. */
			CHECK_OK(ioctl(fd, TWHEEL_IOC_ADD, &a));
			CHECK_EQ(info(fd).timers, 1);
		}
		close(fd);
	}
	printf("# add: %d injected failures, each left the fd unchanged\n",
	       failures);
	CHECK(failures > 0);
}

static void cancel_fails_cleanly(void)
{
	int fd, nth, failures = 0;

	need_fail_nth();
	for (nth = 1; nth <= NTH_MAX; nth++) {
		struct twheel_add a = { .expires_ns = HOUR_NS };
		struct twheel_cancel c = { 0 };
		int r, err;

		fd = open("/dev/twheel", O_RDWR | O_NONBLOCK);
		CHECK_OK(fd);
		if (nth % 2)
			a.expires_ns = 0;	/* cancel retracts a record */
		CHECK_OK(ioctl(fd, TWHEEL_IOC_ADD, &a));
		c.id = a.id;
		arm(nth);
		r = ioctl(fd, TWHEEL_IOC_CANCEL, &c);
		err = errno;
		disarm();
		if (r == 0) {
			CHECK_EQ(c.result, nth % 2 ? TWHEEL_CANCELLED_QUEUED :
						     TWHEEL_CANCELLED_PENDING);
			CHECK_EQ(info(fd).timers, 0);
		} else {
			failures++;
			CHECK(err == ENOMEM || err == EFAULT);
			/* Not cancelled: still there, still cancellable. */
			CHECK_EQ(info(fd).timers, 1);
			CHECK_EQ(info(fd).queued, nth % 2);
			memset(&c, 0, sizeof(c));
			c.id = a.id;
			CHECK_OK(ioctl(fd, TWHEEL_IOC_CANCEL, &c));
		}
		close(fd);
	}
	printf("# cancel: %d injected failures, each left the fd unchanged\n",
	       failures);
	CHECK(failures > 0);
}

static void read_fails_cleanly(void)
{
	int fd, nth, failures = 0;

	need_fail_nth();
	fd = open("/dev/twheel", O_RDWR | O_NONBLOCK);
	CHECK_OK(fd);
	for (nth = 1; nth <= NTH_MAX; nth++) {
		struct twheel_add a = { .cookie = nth, .expires_ns = 0 };
		struct twheel_event ev;
		ssize_t r;
		int err;

		CHECK_OK(ioctl(fd, TWHEEL_IOC_ADD, &a));
		memset(&ev, 0, sizeof(ev));
		arm(nth);
		r = read(fd, &ev, sizeof(ev));
		err = errno;
		disarm();
		if (r == (ssize_t)sizeof(ev)) {
			CHECK_EQ(ev.id, a.id);
			CHECK_EQ(ev.cookie, nth);
			CHECK_EQ(info(fd).timers, 0);
			continue;
		}
		failures++;
		CHECK_EQ(r, -1);
		CHECK_EQ(err, EFAULT);
		/* The record stays queued and reads fine afterwards. */
		CHECK_EQ(info(fd).queued, 1);
		CHECK_EQ(read(fd, &ev, sizeof(ev)), (ssize_t)sizeof(ev));
		CHECK_EQ(ev.cookie, nth);
	}
	/*
	 * A copy-out under the fd's lock never waits for a fault: it fails,
	 * the page is faulted in with no lock held, and the copy is tried
	 * again. So an injected copy fault is absorbed (the read succeeds)
	 * unless the fault-in fails too; either way no record is lost.
	 */
	printf("# read: %d injected failures seen by the caller, none lost a record\n",
	       failures);
	close(fd);
}

TWT_MAIN("faults",
	 TWT_CASE(add_fails_cleanly),
	 TWT_CASE(cancel_fails_cleanly),
	 TWT_CASE(read_fails_cleanly))
