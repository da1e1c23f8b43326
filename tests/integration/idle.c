// SPDX-License-Identifier: GPL-2.0
/*
 * idle: libtwheel's idle-timeout tracker (twheel_idle_*()) against the
 * module. On the manual clock, with exact times: a handle touched is
 * reported idle exactly timeout after its last touch, one not touched at
 * exactly timeout; a push made after the kernel read the entry (provoked
 * by an ADVANCE before the touch) is added again by the tracker, once,
 * for the deadline stored, and the handle is reported only then; a
 * removed handle is never reported (its lazy cancel ends the timer, or
 * the record queued before the cancel is dropped), also when the handle
 * is reused at once; the fd's maximum is max_conns + headroom, and more
 * removed timers than the headroom are cancelled by TWHEEL_IOC_CANCEL;
 * every bad argument gives its documented errno and changes nothing.
 * On CLOCK_MONOTONIC: idle, active, removed and late-pushed handles
 * together: none reported before timeout after its last touch, none
 * twice, every idle one reported, no removed one, a late push (provoked
 * by sleeping past the deadline and an ioctl before the touch) added
 * again. Only lower bounds on time: a slow machine delays reports, it
 * never makes them early.
 */
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>

#include "twtest.h"
#include "libtwheel.h"

#define MS		TWHEEL_MSEC
#define STATS		"/sys/class/misc/twheel/stats/"
#define PARAM_MAX	"/sys/module/twheel/parameters/max_timers"

/* What the tracker told its observer, in order. */
struct note {
	unsigned int what;
	uint64_t cookie, id;
	int64_t time_ns, deadline_ns;
};

static struct note notes[256];
static size_t nnotes;
/* Set by a case: the observer removes this handle on a re-add. */
static struct twheel_idle *remove_ti;
static int remove_h = -1;

static void observe(void *arg, unsigned int what,
		    const struct twheel_event *ev, int64_t deadline_ns)
{
	CHECK(arg == notes);
	if (nnotes < sizeof(notes) / sizeof(notes[0]))
		notes[nnotes++] = (struct note){ what, ev->cookie, ev->id,
						 ev->time_ns, deadline_ns };
	if (remove_ti && what == TWHEEL_IDLE_READDED) {
		CHECK_EQ(twheel_idle_remove(remove_ti, remove_h), 0);
		remove_ti = NULL;
	}
}

#define open_idle(max, timeout, tick, headroom, flags)			\
	open_idle_at(__FILE__, __LINE__, (max), (timeout), (tick),	\
		     (headroom), (flags))
static struct twheel_idle *open_idle_at(const char *file, int line,
					uint64_t max, int64_t timeout,
					uint64_t tick, uint64_t headroom,
					uint32_t flags)
{
	struct twheel_idle_config cfg = {
		.max_conns = max,
		.timeout_ns = timeout,
		.tick_ns = tick,
		.headroom = headroom,
		.flags = flags,
		.observe = observe,
		.arg = notes,
	};
	struct twheel_idle *ti = twheel_idle_open(&cfg);

	if (!ti)
		twt_fail(file, line, "twheel_idle_open: %s", strerror(errno));
	nnotes = 0;
	return ti;
}

#define advance(ti, d)	twt_advance(twheel_idle_fd(ti), (d))

/* Drain, expecting exactly the @n cookies, each at time @t_ns. */
#define expect(ti, t_ns, n, ...)					\
	expect_at(__FILE__, __LINE__, (ti), (t_ns), (n),		\
		  (const uint64_t[]){ __VA_ARGS__ })
static void expect_at(const char *file, int line, struct twheel_idle *ti,
		      int64_t t_ns, size_t n, const uint64_t *cookies)
{
	struct twheel_event ev[16];
	ssize_t got = twheel_idle_drain(ti, ev, 16);

	if (got != (ssize_t)n)
		twt_fail(file, line, "twheel_idle_drain: %zd expiries, want %zu (%s)",
			 got, n, got < 0 ? strerror(errno) : "");
	for (size_t i = 0; i < n; i++) {
		if (ev[i].cookie != cookies[i] || ev[i].time_ns != t_ns ||
		    ev[i].count != 1 || ev[i].clock != CLOCK_MONOTONIC)
			twt_fail(file, line, "expiry %zu: cookie %" PRIu64 " at %" PRId64 ", want %" PRIu64 " at %" PRId64,
				 i, (uint64_t)ev[i].cookie,
				 (int64_t)ev[i].time_ns, cookies[i], t_ns);
	}
}

