// SPDX-License-Identifier: GPL-2.0
/*
 * clockset: wall clock sets (uapi/linux/twheel.h, TWHEEL_CANCEL_ON_SET,
 * TWHEEL_CONFIG_CLOCK_SET, TWHEEL_EVENT_CLOCK_SET). The VM runs the tests
 * as root, so a case sets the clock itself, each of five ways: settimeofday
 * (2) (the system call, not glibc's wrapper, which calls clock_settime),
 * clock_settime(CLOCK_REALTIME), adjtimex(ADJ_SETOFFSET), adjtimex(ADJ_TAI)
 * changing the TAI offset (CLOCK_TAI moves, CLOCK_REALTIME does not), and
 * clock_settime to the time it already is (still a set). Every step
 * forward is followed by one back by as much, so the clock ends where it
 * would have been (less the microseconds a read-then-set loses); what the
 * fd saw in between is kept and checked after the step back, so a failing
 * check does not leave the clock off.
 *
 * - record_per_set: an fd configured with TWHEEL_CONFIG_CLOCK_SET gets one
 *   record per set (id 0, cookie 0, clock CLOCK_REALTIME, flags
 *   TWHEEL_EVENT_CLOCK_SET, count 1, time_ns the new wall time), for each
 *   kind of set; no ioctl acts on id 0; it is no timer.
 * - sets_counted_in_one_record: sets before a read, and sets while the
 *   record waits, are counted in one record.
 * - blocked_waiters_woken: poll, epoll and a blocking read, blocked on an
 *   fd without timers, are woken by a set.
 * - set_before_config_not_reported, reconfig_drops_unseen_set,
 *   reconfig_drops_queued_record, config_without_flag_stops: what a
 *   configuration does to sets before it.
 * - manual_fd_no_sets: TWHEEL_CONFIG_CLOCK_SET on a TWHEEL_CONFIG_MANUAL
 *   fd is accepted and reports nothing; its TWHEEL_CANCEL_ON_SET timers
 *   run on the manual clock, which nothing sets.
 * - cos_timers_end_each_kind: pending absolute CLOCK_REALTIME, CLOCK_TAI
 *   and CLOCK_REALTIME_ALARM timers with TWHEEL_CANCEL_ON_SET (one-shot
 *   and periodic) end at each kind of set with one record each (count 0,
 *   their id, cookie and clock), QUERY says QUEUED, count 0, deadline 0
 *   until it is read, then they are gone (ENOENT); the same timers without
 *   the flag, and a monotonic one, are untouched.
 * - plain_timers_expire_after_set: timers without the flag expire at
 *   their deadline after a set, never early, as their flagged twins end.
 * - queued_record_kept, periodic_queued_then_pending: a timer whose
 *   expiry record is already queued keeps it; a periodic one, re-armed by
 *   the read of that record, is pending, and ends at the next set only.
 * - added_after_set_not_ended: a timer added, or modified with the flag,
 *   after a set the fd has not yet acted on is not ended by it (but by the
 *   next one).
 * - modify_sets_or_clears_flag: MODIFY without the flag clears it (single
 *   and batched), with it sets it.
 * - cancel_on_set_einval: EINVAL without TWHEEL_ABSTIME and on the other
 *   clocks, in ADD, MODIFY and a batch, nothing changed.
 * - cancel_modify_list_set_ended: a set-ended timer before its record is
 *   read: CANCEL and MODIFY retract the record (result QUEUED), LIST shows
 *   it QUEUED with count 0.
 * - race_adds_and_sets: a thread adds flagged timers and another reads
 *   while the main thread sets the clock 200 times: every timer ends with
 *   exactly one set record or stays pending; one added before a set began
 *   has ended, one added after the last set is pending; the set records'
 *   counts add up to the sets.
 */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <sys/epoll.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/timex.h>

#include "twtest.h"

#define COS		TWHEEL_CANCEL_ON_SET
#define ABS		TWHEEL_ABSTIME
#define SETF		TWHEEL_EVENT_CLOCK_SET

/* How far a step moves the clock; the TAI offset moves by 1 s. */
#define STEP_S		10
#define STEP		(STEP_S * TWT_S)
/* A deadline no step reaches. */
#define FAR		(3600 * TWT_S)
/* Slack for the lower bound of a record's time (settimeofday keeps us). */
#define SLACK		TWT_MS

#define ID_UNTOUCHED	0x5a5a5a5a5a5a5a5aULL

enum kind {
	K_SETTIMEOFDAY, K_CLOCK_SETTIME, K_SETOFFSET, K_TAI, K_NOW, NKIND
};

static const char *const kind_name[] = {
	"settimeofday", "clock_settime", "adjtimex(ADJ_SETOFFSET)",
	"adjtimex(ADJ_TAI)", "clock_settime(now)",
};

static int set_realtime(int64_t ns)
{
	struct timespec ts;

	ts.tv_sec = ns / TWT_S;
	ts.tv_nsec = ns % TWT_S;
	return clock_settime(CLOCK_REALTIME, &ts);
}

/*
 * One set of @kind: forward (@back 0) or back (@back 1) by STEP, or the
 * TAI offset by 1 s; K_NOW sets the time it is either way. 0, or -1 with
 * errno. No output.
 */
static int clockset(enum kind kind, int back)
{
	struct timeval tv;
	struct timex tx;

	switch (kind) {
	case K_SETTIMEOFDAY:
		if (gettimeofday(&tv, NULL))
			return -1;
		tv.tv_sec += back ? -STEP_S : STEP_S;
		return syscall(SYS_settimeofday, &tv, NULL) ? -1 : 0;
	case K_CLOCK_SETTIME:
		return set_realtime(twt_now(CLOCK_REALTIME) +
				    (back ? -STEP : STEP));
	case K_SETOFFSET:
		memset(&tx, 0, sizeof(tx));
		tx.modes = ADJ_SETOFFSET | ADJ_NANO;
		tx.time.tv_sec = back ? -STEP_S : STEP_S;
		tx.time.tv_usec = 0;
		return adjtimex(&tx) < 0 ? -1 : 0;
	case K_TAI:
		memset(&tx, 0, sizeof(tx));
		if (adjtimex(&tx) < 0)
			return -1;
		tx.modes = ADJ_TAI;
		tx.constant = back ? tx.tai - 1 : tx.tai + 1;
		return adjtimex(&tx) < 0 ? -1 : 0;
	default:
		return set_realtime(twt_now(CLOCK_REALTIME));
	}
}

/* What a set of @kind moves @clock by (ns), forward or back. */
static int64_t step_delta(enum kind kind, int back, clockid_t clock)
{
	int64_t d;

	switch (kind) {
	case K_NOW:
		return 0;
	case K_TAI:
		d = clock == CLOCK_TAI ? TWT_S : 0;
		break;
	default:
		d = STEP;
		break;
	}
	return back ? -d : d;
}

/* One set, with the clocks read just before it. */
struct step {
	enum kind kind;
	int back;
	int64_t rt0, tai0;
	int err;		/* 0, or the set's errno */
};

static void step_do(struct step *s, enum kind kind, int back)
{
	s->kind = kind;
	s->back = back;
	s->rt0 = twt_now(CLOCK_REALTIME);
	s->tai0 = twt_now(CLOCK_TAI);
	s->err = clockset(kind, back) ? errno : 0;
}

/* The earliest time on @clock a record the set made can have. */
static int64_t step_lo(const struct step *s, clockid_t clock)
{
	int64_t t = clock == CLOCK_TAI ? s->tai0 : s->rt0;

	return t + step_delta(s->kind, s->back, clock) - SLACK;
}

/* The clock a timer's clockid reads as. */
static clockid_t readclk(clockid_t clock)
{
	return clock == CLOCK_REALTIME_ALARM ? CLOCK_REALTIME : clock;
}

