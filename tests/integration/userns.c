// SPDX-License-Identifier: GPL-2.0
/*
 * userns: the per-user limits across user namespaces (kmod/twheel_user.c).
 * An fd and its timer slots are charged to the opener (their user
 * namespace and effective uid) and to the creator of each namespace above
 * them, up to the initial one, where fs.twheel.max_user_fds (EMFILE at
 * open) and fs.twheel.max_user_timers (ENOSPC at add) bound the creator's
 * total: a user who maps 8 ids into a namespace of theirs, or nests
 * namespaces, has one budget, not one per id.
 *
 * The namespaces are real: uid 2000 unshares a user namespace (ns1) whose
 * uid_map and gid_map, "0 100000 8", root writes; ns1's uid 0 unshares a
 * nested one (ns2) mapping ns1's ids 4 to 7 ("0 4 4"), written by another
 * process of ns1's uid 0. Workers join a namespace (setns) and take one of
 * its ids, then open, add and close as the case asks them over a socket.
 * /proc/driver/twheel lists the users of the initial namespace only: the
 * creator's row is their total. The limits are written back whatever
 * happens (twlimits.h).
 */
#define _GNU_SOURCE
#include <sched.h>
#include <sys/prctl.h>
#include <sys/socket.h>

#define TWLIMITS_USERS
#include "twlimits.h"

#define CREATOR		2000
#define OTHER		2001
#define NIDS		8
#define W_FDS		8

/* ---- namespaces ---- */

/* A user namespace, alive while its holder waits for @ctl to close. */
struct uns {
	pid_t pid;
	int ctl;
};

/* Join the user namespace of process @holder as its @uid (gid the same). */
static void join(pid_t holder, unsigned int uid)
{
	char path[64];
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/ns/user", (int)holder);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	CHECK(fd >= 0);
	CHECK_OK(setns(fd, CLONE_NEWUSER));
	close(fd);
	CHECK_OK(setgroups(0, NULL));
	CHECK_OK(setresgid(uid, uid, uid));
	CHECK_OK(setresuid(uid, uid, uid));
	CHECK_EQ(geteuid(), uid);
}

static void write_file(const char *file, int line, pid_t pid,
		       const char *name, const char *text)
{
	char path[64];
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/%s", (int)pid, name);
	fd = open(path, O_WRONLY);
	if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text))
		twt_fail(file, line, "write '%s' to %s: %s", text, path,
			 strerror(errno));
	close(fd);
}

/*
 * A new user namespace with @map as its uid_map and gid_map, unshared by
 * @uid: of the initial namespace when @parent is NULL (root writes the
 * maps), else of @parent's namespace (a process of @parent's uid 0 writes
 * them). Skips the case where the kernel has no user namespaces.
 */
static struct uns ns_make_at(const char *file, int line,
			     const struct uns *parent, unsigned int uid,
			     const char *map)
{
	int ctl[2], st[2], err = 0, status, i;
	struct uns ns;
	pid_t pid;

	if (access("/proc/self/ns/user", F_OK))
		twt_skip("no user namespaces in this kernel (CONFIG_USER_NS)");
	CHECK_OK(pipe(ctl));
	CHECK_OK(pipe(st));
	fflush(stdout);
	ns.pid = fork();
	CHECK(ns.pid >= 0);
	if (!ns.pid) {
		for (i = 3; i < 1024; i++)
			if (i != ctl[0] && i != st[1])
				close(i);
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (parent)
			join(parent->pid, uid);
		else
			twt_become(uid);
		if (unshare(CLONE_NEWUSER))
			err = errno;
		/* Its /proc files its own uid's, for the maps' writer. */
		prctl(PR_SET_DUMPABLE, 1);
		CHECK_EQ(write(st[1], &err, sizeof(err)), sizeof(err));
		/* Hold the namespace until the case closes ctl. */
		while (read(ctl[0], &err, 1) > 0)
			;
		_exit(0);
	}
	close(ctl[0]);
	close(st[1]);
	CHECK_EQ(read(st[0], &err, sizeof(err)), sizeof(err));
	close(st[0]);
	if (err == EINVAL)
		twt_skip("no user namespaces in this kernel (CONFIG_USER_NS)");
	/* Debian's kernel.unprivileged_userns_clone = 0, or a zero quota. */
	if (!parent && (err == EPERM || err == ENOSPC))
		twt_skip("unprivileged user namespaces are turned off here");
	if (err)
		twt_fail(file, line, "uid %u: unshare(CLONE_NEWUSER): %s", uid,
			 strerror(err));
	ns.ctl = ctl[1];
	if (!parent) {
		write_file(file, line, ns.pid, "uid_map", map);
		write_file(file, line, ns.pid, "gid_map", map);
		return ns;
	}
	fflush(stdout);
	pid = fork();
	CHECK(pid >= 0);
	if (!pid) {
		join(parent->pid, 0);
		write_file(file, line, ns.pid, "uid_map", map);
		write_file(file, line, ns.pid, "gid_map", map);
		_exit(0);
	}
	CHECK_EQ(waitpid(pid, &status, 0), pid);
	if (!WIFEXITED(status) || WEXITSTATUS(status))
		twt_fail(file, line, "writing the nested namespace's maps");
	return ns;
}

