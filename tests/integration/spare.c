// SPDX-License-Identifier: GPL-2.0
/*
 * spare: an fd keeps the memory of its ended one-shot timers (cancelled,
 * or read) for its next adds, as fdinfo's spare shows: never more than
 * its free id slots (so what one slot can hold stays bounded), at most
 * TWHEEL_SPARE_MAX (1024); used again by the next adds, alone or in a
 * batch; periodic timers are not kept. What is kept is freed at close
 * (kmemleak on the debug kernel would report it otherwise).
 */
#include "twtest.h"

#define MS	1000000LL
#define SPARE_MAX	1024

static long long fdinfo_of(int fd, const char *key)
{
	long long v = -1;

	CHECK_OK(twt_fdinfo(fd, key, &v));
	return v;
}

/* Cancelled timers are kept, one per free slot; adds take them back. */
static void kept_by_cancel(void)
{
	int fd = twt_open(O_NONBLOCK);
	uint64_t ids[10];
	int i;

	CHECK_EQ(fdinfo_of(fd, "spare"), 0);
	for (i = 0; i < 10; i++)
		ids[i] = twt_add_rel(fd, i, 3600 * TWT_S);
	for (i = 0; i < 10; i++)
		twt_cancel(fd, ids[i]);
	CHECK_EQ(fdinfo_of(fd, "slots"), 10);
	CHECK_EQ(fdinfo_of(fd, "spare"), 10);
	/* Four adds take four back; live + spare stays within the slots. */
	for (i = 0; i < 4; i++)
		twt_add_rel(fd, i, 3600 * TWT_S);
	CHECK_EQ(fdinfo_of(fd, "spare"), 6);
	CHECK_EQ(fdinfo_of(fd, "slots"), 10);
	close(fd);
}

/* Read one-shot timers are kept too; periodic ones are not. */
static void kept_by_read(void)
{
	int fd = twt_open_manual(O_NONBLOCK, MS);
	struct twheel_event ev[8];
	uint64_t p;
	int i;

	for (i = 0; i < 5; i++)
		twt_add(fd, i, MS, TWHEEL_ABSTIME, CLOCK_MONOTONIC);
	p = twt_addp(fd, 9, 10 * MS, 10 * MS, TWHEEL_ABSTIME,
		     CLOCK_MONOTONIC);
	twt_advance(fd, MS);
	CHECK_EQ(read(fd, ev, sizeof(ev)), 5 * sizeof(ev[0]));
	CHECK_EQ(fdinfo_of(fd, "spare"), 5);
	twt_cancel(fd, p);
	CHECK_EQ(fdinfo_of(fd, "spare"), 5);
	close(fd);
}

/* At most SPARE_MAX, whatever was held; a batch of adds uses them. */
static void bounded_and_batched(void)
{
	enum { N = SPARE_MAX + 500 };
	static uint64_t ids[N];
	int fd = twt_open(O_NONBLOCK);
	struct twheel_op ops[64];
	int i;

	for (i = 0; i < N; i++)
		ids[i] = twt_add_rel(fd, i, 3600 * TWT_S);
	for (i = 0; i < N; i++)
		twt_cancel(fd, ids[i]);
	CHECK_EQ(fdinfo_of(fd, "spare"), SPARE_MAX);
	memset(ops, 0, sizeof(ops));
	for (i = 0; i < 64; i++) {
		ops[i].op = TWHEEL_OP_ADD;
		ops[i].expires_ns = 3600 * TWT_S;
		ops[i].clock = CLOCK_MONOTONIC;
	}
	CHECK_EQ(twt_submit_raw(fd, ops, 64), 64);
	for (i = 0; i < 64; i++)
		CHECK_EQ(ops[i].error, 0);
	CHECK_EQ(fdinfo_of(fd, "spare"), SPARE_MAX - 64);
	CHECK_EQ(twt_info(fd).timers, 64);
	close(fd);
}

TWT_MAIN("spare",
	 TWT_CASE(kept_by_cancel),
	 TWT_CASE(kept_by_read),
	 TWT_CASE(bounded_and_batched))
