/* SPDX-License-Identifier: GPL-2.0 */
/*
 * twtest.h - a small harness for twheel's integration tests.
 *
 * Each test program lists its cases with TWT_MAIN(). Every case runs in
 * its own forked child (so a crash or a leaked fd stays in that case) under
 * an alarm, and prints one line: "ok <prog>/<case>", "not ok <prog>/<case>"
 * or "ok <prog>/<case> # SKIP" (twt_skip()); diagnostics are lines starting
 * with "#".
 * The program exits with the number of failed cases (0: all passed).
 */
#ifndef TWTEST_H
#define TWTEST_H

#include <errno.h>
#include <stdarg.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

struct twt_case {
	const char *name;
	void (*fn)(void);
	unsigned int timeout_s;
};

#define TWT_CASE(fn)		{ #fn, fn, 60 }
#define TWT_CASE_T(fn, secs)	{ #fn, fn, secs }

static void __attribute__((noreturn, format(printf, 3, 4)))
twt_fail(const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	fprintf(stdout, "# %s:%d: ", file, line);
	va_start(ap, fmt);
	vfprintf(stdout, fmt, ap);
	va_end(ap);
	fputc('\n', stdout);
	fflush(stdout);
	_exit(1);
}

/* A case that cannot run here exits with this after saying why. */
#define TWT_SKIP_STATUS	77

/* twt_skip(why): end the case as skipped (reported, not counted as run). */
static inline void __attribute__((noreturn)) twt_skip(const char *why)
{
	fprintf(stdout, "# SKIP %s\n", why);
	fflush(stdout);
	_exit(TWT_SKIP_STATUS);
}

/* CHECK(cond): fail the case unless cond holds. */
#define CHECK(cond) do {						\
	if (!(cond))							\
		twt_fail(__FILE__, __LINE__, "CHECK(%s) failed (errno %d: %s)", \
			 #cond, errno, strerror(errno));		\
} while (0)

/* CHECK_EQ(a, b): integers, both values printed on failure. */
#define CHECK_EQ(a, b) do {						\
	long long _a = (long long)(a), _b = (long long)(b);		\
	if (_a != _b)							\
		twt_fail(__FILE__, __LINE__, "%s == %s: %lld != %lld",	\
			 #a, #b, _a, _b);				\
} while (0)

/* CHECK_ERR(call, err): call returns -1 and sets errno to err. */
#define CHECK_ERR(call, err) do {					\
	long long _r;							\
	errno = 0;							\
	_r = (long long)(call);						\
	if (_r != -1 || errno != (err))					\
		twt_fail(__FILE__, __LINE__,				\
			 "%s: want -1/%s, got %lld/%s", #call,		\
			 strerror(err), _r, strerror(errno));		\
} while (0)

/* CHECK_OK(call): call returns >= 0. */
#define CHECK_OK(call) do {						\
	long long _r;							\
	errno = 0;							\
	_r = (long long)(call);						\
	if (_r < 0)							\
		twt_fail(__FILE__, __LINE__, "%s: %lld (%s)", #call,	\
			 _r, strerror(errno));				\
} while (0)

static inline int twt_run(const char *prog, const struct twt_case *cases,
			  size_t n)
{
	int failed = 0;
	size_t i;

	setvbuf(stdout, NULL, _IOLBF, 0);
	for (i = 0; i < n; i++) {
		int status = 0;
		pid_t pid;

		fflush(stdout);
		pid = fork();
		if (pid < 0) {
			perror("fork");
			return 127;
		}
		if (pid == 0) {
			alarm(cases[i].timeout_s);
			cases[i].fn();
			fflush(stdout);
			_exit(0);
		}
		while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
			;
		if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
			printf("ok %s/%s\n", prog, cases[i].name);
			continue;
		}
		if (WIFEXITED(status) &&
		    WEXITSTATUS(status) == TWT_SKIP_STATUS) {
			printf("ok %s/%s # SKIP\n", prog, cases[i].name);
			continue;
		}
		failed++;
		if (WIFSIGNALED(status))
			printf("# killed by signal %d%s\n", WTERMSIG(status),
			       WTERMSIG(status) == SIGALRM ? " (time-out)" : "");
		printf("not ok %s/%s\n", prog, cases[i].name);
	}
	return failed;
}

