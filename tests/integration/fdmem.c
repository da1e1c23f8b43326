// SPDX-License-Identifier: GPL-2.0
/*
 * fdmem: the kernel memory of an fd and of a timer, measured as the whole
 * kernel sees it: the growth of Slab + VmallocUsed in /proc/meminfo (every
 * object, its slab page's slack, the struct file) over 1000 fds or 100 000
 * timers, divided by their number, in a memory cgroup of the case's own;
 * and an fd's exactly, as what its cgroup was charged: the objects README
 * says it is made of, and nothing else.
 *
 *   an fd with one clock and one to five timers (on as many wheel levels):
 *       at most 5 KiB (five levels on PREEMPT_RT: 4 264 bytes charged,
 *       the slab grown by up to 4 391)
 *   a one-shot timer: at most 72 bytes (58 measured)
 *   a periodic timer: at most 88 bytes (78 measured)
 *
 * The bounds hold on a kernel without slab debugging; the debug kernel
 * (KASAN: every object carries metadata) prints its figures only, and
 * checks the charge of an fd against its objects' sizes there too. Each
 * case closes what it opened and checks that /proc/driver/twheel lists
 * its user no more: closing gives everything back.
 *
 * The per-user limits are raised for the cases that need more than a
 * small VM's defaults, and written back afterwards by the case's parent,
 * whatever happened to the case (see restoring()).
 */
#include <dirent.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include "twlimits.h"

#define N_FDS		1000
#define N_TIMERS	100000
#define N_TIMERS_DEBUG	20000
#define NOBODY		65534

/* ---- the limits ---- */

/* Raise a limit to at least @v (restoring() writes it back). */
static void raise_limit(const char *path, long long v)
{
	char buf[32];

	if (twt_sysfs_read(path) >= v)
		return;
	snprintf(buf, sizeof(buf), "%lld", v);
	CHECK_OK(twt_sysfs_write(path, buf));
	CHECK_EQ(twt_sysfs_read(path), v);
}

/* ---- measuring ---- */

/*
 * Every case measures in a memory cgroup of its own, as every process
 * of a systemd machine runs in one: once any memory cgroup exists, every
 * slab page of an accounted cache carries an array of its objects' owners
 * (8 bytes per object, from kmalloc: 1 KiB for the 73 periodic timers of
 * a page, 14 bytes each), in the root cgroup too. So the figures do not
 * depend on what ran before.
 */
#define CG		"/sys/fs/cgroup"
#define CG_FDMEM	CG "/twt-fdmem"

static void write_str(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY);

	CHECK_OK(fd);
	CHECK_EQ(write(fd, s, strlen(s)), (long long)strlen(s));
	close(fd);
}

/*
 * The case's memory cgroup: made (@how 0) before the slabs are measured,
 * entered (1) just before the window, so that nothing this process did
 * before is given back in it (a struct file is freed after an RCU grace
 * period, and uncharged from the cgroup that was charged), left and
 * removed (2) at the end.
 */
static void fdmem_cgroup(int how)
{
	char pid[32];

	snprintf(pid, sizeof(pid), "%d", getpid());
	switch (how) {
	case 0:
		mkdir(CG, 0755);
		if (mount("none", CG, "cgroup2", 0, NULL) < 0)
			CHECK(errno == EBUSY);
		write_str(CG "/cgroup.subtree_control", "+memory");
		if (mkdir(CG_FDMEM, 0755) < 0)
			CHECK(errno == EEXIST);
		break;
	case 1:
		write_str(CG_FDMEM "/cgroup.procs", pid);
		break;
	default:
		write_str(CG "/cgroup.procs", pid);
		CHECK_OK(rmdir(CG_FDMEM));
	}
}

/*
 * The slab bytes charged to the cgroup: every object allocated for it,
 * each counted as its cache's slab_size plus the cgroup's pointer to
 * the object's owner (8 bytes), to within the per-CPU batches of the
 * counters (a few KiB).
 */
