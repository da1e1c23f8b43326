// SPDX-License-Identifier: GPL-2.0
/*
 * twfuzz_strict.c - a thread of a strict process. Each thread owns a few
 * fds that only it uses and keeps, per fd, a shadow of every timer it
 * created (id, cookie, clock, deadline, period, state): it opens them,
 * picks the operations, and ends them. At the end every timer either
 * expires and is read, or is cancelled.
 */
#include "twfuzz.h"

/* Open and configure a strict fd; its shadow starts empty. */
static void s_open(struct th *th, struct sfd *f)
{
	struct twheel_info in;
	char val[32];
	int small = chance(th, 12), k;

	ST_INC(th, ops[K_OPEN]);
	free(f->t);
	memset(f, 0, sizeof(*f));
	if (small) {
		snprintf(val, sizeof(val), "%d", 1 + (int)rnd(th, 24));
		twt_sysfs_write(PARAM, val);
	}
	f->fd = open(TWT_DEV, O_RDWR | O_NONBLOCK | O_CLOEXEC);
	if (small)
		twt_sysfs_write(PARAM, "8192");
	if (f->fd < 0) {
		violation(th, NULL, V_ERRNO, "open %s: %s", TWT_DEV,
			  strerror(errno));
		return;
	}
	memset(&in, 0, sizeof(in));
	if (xioctl(f->fd, TWHEEL_IOC_INFO, &in)) {
		violation(th, NULL, V_ERRNO, "INFO: %s", strerror(errno));
		return;
	}
	f->max_timers = in.max_timers;
	f->tick = TWHEEL_DEFAULT_TICK_NS;
	if (in.tick_ns != f->tick || in.timers || in.queued || in.config_flags)
		violation(th, f, V_ORACLE, "a new fd: tick %llu timers %"
			  "llu queued %llu config %u", in.tick_ns,
			  in.timers, in.queued, in.config_flags);
	/* Configurations, valid or not; the last valid one counts. */
	for (k = rnd(th, 3); k >= 0; k--)
		s_config(th, f);
	if (chance(th, 60) && !f->manual) {
		/* Most strict fds are manual: exact and fast. */
		u64 tick = chance(th, 30) ? TWHEEL_DEFAULT_TICK_NS :
			TWHEEL_MIN_TICK_NS + rnd(th, 100000);

		if (twt_config_raw(f->fd, tick, TWHEEL_CONFIG_MANUAL)) {
			violation(th, f, V_ERRNO, "CONFIG: %s", strerror(errno));
			return;
		}
		f->tick = tick;
		f->manual = true;
		f->clock_set = false;	/* the last configuration counts */
		f->now = 0;
	}
	if (!f->manual && f->tick > 20 * MS) {
		/* Real clocks with a long tick would make the end wait. */
		if (!twt_config_raw(f->fd, MS, 0)) {
			f->tick = MS;
			f->clock_set = false;
		}
	}
	tlog(th, "open fd %d %s tick %llu max %llu", f->fd,
	     f->manual ? "manual" : "real", f->tick, f->max_timers);
	s_info(th, f);
}

static void s_close(struct th *th, struct sfd *f)
{
	ST_INC(th, ops[K_CLOSE]);
	ST_ADD(th, ended_close, f->n);
	tlog(th, "close fd %d with %d timers", f->fd, f->n);
	if (f->fd >= 0)
		close(f->fd);
	f->fd = -1;
	f->n = 0;
}

/* Use the fd through a dup; sometimes keep the dup, close the original. */
static void s_dup(struct th *th, struct sfd *f)
{
	int d = dup(f->fd), keep = f->fd;

	ST_INC(th, ops[K_DUP]);
	if (d < 0) {
		violation(th, f, V_ERRNO, "dup: %s", strerror(errno));
		return;
	}
	tlog(th, "dup fd %d -> %d", f->fd, d);
	f->fd = d;
	if (chance(th, 50))
		s_info(th, f);
	else
		s_read(th, f);
	if (chance(th, 50)) {
		close(keep);
	} else {
		f->fd = keep;
		close(d);
	}
}

/* Cancel every timer of the shadow for which keep() is false. */
static void s_cancel_all(struct th *th, struct sfd *f,
			 bool (*keep)(struct sfd *f, struct stimer *t,
				      const struct tsamp *now))
{
	struct tsamp t0 = { { 0 } }, t1 = { { 0 } };
	uint32_t res = 0;
	int i;
	long r;

	for (i = f->n - 1; i >= 0 && !f->tainted; i--) {
		struct stimer *t = &f->t[i];

		sample(&t0);
		if (keep && keep(f, t, &t0))
			continue;
		r = twt_cancel_raw(f->fd, t->id, 0, &res);
		sample(&t1);
		tlog(th, "final cancel fd %d id %#llx -> %ld %d res %u",
		     f->fd, t->id, r, errno, res);
		if (r) {
			bad_errno(th, f, "CANCEL (final)", r, errno, "success");
			return;
		}
		check_result(th, f, t, res, &t1, "CANCEL (final)");
		ST_INC(th, ended_cancel);
		sh_end(f, t);
	}
}

static bool keep_one_shot(struct sfd *f, struct stimer *t,
			  const struct tsamp *now)
{
	(void)f;
	(void)now;
	return !t->period;
}

