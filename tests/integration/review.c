// SPDX-License-Identifier: GPL-2.0
/*
 * review: behaviour a user relies on after the review of the module:
 *  - fdinfo only looks: reading /proc/PID/fdinfo/FD queues no record and
 *    advances no wheel (timers due since the fd was last used count as
 *    pending until the fd's own read, poll or ioctl queues them, stamped
 *    with that time); its lines slots, uid, user_fds and user_timers;
 *  - a periodic timer whose first deadline lies far in the past counts
 *    every point of its grid passed and then fires on, every period;
 *  - LIST over sparse id slots reports each live timer exactly once and
 *    fills a call up to its capacity; close frees exactly what was live.
 * Each case says what the code before this change did instead.
 */
#include "twtest.h"

#define TICK		((int64_t)TWHEEL_DEFAULT_TICK_NS)
#define STSZ		((uint32_t)sizeof(struct twheel_status))

/* fdinfo's value of key, or fail the case (no such line). */
#define review_fdinfo(fd, key)						\
	review_fdinfo_at(__FILE__, __LINE__, (fd), (key))
static long long review_fdinfo_at(const char *file, int line, int fd,
				  const char *key)
{
	long long v = 0;

	if (twt_fdinfo(fd, key, &v))
		twt_fail(file, line, "no \"%s:\" line in fdinfo", key);
	return v;
}

/* ---- fdinfo only looks ---- */

#define N_LOOK		20000
#define BATCH		1024

/*
 * N_LOOK timers on one fd, all due at one deadline, added with
 * TWHEEL_IOC_SUBMIT. The deadline is taken far enough ahead that every
 * add is done before it (so no add queued any: each add brings the wheel
 * up to its present): the margin grows until that holds, whatever the
 * machine's speed. Returns the fd; *dl the deadline.
 */
static int review_add_due_together(int n, int64_t *dl)
{
	static struct twheel_op ops[BATCH];
	int attempt, fd = -1, i, k;

	for (attempt = 0; attempt < 6; attempt++) {
		int64_t margin = (500 * TWT_MS) << attempt;

		fd = twt_open(O_NONBLOCK);
		*dl = twt_mono() + margin;
		for (i = 0; i < n; i += k) {
			k = n - i < BATCH ? n - i : BATCH;
			memset(ops, 0, k * sizeof(ops[0]));
			for (int j = 0; j < k; j++) {
				ops[j].op = TWHEEL_OP_ADD;
				ops[j].flags = TWHEEL_ABSTIME;
				ops[j].cookie = i + j;
				ops[j].expires_ns = *dl;
				ops[j].clock = CLOCK_MONOTONIC;
			}
			CHECK_EQ(twt_submit_raw(fd, ops, k), k);
			for (int j = 0; j < k; j++)
				CHECK_EQ(ops[j].error, 0);
		}
		if (twt_mono() < *dl)
			return fd;
		printf("# %d adds took more than %.1f s: again\n", n,
		       margin / 1e9);
		close(fd);
	}
	twt_fail(__FILE__, __LINE__, "%d adds never done within 16 s", n);
}

/*
 * 20000 due timers nobody touched: fdinfo, read twice, shows them all
 * pending and none queued; the fd's own INFO then queues all 20000, each
 * record stamped at or after that INFO (after the fdinfo reads), in add
 * order. The old code advanced the wheels in fdinfo: the first read
 * showed "queued: 20000", and the records carried the fdinfo reader's
 * (earlier) time.
 */
