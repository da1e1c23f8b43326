// SPDX-License-Identifier: GPL-2.0
/*
 * query_list: TWHEEL_IOC_QUERY and TWHEEL_IOC_LIST. Every field of struct
 * twheel_status (deadline rounded up to the tick by less than one tick,
 * remaining time, period, count, clock, state, cookie) for pending and
 * queued timers; ENOENT and EINVAL; listings that report each timer
 * exactly once, also across 10 000 timers, under concurrent adds,
 * cancels and modifies, and across an EFAULT retried with the same
 * cursor; and a listing re-created on a new fd with absolute deadlines.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <sys/mman.h>

#include "twtest.h"

#define TICK		((int64_t)TWHEEL_DEFAULT_TICK_NS)
#define STSZ		((uint32_t)sizeof(struct twheel_status))

_Static_assert(sizeof(struct twheel_status) == 56, "twheel_status is 56 bytes");

/* One TWHEEL_IOC_LIST call with every field given; count and cursor out. */
static int query_list_call(int fd, void *buf, uint32_t capacity,
			   uint64_t *cursor, uint32_t status_size,
			   uint32_t flags, uint32_t *count)
{
	struct twheel_list l;
	int ret;

	memset(&l, 0, sizeof(l));
	l.statuses = (uint64_t)(uintptr_t)buf;
	l.capacity = capacity;
	l.cursor = *cursor;
	l.status_size = status_size;
	l.flags = flags;
	l.count = 0xDEAD;	/* out only */
	ret = ioctl(fd, TWHEEL_IOC_LIST, &l);
	if (ret == 0) {
		*cursor = l.cursor;
		if (count)
			*count = l.count;
	}
	return ret;
}

static int query_raw_flags(int fd, uint64_t id, uint32_t flags,
			   uint32_t reserved)
{
	struct twheel_query q;

	memset(&q, 0, sizeof(q));
	q.id = id;
	q.flags = flags;
	q.__reserved = reserved;
	return ioctl(fd, TWHEEL_IOC_QUERY, &q);
}

/*
 * A whole listing with capacity cap into out[] (at most max entries in
 * all); returns the entries. Fails on an error or more than max.
 */
#define query_list_all(fd, out, max, cap)				\
	query_list_all_at(__FILE__, __LINE__, (fd), (out), (max), (cap))
static size_t query_list_all_at(const char *file, int line, int fd,
				struct twheel_status *out, size_t max,
				uint32_t cap)
{
	struct twheel_status *buf = calloc(cap, sizeof(*buf));
	uint64_t cursor = 0;
	size_t n = 0, calls = 0;

	if (!buf)
		twt_fail(file, line, "calloc");
	do {
		uint32_t got = 0;

		if (query_list_call(fd, buf, cap, &cursor, STSZ, 0, &got))
			twt_fail(file, line, "TWHEEL_IOC_LIST: %s",
				 strerror(errno));
		if (got > cap || n + got > max)
			twt_fail(file, line, "listing: %u entries (cap %u), "
				 "%zu before, at most %zu", got, cap, n, max);
		memcpy(out + n, buf, got * sizeof(*buf));
		n += got;
		if (++calls > max + 10)
			twt_fail(file, line, "listing does not end");
	} while (cursor);
	free(buf);
	return n;
}

static int query_list_cmp_id(const void *a, const void *b)
{
	uint64_t x = ((const struct twheel_status *)a)->id;
	uint64_t y = ((const struct twheel_status *)b)->id;

	return (x > y) - (x < y);
}

#define CHECK_STATUS_EQ(a, b) do {					\
	const struct twheel_status *_x = (a), *_y = (b);		\
									\
	CHECK_EQ(_x->id, _y->id);					\
	CHECK_EQ(_x->cookie, _y->cookie);				\
	CHECK_EQ(_x->deadline_ns, _y->deadline_ns);			\
	CHECK_EQ(_x->period_ns, _y->period_ns);				\
	CHECK_EQ(_x->count, _y->count);					\
	CHECK_EQ(_x->remaining_ns, _y->remaining_ns);			\
	CHECK_EQ(_x->clock, _y->clock);					\
	CHECK_EQ(_x->state, _y->state);					\
} while (0)

