/* SPDX-License-Identifier: GPL-2.0 */
/*
 * twheel_ctx_priv.h - struct twheel_ctx, for the set's own files: the one
 * that changes it (twheel_ctx.c), the one that hands its records
 * over (twheel_ctx_read.c) and the one that shows it
 * (twheel_ctx_show.c). The device sees it only through twheel_ctx.h.
 */
#ifndef _TWHEEL_CTX_PRIV_H
#define _TWHEEL_CTX_PRIV_H

#include <linux/mutex.h>
#include <linux/types.h>

#include "twheel_ctx.h"
#include "twheel_ring.h"
#include "twheel_timer.h"

/**
 * struct twheel_ctx - one timer set
 * @lock: serialises all but the hrtimer callbacks and the lockless reads
 * @timers: the timers, their clock bases and their records
 * @ring: the record ring, when the configuration asked for one
 * @spare_ops: a buffer of TWHEEL_SUBMIT_CHUNK operations kept for
 *             TWHEEL_IOC_SUBMIT, or NULL; taken and given back with xchg()
 *             and cmpxchg() (no lock), freed with the context
 * @done_seq: the timers.clocks.fire_seq value the last complete update
 *            started from; while they differ the wheels may hold due
 *            timers ("fired")
 * @max_timers: the most live timers it was created with; a configuration
 *              may set timers.max_timers lower
 */
struct twheel_ctx {
	struct mutex lock;	/* see the kernel-doc above */
	struct twheel_timers timers;
	struct twheel_rec_ring ring;
	struct twheel_op *spare_ops;
	int done_seq;
	u64 max_timers;
};

#endif /* _TWHEEL_CTX_PRIV_H */
