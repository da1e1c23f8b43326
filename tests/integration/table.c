// SPDX-License-Identifier: GPL-2.0
/*
 * table: the shared timer table (TWHEEL_CONFIG_TABLE, mmap) itself, its
 * setup, its mapping and its backing, checked from what
 * uapi/linux/twheel.h promises ("The shared timer table"). The other
 * table_*.c check the rest: table_store.c the kernel's writes and the
 * stores that push back or cancel, table_values.c which stored values
 * act, table_life.c the lifetime of a mapping, table_real.c the stores
 * on a real clock and in time namespaces.
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
 * Backing: pages beyond the slots used raise SIGBUS; fdinfo table_bytes.
 * The device's times: no store into a table changes /dev/twheel's mtime
 * or ctime. A PROT_READ mapping shows the entries and cannot store; on
 * an O_RDONLY or O_WRONLY fd no shared writable mapping.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include "table.h"

/* The table's size for @max timers: 8 bytes each, whole pages. */
static uint64_t table_bytes_for(uint64_t max)
{
	return (max * 8 + pgsz() - 1) / pgsz() * pgsz();
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

/* ---- 3. backing ---- */

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

/* ---- 4. what the tables' stores do not do ---- */

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

/* ---- 5. a read-only mapping ---- */

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

TWT_MAIN("table",
	 TWT_CASE(setup_sizes),
	 TWT_CASE(setup_without_flag),
	 TWT_CASE(setup_busy),
	 TWT_CASE(mmap_errors),
	 TWT_CASE(mremap_move),
	 TWT_CASE(backing),
	 TWT_CASE(stores_leave_device_times),
	 TWT_CASE(prot_read_mapping))
