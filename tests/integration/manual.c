// SPDX-License-Identifier: GPL-2.0
/*
 * manual: the manual clock of TWHEEL_CONFIG_MANUAL. It starts at 0 and
 * moves only by TWHEEL_IOC_ADVANCE; an advance queues every timer due by
 * the new time before it returns (deadline tick order, equal ticks in add
 * order), with the new time as the records' time_ns; all four clocks run
 * on it, with relative and absolute deadlines; poll and epoll see the
 * records at once. Ends with a 30-minute order-expiry rule simulated over
 * hours of manual time in a fraction of a second of real time.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <sys/epoll.h>

#include "twtest.h"

#define RD		(POLLIN | POLLRDNORM)
#define TICK		((int64_t)TWHEEL_DEFAULT_TICK_NS)

/* The deadline tick of a deadline (ns >= 0): rounded up to the tick. */
static int64_t manual_dtick(int64_t ns, int64_t tick)
{
	return (ns + tick - 1) / tick * tick;
}

static int manual_advance_flags(int fd, uint64_t delta, uint32_t flags,
				uint32_t reserved, int64_t *now)
{
	struct twheel_advance a;
	int ret;

	memset(&a, 0, sizeof(a));
	a.delta_ns = delta;
	a.flags = flags;
	a.__reserved = reserved;
	a.now_ns = 12345;	/* out only: ignored */
	ret = ioctl(fd, TWHEEL_IOC_ADVANCE, &a);
	if (now)
		*now = a.now_ns;
	return ret;
}

/* ---- the clock itself ---- */

static void starts_at_zero(void)
{
	int fd = twt_open_manual(O_NONBLOCK, TWHEEL_DEFAULT_TICK_NS);
	struct twheel_info info = twt_info(fd);

	CHECK(info.features & TWHEEL_FEATURE_MANUAL_CLOCK);
	CHECK(info.ioctls & (1ULL << _IOC_NR(TWHEEL_IOC_ADVANCE)));
	CHECK(info.ioctls & (1ULL << _IOC_NR(TWHEEL_IOC_CONFIG)));
	CHECK_EQ(info.config_flags, TWHEEL_CONFIG_MANUAL);
	CHECK_EQ(info.tick_ns, TWHEEL_DEFAULT_TICK_NS);
	CHECK_EQ(twt_advance(fd, 0), 0);
	/* Real time passing does not move it. */
	twt_sleep_ms(20);
	CHECK_EQ(twt_advance(fd, 0), 0);
	CHECK_EQ(twt_advance(fd, 5), 5);
	CHECK_EQ(twt_advance(fd, 0), 5);
	CHECK_EQ(twt_advance(fd, TWT_S), TWT_S + 5);
	CHECK_EQ(twt_advance(fd, 0), TWT_S + 5);
	close(fd);
}

static void advance_errors(void)
{
	int fd = twt_open(O_NONBLOCK);
	int mfd = twt_open_manual(O_NONBLOCK, TWHEEL_DEFAULT_TICK_NS);
	int64_t now;

	/* Not a manual fd: EINVAL, whatever the delta. */
	CHECK_EQ(twt_info(fd).config_flags, 0);
	CHECK_ERR(twt_advance_raw(fd, 0, &now), EINVAL);
	CHECK_ERR(twt_advance_raw(fd, TWT_S, &now), EINVAL);
	/* Configured, but not manual. */
	twt_config(fd, 2 * TWHEEL_DEFAULT_TICK_NS, 0);
	CHECK_ERR(twt_advance_raw(fd, 1, &now), EINVAL);
	/* A manual fd: bad flags or reserved bits, and the clock stays. */
	CHECK_EQ(twt_advance(mfd, 7), 7);
	CHECK_ERR(manual_advance_flags(mfd, 1, 1, 0, NULL), EINVAL);
	CHECK_ERR(manual_advance_flags(mfd, 1, 0x80000000U, 0, NULL), EINVAL);
	CHECK_ERR(manual_advance_flags(mfd, 1, 0, 1, NULL), EINVAL);
	CHECK_EQ(twt_advance(mfd, 0), 7);
	/* now_ns is output only. */
	CHECK_OK(manual_advance_flags(mfd, 3, 0, 0, &now));
	CHECK_EQ(now, 10);
	close(mfd);
	close(fd);
}

