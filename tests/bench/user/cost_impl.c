// SPDX-License-Identifier: GPL-2.0
/*
 * cost_impl.c - the per-implementation operations of the cost phase of
 * twheel-bench (cost.c drives them): each configuration's timed loops,
 * spread mode's untimed drain and re-arm, and the fill of the populations.
 *
 * Three populations are held at once, one per implementation: timers on
 * one twheel fd, N timerfds registered in one epoll set, and the heap
 * baseline. They grow from one N to the next (never rebuilt).
 *
 * Configurations: twheel-ioctl (TWHEEL_IOC_ADD/MODIFY/CANCEL, one per
 * call), twheel-bB (TWHEEL_IOC_SUBMIT of B operations, B = 1, 8, 64, 256),
 * timerfd (schedule = timerfd_create + timerfd_settime + EPOLL_CTL_ADD,
 * modify = timerfd_settime, cancel = EPOLL_CTL_DEL + close: each part a
 * timed loop of its own, reported as timerfd.create, timerfd.settime,
 * timerfd.epoll_add, timerfd.epoll_del, timerfd.close, and their sum as
 * timerfd), heap (push/re-key/delete, each with the settime of the one
 * timerfd when the minimum changed). A twheel timer is known to the
 * program by a handle (its cookie), mapped to its id by an array, as an
 * application maps its connections to their timers: the lookup is in
 * twheel's timed loops.
 */
#include <sys/epoll.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include "cost.h"

static const int cfg_batch[NR_CFG] = { 0, 1, 8, 64, 256, 0, 0 };

/* A timed loop's start and end, for counting the expiries inside it. */
struct window {
	int64_t t0, t1;
};

static struct twheel_op ops[256];

/* The base of a loop's deadlines: its start in spread mode. */
static inline int64_t dl_base(const struct pops *p, int64_t t0)
{
	return p->spread ? t0 : 0;
}

static int64_t end_loop(struct window *w, int64_t t0)
{
	w->t0 = t0;
	w->t1 = mono_ns();
	return w->t1 - t0;
}

/* ---- twheel ---- */

static void tw_add_one(struct pops *p, uint32_t h, int64_t dl)
{
	struct twheel_add a = {
		.cookie = h,
		.expires_ns = dl,
		.flags = TWHEEL_ABSTIME,
		.clock = CLOCK_MONOTONIC,
	};

	if (twheel_add(p->twfd, &a))
		die("TWHEEL_IOC_ADD");
	p->tw_id[h] = a.id;
	p->tw_dl[h] = dl;
}

static int64_t tw_schedule(struct pops *p, int batch, struct round *rd,
			   struct window *w)
{
	int64_t t0, b, ns;
	uint32_t h;
	int i, j;

	for (i = 0; i < rd->m; i++)
		rd->h_add[i] = p->tw_free[--p->tw_nfree];
	t0 = mono_ns();
	b = dl_base(p, t0);
	if (!batch) {
		for (i = 0; i < rd->m; i++) {
			struct twheel_add a = {
				.cookie = rd->h_add[i],
				.expires_ns = b + rd->dl_add[i],
				.flags = TWHEEL_ABSTIME,
				.clock = CLOCK_MONOTONIC,
			};

			if (twheel_add(p->twfd, &a))
				die("TWHEEL_IOC_ADD");
			p->tw_id[rd->h_add[i]] = a.id;
			p->tw[p->tw_n++] = rd->h_add[i];
		}
	} else {
		for (i = 0; i < rd->m; i += batch) {
			for (j = 0; j < batch; j++)
				ops[j] = (struct twheel_op){
					.op = TWHEEL_OP_ADD,
					.flags = TWHEEL_ABSTIME,
					.cookie = rd->h_add[i + j],
					.expires_ns = b + rd->dl_add[i + j],
					.clock = CLOCK_MONOTONIC,
				};
			if (twheel_submit(p->twfd, ops, batch) != batch)
				die("TWHEEL_IOC_SUBMIT of %d adds", batch);
			for (j = 0; j < batch; j++) {
				if (ops[j].error)
					die("batched add: error %d", ops[j].error);
				h = rd->h_add[i + j];
				p->tw_id[h] = ops[j].id;
				p->tw[p->tw_n++] = h;
			}
		}
	}
	ns = end_loop(w, t0);
	for (i = 0; i < rd->m; i++)
		p->tw_dl[rd->h_add[i]] = b + rd->dl_add[i];
	return ns;
}

/* PENDING; in spread mode also QUEUED (it fell due since the drain). */
static int tw_result_ok(const struct pops *p, int r)
{
	return r == TWHEEL_STATE_PENDING ||
	       (p->spread && r == TWHEEL_STATE_QUEUED);
}

