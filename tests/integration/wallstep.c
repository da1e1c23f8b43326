// SPDX-License-Identifier: GPL-2.0
/*
 * wallstep: a wall-clock step is seen at once. An fd with a pending
 * CLOCK_REALTIME or CLOCK_TAI timer whose clock is set past the timer's
 * deadline treats it as fired from that moment: the very next QUERY,
 * INFO, poll or read on the fd (whichever comes first) queues its record,
 * without waiting for the kernel's hrtimer callback. Setting the clock
 * back again makes nothing early: a timer an hour away stays pending.
 *
 * The old code (before the wall clock counted as fired) only advanced
 * the wheels after the wheel's hrtimer callback had run (ctx->fire_seq
 * bumped). After clock_settime() the kernel re-programs the other CPUs
 * at once but the one that set the clock (where the fd's hrtimer was
 * armed, by the ADD) only at its next timer interrupt, so the callback
 * comes up to a jiffy later: the first call right after the step saw the
 * timer PENDING, INFO queued 0, poll not readable and read EAGAIN. Each
 * case steps the clock 12 times, so a lucky interrupt in between cannot
 * hide that.
 */
#include "twtest.h"

#define STEPS		12
/* The timer under test is DUE s ahead; the clock steps STEP s. */
#define DUE		(10 * TWT_S)
#define STEP		(20 * TWT_S)
/* A timer that a step forward does not reach, nor a step back bring. */
#define FAR		(3600 * TWT_S)

/* What comes first after the step. */
enum first { FIRST_QUERY, FIRST_INFO, FIRST_POLL, FIRST_READ, NFIRST };

static const char *const first_name[] = {
	"QUERY", "INFO", "poll", "read",
};

/* What each call saw, in the order they were made after the step. */
struct seen {
	int qret, qerr;			/* QUERY of the near timer */
	struct twheel_status st;
	int iret, ierr;			/* INFO */
	struct twheel_info info;
	int revents;			/* poll(fd, 0) */
	ssize_t rret;			/* read(O_NONBLOCK) */
	int rerr;
	struct twheel_event ev[2];
};

static void do_query(int fd, uint64_t id, struct seen *s)
{
	memset(&s->st, 0, sizeof(s->st));
	errno = 0;
	s->qret = twt_query_raw(fd, id, &s->st);
	s->qerr = errno;
}

static void do_info(int fd, struct seen *s)
{
	memset(&s->info, 0xAA, sizeof(s->info));
	errno = 0;
	s->iret = ioctl(fd, TWHEEL_IOC_INFO, &s->info);
	s->ierr = errno;
}

static void do_poll(int fd, struct seen *s)
{
	s->revents = twt_poll(fd, 0);
}

static void do_read(int fd, struct seen *s)
{
	errno = 0;
	s->rret = read(fd, s->ev, sizeof(s->ev));
	s->rerr = errno;
}

/*
 * Did the first call after the step see the timer fired? If not, say
 * what each call saw (so a failure shows which calls missed it).
 */
static int wallstep_missed(const struct seen *s, enum first first, int k)
{
	int seen;

	switch (first) {
	case FIRST_QUERY:
		seen = s->qret == 0 && s->st.state == TWHEEL_STATE_QUEUED;
		break;
	case FIRST_INFO:
		seen = s->iret == 0 && s->info.queued == 1;
		break;
	case FIRST_POLL:
		seen = !!(s->revents & POLLIN);
		break;
	default:
		seen = s->rret == TWT_EV_SIZE;
		break;
	}
	if (seen)
		return 0;
	printf("# step %d, %s first: missed it (QUERY %d state %u, INFO %d queued %llu, poll %#x, read %zd %s)\n",
	       k, first_name[first], s->qret, s->st.state, s->iret,
	       (unsigned long long)s->info.queued, s->revents, s->rret,
	       s->rret < 0 ? strerror(s->rerr) : "bytes");
	return 1;
}

