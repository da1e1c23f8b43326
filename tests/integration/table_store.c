// SPDX-License-Identifier: GPL-2.0
/*
 * table_store: the shared timer table's entries as the kernel writes
 * them, and the stores into them that push a one-shot timer back or
 * cancel it, checked from what uapi/linux/twheel.h promises ("The shared
 * timer table"). The table's setup and mapping: table.c.
 *
 * Kernel writes: ADD and MODIFY (alone and in a batch) write
 * TWHEEL_TABLE_DEADLINE(id, deadline_ns / tick_ns), the end of a timer
 * (read, CANCEL) writes 0, nothing else is written (an expiry, a periodic
 * re-arm, other entries).
 * Stores, on the manual clock: a later deadline pushes a one-shot timer
 * back (no record, re-placed at exactly that tick, only the last store
 * counts, again and again, 5000 timers of one tick at once), an earlier
 * one or one stored after the record was queued changes nothing;
 * TWHEEL_TABLE_CANCELLED frees the timer at its tick without a record,
 * counted until then in info.timers and against max_timers (ENOSPC),
 * and from then on in info.cancelled and fdinfo's cancelled (the timers
 * the kernel ended so, since the fd was opened: 100 000 timers, a third
 * of them cancelled by a store, count exactly that third, no more for
 * stale stores, CANCEL or MODIFY over a stored cancel, or reads);
 * CANCEL on it succeeds, MODIFY overrides it.
 * A cancel stored, its tick passed unseen on a real clock: MODIFY finds
 * no timer, and the fd works as before. Id 0 is no timer.
 */
#define _GNU_SOURCE
#include "table.h"

/* ---- 1. the kernel's writes ---- */

