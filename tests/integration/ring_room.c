// SPDX-License-Identifier: GPL-2.0
/*
 * ring_room: the record ring's room, the program's stores, periodic
 * timers, fork(), a real clock, a table beside it and libtwheel's
 * twheel_ring_*(), checked from what uapi/linux/twheel.h promises ("The
 * record ring"). Its setup, mapping and the polls that move records:
 * ring.c.
 *
 * Room: 128 records at most; the rest stay queued, for read(2) (in order
 * after the ring's) or for a poll after the program moved its head; room
 * is exactly TWHEEL_RING_ENTRIES - (tail - head); a head ahead of the tail
 * or more than 128 behind moves nothing (records stay queued, the fd
 * readable) until it is right again.
 * The program's stores into tail, events[] and the padding change
 * nothing: the kernel keeps its own tail, writes only the slots of the
 * records it moves, and never touches head or the padding.
 * fork(): parent and child see one ring. A real clock
 * (CLOCK_MONOTONIC): records in deadline order through poll, all of one
 * tick through one epoll_wait, never before their deadline. A table and
 * a ring on one fd. libtwheel: twheel_ring_map() (errnos, size),
 * twheel_ring_take() (in order, up to max, head moved; nothing from a
 * head that is no head), twheel_ring_unmap().
 */
#define _GNU_SOURCE
#include "ring.h"

/* ---- 4. room ---- */

#define NOVER	200

/* 200 due: the ring gets 128, read(2) the other 72, in order after. */
static void overflow_read(void)
{
	struct twheel_event ev[2 * NENT];
	struct twheel_ring *r;
	uint64_t ids[NOVER];
	unsigned int i;
	int fd;

	r = manual_ring(&fd);
	add_at(fd, NOVER, 10 * MS, 1000, ids);
	adv_to(fd, 10 * MS);
	CHECK_COUNTS(fd, NOVER, NOVER);
	CHECK_READABLE(fd);
	CHECK_EQ(tail_of(r), NENT);
	for (i = 0; i < NENT; i++)
		CHECK_REC(RING_EV(r, i), ids[i], 1000 + i, 10 * MS, 1, MONO);
	CHECK_COUNTS(fd, NOVER - NENT, NOVER - NENT);
	/* Full: a poll moves nothing more. */
	CHECK_READABLE(fd);
	CHECK_EQ(tail_of(r), NENT);
	CHECK_COUNTS(fd, NOVER - NENT, NOVER - NENT);
	/* read(2): the rest, in order. */
	CHECK_EQ(read(fd, ev, sizeof(ev)), (NOVER - NENT) * TWT_EV_SIZE);
	for (i = 0; i < NOVER - NENT; i++)
		CHECK_REC(&ev[i], ids[NENT + i], 1000 + NENT + i, 10 * MS, 1,
			  MONO);
	CHECK_COUNTS(fd, 0, 0);
	CHECK_ERR(read(fd, ev, sizeof(ev)), EAGAIN);
	/* The ring's records are still the program's. */
	CHECK_READABLE(fd);
	CHECK_EQ(tail_of(r), NENT);
	CHECK_REC(RING_EV(r, 0), ids[0], 1000, 10 * MS, 1, MONO);
	set_head(r, NENT);
	CHECK_NOT_READABLE(fd);
	close(fd);
}

/*
 * 200 due: the ring gets 128; as the program moves its head, each poll
 * moves exactly as many as it has room for, TWHEEL_RING_ENTRIES - (tail
 * - head), around the ring.
 */
