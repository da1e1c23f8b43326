// SPDX-License-Identifier: GPL-2.0
/*
 * users: the per-user limits (kmod/twheel_user.c), in the initial user
 * namespace (userns.c: across namespaces). A user is the opener's
 * effective uid; every open /dev/twheel and every timer slot its fds hold
 * (an fd's slots: the most timers it has held at once) is charged to that
 * user, over all their processes, until the fd is closed.
 *
 *   fs.twheel.max_user_fds     open(2) fails with EMFILE at the limit
 *   fs.twheel.max_user_timers  an add needing a new slot fails with ENOSPC
 *
 * The sysctls (/proc/sys/fs/twheel/) are the module parameters of the same
 * names; their defaults come from RAM; root changes them at run time.
 * /proc/driver/twheel (root only) lists every user holding an fd; fdinfo
 * shows the fd's slots and its user's totals.
 *
 * The memory the limits bound: users_memory.c. The workers, and how each
 * case runs: users.h.
 */
#include "users.h"

#define PARAM_FDS	"/sys/module/twheel/parameters/max_user_fds"
#define PARAM_TIMERS	"/sys/module/twheel/parameters/max_user_timers"

/* ---- the cases ---- */

/*
 * The defaults, as the module computed them at load from RAM (the first
 * case, run-tests.sh loaded the module fresh: any other value was left by
 * an earlier program that did not restore it), the files' modes, the
 * sysctl and the module parameter being one variable, and the values
 * refused.
 */
static void defaults_body(void)
{
	static const char *const files[] = {
		SYSCTL_FDS, SYSCTL_TIMERS, PARAM_FDS, PARAM_TIMERS,
	};
	static const char *const bad[] = {
		"0", "-1", "abc", "9223372036854775808",
	};
	unsigned long long total = (unsigned long long)meminfo("MemTotal") *
				   1024, budget = total / 25;
	long long fds = (long long)(budget / 4 / FD_MAX_BYTES);
	long long timers = (long long)(budget / 4 * 3 / TIMER_MAX_BYTES);
	struct users u;
	struct stat st;
	unsigned int i, k;
	pid_t pid;
	int status;

	if (fds < 1)
		fds = 1;
	if (timers < 1)
		timers = 1;
	printf("# MemTotal %llu bytes: max_user_fds %lld, max_user_timers %lld (the formula); read %lld, %lld; a user's twheel memory at most %lld bytes\n",
	       total, fds, timers, twt_sysfs_read(SYSCTL_FDS),
	       twt_sysfs_read(SYSCTL_TIMERS),
	       fds * FD_MAX_BYTES + timers * TIMER_MAX_BYTES);
	for (i = 0; i < 4; i++) {
		CHECK_OK(stat(files[i], &st));
		if ((st.st_mode & 07777) != 0644 || !S_ISREG(st.st_mode) ||
		    st.st_uid != 0)
			twt_fail(__FILE__, __LINE__, "%s: mode %o uid %u",
				 files[i], st.st_mode, st.st_uid);
	}
	CHECK_EQ(twt_sysfs_read(SYSCTL_FDS), fds);
	CHECK_EQ(twt_sysfs_read(PARAM_FDS), fds);
	CHECK_EQ(twt_sysfs_read(SYSCTL_TIMERS), timers);
	CHECK_EQ(twt_sysfs_read(PARAM_TIMERS), timers);
	users_read(&u);
	CHECK_EQ(u.max_fds, fds);
	CHECK_EQ(u.max_timers, timers);

	/* One variable each, whichever file writes it. */
	set_limit(SYSCTL_FDS, fds + 7);
	CHECK_EQ(twt_sysfs_read(PARAM_FDS), fds + 7);
	set_limit(PARAM_TIMERS, timers + 9);
	CHECK_EQ(twt_sysfs_read(SYSCTL_TIMERS), timers + 9);
	users_read(&u);
	CHECK_EQ(u.max_fds, fds + 7);
	CHECK_EQ(u.max_timers, timers + 9);

	/* At least 1, at most LONG_MAX, a number: EINVAL, nothing changed. */
	for (i = 0; i < 4; i++) {
		long long was = twt_sysfs_read(files[i]);

		for (k = 0; k < sizeof(bad) / sizeof(bad[0]); k++) {
			CHECK_ERR(twt_sysfs_write(files[i], bad[k]), EINVAL);
			CHECK_EQ(twt_sysfs_read(files[i]), was);
		}
	}
	set_limit(SYSCTL_FDS, 1);
	set_limit(PARAM_TIMERS, 1);
	set_limit(SYSCTL_TIMERS, 9223372036854775807LL);

	/* Another user reads them and writes none. */
	fflush(stdout);
	pid = fork();
	CHECK(pid >= 0);
	if (!pid) {
		twt_become(NOBODY);
		for (i = 0; i < 4; i++) {
			CHECK(twt_sysfs_read(files[i]) >= 1);
			CHECK_ERR(open(files[i], O_WRONLY), EACCES);
		}
		_exit(0);
	}
	CHECK_EQ(waitpid(pid, &status, 0), pid);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	CHECK_EQ(twt_sysfs_read(SYSCTL_FDS), 1);
	CHECK_EQ(twt_sysfs_read(SYSCTL_TIMERS), 9223372036854775807LL);
}

