/* SPDX-License-Identifier: GPL-2.0 */
/*
 * wheel_ref_ops.h - the caller's operations but those that move the clock,
 * each done on the wheel and on the model and checked: levels given and
 * taken back, add, remove, park, take_parked, and the answers to the
 * cascades' re-key questions. Part of wheel_ref.h.
 *
 * Levels. The wheel never allocates: the driver is its caller, and gives
 * it each level (struct twheel_level, zeroed) when asked: before an add,
 * the level twheel_wheel_level_needed() names (wref_add()); when an advance
 * stops with budget left, the level twheel_wheel_level_missing() names,
 * and the advance goes on with what is left of the same budget
 * (wref_advance_some()). Both answers are checked against an independent
 * computation. After advances the driver takes empty levels back with
 * twheel_wheel_take_empty_level() and frees them (none, one or all: see
 * wref_churn()), so that levels come and go; in random runs an advance
 * stopped for a level is at times left waiting for it while other
 * operations go on, as one stopped by its budget is. The model knows
 * nothing of levels: whatever levels come and go, the wheel must hand back
 * exactly what and when the model says.
 *
 * Parking. In random runs the driver, as a caller that cannot finish some
 * of what an advance handed back, parks a random subset of it with
 * twheel_wheel_park() (wref_park()). The model keeps a parked entry live
 * but out of ord[], in park[], in parking order: it is counted and
 * removable (wref_remove()), but never due, so next() must not see it and
 * no advance may hand it back; twheel_wheel_idle() must be true exactly
 * when every live entry is parked. twheel_wheel_take_parked()
 * (wref_take_parked()) must give back exactly park[], in order, and
 * twheel_wheel_take_all() must list the parked entries last, in order.
 *
 * Re-keying. In random runs the driver answers the cascades' questions
 * (struct twheel_rekey, wref_rekey()): now and then with a later deadline,
 * close (often still in the slot being cascaded) or far, now and then
 * with an earlier one or one in a level the wheel lacks, which must change
 * nothing. The model takes a later one as a remove and an add at that
 * moment: behind every entry of the new deadline, those still on the
 * cascade list too; the hand-backs of an advance are compared with the
 * model as it stands after it.
 */
#ifndef _TWHEEL_WHEEL_REF_OPS_H
#define _TWHEEL_WHEEL_REF_OPS_H

#include "wheel_ref_check.h"

/* Give the wheel level @lvl, which it must lack: a zeroed allocation. */
static __maybe_unused int wref_give(struct wref *r, int lvl)
{
	struct twheel_level *l;

	if (r->failed)		/* the wheel may be broken: leave it */
		return -1;

	if (lvl < 0 || lvl >= TWHEEL_LEVELS)
		return WREF_FAIL(r, "asked for level %d", lvl);
	if (r->w->lvl[lvl])
		return WREF_FAIL(r, "asked for level %d, which it has", lvl);
	if (r->w->pending[lvl])
		return WREF_FAIL(r, "level %d absent, but its bitmap is %llx",
				 lvl, r->w->pending[lvl]);
	l = WREF_ZALLOC(sizeof(*l));
	if (!l)
		return WREF_FAIL(r, "out of memory for level %d", lvl);
	twheel_wheel_give_level(r->w, (unsigned int)lvl, l);
	if (r->w->lvl[lvl] != l)
		return WREF_FAIL(r, "give_level(%d) did not take it", lvl);
	r->st.given++;
	return 0;
}

/*
 * Take back up to @max empty levels with twheel_wheel_take_empty_level(),
 * and free them, asking for any empty level and for one above every level
 * holding entries in turn. Each must be one the wheel had and held nothing
 * in (bitmap 0, every slot NULL), above the highest level holding entries
 * when asked so, now gone from the wheel, nothing else changed; a NULL
 * answer means every level the wheel has (above that one) holds entries.
 */
