// SPDX-License-Identifier: GPL-2.0
/*
 * trace.c - twheel's trace events, read back through tracefs: every
 * event (twheel_timer_add, twheel_timer_modify, twheel_timer_cancel,
 * twheel_timer_expire, twheel_wheel_advance, all under events/twheel/)
 * appears once per action, in order, with the context's trace id (fdinfo
 * trace_id), the timer's id, cookie, clock, deadline and lateness. On a
 * manual clock, so every value is exact. No symbol the events give the
 * module (__tracepoint_<event>, ...) is also one of the kernel's. And the
 * work of one hold of the fd's lock is bounded, by counts: every
 * twheel_wheel_advance moves at most 256 entries, while the queued
 * records they report add up to every timer that expired. On a real
 * clock, the fd's hrtimer follows the first timer in line: after a
 * MODIFY moves it, no advance comes at its old deadline (a store into
 * the shared table, the control, brings one).
 *
 * The events were named timer_add, ..., wheel_advance before (without
 * "moved="): __tracepoint_timer_cancel then existed twice, the kernel's
 * and the module's.
 */
#include "table.h"

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
	/* No task names: see twt_trace_no_comm(). */
	CHECK_OK(twt_trace_no_comm(TRACEFS));
	trace_clear();
	trace_write("buffer_size_kb", "1024");
	trace_write("events/twheel/enable", "1");
	trace_write("tracing_on", "1");
}

/* The same with only one of twheel's events enabled. */
static void trace_start_one(const char *event)
{
	char path[128];

	trace_start();
	trace_write("tracing_on", "0");
	trace_write("events/twheel/enable", "0");
	snprintf(path, sizeof(path), "events/twheel/%s/enable", event);
	trace_write(path, "1");
	trace_clear();
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
	CHECK_EVENT(ev[0], "twheel_timer_add",
		    fmt(want, sizeof(want), "ctx=%lld id=%llu cookie=161 clock=MONOTONIC deadline=1500000 period=0 was=new",
			ctx, (unsigned long long)a));
	CHECK_EVENT(ev[1], "twheel_timer_add",
		    fmt(want, sizeof(want), "ctx=%lld id=%llu cookie=178 clock=MONOTONIC deadline=2000000 period=2000000 was=new",
			ctx, (unsigned long long)b));
	CHECK_EVENT(ev[2], "twheel_timer_modify",
		    fmt(want, sizeof(want), "ctx=%lld id=%llu cookie=163 clock=MONOTONIC deadline=5000000 period=0 was=pending",
			ctx, (unsigned long long)a));
	/* The wheel from tick 0 to tick 5: two records queued. */
	CHECK_EVENT(ev[3], "twheel_timer_expire",
		    fmt(want, sizeof(want), "ctx=%lld id=%llu cookie=178 clock=MONOTONIC deadline=2000000 now=5000000 lateness=3000000",
			ctx, (unsigned long long)b));
	CHECK_EVENT(ev[4], "twheel_timer_expire",
		    fmt(want, sizeof(want), "ctx=%lld id=%llu cookie=163 clock=MONOTONIC deadline=5000000 now=5000000 lateness=0",
			ctx, (unsigned long long)a));
	CHECK_EVENT(ev[5], "twheel_wheel_advance",
		    fmt(want, sizeof(want), "ctx=%lld clock=MONOTONIC from=0 to=5 now=5000000 queued=2 moved=2",
			ctx));
	CHECK_EVENT(ev[6], "twheel_timer_add",
		    fmt(want, sizeof(want), "ctx=%lld id=%llu cookie=196 clock=MONOTONIC deadline=5000000 period=0 was=new",
			ctx, (unsigned long long)c));
	/* Due by the present: queued at once, as the add returns. */
	CHECK_EVENT(ev[7], "twheel_timer_expire",
		    fmt(want, sizeof(want), "ctx=%lld id=%llu cookie=196 clock=MONOTONIC deadline=5000000 now=5000000 lateness=0",
			ctx, (unsigned long long)c));
	CHECK_EVENT(ev[8], "twheel_timer_cancel",
		    fmt(want, sizeof(want), "ctx=%lld id=%llu cookie=196 clock=MONOTONIC was=queued",
			ctx, (unsigned long long)c));
	CHECK_EVENT(ev[9], "twheel_timer_cancel",
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
		/* The add comes first (an advance may come before it). */
		if (!strcmp(ev[i].name, "twheel_timer_add")) {
			CHECK_EQ(expires, 0);
			added++;
		}
		if (strcmp(ev[i].name, "twheel_timer_expire"))
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
	CHECK_EVENT(ev[0], "twheel_timer_add",
		    fmt(want, sizeof(want), "ctx=%lld id=%llu cookie=2 clock=MONOTONIC deadline=20000000 period=0 was=new",
			ctx, (unsigned long long)b));
	CHECK_EVENT(ev[1], "twheel_timer_cancel",
		    fmt(want, sizeof(want), "ctx=%lld id=%llu cookie=1 clock=MONOTONIC was=pending",
			ctx, (unsigned long long)a));
	/* Tracing on, twheel's events off: the cancel of b leaves none. */
	trace_start();
	trace_write("events/twheel/enable", "0");
	CHECK_EQ(twt_cancel(fd, b), TWHEEL_STATE_PENDING);
	CHECK_EQ(trace_stop(ctx, ev, 8), 0);
	close(fd);
}

/* Symbols of the module's events that must not be the kernel's too. */
static const char *const trace_sym_prefix[] = {
	"__tracepoint_", "__traceiter_", "__SCK__tp_func_", "__SCT__tp_func_",
	"__probestub_", "__bpf_trace_", "trace_event_raw_event_",
	"perf_trace_", "trace_raw_output_", "print_fmt_",
	"trace_event_fields_", "event_",
};

static int trace_sym_of_event(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(trace_sym_prefix) / sizeof(trace_sym_prefix[0]);
	     i++)
		if (!strncmp(name, trace_sym_prefix[i],
			     strlen(trace_sym_prefix[i])))
			return 1;
	return 0;
}

