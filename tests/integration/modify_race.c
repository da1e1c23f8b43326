// SPDX-License-Identifier: GPL-2.0
/*
 * modify_race: TWHEEL_IOC_MODIFY racing expiry on the real clock (the
 * exact cases are in modify.c): every expiry is read once or retracted
 * once.
 */
#include <pthread.h>
#include <stdatomic.h>

#include "twtest.h"

/* MODIFY to an absolute deadline with a new cookie; the result or -1. */
static int modify_cookie_abs(int fd, uint64_t id, uint64_t cookie,
			     int64_t expires)
{
	uint32_t res = 0;

	if (twt_modify_raw(fd, id, cookie, expires, 0,
			   TWHEEL_ABSTIME | TWHEEL_SET_COOKIE, &res))
		return -1;
	return (int)res;
}

#define RACE_TIMERS	3000
#define RACE_SLOTS	16
#define RACE_ARMS	8

struct modify_race_timer {
	uint64_t id;
	int arms;			/* arms made: add, then modifies */
	int64_t deadline[RACE_ARMS];
	int64_t ended_at[RACE_ARMS];	/* clock after the op that ended it */
	int result[RACE_ARMS + 1];	/* of op j (1..): 1, 2 or -ENOENT */
	int ops;			/* ops after the add */
};

struct modify_race_rec {
	uint64_t cookie;
	int64_t time_ns;
	int64_t read_at;
};

static struct modify_race_timer race_t[RACE_TIMERS];
static struct modify_race_rec race_r[RACE_TIMERS + 1];
static atomic_int race_nr;
static atomic_int race_done;

static void *modify_race_reader(void *arg)
{
	int fd = *(int *)arg;
	struct twheel_event ev[64];

	for (;;) {
		int pr = twt_poll(fd, 20);
		int64_t now;
		ssize_t r;
		int i;

		if (pr == 0) {
			if (atomic_load(&race_done))
				break;
			continue;
		}
		r = read(fd, ev, sizeof(ev));
		now = twt_mono();
		if (r < 0 && errno == EAGAIN)
			continue;
		if (r <= 0 || r % TWT_EV_SIZE)
			twt_fail(__FILE__, __LINE__, "read: %zd", r);
		for (i = 0; i < r / TWT_EV_SIZE; i++) {
			int k = atomic_load(&race_nr);

			if (k > RACE_TIMERS)
				twt_fail(__FILE__, __LINE__, "too many records");
			race_r[k].cookie = ev[i].cookie;
			race_r[k].time_ns = ev[i].time_ns;
			race_r[k].read_at = now;
			atomic_store(&race_nr, k + 1);
		}
	}
	return NULL;
}

static int64_t modify_race_deadline(uint64_t *seed)
{
	/* From 0.5 ms in the past to 2.5 ms ahead. */
	return twt_mono() - 500 * TWT_US +
	       (int64_t)(twt_rand(seed) % (3 * TWT_MS));
}

