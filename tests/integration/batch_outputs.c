// SPDX-License-Identifier: GPL-2.0
/*
 * batch_outputs: what TWHEEL_IOC_SUBMIT writes back into each entry: the
 * outputs are written back as documented (outputs not produced 0, only
 * error on error) and every other field keeps the value given; also from
 * an operation array at an odd address. The rest of SUBMIT: batch.c; the
 * helpers: batch.h.
 */
#include "batch.h"

#define TICK		((int64_t)TWHEEL_DEFAULT_TICK_NS)

static void batch_check_status(const struct twheel_op *o,
			       const struct twheel_status *st)
{
	CHECK_EQ(o->error, 0);
	CHECK_EQ(o->id, st->id);
	CHECK_EQ(o->cookie, st->cookie);
	CHECK_EQ(o->expires_ns, st->deadline_ns);
	CHECK_EQ(o->period_ns, st->period_ns);
	CHECK_EQ(o->clock, st->clock);
	CHECK_EQ(o->result, st->state);
	CHECK_EQ(o->count, st->count);
	CHECK_EQ(o->remaining_ns, st->remaining_ns);
	CHECK_EQ(o->__reserved, 0);
}

/* ---- what each operation writes back ---- */

static void add_outputs(void)
{
	enum { N = 8 };
	int fd = batch_open();
	struct twheel_op in[N], ops[N];
	int i, j;

	twt_advance(fd, TWT_S);
	in[0] = batch_add_op(10, 5 * TWT_MS, 0, 0, CLOCK_MONOTONIC);
	in[1] = batch_add_op(11, 3 * TWT_S, 0, TWHEEL_ABSTIME, CLOCK_BOOTTIME);
	in[2] = batch_add_op(12, 7 * TWT_MS, 20 * TWT_MS, 0, CLOCK_REALTIME);
	in[3] = batch_add_op(13, 0, 0, 0, CLOCK_TAI);	/* queued at once */
	in[4] = batch_add_op(UINT64_MAX, 1500 * TWT_US, 0, 0, CLOCK_MONOTONIC);
	in[5] = batch_add_op(0, 2 * TWT_S, 10, TWHEEL_ABSTIME, CLOCK_TAI);
	in[6] = batch_add_op(16, INT64_MAX, 0, 0, CLOCK_MONOTONIC);
	in[7] = batch_add_op(17, -TWT_S, 0, TWHEEL_ABSTIME, CLOCK_REALTIME);
	memcpy(ops, in, sizeof(ops));
	CHECK_EQ(twt_submit_raw(fd, ops, N), N);
	for (i = 0; i < N; i++) {
		struct twheel_status st = twt_query(fd, ops[i].id);

		CHECK_ADD_DONE(ops[i], in[i]);
		for (j = 0; j < i; j++)
			CHECK(ops[j].id != ops[i].id);
		/* The timer is the one a single ADD would have made. */
		CHECK_EQ(st.cookie, in[i].cookie);
		CHECK_EQ(st.clock, in[i].clock);
		CHECK_EQ(st.period_ns, in[i].period_ns < (uint64_t)TICK &&
			 in[i].period_ns ? (uint64_t)TICK : in[i].period_ns);
	}
	CHECK_EQ(twt_query(fd, ops[0].id).deadline_ns, TWT_S + 5 * TWT_MS);
	CHECK_EQ(twt_query(fd, ops[1].id).deadline_ns, 3 * TWT_S);
	CHECK_EQ(twt_query(fd, ops[4].id).deadline_ns, TWT_S + 2 * TWT_MS);
	CHECK_EQ(twt_query(fd, ops[3].id).state, TWHEEL_STATE_QUEUED);
	CHECK_EQ(twt_query(fd, ops[7].id).state, TWHEEL_STATE_QUEUED);
	CHECK_EQ(twt_timers(fd), N);
	CHECK_EQ(twt_queued(fd), 2);
	close(fd);
}