static void kernel_writes(void)
{
	uint64_t *tab, a, b, p, sentinel_id;
	const uint64_t sentinel = 0x5a5a00000000abcdULL;
	struct twheel_event ev;
	struct twheel_op ops[2];
	unsigned int k;
	int fd;

	fd = manual_table(64, &tab);
	/* An entry nobody's: slot 40 (backed: the first page is). */
	sentinel_id = 41;
	a = twt_add(fd, 1, 10 * MS + MS / 2, TWHEEL_ABSTIME, CLOCK_MONOTONIC);
	st(tab, sentinel_id, sentinel);
	CHECK_EQ(twt_query(fd, a).deadline_ns, 11 * MS);
	CHECK_EQ(ld(tab, a), TWHEEL_TABLE_DEADLINE(a, 11));
	b = twt_add(fd, 2, 7 * MS, 0, CLOCK_REALTIME);
	CHECK_EQ(ld(tab, b), TWHEEL_TABLE_DEADLINE(b, 7));
	/* Periodic: deadline_ns is the grid's point, D rounded down. */
	p = twt_addp(fd, 3, 10 * MS + MS / 2, 10 * MS, TWHEEL_ABSTIME,
		     CLOCK_BOOTTIME);
	CHECK_EQ(twt_query(fd, p).deadline_ns, 10 * MS + MS / 2);
	CHECK_EQ(ld(tab, p), TWHEEL_TABLE_DEADLINE(p, 10));
	CHECK_PUBLISHED(fd, tab, p, MS);

	CHECK_EQ(twt_modify(fd, a, 40 * MS, 0, TWHEEL_ABSTIME),
		 TWHEEL_STATE_PENDING);
	CHECK_EQ(ld(tab, a), TWHEEL_TABLE_DEADLINE(a, 40));
	/* Expired, unread: unchanged; read: 0. */
	adv_to(fd, 7 * MS);
	CHECK_EQ(twt_queued(fd), 1);
	CHECK_EQ(ld(tab, b), TWHEEL_TABLE_DEADLINE(b, 7));
	expect_one(fd, b, 2, 7 * MS);
	CHECK_EQ(ld(tab, b), 0);
	/* A periodic expiry and re-arm write nothing. */
	adv_to(fd, 11 * MS);
	expect_one(fd, p, 3, 11 * MS);
	CHECK_EQ(twt_query(fd, p).deadline_ns, 20 * MS + MS / 2);
	CHECK_EQ(ld(tab, p), TWHEEL_TABLE_DEADLINE(p, 10));
	CHECK_EQ(twt_cancel(fd, p), TWHEEL_STATE_PENDING);
	CHECK_EQ(ld(tab, p), 0);
	/* MODIFY of a queued timer writes the new deadline; CANCEL 0. */
	adv_to(fd, 40 * MS);
	CHECK_EQ(twt_queued(fd), 1);
	CHECK_EQ(ld(tab, a), TWHEEL_TABLE_DEADLINE(a, 40));
	CHECK_EQ(twt_modify(fd, a, 60 * MS, 0, TWHEEL_ABSTIME),
		 TWHEEL_STATE_QUEUED);
	CHECK_EQ(ld(tab, a), TWHEEL_TABLE_DEADLINE(a, 60));
	CHECK_EQ(twt_cancel(fd, a), TWHEEL_STATE_PENDING);
	CHECK_EQ(ld(tab, a), 0);
	CHECK_ERR(read(fd, &ev, sizeof(ev)), EAGAIN);

	/* In a batch: ADD, then MODIFY of it. */
	memset(ops, 0, sizeof(ops));
	ops[0].op = TWHEEL_OP_ADD;
	ops[0].expires_ns = 100 * MS;
	ops[0].flags = TWHEEL_ABSTIME;
	ops[0].clock = CLOCK_MONOTONIC;
	CHECK_EQ(twt_submit_raw(fd, ops, 1), 1);
	CHECK_EQ(ops[0].error, 0);
	CHECK_EQ(ld(tab, ops[0].id), TWHEEL_TABLE_DEADLINE(ops[0].id, 100));
	ops[1].op = TWHEEL_OP_MODIFY;
	ops[1].id = ops[0].id;
	ops[1].expires_ns = 5 * MS;	/* relative: now 40 ms */
	CHECK_EQ(twt_submit_raw(fd, ops + 1, 1), 1);
	CHECK_EQ(ops[1].error, 0);
	CHECK_EQ(ld(tab, ops[0].id), TWHEEL_TABLE_DEADLINE(ops[0].id, 45));
	CHECK_EQ(ld(tab, sentinel_id), sentinel);
	close(fd);

	/* Another tick: D = deadline_ns / tick_ns. */
	fd = open_table(CFG_MANUAL, 3 * MS, 8);
	tab = map_table(fd, pgsz());
	a = twt_add(fd, 1, 10 * MS, TWHEEL_ABSTIME, CLOCK_MONOTONIC);
	CHECK_EQ(twt_query(fd, a).deadline_ns, 12 * MS);
	CHECK_EQ(ld(tab, a), TWHEEL_TABLE_DEADLINE(a, 4));
	close(fd);

	/* Real clocks: the tick of the clock's deadline, each clock. */
	fd = open_table(0, MS, 8);
	tab = map_table(fd, pgsz());
	for (k = 0; k < TWT_NCLOCKS; k++) {
		clockid_t c = twt_clock(k);

		a = twt_add(fd, k, 3600 * TWT_S + 123456, 0, c);
		CHECK_PUBLISHED(fd, tab, a, MS);
		b = twt_add(fd, k, twt_now(c) + 7 * TWT_S + 1, TWHEEL_ABSTIME,
			    c);
		CHECK_PUBLISHED(fd, tab, b, MS);
	}
	close(fd);
}

/* ---- 2. pushed back by a store ---- */

