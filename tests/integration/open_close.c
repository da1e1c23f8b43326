// SPDX-License-Identifier: GPL-2.0
/*
 * open_close: /dev/twheel exists, opens for anyone, each open is its own
 * file, and open(2) flags are honoured.
 */
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "twtest.h"

static void dev_node(void)
{
	struct stat st;

	CHECK_OK(stat("/dev/twheel", &st));
	CHECK(S_ISCHR(st.st_mode));
	/* Anyone may open it, as anyone may create a timerfd. */
	CHECK_EQ(st.st_mode & 0777, 0666);
	CHECK_EQ(major(st.st_rdev), 10);	/* a misc device */
}

static void open_close(void)
{
	int fd = open("/dev/twheel", O_RDWR);

	CHECK_OK(fd);
	CHECK_OK(close(fd));
	CHECK_ERR(close(fd), EBADF);
}

static void open_flags(void)
{
	int fd = open("/dev/twheel", O_RDWR | O_CLOEXEC | O_NONBLOCK);

	CHECK_OK(fd);
	CHECK(fcntl(fd, F_GETFD) & FD_CLOEXEC);
	CHECK(fcntl(fd, F_GETFL) & O_NONBLOCK);
	CHECK_OK(fcntl(fd, F_SETFL, 0));
	CHECK(!(fcntl(fd, F_GETFL) & O_NONBLOCK));
	close(fd);
}

static void not_seekable(void)
{
	int fd = open("/dev/twheel", O_RDWR);

	CHECK_OK(fd);
	CHECK_ERR(lseek(fd, 0, SEEK_SET), ESPIPE);
	close(fd);
}

static void many_opens(void)
{
	int fds[64];
	int i;

	for (i = 0; i < 64; i++) {
		fds[i] = open("/dev/twheel", O_RDWR);
		CHECK_OK(fds[i]);
	}
	for (i = 0; i < 64; i++)
		CHECK_OK(close(fds[i]));
}

static void unprivileged_open(void)
{
	int fd;

	CHECK_OK(setgid(65534));
	CHECK_OK(setuid(65534));
	CHECK_EQ(geteuid(), 65534);
	fd = open("/dev/twheel", O_RDWR);
	CHECK_OK(fd);
	close(fd);
}

TWT_MAIN("open_close",
	 TWT_CASE(dev_node),
	 TWT_CASE(open_close),
	 TWT_CASE(open_flags),
	 TWT_CASE(not_seekable),
	 TWT_CASE(many_opens),
	 TWT_CASE(unprivileged_open))
