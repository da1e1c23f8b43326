// SPDX-License-Identifier: GPL-2.0
/*
 * cancel: TWHEEL_IOC_CANCEL in every outcome: a pending timer (never
 * fires), an expired unread one (its record retracted), and every ENOENT:
 * unknown id, id 0, another fd's id, twice, after the record was read.
 */
#include "twtest.h"

/* Nothing queued now, and nothing becomes readable within ms. */
#define CHECK_SILENT(fd, ms) do {					\
	struct twheel_event _e;						\
									\
	CHECK_EQ(twt_poll((fd), (ms)), 0);				\
	CHECK_ERR(read((fd), &_e, sizeof(_e)), EAGAIN);			\
	CHECK_EQ(twt_queued(fd), 0);					\
} while (0)

static void cancel_pending(void)
{
	int fd = twt_open(O_NONBLOCK);
	int64_t t0 = twt_mono();
	uint64_t id = twt_add_rel(fd, 1, 100 * TWT_MS);

	CHECK_EQ(twt_cancel(fd, id), TWHEEL_STATE_PENDING);
	CHECK(twt_mono() < t0 + 100 * TWT_MS);	/* it really was pending */
	CHECK_EQ(twt_timers(fd), 0);
	/* Wait well past the deadline: no record ever. */
	CHECK_SILENT(fd, 300);
	close(fd);
}

/* Cancel each of many pending timers on all clocks; the rest fire. */
static void cancel_pending_some(void)
{
	int fd = twt_open(O_NONBLOCK);
	struct twheel_event ev[100];
	uint64_t id[200];
	int i;

	for (i = 0; i < 200; i++) {
		clockid_t c = twt_clock(i % TWT_NCLOCKS);

		id[i] = twt_add_abs(fd, i, twt_now(c) + (1000 + 2 * i) * TWT_MS, c);
	}
	/* Cancel the odd ones. */
	for (i = 1; i < 200; i += 2)
		CHECK_EQ(twt_cancel(fd, id[i]), TWHEEL_STATE_PENDING);
	CHECK_EQ(twt_timers(fd), 100);
	twt_read_n(fd, ev, 100, 20000);
	for (i = 0; i < 100; i++)
		CHECK_EQ(ev[i].cookie % 2, 0);
	CHECK_SILENT(fd, 100);
	CHECK_EQ(twt_timers(fd), 0);
	close(fd);
}

static void cancel_queued(void)
{
	int fd = twt_open(O_NONBLOCK);
	uint64_t id = twt_add_rel(fd, 1, 10 * TWT_MS);

	/* Let it expire, but do not read it. */
	CHECK(twt_poll(fd, 5000) & POLLIN);
	CHECK_EQ(twt_queued(fd), 1);
	CHECK_EQ(twt_cancel(fd, id), TWHEEL_STATE_QUEUED);
	CHECK_EQ(twt_timers(fd), 0);
	/* The record is gone: read and poll agree. */
	CHECK_SILENT(fd, 50);
	close(fd);
}

/* Retract one record from the middle of a queue: the others stay, in order. */
static void cancel_queued_middle(void)
{
	int fd = twt_open(O_NONBLOCK);
	struct twheel_event ev[5];
	uint64_t id[5];
	int i;

	for (i = 0; i < 5; i++)
		id[i] = twt_add_rel(fd, i, 0);
	CHECK_EQ(twt_queued(fd), 5);
	CHECK_EQ(twt_cancel(fd, id[2]), TWHEEL_STATE_QUEUED);
	CHECK_EQ(twt_cancel(fd, id[0]), TWHEEL_STATE_QUEUED);
	CHECK_EQ(twt_cancel(fd, id[4]), TWHEEL_STATE_QUEUED);
	CHECK_EQ(twt_queued(fd), 2);
	CHECK_EQ(read(fd, ev, sizeof(ev)), 2 * sizeof(ev[0]));
	CHECK_EQ(ev[0].id, id[1]);
	CHECK_EQ(ev[1].id, id[3]);
	CHECK_SILENT(fd, 0);
	close(fd);
}

/* Cancelling the only queued record leaves the fd not readable. */
static void cancel_last_queued_poll(void)
{
	int fd = twt_open(O_NONBLOCK);
	uint64_t id = twt_add_rel(fd, 1, 0);

	CHECK_EQ(twt_poll(fd, 0), POLLIN | POLLRDNORM);
	CHECK_EQ(twt_cancel(fd, id), TWHEEL_STATE_QUEUED);
	CHECK_EQ(twt_poll(fd, 0), 0);
	close(fd);
}

