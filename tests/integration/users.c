// SPDX-License-Identifier: GPL-2.0
/*
 * users: the per-user limits (kmod/twheel_user.c), in the initial user
 * namespace (userns.c: across namespaces). A user is the opener's
 * effective uid; every open /dev/twheel and every timer slot its fds hold
 * (an fd's slots: the most timers it has held at once) is charged to that
 * user, over all their processes, until the fd is closed.
 *
 *   fs.twheel.max_user_fds     open(2) fails with EMFILE at the limit
 *   fs.twheel.max_user_timers  an add needing a new slot fails with ENOSPC
 *
 * The sysctls (/proc/sys/fs/twheel/) are the module parameters of the same
 * names; their defaults come from RAM; root changes them at run time.
 * /proc/driver/twheel (root only) lists every user holding an fd; fdinfo
 * shows the fd's slots and its user's totals.
 *
 * Each case runs its body in a child of its own process group and then,
 * whatever happened to the body (a failed check, a time-out), kills what
 * is left of it and writes both sysctls back: the programs that run after
 * this one in the VM see the limits as they were. The unprivileged users
 * are worker processes (uid 65534, "nobody", and 65533) that do what the
 * case asks them over a pipe.
 */
#include <dirent.h>
#include <sys/prctl.h>
#include <sys/stat.h>

#define TWLIMITS_USERS
#include "twlimits.h"

#define PARAM_FDS	"/sys/module/twheel/parameters/max_user_fds"
#define PARAM_TIMERS	"/sys/module/twheel/parameters/max_user_timers"

/*
 * kmod/twheel_user.h: TWHEEL_FD_MAX_BYTES, TWHEEL_TIMER_MAX_BYTES, the most
 * kernel memory an fd and a timer slot may hold, from which the defaults
 * are derived (keep in step with the module).
 */
#define FD_MAX_BYTES	57344LL
#define TIMER_MAX_BYTES	88LL

#define NOBODY		65534
#define OTHER		65533

/* An id no add ever returns: what a failed add must leave in the struct. */
#define ID_UNTOUCHED	0x5a5a5a5a5a5a5a5aULL

/* ---- workers: processes of another user, driven over a pipe ---- */

enum wop {
	W_OPEN = 1,	/* open /dev/twheel: ret = its index, or -1/err */
	W_CLOSE,	/* close fd (-1: all) */
	W_ADD,		/* n timers, kind arg: ret = added; err = the failure */
	W_ADD_NOW,	/* one one-shot timer due now */
	W_CANCEL,	/* cancel the n last added: ret = cancelled */
	W_SUBMIT,	/* one batch: arg cancels (the last added), n adds */
	W_READ,		/* read every queued record: ret = records */
	W_INFO,		/* ret = TWHEEL_IOC_INFO's timers */
	W_FDINFO,	/* ret = fdinfo's value of key, or -1 */
};

/* W_ADD kinds; every deadline is an hour ahead. */
enum { K_ONESHOT, K_PERIODIC, K_MIX };

struct wreq {
	int op;
	int fd;
	long n;
	long arg;
	char key[32];
};

/*
 * W_ADD: v[0] 1 when the failed add left its struct as given, v[1] the
 * fd's timers afterwards (TWHEEL_IOC_INFO). W_SUBMIT: v[0] adds done,
 * v[1] adds failed with -ENOSPC (with id 0), v[2] any other outcome (a
 * failed cancel, another error, an id not as documented), v[3] timers
 * afterwards.
 */
struct wrep {
	long long ret;
	int err;
	long long v[4];
};

struct worker {
	pid_t pid;
	int to, from;
	unsigned int uid;
};

#define W_FDS	16

/* In the worker process: its fds and the ids of their live timers. */
static struct wfd {
	int fd;
	uint64_t *ids;
	long n, cap;
} wf[W_FDS];

static void wf_reserve(struct wfd *f, long n)
{
	if (n <= f->cap)
		return;
	f->cap = n + n / 2 + 64;
	f->ids = realloc(f->ids, f->cap * sizeof(*f->ids));
	CHECK(f->ids);
}

static long long wf_timers(struct wfd *f)
{
	struct twheel_info info;

	memset(&info, 0, sizeof(info));
	CHECK_OK(ioctl(f->fd, TWHEEL_IOC_INFO, &info));
	return (long long)info.timers;
}

