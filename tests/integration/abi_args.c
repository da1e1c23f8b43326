// SPDX-License-Identifier: GPL-2.0
/*
 * abi_args: the other ioctls' own checks of their arguments, beyond the
 * table's (abi_cmd): CANCEL's flags on a pending and a queued timer;
 * LIST's capacity, status_size and array; SUBMIT's op_size, nr (first)
 * and array, and inside a batch an operation that is unknown, has flags
 * it does not take or a non-zero __reserved (that operation alone
 * fails); CONFIG's tick range; ADVANCE without the manual clock; one
 * fd's timers are unknown to another (ENOENT).
 */
#include "abi.h"

static void cancel_bad_flags(void)
{
	int fd = twt_open(O_NONBLOCK);
	uint64_t id = twt_add_rel(fd, 1, 3600 * TWT_S);
	uint64_t qid = twt_add_abs(fd, 2, 0, CLOCK_MONOTONIC);
	uint32_t bad[] = { 1, 2, 1U << 31, 0xFFFFFFFF };
	uint32_t result;
	unsigned int k;

	for (k = 0; k < sizeof(bad) / sizeof(bad[0]); k++) {
		CHECK_ERR(twt_cancel_raw(fd, id, bad[k], &result), EINVAL);
		CHECK_ERR(twt_cancel_raw(fd, qid, bad[k], &result), EINVAL);
	}
	CHECK_EQ(twt_timers(fd), 2);
	CHECK_EQ(twt_queued(fd), 1);
	CHECK_EQ(twt_cancel(fd, id), TWHEEL_STATE_PENDING);
	CHECK_EQ(twt_cancel(fd, qid), TWHEEL_STATE_QUEUED);
	CHECK_UNTOUCHED(fd, 0);
	close(fd);
}

/* TWHEEL_IOC_LIST's own checks: capacity, status_size, the array. */
static void list_bad_args(void)
{
	int fd = twt_open(O_NONBLOCK);
	struct twheel_status st[2];
	uint32_t sizes[] = { 0, 1, 40, 48, 55, 57, 64, 112, 0xFFFFFFFF };
	struct twheel_list l;
	unsigned int k;

	twt_add_rel(fd, 1, 3600 * TWT_S);
	memset(&l, 0, sizeof(l));
	l.statuses = (uint64_t)(uintptr_t)st;
	l.capacity = 0;
	l.status_size = sizeof(st[0]);
	CHECK_ERR(ioctl(fd, TWHEEL_IOC_LIST, &l), EINVAL);
	for (k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
		l.capacity = 2;
		l.status_size = sizes[k];
		CHECK_ERR(ioctl(fd, TWHEEL_IOC_LIST, &l), EINVAL);
	}
	/* An array that cannot be written: EFAULT. */
	l.status_size = sizeof(st[0]);
	l.statuses = 0;
	CHECK_ERR(ioctl(fd, TWHEEL_IOC_LIST, &l), EFAULT);
	l.statuses = (uint64_t)(uintptr_t)(twt_guard_map(4096) - 8);
	CHECK_ERR(ioctl(fd, TWHEEL_IOC_LIST, &l), EFAULT);
	/* And a good one. */
	l.statuses = (uint64_t)(uintptr_t)st;
	l.cursor = 0;
	CHECK_EQ(ioctl(fd, TWHEEL_IOC_LIST, &l), 0);
	CHECK(l.count <= 1);
	CHECK_UNTOUCHED(fd, 1);
	close(fd);
}

/*
 * TWHEEL_IOC_SUBMIT's own checks: op_size, nr (checked first), the ops
 * array. A bad struct twheel_submit does no operation.
 */
