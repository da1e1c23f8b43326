// SPDX-License-Identifier: GPL-2.0
/*
 * examples: runs the example and demo programs (userspace/examples/,
 * userspace/demo/) in the VM and checks their outcome: exit status 0
 * and the summary lines each prints. The programs check themselves in
 * detail (see their headers); this test makes sure they ran to the end
 * and that the figures that must be exact are.
 *
 *   uv_timers     twheel-uv-timers: 1000 timers from a libuv loop, each
 *                 one-shot once and never early, no cancelled one fired,
 *                 periodic counts within their bounds
 *   orders_manual twheel-orders manual: the payment-deadline rule on the
 *                 manual clock, exact
 *   orders_live   twheel-orders live with 20000 orders: each order paid
 *                 XOR expired, none early
 *
 *   sessions      twheel-sessions (make demo's comparison on a real
 *                 clock): 500 sessions, each of the three ways closes
 *                 every one exactly once, never early; the table makes no
 *                 system call per activity (fewer calls than timerfd's)
 *   readme        every complete C program of README.md (twheel-readme-N,
 *                 extracted and built by userspace/examples/examples.mk;
 *                 README_EXAMPLES of them): each exits 0 (each checks
 *                 what the page says it shows, and fails otherwise)
 *
 * The echo server has its own test, with its clients: echo.c.
 *
 * Every line a program printed is repeated as a "#" diagnostic.
 */
#include <fcntl.h>
#include <sys/wait.h>

#include "twtest.h"

#define OUT_SIZE	(64 * 1024)

/*
 * Run @argv (an absolute path first) with stdout and stderr into @out
 * (NUL-terminated, truncated to OUT_SIZE). Returns its wait status.
 */
static int run(char *const argv[], char *out)
{
	size_t len = 0;
	int p[2], status;
	pid_t pid;
	ssize_t n;

	if (access(argv[0], X_OK))
		twt_skip("program not built (see userspace/examples/examples.mk)");
	CHECK_OK(pipe(p));
	pid = fork();
	CHECK_OK(pid);
	if (pid == 0) {
		dup2(p[1], 1);
		dup2(p[1], 2);
		close(p[0]);
		close(p[1]);
		execv(argv[0], argv);
		_exit(127);
	}
	close(p[1]);
	while ((n = read(p[0], out + len, OUT_SIZE - 1 - len)) != 0) {
		if (n < 0) {
			CHECK(errno == EINTR);
			continue;
		}
		len += n;
		if (len == OUT_SIZE - 1) {
			char sink[4096];

			/* Keep reading, so that the program never blocks. */
			while ((n = read(p[0], sink, sizeof(sink))) > 0 ||
			       (n < 0 && errno == EINTR))
				;
			break;
		}
	}
	out[len] = '\0';
	close(p[0]);
	while (waitpid(pid, &status, 0) < 0)
		CHECK(errno == EINTR);

	/* Repeat its output as diagnostics ('\r' progress lines too). */
	for (char *line = out, *end; *line; line = end + 1) {
		end = line + strcspn(line, "\r\n");
		if (end > line)
			printf("# %.*s\n", (int)(end - line), line);
		if (!*end)
			break;
	}
	return status;
}

/*
 * The value of the last "KEY=VALUE" in @out (the summary comes last, after
 * any progress line), where KEY starts a line or follows a space, as the
 * text up to the next blank; NULL if there is none.
 */
static const char *field(const char *out, const char *key, char *val,
			 size_t size)
{
	size_t klen = strlen(key), n;
	const char *p = out, *last = NULL;

	while ((p = strstr(p, key))) {
		if ((p == out || p[-1] == '\n' || p[-1] == ' ') &&
		    p[klen] == '=')
			last = p + klen + 1;
		p += klen;
	}
	if (!last)
		return NULL;
	n = strcspn(last, " \t\r\n");
	if (n >= size)
		n = size - 1;
	memcpy(val, last, n);
	val[n] = '\0';
	return val;
}

/* CHECK_FIELD(out, "early", "0"): the field is there and has that value. */
#define CHECK_FIELD(out, key, want) do {				\
	char _v[64];							\
	if (!field((out), (key), _v, sizeof(_v)))			\
		twt_fail(__FILE__, __LINE__, "no %s= in the output", (key)); \
	if (strcmp(_v, (want)))						\
		twt_fail(__FILE__, __LINE__, "%s=%s, want %s", (key), _v, \
			 (want));					\
} while (0)