/* ---- QUERY ---- */

static void query_pending_manual(void)
{
	int fd = twt_open_manual(O_NONBLOCK, TWHEEL_DEFAULT_TICK_NS);
	struct twheel_status st;
	uint64_t a, b, c;

	CHECK_EQ(twt_advance(fd, 10000300), 10000300);
	a = twt_add(fd, 0xC0FFEE, 5000200, 0, CLOCK_BOOTTIME);
	st = twt_query(fd, a);
	CHECK_EQ(st.id, a);
	CHECK_EQ(st.cookie, 0xC0FFEE);
	CHECK_EQ(st.deadline_ns, 16 * TWT_MS);	/* 15.0005 ms, up to the tick */
	CHECK_EQ(st.period_ns, 0);
	CHECK_EQ(st.count, 0);
	CHECK_EQ(st.remaining_ns, 16 * TWT_MS - 10000300);
	CHECK_EQ(st.clock, CLOCK_BOOTTIME);
	CHECK_EQ(st.state, TWHEEL_STATE_PENDING);
	/* On the tick: exact. */
	b = twt_add(fd, 0, 20 * TWT_MS, TWHEEL_ABSTIME, CLOCK_TAI);
	st = twt_query(fd, b);
	CHECK_EQ(st.deadline_ns, 20 * TWT_MS);
	CHECK_EQ(st.remaining_ns, 20 * TWT_MS - 10000300);
	CHECK_EQ(st.clock, CLOCK_TAI);
	CHECK_EQ(st.cookie, 0);
	/* One nanosecond past it: a whole tick later. */
	c = twt_add(fd, UINT64_MAX, 20 * TWT_MS + 1, TWHEEL_ABSTIME,
		    CLOCK_REALTIME);
	st = twt_query(fd, c);
	CHECK_EQ(st.deadline_ns, 21 * TWT_MS);
	CHECK_EQ(st.remaining_ns, 21 * TWT_MS - 10000300);
	CHECK_EQ(st.period_ns, 0);
	CHECK_EQ(st.cookie, UINT64_MAX);
	CHECK_EQ(st.clock, CLOCK_REALTIME);
	/* A periodic timer: exact on its grid (the period's multiples). */
	c = twt_addp(fd, 5, 20 * TWT_MS + 1, 3 * TWT_MS, TWHEEL_ABSTIME,
		     CLOCK_REALTIME);
	st = twt_query(fd, c);
	CHECK_EQ(st.deadline_ns, 20 * TWT_MS + 1);
	CHECK_EQ(st.remaining_ns, 20 * TWT_MS + 1 - 10000300);
	CHECK_EQ(st.period_ns, 3 * TWT_MS);
	CHECK_EQ(st.count, 0);
	CHECK_EQ(st.state, TWHEEL_STATE_PENDING);
	/* Remaining shrinks with the clock, the deadline does not move. */
	twt_advance(fd, 5 * TWT_MS);
	st = twt_query(fd, a);
	CHECK_EQ(st.deadline_ns, 16 * TWT_MS);
	CHECK_EQ(st.remaining_ns, TWT_MS - 300);
	close(fd);
}