/* MODIFY, CANCEL and QUERY of timers from an earlier batch. */
static void modify_cancel_query_outputs(void)
{
	int fd = batch_open();
	struct twheel_op add[4], in[6], ops[6];
	struct twheel_status st;
	struct twheel_event ev[4];
	uint64_t id[4];
	int i;

	add[0] = batch_add_op(100, 10 * TWT_MS, 0, 0, CLOCK_MONOTONIC);
	add[1] = batch_add_op(101, 20 * TWT_MS, 0, 0, CLOCK_BOOTTIME);
	add[2] = batch_add_op(102, 1 * TWT_MS, 0, 0, CLOCK_REALTIME);
	add[3] = batch_add_op(103, 2500 * TWT_US, 4 * TWT_MS, 0, CLOCK_TAI);
	CHECK_EQ(twt_submit_raw(fd, add, 4), 4);
	for (i = 0; i < 4; i++)
		id[i] = add[i].id;
	/* 2 has expired, unread; 3 is pending at 3 ms. */
	CHECK_EQ(twt_advance(fd, 2 * TWT_MS), 2 * TWT_MS);

	in[0] = batch_modify_op(id[0], 0, 5 * TWT_MS, 0, 0);
	in[1] = batch_modify_op(id[1], 555, 7 * TWT_MS, 2 * TWT_MS,
				TWHEEL_SET_COOKIE | TWHEEL_ABSTIME);
	in[2] = batch_id_op(TWHEEL_OP_CANCEL, id[2]);
	in[3] = batch_id_op(TWHEEL_OP_QUERY, id[3]);
	in[4] = batch_id_op(TWHEEL_OP_QUERY, id[0]);	/* after its modify */
	in[5] = batch_id_op(TWHEEL_OP_QUERY, id[1]);
	memcpy(ops, in, sizeof(ops));
	CHECK_EQ(twt_submit_raw(fd, ops, 6), 6);

	/* MODIFY: inputs as given, result; no clock, count, remaining. */
	for (i = 0; i < 2; i++) {
		CHECK_INPUTS_KEPT(ops[i], in[i]);
		CHECK_EQ(ops[i].error, 0);
		CHECK_EQ(ops[i].id, in[i].id);
		CHECK_EQ(ops[i].expires_ns, in[i].expires_ns);
		CHECK_EQ(ops[i].period_ns, in[i].period_ns);
		CHECK_EQ(ops[i].result, TWHEEL_STATE_PENDING);
		CHECK_EQ(ops[i].clock, 0);
		CHECK_EQ(ops[i].count, 0);
		CHECK_EQ(ops[i].remaining_ns, 0);
	}
	CHECK_EQ(ops[1].cookie, 555);
	/* CANCEL of the expired one: QUEUED, its record retracted. */
	CHECK_INPUTS_KEPT(ops[2], in[2]);
	CHECK_EQ(ops[2].error, 0);
	CHECK_EQ(ops[2].id, id[2]);
	CHECK_EQ(ops[2].result, TWHEEL_STATE_QUEUED);
	CHECK_EQ(ops[2].cookie, 0);
	CHECK_EQ(ops[2].expires_ns, 0);
	CHECK_EQ(ops[2].period_ns, 0);
	CHECK_EQ(ops[2].clock, 0);
	CHECK_EQ(ops[2].count, 0);
	CHECK_EQ(ops[2].remaining_ns, 0);
	CHECK_EQ(twt_queued(fd), 0);
	/* QUERY: the status, as the single ioctl gives it (nothing moved). */
	CHECK_INPUTS_KEPT(ops[3], in[3]);
	CHECK_INPUTS_KEPT(ops[4], in[4]);
	CHECK_INPUTS_KEPT(ops[5], in[5]);
	st = twt_query(fd, id[3]);
	batch_check_status(&ops[3], &st);
	CHECK_EQ(ops[3].cookie, 103);
	/* A periodic timer's deadline: exactly its grid point. */
	CHECK_EQ(ops[3].expires_ns, 2500 * TWT_US);
	CHECK_EQ(ops[3].remaining_ns, 500 * TWT_US);
	CHECK_EQ(ops[3].period_ns, 4 * TWT_MS);
	CHECK_EQ(ops[3].clock, CLOCK_TAI);
	CHECK_EQ(ops[3].result, TWHEEL_STATE_PENDING);
	CHECK_EQ(ops[3].count, 0);
	st = twt_query(fd, id[0]);
	batch_check_status(&ops[4], &st);
	CHECK_EQ(ops[4].cookie, 100);
	CHECK_EQ(ops[4].expires_ns, 7 * TWT_MS);
	CHECK_EQ(ops[4].remaining_ns, 5 * TWT_MS);
	st = twt_query(fd, id[1]);
	batch_check_status(&ops[5], &st);
	CHECK_EQ(ops[5].cookie, 555);
	CHECK_EQ(ops[5].expires_ns, 7 * TWT_MS);
	CHECK_EQ(ops[5].period_ns, 2 * TWT_MS);
	CHECK_EQ(ops[5].clock, CLOCK_BOOTTIME);

	/* A QUERY of a queued one-shot timer: no deadline, count 1. */
	in[0] = batch_add_op(7, 0, 0, 0, CLOCK_MONOTONIC);
	CHECK_EQ(twt_submit_raw(fd, in, 1), 1);
	ops[0] = batch_id_op(TWHEEL_OP_QUERY, in[0].id);
	CHECK_EQ(twt_submit_raw(fd, ops, 1), 1);
	CHECK_EQ(ops[0].error, 0);
	CHECK_EQ(ops[0].result, TWHEEL_STATE_QUEUED);
	CHECK_EQ(ops[0].expires_ns, 0);
	CHECK_EQ(ops[0].remaining_ns, 0);
	CHECK_EQ(ops[0].count, 1);
	CHECK_EQ(ops[0].cookie, 7);
	/*
	 * What is left fires as modified (three clocks: the order between
	 * them is not promised, only within each).
	 */
	twt_advance(fd, 5 * TWT_MS);		/* 7 ms */
	CHECK_EQ(read(fd, ev, sizeof(ev)), 4 * sizeof(ev[0]));
	CHECK_EQ(ev[0].id, in[0].id);		/* queued at its add */
	for (i = 1; i < 4; i++) {
		CHECK_EQ(ev[i].time_ns, 7 * TWT_MS);
		if (ev[i].id == id[3]) {	/* 2.5 and 6.5 ms */
			CHECK_EQ(ev[i].count, 2);
			CHECK_EQ(ev[i].clock, CLOCK_TAI);
		} else if (ev[i].id == id[0]) {	/* modified to 7 ms */
			CHECK_EQ(ev[i].cookie, 100);
			CHECK_EQ(ev[i].count, 1);
			CHECK_EQ(ev[i].clock, CLOCK_MONOTONIC);
		} else {			/* modified to 7 ms, periodic */
			CHECK_EQ(ev[i].id, id[1]);
			CHECK_EQ(ev[i].cookie, 555);
			CHECK_EQ(ev[i].count, 1);
			CHECK_EQ(ev[i].clock, CLOCK_BOOTTIME);
		}
	}
	CHECK(ev[1].id != ev[2].id && ev[2].id != ev[3].id &&
	      ev[1].id != ev[3].id);
	CHECK_EQ(twt_query(fd, id[1]).deadline_ns, 9 * TWT_MS);
	close(fd);
}

