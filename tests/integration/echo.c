// SPDX-License-Identifier: GPL-2.0
/*
 * echo: runs the example twheel-echo-server (userspace/examples/) as a
 * separate process and drives it with 24 client threads, as a user would:
 * 8 "idle" clients send a little and go quiet, 8 "active" ones send every
 * timeout/8 for 3 s and then go quiet, 8 "quitters" close first; idle
 * timeout 400 ms. Once per way the server keeps its timeouts (--timers
 * modify: one MODIFY per activity; batch: the MODIFYs of a turn of its
 * loop in one SUBMIT; table: a store into the shared timer table, no
 * system call), it checks, with CLOCK_MONOTONIC, that:
 *   - no connection is closed before the idle timeout has passed since its
 *     last activity, seen from the server (its log: idle time and the
 *     record's time) and from the client (its longest pause);
 *   - every quiet client is closed, exactly once and within 30 s; no
 *     record arrives for a closed connection (table: but one queued before
 *     its cancel was stored, which the server ignores);
 *   - active clients are kept while they send;
 *   - every connection ends one way (idle close XOR client close);
 *   - the timer system calls the server made (it counts them, and
 *     twheel's trace events count the operations, where the kernel has
 *     tracefs; the server is the only twheel user while the case runs):
 *     modify: exactly one MODIFY per activity; batch: at most one SUBMIT
 *     per activity; table: none per activity (no MODIFY, no SUBMIT; an ADD
 *     per connection, and one per expiry that turned out to be activity:
 *     a push too late, or input not read yet, after the server stalled
 *     for a timeout, which the other ways pay with a MODIFY); one ADD per
 *     connection, and with MODIFY one CANCEL.
 * The last case prints the three: timer system calls per activity.
 * Only lower bounds are asserted on time: a slow machine delays closes, it
 * never makes them early.
 */
#define _GNU_SOURCE
#include <net/if.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include "echo_modes.h"

#define SERVER		"/usr/bin/twheel-echo-server"
#define SERVER_OUT	"/tmp/echo-server.out"
#define RATIO_FILE	"/tmp/echo-per-activity-%s"
#define TRACEFS		"/sys/kernel/tracing"
#define N_IDLE		8
#define N_ACTIVE	8
#define N_QUIT		8
#define N_CLIENTS	(N_IDLE + N_ACTIVE + N_QUIT)
#define TIMEOUT_MS	400
#define STR(x)		#x
#define XSTR(x)		STR(x)
#define TIMEOUT_NS	(TIMEOUT_MS * TWT_MS)
#define INTERVAL_NS	(TIMEOUT_NS / 8)
#define ACTIVE_NS	(3 * TWT_S)
#define CLOSE_WAIT_S	30	/* how long a quiet client waits to be closed */
#define ECHO_WAIT_S	30	/* ... for the echo of what it sent */
#define EXIT_WAIT_S	30	/* how long the server may take to exit */
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
};

static void client_closed(struct client *c, bool active)
{
	int64_t gap = twt_mono() - c->prev_before;

	c->closed_by_server = true;
	c->while_active = active;
	/*
	 * The server may close only after a timeout without activity: the
	 * client must have paused that long somewhere.
	 */
	if (gap < TIMEOUT_NS && c->max_gap < TIMEOUT_NS) {
		c->early = true;
		printf("# error: %s client %d closed %.3f ms after its last send (longest pause %.3f ms), timeout %d ms\n",
		       kind_name[c->kind], c->idx, gap / 1e6, c->max_gap / 1e6,
		       TIMEOUT_MS);
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
	before = twt_mono();
	n = send(fd, msg, MSG_LEN, MSG_NOSIGNAL);
	after = twt_mono();
	if (after - c->prev_before > c->max_gap)
		c->max_gap = after - c->prev_before;
	if (n < 0 && (errno == EPIPE || errno == ECONNRESET)) {
		client_closed(c, active);
		return false;
	}
	if (n != MSG_LEN) {
		printf("# error: client %d: send: %s\n", c->idx, strerror(errno));
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
		if (errno == EAGAIN || errno == EWOULDBLOCK)
			printf("# error: client %d: no echo in %d s\n", c->idx,
			       ECHO_WAIT_S);
		else
			printf("# error: client %d: recv: %s\n", c->idx,
			       strerror(errno));
		c->failed = true;
		return false;
	}
	if (memcmp(back, msg, MSG_LEN)) {
		printf("# error: client %d: wrong echo\n", c->idx);
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
		printf("# error: %s client %d not closed %d s after its last send\n",
		       kind_name[c->kind], c->idx, CLOSE_WAIT_S);
	} else {
		printf("# error: client %d: unexpected input or error (%zd)\n",
		       c->idx, n);
		c->failed = true;
	}
}

static void sleep_until(int64_t t)
{
	struct timespec ts = { .tv_sec = t / TWT_S, .tv_nsec = t % TWT_S };

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
	if (fd < 0) {
		c->failed = true;
		return NULL;
	}
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	/* A server that never answers fails the case, not hangs it. */
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO,
		   &(struct timeval){ .tv_sec = ECHO_WAIT_S }, sizeof(struct timeval));
	c->prev_before = start = twt_mono();
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		printf("# error: client %d: connect: %s\n", c->idx,
		       strerror(errno));
		c->failed = true;
		close(fd);
		return NULL;
	}
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
	return NULL;
}

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

