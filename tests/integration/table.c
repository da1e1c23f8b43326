// SPDX-License-Identifier: GPL-2.0
/*
 * table: the shared timer table (TWHEEL_CONFIG_TABLE, mmap), checked from
 * what uapi/linux/twheel.h promises ("The shared timer table").
 *
 * Setup: TWHEEL_IOC_INFO's table_size is max_timers * 8 rounded up to the
 * page size (0 without a table), config_flags has TWHEEL_CONFIG_TABLE,
 * features TWHEEL_FEATURE_TABLE; a configuration without the flag leaves
 * the fd without one (mmap ENODEV); CONFIG is EBUSY once the table was
 * mapped, and after the first timer.
 * The mapping: EINVAL for an offset, a length beyond table_size or
 * MAP_PRIVATE; EPERM for PROT_EXEC, EACCES for mprotect(PROT_EXEC);
 * mremap() cannot grow it (EFAULT), may shrink it and move it (the moved
 * mapping is the same table, also after MADV_DONTNEED).
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
 * CANCEL on it succeeds, MODIFY overrides it. A value stored at the
 * wrong index acts on that entry's timer when its bits 33 to 63 are
 * that timer's (another live timer of the same generation). Stores aimed at an ended
 * timer of the same entry, 0 and garbage never touch the next timer;
 * random values with the right tag follow the header's rule exactly (the
 * D within 2^31 ticks of the present tick), never early, never twice.
 * The 2^31-tick range of D; periodic timers ignore stored deadlines and
 * end at their next tick when cancelled.
 * Real clock: a timer pushed back every 2 ms from another thread never
 * fires before the last deadline stored before its record's time_ns, and
 * fires exactly once; a reader blocked in read(2) is woken at the pushed
 * deadline, never for timers cancelled by a store.
 * Backing: pages beyond the slots used raise SIGBUS; fdinfo table_bytes.
 * Lifetime: the mapping keeps the fd's timer set (and the user's charge)
 * after close(2) until munmap (also when the last mapping is a child's);
 * munmap changes nothing for the timers; after fork() and in a process
 * mapping the fd itself it is one table.
 * Time namespaces: a stored D is a tick of the opener's namespace time.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include "twtest.h"

#ifndef CLONE_NEWTIME
#define CLONE_NEWTIME 0x00000080
#endif

#define MS		TWT_MS
#define TWHEEL_DEVICE	"/dev/twheel"
#define RW		(PROT_READ | PROT_WRITE)
#define CFG_TABLE	TWHEEL_CONFIG_TABLE
#define CFG_MANUAL	TWHEEL_CONFIG_MANUAL
#define CFG_MAX		TWHEEL_CONFIG_MAX_TIMERS

static size_t pgsz(void)
{
	return (size_t)sysconf(_SC_PAGESIZE);
}

/* The table's size for @max timers: 8 bytes each, whole pages. */
static uint64_t table_bytes_for(uint64_t max)
{
	return (max * 8 + pgsz() - 1) / pgsz() * pgsz();
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

/*
 * open_table(flags, tick, max): an O_NONBLOCK fd with a table, configured
 * with @flags (CFG_MANUAL or 0), @tick, and at most @max timers (0: the
 * fd's maximum).
 */
#define open_table(flags, tick, max)					\
	open_table_at(__FILE__, __LINE__, (flags), (tick), (max))
static int open_table_at(const char *file, int line, uint32_t flags,
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
static uint64_t *map_table_at(const char *file, int line, int fd, size_t len)
{
	void *p = mmap(NULL, len, RW, MAP_SHARED, fd, 0);

	if (p == MAP_FAILED)
		twt_fail(file, line, "mmap(len %zu): %s", len, strerror(errno));
	return p;
}

/* A 1 ms manual fd with a table of @max timers, mapped whole. */
static int manual_table(uint64_t max, uint64_t **tab)
{
	int fd = open_table(CFG_MANUAL, MS, max);

	*tab = map_table(fd, twt_info(fd).table_size);
	return fd;
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

/* An entry, as the application loads and stores it. */
static uint64_t ld(uint64_t *tab, uint64_t id)
{
	return __atomic_load_n(&tab[TWHEEL_TABLE_INDEX(id)], __ATOMIC_SEQ_CST);
}

static void st(uint64_t *tab, uint64_t id, uint64_t v)
{
	__atomic_store_n(&tab[TWHEEL_TABLE_INDEX(id)], v, __ATOMIC_SEQ_CST);
}

/* adv_to(fd, t): move the manual clock to @t ns (not backwards). */
#define adv_to(fd, t)	adv_to_at(__FILE__, __LINE__, (fd), (t))
static void adv_to_at(const char *file, int line, int fd, int64_t t)
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
static void expect_one_at(const char *file, int line, int fd, uint64_t id,
			  uint64_t cookie, int64_t time_ns)
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
static long long fdinfo_of(int fd, const char *key)
{
	long long v = -1;

	if (twt_fdinfo(fd, key, &v))
		twt_fail(__FILE__, __LINE__, "fdinfo has no %s", key);
	return v;
}

/*
 * Touch (load) *@p in a child: 0 when it survived, else the signal that
 * killed it.
 */
static int touch_in_child(volatile uint64_t *p)
{
	int status;
	pid_t pid;

	fflush(stdout);
	pid = fork();
	CHECK(pid >= 0);
	if (pid == 0) {
		uint64_t v = *p;

		(void)v;
		_exit(0);
	}
	CHECK_EQ(waitpid(pid, &status, 0), pid);
	if (WIFSIGNALED(status))
		return WTERMSIG(status);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	return 0;
}

/* Wait for a child that checks with CHECK; pass its failure on. */
static void wait_ok(pid_t pid)
{
	int status;

	CHECK_EQ(waitpid(pid, &status, 0), pid);
	if (WIFEXITED(status) && WEXITSTATUS(status) == TWT_SKIP_STATUS)
		twt_skip("see above");
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

/* ---- 1. setup ---- */

/* table_size is max_timers entries in whole pages; the flags say so. */
static void setup_sizes(void)
{
	static const uint64_t maxes[] = { 1, 512, 513, 1000 };
	struct twheel_info info;
	unsigned int i;
	int fd;

	for (i = 0; i < sizeof(maxes) / sizeof(maxes[0]); i++) {
		fd = twt_open(0);
		info = twt_info(fd);
		CHECK(info.features & TWHEEL_FEATURE_TABLE);
		CHECK_EQ(info.table_size, 0);
		CHECK_EQ(info.cancelled, 0);
		CHECK_EQ(info.config_flags, 0);
		CHECK_OK(config_raw(fd, MS, CFG_TABLE | CFG_MAX, maxes[i]));
		info = twt_info(fd);
		CHECK(info.features & TWHEEL_FEATURE_TABLE);
		CHECK_EQ(info.max_timers, maxes[i]);
		CHECK_EQ(info.table_size, table_bytes_for(maxes[i]));
		CHECK_EQ(info.table_size % pgsz(), 0);
		CHECK_EQ(info.config_flags, CFG_TABLE);
		CHECK_EQ(info.cancelled, 0);
		CHECK_EQ(fdinfo_of(fd, "table_size"), info.table_size);
		CHECK_EQ(fdinfo_of(fd, "table_bytes"), 0);
		CHECK_EQ(fdinfo_of(fd, "cancelled"), 0);
		close(fd);
	}
	/* The fd's own maximum, with the manual clock and another tick. */
	fd = twt_open(0);
	CHECK_OK(config_raw(fd, 3 * MS, CFG_TABLE | CFG_MANUAL, 0));
	info = twt_info(fd);
	CHECK_EQ(info.table_size, table_bytes_for(info.max_timers));
	CHECK_EQ(info.config_flags, CFG_TABLE | CFG_MANUAL);
	CHECK_EQ(info.tick_ns, 3 * MS);
	close(fd);
}

/* Without the flag no table: size 0, ENODEV; a later config removes it. */
static void setup_without_flag(void)
{
	size_t pg = pgsz();
	struct twheel_info info;
	long long v;
	int fd;

	/* Never configured. */
	fd = twt_open(0);
	CHECK_ERR(try_map(fd, pg, RW, MAP_SHARED, 0), ENODEV);
	CHECK_EQ(fdinfo_of(fd, "table_size"), 0);
	CHECK_EQ(fdinfo_of(fd, "table_bytes"), 0);
	CHECK_EQ(twt_fdinfo(fd, "cancelled", &v), -1);
	/* Configured without it. */
	CHECK_OK(config_raw(fd, MS, CFG_MANUAL | CFG_MAX, 100));
	info = twt_info(fd);
	CHECK_EQ(info.table_size, 0);
	CHECK_EQ(info.config_flags, CFG_MANUAL);
	CHECK_ERR(try_map(fd, pg, RW, MAP_SHARED, 0), ENODEV);
	/* With it, then without it again: gone. */
	CHECK_OK(config_raw(fd, MS, CFG_MANUAL | CFG_TABLE, 0));
	CHECK_EQ(twt_info(fd).config_flags, CFG_MANUAL | CFG_TABLE);
	CHECK_OK(config_raw(fd, MS, CFG_MANUAL | CFG_MAX, 100));
	info = twt_info(fd);
	CHECK_EQ(info.table_size, 0);
	CHECK_EQ(info.config_flags, CFG_MANUAL);
	CHECK_EQ(info.max_timers, 100);
	CHECK_ERR(try_map(fd, pg, RW, MAP_SHARED, 0), ENODEV);
	CHECK_EQ(fdinfo_of(fd, "table_size"), 0);
	CHECK_EQ(twt_fdinfo(fd, "cancelled", &v), -1);
	/* And back: the last configuration counts. */
	CHECK_OK(config_raw(fd, MS, CFG_TABLE | CFG_MAX, 100));
	CHECK_EQ(twt_info(fd).table_size, table_bytes_for(100));
	CHECK_EQ(twt_info(fd).config_flags, CFG_TABLE);
	CHECK_OK(try_map(fd, pg, RW, MAP_SHARED, 0));
	close(fd);
}

/* CONFIG is EBUSY once the table was mapped, and after a first timer. */
static void setup_busy(void)
{
	size_t pg = pgsz();
	struct twheel_info info;
	uint64_t *tab, id;
	int fd;

	fd = open_table(CFG_MANUAL, MS, 100);
	tab = map_table(fd, pg);
	CHECK_ERR(config_raw(fd, MS, CFG_MANUAL | CFG_TABLE | CFG_MAX, 100),
		  EBUSY);
	CHECK_ERR(config_raw(fd, MS, CFG_MANUAL, 0), EBUSY);
	CHECK_ERR(config_raw(fd, 2 * MS, CFG_TABLE, 0), EBUSY);
	info = twt_info(fd);
	CHECK_EQ(info.table_size, pg);
	CHECK_EQ(info.config_flags, CFG_MANUAL | CFG_TABLE);
	CHECK_EQ(info.tick_ns, MS);
	CHECK_EQ(info.max_timers, 100);
	/* Still fixed when unmapped again. */
	CHECK_OK(munmap(tab, pg));
	CHECK_ERR(config_raw(fd, MS, CFG_MANUAL, 0), EBUSY);
	CHECK_EQ(twt_info(fd).config_flags, CFG_MANUAL | CFG_TABLE);
	close(fd);

	/* A first timer, not mapped: EBUSY, also once it is gone. */
	fd = open_table(CFG_MANUAL, MS, 100);
	id = twt_add(fd, 1, 10 * MS, TWHEEL_ABSTIME, CLOCK_MONOTONIC);
	CHECK_ERR(config_raw(fd, MS, CFG_MANUAL | CFG_TABLE, 0), EBUSY);
	twt_cancel(fd, id);
	CHECK_ERR(config_raw(fd, MS, CFG_MANUAL, 0), EBUSY);
	CHECK_EQ(twt_info(fd).table_size, pg);
	/* Mapped after timers were added: the same table. */
	tab = map_table(fd, pg);
	CHECK_EQ(ld(tab, id), 0);
	id = twt_add(fd, 2, 10 * MS, TWHEEL_ABSTIME, CLOCK_MONOTONIC);
	CHECK_EQ(ld(tab, id), TWHEEL_TABLE_DEADLINE(id, 10));
	close(fd);
}

/* ---- 2. the mapping ---- */

static void mmap_errors(void)
{
	size_t pg = pgsz();
	uint64_t size;
	void *p, *q;
	int fd;

	fd = open_table(CFG_MANUAL, MS, 2 * pg / 8);
	size = twt_info(fd).table_size;
	CHECK_EQ(size, 2 * pg);
	CHECK_ERR(try_map(fd, pg, RW, MAP_SHARED, pg), EINVAL);
	CHECK_ERR(try_map(fd, pg, RW, MAP_SHARED, 2 * pg), EINVAL);
	CHECK_ERR(try_map(fd, size + pg, RW, MAP_SHARED, 0), EINVAL);
	CHECK_ERR(try_map(fd, size + 1, RW, MAP_SHARED, 0), EINVAL);
	CHECK_ERR(try_map(fd, size, RW, MAP_PRIVATE, 0), EINVAL);
	CHECK_ERR(try_map(fd, pg, PROT_READ, MAP_PRIVATE, 0), EINVAL);
	CHECK_ERR(try_map(fd, size, RW | PROT_EXEC, MAP_SHARED, 0), EPERM);
	CHECK_ERR(try_map(fd, pg, PROT_READ | PROT_EXEC, MAP_SHARED, 0),
		  EPERM);
	CHECK_OK(try_map(fd, size, RW, MAP_SHARED, 0));
	CHECK_OK(try_map(fd, pg, RW, MAP_SHARED, 0));
	CHECK_OK(try_map(fd, 8, RW, MAP_SHARED, 0));

	p = map_table(fd, size);
	CHECK_ERR(mprotect(p, size, RW | PROT_EXEC), EACCES);
	CHECK_ERR(mprotect(p, pg, PROT_READ | PROT_EXEC), EACCES);
	/* Growing, in place or moving: EFAULT. */
	errno = 0;
	q = mremap(p, size, size + pg, 0);
	CHECK(q == MAP_FAILED && errno == EFAULT);
	errno = 0;
	q = mremap(p, size, size + pg, MREMAP_MAYMOVE);
	CHECK(q == MAP_FAILED && errno == EFAULT);
	/* Shrinking may; growing back may not. */
	q = mremap(p, size, pg, 0);
	CHECK(q == p);
	errno = 0;
	q = mremap(p, pg, size, MREMAP_MAYMOVE);
	CHECK(q == MAP_FAILED && errno == EFAULT);
	CHECK_OK(munmap(p, pg));
	close(fd);
}

/* A mapping moved by mremap() is the same table: reads and stores act. */
static void mremap_move(void)
{
	size_t pg = pgsz();
	uint64_t *tab, *moved, id, id2;
	char *hole;
	int fd;

	fd = open_table(CFG_MANUAL, MS, 16);
	tab = map_table(fd, pg);
	id = twt_add(fd, 5, 10 * MS, TWHEEL_ABSTIME, CLOCK_MONOTONIC);
	CHECK_EQ(ld(tab, id), TWHEEL_TABLE_DEADLINE(id, 10));
	/* A place elsewhere, then the table moved onto it. */
	hole = mmap(NULL, 4 * pg, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS,
		    -1, 0);
	CHECK(hole != MAP_FAILED);
	moved = mremap(tab, pg, pg, MREMAP_MAYMOVE | MREMAP_FIXED,
		       hole + 2 * pg);
	CHECK(moved == (uint64_t *)(hole + 2 * pg));
	CHECK_EQ(ld(moved, id), TWHEEL_TABLE_DEADLINE(id, 10));
	/* A store at the new address pushes the timer back. */
	st(moved, id, TWHEEL_TABLE_DEADLINE(id, 30));
	adv_to(fd, 10 * MS);
	CHECK_NONE_QUEUED(fd);
	/* The kernel's writes show there too. */
	id2 = twt_add(fd, 6, 20 * MS, TWHEEL_ABSTIME, CLOCK_MONOTONIC);
	CHECK_EQ(ld(moved, id2), TWHEEL_TABLE_DEADLINE(id2, 20));
	adv_to(fd, 20 * MS);
	expect_one(fd, id2, 6, 20 * MS);
	CHECK_EQ(ld(moved, id2), 0);
	/* Dropped pages come back as the table's, not as new memory. */
	if (madvise(moved, pg, MADV_DONTNEED) == 0)
		CHECK_EQ(ld(moved, id), TWHEEL_TABLE_DEADLINE(id, 30));
	else	/* a kernel without CONFIG_ADVISE_SYSCALLS (tinyconfig) */
		CHECK_EQ(errno, ENOSYS);
	adv_to(fd, 29 * MS);
	CHECK_NONE_QUEUED(fd);
	adv_to(fd, 30 * MS);
	expect_one(fd, id, 5, 30 * MS);
	CHECK_EQ(ld(moved, id), 0);
	close(fd);
}

/* ---- 3. the kernel's writes ---- */

/* The entry says TWHEEL_TABLE_DEADLINE(id, deadline_ns / tick_ns). */
#define CHECK_PUBLISHED(fd, tab, id, tick) do {				\
	struct twheel_status _s = twt_query((fd), (id));		\
	CHECK_EQ(ld((tab), (id)),					\
		 TWHEEL_TABLE_DEADLINE((id), _s.deadline_ns / (tick)));	\
} while (0)

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

/* ---- 4. pushed back by a store ---- */

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

/* ---- 5. cancelled by a store ---- */

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

/* ---- 6. stale stores ---- */

/* A value with bits 33-63 unlike @id's. */
static uint64_t garbage_for(uint64_t id, uint64_t *seed)
{
	uint64_t g;

	do {
		g = twt_rand(seed);
	} while (!((g ^ id) >> 33));
	return g;
}

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

/* ---- 7. tagged garbage, exactly as the header's rule says ---- */

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

/* ---- 8. the range of D ---- */

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

/* ---- 9. periodic timers ---- */

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

/* ---- 10. a real clock ---- */

#define RSTORES		1000

struct pusher {
	uint64_t *tab;
	uint64_t id;
	int64_t d[RSTORES];	/* ticks stored */
	int64_t done[RSTORES];	/* CLOCK_MONOTONIC after each store */
	int n;
	int stop;
};

static void *pusher_fn(void *arg)
{
	struct pusher *p = arg;
	int64_t start = twt_mono();

	while (p->n < RSTORES && !__atomic_load_n(&p->stop, __ATOMIC_SEQ_CST) &&
	       twt_mono() - start < 300 * MS) {
		int64_t d = twt_mono() / MS + 50;

		st(p->tab, p->id, TWHEEL_TABLE_DEADLINE(p->id, d));
		p->d[p->n] = d;
		p->done[p->n] = twt_mono();
		__atomic_store_n(&p->n, p->n + 1, __ATOMIC_SEQ_CST);
		twt_sleep_ms(2);
	}
	return NULL;
}

static void real_clock(void)
{
	static struct pusher p;
	struct twheel_event ev[2];
	pthread_t th;
	int64_t t0, first, last_d, seen_d;
	int fd, i, k, polls = 0;
	ssize_t r;

	fd = open_table(0, MS, 8);
	p.tab = map_table(fd, pgsz());
	t0 = twt_mono();
	first = (t0 + 100 * MS) / MS + 1;
	p.id = twt_add(fd, 42, first * MS, TWHEEL_ABSTIME, CLOCK_MONOTONIC);
	CHECK_OK(pthread_create(&th, NULL, pusher_fn, &p) == 0 ? 0 : -1);
	for (;;) {
		r = read(fd, ev, sizeof(ev));
		if (r > 0)
			break;
		CHECK(r < 0 && errno == EAGAIN);
		CHECK(twt_mono() - t0 < 10 * TWT_S);
		twt_poll(fd, 5);
		polls++;
	}
	__atomic_store_n(&p.stop, 1, __ATOMIC_SEQ_CST);
	CHECK_OK(pthread_join(th, NULL) == 0 ? 0 : -1);
	CHECK_EQ(r, TWT_EV_SIZE);
	CHECK_EQ(ev[0].id, p.id);
	CHECK_EQ(ev[0].cookie, 42);
	CHECK(ev[0].time_ns >= first * MS);
	/*
	 * The last store done before the record's time (with 100 us for
	 * the clocks of two CPUs) was done before the kernel read the
	 * entry: it took effect, the record is not before its deadline.
	 */
	k = -1;
	for (i = 0; i < p.n; i++)
		if (p.done[i] < ev[0].time_ns - 100 * TWT_US)
			k = i;
	seen_d = k >= 0 ? p.d[k] : first;
	last_d = p.n ? p.d[p.n - 1] : first;
	printf("# %d stores over %.1f ms, record %+.3f ms from the last "
	       "deadline stored, %+.3f ms from the last seen (%d polls)\n",
	       p.n, p.n ? (p.done[p.n - 1] - t0) / 1e6 : 0.0,
	       (ev[0].time_ns - last_d * MS) / 1e6,
	       (ev[0].time_ns - seen_d * MS) / 1e6, polls);
	CHECK(ev[0].time_ns >= seen_d * MS);
	if (ev[0].time_ns < last_d * MS)
		printf("# a store came too late (the header's rule)\n");
	/* Exactly once: nothing more, the timer gone. */
	twt_sleep_ns(last_d * MS + 30 * MS - twt_mono());
	CHECK_NONE_QUEUED(fd);
	CHECK_EQ(twt_timers(fd), 0);
	CHECK_ERR(twt_query_raw(fd, p.id, NULL), ENOENT);
	close(fd);
}

/*
 * A real clock and a task blocked in read(2): a timer pushed back is
 * not reported before its new deadline, one cancelled by a store never;
 * the next one wakes the reader.
 */
static void real_clock_read(void)
{
	struct twheel_event ev[2];
	uint64_t *tab, a, b, c;
	int64_t now, d;
	int fd;

	fd = twt_open(0);
	CHECK_OK(config_raw(fd, MS, CFG_TABLE | CFG_MAX, 8));
	tab = map_table(fd, pgsz());
	now = twt_mono();
	a = twt_add(fd, 1, now + 100 * MS, TWHEEL_ABSTIME, CLOCK_MONOTONIC);
	b = twt_add(fd, 2, now + 100 * MS, TWHEEL_ABSTIME, CLOCK_MONOTONIC);
	c = twt_add(fd, 3, now + 50 * MS, TWHEEL_ABSTIME, CLOCK_MONOTONIC);
	d = (now + 300 * MS) / MS;
	st(tab, a, TWHEEL_TABLE_DEADLINE(a, d));
	st(tab, b, TWHEEL_TABLE_CANCELLED(b));
	st(tab, c, TWHEEL_TABLE_CANCELLED(c));
	CHECK_EQ(read(fd, ev, sizeof(ev)), TWT_EV_SIZE);
	CHECK(twt_mono() >= d * MS);
	CHECK_EQ(ev[0].id, a);
	CHECK(ev[0].time_ns >= d * MS);
	printf("# record %+.3f ms from the stored deadline\n",
	       (ev[0].time_ns - d * MS) / 1e6);
	CHECK_EQ(twt_timers(fd), 0);
	CHECK_EQ(twt_info(fd).cancelled, 2);
	CHECK_ERR(twt_query_raw(fd, b, NULL), ENOENT);
	CHECK_ERR(twt_query_raw(fd, c, NULL), ENOENT);
	close(fd);
}

/* ---- 11. backing ---- */

static void backing(void)
{
	size_t pg = pgsz(), per = pg / 8;
	uint64_t *tab, ids[600];
	int fd, i;

	fd = open_table(CFG_MANUAL, MS, 2 * per);
	CHECK_EQ(twt_info(fd).table_size, 2 * pg);
	tab = map_table(fd, 2 * pg);
	/* No slot used: no page backed. */
	CHECK_EQ(fdinfo_of(fd, "table_bytes"), 0);
	CHECK_EQ(touch_in_child(&tab[0]), SIGBUS);
	for (i = 0; i < 5; i++)
		ids[i] = twt_add(fd, i, 3600 * TWT_S, 0, CLOCK_MONOTONIC);
	CHECK_EQ(fdinfo_of(fd, "table_bytes"), pg);
	CHECK_EQ(touch_in_child(&tab[0]), 0);
	CHECK_EQ(touch_in_child(&tab[per - 1]), 0);
	CHECK_EQ(touch_in_child(&tab[per]), SIGBUS);
	CHECK_EQ(touch_in_child(&tab[2 * per - 1]), SIGBUS);
	CHECK_EQ(ld(tab, ids[4]), TWHEEL_TABLE_DEADLINE(ids[4], 3600000));
	for (; i < 600; i++)
		ids[i] = twt_add(fd, i, 3600 * TWT_S, 0, CLOCK_MONOTONIC);
	CHECK_EQ(fdinfo_of(fd, "table_bytes"), 2 * pg);
	CHECK_EQ(touch_in_child(&tab[per]), 0);
	CHECK_EQ(touch_in_child(&tab[2 * per - 1]), 0);
	/* Every id's entry is backed and holds its deadline. */
	for (i = 0; i < 600; i++)
		CHECK_PUBLISHED(fd, tab, ids[i], MS);
	CHECK_EQ(tab[2 * per - 1], 0);
	close(fd);
}

/* ---- 12. lifetime ---- */

/* Closed but mapped: the fd's timers and its user's charge remain. */
static void close_mapped(void)
{
	size_t pg = pgsz();
	long long fds0, slots0, fds1, slots1;
	uint64_t *tab, ids[20];
	int64_t d0;
	int fd, other, i;

	other = twt_open(0);
	fds0 = fdinfo_of(other, "user_fds");
	slots0 = fdinfo_of(other, "user_timers");
	fd = open_table(0, MS, 64);
	tab = map_table(fd, pg);
	for (i = 0; i < 20; i++)
		ids[i] = twt_add(fd, i, 3600 * TWT_S, 0, CLOCK_MONOTONIC);
	d0 = twt_query(fd, ids[0]).deadline_ns;
	fds1 = fdinfo_of(other, "user_fds");
	slots1 = fdinfo_of(other, "user_timers");
	CHECK_EQ(fds1, fds0 + 1);
	CHECK_EQ(slots1, slots0 + 20);
	close(fd);
	CHECK_EQ(fdinfo_of(other, "user_fds"), fds1);
	CHECK_EQ(fdinfo_of(other, "user_timers"), slots1);
	/* The table is still there: the kernel's values, and stores land. */
	CHECK_EQ(ld(tab, ids[0]), TWHEEL_TABLE_DEADLINE(ids[0], d0 / MS));
	st(tab, ids[1], TWHEEL_TABLE_CANCELLED(ids[1]));
	st(tab, ids[2], TWHEEL_TABLE_DEADLINE(ids[2], d0 / MS + 1000));
	CHECK_EQ(ld(tab, ids[1]), TWHEEL_TABLE_CANCELLED(ids[1]));
	CHECK_EQ(ld(tab, ids[2]),
		 TWHEEL_TABLE_DEADLINE(ids[2], d0 / MS + 1000));
	CHECK_EQ(fdinfo_of(other, "user_fds"), fds1);
	/* The last mapping gone, the fd is gone. */
	CHECK_OK(munmap(tab, pg));
	CHECK_EQ(fdinfo_of(other, "user_fds"), fds0);
	CHECK_EQ(fdinfo_of(other, "user_timers"), slots0);
	close(other);
}

/* The last mapping may be a child's: the fd lives until it is gone. */
static void mapping_in_child(void)
{
	size_t pg = pgsz();
	long long fds0;
	uint64_t *tab, id;
	int other, fd, go[2];
	char x = 'x';
	pid_t pid;

	other = twt_open(0);
	fds0 = fdinfo_of(other, "user_fds");
	fd = open_table(CFG_MANUAL, MS, 8);
	tab = map_table(fd, pg);
	id = twt_add(fd, 1, 10 * MS, TWHEEL_ABSTIME, CLOCK_MONOTONIC);
	CHECK_OK(pipe(go));
	fflush(stdout);
	pid = fork();
	CHECK(pid >= 0);
	if (pid == 0) {
		close(fd);
		close(go[1]);
		CHECK_EQ(read(go[0], &x, 1), 1);
		/* Alone with the table: still the fd's, stores land. */
		CHECK_EQ(ld(tab, id), TWHEEL_TABLE_DEADLINE(id, 10));
		st(tab, id, TWHEEL_TABLE_CANCELLED(id));
		CHECK_EQ(ld(tab, id), TWHEEL_TABLE_CANCELLED(id));
		_exit(0);
	}
	close(go[0]);
	close(fd);
	CHECK_OK(munmap(tab, pg));
	CHECK_EQ(fdinfo_of(other, "user_fds"), fds0 + 1);
	CHECK_EQ(write(go[1], &x, 1), 1);
	wait_ok(pid);
	CHECK_EQ(fdinfo_of(other, "user_fds"), fds0);
	close(other);
}

/* munmap() changes nothing for the timers; mapped again: the same. */
static void munmap_running(void)
{
	size_t pg = pgsz();
	uint64_t *tab, a, b, c, d;
	int fd;

	fd = manual_table(8, &tab);
	a = twt_add(fd, 1, 10 * MS, TWHEEL_ABSTIME, CLOCK_MONOTONIC);
	b = twt_add(fd, 2, 20 * MS, TWHEEL_ABSTIME, CLOCK_MONOTONIC);
	c = twt_add(fd, 3, 30 * MS, TWHEEL_ABSTIME, CLOCK_MONOTONIC);
	st(tab, a, TWHEEL_TABLE_DEADLINE(a, 15));
	st(tab, c, TWHEEL_TABLE_CANCELLED(c));
	CHECK_OK(munmap(tab, pg));
	CHECK_EQ(twt_info(fd).cancelled, 0);
	adv_to(fd, 10 * MS);
	CHECK_NONE_QUEUED(fd);
	adv_to(fd, 15 * MS);
	expect_one(fd, a, 1, 15 * MS);
	adv_to(fd, 20 * MS);
	expect_one(fd, b, 2, 20 * MS);
	adv_to(fd, 30 * MS);
	CHECK_NONE_QUEUED(fd);
	CHECK_EQ(twt_timers(fd), 0);
	CHECK_EQ(twt_info(fd).cancelled, 1);
	d = twt_add(fd, 4, 40 * MS, TWHEEL_ABSTIME, CLOCK_MONOTONIC);
	tab = map_table(fd, pg);
	CHECK_EQ(ld(tab, d), TWHEEL_TABLE_DEADLINE(d, 40));
	/* The ended timers' entries: 0 (unless d took one of them). */
	if (TWHEEL_TABLE_INDEX(d) != TWHEEL_TABLE_INDEX(a))
		CHECK_EQ(ld(tab, a), 0);
	if (TWHEEL_TABLE_INDEX(d) != TWHEEL_TABLE_INDEX(b))
		CHECK_EQ(ld(tab, b), 0);
	if (TWHEEL_TABLE_INDEX(d) != TWHEEL_TABLE_INDEX(c))
		CHECK_EQ(ld(tab, c), 0);
	close(fd);
}

/* After fork() the child's mapping is the same table. */
static void fork_store(void)
{
	uint64_t *tab, a, b, c;
	pid_t pid;
	int fd;

	fd = manual_table(8, &tab);
	a = twt_add(fd, 1, 10 * MS, TWHEEL_ABSTIME, CLOCK_MONOTONIC);
	b = twt_add(fd, 2, 10 * MS, TWHEEL_ABSTIME, CLOCK_MONOTONIC);
	c = twt_add(fd, 3, 50 * MS, TWHEEL_ABSTIME, CLOCK_MONOTONIC);
	st(tab, c, TWHEEL_TABLE_DEADLINE(c, 60));
	fflush(stdout);
	pid = fork();
	CHECK(pid >= 0);
	if (pid == 0) {
		CHECK_EQ(ld(tab, c), TWHEEL_TABLE_DEADLINE(c, 60));
		st(tab, a, TWHEEL_TABLE_DEADLINE(a, 30));
		st(tab, b, TWHEEL_TABLE_CANCELLED(b));
		_exit(0);
	}
	wait_ok(pid);
	CHECK_EQ(ld(tab, a), TWHEEL_TABLE_DEADLINE(a, 30));
	CHECK_EQ(twt_info(fd).cancelled, 0);
	adv_to(fd, 10 * MS);
	CHECK_NONE_QUEUED(fd);
	CHECK_EQ(twt_timers(fd), 2);
	CHECK_EQ(twt_info(fd).cancelled, 1);
	adv_to(fd, 29 * MS);
	CHECK_NONE_QUEUED(fd);
	adv_to(fd, 30 * MS);
	expect_one(fd, a, 1, 30 * MS);
	adv_to(fd, 60 * MS);
	expect_one(fd, c, 3, 60 * MS);
	close(fd);
}

/* Two processes sharing the fd, each mapping it: one table. */
static void two_processes(void)
{
	size_t pg = pgsz();
	int to_child[2], to_parent[2];
	uint64_t *tab, a, b;
	char x = 'x';
	pid_t pid;
	int fd;

	fd = open_table(CFG_MANUAL, MS, 8);
	a = twt_add(fd, 1, 10 * MS, TWHEEL_ABSTIME, CLOCK_MONOTONIC);
	b = twt_add(fd, 2, 10 * MS, TWHEEL_ABSTIME, CLOCK_MONOTONIC);
	CHECK_OK(pipe(to_child));
	CHECK_OK(pipe(to_parent));
	fflush(stdout);
	pid = fork();
	CHECK(pid >= 0);
	if (pid == 0) {
		close(to_child[1]);
		close(to_parent[0]);
		tab = map_table(fd, pg);
		CHECK_EQ(ld(tab, a), TWHEEL_TABLE_DEADLINE(a, 10));
		st(tab, a, TWHEEL_TABLE_DEADLINE(a, 40));
		CHECK_EQ(write(to_parent[1], &x, 1), 1);
		CHECK_EQ(read(to_child[0], &x, 1), 1);
		CHECK_EQ(ld(tab, b), TWHEEL_TABLE_CANCELLED(b));
		_exit(0);
	}
	close(to_child[0]);
	close(to_parent[1]);
	CHECK_EQ(read(to_parent[0], &x, 1), 1);
	tab = map_table(fd, pg);
	CHECK_EQ(ld(tab, a), TWHEEL_TABLE_DEADLINE(a, 40));
	st(tab, b, TWHEEL_TABLE_CANCELLED(b));
	CHECK_EQ(write(to_child[1], &x, 1), 1);
	wait_ok(pid);
	adv_to(fd, 10 * MS);
	CHECK_NONE_QUEUED(fd);
	CHECK_EQ(twt_timers(fd), 1);
	adv_to(fd, 39 * MS);
	CHECK_NONE_QUEUED(fd);
	adv_to(fd, 40 * MS);
	expect_one(fd, a, 1, 40 * MS);
	close(fd);
}

/* ---- 13. time namespaces ---- */

/*
 * In a time namespace @off_s seconds off: the entry's D is a tick of the
 * namespace's time, and a stored D pushes the timer to the namespace's
 * D * tick_ns: not earlier (as host time would with a negative offset),
 * not later (as with a positive one), on CLOCK_MONOTONIC and BOOTTIME.
 */
static void in_timens(int off_s)
{
	int64_t host = twt_mono();
	char buf[128];
	unsigned int k;
	int fd, len;
	pid_t pid;

	if (off_s < 0 && host < (-off_s + 1) * TWT_S)
		twt_sleep_ns((-off_s + 1) * TWT_S - host);
	if (unshare(CLONE_NEWTIME))
		twt_skip("no time namespaces here (unshare CLONE_NEWTIME)");
	len = snprintf(buf, sizeof(buf), "monotonic %d 0\nboottime %d 0\n",
		       off_s, off_s);
	fd = open("/proc/self/timens_offsets", O_WRONLY);
	CHECK_OK(fd);
	CHECK_EQ(write(fd, buf, len), len);
	close(fd);
	fflush(stdout);
	pid = fork();
	CHECK(pid >= 0);
	if (pid) {
		wait_ok(pid);
		return;
	}
	fd = open_table(0, MS, 8);
	{
		uint64_t *tab = map_table(fd, pgsz());

		for (k = 0; k < 2; k++) {
			clockid_t c = k ? CLOCK_BOOTTIME : CLOCK_MONOTONIC;
			int64_t now = twt_now(c), placed = now + 200 * MS, d;
			struct twheel_status s;
			struct twheel_event ev;
			uint64_t id;

			id = twt_add(fd, k, placed, TWHEEL_ABSTIME, c);
			s = twt_query(fd, id);
			CHECK(s.deadline_ns >= placed &&
			      s.deadline_ns < placed + MS);
			CHECK_EQ(ld(tab, id),
				 TWHEEL_TABLE_DEADLINE(id, s.deadline_ns / MS));
			d = (now + 500 * MS) / MS;
			st(tab, id, TWHEEL_TABLE_DEADLINE(id, d));
			/* Stored well before the placed deadline. */
			CHECK(twt_now(c) < placed - 50 * MS);
			if (!(twt_poll(fd, 3000) & POLLIN))
				printf("# %s: no record 3 s after the store "
				       "(namespace %+d s)\n",
				       twt_clockname(c), off_s);
			CHECK_EQ(read(fd, &ev, sizeof(ev)), sizeof(ev));
			printf("# %s: record %+.3f ms from the stored "
			       "deadline (namespace time)\n",
			       twt_clockname(c), (ev.time_ns - d * MS) / 1e6);
			CHECK(twt_now(c) >= d * MS);
			CHECK_EQ(ev.id, id);
			CHECK(ev.time_ns >= d * MS);
			CHECK(ev.time_ns < d * MS + TWT_S);
		}
	}
	close(fd);
	_exit(0);
}

static void timens_minus_3s(void) { in_timens(-3); }
static void timens_plus_100s(void) { in_timens(100); }

/* ---- 14. what the tables' stores do not do ---- */

/*
 * The device's times: a store into a table never changes /dev/twheel's
 * mtime or ctime (a write fault on a shared mapping without page_mkwrite
 * stamps the file: any user would see when another one first stored
 * into a table, as with /dev/ptmx, CVE-2013-0160). The times are set old
 * first and the test waits past a second, so a stamp cannot look like
 * the times it started with: first stores into fresh pages, a store
 * after a load (a read-only pte made writable), in a child after fork(),
 * after MADV_DONTNEED, after mprotect(PROT_READ) and back, in a second
 * mapping.
 */
static int same_time(const struct timespec *a, const struct timespec *b)
{
	return a->tv_sec == b->tv_sec && a->tv_nsec == b->tv_nsec;
}

#define CHECK_UNSTAMPED(what) do {					\
	struct stat _st;						\
	CHECK_OK(stat(TWHEEL_DEVICE, &_st));				\
	if (!same_time(&_st.st_mtim, &st0.st_mtim) ||			\
	    !same_time(&_st.st_ctim, &st0.st_ctim))			\
		printf("# %s: mtime %lld.%09ld ctime %lld.%09ld, were "	\
		       "%lld.%09ld %lld.%09ld\n", (what),		\
		       (long long)_st.st_mtim.tv_sec, _st.st_mtim.tv_nsec, \
		       (long long)_st.st_ctim.tv_sec, _st.st_ctim.tv_nsec, \
		       (long long)st0.st_mtim.tv_sec, st0.st_mtim.tv_nsec, \
		       (long long)st0.st_ctim.tv_sec, st0.st_ctim.tv_nsec); \
	CHECK(same_time(&_st.st_mtim, &st0.st_mtim));			\
	CHECK(same_time(&_st.st_ctim, &st0.st_ctim));			\
} while (0)

static void stores_leave_device_times(void)
{
	const struct timespec old[2] = { { 1000000000, 0 }, { 1000000000, 0 } };
	size_t pg = pgsz(), per = pg / 8;
	uint64_t *tab, *tab2, ids[5 * 512];
	struct stat st0, orig;
	int fd, i, cancels = 6;
	pid_t pid;

	CHECK(per <= 512);
	CHECK_OK(stat(TWHEEL_DEVICE, &orig));
	if (utimensat(AT_FDCWD, TWHEEL_DEVICE, old, 0))
		twt_skip("cannot set the device's times (utimensat)");
	CHECK_OK(stat(TWHEEL_DEVICE, &st0));
	CHECK_EQ(st0.st_mtim.tv_sec, 1000000000);
	/* Past a second: a stamp now differs from the ctime utimensat set. */
	twt_sleep_ns(1100 * MS);
	fd = open_table(CFG_MANUAL, MS, 5 * per);
	for (i = 0; i < (int)(5 * per); i++)
		ids[i] = twt_add(fd, i, 10 * MS, TWHEEL_ABSTIME,
				 CLOCK_MONOTONIC);
	CHECK_EQ(fdinfo_of(fd, "table_bytes"), 5 * pg);
	CHECK_UNSTAMPED("adds");
	tab = map_table(fd, 5 * pg);
	/* A first store into a page never touched: a write fault. */
	st(tab, ids[0], TWHEEL_TABLE_CANCELLED(ids[0]));
	CHECK_UNSTAMPED("first store, page 0");
	/* A load first, then a store: the read-only pte made writable. */
	CHECK_EQ(ld(tab, ids[per]), TWHEEL_TABLE_DEADLINE(ids[per], 10));
	CHECK_UNSTAMPED("load, page 1");
	st(tab, ids[per], TWHEEL_TABLE_DEADLINE(ids[per], 20));
	CHECK_UNSTAMPED("store after a load, page 1");
	/* In a child: a page the parent wrote and one nobody touched. */
	fflush(stdout);
	pid = fork();
	CHECK(pid >= 0);
	if (pid == 0) {
		st(tab, ids[1], TWHEEL_TABLE_CANCELLED(ids[1]));
		st(tab, ids[2 * per], TWHEEL_TABLE_CANCELLED(ids[2 * per]));
		_exit(0);
	}
	wait_ok(pid);
	CHECK_UNSTAMPED("stores in a child after fork");
	CHECK_EQ(ld(tab, ids[2 * per]), TWHEEL_TABLE_CANCELLED(ids[2 * per]));
	/* The pages zapped from the mapping, then stored into again. */
	if (madvise(tab, 5 * pg, MADV_DONTNEED) == 0) {
		CHECK_EQ(ld(tab, ids[1]), TWHEEL_TABLE_CANCELLED(ids[1]));
		st(tab, ids[2], TWHEEL_TABLE_CANCELLED(ids[2]));
		st(tab, ids[3 * per], TWHEEL_TABLE_CANCELLED(ids[3 * per]));
		CHECK_UNSTAMPED("stores after MADV_DONTNEED");
		cancels += 2;
	} else {
		printf("# MADV_DONTNEED: %s\n", strerror(errno));
	}
	/* Write-protected and writable again. */
	CHECK_OK(mprotect(tab, 5 * pg, PROT_READ));
	CHECK_OK(mprotect(tab, 5 * pg, RW));
	st(tab, ids[3], TWHEEL_TABLE_CANCELLED(ids[3]));
	CHECK_UNSTAMPED("store after mprotect");
	/* A second mapping: its own first write faults. */
	tab2 = map_table(fd, 5 * pg);
	st(tab2, ids[4 * per], TWHEEL_TABLE_CANCELLED(ids[4 * per]));
	st(tab2, ids[4], TWHEEL_TABLE_CANCELLED(ids[4]));
	CHECK_UNSTAMPED("stores in a second mapping");
	CHECK_EQ(ld(tab, ids[4 * per]), TWHEEL_TABLE_CANCELLED(ids[4 * per]));
	/* And the stores all took effect. */
	adv_to(fd, 10 * MS);
	CHECK_EQ(twt_info(fd).cancelled, cancels);
	CHECK_EQ(twt_queued(fd), 5 * per - cancels - 1);
	CHECK_EQ(twt_query(fd, ids[per]).deadline_ns, 20 * MS);
	CHECK_UNSTAMPED("expiry");
	close(fd);
	munmap(tab2, 5 * pg);
	munmap(tab, 5 * pg);
	CHECK_UNSTAMPED("close and munmap");
	/* Give the device its times back (ctime moves: utimensat's own). */
	{
		const struct timespec back[2] = { orig.st_atim, orig.st_mtim };

		CHECK_OK(utimensat(AT_FDCWD, TWHEEL_DEVICE, back, 0));
	}
}

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

/*
 * A PROT_READ mapping: allowed on an fd open for reading and writing;
 * it shows the entries, a store raises SIGSEGV and changes nothing,
 * mprotect() may make it writable. On an O_RDONLY fd a shared mapping
 * is EACCES with PROT_WRITE and EINVAL without (mmap makes it private);
 * on an O_WRONLY fd, EACCES.
 */
static void prot_read_mapping(void)
{
	size_t pg = pgsz();
	uint64_t *tab, id;
	int fd, ro, wo, status;
	pid_t pid;

	fd = open_table(CFG_MANUAL, MS, 8);
	id = twt_add(fd, 1, 10 * MS, TWHEEL_ABSTIME, CLOCK_MONOTONIC);
	tab = mmap(NULL, pg, PROT_READ, MAP_SHARED, fd, 0);
	CHECK(tab != MAP_FAILED);
	CHECK_EQ(ld(tab, id), TWHEEL_TABLE_DEADLINE(id, 10));
	fflush(stdout);
	pid = fork();
	CHECK(pid >= 0);
	if (pid == 0) {
		st(tab, id, TWHEEL_TABLE_CANCELLED(id));
		_exit(0);
	}
	CHECK_EQ(waitpid(pid, &status, 0), pid);
	CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGSEGV);
	CHECK_EQ(ld(tab, id), TWHEEL_TABLE_DEADLINE(id, 10));
	CHECK_OK(mprotect(tab, pg, RW));
	st(tab, id, TWHEEL_TABLE_DEADLINE(id, 20));
	adv_to(fd, 10 * MS);
	CHECK_NONE_QUEUED(fd);
	adv_to(fd, 20 * MS);
	expect_one(fd, id, 1, 20 * MS);
	munmap(tab, pg);
	close(fd);

	ro = open(TWHEEL_DEVICE, O_RDONLY);
	CHECK_OK(ro);
	CHECK_OK(config_raw(ro, MS, CFG_TABLE | CFG_MAX, 8));
	CHECK_ERR(try_map(ro, pg, RW, MAP_SHARED, 0), EACCES);
	CHECK_ERR(try_map(ro, pg, PROT_READ, MAP_SHARED, 0), EINVAL);
	close(ro);
	wo = open(TWHEEL_DEVICE, O_WRONLY);
	CHECK_OK(wo);
	CHECK_OK(config_raw(wo, MS, CFG_TABLE | CFG_MAX, 8));
	CHECK_ERR(try_map(wo, pg, RW, MAP_SHARED, 0), EACCES);
	CHECK_ERR(try_map(wo, pg, PROT_READ, MAP_SHARED, 0), EACCES);
	close(wo);
}

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

/*
 * A closed fd whose table is still mapped is an open file: the sysfs
 * fds counter and the user's fds count it until the last munmap.
 */
static void closed_mapped_counts(void)
{
	size_t pg = pgsz();
	long long fds0, fds1;
	uint64_t *tab;
	int fd;

	fds0 = twt_sysfs_read("/sys/class/misc/twheel/stats/fds");
	if (fds0 < 0)
		twt_skip("no /sys/class/misc/twheel/stats/fds");
	fd = open_table(0, MS, 8);
	tab = map_table(fd, pg);
	fds1 = twt_sysfs_read("/sys/class/misc/twheel/stats/fds");
	CHECK_EQ(fds1, fds0 + 1);
	close(fd);
	CHECK_EQ(twt_sysfs_read("/sys/class/misc/twheel/stats/fds"), fds1);
	CHECK_OK(munmap(tab, pg));
	CHECK_EQ(twt_sysfs_read("/sys/class/misc/twheel/stats/fds"), fds0);
}

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

TWT_MAIN("table",
	 TWT_CASE(setup_sizes),
	 TWT_CASE(setup_without_flag),
	 TWT_CASE(setup_busy),
	 TWT_CASE(mmap_errors),
	 TWT_CASE(mremap_move),
	 TWT_CASE(kernel_writes),
	 TWT_CASE(push_back),
	 TWT_CASE(push_back_many),
	 TWT_CASE(push_back_crowd),
	 TWT_CASE(push_back_earlier),
	 TWT_CASE(store_while_queued),
	 TWT_CASE(cancel_by_store),
	 TWT_CASE(cancel_then_ioctl),
	 TWT_CASE(modify_after_cancel_tick),
	 TWT_CASE(stale_stores),
	 TWT_CASE(garbage_tagged),
	 TWT_CASE(range),
	 TWT_CASE(periodic),
	 TWT_CASE(real_clock),
	 TWT_CASE(real_clock_read),
	 TWT_CASE(backing),
	 TWT_CASE(close_mapped),
	 TWT_CASE(mapping_in_child),
	 TWT_CASE(munmap_running),
	 TWT_CASE(fork_store),
	 TWT_CASE(two_processes),
	 TWT_CASE(timens_minus_3s),
	 TWT_CASE(timens_plus_100s),
	 TWT_CASE(stores_leave_device_times),
	 TWT_CASE_T(cancelled_count_100k, 600),
	 TWT_CASE(tag_wrong_index),
	 TWT_CASE(prot_read_mapping),
	 TWT_CASE(id_zero),
	 TWT_CASE(closed_mapped_counts),
	 TWT_CASE(long_advance_present))
