// SPDX-License-Identifier: GPL-2.0
/*
 * memory.c - the memory phase of twheel-bench: kernel memory per live
 * twheel timer, for three patterns, each ending with mem_live live timers
 * on a fresh fd (deadlines an hour away, so none expires):
 *
 *	dense:      mem_live adds
 *	churn:      mem_live adds, then 4 * mem_live random operations in
 *		    batches of 64, each an add or a cancel of a random live
 *		    timer with even odds, then adds or cancels to end at
 *		    exactly mem_live
 *	survivor64: mem_live rounds of 64 adds and 63 cancels
 *
 * Counted from just after the fd's first timer (its per-clock wheel is per
 * fd, not per timer) to the end, divided by the live timers added since.
 * Before each reading every slab cache is shrunk (/sys/kernel/slab/x/
 * shrink, as tests/integration/twlimits.h does) and the page cache
 * dropped, so that free room left by earlier runs does not absorb the new
 * timers and the whole-system figures hold as little else as can be:
 *	TW_CACHES_B:  twheel's timer caches (twheel_timer, twheel_ptimer),
 *		      slabs x (PAGE_SIZE << order) from /sys/kernel/slab
 *	INDEX_B:      the fd's id index, fdinfo's index_bytes
 *	MEMCG_B:      in memcg mode, the memory cgroup's slab counters
 *		      (memory.stat slab_reclaimable + slab_unreclaimable);
 *		      -1 in root mode
 *	SLABINFO_B:   the whole of /proc/slabinfo: num_slabs x pagesperslab x
 *		      PAGE_SIZE summed over every cache (what slabtop shows)
 *	SLAB_B, SUNRECLAIM_B, VMALLOC_B: /proc/meminfo's Slab, SUnreclaim,
 *		      VmallocUsed
 *	MEMAVAIL_B:   the fall of /proc/meminfo's MemAvailable (what an
 *		      administrator sees go: every kernel and user page)
 * The whole-system figures include whatever else the guest allocated
 * meanwhile; with 10^5 live timers or more that is a small fraction of a
 * byte per timer.
 */
#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

#include "bench.h"

enum { P_DENSE, P_CHURN, P_SURV, NR_P };
static const char *const p_name[NR_P] = { "dense", "churn", "survivor64" };

struct counters {
	long long caches, index, memcg, slabinfo, slab, sunreclaim, vmalloc,
		  memavail;
};

/* The whole of /proc/slabinfo, in bytes; -1 if absent. */
static long long slabinfo_bytes(void)
{
	char line[512], name[64];
	long long act, num, osz, per, pages, aslabs, nslabs;
	long long v = -1, page = sysconf(_SC_PAGESIZE);
	FILE *f = fopen("/proc/slabinfo", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%63s %lld %lld %lld %lld %lld : tunables %*d %*d %*d : slabdata %lld %lld",
			   name, &act, &num, &osz, &per, &pages, &aslabs,
			   &nslabs) != 8)
			continue;
		v = (v < 0 ? 0 : v) + nslabs * pages * page;
	}
	fclose(f);
	return v;
}

/* A /proc/meminfo field, in bytes. */
static long long meminfo(const char *key)
{
	char line[256];
	size_t len = strlen(key);
	long long v = -1;
	FILE *f = fopen("/proc/meminfo", "r");

	if (!f)
		die("open /proc/meminfo");
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, key, len) && line[len] == ':')
			v = atoll(line + len + 1) * 1024;
	fclose(f);
	if (v < 0)
		die("/proc/meminfo has no %s", key);
	return v;
}

/* The pages a cache holds (partly empty slabs included), or 0. */
static long long cache_bytes(const char *name)
{
	char path[128];
	long long slabs, order;

	snprintf(path, sizeof(path), "/sys/kernel/slab/%s/slabs", name);
	slabs = bench_read_ll(path);
	snprintf(path, sizeof(path), "/sys/kernel/slab/%s/order", name);
	order = bench_read_ll(path);
	return slabs >= 0 && order >= 0 ?
		slabs * (sysconf(_SC_PAGESIZE) << order) : 0;
}

static long long fdinfo_index(int fd)
{
	char path[64], line[256];
	long long v = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	f = fopen(path, "r");
	if (!f)
		die("open %s", path);
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "index_bytes:", 12))
			v = atoll(line + 12);
	fclose(f);
	return v;
}

/* Every cache's empty slabs and per-CPU partial lists back; page cache. */
static void shrink(void)
{
	char path[512];
	struct dirent *e;
	DIR *d = opendir("/sys/kernel/slab");
	FILE *f;

	sync();
	f = fopen("/proc/sys/vm/drop_caches", "w");
	if (f) {
		fputs("3", f);
		fclose(f);
	}
	if (!d)
		return;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/sys/kernel/slab/%s/shrink",
			 e->d_name);
		f = fopen(path, "w");
		if (f) {
			fputs("1", f);
			fclose(f);
		}
	}
	closedir(d);
}

