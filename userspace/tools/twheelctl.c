// SPDX-License-Identifier: GPL-2.0
/*
 * twheelctl - a session on /dev/twheel, for people and for scripts.
 *
 * One fd is opened (on first need) and configured from the options
 * (--tick, --manual); commands given as arguments are run in order, else
 * commands are read from stdin, one per line, while expiries are printed
 * as they arrive. Every timer operation of the ABI has its command (add,
 * modify, cancel, query, list, advance, info, read, wait); "stress" and
 * "after" are the older demonstration commands. See --help and
 * twheelctl(1).
 *
 * A single source file on purpose: the test VM's build links it with
 * userspace/lib/libtwheel.c and nothing else.
 */
#define _GNU_SOURCE		/* ppoll() */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <time.h>
#include <unistd.h>

#include "libtwheel.h"

#define PROG		"twheelctl"
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define EV_BATCH	64
#define LIST_BATCH	64
#define LINE_MAX_LEN	4096

/* A command's outcome: done, failed (message printed), or end the session. */
enum { CMD_OK = 0, CMD_FAIL = -1, CMD_QUIT = 1 };

static struct {
	int fd;			/* the session's fd, -1 until first needed */
	int64_t tick_ns;	/* --tick, 0: the module's default */
	bool manual;		/* --manual */
	bool prompt;		/* stdin and stdout are a terminal */
} sess = { .fd = -1 };

static const char usage_text[] =
"usage: twheelctl [OPTIONS] [COMMAND [ARGS...] [; COMMAND [ARGS...]]...]\n"
"\n"
"A session on one /dev/twheel fd. With commands as arguments, they run in\n"
"order (separate them with ';', quoted or escaped from the shell) and the\n"
"program exits: status 1 if any failed. Without, commands are read from\n"
"stdin, one per line ('#' starts a comment, ';' separates commands too),\n"
"and every expiry is printed as it arrives, until 'quit' or end of input.\n"
"\n"
"Options:\n"
"  --tick T       the fd's tick (TWHEEL_IOC_CONFIG), 1us to 1s\n"
"  --manual       the fd runs on a manual clock that starts at 0 and moves\n"
"                 only with 'advance' (TWHEEL_CONFIG_MANUAL)\n"
"  -h, --help     this text\n"
"  --version      the ABI and module version twheelctl was built for\n"
"\n"
"Times (T, DELAY): an integer or decimal number with a unit suffix ns, us,\n"
"ms, s, m or h; a plain number is milliseconds (\"250\", \"1.5s\", \"20us\").\n"
"Ids and cookies: decimal, or hexadecimal with 0x.\n"
"\n"
"Commands:\n"
"  add [--abs] [--clock C] [--period T] [--cookie N] DELAY\n"
"        schedule a timer DELAY from now (--abs: at time DELAY of its clock)\n"
"        on clock C: monotonic (default), boottime, realtime, tai, or a\n"
"        clockid number; --period: periodic; prints \"added id=ID\"\n"
"  modify [--abs] [--period T] [--cookie N] ID DELAY\n"
"        re-arm timer ID as if added now (without --period it becomes\n"
"        one-shot; without --cookie it keeps its cookie);\n"
"        prints \"modified id=ID was=pending|queued\"\n"
"  cancel ID\n"
"        prints \"cancelled id=ID was=pending|queued\"\n"
"  query ID\n"
"        prints \"id= cookie= clock= state= deadline_ns= remaining_ns=\n"
"        period_ns= count=\" on one line\n"
"  list  one such line per timer of the fd, then \"timers=N\"\n"
"  advance T\n"
"        move the manual clock forward by T; prints \"now=NS\"\n"
"  info  the handshake (TWHEEL_IOC_INFO) and the fd's fdinfo, key=value\n"
"  read  print the expiry records queued now\n"
"  wait [T]\n"
"        print expiries as they arrive, for T or until the fd holds no\n"
"        timer\n"
"  sleep T\n"
"        do nothing for T\n"
"  help  this text\n"
"  quit  end the session\n"
"  after T [T...]\n"
"        on a new fd, one timer per T; print each as it fires\n"
"  stress N SPAN_MS [CANCEL_PERCENT]\n"
"        on a new fd, N timers 100 ms + [0, SPAN_MS) ms ahead, cancel\n"
"        CANCEL_PERCENT of them, wait, check that every other one fires\n"
"        exactly once and never early; exit status 1 if not\n"
"\n"
"Each expiry: \"expired id=ID cookie=N count=N clock=NAME time_ns=NS\".\n"
"An error: \"twheelctl: COMMAND: reason\"; the session goes on.\n";