#define ns_make(parent, uid, map)					\
	ns_make_at(__FILE__, __LINE__, (parent), (uid), (map))

static void ns_end(struct uns *ns)
{
	int status;

	close(ns->ctl);
	CHECK_EQ(waitpid(ns->pid, &status, 0), ns->pid);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

/* ---- workers: processes of a namespace's id, driven over a socket ---- */

enum wop {
	W_OPEN = 1,	/* open /dev/twheel: err 0 or the errno */
	W_ADD,		/* n timers on the last fd: ret added, err the failure */
	W_CLOSE,	/* close every fd */
	W_FDINFO,	/* ret: the first fd's fdinfo value of key, or -1 */
	W_SEND,		/* pass the first fd to the case (SCM_RIGHTS), close it */
};

struct wreq {
	int op;
	long n;
	char key[32];
};

struct wrep {
	long long ret;
	int err;
};

struct worker {
	pid_t pid;
	int sock;
	char who[32];
};

static int wfd[W_FDS], nwfd;

static void w_send(int sock, struct wrep *r)
{
	char cbuf[CMSG_SPACE(sizeof(int))];
	struct iovec iov = { .iov_base = r, .iov_len = sizeof(*r) };
	struct msghdr msg = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = cbuf, .msg_controllen = sizeof(cbuf),
	};
	struct cmsghdr *c;

	memset(cbuf, 0, sizeof(cbuf));
	c = CMSG_FIRSTHDR(&msg);
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(c), &wfd[0], sizeof(int));
	CHECK_EQ(sendmsg(sock, &msg, 0), sizeof(*r));
	CHECK_OK(close(wfd[0]));
	wfd[0] = wfd[--nwfd];
}

static void worker_serve(int sock, const struct wreq *q, struct wrep *r)
{
	long long v;
	long i;

	switch (q->op) {
	case W_OPEN:
		CHECK(nwfd < W_FDS);
		wfd[nwfd] = open(TWT_DEV, O_RDWR | O_NONBLOCK | O_CLOEXEC);
		if (wfd[nwfd] < 0)
			r->err = errno;
		else
			nwfd++;
		break;
	case W_ADD:
		CHECK(nwfd > 0);
		for (i = 0; i < q->n; i++) {
			if (twt_add_raw(wfd[nwfd - 1], i, 3600 * TWT_S, 0,
					CLOCK_MONOTONIC, NULL)) {
				r->err = errno;
				break;
			}
		}
		r->ret = i;
		break;
	case W_CLOSE:
		while (nwfd)
			CHECK_OK(close(wfd[--nwfd]));
		break;
	case W_FDINFO:
		CHECK(nwfd > 0);
		r->ret = twt_fdinfo(wfd[0], q->key, &v) ? -1 : v;
		break;
	case W_SEND:
		CHECK(nwfd > 0);
		w_send(sock, r);
		return;
	default:
		CHECK(0);
	}
	CHECK_EQ(write(sock, r, sizeof(*r)), sizeof(*r));
}

/*
 * A worker as @uid of @ns's namespace, or of the initial one when @ns is
 * NULL; it holds no fd of the case's.
 */
