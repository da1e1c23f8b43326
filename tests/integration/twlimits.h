/* SPDX-License-Identifier: GPL-2.0 */
/*
 * twlimits.h - for the integration tests that change the per-user limits
 * (users.c, users_memory.c, userns.c, fdmem.c): run a case's body so that
 * the limits are written back whatever happens to it; set them; read
 * /proc/driver/twheel; read /proc/meminfo and shrink the slabs.
 */
#ifndef TWLIMITS_H
#define TWLIMITS_H

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>

#include "twtest.h"

#define SYSCTL_FDS	"/proc/sys/fs/twheel/max_user_fds"
#define SYSCTL_TIMERS	"/proc/sys/fs/twheel/max_user_timers"
#define PROC_USERS	"/proc/driver/twheel"

/*
 * The body of a case runs in a child; its parent (the case's process)
 * restores the limits afterwards, also when the body failed or the case
 * timed out (SIGALRM from the harness: the handler kills the body's
 * process group, restores, and dies of the alarm as the harness expects).
 */
static char saved_fds[32], saved_timers[32];
static pid_t body_pid;

static void restore_one(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY);

	/* The caller checks the value afterwards where it can. */
	if (fd >= 0) {
		ssize_t r = write(fd, val, strlen(val));

		(void)r;
		close(fd);
	}
}

static void restore_limits(void)
{
	restore_one(SYSCTL_FDS, saved_fds);
	restore_one(SYSCTL_TIMERS, saved_timers);
}

static void on_alarm(int sig)
{
	(void)sig;
	if (body_pid > 0)
		kill(-body_pid, SIGKILL);
	restore_limits();
	signal(SIGALRM, SIG_DFL);
	raise(SIGALRM);
}

static void restoring(void (*body)(void))
{
	long long fds = twt_sysfs_read(SYSCTL_FDS);
	long long timers = twt_sysfs_read(SYSCTL_TIMERS);
	int status = 0;
	pid_t pid;

	if (fds < 0 && access(SYSCTL_FDS, F_OK))
		twt_fail(__FILE__, __LINE__, "no %s", SYSCTL_FDS);
	CHECK(fds >= 1 && timers >= 1);
	snprintf(saved_fds, sizeof(saved_fds), "%lld", fds);
	snprintf(saved_timers, sizeof(saved_timers), "%lld", timers);
	/* Orphans of the body (its workers) come back to us to be reaped. */
	CHECK_OK(prctl(PR_SET_CHILD_SUBREAPER, 1));
	fflush(stdout);
	pid = fork();
	CHECK(pid >= 0);
	if (!pid) {
		setpgid(0, 0);
		signal(SIGPIPE, SIG_IGN);
		body();
		fflush(stdout);
		_exit(0);
	}
	setpgid(pid, pid);
	body_pid = pid;
	signal(SIGALRM, on_alarm);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	/* Whatever the body left running (a worker after a failure). */
	kill(-pid, SIGKILL);
	while (waitpid(-1, NULL, 0) > 0 || errno == EINTR)
		;
	restore_limits();
	CHECK_EQ(twt_sysfs_read(SYSCTL_FDS), fds);
	CHECK_EQ(twt_sysfs_read(SYSCTL_TIMERS), timers);
	if (WIFEXITED(status))
		_exit(WEXITSTATUS(status));
	printf("# the case's body was killed by signal %d\n",
	       WIFSIGNALED(status) ? WTERMSIG(status) : -1);
	_exit(1);
}

/* A /proc/meminfo value in kB. */
static inline long long meminfo(const char *key)
{
	char line[256];
	size_t len = strlen(key);
	long long v = -1;
	FILE *f = fopen("/proc/meminfo", "r");

	CHECK(f);
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, key, len) && line[len] == ':')
			v = atoll(line + len + 1);
	fclose(f);
	CHECK(v >= 0);
	return v;
}

/* Slab + VmallocUsed, in bytes. */
static inline long long kmem_bytes(void)
{
	return (meminfo("Slab") + meminfo("VmallocUsed")) * 1024;
}

/* Give every cache's empty slabs back, so that before and after compare. */
static inline void shrink_slabs(void)
{
	DIR *d = opendir("/sys/kernel/slab");
	struct dirent *e;
	char path[512];

	if (!d)
		return;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/sys/kernel/slab/%s/shrink",
			 e->d_name);
		twt_sysfs_write(path, "1");
	}
	closedir(d);
}

/*
 * Setting the limits and reading /proc/driver/twheel line by line: for
 * the programs that define TWLIMITS_USERS before including this.
 */
