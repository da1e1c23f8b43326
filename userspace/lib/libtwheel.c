// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * libtwheel - a thin C library over /dev/twheel (see libtwheel.h and
 * <linux/twheel.h>).
 *
 * Each function is one system call on a struct zeroed and then filled
 * here. On failure it returns -1 with the errno the kernel set (nothing
 * is retried, translated or hidden); the only errnos made up here are
 * twheel_open()'s EPROTO for a module of another ABI version,
 * twheel_table_map()'s ENODEV (mmap(2)'s, for an fd without a table)
 * and ENOMEM (a table larger than the address space), and the helpers'
 * own: EINVAL (twheel_drain() of no records), ENOSPC (a full
 * batch) and ECANCELED (an operation of a batch that was never done),
 * and the idle tracker's (twheel_idle_*(): EINVAL for a bad argument,
 * ENOSPC for no free handle, ETIME for a handle reported expired,
 * EOPNOTSUPP for a module without the table).
 *
 * The helpers at the end (twheel_drain(), twheel_batch_*(),
 * twheel_op_result()) build on these calls; twheel_open_hint() makes no
 * call at all. The idle tracker at the end (twheel_idle_*()) keeps state
 * of its own, per tracker.
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

#define TWHEEL_DEVICE	"/dev/twheel"

/*
 * TWHEEL_IOC_INFO with the 40-byte struct of ABI version 1: every version
 * of the module takes it, so the version is read even from a module this
 * library does not speak (whose full-size INFO might fail otherwise).
 */
#define TWHEEL_INFO_V1_SIZE	40
#define TWHEEL_IOC_INFO_V1	_IOC(_IOC_READ, TWHEEL_IOC_TYPE, 0x00, \
				     TWHEEL_INFO_V1_SIZE)

_Static_assert(sizeof(struct twheel_info) >= TWHEEL_INFO_V1_SIZE,
	       "struct twheel_info starts with version 1's 40 bytes");

int twheel_open(int flags)
{
	struct twheel_info info;
	int fd, err;

	fd = open(TWHEEL_DEVICE, O_RDWR | flags);
	if (fd < 0)
		return -1;
	memset(&info, 0, sizeof(info));
	if (ioctl(fd, TWHEEL_IOC_INFO_V1, &info) < 0) {
		err = errno;
		goto fail;
	}
	if (info.version != TWHEEL_ABI_VERSION) {
		err = EPROTO;
		goto fail;
	}
	return fd;
fail:
	close(fd);
	errno = err;
	return -1;
}

#define TW_STR_(x)	#x
#define TW_STR(x)	TW_STR_(x)

/*
 * twheelctl prints these after "/dev/twheel: strerror(err)"; each says
 * what to do next. The module-missing one is also in twheelctl(1) and
 * tests/integration/twheelctl.c, word for word.
 */
const char *twheel_open_hint(int err)
{
	switch (err) {
	case ENOENT:	/* no /dev/twheel */
	case ENODEV:	/* a node, but no driver behind its number */
	case ENXIO:
		return "is the module loaded? modprobe twheel (or insmod twheel.ko)";
	case EACCES:
		return "this user may not open /dev/twheel: see its mode and"
		       " group (ls -l /dev/twheel), set by udev rules"
		       " (60-twheel.rules); join that group, or ask the"
		       " administrator";
	case EPERM:
		return "a device cgroup or security policy refuses /dev/twheel"
		       " (in a container: allow the device's character"
		       " major:minor, 10:250 by default)";
	case EMFILE:
		return "too many open files: this process's limit (ulimit -n),"
		       " or this user's twheel fds at fs.twheel.max_user_fds"
		       " (root raises it: sysctl -w fs.twheel.max_user_fds=N;"
		       " /proc/driver/twheel shows who holds them)";
	case ENFILE:
		return "the system's table of open files is full (fs.file-max)";
	case ENOMEM:
		return "out of memory, or this process's memory cgroup is at"
		       " its limit";
	case EPROTO:
		return "the loaded module's ABI version is not "
		       TW_STR(TWHEEL_ABI_VERSION) ", this program's: load the"
		       " twheel module of the same version as libtwheel";
	case ENOTTY:
		return "/dev/twheel is not twheel's device: another driver has"
		       " its number (compare ls -l /dev/twheel with"
		       " /sys/class/misc/twheel/dev)";
	default:
		return NULL;
	}
}

int twheel_info(int fd, struct twheel_info *info)
{
	memset(info, 0, sizeof(*info));
	return ioctl(fd, TWHEEL_IOC_INFO, info) < 0 ? -1 : 0;
}

int twheel_config(int fd, const struct twheel_config *cfg)
{
	struct twheel_config c = { 0 };

	/*
	 * A program built with the 16-byte struct of ABI version 2 passes no
	 * max_timers, and never TWHEEL_CONFIG_MAX_TIMERS: read it only then.
	 */
	c.tick_ns = cfg->tick_ns;
	c.flags = cfg->flags;
	c.__reserved = cfg->__reserved;
	if (cfg->flags & TWHEEL_CONFIG_MAX_TIMERS)
		c.max_timers = cfg->max_timers;
	return ioctl(fd, TWHEEL_IOC_CONFIG, &c) < 0 ? -1 : 0;
}

