// SPDX-License-Identifier: GPL-2.0
/*
 * table_life: the lifetime of the shared timer table's mappings, checked
 * from what uapi/linux/twheel.h promises ("The shared timer table"). The
 * table's setup and mapping: table.c.
 *
 * Lifetime: the mapping keeps the fd's timer set (and the user's charge)
 * after close(2) until munmap (also when the last mapping is a child's);
 * munmap changes nothing for the timers; after fork() and in a process
 * mapping the fd itself it is one table.
 * A closed fd whose table is still mapped counts as an open file in the
 * sysfs fds counter until the last munmap.
 */
#define _GNU_SOURCE
#include "table.h"

/* ---- 1. lifetime ---- */

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

/* ---- 2. what a closed, mapped fd counts ---- */

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

TWT_MAIN("table_life",
	 TWT_CASE(close_mapped),
	 TWT_CASE(mapping_in_child),
	 TWT_CASE(munmap_running),
	 TWT_CASE(fork_store),
	 TWT_CASE(two_processes),
	 TWT_CASE(closed_mapped_counts))
