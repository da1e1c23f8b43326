// SPDX-License-Identifier: GPL-2.0
/*
 * idle_tw.c - the kernel modes of the idle-timeout phase (idle.c):
 *
 * table    a twheel fd (CLOCK_MONOTONIC, 1 ms tick) with the shared timer
 *          table: an activity is one store into the timer's mapped entry;
 *          the kernel re-places the timer when its placed deadline comes
 *          due (in the loop's epoll_pwait2, woken by the fd's hrtimer).
 *          The fd has the record ring (TWHEEL_CONFIG_RING), mapped: the
 *          poll of the loop's epoll_pwait2 moves due records into it,
 *          which the loop consumes after the wait; a read(2) only when
 *          the fd was reported readable and the ring gave nothing
 *          (records left queued).
 * table-read  the same fd without the ring: the records by read(2).
 * modify   the same fd without a table or a ring: TWHEEL_IOC_MODIFY per
 *          activity.
 * b64      TWHEEL_IOC_SUBMIT of the loop turn's MODIFYs, 64 at most each.
 * timerfd  one timerfd per timer, all in the loop's epoll: settime per
 *          activity.
 * uring    io_uring: IORING_OP_TIMEOUT (absolute, CLOCK_MONOTONIC) per
 *          timer; an activity queues IORING_TIMEOUT_UPDATE (with
 *          IOSQE_CQE_SKIP_SUCCESS when the kernel has it), submitted once
 *          per loop turn (one io_uring_enter); the ring's fd is in the
 *          loop's epoll, completions reaped from the mapped ring.
 *
 * A due timer's record (twheel), readiness (timerfd) or -ETIME completion
 * (io_uring) is a close: checked, and the timer is added again.
 */
#include <fcntl.h>
#include <liburing.h>
#include <sys/mman.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include "idle.h"

/* ---- twheel ---- */

struct tw {
	int fd;
	int table;
	uint64_t *ids;
	struct twheel_table tab;
	struct twheel_ring *ring;	/* mapped record ring, or NULL */
	uint32_t head;			/* the ring's records consumed */
	uint64_t ring_recs, read_recs;	/* ring mode: records by the ring,
					 * by read(2) */
	uint64_t ring_reads;		/* wake-ups with the ring empty */
	struct twheel_op ops[256];
	int nops;
	long cnt;
};

static struct twheel_event tw_ev[256];

static void tw_submit(struct ictx *c, struct tw *t, int add)
{
	int j, n = t->nops;

	t->nops = 0;
	if (!n)
		return;
	if (SYS(c, twheel_submit(t->fd, t->ops, n)) != n)
		die("idle %s: SUBMIT of %d", c->m->name, n);
	for (j = 0; j < n; j++) {
		if (t->ops[j].error)
			die("idle %s: batched op %u: error %d", c->m->name,
			    t->ops[j].op, t->ops[j].error);
		if (add)
			t->ids[t->ops[j].cookie] = t->ops[j].id;
	}
}

/* Flags of tw_setup(). */
#define TW_TABLE	1	/* the shared timer table */
#define TW_RING		2	/* the record ring */