static int64_t tw_modify(struct pops *p, int batch, const struct round *rd,
			 struct window *w)
{
	int64_t t0 = mono_ns(), b = dl_base(p, t0), ns;
	int i, j;

	if (!batch) {
		for (i = 0; i < rd->m; i++) {
			struct twheel_modify md = {
				.id = p->tw_id[p->tw[rd->sel_mod[i]]],
				.expires_ns = b + rd->dl_mod[i],
				.flags = TWHEEL_ABSTIME,
			};

			if (!tw_result_ok(p, twheel_modify(p->twfd, &md)))
				die("TWHEEL_IOC_MODIFY");
		}
	} else {
		for (i = 0; i < rd->m; i += batch) {
			for (j = 0; j < batch; j++)
				ops[j] = (struct twheel_op){
					.op = TWHEEL_OP_MODIFY,
					.flags = TWHEEL_ABSTIME,
					.id = p->tw_id[p->tw[rd->sel_mod[i + j]]],
					.expires_ns = b + rd->dl_mod[i + j],
				};
			if (twheel_submit(p->twfd, ops, batch) != batch)
				die("TWHEEL_IOC_SUBMIT of %d modifies", batch);
			for (j = 0; j < batch; j++)
				if (ops[j].error || !tw_result_ok(p, ops[j].result))
					die("batched modify: error %d result %u",
					    ops[j].error, ops[j].result);
		}
	}
	ns = end_loop(w, t0);
	for (i = 0; i < rd->m; i++)
		p->tw_dl[p->tw[rd->sel_mod[i]]] = b + rd->dl_mod[i];
	return ns;
}

static int64_t tw_cancel(struct pops *p, int batch, struct round *rd,
			 struct window *w)
{
	int64_t t0 = mono_ns(), ns;
	uint32_t h;
	int i, j;

	if (!batch) {
		for (i = 0; i < rd->m; i++) {
			h = p->tw[rd->sel_cancel[i]];
			p->tw[rd->sel_cancel[i]] = p->tw[--p->tw_n];
			rd->h_gone[i] = h;
			if (!tw_result_ok(p, twheel_cancel(p->twfd, p->tw_id[h])))
				die("TWHEEL_IOC_CANCEL");
		}
	} else {
		for (i = 0; i < rd->m; i += batch) {
			for (j = 0; j < batch; j++) {
				h = p->tw[rd->sel_cancel[i + j]];
				p->tw[rd->sel_cancel[i + j]] = p->tw[--p->tw_n];
				rd->h_gone[i + j] = h;
				ops[j] = (struct twheel_op){
					.op = TWHEEL_OP_CANCEL,
					.id = p->tw_id[h],
				};
			}
			if (twheel_submit(p->twfd, ops, batch) != batch)
				die("TWHEEL_IOC_SUBMIT of %d cancels", batch);
			for (j = 0; j < batch; j++)
				if (ops[j].error || !tw_result_ok(p, ops[j].result))
					die("batched cancel: error %d result %u",
					    ops[j].error, ops[j].result);
		}
	}
	ns = end_loop(w, t0);
	for (i = 0; i < rd->m; i++)
		p->tw_free[p->tw_nfree++] = rd->h_gone[i];
	return ns;
}

/* ---- timerfd + epoll ---- */

static int tfd_new(int64_t dl)
{
	struct itimerspec its = { .it_value = ns_ts(dl) };
	int fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);

	if (fd < 0)
		die("timerfd_create");
	if (timerfd_settime(fd, TFD_TIMER_ABSTIME, &its, NULL))
		die("timerfd_settime");
	return fd;
}

static void tfd_watch(int ep, int fd)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.fd = fd };

	if (epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev))
		die("EPOLL_CTL_ADD");
}

/* create, settime, EPOLL_CTL_ADD: three timed loops, one window. */
static void tfd_schedule(struct pops *p, const struct round *rd,
			 struct sums *s, struct window *w)
{
	size_t first = p->tfd_n;
	int64_t t0, t1, t2, t3, b;
	int i, fd;

	t0 = mono_ns();
	for (i = 0; i < rd->m; i++) {
		fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
		if (fd < 0)
			die("timerfd_create");
		p->tfd[p->tfd_n++] = fd;
	}
	t1 = mono_ns();
	b = dl_base(p, t1);
	for (i = 0; i < rd->m; i++) {
		struct itimerspec its = { .it_value = ns_ts(b + rd->dl_add[i]) };

		if (timerfd_settime(p->tfd[first + i], TFD_TIMER_ABSTIME, &its,
				    NULL))
			die("timerfd_settime");
	}
	t2 = mono_ns();
	for (i = 0; i < rd->m; i++)
		tfd_watch(p->ep, p->tfd[first + i]);
	t3 = end_loop(w, t0) + t0;
	w->t0 = t1;	/* no timer of the round was armed before */
	s->create += t1 - t0;
	s->settime += t2 - t1;
	s->epoll_add += t3 - t2;
	s->sched += t3 - t0;
	for (i = 0; i < rd->m; i++)
		p->tfd_dl[p->tfd[first + i]] = b + rd->dl_add[i];
}

