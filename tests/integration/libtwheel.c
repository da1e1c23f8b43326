// SPDX-License-Identifier: GPL-2.0
/*
 * libtwheel: the C library (userspace/lib/libtwheel.c) against the module,
 * its wrappers of the ioctls and of read(2) (its helpers:
 * libtwheel_helpers.c; its shared timer table: libtwheel_table.c).
 * Every wrapper of libtwheel.h is called with exact expected values on a
 * manual-clock fd (no timing dependence): its return value, what it wrote
 * back, and the kernel's errno passed through unchanged on failure.
 */
#include "libtwheel_test.h"

#define PARAM_MAX	"/sys/module/twheel/parameters/max_timers"

/* twheel_open(): flags, the handshake, and what twheel_info() reports. */
static void open_handshake(void)
{
	const uint64_t clocks = (1ULL << CLOCK_REALTIME) |
		(1ULL << CLOCK_MONOTONIC) | (1ULL << CLOCK_BOOTTIME) |
		(1ULL << CLOCK_TAI) | (1ULL << CLOCK_REALTIME_ALARM) |
		(1ULL << CLOCK_BOOTTIME_ALARM);
	long long param = twt_sysfs_read(PARAM_MAX);
	struct twheel_info info;
	int fd, fl;

	fd = twheel_open(O_CLOEXEC);
	CHECK(fd >= 0);
	CHECK(fcntl(fd, F_GETFD) & FD_CLOEXEC);
	fl = fcntl(fd, F_GETFL);
	CHECK_EQ(fl & O_ACCMODE, O_RDWR);
	CHECK_EQ(fl & O_NONBLOCK, 0);

	memset(&info, 0xAA, sizeof(info));
	CHECK_EQ(twheel_info(fd, &info), 0);
	CHECK_EQ(info.version, TWHEEL_ABI_VERSION);
	CHECK_EQ(info.event_size, sizeof(struct twheel_event));
	CHECK_EQ(info.tick_ns, TWHEEL_DEFAULT_TICK_NS);
	CHECK(param > 0);
	CHECK_EQ(info.max_timers, param);
	CHECK_EQ(info.timers, 0);
	CHECK_EQ(info.queued, 0);
	CHECK_EQ(info.features & (TWHEEL_FEATURE_PERIODIC |
				  TWHEEL_FEATURE_MANUAL_CLOCK),
		 TWHEEL_FEATURE_PERIODIC | TWHEEL_FEATURE_MANUAL_CLOCK);
	/* INFO, ADD, CANCEL, MODIFY, QUERY, LIST, SUBMIT, CONFIG, ADVANCE. */
	CHECK_EQ(info.ioctls & 0x1ff, 0x1ff);
	CHECK_EQ(info.clocks, clocks);
	CHECK_EQ(info.min_tick_ns, TWHEEL_MIN_TICK_NS);
	CHECK_EQ(info.max_tick_ns, TWHEEL_MAX_TICK_NS);
	CHECK_EQ(info.config_flags, 0);
	CHECK_EQ(info.op_size, sizeof(struct twheel_op));
	CHECK_EQ(info.status_size, sizeof(struct twheel_status));
	CHECK_EQ(info.max_batch, TWHEEL_MAX_BATCH);
	close(fd);

	fd = twheel_open(O_NONBLOCK);
	CHECK(fd >= 0);
	CHECK(fcntl(fd, F_GETFL) & O_NONBLOCK);
	CHECK_EQ(fcntl(fd, F_GETFD) & FD_CLOEXEC, 0);
	CHECK_EQ(twheel_info(fd, &info), 0);
	CHECK_EQ(info.config_flags, 0);
	close(fd);
}

/* The kernel's errno comes back unchanged, from the kernel or libc. */
static void errno_faithful(void)
{
	struct twheel_event ev;
	struct twheel_info info;
	struct twheel_add a;
	int fd, null;

	memset(&a, 0, sizeof(a));
	a.clock = CLOCK_MONOTONIC;
	CHECK_ERR(twheel_add(-1, &a), EBADF);
	CHECK_ERR(twheel_cancel(-1, 1), EBADF);
	CHECK_ERR(twheel_read(-1, &ev, 1), EBADF);
	null = open("/dev/null", O_RDWR);
	CHECK(null >= 0);
	CHECK_ERR(twheel_info(null, &info), ENOTTY);
	CHECK_ERR(twheel_advance(null, 1, NULL), ENOTTY);
	close(null);

	fd = twheel_open(O_CLOEXEC | O_NONBLOCK);
	CHECK(fd >= 0);
	CHECK_ERR(twheel_read(fd, &ev, 1), EAGAIN);
	CHECK_ERR(twheel_read(fd, &ev, 0), EINVAL);	/* below one record */
	/* An advance of a clock that is not manual. */
	CHECK_ERR(twheel_advance(fd, 0, NULL), EINVAL);
	CHECK_ERR(twheel_add(fd, NULL), EFAULT);
	CHECK_EQ(twheel_info(fd, &info), 0);
	CHECK_EQ(info.timers, 0);
	close(fd);

	CHECK(twheel_now(CLOCK_MONOTONIC) > 0);
	CHECK(twheel_now(CLOCK_REALTIME) > 0);
	CHECK_ERR(twheel_now((clockid_t)999), EINVAL);
}