static void tw_setup(struct ictx *c, const int64_t *key, int flags)
{
	struct tw *t = xcalloc(1, sizeof(*t));
	struct twheel_config cfg = {
		.tick_ns = I_TICK_NS,
		.flags = TWHEEL_CONFIG_MAX_TIMERS |
			 (flags & TW_TABLE ? TWHEEL_CONFIG_TABLE : 0) |
			 (flags & TW_RING ? TWHEEL_CONFIG_RING : 0),
		.max_timers = c->n + 64,
	};
	long h, p;

	t->table = !!(flags & TW_TABLE);
	t->ids = xcalloc(c->n, sizeof(*t->ids));
	t->fd = twheel_open(O_CLOEXEC | O_NONBLOCK);
	if (t->fd < 0)
		die("idle: twheel_open");
	if (twheel_config(t->fd, &cfg))
		die("idle: TWHEEL_IOC_CONFIG");
	if (flags & TW_RING) {
		t->ring = mmap(NULL, sizeof(*t->ring), PROT_READ | PROT_WRITE,
			       MAP_SHARED, t->fd, TWHEEL_RING_OFFSET);
		if (t->ring == MAP_FAILED)
			die("idle: mmap of the record ring");
		if (t->ring->head || t->ring->tail)
			die("idle: a new ring at head %u, tail %u",
			    t->ring->head, t->ring->tail);
	}
	for (p = 0; p < c->n; p++) {
		long h = c->perm[p];

		t->ops[t->nops++] = (struct twheel_op){
			.op = TWHEEL_OP_ADD,
			.flags = TWHEEL_ABSTIME,
			.cookie = h,
			.expires_ns = key[h] * I_TICK_NS,
			.clock = CLOCK_MONOTONIC,
		};
		if (t->nops == 256)
			tw_submit(c, t, 1);
	}
	tw_submit(c, t, 1);
	if (t->table) {
		if (twheel_table_map(t->fd, &t->tab))
			die("idle: twheel_table_map");
		if (t->tab.tick_ns != I_TICK_NS)
			die("idle: table tick %llu",
			    (unsigned long long)t->tab.tick_ns);
		for (h = 0; h < c->n; h++)	/* the lazy steady state */
			twheel_table_push(&t->tab, t->ids[h], c->last[h]);
	}
	t->cnt = c->n;
	idle_epoll_add(c, t->fd, 0);
	c->priv = t;
}

static void twt_setup(struct ictx *c, const int64_t *key)
{
	tw_setup(c, key, TW_TABLE | TW_RING);
}

static void twtr_setup(struct ictx *c, const int64_t *key)
{
	tw_setup(c, key, TW_TABLE);
}

static void twm_setup(struct ictx *c, const int64_t *key)
{
	tw_setup(c, key, 0);
}

static void twt_act(struct ictx *c, uint32_t h)
{
	struct tw *t = c->priv;

	twheel_table_push(&t->tab, t->ids[h], c->last[h]);
}

static void twm_act(struct ictx *c, uint32_t h)
{
	struct tw *t = c->priv;
	struct twheel_modify md = {
		.id = t->ids[h],
		.expires_ns = c->last[h] * I_TICK_NS,
		.flags = TWHEEL_ABSTIME,
	};
	int r = SYS(c, twheel_modify(t->fd, &md));

	if (r != TWHEEL_STATE_PENDING && r != TWHEEL_STATE_QUEUED)
		die("idle: TWHEEL_IOC_MODIFY of timer %u", h);
}

static void twb_act(struct ictx *c, uint32_t h)
{
	struct tw *t = c->priv;

	t->ops[t->nops++] = (struct twheel_op){
		.op = TWHEEL_OP_MODIFY,
		.flags = TWHEEL_ABSTIME,
		.id = t->ids[h],
		.expires_ns = c->last[h] * I_TICK_NS,
	};
	if (t->nops == 64)
		tw_submit(c, t, 0);
}

static void twb_flush(struct ictx *c)
{
	tw_submit(c, c->priv, 0);
}

/* A record of timer @ev->cookie: a close; the timer added again. */
static void tw_record(struct ictx *c, struct tw *t,
		      const struct twheel_event *ev)
{
	uint32_t h = ev->cookie;
	int64_t d = idle_close(c, h, ev->time_ns);
	struct twheel_add add = {
		.cookie = h,
		.expires_ns = d * I_TICK_NS,
		.flags = TWHEEL_ABSTIME,
		.clock = CLOCK_MONOTONIC,
	};

	if (d < 0) {
		t->cnt--;
		return;
	}
	if (SYS(c, twheel_add(t->fd, &add)))
		die("idle: TWHEEL_IOC_ADD");
	t->ids[h] = add.id;
	if (t->table)	/* the kernel wrote it: as a program would */
		twheel_table_push(&t->tab, add.id, d);
}