#define MAX_SYMS	256

/*
 * /proc/kallsyms: every "__tracepoint_*" (and the other per-event
 * symbols) of the module, lines ending in "[twheel]", names no symbol
 * of the kernel itself (a line without a module tag). The old events
 * timer_add ... wheel_advance gave the module __tracepoint_timer_cancel,
 * which the kernel's own timer events have too.
 */
static void no_symbol_collision(void)
{
	static char mine[MAX_SYMS][128];
	char line[512], name[256], mod[64];
	size_t nmine = 0, ntp = 0, i, lines = 0;
	int found_cancel = 0, clash = 0;
	FILE *f;

	f = fopen("/proc/kallsyms", "r");
	if (!f)
		twt_skip("no /proc/kallsyms");
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%*s %*s %255s [%63[^]]]", name, mod) != 2 ||
		    strcmp(mod, "twheel") || !trace_sym_of_event(name))
			continue;
		CHECK(nmine < MAX_SYMS);
		CHECK(strlen(name) < sizeof(mine[0]));
		strcpy(mine[nmine++], name);
		if (!strncmp(name, "__tracepoint_", 13))
			ntp++;
		if (!strcmp(name, "__tracepoint_twheel_timer_cancel"))
			found_cancel = 1;
	}
	printf("# %zu per-event symbols of [twheel], %zu __tracepoint_*\n",
	       nmine, ntp);
	rewind(f);
	while (fgets(line, sizeof(line), f)) {
		lines++;
		if (strchr(line, '['))
			continue;	/* a module's symbol */
		if (sscanf(line, "%*s %*s %255s", name) != 1)
			continue;
		for (i = 0; i < nmine; i++)
			if (!strcmp(name, mine[i])) {
				printf("# %s is the kernel's and twheel's\n",
				       name);
				clash++;
			}
	}
	fclose(f);
	CHECK(lines > 1000);
	CHECK_EQ(clash, 0);
	/* One __tracepoint_ per event: the five events are there. */
	CHECK_EQ(ntp, 5);
	CHECK(found_cancel);
}

/*
 * The twheel_wheel_advance events of context @ctx since trace_start*():
 * how many, the sums of queued= and moved=, the largest moved=. Every
 * event queues no more than it moved (a record queued is an entry
 * handed back).
 */
struct trace_adv {
	size_t events;
	unsigned long long queued, moved, max_moved;
};

static struct trace_adv trace_stop_advances(long long ctx)
{
	struct trace_adv a = { 0 };
	char line[512], key[32];
	FILE *f;

