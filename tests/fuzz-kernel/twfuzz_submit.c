// SPDX-License-Identifier: GPL-2.0
/*
 * twfuzz_submit.c - the strict SUBMIT: a random batch of operations, and
 * each operation done checked as the single ioctl would have to be.
 */
#include "twfuzz.h"

/* One operation of a batch, random; *exp: the error it must give. */
static void gen_op(struct th *th, struct sfd *f, struct twheel_op *op,
		   s64 now_hint)
{
	memset(op, 0, sizeof(*op));
	op->error = (int32_t)rnd64(th);	/* outputs: ignored on input */
	op->result = rnd64(th);
	op->count = rnd64(th);
	op->remaining_ns = rnd64(th);
	switch (rnd(th, 10)) {
	case 0: case 1: case 2: case 3:
		op->op = TWHEEL_OP_ADD;
		op->cookie = new_cookie(th);
		op->clock = chance(th, 5) ? bad_clock(th) : valid_clock(th);
		op->flags = chance(th, 40) ? TWHEEL_ABSTIME : 0;
		if (chance(th, 8))
			op->flags |= TWHEEL_CANCEL_ON_SET;
		op->expires_ns = op->flags ? gen_abs(th, f->tick, f->manual,
						     now_hint) :
			gen_rel(th, f->tick, f->manual);
		if (chance(th, 4))
			op->expires_ns = -1;
		op->period_ns = gen_period(th, f->tick, f->manual);
		op->id = rnd64(th);
		break;
	case 4: case 5:
		op->op = TWHEEL_OP_MODIFY;
		op->id = pick_id(th, f);
		op->cookie = new_cookie(th);
		op->flags = rnd(th, 4);
		if (chance(th, 8))
			op->flags |= TWHEEL_CANCEL_ON_SET;
		op->expires_ns = op->flags & TWHEEL_ABSTIME ?
			gen_abs(th, f->tick, f->manual, now_hint) :
			gen_rel(th, f->tick, f->manual);
		op->period_ns = gen_period(th, f->tick, f->manual);
		op->clock = rnd64(th);	/* ignored by MODIFY */
		break;
	case 6: case 7:
		op->op = TWHEEL_OP_CANCEL;
		op->id = pick_id(th, f);
		op->cookie = rnd64(th);
		break;
	case 8:
		op->op = TWHEEL_OP_QUERY;
		op->id = pick_id(th, f);
		op->expires_ns = rnd64(th);
		break;
	default:
		op->op = chance(th, 50) ? 0 : 5 + rnd(th, 100);
		op->id = pick_id(th, f);
		break;
	}
	if (chance(th, 3))
		op->flags |= unknown_bits(th, op->op == TWHEEL_OP_MODIFY ?
					  TWHEEL_ABSTIME | TWHEEL_SET_COOKIE |
					  TWHEEL_MISSED_MASK |
					  TWHEEL_CANCEL_ON_SET :
					  op->op == TWHEEL_OP_ADD ?
					  TWHEEL_ABSTIME | TWHEEL_MISSED_MASK |
					  TWHEEL_CANCEL_ON_SET : 0);
	if (chance(th, 3))
		op->__reserved = 1 + rnd(th, 100);
}

/*
 * One operation of a batch, done by the kernel, against the shadow,
 * which it updates. in: the operation as given; op: as written back.
 */