/* ---- messages ---------------------------------------------------------- */

static int __attribute__((format(printf, 2, 3)))
fail(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fprintf(stderr, PROG ": %s: ", cmd);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return CMD_FAIL;
}

/* "twheelctl: COMMAND: strerror(errno)" */
static int fail_errno(const char *cmd)
{
	return fail(cmd, "%s", strerror(errno));
}

/* ---- parsing ------------------------------------------------------------ */

static const struct {
	const char *suffix;
	int64_t ns;
} time_units[] = {
	{ "ns", 1 },
	{ "us", 1000 },
	{ "ms", 1000000 },
	{ "s", 1000000000 },
	{ "m", 60LL * 1000000000 },
	{ "h", 3600LL * 1000000000 },
	{ "", 1000000 },		/* a plain number: milliseconds */
};

/*
 * parse_time("1.5ms", &ns): [-]DIGITS[.DIGITS][UNIT] into nanoseconds.
 * Returns 0, or -1 when it is not a time, is not a whole number of
 * nanoseconds, or does not fit in an int64_t.
 */
static int parse_time(const char *s, int64_t *ns)
{
	unsigned __int128 ip = 0, frac = 0, scale = 1, v;
	bool neg = false, digits = false;
	size_t i;

	if (*s == '-') {
		neg = true;
		s++;
	}
	for (; *s >= '0' && *s <= '9'; s++, digits = true) {
		ip = ip * 10 + (unsigned int)(*s - '0');
		if (ip > INT64_MAX)
			return -1;
	}
	if (*s == '.') {
		for (s++; *s >= '0' && *s <= '9'; s++, digits = true) {
			if (scale >= 1000000000000000000ULL)
				return -1;
			frac = frac * 10 + (unsigned int)(*s - '0');
			scale *= 10;
		}
	}
	if (!digits)
		return -1;
	for (i = 0; i < ARRAY_SIZE(time_units); i++)
		if (!strcmp(s, time_units[i].suffix))
			break;
	if (i == ARRAY_SIZE(time_units))
		return -1;
	if (frac * time_units[i].ns % scale)
		return -1;
	v = ip * time_units[i].ns + frac * time_units[i].ns / scale;
	if (v > (unsigned __int128)INT64_MAX)
		return -1;
	*ns = neg ? -(int64_t)v : (int64_t)v;
	return 0;
}

/* A time that must not be negative. */
static int parse_duration(const char *s, int64_t *ns)
{
	return parse_time(s, ns) < 0 || *ns < 0 ? -1 : 0;
}

/* parse_u64("0x10", &v): decimal or 0x-hexadecimal, nothing else. */
static int parse_u64(const char *s, uint64_t *v)
{
	int base = 10;
	char *end;

	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		s += 2;
	}
	/* strtoull() would take blanks, a sign, or a second "0x". */
	if (!((*s >= '0' && *s <= '9') ||
	      (base == 16 && strchr("abcdefABCDEF", *s) && *s)))
		return -1;
	errno = 0;
	*v = strtoull(s, &end, base);
	if (base == 16 && *s == '0' && (s[1] == 'x' || s[1] == 'X'))
		return -1;
	return errno || *end ? -1 : 0;
}

static const struct {
	const char *name;
	clockid_t id;
} clock_names[] = {
	{ "realtime", CLOCK_REALTIME },
	{ "monotonic", CLOCK_MONOTONIC },
	{ "boottime", CLOCK_BOOTTIME },
	{ "tai", CLOCK_TAI },
	{ "realtime_alarm", CLOCK_REALTIME_ALARM },
	{ "boottime_alarm", CLOCK_BOOTTIME_ALARM },
};

