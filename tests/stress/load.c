// SPDX-License-Identifier: GPL-2.0
/*
 * load: /dev/twheel under load (twstress-load in the guest), every case
 * checked by one oracle: every timer created ends exactly once, in one
 * record read (with its id, cookie, clock, fd and a count of 1) or in one
 * successful cancel, and no record is queued or read before its deadline
 * on its clock. Ids are unique in their fd.
 *
 *   twstress-load million [N]            N timers (1000000) on one fd
 *   twstress-load multifd [FDS [PER]]    FDS fds (1000), PER timers (1000) each
 *   twstress-load threads [THREADS [SECS]]
 *                                        THREADS threads (64) on one fd mixing
 *                                        add, modify, cancel, read, query,
 *                                        list and info for SECS seconds (30)
 *   twstress-load memcg [KIB]            adds in a memory cgroup whose limit is
 *                                        KIB (4096) above its usage, until ENOMEM
 *   twstress-load soak SECS              threads and multifd rounds alternating
 *
 * Each case prints one TAP line ("ok load/<case>") and a line
 * "# load/<case>: timers N records N cancelled N early 0 lost 0
 * duplicates 0 ... time S s". Deadlines are a few milliseconds to a few
 * seconds away and only lower bounds are checked, so no result depends on
 * the machine's speed; a case fails if no record comes for STALL_S seconds
 * while timers are pending.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <sys/epoll.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include "twtest.h"

#define STALL_S		120
#define BATCH		TWHEEL_MAX_BATCH
#define RDBUF		4096
#define CG		"/sys/fs/cgroup"
#define CGDIR		CG "/twstress"
#define PARAM_MAX	"/sys/module/twheel/parameters/max_timers"

/* One timer of the oracle; its cookie is its index. */
struct slot {
	uint64_t id;		/* its id (set by its owner after the add) */
	int64_t deadline;	/* its last deadline armed, absolute, on clock */
	uint64_t rec_id;	/* the first record read for it: id */
	int64_t rec_time;	/* its time_ns */
	int64_t read_now;	/* the clock's time once that read returned */
	uint32_t rec_count;	/* its count */
	uint16_t clock, fdx;	/* clock; the fd it was added to */
	uint16_t rec_clock;	/* the record's clock */
	uint16_t rec_fdx;	/* the fd it was read from */
	atomic_uchar reads;	/* records read */
	atomic_uchar cancels;	/* successful cancels */
	uint8_t created;	/* the add succeeded */
};

struct oracle {
	struct slot *s;
	size_t cap;
	atomic_size_t used;		/* slots handed out */
	atomic_ullong created;		/* successful adds */
	atomic_ullong ended;		/* records read + successful cancels */
	atomic_ullong records, cancelled, retracted, bad_cookie;
	atomic_ullong ops;		/* ioctls and reads done */
	atomic_ullong modified, queries, bad_query, enoent_unread;
	atomic_llong last_progress;	/* monotonic ns of the last record */
};

/* Totals over the cases run (soak). */
static struct {
	unsigned long long timers, records, early, lost, dups, ops;
} total;

static const char *prog = "load";
static long arg1 = -1, arg2 = -1;

static unsigned int clock_index(uint32_t clock)
{
	switch (clock) {
	case CLOCK_MONOTONIC:
		return 0;
	case CLOCK_BOOTTIME:
		return 1;
	case CLOCK_REALTIME:
		return 2;
	default:
		return 3;
	}
}

static void oracle_init(struct oracle *o, size_t cap)
{
	size_t i;

	memset(o, 0, sizeof(*o));
	o->s = calloc(cap, sizeof(*o->s));
	CHECK(o->s);
	/*
	 * Fault it in now (the memcg case must not fault at its limit):
	 * through a volatile pointer, as a memset of 0 after calloc() may be
	 * optimised away.
	 */
	for (i = 0; i < cap * sizeof(*o->s); i += 4096)
		((volatile char *)o->s)[i] = 0;
	o->cap = cap;
	atomic_store(&o->last_progress, twt_mono());
}

static void oracle_free(struct oracle *o)
{
	free(o->s);
	o->s = NULL;
}

/* A new slot (cookie) for a timer about to be added; -1 when full. */
static long slot_new(struct oracle *o, uint32_t clock, unsigned int fdx)
{
	size_t i = atomic_fetch_add(&o->used, 1);

	if (i >= o->cap) {
		atomic_store(&o->used, o->cap);
		return -1;
	}
	o->s[i].clock = clock;
	o->s[i].fdx = fdx;
	return i;
}

static void slot_created(struct oracle *o, size_t i, uint64_t id,
			 int64_t deadline)
{
	o->s[i].id = id;
	o->s[i].deadline = deadline;
	o->s[i].created = 1;
	atomic_fetch_add(&o->created, 1);
}

/* A successful cancel (result must be PENDING or QUEUED). */
static void slot_cancelled(struct oracle *o, size_t i, uint32_t result)
{
	if (result != TWHEEL_STATE_PENDING && result != TWHEEL_STATE_QUEUED)
		twt_fail(__FILE__, __LINE__, "cancel result %u", result);
	if (result == TWHEEL_STATE_QUEUED)
		atomic_fetch_add(&o->retracted, 1);
	atomic_fetch_add(&o->s[i].cancels, 1);
	atomic_fetch_add(&o->cancelled, 1);
	atomic_fetch_add(&o->ended, 1);
}

/* Account n records just read from fd number fdx. */
static void absorb(struct oracle *o, unsigned int fdx,
		   const struct twheel_event *ev, size_t n)
{
	int64_t now[TWT_NCLOCKS];
	unsigned int k;
	size_t j;

	for (k = 0; k < TWT_NCLOCKS; k++)
		now[k] = twt_now(twt_clock(k));
	for (j = 0; j < n; j++) {
		struct slot *s;

		if (ev[j].cookie >= o->cap) {
			atomic_fetch_add(&o->bad_cookie, 1);
			continue;
		}
		s = &o->s[ev[j].cookie];
		if (atomic_fetch_add(&s->reads, 1) == 0) {
			s->rec_id = ev[j].id;
			s->rec_time = ev[j].time_ns;
			s->rec_count = ev[j].count;
			s->rec_clock = ev[j].clock;
			s->rec_fdx = fdx;
			s->read_now = now[clock_index(ev[j].clock)];
		}
	}
	atomic_fetch_add(&o->records, n);
	atomic_fetch_add(&o->ended, n);
	if (n)
		atomic_store(&o->last_progress, twt_mono());
}

