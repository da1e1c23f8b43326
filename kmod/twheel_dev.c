// SPDX-License-Identifier: GPL-2.0
/*
 * twheel_dev.c - the /dev/twheel file: one open file, one timer set.
 *
 * The top layer, the device, which owns the ABI: this file has the file
 * operations (open, release, read, poll, fdinfo), the ioctl dispatch
 * table, and the set-wide ioctls (INFO, LIST, CONFIG, ADVANCE);
 * twheel_uops.c has the copies of argument structs and the operations on
 * timers (ADD, MODIFY, CANCEL, QUERY, SUBMIT). Both map the ABI onto the
 * timer set of twheel_ctx.c and call nothing below it but the per-user
 * accounting at open and close. No copy waits on a page fault while the
 * context's lock is held: results written under it are copied with page
 * faults disabled, and on a fault the operation is undone, the page
 * faulted in with no lock held, and the call retried. io_uring's inline
 * issue (IO_URING_F_NONBLOCK) and reads with IOCB_NOWAIT never sleep: the
 * lock is only tried, a page not in memory is not faulted in, and at
 * most one chunk of wheel work is done; what would wait is -EAGAIN.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/build_bug.h>
#include <linux/compat.h>
#include <linux/err.h>
#include <linux/fault-inject-usercopy.h>
#include <linux/fs.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/pagemap.h>
#include <linux/poll.h>
#include <linux/sched/signal.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/time.h>
#include <linux/uio.h>
#include <linux/uaccess.h>

#include "twheel_compat.h"
#include "twheel_ctx.h"
#include "twheel_dev.h"
#include "twheel_table.h"
#include "twheel_uops.h"
#include "twheel_user.h"

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
#define TWHEEL_INFO_SIZE_VER0		40
#define TWHEEL_LIST_SIZE_VER2		32
#define TWHEEL_CONFIG_SIZE_VER2		16
#define TWHEEL_ADVANCE_SIZE_VER2	24

/* Statuses TWHEEL_IOC_LIST gathers per hold of the context's lock. */
#define TWHEEL_LIST_CHUNK	64

static int twheel_open(struct inode *inode, struct file *file)
{
	struct twheel_user *user;
	struct twheel_ctx *ctx;

	/* EMFILE when the user holds fs.twheel.max_user_fds fds already. */
	user = twheel_user_open();
	if (IS_ERR(user))
		return PTR_ERR(user);
	ctx = twheel_ctx_create(user, READ_ONCE(max_timers),
				TWHEEL_DEFAULT_TICK_NS);
	if (IS_ERR(ctx)) {
		twheel_user_close(user, 0);
		return PTR_ERR(ctx);
	}
	file->private_data = ctx;
	/* Reads honour IOCB_NOWAIT: io_uring tries them inline. */
	file->f_mode |= FMODE_NOWAIT;
	/* No position: read(2) takes no f_pos lock, pread(2) is ESPIPE. */
	return stream_open(inode, file);
}

static int twheel_release(struct inode *inode, struct file *file)
{
	twheel_ctx_destroy(file->private_data);
	return 0;
}

static long twheel_ioctl_list(struct twheel_ctx *ctx, void __user *uarg,
			      size_t usize, bool nowait)
{
	const size_t size = sizeof(struct twheel_status);
	struct twheel_status __user *ust;
	struct twheel_status *st;
	struct twheel_list req;
	u64 cursor, next;
	u32 count = 0, n;
	int ret;

	/* Chunks of wheel work and copies between them: io_uring's worker. */
	if (nowait)
		return -EAGAIN;

	ret = twheel_copy_in(&req, sizeof(req), uarg, usize,
			     TWHEEL_LIST_SIZE_VER2, true);
	if (ret)
		return ret;
	if (!req.capacity || req.status_size != size || req.flags)
		return -EINVAL;
	ust = u64_to_user_ptr(req.statuses);
	st = kmalloc_array(min_t(u32, req.capacity, TWHEEL_LIST_CHUNK), size,
			   TWHEEL_GFP);
	if (!st)
		return -ENOMEM;
	cursor = req.cursor;
	while (count < req.capacity) {
		next = cursor;
		n = twheel_ctx_list(ctx, &next, st,
				    min_t(u32, req.capacity - count,
					  TWHEEL_LIST_CHUNK));
		/* No lock is held here: this copy may wait for the page. */
		if (copy_to_user(&ust[count], st, n * size)) {
			kfree(st);
			return -EFAULT;
		}
		count += n;
		cursor = next;
		if (!cursor || fatal_signal_pending(current))
			break;
		cond_resched();
	}
	kfree(st);
	req.count = count;
	req.cursor = cursor;
	return twheel_copy_out(uarg, usize, &req, sizeof(req));
}

