// SPDX-License-Identifier: GPL-2.0
/*
 * twfuzz_ops.c - the strict operations on timers, one call each: INFO,
 * ADD, CANCEL, MODIFY, QUERY and LIST, valid or not, each checked against
 * the shadow.
 */
#include "twfuzz.h"

/* An id for a call: live, ended, of another fd, random, 0. */
u64 pick_id(struct th *th, struct sfd *f)
{
	unsigned int r = rnd(th, 100);
	struct sfd *o;

	if (r < 62 && f->n)
		return f->t[rnd(th, f->n)].id;
	if (r < 76 && f->ndead)
		return f->dead[rnd(th, f->ndead < NDEAD ? f->ndead : NDEAD)];
	if (r < 86) {
		o = &th->f[rnd(th, FDS_PER_THREAD)];
		if (o->n)
			return o->t[rnd(th, o->n)].id;
		if (o->ndead)
			return o->dead[rnd(th, o->ndead < NDEAD ? o->ndead : NDEAD)];
	}
	if (r < 94)
		return chance(th, 50) ? 1 + rnd(th, 64) :
			(rnd(th, 8) << 35) | (1 + rnd(th, 64));
	if (r < 97)
		return rnd64(th);
	return chance(th, 50) ? 0 : UINT64_MAX;
}

void s_info(struct th *th, struct sfd *f)
{
	struct twheel_info in;
	struct tsamp t0 = { { 0 } }, t1 = { { 0 } };
	enum ptrkind pk = pick_pk(th, 15);
	void *p;
	long r;

	ST_INC(th, ops[K_INFO]);
	memset(&in, 0xAA, sizeof(in));
	p = arg_at(th, pk, &in, sizeof(in));
	AROUND(f, t, r = xioctl(f->fd, TWHEEL_IOC_INFO, p));
	tlog(th, "info fd %d ptr %s -> %ld %d", f->fd, pk_name[pk], r, errno);
	if (pk != P_OK) {
		ST_INC(th, faults);
		if (r != -1 || errno != EFAULT)
			bad_errno(th, f, "INFO (bad pointer)", r, errno, "EFAULT");
		else
			ST_INC(th, invalid);
		return;
	}
	if (r) {
		bad_errno(th, f, "INFO", r, errno, "success");
		return;
	}
	memcpy(&in, p, sizeof(in));
	check_info(th, f, &in, &t1, "INFO");
	(void)t0;
}

void s_add(struct th *th, struct sfd *f)
{
	struct twheel_add a;
	struct tsamp t0 = { { 0 } }, t1 = { { 0 } }, tn;
	bool invalid = false, full = f->n >= (int)f->max_timers;
	enum ptrkind pk = pick_pk(th, 8);
	s64 now;
	void *p;
	long r;
	int e;

	ST_INC(th, ops[K_ADD]);
	if (f->n >= SOFT_LIVE && f->max_timers > SOFT_LIVE)
		return;
	memset(&a, 0, sizeof(a));
	a.cookie = new_cookie(th);
	a.clock = valid_clock(th);
	a.flags = chance(th, 40) ? TWHEEL_ABSTIME : 0;
	sample(&tn);
	now = f->manual ? f->now : tn.t[clk_index(a.clock)];
	a.expires_ns = a.flags ? gen_abs(th, f->tick, f->manual, now) :
			gen_rel(th, f->tick, f->manual);
	a.period_ns = gen_period(th, f->tick, f->manual);
	a.id = rnd64(th);	/* out: ignored on input */
	/* A wall clock deadline a clock set would end (or EINVAL). */
	if (chance(th, 8)) {
		a.flags |= TWHEEL_CANCEL_ON_SET;
		invalid = !cos_ok(a.clock, a.flags);
	}
	switch (chance(th, 12) ? rnd(th, 3) : 3) {
	case 0:
		/* The model knows only TWHEEL_MISSED_COUNT: no policy bits. */
		a.flags |= unknown_bits(th, TWHEEL_ABSTIME | TWHEEL_MISSED_MASK |
					TWHEEL_CANCEL_ON_SET);
		invalid = true;
		break;
	case 1:
		a.clock = bad_clock(th);
		invalid = true;
		break;
	case 2:
		a.flags &= TWHEEL_CANCEL_ON_SET;
		a.expires_ns = chance(th, 50) ? -1 : INT64_MIN + (s64)rnd(th, S);
		invalid = true;
		break;
	}
	p = arg_at(th, pk, &a, sizeof(a));
	AROUND(f, t, r = xioctl(f->fd, TWHEEL_IOC_ADD, p));
	e = errno;
	tlog(th, "add fd %d cookie %#llx exp %lld per %llu"
	     " fl %#x clk %u ptr %s -> %ld %d id %#llx", f->fd, a.cookie,
	     a.expires_ns, a.period_ns, a.flags, a.clock, pk_name[pk], r, e,
	     pk == P_OK ? ((struct twheel_add *)p)->id : 0);
	if (!expect_call(th, f, "ADD", pk, invalid, full, ENOSPC, "ENOSPC",
			 r, e))
		return;
	sh_created(th, f, ((struct twheel_add *)p)->id, a.cookie, a.clock,
		   a.flags, a.expires_ns, a.period_ns, &t0, &t1, "ADD");
}

