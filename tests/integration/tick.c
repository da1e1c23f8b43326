// SPDX-License-Identifier: GPL-2.0
/*
 * tick: the per-fd tick of TWHEEL_IOC_CONFIG. Its range (1 us to 1 s),
 * EINVAL outside it and for bad flags, EBUSY once the fd has had a timer
 * (also after that timer is gone), the last of repeated configs counts,
 * INFO and fdinfo report it, deadlines round up to it; and on the real
 * monotonic clock at ticks of 1 us, 1 ms and 100 ms: never early, the
 * median record at most one tick plus 50 ms late (a generous allowance
 * for scheduling latency: the VMs are emulated), with the lateness
 * distribution printed per tick.
 */
#include "twtest.h"

/*
 * Scheduling latency allowed on top of the tick (QEMU TCG is slow): for
 * the median record, and (a stall of the emulator or of a loaded host is
 * not twheel's) a much larger one for any single record; a lost wake-up
 * shows as a record that never comes.
 */
#define LATENCY_ALLOWANCE	(50 * TWT_MS)
#define STALL_ALLOWANCE		(2 * TWT_S)

static int tick_config_full(int fd, uint64_t tick, uint32_t flags,
			    uint32_t reserved)
{
	struct twheel_config c;

	memset(&c, 0, sizeof(c));
	c.tick_ns = tick;
	c.flags = flags;
	c.__reserved = reserved;
	return ioctl(fd, TWHEEL_IOC_CONFIG, &c);
}

static long long tick_fdinfo_tick(int fd)
{
	long long v = -1;

	if (twt_fdinfo(fd, "tick_ns", &v))
		twt_fail(__FILE__, __LINE__, "no tick_ns in fdinfo");
	return v;
}

/* ---- TWHEEL_IOC_CONFIG ---- */

static void config_range(void)
{
	static const uint64_t bad[] = {
		0, 1, 999, TWHEEL_MAX_TICK_NS + 1, 2 * TWHEEL_MAX_TICK_NS,
		(uint64_t)INT64_MAX + 1, UINT64_MAX,
	};
	static const uint64_t good[] = {
		TWHEEL_MIN_TICK_NS, 1001, 4096, TWHEEL_DEFAULT_TICK_NS,
		123456789, TWHEEL_MAX_TICK_NS - 1, TWHEEL_MAX_TICK_NS,
	};
	int fd = twt_open(O_NONBLOCK);
	struct twheel_info info = twt_info(fd);
	unsigned int k;

	CHECK_EQ(TWHEEL_MIN_TICK_NS, 1000);
	CHECK_EQ(TWHEEL_MAX_TICK_NS, 1000000000);
	CHECK_EQ(info.tick_ns, TWHEEL_DEFAULT_TICK_NS);
	CHECK_EQ(info.min_tick_ns, TWHEEL_MIN_TICK_NS);
	CHECK_EQ(info.max_tick_ns, TWHEEL_MAX_TICK_NS);
	CHECK_EQ(info.config_flags, 0);
	CHECK_EQ(tick_fdinfo_tick(fd), TWHEEL_DEFAULT_TICK_NS);
	for (k = 0; k < sizeof(bad) / sizeof(bad[0]); k++) {
		CHECK_ERR(tick_config_full(fd, bad[k], 0, 0), EINVAL);
		CHECK_ERR(tick_config_full(fd, bad[k], TWHEEL_CONFIG_MANUAL, 0),
			  EINVAL);
		CHECK_EQ(twt_info(fd).tick_ns, TWHEEL_DEFAULT_TICK_NS);
		CHECK_EQ(twt_info(fd).config_flags, 0);
	}
	for (k = 0; k < sizeof(good) / sizeof(good[0]); k++) {
		CHECK_OK(tick_config_full(fd, good[k], 0, 0));
		CHECK_EQ(twt_info(fd).tick_ns, good[k]);
		CHECK_EQ(tick_fdinfo_tick(fd), good[k]);
	}
	close(fd);
}

/*
 * Flags outside the known ones are EINVAL, alone or with known ones. Each
 * bad value has a bit no TWHEEL_CONFIG_* flag has (checked, so that a new
 * flag cannot turn a case into a valid configuration unnoticed).
 */
