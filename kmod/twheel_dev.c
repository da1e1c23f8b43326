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
#define TWHEEL_INFO_SIZE_VER0		40
#define TWHEEL_ADD_SIZE_VER2		40
#define TWHEEL_CANCEL_SIZE_VER0		16
#define TWHEEL_MODIFY_SIZE_VER2		40
#define TWHEEL_QUERY_SIZE_VER2		72
#define TWHEEL_LIST_SIZE_VER2		32
#define TWHEEL_SUBMIT_SIZE_VER2		24
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
 * have an all-zero tail (E2BIG otherwise). For a command that writes
 * results (@out), that tail is written back as zeroes before anything
 * changes, so that it is zero afterwards whatever another thread stored
 * meanwhile, and so that the results can be written with page faults
 * disabled (see twheel_out_fault_in()). A write-only command writes
 * nothing: its struct may be in read-only memory.
 */
static int twheel_copy_in(void *karg, size_t ksize, void __user *uarg,
			  size_t usize, size_t minsize, bool out)
{
	int ret;

	if (usize < minsize)
		return -EINVAL;
	ret = copy_struct_from_user(karg, ksize, uarg, usize);
	if (ret)
		return ret;
	if (out && usize > ksize && clear_user(uarg + ksize, usize - ksize))
		return -EFAULT;
	return 0;
}

/* Write back as many bytes as the caller's struct has; zero any tail. */
static int twheel_copy_out(void __user *uarg, size_t usize, const void *karg,
			   size_t ksize)
{
	if (copy_to_user(uarg, karg, min(usize, ksize)))
		return -EFAULT;
	if (usize > ksize && clear_user(uarg + ksize, usize - ksize))
		return -EFAULT;
	return 0;
}

/*
 * After a copy with page faults disabled failed (and the operation was
 * undone): make @len bytes at @uarg writable, holding no lock, without
 * writing to them (fault_in_writeable() would store zeroes: the caller's
 * input must stay as given until its result is written). Return: 0 to
 * try again, or the error to give up with.
 */
static int twheel_out_fault_in(void __user *uarg, size_t len)
{
	if (fatal_signal_pending(current))
		return -EINTR;
	if (fault_in_safe_writeable(uarg, len))
		return -EFAULT;
	return 0;
}

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
 * Called under the context's lock: write without waiting for a page fault
 * (a fault on userfaultfd or FUSE memory may never resolve). On -EFAULT
 * the operation is undone; the caller faults the page in with no lock
 * held and tries again. A failed operation writes nothing back.
 */
static int twheel_single_out(void *arg, u32 i, const struct twheel_op *op)
{
	struct twheel_single *s = arg;
	int ret;

	if (op->error)
		return 0;
	if (should_fail_usercopy())
		return -EFAULT;
	pagefault_disable();
	ret = s->put(s->uarg, op);
	pagefault_enable();
	return ret ? -EFAULT : 0;
}

/* One operation for a single-operation ioctl. Return: its errno, or 0. */
static long twheel_single(struct twheel_ctx *ctx, const struct twheel_op *op,
			  struct twheel_single *s)
{
	struct twheel_op work;
	int err;

	for (;;) {
		work = *op;
		err = 0;
		if (twheel_ctx_submit(ctx, &work, 1, twheel_single_out, s,
				      &err) == 1)
			return work.error;
		err = twheel_out_fault_in(s->uarg, s->len);
		if (err)
			return err;
	}
}

static int twheel_put_add(void __user *uarg, const struct twheel_op *op)
{
	return put_user(op->id, &((struct twheel_add __user *)uarg)->id);
}

