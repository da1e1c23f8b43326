// SPDX-License-Identifier: GPL-2.0
/*
 * abi_add: TWHEEL_IOC_ADD's own rules for its arguments, beyond the
 * table's (abi_cmd): the flags a one-shot or periodic timer takes, the
 * six clockids (any other EINVAL, also on a manual fd), version 1's
 * clock numbers, TWHEEL_CANCEL_ON_SET (absolute on a wall clock only;
 * also MODIFY's and a batch's), the alarm clocks without CAP_WAKE_ALARM
 * (EPERM), relative deadlines on the wall clocks (taken) and negative
 * relative deadlines (EINVAL).
 */
#include "abi.h"

/* The two alarm clocks (they need CAP_WAKE_ALARM). */
#define NALARMS		2
static const clockid_t alarm_clocks[NALARMS] = {
	CLOCK_REALTIME_ALARM, CLOCK_BOOTTIME_ALARM
};
/* An unprivileged uid (nobody) for the cases that drop root. */
#define NOBODY		65534

static void add_bad_flags(void)
{
	int fd = twt_open(O_NONBLOCK);
	/*
	 * (TWHEEL_MISSED_* are flags of periodic timers: missed.c. 0x10,
	 * TWHEEL_CANCEL_ON_SET, is EINVAL on these relative timers, and on a
	 * monotonic one also absolute: add_cancel_on_set.)
	 */
	uint32_t bad[] = { 2, 0x10, 0x20, 1U << 31, 0xFFFFFFFF,
			   TWHEEL_ABSTIME | 2, TWHEEL_SET_COOKIE,
			   ~TWHEEL_ABSTIME };
	unsigned int k;

	for (k = 0; k < sizeof(bad) / sizeof(bad[0]); k++) {
		CHECK_ERR(twt_add_raw(fd, k, 0, bad[k], CLOCK_MONOTONIC,
				      NULL), EINVAL);
		CHECK_ERR(twt_add_raw(fd, k, TWT_MS, bad[k],
				      CLOCK_MONOTONIC, NULL), EINVAL);
		CHECK_ERR(twt_addp_raw(fd, k, 0, TWT_MS, bad[k],
				       CLOCK_REALTIME, NULL), EINVAL);
	}
	CHECK_UNTOUCHED(fd, 0);
	close(fd);
}

/*
 * Any clockid but the six is EINVAL, relative or absolute, one-shot or
 * periodic, also on a manual fd (which takes any of the six). The test
 * runs as root: the alarm clocks are taken too (add_alarm_unprivileged
 * without CAP_WAKE_ALARM).
 */
