// SPDX-License-Identifier: GPL-2.0
/*
 * twheel-orders - the case /dev/twheel was made for, as `make demo` shows
 * it: every order of a shop gets a payment deadline; most orders are paid
 * in time (their timer is cancelled), the others expire (their record is
 * read). Every order must end exactly once: paid XOR expired.
 *
 *   twheel-orders live [--orders N] [--paid PCT] [--cgroup]
 *	N orders (default 100000) with deadlines spread uniformly over 2 to
 *	5 s from now, scheduled in TWHEEL_IOC_SUBMIT batches; PCT percent
 *	(default 80) are paid at a random moment before their deadline,
 *	cancelled in SUBMIT batches as the payments come in. A progress line
 *	while it runs, then: scheduled, paid, expired, early, lost, the
 *	lateness of the expiries and the kernel memory the timers took.
 *	--cgroup moves the process into a memory cgroup of its own first
 *	(/sys/fs/cgroup/twheel-orders, cgroup v2), so that the memory the
 *	timers were charged is measured exactly; meant for the demo VM.
 *	Exit status 1 if an order expired early or did not end exactly once.
 *
 *   twheel-orders manual [--orders N] [--paid PCT]
 *	The same rule, unit-tested on a manual clock (TWHEEL_CONFIG_MANUAL,
 *	tick 1 ms): N orders (default 10000) with a 30-minute deadline, PCT
 *	percent (default 70) paid; advancing the clock by 29m59.999s expires
 *	none, 1 ms more expires exactly the unpaid ones, in the order they
 *	were placed. Half an hour in milliseconds of wall time; any other
 *	outcome is exit status 1.
 *
 *   twheel-orders sessions [--orders N]
 *	Checkout sessions with an idle timeout, on a manual clock with a
 *	shared timer table (TWHEEL_CONFIG_TABLE): N sessions (default
 *	10000) open at 0 with a 15-minute idle timeout; for 30 minutes,
 *	minute by minute, each active session pushes its deadline back by
 *	one store into the table (twheel_table_push_ns(), no system call),
 *	and about a third of them check out, cancelling their timer by a
 *	store. Advanced to 45 minutes, exactly the sessions not checked out
 *	expire, each at its last activity plus 15 minutes, and no timer is
 *	left. It counts the system calls it made, and how many went to the
 *	activity: none. Any other outcome is exit status 1.
 */
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "libtwheel.h"

enum { OPEN, PAID, EXPIRED };

struct order {
	int64_t deadline;	/* CLOCK_MONOTONIC, absolute */
	uint64_t id;		/* its timer */
	uint8_t state;
	uint8_t outcomes;	/* must end as 1 */
};

struct payment {
	int64_t at;
	uint32_t order;
};

static uint64_t rnd_state = 0x2545F4914F6CDD1DULL;

static uint64_t rnd(void)
{
	uint64_t x = rnd_state;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	rnd_state = x;
	return x * 0x2545F4914F6CDD1DULL;
}

/* Uniform in [lo, hi). */
static int64_t rnd_range(int64_t lo, int64_t hi)
{
	return lo + (int64_t)(rnd() % (uint64_t)(hi - lo));
}

static int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * TWHEEL_SEC + ts.tv_nsec;
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

static int cmp_payment(const void *a, const void *b)
{
	const struct payment *x = a, *y = b;

	return (x->at > y->at) - (x->at < y->at);
}

/* ---- memory: measured three ways, each said for what it is */

#define CG_ROOT	"/sys/fs/cgroup"
#define CG	CG_ROOT "/twheel-orders"
#define SLAB	"/sys/kernel/slab/twheel_timer"

struct mem {
	long long cg_slab;	/* memory cgroup slab bytes, -1: none */
	long long objects;	/* twheel_timer slab objects, -1: none */
	long long slab_kb, avail_kb;	/* /proc/meminfo */
};

static long long read_ll(const char *path)
{
	long long v = -1;
	FILE *f = fopen(path, "r");

	if (f) {
		if (fscanf(f, "%lld", &v) != 1)
			v = -1;
		fclose(f);
	}
	return v;
}

static int write_str(const char *path, const char *s)
{
	FILE *f = fopen(path, "w");
	int ret;

	if (!f)
		return -1;
	ret = fputs(s, f) < 0 ? -1 : 0;
	if (fclose(f))
		ret = -1;
	return ret;
}