#define CHECK_NONE(ti)	expect(ti, 0, 0, 0)

static struct twheel_info info_of(struct twheel_idle *ti)
{
	return twt_info(twheel_idle_fd(ti));
}

/*
 * Touched ones expire timeout after their last touch, the others at
 * timeout; an expired handle is held until removed, and cannot be
 * touched (ETIME); the fd is configured as asked.
 */
static void manual_touch(void)
{
	struct twheel_idle *ti = open_idle(8, 100 * MS, MS, 0,
					   TWHEEL_IDLE_MANUAL);
	struct twheel_info info = info_of(ti);
	int h0, h1, h2;

	CHECK_EQ(info.tick_ns, MS);
	CHECK_EQ(info.max_timers, 16);		/* 8 + headroom 8 */
	/* The module has the record ring: the tracker takes it. */
	CHECK_EQ(info.config_flags, TWHEEL_CONFIG_MANUAL | TWHEEL_CONFIG_TABLE |
		 TWHEEL_CONFIG_RING);
	CHECK(info.table_size >= 16 * sizeof(uint64_t));
	CHECK_EQ(fcntl(twheel_idle_fd(ti), F_GETFL) & O_NONBLOCK, O_NONBLOCK);
	CHECK(fcntl(twheel_idle_fd(ti), F_GETFD) & FD_CLOEXEC);

	h0 = twheel_idle_add(ti, 10);
	h1 = twheel_idle_add(ti, 11);
	h2 = twheel_idle_add(ti, 12);
	CHECK(h0 >= 0 && h1 >= 0 && h2 >= 0);
	CHECK(h0 != h1 && h1 != h2 && h0 != h2);
	CHECK(h0 < 8 && h1 < 8 && h2 < 8);
	CHECK_EQ(info_of(ti).timers, 3);

	advance(ti, 50 * MS);
	CHECK_EQ(twheel_idle_touch(ti, h0), 0);		/* deadline 150 ms */
	CHECK_EQ(twheel_idle_touch(ti, h0), 0);		/* the same */
	advance(ti, 30 * MS);
	CHECK_EQ(twheel_idle_touch(ti, h1), 0);		/* 180 ms */
	advance(ti, 20 * MS - 1);
	CHECK_NONE(ti);
	advance(ti, 1);					/* 100 ms */
	expect(ti, 100 * MS, 1, 12);
	/* h0 and h1 were placed again by the kernel, with no record. */
	CHECK_EQ(info_of(ti).timers, 2);
	CHECK_ERR(twheel_idle_touch(ti, h2), ETIME);
	advance(ti, 50 * MS - 1);
	CHECK_NONE(ti);
	advance(ti, 1);					/* 150 ms */
	expect(ti, 150 * MS, 1, 10);
	advance(ti, 30 * MS);				/* 180 ms */
	expect(ti, 180 * MS, 1, 11);
	CHECK_EQ(info_of(ti).timers, 0);
	CHECK_EQ(nnotes, 0);
	/* Reported expired: held until removed, never reported again. */
	advance(ti, 1000 * MS);
	CHECK_NONE(ti);
	CHECK_EQ(twheel_idle_remove(ti, h0), 0);
	CHECK_EQ(twheel_idle_remove(ti, h1), 0);
	CHECK_EQ(twheel_idle_remove(ti, h2), 0);
	CHECK_ERR(twheel_idle_remove(ti, h2), EINVAL);
	CHECK_ERR(twheel_idle_touch(ti, h2), EINVAL);
	/* Removing an expired handle stores nothing: no timer lingers. */
	CHECK_EQ(info_of(ti).timers, 0);
	CHECK_EQ(info_of(ti).cancelled, 0);
	CHECK_EQ(twheel_idle_close(ti), 0);
}

