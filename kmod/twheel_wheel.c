// SPDX-License-Identifier: GPL-2.0
/*
 * twheel_wheel.c - the hierarchical timing wheel core.
 *
 * A pure data structure: no locks, no allocation, no clock reads; the
 * caller serialises the calls on a wheel and passes the time in ticks. It
 * builds as userspace C too (tests/wheel/twheel_shim.h). The bottom layer:
 * the clock bases (twheel_base.c) own the wheels and give them their
 * levels; it calls nothing of twheel's.
 *
 * Placement. A tick is read as 11 digits of 6 bits (the top digit has only
 * the 4 bits 60..63). An entry whose deadline is after the clock goes to
 * the level of the highest digit in which its deadline differs from the
 * clock, in the slot named by its deadline's digit at that level:
 *
 *	level = (fls64(expires ^ clk) - 1) / 6
 *	slot  = (expires >> (6 * level)) & 63
 *
 * 11 levels hold all 64 bits: every u64 deadline has a place, none is
 * clamped, parked in an overflow list, or fired early for a rounding. An
 * entry whose deadline is at or before the clock goes to the due list.
 *
 * Invariant: every entry is placed per the current clock. Hence
 *  (a) an entry is on the due list iff its deadline is <= clk, so removal
 *      can find its list from (expires, clk) alone: no level is stored;
 *  (b) the deadline of an entry in slot s of level L agrees with clk above
 *      L and its digit s at L is greater than clk's digit there, so the
 *      bitmaps never wrap;
 *  (c) all entries sharing a deadline share one slot, in insertion order.
 *
 * The event tick of slot s of level L is the first tick at which the clock
 * reaches that slot: clk with digits 0..L cleared and digit L set to s. By
 * (b), every entry of the slot has a deadline at or after its event tick.
 * Ordering of event ticks: any occupied slot of level L' < L has an event
 * tick whose digit at L equals clk's, which is below the digit of any
 * occupied slot of level L, all higher digits agreeing. So the earliest
 * event tick is that of the lowest set bit of the lowest non-empty level,
 * no two occupied slots share an event tick, and the earliest deadline held
 * lives in exactly that slot.
 *
 * Bounded advance. An advance moves the clock to the earliest event tick t
 * and takes that slot's list whole onto the cascade list (O(1)); it then
 * moves the cascade list's entries one at a time: an entry whose deadline
 * is t is handed back, any other is placed relative to the clock, t, into
 * a lower level. It may stop between two entries when its budget runs
 * out, or before an entry whose level the caller has not given (the next
 * call, once it is given, goes on from there: stopping for a level costs
 * no budget and changes no order). Until the cascade list is empty:
 *  - next() returns the clock (the advance must go on);
 *  - an entry added with a deadline in the cascading slot's range (equal
 *    to t at and above the slot's level) and after t joins the cascade
 *    list's tail, so entries of one deadline keep their insertion order;
 *    one added at or before t goes to the due list, which is handed back
 *    after the cascade list: its effective deadline is t, and it came
 *    after every entry of the slot;
 *  - remove() of an entry still on the cascade list finds it is not the
 *    first entry of the slot its deadline names (it is in no slot), and
 *    only unlinks it: the bitmap stays exact.
 * Every other entry is placed per the clock t, so the invariant holds. When
 * the advance starts a slot, every lower level and the due list (handed
 * back first) are empty: so the order above is the deadline order.
 *
 * Re-keying. A cascade may ask the caller (struct twheel_rekey) for a
 * later deadline of each entry it moves to a lower level, and place it by
 * that as if added then (one still in the slot being cascaded goes to the
 * list's tail; none to a level the wheel lacks, which it names): the
 * deadline only grows and stays after t.
 *
 * Slots. A slot is one pointer to the oldest of its entries, which form a
 * ring through their list nodes (appending goes before it): a level is 64
 * pointers, there only while the caller has given it (struct
 * twheel_level). remove() finds an entry's slot from (expires, clk), and
 * needs it only when the entry is the slot's first.
 */
#ifdef __KERNEL__
#include <linux/bitops.h>
#include <linux/bug.h>
#include <linux/export.h>
#include <kunit/visibility.h>
#endif

