// SPDX-License-Identifier: GPL-2.0
/*
 * uring: twheel through io_uring (liburing). Every TWHEEL_IOC_* command
 * as an IORING_OP_URING_CMD (struct twheel_uring_cmd), with the CQE's res
 * what ioctl(2) returns and the results in the argument struct; reads
 * through the ring completing inline, or waiting by poll, with no io-wq
 * worker thread; readv across iovecs and RWF_NOWAIT; a command whose
 * argument is not in memory handed to io_uring's worker, the submitting
 * task never waiting for the page; and a 10 000 connection idle-timeout
 * loop done entirely through one ring.
 */
#define _GNU_SOURCE	/* preadv2(), RWF_NOWAIT */
#include <dirent.h>
#include <poll.h>
#include <stdbool.h>
#include <liburing.h>
#include <linux/userfaultfd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/uio.h>

#include "twtest.h"

#define MS		1000000LL
#define QD		256

static void ring_init(struct io_uring *ring)
{
	int ret = io_uring_queue_init(QD, ring, 0);

	if (ret == -ENOSYS || ret == -EPERM)
		twt_skip("io_uring is not available in this kernel");
	CHECK_EQ(ret, 0);
}

/* Queue one command; its CQE carries @tag in user_data. */
static void prep_cmd(struct io_uring *ring, int fd, unsigned int cmd,
		     void *arg, uint64_t reserved, uint64_t tag)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(ring);
	struct twheel_uring_cmd *uc;

	CHECK(sqe != NULL);
	io_uring_prep_rw(IORING_OP_URING_CMD, sqe, fd, NULL, 0, 0);
	sqe->cmd_op = cmd;
	uc = (struct twheel_uring_cmd *)sqe->cmd;
	uc->arg = (uint64_t)(uintptr_t)arg;
	uc->__reserved = reserved;
	sqe->user_data = tag;
}

/* Submit what is queued, wait for one CQE; return its res (and tag). */
static int wait_one(struct io_uring *ring, uint64_t *tag)
{
	struct io_uring_cqe *cqe;
	int res;

	CHECK_OK(io_uring_submit(ring));
	CHECK_EQ(io_uring_wait_cqe(ring, &cqe), 0);
	res = cqe->res;
	if (tag)
		*tag = cqe->user_data;
	io_uring_cqe_seen(ring, cqe);
	return res;
}

/* One command through the ring: its CQE's res. */
static int ring_cmd(struct io_uring *ring, int fd, unsigned int cmd,
		    void *arg)
{
	prep_cmd(ring, fd, cmd, arg, 0, 1);
	return wait_one(ring, NULL);
}

/*
 * Threads of this process (io_uring's workers are threads of it); with
 * @show, their names are printed (to tell which one appeared).
 */
static int nr_threads_show(bool show)
{
	DIR *d = opendir("/proc/self/task");
	struct dirent *e;
	int n = 0;

	CHECK(d != NULL);
	while ((e = readdir(d))) {
		char path[300], comm[32] = "";
		FILE *f;

		if (e->d_name[0] == '.')
			continue;
		n++;
		if (!show)
			continue;
		snprintf(path, sizeof(path), "/proc/self/task/%s/comm",
			 e->d_name);
		f = fopen(path, "r");
		if (f && fgets(comm, sizeof(comm), f))
			printf("# thread %s: %s", e->d_name, comm);
		if (f)
			fclose(f);
	}
	closedir(d);
	return n;
}

#define nr_threads()	nr_threads_show(false)

/* No thread was created since @threads were counted. */
#define CHECK_THREADS(threads) do {					\
	if (nr_threads() != (threads))					\
		nr_threads_show(true);					\
	CHECK_EQ(nr_threads(), (threads));				\
} while (0)

/* ---- commands ---- */

