// SPDX-License-Identifier: GPL-2.0
/*
 * suspend: timers through a real suspend to RAM of the test VM (ACPI S3,
 * which tests/vm/run.sh lets QEMU offer; the guest is woken by the CMOS
 * RTC's alarm), and the alarm clocks CLOCK_REALTIME_ALARM and
 * CLOCK_BOOTTIME_ALARM (uapi/linux/twheel.h, "Clocks"):
 *
 * - the harness itself: a timerfd on CLOCK_BOOTTIME_ALARM wakes the
 *   system from a suspend and expires exactly once, never early;
 * - twheel's alarm timers (TWHEEL_FEATURE_ALARM): one on each alarm clock
 *   wakes the system from a suspend, its record is queued after the resume,
 *   once, never before its deadline; a plain CLOCK_BOOTTIME timer due
 *   during the suspend fires after the resume, never early;
 * - an alarm timer in an fd nobody uses (no poll, no read: its task may
 *   as well be frozen) still wakes the system: after the wheel cascaded
 *   it to a finer level, and after another alarm timer of the fd expired
 *   unread;
 * - an alarm base whose callback cannot finish (160 timers due at once,
 *   more than the 128 entries it moves, nobody reading) comes again 1 s
 *   later for as long as nobody reads: every suspend tried meanwhile,
 *   also seconds after the deadline, is refused (EBUSY, an alarm less
 *   than 2 s away); once the records are read, the next suspend goes
 *   through and an alarm timer resumes it;
 * - a resume is a wall clock set (TWHEEL_CANCEL_ON_SET): an fd configured
 *   with TWHEEL_CONFIG_CLOCK_SET gets the set's record after a real
 *   suspend, and pending absolute CLOCK_REALTIME and CLOCK_REALTIME_ALARM
 *   timers with TWHEEL_CANCEL_ON_SET end with their set records, while
 *   the same timers without the flag stay.
 *
 * Who may use the alarm clocks (CAP_WAKE_ALARM), without a suspend:
 * tests/integration/alarm_caps.c.
 *
 * A case suspends by writing "mem" to /sys/power/state, which returns
 * after the resume (not on a PREEMPT_RT guest: see suspend_now_at()). A backstop RTC wake alarm (/sys/class/rtc/rtc0/
 * wakealarm, BACKSTOP_S ahead) wakes the guest if nothing else does; a
 * resume that comes that late fails the case: the alarm did not wake the
 * system. That the system really slept is shown by
 * /sys/power/suspend_stats/success and by CLOCK_BOOTTIME - CLOCK_MONOTONIC,
 * which grows by the time suspended; "#" lines report both.
 */
#include <pthread.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>

#include "twtest.h"

#define POWER_STATE	"/sys/power/state"
#define SUSPEND_OK	"/sys/power/suspend_stats/success"
#define WAKEALARM	"/sys/class/rtc/rtc0/wakealarm"

/*
 * The alarms are ALARM_S to ALARM_S + 4.1 s ahead, at a deadline where
 * the fd's wheel arms its alarm for the deadline itself (alarm_deadline()):
 * the kernel's alarmtimer refuses to suspend (EBUSY) with an alarm less
 * than 2 s away, which an earlier cascade point of the wheel would be at
 * times, and entering the suspend takes a while on the debug kernel. The
 * backstop wakes the guest BACKSTOP_S after the suspend began. Whoever
 * woke it is told by the time the guest slept (the growth of boottime -
 * monotonic), not by when the write to /sys/power/state returned: a
 * loaded debug guest can take half a minute of monotonic time to suspend
 * and resume its devices. A suspend that
 * succeeds began at least 2 s before the alarm, so the alarm's wake-up
 * sleeps less than ALARM_S + 4.1 s and the backstop's more than
 * BACKSTOP_S - ALARM_S - 4.1 s; LATE_S lies between them.
 */
