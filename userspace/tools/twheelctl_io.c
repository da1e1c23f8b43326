// SPDX-License-Identifier: GPL-2.0
/*
 * twheelctl_io.c - twheelctl's messages, the parsers of its arguments
 * (times, numbers, clocks, options), the session's fd and the printers of
 * records and statuses.
 */
#include "twheelctl.h"

/* ---- messages ---------------------------------------------------------- */

int __attribute__((format(printf, 2, 3)))
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
int fail_errno(const char *cmd)
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
int parse_time(const char *s, int64_t *ns)
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
int parse_duration(const char *s, int64_t *ns)
{
	return parse_time(s, ns) < 0 || *ns < 0 ? -1 : 0;
}

/* parse_u64("0x10", &v): decimal or 0x-hexadecimal, nothing else. */
int parse_u64(const char *s, uint64_t *v)
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

const struct clock_name clock_names[] = {
	{ "realtime", CLOCK_REALTIME },
	{ "monotonic", CLOCK_MONOTONIC },
	{ "boottime", CLOCK_BOOTTIME },
	{ "tai", CLOCK_TAI },
	{ "realtime_alarm", CLOCK_REALTIME_ALARM },
	{ "boottime_alarm", CLOCK_BOOTTIME_ALARM },
};

/* A clock by name, or any clockid number (the kernel judges it). */
int parse_clock(const char *s, uint32_t *clock)
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
const char *clock_name(uint32_t clock, char buf[16])
{
	size_t i;

	for (i = 0; i < NR_CLOCK_NAMES; i++)
		if ((uint32_t)clock_names[i].id == clock)
			return clock_names[i].name;
	snprintf(buf, 16, "%u", clock);
	return buf;
}

const char *state_name(unsigned int state)
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
bool is_opt(int argc, char **argv, int *i, const char *name,
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
void open_failed(const char *cmd)
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
int open_configured(const char *cmd, bool manual, bool nonblock)
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
int session_fd(const char *cmd)
{
	if (sess.fd < 0)
		sess.fd = open_configured(cmd, sess.manual, true);
	return sess.fd;
}

/* ---- output ------------------------------------------------------------ */

void print_event(const struct twheel_event *e)
{
	char cb[16];

	printf("expired id=%" PRIu64 " cookie=%" PRIu64 " count=%" PRIu64
	       " clock=%s time_ns=%" PRId64 "\n", (uint64_t)e->id,
	       (uint64_t)e->cookie, (uint64_t)e->count,
	       clock_name(e->clock, cb), (int64_t)e->time_ns);
}

void print_status(const struct twheel_status *st)
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
long drain(const char *cmd)
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
