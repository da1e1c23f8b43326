// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite of the record ring (twheel_ring.c and its fill by poll,
 * twheel_ctx_read.c): records move into the ring in order when the fd is
 * polled, each ending there as if read; what the ring has no room for
 * stays queued, for read or the next poll; a head that is garbage leaves
 * no room and the tail and records the application writes are not
 * trusted; the configuration's and the mapping's rules.
 */
#include <kunit/test.h>
#include <linux/mm.h>

#include "twheel_ctx_priv.h"
#include "twheel_kunit.h"

/* A context on a manual clock, 1 ms tick, with a record ring. */
static struct twheel_ctx *ctx_ring(struct kunit *test)
{
	struct twheel_ctx *ctx = ctx_new(test, 4096);

	KUNIT_ASSERT_EQ(test, twheel_ctx_config(ctx, MS, TWHEEL_CONFIG_MANUAL |
						TWHEEL_CONFIG_RING, 0), 0);
	return ctx;
}

/* The ring as the application sees it. */
static struct twheel_ring *shared(struct twheel_ctx *ctx)
{
	return ctx->ring.shared;
}

/* The application consumed up to @head: its store, as it makes it. */
static void set_head(struct twheel_ring *r, u32 head)
{
	/* Release: its reads of the records come before (none here). */
	smp_store_release(&r->head, head);
}

/* The tail, as the application reads it. */
static u32 tail_of(struct twheel_ring *r)
{
	/* Acquire: the records before it are written. */
	return smp_load_acquire(&r->tail);
}

/* @n timers due at 10 ms (cookies 1 to @n), due now: the manual clock at 10. */
static void add_due(struct kunit *test, struct twheel_ctx *ctx, u32 n,
		    u64 *ids)
{
	u32 i;

	for (i = 0; i < n; i++)
		KUNIT_ASSERT_EQ(test, ctx_add(ctx, i + 1, 10 * MS, TWHEEL_ABSTIME,
					      CLOCK_MONOTONIC, &ids[i]), 0);
	ctx_advance(test, ctx, 10 * MS);
}

static u64 queued(struct twheel_ctx *ctx)
{
	struct twheel_info info;

	twheel_ctx_info(ctx, &info);
	return info.queued;
}

static void twheel_ring_fill_in_order(struct kunit *test)
{
	struct twheel_ctx *ctx = ctx_ring(test);
	struct twheel_ring *r = shared(ctx);
	struct ctx_records *rec = ctx_recs(test);
	u64 ids[3];
	u32 i;

	KUNIT_EXPECT_FALSE(test, twheel_ctx_poll(ctx));
	add_due(test, ctx, 3, ids);
	KUNIT_EXPECT_EQ(test, queued(ctx), 3ULL);
	KUNIT_EXPECT_EQ(test, tail_of(r), 0U);
	KUNIT_EXPECT_TRUE(test, twheel_ctx_poll(ctx));
	KUNIT_EXPECT_EQ(test, tail_of(r), 3U);
	for (i = 0; i < 3; i++) {
		KUNIT_EXPECT_EQ(test, r->events[i].id, ids[i]);
		KUNIT_EXPECT_EQ(test, r->events[i].cookie, (u64)i + 1);
		KUNIT_EXPECT_EQ(test, r->events[i].time_ns, 10 * MS);
		KUNIT_EXPECT_EQ(test, r->events[i].count, 1ULL);
		KUNIT_EXPECT_EQ(test, r->events[i].clock, (u32)CLOCK_MONOTONIC);
		KUNIT_EXPECT_EQ(test, r->events[i].flags, 0U);
	}
	/* Each ended as if read: nothing queued, the timers gone. */
	KUNIT_EXPECT_EQ(test, queued(ctx), 0ULL);
	KUNIT_EXPECT_EQ(test, ctx_timers(ctx), 0ULL);
	KUNIT_EXPECT_EQ(test, ctx_query(ctx, ids[0]).error, -ENOENT);
	KUNIT_EXPECT_FALSE(test, twheel_ctx_readable(ctx));
	KUNIT_EXPECT_EQ(test, twheel_ctx_read(ctx, 16, ctx_emit, rec), 0L);
	/* Readable until the head reaches the tail. */
	KUNIT_EXPECT_TRUE(test, twheel_ctx_poll(ctx));
	set_head(r, 2);
	KUNIT_EXPECT_TRUE(test, twheel_ctx_poll(ctx));
	set_head(r, 3);
	KUNIT_EXPECT_FALSE(test, twheel_ctx_poll(ctx));
	twheel_ctx_destroy(ctx);
}

