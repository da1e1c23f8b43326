// SPDX-License-Identifier: GPL-2.0
/*
 * irqpush: timeouts pushed back by stores into the shared table wake
 * nobody (the hrtimer callback re-places them itself; see
 * kmod/twheel_irq.h), and the old behaviour stays where it must.
 *
 * pushed_no_wakeups: 1000 table timers on a 1 ms tick, a 200 ms timeout
 * each (spread over 200 ticks), pushed to now + 200 ms every 50 ms for 2.5 s
 * by the main thread (measured after a warm-up of about 1.2 s: the first
 * cascades need wheel levels, which the woken task allocates), while
 * another thread only waits in epoll_wait(2)
 * and reads what it reports. Its voluntary context switches
 * (/proc/self/task/TID/status) over the pushes count its wake-ups: each
 * must have brought records, and a record then only comes from a push
 * that came too late (the pusher descheduled past a timer's deadline, as
 * on a slow emulated machine: legal, counted, never a failure). All
 * timers stay pending meanwhile but those. Then the pushes stop: each
 * timer expires exactly once, never before its last pushed deadline.
 * The window is placed to hold the moment the pushed deadlines cross
 * into the next 4096-tick range of the clock, where they need wheel
 * level 2, which the wheel lacks (as it lacks level 0, which only their
 * old deadlines would need): one wake-up allocates it, by design, and
 * none comes at their old deadlines.
 *
 * cancelled_no_wakeups: 1000 table timers, 400 to 600 ms ahead, each
 * cancelled by a store right after its add (request timeouts whose reply
 * came): over their deadlines the waiting thread is woken at most twice
 * (a wheel level to allocate, in each of two 4096-tick ranges; without
 * the callback's work it would be once per tick that held one, about
 * 200 times), no record comes, and the fd's next use (INFO) ends them
 * all: counted as cancelled, none left.
 *
 * plain_fd_modify_no_wakeups: without a table, timeouts moved later by
 * MODIFY may leave the hrtimer armed early (for a cascade, or a tick
 * other timers still hold; the first in line moved alone re-arms it at
 * once: trace.c's hrtimer_follows_first); its callback re-arms it and wakes
 * nobody (at most twice, for wheel levels to allocate; before the
 * callback did this work it woke the waiter at every early event), and
 * no record comes.
 *
 * cascade_unattended: on every clock (the alarm clocks too, with
 * TWHEEL_FEATURE_ALARM), a timer the wheel places at level 2, on an fd
 * nobody uses (no poll, no read, no ioctl: its task may as well be
 * frozen for a suspend): the cascade to level 1, 4 000 ticks before its
 * deadline, is done by the clock's hrtimer (or alarm) callback itself, so
 * fdinfo's next_expiry_<clock>_ns, which only looks, is past it at once;
 * the timer then expires exactly once, never before its deadline.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>

#include "twtest.h"

#define NT		1000
#define TIMEOUT_MS	200
#define PUSH_MS		50
#define ROUNDS		50	/* 2.5 s measured, after a warm-up */

struct waiter {
	int fd;
	int stop_fd;	/* written to end the wait: no time-out wakes it */
	pid_t tid;
	atomic_int ready;
	atomic_long wakes;	/* epoll_wait returns with the fd readable */
	atomic_long recs;
	struct twheel_event *ev;	/* recs of them, in order */
	long cap;
};

static void *waiter_fn(void *arg)
{
	struct waiter *w = arg;
	struct epoll_event e = { .events = EPOLLIN, .data.fd = w->fd };
	struct twheel_event buf[64];
	int ep = epoll_create1(0);
	ssize_t n;
	long i, r;

	w->tid = (pid_t)syscall(SYS_gettid);
	if (ep < 0 || epoll_ctl(ep, EPOLL_CTL_ADD, w->fd, &e))
		return (void *)1;
	e.data.fd = w->stop_fd;
	if (epoll_ctl(ep, EPOLL_CTL_ADD, w->stop_fd, &e))
		return (void *)1;
	atomic_store(&w->ready, 1);
	for (;;) {
		/* It only waits: nothing but the fds can wake it. */
		if (epoll_wait(ep, &e, 1, -1) != 1)
			continue;
		if (e.data.fd == w->stop_fd)
			break;
		atomic_fetch_add(&w->wakes, 1);
		n = read(w->fd, buf, sizeof(buf));
		for (i = 0; n > 0 && i < n / TWT_EV_SIZE; i++) {
			r = atomic_load(&w->recs);
			if (r < w->cap)
				w->ev[r] = buf[i];
			atomic_store(&w->recs, r + 1);
		}
	}
	close(ep);
	return NULL;
}

