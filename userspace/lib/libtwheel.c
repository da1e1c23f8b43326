// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * libtwheel - a thin C wrapper over /dev/twheel.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "libtwheel.h"

int twheel_open(int flags)
{
	return open("/dev/twheel", O_RDWR | (flags & (O_CLOEXEC | O_NONBLOCK)));
}

int twheel_add(int fd, uint64_t cookie, int64_t expires_ns, uint32_t clock,
	       uint32_t flags, uint64_t *id)
{
	struct twheel_add req;

	memset(&req, 0, sizeof(req));
	req.cookie = cookie;
	req.expires_ns = expires_ns;
	req.clock = clock;
	req.flags = flags;
	if (ioctl(fd, TWHEEL_IOC_ADD, &req) < 0)
		return -1;
	if (id)
		*id = req.id;
	return 0;
}

int twheel_cancel(int fd, uint64_t id)
{
	struct twheel_cancel req;

	memset(&req, 0, sizeof(req));
	req.id = id;
	if (ioctl(fd, TWHEEL_IOC_CANCEL, &req) < 0)
		return -1;
	return (int)req.result;
}

ssize_t twheel_read(int fd, struct twheel_event *ev, size_t n)
{
	ssize_t r = read(fd, ev, n * sizeof(*ev));

	if (r < 0)
		return -1;
	return r / (ssize_t)sizeof(*ev);
}

int twheel_info(int fd, struct twheel_info *info)
{
	memset(info, 0, sizeof(*info));
	return ioctl(fd, TWHEEL_IOC_INFO, info) < 0 ? -1 : 0;
}

int64_t twheel_now(uint32_t clock)
{
	static const clockid_t ids[] = {
		[TWHEEL_CLOCK_MONOTONIC] = CLOCK_MONOTONIC,
		[TWHEEL_CLOCK_BOOTTIME] = CLOCK_BOOTTIME,
		[TWHEEL_CLOCK_REALTIME] = CLOCK_REALTIME,
	};
	struct timespec ts;

	if (clock >= sizeof(ids) / sizeof(ids[0])) {
		errno = EINVAL;
		return -1;
	}
	if (clock_gettime(ids[clock], &ts) < 0)
		return -1;
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}
