// SPDX-License-Identifier: GPL-2.0
/*
 * ring: the record ring (TWHEEL_CONFIG_RING, mmap at TWHEEL_RING_OFFSET),
 * checked from what uapi/linux/twheel.h promises ("The record ring",
 * struct twheel_ring), and libtwheel's twheel_ring_*() over it.
 *
 * Setup: features has TWHEEL_FEATURE_RING; config_flags shows
 * TWHEEL_CONFIG_RING (with the other flags, no table with it); a
 * configuration without the flag leaves the fd without a ring (mmap
 * ENODEV), also after one with it; a ring-less fd's records stay queued
 * when polled.
 * The mapping: a length up to sizeof(struct twheel_ring) in whole pages;
 * EINVAL for a longer one, for MAP_PRIVATE and for another offset in the
 * ring; EPERM for PROT_EXEC, EACCES for mprotect(PROT_EXEC), EFAULT for
 * an mremap that grows it; no table at offset 0; head and tail 0 at
 * first; two mappings are the same ring; CONFIG is EBUSY once the ring
 * was mapped, also after munmap; the mapping outlives close(2).
 * Moving records (manual clock): only a poll moves them (not ADVANCE, an
 * ioctl, an add of a timer due, read(2)); poll, epoll_wait (level-
 * triggered) and select move every queued record, oldest first, and the
 * tail advances by exactly their number; each record's id, cookie, time,
 * count and clock; each ends as if read (not queued, not a timer, ENOENT
 * to the ioctls; a periodic timer's next deadline set, as QUERY shows);
 * the fd is readable until head is stored equal to tail.
 * Room, the program's stores, periodic timers, fork, a real clock, the
 * table beside the ring and libtwheel: ring_room.c.
 */
#define _GNU_SOURCE
#include "ring.h"

/* ---- 1. setup ---- */

/* The feature, the flag in config_flags, with the other flags. */
static void setup_info(void)
{
	struct twheel_info info;
	int fd = twt_open(O_NONBLOCK);

	info = twt_info(fd);
	CHECK(info.features & TWHEEL_FEATURE_RING);
	CHECK_EQ(info.config_flags, 0);
	CHECK_OK(config_raw(fd, MS, CFG_RING, 0));
	info = twt_info(fd);
	CHECK(info.features & TWHEEL_FEATURE_RING);
	CHECK_EQ(info.config_flags, CFG_RING);
	CHECK_EQ(info.tick_ns, MS);
	CHECK_EQ(info.table_size, 0);		/* a ring is no table */
	CHECK_EQ(info.timers, 0);
	CHECK_EQ(info.queued, 0);
	CHECK_OK(config_raw(fd, 2 * MS, CFG_RING | CFG_MANUAL | CFG_MAX, 300));
	info = twt_info(fd);
	CHECK_EQ(info.config_flags, CFG_RING | CFG_MANUAL);
	CHECK_EQ(info.tick_ns, 2 * MS);
	CHECK_EQ(info.max_timers, 300);
	CHECK_OK(config_raw(fd, MS, CFG_RING | CFG_TABLE |
			    TWHEEL_CONFIG_CLOCK_SET, 0));
	info = twt_info(fd);
	CHECK_EQ(info.config_flags,
		 CFG_RING | CFG_TABLE | TWHEEL_CONFIG_CLOCK_SET);
	CHECK(info.table_size > 0);
	/* An unknown bit beside it: EINVAL, the configuration kept. */
	CHECK_ERR(config_raw(fd, MS, CFG_RING | 0x20, 0), EINVAL);
	CHECK_EQ(twt_info(fd).config_flags,
		 CFG_RING | CFG_TABLE | TWHEEL_CONFIG_CLOCK_SET);
	close(fd);
}

/*
 * Without the flag, no ring (ENODEV), also when a configuration with it
 * came first; and a ring-less fd polled keeps its records queued.
 */
