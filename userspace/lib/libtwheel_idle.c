// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * libtwheel_idle.c - libtwheel's idle-timeout tracker (twheel_idle_*(),
 * see libtwheel.h): one timer per connection on a table fd, pushed back
 * by a store, with the bookkeeping the table leaves to a program kept
 * here, per tracker. Built on the calls of libtwheel.c. Its own errnos:
 * EINVAL for a bad argument, ENOSPC for no free handle, ETIME for a
 * handle reported expired, EOPNOTSUPP for a module without the table.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "libtwheel.h"

/* A handle's state. */
enum { IDLE_FREE, IDLE_LIVE, IDLE_EXPIRED };

struct twheel_idle_slot {
	uint64_t id;		/* its timer; 0: none (also: re-add pending) */
	int64_t tick;		/* the deadline tick last stored */
	uint64_t cookie;
	int next;		/* the next free handle, -1 */
	int state;
};

struct twheel_idle {
	int fd;
	unsigned int manual;
	struct twheel_table table;
	struct twheel_ringmap ring;	/* none (NULL) on an older module */
	int64_t timeout_ns;
	struct twheel_idle_slot *slots;
	int max_conns;
	int free;		/* the first free handle, -1 */
	int *owner;		/* per table entry: the handle of its timer */
	size_t nentries;
	/*
	 * Handles whose timer ended with its record in the ring, not taken
	 * yet, when a new timer took its table entry (owner[] then names
	 * the new one): found here by the record's id.
	 */
	struct idle_orphan {
		uint64_t id;
		int h;
	} *orphans;
	size_t nr_orphans, max_orphans;
	uint64_t headroom;
	/* Lazy cancels: stored, records dropped, ended (INFO's cancelled). */
	uint64_t stores, dropped, cancelled;
	size_t pending;		/* handles whose re-add failed */
	void (*observe)(void *arg, unsigned int what,
			const struct twheel_event *ev, int64_t deadline_ns);
	void *arg;
};

/* The records read at a time by twheel_idle_drain(). */
#define IDLE_READ	64

struct twheel_idle *twheel_idle_open(const struct twheel_idle_config *cfg)
{
	struct twheel_config c = { 0 };
	struct twheel_idle *ti;
	struct twheel_info info;
	uint64_t tick, headroom;
	int err;

	if (!cfg || !cfg->max_conns || cfg->max_conns > INT_MAX ||
	    cfg->timeout_ns <= 0 || (cfg->flags & ~TWHEEL_IDLE_MANUAL) ||
	    cfg->__reserved)
		goto inval;
	tick = cfg->tick_ns ? cfg->tick_ns : TWHEEL_DEFAULT_TICK_NS;
	/* A deadline stored is at most timeout + 1 tick after the present. */
	if (tick < TWHEEL_MIN_TICK_NS || tick > TWHEEL_MAX_TICK_NS ||
	    (uint64_t)cfg->timeout_ns / tick >= (1ULL << 31) - 2)
		goto inval;
	headroom = cfg->headroom ? cfg->headroom : cfg->max_conns;
	if (headroom > UINT64_MAX / 2)
		goto inval;
	ti = calloc(1, sizeof(*ti));
	if (!ti)
		return NULL;
	ti->fd = -1;
	ti->slots = calloc(cfg->max_conns, sizeof(*ti->slots));
	if (!ti->slots)
		goto fail_errno;
	ti->fd = twheel_open(O_CLOEXEC | O_NONBLOCK);
	if (ti->fd < 0)
		goto fail_errno;
	if (twheel_info(ti->fd, &info) < 0)
		goto fail_errno;
	if (!(info.features & TWHEEL_FEATURE_TABLE)) {
		err = EOPNOTSUPP;
		goto fail;
	}
	c.tick_ns = tick;
	c.flags = TWHEEL_CONFIG_TABLE | TWHEEL_CONFIG_MAX_TIMERS;
	if (cfg->flags & TWHEEL_IDLE_MANUAL)
		c.flags |= TWHEEL_CONFIG_MANUAL;
	/* Records without a read(2) where the module has the ring. */
	if (info.features & TWHEEL_FEATURE_RING)
		c.flags |= TWHEEL_CONFIG_RING;
	c.max_timers = cfg->max_conns + headroom;
	if (twheel_config(ti->fd, &c) < 0 ||
	    twheel_table_map(ti->fd, &ti->table) < 0 ||
	    ((c.flags & TWHEEL_CONFIG_RING) &&
	     twheel_ring_map(ti->fd, &ti->ring) < 0))
		goto fail_errno;
	ti->nentries = ti->table.size / sizeof(uint64_t);
	ti->owner = malloc(ti->nentries * sizeof(*ti->owner));
	if (!ti->owner)
		goto fail_errno;
	for (size_t i = 0; i < ti->nentries; i++)
		ti->owner[i] = -1;
	ti->max_conns = (int)cfg->max_conns;
	for (int h = 0; h < ti->max_conns; h++)
		ti->slots[h].next = h + 1 < ti->max_conns ? h + 1 : -1;
	ti->free = 0;
	ti->manual = cfg->flags & TWHEEL_IDLE_MANUAL;
	ti->timeout_ns = cfg->timeout_ns;
	ti->headroom = headroom;
	ti->observe = cfg->observe;
	ti->arg = cfg->arg;
	return ti;
fail_errno:
	err = errno;
fail:
	twheel_idle_close(ti);
	errno = err;
	return NULL;
inval:
	errno = EINVAL;
	return NULL;
}

