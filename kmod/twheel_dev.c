// SPDX-License-Identifier: GPL-2.0
/*
 * twheel_dev.c - the /dev/twheel file: one open file, one timer set.
 *
 * This layer owns the ABI: it copies arguments in and out of user memory
 * and maps them onto the timer set of twheel_ctx.c. No copy waits on a
 * page fault while the context's lock is held: results written under it
 * are copied with page faults disabled, and on a fault the operation is
 * undone, the page faulted in with no lock held, and the call retried.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/build_bug.h>
#include <linux/compat.h>
#include <linux/err.h>
#include <linux/fs.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/pagemap.h>
#include <linux/poll.h>
#include <linux/sched/signal.h>
#include <linux/seq_file.h>
#include <linux/uaccess.h>

#include "twheel_ctx.h"
#include "twheel_dev.h"

static ulong max_timers = 1048576;

static int twheel_set_max_timers(const char *val, const struct kernel_param *kp)
{
	ulong v;
	int ret;

	ret = kstrtoul(val, 0, &v);
	if (ret)
		return ret;
	if (!v)
		return -EINVAL;
	WRITE_ONCE(max_timers, v);
	return 0;
}

static const struct kernel_param_ops twheel_max_timers_ops = {
	.set = twheel_set_max_timers,
	.get = param_get_ulong,
};
module_param_cb(max_timers, &twheel_max_timers_ops, &max_timers, 0644);
MODULE_PARM_DESC(max_timers,
		 "Most timers one open /dev/twheel may hold, taken at open (default 1048576)");

/* The first published size of each argument: smaller ones are EINVAL. */
#define TWHEEL_ADD_SIZE_VER0	32
#define TWHEEL_CANCEL_SIZE_VER0	16
#define TWHEEL_INFO_SIZE_VER0	40

static int twheel_open(struct inode *inode, struct file *file)
{
	struct twheel_ctx *ctx;

	ctx = twheel_ctx_create(READ_ONCE(max_timers), TWHEEL_DEFAULT_TICK_NS);
	if (IS_ERR(ctx))
		return PTR_ERR(ctx);
	file->private_data = ctx;
	return nonseekable_open(inode, file);
}

static int twheel_release(struct inode *inode, struct file *file)
{
	twheel_ctx_destroy(file->private_data);
	return 0;
}

/*
 * An argument struct of @usize bytes (from the command number) into one of
 * @ksize: an older, smaller one is zero-extended, a newer, larger one must
 * have an all-zero tail (E2BIG otherwise).
 */
static int twheel_copy_in(void *karg, size_t ksize, const void __user *uarg,
			  size_t usize, size_t minsize)
{
	if (usize < minsize)
		return -EINVAL;
	return copy_struct_from_user(karg, ksize, uarg, usize);
}

/* Zero the bytes of a newer caller's struct that this module does not know. */
static int twheel_clear_tail(void __user *uarg, size_t usize, size_t ksize)
{
	if (usize > ksize && clear_user(uarg + ksize, usize - ksize))
		return -EFAULT;
	return 0;
}

/* Write back as many bytes as the caller's struct has; zero any tail. */
static int twheel_copy_out(void __user *uarg, size_t usize, const void *karg,
			   size_t ksize)
{
	if (copy_to_user(uarg, karg, min(usize, ksize)))
		return -EFAULT;
	return twheel_clear_tail(uarg, usize, ksize);
}

/**
 * struct twheel_out - a result to write back under the context's lock
 * @uarg: the caller's struct
 * @karg: ours
 * @len: the bytes both have
 */
struct twheel_out {
	void __user *uarg;
	const void *karg;
	size_t len;
};

/*
 * Called under the context's lock: copy without waiting for a page fault
 * (a fault on userfaultfd or FUSE memory may never resolve). On -EFAULT
 * the operation is undone; the caller faults the page in with no lock
 * held and tries again.
 */
