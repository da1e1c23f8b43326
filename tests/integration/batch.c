// SPDX-License-Identifier: GPL-2.0
/*
 * batch: TWHEEL_IOC_SUBMIT. A bad struct twheel_submit (nr above
 * TWHEEL_MAX_BATCH, op_size, flags, reserved) is EINVAL with nothing done;
 * nr 0 does nothing; operations run in array order, each one failing
 * alone with the errno its single ioctl gives; the return value counts
 * the operations done; a fault (an entry that cannot be read, or written
 * back) stops the batch before that entry with everything before it done
 * and nothing lost. What each operation writes back: batch_outputs.c;
 * the helpers: batch.h.
 */
#include <sys/mman.h>

#include "batch.h"

#define OPSZ		((int)sizeof(struct twheel_op))
#define PARAM_MAX	"/sys/module/twheel/parameters/max_timers"

/* TWHEEL_IOC_SUBMIT with every field of struct twheel_submit given. */
static int batch_submit_full(int fd, const void *ops, uint32_t nr,
			     uint32_t op_size, uint32_t flags,
			     uint32_t reserved)
{
	struct twheel_submit s;

	memset(&s, 0, sizeof(s));
	s.ops = (uint64_t)(uintptr_t)ops;
	s.nr = nr;
	s.op_size = op_size;
	s.flags = flags;
	s.__reserved = reserved;
	return ioctl(fd, TWHEEL_IOC_SUBMIT, &s);
}

/* A failed operation: error set, every output 0. */
#define CHECK_OP_FAILED(o, err) do {					\
	CHECK_EQ((o).error, -(err));					\
	CHECK_EQ((o).result, 0);					\
	CHECK_EQ((o).count, 0);						\
	CHECK_EQ((o).remaining_ns, 0);					\
} while (0)

/* ---- struct twheel_submit ---- */

static void sizes_and_info(void)
{
	int fd = twt_open(O_NONBLOCK);
	struct twheel_info info = twt_info(fd);

	CHECK_EQ(info.op_size, 72);
	CHECK_EQ(info.max_batch, TWHEEL_MAX_BATCH);
	CHECK_EQ(TWHEEL_MAX_BATCH, 1024);
	CHECK(info.ioctls & (1ULL << _IOC_NR(TWHEEL_IOC_SUBMIT)));
	CHECK_EQ(_IOC_SIZE(TWHEEL_IOC_SUBMIT), sizeof(struct twheel_submit));
	close(fd);
}

static void nr_zero(void)
{
	int fd = batch_open();
	struct twheel_op op = batch_add_op(1, 0, 0, 0, CLOCK_MONOTONIC);

	CHECK_EQ(batch_submit_full(fd, &op, 0, OPSZ, 0, 0), 0);
	CHECK_EQ(batch_submit_full(fd, NULL, 0, OPSZ, 0, 0), 0);
	CHECK_EQ(batch_submit_full(fd, (void *)1, 0, OPSZ, 0, 0), 0);
	CHECK_EQ(op.id, 0);
	CHECK_EQ(twt_timers(fd), 0);
	close(fd);
}

/* Too many: EINVAL before anything is read, done or written. */
static void nr_too_big(void)
{
	enum { N = TWHEEL_MAX_BATCH + 1 };
	static struct twheel_op ops[N], copy[N];
	int fd = batch_open();
	int i;

	for (i = 0; i < N; i++)
		ops[i] = batch_add_op(i, TWT_S, 0, 0, CLOCK_MONOTONIC);
	memcpy(copy, ops, sizeof(ops));
	CHECK_ERR(batch_submit_full(fd, ops, N, OPSZ, 0, 0), EINVAL);
	CHECK_ERR(batch_submit_full(fd, ops, UINT32_MAX, OPSZ, 0, 0), EINVAL);
	CHECK_ERR(batch_submit_full(fd, ops, 1U << 31, OPSZ, 0, 0), EINVAL);
	/* Checked first: before the pointer or the other fields. */
	CHECK_ERR(batch_submit_full(fd, NULL, N, OPSZ, 0, 0), EINVAL);
	CHECK_ERR(batch_submit_full(fd, (void *)8, N, OPSZ, 0, 0), EINVAL);
	CHECK(!memcmp(ops, copy, sizeof(ops)));
	CHECK_EQ(twt_timers(fd), 0);
	/* The largest batch is fine. */
	CHECK_EQ(twt_submit_raw(fd, ops, N - 1), N - 1);
	CHECK_EQ(twt_timers(fd), N - 1);
	close(fd);
}

