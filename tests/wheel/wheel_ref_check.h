/* SPDX-License-Identifier: GPL-2.0 */
/*
 * wheel_ref_check.h - comparing the wheel with the model: the checks the
 * driver makes besides those of the hand-backs (wheel_ref_advance.h), and
 * the independent computations they hold the wheel's answers against.
 * Part of wheel_ref.h.
 *
 * The driver checks twheel_wheel_next() exactly (see wref_check_next()),
 * the count, and, now and then, the wheel's internal layout
 * (wref_check_layout()); after every add and remove, the one slot the
 * deadline names (wref_check_slot_of()), and after every advance, every
 * slot's bit against its pointer (wref_check_bits()).
 */
#ifndef _TWHEEL_WHEEL_REF_CHECK_H
#define _TWHEEL_WHEEL_REF_CHECK_H

#include "wheel_ref_model.h"

/*
 * The count holds the parked entries too; twheel_wheel_empty() says none
 * is held at all, twheel_wheel_idle() that none but parked ones is.
 */
static __maybe_unused int wref_check_count(struct wref *r)
{
	if (r->w->count != (u64)r->nlive + r->npark)
		return WREF_FAIL(r, "count %llu, model has %u live + %u parked",
				 r->w->count, r->nlive, r->npark);
	if (twheel_wheel_empty(r->w) != !(r->nlive + r->npark))
		return WREF_FAIL(r, "twheel_wheel_empty() wrong with %u live + %u parked",
				 r->nlive, r->npark);
	if (twheel_wheel_idle(r->w) != !r->nlive)
		return WREF_FAIL(r, "twheel_wheel_idle() = %d with %u live + %u parked",
				 twheel_wheel_idle(r->w), r->nlive, r->npark);
	return 0;
}

static int wref_check_expires(struct wref *r, u64 now)
{
	const struct wref_obj *o = r->nlive ? &r->obj[r->ord[0]] : NULL;
	struct twheel_entry *got = twheel_wheel_expires(r->w, now);
	bool want;

	want = list_empty(&r->w->cascade) && o &&
	       (o->eff <= r->clk ||
		(!((o->expires ^ r->clk) >> TWHEEL_LVL_BITS) &&
		 o->expires <= now));
	/* When it names one, the entry handed back first: the earliest. */
	if (got != (want ? &o->ent : NULL))
		return WREF_FAIL(r, "expires(%llu) = %s, want %s (clk %llu, %u live, earliest deadline %llu)",
				 now, !got ? "none" : got == &o->ent ?
				 "the earliest" : "another entry",
				 want ? "the earliest" : "none", r->clk,
				 r->nlive, o ? o->expires : 0ULL);
	return 0;
}

static __maybe_unused int wref_check_next(struct wref *r)
{
	u64 got, want;

	if (r->failed)		/* the wheel may be broken: leave it */
		return -1;
	got = twheel_wheel_next(r->w);
	want = wref_want_next(r);
	r->st.nexts++;
	if (got != want)
		return WREF_FAIL(r,
				 "next() = %llu, want %llu (clk %llu, %u live, earliest deadline %llu)",
				 got, want, r->clk, r->nlive,
				 r->nlive ? r->obj[r->ord[0]].eff : 0ULL);
	if (r->nlive && got > r->obj[r->ord[0]].eff)
		return WREF_FAIL(r, "next() = %llu after earliest deadline %llu",
				 got, r->obj[r->ord[0]].eff);
	/*
	 * expires(): an advance hands back before it cascades. At the next
	 * event and a tick before it: exactly when no advance is unfinished
	 * and the earliest entry is due, or in the clock's level-0 window
	 * and due by then.
	 */
	if (wref_check_expires(r, got) ||
	    (got > r->clk && wref_check_expires(r, got - 1)))
		return -1;
	/* idle() iff nothing but parked entries is held (next() is never). */
	if (twheel_wheel_idle(r->w) != !r->nlive)
		return WREF_FAIL(r, "idle() = %d with %u live + %u parked, next() = %llu",
				 twheel_wheel_idle(r->w), r->nlive, r->npark,
				 got);
	return 0;
}