static void check_op(struct th *th, struct sfd *f, const struct twheel_op *in,
		     const struct twheel_op *op, unsigned int i,
		     const struct tsamp *t0, const struct tsamp *t1)
{
	struct stimer *t = NULL;
	int want = 0;
	bool full = f->n >= (int)f->max_timers;
	char what[64];

	snprintf(what, sizeof(what), "SUBMIT op %u (%u)", i, in->op);
	/* The error the single ioctl would give. */
	if (in->__reserved) {
		want = -EINVAL;
	} else if (in->op == TWHEEL_OP_ADD) {
		if (clk_index(in->clock) < 0 ||
		    (in->flags & ~(TWHEEL_ABSTIME | TWHEEL_CANCEL_ON_SET)) ||
		    (!(in->flags & TWHEEL_ABSTIME) && in->expires_ns < 0) ||
		    ((in->flags & TWHEEL_CANCEL_ON_SET) &&
		     !cos_ok(in->clock, in->flags)))
			want = -EINVAL;
		else if (full)
			want = -ENOSPC;
	} else if (in->op == TWHEEL_OP_MODIFY) {
		t = sh_find(f, in->id);
		if ((in->flags & ~(TWHEEL_ABSTIME | TWHEEL_SET_COOKIE |
				   TWHEEL_CANCEL_ON_SET)) ||
		    (!(in->flags & TWHEEL_ABSTIME) && in->expires_ns < 0))
			want = -EINVAL;
		else if (!t)
			want = -ENOENT;
		else if ((in->flags & TWHEEL_CANCEL_ON_SET) &&
			 !cos_ok(t->clock, in->flags))
			want = -EINVAL;
	} else if (in->op == TWHEEL_OP_CANCEL || in->op == TWHEEL_OP_QUERY) {
		t = sh_find(f, in->id);
		if (in->flags)
			want = -EINVAL;
		else if (!t)
			want = -ENOENT;
	} else {
		want = -EINVAL;
	}
	if (op->error != want && !(want == -EINVAL && !t &&
				    op->error == -ENOENT &&
				    (in->op == TWHEEL_OP_MODIFY ||
				     in->op == TWHEEL_OP_CANCEL ||
				     in->op == TWHEEL_OP_QUERY) &&
				    !in->__reserved) &&
	    !(want == -EINVAL && full && op->error == -ENOSPC &&
	      in->op == TWHEEL_OP_ADD && !in->__reserved)) {
		violation(th, f, V_ERRNO, "%s: error %d, want %d", what,
			  op->error, want);
		return;
	}
	/* Fields that are not outputs come back as given. */
	if (op->op != in->op || op->flags != in->flags ||
	    op->__reserved != in->__reserved ||
	    (in->op != TWHEEL_OP_ADD && op->id != in->id) ||
	    (in->op != TWHEEL_OP_QUERY &&
	     (op->cookie != in->cookie || op->expires_ns != in->expires_ns ||
	      op->period_ns != in->period_ns || op->clock != in->clock))) {
		violation(th, f, V_ORACLE, "%s: an input field changed", what);
		return;
	}
	if (op->error) {
		ST_INC(th, invalid);
		if ((in->op == TWHEEL_OP_ADD && op->id) || op->result ||
		    op->count || op->remaining_ns ||
		    (in->op == TWHEEL_OP_QUERY &&
		     (op->cookie || op->expires_ns || op->period_ns ||
		      op->clock)))
			violation(th, f, V_ORACLE, "%s: failed with outputs not "
				  "0", what);
		return;
	}
	switch (in->op) {
	case TWHEEL_OP_ADD:
		if (op->result || op->count || op->remaining_ns) {
			violation(th, f, V_ORACLE, "%s: result/count/remaining "
				  "not 0", what);
			return;
		}
		sh_created(th, f, op->id, in->cookie, in->clock, in->flags,
			   in->expires_ns, in->period_ns, t0, t1, what);
		return;
	case TWHEEL_OP_MODIFY:
	case TWHEEL_OP_CANCEL:
		if (op->count || op->remaining_ns) {
			violation(th, f, V_ORACLE, "%s: count/remaining not 0",
				  what);
			return;
		}
		check_result(th, f, t, op->result, t1, what);
		if (f->tainted)
			return;
		if (in->op == TWHEEL_OP_CANCEL) {
			ST_INC(th, ended_cancel);
			sh_end(f, t);
		} else {
			sh_modified(f, t, in->cookie, in->flags, in->expires_ns,
				    in->period_ns, t0, t1);
		}
		return;
	case TWHEEL_OP_QUERY: {
		struct twheel_status st = {
			.id = in->id, .cookie = op->cookie,
			.deadline_ns = op->expires_ns,
			.period_ns = op->period_ns, .count = op->count,
			.remaining_ns = op->remaining_ns, .clock = op->clock,
			.state = op->result,
		};

		check_status(th, f, t, &st, t0, t1, what);
		return;
	}
	}
}