static struct worker worker_start(const struct uns *ns, unsigned int uid)
{
	struct worker w;
	struct wreq q;
	struct wrep r;
	int sv[2], i;

	snprintf(w.who, sizeof(w.who), "%s uid %u", ns ? "ns" : "init", uid);
	CHECK_OK(socketpair(AF_UNIX, SOCK_STREAM, 0, sv));
	fflush(stdout);
	w.pid = fork();
	CHECK(w.pid >= 0);
	if (!w.pid) {
		for (i = 3; i < 1024; i++)
			if (i != sv[1])
				close(i);
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (ns)
			join(ns->pid, uid);
		else
			twt_become(uid);
		for (;;) {
			ssize_t n = read(sv[1], &q, sizeof(q));

			if (!n)
				_exit(0);
			CHECK_EQ(n, sizeof(q));
			memset(&r, 0, sizeof(r));
			worker_serve(sv[1], &q, &r);
		}
	}
	close(sv[1]);
	w.sock = sv[0];
	return w;
}

static struct wrep wcall_at(const char *file, int line, struct worker *w,
			    int op, long n, const char *key, int *fd)
{
	char cbuf[CMSG_SPACE(sizeof(int))];
	struct wrep r;
	struct iovec iov = { .iov_base = &r, .iov_len = sizeof(r) };
	struct msghdr msg = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = cbuf, .msg_controllen = sizeof(cbuf),
	};
	struct cmsghdr *c;
	struct wreq q;

	memset(&q, 0, sizeof(q));
	q.op = op;
	q.n = n;
	if (key)
		snprintf(q.key, sizeof(q.key), "%s", key);
	if (write(w->sock, &q, sizeof(q)) != sizeof(q) ||
	    recvmsg(w->sock, &msg, 0) != sizeof(r))
		twt_fail(file, line, "worker %s died doing op %d", w->who, op);
	c = CMSG_FIRSTHDR(&msg);
	if (fd) {
		if (!c || c->cmsg_type != SCM_RIGHTS)
			twt_fail(file, line, "worker %s sent no fd", w->who);
		memcpy(fd, CMSG_DATA(c), sizeof(int));
	}
	return r;
}

#define wcall(w, op, n)							\
	wcall_at(__FILE__, __LINE__, (w), (op), (n), NULL, NULL)

/* The worker's open succeeds (@want 0) or fails with errno @want. */
#define CHECK_OPEN(w, want) do {					\
	struct wrep _r = wcall((w), W_OPEN, 0);				\
	if (_r.err != (want))						\
		twt_fail(__FILE__, __LINE__, "%s: open: %s, want %s",	\
			 (w)->who, _r.err ? strerror(_r.err) : "success", \
			 (want) ? strerror(want) : "success");		\
} while (0)

/*
 * The worker asks for @n timers on its last fd: @added are added, then
 * the next fails with errno @want (0: all @n added).
 */
#define CHECK_ADD(w, n, added, want) do {				\
	struct wrep _r = wcall((w), W_ADD, (n));			\
	if (_r.ret != (added) || _r.err != (want))			\
		twt_fail(__FILE__, __LINE__,				\
			 "%s: %lld of %ld added (%s), want %ld (%s)",	\
			 (w)->who, _r.ret, (long)(n),			\
			 _r.err ? strerror(_r.err) : "no error",	\
			 (long)(added), (want) ? strerror(want) : "no error"); \
} while (0)

#define wfdinfo(w, key)							\
	(wcall_at(__FILE__, __LINE__, (w), W_FDINFO, 0, (key), NULL).ret)

static void worker_stop(struct worker *w)
{
	int st;

	close(w->sock);
	CHECK_EQ(waitpid(w->pid, &st, 0), w->pid);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
}

/* ---- the cases ---- */

/*
 * max_user_fds 4: ns1's 8 ids open 4 fds in all (their creator's budget),
 * the 5th open fails with EMFILE whichever id asks, and so does the
 * creator's own; another user is not affected. A closed fd gives the
 * budget back to any of them. ns2, made by ns1's uid 0, counts against
 * ns1's uid 0 (whose fdinfo shows ns2's fds) and against the creator.
 * Everything closed, the creator has no row left.
 */
