// SPDX-License-Identifier: GPL-2.0
/*
 * libtwheel_table: the C library's view of the shared timer table: the
 * table's mapping and its inline helpers (twheel_table_*()): a push back
 * moves the record, a cancel removes it, a store too late leaves it, with
 * no system call.
 */
#include <sys/mman.h>

#include "libtwheel_test.h"

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

TWT_MAIN("libtwheel_table",
	 TWT_CASE(table_map),
	 TWT_CASE(table_tick),
	 TWT_CASE(table_push),
	 TWT_CASE(table_cancel))
