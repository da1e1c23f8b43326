/* SPDX-License-Identifier: GPL-2.0 */
/*
 * faults_ops.h - the op walks (faults.c, faults_submit.c): ADD, MODIFY,
 * CANCEL, QUERY or a SUBMIT of several, the operations given as templates
 * (struct optmpl: OP_ADD(), OP_MOD(), ...; walk_ops()), every round
 * checked against the model of the fd (struct model, check_ops()).
 */
#ifndef FAULTS_OPS_H
#define FAULTS_OPS_H

#include "faults.h"

/* ---- op walks: ADD, MODIFY, CANCEL, QUERY, SUBMIT ----------------------- */

/* One operation of an op walk, as the test gives it. */
struct optmpl {
	struct twheel_op op;	/* id: see target */
	uint64_t target;	/* the cookie of the timer it names (0: op.id) */
	int abs_now;		/* expires_ns is an offset from its clock's now */
	int xerr;		/* the error it must fail with, or 0 */
};

struct opsarg {
	int single;		/* the ioctl of the one operation, or SUBMIT */
	size_t n;
	const struct optmpl *t;
};

struct model {
	uint32_t n;
	struct twheel_status st[MAX_TIMERS];
	int64_t lo[MAX_TIMERS], hi[MAX_TIMERS];	/* the deadline's bounds */
	size_t nq;
	uint64_t q[MAX_EV];			/* queued records (cookies) */
};

static struct model model_;

static inline uint64_t id_of(int fd, uint64_t cookie)
{
	static struct twheel_status st[MAX_TIMERS];
	uint32_t n = list_all(fd, st, MAX_TIMERS), k;

	for (k = 0; k < n; k++)
		if (st[k].cookie == cookie)
			return st[k].id;
	twt_fail(__FILE__, __LINE__, "no timer with cookie %llu", U(cookie));
}

static inline void prepare_ops(struct wround *w)
{
	const struct opsarg *a = w->wk->arg;
	size_t k;

	w->fd = setup_fd(w->wk->setup, &w->manual);
	w->nops = a->n;
	for (k = 0; k < a->n; k++) {
		struct twheel_op *op = &w->sent[k];

		*op = a->t[k].op;
		w->xerr[k] = a->t[k].xerr;
		if (a->t[k].target)
			op->id = id_of(w->fd, a->t[k].target);
		if (a->t[k].abs_now)
			op->expires_ns += w->manual ? twt_advance(w->fd, 0) :
					  twt_now(op->clock);
	}
	/* Touched now: no page fault (and its allocations) in the call. */
	memset(w->ops, 0, sizeof(w->ops));
	memset(&w->u, 0, sizeof(w->u));
}

static inline long call_ops(struct wround *w)
{
	const struct opsarg *a = w->wk->arg;
	const struct twheel_op *op = &w->sent[0];

	if (!a->single) {
		memcpy(w->ops, w->sent, w->nops * sizeof(*w->ops));
		return twt_submit_raw(w->fd, w->ops, w->nops);
	}
	memset(&w->u, 0, sizeof(w->u));
	switch (op->op) {
	case TWHEEL_OP_ADD:
		w->u.add.cookie = op->cookie;
		w->u.add.expires_ns = op->expires_ns;
		w->u.add.period_ns = op->period_ns;
		w->u.add.flags = op->flags;
		w->u.add.clock = op->clock;
		w->usent = w->u;
		return ioctl(w->fd, TWHEEL_IOC_ADD, &w->u.add);
	case TWHEEL_OP_MODIFY:
		w->u.modify.id = op->id;
		w->u.modify.cookie = op->cookie;
		w->u.modify.expires_ns = op->expires_ns;
		w->u.modify.period_ns = op->period_ns;
		w->u.modify.flags = op->flags;
		w->usent = w->u;
		return ioctl(w->fd, TWHEEL_IOC_MODIFY, &w->u.modify);
	case TWHEEL_OP_CANCEL:
		w->u.cancel.id = op->id;
		w->u.cancel.flags = op->flags;
		w->usent = w->u;
		return ioctl(w->fd, TWHEEL_IOC_CANCEL, &w->u.cancel);
	default:
		w->u.query.id = op->id;
		w->u.query.flags = op->flags;
		w->usent = w->u;
		return ioctl(w->fd, TWHEEL_IOC_QUERY, &w->u.query);
	}
}

