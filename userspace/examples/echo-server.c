// SPDX-License-Identifier: GPL-2.0
/*
 * twheel-echo-server - an epoll TCP echo server on 127.0.0.1 whose
 * per-connection idle timeouts all live in ONE /dev/twheel fd.
 *
 * The timer path, which is the point of the example, three ways
 * (--timers):
 *
 * table (the default; the shared timer table through libtwheel's idle
 * tracker, twheel_idle_*(), which keeps the deadlines stored)
 *   accept        twheel_idle_add(): TWHEEL_IOC_ADD of a one-shot timer
 *                 at "timeout from now" (rounded up to a tick), cookie =
 *                 the connection's index; a handle for it.
 *   data          twheel_idle_touch(): the deadline moves to "timeout
 *                 from now" by one store into the mapped table. No system
 *                 call: the kernel reads the entry when the old deadline
 *                 comes due, or a cascade of the wheel before it, and
 *                 places the timer again, with no record.
 *   expiry        twheel_idle_drain() hands over only real expiries (the
 *                 record's time at or after the last deadline stored): the
 *                 connection was idle for the timeout and is closed, unless
 *                 input is waiting (activity after all: a new timer is
 *                 added). A record whose push came too late for the kernel
 *                 the tracker handles itself: it adds the timer again for
 *                 the deadline stored, and tells the server (logged,
 *                 counted: the only timer calls not made at accept).
 *   client close  twheel_idle_remove(): one store; the timer ends, with
 *                 no record, when its deadline comes due. A record queued
 *                 before that store the tracker drops (and tells).
 *
 * modify (one ioctl per activity)
 *   accept        TWHEEL_IOC_ADD of a timer with the timeout as first
 *                 deadline and period (periodic, so that it still exists
 *                 when an expiry turns out to be activity, below).
 *   data          TWHEEL_IOC_MODIFY: the deadline moves to "timeout from
 *                 now"; a record of it not yet read is retracted.
 *   expiry        unless input arrived that the loop has not read yet
 *                 (then it is activity after all), the connection is
 *                 closed and its timer cancelled.
 *   client close  TWHEEL_IOC_CANCEL of its timer.
 *
 * batch: as modify, but the MODIFYs of one turn of the event loop go in
 *   one TWHEEL_IOC_SUBMIT (submitted before any other timer call and
 *   before the records are read, so that the order is kept).
 *
 * Usage: twheel-echo-server [--port N] [--timeout MS] [--timers MODE]
 *                           [--max-conns N] [--quiet]
 * It prints one line per event (accepted, echoed, closed); --port 0
 * takes any free port, printed on the first line. On SIGTERM or SIGINT it
 * prints the timer system calls it made, per activity, and exits 0.
 * tests/integration/echo.c runs it with clients, in the three modes, and
 * checks that no connection is closed before its idle timeout, none
 * twice, every idle one closed, and the timer system calls per activity:
 * 0 with the table, 1 with MODIFY, fewer batched.
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
#include <signal.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "libtwheel.h"

/* epoll data of the two fds that are not connections. */
#define EP_LISTEN	UINT64_MAX
#define EP_TIMERS	(UINT64_MAX - 1)

enum timers { TABLE, MODIFY, BATCH };
static const char *const timers_name[] = { "table", "modify", "batch" };

struct conn {
	int fd;			/* -1 once closed */
	uint64_t timer;		/* modify, batch: its twheel timer's id */
	int h;			/* table: its idle tracker handle */
	int64_t last_ns;	/* last activity */
};

static int ep, lfd, tw;
static int64_t timeout_ns;
static bool verbose = true;
static struct conn *conns;
static size_t nconns, cap;
static enum timers mode = TABLE;
static struct twheel_idle *idle;
static long max_conns;

/* batch: the MODIFYs of this turn of the loop. */
#define BATCH_MAX	TWHEEL_MAX_BATCH
static struct twheel_op batch_ops[BATCH_MAX];
static struct twheel_batch batch;

/* The timer system calls made, and the activities they were made for. */
static struct {
	long add, modify, cancel, submit, readd, activities;
} calls;

static volatile sig_atomic_t stop;

static int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * TWHEEL_SEC + ts.tv_nsec;
}

