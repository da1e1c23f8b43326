// SPDX-License-Identifier: GPL-2.0
/*
 * twfuzz_check.c - what a strict fd reports (statuses, records, the
 * result of CANCEL and MODIFY, INFO) against its shadow. Every call's
 * result is checked against it: records are of live timers, never early,
 * one-shots end once with count 1, a cancelled timer never reports, ids
 * are never reused, INFO/QUERY/LIST agree with the shadow, and an invalid
 * call fails with the errno the header documents and changes nothing.
 */
#include "twfuzz.h"

static void fmt_status(char *b, size_t n, const struct twheel_status *st)
{
	snprintf(b, n, "{id %#llx cookie %#llx deadline %lld"
		 " period %llu count %llu remaining %lld"
		 " clock %u state %u}", st->id, st->cookie, st->deadline_ns,
		 st->period_ns, st->count, st->remaining_ns, st->clock,
		 st->state);
}

/*
 * A status the kernel reported (QUERY, LIST, a batch's QUERY) against
 * the shadow. t0/t1: the clocks before and after the call.
 */
void check_status(struct th *th, struct sfd *f, struct stimer *t,
		  const struct twheel_status *st,
		  const struct tsamp *t0, const struct tsamp *t1,
		  const char *what)
{
	char got[256], want[256];
	int c = clk_index(t->clock);
	s64 lo, hi;

	if (f->manual) {
		struct twheel_status m;

		ST_INC(th, exact_checks);
		m_status(f, t, &m);
		if (!memcmp(&m, st, sizeof(m)))
			return;
		fmt_status(got, sizeof(got), st);
		fmt_status(want, sizeof(want), &m);
		violation(th, f, st->state == TWHEEL_STATE_QUEUED &&
			  m.state == TWHEEL_STATE_PENDING ? V_EARLY :
			  st->state == TWHEEL_STATE_PENDING &&
			  m.state == TWHEEL_STATE_QUEUED ? V_LOST : V_ORACLE,
			  "%s: status %s, the model says %s", what, got, want);
		return;
	}
	fmt_status(got, sizeof(got), st);
	if (st->id != t->id || st->cookie != t->cookie ||
	    st->clock != t->clock || st->period_ns != t->period) {
		violation(th, f, V_ORACLE, "%s: status %s: id/cookie/clock/"
			  "period of the shadow: %#llx/%#llx"
			  "/%u/%llu", what, got, t->id, t->cookie, t->clock,
			  t->period);
		return;
	}
	if (st->state == TWHEEL_STATE_PENDING) {
		if (t->known_queued) {
			violation(th, f, V_ORACLE, "%s: %s pending again after "
				  "it was seen queued", what, got);
			return;
		}
		if (st->count) {
			violation(th, f, V_ORACLE, "%s: %s pending with a count",
				  what, got);
			return;
		}
		if (t->period) {
			/* Pending periodic: its exact grid point. */
			if (st->deadline_ns < t->dlo || st->deadline_ns > t->dhi) {
				violation(th, f, V_ORACLE, "%s: %s: deadline "
					  "outside [%lld, %lld]",
					  what, got, t->dlo, t->dhi);
				return;
			}
			t->dlo = t->dhi = st->deadline_ns;
		} else {
			/* One-shot: its deadline tick, >= the deadline. */
			lo = roundup_tick(t->dlo, f->tick);
			hi = roundup_tick(t->dhi, f->tick);
			if (st->deadline_ns < lo || st->deadline_ns > hi) {
				violation(th, f, V_ORACLE, "%s: %s: deadline "
					  "tick outside [%lld, %lld"
					  "]", what, got, lo, hi);
				return;
			}
			if (st->deadline_ns < INT64_MAX &&
			    st->deadline_ns - (s64)f->tick + 1 > t->dlo)
				t->dlo = st->deadline_ns - f->tick + 1;
			if (st->deadline_ns < t->dhi)
				t->dhi = st->deadline_ns;
		}
		lo = st->deadline_ns > t1->t[c] ? st->deadline_ns - t1->t[c] : 0;
		hi = st->deadline_ns > t0->t[c] ? st->deadline_ns - t0->t[c] : 0;
		if (st->remaining_ns < lo || st->remaining_ns > hi)
			violation(th, f, V_ORACLE, "%s: %s: remaining outside "
				  "[%lld, %lld]", what, got, lo, hi);
		return;
	}
	if (st->state != TWHEEL_STATE_QUEUED) {
		violation(th, f, V_ORACLE, "%s: %s: bad state", what, got);
		return;
	}
	if (t->dlo > t1->t[c]) {
		violation(th, f, V_EARLY, "%s: %s queued, but its deadline is "
			  ">= %lld and the clock was %lld", what, got,
			  t->dlo, t1->t[c]);
		return;
	}
	t->known_queued = true;
	if (!t->period) {
		if (st->count != 1 || st->deadline_ns || st->remaining_ns)
			violation(th, f, V_ORACLE, "%s: %s: a queued one-shot "
				  "has count 1, deadline 0, remaining 0", what,
				  got);
		return;
	}
	lo = pcount(t->dhi, t->period, t0->t[c]);
	hi = pcount(t->dlo, t->period, t1->t[c]);
	if ((s64)st->count < lo || (s64)st->count > hi) {
		violation(th, f, V_ORACLE, "%s: %s: count outside [%lld"
			  ", %lld]", what, got, lo, hi);
		return;
	}
	lo = periods_after(t->dlo, st->count, t->period);
	hi = periods_after(t->dhi, st->count, t->period);
	if (st->deadline_ns < lo || st->deadline_ns > hi)
		violation(th, f, V_ORACLE, "%s: %s: next deadline outside [%"
			  "lld, %lld]", what, got, lo, hi);
}

