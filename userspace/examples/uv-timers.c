// SPDX-License-Identifier: GPL-2.0
/*
 * twheel-uv-timers - a /dev/twheel fd driven from a libuv event loop.
 *
 * The fd is watched with a uv_poll_t; its callback reads expiry records
 * until the fd is empty. 1000 timers are scheduled on the one fd:
 *
 *   600 one-shot, due 20 ms to 2 s from the start, half of them with an
 *       absolute deadline, half relative (their exact deadline, rounded
 *       to the tick, is then learnt with TWHEEL_IOC_QUERY);
 *   200 one-shot, due 2.5 to 3.5 s, all cancelled at 300 ms in one
 *       TWHEEL_IOC_SUBMIT batch;
 *   200 periodic, periods 50 to 300 ms, stopped (cancelled) at 2.5 s.
 *
 * The program checks its own outcome, with CLOCK_MONOTONIC: each one-shot
 * fired exactly once and never early (the record's time and the time it
 * was read are both at or after the deadline); no cancelled timer ever
 * fired; each periodic timer's record counts add up to the deadlines due
 * by the time it was stopped (at least those due when the last drain
 * began, less one period; at most those due when it ended). It prints a
 * summary and exits 1 on any violation. Lateness is printed, not
 * asserted: a slow machine makes timers late, never early.
 *
 * Usage: twheel-uv-timers [--seed N]
 */
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <uv.h>

#include "libtwheel.h"

#define N_TIMERS	1000
#define ONESHOT_MIN_MS	20
#define ONESHOT_MAX_MS	2000
#define CANCEL_AT_MS	300
#define CANCEL_MIN_MS	2500
#define CANCEL_MAX_MS	3500
#define PERIOD_MIN_MS	50
#define PERIOD_MAX_MS	300
#define PERIODIC_END_MS	2500
/* Watch for a while after the last cancelled deadline: nothing may come. */
#define QUIET_UNTIL_MS	(CANCEL_MAX_MS + 300)
#define GIVE_UP_MS	60000

enum kind { ONESHOT, CANCELLED, PERIODIC };

struct timer {
	enum kind kind;
	uint64_t id;
	int64_t deadline;	/* one-shot: the deadline; periodic: first */
	int64_t period;
	uint64_t expiries;	/* counted in the records read */
	bool stopped;		/* a cancel succeeded: no record after it */
	bool too_late;		/* the cancel came after its record was read */
};

static struct timer timers[N_TIMERS];
static int tw;
static int64_t t0, tick;
static uv_poll_t poll_h;
static uv_timer_t cancel_h, stop_h, finish_h;

static struct {
	uint64_t records, callbacks, reads;
	uint64_t early, twice, unknown, after_cancel, bad_count;
	uint64_t cancel_pending, cancel_queued, cancel_late, cancel_err;
	uint64_t periodic_expiries, periodic_lo, periodic_hi, periodic_off;
	uint64_t stop_queued;
	uint64_t bad_deadline;
	int64_t late[N_TIMERS];
	size_t nlate;
	bool gave_up;
} st;

static int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * TWHEEL_SEC + ts.tv_nsec;
}

static uint64_t rnd_state = 0x9e3779b97f4a7c15ULL;

static uint64_t rnd(void)
{
	uint64_t x = rnd_state;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	rnd_state = x;
	return x * 0x2545F4914F6CDD1DULL;
}

static int64_t rnd_ms(int64_t lo, int64_t hi)
{
	return (lo + (int64_t)(rnd() % (uint64_t)(hi - lo + 1))) * TWHEEL_MSEC;
}

/* Deadlines of periodic timer @t that have passed at time @at. */
static uint64_t due_by(const struct timer *t, int64_t at)
{
	if (at < t->deadline)
		return 0;
	return (uint64_t)((at - t->deadline) / t->period) + 1;
}