#define ALARM_S		8
#define BACKSTOP_S	60
#define LATE_S		40

/*
 * alarm_deadline(clock, min_ns): an absolute deadline on @clock (the fd's
 * default 1 ms tick) at least @min_ns ahead and at most 4.1 s more, at
 * which the wheel first moves the timer (twt_wheel_point()): its alarm is
 * armed for the deadline itself, never for an earlier cascade point that
 * a suspend begun now would meet within its 2 s, the kernel's refusal
 * (uapi/linux/twheel.h, "Clocks"). A deadline 4096-tick aligned is
 * that point at level 2; when a coarser boundary lies before it, that
 * boundary is (or, when it is too near, is waited out first).
 */
static int64_t alarm_deadline(clockid_t clock, int64_t min_ns)
{
	int64_t c, lo, p;

	for (;;) {
		c = twt_now(clock) / TWT_MS;
		lo = c + min_ns / TWT_MS + 1;
		p = twt_wheel_point(c, (lo + 4095) & ~(int64_t)4095);
		if (p >= lo)
			return p * TWT_MS;
		twt_sleep_ns((p + 1) * TWT_MS - twt_now(clock));
	}
}

/*
 * alarm_quiet(clock, d_ns, quiet_ns): return when the wheel's first point
 * for a deadline @d_ns on @clock (1 ms tick) is at least @quiet_ns ahead,
 * or is the deadline itself; meanwhile wait out the points nearer.
 */
static void alarm_quiet(clockid_t clock, int64_t d_ns, int64_t quiet_ns)
{
	int64_t c, d = d_ns / TWT_MS, p;

	for (;;) {
		c = twt_now(clock) / TWT_MS;
		p = twt_wheel_point(c, d);
		if (p == d || p >= c + quiet_ns / TWT_MS)
			return;
		twt_sleep_ns((p + 1) * TWT_MS - twt_now(clock));
	}
}

/* What one suspend did, measured around the write to /sys/power/state. */
struct slept {
	int64_t boot0, boot1;		/* CLOCK_BOOTTIME before, after */
	int64_t mono0, mono1;		/* CLOCK_MONOTONIC before, after */
	int64_t slept_ns;		/* growth of boottime - monotonic */
};

/*
 * need_suspend(): skip the case on a PREEMPT_RT guest, fail it when the
 * kernel offers no suspend to RAM.
 */
#define need_suspend()	need_suspend_at(__FILE__, __LINE__)
static void need_suspend_at(const char *file, int line)
{
	char state[128] = "";
	FILE *f;
	int c;

	/*
	 * Debian's PREEMPT_RT guest resumes, but its serial port's interrupt
	 * then storms ("irq 3: nobody cared") and is disabled, which stops
	 * the VM's results: the suspends run on the stock and debug kernels.
	 */
	f = fopen("/sys/kernel/realtime", "r");
	if (f) {
		c = fgetc(f);
		fclose(f);
		if (c == '1')
			twt_skip("PREEMPT_RT guest: its serial IRQ does not survive S3 under QEMU");
	}

	f = fopen(POWER_STATE, "r");
	if (!f || !fgets(state, sizeof(state), f) || !strstr(state, "mem"))
		twt_fail(file, line, "no suspend to RAM: %s reads '%s'",
			 POWER_STATE, state);
	fclose(f);
}

/*
 * One write of "mem" to /sys/power/state, the backstop armed around it,
 * measured into @s; *@ok0 and *@ok1: suspend_stats/success before and
 * after. Return: 0, or the write's errno (the kernel refused to suspend).
 */