static void setup_without_flag(void)
{
	size_t len = ring_len();
	struct twheel_event ev[4];
	uint64_t ids[3];
	int fd;

	/* Never configured; configured without it; with a table only. */
	fd = twt_open(O_NONBLOCK);
	CHECK_ERR(try_map(fd, len, RW, MAP_SHARED, ROFF), ENODEV);
	CHECK_OK(config_raw(fd, MS, CFG_MANUAL, 0));
	CHECK_ERR(try_map(fd, len, RW, MAP_SHARED, ROFF), ENODEV);
	CHECK_OK(config_raw(fd, MS, CFG_TABLE | CFG_MAX, 100));
	CHECK_ERR(try_map(fd, len, RW, MAP_SHARED, ROFF), ENODEV);
	/* With it, then without it again (not mapped): gone. */
	CHECK_OK(config_raw(fd, MS, CFG_RING | CFG_MANUAL, 0));
	CHECK_EQ(twt_info(fd).config_flags, CFG_RING | CFG_MANUAL);
	CHECK_OK(config_raw(fd, MS, CFG_MANUAL, 0));
	CHECK_EQ(twt_info(fd).config_flags, CFG_MANUAL);
	CHECK_ERR(try_map(fd, len, RW, MAP_SHARED, ROFF), ENODEV);
	/* And back: the last configuration counts. */
	CHECK_OK(config_raw(fd, MS, CFG_RING | CFG_MANUAL, 0));
	CHECK_EQ(twt_info(fd).config_flags, CFG_RING | CFG_MANUAL);
	CHECK_OK(try_map(fd, len, RW, MAP_SHARED, ROFF));
	close(fd);

	/* No ring: a poll moves nothing, read(2) returns all. */
	fd = twt_open_manual(O_NONBLOCK, MS);
	add_at(fd, 3, 5 * MS, 1, ids);
	adv_to(fd, 5 * MS);
	CHECK_EQ(twt_poll(fd, 0), POLLIN | POLLRDNORM);
	CHECK_EQ(twt_poll(fd, 0), POLLIN | POLLRDNORM);
	CHECK_COUNTS(fd, 3, 3);
	CHECK_EQ(read(fd, ev, sizeof(ev)), 3 * TWT_EV_SIZE);
	CHECK_REC(&ev[0], ids[0], 1, 5 * MS, 1, MONO);
	CHECK_REC(&ev[2], ids[2], 3, 5 * MS, 1, MONO);
	CHECK_NONE_QUEUED(fd);
	close(fd);
}

/* ---- 2. the mapping ---- */

static void mmap_rules(void)
{
	size_t len = ring_len(), pg = pgsz();
	struct twheel_ring *r, *ro;
	struct twheel_info info;
	int fd = open_ring(CFG_MANUAL, MS);

	CHECK(len >= sizeof(struct twheel_ring));
	CHECK_ERR(try_map(fd, len + pg, RW, MAP_SHARED, ROFF), EINVAL);
	CHECK_ERR(try_map(fd, len, RW, MAP_PRIVATE, ROFF), EINVAL);
	CHECK_ERR(try_map(fd, len, RW | PROT_EXEC, MAP_SHARED, ROFF), EPERM);
	CHECK_ERR(try_map(fd, pg, PROT_READ | PROT_EXEC, MAP_SHARED, ROFF),
		  EPERM);
	/* Another offset in the ring. */
	CHECK_ERR(try_map(fd, pg, RW, MAP_SHARED, ROFF + (off_t)pg), EINVAL);
	/* No table on a ring-only fd. */
	CHECK_ERR(try_map(fd, pg, RW, MAP_SHARED, 0), ENODEV);
	/* Mapped by none of those: the configuration may still change. */
	CHECK_OK(config_raw(fd, MS, CFG_RING | CFG_MANUAL, 0));

	/* Any length up to it: the struct's own size. */
	r = mmap(NULL, sizeof(*r), RW, MAP_SHARED, fd, ROFF);
	CHECK(r != MAP_FAILED);
	CHECK_EQ(head_of(r), 0);
	CHECK_EQ(tail_of(r), 0);
	/* Mapped: the configuration is fixed. */
	CHECK_ERR(config_raw(fd, MS, CFG_RING | CFG_MANUAL, 0), EBUSY);
	CHECK_ERR(config_raw(fd, MS, CFG_MANUAL, 0), EBUSY);
	CHECK_ERR(config_raw(fd, 2 * MS, 0, 0), EBUSY);
	info = twt_info(fd);
	CHECK_EQ(info.config_flags, CFG_RING | CFG_MANUAL);
	CHECK_EQ(info.tick_ns, MS);
	/* A second mapping, one page, PROT_READ alone: the same ring. */
	ro = mmap(NULL, pg, PROT_READ, MAP_SHARED, fd, ROFF);
	CHECK(ro != MAP_FAILED);
	set_head(r, 7);
	CHECK_EQ(head_of(ro), 7);
	set_head(r, 0);
	CHECK_EQ(head_of(ro), 0);
	/* No PROT_EXEC later, no growing. */
	CHECK_ERR(mprotect(r, len, RW | PROT_EXEC), EACCES);
	CHECK_ERR(mremap(r, len, len + pg, MREMAP_MAYMOVE) == MAP_FAILED ?
		  -1 : 0, EFAULT);
	CHECK_OK(munmap(ro, pg));
	CHECK_OK(munmap(r, len));
	/* Still fixed once unmapped. */
	CHECK_ERR(config_raw(fd, MS, CFG_MANUAL, 0), EBUSY);
	CHECK_EQ(twt_info(fd).config_flags, CFG_RING | CFG_MANUAL);
	close(fd);
}

