/* SPDX-License-Identifier: GPL-2.0 */
/*
 * twtest_sys.h - the integration tests' helpers around the system rather
 * than the device (twtest.h, which includes this, has the harness and
 * the ioctl wrappers): fdinfo, guard pages, a seeded random number, the
 * uid, sysfs, a sorted distribution, userfaultfd.
 */
#ifndef TWTEST_SYS_H
#define TWTEST_SYS_H

/*
 * twt_fdinfo(fd, key, &val): the value of "key:\tvalue" in
 * /proc/self/fdinfo/<fd>. Returns 0, or -1 when there is no such line.
 */
static inline int twt_fdinfo(int fd, const char *key, long long *val)
{
	char path[64], line[256], k[128];
	long long v;
	FILE *f;
	int ret = -1;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%127[^:]:\t%lld", k, &v) == 2 &&
		    !strcmp(k, key)) {
			*val = v;
			ret = 0;
			break;
		}
	}
	fclose(f);
	return ret;
}

/*
 * twt_guard_map(len): len bytes (rounded up to pages) of read-write memory
 * followed by one PROT_NONE page. Returns the address of the guard page:
 * (char *)ret - k is k bytes before it.
 */
#define twt_guard_map(len)	twt_guard_map_at(__FILE__, __LINE__, (len))
static inline char *twt_guard_map_at(const char *file, int line, size_t len)
{
	size_t pg = (size_t)sysconf(_SC_PAGESIZE);
	size_t n = (len + pg - 1) / pg * pg;
	char *p;

	p = mmap(NULL, n + pg, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		twt_fail(file, line, "mmap: %s", strerror(errno));
	if (mprotect(p + n, pg, PROT_NONE))
		twt_fail(file, line, "mprotect: %s", strerror(errno));
	return p + n;
}

/* twt_rand(&state): xorshift64*, deterministic per seed (never 0). */
static inline uint64_t twt_rand(uint64_t *s)
{
	uint64_t x = *s;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*s = x;
	return x * 0x2545F4914F6CDD1DULL;
}

/*
 * twt_become(uid): this process drops root for @uid (its gid the same, no
 * supplementary groups), as an unprivileged user of the device would be.
 */
static inline void twt_become(uid_t uid)
{
	CHECK_OK(setgroups(0, NULL));
	CHECK_OK(setgid(uid));
	CHECK_OK(setuid(uid));
}

/* twt_sysfs_read(path): a sysfs integer, or -1. */
static inline long long twt_sysfs_read(const char *path)
{
	long long v = -1;
	FILE *f = fopen(path, "r");

	if (!f)
		return -1;
	if (fscanf(f, "%lld", &v) != 1)
		v = -1;
	fclose(f);
	return v;
}

/* twt_sysfs_write(path, str): 0, or -1 with errno. */
static inline int twt_sysfs_write(const char *path, const char *str)
{
	int fd = open(path, O_WRONLY);
	ssize_t len = (ssize_t)strlen(str), r;
	int e;

	if (fd < 0)
		return -1;
	r = write(fd, str, len);
	e = errno;
	close(fd);
	errno = e;
	return r == len ? 0 : -1;
}

/*
 * twt_trace_no_comm(tracefs): trace events record no task names, from
 * now on and in instances made later (they copy the flag). Recording them
 * hooks sched_switch, so that every enable and disable of an event
 * patches __schedule() while the other vCPU runs it; under QEMU's
 * multi-threaded TCG that cross-modifying patch has hung the guest: an
 * RCU stall in twt-trace, twice in make check; on the PREEMPT_RT kernel
 * in twt-echo10k, one vCPU re-entering the int3 in __schedule() with
 * interrupts off and the other waiting in smp_call_function_many_cond()
 * for its text_poke_sync() IPI, with no twheel module loaded at all (a
 * loop of event enables under a load of 1-byte pipes). Tests match events
 * by their fields (ctx=), never by the task. 0, or -1 with errno.
 */
static inline int twt_trace_no_comm(const char *tracefs)
{
	char path[128];

	snprintf(path, sizeof(path), "%s/options/record-cmd", tracefs);
	return twt_sysfs_write(path, "0");
}

static inline int twt_cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

/*
 * twt_print_dist(label, v, n): sorts v and prints
 * "# <label> n=.. p50=..ms p99=..ms max=..ms" (v in ns).
 */
static inline void twt_print_dist(const char *label, int64_t *v, size_t n)
{
	if (!n) {
		printf("# %s n=0\n", label);
		return;
	}
	qsort(v, n, sizeof(*v), twt_cmp_i64);
	printf("# %s n=%zu min=%.3fms p50=%.3fms p99=%.3fms max=%.3fms\n",
	       label, n, v[0] / 1e6, v[n / 2] / 1e6, v[(n * 99) / 100] / 1e6,
	       v[n - 1] / 1e6);
}

/*
 * twt_uffd(flags, features): a userfaultfd (O_CLOEXEC | flags) with its
 * API handshake done for @features; skips the case where the kernel has
 * none.
 */
#define twt_uffd(flags, features)					\
	twt_uffd_at(__FILE__, __LINE__, (flags), (features))
static inline int twt_uffd_at(const char *file, int line, int flags,
			      uint64_t features)
{
	struct uffdio_api api = { .api = UFFD_API, .features = features };
	int uffd = (int)syscall(SYS_userfaultfd, O_CLOEXEC | flags);

	if (uffd < 0)
		twt_skip("no userfaultfd here");
	if (ioctl(uffd, UFFDIO_API, &api))
		twt_fail(file, line, "UFFDIO_API: %s", strerror(errno));
	return uffd;
}

#endif /* TWTEST_SYS_H */
