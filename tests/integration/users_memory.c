// SPDX-License-Identifier: GPL-2.0
/*
 * users_memory: the per-user limits (users.c) as a bound on the kernel
 * memory one user can make twheel hold (memory_bound, below).
 */
#include "users.h"

/* Slab objects carry KASAN's metadata: the debug kernel. */
static int debug_kernel(void)
{
	return twt_sysfs_read("/sys/kernel/slab/twheel_timer/slab_size") !=
	       twt_sysfs_read("/sys/kernel/slab/twheel_timer/object_size");
}

/* The kernel's count of OOM kills (/proc/vmstat oom_kill), or -1. */
static long long oom_kills(void)
{
	long long v = -1;
	char line[128];
	FILE *f = fopen("/proc/vmstat", "r");

	CHECK(f);
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "oom_kill %lld", &v) == 1)
			break;
	fclose(f);
	return v;
}

/*
 * What one user can make the kernel hold, with no memory cgroup to stop
 * them, is bounded by the limits: 8 fds and 100 000 slots (20 000 on the
 * debug kernel) filled by two processes of uid 65534 with one-shot and
 * periodic timers, EMFILE and ENOSPC exactly at the limits; the kernel's
 * Slab + VmallocUsed grew by at most 8 * FD_MAX_BYTES + slots *
 * TIMER_MAX_BYTES (not asserted on the debug kernel, whose KASAN metadata
 * is on top). Root
 * meanwhile allocates and touches 200 MiB (at most a quarter of
 * MemAvailable) without being OOM-killed. Closing gives the memory back
 * (within 10% of the growth, after the caches' empty slabs are shrunk).
 */
static void memory_bound_body(void)
{
	const int debug = debug_kernel();
	const long slots = debug ? 20000 : 100000, per = slots / 8;
	long long before, after, end, bound, hog, oom0, off;
	struct worker a, b;
	int fa[5], fb[3], i, status;
	struct wrep r;
	pid_t pid;
	char *p;

	set_limit(SYSCTL_FDS, 8);
	set_limit(SYSCTL_TIMERS, slots);
	a = worker_start(NOBODY);
	b = worker_start(NOBODY);
	/* Both have answered once: they run as 65534, set up for good. */
	wcall(&a, W_CLOSE, -1, 0, 0);
	wcall(&b, W_CLOSE, -1, 0, 0);
	CHECK_NO_USER(NOBODY);
	shrink_slabs();
	before = kmem_bytes();

	/* 8 fds over two processes; the 9th fails in either. */
	for (i = 0; i < 5; i++)
		fa[i] = wopen(&a);
	for (i = 0; i < 3; i++)
		fb[i] = wopen(&b);
	CHECK_OPEN_FAILS(&a, EMFILE);
	CHECK_OPEN_FAILS(&b, EMFILE);
	/* slots / 8 timers each, one-shot and periodic alternating. */
	for (i = 0; i < 5; i++)
		CHECK_ADDS(&a, fa[i], per, K_MIX);
	for (i = 0; i < 2; i++)
		CHECK_ADDS(&b, fb[i], per, K_MIX);
	/* The last fd: asked for one more than its share, it gets its share. */
	r = wcall(&b, W_ADD, fb[2], per + 1, K_MIX);
	CHECK_EQ(r.ret, per);
	CHECK_EQ(r.err, ENOSPC);
	CHECK_EQ(r.v[0], 1);
	CHECK_EQ(r.v[1], per);
	for (i = 0; i < 5; i++)
		CHECK_ADD_FULL(&a, fa[i], K_PERIODIC, per);
	CHECK_USER(NOBODY, 8, slots);
	CHECK_EQ(wfdinfo(&a, fa[0], "user_timers"), slots);
	CHECK_EQ(wfdinfo(&b, fb[2], "user_fds"), 8);
	after = kmem_bytes();
	bound = 8 * FD_MAX_BYTES + slots * TIMER_MAX_BYTES;
	printf("# memory_bound: 8 fds, %ld timers (half periodic): Slab + VmallocUsed grew %lld bytes (%.1f per timer, fds included), bound %lld%s\n",
	       slots, after - before, (double)(after - before) / slots, bound,
	       debug ? " (not asserted: KASAN)" : "");
	if (!debug)
		CHECK(after - before <= bound);

	/* Root allocates and touches memory meanwhile: no OOM kill. */
	oom0 = oom_kills();
	hog = meminfo("MemAvailable") * 1024 / 4;
	if (hog > 200LL << 20)
		hog = 200LL << 20;
	fflush(stdout);
	pid = fork();
	CHECK(pid >= 0);
	if (!pid) {
		p = malloc(hog);
		if (!p)
			_exit(2);
		for (off = 0; off < hog; off += 4096)
			p[off] = 1;
		_exit(0);
	}
	CHECK_EQ(waitpid(pid, &status, 0), pid);
	printf("# memory_bound: root allocated and touched %lld MiB: %s %d\n",
	       hog >> 20, WIFEXITED(status) ? "exit" : "signal",
	       WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
	CHECK(WIFEXITED(status));
	CHECK_EQ(WEXITSTATUS(status), 0);
	CHECK_EQ(oom_kills(), oom0);
	CHECK_USER(NOBODY, 8, slots);

	/* Closed: the user is gone, the memory back. */
	wcall(&a, W_CLOSE, -1, 0, 0);
	CHECK_USER(NOBODY, 3, 3 * per);
	wcall(&b, W_CLOSE, -1, 0, 0);
	CHECK_NO_USER(NOBODY);
	worker_stop(&a);
	worker_stop(&b);
	shrink_slabs();
	end = kmem_bytes();
	printf("# memory_bound: after closing, Slab + VmallocUsed is %lld bytes from the start (growth was %lld)%s\n",
	       end - before, after - before,
	       debug ? " (not asserted: KASAN's quarantine)" : "");
	if (!debug)
		CHECK(end - before <= (after - before) / 10);
}

static void memory_bound(void) { restoring(memory_bound_body); }

TWT_MAIN("users_memory",
	 TWT_CASE_T(memory_bound, 600))
