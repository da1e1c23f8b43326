// SPDX-License-Identifier: GPL-2.0
/*
 * faults: fault injection on every allocation and user copy of every call.
 *
 * For each call (open of /dev/twheel, every ioctl, read) in a set of
 * prepared situations, a "fault walk" makes the 1st, 2nd, ... injectable
 * call inside it fail (fail-nth: FAILSLAB and FAULT_INJECTION_USERCOPY, in
 * the debug kernel), one at a time, on a freshly prepared fd, until the call
 * runs without reaching the armed fault. Whether the fault was injected is
 * read back from fail-nth (0: it was). Each round:
 *
 *  - a call that fails gives an errno its header entry documents (ENOMEM,
 *    EFAULT; the walk lists which), and changes nothing visible: INFO, the
 *    whole of /proc/self/fdinfo/FD, every timer's status (LIST), poll, the
 *    process's open fds and the module's reference count are as before;
 *    then the same call, without a fault, does exactly what a clean one does;
 *  - a call that succeeds although a fault was injected (the kernel retried
 *    a copy, or fell back) must have done exactly what a clean one does;
 *  - either way the records read afterwards are those of a clean run: the
 *    records that were due are delivered exactly once, in order.
 *
 * "What a clean call does" is checked against a model of the fd for ADD,
 * MODIFY, CANCEL, QUERY and SUBMIT (each operation's outputs, the timers'
 * statuses and the queue of records), and against a clean reference round
 * for the others. Leaks are kmemleak's to find: the VM harness scans at the
 * end. Each walk prints "# fault walk NAME: N faults injected (...)" and
 * runs in a child of its case, so one failing walk hides no other.
 *
 * Every fault-injectable call in the system call counts, also those of the
 * VFS (open's path copy: EFAULT) and of kmemleak (its own metadata: the
 * call succeeds, counted "absorbed"). A clock's base and the wheel levels
 * an add needs are slab allocations FAILSLAB reaches, so an add walks
 * them too, besides the timer's, the id index's and the copies' faults;
 * the levels a wheel needs for timers it already holds are allocated
 * without fail (__GFP_NOFAIL), which fault injection never fails.
 *
 * Kernels without fault injection (Debian's) have no fail-nth file: the
 * cases report themselves skipped there.
 */
#include <dirent.h>
#include <fcntl.h>
#include <sys/ioctl.h>

#include <linux/twheel.h>

#include "twtest.h"

#define FAIL_NTH	"/proc/thread-self/fail-nth"
#define HOUR_NS		(3600 * TWT_S)
/* More injectable calls than this in one call: the walk never ends. */
#define WALK_MAX	2000
#define MAX_TIMERS	4200
#define MAX_OPS		48
#define MAX_EV		1024

#define U(x)		((unsigned long long)(x))
#define S(x)		((long long)(x))

/* ---- fail-nth ---------------------------------------------------------- */

static int fail_nth_fd = -1;

static void debugfs_set(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY);

	CHECK_OK(fd);
	CHECK_EQ(write(fd, val, strlen(val)), (ssize_t)strlen(val));
	close(fd);
}

static void need_fail_nth(void)
{
	fail_nth_fd = open(FAIL_NTH, O_RDWR);
	if (fail_nth_fd < 0)
		twt_skip("no fault injection (fail-nth) in this kernel");
	/* Fail sleeping allocations too: ours are all GFP_KERNEL_ACCOUNT. */
	debugfs_set("/sys/kernel/debug/failslab/ignore-gfp-wait", "N");
	/* An injected fault is expected here: no stack trace for it. */
	debugfs_set("/sys/kernel/debug/failslab/verbose", "0");
	debugfs_set("/sys/kernel/debug/fail_usercopy/verbose", "0");
}

/*
 * Make the nth fault-injectable call (slab allocation, user copy) of this
 * thread fail. The write's own copy runs before the count is set.
 */
static void fi_arm(int nth)
{
	char buf[16];
	int len = snprintf(buf, sizeof(buf), "%d", nth);

	CHECK_EQ(pwrite(fail_nth_fd, buf, len, 0), len);
}

/*
 * Right after the call: was the armed fault injected in it? fail-nth reads
 * back what is left of the count, 0 once injected. The read's own copy-out
 * is injectable: with 1 left it fails (EFAULT), and then the call did not
 * reach the fault either.
 */
static int fi_injected(void)
{
	char buf[24];
	ssize_t r = pread(fail_nth_fd, buf, sizeof(buf) - 1, 0);

	if (r < 0) {
		CHECK_EQ(errno, EFAULT);
		return 0;
	}
	buf[r] = 0;
	return strtoul(buf, NULL, 10) == 0;
}

/* Disarm. The write is injectable; if it hits, the count is spent anyway. */
static void fi_disarm(void)
{
	if (pwrite(fail_nth_fd, "0", 1, 0) != 1)
		CHECK_EQ(errno, EFAULT);
}

/* ---- what a call may change: a snapshot, taken with no fault armed ----- */

struct snap {
	int nfds;			/* the process's open fds */
	long long refcnt;		/* the module's reference count */
	int fd;				/* -1: only the two above */
	struct twheel_info info;
	char fdinfo[2048];		/* minus the lines every file has */
	int readable;
	long long now;			/* the manual clock, or -1 */
	uint32_t n;
	struct twheel_status st[MAX_TIMERS];	/* LIST order, remaining_ns 0 */
};

static int count_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int n = 0;

	CHECK(d);
	while ((e = readdir(d)))
		if (e->d_name[0] != '.')
			n++;
	closedir(d);
	return n;
}

static void read_fdinfo(int fd, char *buf, size_t len)
{
	char path[64], line[256];
	size_t used = 0, l;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	f = fopen(path, "r");
	CHECK(f);
	buf[0] = 0;
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "pos:", 4) || !strncmp(line, "flags:", 6) ||
		    !strncmp(line, "mnt_id:", 7) || !strncmp(line, "ino:", 4))
			continue;
		l = strlen(line);
		CHECK(used + l < len);
		memcpy(buf + used, line, l + 1);
		used += l;
	}
	fclose(f);
}

