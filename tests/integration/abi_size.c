// SPDX-License-Identifier: GPL-2.0
/*
 * abi_size: how much of an ioctl's argument is read and written. ADD and
 * CANCEL write their out fields, keep their in fields and touch nothing
 * after the struct. For each of the nine ioctls (abi_table.h), the
 * argument ending at a guard page: a size smaller than the first
 * published one (EINVAL; INFO takes any size from version 1's on), a
 * larger one with a non-zero tail (E2BIG) or a zero tail (accepted, tail
 * zero). ADD's struct of version 1 (no period_ns): EINVAL.
 */
#include "abi_table.h"

/* The version 1 size of struct twheel_add. */
#define ADD_V1_SIZE	32

/*
 * Smaller than the first published size (version 1's 40 bytes for
 * INFO, version 2's for the others): EINVAL, nothing changed. Between
 * it and the present size (INFO only): accepted, exactly that many bytes
 * written.
 */
static void sizes_smaller(void)
{
	struct ictx x = { 0 };
	unsigned int k;
	size_t s;

	for (k = 0; k < NDESCS; k++) {
		const struct idesc *d = &descs[k];
		size_t size = _IOC_SIZE(d->cmd);

		for (s = 0; s < size; s++) {
			if (s % 4 && s != 1 && s != d->min_size - 1 &&
			    s != size - 1)
				continue;
			begin(d, &x);
			call(d, &x, CMD_SIZE(d->cmd, s), place(s), s,
			     s < d->min_size ? EINVAL : 0, "smaller");
			end(&x);
		}
	}
}

/* ADD's 32-byte struct of version 1 (no period_ns) is EINVAL. */
static void add_v1_struct(void)
{
	int fd = twt_open(O_NONBLOCK);
	unsigned long cmd = _IOWR(TWHEEL_IOC_TYPE, 0x01, char[ADD_V1_SIZE]);
	/* Version 1's layout: cookie, expires_ns, flags, clock, id. */
	struct {
		uint64_t cookie;
		int64_t expires_ns;
		uint32_t flags, clock;
		uint64_t id;
	} *v1 = (void *)(twt_guard_map(4096) - ADD_V1_SIZE);
	int64_t rel[] = { 0, 3600 * TWT_S };
	unsigned int k, c;

	_Static_assert(sizeof(*v1) == ADD_V1_SIZE, "v1 add");
	CHECK_EQ(cmd, 0xC020BA01U);	/* version 1's TWHEEL_IOC_ADD */
	for (k = 0; k < 2; k++)
		for (c = 0; c < 3; c++) {
			memset(v1, 0, sizeof(*v1));
			v1->cookie = k;
			v1->expires_ns = rel[k];
			v1->clock = c;	/* version 1's clock numbers */
			CHECK_ERR(ioctl(fd, cmd, v1), EINVAL);
			CHECK_EQ(v1->id, 0);
			v1->flags = TWHEEL_ABSTIME;
			CHECK_ERR(ioctl(fd, cmd, v1), EINVAL);
			CHECK_EQ(v1->id, 0);
		}
	CHECK_UNTOUCHED(fd, 0);
	close(fd);
}

/*
 * Larger than the present size: with any non-zero byte in the tail,
 * E2BIG and nothing changed; with a zero tail, an ordinary call whose
 * tail is zero afterwards. INFO's input is never read: a tail of junk is
 * accepted and zeroed.
 */
static void sizes_larger(void)
{
	size_t extra[] = { 1, 4, 8, 24, 64 };
	struct ictx x = { 0 };
	unsigned int k, e;
	size_t j;

	for (k = 0; k < NDESCS; k++) {
		const struct idesc *d = &descs[k];
		size_t size = _IOC_SIZE(d->cmd);

		for (e = 0; e <= sizeof(extra) / sizeof(extra[0]); e++) {
			size_t s = e < sizeof(extra) / sizeof(extra[0]) ?
				   size + extra[e] : ARG_MAX;
			unsigned long cmd = CMD_SIZE(d->cmd, s);
			unsigned char *p;

			/* Non-zero tail: its first, a middle, its last byte. */
			for (j = size; _IOC_DIR(d->cmd) != _IOC_READ && j < s;
			     j += (s - size + 1) / 2) {
				begin(d, &x);
				p = place(s);
				p[j] = 1;
				call(d, &x, cmd, p, s, E2BIG, "non-zero tail");
				p = place(s);
				p[s - 1] = 0x80;
				call(d, &x, cmd, p, s, E2BIG, "non-zero tail");
				end(&x);
			}
			/* Zero tail (junk for INFO): done, tail zero. */
			begin(d, &x);
			p = place(s);
			call(d, &x, cmd, p, s, 0, "zero tail");
			for (j = size; j < s; j++)
				if (p[j])
					twt_fail(__FILE__, __LINE__,
						 "%s size %zu: tail byte %zu: %#x",
						 d->name, s, j, p[j]);
			end(&x);
		}
	}
}

