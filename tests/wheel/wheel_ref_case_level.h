/* SPDX-License-Identifier: GPL-2.0 */
/*
 * wheel_ref_case_level.h - directed cases, second part: levels, rings and
 * parking (an advance stopped for a level, removes from a slot's ring,
 * levels that come and go, parked entries). Part of wheel_ref.h; the
 * table of the cases is in wheel_ref_cases.h.
 */
#ifndef _TWHEEL_WHEEL_REF_CASE_LEVEL_H
#define _TWHEEL_WHEEL_REF_CASE_LEVEL_H

#include "wheel_ref_case_clock.h"

/*
 * An advance stopped for a level it lacks in the middle of cascading a
 * slot, and left waiting while adds, removes, next() and holds() go on:
 * it must go on, once given the level, exactly where it stopped, and hand
 * back in the order of one advance. First a level-2 slot from clock 0
 * (ticks 4096..8191) whose entries go down to levels 0 and 1, neither
 * given; then a level-3 slot whose entries go down to levels 2, 1, 0.
 */
static __maybe_unused int wref_case_level_stop(struct wref *r)
{
	/* deadline - 4096: 0 handed back at the slot's tick, 1..63 go to
	 * level 0, 64..4095 to level 1 */
	static const u64 off[] = { 0, 0, 5, 200, 0, 5, 64, 4095, 1, 0 };
	static const u64 deep[] = {
		0, (3ULL << 12) + 5, 0, 70, 3, 0, (3ULL << 12) + 5, 70, 3,
	};
	static const int deep_want[] = { 2, 1, 0 };
	const u64 base = 4096, end = base + 300;
	unsigned int i, lvl;
	u64 partial, waits;

	if (wref_reset(r, 0))
		return -1;
	r->churn = WREF_CHURN_ALL;
	for (i = 0; i < ARRAY_SIZE(off); i++)
		wref_add(r, i, base + off[i]);
	for (lvl = 0; lvl < TWHEEL_LEVELS; lvl++)
		if (!r->w->lvl[lvl] != (lvl != 2))
			return WREF_FAIL(r, "level %u %s, only level 2 was needed",
					 lvl, r->w->lvl[lvl] ? "given" : "absent");
	if (wref_where(r->w, &r->obj[2].ent) != 2)
		return WREF_FAIL(r, "deadline %llu not at level 2", base + 5);
	r->give = WREF_GIVE_NEVER;

	/*
	 * A budget of 2 hands back the two of the slot's tick and stops: for
	 * its budget, even though the next entry needs a level it lacks.
	 */
	partial = r->st.partial;
	waits = r->st.level_waits;
	wref_advance_some(r, end, 2);
	if (r->failed)
		return -1;
	if (r->st.partial != partial + 1 || r->st.level_waits != waits ||
	    r->w->clk != base || r->obj[0].live || r->obj[1].live ||
	    !r->obj[2].live)
		return WREF_FAIL(r, "budget 2: partial %llu, waits %llu, clk %llu",
				 r->st.partial - partial,
				 r->st.level_waits - waits, r->w->clk);
	if (twheel_wheel_level_missing(r->w) != 0)
		return WREF_FAIL(r, "level_missing() = %d after the budget stop, want 0",
				 twheel_wheel_level_missing(r->w));

	/*
	 * Now it stops at once, id 2 needing level 0: a stop for a level
	 * moves nothing and costs no budget.
	 */
	wref_advance_some(r, end, 100);
	if (r->failed)
		return -1;
	if (r->last_left != 100)
		return WREF_FAIL(r, "a stop for a level cost %llu of the budget",
				 100 - r->last_left);
	if (r->waiting != 0 || r->st.level_waits != waits + 1 ||
	    twheel_wheel_level_missing(r->w) != 0 ||
	    !twheel_wheel_behind(r->w, end) || r->w->clk != base ||
	    wref_where(r->w, &r->obj[2].ent) != TWHEEL_LEVELS + 1)
		return WREF_FAIL(r, "no stop for level 0: waiting %d, clk %llu",
				 r->waiting, r->w->clk);
	/* The cascading slot's level was emptied, and taken back. */
	if (r->w->lvl[2])
		return WREF_FAIL(r, "empty level 2 not taken back");

	/* While it waits. */
	wref_add(r, 10, base + 5);	/* a tie: the cascade list's tail */
	wref_add(r, 11, base + 3000);	/* the slot's range: the same */
	if (wref_where(r->w, &r->obj[10].ent) != TWHEEL_LEVELS + 1 ||
	    wref_where(r->w, &r->obj[11].ent) != TWHEEL_LEVELS + 1)
		return WREF_FAIL(r, "adds in the cascading slot's range not cascading");
	if (twheel_wheel_level_needed(r->w, base + 100000) != 2)
		return WREF_FAIL(r, "level_needed(%llu) = %d, want 2",
				 base + 100000,
				 twheel_wheel_level_needed(r->w, base + 100000));
	wref_add(r, 12, base + 100000);	/* level 2, given again */
	wref_add(r, 13, base - 7);	/* due: after the cascade */
	wref_remove(r, 6);		/* still cascading */
	if (wref_where(r->w, &r->obj[12].ent) != 2 ||
	    wref_where(r->w, &r->obj[13].ent) != TWHEEL_LEVELS)
		return WREF_FAIL(r, "adds while waiting misplaced");
	if (!twheel_wheel_holds(r->w, base + 5) || wref_check_next(r) ||
	    wref_check_layout(r))
		return WREF_FAIL(r, "holds(), next() or layout while waiting");
	/* Still waiting: the same stop, nothing handed back. */
	wref_advance(r, end);
	if (r->waiting != 0)
		return WREF_FAIL(r, "waiting %d, want 0 again", r->waiting);

	/* Level 0 given: id 2 moves (one unit of budget), id 3 waits. */
	wref_give(r, 0);
	wref_advance_some(r, end, 100);
	if (r->failed)
		return -1;
	if (r->last_left != 99)
		return WREF_FAIL(r, "one move and a stop cost %llu of the budget",
				 100 - r->last_left);
	if (r->waiting != 1 || wref_where(r->w, &r->obj[2].ent) != 0 ||
	    twheel_wheel_level_missing(r->w) != 1)
		return WREF_FAIL(r, "no stop for level 1: waiting %d", r->waiting);
	/* Level 1 given: the slot finishes, ids 4 and 9, then 13 come back. */
	wref_give(r, 1);
	wref_advance(r, end);
	if (r->failed)
		return -1;
	if (r->waiting != -1 || twheel_wheel_behind(r->w, end) ||
	    r->obj[4].live || r->obj[9].live || r->obj[13].live ||
	    r->w->clk != end || r->st.level_waits != waits + 3)
		return WREF_FAIL(r, "the cascade did not finish: waiting %d, clk %llu",
				 r->waiting, r->w->clk);
	r->give = WREF_GIVE_ALWAYS;
	if (wref_drain_exact(r))
		return -1;

	/* A level-3 slot: stops for levels 2, 1 and 0, in that order. */
	if (wref_reset(r, 0))
		return -1;
	for (i = 0; i < ARRAY_SIZE(deep); i++)
		wref_add(r, i, (1ULL << 18) + deep[i]);
	r->give = WREF_GIVE_NEVER;
	for (i = 0; !r->failed; i++) {
		wref_advance(r, (1ULL << 18) + 100);
		if (r->waiting < 0)
			break;
		if (i >= ARRAY_SIZE(deep_want) || r->waiting != deep_want[i])
			return WREF_FAIL(r, "stop #%u for level %d", i,
					 r->waiting);
		wref_check_layout(r);
		wref_give(r, r->waiting);
	}
	r->give = WREF_GIVE_ALWAYS;
	if (!r->failed && i != ARRAY_SIZE(deep_want))
		return WREF_FAIL(r, "%u stops for a level, want %u", i,
				 (u32)ARRAY_SIZE(deep_want));
	return r->failed ? -1 : wref_drain_exact(r);
}