static void overflow_refill(void)
{
	struct twheel_ring *r;
	uint64_t ids[NOVER + 3];
	unsigned int i;
	int fd;

	r = manual_ring(&fd);
	add_at(fd, NOVER, 10 * MS, 1000, ids);
	adv_to(fd, 10 * MS);
	CHECK_READABLE(fd);
	CHECK_EQ(tail_of(r), NENT);
	/* 28 taken: room for 28, in slots 0 to 27. */
	set_head(r, 28);
	CHECK_READABLE(fd);
	CHECK_EQ(tail_of(r), NENT + 28);
	CHECK_COUNTS(fd, NOVER - NENT - 28, NOVER - NENT - 28);
	for (i = 0; i < 28; i++)
		CHECK_REC(&r->events[i], ids[NENT + i], 1000 + NENT + i,
			  10 * MS, 1, MONO);
	/* The slots the head has not passed are not written. */
	for (i = 28; i < NENT; i++)
		CHECK_REC(&r->events[i], ids[i], 1000 + i, 10 * MS, 1, MONO);
	/* All taken: the rest. */
	set_head(r, NENT + 28);
	CHECK_READABLE(fd);
	CHECK_EQ(tail_of(r), NOVER);
	for (i = NENT + 28; i < NOVER; i++)
		CHECK_REC(RING_EV(r, i), ids[i], 1000 + i, 10 * MS, 1, MONO);
	CHECK_COUNTS(fd, 0, 0);
	set_head(r, NOVER);
	CHECK_NOT_READABLE(fd);

	/* Room exactly: 127 behind leaves one, 128 behind none. */
	add_at(fd, 3, 20 * MS, 2000, ids + NOVER);
	adv_to(fd, 20 * MS);
	set_head(r, NOVER - (NENT - 1));
	CHECK_READABLE(fd);
	CHECK_EQ(tail_of(r), NOVER + 1);
	CHECK_REC(RING_EV(r, NOVER), ids[NOVER], 2000, 20 * MS, 1, MONO);
	CHECK_COUNTS(fd, 2, 2);
	set_head(r, NOVER + 1 - NENT);
	CHECK_READABLE(fd);
	CHECK_EQ(tail_of(r), NOVER + 1);
	CHECK_COUNTS(fd, 2, 2);
	set_head(r, NOVER + 2 - NENT);
	CHECK_READABLE(fd);
	CHECK_EQ(tail_of(r), NOVER + 2);
	CHECK_REC(RING_EV(r, NOVER + 1), ids[NOVER + 1], 2001, 20 * MS, 1,
		  MONO);
	CHECK_COUNTS(fd, 1, 1);
	set_head(r, NOVER + 2);
	CHECK_READABLE(fd);
	CHECK_EQ(tail_of(r), NOVER + 3);
	CHECK_REC(RING_EV(r, NOVER + 2), ids[NOVER + 2], 2002, 20 * MS, 1,
		  MONO);
	CHECK_COUNTS(fd, 0, 0);
	set_head(r, NOVER + 3);
	CHECK_NOT_READABLE(fd);
	close(fd);
}

/*
 * A head ahead of the tail, or more than 128 behind it, leaves no room:
 * nothing moves, the records stay queued for read(2), the fd readable;
 * a head right again lets the next poll fill the ring.
 */
static void garbage_head(void)
{
	struct twheel_event ev[4];
	struct twheel_ring *r;
	uint64_t ids[12];
	unsigned int i;
	int fd;

	r = manual_ring(&fd);
	add_at(fd, 12, 5 * MS, 1, ids);
	adv_to(fd, 5 * MS);
	CHECK_COUNTS(fd, 12, 12);
	/* Ahead of the tail. */
	set_head(r, 5);
	CHECK_READABLE(fd);
	CHECK_EQ(tail_of(r), 0);
	CHECK_EQ(head_of(r), 5);
	CHECK_COUNTS(fd, 12, 12);
	CHECK_EQ(read(fd, ev, sizeof(ev)), 4 * TWT_EV_SIZE);
	for (i = 0; i < 4; i++)
		CHECK_REC(&ev[i], ids[i], 1 + i, 5 * MS, 1, MONO);
	CHECK_COUNTS(fd, 8, 8);
	/* Far behind it, and just beyond full. */
	set_head(r, 0U - 1000U);
	CHECK_READABLE(fd);
	CHECK_EQ(tail_of(r), 0);
	CHECK_COUNTS(fd, 8, 8);
	set_head(r, 0U - (NENT + 1));
	CHECK_READABLE(fd);
	CHECK_EQ(tail_of(r), 0);
	CHECK_COUNTS(fd, 8, 8);
	/* Full (tail - head == 128): no room either. */
	set_head(r, 0U - NENT);
	CHECK_READABLE(fd);
	CHECK_EQ(tail_of(r), 0);
	CHECK_COUNTS(fd, 8, 8);
	/* 127: room for one. */
	set_head(r, 0U - (NENT - 1));
	CHECK_READABLE(fd);
	CHECK_EQ(tail_of(r), 1);
	CHECK_REC(RING_EV(r, 0), ids[4], 5, 5 * MS, 1, MONO);
	CHECK_COUNTS(fd, 7, 7);
	/* Right again: the next poll moves the rest. */
	set_head(r, 1);
	CHECK_READABLE(fd);
	CHECK_EQ(tail_of(r), 8);
	for (i = 1; i < 8; i++)
		CHECK_REC(RING_EV(r, i), ids[4 + i], 5 + i, 5 * MS, 1, MONO);
	CHECK_COUNTS(fd, 0, 0);
	set_head(r, 8);
	CHECK_NOT_READABLE(fd);
	/* A head that is no head, nothing queued: readable all the same. */
	set_head(r, 8 + 5);
	CHECK_READABLE(fd);
	CHECK_EQ(tail_of(r), 8);
	set_head(r, 8);
	CHECK_NOT_READABLE(fd);
	close(fd);
}

