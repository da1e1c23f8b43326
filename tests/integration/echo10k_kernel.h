/* SPDX-License-Identifier: GPL-2.0 */
/*
 * echo10k_kernel.h - the kernel's side for echo10k.c: the loopback
 * interface brought up, the twheel trace events counted (one tracefs
 * instance per event, from their per-CPU stats), and whether this is the
 * debug kernel.
 */
#ifndef ECHO10K_KERNEL_H
#define ECHO10K_KERNEL_H

#include "echo10k.h"

/* A bare VM's init leaves the loopback interface down. */
static inline void loopback_up(void)
{
	struct ifreq ifr;
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	CHECK_OK(fd);
	memset(&ifr, 0, sizeof(ifr));
	strcpy(ifr.ifr_name, "lo");
	CHECK_OK(ioctl(fd, SIOCGIFFLAGS, &ifr));
	if (!(ifr.ifr_flags & IFF_UP)) {
		ifr.ifr_flags |= IFF_UP;
		CHECK_OK(ioctl(fd, SIOCSIFFLAGS, &ifr));
	}
	close(fd);
}

/* The events counted, each in a tracefs instance of its own. */
static const char *const trace_events[] = {
	"twheel_timer_add", "twheel_timer_modify", "twheel_timer_cancel",
};
#define N_TRACE	3

/*
 * An instance per event, its buffer large enough for @max events of it
 * on one CPU; false without tracefs.
 */
static inline bool trace_start(long max)
{
	char path[256], kb[32];
	unsigned int i;

	if (access(TRACEFS "/instances", F_OK) &&
	    mount("nodev", TRACEFS, "tracefs", 0, NULL) &&
	    access(TRACEFS "/instances", F_OK))
		return false;
	if (access(TRACEFS "/events/twheel/enable", F_OK))
		return false;
	/* No task names, in the instances too: see twt_trace_no_comm(). */
	CHECK_OK(twt_trace_no_comm(TRACEFS));
	/* An event takes under 96 bytes of ring buffer. */
	snprintf(kb, sizeof(kb), "%ld", max * 96 / 1024 + 1024);
	for (i = 0; i < N_TRACE; i++) {
		snprintf(path, sizeof(path), INSTANCE "%u", i);
		rmdir(path);
		CHECK_OK(mkdir(path, 0755));
		snprintf(path, sizeof(path), INSTANCE "%u/buffer_size_kb", i);
		CHECK_OK(twt_sysfs_write(path, kb));
		snprintf(path, sizeof(path),
			 INSTANCE "%u/events/twheel/%s/enable", i,
			 trace_events[i]);
		CHECK_OK(twt_sysfs_write(path, "1"));
		snprintf(path, sizeof(path), INSTANCE "%u/tracing_on", i);
		CHECK_OK(twt_sysfs_write(path, "1"));
	}
	return true;
}

/*
 * The events each instance holds, from its per-CPU stats (no formatting
 * of the trace); a lost event fails the case. The instances go.
 */
static inline void trace_count(long counts[N_TRACE])
{
	char path[256], line[256];
	unsigned int i, cpu;

	for (i = 0; i < N_TRACE; i++) {
		snprintf(path, sizeof(path), INSTANCE "%u/tracing_on", i);
		CHECK_OK(twt_sysfs_write(path, "0"));
		counts[i] = 0;
		for (cpu = 0;; cpu++) {
			long v, overrun = 0;
			FILE *f;

			snprintf(path, sizeof(path),
				 INSTANCE "%u/per_cpu/cpu%u/stats", i, cpu);
			f = fopen(path, "r");
			if (!f)
				break;
			while (fgets(line, sizeof(line), f)) {
				if (sscanf(line, "entries: %ld", &v) == 1)
					counts[i] += v;
				if (sscanf(line, "overrun: %ld", &v) == 1)
					overrun += v;
			}
			fclose(f);
			if (overrun)
				twt_fail(__FILE__, __LINE__,
					 "trace instance of %s lost %ld events on cpu %u",
					 trace_events[i], overrun, cpu);
		}
		CHECK(cpu > 0);
		snprintf(path, sizeof(path),
			 INSTANCE "%u/events/twheel/%s/enable", i,
			 trace_events[i]);
		CHECK_OK(twt_sysfs_write(path, "0"));
		snprintf(path, sizeof(path), INSTANCE "%u", i);
		CHECK_OK(rmdir(path));
	}
}

/* Slab objects carry KASAN's metadata: the debug kernel. */
static inline bool debug_kernel(void)
{
	return twt_sysfs_read("/sys/kernel/slab/twheel_timer/slab_size") !=
	       twt_sysfs_read("/sys/kernel/slab/twheel_timer/object_size");
}

#endif /* ECHO10K_KERNEL_H */