/* Check that slot @slot of level @lvl is the ring of @ids (NULL if none). */
static __maybe_unused int wref_ring_is(struct wref *r, unsigned int lvl,
				       unsigned int slot, const u32 *ids,
				       u32 n)
{
	const struct twheel_wheel *w = r->w;
	const struct list_head *first, *p;
	bool bit = (w->pending[lvl] >> slot) & 1;
	u32 i;

	first = w->lvl[lvl] ? w->lvl[lvl]->slot[slot] : NULL;
	if (!n) {
		if (first || bit)
			return WREF_FAIL(r, "level %u slot %u not empty (bit %d)",
					 lvl, slot, bit);
		return 0;
	}
	if (!bit || first != &r->obj[ids[0]].ent.node)
		return WREF_FAIL(r, "level %u slot %u: bit %d, first is not id %u",
				 lvl, slot, bit, ids[0]);
	for (i = 0, p = first; i < n; i++, p = p->next) {
		if (p != &r->obj[ids[i]].ent.node ||
		    p->prev != &r->obj[ids[(i + n - 1) % n]].ent.node)
			return WREF_FAIL(r, "level %u slot %u: ring #%u is not id %u",
					 lvl, slot, i, ids[i]);
	}
	if (p != first)
		return WREF_FAIL(r, "level %u slot %u: ring longer than %u",
				 lvl, slot, n);
	return wref_check_layout(r);
}