/* After close(2) the mapping is still the ring, with its records. */
static void mapping_outlives_fd(void)
{
	struct twheel_ring *r;
	uint64_t ids[2];
	int fd;

	r = manual_ring(&fd);
	add_at(fd, 2, 5 * MS, 40, ids);
	adv_to(fd, 5 * MS);
	CHECK_READABLE(fd);
	CHECK_EQ(tail_of(r), 2);
	close(fd);
	CHECK_EQ(tail_of(r), 2);
	CHECK_REC(RING_EV(r, 0), ids[0], 40, 5 * MS, 1, MONO);
	CHECK_REC(RING_EV(r, 1), ids[1], 41, 5 * MS, 1, MONO);
	set_head(r, 2);
	CHECK_EQ(head_of(r), 2);
	CHECK_OK(munmap(r, ring_len()));
}

/* ---- 3. moving records ---- */

/*
 * Only a poll moves records; one poll moves all queued, oldest first,
 * each ended as if read; readable until head == tail.
 */
static void poll_moves(void)
{
	struct twheel_event ev[4];
	struct twheel_status st;
	struct twheel_ring *r;
	uint64_t a, b, c, d, e, f, g;
	int fd;

	r = manual_ring(&fd);
	CHECK_EQ(head_of(r), 0);
	CHECK_EQ(tail_of(r), 0);
	CHECK_NOT_READABLE(fd);
	a = twt_add(fd, 101, 30 * MS, TWHEEL_ABSTIME, MONO);
	b = twt_add(fd, 102, 10 * MS, TWHEEL_ABSTIME, CLOCK_BOOTTIME);
	c = twt_add(fd, 103, 20 * MS, TWHEEL_ABSTIME, CLOCK_REALTIME);
	d = twt_add(fd, 104, 10 * MS, TWHEEL_ABSTIME, CLOCK_TAI);
	e = twt_add(fd, 105, 15 * MS, 0, MONO);
	CHECK_EQ(twt_advance(fd, 30 * MS), 30 * MS);
	/* Queued; neither the advance nor an ioctl moved them. */
	CHECK_COUNTS(fd, 5, 5);
	st = twt_query(fd, b);
	CHECK_EQ(st.state, TWHEEL_STATE_QUEUED);
	CHECK_EQ(tail_of(r), 0);
	/* One poll: all five, in deadline order, equal ticks in add order. */
	CHECK_READABLE(fd);
	CHECK_EQ(tail_of(r), 5);
	CHECK_EQ(head_of(r), 0);
	CHECK_REC(RING_EV(r, 0), b, 102, 30 * MS, 1, CLOCK_BOOTTIME);
	CHECK_REC(RING_EV(r, 1), d, 104, 30 * MS, 1, CLOCK_TAI);
	CHECK_REC(RING_EV(r, 2), e, 105, 30 * MS, 1, MONO);
	CHECK_REC(RING_EV(r, 3), c, 103, 30 * MS, 1, CLOCK_REALTIME);
	CHECK_REC(RING_EV(r, 4), a, 101, 30 * MS, 1, MONO);
	/* Each ended as if read. */
	CHECK_COUNTS(fd, 0, 0);
	CHECK_ERR(twt_query_raw(fd, b, NULL), ENOENT);
	CHECK_ERR(twt_cancel_raw(fd, a, 0, NULL), ENOENT);
	CHECK_ERR(twt_modify_raw(fd, c, 0, MS, 0, 0, NULL), ENOENT);
	/* read(2) takes nothing from the ring. */
	CHECK_ERR(read(fd, ev, sizeof(ev)), EAGAIN);
	/* Readable while head differs from tail; a poll changes nothing. */
	CHECK_READABLE(fd);
	CHECK_EQ(tail_of(r), 5);
	set_head(r, 2);
	CHECK_READABLE(fd);
	CHECK_EQ(tail_of(r), 5);
	set_head(r, 5);
	CHECK_NOT_READABLE(fd);
	CHECK_ERR(read(fd, ev, sizeof(ev)), EAGAIN);

	/* A timer due when added is queued by the add, not moved by it. */
	f = twt_add(fd, 106, 40 * MS, TWHEEL_ABSTIME, MONO);
	g = twt_add(fd, 107, 25 * MS, TWHEEL_ABSTIME, CLOCK_BOOTTIME);
	CHECK_COUNTS(fd, 2, 1);
	CHECK_EQ(tail_of(r), 5);
	CHECK_EQ(twt_advance(fd, 10 * MS), 40 * MS);
	CHECK_COUNTS(fd, 2, 2);
	CHECK_EQ(tail_of(r), 5);
	/* The next poll goes on from the tail. */
	CHECK_READABLE(fd);
	CHECK_EQ(tail_of(r), 7);
	CHECK_REC(RING_EV(r, 5), g, 107, 30 * MS, 1, CLOCK_BOOTTIME);
	CHECK_REC(RING_EV(r, 6), f, 106, 40 * MS, 1, MONO);
	CHECK_COUNTS(fd, 0, 0);
	set_head(r, 7);
	CHECK_NOT_READABLE(fd);
	close(fd);
}

