/* SPDX-License-Identifier: GPL-2.0 */
/*
 * twheel_compat.h - the few kernel API differences between the kernels
 * twheel builds for (6.1 to current).
 */
#ifndef _TWHEEL_COMPAT_H
#define _TWHEEL_COMPAT_H

#include <linux/hrtimer.h>
#include <linux/mm.h>
#include <linux/slab.h>
#ifdef TWHEEL_HAVE_IO_URING_CMD_H
#include <linux/io_uring/cmd.h>
#else
#include <linux/io_uring.h>
#endif

#include <linux/twheel.h>

/* hrtimer_setup() replaced hrtimer_init() + .function in 6.13 (Kbuild). */
static inline void twheel_hrtimer_setup(struct hrtimer *timer,
					enum hrtimer_restart (*fn)(struct hrtimer *),
					clockid_t clock, enum hrtimer_mode mode)
{
#ifdef TWHEEL_HAVE_HRTIMER_SETUP
	hrtimer_setup(timer, fn, clock, mode);
#else
	hrtimer_init(timer, clock, mode);
	timer->function = fn;
#endif
}

/*
 * A slab cache of twheel's own, never merged into another, so that it
 * shows under its name in slabinfo and /sys/kernel/slab, and leaves
 * nothing behind at unload (the alias of a merged cache would stay):
 * SLAB_NO_MERGE since 6.5. Before, a cache with a usercopy region is
 * never merged either; the region declared (@cookie_offset, 8 bytes) is a
 * plain value no code copies to or from user memory (a timer's cookie,
 * the caller's own; an fd's trace id; a base's tick): it allows only
 * copies nobody makes. A constructor would keep the cache apart too, but
 * SLUB then moves its free pointer out of the object: 8 more bytes each.
 */
static inline struct kmem_cache *twheel_cache_create(const char *name,
						     unsigned int size,
						     unsigned int cookie_offset)
{
#ifdef SLAB_NO_MERGE
	return kmem_cache_create(name, size, 0, SLAB_ACCOUNT | SLAB_NO_MERGE,
				 NULL);
#else
	return kmem_cache_create_usercopy(name, size, 0, SLAB_ACCOUNT,
					  cookie_offset, sizeof(u64), NULL);
#endif
}

/*
 * The command area of an IORING_OP_URING_CMD's SQE: struct io_uring_cmd
 * points at it (->cmd) before 6.3, at the SQE (->sqe) since.
 */
static inline const struct twheel_uring_cmd *
twheel_uring_cmd_arg(const struct io_uring_cmd *ucmd)
{
#ifdef TWHEEL_HAVE_IO_URING_SQE_CMD
	return io_uring_sqe_cmd(ucmd->sqe);
#else
	return ucmd->cmd;
#endif
}

/* A mapping's flags change through vm_flags_mod() since 6.3 (Kbuild). */
static inline void twheel_vm_flags_mod(struct vm_area_struct *vma,
				       vm_flags_t set, vm_flags_t clear)
{
#ifdef TWHEEL_HAVE_VM_FLAGS_SET
	vm_flags_mod(vma, set, clear);
#else
	vma->vm_flags = (vma->vm_flags | set) & ~clear;
#endif
}

#endif /* _TWHEEL_COMPAT_H */