/* twheel_config(): range, flags, repetition, and EBUSY after an add. */
static void config(void)
{
	struct twheel_config cfg;
	struct twheel_info info;
	uint64_t id;
	int fd;

	fd = twheel_open(O_CLOEXEC | O_NONBLOCK);
	CHECK(fd >= 0);
	memset(&cfg, 0, sizeof(cfg));
	cfg.tick_ns = TWHEEL_MIN_TICK_NS - 1;
	CHECK_ERR(twheel_config(fd, &cfg), EINVAL);
	cfg.tick_ns = TWHEEL_MAX_TICK_NS + 1;
	CHECK_ERR(twheel_config(fd, &cfg), EINVAL);
	cfg.tick_ns = 2 * MS;
	cfg.flags = 0x20;	/* the first flag the kernel does not know */
	CHECK_ERR(twheel_config(fd, &cfg), EINVAL);
	cfg.flags = 0;
	cfg.__reserved = 1;
	CHECK_ERR(twheel_config(fd, &cfg), EINVAL);
	CHECK_EQ(twheel_info(fd, &info), 0);
	CHECK_EQ(info.tick_ns, TWHEEL_DEFAULT_TICK_NS);	/* unchanged */

	/* Repeated before the first add: the last one counts. */
	memset(&cfg, 0, sizeof(cfg));
	cfg.tick_ns = TWHEEL_MAX_TICK_NS;
	cfg.flags = TWHEEL_CONFIG_MANUAL;
	CHECK_EQ(twheel_config(fd, &cfg), 0);
	cfg.tick_ns = TWHEEL_MIN_TICK_NS;
	CHECK_EQ(twheel_config(fd, &cfg), 0);
	CHECK_EQ(twheel_info(fd, &info), 0);
	CHECK_EQ(info.tick_ns, TWHEEL_MIN_TICK_NS);
	CHECK_EQ(info.config_flags, TWHEEL_CONFIG_MANUAL);
	CHECK_EQ(advance(fd, 0), 0);	/* the manual clock starts at 0 */

	id = add(fd, 1, MS, 0, 0, CLOCK_MONOTONIC);
	cfg.tick_ns = 5 * MS;
	CHECK_ERR(twheel_config(fd, &cfg), EBUSY);
	/* Still EBUSY once that timer is gone. */
	CHECK_EQ(twheel_cancel(fd, id), TWHEEL_STATE_PENDING);
	CHECK_ERR(twheel_config(fd, &cfg), EBUSY);
	CHECK_EQ(twheel_info(fd, &info), 0);
	CHECK_EQ(info.tick_ns, TWHEEL_MIN_TICK_NS);
	close(fd);
}

