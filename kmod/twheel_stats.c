// SPDX-License-Identifier: GPL-2.0
/*
 * twheel_stats.c - module-wide counters (per CPU, summed for sysfs) and
 * the trace ids that name each context in trace events and fdinfo.
 *
 * A utility below every layer: any layer counts what it does here; this
 * file calls nothing of twheel's.
 */
#include <linux/atomic.h>
#include <linux/cache.h>
#include <linux/compiler.h>
#include <linux/cpumask.h>
#include <linux/string.h>

#include "twheel_stats.h"

/* Module-wide counters, summed over CPUs by twheel_stats_read(). */
DEFINE_PER_CPU(struct twheel_stats, twheel_stats);

/* The trace id of the next context. */
static atomic64_t twheel_trace_ids = ATOMIC64_INIT(0);

/**
 * twheel_stats_read() - the module-wide counters
 * @sum: set to their sums over every CPU
 *
 * Each counter only grows; read while they change, the sums are each a
 * value the counter had or went through, not one instant's snapshot. The
 * counters of ends (closed, freed, read) are read before those of the
 * beginnings they follow (opened, created, expired), so an end is never
 * counted without its beginning.
 */
void twheel_stats_read(struct twheel_stats *sum)
{
	int cpu;

	memset(sum, 0, sizeof(*sum));
	/*
	 * The ends (closed, freed) before the beginnings (opened, created),
	 * so that every end counted has its beginning counted too.
	 */
	for_each_possible_cpu(cpu) {
		const struct twheel_stats *s = per_cpu_ptr(&twheel_stats, cpu);

		sum->closed += READ_ONCE(s->closed);
		sum->freed += READ_ONCE(s->freed);
		sum->read += READ_ONCE(s->read);
	}
	smp_rmb();	/* the ends' sums before the beginnings' */
	for_each_possible_cpu(cpu) {
		const struct twheel_stats *s = per_cpu_ptr(&twheel_stats, cpu);

		sum->opened += READ_ONCE(s->opened);
		sum->created += READ_ONCE(s->created);
		sum->expired += READ_ONCE(s->expired);
	}
}

/**
 * twheel_trace_id_next() - a new context's trace id
 *
 * Return: a number no other context of this module load has had, from 1.
 */
u64 twheel_trace_id_next(void)
{
	return atomic64_inc_return(&twheel_trace_ids);
}