static void saturates(void)
{
	int fd = twt_open_manual(O_NONBLOCK, TWHEEL_DEFAULT_TICK_NS);
	int fd2 = twt_open_manual(O_NONBLOCK, TWHEEL_DEFAULT_TICK_NS);
	struct twheel_event ev[2];
	uint64_t id;

	id = twt_add_abs(fd, 42, 4000000000000000000LL, CLOCK_MONOTONIC);
	CHECK_EQ(twt_advance(fd, 5 * TWT_S), 5 * TWT_S);
	CHECK_EQ(twt_advance(fd, INT64_MAX - 10 - 5 * TWT_S), INT64_MAX - 10);
	CHECK_EQ(twt_drain(fd, ev, 2), 1);
	CHECK_EQ(ev[0].id, id);
	CHECK_EQ(ev[0].time_ns, INT64_MAX - 10);
	CHECK_EQ(twt_advance(fd, 100), INT64_MAX);
	CHECK_EQ(twt_advance(fd, 1), INT64_MAX);
	CHECK_EQ(twt_advance(fd, UINT64_MAX), INT64_MAX);
	CHECK_EQ(twt_advance(fd, 0), INT64_MAX);
	/* One step from 0 past the end. */
	CHECK_EQ(twt_advance(fd2, (uint64_t)INT64_MAX + 1), INT64_MAX);
	CHECK_EQ(twt_advance(fd2, 0), INT64_MAX);
	CHECK_EQ(twt_advance(fd2, UINT64_MAX), INT64_MAX);
	close(fd2);
	close(fd);
}

/* A timer due at 1 ms waits for the manual clock, not the real one. */
static void nothing_moves_without_advance(void)
{
	int fd = twt_open_manual(O_NONBLOCK, TWHEEL_DEFAULT_TICK_NS);
	struct twheel_status st;
	struct twheel_event ev[2];
	uint64_t id = twt_add(fd, 9, 1, 0, CLOCK_MONOTONIC);

	twt_sleep_ms(30);
	CHECK_NONE_QUEUED(fd);
	st = twt_query(fd, id);
	CHECK_EQ(st.state, TWHEEL_STATE_PENDING);
	CHECK_EQ(st.deadline_ns, TICK);
	CHECK_EQ(st.remaining_ns, TICK);
	/* Its deadline (1 ns) has passed, its deadline tick has not. */
	CHECK_EQ(twt_advance(fd, TICK - 1), TICK - 1);
	CHECK_NONE_QUEUED(fd);
	CHECK_EQ(twt_query(fd, id).remaining_ns, 1);
	CHECK_EQ(twt_advance(fd, 1), TICK);
	CHECK_EQ(twt_queued(fd), 1);
	CHECK_EQ(twt_drain(fd, ev, 2), 1);
	CHECK_EQ(ev[0].id, id);
	CHECK_EQ(ev[0].cookie, 9);
	CHECK_EQ(ev[0].time_ns, TICK);
	CHECK_EQ(ev[0].count, 1);
	CHECK_EQ(ev[0].clock, CLOCK_MONOTONIC);
	CHECK_EQ(ev[0].flags, 0);
	CHECK_EQ(twt_timers(fd), 0);
	close(fd);
}

/* ---- order and time of the records an advance queues ---- */

struct manual_exp {
	int64_t deadline;
	uint64_t id;
	int idx;
};

static int manual_cmp_exp(const void *a, const void *b)
{
	const struct manual_exp *x = a, *y = b;
	int64_t tx = manual_dtick(x->deadline, TICK);
	int64_t ty = manual_dtick(y->deadline, TICK);

	if (tx != ty)
		return tx < ty ? -1 : 1;
	return x->idx - y->idx;
}