	trace_write("tracing_on", "0");
	trace_write("events/twheel/enable", "0");
	f = fopen(TRACEFS "/trace", "r");
	CHECK(f);
	snprintf(key, sizeof(key), "ctx=%lld ", ctx);
	while (fgets(line, sizeof(line), f)) {
		unsigned long long q, m;
		char *p;

		if (line[0] == '#')
			continue;
		CHECK(!strstr(line, "LOST"));
		if (!strstr(line, key))
			continue;
		p = strstr(line, "twheel_wheel_advance: ");
		CHECK(p);
		p = strstr(p, " queued=");
		CHECK(p);
		CHECK_EQ(sscanf(p, " queued=%llu moved=%llu", &q, &m), 2);
		if (m > 256 || q > m)
			twt_fail(__FILE__, __LINE__, "event: %s", line);
		a.events++;
		a.queued += q;
		a.moved += m;
		if (m > a.max_moved)
			a.max_moved = m;
	}
	fclose(f);
	trace_clear();
	printf("# %zu twheel_wheel_advance events: queued %llu, moved %llu, at most %llu in one\n",
	       a.events, a.queued, a.moved, a.max_moved);
	return a;
}

#define N_BOUND		10000

/* Read every record: n of them, in cookie order 0..n-1, at @time (-1: any). */
static void trace_read_in_order(int fd, int n, int64_t time)
{
	static struct twheel_event ev[N_BOUND];
	int i;

	twt_read_n(fd, ev, n, 60000);
	for (i = 0; i < n; i++) {
		CHECK_EQ(ev[i].cookie, i);
		if (time >= 0)
			CHECK_EQ(ev[i].time_ns, time);
	}
	CHECK_NONE_QUEUED(fd);
}

/*
 * 10000 timers of one deadline on a manual clock, one ADVANCE past it:
 * at most 256 entries moved per event (per hold of the lock), and the
 * queued records of all events add up to the 10000.
 */
static void advance_bounded_one_tick(void)
{
	int fd = twt_open_manual(O_NONBLOCK, TWT_MS);
	long long ctx = trace_id(fd);
	struct trace_adv a;
	int i;

	for (i = 0; i < N_BOUND; i++)
		twt_add_abs(fd, i, 1000 * TWT_MS, CLOCK_MONOTONIC);
	trace_start_one("twheel_wheel_advance");
	CHECK_EQ(twt_advance(fd, 1500 * TWT_MS), 1500 * TWT_MS);
	CHECK_EQ(twt_queued(fd), N_BOUND);
	a = trace_stop_advances(ctx);
	CHECK_EQ(a.queued, N_BOUND);
	CHECK(a.moved >= N_BOUND);
	CHECK(a.max_moved <= 256);
	trace_read_in_order(fd, N_BOUND, 1500 * TWT_MS);
	close(fd);
}

/*
 * 10000 timers over deadlines 64..4095 ticks ahead (level 1 of the
 * wheel), so that slots cascade to level 0 on the way: at most 256
 * entries moved per event, the entries moved more than the timers (the
 * cascades), the queued records adding up to 10000, in deadline order.
 */
static void advance_bounded_cascade(void)
{
	int fd = twt_open_manual(O_NONBLOCK, TWT_MS);
	long long ctx = trace_id(fd);
	struct trace_adv a;
	int i;

	for (i = 0; i < N_BOUND; i++)
		twt_add_abs(fd, i, (64 + (int64_t)i * 4032 / N_BOUND) * TWT_MS,
			    CLOCK_MONOTONIC);
	trace_start_one("twheel_wheel_advance");
	CHECK_EQ(twt_advance(fd, 4096 * TWT_MS), 4096 * TWT_MS);
	a = trace_stop_advances(ctx);
	CHECK_EQ(a.queued, N_BOUND);
	CHECK(a.moved > N_BOUND);
	CHECK(a.max_moved <= 256);
	trace_read_in_order(fd, N_BOUND, 4096 * TWT_MS);
	close(fd);
}

/*
 * The same on CLOCK_MONOTONIC: 10000 timers of one deadline, all added
 * before it (the margin grows until they are, whatever the machine's
 * speed), then read as they come.
 */
static void advance_bounded_real_clock(void)
{
	static struct twheel_op ops[1000];
	long long ctx = -1;
	struct trace_adv a;
	int64_t dl = 0;
	int fd = -1, attempt, i, j;

	for (attempt = 0; attempt < 6; attempt++) {
		fd = twt_open(O_NONBLOCK);
		ctx = trace_id(fd);
		trace_start_one("twheel_wheel_advance");
		dl = twt_mono() + ((300 * TWT_MS) << attempt);
		for (i = 0; i < N_BOUND; i += 1000) {
			memset(ops, 0, sizeof(ops));
			for (j = 0; j < 1000; j++) {
				ops[j].op = TWHEEL_OP_ADD;
				ops[j].flags = TWHEEL_ABSTIME;
				ops[j].cookie = i + j;
				ops[j].expires_ns = dl;
				ops[j].clock = CLOCK_MONOTONIC;
			}
			CHECK_EQ(twt_submit_raw(fd, ops, 1000), 1000);
		}
		if (twt_mono() < dl)
			break;
		close(fd);
		fd = -1;
	}
	CHECK(fd >= 0);
	trace_read_in_order(fd, N_BOUND, -1);
	a = trace_stop_advances(ctx);
	CHECK_EQ(a.queued, N_BOUND);
	CHECK(a.moved >= N_BOUND);
	CHECK(a.max_moved <= 256);
	close(fd);
}