/* Read what fd has queued (it is O_NONBLOCK); returns the records. */
static size_t read_some(struct oracle *o, int fd, unsigned int fdx,
			struct twheel_event *buf, size_t cap)
{
	ssize_t r = read(fd, buf, cap * sizeof(*buf));

	atomic_fetch_add(&o->ops, 1);
	if (r < 0 && errno == EAGAIN)
		return 0;
	if (r <= 0 || r % TWT_EV_SIZE)
		twt_fail(__FILE__, __LINE__, "read: %zd (%s)", r,
			 r < 0 ? strerror(errno) : "short");
	absorb(o, fdx, buf, r / TWT_EV_SIZE);
	return r / TWT_EV_SIZE;
}

struct fd_id {
	uint64_t id;
	uint64_t fdx;
};

static int cmp_fd_id(const void *a, const void *b)
{
	const struct fd_id *x = a, *y = b;

	if (x->fdx != y->fdx)
		return (x->fdx > y->fdx) - (x->fdx < y->fdx);
	return (x->id > y->id) - (x->id < y->id);
}

/*
 * The oracle's verdict over every slot: prints the case's line, adds to
 * the totals and fails the case on any early, lost, duplicate, misdelivered
 * record or duplicate id.
 */
static void verify(struct oracle *o, const char *name, int64_t t0,
		   unsigned int nfds)
{
	unsigned long long early = 0, lost = 0, dups = 0, wrong = 0;
	unsigned long long dup_ids = 0, timers = 0;
	size_t used = atomic_load(&o->used), i, k;
	struct fd_id *ids;

	if (used > o->cap)
		used = o->cap;
	ids = malloc((used + 1) * sizeof(*ids));
	CHECK(ids);
	for (i = 0, k = 0; i < used; i++) {
		struct slot *s = &o->s[i];
		unsigned int reads = atomic_load(&s->reads);
		unsigned int ends = reads + atomic_load(&s->cancels);

		if (!s->created) {
			/* A failed add: nothing may ever come of it. */
			if (ends)
				dups++;
			continue;
		}
		timers++;
		ids[k].id = s->id;
		ids[k++].fdx = s->fdx;
		if (ends == 0) {
			lost++;
			if (lost <= 5)
				printf("# lost: cookie %zu id %llu clock %u deadline %lld\n",
				       i, (unsigned long long)s->id, s->clock,
				       (long long)s->deadline);
			continue;
		}
		if (ends > 1) {
			dups++;
			if (dups <= 5)
				printf("# duplicate: cookie %zu: %u records, %u cancels\n",
				       i, reads, ends - reads);
			continue;
		}
		if (!reads)
			continue;
		if (s->rec_id != s->id || s->rec_count != 1 ||
		    s->rec_clock != s->clock || s->rec_fdx != s->fdx) {
			wrong++;
			if (wrong <= 5)
				printf("# wrong record: cookie %zu: id %llu/%llu count %u clock %u/%u fd %u/%u\n",
				       i, (unsigned long long)s->rec_id,
				       (unsigned long long)s->id, s->rec_count,
				       s->rec_clock, s->clock, s->rec_fdx,
				       s->fdx);
		}
		if (s->rec_time < s->deadline || s->read_now < s->deadline) {
			early++;
			if (early <= 5)
				printf("# early: cookie %zu clock %u deadline %lld queued %lld read at %lld\n",
				       i, s->clock, (long long)s->deadline,
				       (long long)s->rec_time,
				       (long long)s->read_now);
		}
	}
	/* Ids never repeat within an fd. */
	qsort(ids, k, sizeof(*ids), cmp_fd_id);
	for (i = 1; i < k; i++)
		if (ids[i].id == ids[i - 1].id && ids[i].fdx == ids[i - 1].fdx)
			dup_ids++;
	free(ids);
	printf("# %s/%s: timers %llu records %llu cancelled %llu (%llu queued) early %llu lost %llu duplicates %llu wrong %llu dup_ids %llu bad_cookies %llu fds %u ops %llu time %.1f s\n",
	       prog, name, timers, (unsigned long long)atomic_load(&o->records),
	       (unsigned long long)atomic_load(&o->cancelled),
	       (unsigned long long)atomic_load(&o->retracted), early, lost,
	       dups, wrong, dup_ids,
	       (unsigned long long)atomic_load(&o->bad_cookie), nfds,
	       (unsigned long long)atomic_load(&o->ops),
	       (twt_mono() - t0) / 1e9);
	total.timers += timers;
	total.records += atomic_load(&o->records);
	total.early += early;
	total.lost += lost;
	total.dups += dups;
	total.ops += atomic_load(&o->ops);
	CHECK_EQ(early, 0);
	CHECK_EQ(lost, 0);
	CHECK_EQ(dups, 0);
	CHECK_EQ(wrong, 0);
	CHECK_EQ(dup_ids, 0);
	CHECK_EQ(atomic_load(&o->bad_cookie), 0);
	CHECK_EQ(atomic_load(&o->enoent_unread), 0);
	CHECK_EQ(atomic_load(&o->bad_query), 0);
	CHECK_EQ(timers, atomic_load(&o->created));
}

/*
 * Read every fd until every timer created has ended and every fd is
 * empty (no timer, nothing queued), or until no record came for STALL_S
 * seconds (the verdict then finds what was lost).
 */