/*
 * Ids 0..3 form the ring of slot @slot of level @lvl, in that order, the
 * only entries of the level: remove the first, a middle one, the last and
 * then the only one, checking the slot and its ring after each. The slot
 * moves to the next entry only when the first goes, and empties with the
 * only one: bit cleared, and the level, empty, is the one taken back.
 */
static __maybe_unused int wref_ring_removes(struct wref *r, unsigned int lvl,
					    unsigned int slot)
{
	static const u32 all[] = { 0, 1, 2, 3 }, no0[] = { 1, 2, 3 };
	static const u32 no02[] = { 1, 3 }, only1[] = { 1 };
	struct twheel_level *l, *got;

	if (wref_ring_is(r, lvl, slot, all, 4))
		return -1;
	wref_remove(r, 0);		/* the first */
	if (wref_ring_is(r, lvl, slot, no0, 3))
		return -1;
	wref_remove(r, 2);		/* a middle one */
	if (wref_ring_is(r, lvl, slot, no02, 2))
		return -1;
	wref_remove(r, 3);		/* the last */
	if (wref_ring_is(r, lvl, slot, only1, 1))
		return -1;
	if (r->obj[1].ent.node.next != &r->obj[1].ent.node ||
	    r->obj[1].ent.node.prev != &r->obj[1].ent.node)
		return WREF_FAIL(r, "a ring of one is not its own");
	wref_remove(r, 1);		/* the only one */
	if (wref_ring_is(r, lvl, slot, NULL, 0))
		return -1;
	l = r->w->lvl[lvl];
	if (r->w->pending[lvl] || !l)
		return WREF_FAIL(r, "level %u: bitmap %llx after its last remove",
				 lvl, r->w->pending[lvl]);
	got = twheel_wheel_take_empty_level(r->w, false);
	if (got)
		WREF_FREE(got);
	if (got != l || r->w->lvl[lvl])
		return WREF_FAIL(r, "level %u, emptied by a remove, not the one taken back",
				 lvl);
	r->st.taken++;
	return 0;
}

/*
 * The first deadline after @start at level @lvl (digit @lvl one above the
 * clock's, every lower digit 0), or 0 when there is none (the clock's
 * digit there is the highest).
 */
static __maybe_unused u64 wref_first_at(u64 start, unsigned int lvl)
{
	unsigned int shift = TWHEEL_LVL_BITS * lvl;
	unsigned int max = lvl == TWHEEL_LEVELS - 1 ? 15 : TWHEEL_SLOT_MASK;
	unsigned int dig = (start >> shift) & TWHEEL_SLOT_MASK;
	u64 low = lvl == TWHEEL_LEVELS - 1 ? U64_MAX :
		  ((u64)TWHEEL_SLOTS << shift) - 1;

	if (dig >= max)
		return 0;
	return (start & ~low) | ((u64)(dig + 1) << shift);
}

/*
 * remove() of the first, a middle, the last and the only entry of a ring,
 * at several levels from several clocks, in rings built by adds and by a
 * cascade.
 */