/* Fail the case unless the set went through. */
#define CHECK_STEP(s) do {						\
	if ((s)->err)							\
		twt_fail(__FILE__, __LINE__, "%s%s: %s",		\
			 kind_name[(s)->kind], (s)->back ? " back" : "", \
			 strerror((s)->err));				\
} while (0)

/* One non-blocking read, as it went. */
struct grab {
	ssize_t r;
	int err;
	int64_t rt1, tai1;	/* the clocks right after it */
	struct twheel_event ev[16];
};

static void grab(int fd, struct grab *g)
{
	memset(g->ev, 0xAA, sizeof(g->ev));
	errno = 0;
	g->r = read(fd, g->ev, sizeof(g->ev));
	g->err = errno;
	g->rt1 = twt_now(CLOCK_REALTIME);
	g->tai1 = twt_now(CLOCK_TAI);
}

/* The read returned exactly n records. */
#define CHECK_GRAB_N(g, n) do {						\
	if ((g)->r != (ssize_t)(n) * TWT_EV_SIZE)			\
		twt_fail(__FILE__, __LINE__,				\
			 "read %zd (%s), want %d records", (g)->r,	\
			 (g)->r < 0 ? strerror((g)->err) : "bytes",	\
			 (int)(n));					\
} while (0)

/* The fd's clock-set record: count n, queued between lo and hi. */
#define CHECK_SET_REC(e, n, lo, hi) do {				\
	CHECK_EQ((e)->id, 0);						\
	CHECK_EQ((e)->cookie, 0);					\
	CHECK_EQ((e)->clock, CLOCK_REALTIME);				\
	CHECK_EQ((e)->flags, SETF);					\
	CHECK_EQ((e)->count, (n));					\
	CHECK((e)->time_ns >= (lo));					\
	CHECK((e)->time_ns <= (hi));					\
} while (0)

/* A timer's record of being ended by a set. */
#define CHECK_ENDED_REC(e, id_, cookie_, clock_) do {			\
	CHECK_EQ((e)->id, (id_));					\
	CHECK_EQ((e)->cookie, (cookie_));				\
	CHECK_EQ((e)->clock, (clock_));					\
	CHECK_EQ((e)->flags, SETF);					\
	CHECK_EQ((e)->count, 0);					\
} while (0)

static void need_clock_set(int fd)
{
	struct twheel_info i = twt_info(fd);

	if (!(i.features & TWHEEL_FEATURE_CLOCK_SET))
		twt_skip("module without TWHEEL_FEATURE_CLOCK_SET");
	if (!(i.features & TWHEEL_FEATURE_ALARM))
		twt_skip("module without TWHEEL_FEATURE_ALARM");
}

/* A new O_NONBLOCK fd configured with TWHEEL_CONFIG_CLOCK_SET. */
static int open_set_fd(void)
{
	int fd = twt_open(O_NONBLOCK);

	need_clock_set(fd);
	twt_config(fd, TWHEEL_DEFAULT_TICK_NS, TWHEEL_CONFIG_CLOCK_SET);
	return fd;
}

/* The record of @id among ev[0..n), or NULL. */
static const struct twheel_event *find_ev(const struct twheel_event *ev,
					  size_t n, uint64_t id)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (ev[i].id == id)
			return &ev[i];
	return NULL;
}

/* Print records, for a failure's diagnosis. */
static void print_evs(const char *label, const struct twheel_event *ev,
		      size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		printf("# %s[%zu]: id %llu cookie %llu clock %u flags %#x "
		       "count %llu time_ns %lld\n", label, i,
		       (unsigned long long)ev[i].id,
		       (unsigned long long)ev[i].cookie, ev[i].clock,
		       ev[i].flags, (unsigned long long)ev[i].count,
		       (long long)ev[i].time_ns);
}

/* ---- the fd's clock-set records ---- */

static void features_reported(void)
{
	int fd = twt_open(O_NONBLOCK);
	struct twheel_info i = twt_info(fd);

	printf("# features %#llx clocks %#llx\n",
	       (unsigned long long)i.features, (unsigned long long)i.clocks);
	CHECK(i.features & TWHEEL_FEATURE_CLOCK_SET);
	CHECK(i.features & TWHEEL_FEATURE_ALARM);
	CHECK(i.clocks & (1ULL << CLOCK_REALTIME_ALARM));
	twt_config(fd, TWHEEL_DEFAULT_TICK_NS, TWHEEL_CONFIG_CLOCK_SET);
	/* The header names only MANUAL and TABLE for config_flags. */
	printf("# INFO.config_flags after TWHEEL_CONFIG_CLOCK_SET: %#x\n",
	       twt_info(fd).config_flags);
	close(fd);
}

/*
 * For each kind of set: one record per set, read between the step forward
 * and the step back and after the step back; nothing else.
 */
static void record_per_set(void)
{
	int k;

	for (k = 0; k < NKIND; k++) {
		int fd = open_set_fd();
		struct step fw, bk;
		struct grab g1, g2;
		struct twheel_info i1;
		struct twheel_status st;
		int qerr, cerr;

		CHECK_NONE_QUEUED(fd);
		step_do(&fw, k, 0);
		i1 = twt_info(fd);
		errno = 0;
		qerr = twt_query_raw(fd, 0, &st) ? errno : 0;
		cerr = twt_cancel_raw(fd, 0, 0, NULL) ? errno : 0;
		grab(fd, &g1);
		step_do(&bk, k, 1);
		grab(fd, &g2);

		CHECK_STEP(&fw);
		CHECK_STEP(&bk);
		CHECK_GRAB_N(&g1, 1);
		CHECK_GRAB_N(&g2, 1);
		printf("# %s: record time_ns - the time before the set: "
		       "%+.6f s, back %+.6f s\n", kind_name[k],
		       (g1.ev[0].time_ns - fw.rt0) / 1e9,
		       (g2.ev[0].time_ns - bk.rt0) / 1e9);
		/* Queued once the fd is used: a record, no timer. */
		CHECK_EQ(i1.queued, 1);
		CHECK_EQ(i1.timers, 0);
		/* No ioctl acts on id 0: it stays queued. */
		CHECK_EQ(qerr, ENOENT);
		CHECK_EQ(cerr, ENOENT);
		CHECK_SET_REC(&g1.ev[0], 1, step_lo(&fw, CLOCK_REALTIME),
			      g1.rt1);
		CHECK_SET_REC(&g2.ev[0], 1, step_lo(&bk, CLOCK_REALTIME),
			      g2.rt1);
		CHECK_NONE_QUEUED(fd);
		CHECK_EQ(twt_poll(fd, 100), 0);
		CHECK_EQ(twt_timers(fd), 0);
		close(fd);
	}
}

/*
 * Ten sets (each kind forward and back) before a read: one record of
 * count 10. Then a set that INFO queues and two more while it waits: one
 * record of count 3, queued (time_ns) when the fd learned of the first.
 */
static void sets_counted_in_one_record(void)
{
	int fd = open_set_fd();
	struct step s[2 * NKIND], n[3];
	struct grab g;
	struct twheel_info i1, i2;
	int64_t rt_info;
	int k;

	for (k = 0; k < NKIND; k++) {
		step_do(&s[2 * k], k, 0);
		step_do(&s[2 * k + 1], k, 1);
	}
	grab(fd, &g);
	for (k = 0; k < 2 * NKIND; k++)
		CHECK_STEP(&s[k]);
	CHECK_GRAB_N(&g, 1);
	CHECK_SET_REC(&g.ev[0], 2 * NKIND,
		      step_lo(&s[2 * NKIND - 1], CLOCK_REALTIME), g.rt1);
	CHECK_NONE_QUEUED(fd);

	step_do(&n[0], K_NOW, 0);
	i1 = twt_info(fd);
	rt_info = twt_now(CLOCK_REALTIME);
	step_do(&n[1], K_NOW, 0);
	step_do(&n[2], K_NOW, 0);
	i2 = twt_info(fd);
	grab(fd, &g);
	for (k = 0; k < 3; k++)
		CHECK_STEP(&n[k]);
	CHECK_EQ(i1.queued, 1);
	CHECK_EQ(i2.queued, 1);
	CHECK_GRAB_N(&g, 1);
	CHECK_SET_REC(&g.ev[0], 3, step_lo(&n[0], CLOCK_REALTIME), rt_info);
	CHECK_NONE_QUEUED(fd);
	close(fd);
}

