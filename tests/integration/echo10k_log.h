/* SPDX-License-Identifier: GPL-2.0 */
/*
 * echo10k_log.h - the server's log for echo10k.c: read_server_log()
 * parses the lines twheel-echo-server wrote since the last call into
 * counts (accepts, echoes, closes of each kind, re-adds and why, its
 * closing summary of timer system calls), reporting a close too early,
 * a second close, an unexplained re-add or an unknown line as it goes;
 * server_port() waits for the port it listens on.
 */
#ifndef ECHO10K_LOG_H
#define ECHO10K_LOG_H

#include "echo10k.h"

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

static inline void close_seen(struct server_log *l, size_t idx)
{
	if (idx >= (size_t)l->n) {
		l->errors++;
		return;
	}
	if (++l->closes[idx] > 1 && l->twice++ < 10)
		printf("# error: conn %zu closed twice\n", idx);
}

static inline void parse_line(struct server_log *l, const char *line, bool show)
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
static inline void read_server_log(struct server_log *l, bool show)
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
static inline uint16_t server_port(pid_t pid, struct server_log *l)
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

#endif /* ECHO10K_LOG_H */
