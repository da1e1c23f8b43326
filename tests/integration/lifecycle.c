// SPDX-License-Identifier: GPL-2.0
/*
 * lifecycle: an fd shared across fork(), close with timers pending or
 * firing, rmmod refused while any fd is open and clean unload and reload
 * once all are closed. The module is loaded again whatever happens: each
 * case starts by loading it if missing, and so does the end of main().
 */
#include <pthread.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#include "twtest.h"

#define KO		"/lib/twheel/twheel.ko"
#define SYSMOD		"/sys/module/twheel"
#define PARAM_MAX	SYSMOD "/parameters/max_timers"
#define REFCNT		SYSMOD "/refcnt"

static int mod_loaded(void)
{
	return access(SYSMOD, F_OK) == 0;
}

/* delete_module(2) as busybox rmmod does it. */
static int do_rmmod(void)
{
	return syscall(SYS_delete_module, "twheel", O_NONBLOCK);
}

static int do_insmod(const char *params)
{
	int fd = open(KO, O_RDONLY | O_CLOEXEC), r, e;

	if (fd < 0)
		return -1;
	r = syscall(SYS_finit_module, fd, params, 0);
	e = errno;
	close(fd);
	errno = e;
	return r;
}

/* Wait up to 2 s for /dev/twheel to appear (1) or vanish (0). */
static int wait_dev(int present)
{
	int i;

	for (i = 0; i < 200; i++) {
		if ((access(TWT_DEV, F_OK) == 0) == present)
			return 1;
		twt_sleep_ms(10);
	}
	return 0;
}

static void ensure_loaded(void)
{
	if (!mod_loaded()) {
		printf("# twheel was not loaded: loading it\n");
		CHECK_OK(do_insmod(""));
	}
	CHECK(wait_dev(1));
}

/* The fd's timers are the same in parent and child. */
static void fork_shares(void)
{
	int fd, pfd[2], status;
	uint64_t id, cid = 0;
	pid_t pid;

	ensure_loaded();
	fd = twt_open(0);
	id = twt_add_rel(fd, 1, 200 * TWT_MS);
	CHECK_OK(pipe(pfd));
	pid = fork();
	CHECK_OK(pid);
	if (pid == 0) {
		struct twheel_event ev;
		uint64_t mine;

		/* The parent's timer fires here. */
		CHECK_EQ(read(fd, &ev, sizeof(ev)), sizeof(ev));
		CHECK_EQ(ev.id, id);
		CHECK_EQ(ev.cookie, 1);
		mine = twt_add_rel(fd, 2, 3600 * TWT_S);
		CHECK_EQ(write(pfd[1], &mine, sizeof(mine)), sizeof(mine));
		_exit(0);
	}
	CHECK_EQ(read(pfd[0], &cid, sizeof(cid)), sizeof(cid));
	CHECK_EQ(waitpid(pid, &status, 0), pid);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	/* The child read the record and added a timer: both seen here. */
	CHECK_EQ(twt_timers(fd), 1);
	CHECK_EQ(twt_queued(fd), 0);
	CHECK(cid != 0 && cid != id);
	CHECK_EQ(twt_cancel(fd, cid), TWHEEL_STATE_PENDING);
	CHECK_EQ(twt_timers(fd), 0);
	close(fd);
}

/* Closing (or exiting) in the child cancels nothing: the parent holds it. */
static void close_in_child(void)
{
	int fd, status;
	struct twheel_event ev;
	uint64_t id;
	pid_t pid;

	ensure_loaded();
	fd = twt_open(0);
	id = twt_add_rel(fd, 3, 200 * TWT_MS);
	pid = fork();
	CHECK_OK(pid);
	if (pid == 0) {
		twt_add_rel(fd, 4, 100 * TWT_MS);
		close(fd);
		_exit(0);
	}
	CHECK_EQ(waitpid(pid, &status, 0), pid);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	CHECK_EQ(twt_timers(fd), 2);
	CHECK_EQ(read(fd, &ev, sizeof(ev)), sizeof(ev));
	CHECK_EQ(ev.cookie, 4);
	CHECK_EQ(read(fd, &ev, sizeof(ev)), sizeof(ev));
	CHECK_EQ(ev.id, id);
	close(fd);
}

