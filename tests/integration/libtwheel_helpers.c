// SPDX-License-Identifier: GPL-2.0
/*
 * libtwheel_helpers: the C library's helpers (twheel_drain(),
 * twheel_batch_*(), twheel_op_result()), called as libtwheel.c calls its
 * wrappers, with their own errnos.
 */
#include "libtwheel_test.h"

/* What a twheel_drain() callback was given, call by call. */
struct drained {
	struct twheel_event ev[64];
	size_t calls, total, sizes[64];
	size_t stop_after;	/* return 1 after this many calls (0: never) */
	int close_fd;		/* close this fd after the first call (-1: no) */
};

static int on_drain(void *arg, const struct twheel_event *ev, size_t n)
{
	struct drained *d = arg;

	CHECK(n >= 1);
	CHECK(d->calls < 64 && d->total + n <= 64);
	memcpy(d->ev + d->total, ev, n * sizeof(*ev));
	d->sizes[d->calls++] = n;
	d->total += n;
	if (d->close_fd >= 0 && d->calls == 1)
		close(d->close_fd);
	return d->stop_after && d->calls == d->stop_after;
}

/* Queue @n one-shot records on manual @fd, cookies @first... in order. */
static void queue_records(int fd, uint64_t first, unsigned int n)
{
	int64_t now = advance(fd, 0);
	unsigned int k;

	for (k = 0; k < n; k++)
		add(fd, first + k, now + (k + 1) * MS, 0, TWHEEL_ABSTIME,
		    CLOCK_MONOTONIC);
	CHECK_EQ(advance(fd, n * MS), now + n * MS);
}

static unsigned long long queued(int fd)
{
	struct twheel_info info;

	CHECK_EQ(twheel_info(fd, &info), 0);
	return info.queued;
}

/* twheel_drain() into a buffer: fills it, never blocks, keeps the rest. */
static void drain_buffer(void)
{
	int fd = manual_fd(MS);
	struct twheel_event ev[16];
	char *guard;
	int k;

	CHECK_ERR(twheel_drain(fd, ev, 0, NULL, NULL), EINVAL);
	CHECK_ERR(twheel_drain(-1, ev, 4, NULL, NULL), EBADF);
	CHECK_EQ(twheel_drain(fd, ev, 4, NULL, NULL), 0);	/* empty */

	queue_records(fd, 100, 10);
	memset(ev, 0, sizeof(ev));
	CHECK_EQ(twheel_drain(fd, ev, 4, NULL, NULL), 4);
	for (k = 0; k < 4; k++) {
		CHECK_EQ(ev[k].cookie, 100 + k);
		CHECK_EQ(ev[k].count, 1);
	}
	CHECK_EQ(queued(fd), 6);
	CHECK_EQ(twheel_drain(fd, ev, 16, NULL, NULL), 6);
	for (k = 0; k < 6; k++)
		CHECK_EQ(ev[k].cookie, 104 + k);
	CHECK_EQ(twheel_drain(fd, ev, 16, NULL, NULL), 0);
	CHECK_EMPTY(fd);

	/*
	 * A buffer that ends in unmapped memory: the records that fit are
	 * returned, the others stay queued; none fits: the kernel's EFAULT.
	 */
	guard = twt_guard_map(4096);
	queue_records(fd, 200, 5);
	CHECK_EQ(twheel_drain(fd, (struct twheel_event *)(guard - 2 * TWT_EV_SIZE),
			      5, NULL, NULL), 2);
	CHECK_EQ(((struct twheel_event *)(guard - 2 * TWT_EV_SIZE))[1].cookie,
		 201);
	CHECK_EQ(queued(fd), 3);
	CHECK_ERR(twheel_drain(fd, (struct twheel_event *)guard, 5, NULL, NULL),
		  EFAULT);
	CHECK_EQ(queued(fd), 3);
	CHECK_EQ(twheel_drain(fd, ev, 16, NULL, NULL), 3);
	CHECK_EQ(ev[0].cookie, 202);
	CHECK_EQ(ev[2].cookie, 204);
	close(fd);
}

