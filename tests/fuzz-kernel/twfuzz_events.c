// SPDX-License-Identifier: GPL-2.0
/*
 * twfuzz_events.c - the strict operations of time and records: ADVANCE of
 * a manual clock, read(2), poll and epoll, and wake-ups of a blocked
 * waiter.
 */
#include "twfuzz.h"

void s_advance(struct th *th, struct sfd *f)
{
	struct twheel_advance a, *ap;
	enum ptrkind pk = pick_pk(th, 6);
	bool bad = chance(th, 5);
	u64 d, T = f->tick;
	s64 now;
	long r;
	int e;

	ST_INC(th, ops[K_ADVANCE]);
	switch (rnd(th, 16)) {
	case 0:
		d = 0;
		break;
	case 1:
		d = 1;
		break;
	case 2:
		d = T - 1;
		break;
	case 3:
		d = T;
		break;
	case 4:
		d = T + 1;
		break;
	case 5:
		d = rnd(th, 10 * T);
		break;
	case 6:
		d = rnd(th, 64 * 64 * T);
		break;
	case 7: {
		/*
		 * Into a tick whose number ends a level-0 round (63 mod
		 * 64), not on its start: wheel boundaries.
		 */
		u64 nt = now_tick(f->now, T), base = nt / 64 * 64 + 63;
		s64 to;

		if (base <= nt)
			base += 64;
		to = tick_ns(base, T) + (T > 1 ? 1 + (s64)rnd(th, T - 1) : 0);
		d = to > f->now ? (u64)(to - f->now) : 0;
		break;
	}
	case 8:
		d = chance(th, 3) ? (chance(th, 50) ? UINT64_MAX :
				     (u64)INT64_MAX) : rnd(th, 1000 * T);
		break;
	default:
		d = rnd(th, 100 * T);
		break;
	}
	memset(&a, 0, sizeof(a));
	a.delta_ns = d;
	a.now_ns = rnd64(th);
	if (bad) {
		if (chance(th, 50))
			a.flags = unknown_bits(th, 0);
		else
			a.__reserved = 1 + rnd(th, 1000);
	}
	ap = arg_at(th, pk, &a, sizeof(a));
	r = xioctl(f->fd, TWHEEL_IOC_ADVANCE, ap);
	e = errno;
	tlog(th, "advance fd %d delta %llu fl %#x res %#x ptr %s -> %ld "
	     "%d now %lld", f->fd, d, a.flags, a.__reserved, pk_name[pk],
	     r, e, pk == P_OK ? ap->now_ns : 0);
	if (pk != P_OK && pk != P_RO) {
		ST_INC(th, faults);
		if (r != -1 || e != EFAULT)
			bad_errno(th, f, "ADVANCE (unreadable)", r, e, "EFAULT");
		return;
	}
	if (bad || !f->manual) {
		if (r != -1 || e != EINVAL)
			bad_errno(th, f, bad ? "ADVANCE (invalid)" :
				  "ADVANCE (not a manual clock)", r, e, "EINVAL");
		else
			ST_INC(th, invalid);
		return;
	}
	if (pk == P_RO) {
		/* The clock moves only once its new time is written. */
		ST_INC(th, faults);
		if (r != -1 || e != EFAULT)
			bad_errno(th, f, "ADVANCE (read-only)", r, e, "EFAULT");
		return;
	}
	if (r) {
		bad_errno(th, f, "ADVANCE", r, e, "success");
		return;
	}
	now = d > (u64)(INT64_MAX - f->now) ? INT64_MAX :
	      f->now + (s64)d;
	if (ap->now_ns != now) {
		violation(th, f, V_ORACLE, "ADVANCE %llu from %lld"
			  ": now %lld, want %lld", d, f->now,
			  ap->now_ns, now);
		return;
	}
	m_advance(f, now);
}

/*
 * read(2), with every kind of buffer. Nonblocking unless `block` (then
 * only when a record is sure to be there or to come).
 */