static void fdinfo_only_looks(void)
{
	static struct twheel_event ev[N_LOOK];
	struct twheel_info info;
	int64_t dl, t0;
	size_t n, i;
	int fd, k;

	fd = review_add_due_together(N_LOOK, &dl);
	/* A sleep only to be sure they are all due: no timing is judged. */
	twt_sleep_ns(dl + 50 * TWT_MS - twt_mono());
	for (k = 0; k < 2; k++) {
		CHECK_EQ(review_fdinfo(fd, "timers"), N_LOOK);
		CHECK_EQ(review_fdinfo(fd, "queued"), 0);
		CHECK_EQ(review_fdinfo(fd, "pending"), N_LOOK);
		CHECK_EQ(review_fdinfo(fd, "slots"), N_LOOK);
	}
	t0 = twt_mono();
	info = twt_info(fd);
	CHECK_EQ(info.timers, N_LOOK);
	CHECK_EQ(info.queued, N_LOOK);
	/* Queued by the owner now: fdinfo shows that too. */
	CHECK_EQ(review_fdinfo(fd, "queued"), N_LOOK);
	CHECK_EQ(review_fdinfo(fd, "pending"), 0);
	n = twt_drain(fd, ev, N_LOOK);
	CHECK_EQ(n, N_LOOK);
	for (i = 0; i < n; i++) {
		if (ev[i].time_ns < t0)
			twt_fail(__FILE__, __LINE__,
				 "record %zu: time_ns %.3f ms before the INFO that queued it",
				 i, (t0 - ev[i].time_ns) / 1e6);
		CHECK(ev[i].time_ns >= dl);
		/* One deadline: add order. */
		CHECK_EQ(ev[i].cookie, i);
		CHECK_EQ(ev[i].count, 1);
	}
	CHECK_EQ(review_fdinfo(fd, "timers"), 0);
	CHECK_EQ(review_fdinfo(fd, "queued"), 0);
	CHECK_EQ(review_fdinfo(fd, "pending"), 0);
	close(fd);
}

/* /proc/<pid>/fdinfo/<fd>'s value of key, or -1 when there is none. */
static long long review_fdinfo_of(pid_t pid, int fd, const char *key)
{
	char path[64], line[256], k[128];
	long long v, ret = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/fdinfo/%d", (int)pid, fd);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%127[^:]:\t%lld", k, &v) == 2 &&
		    !strcmp(k, key)) {
			ret = v;
			break;
		}
	fclose(f);
	return ret;
}

/*
 * Another process looking (root running lsof, say): its reads of
 * /proc/<owner>/fdinfo/<fd> show the due timers pending and queue
 * nothing; the owner's first poll then finds them readable, and every
 * record carries a time at or after that poll. The old code did the
 * owner's work in the other process's fdinfo read: "queued: 100" there,
 * records stamped with its time.
 */
static void fdinfo_other_process(void)
{
	struct twheel_event ev[101];
	int64_t dl, t0;
	pid_t pid, owner = getpid();
	int fd, st, i;

	fd = review_add_due_together(100, &dl);
	twt_sleep_ns(dl + 50 * TWT_MS - twt_mono());
	pid = fork();
	CHECK(pid >= 0);
	if (pid == 0) {
		for (i = 0; i < 3; i++) {
			CHECK_EQ(review_fdinfo_of(owner, fd, "timers"), 100);
			CHECK_EQ(review_fdinfo_of(owner, fd, "queued"), 0);
			CHECK_EQ(review_fdinfo_of(owner, fd, "pending"), 100);
		}
		_exit(0);
	}
	CHECK_EQ(waitpid(pid, &st, 0), pid);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	t0 = twt_mono();
	CHECK(twt_poll(fd, 0) & POLLIN);
	CHECK_EQ(twt_drain(fd, ev, 101), 100);
	for (i = 0; i < 100; i++) {
		CHECK(ev[i].time_ns >= t0);
		CHECK_EQ(ev[i].cookie, i);
	}
	close(fd);
}

/*
 * fdinfo's slots, uid, user_fds and user_timers: the fd's id slots (kept
 * for reuse when a timer ends), and the user's fds and slots over all of
 * them. Judged by differences, so fds other programs of the same user
 * hold do not matter. The old code had none of these lines.
 */