static void push_back(void)
{
	uint64_t *tab, id;
	struct twheel_status s;
	struct twheel_info info;
	int fd;

	fd = manual_table(8, &tab);
	id = twt_add(fd, 77, 10 * MS, TWHEEL_ABSTIME, CLOCK_MONOTONIC);
	CHECK_EQ(ld(tab, id), TWHEEL_TABLE_DEADLINE(id, 10));
	st(tab, id, TWHEEL_TABLE_DEADLINE(id, 25));
	/* Read only when due: until then the placed deadline. */
	CHECK_EQ(twt_query(fd, id).deadline_ns, 10 * MS);
	adv_to(fd, 9 * MS);
	CHECK_NONE_QUEUED(fd);
	adv_to(fd, 10 * MS);
	CHECK_NONE_QUEUED(fd);
	info = twt_info(fd);
	CHECK_EQ(info.timers, 1);
	CHECK_EQ(info.queued, 0);
	s = twt_query(fd, id);
	CHECK_EQ(s.state, TWHEEL_STATE_PENDING);
	CHECK_EQ(s.deadline_ns, 25 * MS);
	/* The kernel writes nothing when it re-places. */
	CHECK_EQ(ld(tab, id), TWHEEL_TABLE_DEADLINE(id, 25));
	adv_to(fd, 24 * MS);
	CHECK_NONE_QUEUED(fd);
	adv_to(fd, 25 * MS);
	expect_one(fd, id, 77, 25 * MS);
	CHECK_NONE_QUEUED(fd);
	CHECK_EQ(ld(tab, id), 0);
	CHECK_EQ(twt_timers(fd), 0);
	CHECK_ERR(twt_query_raw(fd, id, NULL), ENOENT);

	/* Again and again: 30 -> 40 -> 55, pushed while placed at each. */
	id = twt_add(fd, 78, 30 * MS, TWHEEL_ABSTIME, CLOCK_MONOTONIC);
	st(tab, id, TWHEEL_TABLE_DEADLINE(id, 40));
	adv_to(fd, 30 * MS);
	CHECK_NONE_QUEUED(fd);
	st(tab, id, TWHEEL_TABLE_DEADLINE(id, 55));
	adv_to(fd, 40 * MS);
	CHECK_NONE_QUEUED(fd);
	CHECK_EQ(twt_query(fd, id).deadline_ns, 55 * MS);
	adv_to(fd, 54 * MS);
	CHECK_NONE_QUEUED(fd);
	adv_to(fd, 55 * MS);
	expect_one(fd, id, 78, 55 * MS);
	CHECK_NONE_QUEUED(fd);

	/* An advance past both: due at the read, the record at its time. */
	id = twt_add(fd, 79, 60 * MS, TWHEEL_ABSTIME, CLOCK_MONOTONIC);
	st(tab, id, TWHEEL_TABLE_DEADLINE(id, 70));
	adv_to(fd, 100 * MS);
	expect_one(fd, id, 79, 100 * MS);
	close(fd);
}

/* 1000 stores before the deadline: the last one counts, one record. */
static void push_back_many(void)
{
	uint64_t *tab, id, other;
	int fd, i;

	fd = manual_table(8, &tab);
	id = twt_add(fd, 1, 10 * MS, TWHEEL_ABSTIME, CLOCK_MONOTONIC);
	other = twt_add(fd, 2, 10 * MS, TWHEEL_ABSTIME, CLOCK_MONOTONIC);
	for (i = 11; i <= 1010; i++)
		st(tab, id, TWHEEL_TABLE_DEADLINE(id, i));
	adv_to(fd, 10 * MS);
	expect_one(fd, other, 2, 10 * MS);
	CHECK_NONE_QUEUED(fd);
	adv_to(fd, 1009 * MS);
	CHECK_NONE_QUEUED(fd);
	CHECK_EQ(twt_query(fd, id).deadline_ns, 1010 * MS);
	adv_to(fd, 1010 * MS);
	expect_one(fd, id, 1, 1010 * MS);
	adv_to(fd, 5000 * MS);
	CHECK_NONE_QUEUED(fd);
	CHECK_EQ(twt_timers(fd), 0);
	close(fd);
}

/*
 * Many timers of one tick, each pushed back to one of 64 later ticks (far
 * ones too, beyond the wheel's first level): none fires at the old tick,
 * each exactly at its own, in one advance or step by step.
 */