static void bad_submit_struct(void)
{
	static const uint32_t bad_sizes[] = { 0, 1, 40, 56, 64, 71, 73, 80, 144 };
	static const uint32_t bad_flags[] = { 1, 2, 0x80000000U, ~0U };
	int fd = batch_open();
	struct twheel_op ops[2], copy[2];
	unsigned int k;

	ops[0] = batch_add_op(1, TWT_S, 0, 0, CLOCK_MONOTONIC);
	ops[1] = batch_add_op(2, TWT_S, 0, 0, CLOCK_MONOTONIC);
	memcpy(copy, ops, sizeof(ops));
	for (k = 0; k < sizeof(bad_sizes) / sizeof(bad_sizes[0]); k++)
		CHECK_ERR(batch_submit_full(fd, ops, 2, bad_sizes[k], 0, 0),
			  EINVAL);
	for (k = 0; k < sizeof(bad_flags) / sizeof(bad_flags[0]); k++) {
		CHECK_ERR(batch_submit_full(fd, ops, 2, OPSZ, bad_flags[k], 0),
			  EINVAL);
		CHECK_ERR(batch_submit_full(fd, ops, 2, OPSZ, 0, bad_flags[k]),
			  EINVAL);
	}
	CHECK(!memcmp(ops, copy, sizeof(ops)));
	CHECK_EQ(twt_timers(fd), 0);
	CHECK_EQ(batch_submit_full(fd, ops, 2, OPSZ, 0, 0), 2);
	CHECK_EQ(twt_timers(fd), 2);
	close(fd);
}

/* ---- errors, one entry at a time ---- */

/* The errno of the single ioctl equivalent to op (0 when it succeeds). */
static int batch_single_errno(int fd, const struct twheel_op *o)
{
	int ret;

	errno = 0;
	switch (o->op) {
	case TWHEEL_OP_ADD: {
		struct twheel_add a = {
			.cookie = o->cookie, .expires_ns = o->expires_ns,
			.period_ns = o->period_ns, .flags = o->flags,
			.clock = o->clock,
		};
		ret = ioctl(fd, TWHEEL_IOC_ADD, &a);
		break;
	}
	case TWHEEL_OP_MODIFY: {
		struct twheel_modify m = {
			.id = o->id, .cookie = o->cookie,
			.expires_ns = o->expires_ns, .period_ns = o->period_ns,
			.flags = o->flags,
		};
		ret = ioctl(fd, TWHEEL_IOC_MODIFY, &m);
		break;
	}
	case TWHEEL_OP_CANCEL: {
		struct twheel_cancel c = { .id = o->id, .flags = o->flags };

		ret = ioctl(fd, TWHEEL_IOC_CANCEL, &c);
		break;
	}
	case TWHEEL_OP_QUERY: {
		struct twheel_query q = { .id = o->id, .flags = o->flags };

		ret = ioctl(fd, TWHEEL_IOC_QUERY, &q);
		break;
	}
	default:
		return EINVAL;
	}
	return ret ? errno : 0;
}

