// SPDX-License-Identifier: GPL-2.0
/*
 * faults: every allocation and user copy an ioctl or read() makes is made
 * to fail in turn (fail-nth: FAILSLAB and FAULT_INJECTION_USERCOPY, in the
 * debug kernel), and each failure must leave the fd exactly as it was:
 * "ENOMEM/EFAULT with nothing half-done". ADD, CANCEL, read(), and the
 * ioctls of ABI version 2: MODIFY, SUBMIT (a batch stops before the
 * operation that failed to copy), ADVANCE, CONFIG, LIST.
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
		struct twheel_add a = { .cookie = nth, .expires_ns = HOUR_NS,
					 .clock = CLOCK_MONOTONIC };
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
		struct twheel_add a = { .expires_ns = HOUR_NS,
					 .clock = CLOCK_MONOTONIC };
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
			CHECK_EQ(c.result, nth % 2 ? TWHEEL_STATE_QUEUED :
						     TWHEEL_STATE_PENDING);
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
		struct twheel_add a = { .cookie = nth, .expires_ns = 0,
					 .clock = CLOCK_MONOTONIC };
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

/*
 * MODIFY of a pending or a queued timer into a periodic one (which may
 * allocate): on failure the timer is exactly as it was.
 */
static void modify_fails_cleanly(void)
{
	int fd, nth, failures = 0;

	need_fail_nth();
	for (nth = 1; nth <= 2 * NTH_MAX; nth++) {
		struct twheel_add a = { .cookie = 1, .expires_ns = HOUR_NS,
					.clock = CLOCK_MONOTONIC };
		int queued = nth > NTH_MAX;
		struct twheel_modify m;
		struct twheel_status st;
		int r, err;

		fd = open("/dev/twheel", O_RDWR | O_NONBLOCK);
		CHECK_OK(fd);
		if (queued)
			a.expires_ns = 0;	/* modify retracts a record */
		CHECK_OK(ioctl(fd, TWHEEL_IOC_ADD, &a));
		memset(&m, 0, sizeof(m));
		m.id = a.id;
		m.cookie = 2;
		m.expires_ns = 2 * HOUR_NS;
		m.period_ns = 1000000000;
		m.flags = TWHEEL_SET_COOKIE;
		arm(queued ? nth - NTH_MAX : nth);
		r = ioctl(fd, TWHEEL_IOC_MODIFY, &m);
		err = errno;
		disarm();
		st = twt_query(fd, a.id);
		if (r == 0) {
			CHECK_EQ(m.result, queued ? TWHEEL_STATE_QUEUED :
						    TWHEEL_STATE_PENDING);
			CHECK_EQ(st.cookie, 2);
			CHECK_EQ(st.period_ns, 1000000000);
			CHECK_EQ(st.state, TWHEEL_STATE_PENDING);
			CHECK_EQ(info(fd).queued, 0);
		} else {
			failures++;
			printf("# modify (%s): call %d failed: %s\n",
			       queued ? "queued" : "pending",
			       queued ? nth - NTH_MAX : nth, strerror(err));
			CHECK(err == ENOMEM || err == EFAULT);
			/* Unchanged: cookie, period, state, its record. */
			CHECK_EQ(st.cookie, 1);
			CHECK_EQ(st.period_ns, 0);
			CHECK_EQ(st.state, queued ? TWHEEL_STATE_QUEUED :
						    TWHEEL_STATE_PENDING);
			CHECK_EQ(info(fd).timers, 1);
			CHECK_EQ(info(fd).queued, queued);
			/* And it can still be modified. */
			CHECK_OK(ioctl(fd, TWHEEL_IOC_MODIFY, &m));
			CHECK_EQ(twt_query(fd, a.id).cookie, 2);
		}
		close(fd);
	}
	printf("# modify: %d injected failures, each left the timer unchanged\n",
	       failures);
	CHECK(failures > 0);
}

/*
 * A batch: ADD, MODIFY (to periodic), QUERY, ADD due at once. Whatever
 * fails, the return value says how many operations were done, each done
 * one has its outcome written, and the fd holds exactly their effects.
 */