static void fdinfo_user_lines(void)
{
	int fd = twt_open(O_NONBLOCK), fd2;
	long long fds0, slots0;
	uint64_t id[3];
	int i;

	CHECK_EQ(review_fdinfo(fd, "uid"), geteuid());
	CHECK_EQ(review_fdinfo(fd, "slots"), 0);
	fds0 = review_fdinfo(fd, "user_fds");
	slots0 = review_fdinfo(fd, "user_timers");
	CHECK(fds0 >= 1);
	CHECK(slots0 >= 0);
	for (i = 0; i < 3; i++)
		id[i] = twt_add_rel(fd, i, 3600 * TWT_S);
	CHECK_EQ(review_fdinfo(fd, "slots"), 3);
	CHECK_EQ(review_fdinfo(fd, "user_timers"), slots0 + 3);

	fd2 = twt_open(O_NONBLOCK);
	CHECK_EQ(review_fdinfo(fd, "user_fds"), fds0 + 1);
	CHECK_EQ(review_fdinfo(fd2, "user_fds"), fds0 + 1);
	CHECK_EQ(review_fdinfo(fd2, "uid"), geteuid());
	CHECK_EQ(review_fdinfo(fd2, "slots"), 0);
	twt_add_rel(fd2, 9, 3600 * TWT_S);
	CHECK_EQ(review_fdinfo(fd, "user_timers"), slots0 + 4);

	/* A cancelled timer's slot stays with its fd, for its next timer. */
	CHECK_EQ(twt_cancel(fd, id[1]), TWHEEL_STATE_PENDING);
	CHECK_EQ(review_fdinfo(fd, "slots"), 3);
	CHECK_EQ(review_fdinfo(fd, "user_timers"), slots0 + 4);
	twt_add_rel(fd, 10, 3600 * TWT_S);
	CHECK_EQ(review_fdinfo(fd, "slots"), 3);
	CHECK_EQ(review_fdinfo(fd, "user_timers"), slots0 + 4);
	twt_add_rel(fd, 11, 3600 * TWT_S);
	CHECK_EQ(review_fdinfo(fd, "slots"), 4);
	CHECK_EQ(review_fdinfo(fd, "user_timers"), slots0 + 5);

	/* Closing an fd gives back its fd and its slots. */
	close(fd2);
	CHECK_EQ(review_fdinfo(fd, "user_fds"), fds0);
	CHECK_EQ(review_fdinfo(fd, "user_timers"), slots0 + 4);
	close(fd);
}

/* ---- periodic timers whose grid starts far in the past ---- */

/*
 * On the manual clock at 0, periodic timers whose first deadline is far
 * in the past: the record counts every point of the grid passed, in u64
 * (for INT64_MIN and 1 s: 1 + 2^63 / 1e9 = 9223372037); the next deadline
 * is the first point after the present, INT64_MIN + 9223372037 s in u64
 * = 145224192 ns; then it fires every period, count 1 each. The old code
 * computed that next deadline with the step n * period limited to
 * INT64_MAX: it saturated to INT64_MAX, so QUERY showed deadline
 * INT64_MAX and the timer never fired again.
 */