static void per_entry_errors(void)
{
	enum { N = 20 };
	int fd = batch_open();
	struct twheel_op in[N], ops[N];
	struct twheel_status before;
	static const int want[N] = {
		0, EINVAL, EINVAL, EINVAL, EINVAL, EINVAL, EINVAL, EINVAL,
		EINVAL, ENOENT, EINVAL, EINVAL, EINVAL, ENOENT, EINVAL,
		ENOENT, EINVAL, EINVAL, EINVAL, 0,
	};
	uint64_t keep;
	int i, nok = 0;

	keep = twt_addp(fd, 77, TWT_S, 5 * TWT_MS, 0, CLOCK_MONOTONIC);
	before = twt_query(fd, keep);
	in[0] = batch_add_op(1, TWT_S, 0, 0, CLOCK_MONOTONIC);
	in[1] = batch_add_op(2, TWT_S, 0, 0, 99);		/* clock */
	in[2] = batch_add_op(3, -1, 0, 0, CLOCK_MONOTONIC);	/* negative */
	in[3] = batch_add_op(4, TWT_S, 0, TWHEEL_SET_COOKIE, CLOCK_MONOTONIC);
	in[4] = batch_add_op(5, TWT_S, 0, 0x10, CLOCK_MONOTONIC);
	memset(&in[5], 0, sizeof(in[5]));			/* op 0 */
	memset(&in[6], 0, sizeof(in[6]));
	in[6].op = 5;
	memset(&in[7], 0, sizeof(in[7]));
	in[7].op = UINT32_MAX;
	in[8] = batch_add_op(6, TWT_S, 0, 0, CLOCK_MONOTONIC);
	in[8].__reserved = 1;
	in[9] = batch_modify_op(keep + 1000, 0, TWT_MS, 0, 0);	/* unknown */
	in[10] = batch_modify_op(keep, 0, TWT_MS, 0, 4);	/* flags */
	in[11] = batch_modify_op(keep, 0, -TWT_MS, 0, 0);	/* negative */
	in[12] = batch_id_op(TWHEEL_OP_CANCEL, keep);
	in[12].flags = 1;
	in[13] = batch_id_op(TWHEEL_OP_CANCEL, keep + 1000);
	in[14] = batch_id_op(TWHEEL_OP_QUERY, keep);
	in[14].flags = TWHEEL_ABSTIME;
	in[15] = batch_id_op(TWHEEL_OP_QUERY, 0);
	in[16] = batch_id_op(TWHEEL_OP_QUERY, keep);
	in[16].__reserved = 0x100;
	in[17] = batch_add_op(7, TWT_S, 0, 0, CLOCK_PROCESS_CPUTIME_ID);
	in[18] = batch_modify_op(keep, 0, TWT_MS, 0, TWHEEL_SET_COOKIE << 1);
	in[19] = batch_add_op(8, 2 * TWT_S, 0, 0, CLOCK_TAI);
	memcpy(ops, in, sizeof(ops));
	/* Every entry done, the bad ones failing alone. */
	CHECK_EQ(twt_submit_raw(fd, ops, N), N);
	for (i = 0; i < N; i++) {
		if (ops[i].error != -want[i])
			twt_fail(__FILE__, __LINE__,
				 "entry %d: error %d, want %d", i, ops[i].error,
				 -want[i]);
		CHECK_EQ(ops[i].op, in[i].op);
		CHECK_EQ(ops[i].flags, in[i].flags);
		if (!want[i]) {
			CHECK_ADD_DONE(ops[i], in[i]);
			nok++;
			continue;
		}
		CHECK_OP_FAILED(ops[i], want[i]);
		if (in[i].op == TWHEEL_OP_ADD)
			CHECK_EQ(ops[i].id, 0);
		if (in[i].op == TWHEEL_OP_QUERY) {
			CHECK_EQ(ops[i].id, in[i].id);
			CHECK_EQ(ops[i].cookie, 0);
			CHECK_EQ(ops[i].expires_ns, 0);
			CHECK_EQ(ops[i].period_ns, 0);
			CHECK_EQ(ops[i].clock, 0);
		}
		if (in[i].op == TWHEEL_OP_MODIFY || in[i].op == TWHEEL_OP_CANCEL)
			CHECK_EQ(ops[i].id, in[i].id);
		/* The single ioctl fails the same way (it has no __reserved). */
		if (!in[i].__reserved)
			CHECK_EQ(batch_single_errno(fd, &in[i]), want[i]);
	}
	CHECK_EQ(nok, 2);
	/* Only the two good ADDs made timers; keep is unchanged. */
	CHECK_EQ(twt_timers(fd), 3);
	{
		struct twheel_status now = twt_query(fd, keep);

		CHECK_EQ(now.deadline_ns, before.deadline_ns);
		CHECK_EQ(now.period_ns, before.period_ns);
		CHECK_EQ(now.cookie, before.cookie);
		CHECK_EQ(now.state, before.state);
	}
	close(fd);
}