#ifdef TWLIMITS_USERS

/* ---- reading and writing the limits ---- */

static inline void set_limit_at(const char *file, int line, const char *path,
			 long long v)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%lld", v);
	if (twt_sysfs_write(path, buf))
		twt_fail(file, line, "write %s to %s: %s", buf, path,
			 strerror(errno));
	if (twt_sysfs_read(path) != v)
		twt_fail(file, line, "%s reads %lld after writing %lld", path,
			 twt_sysfs_read(path), v);
}

#define set_limit(path, v)	set_limit_at(__FILE__, __LINE__, (path), (v))

/* ---- /proc/driver/twheel ---- */

/*
 * Split "a\tb\tc\n" into n non-negative decimal numbers, exactly: no other
 * character, no empty field. Return: 0, or -1 when the line is not so.
 */
static inline int parse_row(const char *line, long long *v, int n)
{
	const char *p = line;
	int i;

	for (i = 0; i < n; i++) {
		char *end;

		if (*p < '0' || *p > '9')
			return -1;
		v[i] = strtoll(p, &end, 10);
		if (*end != (i == n - 1 ? '\n' : '\t'))
			return -1;
		p = end + 1;
	}
	return *p ? -1 : 0;
}

struct users {
	long long max_fds, max_timers;
	int n;
	long long row[64][3];	/* uid, fds, timers */
};

/* Read /proc/driver/twheel, checking its format line by line. */
static inline void users_read_at(const char *file, int line, struct users *u)
{
	static const char *const head[] = {
		"max_user_fds\t", "max_user_timers\t",
	};
	char buf[256];
	int ln = 0;
	FILE *f = fopen(PROC_USERS, "r");

	if (!f)
		twt_fail(file, line, "open %s: %s", PROC_USERS,
			 strerror(errno));
	memset(u, 0, sizeof(*u));
	while (fgets(buf, sizeof(buf), f)) {
		long long *lim = ln ? &u->max_timers : &u->max_fds;

		if (ln < 2) {
			size_t k = strlen(head[ln]);

			if (strncmp(buf, head[ln], k) ||
			    parse_row(buf + k, lim, 1))
				twt_fail(file, line, "%s line %d: '%s'",
					 PROC_USERS, ln + 1, buf);
		} else if (ln == 2) {
			if (strcmp(buf, "uid\tfds\ttimers\n"))
				twt_fail(file, line, "%s line 3: '%s'",
					 PROC_USERS, buf);
		} else {
			if (u->n == 64 || parse_row(buf, u->row[u->n], 3))
				twt_fail(file, line, "%s line %d: '%s'",
					 PROC_USERS, ln + 1, buf);
			u->n++;
		}
		ln++;
	}
	fclose(f);
	if (ln < 3)
		twt_fail(file, line, "%s: %d lines", PROC_USERS, ln);
}

#define users_read(u)	users_read_at(__FILE__, __LINE__, (u))

/* @uid's row: its index, or -1 when it has none (at most one). */
static inline int users_find_at(const char *file, int line,
				const struct users *u, long long uid)
{
	int i, found = -1;

	for (i = 0; i < u->n; i++) {
		if (u->row[i][0] != uid)
			continue;
		if (found >= 0)
			twt_fail(file, line, "uid %lld listed twice", uid);
		found = i;
	}
	return found;
}

/* /proc/driver/twheel lists @uid with exactly @fds fds and @timers slots. */
#define CHECK_USER(uid, fds, timers) do {				\
	struct users _u;						\
	int _i;								\
									\
	users_read(&_u);						\
	_i = users_find_at(__FILE__, __LINE__, &_u, (uid));		\
	if (_i < 0)							\
		twt_fail(__FILE__, __LINE__, "no line for uid %lld in %s", \
			 (long long)(uid), PROC_USERS);			\
	CHECK_EQ(_u.row[_i][1], (fds));					\
	CHECK_EQ(_u.row[_i][2], (timers));				\
} while (0)

/* /proc/driver/twheel has no line for @uid. */
#define CHECK_NO_USER(uid) do {						\
	struct users _u;						\
	int _i;								\
									\
	users_read(&_u);						\
	_i = users_find_at(__FILE__, __LINE__, &_u, (uid));		\
	if (_i >= 0)							\
		twt_fail(__FILE__, __LINE__,				\
			 "uid %lld still listed: %lld fds, %lld timers",	\
			 (long long)(uid), _u.row[_i][1], _u.row[_i][2]); \
} while (0)

#endif /* TWLIMITS_USERS */

#endif /* TWLIMITS_H */