/* ADD writes id, keeps the in fields and touches nothing after the struct. */
static void add_writeback(void)
{
	int fd = twt_open(0);
	unsigned char buf[sizeof(struct twheel_add) + 16];
	struct twheel_add *a = (struct twheel_add *)buf, *g;
	uint64_t id1;
	int k;

	memset(buf, 0xAA, sizeof(buf));
	a->cookie = 0x1122334455667788ULL;
	a->expires_ns = 3600 * TWT_S;
	a->period_ns = 0;
	a->flags = 0;
	a->clock = CLOCK_MONOTONIC;
	/* a->id stays 0xAA..: an out field, ignored on input. */
	CHECK_EQ(ioctl(fd, TWHEEL_IOC_ADD, a), 0);
	CHECK(a->id != 0);
	CHECK(a->id != JUNK64);
	CHECK_EQ(a->cookie, 0x1122334455667788ULL);
	CHECK_EQ(a->expires_ns, 3600 * TWT_S);
	CHECK_EQ(a->period_ns, 0);
	CHECK_EQ(a->flags, 0);
	CHECK_EQ(a->clock, CLOCK_MONOTONIC);
	for (k = sizeof(*a); k < (int)sizeof(buf); k++)
		CHECK_EQ(buf[k], 0xAA);
	id1 = a->id;

	/* Same input again (id now holds id1): a new, different id. */
	CHECK_EQ(ioctl(fd, TWHEEL_IOC_ADD, a), 0);
	CHECK(a->id != 0 && a->id != id1);
	CHECK_EQ(twt_timers(fd), 2);

	/* Exactly at the end of a mapping, periodic, on CLOCK_TAI. */
	g = (struct twheel_add *)(twt_guard_map(4096) - sizeof(*g));
	memset(g, 0, sizeof(*g));
	g->expires_ns = 3600 * TWT_S;
	g->period_ns = 60 * TWT_S;
	g->clock = CLOCK_TAI;
	CHECK_EQ(ioctl(fd, TWHEEL_IOC_ADD, g), 0);
	CHECK(g->id != 0 && g->id != id1);
	CHECK_EQ(g->period_ns, 60 * TWT_S);
	CHECK_EQ(g->clock, CLOCK_TAI);
	CHECK_EQ(twt_timers(fd), 3);
	CHECK_EQ(twt_query(fd, g->id).period_ns, 60 * TWT_S);
	close(fd);
}

/* CANCEL writes result, keeps id and flags, touches nothing after it. */
static void cancel_writeback(void)
{
	int fd = twt_open(O_NONBLOCK);
	unsigned char buf[sizeof(struct twheel_cancel) + 16];
	struct twheel_cancel *c = (struct twheel_cancel *)buf, *g;
	uint64_t id = twt_add_rel(fd, 1, 3600 * TWT_S);
	uint64_t qid = twt_add_abs(fd, 2, 0, CLOCK_MONOTONIC);
	int k;

	memset(buf, 0xAA, sizeof(buf));
	c->id = id;
	c->flags = 0;
	CHECK_EQ(ioctl(fd, TWHEEL_IOC_CANCEL, c), 0);
	CHECK_EQ(c->result, TWHEEL_STATE_PENDING);
	CHECK_EQ(c->id, id);
	CHECK_EQ(c->flags, 0);
	for (k = sizeof(*c); k < (int)sizeof(buf); k++)
		CHECK_EQ(buf[k], 0xAA);

	g = (struct twheel_cancel *)(twt_guard_map(4096) - sizeof(*g));
	g->id = qid;
	g->flags = 0;
	g->result = JUNK32;
	CHECK_EQ(ioctl(fd, TWHEEL_IOC_CANCEL, g), 0);
	CHECK_EQ(g->result, TWHEEL_STATE_QUEUED);
	CHECK_UNTOUCHED(fd, 0);
	close(fd);
}

TWT_MAIN("abi_size",
	 TWT_CASE(add_writeback),
	 TWT_CASE(cancel_writeback),
	 TWT_CASE(sizes_smaller),
	 TWT_CASE(add_v1_struct),
	 TWT_CASE_T(sizes_larger, 120))