static void push_back_crowd(void)
{
	enum { N = 5000 };
	static uint64_t ids[N];
	static struct twheel_event ev[N + 1];
	static int got[N];
	uint64_t *tab;
	size_t n, j;
	int fd, i, t;

	fd = manual_table(0, &tab);
	for (i = 0; i < N; i++) {
		ids[i] = twt_add(fd, i, 10 * MS, TWHEEL_ABSTIME,
				 CLOCK_MONOTONIC);
		st(tab, ids[i], TWHEEL_TABLE_DEADLINE(ids[i],
						      11 + (i % 64) * 97));
	}
	adv_to(fd, 10 * MS);
	CHECK_NONE_QUEUED(fd);
	CHECK_EQ(twt_timers(fd), N);
	for (t = 11; t <= 11 + 63 * 97; t++) {
		adv_to(fd, t * MS);
		n = twt_drain(fd, ev, N + 1);
		if ((t - 11) % 97) {
			CHECK_EQ(n, 0);
			continue;
		}
		CHECK_EQ(n, (N + 63 - (t - 11) / 97) / 64);
		for (j = 0; j < n; j++) {
			CHECK(ev[j].cookie < N);
			CHECK_EQ(ev[j].id, ids[ev[j].cookie]);
			CHECK_EQ(ev[j].time_ns, t * MS);
			CHECK_EQ(11 + (ev[j].cookie % 64) * 97, t);
			CHECK_EQ(got[ev[j].cookie]++, 0);
		}
	}
	CHECK_EQ(twt_timers(fd), 0);
	close(fd);
}

/* A store cannot move a timer forward: earlier or equal ticks. */
static void push_back_earlier(void)
{
	uint64_t *tab, a, b, c;
	struct twheel_event ev[4];
	int fd;

	fd = manual_table(8, &tab);
	a = twt_add(fd, 1, 10 * MS, TWHEEL_ABSTIME, CLOCK_MONOTONIC);
	b = twt_add(fd, 2, 10 * MS, TWHEEL_ABSTIME, CLOCK_MONOTONIC);
	c = twt_add(fd, 3, 10 * MS, TWHEEL_ABSTIME, CLOCK_MONOTONIC);
	st(tab, a, TWHEEL_TABLE_DEADLINE(a, 5));
	st(tab, b, TWHEEL_TABLE_DEADLINE(b, 10));
	st(tab, c, TWHEEL_TABLE_DEADLINE(c, 0));
	adv_to(fd, 5 * MS);
	CHECK_NONE_QUEUED(fd);
	adv_to(fd, 9 * MS);
	CHECK_NONE_QUEUED(fd);
	adv_to(fd, 10 * MS);
	CHECK_EQ(read(fd, ev, sizeof(ev)), 3 * TWT_EV_SIZE);
	CHECK_EQ(ev[0].id, a);
	CHECK_EQ(ev[1].id, b);
	CHECK_EQ(ev[2].id, c);
	CHECK_EQ(ev[0].time_ns, 10 * MS);
	CHECK_EQ(ev[1].time_ns, 10 * MS);
	CHECK_EQ(ev[2].time_ns, 10 * MS);
	CHECK_NONE_QUEUED(fd);
	close(fd);
}

/* A store after the record was queued changes nothing. */
static void store_while_queued(void)
{
	uint64_t *tab, id;
	int fd;

	fd = manual_table(8, &tab);
	id = twt_add(fd, 4, 10 * MS, TWHEEL_ABSTIME, CLOCK_MONOTONIC);
	adv_to(fd, 10 * MS);
	CHECK_EQ(twt_queued(fd), 1);
	st(tab, id, TWHEEL_TABLE_DEADLINE(id, 50));
	adv_to(fd, 11 * MS);
	CHECK_EQ(twt_queued(fd), 1);
	CHECK_EQ(twt_query(fd, id).state, TWHEEL_STATE_QUEUED);
	expect_one(fd, id, 4, 10 * MS);
	CHECK_EQ(ld(tab, id), 0);
	adv_to(fd, 50 * MS);
	CHECK_NONE_QUEUED(fd);

	/* Nor a cancel: the record stays and is read once. */
	id = twt_add(fd, 5, 60 * MS, TWHEEL_ABSTIME, CLOCK_MONOTONIC);
	adv_to(fd, 60 * MS);
	st(tab, id, TWHEEL_TABLE_CANCELLED(id));
	adv_to(fd, 100 * MS);
	CHECK_EQ(twt_queued(fd), 1);
	expect_one(fd, id, 5, 60 * MS);
	CHECK_EQ(ld(tab, id), 0);
	CHECK_NONE_QUEUED(fd);
	CHECK_EQ(twt_timers(fd), 0);
	close(fd);
}

