// SPDX-License-Identifier: GPL-2.0
/*
 * twheelctl_cmd.c - twheelctl's commands: one function per command of
 * twheelctl(1), and run_command(), which finds a command by its name.
 */
#include "twheelctl.h"

static int bad_usage(const char *cmd, const char *usage)
{
	return fail(cmd, "usage: %s", usage);
}

/* The options of "add" and "modify". */
struct timer_opts {
	uint32_t flags;		/* TWHEEL_ABSTIME, TWHEEL_SET_COOKIE */
	uint32_t clock;
	uint64_t cookie;
	uint64_t period_ns;
};

/*
 * Parse the options of "add" (@with_clock) or "modify" from argv[1] on,
 * into @o; returns the index of the first argument after them, or -1
 * after printing why.
 */
static int timer_opts(int argc, char **argv, bool with_clock,
		      const char *usage, struct timer_opts *o)
{
	const char *v;
	int64_t t;
	int i;

	for (i = 1; i < argc && !strncmp(argv[i], "--", 2); i++) {
		if (!strcmp(argv[i], "--abs")) {
			o->flags |= TWHEEL_ABSTIME;
		} else if (with_clock &&
			   is_opt(argc, argv, &i, "--clock", &v)) {
			if (!v || parse_clock(v, &o->clock) < 0)
				return fail(argv[0], "bad clock '%s'",
					    v ? v : "");
		} else if (is_opt(argc, argv, &i, "--period", &v)) {
			if (!v || parse_duration(v, &t) < 0)
				return fail(argv[0], "bad period '%s'",
					    v ? v : "");
			o->period_ns = (uint64_t)t;
		} else if (is_opt(argc, argv, &i, "--cookie", &v)) {
			if (!v || parse_u64(v, &o->cookie) < 0)
				return fail(argv[0], "bad cookie '%s'",
					    v ? v : "");
			o->flags |= TWHEEL_SET_COOKIE;
		} else {
			return bad_usage(argv[0], usage);
		}
	}
	return i;
}

static int cmd_add(int argc, char **argv)
{
	static const char usage[] =
		"add [--abs] [--clock C] [--period T] [--cookie N] DELAY";
	struct timer_opts o = { .clock = CLOCK_MONOTONIC };
	struct twheel_add a;
	int64_t t;
	int i, fd;

	i = timer_opts(argc, argv, true, usage, &o);
	if (i < 0)
		return CMD_FAIL;
	if (i != argc - 1)
		return bad_usage(argv[0], usage);
	if (parse_time(argv[i], &t) < 0)
		return fail(argv[0], "bad time '%s'", argv[i]);
	memset(&a, 0, sizeof(a));
	a.cookie = o.cookie;
	a.expires_ns = t;
	a.period_ns = o.period_ns;
	a.flags = o.flags & TWHEEL_ABSTIME;
	a.clock = o.clock;
	fd = session_fd(argv[0]);
	if (fd < 0)
		return CMD_FAIL;
	if (twheel_add(fd, &a) < 0)
		return fail_errno(argv[0]);
	printf("added id=%" PRIu64 "\n", (uint64_t)a.id);
	return CMD_OK;
}

static int cmd_modify(int argc, char **argv)
{
	static const char usage[] =
		"modify [--abs] [--period T] [--cookie N] ID DELAY";
	struct timer_opts o = { .clock = 0 };
	struct twheel_modify m;
	uint64_t id;
	int64_t t;
	int i, fd, was;

	i = timer_opts(argc, argv, false, usage, &o);
	if (i < 0)
		return CMD_FAIL;
	if (i != argc - 2)
		return bad_usage(argv[0], usage);
	if (parse_u64(argv[i], &id) < 0)
		return fail(argv[0], "bad id '%s'", argv[i]);
	if (parse_time(argv[i + 1], &t) < 0)
		return fail(argv[0], "bad time '%s'", argv[i + 1]);
	memset(&m, 0, sizeof(m));
	m.id = id;
	m.cookie = o.cookie;
	m.expires_ns = t;
	m.period_ns = o.period_ns;
	m.flags = o.flags;
	fd = session_fd(argv[0]);
	if (fd < 0)
		return CMD_FAIL;
	was = twheel_modify(fd, &m);
	if (was < 0)
		return fail_errno(argv[0]);
	printf("modified id=%" PRIu64 " was=%s\n", id,
	       state_name((unsigned int)was));
	return CMD_OK;
}