static void periodic_far_past_manual(void)
{
	static const struct {
		int64_t first;
		uint64_t period;
	} tc[] = {
		{ INT64_MIN, TWT_S },
		{ INT64_MIN + 12345, 7 * TWT_MS },
		{ -8000000000000000000LL, 3 * TWT_S },
		{ INT64_MIN / 2, TWT_S },	/* n * period fits: as before */
		{ INT64_MIN, (1ULL << 62) - 1 },	/* the longest period */
	};
	enum { NT = sizeof(tc) / sizeof(tc[0]) };
	int fd = twt_open_manual(O_NONBLOCK, TICK);
	struct twheel_event ev[NT + 1];
	struct twheel_status st;
	uint64_t id[NT], count[NT], longest;
	int64_t next[NT];
	int i, k;

	for (i = 0; i < NT; i++) {
		/* The present is 0: the points passed, in u64. */
		count[i] = 1 + (0 - (uint64_t)tc[i].first) / tc[i].period;
		next[i] = (int64_t)((uint64_t)tc[i].first +
				    count[i] * tc[i].period);
		printf("# first %" PRId64 " period %" PRIu64 ": count %" PRIu64
		       ", next %" PRId64 "\n", tc[i].first, tc[i].period,
		       count[i], next[i]);
	}
	/* The values the header's rule gives, worked out by hand. */
	CHECK_EQ(count[0], 9223372037LL);
	CHECK_EQ(next[0], 145224192);
	CHECK_EQ(count[4], 3);
	CHECK_EQ(next[4], (1LL << 62) - 3);

	for (i = 0; i < NT; i++) {
		id[i] = twt_addp(fd, 50 + i, tc[i].first, tc[i].period,
				 TWHEEL_ABSTIME, CLOCK_MONOTONIC);
		/* Due at once: queued as the add returns. */
		st = twt_query(fd, id[i]);
		CHECK_EQ(st.state, TWHEEL_STATE_QUEUED);
		CHECK_EQ((uint64_t)st.count, count[i]);
		CHECK_EQ(st.deadline_ns, next[i]);
		CHECK_EQ(st.period_ns, tc[i].period);
		CHECK_EQ(st.remaining_ns, next[i]);
	}
	/* A longer period is the longest: 2^62 - 1 ns, so reported. */
	longest = twt_addp(fd, 99, TWT_S, (uint64_t)INT64_MAX, 0,
			   CLOCK_MONOTONIC);
	CHECK_EQ(twt_query(fd, longest).period_ns, (1ULL << 62) - 1);
	twt_cancel(fd, longest);
	CHECK_EQ(twt_drain(fd, ev, NT + 1), NT);
	for (i = 0; i < NT; i++) {
		CHECK_EQ(ev[i].id, id[i]);
		CHECK_EQ(ev[i].cookie, 50 + i);
		CHECK_EQ((uint64_t)ev[i].count, count[i]);
		CHECK_EQ(ev[i].time_ns, 0);
		/* Read: pending for the first point after the present. */
		st = twt_query(fd, id[i]);
		CHECK_EQ(st.state, TWHEEL_STATE_PENDING);
		CHECK_EQ(st.count, 0);
		CHECK_EQ(st.deadline_ns, next[i]);
		CHECK_EQ(st.remaining_ns, next[i]);
	}
	/*
	 * The first one fires again every second: at 1, 2, 3 s (its points
	 * 0.145 s, 1.145 s, 2.145 s), count 1 each.
	 */
	for (k = 1; k <= 3; k++) {
		int64_t now = twt_advance(fd, TWT_S);
		size_t got, j, mine = 0;

		CHECK_EQ(now, k * TWT_S);
		got = twt_drain(fd, ev, NT + 1);
		for (j = 0; j < got; j++) {
			CHECK_EQ(ev[j].time_ns, now);
			if (ev[j].id != id[0])
				continue;
			mine++;
			CHECK_EQ(ev[j].count, 1);
		}
		CHECK_EQ(mine, 1);
		st = twt_query(fd, id[0]);
		CHECK_EQ(st.state, TWHEEL_STATE_PENDING);
		CHECK_EQ(st.deadline_ns, next[0] + k * TWT_S);
	}
	/* The 7 ms one went on too: 3 s / 7 ms of points, one record each. */
	st = twt_query(fd, id[1]);
	CHECK(st.deadline_ns > 3 * TWT_S && st.deadline_ns <= 3 * TWT_S + 7 * TWT_MS);
	/* The one whose next point is 2^62 - 3 (146 years) stays pending. */
	st = twt_query(fd, id[4]);
	CHECK_EQ(st.state, TWHEEL_STATE_PENDING);
	CHECK_EQ(st.deadline_ns, next[4]);
	close(fd);
}

/*
 * On CLOCK_REALTIME, first deadline -8e18 ns (1716 before 1970), period
 * 1 s: due at once, its record counts the ~9.7e9 seconds passed; after
 * the read QUERY shows it pending for the first second of the grid after
 * the read, exactly -8e18 + count * 1 s (in u64), and it fires again
 * within the next 2.5 s with count 1 or 2. The old code saturated that
 * next deadline at INT64_MAX (count * 1 s > INT64_MAX): never again.
 */