int twheel_idle_fd(const struct twheel_idle *ti)
{
	if (!ti) {
		errno = EINVAL;
		return -1;
	}
	return ti->fd;
}

/* The tick of "timeout from now", on the tracker's clock. */
static int idle_deadline(struct twheel_idle *ti, int64_t *tick)
{
	int64_t now;

	if (ti->manual) {
		if (twheel_advance(ti->fd, 0, &now) < 0)
			return -1;
	} else {
		now = twheel_now(CLOCK_MONOTONIC);
		if (now < 0)
			return -1;
	}
	if (now > INT64_MAX - ti->timeout_ns)
		now = INT64_MAX - ti->timeout_ns;
	*tick = twheel_table_tick(&ti->table, now + ti->timeout_ns);
	return 0;
}

/* Room for one more orphan (below); -1 with ENOMEM. */
static int idle_orphan_room(struct twheel_idle *ti)
{
	struct idle_orphan *o;
	size_t max;

	if (ti->nr_orphans < ti->max_orphans)
		return 0;
	max = ti->max_orphans ? 2 * ti->max_orphans : 16;
	o = realloc(ti->orphans, max * sizeof(*o));
	if (!o)
		return -1;
	ti->orphans = o;
	ti->max_orphans = max;
	return 0;
}

/* The handle of an orphan's record @id (taken off the list), or -1. */
static int idle_orphan_take(struct twheel_idle *ti, uint64_t id)
{
	for (size_t k = 0; k < ti->nr_orphans; k++) {
		int h = ti->orphans[k].h;

		if (ti->orphans[k].id != id)
			continue;
		ti->orphans[k] = ti->orphans[--ti->nr_orphans];
		return h;
	}
	return -1;
}

/* Does handle @h's timer still hold its table entry? */
static int idle_owns(const struct twheel_idle *ti, int h)
{
	uint64_t i = TWHEEL_TABLE_INDEX(ti->slots[h].id);

	return ti->slots[h].id && i < ti->nentries && ti->owner[i] == h;
}

/* A new timer for handle @h at its tick; nothing changed on failure. */
static int idle_timer(struct twheel_idle *ti, int h)
{
	struct twheel_idle_slot *s = &ti->slots[h];
	struct twheel_add a = {
		.cookie = s->cookie,
		.expires_ns = s->tick * (int64_t)ti->table.tick_ns,
		.flags = TWHEEL_ABSTIME,
		.clock = CLOCK_MONOTONIC,
	};
	uint64_t i;

	/* Room first: nothing may fail once the timer is added. */
	if (idle_orphan_room(ti) < 0)
		return -1;
	if (twheel_add(ti->fd, &a) < 0)
		return -1;
	i = TWHEEL_TABLE_INDEX(a.id);
	if (i < ti->nentries) {
		int old = ti->owner[i];

		/*
		 * The entry's last timer ended without its record taken:
		 * the poll moved it into the ring (with read(2), the entry
		 * is not reused before the record is read).
		 */
		if (old >= 0 && old != h && ti->slots[old].id &&
		    TWHEEL_TABLE_INDEX(ti->slots[old].id) == i) {
			ti->orphans[ti->nr_orphans].id = ti->slots[old].id;
			ti->orphans[ti->nr_orphans++].h = old;
		}
		ti->owner[i] = h;
	}
	s->id = a.id;
	return 0;
}