static long voluntary_switches(pid_t tid)
{
	char path[64], line[128];
	long v = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/task/%d/status", tid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "voluntary_ctxt_switches: %ld", &v) == 1)
			break;
	fclose(f);
	return v;
}

static void start_waiter(struct waiter *w, pthread_t *th)
{
	w->stop_fd = eventfd(0, 0);
	CHECK(w->stop_fd >= 0);
	CHECK(pthread_create(th, NULL, waiter_fn, w) == 0);
	while (!atomic_load(&w->ready))
		twt_sleep_ms(1);
	/* Let it block in epoll_wait. */
	twt_sleep_ms(50);
}

static void stop_waiter(struct waiter *w, pthread_t th)
{
	uint64_t one = 1;

	CHECK(write(w->stop_fd, &one, sizeof(one)) == sizeof(one));
	CHECK(pthread_join(th, NULL) == 0);
	close(w->stop_fd);
}

/* Sleep until the clock's ms count is @from to @from + 200 of 4096. */
static void align_to_level_range(int64_t from)
{
	while (((twt_mono() / TWT_MS - from) % 4096 + 4096) % 4096 > 200)
		twt_sleep_ms(50);
}

/* One round: every timer's entry to @tick + its timeout. */
static void push_all(volatile uint64_t *tab, const uint64_t *id,
		     int64_t *last, int64_t tick)
{
	long i;

	for (i = 0; i < NT; i++) {
		last[i] = tick + TIMEOUT_MS + i % TIMEOUT_MS;
		tab[(uint32_t)id[i] - 1] = TWHEEL_TABLE_DEADLINE(id[i], last[i]);
	}
}

/*
 * A round's pushes just ended; @prev is when the round before began. A
 * timer's push may have come after the deadline the round before gave it
 * (its timeout, at least TIMEOUT_MS after @prev), with a margin.
 */
static int late(int64_t prev)
{
	return twt_mono() - prev > (TIMEOUT_MS - 20) * TWT_MS;
}

static void pushed_no_wakeups(void)
{
	static int64_t last[NT];	/* last stored deadline tick */
	static uint64_t id[NT];
	static struct twheel_event ev[4 * NT];
	struct waiter w = { .ev = ev, .cap = 4 * NT };
	int64_t now, prev, base, late_at = -1, start_ms, end_ms;
	long before, after, i, r;
	struct twheel_info info;
	volatile uint64_t *tab;
	int fd = twt_open(O_NONBLOCK);
	pthread_t th;
	int *seen;

	twt_config(fd, TWT_MS, TWHEEL_CONFIG_TABLE);
	info = twt_info(fd);
	tab = mmap(NULL, info.table_size, PROT_READ | PROT_WRITE, MAP_SHARED,
		   fd, 0);
	CHECK(tab != MAP_FAILED);
	/*
	 * The window (from about 1.2 s after this, for 2.5 s) then holds the
	 * point, 400 ms before the range ends, where the pushed deadlines
	 * start to cross into the next one.
	 */
	align_to_level_range(1300);
	/*
	 * The first deadlines leave the adds (slow on an emulated debug
	 * kernel) a second; the pushes then keep every one 150 to 400 ms
	 * ahead.
	 */
	base = twt_mono();
	for (i = 0; i < NT; i++) {
		id[i] = twt_add_abs(fd, i, base + TWT_S +
				    (i % TIMEOUT_MS) * TWT_MS, CLOCK_MONOTONIC);
		last[i] = (int64_t)(tab[(uint32_t)id[i] - 1] & 0xffffffffULL);
	}
	w.fd = fd;
	start_waiter(&w, &th);
	if (twt_mono() - base > TWT_S - 20 * TWT_MS)
		late_at = 0;
	/*
	 * Warm-up, unmeasured: the first deadlines come due and cascade
	 * into wheel levels the adds did not need, which the woken task
	 * allocates (the callback never allocates).
	 */
	prev = twt_mono();
	while (twt_mono() < base + TWT_S + 150 * TWT_MS) {
		now = twt_mono();
		push_all(tab, id, last, now / TWT_MS);
		if (late(prev))
			late_at = 0;
		prev = now;
		twt_sleep_ms(PUSH_MS);
	}
	start_ms = twt_mono() / TWT_MS;
	before = voluntary_switches(w.tid);
	CHECK(before >= 0);
	atomic_store(&w.wakes, 0);
	for (r = 0; r < ROUNDS; r++) {
		now = twt_mono();
		push_all(tab, id, last, now / TWT_MS);
		if (late_at < 0 && late(prev))
			late_at = r;
		prev = now;
		twt_sleep_ms(PUSH_MS);
	}
	after = voluntary_switches(w.tid);
	end_ms = twt_mono() / TWT_MS;
	info = twt_info(fd);
	printf("# table fd: %ld wake-ups of the waiting thread over %d pushes in %lld ms (%lld to %lld of a 4096 ms range), %ld epoll returns with records (late pushes), %llu timers pending, late from round %lld\n",
	       after - before, ROUNDS, (long long)(end_ms - start_ms),
	       (long long)(start_ms % 4096),
	       (long long)(start_ms % 4096 + end_ms - start_ms),
	       atomic_load(&w.wakes), (unsigned long long)info.timers,
	       (long long)late_at);
	/*
	 * Every wake-up of the waiter brought records, but one for a wheel
	 * level to allocate, when a deadline crossed into the next 4096-tick
	 * range (the window is placed to hold that moment, but a machine
	 * slow enough may push it past): one for level 2, which the pushed
	 * deadlines need, and none for level 0, which only their old ones
	 * would (KUnit twheel_irq_level_wanted_once).
	 */
	CHECK(after - before <= atomic_load(&w.wakes) +
	      (start_ms / 4096 != (end_ms + 2 * TIMEOUT_MS) / 4096));
	CHECK_EQ((long long)info.timers + atomic_load(&w.recs), (long long)NT);
	/* Records came only from late pushes. */
	if (late_at < 0)
		CHECK_EQ(atomic_load(&w.recs), 0);
	if (late_at < 0)
		CHECK_EQ(atomic_load(&w.wakes), 0);

	/* The pushes stop: each expires once, not before its last deadline. */
	twt_sleep_ms(2 * TIMEOUT_MS + 300);
	for (i = 0; i < 20 && atomic_load(&w.recs) < NT; i++)
		twt_sleep_ms(100);
	stop_waiter(&w, th);
	CHECK_EQ(atomic_load(&w.recs), (long)NT);
	seen = calloc(NT, sizeof(*seen));
	CHECK(seen);
	for (r = 0; r < NT; r++) {
		i = (long)ev[r].cookie;
		CHECK(i >= 0 && i < NT);
		CHECK_EQ(seen[i], 0);
		seen[i] = 1;
		CHECK_EQ(ev[r].id, id[i]);
		/* A late push's record may predate the deadline stored after. */
		if (ev[r].time_ns < last[i] * TWT_MS)
			CHECK(late_at >= 0);
	}
	CHECK_EQ(twt_info(fd).timers, 0);
	free(seen);
	close(fd);
}