static void advance_queues_in_order(void)
{
	/* Deadlines in us, added in this order; several share a tick. */
	static const int64_t dl_us[] = {
		7000, 3000, 5000, 3000, 10000, 1000, 7000, 3000, 12000,
		5500, 5200, 6000, 11000, 11001, 2999, 2001, 6000, 1,
	};
	enum { N = sizeof(dl_us) / sizeof(dl_us[0]) };
	int fd = twt_open_manual(O_NONBLOCK, TWHEEL_DEFAULT_TICK_NS);
	struct manual_exp e[N];
	struct twheel_event ev[N + 1];
	size_t due = 0, n, i;

	for (i = 0; i < N; i++) {
		e[i].deadline = dl_us[i] * TWT_US;
		e[i].idx = (int)i;
		e[i].id = twt_add(fd, i, e[i].deadline,
				  i % 2 ? TWHEEL_ABSTIME : 0, CLOCK_MONOTONIC);
		if (manual_dtick(e[i].deadline, TICK) <= 11 * TWT_MS)
			due++;
	}
	qsort(e, N, sizeof(e[0]), manual_cmp_exp);
	CHECK_NONE_QUEUED(fd);
	/* One step to 11 ms: all due timers queued before it returns. */
	CHECK_EQ(twt_advance(fd, 11 * TWT_MS), 11 * TWT_MS);
	CHECK_EQ(twt_queued(fd), due);
	CHECK_EQ(twt_poll(fd, 0), RD);
	n = twt_drain(fd, ev, N + 1);
	CHECK_EQ(n, due);
	for (i = 0; i < n; i++) {
		CHECK_EQ(ev[i].id, e[i].id);
		CHECK_EQ(ev[i].cookie, e[i].idx);
		CHECK_EQ(ev[i].time_ns, 11 * TWT_MS);
		CHECK_EQ(ev[i].count, 1);
	}
	/* The rest (11.001 ms and 12 ms: both in the 12 ms tick). */
	CHECK_EQ(twt_timers(fd), N - due);
	CHECK_EQ(twt_advance(fd, TICK - 1), 12 * TWT_MS - 1);
	CHECK_NONE_QUEUED(fd);
	CHECK_EQ(twt_advance(fd, 1), 12 * TWT_MS);
	n = twt_drain(fd, ev, N + 1);
	CHECK_EQ(n, N - due);
	for (i = 0; i < n; i++) {
		CHECK_EQ(ev[i].id, e[due + i].id);
		CHECK_EQ(ev[i].time_ns, 12 * TWT_MS);
	}
	CHECK_EQ(twt_timers(fd), 0);
	close(fd);
}

/*
 * Thousands due in one advance, more than the module moves per hold of
 * its lock: all queued before ADVANCE returns, in order.
 */
static void many_due_in_one_advance(void)
{
	enum { N = 5000 };
	static struct manual_exp e[N];
	static struct twheel_event ev[N + 1];
	int fd = twt_open_manual(O_NONBLOCK, TWHEEL_DEFAULT_TICK_NS);
	uint64_t seed = 0xB0B;
	size_t n, i;

	twt_advance(fd, 3 * TWT_S);
	for (i = 0; i < N; i++) {
		/* 1..999 ms ahead, many sharing a tick; some absolute. */
		int64_t d = (int64_t)(twt_rand(&seed) % (999 * TWT_MS)) + 1;

		e[i].deadline = 3 * TWT_S + d;
		e[i].idx = (int)i;
		if (i % 2)
			e[i].id = twt_add(fd, i, e[i].deadline, TWHEEL_ABSTIME,
					  CLOCK_BOOTTIME);
		else
			e[i].id = twt_add(fd, i, d, 0, CLOCK_BOOTTIME);
	}
	qsort(e, N, sizeof(e[0]), manual_cmp_exp);
	CHECK_EQ(twt_queued(fd), 0);
	CHECK_EQ(twt_advance(fd, TWT_S), 4 * TWT_S);
	CHECK_EQ(twt_queued(fd), N);
	n = twt_drain(fd, ev, N + 1);
	CHECK_EQ(n, N);
	for (i = 0; i < n; i++) {
		if (ev[i].id != e[i].id)
			twt_fail(__FILE__, __LINE__, "record %zu: cookie %llu, "
				 "want %d", i, (unsigned long long)ev[i].cookie,
				 e[i].idx);
		CHECK_EQ(ev[i].time_ns, 4 * TWT_S);
	}
	CHECK_EQ(twt_timers(fd), 0);
	close(fd);
}