static void sample(int fd, struct counters *c)
{
	shrink();
	c->caches = cache_bytes("twheel_timer") + cache_bytes("twheel_ptimer");
	c->index = fdinfo_index(fd);
	c->memcg = cg_dir ? cg_stat("slab_reclaimable") +
			    cg_stat("slab_unreclaimable") : -1;
	c->slabinfo = slabinfo_bytes();
	c->slab = meminfo("Slab");
	c->sunreclaim = meminfo("SUnreclaim");
	c->vmalloc = meminfo("VmallocUsed");
	/* A fall of MemAvailable is memory used: counted as a rise. */
	c->memavail = -meminfo("MemAvailable");
}

struct mctx {
	int fd;
	uint64_t *live;
	long n;
	struct rng r;
	struct twheel_op ops[64];
};

static void submit(struct mctx *m, int nr)
{
	int i;

	if (twheel_submit(m->fd, m->ops, nr) != nr)
		die("memory: TWHEEL_IOC_SUBMIT");
	for (i = 0; i < nr; i++) {
		if (m->ops[i].error)
			die("memory: op %u error %d", m->ops[i].op,
			    m->ops[i].error);
		if (m->ops[i].op == TWHEEL_OP_ADD)
			m->live[m->n++] = m->ops[i].id;
	}
}

static void put_add(struct mctx *m, int i)
{
	m->ops[i] = (struct twheel_op){
		.op = TWHEEL_OP_ADD,
		.expires_ns = 3600 * NSEC + rng_below(&m->r, 30 * NSEC),
		.clock = CLOCK_MONOTONIC,
	};
}

/* A random live timer, taken out of the live list. */
static void put_cancel(struct mctx *m, int i)
{
	long k = rng_below(&m->r, m->n);

	m->ops[i] = (struct twheel_op){ .op = TWHEEL_OP_CANCEL,
					.id = m->live[k] };
	m->live[k] = m->live[--m->n];
}

static void adds(struct mctx *m, long count)
{
	long i;
	int j;

	for (i = 0; i < count; i += j) {
		for (j = 0; j < 64 && i + j < count; j++)
			put_add(m, j);
		submit(m, j);
	}
}

static void cancels(struct mctx *m, long count)
{
	long i;
	int j;

	for (i = 0; i < count; i += j) {
		for (j = 0; j < 64 && i + j < count; j++)
			put_cancel(m, j);
		submit(m, j);
	}
}

static void pattern(struct mctx *m, int p, long live)
{
	long i;
	int j;

	switch (p) {
	case P_DENSE:
		adds(m, live);
		break;
	case P_CHURN:
		adds(m, live);
		for (i = 0; i < 4 * live; i += 64) {
			for (j = 0; j < 64; j++) {
				if (m->n > 0 && rng_next(&m->r) & 1)
					put_cancel(m, j);
				else
					put_add(m, j);
			}
			submit(m, 64);
		}
		if (m->n < live)
			adds(m, live - m->n);
		else
			cancels(m, m->n - live);
		break;
	case P_SURV:
		for (i = 0; i < live; i++) {
			adds(m, 64);
			/* The last 63 added: cancel all but the first. */
			for (j = 0; j < 63; j++)
				m->ops[j] = (struct twheel_op){
					.op = TWHEEL_OP_CANCEL,
					.id = m->live[--m->n],
				};
			submit(m, 63);
		}
		break;
	}
}

void phase_memory(void)
{
	long live = opt.mem_live;
	struct mctx m;
	char link[256];
	ssize_t len;
	int rep, p;

	len = readlink("/sys/kernel/slab/twheel_timer", link, sizeof(link) - 1);
	if (len > 0) {
		link[len] = 0;
		result("M slab_merged %s", link);
	}
	result("M slabinfo %s", access("/proc/slabinfo", R_OK) ? "absent" :
	       "present");
	memset(&m, 0, sizeof(m));
	/* Allocated and touched once: user pages are not counted below. */
	m.live = xcalloc(6 * live + 128, sizeof(*m.live));
	memset(m.live, 1, (6 * live + 128) * sizeof(*m.live));
	for (rep = 0; rep < opt.reps; rep++) {
		for (p = 0; p < NR_P; p++) {
			struct counters a, b;
			int64_t t0 = mono_ns();

			m.r = rng_make(live, rep, 6 + p);
			m.n = 0;
			m.fd = twheel_open(O_CLOEXEC);
			if (m.fd < 0)
				die("twheel_open");
			adds(&m, 1);
			m.n = 0;
			sample(m.fd, &a);
			pattern(&m, p, live);
			sample(m.fd, &b);
			if (m.n != live)
				die("memory: %ld live, expected %ld", m.n, live);
#define PER(f) (a.f != -1 && b.f != -1 ? (double)(b.f - a.f) / live : -1.0)
			result("R mem %s %s %ld %d %.2f %.2f %.2f %.2f %.2f %.2f %.2f %.2f",
			       opt.cg, p_name[p], live, rep, PER(caches),
			       PER(index), PER(memcg), PER(slabinfo), PER(slab),
			       PER(sunreclaim), PER(vmalloc), PER(memavail));
#undef PER
			close(m.fd);
			note("memory: %s rep %d: %.1fs", p_name[p], rep,
			     (mono_ns() - t0) / 1e9);
		}
	}
	free(m.live);
}
