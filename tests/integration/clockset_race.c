// SPDX-License-Identifier: GPL-2.0
/*
 * clockset_race: TWHEEL_CANCEL_ON_SET timers added while the wall clock
 * is set (uapi/linux/twheel.h, TWHEEL_CONFIG_CLOCK_SET). The case sets
 * the clock itself (adjtimex(ADJ_SETOFFSET), 1 s forward and back, an
 * even number of times: it ends where it began). Single sets:
 * clockset.c, clockset_cos.c; the helpers: clockset.h.
 *
 * - race_adds_and_sets: a thread adds flagged timers and another reads
 *   while the main thread sets the clock 200 times: every timer ends with
 *   exactly one set record or stays pending; one added before a set began
 *   has ended, one added after the last set is pending; the set records'
 *   counts add up to the sets.
 */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <sys/timex.h>

#include "clockset.h"

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

TWT_MAIN("clockset_race",
	 TWT_CASE_T(race_adds_and_sets, 120))