static __maybe_unused int wref_take_levels(struct wref *r, u32 max)
{
	struct twheel_wheel *w = r->w;
	struct twheel_level *was[TWHEEL_LEVELS], *l;
	u64 pend[TWHEEL_LEVELS];
	unsigned int i, at, slot, low;
	bool top;
	u32 k;

	if (r->failed)		/* the wheel may be broken: leave it */
		return -1;

	for (k = 0; k < max; k++) {
		top = k & 1;
		memcpy(was, w->lvl, sizeof(was));
		memcpy(pend, w->pending, sizeof(pend));
		/* The lowest level @top lets it take: above any pending. */
		for (low = TWHEEL_LEVELS; top && low && !pend[low - 1]; low--)
			;
		if (!top)
			low = 0;
		l = twheel_wheel_take_empty_level(w, top);
		for (at = 0; l && at < TWHEEL_LEVELS && was[at] != l; at++)
			;
		for (i = 0; i < TWHEEL_LEVELS; i++) {
			if (l && i == at)
				continue;
			if (w->lvl[i] != was[i] || w->pending[i] != pend[i])
				return WREF_FAIL(r, "take_empty_level() changed level %u",
						 i);
		}
		if (!l) {
			for (i = low; i < TWHEEL_LEVELS; i++)
				if (was[i] && !pend[i])
					return WREF_FAIL(r, "take_empty_level() = NULL, but level %u is empty",
							 i);
			return 0;
		}
		if (at == TWHEEL_LEVELS)
			return WREF_FAIL(r, "take_empty_level() returned a level it was not given");
		if (at < low)
			return WREF_FAIL(r, "take_empty_level(top) took level %u, below a level holding entries",
					 at);
		for (slot = 0; slot < TWHEEL_SLOTS; slot++)
			if (l->slot[slot])
				break;
		WREF_FREE(l);	/* detached: the wheel has it no more */
		if (pend[at] || w->pending[at])
			return WREF_FAIL(r, "took back level %u with bitmap %llx",
					 at, pend[at]);
		if (w->lvl[at])
			return WREF_FAIL(r, "level %u still given after take_empty_level()",
					 at);
		if (slot < TWHEEL_SLOTS)
			return WREF_FAIL(r, "level %u taken back with slot %u not empty",
					 at, slot);
		r->st.taken++;
	}
	return 0;
}

/*
 * twheel_wheel_take_empty_level() where it must return NULL: true if it
 * returned a level after all (freed: detached, it is the caller's).
 */
static __maybe_unused bool wref_took_one(struct wref *r)
{
	struct twheel_level *l = twheel_wheel_take_empty_level(r->w, false);

	if (!l)
		return false;
	WREF_FREE(l);
	return true;
}

/* After an advance: take empty levels back, per @r->churn. */
static __maybe_unused int wref_churn(struct wref *r)
{
	switch (r->churn) {
	case WREF_CHURN_ALL:
		return wref_take_levels(r, TWHEEL_LEVELS + 1);
	case WREF_CHURN_RANDOM:
		switch (wref_below(r, 4)) {
		case 0:
			return 0;
		case 1:
			return wref_take_levels(r, 1);
		default:
			return wref_take_levels(r, TWHEEL_LEVELS + 1);
		}
	}
	return 0;
}

/*
 * Add as a caller does: give the level twheel_wheel_level_needed() names
 * first (checked against wref_want_needed(); afterwards it must name none).
 */
static __maybe_unused int wref_add(struct wref *r, u32 id, u64 expires)
{
	struct wref_obj *o = &r->obj[id];
	struct list_head **sp, *before;
	unsigned int lvl, slot;
	int need, want;

	if (r->failed)		/* the wheel may be broken: leave it */
		return -1;

	if (o->live)
		return WREF_FAIL(r, "driver bug: add of live %u", id);
	o->expires = expires;
	o->eff = wref_max(expires, r->clk);
	o->seq = r->seq++;
	o->live = true;
	o->handed = 0;
	wref_ord_insert(r, id);
	if (r->nlive > r->st.max_live)
		r->st.max_live = r->nlive;
	r->st.adds++;
	r->st.ops++;

	need = twheel_wheel_level_needed(r->w, expires);
	want = wref_want_needed(r->w, expires);
	if (need != want)
		return WREF_FAIL(r, "level_needed(%llu) = %d, want %d (clk %llu)",
				 expires, need, want, r->w->clk);
	if (need >= 0) {
		if (wref_give(r, need))
			return -1;
		need = twheel_wheel_level_needed(r->w, expires);
		if (need != -1)
			return WREF_FAIL(r, "level_needed(%llu) = %d after it was given",
					 expires, need);
	}
	sp = wref_slot_of(r->w, expires, &lvl, &slot);
	before = sp ? *sp : NULL;
	twheel_wheel_add(r->w, &o->ent, expires);
	if (o->ent.expires != expires)
		return WREF_FAIL(r, "add(%llu) stored %llu", expires,
				 o->ent.expires);
	if (wref_check_slot_of(r, o, true, before, NULL))
		return -1;
	return wref_check_count(r);
}

/*
 * Remove a live entry, parked or not. A parked one (its deadline is at or
 * before the clock: in no slot) leaves park[] and the parked list, which
 * must close over it; the count must drop by one either way.
 */