/* Into a memory cgroup of our own; false (and why) if there is none. */
static bool enter_cgroup(void)
{
	char pid[32];

	mkdir(CG_ROOT, 0755);
	if (access(CG_ROOT "/cgroup.controllers", F_OK) &&
	    mount("none", CG_ROOT, "cgroup2", 0, NULL) && errno != EBUSY) {
		warn("mounting cgroup2 on " CG_ROOT);
		return false;
	}
	if (write_str(CG_ROOT "/cgroup.subtree_control", "+memory") ||
	    (mkdir(CG, 0755) && errno != EEXIST)) {
		warn("a memory cgroup under " CG_ROOT);
		return false;
	}
	snprintf(pid, sizeof(pid), "%d", getpid());
	if (write_str(CG "/cgroup.procs", pid)) {
		warn("joining " CG);
		return false;
	}
	return true;
}

static long long cg_slab(void)
{
	long long v, sum = 0;
	char line[256];
	int found = 0;
	FILE *f = fopen(CG "/memory.stat", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "slab_reclaimable %lld", &v) == 1 ||
		    sscanf(line, "slab_unreclaimable %lld", &v) == 1) {
			sum += v;
			found++;
		}
	}
	fclose(f);
	return found == 2 ? sum : -1;
}

static void meminfo(long long *slab_kb, long long *avail_kb)
{
	char line[256];
	FILE *f = fopen("/proc/meminfo", "r");

	*slab_kb = *avail_kb = -1;
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		sscanf(line, "Slab: %lld kB", slab_kb);
		sscanf(line, "MemAvailable: %lld kB", avail_kb);
	}
	fclose(f);
}

static void mem_sample(struct mem *m, bool cgroup)
{
	m->cg_slab = cgroup ? cg_slab() : -1;
	m->objects = read_ll(SLAB "/objects");
	meminfo(&m->slab_kb, &m->avail_kb);
}

static void mem_report(const struct mem *a, const struct mem *b, long n)
{
	long long slab_size = read_ll(SLAB "/slab_size");
	const double mib = 1024.0 * 1024.0;

	printf("kernel memory for %ld timers, measured around their scheduling:\n", n);
	if (a->cg_slab >= 0 && b->cg_slab >= 0)
		printf("  memory cgroup of this process (slab charged): %.2f MiB, %.1f bytes per timer (everything: timers, id index, wheel)\n",
		       (b->cg_slab - a->cg_slab) / mib,
		       (double)(b->cg_slab - a->cg_slab) / n);
	else
		printf("  memory cgroup: not measured (run with --cgroup, as root, with cgroup v2)\n");
	if (a->objects >= 0 && b->objects >= 0 && slab_size > 0)
		printf("  slab cache twheel_timer: %+lld objects (as SLUB counts them) x %lld bytes = %.2f MiB (the timer objects alone)\n",
		       b->objects - a->objects, slab_size,
		       (b->objects - a->objects) * slab_size / mib);
	else
		printf("  slab cache twheel_timer: " SLAB " not available\n");
	if (a->slab_kb >= 0 && b->slab_kb >= 0)
		printf("  /proc/meminfo, whole system (approximate): Slab %+.2f MiB, MemAvailable %+.2f MiB\n",
		       (b->slab_kb - a->slab_kb) / 1024.0,
		       (b->avail_kb - a->avail_kb) / 1024.0);
}

/* ---- live: 100 000 orders on the real clock */

#define BATCH		TWHEEL_MAX_BATCH
#define PROGRESS_NS	(250 * TWHEEL_MSEC)
#define GIVE_UP_NS	(60 * TWHEEL_SEC)

struct live {
	int fd;
	long n;
	struct order *o;
	long paid, retracted, expired, refused, early, twice;
	long submits;
	int64_t *late;
	long nlate;
};

static void progress(const struct live *l, int64_t t0, bool last)
{
	printf("\rt=%.1fs scheduled=%ld paid=%ld expired=%ld   %s",
	       (now_ns() - t0) / 1e9, l->n, l->paid, l->expired,
	       last ? "\n" : "");
	fflush(stdout);
}

