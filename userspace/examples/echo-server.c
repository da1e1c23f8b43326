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
 * Usage:
 *   twheel-echo-server [--port N] [--timeout MS]   serve until killed
 *   twheel-echo-server --selftest                   check itself, exit 0/1
 *
 * --selftest runs the server and its own clients (threads) in this one
 * process: "idle" clients send a little and go quiet, "active" ones send
 * every timeout/8 for 3 s and then go quiet, "quitters" close first. It
 * checks, with CLOCK_MONOTONIC, that no connection is closed before the
 * idle timeout has passed since its last activity (seen from the server
 * and from the client), that quiet clients are closed exactly once and
 * within the run, that active ones are kept, and that every activity cost
 * exactly one timer ioctl; it prints a summary and exits 1 on a violation.
 * Only lower bounds are asserted on time: a slow machine delays closes,
 * it never makes them early.
 */
#define _GNU_SOURCE		/* accept4 */
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <net/if.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
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
	int64_t last_ns;	/* last activity seen (before the MODIFY) */
	unsigned int closes;	/* times the server closed it: must be 1 */
};

struct server {
	int ep, lfd, tw;
	int64_t timeout_ns;
	bool verbose;
	struct conn *conns;
	size_t nconns, cap, open;

	/* Timer ioctls, all counted in tw_*(). */
	uint64_t timer_ioctls, adds, modifies, cancels, retracted;
	/* Activities (reads of data) and the timer ioctls they made. */
	uint64_t activities, activity_ioctls;
	uint64_t records, idle_closed, peer_closed, raced, early, twice;
	int64_t *late;		/* close time minus deadline, per idle close */
	size_t nlate;
};

static int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * TWHEEL_SEC + ts.tv_nsec;
}

/* ---- the timer path: every twheel call of the server is one of these */

static uint64_t tw_add(struct server *s, uint64_t idx)
{
	struct twheel_add a = {
		.cookie = idx,
		.expires_ns = s->timeout_ns,
		.period_ns = s->timeout_ns,
		.clock = CLOCK_MONOTONIC,
	};

	s->timer_ioctls++;
	s->adds++;
	if (twheel_add(s->tw, &a) < 0)
		err(1, "TWHEEL_IOC_ADD");
	return a.id;
}

/* Activity on @c: its deadline becomes "timeout from now". */
static void tw_touch(struct server *s, struct conn *c)
{
	struct twheel_modify m = {
		.id = c->timer,
		.expires_ns = s->timeout_ns,
		.period_ns = s->timeout_ns,
	};
	int r;

	c->last_ns = now_ns();
	s->timer_ioctls++;
	s->modifies++;
	r = twheel_modify(s->tw, &m);
	if (r < 0)
		err(1, "TWHEEL_IOC_MODIFY of timer %" PRIu64, c->timer);
	if (r == TWHEEL_STATE_QUEUED)
		s->retracted++;
}

static void tw_cancel(struct server *s, struct conn *c)
{
	int r;

	s->timer_ioctls++;
	s->cancels++;
	r = twheel_cancel(s->tw, c->timer);
	if (r < 0)
		err(1, "TWHEEL_IOC_CANCEL of timer %" PRIu64, c->timer);
	if (r == TWHEEL_STATE_QUEUED)
		s->retracted++;
}

/* ---- connections */

static void conn_close(struct server *s, struct conn *c)
{
	close(c->fd);		/* also leaves the epoll set */
	c->fd = -1;
	c->closes++;
	s->open--;
}