static __maybe_unused int wref_case_remove_ring(struct wref *r)
{
	static const u64 starts[] = {
		0, 0x0123456789abcdefULL, U64_MAX - (1ULL << 61), 4095,
	};
	static const unsigned int lvls[] = { 0, 1, 2, 5, 9, 10 };
	unsigned int i, j, lvl;
	u64 base;
	u32 id;

	for (i = 0; i < ARRAY_SIZE(starts); i++) {
		for (j = 0; j < ARRAY_SIZE(lvls); j++) {
			lvl = lvls[j];
			base = wref_first_at(starts[i], lvl);
			if (!base)
				continue;
			if (wref_reset(r, starts[i]))
				return -1;
			/* four in one slot (at level 0, of one deadline) */
			for (id = 0; id < 4; id++)
				wref_add(r, id, base + (lvl ? (id * 5) % 7 : 0));
			if (wref_level_of(base, starts[i]) != lvl)
				return WREF_FAIL(r, "case bug: %llu not at level %u",
						 base, lvl);
			if (wref_ring_removes(r, lvl, (base >> (TWHEEL_LVL_BITS * lvl)) &
						      TWHEEL_SLOT_MASK))
				return -1;
			/* again, the rest handed back in order */
			for (id = 0; id < 4; id++)
				wref_add(r, id, base + (lvl ? (id * 5) % 7 : 0));
			wref_remove(r, 3);
			wref_remove(r, 1);
			if (wref_drain_exact(r))
				return -1;
		}
	}
	/*
	 * Rings built by a cascade: a level-2 slot from clock 64 (ticks
	 * 4096..8191) into slot 5 of level 0 (ties) and slot 3 of level 1.
	 */
	for (i = 0; i < 2; i++) {
		if (wref_reset(r, 64))
			return -1;
		for (id = 0; id < 4; id++)
			wref_add(r, id, 4096 + (i ? 3 * 64 + id : 5));
		wref_add(r, 4, 4096);
		wref_advance(r, 4096);
		if (r->failed || r->obj[4].live)
			return WREF_FAIL(r, "the cascade did not happen");
		if (wref_ring_removes(r, i, i ? 3 : 5))
			return -1;
	}
	return r->failed ? -1 : 0;
}

/*
 * The levels come and go: an empty wheel has none; an add asks for the
 * level of its deadline, and only while the wheel lacks it; with every
 * level holding entries none is taken back, and when one level empties it
 * is exactly the one taken back; then asked for again, and given again,
 * it serves again.
 */
static __maybe_unused int wref_case_levels(struct wref *r)
{
	static const u64 starts[] = {
		0, 0x0123456789abcdefULL, 4095, 0xfedcba9876543210ULL,
	};
	static const unsigned int order[] = { 5, 0, 10, 3, 1, 9, 2, 8, 4, 7, 6 };
	u64 d[TWHEEL_LEVELS], given;
	struct twheel_level *l, *got;
	unsigned int i, j, lvl;
	int need;

	for (i = 0; i < ARRAY_SIZE(starts); i++) {
		if (wref_reset(r, starts[i]))
			return -1;
		r->churn = WREF_CHURN_NONE;
		if (wref_took_one(r))
			return WREF_FAIL(r, "an empty wheel gave a level back");
		for (lvl = 0; lvl < TWHEEL_LEVELS; lvl++) {
			d[lvl] = wref_first_at(starts[i], lvl);
			need = d[lvl] ? twheel_wheel_level_needed(r->w, d[lvl]) :
			       (int)lvl;
			if (need != (int)lvl)
				return WREF_FAIL(r, "level_needed(%llu) = %d, want %u",
						 d[lvl], need, lvl);
		}
		given = r->st.given;
		for (lvl = 0; lvl < TWHEEL_LEVELS; lvl++) {
			if (!d[lvl])
				continue;
			wref_add(r, lvl, d[lvl]);
			wref_add(r, TWHEEL_LEVELS + lvl, d[lvl] + 1);
			if (twheel_wheel_level_needed(r->w, d[lvl]) != -1 ||
			    !r->w->lvl[lvl])
				return WREF_FAIL(r, "level %u not given", lvl);
			if (r->st.given != ++given)
				return WREF_FAIL(r, "level %u given twice", lvl);
		}
		if (wref_take_levels(r, 1) || wref_took_one(r))
			return WREF_FAIL(r, "a level holding entries taken back");
		for (j = 0; j < ARRAY_SIZE(order); j++) {
			lvl = order[j];
			if (!d[lvl])
				continue;
			l = r->w->lvl[lvl];
			wref_remove(r, lvl);
			if (wref_took_one(r))
				return WREF_FAIL(r, "level %u taken back with an entry",
						 lvl);
			wref_remove(r, TWHEEL_LEVELS + lvl);
			got = twheel_wheel_take_empty_level(r->w, false);
			if (got)
				WREF_FREE(got);
			if (got != l || r->w->lvl[lvl])
				return WREF_FAIL(r, "emptied level %u not the one taken back",
						 lvl);
			r->st.taken++;
			if (wref_took_one(r))
				return WREF_FAIL(r, "a second level taken back");
			if (twheel_wheel_level_needed(r->w, d[lvl]) != (int)lvl)
				return WREF_FAIL(r, "level %u taken back, not asked for",
						 lvl);
			if (wref_check_layout(r))
				return -1;
		}
		/* asked for and given again, the levels serve again */
		for (lvl = 0; lvl < TWHEEL_LEVELS; lvl++) {
			if (d[lvl])
				wref_add(r, lvl, d[lvl]);
			if (d[TWHEEL_LEVELS - 1 - lvl])
				wref_add(r, TWHEEL_LEVELS + lvl,
					 d[TWHEEL_LEVELS - 1 - lvl]);
		}
		r->churn = WREF_CHURN_ALL;
		if (wref_drain_exact(r))
			return -1;
	}
	return r->failed ? -1 : 0;
}

