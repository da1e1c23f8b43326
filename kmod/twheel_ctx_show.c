// SPDX-License-Identifier: GPL-2.0
/*
 * twheel_ctx_show.c - what a timer set shows: its timers' statuses
 * (TWHEEL_IOC_LIST), its counts (TWHEEL_IOC_INFO) and its fdinfo. LIST
 * and INFO bring the wheels up to date first, as any ioctl does; fdinfo
 * only looks. Each holds the set's lock once per call and does bounded
 * work there: LIST at most TWHEEL_CHUNK slots, INFO and fdinfo
 * O(clocks), whatever the number of timers.
 *
 * Layering: beside twheel_ctx.c, which changes the set; called by the
 * device (twheel_dev.c); calls the timers (twheel_timer.c) and the clock
 * bases (twheel_base.c) only to read them.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/seq_file.h>
#include <linux/uidgid.h>
#include <kunit/visibility.h>

#include "twheel_ctx_priv.h"
#include "twheel_time.h"
#include "twheel_user.h"

/**
 * twheel_ctx_list() - statuses of the context's timers, resumably
 * @ctx: the context; the caller does not hold the lock
 * @cursor: in: 0 to start, or what the previous call left; out: where the
 *          next call goes on, 0 when every timer has been seen
 * @st: filled with up to @n statuses
 * @n: room in @st
 *
 * The cursor is a position in the id table, whose slots do not move: a
 * timer that stays is seen exactly once in a listing; a slot freed and
 * reused behind the cursor is not seen again. One call looks at no more
 * than TWHEEL_CHUNK slots, live or free, so it may return fewer than @n
 * statuses (even none) with a non-zero cursor.
 *
 * Return: the number of statuses written.
 */
u32 twheel_ctx_list(struct twheel_ctx *ctx, u64 *cursor,
		    struct twheel_status *st, u32 n)
{
	struct twheel_timers *tm = &ctx->timers;
	u32 slot, done = 0, budget = TWHEEL_CHUNK;
	struct twheel_timer *t;

	if (*cursor >= U32_MAX) {
		*cursor = 0;
		return 0;
	}
	slot = *cursor;
	twheel_ctx_lock_update(ctx, TWHEEL_UPDATE_ALL);
	while (done < n && (t = twheel_ids_next(&tm->ids, &slot, &budget)))
		twheel_timer_status(tm, t, &st[done++]);
	/* Complete when no slot is left after the last one looked at. */
	*cursor = slot < tm->ids.nr_slots ? slot : 0;
	twheel_ctx_unlock(ctx);
	return done;
}
EXPORT_SYMBOL_IF_KUNIT(twheel_ctx_list);

/**
 * twheel_ctx_info() - describe the context
 * @ctx: the context; the caller does not hold the lock
 * @info: its per-fd fields set (tick_ns, max_timers, timers, queued,
 *        config_flags, table_size, cancelled); the others are left alone
 *
 * Advances the wheels first if an hrtimer fired, so the counts are
 * current.
 */
void twheel_ctx_info(struct twheel_ctx *ctx, struct twheel_info *info)
{
	struct twheel_timers *tm = &ctx->timers;

	twheel_ctx_lock_update(ctx, TWHEEL_UPDATE_ALL);
	info->tick_ns = tm->clocks.tick_ns;
	info->max_timers = tm->max_timers;
	info->timers = tm->nr_timers;
	info->queued = tm->nr_queued;
	info->config_flags = (tm->clocks.manual ? TWHEEL_CONFIG_MANUAL : 0) |
			     (twheel_table_on(&tm->table) ?
			      TWHEEL_CONFIG_TABLE : 0) |
			     (tm->set_records ? TWHEEL_CONFIG_CLOCK_SET : 0) |
			     (ctx->ring.on ? TWHEEL_CONFIG_RING : 0);
	info->table_size = (u64)tm->table.size_pages * PAGE_SIZE;
	info->cancelled = tm->table_cancelled;
	twheel_ctx_unlock(ctx);
}
EXPORT_SYMBOL_IF_KUNIT(twheel_ctx_info);