static void fds_body(void)
{
	struct worker w[NIDS], v[4], c, o;
	struct uns ns1, ns2;
	int k;

	set_limit(SYSCTL_FDS, 4);
	set_limit(SYSCTL_TIMERS, 1000);
	ns1 = ns_make(NULL, CREATOR, "0 100000 8");
	for (k = 0; k < NIDS; k++)
		w[k] = worker_start(&ns1, k);
	c = worker_start(NULL, CREATOR);
	o = worker_start(NULL, OTHER);

	for (k = 0; k < 4; k++)
		CHECK_OPEN(&w[k], 0);
	CHECK_USER(CREATOR, 4, 0);
	for (k = 4; k < NIDS; k++)
		CHECK_OPEN(&w[k], EMFILE);
	CHECK_OPEN(&w[0], EMFILE);
	CHECK_OPEN(&c, EMFILE);
	CHECK_USER(CREATOR, 4, 0);
	/* The namespace's ids have no rows of their own. */
	for (k = 0; k < NIDS; k++)
		CHECK_NO_USER(100000 + k);
	/* fdinfo: the opener in their namespace, and what they hold there. */
	CHECK_EQ(wfdinfo(&w[1], "uid"), 1);
	CHECK_EQ(wfdinfo(&w[1], "user_fds"), 1);
	CHECK_OPEN(&o, 0);
	CHECK_USER(OTHER, 1, 0);

	/* A closed fd: one more open, for the creator or any id. */
	wcall(&w[1], W_CLOSE, 0);
	CHECK_USER(CREATOR, 3, 0);
	CHECK_OPEN(&c, 0);
	CHECK_USER(CREATOR, 4, 0);
	CHECK_OPEN(&w[5], EMFILE);
	wcall(&c, W_CLOSE, 0);
	CHECK_OPEN(&w[5], 0);
	CHECK_USER(CREATOR, 4, 0);
	for (k = 0; k < NIDS; k++)
		wcall(&w[k], W_CLOSE, 0);
	CHECK_NO_USER(CREATOR);

	/* Nested: ns2's ids count against ns1's uid 0 and the creator. */
	ns2 = ns_make(&ns1, 0, "0 4 4");
	for (k = 0; k < 4; k++)
		v[k] = worker_start(&ns2, k);
	CHECK_OPEN(&w[0], 0);
	for (k = 0; k < 3; k++)
		CHECK_OPEN(&v[k], 0);
	CHECK_USER(CREATOR, 4, 0);
	CHECK_EQ(wfdinfo(&w[0], "user_fds"), 4);
	CHECK_EQ(wfdinfo(&v[2], "uid"), 2);
	CHECK_EQ(wfdinfo(&v[2], "user_fds"), 1);
	CHECK_OPEN(&v[3], EMFILE);
	CHECK_OPEN(&w[0], EMFILE);
	CHECK_OPEN(&w[6], EMFILE);
	CHECK_OPEN(&c, EMFILE);
	wcall(&v[1], W_CLOSE, 0);
	CHECK_EQ(wfdinfo(&w[0], "user_fds"), 3);
	CHECK_OPEN(&w[6], 0);
	CHECK_OPEN(&v[3], EMFILE);
	CHECK_USER(CREATOR, 4, 0);

	/* Everything closed, by the processes' ends: no row left. */
	for (k = 0; k < 4; k++)
		worker_stop(&v[k]);
	CHECK_USER(CREATOR, 2, 0);
	ns_end(&ns2);
	for (k = 0; k < NIDS; k++)
		worker_stop(&w[k]);
	ns_end(&ns1);
	worker_stop(&c);
	CHECK_NO_USER(CREATOR);
	CHECK_USER(OTHER, 1, 0);
	worker_stop(&o);
	CHECK_NO_USER(OTHER);
}

static void fds(void) { restoring(fds_body); }

/*
 * max_user_timers 1000: ns1's 8 ids, 150 timers asked by each, get 1000
 * in all, the add beyond failing with ENOSPC; the creator's own fd and
 * ns2's ids get none; timers a closed fd held go back to any of them.
 */