static void add_bad_clock(void)
{
	uint32_t bad[] = {
		CLOCK_PROCESS_CPUTIME_ID, CLOCK_THREAD_CPUTIME_ID,
		CLOCK_MONOTONIC_RAW, CLOCK_REALTIME_COARSE,
		CLOCK_MONOTONIC_COARSE, 10, 12, 13, 16, 31, 32, 63, 64,
		(uint32_t)-1, 0x80000000U, 0x7FFFFFFFU, 0x80000001U,
		8 + 32, 9 + 64, 0x100 | 8,
	};
	int manual;
	unsigned int k;

	_Static_assert(CLOCK_PROCESS_CPUTIME_ID == 2 &&
		       CLOCK_THREAD_CPUTIME_ID == 3 &&
		       CLOCK_MONOTONIC_RAW == 4 && CLOCK_REALTIME_COARSE == 5 &&
		       CLOCK_MONOTONIC_COARSE == 6 &&
		       CLOCK_REALTIME_ALARM == 8 && CLOCK_BOOTTIME_ALARM == 9,
		       "clockids");
	for (manual = 0; manual < 2; manual++) {
		int fd = manual ? twt_open_manual(O_NONBLOCK,
						  TWHEEL_DEFAULT_TICK_NS) :
				  twt_open(O_NONBLOCK);

		for (k = 0; k < sizeof(bad) / sizeof(bad[0]); k++) {
			CHECK_ERR(twt_add_raw(fd, k, 0, 0, bad[k], NULL),
				  EINVAL);
			CHECK_ERR(twt_add_raw(fd, k, TWT_MS, 0, bad[k], NULL),
				  EINVAL);
			CHECK_ERR(twt_add_raw(fd, k, 0, TWHEEL_ABSTIME, bad[k],
					      NULL), EINVAL);
			CHECK_ERR(twt_add_raw(fd, k, INT64_MAX, TWHEEL_ABSTIME,
					      bad[k], NULL), EINVAL);
			CHECK_ERR(twt_addp_raw(fd, k, TWT_S, TWT_S, 0, bad[k],
					       NULL), EINVAL);
		}
		CHECK_UNTOUCHED(fd, 0);
		/* The six are taken. */
		for (k = 0; k < TWT_NCLOCKS; k++)
			twt_add(fd, k, 3600 * TWT_S, 0, twt_clock(k));
		for (k = 0; k < NALARMS; k++)
			twt_add(fd, 10 + k, 3600 * TWT_S, 0, alarm_clocks[k]);
		CHECK_UNTOUCHED(fd, TWT_NCLOCKS + NALARMS);
		close(fd);
	}
}

/*
 * Version 1's clock numbers 0, 1, 2 are clockids now: 0 is
 * CLOCK_REALTIME, 1 is CLOCK_MONOTONIC, 2 (CLOCK_PROCESS_CPUTIME_ID) is
 * EINVAL. A record's clock and time say which clock a timer ran on.
 */
static void v1_clock_numbers(void)
{
	int fd = twt_open(O_NONBLOCK);
	int64_t tick = (int64_t)TWHEEL_DEFAULT_TICK_NS;
	unsigned int c, abs;

	printf("# realtime - monotonic: %.3f s\n",
	       (twt_now(CLOCK_REALTIME) - twt_mono()) / 1e9);
	for (c = 0; c < 2; c++)
		for (abs = 0; abs < 2; abs++) {
			struct twheel_event ev;
			int64_t t0, t1;
			uint64_t id;

			t0 = twt_now(c);
			id = twt_add(fd, c, 0, abs ? TWHEEL_ABSTIME : 0, c);
			t1 = twt_now(c);
			CHECK_EQ(read(fd, &ev, sizeof(ev)), sizeof(ev));
			CHECK_EQ(ev.id, id);
			CHECK_EQ(ev.clock, c);
			CHECK(ev.time_ns >= t0 - tick && ev.time_ns <= t1);
		}
	CHECK_ERR(twt_add_raw(fd, 2, 0, 0, 2, NULL), EINVAL);
	CHECK_ERR(twt_add_raw(fd, 2, 0, TWHEEL_ABSTIME, 2, NULL), EINVAL);
	CHECK_ERR(twt_add_raw(fd, 2, 3600 * TWT_S, 0, 2, NULL), EINVAL);
	CHECK_UNTOUCHED(fd, 0);
	close(fd);
}

/*
 * TWHEEL_CANCEL_ON_SET is taken only with TWHEEL_ABSTIME on
 * CLOCK_REALTIME, CLOCK_TAI or CLOCK_REALTIME_ALARM: on every other clock,
 * and relative on any clock, one-shot or periodic, ADD, MODIFY and a
 * batch's ADD and MODIFY fail with EINVAL and change nothing (the timer a
 * modify names keeps its deadline). Also on a manual fd, which takes any
 * of the six clocks. A timer added with it is a timer as any other.
 */