/* ---- fields an operation does not take ---- */

/* Garbage in fields an operation does not take changes nothing it does. */
static void ignored_inputs(void)
{
	int fd = batch_open();
	struct twheel_op ops[4];
	uint64_t id;

	ops[0] = batch_add_op(5, 3 * TWT_MS, 0, 0, CLOCK_BOOTTIME);
	ops[0].id = 0x1234;
	ops[0].error = -77;
	ops[0].result = 9;
	ops[0].count = 42;
	ops[0].remaining_ns = -3;
	CHECK_EQ(twt_submit_raw(fd, ops, 1), 1);
	CHECK_EQ(ops[0].error, 0);
	CHECK_EQ(ops[0].result, 0);
	CHECK_EQ(ops[0].count, 0);
	CHECK_EQ(ops[0].remaining_ns, 0);
	CHECK(ops[0].id != 0x1234 && ops[0].id != 0);
	id = ops[0].id;
	CHECK_EQ(twt_query(fd, id).deadline_ns, 3 * TWT_MS);

	/* QUERY: inputs other than id and flags are overwritten. */
	ops[0] = batch_id_op(TWHEEL_OP_QUERY, id);
	ops[0].cookie = 1;
	ops[0].expires_ns = 2;
	ops[0].period_ns = 3;
	ops[0].clock = 4;
	ops[0].error = 5;
	ops[0].result = 6;
	ops[0].count = 7;
	ops[0].remaining_ns = 8;
	/* MODIFY without TWHEEL_SET_COOKIE: cookie and clock are not taken. */
	ops[1] = batch_modify_op(id, 0xABCD, 4 * TWT_MS, 0, 0);
	ops[1].clock = CLOCK_REALTIME;
	ops[1].count = 11;
	ops[1].remaining_ns = 12;
	CHECK_EQ(twt_submit_raw(fd, ops, 2), 2);
	CHECK_EQ(ops[0].error, 0);
	CHECK_EQ(ops[0].cookie, 5);
	CHECK_EQ(ops[0].expires_ns, 3 * TWT_MS);
	CHECK_EQ(ops[0].period_ns, 0);
	CHECK_EQ(ops[0].clock, CLOCK_BOOTTIME);
	CHECK_EQ(ops[0].result, TWHEEL_STATE_PENDING);
	CHECK_EQ(ops[0].count, 0);
	CHECK_EQ(ops[0].remaining_ns, 3 * TWT_MS);
	CHECK_EQ(ops[1].error, 0);
	CHECK_EQ(ops[1].result, TWHEEL_STATE_PENDING);
	CHECK_EQ(ops[1].count, 0);
	CHECK_EQ(ops[1].remaining_ns, 0);
	{
		struct twheel_status st = twt_query(fd, id);

		CHECK_EQ(st.cookie, 5);
		CHECK_EQ(st.clock, CLOCK_BOOTTIME);
		CHECK_EQ(st.deadline_ns, 4 * TWT_MS);
	}
	/* CANCEL with garbage everywhere else. */
	ops[0] = batch_id_op(TWHEEL_OP_CANCEL, id);
	ops[0].cookie = 1;
	ops[0].expires_ns = -2;
	ops[0].period_ns = 3;
	ops[0].clock = 99;
	ops[0].error = 5;
	ops[0].count = 7;
	ops[0].remaining_ns = 8;
	CHECK_EQ(twt_submit_raw(fd, ops, 1), 1);
	CHECK_EQ(ops[0].error, 0);
	CHECK_EQ(ops[0].id, id);
	CHECK_EQ(ops[0].result, TWHEEL_STATE_PENDING);
	CHECK_EQ(ops[0].count, 0);
	CHECK_EQ(ops[0].remaining_ns, 0);
	CHECK_EQ(twt_timers(fd), 0);
	close(fd);
}

