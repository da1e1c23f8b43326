/* SPDX-License-Identifier: GPL-2.0 */
/*
 * twheel_uops.h - between the two files of the device layer: the user
 * copies (twheel_uops.c) that the file operations and the ioctl dispatch
 * (twheel_dev.c) use. Private to the device.
 */
#ifndef _TWHEEL_UOPS_H
#define _TWHEEL_UOPS_H

#include <linux/align.h>
#include <linux/compiler.h>
#include <linux/kconfig.h>
#include <linux/types.h>
#include <linux/uaccess.h>

struct twheel_ctx;
struct twheel_op;

/**
 * struct twheel_single - a single-operation ioctl's result, to write back
 *                        under the context's lock
 * @uarg: the caller's struct
 * @len: its bytes that the kernel knows
 * @put: writes the ioctl's "out" fields from the operation's outputs;
 *       called with page faults disabled
 */
struct twheel_single {
	void __user *uarg;
	size_t len;
	int (*put)(void __user *uarg, const struct twheel_op *op);
};

/*
 * Arrays of operations and records are read and written field by field: a
 * few word loads and stores cost less than a byte-string copy of each
 * whole struct, and the kernel side needs no bounds check at run time.
 * Where the caller's array is misaligned and the architecture cannot
 * access it so, whole structs are copied instead. Like the copy routines,
 * these accesses honour fail_usercopy fault injection.
 */
static inline bool twheel_by_field(const void __user *p)
{
	return IS_ENABLED(CONFIG_HAVE_EFFICIENT_UNALIGNED_ACCESS) ||
	       IS_ALIGNED((unsigned long)p, sizeof(u64));
}

int __twheel_copy_in(void *karg, size_t ksize, void __user *uarg,
		     size_t usize, size_t minsize, bool out);

/**
 * twheel_copy_in() - copy an ioctl's argument struct in
 * @karg: the kernel's struct
 * @ksize: its size
 * @uarg: the caller's struct
 * @usize: its size, from the command number
 * @minsize: the first published size: smaller ones are EINVAL
 * @out: the command writes results back
 *
 * As __twheel_copy_in(). The usual case, a caller's struct of the
 * kernel's size, is one copy of a size known when compiling: hardened
 * usercopy then has no stack object to look up at run time.
 *
 * Return: 0 or a negative errno.
 */
static __always_inline int twheel_copy_in(void *karg, size_t ksize,
					  void __user *uarg, size_t usize,
					  size_t minsize, bool out)
{
	if (__builtin_constant_p(ksize) && usize == ksize)
		return copy_from_user(karg, uarg, ksize) ? -EFAULT : 0;
	return __twheel_copy_in(karg, ksize, uarg, usize, minsize, out);
}

int twheel_copy_out(void __user *uarg, size_t usize, const void *karg,
		    size_t ksize);
int twheel_out_fault_in(void __user *uarg, size_t len);

long twheel_ioctl_add(struct twheel_ctx *ctx, void __user *uarg, size_t usize,
		      bool nowait);
long twheel_ioctl_modify(struct twheel_ctx *ctx, void __user *uarg,
			 size_t usize, bool nowait);
long twheel_ioctl_cancel(struct twheel_ctx *ctx, void __user *uarg,
			 size_t usize, bool nowait);
long twheel_ioctl_query(struct twheel_ctx *ctx, void __user *uarg,
			size_t usize, bool nowait);
long twheel_ioctl_submit(struct twheel_ctx *ctx, void __user *uarg,
			 size_t usize, bool nowait);

#endif /* _TWHEEL_UOPS_H */
