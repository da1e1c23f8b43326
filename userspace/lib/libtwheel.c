// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * libtwheel - a thin C library over /dev/twheel (see libtwheel.h and
 * <linux/twheel.h>).
 *
 * Each function is one system call on a struct zeroed and then filled
 * here. On failure it returns -1 with the errno the kernel set (nothing
 * is retried, translated or hidden); the only errno made up here is
 * twheel_open()'s EPROTO for a module of another ABI version.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <string.h>
#include <sys/ioctl.h>
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

int twheel_info(int fd, struct twheel_info *info)
{
	memset(info, 0, sizeof(*info));
	return ioctl(fd, TWHEEL_IOC_INFO, info) < 0 ? -1 : 0;
}

int twheel_config(int fd, const struct twheel_config *cfg)
{
	struct twheel_config c = *cfg;	/* the ioctl's argument is not const */

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