#define TWT_MAIN(prog, ...)						\
int main(void)								\
{									\
	static const struct twt_case cases[] = { __VA_ARGS__ };		\
	return twt_run(prog, cases, sizeof(cases) / sizeof(cases[0]));	\
}

/*
 * Helpers for talking to /dev/twheel. All are static inline, so a program
 * that does not use one gets no warning. The twt_* macros that can fail
 * report the caller's file and line.
 */
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <stdint.h>
#include <time.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <linux/twheel.h>
#include <linux/userfaultfd.h>

#define TWT_DEV		"/dev/twheel"
#define TWT_US		1000LL
#define TWT_MS		1000000LL
#define TWT_S		1000000000LL
#define TWT_EV_SIZE	((ssize_t)sizeof(struct twheel_event))

#ifndef CLOCK_TAI
#define CLOCK_TAI	11
#endif
#ifndef CLOCK_REALTIME_ALARM
#define CLOCK_REALTIME_ALARM	8
#endif
#ifndef CLOCK_BOOTTIME_ALARM
#define CLOCK_BOOTTIME_ALARM	9
#endif

/*
 * The clocks a timer runs on (clockid_t values, ABI version 2), in the
 * order the tests loop over them: twt_clock(k) for k < TWT_NCLOCKS.
 */
#define TWT_NCLOCKS	4
static inline clockid_t twt_clock(unsigned int k)
{
	switch (k) {
	case 0:
		return CLOCK_MONOTONIC;
	case 1:
		return CLOCK_BOOTTIME;
	case 2:
		return CLOCK_REALTIME;
	default:
		return CLOCK_TAI;
	}
}

/* The clock's name as fdinfo spells it ("next_expiry_<name>_ns"). */
static inline const char *twt_clockname(clockid_t clock)
{
	switch (clock) {
	case CLOCK_MONOTONIC:
		return "monotonic";
	case CLOCK_BOOTTIME:
		return "boottime";
	case CLOCK_REALTIME:
		return "realtime";
	case CLOCK_TAI:
		return "tai";
	case CLOCK_REALTIME_ALARM:
		return "realtime_alarm";
	case CLOCK_BOOTTIME_ALARM:
		return "boottime_alarm";
	default:
		return "?";
	}
}

/* twt_now(clock): the time now on a clockid, in ns. */
static inline int64_t twt_now(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return (int64_t)ts.tv_sec * TWT_S + ts.tv_nsec;
}

/*
 * twt_wheel_point(clk, d): the first tick at which an fd's wheel whose
 * clock is at tick @clk moves a timer of deadline tick @d (after it):
 * @clk with the 6-bit digits up to the highest one in which they differ
 * cleared, and that digit set to @d's (kmod/twheel_wheel.c, "Placement").
 * The fd's hrtimer or alarm is armed there for it.
 */
static inline int64_t twt_wheel_point(int64_t clk, int64_t d)
{
	uint64_t x = (uint64_t)d ^ (uint64_t)clk;
	unsigned int shift = (63 - __builtin_clzll(x)) / 6 * 6;
	uint64_t low = (63ULL << shift) | ((1ULL << shift) - 1);

	return (int64_t)(((uint64_t)clk & ~low) |
			 ((uint64_t)d & (63ULL << shift)));
}

static inline int64_t twt_mono(void)
{
	return twt_now(CLOCK_MONOTONIC);
}

/* Set CLOCK_REALTIME to @ns; 0, or -1 with errno. No output. */
static inline int twt_set_realtime(int64_t ns)
{
	struct timespec ts = { .tv_sec = ns / TWT_S, .tv_nsec = ns % TWT_S };

	return clock_settime(CLOCK_REALTIME, &ts);
}