static void collect(struct oracle *o, const int *fds, unsigned int nfds)
{
	static struct twheel_event buf[RDBUF];
	struct epoll_event evs[64];
	unsigned int i;
	int ep = epoll_create1(EPOLL_CLOEXEC);

	CHECK_OK(ep);
	atomic_store(&o->last_progress, twt_mono());
	for (i = 0; i < nfds; i++) {
		struct epoll_event e = { .events = EPOLLIN, .data.u32 = i };

		CHECK_OK(epoll_ctl(ep, EPOLL_CTL_ADD, fds[i], &e));
	}
	for (;;) {
		int n = epoll_wait(ep, evs, 64, 1000), j;

		CHECK(n >= 0 || errno == EINTR);
		for (j = 0; j < n; j++) {
			unsigned int x = evs[j].data.u32;

			while (read_some(o, fds[x], x, buf, RDBUF) == RDBUF)
				;
		}
		if (atomic_load(&o->ended) >= atomic_load(&o->created)) {
			/* Every fd empty: done. */
			for (i = 0; i < nfds; i++) {
				struct twheel_info info = twt_info(fds[i]);

				if (info.timers || info.queued)
					break;
			}
			if (i == nfds)
				break;
		}
		if (twt_mono() - atomic_load(&o->last_progress) >
		    STALL_S * TWT_S) {
			printf("# no record for %d s: %llu of %llu timers ended\n",
			       STALL_S,
			       (unsigned long long)atomic_load(&o->ended),
			       (unsigned long long)atomic_load(&o->created));
			break;
		}
	}
	close(ep);
	for (i = 0; i < nfds; i++)
		CHECK_EQ(read_some(o, fds[i], i, buf, RDBUF), 0);
}

/*
 * Add n timers to fd in one batch, slots from the oracle, absolute
 * deadlines lead + (cookie % 1000) ms from now on clock (or on the clocks
 * in turn when clock is -1); returns the first slot.
 */
static size_t add_batch(struct oracle *o, int fd, unsigned int fdx,
			unsigned int n, int64_t lead, int clock)
{
	static struct twheel_op ops[BATCH];
	int64_t now[TWT_NCLOCKS];
	size_t first = 0;
	unsigned int j, k;
	int done;

	for (k = 0; k < TWT_NCLOCKS; k++)
		now[k] = twt_now(twt_clock(k));
	memset(ops, 0, n * sizeof(*ops));
	for (j = 0; j < n; j++) {
		uint32_t c = clock >= 0 ? (uint32_t)clock : (uint32_t)twt_clock(j % 4);
		long i = slot_new(o, c, fdx);

		CHECK(i >= 0);
		if (j == 0)
			first = i;
		CHECK_EQ(i, first + j);
		ops[j].op = TWHEEL_OP_ADD;
		ops[j].flags = TWHEEL_ABSTIME;
		ops[j].cookie = i;
		ops[j].clock = c;
		ops[j].expires_ns = now[clock_index(c)] + lead +
				    (int64_t)(i % 1000) * TWT_MS;
	}
	done = twt_submit_raw(fd, ops, n);
	atomic_fetch_add(&o->ops, 1);
	CHECK_EQ(done, n);
	for (j = 0; j < n; j++) {
		if (ops[j].error)
			twt_fail(__FILE__, __LINE__, "batch add %u: %s", j,
				 strerror(-ops[j].error));
		CHECK(ops[j].id != 0);
		slot_created(o, first + j, ops[j].id, ops[j].expires_ns);
	}
	return first;
}

/*
 * Cancel, in one batch, the slots first + j for j < n with j % 10 == rem.
 * ENOENT is right only for a timer whose record was read (one reader).
 */
static void cancel_batch(struct oracle *o, int fd, size_t first,
			 unsigned int n, unsigned int rem)
{
	static struct twheel_op ops[BATCH];
	unsigned int j, m = 0;
	int done;

	for (j = rem; j < n; j += 10) {
		memset(&ops[m], 0, sizeof(ops[m]));
		ops[m].op = TWHEEL_OP_CANCEL;
		ops[m].id = o->s[first + j].id;
		ops[m].cookie = first + j;	/* input ignored: kept as given */
		m++;
	}
	done = twt_submit_raw(fd, ops, m);
	atomic_fetch_add(&o->ops, 1);
	CHECK_EQ(done, m);
	for (j = 0; j < m; j++) {
		size_t i = ops[j].cookie;

		if (ops[j].error == 0)
			slot_cancelled(o, i, ops[j].result);
		else if (ops[j].error != -ENOENT)
			twt_fail(__FILE__, __LINE__, "batch cancel: %s",
				 strerror(-ops[j].error));
		else if (atomic_load(&o->s[i].reads) != 1)
			atomic_fetch_add(&o->enoent_unread, 1);
	}
}

/*
 * The per-user limits, raised to at least @fds open fds and @timers timer
 * slots (never lowered). Their defaults bound what one user may hold to
 * about 4% of RAM: in the 2 GiB stress VM some 500 fds and 800 000 slots,
 * fewer than million (10^6 timers) and multifd (1000 fds, 10^6 timers)
 * hold as root. These cases measure the wheel under load, not the limits
 * (tests/integration/users.c does), so they keep to the sizes they had.
 * The sysctls are the module's: guest.sh unloads it after the steps.
 */
#define SYSCTL_FDS	"/proc/sys/fs/twheel/max_user_fds"
#define SYSCTL_TIMERS	"/proc/sys/fs/twheel/max_user_timers"

static void ensure_user_limit(const char *path, long long n)
{
	char buf[32];

	if (twt_sysfs_read(path) >= n)
		return;
	snprintf(buf, sizeof(buf), "%lld", n);
	CHECK_OK(twt_sysfs_write(path, buf));
	CHECK_EQ(twt_sysfs_read(path), n);
}

static void ensure_user_limits(long long fds, long long timers)
{
	ensure_user_limit(SYSCTL_FDS, fds + 64);
	ensure_user_limit(SYSCTL_TIMERS, timers + 65536);
}

/* The module parameter max_timers raised to at least n (for new fds). */
static void ensure_max_timers(long n)
{
	char buf[32];

	if (twt_sysfs_read(PARAM_MAX) >= n)
		return;
	snprintf(buf, sizeof(buf), "%ld", n);
	CHECK_OK(twt_sysfs_write(PARAM_MAX, buf));
}

/*
 * million: N timers on one fd, added in batches of 1024 on the four clocks
 * in turn, each due 2 s after its add plus up to 1 s; one in ten is
 * cancelled at once and one in ten 32 batches later (pending, queued or
 * already read), and the fd is read between batches and then until empty.
 */