/* ---- the timer path: every twheel call of the server is one of these */

/* batch: submit the MODIFYs gathered, in one system call. */
static void batch_flush(void)
{
	ssize_t done;

	if (mode != BATCH || !batch.nr)
		return;
	calls.submit++;
	done = twheel_batch_submit(tw, &batch);
	if (done < 0)
		err(1, "TWHEEL_IOC_SUBMIT");
	for (size_t i = 0; i < (size_t)done; i++) {
		if (twheel_op_result(&batch.ops[i]) < 0)
			err(1, "MODIFY of timer %" PRIu64,
			    (uint64_t)batch.ops[i].id);
	}
	if ((size_t)done < batch.nr)
		errx(1, "TWHEEL_IOC_SUBMIT did %zd of %zu", done, batch.nr);
	twheel_batch_init(&batch, batch_ops, BATCH_MAX);
}

/*
 * A new timer for connection @idx: table, a handle of the idle tracker
 * (a one-shot timer at "timeout from now"); else timeout as first
 * deadline and period. False when the tracker holds max_conns handles.
 */
static bool timer_add(struct conn *c, uint64_t idx)
{
	struct twheel_add a = {
		.cookie = idx,
		.expires_ns = timeout_ns,
		.period_ns = timeout_ns,
		.clock = CLOCK_MONOTONIC,
	};

	if (mode == TABLE) {
		c->h = twheel_idle_add(idle, idx);
		if (c->h < 0 && errno == ENOSPC)
			return false;
		if (c->h < 0)
			err(1, "twheel_idle_add (TWHEEL_IOC_ADD)");
		calls.add++;
		return true;
	}
	batch_flush();
	calls.add++;
	if (twheel_add(tw, &a) < 0)
		err(1, "TWHEEL_IOC_ADD");
	c->timer = a.id;
	return true;
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
	calls.activities++;
	switch (mode) {
	case TABLE:
		/* One store, no system call. */
		if (twheel_idle_touch(idle, c->h) < 0)
			err(1, "twheel_idle_touch");
		break;
	case MODIFY:
		calls.modify++;
		if (twheel_modify(tw, &m) < 0)
			err(1, "TWHEEL_IOC_MODIFY of timer %" PRIu64,
			    c->timer);
		break;
	case BATCH:
		if (batch.nr == BATCH_MAX)
			batch_flush();
		twheel_batch_modify(&batch, &m);
		break;
	}
}

/* The connection ends: so does its timer (an unread record too). */
static void timer_cancel(struct conn *c)
{
	if (mode == TABLE) {
		/* One store (none after its expiry); a record queued before
		 * it is dropped by the tracker. */
		if (twheel_idle_remove(idle, c->h) < 0)
			err(1, "twheel_idle_remove");
		return;
	}
	batch_flush();
	calls.cancel++;
	if (twheel_cancel(tw, c->timer) < 0)
		err(1, "TWHEEL_IOC_CANCEL of timer %" PRIu64, c->timer);
}

/* ---- connections */

/* modify, batch: the timer is periodic, it would fire again. */
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
		if (!timer_add(c, nconns)) {
			fprintf(stderr, "%ld connections open: one refused\n",
				max_conns);
			close(fd);
			continue;
		}
		struct epoll_event ev = { .events = EPOLLIN,
					  .data.u64 = nconns };
		if (epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev) < 0)
			err(1, "epoll_ctl");
		if (verbose && mode == TABLE)
			printf("conn %zu: accepted, timer handle %d\n",
			       nconns, c->h);
		else if (verbose)
			printf("conn %zu: accepted, timer %" PRIu64 "\n",
			       nconns, c->timer);
		nconns++;
	}
}

/*
 * Input on connection @idx: echo all of it, then push the timeout back
 * once for the lot.
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
			printf("conn %zu: closed by the client, %zu bytes echoed first\n",
			       idx, got);
		return;
	}
	if (got) {
		timer_touch(c);
		if (verbose)
			printf("conn %zu: echoed %zu bytes, %s\n", idx, got,
			       mode == TABLE ? "deadline stored" :
			       mode == MODIFY ? "timer re-armed" :
			       "re-arm batched");
	}
}

/* Input waiting that the loop has not read yet? */
static bool input_waiting(struct conn *c)
{
	char b;

	return recv(c->fd, &b, 1, MSG_PEEK | MSG_DONTWAIT) >= 0 ||
	       (errno != EAGAIN && errno != EWOULDBLOCK);
}

