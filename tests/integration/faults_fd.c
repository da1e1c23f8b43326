// SPDX-License-Identifier: GPL-2.0
/*
 * faults_fd: the fault walks (faults.h) of open of /dev/twheel and of the
 * ioctls on the fd as a whole: CONFIG of a fresh fd, INFO, and LIST from
 * the start and from a cursor in the middle of a listing; each checked
 * against the fd as it was before the call.
 */
#include "faults.h"

/* ---- CONFIG, INFO, open ------------------------------------------------- */

static long call_config(struct wround *w)
{
	const struct twheel_config *c = w->wk->arg;

	w->u.config = *c;
	return ioctl(w->fd, TWHEEL_IOC_CONFIG, &w->u.config);
}

static void check_config(struct wround *w, long r)
{
	const struct twheel_config *c = w->wk->arg;
	const struct snap *a = &w->after;

	CHECK_EQ(r, 0);
	CHECK_EQ(a->info.tick_ns, c->tick_ns);
	CHECK_EQ(a->info.config_flags, c->flags);
	CHECK_EQ(a->now, c->flags & TWHEEL_CONFIG_MANUAL ? 0 : -1);
	CHECK_EQ(fdinfo_val(a->fdinfo, "tick_ns"), c->tick_ns);
	CHECK_EQ(a->n, 0);
}

static void config_fails_cleanly(void)
{
	static const struct twheel_config c[] = {
		{ .tick_ns = 250000, .flags = TWHEEL_CONFIG_MANUAL },
		{ .tick_ns = 10 * TWT_MS },
	};
	static const char *const names[] = {
		"CONFIG(250 us, manual clock)", "CONFIG(10 ms tick)" };
	static const enum setup s[] = { S_FRESH, S_MANUAL_FRESH };
	unsigned int k;

	need_fail_nth();
	for (k = 0; k < 2; k++) {
		struct walk wk = {
			.name = names[k], .prepare = prepare_setup,
			.call = call_config, .check = check_config,
			.errs = W_EFAULT, .need_failure = 1, .setup = s[k],
			.arg = &c[k],
		};

		walk(&wk);
	}
	print_total("CONFIG");
}

static long call_info(struct wround *w)
{
	memset(&w->u.info, 0xAA, sizeof(w->u.info));
	return ioctl(w->fd, TWHEEL_IOC_INFO, &w->u.info);
}

static void check_info(struct wround *w, long r)
{
	CHECK_EQ(r, 0);
	CHECK(!memcmp(&w->u.info, &w->before.info, sizeof(w->u.info)));
	CHECK_SAME(&w->before, &w->after);
}

static void prepare_none(struct wround *w)
{
	w->fd = -1;
	w->manual = 0;
}

static long call_open(struct wround *w)
{
	int fd = open(TWT_DEV, O_RDWR | O_NONBLOCK);

	if (fd >= 0)
		w->fd = fd;
	return fd;
}

/* A new, empty fd with the defaults; one more open fd, one more ref. */
static void check_open(struct wround *w, long r)
{
	const struct snap *a = &w->after;
	long long max = twt_sysfs_read("/sys/module/twheel/parameters/max_timers");

	CHECK_EQ(r, w->fd);
	CHECK_EQ(a->fd, w->fd);
	CHECK_EQ(a->nfds, w->before.nfds + 1);
	if (w->before.refcnt >= 0)
		CHECK_EQ(a->refcnt, w->before.refcnt + 1);
	CHECK_EQ(a->info.version, TWHEEL_ABI_VERSION);
	CHECK_EQ(a->info.tick_ns, TWHEEL_DEFAULT_TICK_NS);
	CHECK_EQ(a->info.timers, 0);
	CHECK_EQ(a->info.queued, 0);
	CHECK_EQ(a->info.config_flags, 0);
	if (max > 0)
		CHECK_EQ(a->info.max_timers, max);
	CHECK_EQ(fdinfo_val(a->fdinfo, "index_bytes"), 0);
	CHECK(!strstr(a->fdinfo, "next_expiry"));
	CHECK(!strstr(a->fdinfo, "manual_now_ns"));
	/* And it works. */
	twt_cancel(w->fd, twt_add(w->fd, 1, HOUR_NS, 0, CLOCK_MONOTONIC));
}

static void info_open_fail_cleanly(void)
{
	struct walk info = {
		.name = "INFO(fd with pending and queued timers)",
		.prepare = prepare_setup, .call = call_info,
		.check = check_info, .errs = W_EFAULT, .need_failure = 1,
		.setup = S_MIX,
	};
	struct walk op = {
		.name = "open(/dev/twheel)", .prepare = prepare_none,
		.call = call_open, .check = check_open,
		.errs = W_ENOMEM | W_EFAULT, .need_failure = 1,
	};

	need_fail_nth();
	walk(&info);
	walk(&op);
	print_total("INFO, open");
}

