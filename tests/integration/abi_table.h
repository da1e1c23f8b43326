/* SPDX-License-Identifier: GPL-2.0 */
/*
 * abi_table.h - the nine ioctls as a table, for the cases that run every
 * command the same way: abi_size.c, abi_cmd.c, abi_fault.c.
 */
#ifndef ABI_TABLE_H
#define ABI_TABLE_H

#include "abi.h"

/*
 * ---- Every ioctl, one way: a table ----
 *
 * For each command: how to set up a fresh fd (timers to act on), fill a
 * valid argument, check that the call did its work (and wrote its out
 * fields, kept its in fields), and check that a refused call changed
 * nothing. The generic cases run every command through them, with
 * the argument always ending exactly at a guard page: a kernel that
 * touched a byte past the size it was given would fault.
 */
struct ictx {
	int fd;
	uint64_t id, id2;		/* timers setup() added */
	struct twheel_op *ops;		/* SUBMIT's array (a page) */
	struct twheel_status *st;	/* LIST's array (a page) */
};

struct idesc {
	const char *name;
	unsigned long cmd;
	size_t min_size;	/* the first published size */
	int writes;		/* the argument is written back */
	size_t flags_off;	/* offset of a __u32 flags, or NONE */
	uint32_t flags_ok;	/* the flags it takes */
	size_t rsv_off;		/* offset of a __u32 reserved, or NONE */
	void (*setup)(struct ictx *x);
	/* Fill a valid argument into arg (len bytes, zeroed already). */
	void (*fill)(struct ictx *x, void *arg, size_t len);
	/* The call returned ret >= 0: check its effect (len: its size). */
	void (*done)(struct ictx *x, void *arg, size_t len, int ret);
	/* The call was refused: nothing changed. */
	void (*undone)(struct ictx *x);
};

#define NONE	((size_t)-1)
/* struct twheel_config before max_timers: its first published size. */
#define CONFIG_V2_SIZE	16

/* INFO */
static inline void info_setup(struct ictx *x)
{
	twt_add_rel(x->fd, 1, 3600 * TWT_S);
	twt_add_abs(x->fd, 2, 0, CLOCK_TAI);
}

static inline void info_fill(struct ictx *x, void *arg, size_t len)
{
	(void)x;
	memset(arg, 0xAA, len);		/* output only: never read */
}

static inline void info_done(struct ictx *x, void *arg, size_t len,
				int ret)
{
	struct twheel_info i;

	(void)x;
	CHECK_EQ(ret, 0);
	memset(&i, 0, sizeof(i));
	memcpy(&i, arg, len < sizeof(i) ? len : sizeof(i));
	check_info_module(&i, len);
	CHECK_EQ(i.tick_ns, TWHEEL_DEFAULT_TICK_NS);
	CHECK_EQ(i.timers, 2);
	CHECK_EQ(i.queued, 1);
	if (INFO_HAS(len, config_flags))
		CHECK_EQ(i.config_flags, 0);
	check_info_no_table(&i, len);
}

static inline void info_undone(struct ictx *x)
{
	struct twheel_info i = twt_info(x->fd);

	CHECK_EQ(i.timers, 2);
	CHECK_EQ(i.queued, 1);
}

/* ADD */
static inline void add_fill(struct ictx *x, void *arg, size_t len)
{
	struct twheel_add *a = arg;

	(void)x;
	(void)len;
	a->cookie = 9;
	a->expires_ns = 3600 * TWT_S;
	a->period_ns = 0;
	a->flags = 0;
	a->clock = CLOCK_MONOTONIC;
	a->id = JUNK64;			/* out: ignored on input */
}

static inline void add_done(struct ictx *x, void *arg, size_t len,
				int ret)
{
	struct twheel_add *a = arg;
	struct twheel_status st;

	(void)len;
	CHECK_EQ(ret, 0);
	CHECK(a->id != 0 && a->id != JUNK64);
	CHECK_EQ(a->cookie, 9);
	CHECK_EQ(a->expires_ns, 3600 * TWT_S);
	CHECK_EQ(a->period_ns, 0);
	CHECK_EQ(a->flags, 0);
	CHECK_EQ(a->clock, CLOCK_MONOTONIC);
	CHECK_EQ(twt_timers(x->fd), 1);
	st = twt_query(x->fd, a->id);
	CHECK_EQ(st.cookie, 9);
	CHECK_EQ(st.clock, CLOCK_MONOTONIC);
	CHECK_EQ(st.state, TWHEEL_STATE_PENDING);
}

