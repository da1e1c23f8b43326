// SPDX-License-Identifier: GPL-2.0
/*
 * twheel_user.c - per-user accounting and limits.
 *
 * Beside the layers: the device charges an fd at open and gives it back
 * at close, the timers charge id slots as they take them; this file calls
 * nothing of theirs. twheel_user.h also says how a user's allocations are
 * made (TWHEEL_GFP).
 *
 * /dev/twheel is open to every user, so what one user may make the kernel
 * hold through it is bounded per user, as epoll bounds watches
 * (fs.epoll.max_user_watches) and inotify instances and watches: whatever
 * the number of their processes and fds.
 *
 * A user is a (user namespace, kernel uid) pair: the opener's user
 * namespace and effective uid, as for the kernel's ucounts (inotify's
 * limits). A charge goes to that pair and then, as inc_ucount() does, to
 * the pair (parent namespace, the namespace's owner) above it, level by
 * level up to the initial user namespace: whatever is done in a namespace
 * counts against the user who created it, and against whoever created that
 * user's namespace, so that no namespace escapes the limits (a user with
 * 65536 subordinate ids has one budget, not 65536). The kernel's ucounts
 * take no counter of a module's, so twheel keeps its own entries, one per
 * pair charged by an open fd, each holding a reference on its namespace
 * and pointing at the entry of the level above. The same limits apply at
 * every level; as a level's counts are part of the level's above it, the
 * initial namespace's is the one that binds (as for inotify, whose child
 * namespaces have no limits of their own unless set in them).
 *
 * Root is a user like the others: uid 0 of the initial namespace has one
 * budget for all of root's processes (and for the user namespaces they
 * create), as for epoll's and inotify's limits; no capability is exempt.
 * A machine whose services need more raises the limits.
 *
 * Limits, tunable at run time by root as sysctls fs.twheel.max_user_fds
 * and fs.twheel.max_user_timers (the same values as the module parameters
 * of those names, which set them at load):
 *   max_user_fds     open twheel fds per user; open(2) fails with EMFILE
 *   max_user_timers  timer slots per user (see twheel_user.h); an add
 *                    that needs a new slot fails with ENOSPC
 * By default they are derived from the machine's memory, as epoll's limit
 * is: max_user_fds * TWHEEL_FD_MAX_BYTES + max_user_timers *
 * TWHEEL_TIMER_MAX_BYTES is at most 1/25 (4%) of RAM, a quarter of it for
 * fds. Lowering a limit below what a user holds refuses new fds or slots
 * until they are under it again; it takes nothing away.
 *
 * An administrator sees every user's fds and slots in /proc/driver/twheel
 * (root only), for the users of the initial namespace: their totals,
 * everything done in the namespaces they created included; a process sees
 * its own (those of its namespace and euid) in its fds' fdinfo.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/cred.h>
#include <linux/hashtable.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/proc_fs.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/sysctl.h>
#include <linux/user_namespace.h>
#include <kunit/visibility.h>

#include "twheel_irq.h"
#include "twheel_user.h"

#define TWHEEL_IRQ_USED		GENMASK(23, 0)
#define TWHEEL_IRQ_SEC_SHIFT	24

/**
 * struct twheel_user - what one user holds, at one user namespace level
 * @node: in twheel_users, while @fds > 0
 * @ns: the user namespace, referenced while the struct lives
 * @uid: the user
 * @up: the entry of (@ns's parent, @ns's owner), which lives at least as
 *      long as this one (every fd charged here is charged there); NULL in
 *      the initial namespace. Set before the entry is first returned, then
 *      constant.
 * @irq_work: the wheel entries its fds' hrtimer callbacks moved in the
 *            current second (bits 0-23, saturating) and that second's
 *            number (jiffies / HZ, bits 24-31): twheel_user_irq_budget()
 * @fds: open fds charged to the user; the struct lives while it is > 0
 *       (changed under twheel_users_lock)
 * @slots: timer slots held by those fds
 */
struct twheel_user {
	struct hlist_node node;
	struct user_namespace *ns;
	struct twheel_user *up;
	kuid_t uid;
	atomic_t irq_work;
	unsigned long fds;
	atomic_long_t slots;
};

static DEFINE_HASHTABLE(twheel_users, 6);
static DEFINE_SPINLOCK(twheel_users_lock);

/* 0 until twheel_user_init() derives the defaults; at least 1 after. */
static unsigned long max_user_fds;
static unsigned long max_user_timers;

static int twheel_set_limit(const char *val, const struct kernel_param *kp)
{
	unsigned long v;
	int ret;

	ret = kstrtoul(val, 0, &v);
	if (ret)
		return ret;
	if (!v || v > LONG_MAX)
		return -EINVAL;
	WRITE_ONCE(*(unsigned long *)kp->arg, v);
	return 0;
}

