/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ring.h - the helpers of the record ring's tests (ring.c, ring_room.c):
 * an fd with a ring, configured and mapped; its head and tail as the
 * program loads and stores them; readability by one poll that does not
 * wait; a record compared field by field; a timer's status; timers
 * added. With table.h's (the table's tests: the manual clock moved, a
 * child waited for) and twtest.h's (an epoll set): each program defines
 * _GNU_SOURCE before its first #include.
 */
#ifndef TWT_RING_H
#define TWT_RING_H

#include <sys/select.h>
#include <sys/wait.h>

#include "table.h"
#include "libtwheel.h"

#define CFG_RING	TWHEEL_CONFIG_RING
#define NENT		TWHEEL_RING_ENTRIES
#define ROFF		((off_t)TWHEEL_RING_OFFSET)
#define MONO		CLOCK_MONOTONIC

/* Record i of the ring (i counts records, modulo 2^32). */
#define RING_EV(r, i)	(&(r)->events[(uint32_t)(i) % NENT])

/* The ring's mapping: sizeof(struct twheel_ring) in whole pages. */
static inline size_t ring_len(void)
{
	return (sizeof(struct twheel_ring) + pgsz() - 1) / pgsz() * pgsz();
}

/* open_ring(flags, tick): an O_NONBLOCK fd configured with @flags | ring. */
#define open_ring(flags, tick)						\
	open_ring_at(__FILE__, __LINE__, (flags), (tick))
static inline int open_ring_at(const char *file, int line, uint32_t flags,
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
static inline struct twheel_ring *map_ring_at(const char *file, int line, int fd)
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
static inline uint32_t tail_of(struct twheel_ring *r)
{
	return __atomic_load_n(&r->tail, __ATOMIC_ACQUIRE);
}

static inline uint32_t head_of(struct twheel_ring *r)
{
	return __atomic_load_n(&r->head, __ATOMIC_RELAXED);
}

static inline void set_head(struct twheel_ring *r, uint32_t head)
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

/* QUERY of timer @id: its state, count and deadline. */
#define CHECK_STATUS(fd, id, state_, count_, deadline) do {		\
	struct twheel_status _s = twt_query((fd), (id));		\
									\
	CHECK_EQ(_s.state, (state_));					\
	CHECK_EQ(_s.count, (count_));					\
	CHECK_EQ(_s.deadline_ns, (deadline));				\
} while (0)

/* Record *@e is timer @id's: @cookie, @time_ns, @count, @clock, flags 0. */
#define CHECK_REC(e, id, cookie, t, count, clock)			\
	check_rec_at(__FILE__, __LINE__, (e), (id), (cookie), (t),	\
		     (count), (clock))
static inline void check_rec_at(const char *file, int line,
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
static inline void add_at(int fd, unsigned int n, int64_t at, uint64_t cookie0,
		   uint64_t *ids)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		ids[i] = twt_add(fd, cookie0 + i, at, TWHEEL_ABSTIME, MONO);
}

#endif /* TWT_RING_H */
