// SPDX-License-Identifier: GPL-2.0
/*
 * libtwheel: the C library (userspace/lib/libtwheel.c) against the module.
 * Every function of libtwheel.h is called with exact expected values on a
 * manual-clock fd (no timing dependence): its return value, what it wrote
 * back, and the kernel's errno passed through unchanged on failure; the
 * helpers (twheel_drain(), twheel_batch_*(), twheel_op_result()) too,
 * with their own errnos; the shared timer table's mapping and its inline
 * helpers (twheel_table_*()): a push back moves the record, a cancel
 * removes it, a store too late leaves it, with no system call.
 */
#include <fcntl.h>
#include <limits.h>
#include <sys/mman.h>

#include "twtest.h"
#include "libtwheel.h"

#define MS		TWHEEL_MSEC
#define PARAM_MAX	"/sys/module/twheel/parameters/max_timers"

/* A new O_NONBLOCK fd on a manual clock with a tick of @tick_ns. */
#define manual_fd(tick_ns)	manual_fd_at(__FILE__, __LINE__, (tick_ns))
static int manual_fd_at(const char *file, int line, uint64_t tick_ns)
{
	struct twheel_config cfg;
	int fd = twheel_open(O_CLOEXEC | O_NONBLOCK);

	if (fd < 0)
		twt_fail(file, line, "twheel_open: %s", strerror(errno));
	memset(&cfg, 0, sizeof(cfg));
	cfg.tick_ns = tick_ns;
	cfg.flags = TWHEEL_CONFIG_MANUAL;
	if (twheel_config(fd, &cfg) < 0)
		twt_fail(file, line, "twheel_config: %s", strerror(errno));
	return fd;
}

/* twheel_add() of a timer, returning its id or failing the case. */
#define add(fd, cookie, expires, period, flags, clock)			\
	add_at(__FILE__, __LINE__, (fd), (cookie), (expires), (period),	\
	       (flags), (clock))
static uint64_t add_at(const char *file, int line, int fd, uint64_t cookie,
		       int64_t expires_ns, uint64_t period_ns, uint32_t flags,
		       clockid_t clock)
{
	struct twheel_add a;

	memset(&a, 0, sizeof(a));
	a.cookie = cookie;
	a.expires_ns = expires_ns;
	a.period_ns = period_ns;
	a.flags = flags;
	a.clock = (uint32_t)clock;
	if (twheel_add(fd, &a) != 0)
		twt_fail(file, line, "twheel_add(cookie %" PRIu64 "): %s",
			 cookie, strerror(errno));
	if (!a.id)
		twt_fail(file, line, "twheel_add: id 0");
	/* The in fields are left as they were. */
	if (a.cookie != cookie || a.expires_ns != expires_ns ||
	    a.period_ns != period_ns || a.flags != flags ||
	    a.clock != (uint32_t)clock)
		twt_fail(file, line, "twheel_add changed its input fields");
	return a.id;
}

/* The manual clock after advancing by @delta_ns (0: just read it). */
#define advance(fd, delta)	advance_at(__FILE__, __LINE__, (fd), (delta))
static int64_t advance_at(const char *file, int line, int fd, uint64_t delta)
{
	int64_t now = -1;

	if (twheel_advance(fd, delta, &now) != 0)
		twt_fail(file, line, "twheel_advance: %s", strerror(errno));
	return now;
}

/* Check one record against expected values. */
#define CHECK_EVENT(e, eid, ecookie, etime, ecount, eclock) do {	\
	CHECK_EQ((e).id, (eid));					\
	CHECK_EQ((e).cookie, (ecookie));				\
	CHECK_EQ((e).time_ns, (etime));					\
	CHECK_EQ((e).count, (ecount));					\
	CHECK_EQ((e).clock, (eclock));					\
	CHECK_EQ((e).flags, 0);						\
} while (0)

/* Check one status against expected values. */
#define CHECK_STATUS(s, eid, ecookie, eclock, estate, edeadline, eremain, \
		     eperiod, ecount) do {				\
	CHECK_EQ((s).id, (eid));					\
	CHECK_EQ((s).cookie, (ecookie));				\
	CHECK_EQ((s).clock, (eclock));					\
	CHECK_EQ((s).state, (estate));					\
	CHECK_EQ((s).deadline_ns, (edeadline));				\
	CHECK_EQ((s).remaining_ns, (eremain));				\
	CHECK_EQ((s).period_ns, (eperiod));				\
	CHECK_EQ((s).count, (ecount));					\
} while (0)

/* Nothing is queued: twheel_read() says EAGAIN. */
#define CHECK_EMPTY(fd) do {						\
	struct twheel_event _e;						\
	CHECK_ERR(twheel_read((fd), &_e, 1), EAGAIN);			\
} while (0)

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
	cfg.flags = 0x10;	/* the first flag the kernel does not know */
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

/* What a twheel_drain() callback was given, call by call. */
struct drained {
	struct twheel_event ev[64];
	size_t calls, total, sizes[64];
	size_t stop_after;	/* return 1 after this many calls (0: never) */
	int close_fd;		/* close this fd after the first call (-1: no) */
};