/* twt_sleep_ns(ns): sleep at least ns, across signals. */
static inline void twt_sleep_ns(int64_t ns)
{
	struct timespec ts;

	if (ns <= 0)
		return;
	ts.tv_sec = ns / TWT_S;
	ts.tv_nsec = ns % TWT_S;
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

#define twt_sleep_ms(ms)	twt_sleep_ns((int64_t)(ms) * TWT_MS)

/* twt_open(flags): open /dev/twheel O_RDWR | flags, or fail the case. */
#define twt_open(flags)		twt_open_at(__FILE__, __LINE__, (flags))
static inline int twt_open_at(const char *file, int line, int flags)
{
	int fd = open(TWT_DEV, O_RDWR | flags);

	if (fd < 0)
		twt_fail(file, line, "open %s: %s", TWT_DEV, strerror(errno));
	return fd;
}

/*
 * twt_add_raw(): TWHEEL_IOC_ADD of a one-shot timer as is: returns
 * ioctl()'s result (errno set) and, on success, the new id in *id (if id
 * is not NULL). twt_addp_raw(): the same with a period.
 */
static inline int twt_addp_raw(int fd, uint64_t cookie, int64_t expires_ns,
			       uint64_t period_ns, uint32_t flags,
			       uint32_t clock, uint64_t *id)
{
	struct twheel_add a;
	int ret;

	memset(&a, 0, sizeof(a));
	a.cookie = cookie;
	a.expires_ns = expires_ns;
	a.period_ns = period_ns;
	a.flags = flags;
	a.clock = clock;
	ret = ioctl(fd, TWHEEL_IOC_ADD, &a);
	if (ret == 0 && id)
		*id = a.id;
	return ret;
}

static inline int twt_add_raw(int fd, uint64_t cookie, int64_t expires_ns,
			      uint32_t flags, uint32_t clock, uint64_t *id)
{
	return twt_addp_raw(fd, cookie, expires_ns, 0, flags, clock, id);
}

/*
 * twt_add(): add a one-shot timer and return its id, or fail the case.
 * twt_add_rel(): relative, on CLOCK_MONOTONIC; twt_add_abs(): absolute.
 * twt_addp(): with a period (0: one-shot).
 */
#define twt_add(fd, cookie, expires, flags, clock)			\
	twt_addp_at(__FILE__, __LINE__, (fd), (cookie), (expires), 0,	\
		    (flags), (clock))
#define twt_addp(fd, cookie, expires, period, flags, clock)		\
	twt_addp_at(__FILE__, __LINE__, (fd), (cookie), (expires),	\
		    (period), (flags), (clock))
#define twt_add_rel(fd, cookie, ns)					\
	twt_add((fd), (cookie), (ns), 0, CLOCK_MONOTONIC)
#define twt_add_abs(fd, cookie, ns, clock)				\
	twt_add((fd), (cookie), (ns), TWHEEL_ABSTIME, (clock))
static inline uint64_t twt_addp_at(const char *file, int line, int fd,
				   uint64_t cookie, int64_t expires_ns,
				   uint64_t period_ns, uint32_t flags,
				   uint32_t clock)
{
	uint64_t id = 0;

	if (twt_addp_raw(fd, cookie, expires_ns, period_ns, flags, clock,
			 &id) != 0)
		twt_fail(file, line,
			 "TWHEEL_IOC_ADD(cookie %" PRIu64 ", expires %" PRId64
			 ", period %" PRIu64 ", flags %#x, clock %u): %s",
			 cookie, expires_ns, period_ns, flags, clock,
			 strerror(errno));
	if (id == 0)
		twt_fail(file, line, "TWHEEL_IOC_ADD returned id 0");
	return id;
}

/* twt_cancel_raw(): TWHEEL_IOC_CANCEL as is; *result on success. */
static inline int twt_cancel_raw(int fd, uint64_t id, uint32_t flags,
				 uint32_t *result)
{
	struct twheel_cancel c;
	int ret;

	memset(&c, 0, sizeof(c));
	c.id = id;
	c.flags = flags;
	ret = ioctl(fd, TWHEEL_IOC_CANCEL, &c);
	if (ret == 0 && result)
		*result = c.result;
	return ret;
}

/* twt_cancel(fd, id): cancel, return the result, or fail the case. */
#define twt_cancel(fd, id)	twt_cancel_at(__FILE__, __LINE__, (fd), (id))
static inline uint32_t twt_cancel_at(const char *file, int line, int fd,
				     uint64_t id)
{
	uint32_t result = 0;

	if (twt_cancel_raw(fd, id, 0, &result) != 0)
		twt_fail(file, line, "TWHEEL_IOC_CANCEL(%" PRIu64 "): %s", id,
			 strerror(errno));
	if (result != TWHEEL_STATE_PENDING && result != TWHEEL_STATE_QUEUED)
		twt_fail(file, line, "TWHEEL_IOC_CANCEL(%" PRIu64
			 "): result %u", id, result);
	return result;
}

/*
 * twt_modify_raw(): TWHEEL_IOC_MODIFY as is; *result on success. The
 * cookie is used only with TWHEEL_SET_COOKIE in flags.
 */
static inline int twt_modify_raw(int fd, uint64_t id, uint64_t cookie,
				 int64_t expires_ns, uint64_t period_ns,
				 uint32_t flags, uint32_t *result)
{
	struct twheel_modify m;
	int ret;

	memset(&m, 0, sizeof(m));
	m.id = id;
	m.cookie = cookie;
	m.expires_ns = expires_ns;
	m.period_ns = period_ns;
	m.flags = flags;
	ret = ioctl(fd, TWHEEL_IOC_MODIFY, &m);
	if (ret == 0 && result)
		*result = m.result;
	return ret;
}

/* twt_modify(): modify (cookie kept), return the result, or fail. */
#define twt_modify(fd, id, expires, period, flags)			\
	twt_modify_at(__FILE__, __LINE__, (fd), (id), (expires),	\
		      (period), (flags))
static inline uint32_t twt_modify_at(const char *file, int line, int fd,
				     uint64_t id, int64_t expires_ns,
				     uint64_t period_ns, uint32_t flags)
{
	uint32_t result = 0;

	if (twt_modify_raw(fd, id, 0, expires_ns, period_ns, flags,
			   &result) != 0)
		twt_fail(file, line, "TWHEEL_IOC_MODIFY(%" PRIu64 ", expires %"
			 PRId64 ", period %" PRIu64 ", flags %#x): %s", id,
			 expires_ns, period_ns, flags, strerror(errno));
	if (result != TWHEEL_STATE_PENDING && result != TWHEEL_STATE_QUEUED)
		twt_fail(file, line, "TWHEEL_IOC_MODIFY(%" PRIu64
			 "): result %u", id, result);
	return result;
}

/* twt_query_raw(): TWHEEL_IOC_QUERY as is; *st on success. */
static inline int twt_query_raw(int fd, uint64_t id, struct twheel_status *st)
{
	struct twheel_query q;
	int ret;

	memset(&q, 0, sizeof(q));
	q.id = id;
	ret = ioctl(fd, TWHEEL_IOC_QUERY, &q);
	if (ret == 0 && st)
		*st = q.status;
	return ret;
}

/* twt_query(fd, id): the timer's status, or fail the case. */
#define twt_query(fd, id)	twt_query_at(__FILE__, __LINE__, (fd), (id))
static inline struct twheel_status twt_query_at(const char *file, int line,
						int fd, uint64_t id)
{
	struct twheel_status st;

	memset(&st, 0, sizeof(st));
	if (twt_query_raw(fd, id, &st) != 0)
		twt_fail(file, line, "TWHEEL_IOC_QUERY(%" PRIu64 "): %s", id,
			 strerror(errno));
	return st;
}

/* twt_config_raw(): TWHEEL_IOC_CONFIG as is. */
static inline int twt_config_raw(int fd, uint64_t tick_ns, uint32_t flags)
{
	struct twheel_config c;

	memset(&c, 0, sizeof(c));
	c.tick_ns = tick_ns;
	c.flags = flags;
	return ioctl(fd, TWHEEL_IOC_CONFIG, &c);
}

/* twt_config(fd, tick_ns, flags): configure the fd, or fail the case. */
#define twt_config(fd, tick, flags)					\
	twt_config_at(__FILE__, __LINE__, (fd), (tick), (flags))
static inline void twt_config_at(const char *file, int line, int fd,
				 uint64_t tick_ns, uint32_t flags)
{
	if (twt_config_raw(fd, tick_ns, flags) != 0)
		twt_fail(file, line, "TWHEEL_IOC_CONFIG(tick %" PRIu64
			 ", flags %#x): %s", tick_ns, flags, strerror(errno));
}

/* twt_advance_raw(): TWHEEL_IOC_ADVANCE as is; *now_ns on success. */
static inline int twt_advance_raw(int fd, uint64_t delta_ns, int64_t *now_ns)
{
	struct twheel_advance a;
	int ret;

	memset(&a, 0, sizeof(a));
	a.delta_ns = delta_ns;
	ret = ioctl(fd, TWHEEL_IOC_ADVANCE, &a);
	if (ret == 0 && now_ns)
		*now_ns = a.now_ns;
	return ret;
}

/* twt_advance(fd, delta_ns): move the manual clock; its time after. */
#define twt_advance(fd, delta)						\
	twt_advance_at(__FILE__, __LINE__, (fd), (delta))
static inline int64_t twt_advance_at(const char *file, int line, int fd,
				     uint64_t delta_ns)
{
	int64_t now = 0;

	if (twt_advance_raw(fd, delta_ns, &now) != 0)
		twt_fail(file, line, "TWHEEL_IOC_ADVANCE(%" PRIu64 "): %s",
			 delta_ns, strerror(errno));
	return now;
}

/*
 * twt_open_manual(flags, tick_ns): a new fd on the manual clock (at 0)
 * with that tick, or fail the case.
 */
#define twt_open_manual(flags, tick)					\
	twt_open_manual_at(__FILE__, __LINE__, (flags), (tick))
static inline int twt_open_manual_at(const char *file, int line, int flags,
				     uint64_t tick_ns)
{
	int fd = twt_open_at(file, line, flags);

	twt_config_at(file, line, fd, tick_ns, TWHEEL_CONFIG_MANUAL);
	return fd;
}

/*
 * twt_submit_raw(fd, ops, nr): TWHEEL_IOC_SUBMIT as is: the operations
 * done, or -1 with errno.
 */
static inline int twt_submit_raw(int fd, struct twheel_op *ops, uint32_t nr)
{
	struct twheel_submit s;

	memset(&s, 0, sizeof(s));
	s.ops = (uint64_t)(uintptr_t)ops;
	s.nr = nr;
	s.op_size = sizeof(*ops);
	return ioctl(fd, TWHEEL_IOC_SUBMIT, &s);
}

/* twt_info(fd): struct twheel_info, or fail the case. */
#define twt_info(fd)		twt_info_at(__FILE__, __LINE__, (fd))
static inline struct twheel_info twt_info_at(const char *file, int line,
					     int fd)
{
	struct twheel_info info;

	memset(&info, 0xAA, sizeof(info));
	if (ioctl(fd, TWHEEL_IOC_INFO, &info) != 0)
		twt_fail(file, line, "TWHEEL_IOC_INFO: %s", strerror(errno));
	return info;
}

#define twt_timers(fd)		(twt_info(fd).timers)
#define twt_queued(fd)		(twt_info(fd).queued)

/* twt_poll(fd, timeout_ms): the revents of one poll(2) (0: time-out). */
static inline int twt_poll(int fd, int timeout_ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN | POLLRDNORM };
	int n;

	do {
		n = poll(&p, 1, timeout_ms);
	} while (n < 0 && errno == EINTR);
	return n > 0 ? p.revents : n;
}