static void twheel_ring_full_leaves_queued(struct kunit *test)
{
	const u32 n = TWHEEL_RING_ENTRIES + 2;
	struct twheel_ctx *ctx = ctx_ring(test);
	struct twheel_ring *r = shared(ctx);
	struct ctx_records *rec = ctx_recs(test);
	u64 *ids = kunit_kcalloc(test, n + 1, sizeof(*ids), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, ids);
	add_due(test, ctx, n, ids);
	KUNIT_EXPECT_TRUE(test, twheel_ctx_poll(ctx));
	KUNIT_EXPECT_EQ(test, tail_of(r), TWHEEL_RING_ENTRIES);
	KUNIT_EXPECT_EQ(test, r->events[TWHEEL_RING_ENTRIES - 1].id,
			ids[TWHEEL_RING_ENTRIES - 1]);
	KUNIT_EXPECT_EQ(test, queued(ctx), 2ULL);
	/* Full: a poll moves nothing. */
	set_head(r, 0);
	KUNIT_EXPECT_TRUE(test, twheel_ctx_poll(ctx));
	KUNIT_EXPECT_EQ(test, tail_of(r), TWHEEL_RING_ENTRIES);
	/* Room for one: the oldest queued record comes next, in its place. */
	set_head(r, 1);
	KUNIT_EXPECT_TRUE(test, twheel_ctx_poll(ctx));
	KUNIT_EXPECT_EQ(test, tail_of(r), TWHEEL_RING_ENTRIES + 1);
	KUNIT_EXPECT_EQ(test, r->events[0].id, ids[TWHEEL_RING_ENTRIES]);
	KUNIT_EXPECT_EQ(test, queued(ctx), 1ULL);
	/* read(2) takes what is left queued, never what is in the ring. */
	KUNIT_EXPECT_EQ(test, twheel_ctx_read(ctx, 16, ctx_emit, rec), 1L);
	KUNIT_EXPECT_EQ(test, rec->ev[0].id, ids[n - 1]);
	KUNIT_EXPECT_EQ(test, queued(ctx), 0ULL);
	KUNIT_EXPECT_EQ(test, ctx_timers(ctx), 0ULL);
	set_head(r, TWHEEL_RING_ENTRIES + 1);
	KUNIT_EXPECT_FALSE(test, twheel_ctx_poll(ctx));
	twheel_ctx_destroy(ctx);
}

static void twheel_ring_garbage_head_no_room(struct kunit *test)
{
	static const u32 heads[] = { 5, 0U - 1000, 0U - TWHEEL_RING_ENTRIES - 1,
				     0x80000000U };
	struct twheel_ctx *ctx = ctx_ring(test);
	struct twheel_ring *r = shared(ctx);
	u64 ids[2];
	u32 i;

	add_due(test, ctx, 2, ids);
	for (i = 0; i < ARRAY_SIZE(heads); i++) {
		/* Ahead of the tail, or more than the ring behind it. */
		set_head(r, heads[i]);
		KUNIT_EXPECT_TRUE(test, twheel_ctx_poll(ctx));
		KUNIT_EXPECT_EQ(test, tail_of(r), 0U);
		KUNIT_EXPECT_EQ(test, queued(ctx), 2ULL);
	}
	/* The application's tail and records: overwritten, not read. */
	r->tail = 77;
	r->events[0].id = 12345;
	r->events[1].cookie = 9;
	set_head(r, 0);
	KUNIT_EXPECT_TRUE(test, twheel_ctx_poll(ctx));
	KUNIT_EXPECT_EQ(test, tail_of(r), 2U);
	KUNIT_EXPECT_EQ(test, r->events[0].id, ids[0]);
	KUNIT_EXPECT_EQ(test, r->events[1].cookie, 2ULL);
	KUNIT_EXPECT_EQ(test, queued(ctx), 0ULL);
	twheel_ctx_destroy(ctx);
}

static void twheel_ring_periodic_next_deadline(struct kunit *test)
{
	struct twheel_ctx *ctx = ctx_ring(test);
	struct twheel_ring *r = shared(ctx);
	struct twheel_op op = {
		.op = TWHEEL_OP_ADD, .cookie = 7, .expires_ns = 5 * MS,
		.period_ns = 5 * MS, .clock = CLOCK_MONOTONIC,
	};

	KUNIT_ASSERT_EQ(test, ctx_do(ctx, &op, NULL), 0);
	ctx_advance(test, ctx, 12 * MS);
	KUNIT_EXPECT_TRUE(test, twheel_ctx_poll(ctx));
	KUNIT_EXPECT_EQ(test, tail_of(r), 1U);
	KUNIT_EXPECT_EQ(test, r->events[0].id, op.id);
	KUNIT_EXPECT_EQ(test, r->events[0].count, 2ULL);
	/* Set when the record went into the ring: the next one on the grid. */
	KUNIT_EXPECT_EQ(test, ctx_query(ctx, op.id).expires_ns, 15 * MS);
	KUNIT_EXPECT_EQ(test, ctx_timers(ctx), 1ULL);
	twheel_ctx_destroy(ctx);
}

