// SPDX-License-Identifier: GPL-2.0
/*
 * table_real: stores into the shared timer table on a real clock and in
 * time namespaces, checked from what uapi/linux/twheel.h promises ("The
 * shared timer table"). The same stores on the manual clock:
 * table_store.c and table_values.c.
 *
 * Real clock: a timer pushed back every 2 ms from another thread never
 * fires before the last deadline stored before its record's time_ns, and
 * fires exactly once; a reader blocked in read(2) is woken at the pushed
 * deadline, never for timers cancelled by a store.
 * Time namespaces: a stored D is a tick of the opener's namespace time.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>

#include "table.h"

#ifndef CLONE_NEWTIME
#define CLONE_NEWTIME 0x00000080
#endif

/* ---- 1. a real clock ---- */

#define RSTORES		1000

struct pusher {
	uint64_t *tab;
	uint64_t id;
	int64_t d[RSTORES];	/* ticks stored */
	int64_t done[RSTORES];	/* CLOCK_MONOTONIC after each store */
	int n;
	int stop;
};

static void *pusher_fn(void *arg)
{
	struct pusher *p = arg;
	int64_t start = twt_mono();

	while (p->n < RSTORES && !__atomic_load_n(&p->stop, __ATOMIC_SEQ_CST) &&
	       twt_mono() - start < 300 * MS) {
		int64_t d = twt_mono() / MS + 50;

		st(p->tab, p->id, TWHEEL_TABLE_DEADLINE(p->id, d));
		p->d[p->n] = d;
		p->done[p->n] = twt_mono();
		__atomic_store_n(&p->n, p->n + 1, __ATOMIC_SEQ_CST);
		twt_sleep_ms(2);
	}
	return NULL;
}

static void real_clock(void)
{
	static struct pusher p;
	struct twheel_event ev[2];
	pthread_t th;
	int64_t t0, first, last_d, seen_d;
	int fd, i, k, polls = 0;
	ssize_t r;

	fd = open_table(0, MS, 8);
	p.tab = map_table(fd, pgsz());
	t0 = twt_mono();
	first = (t0 + 100 * MS) / MS + 1;
	p.id = twt_add(fd, 42, first * MS, TWHEEL_ABSTIME, CLOCK_MONOTONIC);
	CHECK_OK(pthread_create(&th, NULL, pusher_fn, &p) == 0 ? 0 : -1);
	for (;;) {
		r = read(fd, ev, sizeof(ev));
		if (r > 0)
			break;
		CHECK(r < 0 && errno == EAGAIN);
		CHECK(twt_mono() - t0 < 10 * TWT_S);
		twt_poll(fd, 5);
		polls++;
	}
	__atomic_store_n(&p.stop, 1, __ATOMIC_SEQ_CST);
	CHECK_OK(pthread_join(th, NULL) == 0 ? 0 : -1);
	CHECK_EQ(r, TWT_EV_SIZE);
	CHECK_EQ(ev[0].id, p.id);
	CHECK_EQ(ev[0].cookie, 42);
	CHECK(ev[0].time_ns >= first * MS);
	/*
	 * The last store done before the record's time (with 100 us for
	 * the clocks of two CPUs) was done before the kernel read the
	 * entry: it took effect, the record is not before its deadline.
	 */
	k = -1;
	for (i = 0; i < p.n; i++)
		if (p.done[i] < ev[0].time_ns - 100 * TWT_US)
			k = i;
	seen_d = k >= 0 ? p.d[k] : first;
	last_d = p.n ? p.d[p.n - 1] : first;
	printf("# %d stores over %.1f ms, record %+.3f ms from the last "
	       "deadline stored, %+.3f ms from the last seen (%d polls)\n",
	       p.n, p.n ? (p.done[p.n - 1] - t0) / 1e6 : 0.0,
	       (ev[0].time_ns - last_d * MS) / 1e6,
	       (ev[0].time_ns - seen_d * MS) / 1e6, polls);
	CHECK(ev[0].time_ns >= seen_d * MS);
	if (ev[0].time_ns < last_d * MS)
		printf("# a store came too late (the header's rule)\n");
	/* Exactly once: nothing more, the timer gone. */
	twt_sleep_ns(last_d * MS + 30 * MS - twt_mono());
	CHECK_NONE_QUEUED(fd);
	CHECK_EQ(twt_timers(fd), 0);
	CHECK_ERR(twt_query_raw(fd, p.id, NULL), ENOENT);
	close(fd);
}

/*
 * A real clock and a task blocked in read(2): a timer pushed back is
 * not reported before its new deadline, one cancelled by a store never;
 * the next one wakes the reader.
 */
