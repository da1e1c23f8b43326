// SPDX-License-Identifier: GPL-2.0
/*
 * abi_info: the TWHEEL_IOC_INFO handshake and fdinfo. INFO on a new fd
 * (every field), after TWHEEL_IOC_CONFIG, with version 1's 40-byte
 * struct (exactly 40 bytes written), its timers and queued counts
 * following adds, expiries, reads and cancels, all 112 bytes written and
 * nothing after them; fdinfo's keys, the next expiry of each clock.
 */
#include "abi.h"

/* The handshake on a new fd: every field. */
static void info_fresh(void)
{
	int fd = twt_open(O_NONBLOCK);
	struct twheel_info i = twt_info(fd);
	long long param = twt_sysfs_read(PARAM_MAX);
	unsigned long cmds[] = {
		TWHEEL_IOC_INFO, TWHEEL_IOC_ADD, TWHEEL_IOC_CANCEL,
		TWHEEL_IOC_MODIFY, TWHEEL_IOC_QUERY, TWHEEL_IOC_LIST,
		TWHEEL_IOC_SUBMIT, TWHEEL_IOC_CONFIG, TWHEEL_IOC_ADVANCE,
	};
	uint64_t bits = 0;
	unsigned int k;

	printf("# info: version %u event_size %u tick %llu features %#llx ioctls %#llx clocks %#llx ticks %llu..%llu config %#x op %u status %u batch %u\n",
	       i.version, i.event_size, (unsigned long long)i.tick_ns,
	       (unsigned long long)i.features, (unsigned long long)i.ioctls,
	       (unsigned long long)i.clocks,
	       (unsigned long long)i.min_tick_ns,
	       (unsigned long long)i.max_tick_ns, i.config_flags, i.op_size,
	       i.status_size, i.max_batch);
	CHECK_EQ(i.version, 2);
	CHECK_EQ(i.event_size, 40);
	CHECK_EQ(i.op_size, 72);
	CHECK_EQ(i.status_size, 56);
	CHECK_EQ(i.max_batch, 1024);
	CHECK_EQ(i.min_tick_ns, 1000);
	CHECK_EQ(i.max_tick_ns, 1000000000);
	CHECK_EQ(i.tick_ns, TWHEEL_DEFAULT_TICK_NS);
	CHECK_EQ(i.timers, 0);
	CHECK_EQ(i.queued, 0);
	CHECK_EQ(i.config_flags, 0);
	CHECK_EQ(param, 1048576);	/* the default; nobody changed it */
	CHECK_EQ(i.max_timers, param);
	/* Exactly the nine ioctls, bits 0..8, one per command. */
	for (k = 0; k < sizeof(cmds) / sizeof(cmds[0]); k++)
		bits |= 1ULL << _IOC_NR(cmds[k]);
	CHECK_EQ(bits, ALL_IOCTLS);
	CHECK_EQ(i.ioctls, 0x1FF);
	/* Exactly the six clocks: bits 0, 1, 7, 8, 9, 11. */
	CHECK_EQ(i.clocks, (1 << 0) | (1 << 1) | (1 << 7) | (1 << 8) |
			   (1 << 9) | (1 << 11));
	for (k = 0; k < TWT_NCLOCKS; k++)
		CHECK(i.clocks & (1ULL << twt_clock(k)));
	/* Every feature the header defines, and no other bit. */
	CHECK_EQ(i.features, 0x7FF);
	check_info_module(&i, sizeof(i));
	check_info_no_table(&i, sizeof(i));
	close(fd);
}

/* TWHEEL_IOC_CONFIG with TWHEEL_CONFIG_MAX_TIMERS, or fail the case. */
static void abi_config_max(int fd, uint64_t tick_ns, uint32_t flags,
			   uint64_t max_timers)
{
	struct twheel_config c;

	memset(&c, 0, sizeof(c));
	c.tick_ns = tick_ns;
	c.flags = flags | TWHEEL_CONFIG_MAX_TIMERS;
	c.max_timers = max_timers;
	CHECK_EQ(ioctl(fd, TWHEEL_IOC_CONFIG, &c), 0);
}