/* twheel_drain() with a callback: every record once, in order, in reads of n. */
static void drain_callback(void)
{
	int fd = manual_fd(MS);
	struct twheel_event ev[3];
	struct drained d;
	int k;

	memset(&d, 0, sizeof(d));
	d.close_fd = -1;
	CHECK_EQ(twheel_drain(fd, ev, 3, on_drain, &d), 0);
	CHECK_EQ(d.calls, 0);			/* nothing queued: no call */

	queue_records(fd, 0, 10);
	CHECK_EQ(twheel_drain(fd, ev, 3, on_drain, &d), 10);
	CHECK_EQ(d.calls, 4);
	CHECK_EQ(d.sizes[0], 3);
	CHECK_EQ(d.sizes[1], 3);
	CHECK_EQ(d.sizes[2], 3);
	CHECK_EQ(d.sizes[3], 1);
	for (k = 0; k < 10; k++) {
		CHECK_EQ(d.ev[k].cookie, k);
		CHECK_EQ(d.ev[k].clock, CLOCK_MONOTONIC);
	}
	CHECK_EMPTY(fd);

	/* A multiple of n queued: the last read finds none (EAGAIN). */
	memset(&d, 0, sizeof(d));
	d.close_fd = -1;
	queue_records(fd, 20, 6);
	CHECK_EQ(twheel_drain(fd, ev, 3, on_drain, &d), 6);
	CHECK_EQ(d.calls, 2);
	CHECK_EQ(d.ev[5].cookie, 25);

	/* The callback stops it: the records after stay queued. */
	memset(&d, 0, sizeof(d));
	d.close_fd = -1;
	d.stop_after = 2;
	queue_records(fd, 30, 10);
	CHECK_EQ(twheel_drain(fd, ev, 3, on_drain, &d), 6);
	CHECK_EQ(d.calls, 2);
	CHECK_EQ(queued(fd), 4);
	d.stop_after = 0;
	CHECK_EQ(twheel_drain(fd, ev, 3, on_drain, &d), 4);
	CHECK_EQ(d.total, 10);
	for (k = 0; k < 10; k++)
		CHECK_EQ(d.ev[k].cookie, 30 + k);

	/*
	 * An error after records were read (the callback closes the fd):
	 * their count, not -1; read(2)'s error at the next call.
	 */
	memset(&d, 0, sizeof(d));
	d.close_fd = fd;
	queue_records(fd, 40, 8);
	CHECK_EQ(twheel_drain(fd, ev, 3, on_drain, &d), 3);
	CHECK_EQ(d.calls, 1);
	CHECK_ERR(twheel_drain(fd, ev, 3, on_drain, &d), EBADF);
	CHECK_EQ(d.calls, 1);
}

/* twheel_drain() on a blocking fd: polled, never blocks. */
static void drain_blocking(void)
{
	struct twheel_config cfg = {
		.tick_ns = MS,
		.flags = TWHEEL_CONFIG_MANUAL,
	};
	struct twheel_event ev[2];
	struct drained d;
	int fd;

	fd = twheel_open(O_CLOEXEC);
	CHECK(fd >= 0);
	CHECK_EQ(twheel_config(fd, &cfg), 0);
	alarm(10);		/* a drain that blocks fails the case */
	memset(&d, 0, sizeof(d));
	d.close_fd = -1;
	CHECK_EQ(twheel_drain(fd, ev, 2, on_drain, &d), 0);
	CHECK_EQ(twheel_drain(fd, ev, 2, NULL, NULL), 0);
	queue_records(fd, 50, 4);		/* a multiple of n */
	CHECK_EQ(twheel_drain(fd, ev, 2, on_drain, &d), 4);
	CHECK_EQ(d.calls, 2);
	queue_records(fd, 54, 3);
	CHECK_EQ(twheel_drain(fd, ev, 2, on_drain, &d), 3);
	CHECK_EQ(d.calls, 4);
	CHECK_EQ(d.sizes[3], 1);
	CHECK_EQ(d.ev[6].cookie, 56);
	queue_records(fd, 60, 2);
	CHECK_EQ(twheel_drain(fd, ev, 2, NULL, NULL), 2);
	CHECK_EQ(ev[1].cookie, 61);
	CHECK_EQ(twheel_drain(fd, ev, 2, NULL, NULL), 0);
	close(fd);
}