static void on_accept(struct server *s)
{
	for (;;) {
		int one = 1, fd;
		struct conn *c;

		fd = accept4(s->lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd < 0) {
			if (errno == EAGAIN || errno == EINTR ||
			    errno == ECONNABORTED)
				return;
			err(1, "accept");
		}
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		if (s->nconns == s->cap) {
			s->cap = s->cap ? 2 * s->cap : 64;
			s->conns = realloc(s->conns, s->cap * sizeof(*c));
			if (!s->conns)
				err(1, "realloc");
		}
		c = &s->conns[s->nconns];
		c->fd = fd;
		c->closes = 0;
		c->last_ns = now_ns();
		c->timer = tw_add(s, s->nconns);
		struct epoll_event ev = { .events = EPOLLIN,
					  .data.u64 = s->nconns };
		if (epoll_ctl(s->ep, EPOLL_CTL_ADD, fd, &ev) < 0)
			err(1, "epoll_ctl");
		s->nconns++;
		s->open++;
		if (s->verbose)
			printf("conn %zu: accepted, timer %" PRIu64 "\n",
			       s->nconns - 1, c->timer);
	}
}

/*
 * Input on connection @idx: echo all of it, then one MODIFY for the lot.
 * The peer closed (or reset): cancel the timer and close.
 */
static void on_input(struct server *s, size_t idx)
{
	struct conn *c = &s->conns[idx];
	bool got = false;
	char buf[4096];

	for (;;) {
		ssize_t n = recv(c->fd, buf, sizeof(buf), MSG_DONTWAIT);

		if (n > 0) {
			/* An example: a short send is not retried. */
			if (send(c->fd, buf, n, MSG_DONTWAIT | MSG_NOSIGNAL) < 0 &&
			    s->verbose)
				printf("conn %zu: send: %s\n", idx,
				       strerror(errno));
			got = true;
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			break;
		/* End of input or an error: the client is gone. */
		tw_cancel(s, c);
		conn_close(s, c);
		s->peer_closed++;
		if (s->verbose)
			printf("conn %zu: closed by the client\n", idx);
		return;
	}
	if (got) {
		uint64_t before = s->timer_ioctls;

		tw_touch(s, c);
		s->activities++;
		s->activity_ioctls += s->timer_ioctls - before;
	}
}

static void on_expiry(struct server *s, const struct twheel_event *ev)
{
	uint64_t idx = ev->cookie;
	struct conn *c;
	int64_t now;
	char b;

	s->records++;
	if (idx >= s->nconns || s->conns[idx].fd < 0 ||
	    s->conns[idx].timer != ev->id) {
		/* A record after the connection's close: never expected. */
		s->twice++;
		printf("error: record for timer %" PRIu64 " cookie %" PRIu64
		       " of no open connection\n", (uint64_t)ev->id, idx);
		return;
	}
	c = &s->conns[idx];
	/*
	 * Input that arrived after this loop last looked is activity from
	 * before the close: read it (its MODIFY re-arms the same timer).
	 */
	if (recv(c->fd, &b, 1, MSG_PEEK | MSG_DONTWAIT) >= 0 ||
	    (errno != EAGAIN && errno != EWOULDBLOCK)) {
		s->raced++;
		on_input(s, idx);
		return;
	}
	now = now_ns();
	if (now - c->last_ns < s->timeout_ns ||
	    ev->time_ns < c->last_ns + s->timeout_ns) {
		s->early++;
		printf("error: conn %" PRIu64 " expired %.3f ms after its last activity (record at %.3f ms), timeout %.3f ms\n",
		       idx, (now - c->last_ns) / 1e6,
		       (ev->time_ns - c->last_ns) / 1e6, s->timeout_ns / 1e6);
	}
	s->late[s->nlate++ % 4096] = now - (c->last_ns + s->timeout_ns);
	tw_cancel(s, c);	/* periodic: it would fire again */
	conn_close(s, c);
	s->idle_closed++;
	if (s->verbose)
		printf("conn %" PRIu64 ": idle for %.1f ms, closed\n",
		       idx, (now - c->last_ns) / 1e6);
}

static void on_timers(struct server *s)
{
	struct twheel_event ev[64];

	for (;;) {
		ssize_t n = twheel_read(s->tw, ev, 64);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN)
				return;
			err(1, "read /dev/twheel");
		}
		for (ssize_t i = 0; i < n; i++)
			on_expiry(s, &ev[i]);
	}
}