static int on_drain(void *arg, const struct twheel_event *ev, size_t n)
{
	struct drained *d = arg;

	CHECK(n >= 1);
	CHECK(d->calls < 64 && d->total + n <= 64);
	memcpy(d->ev + d->total, ev, n * sizeof(*ev));
	d->sizes[d->calls++] = n;
	d->total += n;
	if (d->close_fd >= 0 && d->calls == 1)
		close(d->close_fd);
	return d->stop_after && d->calls == d->stop_after;
}

/* Queue @n one-shot records on manual @fd, cookies @first... in order. */
static void queue_records(int fd, uint64_t first, unsigned int n)
{
	int64_t now = advance(fd, 0);
	unsigned int k;

	for (k = 0; k < n; k++)
		add(fd, first + k, now + (k + 1) * MS, 0, TWHEEL_ABSTIME,
		    CLOCK_MONOTONIC);
	CHECK_EQ(advance(fd, n * MS), now + n * MS);
}

static unsigned long long queued(int fd)
{
	struct twheel_info info;

	CHECK_EQ(twheel_info(fd, &info), 0);
	return info.queued;
}

/* twheel_drain() into a buffer: fills it, never blocks, keeps the rest. */
static void drain_buffer(void)
{
	int fd = manual_fd(MS);
	struct twheel_event ev[16];
	char *guard;
	int k;

	CHECK_ERR(twheel_drain(fd, ev, 0, NULL, NULL), EINVAL);
	CHECK_ERR(twheel_drain(-1, ev, 4, NULL, NULL), EBADF);
	CHECK_EQ(twheel_drain(fd, ev, 4, NULL, NULL), 0);	/* empty */

	queue_records(fd, 100, 10);
	memset(ev, 0, sizeof(ev));
	CHECK_EQ(twheel_drain(fd, ev, 4, NULL, NULL), 4);
	for (k = 0; k < 4; k++) {
		CHECK_EQ(ev[k].cookie, 100 + k);
		CHECK_EQ(ev[k].count, 1);
	}
	CHECK_EQ(queued(fd), 6);
	CHECK_EQ(twheel_drain(fd, ev, 16, NULL, NULL), 6);
	for (k = 0; k < 6; k++)
		CHECK_EQ(ev[k].cookie, 104 + k);
	CHECK_EQ(twheel_drain(fd, ev, 16, NULL, NULL), 0);
	CHECK_EMPTY(fd);

	/*
	 * A buffer that ends in unmapped memory: the records that fit are
	 * returned, the others stay queued; none fits: the kernel's EFAULT.
	 */
	guard = twt_guard_map(4096);
	queue_records(fd, 200, 5);
	CHECK_EQ(twheel_drain(fd, (struct twheel_event *)(guard - 2 * TWT_EV_SIZE),
			      5, NULL, NULL), 2);
	CHECK_EQ(((struct twheel_event *)(guard - 2 * TWT_EV_SIZE))[1].cookie,
		 201);
	CHECK_EQ(queued(fd), 3);
	CHECK_ERR(twheel_drain(fd, (struct twheel_event *)guard, 5, NULL, NULL),
		  EFAULT);
	CHECK_EQ(queued(fd), 3);
	CHECK_EQ(twheel_drain(fd, ev, 16, NULL, NULL), 3);
	CHECK_EQ(ev[0].cookie, 202);
	CHECK_EQ(ev[2].cookie, 204);
	close(fd);
}

/* twheel_drain() with a callback: every record once, in order, in reads of n. */
static void drain_callback(void)
{
	int fd = manual_fd(MS);
	struct twheel_event ev[3];
	struct drained d;
	int k;

	memset(&d, 0, sizeof(d));
	d.close_fd = -1;
	CHECK_EQ(twheel_drain(fd, ev, 3, on_drain, &d), 0);
	CHECK_EQ(d.calls, 0);			/* nothing queued: no call */

	queue_records(fd, 0, 10);
	CHECK_EQ(twheel_drain(fd, ev, 3, on_drain, &d), 10);
	CHECK_EQ(d.calls, 4);
	CHECK_EQ(d.sizes[0], 3);
	CHECK_EQ(d.sizes[1], 3);
	CHECK_EQ(d.sizes[2], 3);
	CHECK_EQ(d.sizes[3], 1);
	for (k = 0; k < 10; k++) {
		CHECK_EQ(d.ev[k].cookie, k);
		CHECK_EQ(d.ev[k].clock, CLOCK_MONOTONIC);
	}
	CHECK_EMPTY(fd);

	/* A multiple of n queued: the last read finds none (EAGAIN). */
	memset(&d, 0, sizeof(d));
	d.close_fd = -1;
	queue_records(fd, 20, 6);
	CHECK_EQ(twheel_drain(fd, ev, 3, on_drain, &d), 6);
	CHECK_EQ(d.calls, 2);
	CHECK_EQ(d.ev[5].cookie, 25);

	/* The callback stops it: the records after stay queued. */
	memset(&d, 0, sizeof(d));
	d.close_fd = -1;
	d.stop_after = 2;
	queue_records(fd, 30, 10);
	CHECK_EQ(twheel_drain(fd, ev, 3, on_drain, &d), 6);
	CHECK_EQ(d.calls, 2);
	CHECK_EQ(queued(fd), 4);
	d.stop_after = 0;
	CHECK_EQ(twheel_drain(fd, ev, 3, on_drain, &d), 4);
	CHECK_EQ(d.total, 10);
	for (k = 0; k < 10; k++)
		CHECK_EQ(d.ev[k].cookie, 30 + k);

	/*
	 * An error after records were read (the callback closes the fd):
	 * their count, not -1; read(2)'s error at the next call.
	 */
	memset(&d, 0, sizeof(d));
	d.close_fd = fd;
	queue_records(fd, 40, 8);
	CHECK_EQ(twheel_drain(fd, ev, 3, on_drain, &d), 3);
	CHECK_EQ(d.calls, 1);
	CHECK_ERR(twheel_drain(fd, ev, 3, on_drain, &d), EBADF);
	CHECK_EQ(d.calls, 1);
}