static void w_add(struct wfd *f, long n, long kind, struct wrep *r)
{
	long i;

	wf_reserve(f, f->n + n);
	for (i = 0; i < n; i++) {
		struct twheel_add a, given;
		int periodic = kind == K_PERIODIC || (kind == K_MIX && i & 1);

		memset(&a, 0, sizeof(a));
		a.cookie = f->n;
		a.expires_ns = 3600 * TWT_S + (f->n % 1000) * TWT_US;
		a.period_ns = periodic ? 3600 * TWT_S : 0;
		a.clock = CLOCK_MONOTONIC;
		a.id = ID_UNTOUCHED;
		given = a;
		if (ioctl(f->fd, TWHEEL_IOC_ADD, &a)) {
			r->err = errno;
			r->v[0] = !memcmp(&a, &given, sizeof(a));
			break;
		}
		CHECK(a.id && a.id != ID_UNTOUCHED);
		f->ids[f->n++] = a.id;
	}
	r->ret = i;
	r->v[1] = wf_timers(f);
}

static void w_submit(struct wfd *f, long adds, long cancels, struct wrep *r)
{
	struct twheel_op ops[TWHEEL_MAX_BATCH];
	long i, nr = cancels + adds;
	int ret;

	CHECK(nr <= TWHEEL_MAX_BATCH && cancels <= f->n);
	wf_reserve(f, f->n + adds);
	memset(ops, 0, sizeof(ops));
	for (i = 0; i < nr; i++) {
		if (i < cancels) {
			ops[i].op = TWHEEL_OP_CANCEL;
			ops[i].id = f->ids[f->n - 1 - i];
			continue;
		}
		ops[i].op = TWHEEL_OP_ADD;
		ops[i].id = ID_UNTOUCHED;
		ops[i].cookie = i;
		ops[i].expires_ns = 3600 * TWT_S;
		ops[i].clock = CLOCK_MONOTONIC;
	}
	ret = twt_submit_raw(f->fd, ops, (uint32_t)nr);
	r->ret = ret;
	r->err = ret < 0 ? errno : 0;
	if (ret != nr)
		return;
	f->n -= cancels;
	for (i = 0; i < nr; i++) {
		if (ops[i].op == TWHEEL_OP_CANCEL) {
			if (ops[i].error || ops[i].result != TWHEEL_STATE_PENDING)
				r->v[2]++;
		} else if (!ops[i].error && ops[i].id &&
			   ops[i].id != ID_UNTOUCHED) {
			r->v[0]++;
			f->ids[f->n++] = ops[i].id;
		} else if (ops[i].error == -ENOSPC && !ops[i].id) {
			r->v[1]++;
		} else {
			r->v[2]++;
		}
	}
	r->v[3] = wf_timers(f);
}

static void worker_serve(const struct wreq *q, struct wrep *r)
{
	struct wfd *f = q->fd >= 0 && q->fd < W_FDS ? &wf[q->fd] : NULL;
	struct twheel_event ev[64];
	long long v;
	ssize_t n;
	int i;

	if (q->op != W_OPEN && !(q->op == W_CLOSE && q->fd < 0))
		CHECK(f && f->fd >= 0);
	switch (q->op) {
	case W_OPEN:
		for (i = 0; i < W_FDS && wf[i].fd >= 0; i++)
			;
		CHECK(i < W_FDS);
		wf[i].fd = open(TWT_DEV, O_RDWR | O_NONBLOCK | O_CLOEXEC);
		r->ret = wf[i].fd < 0 ? -1 : i;
		r->err = wf[i].fd < 0 ? errno : 0;
		wf[i].n = 0;
		break;
	case W_CLOSE:
		for (i = 0; i < W_FDS; i++) {
			if (wf[i].fd < 0 || (q->fd >= 0 && i != q->fd))
				continue;
			CHECK_OK(close(wf[i].fd));
			wf[i].fd = -1;
			wf[i].n = 0;
		}
		break;
	case W_ADD:
		w_add(f, q->n, q->arg, r);
		break;
	case W_ADD_NOW:
		r->ret = twt_add_raw(f->fd, 0, 0, 0, CLOCK_MONOTONIC, NULL);
		r->err = r->ret ? errno : 0;
		break;
	case W_CANCEL:
		for (r->ret = 0; r->ret < q->n && f->n; r->ret++) {
			if (twt_cancel_raw(f->fd, f->ids[f->n - 1], 0, NULL)) {
				r->err = errno;
				break;
			}
			f->n--;
		}
		break;
	case W_SUBMIT:
		w_submit(f, q->n, q->arg, r);
		break;
	case W_READ:
		while ((n = read(f->fd, ev, sizeof(ev))) > 0)
			r->ret += n / TWT_EV_SIZE;
		r->err = errno;
		break;
	case W_INFO:
		r->ret = wf_timers(f);
		break;
	case W_FDINFO:
		r->ret = twt_fdinfo(f->fd, q->key, &v) ? -1 : v;
		break;
	default:
		CHECK(0);
	}
}