/* Payments came in for orders @which[]: cancel their timers in one batch. */
static void pay_batch(struct live *l, struct twheel_op *ops,
		      const uint32_t *which, unsigned int nr)
{
	int done = twheel_submit(l->fd, ops, nr);

	l->submits++;
	if (done != (int)nr)
		err(1, "TWHEEL_IOC_SUBMIT (cancel): %d of %u done", done, nr);
	for (unsigned int i = 0; i < nr; i++) {
		struct order *o = &l->o[which[i]];

		if (ops[i].error == -ENOENT && o->state == EXPIRED) {
			/*
			 * Its expiry was read first: the payment came in (or
			 * was processed) too late. The order stays expired.
			 */
			l->refused++;
			continue;
		}
		if (ops[i].error)
			errx(1, "cancel of order %u (state %u): %s",
			     which[i], o->state,
			     strerror(-ops[i].error));
		/* Queued: it had expired, unread; the record is retracted. */
		l->retracted += ops[i].result == TWHEEL_STATE_QUEUED;
		if (o->state != OPEN)
			l->twice++;
		o->state = PAID;
		o->outcomes++;
		l->paid++;
	}
}

static void read_expiries(struct live *l)
{
	struct twheel_event ev[256];

	for (;;) {
		ssize_t n = twheel_read(l->fd, ev, 256);
		int64_t read_ns = now_ns();

		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN)
				return;
			err(1, "read /dev/twheel");
		}
		for (ssize_t i = 0; i < n; i++) {
			struct order *o;

			if (ev[i].cookie >= (uint64_t)l->n ||
			    l->o[ev[i].cookie].id != ev[i].id)
				errx(1, "a record of an unknown timer %llu",
				     (unsigned long long)ev[i].id);
			o = &l->o[ev[i].cookie];
			if (o->state != OPEN)
				l->twice++;
			if (read_ns < o->deadline || ev[i].time_ns < o->deadline)
				l->early++;
			l->late[l->nlate++] = read_ns - o->deadline;
			o->state = EXPIRED;
			o->outcomes++;
			l->expired++;
		}
	}
}

