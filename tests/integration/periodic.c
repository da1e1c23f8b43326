// SPDX-License-Identifier: GPL-2.0
/*
 * periodic: timers with period_ns. Expiries while the record is unread
 * are counted in that one record (never two records for one timer); the
 * next deadline after a read is the first of the period's grid after the
 * present; a period below the tick is one tick; cancel and modify report
 * PENDING or QUEUED as for one-shot timers; an unread periodic timer
 * costs no wake-ups. Exact counts on the manual clock, tolerant ones on
 * the real clock.
 */
#include <sys/epoll.h>

#include "twtest.h"

#define TICK		((int64_t)TWHEEL_DEFAULT_TICK_NS)

static int periodic_open(uint64_t tick)
{
	return twt_open_manual(O_NONBLOCK, tick);
}

/* ---- counts on the manual clock ---- */

/* 50 ms timer, left unread for 160 ms: one record, count 3. */
static void count_three_manual(void)
{
	int fd = periodic_open(TWHEEL_DEFAULT_TICK_NS);
	struct twheel_event ev[4];
	struct twheel_status st;
	uint64_t id;

	id = twt_addp(fd, 0xCAFE, 50 * TWT_MS, 50 * TWT_MS, 0, CLOCK_MONOTONIC);
	st = twt_query(fd, id);
	CHECK_EQ(st.period_ns, 50 * TWT_MS);
	CHECK_EQ(st.deadline_ns, 50 * TWT_MS);
	CHECK_EQ(st.state, TWHEEL_STATE_PENDING);
	CHECK_EQ(twt_advance(fd, 160 * TWT_MS), 160 * TWT_MS);
	CHECK_EQ(twt_queued(fd), 1);
	st = twt_query(fd, id);
	CHECK_EQ(st.state, TWHEEL_STATE_QUEUED);
	CHECK_EQ(st.count, 3);
	CHECK_EQ(st.deadline_ns, 200 * TWT_MS);	/* next, not yet counted */
	CHECK_EQ(st.remaining_ns, 40 * TWT_MS);
	CHECK_EQ(twt_drain(fd, ev, 4), 1);
	CHECK_EQ(ev[0].id, id);
	CHECK_EQ(ev[0].cookie, 0xCAFE);
	CHECK_EQ(ev[0].count, 3);
	CHECK_EQ(ev[0].time_ns, 160 * TWT_MS);
	CHECK_EQ(ev[0].clock, CLOCK_MONOTONIC);
	CHECK_EQ(ev[0].flags, 0);
	/* Read: pending again, for the grid's next deadline. */
	st = twt_query(fd, id);
	CHECK_EQ(st.state, TWHEEL_STATE_PENDING);
	CHECK_EQ(st.count, 0);
	CHECK_EQ(st.deadline_ns, 200 * TWT_MS);
	CHECK_EQ(st.remaining_ns, 40 * TWT_MS);
	CHECK_EQ(twt_timers(fd), 1);
	twt_advance(fd, 40 * TWT_MS - 1);
	CHECK_NONE_QUEUED(fd);
	twt_advance(fd, 1);
	CHECK_EQ(twt_drain(fd, ev, 4), 1);
	CHECK_EQ(ev[0].count, 1);
	CHECK_EQ(ev[0].time_ns, 200 * TWT_MS);
	close(fd);
}

/*
 * One record at a time: while it is unread, later expiries only raise
 * its count (read(2) counts every deadline passed by then); the record
 * keeps the time it was queued at.
 */
