// SPDX-License-Identifier: GPL-2.0
/*
 * prof_sampler.c - twheel-prof's sampler (prof_sampler.h): a software
 * CPU-clock perf event sampling instruction pointers into a mapped ring,
 * drained between operations, each kernel address counted against the
 * text symbol at or below it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "prof_sampler.h"

#define RING_PAGES	512	/* a power of two, as perf requires */

struct sym {
	uint64_t addr;
	char *name;
	long hits;
};

static struct sym *syms;
static size_t nsyms;
static long samples, user_samples, unknown_samples;
void die(const char *what)
{
	fprintf(stderr, "twheel-prof: %s: %s\n", what, strerror(errno));
	exit(1);
}

static int by_addr(const void *a, const void *b)
{
	const struct sym *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static int by_hits(const void *a, const void *b)
{
	const struct sym *x = a, *y = b;

	return (y->hits > x->hits) - (y->hits < x->hits);
}

/* The text symbols of /proc/kallsyms, sorted by address. */
void load_kallsyms(void)
{
	FILE *f = fopen("/proc/kallsyms", "r");
	char line[512], name[384], mod[128];
	unsigned long long addr;
	size_t cap = 0;
	char type;
	int k;

	if (!f)
		die("/proc/kallsyms");
	while (fgets(line, sizeof(line), f)) {
		mod[0] = 0;
		k = sscanf(line, "%llx %c %255s %127s", &addr, &type, name, mod);
		if (k < 3 || !addr || !strchr("tTwW", type))
			continue;
		if (nsyms == cap) {
			cap = cap ? 2 * cap : 1 << 16;
			syms = realloc(syms, cap * sizeof(*syms));
			if (!syms)
				die("realloc");
		}
		syms[nsyms].addr = addr;
		syms[nsyms].hits = 0;
		strncat(name, mod, sizeof(name) - strlen(name) - 1);
		syms[nsyms].name = strdup(name);
		if (!syms[nsyms].name)
			die("strdup");
		nsyms++;
	}
	fclose(f);
	if (!nsyms) {
		errno = EPERM;
		die("no addresses in /proc/kallsyms (kptr_restrict?)");
	}
	qsort(syms, nsyms, sizeof(*syms), by_addr);
}

static void count(uint64_t ip)
{
	size_t lo = 0, hi = nsyms;

	samples++;
	if (ip < 0x8000000000000000ULL) {
		user_samples++;
		return;
	}
	if (ip < syms[0].addr) {
		unknown_samples++;
		return;
	}
	while (hi - lo > 1) {
		size_t mid = (lo + hi) / 2;

		if (syms[mid].addr <= ip)
			lo = mid;
		else
			hi = mid;
	}
	syms[lo].hits++;
}

void sampler_open(struct sampler *s, uint64_t period, int cpu0)
{
	struct perf_event_attr a = {
		.type = PERF_TYPE_SOFTWARE,
		.size = sizeof(a),
		.config = PERF_COUNT_SW_CPU_CLOCK,
		.sample_period = period,
		.sample_type = PERF_SAMPLE_IP,
		.disabled = 1,
		.exclude_hv = 1,
	};
	size_t pg = sysconf(_SC_PAGESIZE);

	s->fd = cpu0 ?
		syscall(SYS_perf_event_open, &a, -1, 0, -1, 0) :
		syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
	if (s->fd < 0)
		die("perf_event_open");
	s->size = RING_PAGES * pg;
	s->page = mmap(NULL, s->size + pg, PROT_READ | PROT_WRITE, MAP_SHARED,
		       s->fd, 0);
	if (s->page == MAP_FAILED)
		die("mmap of the perf ring");
	s->data = (char *)s->page + pg;
	s->tail = 0;
}

void sampler_on(struct sampler *s, int on)
{
	if (ioctl(s->fd, on ? PERF_EVENT_IOC_ENABLE : PERF_EVENT_IOC_DISABLE,
		  0))
		die("PERF_EVENT_IOC_ENABLE/DISABLE");
}

void sampler_drain(struct sampler *s)
{
	uint64_t head = __atomic_load_n(&s->page->data_head, __ATOMIC_ACQUIRE);

	while (s->tail < head) {
		struct perf_event_header h;
		uint64_t ip;
		size_t off = s->tail % s->size;

		memcpy(&h, s->data + off, sizeof(h));
		if (h.type == PERF_RECORD_SAMPLE) {
			off = (s->tail + sizeof(h)) % s->size;
			memcpy(&ip, s->data + off, sizeof(ip));
			count(ip);
		}
		s->tail += h.size;
	}
	__atomic_store_n(&s->page->data_tail, s->tail, __ATOMIC_RELEASE);
}

void sampler_print_share(void)
{
	printf("%ld samples: %.1f%% user space, %.1f%% kernel\n", samples,
	       samples ? 100.0 * user_samples / samples : 0.0,
	       samples ? 100.0 * (samples - user_samples) / samples : 0.0);
}

void sampler_print_top(size_t top)
{
	size_t k;

	qsort(syms, nsyms, sizeof(*syms), by_hits);
	for (k = 0; k < nsyms && k < top && syms[k].hits; k++)
		printf("%6.2f%%  %s\n", 100.0 * syms[k].hits / samples,
		       syms[k].name);
	if (unknown_samples)
		printf("%6.2f%%  (below the first kernel symbol)\n",
		       100.0 * unknown_samples / samples);
}