static long long cg_slab(void)
{
	long long v, sum = 0;
	char line[256];
	FILE *f;
	int n = 0;

	/*
	 * memory.stat flushes the cgroup's per-CPU counters only past a
	 * threshold (since 6.8: 64 pages of updates per CPU; else every 2 s):
	 * up to 512 KiB stale on the debug kernel, a quarter of an fd's
	 * bytes. Reading cpu.stat flushes every controller's counters of
	 * the cgroup (cgroup_rstat_flush()), memory's included.
	 */
	f = fopen(CG_FDMEM "/cpu.stat", "r");
	CHECK(f);
	while (fgets(line, sizeof(line), f))
		;
	fclose(f);
	f = fopen(CG_FDMEM "/memory.stat", "r");
	CHECK(f);
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "slab_reclaimable %lld", &v) == 1 ||
		    sscanf(line, "slab_unreclaimable %lld", &v) == 1) {
			sum += v;
			n++;
		}
	fclose(f);
	CHECK_EQ(n, 2);
	return sum;
}

/* /proc/slabinfo: per cache, the bytes of its slabs. */
#define MAX_CACHES	512
struct slabs {
	int n;
	char name[MAX_CACHES][64];
	long long bytes[MAX_CACHES];
};

static void slabs_read(struct slabs *s)
{
	long long objs, total, size, per, pages, active, nslabs;
	char line[512], name[64];
	FILE *f = fopen("/proc/slabinfo", "r");

	s->n = 0;
	if (!f)
		return;
	while (fgets(line, sizeof(line), f) && s->n < MAX_CACHES) {
		if (sscanf(line, "%63s %lld %lld %lld %lld %lld : tunables %*d %*d %*d : slabdata %lld %lld",
			   name, &objs, &total, &size, &per, &pages, &active,
			   &nslabs) != 8)
			continue;
		snprintf(s->name[s->n], sizeof(s->name[0]), "%s", name);
		s->bytes[s->n++] = nslabs * pages * 4096;
	}
	fclose(f);
}

/* The caches that grew most between @a and @b, per @n things. */
static void slabs_print(const char *what, const struct slabs *a,
			const struct slabs *b, long n)
{
	long long d[MAX_CACHES];
	int i, j, k, best;

	for (i = 0; i < b->n; i++) {
		d[i] = b->bytes[i];
		for (j = 0; j < a->n; j++)
			if (!strcmp(a->name[j], b->name[i]))
				d[i] -= a->bytes[j];
	}
	printf("# %s: slab growth by cache, per %s:", what,
	       n == N_FDS ? "fd" : "timer");
	for (k = 0; k < 6; k++) {
		best = -1;
		for (i = 0; i < b->n; i++)
			if (d[i] > 0 && (best < 0 || d[i] > d[best]))
				best = i;
		if (best < 0)
			break;
		printf(" %s %.1f", b->name[best], (double)d[best] / n);
		d[best] = 0;
	}
	printf("\n");
}

/* Slab objects carry KASAN's metadata: the debug kernel. */
static int debug_kernel(void)
{
	return twt_sysfs_read("/sys/kernel/slab/twheel_timer/slab_size") !=
	       twt_sysfs_read("/sys/kernel/slab/twheel_timer/object_size");
}

/* /proc/driver/twheel has no "uid\t..." line for @uid. */
#ifndef CHECK_NO_USER
#define CHECK_NO_USER(uid) do {						\
	char _l[256];							\
	unsigned int _u;						\
	FILE *_f = fopen(PROC_USERS, "r");				\
									\
	CHECK(_f);							\
	while (fgets(_l, sizeof(_l), _f))				\
		if (sscanf(_l, "%u\t", &_u) == 1 && _u == (uid))	\
			twt_fail(__FILE__, __LINE__, "%s still lists uid %u: %s", \
				 PROC_USERS, (unsigned int)(uid), _l);	\
	fclose(_f);							\
} while (0)
#endif

/* /proc/driver/twheel's line for @uid: its fds and timers, or -1, -1. */
static void user_line(unsigned int uid, long long *fds, long long *timers)
{
	long long f, t;
	char line[256];
	unsigned int u;
	FILE *fp = fopen(PROC_USERS, "r");

	CHECK(fp);
	*fds = *timers = -1;
	while (fgets(line, sizeof(line), fp))
		if (sscanf(line, "%u\t%lld\t%lld", &u, &f, &t) == 3 &&
		    u == uid) {
			*fds = f;
			*timers = t;
		}
	fclose(fp);
}

/* ---- per fd ---- */

/*
 * The most an fd with one clock and one to five timers may cost, in a
 * memory cgroup, on a kernel without slab debugging: as many bytes as
 * the biggest such fd (five levels on PREEMPT_RT) with more than 10% to
 * spare, so that neither the kernel's other allocations in the window
 * nor the allocator's rounding can reach it.
 */