/*
 * config_flags and tick_ns follow TWHEEL_IOC_CONFIG (the last one before
 * the first timer counts); the module fields stay as they are.
 */
static void info_config(void)
{
	int fd = twt_open(O_NONBLOCK);
	struct twheel_info i;

	twt_config(fd, 250000, TWHEEL_CONFIG_MANUAL);
	i = twt_info(fd);
	CHECK_EQ(i.config_flags, TWHEEL_CONFIG_MANUAL);
	CHECK_EQ(i.tick_ns, 250000);
	check_info_module(&i, sizeof(i));
	twt_config(fd, TWHEEL_MAX_TICK_NS, 0);
	i = twt_info(fd);
	CHECK_EQ(i.config_flags, 0);
	CHECK_EQ(i.tick_ns, TWHEEL_MAX_TICK_NS);
	twt_config(fd, TWHEEL_MIN_TICK_NS, TWHEEL_CONFIG_MANUAL);
	i = twt_info(fd);
	CHECK_EQ(i.config_flags, TWHEEL_CONFIG_MANUAL);
	CHECK_EQ(i.tick_ns, TWHEEL_MIN_TICK_NS);
	check_info_no_table(&i, sizeof(i));
	/* Clock-set records: reported alone and with the manual clock. */
	twt_config(fd, TWHEEL_MIN_TICK_NS, TWHEEL_CONFIG_CLOCK_SET);
	i = twt_info(fd);
	CHECK_EQ(i.config_flags, TWHEEL_CONFIG_CLOCK_SET);
	check_info_module(&i, sizeof(i));
	twt_config(fd, TWHEEL_MIN_TICK_NS,
		   TWHEEL_CONFIG_MANUAL | TWHEEL_CONFIG_CLOCK_SET);
	i = twt_info(fd);
	CHECK_EQ(i.config_flags,
		 TWHEEL_CONFIG_MANUAL | TWHEEL_CONFIG_CLOCK_SET);
	CHECK_EQ(i.queued, 0);
	twt_config(fd, TWHEEL_MIN_TICK_NS, TWHEEL_CONFIG_MANUAL);
	i = twt_info(fd);
	CHECK_EQ(i.config_flags, TWHEEL_CONFIG_MANUAL);
	/*
	 * A table of 1000 entries: 8000 bytes, two pages; the flag is
	 * reported with the manual clock's.
	 */
	abi_config_max(fd, TWHEEL_MIN_TICK_NS,
		       TWHEEL_CONFIG_MANUAL | TWHEEL_CONFIG_TABLE, 1000);
	i = twt_info(fd);
	CHECK_EQ(i.config_flags, TWHEEL_CONFIG_MANUAL | TWHEEL_CONFIG_TABLE);
	CHECK_EQ(i.max_timers, 1000);
	CHECK_EQ(i.table_size, 2 * 4096);
	CHECK_EQ(i.cancelled, 0);
	/*
	 * A configuration without the flag takes the table away (and
	 * without TWHEEL_CONFIG_MAX_TIMERS, the fd's maximum is back).
	 */
	twt_config(fd, TWHEEL_MIN_TICK_NS, TWHEEL_CONFIG_MANUAL);
	i = twt_info(fd);
	CHECK_EQ(i.config_flags, TWHEEL_CONFIG_MANUAL);
	check_info_module(&i, sizeof(i));
	check_info_no_table(&i, sizeof(i));
	/* The first timer fixes it; it is reported as it was. */
	twt_add_rel(fd, 1, TWT_S);
	CHECK_ERR(twt_config_raw(fd, TWHEEL_DEFAULT_TICK_NS, 0), EBUSY);
	i = twt_info(fd);
	CHECK_EQ(i.config_flags, TWHEEL_CONFIG_MANUAL);
	CHECK_EQ(i.tick_ns, TWHEEL_MIN_TICK_NS);
	CHECK_EQ(i.timers, 1);
	check_info_module(&i, sizeof(i));
	/* Other fds are not configured. */
	close(fd);
	fd = twt_open(0);
	i = twt_info(fd);
	CHECK_EQ(i.config_flags, 0);
	CHECK_EQ(i.tick_ns, TWHEEL_DEFAULT_TICK_NS);
	close(fd);
}