/* twheel_drain() on a blocking fd: polled, never blocks. */
static void drain_blocking(void)
{
	struct twheel_config cfg = {
		.tick_ns = MS,
		.flags = TWHEEL_CONFIG_MANUAL,
	};
	struct twheel_event ev[2];
	struct drained d;
	int fd;

	fd = twheel_open(O_CLOEXEC);
	CHECK(fd >= 0);
	CHECK_EQ(twheel_config(fd, &cfg), 0);
	alarm(10);		/* a drain that blocks fails the case */
	memset(&d, 0, sizeof(d));
	d.close_fd = -1;
	CHECK_EQ(twheel_drain(fd, ev, 2, on_drain, &d), 0);
	CHECK_EQ(twheel_drain(fd, ev, 2, NULL, NULL), 0);
	queue_records(fd, 50, 4);		/* a multiple of n */
	CHECK_EQ(twheel_drain(fd, ev, 2, on_drain, &d), 4);
	CHECK_EQ(d.calls, 2);
	queue_records(fd, 54, 3);
	CHECK_EQ(twheel_drain(fd, ev, 2, on_drain, &d), 3);
	CHECK_EQ(d.calls, 4);
	CHECK_EQ(d.sizes[3], 1);
	CHECK_EQ(d.ev[6].cookie, 56);
	queue_records(fd, 60, 2);
	CHECK_EQ(twheel_drain(fd, ev, 2, NULL, NULL), 2);
	CHECK_EQ(ev[1].cookie, 61);
	CHECK_EQ(twheel_drain(fd, ev, 2, NULL, NULL), 0);
	close(fd);
}