#include "twheel_wheel.h"

/* Digit @lvl of @expires: its slot at that level. */
static inline unsigned int twheel_slot(u64 expires, unsigned int lvl)
{
	return (expires >> (lvl * TWHEEL_LVL_BITS)) & TWHEEL_SLOT_MASK;
}

/*
 * Event tick of slot @slot of level @lvl: @clk with the digits of levels
 * 0..@lvl cleared and digit @lvl set to @slot. The mask is built from two
 * shifts of at most 60 so that level 10, whose digit reaches bit 63, never
 * needs a shift by 64 or more.
 */
static inline u64 twheel_event(u64 clk, unsigned int lvl, unsigned int slot)
{
	unsigned int shift = lvl * TWHEEL_LVL_BITS;
	u64 low = ((u64)TWHEEL_SLOT_MASK << shift) | (((u64)1 << shift) - 1);

	return (clk & ~low) | ((u64)slot << shift);
}

/*
 * Link @node in before @at. The wheel moves its entries by hand, as
 * kernel/time/timer.c links its hlists: this with __list_del(), and no
 * out-of-line CONFIG_DEBUG_LIST check per cascade move or removal.
 */
static inline void twheel_link_before(struct list_head *node,
				      struct list_head *at)
{
	node->next = at;
	node->prev = at->prev;
	at->prev->next = node;
	at->prev = node;
}

/* Append @node to the ring of a slot (*@slot: its oldest node, or NULL). */
static inline void twheel_slot_append(struct list_head **slot,
				      struct list_head *node)
{
	if (*slot) {
		twheel_link_before(node, *slot);	/* before the oldest */
		return;
	}
	INIT_LIST_HEAD(node);
	*slot = node;
}

/* Move the whole ring of a non-empty slot to the tail of list @to. */
static inline void twheel_slot_splice(struct list_head **slot,
				      struct list_head *to)
{
	struct list_head *first = *slot, *last = first->prev;

	first->prev = to->prev;
	to->prev->next = first;
	last->next = to;
	to->prev = last;
	*slot = NULL;
}

/*
 * Put @e, due after the clock, in level @lvl, the one its deadline names
 * for the current clock. The level exists (the caller of
 * twheel_wheel_add() gave it; an advance checks before it moves an entry).
 */
static inline void twheel_place_lvl(struct twheel_wheel *w,
				    struct twheel_entry *e, unsigned int lvl)
{
	unsigned int slot = twheel_slot(e->expires, lvl);

	twheel_slot_append(&w->lvl[lvl]->slot[slot], &e->node);
	w->pending[lvl] |= (u64)1 << slot;
}

/* Lowest non-empty level, or TWHEEL_LEVELS if every slot is empty. */
static inline unsigned int twheel_first_level(const struct twheel_wheel *w)
{
	unsigned int lvl;

	for (lvl = 0; lvl < TWHEEL_LEVELS; lvl++)
		if (w->pending[lvl])
			break;
	return lvl;
}

/**
 * twheel_wheel_init() - make an empty wheel
 * @w: the wheel
 * @now: the wheel's starting tick (any u64)
 *
 * The wheel has no level yet (see twheel_wheel_give_level()).
 */
void twheel_wheel_init(struct twheel_wheel *w, u64 now)
{
	unsigned int lvl;

	w->clk = now;
	w->count = 0;
	INIT_LIST_HEAD(&w->due);
	INIT_LIST_HEAD(&w->cascade);
	INIT_LIST_HEAD(&w->parked);
	w->casc_shift = 0;
	for (lvl = 0; lvl < TWHEEL_LEVELS; lvl++) {
		w->pending[lvl] = 0;
		w->lvl[lvl] = NULL;
	}
}
EXPORT_SYMBOL_IF_KUNIT(twheel_wheel_init);