static void one_record_at_a_time(void)
{
	int fd = periodic_open(TWHEEL_DEFAULT_TICK_NS);
	struct twheel_event ev[8];
	uint64_t a, b, c;
	int64_t now = 0;

	a = twt_addp(fd, 1, 50 * TWT_MS, 50 * TWT_MS, 0, CLOCK_MONOTONIC);
	b = twt_addp(fd, 2, 30 * TWT_MS, 20 * TWT_MS, 0, CLOCK_BOOTTIME);
	c = twt_add(fd, 3, 55 * TWT_MS, 0, CLOCK_MONOTONIC);
	while (now < 160 * TWT_MS) {
		struct twheel_status st;
		int64_t want_a, want_b;

		now = twt_advance(fd, 10 * TWT_MS);
		want_a = now / (50 * TWT_MS);
		want_b = now < 30 * TWT_MS ? 0 :
			 (now - 30 * TWT_MS) / (20 * TWT_MS) + 1;
		CHECK_EQ(twt_queued(fd), (want_a > 0) + (want_b > 0) +
			 (now >= 55 * TWT_MS));
		st = twt_query(fd, a);
		CHECK_EQ(st.count, want_a);
		CHECK_EQ(st.state, want_a ? TWHEEL_STATE_QUEUED :
			 TWHEEL_STATE_PENDING);
		st = twt_query(fd, b);
		CHECK_EQ(st.count, want_b);
	}
	/* Queued at 30 (b), 50 (a), 60 (c, its 55 ms tick at the 60 ms step). */
	CHECK_EQ(twt_drain(fd, ev, 8), 3);
	CHECK_EQ(ev[0].id, b);
	CHECK_EQ(ev[0].time_ns, 30 * TWT_MS);
	CHECK_EQ(ev[0].count, 7);		/* 30, 50, ..., 150 */
	CHECK_EQ(ev[1].id, a);
	CHECK_EQ(ev[1].time_ns, 50 * TWT_MS);
	CHECK_EQ(ev[1].count, 3);
	CHECK_EQ(ev[2].id, c);
	CHECK_EQ(ev[2].time_ns, 60 * TWT_MS);
	CHECK_EQ(ev[2].count, 1);
	CHECK_EQ(twt_timers(fd), 2);
	close(fd);
}

/* The next deadline after a read: the first grid point after the present. */
static void next_deadline_on_grid(void)
{
	int fd = periodic_open(TWHEEL_DEFAULT_TICK_NS);
	struct twheel_event ev[2];
	uint64_t id;

	/* Grid 7, 17, 27, ... ms. */
	id = twt_addp(fd, 1, 7 * TWT_MS, 10 * TWT_MS, TWHEEL_ABSTIME,
		      CLOCK_REALTIME);
	twt_advance(fd, 33 * TWT_MS);
	CHECK_EQ(twt_drain(fd, ev, 2), 1);
	CHECK_EQ(ev[0].count, 3);		/* 7, 17, 27 */
	CHECK_EQ(twt_query(fd, id).deadline_ns, 37 * TWT_MS);
	twt_advance(fd, 4 * TWT_MS);		/* exactly 37 */
	CHECK_EQ(twt_drain(fd, ev, 2), 1);
	CHECK_EQ(ev[0].count, 1);
	CHECK_EQ(ev[0].time_ns, 37 * TWT_MS);
	/* Read at 37: 37 is not after the present, 47 is. */
	CHECK_EQ(twt_query(fd, id).deadline_ns, 47 * TWT_MS);
	/* Left unread for long: counted at read time, not at queue time. */
	twt_advance(fd, 63 * TWT_MS);		/* 100: 47 .. 97 */
	CHECK_EQ(twt_query(fd, id).count, 6);
	twt_advance(fd, 7 * TWT_MS);		/* 107: and 107 */
	CHECK_EQ(twt_drain(fd, ev, 2), 1);
	CHECK_EQ(ev[0].count, 7);
	CHECK_EQ(ev[0].time_ns, 100 * TWT_MS);	/* queued at the 100 step */
	CHECK_EQ(twt_query(fd, id).deadline_ns, 117 * TWT_MS);
	close(fd);
}

/* A grid off the tick: due on the tick after each point, no drift. */
static void grid_off_tick(void)
{
	int fd = periodic_open(TWHEEL_DEFAULT_TICK_NS);
	struct twheel_event ev[2];
	uint64_t id;
	int i;

	/* 7.5, 17.5, 27.5, ... ms: due at 8, 18, 28, ... */
	id = twt_addp(fd, 1, 7500 * TWT_US, 10 * TWT_MS, 0, CLOCK_TAI);
	CHECK_EQ(twt_query(fd, id).period_ns, 10 * TWT_MS);
	twt_advance(fd, 7999 * TWT_US);
	CHECK_NONE_QUEUED(fd);
	twt_advance(fd, TWT_US);
	for (i = 0; i < 50; i++) {
		int64_t now;

		CHECK_EQ(twt_drain(fd, ev, 2), 1);
		CHECK_EQ(ev[0].id, id);
		CHECK_EQ(ev[0].count, 1);
		CHECK_EQ(ev[0].time_ns, (8 + 10 * i) * TWT_MS);
		now = twt_advance(fd, 10 * TWT_MS - 1);
		CHECK_EQ(now, (18 + 10 * i) * TWT_MS - 1);
		CHECK_NONE_QUEUED(fd);
		twt_advance(fd, 1);
	}
	close(fd);
}

