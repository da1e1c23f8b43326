// SPDX-License-Identifier: GPL-2.0
/*
 * faults: the fault walks (faults.h) of the ioctls on one timer: ADD (each
 * clock's first use, relative and absolute, on a fresh fd and on one in
 * use; a manual-clock fd; the id index growing), CANCEL, MODIFY and QUERY
 * of timers in every state, checked against the model of the fd
 * (faults_ops.h).
 *
 * A clock's base and the wheel levels an add needs are slab allocations
 * FAILSLAB reaches, so an add walks them too, besides the timer's, the id
 * index's and the copies' faults; the levels a wheel needs for timers it
 * already holds are allocated without fail (__GFP_NOFAIL), which fault
 * injection never fails.
 */
#include "faults_ops.h"

/* ADD on the first use of each clock, relative and absolute; the index. */
static void add_walks(void)
{
	static const char *const names[] = {
		"MONOTONIC", "BOOTTIME", "REALTIME", "TAI" };
	static const struct optmpl on_mix[][1] = {
		{ OP_ADD(10, 5 * TWT_S, 0, 0, CLOCK_MONOTONIC) },
		{ OP_ADD(11, TWT_S, 100 * TWT_MS, 0, CLOCK_BOOTTIME) },
		{ OP_ADD_ABS(12, 0, CLOCK_REALTIME) },
	};
	static const char *const mix_names[] = {
		"ADD(one-shot, manual clock)", "ADD(periodic, manual clock)",
		"ADD(due at once, records queued)" };
	struct optmpl t[1];
	char name[96];
	unsigned int k;

	for (k = 0; k < TWT_NCLOCKS; k++) {
		clockid_t c = twt_clock(k);
		struct optmpl rel[1] = { OP_ADD(k + 10, HOUR_NS, 0, 0, c) };
		struct optmpl due[1] = { OP_ADD_ABS(k + 10, -TWT_S, c) };
		struct optmpl later[1] = { OP_ADD_ABS(k + 10, HOUR_NS, c) };

		snprintf(name, sizeof(name), "ADD(rel %s first use)", names[k]);
		walk_ops(name, S_FRESH, 1, rel, 1, W_BOTH);
		snprintf(name, sizeof(name), "ADD(abs due %s first use)",
			 names[k]);
		walk_ops(name, S_FRESH, 1, due, 1, W_BOTH);
		snprintf(name, sizeof(name), "ADD(abs %s first use)", names[k]);
		walk_ops(name, S_FRESH, 1, later, 1, W_BOTH);
		/* The fd has its index and another clock's wheel already. */
		snprintf(name, sizeof(name),
			 "ADD(rel %s first use, fd in use)", names[k]);
		walk_ops(name, c == CLOCK_MONOTONIC ? S_WARM_REAL : S_WARM_MONO,
			 1, rel, 1, W_BOTH);
		snprintf(name, sizeof(name),
			 "ADD(abs due %s first use, fd in use)", names[k]);
		walk_ops(name, c == CLOCK_MONOTONIC ? S_WARM_REAL : S_WARM_MONO,
			 1, due, 1, W_BOTH);
	}
	t[0] = (struct optmpl)OP_ADD(1, TWT_S, 0, 0, CLOCK_TAI);
	walk_ops("ADD(first timer of a manual-clock fd)", S_MANUAL_FRESH, 1, t,
		 1, W_BOTH);
	for (k = 0; k < 3; k++)
		walk_ops(mix_names[k], S_MIX, 1, on_mix[k], 1, W_BOTH);
	t[0] = (struct optmpl)OP_ADD(100000, HOUR_NS, 0, 0, CLOCK_REALTIME);
	walk_ops("ADD(grows the id index by a page)", S_PAGE, 1, t, 1, W_BOTH);
	walk_ops("ADD(grows the id index's page array)", S_PAGES, 1, t, 1,
		 W_BOTH);
}

static void add_fails_cleanly(void)
{
	need_fail_nth();
	add_walks();
	print_total("ADD");
}

static void cancel_fails_cleanly(void)
{
	static const struct optmpl t[][1] = {
		{ OP_CANCEL(1) }, { OP_CANCEL(6) }, { OP_CANCEL(5) },
		{ OP_CANCEL(3) },
	};
	static const char *const names[] = {
		"CANCEL(pending one-shot)", "CANCEL(queued one-shot: retracts)",
		"CANCEL(queued periodic: retracts)",
		"CANCEL(pending periodic)" };
	unsigned int k;

	need_fail_nth();
	for (k = 0; k < 4; k++)
		walk_ops(names[k], S_MIX, 1, t[k], 1, W_EFAULT);
	print_total("CANCEL");
}

static void modify_fails_cleanly(void)
{
	static const struct optmpl t[][1] = {
		{ OP_MOD(1, 13, 10 * TWT_S, 2 * TWT_S, TWHEEL_SET_COOKIE) },
		{ OP_MOD(6, 0, TWT_S, 500 * TWT_MS, 0) },
		{ OP_MOD(3, 0, 7 * TWT_S, 0, 0) },
		{ OP_MOD(5, 14, TWT_S, 400 * TWT_MS, TWHEEL_SET_COOKIE) },
		{ OP_MOD_ABS(6, 0) },
		{ OP_MOD(1, 15, 3 * TWT_S, 0, TWHEEL_SET_COOKIE) },
	};
	static const char *const names[] = {
		"MODIFY(pending one-shot -> periodic, new cookie)",
		"MODIFY(queued one-shot -> periodic: retracts)",
		"MODIFY(pending periodic -> one-shot)",
		"MODIFY(queued periodic -> periodic: retracts)",
		"MODIFY(queued one-shot -> due again: queued last)",
		"MODIFY(pending one-shot -> one-shot, new cookie)" };
	static const int errs[] = { W_BOTH, W_BOTH, W_EFAULT, W_EFAULT,
				    W_EFAULT, W_EFAULT };
	unsigned int k;

	need_fail_nth();
	for (k = 0; k < 6; k++)
		walk_ops(names[k], S_MIX, 1, t[k], 1, errs[k]);
	print_total("MODIFY");
}

static void query_fails_cleanly(void)
{
	static const struct optmpl t[][1] = {
		{ OP_QUERY(5) }, { OP_QUERY(3) }, { OP_QUERY(4) },
		{ OP_QUERY(1) },
	};
	static const char *const names[] = {
		"QUERY(queued periodic, count 3)", "QUERY(pending periodic)",
		"QUERY(queued one-shot)", "QUERY(pending one-shot)" };
	unsigned int k;

	need_fail_nth();
	for (k = 0; k < 4; k++)
		walk_ops(names[k], S_MIX, 1, t[k], 1, W_EFAULT);
	print_total("QUERY");
}

TWT_MAIN("faults",
	 TWT_CASE_T(add_fails_cleanly, 900),
	 TWT_CASE_T(cancel_fails_cleanly, 300),
	 TWT_CASE_T(modify_fails_cleanly, 300),
	 TWT_CASE_T(query_fails_cleanly, 300))