/*
 * What the program stores into tail, events[] or the padding changes
 * nothing: the kernel's tail goes on from its own count, only the slots
 * of the records moved are written, head and padding never.
 */
static void program_stores_ignored(void)
{
	struct twheel_ring *r;
	struct twheel_event junk;
	uint64_t ids[5];
	unsigned int i;
	int fd;

	r = manual_ring(&fd);
	add_at(fd, 3, 5 * MS, 1, ids);
	adv_to(fd, 5 * MS);
	CHECK_READABLE(fd);
	CHECK_EQ(tail_of(r), 3);
	set_head(r, 3);
	/* Junk everywhere but head. */
	__atomic_store_n(&r->tail, 1000, __ATOMIC_RELAXED);
	memset(r->events, 0xAA, sizeof(r->events));
	memset(r->__pad1, 0x5A, sizeof(r->__pad1));
	memset(r->__pad2, 0xA5, sizeof(r->__pad2));
	memset(&junk, 0xAA, sizeof(junk));
	add_at(fd, 2, 10 * MS, 4, ids + 3);
	adv_to(fd, 10 * MS);
	CHECK_READABLE(fd);
	CHECK_EQ(tail_of(r), 5);
	CHECK_EQ(head_of(r), 3);
	CHECK_REC(RING_EV(r, 3), ids[3], 4, 10 * MS, 1, MONO);
	CHECK_REC(RING_EV(r, 4), ids[4], 5, 10 * MS, 1, MONO);
	CHECK_COUNTS(fd, 0, 0);
	for (i = 0; i < NENT; i++)
		if (i != 3 && i != 4)
			CHECK(!memcmp(&r->events[i], &junk, sizeof(junk)));
	for (i = 0; i < 15; i++) {
		CHECK_EQ(r->__pad1[i], 0x5A5A5A5AU);
		CHECK_EQ(r->__pad2[i], 0xA5A5A5A5U);
	}
	set_head(r, 5);
	CHECK_NOT_READABLE(fd);
	close(fd);
}

/* ---- 5. periodic timers, fork ---- */

/* A periodic timer's record moved into the ring sets its next deadline. */
static void periodic_next_deadline(void)
{
	struct twheel_status st;
	struct twheel_ring *r;
	uint64_t id;
	int fd;

	r = manual_ring(&fd);
	id = twt_addp(fd, 7, 10 * MS, 10 * MS, TWHEEL_ABSTIME, MONO);
	adv_to(fd, 10 * MS);
	CHECK_STATUS(fd, id, TWHEEL_STATE_QUEUED, 1, 20 * MS);
	CHECK_EQ(tail_of(r), 0);
	CHECK_READABLE(fd);
	CHECK_EQ(tail_of(r), 1);
	CHECK_REC(RING_EV(r, 0), id, 7, 10 * MS, 1, MONO);
	CHECK_STATUS(fd, id, TWHEEL_STATE_PENDING, 0, 20 * MS);
	st = twt_query(fd, id);
	CHECK_EQ(st.remaining_ns, 10 * MS);
	CHECK_EQ(st.period_ns, 10 * MS);
	CHECK_COUNTS(fd, 1, 0);
	/* Three deadlines passed (20, 30, 40) by 45 ms: one record of 3. */
	adv_to(fd, 45 * MS);
	CHECK_STATUS(fd, id, TWHEEL_STATE_QUEUED, 3, 50 * MS);
	CHECK_EQ(tail_of(r), 1);
	CHECK_READABLE(fd);
	CHECK_EQ(tail_of(r), 2);
	CHECK_REC(RING_EV(r, 1), id, 7, 45 * MS, 3, MONO);
	CHECK_STATUS(fd, id, TWHEEL_STATE_PENDING, 0, 50 * MS);
	CHECK_EQ(twt_query(fd, id).remaining_ns, 5 * MS);
	adv_to(fd, 50 * MS);
	CHECK_READABLE(fd);
	CHECK_EQ(tail_of(r), 3);
	CHECK_REC(RING_EV(r, 2), id, 7, 50 * MS, 1, MONO);
	CHECK_EQ(twt_query(fd, id).deadline_ns, 60 * MS);
	/* A full ring: the record waits queued, and so does the deadline. */
	set_head(r, 3 - NENT);
	adv_to(fd, 75 * MS);
	CHECK_READABLE(fd);
	CHECK_EQ(tail_of(r), 3);
	CHECK_STATUS(fd, id, TWHEEL_STATE_QUEUED, 2, 80 * MS);
	CHECK_COUNTS(fd, 1, 1);
	set_head(r, 3);
	CHECK_READABLE(fd);
	CHECK_EQ(tail_of(r), 4);
	CHECK_REC(RING_EV(r, 3), id, 7, 75 * MS, 2, MONO);
	CHECK_STATUS(fd, id, TWHEEL_STATE_PENDING, 0, 80 * MS);
	CHECK_COUNTS(fd, 1, 0);
	set_head(r, 4);
	CHECK_NOT_READABLE(fd);
	close(fd);
}