/*
 * QUERY's deadline_ns of a periodic timer whose grid is off the tick:
 * "rounded up to the fd's tick (by less than one tick; exact on a
 * period's multiples)": a periodic timer's deadlines are its grid points,
 * reported exactly, the first one and the later ones.
 */
static void status_deadline_off_tick(void)
{
	int fd = periodic_open(TWHEEL_DEFAULT_TICK_NS);
	struct twheel_event ev[2];
	uint64_t id;

	id = twt_addp(fd, 1, 7500 * TWT_US, 10 * TWT_MS, 0, CLOCK_TAI);
	CHECK_EQ(twt_query(fd, id).deadline_ns, 7500 * TWT_US);
	CHECK_EQ(twt_query(fd, id).remaining_ns, 7500 * TWT_US);
	twt_advance(fd, 8 * TWT_MS);
	CHECK_EQ(twt_drain(fd, ev, 2), 1);
	CHECK_EQ(twt_query(fd, id).deadline_ns, 17500 * TWT_US);
	CHECK_EQ(twt_query(fd, id).remaining_ns, 9500 * TWT_US);
	/* Re-created from that status: the same grid, the same expiries. */
	{
		struct twheel_status st = twt_query(fd, id);
		uint64_t id2 = twt_addp(fd, 2, st.deadline_ns, st.period_ns,
					TWHEEL_ABSTIME, CLOCK_TAI);
		int i;

		for (i = 0; i < 5; i++) {
			twt_advance(fd, 10 * TWT_MS);
			CHECK_EQ(twt_drain(fd, ev, 2), 2);
			CHECK_EQ(ev[0].id, id);
			CHECK_EQ(ev[1].id, id2);
			CHECK_EQ(ev[0].count, ev[1].count);
		}
		CHECK_EQ(twt_query(fd, id).deadline_ns,
			 twt_query(fd, id2).deadline_ns);
	}
	close(fd);
}

/* A grid that starts in the past: due at once, every point counted. */
static void start_in_the_past(void)
{
	int fd = periodic_open(TWHEEL_DEFAULT_TICK_NS);
	struct twheel_event ev[2];
	struct twheel_status st;
	uint64_t id;

	twt_advance(fd, 5 * TWT_S);
	/* -1, 0, 1, ..., 5 s: seven deadlines passed. */
	id = twt_addp(fd, 1, -TWT_S, TWT_S, TWHEEL_ABSTIME, CLOCK_MONOTONIC);
	CHECK_EQ(twt_queued(fd), 1);
	st = twt_query(fd, id);
	CHECK_EQ(st.state, TWHEEL_STATE_QUEUED);
	CHECK_EQ(st.count, 7);
	CHECK_EQ(st.deadline_ns, 6 * TWT_S);
	CHECK_EQ(twt_drain(fd, ev, 2), 1);
	CHECK_EQ(ev[0].count, 7);
	CHECK_EQ(ev[0].time_ns, 5 * TWT_S);
	st = twt_query(fd, id);
	CHECK_EQ(st.state, TWHEEL_STATE_PENDING);
	CHECK_EQ(st.deadline_ns, 6 * TWT_S);
	twt_advance(fd, TWT_S);
	CHECK_EQ(twt_drain(fd, ev, 2), 1);
	CHECK_EQ(ev[0].count, 1);
	close(fd);
}

/* A period below the tick is taken as one tick; QUERY shows that. */
static void period_below_tick(void)
{
	int fd = periodic_open(TWHEEL_DEFAULT_TICK_NS);
	int fd2 = periodic_open(TWHEEL_MIN_TICK_NS);
	struct twheel_event ev[2];
	uint64_t a, b, c, d, e;

	a = twt_addp(fd, 1, TWT_MS, 1, 0, CLOCK_MONOTONIC);
	b = twt_addp(fd, 2, TWT_MS, TICK - 1, 0, CLOCK_MONOTONIC);
	c = twt_addp(fd, 3, TWT_MS, TICK, 0, CLOCK_MONOTONIC);
	d = twt_addp(fd, 4, TWT_MS, TICK + 1, 0, CLOCK_MONOTONIC);
	e = twt_add(fd, 5, TWT_S, 0, CLOCK_MONOTONIC);
	CHECK_EQ(twt_query(fd, a).period_ns, TICK);
	CHECK_EQ(twt_query(fd, b).period_ns, TICK);
	CHECK_EQ(twt_query(fd, c).period_ns, TICK);
	CHECK_EQ(twt_query(fd, d).period_ns, TICK + 1);
	/* By modify, too. */
	CHECK_EQ(twt_modify(fd, e, TWT_MS, 5, 0), TWHEEL_STATE_PENDING);
	CHECK_EQ(twt_query(fd, e).period_ns, TICK);
	/* 1, 2, ..., 10 ms: ten expiries. */
	twt_advance(fd, 10 * TWT_MS);
	CHECK_EQ(twt_query(fd, a).count, 10);
	CHECK_EQ(twt_query(fd, e).count, 10);
	/* The tick of that fd: 1 us. */
	a = twt_addp(fd2, 1, TWT_US, 500, 0, CLOCK_MONOTONIC);
	CHECK_EQ(twt_query(fd2, a).period_ns, 1000);
	twt_advance(fd2, TWT_MS);
	CHECK_EQ(twt_drain(fd2, ev, 2), 1);
	CHECK_EQ(ev[0].count, 1000);
	close(fd2);
	close(fd);
}

