// SPDX-License-Identifier: GPL-2.0
/*
 * readpoll_wait: readiness of the fd through poll, select and epoll
 * (level- and edge-triggered, several waiters).
 */
#include <pthread.h>
#include <sys/epoll.h>
#include <sys/select.h>

#include "readpoll.h"

#define ERD	(EPOLLIN | EPOLLRDNORM)

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

/* Level-triggered: reported every time while a record is queued. */
static void epoll_lt(void)
{
	int fd = twt_open(O_NONBLOCK);
	int ep = twt_ep_new(fd, EPOLLIN | EPOLLRDNORM | EPOLLPRI);
	struct twheel_event ev[4];
	uint32_t got = 0;
	int i;

	CHECK_OK(ep);
	CHECK_EQ(twt_ep_wait(ep, 0, NULL), 0);
	twt_add_rel(fd, 1, 50 * TWT_MS);
	twt_add_rel(fd, 2, 60 * TWT_MS);
	CHECK_EQ(twt_ep_wait(ep, 10000, &got), 1);
	CHECK_EQ(got, ERD);
	for (i = 0; i < 3; i++) {
		got = 0;
		CHECK_EQ(twt_ep_wait(ep, 0, &got), 1);
		CHECK_EQ(got, ERD);
	}
	/* Drain both records (waiting for the second if needed). */
	twt_read_n(fd, ev, 2, 10000);
	CHECK_EQ(twt_ep_wait(ep, 0, NULL), 0);
	CHECK_EQ(twt_ep_wait(ep, 100, NULL), 0);
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
	int ep = twt_ep_new(fd, EPOLLIN | EPOLLRDNORM | EPOLLET);
	struct twheel_event ev[8];
	uint32_t got = 0;

	CHECK_OK(ep);
	CHECK_EQ(twt_ep_wait(ep, 0, NULL), 0);
	/* A timer expiring. */
	twt_add_rel(fd, 1, 50 * TWT_MS);
	CHECK_EQ(twt_ep_wait(ep, 10000, &got), 1);
	CHECK(got & EPOLLIN);
	CHECK_EQ(twt_ep_wait(ep, 0, NULL), 0);
	CHECK_EQ(twt_ep_wait(ep, 100, NULL), 0);
	/* A new record while one is still unread: a new edge. */
	twt_add_rel(fd, 2, 0);
	CHECK_EQ(twt_ep_wait(ep, 0, &got), 1);
	CHECK(got & EPOLLIN);
	CHECK_EQ(twt_ep_wait(ep, 0, NULL), 0);
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
	CHECK_EQ(twt_ep_wait(ep, 10000, &got), 1);
	CHECK(got & EPOLLIN);
	CHECK_EQ(twt_ep_wait(ep, 0, NULL), 0);
	CHECK_EQ(read(fd, ev, sizeof(ev)), 3 * sizeof(ev[0]));
	CHECK_EQ(twt_ep_wait(ep, 100, NULL), 0);
	/* After draining: the next record is an edge again. */
	twt_add_rel(fd, 4, 0);
	CHECK_EQ(twt_ep_wait(ep, 0, &got), 1);
	CHECK_EQ(read(fd, ev, sizeof(ev)), sizeof(ev[0]));
	CHECK_EQ(ev[0].cookie, 4);
	CHECK_EQ(twt_ep_wait(ep, 0, NULL), 0);
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
		w->result = twt_ep_wait(w->ep, 20000, NULL);
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

	ep[0] = twt_ep_new(fd, EPOLLIN);
	ep[1] = twt_ep_new(fd, EPOLLIN | EPOLLET);
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
	int ep = twt_ep_new(fd, EPOLLIN);

	CHECK_OK(ep);
	twt_add_rel(fd, 1, 0);
	CHECK_EQ(twt_ep_wait(ep, 0, NULL), 1);
	close(fd);
	CHECK_EQ(twt_ep_wait(ep, 100, NULL), 0);
	close(ep);
}

TWT_MAIN("readpoll_wait",
	 TWT_CASE(poll_states),
	 TWT_CASE(poll_wakeup),
	 TWT_CASE(poll_many_fds),
	 TWT_CASE(select_states),
	 TWT_CASE(epoll_lt),
	 TWT_CASE(epoll_et),
	 TWT_CASE(poll_threads),
	 TWT_CASE(two_epolls),
	 TWT_CASE(epoll_close_fd))
