/* SPDX-License-Identifier: GPL-2.0 */
/*
 * prof_sampler.h - twheel-prof's sampler: perf_event_open() samples of
 * the CPU clock (this process, or all of CPU 0), their instruction
 * pointers resolved against /proc/kallsyms, the functions ranked.
 */
#ifndef PROF_SAMPLER_H
#define PROF_SAMPLER_H

#include <linux/perf_event.h>
#include <stddef.h>
#include <stdint.h>

struct sampler {
	int fd;
	struct perf_event_mmap_page *page;
	char *data;
	size_t size;
	uint64_t tail;
};

/* Print what failed with errno's text, and exit(1). */
void die(const char *what);

/* Load the text symbols of /proc/kallsyms (before the first sample). */
void load_kallsyms(void);

/* A sampler every @period ns of CPU: this process's, or CPU 0's (@cpu0). */
void sampler_open(struct sampler *s, uint64_t period, int cpu0);
void sampler_on(struct sampler *s, int on);

/* Count the samples taken; called often enough that its ring never fills. */
void sampler_drain(struct sampler *s);

/* "N samples: U% user space, K% kernel", and the @top functions. */
void sampler_print_share(void);
void sampler_print_top(size_t top);

#endif /* PROF_SAMPLER_H */