void s_read(struct th *th, struct sfd *f)
{
	struct twheel_event *ev;
	struct tsamp t0 = { { 0 } }, t1 = { { 0 } };
	enum ptrkind pk = pick_pk(th, 12);
	size_t want, count, fit = 0, n, q, kq;
	bool tiny = chance(th, 4);
	char *buf;
	long r;
	int e;

	ST_INC(th, ops[K_READ]);
	want = 1 + rnd(th, chance(th, 20) ? 300 : 8);
	count = want * EV + (chance(th, 20) ? 1 + rnd(th, EV - 1) : 0);
	if (tiny)
		count = rnd(th, EV);	/* 0 .. one record minus 1: EINVAL */
	ev = calloc(want + 1, EV);
	if (!ev)
		_exit(2);
	if (pk == P_OK) {
		/* Unaligned on purpose, sometimes. */
		buf = th->buf + (chance(th, 20) ? 1 + rnd(th, 7) : 0);
		memset(buf, 0xEE, count);
		fit = want;
	} else {
		buf = arr_at(th, pk, ev, EV, want, &fit);
		if (pk != P_HALF)
			fit = 0;
	}
	q = sh_queued(f);
	kq = sh_known_queued(f);
	AROUND(f, t, r = read(f->fd, buf, count));
	e = errno;
	tlog(th, "read fd %d count %zu buf %s (fit %zu) -> %ld %d (model "
	     "queued %zu)", f->fd, count, pk_name[pk], fit, r, e, q);
	/* A kernel address fails the VFS's access_ok() first: EFAULT. */
	if (pk == P_WILD && r == -1 && e == EFAULT) {
		ST_INC(th, faults);
		goto out;
	}
	if (tiny) {
		if (r != -1 || e != EINVAL)
			bad_errno(th, f, "read (below one record)", r, e,
				  "EINVAL");
		else
			ST_INC(th, invalid);
		goto out;
	}
	if (pk != P_OK)
		ST_INC(th, faults);
	if (r < 0) {
		if (e == EAGAIN) {
			if ((f->manual && q) || kq)
				violation(th, f, V_LOST, "read: EAGAIN with %zu "
					  "records queued", f->manual ? q : kq);
			goto out;
		}
		if (e == EFAULT && fit == 0 && pk != P_OK) {
			if (f->manual && !q)
				violation(th, f, V_EARLY, "read: EFAULT (a record"
					  " to copy) with none queued");
			goto out;
		}
		bad_errno(th, f, "read", r, e, "records, EAGAIN or EFAULT");
		goto out;
	}
	if (r % EV || r == 0) {
		violation(th, f, V_ORACLE, "read: %ld bytes", r);
		goto out;
	}
	n = r / EV;
	if (n > want || n > (pk == P_OK ? want : fit)) {
		violation(th, f, V_ORACLE, "read: %zu records into room for %zu",
			  n, pk == P_OK ? want : fit);
		goto out;
	}
	if (!f->manual) {
		size_t lim = kq < want ? kq : want;

		if (pk != P_OK && lim > fit)
			lim = fit;
		if (n < lim) {
			violation(th, f, V_LOST, "read: %zu records, %zu known "
				  "queued (room %zu)", n, kq,
				  pk == P_OK ? want : fit);
			goto out;
		}
	}
	memcpy(ev, buf, n * EV);
	/*
	 * Manual clock: each record must be the model's next (a periodic
	 * timer read at the end of time is due again at once, and can come
	 * again in the same read); a read that stops short of its room
	 * leaves nothing queued.
	 */
	check_records(th, f, ev, n, &t0, &t1);
	if (f->manual && !f->tainted && n < (pk == P_OK ? want : fit) &&
	    sh_queued(f))
		violation(th, f, V_LOST, "read: %zu records (room %zu), the "
			  "model still has %d queued (%zu before)", n,
			  pk == P_OK ? want : fit, sh_queued(f), q);
out:
	free(ev);
}