/* Errors that depend on state: ENOSPC at the fd's limit, per entry. */
static void enospc_per_entry(void)
{
	enum { N = 15, MAX = 10 };
	struct twheel_op ops[N];
	long long old = twt_sysfs_read(PARAM_MAX);
	char buf[32];
	int fd, i;

	if (old < 0)
		twt_skip("no " PARAM_MAX);
	if (twt_sysfs_write(PARAM_MAX, "10"))
		twt_skip("cannot write " PARAM_MAX);
	fd = open(TWT_DEV, O_RDWR | O_NONBLOCK);
	snprintf(buf, sizeof(buf), "%lld", old);
	CHECK_OK(twt_sysfs_write(PARAM_MAX, buf));
	CHECK(fd >= 0);
	CHECK_EQ(twt_info(fd).max_timers, MAX);
	for (i = 0; i < N; i++)
		ops[i] = batch_add_op(i, TWT_S, 0, 0, CLOCK_MONOTONIC);
	CHECK_EQ(twt_submit_raw(fd, ops, N), N);
	for (i = 0; i < N; i++) {
		if (i < MAX) {
			CHECK_EQ(ops[i].error, 0);
			CHECK(ops[i].id != 0);
		} else {
			CHECK_OP_FAILED(ops[i], ENOSPC);
			CHECK_EQ(ops[i].id, 0);
		}
	}
	CHECK_EQ(twt_timers(fd), MAX);
	/* Free one in the same batch: the ADD after it fits. */
	ops[0] = batch_id_op(TWHEEL_OP_CANCEL, ops[3].id);
	ops[1] = batch_add_op(20, TWT_S, 0, 0, CLOCK_MONOTONIC);
	ops[2] = batch_add_op(21, TWT_S, 0, 0, CLOCK_MONOTONIC);
	CHECK_EQ(twt_submit_raw(fd, ops, 3), 3);
	CHECK_EQ(ops[0].error, 0);
	CHECK_EQ(ops[1].error, 0);
	CHECK_EQ(ops[2].error, -ENOSPC);
	CHECK_EQ(twt_timers(fd), MAX);
	close(fd);
}

/* ---- order ---- */

