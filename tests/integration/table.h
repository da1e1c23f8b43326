/* SPDX-License-Identifier: GPL-2.0 */
/*
 * table.h - the helpers of the shared timer table's tests (table.c,
 * table_store.c, table_values.c, table_life.c, table_real.c): an fd with
 * a table, configured and mapped; an entry loaded and stored, or a value
 * not meant for it; the manual
 * clock moved; exactly one record expected; fdinfo read; a child waited
 * for. Each program defines _GNU_SOURCE before its first #include
 * (mremap(), unshare()).
 */
#ifndef TWT_TABLE_H
#define TWT_TABLE_H

#include <fcntl.h>
#include <sys/mman.h>

#include "twtest.h"

#define MS		TWT_MS
#define TWHEEL_DEVICE	"/dev/twheel"
#define RW		(PROT_READ | PROT_WRITE)
#define CFG_TABLE	TWHEEL_CONFIG_TABLE
#define CFG_MANUAL	TWHEEL_CONFIG_MANUAL
#define CFG_MAX		TWHEEL_CONFIG_MAX_TIMERS

static inline size_t pgsz(void)
{
	return (size_t)sysconf(_SC_PAGESIZE);
}

/* TWHEEL_IOC_CONFIG with every field. */
static inline int config_raw(int fd, uint64_t tick_ns, uint32_t flags,
			     uint64_t max)
{
	struct twheel_config c;

	memset(&c, 0, sizeof(c));
	c.tick_ns = tick_ns;
	c.flags = flags;
	c.max_timers = max;
	return ioctl(fd, TWHEEL_IOC_CONFIG, &c);
}

/* mmap as asked: 0 (unmapped again) or -1 with errno. */
static inline int try_map(int fd, size_t len, int prot, int flags, off_t off)
{
	void *p = mmap(NULL, len, prot, flags, fd, off);

	if (p == MAP_FAILED)
		return -1;
	munmap(p, len);
	return 0;
}

/*
 * open_table(flags, tick, max): an O_NONBLOCK fd with a table, configured
 * with @flags (CFG_MANUAL or 0), @tick, and at most @max timers (0: the
 * fd's maximum).
 */
#define open_table(flags, tick, max)					\
	open_table_at(__FILE__, __LINE__, (flags), (tick), (max))
static inline int open_table_at(const char *file, int line, uint32_t flags,
				uint64_t tick_ns, uint64_t max)
{
	int fd = twt_open_at(file, line, O_NONBLOCK);

	flags |= CFG_TABLE | (max ? CFG_MAX : 0);
	if (config_raw(fd, tick_ns, flags, max))
		twt_fail(file, line, "CONFIG(tick %" PRIu64 ", flags %#x, max %"
			 PRIu64 "): %s", tick_ns, flags, max, strerror(errno));
	return fd;
}

/* map_table(fd, len): the table mapped as the header says, or fail. */
#define map_table(fd, len)	map_table_at(__FILE__, __LINE__, (fd), (len))
static inline uint64_t *map_table_at(const char *file, int line, int fd,
				     size_t len)
{
	void *p = mmap(NULL, len, RW, MAP_SHARED, fd, 0);

	if (p == MAP_FAILED)
		twt_fail(file, line, "mmap(len %zu): %s", len, strerror(errno));
	return p;
}

/* A 1 ms manual fd with a table of @max timers, mapped whole. */
static inline int manual_table(uint64_t max, uint64_t **tab)
{
	int fd = open_table(CFG_MANUAL, MS, max);

	*tab = map_table(fd, twt_info(fd).table_size);
	return fd;
}

/* An entry, as the application loads and stores it. */
static inline uint64_t ld(uint64_t *tab, uint64_t id)
{
	return __atomic_load_n(&tab[TWHEEL_TABLE_INDEX(id)], __ATOMIC_SEQ_CST);
}

static inline void st(uint64_t *tab, uint64_t id, uint64_t v)
{
	__atomic_store_n(&tab[TWHEEL_TABLE_INDEX(id)], v, __ATOMIC_SEQ_CST);
}

/* A value with bits 33-63 unlike @id's. */
static inline uint64_t garbage_for(uint64_t id, uint64_t *seed)
{
	uint64_t g;

	do {
		g = twt_rand(seed);
	} while (!((g ^ id) >> 33));
	return g;
}

/* adv_to(fd, t): move the manual clock to @t ns (not backwards). */
#define adv_to(fd, t)	adv_to_at(__FILE__, __LINE__, (fd), (t))
static inline void adv_to_at(const char *file, int line, int fd, int64_t t)
{
	int64_t now = twt_advance_at(file, line, fd, 0);

	if (t < now)
		twt_fail(file, line, "advance to %" PRId64 " < now %" PRId64,
			 t, now);
	if (twt_advance_at(file, line, fd, t - now) != t)
		twt_fail(file, line, "advance to %" PRId64 " missed", t);
}

/*
 * expect_one(fd, id, cookie, time_ns): exactly one record is queued, of
 * timer @id (cookie @cookie, count 1) at @time_ns, and nothing after it.
 */
#define expect_one(fd, id, cookie, t)					\
	expect_one_at(__FILE__, __LINE__, (fd), (id), (cookie), (t))
static inline void expect_one_at(const char *file, int line, int fd,
				 uint64_t id, uint64_t cookie,
				 int64_t time_ns)
{
	struct twheel_event ev[4];
	ssize_t r;

	r = read(fd, ev, sizeof(ev));
	if (r != TWT_EV_SIZE)
		twt_fail(file, line, "read: %zd (%s), want one record", r,
			 r < 0 ? strerror(errno) : "");
	if (ev[0].id != id || ev[0].cookie != cookie ||
	    ev[0].time_ns != time_ns || ev[0].count != 1)
		twt_fail(file, line, "record id %" PRIu64 " cookie %" PRIu64
			 " time %" PRId64 " count %" PRIu64 "; want id %" PRIu64
			 " cookie %" PRIu64 " time %" PRId64,
			 (uint64_t)ev[0].id, (uint64_t)ev[0].cookie,
			 (int64_t)ev[0].time_ns, (uint64_t)ev[0].count, id,
			 cookie, time_ns);
}

/* fdinfo's @key of @fd, or fail. */
static inline long long fdinfo_of(int fd, const char *key)
{
	long long v = -1;

	if (twt_fdinfo(fd, key, &v))
		twt_fail(__FILE__, __LINE__, "fdinfo has no %s", key);
	return v;
}

/* Wait for a child that checks with CHECK; pass its failure on. */
static inline void wait_ok(pid_t pid)
{
	int status;

	CHECK_EQ(waitpid(pid, &status, 0), pid);
	if (WIFEXITED(status) && WEXITSTATUS(status) == TWT_SKIP_STATUS)
		twt_skip("see above");
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

/* The entry says TWHEEL_TABLE_DEADLINE(id, deadline_ns / tick_ns). */
#define CHECK_PUBLISHED(fd, tab, id, tick) do {				\
	struct twheel_status _s = twt_query((fd), (id));		\
	CHECK_EQ(ld((tab), (id)),					\
		 TWHEEL_TABLE_DEADLINE((id), _s.deadline_ns / (tick)));	\
} while (0)

#endif /* TWT_TABLE_H */