static void unknown_ids(void)
{
	int fd = twt_open(O_NONBLOCK);
	uint32_t r;
	uint64_t id;

	/* No timers at all. */
	CHECK_ERR(twt_cancel_raw(fd, 1, 0, &r), ENOENT);
	CHECK_ERR(twt_cancel_raw(fd, 12345678, 0, &r), ENOENT);
	CHECK_ERR(twt_cancel_raw(fd, UINT64_MAX, 0, &r), ENOENT);
	/* With one: ids next to it are unknown. */
	id = twt_add_rel(fd, 1, 3600 * TWT_S);
	CHECK_ERR(twt_cancel_raw(fd, id + 1, 0, &r), ENOENT);
	CHECK_ERR(twt_cancel_raw(fd, id + 1000, 0, &r), ENOENT);
	CHECK_ERR(twt_cancel_raw(fd, ~id, 0, &r), ENOENT);
	CHECK_ERR(twt_cancel_raw(fd, UINT64_MAX, 0, &r), ENOENT);
	/* id 0 is never an id. */
	CHECK_ERR(twt_cancel_raw(fd, 0, 0, &r), ENOENT);
	CHECK_EQ(twt_timers(fd), 1);
	CHECK_EQ(twt_cancel(fd, id), TWHEEL_STATE_PENDING);
	CHECK_ERR(twt_cancel_raw(fd, 0, 0, &r), ENOENT);
	close(fd);
}

/* An id of another fd is unknown here, and the other fd's timer lives. */
static void other_fds_id(void)
{
	int a = twt_open(O_NONBLOCK), b = twt_open(O_NONBLOCK);
	uint64_t ida = twt_add_rel(a, 42, 100 * TWT_MS);
	uint64_t qa = twt_add_rel(a, 43, 0);
	struct twheel_event ev;
	uint32_t r;

	CHECK_ERR(twt_cancel_raw(b, ida, 0, &r), ENOENT);
	CHECK_ERR(twt_cancel_raw(b, qa, 0, &r), ENOENT);
	CHECK_EQ(twt_timers(a), 2);
	CHECK_EQ(read(a, &ev, sizeof(ev)), sizeof(ev));
	CHECK_EQ(ev.id, qa);
	CHECK(twt_poll(a, 5000) & POLLIN);
	CHECK_EQ(read(a, &ev, sizeof(ev)), sizeof(ev));
	CHECK_EQ(ev.id, ida);
	CHECK_EQ(ev.cookie, 42);
	CHECK_SILENT(b, 0);
	close(a);
	close(b);
}

/*
 * b holds timers too, with ids of its own: cancelling one of a's ids that
 * b does not have is still ENOENT, and b's own timers are untouched.
 */
static void other_fds_id_busy(void)
{
	int a = twt_open(O_NONBLOCK), b = twt_open(O_NONBLOCK);
	uint64_t ia[20], ib[10];
	uint32_t r;
	int i, j, tried = 0;

	for (i = 0; i < 10; i++)
		ib[i] = twt_add_rel(b, i, 3600 * TWT_S);
	for (i = 0; i < 20; i++)
		ia[i] = twt_add_rel(a, i, 3600 * TWT_S);
	for (i = 0; i < 20; i++) {
		int mine = 0;

		for (j = 0; j < 10; j++)
			mine |= ia[i] == ib[j];
		if (mine)
			continue;
		CHECK_ERR(twt_cancel_raw(b, ia[i], 0, &r), ENOENT);
		tried++;
	}
	CHECK(tried > 0);
	CHECK_EQ(twt_timers(a), 20);
	CHECK_EQ(twt_timers(b), 10);
	close(a);
	close(b);
}

static void double_cancel(void)
{
	int fd = twt_open(O_NONBLOCK);
	uint64_t p = twt_add_rel(fd, 1, 3600 * TWT_S);
	uint64_t q = twt_add_rel(fd, 2, 0);
	uint32_t r = 0xAAAA;

	CHECK_EQ(twt_cancel(fd, p), TWHEEL_STATE_PENDING);
	CHECK_ERR(twt_cancel_raw(fd, p, 0, &r), ENOENT);
	CHECK_EQ(twt_cancel(fd, q), TWHEEL_STATE_QUEUED);
	CHECK_ERR(twt_cancel_raw(fd, q, 0, &r), ENOENT);
	CHECK_EQ(twt_timers(fd), 0);
	CHECK_SILENT(fd, 0);
	close(fd);
}

