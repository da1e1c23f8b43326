// SPDX-License-Identifier: GPL-2.0
/*
 * alarm_caps: who may use the alarm clocks CLOCK_REALTIME_ALARM and
 * CLOCK_BOOTTIME_ALARM (uapi/linux/twheel.h, "Clocks"), without a suspend
 * (tests/integration/suspend.c suspends):
 *
 * - the handshake tells the truth about them: with TWHEEL_FEATURE_ALARM,
 *   their bits of struct twheel_info.clocks and a root add on each works;
 *   without it, neither bit and both are EINVAL like any unknown clock;
 * - adding a timer on an alarm clock needs CAP_WAKE_ALARM in the calling
 *   task: EPERM without (ioctl and batch, also on a manual fd), whoever
 *   opened the fd; the capability alone (no root) is enough. Modifying
 *   one does not (as timerfd_settime(2) does not): without the capability
 *   a MODIFY of an alarm timer works, single and batched.
 */
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <linux/capability.h>

#include "twtest.h"

#ifndef CAP_WAKE_ALARM
#define CAP_WAKE_ALARM		35
#endif

#define NOBODY		65534

/* An id no add ever returns: what a failed add must leave in the struct. */
#define ID_UNTOUCHED	0x5a5a5a5a5a5a5a5aULL

/* ---- the handshake ---- */

/*
 * The handshake tells the truth about the alarm clocks: with the feature,
 * bits 8 and 9 of clocks and a root add on each works; without it,
 * neither bit and both are EINVAL like any unknown clock.
 */
static void alarm_clocks_in_info(void)
{
	int fd = twt_open(O_NONBLOCK);
	struct twheel_info i = twt_info(fd);
	uint64_t bits = (1ULL << CLOCK_REALTIME_ALARM) |
			(1ULL << CLOCK_BOOTTIME_ALARM);
	uint64_t id;

	printf("# features %#llx clocks %#llx\n",
	       (unsigned long long)i.features, (unsigned long long)i.clocks);
	if (!(i.features & TWHEEL_FEATURE_ALARM)) {
		CHECK_EQ(i.clocks & bits, 0);
		CHECK_ERR(twt_add_raw(fd, 1, TWT_S, 0, CLOCK_REALTIME_ALARM,
				      NULL), EINVAL);
		CHECK_ERR(twt_add_raw(fd, 1, TWT_S, 0, CLOCK_BOOTTIME_ALARM,
				      NULL), EINVAL);
		CHECK_EQ(twt_timers(fd), 0);
		close(fd);
		return;
	}
	CHECK_EQ(i.clocks & bits, bits);
	id = twt_add(fd, 1, 3600 * TWT_S, 0, CLOCK_REALTIME_ALARM);
	CHECK_EQ(twt_query(fd, id).clock, CLOCK_REALTIME_ALARM);
	id = twt_add(fd, 2, 3600 * TWT_S, 0, CLOCK_BOOTTIME_ALARM);
	CHECK_EQ(twt_query(fd, id).clock, CLOCK_BOOTTIME_ALARM);
	CHECK_EQ(twt_timers(fd), 2);
	close(fd);
}


/* ---- CAP_WAKE_ALARM ---- */

/*
 * Set this task's effective and permitted capabilities to exactly @keep
 * (a bit mask of capability numbers < 64), inheritable none.
 */
static void caps_set(uint64_t keep)
{
	struct __user_cap_header_struct h = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct d[2];

	memset(d, 0, sizeof(d));
	d[0].effective = d[0].permitted = (uint32_t)keep;
	d[1].effective = d[1].permitted = (uint32_t)(keep >> 32);
	CHECK_OK(syscall(SYS_capset, &h, d));
}

/* This task's effective capabilities, as a mask. */
static uint64_t caps_get(void)
{
	struct __user_cap_header_struct h = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct d[2];

	memset(d, 0, sizeof(d));
	CHECK_OK(syscall(SYS_capget, &h, d));
	return d[0].effective | (uint64_t)d[1].effective << 32;
}

