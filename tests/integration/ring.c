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
#include <fcntl.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/select.h>

#include "twtest.h"
#include "libtwheel.h"

#define MS		TWT_MS
#define RW		(PROT_READ | PROT_WRITE)
#define CFG_RING	TWHEEL_CONFIG_RING
#define CFG_MANUAL	TWHEEL_CONFIG_MANUAL
#define CFG_TABLE	TWHEEL_CONFIG_TABLE
#define CFG_MAX		TWHEEL_CONFIG_MAX_TIMERS
#define NENT		TWHEEL_RING_ENTRIES
#define ROFF		((off_t)TWHEEL_RING_OFFSET)
#define MONO		CLOCK_MONOTONIC

/* Record i of the ring (i counts records, modulo 2^32). */
#define RING_EV(r, i)	(&(r)->events[(uint32_t)(i) % NENT])

static size_t pgsz(void)
{
	return (size_t)sysconf(_SC_PAGESIZE);
}

/* The ring's mapping: sizeof(struct twheel_ring) in whole pages. */
static size_t ring_len(void)
{
	return (sizeof(struct twheel_ring) + pgsz() - 1) / pgsz() * pgsz();
}

/* TWHEEL_IOC_CONFIG with every field. */
static int config_raw(int fd, uint64_t tick_ns, uint32_t flags, uint64_t max)
{
	struct twheel_config c;

	memset(&c, 0, sizeof(c));
	c.tick_ns = tick_ns;
	c.flags = flags;
	c.max_timers = max;
	return ioctl(fd, TWHEEL_IOC_CONFIG, &c);
}

/* mmap as asked: 0 (unmapped again) or -1 with errno. */
static int try_map(int fd, size_t len, int prot, int flags, off_t off)
{
	void *p = mmap(NULL, len, prot, flags, fd, off);

	if (p == MAP_FAILED)
		return -1;
	munmap(p, len);
	return 0;
}

/* open_ring(flags, tick): an O_NONBLOCK fd configured with @flags | ring. */
#define open_ring(flags, tick)						\
	open_ring_at(__FILE__, __LINE__, (flags), (tick))
static int open_ring_at(const char *file, int line, uint32_t flags,
			uint64_t tick_ns)
{
	int fd = twt_open_at(file, line, O_NONBLOCK);

	flags |= CFG_RING;
	if (config_raw(fd, tick_ns, flags, 0))
		twt_fail(file, line, "CONFIG(tick %" PRIu64 ", flags %#x): %s",
			 tick_ns, flags, strerror(errno));
	return fd;
}

/* map_ring(fd): the ring mapped whole, as the header says, or fail. */
#define map_ring(fd)	map_ring_at(__FILE__, __LINE__, (fd))
static struct twheel_ring *map_ring_at(const char *file, int line, int fd)
{
	void *p = mmap(NULL, ring_len(), RW, MAP_SHARED, fd, ROFF);

	if (p == MAP_FAILED)
		twt_fail(file, line, "mmap(ring, len %zu): %s", ring_len(),
			 strerror(errno));
	return p;
}

/* A 1 ms manual fd with its ring mapped. */
#define manual_ring(fdp)	map_ring(*(fdp) = open_ring(CFG_MANUAL, MS))

/* The tail as the program reads it (load-acquire); head as it stores it. */
static uint32_t tail_of(struct twheel_ring *r)
{
	return __atomic_load_n(&r->tail, __ATOMIC_ACQUIRE);
}

static uint32_t head_of(struct twheel_ring *r)
{
	return __atomic_load_n(&r->head, __ATOMIC_RELAXED);
}

static void set_head(struct twheel_ring *r, uint32_t head)
{
	__atomic_store_n(&r->head, head, __ATOMIC_RELEASE);
}

/* Readable or not, by one poll(2) that does not wait (and fills). */
#define CHECK_READABLE(fd)	CHECK(twt_poll((fd), 0) & POLLIN)
#define CHECK_NOT_READABLE(fd)	CHECK_EQ(twt_poll((fd), 0), 0)

/* The fd holds @t timers, @q of them queued. */
#define CHECK_COUNTS(fd, t, q) do {					\
	struct twheel_info _i = twt_info(fd);				\
									\
	CHECK_EQ(_i.timers, (t));					\
	CHECK_EQ(_i.queued, (q));					\
} while (0)

