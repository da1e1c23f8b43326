// SPDX-License-Identifier: GPL-2.0
/*
 * twfuzz_model.c - the shadow of a strict fd: the timers it holds, and
 * how a call changes them. On a TWHEEL_CONFIG_MANUAL fd the shadow is an
 * exact model of the header's rules (due at the deadline tick, queue
 * order, counts, statuses); on a real-clock fd it keeps bounds (the
 * deadline between two clock readings) and checks what cannot depend on
 * the machine's speed.
 */
#include "twfuzz.h"

struct stimer *sh_find(struct sfd *f, u64 id)
{
	int i;

	for (i = 0; i < f->n; i++)
		if (f->t[i].id == id)
			return &f->t[i];
	return NULL;
}

bool sh_dead(struct sfd *f, u64 id)
{
	unsigned int i, n = f->ndead < NDEAD ? f->ndead : NDEAD;

	for (i = 0; i < n; i++)
		if (f->dead[i] == id)
			return true;
	return false;
}

static struct stimer *sh_new(struct sfd *f)
{
	struct stimer *t;

	if (f->n == f->cap) {
		f->cap = f->cap ? 2 * f->cap : 64;
		f->t = realloc(f->t, f->cap * sizeof(*f->t));
		if (!f->t) {
			out("# out of memory\n");
			_exit(2);
		}
	}
	t = &f->t[f->n++];
	memset(t, 0, sizeof(*t));
	return t;
}

/* The timer has ended (read, cancelled): forget it, remember its id. */
void sh_end(struct sfd *f, struct stimer *t)
{
	f->dead[f->ndead++ % NDEAD] = t->id;
	*t = f->t[--f->n];
}

int sh_queued(struct sfd *f)
{
	int i, q = 0;

	for (i = 0; i < f->n; i++)
		q += f->t[i].state == TWHEEL_STATE_QUEUED;
	return q;
}

int sh_known_queued(struct sfd *f)
{
	int i, q = 0;

	for (i = 0; i < f->n; i++)
		q += f->t[i].known_queued;
	return q;
}

/* Real clock: timers that may be queued by t1 (their deadline passed). */
int sh_may_be_queued(struct sfd *f, const struct tsamp *t1)
{
	int i, q = 0;

	for (i = 0; i < f->n; i++) {
		struct stimer *t = &f->t[i];

		q += t->known_queued || t->dlo <= t1->t[clk_index(t->clock)];
	}
	return q;
}

/*
 * The header's rule (struct twheel_add): does the wheel hold a pending
 * timer in the slot of tick dt, i.e. one whose deadline tick has the same
 * level and slot relative to the clock (the highest 6-bit digit in which
 * it differs from the clock's tick, and that digit)?
 */
static bool m_holds(struct sfd *f, u64 dt, struct stimer *except)
{
	u64 clk = now_tick(f->now, f->tick);
	unsigned int lvl = (63 - __builtin_clzll(dt ^ clk)) / 6, l2;
	int i;

	for (i = 0; i < f->n; i++) {
		struct stimer *t = &f->t[i];

		if (t == except || t->state != TWHEEL_STATE_PENDING ||
		    t->dtick <= clk)
			continue;
		l2 = (63 - __builtin_clzll(t->dtick ^ clk)) / 6;
		if (l2 == lvl && ((t->dtick >> (6 * lvl)) & 63) ==
		    ((dt >> (6 * lvl)) & 63))
			return true;
	}
	return false;
}

/*
 * Manual model, the header's placement rule (struct twheel_add): a timer
 * whose deadline tick has been reached is queued at once; so is one whose
 * deadline has passed inside the current tick, unless the wheel holds a
 * pending timer in that tick's slot; else it waits in the wheel.
 */
void m_place(struct sfd *f, struct stimer *t, s64 d)
{
	u64 dt = dl_tick(d, f->tick), nt = now_tick(f->now, f->tick);

	t->dlo = t->dhi = d;
	if (d <= f->now && (dt <= nt || !m_holds(f, dt, t))) {
		t->state = TWHEEL_STATE_QUEUED;
		t->qseq = ++f->qseq;
		t->qtime = f->now;
		return;
	}
	t->state = TWHEEL_STATE_PENDING;
	t->dtick = dt;
	t->seq = ++f->seq;
}