void s_cancel(struct th *th, struct sfd *f)
{
	struct twheel_cancel c;
	struct tsamp t0 = { { 0 } }, t1 = { { 0 } };
	enum ptrkind pk = pick_pk(th, 8);
	struct stimer *t;
	bool badflags = chance(th, 8);
	void *p;
	long r;
	int e, again;

	ST_INC(th, ops[K_CANCEL]);
	memset(&c, 0, sizeof(c));
	c.id = pick_id(th, f);
	c.flags = badflags ? unknown_bits(th, 0) : 0;
	c.result = rnd64(th);
	t = sh_find(f, c.id);
	p = arg_at(th, pk, &c, sizeof(c));
	AROUND(f, t, r = xioctl(f->fd, TWHEEL_IOC_CANCEL, p));
	e = errno;
	tlog(th, "cancel fd %d id %#llx fl %#x ptr %s -> %ld %d res %u",
	     f->fd, c.id, c.flags, pk_name[pk], r, e,
	     pk == P_OK ? ((struct twheel_cancel *)p)->result : 0);
	if (!expect_call(th, f, "CANCEL", pk, badflags, !t, ENOENT, "ENOENT",
			 r, e))
		return;
	check_result(th, f, t, ((struct twheel_cancel *)p)->result, &t1,
		     "CANCEL");
	ST_INC(th, ended_cancel);
	sh_end(f, t);
	if (chance(th, 30)) {
		/* A second cancel of it: ENOENT. */
		again = twt_cancel_raw(f->fd, c.id, 0, NULL);
		e = errno;
		tlog(th, "cancel again fd %d id %#llx -> %d %d", f->fd,
		     c.id, again, e);
		ST_INC(th, ops[K_CANCEL]);
		if (again != -1 || e != ENOENT)
			bad_errno(th, f, "second CANCEL", again, e, "ENOENT");
	}
	(void)t0;
}

void s_modify(struct th *th, struct sfd *f)
{
	struct twheel_modify m;
	struct tsamp t0 = { { 0 } }, t1 = { { 0 } }, tn;
	enum ptrkind pk = pick_pk(th, 8);
	struct stimer *t;
	bool invalid = false;
	void *p;
	long r;
	int e;

	ST_INC(th, ops[K_MODIFY]);
	memset(&m, 0, sizeof(m));
	m.id = pick_id(th, f);
	t = sh_find(f, m.id);
	m.cookie = new_cookie(th);
	m.flags = rnd(th, 4);	/* ABSTIME, SET_COOKIE */
	sample(&tn);
	m.expires_ns = m.flags & TWHEEL_ABSTIME ?
		gen_abs(th, f->tick, f->manual, f->manual ? f->now :
			tn.t[clk_index(t ? t->clock : CLOCK_MONOTONIC)]) :
		gen_rel(th, f->tick, f->manual);
	m.period_ns = gen_period(th, f->tick, f->manual);
	m.result = rnd64(th);
	/*
	 * By the timer's own clock; an unknown timer is ENOENT first (the
	 * flag's rule needs the timer's clock).
	 */
	if (chance(th, 8)) {
		m.flags |= TWHEEL_CANCEL_ON_SET;
		invalid = t && !cos_ok(t->clock, m.flags);
	}
	if (chance(th, 10)) {
		invalid = true;
		if (chance(th, 50)) {
			m.flags |= unknown_bits(th, TWHEEL_ABSTIME |
						TWHEEL_SET_COOKIE |
						TWHEEL_MISSED_MASK |
						TWHEEL_CANCEL_ON_SET);
		} else {
			m.flags &= ~TWHEEL_ABSTIME;
			m.expires_ns = -1 - (s64)rnd(th, S);
		}
	}
	p = arg_at(th, pk, &m, sizeof(m));
	AROUND(f, t, r = xioctl(f->fd, TWHEEL_IOC_MODIFY, p));
	e = errno;
	tlog(th, "modify fd %d id %#llx cookie %#llx exp %lld"
	     " per %llu fl %#x ptr %s -> %ld %d res %u", f->fd, m.id,
	     m.cookie, m.expires_ns, m.period_ns, m.flags, pk_name[pk], r, e,
	     pk == P_OK ? ((struct twheel_modify *)p)->result : 0);
	if (!expect_call(th, f, "MODIFY", pk, invalid, !t, ENOENT, "ENOENT",
			 r, e))
		return;
	check_result(th, f, t, ((struct twheel_modify *)p)->result, &t1,
		     "MODIFY");
	sh_modified(f, t, m.cookie, m.flags, m.expires_ns, m.period_ns, &t0,
		    &t1);
	if (chance(th, 25)) {
		/* It keeps its id (and its cookie without SET_COOKIE). */
		struct twheel_status st;
		int q;

		ST_INC(th, ops[K_QUERY]);
		AROUND(f, t, q = twt_query_raw(f->fd, m.id, &st));
		if (q)
			bad_errno(th, f, "QUERY after MODIFY", q, errno,
				  "success");
		else
			check_status(th, f, t, &st, &t0, &t1,
				     "QUERY after MODIFY");
	}
}