/* The parent closes; the child still gets the record. */
static void close_in_parent(void)
{
	int fd, status;
	uint64_t id;
	pid_t pid;

	ensure_loaded();
	fd = twt_open(0);
	id = twt_add_rel(fd, 5, 200 * TWT_MS);
	pid = fork();
	CHECK_OK(pid);
	if (pid == 0) {
		struct twheel_event ev;

		alarm(20);
		CHECK_EQ(read(fd, &ev, sizeof(ev)), sizeof(ev));
		CHECK_EQ(ev.id, id);
		_exit(0);
	}
	close(fd);
	CHECK_EQ(waitpid(pid, &status, 0), pid);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

/*
 * Close with thousands of timers in every state: pending near and far on
 * every clock, expiring during the close, queued unread. No hang; the
 * debug VM's kmemleak scan at the end catches leaks.
 */
static void close_with_timers(void)
{
	int round;

	ensure_loaded();
	for (round = 0; round < 8; round++) {
		int fd = twt_open(O_NONBLOCK);
		int i;

		for (i = 0; i < 1000; i++) {
			clockid_t c = twt_clock(i % TWT_NCLOCKS);

			switch (i % 4) {
			case 0:
				twt_add_abs(fd, i, 0, c);
				break;
			case 1:
				twt_add_abs(fd, i, twt_now(c) + (i % 20) * TWT_MS, c);
				break;
			case 2:
				twt_add_abs(fd, i, twt_now(c) + 3600 * TWT_S, c);
				break;
			default:
				twt_add_abs(fd, i, INT64_MAX, c);
				break;
			}
		}
		if (round % 2)
			twt_sleep_ms(5);
		CHECK_OK(close(fd));
	}
	if (access(REFCNT, F_OK) == 0)
		CHECK_EQ(twt_sysfs_read(REFCNT), 0);
}

/* Every open fd, also one only a child or a dup holds, pins the module. */
static void rmmod_refused_while_open(void)
{
	int fd, fd2, status, pfd[2];
	struct twheel_event ev;
	char c;
	pid_t pid;

	ensure_loaded();
	CHECK_EQ(twt_sysfs_read(REFCNT), 0);
	fd = twt_open(0);
	printf("# refcnt with one fd open: %lld\n", twt_sysfs_read(REFCNT));
	CHECK(twt_sysfs_read(REFCNT) >= 1);
	errno = 0;
	CHECK_EQ(do_rmmod(), -1);
	printf("# delete_module: %s\n", strerror(errno));
	CHECK(errno == EWOULDBLOCK || errno == EBUSY);
	CHECK(system("rmmod twheel 2>/dev/null") != 0);
	CHECK(mod_loaded());
	CHECK_EQ(access(TWT_DEV, F_OK), 0);

	/* A dup keeps it pinned after the original is closed. */
	fd2 = dup(fd);
	CHECK_OK(fd2);
	close(fd);
	CHECK_EQ(do_rmmod(), -1);
	CHECK(errno == EWOULDBLOCK || errno == EBUSY);
	twt_add_rel(fd2, 1, 0);
	CHECK_EQ(read(fd2, &ev, sizeof(ev)), sizeof(ev));

	/* Only a child holds it (blocked in read): still pinned. */
	CHECK_OK(pipe(pfd));
	pid = fork();
	CHECK_OK(pid);
	if (pid == 0) {
		close(pfd[0]);
		twt_add_rel(fd2, 2, 3600 * TWT_S);
		CHECK_EQ(write(pfd[1], "x", 1), 1);
		alarm(30);
		CHECK_OK(read(fd2, &ev, sizeof(ev)));	/* killed here */
		_exit(1);
	}
	close(pfd[1]);
	CHECK_EQ(read(pfd[0], &c, 1), 1);
	close(fd2);
	twt_sleep_ms(50);
	errno = 0;
	CHECK_EQ(do_rmmod(), -1);
	CHECK(errno == EWOULDBLOCK || errno == EBUSY);
	CHECK(system("rmmod twheel 2>/dev/null") != 0);
	CHECK(mod_loaded());
	kill(pid, SIGKILL);
	CHECK_EQ(waitpid(pid, &status, 0), pid);
	CHECK(WIFSIGNALED(status));
	/* All closed now: the module is free (the unload case unloads it). */
	CHECK_EQ(twt_sysfs_read(REFCNT), 0);
}

/* Unload and load again, by syscall and by busybox. */
static void unload_reload(void)
{
	struct twheel_event ev;
	int fd, round;

	ensure_loaded();
	for (round = 0; round < 2; round++) {
		if (round == 0)
			CHECK_OK(do_rmmod());
		else
			CHECK_EQ(system("rmmod twheel"), 0);
		CHECK(!mod_loaded());
		CHECK(wait_dev(0));
		CHECK_ERR(open(TWT_DEV, O_RDWR), ENOENT);
		if (round == 0)
			CHECK_OK(do_insmod(""));
		else
			CHECK_EQ(system("insmod " KO), 0);
		CHECK(mod_loaded());
		CHECK(wait_dev(1));
		CHECK_EQ(twt_sysfs_read(PARAM_MAX), 1048576);
		fd = twt_open(0);
		CHECK_EQ(twt_info(fd).version, TWHEEL_ABI_VERSION);
		twt_add_rel(fd, round, 20 * TWT_MS);
		CHECK_EQ(read(fd, &ev, sizeof(ev)), sizeof(ev));
		CHECK_EQ(ev.cookie, round);
		close(fd);
	}
}

/*
 * Close an fd while its timers are firing and unload the module right
 * after: nothing of the fd may outlive its close (a stray timer or work
 * item would run in unloaded code and oops the VM).
 */
static void close_then_unload(void)
{
	int64_t per_add = 50 * TWT_US;	/* learnt from each round */
	int round;

	ensure_loaded();
	for (round = 0; round < 3; round++) {
		int fd = twt_open(O_NONBLOCK);
		int64_t t0 = twt_mono(), window = t0 + 2000 * per_add;
		int i;

		/* Due over 100 ms from about when the adds end. */
		for (i = 0; i < 2000; i++)
			twt_add_abs(fd, i, window + (i % 100) * TWT_MS,
				    CLOCK_MONOTONIC);
		per_add = (twt_mono() - t0) / 2000;
		twt_sleep_ns(window + (30 + 20 * round) * TWT_MS - twt_mono());
		printf("# round %d: %llu of 2000 queued at close\n", round,
		       (unsigned long long)twt_queued(fd));
		CHECK_OK(close(fd));
		CHECK_OK(do_rmmod());
		CHECK(!mod_loaded());
		twt_sleep_ms(300);	/* let anything stray fire */
		CHECK_OK(do_insmod(""));
		CHECK(wait_dev(1));
	}
}

/* Loaded with max_timers=7: new fds hold at most 7. */
static void reload_with_param(void)
{
	int fd, i;
	uint64_t id;

	ensure_loaded();
	CHECK_OK(do_rmmod());
	CHECK_OK(do_insmod("max_timers=7"));
	CHECK(wait_dev(1));
	CHECK_EQ(twt_sysfs_read(PARAM_MAX), 7);
	fd = twt_open(O_NONBLOCK);
	CHECK_EQ(twt_info(fd).max_timers, 7);
	for (i = 0; i < 7; i++)
		twt_add_rel(fd, i, 3600 * TWT_S);
	CHECK_ERR(twt_add_raw(fd, 7, 0, 0, CLOCK_MONOTONIC, &id), ENOSPC);
	close(fd);
	CHECK_OK(do_rmmod());
	CHECK_OK(do_insmod(""));
	CHECK(wait_dev(1));
	CHECK_EQ(twt_sysfs_read(PARAM_MAX), 1048576);
}

int main(void)
{
	static const struct twt_case cases[] = {
		TWT_CASE(fork_shares),
		TWT_CASE(close_in_child),
		TWT_CASE(close_in_parent),
		TWT_CASE_T(close_with_timers, 120),
		TWT_CASE(rmmod_refused_while_open),
		TWT_CASE(unload_reload),
		TWT_CASE(close_then_unload),
		TWT_CASE(reload_with_param),
	};
	int failed = twt_run("lifecycle", cases, sizeof(cases) / sizeof(cases[0]));

	/* Leave twheel loaded, with its default parameters. */
	if (!mod_loaded()) {
		printf("# lifecycle: loading twheel again\n");
		if (do_insmod("") != 0) {
			printf("# insmod failed: %s\n", strerror(errno));
			failed++;
		}
	} else if (twt_sysfs_read(PARAM_MAX) != 1048576) {
		twt_sysfs_write(PARAM_MAX, "1048576");
	}
	return failed;
}
