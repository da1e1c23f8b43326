// SPDX-License-Identifier: GPL-2.0
/*
 * table_values: which values stored into the shared timer table act on
 * which timer, on the manual clock, checked from what uapi/linux/twheel.h
 * promises ("The shared timer table"). What a later deadline and a
 * cancel do: table_store.c.
 *
 * A value stored at the wrong index acts on that entry's timer when its
 * bits 33 to 63 are that timer's (another live timer of the same
 * generation). Stores aimed at an ended timer of the same entry, 0 and
 * garbage never touch the next timer; random values with the right tag
 * follow the header's rule exactly (the D within 2^31 ticks of the
 * present tick), never early, never twice.
 * The 2^31-tick range of D; periodic timers ignore stored deadlines and
 * end at their next tick when cancelled.
 * The present a stored D is read against is the end of the ADVANCE
 * that brings the wheel to it.
 */
#define _GNU_SOURCE
#include "table.h"

/* ---- 1. stale stores ---- */

static void stale_stores(void)
{
	uint64_t *tab, prev, id, seed = 0x7ab1e;
	int64_t t;
	int fd, round;

	/* One timer at a time: each takes the entry of the one before. */
	fd = manual_table(1, &tab);
	prev = twt_add(fd, 0, 10 * MS, TWHEEL_ABSTIME, CLOCK_MONOTONIC);
	adv_to(fd, 10 * MS);
	expect_one(fd, prev, 0, 10 * MS);
	CHECK_EQ(ld(tab, prev), 0);
	for (round = 1; round <= 40; round++) {
		const char *what;
		uint64_t v;

		t = (10 + 10 * round) * MS;
		/* Every other one ends by CANCEL instead of a read. */
		if (round % 2 == 0) {
			uint64_t dead = twt_add(fd, 999, t + 5 * MS,
						TWHEEL_ABSTIME,
						CLOCK_MONOTONIC);

			CHECK_EQ(TWHEEL_TABLE_INDEX(dead),
				 TWHEEL_TABLE_INDEX(prev));
			twt_cancel(fd, dead);
			CHECK_EQ(ld(tab, dead), 0);
			prev = dead;
		}
		id = twt_add(fd, round, t, TWHEEL_ABSTIME, CLOCK_MONOTONIC);
		CHECK_EQ(TWHEEL_TABLE_INDEX(id), TWHEEL_TABLE_INDEX(prev));
		CHECK(id != prev);
		CHECK((id ^ prev) >> 33);
		CHECK_EQ(ld(tab, id), TWHEEL_TABLE_DEADLINE(id, t / MS));
		switch (round % 5) {
		case 0:
			v = TWHEEL_TABLE_DEADLINE(prev, t / MS + 1000);
			what = "stale deadline";
			break;
		case 1:
			v = TWHEEL_TABLE_CANCELLED(prev);
			what = "stale cancel";
			break;
		case 2:
			v = 0;
			what = "zero";
			break;
		case 3:
			v = garbage_for(id, &seed);
			what = "garbage";
			break;
		default:
			v = garbage_for(id, &seed) | TWHEEL_TABLE_CANCEL;
			what = "garbage with the cancel bit";
			break;
		}
		st(tab, id, v);
		CHECK_EQ(twt_info(fd).cancelled, 0);
		adv_to(fd, t - MS);
		CHECK_NONE_QUEUED(fd);
		adv_to(fd, t);
		if (twt_queued(fd) != 1)
			printf("# round %d: %s %#" PRIx64 " for id %#" PRIx64
			       "\n", round, what, v, id);
		expect_one(fd, id, round, t);
		CHECK_NONE_QUEUED(fd);
		CHECK_EQ(ld(tab, id), 0);
		CHECK_EQ(twt_info(fd).cancelled, 0);
		prev = id;
	}
	close(fd);
}

/* ---- 2. tagged garbage, exactly as the header's rule says ---- */

#define GN		300	/* timers */
#define GSTEPS		400	/* ticks stepped one by one */

struct gtimer {
	uint64_t id;
	int64_t placed;		/* deadline tick */
	uint64_t v;		/* stored */
	int64_t want;		/* its record's tick; -1: freed silently */
	int records;
};

