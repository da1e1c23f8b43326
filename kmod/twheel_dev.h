/* SPDX-License-Identifier: GPL-2.0 */
/*
 * twheel_dev.h - the /dev/twheel file: per-fd state and file operations.
 */
#ifndef _TWHEEL_DEV_H
#define _TWHEEL_DEV_H

#include <linux/fs.h>

#include <linux/twheel.h>

extern const struct file_operations twheel_fops;

int twheel_dev_init(void);
void twheel_dev_exit(void);

#endif /* _TWHEEL_DEV_H */