/* ---- 3. cancelled by a store ---- */

static void cancel_by_store(void)
{
	uint64_t *tab, ids[4], more[2];
	struct twheel_event ev[4];
	struct twheel_info info;
	uint64_t x;
	int fd, i;

	fd = manual_table(4, &tab);
	for (i = 0; i < 4; i++)
		ids[i] = twt_add(fd, 100 + i, 10 * MS, TWHEEL_ABSTIME,
				 CLOCK_MONOTONIC);
	st(tab, ids[1], TWHEEL_TABLE_CANCELLED(ids[1]));
	st(tab, ids[3], TWHEEL_TABLE_CANCELLED(ids[3]));
	/* Not counted yet: the kernel has not read the stores. */
	info = twt_info(fd);
	CHECK_EQ(info.timers, 4);
	CHECK_EQ(info.cancelled, 0);
	CHECK_EQ(info.queued, 0);
	CHECK_EQ(fdinfo_of(fd, "cancelled"), 0);
	CHECK_EQ(fdinfo_of(fd, "timers"), 4);
	CHECK_EQ(fdinfo_of(fd, "table_size"), pgsz());
	CHECK_EQ(fdinfo_of(fd, "table_bytes"), pgsz());
	/* Live until their tick: they count against max_timers. */
	CHECK_ERR(twt_add_raw(fd, 9, 100 * MS, TWHEEL_ABSTIME,
			      CLOCK_MONOTONIC, &x), ENOSPC);
	CHECK_EQ(twt_query(fd, ids[1]).state, TWHEEL_STATE_PENDING);
	adv_to(fd, 9 * MS);
	CHECK_EQ(twt_info(fd).cancelled, 0);
	CHECK_EQ(twt_info(fd).timers, 4);
	CHECK_ERR(twt_add_raw(fd, 9, 100 * MS, TWHEEL_ABSTIME,
			      CLOCK_MONOTONIC, &x), ENOSPC);
	/* Their tick frees them, with no record. */
	adv_to(fd, 10 * MS);
	info = twt_info(fd);
	CHECK_EQ(info.cancelled, 2);
	CHECK_EQ(info.timers, 2);
	CHECK_EQ(info.queued, 2);
	CHECK_EQ(fdinfo_of(fd, "cancelled"), 2);
	CHECK_EQ(ld(tab, ids[1]), 0);
	CHECK_EQ(ld(tab, ids[3]), 0);
	CHECK_ERR(twt_query_raw(fd, ids[1], NULL), ENOENT);
	CHECK_ERR(twt_query_raw(fd, ids[3], NULL), ENOENT);
	CHECK_ERR(twt_cancel_raw(fd, ids[3], 0, NULL), ENOENT);
	/* Room for two again, not three (the records count until read). */
	for (i = 0; i < 2; i++)
		more[i] = twt_add(fd, 200 + i, 100 * MS, TWHEEL_ABSTIME,
				  CLOCK_MONOTONIC);
	CHECK_ERR(twt_add_raw(fd, 9, 100 * MS, TWHEEL_ABSTIME,
			      CLOCK_MONOTONIC, &x), ENOSPC);
	CHECK_EQ(read(fd, ev, sizeof(ev)), 2 * TWT_EV_SIZE);
	CHECK_EQ(ev[0].id, ids[0]);
	CHECK_EQ(ev[0].cookie, 100);
	CHECK_EQ(ev[1].id, ids[2]);
	CHECK_EQ(ev[1].cookie, 102);
	CHECK_EQ(ev[0].time_ns, 10 * MS);
	CHECK_EQ(ev[1].time_ns, 10 * MS);
	CHECK_NONE_QUEUED(fd);
	CHECK(more[0] != ids[1] && more[0] != ids[3]);
	/* Ended timers stay counted: reads and new timers change nothing. */
	CHECK_EQ(twt_info(fd).cancelled, 2);
	CHECK_EQ(fdinfo_of(fd, "cancelled"), 2);
	close(fd);
}

