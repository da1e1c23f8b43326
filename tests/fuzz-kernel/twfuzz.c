// SPDX-License-Identifier: GPL-2.0
/*
 * twfuzz.c - a randomized fuzzer of /dev/twheel with an oracle, run in the
 * test VM (static, no libc there). This file is its driver: the options,
 * the processes and their threads, the summary.
 *
 *   twfuzz [-s SEED] [-t SECONDS] [-j PROCS] [-T THREADS] [-v]
 *
 * (-v: per-process counts.)
 *
 * Several processes, each with several threads, issue random valid and
 * invalid calls for SECONDS. Even-numbered processes are "strict"
 * (twfuzz_strict.c), odd-numbered ones "chaos" (twfuzz_chaos.c).
 *
 * Output: "#" lines (seed, the counts of each kind of operation, records,
 * timers, early/lost/duplicate/violations), TAP lines "ok fuzz-kernel/..."
 * and exit status 0 when all passed. The threads interleave with real
 * time, so a seed does not replay a run exactly; it does replay each
 * thread's choices.
 *
 * The other files: twfuzz.h (what they share); twfuzz_util.c (helpers,
 * the operation log, violations); twfuzz_args.c (argument memory, random
 * values); twfuzz_model.c (the shadow of a strict fd); twfuzz_check.c
 * (results against the shadow); twfuzz_ops.c, twfuzz_submit.c,
 * twfuzz_events.c, twfuzz_abi.c (the strict operations); twfuzz_strict.c
 * (a strict thread); twfuzz_chaos.c and twfuzz_table.c (a chaos thread).
 */
#include "twfuzz.h"

static const char *const kind_name[K_NKINDS] = {
	"info", "add", "cancel", "modify", "query", "list", "submit",
	"config", "advance", "read", "poll", "epoll", "badcmd", "sizes",
	"open", "close", "dup", "fork", "wake", "table",
};

u64 g_seed;
static int g_seconds = 60, g_procs = 4, g_threads = 3, g_verbose;
s64 g_end_ns;	/* CLOCK_MONOTONIC */
size_t g_pg;
static struct stats *g_stats;
int g_shared[2] = { -1, -1 };
int g_tab[NTAB];		/* chaos: the process's fd slots */

const clockid_t g_clocks[NCLK] = {
	CLOCK_MONOTONIC, CLOCK_BOOTTIME, CLOCK_REALTIME, CLOCK_TAI,
	CLOCK_REALTIME_ALARM, CLOCK_BOOTTIME_ALARM
};
/*
 * The clocks valid_clock() picks from: all six for root (CAP_WAKE_ALARM,
 * which the alarm clocks need: EPERM without), the first four otherwise.
 */
int g_nclk = NCLK;

static void on_signal(int sig)
{
	(void)sig;
}

/* A crash of the fuzzer itself: where (addr2line -e twfuzz ADDR...). */
static void on_crash(int sig, siginfo_t *si, void *uc)
{
	void *bt[32];
	int n = backtrace(bt, 32);

	(void)uc;
	out("# twfuzz crashed: signal %d at %p; backtrace:\n", sig, si->si_addr);
	backtrace_symbols_fd(bt, n, 1);
	signal(sig, SIG_DFL);
	raise(sig);
}

/* ------------------------------------------------------------------ */
/* Processes */

static int run_process(int proc)
{
	struct th *ths;
	bool chaos = g_procs > 1 && (proc % 2 == 1);
	struct sigaction sa;
	u64 x;
	int i;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;	/* no SA_RESTART: blocked calls EINTR */
	sigaction(SIGUSR1, &sa, NULL);
	sigaction(SIGALRM, &sa, NULL);
	sa.sa_handler = NULL;
	sa.sa_sigaction = on_crash;
	sa.sa_flags = SA_SIGINFO | SA_RESETHAND;
	sigaction(SIGSEGV, &sa, NULL);
	sigaction(SIGBUS, &sa, NULL);
	sigaction(SIGABRT, &sa, NULL);
	ths = calloc(g_threads, sizeof(*ths));
	if (!ths)
		return 2;
	for (i = 0; i < NTAB; i++)
		g_tab[i] = -1;
	if (chaos) {
		g_tab[0] = g_shared[0];
		g_tab[1] = g_shared[1];
	}
	x = g_seed ^ ((u64)proc << 32);
	for (i = 0; i < g_threads; i++) {
		ths[i].proc = proc;
		ths[i].idx = i;
		ths[i].chaos = chaos;
		ths[i].st = &g_stats[proc];
		ths[i].rs = splitmix(&x) | 1;
		/*
		 * Before any thread opens or closes: a stale number of the
		 * table is then never one of these.
		 */
		ths[i].epfd = epoll_create1(EPOLL_CLOEXEC);
	}
	for (i = 0; i < g_threads; i++) {
		if (pthread_create(&ths[i].tid, NULL,
				   chaos ? chaos_main : strict_main, &ths[i])) {
			out("# pthread_create: %s\n", strerror(errno));
			return 2;
		}
	}
	if (chaos) {
		/* Interrupt blocked reads and polls now and then. */
		uint64_t rs = g_seed ^ 0xabcdef ^ proc;

		while (!time_up()) {
			twt_sleep_ns(20 * MS + twt_rand(&rs) % (80 * MS));
			for (i = 0; i < g_threads; i++)
				pthread_kill(ths[i].tid, SIGUSR1);
		}
		/* Until every thread is out of a blocking call. */
		for (i = 0; i < g_threads; i++) {
			struct timespec until;

			for (;;) {
				int k;

				clock_gettime(CLOCK_REALTIME, &until);
				until.tv_nsec += 50 * MS;
				if (until.tv_nsec >= S) {
					until.tv_sec++;
					until.tv_nsec -= S;
				}
				if (!pthread_timedjoin_np(ths[i].tid, NULL, &until))
					break;
				for (k = 0; k < g_threads; k++)
					pthread_kill(ths[k].tid, SIGUSR1);
			}
		}
	} else {
		for (i = 0; i < g_threads; i++)
			pthread_join(ths[i].tid, NULL);
	}
	__atomic_store_n(&g_stats[proc].done, 1, __ATOMIC_RELAXED);
	return 0;
}