static void submit_fails_cleanly(void)
{
	int fd, nth, failures = 0, partial = 0;

	need_fail_nth();
	for (nth = 1; nth <= NTH_MAX; nth++) {
		struct twheel_add a = { .cookie = 1, .expires_ns = HOUR_NS,
					.clock = CLOCK_MONOTONIC };
		struct twheel_op ops[4];
		struct twheel_submit s;
		uint64_t timers = 1, queued = 0;
		int r, err, k;

		fd = open("/dev/twheel", O_RDWR | O_NONBLOCK);
		CHECK_OK(fd);
		CHECK_OK(ioctl(fd, TWHEEL_IOC_ADD, &a));
		memset(ops, 0, sizeof(ops));
		ops[0].op = TWHEEL_OP_ADD;
		ops[0].cookie = 10;
		ops[0].expires_ns = HOUR_NS;
		ops[0].clock = CLOCK_BOOTTIME;
		ops[1].op = TWHEEL_OP_MODIFY;
		ops[1].flags = TWHEEL_SET_COOKIE;
		ops[1].id = a.id;
		ops[1].cookie = 11;
		ops[1].expires_ns = 2 * HOUR_NS;
		ops[1].period_ns = 1000000000;
		ops[2].op = TWHEEL_OP_QUERY;
		ops[2].id = a.id;
		ops[3].op = TWHEEL_OP_ADD;
		ops[3].cookie = 12;
		ops[3].expires_ns = 0;
		ops[3].clock = CLOCK_REALTIME;
		for (k = 0; k < 4; k++)
			ops[k].error = 1;	/* never a result */
		memset(&s, 0, sizeof(s));
		s.ops = (uint64_t)(uintptr_t)ops;
		s.nr = 4;
		s.op_size = sizeof(ops[0]);
		arm(nth);
		r = ioctl(fd, TWHEEL_IOC_SUBMIT, &s);
		err = errno;
		disarm();
		if (r < 0) {
			failures++;
			printf("# submit: call %d failed: %s\n", nth,
			       strerror(err));
			CHECK(err == EFAULT || err == ENOMEM);
			r = 0;		/* none done */
		} else if (r < 4) {
			partial++;
			printf("# submit: call %d: %d of 4 done\n", nth, r);
		}
		CHECK(r >= 0 && r <= 4);
		for (k = 0; k < 4; k++) {
			/* Inputs are written back as given. */
			CHECK_EQ(ops[k].op, k == 1 ? TWHEEL_OP_MODIFY :
					    k == 2 ? TWHEEL_OP_QUERY :
						     TWHEEL_OP_ADD);
			if (k >= r) {
				CHECK_EQ(ops[k].error, 1); /* not written */
				continue;
			}
			if (ops[k].error) {
				failures++;
				printf("# submit: call %d: op %d: %s\n", nth, k,
				       strerror(-ops[k].error));
				CHECK_EQ(ops[k].error, -ENOMEM);
				continue;
			}
			if (k == 0 || k == 3) {
				struct twheel_status st;

				/* The id written back is the new timer's. */
				CHECK(ops[k].id != 0);
				CHECK_EQ(twt_query_raw(fd, ops[k].id, &st), 0);
				CHECK_EQ(st.cookie, ops[k].cookie);
				timers++;
				queued += k == 3;
			}
		}
		/* The timer is modified exactly if that operation was done. */
		{
			struct twheel_status st = twt_query(fd, a.id);
			int modified = r > 1 && ops[1].error == 0;

			CHECK_EQ(st.cookie, modified ? 11 : 1);
			CHECK_EQ(st.period_ns, modified ? 1000000000 : 0);
			if (r > 2 && ops[2].error == 0) {
				CHECK_EQ(ops[2].cookie, modified ? 11 : 1);
				CHECK_EQ(ops[2].result, TWHEEL_STATE_PENDING);
			}
		}
		CHECK_EQ(info(fd).timers, timers);
		CHECK_EQ(info(fd).queued, queued);
		close(fd);
	}
	printf("# submit: %d injected failures, %d partial batches, each consistent\n",
	       failures, partial);
	CHECK(failures + partial > 0);
}