/* After fork() parent and child see one ring, both ways. */
static void fork_same_ring(void)
{
	struct twheel_ring *r;
	uint64_t ids[5];
	pid_t pid;
	int fd;

	r = manual_ring(&fd);
	add_at(fd, 3, 5 * MS, 1, ids);
	adv_to(fd, 5 * MS);
	/* The child polls and takes. */
	fflush(stdout);
	pid = fork();
	CHECK(pid >= 0);
	if (pid == 0) {
		CHECK_READABLE(fd);
		CHECK_EQ(tail_of(r), 3);
		CHECK_REC(RING_EV(r, 0), ids[0], 1, 5 * MS, 1, MONO);
		CHECK_REC(RING_EV(r, 2), ids[2], 3, 5 * MS, 1, MONO);
		set_head(r, 3);
		_exit(0);
	}
	wait_ok(pid);
	CHECK_EQ(tail_of(r), 3);
	CHECK_EQ(head_of(r), 3);
	CHECK_REC(RING_EV(r, 1), ids[1], 2, 5 * MS, 1, MONO);
	CHECK_COUNTS(fd, 0, 0);
	CHECK_NOT_READABLE(fd);
	/* The parent polls, the child takes. */
	add_at(fd, 2, 10 * MS, 4, ids + 3);
	adv_to(fd, 10 * MS);
	CHECK_READABLE(fd);
	CHECK_EQ(tail_of(r), 5);
	fflush(stdout);
	pid = fork();
	CHECK(pid >= 0);
	if (pid == 0) {
		CHECK_EQ(tail_of(r), 5);
		CHECK_EQ(head_of(r), 3);
		CHECK_REC(RING_EV(r, 3), ids[3], 4, 10 * MS, 1, MONO);
		CHECK_REC(RING_EV(r, 4), ids[4], 5, 10 * MS, 1, MONO);
		set_head(r, 5);
		_exit(0);
	}
	wait_ok(pid);
	CHECK_EQ(head_of(r), 5);
	CHECK_NOT_READABLE(fd);
	close(fd);
}

/* ---- 6. a real clock ---- */

#define NREAL	8

/*
 * CLOCK_MONOTONIC, deadlines 2 ms apart: waited for with poll(2), taken
 * from the ring, all of them in deadline order, none before its
 * deadline; then all of one tick through one epoll_wait(2).
 */