/* CANCEL ends a store-cancelled timer at once; MODIFY overrides it. */
static void cancel_then_ioctl(void)
{
	uint64_t *tab, a, b, c;
	struct twheel_status s;
	int fd;

	fd = manual_table(8, &tab);
	a = twt_add(fd, 1, 10 * MS, TWHEEL_ABSTIME, CLOCK_MONOTONIC);
	b = twt_add(fd, 2, 10 * MS, TWHEEL_ABSTIME, CLOCK_MONOTONIC);
	c = twt_add(fd, 3, 10 * MS, TWHEEL_ABSTIME, CLOCK_MONOTONIC);
	st(tab, a, TWHEEL_TABLE_CANCELLED(a));
	st(tab, b, TWHEEL_TABLE_CANCELLED(b));
	st(tab, c, TWHEEL_TABLE_CANCELLED(c));
	CHECK_EQ(twt_info(fd).cancelled, 0);
	/* Every ioctl works on it as on any other. */
	s = twt_query(fd, c);
	CHECK_EQ(s.state, TWHEEL_STATE_PENDING);
	CHECK_EQ(s.deadline_ns, 10 * MS);
	CHECK_EQ(s.cookie, 3);
	CHECK_EQ(twt_cancel(fd, a), TWHEEL_STATE_PENDING);
	CHECK_EQ(ld(tab, a), 0);
	CHECK_ERR(twt_query_raw(fd, a, NULL), ENOENT);
	/* Ended by CANCEL, not by its entry: not counted. */
	CHECK_EQ(twt_info(fd).cancelled, 0);
	CHECK_EQ(twt_info(fd).timers, 2);
	CHECK_EQ(twt_modify(fd, b, 20 * MS, 0, TWHEEL_ABSTIME),
		 TWHEEL_STATE_PENDING);
	CHECK_EQ(ld(tab, b), TWHEEL_TABLE_DEADLINE(b, 20));
	CHECK_EQ(twt_info(fd).cancelled, 0);
	adv_to(fd, 10 * MS);
	CHECK_NONE_QUEUED(fd);
	CHECK_EQ(twt_info(fd).timers, 1);
	/* Only c ended by its entry. */
	CHECK_EQ(twt_info(fd).cancelled, 1);
	CHECK_ERR(twt_query_raw(fd, c, NULL), ENOENT);
	adv_to(fd, 19 * MS);
	CHECK_NONE_QUEUED(fd);
	adv_to(fd, 20 * MS);
	expect_one(fd, b, 2, 20 * MS);
	CHECK_NONE_QUEUED(fd);
	CHECK_EQ(twt_timers(fd), 0);
	CHECK_EQ(twt_info(fd).cancelled, 1);
	close(fd);
}

/*
 * A cancel stored, its tick passed, and the fd not used since: the
 * update that MODIFY does first ends the timer, so the MODIFY itself
 * finds no timer (ENOENT), whether the timer was periodic (a large
 * object, freed) or one-shot turning periodic (a small one, kept for
 * reuse). Then the fd works as before.
 */