static void __attribute__((noreturn)) worker_main(int in, int out)
{
	struct wreq q;
	struct wrep r;
	ssize_t n;

	for (;;) {
		n = read(in, &q, sizeof(q));
		if (n == 0)
			_exit(0);
		CHECK_EQ(n, sizeof(q));
		memset(&r, 0, sizeof(r));
		worker_serve(&q, &r);
		CHECK_EQ(write(out, &r, sizeof(r)), sizeof(r));
	}
}

/* A worker running as @uid (its groups dropped), holding no fd of ours. */
static struct worker worker_start(unsigned int uid)
{
	struct worker w;
	int to[2], from[2], i;

	CHECK_OK(pipe(to));
	CHECK_OK(pipe(from));
	fflush(stdout);
	w.pid = fork();
	CHECK(w.pid >= 0);
	if (!w.pid) {
		/* Nothing of the body's: no twheel fd, no other worker's pipe. */
		for (i = 3; i < 4096; i++)
			if (i != to[0] && i != from[1])
				close(i);
		if (uid) {
			twt_become(uid);
		}
		CHECK_EQ(geteuid(), uid);
		for (i = 0; i < W_FDS; i++)
			wf[i].fd = -1;
		worker_main(to[0], from[1]);
	}
	close(to[0]);
	close(from[1]);
	w.to = to[1];
	w.from = from[0];
	w.uid = uid;
	return w;
}

static struct wrep wcall_at(const char *file, int line, struct worker *w,
			    int op, int fd, long n, long arg, const char *key)
{
	struct wreq q;
	struct wrep r;

	memset(&q, 0, sizeof(q));
	q.op = op;
	q.fd = fd;
	q.n = n;
	q.arg = arg;
	if (key)
		snprintf(q.key, sizeof(q.key), "%s", key);
	if (write(w->to, &q, sizeof(q)) != sizeof(q) ||
	    read(w->from, &r, sizeof(r)) != sizeof(r))
		twt_fail(file, line, "worker %d (uid %u) died doing op %d",
			 (int)w->pid, w->uid, op);
	return r;
}

#define wcall(w, op, fd, n, arg)					\
	wcall_at(__FILE__, __LINE__, (w), (op), (fd), (n), (arg), NULL)

/* An fd opened by the worker: its index (fails the case otherwise). */
#define wopen(w) __extension__ ({					\
	struct wrep _r = wcall((w), W_OPEN, -1, 0, 0);			\
	if (_r.ret < 0)							\
		twt_fail(__FILE__, __LINE__, "uid %u: open: %s",	\
			 (w)->uid, strerror(_r.err));			\
	(int)_r.ret;							\
})

/* The worker's open fails with errno @want. */
#define CHECK_OPEN_FAILS(w, want) do {					\
	struct wrep _r = wcall((w), W_OPEN, -1, 0, 0);			\
	if (_r.ret >= 0)						\
		twt_fail(__FILE__, __LINE__, "uid %u: open succeeded, "	\
			 "want %s", (w)->uid, strerror(want));		\
	CHECK_EQ(_r.err, (want));					\
} while (0)

/* The worker adds @n timers of @kind on fd @fd, every one succeeding. */
#define CHECK_ADDS(w, fd, n, kind) do {					\
	struct wrep _r = wcall((w), W_ADD, (fd), (n), (kind));		\
	if (_r.err)							\
		twt_fail(__FILE__, __LINE__, "uid %u fd %d: add %lld "	\
			 "of %ld: %s", (w)->uid, (fd), _r.ret + 1,	\
			 (long)(n), strerror(_r.err));			\
	CHECK_EQ(_r.ret, (n));						\
} while (0)

/*
 * The worker's next add on fd @fd (of @kind) fails with ENOSPC, its struct
 * left as given, and the fd still holds @timers timers.
 */
#define CHECK_ADD_FULL(w, fd, kind, timers) do {			\
	struct wrep _r = wcall((w), W_ADD, (fd), 1, (kind));		\
	if (_r.ret)							\
		twt_fail(__FILE__, __LINE__, "uid %u fd %d: add "	\
			 "succeeded, want ENOSPC", (w)->uid, (fd));	\
	CHECK_EQ(_r.err, ENOSPC);					\
	CHECK_EQ(_r.v[0], 1);						\
	CHECK_EQ(_r.v[1], (timers));					\
} while (0)