/* A thread blocked on an fd: poll, epoll_wait or read. */
struct blocked {
	pthread_t th;
	int fd, epfd, how;	/* 0 poll, 1 epoll, 2 read */
	atomic_int tid;
	atomic_int done;
	int ret, err, revents;
	struct twheel_event ev[4];
};

static void *blocked_main(void *arg)
{
	struct blocked *b = arg;
	struct epoll_event ee;

	atomic_store(&b->tid, (int)syscall(SYS_gettid));
	errno = 0;
	switch (b->how) {
	case 0:
		b->ret = b->revents = twt_poll(b->fd, -1);
		break;
	case 1:
		do {
			b->ret = epoll_wait(b->epfd, &ee, 1, -1);
		} while (b->ret < 0 && errno == EINTR);
		b->revents = b->ret == 1 ? (int)ee.events : 0;
		break;
	default:
		b->ret = read(b->fd, b->ev, sizeof(b->ev));
		break;
	}
	b->err = errno;
	atomic_store(&b->done, 1);
	return NULL;
}

/* The state letter of thread @tid (R, S, ...), or '?'. */
static char thread_state(int tid)
{
	char path[64], buf[512], *p;
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "/proc/self/task/%d/stat", tid);
	f = fopen(path, "r");
	if (!f)
		return '?';
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = 0;
	p = strrchr(buf, ')');
	return p && p[1] == ' ' ? p[2] : '?';
}

/* Wait (up to 10 s) until the thread sleeps in its call. */
static void blocked_wait_asleep(struct blocked *b)
{
	int k;

	for (k = 0; k < 10000; k++) {
		int tid = atomic_load(&b->tid);

		if (tid && thread_state(tid) == 'S')
			return;
		twt_sleep_ms(1);
	}
	twt_fail(__FILE__, __LINE__, "waiter %d never slept", b->how);
}

/*
 * poll, epoll_wait and a blocking read, each on its own fd with no timer,
 * sleep until the wall clock is set (to the time it is), and then see
 * the set's record; nothing woke them before it.
 */
static void blocked_waiters_woken(void)
{
	static struct blocked b[3];
	struct epoll_event ee = { .events = EPOLLIN };
	struct step s;
	int k, early = 0;
	int64_t t0, waited[3];

	for (k = 0; k < 3; k++) {
		memset(&b[k], 0, sizeof(b[k]));
		b[k].how = k;
		b[k].fd = k == 2 ? twt_open(0) : twt_open(O_NONBLOCK);
		need_clock_set(b[k].fd);
		twt_config(b[k].fd, TWHEEL_DEFAULT_TICK_NS,
			   TWHEEL_CONFIG_CLOCK_SET);
		if (k == 1) {
			b[k].epfd = epoll_create1(0);
			CHECK(b[k].epfd >= 0);
			CHECK_OK(epoll_ctl(b[k].epfd, EPOLL_CTL_ADD, b[k].fd,
					   &ee));
		}
		CHECK_EQ(pthread_create(&b[k].th, NULL, blocked_main, &b[k]),
			 0);
	}
	for (k = 0; k < 3; k++)
		blocked_wait_asleep(&b[k]);
	/* Nothing wakes them but a set. */
	twt_sleep_ms(200);
	for (k = 0; k < 3; k++)
		early |= atomic_load(&b[k].done) << k;
	CHECK_EQ(early, 0);

	step_do(&s, K_NOW, 0);
	t0 = twt_mono();
	CHECK_STEP(&s);
	for (k = 0; k < 3; k++) {
		while (!atomic_load(&b[k].done) &&
		       twt_mono() - t0 < 20 * TWT_S)
			twt_sleep_ms(1);
		waited[k] = twt_mono() - t0;
		CHECK(atomic_load(&b[k].done));
		CHECK_EQ(pthread_join(b[k].th, NULL), 0);
	}
	printf("# woken after the set: poll %.3f ms, epoll %.3f ms, "
	       "read %.3f ms (at most)\n", waited[0] / 1e6, waited[1] / 1e6,
	       waited[2] / 1e6);
	CHECK(b[0].revents & POLLIN);
	CHECK_EQ(b[1].ret, 1);
	CHECK(b[1].revents & EPOLLIN);
	CHECK_EQ(b[2].ret, TWT_EV_SIZE);
	CHECK_SET_REC(&b[2].ev[0], 1, step_lo(&s, CLOCK_REALTIME),
		      twt_now(CLOCK_REALTIME));
	for (k = 0; k < 2; k++) {
		struct grab g;

		grab(b[k].fd, &g);
		CHECK_GRAB_N(&g, 1);
		CHECK_SET_REC(&g.ev[0], 1, step_lo(&s, CLOCK_REALTIME),
			      g.rt1);
	}
	CHECK_NONE_QUEUED(b[0].fd);
	CHECK_NONE_QUEUED(b[1].fd);
	for (k = 0; k < 3; k++)
		close(b[k].fd);
	close(b[1].epfd);
}

/* A set before the first configuration with the flag is not reported. */
static void set_before_config_not_reported(void)
{
	int fd = twt_open(O_NONBLOCK);
	struct step s1, s2;
	struct grab g;
	int cret;

	need_clock_set(fd);
	step_do(&s1, K_NOW, 0);
	cret = twt_config_raw(fd, TWHEEL_DEFAULT_TICK_NS,
			      TWHEEL_CONFIG_CLOCK_SET);
	CHECK_STEP(&s1);
	CHECK_EQ(cret, 0);
	CHECK_NONE_QUEUED(fd);
	step_do(&s2, K_NOW, 0);
	grab(fd, &g);
	CHECK_STEP(&s2);
	CHECK_GRAB_N(&g, 1);
	CHECK_SET_REC(&g.ev[0], 1, step_lo(&s2, CLOCK_REALTIME), g.rt1);
	CHECK_NONE_QUEUED(fd);
	close(fd);
}

/*
 * A set between two configurations with the flag, which nothing in
 * between made the fd act on: it came before the (last) configuration,
 * so it is not reported.
 */
static void reconfig_drops_unseen_set(void)
{
	int fd = open_set_fd();
	struct twheel_event ev[4];
	struct step s;
	size_t n;
	int cret;

	step_do(&s, K_NOW, 0);
	cret = twt_config_raw(fd, TWHEEL_DEFAULT_TICK_NS,
			      TWHEEL_CONFIG_CLOCK_SET);
	CHECK_STEP(&s);
	CHECK_EQ(cret, 0);
	n = twt_drain(fd, ev, 4);
	print_evs("after the configuration", ev, n);
	CHECK_EQ(n, 0);
	CHECK_NONE_QUEUED(fd);
	close(fd);
}

/* The same when the fd had queued the set's record: it goes. */
static void reconfig_drops_queued_record(void)
{
	int fd = open_set_fd();
	struct step s;
	uint64_t queued;

	step_do(&s, K_NOW, 0);
	queued = twt_queued(fd);
	CHECK_STEP(&s);
	CHECK_EQ(queued, 1);
	twt_config(fd, TWHEEL_DEFAULT_TICK_NS, TWHEEL_CONFIG_CLOCK_SET);
	CHECK_NONE_QUEUED(fd);
	CHECK_EQ(twt_poll(fd, 100), 0);
	close(fd);
}

/* A later configuration without the flag: no more records. */
static void config_without_flag_stops(void)
{
	int fd = open_set_fd();
	struct step s;

	twt_config(fd, TWHEEL_DEFAULT_TICK_NS, 0);
	step_do(&s, K_NOW, 0);
	CHECK_STEP(&s);
	CHECK_NONE_QUEUED(fd);
	CHECK_EQ(twt_poll(fd, 100), 0);
	close(fd);
}