static int suspend_write_at(const char *file, int line, struct slept *s,
			    long long *ok0, long long *ok1)
{
	char buf[32];
	int err;

	*ok0 = twt_sysfs_read(SUSPEND_OK);
	if (*ok0 < 0)
		twt_fail(file, line, "cannot read %s", SUSPEND_OK);
	/* A write of an absolute time over a set alarm is EBUSY: clear it. */
	snprintf(buf, sizeof(buf), "+%d", BACKSTOP_S);
	if (twt_sysfs_write(WAKEALARM, "0") || twt_sysfs_write(WAKEALARM, buf))
		twt_fail(file, line, "backstop %s: %s", WAKEALARM,
			 strerror(errno));

	s->mono0 = twt_mono();
	s->boot0 = twt_now(CLOCK_BOOTTIME);
	err = twt_sysfs_write(POWER_STATE, "mem") ? errno : 0;
	s->boot1 = twt_now(CLOCK_BOOTTIME);
	s->mono1 = twt_mono();

	twt_sysfs_write(WAKEALARM, "0");
	*ok1 = twt_sysfs_read(SUSPEND_OK);
	s->slept_ns = (s->boot1 - s->mono1) - (s->boot0 - s->mono0);
	return err;
}

/*
 * suspend_now(&s): suspend to RAM now and return after the resume, or fail
 * the case. Fails unless the kernel counts one more successful suspend,
 * and when the resume came so late that only the backstop can have woken
 * the system.
 */
#define suspend_now(s)	suspend_now_at(__FILE__, __LINE__, (s))
static void suspend_now_at(const char *file, int line, struct slept *s)
{
	long long ok0, ok1;
	int err;

	need_suspend_at(file, line);
	err = suspend_write_at(file, line, s, &ok0, &ok1);
	printf("# suspend: write \"mem\" %s; suspend_stats/success %lld -> "
	       "%lld; boottime - monotonic grew %.3f s; the write took %.3f s "
	       "of boottime, %.3f s of monotonic\n",
	       err ? strerror(err) : "ok", ok0, ok1, s->slept_ns / 1e9,
	       (s->boot1 - s->boot0) / 1e9, (s->mono1 - s->mono0) / 1e9);
	if (err)
		twt_fail(file, line, "echo mem > %s: %s", POWER_STATE,
			 strerror(err));
	if (ok1 != ok0 + 1)
		twt_fail(file, line, "%s went from %lld to %lld, not +1",
			 SUSPEND_OK, ok0, ok1);
	if (s->slept_ns >= LATE_S * TWT_S)
		twt_fail(file, line, "slept %.3f s: woken by the %d s "
			 "backstop, not by the alarm", s->slept_ns / 1e9,
			 BACKSTOP_S);
}

/* ---- the harness: a timerfd alarm through a suspend ---- */

/*
 * The kernel's own alarm timers (timerfd) wake the system from a real
 * suspend: proves that the VM suspends, that the RTC wakes it, and what
 * the twheel cases can expect of both.
 */
static void timerfd_alarm_wakes(void)
{
	struct itimerspec its;
	struct slept s;
	int64_t deadline, seen;
	uint64_t n = 0;
	int tfd;

	tfd = timerfd_create(CLOCK_BOOTTIME_ALARM, TFD_NONBLOCK);
	CHECK(tfd >= 0);
	memset(&its, 0, sizeof(its));
	deadline = twt_now(CLOCK_BOOTTIME) + ALARM_S * TWT_S;
	its.it_value.tv_sec = deadline / TWT_S;
	its.it_value.tv_nsec = deadline % TWT_S;
	CHECK_OK(timerfd_settime(tfd, TFD_TIMER_ABSTIME, &its, NULL));

	suspend_now(&s);

	CHECK(twt_poll(tfd, 20000) & POLLIN);
	seen = twt_now(CLOCK_BOOTTIME);
	CHECK_EQ(read(tfd, &n, sizeof(n)), sizeof(n));
	CHECK_EQ(n, 1);
	CHECK(seen >= deadline);
	/* Exactly once: nothing more comes. */
	CHECK_EQ(twt_poll(tfd, 1000), 0);
	CHECK_ERR(read(tfd, &n, sizeof(n)), EAGAIN);
	printf("# timerfd: suspended %.3f s before its deadline, resumed "
	       "%.3f s after the suspend began (%+.3f s from the deadline), "
	       "readable %+.3f ms from the deadline\n",
	       (deadline - s.boot0) / 1e9, (s.boot1 - s.boot0) / 1e9,
	       (s.boot1 - deadline) / 1e9, (seen - deadline) / 1e6);
	close(tfd);
}