/* Small steps: each record carries the time of the advance that queued it. */
static void time_ns_is_advance_time(void)
{
	int fd = twt_open_manual(O_NONBLOCK, TWHEEL_DEFAULT_TICK_NS);
	struct twheel_event ev[4];
	int64_t now = 0;
	int seen = 0;

	twt_add(fd, 1, TWT_MS, 0, CLOCK_MONOTONIC);		/* tick 1 ms */
	twt_add(fd, 2, 2500 * TWT_US, 0, CLOCK_BOOTTIME);	/* tick 3 ms */
	twt_add(fd, 3, 2 * TWT_MS, TWHEEL_ABSTIME, CLOCK_REALTIME);
	while (now < 4 * TWT_MS) {
		size_t n, i;

		now = twt_advance(fd, 300 * TWT_US);
		n = twt_drain(fd, ev, 4);
		for (i = 0; i < n; i++) {
			int64_t want;

			CHECK_EQ(ev[i].time_ns, now);
			/* The first advance to reach the deadline tick. */
			want = ev[i].cookie == 1 ? 1200 : ev[i].cookie == 2 ?
			       3000 : 2100;
			CHECK_EQ(ev[i].time_ns, want * TWT_US);
			seen++;
		}
	}
	CHECK_EQ(seen, 3);
	close(fd);
}

/*
 * Every clock runs on the manual one: relative deadlines from its time,
 * absolute ones on it, whatever the clock; records carry the clock given.
 */
static void all_clocks_one_manual_clock(void)
{
	int fd = twt_open_manual(O_NONBLOCK, TWHEEL_DEFAULT_TICK_NS);
	struct twheel_event ev[2];
	uint64_t id[2 * TWT_NCLOCKS];
	int64_t now, base = 5 * TWT_S;
	unsigned int k;
	int seen = 0;

	CHECK_EQ(twt_advance(fd, base), base);
	for (k = 0; k < TWT_NCLOCKS; k++) {
		clockid_t c = twt_clock(k);
		int64_t rel = (k + 1) * 100 * TWT_MS;
		struct twheel_status st;

		/* Relative: at base + (k+1)*100 ms. */
		id[2 * k] = twt_add(fd, 2 * k, rel, 0, c);
		/* Absolute: 50 ms after that. */
		id[2 * k + 1] = twt_add(fd, 2 * k + 1, base + rel + 50 * TWT_MS,
					TWHEEL_ABSTIME, c);
		st = twt_query(fd, id[2 * k]);
		CHECK_EQ(st.clock, c);
		CHECK_EQ(st.deadline_ns, base + rel);
		CHECK_EQ(st.remaining_ns, rel);
		st = twt_query(fd, id[2 * k + 1]);
		CHECK_EQ(st.clock, c);
		CHECK_EQ(st.deadline_ns, base + rel + 50 * TWT_MS);
		CHECK_EQ(st.remaining_ns, rel + 50 * TWT_MS);
	}
	/* Step 50 ms at a time: exactly one record per step, in order. */
	for (now = base; now < base + 450 * TWT_MS;) {
		size_t n;

		now = twt_advance(fd, 50 * TWT_MS);
		n = twt_drain(fd, ev, 2);
		if (now == base + 50 * TWT_MS) {
			CHECK_EQ(n, 0);
			continue;
		}
		CHECK_EQ(n, 1);
		CHECK_EQ(ev[0].cookie, seen);
		CHECK_EQ(ev[0].id, id[seen]);
		CHECK_EQ(ev[0].clock, twt_clock(seen / 2));
		CHECK_EQ(ev[0].time_ns, now);
		seen++;
	}
	CHECK_EQ(seen, 2 * TWT_NCLOCKS);
	CHECK_EQ(twt_timers(fd), 0);
	close(fd);
}