#define CAP(c)		(1ULL << (c))

/*
 * ADD on @clock as is: the errno of a failure (0: success), and the
 * struct checked untouched after a failure.
 */
static int add_errno(int fd, uint32_t clock, uint32_t flags, int64_t exp)
{
	struct twheel_add a, given;

	memset(&a, 0, sizeof(a));
	a.cookie = 7;
	a.expires_ns = exp;
	a.flags = flags;
	a.clock = clock;
	a.id = ID_UNTOUCHED;
	given = a;
	if (ioctl(fd, TWHEEL_IOC_ADD, &a) == 0) {
		CHECK(a.id && a.id != ID_UNTOUCHED);
		return 0;
	}
	CHECK(!memcmp(&a, &given, sizeof(a)));
	return errno;
}

/*
 * What a task without CAP_WAKE_ALARM gets on @fd (opened by root, which
 * holds the alarm timer @ra): EPERM for every add on an alarm clock,
 * single or batched, relative or absolute; everything else works.
 */
static void without_cap(int fd, uint64_t ra)
{
	struct twheel_op ops[3];
	uint64_t timers = twt_timers(fd);
	int64_t r = twt_now(CLOCK_REALTIME), b = twt_now(CLOCK_BOOTTIME);

	CHECK_EQ(add_errno(fd, CLOCK_REALTIME_ALARM, 0, TWT_S), EPERM);
	CHECK_EQ(add_errno(fd, CLOCK_BOOTTIME_ALARM, 0, TWT_S), EPERM);
	CHECK_EQ(add_errno(fd, CLOCK_REALTIME_ALARM, TWHEEL_ABSTIME,
			   r + 3600 * TWT_S), EPERM);
	CHECK_EQ(add_errno(fd, CLOCK_BOOTTIME_ALARM, TWHEEL_ABSTIME,
			   b + 3600 * TWT_S), EPERM);
	CHECK_EQ(twt_timers(fd), timers);

	/* A batch: the alarm adds fail alone, the plain one is done. */
	memset(ops, 0, sizeof(ops));
	ops[0].op = ops[1].op = ops[2].op = TWHEEL_OP_ADD;
	ops[0].clock = CLOCK_REALTIME_ALARM;
	ops[1].clock = CLOCK_BOOTTIME;
	ops[2].clock = CLOCK_BOOTTIME_ALARM;
	ops[0].expires_ns = ops[1].expires_ns = ops[2].expires_ns =
		3600 * TWT_S;
	ops[0].id = ops[1].id = ops[2].id = ID_UNTOUCHED;
	CHECK_EQ(twt_submit_raw(fd, ops, 3), 3);
	CHECK_EQ(ops[0].error, -EPERM);
	CHECK_EQ(ops[0].id, 0);
	CHECK_EQ(ops[1].error, 0);
	CHECK(ops[1].id && ops[1].id != ID_UNTOUCHED);
	CHECK_EQ(ops[2].error, -EPERM);
	CHECK_EQ(ops[2].id, 0);
	CHECK_EQ(twt_timers(fd), timers + 1);

	/* Querying and cancelling take no capability. */
	CHECK_EQ(twt_query(fd, ra).clock, CLOCK_REALTIME_ALARM);
	twt_cancel(fd, ra);
}

/* Run fn(arg) in a child process; fail unless it exits 0. */
static void in_child(void (*fn)(void *), void *arg)
{
	int status = 0;
	pid_t pid;

	fflush(stdout);
	pid = fork();
	CHECK(pid >= 0);
	if (pid == 0) {
		fn(arg);
		fflush(stdout);
		_exit(0);
	}
	CHECK_EQ(waitpid(pid, &status, 0), pid);
	CHECK(WIFEXITED(status));
	CHECK_EQ(WEXITSTATUS(status), 0);
}