int twheel_add(int fd, struct twheel_add *req)
{
	return ioctl(fd, TWHEEL_IOC_ADD, req) < 0 ? -1 : 0;
}

int twheel_modify(int fd, struct twheel_modify *req)
{
	if (ioctl(fd, TWHEEL_IOC_MODIFY, req) < 0)
		return -1;
	return (int)req->result;
}

int twheel_cancel(int fd, uint64_t id)
{
	struct twheel_cancel c;

	memset(&c, 0, sizeof(c));
	c.id = id;
	if (ioctl(fd, TWHEEL_IOC_CANCEL, &c) < 0)
		return -1;
	return (int)c.result;
}

int twheel_query(int fd, uint64_t id, struct twheel_status *st)
{
	struct twheel_query q;

	memset(&q, 0, sizeof(q));
	q.id = id;
	if (ioctl(fd, TWHEEL_IOC_QUERY, &q) < 0)
		return -1;
	memcpy(st, &q.status, sizeof(*st));
	return 0;
}

ssize_t twheel_list(int fd, uint64_t *cursor, struct twheel_status *st,
		    size_t n)
{
	struct twheel_list l;

	memset(&l, 0, sizeof(l));
	l.statuses = (uintptr_t)st;
	/* A call may write fewer than asked anyway: clamp, do not fail. */
	l.capacity = n > UINT32_MAX ? UINT32_MAX : (uint32_t)n;
	l.cursor = *cursor;
	l.status_size = sizeof(struct twheel_status);
	if (ioctl(fd, TWHEEL_IOC_LIST, &l) < 0)
		return -1;
	*cursor = l.cursor;
	return (ssize_t)l.count;
}

int twheel_submit(int fd, struct twheel_op *ops, unsigned int nr)
{
	struct twheel_submit s;

	memset(&s, 0, sizeof(s));
	s.ops = (uintptr_t)ops;
	s.nr = nr;
	s.op_size = sizeof(struct twheel_op);
	return ioctl(fd, TWHEEL_IOC_SUBMIT, &s);
}

int twheel_advance(int fd, uint64_t delta_ns, int64_t *now_ns)
{
	struct twheel_advance a;

	memset(&a, 0, sizeof(a));
	a.delta_ns = delta_ns;
	if (ioctl(fd, TWHEEL_IOC_ADVANCE, &a) < 0)
		return -1;
	if (now_ns)
		*now_ns = a.now_ns;
	return 0;
}

ssize_t twheel_read(int fd, struct twheel_event *ev, size_t n)
{
	ssize_t r;

	/* Never ask for more bytes than read(2) can return. */
	if (n > SSIZE_MAX / sizeof(*ev))
		n = SSIZE_MAX / sizeof(*ev);
	r = read(fd, ev, n * sizeof(*ev));
	if (r < 0)
		return -1;
	return r / (ssize_t)sizeof(*ev);
}

int64_t twheel_now(clockid_t clock)
{
	struct timespec ts;

	if (clock_gettime(clock, &ts) < 0)
		return -1;
	return (int64_t)ts.tv_sec * TWHEEL_SEC + ts.tv_nsec;
}

/* A blocking fd has a record queued: poll(2) without waiting. */
static int readable(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	int n = poll(&p, 1, 0);

	if (n < 0)
		return -1;
	if (p.revents & POLLNVAL) {
		errno = EBADF;
		return -1;
	}
	return n > 0 && (p.revents & POLLIN);
}

ssize_t twheel_drain(int fd, struct twheel_event *ev, size_t n,
		     int (*fn)(void *arg, const struct twheel_event *ev,
			       size_t n),
		     void *arg)
{
	size_t total = 0;
	int fl;

	if (!n) {
		errno = EINVAL;
		return -1;
	}
	fl = fcntl(fd, F_GETFL);
	if (fl < 0)
		return -1;
	for (;;) {
		/* With @fn, @ev is reused; without, it is filled. */
		struct twheel_event *buf = fn ? ev : ev + total;
		size_t room = fn ? n : n - total;
		ssize_t r;

		if (!room)
			break;
		if (!(fl & O_NONBLOCK)) {
			r = readable(fd);
			if (r == 0)
				break;
			if (r < 0)
				goto error;
		}
		r = twheel_read(fd, buf, room);
		if (r < 0) {
			if (errno == EAGAIN)
				break;
			goto error;
		}
		total += (size_t)r;
		if (fn && fn(arg, buf, (size_t)r))
			break;
		/* A short read: the queue was empty when it ended. */
		if ((size_t)r < room)
			break;
	}
	return (ssize_t)total;
error:
	/* The records read are the caller's: report them, not the error. */
	return total ? (ssize_t)total : -1;
}

void twheel_batch_init(struct twheel_batch *b, struct twheel_op *ops,
		       size_t capacity)
{
	b->ops = ops;
	b->nr = 0;
	b->capacity = capacity;
}

