/* SPDX-License-Identifier: GPL-2.0 */
/*
 * libtwheel_test.h - what the libtwheel*.c programs share (libtwheel.c,
 * libtwheel_helpers.c, libtwheel_table.c): a manual-clock fd, an add and
 * an advance that fail the case on error, the checks of a record, of a
 * status and of an empty queue.
 */
#ifndef TWT_LIBTWHEEL_TEST_H
#define TWT_LIBTWHEEL_TEST_H

#include <fcntl.h>
#include <limits.h>

#include "twtest.h"
#include "libtwheel.h"

#define MS		TWHEEL_MSEC

/* A new O_NONBLOCK fd on a manual clock with a tick of @tick_ns. */
#define manual_fd(tick_ns)	manual_fd_at(__FILE__, __LINE__, (tick_ns))
static inline int manual_fd_at(const char *file, int line,
			       uint64_t tick_ns)
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
static inline uint64_t add_at(const char *file, int line, int fd,
			      uint64_t cookie, int64_t expires_ns,
			      uint64_t period_ns, uint32_t flags,
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
static inline int64_t advance_at(const char *file, int line, int fd,
				 uint64_t delta)
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

#endif /* TWT_LIBTWHEEL_TEST_H */