/* The value of "key:\t<n>" in fdinfo text, or -1. */
static long long fdinfo_val(const char *text, const char *key)
{
	size_t kl = strlen(key);
	const char *p = text;

	while (p && *p) {
		if (!strncmp(p, key, kl) && p[kl] == ':')
			return strtoll(p + kl + 1, NULL, 10);
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return -1;
}

/* Every timer of fd, in LIST order, remaining_ns zeroed; their number. */
static uint32_t list_all(int fd, struct twheel_status *st, uint32_t cap)
{
	struct twheel_list l;
	uint32_t n = 0, k;
	int calls = 0;

	memset(&l, 0, sizeof(l));
	l.status_size = sizeof(*st);
	do {
		CHECK(n < cap);
		CHECK(++calls < 10000);
		l.statuses = (uint64_t)(uintptr_t)(st + n);
		l.capacity = cap - n;
		CHECK_OK(ioctl(fd, TWHEEL_IOC_LIST, &l));
		n += l.count;
	} while (l.cursor);
	for (k = 0; k < n; k++)
		st[k].remaining_ns = 0;
	return n;
}

static void take_snap(int fd, struct snap *s)
{
	uint32_t k, queued = 0;

	s->nfds = count_fds();
	s->refcnt = twt_sysfs_read("/sys/module/twheel/refcnt");
	s->fd = fd;
	if (fd < 0)
		return;
	s->n = list_all(fd, s->st, MAX_TIMERS);
	s->info = twt_info(fd);
	read_fdinfo(fd, s->fdinfo, sizeof(s->fdinfo));
	s->readable = !!(twt_poll(fd, 0) & POLLIN);
	s->now = s->info.config_flags & TWHEEL_CONFIG_MANUAL ?
		 twt_advance(fd, 0) : -1;
	/* The views agree with each other. */
	for (k = 0; k < s->n; k++)
		queued += s->st[k].state == TWHEEL_STATE_QUEUED;
	CHECK_EQ(s->info.timers, s->n);
	CHECK_EQ(s->info.queued, queued);
	CHECK_EQ(s->readable, queued > 0);
	CHECK_EQ(fdinfo_val(s->fdinfo, "timers"), s->n);
	CHECK_EQ(fdinfo_val(s->fdinfo, "queued"), queued);
	CHECK_EQ(fdinfo_val(s->fdinfo, "pending"), s->n - queued);
	if (s->now >= 0)
		CHECK_EQ(fdinfo_val(s->fdinfo, "manual_now_ns"), s->now);
}

static const struct twheel_status *snap_find(const struct snap *s,
					     uint64_t cookie)
{
	uint32_t k;

	for (k = 0; k < s->n; k++)
		if (s->st[k].cookie == cookie)
			return &s->st[k];
	return NULL;
}

static void print_text(const char *what, const char *text)
{
	const char *p = text, *e;

	printf("# %s:\n", what);
	while (*p) {
		e = strchr(p, '\n');
		if (!e)
			e = p + strlen(p);
		printf("#   %.*s\n", (int)(e - p), p);
		p = *e ? e + 1 : e;
	}
}

static void print_status(const char *what, const struct twheel_status *st)
{
	printf("# %s: id %#llx cookie %llu deadline %lld period %llu count %llu clock %u state %u\n",
	       what, U(st->id), U(st->cookie), S(st->deadline_ns),
	       U(st->period_ns), U(st->count), st->clock, st->state);
}

/* The round under way, for diagnostics. */
static const char *cur_walk = "";
static int cur_nth, cur_err;

static void print_where(void)
{
	if (cur_nth)
		printf("# in %s, fault %d injected (the call: %s)\n", cur_walk,
		       cur_nth, cur_err ? strerror(cur_err) : "succeeded");
	else
		printf("# in %s, clean round\n", cur_walk);
}

/* CHECK_SAME(a, b): nothing a call may change differs. */
#define CHECK_SAME(a, b)	snap_same(__FILE__, __LINE__, (a), (b))
static void snap_same(const char *file, int line, const struct snap *a,
		      const struct snap *b)
{
	uint32_t k;

	if (a->nfds != b->nfds || a->refcnt != b->refcnt || a->fd != b->fd) {
		print_where();
		twt_fail(file, line, "open fds %d -> %d, module refcnt %lld -> %lld, fd %d -> %d",
			 a->nfds, b->nfds, a->refcnt, b->refcnt, a->fd, b->fd);
	}
	if (a->fd < 0)
		return;
	if (memcmp(&a->info, &b->info, sizeof(a->info))) {
		print_where();
		twt_fail(file, line, "INFO changed: timers %llu -> %llu, queued %llu -> %llu, tick %llu -> %llu, config %u -> %u",
			 U(a->info.timers), U(b->info.timers),
			 U(a->info.queued), U(b->info.queued),
			 U(a->info.tick_ns), U(b->info.tick_ns),
			 a->info.config_flags, b->info.config_flags);
	}
	if (strcmp(a->fdinfo, b->fdinfo)) {
		print_where();
		print_text("fdinfo before", a->fdinfo);
		print_text("fdinfo after", b->fdinfo);
		twt_fail(file, line, "fdinfo changed");
	}
	if (a->readable != b->readable || a->now != b->now) {
		print_where();
		twt_fail(file, line, "readable %d -> %d, manual clock %lld -> %lld",
			 a->readable, b->readable, a->now, b->now);
	}
	if (a->n != b->n) {
		print_where();
		twt_fail(file, line, "LIST: %u timers before, %u after", a->n,
			 b->n);
	}
	for (k = 0; k < a->n; k++) {
		if (!memcmp(&a->st[k], &b->st[k], sizeof(a->st[k])))
			continue;
		print_where();
		print_status("before", &a->st[k]);
		print_status("after", &b->st[k]);
		twt_fail(file, line, "LIST entry %u changed", k);
	}
}

/* ---- prepared situations ----------------------------------------------- */

enum setup {
	S_FRESH,	/* real clocks, nothing done */
	S_WARM_MONO,	/* real clocks, one MONOTONIC timer (cookie 1) */
	S_WARM_REAL,	/* real clocks, one REALTIME timer (cookie 1) */
	S_MANUAL_FRESH,	/* manual clock, nothing added */
	S_MIX,		/* manual: pending, queued, one-shot, periodic */
	S_READS,	/* manual: 73 records queued, two periodic */
	S_ADVANCE,	/* manual: 311 timers due within 5 s */
	S_MANY,		/* manual: 151 timers, 21 queued */
	S_PAGE,		/* manual: a full page of the id index */
	S_PAGES,	/* manual: the id index's first page array full */
};

static int page_ids(void)
{
	return (int)(sysconf(_SC_PAGESIZE) / sizeof(uint64_t));
}

/* Add n timers in batches: cookies c0.., deadlines first + i * step. */
static void add_many(int fd, uint64_t c0, int n, int64_t first, int64_t step,
		     uint32_t clock)
{
	static struct twheel_op ops[TWHEEL_MAX_BATCH];
	int done = 0, i, k;

	while (done < n) {
		k = n - done < TWHEEL_MAX_BATCH ? n - done : TWHEEL_MAX_BATCH;
		memset(ops, 0, sizeof(ops));
		for (i = 0; i < k; i++) {
			ops[i].op = TWHEEL_OP_ADD;
			ops[i].cookie = c0 + done + i;
			ops[i].expires_ns = first + (done + i) * step;
			ops[i].clock = clock;
		}
		CHECK_EQ(twt_submit_raw(fd, ops, k), k);
		for (i = 0; i < k; i++)
			CHECK_EQ(ops[i].error, 0);
		done += k;
	}
}

/* A new O_NONBLOCK fd in situation s; *manual: on the manual clock. */
static int setup_fd(enum setup s, int *manual)
{
	int fd;

	*manual = 0;
	switch (s) {
	case S_FRESH:
		return twt_open(O_NONBLOCK);
	case S_WARM_MONO:
	case S_WARM_REAL:
		fd = twt_open(O_NONBLOCK);
		twt_add(fd, 1, HOUR_NS, 0, s == S_WARM_MONO ? CLOCK_MONOTONIC :
							      CLOCK_REALTIME);
		return fd;
	default:
		break;
	}
	*manual = 1;
	fd = twt_open_manual(O_NONBLOCK, TWT_MS);
	switch (s) {
	case S_MIX:
		twt_add(fd, 1, HOUR_NS, 0, CLOCK_MONOTONIC);
		twt_add(fd, 2, 2 * HOUR_NS, 0, CLOCK_REALTIME);
		twt_addp(fd, 3, 30 * TWT_S, 250 * TWT_MS, 0, CLOCK_BOOTTIME);
		twt_addp(fd, 5, TWT_S, TWT_S, 0, CLOCK_TAI);
		twt_add(fd, 6, 2 * TWT_S, 0, CLOCK_MONOTONIC);
		twt_advance(fd, 3500 * TWT_MS);	/* queued: 5 (count 3), 6 */
		twt_add(fd, 4, 0, 0, CLOCK_TAI);	/* queued at once */
		break;
	case S_READS:
		twt_add(fd, 1, HOUR_NS, 0, CLOCK_MONOTONIC);
		twt_addp(fd, 5, TWT_S, TWT_S, 0, CLOCK_TAI);
		add_many(fd, 100, 70, TWT_S, 0, CLOCK_REALTIME);
		twt_addp(fd, 7, 2 * TWT_S, 300 * TWT_MS, 0, CLOCK_BOOTTIME);
		twt_advance(fd, 3500 * TWT_MS);
		break;
	case S_ADVANCE:
		twt_add(fd, 1, HOUR_NS, 0, CLOCK_MONOTONIC);
		twt_addp(fd, 5, 500 * TWT_MS, 100 * TWT_MS, 0, CLOCK_BOOTTIME);
		add_many(fd, 1000, 300, TWT_S, TWT_MS, CLOCK_MONOTONIC);
		add_many(fd, 2000, 10, 2 * TWT_S, 0, CLOCK_REALTIME);
		twt_add(fd, 3, 0, 0, CLOCK_TAI);	/* queued already */
		break;
	case S_MANY:
		add_many(fd, 1, 20, TWT_S, TWT_MS, CLOCK_MONOTONIC);
		add_many(fd, 21, 130, HOUR_NS, TWT_MS, CLOCK_BOOTTIME);
		twt_addp(fd, 200, TWT_S, 300 * TWT_MS, 0, CLOCK_TAI);
		twt_advance(fd, 2 * TWT_S);
		break;
	case S_PAGE:
		add_many(fd, 1, page_ids(), HOUR_NS, 0, CLOCK_MONOTONIC);
		break;
	case S_PAGES:
		add_many(fd, 1, 8 * page_ids(), HOUR_NS, 0, CLOCK_MONOTONIC);
		break;
	default:
		break;
	}
	return fd;
}

/* ---- the walk ---------------------------------------------------------- */

/* One operation of an op walk, as the test gives it. */
struct optmpl {
	struct twheel_op op;	/* id: see target */
	uint64_t target;	/* the cookie of the timer it names (0: op.id) */
	int abs_now;		/* expires_ns is an offset from its clock's now */
	int xerr;		/* the error it must fail with, or 0 */
};

struct walk;

/* One round of a walk: a prepared fd, the call, what it left. */
struct wround {
	const struct walk *wk;
	int fd, manual, inj;
	int partial, opfail, drained;
	struct snap before, after;
	int64_t t0[TWT_NCLOCKS], t1[TWT_NCLOCKS];
	/* op walks */
	size_t nops;
	struct twheel_op sent[MAX_OPS], ops[MAX_OPS];
	int xerr[MAX_OPS];
	union {
		struct twheel_add add;
		struct twheel_modify modify;
		struct twheel_cancel cancel;
		struct twheel_query query;
		struct twheel_info info;
		struct twheel_advance advance;
		struct twheel_config config;
		struct twheel_list list;
	} u, usent;
	/* LIST: what the listing had seen before the call */
	uint32_t seen;
	struct twheel_status first[MAX_TIMERS], lst[MAX_TIMERS];
	/* records the call returned (read) */
	size_t nev;
	struct twheel_event ev[MAX_EV];
	/* the prepared fd's queue, oldest first (cookies) */
	size_t npreq;
	uint64_t preq[MAX_EV];
};

struct walk {
	const char *name;
	void (*prepare)(struct wround *w);
	long (*call)(struct wround *w);
	void (*check)(struct wround *w, long r);
	void (*after_fail)(struct wround *w);
	int errs;		/* W_ENOMEM | W_EFAULT: what a failure may give */
	int need_failure;	/* at least one fault must fail the call */
	enum setup setup;
	const void *arg;
};

#define W_ENOMEM	1
#define W_EFAULT	2

struct tally {
	int walks, injected, failed, nomem, efault, partial, opfail, absorbed;
};

static struct wround round_;
static struct twheel_event ref_ev[MAX_EV], drain_ev[MAX_EV];
static size_t nref;

static int clk_index(uint32_t clock)
{
	unsigned int k;

	for (k = 0; k < TWT_NCLOCKS; k++)
		if ((uint32_t)twt_clock(k) == clock)
			return k;
	twt_fail(__FILE__, __LINE__, "clock %u", clock);
}

static void read_clocks(int64_t *t)
{
	unsigned int k;

	for (k = 0; k < TWT_NCLOCKS; k++)
		t[k] = twt_now(twt_clock(k));
}

/*
 * The records the round ends with: those the call returned, then all that
 * are queued after it. They must be the reference round's, by cookie,
 * count, clock and flags (and time on the manual clock); each id is the
 * id its timer has (before or after the call).
 */
static void round_records(struct wround *w, int reference)
{
	size_t n = w->nev, k;

	memcpy(drain_ev, w->ev, n * sizeof(*w->ev));
	if (w->fd >= 0) {
		n += twt_drain(w->fd, drain_ev + n, MAX_EV - n);
		CHECK_NONE_QUEUED(w->fd);
	}
	if (reference) {
		memcpy(ref_ev, drain_ev, n * sizeof(*ref_ev));
		nref = n;
	}
	CHECK_EQ(n, nref);
	for (k = 0; k < n; k++) {
		const struct twheel_event *e = &drain_ev[k], *r = &ref_ev[k];
		const struct twheel_status *st = snap_find(&w->after, e->cookie);

		if (!st)
			st = snap_find(&w->before, e->cookie);
		if (e->cookie != r->cookie || e->count != r->count ||
		    e->clock != r->clock || e->flags || !st || st->id != e->id ||
		    (w->manual && e->time_ns != r->time_ns)) {
			print_where();
			twt_fail(__FILE__, __LINE__,
				 "record %zu: cookie %llu count %llu clock %u id %#llx time %lld, reference: cookie %llu count %llu clock %u time %lld",
				 k, U(e->cookie), U(e->count), e->clock,
				 U(e->id), S(e->time_ns), U(r->cookie),
				 U(r->count), r->clock, S(r->time_ns));
		}
	}
}

/*
 * One round; nth 0 is the clean reference. Returns whether the armed fault
 * was injected (the walk goes on while it is).
 */
static int walk_round(struct wround *w, int nth, struct tally *t)
{
	const struct walk *wk = w->wk;
	int inj = 0, err = 0;
	long r;

	w->nev = 0;
	w->partial = w->opfail = w->drained = 0;
	wk->prepare(w);
	take_snap(w->fd, &w->before);
	read_clocks(w->t0);
	if (nth)
		fi_arm(nth);
	r = wk->call(w);
	err = r < 0 ? errno : 0;
	if (nth) {
		inj = fi_injected();
		fi_disarm();
	}
	cur_walk = wk->name;
	cur_nth = nth;
	cur_err = err;
	read_clocks(w->t1);
	take_snap(w->fd, &w->after);
	w->inj = inj;
	if (r < 0) {
		if (!inj)
			twt_fail(__FILE__, __LINE__, "%s failed with no fault injected: %s",
				 wk->name, strerror(err));
		t->failed++;
		if (err == ENOMEM && (wk->errs & W_ENOMEM))
			t->nomem++;
		else if (err == EFAULT && (wk->errs & W_EFAULT))
			t->efault++;
		else
			twt_fail(__FILE__, __LINE__,
				 "%s: fault %d: errno %d (%s), not one the header documents for it",
				 wk->name, nth, err, strerror(err));
		CHECK_SAME(&w->before, &w->after);
		if (wk->after_fail)
			wk->after_fail(w);
		/* The fd still works: the same call, no fault, does it all. */
		w->inj = 0;
		w->nev = 0;
		read_clocks(w->t0);
		r = wk->call(w);
		if (r < 0)
			twt_fail(__FILE__, __LINE__, "%s again after fault %d: %s",
				 wk->name, nth, strerror(errno));
		read_clocks(w->t1);
		take_snap(w->fd, &w->after);
		wk->check(w, r);
	} else {
		wk->check(w, r);
		if (inj) {
			if (w->partial)
				t->partial++;
			else if (w->opfail)
				t->opfail++;
			else
				t->absorbed++;
		}
	}
	if (!w->drained)
		round_records(w, nth == 0);
	if (w->fd >= 0)
		close(w->fd);
	w->fd = -1;
	return inj;
}

/* Walk one call's faults (in the calling process). */
static void walk_faults(const struct walk *wk, struct tally *sum)
{
	struct wround *w = &round_;
	struct tally t = { 0 };
	size_t k;
	int nth;

	w->wk = wk;
	w->fd = -1;
	/* The prepared fd's queue, in order. */
	wk->prepare(w);
	w->npreq = 0;
	if (w->fd >= 0) {
		w->npreq = twt_drain(w->fd, drain_ev, MAX_EV);
		for (k = 0; k < w->npreq; k++)
			w->preq[k] = drain_ev[k].cookie;
		close(w->fd);
		w->fd = -1;
	}
	walk_round(w, 0, &t);
	for (nth = 1; walk_round(w, nth, &t); nth++) {
		t.injected++;
		CHECK(nth < WALK_MAX);
	}
	printf("# fault walk %s: %d faults injected: %d failed the call (%d ENOMEM, %d EFAULT), %d partial batches, %d failed one operation, %d absorbed; all clean\n",
	       wk->name, t.injected, t.failed, t.nomem, t.efault, t.partial,
	       t.opfail, t.absorbed);
	/* Fault injection reached the call, and every outcome was counted. */
	CHECK(t.injected > 0);
	CHECK_EQ(t.failed + t.partial + t.opfail + t.absorbed, t.injected);
	if (wk->need_failure)
		CHECK(t.failed > 0);
	sum->walks++;
	sum->injected += t.injected;
	sum->failed += t.failed;
	sum->nomem += t.nomem;
	sum->efault += t.efault;
	sum->partial += t.partial;
	sum->opfail += t.opfail;
	sum->absorbed += t.absorbed;
}

/*
 * Each walk runs in a child of the case, so that one that fails does not
 * hide the others: the case fails at its end (print_total()) if any did.
 */
static struct tally *total;
static int walks_failed;

static void walk(const struct walk *wk)
{
	int status = 0;
	pid_t pid;

	if (!total) {
		total = mmap(NULL, sizeof(*total), PROT_READ | PROT_WRITE,
			     MAP_SHARED | MAP_ANONYMOUS, -1, 0);
		CHECK(total != MAP_FAILED);
		memset(total, 0, sizeof(*total));
	}
	fflush(stdout);
	pid = fork();
	CHECK_OK(pid);
	if (pid == 0) {
		/* fail-nth is a task's own: the child's, not its parent's. */
		close(fail_nth_fd);
		fail_nth_fd = open(FAIL_NTH, O_RDWR);
		CHECK_OK(fail_nth_fd);
		walk_faults(wk, total);
		fflush(stdout);
		_exit(0);
	}
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return;
	printf("# fault walk %s: FAILED (%s %d)\n", wk->name,
	       WIFSIGNALED(status) ? "signal" : "exit status",
	       WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
	walks_failed++;
}

static void print_total(const char *what)
{
	printf("# fault walks %s: %d calls walked clean, %d faults injected: %d failed the call (%d ENOMEM, %d EFAULT), %d partial batches, %d failed one operation, %d absorbed\n",
	       what, total->walks, total->injected, total->failed,
	       total->nomem, total->efault, total->partial, total->opfail,
	       total->absorbed);
	if (walks_failed)
		twt_fail(__FILE__, __LINE__, "%d fault walks failed",
			 walks_failed);
}

/* ---- op walks: ADD, MODIFY, CANCEL, QUERY, SUBMIT ----------------------- */

struct opsarg {
	int single;		/* the ioctl of the one operation, or SUBMIT */
	size_t n;
	const struct optmpl *t;
};

struct model {
	uint32_t n;
	struct twheel_status st[MAX_TIMERS];
	int64_t lo[MAX_TIMERS], hi[MAX_TIMERS];	/* the deadline's bounds */
	size_t nq;
	uint64_t q[MAX_EV];			/* queued records (cookies) */
};

static struct model model_;

static uint64_t id_of(int fd, uint64_t cookie)
{
	static struct twheel_status st[MAX_TIMERS];
	uint32_t n = list_all(fd, st, MAX_TIMERS), k;

	for (k = 0; k < n; k++)
		if (st[k].cookie == cookie)
			return st[k].id;
	twt_fail(__FILE__, __LINE__, "no timer with cookie %llu", U(cookie));
}

static void prepare_ops(struct wround *w)
{
	const struct opsarg *a = w->wk->arg;
	size_t k;

	w->fd = setup_fd(w->wk->setup, &w->manual);
	w->nops = a->n;
	for (k = 0; k < a->n; k++) {
		struct twheel_op *op = &w->sent[k];

		*op = a->t[k].op;
		w->xerr[k] = a->t[k].xerr;
		if (a->t[k].target)
			op->id = id_of(w->fd, a->t[k].target);
		if (a->t[k].abs_now)
			op->expires_ns += w->manual ? twt_advance(w->fd, 0) :
					  twt_now(op->clock);
	}
	/* Touched now: no page fault (and its allocations) in the call. */
	memset(w->ops, 0, sizeof(w->ops));
	memset(&w->u, 0, sizeof(w->u));
}

static long call_ops(struct wround *w)
{
	const struct opsarg *a = w->wk->arg;
	const struct twheel_op *op = &w->sent[0];

	if (!a->single) {
		memcpy(w->ops, w->sent, w->nops * sizeof(*w->ops));
		return twt_submit_raw(w->fd, w->ops, w->nops);
	}
	memset(&w->u, 0, sizeof(w->u));
	switch (op->op) {
	case TWHEEL_OP_ADD:
		w->u.add.cookie = op->cookie;
		w->u.add.expires_ns = op->expires_ns;
		w->u.add.period_ns = op->period_ns;
		w->u.add.flags = op->flags;
		w->u.add.clock = op->clock;
		w->usent = w->u;
		return ioctl(w->fd, TWHEEL_IOC_ADD, &w->u.add);
	case TWHEEL_OP_MODIFY:
		w->u.modify.id = op->id;
		w->u.modify.cookie = op->cookie;
		w->u.modify.expires_ns = op->expires_ns;
		w->u.modify.period_ns = op->period_ns;
		w->u.modify.flags = op->flags;
		w->usent = w->u;
		return ioctl(w->fd, TWHEEL_IOC_MODIFY, &w->u.modify);
	case TWHEEL_OP_CANCEL:
		w->u.cancel.id = op->id;
		w->u.cancel.flags = op->flags;
		w->usent = w->u;
		return ioctl(w->fd, TWHEEL_IOC_CANCEL, &w->u.cancel);
	default:
		w->u.query.id = op->id;
		w->u.query.flags = op->flags;
		w->usent = w->u;
		return ioctl(w->fd, TWHEEL_IOC_QUERY, &w->u.query);
	}
}

/* A single ioctl's struct back as the operation SUBMIT would write. */
static void single_out(struct wround *w, struct twheel_op *out)
{
	const struct twheel_op *op = &w->sent[0];

	*out = *op;
	out->error = out->result = 0;
	out->count = out->remaining_ns = 0;
	switch (op->op) {
	case TWHEEL_OP_ADD:
		out->id = w->u.add.id;
		w->u.add.id = 0;
		CHECK(!memcmp(&w->u.add, &w->usent.add, sizeof(w->u.add)));
		break;
	case TWHEEL_OP_MODIFY:
		out->result = w->u.modify.result;
		w->u.modify.result = 0;
		CHECK(!memcmp(&w->u.modify, &w->usent.modify,
			      sizeof(w->u.modify)));
		break;
	case TWHEEL_OP_CANCEL:
		out->result = w->u.cancel.result;
		w->u.cancel.result = 0;
		CHECK(!memcmp(&w->u.cancel, &w->usent.cancel,
			      sizeof(w->u.cancel)));
		break;
	default:
		CHECK_EQ(w->u.query.status.id, op->id);
		CHECK_EQ(w->u.query.flags, 0);
		CHECK_EQ(w->u.query.__reserved, 0);
		out->cookie = w->u.query.status.cookie;
		out->expires_ns = w->u.query.status.deadline_ns;
		out->period_ns = w->u.query.status.period_ns;
		out->clock = w->u.query.status.clock;
		out->result = w->u.query.status.state;
		out->count = w->u.query.status.count;
		out->remaining_ns = w->u.query.status.remaining_ns;
		break;
	}
}

static int model_find(const struct model *m, uint64_t id)
{
	uint32_t k;

	for (k = 0; k < m->n; k++)
		if (m->st[k].id == id)
			return k;
	return -1;
}

static void model_unqueue(struct model *m, uint64_t cookie)
{
	size_t k;

	for (k = 0; k < m->nq && m->q[k] != cookie; k++)
		;
	CHECK(k < m->nq);
	memmove(&m->q[k], &m->q[k + 1], (m->nq - k - 1) * sizeof(m->q[0]));
	m->nq--;
}

static int64_t roundup_tick(int64_t ns, int64_t tick)
{
	int64_t r = ns % tick;

	if (r < 0)
		r += tick;
	return r ? ns - r + tick : ns;
}

/*
 * Model entry k becomes a timer (re)armed by ADD or MODIFY @in (its clock
 * already set): pending with its deadline, or queued when due at once.
 */
static void model_arm(struct model *m, int k, const struct twheel_op *in,
		      const struct wround *w)
{
	struct twheel_status *st = &m->st[k];
	int64_t tick = w->before.info.tick_ns, lo, hi, t0, t1;
	int c = clk_index(st->clock);

	t0 = w->manual ? w->before.now : w->t0[c];
	t1 = w->manual ? w->before.now : w->t1[c];
	st->period_ns = in->period_ns ?
			(in->period_ns < (uint64_t)tick ? (uint64_t)tick :
							  in->period_ns) : 0;
	if (in->flags & TWHEEL_ABSTIME) {
		lo = hi = in->expires_ns;
	} else {
		lo = t0 + in->expires_ns;
		hi = t1 + in->expires_ns;
	}
	if (hi <= t0) {
		/* Due at once: queued behind every record (one-shot only here). */
		CHECK_EQ(in->period_ns, 0);
		st->state = TWHEEL_STATE_QUEUED;
		st->deadline_ns = 0;
		st->count = 1;
		m->lo[k] = m->hi[k] = 0;
		CHECK(m->nq < MAX_EV);
		m->q[m->nq++] = st->cookie;
		return;
	}
	CHECK(lo > t1);		/* the test gives clear cases only */
	st->state = TWHEEL_STATE_PENDING;
	st->count = 0;
	m->lo[k] = st->period_ns ? lo : roundup_tick(lo, tick);
	m->hi[k] = st->period_ns ? hi : roundup_tick(hi, tick);
	st->deadline_ns = m->lo[k];
}

/* Could @in fail alone with ENOMEM (it allocates)? */
static int may_nomem(const struct model *m, const struct twheel_op *in)
{
	int k;

	if (in->op == TWHEEL_OP_ADD)
		return 1;
	if (in->op != TWHEEL_OP_MODIFY || !in->period_ns)
		return 0;
	/* "making a one-shot timer periodic may allocate" */
	k = model_find(m, in->id);
	return k >= 0 && m->st[k].period_ns == 0;
}

/* Check one operation's written-back outcome and apply it to the model. */
static void model_op(struct model *m, struct wround *w, size_t i, int done)
{
	const struct twheel_op *in = &w->sent[i];
	struct twheel_op *out = &w->ops[i], x;
	int k;

	if (!done) {
		/* Not done: the caller's copy is as given. */
		CHECK(!memcmp(out, in, sizeof(*in)));
		return;
	}
	/* Every field but the outputs is written back as given. */
	x = *out;
	x.error = in->error;
	x.result = in->result;
	x.count = in->count;
	x.remaining_ns = in->remaining_ns;
	if (in->op == TWHEEL_OP_ADD)
		x.id = in->id;
	if (in->op == TWHEEL_OP_QUERY) {
		x.cookie = in->cookie;
		x.expires_ns = in->expires_ns;
		x.period_ns = in->period_ns;
		x.clock = in->clock;
	}
	CHECK(!memcmp(&x, in, sizeof(x)));
	if (out->error) {
		if (w->xerr[i]) {
			CHECK_EQ(out->error, w->xerr[i]);
		} else {
			/* Only an injected allocation failure, documented. */
			if (out->error != -ENOMEM || !w->inj || !may_nomem(m, in)) {
				print_where();
				twt_fail(__FILE__, __LINE__,
					 "%s: op %zu (op %u) failed: %s",
					 w->wk->name, i, in->op,
					 strerror(-out->error));
			}
			w->opfail = 1;
		}
		CHECK_EQ(out->result, 0);
		CHECK_EQ(out->count, 0);
		CHECK_EQ(out->remaining_ns, 0);
		if (in->op == TWHEEL_OP_ADD)
			CHECK_EQ(out->id, 0);
		if (in->op == TWHEEL_OP_QUERY)
			CHECK(!out->cookie && !out->expires_ns &&
			      !out->period_ns && !out->clock);
		return;
	}
	if (w->xerr[i])
		twt_fail(__FILE__, __LINE__, "%s: op %zu succeeded, want %s",
			 w->wk->name, i, strerror(-w->xerr[i]));
	if (in->op == TWHEEL_OP_ADD) {
		CHECK(out->id != 0);
		CHECK_EQ(model_find(m, out->id), -1);
		CHECK_EQ(out->result, 0);
		CHECK_EQ(out->count, 0);
		CHECK_EQ(out->remaining_ns, 0);
		CHECK(m->n < MAX_TIMERS);
		k = m->n++;
		memset(&m->st[k], 0, sizeof(m->st[k]));
		m->st[k].id = out->id;
		m->st[k].cookie = in->cookie;
		m->st[k].clock = in->clock;
		model_arm(m, k, in, w);
		return;
	}
	k = model_find(m, in->id);
	CHECK(k >= 0);
	switch (in->op) {
	case TWHEEL_OP_MODIFY:
		CHECK_EQ(out->result, m->st[k].state);
		CHECK_EQ(out->count, 0);
		CHECK_EQ(out->remaining_ns, 0);
		if (m->st[k].state == TWHEEL_STATE_QUEUED)
			model_unqueue(m, m->st[k].cookie);
		if (in->flags & TWHEEL_SET_COOKIE)
			m->st[k].cookie = in->cookie;
		model_arm(m, k, in, w);
		break;
	case TWHEEL_OP_CANCEL:
		CHECK_EQ(out->result, m->st[k].state);
		CHECK_EQ(out->count, 0);
		CHECK_EQ(out->remaining_ns, 0);
		if (m->st[k].state == TWHEEL_STATE_QUEUED)
			model_unqueue(m, m->st[k].cookie);
		m->n--;
		m->st[k] = m->st[m->n];
		m->lo[k] = m->lo[m->n];
		m->hi[k] = m->hi[m->n];
		break;
	case TWHEEL_OP_QUERY:
		CHECK_EQ(out->cookie, m->st[k].cookie);
		CHECK_EQ(out->clock, m->st[k].clock);
		CHECK_EQ(out->period_ns, m->st[k].period_ns);
		CHECK_EQ(out->result, m->st[k].state);
		CHECK_EQ(out->count, m->st[k].count);
		CHECK(out->expires_ns >= m->lo[k] && out->expires_ns <= m->hi[k]);
		if (w->manual)
			CHECK_EQ(out->remaining_ns,
				 out->expires_ns > w->before.now ?
				 out->expires_ns - w->before.now : 0);
		break;
	}
}

/* The fd is exactly the model: timers, counts, then the records in order. */
static void model_compare(struct model *m, struct wround *w)
{
	const struct snap *a = &w->after;
	uint32_t i;
	size_t n, k;
	int j;

	CHECK_EQ(a->n, m->n);
	for (i = 0; i < a->n; i++) {
		const struct twheel_status *s = &a->st[i];

		j = model_find(m, s->id);
		if (j < 0 || s->cookie != m->st[j].cookie ||
		    s->clock != m->st[j].clock ||
		    s->period_ns != m->st[j].period_ns ||
		    s->state != m->st[j].state || s->count != m->st[j].count ||
		    s->deadline_ns < m->lo[j] || s->deadline_ns > m->hi[j]) {
			print_where();
			print_status("fd has", s);
			if (j >= 0)
				print_status("model has", &m->st[j]);
			twt_fail(__FILE__, __LINE__,
				 "%s: timer %#llx is not as the model says",
				 w->wk->name, U(s->id));
		}
	}
	CHECK_EQ(a->info.queued, m->nq);
	n = twt_drain(w->fd, drain_ev, MAX_EV);
	CHECK_EQ(n, m->nq);
	for (k = 0; k < n; k++) {
		const struct twheel_event *e = &drain_ev[k];
		const struct twheel_status *s = snap_find(a, e->cookie);

		if (e->cookie != m->q[k] || !s || e->id != s->id ||
		    e->clock != s->clock || e->count != s->count || e->flags) {
			print_where();
			twt_fail(__FILE__, __LINE__,
				 "%s: record %zu: cookie %llu id %#llx count %llu, the model's is cookie %llu",
				 w->wk->name, k, U(e->cookie), U(e->id),
				 U(e->count), U(m->q[k]));
		}
	}
	CHECK_NONE_QUEUED(w->fd);
	w->drained = 1;
}

static void check_ops(struct wround *w, long r)
{
	const struct opsarg *a = w->wk->arg;
	struct model *m = &model_;
	size_t i, done;

	if (a->single) {
		CHECK_EQ(r, 0);
		single_out(w, &w->ops[0]);
		done = 1;
	} else {
		CHECK(r >= 0 && (size_t)r <= w->nops);
		done = r;
		if (done < w->nops) {
			/* Stopped before an operation it could not read. */
			CHECK(w->inj);
			w->partial = 1;
		}
	}
	m->n = w->before.n;
	memcpy(m->st, w->before.st, m->n * sizeof(m->st[0]));
	for (i = 0; i < m->n; i++)
		m->lo[i] = m->hi[i] = m->st[i].deadline_ns;
	m->nq = w->npreq;
	memcpy(m->q, w->preq, m->nq * sizeof(m->q[0]));
	CHECK_EQ(m->nq, w->before.info.queued);
	for (i = 0; i < w->nops; i++)
		model_op(m, w, i, i < done);
	model_compare(m, w);
}

/*
 * After a failed call on an fd that never had a timer: no timer was
 * created, so the fd may still be configured ("allowed only before the
 * fd's first timer is added"); as it was, so nothing changes.
 */
static void after_fail_config(struct wround *w)
{
	struct snap *s = &w->after;

	if (w->wk->setup != S_FRESH && w->wk->setup != S_MANUAL_FRESH)
		return;
	twt_config(w->fd, w->before.info.tick_ns, w->before.info.config_flags);
	take_snap(w->fd, s);
	CHECK_SAME(&w->before, s);
}

static void walk_ops(const char *name, enum setup s, int single,
		     const struct optmpl *t, size_t n, int errs)
{
	struct opsarg a = { .single = single, .n = n, .t = t };
	struct walk wk = {
		.name = name, .prepare = prepare_ops, .call = call_ops,
		.check = check_ops, .after_fail = after_fail_config,
		.errs = errs, .need_failure = 1, .setup = s, .arg = &a,
	};

	CHECK(n <= MAX_OPS);
	walk(&wk);
}

#define OP_ADD(c, e, p, f, clk)						\
	{ .op = { .op = TWHEEL_OP_ADD, .cookie = (c), .expires_ns = (e),\
		  .period_ns = (p), .flags = (f), .clock = (clk) } }
#define OP_ADD_ABS(c, off, clk)						\
	{ .op = { .op = TWHEEL_OP_ADD, .cookie = (c),			\
		  .expires_ns = (off), .flags = TWHEEL_ABSTIME,		\
		  .clock = (clk) }, .abs_now = 1 }
#define OP_MOD(tc, c, e, p, f)						\
	{ .op = { .op = TWHEEL_OP_MODIFY, .cookie = (c), .expires_ns = (e), \
		  .period_ns = (p), .flags = (f) }, .target = (tc) }
#define OP_MOD_ABS(tc, off)						\
	{ .op = { .op = TWHEEL_OP_MODIFY, .expires_ns = (off),		\
		  .flags = TWHEEL_ABSTIME }, .target = (tc), .abs_now = 1 }
#define OP_CANCEL(tc)							\
	{ .op = { .op = TWHEEL_OP_CANCEL }, .target = (tc) }
#define OP_QUERY(tc)							\
	{ .op = { .op = TWHEEL_OP_QUERY }, .target = (tc) }

#define W_BOTH		(W_ENOMEM | W_EFAULT)

/* ADD on the first use of each clock, relative and absolute; the index. */
static void add_walks(void)
{
	static const char *const names[] = {
		"MONOTONIC", "BOOTTIME", "REALTIME", "TAI" };
	static const struct optmpl on_mix[][1] = {
		{ OP_ADD(10, 5 * TWT_S, 0, 0, CLOCK_MONOTONIC) },
		{ OP_ADD(11, TWT_S, 100 * TWT_MS, 0, CLOCK_BOOTTIME) },
		{ OP_ADD_ABS(12, 0, CLOCK_REALTIME) },
	};
	static const char *const mix_names[] = {
		"ADD(one-shot, manual clock)", "ADD(periodic, manual clock)",
		"ADD(due at once, records queued)" };
	struct optmpl t[1];
	char name[96];
	unsigned int k;

	for (k = 0; k < TWT_NCLOCKS; k++) {
		clockid_t c = twt_clock(k);
		struct optmpl rel[1] = { OP_ADD(k + 10, HOUR_NS, 0, 0, c) };
		struct optmpl due[1] = { OP_ADD_ABS(k + 10, -TWT_S, c) };
		struct optmpl later[1] = { OP_ADD_ABS(k + 10, HOUR_NS, c) };

		snprintf(name, sizeof(name), "ADD(rel %s first use)", names[k]);
		walk_ops(name, S_FRESH, 1, rel, 1, W_BOTH);
		snprintf(name, sizeof(name), "ADD(abs due %s first use)",
			 names[k]);
		walk_ops(name, S_FRESH, 1, due, 1, W_BOTH);
		snprintf(name, sizeof(name), "ADD(abs %s first use)", names[k]);
		walk_ops(name, S_FRESH, 1, later, 1, W_BOTH);
		/* The fd has its index and another clock's wheel already. */
		snprintf(name, sizeof(name),
			 "ADD(rel %s first use, fd in use)", names[k]);
		walk_ops(name, c == CLOCK_MONOTONIC ? S_WARM_REAL : S_WARM_MONO,
			 1, rel, 1, W_BOTH);
		snprintf(name, sizeof(name),
			 "ADD(abs due %s first use, fd in use)", names[k]);
		walk_ops(name, c == CLOCK_MONOTONIC ? S_WARM_REAL : S_WARM_MONO,
			 1, due, 1, W_BOTH);
	}
	t[0] = (struct optmpl)OP_ADD(1, TWT_S, 0, 0, CLOCK_TAI);
	walk_ops("ADD(first timer of a manual-clock fd)", S_MANUAL_FRESH, 1, t,
		 1, W_BOTH);
	for (k = 0; k < 3; k++)
		walk_ops(mix_names[k], S_MIX, 1, on_mix[k], 1, W_BOTH);
	t[0] = (struct optmpl)OP_ADD(100000, HOUR_NS, 0, 0, CLOCK_REALTIME);
	walk_ops("ADD(grows the id index by a page)", S_PAGE, 1, t, 1, W_BOTH);
	walk_ops("ADD(grows the id index's page array)", S_PAGES, 1, t, 1,
		 W_BOTH);
}

static void add_fails_cleanly(void)
{
	need_fail_nth();
	add_walks();
	print_total("ADD");
}

static void cancel_fails_cleanly(void)
{
	static const struct optmpl t[][1] = {
		{ OP_CANCEL(1) }, { OP_CANCEL(6) }, { OP_CANCEL(5) },
		{ OP_CANCEL(3) },
	};
	static const char *const names[] = {
		"CANCEL(pending one-shot)", "CANCEL(queued one-shot: retracts)",
		"CANCEL(queued periodic: retracts)",
		"CANCEL(pending periodic)" };
	unsigned int k;

	need_fail_nth();
	for (k = 0; k < 4; k++)
		walk_ops(names[k], S_MIX, 1, t[k], 1, W_EFAULT);
	print_total("CANCEL");
}

static void modify_fails_cleanly(void)
{
	static const struct optmpl t[][1] = {
		{ OP_MOD(1, 13, 10 * TWT_S, 2 * TWT_S, TWHEEL_SET_COOKIE) },
		{ OP_MOD(6, 0, TWT_S, 500 * TWT_MS, 0) },
		{ OP_MOD(3, 0, 7 * TWT_S, 0, 0) },
		{ OP_MOD(5, 14, TWT_S, 400 * TWT_MS, TWHEEL_SET_COOKIE) },
		{ OP_MOD_ABS(6, 0) },
		{ OP_MOD(1, 15, 3 * TWT_S, 0, TWHEEL_SET_COOKIE) },
	};
	static const char *const names[] = {
		"MODIFY(pending one-shot -> periodic, new cookie)",
		"MODIFY(queued one-shot -> periodic: retracts)",
		"MODIFY(pending periodic -> one-shot)",
		"MODIFY(queued periodic -> periodic: retracts)",
		"MODIFY(queued one-shot -> due again: queued last)",
		"MODIFY(pending one-shot -> one-shot, new cookie)" };
	static const int errs[] = { W_BOTH, W_BOTH, W_EFAULT, W_EFAULT,
				    W_EFAULT, W_EFAULT };
	unsigned int k;

	need_fail_nth();
	for (k = 0; k < 6; k++)
		walk_ops(names[k], S_MIX, 1, t[k], 1, errs[k]);
	print_total("MODIFY");
}

static void query_fails_cleanly(void)
{
	static const struct optmpl t[][1] = {
		{ OP_QUERY(5) }, { OP_QUERY(3) }, { OP_QUERY(4) },
		{ OP_QUERY(1) },
	};
	static const char *const names[] = {
		"QUERY(queued periodic, count 3)", "QUERY(pending periodic)",
		"QUERY(queued one-shot)", "QUERY(pending one-shot)" };
	unsigned int k;

	need_fail_nth();
	for (k = 0; k < 4; k++)
		walk_ops(names[k], S_MIX, 1, t[k], 1, W_EFAULT);
	print_total("QUERY");
}

/*
 * Batches that mix every operation, with two that fail alone by design;
 * and one of two chunks (the kernel reads 32 operations at a time), so
 * that a fault can stop it in the middle.
 */
static void submit_fails_cleanly(void)
{
	static const struct optmpl mix[] = {
		OP_ADD(10, 5 * TWT_S, 0, 0, CLOCK_MONOTONIC),
		OP_ADD(11, TWT_S, 100 * TWT_MS, 0, CLOCK_BOOTTIME),
		OP_ADD_ABS(12, 0, CLOCK_REALTIME),
		OP_MOD(1, 13, 10 * TWT_S, 2 * TWT_S, TWHEEL_SET_COOKIE),
		OP_MOD(6, 0, 20 * TWT_S, 0, 0),
		OP_CANCEL(2),
		OP_CANCEL(4),
		OP_QUERY(5),
		OP_QUERY(3),
		{ .op = { .op = TWHEEL_OP_ADD, .cookie = 14, .flags = 0x80,
			  .clock = CLOCK_MONOTONIC }, .xerr = -EINVAL },
		{ .op = { .op = TWHEEL_OP_MODIFY, .id = 0x7777,
			  .period_ns = TWT_S }, .xerr = -ENOENT },
		OP_MOD_ABS(3, -TWT_S),
	};
	static struct optmpl big[40];
	unsigned int k;

	need_fail_nth();
	walk_ops("SUBMIT(12 mixed ops)", S_MIX, 0, mix,
		 sizeof(mix) / sizeof(mix[0]), W_BOTH);
	for (k = 0; k < 30; k++)
		big[k] = (struct optmpl)OP_ADD(1000 + k, (k + 1) * TWT_S,
					       k % 3 ? 0 : 300 * TWT_MS, 0,
					       twt_clock(k % TWT_NCLOCKS));
	big[30] = (struct optmpl)OP_MOD(1, 13, 10 * TWT_S, 2 * TWT_S,
					TWHEEL_SET_COOKIE);
	big[31] = (struct optmpl)OP_CANCEL(6);
	big[32] = (struct optmpl)OP_ADD_ABS(2000, 0, CLOCK_TAI);
	big[33] = (struct optmpl)OP_QUERY(5);
	big[34] = (struct optmpl)OP_MOD(4, 0, 4 * TWT_S, 0, 0);
	big[35] = (struct optmpl)OP_CANCEL(2);
	big[36] = (struct optmpl)OP_ADD(2001, 7 * TWT_S, 0, 0, CLOCK_BOOTTIME);
	big[37] = (struct optmpl)OP_MOD(5, 0, 9 * TWT_S, TWT_S, 0);
	big[38] = (struct optmpl)OP_QUERY(3);
	big[39] = (struct optmpl)OP_CANCEL(3);
	walk_ops("SUBMIT(40 ops, two chunks)", S_MIX, 0, big, 40, W_BOTH);
	print_total("SUBMIT");
}

/* ---- read ------------------------------------------------------------- */

static void prepare_setup(struct wround *w)
{
	w->fd = setup_fd(w->wk->setup, &w->manual);
	memset(w->ev, 0, sizeof(w->ev));
	memset(&w->u, 0, sizeof(w->u));
}

static long call_read(struct wround *w)
{
	size_t want = *(const size_t *)w->wk->arg;
	ssize_t r = read(w->fd, w->ev, want * sizeof(w->ev[0]));

	if (r > 0)
		w->nev = r / sizeof(w->ev[0]);
	return r;
}

/*
 * The records read are the oldest queued; a one-shot timer read is gone,
 * a periodic one pending again at the next point of its grid (its status
 * had that deadline while queued); every other timer is as it was.
 */
static void check_read(struct wround *w, long r)
{
	size_t want = *(const size_t *)w->wk->arg, k, oneshots = 0;
	const struct snap *b = &w->before, *a = &w->after;
	uint32_t i;

	CHECK_EQ(r % TWT_EV_SIZE, 0);
	CHECK_EQ(w->nev, want < b->info.queued ? want : b->info.queued);
	for (k = 0; k < w->nev; k++) {
		const struct twheel_event *e = &w->ev[k];
		const struct twheel_status *sb = snap_find(b, e->cookie);
		const struct twheel_status *sa = snap_find(a, e->cookie);

		CHECK(sb && sb->state == TWHEEL_STATE_QUEUED);
		CHECK_EQ(e->id, sb->id);
		CHECK_EQ(e->count, sb->count);
		CHECK_EQ(e->cookie, w->preq[k]);
		if (!sb->period_ns) {
			CHECK(!sa);
			oneshots++;
			continue;
		}
		CHECK(sa);
		CHECK_EQ(sa->state, TWHEEL_STATE_PENDING);
		CHECK_EQ(sa->deadline_ns, sb->deadline_ns);
		CHECK(sa->deadline_ns > b->now);
		CHECK_EQ(sa->count, 0);
	}
	for (i = 0; i < a->n; i++) {
		const struct twheel_status *sb = snap_find(b, a->st[i].cookie);

		CHECK(sb);
		for (k = 0; k < w->nev; k++)
			if (w->ev[k].cookie == sb->cookie)
				break;
		if (k == w->nev)
			CHECK(!memcmp(sb, &a->st[i], sizeof(*sb)));
	}
	CHECK_EQ(a->n, b->n - oneshots);
	CHECK_EQ(a->info.queued, b->info.queued - w->nev);
}

static void read_fails_cleanly(void)
{
	static const size_t wants[] = { MAX_EV, 2, 65 };
	static const char *const names[] = {
		"read(73 records: 70 one-shot, 2 periodic re-armed)",
		"read(2 of 73 records)",
		"read(65 of 73 records: two copies)" };
	unsigned int k;

	need_fail_nth();
	for (k = 0; k < 3; k++) {
		struct walk wk = {
			.name = names[k], .prepare = prepare_setup,
			.call = call_read, .check = check_read,
			.errs = W_EFAULT, .setup = S_READS, .arg = &wants[k],
		};

		walk(&wk);
	}
	print_total("read");
}

/* ---- ADVANCE ------------------------------------------------------------ */

static long call_advance(struct wround *w)
{
	memset(&w->u, 0, sizeof(w->u));
	w->u.advance.delta_ns = 5 * TWT_S;
	return ioctl(w->fd, TWHEEL_IOC_ADVANCE, &w->u.advance);
}

/*
 * The clock moved by the delta, every timer due by then is queued (the
 * records themselves, in order, are the reference round's).
 */
static void check_advance(struct wround *w, long r)
{
	const struct snap *b = &w->before, *a = &w->after;
	int64_t now = b->now + 5 * TWT_S;
	uint64_t due = b->info.queued;
	uint32_t i;

	CHECK_EQ(r, 0);
	CHECK_EQ(w->u.advance.now_ns, now);
	CHECK_EQ(a->now, now);
	CHECK_EQ(a->n, b->n);
	for (i = 0; i < b->n; i++) {
		const struct twheel_status *sa = snap_find(a, b->st[i].cookie);

		CHECK(sa);
		if (b->st[i].state == TWHEEL_STATE_PENDING &&
		    b->st[i].deadline_ns <= now) {
			due++;
			CHECK_EQ(sa->state, TWHEEL_STATE_QUEUED);
		} else if (b->st[i].state == TWHEEL_STATE_PENDING) {
			CHECK(!memcmp(sa, &b->st[i], sizeof(*sa)));
		}
	}
	CHECK_EQ(a->info.queued, due);
	CHECK(due > 300);
}

static void advance_fails_cleanly(void)
{
	struct walk wk = {
		.name = "ADVANCE(311 timers fall due, 256 a chunk)", .prepare = prepare_setup,
		.call = call_advance, .check = check_advance,
		.errs = W_EFAULT, .need_failure = 1, .setup = S_ADVANCE,
	};

	need_fail_nth();
	walk(&wk);
	print_total("ADVANCE");
}

/* ---- CONFIG, INFO, open ------------------------------------------------- */

static long call_config(struct wround *w)
{
	const struct twheel_config *c = w->wk->arg;

	w->u.config = *c;
	return ioctl(w->fd, TWHEEL_IOC_CONFIG, &w->u.config);
}

static void check_config(struct wround *w, long r)
{
	const struct twheel_config *c = w->wk->arg;
	const struct snap *a = &w->after;

	CHECK_EQ(r, 0);
	CHECK_EQ(a->info.tick_ns, c->tick_ns);
	CHECK_EQ(a->info.config_flags, c->flags);
	CHECK_EQ(a->now, c->flags & TWHEEL_CONFIG_MANUAL ? 0 : -1);
	CHECK_EQ(fdinfo_val(a->fdinfo, "tick_ns"), c->tick_ns);
	CHECK_EQ(a->n, 0);
}

static void config_fails_cleanly(void)
{
	static const struct twheel_config c[] = {
		{ .tick_ns = 250000, .flags = TWHEEL_CONFIG_MANUAL },
		{ .tick_ns = 10 * TWT_MS },
	};
	static const char *const names[] = {
		"CONFIG(250 us, manual clock)", "CONFIG(10 ms tick)" };
	static const enum setup s[] = { S_FRESH, S_MANUAL_FRESH };
	unsigned int k;

	need_fail_nth();
	for (k = 0; k < 2; k++) {
		struct walk wk = {
			.name = names[k], .prepare = prepare_setup,
			.call = call_config, .check = check_config,
			.errs = W_EFAULT, .need_failure = 1, .setup = s[k],
			.arg = &c[k],
		};

		walk(&wk);
	}
	print_total("CONFIG");
}

static long call_info(struct wround *w)
{
	memset(&w->u.info, 0xAA, sizeof(w->u.info));
	return ioctl(w->fd, TWHEEL_IOC_INFO, &w->u.info);
}

static void check_info(struct wround *w, long r)
{
	CHECK_EQ(r, 0);
	CHECK(!memcmp(&w->u.info, &w->before.info, sizeof(w->u.info)));
	CHECK_SAME(&w->before, &w->after);
}

static void prepare_none(struct wround *w)
{
	w->fd = -1;
	w->manual = 0;
}

static long call_open(struct wround *w)
{
	int fd = open(TWT_DEV, O_RDWR | O_NONBLOCK);

	if (fd >= 0)
		w->fd = fd;
	return fd;
}

/* A new, empty fd with the defaults; one more open fd, one more ref. */
static void check_open(struct wround *w, long r)
{
	const struct snap *a = &w->after;
	long long max = twt_sysfs_read("/sys/module/twheel/parameters/max_timers");

	CHECK_EQ(r, w->fd);
	CHECK_EQ(a->fd, w->fd);
	CHECK_EQ(a->nfds, w->before.nfds + 1);
	if (w->before.refcnt >= 0)
		CHECK_EQ(a->refcnt, w->before.refcnt + 1);
	CHECK_EQ(a->info.version, TWHEEL_ABI_VERSION);
	CHECK_EQ(a->info.tick_ns, TWHEEL_DEFAULT_TICK_NS);
	CHECK_EQ(a->info.timers, 0);
	CHECK_EQ(a->info.queued, 0);
	CHECK_EQ(a->info.config_flags, 0);
	if (max > 0)
		CHECK_EQ(a->info.max_timers, max);
	CHECK_EQ(fdinfo_val(a->fdinfo, "index_bytes"), 0);
	CHECK(!strstr(a->fdinfo, "next_expiry"));
	CHECK(!strstr(a->fdinfo, "manual_now_ns"));
	/* And it works. */
	twt_cancel(w->fd, twt_add(w->fd, 1, HOUR_NS, 0, CLOCK_MONOTONIC));
}

static void info_open_fail_cleanly(void)
{
	struct walk info = {
		.name = "INFO(fd with pending and queued timers)",
		.prepare = prepare_setup, .call = call_info,
		.check = check_info, .errs = W_EFAULT, .need_failure = 1,
		.setup = S_MIX,
	};
	struct walk op = {
		.name = "open(/dev/twheel)", .prepare = prepare_none,
		.call = call_open, .check = check_open,
		.errs = W_ENOMEM | W_EFAULT, .need_failure = 1,
	};

	need_fail_nth();
	walk(&info);
	walk(&op);
	print_total("INFO, open");
}

/* ---- LIST ----------------------------------------------------------- */

struct listarg {
	uint32_t first;		/* a first call of this capacity (0: none) */
	uint32_t capacity;	/* the call walked */
};

static void prepare_list(struct wround *w)
{
	const struct listarg *a = w->wk->arg;
	struct twheel_list l;

	prepare_setup(w);
	memset(w->lst, 0, sizeof(w->lst));
	memset(&l, 0, sizeof(l));
	w->seen = 0;
	if (a->first) {
		/* A listing already under way: the cursor is in the middle. */
		l.statuses = (uint64_t)(uintptr_t)w->first;
		l.capacity = a->first;
		l.status_size = sizeof(w->first[0]);
		CHECK_OK(ioctl(w->fd, TWHEEL_IOC_LIST, &l));
		CHECK(l.cursor != 0);
		w->seen = l.count;
	}
	l.statuses = (uint64_t)(uintptr_t)w->lst;
	l.capacity = a->capacity;
	l.count = 0;
	l.status_size = sizeof(w->lst[0]);
	w->u.list = l;
	w->usent = w->u;
}

static long call_list(struct wround *w)
{
	return ioctl(w->fd, TWHEEL_IOC_LIST, &w->u.list);
}

/*
 * "If the array cannot be written, EFAULT: repeat the call with the same
 * cursor": the caller's struct still has it.
 */
static void after_fail_list(struct wround *w)
{
	CHECK_EQ(w->u.list.cursor, w->usent.list.cursor);
	CHECK_EQ(w->u.list.statuses, w->usent.list.statuses);
}

static int cmp_status_id(const void *x, const void *y)
{
	const struct twheel_status *a = x, *b = y;

	return (a->id > b->id) - (a->id < b->id);
}

/*
 * The listing (the entries before the call, the call's, then the rest from
 * the cursor it returned) reports every timer exactly once, as it is.
 */
static void check_list(struct wround *w, long r)
{
	static struct twheel_status all[MAX_TIMERS], ref[MAX_TIMERS];
	const struct snap *b = &w->before;
	struct twheel_list l = w->u.list;
	uint32_t n = 0, k;

	CHECK_EQ(r, 0);
	CHECK(l.count <= l.capacity);
	CHECK_SAME(&w->before, &w->after);
	memcpy(all, w->first, w->seen * sizeof(all[0]));
	n = w->seen;
	CHECK(n + l.count <= MAX_TIMERS);
	memcpy(all + n, w->lst, l.count * sizeof(all[0]));
	n += l.count;
	while (l.cursor) {
		CHECK(n < MAX_TIMERS);
		l.statuses = (uint64_t)(uintptr_t)(all + n);
		l.capacity = MAX_TIMERS - n;
		CHECK_OK(ioctl(w->fd, TWHEEL_IOC_LIST, &l));
		n += l.count;
	}
	CHECK_EQ(n, b->n);
	for (k = 0; k < n; k++)
		all[k].remaining_ns = 0;
	memcpy(ref, b->st, n * sizeof(ref[0]));
	qsort(all, n, sizeof(all[0]), cmp_status_id);
	qsort(ref, n, sizeof(ref[0]), cmp_status_id);
	for (k = 0; k < n; k++)
		if (memcmp(&all[k], &ref[k], sizeof(all[k]))) {
			print_status("listed", &all[k]);
			print_status("fd has", &ref[k]);
			twt_fail(__FILE__, __LINE__, "listing entry %u", k);
		}
}

static void list_fails_cleanly(void)
{
	static const struct listarg a[] = {
		{ .first = 0, .capacity = 5 },
		{ .first = 10, .capacity = 100 },
		{ .first = 10, .capacity = 5 },
	};
	static const char *const names[] = {
		"LIST(from the start, 5 of 151)",
		"LIST(cursor in the middle, 100: two chunks)",
		"LIST(cursor in the middle, 5)" };
	unsigned int k;

	need_fail_nth();
	for (k = 0; k < 3; k++) {
		struct walk wk = {
			.name = names[k], .prepare = prepare_list,
			.call = call_list, .check = check_list,
			.after_fail = after_fail_list, .errs = W_BOTH,
			.need_failure = 1, .setup = S_MANY, .arg = &a[k],
		};

		walk(&wk);
	}
	print_total("LIST");
}

TWT_MAIN("faults",
	 TWT_CASE_T(add_fails_cleanly, 900),
	 TWT_CASE_T(cancel_fails_cleanly, 300),
	 TWT_CASE_T(read_fails_cleanly, 300),
	 TWT_CASE_T(modify_fails_cleanly, 300),
	 TWT_CASE_T(query_fails_cleanly, 300),
	 TWT_CASE_T(submit_fails_cleanly, 600),
	 TWT_CASE_T(advance_fails_cleanly, 300),
	 TWT_CASE_T(config_fails_cleanly, 300),
	 TWT_CASE_T(list_fails_cleanly, 300),
	 TWT_CASE_T(info_open_fail_cleanly, 300))
