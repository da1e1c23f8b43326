// SPDX-License-Identifier: GPL-2.0
/*
 * uring-timers: request timeouts driven through one io_uring, with no
 * timer system call: the timers are added, pushed back and cancelled as
 * IORING_OP_URING_CMD (struct twheel_uring_cmd), and their expiries read
 * with IORING_OP_READ, which waits by poll and never ties up a thread.
 *
 *	cc -o uring-timers uring-timers.c -ltwheel -luring
 *	./uring-timers
 *
 * Five requests get a timeout of 100..500 ms; the reply to request 2
 * comes (its timeout is cancelled) and request 4 shows progress (its
 * timeout is pushed back by 300 ms). The program prints each timeout as
 * it fires, in order: 1, 3, 5, 4.
 */
#include <errno.h>
#include <fcntl.h>
#include <liburing.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "libtwheel.h"

#define MS	1000000LL

/* Queue one twheel command (a TWHEEL_IOC_* and its argument). */
static void queue_cmd(struct io_uring *ring, int fd, unsigned int cmd,
		      void *arg, uint64_t tag)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(ring);
	struct twheel_uring_cmd *uc = (struct twheel_uring_cmd *)sqe->cmd;

	io_uring_prep_rw(IORING_OP_URING_CMD, sqe, fd, NULL, 0, 0);
	sqe->cmd_op = cmd;
	uc->arg = (uintptr_t)arg;
	uc->__reserved = 0;
	sqe->user_data = tag;
}

/* Submit what is queued and wait for @n completions; 0, or -errno. */
static int run(struct io_uring *ring, unsigned int n)
{
	struct io_uring_cqe *cqe;
	int ret = io_uring_submit_and_wait(ring, n), err = 0;

	if (ret < 0)
		return ret;
	while (n--) {
		ret = io_uring_wait_cqe(ring, &cqe);
		if (ret < 0)
			return ret;
		if (cqe->res < 0 && !err)
			err = cqe->res;
		io_uring_cqe_seen(ring, cqe);
	}
	return err;
}

static int64_t mono_ms(int64_t start)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (ts.tv_sec * 1000000000LL + ts.tv_nsec - start) / MS;
}

int main(void)
{
	struct twheel_add req[6] = { 0 };
	struct twheel_event ev[8];
	struct twheel_cancel cancel = { 0 };
	struct twheel_modify push = { 0 };
	struct io_uring_cqe *cqe;
	struct io_uring ring;
	int fd, i, ret, left = 4;
	int64_t start;

	fd = twheel_open(O_CLOEXEC);
	if (fd < 0) {
		perror("/dev/twheel");
		return 1;
	}
	ret = io_uring_queue_init(16, &ring, 0);
	if (ret < 0) {
		fprintf(stderr, "io_uring: %s\n", strerror(-ret));
		return 1;
	}
	start = mono_ms(0) * MS;

	/* Request i times out i * 100 ms from now (cookie: i). */
	for (i = 1; i <= 5; i++) {
		req[i].cookie = i;
		req[i].expires_ns = i * 100 * MS;
		req[i].clock = CLOCK_MONOTONIC;
		queue_cmd(&ring, fd, TWHEEL_IOC_ADD, &req[i], i);
	}
	ret = run(&ring, 5);
	if (ret < 0)
		goto fail;

	/* The reply to request 2: its timeout is no longer needed. */
	cancel.id = req[2].id;
	queue_cmd(&ring, fd, TWHEEL_IOC_CANCEL, &cancel, 0);
	/* Request 4 made progress: 300 ms more, from now. */
	push.id = req[4].id;
	push.expires_ns = 700 * MS;
	queue_cmd(&ring, fd, TWHEEL_IOC_MODIFY, &push, 0);
	ret = run(&ring, 2);
	if (ret < 0)
		goto fail;

	/* The event loop: one read in flight, completed as timeouts fire. */
	while (left > 0) {
		io_uring_prep_read(io_uring_get_sqe(&ring), fd, ev, sizeof(ev),
				   0);
		io_uring_submit(&ring);
		ret = io_uring_wait_cqe(&ring, &cqe);
		if (ret < 0)
			goto fail;
		ret = cqe->res;
		io_uring_cqe_seen(&ring, cqe);
		if (ret < 0)
			goto fail;
		for (i = 0; i < ret / (int)sizeof(ev[0]); i++, left--)
			printf("%4lld ms: request %llu timed out\n",
			       (long long)mono_ms(start),
			       (unsigned long long)ev[i].cookie);
	}
	io_uring_queue_exit(&ring);
	close(fd);
	return 0;
fail:
	fprintf(stderr, "uring-timers: %s\n", strerror(-ret));
	return 1;
}