/* poll and epoll (timeout 0) against the shadow. */
void s_poll(struct th *th, struct sfd *f)
{
	struct pollfd p = { .fd = f->fd, .events = POLLIN | POLLRDNORM };
	struct epoll_event ev = { .events = EPOLLIN };
	struct tsamp t0 = { { 0 } }, t1 = { { 0 } };
	int r, ready, epfd;
	bool use_epoll = chance(th, 40);

	ST_INC(th, ops[use_epoll ? K_EPOLL : K_POLL]);
	if (use_epoll) {
		epfd = epoll_create1(EPOLL_CLOEXEC);
		if (epfd < 0 || epoll_ctl(epfd, EPOLL_CTL_ADD, f->fd, &ev)) {
			violation(th, f, V_ERRNO, "epoll set-up: %s",
				  strerror(errno));
			if (epfd >= 0)
				close(epfd);
			return;
		}
		AROUND(f, t, r = epoll_wait(epfd, &ev, 1, 0));
		close(epfd);
		ready = r == 1 && (ev.events & EPOLLIN);
	} else {
		AROUND(f, t, r = poll(&p, 1, 0));
		ready = r == 1 && (p.revents & POLLIN);
		if (r == 1 && (p.revents & ~(POLLIN | POLLRDNORM)))
			violation(th, f, V_ORACLE, "poll: revents %#x",
				  p.revents);
	}
	tlog(th, "%s fd %d -> %d ready %d (model queued %d)",
	     use_epoll ? "epoll" : "poll", f->fd, r, ready, sh_queued(f));
	if (r < 0) {
		bad_errno(th, f, use_epoll ? "epoll_wait" : "poll", r, errno,
			  "success");
		return;
	}
	if (f->manual) {
		ST_INC(th, exact_checks);
		if (ready != (sh_queued(f) > 0))
			violation(th, f, ready ? V_EARLY : V_LOST, "%s: "
				  "readable %d, the model has %d queued",
				  use_epoll ? "epoll" : "poll", ready,
				  sh_queued(f));
		return;
	}
	if (!ready && sh_known_queued(f))
		violation(th, f, V_LOST, "poll: not readable with %d records "
			  "known queued", sh_known_queued(f));
	if (ready && !sh_may_be_queued(f, &t1))
		violation(th, f, V_EARLY, "poll: readable with no timer due");
	(void)t0;
}

/* Waiter helper: blocks in poll, epoll or read until woken. */
struct waiter {
	int fd, mode;		/* 0 poll, 1 epoll, 2 read */
	long ret;
	int err;
	int revents;
	struct twheel_event ev[8];
	int started, done;	/* __atomic */
	struct tsamp t0, t1;
};

