// SPDX-License-Identifier: GPL-2.0
/*
 * twheel_uops.c - the user copies of the device: argument structs in and
 * out (for every ioctl), and the operations on timers as the ABI carries
 * them: TWHEEL_IOC_ADD, MODIFY, CANCEL and QUERY, one struct each, and
 * TWHEEL_IOC_SUBMIT's array of struct twheel_op, read and written field
 * by field.
 *
 * The device layer, with twheel_dev.c, which dispatches here. No copy
 * waits on a page fault while the set's lock is held: results written
 * under it are copied with page faults disabled, and on a fault the
 * operation is undone, the page faulted in with no lock held, and the
 * call retried. With @nowait (io_uring's inline issue) nothing sleeps:
 * copies do not wait for a page, the lock is only tried, and what would
 * wait is -EAGAIN, for io_uring to do the call again in its worker.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/build_bug.h>
#include <linux/fault-inject-usercopy.h>
#include <linux/minmax.h>
#include <linux/pagemap.h>
#include <linux/sched/signal.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include "twheel_ctx.h"
#include "twheel_uops.h"

/* The first published size of each argument: smaller ones are EINVAL. */
#define TWHEEL_ADD_SIZE_VER2		40
#define TWHEEL_CANCEL_SIZE_VER0		16
#define TWHEEL_MODIFY_SIZE_VER2		40
#define TWHEEL_QUERY_SIZE_VER2		72
#define TWHEEL_SUBMIT_SIZE_VER2		24

static_assert(sizeof(struct twheel_add) == TWHEEL_ADD_SIZE_VER2);
static_assert(sizeof(struct twheel_cancel) == TWHEEL_CANCEL_SIZE_VER0);
static_assert(sizeof(struct twheel_modify) == TWHEEL_MODIFY_SIZE_VER2);
static_assert(sizeof(struct twheel_query) == TWHEEL_QUERY_SIZE_VER2);
static_assert(sizeof(struct twheel_submit) == TWHEEL_SUBMIT_SIZE_VER2);
static_assert(sizeof(struct twheel_op) == 72);
static_assert(offsetof(struct twheel_query, status) == 16);

/**
 * __twheel_copy_in() - copy an ioctl's argument struct in
 * @karg: the kernel's struct
 * @ksize: its size
 * @uarg: the caller's struct
 * @usize: its size, from the command number
 * @minsize: the first published size: smaller ones are EINVAL
 * @out: the command writes results back
 *
 * An argument struct of @usize bytes (from the command number) into one of
 * @ksize: an older, smaller one is zero-extended, a newer, larger one must
 * have an all-zero tail (E2BIG otherwise). For a command that writes
 * results (@out), that tail is written back as zeroes before anything
 * changes, so that it is zero afterwards whatever another thread stored
 * meanwhile, and so that the results can be written with page faults
 * disabled (see twheel_out_fault_in()). A write-only command writes
 * nothing: its struct may be in read-only memory.
 *
 * Return: 0 or a negative errno.
 */
