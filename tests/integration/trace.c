// SPDX-License-Identifier: GPL-2.0
/*
 * trace.c - twheel's trace events, read back through tracefs: every
 * event (timer_add, timer_modify, timer_cancel, timer_expire,
 * wheel_advance) appears once per action, in order, with the context's
 * trace id (fdinfo trace_id), the timer's id, cookie, clock, deadline and
 * lateness. On a manual clock, so every value is exact.
 */
#include "twtest.h"

#include <stdarg.h>
#include <sys/mount.h>

#define TRACEFS		"/sys/kernel/tracing"

static void trace_write(const char *file, const char *val)
{
	char path[128];

	snprintf(path, sizeof(path), TRACEFS "/%s", file);
	if (twt_sysfs_write(path, val))
		twt_fail(__FILE__, __LINE__, "write %s to %s: %s", val, path,
			 strerror(errno));
}

/* Empty the trace buffer: opening "trace" with O_TRUNC does that. */
static void trace_clear(void)
{
	int fd = open(TRACEFS "/trace", O_WRONLY | O_TRUNC);

	CHECK(fd >= 0);
	close(fd);
}

/* tracefs mounted, twheel's events there, the buffer empty and on. */
static void trace_start(void)
{
	if (access(TRACEFS "/trace", F_OK) &&
	    mount("nodev", TRACEFS, "tracefs", 0, NULL) &&
	    access(TRACEFS "/trace", F_OK))
		twt_skip("no tracefs in this kernel");
	if (access(TRACEFS "/events/twheel/enable", F_OK))
		twt_fail(__FILE__, __LINE__, "no events/twheel in tracefs");
	trace_write("tracing_on", "0");
	trace_write("events/enable", "0");
	trace_clear();
	trace_write("buffer_size_kb", "1024");
	trace_write("events/twheel/enable", "1");
	trace_write("tracing_on", "1");
}

struct tev {
	char name[32];
	char args[256];
};

/* Stop tracing; the twheel events of context @ctx, in order. */
static size_t trace_stop(long long ctx, struct tev *ev, size_t cap)
{
	char line[512], key[32];
	size_t n = 0;
	FILE *f;

	trace_write("tracing_on", "0");
	trace_write("events/twheel/enable", "0");
	f = fopen(TRACEFS "/trace", "r");
	CHECK(f);
	snprintf(key, sizeof(key), "ctx=%lld ", ctx);
	while (fgets(line, sizeof(line), f)) {
		char *colon, *name, *args;

		if (line[0] == '#' || !strstr(line, key))
			continue;
		/* "  task-pid [cpu] flags  stamp: name: args" */
		colon = strstr(line, ": ");
		CHECK(colon);
		name = colon + 2;
		args = strstr(name, ": ");
		CHECK(args);
		*args = '\0';
		args += 2;
		args[strcspn(args, "\n")] = '\0';
		CHECK(n < cap);
		snprintf(ev[n].name, sizeof(ev[n].name), "%s", name);
		snprintf(ev[n].args, sizeof(ev[n].args), "%s", args);
		printf("# < %s: %s\n", ev[n].name, ev[n].args);
		n++;
	}
	fclose(f);
	trace_clear();
	return n;
}

#define CHECK_EVENT(ev, want_name, want_args) do {			\
	if (strcmp((ev).name, want_name) || strcmp((ev).args, want_args)) \
		twt_fail(__FILE__, __LINE__,				\
			 "event \"%s: %s\", want \"%s: %s\"",		\
			 (ev).name, (ev).args, want_name, want_args);	\
} while (0)

static long long trace_id(int fd)
{
	long long id = -1;

	CHECK_OK(twt_fdinfo(fd, "trace_id", &id));
	CHECK(id > 0);
	return id;
}

static char *fmt(char *buf, size_t len, const char *f, ...)
	__attribute__((format(printf, 3, 4)));
static char *fmt(char *buf, size_t len, const char *f, ...)
{
	va_list ap;

	va_start(ap, f);
	vsnprintf(buf, len, f, ap);
	va_end(ap);
	return buf;
}

/*
 * One of each event, in the order the actions happened, with exact
 * values: times are the manual clock's (tick 1 ms).
 */
