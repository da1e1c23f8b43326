/* SPDX-License-Identifier: GPL-2.0 */
/*
 * echo10k_clients.h - the clients of echo10k.c: run_clients() runs the
 * connections against the server and counts how each one ended.
 * The clients are one process: non-blocking sockets driven by epoll,
 * opened as fast as the machine answers (at most UNCONFIRMED connections
 * not yet echoed, under the server's listen backlog of 128; none while
 * the sends run late). Each connection says hello at once, then sends
 * again every timeout/2, 2 to 4 messages in all (the later ones after its
 * first deadline: only pushes keep it open), each one an activity: a
 * message and its echo. Then one in ten closes itself, the others go
 * quiet until the server closes them.
 */
#ifndef ECHO10K_CLIENTS_H
#define ECHO10K_CLIENTS_H

#include "echo10k.h"

enum cstate { C_NEW, C_CONNECTING, C_OPEN, C_QUIET, C_DONE };

struct cconn {
	int fd;
	uint8_t state;
	uint8_t acts;		/* messages it sends */
	uint8_t sent;		/* ... sent so far */
	uint8_t got;		/* bytes of the awaited echo read */
	bool quit;		/* closes itself after its messages */
	bool unconfirmed;	/* connecting, or its hello not echoed */
	bool waiting;		/* a send not echoed yet */
	int64_t t0;		/* start of its connect */
	int64_t next;		/* when its next send is due */
	int64_t send_start;	/* start of the send awaiting its echo */
	int64_t last_act;	/* start of its last echoed send, or t0 */
};

struct clients {
	struct cconn *c;
	int n, ep;
	uint16_t port;
	/* The sends due, a binary heap on ->next (stale entries skipped). */
	uint32_t *heap;
	int heap_n;
	int started, unconfirmed, outstanding, ended;
	int64_t lag;		/* how late the last send due went out */
	/* Outcomes. */
	long echoes, sends;
	int server_closed, while_active, client_closed, early, failed;
	int not_closed;
	int64_t min_gap;	/* shortest span from last activity to close */
	int64_t max_lag;
};

static inline void heap_push(struct clients *cl, uint32_t i)
{
	int k = cl->heap_n++;

	while (k > 0) {
		int p = (k - 1) / 2;

		if (cl->c[cl->heap[p]].next <= cl->c[i].next)
			break;
		cl->heap[k] = cl->heap[p];
		k = p;
	}
	cl->heap[k] = i;
}

static inline uint32_t heap_pop(struct clients *cl)
{
	uint32_t top = cl->heap[0], last = cl->heap[--cl->heap_n];
	int k = 0;

	for (;;) {
		int s = 2 * k + 1;

		if (s >= cl->heap_n)
			break;
		if (s + 1 < cl->heap_n &&
		    cl->c[cl->heap[s + 1]].next < cl->c[cl->heap[s]].next)
			s++;
		if (cl->c[last].next <= cl->c[cl->heap[s]].next)
			break;
		cl->heap[k] = cl->heap[s];
		k = s;
	}
	if (cl->heap_n)
		cl->heap[k] = last;
	return top;
}

static inline void msg_of(char *buf, uint32_t i, unsigned int seq)
{
	char tmp[MSG_LEN + 1];

	snprintf(tmp, sizeof(tmp), "%05u m%08u\n", i, seq);
	memcpy(buf, tmp, MSG_LEN);
}

/* Connection @i ends here: closed, and out of the counts. */
static inline void client_end(struct clients *cl, uint32_t i)
{
	struct cconn *c = &cl->c[i];

	if (c->unconfirmed)
		cl->unconfirmed--;
	if (c->waiting)
		cl->outstanding--;
	c->unconfirmed = c->waiting = false;
	if (c->fd >= 0)
		close(c->fd);	/* also leaves the epoll set */
	c->fd = -1;
	c->state = C_DONE;
	cl->ended++;
}

static inline void client_fail(struct clients *cl, uint32_t i, const char *what)
{
	if (cl->failed++ < 10)
		printf("# error: connection %u: %s (%s)\n", i, what,
		       strerror(errno));
	client_end(cl, i);
}