/* ---- twheel ---- */

/*
 * A thread blocked in poll(2) on the fd across the suspend, as an event
 * loop would be: it is frozen with the rest of user space and must be
 * woken by the records after the resume. It reports by writing the
 * CLOCK_BOOTTIME time it saw the fd readable into a pipe.
 */
struct waiter {
	pthread_t th;
	int fd;
	int pipe[2];
};

static void *waiter_main(void *arg)
{
	struct waiter *w = arg;
	int64_t t;

	if (twt_poll(w->fd, -1) & POLLIN) {
		t = twt_now(CLOCK_BOOTTIME);
		if (write(w->pipe[1], &t, sizeof(t)) != sizeof(t))
			return NULL;
	}
	return NULL;
}

static void waiter_start(struct waiter *w, int fd)
{
	w->fd = fd;
	CHECK_OK(pipe(w->pipe));
	CHECK_EQ(pthread_create(&w->th, NULL, waiter_main, w), 0);
}

/* The boottime at which the waiter saw the fd readable, or fail. */
static int64_t waiter_end(struct waiter *w)
{
	int64_t t = 0;

	CHECK(twt_poll(w->pipe[0], 20000) & POLLIN);
	CHECK_EQ(read(w->pipe[0], &t, sizeof(t)), sizeof(t));
	CHECK_EQ(pthread_join(w->th, NULL), 0);
	close(w->pipe[0]);
	close(w->pipe[1]);
	return t;
}

/* The record of timer id among ev[0..n), or fail. */
static const struct twheel_event *find_ev(const struct twheel_event *ev,
					  size_t n, uint64_t id)
{
	const struct twheel_event *e = twt_find_ev(ev, n, id);

	if (!e)
		twt_fail(__FILE__, __LINE__, "no record of timer %" PRIu64,
			 id);
	return e;
}

/*
 * One record of a one-shot timer: its cookie, clock and count 1, queued
 * never before the deadline and not after now (both on @readclk, which the
 * timer's clock reads as).
 */
#define CHECK_RECORD(e, cookie_, clock_, deadline, readclk) do {	\
	CHECK_EQ((e)->cookie, (cookie_));				\
	CHECK_EQ((e)->clock, (clock_));					\
	CHECK_EQ((e)->count, 1);					\
	CHECK_EQ((e)->flags, 0);					\
	CHECK((e)->time_ns >= (deadline));				\
	CHECK((e)->time_ns <= twt_now(readclk));			\
} while (0)

/* Exactly once: nothing more comes, and the one-shot timers have ended. */
static void check_nothing_more(int fd)
{
	CHECK_EQ(twt_poll(fd, 1000), 0);
	CHECK_NONE_QUEUED(fd);
	CHECK_EQ(twt_timers(fd), 0);
}

/*
 * A CLOCK_BOOTTIME_ALARM timer wakes the system from a suspend; a plain
 * CLOCK_BOOTTIME timer due earlier, during the suspend, does not wake it
 * but fires after the resume, never early.
 */