static const struct kernel_param_ops twheel_limit_ops = {
	.set = twheel_set_limit,
	.get = param_get_ulong,
};

module_param_cb(max_user_fds, &twheel_limit_ops, &max_user_fds, 0644);
MODULE_PARM_DESC(max_user_fds,
		 "Most open /dev/twheel files per user (EMFILE beyond); default from RAM; also sysctl fs.twheel.max_user_fds");
module_param_cb(max_user_timers, &twheel_limit_ops, &max_user_timers, 0644);
MODULE_PARM_DESC(max_user_timers,
		 "Most timer slots per user over all their fds (ENOSPC beyond); default from RAM; also sysctl fs.twheel.max_user_timers");

static unsigned long twheel_limit_min = 1;
static unsigned long twheel_limit_max = LONG_MAX;

static struct ctl_table twheel_sysctls[] = {
	{
		.procname = "max_user_fds",
		.data = &max_user_fds,
		.maxlen = sizeof(max_user_fds),
		.mode = 0644,
		.proc_handler = proc_doulongvec_minmax,
		.extra1 = &twheel_limit_min,
		.extra2 = &twheel_limit_max,
	},
	{
		.procname = "max_user_timers",
		.data = &max_user_timers,
		.maxlen = sizeof(max_user_timers),
		.mode = 0644,
		.proc_handler = proc_doulongvec_minmax,
		.extra1 = &twheel_limit_min,
		.extra2 = &twheel_limit_max,
	},
#ifndef TWHEEL_HAVE_REGISTER_SYSCTL_SZ
	{ }	/* before 6.6, the table ends with an empty entry */
#endif
};

static struct ctl_table_header *twheel_sysctl_header;

static unsigned long twheel_user_key(struct user_namespace *ns, kuid_t uid)
{
	return (unsigned long)ns ^ __kuid_val(uid);
}

static struct twheel_user *twheel_user_find(struct user_namespace *ns,
					    kuid_t uid)
{
	struct twheel_user *u;

	lockdep_assert_held(&twheel_users_lock);
	hash_for_each_possible(twheel_users, u, node, twheel_user_key(ns, uid))
		if (u->ns == ns && uid_eq(u->uid, uid))
			return u;
	return NULL;
}

/*
 * Under twheel_users_lock, for the levels from (@ns, @uid) up: how many
 * have no entry yet (*@missing), and whether one is at max_user_fds.
 */
static bool twheel_user_fds_full(struct user_namespace *ns, kuid_t uid,
				 unsigned int *missing)
{
	unsigned long max = READ_ONCE(max_user_fds);
	struct twheel_user *u;
	bool full = false;

	*missing = 0;
	for (; ns; uid = ns->owner, ns = ns->parent) {
		u = twheel_user_find(ns, uid);
		if (!u)
			++*missing;
		else if (u->fds >= max)
			full = true;
	}
	return full;
}

/*
 * Under twheel_users_lock: charge one fd to each level from (@ns, @uid)
 * up, taking the levels' missing entries from *@pool (which holds enough).
 * Return: the first level's entry.
 */
static struct twheel_user *twheel_user_charge_fd(struct user_namespace *ns,
						 kuid_t uid,
						 struct twheel_user **pool)
{
	struct twheel_user *u, *below = NULL, *first = NULL;

	for (; ns; uid = ns->owner, ns = ns->parent) {
		u = twheel_user_find(ns, uid);
		if (!u) {
			u = *pool;
			*pool = u->up;
			u->ns = get_user_ns(ns);
			u->uid = uid;
			u->up = NULL;
			u->fds = 0;
			atomic_long_set(&u->slots, 0);
			hash_add(twheel_users, &u->node,
				 twheel_user_key(ns, uid));
		}
		/* A new entry's level above is this one, found or added. */
		if (below && !below->fds)
			below->up = u;
		if (below)
			below->fds++;
		if (!first)
			first = u;
		below = u;
	}
	below->fds++;
	return first;
}

/**
 * twheel_user_open() - charge an fd being opened to the calling user, and
 *                      to the creator of each user namespace above theirs
 *
 * Return: the user, to pass to twheel_user_close() when the fd is
 * closed; ERR_PTR(-EMFILE) when the user, or a namespace's creator above
 * them, holds max_user_fds fds already (nothing charged); ERR_PTR(-ENOMEM).
 */
struct twheel_user *twheel_user_open(void)
{
	struct user_namespace *ns = current_user_ns();
	struct twheel_user *u, *pool = NULL;
	unsigned int missing, pooled = 0;
	kuid_t uid = current_euid();