/* Many timers on each clock fall due in one advance: per clock in order. */
static void all_clocks_one_advance(void)
{
	enum { N = 400 };
	int fd = twt_open_manual(O_NONBLOCK, TWHEEL_DEFAULT_TICK_NS);
	static struct twheel_event ev[N + 1];
	int64_t dl[N], last_tick[TWT_NCLOCKS];
	int last_idx[TWT_NCLOCKS];
	uint64_t seed = 0xC10C;
	size_t n, i;
	unsigned int k;

	for (i = 0; i < N; i++) {
		dl[i] = 1 + (int64_t)(twt_rand(&seed) % (20 * TWT_MS - 1));
		twt_add(fd, i, dl[i], i % 3 ? TWHEEL_ABSTIME : 0,
			twt_clock(i % TWT_NCLOCKS));
	}
	CHECK_EQ(twt_advance(fd, 20 * TWT_MS), 20 * TWT_MS);
	CHECK_EQ(twt_queued(fd), N);
	n = twt_drain(fd, ev, N + 1);
	CHECK_EQ(n, N);
	for (k = 0; k < TWT_NCLOCKS; k++) {
		last_tick[k] = -1;
		last_idx[k] = -1;
	}
	for (i = 0; i < n; i++) {
		int c = (int)ev[i].cookie;
		int64_t t;

		CHECK(ev[i].cookie < N);
		k = c % TWT_NCLOCKS;
		CHECK_EQ(ev[i].clock, twt_clock(k));
		CHECK_EQ(ev[i].time_ns, 20 * TWT_MS);
		t = manual_dtick(dl[c], TICK);
		CHECK(t > last_tick[k] || (t == last_tick[k] && c > last_idx[k]));
		last_tick[k] = t;
		last_idx[k] = c;
	}
	close(fd);
}

/* ---- adds behind the present ---- */

static void add_past_due_at_once(void)
{
	int fd = twt_open_manual(O_NONBLOCK, TWHEEL_DEFAULT_TICK_NS);
	struct twheel_event ev[4];
	uint64_t a, b, c;

	CHECK_EQ(twt_advance(fd, 10 * TWT_MS + 300 * TWT_US), 10300 * TWT_US);
	a = twt_add(fd, 1, 5 * TWT_MS, TWHEEL_ABSTIME, CLOCK_MONOTONIC);
	CHECK_EQ(twt_queued(fd), 1);
	CHECK_EQ(twt_poll(fd, 0), RD);
	b = twt_add(fd, 2, 0, 0, CLOCK_TAI);
	c = twt_add(fd, 3, -TWT_S, TWHEEL_ABSTIME, CLOCK_BOOTTIME);
	CHECK_EQ(twt_queued(fd), 3);
	CHECK_EQ(twt_drain(fd, ev, 4), 3);
	CHECK_EQ(ev[0].id, a);
	CHECK_EQ(ev[1].id, b);
	CHECK_EQ(ev[2].id, c);
	CHECK_EQ(ev[0].time_ns, 10300 * TWT_US);
	CHECK_EQ(ev[1].time_ns, 10300 * TWT_US);
	CHECK_EQ(ev[2].time_ns, 10300 * TWT_US);
	CHECK_EQ(ev[2].clock, CLOCK_BOOTTIME);
	close(fd);
}

/*
 * The rule for a deadline that has passed inside the current tick: due
 * at once, unless an earlier-added timer of that tick is still pending;
 * then right behind it at the end of the tick.
 */