static int twheel_out_nofault(void *arg)
{
	struct twheel_out *o = arg;

	return copy_to_user_nofault(o->uarg, o->karg, o->len) ? -EFAULT : 0;
}

/*
 * After twheel_out_nofault() failed (and the operation was undone): make
 * the result's bytes writable, holding no lock. Return: 0 to try again,
 * or the error to give up with.
 */
static int twheel_out_fault_in(const struct twheel_out *o)
{
	if (fatal_signal_pending(current))
		return -EINTR;
	if (fault_in_writeable(o->uarg, o->len))
		return -EFAULT;
	return 0;
}

static long twheel_ioctl_add(struct twheel_ctx *ctx, void __user *uarg,
			     size_t usize)
{
	struct twheel_add req;
	struct twheel_out out = {
		.uarg = uarg, .karg = &req, .len = min(usize, sizeof(req)),
	};
	int ret;

	ret = twheel_copy_in(&req, sizeof(req), uarg, usize,
			     TWHEEL_ADD_SIZE_VER0);
	if (ret)
		return ret;
	/* The tail was zero on input; write it back before any change. */
	ret = twheel_clear_tail(uarg, usize, sizeof(req));
	if (ret)
		return ret;
	/* On -EFAULT the add was taken back before anyone saw it. */
	do {
		ret = twheel_ctx_add(ctx, &req, twheel_out_nofault, &out);
	} while (ret == -EFAULT && !(ret = twheel_out_fault_in(&out)));
	return ret;
}

static long twheel_ioctl_cancel(struct twheel_ctx *ctx, void __user *uarg,
				size_t usize)
{
	struct twheel_cancel req;
	struct twheel_out out = {
		.uarg = uarg, .karg = &req, .len = min(usize, sizeof(req)),
	};
	int ret;

	ret = twheel_copy_in(&req, sizeof(req), uarg, usize,
			     TWHEEL_CANCEL_SIZE_VER0);
	if (ret)
		return ret;
	if (req.flags)
		return -EINVAL;
	ret = twheel_clear_tail(uarg, usize, sizeof(req));
	if (ret)
		return ret;
	/* The timer is cancelled only once its outcome is written. */
	do {
		ret = twheel_ctx_cancel(ctx, &req, twheel_out_nofault, &out);
	} while (ret == -EFAULT && !(ret = twheel_out_fault_in(&out)));
	return ret;
}

static long twheel_ioctl_info(struct twheel_ctx *ctx, void __user *uarg,
			      size_t usize)
{
	struct twheel_info info;

	if (usize < TWHEEL_INFO_SIZE_VER0)
		return -EINVAL;
	twheel_ctx_info(ctx, &info);
	return twheel_copy_out(uarg, usize, &info, sizeof(info));
}

static long twheel_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct twheel_ctx *ctx = file->private_data;
	void __user *uarg = (void __user *)arg;
	size_t usize = _IOC_SIZE(cmd);

	BUILD_BUG_ON(sizeof(struct twheel_add) != TWHEEL_ADD_SIZE_VER0);
	BUILD_BUG_ON(sizeof(struct twheel_cancel) != TWHEEL_CANCEL_SIZE_VER0);
	BUILD_BUG_ON(sizeof(struct twheel_info) != TWHEEL_INFO_SIZE_VER0);
	BUILD_BUG_ON(sizeof(struct twheel_event) != 40);

	if (_IOC_TYPE(cmd) != TWHEEL_IOC_TYPE)
		return -ENOTTY;
	/* Dispatch on number and direction; the size may differ (above). */
	switch (_IOC_NR(cmd)) {
	case _IOC_NR(TWHEEL_IOC_INFO):
		if (_IOC_DIR(cmd) != _IOC_DIR(TWHEEL_IOC_INFO))
			return -ENOTTY;
		return twheel_ioctl_info(ctx, uarg, usize);
	case _IOC_NR(TWHEEL_IOC_ADD):
		if (_IOC_DIR(cmd) != _IOC_DIR(TWHEEL_IOC_ADD))
			return -ENOTTY;
		return twheel_ioctl_add(ctx, uarg, usize);
	case _IOC_NR(TWHEEL_IOC_CANCEL):
		if (_IOC_DIR(cmd) != _IOC_DIR(TWHEEL_IOC_CANCEL))
			return -ENOTTY;
		return twheel_ioctl_cancel(ctx, uarg, usize);
	default:
		return -ENOTTY;
	}
}