static void tfd_modify(struct pops *p, const struct round *rd,
		       struct sums *s, struct window *w)
{
	int64_t t0 = mono_ns(), b = dl_base(p, t0);
	int i;

	for (i = 0; i < rd->m; i++) {
		struct itimerspec its = { .it_value = ns_ts(b + rd->dl_mod[i]) };

		if (timerfd_settime(p->tfd[rd->sel_mod[i]], TFD_TIMER_ABSTIME,
				    &its, NULL))
			die("timerfd_settime");
	}
	s->mod += end_loop(w, t0);
	for (i = 0; i < rd->m; i++)
		p->tfd_dl[p->tfd[rd->sel_mod[i]]] = b + rd->dl_mod[i];
}

/* EPOLL_CTL_DEL, then close: two timed loops, one window. */
static void tfd_cancel(struct pops *p, struct round *rd, struct sums *s,
		       struct window *w)
{
	int64_t t0, t1, t2;
	int i, fd;

	t0 = mono_ns();
	for (i = 0; i < rd->m; i++) {
		fd = p->tfd[rd->sel_cancel[i]];
		p->tfd[rd->sel_cancel[i]] = p->tfd[--p->tfd_n];
		rd->fd_gone[i] = fd;
		if (epoll_ctl(p->ep, EPOLL_CTL_DEL, fd, NULL))
			die("EPOLL_CTL_DEL");
	}
	t1 = mono_ns();
	for (i = 0; i < rd->m; i++)
		if (close(rd->fd_gone[i]))
			die("close");
	t2 = end_loop(w, t0) + t0;
	s->epoll_del += t1 - t0;
	s->close += t2 - t1;
	s->cancel += t2 - t0;
}

/* ---- heap ---- */

static void heap_schedule(struct pops *p, const struct round *rd,
			  struct sums *s, struct window *w)
{
	int64_t t0 = mono_ns(), b = dl_base(p, t0);
	int i;

	for (i = 0; i < rd->m; i++)
		p->hp[p->hp_n++] = heap_add(&p->heap, b + rd->dl_add[i]);
	s->sched += end_loop(w, t0);
}

static void heap_mod(struct pops *p, const struct round *rd,
		     struct sums *s, struct window *w)
{
	int64_t t0 = mono_ns(), b = dl_base(p, t0);
	int i;

	for (i = 0; i < rd->m; i++)
		heap_modify(&p->heap, p->hp[rd->sel_mod[i]], b + rd->dl_mod[i]);
	s->mod += end_loop(w, t0);
}

static void heap_cancel(struct pops *p, const struct round *rd,
			struct sums *s, struct window *w)
{
	int64_t t0 = mono_ns();
	uint32_t hd;
	int i;

	for (i = 0; i < rd->m; i++) {
		hd = p->hp[rd->sel_cancel[i]];
		p->hp[rd->sel_cancel[i]] = p->hp[--p->hp_n];
		heap_del(&p->heap, hd);
	}
	s->cancel += end_loop(w, t0);
}

/* ---- spread mode: expired timers drained and re-armed, untimed ---- */

static void count(struct pops *p, int c, int64_t dl, const struct window *w)
{
	p->drained[c]++;
	if (dl >= w->t0 && dl <= w->t1)
		p->in_loops[c]++;
}

static void drain_twheel(struct pops *p, int c, const struct window *w)
{
	struct twheel_event ev[64];
	int64_t now = mono_ns();
	ssize_t r;
	int i, n;

	while ((r = read(p->twfd, ev, sizeof(ev))) > 0) {
		n = r / sizeof(ev[0]);
		for (i = 0; i < n; i++) {
			uint32_t h = ev[i].cookie;

			count(p, c, p->tw_dl[h], w);
			tw_add_one(p, h, now + cost_spread_off(&p->rr));
		}
	}
	if (r < 0 && errno != EAGAIN)
		die("cost: read twheel");
}

static void drain_timerfd(struct pops *p, int c, const struct window *w)
{
	struct epoll_event evs[256];
	int64_t now = mono_ns();
	uint64_t v;
	int i, n;

	do {
		n = epoll_wait(p->ep, evs, 256, 0);
		if (n < 0)
			die("cost: epoll_wait");
		for (i = 0; i < n; i++) {
			int fd = evs[i].data.fd;
			struct itimerspec its;

			if (read(fd, &v, 8) != 8) {
				if (errno == EAGAIN)
					continue;	/* re-armed since */
				die("cost: read timerfd");
			}
			count(p, TFD, p->tfd_dl[fd], w);
			p->tfd_dl[fd] = now + cost_spread_off(&p->rr);
			its = (struct itimerspec){ .it_value = ns_ts(p->tfd_dl[fd]) };
			if (timerfd_settime(fd, TFD_TIMER_ABSTIME, &its, NULL))
				die("cost: timerfd_settime");
		}
	} while (n == 256);
	(void)c;
}