/* A single ioctl's struct back as the operation SUBMIT would write. */
static inline void single_out(struct wround *w, struct twheel_op *out)
{
	const struct twheel_op *op = &w->sent[0];

	*out = *op;
	out->error = out->result = 0;
	out->count = out->remaining_ns = 0;
	switch (op->op) {
	case TWHEEL_OP_ADD:
		out->id = w->u.add.id;
		w->u.add.id = 0;
		CHECK(!memcmp(&w->u.add, &w->usent.add, sizeof(w->u.add)));
		break;
	case TWHEEL_OP_MODIFY:
		out->result = w->u.modify.result;
		w->u.modify.result = 0;
		CHECK(!memcmp(&w->u.modify, &w->usent.modify,
			      sizeof(w->u.modify)));
		break;
	case TWHEEL_OP_CANCEL:
		out->result = w->u.cancel.result;
		w->u.cancel.result = 0;
		CHECK(!memcmp(&w->u.cancel, &w->usent.cancel,
			      sizeof(w->u.cancel)));
		break;
	default:
		CHECK_EQ(w->u.query.status.id, op->id);
		CHECK_EQ(w->u.query.flags, 0);
		CHECK_EQ(w->u.query.__reserved, 0);
		out->cookie = w->u.query.status.cookie;
		out->expires_ns = w->u.query.status.deadline_ns;
		out->period_ns = w->u.query.status.period_ns;
		out->clock = w->u.query.status.clock;
		out->result = w->u.query.status.state;
		out->count = w->u.query.status.count;
		out->remaining_ns = w->u.query.status.remaining_ns;
		break;
	}
}

static inline int model_find(const struct model *m, uint64_t id)
{
	uint32_t k;

	for (k = 0; k < m->n; k++)
		if (m->st[k].id == id)
			return k;
	return -1;
}

static inline void model_unqueue(struct model *m, uint64_t cookie)
{
	size_t k;

	for (k = 0; k < m->nq && m->q[k] != cookie; k++)
		;
	CHECK(k < m->nq);
	memmove(&m->q[k], &m->q[k + 1], (m->nq - k - 1) * sizeof(m->q[0]));
	m->nq--;
}

static inline int64_t roundup_tick(int64_t ns, int64_t tick)
{
	int64_t r = ns % tick;

	if (r < 0)
		r += tick;
	return r ? ns - r + tick : ns;
}

/*
 * Model entry k becomes a timer (re)armed by ADD or MODIFY @in (its clock
 * already set): pending with its deadline, or queued when due at once.
 */
static inline void model_arm(struct model *m, int k, const struct twheel_op *in,
		      const struct wround *w)
{
	struct twheel_status *st = &m->st[k];
	int64_t tick = w->before.info.tick_ns, lo, hi, t0, t1;
	int c = clk_index(st->clock);

	t0 = w->manual ? w->before.now : w->t0[c];
	t1 = w->manual ? w->before.now : w->t1[c];
	st->period_ns = in->period_ns ?
			(in->period_ns < (uint64_t)tick ? (uint64_t)tick :
							  in->period_ns) : 0;
	if (in->flags & TWHEEL_ABSTIME) {
		lo = hi = in->expires_ns;
	} else {
		lo = t0 + in->expires_ns;
		hi = t1 + in->expires_ns;
	}
	if (hi <= t0) {
		/* Due at once: queued behind every record (one-shot only here). */
		CHECK_EQ(in->period_ns, 0);
		st->state = TWHEEL_STATE_QUEUED;
		st->deadline_ns = 0;
		st->count = 1;
		m->lo[k] = m->hi[k] = 0;
		CHECK(m->nq < MAX_EV);
		m->q[m->nq++] = st->cookie;
		return;
	}
	CHECK(lo > t1);		/* the test gives clear cases only */
	st->state = TWHEEL_STATE_PENDING;
	st->count = 0;
	m->lo[k] = st->period_ns ? lo : roundup_tick(lo, tick);
	m->hi[k] = st->period_ns ? hi : roundup_tick(hi, tick);
	st->deadline_ns = m->lo[k];
}

/* Could @in fail alone with ENOMEM (it allocates)? */
static inline int may_nomem(const struct model *m, const struct twheel_op *in)
{
	int k;

	if (in->op == TWHEEL_OP_ADD)
		return 1;
	if (in->op != TWHEEL_OP_MODIFY || !in->period_ns)
		return 0;
	/* "making a one-shot timer periodic may allocate" */
	k = model_find(m, in->id);
	return k >= 0 && m->st[k].period_ns == 0;
}