static void on_record(const struct twheel_event *ev, int64_t read_ns)
{
	struct timer *t;
	uint64_t before;

	st.records++;
	if (ev->cookie >= N_TIMERS || timers[ev->cookie].id != ev->id) {
		st.unknown++;
		printf("error: record of unknown timer %llu (cookie %llu)\n",
		       (unsigned long long)ev->id,
		       (unsigned long long)ev->cookie);
		return;
	}
	t = &timers[ev->cookie];
	if (t->stopped) {
		st.after_cancel++;
		printf("error: timer %llu fired after it was cancelled\n",
		       (unsigned long long)ev->id);
		return;
	}
	if (ev->count < 1 || (t->kind != PERIODIC && ev->count != 1)) {
		st.bad_count++;
		printf("error: timer %llu: record count %llu\n",
		       (unsigned long long)ev->id,
		       (unsigned long long)ev->count);
	}
	before = t->expiries;
	t->expiries += ev->count;
	if (t->kind != PERIODIC) {
		if (before) {
			st.twice++;
			printf("error: one-shot timer %llu fired again\n",
			       (unsigned long long)ev->id);
		}
		if (ev->time_ns < t->deadline || read_ns < t->deadline) {
			st.early++;
			printf("error: timer %llu early: queued %+.3f ms, read %+.3f ms from its deadline\n",
			       (unsigned long long)ev->id,
			       (ev->time_ns - t->deadline) / 1e6,
			       (read_ns - t->deadline) / 1e6);
		}
		if (st.nlate < N_TIMERS)
			st.late[st.nlate++] = read_ns - t->deadline;
		return;
	}
	/*
	 * Periodic: the record was queued at the first deadline not yet
	 * counted, and the last deadline it counts had passed when read.
	 */
	if (ev->time_ns < t->deadline + (int64_t)before * t->period ||
	    read_ns < t->deadline + (int64_t)(t->expiries - 1) * t->period) {
		st.early++;
		printf("error: periodic timer %llu early: record of expiries %llu..%llu queued at %+.3f ms, read at %+.3f ms from the start\n",
		       (unsigned long long)ev->id,
		       (unsigned long long)before + 1,
		       (unsigned long long)t->expiries,
		       (ev->time_ns - t0) / 1e6, (read_ns - t0) / 1e6);
	}
}

/* Read every queued record. */
static void drain(void)
{
	struct twheel_event ev[128];

	for (;;) {
		ssize_t n = twheel_read(tw, ev, 128);
		int64_t read_ns = now_ns();

		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN)
				return;
			err(1, "read /dev/twheel");
		}
		st.reads++;
		for (ssize_t i = 0; i < n; i++)
			on_record(&ev[i], read_ns);
	}
}

static void on_readable(uv_poll_t *h, int status, int events)
{
	(void)h;
	(void)events;
	if (status < 0)
		errx(1, "uv_poll: %s", uv_strerror(status));
	st.callbacks++;
	drain();
}

/* Cancel every timer of @kind in one TWHEEL_IOC_SUBMIT batch. */
static void cancel_all(enum kind kind)
{
	struct twheel_op ops[N_TIMERS];
	unsigned int idx[N_TIMERS], n = 0, i;
	int done;

	for (i = 0; i < N_TIMERS; i++) {
		if (timers[i].kind != kind)
			continue;
		memset(&ops[n], 0, sizeof(ops[n]));
		ops[n].op = TWHEEL_OP_CANCEL;
		ops[n].id = timers[i].id;
		idx[n++] = i;
	}
	done = twheel_submit(tw, ops, n);
	if (done != (int)n)
		err(1, "TWHEEL_IOC_SUBMIT: %d of %u done", done, n);
	for (i = 0; i < n; i++) {
		struct timer *t = &timers[idx[i]];

		if (ops[i].id != t->id)
			errx(1, "TWHEEL_IOC_SUBMIT changed an id");
		if (ops[i].error == 0) {
			t->stopped = true;
			if (kind == PERIODIC) {
				st.stop_queued +=
					ops[i].result == TWHEEL_STATE_QUEUED;
				continue;
			}
			if (ops[i].result == TWHEEL_STATE_QUEUED)
				st.cancel_queued++;
			else
				st.cancel_pending++;
		} else if (ops[i].error == -ENOENT && kind == CANCELLED &&
			   t->expiries == 1) {
			/* Fired and read before: a slow machine, not a bug. */
			t->too_late = true;
			st.cancel_late++;
		} else {
			st.cancel_err++;
			printf("error: cancel of timer %llu: %s\n",
			       (unsigned long long)t->id,
			       strerror(-ops[i].error));
		}
	}
}

static void on_cancel_time(uv_timer_t *h)
{
	(void)h;
	drain();	/* records already queued are not retracted: read them */
	cancel_all(CANCELLED);
}

/*
 * Stop the periodic timers. Every deadline that passed before the drain
 * began has been counted (or was within one tick, at most one period);
 * none after it ended can have been.
 */