static __maybe_unused int wref_remove(struct wref *r, u32 id)
{
	struct wref_obj *o = &r->obj[id];
	struct list_head **sp, *before, *next, *prev;
	unsigned int lvl, slot;
	bool parked = o->parked;
	u32 at;

	if (r->failed)		/* the wheel may be broken: leave it */
		return -1;

	if (!o->live)
		return WREF_FAIL(r, "driver bug: remove of idle %u", id);
	if (parked) {
		for (at = 0; at < r->npark && r->park[at] != id; at++)
			;
		if (at >= r->npark)
			return WREF_FAIL(r, "model bug: parked %u not found", id);
		memmove(&r->park[at], &r->park[at + 1],
			sizeof(*r->park) * (r->npark - at - 1));
		r->npark--;
		o->parked = false;
		r->st.parked_removes++;
	} else {
		if (!wref_ord_delete(r, id))
			return WREF_FAIL(r, "model bug: %u not found", id);
	}
	o->live = false;
	r->st.removes++;
	r->st.ops++;

	sp = wref_slot_of(r->w, o->expires, &lvl, &slot);
	before = sp ? *sp : NULL;
	next = o->ent.node.next;
	prev = o->ent.node.prev;
	twheel_wheel_remove(r->w, &o->ent);
	if (!list_empty(&o->ent.node))
		return WREF_FAIL(r, "remove(%u) left the node linked", id);
	if (parked && (o->expires > r->w->clk || prev->next != next ||
		       next->prev != prev))
		return WREF_FAIL(r, "remove(%u) of a parked entry (expires %llu, clk %llu): %s",
				 id, o->expires, r->w->clk,
				 o->expires > r->w->clk ? "after the clock" :
				 "the parked list did not close over it");
	if (wref_check_slot_of(r, o, false, before, next))
		return -1;
	return wref_check_count(r);
}

/*
 * Park @id, which the last advance handed back (no advance, take_all or
 * restart since: its epoch is @r->epoch) and which is on no list, with
 * twheel_wheel_park(). It goes at the parked list's tail; the count grows
 * by one, the clock and next() stay as they were (a parked entry has no
 * event) and so does idle(): parking never makes the wheel busy.
 */
static __maybe_unused int wref_park(struct wref *r, u32 id)
{
	struct wref_obj *o = &r->obj[id];
	u64 next, clk;
	bool idle;

	if (r->failed)		/* the wheel may be broken: leave it */
		return -1;

	if (o->live || !o->handed || o->handed != r->epoch)
		return WREF_FAIL(r, "driver bug: park of %u, not just handed back",
				 id);
	o->live = true;
	o->parked = true;
	o->handed = 0;
	r->park[r->npark++] = id;
	if (r->npark > r->st.max_parked)
		r->st.max_parked = r->npark;
	r->st.parks++;
	r->st.ops++;

	next = twheel_wheel_next(r->w);
	idle = twheel_wheel_idle(r->w);
	clk = r->w->clk;
	twheel_wheel_park(r->w, &o->ent);
	if (r->w->parked.prev != &o->ent.node ||
	    o->ent.node.next != &r->w->parked)
		return WREF_FAIL(r, "park(%u) did not put it at the parked list's tail",
				 id);
	if (twheel_wheel_next(r->w) != next || r->w->clk != clk)
		return WREF_FAIL(r, "park(%u) moved next() %llu -> %llu, clk %llu -> %llu",
				 id, next, twheel_wheel_next(r->w), clk,
				 r->w->clk);
	if (twheel_wheel_idle(r->w) != idle)
		return WREF_FAIL(r, "park(%u) changed idle() %d -> %d", id, idle,
				 !idle);
	return wref_check_count(r);
}

/*
 * twheel_wheel_take_parked(): the list (after a marker node the caller
 * had there) must hold exactly park[], in parking order; it returns
 * their number, the count drops by it, the parked list is empty, and the
 * rest of the wheel (next(), the clock) is untouched.
 */