static void tw_event(struct ictx *c, uint64_t u)
{
	struct tw *t = c->priv;
	ssize_t n, i;

	(void)u;
	do {
		n = SYS(c, twheel_read(t->fd, tw_ev, 256));
		if (n < 0) {
			if (errno == EAGAIN)
				return;
			die("idle: read of the twheel fd");
		}
		for (i = 0; i < n; i++)
			tw_record(c, t, &tw_ev[i]);
	} while (n == 256);
}

/*
 * The fd with the ring, reported readable: the records its poll moved
 * into the ring, from the head up to the tail. Records left queued (the
 * ring was full) keep the fd readable: the next epoll_pwait2's poll moves
 * them in. An empty ring with the fd readable: records queued that no
 * poll moved, taken by read(2).
 */
static void twr_event(struct ictx *c, uint64_t u)
{
	struct tw *t = c->priv;
	struct twheel_ring *r = t->ring;
	uint32_t head = t->head, tail;

	tail = __atomic_load_n(&r->tail, __ATOMIC_ACQUIRE);
	if (tail - head > TWHEEL_RING_ENTRIES)
		die("idle %s: the ring's tail %u, %u records past its head %u",
		    c->m->name, tail, tail - head, head);
	if (head == tail) {
		uint64_t closes = c->closes;

		t->ring_reads++;
		tw_event(c, u);
		t->read_recs += c->closes - closes;
		return;
	}
	t->ring_recs += tail - head;
	while (head != tail) {
		tw_record(c, t, &r->events[head % TWHEEL_RING_ENTRIES]);
		head++;
	}
	__atomic_store_n(&r->head, head, __ATOMIC_RELEASE);
	t->head = head;
}

static long tw_count(struct ictx *c)
{
	struct tw *t = c->priv;
	struct twheel_info info;

	if (twheel_info(t->fd, &info))
		die("TWHEEL_IOC_INFO");
	/*
	 * Records may be queued: timers that came due since the loop
	 * stopped (INFO queues them), counted in timers until read.
	 */
	if ((long)info.timers != t->cnt)
		die("idle %s: the fd holds %llu timers, %llu queued; the loop counted %ld",
		    c->m->name, (unsigned long long)info.timers,
		    (unsigned long long)info.queued, t->cnt);
	/* The loop consumed the ring after each wait: nothing is left in it. */
	if (t->ring && __atomic_load_n(&t->ring->tail, __ATOMIC_ACQUIRE) !=
		       t->head)
		die("idle %s: the ring holds records the loop never saw (tail %u, head %u)",
		    c->m->name, t->ring->tail, t->head);
	return info.timers;
}

static void tw_teardown(struct ictx *c)
{
	struct tw *t = c->priv;

	/*
	 * Where the records came from (console only): by the ring, or by
	 * read(2), and the wake-ups that found the ring empty.
	 */
	if (t->ring) {
		if (t->ring_recs + t->read_recs)
			note("idle %s N=%ld%s: %llu records by the ring, %llu by read(2) in %llu wake-ups with the ring empty",
			     c->m->name, c->n, c->expiry ? " expiry" : "",
			     (unsigned long long)t->ring_recs,
			     (unsigned long long)t->read_recs,
			     (unsigned long long)t->ring_reads);
		munmap(t->ring, sizeof(*t->ring));
	}
	if (t->table)
		twheel_table_unmap(&t->tab);
	close(t->fd);
	free(t->ids);
	free(t);
	c->priv = NULL;
}

const struct imode im_table = {
	.name = "table", .maxn = 1000000, .setup = twt_setup,
	.act = twt_act, .event = twr_event, .count = tw_count,
	.teardown = tw_teardown,
};

const struct imode im_table_read = {
	.name = "table-read", .maxn = 1000000, .setup = twtr_setup,
	.act = twt_act, .event = tw_event, .count = tw_count,
	.teardown = tw_teardown,
};

const struct imode im_modify = {
	.name = "modify", .maxn = 1000000, .setup = twm_setup,
	.act = twm_act, .event = tw_event, .count = tw_count,
	.teardown = tw_teardown,
};

const struct imode im_b64 = {
	.name = "b64", .maxn = 1000000, .setup = twm_setup,
	.act = twb_act, .flush = twb_flush, .event = tw_event,
	.count = tw_count, .teardown = tw_teardown,
};