static void cancel_after_read(void)
{
	int fd = twt_open(O_NONBLOCK);
	uint64_t id = twt_add_rel(fd, 1, 20 * TWT_MS);
	uint64_t id2 = twt_add_rel(fd, 2, 0);
	struct twheel_event ev;
	uint32_t r;

	/*
	 * Due now, it may wait for the next tick: when that tick starts a
	 * level-1 slot, the other timer's (see struct twheel_add).
	 */
	CHECK(twt_poll(fd, 5000) & POLLIN);
	CHECK_EQ(read(fd, &ev, sizeof(ev)), sizeof(ev));
	CHECK_EQ(ev.id, id2);
	CHECK_ERR(twt_cancel_raw(fd, id2, 0, &r), ENOENT);
	CHECK(twt_poll(fd, 5000) & POLLIN);
	CHECK_EQ(read(fd, &ev, sizeof(ev)), sizeof(ev));
	CHECK_EQ(ev.id, id);
	CHECK_ERR(twt_cancel_raw(fd, id, 0, &r), ENOENT);
	CHECK_EQ(twt_timers(fd), 0);
	close(fd);
}

/*
 * ids: never 0, unique within the fd, never reused while it is open, even
 * after cancels and reads.
 */
static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

#define N_IDS	3000
static void ids_unique(void)
{
	int fd = twt_open(O_NONBLOCK);
	static uint64_t ids[N_IDS];
	struct twheel_event ev;
	int i;

	for (i = 0; i < N_IDS; i++) {
		ids[i] = twt_add_rel(fd, i, (i % 3 == 0) ? 0 : 3600 * TWT_S);
		CHECK(ids[i] != 0);
		switch (i % 3) {
		case 0:		/* read it */
			CHECK_EQ(read(fd, &ev, sizeof(ev)), sizeof(ev));
			CHECK_EQ(ev.id, ids[i]);
			break;
		case 1:		/* cancel it */
			CHECK_EQ(twt_cancel(fd, ids[i]), TWHEEL_STATE_PENDING);
			break;
		default:	/* keep it */
			break;
		}
	}
	CHECK_EQ(twt_timers(fd), N_IDS / 3);
	qsort(ids, N_IDS, sizeof(ids[0]), cmp_u64);
	for (i = 1; i < N_IDS; i++)
		if (ids[i] == ids[i - 1])
			twt_fail(__FILE__, __LINE__, "id %llu twice",
				 (unsigned long long)ids[i]);
	close(fd);
}

/* Cancel and re-add the same deadline repeatedly: only the last fires. */
static void cancel_readd(void)
{
	int fd = twt_open(O_NONBLOCK);
	int64_t dl = twt_mono() + 1000 * TWT_MS;
	struct twheel_event ev;
	uint64_t id = 0;
	int i;

	for (i = 0; i < 200; i++) {
		if (id)
			CHECK_EQ(twt_cancel(fd, id), TWHEEL_STATE_PENDING);
		id = twt_add_abs(fd, i, dl, CLOCK_MONOTONIC);
	}
	CHECK(twt_mono() < dl);
	CHECK_EQ(twt_timers(fd), 1);
	CHECK(twt_poll(fd, 5000) & POLLIN);
	CHECK_EQ(read(fd, &ev, sizeof(ev)), sizeof(ev));
	CHECK_EQ(ev.id, id);
	CHECK_EQ(ev.cookie, 199);
	CHECK_SILENT(fd, 100);
	close(fd);
}

TWT_MAIN("cancel",
	 TWT_CASE(cancel_pending),
	 TWT_CASE(cancel_pending_some),
	 TWT_CASE(cancel_queued),
	 TWT_CASE(cancel_queued_middle),
	 TWT_CASE(cancel_last_queued_poll),
	 TWT_CASE(unknown_ids),
	 TWT_CASE(other_fds_id),
	 TWT_CASE(other_fds_id_busy),
	 TWT_CASE(double_cancel),
	 TWT_CASE(cancel_after_read),
	 TWT_CASE(ids_unique),
	 TWT_CASE(cancel_readd))