/* The timer of @s ended, or is no longer @s's. */
static void idle_unown(struct twheel_idle *ti, struct twheel_idle_slot *s)
{
	if (idle_owns(ti, (int)(s - ti->slots)))
		ti->owner[TWHEEL_TABLE_INDEX(s->id)] = -1;
	s->id = 0;
}

int twheel_idle_add(struct twheel_idle *ti, uint64_t cookie)
{
	struct twheel_idle_slot *s;
	int h;

	if (!ti) {
		errno = EINVAL;
		return -1;
	}
	h = ti->free;
	if (h < 0) {
		errno = ENOSPC;
		return -1;
	}
	s = &ti->slots[h];
	s->cookie = cookie;
	if (idle_deadline(ti, &s->tick) < 0 || idle_timer(ti, h) < 0)
		return -1;
	ti->free = s->next;
	s->next = -1;
	s->state = IDLE_LIVE;
	return h;
}

/* Handle @h of @ti, if held (live or expired); else NULL with EINVAL. */
static struct twheel_idle_slot *idle_slot(struct twheel_idle *ti, int h)
{
	if (!ti || h < 0 || h >= ti->max_conns ||
	    ti->slots[h].state == IDLE_FREE) {
		errno = EINVAL;
		return NULL;
	}
	return &ti->slots[h];
}

int twheel_idle_touch(struct twheel_idle *ti, int h)
{
	struct twheel_idle_slot *s = idle_slot(ti, h);
	int64_t tick;

	if (!s)
		return -1;
	if (s->state == IDLE_EXPIRED) {
		errno = ETIME;
		return -1;
	}
	if (idle_deadline(ti, &tick) < 0)
		return -1;
	/* Never earlier: the kernel cannot move a timer forward. */
	if (tick > s->tick) {
		s->tick = tick;
		/*
		 * No timer while its re-add is pending: that uses the tick.
		 * An orphan's timer ended: its entry is another timer's now,
		 * and its record will show the push came too late.
		 */
		if (idle_owns(ti, h))
			twheel_table_push(&ti->table, s->id, tick);
	}
	return 0;
}

/* Lazy cancels stored whose timers may not have ended yet. */
static uint64_t idle_lingering(const struct twheel_idle *ti)
{
	uint64_t gone = ti->dropped + ti->cancelled;

	return ti->stores > gone ? ti->stores - gone : 0;
}

int twheel_idle_remove(struct twheel_idle *ti, int h)
{
	struct twheel_idle_slot *s = idle_slot(ti, h);

	if (!s)
		return -1;
	if (s->state == IDLE_LIVE && s->id) {
		if (idle_lingering(ti) >= ti->headroom) {
			struct twheel_info info;

			if (twheel_info(ti->fd, &info) < 0)
				return -1;
			ti->cancelled = info.cancelled;
		}
		if (!idle_owns(ti, h)) {
			/* An orphan: ended, its record to be dropped. */
			ti->stores++;
		} else if (idle_lingering(ti) >= ti->headroom) {
			/* ENOENT: it ended already (its record not ours). */
			if (twheel_cancel(ti->fd, s->id) < 0 && errno != ENOENT)
				return -1;
		} else {
			twheel_table_cancel(&ti->table, s->id);
			ti->stores++;
		}
		idle_unown(ti, s);
	} else if (s->state == IDLE_LIVE) {
		ti->pending--;
	}
	s->state = IDLE_FREE;
	s->next = ti->free;
	ti->free = h;
	return 0;
}

/* Retry the re-adds that failed; -1 with errno if one fails again. */
static int idle_retry(struct twheel_idle *ti)
{
	for (int h = 0; ti->pending && h < ti->max_conns; h++) {
		struct twheel_idle_slot *s = &ti->slots[h];

		if (s->state != IDLE_LIVE || s->id)
			continue;
		if (idle_timer(ti, h) < 0)
			return -1;
		ti->pending--;
	}
	return 0;
}

/* What a record read is, for twheel_idle_drain(). */
enum { IDLE_REC_DROPPED, IDLE_REC_EXPIRED, IDLE_REC_READD };

/*
 * Look record @r up: the handle whose timer it ended (*@h), and what it
 * is. The timer ended with it, in the kernel and here: a late push's
 * handle waits for its re-add (pending).
 */
