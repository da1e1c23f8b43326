// SPDX-License-Identifier: GPL-2.0
/*
 * delayq: the durable delay queue example (userspace/examples/delayq.c,
 * /usr/bin/twheel-delayq in the VM), driven through its stdin and checked
 * through its replies and its two files.
 *
 *   manual_clock     on the manual clock (--manual), exact: replies,
 *                    each job delivered at its deadline tick and not
 *                    before, equal due times in add order, repeated adds,
 *                    bad commands, the journal's exact text, a restart
 *                    rearming what is pending
 *   recovery         what a start repairs: an incomplete last line of
 *                    either file cut off, a job in the outbox without its
 *                    done record marked done (not delivered again); a
 *                    corrupt journal and a second instance refused
 *   restart_overdue  jobs that fell due while the service was down are
 *                    delivered at once by the next start, none before
 *   crash_loop       400 jobs, due from 1 s in the past to 5 s ahead,
 *                    sent while the service is killed with SIGKILL at
 *                    random points (while starting, accepting, delivering)
 *                    and restarted, over 100 times; unacknowledged jobs
 *                    are sent again. Then every job is in the outbox
 *                    exactly once with its payload, none was ever seen
 *                    there before its due time, and the journal has one
 *                    add and one done record for each.
 */
#define _GNU_SOURCE	/* pipe2() */
#include <fcntl.h>
#include <stdbool.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "twtest.h"

#define DELAYQ	"/usr/bin/twheel-delayq"

/* A running twheel-delayq: its stdin, its stdout and stderr. */
struct svc {
	pid_t pid;
	int in, out;
	size_t len;
	char buf[16384];
	char line[16384];
};

static char journal[64], outbox[64];

static void setup(void)
{
	static char dir[] = "/tmp/delayq.XXXXXX";

	if (access(DELAYQ, X_OK))
		twt_skip("twheel-delayq not built (userspace/examples/examples.mk)");
	CHECK(mkdtemp(dir));
	snprintf(journal, sizeof(journal), "%s/journal", dir);
	snprintf(outbox, sizeof(outbox), "%s/outbox", dir);
	signal(SIGPIPE, SIG_IGN);	/* writing to a killed service */
}

static void start(struct svc *s, bool manual)
{
	int in[2], out[2];

	CHECK_OK(pipe2(in, O_CLOEXEC));
	CHECK_OK(pipe2(out, O_CLOEXEC));
	s->pid = fork();
	CHECK_OK(s->pid);
	if (s->pid == 0) {
		/* A failing case must not leave it holding /dev/twheel. */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		dup2(in[0], 0);
		dup2(out[1], 1);
		dup2(out[1], 2);
		if (manual)
			execl(DELAYQ, DELAYQ, "--manual", journal, outbox, NULL);
		else
			execl(DELAYQ, DELAYQ, journal, outbox, NULL);
		_exit(127);
	}
	close(in[0]);
	close(out[1]);
	s->in = in[1];
	s->out = out[0];
	s->len = 0;
}

/*
 * The next line the service printed within @timeout_ms, or NULL (time-out
 * or end). Its error messages (err(3): "twheel-delayq: ...") are repeated
 * as diagnostics and skipped.
 */
static const char *reply(struct svc *s, int64_t timeout_ms)
{
	int64_t end = twt_mono() + timeout_ms * TWT_MS;

	for (;;) {
		char *nl = memchr(s->buf, '\n', s->len);
		int64_t left;
		ssize_t n;

		if (nl) {
			size_t k = (size_t)(nl - s->buf);

			memcpy(s->line, s->buf, k);
			s->line[k] = '\0';
			s->len -= k + 1;
			memmove(s->buf, nl + 1, s->len);
			if (!strncmp(s->line, "twheel-delayq:", 14)) {
				printf("# %s\n", s->line);
				continue;
			}
			return s->line;
		}
		left = (end - twt_mono()) / TWT_MS;
		if (left < 0)
			return NULL;
		if (!(twt_poll(s->out, (int)left + 1) & (POLLIN | POLLHUP)))
			continue;
		CHECK(s->len < sizeof(s->buf));
		n = read(s->out, s->buf + s->len, sizeof(s->buf) - s->len);
		if (n < 0 && errno == EINTR)
			continue;
		CHECK_OK(n);
		if (n == 0)
			return NULL;
		s->len += (size_t)n;
	}
}