/*
 * table: a record the idle tracker handled itself (twheel_idle_drain()
 * calls this before it goes on). A push that came after the kernel read
 * the entry: the tracker added the timer again for the deadline stored.
 * A record queued before the connection's cancel was stored: dropped.
 */
static void on_observe(void *arg, unsigned int what,
		       const struct twheel_event *ev, int64_t deadline_ns)
{
	(void)arg;
	if (what == TWHEEL_IDLE_DROPPED) {
		if (verbose)
			printf("conn %" PRIu64 ": record queued before its cancel was stored, ignored\n",
			       (uint64_t)ev->cookie);
		return;
	}
	calls.add++;
	calls.readd++;
	if (verbose)
		printf("conn %" PRIu64 ": record at %.3f ms before the deadline stored, timer added again\n",
		       (uint64_t)ev->cookie, (deadline_ns - ev->time_ns) / 1e6);
}

/*
 * A timer expired: the connection it names was idle for the timeout
 * (table: a real expiry, the tracker's; its handle is held until
 * removed).
 */
static void on_expiry(const struct twheel_event *ev)
{
	uint64_t idx = ev->cookie;
	struct conn *c = idx < nconns ? &conns[idx] : NULL;

	/* Cancel retracts unread records: a closed connection has none. */
	if (!c || c->fd < 0 || (mode != TABLE && c->timer != ev->id)) {
		printf("error: record for timer %" PRIu64 " cookie %" PRIu64
		       " of no open connection\n", (uint64_t)ev->id, idx);
		return;
	}
	if (mode == TABLE && input_waiting(c)) {
		/*
		 * Input is waiting: activity, not idleness. The timer ended
		 * with this record: a new one, from now, and the input read.
		 * (The record is at or after the deadline: a lead <= 0.)
		 */
		if (verbose)
			printf("conn %" PRIu64 ": record at %.3f ms before the deadline stored, timer added again\n",
			       idx, (c->last_ns + timeout_ns - ev->time_ns) / 1e6);
		if (twheel_idle_remove(idle, c->h) < 0)
			err(1, "twheel_idle_remove");
		c->last_ns = now_ns();
		calls.readd++;
		if (!timer_add(c, idx))
			errx(1, "twheel_idle_add: no handle free after a remove");
		on_input(idx);
		return;
	}
	/*
	 * modify, batch: input that arrived after this loop last looked is
	 * activity from before the close: read it (its MODIFY re-arms the
	 * same timer).
	 */
	if (mode != TABLE && input_waiting(c)) {
		on_input(idx);
		return;
	}
	if (verbose)
		printf("conn %" PRIu64 ": idle %.3f ms (record at %.3f ms), closed\n",
		       idx, (now_ns() - c->last_ns) / 1e6,
		       (ev->time_ns - c->last_ns) / 1e6);
	conn_close(c);
}

/*
 * batch: the MODIFYs of input read for a record (on_expiry()) go in
 * before the next read, which would otherwise return the next expiry of
 * that connection's periodic timer, due while the server was busy: not
 * retracted, it would close the connection right after its activity.
 */
