// SPDX-License-Identifier: GPL-2.0
/*
 * twheel-echo-server - an epoll TCP echo server on 127.0.0.1 whose
 * per-connection idle timeouts all live in ONE /dev/twheel fd.
 *
 * The timer path, which is the point of the example:
 *
 *   accept        TWHEEL_IOC_ADD: a timer with the idle timeout as its
 *                 first deadline and as its period, cookie = the
 *                 connection's index. It lives as long as the connection
 *                 and its id never changes (periodic, so that it still
 *                 exists when an expiry turns out to be activity, below).
 *   data          TWHEEL_IOC_MODIFY of that timer: the deadline moves to
 *                 "timeout from now". One ioctl per activity; if the
 *                 timer had just expired, its unread record is retracted.
 *   expiry        the twheel fd is in the same epoll set as the sockets;
 *                 a record names the connection (cookie): unless input
 *                 arrived that the loop has not read yet (then it is
 *                 activity after all), the connection is closed and its
 *                 timer cancelled.
 *   client close  TWHEEL_IOC_CANCEL of its timer.
 *
 * Usage: twheel-echo-server [--port N] [--timeout MS] [--quiet]
 * It prints one line per event (accepted, echoed, closed); --port 0
 * takes any free port, printed on the first line.
 * tests/integration/echo.c runs it with clients and checks that no
 * connection is closed before its idle timeout, none twice, every idle one
 * closed, and one timer ioctl per activity.
 */
#define _GNU_SOURCE		/* accept4 */
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "libtwheel.h"

/* epoll data of the two fds that are not connections. */
#define EP_LISTEN	UINT64_MAX
#define EP_TIMERS	(UINT64_MAX - 1)

struct conn {
	int fd;			/* -1 once closed */
	uint64_t timer;		/* its twheel timer's id */
	int64_t last_ns;	/* last activity, for the log only */
};

static int ep, lfd, tw;
static int64_t timeout_ns;
static bool verbose = true;
static struct conn *conns;
static size_t nconns, cap;

static int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * TWHEEL_SEC + ts.tv_nsec;
}

/* ---- the timer path: every twheel call of the server is one of these */

/* A new connection's timer: first deadline and period, the timeout. */
static uint64_t timer_add(uint64_t idx)
{
	struct twheel_add a = {
		.cookie = idx,
		.expires_ns = timeout_ns,
		.period_ns = timeout_ns,
		.clock = CLOCK_MONOTONIC,
	};

	if (twheel_add(tw, &a) < 0)
		err(1, "TWHEEL_IOC_ADD");
	return a.id;
}

/* Activity on @c: its deadline becomes "timeout from now". */
static void timer_touch(struct conn *c)
{
	struct twheel_modify m = {
		.id = c->timer,
		.expires_ns = timeout_ns,
		.period_ns = timeout_ns,
	};

	c->last_ns = now_ns();
	if (twheel_modify(tw, &m) < 0)
		err(1, "TWHEEL_IOC_MODIFY of timer %" PRIu64, c->timer);
}

/* The connection ends: so does its timer (an unread record too). */
static void timer_cancel(struct conn *c)
{
	if (twheel_cancel(tw, c->timer) < 0)
		err(1, "TWHEEL_IOC_CANCEL of timer %" PRIu64, c->timer);
}

/* ---- connections */

static void conn_close(struct conn *c)
{
	timer_cancel(c);
	close(c->fd);		/* also leaves the epoll set */
	c->fd = -1;
}

static void on_accept(void)
{
	for (;;) {
		int one = 1, fd;
		struct conn *c;

		fd = accept4(lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd < 0) {
			if (errno == EAGAIN || errno == EINTR ||
			    errno == ECONNABORTED)
				return;
			err(1, "accept");
		}
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		if (nconns == cap) {
			cap = cap ? 2 * cap : 64;
			conns = realloc(conns, cap * sizeof(*c));
			if (!conns)
				err(1, "realloc");
		}
		c = &conns[nconns];
		c->fd = fd;
		c->last_ns = now_ns();
		c->timer = timer_add(nconns);
		struct epoll_event ev = { .events = EPOLLIN,
					  .data.u64 = nconns };
		if (epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev) < 0)
			err(1, "epoll_ctl");
		if (verbose)
			printf("conn %zu: accepted, timer %" PRIu64 "\n",
			       nconns, c->timer);
		nconns++;
	}
}

/*
 * Input on connection @idx: echo all of it, then one MODIFY for the lot.
 * The peer closed (or reset): close, which cancels the timer.
 */
