// SPDX-License-Identifier: GPL-2.0
/*
 * main.c - twheel-bench: the in-guest part of `make bench`.
 *
 * Raises the fd limits (RLIMIT_NOFILE, fs.nr_open, fs.file-max, epoll's
 * max_user_watches) so timerfd can hold 10^6 timers, optionally moves
 * itself into a fresh memory cgroup (-c memcg), then runs the phases
 * (cost, expiry, lateness, memory, shared table, idle
 * timeouts) and appends machine-readable lines to
 * the results file (format in bench.h). Run it as root in the guest, with
 * twheel.ko loaded.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <sched.h>
#include <stdarg.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "bench.h"

struct bench_opts opt = {
	.cg = "root",
	.reps = 5,
	.nmax = 1000000,
	.kmax = 100000,
	.ops = 8192,
	.late_n = 10000,
	.mem_live = 100000,
	/*
	 * One period of level 2 of a wheel of 64-slot levels, where every
	 * idle case's deadlines go when they cross a 4096-tick boundary: a
	 * window of it holds that level's cascade once, whatever its phase.
	 * A shorter one holds it or not, and the modes that cascade (twheel's,
	 * the userspace wheel) cost per activity what the phase gave.
	 */
	.idle_ticks = 4096,
	.phases = "cselm",
	.seed = 0x74776865656c2131ULL,
};
FILE *results;
const char *cg_dir;

static int64_t t_start;

void die(const char *fmt, ...)
{
	int err = errno;
	va_list ap;

	fprintf(stderr, "twheel-bench: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, " (errno %d: %s)\n", err, strerror(err));
	if (results)
		fprintf(results, "E fatal error, see console\n");
	exit(1);
}

void result(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfprintf(results, fmt, ap);
	va_end(ap);
	fputc('\n', results);
	fflush(results);
}

void note(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "bench %7.1fs [%s] ", (mono_ns() - t_start) / 1e9,
		opt.cg);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size);

	if (!p)
		die("out of memory (%zu x %zu)", n, size);
	return p;
}

/* tests/bench/idlestat/'s module, loaded by tests/bench/run.sh */
#define IDLESTAT_FILE "/sys/module/twheel_idlestat/parameters/cpu0_idle_ns"

int idle_clock_cheap(void)
{
	return access(IDLESTAT_FILE, R_OK) == 0;
}

/*
 * CPU 0's idle + iowait sleep time, ns: from the idlestat module when it
 * is loaded (O(1)), else from /proc/timer_list (which lists every queued
 * hrtimer first: O(N^2) with N of them).
 */
int64_t cpu0_idle_ns(void)
{
	char line[256];
	long long v, idle = -1, iowait = -1;
	int cpu = -1;
	FILE *f = fopen(IDLESTAT_FILE, "r");

	if (f) {
		if (fscanf(f, "%lld", &v) != 1 || v < 0)
			die("%s: no idle time", IDLESTAT_FILE);
		fclose(f);
		return v;
	}
	f = fopen("/proc/timer_list", "r");

	if (!f)
		die("open /proc/timer_list");
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "cpu: %d", &cpu) == 1)
			continue;
		if (cpu != 0)
			continue;
		if (sscanf(line, " .idle_sleeptime : %lld nsecs", &v) == 1)
			idle = v;
		else if (sscanf(line, " .iowait_sleeptime: %lld nsecs", &v) == 1)
			iowait = v;
	}
	fclose(f);
	if (idle < 0 || iowait < 0)
		die("/proc/timer_list: no idle_sleeptime/iowait_sleeptime for cpu 0");
	return idle + iowait;
}

/*
 * Checks of the busy clock, reported: a 100 ms sleep should be close to
 * 0 busy, a 50 ms spin close to 50 ms busy.
 */