static void garbage_tagged(void)
{
	static struct gtimer g[GN];
	static struct twheel_event ev[GN + 1];
	uint64_t *tab, seed = 0x5eed1234;
	static int64_t times[GN];
	int64_t now;
	size_t n, j;
	int fd, i, step, nt = 0, silent = 0, pushed = 0, far = 0;

	fd = manual_table(0, &tab);
	for (i = 0; i < GN; i++) {
		uint64_t r = twt_rand(&seed), low;

		g[i].placed = 1 + (int64_t)(twt_rand(&seed) % 100);
		g[i].id = twt_add(fd, i, g[i].placed * MS, TWHEEL_ABSTIME,
				  CLOCK_MONOTONIC);
		/* Half near the placed tick, half anywhere (33 bits). */
		if (i % 2)
			low = (uint64_t)(g[i].placed - 100 +
					 (int64_t)(r % 300)) & 0xffffffffULL;
		else
			low = r & 0xffffffffULL;
		low |= twt_rand(&seed) & TWHEEL_TABLE_CANCEL;
		g[i].v = TWHEEL_TABLE_TAG(g[i].id) | low;
		if (g[i].v & TWHEEL_TABLE_CANCEL) {
			g[i].want = -1;
			silent++;
		} else {
			/* The D within 2^31 ticks of the tick it is read at. */
			int64_t d = g[i].placed +
				    (int32_t)((uint32_t)low -
					      (uint32_t)g[i].placed);

			g[i].want = d > g[i].placed ? d : g[i].placed;
			pushed += d > g[i].placed;
			far += g[i].want > GSTEPS;
		}
		st(tab, g[i].id, g[i].v);
	}
	printf("# %d timers: %d cancelled, %d pushed back (%d far)\n", GN,
	       silent, pushed, far);
	CHECK_EQ(twt_info(fd).cancelled, 0);
	/*
	 * Every tick up to GSTEPS, then each far deadline in order (all
	 * within 2^31 ticks of each other, so none reads as another).
	 */
	for (i = 0; i < GN; i++)
		if (g[i].want > GSTEPS)
			times[nt++] = g[i].want;
	qsort(times, nt, sizeof(times[0]), twt_cmp_i64);
	for (step = 1; step <= GSTEPS + nt; step++) {
		now = step <= GSTEPS ? step : times[step - GSTEPS - 1];
		if (now * MS == twt_advance(fd, 0))
			continue;
		adv_to(fd, now * MS);
		n = twt_drain(fd, ev, GN + 1);
		for (j = 0; j < n; j++) {
			struct gtimer *t = &g[ev[j].cookie];

			CHECK(ev[j].cookie < GN);
			CHECK_EQ(ev[j].id, t->id);
			CHECK_EQ(ev[j].time_ns, now * MS);
			CHECK(ev[j].time_ns >= t->placed * MS);
			if (now != t->want || t->records)
				printf("# timer %" PRIu64 " placed %" PRId64
				       " stored %#" PRIx64 ": record at %"
				       PRId64 ", want %" PRId64
				       ", %d before\n",
				       (uint64_t)ev[j].cookie, t->placed,
				       t->v, now, t->want, t->records);
			CHECK(t->want >= 0);
			CHECK_EQ(t->records, 0);
			CHECK_EQ(now, t->want);
			t->records++;
		}
		/* A cancelled one is gone once its tick has passed. */
		for (i = 0; i < GN; i++)
			if (g[i].want < 0 && g[i].placed == step)
				CHECK_ERR(twt_query_raw(fd, g[i].id, NULL),
					  ENOENT);
	}
	for (i = 0; i < GN; i++) {
		CHECK_EQ(g[i].records, g[i].want < 0 ? 0 : 1);
		CHECK_EQ(ld(tab, g[i].id), 0);
	}
	CHECK_EQ(twt_info(fd).timers, 0);
	CHECK_EQ(twt_info(fd).cancelled, silent);
	close(fd);
}

/* ---- 3. the range of D ---- */

/*
 * A timer placed at tick @placed with @stored in its entry (stored at
 * time 0) fires at tick @want, exactly.
 */
