// SPDX-License-Identifier: GPL-2.0
/*
 * readpoll: read(2) buffer sizes, blocking and non-blocking reads, EINTR
 * and SA_RESTART, EFAULT without losing records, RWF_NOWAIT never taking
 * a page fault, no file position, and readiness through poll, select and
 * epoll (level- and edge-triggered, several waiters).
 */
#define _GNU_SOURCE	/* preadv2(), RWF_NOWAIT */
#include <linux/userfaultfd.h>
#include <pthread.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/select.h>
#include <sys/syscall.h>
#include <sys/uio.h>

#include "twtest.h"

#define RD	(POLLIN | POLLRDNORM)
#define ERD	(EPOLLIN | EPOLLRDNORM)

/* Queue n records at once (deadline due), cookies base.., return ids. */
static void queue_due(int fd, int n, uint64_t base, uint64_t *ids)
{
	int i;

	for (i = 0; i < n; i++) {
		uint64_t id = twt_add_rel(fd, base + i, 0);

		if (ids)
			ids[i] = id;
	}
}

/* ---- buffer sizes ---- */

static void read_too_small(void)
{
	int fd = twt_open(O_NONBLOCK);
	struct twheel_event ev[2];
	size_t sizes[] = { 0, 1, 8, 39 };
	unsigned int k;

	/* Empty: the size is wrong whatever the queue holds. */
	for (k = 0; k < 4; k++)
		CHECK_ERR(read(fd, ev, sizes[k]), EINVAL);
	queue_due(fd, 1, 7, NULL);
	for (k = 0; k < 4; k++)
		CHECK_ERR(read(fd, ev, sizes[k]), EINVAL);
	/* Nothing was consumed. */
	CHECK_EQ(twt_queued(fd), 1);
	CHECK_EQ(read(fd, ev, sizeof(ev)), sizeof(ev[0]));
	CHECK_EQ(ev[0].cookie, 7);
	close(fd);
}

static void *kick_after(void *arg);
static void set_handler(int flags);

struct kick {
	pthread_t target;
	int64_t after_ns;
	int sig;
};

/* A blocking read with a too-small buffer fails at once, never sleeps. */
static void read_too_small_blocking(void)
{
	int fd = twt_open(0);
	struct twheel_event ev;
	struct kick k = { pthread_self(), 3 * TWT_S, SIGUSR1 };
	pthread_t t;

	/* Should read sleep, the kick ends it with EINTR: a failure. */
	set_handler(0);
	CHECK_OK(pthread_create(&t, NULL, kick_after, &k));
	CHECK_ERR(read(fd, &ev, 0), EINVAL);
	CHECK_ERR(read(fd, &ev, 39), EINVAL);
	CHECK_ERR(read(fd, &ev, 1), EINVAL);
	pthread_cancel(t);
	pthread_join(t, NULL);
	close(fd);
}

static void read_exact(void)
{
	int fd = twt_open(O_NONBLOCK);
	struct twheel_event ev;
	uint64_t ids[3];

	queue_due(fd, 3, 10, ids);
	CHECK_EQ(read(fd, &ev, sizeof(ev)), sizeof(ev));
	CHECK_EQ(ev.id, ids[0]);
	CHECK_EQ(twt_queued(fd), 2);
	CHECK_EQ(read(fd, &ev, sizeof(ev)), sizeof(ev));
	CHECK_EQ(ev.id, ids[1]);
	CHECK_EQ(read(fd, &ev, sizeof(ev)), sizeof(ev));
	CHECK_EQ(ev.id, ids[2]);
	CHECK_ERR(read(fd, &ev, sizeof(ev)), EAGAIN);
	close(fd);
}