static void defaults(void) { restoring(defaults_body); }

/*
 * max_user_fds: counted per user over all their processes; root is
 * another user; raising takes effect at once; lowering takes nothing away
 * (the fds held keep working) but refuses opens until the user is under
 * it again.
 */
static void fds_limit_body(void)
{
	struct worker a, b;
	int i, ra, rb;

	set_limit(SYSCTL_FDS, 5);
	a = worker_start(NOBODY);
	b = worker_start(NOBODY);
	for (i = 0; i < 3; i++)
		CHECK_EQ(wopen(&a), i);
	for (i = 0; i < 2; i++)
		CHECK_EQ(wopen(&b), i);
	CHECK_USER(NOBODY, 5, 0);
	CHECK_EQ(wfdinfo(&a, 0, "user_fds"), 5);
	CHECK_EQ(wfdinfo(&b, 1, "uid"), NOBODY);
	/* The 6th, in either process; a refused open charges nothing. */
	CHECK_OPEN_FAILS(&a, EMFILE);
	CHECK_OPEN_FAILS(&b, EMFILE);
	CHECK_USER(NOBODY, 5, 0);

	/* Root is another user: its own count, well under the limit. */
	ra = twt_open(O_NONBLOCK);
	twt_add_rel(ra, 1, 3600 * TWT_S);
	CHECK_USER(NOBODY, 5, 0);
	CHECK_USER(0, 1, 1);
	rb = twt_open(O_NONBLOCK);
	CHECK_USER(0, 2, 1);
	close(rb);

	/* Raised: the 6th open succeeds at once, the 7th does not. */
	set_limit(SYSCTL_FDS, 6);
	CHECK_EQ(wopen(&b), 2);
	CHECK_OPEN_FAILS(&a, EMFILE);
	CHECK_OPEN_FAILS(&b, EMFILE);
	CHECK_USER(NOBODY, 6, 0);
	CHECK_EQ(wfdinfo(&a, 2, "user_fds"), 6);

	/* Lowered to 2: the 6 fds held stay and work; no more opens. */
	set_limit(SYSCTL_FDS, 2);
	for (i = 0; i < 3; i++) {
		CHECK_ADDS(&a, i, 1, K_ONESHOT);
		CHECK_ADDS(&b, i, 1, K_PERIODIC);
	}
	CHECK_USER(NOBODY, 6, 6);
	CHECK_OPEN_FAILS(&a, EMFILE);
	/* Down to 2 fds: still at the limit; to 1: under it. */
	wcall(&a, W_CLOSE, -1, 0, 0);
	wcall(&b, W_CLOSE, 0, 0, 0);
	CHECK_USER(NOBODY, 2, 2);
	CHECK_OPEN_FAILS(&a, EMFILE);
	wcall(&b, W_CLOSE, 1, 0, 0);
	CHECK_USER(NOBODY, 1, 1);
	CHECK_EQ(wopen(&a), 0);
	CHECK_OPEN_FAILS(&b, EMFILE);
	CHECK_USER(NOBODY, 2, 1);

	/* The module parameter is the same limit. */
	set_limit(PARAM_FDS, 3);
	CHECK_EQ(twt_sysfs_read(SYSCTL_FDS), 3);
	CHECK_EQ(wopen(&a), 1);
	CHECK_OPEN_FAILS(&a, EMFILE);
	CHECK_OPEN_FAILS(&b, EMFILE);
	CHECK_USER(NOBODY, 3, 1);

	/* Everything closed: no line, in either way of closing. */
	wcall(&a, W_CLOSE, -1, 0, 0);
	CHECK_USER(NOBODY, 1, 1);
	worker_stop(&b);
	CHECK_NO_USER(NOBODY);
	worker_stop(&a);
	CHECK_NO_USER(NOBODY);
	close(ra);
	CHECK_NO_USER(0);
}