/* twheel_batch_*(): what each appends, and the outcomes after submit. */
static void batch_build(void)
{
	int fd = manual_fd(MS);
	struct twheel_op ops[5], *a, *b, *m, *c, *q;
	struct twheel_batch batch;
	struct twheel_status st;
	uint64_t x, aid, bid;

	x = add(fd, 5, 50 * MS, 0, 0, CLOCK_MONOTONIC);
	memset(ops, 0x5A, sizeof(ops));
	twheel_batch_init(&batch, ops, 4);
	CHECK(batch.ops == ops);
	CHECK_EQ(batch.nr, 0);
	CHECK_EQ(batch.capacity, 4);

	a = twheel_batch_add(&batch, &(struct twheel_add){
		.cookie = 1,
		.expires_ns = 10 * MS,
		.clock = CLOCK_MONOTONIC,
		.id = 77,		/* an output: not copied */
	});
	b = twheel_batch_add(&batch, &(struct twheel_add){
		.cookie = 2,
		.expires_ns = 20 * MS,
		.period_ns = 5 * MS,
		.flags = TWHEEL_ABSTIME,
		.clock = CLOCK_BOOTTIME,
	});
	m = twheel_batch_modify(&batch, &(struct twheel_modify){
		.id = x,
		.cookie = 9,
		.expires_ns = 3 * MS,
		.flags = TWHEEL_SET_COOKIE,
		.result = 99,		/* an output: not copied */
	});
	c = twheel_batch_cancel(&batch, 123456789);
	CHECK(a == &ops[0] && b == &ops[1] && m == &ops[2] && c == &ops[3]);
	CHECK_EQ(batch.nr, 4);
	errno = 0;
	CHECK(!twheel_batch_query(&batch, x));
	CHECK_EQ(errno, ENOSPC);
	CHECK_EQ(batch.nr, 4);
	CHECK_EQ(ops[4].op, 0x5A5A5A5A);	/* past the capacity: untouched */

	/* Each appended op: its fields, every other one 0, not done yet. */
	CHECK_EQ(a->op, TWHEEL_OP_ADD);
	CHECK_EQ(a->flags, 0);
	CHECK_EQ(a->id, 0);
	CHECK_EQ(a->cookie, 1);
	CHECK_EQ(a->expires_ns, 10 * MS);
	CHECK_EQ(a->period_ns, 0);
	CHECK_EQ(a->clock, CLOCK_MONOTONIC);
	CHECK_EQ(a->error, -ECANCELED);
	CHECK_EQ(a->result, 0);
	CHECK_EQ(a->__reserved, 0);
	CHECK_EQ(a->count, 0);
	CHECK_EQ(a->remaining_ns, 0);
	CHECK_EQ(b->flags, TWHEEL_ABSTIME);
	CHECK_EQ(b->period_ns, 5 * MS);
	CHECK_EQ(b->clock, CLOCK_BOOTTIME);
	CHECK_EQ(m->op, TWHEEL_OP_MODIFY);
	CHECK_EQ(m->id, x);
	CHECK_EQ(m->cookie, 9);
	CHECK_EQ(m->expires_ns, 3 * MS);
	CHECK_EQ(m->flags, TWHEEL_SET_COOKIE);
	CHECK_EQ(m->result, 0);
	CHECK_EQ(m->clock, 0);
	CHECK_EQ(c->op, TWHEEL_OP_CANCEL);
	CHECK_EQ(c->id, 123456789);
	CHECK_EQ(c->flags, 0);
	CHECK_EQ(c->cookie, 0);
	CHECK_ERR(twheel_op_result(a), ECANCELED);	/* never done */

	CHECK_EQ(twheel_batch_submit(fd, &batch), 4);
	CHECK_EQ(batch.nr, 4);
	CHECK_EQ(twheel_op_result(a), 0);
	CHECK(a->id != 0 && a->id != x);
	CHECK_EQ(twheel_op_result(b), 0);
	CHECK(b->id != 0 && b->id != a->id);
	CHECK_EQ(twheel_op_result(m), TWHEEL_STATE_PENDING);
	CHECK_ERR(twheel_op_result(c), ENOENT);
	CHECK_EQ(c->error, -ENOENT);

	CHECK_EQ(twheel_query(fd, a->id, &st), 0);
	CHECK_STATUS(st, a->id, 1, CLOCK_MONOTONIC, TWHEEL_STATE_PENDING,
		     10 * MS, 10 * MS, 0, 0);
	CHECK_EQ(twheel_query(fd, b->id, &st), 0);
	CHECK_STATUS(st, b->id, 2, CLOCK_BOOTTIME, TWHEEL_STATE_PENDING,
		     20 * MS, 20 * MS, 5 * MS, 0);
	CHECK_EQ(twheel_query(fd, x, &st), 0);
	CHECK_STATUS(st, x, 9, CLOCK_MONOTONIC, TWHEEL_STATE_PENDING,
		     3 * MS, 3 * MS, 0, 0);

	aid = a->id;
	bid = b->id;

	/* Reused: a query and cancels; one not submitted stays ECANCELED. */
	twheel_batch_init(&batch, ops, 5);
	q = twheel_batch_query(&batch, aid);
	CHECK(q == &ops[0]);
	CHECK_EQ(q->op, TWHEEL_OP_QUERY);
	CHECK_EQ(q->id, aid);
	CHECK_EQ(q->expires_ns, 0);
	CHECK(twheel_batch_cancel(&batch, x) == &ops[1]);
	CHECK(twheel_batch_cancel(&batch, x) == &ops[2]);
	CHECK(twheel_batch_cancel(&batch, bid) == &ops[3]);
	CHECK_EQ(twheel_submit(fd, ops, 3), 3);	/* the 4th is not done */
	CHECK_EQ(twheel_op_result(&ops[0]), 0);
	CHECK_EQ(ops[0].cookie, 1);
	CHECK_EQ(ops[0].expires_ns, 10 * MS);
	CHECK_EQ(ops[0].remaining_ns, 10 * MS);
	CHECK_EQ(ops[0].result, TWHEEL_STATE_PENDING);
	CHECK_EQ(twheel_op_result(&ops[1]), TWHEEL_STATE_PENDING);
	CHECK_ERR(twheel_op_result(&ops[2]), ENOENT);
	CHECK_ERR(twheel_op_result(&ops[3]), ECANCELED);
	CHECK_EQ(twheel_query(fd, bid, &st), 0);	/* still there */

	/* Empty: 0, no call; a bad fd: the kernel's errno. */
	twheel_batch_init(&batch, ops, 5);
	CHECK_EQ(twheel_batch_submit(fd, &batch), 0);
	twheel_batch_cancel(&batch, bid);
	CHECK_ERR(twheel_batch_submit(-1, &batch), EBADF);
	CHECK_ERR(twheel_op_result(&ops[0]), ECANCELED);
	CHECK_EQ(twheel_batch_submit(fd, &batch), 1);
	CHECK_EQ(twheel_op_result(&ops[0]), TWHEEL_STATE_PENDING);
	close(fd);
}