/*
 * One round of the event loop. Sockets first, then the timer records, so
 * input that arrived together with an expiry counts as activity.
 */
static void server_round(struct server *s, int timeout_ms)
{
	struct epoll_event evs[64];
	bool timers = false;
	int n, i;

	n = epoll_wait(s->ep, evs, 64, timeout_ms);
	if (n < 0) {
		if (errno == EINTR)
			return;
		err(1, "epoll_wait");
	}
	for (i = 0; i < n; i++) {
		uint64_t d = evs[i].data.u64;

		if (d == EP_LISTEN)
			on_accept(s);
		else if (d == EP_TIMERS)
			timers = true;
		else if (s->conns[d].fd >= 0)
			on_input(s, d);
	}
	if (timers)
		on_timers(s);
}

/* A bare VM's init leaves the loopback interface down. */
static void loopback_up(void)
{
	struct ifreq ifr;
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return;
	memset(&ifr, 0, sizeof(ifr));
	strcpy(ifr.ifr_name, "lo");
	if (ioctl(fd, SIOCGIFFLAGS, &ifr) == 0 && !(ifr.ifr_flags & IFF_UP)) {
		ifr.ifr_flags |= IFF_UP;
		if (ioctl(fd, SIOCSIFFLAGS, &ifr) < 0)
			warn("bringing up lo");
	}
	close(fd);
}

static void server_init(struct server *s, uint16_t port, int64_t timeout_ns)
{
	struct sockaddr_in sa = {
		.sin_family = AF_INET,
		.sin_port = htons(port),
		.sin_addr.s_addr = htonl(INADDR_LOOPBACK),
	};
	struct epoll_event ev = { .events = EPOLLIN };
	int one = 1;

	memset(s, 0, sizeof(*s));
	s->timeout_ns = timeout_ns;
	s->late = calloc(4096, sizeof(*s->late));
	if (!s->late)
		err(1, "calloc");
	s->tw = twheel_open(O_NONBLOCK | O_CLOEXEC);
	if (s->tw < 0)
		err(1, "/dev/twheel (is the module loaded?)");
	s->ep = epoll_create1(EPOLL_CLOEXEC);
	if (s->ep < 0)
		err(1, "epoll_create1");
	loopback_up();
	s->lfd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (s->lfd < 0)
		err(1, "socket");
	setsockopt(s->lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(s->lfd, (struct sockaddr *)&sa, sizeof(sa)) < 0)
		err(1, "bind 127.0.0.1:%u", port);
	if (listen(s->lfd, 128) < 0)
		err(1, "listen");
	ev.data.u64 = EP_LISTEN;
	if (epoll_ctl(s->ep, EPOLL_CTL_ADD, s->lfd, &ev) < 0)
		err(1, "epoll_ctl");
	ev.data.u64 = EP_TIMERS;
	if (epoll_ctl(s->ep, EPOLL_CTL_ADD, s->tw, &ev) < 0)
		err(1, "epoll_ctl /dev/twheel");
}

static uint16_t server_port(struct server *s)
{
	struct sockaddr_in sa;
	socklen_t len = sizeof(sa);

	if (getsockname(s->lfd, (struct sockaddr *)&sa, &len) < 0)
		err(1, "getsockname");
	return ntohs(sa.sin_port);
}

/* ---- --selftest: the clients */

#define N_IDLE		8
#define N_ACTIVE	8
#define N_QUIT		8
#define N_CLIENTS	(N_IDLE + N_ACTIVE + N_QUIT)
#define TIMEOUT_NS	(400 * TWHEEL_MSEC)
#define INTERVAL_NS	(TIMEOUT_NS / 8)
#define ACTIVE_NS	(3 * TWHEEL_SEC)
#define CLOSE_WAIT_S	30	/* how long a quiet client waits to be closed */
#define MSG_LEN		16

enum kind { IDLE, ACTIVE, QUIT };
static const char *const kind_name[] = { "idle", "active", "quitter" };