static int live(long n, int paid_pct, bool cgroup)
{
	struct live l = { .n = n };
	struct twheel_op *ops;
	struct payment *pay;
	uint32_t *which;
	struct mem m0, m1;
	long npay = 0, next = 0, lost = 0, i;
	int64_t t0, t_sched, last_deadline = 0, next_progress;
	struct twheel_info info;
	unsigned int nops;

	if (cgroup)
		cgroup = enter_cgroup();
	l.o = calloc(n, sizeof(*l.o));
	pay = calloc(n, sizeof(*pay));
	l.late = calloc(n, sizeof(*l.late));
	ops = calloc(BATCH, sizeof(*ops));
	which = calloc(BATCH, sizeof(*which));
	if (!l.o || !pay || !l.late || !ops || !which)
		err(1, "calloc");
	l.fd = twheel_open(O_NONBLOCK | O_CLOEXEC);
	if (l.fd < 0)
		err(1, "/dev/twheel (is the module loaded?)");
	if (twheel_info(l.fd, &info) < 0)
		err(1, "TWHEEL_IOC_INFO");
	if ((uint64_t)n > info.max_timers)
		errx(1, "%ld orders, but an fd holds at most %llu timers", n,
		     (unsigned long long)info.max_timers);

	/* The orders, their deadlines and their payments. */
	t0 = now_ns();
	for (i = 0; i < n; i++) {
		struct order *o = &l.o[i];

		o->deadline = t0 + rnd_range(2 * TWHEEL_SEC, 5 * TWHEEL_SEC);
		if (o->deadline > last_deadline)
			last_deadline = o->deadline;
		if ((int)(rnd() % 100) < paid_pct) {
			pay[npay].at = rnd_range(t0 + 100 * TWHEEL_MSEC,
						 o->deadline);
			pay[npay++].order = i;
		}
	}
	qsort(pay, npay, sizeof(*pay), cmp_payment);

	/* Schedule them all, BATCH adds per ioctl. */
	printf("%ld orders, payment deadlines 2 to 5 s from now, %d%% paid before it\n",
	       n, paid_pct);
	mem_sample(&m0, cgroup);
	for (i = 0; i < n; i += nops) {
		nops = n - i < BATCH ? n - i : BATCH;
		for (unsigned int k = 0; k < nops; k++) {
			ops[k] = (struct twheel_op){
				.op = TWHEEL_OP_ADD,
				.flags = TWHEEL_ABSTIME,
				.cookie = i + k,
				.expires_ns = l.o[i + k].deadline,
				.clock = CLOCK_MONOTONIC,
			};
		}
		if (twheel_submit(l.fd, ops, nops) != (int)nops)
			err(1, "TWHEEL_IOC_SUBMIT (add)");
		l.submits++;
		for (unsigned int k = 0; k < nops; k++) {
			if (ops[k].error)
				errx(1, "adding order %ld: %s", i + k,
				     strerror(-ops[k].error));
			l.o[i + k].id = ops[k].id;
		}
	}
	t_sched = now_ns();
	mem_sample(&m1, cgroup);
	printf("scheduled %ld timers in %ld TWHEEL_IOC_SUBMIT calls in %.0f ms (%.2f us per timer)\n",
	       n, l.submits, (t_sched - t0) / 1e6, (t_sched - t0) / 1e3 / n);

	/* Payments come in; expiries are read; until every order ended. */
	next_progress = now_ns();
	for (;;) {
		int64_t now = now_ns(), wake;
		struct pollfd p = { .fd = l.fd, .events = POLLIN };

		nops = 0;
		while (next < npay && pay[next].at <= now) {
			which[nops] = pay[next].order;
			ops[nops++] = (struct twheel_op){
				.op = TWHEEL_OP_CANCEL,
				.id = l.o[pay[next].order].id,
			};
			next++;
			if (nops == BATCH) {
				pay_batch(&l, ops, which, nops);
				nops = 0;
			}
		}
		if (nops)
			pay_batch(&l, ops, which, nops);
		read_expiries(&l);
		now = now_ns();
		if (now >= next_progress) {
			progress(&l, t0, false);
			next_progress = now + PROGRESS_NS;
		}
		if (next == npay && l.paid + l.expired >= n)
			break;
		if (now > last_deadline + GIVE_UP_NS) {
			printf("\ngave up %.0f s after the last deadline\n",
			       GIVE_UP_NS / 1e9);
			break;
		}
		wake = next_progress;
		if (next < npay && pay[next].at < wake)
			wake = pay[next].at;
		wake = wake > now ? (wake - now + TWHEEL_MSEC - 1) / TWHEEL_MSEC : 0;
		if (poll(&p, 1, (int)wake) < 0 && errno != EINTR)
			err(1, "poll");
	}
	progress(&l, t0, true);

	for (i = 0; i < n; i++)
		lost += l.o[i].outcomes != 1;
	if (twheel_info(l.fd, &info) < 0)
		err(1, "TWHEEL_IOC_INFO");
	printf("scheduled=%ld\n", n);
	printf("paid=%ld (cancelled in time; %ld of them after the deadline had passed but before its record was read: retracted)\n",
	       l.paid, l.retracted);
	printf("expired=%ld (%ld payments arrived after the expiry had been read: refused)\n",
	       l.expired, l.refused);
	printf("early=%ld (expiries read or queued before the deadline)\n",
	       l.early);
	printf("lost=%ld (orders that did not end exactly once, paid XOR expired)\n",
	       lost);
	if (l.nlate) {
		qsort(l.late, l.nlate, sizeof(*l.late), cmp_i64);
		printf("lateness (read time minus deadline, CLOCK_MONOTONIC): p50 %.3f ms, p99 %.3f ms, max %.3f ms\n",
		       l.late[l.nlate / 2] / 1e6,
		       l.late[l.nlate * 99 / 100] / 1e6,
		       l.late[l.nlate - 1] / 1e6);
	}
	printf("timers left on the fd: %llu, records queued: %llu\n",
	       (unsigned long long)info.timers,
	       (unsigned long long)info.queued);
	mem_report(&m0, &m1, n);
	close(l.fd);
	if (l.early || lost || l.twice || info.timers || info.queued) {
		printf("orders: FAILED\n");
		return 1;
	}
	printf("orders: passed\n");
	return 0;
}

/* ---- manual: the same rule on a manual clock, exactly */

#define MIN_NS		(60 * TWHEEL_SEC)
#define DEADLINE_NS	(30 * MIN_NS)

/* Submit the cancels of @ops[0..*@nr); the number not cancelled while pending. */
static long manual_cancel(int fd, struct twheel_op *ops, unsigned int *nr)
{
	long bad = 0;

	if (!*nr)
		return 0;
	if (twheel_submit(fd, ops, *nr) != (int)*nr)
		err(1, "TWHEEL_IOC_SUBMIT (cancel)");
	for (unsigned int j = 0; j < *nr; j++)
		if (ops[j].error || ops[j].result != TWHEEL_STATE_PENDING)
			bad++;
	*nr = 0;
	return bad;
}