	for (;;) {
		spin_lock(&twheel_users_lock);
		if (twheel_user_fds_full(ns, uid, &missing)) {
			u = ERR_PTR(-EMFILE);
			goto unlock;
		}
		if (missing <= pooled)
			break;
		spin_unlock(&twheel_users_lock);
		/* Allocated unlocked; the levels are looked at again after. */
		while (pooled < missing) {
			u = kmalloc(sizeof(*u), TWHEEL_GFP);
			if (!u) {
				u = ERR_PTR(-ENOMEM);
				goto free;
			}
			u->up = pool;
			pool = u;
			pooled++;
		}
	}
	u = twheel_user_charge_fd(ns, uid, &pool);
unlock:
	spin_unlock(&twheel_users_lock);
free:
	while (pool) {
		struct twheel_user *next = pool->up;

		kfree(pool);
		pool = next;
	}
	return u;
}
EXPORT_SYMBOL_IF_KUNIT(twheel_user_open);

/**
 * twheel_user_close() - give back what a closed fd held, at every level
 * @u: its user, from twheel_user_open()
 * @slots: the timer slots it held, every one charged by
 *         twheel_user_charge_slot()
 */
void twheel_user_close(struct twheel_user *u, u64 slots)
{
	struct twheel_user *it, *up;
	unsigned int gone = 0;

	for (it = u; it; it = it->up)
		atomic_long_sub(slots, &it->slots);
	spin_lock(&twheel_users_lock);
	/* A level holds at least the fds of the one below: gone ones first. */
	for (it = u; it; it = it->up) {
		if (--it->fds)
			continue;
		hash_del(&it->node);
		gone++;
	}
	spin_unlock(&twheel_users_lock);
	for (it = u; gone--; it = up) {
		up = it->up;
		WARN_ON_ONCE(atomic_long_read(&it->slots));
		put_user_ns(it->ns);
		kfree(it);
	}
}
EXPORT_SYMBOL_IF_KUNIT(twheel_user_close);

/* Add 1 to @v unless that would take it above @max. */
static bool twheel_inc_below(atomic_long_t *v, long max)
{
	long n = atomic_long_read(v);

	do {
		if (n >= max)
			return false;
	} while (!atomic_long_try_cmpxchg(v, &n, n + 1));
	return true;
}

/* This second's number, as @irq_work keeps it. */
static u32 twheel_irq_sec(void)
{
	return (u32)(jiffies / HZ) << TWHEEL_IRQ_SEC_SHIFT;
}

/* The entries moved in second @sec by @v, a value of @irq_work. */
static u32 twheel_irq_used(u32 v, u32 sec)
{
	return (v & ~TWHEEL_IRQ_USED) == sec ? v & TWHEEL_IRQ_USED : 0;
}

/**
 * twheel_user_irq_budget() - what a hrtimer callback may still do this
 *                            second for a user
 * @u: the user its set is charged to
 * @want: the most it wants to move (TWHEEL_IRQ_BUDGET)
 *
 * Lockless, in interrupt context. The bound (TWHEEL_IRQ_RATE entries per
 * second) holds for the user and for each namespace creator above them;
 * callbacks running at once on several CPUs may each take the last
 * budget: it is exceeded by at most TWHEEL_IRQ_BUDGET per CPU. A second's
 * number wraps after 256 seconds: a user idle that long may find up to a
 * second's bound taken, and fall back to waking meanwhile.
 *
 * Return: at most @want; 0 when the bound is reached.
 */
u32 twheel_user_irq_budget(const struct twheel_user *u, u32 want)
{
	u32 sec = twheel_irq_sec(), used;

	for (; u && want; u = u->up) {
		used = twheel_irq_used(atomic_read(&u->irq_work), sec);
		want = used >= TWHEEL_IRQ_RATE ? 0 :
		       min(want, TWHEEL_IRQ_RATE - used);
	}
	return want;
}
EXPORT_SYMBOL_IF_KUNIT(twheel_user_irq_budget);

/**
 * twheel_user_irq_charge() - count what a hrtimer callback did for a user
 * @u: the user its set is charged to
 * @n: the entries it moved, at most what twheel_user_irq_budget() gave
 *
 * Lockless, in interrupt context; at every level, as the budget.
 */
void twheel_user_irq_charge(struct twheel_user *u, u32 n)
{
	u32 sec = twheel_irq_sec();
	int v, nv;

	if (!n)
		return;
	for (; u; u = u->up) {
		v = atomic_read(&u->irq_work);
		do {
			nv = sec | min_t(u32, twheel_irq_used(v, sec) + n,
					 TWHEEL_IRQ_USED);
		} while (!atomic_try_cmpxchg(&u->irq_work, &v, nv));
	}
}
EXPORT_SYMBOL_IF_KUNIT(twheel_user_irq_charge);