static void boottime_alarm_wakes(void)
{
	int fd = twt_open(O_NONBLOCK);
	struct twheel_event ev[4];
	const struct twheel_event *ea, *eb;
	struct waiter w;
	struct slept s;
	int64_t b, da, db, seen;
	uint64_t ida, idb;

	twt_need_alarm(fd);
	da = alarm_deadline(CLOCK_BOOTTIME, ALARM_S * TWT_S);
	b = twt_now(CLOCK_BOOTTIME);
	db = b + (ALARM_S - 3) * TWT_S;
	ida = twt_add_abs(fd, 1, da, CLOCK_BOOTTIME_ALARM);
	idb = twt_add_abs(fd, 2, db, CLOCK_BOOTTIME);
	waiter_start(&w, fd);

	suspend_now(&s);

	seen = waiter_end(&w);
	twt_read_n(fd, ev, 2, 20000);
	ea = find_ev(ev, 2, ida);
	eb = find_ev(ev, 2, idb);
	CHECK_RECORD(ea, 1, CLOCK_BOOTTIME_ALARM, da, CLOCK_BOOTTIME);
	CHECK_RECORD(eb, 2, CLOCK_BOOTTIME, db, CLOCK_BOOTTIME);
	check_nothing_more(fd);
	printf("# boottime alarm: suspended %.3f s before its deadline, "
	       "resumed %+.3f s from it; waiter woken (first record) %+.3f ms "
	       "from it; record time_ns - deadline = %.3f ms (alarm), %.3f ms "
	       "(plain boottime timer, due %.3f s into the suspend)\n",
	       (da - s.boot0) / 1e9, (s.boot1 - da) / 1e9,
	       (seen - da) / 1e6, (ea->time_ns - da) / 1e6,
	       (eb->time_ns - db) / 1e6, (db - s.boot0) / 1e9);
	close(fd);
}

/*
 * A CLOCK_REALTIME_ALARM timer (absolute) wakes the system from a
 * suspend; its record comes once, never before its wall-clock deadline.
 */
static void realtime_alarm_wakes(void)
{
	int fd = twt_open(O_NONBLOCK);
	struct twheel_event ev[2];
	struct waiter w;
	struct slept s;
	int64_t dr, r0, seen;
	uint64_t id;

	twt_need_alarm(fd);
	dr = alarm_deadline(CLOCK_REALTIME, ALARM_S * TWT_S);
	r0 = twt_now(CLOCK_REALTIME);
	id = twt_add_abs(fd, 3, dr, CLOCK_REALTIME_ALARM);
	waiter_start(&w, fd);

	suspend_now(&s);

	seen = waiter_end(&w);
	twt_read_n(fd, ev, 1, 20000);
	CHECK_EQ(ev[0].id, id);
	CHECK_RECORD(&ev[0], 3, CLOCK_REALTIME_ALARM, dr, CLOCK_REALTIME);
	check_nothing_more(fd);
	printf("# realtime alarm: resumed %.3f s after the suspend began, "
	       "deadline %.3f s after the add; waiter woken at boottime "
	       "%+.3f s from the resume; record time_ns - deadline = "
	       "%.3f ms\n", (s.boot1 - s.boot0) / 1e9, (dr - r0) / 1e9,
	       (seen - s.boot1) / 1e9, (ev[0].time_ns - dr) / 1e6);
	close(fd);
}

/*
 * A CLOCK_BOOTTIME_ALARM timer on a 2 ms tick whose wheel cascades it
 * (level 2 to 1, 4 000 ticks before its deadline) before the suspend, in
 * an fd nobody uses: the alarm's callback arms the alarm again for the
 * next cascade, so the suspend is resumed in time.
 */