#define FD_BOUND	5120
/* slab_size of a cache: what one of its objects takes in its slab. */
static long long obj_size(const char *cache)
{
	char path[128];
	long long v;

	snprintf(path, sizeof(path), "/sys/kernel/slab/%s/slab_size", cache);
	v = twt_sysfs_read(path);
	if (v <= 0)
		twt_fail(__FILE__, __LINE__, "no %s", path);
	return v;
}

/* The same of kmalloc(@size, GFP_KERNEL_ACCOUNT): its kmalloc-cg-@size. */
static long long kmalloc_size(int size)
{
	char name[32];

	snprintf(name, sizeof(name), "kmalloc-cg-%d", size);
	return obj_size(name);
}

/*
 * N_FDS fds with @n timers each on @levels levels of one clock's wheel,
 * at the deadlines @ahead (ns from now; on the manual clock with
 * @manual). Each fd gets its timers in the order given and is not used
 * again before the measurement: a timer that falls due in the meantime
 * stays where it is until the fd is next used (no task does its fd's
 * work but a user of it), so the figure is that of the full fd whatever
 * the machine's speed.
 *
 * Measured twice, in a memory cgroup of the case's own. Exactly: the
 * slab bytes charged to the cgroup (only this process allocates for
 * it), which must be those of the objects an fd is made of, as README
 * lists them, each its cache's slab_size plus the cgroup's 8 bytes:
 * the struct file, the state (twheel_ctx), one clock base (twheel_base),
 * a level of 64 slot pointers per level (kmalloc 512), the id index's
 * first 32 slots (kmalloc 256) and its page array of one (kmalloc 8),
 * the timers (twheel_timer); nothing else. And as the whole kernel sees
 * it: the growth of Slab + VmallocUsed (slab pages' slack and the
 * cgroup's per-slab arrays included, and whatever else the kernel
 * allocated meanwhile). Both at most FD_BOUND.
 */
static void per_fd(const char *what, const int64_t *ahead, int n, int levels,
		   int manual)
{
	const int debug = debug_kernel();
	long long before, after, cg0, cg1, end, fds, timers, v, model;
	struct rlimit rl = { .rlim_cur = 4096, .rlim_max = 4096 };
	struct slabs *s0, *s1;
	int fd[N_FDS], i, k, spare;
	double per, charged;

	/* Root holds these fds: room for them in root's limits. */
	raise_limit(SYSCTL_FDS, N_FDS + 24);
	raise_limit(SYSCTL_TIMERS, N_FDS * n + 1024);
	CHECK_OK(setrlimit(RLIMIT_NOFILE, &rl));
	/* The fd table grown beforehand: it is the process's, not theirs. */
	spare = open("/dev/null", O_RDONLY);
	CHECK_OK(spare);
	CHECK_EQ(dup2(spare, 2 * N_FDS), 2 * N_FDS);
	close(2 * N_FDS);
	close(spare);
	s0 = calloc(1, sizeof(*s0));
	s1 = calloc(1, sizeof(*s1));
	CHECK(s0 && s1);
	CHECK_NO_USER(0);
	fdmem_cgroup(0);
	model = obj_size("filp") + obj_size("twheel_ctx") +
		obj_size("twheel_base") + levels * kmalloc_size(512) +
		kmalloc_size(256) + kmalloc_size(8) +
		n * obj_size("twheel_timer") + 8LL * (5 + levels + n);

	shrink_slabs();
	slabs_read(s0);
	before = kmem_bytes();
	fdmem_cgroup(1);
	cg0 = cg_slab();
	for (i = 0; i < N_FDS; i++) {
		fd[i] = manual ? twt_open_manual(O_NONBLOCK | O_CLOEXEC, TWT_MS) :
				 twt_open(O_NONBLOCK | O_CLOEXEC);
		for (k = 0; k < n; k++)
			twt_add_rel(fd[i], k, ahead[k]);
	}
	cg1 = cg_slab();
	after = kmem_bytes();
	slabs_read(s1);
	user_line(0, &fds, &timers);
	CHECK_EQ(fds, N_FDS);
	CHECK_EQ(timers, N_FDS * n);
	/* The id index: its first 32 slots and a page array of one. */
	CHECK_OK(twt_fdinfo(fd[0], "index_bytes", &v));
	CHECK_EQ(v, 32 * 8 + 8);
	charged = (double)(cg1 - cg0) / N_FDS;
	per = (double)(after - before) / N_FDS;
	printf("# %s: %d fds with %d timer%s each on %d level%s: charged %.0f bytes per fd, the objects it is made of %lld (bound %d)\n",
	       what, N_FDS, n, n > 1 ? "s" : "", levels, levels > 1 ? "s" : "",
	       charged, model, FD_BOUND);
	printf("# %s: Slab + VmallocUsed grew %lld bytes: %.0f bytes per fd (bound %d)%s\n",
	       what, after - before, per, FD_BOUND,
	       debug ? " (bound not asserted: KASAN)" : "");
	slabs_print(what, s0, s1, N_FDS);
	/*
	 * To within the objects' per-CPU byte caches (under a page per CPU,
	 * a few bytes per fd; exact on all three kernels since cg_slab()
	 * flushes first): one object more or less of 32 bytes or more fails
	 * it.
	 */
	CHECK(charged > model - 32.0 && charged < model + 32.0);
	if (!debug) {
		CHECK(model <= FD_BOUND);
		CHECK(per <= FD_BOUND);
	}

	for (i = 0; i < N_FDS; i++)
		CHECK_OK(close(fd[i]));
	CHECK_NO_USER(0);
	shrink_slabs();
	end = kmem_bytes();
	printf("# %s: closed: %lld bytes left of the growth\n", what,
	       end - before);
	fdmem_cgroup(2);
	free(s0);
	free(s1);
}

