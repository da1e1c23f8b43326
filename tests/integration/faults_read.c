// SPDX-License-Identifier: GPL-2.0
/*
 * faults_read: the fault walks (faults.h) of the calls that deliver and
 * queue records: read (all, 2 and 65 of 73 queued records), and ADVANCE
 * of the manual clock over 311 timers falling due; each checked against
 * the fd as it was before the call.
 */
#include "faults.h"

/* ---- read ------------------------------------------------------------- */

static long call_read(struct wround *w)
{
	size_t want = *(const size_t *)w->wk->arg;
	ssize_t r = read(w->fd, w->ev, want * sizeof(w->ev[0]));

	if (r > 0)
		w->nev = r / sizeof(w->ev[0]);
	return r;
}

/*
 * The records read are the oldest queued; a one-shot timer read is gone,
 * a periodic one pending again at the next point of its grid (its status
 * had that deadline while queued); every other timer is as it was.
 */
static void check_read(struct wround *w, long r)
{
	size_t want = *(const size_t *)w->wk->arg, k, oneshots = 0;
	const struct snap *b = &w->before, *a = &w->after;
	uint32_t i;

	CHECK_EQ(r % TWT_EV_SIZE, 0);
	CHECK_EQ(w->nev, want < b->info.queued ? want : b->info.queued);
	for (k = 0; k < w->nev; k++) {
		const struct twheel_event *e = &w->ev[k];
		const struct twheel_status *sb = snap_find(b, e->cookie);
		const struct twheel_status *sa = snap_find(a, e->cookie);

		CHECK(sb && sb->state == TWHEEL_STATE_QUEUED);
		CHECK_EQ(e->id, sb->id);
		CHECK_EQ(e->count, sb->count);
		CHECK_EQ(e->cookie, w->preq[k]);
		if (!sb->period_ns) {
			CHECK(!sa);
			oneshots++;
			continue;
		}
		CHECK(sa);
		CHECK_EQ(sa->state, TWHEEL_STATE_PENDING);
		CHECK_EQ(sa->deadline_ns, sb->deadline_ns);
		CHECK(sa->deadline_ns > b->now);
		CHECK_EQ(sa->count, 0);
	}
	for (i = 0; i < a->n; i++) {
		const struct twheel_status *sb = snap_find(b, a->st[i].cookie);

		CHECK(sb);
		for (k = 0; k < w->nev; k++)
			if (w->ev[k].cookie == sb->cookie)
				break;
		if (k == w->nev)
			CHECK(!memcmp(sb, &a->st[i], sizeof(*sb)));
	}
	CHECK_EQ(a->n, b->n - oneshots);
	CHECK_EQ(a->info.queued, b->info.queued - w->nev);
}

static void read_fails_cleanly(void)
{
	static const size_t wants[] = { MAX_EV, 2, 65 };
	static const char *const names[] = {
		"read(73 records: 70 one-shot, 2 periodic re-armed)",
		"read(2 of 73 records)",
		"read(65 of 73 records: two copies)" };
	unsigned int k;

	need_fail_nth();
	for (k = 0; k < 3; k++) {
		struct walk wk = {
			.name = names[k], .prepare = prepare_setup,
			.call = call_read, .check = check_read,
			.errs = W_EFAULT, .setup = S_READS, .arg = &wants[k],
		};

		walk(&wk);
	}
	print_total("read");
}

/* ---- ADVANCE ------------------------------------------------------------ */

static long call_advance(struct wround *w)
{
	memset(&w->u, 0, sizeof(w->u));
	w->u.advance.delta_ns = 5 * TWT_S;
	return ioctl(w->fd, TWHEEL_IOC_ADVANCE, &w->u.advance);
}

/*
 * The clock moved by the delta, every timer due by then is queued (the
 * records themselves, in order, are the reference round's).
 */
static void check_advance(struct wround *w, long r)
{
	const struct snap *b = &w->before, *a = &w->after;
	int64_t now = b->now + 5 * TWT_S;
	uint64_t due = b->info.queued;
	uint32_t i;

	CHECK_EQ(r, 0);
	CHECK_EQ(w->u.advance.now_ns, now);
	CHECK_EQ(a->now, now);
	CHECK_EQ(a->n, b->n);
	for (i = 0; i < b->n; i++) {
		const struct twheel_status *sa = snap_find(a, b->st[i].cookie);

		CHECK(sa);
		if (b->st[i].state == TWHEEL_STATE_PENDING &&
		    b->st[i].deadline_ns <= now) {
			due++;
			CHECK_EQ(sa->state, TWHEEL_STATE_QUEUED);
		} else if (b->st[i].state == TWHEEL_STATE_PENDING) {
			CHECK(!memcmp(sa, &b->st[i], sizeof(*sa)));
		}
	}
	CHECK_EQ(a->info.queued, due);
	CHECK(due > 300);
}

static void advance_fails_cleanly(void)
{
	struct walk wk = {
		.name = "ADVANCE(311 timers fall due, 256 a chunk)", .prepare = prepare_setup,
		.call = call_advance, .check = check_advance,
		.errs = W_EFAULT, .need_failure = 1, .setup = S_ADVANCE,
	};

	need_fail_nth();
	walk(&wk);
	print_total("ADVANCE");
}

TWT_MAIN("faults_read",
	 TWT_CASE_T(read_fails_cleanly, 300),
	 TWT_CASE_T(advance_fails_cleanly, 300))
