/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * twheel.h - userspace ABI of /dev/twheel.
 */
#ifndef _UAPI_LINUX_TWHEEL_H
#define _UAPI_LINUX_TWHEEL_H

#include <linux/types.h>
#include <linux/ioctl.h>

/* The ABI version; also the module's version string. */
#define TWHEEL_VERSION_MAJOR	0
#define TWHEEL_VERSION_MINOR	1
#define TWHEEL_VERSION		"0.1"

#endif /* _UAPI_LINUX_TWHEEL_H */