static long twheel_ioctl_config(struct twheel_ctx *ctx, void __user *uarg,
				size_t usize, bool nowait)
{
	struct twheel_config req;
	int ret;

	/* It may allocate a table and wait for the lock: io_uring's worker. */
	if (nowait)
		return -EAGAIN;

	ret = twheel_copy_in(&req, sizeof(req), uarg, usize,
			     TWHEEL_CONFIG_SIZE_VER2, false);
	if (ret)
		return ret;
	if (req.flags & ~(TWHEEL_CONFIG_MANUAL | TWHEEL_CONFIG_MAX_TIMERS |
			  TWHEEL_CONFIG_TABLE | TWHEEL_CONFIG_CLOCK_SET |
			  TWHEEL_CONFIG_RING) ||
	    req.__reserved ||
	    (!(req.flags & TWHEEL_CONFIG_MAX_TIMERS) && req.max_timers))
		return -EINVAL;
	return twheel_ctx_config(ctx, req.tick_ns, req.flags, req.max_timers);
}

/*
 * Called under the context's lock, before the manual clock moves: write
 * the result with page faults disabled, as twheel_single_out() does.
 */
static int twheel_advance_out(void *arg, s64 now_ns)
{
	struct twheel_single *s = arg;
	struct twheel_advance __user *uarg = s->uarg;
	int ret;

	if (should_fail_usercopy())
		return -EFAULT;
	pagefault_disable();
	ret = put_user(now_ns, &uarg->now_ns);
	pagefault_enable();
	return ret ? -EFAULT : 0;
}

static long twheel_ioctl_advance(struct twheel_ctx *ctx, void __user *uarg,
				 size_t usize, bool nowait)
{
	struct twheel_advance req;
	struct twheel_single s = {
		.uarg = uarg, .len = min(usize, sizeof(req)),
	};
	int ret;

	/* Every timer due is queued before it returns: io_uring's worker. */
	if (nowait)
		return -EAGAIN;

	ret = twheel_copy_in(&req, sizeof(req), uarg, usize,
			     TWHEEL_ADVANCE_SIZE_VER2, true);
	if (ret)
		return ret;
	if (req.flags || req.__reserved)
		return -EINVAL;
	/* The clock moves only once its new time is written. */
	do {
		ret = twheel_ctx_advance(ctx, req.delta_ns, twheel_advance_out,
					 &s);
	} while (ret == -EFAULT && !(ret = twheel_out_fault_in(uarg, s.len)));
	return ret;
}

static long twheel_ioctl_info(struct twheel_ctx *ctx, void __user *uarg,
			      size_t usize, bool nowait)
{
	struct twheel_info info;

	/* It waits for the lock and the wheels' update: io_uring's worker. */
	if (nowait)
		return -EAGAIN;

	if (usize < TWHEEL_INFO_SIZE_VER0)
		return -EINVAL;
	memset(&info, 0, sizeof(info));
	info.version = TWHEEL_ABI_VERSION;
	info.event_size = sizeof(struct twheel_event);
	info.features = TWHEEL_FEATURE_PERIODIC | TWHEEL_FEATURE_TIMENS |
			TWHEEL_FEATURE_MANUAL_CLOCK |
			TWHEEL_FEATURE_RELATIVE_WALL |
			TWHEEL_FEATURE_MISSED | TWHEEL_FEATURE_FD_MAX_TIMERS |
			TWHEEL_FEATURE_TABLE | TWHEEL_FEATURE_ALARM |
			TWHEEL_FEATURE_CLOCK_SET | TWHEEL_FEATURE_RING |
			(IS_ENABLED(CONFIG_IO_URING) ? TWHEEL_FEATURE_URING : 0);
	info.ioctls = BIT_ULL(_IOC_NR(TWHEEL_IOC_INFO)) |
		      BIT_ULL(_IOC_NR(TWHEEL_IOC_ADD)) |
		      BIT_ULL(_IOC_NR(TWHEEL_IOC_CANCEL)) |
		      BIT_ULL(_IOC_NR(TWHEEL_IOC_MODIFY)) |
		      BIT_ULL(_IOC_NR(TWHEEL_IOC_QUERY)) |
		      BIT_ULL(_IOC_NR(TWHEEL_IOC_LIST)) |
		      BIT_ULL(_IOC_NR(TWHEEL_IOC_SUBMIT)) |
		      BIT_ULL(_IOC_NR(TWHEEL_IOC_CONFIG)) |
		      BIT_ULL(_IOC_NR(TWHEEL_IOC_ADVANCE));
	info.clocks = BIT_ULL(CLOCK_MONOTONIC) | BIT_ULL(CLOCK_BOOTTIME) |
		      BIT_ULL(CLOCK_REALTIME) | BIT_ULL(CLOCK_TAI) |
		      BIT_ULL(CLOCK_REALTIME_ALARM) |
		      BIT_ULL(CLOCK_BOOTTIME_ALARM);
	info.min_tick_ns = TWHEEL_MIN_TICK_NS;
	info.max_tick_ns = TWHEEL_MAX_TICK_NS;
	info.op_size = sizeof(struct twheel_op);
	info.status_size = sizeof(struct twheel_status);
	info.max_batch = TWHEEL_MAX_BATCH;
	twheel_ctx_info(ctx, &info);
	return twheel_copy_out(uarg, usize, &info, sizeof(info));
}

