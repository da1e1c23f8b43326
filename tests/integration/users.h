/* SPDX-License-Identifier: GPL-2.0 */
/*
 * users.h - for the tests of the per-user limits (users.c,
 * users_memory.c): the limits' byte sizes and the users' ids, and the
 * workers.
 *
 * Each case runs its body in a child of its own process group and then,
 * whatever happened to the body (a failed check, a time-out), kills what
 * is left of it and writes both sysctls back: the programs that run after
 * this one in the VM see the limits as they were. The unprivileged users
 * are worker processes (uid 65534, "nobody", and 65533) that do what the
 * case asks them over a pipe.
 */
#ifndef USERS_H
#define USERS_H

#include <dirent.h>
#include <sys/prctl.h>
#include <sys/stat.h>

#define TWLIMITS_USERS
#include "twlimits.h"

/*
 * kmod/twheel_user.h: TWHEEL_FD_MAX_BYTES, TWHEEL_TIMER_MAX_BYTES, the most
 * kernel memory an fd and a timer slot may hold, from which the defaults
 * are derived (keep in step with the module).
 */
#define FD_MAX_BYTES	65536LL
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

static inline void wf_reserve(struct wfd *f, long n)
{
	if (n <= f->cap)
		return;
	f->cap = n + n / 2 + 64;
	f->ids = realloc(f->ids, f->cap * sizeof(*f->ids));
	CHECK(f->ids);
}

static inline long long wf_timers(struct wfd *f)
{
	struct twheel_info info;

	memset(&info, 0, sizeof(info));
	CHECK_OK(ioctl(f->fd, TWHEEL_IOC_INFO, &info));
	return (long long)info.timers;
}

static inline void w_add(struct wfd *f, long n, long kind, struct wrep *r)
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

static inline void w_submit(struct wfd *f, long adds, long cancels, struct wrep *r)
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

static inline void worker_serve(const struct wreq *q, struct wrep *r)
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

static inline void __attribute__((noreturn)) worker_main(int in, int out)
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
static inline struct worker worker_start(unsigned int uid)
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

static inline struct wrep wcall_at(const char *file, int line, struct worker *w,
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
static inline void worker_stop(struct worker *w)
{
	int st;

	close(w->to);
	close(w->from);
	CHECK_EQ(waitpid(w->pid, &st, 0), w->pid);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
}


#endif /* USERS_H */
