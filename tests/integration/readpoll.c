// SPDX-License-Identifier: GPL-2.0
/*
 * readpoll: read(2) buffer sizes, blocking and non-blocking reads, EINTR
 * and SA_RESTART, EFAULT without losing records, RWF_NOWAIT never taking
 * a page fault, no file position.
 */
#define _GNU_SOURCE	/* preadv2(), RWF_NOWAIT */
#include <linux/userfaultfd.h>
#include <pthread.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/uio.h>

#include "readpoll.h"

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
	 TWT_CASE(read_nowait_paged_out))