/*
 * A program of version 1 asks with its 40-byte struct: it works, says
 * version 2, and exactly 40 bytes are written.
 */
static void info_v1_size(void)
{
	int fd = twt_open(O_NONBLOCK);
	unsigned long cmd = CMD_SIZE(TWHEEL_IOC_INFO, INFO_V1_SIZE);
	union {
		struct twheel_info i;
		unsigned char b[sizeof(struct twheel_info)];
	} u;
	struct twheel_info *i;
	int k;

	twt_add_rel(fd, 1, 3600 * TWT_S);
	twt_add_abs(fd, 2, 0, CLOCK_MONOTONIC);
	CHECK_EQ(cmd, 0x8028BA00U);	/* version 1's TWHEEL_IOC_INFO */
	memset(&u, 0xAA, sizeof(u));
	CHECK_EQ(ioctl(fd, cmd, &u), 0);
	CHECK_EQ(u.i.version, 2);
	CHECK_EQ(u.i.event_size, 40);
	CHECK_EQ(u.i.tick_ns, TWHEEL_DEFAULT_TICK_NS);
	CHECK_EQ(u.i.max_timers, twt_sysfs_read(PARAM_MAX));
	CHECK_EQ(u.i.timers, 2);
	CHECK_EQ(u.i.queued, 1);
	for (k = INFO_V1_SIZE; k < (int)sizeof(u); k++)
		CHECK_EQ(u.b[k], 0xAA);
	/* At the very end of a mapping: only 40 bytes are touched. */
	i = (struct twheel_info *)(twt_guard_map(4096) - INFO_V1_SIZE);
	CHECK_EQ(ioctl(fd, cmd, i), 0);
	CHECK_EQ(i->version, 2);
	CHECK_EQ(i->timers, 2);
	close(fd);
}

/* timers and queued follow adds, expiries, reads and cancels. */
static void info_counts(void)
{
	int fd = twt_open(O_NONBLOCK);
	uint64_t far[3], due[2];
	struct twheel_event ev;
	struct twheel_info i;
	int k;

	for (k = 0; k < 3; k++)
		far[k] = twt_add(fd, k, 3600 * TWT_S, 0, twt_clock(k));
	i = twt_info(fd);
	CHECK_EQ(i.timers, 3);
	CHECK_EQ(i.queued, 0);
	for (k = 0; k < 2; k++)
		due[k] = twt_add_abs(fd, 10 + k, 0, twt_clock(3 - k));
	i = twt_info(fd);
	CHECK_EQ(i.timers, 5);
	CHECK_EQ(i.queued, 2);
	CHECK_EQ(read(fd, &ev, sizeof(ev)), sizeof(ev));
	CHECK_EQ(ev.id, due[0]);
	i = twt_info(fd);
	CHECK_EQ(i.timers, 4);
	CHECK_EQ(i.queued, 1);
	CHECK_EQ(twt_cancel(fd, due[1]), TWHEEL_STATE_QUEUED);
	i = twt_info(fd);
	CHECK_EQ(i.timers, 3);
	CHECK_EQ(i.queued, 0);
	CHECK_EQ(twt_cancel(fd, far[1]), TWHEEL_STATE_PENDING);
	i = twt_info(fd);
	CHECK_EQ(i.timers, 2);
	CHECK_EQ(i.queued, 0);
	/* A pending timer expiring moves from pending to queued: same total. */
	twt_add_rel(fd, 99, 20 * TWT_MS);
	CHECK_EQ(twt_timers(fd), 3);
	CHECK(twt_poll(fd, 5000) & POLLIN);
	i = twt_info(fd);
	CHECK_EQ(i.timers, 3);
	CHECK_EQ(i.queued, 1);
	CHECK_EQ(read(fd, &ev, sizeof(ev)), sizeof(ev));
	CHECK_EQ(ev.cookie, 99);
	CHECK_UNTOUCHED(fd, 2);
	close(fd);
}

