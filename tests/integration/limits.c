// SPDX-License-Identifier: GPL-2.0
/*
 * limits: the per-fd cap (module parameter max_timers): ENOSPC beyond it,
 * queued records count until read, each fd has its own cap. main()
 * restores the parameter whatever the cases did.
 */
#include <sys/stat.h>

#include "twtest.h"

#define PARAM_MAX	"/sys/module/twheel/parameters/max_timers"
#define DEFAULT_MAX	1048576

static void set_max(const char *v)
{
	CHECK_OK(twt_sysfs_write(PARAM_MAX, v));
	CHECK_EQ(twt_sysfs_read(PARAM_MAX), atoll(v));
}

/* No state change after an ENOSPC. */
#define CHECK_FULL(fd, n) do {						\
	uint64_t _id = 0;						\
	CHECK_ERR(twt_add_raw((fd), 999, 3600 * TWT_S, 0,		\
			      CLOCK_MONOTONIC, &_id), ENOSPC);		\
	CHECK_ERR(twt_add_raw((fd), 999, 0, TWHEEL_ABSTIME,		\
			      CLOCK_REALTIME, &_id), ENOSPC);		\
	CHECK_ERR(twt_addp_raw((fd), 999, 0, TWT_MS, 0,		\
			       CLOCK_TAI, &_id), ENOSPC);		\
	CHECK_EQ(twt_timers(fd), (n));					\
} while (0)

static void param_file(void)
{
	struct stat st;

	CHECK_OK(stat(PARAM_MAX, &st));
	printf("# %s mode %o\n", PARAM_MAX, st.st_mode & 0777);
	CHECK(st.st_mode & S_IWUSR);		/* root may write it */
	CHECK(!(st.st_mode & (S_IWGRP | S_IWOTH)));
	CHECK_EQ(st.st_uid, 0);
	CHECK_EQ(twt_sysfs_read(PARAM_MAX), DEFAULT_MAX);
}

/* An unprivileged user can neither raise nor lower the cap. */
static void param_unprivileged(void)
{
	CHECK_OK(setgid(65534));
	CHECK_OK(setuid(65534));
	CHECK_ERR(open(PARAM_MAX, O_WRONLY), EACCES);
	CHECK_EQ(twt_sysfs_read(PARAM_MAX), DEFAULT_MAX);
}

static void cap_100(void)
{
	int fd, i;
	uint64_t ids[100];
	struct twheel_info info;

	set_max("100");
	fd = twt_open(O_NONBLOCK);
	info = twt_info(fd);
	CHECK_EQ(info.max_timers, 100);
	for (i = 0; i < 100; i++)
		ids[i] = twt_add_rel(fd, i, 3600 * TWT_S);
	CHECK_FULL(fd, 100);
	/* Cancel one: room for exactly one more. */
	CHECK_EQ(twt_cancel(fd, ids[42]), TWHEEL_STATE_PENDING);
	ids[42] = twt_add_rel(fd, 42, 3600 * TWT_S);
	CHECK_FULL(fd, 100);
	CHECK_EQ(twt_queued(fd), 0);
	CHECK_EQ(twt_poll(fd, 50), 0);
	close(fd);
}

/* Expired records count until read. */
static void cap_counts_queued(void)
{
	int fd, i;
	struct twheel_event ev[10];
	uint64_t ids[10];

	set_max("10");
	fd = twt_open(O_NONBLOCK);
	for (i = 0; i < 5; i++)
		ids[i] = twt_add_rel(fd, i, 0);
	for (i = 5; i < 10; i++)
		ids[i] = twt_add_rel(fd, i, 30 * TWT_MS);
	CHECK_FULL(fd, 10);
	twt_sleep_ms(100);		/* all ten expired, none read */
	CHECK_EQ(twt_queued(fd), 10);
	CHECK_FULL(fd, 10);
	/* Reading one makes room for one. */
	CHECK_EQ(read(fd, ev, sizeof(ev[0])), sizeof(ev[0]));
	CHECK_EQ(ev[0].id, ids[0]);
	twt_add_rel(fd, 10, 0);
	CHECK_FULL(fd, 10);
	/* Cancelling a queued record makes room too. */
	CHECK_EQ(twt_cancel(fd, ids[7]), TWHEEL_STATE_QUEUED);
	twt_add_rel(fd, 11, 3600 * TWT_S);
	CHECK_FULL(fd, 10);
	/* Drain: all are read, room for ten again (one is pending). */
	twt_read_n(fd, ev, 9, 5000);
	CHECK_EQ(twt_timers(fd), 1);
	for (i = 0; i < 9; i++)
		twt_add_rel(fd, 100 + i, 3600 * TWT_S);
	CHECK_FULL(fd, 10);
	close(fd);
}

