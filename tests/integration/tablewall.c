// SPDX-License-Identifier: GPL-2.0
/*
 * tablewall: the shared timer table on the wall clocks, through steps of
 * the wall clock both ways, on the real clock: the hrtimer (or alarm)
 * callback re-places pushed timers itself there too (kmod/twheel_irq.h),
 * while a set back makes the task re-add the wheel's entries and a set
 * forward makes what it passes due. Checked from what
 * uapi/linux/twheel.h promises ("The shared timer table", "Clocks").
 *
 * steps_both_ways: one fd per wall clock (CLOCK_REALTIME, CLOCK_TAI, and
 * CLOCK_REALTIME_ALARM with TWHEEL_FEATURE_ALARM), a 1 ms tick, NT timers
 * each, of four kinds:
 *   pushed     placed 300 ms ahead; every PUSH_MS its entry is stored
 *              with a deadline TIMEOUT_MS from the clock's present (as a
 *              server pushes an idle timeout back), until PUSH_END;
 *   cancelled  TWHEEL_TABLE_CANCELLED stored right after the add;
 *   garbage    a value whose tag is not the timer's stored after the add;
 *   plain      nothing stored.
 * The wall clock is set back by STEP at STEP_BACK (the placed deadlines
 * of the garbage and plain timers, 900 ms ahead, are then STEP further
 * away; the pushes store earlier deadlines than the timers are placed
 * for, which change nothing, until the clock catches up), and forward by
 * STEP again after the pushes ended (the clock passes every deadline
 * left: those timers expire at once).
 *
 * Every record, as read: of a timer of the fd (id, cookie, clock), one at
 * most per timer, never of a cancelled one, count 1, time_ns not before
 * the deadline the timer was added for; and for a pushed timer not
 * before the deadline of the store the kernel read when the record was
 * made: the last store done before the record's time (mapped to
 * CLOCK_MONOTONIC with the offset of the clock's step it falls in, with
 * MARGIN), or any store made after that one but started before the
 * record's time (so a store that came too late, descheduled past the
 * deadline, is legal and counted, never a failure). At the end every
 * timer ended exactly once: a record each but for the cancelled ones,
 * which TWHEEL_IOC_INFO counts as cancelled; no timer is left.
 */
#define _GNU_SOURCE
#include "table.h"

#define NT		160		/* timers per fd, a quarter of each kind */
#define NCLK		3
#define TIMEOUT_MS	400
#define PUSH_MS		20
#define STEP		(3 * TWT_S)
#define STEP_BACK	(800 * MS)	/* from the start, monotonic */
#define PUSH_END	(5000 * MS)
#define STEP_FWD	(5200 * MS)
#define MARGIN		MS
#define NSTORE		(PUSH_END / (PUSH_MS * MS) + 8)

enum kind { K_PUSHED, K_CANCELLED, K_GARBAGE, K_PLAIN };

struct store {
	int64_t start, done;	/* CLOCK_MONOTONIC */
	int64_t d;		/* the deadline stored, a tick */
};

struct wtimer {
	uint64_t id;
	int64_t added;		/* the deadline it was added for, ns */
	int records;
	int nst;
	struct store st[NSTORE];
};

struct wfd {
	clockid_t clock, rclock;	/* the timers' clock, and how it reads */
	int fd;
	uint64_t *tab;
	struct wtimer t[NT];
	int records, late;
};

/* The offset of a wall clock from CLOCK_MONOTONIC over one stretch. */
struct seg {
	int64_t from;		/* CLOCK_MONOTONIC */
	int64_t off[NCLK];	/* wall clock - CLOCK_MONOTONIC */
};

static struct wfd fds[NCLK];
static struct seg segs[3];
static int nfd, nseg;

/* A new stretch: the offsets as they are now (no step in between). */
static void seg_begin(void)
{
	struct seg *s = &segs[nseg++];
	int i;

	s->from = twt_mono();
	for (i = 0; i < nfd; i++)
		s->off[i] = twt_now(fds[i].rclock) - twt_mono();
}