/*
 * TWHEEL_CONFIG_CLOCK_SET on a manual fd is accepted and reports nothing.
 * A TWHEEL_CANCEL_ON_SET timer runs on the manual clock, which a set of
 * the wall clock does not touch: it stays, and expires by ADVANCE.
 */
static void manual_fd_no_sets(void)
{
	int fd = twt_open(O_NONBLOCK);
	struct twheel_event ev[2];
	struct step fw, bk;
	int cret, pr1, pr2;
	struct twheel_info i1;
	uint64_t id;

	need_clock_set(fd);
	cret = twt_config_raw(fd, TWHEEL_DEFAULT_TICK_NS,
			      TWHEEL_CONFIG_MANUAL | TWHEEL_CONFIG_CLOCK_SET);
	CHECK_EQ(cret, 0);
	id = twt_add(fd, 5, 10 * TWT_MS, ABS | COS, CLOCK_REALTIME);
	step_do(&fw, K_SETOFFSET, 0);
	pr1 = twt_poll(fd, 0);
	i1 = twt_info(fd);
	step_do(&bk, K_SETOFFSET, 1);
	pr2 = twt_poll(fd, 100);
	CHECK_STEP(&fw);
	CHECK_STEP(&bk);
	CHECK_EQ(pr1, 0);
	CHECK_EQ(pr2, 0);
	CHECK_EQ(i1.queued, 0);
	CHECK_EQ(i1.timers, 1);
	CHECK_NONE_QUEUED(fd);
	CHECK_EQ(twt_query(fd, id).state, TWHEEL_STATE_PENDING);
	CHECK_EQ(twt_query(fd, id).deadline_ns, 10 * TWT_MS);
	twt_advance(fd, 10 * TWT_MS);
	CHECK_EQ(twt_drain(fd, ev, 2), 1);
	CHECK_EQ(ev[0].id, id);
	CHECK_EQ(ev[0].flags, 0);
	CHECK_EQ(ev[0].count, 1);
	CHECK_EQ(ev[0].time_ns, 10 * TWT_MS);
	close(fd);
}

/* ---- TWHEEL_CANCEL_ON_SET timers ---- */

#define NCOS		4	/* the flagged timers of cos_set */
#define NPLAIN		4	/* their twins without it, and a monotonic */

struct cos_set {
	uint64_t id[NCOS + NPLAIN];
	clockid_t clock[NCOS + NPLAIN];
	struct twheel_status before[NCOS + NPLAIN];
};

/*
 * On @fd: absolute one-shot timers 1 h ahead on CLOCK_REALTIME, CLOCK_TAI
 * and CLOCK_REALTIME_ALARM, and a periodic CLOCK_REALTIME one, with the
 * flag (cookies 100 + i); the same one-shot ones without (200 + i), and a
 * relative monotonic one.
 */
static void cos_set_add(int fd, struct cos_set *c)
{
	static const clockid_t clk[3] = {
		CLOCK_REALTIME, CLOCK_TAI, CLOCK_REALTIME_ALARM,
	};
	int i;

	for (i = 0; i < 3; i++) {
		c->clock[i] = clk[i];
		c->id[i] = twt_add(fd, 100 + i,
				   twt_now(readclk(clk[i])) + FAR, ABS | COS,
				   clk[i]);
		c->clock[NCOS + i] = clk[i];
		c->id[NCOS + i] = twt_add(fd, 200 + NCOS + i,
					  twt_now(readclk(clk[i])) + FAR, ABS,
					  clk[i]);
	}
	c->clock[3] = CLOCK_REALTIME;
	c->id[3] = twt_addp(fd, 103, twt_now(CLOCK_REALTIME) + FAR, TWT_S,
			    ABS | COS, CLOCK_REALTIME);
	c->clock[NCOS + 3] = CLOCK_MONOTONIC;
	c->id[NCOS + 3] = twt_add(fd, 200 + NCOS + 3, FAR, 0,
				  CLOCK_MONOTONIC);
	for (i = 0; i < NCOS + NPLAIN; i++) {
		c->before[i] = twt_query(fd, c->id[i]);
		CHECK_EQ(c->before[i].state, TWHEEL_STATE_PENDING);
	}
}

static uint64_t cos_cookie(int i)
{
	return i < NCOS ? 100 + i : 200 + i;
}

/* The timers without the flag are as they were. */
static void cos_set_plain_untouched(int fd, const struct cos_set *c)
{
	int i;

	for (i = NCOS; i < NCOS + NPLAIN; i++) {
		struct twheel_status st = twt_query(fd, c->id[i]);

		CHECK_EQ(st.state, TWHEEL_STATE_PENDING);
		CHECK_EQ(st.cookie, cos_cookie(i));
		CHECK_EQ(st.clock, c->clock[i]);
		CHECK_EQ(st.count, 0);
		CHECK_EQ(st.deadline_ns, c->before[i].deadline_ns);
		CHECK(st.remaining_ns > FAR - 300 * TWT_S);
	}
}

/*
 * For each kind of set: the flagged timers end with one record each
 * (QUERY before the read: QUEUED, count 0, deadline 0, remaining 0), then
 * are gone; the others are untouched, also by the step back; on an fd
 * with TWHEEL_CONFIG_CLOCK_SET, the set's own record comes too.
 */
static void cos_timers_end_each_kind(void)
{
	int k, i;

	for (k = 0; k < NKIND; k++) {
		int fd = open_set_fd();
		struct twheel_status st[NCOS];
		struct step fw, bk;
		struct grab g1, g2;
		struct cos_set c;
		int qret[NCOS];

		cos_set_add(fd, &c);
		CHECK_NONE_QUEUED(fd);
		step_do(&fw, k, 0);
		for (i = 0; i < NCOS; i++) {
			memset(&st[i], 0xAA, sizeof(st[i]));
			qret[i] = twt_query_raw(fd, c.id[i], &st[i]) ?
				  errno : 0;
		}
		grab(fd, &g1);
		step_do(&bk, k, 1);
		grab(fd, &g2);

		CHECK_STEP(&fw);
		CHECK_STEP(&bk);
		for (i = 0; i < NCOS; i++) {
			CHECK_EQ(qret[i], 0);
			CHECK_EQ(st[i].id, c.id[i]);
			CHECK_EQ(st[i].state, TWHEEL_STATE_QUEUED);
			CHECK_EQ(st[i].count, 0);
			CHECK_EQ(st[i].deadline_ns, 0);
			CHECK_EQ(st[i].remaining_ns, 0);
			CHECK_EQ(st[i].clock, c.clock[i]);
			CHECK_EQ(st[i].cookie, cos_cookie(i));
		}
		/* The flagged timers' records and the set's. */
		CHECK_GRAB_N(&g1, NCOS + 1);
		for (i = 0; i < NCOS; i++) {
			const struct twheel_event *e =
				find_ev(g1.ev, NCOS + 1, c.id[i]);
			clockid_t rc = readclk(c.clock[i]);

			CHECK(e);
			CHECK_ENDED_REC(e, c.id[i], cos_cookie(i),
					c.clock[i]);
			CHECK(e->time_ns >= step_lo(&fw, rc));
			CHECK(e->time_ns <= (rc == CLOCK_TAI ? g1.tai1 :
							       g1.rt1));
		}
		CHECK(find_ev(g1.ev, NCOS + 1, 0));
		CHECK_SET_REC(find_ev(g1.ev, NCOS + 1, 0), 1,
			      step_lo(&fw, CLOCK_REALTIME), g1.rt1);
		/* The step back ends nothing more: the set's record only. */
		CHECK_GRAB_N(&g2, 1);
		CHECK_SET_REC(&g2.ev[0], 1, step_lo(&bk, CLOCK_REALTIME),
			      g2.rt1);
		for (i = 0; i < NCOS; i++) {
			CHECK_ERR(twt_query_raw(fd, c.id[i], NULL), ENOENT);
			CHECK_ERR(twt_cancel_raw(fd, c.id[i], 0, NULL),
				  ENOENT);
		}
		cos_set_plain_untouched(fd, &c);
		CHECK_EQ(twt_timers(fd), NPLAIN);
		CHECK_NONE_QUEUED(fd);
		printf("# %s: %d flagged timers ended, %d others pending\n",
		       kind_name[k], NCOS, NPLAIN);
		close(fd);
	}
}