/* ---- timerfd per timer ---- */

struct tf {
	int *fd;
	long cnt;
};

static void tf_arm(struct ictx *c, int fd, int64_t tick)
{
	struct itimerspec its = { .it_value = ns_ts(tick * I_TICK_NS) };

	if (SYS(c, timerfd_settime(fd, TFD_TIMER_ABSTIME, &its, NULL)))
		die("idle: timerfd_settime");
}

static void tf_setup(struct ictx *c, const int64_t *key)
{
	struct tf *t = xcalloc(1, sizeof(*t));
	long h, p;

	t->fd = xcalloc(c->n, sizeof(*t->fd));
	for (p = 0; p < c->n; p++) {
		h = c->perm[p];
		t->fd[h] = timerfd_create(CLOCK_MONOTONIC,
					  TFD_NONBLOCK | TFD_CLOEXEC);
		if (t->fd[h] < 0)
			die("idle: timerfd_create (%ld)", h);
		tf_arm(c, t->fd[h], key[h]);
		idle_epoll_add(c, t->fd[h], h);
	}
	t->cnt = c->n;
	c->priv = t;
}

static void tf_act(struct ictx *c, uint32_t h)
{
	struct tf *t = c->priv;

	tf_arm(c, t->fd[h], c->last[h]);
}

static void tf_event(struct ictx *c, uint64_t u)
{
	struct tf *t = c->priv;
	uint64_t v;
	int64_t d;

	if (SYS(c, read(t->fd[u], &v, sizeof(v))) != sizeof(v)) {
		if (errno == EAGAIN)	/* re-armed since it was reported */
			return;
		die("idle: read of timerfd %llu", (unsigned long long)u);
	}
	d = idle_close(c, u, c->now);
	if (d < 0)
		t->cnt--;
	else
		tf_arm(c, t->fd[u], d);
}

static long tf_count(struct ictx *c)
{
	return ((struct tf *)c->priv)->cnt;
}

static void tf_teardown(struct ictx *c)
{
	struct tf *t = c->priv;
	long h;

	for (h = 0; h < c->n; h++)
		close(t->fd[h]);
	free(t->fd);
	free(t);
	c->priv = NULL;
}

const struct imode im_timerfd = {
	.name = "timerfd", .maxn = 100000, .hrtimers = 1,
	.setup = tf_setup, .act = tf_act, .event = tf_event,
	.count = tf_count, .teardown = tf_teardown,
};

/* ---- io_uring ---- */

#define U_UPD	(1ULL << 62)	/* user_data of an update */

struct ur {
	struct io_uring ring;
	struct __kernel_timespec *ts;
	unsigned int pending;
	unsigned int skip;	/* IOSQE_CQE_SKIP_SUCCESS, if the kernel has it */
	long cnt, enoent;
};

static struct io_uring_sqe *ur_sqe(struct ictx *c, struct ur *u)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(&u->ring);

	if (!sqe) {
		if (SYS(c, io_uring_submit(&u->ring)) < 0)
			die("idle: io_uring_submit");
		u->pending = 0;
		sqe = io_uring_get_sqe(&u->ring);
		if (!sqe)
			die("idle: no SQE after a submit");
	}
	u->pending++;
	return sqe;
}

static void ur_add(struct ictx *c, struct ur *u, uint32_t h, int64_t tick)
{
	struct io_uring_sqe *sqe = ur_sqe(c, u);

	u->ts[h] = (struct __kernel_timespec){
		.tv_sec = tick * I_TICK_NS / NSEC,
		.tv_nsec = tick * I_TICK_NS % NSEC,
	};
	io_uring_prep_timeout(sqe, &u->ts[h], 0, IORING_TIMEOUT_ABS);
	sqe->user_data = h;
}

static void ur_flush(struct ictx *c)
{
	struct ur *u = c->priv;

	if (!u->pending)
		return;
	if (SYS(c, io_uring_submit(&u->ring)) < 0)
		die("idle: io_uring_submit");
	u->pending = 0;
}

