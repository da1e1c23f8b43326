/* SPDX-License-Identifier: GPL-2.0 */
/*
 * twheel_kunit.h - what the KUnit suites of the timer set, the timers and
 * the clock bases share: a set made without a file, and short ways to
 * add, cancel, query, read and advance it, and to store into its shared
 * table.
 *
 * Each suite tests one layer (twheel_base_kunit.c, twheel_timer_kunit.c,
 * twheel_ctx_kunit.c); the timers and the bases are driven through the
 * set, the only way they are used, and looked at directly.
 */
#ifndef _TWHEEL_KUNIT_H
#define _TWHEEL_KUNIT_H

#include <kunit/test.h>
#include <linux/err.h>
#include <linux/slab.h>

#include "twheel_ctx.h"
#include "twheel_timer.h"

#define MS	1000000LL

static inline struct twheel_ctx *ctx_new(struct kunit *test, u64 max)
{
	struct twheel_ctx *ctx = twheel_ctx_create(NULL, max,
						   TWHEEL_DEFAULT_TICK_NS);

	KUNIT_ASSERT_FALSE(test, IS_ERR(ctx));
	return ctx;
}

static inline int ctx_out_ok(void *arg, u32 i, const struct twheel_op *op)
{
	return 0;
}

static inline int ctx_fail(void *arg, u32 i, const struct twheel_op *op)
{
	return -EFAULT;
}

/*
 * One operation: its error, or what @out returned when it failed. This
 * and the other helpers with a struct of their own are not inlined: a
 * test case's frame (large under KASAN) holds none of theirs.
 */
static noinline __maybe_unused int ctx_do(struct twheel_ctx *ctx,
					  struct twheel_op *op,
					  int (*out)(void *arg, u32 i,
						     const struct twheel_op *op))
{
	int err = 0;

	if (twheel_ctx_submit(ctx, op, 1, out ?: ctx_out_ok, NULL, &err) != 1)
		return err;
	return op->error;
}

static noinline __maybe_unused int
ctx_add(struct twheel_ctx *ctx, u64 cookie, s64 ns, u32 flags, u32 clock,
	u64 *id)
{
	struct twheel_op op = {
		.op = TWHEEL_OP_ADD, .cookie = cookie, .expires_ns = ns,
		.flags = flags, .clock = clock,
	};
	int ret;

	ret = ctx_do(ctx, &op, NULL);
	if (id)
		*id = op.id;
	return ret;
}

/*
 * Three timers on CLOCK_MONOTONIC due @ns from the present, added in that
 * order (cookies 1, 2, 3): *@a is first in line at their tick.
 */
static inline void ctx_add3(struct kunit *test, struct twheel_ctx *ctx,
			    s64 ns, u64 *a, u64 *b, u64 *c)
{
	KUNIT_ASSERT_EQ(test, ctx_add(ctx, 1, ns, 0, CLOCK_MONOTONIC, a), 0);
	KUNIT_ASSERT_EQ(test, ctx_add(ctx, 2, ns, 0, CLOCK_MONOTONIC, b), 0);
	KUNIT_ASSERT_EQ(test, ctx_add(ctx, 3, ns, 0, CLOCK_MONOTONIC, c), 0);
}

/* MODIFY to an absolute deadline: its error. */
static noinline __maybe_unused int ctx_modify(struct twheel_ctx *ctx, u64 id,
					      s64 ns)
{
	struct twheel_op op = {
		.op = TWHEEL_OP_MODIFY, .id = id, .expires_ns = ns,
		.flags = TWHEEL_ABSTIME,
	};

	return ctx_do(ctx, &op, NULL);
}

static noinline __maybe_unused int
ctx_cancel(struct twheel_ctx *ctx, u64 id, u32 *result)
{
	struct twheel_op op = { .op = TWHEEL_OP_CANCEL, .id = id };
	int ret;

	ret = ctx_do(ctx, &op, NULL);
	if (result)
		*result = op.result;
	return ret;
}

static noinline __maybe_unused u64 ctx_timers(struct twheel_ctx *ctx)
{
	struct twheel_info info;

	twheel_ctx_info(ctx, &info);
	return info.timers;
}

/* Records handed over by twheel_ctx_read(), for the tests to look at. */
struct ctx_records {
	struct twheel_event ev[16];
	unsigned int n;
	unsigned int fail_at;	/* emit fails for this record number + 1 */
};

static inline int ctx_emit(void *arg, const struct twheel_event *ev, u32 n)
{
	struct ctx_records *r = arg;
	u32 i;

	for (i = 0; i < n; i++) {
		if (r->n + 1 == r->fail_at || r->n == ARRAY_SIZE(r->ev))
			break;
		r->ev[r->n++] = ev[i];
	}
	return i ? i : -EFAULT;
}

/* Records on the heap: the stack of a KASAN kernel is tight. */
static inline struct ctx_records *ctx_recs(struct kunit *test)
{
	struct ctx_records *r = kunit_kzalloc(test, sizeof(*r), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, r);
	return r;
}

/* A context on a manual clock with a 1 ms tick. */
static inline struct twheel_ctx *ctx_manual(struct kunit *test)
{
	struct twheel_ctx *ctx = ctx_new(test, 4096);

	KUNIT_ASSERT_EQ(test, twheel_ctx_config(ctx, MS, true, 0), 0);
	return ctx;
}

static inline int ctx_now_out(void *arg, s64 now_ns)
{
	*(s64 *)arg = now_ns;
	return 0;
}

static inline int ctx_now_fail(void *arg, s64 now_ns)
{
	return -EFAULT;
}

static noinline __maybe_unused s64
ctx_advance(struct kunit *test, struct twheel_ctx *ctx, s64 ns)
{
	s64 now = -1;

	KUNIT_EXPECT_EQ(test, twheel_ctx_advance(ctx, ns, ctx_now_out, &now),
			0);
	return now;
}

static noinline __maybe_unused struct twheel_op
ctx_query(struct twheel_ctx *ctx, u64 id)
{
	struct twheel_op op = { .op = TWHEEL_OP_QUERY, .id = id };

	ctx_do(ctx, &op, NULL);
	return op;
}

/* Caller holds the lock. Queue what is due on @clk by @now_ns. */
static inline void ctx_update_at(struct twheel_ctx *ctx, u32 clk, s64 now_ns)
{
	twheel_timers_update_at(twheel_ctx_timers(ctx), clk, now_ns);
}

/* A context on a manual clock, 1 ms tick, with a table of 4096 entries. */
static inline struct twheel_ctx *ctx_table(struct kunit *test)
{
	struct twheel_ctx *ctx = ctx_new(test, 4096);

	KUNIT_ASSERT_EQ(test, twheel_ctx_config(ctx, MS, TWHEEL_CONFIG_MANUAL |
						TWHEEL_CONFIG_TABLE, 0), 0);
	return ctx;
}

/* The table entry of timer @id. */
static inline u64 *entry_of(struct twheel_ctx *ctx, u64 id)
{
	return twheel_table_entry(&twheel_ctx_timers(ctx)->table,
				  twheel_table_slot(id));
}

/* Store @v into timer @id's entry, as the program would. */
static inline void store(struct twheel_ctx *ctx, u64 id, u64 v)
{
	WRITE_ONCE(*entry_of(ctx, id), v);
}

static inline struct twheel_base *mono(struct twheel_ctx *ctx)
{
	return twheel_base_of(&twheel_ctx_timers(ctx)->clocks,
			      TWHEEL_CLK_MONOTONIC);
}

#endif /* _TWHEEL_KUNIT_H */
