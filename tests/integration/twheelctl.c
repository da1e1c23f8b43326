// SPDX-License-Identifier: GPL-2.0
/*
 * twheelctl: the session tool (/usr/bin/twheelctl in the VM) driven as a
 * user would: commands as arguments, a script on stdin, and a live
 * session through pipes. Every line it prints is checked exactly, on a
 * manual clock (ids are read from its own "added id=" lines).
 */
#define _GNU_SOURCE		/* unshare() */
#include <sched.h>
#include <stdbool.h>
#include <sys/mount.h>
#include <sys/stat.h>

#include "twtest.h"

#define CTL		"/usr/bin/twheelctl"
#define HINT		"twheelctl: is the module loaded? modprobe twheel (or insmod twheel.ko)"
#define PREP_FAILED	99
#define OUT_MAX		65536

struct run {
	int status;		/* twheelctl's exit status */
	char out[OUT_MAX];	/* its stdout */
	char err[OUT_MAX];	/* its stderr */
};

static void need_ctl(void)
{
	if (access(CTL, X_OK))
		twt_skip(CTL " is not installed");
}

/* An unlinked temporary file, for a child's stdin, stdout or stderr. */
static int tmpfile_fd(void)
{
	char path[] = "/tmp/twheelctl-test.XXXXXX";
	int fd = mkstemp(path);

	CHECK(fd >= 0);
	unlink(path);
	return fd;
}

static void slurp(int fd, char *buf, size_t size)
{
	size_t len = 0;
	ssize_t r;

	CHECK(lseek(fd, 0, SEEK_SET) == 0);
	while (len < size - 1 && (r = read(fd, buf + len, size - 1 - len)) > 0)
		len += (size_t)r;
	buf[len] = '\0';
	close(fd);
}

/*
 * Run twheelctl with @argv (argv[0] included, NULL-terminated) and @input
 * on stdin; @prep, if any, runs in the child first (returning non-zero if
 * it cannot, which skips the case).
 */
static void run_ctl(struct run *r, const char *input, char *const argv[],
		    int (*prep)(void))
{
	int in = tmpfile_fd(), out = tmpfile_fd(), err = tmpfile_fd();
	size_t len = strlen(input);
	pid_t pid;

	CHECK_EQ(write(in, input, len), (ssize_t)len);
	CHECK(lseek(in, 0, SEEK_SET) == 0);
	fflush(stdout);
	pid = fork();
	CHECK(pid >= 0);
	if (pid == 0) {
		if (prep && prep())
			_exit(PREP_FAILED);
		dup2(in, STDIN_FILENO);
		dup2(out, STDOUT_FILENO);
		dup2(err, STDERR_FILENO);
		execv(CTL, argv);
		_exit(127);
	}
	close(in);
	CHECK_EQ(waitpid(pid, &r->status, 0), pid);
	slurp(out, r->out, sizeof(r->out));
	slurp(err, r->err, sizeof(r->err));
	if (WIFEXITED(r->status) && WEXITSTATUS(r->status) == PREP_FAILED)
		twt_skip("cannot prepare the child (mount namespace)");
	CHECK(WIFEXITED(r->status));
	r->status = WEXITSTATUS(r->status);
	printf("# twheelctl exit %d\n", r->status);
}

/* CHECK_STR(got, want): strings equal, both printed if not. */
#define CHECK_STR(got, want) do {					\
	const char *_g = (got), *_w = (want);				\
	if (strcmp(_g, _w))						\
		twt_fail(__FILE__, __LINE__, "got:\n%s\n# want:\n%s",	\
			 _g, _w);					\
} while (0)

/* The id of an "added id=N" line, or fail. */
#define added_id(line)	added_id_at(__FILE__, __LINE__, (line))
static unsigned long long added_id_at(const char *file, int line,
				      const char *s)
{
	unsigned long long id;
	int end = -1;

	if (sscanf(s, "added id=%llu%n", &id, &end) != 1 ||
	    (s[end] != '\n' && s[end] != '\0') || !id)
		twt_fail(file, line, "not an \"added id=\" line: %s", s);
	return id;
}