static void check_idle_clock(void)
{
	struct timespec ts = { .tv_nsec = 100000000 };
	int64_t i0, t0, t1, i1;

	i0 = cpu0_idle_ns();
	t0 = mono_ns();
	nanosleep(&ts, NULL);
	t1 = mono_ns();
	i1 = cpu0_idle_ns();
	result("R idle %s sleep %lld %lld", opt.cg, (long long)(t1 - t0),
	       (long long)((t1 - t0) - (i1 - i0)));
	i0 = cpu0_idle_ns();
	t0 = mono_ns();
	while (mono_ns() - t0 < 50000000)
		;
	t1 = mono_ns();
	i1 = cpu0_idle_ns();
	result("R idle %s spin %lld %lld", opt.cg, (long long)(t1 - t0),
	       (long long)((t1 - t0) - (i1 - i0)));
}

/*
 * Everything on CPU 0: the busy clock above is CPU 0's, and an hrtimer
 * armed by a task running on a CPU stays on that CPU (with timer
 * migration off), so timer interrupts land where they are counted, for
 * every implementation alike.
 */
static void pin_cpu0(void)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(0, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		die("sched_setaffinity(CPU 0)");
}

static void write_file(const char *path, const char *s, int must)
{
	int fd = open(path, O_WRONLY);
	ssize_t len = strlen(s);

	if (fd < 0 || write(fd, s, len) != len) {
		if (must)
			die("write %s to %s", s, path);
		fprintf(stderr, "twheel-bench: cannot write %s to %s: %s\n",
			s, path, strerror(errno));
	}
	if (fd >= 0)
		close(fd);
}

/* The first number in a sysfs or cgroup file, or -1. */
long long bench_read_ll(const char *path)
{
	char buf[64] = "";
	long long v = -1;
	FILE *f = fopen(path, "r");

	if (f) {
		if (fgets(buf, sizeof(buf), f))
			v = atoll(buf);
		fclose(f);
	}
	return v;
}

long long cg_stat(const char *key)
{
	char path[256], line[256];
	size_t len = strlen(key);
	long long v = -1;
	FILE *f;

	if (!cg_dir)
		return -1;
	snprintf(path, sizeof(path), "%s/memory.stat", cg_dir);
	f = fopen(path, "r");
	if (!f)
		die("open %s", path);
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, key, len) && line[len] == ' ')
			v = atoll(line + len + 1);
	fclose(f);
	return v;
}

/* 10^6 timerfds need 10^6 fds, file objects and epoll watches. */
static void raise_limits(void)
{
	const rlim_t nofile = 4 << 20;
	struct rlimit rl = { nofile, nofile };

	write_file("/proc/sys/fs/nr_open", "4194304", 1);
	write_file("/proc/sys/fs/file-max", "8388608", 0);
	write_file("/proc/sys/fs/epoll/max_user_watches", "8388608", 1);
	if (setrlimit(RLIMIT_NOFILE, &rl))
		die("setrlimit(RLIMIT_NOFILE, %lu)", (unsigned long)nofile);
}

/* As tests/integration/memory.c: cgroup v2, a fresh memory group. */
static void enter_cgroup(void)
{
	static const char cg[] = "/sys/fs/cgroup";
	static char dir[128];
	char pid[32];

	mkdir(cg, 0755);
	if (mount("none", cg, "cgroup2", 0, NULL) < 0 && errno != EBUSY)
		die("mount cgroup2 on %s", cg);
	write_file("/sys/fs/cgroup/cgroup.subtree_control", "+memory", 1);
	snprintf(dir, sizeof(dir), "%s/twheel-bench", cg);
	if (mkdir(dir, 0755) < 0 && errno != EEXIST)
		die("mkdir %s", dir);
	snprintf(pid, sizeof(pid), "%d", getpid());
	write_file("/sys/fs/cgroup/twheel-bench/cgroup.procs", pid, 1);
	cg_dir = dir;
}