/* twheel_add(), twheel_query(), twheel_read() on the manual clock. */
static void add_query_read(void)
{
	int fd = manual_fd(MS);
	uint64_t a, b, c, d;
	struct twheel_status st;
	struct twheel_info info;
	struct twheel_event ev[4];

	a = add(fd, 7, 10 * MS, 0, 0, CLOCK_MONOTONIC);
	b = add(fd, 8, 10 * MS + 500 * TWHEEL_USEC, 0, 0, CLOCK_BOOTTIME);
	c = add(fd, 9, 20 * MS, 0, 0, CLOCK_REALTIME);
	CHECK(a != b && b != c && a != c);

	memset(&st, 0xAA, sizeof(st));
	CHECK_EQ(twheel_query(fd, a, &st), 0);
	CHECK_STATUS(st, a, 7, CLOCK_MONOTONIC, TWHEEL_STATE_PENDING,
		     10 * MS, 10 * MS, 0, 0);
	/* The deadline rounds up to the tick. */
	CHECK_EQ(twheel_query(fd, b, &st), 0);
	CHECK_STATUS(st, b, 8, CLOCK_BOOTTIME, TWHEEL_STATE_PENDING,
		     11 * MS, 11 * MS, 0, 0);
	/* Any clock on a manual fd: it reports the clock it was given. */
	CHECK_EQ(twheel_query(fd, c, &st), 0);
	CHECK_STATUS(st, c, 9, CLOCK_REALTIME, TWHEEL_STATE_PENDING,
		     20 * MS, 20 * MS, 0, 0);

	CHECK_EQ(advance(fd, 4 * MS), 4 * MS);
	CHECK_EQ(twheel_query(fd, a, &st), 0);
	CHECK_STATUS(st, a, 7, CLOCK_MONOTONIC, TWHEEL_STATE_PENDING,
		     10 * MS, 6 * MS, 0, 0);
	CHECK_EMPTY(fd);

	/* An absolute deadline already past is queued before add returns. */
	d = add(fd, 10, 2 * MS, 0, TWHEEL_ABSTIME, CLOCK_TAI);
	CHECK_EQ(twheel_query(fd, d, &st), 0);
	CHECK_STATUS(st, d, 10, CLOCK_TAI, TWHEEL_STATE_QUEUED, 0, 0, 0, 1);
	CHECK_EQ(twheel_info(fd, &info), 0);
	CHECK_EQ(info.timers, 4);
	CHECK_EQ(info.queued, 1);
	CHECK_EQ(twheel_read(fd, ev, 4), 1);
	CHECK_EVENT(ev[0], d, 10, 4 * MS, 1, CLOCK_TAI);
	/* A one-shot timer ends when its record is read. */
	CHECK_ERR(twheel_query(fd, d, &st), ENOENT);
	CHECK_ERR(twheel_cancel(fd, d), ENOENT);
	CHECK_EMPTY(fd);

	/* Each timer at its deadline tick, not before. */
	CHECK_EQ(advance(fd, 6 * MS - 1), 10 * MS - 1);
	CHECK_EMPTY(fd);
	CHECK_EQ(advance(fd, 1), 10 * MS);
	CHECK_EQ(twheel_read(fd, ev, 4), 1);
	CHECK_EVENT(ev[0], a, 7, 10 * MS, 1, CLOCK_MONOTONIC);
	CHECK_EQ(advance(fd, MS - 1), 11 * MS - 1);
	CHECK_EMPTY(fd);
	/* Queued at the time the clock was moved to. */
	CHECK_EQ(advance(fd, 3 * MS), 14 * MS - 1);
	CHECK_EQ(twheel_read(fd, ev, 4), 1);
	CHECK_EVENT(ev[0], b, 8, 14 * MS - 1, 1, CLOCK_BOOTTIME);

	CHECK_EQ(twheel_cancel(fd, c), TWHEEL_STATE_PENDING);
	CHECK_ERR(twheel_cancel(fd, c), ENOENT);
	CHECK_ERR(twheel_query(fd, c, &st), ENOENT);
	CHECK_EQ(twheel_info(fd, &info), 0);
	CHECK_EQ(info.timers, 0);
	CHECK_EQ(info.queued, 0);
	close(fd);
}