/**
 * twheel_wheel_add() - arm an entry
 * @w: the wheel
 * @e: the caller's entry; must not be held by any wheel
 * @expires: the deadline, in ticks; every u64 value is held exactly
 *
 * The level twheel_wheel_level_needed() names for @expires must have been
 * given first.
 *
 * O(1). An entry whose deadline is after the wheel's clock is handed back
 * by the first advance that reaches @expires, and never by an earlier
 * one. An entry whose deadline is at or before the clock (in the past, or
 * equal to it) is "due": the next advance hands it back, whatever its @now
 * (even @now equal to or below the clock), ahead of every entry with a
 * later deadline; due entries keep their insertion order. In other words
 * its effective deadline is the clock at which it was added.
 *
 * Entries sharing a deadline are handed back in the order they were added,
 * also when added while an advance is unfinished. An entry re-added after
 * twheel_wheel_remove() or after being handed back behaves exactly as a
 * new one (it goes behind earlier entries of the same deadline).
 */
void twheel_wheel_add(struct twheel_wheel *w, struct twheel_entry *e,
		      u64 expires)
{
	e->expires = expires;
	w->count++;
	if (twheel_in_cascade(w, expires))
		list_add_tail(&e->node, &w->cascade);
	else if (expires <= w->clk)
		list_add_tail(&e->node, &w->due);
	else
		twheel_place_lvl(w, e, twheel_level(expires, w->clk));
}
EXPORT_SYMBOL_IF_KUNIT(twheel_wheel_add);

/**
 * twheel_wheel_remove() - disarm an entry
 * @w: the wheel
 * @e: an entry held by @w (added and neither removed nor handed back since)
 *
 * O(1) wherever the entry sits, at any level and after any number of
 * cascades, and the entry stores no position: an entry in a slot lies
 * where (@e->expires, clock) place it, so the slot its deadline names is
 * the only one it can be in; the slot changes only when the entry is its
 * first (the ring's next becomes first, or the slot empties and its bit
 * is cleared). An entry on the due or cascade list is no slot's first.
 * Unlinks it and leaves @e->node initialised as an empty list. The caller
 * owns @e again on return.
 */
void twheel_wheel_remove(struct twheel_wheel *w, struct twheel_entry *e)
{
	struct list_head *next = e->node.next, **sp;
	unsigned int lvl, slot;

	/* An entry the wheel does not hold: the caller's bug, never the user's. */
	if (!WARN_ON_ONCE(!w->count))
		w->count--;
	if (e->expires > w->clk) {
		lvl = twheel_level(e->expires, w->clk);
		slot = twheel_slot(e->expires, lvl);
		sp = w->lvl[lvl] ? &w->lvl[lvl]->slot[slot] : NULL;
		if (sp && *sp == &e->node) {
			if (next == &e->node) {
				*sp = NULL;
				w->pending[lvl] &= ~((u64)1 << slot);
			} else {
				*sp = next;
			}
		}
	}
	__list_del(e->node.prev, next);
	INIT_LIST_HEAD(&e->node);
}
EXPORT_SYMBOL_IF_KUNIT(twheel_wheel_remove);

/**
 * twheel_wheel_next() - when must the wheel next be advanced?
 * @w: the wheel
 *
 * O(TWHEEL_LEVELS), from the bitmaps alone: no slot is scanned and no tick
 * is stepped.
 *
 * Return: the clock if entries are due or an advance is unfinished;
 * otherwise the event tick of the earliest non-empty slot, that is the
 * tick at which the clock reaches it; TWHEEL_NEVER if the wheel holds
 * no entry but parked ones (twheel_wheel_park()).
 * The result is a lower bound of the earliest deadline held, never after
 * it: it is exact when that slot is at level 0; for a slot of level L >= 1
 * it is the earliest deadline with its 6 * L low bits cleared, the tick at
 * which the slot must be cascaded into finer levels. Advancing to it may
 * then hand nothing back; calling this again after that advance gives a
 * later, finer bound. Since U64_MAX is also a valid tick (a deadline of
 * U64_MAX at level 0, or due entries with the clock at U64_MAX), use
 * twheel_wheel_idle() to tell "never" apart.
 */
u64 twheel_wheel_next(const struct twheel_wheel *w)
{
	unsigned int lvl;

	if (!list_empty(&w->due) || !list_empty(&w->cascade))
		return w->clk;
	/* The lowest non-empty level holds the earliest event (see above). */
	lvl = twheel_first_level(w);
	if (lvl == TWHEEL_LEVELS)
		return TWHEEL_NEVER;
	return twheel_event(w->clk, lvl, __ffs64(w->pending[lvl]));
}
EXPORT_SYMBOL_IF_KUNIT(twheel_wheel_next);