static void drain_heap(struct pops *p, int c, const struct window *w)
{
	int64_t now = mono_ns(), d;
	uint32_t who = 0;
	uint64_t v;

	if (read(p->heap.tfd, &v, 8) == 8)
		heap_fired(&p->heap);
	while ((d = heap_min(&p->heap, &who)) <= now) {
		count(p, c, d, w);
		heap_modify(&p->heap, who, now + cost_spread_off(&p->rr));
	}
	heap_rearm(&p->heap);
}

static void drain(struct pops *p, int c, const struct window *w)
{
	if (!p->spread)
		return;
	if (c == TFD)
		drain_timerfd(p, c, w);
	else if (c == HEAP)
		drain_heap(p, c, w);
	else
		drain_twheel(p, c, w);
}

static void drain_all(struct pops *p)
{
	struct window none = { 1, 0 };

	drain_twheel(p, TW_IOCTL, &none);
	drain_timerfd(p, TFD, &none);
	drain_heap(p, HEAP, &none);
	memset(p->drained, 0, sizeof(p->drained));
}

void cost_run_round(struct pops *p, int c, struct round *rd,
		      struct sums *s)
{
	struct window w = { 1, 0 };

	drain(p, c, &w);
	switch (c) {
	case TFD:
		tfd_schedule(p, rd, s, &w);
		drain(p, c, &w);
		tfd_modify(p, rd, s, &w);
		drain(p, c, &w);
		tfd_cancel(p, rd, s, &w);
		break;
	case HEAP:
		heap_schedule(p, rd, s, &w);
		drain(p, c, &w);
		heap_mod(p, rd, s, &w);
		drain(p, c, &w);
		heap_cancel(p, rd, s, &w);
		break;
	default:
		s->sched += tw_schedule(p, cfg_batch[c], rd, &w);
		drain(p, c, &w);
		s->mod += tw_modify(p, cfg_batch[c], rd, &w);
		drain(p, c, &w);
		s->cancel += tw_cancel(p, cfg_batch[c], rd, &w);
	}
	drain(p, c, &w);
}

/* Grow every population to @target pending timers (untimed). */
void cost_fill(struct pops *p, size_t target, long n)
{
	struct rng r = rng_make(n, 999999, 4);
	size_t start = p->tw_n, k = target - start, i, j;
	int64_t *dl = xcalloc(k, sizeof(*dl));
	int64_t t0 = mono_ns(), t1, t2, b;

	for (i = 0; i < k; i++)
		dl[i] = cost_deadline(&r, p->spread);
	b = dl_base(p, mono_ns());
	for (i = 0; i < k; i += j) {
		size_t nb = k - i < 256 ? k - i : 256;

		for (j = 0; j < nb; j++) {
			uint32_t h = p->tw_free[--p->tw_nfree];

			ops[j] = (struct twheel_op){
				.op = TWHEEL_OP_ADD,
				.flags = TWHEEL_ABSTIME,
				.cookie = h,
				.expires_ns = b + dl[i + j],
				.clock = CLOCK_MONOTONIC,
			};
			p->tw_dl[h] = b + dl[i + j];
		}
		if (twheel_submit(p->twfd, ops, nb) != (int)nb)
			die("fill: TWHEEL_IOC_SUBMIT");
		for (j = 0; j < nb; j++) {
			if (ops[j].error)
				die("fill: add error %d", ops[j].error);
			p->tw_id[ops[j].cookie] = ops[j].id;
			p->tw[p->tw_n++] = ops[j].cookie;
		}
	}
	t1 = mono_ns();
	b = dl_base(p, t1);
	for (i = 0; i < k; i++) {
		int fd = tfd_new(b + dl[i]);

		tfd_watch(p->ep, fd);
		p->tfd_dl[fd] = b + dl[i];
		p->tfd[p->tfd_n++] = fd;
	}
	t2 = mono_ns();
	b = dl_base(p, t2);
	for (i = 0; i < k; i++)
		p->hp[p->hp_n++] = heap_add(&p->heap, b + dl[i]);
	note("cost: filled to %zu pending: twheel %.2fs, timerfd %.2fs, heap %.3fs",
	     target, (t1 - t0) / 1e9, (t2 - t1) / 1e9, (mono_ns() - t2) / 1e9);
	free(dl);
	if (p->spread)
		drain_all(p);
}
