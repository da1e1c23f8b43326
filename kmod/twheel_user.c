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
 * A user is a kernel uid, the opener's effective uid (as epoll's and
 * inotify's counts, which follow cred->ucounts, keyed by euid). Not a
 * (user namespace, uid) pair: any user may create user namespaces, and a
 * module cannot add a counter to the kernel's ucounts, which charge every
 * namespace up to the initial one; counting by kuid is the bound no
 * namespace escapes. Containers whose uids map to one kuid share it.
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
 * (root only); a process sees its own in its fds' fdinfo.
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

#include "twheel_user.h"

/**
 * struct twheel_user - what one user holds
 * @node: in twheel_users, while @fds > 0
 * @uid: the user
 * @fds: open fds charged to the user; the struct lives while it is > 0
 *       (changed under twheel_users_lock)
 * @slots: timer slots held by those fds
 */
struct twheel_user {
	struct hlist_node node;
	kuid_t uid;
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

static struct twheel_user *twheel_user_find(kuid_t uid)
{
	struct twheel_user *u;

	hash_for_each_possible(twheel_users, u, node, __kuid_val(uid))
		if (uid_eq(u->uid, uid))
			return u;
	return NULL;
}

/**
 * twheel_user_open() - charge an fd being opened to the calling user
 *
 * Return: the user, to pass to twheel_user_close() when the fd is
 * closed; ERR_PTR(-EMFILE) when the user holds max_user_fds fds already;
 * ERR_PTR(-ENOMEM).
 */
struct twheel_user *twheel_user_open(void)
{
	kuid_t uid = current_euid();
	struct twheel_user *u, *fresh = NULL;

	for (;;) {
		spin_lock(&twheel_users_lock);
		u = twheel_user_find(uid);
		if (!u && fresh) {
			u = fresh;
			fresh = NULL;
			hash_add(twheel_users, &u->node, __kuid_val(uid));
		}
		if (u)
			break;
		spin_unlock(&twheel_users_lock);
		fresh = kzalloc(sizeof(*fresh), TWHEEL_GFP);
		if (!fresh)
			return ERR_PTR(-ENOMEM);
		fresh->uid = uid;
		atomic_long_set(&fresh->slots, 0);
	}
	if (u->fds >= READ_ONCE(max_user_fds)) {
		if (!u->fds) {
			hash_del(&u->node);
			fresh = u;
		}
		u = ERR_PTR(-EMFILE);
	} else {
		u->fds++;
	}
	spin_unlock(&twheel_users_lock);
	kfree(fresh);
	return u;
}
EXPORT_SYMBOL_IF_KUNIT(twheel_user_open);

/**
 * twheel_user_close() - give back what a closed fd held
 * @u: its user, from twheel_user_open()
 * @slots: the timer slots it held, every one charged by
 *         twheel_user_charge_slot()
 */
void twheel_user_close(struct twheel_user *u, u64 slots)
{
	bool last;

	atomic_long_sub(slots, &u->slots);
	spin_lock(&twheel_users_lock);
	last = !--u->fds;
	if (last)
		hash_del(&u->node);
	spin_unlock(&twheel_users_lock);
	if (last) {
		WARN_ON_ONCE(atomic_long_read(&u->slots));
		kfree(u);
	}
}
EXPORT_SYMBOL_IF_KUNIT(twheel_user_close);

/**
 * twheel_user_charge_slot() - charge one more timer slot to a user
 * @u: the user
 *
 * Return: true when charged; false when the user holds max_user_timers
 * slots already (nothing charged).
 */
bool twheel_user_charge_slot(struct twheel_user *u)
{
	if (atomic_long_inc_return(&u->slots) <=
	    (long)READ_ONCE(max_user_timers))
		return true;
	atomic_long_dec(&u->slots);
	return false;
}
EXPORT_SYMBOL_IF_KUNIT(twheel_user_charge_slot);

/**
 * twheel_user_uncharge_slot() - take back a charge the caller did not use
 * @u: the user, charged by twheel_user_charge_slot()
 */
void twheel_user_uncharge_slot(struct twheel_user *u)
{
	atomic_long_dec(&u->slots);
}
EXPORT_SYMBOL_IF_KUNIT(twheel_user_uncharge_slot);

/**
 * twheel_user_usage() - what a user holds now
 * @u: the user
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

/* /proc/driver/twheel: one line per user holding a twheel fd. */
static int twheel_users_show(struct seq_file *m, void *v)
{
	struct user_namespace *ns = seq_user_ns(m);
	struct twheel_user *u;
	int bkt;

	seq_printf(m, "max_user_fds\t%lu\nmax_user_timers\t%lu\n",
		   READ_ONCE(max_user_fds), READ_ONCE(max_user_timers));
	seq_puts(m, "uid\tfds\ttimers\n");
	spin_lock(&twheel_users_lock);
	hash_for_each(twheel_users, bkt, u, node)
		seq_printf(m, "%u\t%lu\t%ld\n", from_kuid_munged(ns, u->uid),
			   u->fds, max(atomic_long_read(&u->slots), 0L));
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