static void million(void)
{
	static struct twheel_event buf[RDBUF];
	long n = arg1 > 0 ? arg1 : 1000000;
	struct oracle o;
	int64_t t0 = twt_mono();
	size_t *firsts;
	long done;
	int fd, b;

	oracle_init(&o, n);
	ensure_max_timers(n);
	ensure_user_limits(1, n);
	fd = twt_open(O_NONBLOCK | O_CLOEXEC);
	CHECK(twt_info(fd).max_timers >= (uint64_t)n);
	firsts = calloc(n / BATCH + 2, sizeof(*firsts));
	CHECK(firsts);
	for (done = 0, b = 0; done < n; b++) {
		unsigned int m = n - done > BATCH ? BATCH : n - done;

		firsts[b] = add_batch(&o, fd, 0, m, 2 * TWT_S, -1);
		cancel_batch(&o, fd, firsts[b], m, 3);
		if (b >= 32)
			cancel_batch(&o, fd, firsts[b - 32], BATCH, 7);
		done += m;
		while (read_some(&o, fd, 0, buf, RDBUF) == RDBUF)
			;
	}
	printf("# million: %ld timers added in %.1f s\n", n,
	       (twt_mono() - t0) / 1e9);
	collect(&o, &fd, 1);
	CHECK_EQ(twt_timers(fd), 0);
	close(fd);
	free(firsts);
	verify(&o, "million", t0, 1);
	oracle_free(&o);
}

static void raise_nofile(long n)
{
	struct rlimit rl = { .rlim_cur = n, .rlim_max = n };
	struct rlimit cur;

	CHECK_OK(getrlimit(RLIMIT_NOFILE, &cur));
	if (cur.rlim_cur >= (rlim_t)n)
		return;
	if (cur.rlim_max > (rlim_t)n)
		rl.rlim_max = cur.rlim_max;
	CHECK_OK(setrlimit(RLIMIT_NOFILE, &rl));
}

/*
 * multifd: FDS fds of PER timers each (fd k on clock k % 4), one in ten
 * cancelled at once; epoll over all of them reads every record, each
 * from the fd its timer was added to.
 */
static void multifd_run(const char *name, long nfds, long per)
{
	struct oracle o;
	int64_t t0 = twt_mono();
	int *fds;
	long k, done;

	CHECK(nfds > 0 && nfds < 65536 && per > 0);
	raise_nofile(nfds + 64);
	oracle_init(&o, nfds * per);
	ensure_max_timers(per);
	ensure_user_limits(nfds, nfds * per);
	fds = calloc(nfds, sizeof(*fds));
	CHECK(fds);
	for (k = 0; k < nfds; k++)
		fds[k] = twt_open(O_NONBLOCK | O_CLOEXEC);
	for (k = 0; k < nfds; k++) {
		for (done = 0; done < per; done += BATCH) {
			unsigned int m = per - done > BATCH ? BATCH : per - done;
			size_t first;

			first = add_batch(&o, fds[k], k, m, 2 * TWT_S,
					  twt_clock(k % 4));
			cancel_batch(&o, fds[k], first, m, 5);
		}
	}
	printf("# %s: %ld timers on %ld fds added in %.1f s\n", name,
	       nfds * per, nfds, (twt_mono() - t0) / 1e9);
	collect(&o, fds, nfds);
	for (k = 0; k < nfds; k++) {
		CHECK_EQ(twt_timers(fds[k]), 0);
		close(fds[k]);
	}
	free(fds);
	verify(&o, name, t0, nfds);
	oracle_free(&o);
}

static void multifd(void)
{
	multifd_run("multifd", arg1 > 0 ? arg1 : 1000, arg2 > 0 ? arg2 : 1000);
}

/*
 * threads: THREADS threads on one fd. Each owns the timers it added (at
 * most LIVE at a time) and modifies, cancels and queries only those;
 * every thread reads records, anyone's. Deadlines are absolute, up to
 * 20 ms ahead (one add in eight 5 ms in the past). The races the oracle
 * allows: a cancel, modify or query that finds the timer gone (ENOENT)
 * means its record was read, by someone, exactly once; a successful
 * cancel means no record ever; a successful modify retracts a queued
 * record, and the one record read must then be due by the new deadline.
 */
#define LIVE	128

struct worker {
	pthread_t th;
	struct oracle *o;
	int fd;
	unsigned int idx;
	uint64_t seed;
	size_t live[LIVE];
	unsigned int nlive;
};

static atomic_int stop_threads;

static void drop_live(struct worker *w, unsigned int k)
{
	w->live[k] = w->live[--w->nlive];
}

static int64_t pick_deadline(struct worker *w, uint32_t clock)
{
	int64_t d = twt_now(clock) + (int64_t)(twt_rand(&w->seed) % (20 * TWT_MS));

	if (twt_rand(&w->seed) % 8 == 0)
		d -= 25 * TWT_MS;
	return d;
}

static void w_add(struct worker *w)
{
	struct oracle *o = w->o;
	uint32_t clock = twt_clock(twt_rand(&w->seed) % 4);
	int64_t d = pick_deadline(w, clock);
	uint64_t id;
	long i;

	if (w->nlive == LIVE)
		return;
	i = slot_new(o, clock, 0);
	if (i < 0)
		return;
	if (twt_add_raw(w->fd, i, d, TWHEEL_ABSTIME, clock, &id))
		twt_fail(__FILE__, __LINE__, "add: %s", strerror(errno));
	atomic_fetch_add(&o->ops, 1);
	slot_created(o, i, id, d);
	w->live[w->nlive++] = i;
}

/* Up to 8 adds in one batch. */
static void w_add_batch(struct worker *w)
{
	struct oracle *o = w->o;
	struct twheel_op ops[8];
	unsigned int m = 0, j;

	memset(ops, 0, sizeof(ops));
	while (m < 8 && w->nlive + m < LIVE) {
		uint32_t clock = twt_clock(twt_rand(&w->seed) % 4);
		long i = slot_new(o, clock, 0);

		if (i < 0)
			break;
		ops[m].op = TWHEEL_OP_ADD;
		ops[m].flags = TWHEEL_ABSTIME;
		ops[m].cookie = i;
		ops[m].clock = clock;
		ops[m].expires_ns = pick_deadline(w, clock);
		m++;
	}
	if (!m)
		return;
	CHECK_EQ(twt_submit_raw(w->fd, ops, m), m);
	atomic_fetch_add(&o->ops, 1);
	for (j = 0; j < m; j++) {
		/* The slot was taken: an error would need its own verdict. */
		if (ops[j].error)
			twt_fail(__FILE__, __LINE__, "batch add: %s",
				 strerror(-ops[j].error));
		slot_created(o, ops[j].cookie, ops[j].id, ops[j].expires_ns);
		w->live[w->nlive++] = ops[j].cookie;
	}
}

