// SPDX-License-Identifier: GPL-2.0
/*
 * twheel_clock_set.c - wall clock sets: the module's one listener, the
 * count of sets, and the list of contexts woken by each.
 *
 * Part of the clock bases' layer (twheel_base.h), beside twheel_base.c,
 * which starts and stops it with its slab caches. A context on the list is
 * only kicked (twheel_clocks_kick()); what a set means for its timers is
 * worked out in its own task (twheel_update.c).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/irq_work.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/notifier.h>
#include <linux/pvclock_gtod.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/workqueue.h>
#include <kunit/visibility.h>

#include "twheel_base.h"
#include "twheel_user.h"

/*
 * Wall clock sets. The hook is the timekeeping core's update notifier
 * (pvclock_gtod_register_notifier(), exported for KVM's clock): the only
 * exported one told, with was_set, of every update that sets the clock:
 * settimeofday(2), clock_settime(2), adjtimex(2) steps and TAI offsets,
 * leap seconds, resumes (timerfd's own hook, timerfd_clock_was_set(), is
 * built in). It is called with the timekeeper's sequence write-held and
 * interrupts off, so the listener does O(1) work: it bumps
 * twheel_clock_sets (before any reader can see the new time) and queues
 * an irq_work, whose only job is to queue the work that tells the
 * watching contexts (twheel_clocks_watch()). That work, on this module's
 * own workqueue, walks their list under a mutex, in process context, and
 * kicks each (twheel_clocks_kick(): its own wait queue's lock, with
 * interrupts off only for that context's waiters), rescheduling as it
 * goes: no section with interrupts off grows with the number of fds or
 * users. Each context then finds the new sequence and does its part in
 * its own task (twheel_timer.c).
 */
static atomic_t twheel_clock_sets = ATOMIC_INIT(0);
static LIST_HEAD(twheel_clock_set_watchers);
static DEFINE_MUTEX(twheel_clock_set_lock);
static struct workqueue_struct *twheel_clock_set_wq;

/**
 * struct twheel_set_watch - a context on the list told of wall clock sets
 * @node: in twheel_clock_set_watchers, under twheel_clock_set_lock
 * @clocks: the context's clocks
 */
struct twheel_set_watch {
	struct list_head node;
	struct twheel_clocks *clocks;
};

static void twheel_clock_set_wake(struct work_struct *work)
{
	struct twheel_set_watch *w;

	mutex_lock(&twheel_clock_set_lock);
	list_for_each_entry(w, &twheel_clock_set_watchers, node) {
		twheel_clocks_kick(w->clocks);
		cond_resched();
	}
	mutex_unlock(&twheel_clock_set_lock);
}

static DECLARE_WORK(twheel_clock_set_work, twheel_clock_set_wake);

static void twheel_clock_set_irq(struct irq_work *work)
{
	queue_work(twheel_clock_set_wq, &twheel_clock_set_work);
}

static DEFINE_IRQ_WORK(twheel_clock_set_irq_work, twheel_clock_set_irq);

static int twheel_clock_set_notify(struct notifier_block *nb,
				   unsigned long was_set, void *tk)
{
	if (was_set) {
		atomic_inc(&twheel_clock_sets);
		irq_work_queue(&twheel_clock_set_irq_work);
	}
	return NOTIFY_OK;
}

static struct notifier_block twheel_clock_set_nb = {
	.notifier_call = twheel_clock_set_notify,
};

/**
 * twheel_clock_set_seq() - how many times the wall clock was set
 * @void: nothing
 *
 * Lockless. Bumped before the new time can be read: a task that reads
 * this after reading the clock sees every set the time it read follows.
 *
 * Return: the count, wrapping.
 */
u32 twheel_clock_set_seq(void)
{
	/* Pairs with the timekeeper's seqcount: its reads come first. */
	smp_rmb();
	return atomic_read(&twheel_clock_sets);
}
EXPORT_SYMBOL_IF_KUNIT(twheel_clock_set_seq);

/**
 * twheel_clocks_watch() - be woken when the wall clock is set
 * @clocks: the context's clocks (the caller serialises)
 *
 * From now until twheel_clocks_unwatch(), every set kicks it (as its
 * hrtimer would): its waiters wake, and its next update sees the new
 * twheel_clock_set_seq(). Idempotent. Its place on the list is allocated
 * on the first call (charged to the caller), so that a context that never
 * watches holds none. May sleep.
 *
 * Return: 0 or -ENOMEM.
 */
int twheel_clocks_watch(struct twheel_clocks *clocks)
{
	struct twheel_set_watch *w;

	if (clocks->set_watch)
		return 0;
	w = kmalloc(sizeof(*w), TWHEEL_GFP);
	if (!w)
		return -ENOMEM;
	w->clocks = clocks;
	mutex_lock(&twheel_clock_set_lock);
	list_add_tail(&w->node, &twheel_clock_set_watchers);
	mutex_unlock(&twheel_clock_set_lock);
	clocks->set_watch = w;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(twheel_clocks_watch);

/**
 * twheel_clocks_unwatch() - no longer be woken when the wall clock is set
 * @clocks: the clocks of a context nobody else uses any more
 *
 * Waits for a walk of the list running now (its mutex). May sleep.
 */
void twheel_clocks_unwatch(struct twheel_clocks *clocks)
{
	struct twheel_set_watch *w = clocks->set_watch;

	if (!w)
		return;
	mutex_lock(&twheel_clock_set_lock);
	list_del(&w->node);
	mutex_unlock(&twheel_clock_set_lock);
	kfree(w);
	clocks->set_watch = NULL;
}

/**
 * twheel_clock_set_init() - listen for wall clock sets
 *
 * Return: 0 or a negative errno.
 */
int twheel_clock_set_init(void)
{
	int ret;

	twheel_clock_set_wq = alloc_workqueue("twheel_clock_set", 0, 1);
	if (!twheel_clock_set_wq)
		return -ENOMEM;
	/* Registering calls it once, as a set: no context watches yet. */
	ret = pvclock_gtod_register_notifier(&twheel_clock_set_nb);
	if (ret)
		goto err_wq;
	return 0;

err_wq:
	destroy_workqueue(twheel_clock_set_wq);
	return ret;
}

/**
 * twheel_clock_set_exit() - stop listening for wall clock sets
 *
 * Nobody watches by then. destroy_workqueue() runs a wake-up still queued
 * first.
 */
void twheel_clock_set_exit(void)
{
	pvclock_gtod_unregister_notifier(&twheel_clock_set_nb);
	irq_work_sync(&twheel_clock_set_irq_work);
	destroy_workqueue(twheel_clock_set_wq);
}