/*
 * Timers without the flag, 300 ms ahead on each wall clock, expire at
 * their deadline after a set (to the time it is), never early; their
 * flagged twins ended at the set.
 */
static void plain_timers_expire_after_set(void)
{
	static const clockid_t clk[3] = {
		CLOCK_REALTIME, CLOCK_TAI, CLOCK_REALTIME_ALARM,
	};
	int fd = twt_open(O_NONBLOCK);
	struct twheel_event ev[8];
	uint64_t plain[3], cos[3];
	int64_t dl[3];
	struct step s;
	size_t n;
	int i;

	need_clock_set(fd);
	for (i = 0; i < 3; i++) {
		dl[i] = twt_now(readclk(clk[i])) + 300 * TWT_MS;
		plain[i] = twt_add(fd, 10 + i, dl[i], ABS, clk[i]);
		cos[i] = twt_add(fd, 20 + i, dl[i], ABS | COS, clk[i]);
	}
	step_do(&s, K_NOW, 0);
	n = twt_drain(fd, ev, 8);
	CHECK_STEP(&s);
	/* Unless the set came too late, the flagged ones ended by it. */
	for (i = 0; i < 3; i++)
		if (twt_now(readclk(clk[i])) >= dl[i])
			twt_skip("the set came after the deadlines");
	CHECK_EQ(n, 3);
	for (i = 0; i < 3; i++) {
		const struct twheel_event *e = find_ev(ev, n, cos[i]);

		CHECK(e);
		CHECK_ENDED_REC(e, cos[i], 20 + i, clk[i]);
		CHECK(e->time_ns < dl[i]);
		CHECK_EQ(twt_query(fd, plain[i]).state, TWHEEL_STATE_PENDING);
	}
	twt_read_n(fd, ev, 3, 10000);
	for (i = 0; i < 3; i++) {
		const struct twheel_event *e = find_ev(ev, 3, plain[i]);
		int64_t now = twt_now(readclk(clk[i]));

		CHECK(e);
		CHECK_EQ(e->cookie, 10 + i);
		CHECK_EQ(e->clock, clk[i]);
		CHECK_EQ(e->flags, 0);
		CHECK_EQ(e->count, 1);
		CHECK(e->time_ns >= dl[i]);
		CHECK(now >= dl[i]);
		printf("# %s: expired %.3f ms after its deadline\n",
		       clk[i] == CLOCK_REALTIME_ALARM ? "realtime_alarm" :
		       twt_clockname(clk[i]), (e->time_ns - dl[i]) / 1e6);
	}
	CHECK_EQ(twt_poll(fd, 100), 0);
	CHECK_NONE_QUEUED(fd);
	CHECK_EQ(twt_timers(fd), 0);
	close(fd);
}

/*
 * A flagged one-shot timer whose expiry record is queued (deadline past:
 * queued by the ADD) keeps it through a set; a pending one beside it
 * ends.
 */
static void queued_record_kept(void)
{
	int fd = twt_open(O_NONBLOCK);
	struct twheel_event ev[8];
	const struct twheel_event *e;
	struct step s;
	uint64_t one, far;
	int64_t rt = twt_now(CLOCK_REALTIME);
	struct twheel_info i0;
	size_t n;

	need_clock_set(fd);
	one = twt_add(fd, 1, rt - TWT_S, ABS | COS, CLOCK_REALTIME);
	far = twt_add(fd, 2, rt + FAR, ABS | COS, CLOCK_REALTIME);
	i0 = twt_info(fd);
	step_do(&s, K_NOW, 0);
	n = twt_drain(fd, ev, 8);
	CHECK_STEP(&s);
	print_evs("after the set", ev, n);
	CHECK_EQ(i0.queued, 1);
	CHECK_EQ(n, 2);
	e = find_ev(ev, n, one);
	CHECK(e);
	CHECK_EQ(e->cookie, 1);
	CHECK_EQ(e->flags, 0);
	CHECK_EQ(e->count, 1);
	CHECK(e->time_ns >= rt - TWT_S);
	e = find_ev(ev, n, far);
	CHECK(e);
	CHECK_ENDED_REC(e, far, 2, CLOCK_REALTIME);
	CHECK_ERR(twt_query_raw(fd, one, NULL), ENOENT);
	CHECK_ERR(twt_query_raw(fd, far, NULL), ENOENT);
	CHECK_NONE_QUEUED(fd);
	CHECK_EQ(twt_timers(fd), 0);
	close(fd);
}

/*
 * A flagged periodic timer whose expiry record is queued at a set keeps
 * that record (flags 0); reading it re-arms the timer for its next
 * deadline, computed after the set, so that set does not end it
 * afterwards: it is pending. The next set ends it.
 */
static void periodic_queued_then_pending(void)
{
	int fd = twt_open(O_NONBLOCK);
	struct twheel_event ev[8];
	struct twheel_status st;
	struct step s1, s2;
	uint64_t per;
	int64_t rt = twt_now(CLOCK_REALTIME);
	ssize_t r;
	size_t n;
	int qret;

	need_clock_set(fd);
	per = twt_addp(fd, 2, rt - TWT_S, FAR, ABS | COS, CLOCK_REALTIME);
	CHECK_EQ(twt_queued(fd), 1);
	step_do(&s1, K_NOW, 0);
	/* One record: its own read takes it, and nothing after it. */
	r = read(fd, ev, sizeof(ev[0]));
	memset(&st, 0, sizeof(st));
	qret = twt_query_raw(fd, per, &st);
	CHECK_STEP(&s1);
	CHECK_EQ(r, TWT_EV_SIZE);
	CHECK_EQ(ev[0].id, per);
	CHECK_EQ(ev[0].flags, 0);
	CHECK_EQ(ev[0].count, 1);
	CHECK_EQ(qret, 0);
	printf("# QUERY after the read of its expiry: state %u count %llu "
	       "deadline_ns %lld (the next one would be %lld)\n", st.state,
	       (unsigned long long)st.count, (long long)st.deadline_ns,
	       (long long)(rt - TWT_S + FAR));
	CHECK_EQ(st.state, TWHEEL_STATE_PENDING);
	CHECK_EQ(st.deadline_ns, rt - TWT_S + FAR);
	CHECK_NONE_QUEUED(fd);

	step_do(&s2, K_NOW, 0);
	n = twt_drain(fd, ev, 8);
	CHECK_STEP(&s2);
	print_evs("after the second set", ev, n);
	CHECK_EQ(n, 1);
	CHECK_ENDED_REC(&ev[0], per, 2, CLOCK_REALTIME);
	CHECK_ERR(twt_query_raw(fd, per, NULL), ENOENT);
	CHECK_NONE_QUEUED(fd);
	CHECK_EQ(twt_timers(fd), 0);
	close(fd);
}

/*
 * After a set the fd has not acted on yet (nothing used it since), a
 * flagged timer added, or a timer modified with the flag, is not ended
 * by that set, on an fd that already watched sets (it has a flagged
 * timer, which the set ends) and on one that did not: "none for an
 * absolute timer set after the step". The next set ends them.
 */