static inline void add_undone(struct ictx *x)
{
	CHECK_UNTOUCHED_NOW(x->fd, 0);
}

/* CANCEL, MODIFY, QUERY: one pending timer, cookie 1, an hour away. */
static inline void one_setup(struct ictx *x)
{
	x->id = twt_add_rel(x->fd, 1, 3600 * TWT_S);
}

/* The timer of one_setup() as it was. */
static inline void one_undone(struct ictx *x)
{
	struct twheel_status st = twt_query(x->fd, x->id);

	CHECK_EQ(st.cookie, 1);
	CHECK_EQ(st.state, TWHEEL_STATE_PENDING);
	CHECK_EQ(st.period_ns, 0);
	CHECK(st.remaining_ns > 0 &&
	      st.remaining_ns <= 3600 * TWT_S + TICK);
	CHECK_UNTOUCHED_NOW(x->fd, 1);
}

static inline void cancel_fill(struct ictx *x, void *arg, size_t len)
{
	struct twheel_cancel *c = arg;

	(void)len;
	c->id = x->id;
	c->flags = 0;
	c->result = JUNK32;
}

static inline void cancel_done(struct ictx *x, void *arg, size_t len,
				int ret)
{
	struct twheel_cancel *c = arg;

	(void)len;
	CHECK_EQ(ret, 0);
	CHECK_EQ(c->id, x->id);
	CHECK_EQ(c->flags, 0);
	CHECK_EQ(c->result, TWHEEL_STATE_PENDING);
	CHECK_ERR(twt_query_raw(x->fd, x->id, NULL), ENOENT);
	CHECK_UNTOUCHED_NOW(x->fd, 0);
}

static inline void modify_fill(struct ictx *x, void *arg, size_t len)
{
	struct twheel_modify *m = arg;

	(void)len;
	m->id = x->id;
	m->cookie = 77;
	m->expires_ns = 7200 * TWT_S;
	m->period_ns = 0;
	m->flags = TWHEEL_SET_COOKIE;
	m->result = JUNK32;
}

static inline void modify_done(struct ictx *x, void *arg, size_t len,
				int ret)
{
	struct twheel_modify *m = arg;
	struct twheel_status st;

	(void)len;
	CHECK_EQ(ret, 0);
	CHECK_EQ(m->id, x->id);
	CHECK_EQ(m->cookie, 77);
	CHECK_EQ(m->expires_ns, 7200 * TWT_S);
	CHECK_EQ(m->flags, TWHEEL_SET_COOKIE);
	CHECK_EQ(m->result, TWHEEL_STATE_PENDING);
	st = twt_query(x->fd, x->id);
	CHECK_EQ(st.cookie, 77);
	CHECK(st.remaining_ns > 3601 * TWT_S);
	CHECK_UNTOUCHED_NOW(x->fd, 1);
}

static inline void query_fill(struct ictx *x, void *arg, size_t len)
{
	struct twheel_query *q = arg;

	(void)len;
	q->id = x->id;
	memset(&q->status, 0xAA, sizeof(q->status));	/* out */
}

static inline void query_done(struct ictx *x, void *arg, size_t len,
				int ret)
{
	struct twheel_query *q = arg;
	int64_t now = twt_mono();

	(void)len;
	CHECK_EQ(ret, 0);
	CHECK_EQ(q->id, x->id);
	CHECK_EQ(q->flags, 0);
	CHECK_EQ(q->__reserved, 0);
	CHECK_EQ(q->status.id, x->id);
	CHECK_EQ(q->status.cookie, 1);
	CHECK_EQ(q->status.period_ns, 0);
	CHECK_EQ(q->status.count, 0);
	CHECK_EQ(q->status.clock, CLOCK_MONOTONIC);
	CHECK_EQ(q->status.state, TWHEEL_STATE_PENDING);
	CHECK(q->status.remaining_ns > 0 &&
	      q->status.remaining_ns <= 3600 * TWT_S + TICK);
	CHECK(q->status.deadline_ns > now &&
	      q->status.deadline_ns <= now + 3601 * TWT_S);
}