/* Real clocks: one-shots due within 2 s are waited for. */
static bool keep_near(struct sfd *f, struct stimer *t, const struct tsamp *now)
{
	(void)f;
	return !t->period && t->dhi < now->t[clk_index(t->clock)] + 2 * S;
}

/*
 * End of the run: every timer ends exactly once. Periodic timers and far
 * real-clock ones are cancelled; a manual clock jumps to the end of time
 * and every record is read (what never falls due is cancelled); near
 * real-clock timers are waited for, up to LOST_SLACK_NS past their
 * deadlines.
 */
static void s_final(struct th *th, struct sfd *f)
{
	struct twheel_event ev[64];
	struct tsamp t0 = { { 0 } }, t1 = { { 0 } };
	struct twheel_info in;
	s64 give_up = mono() + 2 * S + LOST_SLACK_NS;
	int64_t now = 0;
	long r;
	int i;

	if (f->fd < 0 || f->tainted)
		return;
	tlog(th, "final fd %d (%s, %d timers)", f->fd,
	     f->manual ? "manual" : "real", f->n);
	if (f->manual) {
		s_cancel_all(th, f, keep_one_shot);
		if (twt_advance_raw(f->fd, UINT64_MAX, &now)) {
			bad_errno(th, f, "ADVANCE (final)", -1, errno, "success");
			return;
		}
		m_advance(f, now);
	} else {
		s_cancel_all(th, f, keep_near);
	}
	while (f->n && !f->tainted) {
		AROUND(f, t, r = read(f->fd, ev, sizeof(ev)));
		if (r > 0) {
			check_records(th, f, ev, r / EV, &t0, &t1);
			continue;
		}
		if (r < 0 && errno != EAGAIN) {
			bad_errno(th, f, "read (final)", r, errno, "records");
			return;
		}
		if (f->manual) {
			/* Left: what never falls due. */
			for (i = 0; i < f->n; i++)
				if (f->t[i].state == TWHEEL_STATE_QUEUED) {
					violation(th, f, V_LOST, "final: id %#"
						  "llx is due, read has "
						  "nothing", f->t[i].id);
					return;
				}
			s_cancel_all(th, f, NULL);
			break;
		}
		if (mono() > give_up) {
			sample(&t0);
			for (i = 0; i < f->n; i++)
				violation(th, f, V_LOST, "final: id %#llx"
					  " deadline <= %lld clock %u: "
					  "no record %lld ns later",
					  f->t[i].id, f->t[i].dhi, f->t[i].clock,
					  t0.t[clk_index(f->t[i].clock)] -
					  f->t[i].dhi);
			return;
		}
		twt_poll(f->fd, 100);
	}
	if (f->tainted)
		return;
	memset(&in, 0, sizeof(in));
	if (xioctl(f->fd, TWHEEL_IOC_INFO, &in))
		bad_errno(th, f, "INFO (final)", -1, errno, "success");
	else if (in.timers || in.queued)
		violation(th, f, V_ORACLE, "final: INFO says %llu"
			  " timers %llu queued, the shadow none",
			  in.timers, in.queued);
}

static void strict_step(struct th *th, struct sfd *f)
{
	unsigned int r = rnd(th, 1000);

	if (r < 190)
		s_add(th, f);
	else if (r < 270)
		s_cancel(th, f);
	else if (r < 350)
		s_modify(th, f);
	else if (r < 400)
		s_query(th, f);
	else if (r < 420)
		s_list(th, f, 15);
	else if (r < 425)
		s_list_cursor(th, f);
	else if (r < 500)
		s_submit(th, f);
	else if (r < 600)
		s_advance(th, f);
	else if (r < 730)
		s_read(th, f);
	else if (r < 780)
		s_poll(th, f);
	else if (r < 810)
		s_info(th, f);
	else if (r < 825)
		s_config(th, f);
	else if (r < 845)
		s_badcmd(th, f);
	else if (r < 880)
		s_sizes(th, f);
	else if (r < 895)
		s_wake(th, f);
	else if (r < 900)
		s_dup(th, f);
	else if (r < 903) {
		s_close(th, f);
		s_open(th, f);
	} else if (!f->manual && f->n) {
		/* Real clocks: let time pass a little, then read. */
		twt_sleep_ns(rnd(th, 5 * MS));
		s_read(th, f);
	} else {
		s_advance(th, f);
	}
}

void *strict_main(void *arg)
{
	struct th *th = arg;
	unsigned long steps = 0;
	int i;

	th_mem_init(th);
	for (i = 0; i < FDS_PER_THREAD; i++)
		s_open(th, &th->f[i]);
	while (!time_up()) {
		struct sfd *f = &th->f[rnd(th, FDS_PER_THREAD)];

		if (f->fd < 0 || f->tainted) {
			s_close(th, f);
			s_open(th, f);
			continue;
		}
		strict_step(th, f);
		if (++steps % 50 == 0 && !f->tainted)
			s_list(th, f, 0);
	}
	for (i = 0; i < FDS_PER_THREAD; i++) {
		s_final(th, &th->f[i]);
		if (!th->f[i].tainted && th->f[i].n)
			violation(th, &th->f[i], V_LOST, "final: %d timers left",
				  th->f[i].n);
		s_close(th, &th->f[i]);
	}
	return NULL;
}
