// SPDX-License-Identifier: GPL-2.0
/*
 * hold: the tiny helper of tests/stress/unload.sh (twstress-hold in the
 * guest). Each call does one thing with /dev/twheel and exits 0, or says
 * what went wrong and exits 1.
 *
 *   twstress-hold cycle K      open; K >= 1: add an hour-long timer;
 *                              K >= 2: also add a due timer and read its
 *                              record; close with whatever is left
 *   twstress-hold probe        /dev/twheel works: a due timer's record is
 *                              read with its id and cookie, then it is gone
 *   twstress-hold hold MODE FILE
 *                              keep an fd in MODE and write "ready" to FILE
 *                              once it is so, then wait to be killed:
 *                              open     only open
 *                              pending  an hour-long timer pending
 *                              queued   a record queued, unread
 *                              read     blocked in read(2)
 *                              poll     blocked in poll(2)
 */
#include "twtest.h"

static void die(const char *what)
{
	printf("twstress-hold: %s: %s\n", what, strerror(errno));
	exit(1);
}

static int open_dev(void)
{
	int fd = open(TWT_DEV, O_RDWR | O_CLOEXEC);

	if (fd < 0)
		die("open " TWT_DEV);
	return fd;
}

static uint64_t add(int fd, uint64_t cookie, int64_t rel_ns)
{
	uint64_t id = 0;

	if (twt_add_raw(fd, cookie, rel_ns, 0, CLOCK_MONOTONIC, &id) || !id)
		die("TWHEEL_IOC_ADD");
	return id;
}

/* Read the record of a due timer (id, cookie) within 30 s. */
static void read_due(int fd, uint64_t id, uint64_t cookie)
{
	struct twheel_event ev;
	struct pollfd p = { .fd = fd, .events = POLLIN };

	if (poll(&p, 1, 30000) != 1)
		die("poll for a due timer's record");
	if (read(fd, &ev, sizeof(ev)) != sizeof(ev))
		die("read");
	if (ev.id != id || ev.cookie != cookie || ev.count != 1) {
		printf("twstress-hold: record id %llu cookie %llu count %llu, want %llu %llu 1\n",
		       (unsigned long long)ev.id, (unsigned long long)ev.cookie,
		       (unsigned long long)ev.count, (unsigned long long)id,
		       (unsigned long long)cookie);
		exit(1);
	}
}

static void ready(const char *file)
{
	int fd = open(file, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	if (fd < 0 || write(fd, "ready\n", 6) != 6)
		die(file);
	close(fd);
}

int main(int argc, char **argv)
{
	struct twheel_event ev;
	struct pollfd p;
	const char *mode;
	uint64_t id;
	int fd, k;

	if (argc == 3 && !strcmp(argv[1], "cycle")) {
		k = atoi(argv[2]);
		fd = open_dev();
		if (k >= 1)
			add(fd, 1, 3600 * TWT_S);
		if (k >= 2) {
			id = add(fd, 2, 0);
			read_due(fd, id, 2);
		}
		close(fd);
		return 0;
	}
	if (argc == 2 && !strcmp(argv[1], "probe")) {
		fd = open_dev();
		id = add(fd, 0xC0FFEE, 0);
		read_due(fd, id, 0xC0FFEE);
		if (twt_cancel_raw(fd, id, 0, NULL) == 0 || errno != ENOENT)
			die("cancel after read: want ENOENT");
		close(fd);
		return 0;
	}
	if (argc != 4 || strcmp(argv[1], "hold")) {
		fprintf(stderr, "usage: twstress-hold cycle K | probe | hold MODE FILE\n");
		return 2;
	}
	mode = argv[2];
	fd = open_dev();
	if (!strcmp(mode, "pending")) {
		add(fd, 1, 3600 * TWT_S);
	} else if (!strcmp(mode, "queued")) {
		struct twheel_info info;

		add(fd, 1, 0);
		memset(&info, 0, sizeof(info));
		if (ioctl(fd, TWHEEL_IOC_INFO, &info) || info.queued != 1) {
			printf("twstress-hold: queued %llu, want 1\n",
			       (unsigned long long)info.queued);
			return 1;
		}
	} else if (strcmp(mode, "open") && strcmp(mode, "read") &&
		   strcmp(mode, "poll")) {
		fprintf(stderr, "twstress-hold: unknown mode %s\n", mode);
		return 2;
	}
	ready(argv[3]);
	if (!strcmp(mode, "read")) {
		/* Nothing is pending: only the kill ends this. */
		if (read(fd, &ev, sizeof(ev)) >= 0 || errno != EINTR)
			die("read returned");
	} else if (!strcmp(mode, "poll")) {
		p.fd = fd;
		p.events = POLLIN;
		if (poll(&p, 1, -1) >= 0 || errno != EINTR)
			die("poll returned");
	}
	for (;;)
		pause();
}