static void alarm_cascade_unattended(void)
{
	const int64_t tick = 2 * TWT_MS;
	int fd = twt_open(O_NONBLOCK);
	struct twheel_event ev;
	struct slept s;
	int64_t c, e2, d;
	uint64_t id;

	twt_need_alarm(fd);
	twt_config(fd, tick, 0);
	/* The cascade at least 0.5 s ahead, on a 4096-tick boundary. */
	c = ((twt_now(CLOCK_BOOTTIME) / tick + 250) / 4096 + 1) * 4096;
	e2 = c * tick;
	d = (c + 4000) * tick;
	id = twt_add_abs(fd, 1, d, CLOCK_BOOTTIME_ALARM);
	/* Past the cascade, 7.5 s before the deadline; nobody polls. */
	twt_sleep_ns(e2 + 500 * TWT_MS - twt_now(CLOCK_BOOTTIME));

	suspend_now(&s);

	twt_read_n(fd, &ev, 1, 20000);
	CHECK_EQ(ev.id, id);
	CHECK_RECORD(&ev, 1, CLOCK_BOOTTIME_ALARM, d, CLOCK_BOOTTIME);
	check_nothing_more(fd);
	printf("# cascaded alarm: suspended %.3f s before its deadline, "
	       "slept %.3f s; record time_ns - deadline = %.3f ms\n",
	       (d - s.boot0) / 1e9, s.slept_ns / 1e9,
	       (ev.time_ns - d) / 1e6);
	close(fd);
}

/*
 * Two CLOCK_BOOTTIME_ALARM timers, 12 to 16 s apart, in an fd nobody uses: the
 * first expires before the suspend and stays unread; the alarm stays
 * armed for the second, which resumes the system. Both records come,
 * once each, never early.
 */
static void alarm_after_unread_expiry(void)
{
	int fd = twt_open(O_NONBLOCK);
	struct twheel_event ev[2];
	struct slept s;
	int64_t a, b;
	uint64_t ida, idb;

	twt_need_alarm(fd);
	b = alarm_deadline(CLOCK_BOOTTIME, 13 * TWT_S);
	a = twt_now(CLOCK_BOOTTIME) + TWT_S;
	ida = twt_add_abs(fd, 1, a, CLOCK_BOOTTIME_ALARM);
	idb = twt_add_abs(fd, 2, b, CLOCK_BOOTTIME_ALARM);
	twt_sleep_ns(a + 300 * TWT_MS - twt_now(CLOCK_BOOTTIME));

	suspend_now(&s);

	twt_read_n(fd, ev, 2, 20000);
	CHECK_RECORD(find_ev(ev, 2, ida), 1, CLOCK_BOOTTIME_ALARM, a,
		     CLOCK_BOOTTIME);
	CHECK_RECORD(find_ev(ev, 2, idb), 2, CLOCK_BOOTTIME_ALARM, b,
		     CLOCK_BOOTTIME);
	check_nothing_more(fd);
	printf("# alarm after an unread one: suspended %.3f s before its "
	       "deadline, slept %.3f s\n", (b - s.boot0) / 1e9,
	       s.slept_ns / 1e9);
	close(fd);
}

/*
 * 160 CLOCK_BOOTTIME_ALARM timers due at one tick, more than the 128 wheel
 * entries the alarm's callback moves, and nobody reads: the callback
 * leaves them to the task and arms the alarm again 1 s later, and again,
 * for as long as nobody reads. A suspend tried 3 s and 6 s after the
 * deadline (when only such a retry can be armed within 2 s) is refused
 * with EBUSY. Once the 160 records are read (each once, never early), the
 * fd's alarm goes quiet: the next suspend goes through, resumed by an
 * alarm timer ALARM_S ahead.
 */
#define RETRY_N		160

/*
 * try_suspend(): echo mem > /sys/power/state now: 0, or the errno of the
 * refused write; suspend_stats/success counts exactly the suspends that
 * went through.
 */
#define try_suspend()	try_suspend_at(__FILE__, __LINE__)
static int try_suspend_at(const char *file, int line)
{
	long long ok0, ok1;
	struct slept s;
	int err;

	need_suspend_at(file, line);
	err = suspend_write_at(file, line, &s, &ok0, &ok1);
	printf("# suspend tried: %s; suspend_stats/success %lld -> %lld\n",
	       err ? strerror(err) : "went through", ok0, ok1);
	if (ok1 != (err ? ok0 : ok0 + 1))
		twt_fail(file, line, "%s went from %lld to %lld after %s",
			 SUSPEND_OK, ok0, ok1,
			 err ? "a refused suspend" : "a suspend");
	return err;
}