static void cmd_add_query_modify_cancel(void)
{
	int fd = twt_open_manual(0, MS);
	struct twheel_modify md;
	struct twheel_cancel cn;
	struct twheel_query q;
	struct twheel_add a;
	struct io_uring ring;

	ring_init(&ring);
	memset(&a, 0, sizeof(a));
	a.cookie = 42;
	a.expires_ns = 10 * MS;
	a.clock = CLOCK_MONOTONIC;
	CHECK_EQ(ring_cmd(&ring, fd, TWHEEL_IOC_ADD, &a), 0);
	CHECK(a.id != 0);
	CHECK_EQ(twt_info(fd).timers, 1);

	memset(&q, 0, sizeof(q));
	q.id = a.id;
	CHECK_EQ(ring_cmd(&ring, fd, TWHEEL_IOC_QUERY, &q), 0);
	CHECK_EQ(q.status.id, a.id);
	CHECK_EQ(q.status.cookie, 42);
	CHECK_EQ(q.status.deadline_ns, 10 * MS);
	CHECK_EQ(q.status.state, TWHEEL_STATE_PENDING);

	memset(&md, 0, sizeof(md));
	md.id = a.id;
	md.expires_ns = 20 * MS;
	md.flags = TWHEEL_ABSTIME;
	CHECK_EQ(ring_cmd(&ring, fd, TWHEEL_IOC_MODIFY, &md), 0);
	CHECK_EQ(md.result, TWHEEL_STATE_PENDING);
	CHECK_EQ(twt_query(fd, a.id).deadline_ns, 20 * MS);

	memset(&cn, 0, sizeof(cn));
	cn.id = a.id;
	CHECK_EQ(ring_cmd(&ring, fd, TWHEEL_IOC_CANCEL, &cn), 0);
	CHECK_EQ(cn.result, TWHEEL_STATE_PENDING);
	CHECK_EQ(twt_info(fd).timers, 0);
	/* Gone: as the ioctl, ENOENT, now in the CQE. */
	CHECK_EQ(ring_cmd(&ring, fd, TWHEEL_IOC_CANCEL, &cn), -ENOENT);
	CHECK_EQ(ring_cmd(&ring, fd, TWHEEL_IOC_MODIFY, &md), -ENOENT);
	io_uring_queue_exit(&ring);
	close(fd);
}

static void cmd_errors(void)
{
	int fd = twt_open(0);
	struct twheel_info info;
	struct twheel_add a;
	struct io_uring ring;

	ring_init(&ring);
	memset(&a, 0, sizeof(a));
	a.expires_ns = 10 * MS;
	a.clock = CLOCK_MONOTONIC;
	/* A reserved field set: EINVAL, nothing done. */
	prep_cmd(&ring, fd, TWHEEL_IOC_ADD, &a, 1, 1);
	CHECK_EQ(wait_one(&ring, NULL), -EINVAL);
	CHECK_EQ(a.id, 0);
	CHECK_EQ(twt_info(fd).timers, 0);
	/* Commands twheel does not have, as ioctl(2): ENOTTY. */
	CHECK_EQ(ring_cmd(&ring, fd, _IO(TWHEEL_IOC_TYPE, 0x0f), &a), -ENOTTY);
	CHECK_EQ(ring_cmd(&ring, fd, _IOWR('T', 0x01, struct twheel_add), &a),
		 -ENOTTY);
	/* The argument's own errors. */
	a.clock = CLOCK_MONOTONIC_RAW;
	CHECK_EQ(ring_cmd(&ring, fd, TWHEEL_IOC_ADD, &a), -EINVAL);
	CHECK_EQ(ring_cmd(&ring, fd, TWHEEL_IOC_ADD, NULL), -EFAULT);
	CHECK_EQ(twt_info(fd).timers, 0);
	/* INFO through the ring says it can. */
	memset(&info, 0, sizeof(info));
	CHECK_EQ(ring_cmd(&ring, fd, TWHEEL_IOC_INFO, &info), 0);
	CHECK_EQ(info.version, TWHEEL_ABI_VERSION);
	CHECK(info.features & TWHEEL_FEATURE_URING);
	io_uring_queue_exit(&ring);
	close(fd);
}