/* Record *@e is timer @id's: @cookie, @time_ns, @count, @clock, flags 0. */
#define CHECK_REC(e, id, cookie, t, count, clock)			\
	check_rec_at(__FILE__, __LINE__, (e), (id), (cookie), (t),	\
		     (count), (clock))
static void check_rec_at(const char *file, int line,
			 const struct twheel_event *e, uint64_t id,
			 uint64_t cookie, int64_t time_ns, uint64_t count,
			 uint32_t clock)
{
	if (e->id == id && e->cookie == cookie && e->time_ns == time_ns &&
	    e->count == count && e->clock == clock && e->flags == 0)
		return;
	twt_fail(file, line, "record id %" PRIu64 " cookie %" PRIu64
		 " time %" PRId64 " count %" PRIu64 " clock %u flags %#x;"
		 " want id %" PRIu64 " cookie %" PRIu64 " time %" PRId64
		 " count %" PRIu64 " clock %u flags 0",
		 (uint64_t)e->id, (uint64_t)e->cookie, (int64_t)e->time_ns,
		 (uint64_t)e->count, e->clock, e->flags, id, cookie, time_ns,
		 count, clock);
}

/*
 * @n one-shot timers on CLOCK_MONOTONIC at the absolute time @at, cookies
 * @cookie0 + i, ids into @ids (in add order).
 */
static void add_at(int fd, unsigned int n, int64_t at, uint64_t cookie0,
		   uint64_t *ids)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		ids[i] = twt_add(fd, cookie0 + i, at, TWHEEL_ABSTIME, MONO);
}

/* Move the manual clock to @t (not backwards), or fail. */
#define adv_to(fd, t)						\
	CHECK_EQ(twt_advance((fd), (t) - twt_advance((fd), 0)), (t))