/* twheel_batch_*(): what each appends, and the outcomes after submit. */
static void batch_build(void)
{
	int fd = manual_fd(MS);
	struct twheel_op ops[5], *a, *b, *m, *c, *q;
	struct twheel_batch batch;
	struct twheel_status st;
	uint64_t x, aid, bid;

	x = add(fd, 5, 50 * MS, 0, 0, CLOCK_MONOTONIC);
	memset(ops, 0x5A, sizeof(ops));
	twheel_batch_init(&batch, ops, 4);
	CHECK(batch.ops == ops);
	CHECK_EQ(batch.nr, 0);
	CHECK_EQ(batch.capacity, 4);

	a = twheel_batch_add(&batch, &(struct twheel_add){
		.cookie = 1,
		.expires_ns = 10 * MS,
		.clock = CLOCK_MONOTONIC,
		.id = 77,		/* an output: not copied */
	});
	b = twheel_batch_add(&batch, &(struct twheel_add){
		.cookie = 2,
		.expires_ns = 20 * MS,
		.period_ns = 5 * MS,
		.flags = TWHEEL_ABSTIME,
		.clock = CLOCK_BOOTTIME,
	});
	m = twheel_batch_modify(&batch, &(struct twheel_modify){
		.id = x,
		.cookie = 9,
		.expires_ns = 3 * MS,
		.flags = TWHEEL_SET_COOKIE,
		.result = 99,		/* an output: not copied */
	});
	c = twheel_batch_cancel(&batch, 123456789);
	CHECK(a == &ops[0] && b == &ops[1] && m == &ops[2] && c == &ops[3]);
	CHECK_EQ(batch.nr, 4);
	errno = 0;
	CHECK(!twheel_batch_query(&batch, x));
	CHECK_EQ(errno, ENOSPC);
	CHECK_EQ(batch.nr, 4);
	CHECK_EQ(ops[4].op, 0x5A5A5A5A);	/* past the capacity: untouched */

	/* Each appended op: its fields, every other one 0, not done yet. */
	CHECK_EQ(a->op, TWHEEL_OP_ADD);
	CHECK_EQ(a->flags, 0);
	CHECK_EQ(a->id, 0);
	CHECK_EQ(a->cookie, 1);
	CHECK_EQ(a->expires_ns, 10 * MS);
	CHECK_EQ(a->period_ns, 0);
	CHECK_EQ(a->clock, CLOCK_MONOTONIC);
	CHECK_EQ(a->error, -ECANCELED);
	CHECK_EQ(a->result, 0);
	CHECK_EQ(a->__reserved, 0);
	CHECK_EQ(a->count, 0);
	CHECK_EQ(a->remaining_ns, 0);
	CHECK_EQ(b->flags, TWHEEL_ABSTIME);
	CHECK_EQ(b->period_ns, 5 * MS);
	CHECK_EQ(b->clock, CLOCK_BOOTTIME);
	CHECK_EQ(m->op, TWHEEL_OP_MODIFY);
	CHECK_EQ(m->id, x);
	CHECK_EQ(m->cookie, 9);
	CHECK_EQ(m->expires_ns, 3 * MS);
	CHECK_EQ(m->flags, TWHEEL_SET_COOKIE);
	CHECK_EQ(m->result, 0);
	CHECK_EQ(m->clock, 0);
	CHECK_EQ(c->op, TWHEEL_OP_CANCEL);
	CHECK_EQ(c->id, 123456789);
	CHECK_EQ(c->flags, 0);
	CHECK_EQ(c->cookie, 0);
	CHECK_ERR(twheel_op_result(a), ECANCELED);	/* never done */

	CHECK_EQ(twheel_batch_submit(fd, &batch), 4);
	CHECK_EQ(batch.nr, 4);
	CHECK_EQ(twheel_op_result(a), 0);
	CHECK(a->id != 0 && a->id != x);
	CHECK_EQ(twheel_op_result(b), 0);
	CHECK(b->id != 0 && b->id != a->id);
	CHECK_EQ(twheel_op_result(m), TWHEEL_STATE_PENDING);
	CHECK_ERR(twheel_op_result(c), ENOENT);
	CHECK_EQ(c->error, -ENOENT);

	CHECK_EQ(twheel_query(fd, a->id, &st), 0);
	CHECK_STATUS(st, a->id, 1, CLOCK_MONOTONIC, TWHEEL_STATE_PENDING,
		     10 * MS, 10 * MS, 0, 0);
	CHECK_EQ(twheel_query(fd, b->id, &st), 0);
	CHECK_STATUS(st, b->id, 2, CLOCK_BOOTTIME, TWHEEL_STATE_PENDING,
		     20 * MS, 20 * MS, 5 * MS, 0);
	CHECK_EQ(twheel_query(fd, x, &st), 0);
	CHECK_STATUS(st, x, 9, CLOCK_MONOTONIC, TWHEEL_STATE_PENDING,
		     3 * MS, 3 * MS, 0, 0);

	aid = a->id;
	bid = b->id;

	/* Reused: a query and cancels; one not submitted stays ECANCELED. */
	twheel_batch_init(&batch, ops, 5);
	q = twheel_batch_query(&batch, aid);
	CHECK(q == &ops[0]);
	CHECK_EQ(q->op, TWHEEL_OP_QUERY);
	CHECK_EQ(q->id, aid);
	CHECK_EQ(q->expires_ns, 0);
	CHECK(twheel_batch_cancel(&batch, x) == &ops[1]);
	CHECK(twheel_batch_cancel(&batch, x) == &ops[2]);
	CHECK(twheel_batch_cancel(&batch, bid) == &ops[3]);
	CHECK_EQ(twheel_submit(fd, ops, 3), 3);	/* the 4th is not done */
	CHECK_EQ(twheel_op_result(&ops[0]), 0);
	CHECK_EQ(ops[0].cookie, 1);
	CHECK_EQ(ops[0].expires_ns, 10 * MS);
	CHECK_EQ(ops[0].remaining_ns, 10 * MS);
	CHECK_EQ(ops[0].result, TWHEEL_STATE_PENDING);
	CHECK_EQ(twheel_op_result(&ops[1]), TWHEEL_STATE_PENDING);
	CHECK_ERR(twheel_op_result(&ops[2]), ENOENT);
	CHECK_ERR(twheel_op_result(&ops[3]), ECANCELED);
	CHECK_EQ(twheel_query(fd, bid, &st), 0);	/* still there */

	/* Empty: 0, no call; a bad fd: the kernel's errno. */
	twheel_batch_init(&batch, ops, 5);
	CHECK_EQ(twheel_batch_submit(fd, &batch), 0);
	twheel_batch_cancel(&batch, bid);
	CHECK_ERR(twheel_batch_submit(-1, &batch), EBADF);
	CHECK_ERR(twheel_op_result(&ops[0]), ECANCELED);
	CHECK_EQ(twheel_batch_submit(fd, &batch), 1);
	CHECK_EQ(twheel_op_result(&ops[0]), TWHEEL_STATE_PENDING);
	close(fd);
}