struct cap_arg {
	int fd;		/* opened by root */
	uint64_t ra, bt, plain;
};

/* This task without CAP_WAKE_ALARM (and only without it), still root. */
static void drop_wake_alarm(void)
{
	caps_set(caps_get() & ~CAP(CAP_WAKE_ALARM));
	CHECK_EQ(getuid(), 0);
	CHECK(!(caps_get() & CAP(CAP_WAKE_ALARM)));
	CHECK(caps_get() & CAP(CAP_SYS_ADMIN));
}

/* Root without CAP_WAKE_ALARM (and only without it). */
static void root_minus_wake_alarm(void *p)
{
	struct cap_arg *a = p;
	int mfd;

	drop_wake_alarm();
	without_cap(a->fd, a->ra);

	/* Also on a manual fd, this task's own. */
	mfd = twt_open_manual(O_NONBLOCK, TWT_MS);
	CHECK_EQ(add_errno(mfd, CLOCK_BOOTTIME_ALARM, 0, TWT_S), EPERM);
	CHECK_EQ(add_errno(mfd, CLOCK_REALTIME_ALARM, 0, TWT_S), EPERM);
	CHECK_EQ(add_errno(mfd, CLOCK_BOOTTIME, 0, TWT_S), 0);
	CHECK_EQ(twt_timers(mfd), 1);
	close(mfd);
}

/* Nobody with CAP_WAKE_ALARM only: allowed, on its own fd. */
static void nobody_with_wake_alarm(void *p)
{
	int fd;

	(void)p;
	CHECK_OK(prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0));
	twt_become(NOBODY);
	caps_set(CAP(CAP_WAKE_ALARM));
	CHECK_EQ(caps_get(), CAP(CAP_WAKE_ALARM));
	fd = twt_open(O_NONBLOCK);
	CHECK_EQ(add_errno(fd, CLOCK_REALTIME_ALARM, 0, 3600 * TWT_S), 0);
	CHECK_EQ(add_errno(fd, CLOCK_BOOTTIME_ALARM, 0, 3600 * TWT_S), 0);
	CHECK_EQ(twt_timers(fd), 2);
	close(fd);
	fd = twt_open_manual(O_NONBLOCK, TWT_MS);
	CHECK_EQ(add_errno(fd, CLOCK_BOOTTIME_ALARM, 0, TWT_S), 0);
	close(fd);
}

/* Nobody without any capability: EPERM, on its own fd too. */
static void nobody_plain(void *p)
{
	int fd;

	(void)p;
	twt_become(NOBODY);
	CHECK_EQ(caps_get(), 0);
	fd = twt_open(O_NONBLOCK);
	CHECK_EQ(add_errno(fd, CLOCK_REALTIME_ALARM, 0, 3600 * TWT_S), EPERM);
	CHECK_EQ(add_errno(fd, CLOCK_BOOTTIME_ALARM, 0, 3600 * TWT_S), EPERM);
	CHECK_EQ(add_errno(fd, CLOCK_MONOTONIC, 0, 3600 * TWT_S), 0);
	CHECK_EQ(twt_timers(fd), 1);
	close(fd);
}

/*
 * CAP_WAKE_ALARM of the calling task decides, not who opened the fd nor
 * the uid: root has it and adds; root without it (only it) gets EPERM on
 * root's fd; nobody with only it adds; plain nobody gets EPERM.
 */