#define NR_CLOCK_NAMES	ARRAY_SIZE(clock_names)

/* A clock by name, or any clockid number (the kernel judges it). */
static int parse_clock(const char *s, uint32_t *clock)
{
	uint64_t v;
	size_t i;

	for (i = 0; i < NR_CLOCK_NAMES; i++) {
		if (!strcmp(s, clock_names[i].name)) {
			*clock = (uint32_t)clock_names[i].id;
			return 0;
		}
	}
	if (parse_u64(s, &v) < 0 || v > UINT32_MAX)
		return -1;
	*clock = (uint32_t)v;
	return 0;
}

/* The name of a clockid, or its number in @buf. */
static const char *clock_name(uint32_t clock, char buf[16])
{
	size_t i;

	for (i = 0; i < NR_CLOCK_NAMES; i++)
		if ((uint32_t)clock_names[i].id == clock)
			return clock_names[i].name;
	snprintf(buf, 16, "%u", clock);
	return buf;
}

static const char *state_name(unsigned int state)
{
	switch (state) {
	case TWHEEL_STATE_PENDING:
		return "pending";
	case TWHEEL_STATE_QUEUED:
		return "queued";
	default:
		return "unknown";
	}
}

/*
 * is_opt(argc, argv, &i, "--period", &v): whether argv[i] is that option,
 * as "--period V" (i moves on to V) or "--period=V"; *val is V, or NULL
 * when it is missing.
 */
static bool is_opt(int argc, char **argv, int *i, const char *name,
		   const char **val)
{
	size_t len = strlen(name);
	const char *a = argv[*i];

	if (strncmp(a, name, len) || (a[len] && a[len] != '='))
		return false;
	if (a[len] == '=')
		*val = a + len + 1;
	else
		*val = *i + 1 < argc ? argv[++*i] : NULL;
	return true;
}

/* ---- the session's fd ------------------------------------------------- */

/*
 * Why the device cannot be opened, with what to do (libtwheel's
 * twheel_open_hint()) the first time.
 */
static void open_failed(const char *cmd)
{
	static bool hinted;
	int err = errno;
	const char *hint = twheel_open_hint(err);

	fail(cmd, "/dev/twheel: %s", strerror(err));
	if (hinted || !hint)
		return;
	hinted = true;
	fprintf(stderr, PROG ": %s\n", hint);
}

/*
 * A new fd with the session's configuration; @nonblock for O_NONBLOCK.
 * Prints why on failure.
 */
static int open_configured(const char *cmd, bool manual, bool nonblock)
{
	struct twheel_config cfg;
	int fd;

	fd = twheel_open(O_CLOEXEC | (nonblock ? O_NONBLOCK : 0));
	if (fd < 0) {
		open_failed(cmd);
		return -1;
	}
	if (!sess.tick_ns && !manual)
		return fd;
	memset(&cfg, 0, sizeof(cfg));
	cfg.tick_ns = sess.tick_ns ? (uint64_t)sess.tick_ns :
		      TWHEEL_DEFAULT_TICK_NS;
	cfg.flags = manual ? TWHEEL_CONFIG_MANUAL : 0;
	if (twheel_config(fd, &cfg) < 0) {
		fail(cmd, "configuring the fd (--tick %" PRId64 "ns%s): %s",
		     (int64_t)cfg.tick_ns, manual ? ", --manual" : "",
		     strerror(errno));
		close(fd);
		return -1;
	}
	return fd;
}

/* The session's fd, opened and configured on first use; -1 on failure. */
static int session_fd(const char *cmd)
{
	if (sess.fd < 0)
		sess.fd = open_configured(cmd, sess.manual, true);
	return sess.fd;
}

/* ---- output ------------------------------------------------------------ */

static void print_event(const struct twheel_event *e)
{
	char cb[16];

	printf("expired id=%" PRIu64 " cookie=%" PRIu64 " count=%" PRIu64
	       " clock=%s time_ns=%" PRId64 "\n", (uint64_t)e->id,
	       (uint64_t)e->cookie, (uint64_t)e->count,
	       clock_name(e->clock, cb), (int64_t)e->time_ns);
}