static void timers_body(void)
{
	struct worker w[NIDS], c, v;
	struct uns ns1, ns2;
	int k;

	set_limit(SYSCTL_FDS, 16);
	set_limit(SYSCTL_TIMERS, 1000);
	ns1 = ns_make(NULL, CREATOR, "0 100000 8");
	for (k = 0; k < NIDS; k++) {
		w[k] = worker_start(&ns1, k);
		CHECK_OPEN(&w[k], 0);
	}
	for (k = 0; k < 6; k++)
		CHECK_ADD(&w[k], 150, 150, 0);
	CHECK_ADD(&w[6], 150, 100, ENOSPC);
	CHECK_ADD(&w[7], 1, 0, ENOSPC);
	CHECK_ADD(&w[0], 1, 0, ENOSPC);
	CHECK_USER(CREATOR, 8, 1000);
	CHECK_EQ(wfdinfo(&w[2], "user_timers"), 150);
	CHECK_EQ(wfdinfo(&w[6], "user_timers"), 100);
	c = worker_start(NULL, CREATOR);
	CHECK_OPEN(&c, 0);
	CHECK_ADD(&c, 1, 0, ENOSPC);
	CHECK_USER(CREATOR, 9, 1000);

	ns2 = ns_make(&ns1, 0, "0 4 4");
	v = worker_start(&ns2, 1);
	CHECK_OPEN(&v, 0);
	CHECK_ADD(&v, 1, 0, ENOSPC);
	CHECK_EQ(wfdinfo(&w[0], "user_fds"), 2);

	/* w[6]'s 100 slots back: ns2 takes them, counted at ns1's uid 0. */
	wcall(&w[6], W_CLOSE, 0);
	CHECK_USER(CREATOR, 9, 900);
	CHECK_ADD(&v, 101, 100, ENOSPC);
	CHECK_EQ(wfdinfo(&w[0], "user_timers"), 250);
	CHECK_EQ(wfdinfo(&v, "user_timers"), 100);
	CHECK_ADD(&c, 1, 0, ENOSPC);
	CHECK_USER(CREATOR, 9, 1000);

	worker_stop(&v);
	ns_end(&ns2);
	CHECK_USER(CREATOR, 8, 900);
	for (k = 0; k < NIDS; k++)
		worker_stop(&w[k]);
	ns_end(&ns1);
	CHECK_USER(CREATOR, 1, 0);
	CHECK_ADD(&c, 1000, 1000, 0);
	CHECK_ADD(&c, 1, 0, ENOSPC);
	worker_stop(&c);
	CHECK_NO_USER(CREATOR);
}

static void timers(void) { restoring(timers_body); }

/*
 * An fd opened in a namespace stays charged to its opener's levels when
 * passed to root, after every process of the namespace has ended: root's
 * adds on it count against the creator (ENOSPC at the limit), and closing
 * it gives everything back.
 */
static void passed_body(void)
{
	struct worker w;
	struct uns ns1;
	int fd, i;

	set_limit(SYSCTL_FDS, 4);
	set_limit(SYSCTL_TIMERS, 100);
	ns1 = ns_make(NULL, CREATOR, "0 100000 8");
	w = worker_start(&ns1, 3);
	CHECK_OPEN(&w, 0);
	CHECK_ADD(&w, 60, 60, 0);
	wcall_at(__FILE__, __LINE__, &w, W_SEND, 0, NULL, &fd);
	worker_stop(&w);
	ns_end(&ns1);
	CHECK_USER(CREATOR, 1, 60);
	CHECK_NO_USER(0);
	for (i = 0; i < 40; i++)
		CHECK_OK(twt_add_raw(fd, i, 3600 * TWT_S, 0, CLOCK_MONOTONIC,
				     NULL));
	CHECK_ERR(twt_add_raw(fd, 0, 3600 * TWT_S, 0, CLOCK_MONOTONIC, NULL),
		  ENOSPC);
	CHECK_USER(CREATOR, 1, 100);
	CHECK_EQ(twt_timers(fd), 100);
	CHECK_OK(close(fd));
	CHECK_NO_USER(CREATOR);
}

static void passed(void) { restoring(passed_body); }

TWT_MAIN("userns",
	 TWT_CASE_T(fds, 120),
	 TWT_CASE_T(timers, 120),
	 TWT_CASE(passed))