/* Bad requests: the kernel's EINVAL/ENOENT, and no timer is created. */
static void add_errors(void)
{
	int fd = manual_fd(MS), other = manual_fd(MS);
	struct twheel_status st;
	struct twheel_info info;
	struct twheel_add a;
	uint64_t theirs;

	memset(&a, 0, sizeof(a));
	a.expires_ns = MS;
	a.clock = CLOCK_PROCESS_CPUTIME_ID;	/* not a timer clock */
	CHECK_ERR(twheel_add(fd, &a), EINVAL);
	a.clock = 99;
	CHECK_ERR(twheel_add(fd, &a), EINVAL);
	a.clock = CLOCK_MONOTONIC;
	a.flags = TWHEEL_SET_COOKIE;		/* modify only */
	CHECK_ERR(twheel_add(fd, &a), EINVAL);
	a.flags = 0x80000000U;
	CHECK_ERR(twheel_add(fd, &a), EINVAL);
	a.flags = 0;
	a.expires_ns = -1;			/* relative: >= 0 */
	CHECK_ERR(twheel_add(fd, &a), EINVAL);
	CHECK_EQ(a.id, 0);
	CHECK_EQ(twheel_info(fd, &info), 0);
	CHECK_EQ(info.timers, 0);

	/* Ids are per fd; 0 is never one. */
	theirs = add(other, 1, MS, 0, 0, CLOCK_MONOTONIC);
	CHECK_ERR(twheel_cancel(fd, theirs), ENOENT);
	CHECK_ERR(twheel_query(fd, theirs, &st), ENOENT);
	CHECK_ERR(twheel_cancel(fd, 0), ENOENT);
	CHECK_ERR(twheel_query(fd, 0, &st), ENOENT);
	CHECK_EQ(twheel_query(other, theirs, &st), 0);
	CHECK_EQ(st.id, theirs);
	close(other);
	close(fd);

	/* A real-clock fd takes the same four clocks, no other. */
	fd = twheel_open(O_CLOEXEC | O_NONBLOCK);
	CHECK(fd >= 0);
	memset(&a, 0, sizeof(a));
	a.expires_ns = 3600 * TWHEEL_SEC;
	a.clock = CLOCK_THREAD_CPUTIME_ID;
	CHECK_ERR(twheel_add(fd, &a), EINVAL);
	a.clock = CLOCK_MONOTONIC_RAW;
	CHECK_ERR(twheel_add(fd, &a), EINVAL);
	a.clock = CLOCK_TAI;
	CHECK_EQ(twheel_add(fd, &a), 0);
	CHECK(a.id != 0);
	CHECK_EQ(twheel_cancel(fd, a.id), TWHEEL_STATE_PENDING);
	close(fd);
}

/* twheel_modify(): outcome, cookie, deadline, retraction, order, errors. */
static void modify(void)
{
	int fd = manual_fd(MS);
	struct twheel_status st, before;
	struct twheel_event ev[4];
	struct twheel_modify m;
	struct twheel_info info;
	uint64_t a, x, y, z;

	a = add(fd, 1, 10 * MS, 0, 0, CLOCK_MONOTONIC);
	memset(&m, 0, sizeof(m));
	m.id = a;
	m.cookie = 9;
	m.expires_ns = 3 * MS;
	m.flags = TWHEEL_SET_COOKIE;
	CHECK_EQ(twheel_modify(fd, &m), TWHEEL_STATE_PENDING);
	CHECK_EQ(m.result, TWHEEL_STATE_PENDING);
	CHECK_EQ(twheel_query(fd, a, &st), 0);
	CHECK_STATUS(st, a, 9, CLOCK_MONOTONIC, TWHEEL_STATE_PENDING,
		     3 * MS, 3 * MS, 0, 0);

	/* Without TWHEEL_SET_COOKIE the cookie is kept. */
	memset(&m, 0, sizeof(m));
	m.id = a;
	m.cookie = 5;
	m.expires_ns = 8 * MS;
	m.flags = TWHEEL_ABSTIME;
	CHECK_EQ(twheel_modify(fd, &m), TWHEEL_STATE_PENDING);
	CHECK_EQ(twheel_query(fd, a, &st), 0);
	CHECK_STATUS(st, a, 9, CLOCK_MONOTONIC, TWHEEL_STATE_PENDING,
		     8 * MS, 8 * MS, 0, 0);

	/* Bad requests leave the timer as it was. */
	before = st;
	m.flags = 0x4;
	CHECK_ERR(twheel_modify(fd, &m), EINVAL);
	m.flags = 0;
	m.expires_ns = -1;
	CHECK_ERR(twheel_modify(fd, &m), EINVAL);
	CHECK_EQ(twheel_query(fd, a, &st), 0);
	CHECK(!memcmp(&st, &before, sizeof(st)));

	/* A queued record is retracted: QUEUED, and nothing to read. */
	CHECK_EQ(advance(fd, 8 * MS), 8 * MS);
	CHECK_EQ(twheel_query(fd, a, &st), 0);
	CHECK_EQ(st.state, TWHEEL_STATE_QUEUED);
	memset(&m, 0, sizeof(m));
	m.id = a;
	m.expires_ns = 5 * MS;
	CHECK_EQ(twheel_modify(fd, &m), TWHEEL_STATE_QUEUED);
	CHECK_EMPTY(fd);
	CHECK_EQ(twheel_info(fd, &info), 0);
	CHECK_EQ(info.timers, 1);
	CHECK_EQ(info.queued, 0);
	CHECK_EQ(twheel_query(fd, a, &st), 0);
	CHECK_STATUS(st, a, 9, CLOCK_MONOTONIC, TWHEEL_STATE_PENDING,
		     13 * MS, 5 * MS, 0, 0);

	/* A modified timer goes behind those of its tick added before. */
	x = add(fd, 100, 20 * MS, 0, TWHEEL_ABSTIME, CLOCK_MONOTONIC);
	y = add(fd, 101, 20 * MS, 0, TWHEEL_ABSTIME, CLOCK_MONOTONIC);
	z = add(fd, 102, 20 * MS, 0, TWHEEL_ABSTIME, CLOCK_MONOTONIC);
	memset(&m, 0, sizeof(m));
	m.id = x;
	m.expires_ns = 20 * MS;
	m.flags = TWHEEL_ABSTIME;
	CHECK_EQ(twheel_modify(fd, &m), TWHEEL_STATE_PENDING);
	CHECK_EQ(twheel_cancel(fd, a), TWHEEL_STATE_PENDING);
	CHECK_EQ(advance(fd, 12 * MS), 20 * MS);
	CHECK_EQ(twheel_read(fd, ev, 4), 3);
	CHECK_EVENT(ev[0], y, 101, 20 * MS, 1, CLOCK_MONOTONIC);
	CHECK_EVENT(ev[1], z, 102, 20 * MS, 1, CLOCK_MONOTONIC);
	CHECK_EVENT(ev[2], x, 100, 20 * MS, 1, CLOCK_MONOTONIC);

	/* Gone (cancelled or read): ENOENT. */
	memset(&m, 0, sizeof(m));
	m.id = a;
	m.expires_ns = MS;
	CHECK_ERR(twheel_modify(fd, &m), ENOENT);
	m.id = x;
	CHECK_ERR(twheel_modify(fd, &m), ENOENT);
	close(fd);
}