/**
 * twheel_wheel_idle() - does the wheel have no event to come?
 * @w: the wheel
 *
 * O(TWHEEL_LEVELS).
 *
 * Return: true when no entry is in a slot, due or cascading: the wheel is
 * empty or holds parked entries only, and twheel_wheel_next() is
 * TWHEEL_NEVER because nothing will ever be handed back.
 */
bool twheel_wheel_idle(const struct twheel_wheel *w)
{
	return list_empty(&w->due) && list_empty(&w->cascade) &&
	       twheel_first_level(w) == TWHEEL_LEVELS;
}
EXPORT_SYMBOL_IF_KUNIT(twheel_wheel_idle);

/**
 * twheel_wheel_behind() - would an advance to @now move or hand back entries?
 * @w: the wheel
 * @now: the current tick
 *
 * O(TWHEEL_LEVELS). After twheel_wheel_advance_some(@w, @now, ...) this
 * tells whether it stopped (true: for its budget, or for a level it lacks,
 * see twheel_wheel_level_missing()) or finished (false); a finished
 * advance has moved the clock to at least @now.
 *
 * Return: true when entries are due (whatever @now), an advance is
 * unfinished, or the earliest slot's event tick is at or before @now.
 */
bool twheel_wheel_behind(const struct twheel_wheel *w, u64 now)
{
	/* Due entries go back whatever @now, even one below the clock. */
	if (!list_empty(&w->due) || !list_empty(&w->cascade))
		return true;
	return !twheel_wheel_idle(w) && twheel_wheel_next(w) <= now;
}
EXPORT_SYMBOL_IF_KUNIT(twheel_wheel_behind);

/**
 * twheel_wheel_expires() - the first entry an advance to @now would hand
 *                          back, when it hands entries back before it
 *                          cascades any
 * @w: the wheel
 * @now: the current tick
 *
 * O(1). An entry when no advance is unfinished and entries are due (the
 * first of them), or the next event is a slot of level 0 (whose entries
 * all fall due at its tick, with no cascade before it: see
 * twheel_wheel_next()) at or before @now (its oldest entry). The entry
 * stays where it is.
 *
 * Return: that entry, or NULL.
 */
struct twheel_entry *twheel_wheel_expires(const struct twheel_wheel *w,
					  u64 now)
{
	unsigned int slot;

	if (!list_empty(&w->cascade))
		return NULL;
	if (!list_empty(&w->due))
		return list_first_entry(&w->due, struct twheel_entry, node);
	if (!w->pending[0])
		return NULL;
	slot = __ffs64(w->pending[0]);
	if (twheel_event(w->clk, 0, slot) > now)
		return NULL;
	return list_entry(w->lvl[0]->slot[slot], struct twheel_entry, node);
}
EXPORT_SYMBOL_IF_KUNIT(twheel_wheel_expires);

/**
 * twheel_wheel_forward() - move the clock to @now when nothing is due by it
 * @w: the wheel
 * @now: the current tick, at or after the clock
 * @next: set to twheel_wheel_next() when the clock moved
 *
 * What twheel_wheel_advance_some() does when it has nothing to hand back
 * or cascade, in O(TWHEEL_LEVELS): no entry is due or cascading and the
 * earliest event is after @now, so the clock moves to @now and every
 * entry stays where it is (see its end).
 *
 * Return: true when the clock moved; false, nothing done, when @now is
 * before the clock or an advance has work to do by @now.
 */
bool twheel_wheel_forward(struct twheel_wheel *w, u64 now, u64 *next)
{
	u64 e;

	if (now < w->clk || !list_empty(&w->due) || !list_empty(&w->cascade))
		return false;
	e = twheel_wheel_next(w);
	if (e <= now)
		return false;
	w->clk = now;
	*next = e;
	return true;
}
EXPORT_SYMBOL_IF_KUNIT(twheel_wheel_forward);

