/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * twheel.h - userspace ABI of /dev/twheel: many timers on one fd.
 *
 * Each open(2) of /dev/twheel is an independent timer set. Timers are
 * scheduled and cancelled with ioctl(2); poll/epoll/select report the fd
 * readable (EPOLLIN | EPOLLRDNORM) exactly while at least one expiry record
 * is queued; read(2) returns whole struct twheel_event records. (With
 * EPOLLET, while records stay unread, an internal timer event that queues
 * no new record may report the fd again.)
 *
 * Time: every time given or returned is in the time namespace of the task
 * that opened the fd, whichever task uses it later.
 *
 * Extensibility: each ioctl's argument size is encoded in its command
 * number (_IOC_SIZE). The kernel accepts a smaller (older) struct down to
 * the first published size, zero-extending it (smaller than that: EINVAL),
 * and a larger (newer) one whose extra bytes are all zero (else E2BIG); it
 * writes back as many bytes as the caller's struct has, zeroing any bytes
 * it does not know. For an output-only struct (TWHEEL_IOC_INFO) the input
 * bytes are not read at all. Every field marked "in" is checked: unknown
 * flags or clocks are EINVAL. Fields marked "out" are ignored on input and
 * always written.
 *
 * Errors common to all ioctls: ENOTTY for an unknown command, EFAULT for
 * an argument that cannot be read or written (nothing is changed then).
 */
#ifndef _UAPI_LINUX_TWHEEL_H
#define _UAPI_LINUX_TWHEEL_H

#include <linux/types.h>
#include <linux/ioctl.h>

/* The ABI version, reported by TWHEEL_IOC_INFO; the module's version. */
#define TWHEEL_ABI_VERSION	1
#define TWHEEL_VERSION		"0.2"

/* The resolution of a new fd: 1 ms. */
#define TWHEEL_DEFAULT_TICK_NS	1000000ULL

/**
 * enum twheel_clock - the clock a timer's deadline is measured on
 * @TWHEEL_CLOCK_MONOTONIC: CLOCK_MONOTONIC; the default (zero)
 * @TWHEEL_CLOCK_BOOTTIME: CLOCK_BOOTTIME: like monotonic, but counts
 *	time spent in suspend
 * @TWHEEL_CLOCK_REALTIME: CLOCK_REALTIME, for absolute deadlines only
 *	(TWHEEL_ADD_ABSTIME); such a timer follows changes of the wall clock
 */
enum twheel_clock {
	TWHEEL_CLOCK_MONOTONIC = 0,
	TWHEEL_CLOCK_BOOTTIME = 1,
	TWHEEL_CLOCK_REALTIME = 2,
};

/* struct twheel_add.flags */
/* expires_ns is an absolute time on the clock, not a delay from now. */
#define TWHEEL_ADD_ABSTIME	0x00000001U
#define TWHEEL_ADD_FLAGS	TWHEEL_ADD_ABSTIME

/**
 * struct twheel_add - argument of TWHEEL_IOC_ADD: schedule one timer
 * @cookie: in: any value; returned in the timer's expiry record
 * @expires_ns: in: the deadline: nanoseconds from now (>= 0, else EINVAL),
 *	or with TWHEEL_ADD_ABSTIME the absolute time on @clock, in the
 *	opener's time namespace (any value; for one already past, see
 *	below). A relative deadline that would
 *	overflow saturates at the largest representable time (never wraps).
 * @flags: in: TWHEEL_ADD_* flags; others are EINVAL
 * @clock: in: an enum twheel_clock; others are EINVAL, and
 *	TWHEEL_CLOCK_REALTIME without TWHEEL_ADD_ABSTIME is EINVAL
 * @id: out: the new timer's id: never 0, unique within the fd and never
 *	reused while the fd is open
 *
 * The timer expires once, never before its deadline and at most one tick
 * (TWHEEL_DEFAULT_TICK_NS) plus scheduling latency after it; then one
 * struct twheel_event is queued for it. It is due when its clock reaches
 * its deadline tick: the deadline rounded up to a multiple of the tick.
 * A timer whose deadline tick has already been reached is queued before
 * the ioctl returns, behind every record already queued; so is one whose
 * deadline has passed inside the current tick, unless an earlier-added
 * timer of that tick is still pending: then it is queued at the end of
 * the tick, right behind that timer (see struct twheel_event for order).
 *
 * Errors: EINVAL as above; ENOSPC when the fd already holds its maximum of
 * timers (module parameter max_timers, as it was when the fd was opened;
 * queued records count until read); ENOMEM, also when the caller's memory
 * cgroup is at its limit (the OOM killer is not called). On any error no
 * timer is created.
 */