static void alarm_retry_unread(void)
{
	struct twheel_event ev[RETRY_N + 1];
	int fd = twt_open(O_NONBLOCK);
	uint64_t ids[RETRY_N], idn;
	struct slept s;
	int64_t d, dn;
	int i, j;

	twt_need_alarm(fd);
	need_suspend();
	d = (twt_now(CLOCK_BOOTTIME) / TWT_MS + 500) * TWT_MS;
	for (i = 0; i < RETRY_N; i++)
		ids[i] = twt_add_abs(fd, i, d, CLOCK_BOOTTIME_ALARM);
	twt_sleep_ns(d + 3 * TWT_S - twt_now(CLOCK_BOOTTIME));
	CHECK_EQ(try_suspend(), EBUSY);
	twt_sleep_ns(d + 6 * TWT_S - twt_now(CLOCK_BOOTTIME));
	CHECK_EQ(try_suspend(), EBUSY);

	CHECK_EQ(twt_drain(fd, ev, RETRY_N + 1), RETRY_N);
	for (i = 0; i < RETRY_N; i++) {
		CHECK_EQ(ev[i].id, ids[ev[i].cookie]);
		CHECK_RECORD(&ev[i], ev[i].cookie, CLOCK_BOOTTIME_ALARM, d,
			     CLOCK_BOOTTIME);
		for (j = 0; j < i; j++)
			CHECK(ev[j].cookie != ev[i].cookie);
	}
	CHECK_EQ(twt_timers(fd), 0);

	dn = alarm_deadline(CLOCK_BOOTTIME, ALARM_S * TWT_S);
	idn = twt_add_abs(fd, RETRY_N, dn, CLOCK_BOOTTIME_ALARM);
	suspend_now(&s);
	twt_read_n(fd, ev, 1, 20000);
	CHECK_EQ(ev[0].id, idn);
	CHECK_RECORD(&ev[0], RETRY_N, CLOCK_BOOTTIME_ALARM, dn, CLOCK_BOOTTIME);
	check_nothing_more(fd);
	printf("# after the %d records were read: suspended %.3f s before "
	       "the next alarm, slept %.3f s\n", RETRY_N,
	       (dn - s.boot0) / 1e9, s.slept_ns / 1e9);
	close(fd);
}

/* ---- a resume is a wall clock set ---- */

#ifndef TWHEEL_FEATURE_CLOCK_SET
#define TWHEEL_FEATURE_CLOCK_SET	0x200ULL
#endif

/*
 * A real suspend, woken by a CLOCK_BOOTTIME_ALARM timer: the resume sets
 * the wall clock (it moves by the time suspended). The fd configured with
 * TWHEEL_CONFIG_CLOCK_SET gets the set's record; the pending absolute
 * CLOCK_REALTIME and CLOCK_REALTIME_ALARM timers with TWHEEL_CANCEL_ON_SET
 * end with their set records (count 0); their twins without the flag,
 * an hour ahead, stay pending.
 */
