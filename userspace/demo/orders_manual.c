// SPDX-License-Identifier: GPL-2.0
/*
 * twheel-orders on the manual clock (TWHEEL_CONFIG_MANUAL): the rule of
 * orders.c tested exactly, and checkout sessions kept in the shared timer
 * table. Each checks its own outcome.
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
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "libtwheel.h"
#include "orders.h"

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

int manual(long n, int paid_pct)
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

int sessions(long n)
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