/* LIST: two pending timers. */
static inline void two_setup(struct ictx *x)
{
	x->id = twt_add_rel(x->fd, 1, 3600 * TWT_S);
	x->id2 = twt_add(x->fd, 2, 7200 * TWT_S, 0, CLOCK_BOOTTIME);
}

static inline void list_fill(struct ictx *x, void *arg, size_t len)
{
	struct twheel_list *l = arg;

	(void)len;
	memset(x->st, 0xAA, 4 * sizeof(*x->st));
	l->statuses = (uint64_t)(uintptr_t)x->st;
	l->capacity = 4;
	l->count = JUNK32;
	l->cursor = 0;
	l->status_size = sizeof(struct twheel_status);
	l->flags = 0;
}

static inline void list_done(struct ictx *x, void *arg, size_t len,
				int ret)
{
	struct twheel_list *l = arg, more;
	int seen1 = 0, seen2 = 0, calls = 0;
	uint32_t k;

	(void)len;
	CHECK_EQ(ret, 0);
	CHECK_EQ(l->statuses, (uint64_t)(uintptr_t)x->st);
	CHECK_EQ(l->capacity, 4);
	CHECK_EQ(l->status_size, sizeof(struct twheel_status));
	CHECK_EQ(l->flags, 0);
	more = *l;
	for (;;) {
		CHECK(more.count <= 4);
		for (k = 0; k < more.count; k++) {
			if (x->st[k].id == x->id) {
				CHECK_EQ(x->st[k].cookie, 1);
				seen1++;
			} else {
				CHECK_EQ(x->st[k].id, x->id2);
				CHECK_EQ(x->st[k].cookie, 2);
				CHECK_EQ(x->st[k].clock, CLOCK_BOOTTIME);
				seen2++;
			}
		}
		/* An entry past count is not written. */
		if (more.count < 4)
			CHECK(x->st[more.count].id == JUNK64);
		if (!more.cursor)
			break;
		CHECK(++calls < 100);
		memset(x->st, 0xAA, 4 * sizeof(*x->st));
		CHECK_EQ(ioctl(x->fd, TWHEEL_IOC_LIST, &more), 0);
	}
	CHECK_EQ(seen1, 1);
	CHECK_EQ(seen2, 1);
}

static inline void two_undone(struct ictx *x)
{
	CHECK_EQ(twt_query(x->fd, x->id).cookie, 1);
	CHECK_EQ(twt_query(x->fd, x->id2).cookie, 2);
	CHECK_UNTOUCHED_NOW(x->fd, 2);
}

/* SUBMIT: one ADD operation. */
static inline void submit_fill(struct ictx *x, void *arg, size_t len)
{
	struct twheel_submit *s = arg;

	(void)len;
	memset(x->ops, 0, 2 * sizeof(*x->ops));
	x->ops[0].op = TWHEEL_OP_ADD;
	x->ops[0].cookie = 5;
	x->ops[0].expires_ns = 3600 * TWT_S;
	x->ops[0].clock = CLOCK_MONOTONIC;
	x->ops[0].id = JUNK64;		/* out for ADD */
	x->ops[0].error = OP_JUNK;	/* out */
	x->ops[1] = x->ops[0];
	x->ops[1].cookie = 6;		/* beyond nr: never done */
	s->ops = (uint64_t)(uintptr_t)x->ops;
	s->nr = 1;
	s->op_size = sizeof(struct twheel_op);
	s->flags = 0;
	s->__reserved = 0;
}

static inline void submit_done(struct ictx *x, void *arg, size_t len,
				int ret)
{
	struct twheel_submit *s = arg;

	(void)len;
	CHECK_EQ(ret, 1);
	CHECK_EQ(s->nr, 1);
	CHECK_EQ(x->ops[0].error, 0);
	CHECK_EQ(x->ops[0].op, TWHEEL_OP_ADD);
	CHECK_EQ(x->ops[0].cookie, 5);
	CHECK(x->ops[0].id != 0 && x->ops[0].id != JUNK64);
	CHECK_EQ(x->ops[1].error, OP_JUNK);
	CHECK_EQ(twt_query(x->fd, x->ops[0].id).cookie, 5);
	CHECK_UNTOUCHED_NOW(x->fd, 1);
}