/**
 * twheel_wheel_holds() - might the wheel hold an entry of deadline @expires?
 * @w: the wheel
 * @expires: a deadline, in ticks
 *
 * O(1): a caller that wants to hand an entry back at once, bypassing the
 * wheel, asks whether an entry of the same deadline is still waiting (and
 * must come first).
 *
 * Return: false when no entry with deadline @expires is held; true when
 * one may be (another deadline sharing its slot, or an unfinished
 * advance, also answers true).
 */
bool twheel_wheel_holds(const struct twheel_wheel *w, u64 expires)
{
	unsigned int lvl;

	if (!list_empty(&w->cascade))
		return true;
	if (expires <= w->clk)
		return !list_empty(&w->due);
	lvl = twheel_level(expires, w->clk);
	return (w->pending[lvl] >> twheel_slot(expires, lvl)) & 1;
}
EXPORT_SYMBOL_IF_KUNIT(twheel_wheel_holds);

/*
 * Hand back the run of entries at the head of @from that are due (all of
 * them with @all, else those whose deadline is the clock), at most
 * *@budget: one cut and one splice, whatever the run's length.
 * Return: the number handed back.
 */
static u64 twheel_hand_back(struct twheel_wheel *w, struct list_head *from,
			    bool all, struct list_head *expired, u64 *budget)
{
	struct twheel_entry *e, *last = NULL;
	struct list_head run;
	u64 n = 0;

	list_for_each_entry(e, from, node) {
		if (n == *budget || (!all && e->expires > w->clk))
			break;
		last = e;
		n++;
	}
	if (!n)
		return 0;
	list_cut_position(&run, from, &last->node);
	list_splice_tail(&run, expired);
	*budget -= n;
	return n;
}

/**
 * twheel_wheel_advance_some() - move the clock towards @now, handing back
 *                               what expired, within a budget
 * @w: the wheel
 * @now: the current tick
 * @expired: the caller's list; entries handed back are appended to its tail
 * @budget: the most entries to move (hand back, cascade to a lower level,
 *          or re-key); decremented by the number moved
 * @rk: NULL, or asked for a later deadline of each entry a cascade moves
 *      (see struct twheel_rekey and "Re-keying" above)
 *
 * Hands back, appended to @expired, every entry whose effective deadline
 * is <= @now: in deadline order, entries of one deadline in insertion
 * order, due entries (see twheel_wheel_add()) at the place of their
 * effective deadline. Nothing whose deadline is after max(@now, clock) is
 * handed back, so no entry ever comes back before the wheel's clock has
 * reached its deadline; an entry armed in a slot comes back in the first
 * advance with @now >= its deadline. The handed back entries belong to the
 * caller from then on.
 *
 * It stops when *@budget reaches 0, possibly in the middle of a slot, or
 * before an entry would move into a level the caller has not given
 * (twheel_wheel_level_missing() names it); twheel_wheel_behind() then
 * says so, and the next call (with this or a
 * later @now) goes on exactly where this one stopped. Entries handed back
 * over several calls come in the same order as from one call. An advance
 * that finishes sets the clock to max(clock, @now): it never goes back,
 * and an advance with @now below the clock only hands back the due
 * entries (and finishes an unfinished advance).
 *
 * Cost: at most *@budget entry moves, plus O(TWHEEL_LEVELS) per slot
 * started, whatever the ticks elapsed. An entry is cascaded at most
 * TWHEEL_LEVELS - 1 times per deadline it is placed by (@rk may place it
 * by a later one, as if added again).
 *
 * Return: the number of entries appended to @expired.
 */
u64 twheel_wheel_advance_some(struct twheel_wheel *w, u64 now,
			      struct list_head *expired, u64 *budget,
			      struct twheel_rekey *rk)
{
	struct twheel_entry *e;
	unsigned int lvl, slot;
	u64 handed = 0, t;