/* Whole records only: 100 bytes is 2 records, 79 is one. */
static void read_partial_sizes(void)
{
	int fd = twt_open(O_NONBLOCK);
	unsigned char buf[200];
	struct twheel_event ev[3];
	uint64_t ids[5];

	queue_due(fd, 5, 20, ids);
	memset(buf, 0xAA, sizeof(buf));
	CHECK_EQ(read(fd, buf, 100), 80);
	/* Bytes 80..99 were not written. */
	CHECK_EQ(buf[80], 0xAA);
	CHECK_EQ(buf[99], 0xAA);
	memcpy(ev, buf, 80);
	CHECK_EQ(ev[0].id, ids[0]);
	CHECK_EQ(ev[1].id, ids[1]);
	CHECK_EQ(twt_queued(fd), 3);
	CHECK_EQ(read(fd, buf, 79), 40);
	memcpy(ev, buf, 40);
	CHECK_EQ(ev[0].id, ids[2]);
	CHECK_EQ(read(fd, buf, 41), 40);
	memcpy(ev, buf, 40);
	CHECK_EQ(ev[0].id, ids[3]);
	CHECK_EQ(read(fd, buf, 200), 40);
	memcpy(ev, buf, 40);
	CHECK_EQ(ev[0].id, ids[4]);
	CHECK_ERR(read(fd, buf, 200), EAGAIN);
	close(fd);
}

/* A large buffer gets everything queued, in order, in one read. */
static void read_large(void)
{
	int fd = twt_open(O_NONBLOCK);
	static struct twheel_event ev[2000];
	static uint64_t ids[1500];
	ssize_t r;
	int i;

	queue_due(fd, 1500, 1000, ids);
	CHECK_EQ(twt_queued(fd), 1500);
	r = read(fd, ev, sizeof(ev));
	CHECK_EQ(r, 1500 * sizeof(ev[0]));
	for (i = 0; i < 1500; i++) {
		CHECK_EQ(ev[i].id, ids[i]);
		CHECK_EQ(ev[i].cookie, 1000 + i);
	}
	CHECK_EQ(twt_queued(fd), 0);
	CHECK_EQ(twt_timers(fd), 0);
	close(fd);
}

/* ---- blocking, non-blocking ---- */

static void nonblock_empty(void)
{
	int fd = twt_open(O_NONBLOCK);
	struct twheel_event ev;

	CHECK_ERR(read(fd, &ev, sizeof(ev)), EAGAIN);
	twt_add_rel(fd, 1, 3600 * TWT_S);	/* pending is not readable */
	CHECK_ERR(read(fd, &ev, sizeof(ev)), EAGAIN);
	close(fd);
}

/* O_NONBLOCK set and cleared with fcntl takes effect on read. */
static void nonblock_fcntl(void)
{
	int fd = twt_open(0);
	struct twheel_event ev;
	int64_t t0;

	CHECK_OK(fcntl(fd, F_SETFL, O_NONBLOCK));
	CHECK_ERR(read(fd, &ev, sizeof(ev)), EAGAIN);
	CHECK_OK(fcntl(fd, F_SETFL, 0));
	t0 = twt_mono();
	twt_add_rel(fd, 5, 100 * TWT_MS);
	CHECK_EQ(read(fd, &ev, sizeof(ev)), sizeof(ev));	/* blocks */
	CHECK(twt_mono() >= t0 + 100 * TWT_MS);
	CHECK_EQ(ev.cookie, 5);
	close(fd);
}

static void blocking_read_expiry(void)
{
	int fd = twt_open(0);
	struct twheel_event ev[4];
	int64_t t0 = twt_mono(), t1;
	uint64_t id = twt_add_rel(fd, 9, 150 * TWT_MS);

	CHECK_EQ(read(fd, ev, sizeof(ev)), sizeof(ev[0]));
	t1 = twt_mono();
	CHECK_EQ(ev[0].id, id);
	CHECK(t1 >= t0 + 150 * TWT_MS);
	CHECK(ev[0].time_ns >= t0 + 150 * TWT_MS);
	printf("# woken %.3f ms after the deadline\n",
	       (t1 - t0 - 150 * TWT_MS) / 1e6);
	close(fd);
}

struct adder {
	int fd;
	int64_t after_ns;
	int64_t expires;
	uint64_t id;
};