static inline void submit_undone(struct ictx *x)
{
	CHECK_EQ(x->ops[0].error, OP_JUNK);	/* not done, not written */
	CHECK_EQ(x->ops[0].id, JUNK64);
	CHECK_UNTOUCHED_NOW(x->fd, 0);
}

/* CONFIG: a new tick. */
static inline void config_fill(struct ictx *x, void *arg, size_t len)
{
	struct twheel_config *c = arg;

	(void)x;
	(void)len;
	c->tick_ns = 250000;
	c->flags = 0;
	c->__reserved = 0;
}

static inline void config_done(struct ictx *x, void *arg, size_t len,
				int ret)
{
	struct twheel_info i = twt_info(x->fd);

	(void)arg;
	(void)len;
	CHECK_EQ(ret, 0);
	CHECK_EQ(i.tick_ns, 250000);
	CHECK_EQ(i.config_flags, 0);
}

static inline void config_undone(struct ictx *x)
{
	struct twheel_info i = twt_info(x->fd);

	CHECK_EQ(i.tick_ns, TWHEEL_DEFAULT_TICK_NS);
	CHECK_EQ(i.config_flags, 0);
	CHECK_UNTOUCHED_NOW(x->fd, 0);
}

/* ADVANCE: a manual fd with a timer due at 1 s. */
static inline void advance_setup(struct ictx *x)
{
	twt_config(x->fd, TWHEEL_DEFAULT_TICK_NS, TWHEEL_CONFIG_MANUAL);
	x->id = twt_add_rel(x->fd, 3, TWT_S);
}

static inline void advance_fill(struct ictx *x, void *arg, size_t len)
{
	struct twheel_advance *a = arg;

	(void)x;
	(void)len;
	a->delta_ns = 5 * TWT_S;
	a->flags = 0;
	a->__reserved = 0;
	a->now_ns = (int64_t)JUNK64;	/* out */
}

static inline void advance_done(struct ictx *x, void *arg, size_t len,
				int ret)
{
	struct twheel_advance *a = arg;

	(void)len;
	CHECK_EQ(ret, 0);
	CHECK_EQ(a->delta_ns, 5 * TWT_S);
	CHECK_EQ(a->now_ns, 5 * TWT_S);
	CHECK_EQ(twt_advance(x->fd, 0), 5 * TWT_S);
	CHECK_EQ(twt_queued(x->fd), 1);
}

static inline void advance_undone(struct ictx *x)
{
	CHECK_EQ(twt_advance(x->fd, 0), 0);
	CHECK_EQ(twt_query(x->fd, x->id).state, TWHEEL_STATE_PENDING);
	CHECK_UNTOUCHED_NOW(x->fd, 1);
}

#define OFF(t, f)	offsetof(struct t, f)