static void *waiter_main(void *arg)
{
	struct waiter *w = arg;
	struct pollfd p = { .fd = w->fd, .events = POLLIN };
	struct epoll_event ev = { .events = EPOLLIN };
	int epfd;

	__atomic_store_n(&w->started, 1, __ATOMIC_RELEASE);
	if (w->mode == 0) {
		w->ret = poll(&p, 1, 60000);
		w->err = errno;
		w->revents = p.revents;
	} else if (w->mode == 1) {
		epfd = epoll_create1(EPOLL_CLOEXEC);
		epoll_ctl(epfd, EPOLL_CTL_ADD, w->fd, &ev);
		w->ret = epoll_wait(epfd, &ev, 1, 60000);
		w->err = errno;
		w->revents = ev.events;
		close(epfd);
	} else {
		sample(&w->t0);
		w->ret = read(w->fd, w->ev, sizeof(w->ev));
		w->err = errno;
		sample(&w->t1);
	}
	__atomic_store_n(&w->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

/*
 * Wake-ups: another thread waits (poll, epoll, a blocking read) while this
 * one makes a record due (ADVANCE on a manual clock, or a short real
 * timer). It must be woken: a time-out of 60 s means it was not.
 */
void s_wake(struct th *th, struct sfd *f)
{
	struct waiter w;
	pthread_t tid;
	struct tsamp t0 = { { 0 } }, t1 = { { 0 } };
	struct timespec until;
	int fl, r;

	ST_INC(th, ops[K_WAKE]);
	if (sh_queued(f) || sh_known_queued(f) || f->n >= (int)f->max_timers ||
	    (f->manual && f->now > INT64_MAX / 2))
		return;
	if (!f->manual) {
		/* Only if nothing may be queued: the record must be ours. */
		sample(&t0);
		if (sh_may_be_queued(f, &t0))
			return;
	}
	memset(&w, 0, sizeof(w));
	w.fd = f->fd;
	w.mode = rnd(th, 3);
	/* A timer that will fall due: ADVANCE makes it, or time does. */
	{
		struct twheel_add a;
		long ar;

		memset(&a, 0, sizeof(a));
		a.cookie = new_cookie(th);
		a.clock = f->manual ? valid_clock(th) : CLOCK_MONOTONIC;
		a.expires_ns = f->manual ? (s64)(f->tick * (1 + rnd(th, 3))) :
			(s64)(1 + rnd(th, 20 * MS));
		AROUND(f, t, ar = xioctl(f->fd, TWHEEL_IOC_ADD, &a));
		tlog(th, "wake: add fd %d exp %lld -> %ld %d id %#llx",
		     f->fd, a.expires_ns, ar, errno, a.id);
		if (ar) {
			bad_errno(th, f, "ADD (wake)", ar, errno, "success");
			return;
		}
		sh_created(th, f, a.id, a.cookie, a.clock, 0, a.expires_ns, 0,
			   &t0, &t1, "ADD (wake)");
		if (f->tainted)
			return;
	}
	fl = fcntl(f->fd, F_GETFL);
	if (w.mode == 2)
		fcntl(f->fd, F_SETFL, fl & ~O_NONBLOCK);
	if (pthread_create(&tid, NULL, waiter_main, &w)) {
		fcntl(f->fd, F_SETFL, fl);
		return;
	}
	while (!__atomic_load_n(&w.started, __ATOMIC_ACQUIRE))
		sched_yield();
	if (chance(th, 70))
		twt_sleep_ns(rnd(th, 3 * MS));
	if (f->manual) {
		int64_t now = 0;

		/* The timer is due two ticks on at most. */
		r = twt_advance_raw(f->fd, 4 * f->tick, &now);
		tlog(th, "wake: advance fd %d %llu -> %d now %lld",
		     f->fd, 4 * f->tick, r, (s64)now);
		if (r) {
			bad_errno(th, f, "ADVANCE (wake)", r, errno, "success");
		} else {
			m_advance(f, now);
			if (!sh_queued(f))
				violation(th, f, V_ORACLE, "wake: nothing due "
					  "after the advance");
		}
	}
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += 90;
	r = pthread_timedjoin_np(tid, NULL, &until);
	if (w.mode == 2)
		fcntl(f->fd, F_SETFL, fl);
	tlog(th, "wake: %s on fd %d -> %ld %d revents %#x", w.mode == 0 ?
	     "poll" : w.mode == 1 ? "epoll" : "read", f->fd, w.ret, w.err,
	     w.revents);
	if (r) {
		violation(th, f, V_LOST, "wake: the waiter (%s) is still "
			  "blocked after 90 s", w.mode == 0 ? "poll" :
			  w.mode == 1 ? "epoll" : "read");
		pthread_detach(tid);
		return;
	}
	if (w.mode < 2) {
		if (w.ret != 1 || !(w.revents & POLLIN))
			violation(th, f, V_LOST, "wake: %s returned %ld revents "
				  "%#x (errno %d)", w.mode ? "epoll" : "poll",
				  w.ret, w.revents, w.err);
		return;
	}
	if (w.ret <= 0 || w.ret % EV) {
		violation(th, f, V_LOST, "wake: blocking read returned %ld (%s)",
			  w.ret, strerror(w.err));
		return;
	}
	if (f->manual) {
		size_t q = sh_queued(f), n = w.ret / EV;

		/*
		 * A waiter woken early may update the wheel itself and take
		 * the first records before all are queued: 1 to min(q, 8).
		 */
		if (n > (q < 8 ? q : 8))
			violation(th, f, V_ORACLE, "wake: read %zu records, the "
				  "model has %zu queued", n, q);
	}
	check_records(th, f, w.ev, w.ret / EV, &w.t0, &w.t1);
}