static void on_input(size_t idx)
{
	struct conn *c = &conns[idx];
	size_t got = 0;
	char buf[4096];

	for (;;) {
		ssize_t n = recv(c->fd, buf, sizeof(buf), MSG_DONTWAIT);

		if (n > 0) {
			/* An example: a short send is not retried. */
			send(c->fd, buf, n, MSG_DONTWAIT | MSG_NOSIGNAL);
			got += n;
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			break;
		/* End of input or an error: the client is gone. */
		conn_close(c);
		if (verbose)
			printf("conn %zu: closed by the client\n", idx);
		return;
	}
	if (got) {
		timer_touch(c);
		if (verbose)
			printf("conn %zu: echoed %zu bytes, timer re-armed\n",
			       idx, got);
	}
}

/* A timer expired: the connection it names was idle for the timeout. */
static void on_expiry(const struct twheel_event *ev)
{
	uint64_t idx = ev->cookie;
	struct conn *c;
	char b;

	/* Cancel retracts unread records: a closed connection has none. */
	if (idx >= nconns || conns[idx].fd < 0 || conns[idx].timer != ev->id) {
		printf("error: record for timer %" PRIu64 " cookie %" PRIu64
		       " of no open connection\n", (uint64_t)ev->id, idx);
		return;
	}
	c = &conns[idx];
	/*
	 * Input that arrived after this loop last looked is activity from
	 * before the close: read it (its MODIFY re-arms the same timer).
	 */
	if (recv(c->fd, &b, 1, MSG_PEEK | MSG_DONTWAIT) >= 0 ||
	    (errno != EAGAIN && errno != EWOULDBLOCK)) {
		on_input(idx);
		return;
	}
	if (verbose)
		printf("conn %" PRIu64 ": idle %.3f ms (record at %.3f ms), closed\n",
		       idx, (now_ns() - c->last_ns) / 1e6,
		       (ev->time_ns - c->last_ns) / 1e6);
	conn_close(c);		/* periodic: it would fire again */
}

static void on_timers(void)
{
	struct twheel_event ev[64];

	for (;;) {
		ssize_t n = twheel_read(tw, ev, 64);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN)
				return;
			err(1, "read /dev/twheel");
		}
		for (ssize_t i = 0; i < n; i++)
			on_expiry(&ev[i]);
	}
}

/*
 * The event loop. Sockets first, then the timer records, so input that
 * arrived together with an expiry counts as activity.
 */
static void serve(void)
{
	for (;;) {
		struct epoll_event evs[64];
		bool timers = false;
		int n = epoll_wait(ep, evs, 64, -1);

		if (n < 0 && errno != EINTR)
			err(1, "epoll_wait");
		for (int i = 0; i < n; i++) {
			uint64_t d = evs[i].data.u64;

			if (d == EP_LISTEN)
				on_accept();
			else if (d == EP_TIMERS)
				timers = true;
			else if (conns[d].fd >= 0)
				on_input(d);
		}
		if (timers)
			on_timers();
	}
}

/* The listening socket and the twheel fd, both in the epoll set. */
static void setup(uint16_t port)
{
	struct sockaddr_in sa = {
		.sin_family = AF_INET,
		.sin_port = htons(port),
		.sin_addr.s_addr = htonl(INADDR_LOOPBACK),
	};
	struct epoll_event ev = { .events = EPOLLIN };
	socklen_t len = sizeof(sa);
	int one = 1;

	tw = twheel_open(O_NONBLOCK | O_CLOEXEC);
	if (tw < 0)
		err(1, "/dev/twheel (is the module loaded?)");
	ep = epoll_create1(EPOLL_CLOEXEC);
	if (ep < 0)
		err(1, "epoll_create1");
	lfd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (lfd < 0)
		err(1, "socket");
	setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(lfd, (struct sockaddr *)&sa, sizeof(sa)) < 0)
		err(1, "bind 127.0.0.1:%u", port);
	if (listen(lfd, 128) < 0 ||
	    getsockname(lfd, (struct sockaddr *)&sa, &len) < 0)
		err(1, "listen");
	ev.data.u64 = EP_LISTEN;
	if (epoll_ctl(ep, EPOLL_CTL_ADD, lfd, &ev) < 0)
		err(1, "epoll_ctl");
	ev.data.u64 = EP_TIMERS;
	if (epoll_ctl(ep, EPOLL_CTL_ADD, tw, &ev) < 0)
		err(1, "epoll_ctl /dev/twheel");
	printf("echo server on 127.0.0.1:%u, idle timeout %.0f ms\n",
	       ntohs(sa.sin_port), timeout_ns / 1e6);
}

static void usage(int status)
{
	fprintf(status ? stderr : stdout,
		"usage: twheel-echo-server [--port N] [--timeout MS] [--quiet]\n"
		"An epoll TCP echo server on 127.0.0.1 (port 7777; 0: any) that\n"
		"closes connections idle for the timeout (default 10000 ms); the\n"
		"timeouts live in one /dev/twheel fd.\n");
	exit(status);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "port", required_argument, NULL, 'p' },
		{ "timeout", required_argument, NULL, 't' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	long port = 7777, timeout_ms = 10000;
	int o;

	setvbuf(stdout, NULL, _IOLBF, 0);
	while ((o = getopt_long(argc, argv, "p:t:qh", opts, NULL)) != -1) {
		switch (o) {
		case 'p':
			port = strtol(optarg, NULL, 10);
			if (port < 0 || port > 65535)
				usage(2);
			break;
		case 't':
			timeout_ms = strtol(optarg, NULL, 10);
			if (timeout_ms <= 0)
				usage(2);
			break;
		case 'q':
			verbose = false;
			break;
		case 'h':
			usage(0);
			break;
		default:
			usage(2);
		}
	}
	if (optind != argc)
		usage(2);
	timeout_ns = timeout_ms * TWHEEL_MSEC;
	setup(port);
	serve();
}