/* One 30-minute timer per fd. */
static void fd_one_timer_body(void)
{
	static const int64_t ahead[] = { 1800 * TWT_S };

	per_fd("fd_one_timer", ahead, 1, 1, 0);
}

/*
 * Five timers per fd on five levels of the wheel. On the manual clock,
 * which starts at 0 (whatever the time, with a 1 ms tick, 1 s ahead is
 * level 1, 30 s level 2, 30 min level 3, 1 day level 4, 1 year level 5:
 * on a real clock, one in four fds would have its 1 s and 30 s timers on
 * one level where the clock's digits carry); its fd is the same objects.
 */
static void fd_five_levels_body(void)
{
	static const int64_t ahead[] = {
		365 * 86400 * TWT_S, 86400 * TWT_S, 1800 * TWT_S, 30 * TWT_S,
		TWT_S,
	};

	per_fd("fd_five_levels", ahead, 5, 5, 1);
}

static void fd_one_timer(void) { restoring(fd_one_timer_body); }
static void fd_five_levels(void) { restoring(fd_five_levels_body); }

/* ---- per timer ---- */

/*
 * N timers (one-shot or periodic) on one fd, an hour ahead spread over a
 * second; the first timer, added before the measurement, brings the fd's
 * wheel and the id table's first page.
 */
static void per_timer(const char *what, int periodic, double bound)
{
	const int debug = debug_kernel();
	const long n = debug ? N_TIMERS_DEBUG : N_TIMERS;
	long long before, after, cg0, cg1, fds, timers, slots;
	struct slabs *s0, *s1;
	int fd;
	long i;
	double per;

	raise_limit(SYSCTL_TIMERS, n + 1024);
	s0 = calloc(1, sizeof(*s0));
	s1 = calloc(1, sizeof(*s1));
	CHECK(s0 && s1);
	fdmem_cgroup(0);
	fdmem_cgroup(1);
	fd = twt_open(O_NONBLOCK | O_CLOEXEC);
	twt_addp(fd, 0, 3600 * TWT_S, periodic ? 3600 * TWT_S : 0, 0,
		 CLOCK_MONOTONIC);
	shrink_slabs();
	slabs_read(s0);
	before = kmem_bytes();
	cg0 = cg_slab();
	for (i = 0; i < n; i++)
		twt_addp(fd, i, 3600 * TWT_S + i * 10 * TWT_US,
			 periodic ? 3600 * TWT_S : 0, 0, CLOCK_MONOTONIC);
	cg1 = cg_slab();
	after = kmem_bytes();
	slabs_read(s1);
	CHECK_EQ(twt_timers(fd), n + 1);
	CHECK_OK(twt_fdinfo(fd, "slots", &slots));
	CHECK_EQ(slots, n + 1);
	user_line(0, &fds, &timers);
	CHECK_EQ(fds, 1);
	CHECK_EQ(timers, n + 1);
	per = (double)(after - before) / n;
	printf("# %s: %ld %s timers on one fd: Slab + VmallocUsed grew %lld bytes: %.1f bytes per timer (bound %.0f)%s; charged %.1f\n",
	       what, n, periodic ? "periodic" : "one-shot", after - before,
	       per, bound, debug ? " (not asserted: KASAN)" : "",
	       (double)(cg1 - cg0) / n);
	slabs_print(what, s0, s1, n);
	if (!debug)
		CHECK(per <= bound);
	CHECK_OK(close(fd));
	CHECK_NO_USER(0);
	fdmem_cgroup(2);
	free(s0);
	free(s1);
}

