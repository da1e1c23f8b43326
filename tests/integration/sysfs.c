// SPDX-License-Identifier: GPL-2.0
/*
 * sysfs: what the module shows outside the fd. The module-wide counters
 * in /sys/class/misc/twheel/stats/ (fds, timers, timers_created,
 * expirations, records_read) move by exactly what this program does (no
 * other twheel user runs meanwhile); they are root's only (mode 0400: they
 * sum every user's activity) and never read as a wrapped, huge value
 * while fds and timers come and go; the timer caches are caches of their
 * own in /proc/slabinfo and /sys/kernel/slab (not merged into another:
 * a merged cache is a symlink there); the device is misc 10:250.
 */
#include "twtest.h"

#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#define STATS	"/sys/class/misc/twheel/stats/"

struct stats {
	long long fds, timers, created, expirations, records_read;
};

static long long stat_read(const char *name)
{
	char path[128];
	long long v;

	snprintf(path, sizeof(path), STATS "%s", name);
	v = twt_sysfs_read(path);
	if (v < 0)
		twt_fail(__FILE__, __LINE__, "cannot read %s", path);
	return v;
}

static struct stats stats_now(void)
{
	struct stats s;

	s.fds = stat_read("fds");
	s.timers = stat_read("timers");
	s.created = stat_read("timers_created");
	s.expirations = stat_read("expirations");
	s.records_read = stat_read("records_read");
	return s;
}

#define CHECK_STATS(s0, dfds, dtimers, dcreated, dexp, dread) do {	\
	struct stats _s = stats_now();					\
									\
	CHECK_EQ(_s.fds - (s0).fds, dfds);				\
	CHECK_EQ(_s.timers - (s0).timers, dtimers);			\
	CHECK_EQ(_s.created - (s0).created, dcreated);			\
	CHECK_EQ(_s.expirations - (s0).expirations, dexp);		\
	CHECK_EQ(_s.records_read - (s0).records_read, dread);		\
} while (0)

static void stats_follow_the_timers(void)
{
	struct stats s0 = stats_now();
	struct twheel_event ev[16];
	uint64_t id[10];
	int fd, fd2, i;

	fd = twt_open_manual(O_NONBLOCK, TWT_MS);
	CHECK_STATS(s0, 1, 0, 0, 0, 0);
	for (i = 0; i < 10; i++)
		id[i] = twt_add_abs(fd, i, (i + 1) * TWT_MS, CLOCK_MONOTONIC);
	CHECK_STATS(s0, 1, 10, 10, 0, 0);
	/* Five fall due: queued, not read yet. */
	twt_advance(fd, 5 * TWT_MS);
	CHECK_STATS(s0, 1, 10, 10, 5, 0);
	CHECK_EQ(twt_drain(fd, ev, 16), 5);
	CHECK_STATS(s0, 1, 5, 10, 5, 5);
	/* A cancel frees one; a failed add creates nothing. */
	CHECK_EQ(twt_cancel(fd, id[9]), TWHEEL_STATE_PENDING);
	CHECK_ERR(twt_add_raw(fd, 1, -1, 0, CLOCK_MONOTONIC, NULL), EINVAL);
	CHECK_STATS(s0, 1, 4, 10, 5, 5);
	/* A second fd; closing the first frees its 4 live timers. */
	fd2 = twt_open(0);
	CHECK_STATS(s0, 2, 4, 10, 5, 5);
	close(fd);
	CHECK_STATS(s0, 1, 0, 10, 5, 5);
	close(fd2);
	CHECK_STATS(s0, 0, 0, 10, 5, 5);
}

static const char *const stat_names[] = {
	"fds", "timers", "timers_created", "expirations", "records_read",
};

#define NSTATS	(sizeof(stat_names) / sizeof(stat_names[0]))

static void stats_read_only(void)
{
	unsigned int i;

	for (i = 0; i < NSTATS; i++) {
		char path[128];

		snprintf(path, sizeof(path), STATS "%s", stat_names[i]);
		CHECK_ERR(open(path, O_WRONLY), EACCES);
	}
}

/*
 * Root's only: mode 0400, owned by root; another user's open fails with
 * EACCES, also while that user holds an fd with timers (whose own counts
 * fdinfo shows).
 */
