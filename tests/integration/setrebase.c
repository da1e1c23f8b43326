// SPDX-License-Identifier: GPL-2.0
/*
 * setrebase: wall clock steps while the fd re-adds its timers. A step back
 * behind a CLOCK_REALTIME wheel takes every timer out of it and adds it
 * again, TWHEEL_CHUNK at a time; a set that lands meanwhile ends the
 * TWHEEL_CANCEL_ON_SET timers. Each timer must end exactly once (a
 * CANCEL that finds it, or one set-ended record), the wheel's count must
 * stay the number of pending timers, and a timer added afterwards must
 * still expire on time.
 *
 * The old code asked for pending sets before reading the clock, and its
 * set walk "removed from the wheel" timers still waiting to be re-added:
 * the wheel's count went off by the number of those (fdinfo kept a
 * realtime next expiry with no timer left), and the next timer added made
 * the wheel read empty: its hrtimer stopped and the record never came.
 * That needs a set to land in a window of a few instructions, which this
 * test, from user space, cannot force (it passed on the old code in the
 * runs tried): the KUnit case twheel_base_set_during_rebase builds that
 * state exactly. This one checks the outcome under real steps: exactly
 * once, and a wheel whose count agrees with its timers.
 *
 * Each episode: LIVE timers on the fd (half of them CANCEL_ON_SET); one
 * thread steps CLOCK_REALTIME back by STEP, waits a little (a different
 * time each episode), and steps it forward again, while the test thread
 * keeps the fd busy with SUBMITs of adds and cancels (the second set then
 * lands at some point of the first one's rebase or walk). Then every
 * timer is cancelled: each must end exactly once, INFO and fdinfo must
 * agree that nothing is left, and a timer added then must expire.
 */
#include <pthread.h>

#include "twtest.h"

#define LIVE		2048
#define BATCH		64
#define STEP		TWT_S
#define EPISODES	40
#define FAR		(30LL * 24 * 3600 * TWT_S)
/* Timers made in one episode, at most. */
#define MADE_MAX	(LIVE + 2000 * BATCH)

/* What became of each timer the test made (indexed by its cookie). */
enum fate { F_NONE, F_LIVE, F_CANCELLED, F_SET };

struct run {
	int fd;
	uint64_t id[MADE_MAX];
	unsigned char fate[MADE_MAX];
	uint32_t made, ended;		/* timers added; ended: oldest first */
	volatile int stepping;
	int step_err;
	int64_t gap;
	long long records;
};

/* Set CLOCK_REALTIME @d ns from where it is; 0 or an errno. */
static int step_by(int64_t d)
{
	return twt_set_realtime(twt_now(CLOCK_REALTIME) + d) ? errno : 0;
}

/* Back, a pause of r->gap ns, forward: the wall clock ends where it was. */
static void *stepper(void *arg)
{
	struct run *r = arg;

	r->step_err = step_by(-STEP);
	twt_sleep_ns(r->gap);
	if (!r->step_err)
		r->step_err = step_by(STEP);
	r->stepping = 0;
	return NULL;
}

/* Read what is queued: set-ended records of live CANCEL_ON_SET timers. */
static void drain(struct run *r)
{
	struct twheel_event ev[64];
	ssize_t n;
	int i;

	while ((n = read(r->fd, ev, sizeof(ev))) > 0) {
		for (i = 0; i < n / TWT_EV_SIZE; i++) {
			uint64_t c = ev[i].cookie;

			CHECK(c < r->made);
			CHECK_EQ(ev[i].id, r->id[c]);
			CHECK_EQ(ev[i].flags, TWHEEL_EVENT_CLOCK_SET);
			CHECK_EQ(c & 1, 1);	/* only CANCEL_ON_SET ones */
			CHECK_EQ(r->fate[c], F_LIVE);
			r->fate[c] = F_SET;
			r->records++;
		}
	}
	CHECK_EQ(n, -1);
	CHECK_EQ(errno, EAGAIN);
}

/* Add @nr timers, a month ahead; the odd cookies cancelled by a set. */
static void add_some(struct run *r, uint32_t nr)
{
	struct twheel_op ops[BATCH];
	int64_t at = twt_now(CLOCK_REALTIME) + FAR;
	uint32_t i;

	memset(ops, 0, sizeof(ops));
	for (i = 0; i < nr; i++) {
		ops[i].op = TWHEEL_OP_ADD;
		ops[i].clock = CLOCK_REALTIME;
		ops[i].cookie = r->made + i;
		ops[i].expires_ns = at;
		ops[i].flags = TWHEEL_ABSTIME |
			       ((r->made + i) & 1 ? TWHEEL_CANCEL_ON_SET : 0);
	}
	CHECK_EQ(twt_submit_raw(r->fd, ops, nr), (int)nr);
	for (i = 0; i < nr; i++) {
		CHECK_EQ(ops[i].error, 0);
		r->id[r->made] = ops[i].id;
		r->fate[r->made++] = F_LIVE;
	}
}