/*
 * A push the kernel did not read in time (it read the entry, and queued
 * the record, before the store): the tracker adds the timer again for
 * the deadline stored, tells the observer, and reports the handle only
 * at that deadline; exactly one ADD more (timers_created).
 */
static void manual_late_push(void)
{
	struct twheel_idle *ti = open_idle(4, 100 * MS, MS, 0,
					   TWHEEL_IDLE_MANUAL);
	long long created;
	uint64_t first;
	int h, k;

	h = twheel_idle_add(ti, 7);
	k = twheel_idle_add(ti, 8);
	CHECK(h >= 0 && k >= 0);
	advance(ti, 100 * MS);		/* both records queued */
	created = twt_sysfs_read(STATS "timers_created");
	CHECK_EQ(twheel_idle_touch(ti, h), 0);	/* too late: 200 ms */
	CHECK_EQ(twheel_idle_touch(ti, h), 0);
	/* Only k was idle; h was touched (late) and runs on. */
	expect(ti, 100 * MS, 1, 8);
	CHECK_EQ(nnotes, 1);
	CHECK_EQ(notes[0].what, TWHEEL_IDLE_READDED);
	CHECK_EQ(notes[0].cookie, 7);
	CHECK_EQ(notes[0].time_ns, 100 * MS);
	CHECK_EQ(notes[0].deadline_ns, 200 * MS);
	first = notes[0].id;
	if (created >= 0)
		CHECK_EQ(twt_sysfs_read(STATS "timers_created"), created + 1);
	CHECK_EQ(info_of(ti).timers, 1);
	/* Pushed again (in time now): the new timer moves. */
	advance(ti, 50 * MS);
	CHECK_EQ(twheel_idle_touch(ti, h), 0);		/* 250 ms */
	advance(ti, 100 * MS - 1);
	CHECK_NONE(ti);
	advance(ti, 1);					/* 250 ms */
	{
		struct twheel_event ev[4];

		CHECK_EQ(twheel_idle_drain(ti, ev, 4), 1);
		CHECK_EQ(ev[0].cookie, 7);
		CHECK_EQ(ev[0].time_ns, 250 * MS);
		/* Another timer than the one that came too early. */
		CHECK(ev[0].id != first);
	}
	CHECK_EQ(nnotes, 1);
	CHECK_EQ(twheel_idle_remove(ti, h), 0);
	CHECK_EQ(twheel_idle_remove(ti, k), 0);

	/* Late twice in a row: added again each time. */
	h = twheel_idle_add(ti, 9);			/* 350 ms */
	advance(ti, 100 * MS);
	CHECK_EQ(twheel_idle_touch(ti, h), 0);		/* 450 ms */
	CHECK_NONE(ti);
	advance(ti, 100 * MS);
	CHECK_EQ(twheel_idle_touch(ti, h), 0);		/* 550 ms */
	CHECK_NONE(ti);
	CHECK_EQ(nnotes, 3);
	CHECK_EQ(notes[1].time_ns, 350 * MS);
	CHECK_EQ(notes[1].deadline_ns, 450 * MS);
	CHECK_EQ(notes[2].time_ns, 450 * MS);
	CHECK_EQ(notes[2].deadline_ns, 550 * MS);
	CHECK_EQ(notes[2].cookie, 9);
	advance(ti, 100 * MS - 1);
	CHECK_NONE(ti);
	advance(ti, 1);
	expect(ti, 550 * MS, 1, 9);

	/* The observer may remove the handle it is told of. */
	CHECK_EQ(twheel_idle_remove(ti, h), 0);
	h = twheel_idle_add(ti, 10);			/* 550 ms */
	advance(ti, 100 * MS);
	CHECK_EQ(twheel_idle_touch(ti, h), 0);
	remove_ti = ti;
	remove_h = h;
	CHECK_NONE(ti);
	CHECK(remove_ti == NULL);
	CHECK_EQ(nnotes, 4);
	CHECK_ERR(twheel_idle_touch(ti, h), EINVAL);
	advance(ti, 1000 * MS);
	CHECK_NONE(ti);
	CHECK_EQ(nnotes, 4);
	CHECK_EQ(info_of(ti).timers, 0);
	CHECK_EQ(twheel_idle_close(ti), 0);
}