static void cmd_batch(void)
{
	int fd = twt_open_manual(0, MS);
	struct twheel_op ops[64];
	struct twheel_submit sub;
	struct io_uring ring;
	int i;

	ring_init(&ring);
	memset(ops, 0, sizeof(ops));
	for (i = 0; i < 64; i++) {
		ops[i].op = TWHEEL_OP_ADD;
		ops[i].cookie = i;
		ops[i].expires_ns = (i + 1) * MS;
		/* Every eighth one with a bad clock: its own error only. */
		ops[i].clock = i % 8 == 7 ? CLOCK_MONOTONIC_RAW :
					    CLOCK_MONOTONIC;
	}
	memset(&sub, 0, sizeof(sub));
	sub.ops = (uint64_t)(uintptr_t)ops;
	sub.nr = 64;
	sub.op_size = sizeof(ops[0]);
	CHECK_EQ(ring_cmd(&ring, fd, TWHEEL_IOC_SUBMIT, &sub), 64);
	for (i = 0; i < 64; i++) {
		if (i % 8 == 7) {
			CHECK_EQ(ops[i].error, -EINVAL);
			CHECK_EQ(ops[i].id, 0);
		} else {
			CHECK_EQ(ops[i].error, 0);
			CHECK(ops[i].id != 0);
		}
	}
	CHECK_EQ(twt_info(fd).timers, 56);
	/* A bad batch header: EINVAL, none done. */
	sub.op_size = 8;
	CHECK_EQ(ring_cmd(&ring, fd, TWHEEL_IOC_SUBMIT, &sub), -EINVAL);
	io_uring_queue_exit(&ring);
	close(fd);
}

/* Wait for the userfaultfd's next fault: the address of its page. */
static uint64_t uffd_fault(int uffd, size_t pg, uint32_t *ptid)
{
	struct pollfd p = { .fd = uffd, .events = POLLIN };
	struct uffd_msg msg;

	/* Not a measure: a bound on a wait that must end, to fail, not hang. */
	CHECK_EQ(poll(&p, 1, 30000), 1);
	CHECK_EQ(read(uffd, &msg, sizeof(msg)), (ssize_t)sizeof(msg));
	CHECK_EQ(msg.event, UFFD_EVENT_PAGEFAULT);
	*ptid = msg.arg.pagefault.feat.ptid;
	return msg.arg.pagefault.address & ~(uint64_t)(pg - 1);
}

/* Resolve the fault on @dst with a copy of @src's page. */
static void uffd_fill(int uffd, size_t pg, void *dst, const void *src)
{
	struct uffdio_copy cp = {
		.dst = (uintptr_t)dst, .src = (uintptr_t)src, .len = pg,
	};

	CHECK_OK(ioctl(uffd, UFFDIO_COPY, &cp));
}

/* Wait for one CQE, submitting nothing: its res (and tag). */
static int wait_cqe_only(struct io_uring *ring, uint64_t *tag)
{
	struct io_uring_cqe *cqe;
	int res;

	CHECK_EQ(io_uring_wait_cqe(ring, &cqe), 0);
	res = cqe->res;
	*tag = cqe->user_data;
	io_uring_cqe_seen(ring, cqe);
	return res;
}

/*
 * ADDs whose arguments are in pages not in memory (userfaultfd, missing):
 * the inline issue does not fault them in (that would wait under the
 * ring's lock, here for ever) but hands each to io_uring's worker, which
 * takes the fault; io_uring_submit() returns meanwhile. With one worker
 * allowed, the second waits for it; the SQE's place in the ring (a ring
 * of one) is then filled with a third before the worker starts the
 * second: the worker still does the second's own argument.
 */
