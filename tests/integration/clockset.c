// SPDX-License-Identifier: GPL-2.0
/*
 * clockset: an fd's records of wall clock sets (uapi/linux/twheel.h,
 * TWHEEL_CONFIG_CLOCK_SET, TWHEEL_EVENT_CLOCK_SET) and the waiters a set
 * wakes. How a case sets the clock, five ways, and puts it back:
 * clockset.h. TWHEEL_CANCEL_ON_SET timers: clockset_cos.c; adds racing
 * sets: clockset_race.c.
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
 */
#include <pthread.h>
#include <stdatomic.h>
#include <sys/epoll.h>
#include <sys/syscall.h>

#include "clockset.h"

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

TWT_MAIN("clockset",
	 TWT_CASE(features_reported),
	 TWT_CASE(record_per_set),
	 TWT_CASE(sets_counted_in_one_record),
	 TWT_CASE(blocked_waiters_woken),
	 TWT_CASE(set_before_config_not_reported),
	 TWT_CASE(reconfig_drops_unseen_set),
	 TWT_CASE(reconfig_drops_queued_record),
	 TWT_CASE(config_without_flag_stops),
	 TWT_CASE(manual_fd_no_sets))