static void add_inside_current_tick(void)
{
	int fd = twt_open_manual(O_NONBLOCK, TWHEEL_DEFAULT_TICK_NS);
	struct twheel_event ev[4];
	uint64_t a, b, c, d;

	CHECK_EQ(twt_advance(fd, 10500 * TWT_US), 10500 * TWT_US);
	/* Alone in its tick: queued at once. */
	a = twt_add(fd, 1, 10200 * TWT_US, TWHEEL_ABSTIME, CLOCK_MONOTONIC);
	CHECK_EQ(twt_queued(fd), 1);
	CHECK_EQ(twt_drain(fd, ev, 4), 1);
	CHECK_EQ(ev[0].id, a);
	CHECK_EQ(ev[0].time_ns, 10500 * TWT_US);
	/* A pending timer of the 11 ms tick, then one already passed. */
	b = twt_add(fd, 2, 10800 * TWT_US, TWHEEL_ABSTIME, CLOCK_MONOTONIC);
	c = twt_add(fd, 3, 10100 * TWT_US, TWHEEL_ABSTIME, CLOCK_MONOTONIC);
	CHECK_NONE_QUEUED(fd);
	CHECK_EQ(twt_query(fd, c).state, TWHEEL_STATE_PENDING);
	/* A deadline tick already reached (10 ms): queued at once anyway. */
	d = twt_add(fd, 4, 10 * TWT_MS, TWHEEL_ABSTIME, CLOCK_MONOTONIC);
	CHECK_EQ(twt_queued(fd), 1);
	CHECK_EQ(twt_drain(fd, ev, 4), 1);
	CHECK_EQ(ev[0].id, d);
	CHECK_EQ(twt_advance(fd, 499 * TWT_US), 10999 * TWT_US);
	CHECK_NONE_QUEUED(fd);
	CHECK_EQ(twt_advance(fd, TWT_US), 11 * TWT_MS);
	CHECK_EQ(twt_drain(fd, ev, 4), 2);
	CHECK_EQ(ev[0].id, b);
	CHECK_EQ(ev[1].id, c);
	CHECK_EQ(ev[1].time_ns, 11 * TWT_MS);
	close(fd);
}

/* ---- readiness ---- */

static void poll_after_advance(void)
{
	int fd = twt_open_manual(O_NONBLOCK, TWHEEL_DEFAULT_TICK_NS);
	struct twheel_event ev[2];

	twt_add(fd, 1, 3 * TWT_MS, 0, CLOCK_MONOTONIC);
	CHECK_EQ(twt_poll(fd, 0), 0);
	/* An advance that queues nothing leaves it unreadable. */
	twt_advance(fd, 2 * TWT_MS);
	CHECK_EQ(twt_poll(fd, 0), 0);
	twt_advance(fd, TWT_MS);
	CHECK_EQ(twt_poll(fd, 0), RD);
	CHECK_EQ(twt_drain(fd, ev, 2), 1);
	CHECK_EQ(twt_poll(fd, 0), 0);
	close(fd);
}

struct manual_waiter {
	int ep;
	int fd;
	atomic_int done;
	int nev;
	uint32_t events;
	int err;
	ssize_t rd;
	struct twheel_event ev;
};

static void *manual_epoll_thread(void *arg)
{
	struct manual_waiter *w = arg;
	struct epoll_event e;

	do {
		w->nev = epoll_wait(w->ep, &e, 1, 20000);
	} while (w->nev < 0 && errno == EINTR);
	w->err = errno;
	w->events = w->nev > 0 ? e.events : 0;
	atomic_store(&w->done, 1);
	return NULL;
}

static void *manual_read_thread(void *arg)
{
	struct manual_waiter *w = arg;

	do {
		w->rd = read(w->fd, &w->ev, sizeof(w->ev));
	} while (w->rd < 0 && errno == EINTR);
	w->err = errno;
	atomic_store(&w->done, 1);
	return NULL;
}

/* A thread blocked in epoll_wait wakes when an advance queues a record. */
static void epoll_wakes_waiter(void)
{
	int fd = twt_open_manual(O_NONBLOCK, TWHEEL_DEFAULT_TICK_NS);
	struct manual_waiter w = { .done = 0 };
	struct epoll_event e = { .events = EPOLLIN };
	struct twheel_event ev[2];
	pthread_t t;
	uint64_t id;

	w.ep = epoll_create1(0);
	CHECK(w.ep >= 0);
	CHECK_OK(epoll_ctl(w.ep, EPOLL_CTL_ADD, fd, &e));
	id = twt_add(fd, 5, 10 * TWT_MS, 0, CLOCK_MONOTONIC);
	CHECK_OK(pthread_create(&t, NULL, manual_epoll_thread, &w));
	twt_sleep_ms(200);
	CHECK_EQ(atomic_load(&w.done), 0);	/* blocked, not woken */
	twt_advance(fd, 5 * TWT_MS);		/* not due yet */
	twt_sleep_ms(100);
	CHECK_EQ(atomic_load(&w.done), 0);
	twt_advance(fd, 5 * TWT_MS);
	CHECK_OK(pthread_join(t, NULL));
	CHECK_EQ(w.nev, 1);
	CHECK(w.events & EPOLLIN);
	CHECK_EQ(twt_drain(fd, ev, 2), 1);
	CHECK_EQ(ev[0].id, id);
	close(w.ep);
	close(fd);
}