static long twheel_ioctl_add(struct twheel_ctx *ctx, void __user *uarg,
			     size_t usize)
{
	struct twheel_add req;
	struct twheel_single s = {
		.uarg = uarg, .len = min(usize, sizeof(req)),
		.put = twheel_put_add,
	};
	struct twheel_op op = { .op = TWHEEL_OP_ADD };
	int ret;

	ret = twheel_copy_in(&req, sizeof(req), uarg, usize,
			     TWHEEL_ADD_SIZE_VER2, true);
	if (ret)
		return ret;
	op.flags = req.flags;
	op.cookie = req.cookie;
	op.expires_ns = req.expires_ns;
	op.period_ns = req.period_ns;
	op.clock = req.clock;
	return twheel_single(ctx, &op, &s);
}

static int twheel_put_modify(void __user *uarg, const struct twheel_op *op)
{
	return put_user(op->result,
			&((struct twheel_modify __user *)uarg)->result);
}

static long twheel_ioctl_modify(struct twheel_ctx *ctx, void __user *uarg,
				size_t usize)
{
	struct twheel_modify req;
	struct twheel_single s = {
		.uarg = uarg, .len = min(usize, sizeof(req)),
		.put = twheel_put_modify,
	};
	struct twheel_op op = { .op = TWHEEL_OP_MODIFY };
	int ret;

	ret = twheel_copy_in(&req, sizeof(req), uarg, usize,
			     TWHEEL_MODIFY_SIZE_VER2, true);
	if (ret)
		return ret;
	op.id = req.id;
	op.flags = req.flags;
	op.cookie = req.cookie;
	op.expires_ns = req.expires_ns;
	op.period_ns = req.period_ns;
	return twheel_single(ctx, &op, &s);
}

static int twheel_put_cancel(void __user *uarg, const struct twheel_op *op)
{
	return put_user(op->result,
			&((struct twheel_cancel __user *)uarg)->result);
}

static long twheel_ioctl_cancel(struct twheel_ctx *ctx, void __user *uarg,
				size_t usize)
{
	struct twheel_cancel req;
	struct twheel_single s = {
		.uarg = uarg, .len = min(usize, sizeof(req)),
		.put = twheel_put_cancel,
	};
	struct twheel_op op = { .op = TWHEEL_OP_CANCEL };
	int ret;

	ret = twheel_copy_in(&req, sizeof(req), uarg, usize,
			     TWHEEL_CANCEL_SIZE_VER0, true);
	if (ret)
		return ret;
	op.id = req.id;
	op.flags = req.flags;
	/* The timer is cancelled only once its outcome is written. */
	return twheel_single(ctx, &op, &s);
}

static int twheel_put_query(void __user *uarg, const struct twheel_op *op)
{
	struct twheel_status st = {
		.id = op->id,
		.cookie = op->cookie,
		.deadline_ns = op->expires_ns,
		.period_ns = op->period_ns,
		.count = op->count,
		.remaining_ns = op->remaining_ns,
		.clock = op->clock,
		.state = op->result,
	};

	return copy_to_user_nofault(&((struct twheel_query __user *)uarg)->status,
				    &st, sizeof(st));
}

static long twheel_ioctl_query(struct twheel_ctx *ctx, void __user *uarg,
			       size_t usize)
{
	struct twheel_query req;
	struct twheel_single s = {
		.uarg = uarg, .len = min(usize, sizeof(req)),
		.put = twheel_put_query,
	};
	struct twheel_op op = { .op = TWHEEL_OP_QUERY };
	int ret;

	ret = twheel_copy_in(&req, sizeof(req), uarg, usize,
			     TWHEEL_QUERY_SIZE_VER2, true);
	if (ret)
		return ret;
	op.id = req.id;
	op.flags = req.flags;
	op.__reserved = req.__reserved;
	return twheel_single(ctx, &op, &s);
}

/*
 * Arrays of operations and records are read and written field by field: a
 * few word loads and stores cost less than a byte-string copy of each
 * whole struct, and the kernel side needs no bounds check at run time.
 * Where the caller's array is misaligned and the architecture cannot
 * access it so, whole structs are copied instead. Like the copy routines,
 * these accesses honour fail_usercopy fault injection.
 */