/*
 * A command: its handler, and the direction its number must carry. With
 * nowait (io_uring's inline issue), the handler never sleeps: it does the
 * command, or nothing and returns -EAGAIN.
 */
struct twheel_cmd {
	long (*fn)(struct twheel_ctx *ctx, void __user *uarg, size_t usize,
		   bool nowait);
	unsigned int dir;
};

static const struct twheel_cmd twheel_cmds[] = {
	[_IOC_NR(TWHEEL_IOC_INFO)] = { twheel_ioctl_info, _IOC_READ },
	[_IOC_NR(TWHEEL_IOC_ADD)] = { twheel_ioctl_add, _IOC_READ | _IOC_WRITE },
	[_IOC_NR(TWHEEL_IOC_CANCEL)] = { twheel_ioctl_cancel,
					 _IOC_READ | _IOC_WRITE },
	[_IOC_NR(TWHEEL_IOC_MODIFY)] = { twheel_ioctl_modify,
					 _IOC_READ | _IOC_WRITE },
	[_IOC_NR(TWHEEL_IOC_QUERY)] = { twheel_ioctl_query,
					_IOC_READ | _IOC_WRITE },
	[_IOC_NR(TWHEEL_IOC_LIST)] = { twheel_ioctl_list,
				       _IOC_READ | _IOC_WRITE },
	[_IOC_NR(TWHEEL_IOC_SUBMIT)] = { twheel_ioctl_submit, _IOC_WRITE },
	[_IOC_NR(TWHEEL_IOC_CONFIG)] = { twheel_ioctl_config, _IOC_WRITE },
	[_IOC_NR(TWHEEL_IOC_ADVANCE)] = { twheel_ioctl_advance,
					  _IOC_READ | _IOC_WRITE },
};

/* A command of the ioctl ABI, from ioctl(2) or from io_uring. */
static long twheel_dispatch(struct twheel_ctx *ctx, unsigned int cmd,
			    void __user *uarg, bool nowait)
{
	const struct twheel_cmd *c;
	unsigned int nr = _IOC_NR(cmd);

	BUILD_BUG_ON(sizeof(struct twheel_info) != 112);
	BUILD_BUG_ON(sizeof(struct twheel_list) != TWHEEL_LIST_SIZE_VER2);
	BUILD_BUG_ON(sizeof(struct twheel_config) != 24);
	BUILD_BUG_ON(sizeof(struct twheel_advance) != TWHEEL_ADVANCE_SIZE_VER2);
	BUILD_BUG_ON(sizeof(struct twheel_event) != 40);
	BUILD_BUG_ON(sizeof(struct twheel_status) != 56);
	BUILD_BUG_ON(sizeof(struct twheel_uring_cmd) != 16);

	/* Dispatch on number and direction; the size may differ (above). */
	if (_IOC_TYPE(cmd) != TWHEEL_IOC_TYPE || nr >= ARRAY_SIZE(twheel_cmds))
		return -ENOTTY;
	c = &twheel_cmds[nr];
	if (!c->fn || _IOC_DIR(cmd) != c->dir)
		return -ENOTTY;
	return c->fn(ctx, uarg, _IOC_SIZE(cmd), nowait);
}

static long twheel_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	return twheel_dispatch(file->private_data, cmd, (void __user *)arg,
			       false);
}