static void print_status(const struct twheel_status *st)
{
	char cb[16];

	printf("id=%" PRIu64 " cookie=%" PRIu64 " clock=%s state=%s"
	       " deadline_ns=%" PRId64 " remaining_ns=%" PRId64
	       " period_ns=%" PRIu64 " count=%" PRIu64 "\n",
	       (uint64_t)st->id, (uint64_t)st->cookie,
	       clock_name(st->clock, cb), state_name(st->state),
	       (int64_t)st->deadline_ns, (int64_t)st->remaining_ns,
	       (uint64_t)st->period_ns, (uint64_t)st->count);
}

/*
 * Print every record queued on the session's fd now (it is O_NONBLOCK).
 * Returns how many, or -1 after printing the error.
 */
static long drain(const char *cmd)
{
	struct twheel_event ev[EV_BATCH];
	long total = 0;
	ssize_t n, i;

	if (sess.fd < 0)
		return 0;
	for (;;) {
		n = twheel_read(sess.fd, ev, EV_BATCH);
		if (n < 0) {
			if (errno == EAGAIN)
				break;
			fail_errno(cmd);
			return -1;
		}
		for (i = 0; i < n; i++)
			print_event(&ev[i]);
		total += n;
		/* A short read emptied the queue. */
		if (n < EV_BATCH)
			break;
	}
	return total;
}

/* ---- commands ----------------------------------------------------------- */

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

static int run_command(int argc, char **argv)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(commands); i++)
		if (!strcmp(argv[0], commands[i].name))
			return commands[i].fn(argc, argv);
	return fail(argv[0], "unknown command (try help)");
}

/* ---- words and sessions ----------------------------------------------- */

/* Words of commands: split at blanks, ";" is a word of its own. */
struct words {
	char **w;
	int n, cap;
};

static const char separator[] = ";";

static int words_push(struct words *ws, char *w)
{
	char **nw;

	if (ws->n == ws->cap) {
		ws->cap = ws->cap ? 2 * ws->cap : 16;
		nw = realloc(ws->w, (size_t)ws->cap * sizeof(*nw));
		if (!nw)
			return -1;
		ws->w = nw;
	}
	ws->w[ws->n++] = w;
	return 0;
}

/* Split @s in place (it is modified) into @ws. */
static int words_split(struct words *ws, char *s)
{
	while (*s) {
		if (*s == ' ' || *s == '\t' || *s == '\r' || *s == '\n') {
			*s++ = '\0';
			continue;
		}
		if (*s == ';') {
			*s++ = '\0';
			if (words_push(ws, (char *)separator) < 0)
				return -1;
			continue;
		}
		if (words_push(ws, s) < 0)
			return -1;
		s += strcspn(s, " \t\r\n;");
	}
	return 0;
}

/*
 * Run the commands of @ws in order; *failed is set if one failed.
 * Returns CMD_QUIT after quit. In a stdin session, the records queued
 * after each command are printed.
 */
static int run_words(struct words *ws, bool follow, bool *failed)
{
	int i = 0, start, r;

	while (i < ws->n) {
		start = i;
		while (i < ws->n && ws->w[i] != separator)
			i++;
		if (i > start) {
			r = run_command(i - start, ws->w + start);
			if (r == CMD_FAIL)
				*failed = true;
			if (follow && drain("read") < 0)
				*failed = true;
			if (r == CMD_QUIT)
				return CMD_QUIT;
		}
		i++;	/* the separator */
	}
	return CMD_OK;
}

static void prompt(void)
{
	if (sess.prompt) {
		fputs("twheel> ", stdout);
		fflush(stdout);
	}
}

/* One line of a stdin session; '#' starts a comment. */
static int run_line(char *line, bool *failed)
{
	struct words ws = { 0 };
	int r;

	line[strcspn(line, "#")] = '\0';
	if (words_split(&ws, line) < 0) {
		free(ws.w);
		*failed = true;
		return fail_errno("session");
	}
	r = run_words(&ws, true, failed);
	free(ws.w);
	return r;
}

