// SPDX-License-Identifier: GPL-2.0
/*
 * faults_submit: the fault walks (faults.h) of SUBMIT, every operation's
 * outcome checked against the model of the fd (faults_ops.h): a fault
 * fails the call, stops the batch before an operation it could not read
 * (a partial batch), fails one operation that allocates alone (ENOMEM in
 * its error), or is absorbed.
 */
#include "faults_ops.h"

/*
 * Batches that mix every operation, with two that fail alone by design;
 * and one of two chunks (the kernel reads 32 operations at a time), so
 * that a fault can stop it in the middle.
 */
static void submit_fails_cleanly(void)
{
	static const struct optmpl mix[] = {
		OP_ADD(10, 5 * TWT_S, 0, 0, CLOCK_MONOTONIC),
		OP_ADD(11, TWT_S, 100 * TWT_MS, 0, CLOCK_BOOTTIME),
		OP_ADD_ABS(12, 0, CLOCK_REALTIME),
		OP_MOD(1, 13, 10 * TWT_S, 2 * TWT_S, TWHEEL_SET_COOKIE),
		OP_MOD(6, 0, 20 * TWT_S, 0, 0),
		OP_CANCEL(2),
		OP_CANCEL(4),
		OP_QUERY(5),
		OP_QUERY(3),
		{ .op = { .op = TWHEEL_OP_ADD, .cookie = 14, .flags = 0x80,
			  .clock = CLOCK_MONOTONIC }, .xerr = -EINVAL },
		{ .op = { .op = TWHEEL_OP_MODIFY, .id = 0x7777,
			  .period_ns = TWT_S }, .xerr = -ENOENT },
		OP_MOD_ABS(3, -TWT_S),
	};
	static struct optmpl big[40];
	unsigned int k;

	need_fail_nth();
	walk_ops("SUBMIT(12 mixed ops)", S_MIX, 0, mix,
		 sizeof(mix) / sizeof(mix[0]), W_BOTH);
	for (k = 0; k < 30; k++)
		big[k] = (struct optmpl)OP_ADD(1000 + k, (k + 1) * TWT_S,
					       k % 3 ? 0 : 300 * TWT_MS, 0,
					       twt_clock(k % TWT_NCLOCKS));
	big[30] = (struct optmpl)OP_MOD(1, 13, 10 * TWT_S, 2 * TWT_S,
					TWHEEL_SET_COOKIE);
	big[31] = (struct optmpl)OP_CANCEL(6);
	big[32] = (struct optmpl)OP_ADD_ABS(2000, 0, CLOCK_TAI);
	big[33] = (struct optmpl)OP_QUERY(5);
	big[34] = (struct optmpl)OP_MOD(4, 0, 4 * TWT_S, 0, 0);
	big[35] = (struct optmpl)OP_CANCEL(2);
	big[36] = (struct optmpl)OP_ADD(2001, 7 * TWT_S, 0, 0, CLOCK_BOOTTIME);
	big[37] = (struct optmpl)OP_MOD(5, 0, 9 * TWT_S, TWT_S, 0);
	big[38] = (struct optmpl)OP_QUERY(3);
	big[39] = (struct optmpl)OP_CANCEL(3);
	walk_ops("SUBMIT(40 ops, two chunks)", S_MIX, 0, big, 40, W_BOTH);
	print_total("SUBMIT");
}

TWT_MAIN("faults_submit",
	 TWT_CASE_T(submit_fails_cleanly, 600))