/* ---- cancel and modify ---- */

static void cancel_periodic(void)
{
	int fd = periodic_open(TWHEEL_DEFAULT_TICK_NS);
	struct twheel_event ev[2];
	uint32_t res;
	uint64_t a, b, c;

	a = twt_addp(fd, 1, 10 * TWT_MS, 10 * TWT_MS, 0, CLOCK_MONOTONIC);
	b = twt_addp(fd, 2, 10 * TWT_MS, 10 * TWT_MS, 0, CLOCK_MONOTONIC);
	c = twt_addp(fd, 3, 10 * TWT_MS, 10 * TWT_MS, 0, CLOCK_MONOTONIC);
	CHECK_EQ(twt_cancel(fd, a), TWHEEL_STATE_PENDING);
	twt_advance(fd, 35 * TWT_MS);
	CHECK_EQ(twt_queued(fd), 2);
	/* Queued (count 3): retracted. */
	CHECK_EQ(twt_cancel(fd, b), TWHEEL_STATE_QUEUED);
	CHECK_EQ(twt_queued(fd), 1);
	/* Read, then pending again: PENDING. */
	CHECK_EQ(twt_drain(fd, ev, 2), 1);
	CHECK_EQ(ev[0].id, c);
	CHECK_EQ(ev[0].count, 3);
	CHECK_EQ(twt_query(fd, c).state, TWHEEL_STATE_PENDING);
	CHECK_EQ(twt_cancel(fd, c), TWHEEL_STATE_PENDING);
	/* All gone: ENOENT, and nothing more ever. */
	CHECK_ERR(twt_cancel_raw(fd, a, 0, &res), ENOENT);
	CHECK_ERR(twt_cancel_raw(fd, b, 0, &res), ENOENT);
	CHECK_ERR(twt_cancel_raw(fd, c, 0, &res), ENOENT);
	CHECK_ERR(twt_query_raw(fd, c, NULL), ENOENT);
	twt_advance(fd, TWT_S);
	CHECK_NONE_QUEUED(fd);
	CHECK_EQ(twt_timers(fd), 0);
	close(fd);
}

static void modify_periodic(void)
{
	int fd = periodic_open(TWHEEL_DEFAULT_TICK_NS);
	struct twheel_event ev[2];
	struct twheel_status st;
	uint64_t a;

	a = twt_addp(fd, 1, 50 * TWT_MS, 50 * TWT_MS, 0, CLOCK_MONOTONIC);
	CHECK_EQ(twt_modify(fd, a, 20 * TWT_MS, 30 * TWT_MS, 0),
		 TWHEEL_STATE_PENDING);
	st = twt_query(fd, a);
	CHECK_EQ(st.deadline_ns, 20 * TWT_MS);
	CHECK_EQ(st.period_ns, 30 * TWT_MS);
	twt_advance(fd, 160 * TWT_MS);		/* 20, 50, 80, 110, 140 */
	CHECK_EQ(twt_query(fd, a).count, 5);
	/* Queued: retracted; the new count starts from the new deadline. */
	CHECK_EQ(twt_modify(fd, a, 50 * TWT_MS, 50 * TWT_MS, 0),
		 TWHEEL_STATE_QUEUED);
	CHECK_NONE_QUEUED(fd);
	st = twt_query(fd, a);
	CHECK_EQ(st.state, TWHEEL_STATE_PENDING);
	CHECK_EQ(st.deadline_ns, 210 * TWT_MS);
	CHECK_EQ(st.count, 0);
	twt_advance(fd, 50 * TWT_MS);
	CHECK_EQ(twt_drain(fd, ev, 2), 1);
	CHECK_EQ(ev[0].count, 1);
	CHECK_EQ(ev[0].time_ns, 210 * TWT_MS);
	/* After a read it is pending: PENDING. */
	CHECK_EQ(twt_modify(fd, a, 0, 10 * TWT_MS, 0), TWHEEL_STATE_PENDING);
	/* Due now: queued before the modify returned, count 1. */
	CHECK_EQ(twt_queued(fd), 1);
	CHECK_EQ(twt_drain(fd, ev, 2), 1);
	CHECK_EQ(ev[0].count, 1);
	CHECK_EQ(ev[0].time_ns, 210 * TWT_MS);
	CHECK_EQ(twt_query(fd, a).deadline_ns, 220 * TWT_MS);
	close(fd);
}