/* "cancel ID" and "query ID": one id argument. */
static int one_id(int argc, char **argv, uint64_t *id)
{
	if (argc != 2)
		return fail(argv[0], "usage: %s ID", argv[0]);
	if (parse_u64(argv[1], id) < 0)
		return fail(argv[0], "bad id '%s'", argv[1]);
	return CMD_OK;
}

static int cmd_cancel(int argc, char **argv)
{
	uint64_t id;
	int fd, was;

	if (one_id(argc, argv, &id) < 0)
		return CMD_FAIL;
	fd = session_fd(argv[0]);
	if (fd < 0)
		return CMD_FAIL;
	was = twheel_cancel(fd, id);
	if (was < 0)
		return fail_errno(argv[0]);
	printf("cancelled id=%" PRIu64 " was=%s\n", id,
	       state_name((unsigned int)was));
	return CMD_OK;
}

static int cmd_query(int argc, char **argv)
{
	struct twheel_status st;
	uint64_t id;
	int fd;

	if (one_id(argc, argv, &id) < 0)
		return CMD_FAIL;
	fd = session_fd(argv[0]);
	if (fd < 0)
		return CMD_FAIL;
	if (twheel_query(fd, id, &st) < 0)
		return fail_errno(argv[0]);
	print_status(&st);
	return CMD_OK;
}

static int cmd_list(int argc, char **argv)
{
	struct twheel_status st[LIST_BATCH];
	uint64_t cursor = 0, total = 0;
	ssize_t n, i;
	int fd;

	if (argc != 1)
		return bad_usage(argv[0], "list");
	fd = session_fd(argv[0]);
	if (fd < 0)
		return CMD_FAIL;
	do {
		n = twheel_list(fd, &cursor, st, LIST_BATCH);
		if (n < 0)
			return fail_errno(argv[0]);
		for (i = 0; i < n; i++)
			print_status(&st[i]);
		total += (uint64_t)n;
	} while (cursor);
	printf("timers=%" PRIu64 "\n", total);
	return CMD_OK;
}

static int cmd_advance(int argc, char **argv)
{
	int64_t t, now;
	int fd;

	if (argc != 2)
		return bad_usage(argv[0], "advance T");
	if (parse_duration(argv[1], &t) < 0)
		return fail(argv[0], "bad time '%s'", argv[1]);
	fd = session_fd(argv[0]);
	if (fd < 0)
		return CMD_FAIL;
	if (twheel_advance(fd, (uint64_t)t, &now) < 0)
		return fail_errno(argv[0]);
	printf("now=%" PRId64 "\n", now);
	return CMD_OK;
}

/* "name1,name2,..." for the bits of @mask named in @names, hex for the rest. */
static void print_bits(const char *key, uint64_t mask, const char *const *names,
		       unsigned int nr_names)
{
	const char *sep = "";
	unsigned int b;

	printf("%s=", key);
	for (b = 0; b < nr_names && b < 64; b++) {
		if (!(mask & (1ULL << b)) || !names[b])
			continue;
		printf("%s%s", sep, names[b]);
		sep = ",";
		mask &= ~(1ULL << b);
	}
	if (mask)
		printf("%s%#" PRIx64, sep, mask);
	putchar('\n');
}

/* /proc/self/fdinfo/FD's twheel lines, as "fdinfo.KEY=VALUE". */
static void print_fdinfo(int fd)
{
	static const char *const generic[] = { "pos", "flags", "mnt_id", "ino" };
	char path[64], line[256], *colon, *val;
	size_t i;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	f = fopen(path, "r");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		colon = strchr(line, ':');
		if (!colon)
			continue;
		*colon = '\0';
		for (i = 0; i < ARRAY_SIZE(generic); i++)
			if (!strcmp(line, generic[i]))
				break;
		if (i < ARRAY_SIZE(generic))
			continue;
		for (val = colon + 1; *val == ' ' || *val == '\t'; val++)
			;
		printf("fdinfo.%s=%s\n", line, val);
	}
	fclose(f);
}