	for (;;) {
		if (!list_empty(&w->cascade)) {
			/*
			 * The slot being cascaded. Its deadlines agree with
			 * the clock down to its level, so each either equals
			 * the clock (hand back) or lands in a lower level,
			 * in list order: equal deadlines keep their order.
			 */
			if (!*budget)
				break;
			e = list_first_entry(&w->cascade, struct twheel_entry,
					     node);
			if (e->expires <= w->clk) {
				handed += twheel_hand_back(w, &w->cascade,
							   false, expired,
							   budget);
				continue;
			}
			/* Its owner may have pushed it back (see the top). */
			t = rk ? rk->fn(rk, e) : 0;
			if (t > e->expires && twheel_in_cascade(w, t)) {
				/* Behind its new deadline's, as an add. */
				e->expires = t;
				(*budget)--;
				__list_del(e->node.prev, e->node.next);
				twheel_link_before(&e->node, &w->cascade);
				continue;
			}
			/* Not to a level it lacks (named): then by its own. */
			lvl = t > e->expires ? twheel_level(t, w->clk) : 0;
			if (t > e->expires && w->lvl[lvl]) {
				e->expires = t;
			} else {
				if (t > e->expires)
					rk->lacked |= (u32)1 << lvl;
				lvl = twheel_level(e->expires, w->clk);
			}
			/* Stop for a level the caller has not given. */
			if (!w->lvl[lvl])
				break;
			(*budget)--;
			__list_del(e->node.prev, e->node.next);
			twheel_place_lvl(w, e, lvl);
			continue;
		}
		if (!list_empty(&w->due)) {
			if (!*budget)
				break;
			handed += twheel_hand_back(w, &w->due, true, expired,
						   budget);
			continue;
		}

		/*
		 * The earliest event: lowest set bit of the lowest non-empty
		 * level. It is the only slot whose event tick is t (see the
		 * file comment), and every level below it is empty.
		 */
		lvl = twheel_first_level(w);
		if (lvl == TWHEEL_LEVELS)
			goto finished;
		slot = __ffs64(w->pending[lvl]);
		t = twheel_event(w->clk, lvl, slot);
		if (t > now)
			goto finished;
		if (!*budget)
			break;

		/*
		 * Moving the clock to t keeps every other entry where it is:
		 * any other occupied slot's event tick E is after t, and
		 * clk < t < E with clk and E agreeing above that slot's level
		 * L puts t's digits above L equal to theirs and t's digit at
		 * L below the slot's, so the entry's level and slot relative
		 * to t are unchanged. The slot's own entries go onto the
		 * cascade list, whole.
		 */
		w->clk = t;
		w->pending[lvl] &= ~((u64)1 << slot);
		twheel_slot_splice(&w->lvl[lvl]->slot[slot], &w->cascade);
		w->casc_shift = lvl * TWHEEL_LVL_BITS;
	}
	w->count -= handed;
	return handed;

finished:
	/*
	 * Nothing left in a slot is due by @now: the earliest event tick E is
	 * after @now. Moving the clock from clk up to @now therefore keeps
	 * every entry placed right, by the argument above with @now in the
	 * place of t: clk <= now < E. And the due and cascade lists are
	 * empty, so no entry with a deadline <= the new clock is left behind.
	 */
	if (now > w->clk)
		w->clk = now;
	w->count -= handed;
	return handed;
}
EXPORT_SYMBOL_IF_KUNIT(twheel_wheel_advance_some);

/**
 * twheel_wheel_unhand() - give back entries an advance just handed back,
 *                         to be handed back first by the next one
 * @w: the wheel, not changed since that advance but for entries added
 *     with a deadline after its clock
 * @list: some of the entries it handed back, in the order it did; emptied
 * @n: their number
 *
 * For a caller that looked at what an advance handed back and keeps only
 * some of it now: the rest comes back, in the same order, before anything
 * else the next advance hands back. While an advance is unfinished they go
 * at the head of the cascade list, whose hand-back takes every entry
 * whose deadline is at or before the clock (theirs are); else at the head
 * of the due list. O(1).
 */
void twheel_wheel_unhand(struct twheel_wheel *w, struct list_head *list, u64 n)
{
	w->count += n;
	list_splice_init(list, list_empty(&w->cascade) ? &w->due :
							 &w->cascade);
}
EXPORT_SYMBOL_IF_KUNIT(twheel_wheel_unhand);