/* The service's next reply is @want. */
#define expect(s, want)		expect_at(__LINE__, (s), (want))
static void expect_at(int line, struct svc *s, const char *want)
{
	const char *got = reply(s, 60000);

	if (!got || strcmp(got, want))
		twt_fail(__FILE__, line, "reply \"%s\", want \"%s\"",
			 got ? got : "(none)", want);
}

static void __attribute__((format(printf, 2, 3)))
sendf(struct svc *s, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	CHECK(n >= 0 && (size_t)n < sizeof(buf));
	/* A killed service: EPIPE, the test goes on. */
	if (n && write(s->in, buf, (size_t)n) < 0)
		CHECK(errno == EPIPE);
}

static void stop_kill(struct svc *s)
{
	CHECK_OK(kill(s->pid, SIGKILL));
	CHECK_EQ(waitpid(s->pid, NULL, 0), s->pid);
	close(s->in);
	close(s->out);
}

/* Close its stdin; its exit status (-1: killed by a signal). */
static int stop_eof(struct svc *s)
{
	int status;

	close(s->in);
	while (reply(s, 60000))
		printf("# after stdin closed: %s\n", s->line);
	CHECK_EQ(waitpid(s->pid, &status, 0), s->pid);
	close(s->out);
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* The whole of @path (empty if missing), NUL-terminated. */
static char *slurp(const char *path)
{
	size_t len = 0, size = 1 << 16;
	char *buf = malloc(size);
	int fd = open(path, O_RDONLY);
	ssize_t n;

	CHECK(buf);
	if (fd < 0) {
		CHECK(errno == ENOENT);
		buf[0] = '\0';
		return buf;
	}
	while ((n = read(fd, buf + len, size - 1 - len)) > 0) {
		len += (size_t)n;
		if (len == size - 1) {
			size *= 2;
			buf = realloc(buf, size);
			CHECK(buf);
		}
	}
	CHECK_OK(n);
	close(fd);
	buf[len] = '\0';
	return buf;
}

#define CHECK_FILE(path, want) do {					\
	char *_t = slurp(path);						\
	if (strcmp(_t, (want)))						\
		twt_fail(__FILE__, __LINE__, "%s is\n%s\n# want\n%s",	\
			 (path), _t, (want));				\
	free(_t);							\
} while (0)

static void append_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_APPEND | O_CREAT, 0644);

	CHECK_OK(fd);
	CHECK_EQ(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
}

/* Run the service once on the current files; its exit status. */
static int run_once(bool manual, const char *input)
{
	struct svc s;

	start(&s, manual);
	sendf(&s, "%s", input);
	return stop_eof(&s);
}

#define MS_NS	((int64_t)1000000)

static void manual_clock(void)
{
	struct svc s;

	setup();
	start(&s, true);
	expect(&s, "ready 0");
	sendf(&s, "add 1 10000000 a\nadd 2 10000000 b b\nadd 3 25000000 c\n"
		  "add 4 0 d\nadd 18446744073709551615 -5 max\n"
		  "add 1 5 again\nadd x 1 y\nadd 5 1 \nadd 6 1\nbogus\n"
		  "advance x\n");
	expect(&s, "ok 1");
	expect(&s, "ok 2");
	expect(&s, "ok 3");
	expect(&s, "ok 4");
	expect(&s, "ok 18446744073709551615");
	expect(&s, "ok 1");		/* known: nothing changes */
	expect(&s, "err bad add: add ID DUE_NS PAYLOAD (1 to 255 bytes)");
	expect(&s, "err bad add: add ID DUE_NS PAYLOAD (1 to 255 bytes)");
	expect(&s, "err bad add: add ID DUE_NS PAYLOAD (1 to 255 bytes)");
	expect(&s, "err unknown command");
	expect(&s, "err unknown command");

	/* Due at or before 0: delivered at once, in add order. */
	sendf(&s, "advance 0\n");
	expect(&s, "now 0");
	CHECK_FILE(outbox, "4 0 0 d\n18446744073709551615 -5 0 max\n");
	/* Not a nanosecond early; equal due times in add order. */
	sendf(&s, "advance 9999999\n");
	expect(&s, "now 9999999");
	CHECK_FILE(outbox, "4 0 0 d\n18446744073709551615 -5 0 max\n");
	sendf(&s, "advance 1\n");
	expect(&s, "now 10000000");
	CHECK_FILE(outbox, "4 0 0 d\n18446744073709551615 -5 0 max\n"
		   "1 10000000 10000000 a\n2 10000000 10000000 b b\n");
	CHECK_FILE(journal, "add 1 10000000 a\nadd 2 10000000 b b\n"
		   "add 3 25000000 c\nadd 4 0 d\n"
		   "add 18446744073709551615 -5 max\n"
		   "done 4\ndone 18446744073709551615\ndone 1\ndone 2\n");
	stop_kill(&s);

	/* Restarted: job 3 alone is armed again (the clock is 0 again). */
	start(&s, true);
	expect(&s, "ready 1");
	sendf(&s, "add 3 1 other\nadd 2 1 other\n");
	expect(&s, "ok 3");
	expect(&s, "ok 2");
	sendf(&s, "advance 24999999\n");
	expect(&s, "now 24999999");
	sendf(&s, "advance 5000001\n");
	expect(&s, "now 30000000");
	CHECK_EQ(stop_eof(&s), 0);	/* --manual: at once */
	CHECK_FILE(outbox, "4 0 0 d\n18446744073709551615 -5 0 max\n"
		   "1 10000000 10000000 a\n2 10000000 10000000 b b\n"
		   "3 25000000 30000000 c\n");
	CHECK_FILE(journal, "add 1 10000000 a\nadd 2 10000000 b b\n"
		   "add 3 25000000 c\nadd 4 0 d\n"
		   "add 18446744073709551615 -5 max\n"
		   "done 4\ndone 18446744073709551615\ndone 1\ndone 2\n"
		   "done 3\n");
}