/* A commands-from-stdin script on the manual clock. */
static void script_manual(void)
{
	char *const argv[] = { "twheelctl", "--manual", NULL };
	static struct run r;
	unsigned long long id;
	char want[512];

	need_ctl();
	run_ctl(&r, "add 10ms\nadvance 10ms\nread\n", argv, NULL);
	id = added_id(r.out);
	snprintf(want, sizeof(want),
		 "added id=%llu\n"
		 "now=10000000\n"
		 "expired id=%llu cookie=0 count=1 clock=monotonic time_ns=10000000\n",
		 id, id);
	CHECK_STR(r.out, want);
	CHECK_STR(r.err, "");
	CHECK_EQ(r.status, 0);
}

/* Commands as arguments: ';' as a word, and inside one argument. */
static void args_mode(void)
{
	char *const argv[] = {
		"twheelctl", "--manual", "add", "--cookie", "3", "10ms", ";",
		"advance", "10ms", ";", "list", ";", "read", ";", "read", ";",
		"list", NULL
	};
	char *const argv1[] = {
		"twheelctl", "--tick=2ms", "--manual",
		"add --period 4ms 5; advance 0.011s;read;query", "", NULL
	};
	static struct run r;
	unsigned long long id;
	char want[1024];

	need_ctl();
	run_ctl(&r, "", argv, NULL);
	id = added_id(r.out);
	/* Arguments mode prints records only when asked: cancel sees it queued. */
	snprintf(want, sizeof(want),
		 "added id=%llu\n"
		 "now=10000000\n"
		 "id=%llu cookie=3 clock=monotonic state=queued deadline_ns=0"
		 " remaining_ns=0 period_ns=0 count=1\n"
		 "timers=1\n"
		 "expired id=%llu cookie=3 count=1 clock=monotonic time_ns=10000000\n"
		 "timers=0\n", id, id, id);
	CHECK_STR(r.out, want);
	CHECK_STR(r.err, "");
	CHECK_EQ(r.status, 0);

	/* One argument with ';' in it; "query" without its id fails. */
	run_ctl(&r, "", argv1, NULL);
	id = added_id(r.out);
	snprintf(want, sizeof(want),
		 "added id=%llu\n"
		 "now=11000000\n"
		 "expired id=%llu cookie=0 count=2 clock=monotonic time_ns=11000000\n",
		 id, id);
	CHECK_STR(r.out, want);
	CHECK_STR(r.err, "twheelctl: query: usage: query ID\n");
	CHECK_EQ(r.status, 1);
}

/* Failing commands: the kernel's errno, the session goes on, exit 1. */
static void args_errors(void)
{
	char *const argv[] = {
		"twheelctl", "--manual", "cancel", "0", ";", "add", "-5", ";",
		"add", "--clock", "process", "1", ";", "add", "--clock", "2",
		"1", ";", "frob", ";", "advance", "1ms", NULL
	};
	static struct run r;
	char want[1024];

	need_ctl();
	run_ctl(&r, "", argv, NULL);
	CHECK_STR(r.out, "now=1000000\n");
	snprintf(want, sizeof(want),
		 "twheelctl: cancel: %s\n"
		 "twheelctl: add: %s\n"
		 "twheelctl: add: bad clock 'process'\n"
		 "twheelctl: add: %s\n"
		 "twheelctl: frob: unknown command (try help)\n",
		 strerror(ENOENT), strerror(EINVAL), strerror(EINVAL));
	CHECK_STR(r.err, want);
	CHECK_EQ(r.status, 1);
}