static void range_one(int64_t placed, uint64_t stored, int64_t want)
{
	uint64_t *tab, id;
	int fd;

	fd = manual_table(8, &tab);
	id = twt_add(fd, 1, placed * MS, TWHEEL_ABSTIME, CLOCK_MONOTONIC);
	st(tab, id, TWHEEL_TABLE_DEADLINE(id, stored));
	adv_to(fd, placed * MS);
	if (want > placed) {
		CHECK_NONE_QUEUED(fd);
		CHECK_EQ(twt_query(fd, id).deadline_ns, want * MS);
		adv_to(fd, (want - 1) * MS);
		CHECK_NONE_QUEUED(fd);
		adv_to(fd, want * MS);
	}
	if (twt_queued(fd) != 1)
		printf("# placed %" PRId64 ", stored %#" PRIx64 ": want %"
		       PRId64 "\n", placed, stored, want);
	expect_one(fd, id, 1, want * MS);
	CHECK_NONE_QUEUED(fd);
	close(fd);
}

static void range(void)
{
	const int64_t h = 1LL << 31, w = 1LL << 32;

	/* 2^31 - 1 ticks ahead of the tick it is read at: a push back. */
	range_one(10, 10 + h - 1, 10 + h - 1);
	/* 2^31 ahead: a deadline passed. */
	range_one(10, 10 + h, 10);
	range_one(10, 10 + h + 5, 10);
	/* Only the low 32 bits count. */
	range_one(10, 10 + w + 15, 25);
	range_one(10, 10 + w - 1, 10);
	range_one(10, (uint64_t)(25 - w), 25);
	/* The present is when it is read, not when it was stored. */
	range_one(100, h + 50, h + 50);
	range_one(100, 100 + h, 100);
}

/* ---- 4. periodic timers ---- */

static void periodic(void)
{
	uint64_t *tab, p;
	struct twheel_status s;
	int fd;

	fd = manual_table(8, &tab);
	p = twt_addp(fd, 9, 10 * MS, 10 * MS, TWHEEL_ABSTIME, CLOCK_MONOTONIC);
	CHECK_EQ(ld(tab, p), TWHEEL_TABLE_DEADLINE(p, 10));
	/* Stored deadlines are ignored: the grid stays. */
	st(tab, p, TWHEEL_TABLE_DEADLINE(p, 35));
	adv_to(fd, 10 * MS);
	expect_one(fd, p, 9, 10 * MS);
	st(tab, p, TWHEEL_TABLE_DEADLINE(p, 1000));
	adv_to(fd, 19 * MS);
	CHECK_NONE_QUEUED(fd);
	adv_to(fd, 20 * MS);
	expect_one(fd, p, 9, 20 * MS);
	s = twt_query(fd, p);
	CHECK_EQ(s.deadline_ns, 30 * MS);
	CHECK_EQ(s.period_ns, 10 * MS);
	/* A cancel: it ends at its next deadline tick, no record. */
	st(tab, p, TWHEEL_TABLE_CANCELLED(p));
	CHECK_EQ(twt_info(fd).cancelled, 0);
	adv_to(fd, 29 * MS);
	CHECK_NONE_QUEUED(fd);
	CHECK_EQ(twt_query(fd, p).state, TWHEEL_STATE_PENDING);
	adv_to(fd, 30 * MS);
	CHECK_NONE_QUEUED(fd);
	CHECK_ERR(twt_query_raw(fd, p, NULL), ENOENT);
	CHECK_EQ(ld(tab, p), 0);
	CHECK_EQ(twt_info(fd).timers, 0);
	CHECK_EQ(twt_info(fd).cancelled, 1);
	adv_to(fd, 100 * MS);
	CHECK_NONE_QUEUED(fd);

	/* Cancelled before its first expiry: none at all. */
	p = twt_addp(fd, 10, 110 * MS, MS, TWHEEL_ABSTIME | TWHEEL_MISSED_BURST,
		     CLOCK_MONOTONIC);
	st(tab, p, TWHEEL_TABLE_CANCELLED(p));
	adv_to(fd, 200 * MS);
	CHECK_NONE_QUEUED(fd);
	CHECK_ERR(twt_query_raw(fd, p, NULL), ENOENT);
	CHECK_EQ(twt_info(fd).cancelled, 2);
	close(fd);
}

