/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libtwheel - a thin C wrapper over /dev/twheel (see <linux/twheel.h>).
 *
 * Every function returns -1 and leaves the kernel's errno on failure,
 * exactly as the underlying system call did; nothing is retried or hidden.
 */
#ifndef LIBTWHEEL_H
#define LIBTWHEEL_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <linux/twheel.h>

#ifdef __cplusplus
extern "C" {
#endif

/* open("/dev/twheel"); flags: O_CLOEXEC and/or O_NONBLOCK. Returns the fd. */
int twheel_open(int flags);

/*
 * Schedule a timer: @expires_ns from now, or at that absolute time of
 * @clock with TWHEEL_ADD_ABSTIME in @flags. Stores the timer's id in *@id
 * (if @id is not NULL). Returns 0.
 */
int twheel_add(int fd, uint64_t cookie, int64_t expires_ns, uint32_t clock,
	       uint32_t flags, uint64_t *id);

/*
 * Cancel timer @id. Returns TWHEEL_CANCELLED_PENDING or
 * TWHEEL_CANCELLED_QUEUED; -1 with errno ENOENT if there is no such timer.
 */
int twheel_cancel(int fd, uint64_t id);

/* Read up to @n records. Returns how many were read (>= 1), or -1. */
ssize_t twheel_read(int fd, struct twheel_event *ev, size_t n);

/* What the fd is. Returns 0. */
int twheel_info(int fd, struct twheel_info *info);

/* The current time of a twheel clock, in nanoseconds (for ABSTIME). */
int64_t twheel_now(uint32_t clock);

#ifdef __cplusplus
}
#endif

#endif /* LIBTWHEEL_H */