/*
 * The server closed connection @i, seen at @now. The server may close only
 * a timeout after its last activity, which came no sooner than the start
 * of the last send it echoed (a send it did not echo it never read).
 */
static inline void server_close(struct clients *cl, uint32_t i, int64_t now)
{
	struct cconn *c = &cl->c[i];
	int64_t gap = now - c->last_act;

	if (gap < cl->min_gap)
		cl->min_gap = gap;
	if (gap < TIMEOUT_NS && cl->early++ < 10)
		printf("# error: connection %u closed %.3f ms after its last activity, timeout %d ms\n",
		       i, gap / 1e6, TIMEOUT_MS);
	cl->server_closed++;
	if (c->state != C_QUIET)
		cl->while_active++;	/* allowed: a stall of a timeout */
	client_end(cl, i);
}

static inline void client_send(struct clients *cl, uint32_t i, int64_t now)
{
	struct cconn *c = &cl->c[i];
	char msg[MSG_LEN];
	int64_t start;
	ssize_t n;

	msg_of(msg, i, c->sent);
	start = twt_mono();
	n = send(c->fd, msg, MSG_LEN, MSG_NOSIGNAL | MSG_DONTWAIT);
	if (n < 0 && (errno == EPIPE || errno == ECONNRESET)) {
		server_close(cl, i, twt_mono());
		return;
	}
	if (n != MSG_LEN) {
		client_fail(cl, i, "send");
		return;
	}
	if (now - c->next > cl->max_lag)
		cl->max_lag = now - c->next;
	cl->lag = now - c->next;
	c->send_start = start;
	c->sent++;
	c->waiting = true;
	c->got = 0;
	cl->outstanding++;
	cl->sends++;
}

static inline void client_connect(struct clients *cl, uint32_t i)
{
	struct sockaddr_in sa = {
		.sin_family = AF_INET,
		.sin_port = htons(cl->port),
		.sin_addr.s_addr = htonl(INADDR_LOOPBACK),
	};
	struct epoll_event ev = { .events = EPOLLOUT, .data.u32 = i };
	struct cconn *c = &cl->c[i];
	int one = 1;

	c->acts = MIN_ACTS + i % (MAX_ACTS - MIN_ACTS + 1);
	c->quit = i % QUIT_EVERY == QUIT_EVERY - 1;
	c->fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (c->fd < 0) {
		client_fail(cl, i, "socket");
		return;
	}
	setsockopt(c->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	c->t0 = c->last_act = twt_mono();
	if (connect(c->fd, (struct sockaddr *)&sa, sizeof(sa)) &&
	    errno != EINPROGRESS) {
		client_fail(cl, i, "connect");
		return;
	}
	if (epoll_ctl(cl->ep, EPOLL_CTL_ADD, c->fd, &ev)) {
		client_fail(cl, i, "epoll_ctl");
		return;
	}
	c->state = C_CONNECTING;
	c->unconfirmed = true;
	cl->unconfirmed++;
}

/* Connected: watch for input from now on, and say hello. */
static inline void client_connected(struct clients *cl, uint32_t i, int64_t now)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.u32 = i };
	struct cconn *c = &cl->c[i];
	int err = 0;
	socklen_t len = sizeof(err);

	if (getsockopt(c->fd, SOL_SOCKET, SO_ERROR, &err, &len) || err) {
		errno = err;
		client_fail(cl, i, "connect (SO_ERROR)");
		return;
	}
	if (epoll_ctl(cl->ep, EPOLL_CTL_MOD, c->fd, &ev)) {
		client_fail(cl, i, "epoll_ctl");
		return;
	}
	c->state = C_OPEN;
	c->next = now;
	client_send(cl, i, now);
}

/* Its messages said: close it (a quitter) or wait to be closed. */
static inline void client_done(struct clients *cl, uint32_t i)
{
	struct cconn *c = &cl->c[i];
	char b;

	if (!c->quit) {
		c->state = C_QUIET;
		return;
	}
	/* A close by the server that came first counts as one. */
	if (recv(c->fd, &b, 1, MSG_DONTWAIT) == 0) {
		server_close(cl, i, twt_mono());
		return;
	}
	cl->client_closed++;
	client_end(cl, i);
}