/* The advance events of @ctx since trace_start*() whose clock reached @tick. */
static int advances_reaching(long long ctx, uint64_t tick)
{
	static struct tev ev[64];
	unsigned long long to;
	size_t n = trace_stop(ctx, ev, 64), i;
	int hits = 0;
	char *p;

	for (i = 0; i < n; i++) {
		CHECK(!strcmp(ev[i].name, "twheel_wheel_advance"));
		p = strstr(ev[i].args, " to=");
		CHECK(p && sscanf(p, " to=%llu", &to) == 1);
		hits += to >= tick;
	}
	return hits;
}

/*
 * The fd's hrtimer follows the first timer in line: MODIFY moving the
 * only timer from a deadline T at level 0 (20 to 63 ms ahead, 1 ms tick)
 * to a deadline D whose wheel event is at least 1 s ahead leaves no
 * timer interrupt at T: no advance of the fd's wheel reaches T in the
 * 200 ms after it. The control, a store into the shared table pushing
 * the same timer back instead, is re-placed by the callback that comes
 * at T (an advance reaching T). A second timer at D gives the wheel D's
 * level first (else the callback leaves the re-placement to a task).
 * Each is tried again in the next 64 ticks when the machine was too slow
 * to finish before T.
 */
static void hrtimer_follows_first(void)
{
	int attempt, modify, hits = 0;
	int64_t c, old, d;
	uint64_t *tab;
	long long ctx;
	uint64_t id;
	int fd;

	for (modify = 0; modify < 2; modify++) {
		for (attempt = 0; attempt < 8; attempt++) {
			fd = open_table(0, MS, 0);
			tab = map_table(fd, twt_info(fd).table_size);
			ctx = trace_id(fd);
			trace_start_one("twheel_wheel_advance");
			c = twt_mono() / MS;
			old = c | 63;
			if (old - c < 20) {
				twt_sleep_ns((old + 1) * MS - twt_mono());
				c = twt_mono() / MS;
				old = c | 63;
			}
			for (d = c + 1000; twt_wheel_point(c, d) <
					   c + 1000; d++)
				;
			/* A second timer there: the wheel has D's level. */
			twt_add_abs(fd, 2, d * MS, CLOCK_MONOTONIC);
			id = twt_add_abs(fd, 1, old * MS, CLOCK_MONOTONIC);
			if (modify)
				CHECK_EQ(twt_modify(fd, id, d * MS, 0,
						    TWHEEL_ABSTIME),
					 TWHEEL_STATE_PENDING);
			else
				st(tab, id, TWHEEL_TABLE_DEADLINE(id, d));
			if (twt_mono() < old * MS - 5 * MS)
				break;
			trace_write("tracing_on", "0");
			trace_clear();
			munmap(tab, twt_info(fd).table_size);
			close(fd);
		}
		CHECK(attempt < 8);
		twt_sleep_ns(old * MS + 200 * MS - twt_mono());
		hits = advances_reaching(ctx, old);
		printf("# %s: deadline tick %lld -> %lld (event %lld): %d "
		       "advances reaching it\n",
		       modify ? "MODIFY" : "table store", (long long)old,
		       (long long)d, (long long)twt_wheel_point(c, d), hits);
		if (modify)
			CHECK_EQ(hits, 0);
		else
			CHECK(hits >= 1);
		CHECK_EQ(twt_queued(fd), 0);
		munmap(tab, twt_info(fd).table_size);
		close(fd);
	}
}

TWT_MAIN("trace",
	 TWT_CASE(events_in_order),
	 TWT_CASE(real_clock_lateness),
	 TWT_CASE(cancel_pending_and_disabled),
	 TWT_CASE(no_symbol_collision),
	 TWT_CASE_T(advance_bounded_one_tick, 180),
	 TWT_CASE_T(advance_bounded_cascade, 180),
	 TWT_CASE_T(advance_bounded_real_clock, 300),
	 TWT_CASE(hrtimer_follows_first))