static void added_after_set_not_ended(void)
{
	int fa = twt_open(O_NONBLOCK), fb = twt_open(O_NONBLOCK);
	uint64_t old, mod, add_a, add_b, mod_b;
	struct twheel_event ea[8], eb[8], ea2[8], eb2[8];
	struct twheel_status sa, sb, sm, smb;
	struct step fw, bk;
	size_t na, nb, na2, nb2;
	int64_t rt = twt_now(CLOCK_REALTIME);

	need_clock_set(fa);
	old = twt_add(fa, 1, rt + FAR, ABS | COS, CLOCK_REALTIME);
	mod = twt_add(fa, 2, rt + FAR, ABS, CLOCK_REALTIME);
	mod_b = twt_add(fb, 3, rt + FAR, ABS, CLOCK_TAI);

	step_do(&fw, K_CLOCK_SETTIME, 0);
	rt = twt_now(CLOCK_REALTIME);
	/*
	 * The first call after the set on fa is the MODIFY, on fb the ADD
	 * (fb watched no sets before it).
	 */
	twt_modify(fa, mod, rt + FAR, 0, ABS | COS);
	add_a = twt_add(fa, 4, rt + FAR, ABS | COS, CLOCK_REALTIME);
	add_b = twt_add(fb, 5, rt + FAR, ABS | COS, CLOCK_REALTIME);
	twt_modify(fb, mod_b, twt_now(CLOCK_TAI) + FAR, 0, ABS | COS);
	sa = twt_query(fa, add_a);
	sm = twt_query(fa, mod);
	sb = twt_query(fb, add_b);
	smb = twt_query(fb, mod_b);
	na = twt_drain(fa, ea, 8);
	nb = twt_drain(fb, eb, 8);
	step_do(&bk, K_CLOCK_SETTIME, 1);
	na2 = twt_drain(fa, ea2, 8);
	nb2 = twt_drain(fb, eb2, 8);

	CHECK_STEP(&fw);
	CHECK_STEP(&bk);
	CHECK_EQ(sa.state, TWHEEL_STATE_PENDING);
	CHECK_EQ(sm.state, TWHEEL_STATE_PENDING);
	CHECK_EQ(sb.state, TWHEEL_STATE_PENDING);
	CHECK_EQ(smb.state, TWHEEL_STATE_PENDING);
	/* The set ended only the timer flagged before it. */
	CHECK_EQ(na, 1);
	CHECK_ENDED_REC(&ea[0], old, 1, CLOCK_REALTIME);
	CHECK_EQ(nb, 0);
	/* The step back ended the others, once each. */
	CHECK_EQ(na2, 2);
	CHECK(find_ev(ea2, 2, add_a));
	CHECK_ENDED_REC(find_ev(ea2, 2, add_a), add_a, 4, CLOCK_REALTIME);
	CHECK(find_ev(ea2, 2, mod));
	CHECK_ENDED_REC(find_ev(ea2, 2, mod), mod, 2, CLOCK_REALTIME);
	CHECK_EQ(nb2, 2);
	CHECK(find_ev(eb2, 2, add_b));
	CHECK_ENDED_REC(find_ev(eb2, 2, add_b), add_b, 5, CLOCK_REALTIME);
	CHECK(find_ev(eb2, 2, mod_b));
	CHECK_ENDED_REC(find_ev(eb2, 2, mod_b), mod_b, 3, CLOCK_TAI);
	CHECK_NONE_QUEUED(fa);
	CHECK_NONE_QUEUED(fb);
	CHECK_EQ(twt_timers(fa), 0);
	CHECK_EQ(twt_timers(fb), 0);
	close(fa);
	close(fb);
}

/*
 * MODIFY without the flag takes it away (the set leaves the timer alone),
 * single and batched; MODIFY with it (also over a flag it had) keeps or
 * gives it.
 */
static void modify_sets_or_clears_flag(void)
{
	int fd = twt_open(O_NONBLOCK);
	int64_t rt = twt_now(CLOCK_REALTIME), tai = twt_now(CLOCK_TAI);
	uint64_t cleared, cleared_b, kept, given;
	struct twheel_event ev[8];
	struct twheel_op op;
	struct step s;
	size_t n;

	need_clock_set(fd);
	cleared = twt_add(fd, 1, rt + FAR, ABS | COS, CLOCK_REALTIME);
	cleared_b = twt_add(fd, 2, tai + FAR, ABS | COS, CLOCK_TAI);
	kept = twt_add(fd, 3, rt + FAR, ABS | COS, CLOCK_REALTIME_ALARM);
	given = twt_add(fd, 4, rt + FAR, ABS, CLOCK_REALTIME);
	twt_modify(fd, cleared, rt + FAR + TWT_S, 0, ABS);
	memset(&op, 0, sizeof(op));
	op.op = TWHEEL_OP_MODIFY;
	op.id = cleared_b;
	op.flags = ABS;
	op.expires_ns = tai + FAR + TWT_S;
	CHECK_EQ(twt_submit_raw(fd, &op, 1), 1);
	CHECK_EQ(op.error, 0);
	twt_modify(fd, kept, rt + FAR + TWT_S, 0, ABS | COS);
	twt_modify(fd, given, rt + FAR + TWT_S, 0, ABS | COS);

	step_do(&s, K_NOW, 0);
	n = twt_drain(fd, ev, 8);
	CHECK_STEP(&s);
	CHECK_EQ(n, 2);
	CHECK(find_ev(ev, n, kept));
	CHECK_ENDED_REC(find_ev(ev, n, kept), kept, 3, CLOCK_REALTIME_ALARM);
	CHECK(find_ev(ev, n, given));
	CHECK_ENDED_REC(find_ev(ev, n, given), given, 4, CLOCK_REALTIME);
	CHECK_EQ(twt_query(fd, cleared).state, TWHEEL_STATE_PENDING);
	CHECK_EQ(twt_query(fd, cleared_b).state, TWHEEL_STATE_PENDING);
	CHECK_EQ(twt_timers(fd), 2);
	CHECK_NONE_QUEUED(fd);
	close(fd);
}

/* ADD as is: its errno (0: success); a failed one leaves the struct. */
static int add_errno(int fd, int64_t exp, uint64_t period, uint32_t flags,
		     uint32_t clock)
{
	struct twheel_add a, given;

	memset(&a, 0, sizeof(a));
	a.cookie = 7;
	a.expires_ns = exp;
	a.period_ns = period;
	a.flags = flags;
	a.clock = clock;
	a.id = ID_UNTOUCHED;
	given = a;
	if (ioctl(fd, TWHEEL_IOC_ADD, &a) == 0)
		return 0;
	CHECK(!memcmp(&a, &given, sizeof(a)));
	return errno;
}

/*
 * TWHEEL_CANCEL_ON_SET without TWHEEL_ABSTIME, or on a clock other than
 * CLOCK_REALTIME, CLOCK_TAI and CLOCK_REALTIME_ALARM: EINVAL, in ADD,
 * MODIFY and a batch, with nothing changed.
 */
