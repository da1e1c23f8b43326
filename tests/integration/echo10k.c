// SPDX-License-Identifier: GPL-2.0
/*
 * echo10k: the example twheel-echo-server (userspace/examples/) with
 * 10 000 client connections, once per way it keeps its idle timeouts
 * (--timers modify: one MODIFY per activity; batch: the MODIFYs of a turn
 * of its loop in one SUBMIT; table: a store into the shared timer table,
 * no system call). The clients are one process: non-blocking sockets
 * driven by epoll, opened as fast as the machine answers (at most
 * UNCONFIRMED connections not yet echoed, under the server's listen
 * backlog of 128; none while the sends run late). Each connection says
 * hello at once, then sends again every timeout/2, 2 to 4 messages in all
 * (the later ones after its first deadline: only pushes keep it open),
 * each one an activity: a message and its echo. Then one in ten closes
 * itself, the others go quiet until the server closes them.
 * Idle timeout 1 s. It checks:
 *   - none closed early: the client sees a close no sooner than the
 *     timeout after the start of its last send that was echoed (or of its
 *     connect); the server's log agrees (idle time and the record's time
 *     since its last activity);
 *   - none closed twice: every connection ends one way, each once in the
 *     server's log, no record arrives for a closed connection (table: but
 *     one queued before its cancel was stored, which the server ignores);
 *   - every quiet connection is closed (within 60 s of the last thing
 *     that happened, which is no bound on the server's timing);
 *   - every byte the server logs it echoed, the clients saw echoed, and
 *     no other (a read of its log holds all a recv() loop got: one
 *     message, or more when a late client sent its next one at once);
 *   - the timer system calls: the server counts them, the kernel counts
 *     the ADDs (sysfs timers_created) and each kind of operation (one
 *     tracefs instance per event, where the kernel has tracefs; the server
 *     is the only twheel user while the case runs):
 *     modify: one MODIFY per activity, one CANCEL per connection;
 *     batch: no MODIFY alone, at most one SUBMIT per activity;
 *     table: no MODIFY, SUBMIT or CANCEL: no timer system call to push a
 *     timeout back or to cancel one. ADDs: one per connection, plus one
 *     per re-add the server logs, and every record it read is explained
 *     by its log: a close for idleness, a re-add, or one queued before
 *     its cancel was stored. The server re-adds when a record's time is
 *     before the deadline last stored (the push came after the kernel had
 *     read the entry: a stall of half the timeout between a send and its
 *     echo), or when input is waiting unread as the record is read; how
 *     many there are depends on the machine's speed, so they are
 *     reported, and the rule asserted, not a number.
 * Only lower bounds are asserted on time: a slow machine delays closes, it
 * never makes them early. The last case prints the three ways' timer
 * system calls per activity at 10 000 connections.
 * On the debug kernel (KASAN, lockdep, kmemleak under TCG) the cases use
 * DEBUG_CONNS connections: 10 000 there take minutes per case.
 */
#define _GNU_SOURCE
#include <net/if.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdbool.h>
#include <sys/epoll.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include "twtest.h"

#define SERVER		"/usr/bin/twheel-echo-server"
#define SERVER_OUT	"/tmp/echo10k-server.out"
#define RATIO_FILE	"/tmp/echo10k-per-activity-%s"
#define TRACEFS		"/sys/kernel/tracing"
#define INSTANCE	TRACEFS "/instances/twt-echo10k-"
#define STATS		"/sys/class/misc/twheel/stats/"
#define N_CONNS		10000
#define DEBUG_CONNS	2000
#define TIMEOUT_MS	1000
#define STR(x)		#x
#define XSTR(x)		STR(x)
#define TIMEOUT_NS	(TIMEOUT_MS * TWT_MS)
#define INTERVAL_NS	(TIMEOUT_NS / 2)
#define MIN_ACTS	2	/* messages per connection: 2, 3 or 4 */
#define MAX_ACTS	4
#define QUIT_EVERY	10	/* one in ten closes itself */
#define UNCONFIRMED	64	/* connects not yet echoed, < backlog 128 */
#define MAX_OUT		256	/* sends not yet echoed, to open more */
#define LATE_NS		(20 * TWT_MS)	/* sends this late: open no more */
#define QUIET_S		60	/* nothing happened: the rest is not closed */
#define MSG_LEN		16