static const struct idesc descs[] = {
	{ "INFO", TWHEEL_IOC_INFO, INFO_V1_SIZE, 1, NONE, 0, NONE,
	  info_setup, info_fill, info_done, info_undone },
	/*
	 * TWHEEL_CANCEL_ON_SET is taken, but not on add_fill()'s relative
	 * CLOCK_MONOTONIC timer: EINVAL there all the same (add_cancel_on_set
	 * has its rules), so bad_flags tests it as a bad flag, not skipped.
	 */
	{ "ADD", TWHEEL_IOC_ADD, sizeof(struct twheel_add), 1,
	  OFF(twheel_add, flags), TWHEEL_ABSTIME, NONE,
	  NULL, add_fill, add_done, add_undone },
	{ "CANCEL", TWHEEL_IOC_CANCEL, sizeof(struct twheel_cancel), 1,
	  OFF(twheel_cancel, flags), 0, NONE,
	  one_setup, cancel_fill, cancel_done, one_undone },
	{ "MODIFY", TWHEEL_IOC_MODIFY, sizeof(struct twheel_modify), 1,
	  OFF(twheel_modify, flags), TWHEEL_ABSTIME | TWHEEL_SET_COOKIE, NONE,
	  one_setup, modify_fill, modify_done, one_undone },
	{ "QUERY", TWHEEL_IOC_QUERY, sizeof(struct twheel_query), 1,
	  OFF(twheel_query, flags), 0, OFF(twheel_query, __reserved),
	  one_setup, query_fill, query_done, one_undone },
	{ "LIST", TWHEEL_IOC_LIST, sizeof(struct twheel_list), 1,
	  OFF(twheel_list, flags), 0, NONE,
	  two_setup, list_fill, list_done, two_undone },
	{ "SUBMIT", TWHEEL_IOC_SUBMIT, sizeof(struct twheel_submit), 0,
	  OFF(twheel_submit, flags), 0, OFF(twheel_submit, __reserved),
	  NULL, submit_fill, submit_done, submit_undone },
	{ "CONFIG", TWHEEL_IOC_CONFIG, CONFIG_V2_SIZE, 0,
	  OFF(twheel_config, flags),
	  TWHEEL_CONFIG_MANUAL | TWHEEL_CONFIG_MAX_TIMERS | TWHEEL_CONFIG_TABLE |
	  TWHEEL_CONFIG_CLOCK_SET | TWHEEL_CONFIG_RING,
	  OFF(twheel_config, __reserved),
	  NULL, config_fill, config_done, config_undone },
	{ "ADVANCE", TWHEEL_IOC_ADVANCE, sizeof(struct twheel_advance), 1,
	  OFF(twheel_advance, flags), 0, OFF(twheel_advance, __reserved),
	  advance_setup, advance_fill, advance_done, advance_undone },
};
#define NDESCS	(sizeof(descs) / sizeof(descs[0]))

/* The largest argument the table's cases pass. */
#define ARG_MAX	4096

static char *arg_guard;		/* a guard page, ARG_MAX bytes before it */
static unsigned char *valid;	/* a valid argument, zero after it */
static struct twheel_op *ops_page;
static struct twheel_status *st_page;

/* A fresh fd, set up for d, and a valid argument for it in valid[]. */
static inline void begin(const struct idesc *d, struct ictx *x)
{
	size_t pg = (size_t)sysconf(_SC_PAGESIZE);

	if (!arg_guard) {
		arg_guard = twt_guard_map(ARG_MAX);
		valid = malloc(ARG_MAX);
		CHECK(valid);
		ops_page = mmap(NULL, pg, PROT_READ | PROT_WRITE,
				MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		st_page = mmap(NULL, pg, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		CHECK(ops_page != MAP_FAILED && st_page != MAP_FAILED);
	}
	x->ops = ops_page;
	x->st = st_page;
	x->fd = twt_open(O_NONBLOCK);
	x->id = x->id2 = 0;
	if (d->setup)
		d->setup(x);
	memset(valid, 0, ARG_MAX);
	d->fill(x, valid, ARG_MAX);
	if (_IOC_DIR(d->cmd) == _IOC_READ)	/* output only: junk after */
		memset(valid + _IOC_SIZE(d->cmd), 0xAA,
		       ARG_MAX - _IOC_SIZE(d->cmd));
}

/* The first len bytes of valid[], ending at the guard page. */
static inline void *place(size_t len)
{
	void *p = arg_guard - len;

	memcpy(p, valid, len);
	return p;
}

/*
 * call(): the ioctl; on failure it must be -1 with errno want (0: must
 * succeed), and then nothing changed; on success done() checks it.
 */
static inline void call(const struct idesc *d, struct ictx *x,
			unsigned long cmd, void *arg, size_t len, int want,
			const char *what)
{
	int r, e;

	errno = 0;
	r = ioctl(x->fd, cmd, arg);
	e = errno;
	if (want ? (r != -1 || e != want) : r < 0)
		twt_fail(__FILE__, __LINE__,
			 "%s %s (cmd %#lx, size %zu): want %s, got %d/%s",
			 d->name, what, cmd, len,
			 want ? strerror(want) : "success",
			 r, r < 0 ? strerror(e) : "-");
	if (r < 0)
		d->undone(x);
	else
		d->done(x, arg, len, r);
}

static inline void end(struct ictx *x)
{
	close(x->fd);
}

#endif /* ABI_TABLE_H */