static void w_modify(struct worker *w)
{
	struct oracle *o = w->o;
	unsigned int k;
	struct slot *s;
	uint32_t result;
	int64_t d;

	if (!w->nlive)
		return;
	k = twt_rand(&w->seed) % w->nlive;
	s = &o->s[w->live[k]];
	d = pick_deadline(w, s->clock);
	atomic_fetch_add(&o->ops, 1);
	if (twt_modify_raw(w->fd, s->id, 0, d, 0, TWHEEL_ABSTIME, &result)) {
		if (errno != ENOENT)
			twt_fail(__FILE__, __LINE__, "modify: %s",
				 strerror(errno));
		drop_live(w, k);	/* read by someone */
		return;
	}
	if (result != TWHEEL_STATE_PENDING && result != TWHEEL_STATE_QUEUED)
		twt_fail(__FILE__, __LINE__, "modify result %u", result);
	if (result == TWHEEL_STATE_QUEUED)
		atomic_fetch_add(&o->retracted, 1);
	s->deadline = d;
	atomic_fetch_add(&o->modified, 1);
}

static void w_cancel(struct worker *w)
{
	struct oracle *o = w->o;
	uint32_t result;
	unsigned int k;

	if (!w->nlive)
		return;
	k = twt_rand(&w->seed) % w->nlive;
	atomic_fetch_add(&o->ops, 1);
	if (twt_cancel_raw(w->fd, o->s[w->live[k]].id, 0, &result)) {
		if (errno != ENOENT)
			twt_fail(__FILE__, __LINE__, "cancel: %s",
				 strerror(errno));
	} else {
		slot_cancelled(o, w->live[k], result);
	}
	drop_live(w, k);
}

static void w_query(struct worker *w)
{
	struct oracle *o = w->o;
	struct twheel_status st;
	unsigned int k;
	struct slot *s;
	int bad;

	if (!w->nlive)
		return;
	k = twt_rand(&w->seed) % w->nlive;
	s = &o->s[w->live[k]];
	atomic_fetch_add(&o->ops, 1);
	if (twt_query_raw(w->fd, s->id, &st)) {
		if (errno != ENOENT)
			twt_fail(__FILE__, __LINE__, "query: %s",
				 strerror(errno));
		drop_live(w, k);
		return;
	}
	atomic_fetch_add(&o->queries, 1);
	bad = st.id != s->id || st.cookie != w->live[k] ||
	      st.clock != s->clock || st.period_ns != 0;
	if (st.state == TWHEEL_STATE_PENDING)
		/* The deadline rounded up to the 1 ms tick, by less than one. */
		bad |= st.deadline_ns < s->deadline ||
		       st.deadline_ns >= s->deadline + TWT_MS || st.count;
	else if (st.state == TWHEEL_STATE_QUEUED)
		bad |= st.deadline_ns != 0 || st.count != 1;
	else
		bad = 1;
	if (bad && atomic_fetch_add(&o->bad_query, 1) < 5)
		printf("# query %llu: state %u deadline %lld (armed %lld) count %llu cookie %llu\n",
		       (unsigned long long)s->id, st.state,
		       (long long)st.deadline_ns, (long long)s->deadline,
		       (unsigned long long)st.count,
		       (unsigned long long)st.cookie);
}

/* One page of a listing, and the handshake: sane values only. */
static void w_list_info(struct worker *w)
{
	struct oracle *o = w->o;
	struct twheel_status st[32];
	struct twheel_list l;
	struct twheel_info info;
	unsigned int j;

	memset(&l, 0, sizeof(l));
	l.statuses = (uintptr_t)st;
	l.capacity = 32;
	l.status_size = sizeof(st[0]);
	CHECK_OK(ioctl(w->fd, TWHEEL_IOC_LIST, &l));
	CHECK(l.count <= 32);
	for (j = 0; j < l.count; j++)
		if (st[j].cookie >= o->cap)
			atomic_fetch_add(&o->bad_query, 1);
	info = twt_info(w->fd);
	CHECK_EQ(info.version, TWHEEL_ABI_VERSION);
	CHECK(info.queued <= info.timers);
	atomic_fetch_add(&o->ops, 2);
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	struct twheel_event buf[64];

	while (!atomic_load(&stop_threads)) {
		unsigned int r = twt_rand(&w->seed) % 100;

		if (r < 25)
			w_add(w);
		else if (r < 30)
			w_add_batch(w);
		else if (r < 45)
			w_modify(w);
		else if (r < 58)
			w_cancel(w);
		else if (r < 85) {
			/* One thread in eight waits in poll first. */
			if (w->idx % 8 == 0)
				twt_poll(w->fd, 5);
			read_some(w->o, w->fd, 0, buf, 64);
		} else if (r < 97)
			w_query(w);
		else
			w_list_info(w);
	}
	return NULL;
}

static void threads_run(const char *name, long nthreads, long secs)
{
	struct oracle o;
	struct worker *w;
	int64_t t0 = twt_mono();
	long k;
	int fd;

	CHECK(nthreads > 0 && secs > 0);
	/* Enough slots for any speed; adds stop (and are counted) if full. */
	oracle_init(&o, 1000000);
	ensure_user_limits(1, nthreads * LIVE);
	fd = twt_open(O_NONBLOCK | O_CLOEXEC);
	w = calloc(nthreads, sizeof(*w));
	CHECK(w);
	atomic_store(&stop_threads, 0);
	for (k = 0; k < nthreads; k++) {
		w[k].o = &o;
		w[k].fd = fd;
		w[k].idx = k;
		w[k].seed = 0x9E3779B97F4A7C15ULL * (k + 1) ^ (uint64_t)t0;
		CHECK_EQ(pthread_create(&w[k].th, NULL, worker_main, &w[k]), 0);
	}
	twt_sleep_ns(secs * TWT_S);
	atomic_store(&stop_threads, 1);
	for (k = 0; k < nthreads; k++)
		CHECK_EQ(pthread_join(w[k].th, NULL), 0);
	printf("# %s: %ld threads for %ld s: %llu ops, %llu modified, %llu queried%s\n",
	       name, nthreads, secs, (unsigned long long)atomic_load(&o.ops),
	       (unsigned long long)atomic_load(&o.modified),
	       (unsigned long long)atomic_load(&o.queries),
	       atomic_load(&o.used) >= o.cap ? " (oracle full: adds stopped)" : "");
	collect(&o, &fd, 1);
	CHECK_EQ(twt_timers(fd), 0);
	close(fd);
	free(w);
	verify(&o, name, t0, 1);
	oracle_free(&o);
}