static void modify_after_cancel_tick(void)
{
	struct twheel_event ev;
	uint64_t *tab, a, b, c;
	uint32_t res = 99;
	int64_t t0;
	int fd, try;

	/*
	 * The cancels must be stored before the timers' tick: on a machine
	 * that stalls past it between the adds and the stores (a loaded
	 * emulated one), the timers expire first. Then try again, with a
	 * fresh fd: the case is about what follows a timely store.
	 */
	for (try = 0;; try++) {
		CHECK(try < 20);
		fd = open_table(0, MS, 8);
		tab = map_table(fd, twt_info(fd).table_size);
		t0 = twt_mono();
		a = twt_addp(fd, 1, 20 * MS, 1000 * MS, 0, CLOCK_MONOTONIC);
		b = twt_add_rel(fd, 2, 20 * MS);
		st(tab, a, TWHEEL_TABLE_CANCELLED(a));
		st(tab, b, TWHEEL_TABLE_CANCELLED(b));
		if (twt_mono() < t0 + 20 * MS)
			break;
		printf("# the stores came %.3f ms after the adds, past the tick: again\n",
		       (twt_mono() - t0) / 1e6);
		munmap(tab, twt_info(fd).table_size);
		close(fd);
	}
	/* Past both ticks, with nothing that brings the wheel up to date. */
	usleep(60 * 1000);
	CHECK_ERR(twt_modify_raw(fd, a, 0, 100 * MS, 0, 0, &res), ENOENT);
	CHECK_ERR(twt_modify_raw(fd, b, 0, 100 * MS, 50 * MS, 0, &res),
		  ENOENT);
	CHECK_EQ(res, 99);
	CHECK_EQ(twt_info(fd).cancelled, 2);
	CHECK_EQ(twt_info(fd).timers, 0);
	CHECK_EQ(ld(tab, a), 0);
	CHECK_EQ(ld(tab, b), 0);
	c = twt_add_rel(fd, 3, 1 * MS);
	CHECK(twt_poll(fd, 5000) & POLLIN);
	CHECK_EQ(read(fd, &ev, sizeof(ev)), TWT_EV_SIZE);
	CHECK_EQ(ev.id, c);
	CHECK_EQ(ev.cookie, 3);
	CHECK_EQ(twt_info(fd).timers, 0);
	close(fd);
}

/* ---- 4. the count of the store-cancelled timers ---- */

/*
 * info.cancelled and fdinfo's cancelled count the timers the kernel ended
 * because their entry said TWHEEL_TABLE_CANCELLED, since the fd was
 * opened: with 100 000 timers, a third cancelled by a store, another
 * share by stale stores (the tag of another generation, or of another
 * live timer's entry), one store-cancelled timer ended by CANCEL and one
 * overridden by MODIFY, the count is exactly the third less those two,
 * 0 until their tick and the same after every read. INFO and fdinfo
 * visit no slot for it (O(1): see the header); this checks the value.
 */
#define BIGN		100000
#define BIGBATCH	1024