static void on_stop_time(uv_timer_t *h)
{
	int64_t e0, e1;

	(void)h;
	e0 = now_ns();
	drain();
	e1 = now_ns();
	for (unsigned int i = 0; i < N_TIMERS; i++) {
		struct timer *t = &timers[i];
		uint64_t lo, hi;

		if (t->kind != PERIODIC)
			continue;
		lo = due_by(t, e0);
		lo = lo ? lo - 1 : 0;
		hi = due_by(t, e1);
		st.periodic_expiries += t->expiries;
		st.periodic_lo += lo;
		st.periodic_hi += hi;
		if (t->expiries < lo || t->expiries > hi) {
			st.periodic_off++;
			printf("error: periodic timer %llu (period %lld ms): %llu expiries, due %llu..%llu\n",
			       (unsigned long long)t->id,
			       (long long)(t->period / TWHEEL_MSEC),
			       (unsigned long long)t->expiries,
			       (unsigned long long)lo, (unsigned long long)hi);
		}
	}
	cancel_all(PERIODIC);
}

static bool all_fired(void)
{
	for (unsigned int i = 0; i < N_TIMERS; i++)
		if (timers[i].kind == ONESHOT && !timers[i].expiries)
			return false;
	return true;
}

static void on_close(uv_handle_t *h)
{
	(void)h;
}

static void on_finish_check(uv_timer_t *h)
{
	(void)h;
	drain();
	if (!all_fired() && now_ns() - t0 < GIVE_UP_MS * TWHEEL_MSEC)
		return;
	st.gave_up = !all_fired();
	uv_poll_stop(&poll_h);
	uv_close((uv_handle_t *)&poll_h, on_close);
	uv_close((uv_handle_t *)&cancel_h, on_close);
	uv_close((uv_handle_t *)&stop_h, on_close);
	uv_close((uv_handle_t *)&finish_h, on_close);
}