/*
 * One step: on a fresh fd, a timer DUE ahead on @clock (absolute, or
 * relative when !@abs) and one FAR ahead; the wall clock steps STEP
 * forward; @first is the very first call after it, then the other three;
 * then the clock steps back by STEP. Everything is checked once the
 * clock is back, so a failing check leaves the clock as it was.
 * Returns 1 when the first call did not see the timer fired (said on a
 * "#" line), 0 when it and everything after it were right.
 */
static int wallstep_once(clockid_t clock, int abs, enum first first, int k)
{
	int fd = twt_open(O_NONBLOCK);
	struct twheel_status st, far_before;
	struct twheel_event e;
	struct seen s;
	uint64_t near, far;
	int64_t now, rt, back_err, set_err;
	unsigned int j;

	memset(&s, 0, sizeof(s));
	now = twt_now(clock);
	if (abs) {
		near = twt_add_abs(fd, 100 + k, now + DUE, clock);
		far = twt_add_abs(fd, 200 + k, now + FAR, clock);
	} else {
		near = twt_add(fd, 100 + k, DUE, 0, clock);
		far = twt_add(fd, 200 + k, FAR, 0, clock);
	}
	/* Before the step: both pending, nothing readable. */
	st = twt_query(fd, near);
	CHECK_EQ(st.state, TWHEEL_STATE_PENDING);
	far_before = twt_query(fd, far);
	CHECK_EQ(far_before.state, TWHEEL_STATE_PENDING);
	CHECK_NONE_QUEUED(fd);

	rt = twt_now(CLOCK_REALTIME);
	set_err = twt_set_realtime(rt + STEP);
	/*
	 * Nothing in between: the call under test is the first one; then
	 * the others, read last.
	 */
	for (j = 0; j <= NFIRST; j++) {
		enum first c = j ? (enum first)(j - 1) : first;

		if (j && c == first)
			continue;
		switch (c) {
		case FIRST_QUERY:
			do_query(fd, near, &s);
			break;
		case FIRST_INFO:
			do_info(fd, &s);
			break;
		case FIRST_POLL:
			do_poll(fd, &s);
			break;
		default:
			do_read(fd, &s);
			break;
		}
	}
	/* Back by as much: a step back, which must make nothing early. */
	back_err = set_err ? 0 : twt_set_realtime(twt_now(CLOCK_REALTIME) - STEP);

	CHECK_EQ(set_err, 0);
	CHECK_EQ(back_err, 0);
	if (wallstep_missed(&s, first, k)) {
		close(fd);
		return 1;
	}
	if (first == FIRST_QUERY || first == FIRST_INFO ||
	    first == FIRST_POLL) {
		/* The call before read already had the record queued. */
		CHECK_EQ(s.qret, 0);
		CHECK_EQ(s.st.id, near);
		CHECK_EQ(s.st.state, TWHEEL_STATE_QUEUED);
		CHECK_EQ(s.st.count, 1);
		CHECK_EQ(s.iret, 0);
		CHECK_EQ(s.info.timers, 2);
		CHECK_EQ(s.info.queued, 1);
		CHECK(s.revents & POLLIN);
	} else {
		/* read came first: it took the record; the rest see none. */
		CHECK_EQ(s.qret, -1);
		CHECK_EQ(s.qerr, ENOENT);
		CHECK_EQ(s.iret, 0);
		CHECK_EQ(s.info.timers, 1);
		CHECK_EQ(s.info.queued, 0);
		CHECK_EQ(s.revents, 0);
	}
	/* The read, first or last, returned exactly the near timer's record. */
	if (s.rret != TWT_EV_SIZE)
		twt_fail(__FILE__, __LINE__,
			 "%s first: read %zd (%s), want one record",
			 first_name[first], s.rret,
			 s.rret < 0 ? strerror(s.rerr) : "bytes");
	CHECK_EQ(s.ev[0].id, near);
	CHECK_EQ(s.ev[0].cookie, 100 + k);
	CHECK_EQ(s.ev[0].count, 1);
	CHECK_EQ(s.ev[0].clock, clock);
	CHECK_EQ(s.ev[0].flags, 0);
	/* Queued on the stepped clock, past the deadline. */
	CHECK(s.ev[0].time_ns >= now + DUE);

	/* After the step back: the far timer stays exactly as it was. */
	CHECK_NONE_QUEUED(fd);
	st = twt_query(fd, far);
	CHECK_EQ(st.state, TWHEEL_STATE_PENDING);
	CHECK_EQ(st.deadline_ns, far_before.deadline_ns);
	CHECK_EQ(st.cookie, 200 + k);
	CHECK(st.remaining_ns > FAR - 60 * TWT_S);
	CHECK_ERR(twt_query_raw(fd, near, NULL), ENOENT);
	CHECK_EQ(twt_poll(fd, 50), 0);
	CHECK_ERR(read(fd, &e, sizeof(e)), EAGAIN);
	CHECK_EQ(twt_timers(fd), 1);
	close(fd);
	return 0;
}

