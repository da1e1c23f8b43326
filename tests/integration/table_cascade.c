// SPDX-License-Identifier: GPL-2.0
/*
 * table_cascade: the shared timer table read at a cascade, checked from
 * what uapi/linux/twheel.h promises ("The shared timer table"): besides
 * its deadline tick, the kernel reads a one-shot timer's entry each time
 * the wheel moves it to a finer level before that tick (at a multiple of
 * 64 ticks), where only a later deadline acts, at once.
 *
 * All on a manual clock, 1 ms tick, so nothing depends on the machine:
 * pushed_at_cascade: a timer due at tick 100 (a finer level reaches it at
 * tick 64) with a later deadline stored shows its placed deadline up to
 * tick 63 and the stored one from tick 64 on; then an earlier deadline
 * stored changes nothing, and its record comes at the later one, once;
 * the kernel writes nothing into the entry meanwhile.
 * two_cascades: due at tick 5000 (in a level reached at tick 4096),
 * pushed to 9000 before that: placed there from tick 4096 on (cascaded
 * again at 8192 and 8960, where the same entry changes nothing), its
 * record at 9000.
 * cancel_waits_for_tick: a cancel stored is not acted on at a cascade:
 * the timer stays a live, pending timer until its tick, then ends with no
 * record, counted as cancelled.
 * periodic_ignores: a periodic timer's cascade ignores a deadline stored.
 */
#include <sys/mman.h>

#include "twtest.h"

#define MS	TWT_MS

/* A 1 ms manual fd with a table of 8 timers, mapped whole. */
static int manual_table(uint64_t **tab)
{
	int fd = twt_open(O_NONBLOCK);
	struct twheel_config c;
	void *p;

	memset(&c, 0, sizeof(c));
	c.tick_ns = MS;
	c.flags = TWHEEL_CONFIG_MANUAL | TWHEEL_CONFIG_TABLE |
		  TWHEEL_CONFIG_MAX_TIMERS;
	c.max_timers = 8;
	CHECK_OK(ioctl(fd, TWHEEL_IOC_CONFIG, &c));
	p = mmap(NULL, twt_info(fd).table_size, PROT_READ | PROT_WRITE,
		 MAP_SHARED, fd, 0);
	CHECK(p != MAP_FAILED);
	*tab = p;
	return fd;
}

static uint64_t ld(uint64_t *tab, uint64_t id)
{
	return __atomic_load_n(&tab[TWHEEL_TABLE_INDEX(id)], __ATOMIC_RELAXED);
}

static void st(uint64_t *tab, uint64_t id, uint64_t v)
{
	__atomic_store_n(&tab[TWHEEL_TABLE_INDEX(id)], v, __ATOMIC_RELAXED);
}

/* Move the manual clock to tick @t (not backwards); nothing is queued. */
#define to_quiet(fd, t) do {						\
	int64_t now_ = twt_advance((fd), 0);				\
									\
	CHECK((t) * MS >= now_);					\
	CHECK_EQ(twt_advance((fd), (t) * MS - now_), (t) * MS);	\
	CHECK_NONE_QUEUED(fd);						\
} while (0)

/* One record is queued: timer @id's, at tick @t, and nothing after it. */
static void expect_one(int fd, uint64_t id, int64_t t)
{
	struct twheel_event ev[2];

	CHECK_EQ(read(fd, ev, sizeof(ev)), TWT_EV_SIZE);
	CHECK_EQ(ev[0].id, id);
	CHECK_EQ(ev[0].time_ns, t * MS);
	CHECK_EQ(ev[0].count, 1);
}

/*
 * A timer due at tick @placed, pushed to tick @stored by a store at once:
 * it shows @placed up to tick @cascade - 1 and @stored from @cascade on.
 */