void s_submit(struct th *th, struct sfd *f)
{
	static const uint32_t sizes[] = { 0, 1, 1, 2, 3, 5, 8, 31, 32, 33, 64,
					  1024, 1025 };
	struct twheel_op *in, *ops;
	struct twheel_submit s, *sp;
	struct tsamp t0 = { { 0 } }, t1 = { { 0 } }, tn;
	enum ptrkind pk = P_OK, opk = pick_pk(th, 10);
	int bad = chance(th, 8) ? 1 + rnd(th, 4) : 0;
	uint32_t nr = sizes[rnd(th, sizeof(sizes) / sizeof(sizes[0]))], i;
	size_t fit = 0;
	long r, want;
	int e;

	ST_INC(th, ops[K_SUBMIT]);
	if (nr > 64 && f->n > SOFT_LIVE / 2 && f->max_timers > SOFT_LIVE)
		nr = 8;
	in = malloc((nr + 1) * sizeof(*in));
	if (!in)
		_exit(2);
	sample(&tn);
	for (i = 0; i < nr; i++)
		gen_op(th, f, &in[i], f->manual ? f->now :
		       tn.t[0]);
	memset(&s, 0, sizeof(s));
	s.nr = nr;
	s.op_size = sizeof(*in);
	ops = arr_at(th, opk, in, sizeof(*in), nr, &fit);
	s.ops = (uintptr_t)ops;
	switch (bad) {
	case 1:
		s.op_size = chance(th, 50) ? 0 : sizeof(*in) - 8 + 16 * rnd(th, 2);
		break;
	case 2:
		s.flags = unknown_bits(th, 0);
		break;
	case 3:
		s.__reserved = 1 + rnd(th, 1000);
		break;
	case 4:
		pk = 1 + rnd(th, P_NKINDS - 1);
		break;
	}
	sp = arg_at(th, pk, &s, sizeof(s));
	AROUND(f, t, r = xioctl(f->fd, TWHEEL_IOC_SUBMIT, sp));
	e = errno;
	tlog(th, "submit fd %d nr %u op_size %u fl %#x res %#x ptr %s ops %s "
	     "(fit %zu) -> %ld %d", f->fd, s.nr, s.op_size, s.flags,
	     s.__reserved, pk_name[pk], pk_name[opk], fit, r, e);
	/* The struct is only read (_IOW): read-only memory is fine. */
	if (pk != P_OK && pk != P_RO) {
		ST_INC(th, faults);
		if (r != -1 || e != EFAULT)
			bad_errno(th, f, "SUBMIT (bad argument)", r, e, "EFAULT");
		goto out;
	}
	if ((bad >= 1 && bad <= 3) || nr > TWHEEL_MAX_BATCH) {
		if (r != -1 || e != EINVAL)
			bad_errno(th, f, "SUBMIT (invalid)", r, e, "EINVAL");
		else
			ST_INC(th, invalid);
		goto out;
	}
	/* Done: every operation that can be read and written back. */
	want = opk == P_OK ? nr : opk == P_HALF ? (long)fit : 0;
	if (nr == 0)
		want = 0;
	if (opk != P_OK)
		ST_INC(th, faults);
	if (want == 0 && nr > 0) {
		if (r != -1 || e != EFAULT)
			bad_errno(th, f, "SUBMIT (ops unreachable)", r, e,
				  "EFAULT");
		goto out;
	}
	if (r != want) {
		violation(th, f, r < 0 ? V_ERRNO : V_ORACLE, "SUBMIT: %ld (%s) "
			  "operations done, want %ld (ops %s, fit %zu)", r,
			  r < 0 ? strerror(e) : "-", want, pk_name[opk], fit);
		goto out;
	}
	for (i = 0; i < (uint32_t)r && !f->tainted; i++)
		check_op(th, f, &in[i], &ops[i], i, &t0, &t1);
	/* Those not done are as given. */
	for (; i < fit && i < nr && !f->tainted; i++)
		if (memcmp(&ops[i], &in[i], sizeof(*in)))
			violation(th, f, V_ORACLE, "SUBMIT: op %u not done but "
				  "changed", i);
out:
	free(in);
}
