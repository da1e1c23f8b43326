/* SPDX-License-Identifier: GPL-2.0 */
/*
 * faults.h - the fault walk: fault injection on every allocation and user
 * copy of every call, for the programs faults*.c.
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
 * statuses and the queue of records: faults_ops.h), and against a clean
 * reference round for the others. Leaks are kmemleak's to find: the VM
 * harness scans at the end. Each walk prints "# fault walk NAME: N faults
 * injected (...)" and runs in a child of its case, so one failing walk
 * hides no other.
 *
 * Every fault-injectable call in the system call counts, also those of the
 * VFS (open's path copy: EFAULT) and of kmemleak (its own metadata: the
 * call succeeds, counted "absorbed").
 *
 * Kernels without fault injection (Debian's) have no fail-nth file: the
 * cases report themselves skipped there.
 */
#ifndef FAULTS_H
#define FAULTS_H

#include "faults_snap.h"

#define FAIL_NTH	"/proc/thread-self/fail-nth"
#define HOUR_NS		(3600 * TWT_S)
/* More injectable calls than this in one call: the walk never ends. */
#define WALK_MAX	2000
#define MAX_OPS		48
#define MAX_EV		1024

/* ---- fail-nth ---------------------------------------------------------- */

static int fail_nth_fd = -1;

static inline void debugfs_set(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY);

	CHECK_OK(fd);
	CHECK_EQ(write(fd, val, strlen(val)), (ssize_t)strlen(val));
	close(fd);
}

static inline void need_fail_nth(void)
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
static inline void fi_arm(int nth)
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
static inline int fi_injected(void)
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
static inline void fi_disarm(void)
{
	if (pwrite(fail_nth_fd, "0", 1, 0) != 1)
		CHECK_EQ(errno, EFAULT);
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

static inline int page_ids(void)
{
	return (int)(sysconf(_SC_PAGESIZE) / sizeof(uint64_t));
}

/* Add n timers in batches: cookies c0.., deadlines first + i * step. */
static inline void add_many(int fd, uint64_t c0, int n, int64_t first, int64_t step,
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
static inline int setup_fd(enum setup s, int *manual)
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

#define W_BOTH		(W_ENOMEM | W_EFAULT)

struct tally {
	int walks, injected, failed, nomem, efault, partial, opfail, absorbed;
};

static struct wround round_;
static struct twheel_event ref_ev[MAX_EV], drain_ev[MAX_EV];
static size_t nref;

static inline int clk_index(uint32_t clock)
{
	unsigned int k;

	for (k = 0; k < TWT_NCLOCKS; k++)
		if ((uint32_t)twt_clock(k) == clock)
			return k;
	twt_fail(__FILE__, __LINE__, "clock %u", clock);
}

static inline void read_clocks(int64_t *t)
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
static inline void round_records(struct wround *w, int reference)
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
static inline int walk_round(struct wround *w, int nth, struct tally *t)
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
static inline void walk_faults(const struct walk *wk, struct tally *sum)
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

static inline void walk(const struct walk *wk)
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

static inline void print_total(const char *what)
{
	printf("# fault walks %s: %d calls walked clean, %d faults injected: %d failed the call (%d ENOMEM, %d EFAULT), %d partial batches, %d failed one operation, %d absorbed\n",
	       what, total->walks, total->injected, total->failed,
	       total->nomem, total->efault, total->partial, total->opfail,
	       total->absorbed);
	if (walks_failed)
		twt_fail(__FILE__, __LINE__, "%d fault walks failed",
			 walks_failed);
}

/* ---- the prepare of a walk that needs only its situation ------------- */

static inline void prepare_setup(struct wround *w)
{
	w->fd = setup_fd(w->wk->setup, &w->manual);
	memset(w->ev, 0, sizeof(w->ev));
	memset(&w->u, 0, sizeof(w->u));
}

#endif /* FAULTS_H */