int __twheel_copy_in(void *karg, size_t ksize, void __user *uarg,
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

/**
 * twheel_copy_out() - copy an ioctl's results out
 * @uarg: the caller's struct
 * @usize: its size, from the command number
 * @karg: the kernel's struct
 * @ksize: its size
 *
 * Writes back as many bytes as the caller's struct has; zeroes any tail.
 *
 * Return: 0 or -EFAULT.
 */
int twheel_copy_out(void __user *uarg, size_t usize, const void *karg,
		    size_t ksize)
{
	if (copy_to_user(uarg, karg, min(usize, ksize)))
		return -EFAULT;
	if (usize > ksize && clear_user(uarg + ksize, usize - ksize))
		return -EFAULT;
	return 0;
}

/**
 * twheel_out_fault_in() - make results' place writable, holding no lock
 * @uarg: where the results go
 * @len: their size
 *
 * After a copy with page faults disabled failed (and the operation was
 * undone): make @len bytes at @uarg writable, holding no lock, without
 * writing to them (fault_in_writeable() would store zeroes: the caller's
 * input must stay as given until its result is written).
 *
 * Return: 0 to try again, or the error to give up with.
 */
int twheel_out_fault_in(void __user *uarg, size_t len)
{
	if (fatal_signal_pending(current))
		return -EINTR;
	if (fault_in_safe_writeable(uarg, len))
		return -EFAULT;
	return 0;
}

/*
 * twheel_copy_in(); with @nowait without waiting for a page: one not in
 * memory is -EAGAIN.
 */
static __always_inline int twheel_args_in(void *karg, size_t ksize,
					  void __user *uarg, size_t usize,
					  size_t minsize, bool out,
					  bool nowait)
{
	int ret;

	if (!nowait)
		return twheel_copy_in(karg, ksize, uarg, usize, minsize, out);
	pagefault_disable();
	ret = twheel_copy_in(karg, ksize, uarg, usize, minsize, out);
	pagefault_enable();
	return ret == -EFAULT ? -EAGAIN : ret;
}

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

/*
 * One operation for a single-operation ioctl. Return: its errno, or 0;
 * with @nowait, -EAGAIN (nothing done) where it would wait.
 */
static long twheel_single(struct twheel_ctx *ctx, const struct twheel_op *op,
			  struct twheel_single *s, bool nowait)
{
	struct twheel_op work;
	int err;

	if (nowait) {
		work = *op;
		err = 0;
		/* Not done: the lock was taken, or the result's page absent. */
		if (twheel_ctx_submit_nowait(ctx, &work, 1, twheel_single_out,
					     s, &err) != 1)
			return -EAGAIN;
		return work.error;
	}
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

/**
 * twheel_ioctl_add() - TWHEEL_IOC_ADD
 * @ctx: the fd's timer set
 * @uarg: the caller's struct twheel_add
 * @usize: its size, from the command number
 * @nowait: never sleep: -EAGAIN where it would (nothing done)
 *
 * Return: 0 or a negative errno.
 */
long twheel_ioctl_add(struct twheel_ctx *ctx, void __user *uarg,
		      size_t usize, bool nowait)
{
	struct twheel_add req;
	struct twheel_single s = {
		.uarg = uarg, .len = min(usize, sizeof(req)),
		.put = twheel_put_add,
	};
	struct twheel_op op = { .op = TWHEEL_OP_ADD };
	int ret;

	ret = twheel_args_in(&req, sizeof(req), uarg, usize,
			     TWHEEL_ADD_SIZE_VER2, true, nowait);
	if (ret)
		return ret;
	op.flags = req.flags;
	op.cookie = req.cookie;
	op.expires_ns = req.expires_ns;
	op.period_ns = req.period_ns;
	op.clock = req.clock;
	return twheel_single(ctx, &op, &s, nowait);
}

/*
 * TWHEEL_IOC_MODIFY's struct as the kernel knows it, by field (see
 * twheel_by_field()); with @nowait without waiting for a page (-EAGAIN).
 * Return: 0 or -EFAULT.
 */
static int twheel_modify_read(struct twheel_op *op,
			      const struct twheel_modify __user *u, bool nowait)
{
	u32 result __maybe_unused;
	int ret = -EFAULT;

	if (nowait)
		pagefault_disable();
	if (should_fail_usercopy() || !user_access_begin(u, sizeof(*u)))
		goto out;
	unsafe_get_user(op->id, &u->id, fault);
	unsafe_get_user(op->cookie, &u->cookie, fault);
	unsafe_get_user(op->expires_ns, &u->expires_ns, fault);
	unsafe_get_user(op->period_ns, &u->period_ns, fault);
	unsafe_get_user(op->flags, &u->flags, fault);
	/* Out, but read as the rest: an unreadable struct is EFAULT whole. */
	unsafe_get_user(result, &u->result, fault);
	ret = 0;
fault:
	user_access_end();
out:
	if (nowait) {
		pagefault_enable();
		if (ret)
			ret = -EAGAIN;
	}
	return ret;
}

static int twheel_put_modify(void __user *uarg, const struct twheel_op *op)
{
	return put_user(op->result,
			&((struct twheel_modify __user *)uarg)->result);
}

/**
 * twheel_ioctl_modify() - TWHEEL_IOC_MODIFY
 * @ctx: the fd's timer set
 * @uarg: the caller's struct twheel_modify
 * @usize: its size, from the command number
 * @nowait: never sleep: -EAGAIN where it would (nothing done)
 *
 * Return: 0 or a negative errno.
 */
long twheel_ioctl_modify(struct twheel_ctx *ctx, void __user *uarg,
			 size_t usize, bool nowait)
{
	struct twheel_modify req;
	struct twheel_single s = {
		.uarg = uarg, .len = min(usize, sizeof(req)),
		.put = twheel_put_modify,
	};
	struct twheel_op op = { .op = TWHEEL_OP_MODIFY };
	u32 __user *result = &((struct twheel_modify __user *)uarg)->result;
	long ret;

	if (usize == sizeof(req) && twheel_by_field(uarg)) {
		ret = twheel_modify_read(&op, uarg, nowait);
		if (ret)
			return ret;
	} else {
		ret = twheel_args_in(&req, sizeof(req), uarg, usize,
				     TWHEEL_MODIFY_SIZE_VER2, true, nowait);
		if (ret)
			return ret;
		op.id = req.id;
		op.flags = req.flags;
		op.cookie = req.cookie;
		op.expires_ns = req.expires_ns;
		op.period_ns = req.period_ns;
	}
	/* A period may need memory; io_uring's inline issue may not wait. */
	if (op.period_ns || nowait)
		return twheel_single(ctx, &op, &s, nowait);
	while ((ret = twheel_ctx_modify(ctx, &op, result)) == -EFAULT) {
		ret = twheel_out_fault_in(result, sizeof(*result));
		if (ret)
			break;
	}
	return ret;
}

static int twheel_put_cancel(void __user *uarg, const struct twheel_op *op)
{
	return put_user(op->result,
			&((struct twheel_cancel __user *)uarg)->result);
}

/**
 * twheel_ioctl_cancel() - TWHEEL_IOC_CANCEL
 * @ctx: the fd's timer set
 * @uarg: the caller's struct twheel_cancel
 * @usize: its size, from the command number
 * @nowait: never sleep: -EAGAIN where it would (nothing done)
 *
 * Return: 0 or a negative errno.
 */
long twheel_ioctl_cancel(struct twheel_ctx *ctx, void __user *uarg,
			 size_t usize, bool nowait)
{
	struct twheel_cancel req;
	struct twheel_single s = {
		.uarg = uarg, .len = min(usize, sizeof(req)),
		.put = twheel_put_cancel,
	};
	struct twheel_op op = { .op = TWHEEL_OP_CANCEL };
	int ret;

	ret = twheel_args_in(&req, sizeof(req), uarg, usize,
			     TWHEEL_CANCEL_SIZE_VER0, true, nowait);
	if (ret)
		return ret;
	op.id = req.id;
	op.flags = req.flags;
	/* The timer is cancelled only once its outcome is written. */
	return twheel_single(ctx, &op, &s, nowait);
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

/**
 * twheel_ioctl_query() - TWHEEL_IOC_QUERY
 * @ctx: the fd's timer set
 * @uarg: the caller's struct twheel_query
 * @usize: its size, from the command number
 * @nowait: never sleep: -EAGAIN where it would (nothing done)
 *
 * Return: 0 or a negative errno.
 */
long twheel_ioctl_query(struct twheel_ctx *ctx, void __user *uarg,
			size_t usize, bool nowait)
{
	struct twheel_query req;
	struct twheel_single s = {
		.uarg = uarg, .len = min(usize, sizeof(req)),
		.put = twheel_put_query,
	};
	struct twheel_op op = { .op = TWHEEL_OP_QUERY };
	int ret;

	ret = twheel_args_in(&req, sizeof(req), uarg, usize,
			     TWHEEL_QUERY_SIZE_VER2, true, nowait);
	if (ret)
		return ret;
	op.id = req.id;
	op.flags = req.flags;
	op.__reserved = req.__reserved;
	return twheel_single(ctx, &op, &s, nowait);
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

/* TWHEEL_IOC_SUBMIT of @nr operations, never sleeping (see below). */
static long twheel_submit_nowait(struct twheel_ctx *ctx,
				 struct twheel_op __user *uops, u32 nr)
{
	struct twheel_batch b = { .uops = uops };
	struct twheel_op op;
	unsigned long left;
	int err = 0;

	if (nr > 1)
		return -EAGAIN;
	pagefault_disable();
	left = copy_from_user(&op, uops, sizeof(op));
	pagefault_enable();
	if (left)
		return -EAGAIN;
	op.error = 0;
	op.result = 0;
	op.count = 0;
	op.remaining_ns = 0;
	if (twheel_ctx_submit_nowait(ctx, &op, 1, twheel_batch_out, &b,
				     &err) != 1)
		return -EAGAIN;
	return 1;
}

/**
 * twheel_ioctl_submit() - TWHEEL_IOC_SUBMIT
 * @ctx: the fd's timer set
 * @uarg: the caller's struct twheel_submit
 * @usize: its size, from the command number
 * @nowait: never sleep: -EAGAIN (nothing done) where it would, and for a
 *          batch of more than one operation (done in one hold of the lock
 *          it might stop after the first; elsewhere, it would not)
 *
 * Return: the number of operations done, or a negative errno when none was.
 */
long twheel_ioctl_submit(struct twheel_ctx *ctx, void __user *uarg,
			 size_t usize, bool nowait)
{
	const size_t size = sizeof(struct twheel_op);
	struct twheel_op __user *uops;
	struct twheel_submit sub;
	u32 done = 0, have = 0, k;
	struct twheel_batch b;
	struct twheel_op *ops;
	int ret;

	ret = twheel_args_in(&sub, sizeof(sub), uarg, usize,
			     TWHEEL_SUBMIT_SIZE_VER2, false, nowait);
	if (ret)
		return ret;
	/* Checked before anything is allocated. */
	if (sub.nr > TWHEEL_MAX_BATCH || sub.op_size != size || sub.flags ||
	    sub.__reserved)
		return -EINVAL;
	if (!sub.nr)
		return 0;
	uops = u64_to_user_ptr(sub.ops);
	if (nowait)
		return twheel_submit_nowait(ctx, uops, sub.nr);
	/* The fd's spare buffer, unless another call has it. */
	ops = twheel_ctx_ops_get(ctx);
	if (!ops)
		return -ENOMEM;
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
	twheel_ctx_ops_put(ctx, ops);
	return done ? done : -EFAULT;
}