static void resume_is_clock_set(void)
{
	int fd = twt_open(O_NONBLOCK);
	struct twheel_event ev[8];
	const struct twheel_event *ew, *ec, *eca, *es;
	struct twheel_status st;
	struct slept s;
	int64_t r0 = twt_now(CLOCK_REALTIME), wake;
	uint64_t idw, idc, idca, idp, idpa;
	size_t n;

	twt_need_alarm(fd);
	if (!(twt_info(fd).features & TWHEEL_FEATURE_CLOCK_SET))
		twt_skip("module without TWHEEL_FEATURE_CLOCK_SET");
	twt_config(fd, TWHEEL_DEFAULT_TICK_NS, TWHEEL_CONFIG_CLOCK_SET);
	/* The hour-ahead alarms' wheel points too are not met by the suspend. */
	alarm_quiet(CLOCK_REALTIME, r0 + 3600 * TWT_S, 30 * TWT_S);
	wake = alarm_deadline(CLOCK_BOOTTIME, ALARM_S * TWT_S);
	idw = twt_add_abs(fd, 1, wake, CLOCK_BOOTTIME_ALARM);
	idc = twt_add(fd, 2, r0 + 3600 * TWT_S,
		      TWHEEL_ABSTIME | TWHEEL_CANCEL_ON_SET, CLOCK_REALTIME);
	idca = twt_add(fd, 3, r0 + 3600 * TWT_S,
		       TWHEEL_ABSTIME | TWHEEL_CANCEL_ON_SET,
		       CLOCK_REALTIME_ALARM);
	idp = twt_add_abs(fd, 4, r0 + 3600 * TWT_S, CLOCK_REALTIME);
	idpa = twt_add_abs(fd, 5, r0 + 3600 * TWT_S, CLOCK_REALTIME_ALARM);
	CHECK_NONE_QUEUED(fd);

	suspend_now(&s);

	/* The wake-up alarm's record, the set's and the two ended timers. */
	twt_read_n(fd, ev, 4, 20000);
	n = 4 + twt_drain(fd, ev + 4, 4);
	ew = find_ev(ev, n, idw);
	ec = find_ev(ev, n, idc);
	eca = find_ev(ev, n, idca);
	es = find_ev(ev, n, 0);
	printf("# resume: %zu records; the set's count %llu, time_ns %+.3f s "
	       "from the suspend's start (wall); ended timers' time_ns "
	       "%+.3f s, %+.3f s\n", n, (unsigned long long)es->count,
	       (es->time_ns - r0) / 1e9, (ec->time_ns - r0) / 1e9,
	       (eca->time_ns - r0) / 1e9);
	CHECK_EQ(n, 4);
	CHECK_RECORD(ew, 1, CLOCK_BOOTTIME_ALARM, wake, CLOCK_BOOTTIME);
	CHECK_EQ(es->cookie, 0);
	CHECK_EQ(es->clock, CLOCK_REALTIME);
	CHECK_EQ(es->flags, TWHEEL_EVENT_CLOCK_SET);
	CHECK(es->count >= 1);
	CHECK(es->time_ns >= r0 + s.slept_ns);
	CHECK(es->time_ns <= twt_now(CLOCK_REALTIME));
	CHECK_EQ(ec->cookie, 2);
	CHECK_EQ(ec->clock, CLOCK_REALTIME);
	CHECK_EQ(ec->flags, TWHEEL_EVENT_CLOCK_SET);
	CHECK_EQ(ec->count, 0);
	CHECK_EQ(eca->cookie, 3);
	CHECK_EQ(eca->clock, CLOCK_REALTIME_ALARM);
	CHECK_EQ(eca->flags, TWHEEL_EVENT_CLOCK_SET);
	CHECK_EQ(eca->count, 0);
	CHECK_ERR(twt_query_raw(fd, idc, NULL), ENOENT);
	CHECK_ERR(twt_query_raw(fd, idca, NULL), ENOENT);
	st = twt_query(fd, idp);
	CHECK_EQ(st.state, TWHEEL_STATE_PENDING);
	st = twt_query(fd, idpa);
	CHECK_EQ(st.state, TWHEEL_STATE_PENDING);
	CHECK_EQ(twt_timers(fd), 2);
	CHECK_NONE_QUEUED(fd);
	close(fd);
}

TWT_MAIN("suspend",
	 TWT_CASE_T(timerfd_alarm_wakes, 180),
	 TWT_CASE_T(boottime_alarm_wakes, 180),
	 TWT_CASE_T(realtime_alarm_wakes, 180),
	 TWT_CASE_T(alarm_cascade_unattended, 180),
	 TWT_CASE_T(alarm_after_unread_expiry, 180),
	 TWT_CASE_T(alarm_retry_unread, 180),
	 TWT_CASE_T(resume_is_clock_set, 180));