/**
 * twheel_ctx_show() - the context as "key:\tvalue" lines, for fdinfo
 * @ctx: the context; the caller does not hold the lock
 * @m: where to print
 *
 * Only looks: it advances no wheel and queues no record (a reader, root
 * running lsof say, must not do the owner's work nor change what the
 * owner reads), so timers that fell due since the fd was last used count
 * as pending until then. Its cost is bounded: one hold of the lock and
 * O(clocks) work, whatever the number of timers (it visits no slot and
 * no table entry). next_expiry_<clock>_ns is when that clock's wheel has
 * its next event (a cascade or an expiry), in the
 * opener's time namespace: never after the earliest deadline's tick on
 * that clock; on a real clock, when its hrtimer fires. index_bytes is
 * the memory of the id table, slots its slots, spare the ended one-shot
 * timers kept for the next adds (TWHEEL_SPARE_MAX). table_size is the
 * size of the shared timer table (0: none), table_bytes the memory of its
 * pages backed so far; with a table, cancelled is struct
 * twheel_info.cancelled (the timers the kernel ended because their entry
 * said TWHEEL_TABLE_CANCELLED). trace_id names the context in trace
 * events.
 * manual_now_ns is the manual clock's time. uid, user_fds and
 * user_timers: the user the fd is charged to (in the reader's user
 * namespace), their open fds and timer slots over all of them.
 */
void twheel_ctx_show(struct twheel_ctx *ctx, struct seq_file *m)
{
	struct twheel_timers *tm = &ctx->timers;
	struct twheel_clocks *clocks = &tm->clocks;
	u64 fds, slots;
	kuid_t uid;
	int i;

	mutex_lock(&ctx->lock);
	seq_printf(m, "tick_ns:\t%llu\n", clocks->tick_ns);
	seq_printf(m, "timers:\t%llu\n", tm->nr_timers);
	seq_printf(m, "pending:\t%llu\n", tm->nr_timers - tm->nr_queued);
	seq_printf(m, "queued:\t%llu\n", tm->nr_queued);
	seq_printf(m, "max_timers:\t%llu\n", tm->max_timers);
	seq_printf(m, "index_bytes:\t%zu\n", twheel_ids_bytes(&tm->ids));
	seq_printf(m, "slots:\t%u\n", tm->ids.nr_slots);
	seq_printf(m, "spare:\t%u\n", tm->nr_spare);
	seq_printf(m, "table_size:\t%llu\n",
		   (u64)tm->table.size_pages * PAGE_SIZE);
	seq_printf(m, "table_bytes:\t%llu\n",
		   (u64)tm->table.nr_pages * PAGE_SIZE);
	seq_printf(m, "trace_id:\t%llu\n", clocks->trace_id);
	if (clocks->manual)
		seq_printf(m, "manual_now_ns:\t%lld\n", clocks->manual_ns);
	for (i = 0; i < TWHEEL_NR_CLOCKS; i++) {
		struct twheel_base *base = clocks->bases[i];
		unsigned long flags;
		bool idle;
		u64 next;

		if (!base)
			continue;
		twheel_base_lock(base, flags);
		/* Timers parked to end (twheel_irq.c) have no expiry. */
		idle = twheel_wheel_idle(&base->wheel);
		next = twheel_wheel_next(&base->wheel);
		twheel_base_unlock(base, flags);
		if (idle)
			continue;
		seq_printf(m, "next_expiry_%s_ns:\t%lld\n", twheel_clock_name(i),
			   twheel_clocks_to_user(clocks, i,
						 twheel_tick_ns(next,
								clocks->tick_ns)));
	}
	if (twheel_table_on(&tm->table))
		seq_printf(m, "cancelled:\t%llu\n", tm->table_cancelled);
	mutex_unlock(&ctx->lock);
	if (tm->user) {
		twheel_user_usage(tm->user, &uid, &fds, &slots);
		seq_printf(m, "uid:\t%u\n",
			   from_kuid_munged(seq_user_ns(m), uid));
		seq_printf(m, "user_fds:\t%llu\n", fds);
		seq_printf(m, "user_timers:\t%llu\n", slots);
	}
}
EXPORT_SYMBOL_IF_KUNIT(twheel_ctx_show);