/*
 * What an inline issue read from the SQE's command area, kept in the
 * command's private area for the worker's issue: some kernels (6.12.117
 * does) copy the SQE on -EAGAIN but leave ucmd->sqe pointing at its place
 * in the submission ring, which the user may have filled with another SQE
 * by then. @area is where it was read (NULL: nothing kept); the worker's
 * issue takes @arg and @reserved from here if it finds the command area
 * at that same place (where io_uring points it at its copy, it reads the
 * copy).
 */
struct twheel_uring_pdu {
	const struct twheel_uring_cmd *area;
	u64 arg;
	u64 reserved;
};

/*
 * IORING_OP_URING_CMD: sqe->cmd_op is a TWHEEL_IOC_* command, sqe->cmd a
 * struct twheel_uring_cmd naming its argument. Done as the ioctl, the
 * CQE's res what ioctl(2) would return and the results written into the
 * argument as the ioctl writes them. The inline issue (IO_URING_F_NONBLOCK,
 * under the ring's lock) never sleeps: a command that would wait for the
 * fd's lock or a page, or do more than one chunk of wheel work, is
 * -EAGAIN, nothing done, and io_uring issues it again from its worker
 * thread (without IO_URING_F_NONBLOCK), where it runs as ioctl(2) does.
 */
static int twheel_uring_cmd(struct io_uring_cmd *ucmd, unsigned int flags)
{
	const struct twheel_uring_cmd *area = twheel_uring_cmd_arg(ucmd);
	struct twheel_uring_pdu *pdu = (void *)ucmd->pdu;
	bool nowait = flags & IO_URING_F_NONBLOCK;
	u64 arg, reserved;
	long ret = -EINVAL;

	BUILD_BUG_ON(sizeof(*pdu) > sizeof(ucmd->pdu));
	if (!nowait && pdu->area == area) {
		arg = pdu->arg;
		reserved = pdu->reserved;
	} else {
		/* The SQE is in memory the user shares: each field read once. */
		arg = READ_ONCE(area->arg);
		reserved = READ_ONCE(area->__reserved);
	}
	pdu->area = NULL;
	if (!reserved)
		ret = twheel_dispatch(ucmd->file->private_data, ucmd->cmd_op,
				      u64_to_user_ptr(arg), nowait);
	if (ret == -EAGAIN && nowait) {
		*pdu = (struct twheel_uring_pdu){ area, arg, reserved };
		return -EAGAIN;
	}
	io_uring_cmd_done(ucmd, ret, 0, flags);
	return -EIOCBQUEUED;
}

/*
 * Called under the context's lock: records out, without faulting; all at
 * once, or on a fault as many whole ones as go (a record copied in part
 * is taken back from the iterator). Return: how many went, or -EFAULT
 * when none did.
 */
static int twheel_emit(void *arg, const struct twheel_event *ev, u32 n)
{
	const size_t size = sizeof(*ev);
	struct iov_iter *to = arg;
	size_t done;

	if (should_fail_usercopy())
		return -EFAULT;
	pagefault_disable();
	done = copy_to_iter(ev, n * size, to);
	pagefault_enable();
	if (done % size)
		iov_iter_revert(to, done % size);
	return done >= size ? done / size : -EFAULT;
}

/*
 * Make the place of the next record writable, holding no lock: by writing
 * zeroes there, as fault_in_writeable() does, so that the fault is the
 * user's own (a wait on userfaultfd is interruptible), then going back.
 * Return: true when the whole record's place is writable.
 */
static bool twheel_iter_fault_in(struct iov_iter *to, size_t size)
{
	static const struct twheel_event zero;
	size_t n;

	n = copy_to_iter(&zero, size, to);
	iov_iter_revert(to, n);
	return n == size;
}

/*
 * read(2), readv(2) and io_uring's reads: whole records, oldest first.
 * With IOCB_NOWAIT (io_uring's first, inline try; RWF_NOWAIT) nothing
 * sleeps: no record, the fd's lock taken, more than one chunk of wheel
 * work due, or a page to fault in, is EAGAIN (after the records copied
 * before it, if any), and io_uring then waits by poll rather than in a
 * worker thread.
 */