/* ---- the clients */

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

static void heap_push(struct clients *cl, uint32_t i)
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

static uint32_t heap_pop(struct clients *cl)
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

static void msg_of(char *buf, uint32_t i, unsigned int seq)
{
	char tmp[MSG_LEN + 1];

	snprintf(tmp, sizeof(tmp), "%05u m%08u\n", i, seq);
	memcpy(buf, tmp, MSG_LEN);
}

/* Connection @i ends here: closed, and out of the counts. */
static void client_end(struct clients *cl, uint32_t i)
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

static void client_fail(struct clients *cl, uint32_t i, const char *what)
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
static void server_close(struct clients *cl, uint32_t i, int64_t now)
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

static void client_send(struct clients *cl, uint32_t i, int64_t now)
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

static void client_connect(struct clients *cl, uint32_t i)
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
static void client_connected(struct clients *cl, uint32_t i, int64_t now)
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
static void client_done(struct clients *cl, uint32_t i)
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

static void client_input(struct clients *cl, uint32_t i)
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
static void run_clients(struct clients *cl)
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

/* ---- the server's log */

struct server_log {
	long first_port;
	long accepted, echoed, idle_closed, client_closed, early, twice;
	long errors, late_cancel, readded, readd_late, readd_waiting;
	long readd_closed, readd_unexplained;
	long echoed_bytes;	/* all it echoed, also before a close */
	long expect;		/* a re-add for input: its conn, else -1 */
	unsigned char *closes;	/* per connection index */
	long n;
	double late_max, readd_lead_max;
	/* Its last line: the timer system calls it made. */
	bool summary;
	char mode[16];
	long conns, add, modify, cancel, submit, readd, activities;
	double per_activity;
	/* Where the next line starts. */
	off_t off;
};

static void close_seen(struct server_log *l, size_t idx)
{
	if (idx >= (size_t)l->n) {
		l->errors++;
		return;
	}
	if (++l->closes[idx] > 1 && l->twice++ < 10)
		printf("# error: conn %zu closed twice\n", idx);
}

static void parse_line(struct server_log *l, const char *line, bool show)
{
	double idle, rec, lead;
	unsigned int port;
	size_t idx, bytes;
	int end = 0;

	if (l->expect >= 0) {
		/*
		 * A re-add for input waiting: the server reads it at once,
		 * an echo, or the client's close (which looks like input).
		 */
		bool echo = sscanf(line, "conn %zu: echoed%n", &idx, &end) == 1 &&
			    end;

		end = 0;
		if (!echo && sscanf(line, "conn %zu: closed by the client%n",
				    &idx, &end) == 1 && end)
			l->readd_closed++;
		else if (!echo)
			idx = SIZE_MAX;
		if (idx != (size_t)l->expect &&
		    l->readd_unexplained++ < 10)
			printf("# error: conn %ld re-added for input waiting, then: %s",
			       l->expect, line);
		l->expect = -1;
		end = 0;
	}
	if (sscanf(line, "echo server on 127.0.0.1:%u,", &port) == 1) {
		l->first_port = port;
	} else if (strstr(line, ": accepted, timer ")) {
		l->accepted++;
	} else if (sscanf(line, "conn %zu: echoed %zu bytes,%n", &idx, &bytes,
			  &end) == 2 && end) {
		l->echoed++;
		l->echoed_bytes += bytes;
	} else if (sscanf(line, "conn %zu: idle %lf ms (record at %lf ms), closed%n",
			  &idx, &idle, &rec, &end) == 3 && end) {
		l->idle_closed++;
		if ((idle < TIMEOUT_MS || rec < TIMEOUT_MS) && l->early++ < 10)
			printf("# error: conn %zu closed %.3f ms after its last activity (record at %.3f ms), timeout %d ms\n",
			       idx, idle, rec, TIMEOUT_MS);
		if (idle - TIMEOUT_MS > l->late_max)
			l->late_max = idle - TIMEOUT_MS;
		close_seen(l, idx);
	} else if (sscanf(line, "conn %zu: closed by the client, %zu bytes echoed first%n",
			  &idx, &bytes, &end) == 2 && end) {
		l->client_closed++;
		l->echoed_bytes += bytes;
		close_seen(l, idx);
	} else if (sscanf(line, "conn %zu: record at %lf ms before the deadline stored, timer added again%n",
			  &idx, &lead, &end) == 2 && end) {
		/*
		 * The server's rule: a record before the deadline stored
		 * (lead > 0: the push came too late), or input waiting.
		 */
		l->readded++;
		if (lead > 0) {
			l->readd_late++;
		} else {
			l->readd_waiting++;
			l->expect = idx;
		}
		if (lead > l->readd_lead_max)
			l->readd_lead_max = lead;
		if (show && l->readded <= 5)
			printf("# server: %s", line);
	} else if (strstr(line, ": record queued before its cancel was stored, ignored")) {
		l->late_cancel++;
	} else if (sscanf(line, "timer syscalls: mode=%15s connections=%ld add=%ld modify=%ld cancel=%ld submit=%ld readd=%ld activities=%ld per_activity=%lf",
			  l->mode, &l->conns, &l->add, &l->modify,
			  &l->cancel, &l->submit, &l->readd,
			  &l->activities, &l->per_activity) == 9) {
		l->summary = true;
		if (show)
			printf("# server: %s", line);
	} else if (strstr(line, "record for timer")) {
		/* A record after the connection's close. */
		if (l->twice++ < 10)
			printf("# error: server: %s", line);
	} else {
		if (l->errors++ < 10)
			printf("# error: server: %s", line);
	}
}