/* fdinfo of the worker's fd @fd: @key's value. */
#define wfdinfo(w, fd, key)						\
	(wcall_at(__FILE__, __LINE__, (w), W_FDINFO, (fd), 0, 0, (key)).ret)

/* Stop a worker (its fds close with it) and reap it. */
static void worker_stop(struct worker *w)
{
	int st;

	close(w->to);
	close(w->from);
	CHECK_EQ(waitpid(w->pid, &st, 0), w->pid);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
}

/* Slab objects carry KASAN's metadata: the debug kernel. */
static int debug_kernel(void)
{
	return twt_sysfs_read("/sys/kernel/slab/twheel_timer/slab_size") !=
	       twt_sysfs_read("/sys/kernel/slab/twheel_timer/object_size");
}

/* ---- the cases ---- */

/*
 * The defaults, as the module computed them at load from RAM (the first
 * case, run-tests.sh loaded the module fresh: any other value was left by
 * an earlier program that did not restore it), the files' modes, the
 * sysctl and the module parameter being one variable, and the values
 * refused.
 */
static void defaults_body(void)
{
	static const char *const files[] = {
		SYSCTL_FDS, SYSCTL_TIMERS, PARAM_FDS, PARAM_TIMERS,
	};
	static const char *const bad[] = {
		"0", "-1", "abc", "9223372036854775808",
	};
	unsigned long long total = (unsigned long long)meminfo("MemTotal") *
				   1024, budget = total / 25;
	long long fds = (long long)(budget / 4 / FD_MAX_BYTES);
	long long timers = (long long)(budget / 4 * 3 / TIMER_MAX_BYTES);
	struct users u;
	struct stat st;
	unsigned int i, k;
	pid_t pid;
	int status;

	if (fds < 1)
		fds = 1;
	if (timers < 1)
		timers = 1;
	printf("# MemTotal %llu bytes: max_user_fds %lld, max_user_timers %lld (the formula); read %lld, %lld; a user's twheel memory at most %lld bytes\n",
	       total, fds, timers, twt_sysfs_read(SYSCTL_FDS),
	       twt_sysfs_read(SYSCTL_TIMERS),
	       fds * FD_MAX_BYTES + timers * TIMER_MAX_BYTES);
	for (i = 0; i < 4; i++) {
		CHECK_OK(stat(files[i], &st));
		if ((st.st_mode & 07777) != 0644 || !S_ISREG(st.st_mode) ||
		    st.st_uid != 0)
			twt_fail(__FILE__, __LINE__, "%s: mode %o uid %u",
				 files[i], st.st_mode, st.st_uid);
	}
	CHECK_EQ(twt_sysfs_read(SYSCTL_FDS), fds);
	CHECK_EQ(twt_sysfs_read(PARAM_FDS), fds);
	CHECK_EQ(twt_sysfs_read(SYSCTL_TIMERS), timers);
	CHECK_EQ(twt_sysfs_read(PARAM_TIMERS), timers);
	users_read(&u);
	CHECK_EQ(u.max_fds, fds);
	CHECK_EQ(u.max_timers, timers);

	/* One variable each, whichever file writes it. */
	set_limit(SYSCTL_FDS, fds + 7);
	CHECK_EQ(twt_sysfs_read(PARAM_FDS), fds + 7);
	set_limit(PARAM_TIMERS, timers + 9);
	CHECK_EQ(twt_sysfs_read(SYSCTL_TIMERS), timers + 9);
	users_read(&u);
	CHECK_EQ(u.max_fds, fds + 7);
	CHECK_EQ(u.max_timers, timers + 9);

	/* At least 1, at most LONG_MAX, a number: EINVAL, nothing changed. */
	for (i = 0; i < 4; i++) {
		long long was = twt_sysfs_read(files[i]);

		for (k = 0; k < sizeof(bad) / sizeof(bad[0]); k++) {
			CHECK_ERR(twt_sysfs_write(files[i], bad[k]), EINVAL);
			CHECK_EQ(twt_sysfs_read(files[i]), was);
		}
	}
	set_limit(SYSCTL_FDS, 1);
	set_limit(PARAM_TIMERS, 1);
	set_limit(SYSCTL_TIMERS, 9223372036854775807LL);

	/* Another user reads them and writes none. */
	fflush(stdout);
	pid = fork();
	CHECK(pid >= 0);
	if (!pid) {
		twt_become(NOBODY);
		for (i = 0; i < 4; i++) {
			CHECK(twt_sysfs_read(files[i]) >= 1);
			CHECK_ERR(open(files[i], O_WRONLY), EACCES);
		}
		_exit(0);
	}
	CHECK_EQ(waitpid(pid, &status, 0), pid);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	CHECK_EQ(twt_sysfs_read(SYSCTL_FDS), 1);
	CHECK_EQ(twt_sysfs_read(SYSCTL_TIMERS), 9223372036854775807LL);
}