struct client {
	enum kind kind;
	int idx;
	uint16_t port;
	/* Activity, from the client's side. */
	int64_t prev_before;	/* start of its last send (or connect) */
	int64_t max_gap;	/* longest span between two activities */
	unsigned int sends;
	/* Outcome. */
	bool closed_by_server;	/* it saw end of input or a reset */
	bool while_active;	/* ... while it was still sending */
	bool early;		/* ... though it never paused a timeout */
	bool not_closed;	/* it went quiet and was never closed */
	bool failed;		/* an unexpected error */
	int64_t quiet_ns;	/* from its last send until it was closed */
};

static atomic_int clients_done;

static void client_closed(struct client *c, bool active)
{
	int64_t gap = now_ns() - c->prev_before;

	c->closed_by_server = true;
	c->while_active = active;
	c->quiet_ns = gap;
	/*
	 * The server may close only after a timeout without activity: the
	 * client must have paused that long somewhere.
	 */
	if (gap < TIMEOUT_NS && c->max_gap < TIMEOUT_NS) {
		c->early = true;
		printf("error: %s client %d closed %.3f ms after its last send (longest pause %.3f ms), timeout %.3f ms\n",
		       kind_name[c->kind], c->idx, gap / 1e6, c->max_gap / 1e6,
		       TIMEOUT_NS / 1e6);
	}
}

/* Send one message and read its echo. Returns false when closed. */
static bool client_send(struct client *c, int fd, bool active)
{
	char msg[MSG_LEN + 1], back[MSG_LEN];
	int64_t before, after;
	size_t got = 0;
	ssize_t n;

	snprintf(msg, sizeof(msg), "c%03d m%08u\n", c->idx, c->sends);
	before = now_ns();
	n = send(fd, msg, MSG_LEN, MSG_NOSIGNAL);
	after = now_ns();
	if (after - c->prev_before > c->max_gap)
		c->max_gap = after - c->prev_before;
	if (n < 0 && (errno == EPIPE || errno == ECONNRESET)) {
		client_closed(c, active);
		return false;
	}
	if (n != MSG_LEN) {
		warn("client %d: send", c->idx);
		c->failed = true;
		return false;
	}
	c->prev_before = before;
	c->sends++;
	while (got < MSG_LEN) {
		n = recv(fd, back + got, MSG_LEN - got, 0);
		if (n > 0) {
			got += n;
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n == 0 || errno == ECONNRESET) {
			client_closed(c, active);
			return false;
		}
		warn("client %d: recv", c->idx);
		c->failed = true;
		return false;
	}
	if (memcmp(back, msg, MSG_LEN)) {
		printf("error: client %d: wrong echo\n", c->idx);
		c->failed = true;
	}
	return true;
}

/* Quiet now: wait for the server to close the connection. */
static void client_wait_close(struct client *c, int fd)
{
	struct timeval tv = { .tv_sec = CLOSE_WAIT_S };
	char b;
	ssize_t n;

	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	do {
		n = recv(fd, &b, 1, 0);
	} while (n < 0 && errno == EINTR);
	if (n == 0 || (n < 0 && errno == ECONNRESET)) {
		client_closed(c, false);
	} else if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
		c->not_closed = true;
		printf("error: %s client %d not closed %d s after its last send\n",
		       kind_name[c->kind], c->idx, CLOSE_WAIT_S);
	} else {
		printf("error: client %d: unexpected input or error (%zd)\n",
		       c->idx, n);
		c->failed = true;
	}
}

static void sleep_until(int64_t t)
{
	struct timespec ts = { .tv_sec = t / TWHEEL_SEC,
			       .tv_nsec = t % TWHEEL_SEC };

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) ==
	       EINTR)
		;
}