/* Read the server's lines written since the last call. */
static void read_server_log(struct server_log *l, bool show)
{
	static char buf[1 << 16];
	size_t have = 0;
	int fd = open(SERVER_OUT, O_RDONLY | O_CLOEXEC);

	CHECK_OK(fd);
	for (;;) {
		ssize_t n = pread(fd, buf + have, sizeof(buf) - 1 - have,
				  l->off + have);
		char *p = buf, *nl;

		CHECK_OK(n);
		if (n == 0)
			break;
		have += n;
		buf[have] = 0;
		while ((nl = memchr(p, '\n', buf + have - p))) {
			char save = nl[1];

			nl[1] = 0;
			parse_line(l, p, show);
			nl[1] = save;
			p = nl + 1;
		}
		if (p == buf && have == sizeof(buf) - 1)
			twt_fail(__FILE__, __LINE__, "a server line of 64 KiB");
		l->off += p - buf;
		have = buf + have - p;
		memmove(buf, p, have);
	}
	close(fd);
}

/* The server's port, once it has printed its first line. */
static uint16_t server_port(pid_t pid, struct server_log *l)
{
	for (int i = 0; i < 1000; i++) {
		int status;

		if (waitpid(pid, &status, WNOHANG) == pid)
			twt_fail(__FILE__, __LINE__, "the server exited (status %d)",
				 status);
		read_server_log(l, true);
		if (l->first_port > 0)
			return l->first_port;
		twt_sleep_ms(10);
	}
	twt_fail(__FILE__, __LINE__, "the server printed no port in 10 s");
}

/* ---- the kernel's counts */

/* A bare VM's init leaves the loopback interface down. */
static void loopback_up(void)
{
	struct ifreq ifr;
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	CHECK_OK(fd);
	memset(&ifr, 0, sizeof(ifr));
	strcpy(ifr.ifr_name, "lo");
	CHECK_OK(ioctl(fd, SIOCGIFFLAGS, &ifr));
	if (!(ifr.ifr_flags & IFF_UP)) {
		ifr.ifr_flags |= IFF_UP;
		CHECK_OK(ioctl(fd, SIOCSIFFLAGS, &ifr));
	}
	close(fd);
}

/* The events counted, each in a tracefs instance of its own. */
static const char *const trace_events[] = {
	"twheel_timer_add", "twheel_timer_modify", "twheel_timer_cancel",
};
#define N_TRACE	3

/*
 * An instance per event, its buffer large enough for @max events of it
 * on one CPU; false without tracefs.
 */