/* twheel's events on, in an empty buffer; false without tracefs. */
static bool trace_start(void)
{
	if (access(TRACEFS "/trace", F_OK) &&
	    mount("nodev", TRACEFS, "tracefs", 0, NULL) &&
	    access(TRACEFS "/trace", F_OK))
		return false;
	if (access(TRACEFS "/events/twheel/enable", F_OK))
		return false;
	CHECK_OK(twt_sysfs_write(TRACEFS "/tracing_on", "0"));
	CHECK_OK(twt_sysfs_write(TRACEFS "/events/enable", "0"));
	/* No task names: see twt_trace_no_comm(). */
	CHECK_OK(twt_trace_no_comm(TRACEFS));
	CHECK_OK(twt_sysfs_write(TRACEFS "/buffer_size_kb", "1024"));
	CHECK_OK(close(open(TRACEFS "/trace", O_WRONLY | O_TRUNC)));
	CHECK_OK(twt_sysfs_write(TRACEFS "/events/twheel/enable", "1"));
	CHECK_OK(twt_sysfs_write(TRACEFS "/tracing_on", "1"));
	return true;
}

/* Count the trace lines of each timer event, then turn tracing off. */
static void trace_count(long *adds, long *modifies, long *cancels)
{
	char line[512];
	FILE *f;

	CHECK_OK(twt_sysfs_write(TRACEFS "/tracing_on", "0"));
	f = fopen(TRACEFS "/trace", "r");
	CHECK(f);
	*adds = *modifies = *cancels = 0;
	while (fgets(line, sizeof(line), f)) {
		if (line[0] == '#')
			continue;
		*adds += !!strstr(line, " twheel_timer_add:");
		*modifies += !!strstr(line, " twheel_timer_modify:");
		*cancels += !!strstr(line, " twheel_timer_cancel:");
	}
	fclose(f);
	CHECK_OK(twt_sysfs_write(TRACEFS "/events/twheel/enable", "0"));
}

/* What the server logged, one counter per kind of line. */
struct server_log {
	long accepted, echoed, idle_closed, client_closed, early, twice;
	long errors, first_port, late_cancel, readded;
	unsigned int closes[N_CLIENTS];
	double late_max;
	/* Its last line: the timer system calls it made. */
	bool summary;
	char mode[16];
	long conns, add, modify, cancel, submit, readd, activities;
	double per_activity;
};