static void ur_setup(struct ictx *c, const int64_t *key)
{
	struct ur *u = xcalloc(1, sizeof(*u));
	long p;
	int r;

	u->ts = xcalloc(c->n, sizeof(*u->ts));
	r = io_uring_queue_init(4096, &u->ring, 0);
	if (r < 0) {
		errno = -r;
		die("idle: io_uring_queue_init");
	}
	u->skip = (u->ring.features & IORING_FEAT_CQE_SKIP) ?
		  IOSQE_CQE_SKIP_SUCCESS : 0;
	c->priv = u;
	/*
	 * In activity order: the kernel finds a timeout to update by a walk
	 * of its list from the oldest, and moves it to the tail; the steady
	 * state of the pattern has them in that order (the next to update
	 * first).
	 */
	for (p = 0; p < c->n; p++)
		ur_add(c, u, c->perm[p], key[c->perm[p]]);
	ur_flush(c);
	u->cnt = c->n;
	idle_epoll_add(c, u->ring.ring_fd, 0);
}

static void ur_act(struct ictx *c, uint32_t h)
{
	struct ur *u = c->priv;
	struct io_uring_sqe *sqe = ur_sqe(c, u);
	int64_t ns = c->last[h] * I_TICK_NS;

	u->ts[h] = (struct __kernel_timespec){
		.tv_sec = ns / NSEC, .tv_nsec = ns % NSEC,
	};
	io_uring_prep_timeout_update(sqe, &u->ts[h], h, IORING_TIMEOUT_ABS);
	sqe->user_data = U_UPD | h;
	sqe->flags |= u->skip;
}

static void ur_event(struct ictx *c, uint64_t x)
{
	struct ur *u = c->priv;
	struct io_uring_cqe *cqe;
	unsigned int head, seen = 0;

	(void)x;
again:
	io_uring_for_each_cqe(&u->ring, head, cqe) {
		uint64_t ud = cqe->user_data;
		uint32_t h = ud & 0xffffffffU;
		int64_t d;

		seen++;
		if (ud & U_UPD) {
			if (cqe->res == -ENOENT)
				u->enoent++;	/* it had fired: see below */
			else if (cqe->res < 0)
				die("idle: timeout update of %u: %d", h,
				    cqe->res);
			continue;
		}
		if (cqe->res != -ETIME)
			die("idle: timeout of %u completed with %d", h,
			    cqe->res);
		if (c->now < c->last[h] * I_TICK_NS && !c->expiry) {
			/* fired before the loop's update reached the kernel */
			c->raced++;
			ur_add(c, u, h, c->last[h]);
			continue;
		}
		d = idle_close(c, h, c->now);
		if (d < 0)
			u->cnt--;
		else
			ur_add(c, u, h, d);
	}
	io_uring_cq_advance(&u->ring, seen);
	/*
	 * Completions the ring had no room for wait in the kernel
	 * (IORING_FEAT_NODROP) until a system call brings them in: when a
	 * loop turn fell far behind (an update finds its timeout by a walk
	 * of the ring's list: O(N)), more than the CQ ring's 8192 fire.
	 */
	if (IO_URING_READ_ONCE(*u->ring.sq.kflags) & IORING_SQ_CQ_OVERFLOW) {
		if (SYS(c, io_uring_get_events(&u->ring)) < 0)
			die("idle: io_uring_get_events");
		seen = 0;
		goto again;
	}
}

static long ur_count(struct ictx *c)
{
	struct ur *u = c->priv;

	if (u->enoent > (long)c->raced)
		die("idle uring: %ld updates found no timeout, %llu raced",
		    u->enoent, (unsigned long long)c->raced);
	return u->cnt;
}

static void ur_teardown(struct ictx *c)
{
	struct ur *u = c->priv;

	io_uring_queue_exit(&u->ring);
	free(u->ts);
	free(u);
	c->priv = NULL;
}

const struct imode im_uring = {
	.name = "uring", .maxn = 1000000, .hrtimers = 1,
	.setup = ur_setup, .act = ur_act, .flush = ur_flush,
	.event = ur_event, .count = ur_count, .teardown = ur_teardown,
};