static void submit_bad_args(void)
{
	int fd = twt_open(O_NONBLOCK);
	static struct twheel_op ops[TWHEEL_MAX_BATCH + 1];
	uint32_t sizes[] = { 0, 1, 40, 64, 71, 73, 80, 144, 0xFFFFFFFF };
	uint32_t nrs[] = { TWHEEL_MAX_BATCH + 1, 2 * TWHEEL_MAX_BATCH,
			   0x80000000U, 0xFFFFFFFF };
	struct twheel_submit s;
	unsigned int k;

	for (k = 0; k <= TWHEEL_MAX_BATCH; k++) {
		ops[k].op = TWHEEL_OP_ADD;
		ops[k].cookie = k;
		ops[k].expires_ns = 3600 * TWT_S;
		ops[k].clock = CLOCK_MONOTONIC;
		ops[k].error = OP_JUNK;
	}
	memset(&s, 0, sizeof(s));
	s.ops = (uint64_t)(uintptr_t)ops;
	s.nr = 1;
	for (k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
		s.op_size = sizes[k];
		CHECK_ERR(ioctl(fd, TWHEEL_IOC_SUBMIT, &s), EINVAL);
	}
	s.op_size = sizeof(ops[0]);
	for (k = 0; k < sizeof(nrs) / sizeof(nrs[0]); k++) {
		s.nr = nrs[k];
		s.ops = (uint64_t)(uintptr_t)ops;
		CHECK_ERR(ioctl(fd, TWHEEL_IOC_SUBMIT, &s), EINVAL);
		/* nr is checked first: before the array and op_size. */
		s.ops = 0;
		CHECK_ERR(ioctl(fd, TWHEEL_IOC_SUBMIT, &s), EINVAL);
		s.op_size = 1;
		CHECK_ERR(ioctl(fd, TWHEEL_IOC_SUBMIT, &s), EINVAL);
		s.op_size = sizeof(ops[0]);
	}
	CHECK_EQ(ops[0].error, OP_JUNK);
	CHECK_EQ(ops[TWHEEL_MAX_BATCH].error, OP_JUNK);
	CHECK_UNTOUCHED(fd, 0);
	/* An empty batch does nothing, whatever the pointer. */
	s.nr = 0;
	s.ops = 0;
	CHECK_EQ(ioctl(fd, TWHEEL_IOC_SUBMIT, &s), 0);
	s.ops = (uint64_t)(uintptr_t)ops;
	CHECK_EQ(ioctl(fd, TWHEEL_IOC_SUBMIT, &s), 0);
	CHECK_EQ(ops[0].error, OP_JUNK);
	/* A first operation that cannot be read: -1, EFAULT. */
	s.nr = 1;
	s.ops = 0;
	CHECK_ERR(ioctl(fd, TWHEEL_IOC_SUBMIT, &s), EFAULT);
	s.ops = (uint64_t)(uintptr_t)(twt_guard_map(4096) - 8);
	CHECK_ERR(ioctl(fd, TWHEEL_IOC_SUBMIT, &s), EFAULT);
	CHECK_UNTOUCHED(fd, 0);
	close(fd);
}

/*
 * Inside a batch, an unknown operation, flags an operation does not take
 * and a non-zero __reserved fail that operation alone with -EINVAL (its
 * outputs 0); the batch goes on.
 */
static void submit_bad_ops(void)
{
	int fd = twt_open(O_NONBLOCK);
	uint64_t id = twt_add_rel(fd, 1, 3600 * TWT_S);
	struct {
		uint32_t op, flags, clock, rsv;
		int ok;
	} t[] = {
		{ TWHEEL_OP_ADD, 0, CLOCK_MONOTONIC, 0, 1 },
		{ 0, 0, CLOCK_MONOTONIC, 0, 0 },
		{ 5, 0, CLOCK_MONOTONIC, 0, 0 },
		{ 0xFFFFFFFF, 0, CLOCK_MONOTONIC, 0, 0 },
		{ TWHEEL_OP_ADD, TWHEEL_SET_COOKIE, CLOCK_MONOTONIC, 0, 0 },
		{ TWHEEL_OP_ADD, 4, CLOCK_MONOTONIC, 0, 0 },
		{ TWHEEL_OP_ADD, 0, CLOCK_MONOTONIC, 1, 0 },
		{ TWHEEL_OP_ADD, 0, CLOCK_PROCESS_CPUTIME_ID, 0, 0 },
		{ TWHEEL_OP_ADD, 0, 0xFFFFFFFF, 0, 0 },
		{ TWHEEL_OP_MODIFY, 4, 0, 0, 0 },
		{ TWHEEL_OP_MODIFY, 1U << 31, 0, 0, 0 },
		{ TWHEEL_OP_MODIFY, TWHEEL_SET_COOKIE, 0, 0x80000000U, 0 },
		{ TWHEEL_OP_CANCEL, TWHEEL_ABSTIME, 0, 0, 0 },
		{ TWHEEL_OP_CANCEL, 0, 0, 1, 0 },
		{ TWHEEL_OP_QUERY, TWHEEL_ABSTIME, 0, 0, 0 },
		{ TWHEEL_OP_QUERY, TWHEEL_SET_COOKIE, 0, 0, 0 },
		{ TWHEEL_OP_QUERY, 0, 0, 0xFFFFFFFF, 0 },
		{ TWHEEL_OP_QUERY, 0, 0, 0, 1 },
		{ TWHEEL_OP_ADD, 0, CLOCK_TAI, 0, 1 },
	};
	const unsigned int n = sizeof(t) / sizeof(t[0]);
	struct twheel_op ops[sizeof(t) / sizeof(t[0])];
	struct twheel_status st;
	unsigned int k, added = 0;

	memset(ops, 0, sizeof(ops));
	for (k = 0; k < n; k++) {
		ops[k].op = t[k].op;
		ops[k].flags = t[k].flags;
		ops[k].clock = t[k].clock;
		ops[k].__reserved = t[k].rsv;
		ops[k].cookie = 1000 + k;
		ops[k].expires_ns = 7200 * TWT_S;
		ops[k].error = OP_JUNK;
		ops[k].result = JUNK32;
		ops[k].count = JUNK64;
		ops[k].remaining_ns = (int64_t)JUNK64;
		if (t[k].op != TWHEEL_OP_ADD)
			ops[k].id = id;
	}
	CHECK_EQ(twt_submit_raw(fd, ops, n), n);
	for (k = 0; k < n; k++) {
		printf("# op %u (%u, flags %#x, reserved %#x): error %d\n", k,
		       t[k].op, t[k].flags, t[k].rsv, ops[k].error);
		CHECK_EQ(ops[k].op, t[k].op);
		CHECK_EQ(ops[k].flags, t[k].flags);
		CHECK_EQ(ops[k].__reserved, t[k].rsv);
		if (t[k].ok) {
			CHECK_EQ(ops[k].error, 0);
			added += t[k].op == TWHEEL_OP_ADD;
			continue;
		}
		CHECK_EQ(ops[k].error, -EINVAL);
		CHECK_EQ(ops[k].result, 0);
		CHECK_EQ(ops[k].count, 0);
		CHECK_EQ(ops[k].remaining_ns, 0);
		if (t[k].op == TWHEEL_OP_ADD)
			CHECK_EQ(ops[k].id, 0);
	}
	/* The QUERY that worked saw the timer as it was. */
	CHECK_EQ(ops[n - 2].result, TWHEEL_STATE_PENDING);
	CHECK_EQ(ops[n - 2].cookie, 1);
	st = twt_query(fd, id);
	CHECK_EQ(st.cookie, 1);
	CHECK(st.remaining_ns <= 3600 * TWT_S + TICK);
	CHECK_EQ(added, 2);
	CHECK_UNTOUCHED(fd, 1 + added);
	close(fd);
}