static void on_timers(void)
{
	struct twheel_event ev[64];

	for (;;) {
		ssize_t n;

		batch_flush();
		if (mode == TABLE) {
			/* Real expiries only; at most 64 records read. */
			n = twheel_idle_drain(idle, ev, 64);
			if (n < 0)
				err(1, "twheel_idle_drain");
			for (ssize_t i = 0; i < n; i++)
				on_expiry(&ev[i]);
			if (n < 64)
				return;
			continue;
		}
		n = twheel_read(tw, ev, 64);

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
 * arrived together with an expiry counts as activity. SIGTERM and SIGINT
 * are taken only while waiting; the loop then ends.
 */
static void serve(void)
{
	sigset_t waiting;

	sigprocmask(SIG_SETMASK, NULL, &waiting);
	sigdelset(&waiting, SIGTERM);
	sigdelset(&waiting, SIGINT);
	while (!stop) {
		struct epoll_event evs[64];
		bool timers = false;
		int n = epoll_pwait(ep, evs, 64, -1, &waiting);

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
		batch_flush();
	}
}

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

/* What the timer path cost: system calls per activity. */
static void report(void)
{
	long per = calls.modify + calls.submit + calls.readd;

	printf("timer syscalls: mode=%s connections=%zu add=%ld modify=%ld cancel=%ld submit=%ld readd=%ld activities=%ld per_activity=%.3f\n",
	       timers_name[mode], nconns, calls.add, calls.modify,
	       calls.cancel, calls.submit, calls.readd, calls.activities,
	       calls.activities ? (double)per / calls.activities : 0.0);
}

/*
 * table: the idle tracker, for max_conns connections (and as many
 * removed ones waiting for their deadline tick); its fd is the twheel fd.
 * False when the module has no shared timer table.
 */
static bool table_setup(void)
{
	struct twheel_idle_config cfg = {
		.max_conns = (uint64_t)max_conns,
		.timeout_ns = timeout_ns,
		.observe = on_observe,
	};

	idle = twheel_idle_open(&cfg);
	if (!idle && errno == EOPNOTSUPP)
		return false;
	if (!idle)
		err(1, "twheel_idle_open");
	close(tw);
	tw = twheel_idle_fd(idle);
	return true;
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
	if (mode == TABLE && !table_setup()) {
		fprintf(stderr, "no shared timer table in this twheel module: --timers modify\n");
		mode = MODIFY;
	}
	twheel_batch_init(&batch, batch_ops, BATCH_MAX);
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
	printf("echo server on 127.0.0.1:%u, idle timeout %.0f ms, timers: %s\n",
	       ntohs(sa.sin_port), timeout_ns / 1e6, timers_name[mode]);
}

static void usage(int status)
{
	fprintf(status ? stderr : stdout,
		"usage: twheel-echo-server [--port N] [--timeout MS]\n"
		"                          [--timers table|modify|batch]\n"
		"                          [--max-conns N] [--quiet]\n"
		"An epoll TCP echo server on 127.0.0.1 (port 7777; 0: any) that\n"
		"closes connections idle for the timeout (default 10000 ms); the\n"
		"timeouts live in one /dev/twheel fd. Activity pushes a timeout\n"
		"back by a store into the shared timer table (table, the\n"
		"default), one TWHEEL_IOC_MODIFY (modify), or MODIFYs gathered\n"
		"in one TWHEEL_IOC_SUBMIT per turn of the loop (batch).\n"
		"table: at most N connections at once (default: the limit of\n"
		"open files, RLIMIT_NOFILE, at most 262144).\n");
	exit(status);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "port", required_argument, NULL, 'p' },
		{ "timeout", required_argument, NULL, 't' },
		{ "timers", required_argument, NULL, 'm' },
		{ "max-conns", required_argument, NULL, 'c' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct sigaction sa = { .sa_handler = on_signal };
	long port = 7777, timeout_ms = 10000;
	struct rlimit rl;
	sigset_t block;
	int o;

	setvbuf(stdout, NULL, _IOLBF, 0);
	/* A connection holds an fd: no more than the fds this process may. */
	max_conns = 262144;
	if (!getrlimit(RLIMIT_NOFILE, &rl) && rl.rlim_cur < (rlim_t)max_conns)
		max_conns = (long)rl.rlim_cur;
	while ((o = getopt_long(argc, argv, "p:t:m:c:qh", opts, NULL)) != -1) {
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
		case 'm':
			if (!strcmp(optarg, "table"))
				mode = TABLE;
			else if (!strcmp(optarg, "modify"))
				mode = MODIFY;
			else if (!strcmp(optarg, "batch"))
				mode = BATCH;
			else
				usage(2);
			break;
		case 'c':
			max_conns = strtol(optarg, NULL, 10);
			if (max_conns <= 0 || max_conns > INT32_MAX)
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
	/* Blocked but while waiting: a signal never cuts a timer call. */
	sigemptyset(&block);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGINT);
	sigprocmask(SIG_BLOCK, &block, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	setup(port);
	serve();
	report();
	return 0;
}