static void config_bad_flags(void)
{
	static const uint32_t known = TWHEEL_CONFIG_MANUAL |
				      TWHEEL_CONFIG_MAX_TIMERS |
				      TWHEEL_CONFIG_TABLE |
				      TWHEEL_CONFIG_CLOCK_SET |
				      TWHEEL_CONFIG_RING;
	static const uint32_t bad[] = { 0x20, 0x40, 0x80000000U, ~0U,
					TWHEEL_CONFIG_MANUAL | 0x20,
					TWHEEL_CONFIG_RING | 0x40,
					~known };
	int fd = twt_open(O_NONBLOCK);
	unsigned int k;

	for (k = 0; k < sizeof(bad) / sizeof(bad[0]); k++) {
		CHECK(bad[k] & ~known);
		CHECK_ERR(tick_config_full(fd, 5000, bad[k], 0), EINVAL);
	}
	CHECK_ERR(tick_config_full(fd, 5000, 0, 1), EINVAL);
	CHECK_ERR(tick_config_full(fd, 5000, TWHEEL_CONFIG_MANUAL, 0x100),
		  EINVAL);
	/* Nothing changed. */
	CHECK_EQ(twt_info(fd).tick_ns, TWHEEL_DEFAULT_TICK_NS);
	CHECK_EQ(twt_info(fd).config_flags, 0);
	close(fd);
}

/* Before the first timer, configs may repeat: the last one counts. */
static void config_repeat(void)
{
	int fd = twt_open(O_NONBLOCK);
	int64_t now;

	twt_config(fd, 5000, 0);
	twt_config(fd, 7000, TWHEEL_CONFIG_MANUAL);
	CHECK_EQ(twt_info(fd).tick_ns, 7000);
	CHECK_EQ(twt_info(fd).config_flags, TWHEEL_CONFIG_MANUAL);
	twt_config(fd, 9000, 0);
	CHECK_EQ(twt_info(fd).tick_ns, 9000);
	CHECK_EQ(twt_info(fd).config_flags, 0);
	CHECK_ERR(twt_advance_raw(fd, 1, &now), EINVAL);
	twt_config(fd, 2000, TWHEEL_CONFIG_MANUAL);
	CHECK_EQ(twt_advance(fd, 5), 5);
	/* Moving the manual clock is not adding a timer. */
	twt_config(fd, 3000, TWHEEL_CONFIG_MANUAL);
	CHECK_EQ(twt_info(fd).tick_ns, 3000);
	CHECK_EQ(tick_fdinfo_tick(fd), 3000);
	close(fd);
}

/* EBUSY once a timer was added, even after it is gone. */
static void config_ebusy(void)
{
	int fd = twt_open(O_NONBLOCK);
	struct twheel_event ev;
	struct twheel_op op;
	uint64_t id;

	twt_config(fd, 2000, 0);
	id = twt_add(fd, 1, TWT_S, 0, CLOCK_MONOTONIC);
	CHECK_ERR(twt_config_raw(fd, 2000, 0), EBUSY);
	CHECK_ERR(twt_config_raw(fd, 5000, 0), EBUSY);
	CHECK_ERR(twt_config_raw(fd, 2000, TWHEEL_CONFIG_MANUAL), EBUSY);
	CHECK_EQ(twt_cancel(fd, id), TWHEEL_STATE_PENDING);
	CHECK_EQ(twt_timers(fd), 0);
	CHECK_ERR(twt_config_raw(fd, 5000, 0), EBUSY);
	CHECK_EQ(twt_info(fd).tick_ns, 2000);
	close(fd);

	/* A timer read (gone): EBUSY. */
	fd = twt_open(O_NONBLOCK);
	twt_add(fd, 1, 0, 0, CLOCK_REALTIME);
	CHECK_EQ(read(fd, &ev, sizeof(ev)), sizeof(ev));
	CHECK_EQ(twt_timers(fd), 0);
	CHECK_ERR(twt_config_raw(fd, 5000, 0), EBUSY);
	CHECK_EQ(twt_info(fd).tick_ns, TWHEEL_DEFAULT_TICK_NS);
	close(fd);

	/* A timer added by a batch: EBUSY. */
	fd = twt_open(O_NONBLOCK);
	memset(&op, 0, sizeof(op));
	op.op = TWHEEL_OP_ADD;
	op.expires_ns = TWT_S;
	op.clock = CLOCK_BOOTTIME;
	CHECK_EQ(twt_submit_raw(fd, &op, 1), 1);
	CHECK_EQ(op.error, 0);
	CHECK_ERR(twt_config_raw(fd, 5000, 0), EBUSY);
	close(fd);

	/* A manual fd, too. */
	fd = twt_open_manual(O_NONBLOCK, 4000);
	twt_add(fd, 1, TWT_S, 0, CLOCK_MONOTONIC);
	CHECK_ERR(twt_config_raw(fd, 4000, TWHEEL_CONFIG_MANUAL), EBUSY);
	CHECK_ERR(twt_config_raw(fd, 4000, 0), EBUSY);
	CHECK_EQ(twt_info(fd).config_flags, TWHEEL_CONFIG_MANUAL);
	close(fd);
}