static void cancelled_count_100k(void)
{
	static struct twheel_op ops[BIGBATCH];
	static uint64_t ids[BIGN];
	uint64_t *tab, want = 0, x;
	struct twheel_info info;
	struct twheel_event ev[64];
	size_t got = 0;
	ssize_t r;
	int fd, i, k;

	fd = open_table(CFG_MANUAL, MS, BIGN);
	tab = map_table(fd, twt_info(fd).table_size);
	for (i = 0; i < BIGN; i += k) {
		k = BIGN - i < BIGBATCH ? BIGN - i : BIGBATCH;
		memset(ops, 0, sizeof(ops));
		for (r = 0; r < k; r++) {
			ops[r].op = TWHEEL_OP_ADD;
			ops[r].flags = TWHEEL_ABSTIME;
			ops[r].cookie = i + r;
			ops[r].expires_ns = ((i + r) % 2 ? 10 : 20) * MS;
			ops[r].clock = CLOCK_MONOTONIC;
		}
		CHECK_EQ(twt_submit_raw(fd, ops, k), k);
		for (r = 0; r < k; r++) {
			CHECK_EQ(ops[r].error, 0);
			ids[i + r] = ops[r].id;
		}
	}
	CHECK_EQ(twt_info(fd).timers, BIGN);
	CHECK_ERR(twt_add_raw(fd, 0, 30 * MS, TWHEEL_ABSTIME,
			      CLOCK_MONOTONIC, &x), ENOSPC);
	for (i = 0; i < BIGN; i++) {
		if (i % 3 == 0) {
			st(tab, ids[i], TWHEEL_TABLE_CANCELLED(ids[i]));
			want++;
		} else if (i % 3 == 1 && i % 2) {
			/* Another generation's cancel: nothing. */
			st(tab, ids[i], TWHEEL_TABLE_CANCELLED(ids[i]) ^
					(1ULL << 40));
		}
	}
	info = twt_info(fd);
	CHECK_EQ(info.cancelled, 0);
	CHECK_EQ(info.timers, BIGN);
	CHECK_EQ(fdinfo_of(fd, "cancelled"), 0);
	/* Ended by CANCEL, overridden by MODIFY: neither counts. */
	CHECK_EQ(twt_cancel(fd, ids[0]), TWHEEL_STATE_PENDING);
	CHECK_EQ(twt_modify(fd, ids[3], 30 * MS, 0, TWHEEL_ABSTIME),
		 TWHEEL_STATE_PENDING);
	want -= 2;
	adv_to(fd, 10 * MS);
	info = twt_info(fd);
	/* The odd ones, due at 10: a third of them were cancelled. */
	for (i = 0, x = 0; i < BIGN; i++)
		x += i % 2 && i % 3 == 0 && i != 3;
	CHECK_EQ(info.cancelled, x);
	CHECK_EQ(fdinfo_of(fd, "cancelled"), (long long)x);
	adv_to(fd, 20 * MS);
	info = twt_info(fd);
	printf("# %d timers, %" PRIu64 " cancelled by a store\n", BIGN, want);
	CHECK_EQ(info.cancelled, want);
	CHECK_EQ(fdinfo_of(fd, "cancelled"), (long long)want);
	CHECK_EQ(info.timers, BIGN - want - 1);
	CHECK_EQ(info.queued, BIGN - want - 2);
	while ((r = read(fd, ev, sizeof(ev))) > 0)
		got += r / TWT_EV_SIZE;
	CHECK_EQ(r, -1);
	CHECK_EQ(errno, EAGAIN);
	CHECK_EQ(got, BIGN - want - 2);
	adv_to(fd, 30 * MS);
	expect_one(fd, ids[3], 3, 30 * MS);
	info = twt_info(fd);
	CHECK_EQ(info.timers, 0);
	CHECK_EQ(info.cancelled, want);
	CHECK_EQ(fdinfo_of(fd, "cancelled"), (long long)want);
	close(fd);
}

/* ---- 5. id 0 ---- */

/* Id 0 (a clock-set record's) is no timer: every ioctl on it ENOENT. */
static void id_zero(void)
{
	struct twheel_op op;
	uint64_t *tab;
	int fd;

	fd = manual_table(8, &tab);
	twt_add(fd, 1, 10 * MS, TWHEEL_ABSTIME, CLOCK_MONOTONIC);
	CHECK_ERR(twt_query_raw(fd, 0, NULL), ENOENT);
	CHECK_ERR(twt_cancel_raw(fd, 0, 0, NULL), ENOENT);
	CHECK_ERR(twt_modify_raw(fd, 0, 0, 20 * MS, 0, TWHEEL_ABSTIME, NULL),
		  ENOENT);
	memset(&op, 0, sizeof(op));
	op.op = TWHEEL_OP_CANCEL;
	CHECK_EQ(twt_submit_raw(fd, &op, 1), 1);
	CHECK_EQ(op.error, -ENOENT);
	CHECK_EQ(twt_timers(fd), 1);
	close(fd);
}

TWT_MAIN("table_store",
	 TWT_CASE(kernel_writes),
	 TWT_CASE(push_back),
	 TWT_CASE(push_back_many),
	 TWT_CASE(push_back_crowd),
	 TWT_CASE(push_back_earlier),
	 TWT_CASE(store_while_queued),
	 TWT_CASE(cancel_by_store),
	 TWT_CASE(cancel_then_ioctl),
	 TWT_CASE(modify_after_cancel_tick),
	 TWT_CASE_T(cancelled_count_100k, 600),
	 TWT_CASE(id_zero))
