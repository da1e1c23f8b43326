// SPDX-License-Identifier: GPL-2.0
/*
 * fdcap: the most timers one fd may hold, set by TWHEEL_IOC_CONFIG
 * (struct twheel_config.max_timers, Netty's maxPendingTimeouts): ENOSPC
 * (with TWHEEL_CONFIG_MAX_TIMERS) beyond it, alone and in a batch,
 * records counting until read; INFO and fdinfo report it; above the
 * module's maximum EINVAL; without the flag the field must be 0; 0 and the
 * 16-byte struct of version 2 keep the maximum the fd was opened with;
 * EBUSY after the first timer; libtwheel's twheel_config() passes it.
 */
#include "libtwheel.h"
#include "twtest.h"

#define MS	1000000LL
#define PARAM_MAX	"/sys/module/twheel/parameters/max_timers"

/* TWHEEL_IOC_CONFIG with a maximum of timers; ioctl()'s result. */
static int config_max(int fd, uint32_t flags, uint64_t max)
{
	struct twheel_config c;

	memset(&c, 0, sizeof(c));
	c.tick_ns = MS;
	c.flags = flags | TWHEEL_CONFIG_MAX_TIMERS;
	c.max_timers = max;
	return ioctl(fd, TWHEEL_IOC_CONFIG, &c);
}

static void cap_enospc(void)
{
	int fd = twt_open(O_NONBLOCK);
	struct twheel_op ops[3];
	struct twheel_event ev[4];
	long long v;
	int i;

	CHECK_EQ(config_max(fd, TWHEEL_CONFIG_MANUAL, 3), 0);
	CHECK_EQ(twt_info(fd).max_timers, 3);
	CHECK_OK(twt_fdinfo(fd, "max_timers", &v));
	CHECK_EQ(v, 3);
	for (i = 0; i < 3; i++)
		twt_add(fd, i, (i + 1) * MS, TWHEEL_ABSTIME, CLOCK_MONOTONIC);
	CHECK_ERR(twt_add_raw(fd, 9, 10 * MS, TWHEEL_ABSTIME, CLOCK_MONOTONIC,
			      NULL), ENOSPC);
	/* A batch: each add beyond fails alone. */
	memset(ops, 0, sizeof(ops));
	for (i = 0; i < 3; i++) {
		ops[i].op = TWHEEL_OP_ADD;
		ops[i].expires_ns = MS;
		ops[i].clock = CLOCK_MONOTONIC;
	}
	CHECK_EQ(twt_submit_raw(fd, ops, 3), 3);
	for (i = 0; i < 3; i++)
		CHECK_EQ(ops[i].error, -ENOSPC);
	CHECK_EQ(twt_info(fd).timers, 3);
	/* Records count until read. */
	twt_advance(fd, 3 * MS);
	CHECK_EQ(twt_queued(fd), 3);
	CHECK_ERR(twt_add_raw(fd, 9, 10 * MS, TWHEEL_ABSTIME, CLOCK_MONOTONIC,
			      NULL), ENOSPC);
	CHECK_EQ(read(fd, ev, sizeof(ev)), 3 * sizeof(ev[0]));
	twt_add(fd, 9, 10 * MS, TWHEEL_ABSTIME, CLOCK_MONOTONIC);
	/* After the first timer: EBUSY, the maximum kept. */
	CHECK_ERR(config_max(fd, TWHEEL_CONFIG_MANUAL, 100), EBUSY);
	CHECK_EQ(twt_info(fd).max_timers, 3);
	close(fd);
}

static void cap_range(void)
{
	long long param = twt_sysfs_read(PARAM_MAX);
	int fd = twt_open(O_NONBLOCK);
	struct twheel_config c;

	CHECK(param > 0);
	/* Above what the fd was opened with: EINVAL, nothing set. */
	CHECK_ERR(config_max(fd, 0, (uint64_t)param + 1), EINVAL);
	CHECK_ERR(config_max(fd, 0, UINT64_MAX), EINVAL);
	CHECK_EQ(twt_info(fd).max_timers, param);
	/* Exactly that maximum, then lower, then 0: back to it. */
	CHECK_EQ(config_max(fd, 0, (uint64_t)param), 0);
	CHECK_EQ(config_max(fd, 0, 1), 0);
	CHECK_EQ(twt_info(fd).max_timers, 1);
	CHECK_EQ(config_max(fd, 0, 0), 0);
	CHECK_EQ(twt_info(fd).max_timers, param);
	/* Without TWHEEL_CONFIG_MAX_TIMERS the field must be 0. */
	memset(&c, 0, sizeof(c));
	c.tick_ns = MS;
	c.max_timers = 2;
	CHECK_ERR(ioctl(fd, TWHEEL_IOC_CONFIG, &c), EINVAL);
	c.max_timers = 0;
	CHECK_EQ(ioctl(fd, TWHEEL_IOC_CONFIG, &c), 0);
	CHECK_EQ(twt_info(fd).max_timers, param);
	/* The 16-byte struct of version 2 (no field): the maximum kept. */
	CHECK_EQ(config_max(fd, 0, 5), 0);
	memset(&c, 0, sizeof(c));
	c.tick_ns = MS;
	CHECK_EQ(ioctl(fd, _IOC(_IOC_WRITE, TWHEEL_IOC_TYPE, 0x07, 16), &c), 0);
	CHECK_EQ(twt_info(fd).max_timers, param);
	close(fd);
}

/* libtwheel reads max_timers only with the flag (older callers lack it). */
static void cap_libtwheel(void)
{
	int fd = twt_open(O_NONBLOCK);
	struct twheel_config c = { .tick_ns = MS, .max_timers = 7 };

	/* Without the flag: ignored, as from a 16-byte struct. */
	CHECK_EQ(twheel_config(fd, &c), 0);
	CHECK(twt_info(fd).max_timers > 7);
	c.flags = TWHEEL_CONFIG_MAX_TIMERS;
	CHECK_EQ(twheel_config(fd, &c), 0);
	CHECK_EQ(twt_info(fd).max_timers, 7);
	close(fd);
}

TWT_MAIN("fdcap",
	 TWT_CASE(cap_enospc),
	 TWT_CASE(cap_range),
	 TWT_CASE(cap_libtwheel))