/* Parse the server's output so far; @show: repeat it as diagnostics. */
static void read_server_log(struct server_log *l, bool show)
{
	char line[512];
	double idle, rec;
	size_t idx;
	FILE *f = fopen(SERVER_OUT, "r");

	CHECK(f);
	memset(l, 0, sizeof(*l));
	l->first_port = -1;
	while (fgets(line, sizeof(line), f)) {
		unsigned int port;

		if (show)
			printf("# server: %s", line);
		if (sscanf(line, "echo server on 127.0.0.1:%u,", &port) == 1) {
			l->first_port = port;
		} else if (strstr(line, ": accepted, timer ")) {
			l->accepted++;
		} else if (strstr(line, ": echoed ")) {
			l->echoed++;
		} else if (sscanf(line, "conn %zu: idle %lf ms (record at %lf ms), closed",
				  &idx, &idle, &rec) == 3) {
			l->idle_closed++;
			if (idle < TIMEOUT_MS || rec < TIMEOUT_MS) {
				printf("# error: conn %zu closed %.3f ms after its last activity (record at %.3f ms), timeout %d ms\n",
				       idx, idle, rec, TIMEOUT_MS);
				l->early++;
			}
			if (idle - TIMEOUT_MS > l->late_max)
				l->late_max = idle - TIMEOUT_MS;
			if (idx < N_CLIENTS && ++l->closes[idx] > 1)
				l->twice++;
		} else if (sscanf(line, "timer syscalls: mode=%15s connections=%ld add=%ld modify=%ld cancel=%ld submit=%ld readd=%ld activities=%ld per_activity=%lf",
				  l->mode, &l->conns, &l->add, &l->modify,
				  &l->cancel, &l->submit, &l->readd,
				  &l->activities, &l->per_activity) == 9) {
			l->summary = true;
		} else if (strstr(line, ": record queued before its cancel was stored, ignored")) {
			l->late_cancel++;
		} else if (strstr(line, " before the deadline stored, timer added again")) {
			l->readded++;
		} else if (sscanf(line, "conn %zu: closed by the client", &idx) == 1) {
			l->client_closed++;
			if (idx < N_CLIENTS && ++l->closes[idx] > 1)
				l->twice++;
		} else if (strstr(line, "record for timer")) {
			l->twice++;	/* a record after the connection's close */
		} else {
			l->errors++;
		}
	}
	fclose(f);
}

/* The server's port, once it has printed its first line. */
static uint16_t server_port(pid_t pid)
{
	for (int i = 0; i < 1000; i++) {
		struct server_log l;
		int status;

		if (waitpid(pid, &status, WNOHANG) == pid)
			twt_fail(__FILE__, __LINE__, "the server exited (status %d)",
				 status);
		read_server_log(&l, false);
		if (l.first_port > 0)
			return l.first_port;
		twt_sleep_ms(10);
	}
	twt_fail(__FILE__, __LINE__, "the server printed no port in 10 s");
}

/* Print @path of the server, for a server that does not exit. */
static void server_show(pid_t pid, const char *what)
{
	char path[64], line[256];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/%s", (int)pid, what);
	f = fopen(path, "r");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f))
		printf("# server %s: %s", what, line);
	fclose(f);
	printf("\n");
}

/*
 * Wait for the server, told to exit, at most EXIT_WAIT_S; one that does
 * not exit fails the case with where it is (its kernel stack, its twheel
 * fd's fdinfo), instead of hanging it.
 */
static void server_reap(pid_t pid, int *status)
{
	char name[64];
	int i, fd;

	for (i = 0; i < EXIT_WAIT_S * 50; i++) {
		if (waitpid(pid, status, WNOHANG) == pid)
			return;
		twt_sleep_ms(20);
	}
	server_show(pid, "wchan");
	server_show(pid, "stack");
	server_show(pid, "status");
	for (fd = 0; fd < 64; fd++) {
		snprintf(name, sizeof(name), "fdinfo/%d", fd);
		server_show(pid, name);
	}
	kill(pid, SIGKILL);
	waitpid(pid, status, 0);
	twt_fail(__FILE__, __LINE__, "the server did not exit %d s after SIGTERM",
		 EXIT_WAIT_S);
}