static void query_queued_manual(void)
{
	int fd = twt_open_manual(O_NONBLOCK, TWHEEL_DEFAULT_TICK_NS);
	struct twheel_status st;
	struct twheel_event ev;
	uint64_t a, p;

	a = twt_add(fd, 1, 2 * TWT_MS, 0, CLOCK_MONOTONIC);
	p = twt_addp(fd, 2, 2 * TWT_MS, 4 * TWT_MS, 0, CLOCK_MONOTONIC);
	twt_advance(fd, 7 * TWT_MS);
	/* A queued one-shot: no deadline coming, count 1. */
	st = twt_query(fd, a);
	CHECK_EQ(st.state, TWHEEL_STATE_QUEUED);
	CHECK_EQ(st.deadline_ns, 0);
	CHECK_EQ(st.remaining_ns, 0);
	CHECK_EQ(st.count, 1);
	CHECK_EQ(st.period_ns, 0);
	CHECK_EQ(st.cookie, 1);
	/* A queued periodic: 2 and 6 counted, 10 coming. */
	st = twt_query(fd, p);
	CHECK_EQ(st.state, TWHEEL_STATE_QUEUED);
	CHECK_EQ(st.count, 2);
	CHECK_EQ(st.deadline_ns, 10 * TWT_MS);
	CHECK_EQ(st.remaining_ns, 3 * TWT_MS);
	CHECK_EQ(st.period_ns, 4 * TWT_MS);
	/* QUERY changed nothing: both still readable, in order. */
	CHECK_EQ(twt_queued(fd), 2);
	CHECK_EQ(read(fd, &ev, sizeof(ev)), sizeof(ev));
	CHECK_EQ(ev.id, a);
	CHECK_EQ(read(fd, &ev, sizeof(ev)), sizeof(ev));
	CHECK_EQ(ev.id, p);
	CHECK_EQ(ev.count, 2);
	close(fd);
}

/* On the real clocks: rounded up by less than a tick, remaining in range. */
static void query_real_clocks(void)
{
	int fd = twt_open(O_NONBLOCK);
	uint64_t seed = 0x9E7;
	int i;

	for (i = 0; i < 200; i++) {
		clockid_t c = twt_clock(i % TWT_NCLOCKS);
		int64_t dl, t0, t1, t2;
		struct twheel_status st;
		uint64_t id;

		dl = (int64_t)(twt_rand(&seed) % (10 * TWT_S)) + TWT_S;
		t0 = twt_now(c);
		if (i % 2) {
			dl += t0;
			id = twt_add(fd, i, dl, TWHEEL_ABSTIME, c);
			t1 = dl;
		} else {
			id = twt_add(fd, i, dl, 0, c);
			t1 = twt_now(c);
			/* The deadline is in [t0 + dl, t1 + dl]. */
			t1 += dl;
			dl += t0;
		}
		st = twt_query(fd, id);
		t2 = twt_now(c);
		CHECK_EQ(st.clock, c);
		CHECK_EQ(st.state, TWHEEL_STATE_PENDING);
		CHECK_EQ(st.cookie, i);
		CHECK_EQ(st.deadline_ns % TICK, 0);
		CHECK(st.deadline_ns >= dl);
		CHECK(st.deadline_ns < t1 + TICK);
		CHECK(st.remaining_ns <= st.deadline_ns - t0);
		CHECK(st.remaining_ns >= st.deadline_ns - t2);
	}
	close(fd);
}

static void query_errors(void)
{
	int fd = twt_open_manual(O_NONBLOCK, TWHEEL_DEFAULT_TICK_NS);
	int fd2 = twt_open_manual(O_NONBLOCK, TWHEEL_DEFAULT_TICK_NS);
	struct twheel_status st;
	struct twheel_event ev;
	uint64_t keep, gone, done, other;

	CHECK_ERR(twt_query_raw(fd, 0, &st), ENOENT);
	CHECK_ERR(twt_query_raw(fd, 1, &st), ENOENT);
	CHECK_ERR(twt_query_raw(fd, UINT64_MAX, &st), ENOENT);
	keep = twt_add(fd, 1, TWT_S, 0, CLOCK_MONOTONIC);
	CHECK_ERR(twt_query_raw(fd, keep + 1, &st), ENOENT);
	gone = twt_add(fd, 2, TWT_S, 0, CLOCK_MONOTONIC);
	twt_cancel(fd, gone);
	CHECK_ERR(twt_query_raw(fd, gone, &st), ENOENT);
	done = twt_add(fd, 3, 0, 0, CLOCK_MONOTONIC);
	CHECK_EQ(read(fd, &ev, sizeof(ev)), sizeof(ev));
	CHECK_ERR(twt_query_raw(fd, done, &st), ENOENT);
	/* Another fd's timer (one whose id this fd does not hold). */
	do {
		other = twt_add(fd2, 4, TWT_S, 0, CLOCK_MONOTONIC);
	} while (other == keep && twt_cancel(fd2, other));
	CHECK_ERR(twt_query_raw(fd, other, &st), ENOENT);
	CHECK_ERR(twt_query_raw(fd2, keep, &st), ENOENT);
	/* Flags and reserved. */
	CHECK_ERR(query_raw_flags(fd, keep, 1, 0), EINVAL);
	CHECK_ERR(query_raw_flags(fd, keep, 0x80000000U, 0), EINVAL);
	CHECK_ERR(query_raw_flags(fd, keep, 0, 1), EINVAL);
	CHECK_OK(query_raw_flags(fd, keep, 0, 0));
	CHECK_EQ(twt_timers(fd), 1);
	close(fd2);
	close(fd);
}