/*
 * Level of a deadline @x after @clk, by a plain digit scan (no fls64): the
 * highest 6-bit digit in which it differs from @clk.
 */
static inline unsigned int wref_level_of(u64 x, u64 clk)
{
	unsigned int lvl;

	for (lvl = TWHEEL_LEVELS - 1; lvl > 0; lvl--)
		if ((x ^ clk) >> (TWHEEL_LVL_BITS * lvl))
			break;
	return lvl;
}

/* The wref_obj whose entry's node is @p, or NULL if @p is no such node. */
static __maybe_unused struct wref_obj *wref_obj_of(const struct wref *r,
						   const struct list_head *p)
{
	unsigned long base = (unsigned long)&r->obj[0].ent.node;
	unsigned long off = (unsigned long)p - base;

	if (!p || (unsigned long)p < base ||
	    off >= (unsigned long)r->nobj * sizeof(*r->obj) ||
	    off % sizeof(*r->obj))
		return NULL;
	return &r->obj[off / sizeof(*r->obj)];
}

/*
 * Level (0..10) at which @e sits, TWHEEL_LEVELS if due, TWHEEL_LEVELS + 1
 * if on the cascade list of an unfinished advance, -1 if lost. A slot has
 * no list head: an entry is in slot s of level L iff its ring (followed
 * through the nodes' next) holds the node the slot points at.
 */
static __maybe_unused int wref_where(const struct twheel_wheel *w,
				     const struct twheel_entry *e)
{
	const struct list_head *p = &e->node;
	unsigned int lvl, slot;
	u32 guard = 0;

	/* The due and cascade lists first: a walk to their head. */
	do {
		if (p == &w->due)
			return TWHEEL_LEVELS;
		if (p == &w->cascade)
			return TWHEEL_LEVELS + 1;
		p = p->next;
	} while (p && p != &e->node && ++guard < 0x1000000);
	if (p != &e->node)
		return -1;
	/* A ring: which slot points into it? */
	do {
		for (lvl = 0; lvl < TWHEEL_LEVELS; lvl++) {
			if (!w->lvl[lvl])
				continue;
			for (slot = 0; slot < TWHEEL_SLOTS; slot++)
				if (w->lvl[lvl]->slot[slot] == p)
					return (int)lvl;
		}
		p = p->next;
	} while (p != &e->node);
	return -1;
}

/*
 * What twheel_wheel_level_missing() must say, from the wheel's cascade
 * list and its levels: the level the next entry to cascade goes to, when
 * the wheel lacks it.
 */
static __maybe_unused int wref_want_missing(const struct twheel_wheel *w)
{
	const struct twheel_entry *e;
	unsigned int lvl;

	if (list_empty(&w->cascade))
		return -1;
	e = list_first_entry(&w->cascade, struct twheel_entry, node);
	if (e->expires <= w->clk)
		return -1;
	lvl = wref_level_of(e->expires, w->clk);
	return w->lvl[lvl] ? -1 : (int)lvl;
}

/*
 * What twheel_wheel_level_needed(@expires) must say: the level an add
 * would put the entry in (none if due, or if it joins the slot being
 * cascaded), when the wheel lacks it.
 */
static __maybe_unused int wref_want_needed(const struct twheel_wheel *w,
					   u64 expires)
{
	unsigned int lvl;

	if (expires <= w->clk)
		return -1;
	if (!list_empty(&w->cascade) &&
	    (expires >> w->casc_shift) == (w->clk >> w->casc_shift))
		return -1;
	lvl = wref_level_of(expires, w->clk);
	return w->lvl[lvl] ? -1 : (int)lvl;
}

static inline const char *wref_list_name(u32 tag)
{
	return tag == WREF_TAG_DUE ? "due" :
	       tag == WREF_TAG_CASCADE ? "cascade" : "parked";
}

/*
 * A list with a head (the due, cascade or parked list) in the layout
 * check: sound links, only the model's entries, each seen once; records
 * their place (@tag, position) for the order checks.
 */