/*
 * Records read from a strict fd, in order, against the shadow; each is
 * consumed (a one-shot ends, a periodic one goes back for its next
 * deadline). t0/t1: the clocks around the read.
 */
void check_records(struct th *th, struct sfd *f,
		   const struct twheel_event *ev, size_t n,
		   const struct tsamp *t0, const struct tsamp *t1)
{
	size_t i;

	for (i = 0; i < n; i++) {
		const struct twheel_event *e = &ev[i];
		struct stimer *t = sh_find(f, e->id);
		u64 want_count = 1;
		int c;

		ST_INC(th, records);
		if (!f->manual)
			ST_INC(th, real_records);
		/*
		 * A wall clock set (nothing here sets the clock, but a resume,
		 * an NTP step or another task may): the fd's record of the
		 * sets (id 0), or a TWHEEL_CANCEL_ON_SET timer it ended
		 * (count 0). The shadow cannot tell when the set was: it
		 * starts afresh.
		 */
		if (e->flags == TWHEEL_EVENT_CLOCK_SET && !f->manual &&
		    ((!e->id && f->clock_set && !e->cookie && e->count &&
		      e->clock == CLOCK_REALTIME) ||
		     (t && t->cos && !e->count && e->cookie == t->cookie &&
		      e->clock == t->clock))) {
			out("# fd %d: a record of a wall clock set {id %#llx "
			    "count %llu}: the shadow starts afresh\n", f->fd,
			    e->id, e->count);
			f->tainted = true;
			return;
		}
		if (!t) {
			violation(th, f, sh_dead(f, e->id) ? V_DUP : V_ORACLE,
				  "record %zu/%zu {id %#llx cookie %#"
				  "llx time %lld count %llu"
				  " clock %u}: %s", i, n, e->id, e->cookie,
				  e->time_ns, e->count, e->clock,
				  sh_dead(f, e->id) ? "that timer has ended" :
				  "no such timer");
			return;
		}
		c = clk_index(t->clock);
		if (e->cookie != t->cookie || e->clock != t->clock || e->flags) {
			violation(th, f, V_ORACLE, "record id %#llx"
				  ": cookie %#llx clock %u flags %u, "
				  "want %#llx %u 0", e->id, e->cookie,
				  e->clock, e->flags, t->cookie, t->clock);
			return;
		}
		if (f->manual) {
			struct stimer *next = m_next_record(f);

			ST_INC(th, exact_checks);
			if (t->state != TWHEEL_STATE_QUEUED) {
				violation(th, f, V_EARLY, "record id %#llx"
					  " time %lld: the model has it "
					  "pending for tick %llu (clock at "
					  "%lld)", e->id, e->time_ns,
					  t->dtick, f->now);
				return;
			}
			if (next != t) {
				violation(th, f, V_ORACLE, "record id %#llx"
					  " out of order: the model's next is %#"
					  "llx", e->id, next->id);
				return;
			}
			if (t->period)
				want_count = pcount(t->dlo, t->period, f->now);
			if (e->time_ns != t->qtime || e->count != want_count) {
				violation(th, f, V_ORACLE, "record id %#llx"
					  ": time %lld count %llu"
					  ", the model says %lld %llu",
					  e->id, e->time_ns, e->count, t->qtime,
					  want_count);
				return;
			}
			if (!t->period) {
				ST_INC(th, ended_read);
				sh_end(f, t);
				continue;
			}
			ST_INC(th, periodic_records);
			m_place(f, t, periods_after(t->dlo, e->count, t->period));
			continue;
		}
		/* Real clock: never early, never in the future. */
		if (e->time_ns < t->dlo || t1->t[c] < t->dlo ||
		    (t->via_wheel && e->time_ns < roundup_tick(t->dlo, f->tick))) {
			violation(th, f, V_EARLY, "record id %#llx time %"
				  "lld: deadline >= %lld (tick %"
				  "lld), clock after the read %lld",
				  e->id, e->time_ns, t->dlo,
				  roundup_tick(t->dlo, f->tick), t1->t[c]);
			return;
		}
		if (e->time_ns > t1->t[c]) {
			violation(th, f, V_ORACLE, "record id %#llx time %"
				  "lld after the read (%lld)", e->id,
				  e->time_ns, t1->t[c]);
			return;
		}
		if (!t->period) {
			if (e->count != 1) {
				violation(th, f, V_ORACLE, "one-shot record id %#"
					  "llx count %llu", e->id,
					  e->count);
				return;
			}
			ST_INC(th, ended_read);
			sh_end(f, t);
			continue;
		}
		if (e->count < pcount(t->dhi, t->period, t0->t[c]) ||
		    e->count > pcount(t->dlo, t->period, t1->t[c])) {
			violation(th, f, V_ORACLE, "periodic record id %#llx"
				  " count %llu outside [%llu, %"
				  "llu]", e->id, e->count,
				  pcount(t->dhi, t->period, t0->t[c]),
				  pcount(t->dlo, t->period, t1->t[c]));
			return;
		}
		ST_INC(th, periodic_records);
		t->dlo = periods_after(t->dlo, e->count, t->period);
		t->dhi = periods_after(t->dhi, e->count, t->period);
		t->known_queued = false;
		t->via_wheel = true;
		t->state = TWHEEL_STATE_PENDING;
	}
}