static bool trace_start(long max)
{
	char path[256], kb[32];
	unsigned int i;

	if (access(TRACEFS "/instances", F_OK) &&
	    mount("nodev", TRACEFS, "tracefs", 0, NULL) &&
	    access(TRACEFS "/instances", F_OK))
		return false;
	if (access(TRACEFS "/events/twheel/enable", F_OK))
		return false;
	/* An event takes under 96 bytes of ring buffer. */
	snprintf(kb, sizeof(kb), "%ld", max * 96 / 1024 + 1024);
	for (i = 0; i < N_TRACE; i++) {
		snprintf(path, sizeof(path), INSTANCE "%u", i);
		rmdir(path);
		CHECK_OK(mkdir(path, 0755));
		snprintf(path, sizeof(path), INSTANCE "%u/buffer_size_kb", i);
		CHECK_OK(twt_sysfs_write(path, kb));
		snprintf(path, sizeof(path),
			 INSTANCE "%u/events/twheel/%s/enable", i,
			 trace_events[i]);
		CHECK_OK(twt_sysfs_write(path, "1"));
		snprintf(path, sizeof(path), INSTANCE "%u/tracing_on", i);
		CHECK_OK(twt_sysfs_write(path, "1"));
	}
	return true;
}

/*
 * The events each instance holds, from its per-CPU stats (no formatting
 * of the trace); a lost event fails the case. The instances go.
 */
static void trace_count(long counts[N_TRACE])
{
	char path[256], line[256];
	unsigned int i, cpu;

	for (i = 0; i < N_TRACE; i++) {
		snprintf(path, sizeof(path), INSTANCE "%u/tracing_on", i);
		CHECK_OK(twt_sysfs_write(path, "0"));
		counts[i] = 0;
		for (cpu = 0;; cpu++) {
			long v, overrun = 0;
			FILE *f;

			snprintf(path, sizeof(path),
				 INSTANCE "%u/per_cpu/cpu%u/stats", i, cpu);
			f = fopen(path, "r");
			if (!f)
				break;
			while (fgets(line, sizeof(line), f)) {
				if (sscanf(line, "entries: %ld", &v) == 1)
					counts[i] += v;
				if (sscanf(line, "overrun: %ld", &v) == 1)
					overrun += v;
			}
			fclose(f);
			if (overrun)
				twt_fail(__FILE__, __LINE__,
					 "trace instance of %s lost %ld events on cpu %u",
					 trace_events[i], overrun, cpu);
		}
		CHECK(cpu > 0);
		snprintf(path, sizeof(path),
			 INSTANCE "%u/events/twheel/%s/enable", i,
			 trace_events[i]);
		CHECK_OK(twt_sysfs_write(path, "0"));
		snprintf(path, sizeof(path), INSTANCE "%u", i);
		CHECK_OK(rmdir(path));
	}
}

/* Slab objects carry KASAN's metadata: the debug kernel. */
static bool debug_kernel(void)
{
	return twt_sysfs_read("/sys/kernel/slab/twheel_timer/slab_size") !=
	       twt_sysfs_read("/sys/kernel/slab/twheel_timer/object_size");
}

/* ---- the case */