static bool twheel_by_field(const void __user *p)
{
	return IS_ENABLED(CONFIG_HAVE_EFFICIENT_UNALIGNED_ACCESS) ||
	       IS_ALIGNED((unsigned long)p, sizeof(u64));
}

/*
 * Read @n operations, their outputs cleared. Return: how many were read
 * whole.
 */
static u32 twheel_ops_read(struct twheel_op *ops,
			   const struct twheel_op __user *uops, u32 n)
{
	size_t left;
	u32 i = 0;

	if (!twheel_by_field(uops)) {
		left = copy_from_user(ops, uops, n * sizeof(*ops));
		return n - DIV_ROUND_UP(left, sizeof(*ops));
	}
	if (should_fail_usercopy() ||
	    !user_access_begin(uops, n * sizeof(*uops)))
		return 0;
	for (; i < n; i++) {
		const struct twheel_op __user *u = &uops[i];
		struct twheel_op *op = &ops[i];

		unsafe_get_user(op->op, &u->op, fault);
		unsafe_get_user(op->flags, &u->flags, fault);
		unsafe_get_user(op->id, &u->id, fault);
		unsafe_get_user(op->cookie, &u->cookie, fault);
		unsafe_get_user(op->expires_ns, &u->expires_ns, fault);
		unsafe_get_user(op->period_ns, &u->period_ns, fault);
		unsafe_get_user(op->clock, &u->clock, fault);
		unsafe_get_user(op->__reserved, &u->__reserved, fault);
		op->error = 0;
		op->result = 0;
		op->count = 0;
		op->remaining_ns = 0;
	}
fault:
	user_access_end();
	return i;
}

/*
 * Write the outputs of @op (see struct twheel_op) into @u, whose other
 * fields keep what the caller gave. Called under the context's lock, with
 * page faults disabled. Return: 0, or -EFAULT.
 */
static int twheel_op_write(struct twheel_op __user *u,
			   const struct twheel_op *op)
{
	if (!twheel_by_field(u))
		return copy_to_user_nofault(u, op, sizeof(*op)) ? -EFAULT : 0;
	if (should_fail_usercopy() || !user_access_begin(u, sizeof(*u)))
		return -EFAULT;
	if (op->op == TWHEEL_OP_ADD)
		unsafe_put_user(op->id, &u->id, fault);
	if (op->op == TWHEEL_OP_QUERY) {
		unsafe_put_user(op->cookie, &u->cookie, fault);
		unsafe_put_user(op->expires_ns, &u->expires_ns, fault);
		unsafe_put_user(op->period_ns, &u->period_ns, fault);
		unsafe_put_user(op->clock, &u->clock, fault);
	}
	unsafe_put_user(op->error, &u->error, fault);
	unsafe_put_user(op->result, &u->result, fault);
	unsafe_put_user(op->count, &u->count, fault);
	unsafe_put_user(op->remaining_ns, &u->remaining_ns, fault);
	user_access_end();
	return 0;
fault:
	user_access_end();
	return -EFAULT;
}

/**
 * struct twheel_batch - where TWHEEL_IOC_SUBMIT writes results back
 * @uops: the caller's operation array, from the first of this chunk
 */
struct twheel_batch {
	struct twheel_op __user *uops;
};

/* Called under the context's lock: as twheel_single_out(), every result. */
static int twheel_batch_out(void *arg, u32 i, const struct twheel_op *op)
{
	struct twheel_batch *b = arg;
	int ret;

	pagefault_disable();
	ret = twheel_op_write(&b->uops[i], op);
	pagefault_enable();
	return ret;
}