static void recovery(void)
{
	struct svc s, other;

	setup();
	CHECK_EQ(run_once(true, "add 1 5000000 one\nadd 2 9000000 two\n"
			  "advance 6000000\n"), 0);
	CHECK_FILE(outbox, "1 5000000 6000000 one\n");
	CHECK_FILE(journal, "add 1 5000000 one\nadd 2 9000000 two\n"
		   "done 1\n");

	/*
	 * A crash cut the last write of each file short, and another one
	 * came between job 2's outbox line and its done record.
	 */
	append_file(outbox, "2 9000000 9000000 two\n3 1 1 thr");
	append_file(journal, "add 3 1 thr");
	start(&s, true);
	expect(&s, "ready 0");
	CHECK_FILE(outbox, "1 5000000 6000000 one\n2 9000000 9000000 two\n");
	CHECK_FILE(journal, "add 1 5000000 one\nadd 2 9000000 two\n"
		   "done 1\ndone 2\n");

	/* One service per journal. */
	start(&other, true);
	CHECK_EQ(stop_eof(&other), 1);

	/* Nothing delivered twice; the cut job 3 was never accepted. */
	sendf(&s, "advance 100000000\n");
	expect(&s, "now 100000000");
	sendf(&s, "add 3 1 three\nadvance 0\n");
	expect(&s, "ok 3");
	expect(&s, "now 100000000");
	CHECK_EQ(stop_eof(&s), 0);
	CHECK_FILE(outbox, "1 5000000 6000000 one\n2 9000000 9000000 two\n"
		   "3 1 100000000 three\n");
	CHECK_FILE(journal, "add 1 5000000 one\nadd 2 9000000 two\n"
		   "done 1\ndone 2\nadd 3 1 three\ndone 3\n");

	/* A corrupt record: refused, the files left as they are. */
	append_file(journal, "done 7\n");
	CHECK_EQ(run_once(true, ""), 1);
	CHECK_FILE(outbox, "1 5000000 6000000 one\n2 9000000 9000000 two\n"
		   "3 1 100000000 three\n");
}

/* The outbox's complete lines: "ID DUE FIRED PAYLOAD". */
struct line {
	uint64_t id;
	int64_t due, fired;
	char payload[64];
};

static size_t parse_outbox(struct line *l, size_t cap)
{
	char *text = slurp(outbox), *p = text, *nl;
	size_t n = 0;

	while ((nl = strchr(p, '\n'))) {
		int off = 0;

		*nl = '\0';
		CHECK(n < cap);
		if (sscanf(p, "%" SCNu64 " %" SCNd64 " %" SCNd64 " %n", &l[n].id,
			   &l[n].due, &l[n].fired, &off) != 3 || !off ||
		    strlen(p + off) >= sizeof(l[n].payload))
			twt_fail(__FILE__, __LINE__, "outbox line \"%s\"", p);
		strcpy(l[n].payload, p + off);
		n++;
		p = nl + 1;
	}
	free(text);
	return n;
}

#define NOVERDUE	20