static void in_order(void)
{
	int fd = batch_open();
	struct twheel_op ops[12];
	struct twheel_event ev[8];
	uint64_t x, y;
	int i;

	/* Equal deadlines expire in array order. */
	ops[0] = batch_add_op(0, 5 * TWT_MS, 0, 0, CLOCK_MONOTONIC);
	ops[1] = batch_add_op(1, 3 * TWT_MS, 0, 0, CLOCK_MONOTONIC);
	ops[2] = batch_add_op(2, 4500 * TWT_US, 0, 0, CLOCK_MONOTONIC);
	ops[3] = batch_add_op(3, 2500 * TWT_US, 0, 0, CLOCK_MONOTONIC);
	ops[4] = batch_add_op(4, 0, 0, 0, CLOCK_MONOTONIC);
	ops[5] = batch_add_op(5, 5 * TWT_MS, 0, TWHEEL_ABSTIME, CLOCK_MONOTONIC);
	CHECK_EQ(twt_submit_raw(fd, ops, 6), 6);
	CHECK_EQ(twt_queued(fd), 1);
	twt_advance(fd, 5 * TWT_MS);
	CHECK_EQ(read(fd, ev, sizeof(ev)), 6 * sizeof(ev[0]));
	{
		static const int order[] = { 4, 1, 3, 0, 2, 5 };

		for (i = 0; i < 6; i++) {
			CHECK_EQ(ev[i].cookie, order[i]);
			CHECK_EQ(ev[i].id, ops[order[i]].id);
		}
	}

	/* Each entry sees what the entries before it did. */
	ops[0] = batch_add_op(10, TWT_S, 0, 0, CLOCK_MONOTONIC);
	ops[1] = batch_add_op(11, TWT_S, 0, 0, CLOCK_MONOTONIC);
	CHECK_EQ(twt_submit_raw(fd, ops, 2), 2);
	x = ops[0].id;
	y = ops[1].id;
	ops[0] = batch_id_op(TWHEEL_OP_QUERY, x);
	ops[1] = batch_id_op(TWHEEL_OP_CANCEL, x);
	ops[2] = batch_id_op(TWHEEL_OP_QUERY, x);
	ops[3] = batch_id_op(TWHEEL_OP_CANCEL, x);
	ops[4] = batch_modify_op(y, 0, 0, 0, 0);	/* due now: queued */
	ops[5] = batch_id_op(TWHEEL_OP_QUERY, y);
	ops[6] = batch_id_op(TWHEEL_OP_CANCEL, y);
	ops[7] = batch_add_op(12, 0, 0, 0, CLOCK_MONOTONIC);
	/* An ADD's id is unknown to the entries: 0 is no id. */
	ops[8] = batch_id_op(TWHEEL_OP_CANCEL, 0);
	ops[9] = batch_id_op(TWHEEL_OP_QUERY, y);
	CHECK_EQ(twt_submit_raw(fd, ops, 10), 10);
	CHECK_EQ(ops[0].error, 0);
	CHECK_EQ(ops[0].result, TWHEEL_STATE_PENDING);
	CHECK_EQ(ops[1].error, 0);
	CHECK_EQ(ops[1].result, TWHEEL_STATE_PENDING);
	CHECK_OP_FAILED(ops[2], ENOENT);
	CHECK_OP_FAILED(ops[3], ENOENT);
	CHECK_EQ(ops[4].error, 0);
	CHECK_EQ(ops[4].result, TWHEEL_STATE_PENDING);
	CHECK_EQ(ops[5].error, 0);
	CHECK_EQ(ops[5].result, TWHEEL_STATE_QUEUED);
	CHECK_EQ(ops[5].count, 1);
	CHECK_EQ(ops[6].error, 0);
	CHECK_EQ(ops[6].result, TWHEEL_STATE_QUEUED);
	CHECK_EQ(ops[7].error, 0);
	CHECK_OP_FAILED(ops[8], ENOENT);
	CHECK_OP_FAILED(ops[9], ENOENT);
	/* Only the last ADD's record is left. */
	CHECK_EQ(read(fd, ev, sizeof(ev)), sizeof(ev[0]));
	CHECK_EQ(ev[0].id, ops[7].id);
	CHECK_EQ(twt_timers(fd), 0);
	close(fd);
}

/* Full batches: 1024 ADDs, then QUERY and CANCEL of all of them. */
static void max_batch(void)
{
	enum { N = TWHEEL_MAX_BATCH };
	static struct twheel_op ops[N];
	static uint64_t id[N];
	int fd = batch_open();
	int i;

	for (i = 0; i < N; i++)
		ops[i] = batch_add_op(i, (i % 50 + 1) * TWT_MS, 0, 0,
				      twt_clock(i % TWT_NCLOCKS));
	CHECK_EQ(twt_submit_raw(fd, ops, N), N);
	for (i = 0; i < N; i++) {
		CHECK_EQ(ops[i].error, 0);
		id[i] = ops[i].id;
		ops[i] = batch_id_op(TWHEEL_OP_QUERY, id[i]);
	}
	CHECK_EQ(twt_timers(fd), N);
	CHECK_EQ(twt_submit_raw(fd, ops, N), N);
	for (i = 0; i < N; i++) {
		CHECK_EQ(ops[i].error, 0);
		CHECK_EQ(ops[i].cookie, i);
		CHECK_EQ(ops[i].expires_ns, (i % 50 + 1) * TWT_MS);
		CHECK_EQ(ops[i].clock, twt_clock(i % TWT_NCLOCKS));
		ops[i] = batch_id_op(TWHEEL_OP_CANCEL, id[i]);
	}
	CHECK_EQ(twt_submit_raw(fd, ops, N), N);
	for (i = 0; i < N; i++) {
		CHECK_EQ(ops[i].error, 0);
		CHECK_EQ(ops[i].result, TWHEEL_STATE_PENDING);
	}
	CHECK_EQ(twt_timers(fd), 0);
	close(fd);
}

