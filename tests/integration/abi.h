/* SPDX-License-Identifier: GPL-2.0 */
/*
 * abi.h - what the abi_* programs share (abi.c lists them): the module's
 * expected INFO fields, a command number with another size, junk values.
 *
 * Each bad call of those programs gives its errno and changes nothing
 * (checked with TWHEEL_IOC_INFO, TWHEEL_IOC_QUERY, the manual clock, and
 * by no record appearing): CHECK_UNTOUCHED() here, the undone() of each
 * command in abi_table.h.
 */
#ifndef ABI_H
#define ABI_H

#include <stddef.h>

#include "twtest.h"

#define PARAM_MAX	"/sys/module/twheel/parameters/max_timers"
#define TICK		((int64_t)TWHEEL_DEFAULT_TICK_NS)

/* Every ioctl number the header defines (bits 0..8) and clock it takes. */
#define ALL_IOCTLS	0x1FFULL
#define ALL_CLOCKS	((1ULL << CLOCK_REALTIME) |			\
			 (1ULL << CLOCK_MONOTONIC) |			\
			 (1ULL << CLOCK_BOOTTIME) | (1ULL << CLOCK_TAI) | \
			 (1ULL << CLOCK_REALTIME_ALARM) |		\
			 (1ULL << CLOCK_BOOTTIME_ALARM))
#define ALL_FEATURES	(TWHEEL_FEATURE_PERIODIC | TWHEEL_FEATURE_TIMENS | \
			 TWHEEL_FEATURE_MANUAL_CLOCK |			\
			 TWHEEL_FEATURE_RELATIVE_WALL | TWHEEL_FEATURE_URING | \
			 TWHEEL_FEATURE_MISSED | TWHEEL_FEATURE_FD_MAX_TIMERS | \
			 TWHEEL_FEATURE_TABLE | TWHEEL_FEATURE_ALARM |	\
			 TWHEEL_FEATURE_CLOCK_SET | TWHEEL_FEATURE_RING)

/* The version 1 size of struct twheel_info. */
#define INFO_V1_SIZE	40

/* A command number with another size: same type, number, direction. */
#define CMD_SIZE(cmd, size)						\
	_IOC(_IOC_DIR(cmd), _IOC_TYPE(cmd), _IOC_NR(cmd), (size))

/*
 * The fd holds exactly `timers` timers, none queued, and nothing becomes
 * readable within a short wait: no bad call left anything behind.
 */
#define CHECK_UNTOUCHED(fd, ntimers) do {				\
	struct twheel_info _i = twt_info(fd);				\
	struct twheel_event _e;						\
									\
	CHECK_EQ(_i.timers, (ntimers));					\
	CHECK_EQ(_i.queued, 0);						\
	CHECK_EQ(twt_poll((fd), 50), 0);				\
	CHECK_ERR(read((fd), &_e, sizeof(_e)), EAGAIN);			\
} while (0)

/* The same without the wait (the timers a bad call could add are far). */
#define CHECK_UNTOUCHED_NOW(fd, ntimers) do {				\
	struct twheel_info _i = twt_info(fd);				\
	struct twheel_event _e;						\
									\
	CHECK_EQ(_i.timers, (ntimers));					\
	CHECK_EQ(_i.queued, 0);						\
	CHECK_ERR(read((fd), &_e, sizeof(_e)), EAGAIN);			\
} while (0)

/* Junk in out fields and unused bytes: a call that wrote them is seen. */
#define JUNK64	0xAAAAAAAAAAAAAAAAULL
#define JUNK32	0xAAAAAAAAU
#define OP_JUNK	0x5A5A5A5A

/*
 * The fields of a struct twheel_info that describe the module (not the
 * fd), as the header defines them. Only those within the first len bytes
 * (the caller's size) are checked.
 */
#define INFO_HAS(len, f)	((len) >= offsetof(struct twheel_info, f) + \
				 sizeof(((struct twheel_info *)0)->f))
static inline void check_info_module(const struct twheel_info *i, size_t len)
{
	CHECK_EQ(i->version, TWHEEL_ABI_VERSION);
	CHECK_EQ(i->event_size, sizeof(struct twheel_event));
	CHECK_EQ(i->max_timers, twt_sysfs_read(PARAM_MAX));
	if (INFO_HAS(len, features))
		CHECK_EQ(i->features, ALL_FEATURES);
	if (INFO_HAS(len, ioctls))
		CHECK_EQ(i->ioctls, ALL_IOCTLS);
	if (INFO_HAS(len, clocks))
		CHECK_EQ(i->clocks, ALL_CLOCKS);
	if (INFO_HAS(len, min_tick_ns))
		CHECK_EQ(i->min_tick_ns, TWHEEL_MIN_TICK_NS);
	if (INFO_HAS(len, max_tick_ns))
		CHECK_EQ(i->max_tick_ns, TWHEEL_MAX_TICK_NS);
	if (INFO_HAS(len, op_size))
		CHECK_EQ(i->op_size, sizeof(struct twheel_op));
	if (INFO_HAS(len, status_size))
		CHECK_EQ(i->status_size, sizeof(struct twheel_status));
	if (INFO_HAS(len, max_batch))
		CHECK_EQ(i->max_batch, TWHEEL_MAX_BATCH);
}

/* The per-fd fields of an fd without a table, within len bytes. */
static inline void check_info_no_table(const struct twheel_info *i, size_t len)
{
	if (INFO_HAS(len, table_size))
		CHECK_EQ(i->table_size, 0);
	if (INFO_HAS(len, cancelled))
		CHECK_EQ(i->cancelled, 0);
}

#endif /* ABI_H */