static int cmd_info(int argc, char **argv)
{
	static const char *const features[] = {
		"periodic", "timens", "manual_clock", "relative_wall", "uring",
		"missed", "fd_max_timers", "table", "alarm", "clock_set",
		"ring",
	};
	static const char *const ioctls[] = {
		"info", "add", "cancel", "modify", "query", "list", "submit",
		"config", "advance",
	};
	const char *clocks[64] = { NULL };
	struct twheel_info info;
	char modver[64] = "";
	FILE *f;
	size_t i;
	int fd;

	if (argc != 1)
		return bad_usage(argv[0], "info");
	fd = session_fd(argv[0]);
	if (fd < 0)
		return CMD_FAIL;
	if (twheel_info(fd, &info) < 0)
		return fail_errno(argv[0]);
	for (i = 0; i < NR_CLOCK_NAMES; i++)
		clocks[clock_names[i].id] = clock_names[i].name;
	printf("version=%u\n", info.version);
	f = fopen("/sys/module/twheel/version", "r");
	if (f) {
		if (fgets(modver, sizeof(modver), f)) {
			modver[strcspn(modver, "\n")] = '\0';
			printf("module_version=%s\n", modver);
		}
		fclose(f);
	}
	printf("tick_ns=%" PRIu64 "\n", (uint64_t)info.tick_ns);
	printf("config=%s\n", info.config_flags & TWHEEL_CONFIG_MANUAL ?
	       "manual" : "none");
	printf("timers=%" PRIu64 "\n", (uint64_t)info.timers);
	printf("queued=%" PRIu64 "\n", (uint64_t)info.queued);
	printf("max_timers=%" PRIu64 "\n", (uint64_t)info.max_timers);
	printf("min_tick_ns=%" PRIu64 "\n", (uint64_t)info.min_tick_ns);
	printf("max_tick_ns=%" PRIu64 "\n", (uint64_t)info.max_tick_ns);
	printf("max_batch=%u\n", info.max_batch);
	printf("event_size=%u\n", info.event_size);
	printf("op_size=%u\n", info.op_size);
	printf("status_size=%u\n", info.status_size);
	print_bits("features", info.features, features,
		   ARRAY_SIZE(features));
	print_bits("ioctls", info.ioctls, ioctls,
		   ARRAY_SIZE(ioctls));
	print_bits("clocks", info.clocks, clocks, 64);
	print_fdinfo(fd);
	return CMD_OK;
}

static int cmd_read(int argc, char **argv)
{
	if (argc != 1)
		return bad_usage(argv[0], "read");
	if (session_fd(argv[0]) < 0)
		return CMD_FAIL;
	return drain(argv[0]) < 0 ? CMD_FAIL : CMD_OK;
}

static int64_t mono_now(void)
{
	return twheel_now(CLOCK_MONOTONIC);
}

static struct timespec ns_to_ts(int64_t ns)
{
	struct timespec ts = {
		.tv_sec = ns / TWHEEL_SEC,
		.tv_nsec = ns % TWHEEL_SEC,
	};

	return ts;
}

static int cmd_wait(int argc, char **argv)
{
	struct pollfd p = { .events = POLLIN };
	struct twheel_info info;
	struct timespec ts;
	int64_t t = -1, end = 0, left;

	if (argc > 2)
		return bad_usage(argv[0], "wait [T]");
	if (argc == 2) {
		if (parse_duration(argv[1], &t) < 0)
			return fail(argv[0], "bad time '%s'", argv[1]);
		end = mono_now() + t;
	}
	p.fd = session_fd(argv[0]);
	if (p.fd < 0)
		return CMD_FAIL;
	for (;;) {
		if (drain(argv[0]) < 0)
			return CMD_FAIL;
		if (t < 0) {
			if (twheel_info(p.fd, &info) < 0)
				return fail_errno(argv[0]);
			if (!info.timers)
				return CMD_OK;
			if (info.config_flags & TWHEEL_CONFIG_MANUAL) {
				fflush(stdout);
				fprintf(stderr, PROG ": %s: %" PRIu64
					" timers left; the manual clock moves only with advance\n",
					argv[0], (uint64_t)info.timers);
				return CMD_OK;
			}
		} else {
			left = end - mono_now();
			if (left <= 0)
				return CMD_OK;
			ts = ns_to_ts(left);
		}
		if (ppoll(&p, 1, t < 0 ? NULL : &ts, NULL) < 0 &&
		    errno != EINTR)
			return fail_errno(argv[0]);
	}
}

