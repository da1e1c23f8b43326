// SPDX-License-Identifier: GPL-2.0
/*
 * twheel: many timers on one file descriptor, kept in a hierarchical
 * timing wheel.
 *
 * This file is the module's entry point: it registers the misc device
 * /dev/twheel, whose files are the top layer (twheel_dev.c; README.md
 * sketches the layers below it). Any user may open it (mode 0666), as
 * anyone may create a timerfd; what one open file may hold is bounded per
 * fd, and what one user may hold over all their fds per user
 * (twheel_user.c).
 *
 * The device has a fixed number, misc minor TWHEEL_MINOR, and the module
 * the aliases that go with it ("devname:twheel", "char-major-10-250"),
 * so that depmod lists it in modules.devname, kmod creates the node at
 * boot, and the first open() of /dev/twheel loads the module, as it does
 * for /dev/fuse or /dev/uinput. Should another driver hold that minor,
 * the device takes a dynamic one (and loads only by name).
 *
 * Module-wide counters are in /sys/class/misc/twheel/stats/, readable by
 * root only (mode 0400): they sum every user's activity, which no other
 * user should watch. A user sees their own in their fds' fdinfo.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/device.h>
#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/sysfs.h>

#include "twheel_dev.h"
#include "twheel_stats.h"

/* Misc minors 243-254 are reserved for local use (devices.txt). */
#define TWHEEL_MINOR	250

/* @a - @b for a count of things now, never below 0 (see the reads). */
static u64 twheel_stat_now(u64 a, u64 b)
{
	return a > b ? a - b : 0;
}

static ssize_t twheel_stat_show(struct device *dev, char *buf,
				u64 (*value)(const struct twheel_stats *s))
{
	struct twheel_stats s;

	twheel_stats_read(&s);
	return sysfs_emit(buf, "%llu\n", value(&s));
}

#define TWHEEL_STAT_ATTR(_name, _expr)					\
static u64 twheel_stat_##_name(const struct twheel_stats *s)		\
{									\
	return _expr;							\
}									\
static ssize_t _name##_show(struct device *dev,				\
			    struct device_attribute *attr, char *buf)	\
{									\
	return twheel_stat_show(dev, buf, twheel_stat_##_name);	\
}									\
static DEVICE_ATTR_ADMIN_RO(_name)

/* Open files (contexts) now. */
TWHEEL_STAT_ATTR(fds, twheel_stat_now(s->opened, s->closed));
/* Live timers now: pending, or with a record queued. */
TWHEEL_STAT_ATTR(timers, twheel_stat_now(s->created, s->freed));
/* Timers created since the module was loaded. */
TWHEEL_STAT_ATTR(timers_created, s->created);
/* Expiry records queued since the module was loaded. */
TWHEEL_STAT_ATTR(expirations, s->expired);
/* Records read since the module was loaded. */
TWHEEL_STAT_ATTR(records_read, s->read);

static struct attribute *twheel_stats_attrs[] = {
	&dev_attr_fds.attr,
	&dev_attr_timers.attr,
	&dev_attr_timers_created.attr,
	&dev_attr_expirations.attr,
	&dev_attr_records_read.attr,
	NULL
};

static const struct attribute_group twheel_stats_group = {
	.name = "stats",
	.attrs = twheel_stats_attrs,
};

static const struct attribute_group *twheel_groups[] = {
	&twheel_stats_group,
	NULL
};

static struct miscdevice twheel_misc = {
	.minor = TWHEEL_MINOR,
	.name = "twheel",
	.fops = &twheel_fops,
	.groups = twheel_groups,
	.mode = 0666,
};

static int __init twheel_init(void)
{
	int ret;

	ret = twheel_dev_init();
	if (ret)
		return ret;

	ret = misc_register(&twheel_misc);
	if (ret == -EBUSY) {
		pr_notice("misc minor %d is taken: using a dynamic one\n",
			  TWHEEL_MINOR);
		twheel_misc.minor = MISC_DYNAMIC_MINOR;
		ret = misc_register(&twheel_misc);
	}
	if (ret) {
		pr_err("cannot register /dev/twheel: %d\n", ret);
		goto err_dev;
	}
	pr_info("loaded, version " TWHEEL_VERSION "\n");
	return 0;

err_dev:
	twheel_dev_exit();
	return ret;
}

static void __exit twheel_exit(void)
{
	misc_deregister(&twheel_misc);
	twheel_dev_exit();
	pr_info("unloaded\n");
}

module_init(twheel_init);
module_exit(twheel_exit);

MODULE_LICENSE("GPL");
MODULE_AUTHOR("The twheel developers");
MODULE_DESCRIPTION("Many timers on one fd: a hierarchical timing wheel behind /dev/twheel");
MODULE_VERSION(TWHEEL_VERSION);
MODULE_ALIAS_MISCDEV(TWHEEL_MINOR);
MODULE_ALIAS("devname:twheel");