/* A failed ADD creates no timer: the fd can still be configured. */
static void config_after_failed_add(void)
{
	int fd = twt_open(O_NONBLOCK);
	uint64_t id;

	CHECK_ERR(twt_add_raw(fd, 1, TWT_S, 0, 1234, &id), EINVAL);
	CHECK_ERR(twt_add_raw(fd, 1, -1, 0, CLOCK_MONOTONIC, &id), EINVAL);
	CHECK_EQ(twt_timers(fd), 0);
	CHECK_OK(twt_config_raw(fd, 5000, 0));
	CHECK_EQ(twt_info(fd).tick_ns, 5000);
	close(fd);
}

/* ---- deadlines round up to the fd's tick ---- */

static void tick_rounds_deadlines(void)
{
	static const struct {
		int64_t tick, deadline, due;
	} t[] = {
		{ 100 * TWT_MS, 150 * TWT_MS, 200 * TWT_MS },
		{ 100 * TWT_MS, 200 * TWT_MS, 200 * TWT_MS },
		{ 100 * TWT_MS, 1, 100 * TWT_MS },
		{ TWT_US, 1500, 2000 },
		{ TWT_US, 3000, 3000 },
		{ 7777, 10000, 15554 },
		{ TWHEEL_MAX_TICK_NS, 1, TWT_S },
		{ TWHEEL_MAX_TICK_NS, 2 * TWT_S + 1, 3 * TWT_S },
	};
	unsigned int k;

	for (k = 0; k < sizeof(t) / sizeof(t[0]); k++) {
		int fd = twt_open_manual(O_NONBLOCK, t[k].tick);
		struct twheel_event ev[2];
		struct twheel_status st;
		uint64_t id;

		id = twt_add(fd, k, t[k].deadline, 0, CLOCK_MONOTONIC);
		st = twt_query(fd, id);
		CHECK_EQ(st.deadline_ns, t[k].due);
		CHECK_EQ(st.remaining_ns, t[k].due);
		CHECK_EQ(twt_advance(fd, t[k].due - 1), t[k].due - 1);
		CHECK_EQ(twt_queued(fd), 0);
		CHECK_EQ(twt_advance(fd, 1), t[k].due);
		CHECK_EQ(read(fd, ev, sizeof(ev)), sizeof(ev[0]));
		CHECK_EQ(ev[0].id, id);
		CHECK_EQ(ev[0].time_ns, t[k].due);
		close(fd);
	}
}

/* ---- never early, at most a tick plus latency late ---- */

#define LATE_N		200

