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
 * and ENOMEM (a table larger than the address space), twheel_ring_map()'s
 * ENODEV (mmap(2)'s, for an fd without a record ring), and the helpers'
 * own: EINVAL (twheel_drain() of no records), ENOSPC (a full
 * batch) and ECANCELED (an operation of a batch that was never done),
 * and the idle tracker's (twheel_idle_*(): EINVAL for a bad argument,
 * ENOSPC for no free handle, ETIME for a handle reported expired,
 * EOPNOTSUPP for a module without the table).
 *
 * The helpers at the end (twheel_drain(), twheel_batch_*(),
 * twheel_op_result()) build on these calls; twheel_open_hint() makes no
 * call at all. The idle tracker (twheel_idle_*()), which keeps state of
 * its own per tracker, is in libtwheel_idle.c.
 */
/* The record ring's mmap(2) offset, 2^40, needs a 64-bit off_t. */
#define _FILE_OFFSET_BITS 64

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

int twheel_ring_map(int fd, struct twheel_ringmap *r)
{
	long page = sysconf(_SC_PAGESIZE);
	struct twheel_info info;
	size_t size;
	void *p;

	if (twheel_info(fd, &info) < 0)
		return -1;
	/* What mmap(2) of an fd without a ring says, without trying it. */
	if (!(info.config_flags & TWHEEL_CONFIG_RING)) {
		errno = ENODEV;
		return -1;
	}
	/* The ring in whole pages, as the kernel maps it. */
	size = (sizeof(struct twheel_ring) + (size_t)page - 1) /
	       (size_t)page * (size_t)page;
	p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
		 (off_t)TWHEEL_RING_OFFSET);
	if (p == MAP_FAILED)
		return -1;
	r->ring = p;
	r->size = size;
	return 0;
}

int twheel_ring_unmap(struct twheel_ringmap *r)
{
	if (munmap(r->ring, r->size) < 0)
		return -1;
	memset(r, 0, sizeof(*r));
	return 0;
}