static __maybe_unused int wref_take_parked(struct wref *r)
{
	struct list_head got, mark, *p;
	struct wref_obj *o;
	u64 n, next, clk;
	u32 i;

	if (r->failed)		/* the wheel may be broken: leave it */
		return -1;

	INIT_LIST_HEAD(&got);
	list_add_tail(&mark, &got);
	next = twheel_wheel_next(r->w);
	clk = r->w->clk;
	n = twheel_wheel_take_parked(r->w, &got);
	r->st.take_parkeds++;
	r->st.ops++;
	if (got.next != &mark)
		return WREF_FAIL(r, "take_parked() did not append");
	p = mark.next;
	for (i = 0; i < r->npark; i++, p = p->next) {
		if (p == &got)
			return WREF_FAIL(r, "take_parked() gave %u, want %u",
					 i, r->npark);
		o = wref_obj_of(r, p);
		if (o != &r->obj[r->park[i]])
			return WREF_FAIL(r, "take_parked(): #%u is id %ld, want id %u",
					 i, o ? (long)(o - r->obj) : -1L,
					 r->park[i]);
		if (p->next->prev != p || p->prev->next != p)
			return WREF_FAIL(r, "take_parked(): links of id %u broken",
					 r->park[i]);
		o->live = false;
		o->parked = false;
	}
	if (p != &got)
		return WREF_FAIL(r, "take_parked() gave more than the %u parked",
				 r->npark);
	if (n != r->npark)
		return WREF_FAIL(r, "take_parked() returned %llu, %u were parked",
				 n, r->npark);
	r->st.took_parked += n;
	r->npark = 0;
	if (!list_empty(&r->w->parked))
		return WREF_FAIL(r, "take_parked() left the parked list not empty");
	if (twheel_wheel_next(r->w) != next || r->w->clk != clk)
		return WREF_FAIL(r, "take_parked() changed next() %llu -> %llu or clk %llu -> %llu",
				 next, twheel_wheel_next(r->w), clk, r->w->clk);
	return wref_check_count(r);
}

/*
 * The caller's side of what an advance just handed back (the entries
 * after @mark on @got): each leaves the list; in random runs
 * (@r->parking) a random subset of them is parked, in hand-back order:
 * none, about half, or all of them.
 */
static __maybe_unused int wref_park_some(struct wref *r,
					 struct list_head *got,
					 struct list_head *mark)
{
	struct twheel_entry *e, *tmp;
	u32 mode = 0;

	list_del(mark);
	if (r->parking && !list_empty(got))
		mode = wref_below(r, 4);
	list_for_each_entry_safe(e, tmp, got, node) {
		list_del_init(&e->node);
		if ((mode == 3 || (mode == 2 && wref_below(r, 2))) &&
		    wref_park(r, (u32)(container_of(e, struct wref_obj, ent) -
				      r->obj)))
			return -1;
	}
	return 0;
}

/*
 * The driver's answer to a cascade about to move @e to a lower level (see
 * "Re-keying" at the top). Only a live entry in no list of the model's
 * but ord[], whose deadline is after the wheel's clock, may be asked.
 */
static __maybe_unused u64 wref_rekey(struct twheel_rekey *rk,
				     struct twheel_entry *e)
{
	struct wref *r = container_of(rk, struct wref, rk);
	struct wref_obj *o = container_of(e, struct wref_obj, ent);
	u32 id = (u32)(o - r->obj);
	u64 t;

	if (r->failed)
		return 0;
	if (!o->live || o->parked || e->expires != o->expires ||
	    e->expires <= r->w->clk)
		return WREF_FAIL(r, "rekey asked of id %u (live %d, parked %d, expires %llu, model %llu, clk %llu)",
				 id, o->live, o->parked, e->expires, o->expires,
				 r->w->clk), 0;
	/* Once per advance at most: a run out of fuzz input draws zeros. */
	if (o->rekeyed == r->epoch)
		return e->expires;
	switch (wref_below(r, 16)) {
	case 0:		/* close: often in the slot being cascaded */
		t = wref_sat(e->expires, 1 + wref_below(r, 64));
		break;
	case 1:		/* far */
		t = wref_sat(e->expires,
			     1 + wref_rnd_bits(r, 1 + wref_below(r, 40)));
		break;
	case 2:		/* earlier, or its own: nothing changes */
		return wref_satsub(e->expires, wref_below(r, 3));
	default:
		return e->expires;
	}
	if (t <= e->expires)
		return e->expires;
	/* Out of the slot cascading, to a level the wheel lacks: ignored. */
	if ((t >> r->w->casc_shift) != (r->w->clk >> r->w->casc_shift) &&
	    !r->w->lvl[wref_level_of(t, r->w->clk)]) {
		r->st.rekeys_ignored++;
		return t;
	}
	if (!wref_ord_delete(r, id))
		return WREF_FAIL(r, "model bug: %u not found", id), 0;
	o->expires = t;
	o->eff = t;
	o->seq = r->seq++;
	o->rekeyed = r->epoch;
	wref_ord_insert(r, id);
	r->st.rekeys++;
	return t;
}

#endif /* _TWHEEL_WHEEL_REF_OPS_H */