static int m_due_cmp(const void *a, const void *b)
{
	const struct stimer *x = *(struct stimer *const *)a;
	const struct stimer *y = *(struct stimer *const *)b;

	if (x->dtick != y->dtick)
		return x->dtick < y->dtick ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Manual model: the clock moves to now; what is due is queued, in order. */
void m_advance(struct sfd *f, s64 now)
{
	u64 nt = now_tick(now, f->tick);
	struct stimer **due;
	int i, k = 0;

	f->now = now;
	due = malloc(sizeof(*due) * (f->n + 1));
	if (!due)
		_exit(2);
	for (i = 0; i < f->n; i++)
		if (f->t[i].state == TWHEEL_STATE_PENDING && f->t[i].dtick <= nt)
			due[k++] = &f->t[i];
	qsort(due, k, sizeof(*due), m_due_cmp);
	for (i = 0; i < k; i++) {
		due[i]->state = TWHEEL_STATE_QUEUED;
		due[i]->qseq = ++f->qseq;
		due[i]->qtime = now;
	}
	free(due);
}

/* Manual model: the queued timer whose record comes next. */
struct stimer *m_next_record(struct sfd *f)
{
	struct stimer *best = NULL;
	int i;

	for (i = 0; i < f->n; i++)
		if (f->t[i].state == TWHEEL_STATE_QUEUED &&
		    (!best || f->t[i].qseq < best->qseq))
			best = &f->t[i];
	return best;
}

/* Manual model: a timer's status as QUERY and LIST must report it. */
void m_status(struct sfd *f, struct stimer *t, struct twheel_status *st)
{
	s64 next = 0;
	bool coming = true;

	memset(st, 0, sizeof(*st));
	st->id = t->id;
	st->cookie = t->cookie;
	st->clock = t->clock;
	st->period_ns = t->period;
	if (t->state == TWHEEL_STATE_PENDING) {
		st->state = TWHEEL_STATE_PENDING;
		next = t->period ? t->dlo : tick_ns(t->dtick, f->tick);
	} else if (t->period) {
		st->state = TWHEEL_STATE_QUEUED;
		st->count = pcount(t->dlo, t->period, f->now);
		next = periods_after(t->dlo, st->count, t->period);
	} else {
		st->state = TWHEEL_STATE_QUEUED;
		st->count = 1;
		coming = false;
	}
	if (coming) {
		st->deadline_ns = next;
		st->remaining_ns = next > f->now ? next - f->now : 0;
	}
}

/*
 * Place @t in the shadow as ADD or MODIFY armed it (@flags, @expires):
 * on a manual clock exactly (m_place()); on a real one, its deadline
 * known to lie between what the clock said before the call (@t0) and
 * after it (@t1).
 */
static void sh_arm(struct sfd *f, struct stimer *t, uint32_t flags,
		   s64 expires, const struct tsamp *t0, const struct tsamp *t1)
{
	int c = clk_index(t->clock);

	if (f->manual) {
		m_place(f, t, flags & TWHEEL_ABSTIME ? expires :
			add_sat(f->now, expires));
		return;
	}
	t->state = TWHEEL_STATE_PENDING;
	if (flags & TWHEEL_ABSTIME) {
		t->dlo = t->dhi = expires;
		t->via_wheel = expires > t1->t[c];
	} else {
		t->dlo = add_sat(t0->t[c], expires);
		t->dhi = add_sat(t1->t[c], expires);
		t->via_wheel = expires > 0;
	}
}

/* A timer was created: put it in the shadow. */
void sh_created(struct th *th, struct sfd *f, u64 id,
		u64 cookie, uint32_t clock, uint32_t flags,
		s64 expires, u64 period,
		const struct tsamp *t0, const struct tsamp *t1,
		const char *what)
{
	struct stimer *t;

	if (!id || sh_find(f, id) || sh_dead(f, id)) {
		violation(th, f, V_ORACLE, "%s: new id %#llx is %s", what,
			  id, !id ? "0" : sh_find(f, id) ? "live already" :
			  "one that was used before");
		return;
	}
	ST_INC(th, created);
	if (!f->manual)
		ST_INC(th, real_created);
	f->used = true;
	t = sh_new(f);
	t->id = id;
	t->cookie = cookie;
	t->clock = clock;
	t->cos = flags & TWHEEL_CANCEL_ON_SET;
	t->period = eff_period(period, f->tick);
	sh_arm(f, t, flags, expires, t0, t1);
}

/* A timer was re-armed by MODIFY: place it again in the shadow. */
void sh_modified(struct sfd *f, struct stimer *t, u64 cookie,
		 uint32_t flags, s64 expires, u64 period,
		 const struct tsamp *t0, const struct tsamp *t1)
{
	t->period = eff_period(period, f->tick);
	if (flags & TWHEEL_SET_COOKIE)
		t->cookie = cookie;
	t->cos = flags & TWHEEL_CANCEL_ON_SET;
	t->known_queued = false;
	if (f->manual)
		t->state = 0;	/* out of the wheel and the queue */
	sh_arm(f, t, flags, expires, t0, t1);
}