/* The state a CANCEL or MODIFY reported against the shadow. */
void check_result(struct th *th, struct sfd *f, struct stimer *t,
		  uint32_t result, const struct tsamp *t1,
		  const char *what)
{
	if (result != TWHEEL_STATE_PENDING && result != TWHEEL_STATE_QUEUED) {
		violation(th, f, V_ORACLE, "%s id %#llx: result %u", what,
			  t->id, result);
		return;
	}
	if (f->manual) {
		ST_INC(th, exact_checks);
		if (result != (uint32_t)t->state)
			violation(th, f, result == TWHEEL_STATE_QUEUED ? V_EARLY :
				  V_LOST, "%s id %#llx: result %u, the "
				  "model says %d (deadline %lld, tick %"
				  "llu, clock %lld)", what, t->id,
				  result, t->state, t->dlo, t->dtick, f->now);
		return;
	}
	if (result == TWHEEL_STATE_PENDING && t->known_queued)
		violation(th, f, V_ORACLE, "%s id %#llx: pending after "
			  "it was seen queued", what, t->id);
	if (result == TWHEEL_STATE_QUEUED &&
	    t->dlo > t1->t[clk_index(t->clock)])
		violation(th, f, V_EARLY, "%s id %#llx: queued before its "
			  "deadline %lld", what, t->id, t->dlo);
}

/* What INFO says against the shadow. */
void check_info(struct th *th, struct sfd *f,
		const struct twheel_info *in, const struct tsamp *t1,
		const char *what)
{
	int q = sh_queued(f);

	if (in->version != TWHEEL_ABI_VERSION || in->event_size != EV ||
	    in->op_size != sizeof(struct twheel_op) ||
	    in->status_size != sizeof(struct twheel_status) ||
	    in->max_batch != TWHEEL_MAX_BATCH ||
	    in->min_tick_ns != TWHEEL_MIN_TICK_NS ||
	    in->max_tick_ns != TWHEEL_MAX_TICK_NS ||
	    in->ioctls != 0x1ff || in->clocks != ((1 << CLOCK_MONOTONIC) |
						  (1 << CLOCK_BOOTTIME) |
						  (1 << CLOCK_REALTIME) |
						  (1 << CLOCK_TAI) |
						  (1 << CLOCK_REALTIME_ALARM) |
						  (1 << CLOCK_BOOTTIME_ALARM))) {
		violation(th, f, V_ORACLE, "%s: constant fields wrong "
			  "(version %u event %u op %u status %u)", what,
			  in->version, in->event_size, in->op_size,
			  in->status_size);
		return;
	}
	if (in->tick_ns != f->tick || in->max_timers != f->max_timers ||
	    in->config_flags != ((f->manual ? TWHEEL_CONFIG_MANUAL : 0U) |
				 (f->clock_set ? TWHEEL_CONFIG_CLOCK_SET :
				  0U)) ||
	    in->table_size || in->cancelled ||
	    in->timers != (u64)f->n) {
		violation(th, f, V_ORACLE, "%s: tick %llu max %llu"
			  " flags %u timers %llu; the shadow: %llu"
			  " %llu %u %d", what, in->tick_ns,
			  in->max_timers, in->config_flags, in->timers, f->tick,
			  f->max_timers, f->manual ? TWHEEL_CONFIG_MANUAL : 0,
			  f->n);
		return;
	}
	if (f->manual) {
		ST_INC(th, exact_checks);
		if (in->queued != (u64)q)
			violation(th, f, in->queued > (u64)q ? V_EARLY :
				  V_LOST, "%s: queued %llu, the model "
				  "says %d", what, in->queued, q);
		return;
	}
	if (in->queued < (u64)sh_known_queued(f) ||
	    in->queued > (u64)sh_may_be_queued(f, t1))
		violation(th, f, in->queued < (u64)sh_known_queued(f) ?
			  V_LOST : V_EARLY, "%s: queued %llu, the "
			  "shadow says between %d and %d", what, in->queued,
			  sh_known_queued(f), sh_may_be_queued(f, t1));
}