/* Check one operation's written-back outcome and apply it to the model. */
static inline void model_op(struct model *m, struct wround *w, size_t i, int done)
{
	const struct twheel_op *in = &w->sent[i];
	struct twheel_op *out = &w->ops[i], x;
	int k;

	if (!done) {
		/* Not done: the caller's copy is as given. */
		CHECK(!memcmp(out, in, sizeof(*in)));
		return;
	}
	/* Every field but the outputs is written back as given. */
	x = *out;
	x.error = in->error;
	x.result = in->result;
	x.count = in->count;
	x.remaining_ns = in->remaining_ns;
	if (in->op == TWHEEL_OP_ADD)
		x.id = in->id;
	if (in->op == TWHEEL_OP_QUERY) {
		x.cookie = in->cookie;
		x.expires_ns = in->expires_ns;
		x.period_ns = in->period_ns;
		x.clock = in->clock;
	}
	CHECK(!memcmp(&x, in, sizeof(x)));
	if (out->error) {
		if (w->xerr[i]) {
			CHECK_EQ(out->error, w->xerr[i]);
		} else {
			/* Only an injected allocation failure, documented. */
			if (out->error != -ENOMEM || !w->inj || !may_nomem(m, in)) {
				print_where();
				twt_fail(__FILE__, __LINE__,
					 "%s: op %zu (op %u) failed: %s",
					 w->wk->name, i, in->op,
					 strerror(-out->error));
			}
			w->opfail = 1;
		}
		CHECK_EQ(out->result, 0);
		CHECK_EQ(out->count, 0);
		CHECK_EQ(out->remaining_ns, 0);
		if (in->op == TWHEEL_OP_ADD)
			CHECK_EQ(out->id, 0);
		if (in->op == TWHEEL_OP_QUERY)
			CHECK(!out->cookie && !out->expires_ns &&
			      !out->period_ns && !out->clock);
		return;
	}
	if (w->xerr[i])
		twt_fail(__FILE__, __LINE__, "%s: op %zu succeeded, want %s",
			 w->wk->name, i, strerror(-w->xerr[i]));
	if (in->op == TWHEEL_OP_ADD) {
		CHECK(out->id != 0);
		CHECK_EQ(model_find(m, out->id), -1);
		CHECK_EQ(out->result, 0);
		CHECK_EQ(out->count, 0);
		CHECK_EQ(out->remaining_ns, 0);
		CHECK(m->n < MAX_TIMERS);
		k = m->n++;
		memset(&m->st[k], 0, sizeof(m->st[k]));
		m->st[k].id = out->id;
		m->st[k].cookie = in->cookie;
		m->st[k].clock = in->clock;
		model_arm(m, k, in, w);
		return;
	}
	k = model_find(m, in->id);
	CHECK(k >= 0);
	switch (in->op) {
	case TWHEEL_OP_MODIFY:
		CHECK_EQ(out->result, m->st[k].state);
		CHECK_EQ(out->count, 0);
		CHECK_EQ(out->remaining_ns, 0);
		if (m->st[k].state == TWHEEL_STATE_QUEUED)
			model_unqueue(m, m->st[k].cookie);
		if (in->flags & TWHEEL_SET_COOKIE)
			m->st[k].cookie = in->cookie;
		model_arm(m, k, in, w);
		break;
	case TWHEEL_OP_CANCEL:
		CHECK_EQ(out->result, m->st[k].state);
		CHECK_EQ(out->count, 0);
		CHECK_EQ(out->remaining_ns, 0);
		if (m->st[k].state == TWHEEL_STATE_QUEUED)
			model_unqueue(m, m->st[k].cookie);
		m->n--;
		m->st[k] = m->st[m->n];
		m->lo[k] = m->lo[m->n];
		m->hi[k] = m->hi[m->n];
		break;
	case TWHEEL_OP_QUERY:
		CHECK_EQ(out->cookie, m->st[k].cookie);
		CHECK_EQ(out->clock, m->st[k].clock);
		CHECK_EQ(out->period_ns, m->st[k].period_ns);
		CHECK_EQ(out->result, m->st[k].state);
		CHECK_EQ(out->count, m->st[k].count);
		CHECK(out->expires_ns >= m->lo[k] && out->expires_ns <= m->hi[k]);
		if (w->manual)
			CHECK_EQ(out->remaining_ns,
				 out->expires_ns > w->before.now ?
				 out->expires_ns - w->before.now : 0);
		break;
	}
}

