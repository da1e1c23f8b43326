// SPDX-License-Identifier: GPL-2.0
/*
 * rt: says whether the integration suite ran on a PREEMPT_RT kernel, so
 * that a run on the rt test kernel (tests/vm/kernel.sh rt) shows it did.
 *
 * kernel_is_preempt_rt passes when /sys/kernel/realtime reads 1 and
 * uname -v names PREEMPT_RT, fails when the two disagree, and is skipped on
 * a kernel that is neither. With TWHEEL_EXPECT_RT=1 in the environment
 * (tests/integration/run.sh rt sets it) a kernel that is not PREEMPT_RT
 * fails instead of skipping: the rt run cannot pass on another kernel.
 */
#include <sys/utsname.h>

#include "twtest.h"

/* /sys/kernel/realtime: 1 on PREEMPT_RT, -1 when absent (not RT). */
static int sys_realtime(void)
{
	char buf[16] = "";
	ssize_t n;
	int fd;

	fd = open("/sys/kernel/realtime", O_RDONLY);
	if (fd < 0) {
		CHECK(errno == ENOENT);
		return -1;
	}
	n = read(fd, buf, sizeof(buf) - 1);
	CHECK(n > 0);
	close(fd);
	return atoi(buf);
}

static void kernel_is_preempt_rt(void)
{
	const char *expect = getenv("TWHEEL_EXPECT_RT");
	struct utsname u;
	int realtime = sys_realtime();
	int named;

	CHECK_OK(uname(&u));
	named = !!strstr(u.version, "PREEMPT_RT");
	printf("# uname -v: %s; /sys/kernel/realtime: %d\n", u.version,
	       realtime);
	/* The two sources must agree whatever the kernel is. */
	CHECK_EQ(realtime == 1, named);
	if (expect && strcmp(expect, "1") == 0 && !(named && realtime == 1))
		twt_fail(__FILE__, __LINE__,
			 "TWHEEL_EXPECT_RT=1 but the kernel is not PREEMPT_RT");
	if (!named)
		twt_skip("not a PREEMPT_RT kernel");
}

TWT_MAIN("rt",
	 TWT_CASE(kernel_is_preempt_rt))