/* ---- 5. the tag alone ---- */

/*
 * The tag is the id's bits 33 to 63 alone: a value made for another live
 * timer of the same generation, stored at this timer's index, acts on
 * this timer; one of another generation (an ended timer's) never does.
 */
static void tag_wrong_index(void)
{
	uint64_t *tab, a, b, c;
	int fd;

	fd = manual_table(8, &tab);
	a = twt_add(fd, 1, 10 * MS, TWHEEL_ABSTIME, CLOCK_MONOTONIC);
	b = twt_add(fd, 2, 10 * MS, TWHEEL_ABSTIME, CLOCK_MONOTONIC);
	c = twt_add(fd, 3, 10 * MS, TWHEEL_ABSTIME, CLOCK_MONOTONIC);
	CHECK(TWHEEL_TABLE_INDEX(a) != TWHEEL_TABLE_INDEX(b));
	if (TWHEEL_TABLE_TAG(a) != TWHEEL_TABLE_TAG(b) ||
	    TWHEEL_TABLE_TAG(a) != TWHEEL_TABLE_TAG(c))
		twt_skip("fresh slots of other generations");
	/* a's cancel at b's index, a's deadline at c's: they act on b, c. */
	st(tab, b, TWHEEL_TABLE_CANCELLED(a));
	st(tab, c, TWHEEL_TABLE_DEADLINE(a, 40));
	adv_to(fd, 10 * MS);
	expect_one(fd, a, 1, 10 * MS);
	CHECK_ERR(twt_query_raw(fd, b, NULL), ENOENT);
	CHECK_EQ(twt_info(fd).cancelled, 1);
	CHECK_EQ(twt_query(fd, c).deadline_ns, 40 * MS);
	adv_to(fd, 40 * MS);
	expect_one(fd, c, 3, 40 * MS);
	close(fd);
}

/* ---- 6. the present of a long ADVANCE ---- */

/*
 * The present a stored D is read against is the time the wheel is
 * brought to when the kernel reads the entry: within one ADVANCE longer
 * than 2^31 ticks past the deadline, the ADVANCE's end, not the timer's
 * deadline tick. D = placed + 2^31 - 1, read at the end E = 2^32 + 100,
 * is the tick 2^32 + 2^31 + 9 (the one within 2^31 ticks of E): the
 * timer is pushed there, with no record at E. Stepped to the placed tick
 * first, the same store is the tick 2^31 + 9, where its record comes.
 */
static void long_advance_present(void)
{
	const int64_t h = 1LL << 31, w = 1LL << 32, e = w + 100;
	uint64_t *tab, id;
	int fd;

	fd = manual_table(8, &tab);
	id = twt_add(fd, 1, 10 * MS, TWHEEL_ABSTIME, CLOCK_MONOTONIC);
	st(tab, id, TWHEEL_TABLE_DEADLINE(id, 10 + h - 1));
	adv_to(fd, e * MS);
	CHECK_NONE_QUEUED(fd);
	CHECK_EQ(twt_query(fd, id).deadline_ns, (w + h + 9) * MS);
	CHECK_EQ(twt_info(fd).timers, 1);
	close(fd);

	fd = manual_table(8, &tab);
	id = twt_add(fd, 1, 10 * MS, TWHEEL_ABSTIME, CLOCK_MONOTONIC);
	st(tab, id, TWHEEL_TABLE_DEADLINE(id, 10 + h - 1));
	adv_to(fd, 10 * MS);
	CHECK_NONE_QUEUED(fd);
	CHECK_EQ(twt_query(fd, id).deadline_ns, (h + 9) * MS);
	adv_to(fd, (h + 8) * MS);
	CHECK_NONE_QUEUED(fd);
	adv_to(fd, (h + 9) * MS);
	expect_one(fd, id, 1, (h + 9) * MS);
	close(fd);
}

TWT_MAIN("table_values",
	 TWT_CASE(stale_stores),
	 TWT_CASE(garbage_tagged),
	 TWT_CASE(range),
	 TWT_CASE(periodic),
	 TWT_CASE(tag_wrong_index),
	 TWT_CASE(long_advance_present))
