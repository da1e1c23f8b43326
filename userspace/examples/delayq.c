// SPDX-License-Identifier: GPL-2.0
/*
 * twheel-delayq - a durable delayed-job service: each job it accepts is
 * delivered exactly once, never before its due time, however often it is
 * killed and restarted.
 *
 * Usage: twheel-delayq [--manual] JOURNAL OUTBOX
 *
 * Commands, one a line on stdin:
 *
 *   add ID DUE_NS PAYLOAD  a job: deliver PAYLOAD (1 to 255 bytes) at
 *                          DUE_NS, an absolute CLOCK_REALTIME time in
 *                          nanoseconds; ID is any unsigned 64-bit number.
 *                          Replied to with "ok ID" once the job is on
 *                          disk. An ID already known (pending or
 *                          delivered) gets the same reply and changes
 *                          nothing, so a client that got no reply sends
 *                          the job again.
 *   advance DELTA_NS       (--manual only) move the manual clock forward,
 *                          deliver what fell due, reply "now TIME_NS".
 *
 * Anything else is replied to with "err REASON". Once the files are read
 * and every pending job is armed it prints "ready PENDING". At the end of
 * stdin it exits as soon as no job is pending (with --manual: at once).
 *
 * Files, both append-only, one record a line:
 *
 *   JOURNAL  "add ID DUE_NS PAYLOAD" for each job accepted, "done ID" for
 *            each job delivered
 *   OUTBOX   the consumer's: "ID DUE_NS FIRED_NS PAYLOAD" for each job
 *            delivered, FIRED_NS the time its timer fired (>= DUE_NS)
 *
 * Timers: each pending job is one absolute CLOCK_REALTIME timer on one
 * /dev/twheel fd, its cookie the job. A deadline already past is queued
 * at once, so after a restart the jobs that fell due while the service
 * was down are delivered at once. With --manual the timers run on the
 * fd's manual clock instead (from 0, moved only by "advance"), for tests.
 *
 * The guarantee: every job replied to with "ok" appears in OUTBOX exactly
 * once, as a complete line, never before its due time, whenever the
 * service is killed (SIGKILL, or a crash of the machine on a file system
 * that keeps what fsync(2) reported written), provided it is restarted
 * and runs long enough. A job sent but not replied to appears at most
 * once, and exactly once when it is sent again. Why:
 *
 *  1. A job is replied to only after its add record was fsync'd.
 *  2. A delivery appends the jobs' lines to OUTBOX and fsyncs it, then
 *     appends their done records to JOURNAL and fsyncs it.
 *  3. A start cuts off an incomplete last line of either file (a write
 *     the crash cut short: never replied to, or to be redone), marks done
 *     every job whose line is in OUTBOX (appending the done record that a
 *     crash between the two steps of 2 left out), and arms every other.
 *
 * So a job's line is written only while it is neither marked done nor in
 * OUTBOX (at most once), and every accepted job is armed at each start
 * until its line is in OUTBOX (at least once); a timer never fires before
 * its deadline (never early). A consumer reads complete lines only: a
 * crash may leave an incomplete last line, which the next start removes
 * before it appends anything. One service per JOURNAL (flock(2)).
 */
#include <ctype.h>
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <libgen.h>
#include <poll.h>
#include <search.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include "libtwheel.h"

#define PAYLOAD_MAX	255
#define REC_MAX		(PAYLOAD_MAX + 80)	/* one record, any file */
#define DRAIN_N		64			/* records per read */
#define FLUSH_MAX	1024			/* adds per journal write */
#define IN_MAX		65536			/* stdin buffer */

struct job {
	uint64_t id;
	int64_t due_ns;
	bool done;
	char payload[];
};

static int tw, jfd, ofd;	/* /dev/twheel, JOURNAL, OUTBOX */
static bool manual;
static void *jobs;		/* tsearch(3) tree of every job, by id */
static size_t pending;		/* jobs not delivered yet */