/* ADVANCE that fails moves no clock and queues nothing. */
static void advance_fails_cleanly(void)
{
	int fd, nth, failures = 0;

	need_fail_nth();
	for (nth = 1; nth <= NTH_MAX; nth++) {
		struct twheel_advance adv;
		int r, err;

		fd = twt_open_manual(O_NONBLOCK, 1000000);
		twt_add_rel(fd, 1, 1000000000);		/* due at 1 s */
		memset(&adv, 0, sizeof(adv));
		adv.delta_ns = 5000000000ULL;
		arm(nth);
		r = ioctl(fd, TWHEEL_IOC_ADVANCE, &adv);
		err = errno;
		disarm();
		if (r == 0) {
			CHECK_EQ(adv.now_ns, 5000000000LL);
			CHECK_EQ(twt_advance(fd, 0), 5000000000LL);
			CHECK_EQ(info(fd).queued, 1);
		} else {
			failures++;
			CHECK(err == ENOMEM || err == EFAULT);
			printf("# advance: call %d failed: %s; clock now %lld, %llu queued\n",
			       nth, strerror(err),
			       (long long)twt_advance(fd, 0),
			       (unsigned long long)info(fd).queued);
			CHECK_EQ(twt_advance(fd, 0), 0);
			CHECK_EQ(info(fd).queued, 0);
		}
		close(fd);
	}
	printf("# advance: %d injected failures\n", failures);
	CHECK(failures > 0);
}

/* CONFIG that fails leaves the tick and the clock as they were. */
static void config_fails_cleanly(void)
{
	int fd, nth, failures = 0;

	need_fail_nth();
	for (nth = 1; nth <= NTH_MAX; nth++) {
		struct twheel_config c = { .tick_ns = 250000,
					   .flags = TWHEEL_CONFIG_MANUAL };
		struct twheel_info i;
		int r, err;

		fd = open("/dev/twheel", O_RDWR | O_NONBLOCK);
		CHECK_OK(fd);
		arm(nth);
		r = ioctl(fd, TWHEEL_IOC_CONFIG, &c);
		err = errno;
		disarm();
		i = info(fd);
		if (r == 0) {
			CHECK_EQ(i.tick_ns, 250000);
			CHECK_EQ(i.config_flags, TWHEEL_CONFIG_MANUAL);
		} else {
			failures++;
			CHECK(err == ENOMEM || err == EFAULT);
			CHECK_EQ(i.tick_ns, TWHEEL_DEFAULT_TICK_NS);
			CHECK_EQ(i.config_flags, 0);
		}
		close(fd);
	}
	printf("# config: %d injected failures\n", failures);
	CHECK(failures > 0);
}

/*
 * LIST that fails changes nothing: a listing from the start afterwards
 * reports every timer exactly once.
 */
static void list_fails_cleanly(void)
{
	int fd, nth, failures = 0;

	need_fail_nth();
	fd = open("/dev/twheel", O_RDWR | O_NONBLOCK);
	CHECK_OK(fd);
	for (nth = 0; nth < 5; nth++)
		twt_add_rel(fd, nth, HOUR_NS);
	for (nth = 1; nth <= NTH_MAX; nth++) {
		struct twheel_status st[2];
		struct twheel_list l;
		int seen[5] = { 0 }, r, err, calls = 0;
		uint32_t k;

		memset(&l, 0, sizeof(l));
		l.statuses = (uint64_t)(uintptr_t)st;
		l.capacity = 2;
		l.status_size = sizeof(st[0]);
		arm(nth);
		r = ioctl(fd, TWHEEL_IOC_LIST, &l);
		err = errno;
		disarm();
		if (r) {
			failures++;
			CHECK(err == ENOMEM || err == EFAULT);
		}
		memset(&l, 0, sizeof(l));
		l.statuses = (uint64_t)(uintptr_t)st;
		l.capacity = 2;
		l.status_size = sizeof(st[0]);
		do {
			CHECK(++calls < 100);
			CHECK_OK(ioctl(fd, TWHEEL_IOC_LIST, &l));
			for (k = 0; k < l.count; k++) {
				CHECK(st[k].cookie < 5);
				seen[st[k].cookie]++;
			}
		} while (l.cursor);
		for (k = 0; k < 5; k++)
			CHECK_EQ(seen[k], 1);
	}
	CHECK_EQ(info(fd).timers, 5);
	printf("# list: %d injected failures\n", failures);
	CHECK(failures > 0);
	close(fd);
}

TWT_MAIN("faults",
	 TWT_CASE(add_fails_cleanly),
	 TWT_CASE(cancel_fails_cleanly),
	 TWT_CASE(read_fails_cleanly),
	 TWT_CASE(modify_fails_cleanly),
	 TWT_CASE(submit_fails_cleanly),
	 TWT_CASE(advance_fails_cleanly),
	 TWT_CASE(config_fails_cleanly),
	 TWT_CASE(list_fails_cleanly))
