// SPDX-License-Identifier: GPL-2.0
/*
 * memory: what a timer costs in kernel memory, measured two ways, and
 * that the cost is charged to the caller's memory cgroup.
 *
 * 1. The memory cgroup: this process moves into a fresh cgroup v2 group;
 *    the growth of its slab counters (memory.stat) while it schedules
 *    N timers, divided by N, is every byte the timers cost: the timer
 *    objects, the id table (an 8-byte slot per timer, in pages),
 *    partially filled slab pages.
 * 2. The slab cache: /sys/kernel/slab/twheel_timer/{slab_size,...}: the
 *    bytes one timer object occupies, page overhead included.
 *
 * The id table's size, as fdinfo reports it (index_bytes), is exact: its
 * first page starts at 32 slots (256 bytes) and doubles up to a page
 * (512 slots), then whole pages are added, with an array of page pointers
 * that doubles from 1 (kmod/twheel_ids.c); the slots of ended timers are
 * kept and reused (fdinfo's slots: the most timers the fd held at once).
 * (An fd's own memory, with its wheels, is measured by fdmem.c.)
 *
 * On a kernel with slab debugging or KASAN (the debug test kernel) objects
 * carry red zones and metadata, so the 64-byte bound is asserted only where
 * slab_size equals object_size; the charging to the cgroup is asserted on
 * every kernel.
 */
#include <fcntl.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>

#include <linux/twheel.h>

#include "twtest.h"

/*
 * Timers measured: 100 000 where the bound is asserted; 20 000 under slab
 * debugging, where an add is 30 times slower and only the charge counts.
 */
#define N_PLAIN 100000
#define N_DEBUG 20000
#define CG "/sys/fs/cgroup"

static long long memstat(const char *key)
{
	char line[256];
	size_t len = strlen(key);
	long long v = -1;
	FILE *f = fopen(CG "/twt-memory/memory.stat", "r");

	CHECK(f);
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, key, len) && line[len] == ' ')
			v = atoll(line + len + 1);
	fclose(f);
	CHECK(v >= 0);
	return v;
}

static void write_str(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY);

	CHECK_OK(fd);
	CHECK_EQ(write(fd, s, strlen(s)), (long long)strlen(s));
	close(fd);
}

static void enter_cgroup(void)
{
	char pid[32];

	mkdir(CG, 0755);
	if (mount("none", CG, "cgroup2", 0, NULL) < 0)
		CHECK(errno == EBUSY);
	write_str(CG "/cgroup.subtree_control", "+memory");
	if (mkdir(CG "/twt-memory", 0755) < 0)
		CHECK(errno == EEXIST);
	snprintf(pid, sizeof(pid), "%d", getpid());
	write_str(CG "/twt-memory/cgroup.procs", pid);
}

static void add_timers(int fd, int n)
{
	struct twheel_add req;
	int i;

	for (i = 0; i < n; i++) {
		memset(&req, 0, sizeof(req));
		req.cookie = i;
		/* An hour away, spread over a second: all stay pending. */
		req.expires_ns = 3600LL * 1000000000 + (long long)i * 10000;
		req.clock = CLOCK_MONOTONIC;
		CHECK_OK(ioctl(fd, TWHEEL_IOC_ADD, &req));
	}
}

static void bytes_per_timer(void)
{
	long long objsize, slabsize, per_slab, order, before, after;
	double cg_bytes, slab_bytes;
	int fd, debug, n;

	objsize = twt_sysfs_read("/sys/kernel/slab/twheel_timer/object_size");
	slabsize = twt_sysfs_read("/sys/kernel/slab/twheel_timer/slab_size");
	per_slab = twt_sysfs_read("/sys/kernel/slab/twheel_timer/objs_per_slab");
	order = twt_sysfs_read("/sys/kernel/slab/twheel_timer/order");
	CHECK(objsize > 0 && slabsize > 0 && per_slab > 0 && order >= 0);
	slab_bytes = (double)(4096LL << order) / per_slab;
	debug = slabsize != ((objsize + 7) & ~7LL);
	/*
	 * Only slab debugging or KASAN (the debug kernel, the one with
	 * kmemleak) may add to an object: on the others a timer takes its
	 * 40 bytes, whatever keeps the cache apart from the others.
	 */
	if (access("/sys/kernel/debug/kmemleak", F_OK))
		CHECK_EQ(debug, 0);
	n = debug ? N_DEBUG : N_PLAIN;

	enter_cgroup();
	fd = open("/dev/twheel", O_RDWR);
	CHECK_OK(fd);
	/*
	 * The clock's wheel, its first level and the id table's first slots
	 * come with the first add: not per timer.
	 */
	add_timers(fd, 1);
	before = memstat("slab_unreclaimable") + memstat("slab_reclaimable");
	add_timers(fd, n);
	after = memstat("slab_unreclaimable") + memstat("slab_reclaimable");
	cg_bytes = (double)(after - before) / n;

	printf("# memory: object_size %lld, slab_size %lld, %lld per %lld-byte slab: %.1f bytes per object%s\n",
	       objsize, slabsize, per_slab, 4096LL << order, slab_bytes,
	       debug ? " (slab debugging/KASAN metadata present)" : "");
	printf("# memory: memory cgroup slab growth for %d timers: %lld bytes, %.1f bytes per timer\n",
	       n, after - before, cg_bytes);

	/* Charged to the caller: at least the objects themselves. */
	CHECK(cg_bytes >= (double)objsize);
	if (!debug) {
		CHECK_EQ(objsize, 40);
		CHECK(slab_bytes <= 41.0);
		CHECK(cg_bytes <= 64.0);
	}
	close(fd);
}

