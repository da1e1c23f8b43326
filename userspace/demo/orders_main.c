// SPDX-License-Identifier: GPL-2.0
/*
 * twheel-orders: the scaffolding around the demo of orders.c and the
 * tests of orders_manual.c. The command line and main(), which runs one
 * mode (live, manual or sessions: described in those files); the random
 * numbers and the clock they use; and the live demo's statistics and
 * checks: the kernel memory the timers took (a memory cgroup of its own
 * with --cgroup, the twheel_timer slab cache, /proc/meminfo), the
 * lateness of the expiries, and whether every order ended exactly once.
 */
#include <err.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "libtwheel.h"
#include "orders.h"

static uint64_t rnd_state = 0x2545F4914F6CDD1DULL;

uint64_t rnd(void)
{
	uint64_t x = rnd_state;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	rnd_state = x;
	return x * 0x2545F4914F6CDD1DULL;
}

/* Uniform in [lo, hi). */
int64_t rnd_range(int64_t lo, int64_t hi)
{
	return lo + (int64_t)(rnd() % (uint64_t)(hi - lo));
}

int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * TWHEEL_SEC + ts.tv_nsec;
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

/* ---- memory: measured three ways, each said for what it is */

#define CG_ROOT	"/sys/fs/cgroup"
#define CG	CG_ROOT "/twheel-orders"
#define SLAB	"/sys/kernel/slab/twheel_timer"

static long long read_ll(const char *path)
{
	long long v = -1;
	FILE *f = fopen(path, "r");

	if (f) {
		if (fscanf(f, "%lld", &v) != 1)
			v = -1;
		fclose(f);
	}
	return v;
}

static int write_str(const char *path, const char *s)
{
	FILE *f = fopen(path, "w");
	int ret;

	if (!f)
		return -1;
	ret = fputs(s, f) < 0 ? -1 : 0;
	if (fclose(f))
		ret = -1;
	return ret;
}

/* Into a memory cgroup of our own; false (and why) if there is none. */
bool enter_cgroup(void)
{
	char pid[32];

	mkdir(CG_ROOT, 0755);
	if (access(CG_ROOT "/cgroup.controllers", F_OK) &&
	    mount("none", CG_ROOT, "cgroup2", 0, NULL) && errno != EBUSY) {
		warn("mounting cgroup2 on " CG_ROOT);
		return false;
	}
	if (write_str(CG_ROOT "/cgroup.subtree_control", "+memory") ||
	    (mkdir(CG, 0755) && errno != EEXIST)) {
		warn("a memory cgroup under " CG_ROOT);
		return false;
	}
	snprintf(pid, sizeof(pid), "%d", getpid());
	if (write_str(CG "/cgroup.procs", pid)) {
		warn("joining " CG);
		return false;
	}
	return true;
}

static long long cg_slab(void)
{
	long long v, sum = 0;
	char line[256];
	int found = 0;
	FILE *f = fopen(CG "/memory.stat", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "slab_reclaimable %lld", &v) == 1 ||
		    sscanf(line, "slab_unreclaimable %lld", &v) == 1) {
			sum += v;
			found++;
		}
	}
	fclose(f);
	return found == 2 ? sum : -1;
}

static void meminfo(long long *slab_kb, long long *avail_kb)
{
	char line[256];
	FILE *f = fopen("/proc/meminfo", "r");

	*slab_kb = *avail_kb = -1;
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		sscanf(line, "Slab: %lld kB", slab_kb);
		sscanf(line, "MemAvailable: %lld kB", avail_kb);
	}
	fclose(f);
}

void mem_sample(struct mem *m, bool cgroup)
{
	m->cg_slab = cgroup ? cg_slab() : -1;
	m->objects = read_ll(SLAB "/objects");
	meminfo(&m->slab_kb, &m->avail_kb);
}