/* Periodic timers: one record counting expiries, next deadline on read. */
static void periodic(void)
{
	int fd = manual_fd(MS);
	struct twheel_status st;
	struct twheel_event ev[2];
	struct twheel_modify m;
	uint64_t p, q;

	p = add(fd, 3, 5 * MS, 5 * MS, 0, CLOCK_MONOTONIC);
	CHECK_EQ(twheel_query(fd, p, &st), 0);
	CHECK_STATUS(st, p, 3, CLOCK_MONOTONIC, TWHEEL_STATE_PENDING,
		     5 * MS, 5 * MS, 5 * MS, 0);

	CHECK_EQ(advance(fd, 12 * MS), 12 * MS);
	CHECK_EQ(twheel_query(fd, p, &st), 0);
	CHECK_EQ(st.state, TWHEEL_STATE_QUEUED);
	CHECK_EQ(st.count, 2);			/* 5 and 10 ms */
	CHECK_EQ(st.period_ns, 5 * MS);
	printf("# queued periodic: deadline_ns %" PRId64 " remaining_ns %"
	       PRId64 "\n", (int64_t)st.deadline_ns, (int64_t)st.remaining_ns);
	CHECK_EQ(advance(fd, 4 * MS), 16 * MS);	/* 15 ms passes unread */
	CHECK_EQ(twheel_query(fd, p, &st), 0);
	CHECK_EQ(st.count, 3);
	CHECK_EQ(twheel_read(fd, ev, 2), 1);
	CHECK_EVENT(ev[0], p, 3, 12 * MS, 3, CLOCK_MONOTONIC);
	/* Its next deadline: the first after the present, on the grid. */
	CHECK_EQ(twheel_query(fd, p, &st), 0);
	CHECK_STATUS(st, p, 3, CLOCK_MONOTONIC, TWHEEL_STATE_PENDING,
		     20 * MS, 4 * MS, 5 * MS, 0);
	CHECK_EQ(advance(fd, 4 * MS), 20 * MS);
	CHECK_EQ(twheel_read(fd, ev, 2), 1);
	CHECK_EVENT(ev[0], p, 3, 20 * MS, 1, CLOCK_MONOTONIC);
	CHECK_EQ(advance(fd, 0), 20 * MS);
	CHECK_EMPTY(fd);

	/* Modify to one-shot (period 0), then back to periodic. */
	memset(&m, 0, sizeof(m));
	m.id = p;
	m.expires_ns = 2 * MS;
	CHECK_EQ(twheel_modify(fd, &m), TWHEEL_STATE_PENDING);
	CHECK_EQ(twheel_query(fd, p, &st), 0);
	CHECK_STATUS(st, p, 3, CLOCK_MONOTONIC, TWHEEL_STATE_PENDING,
		     22 * MS, 2 * MS, 0, 0);
	m.period_ns = 7 * MS;
	CHECK_EQ(twheel_modify(fd, &m), TWHEEL_STATE_PENDING);
	CHECK_EQ(twheel_query(fd, p, &st), 0);
	CHECK_STATUS(st, p, 3, CLOCK_MONOTONIC, TWHEEL_STATE_PENDING,
		     22 * MS, 2 * MS, 7 * MS, 0);
	CHECK_EQ(twheel_cancel(fd, p), TWHEEL_STATE_PENDING);
	CHECK_ERR(twheel_query(fd, p, &st), ENOENT);

	/* A periodic timer's queued record is retracted by cancel. */
	q = add(fd, 4, 0, MS, 0, CLOCK_BOOTTIME);
	CHECK_EQ(twheel_query(fd, q, &st), 0);
	CHECK_EQ(st.state, TWHEEL_STATE_QUEUED);
	CHECK_EQ(twheel_cancel(fd, q), TWHEEL_STATE_QUEUED);
	CHECK_EMPTY(fd);
	close(fd);
}