static void threads(void)
{
	threads_run("threads", arg1 > 0 ? arg1 : 64, arg2 > 0 ? arg2 : 30);
}

/*
 * memcg: this process in a memory cgroup whose memory.max is KIB above
 * its usage; one-shot timers (due 2 s after their add, unread meanwhile)
 * are added until TWHEEL_IOC_ADD fails with ENOMEM. Then: the failing
 * call changed nothing; a batch's adds fail each on its own (ENOMEM) or
 * succeed; after 4096 cancels and after 4096 records read, 1024 adds each
 * succeed again, still at the limit; every timer created ends exactly
 * once; nobody was OOM-killed (memory.events oom_kill, /proc/vmstat).
 *
 * At the limit this process must not fault in a page nor make the kernel
 * allocate for it (a file, a pipe or tmpfs page for stdout): either would
 * call the cgroup's OOM killer. So everything is allocated and touched
 * before, and nothing is printed until the limit is lifted.
 */
static void write_file(const char *path, const char *s)
{
	CHECK_OK(twt_sysfs_write(path, s));
}

static long long keyed(const char *path, const char *key)
{
	char line[256];
	size_t len = strlen(key);
	long long v = -1;
	FILE *f = fopen(path, "r");

	CHECK(f);
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, key, len) && line[len] == ' ')
			v = atoll(line + len + 1);
	fclose(f);
	return v;
}

/* The kernel log lines so far that contain what (-1: no /dev/kmsg). */
static long long kmsg_count(const char *what)
{
	char rec[2048];
	long long n = 0;
	ssize_t r;
	int fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);

	if (fd < 0)
		return -1;
	for (;;) {
		r = read(fd, rec, sizeof(rec) - 1);
		if (r < 0 && errno == EPIPE)
			continue;	/* overwritten records: go on */
		if (r <= 0)
			break;
		rec[r] = 0;
		if (strstr(rec, what))
			n++;
	}
	close(fd);
	return n;
}

/*
 * At the limit: single adds until one fails (with ENOMEM: returned), so
 * that no charge is left over on this CPU for the call that follows.
 */
static int fill_to_limit(struct oracle *o, int fd)
{
	uint64_t id;
	int64_t d;
	long i;

	for (;;) {
		i = slot_new(o, CLOCK_MONOTONIC, 0);
		if (i < 0)
			return -1;
		d = twt_mono() + 2 * TWT_S;
		if (twt_add_raw(fd, i, d, TWHEEL_ABSTIME, CLOCK_MONOTONIC,
				&id))
			return errno;
		atomic_fetch_add(&o->ops, 1);
		slot_created(o, i, id, d);
	}
}

static void __attribute__((noinline)) touch_stack(void)
{
	volatile char pad[256 * 1024];

	memset((char *)pad, 0, sizeof(pad));
}

/*
 * memcg: add @n timers due 2 s from now, at the cgroup's limit where the
 * case has just freed room. Return: how many adds failed.
 */
static long long memcg_add(struct oracle *o, int fd, int n)
{
	long long failed = 0;
	uint64_t id;
	long i;
	int64_t d;
	int j;

	for (j = 0; j < n; j++) {
		i = slot_new(o, CLOCK_MONOTONIC, 0);
		d = twt_mono() + 2 * TWT_S;
		if (i >= 0 && twt_add_raw(fd, i, d, TWHEEL_ABSTIME,
					  CLOCK_MONOTONIC, &id) == 0)
			slot_created(o, i, id, d);
		else
			failed++;
	}
	return failed;
}

