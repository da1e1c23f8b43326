/* SPDX-License-Identifier: GPL-2.0 */
/*
 * twtest.h - a small harness for twheel's integration tests.
 *
 * Each test program lists its cases with TWT_MAIN(). Every case runs in
 * its own forked child (so a crash or a leaked fd stays in that case) under
 * an alarm, and prints one line: "ok <prog>/<case>" or
 * "not ok <prog>/<case>"; diagnostics are lines starting with "#".
 * The program exits with the number of failed cases (0: all passed).
 */
#ifndef TWTEST_H
#define TWTEST_H

#include <errno.h>
#include <stdarg.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

struct twt_case {
	const char *name;
	void (*fn)(void);
	unsigned int timeout_s;
};

#define TWT_CASE(fn)		{ #fn, fn, 60 }
#define TWT_CASE_T(fn, secs)	{ #fn, fn, secs }

static void __attribute__((noreturn, format(printf, 3, 4)))
twt_fail(const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	fprintf(stdout, "# %s:%d: ", file, line);
	va_start(ap, fmt);
	vfprintf(stdout, fmt, ap);
	va_end(ap);
	fputc('\n', stdout);
	fflush(stdout);
	_exit(1);
}

/* CHECK(cond): fail the case unless cond holds. */
#define CHECK(cond) do {						\
	if (!(cond))							\
		twt_fail(__FILE__, __LINE__, "CHECK(%s) failed (errno %d: %s)", \
			 #cond, errno, strerror(errno));		\
} while (0)

/* CHECK_EQ(a, b): integers, both values printed on failure. */
#define CHECK_EQ(a, b) do {						\
	long long _a = (long long)(a), _b = (long long)(b);		\
	if (_a != _b)							\
		twt_fail(__FILE__, __LINE__, "%s == %s: %lld != %lld",	\
			 #a, #b, _a, _b);				\
} while (0)

/* CHECK_ERR(call, err): call returns -1 and sets errno to err. */
#define CHECK_ERR(call, err) do {					\
	long long _r;							\
	errno = 0;							\
	_r = (long long)(call);						\
	if (_r != -1 || errno != (err))					\
		twt_fail(__FILE__, __LINE__,				\
			 "%s: want -1/%s, got %lld/%s", #call,		\
			 strerror(err), _r, strerror(errno));		\
} while (0)

/* CHECK_OK(call): call returns >= 0. */
#define CHECK_OK(call) do {						\
	long long _r;							\
	errno = 0;							\
	_r = (long long)(call);						\
	if (_r < 0)							\
		twt_fail(__FILE__, __LINE__, "%s: %lld (%s)", #call,	\
			 _r, strerror(errno));				\
} while (0)

static inline int twt_run(const char *prog, const struct twt_case *cases,
			  size_t n)
{
	int failed = 0;
	size_t i;

	setvbuf(stdout, NULL, _IOLBF, 0);
	for (i = 0; i < n; i++) {
		int status = 0;
		pid_t pid;

		fflush(stdout);
		pid = fork();
		if (pid < 0) {
			perror("fork");
			return 127;
		}
		if (pid == 0) {
			alarm(cases[i].timeout_s);
			cases[i].fn();
			fflush(stdout);
			_exit(0);
		}
		while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
			;
		if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
			printf("ok %s/%s\n", prog, cases[i].name);
			continue;
		}
		failed++;
		if (WIFSIGNALED(status))
			printf("# killed by signal %d%s\n", WTERMSIG(status),
			       WTERMSIG(status) == SIGALRM ? " (time-out)" : "");
		printf("not ok %s/%s\n", prog, cases[i].name);
	}
	return failed;
}

#define TWT_MAIN(prog, ...)						\
int main(void)								\
{									\
	static const struct twt_case cases[] = { __VA_ARGS__ };		\
	return twt_run(prog, cases, sizeof(cases) / sizeof(cases[0]));	\
}

#endif /* TWTEST_H */