/*
 * The bounds: 58 bytes per one-shot timer (its 40-byte object, its 8-byte
 * slot, and 10 bytes of the 1 KiB array of owners of its slab page of
 * 102) and 78 per periodic one (56, 8 and 14 of 1 KiB for 73) measured,
 * with more than 10% to spare; a periodic timer's within the slot's
 * share of the per-user limits, TWHEEL_TIMER_MAX_BYTES (88).
 */
static void timer_oneshot_body(void) { per_timer("timer_oneshot", 0, 72); }
static void timer_periodic_body(void) { per_timer("timer_periodic", 1, 88); }
static void timer_oneshot(void) { restoring(timer_oneshot_body); }
static void timer_periodic(void) { restoring(timer_periodic_body); }

/*
 * Closing gives back: another user's fds, with timers, in two processes,
 * closed by close(2) in one and by the other's death (SIGKILL); then
 * /proc/driver/twheel lists the user no more.
 */
static void closing_gives_back_body(void)
{
	int ready[2], st, k, i;
	long long fds, timers;
	pid_t pid[2];
	char c;

	CHECK_NO_USER(NOBODY);
	CHECK_OK(pipe(ready));
	for (k = 0; k < 2; k++) {
		fflush(stdout);
		pid[k] = fork();
		CHECK(pid[k] >= 0);
		if (pid[k])
			continue;
		close(ready[0]);
		twt_become(NOBODY);
		{
			int fd[3];

			for (i = 0; i < 3; i++) {
				fd[i] = twt_open(O_NONBLOCK);
				twt_add_rel(fd[i], i, 3600 * TWT_S);
				twt_addp(fd[i], i, 3600 * TWT_S, TWT_S, 0,
					 CLOCK_BOOTTIME);
			}
			CHECK_EQ(write(ready[1], "r", 1), 1);
			/* The first closes its fds when told; the other dies. */
			if (k == 0) {
				kill(getpid(), SIGSTOP);
				for (i = 0; i < 3; i++)
					CHECK_OK(close(fd[i]));
				_exit(0);
			}
			pause();
			_exit(1);
		}
	}
	close(ready[1]);
	for (k = 0; k < 2; k++)
		CHECK_EQ(read(ready[0], &c, 1), 1);
	user_line(NOBODY, &fds, &timers);
	CHECK_EQ(fds, 6);
	CHECK_EQ(timers, 12);
	/* The first: stopped before its closes; let it close and exit. */
	CHECK_EQ(waitpid(pid[0], &st, WUNTRACED), pid[0]);
	CHECK(WIFSTOPPED(st));
	CHECK_OK(kill(pid[0], SIGCONT));
	CHECK_EQ(waitpid(pid[0], &st, 0), pid[0]);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	user_line(NOBODY, &fds, &timers);
	CHECK_EQ(fds, 3);
	CHECK_EQ(timers, 6);
	/* The second dies holding its fds. */
	CHECK_OK(kill(pid[1], SIGKILL));
	CHECK_EQ(waitpid(pid[1], &st, 0), pid[1]);
	CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);
	CHECK_NO_USER(NOBODY);
	close(ready[0]);
}

static void closing_gives_back(void) { restoring(closing_gives_back_body); }

TWT_MAIN("fdmem",
	 TWT_CASE_T(fd_one_timer, 300),
	 TWT_CASE_T(fd_five_levels, 300),
	 TWT_CASE_T(timer_oneshot, 300),
	 TWT_CASE_T(timer_periodic, 300),
	 TWT_CASE(closing_gives_back))
