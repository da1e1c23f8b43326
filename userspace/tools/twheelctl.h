/* SPDX-License-Identifier: GPL-2.0 */
/*
 * twheelctl.h - what twheelctl's files share: the session, the messages,
 * the parsers and printers (twheelctl_io.c), the commands
 * (twheelctl_cmd.c), for the sessions of twheelctl.c.
 */
#ifndef TWHEELCTL_H
#define TWHEELCTL_H

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

/* The session: its fd and the options it was opened with. */
struct ctl_session {
	int fd;			/* the session's fd, -1 until first needed */
	int64_t tick_ns;	/* --tick, 0: the module's default */
	bool manual;		/* --manual */
	bool prompt;		/* stdin and stdout are a terminal */
};

extern struct ctl_session sess;

/* The clocks by name (twheelctl_io.c). */
struct clock_name {
	const char *name;
	clockid_t id;
};

#define NR_CLOCK_NAMES	6
extern const struct clock_name clock_names[NR_CLOCK_NAMES];
extern const char usage_text[];

/* twheelctl_io.c: messages (to stderr; they return CMD_FAIL). */
int __attribute__((format(printf, 2, 3)))
fail(const char *cmd, const char *fmt, ...);
int fail_errno(const char *cmd);

/* twheelctl_io.c: parsing; 0, or -1 for a bad word. */
int parse_time(const char *s, int64_t *ns);
int parse_duration(const char *s, int64_t *ns);
int parse_u64(const char *s, uint64_t *v);
int parse_clock(const char *s, uint32_t *clock);
bool is_opt(int argc, char **argv, int *i, const char *name,
	    const char **val);

/* twheelctl_io.c: names, the session's fd, output. */
const char *clock_name(uint32_t clock, char buf[16]);
const char *state_name(unsigned int state);
int open_configured(const char *cmd, bool manual, bool nonblock);
int session_fd(const char *cmd);
void print_event(const struct twheel_event *e);
void print_status(const struct twheel_status *st);
long drain(const char *cmd);

/* twheelctl_cmd.c: run one command (its name argv[0]). */
int run_command(int argc, char **argv);

#endif /* TWHEELCTL_H */