static void idle_timeouts(const char *mode)
{
	long created, expired, read_recs, tr[N_TRACE] = { 0 };
	struct clients cl = { 0 };
	struct server_log l = { 0 };
	struct rlimit rl;
	int64_t start, clients_ns;
	int i, s, out, status;
	bool traced;
	pid_t pid;

	if (access(SERVER, X_OK))
		twt_skip("twheel-echo-server not built (userspace/examples/examples.mk)");
	/* The debug test kernel may be built without TCP/IP. */
	s = socket(AF_INET, SOCK_STREAM, 0);
	if (s < 0 && (errno == ENOSYS || errno == EAFNOSUPPORT))
		twt_skip("no TCP/IP sockets in this kernel");
	CHECK_OK(s);
	close(s);
	loopback_up();

	cl.n = debug_kernel() ? DEBUG_CONNS : N_CONNS;
	if (cl.n != N_CONNS)
		printf("# debug kernel: %d connections, not %d (too slow under KASAN and TCG)\n",
		       cl.n, N_CONNS);
	/* A socket per connection here, and one in the server. */
	rl.rlim_cur = rl.rlim_max = cl.n + 1024;
	CHECK_OK(setrlimit(RLIMIT_NOFILE, &rl));
	cl.c = calloc(cl.n, sizeof(*cl.c));
	cl.heap = calloc(cl.n, sizeof(*cl.heap));
	l.closes = calloc(cl.n, 1);
	l.n = cl.n;
	l.first_port = -1;
	l.expect = -1;
	CHECK(cl.c && cl.heap && l.closes);

	traced = trace_start((long)cl.n * MAX_ACTS);
	created = twt_sysfs_read(STATS "timers_created");
	expired = twt_sysfs_read(STATS "expirations");
	read_recs = twt_sysfs_read(STATS "records_read");
	CHECK(created >= 0 && expired >= 0 && read_recs >= 0);

	out = open(SERVER_OUT, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	CHECK_OK(out);
	pid = fork();
	CHECK_OK(pid);
	if (pid == 0) {
		dup2(out, 1);
		dup2(out, 2);
		execl(SERVER, SERVER, "--port", "0", "--timeout",
		      XSTR(TIMEOUT_MS), "--timers", mode, (char *)NULL);
		_exit(127);
	}
	close(out);
	cl.port = server_port(pid, &l);

	start = twt_mono();
	run_clients(&cl);
	clients_ns = twt_mono() - start;
	/* The clients' own closes reach the server last: wait for them. */
	for (i = 0; i < 600; i++) {
		read_server_log(&l, false);
		if (l.idle_closed + l.client_closed >= l.accepted &&
		    l.accepted >= cl.n - cl.failed)
			break;
		twt_sleep_ms(100);
	}
	if (waitpid(pid, &status, WNOHANG) == pid)
		twt_fail(__FILE__, __LINE__, "the server exited (status %d)",
			 status);
	kill(pid, SIGTERM);
	CHECK(waitpid(pid, &status, 0) == pid);
	read_server_log(&l, true);
	if (traced)
		trace_count(tr);
	created = twt_sysfs_read(STATS "timers_created") - created;
	expired = twt_sysfs_read(STATS "expirations") - expired;
	read_recs = twt_sysfs_read(STATS "records_read") - read_recs;

	printf("# --timers %s: %d connections, idle timeout %d ms, a message every %.0f ms, %d to %d each, 1 in %d closes itself; clients ran %.1f s\n",
	       mode, cl.n, TIMEOUT_MS, INTERVAL_NS / 1e6, MIN_ACTS, MAX_ACTS,
	       QUIT_EVERY, clients_ns / 1e9);
	printf("# clients: sends=%ld echoes=%ld closed by the server=%d (%d while sending: allowed after a stall) closed themselves=%d early=%d not_closed=%d failed=%d; sends late by up to %.1f ms\n",
	       cl.sends, cl.echoes, cl.server_closed, cl.while_active,
	       cl.client_closed, cl.early, cl.not_closed, cl.failed,
	       cl.max_lag / 1e6);
	if (cl.server_closed)
		printf("# closest close to its last activity, seen by the client: %.3f ms (timeout %d ms)\n",
		       cl.min_gap / 1e6, TIMEOUT_MS);
	printf("# server: accepted=%ld echoed=%ld (%ld bytes) idle_closed=%ld client_closed=%ld early=%ld twice=%ld errors=%ld late_cancel=%ld (allowed: table)\n",
	       l.accepted, l.echoed, l.echoed_bytes, l.idle_closed, l.client_closed, l.early,
	       l.twice, l.errors, l.late_cancel);
	printf("# server: idle close after the deadline: max %.3f ms (not asserted)\n",
	       l.late_max);
	printf("# server's timer syscalls: add=%ld modify=%ld cancel=%ld submit=%ld (readd=%ld: %ld pushes too late, by up to %.3f ms, %ld input waiting, of which %ld the client's close); activities=%ld; per activity %.3f\n",
	       l.add, l.modify, l.cancel, l.submit, l.readd, l.readd_late,
	       l.readd_lead_max, l.readd_waiting, l.readd_closed,
	       l.activities, l.per_activity);
	printf("# kernel: timers_created=%ld expirations=%ld records_read=%ld; trace: %s add=%ld modify=%ld cancel=%ld\n",
	       created, expired, read_recs,
	       traced ? "on" : "off (no tracefs)", tr[0], tr[1], tr[2]);

	/* SIGTERM: it reports its timer system calls and exits 0. */
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	CHECK(l.summary);
	CHECK(!strcmp(l.mode, mode));
	CHECK_EQ(l.errors, 0);
	CHECK_EQ(cl.failed, 0);
	/* Never early, seen from both ends. */
	CHECK_EQ(cl.early, 0);
	CHECK_EQ(l.early, 0);
	/* Each ends once, one way; every quiet one is closed. */
	CHECK_EQ(l.twice, 0);
	CHECK_EQ(cl.not_closed, 0);
	CHECK_EQ(l.accepted, cl.n);
	CHECK_EQ(l.conns, cl.n);
	CHECK_EQ(l.idle_closed + l.client_closed, l.accepted);
	CHECK_EQ(cl.server_closed + cl.client_closed, cl.n);
	/*
	 * The client sees each idle close but of one it closed itself at
	 * the same moment; the server sees each of its closes but of one
	 * it closed first.
	 */
	CHECK(l.idle_closed >= cl.server_closed);
	CHECK_EQ(l.idle_closed - cl.server_closed,
		 cl.client_closed - l.client_closed);
	/*
	 * Every byte the server echoed, the clients saw echoed, and no
	 * other: the server logs the bytes of each read (one read may hold
	 * several messages, when the client sent its next one late, at once
	 * after an echo) and of those echoed before a client's close (no
	 * push for them). Each logged read with input is one activity.
	 */
	CHECK_EQ(l.echoed_bytes, cl.echoes * MSG_LEN);
	CHECK(l.echoed <= cl.echoes);
	CHECK_EQ(l.activities, l.echoed);
	/*
	 * One ADD per connection, and one per re-add it logged: for a
	 * record before the deadline stored, or for input waiting, which it
	 * then read.
	 */
	CHECK_EQ(l.readd, l.readded);
	CHECK_EQ(l.readd_unexplained, 0);
	CHECK_EQ(l.add, l.accepted + l.readd);
	CHECK_EQ(created, l.add);
	if (!strcmp(mode, "table")) {
		/* No timer system call per activity, none to close. */
		CHECK_EQ(l.modify, 0);
		CHECK_EQ(l.submit, 0);
		CHECK_EQ(l.cancel, 0);
		/* Every record it read: an idle close, a re-add, or late. */
		CHECK_EQ(read_recs, l.idle_closed + l.readd + l.late_cancel);
		CHECK(expired >= read_recs);
	} else {
		CHECK_EQ(l.readd, 0);
		CHECK_EQ(l.late_cancel, 0);
		CHECK_EQ(l.cancel, l.accepted);
	}
	if (!strcmp(mode, "modify")) {
		/* One MODIFY per activity. */
		CHECK_EQ(l.modify, l.activities);
		CHECK_EQ(l.submit, 0);
	}
	if (!strcmp(mode, "batch")) {
		/* At most one SUBMIT per activity, no MODIFY alone. */
		CHECK_EQ(l.modify, 0);
		CHECK(l.submit > 0 && l.submit <= l.activities);
	}
	if (traced) {
		/* The kernel's count of the operations agrees. */
		CHECK_EQ(tr[0], l.add);
		if (!strcmp(mode, "table")) {
			CHECK_EQ(tr[1], 0);
			/* Only the lazy cancels the stores asked for. */
			CHECK(tr[2] <= l.client_closed);
		} else {
			CHECK_EQ(tr[1], l.activities);
			CHECK_EQ(tr[2], l.accepted);
		}
	}
	{
		char path[64];
		FILE *f;

		snprintf(path, sizeof(path), RATIO_FILE, mode);
		f = fopen(path, "w");
		CHECK(f);
		fprintf(f, "%.3f (%d connections)\n", l.per_activity, cl.n);
		fclose(f);
	}
}

static void modify(void)
{
	idle_timeouts("modify");
}

static void batch(void)
{
	idle_timeouts("batch");
}

/* Last: the three side by side, as the earlier cases left them. */
static void table(void)
{
	static const char *const modes[] = { "modify", "batch", "table" };
	char path[64], buf[64];
	unsigned int i;

	idle_timeouts("table");
	printf("# timer system calls per activity:");
	for (i = 0; i < 3; i++) {
		FILE *f;

		snprintf(path, sizeof(path), RATIO_FILE, modes[i]);
		f = fopen(path, "r");
		if (!f || !fgets(buf, sizeof(buf), f))
			strcpy(buf, "- (case failed)\n");
		if (f)
			fclose(f);
		buf[strcspn(buf, "\n")] = 0;
		printf(" %s %s%s", modes[i], buf, i < 2 ? "," : "\n");
	}
}

TWT_MAIN("echo10k", TWT_CASE_T(modify, 300), TWT_CASE_T(batch, 300),
	 TWT_CASE_T(table, 300))