static void memcg(void)
{
	static struct twheel_event buf[RDBUF];
	static struct twheel_op ops[16];
	long kib = arg1 > 0 ? arg1 : 4096;
	long long oom0, cur, retry_nomem = 0, batch_ok = 0, batch_nomem = 0;
	long long reread = 0, at_fail = 0, cancel_err = 0, readd_err = 0;
	uint64_t timers_at_fail = 0;
	int64_t t0 = twt_mono(), d;
	struct oracle o;
	char pid[32], lim[32];
	int fd, maxfd, err = 0, again_err = 0, j, r;
	int newclock_err, list_err, batch_err;
	long long ev_max, ev_oom, ev_kill, vm_kill, kill0, kills;
	int round, fill_bad = 0;
	long long n_ok;
	struct twheel_status st[16];
	struct twheel_list l;
	uint32_t result;
	uint64_t id;
	long i;

	mkdir(CG, 0755);
	if (mount("none", CG, "cgroup2", 0, NULL) < 0)
		CHECK(errno == EBUSY);
	write_file(CG "/cgroup.subtree_control", "+memory");
	if (mkdir(CGDIR, 0755) < 0)
		CHECK(errno == EEXIST);
	write_file(CGDIR "/memory.max", "max");
	/* The cgroup's limit, ENOMEM, must come first: not ENOSPC. */
	ensure_user_limits(1, 1 << 22);
	/* vmstat's oom_kill needs VM_EVENT_COUNTERS (not on the debug kernel). */
	oom0 = keyed("/proc/vmstat", "oom_kill");
	kill0 = kmsg_count("Killed process");
	CHECK(kill0 >= 0);
	/*
	 * Unkillable: should anything call the cgroup's OOM killer, it finds
	 * no victim and the allocation fails instead; memory.events counts
	 * the call ("oom"), checked below.
	 */
	write_file("/proc/self/oom_score_adj", "-1000");
	oracle_init(&o, 1 << 20);
	touch_stack();
	memset(buf, 0, sizeof(buf));
	memset(ops, 0, sizeof(ops));
	fd = twt_open(O_NONBLOCK | O_CLOEXEC);
	/* Everything mapped now is faulted in, charged outside the cgroup. */
	CHECK_OK(mlockall(MCL_CURRENT));
	snprintf(pid, sizeof(pid), "%d", getpid());
	write_file(CGDIR "/cgroup.procs", pid);
	/* The first add allocates the clock's wheel: before the limit. */
	i = slot_new(&o, CLOCK_MONOTONIC, 0);
	d = twt_mono() + 2 * TWT_S;
	slot_created(&o, i, twt_add_abs(fd, i, d, CLOCK_MONOTONIC), d);
	maxfd = open(CGDIR "/memory.max", O_WRONLY | O_CLOEXEC);
	CHECK_OK(maxfd);
	cur = twt_sysfs_read(CGDIR "/memory.current");
	CHECK(cur >= 0);
	snprintf(lim, sizeof(lim), "%lld", cur + kib * 1024);
	printf("# memcg: memory.current %lld, memory.max %s\n", cur, lim);
	fflush(stdout);

	/*
	 * At the limit from here on: no printing, no CHECK (it prints), no
	 * new memory; outcomes are kept and judged once the limit is lifted.
	 */
	CHECK_EQ(write(maxfd, lim, strlen(lim)), (ssize_t)strlen(lim));
	for (;;) {
		i = slot_new(&o, CLOCK_MONOTONIC, 0);
		if (i < 0) {
			err = -1;
			break;
		}
		d = twt_mono() + 2 * TWT_S;
		if (twt_add_raw(fd, i, d, TWHEEL_ABSTIME, CLOCK_MONOTONIC,
				&id)) {
			err = errno;
			break;
		}
		atomic_fetch_add(&o.ops, 1);
		slot_created(&o, i, id, d);
	}
	at_fail = atomic_load(&o.created);
	/* The failing call changed nothing; neither do the next ones. */
	timers_at_fail = twt_timers(fd);
	for (j = 0; j < 16 && err == ENOMEM; j++) {
		i = slot_new(&o, CLOCK_MONOTONIC, 0);
		d = twt_mono() + 2 * TWT_S;
		if (i < 0)
			break;
		if (twt_add_raw(fd, i, d, TWHEEL_ABSTIME, CLOCK_MONOTONIC,
				&id) == 0) {
			/* Room again (a per-cpu charge cache): a real timer. */
			slot_created(&o, i, id, d);
			timers_at_fail++;
		} else if (errno == ENOMEM) {
			retry_nomem++;
		} else {
			again_err = errno;
		}
		if (twt_timers(fd) != timers_at_fail)
			again_err = -2;
	}
	/*
	 * A first timer on another clock needs that clock's wheel, a LIST
	 * its buffer, a batch its copy of the operations: at the limit each
	 * may fail with ENOMEM, and must not call the OOM killer.
	 */
	/*
	 * Allocations without __GFP_NORETRY reclaim first (the cgroup's
	 * charges cached on other CPUs come back), so they may succeed where
	 * an add just failed. The first round follows the failed adds at
	 * once; the next ones fill up again before each call, until each
	 * has failed.
	 */
	newclock_err = list_err = batch_err = 0;
	for (round = 0; round < 8 && !(newclock_err && list_err && batch_err);
	     round++) {
		if (!newclock_err) {
			if (round && fill_to_limit(&o, fd) != ENOMEM)
				fill_bad++;
			d = twt_now(CLOCK_REALTIME) + 2 * TWT_S;
			i = slot_new(&o, CLOCK_REALTIME, 0);
			if (i >= 0 && twt_add_raw(fd, i, d, TWHEEL_ABSTIME,
						  CLOCK_REALTIME, &id) == 0)
				slot_created(&o, i, id, d);
			else
				newclock_err = errno;
		}
		if (!list_err) {
			if (round && fill_to_limit(&o, fd) != ENOMEM)
				fill_bad++;
			memset(&l, 0, sizeof(l));
			l.statuses = (uintptr_t)st;
			l.capacity = 16;
			l.status_size = sizeof(st[0]);
			list_err = ioctl(fd, TWHEEL_IOC_LIST, &l) ? errno : 0;
		}
		if (batch_err)
			continue;
		/* Each of a batch's adds fails (ENOMEM) or succeeds. */
		if (round && fill_to_limit(&o, fd) != ENOMEM)
			fill_bad++;
		timers_at_fail = twt_timers(fd);
		for (j = 0; j < 16; j++) {
			ops[j].op = TWHEEL_OP_ADD;
			ops[j].flags = TWHEEL_ABSTIME;
			ops[j].cookie = slot_new(&o, CLOCK_MONOTONIC, 0);
			ops[j].clock = CLOCK_MONOTONIC;
			ops[j].expires_ns = twt_mono() + 2 * TWT_S;
		}
		r = twt_submit_raw(fd, ops, 16);
		batch_err = r < 0 ? errno : 0;
		n_ok = 0;
		for (j = 0; j < (r > 0 ? r : 0); j++) {
			if (ops[j].error == 0 && ops[j].cookie < o.cap) {
				slot_created(&o, ops[j].cookie, ops[j].id,
					     ops[j].expires_ns);
				n_ok++;
			} else if (ops[j].error == -ENOMEM) {
				batch_nomem++;
			} else {
				again_err = -4;
			}
		}
		batch_ok += n_ok;
		if (r >= 0 && r != 16)
			again_err = -3;
		if (twt_timers(fd) != timers_at_fail + n_ok)
			again_err = -5;
	}
	/* Free by cancelling the first 4096 timers, then add 1024. */
	for (i = 1; i <= 4096 && i < at_fail; i++) {
		if (twt_cancel_raw(fd, o.s[i].id, 0, &result) ||
		    (result != TWHEEL_STATE_PENDING &&
		     result != TWHEEL_STATE_QUEUED))
			cancel_err++;
		else
			slot_cancelled(&o, i, result);
	}
	readd_err += memcg_add(&o, fd, 1024);
	/* Free by reading 4096 records (due 2 s after their add), add 1024. */
	while (reread < 4096 && twt_mono() - t0 < 600 * TWT_S) {
		ssize_t r = read(fd, buf, (4096 - reread) * sizeof(*buf));

		if (r > 0 && r % TWT_EV_SIZE == 0) {
			absorb(&o, 0, buf, r / TWT_EV_SIZE);
			reread += r / TWT_EV_SIZE;
		} else if (r < 0 && errno == EAGAIN) {
			twt_sleep_ms(50);
		} else {
			break;
		}
	}
	readd_err += memcg_add(&o, fd, 1024);
	/* Lift the limit before printing anything. */
	CHECK_EQ(write(maxfd, "max", 3), 3);
	close(maxfd);

	printf("# memcg: %s after %lld timers; the next 16 adds: %lld ENOMEM, timers %llu before and after; batch of 16: %lld ok, %lld ENOMEM\n",
	       err > 0 ? strerror(err) : "no failure", at_fail, retry_nomem,
	       (unsigned long long)timers_at_fail, batch_ok, batch_nomem);
	printf("# memcg: at the limit, in %d rounds: first add on a new clock: %s; LIST: %s; batch: %s\n",
	       round,
	       newclock_err ? strerror(newclock_err) : "ok",
	       list_err ? strerror(list_err) : "ok",
	       batch_err ? strerror(batch_err) : "ok");
	printf("# memcg: at the limit: 4096 cancelled (%lld errors), %lld read; 2048 re-adds, %lld failed\n",
	       cancel_err, reread, readd_err);
	CHECK_EQ(err, ENOMEM);
	CHECK(at_fail > 8192);
	CHECK_EQ(again_err, 0);
	CHECK_EQ(fill_bad, 0);
	CHECK(newclock_err == 0 || newclock_err == ENOMEM);
	CHECK(list_err == 0 || list_err == ENOMEM);
	CHECK(batch_err == 0 || batch_err == ENOMEM);
	CHECK_EQ(cancel_err, 0);
	CHECK_EQ(reread, 4096);
	CHECK_EQ(readd_err, 0);
	printf("# memcg: memory.stat: anon %lld file %lld kernel %lld kernel_stack %lld pagetables %lld percpu %lld sock %lld slab %lld; %.1f bytes of the limit per timer at ENOMEM\n",
	       keyed(CGDIR "/memory.stat", "anon"),
	       keyed(CGDIR "/memory.stat", "file"),
	       keyed(CGDIR "/memory.stat", "kernel"),
	       keyed(CGDIR "/memory.stat", "kernel_stack"),
	       keyed(CGDIR "/memory.stat", "pagetables"),
	       keyed(CGDIR "/memory.stat", "percpu"),
	       keyed(CGDIR "/memory.stat", "sock"),
	       keyed(CGDIR "/memory.stat", "slab"),
	       kib * 1024.0 / (at_fail ? at_fail : 1));
	printf("# memcg: memory.events: max %lld oom %lld oom_kill %lld; vmstat oom_kill %lld -> %lld\n",
	       keyed(CGDIR "/memory.events", "max"),
	       keyed(CGDIR "/memory.events", "oom"),
	       keyed(CGDIR "/memory.events", "oom_kill"), oom0,
	       keyed("/proc/vmstat", "oom_kill"));
	ev_max = keyed(CGDIR "/memory.events", "max");
	ev_oom = keyed(CGDIR "/memory.events", "oom");
	ev_kill = keyed(CGDIR "/memory.events", "oom_kill");
	vm_kill = keyed("/proc/vmstat", "oom_kill");
	kills = kmsg_count("Killed process") - kill0;
	printf("# memcg: processes killed (kernel log): %lld\n", kills);

	collect(&o, &fd, 1);
	CHECK_EQ(twt_timers(fd), 0);
	close(fd);
	verify(&o, "memcg", t0, 1);
	oracle_free(&o);
	CHECK(ev_max > 0);
	/* The OOM killer was never called ("oom"), nobody was killed. */
	CHECK_EQ(ev_oom, 0);
	CHECK_EQ(ev_kill, 0);
	CHECK_EQ(kills, 0);
	CHECK_EQ(vm_kill, oom0);
}