static void *client_main(void *arg)
{
	struct client *c = arg;
	struct sockaddr_in sa = {
		.sin_family = AF_INET,
		.sin_port = htons(c->port),
		.sin_addr.s_addr = htonl(INADDR_LOOPBACK),
	};
	int64_t start, next;
	unsigned int i, n;
	int one = 1, fd;

	fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		err(1, "socket");
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	c->prev_before = start = now_ns();
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0)
		err(1, "connect 127.0.0.1:%u", c->port);
	next = start;
	switch (c->kind) {
	case IDLE:
		/* A few messages, then quiet. */
		n = 1 + c->idx % 3;
		for (i = 0; i < n; i++) {
			next += INTERVAL_NS;
			sleep_until(next);
			if (!client_send(c, fd, false))
				goto out;
		}
		client_wait_close(c, fd);
		break;
	case ACTIVE:
		/* Busy for ACTIVE_NS, then quiet: closed only then. */
		while (next + INTERVAL_NS - start < ACTIVE_NS) {
			next += INTERVAL_NS;
			sleep_until(next);
			if (!client_send(c, fd, true))
				goto out;
		}
		client_wait_close(c, fd);
		break;
	case QUIT:
		/* Two messages, then the client closes first. */
		for (i = 0; i < 2; i++) {
			next += INTERVAL_NS;
			sleep_until(next);
			if (!client_send(c, fd, false))
				goto out;
		}
		sleep_until(next + INTERVAL_NS);
		break;
	}
out:
	close(fd);
	atomic_fetch_add(&clients_done, 1);
	return NULL;
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