/* --tick, --help, a bad option, a tick the kernel refuses. */
static void options(void)
{
	char *const tick[] = { "twheelctl", "--tick", "2ms", "info", NULL };
	char *const badtick[] = { "twheelctl", "--tick", "999ns", "info",
				  NULL };
	char *const help[] = { "twheelctl", "--help", NULL };
	char *const bad[] = { "twheelctl", "--bogus", "info", NULL };
	static struct run r;
	char want[512];

	need_ctl();
	run_ctl(&r, "", tick, NULL);
	CHECK_EQ(r.status, 0);
	CHECK(!strncmp(r.out, "version=2\n", 10));
	CHECK(strstr(r.out, "\ntick_ns=2000000\n"));
	CHECK(strstr(r.out, "\nconfig=none\n"));
	CHECK(strstr(r.out, "\ntimers=0\n"));
	CHECK(strstr(r.out, "\nmin_tick_ns=1000\n"));
	CHECK(strstr(r.out, "\nmax_batch=1024\n"));
	CHECK(strstr(r.out, "\nclocks=realtime,monotonic,boottime,realtime_alarm,"
			    "boottime_alarm,tai\n"));
	CHECK(strstr(r.out, "\nioctls=info,add,cancel,modify,query,list,submit,config,advance\n"));
	CHECK(strstr(r.out, "\nfdinfo.tick_ns=2000000\n"));
	CHECK_STR(r.err, "");

	run_ctl(&r, "", badtick, NULL);
	CHECK_EQ(r.status, 1);
	CHECK_STR(r.out, "");
	snprintf(want, sizeof(want),
		 "twheelctl: info: configuring the fd (--tick 999ns): %s\n",
		 strerror(EINVAL));
	CHECK_STR(r.err, want);

	run_ctl(&r, "", help, NULL);
	CHECK_EQ(r.status, 0);
	CHECK(!strncmp(r.out, "usage: twheelctl ", 17));
	CHECK(strstr(r.out, "stress N SPAN_MS"));

	run_ctl(&r, "", bad, NULL);
	CHECK_EQ(r.status, 2);
	CHECK_STR(r.out, "");
	CHECK_STR(r.err, "twheelctl: unknown option '--bogus' (try --help)\n");
}

/* wait on the real clock ends when the fd holds no timer. */
static void wait_real(void)
{
	char *const argv[] = { "twheelctl", "add", "--cookie", "7", "20ms",
			       ";", "wait", NULL };
	char *const manual[] = { "twheelctl", "--manual", "add", "1ms", ";",
				 "wait", NULL };
	static struct run r;
	unsigned long long id, eid;
	long long t;
	char rest[8];
	const char *l2;

	need_ctl();
	run_ctl(&r, "", argv, NULL);
	CHECK_EQ(r.status, 0);
	CHECK_STR(r.err, "");
	id = added_id(r.out);
	l2 = strchr(r.out, '\n');
	CHECK(l2);
	CHECK_EQ(sscanf(l2 + 1, "expired id=%llu cookie=7 count=1"
			" clock=monotonic time_ns=%lld%7s", &eid, &t, rest), 2);
	CHECK_EQ(eid, id);
	CHECK(t > 0);

	/* On a manual clock nothing can come: it says so and returns. */
	run_ctl(&r, "", manual, NULL);
	CHECK_EQ(r.status, 0);
	added_id(r.out);
	CHECK_STR(r.err, "twheelctl: wait: 1 timers left; the manual clock"
		  " moves only with advance\n");
}

static int hide_dev(void)
{
	if (unshare(CLONE_NEWNS))
		return -1;
	mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL);
	return mount("tmpfs", "/dev", "tmpfs", 0, NULL);
}

/* No /dev/twheel: the error, then the hint. */
static void no_device(void)
{
	char *const argv[] = { "twheelctl", "info", NULL };
	static struct run r;
	char want[512];

	need_ctl();
	run_ctl(&r, "", argv, hide_dev);
	CHECK_EQ(r.status, 1);
	CHECK_STR(r.out, "");
	snprintf(want, sizeof(want),
		 "twheelctl: info: /dev/twheel: %s\n" HINT "\n",
		 strerror(ENOENT));
	CHECK_STR(r.err, want);
}