/**
 * twheel_user_charge_slot() - charge one more timer slot to a user, and to
 *                             the creator of each user namespace above
 * @u: the user
 *
 * Return: true when charged; false when the user, or a namespace's
 * creator above them, holds max_user_timers slots already (nothing
 * charged).
 */
bool twheel_user_charge_slot(struct twheel_user *u)
{
	long max = READ_ONCE(max_user_timers);
	struct twheel_user *it, *bad;

	for (it = u; it; it = it->up)
		if (!twheel_inc_below(&it->slots, max))
			goto undo;
	return true;
undo:
	bad = it;
	for (it = u; it != bad; it = it->up)
		atomic_long_dec(&it->slots);
	return false;
}
EXPORT_SYMBOL_IF_KUNIT(twheel_user_charge_slot);

/**
 * twheel_user_uncharge_slot() - take back a charge the caller did not use
 * @u: the user, charged by twheel_user_charge_slot()
 */
void twheel_user_uncharge_slot(struct twheel_user *u)
{
	for (; u; u = u->up)
		atomic_long_dec(&u->slots);
}
EXPORT_SYMBOL_IF_KUNIT(twheel_user_uncharge_slot);

/**
 * twheel_user_usage() - what a user holds now, in their own user namespace
 * @u: the user (the levels above are not looked at)
 * @uid: set to the user's uid
 * @fds: set to their open fds
 * @slots: set to the timer slots those hold
 */
void twheel_user_usage(const struct twheel_user *u, kuid_t *uid, u64 *fds,
		       u64 *slots)
{
	long n = atomic_long_read(&u->slots);

	*uid = u->uid;
	*fds = READ_ONCE(u->fds);
	*slots = n > 0 ? n : 0;
}
EXPORT_SYMBOL_IF_KUNIT(twheel_user_usage);

/*
 * /proc/driver/twheel: one line per user of the initial user namespace
 * holding a twheel fd, there or in a namespace they created: their totals.
 */
static int twheel_users_show(struct seq_file *m, void *v)
{
	struct user_namespace *ns = seq_user_ns(m);
	struct twheel_user *u;
	int bkt;

	seq_printf(m, "max_user_fds\t%lu\nmax_user_timers\t%lu\n",
		   READ_ONCE(max_user_fds), READ_ONCE(max_user_timers));
	seq_puts(m, "uid\tfds\ttimers\n");
	spin_lock(&twheel_users_lock);
	hash_for_each(twheel_users, bkt, u, node) {
		if (u->ns != &init_user_ns)
			continue;
		seq_printf(m, "%u\t%lu\t%ld\n", from_kuid_munged(ns, u->uid),
			   u->fds, max(atomic_long_read(&u->slots), 0L));
	}
	spin_unlock(&twheel_users_lock);
	return 0;
}

/* The defaults: 4% of RAM, a quarter of it for fds (see the top). */
static void twheel_user_defaults(void)
{
	u64 budget = (u64)totalram_pages() * PAGE_SIZE / 25;

	if (!max_user_fds)
		max_user_fds = max_t(u64, budget / 4 / TWHEEL_FD_MAX_BYTES, 1);
	if (!max_user_timers)
		max_user_timers = max_t(u64, budget / 4 * 3 /
					TWHEEL_TIMER_MAX_BYTES, 1);
}

/**
 * twheel_user_init() - set the default limits; register the sysctls and
 *                      /proc/driver/twheel
 *
 * Return: 0, or -ENOMEM.
 */
int twheel_user_init(void)
{
	twheel_user_defaults();
	if (IS_ENABLED(CONFIG_SYSCTL)) {
		twheel_sysctl_header = register_sysctl("fs/twheel",
						       twheel_sysctls);
		if (!twheel_sysctl_header)
			return -ENOMEM;
	}
	if (IS_ENABLED(CONFIG_PROC_FS) &&
	    !proc_create_single("driver/twheel", 0400, NULL,
				twheel_users_show)) {
		unregister_sysctl_table(twheel_sysctl_header);
		return -ENOMEM;
	}
	pr_debug("max_user_fds %lu, max_user_timers %lu\n", max_user_fds,
		 max_user_timers);
	return 0;
}

/**
 * twheel_user_exit() - undo twheel_user_init(); no fd is open any more
 */
void twheel_user_exit(void)
{
	remove_proc_entry("driver/twheel", NULL);
	unregister_sysctl_table(twheel_sysctl_header);
}