void s_query(struct th *th, struct sfd *f)
{
	struct twheel_query q;
	struct tsamp t0 = { { 0 } }, t1 = { { 0 } };
	enum ptrkind pk = pick_pk(th, 8);
	struct stimer *t;
	bool invalid = chance(th, 8);
	void *p;
	long r;
	int e;

	ST_INC(th, ops[K_QUERY]);
	memset(&q, 0x5A, sizeof(q));
	q.id = pick_id(th, f);
	q.flags = 0;
	q.__reserved = 0;
	if (invalid) {
		if (chance(th, 50))
			q.flags = unknown_bits(th, 0);
		else
			q.__reserved = 1 + rnd(th, 0xffff);
	}
	t = sh_find(f, q.id);
	p = arg_at(th, pk, &q, sizeof(q));
	AROUND(f, t, r = xioctl(f->fd, TWHEEL_IOC_QUERY, p));
	e = errno;
	tlog(th, "query fd %d id %#llx fl %#x res %#x ptr %s -> %ld %d",
	     f->fd, q.id, q.flags, q.__reserved, pk_name[pk], r, e);
	if (!expect_call(th, f, "QUERY", pk, invalid, !t, ENOENT, "ENOENT",
			 r, e))
		return;
	memcpy(&q, p, sizeof(q));
	check_status(th, f, t, &q.status, &t0, &t1, "QUERY");
}

/*
 * A whole listing (cursor 0 until 0), capacity per call random: every
 * timer of the shadow exactly once, each status right. With bad_pct, a
 * call may also be invalid or point at bad memory (it must then fail as
 * documented and change nothing).
 */