static void real_clock(void)
{
	struct twheel_event got[NREAL], ev;
	int64_t dl[NREAL], t0, end, now;
	struct twheel_ring *r;
	uint64_t ids[NREAL];
	unsigned int n = 0, i;
	uint32_t events = 0;
	int fd, ep;

	fd = open_ring(0, MS);
	r = map_ring(fd);
	ep = twt_ep_new(fd, EPOLLIN);
	CHECK_OK(ep);
	t0 = twt_mono();
	for (i = 0; i < NREAL; i++) {
		dl[i] = t0 + 50 * MS + i * 2 * MS;
		ids[i] = twt_add(fd, 500 + i, dl[i], TWHEEL_ABSTIME, MONO);
	}
	end = twt_mono() + 30000 * MS;
	while (n < NREAL) {
		uint32_t head = head_of(r), tail;

		if (twt_mono() > end)
			twt_fail(__FILE__, __LINE__, "%u of %u records in 30 s",
				 n, NREAL);
		if (!(twt_poll(fd, 1000) & POLLIN))
			continue;
		tail = tail_of(r);
		CHECK(tail - head <= NREAL - n);
		for (; head != tail; head++)
			got[n++] = *RING_EV(r, head);
		set_head(r, tail);
	}
	now = twt_mono();
	for (i = 0; i < NREAL; i++) {
		CHECK_EQ(got[i].id, ids[i]);
		CHECK_EQ(got[i].cookie, 500 + i);
		CHECK_EQ(got[i].count, 1);
		CHECK_EQ(got[i].clock, MONO);
		CHECK_EQ(got[i].flags, 0);
		CHECK(got[i].time_ns >= dl[i]);
		CHECK(got[i].time_ns <= now);
	}
	CHECK_EQ(tail_of(r), NREAL);
	CHECK_COUNTS(fd, 0, 0);
	CHECK_ERR(read(fd, &ev, sizeof(ev)), EAGAIN);
	CHECK_NOT_READABLE(fd);

	/* Three of one deadline tick: one epoll_wait(2) moves them all. */
	CHECK_EQ(twt_ep_wait(ep, 0, NULL), 0);
	t0 = twt_mono() + 30 * MS;
	add_at(fd, 3, t0, 600, ids);
	CHECK_EQ(twt_ep_wait(ep, 30000, &events), 1);
	CHECK(events & EPOLLIN);
	CHECK_EQ(tail_of(r), NREAL + 3);
	for (i = 0; i < 3; i++) {
		const struct twheel_event *e = RING_EV(r, NREAL + i);

		CHECK_EQ(e->id, ids[i]);
		CHECK_EQ(e->cookie, 600 + i);
		CHECK_EQ(e->count, 1);
		CHECK(e->time_ns >= t0);
	}
	CHECK_COUNTS(fd, 0, 0);
	set_head(r, NREAL + 3);
	CHECK_EQ(twt_ep_wait(ep, 0, NULL), 0);
	close(ep);
	close(fd);
}

/* ---- 7. with a table; libtwheel ---- */

/* A table and a ring on one fd: a store pushes the timer, the ring gets it. */
static void ring_and_table(void)
{
	struct twheel_info info;
	struct twheel_ring *r;
	uint64_t *tab, id;
	size_t ix;
	int fd = twt_open(O_NONBLOCK);

	CHECK_OK(config_raw(fd, MS, CFG_RING | CFG_TABLE | CFG_MANUAL | CFG_MAX,
			    100));
	info = twt_info(fd);
	CHECK_EQ(info.config_flags, CFG_RING | CFG_TABLE | CFG_MANUAL);
	CHECK_EQ(info.table_size, pgsz());
	tab = mmap(NULL, info.table_size, RW, MAP_SHARED, fd, 0);
	CHECK(tab != MAP_FAILED);
	r = map_ring(fd);
	id = twt_add(fd, 9, 10 * MS, TWHEEL_ABSTIME, MONO);
	ix = TWHEEL_TABLE_INDEX(id);
	CHECK_EQ(__atomic_load_n(&tab[ix], __ATOMIC_SEQ_CST),
		 TWHEEL_TABLE_DEADLINE(id, 10));
	__atomic_store_n(&tab[ix], TWHEEL_TABLE_DEADLINE(id, 20),
			 __ATOMIC_SEQ_CST);
	adv_to(fd, 10 * MS);
	CHECK_NOT_READABLE(fd);
	CHECK_EQ(tail_of(r), 0);
	adv_to(fd, 20 * MS);
	CHECK_READABLE(fd);
	CHECK_EQ(tail_of(r), 1);
	CHECK_REC(RING_EV(r, 0), id, 9, 20 * MS, 1, MONO);
	CHECK_COUNTS(fd, 0, 0);
	/* Ended there: its entry is 0. */
	CHECK_EQ(__atomic_load_n(&tab[ix], __ATOMIC_SEQ_CST), 0);
	set_head(r, 1);
	CHECK_NOT_READABLE(fd);
	close(fd);
}