static void restart_overdue(void)
{
	static struct line l[NOVERDUE + 1];
	int64_t due0, before;
	struct svc s;
	size_t n;
	int k;

	setup();
	start(&s, false);
	expect(&s, "ready 0");
	due0 = twt_now(CLOCK_REALTIME) + 700 * MS_NS;
	for (k = 0; k < NOVERDUE; k++)
		sendf(&s, "add %d %" PRId64 " job-%d\n", k,
		      due0 + k * 10 * MS_NS, k);
	for (k = 0; k < NOVERDUE; k++) {
		const char *r = reply(&s, 60000);
		char want[32];

		snprintf(want, sizeof(want), "ok %d", k);
		CHECK(r && !strcmp(r, want));
	}
	stop_kill(&s);
	/* Killed before any was due; wait while it is down. */
	CHECK(twt_now(CLOCK_REALTIME) < due0);
	CHECK_EQ(parse_outbox(l, NOVERDUE + 1), 0);
	twt_sleep_ns(due0 + NOVERDUE * 10 * MS_NS + 300 * MS_NS -
		     twt_now(CLOCK_REALTIME));

	before = twt_now(CLOCK_REALTIME);
	start(&s, false);
	expect(&s, "ready 20");
	CHECK_EQ(stop_eof(&s), 0);	/* stdin closed: exits when all done */
	n = parse_outbox(l, NOVERDUE + 1);
	CHECK_EQ(n, NOVERDUE);
	for (k = 0; k < NOVERDUE; k++) {
		char want[32];

		snprintf(want, sizeof(want), "job-%d", k);
		CHECK_EQ(l[k].id, k);		/* equal order: due order */
		CHECK_EQ(l[k].due, due0 + k * 10 * MS_NS);
		CHECK(!strcmp(l[k].payload, want));
		/* Fired by the new start, all due already. */
		CHECK(l[k].fired >= before);
		CHECK(l[k].fired >= l[k].due);
	}
	printf("# %d overdue jobs fired %.1f to %.1f ms after the restart\n",
	       NOVERDUE, (l[0].fired - before) / 1e6,
	       (l[NOVERDUE - 1].fired - before) / 1e6);
}

#define NJOBS		400
#define MIN_ROUNDS	100
#define MAX_ROUNDS	2000
#define ID_BASE		((uint64_t)0xdeadbeef00000000ULL) /* > INT64_MAX */
#define ID_STEP		7919

struct tjob {
	int64_t due;
	char payload[32];
	bool acked;
	unsigned int sent;
};

static struct tjob tj[NJOBS];

static struct tjob *tjob_of(uint64_t id)
{
	uint64_t k = (id - ID_BASE) / ID_STEP;

	if (id < ID_BASE || (id - ID_BASE) % ID_STEP || k >= NJOBS)
		return NULL;
	return &tj[k];
}

/* Every line in the outbox now: due by now, fired after due, known. */
static size_t check_not_early(struct line *l)
{
	size_t n = parse_outbox(l, 2 * NJOBS), i;
	int64_t now = twt_now(CLOCK_REALTIME);

	for (i = 0; i < n; i++) {
		struct tjob *j = tjob_of(l[i].id);

		if (!j || l[i].due != j->due || strcmp(l[i].payload, j->payload))
			twt_fail(__FILE__, __LINE__, "outbox: job %" PRIu64
				 " unknown or changed", l[i].id);
		if (l[i].due > now || l[i].fired < l[i].due)
			twt_fail(__FILE__, __LINE__, "job %" PRIu64 " due %"
				 PRId64 " delivered early (fired %" PRId64
				 ", seen at %" PRId64 ")", l[i].id, l[i].due,
				 l[i].fired, now);
	}
	return n;
}