static void fds_limit(void) { restoring(fds_limit_body); }

/*
 * max_user_timers: the slots of every fd of a user, over their processes.
 * The add that needs a slot beyond the limit fails with ENOSPC and
 * creates nothing (single and batched); another user is not affected; the
 * slots of cancelled and read timers stay with their fd, for its next
 * timers only; raising takes effect at once; closing gives back exactly
 * what the fd held.
 */
static void timers_limit_body(void)
{
	struct worker a, b, c;
	int a0, a1, b0, b1, c0;
	struct wrep r;

	set_limit(SYSCTL_FDS, 16);
	set_limit(SYSCTL_TIMERS, 1000);
	a = worker_start(NOBODY);
	b = worker_start(NOBODY);
	c = worker_start(OTHER);
	a0 = wopen(&a);
	a1 = wopen(&a);
	b0 = wopen(&b);
	CHECK_ADDS(&a, a0, 400, K_MIX);
	CHECK_ADDS(&a, a1, 300, K_ONESHOT);
	CHECK_ADDS(&b, b0, 300, K_PERIODIC);
	CHECK_USER(NOBODY, 3, 1000);

	/* The 1001st, in each fd, one-shot or periodic. */
	CHECK_ADD_FULL(&a, a0, K_ONESHOT, 400);
	CHECK_ADD_FULL(&a, a1, K_PERIODIC, 300);
	CHECK_ADD_FULL(&b, b0, K_ONESHOT, 300);
	CHECK_USER(NOBODY, 3, 1000);

	/* A batch: each add fails alone with -ENOSPC, its id 0. */
	r = wcall(&a, W_SUBMIT, a1, 4, 0);
	CHECK_EQ(r.ret, 4);
	CHECK_EQ(r.v[0], 0);
	CHECK_EQ(r.v[1], 4);
	CHECK_EQ(r.v[2], 0);
	CHECK_EQ(r.v[3], 300);
	/* A cancel first: the slot it frees goes to the next add only. */
	r = wcall(&a, W_SUBMIT, a1, 3, 1);
	CHECK_EQ(r.ret, 4);
	CHECK_EQ(r.v[0], 1);
	CHECK_EQ(r.v[1], 2);
	CHECK_EQ(r.v[2], 0);
	CHECK_EQ(r.v[3], 300);
	CHECK_USER(NOBODY, 3, 1000);

	/* Another user has a budget of their own. */
	c0 = wopen(&c);
	CHECK_ADDS(&c, c0, 10, K_MIX);
	CHECK_USER(OTHER, 1, 10);
	CHECK_USER(NOBODY, 3, 1000);

	/* 100 cancelled in a0: their slots stay a0's, for a0's timers. */
	r = wcall(&a, W_CANCEL, a0, 100, 0);
	CHECK_EQ(r.ret, 100);
	CHECK_EQ(wcall(&a, W_INFO, a0, 0, 0).ret, 300);
	CHECK_USER(NOBODY, 3, 1000);
	CHECK_EQ(wfdinfo(&a, a0, "slots"), 400);
	CHECK_ADD_FULL(&a, a1, K_ONESHOT, 300);
	CHECK_ADD_FULL(&b, b0, K_ONESHOT, 300);
	CHECK_ADDS(&a, a0, 100, K_MIX);
	CHECK_ADD_FULL(&a, a0, K_ONESHOT, 400);

	/* So does the slot of a timer whose record was read. */
	CHECK_EQ(wcall(&a, W_CANCEL, a0, 1, 0).ret, 1);
	r = wcall(&a, W_ADD_NOW, a0, 0, 0);
	CHECK_EQ(r.ret, 0);
	CHECK_ADD_FULL(&a, a0, K_ONESHOT, 400);
	CHECK_EQ(wcall(&a, W_READ, a0, 0, 0).ret, 1);
	CHECK_EQ(wcall(&a, W_INFO, a0, 0, 0).ret, 399);
	CHECK_ADD_FULL(&b, b0, K_ONESHOT, 300);
	CHECK_ADDS(&a, a0, 1, K_ONESHOT);
	CHECK_ADD_FULL(&a, a0, K_ONESHOT, 400);
	CHECK_USER(NOBODY, 3, 1000);

	/* Raised to 1100: 100 more, at once, in any fd. */
	set_limit(SYSCTL_TIMERS, 1100);
	CHECK_ADDS(&b, b0, 100, K_ONESHOT);
	CHECK_ADD_FULL(&b, b0, K_ONESHOT, 400);
	CHECK_ADD_FULL(&a, a0, K_PERIODIC, 400);
	CHECK_USER(NOBODY, 3, 1100);
	CHECK_USER(OTHER, 1, 10);

	/* fdinfo: the fd's slots, its user's totals, from either process. */
	CHECK_EQ(wfdinfo(&a, a0, "slots"), 400);
	CHECK_EQ(wfdinfo(&a, a1, "slots"), 300);
	CHECK_EQ(wfdinfo(&b, b0, "slots"), 400);
	CHECK_EQ(wfdinfo(&a, a1, "uid"), NOBODY);
	CHECK_EQ(wfdinfo(&a, a1, "user_fds"), 3);
	CHECK_EQ(wfdinfo(&a, a1, "user_timers"), 1100);
	CHECK_EQ(wfdinfo(&b, b0, "user_fds"), 3);
	CHECK_EQ(wfdinfo(&b, b0, "user_timers"), 1100);
	CHECK_EQ(wfdinfo(&c, c0, "uid"), OTHER);
	CHECK_EQ(wfdinfo(&c, c0, "user_fds"), 1);
	CHECK_EQ(wfdinfo(&c, c0, "user_timers"), 10);
	CHECK_EQ(wfdinfo(&c, c0, "slots"), 10);

	/* Closing gives back exactly the fd's slots. */
	wcall(&a, W_CLOSE, a1, 0, 0);
	CHECK_USER(NOBODY, 2, 800);
	CHECK_EQ(wfdinfo(&b, b0, "user_timers"), 800);
	CHECK_ADDS(&a, a0, 300, K_ONESHOT);
	CHECK_ADD_FULL(&b, b0, K_ONESHOT, 400);
	CHECK_USER(NOBODY, 2, 1100);
	wcall(&a, W_CLOSE, -1, 0, 0);
	wcall(&b, W_CLOSE, -1, 0, 0);
	CHECK_NO_USER(NOBODY);
	CHECK_USER(OTHER, 1, 10);

	/* A fresh fd has the whole budget again, and not one more. */
	b1 = wopen(&b);
	CHECK_ADDS(&b, b1, 1100, K_MIX);
	CHECK_ADD_FULL(&b, b1, K_ONESHOT, 1100);
	CHECK_USER(NOBODY, 1, 1100);
	worker_stop(&b);
	worker_stop(&a);
	CHECK_NO_USER(NOBODY);
	worker_stop(&c);
	CHECK_NO_USER(OTHER);
}

