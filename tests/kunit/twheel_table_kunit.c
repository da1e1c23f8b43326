// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite of the shared timer table (twheel_table.c and its use by
 * the timers): pages backed as slots grow, the entries the kernel writes,
 * and what an entry does when its timer's deadline tick comes due: push
 * back, cancel, nothing (another timer's tag, an earlier deadline, a
 * deadline out of range, a periodic timer's deadline); the count of
 * timers ended by a cancel in their entry, which INFO and fdinfo read
 * without looking at any entry; the mapping's page_mkwrite.
 */
#include <kunit/test.h>
#include <linux/mm.h>
#include <linux/pagemap.h>
#include <linux/seq_file.h>

#include "twheel_kunit.h"

static void twheel_table_pages_backed_as_slots_grow(struct kunit *test)
{
	struct twheel_table tab = { };
	struct page *page;

	KUNIT_EXPECT_EQ(test, twheel_table_set_size(&tab, 1ULL << 31),
			-EINVAL);
	KUNIT_ASSERT_EQ(test, twheel_table_set_size(&tab, 1000), 0);
	KUNIT_EXPECT_EQ(test, tab.size_pages, 2U);
	KUNIT_EXPECT_NULL(test, twheel_table_page(&tab, 0));
	KUNIT_EXPECT_EQ(test, twheel_table_back(&tab, 0), 0);
	KUNIT_EXPECT_EQ(test, tab.nr_pages, 1U);
	KUNIT_EXPECT_EQ(test, twheel_table_back(&tab, 511), 0);
	KUNIT_EXPECT_EQ(test, tab.nr_pages, 1U);
	/* Zeroed: no kernel data reaches the mapping. */
	KUNIT_EXPECT_EQ(test, *twheel_table_entry(&tab, 511), 0ULL);
	KUNIT_EXPECT_EQ(test, twheel_table_back(&tab, 512), 0);
	KUNIT_EXPECT_EQ(test, tab.nr_pages, 2U);
	KUNIT_EXPECT_EQ(test, twheel_table_back(&tab, 1024), -ENOSPC);
	KUNIT_EXPECT_EQ(test, tab.nr_pages, 2U);
	page = twheel_table_page(&tab, 1);
	KUNIT_ASSERT_NOT_NULL(test, page);
	KUNIT_EXPECT_PTR_EQ(test, page_address(page),
			    (void *)twheel_table_entry(&tab, 512));
	put_page(page);
	KUNIT_EXPECT_NULL(test, twheel_table_page(&tab, 2));
	twheel_table_free(&tab);
	KUNIT_EXPECT_EQ(test, tab.nr_pages, 0U);
	KUNIT_EXPECT_FALSE(test, twheel_table_on(&tab));
}

static void twheel_table_kernel_writes(struct kunit *test)
{
	struct twheel_ctx *ctx = ctx_table(test);
	struct ctx_records *r = ctx_recs(test);
	u64 a, b;

	KUNIT_ASSERT_EQ(test, ctx_add(ctx, 1, 10 * MS, 0, CLOCK_MONOTONIC,
				      &a), 0);
	KUNIT_EXPECT_EQ(test, *entry_of(ctx, a), TWHEEL_TABLE_DEADLINE(a, 10));
	/* A deadline inside a tick: its tick, as QUERY's deadline_ns. */
	KUNIT_ASSERT_EQ(test, ctx_add(ctx, 2, 10 * MS + 1, 0, CLOCK_MONOTONIC,
				      &b), 0);
	KUNIT_EXPECT_EQ(test, *entry_of(ctx, b), TWHEEL_TABLE_DEADLINE(b, 11));
	KUNIT_EXPECT_EQ(test, ctx_modify(ctx, a, 40 * MS), 0);
	KUNIT_EXPECT_EQ(test, *entry_of(ctx, a), TWHEEL_TABLE_DEADLINE(a, 40));
	KUNIT_EXPECT_EQ(test, ctx_cancel(ctx, a, NULL), 0);
	KUNIT_EXPECT_EQ(test, *entry_of(ctx, a), 0ULL);
	ctx_advance(test, ctx, 11 * MS);
	KUNIT_ASSERT_EQ(test, twheel_ctx_read(ctx, 16, ctx_emit, r), 1L);
	KUNIT_EXPECT_EQ(test, *entry_of(ctx, b), 0ULL);
	twheel_ctx_destroy(ctx);
}

static void twheel_table_push_back_and_cancel(struct kunit *test)
{
	struct twheel_ctx *ctx = ctx_table(test);
	struct ctx_records *r = ctx_recs(test);
	struct twheel_info info = { };
	u64 a, b, c;

	ctx_add3(test, ctx, 10 * MS, &a, &b, &c);
	WRITE_ONCE(*entry_of(ctx, a), TWHEEL_TABLE_DEADLINE(a, 30));
	WRITE_ONCE(*entry_of(ctx, b), TWHEEL_TABLE_CANCELLED(b));
	/* Earlier than placed: a store never moves a timer forward. */
	WRITE_ONCE(*entry_of(ctx, c), TWHEEL_TABLE_DEADLINE(c, 5));
	twheel_ctx_info(ctx, &info);
	KUNIT_EXPECT_EQ(test, info.timers, 3ULL);
	/* Counted when the kernel acts on it, not when stored. */
	KUNIT_EXPECT_EQ(test, info.cancelled, 0ULL);
	ctx_advance(test, ctx, 9 * MS);
	KUNIT_EXPECT_FALSE(test, twheel_ctx_readable(ctx));
	ctx_advance(test, ctx, MS);
	KUNIT_ASSERT_EQ(test, twheel_ctx_read(ctx, 16, ctx_emit, r), 1L);
	KUNIT_EXPECT_EQ(test, r->ev[0].id, c);
	KUNIT_EXPECT_EQ(test, r->ev[0].time_ns, 10 * MS);
	twheel_ctx_info(ctx, &info);
	KUNIT_EXPECT_EQ(test, info.timers, 1ULL);
	KUNIT_EXPECT_EQ(test, info.cancelled, 1ULL);
	KUNIT_EXPECT_EQ(test, ctx_cancel(ctx, b, NULL), -ENOENT);
	KUNIT_EXPECT_EQ(test, *entry_of(ctx, b), 0ULL);
	/* The pushed one: placed for tick 30, read once there. */
	KUNIT_EXPECT_EQ(test, ctx_query(ctx, a).expires_ns, 30 * MS);
	ctx_advance(test, ctx, 19 * MS);
	KUNIT_EXPECT_FALSE(test, twheel_ctx_readable(ctx));
	ctx_advance(test, ctx, MS);
	r->n = 0;
	KUNIT_ASSERT_EQ(test, twheel_ctx_read(ctx, 16, ctx_emit, r), 1L);
	KUNIT_EXPECT_EQ(test, r->ev[0].id, a);
	KUNIT_EXPECT_EQ(test, r->ev[0].time_ns, 30 * MS);
	KUNIT_EXPECT_EQ(test, ctx_timers(ctx), 0ULL);
	twheel_ctx_destroy(ctx);
}

static void twheel_table_other_values_do_nothing(struct kunit *test)
{
	struct twheel_ctx *ctx = ctx_table(test);
	struct ctx_records *r = ctx_recs(test);
	u64 a, b, c, d;

	KUNIT_ASSERT_EQ(test, ctx_add(ctx, 1, 10 * MS, 0, CLOCK_MONOTONIC,
				      &a), 0);
	KUNIT_ASSERT_EQ(test, ctx_cancel(ctx, a, NULL), 0);
	/* b takes a's entry, with another generation. */
	KUNIT_ASSERT_EQ(test, ctx_add(ctx, 2, 10 * MS, 0, CLOCK_MONOTONIC,
				      &b), 0);
	KUNIT_ASSERT_EQ(test, TWHEEL_TABLE_INDEX(b), TWHEEL_TABLE_INDEX(a));
	KUNIT_ASSERT_NE(test, b, a);
	WRITE_ONCE(*entry_of(ctx, b), TWHEEL_TABLE_CANCELLED(a));
	/* Range: 2^31 ticks ahead reads as passed, 2^31 - 1 as later. */
	KUNIT_ASSERT_EQ(test, ctx_add(ctx, 3, 10 * MS, 0, CLOCK_MONOTONIC,
				      &c), 0);
	WRITE_ONCE(*entry_of(ctx, c), TWHEEL_TABLE_DEADLINE(c, 10 + BIT_ULL(31)));
	KUNIT_ASSERT_EQ(test, ctx_add(ctx, 4, 10 * MS, 0, CLOCK_MONOTONIC,
				      &d), 0);
	WRITE_ONCE(*entry_of(ctx, d),
		   TWHEEL_TABLE_DEADLINE(d, 10 + BIT_ULL(31) - 1));
	ctx_advance(test, ctx, 10 * MS);
	KUNIT_ASSERT_EQ(test, twheel_ctx_read(ctx, 16, ctx_emit, r), 2L);
	KUNIT_EXPECT_EQ(test, r->ev[0].id, b);
	KUNIT_EXPECT_EQ(test, r->ev[1].id, c);
	KUNIT_EXPECT_EQ(test, ctx_query(ctx, d).expires_ns,
			(s64)(10 + BIT_ULL(31) - 1) * MS);
	twheel_ctx_destroy(ctx);
}

static void twheel_table_periodic_takes_cancel_only(struct kunit *test)
{
	struct twheel_ctx *ctx = ctx_table(test);
	struct ctx_records *r = ctx_recs(test);
	struct twheel_op op = {
		.op = TWHEEL_OP_ADD, .expires_ns = 10 * MS,
		.period_ns = 10 * MS, .clock = CLOCK_MONOTONIC,
	};
	u64 id;

	KUNIT_ASSERT_EQ(test, ctx_do(ctx, &op, NULL), 0);
	id = op.id;
	KUNIT_EXPECT_EQ(test, *entry_of(ctx, id), TWHEEL_TABLE_DEADLINE(id, 10));
	WRITE_ONCE(*entry_of(ctx, id), TWHEEL_TABLE_DEADLINE(id, 100));
	ctx_advance(test, ctx, 10 * MS);
	KUNIT_ASSERT_EQ(test, twheel_ctx_read(ctx, 16, ctx_emit, r), 1L);
	KUNIT_EXPECT_EQ(test, r->ev[0].time_ns, 10 * MS);
	WRITE_ONCE(*entry_of(ctx, id), TWHEEL_TABLE_CANCELLED(id));
	ctx_advance(test, ctx, 10 * MS);
	KUNIT_EXPECT_FALSE(test, twheel_ctx_readable(ctx));
	KUNIT_EXPECT_EQ(test, ctx_timers(ctx), 0ULL);
	KUNIT_EXPECT_EQ(test, *entry_of(ctx, id), 0ULL);
	twheel_ctx_destroy(ctx);
}

/*
 * The clock passes the tick of timers whose entries say cancelled, and
 * no update has run yet (on a real clock: before the hrtimer's callback
 * fired; here the manual clock moves without TWHEEL_IOC_ADVANCE's kick).
 * MODIFY's own update ends them and frees the periodic one: the MODIFY
 * finds no timer, rather than one freed under it.
 */
static void twheel_table_modify_after_unseen_cancel(struct kunit *test)
{
	struct twheel_ctx *ctx = ctx_table(test);
	struct twheel_op op = {
		.op = TWHEEL_OP_ADD, .expires_ns = 10 * MS,
		.period_ns = 10 * MS, .clock = CLOCK_MONOTONIC,
	};
	struct twheel_info info = { };
	u64 a, b;

	KUNIT_ASSERT_EQ(test, ctx_do(ctx, &op, NULL), 0);
	a = op.id;
	KUNIT_ASSERT_EQ(test, ctx_add(ctx, 2, 10 * MS, 0, CLOCK_MONOTONIC,
				      &b), 0);
	WRITE_ONCE(*entry_of(ctx, a), TWHEEL_TABLE_CANCELLED(a));
	WRITE_ONCE(*entry_of(ctx, b), TWHEEL_TABLE_CANCELLED(b));
	twheel_ctx_lock_update(ctx, TWHEEL_UPDATE_ALL);
	twheel_ctx_timers(ctx)->clocks.manual_ns = 10 * MS;
	twheel_ctx_unlock(ctx);
	KUNIT_EXPECT_FALSE(test, twheel_ctx_fired(ctx));
	KUNIT_EXPECT_EQ(test, ctx_modify(ctx, a, 50 * MS), -ENOENT);
	op = (struct twheel_op){
		.op = TWHEEL_OP_MODIFY, .id = b, .expires_ns = 50 * MS,
		.period_ns = 10 * MS, .flags = TWHEEL_ABSTIME,
	};
	KUNIT_EXPECT_EQ(test, ctx_do(ctx, &op, NULL), -ENOENT);
	twheel_ctx_info(ctx, &info);
	KUNIT_EXPECT_EQ(test, info.timers, 0ULL);
	KUNIT_EXPECT_EQ(test, info.cancelled, 2ULL);
	KUNIT_EXPECT_EQ(test, *entry_of(ctx, a), 0ULL);
	KUNIT_EXPECT_EQ(test, *entry_of(ctx, b), 0ULL);
	KUNIT_EXPECT_FALSE(test, twheel_ctx_readable(ctx));
	twheel_ctx_destroy(ctx);
}

static void twheel_table_config_rules(struct kunit *test)
{
	struct twheel_ctx *ctx = ctx_new(test, 1000);
	struct twheel_info info = { };

	KUNIT_EXPECT_EQ(test, twheel_ctx_mmap(ctx, 0, 1), -ENODEV);
	KUNIT_ASSERT_EQ(test, twheel_ctx_config(ctx, MS, TWHEEL_CONFIG_TABLE,
						513), 0);
	twheel_ctx_info(ctx, &info);
	KUNIT_EXPECT_EQ(test, info.table_size, 2 * PAGE_SIZE);
	KUNIT_EXPECT_EQ(test, info.config_flags, TWHEEL_CONFIG_TABLE);
	KUNIT_EXPECT_EQ(test, twheel_ctx_mmap(ctx, 1, 1), -EINVAL);
	KUNIT_EXPECT_EQ(test, twheel_ctx_mmap(ctx, 0, 3), -EINVAL);
	/* Not mapped yet: the table may go. */
	KUNIT_EXPECT_EQ(test, twheel_ctx_config(ctx, MS, 0, 0), 0);
	twheel_ctx_info(ctx, &info);
	KUNIT_EXPECT_EQ(test, info.table_size, 0ULL);
	KUNIT_ASSERT_EQ(test, twheel_ctx_config(ctx, MS, TWHEEL_CONFIG_TABLE,
						0), 0);
	KUNIT_EXPECT_EQ(test, twheel_ctx_mmap(ctx, 0, 2), 0);
	KUNIT_EXPECT_EQ(test, twheel_ctx_config(ctx, MS, 0, 0), -EBUSY);
	twheel_ctx_destroy(ctx);
}

/*
 * Adds whose results could not be written back leave free slots and no
 * timer: a table configured then has entries for those slots too, which
 * the next adds reuse (found by the fuzzer: a NULL page was written).
 */
static void twheel_table_after_failed_adds(struct kunit *test)
{
	struct twheel_ctx *ctx = ctx_new(test, 4096);
	struct twheel_op op = {
		.op = TWHEEL_OP_ADD, .expires_ns = 10 * MS,
		.clock = CLOCK_MONOTONIC,
	};
	struct twheel_info info = { };
	int i;

	for (i = 0; i < 3; i++) {
		op.id = 0;
		KUNIT_ASSERT_EQ(test, ctx_do(ctx, &op, ctx_fail), -EFAULT);
	}
	KUNIT_EXPECT_EQ(test, ctx_timers(ctx), 0ULL);
	KUNIT_ASSERT_EQ(test, twheel_ctx_config(ctx, MS, TWHEEL_CONFIG_MANUAL |
						TWHEEL_CONFIG_TABLE, 0), 0);
	twheel_ctx_info(ctx, &info);
	KUNIT_EXPECT_EQ(test, info.table_size, 8 * PAGE_SIZE);
	KUNIT_ASSERT_EQ(test, ctx_do(ctx, &op, NULL), 0);
	KUNIT_EXPECT_EQ(test, *entry_of(ctx, op.id),
			TWHEEL_TABLE_DEADLINE(op.id, 10));
	twheel_ctx_destroy(ctx);
}

/* fdinfo's "cancelled:" value of @ctx, or -1 without that line. */
static noinline long long show_cancelled(struct kunit *test,
					 struct twheel_ctx *ctx)
{
	struct seq_file *m = kunit_kzalloc(test, sizeof(*m), GFP_KERNEL);
	char *p;
	long long v;

	KUNIT_ASSERT_NOT_NULL(test, m);
	m->size = PAGE_SIZE;
	m->buf = kunit_kzalloc(test, m->size, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, m->buf);
	twheel_ctx_show(ctx, m);
	KUNIT_ASSERT_LT(test, m->count, m->size);
	p = strstr(m->buf, "\ncancelled:\t");
	if (!p)
		return -1;
	*strchrnul(p + 1, '\n') = 0;
	if (kstrtoll(p + strlen("\ncancelled:\t"), 10, &v) == 0)
		return v;
	return -2;
}

/*
 * INFO's and fdinfo's cancelled visit no entry (the bound of their work
 * does not grow with the timers): with every one of 4096 entries saying
 * cancelled they read 0 until the kernel acts on the entries at the
 * timers' tick, then 4096; entries changed afterwards change nothing.
 * A walk over the entries would read 4096 at once, and 0 at the end.
 */
static void twheel_table_cancelled_reads_no_entry(struct kunit *test)
{
	struct twheel_ctx *ctx = ctx_table(test);
	struct twheel_info info = { };
	u64 id, i;

	for (i = 0; i < 4096; i++) {
		KUNIT_ASSERT_EQ(test, ctx_add(ctx, i, 10 * MS, 0,
					      CLOCK_MONOTONIC, &id), 0);
		WRITE_ONCE(*entry_of(ctx, id), TWHEEL_TABLE_CANCELLED(id));
	}
	twheel_ctx_info(ctx, &info);
	KUNIT_EXPECT_EQ(test, info.timers, 4096ULL);
	KUNIT_EXPECT_EQ(test, info.cancelled, 0ULL);
	KUNIT_EXPECT_EQ(test, show_cancelled(test, ctx), 0LL);
	ctx_advance(test, ctx, 10 * MS);
	twheel_ctx_info(ctx, &info);
	KUNIT_EXPECT_EQ(test, info.timers, 0ULL);
	KUNIT_EXPECT_EQ(test, info.cancelled, 4096ULL);
	KUNIT_EXPECT_EQ(test, show_cancelled(test, ctx), 4096LL);
	/* The entries are 0 now; the count is kept, not recounted. */
	KUNIT_EXPECT_EQ(test, *entry_of(ctx, id), 0ULL);
	twheel_ctx_info(ctx, &info);
	KUNIT_EXPECT_EQ(test, info.cancelled, 4096ULL);
	twheel_ctx_destroy(ctx);
}

/* Without a table: INFO's cancelled is 0 and fdinfo has no such line. */
static void twheel_table_cancelled_without_table(struct kunit *test)
{
	struct twheel_ctx *ctx = ctx_new(test, 16);
	struct twheel_info info = { };

	twheel_ctx_info(ctx, &info);
	KUNIT_EXPECT_EQ(test, info.cancelled, 0ULL);
	KUNIT_EXPECT_EQ(test, show_cancelled(test, ctx), -1LL);
	twheel_ctx_destroy(ctx);
}

/*
 * page_mkwrite hands the page back locked with VM_FAULT_LOCKED: the
 * fault code then neither retries (an unlocked page with no mapping
 * reads as truncated) nor stamps the file (file_update_time()).
 */
static void twheel_table_page_mkwrite_locks(struct kunit *test)
{
	struct twheel_table tab = { };
	struct vm_fault *vmf = kunit_kzalloc(test, sizeof(*vmf), GFP_KERNEL);
	vm_fault_t ret;

	KUNIT_ASSERT_NOT_NULL(test, vmf);
	KUNIT_ASSERT_EQ(test, twheel_table_set_size(&tab, 1), 0);
	KUNIT_ASSERT_EQ(test, twheel_table_back(&tab, 0), 0);
	vmf->page = twheel_table_page(&tab, 0);
	KUNIT_ASSERT_NOT_NULL(test, vmf->page);
	ret = twheel_table_page_mkwrite(vmf);
	KUNIT_EXPECT_TRUE(test, ret == VM_FAULT_LOCKED);
	KUNIT_EXPECT_TRUE(test, PageLocked(vmf->page));
	unlock_page(vmf->page);
	put_page(vmf->page);
	twheel_table_free(&tab);
}

static struct kunit_case twheel_table_cases[] = {
	KUNIT_CASE(twheel_table_after_failed_adds),
	KUNIT_CASE(twheel_table_pages_backed_as_slots_grow),
	KUNIT_CASE(twheel_table_kernel_writes),
	KUNIT_CASE(twheel_table_push_back_and_cancel),
	KUNIT_CASE(twheel_table_other_values_do_nothing),
	KUNIT_CASE(twheel_table_periodic_takes_cancel_only),
	KUNIT_CASE(twheel_table_modify_after_unseen_cancel),
	KUNIT_CASE(twheel_table_config_rules),
	KUNIT_CASE(twheel_table_cancelled_reads_no_entry),
	KUNIT_CASE(twheel_table_cancelled_without_table),
	KUNIT_CASE(twheel_table_page_mkwrite_locks),
	{}
};

static struct kunit_suite twheel_table_suite = {
	.name = "twheel_table",
	.test_cases = twheel_table_cases,
};

kunit_test_suite(twheel_table_suite);