static void real_clock_read(void)
{
	struct twheel_event ev[2];
	uint64_t *tab, a, b, c;
	int64_t now, d;
	int fd;

	fd = twt_open(0);
	CHECK_OK(config_raw(fd, MS, CFG_TABLE | CFG_MAX, 8));
	tab = map_table(fd, pgsz());
	now = twt_mono();
	a = twt_add(fd, 1, now + 100 * MS, TWHEEL_ABSTIME, CLOCK_MONOTONIC);
	b = twt_add(fd, 2, now + 100 * MS, TWHEEL_ABSTIME, CLOCK_MONOTONIC);
	c = twt_add(fd, 3, now + 50 * MS, TWHEEL_ABSTIME, CLOCK_MONOTONIC);
	d = (now + 300 * MS) / MS;
	st(tab, a, TWHEEL_TABLE_DEADLINE(a, d));
	st(tab, b, TWHEEL_TABLE_CANCELLED(b));
	st(tab, c, TWHEEL_TABLE_CANCELLED(c));
	CHECK_EQ(read(fd, ev, sizeof(ev)), TWT_EV_SIZE);
	CHECK(twt_mono() >= d * MS);
	CHECK_EQ(ev[0].id, a);
	CHECK(ev[0].time_ns >= d * MS);
	printf("# record %+.3f ms from the stored deadline\n",
	       (ev[0].time_ns - d * MS) / 1e6);
	CHECK_EQ(twt_timers(fd), 0);
	CHECK_EQ(twt_info(fd).cancelled, 2);
	CHECK_ERR(twt_query_raw(fd, b, NULL), ENOENT);
	CHECK_ERR(twt_query_raw(fd, c, NULL), ENOENT);
	close(fd);
}

/* ---- 2. time namespaces ---- */

/*
 * In a time namespace @off_s seconds off: the entry's D is a tick of the
 * namespace's time, and a stored D pushes the timer to the namespace's
 * D * tick_ns: not earlier (as host time would with a negative offset),
 * not later (as with a positive one), on CLOCK_MONOTONIC and BOOTTIME.
 */
static void in_timens(int off_s)
{
	int64_t host = twt_mono();
	char buf[128];
	unsigned int k;
	int fd, len;
	pid_t pid;

	if (off_s < 0 && host < (-off_s + 1) * TWT_S)
		twt_sleep_ns((-off_s + 1) * TWT_S - host);
	if (unshare(CLONE_NEWTIME))
		twt_skip("no time namespaces here (unshare CLONE_NEWTIME)");
	len = snprintf(buf, sizeof(buf), "monotonic %d 0\nboottime %d 0\n",
		       off_s, off_s);
	fd = open("/proc/self/timens_offsets", O_WRONLY);
	CHECK_OK(fd);
	CHECK_EQ(write(fd, buf, len), len);
	close(fd);
	fflush(stdout);
	pid = fork();
	CHECK(pid >= 0);
	if (pid) {
		wait_ok(pid);
		return;
	}
	fd = open_table(0, MS, 8);
	{
		uint64_t *tab = map_table(fd, pgsz());

		for (k = 0; k < 2; k++) {
			clockid_t c = k ? CLOCK_BOOTTIME : CLOCK_MONOTONIC;
			int64_t now = twt_now(c), placed = now + 200 * MS, d;
			struct twheel_status s;
			struct twheel_event ev;
			uint64_t id;

			id = twt_add(fd, k, placed, TWHEEL_ABSTIME, c);
			s = twt_query(fd, id);
			CHECK(s.deadline_ns >= placed &&
			      s.deadline_ns < placed + MS);
			CHECK_EQ(ld(tab, id),
				 TWHEEL_TABLE_DEADLINE(id, s.deadline_ns / MS));
			d = (now + 500 * MS) / MS;
			st(tab, id, TWHEEL_TABLE_DEADLINE(id, d));
			/* Stored well before the placed deadline. */
			CHECK(twt_now(c) < placed - 50 * MS);
			if (!(twt_poll(fd, 3000) & POLLIN))
				printf("# %s: no record 3 s after the store "
				       "(namespace %+d s)\n",
				       twt_clockname(c), off_s);
			CHECK_EQ(read(fd, &ev, sizeof(ev)), sizeof(ev));
			printf("# %s: record %+.3f ms from the stored "
			       "deadline (namespace time)\n",
			       twt_clockname(c), (ev.time_ns - d * MS) / 1e6);
			CHECK(twt_now(c) >= d * MS);
			CHECK_EQ(ev.id, id);
			CHECK(ev.time_ns >= d * MS);
			CHECK(ev.time_ns < d * MS + TWT_S);
		}
	}
	close(fd);
	_exit(0);
}

static void timens_minus_3s(void) { in_timens(-3); }
static void timens_plus_100s(void) { in_timens(100); }

TWT_MAIN("table_real",
	 TWT_CASE(real_clock),
	 TWT_CASE(real_clock_read),
	 TWT_CASE(timens_minus_3s),
	 TWT_CASE(timens_plus_100s))