/*
 * "On output the operation's outputs are written ..., and @error,
 * @result, @count and @remaining_ns as 0 where the operation does not
 * produce them; every other field keeps the value given". A field that is an input of some
 * operation but not taken by this one (a CANCEL's cookie, a MODIFY's
 * clock, or its cookie without TWHEEL_SET_COOKIE) comes back as given;
 * the output-only fields it does not produce come back 0.
 */
static void fields_not_taken_kept(void)
{
	int fd = batch_open();
	struct twheel_op ops[2];
	uint64_t a, b;

	a = twt_add(fd, 1, TWT_S, 0, CLOCK_MONOTONIC);
	b = twt_add(fd, 2, TWT_S, 0, CLOCK_MONOTONIC);
	ops[0] = batch_modify_op(a, 0xABCD, 4 * TWT_MS, 0, 0);
	ops[0].clock = CLOCK_REALTIME;
	ops[1] = batch_id_op(TWHEEL_OP_CANCEL, b);
	ops[1].cookie = 1;
	ops[1].expires_ns = -2;
	ops[1].period_ns = 3;
	ops[1].clock = 99;
	ops[0].count = 5;
	ops[0].remaining_ns = 6;
	ops[1].count = 7;
	ops[1].remaining_ns = 8;
	ops[1].error = 9;
	CHECK_EQ(twt_submit_raw(fd, ops, 2), 2);
	CHECK_EQ(ops[0].error, 0);
	CHECK_EQ(ops[0].result, TWHEEL_STATE_PENDING);
	CHECK_EQ(ops[0].cookie, 0xABCD);
	CHECK_EQ(ops[0].clock, CLOCK_REALTIME);
	CHECK_EQ(ops[0].expires_ns, 4 * TWT_MS);
	CHECK_EQ(ops[0].count, 0);
	CHECK_EQ(ops[0].remaining_ns, 0);
	CHECK_EQ(ops[1].error, 0);
	CHECK_EQ(ops[1].result, TWHEEL_STATE_PENDING);
	CHECK_EQ(ops[1].cookie, 1);
	CHECK_EQ(ops[1].expires_ns, -2);
	CHECK_EQ(ops[1].period_ns, 3);
	CHECK_EQ(ops[1].clock, 99);
	CHECK_EQ(ops[1].count, 0);
	CHECK_EQ(ops[1].remaining_ns, 0);
	/* Nor do they change what the operation did. */
	CHECK_EQ(twt_query(fd, a).cookie, 1);
	CHECK_EQ(twt_query(fd, a).clock, CLOCK_MONOTONIC);
	CHECK_ERR(twt_query_raw(fd, b, NULL), ENOENT);
	close(fd);
}