/* Append @len bytes to @fd, durably; a failure ends the service. */
static void append(int fd, const char *buf, size_t len)
{
	while (len) {
		ssize_t n = write(fd, buf, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			err(1, "write");
		buf += n;
		len -= (size_t)n;
	}
	if (fsync(fd))
		err(1, "fsync");
}

/* ---- The timers: all the service does with /dev/twheel ---- */

/* Arm @n jobs: an absolute CLOCK_REALTIME timer each, its cookie the job. */
static void arm(struct job **job, size_t n)
{
	struct twheel_batch b;
	struct twheel_op *ops;
	size_t i;

	if (!n)
		return;
	ops = calloc(n, sizeof(*ops));
	if (!ops)
		err(1, "calloc");
	twheel_batch_init(&b, ops, n);
	for (i = 0; i < n; i++)
		twheel_batch_add(&b, &(struct twheel_add){
			.cookie = (uintptr_t)job[i],
			.expires_ns = job[i]->due_ns,
			.flags = TWHEEL_ABSTIME,
			.clock = CLOCK_REALTIME,
		});
	if (twheel_batch_submit(tw, &b) < 0)
		err(1, "arming %zu jobs", n);
	for (i = 0; i < n; i++)
		if (twheel_op_result(&ops[i]) < 0)
			err(1, "arming job %" PRIu64, job[i]->id);
	free(ops);
}

/*
 * twheel_drain()'s callback: deliver the jobs of @n expiry records. Their
 * lines go to OUTBOX first, then their done records to JOURNAL; a crash
 * in between is repaired at the next start (recover()).
 */
static int deliver(void *arg, const struct twheel_event *ev, size_t n)
{
	static char out[DRAIN_N * REC_MAX], done[DRAIN_N * REC_MAX];
	size_t olen = 0, dlen = 0, i;

	(void)arg;
	for (i = 0; i < n; i++) {
		struct job *j = (struct job *)(uintptr_t)ev[i].cookie;

		if (j->done)
			errx(1, "job %" PRIu64 " fired twice", j->id);
		j->done = true;
		olen += sprintf(out + olen, "%" PRIu64 " %" PRId64 " %" PRId64
				" %s\n", j->id, j->due_ns,
				(int64_t)ev[i].time_ns, j->payload);
		dlen += sprintf(done + dlen, "done %" PRIu64 "\n", j->id);
	}
	append(ofd, out, olen);
	append(jfd, done, dlen);
	pending -= n;
	return 0;
}

/* Deliver every job whose timer has fired. */
static void expire(void)
{
	struct twheel_event ev[DRAIN_N];

	if (twheel_drain(tw, ev, DRAIN_N, deliver, NULL) < 0)
		err(1, "reading /dev/twheel");
}

/* ---- Jobs, records, files ---- */

static int job_cmp(const void *a, const void *b)
{
	const struct job *x = a, *y = b;

	return (x->id > y->id) - (x->id < y->id);
}

static struct job *job_find(uint64_t id)
{
	struct job key = { .id = id };
	struct job **j = tfind(&key, &jobs, job_cmp);

	return j ? *j : NULL;
}

/* A new pending job, or NULL when @id is known already. */
static struct job *job_new(uint64_t id, int64_t due_ns, const char *payload)
{
	size_t size = strlen(payload) + 1;
	struct job *j = malloc(sizeof(*j) + size), **slot;

	if (!j)
		err(1, "malloc");
	j->id = id;
	j->due_ns = due_ns;
	j->done = false;
	memcpy(j->payload, payload, size);
	slot = tsearch(j, &jobs, job_cmp);
	if (!slot)
		err(1, "tsearch");
	if (*slot != j) {
		free(j);
		return NULL;
	}
	pending++;
	return j;
}

/* A decimal number at *@s, then a space or the end; *@s moves past both. */
static bool parse_num(char **s, bool is_signed, uint64_t *v)
{
	char *end;

	if (!isdigit((unsigned char)**s) && !(is_signed && **s == '-'))
		return false;
	errno = 0;
	*v = is_signed ? (uint64_t)strtoll(*s, &end, 10) :
			 strtoull(*s, &end, 10);
	if (errno || end == *s || (*end != ' ' && *end != '\0'))
		return false;
	*s = *end ? end + 1 : end;
	return true;
}

/* "add ID DUE_NS PAYLOAD", as a command and as a journal record. */
static bool parse_add(char *line, uint64_t *id, int64_t *due_ns,
		      char **payload)
{
	uint64_t due;
	size_t len;
	char *p;

	if (strncmp(line, "add ", 4))
		return false;
	p = line + 4;
	if (!parse_num(&p, false, id) || !parse_num(&p, true, &due))
		return false;
	len = strlen(p);
	*due_ns = (int64_t)due;
	*payload = p;
	return len >= 1 && len <= PAYLOAD_MAX;
}

/*
 * Open @path (created if missing) for appending, locked; read it and cut
 * off an incomplete last line. Returns its fd; *@text: its complete lines.
 */
static int open_log(const char *path, char **text)
{
	size_t len = 0, size = 1 << 16, full;
	char *buf = malloc(size);
	int fd;

	fd = open(path, O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	if (fd < 0 || !buf)
		err(1, "%s", path);
	if (flock(fd, LOCK_EX | LOCK_NB))
		err(1, "%s: locked (another twheel-delayq?)", path);
	for (;;) {
		ssize_t n;

		if (len + 1 == size) {
			size *= 2;
			buf = realloc(buf, size);
			if (!buf)
				err(1, "realloc");
		}
		n = read(fd, buf + len, size - 1 - len);
		if (n < 0)
			err(1, "%s", path);
		if (!n)
			break;
		len += (size_t)n;
	}
	for (full = len; full && buf[full - 1] != '\n'; full--)
		;
	if (full != len && ftruncate(fd, (off_t)full))
		err(1, "%s: truncate", path);
	buf[full] = '\0';
	*text = buf;
	return fd;
}

/* fsync(2) the directory of @path: a file just created is there for good. */
static void sync_dir(const char *path)
{
	char *copy = strdup(path);
	int fd = copy ? open(dirname(copy), O_RDONLY | O_DIRECTORY) : -1;

	if (fd < 0 || fsync(fd))
		err(1, "directory of %s", path);
	close(fd);
	free(copy);
}

/* Read both files, repair a crash's traces, arm every pending job. */
static void recover(const char *journal, const char *outbox)
{
	struct job **all = NULL, *j;
	size_t n = 0, cap = 0, npend = 0, k;
	char *text, *line, *next, *p, *payload;
	uint64_t id;
	int64_t due;

	jfd = open_log(journal, &text);
	for (line = text; *line; line = next) {
		next = strchr(line, '\n');
		*next++ = '\0';
		if (parse_add(line, &id, &due, &payload)) {
			j = job_new(id, due, payload);
			if (!j)
				errx(1, "%s: job %" PRIu64 " added twice",
				     journal, id);
			if (n == cap) {
				cap = 2 * cap + 64;
				all = realloc(all, cap * sizeof(*all));
				if (!all)
					err(1, "realloc");
			}
			all[n++] = j;
			continue;
		}
		j = NULL;
		if (!strncmp(line, "done ", 5)) {
			p = line + 5;
			if (parse_num(&p, false, &id) && !*p)
				j = job_find(id);
		}
		if (!j || j->done)
			errx(1, "%s: bad record \"%s\"", journal, line);
		j->done = true;
		pending--;
	}
	free(text);

	ofd = open_log(outbox, &text);
	for (line = text; *line; line = next) {
		next = strchr(line, '\n');
		*next++ = '\0';
		p = line;
		j = parse_num(&p, false, &id) ? job_find(id) : NULL;
		if (!j)
			errx(1, "%s: bad record \"%s\"", outbox, line);
		if (!j->done) {		/* delivered, not marked: step 2 cut */
			char rec[REC_MAX];

			j->done = true;
			pending--;
			append(jfd, rec, (size_t)sprintf(rec, "done %" PRIu64
							 "\n", id));
		}
	}
	free(text);
	sync_dir(journal);
	sync_dir(outbox);

	for (k = 0; k < n; k++)		/* the pending ones, in add order */
		if (!all[k]->done)
			all[npend++] = all[k];
	arm(all, npend);
	free(all);
}

/* ---- Commands ---- */

/* Adds accepted but not yet written, armed and replied to. */
static struct job *fresh[FLUSH_MAX];
static uint64_t acks[FLUSH_MAX];
static size_t nfresh, nacks, jlen;
static char jbuf[FLUSH_MAX * REC_MAX];

/* Journal the fresh jobs (one write, one fsync), arm them, reply. */
static void flush(void)
{
	size_t i;

	if (jlen)
		append(jfd, jbuf, jlen);
	arm(fresh, nfresh);
	for (i = 0; i < nacks; i++)
		printf("ok %" PRIu64 "\n", acks[i]);
	nfresh = nacks = jlen = 0;
}

static void command(char *line)
{
	uint64_t id, delta;
	char *payload, *p;
	int64_t due, now;
	struct job *j;

	if (parse_add(line, &id, &due, &payload)) {
		j = job_new(id, due, payload);
		if (j) {
			jlen += (size_t)sprintf(jbuf + jlen, "add %" PRIu64 " %"
						PRId64 " %s\n", id, due, payload);
			fresh[nfresh++] = j;
		}
		acks[nacks++] = id;
		if (nacks == FLUSH_MAX)
			flush();
		return;
	}
	flush();	/* replies in the order of the commands */
	if (manual && !strncmp(line, "advance ", 8)) {
		p = line + 8;
		if (parse_num(&p, false, &delta) && !*p) {
			if (twheel_advance(tw, delta, &now) < 0)
				err(1, "twheel_advance");
			expire();
			printf("now %" PRId64 "\n", now);
			return;
		}
	}
	if (!strncmp(line, "add ", 4))
		printf("err bad add: add ID DUE_NS PAYLOAD (1 to %d bytes)\n",
		       PAYLOAD_MAX);
	else
		printf("err unknown command\n");
}

/*
 * Run the complete lines of @in (@len bytes) as commands; returns the
 * length of the incomplete line left, moved to the start of @in.
 */
static size_t input(char *in, size_t len)
{
	static bool skip;	/* in the rest of a line too long */
	char *line = in, *nl;

	while ((nl = memchr(line, '\n', len - (size_t)(line - in)))) {
		*nl = '\0';
		if (!skip)
			command(line);
		skip = false;
		line = nl + 1;
	}
	flush();
	len -= (size_t)(line - in);
	if (len == IN_MAX) {
		printf("err line too long\n");
		skip = true;
		len = 0;
	}
	memmove(in, line, len);
	fflush(stdout);
	return len;
}

int main(int argc, char **argv)
{
	static const struct twheel_config manual_clock = {
		.tick_ns = TWHEEL_MSEC,
		.flags = TWHEEL_CONFIG_MANUAL,
	};
	static char in[IN_MAX];
	struct pollfd p[2];
	size_t len = 0;
	int arg = 1;

	if (argc > 1 && !strcmp(argv[1], "--manual")) {
		manual = true;
		arg++;
	}
	if (argc - arg != 2) {
		fprintf(stderr, "usage: twheel-delayq [--manual] JOURNAL OUTBOX\n");
		return 2;
	}
	tw = twheel_open(O_CLOEXEC | O_NONBLOCK);
	if (tw < 0)
		err(1, "twheel_open");
	if (manual && twheel_config(tw, &manual_clock) < 0)
		err(1, "twheel_config");
	recover(argv[arg], argv[arg + 1]);
	printf("ready %zu\n", pending);
	fflush(stdout);

	p[0] = (struct pollfd){ .fd = STDIN_FILENO, .events = POLLIN };
	p[1] = (struct pollfd){ .fd = tw, .events = POLLIN };
	while (p[0].fd >= 0 || (pending && !manual)) {
		ssize_t n;

		if (poll(p, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			err(1, "poll");
		}
		if (p[1].revents & POLLIN)
			expire();
		if (!(p[0].revents & (POLLIN | POLLHUP)))
			continue;
		n = read(STDIN_FILENO, in + len, IN_MAX - len);
		if (n < 0 && errno != EINTR && errno != EAGAIN)
			err(1, "stdin");
		if (n == 0)
			p[0].fd = -1;	/* an incomplete last line is dropped */
		if (n > 0)
			len = input(in, len + (size_t)n);
	}
	return 0;
}