/* Each fd has its own cap. */
static void cap_per_fd(void)
{
	int a, b, i;

	set_max("50");
	a = twt_open(O_NONBLOCK);
	b = twt_open(O_NONBLOCK);
	for (i = 0; i < 50; i++)
		twt_add_rel(a, i, 3600 * TWT_S);
	CHECK_FULL(a, 50);
	for (i = 0; i < 50; i++)
		twt_add_rel(b, i, 3600 * TWT_S);
	CHECK_FULL(b, 50);
	CHECK_FULL(a, 50);
	/* Closing one frees nothing of the other's. */
	close(a);
	CHECK_FULL(b, 50);
	a = twt_open(O_NONBLOCK);
	for (i = 0; i < 50; i++)
		twt_add_rel(a, i, 3600 * TWT_S);
	CHECK_FULL(a, 50);
	close(a);
	close(b);
}

/* A cap of 1, and an fd whose cap is reached by due timers only. */
static void cap_one(void)
{
	int fd;
	struct twheel_event ev;

	set_max("1");
	fd = twt_open(O_NONBLOCK);
	CHECK_EQ(twt_info(fd).max_timers, 1);
	twt_add_rel(fd, 1, 0);
	CHECK_FULL(fd, 1);
	CHECK_EQ(read(fd, &ev, sizeof(ev)), sizeof(ev));
	twt_add_rel(fd, 2, 0);
	CHECK_FULL(fd, 1);
	close(fd);
}

/* What happens to an fd already open when the parameter changes: report. */
static void cap_change_while_open(void)
{
	int fd = twt_open(O_NONBLOCK);
	int i, n = 0;
	uint64_t id;

	set_max("20");
	printf("# fd opened before the change: max_timers %llu\n",
	       (unsigned long long)twt_info(fd).max_timers);
	for (i = 0; i < 40; i++)
		if (twt_add_raw(fd, i, 3600 * TWT_S, 0, CLOCK_MONOTONIC,
				&id) == 0)
			n++;
	printf("# it took %d of 40 adds under a cap of 20\n", n);
	CHECK(n == 20 || n == 40);
	CHECK_EQ(twt_timers(fd), n);
	close(fd);
}

/* Nonsense written to the parameter is refused and changes nothing. */
static void param_bad_values(void)
{
	const char *bad[] = { "abc", "", "-", "12abc" };
	unsigned int k;

	set_max("1000");
	for (k = 0; k < sizeof(bad) / sizeof(bad[0]); k++) {
		int r = twt_sysfs_write(PARAM_MAX, bad[k]);

		printf("# write '%s': %d (%s)\n", bad[k], r, r ? strerror(errno) : "ok");
		CHECK_EQ(twt_sysfs_read(PARAM_MAX), 1000);
	}
}

int main(void)
{
	static const struct twt_case cases[] = {
		TWT_CASE(param_file),
		TWT_CASE(param_unprivileged),
		TWT_CASE(cap_100),
		TWT_CASE(cap_counts_queued),
		TWT_CASE(cap_per_fd),
		TWT_CASE(cap_one),
		TWT_CASE(cap_change_while_open),
		TWT_CASE(param_bad_values),
	};
	size_t n = sizeof(cases) / sizeof(cases[0]), i;
	int failed = 0;

	/* One case at a time, the parameter restored after each. */
	for (i = 0; i < n; i++) {
		failed += twt_run("limits", &cases[i], 1);
		if (twt_sysfs_read(PARAM_MAX) != DEFAULT_MAX &&
		    twt_sysfs_write(PARAM_MAX, "1048576") != 0) {
			printf("# cannot restore %s: %s\n", PARAM_MAX,
			       strerror(errno));
			failed++;
		}
	}
	return failed;
}