/**
 * twheel_wheel_take_all() - empty the wheel into a list and restart it
 * @w: the wheel
 * @now: the new clock, which may be earlier than the old one
 * @all: the caller's list; every held entry is appended to its tail
 *
 * For a clock that went back: the caller re-adds the entries, in the order
 * of @all, to the restarted wheel (at its own pace). @all is not in
 * deadline order, but entries sharing a deadline are in their insertion
 * order, so re-adding keeps ties in order. O(TWHEEL_LEVELS + occupied
 * slots): no entry is visited.
 *
 * Return: the number of entries appended to @all.
 */
u64 twheel_wheel_take_all(struct twheel_wheel *w, u64 now,
			  struct list_head *all)
{
	unsigned int lvl, slot;
	u64 n = w->count, bits;

	/*
	 * Slots first: a deadline split between a lower slot and the cascade
	 * list has its older entries in the slot. Then the cascade list, whose
	 * entries of the clock's deadline precede the due ones of it.
	 */
	for (lvl = 0; lvl < TWHEEL_LEVELS; lvl++) {
		for (bits = w->pending[lvl]; bits; bits &= bits - 1) {
			slot = __ffs64(bits);
			twheel_slot_splice(&w->lvl[lvl]->slot[slot], all);
		}
		w->pending[lvl] = 0;
	}
	list_splice_tail_init(&w->cascade, all);
	list_splice_tail_init(&w->due, all);
	list_splice_tail_init(&w->parked, all);
	w->count = 0;
	w->clk = now;
	return n;
}
EXPORT_SYMBOL_IF_KUNIT(twheel_wheel_take_all);

/**
 * twheel_wheel_park() - hold a handed-back entry aside
 * @w: the wheel that handed @e back
 * @e: the entry, just handed back, on no list of the caller's
 *
 * For an entry the caller has decided about but cannot finish where it
 * is (in an interrupt, an entry whose owner ends in a task): the wheel
 * holds it again, counted, so that twheel_wheel_remove() takes it as any
 * other, but in no slot and with no event: twheel_wheel_next() does not
 * see it, and no advance hands it back. twheel_wheel_take_parked() gives
 * the parked entries back, in the order parked; twheel_wheel_take_all()
 * takes them with the rest. O(1).
 */
void twheel_wheel_park(struct twheel_wheel *w, struct twheel_entry *e)
{
	w->count++;
	list_add_tail(&e->node, &w->parked);
}
EXPORT_SYMBOL_IF_KUNIT(twheel_wheel_park);

/**
 * twheel_wheel_take_parked() - give the parked entries back
 * @w: the wheel
 * @list: the caller's list; the parked entries are appended, in order
 *
 * O(entries taken), to count them.
 *
 * Return: how many were appended.
 */
u64 twheel_wheel_take_parked(struct twheel_wheel *w, struct list_head *list)
{
	struct list_head *pos;
	u64 n = 0;

	list_for_each(pos, &w->parked)
		n++;
	w->count -= n;
	list_splice_tail_init(&w->parked, list);
	return n;
}
EXPORT_SYMBOL_IF_KUNIT(twheel_wheel_take_parked);

/**
 * twheel_wheel_take_empty_level() - take back the slots of an empty level
 * @w: the wheel
 * @top: only a level above every level that holds entries
 *
 * O(TWHEEL_LEVELS). The level is gone from the wheel afterwards; an add or
 * an advance that needs it again asks for it (see above). A caller that
 * frees a wheel holding entries frees its levels (@w->lvl) itself. With
 * @top, the levels below the highest one holding entries stay, empty or
 * not: the entries above cascade into them on their way down, and a level
 * taken back there would be asked for again by the next cascade.
 *
 * Return: the slots of a level that holds no entry (all NULL), or NULL
 * when every level the wheel has (with @top: above the highest holding
 * entries) holds entries.
 */
struct twheel_level *twheel_wheel_take_empty_level(struct twheel_wheel *w,
						   bool top)
{
	struct twheel_level *l;
	int lvl;

	for (lvl = TWHEEL_LEVELS - 1; lvl >= 0; lvl--) {
		if (w->pending[lvl]) {
			if (top)
				return NULL;
			continue;
		}
		if (w->lvl[lvl]) {
			l = w->lvl[lvl];
			w->lvl[lvl] = NULL;
			return l;
		}
	}
	return NULL;
}
EXPORT_SYMBOL_IF_KUNIT(twheel_wheel_take_empty_level);