/* ---- LIST ---- */

static void list_errors(void)
{
	static const uint32_t bad_sizes[] = { 0, 8, 48, 55, 57, 64, 72 };
	int fd = twt_open_manual(O_NONBLOCK, TWHEEL_DEFAULT_TICK_NS);
	struct twheel_status st[4];
	uint64_t cursor = 0;
	uint32_t count = 7;
	unsigned int k;

	/* Empty: one call, nothing, complete. */
	CHECK_OK(query_list_call(fd, st, 4, &cursor, STSZ, 0, &count));
	CHECK_EQ(count, 0);
	CHECK_EQ(cursor, 0);
	twt_add(fd, 1, TWT_S, 0, CLOCK_MONOTONIC);
	CHECK_ERR(query_list_call(fd, st, 0, &cursor, STSZ, 0, &count), EINVAL);
	for (k = 0; k < sizeof(bad_sizes) / sizeof(bad_sizes[0]); k++)
		CHECK_ERR(query_list_call(fd, st, 4, &cursor, bad_sizes[k], 0,
					  &count), EINVAL);
	CHECK_ERR(query_list_call(fd, st, 4, &cursor, STSZ, 1, &count), EINVAL);
	CHECK_ERR(query_list_call(fd, st, 4, &cursor, STSZ, ~0U, &count),
		  EINVAL);
	CHECK_ERR(query_list_call(fd, NULL, 4, &cursor, STSZ, 0, &count),
		  EFAULT);
	/* The argument itself. */
	CHECK_ERR(ioctl(fd, TWHEEL_IOC_LIST, NULL), EFAULT);
	/* And a good call after all that. */
	CHECK_OK(query_list_call(fd, st, 4, &cursor, STSZ, 0, &count));
	CHECK_EQ(count, 1);
	CHECK_EQ(cursor, 0);
	close(fd);
}

/* 10 000 timers, capacity 100: each once, each as QUERY says. */
static void list_10000(void)
{
	enum { N = 10000 };
	static struct twheel_status out[N];
	static uint64_t id[N];
	int fd = twt_open_manual(O_NONBLOCK, TWHEEL_DEFAULT_TICK_NS);
	uint64_t seed = 0x1157;
	size_t n, i;
	uint32_t caps[] = { 100, 1, 7, 4096 };
	unsigned int c;

	for (i = 0; i < N; i++) {
		int64_t dl = (int64_t)(twt_rand(&seed) % (20 * TWT_S));
		uint64_t period = i % 5 ? 0 : (i % 7 + 1) * TWT_MS;

		id[i] = twt_addp(fd, i * 3, dl, period,
				 i % 2 ? TWHEEL_ABSTIME : 0,
				 twt_clock(i % TWT_NCLOCKS));
	}
	/* Some expire (queued), most stay pending. */
	twt_advance(fd, TWT_S);
	CHECK(twt_queued(fd) > 0);
	for (c = 0; c < sizeof(caps) / sizeof(caps[0]); c++) {
		int64_t t0 = twt_mono();

		n = query_list_all(fd, out, N, caps[c]);
		printf("# capacity %u: %zu entries in %.1f ms\n", caps[c], n,
		       (twt_mono() - t0) / 1e6);
		CHECK_EQ(n, N);
		qsort(out, n, sizeof(out[0]), query_list_cmp_id);
		for (i = 1; i < n; i++)
			CHECK(out[i].id != out[i - 1].id);
		for (i = 0; i < n; i++) {
			struct twheel_status q = twt_query(fd, out[i].id);

			CHECK_STATUS_EQ(&out[i], &q);
			CHECK_EQ(out[i].cookie % 3, 0);
			CHECK_EQ(id[out[i].cookie / 3], out[i].id);
		}
	}
	close(fd);
}