/* A blocking read in another thread returns when an advance queues. */
static void blocked_read_wakes(void)
{
	int fd = twt_open_manual(0, TWHEEL_DEFAULT_TICK_NS);
	struct manual_waiter w = { .done = 0 };
	pthread_t t;
	uint64_t id;

	w.fd = fd;
	id = twt_add(fd, 6, TWT_S, 0, CLOCK_REALTIME);
	CHECK_OK(pthread_create(&t, NULL, manual_read_thread, &w));
	twt_sleep_ms(200);
	CHECK_EQ(atomic_load(&w.done), 0);
	twt_advance(fd, TWT_S);
	CHECK_OK(pthread_join(t, NULL));
	CHECK_EQ(w.rd, sizeof(w.ev));
	CHECK_EQ(w.ev.id, id);
	CHECK_EQ(w.ev.time_ns, TWT_S);
	CHECK_EQ(w.ev.clock, CLOCK_REALTIME);
	close(fd);
}

/* ---- a 30-minute order-expiry rule ---- */

#define ORDERS		4000
#define ORDER_TTL	(30 * 60 * TWT_S)

enum { O_NONE, O_LIVE, O_EXPIRED, O_FILLED };

struct manual_order {
	uint64_t id;
	int64_t deadline;
	uint64_t seq;		/* when it was last (re)armed */
	int state;
};

static struct manual_order orders[ORDERS];

static int manual_cmp_order(const void *a, const void *b)
{
	const struct manual_order *x = &orders[*(const int *)a];
	const struct manual_order *y = &orders[*(const int *)b];
	int64_t tx = manual_dtick(x->deadline, TICK);
	int64_t ty = manual_dtick(y->deadline, TICK);

	if (tx != ty)
		return tx < ty ? -1 : 1;
	return x->seq < y->seq ? -1 : 1;
}

/*
 * An order expires 30 minutes after it was placed or last refreshed,
 * unless it is filled first. Hours of orders, refreshes and fills on the
 * manual clock; after every advance exactly the orders the rule says are
 * read, in deadline order (equal deadlines in the order they were armed).
 */