/* Append a zeroed operation @op, not done yet; NULL with ENOSPC if full. */
static struct twheel_op *batch_append(struct twheel_batch *b, uint32_t op)
{
	struct twheel_op *o;

	if (b->nr >= b->capacity) {
		errno = ENOSPC;
		return NULL;
	}
	o = &b->ops[b->nr++];
	memset(o, 0, sizeof(*o));
	o->op = op;
	/* An output: the kernel overwrites it when it does the operation. */
	o->error = -ECANCELED;
	return o;
}

struct twheel_op *twheel_batch_add(struct twheel_batch *b,
				   const struct twheel_add *req)
{
	struct twheel_op *o = batch_append(b, TWHEEL_OP_ADD);

	if (o) {
		o->flags = req->flags;
		o->cookie = req->cookie;
		o->expires_ns = req->expires_ns;
		o->period_ns = req->period_ns;
		o->clock = req->clock;
	}
	return o;
}

struct twheel_op *twheel_batch_modify(struct twheel_batch *b,
				      const struct twheel_modify *req)
{
	struct twheel_op *o = batch_append(b, TWHEEL_OP_MODIFY);

	if (o) {
		o->flags = req->flags;
		o->id = req->id;
		o->cookie = req->cookie;
		o->expires_ns = req->expires_ns;
		o->period_ns = req->period_ns;
	}
	return o;
}

struct twheel_op *twheel_batch_cancel(struct twheel_batch *b, uint64_t id)
{
	struct twheel_op *o = batch_append(b, TWHEEL_OP_CANCEL);

	if (o)
		o->id = id;
	return o;
}

struct twheel_op *twheel_batch_query(struct twheel_batch *b, uint64_t id)
{
	struct twheel_op *o = batch_append(b, TWHEEL_OP_QUERY);

	if (o)
		o->id = id;
	return o;
}

ssize_t twheel_batch_submit(int fd, struct twheel_batch *b)
{
	size_t done = 0;

	while (done < b->nr) {
		size_t left = b->nr - done;
		unsigned int nr = left > TWHEEL_MAX_BATCH ? TWHEEL_MAX_BATCH :
							    (unsigned int)left;
		int r = twheel_submit(fd, b->ops + done, nr);

		if (r < 0)
			return done ? (ssize_t)done : -1;
		done += (unsigned int)r;
		if ((unsigned int)r < nr)
			break;
	}
	return (ssize_t)done;
}

int twheel_op_result(const struct twheel_op *op)
{
	if (op->error) {
		errno = op->error < 0 ? -op->error : op->error;
		return -1;
	}
	switch (op->op) {
	case TWHEEL_OP_MODIFY:
	case TWHEEL_OP_CANCEL:
		return (int)op->result;
	default:
		return 0;
	}
}

int twheel_table_map(int fd, struct twheel_table *t)
{
	struct twheel_info info;
	void *p;

	if (twheel_info(fd, &info) < 0)
		return -1;
	/* What mmap(2) of an fd without a table says, without trying it. */
	if (!info.table_size) {
		errno = ENODEV;
		return -1;
	}
	if (info.table_size > SIZE_MAX) {
		errno = ENOMEM;
		return -1;
	}
	p = mmap(NULL, (size_t)info.table_size, PROT_READ | PROT_WRITE,
		 MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		return -1;
	t->entries = p;
	t->size = (size_t)info.table_size;
	/* Fixed from now on: a mapped table fixes the configuration. */
	t->tick_ns = info.tick_ns;
	return 0;
}

int twheel_table_unmap(struct twheel_table *t)
{
	if (munmap((void *)t->entries, t->size) < 0)
		return -1;
	memset(t, 0, sizeof(*t));
	return 0;
}

/* ---- the idle-timeout tracker (twheel_idle_*()) */

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
	int64_t timeout_ns;
	struct twheel_idle_slot *slots;
	int max_conns;
	int free;		/* the first free handle, -1 */
	int *owner;		/* per table entry: the handle of its timer */
	size_t nentries;
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
	c.max_timers = cfg->max_conns + headroom;
	if (twheel_config(ti->fd, &c) < 0 ||
	    twheel_table_map(ti->fd, &ti->table) < 0)
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

	if (twheel_add(ti->fd, &a) < 0)
		return -1;
	i = TWHEEL_TABLE_INDEX(a.id);
	if (i < ti->nentries)
		ti->owner[i] = h;
	s->id = a.id;
	return 0;
}

/* The timer of @s ended, or is no longer @s's. */
static void idle_unown(struct twheel_idle *ti, struct twheel_idle_slot *s)
{
	uint64_t i = TWHEEL_TABLE_INDEX(s->id);

	if (s->id && i < ti->nentries)
		ti->owner[i] = -1;
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
		/* No timer while its re-add is pending: that uses the tick. */
		if (s->id)
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
		if (idle_lingering(ti) >= ti->headroom) {
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
		ssize_t r = twheel_read(ti->fd, buf, want);

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
	if (ti->fd >= 0)
		ret = close(ti->fd);
	free(ti->owner);
	free(ti->slots);
	free(ti);
	return ret;
}