/* ---- LIST while another thread adds, cancels and modifies ---- */

#define STABLE		3000
#define CHURN		20000

struct query_list_churn {
	int fd;
	int modify;		/* also modify the stable timers */
	uint64_t *stable;
	atomic_int stop;
	atomic_int done;
	uint64_t added[CHURN];
	int nadded;
};

static void *query_list_churn_thread(void *arg)
{
	struct query_list_churn *c = arg;
	uint64_t seed = 0xC4u;
	uint64_t live[256];
	int nlive = 0;

	while (!atomic_load(&c->stop) && c->nadded < CHURN) {
		unsigned int r = twt_rand(&seed) % 4;

		if (r < 2 || nlive == 0) {
			uint64_t id = twt_add(c->fd, 1ULL << 40,
					      3600 * TWT_S, 0, CLOCK_MONOTONIC);

			c->added[c->nadded++] = id;
			if (nlive < 256)
				live[nlive++] = id;
			else
				twt_cancel(c->fd, id);
		} else if (r == 2) {
			int k = (int)(twt_rand(&seed) % nlive);

			twt_cancel(c->fd, live[k]);
			live[k] = live[--nlive];
		} else if (c->modify) {
			uint64_t id = c->stable[twt_rand(&seed) % STABLE];

			twt_modify(c->fd, id,
				   (int64_t)(twt_rand(&seed) % (7200 * TWT_S)) +
				   TWT_S, 0, 0);
		}
	}
	atomic_store(&c->done, 1);
	return NULL;
}

static void query_list_concurrent(int modify)
{
	static struct twheel_status out[STABLE + CHURN];
	static struct query_list_churn c;
	static uint64_t stable[STABLE];
	int fd = twt_open(O_NONBLOCK);
	uint64_t seed = 0x57AB;
	int listings = 0, i;
	long unknown = 0;
	pthread_t t;

	for (i = 0; i < STABLE; i++)
		stable[i] = twt_add(fd, i, (int64_t)(twt_rand(&seed) %
						     (3600 * TWT_S)) + TWT_S,
				    0, CLOCK_MONOTONIC);
	memset(&c, 0, sizeof(c));
	c.fd = fd;
	c.modify = modify;
	c.stable = stable;
	CHECK_OK(pthread_create(&t, NULL, query_list_churn_thread, &c));
	while (listings < 5 || (!atomic_load(&c.done) && listings < 50)) {
		size_t n = query_list_all(fd, out, STABLE + CHURN, 37);
		size_t j, s = 0;

		qsort(out, n, sizeof(out[0]), query_list_cmp_id);
		for (j = 0; j < n; j++) {
			if (j && out[j].id == out[j - 1].id)
				twt_fail(__FILE__, __LINE__,
					 "listing %d: id %" PRIu64 " twice",
					 listings, (uint64_t)out[j].id);
			if (out[j].cookie < STABLE) {
				CHECK_EQ(stable[out[j].cookie], out[j].id);
				s++;
			} else {
				CHECK_EQ(out[j].cookie, 1ULL << 40);
				unknown++;
			}
		}
		/* Every stable timer, each exactly once. */
		CHECK_EQ(s, STABLE);
		listings++;
	}
	atomic_store(&c.stop, 1);
	CHECK_OK(pthread_join(t, NULL));
	printf("# %d listings during %d adds (%ld churn entries seen)\n",
	       listings, c.nadded, unknown);
	close(fd);
}

static void list_concurrent(void)
{
	query_list_concurrent(0);
}

