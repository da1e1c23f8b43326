// SPDX-License-Identifier: GPL-2.0
/*
 * twheel_dev.c - the /dev/twheel file: one open file, one timer set.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/fs.h>
#include <linux/module.h>
#include <linux/slab.h>

#include "twheel_dev.h"

/**
 * struct twheel_ctx - the state behind one open /dev/twheel
 * @wheel: placeholder until the timer set lands
 */
struct twheel_ctx {
	int wheel;
};

static int twheel_open(struct inode *inode, struct file *file)
{
	struct twheel_ctx *ctx;

	ctx = kzalloc(sizeof(*ctx), GFP_KERNEL_ACCOUNT);
	if (!ctx)
		return -ENOMEM;
	file->private_data = ctx;
	return nonseekable_open(inode, file);
}

static int twheel_release(struct inode *inode, struct file *file)
{
	kfree(file->private_data);
	return 0;
}

const struct file_operations twheel_fops = {
	.owner = THIS_MODULE,
	.open = twheel_open,
	.release = twheel_release,
};

/**
 * twheel_dev_init() - set up what all /dev/twheel files share
 *
 * Return: 0 or a negative errno.
 */
int twheel_dev_init(void)
{
	return 0;
}

/**
 * twheel_dev_exit() - tear down what twheel_dev_init() set up
 */
void twheel_dev_exit(void)
{
}
