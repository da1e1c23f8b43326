// SPDX-License-Identifier: GPL-2.0
/*
 * twheel-orders - the case /dev/twheel was made for, as `make demo` shows
 * it: every order of a shop gets a payment deadline; most orders are paid
 * in time (their timer is cancelled), the others expire (their record is
 * read). Every order must end exactly once: paid XOR expired.
 *
 * This file: the live demo, orders on the real clock, the way a program
 * uses /dev/twheel (the other modes and the scaffolding are elsewhere:
 * orders_manual.c, the manual clock; orders_main.c, the command line,
 * the memory measurement and the report; orders.h, what they share).
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
 */
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "libtwheel.h"
#include "orders.h"

struct payment {
	int64_t at;
	uint32_t order;
};

static int cmp_payment(const void *a, const void *b)
{
	const struct payment *x = a, *y = b;

	return (x->at > y->at) - (x->at < y->at);
}

/* ---- live: 100 000 orders on the real clock */

#define PROGRESS_NS	(250 * TWHEEL_MSEC)
#define GIVE_UP_NS	(60 * TWHEEL_SEC)

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

int live(long n, int paid_pct, bool cgroup)
{
	struct live l = { .n = n };
	struct twheel_op *ops;
	struct payment *pay;
	uint32_t *which;
	struct mem m0, m1;
	long npay = 0, next = 0, i;
	int64_t t0, t_sched, last_deadline = 0, next_progress;
	struct twheel_info info;
	unsigned int nops;
	bool ok;

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
	ok = live_report(&l, &m0, &m1);
	close(l.fd);
	printf("orders: %s\n", ok ? "passed" : "FAILED");
	return ok ? 0 : 1;
}