/* ---- the real clock ---- */

/*
 * 50 ms on CLOCK_MONOTONIC, unread for at least 160 ms: count at least 3,
 * and exactly the grid points up to the read (within the read's window).
 */
static void count_real_clock(void)
{
	const int64_t p = 50 * TWT_MS;
	int fd = twt_open(0);
	struct twheel_event ev;
	struct twheel_status st;
	int64_t t0, t1, t2, t3, d0, total = 0;
	uint64_t id;
	int round;

	t0 = twt_mono();
	id = twt_addp(fd, 1, p, p, 0, CLOCK_MONOTONIC);
	t1 = twt_mono();
	st = twt_query(fd, id);
	d0 = st.deadline_ns;
	/* The first deadline: the add's present plus the delay, exactly. */
	CHECK(d0 >= t0 + p && d0 <= t1 + p);
	for (round = 0; round < 3; round++) {
		int64_t since = twt_mono();
		int64_t n;

		twt_sleep_ns(since + 160 * TWT_MS - twt_mono());
		t2 = twt_mono();
		CHECK_EQ(read(fd, &ev, sizeof(ev)), sizeof(ev));
		t3 = twt_mono();
		n = (int64_t)ev.count;
		total += n;
		printf("# round %d: count %lld after %.1f ms unread\n", round,
		       (long long)n, (t2 - since) / 1e6);
		CHECK_EQ(ev.id, id);
		CHECK(n >= 3);
		/* Never more than the time elapsed allows. */
		CHECK(total <= (t3 - t0) / p);
		/*
		 * Exactly the grid points from d0 up to the read's present
		 * (somewhere in [t2, t3]); the next deadline the one after.
		 */
		CHECK(d0 + (n - 1) * p <= t3);
		CHECK(d0 + n * p + TICK > t2);
		CHECK(ev.time_ns >= d0);
		CHECK(ev.time_ns <= t3);
		/*
		 * Re-armed at the read for d0 + n * p; a query that comes
		 * after that deadline (a slow machine) finds its record
		 * queued, counting from there, and the next deadline after.
		 */
		st = twt_query(fd, id);
		if (st.state == TWHEEL_STATE_PENDING)
			CHECK_EQ(st.deadline_ns, d0 + n * p);
		else
			CHECK_EQ(st.deadline_ns,
				 d0 + (n + (int64_t)st.count) * p);
		d0 += n * p;
	}
	close(fd);
}

/* fdinfo has a next_expiry_* line (an hrtimer armed for a wheel). */
static int periodic_has_next_expiry(int fd)
{
	char path[64], line[256];
	FILE *f;
	int found = 0;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	f = fopen(path, "r");
	if (!f)
		twt_fail(__FILE__, __LINE__, "%s: %s", path, strerror(errno));
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "next_expiry", 11))
			found = 1;
	fclose(f);
	return found;
}

/*
 * An unread periodic timer of a one-tick period costs no wake-ups: no
 * pending timer, no armed expiry in fdinfo, no edge-triggered wake-up,
 * while its count keeps growing.
 */