static __maybe_unused int wref_layout_list(struct wref *r,
					   const struct list_head *h,
					   u32 tag, u64 *n)
{
	const struct list_head *p;
	struct wref_obj *o;
	u32 i = 0;

	for (p = h->next; p != h; p = p->next, i++) {
		o = wref_obj_of(r, p);
		if (!o || i > r->nobj)
			return WREF_FAIL(r, "%s list holds a foreign node",
					 wref_list_name(tag));
		if (!p->next || p->next->prev != p || p->prev->next != p)
			return WREF_FAIL(r, "%s list: links of id %ld broken",
					 wref_list_name(tag), (long)(o - r->obj));
		if (o->mark == r->st.layouts)
			return WREF_FAIL(r, "id %ld is in two places",
					 (long)(o - r->obj));
		o->mark = r->st.layouts;
		o->tag = tag;
		o->pos = i;
		(*n)++;
	}
	return 0;
}

/*
 * One slot's ring, from the node the slot points at: sound links, only
 * the model's entries, each seen once, each where its deadline places it
 * relative to the clock (this level, this slot).
 */
static __maybe_unused int wref_layout_ring(struct wref *r, unsigned int lvl,
					   unsigned int slot,
					   const struct list_head *first,
					   u64 *n)
{
	const struct twheel_wheel *w = r->w;
	const struct list_head *p = first;
	struct wref_obj *o;
	u32 i = 0;

	do {
		o = wref_obj_of(r, p);
		if (!o)
			return WREF_FAIL(r, "level %u slot %u: ring holds a foreign node",
					 lvl, slot);
		if (!wref_obj_of(r, p->next) || !wref_obj_of(r, p->prev) ||
		    p->next->prev != p || p->prev->next != p)
			return WREF_FAIL(r, "level %u slot %u: links of id %ld broken",
					 lvl, slot, (long)(o - r->obj));
		if (o->mark == r->st.layouts)
			return WREF_FAIL(r, "id %ld is in two places (level %u slot %u)",
					 (long)(o - r->obj), lvl, slot);
		o->mark = r->st.layouts;
		if (o->ent.expires <= w->clk || !o->live || o->parked ||
		    wref_level_of(o->ent.expires, w->clk) != lvl ||
		    ((o->ent.expires >> (TWHEEL_LVL_BITS * lvl)) &
		     TWHEEL_SLOT_MASK) != slot || o->expires != o->ent.expires)
			return WREF_FAIL(r,
					 "entry %ld (expires %llu) misplaced at level %u slot %u, clk %llu",
					 (long)(o - r->obj), o->ent.expires,
					 lvl, slot, w->clk);
		o->tag = WREF_TAG_SLOT + lvl * TWHEEL_SLOTS + slot;
		o->pos = i++;
		(*n)++;
		p = p->next;
	} while (p != first);
	return 0;
}

/* Rank of a place in the order of ties: slot, then cascade, then due. */
static inline u32 wref_tag_rank(u32 tag)
{
	return tag >= WREF_TAG_SLOT ? 0 : tag == WREF_TAG_CASCADE ? 1 : 2;
}

/*
 * White-box: every entry sits where its deadline puts it relative to the
 * wheel's clock, the levels and bitmaps match the slots (a level the wheel
 * lacks has a zero bitmap; a slot's bit is set iff it points at a ring),
 * every ring and list is soundly linked, the counts add up, the entries are
 * the model's live ones, each in one place, ties in insertion order, and
 * level_missing() answers right. The parked list holds exactly park[], in
 * order, each with a deadline at or before the clock (so that remove()
 * finds it in no slot).
 */