/*
 * Removed handles are never reported: a cancel stored in time ends the
 * timer at its deadline tick (info.cancelled), a record queued before
 * the store is dropped (and told), also when the handle was given to a
 * new connection at once.
 */
static void manual_remove(void)
{
	struct twheel_idle *ti = open_idle(4, 100 * MS, MS, 0,
					   TWHEEL_IDLE_MANUAL);
	int a, b, c, d;

	a = twheel_idle_add(ti, 1);
	CHECK(a >= 0);
	advance(ti, 10 * MS);
	CHECK_EQ(twheel_idle_touch(ti, a), 0);		/* 110 ms */
	CHECK_EQ(twheel_idle_remove(ti, a), 0);
	/* Lazily: the timer lives until its deadline tick. */
	CHECK_EQ(info_of(ti).timers, 1);
	advance(ti, 90 * MS);
	CHECK_NONE(ti);
	advance(ti, 100 * MS);
	CHECK_NONE(ti);
	CHECK_EQ(info_of(ti).timers, 0);
	CHECK_EQ(info_of(ti).cancelled, 1);
	CHECK_EQ(nnotes, 0);

	/* The record queued first, then the cancel stored: dropped. */
	b = twheel_idle_add(ti, 2);			/* 300 ms */
	c = twheel_idle_add(ti, 3);
	advance(ti, 100 * MS);
	CHECK_EQ(twheel_idle_remove(ti, b), 0);
	/* b's handle reused at once, for another connection. */
	d = twheel_idle_add(ti, 4);			/* 400 ms */
	CHECK_EQ(d, b);
	expect(ti, 300 * MS, 1, 3);
	CHECK_EQ(nnotes, 1);
	CHECK_EQ(notes[0].what, TWHEEL_IDLE_DROPPED);
	CHECK_EQ(notes[0].cookie, 2);
	CHECK_EQ(notes[0].time_ns, 300 * MS);
	CHECK_EQ(notes[0].deadline_ns, 0);
	CHECK_EQ(info_of(ti).queued, 0);
	CHECK_EQ(twheel_idle_remove(ti, c), 0);
	/* The new connection on the reused handle runs its own time. */
	advance(ti, 100 * MS - 1);
	CHECK_NONE(ti);
	advance(ti, 1);
	expect(ti, 400 * MS, 1, 4);
	CHECK_EQ(twheel_idle_remove(ti, d), 0);
	CHECK_EQ(info_of(ti).timers, 0);
	CHECK_EQ(info_of(ti).cancelled, 1);
	CHECK_EQ(nnotes, 1);
	CHECK_EQ(twheel_idle_close(ti), 0);
}

/*
 * The fd holds max_conns + headroom timers; past the headroom, removed
 * timers not yet ended are cancelled by TWHEEL_IOC_CANCEL, so adds never
 * fail for lack of room; once lazy cancels took effect (info.cancelled),
 * removes are stores again.
 */