/* The fd is exactly the model: timers, counts, then the records in order. */
static inline void model_compare(struct model *m, struct wround *w)
{
	const struct snap *a = &w->after;
	uint32_t i;
	size_t n, k;
	int j;

	CHECK_EQ(a->n, m->n);
	for (i = 0; i < a->n; i++) {
		const struct twheel_status *s = &a->st[i];

		j = model_find(m, s->id);
		if (j < 0 || s->cookie != m->st[j].cookie ||
		    s->clock != m->st[j].clock ||
		    s->period_ns != m->st[j].period_ns ||
		    s->state != m->st[j].state || s->count != m->st[j].count ||
		    s->deadline_ns < m->lo[j] || s->deadline_ns > m->hi[j]) {
			print_where();
			print_status("fd has", s);
			if (j >= 0)
				print_status("model has", &m->st[j]);
			twt_fail(__FILE__, __LINE__,
				 "%s: timer %#llx is not as the model says",
				 w->wk->name, U(s->id));
		}
	}
	CHECK_EQ(a->info.queued, m->nq);
	n = twt_drain(w->fd, drain_ev, MAX_EV);
	CHECK_EQ(n, m->nq);
	for (k = 0; k < n; k++) {
		const struct twheel_event *e = &drain_ev[k];
		const struct twheel_status *s = snap_find(a, e->cookie);

		if (e->cookie != m->q[k] || !s || e->id != s->id ||
		    e->clock != s->clock || e->count != s->count || e->flags) {
			print_where();
			twt_fail(__FILE__, __LINE__,
				 "%s: record %zu: cookie %llu id %#llx count %llu, the model's is cookie %llu",
				 w->wk->name, k, U(e->cookie), U(e->id),
				 U(e->count), U(m->q[k]));
		}
	}
	CHECK_NONE_QUEUED(w->fd);
	w->drained = 1;
}

static inline void check_ops(struct wround *w, long r)
{
	const struct opsarg *a = w->wk->arg;
	struct model *m = &model_;
	size_t i, done;

	if (a->single) {
		CHECK_EQ(r, 0);
		single_out(w, &w->ops[0]);
		done = 1;
	} else {
		CHECK(r >= 0 && (size_t)r <= w->nops);
		done = r;
		if (done < w->nops) {
			/* Stopped before an operation it could not read. */
			CHECK(w->inj);
			w->partial = 1;
		}
	}
	m->n = w->before.n;
	memcpy(m->st, w->before.st, m->n * sizeof(m->st[0]));
	for (i = 0; i < m->n; i++)
		m->lo[i] = m->hi[i] = m->st[i].deadline_ns;
	m->nq = w->npreq;
	memcpy(m->q, w->preq, m->nq * sizeof(m->q[0]));
	CHECK_EQ(m->nq, w->before.info.queued);
	for (i = 0; i < w->nops; i++)
		model_op(m, w, i, i < done);
	model_compare(m, w);
}

/*
 * After a failed call on an fd that never had a timer: no timer was
 * created, so the fd may still be configured ("allowed only before the
 * fd's first timer is added"); as it was, so nothing changes.
 */
static inline void after_fail_config(struct wround *w)
{
	struct snap *s = &w->after;

	if (w->wk->setup != S_FRESH && w->wk->setup != S_MANUAL_FRESH)
		return;
	twt_config(w->fd, w->before.info.tick_ns, w->before.info.config_flags);
	take_snap(w->fd, s);
	CHECK_SAME(&w->before, s);
}

static inline void walk_ops(const char *name, enum setup s, int single,
		     const struct optmpl *t, size_t n, int errs)
{
	struct opsarg a = { .single = single, .n = n, .t = t };
	struct walk wk = {
		.name = name, .prepare = prepare_ops, .call = call_ops,
		.check = check_ops, .after_fail = after_fail_config,
		.errs = errs, .need_failure = 1, .setup = s, .arg = &a,
	};

	CHECK(n <= MAX_OPS);
	walk(&wk);
}

#define OP_ADD(c, e, p, f, clk)						\
	{ .op = { .op = TWHEEL_OP_ADD, .cookie = (c), .expires_ns = (e),\
		  .period_ns = (p), .flags = (f), .clock = (clk) } }
#define OP_ADD_ABS(c, off, clk)						\
	{ .op = { .op = TWHEEL_OP_ADD, .cookie = (c),			\
		  .expires_ns = (off), .flags = TWHEEL_ABSTIME,		\
		  .clock = (clk) }, .abs_now = 1 }
#define OP_MOD(tc, c, e, p, f)						\
	{ .op = { .op = TWHEEL_OP_MODIFY, .cookie = (c), .expires_ns = (e), \
		  .period_ns = (p), .flags = (f) }, .target = (tc) }
#define OP_MOD_ABS(tc, off)						\
	{ .op = { .op = TWHEEL_OP_MODIFY, .expires_ns = (off),		\
		  .flags = TWHEEL_ABSTIME }, .target = (tc), .abs_now = 1 }
#define OP_CANCEL(tc)							\
	{ .op = { .op = TWHEEL_OP_CANCEL }, .target = (tc) }
#define OP_QUERY(tc)							\
	{ .op = { .op = TWHEEL_OP_QUERY }, .target = (tc) }

#endif /* FAULTS_OPS_H */