static void facts(void)
{
	struct twheel_info info;
	struct utsname u;
	int fd;

	uname(&u);
	result("M kernel %s", u.release);
	result("M cpus %ld", sysconf(_SC_NPROCESSORS_ONLN));
	result("M seed 0x%016" PRIx64, opt.seed);
	result("M opts %s reps %d nmax %ld kmax %ld ops %ld late_n %ld mem_live %ld idle_ticks %ld phases %s",
	       opt.cg, opt.reps, opt.nmax, opt.kmax, opt.ops, opt.late_n,
	       opt.mem_live, opt.idle_ticks, opt.phases);
	fd = twheel_open(O_CLOEXEC);
	if (fd < 0)
		die("twheel_open");
	if (twheel_info(fd, &info))
		die("TWHEEL_IOC_INFO");
	result("M twheel abi %u tick_ns %llu max_timers %llu max_batch %u",
	       info.version, (unsigned long long)info.tick_ns,
	       (unsigned long long)info.max_timers, info.max_batch);
	close(fd);
	result("M slab object_size %lld slab_size %lld objs_per_slab %lld order %lld",
	       bench_read_ll("/sys/kernel/slab/twheel_timer/object_size"),
	       bench_read_ll("/sys/kernel/slab/twheel_timer/slab_size"),
	       bench_read_ll("/sys/kernel/slab/twheel_timer/objs_per_slab"),
	       bench_read_ll("/sys/kernel/slab/twheel_timer/order"));
}

static void usage(void)
{
	fprintf(stderr,
		"usage: twheel-bench [-c root|memcg] [-r REPS] [-n NMAX] [-k KMAX]\n"
		"       [-o OPS] [-l LATE_N] [-m MEM_LIVE] [-w IDLE_TICKS] [-p PHASES]\n"
		"       [-M IDLE_MODES] [-s SEED] -f RESULTS\n"
		"  PHASES: letters c (cost, deadlines in one span), s (cost, spread\n"
		"  deadlines), e (expiry), l (lateness), m (memory), t (shared\n"
		"  timer table: activities, under icount), i (idle timeouts on\n"
		"  the real clock, a window of IDLE_TICKS 1 ms ticks per run;\n"
		"  IDLE_MODES: its modes, comma-separated, default all)\n");
	exit(2);
}

int main(int argc, char **argv)
{
	const char *file = NULL;
	int c;

	t_start = mono_ns();
	while ((c = getopt(argc, argv, "c:r:n:k:o:l:m:w:M:p:s:f:")) != -1) {
		switch (c) {
		case 'c':
			opt.cg = optarg;
			break;
		case 'r':
			opt.reps = atoi(optarg);
			break;
		case 'n':
			opt.nmax = atol(optarg);
			break;
		case 'k':
			opt.kmax = atol(optarg);
			break;
		case 'o':
			opt.ops = atol(optarg);
			break;
		case 'l':
			opt.late_n = atol(optarg);
			break;
		case 'm':
			opt.mem_live = atol(optarg);
			break;
		case 'w':
			opt.idle_ticks = atol(optarg);
			break;
		case 'M':
			opt.idle_modes = optarg;
			break;
		case 'p':
			opt.phases = optarg;
			break;
		case 's':
			opt.seed = strtoull(optarg, NULL, 0);
			break;
		case 'f':
			file = optarg;
			break;
		default:
			usage();
		}
	}
	if (!file || opt.reps < 1 || opt.nmax < 1000 || opt.ops < 1024 ||
	    (strcmp(opt.cg, "root") && strcmp(opt.cg, "memcg")))
		usage();
	results = fopen(file, "a");
	if (!results)
		die("open %s", file);
	raise_limits();
	if (!strcmp(opt.cg, "memcg"))
		enter_cgroup();
	write_file("/proc/sys/kernel/timer_migration", "0", 0);
	pin_cpu0();
	facts();
	check_idle_clock();
	if (strchr(opt.phases, 'm'))
		phase_memory();
	if (strchr(opt.phases, 'l'))
		phase_lateness();
	if (strchr(opt.phases, 'e'))
		phase_expiry();
	if (strchr(opt.phases, 'c'))
		phase_cost(0);
	if (strchr(opt.phases, 's'))
		phase_cost(1);
	if (strchr(opt.phases, 't'))
		phase_table();
	if (strchr(opt.phases, 'i'))
		phase_idle();
	note("done");
	fclose(results);
	return 0;
}
