/* SPDX-License-Identifier: GPL-2.0 */
/*
 * wheel_ref_advance.h - moving the clock, on the wheel and on the model:
 * advances (to the end, or within a budget), forward(), take_all() for a
 * clock set back, restarts, and the event-driven walk to the end.
 * Part of wheel_ref.h.
 *
 * The driver checks every entry the wheel hands back against the prefix
 * the model says is due (wheel_ref_model.h): the same entries, in the
 * same order, in the same call (so at the same tick), none missing and
 * none extra.
 */
#ifndef _TWHEEL_WHEEL_REF_ADVANCE_H
#define _TWHEEL_WHEEL_REF_ADVANCE_H

#include "wheel_ref_ops.h"

/*
 * Advance both to @now, the wheel within @budget entry moves, and compare
 * what comes back. A marker node is put on the list first to check that
 * the wheel appends and keeps what the caller had there.
 *
 * The wheel may stop with budget left only for a level it lacks: then
 * twheel_wheel_level_missing() must name it (checked against
 * wref_want_missing()); the driver gives it and calls again with what is
 * left of the same budget, so the budget counts entry moves only, and the
 * hand-backs of all the calls together are compared as one advance. Per
 * @r->give the driver may instead leave the advance waiting for the level
 * (@r->waiting), as a caller that could not allocate it.
 *
 * An advance stopped (twheel_wheel_behind()) by its budget or waiting for
 * a level must have handed back a prefix of what the model says is due,
 * in order; the model then takes the wheel's clock (the tick of the slot
 * it was working on) as its own, which is the clock later adds are placed
 * against. Afterwards the entries handed back leave the list, some of
 * them parked in random runs (wref_park_some()), and empty levels are
 * taken back per @r->churn.
 */
static __maybe_unused int wref_advance_some(struct wref *r, u64 now,
					    u64 budget)
{
	u64 newclk = wref_max(r->clk, now), n = 0, left;
	struct list_head got, mark, *p;
	struct wref_obj *o, *want;
	bool behind;
	int miss, wmiss;
	u32 k, i;

	if (r->failed)		/* the wheel may be broken: leave it */
		return -1;

	INIT_LIST_HEAD(&got);
	list_add_tail(&mark, &got);
	left = budget;
	r->waiting = -1;
	r->epoch++;
	for (;;) {
		n += twheel_wheel_advance_some(r->w, now, &got, &left,
					       r->rekeying ? &r->rk : NULL);
		behind = twheel_wheel_behind(r->w, now);
		/* Behind needs an event to come: never so when idle. */
		if (behind && twheel_wheel_idle(r->w))
			return WREF_FAIL(r, "advance(%llu, %llu) from %llu: behind() yet idle()",
					 now, budget, r->clk);
		if (!behind || !left || left > budget)
			break;
		/* Stopped with budget left: only for a level it lacks. */
		miss = twheel_wheel_level_missing(r->w);
		wmiss = wref_want_missing(r->w);
		if (miss < 0 || miss != wmiss)
			return WREF_FAIL(r, "advance(%llu, budget %llu) from clk %llu stopped at clk %llu with %llu left; level_missing() = %d, want %d",
					 now, budget, r->clk, r->w->clk, left,
					 miss, wmiss);
		r->st.level_stops++;
		if (r->give == WREF_GIVE_NEVER ||
		    (r->give == WREF_GIVE_RANDOM && !wref_below(r, 8))) {
			r->waiting = miss;
			break;
		}
		if (wref_give(r, miss))	/* at most once per level: no loop */
			return -1;
	}
	/* What is due now, re-keyed entries placed anew (wref_rekey()). */
	k = wref_count_le(r, newclk);
	r->last_left = left;
	if (left > budget || n > budget - left)
		return WREF_FAIL(r, "advance(%llu, budget %llu): %llu left, %llu handed back",
				 now, budget, left, n);
	if (behind) {
		if (r->w->clk < r->clk || r->w->clk > newclk)
			return WREF_FAIL(r, "advance(%llu, budget %llu) from clk %llu stopped at clk %llu",
					 now, budget, r->clk, r->w->clk);
		if (n > budget)
			return WREF_FAIL(r, "advance(%llu, budget %llu) handed back %llu",
					 now, budget, n);
		if (n < k)
			k = (u32)n;
	}
	r->st.advances++;
	r->st.live_sum += r->nlive;
	r->st.ops++;

	if (got.next != &mark)
		return WREF_FAIL(r, "advance(%llu) did not append", now);
	p = mark.next;
	for (i = 0; i < k; i++, p = p->next) {
		want = &r->obj[r->ord[i]];
		if (p == &got)
			return WREF_FAIL(r,
					 "advance(%llu) from clk %llu handed back %u, want %u; missing id %ld (expires %llu)",
					 now, r->clk, i, k,
					 (long)(want - r->obj), want->expires);
		o = container_of(list_entry(p, struct twheel_entry, node),
				 struct wref_obj, ent);
		if (o != want)
			return WREF_FAIL(r,
					 "advance(%llu) from clk %llu: #%u is id %ld (expires %llu, eff %llu, seq %llu), want id %ld (expires %llu, eff %llu, seq %llu)",
					 now, r->clk, i, (long)(o - r->obj),
					 o->expires, o->eff, o->seq,
					 (long)(want - r->obj), want->expires,
					 want->eff, want->seq);
		if (o->ent.expires != o->expires || o->expires > newclk)
			return WREF_FAIL(r, "advance(%llu): id %ld expires %llu handed back early",
					 now, (long)(o - r->obj), o->expires);
		if (r->exact && o->eff != now)
			return WREF_FAIL(r,
					 "advance(%llu): id %ld (deadline %llu) handed back late",
					 now, (long)(o - r->obj), o->eff);
		o->live = false;
		o->handed = r->epoch;
	}
	if (p != &got)
		return WREF_FAIL(r,
				 "advance(%llu) from clk %llu handed back more than the %u expected",
				 now, r->clk, k);
	if (n != k)
		return WREF_FAIL(r, "advance(%llu) returned %llu, handed back %u",
				 now, n, k);
	memmove(&r->ord[0], &r->ord[k], sizeof(*r->ord) * (r->nlive - k));
	r->nlive -= k;
	r->st.handed += k;
	if (k > r->st.max_handed)
		r->st.max_handed = k;
	if (behind) {
		if (r->waiting >= 0)
			r->st.level_waits++;
		else
			r->st.partial++;	/* stopped by its budget */
		r->clk = r->w->clk;
	} else {
		r->clk = newclk;
		if (r->w->clk != newclk)
			return WREF_FAIL(r, "advance(%llu): clk %llu, want %llu",
					 now, r->w->clk, newclk);
	}
	if (wref_check_count(r) || wref_check_bits(r) ||
	    wref_park_some(r, &got, &mark))
		return -1;
	return wref_churn(r);
}