/* A live session: a command at a time through pipes, answers read back. */
struct session {
	pid_t pid;
	int in;
	FILE *out;	/* its stdout and stderr, in the order written */
};

static void session_start(struct session *s, char *const argv[])
{
	int in[2], out[2];

	CHECK_EQ(pipe(in), 0);
	CHECK_EQ(pipe(out), 0);
	fflush(stdout);
	s->pid = fork();
	CHECK(s->pid >= 0);
	if (s->pid == 0) {
		dup2(in[0], STDIN_FILENO);
		dup2(out[1], STDOUT_FILENO);
		dup2(out[1], STDERR_FILENO);
		close(in[0]);
		close(in[1]);
		close(out[0]);
		close(out[1]);
		execv(CTL, argv);
		_exit(127);
	}
	close(in[0]);
	close(out[1]);
	s->in = in[1];
	s->out = fdopen(out[0], "r");
	CHECK(s->out);
}

static void session_send(struct session *s, const char *cmd)
{
	size_t len = strlen(cmd), k;

	/* The diagnostic: one "# > " line per line sent. */
	for (k = 0; k < len; k += strcspn(cmd + k, "\n") + 1)
		printf("# > %.*s\n", (int)strcspn(cmd + k, "\n"), cmd + k);
	CHECK_EQ(write(s->in, cmd, len), (ssize_t)len);
}

/* The next line it printed, without its newline (the case's alarm bounds). */
#define session_line(s, buf)	session_line_at(__FILE__, __LINE__, (s), (buf))
static void session_line_at(const char *file, int line, struct session *s,
			    char buf[512])
{
	if (!fgets(buf, 512, s->out))
		twt_fail(file, line, "twheelctl ended early");
	buf[strcspn(buf, "\n")] = '\0';
	printf("# < %s\n", buf);
}

#define EXPECT(s, fmt, ...) do {					\
	char _got[512], _want[512];					\
	snprintf(_want, sizeof(_want), fmt, ##__VA_ARGS__);		\
	session_line((s), _got);					\
	CHECK_STR(_got, _want);						\
} while (0)