static void events_in_order(void)
{
	int fd = twt_open_manual(O_NONBLOCK, TWT_MS);
	long long ctx = trace_id(fd);
	struct twheel_event rec[4];
	struct tev ev[32];
	uint64_t a, b, c;
	char want[256];
	size_t n;

	trace_start();
	/* a: one-shot at 1.5 ms (tick 2 ms); b: periodic 2 ms from 2 ms. */
	a = twt_add_abs(fd, 0xa1, 1500 * TWT_US, CLOCK_MONOTONIC);
	b = twt_addp(fd, 0xb2, 2 * TWT_MS, 2 * TWT_MS, TWHEEL_ABSTIME,
		     CLOCK_MONOTONIC);
	/* a moves to 5 ms, cookie 0xa3 */
	CHECK_EQ(twt_modify_raw(fd, a, 0xa3, 5 * TWT_MS, 0,
				TWHEEL_ABSTIME | TWHEEL_SET_COOKIE, NULL), 0);
	/* At 5 ms: b (due at 2 ms, 3 ms late), then a (exactly on time). */
	CHECK_EQ(twt_advance(fd, 5 * TWT_MS), 5 * TWT_MS);
	CHECK_EQ(twt_drain(fd, rec, 4), 2);
	CHECK_EQ(rec[0].id, b);
	CHECK_EQ(rec[0].count, 2);	/* 2 ms and 4 ms */
	CHECK_EQ(rec[1].id, a);
	/* c is due at once; cancelled while its record is queued. */
	c = twt_add_abs(fd, 0xc4, 5 * TWT_MS, CLOCK_MONOTONIC);
	CHECK_EQ(twt_cancel(fd, c), TWHEEL_STATE_QUEUED);
	/* b, re-armed for 6 ms when read, is cancelled pending. */
	CHECK_EQ(twt_cancel(fd, b), TWHEEL_STATE_PENDING);
	n = trace_stop(ctx, ev, 32);

	CHECK_EQ(n, 10);
	CHECK_EVENT(ev[0], "timer_add",
		    fmt(want, sizeof(want), "ctx=%lld id=%llu cookie=161 clock=MONOTONIC deadline=1500000 period=0 was=new",
			ctx, (unsigned long long)a));
	CHECK_EVENT(ev[1], "timer_add",
		    fmt(want, sizeof(want), "ctx=%lld id=%llu cookie=178 clock=MONOTONIC deadline=2000000 period=2000000 was=new",
			ctx, (unsigned long long)b));
	CHECK_EVENT(ev[2], "timer_modify",
		    fmt(want, sizeof(want), "ctx=%lld id=%llu cookie=163 clock=MONOTONIC deadline=5000000 period=0 was=pending",
			ctx, (unsigned long long)a));
	/* The wheel from tick 0 to tick 5: two records queued. */
	CHECK_EVENT(ev[3], "timer_expire",
		    fmt(want, sizeof(want), "ctx=%lld id=%llu cookie=178 clock=MONOTONIC deadline=2000000 now=5000000 lateness=3000000",
			ctx, (unsigned long long)b));
	CHECK_EVENT(ev[4], "timer_expire",
		    fmt(want, sizeof(want), "ctx=%lld id=%llu cookie=163 clock=MONOTONIC deadline=5000000 now=5000000 lateness=0",
			ctx, (unsigned long long)a));
	CHECK_EVENT(ev[5], "wheel_advance",
		    fmt(want, sizeof(want), "ctx=%lld clock=MONOTONIC from=0 to=5 now=5000000 queued=2",
			ctx));
	CHECK_EVENT(ev[6], "timer_add",
		    fmt(want, sizeof(want), "ctx=%lld id=%llu cookie=196 clock=MONOTONIC deadline=5000000 period=0 was=new",
			ctx, (unsigned long long)c));
	/* Due by the present: queued at once, as the add returns. */
	CHECK_EVENT(ev[7], "timer_expire",
		    fmt(want, sizeof(want), "ctx=%lld id=%llu cookie=196 clock=MONOTONIC deadline=5000000 now=5000000 lateness=0",
			ctx, (unsigned long long)c));
	CHECK_EVENT(ev[8], "timer_cancel",
		    fmt(want, sizeof(want), "ctx=%lld id=%llu cookie=196 clock=MONOTONIC was=queued",
			ctx, (unsigned long long)c));
	CHECK_EVENT(ev[9], "timer_cancel",
		    fmt(want, sizeof(want), "ctx=%lld id=%llu cookie=178 clock=MONOTONIC was=pending",
			ctx, (unsigned long long)b));
	close(fd);
}