static void defaults(void) { restoring(defaults_body); }

/*
 * max_user_fds: counted per user over all their processes; root is
 * another user; raising takes effect at once; lowering takes nothing away
 * (the fds held keep working) but refuses opens until the user is under
 * it again.
 */
static void fds_limit_body(void)
{
	struct worker a, b;
	int i, ra, rb;

	set_limit(SYSCTL_FDS, 5);
	a = worker_start(NOBODY);
	b = worker_start(NOBODY);
	for (i = 0; i < 3; i++)
		CHECK_EQ(wopen(&a), i);
	for (i = 0; i < 2; i++)
		CHECK_EQ(wopen(&b), i);
	CHECK_USER(NOBODY, 5, 0);
	CHECK_EQ(wfdinfo(&a, 0, "user_fds"), 5);
	CHECK_EQ(wfdinfo(&b, 1, "uid"), NOBODY);
	/* The 6th, in either process; a refused open charges nothing. */
	CHECK_OPEN_FAILS(&a, EMFILE);
	CHECK_OPEN_FAILS(&b, EMFILE);
	CHECK_USER(NOBODY, 5, 0);

	/* Root is another user: its own count, well under the limit. */
	ra = twt_open(O_NONBLOCK);
	twt_add_rel(ra, 1, 3600 * TWT_S);
	CHECK_USER(NOBODY, 5, 0);
	CHECK_USER(0, 1, 1);
	rb = twt_open(O_NONBLOCK);
	CHECK_USER(0, 2, 1);
	close(rb);

	/* Raised: the 6th open succeeds at once, the 7th does not. */
	set_limit(SYSCTL_FDS, 6);
	CHECK_EQ(wopen(&b), 2);
	CHECK_OPEN_FAILS(&a, EMFILE);
	CHECK_OPEN_FAILS(&b, EMFILE);
	CHECK_USER(NOBODY, 6, 0);
	CHECK_EQ(wfdinfo(&a, 2, "user_fds"), 6);

	/* Lowered to 2: the 6 fds held stay and work; no more opens. */
	set_limit(SYSCTL_FDS, 2);
	for (i = 0; i < 3; i++) {
		CHECK_ADDS(&a, i, 1, K_ONESHOT);
		CHECK_ADDS(&b, i, 1, K_PERIODIC);
	}
	CHECK_USER(NOBODY, 6, 6);
	CHECK_OPEN_FAILS(&a, EMFILE);
	/* Down to 2 fds: still at the limit; to 1: under it. */
	wcall(&a, W_CLOSE, -1, 0, 0);
	wcall(&b, W_CLOSE, 0, 0, 0);
	CHECK_USER(NOBODY, 2, 2);
	CHECK_OPEN_FAILS(&a, EMFILE);
	wcall(&b, W_CLOSE, 1, 0, 0);
	CHECK_USER(NOBODY, 1, 1);
	CHECK_EQ(wopen(&a), 0);
	CHECK_OPEN_FAILS(&b, EMFILE);
	CHECK_USER(NOBODY, 2, 1);

	/* The module parameter is the same limit. */
	set_limit(PARAM_FDS, 3);
	CHECK_EQ(twt_sysfs_read(SYSCTL_FDS), 3);
	CHECK_EQ(wopen(&a), 1);
	CHECK_OPEN_FAILS(&a, EMFILE);
	CHECK_OPEN_FAILS(&b, EMFILE);
	CHECK_USER(NOBODY, 3, 1);

	/* Everything closed: no line, in either way of closing. */
	wcall(&a, W_CLOSE, -1, 0, 0);
	CHECK_USER(NOBODY, 1, 1);
	worker_stop(&b);
	CHECK_NO_USER(NOBODY);
	worker_stop(&a);
	CHECK_NO_USER(NOBODY);
	close(ra);
	CHECK_NO_USER(0);
}

static void fds_limit(void) { restoring(fds_limit_body); }

/*
 * max_user_timers: the slots of every fd of a user, over their processes.
 * The add that needs a slot beyond the limit fails with ENOSPC and
 * creates nothing (single and batched); another user is not affected; the
 * slots of cancelled and read timers stay with their fd, for its next
 * timers only; raising takes effect at once; closing gives back exactly
 * what the fd held.
 */