/* TWHEEL_IOC_INFO writes all 112 bytes, exactly, and nothing after them. */
static void info_writeback(void)
{
	int fd = twt_open(0);
	unsigned char buf[sizeof(struct twheel_info) + 16];
	struct twheel_info *i = (struct twheel_info *)buf;
	int fill, k;

	twt_add_rel(fd, 1, 3600 * TWT_S);
	twt_add_abs(fd, 2, 0, CLOCK_BOOTTIME);
	for (fill = 0; fill < 2; fill++) {
		memset(buf, fill ? 0x55 : 0xAA, sizeof(buf));
		CHECK_EQ(ioctl(fd, TWHEEL_IOC_INFO, buf), 0);
		check_info_module(i, sizeof(*i));
		CHECK_EQ(i->tick_ns, TWHEEL_DEFAULT_TICK_NS);
		CHECK_EQ(i->timers, 2);
		CHECK_EQ(i->queued, 1);
		CHECK_EQ(i->config_flags, 0);
		check_info_no_table(i, sizeof(*i));
		for (k = sizeof(*i); k < (int)sizeof(buf); k++)
			CHECK_EQ(buf[k], fill ? 0x55 : 0xAA);
	}
	/* Exactly at the end of a mapping: the kernel touches 112 bytes only. */
	i = (struct twheel_info *)(twt_guard_map(4096) - sizeof(*i));
	CHECK_EQ(ioctl(fd, TWHEEL_IOC_INFO, i), 0);
	CHECK_EQ(i->timers, 2);
	CHECK_EQ(i->max_batch, TWHEEL_MAX_BATCH);
	close(fd);
}

/*
 * fdinfo: tick_ns, timers, pending, queued, slots, and
 * next_expiry_<clock>_ns for each clock with pending timers. What "next expiry" means is not written
 * down beyond that; checked: it is not after the earliest pending
 * deadline (rounded up to a tick) and not before the fd's last add.
 */