static __maybe_unused int wref_check_layout(struct wref *r)
{
	const struct twheel_wheel *w = r->w;
	const struct twheel_entry *e;
	const struct list_head *first;
	const struct wref_obj *o, *q;
	unsigned int lvl, slot;
	int got, want;
	u64 n = 0;
	u32 i;

	if (r->failed)		/* the wheel may be broken: leave it */
		return -1;

	r->st.layouts++;
	if (w->clk != r->clk)
		return WREF_FAIL(r, "clk %llu, model %llu", w->clk, r->clk);
	if (wref_layout_list(r, &w->due, WREF_TAG_DUE, &n) ||
	    wref_layout_list(r, &w->cascade, WREF_TAG_CASCADE, &n) ||
	    wref_layout_list(r, &w->parked, WREF_TAG_PARKED, &n))
		return -1;
	list_for_each_entry(e, &w->due, node) {
		o = container_of(e, struct wref_obj, ent);
		if (e->expires > w->clk || !o->live || o->parked ||
		    o->eff != w->clk)
			return WREF_FAIL(r, "due entry %ld expires %llu clk %llu",
					 (long)(o - r->obj), e->expires, w->clk);
	}
	list_for_each_entry(e, &w->cascade, node) {
		o = container_of(e, struct wref_obj, ent);
		if (e->expires < w->clk || !o->live || o->parked ||
		    (e->expires >> w->casc_shift) != (w->clk >> w->casc_shift))
			return WREF_FAIL(r, "cascading entry %ld expires %llu clk %llu shift %u",
					 (long)(o - r->obj), e->expires, w->clk,
					 w->casc_shift);
	}
	i = 0;
	list_for_each_entry(e, &w->parked, node) {
		o = container_of(e, struct wref_obj, ent);
		if (i >= r->npark || o != &r->obj[r->park[i]])
			return WREF_FAIL(r, "parked #%u is id %ld, want id %ld (%u parked)",
					 i, (long)(o - r->obj),
					 i < r->npark ? (long)r->park[i] : -1L,
					 r->npark);
		if (!o->live || !o->parked || e->expires > w->clk ||
		    e->expires != o->expires)
			return WREF_FAIL(r, "parked entry %ld expires %llu (asked %llu) clk %llu",
					 (long)(o - r->obj), e->expires,
					 o->expires, w->clk);
		i++;
	}
	if (i != r->npark)
		return WREF_FAIL(r, "parked list holds %u, model %u", i,
				 r->npark);
	for (lvl = 0; lvl < TWHEEL_LEVELS; lvl++) {
		if (!w->lvl[lvl]) {
			if (w->pending[lvl])
				return WREF_FAIL(r, "level %u absent, bitmap %llx",
						 lvl, w->pending[lvl]);
			continue;
		}
		for (slot = 0; slot < TWHEEL_SLOTS; slot++) {
			bool bit = (w->pending[lvl] >> slot) & 1;

			first = w->lvl[lvl]->slot[slot];
			if (bit != !!first)
				return WREF_FAIL(r, "level %u slot %u: bit %d, slot %s",
						 lvl, slot, bit,
						 first ? "not empty" : "empty");
			if (first && wref_layout_ring(r, lvl, slot, first, &n))
				return -1;
		}
	}
	if (n != w->count || n != (u64)r->nlive + r->npark)
		return WREF_FAIL(r, "layout holds %llu, count %llu, model %u + %u parked",
				 n, w->count, r->nlive, r->npark);
	/*
	 * Ties in insertion order. ord[] is sorted by (eff, seq); live
	 * entries of one eff after the clock share their deadline, hence
	 * their slot, where they are in ring order unless the slot is being
	 * cascaded: then its older ones may be in a lower slot already, the
	 * others on the cascade list. Entries of eff == clk are on the
	 * cascade list (a deadline of the slot's tick) and then due.
	 */
	for (i = 0; i + 1 < r->nlive; i++) {
		o = &r->obj[r->ord[i]];
		q = &r->obj[r->ord[i + 1]];
		if (o->mark != r->st.layouts || q->mark != r->st.layouts)
			return WREF_FAIL(r, "live id %ld or %ld not in the wheel",
					 (long)(o - r->obj), (long)(q - r->obj));
		if (o->eff != q->eff)
			continue;
		if (o->tag == q->tag ? o->pos >= q->pos :
		    wref_tag_rank(o->tag) >= wref_tag_rank(q->tag))
			return WREF_FAIL(r,
					 "ties out of insertion order: id %ld (place %u #%u) before id %ld (place %u #%u), deadline %llu, clk %llu",
					 (long)(o - r->obj), o->tag, o->pos,
					 (long)(q - r->obj), q->tag, q->pos,
					 o->expires, w->clk);
	}
	got = twheel_wheel_level_missing(w);
	want = wref_want_missing(w);
	if (got != want)
		return WREF_FAIL(r, "level_missing() = %d, want %d", got, want);
	return 0;
}