static void cancelled_no_wakeups(void)
{
	static uint64_t id[NT];
	struct waiter w = { 0 };
	int64_t base, added;
	long before, after, i;
	struct twheel_info info;
	volatile uint64_t *tab;
	int fd = twt_open(O_NONBLOCK);
	pthread_t th;

	twt_config(fd, TWT_MS, TWHEEL_CONFIG_TABLE);
	info = twt_info(fd);
	tab = mmap(NULL, info.table_size, PROT_READ | PROT_WRITE, MAP_SHARED,
		   fd, 0);
	CHECK(tab != MAP_FAILED);
	w.fd = fd;
	start_waiter(&w, &th);
	align_to_level_range(0);
	before = voluntary_switches(w.tid);
	CHECK(before >= 0);
	base = twt_mono();
	for (i = 0; i < NT; i++) {
		id[i] = twt_add_abs(fd, i, base + (2 * TIMEOUT_MS +
				    i % TIMEOUT_MS) * TWT_MS, CLOCK_MONOTONIC);
		tab[(uint32_t)id[i] - 1] = TWHEEL_TABLE_CANCELLED(id[i]);
	}
	added = twt_mono() - base;
	/* Past every deadline, with nobody using the fd. */
	twt_sleep_ms(3 * TIMEOUT_MS + 100);
	after = voluntary_switches(w.tid);
	info = twt_info(fd);
	printf("# cancelled: %ld wake-ups of the waiting thread over %d timers cancelled by stores (adds took %lld ms); then INFO: cancelled %llu, timers %llu\n",
	       after - before, NT, (long long)(added / TWT_MS),
	       (unsigned long long)info.cancelled,
	       (unsigned long long)info.timers);
	/* Every cancel stored before its timer's deadline: none expires. */
	if (added < 2 * TIMEOUT_MS * TWT_MS) {
		CHECK(after - before <= 2);
		CHECK_EQ(atomic_load(&w.recs), 0);
		CHECK_EQ(info.cancelled, NT);
	}
	CHECK_EQ((long long)info.cancelled + atomic_load(&w.recs), NT);
	CHECK_EQ(info.timers, 0);
	for (i = 0; i < NT; i++)
		CHECK_EQ(tab[(uint32_t)id[i] - 1], 0);
	stop_waiter(&w, th);
	close(fd);
}