/* Called under the context's lock: one record out, without faulting. */
static int twheel_emit(void *arg, const struct twheel_event *ev)
{
	char __user **buf = arg;

	if (copy_to_user_nofault(*buf, ev, sizeof(*ev)))
		return -EFAULT;
	*buf += sizeof(*ev);
	return 0;
}

static ssize_t twheel_read(struct file *file, char __user *buf, size_t count,
			   loff_t *ppos)
{
	const size_t size = sizeof(struct twheel_event);
	struct twheel_ctx *ctx = file->private_data;
	u64 want = count / size, done = 0;
	char __user *pos = buf;
	long n;
	int ret;

	if (!want)
		return -EINVAL;
	while (done < want) {
		n = twheel_ctx_read(ctx, want - done, twheel_emit, &pos);
		if (n > 0) {
			done += n;
			if (fatal_signal_pending(current))
				break;
			cond_resched();
			continue;
		}
		if (n == -EFAULT) {
			/*
			 * The record stays queued. Fault its place in with no
			 * lock held (this may wait long: userfaultfd, FUSE),
			 * then try again.
			 */
			if (!fault_in_writeable(pos, size))
				continue;
			if (done)
				break;
			return signal_pending(current) ? -ERESTARTSYS : -EFAULT;
		}
		if (done)
			break;
		if (file->f_flags & O_NONBLOCK)
			return -EAGAIN;
		/* Woken by a record, or by an hrtimer: then advance (above). */
		ret = wait_event_interruptible(ctx->wqh,
					       twheel_ctx_readable(ctx) ||
					       twheel_ctx_fired(ctx));
		if (ret)
			return ret;
	}
	return done * size;
}

static __poll_t twheel_poll(struct file *file, poll_table *wait)
{
	struct twheel_ctx *ctx = file->private_data;

	poll_wait(file, &ctx->wqh, wait);
	/*
	 * Exact: readable only with a record queued. After an hrtimer fired,
	 * advance the wheels (in this task) until a record is queued or
	 * nothing more is due.
	 */
	if (!twheel_ctx_readable(ctx) && twheel_ctx_fired(ctx)) {
		twheel_ctx_lock_update(ctx, TWHEEL_UPDATE_RECORD);
		twheel_ctx_unlock(ctx);
	}
	return twheel_ctx_readable(ctx) ? EPOLLIN | EPOLLRDNORM : 0;
}

static void twheel_show_fdinfo(struct seq_file *m, struct file *file)
{
	twheel_ctx_show(file->private_data, m);
}

const struct file_operations twheel_fops = {
	.owner = THIS_MODULE,
	.open = twheel_open,
	.release = twheel_release,
	.read = twheel_read,
	.poll = twheel_poll,
	.unlocked_ioctl = twheel_ioctl,
	/* Every argument has one layout on 32 and 64 bits. */
	.compat_ioctl = compat_ptr_ioctl,
	.show_fdinfo = twheel_show_fdinfo,
};

/**
 * twheel_dev_init() - set up what all /dev/twheel files share
 *
 * Return: 0 or a negative errno.
 */
int twheel_dev_init(void)
{
	return twheel_ctx_cache_init();
}

/**
 * twheel_dev_exit() - tear down what twheel_dev_init() set up
 */
void twheel_dev_exit(void)
{
	twheel_ctx_cache_exit();
}