/* STEPS steps, the first call after each cycling through all four. */
static void wallstep(clockid_t clock, int abs)
{
	int k, missed[NFIRST] = { 0 }, total = 0;

	for (k = 0; k < STEPS; k++) {
		enum first first = (enum first)(k % NFIRST);

		missed[first] += wallstep_once(clock, abs, first, k);
	}
	for (k = 0; k < NFIRST; k++)
		total += missed[k];
	printf("# %s %s: %d steps; the first call missed the expiry: QUERY %d, INFO %d, poll %d, read %d times\n",
	       twt_clockname(clock), abs ? "absolute" : "relative", STEPS,
	       missed[FIRST_QUERY], missed[FIRST_INFO], missed[FIRST_POLL],
	       missed[FIRST_READ]);
	CHECK_EQ(total, 0);
}

/* (a) An absolute CLOCK_REALTIME timer. */
static void realtime_abs(void)
{
	wallstep(CLOCK_REALTIME, 1);
}

/* (b) An absolute CLOCK_TAI timer: TAI moves with CLOCK_REALTIME. */
static void tai_abs(void)
{
	wallstep(CLOCK_TAI, 1);
}

/* (c) A relative CLOCK_REALTIME timer: its deadline is a wall time too. */
static void realtime_rel(void)
{
	wallstep(CLOCK_REALTIME, 0);
}

/* (d) The same for a relative CLOCK_TAI timer. */
static void tai_rel(void)
{
	wallstep(CLOCK_TAI, 0);
}

/*
 * A step that does not reach the deadline queues nothing, whichever call
 * comes first; a monotonic timer ignores steps either way.
 */
static void step_short_of_deadline(void)
{
	int fd = twt_open(O_NONBLOCK);
	struct seen s;
	uint64_t rt, mono;
	int64_t now = twt_now(CLOCK_REALTIME), set_err, back_err;
	int k;

	rt = twt_add_abs(fd, 1, now + 2 * STEP, CLOCK_REALTIME);
	mono = twt_add(fd, 2, DUE, 0, CLOCK_MONOTONIC);
	for (k = 0; k < NFIRST; k++) {
		memset(&s, 0, sizeof(s));
		set_err = twt_set_realtime(twt_now(CLOCK_REALTIME) + STEP);
		do_query(fd, rt, &s);
		do_info(fd, &s);
		do_poll(fd, &s);
		do_read(fd, &s);
		back_err = set_err ? 0 :
			   twt_set_realtime(twt_now(CLOCK_REALTIME) - STEP);
		CHECK_EQ(set_err, 0);
		CHECK_EQ(back_err, 0);
		CHECK_EQ(s.qret, 0);
		CHECK_EQ(s.st.state, TWHEEL_STATE_PENDING);
		CHECK_EQ(s.iret, 0);
		CHECK_EQ(s.info.queued, 0);
		CHECK_EQ(s.revents, 0);
		CHECK_EQ(s.rret, -1);
		CHECK_EQ(s.rerr, EAGAIN);
	}
	CHECK_EQ(twt_query(fd, mono).state, TWHEEL_STATE_PENDING);
	CHECK_EQ(twt_timers(fd), 2);
	close(fd);
}

TWT_MAIN("wallstep",
	 TWT_CASE(realtime_abs),
	 TWT_CASE(tai_abs),
	 TWT_CASE(realtime_rel),
	 TWT_CASE(tai_rel),
	 TWT_CASE(step_short_of_deadline))