/*
 * twt_read_n(fd, ev, n, timeout_ms): read exactly n records into ev[],
 * waiting with poll(2) up to timeout_ms in all; works on blocking and
 * non-blocking fds (it only reads when poll says readable). Fails the case
 * on an error, a time-out, or a read that is not a multiple of a record.
 */
#define twt_read_n(fd, ev, n, timeout_ms)				\
	twt_read_n_at(__FILE__, __LINE__, (fd), (ev), (n), (timeout_ms))
static inline void twt_read_n_at(const char *file, int line, int fd,
				 struct twheel_event *ev, size_t n,
				 int64_t timeout_ms)
{
	int64_t end = twt_mono() + timeout_ms * TWT_MS;
	size_t got = 0;

	while (got < n) {
		int64_t left = (end - twt_mono()) / TWT_MS;
		ssize_t r;
		int pr;

		if (left < 0)
			twt_fail(file, line, "read %zu of %zu records in %" PRId64
				 " ms", got, n, timeout_ms);
		pr = twt_poll(fd, left > 1000 ? 1000 : (int)left + 1);
		if (pr < 0)
			twt_fail(file, line, "poll: %s", strerror(errno));
		if (!(pr & POLLIN))
			continue;
		r = read(fd, ev + got, (n - got) * sizeof(*ev));
		if (r < 0 && errno == EAGAIN)
			continue;
		if (r <= 0 || r % TWT_EV_SIZE)
			twt_fail(file, line, "read: %zd (%s)", r,
				 r < 0 ? strerror(errno) : "short");
		got += r / TWT_EV_SIZE;
	}
}