static void eperm_without_cap_wake_alarm(void)
{
	struct cap_arg a = { 0 };
	int mfd;

	a.fd = twt_open(O_NONBLOCK);
	twt_need_alarm(a.fd);
	CHECK(caps_get() & CAP(CAP_WAKE_ALARM));
	a.ra = twt_add(a.fd, 1, 3600 * TWT_S, 0, CLOCK_REALTIME_ALARM);
	a.bt = twt_add(a.fd, 2, 3600 * TWT_S, 0, CLOCK_BOOTTIME_ALARM);
	/* A manual fd takes the alarm clocks too. */
	mfd = twt_open_manual(O_NONBLOCK, TWT_MS);
	CHECK_EQ(add_errno(mfd, CLOCK_REALTIME_ALARM, 0, TWT_S), 0);
	CHECK_EQ(add_errno(mfd, CLOCK_BOOTTIME_ALARM, 0, TWT_S), 0);
	close(mfd);

	in_child(root_minus_wake_alarm, &a);
	/* The child cancelled ra and added one plain timer. */
	CHECK_EQ(twt_timers(a.fd), 2);
	in_child(nobody_with_wake_alarm, NULL);
	in_child(nobody_plain, NULL);
	close(a.fd);
}

/*
 * Without CAP_WAKE_ALARM: modifies of root's alarm timers work, single
 * and batched, and change the deadline (the timer stays on its clock).
 */
static void modify_without_cap(void *p)
{
	struct cap_arg *a = p;
	struct twheel_status st0, st;
	struct twheel_op op;
	uint32_t result = 0;

	drop_wake_alarm();
	st0 = twt_query(a->fd, a->bt);
	CHECK_OK(twt_modify_raw(a->fd, a->bt, 0, 7200 * TWT_S, 0, 0,
				&result));
	CHECK_EQ(result, TWHEEL_STATE_PENDING);
	st = twt_query(a->fd, a->bt);
	CHECK(st.deadline_ns > st0.deadline_ns + 3600 * TWT_S);
	CHECK_EQ(st.clock, CLOCK_BOOTTIME_ALARM);
	CHECK_EQ(st.state, TWHEEL_STATE_PENDING);
	st0 = twt_query(a->fd, a->ra);
	memset(&op, 0, sizeof(op));
	op.op = TWHEEL_OP_MODIFY;
	op.id = a->ra;
	op.expires_ns = 7200 * TWT_S;
	CHECK_EQ(twt_submit_raw(a->fd, &op, 1), 1);
	CHECK_EQ(op.error, 0);
	CHECK_EQ(op.result, TWHEEL_STATE_PENDING);
	st = twt_query(a->fd, a->ra);
	CHECK(st.deadline_ns > st0.deadline_ns + 3600 * TWT_S);
	CHECK_EQ(st.clock, CLOCK_REALTIME_ALARM);
	/* Still no add. */
	CHECK_EQ(add_errno(a->fd, CLOCK_BOOTTIME_ALARM, 0, TWT_S), EPERM);
	/* A plain timer is modified as ever. */
	twt_modify(a->fd, a->plain, 7200 * TWT_S, 0, 0);
	CHECK_EQ(twt_timers(a->fd), 3);
}

/*
 * Only adding a timer on an alarm clock needs CAP_WAKE_ALARM
 * (uapi/linux/twheel.h, "Clocks", as timerfd_create(2)): root adds and
 * modifies its alarm timers; the same task without the capability still
 * modifies them, single or batched.
 */
static void modify_alarm_without_cap(void)
{
	struct cap_arg a = { 0 };

	a.fd = twt_open(O_NONBLOCK);
	twt_need_alarm(a.fd);
	a.ra = twt_add(a.fd, 1, 3600 * TWT_S, 0, CLOCK_REALTIME_ALARM);
	a.bt = twt_add(a.fd, 2, 3600 * TWT_S, 0, CLOCK_BOOTTIME_ALARM);
	a.plain = twt_add(a.fd, 3, 3600 * TWT_S, 0, CLOCK_BOOTTIME);
	twt_modify(a.fd, a.bt, 3000 * TWT_S, 0, 0);
	twt_modify(a.fd, a.ra, 3000 * TWT_S, 0, 0);
	in_child(modify_without_cap, &a);
	close(a.fd);
}

TWT_MAIN("alarm_caps",
	 TWT_CASE(alarm_clocks_in_info),
	 TWT_CASE(eperm_without_cap_wake_alarm),
	 TWT_CASE(modify_alarm_without_cap))
