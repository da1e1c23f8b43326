/* SPDX-License-Identifier: GPL-2.0 */
/*
 * twheel_stats.h - module-wide counters and trace ids: a utility of every
 * layer.
 *
 * The counters are per CPU, added to without a lock by whichever layer
 * does the counted thing (the set opens and closes, the timers create,
 * queue, read and free); twheel_main.c sums them for sysfs. Counting is
 * no call into another layer: this file depends on nothing of twheel's.
 */
#ifndef _TWHEEL_STATS_H
#define _TWHEEL_STATS_H

#include <linux/percpu.h>
#include <linux/types.h>

/**
 * struct twheel_stats - module-wide counters, since the module was loaded
 * @opened: contexts created (files opened)
 * @closed: contexts destroyed (files released)
 * @created: timers created
 * @freed: timers freed (read, cancelled, or closed with their file)
 * @expired: expiry records queued
 * @read: records read, or moved into a record ring
 */
struct twheel_stats {
	u64 opened;
	u64 closed;
	u64 created;
	u64 freed;
	u64 expired;
	u64 read;
};

DECLARE_PER_CPU(struct twheel_stats, twheel_stats);

/* Add @n to this CPU's counter @field (a member of struct twheel_stats). */
#define twheel_stat_add(field, n)	this_cpu_add(twheel_stats.field, (n))

void twheel_stats_read(struct twheel_stats *sum);
u64 twheel_trace_id_next(void);

#endif /* _TWHEEL_STATS_H */