/* ---- faults ---- */

/*
 * Entry k straddles into a PROT_NONE page: the ioctl returns k, entries
 * before it done and written back, entry k not done.
 */
static void fault_straddle(void)
{
	static const int ks[] = { 1, 2, 5, 37, 56 };
	unsigned int t;

	for (t = 0; t < sizeof(ks) / sizeof(ks[0]); t++) {
		int k = ks[t], fd = batch_open(), i;
		char *guard = twt_guard_map((size_t)(k + 1) * OPSZ);
		struct twheel_op *ops = (struct twheel_op *)(guard - 40) - k;
		struct twheel_op last;
		uint64_t victim;

		/* An existing timer, for entry k to cancel in a second run. */
		victim = twt_add(fd, 999, TWT_S, 0, CLOCK_MONOTONIC);
		for (i = 0; i < k; i++)
			ops[i] = batch_add_op(i, TWT_S, 0, 0, CLOCK_MONOTONIC);
		/* Entry k: only its first 40 bytes are there. */
		last = batch_add_op(k, TWT_S, 0, 0, CLOCK_MONOTONIC);
		memcpy(&ops[k], &last, 40);
		CHECK_EQ(twt_submit_raw(fd, ops, k + 3), k);
		for (i = 0; i < k; i++) {
			struct twheel_op in = batch_add_op(i, TWT_S, 0, 0,
							   CLOCK_MONOTONIC);

			CHECK_ADD_DONE(ops[i], in);
			CHECK_EQ(twt_query(fd, ops[i].id).cookie, i);
		}
		CHECK(!memcmp(&ops[k], &last, 40));	/* not written */
		CHECK_EQ(twt_timers(fd), k + 1);	/* no ADD of entry k */
		/* The same with a CANCEL at k: the timer stays. */
		for (i = 0; i < k; i++)
			ops[i] = batch_id_op(TWHEEL_OP_QUERY, victim);
		last = batch_id_op(TWHEEL_OP_CANCEL, victim);
		memcpy(&ops[k], &last, 40);
		CHECK_EQ(twt_submit_raw(fd, ops, k + 1), k);
		for (i = 0; i < k; i++) {
			CHECK_EQ(ops[i].error, 0);
			CHECK_EQ(ops[i].cookie, 999);
		}
		CHECK_EQ(twt_query(fd, victim).state, TWHEEL_STATE_PENDING);
		CHECK_EQ(twt_timers(fd), k + 1);
		close(fd);
	}
}

/*
 * Entry k can be read but not written back (a read-only page): not done
 * either, and nothing it would have done stays done.
 */