static void periodic_far_past_realtime(void)
{
	const int64_t first = -8000000000000000000LL;
	int fd = twt_open(O_NONBLOCK);
	struct twheel_event ev[2];
	struct twheel_status st;
	uint64_t id, lo, hi;
	int64_t t_before, t_after, next;

	id = twt_addp(fd, 77, first, TWT_S, TWHEEL_ABSTIME, CLOCK_REALTIME);
	CHECK_EQ(twt_query(fd, id).state, TWHEEL_STATE_QUEUED);
	t_before = twt_now(CLOCK_REALTIME);
	CHECK_EQ(read(fd, ev, sizeof(ev)), sizeof(ev[0]));
	t_after = twt_now(CLOCK_REALTIME);
	lo = 1 + ((uint64_t)t_before - (uint64_t)first) / TWT_S;
	hi = 1 + ((uint64_t)t_after - (uint64_t)first) / TWT_S;
	printf("# count %" PRIu64 " (between %" PRIu64 " and %" PRIu64 ")\n",
	       (uint64_t)ev[0].count, lo, hi);
	CHECK_EQ(ev[0].id, id);
	CHECK_EQ(ev[0].cookie, 77);
	CHECK(ev[0].count >= lo && ev[0].count <= hi);
	CHECK(ev[0].count > 9000000000ULL);
	next = (int64_t)((uint64_t)first + ev[0].count * (uint64_t)TWT_S);

	st = twt_query(fd, id);
	printf("# next deadline %+.3f s from the read\n",
	       (next - t_before) / 1e9);
	CHECK_EQ(st.state, TWHEEL_STATE_PENDING);
	CHECK_EQ(st.deadline_ns, next);
	CHECK(st.deadline_ns > t_before && st.deadline_ns <= t_after + TWT_S);
	CHECK(st.remaining_ns > 0 && st.remaining_ns <= TWT_S);
	CHECK_EQ(st.period_ns, TWT_S);

	/* And it fires again, on the grid. */
	CHECK(twt_poll(fd, 2500) & POLLIN);
	CHECK_EQ(read(fd, ev, sizeof(ev)), sizeof(ev[0]));
	CHECK_EQ(ev[0].id, id);
	CHECK(ev[0].count == 1 || ev[0].count == 2);
	CHECK(ev[0].time_ns >= next);
	st = twt_query(fd, id);
	CHECK_EQ(st.state, TWHEEL_STATE_PENDING);
	CHECK_EQ(st.deadline_ns, next + (int64_t)ev[0].count * TWT_S);
	close(fd);
}

/* ---- LIST over sparse slots; close ---- */

#define N_SPARSE	5000

/*
 * One whole listing with capacity cap; every call must fill up to cap
 * unless the listing ends with it (the kernel loops over its chunks of
 * slots within one call). A call that filled up to cap may still leave
 * a cursor that an empty last call ends. Returns the entries.
 */
#define review_list(fd, out, max, cap)					\
	review_list_at(__FILE__, __LINE__, (fd), (out), (max), (cap))
static size_t review_list_at(const char *file, int line, int fd,
			     struct twheel_status *out, size_t max,
			     uint32_t cap)
{
	struct twheel_status *buf = calloc(cap, sizeof(*buf));
	struct twheel_list l;
	size_t n = 0, calls = 0;

	if (!buf)
		twt_fail(file, line, "calloc");
	memset(&l, 0, sizeof(l));
	do {
		l.statuses = (uint64_t)(uintptr_t)buf;
		l.capacity = cap;
		l.status_size = STSZ;
		l.count = 0xDEAD;
		if (ioctl(fd, TWHEEL_IOC_LIST, &l))
			twt_fail(file, line, "TWHEEL_IOC_LIST: %s",
				 strerror(errno));
		if (l.count > cap || n + l.count > max)
			twt_fail(file, line, "call %zu: %u entries (cap %u), %zu before",
				 calls, l.count, cap, n);
		/* Short only when the listing ends with it. */
		if (l.count < cap && l.cursor)
			twt_fail(file, line, "call %zu: %u of %u entries, cursor %llu: not filled",
				 calls, l.count, cap,
				 (unsigned long long)l.cursor);
		memcpy(out + n, buf, l.count * sizeof(*buf));
		n += l.count;
		if (++calls > max + 2)
			twt_fail(file, line, "listing does not end");
	} while (l.cursor);
	free(buf);
	return n;
}

static int review_cmp_id(const void *a, const void *b)
{
	uint64_t x = ((const struct twheel_status *)a)->id;
	uint64_t y = ((const struct twheel_status *)b)->id;

	return (x > y) - (x < y);
}

/* The listing out[0..n) is exactly the timers live[0..nlive), once each. */
#define CHECK_LISTED(fd, out, n, live, nlive) do {			\
	size_t _i;							\
									\
	CHECK_EQ((n), (nlive));						\
	qsort((out), (n), sizeof((out)[0]), review_cmp_id);		\
	for (_i = 0; _i < (n); _i++) {					\
		struct twheel_status _q = twt_query((fd), (out)[_i].id);\
									\
		CHECK_EQ((out)[_i].id, (live)[_i]);			\
		CHECK_EQ((out)[_i].cookie, _q.cookie);			\
		CHECK_EQ((out)[_i].deadline_ns, _q.deadline_ns);	\
		CHECK_EQ((out)[_i].state, _q.state);			\
	}								\
} while (0)