/* Records of one deadline tick come out in add order; partial reads. */
static void read_order(void)
{
	int fd = manual_fd(MS);
	struct twheel_event ev[8];
	uint64_t ids[6];
	int k;

	for (k = 0; k < 5; k++)
		ids[k] = add(fd, (uint64_t)k, 10 * MS, 0, 0, CLOCK_MONOTONIC);
	/* Later tick, added earlier; earlier tick, added last. */
	ids[5] = add(fd, 5, 9 * MS + 1, 0, 0, CLOCK_MONOTONIC);
	CHECK_EQ(advance(fd, 10 * MS), 10 * MS);
	CHECK_EQ(twheel_read(fd, ev, 3), 3);
	CHECK_EQ(twheel_read(fd, ev + 3, 8), 3);
	CHECK_EMPTY(fd);
	for (k = 0; k < 6; k++) {
		CHECK_EQ(ev[k].id, ids[k]);
		CHECK_EQ(ev[k].cookie, k);
	}
	close(fd);
}

/* twheel_submit(): each op as its single ioctl, outputs written back. */
static void submit(void)
{
	int fd = manual_fd(MS);
	struct twheel_op ops[6];
	struct twheel_info info;
	uint64_t a, b;
	int k;

	memset(ops, 0x5A, sizeof(ops));	/* outputs must all be written */
	for (k = 0; k < 6; k++) {
		ops[k].flags = 0;
		ops[k].__reserved = 0;
	}
	ops[0].op = TWHEEL_OP_ADD;
	ops[0].cookie = 11;
	ops[0].expires_ns = 10 * MS;
	ops[0].period_ns = 0;
	ops[0].clock = CLOCK_MONOTONIC;
	ops[1].op = TWHEEL_OP_ADD;
	ops[1].cookie = 12;
	ops[1].expires_ns = 20 * MS;
	ops[1].period_ns = 4 * MS;
	ops[1].clock = CLOCK_BOOTTIME;
	ops[2].op = 99;				/* no such operation */
	ops[3].op = TWHEEL_OP_ADD;
	ops[3].cookie = 13;
	ops[3].expires_ns = MS;
	ops[3].period_ns = 0;
	ops[3].clock = 99;			/* no such clock */
	ops[4].op = TWHEEL_OP_CANCEL;
	ops[4].id = 0;				/* never an id */
	ops[5].op = TWHEEL_OP_QUERY;
	ops[5].id = 0;
	ops[5].flags = 1;			/* must be 0 */
	CHECK_EQ(twheel_submit(fd, ops, 6), 6);

	CHECK_EQ(ops[0].error, 0);
	CHECK(ops[0].id != 0);
	CHECK_EQ(ops[0].cookie, 11);
	CHECK_EQ(ops[0].expires_ns, 10 * MS);
	CHECK_EQ(ops[0].clock, CLOCK_MONOTONIC);
	CHECK_EQ(ops[0].result, 0);
	CHECK_EQ(ops[0].count, 0);
	CHECK_EQ(ops[0].remaining_ns, 0);
	CHECK_EQ(ops[1].error, 0);
	CHECK(ops[1].id != 0 && ops[1].id != ops[0].id);
	CHECK_EQ(ops[1].period_ns, 4 * MS);
	CHECK_EQ(ops[2].error, -EINVAL);
	CHECK_EQ(ops[3].error, -EINVAL);
	CHECK_EQ(ops[3].id, 0);			/* no output on error */
	CHECK_EQ(ops[3].result, 0);
	CHECK_EQ(ops[4].error, -ENOENT);
	CHECK_EQ(ops[4].result, 0);
	CHECK_EQ(ops[5].error, -EINVAL);
	CHECK_EQ(ops[5].count, 0);
	CHECK_EQ(ops[5].remaining_ns, 0);
	a = ops[0].id;
	b = ops[1].id;
	CHECK_EQ(twheel_info(fd, &info), 0);
	CHECK_EQ(info.timers, 2);

	memset(ops, 0, sizeof(ops));
	ops[0].op = TWHEEL_OP_MODIFY;
	ops[0].id = a;
	ops[0].flags = TWHEEL_SET_COOKIE;
	ops[0].cookie = 21;
	ops[0].expires_ns = 5 * MS;
	ops[1].op = TWHEEL_OP_QUERY;
	ops[1].id = a;
	ops[2].op = TWHEEL_OP_CANCEL;
	ops[2].id = b;
	ops[3].op = TWHEEL_OP_QUERY;
	ops[3].id = b;
	ops[3].cookie = 77;			/* ignored on input */
	ops[4].op = TWHEEL_OP_QUERY;
	ops[4].id = a;
	ops[4].__reserved = 1;			/* must be 0 */
	CHECK_EQ(twheel_submit(fd, ops, 5), 5);
	CHECK_EQ(ops[0].error, 0);
	CHECK_EQ(ops[0].result, TWHEEL_STATE_PENDING);
	CHECK_EQ(ops[1].error, 0);
	CHECK_EQ(ops[1].cookie, 21);
	CHECK_EQ(ops[1].expires_ns, 5 * MS);	/* QUERY's deadline_ns */
	CHECK_EQ(ops[1].period_ns, 0);
	CHECK_EQ(ops[1].clock, CLOCK_MONOTONIC);
	CHECK_EQ(ops[1].result, TWHEEL_STATE_PENDING);
	CHECK_EQ(ops[1].count, 0);
	CHECK_EQ(ops[1].remaining_ns, 5 * MS);
	CHECK_EQ(ops[2].error, 0);
	CHECK_EQ(ops[2].result, TWHEEL_STATE_PENDING);
	CHECK_EQ(ops[3].error, -ENOENT);
	CHECK_EQ(ops[3].cookie, 0);
	CHECK_EQ(ops[3].result, 0);
	CHECK_EQ(ops[4].error, -EINVAL);

	/* The batch's own errors: no operation done. */
	CHECK_ERR(twheel_submit(fd, ops, TWHEEL_MAX_BATCH + 1), EINVAL);
	CHECK_ERR(twheel_submit(fd, NULL, 1), EFAULT);
	CHECK_EQ(twheel_submit(fd, NULL, 0), 0);
	CHECK_EQ(twheel_info(fd, &info), 0);
	CHECK_EQ(info.timers, 1);
	close(fd);
}