/*
 * twheel_wheel_forward(@now) moves the clock exactly when an advance to
 * @now would hand back and cascade nothing: @now not before the clock and
 * the next event (the model's) after @now. Then the clock is @now, the
 * next event the one it returns, unchanged, and every slot's bit right;
 * else nothing changed. The model takes the new clock, as after an
 * advance that handed nothing back.
 */
static __maybe_unused int wref_forward(struct wref *r, u64 now)
{
	u64 want, next = 0, clk = r->w->clk;
	bool expect, moved;

	if (r->failed)		/* the wheel may be broken: leave it */
		return -1;
	want = wref_want_next(r);
	expect = now >= r->clk && want > now;
	moved = twheel_wheel_forward(r->w, now, &next);
	r->st.forwards++;
	r->st.ops++;
	if (moved != expect)
		return WREF_FAIL(r, "forward(%llu) from clk %llu = %d, want %d (next %llu)",
				 now, clk, moved, expect, want);
	if (!moved)
		return r->w->clk == clk ? 0 :
		       WREF_FAIL(r, "forward(%llu) failed yet moved clk %llu to %llu",
				 now, clk, r->w->clk);
	r->st.forwarded++;
	if (r->w->clk != now || next != want)
		return WREF_FAIL(r, "forward(%llu) from clk %llu: clk %llu, next %llu, want next %llu",
				 now, clk, r->w->clk, next, want);
	r->clk = now;
	r->epoch++;
	if (wref_check_count(r) || wref_check_bits(r) || wref_check_next(r))
		return -1;
	return 0;
}

static __maybe_unused int wref_advance(struct wref *r, u64 now)
{
	return wref_advance_some(r, now, U64_MAX);
}

/*
 * The clock goes back (or anywhere): take every entry out with
 * twheel_wheel_take_all() and re-add them in the order given, as a caller
 * whose clock was set back does. The list must hold exactly the live
 * entries, entries of one deadline in their insertion order, the parked
 * ones last, in parking order; the model then re-adds them all in that
 * order too (the parked ones as new entries: the caller takes them back).
 */