static long twheel_ioctl_submit(struct twheel_ctx *ctx, void __user *uarg,
				size_t usize)
{
	const size_t size = sizeof(struct twheel_op);
	struct twheel_op __user *uops;
	struct twheel_submit sub;
	u32 done = 0, have = 0, k;
	struct twheel_batch b;
	struct twheel_op *ops;
	int ret;

	ret = twheel_copy_in(&sub, sizeof(sub), uarg, usize,
			     TWHEEL_SUBMIT_SIZE_VER2, false);
	if (ret)
		return ret;
	/* Checked before anything is allocated. */
	if (sub.nr > TWHEEL_MAX_BATCH || sub.op_size != size || sub.flags ||
	    sub.__reserved)
		return -EINVAL;
	if (!sub.nr)
		return 0;
	uops = u64_to_user_ptr(sub.ops);
	/* The fd's spare buffer, unless another call has it. */
	ops = xchg(&ctx->spare_ops, NULL);
	if (!ops) {
		ops = kmalloc_array(TWHEEL_SUBMIT_CHUNK, size, TWHEEL_GFP);
		if (!ops)
			return -ENOMEM;
	}
	/*
	 * ops[0..have) are the operations from uops[done] on, read and not
	 * done yet. One whose result could not be written is kept here, its
	 * inputs intact, and done again from this copy once its place is
	 * faulted in: the caller's copy is not read twice.
	 */
	while (done < sub.nr) {
		if (!have) {
			/* Whole operations only: stop before one not read. */
			have = twheel_ops_read(ops, &uops[done],
					       min_t(u32, sub.nr - done,
						     TWHEEL_SUBMIT_CHUNK));
			if (!have)
				break;
		}
		b.uops = &uops[done];
		ret = 0;
		k = twheel_ctx_submit(ctx, ops, have, twheel_batch_out, &b, &ret);
		done += k;
		have -= k;
		if (have) {
			memmove(ops, &ops[k], have * size);
			if (twheel_out_fault_in(&uops[done], size))
				break;
		}
		if (fatal_signal_pending(current))
			break;
	}
	/* Kept for the next call, unless another was kept meanwhile. */
	if (cmpxchg(&ctx->spare_ops, NULL, ops))
		kfree(ops);
	return done ? done : -EFAULT;
}

static long twheel_ioctl_list(struct twheel_ctx *ctx, void __user *uarg,
			      size_t usize)
{
	const size_t size = sizeof(struct twheel_status);
	struct twheel_status __user *ust;
	struct twheel_status *st;
	struct twheel_list req;
	u64 cursor, next;
	u32 count = 0, n;
	int ret;

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
				size_t usize)
{
	struct twheel_config req;
	int ret;

	ret = twheel_copy_in(&req, sizeof(req), uarg, usize,
			     TWHEEL_CONFIG_SIZE_VER2, false);
	if (ret)
		return ret;
	if (req.flags & ~TWHEEL_CONFIG_MANUAL || req.__reserved)
		return -EINVAL;
	return twheel_ctx_config(ctx, req.tick_ns,
				 req.flags & TWHEEL_CONFIG_MANUAL);
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
				 size_t usize)
{
	struct twheel_advance req;
	struct twheel_single s = {
		.uarg = uarg, .len = min(usize, sizeof(req)),
	};
	int ret;

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
			      size_t usize)
{
	struct twheel_info info;

	if (usize < TWHEEL_INFO_SIZE_VER0)
		return -EINVAL;
	memset(&info, 0, sizeof(info));
	info.version = TWHEEL_ABI_VERSION;
	info.event_size = sizeof(struct twheel_event);
	info.features = TWHEEL_FEATURE_PERIODIC | TWHEEL_FEATURE_TIMENS |
			TWHEEL_FEATURE_MANUAL_CLOCK |
			TWHEEL_FEATURE_RELATIVE_WALL;
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
		      BIT_ULL(CLOCK_REALTIME) | BIT_ULL(CLOCK_TAI);
	info.min_tick_ns = TWHEEL_MIN_TICK_NS;
	info.max_tick_ns = TWHEEL_MAX_TICK_NS;
	info.op_size = sizeof(struct twheel_op);
	info.status_size = sizeof(struct twheel_status);
	info.max_batch = TWHEEL_MAX_BATCH;
	twheel_ctx_info(ctx, &info);
	return twheel_copy_out(uarg, usize, &info, sizeof(info));
}