/*
 * On a real clock: the expiry's deadline, time and lateness agree with
 * the record read, and it is never early.
 */
static void real_clock_lateness(void)
{
	int fd = twt_open(O_NONBLOCK);
	long long ctx = trace_id(fd);
	struct twheel_event rec;
	long long id, cookie, dl, now, late;
	int64_t t0;
	struct tev ev[16];
	char clk[16];
	size_t n, i, expires = 0, added = 0;

	trace_start();
	t0 = twt_now(CLOCK_BOOTTIME);
	twt_add(fd, 77, 2 * TWT_MS, 0, CLOCK_BOOTTIME);
	twt_read_n(fd, &rec, 1, 10000);
	n = trace_stop(ctx, ev, 16);
	for (i = 0; i < n; i++) {
		/* The add comes first (a wheel_advance may come before it). */
		if (!strcmp(ev[i].name, "timer_add")) {
			CHECK_EQ(expires, 0);
			added++;
		}
		if (strcmp(ev[i].name, "timer_expire"))
			continue;
		expires++;
		CHECK_EQ(sscanf(ev[i].args,
				"ctx=%*d id=%lld cookie=%lld clock=%15s deadline=%lld now=%lld lateness=%lld",
				&id, &cookie, clk, &dl, &now, &late), 6);
		CHECK_EQ(id, rec.id);
		CHECK_EQ(cookie, 77);
		CHECK(!strcmp(clk, "BOOTTIME"));
		/* The tick of t0 + 2 ms, never before it; never early. */
		CHECK(dl >= t0 + 2 * TWT_MS);
		CHECK(late >= 0);
		CHECK_EQ(now - dl, late);
		/* The record's time is the event's "now" (no time namespace). */
		CHECK_EQ(rec.time_ns, now);
	}
	CHECK_EQ(added, 1);
	CHECK_EQ(expires, 1);
	close(fd);
}

/*
 * Only this context's events carry its trace id; with twheel's events
 * disabled, nothing is traced.
 */
static void cancel_pending_and_disabled(void)
{
	int fd = twt_open_manual(O_NONBLOCK, TWT_MS);
	long long ctx = trace_id(fd);
	struct tev ev[8];
	char want[256];
	uint64_t a, b;

	a = twt_add_abs(fd, 1, 10 * TWT_MS, CLOCK_MONOTONIC);
	trace_start();
	b = twt_add_abs(fd, 2, 20 * TWT_MS, CLOCK_MONOTONIC);
	CHECK_EQ(twt_cancel(fd, a), TWHEEL_STATE_PENDING);
	CHECK_EQ(trace_stop(ctx, ev, 8), 2);
	CHECK_EVENT(ev[0], "timer_add",
		    fmt(want, sizeof(want), "ctx=%lld id=%llu cookie=2 clock=MONOTONIC deadline=20000000 period=0 was=new",
			ctx, (unsigned long long)b));
	CHECK_EVENT(ev[1], "timer_cancel",
		    fmt(want, sizeof(want), "ctx=%lld id=%llu cookie=1 clock=MONOTONIC was=pending",
			ctx, (unsigned long long)a));
	/* Tracing on, twheel's events off: the cancel of b leaves none. */
	trace_start();
	trace_write("events/twheel/enable", "0");
	CHECK_EQ(twt_cancel(fd, b), TWHEEL_STATE_PENDING);
	CHECK_EQ(trace_stop(ctx, ev, 8), 0);
	close(fd);
}

TWT_MAIN("trace",
	 TWT_CASE(events_in_order),
	 TWT_CASE(real_clock_lateness),
	 TWT_CASE(cancel_pending_and_disabled))