/* twheel_list() in calls of a few entries: each timer exactly once. */
#define NLIST	1000
#define LISTCAP	7
static void list_resume(void)
{
	static unsigned char seen[NLIST + 100];
	static uint64_t ids[NLIST + 100];
	struct twheel_status st[LISTCAP + 1];
	uint64_t cursor = 0;
	unsigned int calls = 0, total = 0, k;
	ssize_t n, i;
	int fd = manual_fd(MS);

	n = twheel_list(fd, &cursor, st, LISTCAP);
	CHECK_EQ(n, 0);
	CHECK_EQ(cursor, 0);
	CHECK_ERR(twheel_list(fd, &cursor, st, 0), EINVAL);

	for (k = 0; k < NLIST; k++)
		ids[k] = add(fd, k, (k + 1) * MS, k % 3 ? 0 : 1000 * MS, 0,
			     CLOCK_MONOTONIC);
	CHECK_EQ(advance(fd, 10 * MS), 10 * MS);	/* 10 queued */
	do {
		memset(st, 0xAA, sizeof(st));
		n = twheel_list(fd, &cursor, st, LISTCAP);
		CHECK(n >= 0 && n <= LISTCAP);
		CHECK_EQ(st[LISTCAP].id, 0xAAAAAAAAAAAAAAAAULL);
		for (i = 0; i < n; i++) {
			uint64_t c = st[i].cookie;

			CHECK(c < NLIST);
			CHECK_EQ(st[i].id, ids[c]);
			CHECK_EQ(st[i].clock, CLOCK_MONOTONIC);
			CHECK_EQ(st[i].period_ns, c % 3 ? 0 : 1000 * MS);
			if (c < 10) {
				CHECK_EQ(st[i].state, TWHEEL_STATE_QUEUED);
				CHECK_EQ(st[i].count, 1);
			} else {
				CHECK_EQ(st[i].state, TWHEEL_STATE_PENDING);
				CHECK_EQ(st[i].deadline_ns, (c + 1) * MS);
				CHECK_EQ(st[i].remaining_ns, (c - 9) * MS);
				CHECK_EQ(st[i].count, 0);
			}
			seen[c]++;
		}
		total += (unsigned int)n;
		CHECK(++calls < 100 * NLIST);
	} while (cursor);
	CHECK_EQ(total, NLIST);
	for (k = 0; k < NLIST; k++)
		CHECK_EQ(seen[k], 1);
	printf("# %u timers listed in %u calls of %d\n", total, calls,
	       LISTCAP);

	/*
	 * Timers removed or added during a listing: at most once; those
	 * there throughout: exactly once.
	 */
	memset(seen, 0, sizeof(seen));
	cursor = 0;
	calls = 0;
	do {
		n = twheel_list(fd, &cursor, st, LISTCAP);
		CHECK(n >= 0);
		for (i = 0; i < n; i++) {
			CHECK(st[i].cookie < NLIST + 100);
			seen[st[i].cookie]++;
		}
		if (calls++ == 3) {
			for (k = 1; k < NLIST; k += 2)
				CHECK(twheel_cancel(fd, ids[k]) > 0);
			for (k = NLIST; k < NLIST + 100; k++)
				ids[k] = add(fd, k, 2000 * MS, 0, 0,
					     CLOCK_MONOTONIC);
		}
		CHECK(calls < 100 * NLIST);
	} while (cursor);
	for (k = 0; k < NLIST + 100; k++) {
		if (k < NLIST && !(k & 1))
			CHECK_EQ(seen[k], 1);
		else
			CHECK(seen[k] <= 1);
	}
	close(fd);
}