static void mem_report(const struct mem *a, const struct mem *b, long n)
{
	long long slab_size = read_ll(SLAB "/slab_size");
	const double mib = 1024.0 * 1024.0;

	printf("kernel memory for %ld timers, measured around their scheduling:\n", n);
	if (a->cg_slab >= 0 && b->cg_slab >= 0)
		printf("  memory cgroup of this process (slab charged): %.2f MiB, %.1f bytes per timer (everything: timers, id index, wheel)\n",
		       (b->cg_slab - a->cg_slab) / mib,
		       (double)(b->cg_slab - a->cg_slab) / n);
	else
		printf("  memory cgroup: not measured (run with --cgroup, as root, with cgroup v2)\n");
	if (a->objects >= 0 && b->objects >= 0 && slab_size > 0)
		printf("  slab cache twheel_timer: %+lld objects (as SLUB counts them) x %lld bytes = %.2f MiB (the timer objects alone)\n",
		       b->objects - a->objects, slab_size,
		       (b->objects - a->objects) * slab_size / mib);
	else
		printf("  slab cache twheel_timer: " SLAB " not available\n");
	if (a->slab_kb >= 0 && b->slab_kb >= 0)
		printf("  /proc/meminfo, whole system (approximate): Slab %+.2f MiB, MemAvailable %+.2f MiB\n",
		       (b->slab_kb - a->slab_kb) / 1024.0,
		       (b->avail_kb - a->avail_kb) / 1024.0);
}

/* ---- the live demo's report: the counts, the lateness, the memory */

/* Did every order end exactly once, none early, nothing left on the fd? */
bool live_report(struct live *l, const struct mem *m0, const struct mem *m1)
{
	struct twheel_info info;
	long n = l->n, lost = 0, i;

	for (i = 0; i < n; i++)
		lost += l->o[i].outcomes != 1;
	if (twheel_info(l->fd, &info) < 0)
		err(1, "TWHEEL_IOC_INFO");
	printf("scheduled=%ld\n", n);
	printf("paid=%ld (cancelled in time; %ld of them after the deadline had passed but before its record was read: retracted)\n",
	       l->paid, l->retracted);
	printf("expired=%ld (%ld payments arrived after the expiry had been read: refused)\n",
	       l->expired, l->refused);
	printf("early=%ld (expiries read or queued before the deadline)\n",
	       l->early);
	printf("lost=%ld (orders that did not end exactly once, paid XOR expired)\n",
	       lost);
	if (l->nlate) {
		qsort(l->late, l->nlate, sizeof(*l->late), cmp_i64);
		printf("lateness (read time minus deadline, CLOCK_MONOTONIC): p50 %.3f ms, p99 %.3f ms, max %.3f ms\n",
		       l->late[l->nlate / 2] / 1e6,
		       l->late[l->nlate * 99 / 100] / 1e6,
		       l->late[l->nlate - 1] / 1e6);
	}
	printf("timers left on the fd: %llu, records queued: %llu\n",
	       (unsigned long long)info.timers,
	       (unsigned long long)info.queued);
	mem_report(m0, m1, n);
	return !(l->early || lost || l->twice || info.timers || info.queued);
}

static void __attribute__((noreturn)) usage(int status)
{
	fprintf(status ? stderr : stdout,
		"usage: twheel-orders live [--orders N] [--paid PCT] [--cgroup]\n"
		"       twheel-orders manual [--orders N] [--paid PCT]\n"
		"       twheel-orders sessions [--orders N]\n");
	exit(status);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "orders", required_argument, NULL, 'n' },
		{ "paid", required_argument, NULL, 'p' },
		{ "cgroup", no_argument, NULL, 'c' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	long n = -1;
	int paid = -1, o;
	bool cgroup = false, is_live, is_sessions;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc < 2)
		usage(2);
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))
		usage(0);
	is_live = !strcmp(argv[1], "live");
	is_sessions = !strcmp(argv[1], "sessions");
	if (!is_live && !is_sessions && strcmp(argv[1], "manual"))
		usage(2);
	optind = 2;
	while ((o = getopt_long(argc, argv, "n:p:ch", opts, NULL)) != -1) {
		switch (o) {
		case 'n':
			n = strtol(optarg, NULL, 10);
			if (n < 1 || n > 100000000)
				usage(2);
			break;
		case 'p':
			paid = atoi(optarg);
			if (paid < 0 || paid > 100)
				usage(2);
			break;
		case 'c':
			cgroup = true;
			break;
		case 'h':
			usage(0);
		default:
			usage(2);
		}
	}
	if (optind != argc || (cgroup && !is_live) ||
	    (paid >= 0 && is_sessions))
		usage(2);
	if (is_sessions)
		return sessions(n > 0 ? n : 10000);
	if (is_live)
		return live(n > 0 ? n : 100000, paid >= 0 ? paid : 80, cgroup);
	return manual(n > 0 ? n : 10000, paid >= 0 ? paid : 70);
}