/* TWHEEL_IOC_CONFIG's tick range: 1 us .. 1 s, else EINVAL. */
static void config_bad_tick(void)
{
	int fd = twt_open(O_NONBLOCK);
	uint64_t bad[] = { 0, 1, TWHEEL_MIN_TICK_NS - 1,
			   TWHEEL_MAX_TICK_NS + 1, 2 * TWHEEL_MAX_TICK_NS,
			   1ULL << 63, UINT64_MAX };
	unsigned int k, f;

	for (k = 0; k < sizeof(bad) / sizeof(bad[0]); k++)
		for (f = 0; f < 2; f++) {
			CHECK_ERR(twt_config_raw(fd, bad[k],
						 f ? TWHEEL_CONFIG_MANUAL : 0),
				  EINVAL);
			CHECK_EQ(twt_info(fd).tick_ns, TWHEEL_DEFAULT_TICK_NS);
			CHECK_EQ(twt_info(fd).config_flags, 0);
		}
	twt_config(fd, TWHEEL_MIN_TICK_NS, 0);
	CHECK_EQ(twt_info(fd).tick_ns, TWHEEL_MIN_TICK_NS);
	twt_config(fd, TWHEEL_MAX_TICK_NS, 0);
	CHECK_EQ(twt_info(fd).tick_ns, TWHEEL_MAX_TICK_NS);
	CHECK_ERR(twt_config_raw(fd, 0, 0), EINVAL);
	CHECK_EQ(twt_info(fd).tick_ns, TWHEEL_MAX_TICK_NS);
	CHECK_UNTOUCHED(fd, 0);
	close(fd);
}

/* TWHEEL_IOC_ADVANCE on an fd without the manual clock: EINVAL. */
static void advance_not_manual(void)
{
	int fd = twt_open(O_NONBLOCK);
	uint64_t id = twt_add_rel(fd, 1, 3600 * TWT_S);
	uint64_t deltas[] = { 0, 1, 3600 * TWT_S, 7200 * TWT_S, UINT64_MAX };
	unsigned int k;
	int64_t now;

	for (k = 0; k < sizeof(deltas) / sizeof(deltas[0]); k++)
		CHECK_ERR(twt_advance_raw(fd, deltas[k], &now), EINVAL);
	CHECK_EQ(twt_query(fd, id).state, TWHEEL_STATE_PENDING);
	CHECK_UNTOUCHED(fd, 1);
	close(fd);
}

/* Timers on one fd are invisible to another. */
static void fds_independent(void)
{
	int a = twt_open(O_NONBLOCK), b = twt_open(O_NONBLOCK);
	uint64_t ida, idq;
	uint32_t r;

	ida = twt_add_rel(a, 1, 3600 * TWT_S);
	idq = twt_add_abs(a, 2, 0, CLOCK_MONOTONIC);
	CHECK_UNTOUCHED(b, 0);
	CHECK_ERR(twt_query_raw(b, ida, NULL), ENOENT);
	CHECK_ERR(twt_modify_raw(b, idq, 0, 0, 0, 0, &r), ENOENT);
	CHECK_EQ(twt_timers(a), 2);
	CHECK_EQ(twt_queued(a), 1);
	close(a);
	CHECK_UNTOUCHED(b, 0);
	close(b);
}

TWT_MAIN("abi_args",
	 TWT_CASE(cancel_bad_flags),
	 TWT_CASE(list_bad_args),
	 TWT_CASE(submit_bad_args),
	 TWT_CASE(submit_bad_ops),
	 TWT_CASE(config_bad_tick),
	 TWT_CASE(advance_not_manual),
	 TWT_CASE(fds_independent))