static void timers_limit_body(void)
{
	struct worker a, b, c;
	int a0, a1, b0, b1, c0;
	struct wrep r;

	set_limit(SYSCTL_FDS, 16);
	set_limit(SYSCTL_TIMERS, 1000);
	a = worker_start(NOBODY);
	b = worker_start(NOBODY);
	c = worker_start(OTHER);
	a0 = wopen(&a);
	a1 = wopen(&a);
	b0 = wopen(&b);
	CHECK_ADDS(&a, a0, 400, K_MIX);
	CHECK_ADDS(&a, a1, 300, K_ONESHOT);
	CHECK_ADDS(&b, b0, 300, K_PERIODIC);
	CHECK_USER(NOBODY, 3, 1000);

	/* The 1001st, in each fd, one-shot or periodic. */
	CHECK_ADD_FULL(&a, a0, K_ONESHOT, 400);
	CHECK_ADD_FULL(&a, a1, K_PERIODIC, 300);
	CHECK_ADD_FULL(&b, b0, K_ONESHOT, 300);
	CHECK_USER(NOBODY, 3, 1000);

	/* A batch: each add fails alone with -ENOSPC, its id 0. */
	r = wcall(&a, W_SUBMIT, a1, 4, 0);
	CHECK_EQ(r.ret, 4);
	CHECK_EQ(r.v[0], 0);
	CHECK_EQ(r.v[1], 4);
	CHECK_EQ(r.v[2], 0);
	CHECK_EQ(r.v[3], 300);
	/* A cancel first: the slot it frees goes to the next add only. */
	r = wcall(&a, W_SUBMIT, a1, 3, 1);
	CHECK_EQ(r.ret, 4);
	CHECK_EQ(r.v[0], 1);
	CHECK_EQ(r.v[1], 2);
	CHECK_EQ(r.v[2], 0);
	CHECK_EQ(r.v[3], 300);
	CHECK_USER(NOBODY, 3, 1000);

	/* Another user has a budget of their own. */
	c0 = wopen(&c);
	CHECK_ADDS(&c, c0, 10, K_MIX);
	CHECK_USER(OTHER, 1, 10);
	CHECK_USER(NOBODY, 3, 1000);

	/* 100 cancelled in a0: their slots stay a0's, for a0's timers. */
	r = wcall(&a, W_CANCEL, a0, 100, 0);
	CHECK_EQ(r.ret, 100);
	CHECK_EQ(wcall(&a, W_INFO, a0, 0, 0).ret, 300);
	CHECK_USER(NOBODY, 3, 1000);
	CHECK_EQ(wfdinfo(&a, a0, "slots"), 400);
	CHECK_ADD_FULL(&a, a1, K_ONESHOT, 300);
	CHECK_ADD_FULL(&b, b0, K_ONESHOT, 300);
	CHECK_ADDS(&a, a0, 100, K_MIX);
	CHECK_ADD_FULL(&a, a0, K_ONESHOT, 400);

	/* So does the slot of a timer whose record was read. */
	CHECK_EQ(wcall(&a, W_CANCEL, a0, 1, 0).ret, 1);
	r = wcall(&a, W_ADD_NOW, a0, 0, 0);
	CHECK_EQ(r.ret, 0);
	CHECK_ADD_FULL(&a, a0, K_ONESHOT, 400);
	CHECK_EQ(wcall(&a, W_READ, a0, 0, 0).ret, 1);
	CHECK_EQ(wcall(&a, W_INFO, a0, 0, 0).ret, 399);
	CHECK_ADD_FULL(&b, b0, K_ONESHOT, 300);
	CHECK_ADDS(&a, a0, 1, K_ONESHOT);
	CHECK_ADD_FULL(&a, a0, K_ONESHOT, 400);
	CHECK_USER(NOBODY, 3, 1000);

	/* Raised to 1100: 100 more, at once, in any fd. */
	set_limit(SYSCTL_TIMERS, 1100);
	CHECK_ADDS(&b, b0, 100, K_ONESHOT);
	CHECK_ADD_FULL(&b, b0, K_ONESHOT, 400);
	CHECK_ADD_FULL(&a, a0, K_PERIODIC, 400);
	CHECK_USER(NOBODY, 3, 1100);
	CHECK_USER(OTHER, 1, 10);

	/* fdinfo: the fd's slots, its user's totals, from either process. */
	CHECK_EQ(wfdinfo(&a, a0, "slots"), 400);
	CHECK_EQ(wfdinfo(&a, a1, "slots"), 300);
	CHECK_EQ(wfdinfo(&b, b0, "slots"), 400);
	CHECK_EQ(wfdinfo(&a, a1, "uid"), NOBODY);
	CHECK_EQ(wfdinfo(&a, a1, "user_fds"), 3);
	CHECK_EQ(wfdinfo(&a, a1, "user_timers"), 1100);
	CHECK_EQ(wfdinfo(&b, b0, "user_fds"), 3);
	CHECK_EQ(wfdinfo(&b, b0, "user_timers"), 1100);
	CHECK_EQ(wfdinfo(&c, c0, "uid"), OTHER);
	CHECK_EQ(wfdinfo(&c, c0, "user_fds"), 1);
	CHECK_EQ(wfdinfo(&c, c0, "user_timers"), 10);
	CHECK_EQ(wfdinfo(&c, c0, "slots"), 10);

	/* Closing gives back exactly the fd's slots. */
	wcall(&a, W_CLOSE, a1, 0, 0);
	CHECK_USER(NOBODY, 2, 800);
	CHECK_EQ(wfdinfo(&b, b0, "user_timers"), 800);
	CHECK_ADDS(&a, a0, 300, K_ONESHOT);
	CHECK_ADD_FULL(&b, b0, K_ONESHOT, 400);
	CHECK_USER(NOBODY, 2, 1100);
	wcall(&a, W_CLOSE, -1, 0, 0);
	wcall(&b, W_CLOSE, -1, 0, 0);
	CHECK_NO_USER(NOBODY);
	CHECK_USER(OTHER, 1, 10);

	/* A fresh fd has the whole budget again, and not one more. */
	b1 = wopen(&b);
	CHECK_ADDS(&b, b1, 1100, K_MIX);
	CHECK_ADD_FULL(&b, b1, K_ONESHOT, 1100);
	CHECK_USER(NOBODY, 1, 1100);
	worker_stop(&b);
	worker_stop(&a);
	CHECK_NO_USER(NOBODY);
	worker_stop(&c);
	CHECK_NO_USER(OTHER);
}