/* A batch above TWHEEL_MAX_BATCH: submitted in parts, all of it done. */
#define NBIG	(2 * TWHEEL_MAX_BATCH + 500)
static void batch_large(void)
{
	static struct twheel_op ops[NBIG];
	static uint64_t ids[NBIG];
	int fd = manual_fd(MS);
	struct twheel_batch b;
	struct twheel_info info;
	struct twheel_event ev[8];
	size_t k;

	twheel_batch_init(&b, ops, NBIG);
	for (k = 0; k < NBIG; k++)
		CHECK(twheel_batch_add(&b, &(struct twheel_add){
			.cookie = k,
			.expires_ns = (int64_t)(k + 1) * MS,
			.clock = CLOCK_REALTIME,
		}));
	CHECK(!twheel_batch_add(&b, &(struct twheel_add){ .clock = 0 }));
	CHECK_EQ(twheel_batch_submit(fd, &b), NBIG);
	for (k = 0; k < NBIG; k++) {
		CHECK_EQ(twheel_op_result(&ops[k]), 0);
		ids[k] = ops[k].id;
		CHECK(ids[k] != 0);
		CHECK(k == 0 || ids[k] != ids[k - 1]);
	}
	CHECK_EQ(twheel_info(fd, &info), 0);
	CHECK_EQ(info.timers, NBIG);

	/* The first two fire; cancel all: 2 QUEUED (retracted), the rest PENDING. */
	CHECK_EQ(advance(fd, 2 * MS), 2 * MS);
	twheel_batch_init(&b, ops, NBIG);
	for (k = 0; k < NBIG; k++)
		CHECK(twheel_batch_cancel(&b, ids[k]));
	CHECK_EQ(twheel_batch_submit(fd, &b), NBIG);
	for (k = 0; k < NBIG; k++)
		CHECK_EQ(twheel_op_result(&ops[k]),
			 k < 2 ? TWHEEL_STATE_QUEUED : TWHEEL_STATE_PENDING);
	CHECK_EQ(twheel_info(fd, &info), 0);
	CHECK_EQ(info.timers, 0);
	CHECK_EQ(twheel_drain(fd, ev, 8, NULL, NULL), 0);
	close(fd);
}

/* twheel_op_result() of operations as the kernel writes them back. */
static void op_result(void)
{
	struct twheel_op op;
	static const uint32_t kinds[] = {
		TWHEEL_OP_ADD, TWHEEL_OP_MODIFY, TWHEEL_OP_CANCEL,
		TWHEEL_OP_QUERY,
	};
	static const int errs[] = { EINVAL, ENOENT, ENOSPC, ENOMEM };
	size_t k, e;

	for (k = 0; k < 4; k++) {
		memset(&op, 0, sizeof(op));
		op.op = kinds[k];
		op.result = TWHEEL_STATE_QUEUED;
		errno = 0;
		CHECK_EQ(twheel_op_result(&op),
			 kinds[k] == TWHEEL_OP_MODIFY ||
			 kinds[k] == TWHEEL_OP_CANCEL ?
			 TWHEEL_STATE_QUEUED : 0);
		CHECK_EQ(errno, 0);
		op.result = TWHEEL_STATE_PENDING;
		if (kinds[k] == TWHEEL_OP_MODIFY || kinds[k] == TWHEEL_OP_CANCEL)
			CHECK_EQ(twheel_op_result(&op), TWHEEL_STATE_PENDING);
		for (e = 0; e < 4; e++) {
			op.error = -errs[e];
			CHECK_ERR(twheel_op_result(&op), errs[e]);
		}
	}
}

/*
 * A new O_NONBLOCK fd on a manual clock (tick @tick_ns) with a table of
 * @max entries, mapped into *@t.
 */
#define table_fd(tick_ns, max, t)					\
	table_fd_at(__FILE__, __LINE__, (tick_ns), (max), (t))
static int table_fd_at(const char *file, int line, uint64_t tick_ns,
		       uint64_t max, struct twheel_table *t)
{
	struct twheel_config cfg;
	int fd = twheel_open(O_CLOEXEC | O_NONBLOCK);

	if (fd < 0)
		twt_fail(file, line, "twheel_open: %s", strerror(errno));
	memset(&cfg, 0, sizeof(cfg));
	cfg.tick_ns = tick_ns;
	cfg.flags = TWHEEL_CONFIG_MANUAL | TWHEEL_CONFIG_TABLE |
		    TWHEEL_CONFIG_MAX_TIMERS;
	cfg.max_timers = max;
	if (twheel_config(fd, &cfg) < 0)
		twt_fail(file, line, "twheel_config: %s", strerror(errno));
	if (twheel_table_map(fd, t) < 0)
		twt_fail(file, line, "twheel_table_map: %s", strerror(errno));
	return fd;
}

/* The entry of timer @id, as the application reads it. */
#define ENTRY(t, id)	((t)->entries[TWHEEL_TABLE_INDEX(id)])

/*
 * twheel_table_map(): the errnos (INFO's, and ENODEV without a table,
 * also after a configuration that dropped it), what it fills in, the
 * configuration fixed once mapped; twheel_table_unmap().
 */