static void twheel_ring_config_and_mapping(struct kunit *test)
{
	struct twheel_ctx *ctx = ctx_new(test, 64);
	struct twheel_info info;
	struct page *page;
	u64 id;

	/* No ring: its offset is ENODEV, poll as before. */
	KUNIT_ASSERT_EQ(test, twheel_ctx_config(ctx, MS, TWHEEL_CONFIG_MANUAL,
						0), 0);
	KUNIT_EXPECT_EQ(test, twheel_ctx_mmap(ctx, TWHEEL_RING_PGOFF, 1),
			-ENODEV);
	KUNIT_EXPECT_NULL(test, twheel_ctx_map_page(ctx, TWHEEL_RING_PGOFF));
	KUNIT_ASSERT_EQ(test, twheel_ctx_config(ctx, MS, TWHEEL_CONFIG_MANUAL |
						TWHEEL_CONFIG_RING, 0), 0);
	twheel_ctx_info(ctx, &info);
	KUNIT_EXPECT_EQ(test, info.config_flags,
			TWHEEL_CONFIG_MANUAL | TWHEEL_CONFIG_RING);
	/* A configuration without the flag leaves none. */
	KUNIT_ASSERT_EQ(test, twheel_ctx_config(ctx, MS, TWHEEL_CONFIG_MANUAL,
						0), 0);
	KUNIT_EXPECT_EQ(test, twheel_ctx_mmap(ctx, TWHEEL_RING_PGOFF, 1),
			-ENODEV);
	KUNIT_ASSERT_EQ(test, twheel_ctx_config(ctx, MS, TWHEEL_CONFIG_MANUAL |
						TWHEEL_CONFIG_RING, 0), 0);
	/* Its offset and length, nothing else; no table at offset 0. */
	KUNIT_EXPECT_EQ(test, twheel_ctx_mmap(ctx, TWHEEL_RING_PGOFF + 1, 1),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, twheel_ctx_mmap(ctx, TWHEEL_RING_PGOFF,
					      TWHEEL_RING_PAGES + 1), -EINVAL);
	KUNIT_EXPECT_EQ(test, twheel_ctx_mmap(ctx, 0, 1), -ENODEV);
	KUNIT_EXPECT_EQ(test, twheel_ctx_mmap(ctx, TWHEEL_RING_PGOFF,
					      TWHEEL_RING_PAGES), 0);
	page = twheel_ctx_map_page(ctx, TWHEEL_RING_PGOFF);
	KUNIT_ASSERT_NOT_NULL(test, page);
	KUNIT_EXPECT_PTR_EQ(test, page_address(page), (void *)shared(ctx));
	put_page(page);
	page = twheel_ctx_map_page(ctx, TWHEEL_RING_PGOFF +
				   TWHEEL_RING_PAGES - 1);
	KUNIT_ASSERT_NOT_NULL(test, page);
	KUNIT_EXPECT_PTR_EQ(test, page_address(page),
			    (void *)shared(ctx) +
			    (TWHEEL_RING_PAGES - 1) * PAGE_SIZE);
	put_page(page);
	KUNIT_EXPECT_NULL(test, twheel_ctx_map_page(ctx, TWHEEL_RING_PGOFF +
						    TWHEEL_RING_PAGES));
	/* Mapped: the configuration is fixed, timers or not. */
	KUNIT_EXPECT_EQ(test, twheel_ctx_config(ctx, MS, TWHEEL_CONFIG_MANUAL,
						0), -EBUSY);
	KUNIT_EXPECT_EQ(test, ctx_add(ctx, 1, 5 * MS, 0, CLOCK_MONOTONIC, &id),
			0);
	twheel_ctx_destroy(ctx);
}

static struct kunit_case twheel_ring_cases[] = {
	KUNIT_CASE(twheel_ring_fill_in_order),
	KUNIT_CASE(twheel_ring_full_leaves_queued),
	KUNIT_CASE(twheel_ring_garbage_head_no_room),
	KUNIT_CASE(twheel_ring_periodic_next_deadline),
	KUNIT_CASE(twheel_ring_config_and_mapping),
	{}
};

static struct kunit_suite twheel_ring_suite = {
	.name = "twheel_ring",
	.test_cases = twheel_ring_cases,
};

kunit_test_suite(twheel_ring_suite);