static void headroom(void)
{
	struct twheel_idle *ti = open_idle(2, 100 * MS, MS, 1,
					   TWHEEL_IDLE_MANUAL);
	int a, b, c, d;

	CHECK_EQ(info_of(ti).max_timers, 3);
	a = twheel_idle_add(ti, 1);
	b = twheel_idle_add(ti, 2);
	CHECK_ERR(twheel_idle_add(ti, 3), ENOSPC);
	CHECK_EQ(twheel_idle_remove(ti, a), 0);		/* a store */
	CHECK_EQ(info_of(ti).timers, 2);
	CHECK_EQ(twheel_idle_remove(ti, b), 0);		/* a CANCEL */
	CHECK_EQ(info_of(ti).timers, 1);
	c = twheel_idle_add(ti, 3);
	d = twheel_idle_add(ti, 4);
	CHECK(c >= 0 && d >= 0);
	CHECK_EQ(info_of(ti).timers, 3);
	CHECK_ERR(twheel_idle_add(ti, 5), ENOSPC);
	CHECK_EQ(info_of(ti).timers, 3);
	advance(ti, 50 * MS);
	CHECK_EQ(twheel_idle_remove(ti, c), 0);		/* a CANCEL */
	CHECK_EQ(info_of(ti).timers, 2);
	advance(ti, 50 * MS);		/* a ends by its store; d expires */
	expect(ti, 100 * MS, 1, 4);
	CHECK_EQ(info_of(ti).cancelled, 1);
	CHECK_EQ(info_of(ti).timers, 0);
	CHECK_EQ(twheel_idle_remove(ti, d), 0);
	/* a's cancel took effect: a remove is a store again. */
	a = twheel_idle_add(ti, 6);
	b = twheel_idle_add(ti, 7);
	CHECK_EQ(twheel_idle_remove(ti, a), 0);
	CHECK_EQ(info_of(ti).timers, 2);
	advance(ti, 100 * MS);
	expect(ti, 200 * MS, 1, 7);
	CHECK_EQ(info_of(ti).cancelled, 2);
	CHECK_EQ(nnotes, 0);
	CHECK_EQ(twheel_idle_close(ti), 0);
}

/*
 * twheel_idle_drain() reads no more records than it may report: the
 * rest stay queued, the fd readable.
 */
static void drain_limit(void)
{
	struct twheel_idle *ti = open_idle(4, 10 * MS, MS, 0,
					   TWHEEL_IDLE_MANUAL);
	struct twheel_event ev[4];
	int fd = twheel_idle_fd(ti);

	for (int i = 0; i < 3; i++)
		CHECK(twheel_idle_add(ti, 20 + i) == i);
	advance(ti, 10 * MS);
	for (int i = 0; i < 3; i++) {
		CHECK(twt_poll(fd, 0) & POLLIN);
		CHECK_EQ(twheel_idle_drain(ti, ev, 1), 1);
		CHECK_EQ(ev[0].cookie, 20 + i);
	}
	CHECK_EQ(twt_poll(fd, 0), 0);
	CHECK_EQ(twheel_idle_drain(ti, ev, 4), 0);
	CHECK_EQ(twheel_idle_close(ti), 0);
}

/* Every bad argument: its errno, and nothing changed. */
static void bad_args(void)
{
	struct twheel_idle_config cfg = {
		.max_conns = 4,
		.timeout_ns = 100 * MS,
		.flags = TWHEEL_IDLE_MANUAL,
	};
	struct twheel_idle_config bad;
	struct twheel_event ev[4];
	struct twheel_idle *ti;
	long long max = twt_sysfs_read(PARAM_MAX);
	int a, b;

	CHECK(twheel_idle_open(NULL) == NULL && errno == EINVAL);
#define BAD_OPEN(field, value, err) do {				\
	bad = cfg;							\
	bad.field = value;						\
	errno = 0;							\
	CHECK(twheel_idle_open(&bad) == NULL);				\
	CHECK_EQ(errno, err);						\
} while (0)
	BAD_OPEN(max_conns, 0, EINVAL);
	BAD_OPEN(max_conns, (uint64_t)INT_MAX + 1, EINVAL);
	BAD_OPEN(timeout_ns, 0, EINVAL);
	BAD_OPEN(timeout_ns, -1, EINVAL);
	BAD_OPEN(tick_ns, TWHEEL_MIN_TICK_NS - 1, EINVAL);
	BAD_OPEN(tick_ns, TWHEEL_MAX_TICK_NS + 1, EINVAL);
	BAD_OPEN(flags, 2, EINVAL);
	BAD_OPEN(__reserved, 1, EINVAL);
	BAD_OPEN(headroom, UINT64_MAX, EINVAL);
	/* 2^31 ticks or more ahead cannot be stored. */
	bad = cfg;
	bad.tick_ns = TWHEEL_MIN_TICK_NS;
	bad.timeout_ns = (1LL << 31) * (int64_t)TWHEEL_MIN_TICK_NS;
	errno = 0;
	CHECK(twheel_idle_open(&bad) == NULL && errno == EINVAL);
	/* Above the module's max_timers: the kernel's EINVAL. */
	if (max > 1) {
		bad = cfg;
		bad.max_conns = 1;
		bad.headroom = (uint64_t)max;
		errno = 0;
		CHECK(twheel_idle_open(&bad) == NULL && errno == EINVAL);
		bad.headroom = (uint64_t)max - 1;
		ti = twheel_idle_open(&bad);
		CHECK(ti != NULL);
		CHECK_EQ(info_of(ti).max_timers, max);
		twheel_idle_close(ti);
	}