static __maybe_unused int wref_take_all(struct wref *r, u64 now)
{
	struct twheel_entry *e, *tmp;
	struct wref_obj *o, *q;
	struct list_head all;
	u32 i, j, m, g, n = 0;
	u64 got;

	if (r->failed)		/* the wheel may be broken: leave it */
		return -1;

	INIT_LIST_HEAD(&all);
	got = twheel_wheel_take_all(r->w, now, &all);
	r->st.take_alls++;
	r->epoch++;
	list_for_each_entry(e, &all, node) {
		o = container_of(e, struct wref_obj, ent);
		if (!o->live || o->expires != e->expires)
			return WREF_FAIL(r, "take_all: id %ld not live or changed",
					 (long)(o - r->obj));
		o->pos = n++;
	}
	if (n != r->nlive + r->npark || got != n || r->w->count ||
	    r->w->clk != now)
		return WREF_FAIL(r, "take_all: %u listed, returned %llu, %u+%u parked, count %llu",
				 n, got, r->nlive, r->npark, r->w->count);
	/* The parked entries last, in the order parked. */
	for (i = 0; i < r->npark; i++)
		if (r->obj[r->park[i]].pos != r->nlive + i)
			return WREF_FAIL(r, "take_all: parked #%u (id %u) listed #%u, want #%u",
					 i, r->park[i],
					 r->obj[r->park[i]].pos, r->nlive + i);
	if (!list_empty(&r->w->parked) || !list_empty(&r->w->due) ||
	    !list_empty(&r->w->cascade))
		return WREF_FAIL(r, "take_all: a parked, due or cascade list not emptied");
	for (i = 0; i < TWHEEL_LEVELS; i++)
		for (j = 0; r->w->lvl[i] && j < TWHEEL_SLOTS; j++)
			if (r->w->lvl[i]->slot[j])
				return WREF_FAIL(r, "take_all: level %u slot %u not emptied",
						 i, j);
	/*
	 * Ties in insertion order: ord[] is sorted by (eff, seq), and live
	 * entries of one deadline share their eff, so compare within each
	 * run of equal eff.
	 */
	for (i = 0; i < r->nlive; i = g) {
		u64 eff = r->obj[r->ord[i]].eff;

		for (g = i; g < r->nlive && r->obj[r->ord[g]].eff == eff; g++)
			;
		for (j = i; j < g; j++) {
			o = &r->obj[r->ord[j]];
			for (m = j + 1; m < g; m++) {
				q = &r->obj[r->ord[m]];
				if (q->expires == o->expires && q->pos < o->pos)
					return WREF_FAIL(r, "take_all: ties out of insertion order (deadline %llu)",
							 o->expires);
			}
		}
	}
	/* Every level is empty now: take them back, per @r->churn. */
	for (i = 0; i < TWHEEL_LEVELS; i++)
		if (r->w->pending[i])
			return WREF_FAIL(r, "take_all: level %u bitmap %llx left",
					 i, r->w->pending[i]);
	if (wref_check_bits(r) || wref_churn(r))
		return -1;
	/* Re-add in list order, as new entries behind one another. */
	r->clk = now;
	r->nlive = 0;
	r->npark = 0;
	list_for_each_entry_safe(e, tmp, &all, node) {
		o = container_of(e, struct wref_obj, ent);
		list_del(&e->node);
		o->live = false;
		o->parked = false;
		if (wref_add(r, (u32)(o - r->obj), o->expires))
			return -1;
	}
	return 0;
}

/*
 * Take every live entry out with remove (the parked ones too), take every
 * level back (all are empty then) and free it, then restart the wheel at
 * @start: it has no level after twheel_wheel_init().
 */
static __maybe_unused int wref_reset(struct wref *r, u64 start)
{
	unsigned int lvl;

	while (r->nlive && !r->failed)
		wref_remove(r, r->ord[r->nlive / 2]);
	while (r->npark && !r->failed)
		wref_remove(r, r->park[r->npark / 2]);
	if (r->failed)
		return -1;
	for (lvl = 0; lvl < TWHEEL_LEVELS; lvl++)
		if (r->w->pending[lvl])
			return WREF_FAIL(r, "empty wheel has level %u bitmap %llx",
					 lvl, r->w->pending[lvl]);
	if (!list_empty(&r->w->due) || !list_empty(&r->w->cascade) ||
	    !list_empty(&r->w->parked))
		return WREF_FAIL(r, "empty wheel has due, cascading or parked entries");
	if (wref_take_levels(r, TWHEEL_LEVELS + 1))
		return -1;
	for (lvl = 0; lvl < TWHEEL_LEVELS; lvl++)
		if (r->w->lvl[lvl])
			return WREF_FAIL(r, "empty level %u not taken back", lvl);
	twheel_wheel_init(r->w, start);
	for (lvl = 0; lvl < TWHEEL_LEVELS; lvl++)
		if (r->w->lvl[lvl] || r->w->pending[lvl])
			return WREF_FAIL(r, "init() left level %u", lvl);
	r->clk = start;
	r->waiting = -1;
	r->epoch++;
	r->st.resets++;
	return 0;
}

/*
 * Walk to the end the way an event-driven caller does: advance to next()
 * each time (and, before it, to the tick just before). Every entry must
 * come back exactly at its deadline tick, not before and not after.
 */
static __maybe_unused int wref_drain_exact(struct wref *r)
{
	u8 give = r->give;
	u64 t;

	r->give = WREF_GIVE_ALWAYS;	/* each advance must finish */
	r->exact = false;
	while (!r->failed && r->nlive) {
		if (wref_check_next(r))
			break;
		t = twheel_wheel_next(r->w);
		if (t > r->clk && wref_advance(r, t - 1))
			break;
		if (r->nlive && r->obj[r->ord[0]].eff == t)
			r->exact = true;
		wref_advance(r, t);
		r->exact = false;
	}
	r->give = give;
	if (!r->failed)
		wref_check_next(r);
	if (!r->failed)
		wref_check_layout(r);
	return r->failed ? -1 : 0;
}

#endif /* _TWHEEL_WHEEL_REF_ADVANCE_H */