static void stats_root_only(void)
{
	unsigned int i;
	int status;
	pid_t pid;

	for (i = 0; i < NSTATS; i++) {
		char path[128];
		struct stat st;

		snprintf(path, sizeof(path), STATS "%s", stat_names[i]);
		CHECK_OK(stat(path, &st));
		if ((st.st_mode & 07777) != 0400 || st.st_uid != 0)
			twt_fail(__FILE__, __LINE__, "%s: mode %o uid %u",
				 path, st.st_mode & 07777, st.st_uid);
		CHECK(twt_sysfs_read(path) >= 0);
	}
	fflush(stdout);
	pid = fork();
	CHECK(pid >= 0);
	if (!pid) {
		int fd;

		twt_become(65534);
		fd = twt_open(0);
		twt_add_rel(fd, 1, 3600 * TWT_S);
		for (i = 0; i < NSTATS; i++) {
			char path[128];

			snprintf(path, sizeof(path), STATS "%s", stat_names[i]);
			CHECK_ERR(open(path, O_RDONLY), EACCES);
		}
		close(fd);
		_exit(0);
	}
	CHECK_EQ(waitpid(pid, &status, 0), pid);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

/*
 * fds and timers are counts of things now, summed over CPUs while others
 * change them: read while another process opens and closes fds and adds
 * and cancels timers as fast as it can, they never come out wrapped (a
 * huge number), nor above what the churner can have made: each round
 * opens one fd and creates three timers, all gone at its end; a read
 * sees at most the round under way when it began plus every round begun
 * while it ran (the churner counts its rounds in shared memory before
 * each one, after the previous one's close: x86 keeps those stores in
 * order). The number of reads is fixed, whatever the machine's speed.
 */
static void stats_never_wrap(void)
{
	long long fds, timers, max_fds = 0, max_timers = 0, most = 0;
	_Atomic long long *rounds;
	pid_t pid, parent;
	int i, status;

	CHECK_EQ(stat_read("fds"), 0);
	CHECK_EQ(stat_read("timers"), 0);
	rounds = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
		      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	CHECK(rounds != MAP_FAILED);
	*rounds = 0;
	fflush(stdout);
	parent = getpid();
	pid = fork();
	CHECK(pid >= 0);
	if (!pid) {
		/* Never outlive the case (a time-out): it holds the module. */
		CHECK_OK(prctl(PR_SET_PDEATHSIG, SIGKILL));
		if (getppid() != parent)
			_exit(1);
		for (;;) {
			int fd;
			uint64_t id;

			(*rounds)++;
			fd = twt_open(O_NONBLOCK);
			id = twt_add_rel(fd, 1, 3600 * TWT_S);
			twt_add_rel(fd, 2, 3600 * TWT_S);
			twt_add_rel(fd, 3, 0);
			twt_cancel(fd, id);
			close(fd);
		}
	}
	for (i = 0; i < 2000; i++) {
		long long r0 = *rounds, r1;

		fds = stat_read("fds");
		timers = stat_read("timers");
		r1 = *rounds;
		if (fds > max_fds)
			max_fds = fds;
		if (timers > max_timers)
			max_timers = timers;
		if (r1 - r0 + 1 > most)
			most = r1 - r0 + 1;
		if (fds > r1 - r0 + 1 || timers > 3 * (r1 - r0 + 1)) {
			kill(pid, SIGKILL);
			twt_fail(__FILE__, __LINE__,
				 "read %d: fds %lld, timers %lld while the churner began %lld rounds",
				 i, fds, timers, r1 - r0 + 1);
		}
	}
	CHECK_OK(kill(pid, SIGKILL));
	CHECK_EQ(waitpid(pid, &status, 0), pid);
	CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
	printf("# %d reads of fds and timers while another process churned (%lld rounds): fds at most %lld, timers at most %lld (at most %lld rounds under way during one read)\n",
	       i, (long long)*rounds, max_fds, max_timers, most);
	CHECK(*rounds > 0);
	/* Once it is gone, exactly nothing again. */
	CHECK_EQ(stat_read("fds"), 0);
	CHECK_EQ(stat_read("timers"), 0);
}

/* "name active_objs num_objs objsize ...": its active objects, or -1. */
static long long slabinfo_active(const char *cache)
{
	char line[512], name[64];
	long long active = -1, v;
	FILE *f = fopen("/proc/slabinfo", "r");

	if (!f)
		twt_skip("no /proc/slabinfo");
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%63s %lld", name, &v) == 2 &&
		    !strcmp(name, cache))
			active = v;
	fclose(f);
	return active;
}

static void slab_caches_of_their_own(void)
{
	const char *caches[] = { "twheel_timer", "twheel_ptimer" };
	int fd = twt_open(0), i;
	struct stat st;

	for (i = 0; i < 2; i++) {
		char path[128];

		snprintf(path, sizeof(path), "/sys/kernel/slab/%s", caches[i]);
		/* A merged cache is only a symlink to the shared one. */
		CHECK_OK(lstat(path, &st));
		CHECK(S_ISDIR(st.st_mode));
		CHECK(slabinfo_active(caches[i]) >= 0);
	}
	/* 1000 live one-shot timers are 1000 active objects at least. */
	for (i = 0; i < 1000; i++)
		twt_add_rel(fd, i, 3600 * TWT_S);
	CHECK(slabinfo_active("twheel_timer") >= 1000);
	printf("# twheel_timer: %lld active objects with 1000 timers live\n",
	       slabinfo_active("twheel_timer"));
	close(fd);
}

static void device_number(void)
{
	struct stat st;

	CHECK_OK(stat(TWT_DEV, &st));
	CHECK(S_ISCHR(st.st_mode));
	CHECK_EQ(major(st.st_rdev), 10);
	CHECK_EQ(minor(st.st_rdev), 250);
	CHECK_EQ(st.st_mode & 0777, 0666);
}

TWT_MAIN("sysfs",
	 TWT_CASE(stats_follow_the_timers),
	 TWT_CASE(stats_read_only),
	 TWT_CASE(stats_root_only),
	 TWT_CASE_T(stats_never_wrap, 300),
	 TWT_CASE(slab_caches_of_their_own),
	 TWT_CASE(device_number))