/*
 * twheel_ring_map(): errnos, what it fills in, the configuration fixed;
 * twheel_ring_take(): in order, up to max, head moved, the ring refilled
 * by each poll; nothing from a head that is no head;
 * twheel_ring_unmap().
 */
static void libtwheel_ring(void)
{
	struct twheel_event ev[300 + 64];
	struct twheel_ringmap rm, bad;
	struct twheel_ring *r;
	uint64_t ids[300];
	unsigned int n, i, got, rounds;
	uint32_t tail;
	int fd, null;

	memset(&bad, 0xAA, sizeof(bad));
	rm = bad;
	CHECK_ERR(twheel_ring_map(-1, &rm), EBADF);
	null = open("/dev/null", O_RDWR);
	CHECK(null >= 0);
	CHECK_ERR(twheel_ring_map(null, &rm), ENOTTY);
	close(null);
	fd = twt_open_manual(O_NONBLOCK, MS);
	CHECK_ERR(twheel_ring_map(fd, &rm), ENODEV);
	CHECK(!memcmp(&rm, &bad, sizeof(rm)));
	close(fd);

	fd = open_ring(CFG_MANUAL, MS);
	CHECK_EQ(twheel_ring_map(fd, &rm), 0);
	CHECK(rm.ring != NULL);
	CHECK_EQ(rm.size, ring_len());
	r = rm.ring;
	CHECK_ERR(config_raw(fd, MS, CFG_RING | CFG_MANUAL, 0), EBUSY);
	CHECK_EQ(twheel_ring_take(&rm, ev, 64), 0);
	add_at(fd, 5, 5 * MS, 1, ids);
	adv_to(fd, 5 * MS);
	/* Not polled yet: nothing in the ring. */
	CHECK_EQ(twheel_ring_take(&rm, ev, 64), 0);
	CHECK_READABLE(fd);
	CHECK_EQ(twheel_ring_take(&rm, ev, 3), 3);
	CHECK_EQ(head_of(r), 3);
	for (i = 0; i < 3; i++)
		CHECK_REC(&ev[i], ids[i], 1 + i, 5 * MS, 1, MONO);
	CHECK_READABLE(fd);
	CHECK_EQ(twheel_ring_take(&rm, ev, 64), 2);
	CHECK_EQ(head_of(r), 5);
	CHECK_REC(&ev[0], ids[3], 4, 5 * MS, 1, MONO);
	CHECK_REC(&ev[1], ids[4], 5, 5 * MS, 1, MONO);
	CHECK_EQ(twheel_ring_take(&rm, ev, 64), 0);
	CHECK_NOT_READABLE(fd);

	/* 300 due at once: poll and take, 64 at a time, until all came. */
	add_at(fd, 300, 10 * MS, 1000, ids);
	adv_to(fd, 10 * MS);
	for (got = 0, rounds = 0; got < 300 && rounds < 300; rounds++) {
		CHECK_READABLE(fd);
		n = twheel_ring_take(&rm, ev + got, 64);
		CHECK(n > 0);
		got += n;
	}
	CHECK_EQ(got, 300);
	for (i = 0; i < 300; i++)
		CHECK_REC(&ev[i], ids[i], 1000 + i, 10 * MS, 1, MONO);
	CHECK_COUNTS(fd, 0, 0);
	CHECK_NOT_READABLE(fd);
	CHECK_ERR(read(fd, ev, sizeof(ev)), EAGAIN);

	/* A head that is no head: nothing taken, the head left as it is. */
	tail = tail_of(r);
	set_head(r, tail + 5);
	CHECK_EQ(twheel_ring_take(&rm, ev, 64), 0);
	CHECK_EQ(head_of(r), tail + 5);
	set_head(r, tail);

	CHECK_EQ(twheel_ring_unmap(&rm), 0);
	CHECK(rm.ring == NULL && rm.size == 0);
	/* munmap(2) of no length, as the kernel says it. */
	CHECK_ERR(twheel_ring_unmap(&rm), EINVAL);
	close(fd);
}

TWT_MAIN("ring_room",
	 TWT_CASE(overflow_read),
	 TWT_CASE(overflow_refill),
	 TWT_CASE(garbage_head),
	 TWT_CASE(program_stores_ignored),
	 TWT_CASE(periodic_next_deadline),
	 TWT_CASE(fork_same_ring),
	 TWT_CASE_T(real_clock, 120),
	 TWT_CASE(ring_and_table),
	 TWT_CASE(libtwheel_ring))