/*
 * An operation array, and a read buffer, at an odd address: C gives no
 * such struct, but the kernel takes any address; the results are the
 * same, field for field, as with an aligned array.
 */
static void misaligned_array(void)
{
	enum { N = 5 };
	int fd = batch_open();
	struct twheel_op in[N], out[N];
	struct twheel_event ev[2];
	unsigned char *raw = malloc(sizeof(in) + 8);
	unsigned char *rbuf = malloc(sizeof(ev) + 8);
	uint64_t a;
	ssize_t r;

	CHECK(raw && rbuf);
	a = twt_add(fd, 7, 3 * TWT_MS, 0, CLOCK_MONOTONIC);
	in[0] = batch_add_op(21, 0, 0, 0, CLOCK_MONOTONIC);	/* queued now */
	in[1] = batch_add_op(22, 5 * TWT_MS, 0, 0, 12345);	/* EINVAL */
	in[2] = batch_id_op(TWHEEL_OP_QUERY, a);
	in[3] = batch_modify_op(a, 9, 0, 0, TWHEEL_SET_COOKIE);	/* due now */
	in[4] = batch_id_op(TWHEEL_OP_CANCEL, a + 1000);	/* ENOENT */
	in[2].cookie = 77;	/* an output of QUERY: overwritten */
	memcpy(raw + 1, in, sizeof(in));
	CHECK_EQ(twt_submit_raw(fd, (struct twheel_op *)(raw + 1), N), N);
	memcpy(out, raw + 1, sizeof(out));
	CHECK_ADD_DONE(out[0], in[0]);
	CHECK_EQ(out[1].error, -EINVAL);
	CHECK_EQ(out[1].id, 0);
	CHECK_EQ(out[1].cookie, 22);
	CHECK_EQ(out[2].error, 0);
	CHECK_EQ(out[2].cookie, 7);
	CHECK_EQ(out[2].clock, CLOCK_MONOTONIC);
	CHECK_EQ(out[2].expires_ns, 3 * TWT_MS);
	CHECK_EQ(out[2].result, TWHEEL_STATE_PENDING);
	CHECK_EQ(out[2].remaining_ns, 3 * TWT_MS);
	CHECK_EQ(out[3].error, 0);
	CHECK_EQ(out[3].result, TWHEEL_STATE_PENDING);
	CHECK_EQ(out[4].error, -ENOENT);
	/* Both records, oldest first, into an odd address too. */
	r = read(fd, rbuf + 3, sizeof(ev));
	CHECK_EQ(r, (ssize_t)sizeof(ev));
	memcpy(ev, rbuf + 3, sizeof(ev));
	CHECK_EQ(ev[0].id, out[0].id);
	CHECK_EQ(ev[0].cookie, 21);
	CHECK_EQ(ev[0].count, 1);
	CHECK_EQ(ev[0].clock, CLOCK_MONOTONIC);
	CHECK_EQ(ev[0].flags, 0);
	CHECK_EQ(ev[0].time_ns, 0);	/* the manual clock has not moved */
	CHECK_EQ(ev[1].id, a);
	CHECK_EQ(ev[1].cookie, 9);
	CHECK_EQ(ev[1].time_ns, 0);
	CHECK_EQ(twt_timers(fd), 0);
	free(raw);
	free(rbuf);
	close(fd);
}

TWT_MAIN("batch_outputs",
	 TWT_CASE(add_outputs),
	 TWT_CASE(modify_cancel_query_outputs),
	 TWT_CASE(ignored_inputs),
	 TWT_CASE(fields_not_taken_kept),
	 TWT_CASE(misaligned_array))