static void cancel_on_set_einval(void)
{
	static const clockid_t wall[3] = {
		CLOCK_REALTIME, CLOCK_TAI, CLOCK_REALTIME_ALARM,
	};
	static const clockid_t other[3] = {
		CLOCK_MONOTONIC, CLOCK_BOOTTIME, CLOCK_BOOTTIME_ALARM,
	};
	int fd = twt_open(O_NONBLOCK);
	uint64_t wid[3], oid[3];
	struct twheel_status st0, st;
	struct twheel_op ops[6];
	int i;

	need_clock_set(fd);
	for (i = 0; i < 3; i++) {
		int64_t w = twt_now(readclk(wall[i])) + FAR;
		int64_t o = twt_now(other[i] == CLOCK_BOOTTIME_ALARM ?
				    CLOCK_BOOTTIME : other[i]) + FAR;

		/* Relative on a wall clock. */
		CHECK_EQ(add_errno(fd, FAR, 0, COS, wall[i]), EINVAL);
		CHECK_EQ(add_errno(fd, FAR, TWT_S, COS, wall[i]), EINVAL);
		/* Absolute or not on another clock. */
		CHECK_EQ(add_errno(fd, o, 0, ABS | COS, other[i]), EINVAL);
		CHECK_EQ(add_errno(fd, o, TWT_S, ABS | COS, other[i]),
			 EINVAL);
		CHECK_EQ(add_errno(fd, FAR, 0, COS, other[i]), EINVAL);
		wid[i] = twt_add(fd, 10 + i, w, ABS, wall[i]);
		oid[i] = twt_add(fd, 20 + i, o, ABS, other[i]);
	}
	CHECK_EQ(twt_timers(fd), 6);
	for (i = 0; i < 3; i++) {
		st0 = twt_query(fd, wid[i]);
		CHECK_ERR(twt_modify_raw(fd, wid[i], 0, FAR, 0, COS, NULL),
			  EINVAL);
		st = twt_query(fd, wid[i]);
		CHECK_EQ(st.deadline_ns, st0.deadline_ns);
		CHECK_EQ(st.state, TWHEEL_STATE_PENDING);
		st0 = twt_query(fd, oid[i]);
		CHECK_ERR(twt_modify_raw(fd, oid[i], 0, st0.deadline_ns, 0,
					 ABS | COS, NULL), EINVAL);
		CHECK_ERR(twt_modify_raw(fd, oid[i], 0, FAR, 0, COS, NULL),
			  EINVAL);
		st = twt_query(fd, oid[i]);
		CHECK_EQ(st.deadline_ns, st0.deadline_ns);
		CHECK_EQ(st.state, TWHEEL_STATE_PENDING);
	}

	/* A batch: the bad ones fail alone; a good one between is done. */
	memset(ops, 0, sizeof(ops));
	ops[0].op = TWHEEL_OP_ADD;
	ops[0].flags = ABS | COS;
	ops[0].clock = CLOCK_MONOTONIC;
	ops[0].expires_ns = twt_mono() + FAR;
	ops[1].op = TWHEEL_OP_ADD;
	ops[1].flags = COS;
	ops[1].clock = CLOCK_REALTIME;
	ops[1].expires_ns = FAR;
	ops[2].op = TWHEEL_OP_MODIFY;
	ops[2].flags = ABS | COS;
	ops[2].id = oid[2];
	ops[2].expires_ns = twt_now(CLOCK_BOOTTIME) + FAR;
	ops[3].op = TWHEEL_OP_MODIFY;
	ops[3].flags = COS;
	ops[3].id = wid[1];
	ops[3].expires_ns = FAR;
	ops[4].op = TWHEEL_OP_ADD;
	ops[4].flags = ABS | COS;
	ops[4].clock = CLOCK_TAI;
	ops[4].expires_ns = twt_now(CLOCK_TAI) + FAR;
	ops[5].op = TWHEEL_OP_ADD;
	ops[5].flags = ABS | COS;
	ops[5].clock = CLOCK_BOOTTIME;
	ops[5].expires_ns = twt_now(CLOCK_BOOTTIME) + FAR;
	for (i = 0; i < 6; i++)
		if (ops[i].op == TWHEEL_OP_ADD)
			ops[i].id = ID_UNTOUCHED;
	st0 = twt_query(fd, wid[1]);
	CHECK_EQ(twt_submit_raw(fd, ops, 6), 6);
	CHECK_EQ(ops[0].error, -EINVAL);
	CHECK_EQ(ops[0].id, 0);
	CHECK_EQ(ops[1].error, -EINVAL);
	CHECK_EQ(ops[1].id, 0);
	CHECK_EQ(ops[2].error, -EINVAL);
	CHECK_EQ(ops[3].error, -EINVAL);
	CHECK_EQ(ops[4].error, 0);
	CHECK(ops[4].id && ops[4].id != ID_UNTOUCHED);
	CHECK_EQ(ops[5].error, -EINVAL);
	CHECK_EQ(ops[5].id, 0);
	CHECK_EQ(twt_query(fd, wid[1]).deadline_ns, st0.deadline_ns);
	CHECK_EQ(twt_timers(fd), 7);
	CHECK_NONE_QUEUED(fd);
	close(fd);
}

/* Every status of a listing of @fd into st[] (at most cap); the count. */
static size_t list_all(int fd, struct twheel_status *st, size_t cap)
{
	struct twheel_list l;
	uint64_t cursor = 0;
	size_t n = 0;

	do {
		CHECK(n < cap);
		memset(&l, 0, sizeof(l));
		l.statuses = (uint64_t)(uintptr_t)(st + n);
		l.capacity = cap - n > 1024 ? 1024 : (uint32_t)(cap - n);
		l.cursor = cursor;
		l.status_size = sizeof(*st);
		CHECK_OK(ioctl(fd, TWHEEL_IOC_LIST, &l));
		n += l.count;
		cursor = l.cursor;
	} while (cursor);
	return n;
}

/*
 * A set-ended timer before its record is read: LIST shows it QUEUED,
 * count 0, deadline 0; CANCEL retracts the record (result QUEUED);
 * MODIFY retracts it too and re-arms the timer (with the flag: the set
 * before does not end it again).
 */
static void cancel_modify_list_set_ended(void)
{
	int fd = twt_open(O_NONBLOCK);
	int64_t rt = twt_now(CLOCK_REALTIME);
	struct twheel_status ls[8], st;
	uint64_t a, b, c;
	uint32_t ra = 0, rb = 0;
	struct twheel_event ev[4];
	struct step s;
	size_t n, i;
	int ca, mb;

	need_clock_set(fd);
	a = twt_add(fd, 1, rt + FAR, ABS | COS, CLOCK_REALTIME);
	b = twt_add(fd, 2, rt + FAR, ABS | COS, CLOCK_REALTIME);
	c = twt_add(fd, 3, rt + FAR, ABS | COS, CLOCK_REALTIME);
	step_do(&s, K_NOW, 0);
	n = list_all(fd, ls, 8);
	ca = twt_cancel_raw(fd, a, 0, &ra) ? errno : 0;
	mb = twt_modify_raw(fd, b, 0, twt_now(CLOCK_REALTIME) + FAR, 0,
			    ABS | COS, &rb) ? errno : 0;
	CHECK_STEP(&s);
	CHECK_EQ(n, 3);
	for (i = 0; i < n; i++) {
		CHECK_EQ(ls[i].state, TWHEEL_STATE_QUEUED);
		CHECK_EQ(ls[i].count, 0);
		CHECK_EQ(ls[i].deadline_ns, 0);
		CHECK_EQ(ls[i].remaining_ns, 0);
	}
	CHECK_EQ(ca, 0);
	CHECK_EQ(ra, TWHEEL_STATE_QUEUED);
	CHECK_EQ(mb, 0);
	CHECK_EQ(rb, TWHEEL_STATE_QUEUED);
	st = twt_query(fd, b);
	CHECK_EQ(st.state, TWHEEL_STATE_PENDING);
	CHECK(st.remaining_ns > FAR - 300 * TWT_S);
	CHECK_EQ(twt_queued(fd), 1);
	n = twt_drain(fd, ev, 4);
	CHECK_EQ(n, 1);
	CHECK_ENDED_REC(&ev[0], c, 3, CLOCK_REALTIME);
	CHECK_ERR(twt_query_raw(fd, a, NULL), ENOENT);
	CHECK_EQ(twt_query(fd, b).state, TWHEEL_STATE_PENDING);
	CHECK_EQ(twt_timers(fd), 1);
	CHECK_NONE_QUEUED(fd);
	close(fd);
}

/* ---- races ---- */

#define RACE_SETS	200	/* even: the clock ends where it began */
#define RACE_PER_SET	64	/* adds the adder is ahead of the sets */
#define RACE_MAX	(RACE_PER_SET * (RACE_SETS + 2))
#define RACE_EV		(RACE_MAX + RACE_SETS + 64)