/*
 * One survivor in 64: add 64 timers, cancel 63 of them, again and again.
 * Ids are never reused, but the index reuses the slots of cancelled
 * timers: its memory (fdinfo's index_bytes) and the cgroup's charge per
 * live timer stay what they are for the dense pattern.
 */
static void sparse_bytes_per_timer(void)
{
	long long before, after, idx;
	int fd, debug, rounds, r, i;
	double cg_bytes;

	debug = twt_sysfs_read("/sys/kernel/slab/twheel_timer/slab_size") !=
		twt_sysfs_read("/sys/kernel/slab/twheel_timer/object_size");
	rounds = debug ? 2000 : 20000;
	enter_cgroup();
	fd = open("/dev/twheel", O_RDWR);
	CHECK_OK(fd);
	add_timers(fd, 1);
	before = memstat("slab_unreclaimable") + memstat("slab_reclaimable");
	for (r = 0; r < rounds; r++) {
		uint64_t ids[64];

		for (i = 0; i < 64; i++)
			ids[i] = twt_add_rel(fd, i, 3600 * TWT_S + r);
		for (i = 1; i < 64; i++)
			twt_cancel(fd, ids[i]);
	}
	after = memstat("slab_unreclaimable") + memstat("slab_reclaimable");
	CHECK_OK(twt_fdinfo(fd, "index_bytes", &idx));
	CHECK_EQ(twt_timers(fd), rounds + 1);
	cg_bytes = (double)(after - before) / rounds;
	printf("# memory: one survivor in 64, %d rounds: %.1f bytes per live timer charged, index %lld bytes (%.2f per live timer)\n",
	       rounds, cg_bytes, idx, (double)idx / (rounds + 1));
	/* A slot of 8 bytes per live timer, plus its pages' rounding. */
	CHECK((double)idx / (rounds + 1) <= 8.0 + 2 * 4096.0 / rounds);
	if (!debug)
		CHECK(cg_bytes <= 64.0);
	close(fd);
}

/* The kernel's whole slab, in bytes (Slab: in /proc/meminfo). */
static long long global_slab(void)
{
	char line[128];
	long long kb = -1;
	FILE *f = fopen("/proc/meminfo", "r");

	CHECK(f);
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Slab: %lld kB", &kb) == 1)
			break;
	fclose(f);
	CHECK(kb >= 0);
	return kb * 1024;
}

/*
 * A memory cgroup with little room: adding timers, densely or one
 * survivor in 64, ends in ENOMEM (the cap, ENOSPC, is far away), the
 * process is not killed, and the cgroup was charged for everything the
 * kernel allocated (its slab grew no more than the charge, within the
 * allocator's own bookkeeping). After ENOMEM the fd is intact.
 */