/* A batch above TWHEEL_MAX_BATCH: submitted in parts, all of it done. */
#define NBIG	(2 * TWHEEL_MAX_BATCH + 500)
static void batch_large(void)
{
	static struct twheel_op ops[NBIG];
	static uint64_t ids[NBIG];
	int fd = manual_fd(MS);
	struct twheel_batch b;
	struct twheel_info info;
	struct twheel_event ev[8];
	size_t k;

	twheel_batch_init(&b, ops, NBIG);
	for (k = 0; k < NBIG; k++)
		CHECK(twheel_batch_add(&b, &(struct twheel_add){
			.cookie = k,
			.expires_ns = (int64_t)(k + 1) * MS,
			.clock = CLOCK_REALTIME,
		}));
	CHECK(!twheel_batch_add(&b, &(struct twheel_add){ .clock = 0 }));
	CHECK_EQ(twheel_batch_submit(fd, &b), NBIG);
	for (k = 0; k < NBIG; k++) {
		CHECK_EQ(twheel_op_result(&ops[k]), 0);
		ids[k] = ops[k].id;
		CHECK(ids[k] != 0);
		CHECK(k == 0 || ids[k] != ids[k - 1]);
	}
	CHECK_EQ(twheel_info(fd, &info), 0);
	CHECK_EQ(info.timers, NBIG);

	/* The first two fire; cancel all: 2 QUEUED (retracted), the rest PENDING. */
	CHECK_EQ(advance(fd, 2 * MS), 2 * MS);
	twheel_batch_init(&b, ops, NBIG);
	for (k = 0; k < NBIG; k++)
		CHECK(twheel_batch_cancel(&b, ids[k]));
	CHECK_EQ(twheel_batch_submit(fd, &b), NBIG);
	for (k = 0; k < NBIG; k++)
		CHECK_EQ(twheel_op_result(&ops[k]),
			 k < 2 ? TWHEEL_STATE_QUEUED : TWHEEL_STATE_PENDING);
	CHECK_EQ(twheel_info(fd, &info), 0);
	CHECK_EQ(info.timers, 0);
	CHECK_EQ(twheel_drain(fd, ev, 8, NULL, NULL), 0);
	close(fd);
}