static void table_map(void)
{
	long page = sysconf(_SC_PAGESIZE);
	struct twheel_table t, bad;
	struct twheel_config cfg;
	struct twheel_info info;
	int fd, null;
	uint64_t id;

	memset(&bad, 0xAA, sizeof(bad));
	t = bad;
	CHECK_ERR(twheel_table_map(-1, &t), EBADF);
	null = open("/dev/null", O_RDWR);
	CHECK(null >= 0);
	CHECK_ERR(twheel_table_map(null, &t), ENOTTY);
	close(null);
	/* No table: the kernel's mmap(2) says ENODEV too. */
	fd = manual_fd(MS);
	CHECK_ERR(twheel_table_map(fd, &t), ENODEV);
	CHECK_ERR(mmap(NULL, page, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0) ==
		  MAP_FAILED ? -1 : 0, ENODEV);
	close(fd);
	/* A later configuration without TWHEEL_CONFIG_TABLE drops it. */
	fd = twheel_open(O_CLOEXEC | O_NONBLOCK);
	CHECK(fd >= 0);
	memset(&cfg, 0, sizeof(cfg));
	cfg.tick_ns = MS;
	cfg.flags = TWHEEL_CONFIG_TABLE;
	CHECK_EQ(twheel_config(fd, &cfg), 0);
	CHECK_EQ(twheel_info(fd, &info), 0);
	CHECK_EQ(info.config_flags, TWHEEL_CONFIG_TABLE);
	CHECK(info.table_size > 0);
	cfg.flags = TWHEEL_CONFIG_MANUAL;
	CHECK_EQ(twheel_config(fd, &cfg), 0);
	CHECK_EQ(twheel_info(fd, &info), 0);
	CHECK_EQ(info.table_size, 0);
	CHECK_ERR(twheel_table_map(fd, &t), ENODEV);
	/* Nothing is written on failure. */
	CHECK(!memcmp(&t, &bad, sizeof(t)));
	close(fd);

	/* 1000 entries, on a 2 ms tick: whole pages, the fd's tick. */
	fd = table_fd(2 * MS, 1000, &t);
	CHECK_EQ(twheel_info(fd, &info), 0);
	CHECK_EQ(info.config_flags, TWHEEL_CONFIG_MANUAL | TWHEEL_CONFIG_TABLE);
	CHECK_EQ(info.max_timers, 1000);
	CHECK(t.entries != NULL);
	CHECK_EQ(t.size, info.table_size);
	CHECK_EQ(t.size % page, 0);
	CHECK(t.size >= 1000 * sizeof(uint64_t));
	CHECK(t.size < 1000 * sizeof(uint64_t) + page);
	CHECK_EQ(t.tick_ns, 2 * MS);
	/* Mapped: the configuration is fixed. */
	memset(&cfg, 0, sizeof(cfg));
	cfg.tick_ns = MS;
	cfg.flags = TWHEEL_CONFIG_MANUAL | TWHEEL_CONFIG_TABLE;
	CHECK_ERR(twheel_config(fd, &cfg), EBUSY);
	/* The kernel writes an added timer's deadline tick: 10 ms is tick 5. */
	id = add(fd, 1, 10 * MS, 0, 0, CLOCK_MONOTONIC);
	CHECK_EQ(ENTRY(&t, id), TWHEEL_TABLE_DEADLINE(id, 5));
	/* A second mapping is the same table. */
	CHECK_EQ(twheel_table_map(fd, &bad), 0);
	CHECK(bad.entries != t.entries);
	CHECK_EQ(ENTRY(&bad, id), TWHEEL_TABLE_DEADLINE(id, 5));
	twheel_table_push(&bad, id, 6);
	CHECK_EQ(ENTRY(&t, id), TWHEEL_TABLE_DEADLINE(id, 6));
	CHECK_EQ(twheel_table_unmap(&bad), 0);
	CHECK(bad.entries == NULL && bad.size == 0 && bad.tick_ns == 0);
	/* munmap(2) of no length, as the kernel says it. */
	CHECK_ERR(twheel_table_unmap(&bad), EINVAL);
	CHECK_EQ(twheel_table_unmap(&t), 0);
	CHECK(t.entries == NULL && t.size == 0 && t.tick_ns == 0);
	/* The timers do not depend on the mapping: tick 6 is 12 ms. */
	CHECK_EQ(advance(fd, 12 * MS), 12 * MS);
	{
		struct twheel_event ev;

		CHECK_EQ(twheel_read(fd, &ev, 1), 1);
		CHECK_EVENT(ev, id, 1, 12 * MS, 1, CLOCK_MONOTONIC);
	}
	close(fd);
}

/* twheel_table_tick(): rounded up, never early, for any sign. */
static void table_tick(void)
{
	struct twheel_table t = { .tick_ns = MS };

	CHECK_EQ(twheel_table_tick(&t, 0), 0);
	CHECK_EQ(twheel_table_tick(&t, 1), 1);
	CHECK_EQ(twheel_table_tick(&t, MS), 1);
	CHECK_EQ(twheel_table_tick(&t, MS + 1), 2);
	CHECK_EQ(twheel_table_tick(&t, 30 * MS), 30);
	CHECK_EQ(twheel_table_tick(&t, -1), 0);
	CHECK_EQ(twheel_table_tick(&t, -MS), -1);
	CHECK_EQ(twheel_table_tick(&t, -MS - 1), -1);
	CHECK_EQ(twheel_table_tick(&t, INT64_MAX), INT64_MAX / MS + 1);
	t.tick_ns = 3;
	CHECK_EQ(twheel_table_tick(&t, 7), 3);
	CHECK_EQ(twheel_table_tick(&t, 9), 3);
}