static void fault_readonly_writeback(void)
{
	size_t pg = (size_t)sysconf(_SC_PAGESIZE);
	static const int ks[] = { 0, 1, 3, 40 };
	unsigned int t;

	for (t = 0; t < sizeof(ks) / sizeof(ks[0]); t++) {
		int k = ks[t], fd = batch_open(), i, want_ret;
		size_t span = ((size_t)k * OPSZ + pg - 1) / pg * pg + pg;
		char *map = mmap(NULL, span, PROT_READ | PROT_WRITE,
				 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		char *ro = map + span - pg;
		struct twheel_op *ops = (struct twheel_op *)ro - k;
		uint64_t victim, mod;
		struct twheel_status st;

		CHECK(map != MAP_FAILED);
		want_ret = k;
		victim = twt_add(fd, 1, TWT_S, 0, CLOCK_MONOTONIC);
		mod = twt_add(fd, 2, 2 * TWT_S, 0, CLOCK_MONOTONIC);
		/* k ADDs, then an ADD, a CANCEL, a MODIFY in read-only memory. */
		for (i = 0; i < k; i++)
			ops[i] = batch_add_op(i, TWT_S, 0, 0, CLOCK_MONOTONIC);
		ops[k] = batch_add_op(k, TWT_S, 0, 0, CLOCK_MONOTONIC);
		CHECK_OK(mprotect(ro, pg, PROT_READ));
		if (k == 0) {
			CHECK_ERR(twt_submit_raw(fd, ops, 1), EFAULT);
		} else {
			CHECK_EQ(twt_submit_raw(fd, ops, k + 1), want_ret);
			for (i = 0; i < k; i++)
				CHECK_EQ(ops[i].error, 0);
		}
		CHECK_EQ(twt_timers(fd), k + 2);
		CHECK_EQ(ops[k].id, 0);

		CHECK_OK(mprotect(ro, pg, PROT_READ | PROT_WRITE));
		ops[k] = batch_id_op(TWHEEL_OP_CANCEL, victim);
		CHECK_OK(mprotect(ro, pg, PROT_READ));
		for (i = 0; i < k; i++)
			ops[i] = batch_id_op(TWHEEL_OP_QUERY, victim);
		if (k == 0)
			CHECK_ERR(twt_submit_raw(fd, ops, 1), EFAULT);
		else
			CHECK_EQ(twt_submit_raw(fd, ops, k + 1), want_ret);
		CHECK_EQ(twt_query(fd, victim).state, TWHEEL_STATE_PENDING);

		CHECK_OK(mprotect(ro, pg, PROT_READ | PROT_WRITE));
		ops[k] = batch_modify_op(mod, 5, 0, 0, TWHEEL_SET_COOKIE);
		CHECK_OK(mprotect(ro, pg, PROT_READ));
		if (k == 0)
			CHECK_ERR(twt_submit_raw(fd, ops, 1), EFAULT);
		else
			CHECK_EQ(twt_submit_raw(fd, ops, k + 1), want_ret);
		st = twt_query(fd, mod);
		CHECK_EQ(st.cookie, 2);
		CHECK_EQ(st.deadline_ns, 2 * TWT_S);
		CHECK_EQ(twt_queued(fd), 0);
		CHECK_EQ(twt_timers(fd), k + 2);
		munmap(map, span);
		close(fd);
	}
}

/* Entry 0 cannot be read: -1 EFAULT, nothing done. */
static void fault_first_entry(void)
{
	int fd = batch_open();
	char *guard = twt_guard_map(OPSZ);
	struct twheel_op *ops = (struct twheel_op *)(guard - 40);
	struct twheel_op op = batch_add_op(1, TWT_S, 0, 0, CLOCK_MONOTONIC);

	CHECK_ERR(twt_submit_raw(fd, (struct twheel_op *)guard, 1), EFAULT);
	CHECK_ERR(twt_submit_raw(fd, (struct twheel_op *)guard, 5), EFAULT);
	CHECK_ERR(twt_submit_raw(fd, NULL, 1), EFAULT);
	memcpy(ops, &op, 40);
	CHECK_ERR(twt_submit_raw(fd, ops, 1), EFAULT);
	CHECK_EQ(twt_timers(fd), 0);
	/* The struct twheel_submit itself unreadable. */
	CHECK_ERR(ioctl(fd, TWHEEL_IOC_SUBMIT, guard), EFAULT);
	CHECK_ERR(ioctl(fd, TWHEEL_IOC_SUBMIT,
			guard - sizeof(struct twheel_submit) + 8), EFAULT);
	CHECK_EQ(twt_timers(fd), 0);
	close(fd);
}

TWT_MAIN("batch",
	 TWT_CASE(sizes_and_info),
	 TWT_CASE(nr_zero),
	 TWT_CASE(nr_too_big),
	 TWT_CASE(bad_submit_struct),
	 TWT_CASE(per_entry_errors),
	 TWT_CASE(enospc_per_entry),
	 TWT_CASE(in_order),
	 TWT_CASE(max_batch),
	 TWT_CASE(fault_straddle),
	 TWT_CASE(fault_readonly_writeback),
	 TWT_CASE(fault_first_entry))