static void add_timers(void)
{
	struct twheel_info info;
	int64_t base;

	if (twheel_info(tw, &info) < 0)
		err(1, "TWHEEL_IOC_INFO");
	tick = (int64_t)info.tick_ns;
	t0 = now_ns();
	/* Periodic grids start on a tick: their deadlines are exact. */
	base = (t0 / tick + 1) * tick;
	for (unsigned int i = 0; i < N_TIMERS; i++) {
		struct timer *t = &timers[i];
		struct twheel_add a = {
			.cookie = i,
			.clock = CLOCK_MONOTONIC,
			.flags = TWHEEL_ABSTIME,
		};
		int64_t before = 0, rel = 0;

		t->kind = i % 5 < 3 ? ONESHOT : i % 5 == 3 ? CANCELLED :
			  PERIODIC;
		switch (t->kind) {
		case ONESHOT:
			rel = rnd_ms(ONESHOT_MIN_MS, ONESHOT_MAX_MS) +
			      (int64_t)(rnd() % TWHEEL_MSEC);
			if (i % 2) {
				/* Relative: from the moment of the ioctl. */
				a.flags = 0;
				a.expires_ns = rel;
				before = now_ns();
			} else {
				a.expires_ns = t0 + rel;
			}
			break;
		case CANCELLED:
			a.expires_ns = t0 + rnd_ms(CANCEL_MIN_MS, CANCEL_MAX_MS);
			break;
		case PERIODIC:
			t->period = rnd_ms(PERIOD_MIN_MS, PERIOD_MAX_MS);
			a.period_ns = t->period;
			a.expires_ns = base + t->period;
			break;
		}
		if (twheel_add(tw, &a) < 0)
			err(1, "TWHEEL_IOC_ADD");
		t->id = a.id;
		t->deadline = a.expires_ns;
		if (a.flags & TWHEEL_ABSTIME)
			continue;
		/*
		 * The deadline is the ioctl's moment plus @rel, rounded up to
		 * the tick by less than a tick; QUERY tells it exactly.
		 */
		int64_t after = now_ns();
		struct twheel_status s;

		if (twheel_query(tw, t->id, &s) < 0)
			err(1, "TWHEEL_IOC_QUERY");
		if (s.state != TWHEEL_STATE_PENDING ||
		    s.deadline_ns < before + rel ||
		    s.deadline_ns >= after + rel + tick) {
			st.bad_deadline++;
			printf("error: timer %llu due in %lld ns: deadline %+lld ns from the add, state %u\n",
			       (unsigned long long)t->id, (long long)rel,
			       (long long)(s.deadline_ns - before), s.state);
		}
		t->deadline = s.deadline_ns;
	}
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "seed", required_argument, NULL, 's' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	unsigned int n_one = 0, once = 0, missing = 0, n_cancel = 0, n_per = 0;
	uv_loop_t *loop = uv_default_loop();
	bool bad;
	int o, r;

	setvbuf(stdout, NULL, _IOLBF, 0);
	while ((o = getopt_long(argc, argv, "s:h", opts, NULL)) != -1) {
		switch (o) {
		case 's':
			rnd_state = strtoull(optarg, NULL, 0) | 1;
			break;
		default:
			fprintf(o == 'h' ? stdout : stderr,
				"usage: twheel-uv-timers [--seed N]\n");
			return o == 'h' ? 0 : 2;
		}
	}
	tw = twheel_open(O_NONBLOCK | O_CLOEXEC);
	if (tw < 0)
		err(1, "/dev/twheel (is the module loaded?)");
	add_timers();

	r = uv_poll_init(loop, &poll_h, tw);
	if (!r)
		r = uv_poll_start(&poll_h, UV_READABLE, on_readable);
	if (!r)
		r = uv_timer_init(loop, &cancel_h);
	if (!r)
		r = uv_timer_init(loop, &stop_h);
	if (!r)
		r = uv_timer_init(loop, &finish_h);
	if (r)
		errx(1, "libuv: %s", uv_strerror(r));
	/* libuv's timers count from the loop's cached start time. */
	uv_update_time(loop);
	int64_t off = (now_ns() - t0) / TWHEEL_MSEC;

	uv_timer_start(&cancel_h, on_cancel_time,
		       off < CANCEL_AT_MS ? CANCEL_AT_MS - off : 0, 0);
	uv_timer_start(&stop_h, on_stop_time,
		       off < PERIODIC_END_MS ? PERIODIC_END_MS - off : 0, 0);
	uv_timer_start(&finish_h, on_finish_check,
		       off < QUIET_UNTIL_MS ? QUIET_UNTIL_MS - off : 0, 100);
	uv_run(loop, UV_RUN_DEFAULT);
	if (uv_loop_close(loop))
		errx(1, "uv_loop_close: handles left");

	for (unsigned int i = 0; i < N_TIMERS; i++) {
		struct timer *t = &timers[i];

		if (t->kind == ONESHOT) {
			n_one++;
			once += t->expiries == 1;
			missing += t->expiries == 0;
		} else if (t->kind == CANCELLED) {
			n_cancel++;
		} else {
			n_per++;
		}
	}
	printf("uv-timers: %d timers on one /dev/twheel fd (tick %lld us), driven by libuv %s through a uv_poll_t\n",
	       N_TIMERS, (long long)(tick / TWHEEL_USEC), uv_version_string());
	printf("one_shot=%u fired_once=%u missing=%u twice=%llu early=%llu\n",
	       n_one, once, missing, (unsigned long long)st.twice,
	       (unsigned long long)st.early);
	printf("cancelled=%u (at %d ms in one batch: pending %llu, record retracted %llu, too late %llu) fired_after_cancel=%llu\n",
	       n_cancel, CANCEL_AT_MS, (unsigned long long)st.cancel_pending,
	       (unsigned long long)st.cancel_queued,
	       (unsigned long long)st.cancel_late,
	       (unsigned long long)st.after_cancel);
	printf("periodic=%u expiries=%llu due=%llu..%llu off=%llu (stopped at %d ms)\n",
	       n_per, (unsigned long long)st.periodic_expiries,
	       (unsigned long long)st.periodic_lo,
	       (unsigned long long)st.periodic_hi,
	       (unsigned long long)st.periodic_off, PERIODIC_END_MS);
	printf("records=%llu reads=%llu poll_callbacks=%llu\n",
	       (unsigned long long)st.records, (unsigned long long)st.reads,
	       (unsigned long long)st.callbacks);
	if (st.nlate) {
		qsort(st.late, st.nlate, sizeof(st.late[0]), cmp_i64);
		printf("one-shot lateness (read minus deadline, not asserted): p50 %.3f ms, p99 %.3f ms, max %.3f ms\n",
		       st.late[st.nlate / 2] / 1e6,
		       st.late[st.nlate * 99 / 100] / 1e6,
		       st.late[st.nlate - 1] / 1e6);
	}
	bad = missing || once != n_one || st.twice || st.early ||
	      st.unknown || st.after_cancel || st.bad_count ||
	      st.cancel_err || st.periodic_off || st.bad_deadline ||
	      st.gave_up ||
	      st.cancel_pending + st.cancel_queued + st.cancel_late != n_cancel;
	printf("result: %s\n", bad ? "FAILED" : "passed");
	return bad ? 1 : 0;
}