static inline void client_input(struct clients *cl, uint32_t i)
{
	struct cconn *c = &cl->c[i];
	char buf[64], want[MSG_LEN];

	for (;;) {
		ssize_t n = recv(c->fd, buf, sizeof(buf), MSG_DONTWAIT);

		if (n == 0 || (n < 0 && errno == ECONNRESET)) {
			server_close(cl, i, twt_mono());
			return;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return;
		if (n < 0) {
			client_fail(cl, i, "recv");
			return;
		}
		msg_of(want, i, c->sent - 1);
		if (!c->waiting || c->got + n > MSG_LEN ||
		    memcmp(buf, want + c->got, n)) {
			errno = 0;
			client_fail(cl, i, "unexpected input, not its echo");
			return;
		}
		c->got += n;
		if (c->got < MSG_LEN)
			continue;
		/* An activity: the server read the message, and echoed it. */
		c->waiting = false;
		c->last_act = c->send_start;
		cl->outstanding--;
		cl->echoes++;
		if (c->unconfirmed)
			cl->unconfirmed--;
		c->unconfirmed = false;
		if (c->sent < c->acts) {
			c->next = c->t0 + c->sent * INTERVAL_NS;
			heap_push(cl, i);
		} else {
			client_done(cl, i);
			return;
		}
	}
}

/*
 * Run cl->n connections against the server on cl->port until each one
 * ended, or nothing happened for QUIET_S seconds.
 */
static inline void run_clients(struct clients *cl)
{
	struct epoll_event evs[256];
	int64_t last_event = twt_mono();

	cl->ep = epoll_create1(EPOLL_CLOEXEC);
	CHECK_OK(cl->ep);
	cl->min_gap = INT64_MAX;
	while (cl->ended < cl->n) {
		int64_t now = twt_mono(), wait_ns = 100 * TWT_MS;
		int i, nev;

		while (cl->heap_n && cl->c[cl->heap[0]].next <= now) {
			uint32_t k = heap_pop(cl);

			if (cl->c[k].state == C_OPEN)
				client_send(cl, k, now);
			last_event = now;
		}
		/* Open more while the machine keeps up with the rest. */
		while (cl->started < cl->n && cl->unconfirmed < UNCONFIRMED &&
		       cl->outstanding < MAX_OUT && cl->lag <= LATE_NS) {
			client_connect(cl, cl->started++);
			last_event = now;
		}
		if (cl->heap_n) {
			wait_ns = cl->c[cl->heap[0]].next - now;
			if (wait_ns > 100 * TWT_MS)
				wait_ns = 100 * TWT_MS;
		}
		if (wait_ns < 0)
			wait_ns = 0;
		nev = epoll_wait(cl->ep, evs, 256,
				 (int)((wait_ns + TWT_MS - 1) / TWT_MS));
		if (nev < 0 && errno == EINTR)
			continue;
		CHECK_OK(nev);
		now = twt_mono();
		/* Not late while nothing is due. */
		if (!cl->heap_n || cl->c[cl->heap[0]].next > now)
			cl->lag = 0;
		for (i = 0; i < nev; i++) {
			uint32_t k = evs[i].data.u32;

			last_event = now;
			if (cl->c[k].state == C_CONNECTING)
				client_connected(cl, k, now);
			else if (cl->c[k].state == C_OPEN ||
				 cl->c[k].state == C_QUIET)
				client_input(cl, k);
		}
		if (now - last_event > QUIET_S * TWT_S)
			break;
	}
	for (int i = 0; i < cl->n; i++) {
		struct cconn *c = &cl->c[i];

		if (c->state == C_DONE)
			continue;
		if (cl->not_closed++ < 10)
			printf("# error: connection %d (state %d) not closed %d s after the last thing that happened\n",
			       i, c->state, QUIET_S);
		if (c->fd >= 0)
			close(c->fd);
	}
	close(cl->ep);
}

#endif /* ECHO10K_CLIENTS_H */