#undef BAD_OPEN

	ti = open_idle(2, 100 * MS, 0, 0, TWHEEL_IDLE_MANUAL);
	CHECK_EQ(info_of(ti).tick_ns, TWHEEL_DEFAULT_TICK_NS);
	a = twheel_idle_add(ti, 1);
	CHECK(a >= 0);
	CHECK_ERR(twheel_idle_add(NULL, 1), EINVAL);
	CHECK_ERR(twheel_idle_fd(NULL), EINVAL);
	CHECK_ERR(twheel_idle_touch(NULL, a), EINVAL);
	CHECK_ERR(twheel_idle_remove(NULL, a), EINVAL);
	CHECK_ERR(twheel_idle_drain(NULL, ev, 4), EINVAL);
	CHECK_ERR(twheel_idle_drain(ti, ev, 0), EINVAL);
	for (int h = -2; h < 4; h++) {
		if (h == a)
			continue;
		CHECK_ERR(twheel_idle_touch(ti, h), EINVAL);
		CHECK_ERR(twheel_idle_remove(ti, h), EINVAL);
	}
	CHECK_ERR(twheel_idle_touch(ti, INT_MAX), EINVAL);
	CHECK_ERR(twheel_idle_remove(ti, INT_MIN), EINVAL);
	b = twheel_idle_add(ti, 2);
	CHECK(b >= 0 && b != a);
	CHECK_ERR(twheel_idle_add(ti, 3), ENOSPC);
	/* Nothing changed: both expire as added, no timer more. */
	CHECK_EQ(info_of(ti).timers, 2);
	CHECK_EQ(info_of(ti).cancelled, 0);
	advance(ti, 100 * MS);
	expect(ti, 100 * MS, 2, 1, 2);
	CHECK_EQ(nnotes, 0);
	CHECK_EQ(twheel_idle_close(NULL), 0);
	CHECK_EQ(twheel_idle_close(ti), 0);
}

/* ---- CLOCK_MONOTONIC */

#define RT_TIMEOUT	(100 * MS)
#define RT_N		40
#define RT_ACTIVE_NS	(1000 * MS)	/* active ones touch for this long */
#define RT_WAIT_NS	(60LL * TWT_S)	/* no bound on speed: a limit only */

enum rt_kind { RT_IDLE, RT_ACTIVE, RT_REMOVED, RT_REMOVED_LATER };

struct rt_conn {
	enum rt_kind kind;
	int h;
	int64_t touched;	/* before its last touch (or add) */
	int64_t reported;	/* when drained, 0 if not */
	bool removed;
};

/*
 * Idle ones (never touched), active ones (touched every 10 ms for 1 s,
 * then idle) and removed ones (at once, or after 30 ms): none reported
 * earlier than timeout after its last touch, none twice, every idle and
 * active one reported, none after its removal. A stall of the test
 * longer than the timeout may report an active one while it is still
 * touched, or one to be removed later before it is: never early all the
 * same.
 */
