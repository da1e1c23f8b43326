// SPDX-License-Identifier: GPL-2.0
/*
 * clockset_cos: TWHEEL_CANCEL_ON_SET timers (uapi/linux/twheel.h) at wall
 * clock sets: which end, with what record, and which do not; the flag in
 * ADD, MODIFY, a batch, CANCEL and LIST. How a case sets the clock, five
 * ways, and puts it back: clockset.h. The fd's own set records:
 * clockset.c; adds racing sets: clockset_race.c.
 *
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
 */
#include "clockset.h"

#define ID_UNTOUCHED	0x5a5a5a5a5a5a5a5aULL

/* The clock a timer's clockid reads as. */
static clockid_t readclk(clockid_t clock)
{
	return clock == CLOCK_REALTIME_ALARM ? CLOCK_REALTIME : clock;
}

/* A timer's record of being ended by a set. */
#define CHECK_ENDED_REC(e, id_, cookie_, clock_) do {			\
	CHECK_EQ((e)->id, (id_));					\
	CHECK_EQ((e)->cookie, (cookie_));				\
	CHECK_EQ((e)->clock, (clock_));					\
	CHECK_EQ((e)->flags, SETF);					\
	CHECK_EQ((e)->count, 0);					\
} while (0)

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
				twt_find_ev(g1.ev, NCOS + 1, c.id[i]);
			clockid_t rc = readclk(c.clock[i]);

			CHECK(e);
			CHECK_ENDED_REC(e, c.id[i], cos_cookie(i),
					c.clock[i]);
			CHECK(e->time_ns >= step_lo(&fw, rc));
			CHECK(e->time_ns <= (rc == CLOCK_TAI ? g1.tai1 :
							       g1.rt1));
		}
		CHECK(twt_find_ev(g1.ev, NCOS + 1, 0));
		CHECK_SET_REC(twt_find_ev(g1.ev, NCOS + 1, 0), 1,
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
		const struct twheel_event *e = twt_find_ev(ev, n, cos[i]);

		CHECK(e);
		CHECK_ENDED_REC(e, cos[i], 20 + i, clk[i]);
		CHECK(e->time_ns < dl[i]);
		CHECK_EQ(twt_query(fd, plain[i]).state, TWHEEL_STATE_PENDING);
	}
	twt_read_n(fd, ev, 3, 10000);
	for (i = 0; i < 3; i++) {
		const struct twheel_event *e = twt_find_ev(ev, 3, plain[i]);
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
	e = twt_find_ev(ev, n, one);
	CHECK(e);
	CHECK_EQ(e->cookie, 1);
	CHECK_EQ(e->flags, 0);
	CHECK_EQ(e->count, 1);
	CHECK(e->time_ns >= rt - TWT_S);
	e = twt_find_ev(ev, n, far);
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
	CHECK(twt_find_ev(ea2, 2, add_a));
	CHECK_ENDED_REC(twt_find_ev(ea2, 2, add_a), add_a, 4, CLOCK_REALTIME);
	CHECK(twt_find_ev(ea2, 2, mod));
	CHECK_ENDED_REC(twt_find_ev(ea2, 2, mod), mod, 2, CLOCK_REALTIME);
	CHECK_EQ(nb2, 2);
	CHECK(twt_find_ev(eb2, 2, add_b));
	CHECK_ENDED_REC(twt_find_ev(eb2, 2, add_b), add_b, 5, CLOCK_REALTIME);
	CHECK(twt_find_ev(eb2, 2, mod_b));
	CHECK_ENDED_REC(twt_find_ev(eb2, 2, mod_b), mod_b, 3, CLOCK_TAI);
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
	CHECK(twt_find_ev(ev, n, kept));
	CHECK_ENDED_REC(twt_find_ev(ev, n, kept), kept, 3, CLOCK_REALTIME_ALARM);
	CHECK(twt_find_ev(ev, n, given));
	CHECK_ENDED_REC(twt_find_ev(ev, n, given), given, 4, CLOCK_REALTIME);
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

TWT_MAIN("clockset_cos",
	 TWT_CASE(cos_timers_end_each_kind),
	 TWT_CASE(plain_timers_expire_after_set),
	 TWT_CASE(queued_record_kept),
	 TWT_CASE(periodic_queued_then_pending),
	 TWT_CASE(added_after_set_not_ended),
	 TWT_CASE(modify_sets_or_clears_flag),
	 TWT_CASE(cancel_on_set_einval),
	 TWT_CASE(cancel_modify_list_set_ended))