/*
 * Pushed back by a store: no record at the old deadline, one at the new
 * (twheel_table_expired() true for it), and no system call for the push;
 * a push to an earlier tick, or one made after the record was queued,
 * changes nothing (and the record tells the latter); a periodic timer
 * ignores pushes.
 */
static void table_push(void)
{
	struct twheel_event ev[4];
	struct twheel_status st;
	struct twheel_table t;
	uint64_t a, b, c, e, p;
	int fd = table_fd(MS, 100, &t);
	int64_t tick;

	a = add(fd, 1, 10 * MS, 0, 0, CLOCK_MONOTONIC);
	b = add(fd, 2, 10 * MS, 0, 0, CLOCK_BOOTTIME);
	CHECK_EQ(advance(fd, 5 * MS), 5 * MS);
	twheel_table_push(&t, a, 20);
	CHECK_EQ(ENTRY(&t, a), TWHEEL_TABLE_DEADLINE(a, 20));
	/* 15.5 ms: tick 16, so that it is not early. */
	tick = twheel_table_push_ns(&t, b, 15 * MS + 500 * TWHEEL_USEC);
	CHECK_EQ(tick, 16);
	CHECK_EQ(ENTRY(&t, b), TWHEEL_TABLE_DEADLINE(b, 16));

	/* The old deadline passes: no record, both placed again. */
	CHECK_EQ(advance(fd, 5 * MS), 10 * MS);
	CHECK_EMPTY(fd);
	CHECK_EQ(twheel_query(fd, a, &st), 0);
	CHECK_STATUS(st, a, 1, CLOCK_MONOTONIC, TWHEEL_STATE_PENDING,
		     20 * MS, 10 * MS, 0, 0);
	CHECK_EQ(advance(fd, 6 * MS - 1), 16 * MS - 1);
	CHECK_EMPTY(fd);
	CHECK_EQ(advance(fd, 1), 16 * MS);
	CHECK_EQ(twheel_read(fd, ev, 4), 1);
	CHECK_EVENT(ev[0], b, 2, 16 * MS, 1, CLOCK_BOOTTIME);
	CHECK(twheel_table_expired(&t, &ev[0], 16));
	/* Read, the timer ended: its entry is 0. */
	CHECK_EQ(ENTRY(&t, b), 0);
	/* Pushed before tick 20: placed again, for exactly 30 ms. */
	CHECK_EQ(twheel_table_push_ns(&t, a, 30 * MS), 30);
	CHECK_EQ(advance(fd, 4 * MS), 20 * MS);
	CHECK_EMPTY(fd);
	CHECK_EQ(advance(fd, 10 * MS - 1), 30 * MS - 1);
	CHECK_EMPTY(fd);
	CHECK_EQ(advance(fd, 1), 30 * MS);
	CHECK_EQ(twheel_read(fd, ev, 4), 1);
	CHECK_EVENT(ev[0], a, 1, 30 * MS, 1, CLOCK_MONOTONIC);
	CHECK(twheel_table_expired(&t, &ev[0], 30));
	CHECK(!twheel_table_expired(&t, &ev[0], 31));

	/* An earlier tick cannot move a timer forward: it expires as placed. */
	e = add(fd, 3, 10 * MS, 0, 0, CLOCK_MONOTONIC);	/* at 40 ms */
	twheel_table_push(&t, e, 35);
	CHECK_EQ(advance(fd, 5 * MS), 35 * MS);
	CHECK_EMPTY(fd);
	CHECK_EQ(advance(fd, 5 * MS), 40 * MS);
	CHECK_EQ(twheel_read(fd, ev, 4), 1);
	CHECK_EVENT(ev[0], e, 3, 40 * MS, 1, CLOCK_MONOTONIC);

	/* Too late: the record is queued; a push then changes nothing. */
	c = add(fd, 4, 10 * MS, 0, 0, CLOCK_MONOTONIC);	/* at 50 ms */
	CHECK_EQ(advance(fd, 10 * MS), 50 * MS);
	tick = twheel_table_push_ns(&t, c, 60 * MS);
	CHECK_EQ(twheel_read(fd, ev, 4), 1);
	CHECK_EVENT(ev[0], c, 4, 50 * MS, 1, CLOCK_MONOTONIC);
	CHECK(!twheel_table_expired(&t, &ev[0], tick));
	/* The one-shot timer ended with that record all the same. */
	CHECK_ERR(twheel_query(fd, c, &st), ENOENT);
	CHECK_EQ(advance(fd, 20 * MS), 70 * MS);
	CHECK_EMPTY(fd);

	/* A periodic timer ignores deadlines stored. */
	p = add(fd, 5, 10 * MS, 10 * MS, 0, CLOCK_MONOTONIC);	/* 80 ms */
	twheel_table_push(&t, p, 200);
	CHECK_EQ(advance(fd, 10 * MS), 80 * MS);
	CHECK_EQ(twheel_read(fd, ev, 4), 1);
	CHECK_EVENT(ev[0], p, 5, 80 * MS, 1, CLOCK_MONOTONIC);
	CHECK_EQ(twheel_cancel(fd, p), TWHEEL_STATE_PENDING);
	CHECK_EQ(twheel_table_unmap(&t), 0);
	close(fd);
}