/*
 * Read every queued record (fd O_NONBLOCK) into ev[], at most cap; more
 * than cap queued fails the case.
 */
#define twt_drain(fd, ev, cap)						\
	twt_drain_at(__FILE__, __LINE__, (fd), (ev), (cap))
static inline size_t twt_drain_at(const char *file, int line, int fd,
				  struct twheel_event *ev, size_t cap)
{
	size_t n = 0;

	for (;;) {
		struct twheel_event extra;
		ssize_t r;

		if (n == cap)
			r = read(fd, &extra, sizeof(extra));
		else
			r = read(fd, ev + n, (cap - n) * sizeof(*ev));
		if (r < 0 && errno == EAGAIN)
			return n;
		if (n == cap)
			twt_fail(file, line, "more than %zu records", cap);
		if (r <= 0 || r % TWT_EV_SIZE)
			twt_fail(file, line, "read: %zd (%s)", r,
				 r < 0 ? strerror(errno) : "short");
		n += r / TWT_EV_SIZE;
	}
}

/* The record of timer @id among ev[0..n), or NULL. */
static inline const struct twheel_event *
twt_find_ev(const struct twheel_event *ev, size_t n, uint64_t id)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (ev[i].id == id)
			return &ev[i];
	return NULL;
}

/* Nothing queued: poll says so, read says so, INFO says so. */
#define CHECK_NONE_QUEUED(fd) do {					\
	struct twheel_event _e;						\
									\
	CHECK_EQ(twt_poll((fd), 0), 0);					\
	CHECK_ERR(read((fd), &_e, sizeof(_e)), EAGAIN);			\
	CHECK_EQ(twt_queued(fd), 0);					\
} while (0)

