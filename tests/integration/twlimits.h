/* SPDX-License-Identifier: GPL-2.0 */
/*
 * twlimits.h - for the integration tests that change the per-user limits
 * (users.c, fdmem.c): run a case's body so that the limits are written
 * back whatever happens to it; read /proc/meminfo and shrink the slabs.
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
static long long meminfo(const char *key)
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
static long long kmem_bytes(void)
{
	return (meminfo("Slab") + meminfo("VmallocUsed")) * 1024;
}

/* Give every cache's empty slabs back, so that before and after compare. */
static void shrink_slabs(void)
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

#endif /* TWLIMITS_H */