/*
 * Cancel the @nr oldest timers still to be ended. A CANCEL finds a timer
 * a set ended as long as its record is unread (and takes the record
 * back); after the record was read, it is ENOENT.
 */
static void cancel_some(struct run *r, uint32_t nr)
{
	struct twheel_op ops[BATCH];
	uint32_t i, c;

	memset(ops, 0, sizeof(ops));
	for (i = 0; i < nr; i++) {
		ops[i].op = TWHEEL_OP_CANCEL;
		ops[i].id = r->id[r->ended + i];
	}
	CHECK_EQ(twt_submit_raw(r->fd, ops, nr), (int)nr);
	for (i = 0; i < nr; i++) {
		c = r->ended + i;
		if (ops[i].error == 0) {
			CHECK_EQ(r->fate[c], F_LIVE);
			r->fate[c] = F_CANCELLED;
			continue;
		}
		/* Only once its set-ended record was read. */
		CHECK_EQ(ops[i].error, -ENOENT);
		CHECK_EQ(r->fate[c], F_SET);
	}
	r->ended += nr;
}

static void one_episode(struct run *r)
{
	pthread_t th;
	struct twheel_info info;
	long long v;
	uint32_t c;

	memset(r->fate, 0, sizeof(r->fate));
	r->made = r->ended = 0;
	r->fd = twt_open(O_NONBLOCK);
	while (r->made < LIVE)
		add_some(r, BATCH);
	r->stepping = 1;
	CHECK_EQ(pthread_create(&th, NULL, stepper, r), 0);
	while (r->stepping && r->made + BATCH <= MADE_MAX) {
		add_some(r, BATCH);
		cancel_some(r, BATCH);
		drain(r);
	}
	pthread_join(th, NULL);
	CHECK_EQ(r->step_err, 0);
	while (r->ended < r->made)
		cancel_some(r, r->made - r->ended < BATCH ?
			       r->made - r->ended : BATCH);
	drain(r);

	/* Every timer ended exactly once; nothing is left. */
	for (c = 0; c < r->made; c++)
		CHECK(r->fate[c] == F_CANCELLED ||
		      (r->fate[c] == F_SET && (c & 1)));
	info = twt_info(r->fd);
	CHECK_EQ(info.timers, 0);
	CHECK_EQ(info.queued, 0);
	CHECK_EQ(twt_fdinfo(r->fd, "timers", &v), 0);
	CHECK_EQ(v, 0);
	CHECK_EQ(twt_fdinfo(r->fd, "pending", &v), 0);
	CHECK_EQ(v, 0);
	/* An empty wheel has no next expiry. */
	CHECK_EQ(twt_fdinfo(r->fd, "next_expiry_realtime_ns", &v), -1);

	/* A new timer still expires: the wheel knows it holds it. */
	r->id[0] = twt_add(r->fd, 7, 100 * TWT_MS, 0, CLOCK_REALTIME);
	CHECK_EQ(twt_fdinfo(r->fd, "next_expiry_realtime_ns", &v), 0);
	{
		struct twheel_event ev;

		twt_read_n(r->fd, &ev, 1, 5000);
		CHECK_EQ(ev.id, r->id[0]);
		CHECK_EQ(ev.cookie, 7);
		CHECK_EQ(ev.flags, 0);
	}
	CHECK_EQ(twt_timers(r->fd), 0);
	close(r->fd);
}

static void steps_during_rebase(void)
{
	struct run *r = calloc(1, sizeof(*r));
	long long sets = 0;
	int k;

	CHECK(r);
	for (k = 0; k < EPISODES; k++) {
		/* 0 to 3.9 ms between the two steps. */
		r->gap = (k % 40) * 100 * TWT_US;
		one_episode(r);
		sets += r->records;
		r->records = 0;
	}
	printf("# %d episodes of two steps: %lld set-ended records\n",
	       EPISODES, sets);
	/* A step ends the CANCEL_ON_SET timers not yet cancelled. */
	CHECK(sets >= EPISODES);
	free(r);
}

TWT_MAIN("setrebase",
	 TWT_CASE_T(steps_during_rebase, 600))