/* Does the module have the alarm clocks (TWHEEL_FEATURE_ALARM)? */
static inline int twt_has_alarm(int fd)
{
	return !!(twt_info(fd).features & TWHEEL_FEATURE_ALARM);
}

/* Skip the case unless the module has the alarm clocks. */
static inline void twt_need_alarm(int fd)
{
	if (!twt_has_alarm(fd))
		twt_skip("module without TWHEEL_FEATURE_ALARM");
}

/*
 * An epoll set watching @fd for @events (data.u64 0x1234); -1 with errno
 * (and no fd left open).
 */
static inline int twt_ep_new(int fd, uint32_t events)
{
	int ep = epoll_create1(EPOLL_CLOEXEC);
	struct epoll_event e = { .events = events, .data.u64 = 0x1234 };
	int err;

	if (ep < 0)
		return -1;
	if (epoll_ctl(ep, EPOLL_CTL_ADD, fd, &e) < 0) {
		err = errno;
		close(ep);
		errno = err;
		return -1;
	}
	return ep;
}

/* One epoll_wait(2) (again on EINTR): fds reported, *@events the first's. */
static inline int twt_ep_wait(int ep, int timeout_ms, uint32_t *events)
{
	struct epoll_event e[4];
	int n;

	do {
		n = epoll_wait(ep, e, 4, timeout_ms);
	} while (n < 0 && errno == EINTR);
	if (n > 0 && events)
		*events = e[0].events;
	return n;
}

#include "twtest_sys.h"

#endif /* TWTEST_H */