static void fdinfo(void)
{
	int fd = twt_open(O_NONBLOCK);
	int64_t t0m = twt_now(CLOCK_MONOTONIC);
	int64_t t0b = twt_now(CLOCK_BOOTTIME);
	int64_t t0t = twt_now(CLOCK_TAI);
	int64_t m = t0m + 3 * TWT_MS + 123456, b = t0b + 7 * TWT_S + 654321;
	int64_t t = t0t + 9 * TWT_S + 111;
	int64_t tick = (int64_t)TWHEEL_DEFAULT_TICK_NS;
	long long v;
	struct twheel_event ev;
	unsigned int k;

	CHECK_EQ(twt_fdinfo(fd, "tick_ns", &v), 0);
	CHECK_EQ(v, TWHEEL_DEFAULT_TICK_NS);
	CHECK_EQ(twt_fdinfo(fd, "timers", &v), 0);
	CHECK_EQ(v, 0);
	CHECK_EQ(twt_fdinfo(fd, "queued", &v), 0);
	CHECK_EQ(v, 0);
	for (k = 0; k < TWT_NCLOCKS; k++) {
		char key[64];

		snprintf(key, sizeof(key), "next_expiry_%s_ns",
			 twt_clockname(twt_clock(k)));
		CHECK(twt_fdinfo(fd, key, &v) < 0);
	}

	/* Far ones first, so the near one must replace them as "next". */
	twt_add_abs(fd, 1, m + 3600 * TWT_S, CLOCK_MONOTONIC);
	twt_add_abs(fd, 2, m + 5 * TWT_S, CLOCK_MONOTONIC);
	twt_add_abs(fd, 3, b, CLOCK_BOOTTIME);
	twt_add_abs(fd, 5, m + 300 * TWT_S, CLOCK_MONOTONIC);
	twt_add_abs(fd, 7, t + 3600 * TWT_S, CLOCK_TAI);
	twt_add_abs(fd, 8, t, CLOCK_TAI);
	m += 1000 * TWT_MS;	/* the earliest monotonic deadline: */
	twt_add_abs(fd, 6, m, CLOCK_MONOTONIC);
	twt_add_abs(fd, 4, 0, CLOCK_REALTIME);	/* queued at once */
	CHECK_EQ(twt_fdinfo(fd, "timers", &v), 0);
	CHECK_EQ(v, 8);
	CHECK_EQ(twt_fdinfo(fd, "queued", &v), 0);
	CHECK_EQ(v, 1);
	CHECK_EQ(twt_fdinfo(fd, "pending", &v), 0);
	CHECK_EQ(v, 7);
	CHECK_EQ(twt_fdinfo(fd, "slots", &v), 0);
	CHECK_EQ(v, 8);
	CHECK_EQ(twt_fdinfo(fd, "next_expiry_monotonic_ns", &v), 0);
	printf("# next_expiry_monotonic_ns is deadline %+.3f ms\n", (v - m) / 1e6);
	CHECK(v <= (m + tick - 1) / tick * tick);
	CHECK(v >= t0m - tick);
	CHECK_EQ(twt_fdinfo(fd, "next_expiry_boottime_ns", &v), 0);
	printf("# next_expiry_boottime_ns is deadline %+.3f ms\n", (v - b) / 1e6);
	CHECK(v <= (b + tick - 1) / tick * tick);
	CHECK(v >= t0b - tick);
	CHECK_EQ(twt_fdinfo(fd, "next_expiry_tai_ns", &v), 0);
	printf("# next_expiry_tai_ns is deadline %+.3f ms\n", (v - t) / 1e6);
	CHECK(v <= (t + tick - 1) / tick * tick);
	CHECK(v >= t0t - tick);
	/* The realtime timer has expired: no pending realtime timer. */
	CHECK(twt_fdinfo(fd, "next_expiry_realtime_ns", &v) < 0);

	CHECK_EQ(read(fd, &ev, sizeof(ev)), sizeof(ev));
	CHECK_EQ(ev.cookie, 4);
	CHECK_EQ(twt_fdinfo(fd, "queued", &v), 0);
	CHECK_EQ(v, 0);
	CHECK_EQ(twt_fdinfo(fd, "timers", &v), 0);
	CHECK_EQ(v, 7);
	CHECK_EQ(twt_fdinfo(fd, "pending", &v), 0);
	CHECK_EQ(v, 7);
	/* The read timer's slot stays with the fd, for its next timer. */
	CHECK_EQ(twt_fdinfo(fd, "slots", &v), 0);
	CHECK_EQ(v, 8);
	/*
	 * The alarm clocks have keys of their own (read as CLOCK_REALTIME
	 * and CLOCK_BOOTTIME; the test runs as root, CAP_WAKE_ALARM).
	 */
	CHECK(twt_fdinfo(fd, "next_expiry_realtime_alarm_ns", &v) < 0);
	CHECK(twt_fdinfo(fd, "next_expiry_boottime_alarm_ns", &v) < 0);
	t0m = twt_now(CLOCK_REALTIME);
	t0b = twt_now(CLOCK_BOOTTIME);
	m = t0m + 5 * TWT_S + 17;
	b = t0b + 2 * TWT_S + 29;
	twt_add_abs(fd, 9, m, CLOCK_REALTIME_ALARM);
	twt_add_abs(fd, 10, b, CLOCK_BOOTTIME_ALARM);
	CHECK_EQ(twt_fdinfo(fd, "next_expiry_realtime_alarm_ns", &v), 0);
	printf("# next_expiry_realtime_alarm_ns is deadline %+.3f ms\n",
	       (v - m) / 1e6);
	CHECK(v <= (m + tick - 1) / tick * tick);
	CHECK(v >= t0m - tick);
	CHECK_EQ(twt_fdinfo(fd, "next_expiry_boottime_alarm_ns", &v), 0);
	printf("# next_expiry_boottime_alarm_ns is deadline %+.3f ms\n",
	       (v - b) / 1e6);
	CHECK(v <= (b + tick - 1) / tick * tick);
	CHECK(v >= t0b - tick);
	/* Not the plain clocks': no realtime timer is pending. */
	CHECK(twt_fdinfo(fd, "next_expiry_realtime_ns", &v) < 0);
	close(fd);
}

TWT_MAIN("abi_info",
	 TWT_CASE(info_fresh),
	 TWT_CASE(info_config),
	 TWT_CASE(info_v1_size),
	 TWT_CASE(info_counts),
	 TWT_CASE(info_writeback),
	 TWT_CASE(fdinfo))