static void real_clock(void)
{
	struct twheel_idle *ti = open_idle(RT_N, RT_TIMEOUT, MS, 0, 0);
	struct rt_conn c[RT_N];
	int fd = twheel_idle_fd(ti);
	int64_t start = twt_mono(), next_touch = start;
	int left = 0, early = 0;

	for (int i = 0; i < RT_N; i++) {
		c[i].kind = (enum rt_kind)(i % 4);
		c[i].touched = twt_mono();
		c[i].h = twheel_idle_add(ti, i);
		CHECK(c[i].h >= 0);
		c[i].reported = 0;
		c[i].removed = false;
		left++;
	}
	for (int i = 0; i < RT_N; i++) {
		if (c[i].kind == RT_REMOVED) {
			CHECK_EQ(twheel_idle_remove(ti, c[i].h), 0);
			c[i].removed = true;
			left--;
		}
	}
	while (left > 0) {
		struct twheel_event ev[8];
		int64_t now = twt_mono();
		ssize_t n;

		CHECK(now - start < RT_WAIT_NS);
		for (int i = 0; i < RT_N; i++) {
			if (c[i].kind == RT_REMOVED_LATER && !c[i].removed &&
			    !c[i].reported && now - start >= 30 * MS) {
				CHECK_EQ(twheel_idle_remove(ti, c[i].h), 0);
				c[i].removed = true;
				left--;
			}
		}
		twt_poll(fd, 5);
		n = twheel_idle_drain(ti, ev, 8);
		CHECK_OK(n);
		now = twt_mono();
		for (ssize_t k = 0; k < n; k++) {
			uint64_t i = ev[k].cookie;

			CHECK(i < RT_N);
			CHECK(!c[i].reported);
			CHECK(!c[i].removed);
			c[i].reported = now;
			if (ev[k].time_ns < c[i].touched + RT_TIMEOUT) {
				printf("# error: %" PRIu64 " reported at %.3f ms after its last touch\n",
				       i, (ev[k].time_ns - c[i].touched) / 1e6);
				early++;
			}
			CHECK_EQ(twheel_idle_remove(ti, c[i].h), 0);
			left--;
		}
		if (now >= next_touch && now - start < RT_ACTIVE_NS) {
			next_touch = now + 10 * MS;
			for (int i = 0; i < RT_N; i++) {
				if (c[i].kind != RT_ACTIVE || c[i].reported)
					continue;
				c[i].touched = twt_mono();
				CHECK_EQ(twheel_idle_touch(ti, c[i].h), 0);
			}
		}
	}
	CHECK_EQ(early, 0);
	for (int i = 0; i < RT_N; i++) {
		if (c[i].kind == RT_IDLE || c[i].kind == RT_ACTIVE)
			CHECK(c[i].reported >= c[i].touched + RT_TIMEOUT);
		if (c[i].kind == RT_REMOVED)
			CHECK(!c[i].reported);
	}
	/* A little longer: nothing more comes (removed ones end silently). */
	twt_sleep_ns(2 * RT_TIMEOUT);
	{
		struct twheel_event ev[8];

		CHECK_EQ(twheel_idle_drain(ti, ev, 8), 0);
	}
	for (size_t k = 0; k < nnotes; k++)
		printf("# note: %s cookie %" PRIu64 "\n",
		       notes[k].what == TWHEEL_IDLE_READDED ? "re-added" :
		       "dropped", notes[k].cookie);
	CHECK_EQ(info_of(ti).timers, 0);
	CHECK_EQ(twheel_idle_close(ti), 0);
}

/*
 * A late push on a real clock, made deterministic: the deadline passes
 * with nobody waiting, an ioctl queues the record (the kernel reads the
 * entry then), and only then the touch stores a later deadline. The
 * tracker adds the timer again; the handle is reported no sooner than
 * timeout after that touch.
 */