void s_list(struct th *th, struct sfd *f, unsigned int bad_pct)
{
	struct twheel_status *st = (struct twheel_status *)th->buf;
	struct twheel_list l, *lp;
	struct tsamp t0 = { { 0 } }, t1 = { { 0 } };
	uint8_t *seen;
	int calls = 0, got = 0, i;
	u64 cursor = 0;
	long r;
	int e;

	ST_INC(th, ops[K_LIST]);
	seen = calloc(f->n + 1, 1);
	if (!seen)
		_exit(2);
	(void)t0;
	while (!f->tainted) {
		uint32_t cap = 1 + rnd(th, chance(th, 50) ? 4 : f->n + 4);
		enum ptrkind pk = P_OK, spk = P_OK;
		size_t fit = 0, want;
		int kind = chance(th, bad_pct) ? 1 + rnd(th, 5) : 0;
		char zero[64 * sizeof(*st)];

		if (cap > 1000)
			cap = 1000;
		memset(&l, 0, sizeof(l));
		l.capacity = cap;
		l.cursor = cursor;
		l.status_size = sizeof(*st);
		l.count = rnd64(th);
		switch (kind) {
		case 1:
			l.capacity = 0;
			break;
		case 2:
			l.status_size = chance(th, 50) ? 0 : sizeof(*st) +
				(chance(th, 50) ? 8 : -8);
			break;
		case 3:
			l.flags = unknown_bits(th, 0);
			break;
		case 4:
			pk = 1 + rnd(th, P_NKINDS - 1);
			break;
		case 5:
			spk = 1 + rnd(th, P_NKINDS - 1);
			break;
		}
		memset(zero, 0, sizeof(zero));
		if (spk == P_OK) {
			l.statuses = (uintptr_t)(th->buf + 4096);
		} else {
			l.statuses = (uintptr_t)arr_at(th, spk, zero, sizeof(*st),
							cap < 64 ? cap : 64, &fit);
		}
		if (spk != P_OK && spk != P_HALF)
			fit = 0;
		lp = arg_at(th, pk, &l, sizeof(l));
		if (++calls > f->n * 2 + 64) {
			violation(th, f, V_ORACLE, "LIST: no end after %d calls "
				  "(%d of %d timers)", calls, got, f->n);
			break;
		}
		AROUND(f, t, r = xioctl(f->fd, TWHEEL_IOC_LIST, lp));
		e = errno;
		tlog(th, "list fd %d cap %u cursor %#llx size %u fl %#x "
		     "ptr %s st %s (fit %zu) -> %ld %d count %u cursor %#llx",
		     f->fd, l.capacity, l.cursor, l.status_size, l.flags,
		     pk_name[pk], pk_name[spk], fit, r, e,
		     pk == P_OK ? lp->count : 0, pk == P_OK ? lp->cursor : 0);
		if (pk != P_OK) {
			ST_INC(th, faults);
			if (r != -1 || e != EFAULT)
				bad_errno(th, f, "LIST (bad argument pointer)",
					  r, e, "EFAULT");
			continue;	/* nothing changed: the same cursor */
		}
		if (kind >= 1 && kind <= 3) {
			if (r != -1 || e != EINVAL)
				bad_errno(th, f, "LIST (invalid)", r, e, "EINVAL");
			else
				ST_INC(th, invalid);
			continue;
		}
		if (spk != P_OK) {
			/*
			 * The statuses go to memory with room for `fit`; at
			 * the start of a listing the call writes min(cap,
			 * timers left): EFAULT iff more than fit.
			 */
			ST_INC(th, faults);
			want = f->n - got;
			if (want > cap)
				want = cap;
			if (cursor == 0 && want > fit) {
				if (r != -1 || e != EFAULT)
					bad_errno(th, f, "LIST (statuses fault)",
						  r, e, "EFAULT");
				continue;
			}
			if (cursor != 0 && r == -1 && e == EFAULT)
				continue;
			if (r) {
				bad_errno(th, f, "LIST (statuses fit)", r, e,
					  "success");
				break;
			}
			/* It fit: take what it wrote. */
			memcpy(th->buf + 4096, (void *)(uintptr_t)l.statuses,
			       lp->count * sizeof(*st));
		}
		if (r) {
			bad_errno(th, f, "LIST", r, e, "success");
			break;
		}
		if (lp->count > l.capacity) {
			violation(th, f, V_ORACLE, "LIST: count %u > capacity %u",
				  lp->count, l.capacity);
			break;
		}
		st = (struct twheel_status *)(th->buf + 4096);
		for (i = 0; i < (int)lp->count; i++) {
			struct stimer *t = sh_find(f, st[i].id);

			if (!t) {
				violation(th, f, V_ORACLE, "LIST: id %#llx"
					  " is no live timer%s", st[i].id,
					  sh_dead(f, st[i].id) ? " (it ended)" : "");
				goto done;
			}
			if (seen[t - f->t]++) {
				violation(th, f, V_ORACLE, "LIST: id %#llx"
					  " twice in one listing", st[i].id);
				goto done;
			}
			got++;
			check_status(th, f, t, &st[i], &t0, &t1, "LIST");
			if (f->tainted)
				goto done;
		}
		cursor = lp->cursor;
		if (!cursor)
			break;
		if (calls > f->n * 2 + 64) {
			violation(th, f, V_ORACLE, "LIST: no end after %d calls "
				  "(%d of %d timers)", calls, got, f->n);
			break;
		}
	}
	if (!f->tainted && got != f->n)
		violation(th, f, V_ORACLE, "LIST: %d timers listed, the shadow "
			  "has %d", got, f->n);
done:
	free(seen);
}

/* LIST from a random cursor: whatever comes must be live timers. */
void s_list_cursor(struct th *th, struct sfd *f)
{
	struct twheel_status *st = (struct twheel_status *)th->buf;
	struct twheel_list l;
	long r;
	uint32_t i;

	ST_INC(th, ops[K_LIST]);
	memset(&l, 0, sizeof(l));
	l.statuses = (uintptr_t)st;
	l.capacity = 1 + rnd(th, 64);
	l.status_size = sizeof(*st);
	l.cursor = chance(th, 50) ? rnd(th, 300) : rnd64(th);
	r = xioctl(f->fd, TWHEEL_IOC_LIST, &l);
	tlog(th, "list fd %d cursor %#llx cap %u -> %ld %d count %u",
	     f->fd, l.cursor, l.capacity, r, errno, l.count);
	if (r) {
		bad_errno(th, f, "LIST (cursor)", r, errno, "success");
		return;
	}
	if (l.count > l.capacity)
		violation(th, f, V_ORACLE, "LIST: count %u > capacity %u",
			  l.count, l.capacity);
	for (i = 0; i < l.count && i < l.capacity; i++)
		if (!sh_find(f, st[i].id)) {
			violation(th, f, V_ORACLE, "LIST from cursor: id %#"
				  "llx is no live timer", st[i].id);
			return;
		}
}