static void modify_race_expiry(void)
{
	int fd = twt_open(O_NONBLOCK);
	int slot[RACE_SLOTS];
	uint64_t seed = 0x4ACE;
	int next = 0, active = 0, i, k;
	int reads = 0, queued = 0, pending = 0, enoent = 0, arms = 0;
	int64_t t0 = twt_mono();
	pthread_t rd;

	atomic_store(&race_nr, 0);
	atomic_store(&race_done, 0);
	CHECK_OK(pthread_create(&rd, NULL, modify_race_reader, &fd));
	for (i = 0; i < RACE_SLOTS; i++)
		slot[i] = -1;
	while (next < RACE_TIMERS || active) {
		int s = (int)(twt_rand(&seed) % RACE_SLOTS);
		struct modify_race_timer *t;
		int64_t dl;
		int res, op, cancel;

		if (slot[s] < 0) {
			if (next == RACE_TIMERS)
				continue;
			t = &race_t[next];
			t->deadline[0] = modify_race_deadline(&seed);
			t->id = twt_add(fd, (uint64_t)next << 8, t->deadline[0],
					TWHEEL_ABSTIME, CLOCK_MONOTONIC);
			t->arms = 1;
			slot[s] = next++;
			active++;
			continue;
		}
		t = &race_t[slot[s]];
		op = ++t->ops;		/* op j ends arm j - 1 */
		cancel = t->arms == RACE_ARMS || twt_rand(&seed) % 4 == 0;
		if (!cancel) {
			/* Modify: a new arm, with its own cookie. */
			dl = modify_race_deadline(&seed);
			res = modify_cookie_abs(fd, t->id,
						((uint64_t)slot[s] << 8) |
						t->arms, dl);
			t->ended_at[t->arms - 1] = twt_mono();
			if (res > 0)
				t->deadline[t->arms++] = dl;
		} else {
			uint32_t r32 = 0;

			res = twt_cancel_raw(fd, t->id, 0, &r32) ? -1 : (int)r32;
			t->ended_at[t->arms - 1] = twt_mono();
		}
		if (res < 0) {
			if (errno != ENOENT)
				twt_fail(__FILE__, __LINE__, "timer %d op %d: %s",
					 slot[s], op, strerror(errno));
			res = -ENOENT;
		}
		t->result[op] = res;
		/* Gone: its record was read (ENOENT), or cancelled. */
		if (res == -ENOENT || cancel) {
			slot[s] = -1;
			active--;
		}
		if (twt_rand(&seed) % 8 == 0)
			twt_sleep_ns((int64_t)(twt_rand(&seed) % (400 * TWT_US)));
	}
	atomic_store(&race_done, 1);
	CHECK_OK(pthread_join(rd, NULL));
	/* Every timer ended: no timer, no record left. */
	CHECK_EQ(twt_timers(fd), 0);
	CHECK_EQ(twt_queued(fd), 0);

	/* Each record: the arm it reports, never retracted, never early. */
	{
		static int nread[RACE_TIMERS];
		static int read_arm[RACE_TIMERS];
		int n = atomic_load(&race_nr);

		for (k = 0; k < n; k++) {
			int ti = (int)(race_r[k].cookie >> 8);
			int arm = (int)(race_r[k].cookie & 0xFF);

			CHECK(ti < RACE_TIMERS && arm < race_t[ti].arms);
			nread[ti]++;
			read_arm[ti] = arm;
			CHECK(race_r[k].time_ns >= race_t[ti].deadline[arm]);
			CHECK(race_r[k].read_at >= race_t[ti].deadline[arm]);
			reads++;
		}
		for (i = 0; i < RACE_TIMERS; i++) {
			struct modify_race_timer *t = &race_t[i];
			int j, first_enoent = 0;

			CHECK(nread[i] <= 1);
			for (j = 1; j <= t->ops; j++) {
				if (t->result[j] == -ENOENT) {
					/* Only the last op can find it gone. */
					CHECK_EQ(j, t->ops);
					first_enoent = j;
				} else if (t->result[j] == TWHEEL_STATE_QUEUED) {
					/* Retracted: expired, not early. */
					CHECK(t->ended_at[j - 1] >=
					      t->deadline[j - 1]);
					queued++;
				} else {
					CHECK_EQ(t->result[j],
						 TWHEEL_STATE_PENDING);
					pending++;
				}
			}
			arms += t->arms;
			if (first_enoent) {
				/* Read exactly once: the arm the op met. */
				enoent++;
				if (nread[i] != 1 ||
				    read_arm[i] != first_enoent - 1)
					twt_fail(__FILE__, __LINE__,
						 "timer %d: ENOENT at op %d, %d "
						 "records (arm %d)", i,
						 first_enoent, nread[i],
						 read_arm[i]);
			} else {
				/* Cancelled at the end: never read. */
				if (nread[i] != 0)
					twt_fail(__FILE__, __LINE__,
						 "timer %d: read and retracted",
						 i);
			}
		}
	}
	/* Every arm ended exactly once: read, retracted, or still pending. */
	CHECK_EQ(reads + queued + pending, arms);
	printf("# %d timers, %d arms in %.1f ms: expiries %d = %d read + %d "
	       "retracted (QUEUED); %d ended pending\n", RACE_TIMERS, arms,
	       (twt_mono() - t0) / 1e6, reads + queued, reads, queued,
	       pending);
	close(fd);
}

TWT_MAIN("modify_race",
	 TWT_CASE_T(modify_race_expiry, 180))