/* twheel_op_result() of operations as the kernel writes them back. */
static void op_result(void)
{
	struct twheel_op op;
	static const uint32_t kinds[] = {
		TWHEEL_OP_ADD, TWHEEL_OP_MODIFY, TWHEEL_OP_CANCEL,
		TWHEEL_OP_QUERY,
	};
	static const int errs[] = { EINVAL, ENOENT, ENOSPC, ENOMEM };
	size_t k, e;

	for (k = 0; k < 4; k++) {
		memset(&op, 0, sizeof(op));
		op.op = kinds[k];
		op.result = TWHEEL_STATE_QUEUED;
		errno = 0;
		CHECK_EQ(twheel_op_result(&op),
			 kinds[k] == TWHEEL_OP_MODIFY ||
			 kinds[k] == TWHEEL_OP_CANCEL ?
			 TWHEEL_STATE_QUEUED : 0);
		CHECK_EQ(errno, 0);
		op.result = TWHEEL_STATE_PENDING;
		if (kinds[k] == TWHEEL_OP_MODIFY || kinds[k] == TWHEEL_OP_CANCEL)
			CHECK_EQ(twheel_op_result(&op), TWHEEL_STATE_PENDING);
		for (e = 0; e < 4; e++) {
			op.error = -errs[e];
			CHECK_ERR(twheel_op_result(&op), errs[e]);
		}
	}
}

TWT_MAIN("libtwheel_helpers",
	 TWT_CASE(drain_buffer),
	 TWT_CASE(drain_callback),
	 TWT_CASE(drain_blocking),
	 TWT_CASE(batch_build),
	 TWT_CASE(batch_large),
	 TWT_CASE(op_result))