/* epoll_wait (level-triggered) and select(2) move records too. */
static void epoll_select_move(void)
{
	struct timeval tv = { 0, 0 };
	struct twheel_ring *r;
	uint64_t ids[6];
	uint32_t events = 0;
	fd_set rd;
	int fd, ep;

	r = manual_ring(&fd);
	ep = twt_ep_new(fd, EPOLLIN);
	CHECK_OK(ep);
	CHECK_EQ(twt_ep_wait(ep, 0, NULL), 0);
	add_at(fd, 3, 5 * MS, 1, ids);
	adv_to(fd, 5 * MS);
	CHECK_EQ(tail_of(r), 0);
	CHECK_EQ(twt_ep_wait(ep, 5000, &events), 1);
	CHECK(events & EPOLLIN);
	CHECK_EQ(tail_of(r), 3);
	CHECK_COUNTS(fd, 0, 0);
	CHECK_REC(RING_EV(r, 0), ids[0], 1, 5 * MS, 1, MONO);
	CHECK_REC(RING_EV(r, 1), ids[1], 2, 5 * MS, 1, MONO);
	CHECK_REC(RING_EV(r, 2), ids[2], 3, 5 * MS, 1, MONO);
	/* Reported again until head reaches the tail. */
	CHECK_EQ(twt_ep_wait(ep, 0, &events), 1);
	CHECK(events & EPOLLIN);
	CHECK_EQ(tail_of(r), 3);
	set_head(r, 1);
	CHECK_EQ(twt_ep_wait(ep, 0, NULL), 1);
	set_head(r, 3);
	CHECK_EQ(twt_ep_wait(ep, 0, NULL), 0);
	CHECK_EQ(twt_ep_wait(ep, 0, NULL), 0);
	/* New records: the next epoll_wait fills the ring again. */
	add_at(fd, 2, 10 * MS, 4, ids + 3);
	adv_to(fd, 10 * MS);
	CHECK_EQ(twt_ep_wait(ep, 5000, &events), 1);
	CHECK_EQ(tail_of(r), 5);
	CHECK_REC(RING_EV(r, 3), ids[3], 4, 10 * MS, 1, MONO);
	CHECK_REC(RING_EV(r, 4), ids[4], 5, 10 * MS, 1, MONO);
	set_head(r, 5);
	CHECK_EQ(twt_ep_wait(ep, 0, NULL), 0);
	CHECK_NOT_READABLE(fd);

	/* select(2). */
	add_at(fd, 1, 15 * MS, 6, ids + 5);
	adv_to(fd, 15 * MS);
	CHECK_EQ(tail_of(r), 5);
	FD_ZERO(&rd);
	FD_SET(fd, &rd);
	CHECK_EQ(select(fd + 1, &rd, NULL, NULL, &tv), 1);
	CHECK(FD_ISSET(fd, &rd));
	CHECK_EQ(tail_of(r), 6);
	CHECK_REC(RING_EV(r, 5), ids[5], 6, 15 * MS, 1, MONO);
	CHECK_COUNTS(fd, 0, 0);
	set_head(r, 6);
	FD_ZERO(&rd);
	FD_SET(fd, &rd);
	tv.tv_sec = 0;
	tv.tv_usec = 0;
	CHECK_EQ(select(fd + 1, &rd, NULL, NULL, &tv), 0);
	close(ep);
	close(fd);
}

TWT_MAIN("ring",
	 TWT_CASE(setup_info),
	 TWT_CASE(setup_without_flag),
	 TWT_CASE(mmap_rules),
	 TWT_CASE(mapping_outlives_fd),
	 TWT_CASE(poll_moves),
	 TWT_CASE(epoll_select_move))