static ssize_t twheel_read_iter(struct kiocb *iocb, struct iov_iter *to)
{
	const size_t size = sizeof(struct twheel_event);
	struct file *file = iocb->ki_filp;
	struct twheel_ctx *ctx = file->private_data;
	bool nowait = (file->f_flags & O_NONBLOCK) ||
		      (iocb->ki_flags & IOCB_NOWAIT);
	u64 want = iov_iter_count(to) / size, done = 0;
	struct twheel_read rd = {};
	long n;
	int ret;

	if (!want)
		return -EINVAL;
	while (done < want) {
		/* No second record of a timer it took: see there. */
		n = twheel_ctx_read_in(ctx, &rd, want - done, twheel_emit, to,
				       iocb->ki_flags & IOCB_NOWAIT);
		if (n > 0) {
			done += n;
			/*
			 * With nothing queued and no hrtimer fired since, the
			 * next call would take the lock to find nothing.
			 */
			if (fatal_signal_pending(current) ||
			    (!twheel_ctx_readable(ctx) && !twheel_ctx_fired(ctx)))
				break;
			cond_resched();
			continue;
		}
		if (n == -EFAULT) {
			/*
			 * The record stays queued. Fault its place in with no
			 * lock held (this may wait long: userfaultfd, FUSE),
			 * then try again; with IOCB_NOWAIT, leave that to a
			 * caller that may wait.
			 */
			if (iocb->ki_flags & IOCB_NOWAIT)
				return done ? done * size : -EAGAIN;
			if (twheel_iter_fault_in(to, size))
				continue;
			if (done)
				break;
			return signal_pending(current) ? -ERESTARTSYS : -EFAULT;
		}
		if (done)
			break;
		/* -EAGAIN: the lock, or wheel work, with IOCB_NOWAIT. */
		if (nowait || n == -EAGAIN)
			return -EAGAIN;
		/* Woken by a record, or by an hrtimer: then advance (above). */
		ret = wait_event_interruptible(*twheel_ctx_wqh(ctx),
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

	poll_wait(file, twheel_ctx_wqh(ctx), wait);
	/*
	 * Exact: readable only with a record queued, or one in the ring.
	 * After an hrtimer fired, advance the wheels (in this task) until a
	 * record is queued or nothing more is due; fill the ring.
	 */
	return twheel_ctx_poll(ctx) ? EPOLLIN | EPOLLRDNORM : 0;
}

/*
 * A page of the shared timer table or of the record ring, on first touch.
 * The mapping holds the file, so the context outlives it; the page is the
 * table's or the ring's own (never page cache), kept in the mapping with
 * the reference taken here.
 */
static vm_fault_t twheel_table_fault(struct vm_fault *vmf)
{
	struct twheel_ctx *ctx = vmf->vma->vm_file->private_data;
	struct page *page;

	page = twheel_ctx_map_page(ctx, vmf->pgoff);
	if (!page)
		return VM_FAULT_SIGBUS;
	vmf->page = page;
	return 0;
}

static const struct vm_operations_struct twheel_table_vm_ops = {
	.fault = twheel_table_fault,
	/* A store does not stamp /dev/twheel's times (see the function). */
	.page_mkwrite = twheel_table_page_mkwrite,
};

/*
 * The shared timer table (offset 0) and the record ring (at
 * TWHEEL_RING_OFFSET): MAP_SHARED, readable and writable, never
 * executable (nor made so later), never grown by mremap(), not dumped.
 */
static int twheel_mmap(struct file *file, struct vm_area_struct *vma)
{
	int ret;

	if (!(vma->vm_flags & VM_SHARED))
		return -EINVAL;
	if (vma->vm_flags & VM_EXEC)
		return -EPERM;
	ret = twheel_ctx_mmap(file->private_data, vma->vm_pgoff,
			      vma_pages(vma));
	if (ret)
		return ret;
	twheel_vm_flags_mod(vma, VM_DONTEXPAND | VM_DONTDUMP, VM_MAYEXEC);
	vma->vm_ops = &twheel_table_vm_ops;
	return 0;
}

static void twheel_show_fdinfo(struct seq_file *m, struct file *file)
{
	twheel_ctx_show(file->private_data, m);
}

const struct file_operations twheel_fops = {
	.owner = THIS_MODULE,
	.open = twheel_open,
	.release = twheel_release,
	.read_iter = twheel_read_iter,
	.poll = twheel_poll,
	.mmap = twheel_mmap,
	.unlocked_ioctl = twheel_ioctl,
	.uring_cmd = twheel_uring_cmd,
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
	int ret;

	ret = twheel_ctx_cache_init();
	if (ret)
		return ret;
	ret = twheel_user_init();
	if (ret)
		twheel_ctx_cache_exit();
	return ret;
}

/**
 * twheel_dev_exit() - tear down what twheel_dev_init() set up
 */
void twheel_dev_exit(void)
{
	twheel_user_exit();
	twheel_ctx_cache_exit();
}