static void unread_no_wakeups(void)
{
	int fd = twt_open(O_NONBLOCK), fd2 = twt_open(O_NONBLOCK);
	struct epoll_event e = { .events = EPOLLIN | EPOLLET };
	struct twheel_event ev;
	long long v;
	uint64_t id, far, c1, c2;
	int ep, n;

	/* Sanity (on another fd): a pending timer shows up. */
	CHECK(!periodic_has_next_expiry(fd2));
	far = twt_add(fd2, 9, 3600 * TWT_S, 0, CLOCK_MONOTONIC);
	CHECK(periodic_has_next_expiry(fd2));
	CHECK_EQ(twt_cancel(fd2, far), TWHEEL_STATE_PENDING);
	close(fd2);

	id = twt_addp(fd, 1, TICK, TICK, 0, CLOCK_MONOTONIC);
	CHECK(twt_poll(fd, 5000) & POLLIN);
	CHECK_OK(twt_fdinfo(fd, "pending", &v));
	CHECK_EQ(v, 0);
	CHECK_OK(twt_fdinfo(fd, "queued", &v));
	CHECK_EQ(v, 1);
	CHECK(!periodic_has_next_expiry(fd));

	ep = epoll_create1(0);
	CHECK(ep >= 0);
	CHECK_OK(epoll_ctl(ep, EPOLL_CTL_ADD, fd, &e));
	CHECK_EQ(epoll_wait(ep, &e, 1, 1000), 1);	/* the edge we have */
	c1 = twt_query(fd, id).count;
	/* 100 ms, about 100 periods: no wake-up at all. */
	n = epoll_wait(ep, &e, 1, 100);
	CHECK_EQ(n, 0);
	c2 = twt_query(fd, id).count;
	printf("# count %llu -> %llu over 100 ms unread\n",
	       (unsigned long long)c1, (unsigned long long)c2);
	CHECK(c2 > c1);
	CHECK(!periodic_has_next_expiry(fd));
	CHECK_OK(twt_fdinfo(fd, "pending", &v));
	CHECK_EQ(v, 0);
	/* Read: it counts on (at least what QUERY said). */
	CHECK_EQ(read(fd, &ev, sizeof(ev)), sizeof(ev));
	CHECK_EQ(ev.id, id);
	CHECK(ev.count >= c2);
	CHECK_EQ(twt_timers(fd), 1);
	close(ep);
	close(fd);
}

/*
 * One read(2), one record per timer: a read that took a periodic timer's
 * record (and so set its next deadline) never hands over a second record
 * of it, also when that deadline passes while the read goes on (a read
 * with room left goes on with the records queued). A reader closing a
 * connection on its timer's record, cancelling the timer, would
 * otherwise find in the same buffer a record of a timer it had ended
 * (echo10k: "record for timer ... of no open connection"). A period of a
 * few ticks of 1 us: the next deadline passes within the read.
 */
static void one_record_per_read(void)
{
	int fd = twt_open(0);
	struct twheel_event ev[16];
	int64_t end;
	long reads = 0, twice = 0, records = 0;
	uint64_t id[2];

	twt_config(fd, TWT_US, 0);
	id[0] = twt_addp(fd, 1, 5 * TWT_US, 5 * TWT_US, 0, CLOCK_MONOTONIC);
	id[1] = twt_addp(fd, 2, 7 * TWT_US, 7 * TWT_US, 0, CLOCK_MONOTONIC);
	end = twt_mono() + 2 * TWT_S;
	while (twt_mono() < end) {
		ssize_t n = read(fd, ev, sizeof(ev));
		int seen[2] = { 0, 0 };

		CHECK(n > 0 && n % TWT_EV_SIZE == 0);
		n /= TWT_EV_SIZE;
		reads++;
		records += n;
		for (ssize_t i = 0; i < n; i++) {
			int k = ev[i].id == id[0] ? 0 : 1;

			CHECK(ev[i].id == id[k]);
			if (seen[k]++ && twice++ < 5)
				printf("# read %ld: timer %llu twice in %zd records\n",
				       reads, (unsigned long long)ev[i].id, n);
		}
	}
	printf("# %ld reads, %ld records, %ld with a timer twice\n", reads,
	       records, twice);
	CHECK_EQ(twice, 0);
	close(fd);
}

TWT_MAIN("periodic",
	 TWT_CASE(count_three_manual),
	 TWT_CASE(one_record_at_a_time),
	 TWT_CASE(next_deadline_on_grid),
	 TWT_CASE(grid_off_tick),
	 TWT_CASE(status_deadline_off_tick),
	 TWT_CASE(start_in_the_past),
	 TWT_CASE(period_below_tick),
	 TWT_CASE(cancel_periodic),
	 TWT_CASE(modify_periodic),
	 TWT_CASE(count_real_clock),
	 TWT_CASE(unread_no_wakeups),
	 TWT_CASE(one_record_per_read))