/*
 * Parking: entries an advance handed back, parked (twheel_wheel_park()),
 * are held (counted, removable) but have no event. With nothing else
 * held, next() is TWHEEL_NEVER, idle() is true and behind() false
 * whatever @now, and an advance hands nothing back; a remove takes one
 * from the middle of the parked list; take_parked() gives back the rest,
 * in parking order, and leaves the wheel empty. Then take_all() lists
 * parked entries last, in parking order.
 */
static __maybe_unused int wref_case_park(struct wref *r)
{
	static const u64 nows[] = { 0, 1003, 1004, 1ULL << 40, U64_MAX };
	unsigned int i;

	if (wref_reset(r, 1000))
		return -1;
	wref_add(r, 0, 1003);
	wref_add(r, 1, 1001);
	wref_add(r, 2, 1003);
	wref_add(r, 3, 999);			/* due */
	wref_add(r, 4, 1000 + 3 * 4096);	/* level 2: stays */
	wref_advance(r, 1003);			/* hands back 3, 1, 0, 2 */
	if (r->failed)
		return -1;
	/* Parked in the caller's order, 2, 3, 0; 1 is not parked. */
	wref_park(r, 2);
	wref_park(r, 3);
	wref_park(r, 0);
	/* next() is id 4's slot's: the parked ones do not make it earlier. */
	if (wref_check_layout(r) || wref_check_next(r))
		return -1;
	if (twheel_wheel_idle(r->w) || r->w->count != 4)
		return WREF_FAIL(r, "3 parked, 1 in a slot: idle() %d, count %llu",
				 twheel_wheel_idle(r->w), r->w->count);

	wref_remove(r, 4);			/* nothing but parked left */
	if (r->failed)
		return -1;
	if (twheel_wheel_next(r->w) != TWHEEL_NEVER ||
	    !twheel_wheel_idle(r->w) || twheel_wheel_empty(r->w) ||
	    r->w->count != 3)
		return WREF_FAIL(r, "parked only: next() %llu, idle() %d, empty() %d, count %llu",
				 twheel_wheel_next(r->w), twheel_wheel_idle(r->w),
				 twheel_wheel_empty(r->w), r->w->count);
	for (i = 0; i < ARRAY_SIZE(nows); i++)
		if (twheel_wheel_behind(r->w, nows[i]))
			return WREF_FAIL(r, "parked only: behind(%llu) true",
					 nows[i]);
	wref_advance(r, 1ULL << 40);		/* hands nothing back */
	wref_remove(r, 3);			/* the middle parked one */
	if (wref_check_layout(r))
		return -1;
	wref_take_parked(r);			/* 2, then 0 */
	if (r->failed)
		return -1;
	if (r->w->count || !twheel_wheel_empty(r->w) ||
	    !twheel_wheel_idle(r->w) ||
	    twheel_wheel_next(r->w) != TWHEEL_NEVER)
		return WREF_FAIL(r, "taken back: count %llu, empty() %d, idle() %d, next() %llu",
				 r->w->count, twheel_wheel_empty(r->w),
				 twheel_wheel_idle(r->w),
				 twheel_wheel_next(r->w));

	/* take_all(): the one in a slot, then the parked ones, 1 and 0. */
	wref_add(r, 0, r->clk + 1);
	wref_add(r, 1, r->clk + 1);
	wref_add(r, 2, r->clk + 100000);
	wref_advance(r, r->clk + 1);		/* hands back 0, 1 */
	wref_park(r, 1);
	wref_park(r, 0);
	wref_take_all(r, 5);
	return r->failed ? -1 : wref_finish(r);
}

#endif /* _TWHEEL_WHEEL_REF_CASE_LEVEL_H */