static void timers_limit(void) { restoring(timers_limit_body); }

/* /proc/driver/twheel: root's only (mode 0400), listing fds and slots. */
static void proc_file_body(void)
{
	struct stat st;
	struct users u;
	pid_t pid;
	int status, fd;

	CHECK_OK(stat(PROC_USERS, &st));
	printf("# %s: mode %o uid %u gid %u\n", PROC_USERS,
	       st.st_mode & 07777, st.st_uid, st.st_gid);
	CHECK(S_ISREG(st.st_mode));
	CHECK_EQ(st.st_mode & 07777, 0400);
	CHECK_EQ(st.st_uid, 0);
	CHECK_EQ(st.st_gid, 0);
	users_read(&u);
	CHECK_EQ(u.max_fds, twt_sysfs_read(SYSCTL_FDS));
	CHECK_EQ(u.max_timers, twt_sysfs_read(SYSCTL_TIMERS));
	CHECK_NO_USER(NOBODY);

	/* Another user may not read it, not even while holding an fd. */
	fflush(stdout);
	pid = fork();
	CHECK(pid >= 0);
	if (!pid) {
		twt_become(NOBODY);
		fd = twt_open(0);
		CHECK_ERR(open(PROC_USERS, O_RDONLY), EACCES);
		CHECK_ERR(open(PROC_USERS, O_WRONLY), EACCES);
		/* fdinfo shows the user their own totals instead. */
		close(fd);
		_exit(0);
	}
	CHECK_EQ(waitpid(pid, &status, 0), pid);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	CHECK_NO_USER(NOBODY);
}

static void proc_file(void) { restoring(proc_file_body); }

/* The kernel's count of OOM kills (/proc/vmstat oom_kill), or -1. */
static long long oom_kills(void)
{
	long long v = -1;
	char line[128];
	FILE *f = fopen("/proc/vmstat", "r");

	CHECK(f);
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "oom_kill %lld", &v) == 1)
			break;
	fclose(f);
	return v;
}

/*
 * What one user can make the kernel hold, with no memory cgroup to stop
 * them, is bounded by the limits: 8 fds and 100 000 slots (20 000 on the
 * debug kernel) filled by two processes of uid 65534 with one-shot and
 * periodic timers, EMFILE and ENOSPC exactly at the limits; the kernel's
 * Slab + VmallocUsed grew by at most 8 * FD_MAX_BYTES + slots *
 * TIMER_MAX_BYTES (not asserted on the debug kernel, whose KASAN metadata
 * is on top). Root
 * meanwhile allocates and touches 200 MiB (at most a quarter of
 * MemAvailable) without being OOM-killed. Closing gives the memory back
 * (within 10% of the growth, after the caches' empty slabs are shrunk).
 */