struct race {
	int fd;
	atomic_uint begun, done;	/* sets begun, sets returned */
	atomic_int stop;
	atomic_uint n;			/* adds published */
	atomic_uint quota;		/* adds the adder may make so far */
	int add_err;
	uint64_t id[RACE_MAX];
	unsigned int done_before[RACE_MAX];	/* sets done as it began */
	unsigned int begun_after[RACE_MAX];	/* sets begun as it returned */
	struct twheel_event ev[RACE_EV];
	size_t nev;
	int read_err;
};

static void *race_adder(void *arg)
{
	struct race *r = arg;
	unsigned int i = 0;

	while (!atomic_load(&r->stop) && i < RACE_MAX) {
		unsigned int d = atomic_load(&r->done);
		uint64_t id = 0;

		/* Spread the adds over the sets, whatever the speed. */
		if (i >= atomic_load(&r->quota)) {
			sched_yield();
			continue;
		}

		if (twt_add_raw(r->fd, i, twt_now(CLOCK_REALTIME) + FAR,
				ABS | COS, CLOCK_REALTIME, &id)) {
			r->add_err = errno;
			break;
		}
		r->begun_after[i] = atomic_load(&r->begun);
		r->done_before[i] = d;
		r->id[i] = id;
		atomic_store(&r->n, ++i);
	}
	return NULL;
}

static void *race_reader(void *arg)
{
	struct race *r = arg;

	while (!atomic_load(&r->stop)) {
		ssize_t got;

		if (r->nev + 64 > RACE_EV)
			break;
		got = read(r->fd, r->ev + r->nev, 64 * sizeof(r->ev[0]));
		if (got < 0 && errno == EAGAIN) {
			twt_poll(r->fd, 5);
			continue;
		}
		if (got <= 0 || got % TWT_EV_SIZE) {
			r->read_err = got < 0 ? errno : -1;
			break;
		}
		r->nev += got / TWT_EV_SIZE;
	}
	return NULL;
}

/*
 * One thread adds flagged timers as fast as it can, one reads records,
 * while this one sets the clock RACE_SETS times (ADJ_SETOFFSET, 1 s
 * forward and back). Afterwards: every timer either ended with exactly
 * one set record or is pending (LIST), never both, never neither; one
 * whose ADD returned before a set began has ended; one whose ADD began
 * after the last set returned is pending; the fd's own set records count
 * every set.
 */
static void race_adds_and_sets(void)
{
	static struct race r;
	static struct twheel_status ls[RACE_MAX + 8];
	static unsigned char seen[RACE_MAX], listed[RACE_MAX];
	pthread_t ta, tr;
	struct twheel_info info;
	unsigned int k, n, ended = 0, pending = 0, must_end = 0;
	unsigned int must_stay = 0, set_err = 0, by_reader;
	uint64_t sets = 0;
	size_t nl, i;

	memset(&r, 0, sizeof(r));
	r.fd = open_set_fd();
	atomic_store(&r.quota, RACE_PER_SET);
	CHECK_EQ(pthread_create(&ta, NULL, race_adder, &r), 0);
	CHECK_EQ(pthread_create(&tr, NULL, race_reader, &r), 0);
	while (atomic_load(&r.n) < RACE_PER_SET && !r.add_err)
		twt_sleep_ms(1);
	for (k = 0; k < RACE_SETS; k++) {
		struct timex tx;

		atomic_store(&r.quota, RACE_PER_SET * (k + 2));
		atomic_fetch_add(&r.begun, 1);
		memset(&tx, 0, sizeof(tx));
		tx.modes = ADJ_SETOFFSET | ADJ_NANO;
		tx.time.tv_sec = k & 1 ? -1 : 1;
		if (adjtimex(&tx) < 0)
			set_err = errno;
		atomic_fetch_add(&r.done, 1);
		twt_sleep_ns(200 * TWT_US);
	}
	/* Some adds after the last set. */
	atomic_store(&r.quota, RACE_MAX);
	n = atomic_load(&r.n);
	while (atomic_load(&r.n) < n + 16 && !r.add_err &&
	       atomic_load(&r.n) < RACE_MAX)
		twt_sleep_ms(1);
	atomic_store(&r.stop, 1);
	CHECK_EQ(pthread_join(ta, NULL), 0);
	CHECK_EQ(pthread_join(tr, NULL), 0);
	by_reader = r.nev;
	CHECK_EQ(set_err, 0);
	CHECK_EQ(r.add_err, 0);
	CHECK_EQ(r.read_err, 0);
	r.nev += twt_drain(r.fd, r.ev + r.nev, RACE_EV - r.nev);
	n = atomic_load(&r.n);

	for (i = 0; i < r.nev; i++) {
		const struct twheel_event *e = &r.ev[i];

		CHECK_EQ(e->flags, SETF);
		if (e->id == 0) {
			CHECK_EQ(e->clock, CLOCK_REALTIME);
			CHECK_EQ(e->cookie, 0);
			CHECK(e->count >= 1);
			sets += e->count;
			continue;
		}
		CHECK(e->cookie < n);
		CHECK_EQ(e->id, r.id[e->cookie]);
		CHECK_EQ(e->count, 0);
		CHECK_EQ(e->clock, CLOCK_REALTIME);
		if (seen[e->cookie]++)
			twt_fail(__FILE__, __LINE__,
				 "timer %llu has two set records",
				 (unsigned long long)e->cookie);
		ended++;
	}
	nl = list_all(r.fd, ls, RACE_MAX + 8);
	for (i = 0; i < nl; i++) {
		CHECK(ls[i].cookie < n);
		CHECK_EQ(ls[i].id, r.id[ls[i].cookie]);
		CHECK_EQ(ls[i].state, TWHEEL_STATE_PENDING);
		CHECK(!seen[ls[i].cookie]);
		CHECK(!listed[ls[i].cookie]);
		listed[ls[i].cookie] = 1;
		pending++;
	}
	for (k = 0; k < n; k++) {
		if (!seen[k] && !listed[k])
			twt_fail(__FILE__, __LINE__,
				 "timer %u (id %" PRIu64 ") lost", k, r.id[k]);
		if (r.begun_after[k] < RACE_SETS) {
			must_end++;
			if (!seen[k])
				twt_fail(__FILE__, __LINE__,
					 "timer %u added before set %u began, "
					 "not ended", k, r.begun_after[k] + 1);
		}
		if (r.done_before[k] == RACE_SETS) {
			must_stay++;
			if (!listed[k])
				twt_fail(__FILE__, __LINE__,
					 "timer %u added after the last set, "
					 "ended", k);
		}
	}
	info = twt_info(r.fd);
	printf("# %u adds, %u sets: %u ended (%u had to), %u pending (%u "
	       "had to); %zu records, %u by the reader thread; set records "
	       "count %" PRIu64 " sets\n", n, RACE_SETS, ended, must_end,
	       pending, must_stay, r.nev, by_reader, sets);
	CHECK_EQ(ended + pending, n);
	CHECK_EQ(info.timers, pending);
	CHECK_EQ(info.queued, 0);
	CHECK_EQ(sets, RACE_SETS);
	close(r.fd);
}

TWT_MAIN("clockset",
	 TWT_CASE(features_reported),
	 TWT_CASE(record_per_set),
	 TWT_CASE(sets_counted_in_one_record),
	 TWT_CASE(blocked_waiters_woken),
	 TWT_CASE(set_before_config_not_reported),
	 TWT_CASE(reconfig_drops_unseen_set),
	 TWT_CASE(reconfig_drops_queued_record),
	 TWT_CASE(config_without_flag_stops),
	 TWT_CASE(manual_fd_no_sets),
	 TWT_CASE(cos_timers_end_each_kind),
	 TWT_CASE(plain_timers_expire_after_set),
	 TWT_CASE(queued_record_kept),
	 TWT_CASE(periodic_queued_then_pending),
	 TWT_CASE(added_after_set_not_ended),
	 TWT_CASE(modify_sets_or_clears_flag),
	 TWT_CASE(cancel_on_set_einval),
	 TWT_CASE(cancel_modify_list_set_ended),
	 TWT_CASE_T(race_adds_and_sets, 120))