static void cmd_arg_paged_out(void)
{
	size_t pg = (size_t)sysconf(_SC_PAGESIZE);
	int fd = twt_open_manual(0, MS), uffd;
	struct uffdio_register reg = { 0 };
	struct twheel_add *a, *b, a3, *src;
	unsigned int workers[2] = { 1, 1 };
	char path[64], comm[32] = "";
	struct io_uring ring;
	uint64_t tag = 0;
	uint32_t ptid;
	FILE *f;

	uffd = twt_uffd(0, UFFD_FEATURE_THREAD_ID);
	a = mmap(NULL, 2 * pg, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	src = mmap(NULL, 2 * pg, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK(a != MAP_FAILED && src != MAP_FAILED);
	b = (struct twheel_add *)((char *)a + pg);
	reg.range.start = (uintptr_t)a;
	reg.range.len = 2 * pg;
	reg.mode = UFFDIO_REGISTER_MODE_MISSING;
	CHECK_OK(ioctl(uffd, UFFDIO_REGISTER, &reg));
	/* What the pages will hold once their faults are resolved. */
	src->cookie = 5;
	src->expires_ns = 10 * MS;
	src->clock = CLOCK_MONOTONIC;
	memcpy((char *)src + pg, src, sizeof(*src));
	((struct twheel_add *)((char *)src + pg))->cookie = 6;

	CHECK_EQ(io_uring_queue_init(1, &ring, 0), 0);
	CHECK_EQ(io_uring_register_iowq_max_workers(&ring, workers), 0);
	prep_cmd(&ring, fd, TWHEEL_IOC_ADD, a, 0, 1);
	/* Returns: the submitting task did not wait for the page. */
	CHECK_EQ(io_uring_submit(&ring), 1);
	/* The fault, taken by io_uring's worker thread. */
	CHECK_EQ(uffd_fault(uffd, pg, &ptid), (uint64_t)(uintptr_t)a);
	CHECK(ptid != (uint32_t)gettid());
	snprintf(path, sizeof(path), "/proc/self/task/%u/comm", ptid);
	f = fopen(path, "r");
	CHECK(f != NULL);
	CHECK(fgets(comm, sizeof(comm), f) != NULL);
	fclose(f);
	printf("# the fault was taken by %s", comm);
	CHECK(strncmp(comm, "iou-wrk-", 8) == 0);

	/* The second, behind the first's worker; its SQE's place reused. */
	prep_cmd(&ring, fd, TWHEEL_IOC_ADD, b, 0, 2);
	CHECK_EQ(io_uring_submit(&ring), 1);
	memset(&a3, 0, sizeof(a3));
	a3.cookie = 7;
	a3.expires_ns = 20 * MS;
	a3.clock = CLOCK_MONOTONIC;
	prep_cmd(&ring, fd, TWHEEL_IOC_ADD, &a3, 0, 3);

	uffd_fill(uffd, pg, a, src);
	CHECK_EQ(wait_cqe_only(&ring, &tag), 0);
	CHECK_EQ(tag, 1);
	CHECK(a->id != 0);
	CHECK_EQ(twt_query(fd, a->id).cookie, 5);
	/* The worker goes on with the second: its own argument, b. */
	CHECK_EQ(uffd_fault(uffd, pg, &ptid), (uint64_t)(uintptr_t)b);
	uffd_fill(uffd, pg, b, (char *)src + pg);
	CHECK_EQ(wait_cqe_only(&ring, &tag), 0);
	CHECK_EQ(tag, 2);
	CHECK(b->id != 0);
	CHECK_EQ(twt_query(fd, b->id).cookie, 6);
	CHECK_EQ(a3.id, 0);
	CHECK_EQ(twt_info(fd).timers, 2);
	/* The third, submitted now: done at once, with its own argument. */
	CHECK_EQ(wait_one(&ring, &tag), 0);
	CHECK_EQ(tag, 3);
	CHECK(a3.id != 0);
	CHECK_EQ(twt_query(fd, a3.id).cookie, 7);
	CHECK_EQ(twt_info(fd).timers, 3);
	io_uring_queue_exit(&ring);
	munmap(a, 2 * pg);
	munmap(src, 2 * pg);
	close(uffd);
	close(fd);
}

/* ---- reads ---- */

/* Records queued: the ring's read completes inline, no worker thread. */
static void read_inline(void)
{
	int fd = twt_open_manual(0, MS), threads, i;
	struct twheel_event ev[8];
	struct io_uring_sqe *sqe;
	struct io_uring ring;

	ring_init(&ring);
	for (i = 0; i < 5; i++)
		twt_add(fd, 100 + i, (i + 1) * MS, TWHEEL_ABSTIME,
			CLOCK_MONOTONIC);
	twt_advance(fd, 10 * MS);
	threads = nr_threads();
	sqe = io_uring_get_sqe(&ring);
	io_uring_prep_read(sqe, fd, ev, sizeof(ev), 0);
	CHECK_EQ(wait_one(&ring, NULL), 5 * (int)sizeof(ev[0]));
	for (i = 0; i < 5; i++) {
		CHECK_EQ(ev[i].cookie, 100 + i);
		CHECK_EQ(ev[i].count, 1);
	}
	CHECK_THREADS(threads);
	CHECK_EQ(twt_queued(fd), 0);
	io_uring_queue_exit(&ring);
	close(fd);
}

/*
 * Nothing queued, a blocking fd: the read waits by poll (no io-wq worker
 * blocked in read(2)) and completes when a record is queued.
 */
static void read_waits_by_poll(void)
{
	int fd = twt_open_manual(0, MS), threads;
	struct twheel_event ev[4];
	struct io_uring_cqe *cqe;
	struct io_uring_sqe *sqe;
	struct io_uring ring;

	ring_init(&ring);
	twt_add(fd, 7, 5 * MS, TWHEEL_ABSTIME, CLOCK_MONOTONIC);
	threads = nr_threads();
	sqe = io_uring_get_sqe(&ring);
	io_uring_prep_read(sqe, fd, ev, sizeof(ev), 0);
	sqe->user_data = 9;
	CHECK_EQ(io_uring_submit(&ring), 1);
	/* Still waiting, and on nobody's thread. */
	twt_sleep_ms(50);
	CHECK_EQ(io_uring_peek_cqe(&ring, &cqe), -EAGAIN);
	CHECK_THREADS(threads);
	twt_advance(fd, 5 * MS);
	CHECK_EQ(io_uring_wait_cqe(&ring, &cqe), 0);
	CHECK_EQ(cqe->user_data, 9);
	CHECK_EQ(cqe->res, (int)sizeof(ev[0]));
	io_uring_cqe_seen(&ring, cqe);
	CHECK_EQ(ev[0].cookie, 7);
	CHECK_THREADS(threads);
	io_uring_queue_exit(&ring);
	close(fd);
}

/* readv: records laid across iovecs whole; preadv2(RWF_NOWAIT) never waits. */
static void readv_and_nowait(void)
{
	int fd = twt_open_manual(0, MS);
	unsigned char buf[2 * sizeof(struct twheel_event) + 16];
	struct twheel_event ev[2];
	struct iovec iov[2];

	twt_add(fd, 1, 1 * MS, TWHEEL_ABSTIME, CLOCK_MONOTONIC);
	twt_add(fd, 2, 1 * MS, TWHEEL_ABSTIME, CLOCK_MONOTONIC);
	twt_add(fd, 3, 1 * MS, TWHEEL_ABSTIME, CLOCK_MONOTONIC);
	twt_advance(fd, 1 * MS);
	/* 20 + 76 bytes: two whole records, the first split. */
	iov[0].iov_base = buf;
	iov[0].iov_len = 20;
	iov[1].iov_base = buf + 20;
	iov[1].iov_len = sizeof(buf) - 20;
	CHECK_EQ(readv(fd, iov, 2), 2 * sizeof(struct twheel_event));
	memcpy(ev, buf, sizeof(ev));
	CHECK_EQ(ev[0].cookie, 1);
	CHECK_EQ(ev[1].cookie, 2);
	CHECK_EQ(twt_queued(fd), 1);
	iov[0].iov_base = buf;
	iov[0].iov_len = sizeof(buf);
	CHECK_EQ(preadv2(fd, iov, 1, -1, RWF_NOWAIT), sizeof(ev[0]));
	/* Empty, on a blocking fd: EAGAIN at once. */
	CHECK_ERR(preadv2(fd, iov, 1, -1, RWF_NOWAIT), EAGAIN);
	close(fd);
}

/* ---- a server's loop ---- */

#define CONNS	10000

/*
 * 10 000 connections, each with an idle timeout, all through one ring:
 * added in batches of SQEs, a third of them pushed back by MODIFY, reads
 * of records through the ring as the manual clock moves. Each connection
 * times out exactly once, never before its deadline.
 */
static void idle_timeouts_through_ring(void)
{
	int fd = twt_open_manual(0, MS), threads;
	static struct twheel_add add[CONNS];
	static struct twheel_modify md[CONNS];
	static struct twheel_event ev[512];
	static int64_t deadline[CONNS];
	static int seen[CONNS];
	struct io_uring_cqe *cqe;
	struct io_uring_sqe *sqe;
	struct io_uring ring;
	int i, n, got = 0, done;
	int64_t now = 0;

	ring_init(&ring);
	/*
	 * The buffer in memory already (a server's is): a read that would
	 * fault is EAGAIN inline, and io_uring gives it to a worker thread.
	 */
	memset(ev, 0, sizeof(ev));
	threads = nr_threads();
	for (i = 0; i < CONNS; i++) {
		memset(&add[i], 0, sizeof(add[i]));
		add[i].cookie = i;
		add[i].expires_ns = (1000 + i % 500) * MS;
		add[i].clock = CLOCK_MONOTONIC;
		deadline[i] = add[i].expires_ns;
	}
	for (i = 0; i < CONNS; i += n) {
		for (n = 0; n < QD && i + n < CONNS; n++)
			prep_cmd(&ring, fd, TWHEEL_IOC_ADD, &add[i + n], 0,
				 i + n);
		CHECK_EQ(io_uring_submit_and_wait(&ring, n), n);
		for (done = 0; done < n; done++) {
			CHECK_EQ(io_uring_wait_cqe(&ring, &cqe), 0);
			CHECK_EQ(cqe->res, 0);
			io_uring_cqe_seen(&ring, cqe);
		}
	}
	CHECK_EQ(twt_info(fd).timers, CONNS);
	/* Activity on every third connection: pushed back by 2 s. */
	twt_advance(fd, 500 * MS);
	now = 500 * MS;
	for (i = 0; i < CONNS; i += 3 * n) {
		for (n = 0; n < QD && i + 3 * n < CONNS; n++) {
			int c = i + 3 * n;

			memset(&md[c], 0, sizeof(md[c]));
			md[c].id = add[c].id;
			md[c].expires_ns = 2000 * MS;
			deadline[c] = now + 2000 * MS;
			prep_cmd(&ring, fd, TWHEEL_IOC_MODIFY, &md[c], 0, c);
		}
		CHECK_EQ(io_uring_submit_and_wait(&ring, n), n);
		for (done = 0; done < n; done++) {
			CHECK_EQ(io_uring_wait_cqe(&ring, &cqe), 0);
			CHECK_EQ(cqe->res, 0);
			CHECK_EQ(md[cqe->user_data].result,
				 TWHEEL_STATE_PENDING);
			io_uring_cqe_seen(&ring, cqe);
		}
	}
	/* The clock moves 100 ms at a time; the ring reads what fell due. */
	while (got < CONNS) {
		CHECK(now < 10000 * MS);
		twt_advance(fd, 100 * MS);
		now += 100 * MS;
		for (;;) {
			sqe = io_uring_get_sqe(&ring);
			io_uring_prep_read(sqe, fd, ev, sizeof(ev), 0);
			if (twt_queued(fd) == 0) {
				/* Nothing to read: take the SQE back. */
				io_uring_prep_nop(sqe);
				CHECK_EQ(wait_one(&ring, NULL), 0);
				break;
			}
			n = wait_one(&ring, NULL);
			CHECK(n > 0 && n % (int)sizeof(ev[0]) == 0);
			n /= sizeof(ev[0]);
			for (i = 0; i < n; i++) {
				uint64_t c = ev[i].cookie;

				CHECK(c < CONNS);
				CHECK_EQ(seen[c], 0);
				seen[c] = 1;
				/* Never early; due within this step. */
				CHECK(ev[i].time_ns >= deadline[c]);
				CHECK(ev[i].time_ns < deadline[c] + 100 * MS);
			}
			got += n;
		}
	}
	CHECK_EQ(got, CONNS);
	CHECK_EQ(twt_info(fd).timers, 0);
	CHECK_THREADS(threads);
	io_uring_queue_exit(&ring);
	close(fd);
}

/*
 * The example program (userspace/examples/uring-timers.c): four timeouts
 * fire, in deadline order (request 2's was cancelled, request 4's pushed
 * back to 700 ms), none before its deadline.
 */
static void example_uring_timers(void)
{
	static const int want[4][2] = {
		{ 1, 100 }, { 3, 300 }, { 5, 500 }, { 4, 700 },
	};
	FILE *p = popen("twheel-uring-timers", "r");
	char line[128];
	int n = 0, ms, req;

	CHECK(p != NULL);
	while (fgets(line, sizeof(line), p)) {
		printf("# %s", line);
		CHECK_EQ(sscanf(line, "%d ms: request %d timed out", &ms, &req),
			 2);
		CHECK(n < 4);
		CHECK_EQ(req, want[n][0]);
		CHECK(ms >= want[n][1]);
		n++;
	}
	CHECK_EQ(pclose(p), 0);
	CHECK_EQ(n, 4);
}

TWT_MAIN("uring",
	 TWT_CASE(cmd_add_query_modify_cancel),
	 TWT_CASE(cmd_errors),
	 TWT_CASE(cmd_batch),
	 TWT_CASE(cmd_arg_paged_out),
	 TWT_CASE(read_inline),
	 TWT_CASE(read_waits_by_poll),
	 TWT_CASE(readv_and_nowait),
	 TWT_CASE_T(idle_timeouts_through_ring, 300),
	 TWT_CASE(example_uring_timers))
