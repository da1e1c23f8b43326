// SPDX-License-Identifier: GPL-2.0
/*
 * twheel_idlestat.c - CPU 0's idle time, cheap to read, for `make bench`.
 *
 * A benchmark module, not part of twheel. The bench measures the CPU a
 * mode costs as CPU 0's busy time: elapsed time minus the time CPU 0
 * slept idle (the nohz idle accounting, which leaves out the interrupts
 * taken while idle: hrtimer callbacks count as busy). Userspace finds that
 * time only in /proc/timer_list, which also lists every queued hrtimer,
 * in O(N^2) for N of them: a mode with an hrtimer per timer (timerfd per
 * timer, io_uring timeouts) could not be measured so. This module gives
 * the same two counters alone, in one read-only parameter:
 *
 *   /sys/module/twheel_idlestat/parameters/cpu0_idle_ns
 *
 * CPU 0's idle plus iowait sleep time in nanoseconds (microsecond
 * resolution: get_cpu_idle_time_us() and get_cpu_iowait_time_us()), the
 * sum /proc/timer_list's idle_sleeptime and iowait_sleeptime give; -1
 * when the kernel keeps no such accounting (no nohz).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/tick.h>

static int twheel_idlestat_get(char *buf, const struct kernel_param *kp)
{
	u64 idle = get_cpu_idle_time_us(0, NULL);
	u64 iowait = get_cpu_iowait_time_us(0, NULL);

	if (idle == (u64)-1 || iowait == (u64)-1)
		return sysfs_emit(buf, "-1\n");
	return sysfs_emit(buf, "%llu\n", (idle + iowait) * NSEC_PER_USEC);
}

static const struct kernel_param_ops twheel_idlestat_ops = {
	.get = twheel_idlestat_get,
};

module_param_cb(cpu0_idle_ns, &twheel_idlestat_ops, NULL, 0444);
MODULE_PARM_DESC(cpu0_idle_ns, "CPU 0's idle + iowait sleep time, ns (us resolution)");

MODULE_DESCRIPTION("CPU 0's idle time for twheel's benchmark");
MODULE_LICENSE("GPL");