static void memory_bound_body(void)
{
	const int debug = debug_kernel();
	const long slots = debug ? 20000 : 100000, per = slots / 8;
	long long before, after, end, bound, hog, oom0, off;
	struct worker a, b;
	int fa[5], fb[3], i, status;
	struct wrep r;
	pid_t pid;
	char *p;

	set_limit(SYSCTL_FDS, 8);
	set_limit(SYSCTL_TIMERS, slots);
	a = worker_start(NOBODY);
	b = worker_start(NOBODY);
	/* Both have answered once: they run as 65534, set up for good. */
	wcall(&a, W_CLOSE, -1, 0, 0);
	wcall(&b, W_CLOSE, -1, 0, 0);
	CHECK_NO_USER(NOBODY);
	shrink_slabs();
	before = kmem_bytes();

	/* 8 fds over two processes; the 9th fails in either. */
	for (i = 0; i < 5; i++)
		fa[i] = wopen(&a);
	for (i = 0; i < 3; i++)
		fb[i] = wopen(&b);
	CHECK_OPEN_FAILS(&a, EMFILE);
	CHECK_OPEN_FAILS(&b, EMFILE);
	/* slots / 8 timers each, one-shot and periodic alternating. */
	for (i = 0; i < 5; i++)
		CHECK_ADDS(&a, fa[i], per, K_MIX);
	for (i = 0; i < 2; i++)
		CHECK_ADDS(&b, fb[i], per, K_MIX);
	/* The last fd: asked for one more than its share, it gets its share. */
	r = wcall(&b, W_ADD, fb[2], per + 1, K_MIX);
	CHECK_EQ(r.ret, per);
	CHECK_EQ(r.err, ENOSPC);
	CHECK_EQ(r.v[0], 1);
	CHECK_EQ(r.v[1], per);
	for (i = 0; i < 5; i++)
		CHECK_ADD_FULL(&a, fa[i], K_PERIODIC, per);
	CHECK_USER(NOBODY, 8, slots);
	CHECK_EQ(wfdinfo(&a, fa[0], "user_timers"), slots);
	CHECK_EQ(wfdinfo(&b, fb[2], "user_fds"), 8);
	after = kmem_bytes();
	bound = 8 * FD_MAX_BYTES + slots * TIMER_MAX_BYTES;
	printf("# memory_bound: 8 fds, %ld timers (half periodic): Slab + VmallocUsed grew %lld bytes (%.1f per timer, fds included), bound %lld%s\n",
	       slots, after - before, (double)(after - before) / slots, bound,
	       debug ? " (not asserted: KASAN)" : "");
	if (!debug)
		CHECK(after - before <= bound);

	/* Root allocates and touches memory meanwhile: no OOM kill. */
	oom0 = oom_kills();
	hog = meminfo("MemAvailable") * 1024 / 4;
	if (hog > 200LL << 20)
		hog = 200LL << 20;
	fflush(stdout);
	pid = fork();
	CHECK(pid >= 0);
	if (!pid) {
		p = malloc(hog);
		if (!p)
			_exit(2);
		for (off = 0; off < hog; off += 4096)
			p[off] = 1;
		_exit(0);
	}
	CHECK_EQ(waitpid(pid, &status, 0), pid);
	printf("# memory_bound: root allocated and touched %lld MiB: %s %d\n",
	       hog >> 20, WIFEXITED(status) ? "exit" : "signal",
	       WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
	CHECK(WIFEXITED(status));
	CHECK_EQ(WEXITSTATUS(status), 0);
	CHECK_EQ(oom_kills(), oom0);
	CHECK_USER(NOBODY, 8, slots);

	/* Closed: the user is gone, the memory back. */
	wcall(&a, W_CLOSE, -1, 0, 0);
	CHECK_USER(NOBODY, 3, 3 * per);
	wcall(&b, W_CLOSE, -1, 0, 0);
	CHECK_NO_USER(NOBODY);
	worker_stop(&a);
	worker_stop(&b);
	shrink_slabs();
	end = kmem_bytes();
	printf("# memory_bound: after closing, Slab + VmallocUsed is %lld bytes from the start (growth was %lld)%s\n",
	       end - before, after - before,
	       debug ? " (not asserted: KASAN's quarantine)" : "");
	if (!debug)
		CHECK(end - before <= (after - before) / 10);
}

static void memory_bound(void) { restoring(memory_bound_body); }

TWT_MAIN("users",
	 TWT_CASE(defaults),
	 TWT_CASE(fds_limit),
	 TWT_CASE_T(timers_limit, 120),
	 TWT_CASE(proc_file),
	 TWT_CASE_T(memory_bound, 600))