static void real_late_push(void)
{
	struct twheel_idle *ti = open_idle(2, 50 * MS, MS, 0, 0);
	int fd = twheel_idle_fd(ti);
	struct twheel_event ev[2];
	int64_t touched, t0;
	int h;

	t0 = twt_mono();
	h = twheel_idle_add(ti, 5);
	CHECK(h >= 0);
	twt_sleep_ns(100 * MS);
	CHECK_EQ(info_of(ti).queued, 1);
	touched = twt_mono();
	CHECK_EQ(twheel_idle_touch(ti, h), 0);
	CHECK_EQ(twheel_idle_drain(ti, ev, 2), 0);
	CHECK_EQ(nnotes, 1);
	CHECK_EQ(notes[0].what, TWHEEL_IDLE_READDED);
	CHECK_EQ(notes[0].cookie, 5);
	CHECK(notes[0].time_ns >= t0 + 50 * MS);
	CHECK(notes[0].time_ns < notes[0].deadline_ns);
	CHECK(notes[0].deadline_ns >= touched + 50 * MS);
	for (;;) {
		ssize_t n;

		CHECK(twt_mono() - t0 < RT_WAIT_NS);
		twt_poll(fd, 100);
		n = twheel_idle_drain(ti, ev, 2);
		CHECK_OK(n);
		if (n) {
			CHECK_EQ(n, 1);
			CHECK_EQ(ev[0].cookie, 5);
			CHECK(ev[0].time_ns >= notes[0].deadline_ns);
			CHECK(ev[0].time_ns >= touched + 50 * MS);
			break;
		}
	}
	CHECK(twt_mono() >= touched + 50 * MS);
	CHECK_EQ(nnotes, 1);
	CHECK_EQ(twheel_idle_remove(ti, h), 0);
	CHECK_EQ(twheel_idle_close(ti), 0);
}

/*
 * A poll moves records into the ring, ending their timers: an add before
 * the drain may take their table entries. The tracker still finds each
 * record's handle: one touched since gets a timer again (the push came
 * too late), one not touched expires, and the new handles keep theirs.
 */
static void ring_entry_reused(void)
{
	struct twheel_idle *ti = open_idle(8, 100 * MS, MS, 0,
					   TWHEEL_IDLE_MANUAL);
	struct pollfd p = { .fd = twheel_idle_fd(ti), .events = POLLIN };
	int h0, h1, h2, h3, h4;

	h0 = twheel_idle_add(ti, 10);
	h1 = twheel_idle_add(ti, 11);
	h4 = twheel_idle_add(ti, 14);
	CHECK(h0 >= 0 && h1 >= 0 && h4 >= 0);
	advance(ti, 50 * MS);
	CHECK_EQ(twheel_idle_touch(ti, h4), 0);		/* 150 ms */
	advance(ti, 50 * MS);				/* 100 ms: h0, h1 due */
	CHECK_EQ(poll(&p, 1, 0), 1);			/* into the ring */
	CHECK_EQ(info_of(ti).queued, 0);
	CHECK_EQ(info_of(ti).timers, 1);		/* h4's */
	/* Their entries, freed by the poll, go to the next two timers. */
	h2 = twheel_idle_add(ti, 12);
	h3 = twheel_idle_add(ti, 13);
	CHECK(h2 >= 0 && h3 >= 0);
	CHECK_EQ(twheel_idle_touch(ti, h0), 0);		/* too late: 200 ms */
	CHECK_EQ(twheel_idle_remove(ti, h4), 0);
	expect(ti, 100 * MS, 1, 11);
	CHECK_EQ(nnotes, 1);
	CHECK_EQ(notes[0].what, TWHEEL_IDLE_READDED);
	CHECK_EQ(notes[0].cookie, 10);
	CHECK_EQ(notes[0].deadline_ns, 200 * MS);
	advance(ti, 50 * MS);				/* 150 ms: h4's */
	CHECK_NONE(ti);
	CHECK_EQ(nnotes, 1);
	advance(ti, 50 * MS);				/* 200 ms */
	expect(ti, 200 * MS, 3, 12, 13, 10);
	CHECK_EQ(info_of(ti).timers, 0);
	CHECK_EQ(twheel_idle_close(ti), 0);
}

TWT_MAIN("idle",
	 TWT_CASE(manual_touch),
	 TWT_CASE(manual_late_push),
	 TWT_CASE(manual_remove),
	 TWT_CASE(headroom),
	 TWT_CASE(drain_limit),
	 TWT_CASE(bad_args),
	 TWT_CASE(ring_entry_reused),
	 TWT_CASE_T(real_clock, 120),
	 TWT_CASE_T(real_late_push, 120))