/* Wait for a child that checks with CHECK; pass its failure on. */
static void wait_ok(pid_t pid)
{
	int status;

	CHECK_EQ(waitpid(pid, &status, 0), pid);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

static int ep_new(int fd)
{
	int ep = epoll_create1(EPOLL_CLOEXEC);
	struct epoll_event e = { .events = EPOLLIN, .data.u64 = 0x1234 };

	CHECK(ep >= 0);
	CHECK_OK(epoll_ctl(ep, EPOLL_CTL_ADD, fd, &e));
	return ep;
}

/* One epoll_wait(2): the number of fds reported, *@events the first's. */
static int ep_wait(int ep, int timeout_ms, uint32_t *events)
{
	struct epoll_event e[2];
	int n;

	do {
		n = epoll_wait(ep, e, 2, timeout_ms);
	} while (n < 0 && errno == EINTR);
	if (n > 0 && events)
		*events = e[0].events;
	return n;
}

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
	ep = ep_new(fd);
	CHECK_EQ(ep_wait(ep, 0, NULL), 0);
	add_at(fd, 3, 5 * MS, 1, ids);
	adv_to(fd, 5 * MS);
	CHECK_EQ(tail_of(r), 0);
	CHECK_EQ(ep_wait(ep, 5000, &events), 1);
	CHECK(events & EPOLLIN);
	CHECK_EQ(tail_of(r), 3);
	CHECK_COUNTS(fd, 0, 0);
	CHECK_REC(RING_EV(r, 0), ids[0], 1, 5 * MS, 1, MONO);
	CHECK_REC(RING_EV(r, 1), ids[1], 2, 5 * MS, 1, MONO);
	CHECK_REC(RING_EV(r, 2), ids[2], 3, 5 * MS, 1, MONO);
	/* Reported again until head reaches the tail. */
	CHECK_EQ(ep_wait(ep, 0, &events), 1);
	CHECK(events & EPOLLIN);
	CHECK_EQ(tail_of(r), 3);
	set_head(r, 1);
	CHECK_EQ(ep_wait(ep, 0, NULL), 1);
	set_head(r, 3);
	CHECK_EQ(ep_wait(ep, 0, NULL), 0);
	CHECK_EQ(ep_wait(ep, 0, NULL), 0);
	/* New records: the next epoll_wait fills the ring again. */
	add_at(fd, 2, 10 * MS, 4, ids + 3);
	adv_to(fd, 10 * MS);
	CHECK_EQ(ep_wait(ep, 5000, &events), 1);
	CHECK_EQ(tail_of(r), 5);
	CHECK_REC(RING_EV(r, 3), ids[3], 4, 10 * MS, 1, MONO);
	CHECK_REC(RING_EV(r, 4), ids[4], 5, 10 * MS, 1, MONO);
	set_head(r, 5);
	CHECK_EQ(ep_wait(ep, 0, NULL), 0);
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
	st = twt_query(fd, id);
	CHECK_EQ(st.state, TWHEEL_STATE_QUEUED);
	CHECK_EQ(st.count, 1);
	CHECK_EQ(st.deadline_ns, 20 * MS);
	CHECK_EQ(tail_of(r), 0);
	CHECK_READABLE(fd);
	CHECK_EQ(tail_of(r), 1);
	CHECK_REC(RING_EV(r, 0), id, 7, 10 * MS, 1, MONO);
	st = twt_query(fd, id);
	CHECK_EQ(st.state, TWHEEL_STATE_PENDING);
	CHECK_EQ(st.deadline_ns, 20 * MS);
	CHECK_EQ(st.remaining_ns, 10 * MS);
	CHECK_EQ(st.count, 0);
	CHECK_EQ(st.period_ns, 10 * MS);
	CHECK_COUNTS(fd, 1, 0);
	/* Three deadlines passed (20, 30, 40) by 45 ms: one record of 3. */
	adv_to(fd, 45 * MS);
	st = twt_query(fd, id);
	CHECK_EQ(st.state, TWHEEL_STATE_QUEUED);
	CHECK_EQ(st.count, 3);
	CHECK_EQ(st.deadline_ns, 50 * MS);
	CHECK_EQ(tail_of(r), 1);
	CHECK_READABLE(fd);
	CHECK_EQ(tail_of(r), 2);
	CHECK_REC(RING_EV(r, 1), id, 7, 45 * MS, 3, MONO);
	st = twt_query(fd, id);
	CHECK_EQ(st.state, TWHEEL_STATE_PENDING);
	CHECK_EQ(st.deadline_ns, 50 * MS);
	CHECK_EQ(st.remaining_ns, 5 * MS);
	CHECK_EQ(st.count, 0);
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
	st = twt_query(fd, id);
	CHECK_EQ(st.state, TWHEEL_STATE_QUEUED);
	CHECK_EQ(st.count, 2);
	CHECK_EQ(st.deadline_ns, 80 * MS);
	CHECK_COUNTS(fd, 1, 1);
	set_head(r, 3);
	CHECK_READABLE(fd);
	CHECK_EQ(tail_of(r), 4);
	CHECK_REC(RING_EV(r, 3), id, 7, 75 * MS, 2, MONO);
	st = twt_query(fd, id);
	CHECK_EQ(st.state, TWHEEL_STATE_PENDING);
	CHECK_EQ(st.deadline_ns, 80 * MS);
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
	ep = ep_new(fd);
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
	CHECK_EQ(ep_wait(ep, 0, NULL), 0);
	t0 = twt_mono() + 30 * MS;
	add_at(fd, 3, t0, 600, ids);
	CHECK_EQ(ep_wait(ep, 30000, &events), 1);
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
	CHECK_EQ(ep_wait(ep, 0, NULL), 0);
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

TWT_MAIN("ring",
	 TWT_CASE(setup_info),
	 TWT_CASE(setup_without_flag),
	 TWT_CASE(mmap_rules),
	 TWT_CASE(mapping_outlives_fd),
	 TWT_CASE(poll_moves),
	 TWT_CASE(epoll_select_move),
	 TWT_CASE(overflow_read),
	 TWT_CASE(overflow_refill),
	 TWT_CASE(garbage_head),
	 TWT_CASE(program_stores_ignored),
	 TWT_CASE(periodic_next_deadline),
	 TWT_CASE(fork_same_ring),
	 TWT_CASE_T(real_clock, 120),
	 TWT_CASE(ring_and_table),
	 TWT_CASE(libtwheel_ring))