static void *add_after(void *arg)
{
	struct adder *a = arg;

	twt_sleep_ns(a->after_ns);
	if (twt_add_raw(a->fd, 77, a->expires, 0, CLOCK_MONOTONIC,
			&a->id))
		a->id = 0;
	return NULL;
}

/* A read asleep on an empty fd is woken by a due timer added meanwhile. */
static void blocking_read_woken_by_add(void)
{
	int fd = twt_open(0);
	struct adder a = { fd, 100 * TWT_MS, 0, 0 };
	struct twheel_event ev;
	pthread_t t;

	CHECK_OK(pthread_create(&t, NULL, add_after, &a));
	CHECK_EQ(read(fd, &ev, sizeof(ev)), sizeof(ev));
	pthread_join(t, NULL);
	CHECK(a.id != 0);
	CHECK_EQ(ev.id, a.id);
	close(fd);
}

/*
 * A read asleep while only a far timer is pending; another thread adds an
 * earlier one: the wheel must re-arm for it.
 */
static void blocking_read_earlier_timer(void)
{
	int fd = twt_open(0);
	struct adder a = { fd, 100 * TWT_MS, 100 * TWT_MS, 0 };
	struct twheel_event ev;
	pthread_t t;
	int64_t t0 = twt_mono();

	twt_add_rel(fd, 1, 60 * TWT_S);
	CHECK_OK(pthread_create(&t, NULL, add_after, &a));
	CHECK_EQ(read(fd, &ev, sizeof(ev)), sizeof(ev));
	pthread_join(t, NULL);
	CHECK(a.id != 0);
	CHECK_EQ(ev.id, a.id);
	CHECK(twt_mono() - t0 < 20 * TWT_S);
	close(fd);
}

/* ---- signals ---- */

static volatile sig_atomic_t sigs;

static void on_sig(int sig)
{
	(void)sig;
	sigs++;
}

static void *kick_after(void *arg)
{
	struct kick *k = arg;

	twt_sleep_ns(k->after_ns);
	pthread_kill(k->target, k->sig);
	return NULL;
}

static void set_handler(int flags)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_sig;
	sa.sa_flags = flags;
	sigemptyset(&sa.sa_mask);
	CHECK_OK(sigaction(SIGUSR1, &sa, NULL));
}

/* A signal without SA_RESTART interrupts a blocking read: EINTR. */
static void read_eintr(void)
{
	int fd = twt_open(0);
	struct kick k = { pthread_self(), 200 * TWT_MS, SIGUSR1 };
	struct twheel_event ev;
	uint64_t far;
	pthread_t t;
	int64_t t0;

	set_handler(0);
	far = twt_add_rel(fd, 1, 60 * TWT_S);
	t0 = twt_mono();
	CHECK_OK(pthread_create(&t, NULL, kick_after, &k));
	CHECK_ERR(read(fd, &ev, sizeof(ev)), EINTR);
	CHECK(twt_mono() - t0 >= 200 * TWT_MS);
	CHECK_EQ(sigs, 1);
	pthread_join(t, NULL);
	/* Nothing lost or changed. */
	CHECK_EQ(twt_timers(fd), 1);
	CHECK_EQ(twt_cancel(fd, far), TWHEEL_STATE_PENDING);
	twt_add_rel(fd, 2, 0);
	CHECK_EQ(read(fd, &ev, sizeof(ev)), sizeof(ev));
	CHECK_EQ(ev.cookie, 2);
	close(fd);
}

/* Under SA_RESTART the read is restarted and returns the record later. */
static void read_sa_restart(void)
{
	int fd = twt_open(0);
	struct kick k = { pthread_self(), 200 * TWT_MS, SIGUSR1 };
	struct twheel_event ev;
	int64_t t0;
	uint64_t id;
	pthread_t t;

	set_handler(SA_RESTART);
	t0 = twt_mono();
	id = twt_add_rel(fd, 3, 700 * TWT_MS);
	CHECK_OK(pthread_create(&t, NULL, kick_after, &k));
	CHECK_EQ(read(fd, &ev, sizeof(ev)), sizeof(ev));
	CHECK_EQ(sigs, 1);
	CHECK_EQ(ev.id, id);
	CHECK(twt_mono() - t0 >= 700 * TWT_MS);
	pthread_join(t, NULL);
	close(fd);
}