static int manual(long n, int paid_pct)
{
	struct twheel_config cfg = {
		.tick_ns = TWHEEL_MSEC,
		.flags = TWHEEL_CONFIG_MANUAL,
	};
	struct twheel_op *ops = calloc(BATCH, sizeof(*ops));
	struct twheel_event *ev = calloc(n + 1, sizeof(*ev));
	struct order *o = calloc(n, sizeof(*o));
	long i, unpaid = 0, got, k, bad = 0;
	struct twheel_info info;
	unsigned int nops;
	int64_t w0, w1, now;
	ssize_t r;
	int fd;

	if (!ops || !ev || !o)
		err(1, "calloc");
	w0 = now_ns();
	fd = twheel_open(O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		err(1, "/dev/twheel (is the module loaded?)");
	if (twheel_config(fd, &cfg) < 0)
		err(1, "TWHEEL_IOC_CONFIG");

	/* N orders at manual time 0, each due in 30 minutes. */
	for (i = 0; i < n; i += nops) {
		nops = n - i < BATCH ? n - i : BATCH;
		for (unsigned int j = 0; j < nops; j++)
			ops[j] = (struct twheel_op){
				.op = TWHEEL_OP_ADD,
				.cookie = i + j,
				.expires_ns = DEADLINE_NS,
				.clock = CLOCK_MONOTONIC,
			};
		if (twheel_submit(fd, ops, nops) != (int)nops)
			err(1, "TWHEEL_IOC_SUBMIT (add)");
		for (unsigned int j = 0; j < nops; j++) {
			if (ops[j].error)
				errx(1, "adding order %ld: %s", i + j,
				     strerror(-ops[j].error));
			o[i + j].id = ops[j].id;
		}
	}
	/* Some are paid: cancelled while pending. */
	nops = 0;
	for (i = 0; i < n; i++) {
		if ((int)(rnd() % 100) >= paid_pct) {
			unpaid++;
			continue;
		}
		o[i].state = PAID;
		ops[nops++] = (struct twheel_op){ .op = TWHEEL_OP_CANCEL,
						  .id = o[i].id };
		if (nops == BATCH)
			bad += manual_cancel(fd, ops, &nops);
	}
	bad += manual_cancel(fd, ops, &nops);
	printf("manual clock, tick 1 ms: %ld orders placed at 0 with a 30-minute deadline, %ld paid (cancelled: %s)\n",
	       n, n - unpaid, bad ? "ERRORS" : "each was pending");

	/* A millisecond before the deadline: nothing. */
	if (twheel_advance(fd, DEADLINE_NS - TWHEEL_MSEC, &now) < 0)
		err(1, "TWHEEL_IOC_ADVANCE");
	r = twheel_read(fd, ev, n + 1);
	got = r < 0 && errno == EAGAIN ? 0 : r < 0 ? -1 : r;
	printf("advance 29m59.999s: clock %lld.%09lld s, expired %ld (want 0)\n",
	       (long long)(now / TWHEEL_SEC), (long long)(now % TWHEEL_SEC),
	       got);
	if (now != DEADLINE_NS - TWHEEL_MSEC || got != 0)
		bad++;

	/* The deadline: exactly the unpaid orders, in the order placed. */
	if (twheel_advance(fd, TWHEEL_MSEC, &now) < 0)
		err(1, "TWHEEL_IOC_ADVANCE");
	got = 0;
	while ((r = twheel_read(fd, ev + got, n + 1 - got)) > 0)
		got += r;
	if (r < 0 && errno != EAGAIN)
		err(1, "read /dev/twheel");
	k = 0;
	for (i = 0; i < n; i++) {
		if (o[i].state == PAID)
			continue;
		if (k >= got || ev[k].cookie != (uint64_t)i ||
		    ev[k].id != o[i].id || ev[k].count != 1 ||
		    ev[k].time_ns != DEADLINE_NS ||
		    ev[k].clock != CLOCK_MONOTONIC) {
			if (bad++ < 5)
				printf("error: record %ld is not order %ld's expiry\n",
				       k, i);
		}
		k++;
	}
	if (twheel_info(fd, &info) < 0)
		err(1, "TWHEEL_IOC_INFO");
	w1 = now_ns();
	printf("advance 1ms: clock %lld.%09lld s, expired %ld (want %ld: the unpaid orders, in the order placed)%s\n",
	       (long long)(now / TWHEEL_SEC), (long long)(now % TWHEEL_SEC),
	       got, unpaid, got == unpaid && !bad ? ", each at exactly 1800 s" : "");
	printf("timers left: %llu\n", (unsigned long long)info.timers);
	if (now != DEADLINE_NS || got != unpaid || info.timers || info.queued)
		bad++;
	printf("30 minutes of order deadlines checked in %.1f ms of wall time\n",
	       (w1 - w0) / 1e6);
	close(fd);
	printf("manual: %s\n", bad ? "FAILED" : "passed");
	return bad ? 1 : 0;
}

/* ---- sessions: idle timeouts pushed back by a store (the table) */

#define IDLE_NS		(15 * MIN_NS)
#define ACTIVE_MIN	30	/* minutes with activity */
#define END_MIN		(ACTIVE_MIN + 15)

struct session {
	uint64_t id;		/* its timer */
	int64_t tick;		/* the deadline tick last stored */
	uint8_t last;		/* its last minute of activity (0: none) */
	bool checkout;		/* at minute @last it checks out */
	uint8_t records;	/* must end as 0 if checked out, else 1 */
};

/* Is @ev the expiry of an idle session: 15 minutes after its last activity? */
static bool session_idle(struct session *s, long n,
			 const struct twheel_table *t,
			 const struct twheel_event *ev)
{
	struct session *x;

	if (ev->cookie >= (uint64_t)n)
		return false;
	x = &s[ev->cookie];
	if (x->checkout || x->records++ || ev->id != x->id)
		return false;
	return twheel_table_expired(t, ev, x->tick) &&
	       ev->time_ns == (int64_t)x->last * MIN_NS + IDLE_NS;
}

static int sessions(long n)
{
	struct twheel_config cfg = {
		.tick_ns = TWHEEL_MSEC,
		.flags = TWHEEL_CONFIG_MANUAL | TWHEEL_CONFIG_TABLE,
	};
	struct twheel_op *ops = calloc(BATCH, sizeof(*ops));
	struct twheel_event *ev = calloc(BATCH, sizeof(*ev));
	struct session *s = calloc(n, sizeof(*s));
	long i, calls = 0, act_calls, stores = 0, pushes = 0, outs = 0;
	long expired = 0, want = 0, bad = 0, before;
	struct twheel_table t;
	struct twheel_info info;
	unsigned int nops;
	int64_t now;
	ssize_t r;
	int fd, m;

	if (!ops || !ev || !s)
		err(1, "calloc");
	fd = twheel_open(O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		err(1, "/dev/twheel (is the module loaded?)");
	calls += 2;	/* open's handshake is an INFO */
	if (twheel_config(fd, &cfg) < 0)
		err(1, "TWHEEL_IOC_CONFIG (a module without the shared timer table?)");
	calls++;
	if (twheel_table_map(fd, &t) < 0)
		err(1, "twheel_table_map");
	calls += 2;	/* INFO and mmap */

	/* N sessions open at manual time 0, each idle for 15 minutes. */
	for (i = 0; i < n; i += nops) {
		nops = n - i < BATCH ? n - i : BATCH;
		for (unsigned int j = 0; j < nops; j++)
			ops[j] = (struct twheel_op){
				.op = TWHEEL_OP_ADD,
				.cookie = i + j,
				.expires_ns = IDLE_NS,
				.clock = CLOCK_MONOTONIC,
			};
		calls++;
		if (twheel_submit(fd, ops, nops) != (int)nops)
			err(1, "TWHEEL_IOC_SUBMIT (add)");
		for (unsigned int j = 0; j < nops; j++) {
			if (ops[j].error)
				errx(1, "opening session %ld: %s", i + j,
				     strerror(-ops[j].error));
			s[i + j].id = ops[j].id;
			s[i + j].tick = twheel_table_tick(&t, IDLE_NS);
		}
	}
	for (i = 0; i < n; i++) {
		s[i].last = rnd() % (ACTIVE_MIN + 1);
		s[i].checkout = s[i].last && rnd() % 3 == 0;
		want += !s[i].checkout;
	}
	printf("manual clock, tick 1 ms, shared timer table (%zu KiB mapped, pages backed as used): %ld checkout sessions opened at 0, idle timeout 15 min\n",
	       t.size / 1024, n);

	/* Minute by minute: the clock, the records, then the activity. */
	act_calls = 0;
	for (m = 1; m <= END_MIN; m++) {
		calls++;
		if (twheel_advance(fd, MIN_NS, &now) < 0)
			err(1, "TWHEEL_IOC_ADVANCE");
		for (;;) {
			calls++;
			r = twheel_read(fd, ev, BATCH);
			if (r < 0 && errno == EAGAIN)
				break;
			if (r < 0)
				err(1, "read /dev/twheel");
			for (ssize_t k = 0; k < r; k++) {
				expired++;
				if (!session_idle(s, n, &t, &ev[k]) &&
				    bad++ < 5)
					printf("error: record of session %llu at %lld ns is not its idle timeout\n",
					       (unsigned long long)ev[k].cookie,
					       (long long)ev[k].time_ns);
			}
		}
		if (m > ACTIVE_MIN)
			continue;
		/* The activity of minute m: stores only, no system call. */
		before = calls;
		for (i = 0; i < n; i++) {
			if (m > s[i].last)
				continue;
			if (m == s[i].last && s[i].checkout) {
				twheel_table_cancel(&t, s[i].id);
				outs++;
			} else {
				s[i].tick = twheel_table_push_ns(&t, s[i].id,
								 now + IDLE_NS);
				pushes++;
			}
			stores++;
		}
		act_calls += calls - before;
	}
	printf("minutes 1-%d: %ld activities pushed a deadline back, %ld checkouts cancelled one: %ld stores into the table, %ld system calls for them (TWHEEL_IOC_MODIFY and _CANCEL would have made %ld)\n",
	       ACTIVE_MIN, pushes, outs, stores, act_calls, stores);
	if (twheel_info(fd, &info) < 0)
		err(1, "TWHEEL_IOC_INFO");
	calls++;
	printf("advanced to %d min: expired %ld (want %ld: the sessions not checked out, each exactly 15 min after its last activity), timers left %llu (checked-out ones freed with no record)\n",
	       END_MIN, expired, want, (unsigned long long)info.timers);
	printf("system calls in all: %ld (open, config, map, %ld SUBMIT, %d ADVANCE, the reads)\n",
	       calls, (n + BATCH - 1) / BATCH, END_MIN);
	if (expired != want || info.timers || info.queued || act_calls)
		bad++;
	for (i = 0; i < n; i++)
		if (s[i].records != !s[i].checkout)
			bad++;
	twheel_table_unmap(&t);
	close(fd);
	printf("sessions: %s\n", bad ? "FAILED" : "passed");
	return bad ? 1 : 0;
}

static void __attribute__((noreturn)) usage(int status)
{
	fprintf(status ? stderr : stdout,
		"usage: twheel-orders live [--orders N] [--paid PCT] [--cgroup]\n"
		"       twheel-orders manual [--orders N] [--paid PCT]\n"
		"       twheel-orders sessions [--orders N]\n");
	exit(status);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "orders", required_argument, NULL, 'n' },
		{ "paid", required_argument, NULL, 'p' },
		{ "cgroup", no_argument, NULL, 'c' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	long n = -1;
	int paid = -1, o;
	bool cgroup = false, is_live, is_sessions;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc < 2)
		usage(2);
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))
		usage(0);
	is_live = !strcmp(argv[1], "live");
	is_sessions = !strcmp(argv[1], "sessions");
	if (!is_live && !is_sessions && strcmp(argv[1], "manual"))
		usage(2);
	optind = 2;
	while ((o = getopt_long(argc, argv, "n:p:ch", opts, NULL)) != -1) {
		switch (o) {
		case 'n':
			n = strtol(optarg, NULL, 10);
			if (n < 1 || n > 100000000)
				usage(2);
			break;
		case 'p':
			paid = atoi(optarg);
			if (paid < 0 || paid > 100)
				usage(2);
			break;
		case 'c':
			cgroup = true;
			break;
		case 'h':
			usage(0);
		default:
			usage(2);
		}
	}
	if (optind != argc || (cgroup && !is_live) ||
	    (paid >= 0 && is_sessions))
		usage(2);
	if (is_sessions)
		return sessions(n > 0 ? n : 10000);
	if (is_live)
		return live(n > 0 ? n : 100000, paid >= 0 ? paid : 80, cgroup);
	return manual(n > 0 ? n : 10000, paid >= 0 ? paid : 70);
}