/*
 * Cancelled by a store: a live timer until its deadline tick (in info's
 * timers), then gone with no record, and counted in info's cancelled;
 * too late, the record stays. A store aimed at an ended timer leaves the
 * next timer of its entry alone.
 */
static void table_cancel(void)
{
	struct twheel_event ev[4];
	struct twheel_status st;
	struct twheel_info info;
	struct twheel_table t;
	uint64_t a, b, c, x, y, z;
	int fd = table_fd(MS, 100, &t);

	a = add(fd, 1, 10 * MS, 0, 0, CLOCK_MONOTONIC);
	b = add(fd, 2, 10 * MS, 0, 0, CLOCK_MONOTONIC);
	twheel_table_cancel(&t, a);
	CHECK_EQ(ENTRY(&t, a), TWHEEL_TABLE_CANCELLED(a));
	CHECK_EQ(twheel_info(fd, &info), 0);
	CHECK_EQ(info.timers, 2);
	CHECK_EQ(info.cancelled, 0);
	CHECK_EQ(twheel_query(fd, a, &st), 0);
	CHECK_EQ(st.state, TWHEEL_STATE_PENDING);
	CHECK_EQ(advance(fd, 10 * MS - 1), 10 * MS - 1);
	CHECK_EMPTY(fd);
	/* Its deadline tick: a is freed with no record, b expires. */
	CHECK_EQ(advance(fd, 1), 10 * MS);
	CHECK_EQ(twheel_read(fd, ev, 4), 1);
	CHECK_EVENT(ev[0], b, 2, 10 * MS, 1, CLOCK_MONOTONIC);
	CHECK_ERR(twheel_query(fd, a, &st), ENOENT);
	CHECK_ERR(twheel_cancel(fd, a), ENOENT);
	CHECK_EQ(twheel_info(fd, &info), 0);
	CHECK_EQ(info.timers, 0);
	CHECK_EQ(info.cancelled, 1);

	/* Too late: its record is queued; the cancel store changes nothing. */
	c = add(fd, 3, 10 * MS, 0, 0, CLOCK_MONOTONIC);
	CHECK_EQ(advance(fd, 10 * MS), 20 * MS);
	twheel_table_cancel(&t, c);
	CHECK_EQ(twheel_read(fd, ev, 4), 1);
	CHECK_EVENT(ev[0], c, 3, 20 * MS, 1, CLOCK_MONOTONIC);
	CHECK_EQ(twheel_table_unmap(&t), 0);
	close(fd);

	/* One entry: the next timer takes the ended one's, with a new tag. */
	fd = table_fd(MS, 1, &t);
	x = add(fd, 4, 0, 0, 0, CLOCK_MONOTONIC);
	CHECK_EQ(twheel_read(fd, ev, 4), 1);
	CHECK_EQ(ev[0].id, x);
	y = add(fd, 5, 10 * MS, 0, 0, CLOCK_MONOTONIC);
	CHECK_EQ(TWHEEL_TABLE_INDEX(y), TWHEEL_TABLE_INDEX(x));
	CHECK(TWHEEL_TABLE_TAG(y) != TWHEEL_TABLE_TAG(x));
	twheel_table_cancel(&t, x);
	CHECK_EQ(twheel_info(fd, &info), 0);
	CHECK_EQ(info.cancelled, 0);
	CHECK_EQ(advance(fd, 10 * MS), 10 * MS);
	CHECK_EQ(twheel_read(fd, ev, 4), 1);
	CHECK_EVENT(ev[0], y, 5, 10 * MS, 1, CLOCK_MONOTONIC);
	/* And a push aimed at y does not move z. */
	z = add(fd, 6, 10 * MS, 0, 0, CLOCK_MONOTONIC);
	CHECK_EQ(TWHEEL_TABLE_INDEX(z), TWHEEL_TABLE_INDEX(y));
	twheel_table_push(&t, y, 1000);
	CHECK_EQ(advance(fd, 10 * MS), 20 * MS);
	CHECK_EQ(twheel_read(fd, ev, 4), 1);
	CHECK_EVENT(ev[0], z, 6, 20 * MS, 1, CLOCK_MONOTONIC);
	CHECK_EQ(twheel_table_unmap(&t), 0);
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
	 TWT_CASE(real_clock),
	 TWT_CASE(drain_buffer),
	 TWT_CASE(drain_callback),
	 TWT_CASE(drain_blocking),
	 TWT_CASE(batch_build),
	 TWT_CASE(batch_large),
	 TWT_CASE(op_result),
	 TWT_CASE(table_map),
	 TWT_CASE(table_tick),
	 TWT_CASE(table_push),
	 TWT_CASE(table_cancel))
