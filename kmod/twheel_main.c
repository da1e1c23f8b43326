// SPDX-License-Identifier: GPL-2.0
/*
 * twheel: many timers on one file descriptor, kept in a hierarchical
 * timing wheel.
 *
 * This file is the module's entry point: it registers the misc device
 * /dev/twheel. Any user may open it (mode 0666), as anyone may create a
 * timerfd; what one open file may hold is bounded per fd.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/module.h>

#include "twheel_dev.h"

static struct miscdevice twheel_misc = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = "twheel",
	.fops = &twheel_fops,
	.mode = 0666,
};

static int __init twheel_init(void)
{
	int ret;

	ret = twheel_dev_init();
	if (ret)
		return ret;

	ret = misc_register(&twheel_misc);
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