/*
 * When, on CLOCK_MONOTONIC, fd @i's clock read @t: in the last stretch
 * that began before @recv (when the record was read) and in which @t
 * falls; -1 when none fits (then only the weaker checks apply).
 */
static int64_t mono_of(int i, int64_t t, int64_t recv)
{
	int k;

	for (k = nseg - 1; k >= 0; k--) {
		int64_t m = t - segs[k].off[i];

		if (segs[k].from > recv)
			continue;
		if (m >= segs[k].from - MARGIN && m <= recv + MARGIN)
			return m;
	}
	return -1;
}

static void check_record(int i, const struct twheel_event *ev, int64_t recv)
{
	struct wfd *f = &fds[i];
	struct wtimer *t;
	int64_t m, low;
	int k, last;

	CHECK(ev->cookie < NT);
	t = &f->t[ev->cookie];
	CHECK_EQ(ev->id, t->id);
	CHECK_EQ(ev->clock, f->clock);
	CHECK_EQ(ev->count, 1);
	CHECK_EQ(ev->flags, 0);
	if (t->records || ev->cookie % 4 == K_CANCELLED)
		printf("# %s timer %llu: a record at %lld, %d before\n",
		       twt_clockname(f->clock), (unsigned long long)ev->cookie,
		       (long long)ev->time_ns, t->records);
	CHECK_EQ(t->records, 0);
	CHECK(ev->cookie % 4 != K_CANCELLED);
	CHECK(ev->time_ns >= t->added);
	t->records++;
	f->records++;
	if (ev->cookie % 4 != K_PUSHED || !t->nst)
		return;
	m = mono_of(i, ev->time_ns, recv);
	if (m < 0)
		return;
	/*
	 * The store the kernel read: the last one done before the record's
	 * time, or one made after it that started before (right around it).
	 * None done before: the add's deadline, checked above.
	 */
	last = -1;
	for (k = 0; k < t->nst; k++)
		if (t->st[k].done < m - MARGIN)
			last = k;
	if (last < 0)
		return;
	low = t->st[last].d;
	for (k = last + 1; k < t->nst; k++)
		if (t->st[k].start < m + MARGIN && t->st[k].d < low)
			low = t->st[k].d;
	if (ev->time_ns < t->st[t->nst - 1].d * MS)
		f->late++;
	if (ev->time_ns < low * MS)
		printf("# %s timer %llu: record at %lld (monotonic %lld), "
		       "before the deadline %lld stored at %lld..%lld\n",
		       twt_clockname(f->clock), (unsigned long long)ev->cookie,
		       (long long)ev->time_ns, (long long)m,
		       (long long)(low * MS), (long long)t->st[last].start,
		       (long long)t->st[last].done);
	CHECK(ev->time_ns >= low * MS);
}

static void drain(void)
{
	struct twheel_event ev[64];
	int64_t recv;
	ssize_t r;
	int i, j;

	for (i = 0; i < nfd; i++) {
		for (;;) {
			r = read(fds[i].fd, ev, sizeof(ev));
			recv = twt_mono();
			if (r < 0) {
				CHECK_EQ(errno, EAGAIN);
				break;
			}
			CHECK(r > 0 && r % TWT_EV_SIZE == 0);
			for (j = 0; j < r / TWT_EV_SIZE; j++)
				check_record(i, &ev[j], recv);
		}
	}
}

static void push_all(void)
{
	int i, h;

	for (i = 0; i < nfd; i++) {
		struct wfd *f = &fds[i];

		for (h = K_PUSHED; h < NT; h += 4) {
			struct wtimer *t = &f->t[h];
			struct store *s;

			if (t->records || t->nst == NSTORE)
				continue;
			s = &t->st[t->nst];
			s->start = twt_mono();
			s->d = (twt_now(f->rclock) + TIMEOUT_MS * MS) / MS + 1;
			st(f->tab, t->id, TWHEEL_TABLE_DEADLINE(t->id, s->d));
			s->done = twt_mono();
			t->nst++;
		}
	}
}