/* The manual clock: starts at 0, reads with 0, saturates. */
static void advance_clock(void)
{
	int fd = manual_fd(MS);
	struct twheel_event ev;
	int64_t now = -1;

	CHECK_EQ(twheel_advance(fd, 0, NULL), 0);
	CHECK_EQ(twheel_advance(fd, 0, &now), 0);
	CHECK_EQ(now, 0);
	CHECK_EQ(advance(fd, 1), 1);
	CHECK_EQ(advance(fd, TWHEEL_SEC), TWHEEL_SEC + 1);
	add(fd, 1, 3600 * TWHEEL_SEC, 0, 0, CLOCK_REALTIME);
	CHECK_EQ(advance(fd, UINT64_MAX), INT64_MAX);
	CHECK_EQ(advance(fd, 1), INT64_MAX);
	CHECK_EQ(twheel_read(fd, &ev, 1), 1);
	CHECK_EQ(ev.cookie, 1);
	CHECK_EQ(ev.time_ns, INT64_MAX);
	close(fd);
}

/* On the real clock: twheel_read() blocks for a record, never early. */
static void real_clock(void)
{
	int fd = twheel_open(O_CLOEXEC);
	struct twheel_event ev;
	struct twheel_add a;
	int64_t t0;

	CHECK(fd >= 0);
	memset(&a, 0, sizeof(a));
	a.cookie = 42;
	a.expires_ns = 20 * MS;
	a.clock = CLOCK_MONOTONIC;
	t0 = twheel_now(CLOCK_MONOTONIC);
	CHECK_EQ(twheel_add(fd, &a), 0);
	CHECK_EQ(twheel_read(fd, &ev, 1), 1);
	CHECK_EQ(ev.id, a.id);
	CHECK_EQ(ev.cookie, 42);
	CHECK_EQ(ev.count, 1);
	CHECK_EQ(ev.clock, CLOCK_MONOTONIC);
	CHECK(ev.time_ns >= t0 + 20 * MS);
	CHECK(ev.time_ns <= twheel_now(CLOCK_MONOTONIC));
	close(fd);
}

TWT_MAIN("libtwheel",
	 TWT_CASE(open_handshake),
	 TWT_CASE(errno_faithful),
	 TWT_CASE(config),
	 TWT_CASE(add_query_read),
	 TWT_CASE(add_errors),
	 TWT_CASE(modify),
	 TWT_CASE(periodic),
	 TWT_CASE(read_order),
	 TWT_CASE(submit),
	 TWT_CASE(list_resume),
	 TWT_CASE(advance_clock),
	 TWT_CASE(real_clock))