static void list_concurrent_modify(void)
{
	query_list_concurrent(1);
}

/* ---- EFAULT, and a retry with the same cursor ---- */

static void list_efault_retry(void)
{
	enum { N = 1000, CAP = 50 };
	static struct twheel_status out[N], good[CAP];
	int fd = twt_open_manual(O_NONBLOCK, TWHEEL_DEFAULT_TICK_NS);
	char *guard = twt_guard_map(10 * sizeof(struct twheel_status));
	struct twheel_status *part = (struct twheel_status *)guard - 10;
	uint64_t cursor = 0;
	size_t n = 0, i;
	int faults = 0, calls = 0;

	for (i = 0; i < N; i++)
		twt_add(fd, i, (int64_t)(i + 1) * TWT_MS, 0, CLOCK_MONOTONIC);
	do {
		uint64_t c = cursor;
		uint32_t got;

		/* First the bad buffers: nowhere, or room for only 10. */
		if (query_list_call(fd, guard, CAP, &c, STSZ, 0, &got) == 0) {
			CHECK_EQ(got, 0);
		} else {
			CHECK_EQ(errno, EFAULT);
			faults++;
		}
		c = cursor;
		if (query_list_call(fd, part, CAP, &c, STSZ, 0, &got) == 0) {
			CHECK(got <= 10);
		} else {
			CHECK_EQ(errno, EFAULT);
			faults++;
		}
		/* Then the same cursor with a good one: the listing goes on. */
		c = cursor;
		CHECK_OK(query_list_call(fd, good, CAP, &c, STSZ, 0, &got));
		CHECK(got <= CAP && n + got <= N);
		memcpy(out + n, good, got * sizeof(good[0]));
		n += got;
		cursor = c;
		CHECK(++calls < 10 * N);
	} while (cursor);
	CHECK(faults > 0);
	CHECK_EQ(n, N);
	qsort(out, n, sizeof(out[0]), query_list_cmp_id);
	for (i = 1; i < n; i++)
		CHECK(out[i].id != out[i - 1].id);
	CHECK_EQ(twt_timers(fd), N);
	close(fd);
}

/* ---- re-creating a listing on a new fd ---- */

/* Real clocks: the same deadlines, periods, cookies and clocks. */
static void list_recreate(void)
{
	enum { N = 400 };
	static struct twheel_status out[N];
	int fd = twt_open(O_NONBLOCK), fd2 = twt_open(O_NONBLOCK);
	uint64_t seed = 0xAE;
	size_t n, i;

	for (i = 0; i < N; i++) {
		clockid_t c = twt_clock(i % TWT_NCLOCKS);
		int64_t dl = (int64_t)(twt_rand(&seed) % (3600 * TWT_S)) +
			     60 * TWT_S;
		uint64_t period = 0;

		if (i % 3 == 0)
			period = (twt_rand(&seed) % (10 * TWT_S)) + 1;

		if (i % 2)
			twt_addp(fd, twt_rand(&seed), twt_now(c) + dl, period,
				 TWHEEL_ABSTIME, c);
		else
			twt_addp(fd, twt_rand(&seed), dl, period, 0, c);
	}
	n = query_list_all(fd, out, N, 64);
	CHECK_EQ(n, N);
	for (i = 0; i < n; i++) {
		struct twheel_status st;
		uint64_t id;

		CHECK_EQ(out[i].state, TWHEEL_STATE_PENDING);
		id = twt_addp(fd2, out[i].cookie, out[i].deadline_ns,
			      out[i].period_ns, TWHEEL_ABSTIME, out[i].clock);
		st = twt_query(fd2, id);
		CHECK_EQ(st.deadline_ns, out[i].deadline_ns);
		CHECK_EQ(st.period_ns, out[i].period_ns);
		CHECK_EQ(st.cookie, out[i].cookie);
		CHECK_EQ(st.clock, out[i].clock);
		CHECK_EQ(st.state, TWHEEL_STATE_PENDING);
	}
	CHECK_EQ(twt_timers(fd2), N);
	close(fd2);
	close(fd);
}