static void add_cancel_on_set(void)
{
	const uint32_t cos = TWHEEL_CANCEL_ON_SET;
	clockid_t all[TWT_NCLOCKS + NALARMS];
	int manual;
	unsigned int k;

	for (k = 0; k < TWT_NCLOCKS; k++)
		all[k] = twt_clock(k);
	for (k = 0; k < NALARMS; k++)
		all[TWT_NCLOCKS + k] = alarm_clocks[k];
	for (manual = 0; manual < 2; manual++) {
		int fd = manual ? twt_open_manual(O_NONBLOCK,
						  TWHEEL_DEFAULT_TICK_NS) :
				  twt_open(O_NONBLOCK);
		/*
		 * Far in the future on every clock (the manual one at 0), on
		 * the tick: a one-shot timer's deadline reads back as given.
		 */
		int64_t far = (twt_now(CLOCK_REALTIME) / TWT_S + 3600) * TWT_S;
		uint64_t ids[TWT_NCLOCKS + NALARMS], mono, wall;
		unsigned int n = 0;
		struct twheel_status st;
		struct twheel_op ops[3];
		uint32_t res;

		for (k = 0; k < TWT_NCLOCKS + NALARMS; k++) {
			clockid_t c = all[k];
			int wallc = c == CLOCK_REALTIME || c == CLOCK_TAI ||
				    c == CLOCK_REALTIME_ALARM;

			printf("# manual %d clock %d\n", manual, (int)c);
			CHECK_ERR(twt_add_raw(fd, k, TWT_S, cos, c, NULL),
				  EINVAL);
			CHECK_ERR(twt_add_raw(fd, k, 0, cos, c, NULL), EINVAL);
			CHECK_ERR(twt_addp_raw(fd, k, TWT_S, TWT_S, cos, c,
					       NULL), EINVAL);
			if (!wallc) {
				CHECK_ERR(twt_add_raw(fd, k, far,
						      TWHEEL_ABSTIME | cos, c,
						      NULL), EINVAL);
				CHECK_ERR(twt_addp_raw(fd, k, far, TWT_S,
						       TWHEEL_ABSTIME | cos,
						       c, NULL), EINVAL);
				continue;
			}
			CHECK_EQ(twt_add_raw(fd, 100 + k, far,
					     TWHEEL_ABSTIME | cos, c,
					     &ids[n]), 0);
			st = twt_query(fd, ids[n]);
			CHECK_EQ(st.state, TWHEEL_STATE_PENDING);
			CHECK_EQ(st.clock, (uint32_t)c);
			CHECK_EQ(st.cookie, 100 + k);
			n++;
			/* Periodic too. */
			CHECK_EQ(twt_addp_raw(fd, 200 + k, far, TWT_S,
					      TWHEEL_ABSTIME | cos, c,
					      &ids[n]), 0);
			CHECK_EQ(twt_cancel(fd, ids[n]),
				 TWHEEL_STATE_PENDING);
		}
		CHECK_EQ(n, 3);
		CHECK_UNTOUCHED_NOW(fd, 3);

		/* MODIFY: the flag by the timer's own clock. */
		mono = twt_add_abs(fd, 7, far, CLOCK_MONOTONIC);
		wall = twt_add_abs(fd, 8, far, CLOCK_REALTIME);
		CHECK_ERR(twt_modify_raw(fd, mono, 0, far + TWT_S, 0,
					 TWHEEL_ABSTIME | cos, NULL), EINVAL);
		CHECK_ERR(twt_modify_raw(fd, wall, 0, TWT_S, 0, cos, NULL),
			  EINVAL);
		CHECK_ERR(twt_modify_raw(fd, wall, 9, far + TWT_S, 0,
					 TWHEEL_ABSTIME | TWHEEL_SET_COOKIE |
					 cos | 0x20, NULL), EINVAL);
		st = twt_query(fd, mono);
		CHECK_EQ(st.deadline_ns, far);
		st = twt_query(fd, wall);
		CHECK_EQ(st.deadline_ns, far);
		CHECK_EQ(st.cookie, 8);
		CHECK_EQ(twt_modify_raw(fd, wall, 9, far + TWT_S, 0,
					TWHEEL_ABSTIME | TWHEEL_SET_COOKIE |
					cos, &res), 0);
		CHECK_EQ(res, TWHEEL_STATE_PENDING);
		st = twt_query(fd, wall);
		CHECK_EQ(st.deadline_ns, far + TWT_S);
		CHECK_EQ(st.cookie, 9);
		/* And taken away again. */
		CHECK_EQ(twt_modify_raw(fd, wall, 0, far, 0, TWHEEL_ABSTIME,
					&res), 0);

		/* A batch: each operation alone. */
		memset(ops, 0, sizeof(ops));
		ops[0].op = TWHEEL_OP_ADD;
		ops[0].flags = TWHEEL_ABSTIME | cos;
		ops[0].clock = CLOCK_BOOTTIME;
		ops[0].expires_ns = far;
		ops[1].op = TWHEEL_OP_ADD;
		ops[1].flags = TWHEEL_ABSTIME | cos;
		ops[1].clock = CLOCK_TAI;
		ops[1].expires_ns = far;
		ops[2].op = TWHEEL_OP_MODIFY;
		ops[2].flags = TWHEEL_ABSTIME | cos;
		ops[2].id = mono;
		ops[2].expires_ns = far;
		CHECK_EQ(twt_submit_raw(fd, ops, 3), 3);
		CHECK_EQ(ops[0].error, -EINVAL);
		CHECK_EQ(ops[0].id, 0);
		CHECK_EQ(ops[1].error, 0);
		CHECK(ops[1].id != 0);
		CHECK_EQ(ops[2].error, -EINVAL);
		CHECK_UNTOUCHED_NOW(fd, 6);
		close(fd);
	}
}