static void limit_case(int sparse)
{
	long long cur, charge0, slab0, charge, slab;
	int fd, maxfd, debug, i, err = 0;
	long added = 0, live = 0;
	char buf[32];

	debug = twt_sysfs_read("/sys/kernel/slab/twheel_timer/slab_size") !=
		twt_sysfs_read("/sys/kernel/slab/twheel_timer/object_size");
	enter_cgroup();
	fd = open("/dev/twheel", O_RDWR);
	CHECK_OK(fd);
	add_timers(fd, 1);
	live = 1;
	/* Warm up what the measurement below uses (stdio buffers, heap). */
	CHECK(global_slab() > 0);
	cur = twt_sysfs_read(CG "/twt-memory/memory.current");
	CHECK(cur > 0);
	snprintf(buf, sizeof(buf), "%lld", cur + (debug ? 256 : 2048) * 1024LL);
	/* Opened now: at the limit, an open() would call the OOM killer. */
	maxfd = open(CG "/twt-memory/memory.max", O_WRONLY);
	CHECK_OK(maxfd);
	CHECK_EQ(write(maxfd, buf, strlen(buf)), (ssize_t)strlen(buf));
	charge0 = twt_sysfs_read(CG "/twt-memory/memory.current");
	slab0 = global_slab();
	while (!err) {
		int n = sparse ? 64 : 1, k;
		uint64_t ids[64];

		for (k = 0; k < n; k++) {
			struct twheel_add a = { .cookie = added,
						.expires_ns = 3600 * TWT_S,
						.clock = CLOCK_MONOTONIC };

			if (ioctl(fd, TWHEEL_IOC_ADD, &a)) {
				err = errno;
				break;
			}
			ids[k] = a.id;
			added++;
			live++;
		}
		/* One survivor per round. */
		for (i = 1; sparse && i < k; i++) {
			twt_cancel(fd, ids[i]);
			live--;
		}
	}
	/*
	 * Lift the limit before anything here may fault in a page: a page
	 * fault at the limit would call the cgroup's OOM killer on us.
	 */
	CHECK_EQ(write(maxfd, "max", 3), 3);
	close(maxfd);
	charge = twt_sysfs_read(CG "/twt-memory/memory.current") - charge0;
	slab = global_slab() - slab0;
	printf("# memory: %s pattern: %s after %ld adds, %ld live; charged %lld bytes, kernel slab grew %lld bytes (%.1f and %.1f per live timer)\n",
	       sparse ? "sparse" : "dense", strerror(err), added, live, charge,
	       slab, (double)charge / live, (double)slab / live);
	CHECK_EQ(err, ENOMEM);
	/*
	 * The charge covers what was allocated, within 25% + 256 KiB. Not
	 * under KASAN and kmemleak (the debug kernel): their own metadata
	 * and quarantine grow the slab for every allocation, uncharged.
	 */
	if (!debug)
		CHECK(slab <= charge + charge / 4 + 256 * 1024);
	/* Nothing half-done: every successful add is there. */
	CHECK_EQ(twt_timers(fd), live);
	twt_add_rel(fd, 1, TWT_S);
	CHECK_EQ(twt_timers(fd), live + 1);
	close(fd);
}

/*
 * fdinfo's index_bytes for an fd that has had @slots slots: 0 before the
 * first; 32 slots doubled up to 512 in the first page, then pages of 512
 * slots; plus the array of page pointers (one, then doubled as needed).
 */
static long long index_bytes_for(long long slots)
{
	long long first = 32, pages, ptrs = 1;

	if (!slots)
		return 0;
	if (slots <= 512) {
		while (first < slots)
			first *= 2;
		return first * 8 + 8;
	}
	pages = (slots + 511) / 512;
	while (ptrs < pages)
		ptrs *= 2;
	return pages * 4096 + ptrs * 8;
}

#define CHECK_INDEX(fd, n) do {						\
	long long _v;							\
									\
	CHECK_OK(twt_fdinfo((fd), "slots", &_v));			\
	CHECK_EQ(_v, (n));						\
	CHECK_OK(twt_fdinfo((fd), "index_bytes", &_v));			\
	CHECK_EQ(_v, index_bytes_for(n));				\
} while (0)

/*
 * The id table, exactly: index_bytes and slots after each add around every
 * step of its growth (32, 64, ... 512 slots in the first page, then every
 * page); cancelling every timer keeps both; as many adds again reuse the
 * slots (no growth), one more grows it by one slot.
 */
static void index_bytes_exact(void)
{
	static uint64_t ids[2600];
	int fd = twt_open(0), n = 0, k;
	long long v;

	CHECK_INDEX(fd, 0);
	while (n < 2600) {
		ids[n] = twt_add_rel(fd, n, 3600 * TWT_S);
		n++;
		/* Around each boundary: 32..512 doubling, then 512 * k. */
		for (k = 32; k <= 512; k *= 2)
			if (n >= k - 1 && n <= k + 1)
				CHECK_INDEX(fd, n);
		if (n > 512 && (n % 512 <= 1 || n % 512 == 511))
			CHECK_INDEX(fd, n);
	}
	CHECK_INDEX(fd, 2600);
	printf("# memory: id table of %d slots: %lld bytes\n", n,
	       index_bytes_for(n));
	/* The fd's slots are its user's (root holds no other twheel fd). */
	CHECK_OK(twt_fdinfo(fd, "user_timers", &v));
	CHECK_EQ(v, 2600);
	for (k = 0; k < 2600; k++)
		twt_cancel(fd, ids[k]);
	CHECK_EQ(twt_timers(fd), 0);
	CHECK_INDEX(fd, 2600);
	for (k = 0; k < 2600; k++)
		twt_add_rel(fd, k, 3600 * TWT_S);
	CHECK_INDEX(fd, 2600);
	twt_add_rel(fd, k, 3600 * TWT_S);
	CHECK_INDEX(fd, 2601);
	CHECK_EQ(twt_timers(fd), 2601);
	close(fd);
}

static void limit_dense(void) { limit_case(0); }
static void limit_sparse(void) { limit_case(1); }

TWT_MAIN("memory",
	 TWT_CASE_T(bytes_per_timer, 300),
	 TWT_CASE_T(sparse_bytes_per_timer, 300),
	 TWT_CASE_T(index_bytes_exact, 300),
	 TWT_CASE_T(limit_dense, 300),
	 TWT_CASE_T(limit_sparse, 300))