static bool handshake(void)
{
	struct twheel_info in;
	int fd = open(TWT_DEV, O_RDWR | O_CLOEXEC);

	if (fd < 0) {
		out("# open %s: %s\n", TWT_DEV, strerror(errno));
		return false;
	}
	memset(&in, 0, sizeof(in));
	if (ioctl(fd, TWHEEL_IOC_INFO, &in)) {
		out("# INFO: %s\n", strerror(errno));
		close(fd);
		return false;
	}
	close(fd);
	out("# module: ABI version %u, record %u, op %u, status %u bytes, "
	    "max_timers %llu\n", in.version, in.event_size, in.op_size,
	    in.status_size, in.max_timers);
	return in.version == TWHEEL_ABI_VERSION && in.event_size == EV &&
	       in.op_size == sizeof(struct twheel_op) &&
	       in.status_size == sizeof(struct twheel_status);
}

static void usage(void)
{
	out("usage: twfuzz [-s SEED] [-t SECONDS] [-j PROCS] [-T THREADS] [-v]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	struct stats sum;
	pid_t *pids;
	bool seeded = false, hang = false, crashed = false;
	long long old_param;
	int failed = 0, c, i, k;
	char val[32];
	struct timespec ts;
	s64 t_start;

	setvbuf(stdout, NULL, _IONBF, 0);
	while ((c = getopt(argc, argv, "s:t:j:T:v")) != -1) {
		switch (c) {
		case 's':
			g_seed = strtoull(optarg, NULL, 0);
			seeded = true;
			break;
		case 't':
			g_seconds = atoi(optarg);
			break;
		case 'j':
			g_procs = atoi(optarg);
			break;
		case 'T':
			g_threads = atoi(optarg);
			break;
		case 'v':
			g_verbose = 1;
			break;
		default:
			usage();
		}
	}
	if (g_seconds < 1 || g_procs < 1 || g_procs > 64 || g_threads < 1 ||
	    g_threads > 32)
		usage();
	if (!seeded) {
		clock_gettime(CLOCK_REALTIME, &ts);
		g_seed = ((u64)ts.tv_sec << 20) ^ ts.tv_nsec ^
			 ((u64)getpid() << 40);
	}
	g_pg = sysconf(_SC_PAGESIZE);
	/* The alarm clocks need CAP_WAKE_ALARM: root's. */
	if (geteuid() != 0)
		g_nclk = 4;
	out("# twfuzz: seed %#llx seconds %d procs %d threads %d "
	    "(rerun: twfuzz -s %#llx -t %d -j %d -T %d)\n", g_seed,
	    g_seconds, g_procs, g_threads, g_seed, g_seconds, g_procs, g_threads);
	if (!handshake()) {
		out("not ok %s/handshake\n", PROG);
		return 1;
	}
	out("ok %s/handshake\n", PROG);

	/* Every fd opened from now on: at most 8192 timers (memory). */
	old_param = twt_sysfs_read(PARAM);
	twt_sysfs_write(PARAM, "8192");
	g_shared[0] = open(TWT_DEV, O_RDWR | O_NONBLOCK);
	g_shared[1] = open(TWT_DEV, O_RDWR | O_NONBLOCK);
	if (g_shared[0] < 0 || g_shared[1] < 0 ||
	    twt_config_raw(g_shared[1], 10 * TWHEEL_MIN_TICK_NS,
			   TWHEEL_CONFIG_MANUAL)) {
		out("# shared fds: %s\n", strerror(errno));
		return 1;
	}
	g_stats = mmap(NULL, sizeof(*g_stats) * g_procs, PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	pids = calloc(g_procs, sizeof(*pids));
	if (g_stats == MAP_FAILED || !pids)
		return 2;
	memset(g_stats, 0, sizeof(*g_stats) * g_procs);
	t_start = mono();
	g_end_ns = t_start + (s64)g_seconds * S;
	for (i = 0; i < g_procs; i++) {
		pids[i] = fork();
		if (pids[i] < 0) {
			out("# fork: %s\n", strerror(errno));
			return 2;
		}
		if (pids[i] == 0)
			_exit(run_process(i));
	}
	close(g_shared[0]);
	close(g_shared[1]);

	/* Wait, with a generous bound for the end-of-run drains. */
	for (k = 0; k < g_procs; ) {
		int status;
		pid_t p = waitpid(-1, &status, WNOHANG);

		if (p > 0) {
			for (i = 0; i < g_procs; i++)
				if (pids[i] == p)
					break;
			if (i < g_procs &&
			    (!WIFEXITED(status) || WEXITSTATUS(status))) {
				out("# process %d: %s %d\n", i,
				    WIFSIGNALED(status) ? "killed by signal" :
				    "exit status", WIFSIGNALED(status) ?
				    WTERMSIG(status) : WEXITSTATUS(status));
				crashed = true;
			}
			k++;
			continue;
		}
		if (mono() > g_end_ns + 300 * S) {
			out("# processes still running 300 s after the end: "
			    "killed (a blocked call?)\n");
			for (i = 0; i < g_procs; i++)
				kill(pids[i], SIGKILL);
			hang = true;
			while (waitpid(-1, NULL, 0) > 0)
				;
			break;
		}
		twt_sleep_ms(100);
	}
	if (old_param > 0) {
		snprintf(val, sizeof(val), "%lld", old_param);
		twt_sysfs_write(PARAM, val);
	}

	memset(&sum, 0, sizeof(sum));
	for (i = 0; i < g_procs; i++) {
		u64 *a = (u64 *)&sum, *b = (u64 *)&g_stats[i];

		for (k = 0; k < (int)(sizeof(sum) / sizeof(u64)); k++)
			a[k] += b[k];
		if (g_verbose)
			out("# process %d (%s): add %llu read %llu"
			    " records %llu created %llu\n", i,
			    g_procs > 1 && i % 2 ? "chaos" : "strict",
			    g_stats[i].ops[K_ADD], g_stats[i].ops[K_READ],
			    g_stats[i].records + g_stats[i].chaos_records,
			    g_stats[i].created);
	}
	{
		char line[1024];
		int len = 0;
		u64 total = 0;

		for (k = 0; k < K_NKINDS; k++) {
			len += snprintf(line + len, sizeof(line) - len, " %s %llu",
					kind_name[k], sum.ops[k]);
			total += sum.ops[k];
		}
		out("# %.0f s, %llu operations:%s\n",
		    (mono() - t_start) / 1e9, total, line);
	}
	out("# expected failures (documented errno) %llu, bad pointers %"
	    "llu, exact model checks %llu\n", sum.invalid,
	    sum.faults, sum.exact_checks);
	out("# strict: timers created %llu (real clocks %llu), records read "
	    "%llu (real clocks %llu, periodic %llu); ended by read %llu, "
	    "by cancel %llu, by close %llu\n", sum.created,
	    sum.real_created, sum.records, sum.real_records,
	    sum.periodic_records, sum.ended_read, sum.ended_cancel,
	    sum.ended_close);
	out("# chaos: timers created %llu, records read %llu; tables mapped "
	    "%llu, entries stored %llu\n", sum.chaos_created,
	    sum.chaos_records, sum.table_maps, sum.table_stores);
	out("# early %llu lost %llu duplicate %llu"
	    " oracle violations %llu errno violations %llu\n",
	    sum.early, sum.lost, sum.dup, sum.oracle, sum.errno_bad);

#define TAP(cond, name) do {						\
	bool _ok = (cond);						\
	out("%s %s/%s\n", _ok ? "ok" : "not ok", PROG, (name));		\
	failed += !_ok;							\
} while (0)
	for (i = 0, k = 0; i < g_procs; i++)
		k += !g_stats[i].done;
	TAP(!hang && !crashed && !k, "processes_finished");
	TAP(sum.early == 0, "no_early");
	TAP(sum.lost == 0, "no_lost");
	TAP(sum.dup == 0, "no_duplicate");
	TAP(sum.oracle == 0, "oracle");
	TAP(sum.errno_bad == 0, "documented_errnos");
	/* Every timer of a strict fd ended exactly once. */
	TAP(sum.created == sum.ended_read + sum.ended_cancel + sum.ended_close,
	    "every_timer_ends_once");
	{
		bool all = sum.created > 0 && sum.records > 0;

		for (k = 0; k < K_NKINDS; k++)
			if (!sum.ops[k] && !(k == K_FORK && g_procs < 2))
				all = false;
		TAP(all, "every_kind_ran");
	}
	if (failed)
		out("# FAILED: seed %#llx (twfuzz -s %#llx -t %d -j "
		    "%d -T %d)\n", g_seed, g_seed, g_seconds, g_procs, g_threads);
	return failed ? 1 : 0;
}