static long long field_ll(const char *out, const char *key)
{
	char v[64], *end;
	long long x;

	if (!field(out, key, v, sizeof(v)))
		twt_fail(__FILE__, __LINE__, "no %s= in the output", key);
	x = strtoll(v, &end, 10);
	if (end == v || *end)
		twt_fail(__FILE__, __LINE__, "%s=%s is not a number", key, v);
	return x;
}

static void check_exit0(int status)
{
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		twt_fail(__FILE__, __LINE__, "exit status %d (signal %d)",
			 WIFEXITED(status) ? WEXITSTATUS(status) : -1,
			 WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}

static void uv_timers(void)
{
	char *argv[] = { "/usr/bin/twheel-uv-timers", NULL };
	char *out = malloc(OUT_SIZE);
	int status;

	CHECK(out);
	status = run(argv, out);
	check_exit0(status);
	CHECK_FIELD(out, "early", "0");
	CHECK_FIELD(out, "twice", "0");
	CHECK_FIELD(out, "missing", "0");
	CHECK_FIELD(out, "fired_after_cancel", "0");
	CHECK_FIELD(out, "off", "0");
	CHECK_EQ(field_ll(out, "one_shot"), field_ll(out, "fired_once"));
	CHECK(field_ll(out, "one_shot") > 0);
	CHECK(field_ll(out, "periodic") > 0);
	CHECK(field_ll(out, "expiries") >= field_ll(out, "periodic"));
	CHECK(strstr(out, "\nresult: passed\n"));
	free(out);
}

static void orders_manual(void)
{
	char *argv[] = { "/usr/bin/twheel-orders", "manual", NULL };
	char *out = malloc(OUT_SIZE);
	int status;

	CHECK(out);
	status = run(argv, out);
	check_exit0(status);
	CHECK(strstr(out, "expired 0 (want 0)"));
	CHECK(strstr(out, "\nmanual: passed\n"));
	free(out);
}

static void orders_live(void)
{
	char *argv[] = { "/usr/bin/twheel-orders", "live", "--orders", "20000",
			 NULL };
	char *out = malloc(OUT_SIZE);
	int status;

	CHECK(out);
	status = run(argv, out);
	check_exit0(status);
	CHECK_FIELD(out, "scheduled", "20000");
	CHECK_FIELD(out, "early", "0");
	CHECK_FIELD(out, "lost", "0");
	CHECK_EQ(field_ll(out, "paid") + field_ll(out, "expired"), 20000);
	CHECK(field_ll(out, "paid") > 0 && field_ll(out, "expired") > 0);
	CHECK(strstr(out, "\norders: passed\n"));
	free(out);
}

static void sessions(void)
{
	char *argv[] = { "/usr/bin/twheel-sessions", "--sessions", "500",
			 "--timeout", "200", "--seconds", "1", NULL };
	char *out = malloc(OUT_SIZE);
	const char *ways[] = { "table", "timerfd", "heap" };
	long long tab, tfd;
	char want[64], *line;

	CHECK(out);
	check_exit0(run(argv, out));
	for (int i = 0; i < 3; i++) {
		snprintf(want, sizeof(want), "\n%-8s closed 500 of 500, early 0, twice 0\n",
			 ways[i]);
		CHECK(strstr(out, want));
	}
	/*
	 * The table's calls are its setup and its drains; timerfd's, one
	 * per activity besides (at least 400 sessions x 3 in 1 s).
	 */
	line = strstr(out, "system calls for the timers");
	CHECK(line);
	CHECK(sscanf(line + strlen("system calls for the timers"), "%lld %lld",
		     &tab, &tfd) == 2);
	CHECK(tfd > tab + 400);
	CHECK(strstr(out, "\nsessions: passed\n"));
	free(out);
}

static void readme(void)
{
	char path[64];
	char *argv[] = { path, NULL };
	char *out = malloc(OUT_SIZE);

	CHECK(out);
	/* README's examples are as many as the page had when built. */
	CHECK(README_EXAMPLES >= 1);
	for (int i = 1; i <= README_EXAMPLES; i++) {
		snprintf(path, sizeof(path), "/usr/bin/twheel-readme-%d", i);
		printf("# README.md's program %d\n", i);
		CHECK_OK(access(path, X_OK));
		check_exit0(run(argv, out));
	}
	free(out);
}

TWT_MAIN("examples",
	 TWT_CASE_T(readme, 120),
	 TWT_CASE_T(sessions, 180),
	 TWT_CASE_T(uv_timers, 180),
	 TWT_CASE_T(orders_manual, 120),
	 TWT_CASE_T(orders_live, 180))