static void sleep_ns(int64_t ns)
{
	struct timespec ts = ns_to_ts(ns);

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

static int cmd_sleep(int argc, char **argv)
{
	int64_t t;

	if (argc != 2)
		return bad_usage(argv[0], "sleep T");
	if (parse_duration(argv[1], &t) < 0)
		return fail(argv[0], "bad time '%s'", argv[1]);
	sleep_ns(t);
	return CMD_OK;
}

static int cmd_help(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fputs(usage_text, stdout);
	return CMD_OK;
}

static int cmd_quit(int argc, char **argv)
{
	if (argc != 1)
		return bad_usage(argv[0], argv[0]);
	return CMD_QUIT;
}

/* A new fd with a real clock, for "after" and "stress". */
static int open_real(const char *cmd, bool nonblock)
{
	if (sess.manual) {
		errno = EINVAL;
		fail(cmd, "needs a real clock (not --manual)");
		return -1;
	}
	return open_configured(cmd, false, nonblock);
}

static int cmd_after(int argc, char **argv)
{
	int64_t start, *deadline;
	struct twheel_event ev;
	int i, fd, left = argc - 1, ret = CMD_OK;

	if (argc < 2)
		return bad_usage(argv[0], "after T [T...]");
	deadline = calloc((size_t)argc, sizeof(*deadline));
	if (!deadline)
		return fail_errno(argv[0]);
	for (i = 1; i < argc; i++) {
		if (parse_duration(argv[i], &deadline[i]) < 0) {
			ret = fail(argv[0], "bad time '%s'", argv[i]);
			goto out;
		}
	}
	fd = open_real(argv[0], false);
	if (fd < 0) {
		ret = CMD_FAIL;
		goto out;
	}
	start = mono_now();
	for (i = 1; i < argc; i++) {
		struct twheel_add a;

		memset(&a, 0, sizeof(a));
		deadline[i] += start;
		a.cookie = (uint64_t)i;
		a.expires_ns = deadline[i];
		a.flags = TWHEEL_ABSTIME;
		a.clock = CLOCK_MONOTONIC;
		if (twheel_add(fd, &a) < 0) {
			ret = fail_errno(argv[0]);
			goto out_close;
		}
		printf("timer %" PRIu64 ": in %g ms\n", (uint64_t)a.id,
		       (deadline[i] - start) / 1e6);
	}
	while (left) {
		if (twheel_read(fd, &ev, 1) != 1) {
			ret = fail_errno(argv[0]);
			goto out_close;
		}
		printf("timer %" PRIu64 " fired at +%.3f ms (%.3f ms after its deadline)\n",
		       (uint64_t)ev.id, (ev.time_ns - start) / 1e6,
		       (ev.time_ns - deadline[ev.cookie]) / 1e6);
		left--;
	}
out_close:
	close(fd);
out:
	free(deadline);
	return ret;
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
}

/* Small, fast, seeded: reproducible runs. */
static uint64_t rng(void)
{
	static uint64_t state = 0x9e3779b97f4a7c15ULL;

	state ^= state << 13;
	state ^= state >> 7;
	state ^= state << 17;
	return state;
}

/* A positive decimal argument of "stress". */
static int parse_count(const char *s, long min, long *v)
{
	uint64_t u;

	if (parse_u64(s, &u) < 0 || u > LONG_MAX || (long)u < min)
		return -1;
	*v = (long)u;
	return 0;
}

static int stress(const char *cmd, long n, long span_ms, long pct)
{
	int64_t *deadline, *late, start, t_add, t_cancel, next_report, batch = 0;
	uint64_t *ids, cancelled = 0, fired = 0, early = 0, dup = 0;
	struct epoll_event ee = { .events = EPOLLIN };
	struct twheel_event *evs;
	unsigned char *seen;
	int fd, ep = -1, bad = 0;
	long i;

	fd = open_real(cmd, true);
	if (fd < 0)
		return CMD_FAIL;
	deadline = calloc((size_t)n, sizeof(*deadline));
	late = calloc((size_t)n, sizeof(*late));
	ids = calloc((size_t)n, sizeof(*ids));
	seen = calloc((size_t)n, 1);
	evs = calloc(256, sizeof(*evs));
	if (!deadline || !late || !ids || !seen || !evs) {
		bad = fail_errno(cmd);
		goto out;
	}
	ep = epoll_create1(EPOLL_CLOEXEC);
	if (ep < 0 || epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ee) < 0) {
		bad = fail_errno(cmd);
		goto out;
	}

	/*
	 * Deadlines lie 100 ms + [0, SPAN_MS) after the clock read at the
	 * start of each batch of 1024 adds: never already due when added
	 * (a batch takes far less than 100 ms), and exact, so "never early"
	 * is checked against the true deadline. One clock read per batch
	 * keeps the add loop's timing about adds.
	 */
	start = mono_now();
	for (i = 0; i < n; i++) {
		struct twheel_add a;

		if (!(i % 1024))
			batch = mono_now();
		deadline[i] = batch + 100 * TWHEEL_MSEC +
			(int64_t)(rng() % (uint64_t)(span_ms * TWHEEL_MSEC));
		memset(&a, 0, sizeof(a));
		a.cookie = (uint64_t)i;
		a.expires_ns = deadline[i];
		a.flags = TWHEEL_ABSTIME;
		a.clock = CLOCK_MONOTONIC;
		if (twheel_add(fd, &a) < 0) {
			bad = fail_errno(cmd);
			goto out;
		}
		ids[i] = a.id;
	}
	t_add = mono_now();
	for (i = 0; i < n; i++) {
		if ((long)(rng() % 100) >= pct)
			continue;
		if (twheel_cancel(fd, ids[i]) < 0) {
			bad = fail_errno(cmd);
			goto out;
		}
		seen[i] = 2;
		cancelled++;
	}
	t_cancel = mono_now();
	printf("scheduled %ld timers over %ld ms: %.0f ns per add; cancelled %" PRIu64
	       ": %.0f ns per cancel\n", n, span_ms,
	       (double)(t_add - start) / n, cancelled,
	       cancelled ? (double)(t_cancel - t_add) / cancelled : 0.0);

	next_report = start + 500 * TWHEEL_MSEC;
	while (fired + cancelled < (uint64_t)n) {
		int64_t now;
		ssize_t r, k;

		if (epoll_wait(ep, &ee, 1, 2000 + (int)span_ms) < 0 &&
		    errno != EINTR) {
			bad = fail_errno(cmd);
			goto out;
		}
		while ((r = twheel_read(fd, evs, 256)) > 0) {
			for (k = 0; k < r; k++) {
				uint64_t c = evs[k].cookie;

				if (c >= (uint64_t)n || seen[c]) {
					dup++;
					continue;
				}
				seen[c] = 1;
				if (evs[k].time_ns < deadline[c])
					early++;
				late[fired++] = evs[k].time_ns - deadline[c];
			}
		}
		if (r < 0 && errno != EAGAIN) {
			bad = fail_errno(cmd);
			goto out;
		}
		now = mono_now();
		if (now >= next_report) {
			printf("  t=%5.1f s  fired %8" PRIu64 " of %8" PRIu64 "\n",
			       (now - start) / 1e9, fired, n - cancelled);
			while (next_report <= now)
				next_report += 500 * TWHEEL_MSEC;
		}
		if (now > start + (span_ms + 30000) * TWHEEL_MSEC) {
			printf("gave up waiting: %" PRIu64 " timers never fired\n",
			       n - cancelled - fired);
			bad = CMD_FAIL;
			break;
		}
	}
	qsort(late, fired, sizeof(*late), cmp_i64);
	printf("fired %" PRIu64 ", cancelled %" PRIu64 ", early %" PRIu64
	       ", duplicated %" PRIu64 "\n", fired, cancelled, early, dup);
	if (fired)
		printf("lateness: p50 %.3f ms, p99 %.3f ms, max %.3f ms\n",
		       late[fired / 2] / 1e6, late[fired * 99 / 100] / 1e6,
		       late[fired - 1] / 1e6);
	if (early || dup || fired + cancelled != (uint64_t)n)
		bad = CMD_FAIL;
	printf("%s\n", bad ? "FAILED" :
	       "every timer ended exactly once, none early");
out:
	free(deadline);
	free(late);
	free(ids);
	free(seen);
	free(evs);
	if (ep >= 0)
		close(ep);
	close(fd);
	return bad ? CMD_FAIL : CMD_OK;
}

