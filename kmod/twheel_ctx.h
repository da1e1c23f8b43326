/* SPDX-License-Identifier: GPL-2.0 */
/*
 * twheel_ctx.h - one timer set: what one open /dev/twheel holds, as the
 * device (twheel_dev.c, twheel_uops.c) sees it: an opaque struct
 * twheel_ctx and what can be done with it.
 *
 * A set is its lock, its timers (struct twheel_timers, twheel_timer.h:
 * the timers, their clock bases and the queue of expiry records not yet
 * read) and the state of its waiters. It knows nothing of files or user
 * memory: the device passes in the functions that copy results out. It
 * is the layer between the device and the timers.
 *
 * Delivery: an hrtimer callback marks the set (fire_seq) and wakes its
 * waiters, unless it could do all there was to do itself (re-place timers
 * a table store pushed later: twheel_irq.h). The wheels are advanced by whoever next uses the set
 * (read, poll, every ioctl; not fdinfo, which only looks), in that task,
 * in chunks of at most TWHEEL_CHUNK entries per hold of ctx->lock. A
 * wall clock set past a wheel's next event counts as fired at once,
 * without waiting for the hrtimer's callback.
 *
 * Locking: ctx->lock (a mutex) serialises everything but the hrtimer
 * callbacks, which take only a clock base's spinlock, and twheel_ctx_readable() and
 * twheel_ctx_fired(), which read one word each. It is never held while
 * waiting on user memory: the functions that copy out under it must not
 * fault (the device copies with page faults disabled).
 */
#ifndef _TWHEEL_CTX_H
#define _TWHEEL_CTX_H

#include <linux/seq_file.h>
#include <linux/types.h>
#include <linux/wait.h>

#include <linux/twheel.h>

#include "twheel_base.h"

struct page;
struct twheel_ctx;
struct twheel_timers;
struct twheel_user;

/* The most operations twheel_ctx_submit() takes in one call. */
#define TWHEEL_SUBMIT_CHUNK	32

/**
 * enum twheel_update - how far twheel_ctx_lock_update() brings the wheels
 * @TWHEEL_UPDATE_ALL: every clock up to its present
 * @TWHEEL_UPDATE_RECORD: until at least one record is queued, or all of it
 */
enum twheel_update {
	TWHEEL_UPDATE_ALL,
	TWHEEL_UPDATE_RECORD,
};

int twheel_ctx_cache_init(void);
void twheel_ctx_cache_exit(void);

struct twheel_ctx *twheel_ctx_create(struct twheel_user *user, u64 max_timers,
				     u64 tick_ns);
void twheel_ctx_destroy(struct twheel_ctx *ctx);

void twheel_ctx_lock_update(struct twheel_ctx *ctx, enum twheel_update how);
bool twheel_ctx_trylock_update(struct twheel_ctx *ctx, enum twheel_update how);
void twheel_ctx_unlock(struct twheel_ctx *ctx);

int twheel_ctx_config(struct twheel_ctx *ctx, u64 tick_ns, u32 flags,
		      u64 max_timers);
int twheel_ctx_mmap(struct twheel_ctx *ctx, u64 pgoff, u64 pages);
struct page *twheel_ctx_map_page(struct twheel_ctx *ctx, u64 pgoff);
bool twheel_ctx_poll(struct twheel_ctx *ctx);
int twheel_ctx_advance(struct twheel_ctx *ctx, u64 delta_ns,
		       int (*out)(void *arg, s64 now_ns), void *arg);
u32 twheel_ctx_submit(struct twheel_ctx *ctx, struct twheel_op *ops, u32 nr,
		      int (*out)(void *arg, u32 i, const struct twheel_op *op),
		      void *arg, int *err);
u32 twheel_ctx_submit_nowait(struct twheel_ctx *ctx, struct twheel_op *ops,
			     u32 nr,
			     int (*out)(void *arg, u32 i,
					const struct twheel_op *op),
			     void *arg, int *err);
int twheel_ctx_modify(struct twheel_ctx *ctx, struct twheel_op *op,
		      u32 __user *result);
u32 twheel_ctx_list(struct twheel_ctx *ctx, u64 *cursor,
		    struct twheel_status *st, u32 n);
/**
 * struct twheel_read - one read(2), over its calls of twheel_ctx_read_in()
 * @first: per clock, the earliest present at which it took records of
 *         periodic timers
 * @seen: bit per clock: @first is set
 *
 * Zeroed before the first call.
 */
struct twheel_read {
	s64 first[TWHEEL_NR_CLOCKS];
	u8 seen;
};

long twheel_ctx_read_in(struct twheel_ctx *ctx, struct twheel_read *rd,
			u64 max,
			int (*emit)(void *arg, const struct twheel_event *ev,
				    u32 n),
			void *arg, bool nowait);

/* twheel_ctx_read_in() for a read of one call, which may wait. */
static inline long twheel_ctx_read(struct twheel_ctx *ctx, u64 max,
				   int (*emit)(void *arg,
					       const struct twheel_event *ev,
					       u32 n),
				   void *arg)
{
	return twheel_ctx_read_in(ctx, NULL, max, emit, arg, false);
}

void twheel_ctx_info(struct twheel_ctx *ctx, struct twheel_info *info);
void twheel_ctx_show(struct twheel_ctx *ctx, struct seq_file *m);

bool twheel_ctx_readable(struct twheel_ctx *ctx);
bool twheel_ctx_fired(struct twheel_ctx *ctx);
wait_queue_head_t *twheel_ctx_wqh(struct twheel_ctx *ctx);
struct twheel_op *twheel_ctx_ops_get(struct twheel_ctx *ctx);
void twheel_ctx_ops_put(struct twheel_ctx *ctx, struct twheel_op *ops);
#if IS_ENABLED(CONFIG_KUNIT)
struct twheel_timers *twheel_ctx_timers(struct twheel_ctx *ctx);
#endif

#endif /* _TWHEEL_CTX_H */