static void timers_limit(void) { restoring(timers_limit_body); }

/* /proc/driver/twheel: root's only (mode 0400), listing fds and slots. */
static void proc_file_body(void)
{
	struct stat st;
	struct users u;
	pid_t pid;
	int status, fd;

	CHECK_OK(stat(PROC_USERS, &st));
	printf("# %s: mode %o uid %u gid %u\n", PROC_USERS,
	       st.st_mode & 07777, st.st_uid, st.st_gid);
	CHECK(S_ISREG(st.st_mode));
	CHECK_EQ(st.st_mode & 07777, 0400);
	CHECK_EQ(st.st_uid, 0);
	CHECK_EQ(st.st_gid, 0);
	users_read(&u);
	CHECK_EQ(u.max_fds, twt_sysfs_read(SYSCTL_FDS));
	CHECK_EQ(u.max_timers, twt_sysfs_read(SYSCTL_TIMERS));
	CHECK_NO_USER(NOBODY);

	/* Another user may not read it, not even while holding an fd. */
	fflush(stdout);
	pid = fork();
	CHECK(pid >= 0);
	if (!pid) {
		twt_become(NOBODY);
		fd = twt_open(0);
		CHECK_ERR(open(PROC_USERS, O_RDONLY), EACCES);
		CHECK_ERR(open(PROC_USERS, O_WRONLY), EACCES);
		/* fdinfo shows the user their own totals instead. */
		close(fd);
		_exit(0);
	}
	CHECK_EQ(waitpid(pid, &status, 0), pid);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	CHECK_NO_USER(NOBODY);
}

static void proc_file(void) { restoring(proc_file_body); }

TWT_MAIN("users",
	 TWT_CASE(defaults),
	 TWT_CASE(fds_limit),
	 TWT_CASE_T(timers_limit, 120),
	 TWT_CASE(proc_file))