struct query_list_rec {
	uint64_t cookie;
	int64_t time_ns;
	uint64_t count;
};

static int query_list_cmp_rec(const void *a, const void *b)
{
	const struct query_list_rec *x = a, *y = b;

	if (x->time_ns != y->time_ns)
		return x->time_ns < y->time_ns ? -1 : 1;
	return (x->cookie > y->cookie) - (x->cookie < y->cookie);
}

/* Read every queued record of fd into r[n..max); the new n. */
static size_t query_list_take(int fd, struct query_list_rec *r, size_t n,
			      size_t max)
{
	struct twheel_event ev[64];
	ssize_t got;
	size_t i;

	while ((got = read(fd, ev, sizeof(ev))) > 0) {
		for (i = 0; i < (size_t)got / sizeof(ev[0]); i++) {
			CHECK(n < max);
			r[n].cookie = ev[i].cookie;
			r[n].time_ns = ev[i].time_ns;
			r[n].count = ev[i].count;
			n++;
		}
	}
	CHECK(got < 0 && errno == EAGAIN);
	return n;
}

/* Manual clocks: the re-created timers expire exactly as the originals. */
static void list_recreate_manual(void)
{
	enum { N = 300 };
	static struct twheel_status out[N];
	static struct query_list_rec r1[4 * N], r2[4 * N];
	int fd = twt_open_manual(O_NONBLOCK, TWHEEL_DEFAULT_TICK_NS);
	int fd2 = twt_open_manual(O_NONBLOCK, TWHEEL_DEFAULT_TICK_NS);
	uint64_t seed = 0x3A;
	size_t n, n1 = 0, n2 = 0, i;
	int step;

	twt_advance(fd, 7 * TWT_S + 123);
	twt_advance(fd2, 7 * TWT_S + 123);
	for (i = 0; i < N; i++) {
		int64_t dl = (int64_t)(twt_rand(&seed) % (2 * TWT_S)) + TWT_MS;
		uint64_t period = 0;

		if (i % 4 == 0)
			period = (twt_rand(&seed) % (300 * TWT_MS)) + 1;
		twt_addp(fd, i, dl, period, 0, twt_clock(i % TWT_NCLOCKS));
	}
	n = query_list_all(fd, out, N, 16);
	CHECK_EQ(n, N);
	for (i = 0; i < n; i++)
		twt_addp(fd2, out[i].cookie, out[i].deadline_ns,
			 out[i].period_ns, TWHEEL_ABSTIME, out[i].clock);
	/* The same steps on both; read everything after each. */
	for (step = 0; step < 40; step++) {
		uint64_t d = twt_rand(&seed) % (100 * TWT_MS);

		CHECK_EQ(twt_advance(fd, d), twt_advance(fd2, d));
		n1 = query_list_take(fd, r1, n1, 4 * N);
		n2 = query_list_take(fd2, r2, n2, 4 * N);
	}
	CHECK(n1 > 0);
	CHECK_EQ(n1, n2);
	qsort(r1, n1, sizeof(r1[0]), query_list_cmp_rec);
	qsort(r2, n2, sizeof(r2[0]), query_list_cmp_rec);
	for (i = 0; i < n1; i++) {
		CHECK_EQ(r1[i].cookie, r2[i].cookie);
		CHECK_EQ(r1[i].time_ns, r2[i].time_ns);
		CHECK_EQ(r1[i].count, r2[i].count);
	}
	printf("# %zu records alike on both fds\n", n1);
	close(fd2);
	close(fd);
}

TWT_MAIN("query_list",
	 TWT_CASE(query_pending_manual),
	 TWT_CASE(query_queued_manual),
	 TWT_CASE(query_real_clocks),
	 TWT_CASE(query_errors),
	 TWT_CASE(list_errors),
	 TWT_CASE_T(list_10000, 120),
	 TWT_CASE_T(list_concurrent, 120),
	 TWT_CASE_T(list_concurrent_modify, 120),
	 TWT_CASE(list_efault_retry),
	 TWT_CASE(list_recreate),
	 TWT_CASE(list_recreate_manual))