/* ---- faults ---- */

static void read_efault(void)
{
	int fd = twt_open(O_NONBLOCK);
	char *guard = twt_guard_map(4096);
	void *volatile nullp = NULL;
	struct twheel_event ev;
	long pg = sysconf(_SC_PAGESIZE);
	uint64_t ids[2];
	char *ro;

	ro = mmap(NULL, pg, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK(ro != MAP_FAILED);
	queue_due(fd, 2, 50, ids);
	CHECK_ERR(read(fd, guard, sizeof(ev)), EFAULT);
	CHECK_ERR(read(fd, guard, 4096), EFAULT);
	CHECK_ERR(read(fd, nullp, sizeof(ev)), EFAULT);
	CHECK_ERR(read(fd, ro, sizeof(ev)), EFAULT);
	CHECK_ERR(read(fd, ro, pg), EFAULT);
	/* Nothing lost, nothing reordered. */
	CHECK_EQ(twt_queued(fd), 2);
	CHECK_EQ(twt_timers(fd), 2);
	CHECK_EQ(twt_poll(fd, 0), RD);
	CHECK_EQ(read(fd, &ev, sizeof(ev)), sizeof(ev));
	CHECK_EQ(ev.id, ids[0]);
	CHECK_EQ(ev.cookie, 50);
	CHECK_EQ(read(fd, &ev, sizeof(ev)), sizeof(ev));
	CHECK_EQ(ev.id, ids[1]);
	close(fd);
}

/*
 * A buffer running into an unmapped page: the records that fit before it
 * are returned, the one that faults and those after it stay queued.
 */
static void read_straddle(void)
{
	int fd = twt_open(O_NONBLOCK);
	char *guard = twt_guard_map(4096);
	struct twheel_event ev[8];
	uint64_t ids[6];
	int i;

	queue_due(fd, 6, 60, ids);
	/* Room for exactly one record before the guard page. */
	CHECK_EQ(read(fd, guard - 40, 120), 40);
	memcpy(&ev[0], guard - 40, 40);
	CHECK_EQ(ev[0].id, ids[0]);
	CHECK_EQ(twt_queued(fd), 5);
	/* One and a half: the second record faults half-way. */
	CHECK_EQ(read(fd, guard - 60, 120), 40);
	memcpy(&ev[0], guard - 60, 40);
	CHECK_EQ(ev[0].id, ids[1]);
	CHECK_EQ(twt_queued(fd), 4);
	/* Two whole records, then the guard. */
	CHECK_EQ(read(fd, guard - 80, 4096), 80);
	memcpy(ev, guard - 80, 80);
	CHECK_EQ(ev[0].id, ids[2]);
	CHECK_EQ(ev[1].id, ids[3]);
	/* Not even one fits: EFAULT, nothing consumed. */
	CHECK_ERR(read(fd, guard - 39, 80), EFAULT);
	CHECK_ERR(read(fd, guard - 1, 40), EFAULT);
	CHECK_EQ(twt_queued(fd), 2);
	CHECK_EQ(read(fd, ev, sizeof(ev)), 80);
	CHECK_EQ(ev[0].id, ids[4]);
	CHECK_EQ(ev[1].id, ids[5]);
	for (i = 0; i < 2; i++)
		CHECK_EQ(ev[i].cookie, 64 + i);
	CHECK_EQ(twt_timers(fd), 0);
	close(fd);
}

/*
 * preadv2(RWF_NOWAIT) on a blocking fd into a buffer whose second page is
 * not in memory (userfaultfd): the records that fit before it are
 * returned, the next is EAGAIN, never a fault taken (the userfaultfd sees
 * none); nothing is lost. And the fd has no position: pread(2) and
 * lseek(2) are ESPIPE.
 */
static void read_nowait_paged_out(void)
{
	size_t pg = (size_t)sysconf(_SC_PAGESIZE);
	struct uffdio_register reg = { 0 };
	struct uffdio_copy cp = { 0 };
	int fd = twt_open(0), uffd;
	struct twheel_event ev;
	struct uffd_msg msg;
	uint64_t ids[3];
	struct iovec iov;
	char *mem;

	uffd = twt_uffd(O_NONBLOCK, 0);
	mem = mmap(NULL, 2 * pg, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK(mem != MAP_FAILED);
	memset(mem, 0, pg);
	reg.range.start = (uintptr_t)(mem + pg);
	reg.range.len = pg;
	reg.mode = UFFDIO_REGISTER_MODE_MISSING;
	CHECK_OK(ioctl(uffd, UFFDIO_REGISTER, &reg));
	queue_due(fd, 3, 80, ids);

	/* One record's room in memory, then the missing page. */
	iov.iov_base = mem + pg - sizeof(ev);
	iov.iov_len = 3 * sizeof(ev);
	CHECK_EQ(preadv2(fd, &iov, 1, -1, RWF_NOWAIT), sizeof(ev));
	memcpy(&ev, mem + pg - sizeof(ev), sizeof(ev));
	CHECK_EQ(ev.id, ids[0]);
	iov.iov_base = mem + pg;
	CHECK_ERR(preadv2(fd, &iov, 1, -1, RWF_NOWAIT), EAGAIN);
	CHECK_ERR(read(uffd, &msg, sizeof(msg)), EAGAIN);
	CHECK_EQ(twt_queued(fd), 2);
	/* The page in (writable: not the zero page): the rest, in order. */
	cp.dst = (uintptr_t)(mem + pg);
	cp.src = (uintptr_t)mem;
	cp.len = pg;
	CHECK_OK(ioctl(uffd, UFFDIO_COPY, &cp));
	CHECK_EQ(preadv2(fd, &iov, 1, -1, RWF_NOWAIT), 2 * sizeof(ev));
	memcpy(&ev, mem + pg + sizeof(ev), sizeof(ev));
	CHECK_EQ(ev.id, ids[2]);
	CHECK_ERR(preadv2(fd, &iov, 1, -1, RWF_NOWAIT), EAGAIN);

	queue_due(fd, 1, 90, NULL);
	CHECK_ERR(pread(fd, &ev, sizeof(ev), 0), ESPIPE);
	CHECK_ERR(preadv2(fd, &iov, 1, 0, 0), ESPIPE);
	CHECK_ERR(lseek(fd, 0, SEEK_CUR), ESPIPE);
	CHECK_EQ(twt_queued(fd), 1);
	munmap(mem, 2 * pg);
	close(uffd);
	close(fd);
}

/* ---- poll and select ---- */

static int poll_all(int fd, int timeout)
{
	struct pollfd p = {
		.fd = fd,
		.events = POLLIN | POLLRDNORM | POLLRDBAND | POLLPRI,
	};

	if (poll(&p, 1, timeout) < 0)
		return -1;
	return p.revents;
}

static void poll_states(void)
{
	int fd = twt_open(O_NONBLOCK);
	struct twheel_event ev[2];
	struct pollfd p = { .fd = fd, .events = POLLOUT | POLLWRNORM };

	CHECK_EQ(poll_all(fd, 0), 0);
	twt_add_rel(fd, 1, 3600 * TWT_S);	/* pending only */
	CHECK_EQ(poll_all(fd, 0), 0);
	queue_due(fd, 2, 0, NULL);
	CHECK_EQ(poll_all(fd, 0), RD);
	CHECK_EQ(poll_all(fd, 0), RD);		/* level: still there */
	CHECK_EQ(read(fd, ev, sizeof(ev[0])), sizeof(ev[0]));
	CHECK_EQ(poll_all(fd, 0), RD);		/* one left */
	CHECK_EQ(read(fd, ev, sizeof(ev)), sizeof(ev[0]));
	CHECK_EQ(poll_all(fd, 0), 0);		/* drained */
	CHECK_OK(poll(&p, 1, 0));
	printf("# POLLOUT|POLLWRNORM revents: %#x\n", p.revents);
	close(fd);
}

static void poll_wakeup(void)
{
	int fd = twt_open(O_NONBLOCK);
	int64_t t0 = twt_mono(), t1;
	int r;

	twt_add_rel(fd, 1, 100 * TWT_MS);
	r = poll_all(fd, 10000);
	t1 = twt_mono();
	CHECK_EQ(r, RD);
	CHECK(t1 >= t0 + 100 * TWT_MS);
	CHECK(t1 < t0 + 9 * TWT_S);
	printf("# poll woken %.3f ms after the deadline\n",
	       (t1 - t0 - 100 * TWT_MS) / 1e6);
	close(fd);
}

/* Among several twheel fds, only the one with a record is readable. */
static void poll_many_fds(void)
{
	struct pollfd p[8];
	int i, n;

	for (i = 0; i < 8; i++) {
		p[i].fd = twt_open(O_NONBLOCK);
		p[i].events = POLLIN;
		twt_add_rel(p[i].fd, i, 3600 * TWT_S);
	}
	twt_add_rel(p[5].fd, 99, 50 * TWT_MS);
	n = poll(p, 8, 10000);
	CHECK_EQ(n, 1);
	for (i = 0; i < 8; i++)
		CHECK_EQ(p[i].revents, i == 5 ? POLLIN : 0);
	for (i = 0; i < 8; i++)
		close(p[i].fd);
}

static void select_states(void)
{
	int fd = twt_open(O_NONBLOCK);
	struct timeval tv;
	struct twheel_event ev;
	fd_set r, w, e;
	int64_t t0;

	FD_ZERO(&r);
	FD_SET(fd, &r);
	e = r;
	tv = (struct timeval){ 0, 0 };
	CHECK_EQ(select(fd + 1, &r, NULL, &e, &tv), 0);

	t0 = twt_mono();
	twt_add_rel(fd, 1, 100 * TWT_MS);
	FD_ZERO(&r);
	FD_SET(fd, &r);
	FD_ZERO(&e);
	FD_SET(fd, &e);
	tv = (struct timeval){ 10, 0 };
	CHECK_EQ(select(fd + 1, &r, NULL, &e, &tv), 1);
	CHECK(FD_ISSET(fd, &r));
	CHECK(!FD_ISSET(fd, &e));
	CHECK(twt_mono() >= t0 + 100 * TWT_MS);
	CHECK_EQ(read(fd, &ev, sizeof(ev)), sizeof(ev));

	FD_ZERO(&r);
	FD_SET(fd, &r);
	FD_ZERO(&w);
	tv = (struct timeval){ 0, 0 };
	CHECK_EQ(select(fd + 1, &r, &w, NULL, &tv), 0);
	close(fd);
}

/* ---- epoll ---- */

static int ep_wait(int ep, int timeout, uint32_t *events)
{
	struct epoll_event e[4];
	int n;

	do {
		n = epoll_wait(ep, e, 4, timeout);
	} while (n < 0 && errno == EINTR);
	if (n > 0 && events)
		*events = e[0].events;
	return n;
}

static int ep_new(int fd, uint32_t events)
{
	int ep = epoll_create1(EPOLL_CLOEXEC);
	struct epoll_event e = { .events = events, .data.u64 = 0x1234 };

	if (ep < 0)
		return -1;
	if (epoll_ctl(ep, EPOLL_CTL_ADD, fd, &e) < 0)
		return -1;
	return ep;
}

/* Level-triggered: reported every time while a record is queued. */
static void epoll_lt(void)
{
	int fd = twt_open(O_NONBLOCK);
	int ep = ep_new(fd, EPOLLIN | EPOLLRDNORM | EPOLLPRI);
	struct twheel_event ev[4];
	uint32_t got = 0;
	int i;

	CHECK_OK(ep);
	CHECK_EQ(ep_wait(ep, 0, NULL), 0);
	twt_add_rel(fd, 1, 50 * TWT_MS);
	twt_add_rel(fd, 2, 60 * TWT_MS);
	CHECK_EQ(ep_wait(ep, 10000, &got), 1);
	CHECK_EQ(got, ERD);
	for (i = 0; i < 3; i++) {
		got = 0;
		CHECK_EQ(ep_wait(ep, 0, &got), 1);
		CHECK_EQ(got, ERD);
	}
	/* Drain both records (waiting for the second if needed). */
	twt_read_n(fd, ev, 2, 10000);
	CHECK_EQ(ep_wait(ep, 0, NULL), 0);
	CHECK_EQ(ep_wait(ep, 100, NULL), 0);
	close(ep);
	close(fd);
}

/*
 * Edge-triggered: reported once per arrival of new records, not again
 * while the same records sit unread.
 */
static void epoll_et(void)
{
	int fd = twt_open(O_NONBLOCK);
	int ep = ep_new(fd, EPOLLIN | EPOLLRDNORM | EPOLLET);
	struct twheel_event ev[8];
	uint32_t got = 0;

	CHECK_OK(ep);
	CHECK_EQ(ep_wait(ep, 0, NULL), 0);
	/* A timer expiring. */
	twt_add_rel(fd, 1, 50 * TWT_MS);
	CHECK_EQ(ep_wait(ep, 10000, &got), 1);
	CHECK(got & EPOLLIN);
	CHECK_EQ(ep_wait(ep, 0, NULL), 0);
	CHECK_EQ(ep_wait(ep, 100, NULL), 0);
	/* A new record while one is still unread: a new edge. */
	twt_add_rel(fd, 2, 0);
	CHECK_EQ(ep_wait(ep, 0, &got), 1);
	CHECK(got & EPOLLIN);
	CHECK_EQ(ep_wait(ep, 0, NULL), 0);
	/*
	 * A new expiry while two are unread: again. (Due on a 64 ms
	 * boundary, 63 ms ahead: its first hrtimer event is its expiry.
	 * An event that only cascades wakes epoll too, and while records
	 * are unread the fd is readable, so edge mode may report it again
	 * without a new record; the header says so.)
	 */
	twt_sleep_ns(64 * TWT_MS - twt_mono() % (64 * TWT_MS) + TWT_MS);
	twt_add_abs(fd, 3, twt_mono() / (64 * TWT_MS) * (64 * TWT_MS) +
		    64 * TWT_MS, CLOCK_MONOTONIC);
	CHECK_EQ(ep_wait(ep, 10000, &got), 1);
	CHECK(got & EPOLLIN);
	CHECK_EQ(ep_wait(ep, 0, NULL), 0);
	CHECK_EQ(read(fd, ev, sizeof(ev)), 3 * sizeof(ev[0]));
	CHECK_EQ(ep_wait(ep, 100, NULL), 0);
	/* After draining: the next record is an edge again. */
	twt_add_rel(fd, 4, 0);
	CHECK_EQ(ep_wait(ep, 0, &got), 1);
	CHECK_EQ(read(fd, ev, sizeof(ev)), sizeof(ev[0]));
	CHECK_EQ(ev[0].cookie, 4);
	CHECK_EQ(ep_wait(ep, 0, NULL), 0);
	close(ep);
	close(fd);
}

struct waiter {
	int fd;		/* poll this, or */
	int ep;		/* epoll_wait on this if >= 0 */
	int64_t woke;
	int result;
};

static void *wait_thread(void *arg)
{
	struct waiter *w = arg;

	if (w->ep >= 0)
		w->result = ep_wait(w->ep, 20000, NULL);
	else
		w->result = poll_all(w->fd, 20000);
	w->woke = twt_mono();
	return NULL;
}

/* Several threads in poll on one fd: one expiry wakes them all. */
static void poll_threads(void)
{
	int fd = twt_open(O_NONBLOCK);
	struct waiter w[4];
	pthread_t t[4];
	int64_t t0 = twt_mono();
	int i;

	twt_add_rel(fd, 1, 300 * TWT_MS);
	for (i = 0; i < 4; i++) {
		w[i] = (struct waiter){ fd, -1, 0, -2 };
		CHECK_OK(pthread_create(&t[i], NULL, wait_thread, &w[i]));
	}
	for (i = 0; i < 4; i++) {
		pthread_join(t[i], NULL);
		CHECK_EQ(w[i].result, RD);
		CHECK(w[i].woke >= t0 + 300 * TWT_MS);
		printf("# thread %d woke %.3f ms after the deadline\n", i,
		       (w[i].woke - t0 - 300 * TWT_MS) / 1e6);
	}
	close(fd);
}

/* Two epoll instances watching one fd, each waited on: both woken. */
static void two_epolls(void)
{
	int fd = twt_open(O_NONBLOCK);
	int ep[2];
	struct waiter w[2];
	pthread_t t[2];
	int64_t t0;
	int i, round;

	ep[0] = ep_new(fd, EPOLLIN);
	ep[1] = ep_new(fd, EPOLLIN | EPOLLET);
	CHECK_OK(ep[0]);
	CHECK_OK(ep[1]);
	for (round = 0; round < 2; round++) {
		struct twheel_event ev;

		t0 = twt_mono();
		twt_add_rel(fd, round, 300 * TWT_MS);
		for (i = 0; i < 2; i++) {
			w[i] = (struct waiter){ fd, ep[i], 0, -2 };
			CHECK_OK(pthread_create(&t[i], NULL, wait_thread, &w[i]));
		}
		for (i = 0; i < 2; i++) {
			pthread_join(t[i], NULL);
			CHECK_EQ(w[i].result, 1);
			CHECK(w[i].woke >= t0 + 300 * TWT_MS);
		}
		CHECK_EQ(read(fd, &ev, sizeof(ev)), sizeof(ev));
		CHECK_EQ(ev.cookie, round);
	}
	close(ep[0]);
	close(ep[1]);
	close(fd);
}

/* An epoll set holding the fd, the fd closed: no longer reported. */
static void epoll_close_fd(void)
{
	int fd = twt_open(O_NONBLOCK);
	int ep = ep_new(fd, EPOLLIN);

	CHECK_OK(ep);
	twt_add_rel(fd, 1, 0);
	CHECK_EQ(ep_wait(ep, 0, NULL), 1);
	close(fd);
	CHECK_EQ(ep_wait(ep, 100, NULL), 0);
	close(ep);
}

TWT_MAIN("readpoll",
	 TWT_CASE(read_too_small),
	 TWT_CASE(read_too_small_blocking),
	 TWT_CASE(read_exact),
	 TWT_CASE(read_partial_sizes),
	 TWT_CASE(read_large),
	 TWT_CASE(nonblock_empty),
	 TWT_CASE(nonblock_fcntl),
	 TWT_CASE(blocking_read_expiry),
	 TWT_CASE(blocking_read_woken_by_add),
	 TWT_CASE(blocking_read_earlier_timer),
	 TWT_CASE(read_eintr),
	 TWT_CASE(read_sa_restart),
	 TWT_CASE(read_efault),
	 TWT_CASE(read_straddle),
	 TWT_CASE(read_nowait_paged_out),
	 TWT_CASE(poll_states),
	 TWT_CASE(poll_wakeup),
	 TWT_CASE(poll_many_fds),
	 TWT_CASE(select_states),
	 TWT_CASE(epoll_lt),
	 TWT_CASE(epoll_et),
	 TWT_CASE(poll_threads),
	 TWT_CASE(two_epolls),
	 TWT_CASE(epoll_close_fd))