static int review_cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/*
 * 5000 timers, all cancelled but every 1000th and the last: a listing
 * with capacity 1, 5, 64 and 4096 reports exactly those once each, each
 * call filled up to its capacity (the kernel walks 4000-odd free slots
 * in its chunks of 256 within one call), the cursor 0 at the end. Then
 * with the last slots free, and with none live. Close gives back every
 * slot (user_timers on another fd of the user).
 */
static void list_sparse(void)
{
	static const uint32_t caps[] = { 1, 5, 6, 64, 4096 };
	static struct twheel_status out[N_SPARSE];
	static uint64_t id[N_SPARSE], live[8];
	int fd = twt_open_manual(O_NONBLOCK, TICK), other;
	long long fds0, slots0;
	size_t n, nlive = 0;
	unsigned int c;
	int i;

	for (i = 0; i < N_SPARSE; i++)
		id[i] = twt_add_abs(fd, i, (int64_t)(i + 1) * TWT_MS,
				    CLOCK_MONOTONIC);
	for (i = 0; i < N_SPARSE; i++) {
		if (i % 1000 == 0 || i == N_SPARSE - 1)
			live[nlive++] = id[i];
		else
			CHECK_EQ(twt_cancel(fd, id[i]), TWHEEL_STATE_PENDING);
	}
	qsort(live, nlive, sizeof(live[0]), review_cmp_u64);
	CHECK_EQ(nlive, 6);
	CHECK_EQ(twt_timers(fd), 6);
	CHECK_EQ(review_fdinfo(fd, "slots"), N_SPARSE);
	for (c = 0; c < sizeof(caps) / sizeof(caps[0]); c++) {
		n = review_list(fd, out, N_SPARSE, caps[c]);
		CHECK_LISTED(fd, out, n, live, nlive);
	}

	/* The last slot freed too: 999 free slots after the last live one. */
	CHECK_EQ(twt_cancel(fd, id[N_SPARSE - 1]), TWHEEL_STATE_PENDING);
	nlive = 0;
	for (i = 0; i < N_SPARSE; i += 1000)
		live[nlive++] = id[i];
	qsort(live, nlive, sizeof(live[0]), review_cmp_u64);
	for (c = 0; c < sizeof(caps) / sizeof(caps[0]); c++) {
		n = review_list(fd, out, N_SPARSE, caps[c]);
		CHECK_LISTED(fd, out, n, live, nlive);
	}

	/* Some of them due and queued: listed the same, as QUERY says. */
	CHECK_EQ(twt_advance(fd, 2500 * TWT_MS), 2500 * TWT_MS);
	CHECK_EQ(twt_queued(fd), 3);	/* 1, 1001 and 2001 ms */
	n = review_list(fd, out, N_SPARSE, 64);
	CHECK_LISTED(fd, out, n, live, nlive);

	/* None live: one call, nothing, cursor 0. */
	for (i = 0; i < N_SPARSE; i += 1000)
		twt_cancel(fd, id[i]);
	for (c = 0; c < sizeof(caps) / sizeof(caps[0]); c++)
		CHECK_EQ(review_list(fd, out, N_SPARSE, caps[c]), 0);
	CHECK_EQ(review_fdinfo(fd, "slots"), N_SPARSE);

	/* Close: the user gets back all 5000 slots and the fd. */
	other = twt_open(O_NONBLOCK);
	fds0 = review_fdinfo(other, "user_fds");
	slots0 = review_fdinfo(other, "user_timers");
	CHECK(slots0 >= N_SPARSE);
	close(fd);
	CHECK_EQ(review_fdinfo(other, "user_fds"), fds0 - 1);
	CHECK_EQ(review_fdinfo(other, "user_timers"), slots0 - N_SPARSE);
	close(other);
}

TWT_MAIN("review",
	 TWT_CASE_T(fdinfo_only_looks, 300),
	 TWT_CASE(fdinfo_other_process),
	 TWT_CASE(fdinfo_user_lines),
	 TWT_CASE(periodic_far_past_manual),
	 TWT_CASE(periodic_far_past_realtime),
	 TWT_CASE_T(list_sparse, 120))