/*
 * Commands from stdin, one per line, until quit or end of input, printing
 * each expiry as it arrives: poll(2) waits on stdin and the fd together.
 */
static bool run_stdin(void)
{
	static char buf[LINE_MAX_LEN + 1];
	struct pollfd p[2];
	bool failed = false, eof = false, toolong = false;
	size_t len = 0;
	char *nl;
	ssize_t r;

	prompt();
	for (;;) {
		while ((nl = memchr(buf, '\n', len))) {
			size_t used = (size_t)(nl - buf) + 1;

			*nl = '\0';
			/* The end of a line too long is dropped too. */
			if (!toolong && run_line(buf, &failed) == CMD_QUIT)
				return failed;
			toolong = false;
			memmove(buf, buf + used, len - used);
			len -= used;
			prompt();
		}
		if (eof) {
			if (len && !toolong) {
				buf[len] = '\0';
				run_line(buf, &failed);
			}
			return failed;
		}
		if (len == LINE_MAX_LEN) {
			fail("session", "line longer than %d bytes ignored",
			     LINE_MAX_LEN);
			failed = true;
			toolong = true;
			len = 0;
		}
		p[0].fd = STDIN_FILENO;
		p[0].events = POLLIN;
		p[1].fd = sess.fd;	/* poll(2) skips a negative fd */
		p[1].events = POLLIN;
		p[0].revents = p[1].revents = 0;
		if (poll(p, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			fail_errno("poll");
			return true;
		}
		if (p[1].revents & POLLIN) {
			if (sess.prompt)
				putchar('\n');
			if (drain("read") < 0)
				failed = true;
			prompt();
		}
		if (!(p[0].revents & (POLLIN | POLLHUP | POLLERR)))
			continue;
		r = read(STDIN_FILENO, buf + len, LINE_MAX_LEN - len);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			fail_errno("stdin");
			failed = true;
			eof = true;
		} else if (r == 0) {
			eof = true;
		} else {
			len += (size_t)r;
		}
	}
}

/* Commands from the arguments: all of them, in order. */
static bool run_args(int argc, char **argv)
{
	struct words ws = { 0 };
	bool failed = false;
	int i;

	for (i = 0; i < argc; i++) {
		if (words_split(&ws, argv[i]) < 0) {
			fail_errno("arguments");
			free(ws.w);
			return true;
		}
	}
	run_words(&ws, false, &failed);
	free(ws.w);
	return failed;
}

static void __attribute__((noreturn)) usage_error(const char *fmt,
						   const char *arg)
{
	fprintf(stderr, PROG ": ");
	fprintf(stderr, fmt, arg);
	fprintf(stderr, " (try --help)\n");
	exit(2);
}

int main(int argc, char **argv)
{
	const char *v;
	bool failed;
	int i;

	setvbuf(stdout, NULL, _IOLBF, 0);
	for (i = 1; i < argc && argv[i][0] == '-'; i++) {
		if (!strcmp(argv[i], "--")) {
			i++;
			break;
		}
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			fputs(usage_text, stdout);
			return 0;
		}
		if (!strcmp(argv[i], "--version")) {
			printf(PROG " for twheel %s (ABI version %d)\n",
			       TWHEEL_VERSION, TWHEEL_ABI_VERSION);
			return 0;
		}
		if (!strcmp(argv[i], "--manual")) {
			sess.manual = true;
		} else if (is_opt(argc, argv, &i, "--tick", &v)) {
			if (!v)
				usage_error("option '%s' needs a value",
					    argv[i]);
			if (parse_duration(v, &sess.tick_ns) < 0 ||
			    !sess.tick_ns)
				usage_error("bad tick '%s'", v);
		} else {
			usage_error("unknown option '%s'", argv[i]);
		}
	}
	if (i < argc) {
		failed = run_args(argc - i, argv + i);
	} else {
		sess.prompt = isatty(STDIN_FILENO) && isatty(STDOUT_FILENO);
		failed = run_stdin();
	}
	if (sess.fd >= 0)
		close(sess.fd);
	return failed ? 1 : 0;
}