static void crash_loop(void)
{
	static struct line l[2 * NJOBS];
	unsigned int rounds = 0, early_kills = 0, resent = 0, k, seen[NJOBS];
	unsigned int delivering = 0;
	size_t before = 0;
	uint64_t seed = 0x9e3779b97f4a7c15ULL ^ (uint64_t)twt_mono();
	int64_t t0, last_due = 0, end;
	size_t n, acked = 0, next = 0, i;
	char *text, *p, *nl;
	struct svc s;

	setup();
	printf("# seed %#" PRIx64 "\n", seed);
	t0 = twt_now(CLOCK_REALTIME);
	for (k = 0; k < NJOBS; k++) {
		/* A quarter in five clusters of equal due times. */
		if (k % 4 == 0)
			tj[k].due = t0 + (int64_t)(k % 5) * 1000 * MS_NS;
		else
			tj[k].due = t0 - 1000 * MS_NS +
				(int64_t)(twt_rand(&seed) % (6000 * MS_NS));
		snprintf(tj[k].payload, sizeof(tj[k].payload), "p%u-%" PRIx64,
			 k, twt_rand(&seed) & 0xffffff);
		if (tj[k].due > last_due)
			last_due = tj[k].due;
	}

	while (rounds < MIN_ROUNDS || acked < NJOBS ||
	       twt_now(CLOCK_REALTIME) < last_due + 500 * MS_NS) {
		uint64_t r = twt_rand(&seed);
		const char *line;

		CHECK(++rounds <= MAX_ROUNDS);
		start(&s, false);
		if (r % 4 == 0) {	/* killed while it starts */
			twt_sleep_ns((int64_t)(r >> 8) % (20 * MS_NS));
			stop_kill(&s);
			early_kills++;
			continue;
		}
		line = reply(&s, 60000);
		CHECK(line && !strncmp(line, "ready ", 6));
		/* The unacknowledged jobs, from the first, sent (again). */
		for (k = 0, i = next; k < (r >> 8) % 60 && i < NJOBS; i++) {
			if (tj[i].acked)
				continue;
			resent += tj[i].sent > 0;
			tj[i].sent++;
			sendf(&s, "add %" PRIu64 " %" PRId64 " %s\n",
			      ID_BASE + i * ID_STEP, tj[i].due, tj[i].payload);
			k++;
		}
		/*
		 * A third of the time it is killed at once, as it takes them
		 * (their replies unread); else after 0 to 150 ms.
		 */
		end = twt_mono() + (int64_t)((r >> 24) % 150) * MS_NS;
		while ((r >> 16) % 3 &&
		       (line = reply(&s, (end - twt_mono()) / TWT_MS))) {
			uint64_t id;
			struct tjob *j;

			if (sscanf(line, "ok %" SCNu64, &id) != 1 ||
			    !(j = tjob_of(id)) || !j->sent)
				twt_fail(__FILE__, __LINE__, "reply \"%s\"", line);
			if (!j->acked)
				acked++;
			j->acked = true;
		}
		while (next < NJOBS && tj[next].acked)
			next++;
		n = check_not_early(l);
		delivering += n != before;
		before = n;
		stop_kill(&s);
	}

	/* The last run: everything is delivered, then it exits on EOF. */
	start(&s, false);
	CHECK(reply(&s, 60000) && !strncmp(s.line, "ready ", 6));
	end = twt_mono() + 120 * TWT_S;
	while ((n = check_not_early(l)) < NJOBS && twt_mono() < end)
		twt_sleep_ms(50);
	CHECK_EQ(stop_eof(&s), 0);

	n = check_not_early(l);
	CHECK_EQ(n, NJOBS);
	memset(seen, 0, sizeof(seen));
	for (i = 0; i < n; i++)
		seen[tjob_of(l[i].id) - tj]++;
	for (k = 0; k < NJOBS; k++)
		if (seen[k] != 1)
			twt_fail(__FILE__, __LINE__, "job %u delivered %u times",
				 k, seen[k]);

	/* The journal: one add and one done record per job, nothing else. */
	text = slurp(journal);
	memset(seen, 0, sizeof(seen));
	for (p = text; (nl = strchr(p, '\n')); p = nl + 1) {
		uint64_t id;
		int off = 0;
		struct tjob *j;

		*nl = '\0';
		if (sscanf(p, "add %" SCNu64 " %*[-0-9] %*s%n", &id, &off) == 1 &&
		    off && !p[off] && (j = tjob_of(id)))
			seen[j - tj] += 1;
		else if (sscanf(p, "done %" SCNu64 "%n", &id, &off) == 1 &&
			 off && !p[off] && (j = tjob_of(id)))
			seen[j - tj] += 100;
		else
			twt_fail(__FILE__, __LINE__, "journal line \"%s\"", p);
	}
	CHECK(!*p);
	free(text);
	for (k = 0; k < NJOBS; k++)
		if (seen[k] != 101)
			twt_fail(__FILE__, __LINE__, "job %u: %u add and %u done "
				 "records", k, seen[k] % 100, seen[k] / 100);
	printf("# %u rounds, each ended by SIGKILL (%u while starting, %u "
	       "after delivering); %u adds sent again\n", rounds, early_kills,
	       delivering, resent);
}

TWT_MAIN("delayq",
	 TWT_CASE_T(manual_clock, 120),
	 TWT_CASE_T(recovery, 120),
	 TWT_CASE_T(restart_overdue, 180),
	 TWT_CASE_T(crash_loop, 900))
