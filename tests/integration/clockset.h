/* SPDX-License-Identifier: GPL-2.0 */
/*
 * clockset.h - for the integration tests of wall clock sets
 * (clockset.c, clockset_cos.c, clockset_race.c; uapi/linux/twheel.h,
 * TWHEEL_CANCEL_ON_SET, TWHEEL_CONFIG_CLOCK_SET, TWHEEL_EVENT_CLOCK_SET):
 * set the clock, read an fd's records and check them, list its timers.
 *
 * The VM runs the tests as root, so a case sets the clock itself, each of
 * five ways (enum kind, clockset()): settimeofday(2) (the system call,
 * not glibc's wrapper, which calls clock_settime),
 * clock_settime(CLOCK_REALTIME), adjtimex(ADJ_SETOFFSET), adjtimex(ADJ_TAI)
 * changing the TAI offset (CLOCK_TAI moves, CLOCK_REALTIME does not), and
 * clock_settime to the time it already is (still a set). Every step
 * forward is followed by one back by as much, so the clock ends where it
 * would have been (less the microseconds a read-then-set loses); what the
 * fd saw in between is kept and checked after the step back, so a failing
 * check does not leave the clock off.
 */
#ifndef CLOCKSET_H
#define CLOCKSET_H

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

enum kind {
	K_SETTIMEOFDAY, K_CLOCK_SETTIME, K_SETOFFSET, K_TAI, K_NOW, NKIND
};

static const char *const kind_name[] = {
	"settimeofday", "clock_settime", "adjtimex(ADJ_SETOFFSET)",
	"adjtimex(ADJ_TAI)", "clock_settime(now)",
};

/*
 * One set of @kind: forward (@back 0) or back (@back 1) by STEP, or the
 * TAI offset by 1 s; K_NOW sets the time it is either way. 0, or -1 with
 * errno. No output.
 */
static inline int clockset(enum kind kind, int back)
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
		return twt_set_realtime(twt_now(CLOCK_REALTIME) +
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
		return twt_set_realtime(twt_now(CLOCK_REALTIME));
	}
}

/* What a set of @kind moves @clock by (ns), forward or back. */
static inline int64_t step_delta(enum kind kind, int back, clockid_t clock)
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

static inline void step_do(struct step *s, enum kind kind, int back)
{
	s->kind = kind;
	s->back = back;
	s->rt0 = twt_now(CLOCK_REALTIME);
	s->tai0 = twt_now(CLOCK_TAI);
	s->err = clockset(kind, back) ? errno : 0;
}

/* The earliest time on @clock a record the set made can have. */
static inline int64_t step_lo(const struct step *s, clockid_t clock)
{
	int64_t t = clock == CLOCK_TAI ? s->tai0 : s->rt0;

	return t + step_delta(s->kind, s->back, clock) - SLACK;
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

static inline void grab(int fd, struct grab *g)
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

static inline void need_clock_set(int fd)
{
	struct twheel_info i = twt_info(fd);

	if (!(i.features & TWHEEL_FEATURE_CLOCK_SET))
		twt_skip("module without TWHEEL_FEATURE_CLOCK_SET");
	twt_need_alarm(fd);
}

/* A new O_NONBLOCK fd configured with TWHEEL_CONFIG_CLOCK_SET. */
static inline int open_set_fd(void)
{
	int fd = twt_open(O_NONBLOCK);

	need_clock_set(fd);
	twt_config(fd, TWHEEL_DEFAULT_TICK_NS, TWHEEL_CONFIG_CLOCK_SET);
	return fd;
}

/* Print records, for a failure's diagnosis. */
static inline void print_evs(const char *label,
			     const struct twheel_event *ev, size_t n)
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

/* Every status of a listing of @fd into st[] (at most cap); the count. */
static inline size_t list_all(int fd, struct twheel_status *st, size_t cap)
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

#endif /* CLOCKSET_H */