static void order_expiry_30min(void)
{
	int fd = twt_open_manual(O_NONBLOCK, TWHEEL_DEFAULT_TICK_NS);
	static struct twheel_event ev[ORDERS + 1];
	static int want[ORDERS];
	uint64_t seed = 0x0DE5, seq = 0;
	int64_t now = 0, t0 = twt_mono();
	int placed = 0, live = 0, expired = 0, filled = 0, refreshed = 0;
	int enoent = 0, steps = 0;
	int final = 0;

	while (!final) {
		size_t n, nw = 0, i;
		int ops, j;

		/* Advance 0..90 s; past 4 hours, one last hour for the rest. */
		if (now >= 4 * 3600 * TWT_S) {
			final = 1;
			now = twt_advance(fd, 3600 * TWT_S);
		} else {
			now = twt_advance(fd, twt_rand(&seed) % (90 * TWT_S));
		}
		steps++;
		for (i = 0; i < (size_t)placed; i++)
			if (orders[i].state == O_LIVE &&
			    manual_dtick(orders[i].deadline, TICK) <= now)
				want[nw++] = (int)i;
		qsort(want, nw, sizeof(want[0]), manual_cmp_order);
		CHECK_EQ(twt_queued(fd), nw);
		n = twt_drain(fd, ev, ORDERS + 1);
		CHECK_EQ(n, nw);
		for (i = 0; i < n; i++) {
			struct manual_order *o = &orders[want[i]];

			if (ev[i].cookie != (uint64_t)want[i])
				twt_fail(__FILE__, __LINE__,
					 "record %zu of %zu at %" PRId64
					 ": order %" PRIu64 ", want %d", i, n,
					 now, (uint64_t)ev[i].cookie, want[i]);
			CHECK_EQ(ev[i].id, o->id);
			CHECK_EQ(ev[i].time_ns, now);
			CHECK_EQ(ev[i].clock, CLOCK_REALTIME);
			CHECK_EQ(ev[i].count, 1);
			o->state = O_EXPIRED;
			live--;
			expired++;
		}
		CHECK_EQ(twt_timers(fd), live);
		if (final)
			break;
		ops = (int)(twt_rand(&seed) % 40);
		for (j = 0; j < ops; j++) {
			unsigned int r = twt_rand(&seed) % 10;
			struct manual_order *o;
			uint32_t res;

			if (r < 5 || placed == 0) {
				if (placed == ORDERS)
					continue;
				o = &orders[placed];
				o->id = twt_add(fd, placed, ORDER_TTL, 0,
						CLOCK_REALTIME);
				o->deadline = now + ORDER_TTL;
				o->seq = seq++;
				o->state = O_LIVE;
				placed++;
				live++;
				continue;
			}
			o = &orders[twt_rand(&seed) % placed];
			if (r < 8) {
				/* Refresh: the clock starts again. */
				if (o->state != O_LIVE) {
					CHECK_ERR(twt_modify_raw(fd, o->id, 0,
								 ORDER_TTL, 0,
								 0, &res),
						  ENOENT);
					enoent++;
					continue;
				}
				CHECK_EQ(twt_modify(fd, o->id, ORDER_TTL, 0, 0),
					 TWHEEL_STATE_PENDING);
				o->deadline = now + ORDER_TTL;
				o->seq = seq++;
				refreshed++;
			} else {
				/* Filled: no expiry any more. */
				if (o->state != O_LIVE) {
					CHECK_ERR(twt_cancel_raw(fd, o->id, 0,
								 &res), ENOENT);
					enoent++;
					continue;
				}
				CHECK_EQ(twt_cancel(fd, o->id),
					 TWHEEL_STATE_PENDING);
				o->state = O_FILLED;
				live--;
				filled++;
			}
		}
		/* A live order's status, exactly. */
		for (j = 0; j < 3 && placed; j++) {
			struct manual_order *o;
			struct twheel_status st;

			o = &orders[twt_rand(&seed) % placed];

			if (o->state != O_LIVE)
				continue;
			st = twt_query(fd, o->id);
			CHECK_EQ(st.deadline_ns, manual_dtick(o->deadline, TICK));
			CHECK_EQ(st.remaining_ns,
				 manual_dtick(o->deadline, TICK) - now);
			CHECK_EQ(st.state, TWHEEL_STATE_PENDING);
		}
	}
	CHECK_EQ(live, 0);
	CHECK_EQ(twt_timers(fd), 0);
	CHECK_EQ(expired + filled, placed);
	CHECK(expired > 0 && filled > 0 && refreshed > 0);
	printf("# %d orders over %.1f h of manual time in %d steps: "
	       "%d expired, %d filled, %d refreshes, %d late ops (ENOENT); "
	       "%.0f us real time\n",
	       placed, now / 3600e9, steps, expired, filled, refreshed, enoent,
	       (twt_mono() - t0) / 1e3);
	close(fd);
}

TWT_MAIN("manual",
	 TWT_CASE(starts_at_zero),
	 TWT_CASE(advance_errors),
	 TWT_CASE(saturates),
	 TWT_CASE(nothing_moves_without_advance),
	 TWT_CASE(advance_queues_in_order),
	 TWT_CASE(many_due_in_one_advance),
	 TWT_CASE(time_ns_is_advance_time),
	 TWT_CASE(all_clocks_one_manual_clock),
	 TWT_CASE(all_clocks_one_advance),
	 TWT_CASE(add_past_due_at_once),
	 TWT_CASE(add_inside_current_tick),
	 TWT_CASE(poll_after_advance),
	 TWT_CASE(epoll_wakes_waiter),
	 TWT_CASE(blocked_read_wakes),
	 TWT_CASE_T(order_expiry_30min, 120))
