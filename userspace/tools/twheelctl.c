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
 * Here: the sessions (commands from the arguments or from stdin, with
 * records printed as they arrive) and main(); the commands are in
 * twheelctl_cmd.c, the parsers, the fd and the printers in
 * twheelctl_io.c (their shared declarations: twheelctl.h). Linked with
 * libtwheel.
 */
#include "twheelctl.h"

struct ctl_session sess = { .fd = -1 };

const char usage_text[] =
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