#define ADDED(s, idp) do {						\
	char _got[512];							\
	session_line((s), _got);					\
	*(idp) = added_id(_got);					\
} while (0)

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void session(void)
{
	char *const argv[] = { "twheelctl", "--manual", NULL };
	unsigned long long p, rt, t;
	char got[3][512], want[3][512], line[512];
	char *g[3], *w[3];
	struct session s;
	int k, status;
	bool version = false, manual = false, empty = false;

	need_ctl();
	session_start(&s, argv);
	session_send(&s, "add --cookie 5 --period 5ms 5ms\n");
	ADDED(&s, &p);
	session_send(&s, "add --clock realtime --cookie 0x10 20ms\n");
	ADDED(&s, &rt);
	session_send(&s, "  add --abs --clock tai 7ms   # a comment\n");
	ADDED(&s, &t);
	CHECK(p != rt && rt != t && p != t);

	session_send(&s, "query ");	/* a line may come in pieces */
	twt_sleep_ms(20);
	snprintf(line, sizeof(line), "%llu\n", p);
	session_send(&s, line);
	EXPECT(&s, "id=%llu cookie=5 clock=monotonic state=pending"
	       " deadline_ns=5000000 remaining_ns=5000000 period_ns=5000000"
	       " count=0", p);

	/* list: internal order, so compared as a set. */
	session_send(&s, "list\n");
	snprintf(want[0], 512, "id=%llu cookie=5 clock=monotonic state=pending"
		 " deadline_ns=5000000 remaining_ns=5000000 period_ns=5000000"
		 " count=0", p);
	snprintf(want[1], 512, "id=%llu cookie=16 clock=realtime state=pending"
		 " deadline_ns=20000000 remaining_ns=20000000 period_ns=0"
		 " count=0", rt);
	snprintf(want[2], 512, "id=%llu cookie=0 clock=tai state=pending"
		 " deadline_ns=7000000 remaining_ns=7000000 period_ns=0"
		 " count=0", t);
	for (k = 0; k < 3; k++) {
		session_line(&s, got[k]);
		g[k] = got[k];
		w[k] = want[k];
	}
	qsort(g, 3, sizeof(*g), cmp_str);
	qsort(w, 3, sizeof(*w), cmp_str);
	for (k = 0; k < 3; k++)
		CHECK_STR(g[k], w[k]);
	EXPECT(&s, "timers=3");

	/* Expiries are printed as they come, right after the command. */
	session_send(&s, "advance 6ms\n");
	EXPECT(&s, "now=6000000");
	EXPECT(&s, "expired id=%llu cookie=5 count=1 clock=monotonic"
	       " time_ns=6000000", p);
	session_send(&s, "advance 1ms\n");
	EXPECT(&s, "now=7000000");
	EXPECT(&s, "expired id=%llu cookie=0 count=1 clock=tai"
	       " time_ns=7000000", t);
	snprintf(line, sizeof(line), "query %llu\n", p);
	session_send(&s, line);
	EXPECT(&s, "id=%llu cookie=5 clock=monotonic state=pending"
	       " deadline_ns=10000000 remaining_ns=3000000 period_ns=5000000"
	       " count=0", p);
	snprintf(line, sizeof(line), "modify --cookie 9 %llu 1ms\n", rt);
	session_send(&s, line);
	EXPECT(&s, "modified id=%llu was=pending", rt);
	snprintf(line, sizeof(line), "cancel %llu\n", t);
	session_send(&s, line);
	EXPECT(&s, "twheelctl: cancel: %s", strerror(ENOENT));
	session_send(&s, "advance 1ms; advance 4ms\n");
	EXPECT(&s, "now=8000000");
	EXPECT(&s, "expired id=%llu cookie=9 count=1 clock=realtime"
	       " time_ns=8000000", rt);
	EXPECT(&s, "now=12000000");
	EXPECT(&s, "expired id=%llu cookie=5 count=1 clock=monotonic"
	       " time_ns=12000000", p);
	snprintf(line, sizeof(line), "query %llu\n", rt);
	session_send(&s, line);
	EXPECT(&s, "twheelctl: query: %s", strerror(ENOENT));
	snprintf(line, sizeof(line), "cancel 0x%llx\n", p);
	session_send(&s, line);
	EXPECT(&s, "cancelled id=%llu was=pending", p);
	session_send(&s, "frobnicate 1 2\n");
	EXPECT(&s, "twheelctl: frobnicate: unknown command (try help)");
	session_send(&s, "\n# nothing\nread\ninfo\nquit\nadd 1ms\n");
	while (fgets(line, sizeof(line), s.out)) {
		printf("# < %s", line);
		version |= !strcmp(line, "version=2\n");
		manual |= !strcmp(line, "config=manual\n");
		empty |= !strcmp(line, "timers=0\n");
		CHECK(strncmp(line, "added", 5));	/* after quit */
	}
	CHECK(version && manual && empty);
	fclose(s.out);
	close(s.in);
	CHECK_EQ(waitpid(s.pid, &status, 0), s.pid);
	CHECK(WIFEXITED(status));
	CHECK_EQ(WEXITSTATUS(status), 1);	/* some commands failed */
}

TWT_MAIN("twheelctl",
	 TWT_CASE(script_manual),
	 TWT_CASE(args_mode),
	 TWT_CASE(args_errors),
	 TWT_CASE(options),
	 TWT_CASE(wait_real),
	 TWT_CASE(no_device),
	 TWT_CASE(session))