static void plain_fd_modify_no_wakeups(void)
{
	static uint64_t id[100];
	struct waiter w = { 0 };
	int fd = twt_open(O_NONBLOCK);
	long before, after, i, r;
	pthread_t th;

	twt_config(fd, TWT_MS, 0);
	for (i = 0; i < 100; i++)
		id[i] = twt_add_rel(fd, i, TIMEOUT_MS * TWT_MS);
	w.fd = fd;
	start_waiter(&w, &th);
	before = voluntary_switches(w.tid);
	for (r = 0; r < 20; r++) {
		for (i = 0; i < 100; i++)
			twt_modify(fd, id[i], TIMEOUT_MS * TWT_MS, 0, 0);
		twt_sleep_ms(PUSH_MS);
	}
	twt_sleep_ms(TIMEOUT_MS / 2);
	after = voluntary_switches(w.tid);
	printf("# plain fd: %ld wake-ups of the waiting thread over 20 rounds of MODIFY\n",
	       after - before);
	CHECK(after - before <= 2);
	CHECK_EQ(atomic_load(&w.recs), 0);
	stop_waiter(&w, th);
	close(fd);
}

#define UA_TICK		(100 * TWT_US)
#define UA_LEVEL2	4096	/* ticks: a level-2 slot's span */

static void cascade_unattended(void)
{
	static const clockid_t clocks[] = {
		CLOCK_MONOTONIC, CLOCK_BOOTTIME, CLOCK_REALTIME, CLOCK_TAI,
		CLOCK_REALTIME_ALARM, CLOCK_BOOTTIME_ALARM,
	};
	struct twheel_event ev[2];
	int64_t now, c, d;
	unsigned int k, n;
	uint64_t id, idh;
	long long next;
	char key[64];
	clockid_t rc;
	int fd;

	fd = twt_open(O_NONBLOCK);
	n = twt_has_alarm(fd) ? 6 : 4;
	close(fd);
	for (k = 0; k < n; k++) {
		fd = twt_open(O_NONBLOCK);
		twt_config(fd, UA_TICK, 0);
		/* The alarm clocks read as CLOCK_REALTIME and CLOCK_BOOTTIME. */
		rc = k == 4 ? CLOCK_REALTIME : k == 5 ? CLOCK_BOOTTIME :
			      clocks[k];
		/* Until the next level-2 boundary c is 200 to 300 ms away. */
		for (;;) {
			now = twt_now(rc) / UA_TICK;
			c = (now / UA_LEVEL2 + 1) * UA_LEVEL2;
			if (c - now >= 2000 && c - now <= 3000)
				break;
			twt_sleep_ms(10);
		}
		/*
		 * d is at level 2 until c, where it cascades to level 1. A
		 * timer 100 ms ahead, before c, is at level 1: the wheel then
		 * has that level on every clock (an alarm clock's would have
		 * it anyway), and keeps it below d's.
		 */
		d = (c + 4000) * UA_TICK;
		idh = twt_add_abs(fd, 2, (now + 1000) * UA_TICK, clocks[k]);
		id = twt_add_abs(fd, 1, d, clocks[k]);
		twt_read_n(fd, ev, 1, 10000);
		CHECK_EQ(ev[0].id, idh);
		/* Past the cascade, with nobody using the fd. */
		twt_sleep_ns(c * UA_TICK + 20 * TWT_MS - twt_now(rc));
		snprintf(key, sizeof(key), "next_expiry_%s_ns",
			 twt_clockname(clocks[k]));
		CHECK_OK(twt_fdinfo(fd, key, &next));
		printf("# %s: next event %+.1f ms from the cascade\n",
		       twt_clockname(clocks[k]), (next - c * UA_TICK) / 1e6);
		/* Not the cascade itself: the callback did it. */
		CHECK(next > c * UA_TICK);
		CHECK(next <= d);
		twt_read_n(fd, ev, 1, 10000);
		CHECK_EQ(ev[0].id, id);
		CHECK_EQ(ev[0].clock, clocks[k]);
		CHECK(ev[0].time_ns >= d);
		CHECK_EQ(ev[0].count, 1);
		CHECK_NONE_QUEUED(fd);
		CHECK_EQ(twt_timers(fd), 0);
		close(fd);
	}
}

TWT_MAIN("irqpush", TWT_CASE_T(pushed_no_wakeups, 120),
	 TWT_CASE_T(cancelled_no_wakeups, 60),
	 TWT_CASE_T(plain_fd_modify_no_wakeups, 60),
	 TWT_CASE_T(cascade_unattended, 60))