struct twheel_add {
	__u64 cookie;
	__s64 expires_ns;
	__u32 flags;
	__u32 clock;
	__u64 id;
};

/* struct twheel_cancel.result */
/* The timer had not expired; it never will. */
#define TWHEEL_CANCELLED_PENDING	1
/* The timer had expired and its record was unread; the record is removed. */
#define TWHEEL_CANCELLED_QUEUED		2

/**
 * struct twheel_cancel - argument of TWHEEL_IOC_CANCEL: cancel one timer
 * @id: in: the timer's id, from TWHEEL_IOC_ADD on this fd
 * @flags: in: must be 0 (EINVAL otherwise)
 * @result: out: TWHEEL_CANCELLED_PENDING or TWHEEL_CANCELLED_QUEUED
 *
 * After a successful cancel no record for the timer will ever be read.
 * Errors: ENOENT when the fd holds no such timer: an unknown id, one whose
 * record was already read, one already cancelled, or an id of another fd.
 */
struct twheel_cancel {
	__u64 id;
	__u32 flags;
	__u32 result;
};

/**
 * struct twheel_event - one expiry record, as read(2) returns it
 * @id: the timer's id
 * @cookie: the timer's cookie
 * @time_ns: the time on the timer's clock at which the record was queued
 *	(never before the deadline), in the opener's time namespace
 * @count: the number of expirations this record stands for (1 for a
 *	one-shot timer)
 * @clock: the timer's enum twheel_clock
 * @flags: 0 (reserved for future record kinds)
 *
 * read(2) returns as many whole records as fit in the buffer, in the
 * order they were queued. Within a clock, the timers that fall due
 * together are queued in order of deadline tick, those of one deadline
 * tick in the order they were added; timers of equal deadline therefore
 * always come out in the order they were added (one added after its
 * deadline included: see struct twheel_add). It blocks for the first
 * record unless the fd is O_NONBLOCK (EAGAIN). A buffer smaller
 * than one record is EINVAL. A signal while blocked gives EINTR, or
 * restarts the read under SA_RESTART. If copying a record out faults,
 * that record and the ones after it stay queued: the read returns the
 * bytes copied before it, or EFAULT if none.
 */
struct twheel_event {
	__u64 id;
	__u64 cookie;
	__s64 time_ns;
	__u64 count;
	__u32 clock;
	__u32 flags;
};

/**
 * struct twheel_info - argument of TWHEEL_IOC_INFO: what the fd is
 * @version: out: TWHEEL_ABI_VERSION of the running module
 * @event_size: out: sizeof(struct twheel_event) of the running module
 * @tick_ns: out: the fd's resolution in nanoseconds
 * @max_timers: out: the most timers the fd may hold
 * @timers: out: the timers it holds: pending, plus expired and unread
 * @queued: out: the expiry records queued and unread
 */
struct twheel_info {
	__u32 version;
	__u32 event_size;
	__u64 tick_ns;
	__u64 max_timers;
	__u64 timers;
	__u64 queued;
};

/* ioctl type 0xBA, numbers 0x00-0x0F (ioctl-number.rst lists it free). */
#define TWHEEL_IOC_TYPE		0xBA

#define TWHEEL_IOC_INFO		_IOR(TWHEEL_IOC_TYPE, 0x00, struct twheel_info)
#define TWHEEL_IOC_ADD		_IOWR(TWHEEL_IOC_TYPE, 0x01, struct twheel_add)
#define TWHEEL_IOC_CANCEL	_IOWR(TWHEEL_IOC_TYPE, 0x02, struct twheel_cancel)

#endif /* _UAPI_LINUX_TWHEEL_H */