static int cmd_stress(int argc, char **argv)
{
	long n, span_ms, pct = 0;

	if (argc < 3 || argc > 4 || parse_count(argv[1], 1, &n) < 0 ||
	    parse_count(argv[2], 1, &span_ms) < 0 ||
	    (argc == 4 && (parse_count(argv[3], 0, &pct) < 0 || pct > 100)))
		return bad_usage(argv[0], "stress N SPAN_MS [CANCEL_PERCENT]");
	if (span_ms > INT_MAX - 2000)
		return fail(argv[0], "SPAN_MS too large");
	return stress(argv[0], n, span_ms, pct);
}

static const struct command {
	const char *name;
	int (*fn)(int argc, char **argv);
} commands[] = {
	{ "add", cmd_add },
	{ "modify", cmd_modify },
	{ "cancel", cmd_cancel },
	{ "query", cmd_query },
	{ "list", cmd_list },
	{ "advance", cmd_advance },
	{ "info", cmd_info },
	{ "read", cmd_read },
	{ "wait", cmd_wait },
	{ "sleep", cmd_sleep },
	{ "help", cmd_help },
	{ "quit", cmd_quit },
	{ "exit", cmd_quit },
	{ "after", cmd_after },
	{ "stress", cmd_stress },
};

int run_command(int argc, char **argv)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(commands); i++)
		if (!strcmp(argv[0], commands[i].name))
			return commands[i].fn(argc, argv);
	return fail(argv[0], "unknown command (try help)");
}