static int selftest(void)
{
	struct client cl[N_CLIENTS];
	pthread_t th[N_CLIENTS];
	unsigned int active_kept = 0, stalled = 0, seen_closed = 0;
	unsigned int early_client = 0, not_closed = 0, failed = 0;
	struct server s;
	int64_t end;
	size_t nl;
	bool bad = false;
	int i;

	server_init(&s, 0, TIMEOUT_NS);
	memset(cl, 0, sizeof(cl));
	for (i = 0; i < N_CLIENTS; i++) {
		cl[i].idx = i;
		cl[i].kind = i < N_IDLE ? IDLE :
			     i < N_IDLE + N_ACTIVE ? ACTIVE : QUIT;
		cl[i].port = server_port(&s);
		if (pthread_create(&th[i], NULL, client_main, &cl[i]))
			errx(1, "pthread_create");
	}
	/* Until every client is done and every connection closed. */
	end = now_ns() + 2LL * CLOSE_WAIT_S * TWHEEL_SEC;
	while (atomic_load(&clients_done) < N_CLIENTS || s.open ||
	       s.nconns < N_CLIENTS) {
		if (now_ns() > end) {
			printf("error: run not over after %d s: %d clients done, %zu connections open\n",
			       2 * CLOSE_WAIT_S, atomic_load(&clients_done),
			       s.open);
			bad = true;
			break;
		}
		server_round(&s, 50);
	}
	for (i = 0; i < N_CLIENTS; i++)
		pthread_join(th[i], NULL);

	for (i = 0; i < N_CLIENTS; i++) {
		struct client *c = &cl[i];

		seen_closed += c->closed_by_server;
		early_client += c->early;
		not_closed += c->not_closed;
		failed += c->failed;
		if (c->kind == ACTIVE && !(c->closed_by_server && c->while_active))
			active_kept++;
		/* Closed after the client itself paused a timeout: allowed. */
		if (c->closed_by_server && !c->early &&
		    (c->while_active || c->kind == QUIT))
			stalled++;
	}
	for (size_t k = 0; k < s.nconns; k++)
		if (s.conns[k].closes > 1)
			s.twice++;

	printf("echo-server selftest: idle timeout %.0f ms, active clients send every %.0f ms for %.1f s\n",
	       TIMEOUT_NS / 1e6, INTERVAL_NS / 1e6, ACTIVE_NS / 1e9);
	printf("connections=%zu (%d idle, %d active, %d closing themselves)\n",
	       s.nconns, N_IDLE, N_ACTIVE, N_QUIT);
	printf("idle_closed=%" PRIu64 " (closed by the server on expiry; the active ones once they went quiet)\n",
	       s.idle_closed);
	printf("active_kept=%u (of %d: never closed while sending)\n",
	       active_kept, N_ACTIVE);
	printf("client_closed=%" PRIu64 " (closed by the client: timer cancelled)\n",
	       s.peer_closed);
	printf("early=%" PRIu64 " (closed before the timeout had passed since the last activity)\n",
	       s.early + early_client);
	printf("twice=%" PRIu64 " (closed more than once, or a record after the close)\n",
	       s.twice);
	printf("not_closed=%u (quiet, but never closed)\n", not_closed);
	printf("stalled=%u (closed after the client itself paused a timeout: allowed)\n",
	       stalled);
	printf("raced=%" PRIu64 " (expiries that found unread input: activity after all)\n",
	       s.raced);
	printf("activities=%" PRIu64 " timer_ioctls_in_activities=%" PRIu64 "\n",
	       s.activities, s.activity_ioctls);
	printf("timer_ioctls_per_activity=%.2f\n",
	       s.activities ? (double)s.activity_ioctls / s.activities : 0.0);
	printf("timer_ioctls=%" PRIu64 " (add %" PRIu64 ", modify %" PRIu64 ", cancel %" PRIu64 "; records read %" PRIu64 ", retracted %" PRIu64 ")\n",
	       s.timer_ioctls, s.adds, s.modifies, s.cancels, s.records,
	       s.retracted);
	nl = s.nlate < 4096 ? s.nlate : 4096;
	if (nl) {
		qsort(s.late, nl, sizeof(*s.late), cmp_i64);
		printf("idle close after the deadline: min %.3f ms, median %.3f ms, max %.3f ms (not asserted)\n",
		       s.late[0] / 1e6, s.late[nl / 2] / 1e6, s.late[nl - 1] / 1e6);
	}

	if (s.early || early_client || s.twice || not_closed || failed ||
	    s.open)
		bad = true;
	/* Each server close seen by exactly one client, and vice versa. */
	if (s.idle_closed != seen_closed ||
	    s.idle_closed + s.peer_closed != s.nconns ||
	    s.nconns != N_CLIENTS) {
		printf("error: %" PRIu64 " idle closes and %" PRIu64 " client closes of %zu connections, but %u clients saw a close\n",
		       s.idle_closed, s.peer_closed, s.nconns, seen_closed);
		bad = true;
	}
	/*
	 * An active client closed while sending had paused a timeout (else
	 * it counts as early above); unless all of them did, some were kept.
	 */
	if (active_kept == 0) {
		printf("error: %u of %d active clients kept\n", active_kept,
		       N_ACTIVE);
		bad = true;
	}
	if (!s.activities || s.activity_ioctls != s.activities)
		bad = true;
	printf("selftest: %s\n", bad ? "FAILED" : "passed");
	return bad ? 1 : 0;
}

static void usage(int status)
{
	fprintf(status ? stderr : stdout,
		"usage: twheel-echo-server [--port N] [--timeout MS] [--quiet]\n"
		"       twheel-echo-server --selftest\n"
		"An epoll TCP echo server on 127.0.0.1 that closes connections idle\n"
		"for the timeout (default 10000 ms); the timeouts live in one\n"
		"/dev/twheel fd. --selftest runs its own clients and checks itself.\n");
	exit(status);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "port", required_argument, NULL, 'p' },
		{ "timeout", required_argument, NULL, 't' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "selftest", no_argument, NULL, 'S' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	long port = 7777, timeout_ms = 10000;
	bool quiet = false;
	struct server s;
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
			quiet = true;
			break;
		case 'S':
			return selftest();
		case 'h':
			usage(0);
			break;
		default:
			usage(2);
		}
	}
	if (optind != argc)
		usage(2);
	server_init(&s, port, timeout_ms * TWHEEL_MSEC);
	s.verbose = !quiet;
	printf("echo server on 127.0.0.1:%u, idle timeout %ld ms\n",
	       server_port(&s), timeout_ms);
	for (;;)
		server_round(&s, -1);
}