static void idle_timeouts(const char *mode)
{
	struct client cl[N_CLIENTS];
	pthread_t th[N_CLIENTS];
	unsigned int active_kept = 0, stalled = 0, seen_closed = 0;
	unsigned int early_client = 0, not_closed = 0, failed = 0;
	long adds = 0, modifies = 0, cancels = 0;
	struct server_log l;
	bool traced;
	uint16_t port;
	int i, status, s, out;
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
	traced = trace_start();

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
	port = server_port(pid);

	memset(cl, 0, sizeof(cl));
	for (i = 0; i < N_CLIENTS; i++) {
		cl[i].idx = i;
		cl[i].kind = i < N_IDLE ? IDLE :
			     i < N_IDLE + N_ACTIVE ? ACTIVE : QUIT;
		cl[i].port = port;
		CHECK(pthread_create(&th[i], NULL, client_main, &cl[i]) == 0);
	}
	for (i = 0; i < N_CLIENTS; i++)
		pthread_join(th[i], NULL);
	/* The quitters' closes reach the server last: wait for them. */
	for (i = 0; i < 500; i++) {
		read_server_log(&l, false);
		if (l.idle_closed + l.client_closed >= N_CLIENTS)
			break;
		twt_sleep_ms(20);
	}
	if (waitpid(pid, &status, WNOHANG) == pid)
		twt_fail(__FILE__, __LINE__, "the server exited (status %d)",
			 status);
	kill(pid, SIGTERM);
	server_reap(pid, &status);
	if (traced)
		trace_count(&adds, &modifies, &cancels);
	read_server_log(&l, true);

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
	printf("# --timers %s: idle timeout %d ms, active clients send every %.0f ms for %.1f s\n",
	       mode, TIMEOUT_MS, INTERVAL_NS / 1e6, ACTIVE_NS / 1e9);
	printf("# connections=%ld (%d idle, %d active, %d closing themselves)\n",
	       l.accepted, N_IDLE, N_ACTIVE, N_QUIT);
	printf("# idle_closed=%ld client_closed=%ld active_kept=%u stalled=%u (allowed)\n",
	       l.idle_closed, l.client_closed, active_kept, stalled);
	printf("# early=%ld twice=%ld not_closed=%u failed=%u late_cancel=%ld (allowed: table)\n",
	       l.early + early_client, l.twice, not_closed, failed,
	       l.late_cancel);
	printf("# activities=%ld; the server's timer syscalls: add=%ld modify=%ld cancel=%ld submit=%ld (readd=%ld); per activity %.3f\n",
	       l.echoed, l.add, l.modify, l.cancel, l.submit, l.readd,
	       l.per_activity);
	printf("# trace: %s add=%ld modify=%ld cancel=%ld\n",
	       traced ? "on" : "off (no tracefs)", adds, modifies, cancels);
	printf("# idle close after the deadline: max %.3f ms (not asserted)\n",
	       l.late_max);

	/* SIGTERM: it reports its timer system calls and exits 0. */
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	CHECK(l.summary);
	CHECK(!strcmp(l.mode, mode));
	CHECK_EQ(l.errors, 0);
	CHECK_EQ(l.early + early_client, 0);
	CHECK_EQ(l.twice, 0);
	CHECK_EQ(not_closed, 0);
	CHECK_EQ(failed, 0);
	CHECK_EQ(l.accepted, N_CLIENTS);
	CHECK_EQ(l.conns, N_CLIENTS);
	/* Every connection ended one way: closed idle, or by the client. */
	CHECK_EQ(l.idle_closed + l.client_closed, l.accepted);
	/* Each server close seen by exactly one client, and vice versa. */
	CHECK_EQ(l.idle_closed, seen_closed);
	/*
	 * An active client closed while sending had paused a timeout (else
	 * it counts as early above); unless all of them did, some were kept.
	 */
	CHECK(active_kept > 0);
	CHECK(l.echoed > 0);
	CHECK_EQ(l.activities, l.echoed);
	/* One ADD per connection, and one per push that came too late. */
	CHECK_EQ(l.readd, l.readded);
	CHECK_EQ(l.add, l.accepted + l.readd);
	if (!strcmp(mode, "table")) {
		/* No timer system call per activity, none to close. */
		CHECK_EQ(l.modify, 0);
		CHECK_EQ(l.submit, 0);
		CHECK_EQ(l.cancel, 0);
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
		CHECK_EQ(adds, l.add);
		if (!strcmp(mode, "table")) {
			CHECK_EQ(modifies, 0);
		} else {
			CHECK_EQ(modifies, l.echoed);
			CHECK_EQ(cancels, l.accepted);
		}
	}
	{
		char path[64];
		FILE *f;

		snprintf(path, sizeof(path), RATIO_FILE, mode);
		f = fopen(path, "w");
		CHECK(f);
		fprintf(f, "%.3f\n", l.per_activity);
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
	idle_timeouts("table");
	echo_print_modes(RATIO_FILE);
}

TWT_MAIN("echo", TWT_CASE_T(modify, 180), TWT_CASE_T(batch, 180),
	 TWT_CASE_T(table, 180))