/* A command: its handler, and the direction its number must carry. */
struct twheel_cmd {
	long (*fn)(struct twheel_ctx *ctx, void __user *uarg, size_t usize);
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

static long twheel_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct twheel_ctx *ctx = file->private_data;
	const struct twheel_cmd *c;
	unsigned int nr = _IOC_NR(cmd);

	BUILD_BUG_ON(sizeof(struct twheel_info) != 96);
	BUILD_BUG_ON(sizeof(struct twheel_add) != TWHEEL_ADD_SIZE_VER2);
	BUILD_BUG_ON(sizeof(struct twheel_cancel) != TWHEEL_CANCEL_SIZE_VER0);
	BUILD_BUG_ON(sizeof(struct twheel_modify) != TWHEEL_MODIFY_SIZE_VER2);
	BUILD_BUG_ON(sizeof(struct twheel_query) != TWHEEL_QUERY_SIZE_VER2);
	BUILD_BUG_ON(sizeof(struct twheel_list) != TWHEEL_LIST_SIZE_VER2);
	BUILD_BUG_ON(sizeof(struct twheel_submit) != TWHEEL_SUBMIT_SIZE_VER2);
	BUILD_BUG_ON(sizeof(struct twheel_config) != TWHEEL_CONFIG_SIZE_VER2);
	BUILD_BUG_ON(sizeof(struct twheel_advance) != TWHEEL_ADVANCE_SIZE_VER2);
	BUILD_BUG_ON(sizeof(struct twheel_event) != 40);
	BUILD_BUG_ON(sizeof(struct twheel_status) != 56);
	BUILD_BUG_ON(sizeof(struct twheel_op) != 72);
	BUILD_BUG_ON(offsetof(struct twheel_query, status) != 16);

	/* Dispatch on number and direction; the size may differ (above). */
	if (_IOC_TYPE(cmd) != TWHEEL_IOC_TYPE || nr >= ARRAY_SIZE(twheel_cmds))
		return -ENOTTY;
	c = &twheel_cmds[nr];
	if (!c->fn || _IOC_DIR(cmd) != c->dir)
		return -ENOTTY;
	return c->fn(ctx, (void __user *)arg, _IOC_SIZE(cmd));
}

/*
 * Called under the context's lock: records out, without faulting; all at
 * once, or on a fault as many whole ones as go. Return: how many went, or
 * -EFAULT when none did.
 */
static int twheel_emit(void *arg, const struct twheel_event *ev, u32 n)
{
	struct twheel_event __user **pos = arg;
	struct twheel_event __user *u = *pos;
	u32 i = 0;

	if (!twheel_by_field(u)) {
		for (; i < n; i++, u++)
			if (copy_to_user_nofault(u, &ev[i], sizeof(*u)))
				break;
		goto out;
	}
	if (should_fail_usercopy())
		return -EFAULT;
	pagefault_disable();
	if (!user_access_begin(u, n * sizeof(*u))) {
		pagefault_enable();
		return -EFAULT;
	}
	for (; i < n; i++, u++) {
		unsafe_put_user(ev[i].id, &u->id, fault);
		unsafe_put_user(ev[i].cookie, &u->cookie, fault);
		unsafe_put_user(ev[i].time_ns, &u->time_ns, fault);
		unsafe_put_user(ev[i].count, &u->count, fault);
		unsafe_put_user(ev[i].clock, &u->clock, fault);
		unsafe_put_user(ev[i].flags, &u->flags, fault);
	}
fault:
	user_access_end();
	pagefault_enable();
out:
	*pos = u;
	return i ? i : -EFAULT;
}

static ssize_t twheel_read(struct file *file, char __user *buf, size_t count,
			   loff_t *ppos)
{
	const size_t size = sizeof(struct twheel_event);
	struct twheel_ctx *ctx = file->private_data;
	struct twheel_event __user *pos = (struct twheel_event __user *)buf;
	u64 want = count / size, done = 0;
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
			if (!fault_in_writeable((char __user *)pos, size))
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