/* ---- LIST ----------------------------------------------------------- */

struct listarg {
	uint32_t first;		/* a first call of this capacity (0: none) */
	uint32_t capacity;	/* the call walked */
};

static void prepare_list(struct wround *w)
{
	const struct listarg *a = w->wk->arg;
	struct twheel_list l;

	prepare_setup(w);
	memset(w->lst, 0, sizeof(w->lst));
	memset(&l, 0, sizeof(l));
	w->seen = 0;
	if (a->first) {
		/* A listing already under way: the cursor is in the middle. */
		l.statuses = (uint64_t)(uintptr_t)w->first;
		l.capacity = a->first;
		l.status_size = sizeof(w->first[0]);
		CHECK_OK(ioctl(w->fd, TWHEEL_IOC_LIST, &l));
		CHECK(l.cursor != 0);
		w->seen = l.count;
	}
	l.statuses = (uint64_t)(uintptr_t)w->lst;
	l.capacity = a->capacity;
	l.count = 0;
	l.status_size = sizeof(w->lst[0]);
	w->u.list = l;
	w->usent = w->u;
}

static long call_list(struct wround *w)
{
	return ioctl(w->fd, TWHEEL_IOC_LIST, &w->u.list);
}

/*
 * "If the array cannot be written, EFAULT: repeat the call with the same
 * cursor": the caller's struct still has it.
 */
static void after_fail_list(struct wround *w)
{
	CHECK_EQ(w->u.list.cursor, w->usent.list.cursor);
	CHECK_EQ(w->u.list.statuses, w->usent.list.statuses);
}

static int cmp_status_id(const void *x, const void *y)
{
	const struct twheel_status *a = x, *b = y;

	return (a->id > b->id) - (a->id < b->id);
}

/*
 * The listing (the entries before the call, the call's, then the rest from
 * the cursor it returned) reports every timer exactly once, as it is.
 */
static void check_list(struct wround *w, long r)
{
	static struct twheel_status all[MAX_TIMERS], ref[MAX_TIMERS];
	const struct snap *b = &w->before;
	struct twheel_list l = w->u.list;
	uint32_t n = 0, k;

	CHECK_EQ(r, 0);
	CHECK(l.count <= l.capacity);
	CHECK_SAME(&w->before, &w->after);
	memcpy(all, w->first, w->seen * sizeof(all[0]));
	n = w->seen;
	CHECK(n + l.count <= MAX_TIMERS);
	memcpy(all + n, w->lst, l.count * sizeof(all[0]));
	n += l.count;
	while (l.cursor) {
		CHECK(n < MAX_TIMERS);
		l.statuses = (uint64_t)(uintptr_t)(all + n);
		l.capacity = MAX_TIMERS - n;
		CHECK_OK(ioctl(w->fd, TWHEEL_IOC_LIST, &l));
		n += l.count;
	}
	CHECK_EQ(n, b->n);
	for (k = 0; k < n; k++)
		all[k].remaining_ns = 0;
	memcpy(ref, b->st, n * sizeof(ref[0]));
	qsort(all, n, sizeof(all[0]), cmp_status_id);
	qsort(ref, n, sizeof(ref[0]), cmp_status_id);
	for (k = 0; k < n; k++)
		if (memcmp(&all[k], &ref[k], sizeof(all[k]))) {
			print_status("listed", &all[k]);
			print_status("fd has", &ref[k]);
			twt_fail(__FILE__, __LINE__, "listing entry %u", k);
		}
}

static void list_fails_cleanly(void)
{
	static const struct listarg a[] = {
		{ .first = 0, .capacity = 5 },
		{ .first = 10, .capacity = 100 },
		{ .first = 10, .capacity = 5 },
	};
	static const char *const names[] = {
		"LIST(from the start, 5 of 151)",
		"LIST(cursor in the middle, 100: two chunks)",
		"LIST(cursor in the middle, 5)" };
	unsigned int k;

	need_fail_nth();
	for (k = 0; k < 3; k++) {
		struct walk wk = {
			.name = names[k], .prepare = prepare_list,
			.call = call_list, .check = check_list,
			.after_fail = after_fail_list, .errs = W_BOTH,
			.need_failure = 1, .setup = S_MANY, .arg = &a[k],
		};

		walk(&wk);
	}
	print_total("LIST");
}

TWT_MAIN("faults_fd",
	 TWT_CASE_T(config_fails_cleanly, 300),
	 TWT_CASE_T(list_fails_cleanly, 300),
	 TWT_CASE_T(info_open_fail_cleanly, 300))