static void tick_lateness(int64_t tick, const char *label)
{
	static int64_t dl[LATE_N], late[LATE_N], after_read[LATE_N];
	static unsigned char got[LATE_N];
	int fd = twt_open(0);
	uint64_t seed = 0x7E1 + (uint64_t)tick;
	int64_t t0, added, min_dl = INT64_MAX, last_tick = -1;
	int i, n = 0, last_idx = -1, ordered;
	char buf[96];

	twt_config(fd, tick, 0);
	CHECK_EQ(twt_info(fd).tick_ns, tick);
	memset(got, 0, sizeof(got));
	t0 = twt_mono();
	for (i = 0; i < LATE_N; i++) {
		dl[i] = t0 + 200 * TWT_MS +
			(int64_t)(twt_rand(&seed) % (1000 * TWT_MS));
		if (dl[i] < min_dl)
			min_dl = dl[i];
		twt_add(fd, i, dl[i], TWHEEL_ABSTIME, CLOCK_MONOTONIC);
	}
	added = twt_mono();
	/* The order promise needs every add done before the first is due. */
	ordered = added < (min_dl / tick) * tick;
	/* Deadlines as QUERY reports them: on the tick, less than one late. */
	{
		uint64_t cursor = 0;
		struct twheel_status st[LATE_N];
		size_t k, total = 0;

		do {
			struct twheel_list l = {
				.statuses = (uint64_t)(uintptr_t)st,
				.capacity = LATE_N, .cursor = cursor,
				.status_size = sizeof(st[0]),
			};

			CHECK_OK(ioctl(fd, TWHEEL_IOC_LIST, &l));
			for (k = 0; k < l.count; k++) {
				int c = (int)st[k].cookie;

				CHECK(c >= 0 && c < LATE_N);
				if (st[k].state != TWHEEL_STATE_PENDING)
					continue;
				CHECK_EQ(st[k].deadline_ns % tick, 0);
				CHECK(st[k].deadline_ns >= dl[c]);
				CHECK(st[k].deadline_ns - dl[c] < tick);
			}
			total += l.count;
			cursor = l.cursor;
		} while (cursor);
		CHECK_EQ(total, LATE_N);
	}
	while (n < LATE_N) {
		struct twheel_event ev[64];
		int64_t now;
		ssize_t r;
		int k;

		CHECK(twt_poll(fd, 10000) & POLLIN);
		r = read(fd, ev, sizeof(ev));
		now = twt_mono();
		CHECK(r > 0 && r % TWT_EV_SIZE == 0);
		for (k = 0; k < r / TWT_EV_SIZE; k++) {
			int c = (int)ev[k].cookie;
			int64_t t;

			CHECK(ev[k].cookie < LATE_N && !got[c]);
			got[c] = 1;
			CHECK_EQ(ev[k].clock, CLOCK_MONOTONIC);
			CHECK_EQ(ev[k].count, 1);
			if (ev[k].time_ns < dl[c])
				twt_fail(__FILE__, __LINE__, "%s: timer %d early "
					 "by %lld ns", label, c,
					 (long long)(dl[c] - ev[k].time_ns));
			CHECK(now >= dl[c]);
			CHECK(ev[k].time_ns <= now);
			late[n] = ev[k].time_ns - dl[c];
			after_read[n] = now - dl[c];
			if (late[n] > tick + STALL_ALLOWANCE)
				twt_fail(__FILE__, __LINE__,
					 "%s: timer %d late by %.3f ms "
					 "(tick %.3f ms + %.0f ms)", label, c,
					 late[n] / 1e6, tick / 1e6,
					 STALL_ALLOWANCE / 1e6);
			/* Deadline-tick order, equal ticks in add order. */
			t = (dl[c] + tick - 1) / tick;
			if (ordered)
				CHECK(t > last_tick ||
				      (t == last_tick && c > last_idx));
			last_tick = t;
			last_idx = c;
			n++;
		}
	}
	CHECK_EQ(twt_timers(fd), 0);
	if (!ordered)
		printf("# %s: adds took %.1f ms, order not checked\n", label,
		       (added - t0) / 1e6);
	snprintf(buf, sizeof(buf), "%s lateness (time_ns - deadline)", label);
	twt_print_dist(buf, late, LATE_N);
	/* twt_print_dist() sorted late[]: the median record's lateness. */
	if (late[LATE_N / 2] > tick + LATENCY_ALLOWANCE)
		twt_fail(__FILE__, __LINE__, "%s: median lateness %.3f ms "
			 "(tick %.3f ms + %.0f ms)", label,
			 late[LATE_N / 2] / 1e6, tick / 1e6,
			 LATENCY_ALLOWANCE / 1e6);
	snprintf(buf, sizeof(buf), "%s read after deadline", label);
	twt_print_dist(buf, after_read, LATE_N);
	close(fd);
}

static void lateness_tick_1us(void)
{
	tick_lateness(TWT_US, "tick 1us");
}

static void lateness_tick_1ms(void)
{
	tick_lateness(TWT_MS, "tick 1ms");
}

static void lateness_tick_100ms(void)
{
	tick_lateness(100 * TWT_MS, "tick 100ms");
}

TWT_MAIN("tick",
	 TWT_CASE(config_range),
	 TWT_CASE(config_bad_flags),
	 TWT_CASE(config_repeat),
	 TWT_CASE(config_ebusy),
	 TWT_CASE(config_after_failed_add),
	 TWT_CASE(tick_rounds_deadlines),
	 TWT_CASE(lateness_tick_1us),
	 TWT_CASE(lateness_tick_1ms),
	 TWT_CASE(lateness_tick_100ms))
