// SPDX-License-Identifier: GPL-2.0
/*
 * load_cases.c: the cases of twstress-load that add in batches (million,
 * multifd) and the soak that alternates threads and multifd rounds, with
 * the batch adds and cancels they make and the limits they raise.
 */
#include <sys/resource.h>

#include "load.h"

#define BATCH		TWHEEL_MAX_BATCH
#define PARAM_MAX	"/sys/module/twheel/parameters/max_timers"

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

void ensure_user_limits(long long fds, long long timers)
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
void million(void)
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
void multifd_run(const char *name, long nfds, long per)
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

void multifd(void)
{
	multifd_run("multifd", arg1 > 0 ? arg1 : 1000, arg2 > 0 ? arg2 : 1000);
}

/*
 * soak: until SECS have passed, a round of threads (64 threads, up to
 * 20 s) then a round of multifd (100 fds of 1000 timers); every round is
 * verified. Ends with the totals.
 */
void soak(void)
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