static void open_fds(void)
{
	static const clockid_t clocks[] = {
		CLOCK_REALTIME, CLOCK_TAI, CLOCK_REALTIME_ALARM,
	};
	uint64_t seed = 0xa11ba5e;
	int64_t now;
	int i, h;

	nfd = 2;
	i = twt_open(O_NONBLOCK);
	if (twt_has_alarm(i))
		nfd = 3;
	close(i);
	for (i = 0; i < nfd; i++) {
		struct wfd *f = &fds[i];

		memset(f, 0, sizeof(*f));
		f->clock = clocks[i];
		f->rclock = i == 2 ? CLOCK_REALTIME : clocks[i];
		f->fd = open_table(0, MS, NT);
		f->tab = map_table(f->fd, twt_info(f->fd).table_size);
		now = twt_now(f->rclock) / MS * MS;
		for (h = 0; h < NT; h++) {
			struct wtimer *t = &f->t[h];

			t->added = now + (h % 4 < K_GARBAGE ? 300 : 900) * MS +
				   h * MS;
			t->id = twt_add_abs(f->fd, h, t->added, f->clock);
			if (h % 4 == K_CANCELLED)
				st(f->tab, t->id, TWHEEL_TABLE_CANCELLED(t->id));
			else if (h % 4 == K_GARBAGE)
				st(f->tab, t->id, garbage_for(t->id, &seed));
		}
	}
}

static void steps_both_ways(void)
{
	int64_t t0, now, left;
	int i, h, stepped_back = 0, steps = 0;

	open_fds();
	nseg = 0;
	t0 = twt_mono();
	seg_begin();
	for (;;) {
		now = twt_mono() - t0;
		if (now >= PUSH_END)
			break;
		if (!stepped_back && now >= STEP_BACK) {
			drain();
			CHECK_OK(twt_set_realtime(twt_now(CLOCK_REALTIME) - STEP));
			seg_begin();
			stepped_back = 1;
		}
		push_all();
		drain();
		steps++;
		twt_sleep_ms(PUSH_MS);
	}
	drain();
	twt_sleep_ns(t0 + STEP_FWD - twt_mono());
	drain();
	CHECK_OK(twt_set_realtime(twt_now(CLOCK_REALTIME) + STEP));
	seg_begin();
	/* Every deadline left is behind the clock now. */
	for (left = 1; left && twt_mono() - t0 < STEP_FWD + 20 * TWT_S;) {
		twt_sleep_ms(20);
		drain();
		left = 0;
		for (i = 0; i < nfd; i++)
			left += NT - NT / 4 - fds[i].records;
	}
	for (i = 0; i < nfd; i++) {
		struct wfd *f = &fds[i];
		struct twheel_info info = twt_info(f->fd);

		printf("# %s: %d records (%d pushed timers ended by a store "
		       "that came too late), %llu cancelled, %d push rounds\n",
		       twt_clockname(f->clock), f->records, f->late,
		       (unsigned long long)info.cancelled, steps);
		for (h = 0; h < NT; h++)
			if (f->t[h].records != (h % 4 != K_CANCELLED))
				printf("# %s timer %d: %d records\n",
				       twt_clockname(f->clock), h,
				       f->t[h].records);
		for (h = 0; h < NT; h++)
			CHECK_EQ(f->t[h].records, h % 4 != K_CANCELLED);
		CHECK_EQ(info.cancelled, NT / 4);
		CHECK_EQ(info.timers, 0);
		CHECK_EQ(info.queued, 0);
		munmap(f->tab, info.table_size);
		close(f->fd);
	}
}

TWT_MAIN("tablewall", TWT_CASE_T(steps_both_ways, 120))