/*
 * Without CAP_WAKE_ALARM (an unprivileged user), adding a timer on an
 * alarm clock is EPERM, relative or absolute, one-shot or periodic, also
 * on a manual fd and in a batch; nothing is added. A bad argument is
 * EINVAL first (an unknown flag, TWHEEL_CANCEL_ON_SET relative). The
 * other clocks are the user's to use.
 */
static void add_alarm_unprivileged(void)
{
	pid_t pid = fork();
	int status;

	CHECK(pid >= 0);
	if (!pid) {
		int manual;
		unsigned int k;

		twt_become(NOBODY);
		for (manual = 0; manual < 2; manual++) {
			int fd = manual ?
				twt_open_manual(O_NONBLOCK,
						TWHEEL_DEFAULT_TICK_NS) :
				twt_open(O_NONBLOCK);
			int64_t far = twt_now(CLOCK_REALTIME) + 3600 * TWT_S;
			struct twheel_op op;

			for (k = 0; k < NALARMS; k++) {
				clockid_t c = alarm_clocks[k];

				CHECK_ERR(twt_add_raw(fd, k, TWT_S, 0, c,
						      NULL), EPERM);
				CHECK_ERR(twt_add_raw(fd, k, far,
						      TWHEEL_ABSTIME, c, NULL),
					  EPERM);
				CHECK_ERR(twt_addp_raw(fd, k, TWT_S, TWT_S, 0,
						       c, NULL), EPERM);
				CHECK_ERR(twt_add_raw(fd, k, TWT_S, 0x20, c,
						      NULL), EINVAL);
				CHECK_ERR(twt_add_raw(fd, k, TWT_S,
						      TWHEEL_CANCEL_ON_SET, c,
						      NULL), EINVAL);
				memset(&op, 0, sizeof(op));
				op.op = TWHEEL_OP_ADD;
				op.clock = c;
				op.expires_ns = TWT_S;
				CHECK_EQ(twt_submit_raw(fd, &op, 1), 1);
				CHECK_EQ(op.error, -EPERM);
				CHECK_EQ(op.id, 0);
			}
			CHECK_UNTOUCHED_NOW(fd, 0);
			for (k = 0; k < TWT_NCLOCKS; k++)
				twt_add(fd, k, 3600 * TWT_S, 0, twt_clock(k));
			CHECK_UNTOUCHED_NOW(fd, TWT_NCLOCKS);
			close(fd);
		}
		_exit(0);
	}
	CHECK_EQ(waitpid(pid, &status, 0), pid);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

/*
 * Relative CLOCK_REALTIME and CLOCK_TAI deadlines are taken (version 1
 * refused relative REALTIME): 0 is due at once; later ones are pending
 * on that clock, their deadline an absolute time of it; a huge one
 * saturates. (expiry.c checks that they follow the wall clock.)
 */
static void add_wall_relative(void)
{
	clockid_t clocks[] = { CLOCK_REALTIME, CLOCK_TAI };
	int fd = twt_open(O_NONBLOCK);
	int64_t tick = (int64_t)TWHEEL_DEFAULT_TICK_NS;
	unsigned int k;

	for (k = 0; k < 2; k++) {
		clockid_t c = clocks[k];
		struct twheel_status st;
		struct twheel_event ev;
		int64_t t0, t1;
		uint64_t id;

		t0 = twt_now(c);
		id = twt_add(fd, 10 + k, 0, 0, c);
		t1 = twt_now(c);
		CHECK_EQ(read(fd, &ev, sizeof(ev)), sizeof(ev));
		CHECK_EQ(ev.id, id);
		CHECK_EQ(ev.clock, c);
		CHECK(ev.time_ns >= t0 - tick && ev.time_ns <= t1);

		t0 = twt_now(c);
		id = twt_add(fd, 20 + k, 3600 * TWT_S, 0, c);
		t1 = twt_now(c);
		st = twt_query(fd, id);
		CHECK_EQ(st.clock, c);
		CHECK_EQ(st.state, TWHEEL_STATE_PENDING);
		CHECK(st.deadline_ns >= t0 + 3600 * TWT_S);
		CHECK(st.deadline_ns <= t1 + 3600 * TWT_S + tick);
		CHECK(st.remaining_ns > 3500 * TWT_S &&
		      st.remaining_ns <= 3600 * TWT_S + tick);

		id = twt_add(fd, 30 + k, INT64_MAX, 0, c);
		st = twt_query(fd, id);
		printf("# %s: relative INT64_MAX: deadline %lld\n",
		       twt_clockname(c), (long long)st.deadline_ns);
		CHECK(st.deadline_ns > t1 + 100LL * 365 * 24 * 3600 * TWT_S);
		CHECK_EQ(st.state, TWHEEL_STATE_PENDING);
	}
	CHECK_UNTOUCHED(fd, 4);
	close(fd);
}

static void add_negative_relative(void)
{
	int fd = twt_open(O_NONBLOCK);
	int64_t rel[] = { -1, -TWT_MS, -3600 * TWT_S, INT64_MIN, INT64_MIN + 1 };
	unsigned int k, c;

	for (c = 0; c < TWT_NCLOCKS; c++)
		for (k = 0; k < sizeof(rel) / sizeof(rel[0]); k++) {
			CHECK_ERR(twt_add_raw(fd, k, rel[k], 0, twt_clock(c),
					      NULL), EINVAL);
			CHECK_ERR(twt_addp_raw(fd, k, rel[k], TWT_S, 0,
					       twt_clock(c), NULL), EINVAL);
		}
	CHECK_UNTOUCHED(fd, 0);
	close(fd);
}

TWT_MAIN("abi_add",
	 TWT_CASE(add_bad_flags),
	 TWT_CASE(add_bad_clock),
	 TWT_CASE(add_cancel_on_set),
	 TWT_CASE(add_alarm_unprivileged),
	 TWT_CASE(v1_clock_numbers),
	 TWT_CASE(add_wall_relative),
	 TWT_CASE(add_negative_relative))