static int idle_lookup(struct twheel_idle *ti, const struct twheel_event *r,
		       int *h)
{
	uint64_t i = TWHEEL_TABLE_INDEX(r->id);
	struct twheel_idle_slot *s;

	*h = -1;
	if (r->id && i < ti->nentries)
		*h = ti->owner[i];
	if ((*h < 0 || ti->slots[*h].id != r->id) && ti->nr_orphans)
		*h = idle_orphan_take(ti, r->id);
	if (*h < 0 || ti->slots[*h].id != r->id) {
		/* Removed: the cancel was stored after the record was queued. */
		ti->dropped++;
		return IDLE_REC_DROPPED;
	}
	s = &ti->slots[*h];
	idle_unown(ti, s);
	if (r->time_ns >= s->tick * (int64_t)ti->table.tick_ns) {
		s->state = IDLE_EXPIRED;
		return IDLE_REC_EXPIRED;
	}
	/* The last push came after the kernel read the entry. */
	ti->pending++;
	return IDLE_REC_READD;
}

/*
 * Up to @want records: from the ring while it holds some (the poll that
 * reported the fd moved them there: no system call), else by read(2):
 * records the ring had no room for, or that no poll moved (a drain with
 * no poll before it), or none (EAGAIN).
 */
static ssize_t idle_take(struct twheel_idle *ti, struct twheel_event *buf,
			 size_t want)
{
	unsigned int k;

	if (ti->ring.ring) {
		k = twheel_ring_take(&ti->ring, buf, (unsigned int)want);
		if (k)
			return k;
	}
	return twheel_read(ti->fd, buf, want);
}

ssize_t twheel_idle_drain(struct twheel_idle *ti, struct twheel_event *ev,
			  size_t n)
{
	struct twheel_event buf[IDLE_READ];
	int what[IDLE_READ], hs[IDLE_READ];
	size_t out = 0;
	int err = 0;

	if (!ti || !n) {
		errno = EINVAL;
		return -1;
	}
	if (ti->pending && idle_retry(ti) < 0)
		err = errno;
	while (out < n) {
		size_t want = n - out < IDLE_READ ? n - out : IDLE_READ;
		ssize_t r = idle_take(ti, buf, want);

		if (r < 0) {
			if (errno != EAGAIN)
				err = errno;
			break;
		}
		/*
		 * All looked up first: the timers of these records ended
		 * together, and a re-add may take any of their entries.
		 */
		for (ssize_t k = 0; k < r; k++)
			what[k] = idle_lookup(ti, &buf[k], &hs[k]);
		/* Every record read is handled, whatever fails. */
		for (ssize_t k = 0; k < r; k++) {
			struct twheel_idle_slot *s = NULL;
			int64_t deadline = 0;
			int e = 0;

			if (hs[k] >= 0)
				s = &ti->slots[hs[k]];
			if (what[k] == IDLE_REC_EXPIRED) {
				/* Unless the observer removed it since. */
				if (s->state == IDLE_EXPIRED)
					ev[out++] = buf[k];
				continue;
			}
			if (what[k] == IDLE_REC_READD &&
			    s->state == IDLE_LIVE && !s->id) {
				deadline = s->tick * (int64_t)ti->table.tick_ns;
				if (idle_timer(ti, hs[k]) < 0)
					e = errno;
				else
					ti->pending--;
			} else {
				/* Dropped, or removed by the observer since. */
				what[k] = IDLE_REC_DROPPED;
			}
			if (ti->observe)
				ti->observe(ti->arg, what[k] == IDLE_REC_READD ?
					    TWHEEL_IDLE_READDED :
					    TWHEEL_IDLE_DROPPED,
					    &buf[k], deadline);
			if (e)
				err = e;
		}
		if ((size_t)r < want)
			break;
	}
	if (!out && err) {
		errno = err;
		return -1;
	}
	return (ssize_t)out;
}

int twheel_idle_close(struct twheel_idle *ti)
{
	int ret = 0;

	if (!ti)
		return 0;
	if (ti->table.size)
		twheel_table_unmap(&ti->table);
	if (ti->ring.ring)
		twheel_ring_unmap(&ti->ring);
	if (ti->fd >= 0)
		ret = close(ti->fd);
	free(ti->owner);
	free(ti->orphans);
	free(ti->slots);
	free(ti);
	return ret;
}