/*
 * The slot a deadline names relative to the clock (NULL if it is due, or
 * its level absent): the only slot an add or a remove may change.
 */
static __maybe_unused struct list_head **wref_slot_of(const struct twheel_wheel *w,
						      u64 expires,
						      unsigned int *lvl,
						      unsigned int *slot)
{
	if (expires <= w->clk)
		return NULL;
	*lvl = wref_level_of(expires, w->clk);
	*slot = (expires >> (TWHEEL_LVL_BITS * *lvl)) & TWHEEL_SLOT_MASK;
	return w->lvl[*lvl] ? &w->lvl[*lvl]->slot[*slot] : NULL;
}

/*
 * Right after an add (@added) or a remove of @o, with @before the value
 * its slot had before the call (and, for a remove, @next its node's next
 * then): the slot changed exactly as it must, and its bit says whether it
 * is empty. An add to a slot appends (the slot gets the node if it was
 * empty, and the node is the ring's last); an add that joined the cascade
 * list is at its tail and touched no slot; a remove changes the slot only
 * when the entry was its first: to the next one, or empty.
 */
static __maybe_unused int wref_check_slot_of(struct wref *r,
					     const struct wref_obj *o,
					     bool added,
					     const struct list_head *before,
					     const struct list_head *next)
{
	const struct twheel_wheel *w = r->w;
	const struct list_head *node = &o->ent.node, *want;
	struct list_head **sp;
	unsigned int lvl = 0, slot = 0;
	bool bit;

	sp = wref_slot_of(w, o->expires, &lvl, &slot);
	if (!sp)	/* due, or a level it lacks: in no slot */
		return 0;
	bit = (w->pending[lvl] >> slot) & 1;
	if (added && !list_empty(&w->cascade) &&
	    (o->expires >> w->casc_shift) == (w->clk >> w->casc_shift)) {
		if (w->cascade.prev != node)
			return WREF_FAIL(r, "id %ld (expires %llu) added in the cascading slot's range, not at the cascade list's tail",
					 (long)(o - r->obj), o->expires);
		want = before;
	} else if (added) {
		want = before ? before : node;
		if (!*sp || (*sp)->prev != node)
			return WREF_FAIL(r, "id %ld (expires %llu) added, not last in level %u slot %u",
					 (long)(o - r->obj), o->expires, lvl, slot);
	} else {
		want = before != node ? before : next == node ? NULL : next;
	}
	if (*sp != want)
		return WREF_FAIL(r, "%s id %ld (expires %llu) made level %u slot %u point %s",
				 added ? "adding" : "removing",
				 (long)(o - r->obj), o->expires, lvl, slot,
				 !*sp ? "nowhere" : *sp == node ? "at it" :
				 *sp == before ? "where it did" : "elsewhere");
	if (bit != !!*sp)
		return WREF_FAIL(r, "after %s id %ld: level %u slot %u has bit %d, slot %s",
				 added ? "adding" : "removing",
				 (long)(o - r->obj), lvl, slot, bit,
				 *sp ? "not empty" : "empty");
	return 0;
}

/*
 * After an advance or take_all: in every level the wheel has, a slot's bit
 * is set iff it points somewhere (O(levels * slots), no entry visited);
 * an absent level has no bit set.
 */
static __maybe_unused int wref_check_bits(struct wref *r)
{
	const struct twheel_wheel *w = r->w;
	unsigned int lvl, slot;

	for (lvl = 0; lvl < TWHEEL_LEVELS; lvl++) {
		if (!w->lvl[lvl]) {
			if (w->pending[lvl])
				return WREF_FAIL(r, "level %u absent, bitmap %llx",
						 lvl, w->pending[lvl]);
			continue;
		}
		for (slot = 0; slot < TWHEEL_SLOTS; slot++)
			if (((w->pending[lvl] >> slot) & 1) !=
			    !!w->lvl[lvl]->slot[slot])
				return WREF_FAIL(r, "level %u slot %u: bit %llu, slot %s",
						 lvl, slot,
						 (w->pending[lvl] >> slot) & 1,
						 w->lvl[lvl]->slot[slot] ?
						 "not empty" : "empty");
	}
	return 0;
}

#endif /* _TWHEEL_WHEEL_REF_CHECK_H */