/*
 * soak: until SECS have passed, a round of threads (64 threads, up to
 * 20 s) then a round of multifd (100 fds of 1000 timers); every round is
 * verified. Ends with the totals.
 */
static void soak(void)
{
	long secs = arg1 > 0 ? arg1 : 600;
	int64_t t0 = twt_mono(), end = t0 + secs * TWT_S;
	unsigned int rounds = 0;

	while (twt_mono() < end) {
		long left = (end - twt_mono()) / TWT_S;

		threads_run("soak-threads", 64, left > 20 ? 20 : left + 1);
		multifd_run("soak-multifd", 100, 1000);
		rounds++;
		fflush(stdout);
	}
	printf("# soak: %u rounds in %.0f s: operations %llu records %llu timers %llu early %llu lost %llu duplicates %llu\n",
	       rounds, (twt_mono() - t0) / 1e9, total.ops, total.records,
	       total.timers, total.early, total.lost, total.dups);
}

static const struct twt_case all_cases[] = {
	TWT_CASE(million),
	TWT_CASE(multifd),
	TWT_CASE(threads),
	TWT_CASE(memcg),
	TWT_CASE(soak),
};

int main(int argc, char **argv)
{
	struct twt_case c;
	size_t k;

	if (argc < 2 || argc > 4) {
		fprintf(stderr, "usage: %s million [N] | multifd [FDS [PER]] | threads [THREADS [SECS]] | memcg [KIB] | soak SECS\n",
			argv[0]);
		return 2;
	}
	if (argc > 2)
		arg1 = atol(argv[2]);
	if (argc > 3)
		arg2 = atol(argv[3]);
	for (k = 0; k < sizeof(all_cases) / sizeof(all_cases[0]); k++) {
		if (strcmp(argv[1], all_cases[k].name))
			continue;
		c = all_cases[k];
		/* Generous: a slow debug kernel under emulation. */
		if (!strcmp(c.name, "soak"))
			c.timeout_s = (arg1 > 0 ? arg1 : 600) + 900;
		else if (!strcmp(c.name, "threads"))
			c.timeout_s = (arg2 > 0 ? arg2 : 30) + 900;
		else
			c.timeout_s = 1800;
		return twt_run(prog, &c, 1);
	}
	fprintf(stderr, "%s: unknown case %s\n", argv[0], argv[1]);
	return 2;
}