static uint64_t pushed_until(int fd, uint64_t *tab, int64_t placed,
			     int64_t stored, int64_t cascade)
{
	uint64_t id = twt_add_abs(fd, 1, placed * MS, CLOCK_MONOTONIC);

	st(tab, id, TWHEEL_TABLE_DEADLINE(id, stored));
	to_quiet(fd, cascade - 1);
	CHECK_EQ(twt_query(fd, id).deadline_ns, placed * MS);
	to_quiet(fd, cascade);
	CHECK_EQ(twt_query(fd, id).deadline_ns, stored * MS);
	return id;
}

static void pushed_at_cascade(void)
{
	uint64_t *tab, x, y;
	int fd = manual_table(&tab);

	y = twt_add_abs(fd, 2, 100 * MS, CLOCK_MONOTONIC);
	x = pushed_until(fd, tab, 100, 300, 64);
	CHECK_EQ(twt_query(fd, y).deadline_ns, 100 * MS);
	CHECK_EQ(ld(tab, x), TWHEEL_TABLE_DEADLINE(x, 300));
	/* earlier than the deadline placed: nothing, at any cascade */
	st(tab, x, TWHEEL_TABLE_DEADLINE(x, 200));
	to_quiet(fd, 99);
	twt_advance(fd, MS);
	expect_one(fd, y, 100);
	CHECK_NONE_QUEUED(fd);
	to_quiet(fd, 299);
	CHECK_EQ(twt_query(fd, x).deadline_ns, 300 * MS);
	twt_advance(fd, MS);
	expect_one(fd, x, 300);
	CHECK_NONE_QUEUED(fd);
	CHECK_EQ(ld(tab, x), 0);
	CHECK_EQ(twt_timers(fd), 0);
	close(fd);
}

static void two_cascades(void)
{
	uint64_t *tab, a;
	int fd = manual_table(&tab);

	a = pushed_until(fd, tab, 5000, 9000, 4096);
	to_quiet(fd, 8999);
	twt_advance(fd, MS);
	expect_one(fd, a, 9000);
	CHECK_NONE_QUEUED(fd);
	close(fd);
}

static void cancel_waits_for_tick(void)
{
	struct twheel_status s;
	struct twheel_info info;
	uint64_t *tab, a;
	int fd = manual_table(&tab);

	a = twt_add_abs(fd, 1, 100 * MS, CLOCK_MONOTONIC);
	st(tab, a, TWHEEL_TABLE_CANCELLED(a));
	to_quiet(fd, 99);
	s = twt_query(fd, a);
	CHECK_EQ(s.state, TWHEEL_STATE_PENDING);
	CHECK_EQ(s.deadline_ns, 100 * MS);
	info = twt_info(fd);
	CHECK_EQ(info.timers, 1);
	CHECK_EQ(info.cancelled, 0);
	to_quiet(fd, 100);
	CHECK_ERR(twt_query_raw(fd, a, NULL), ENOENT);
	info = twt_info(fd);
	CHECK_EQ(info.timers, 0);
	CHECK_EQ(info.cancelled, 1);
	close(fd);
}

static void periodic_ignores(void)
{
	uint64_t *tab, a;
	int fd = manual_table(&tab);

	a = twt_addp(fd, 1, 100 * MS, 1000 * MS, TWHEEL_ABSTIME,
		     CLOCK_MONOTONIC);
	st(tab, a, TWHEEL_TABLE_DEADLINE(a, 300));
	to_quiet(fd, 64);
	CHECK_EQ(twt_query(fd, a).deadline_ns, 100 * MS);
	to_quiet(fd, 99);
	twt_advance(fd, MS);
	expect_one(fd, a, 100);
	CHECK_EQ(twt_query(fd, a).deadline_ns, 1100 * MS);
	close(fd);
}

TWT_MAIN("table_cascade",
	 TWT_CASE(pushed_at_cascade),
	 TWT_CASE(two_cascades),
	 TWT_CASE(cancel_waits_for_tick),
	 TWT_CASE(periodic_ignores))
