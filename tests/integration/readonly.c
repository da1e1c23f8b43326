// SPDX-License-Identifier: GPL-2.0
/*
 * readonly: behaviour a user relies on after the review of the module
 * (the rest is in review.c): write-only commands (CONFIG, SUBMIT) write
 * nothing, so a larger struct with a zero tail in read-only memory is
 * accepted; the commands that write results still fail with EFAULT
 * there. Each case says what the code before that change did instead.
 */
#include <sys/mman.h>

#include "twtest.h"

#define TICK		((int64_t)TWHEEL_DEFAULT_TICK_NS)
#define STSZ		((uint32_t)sizeof(struct twheel_status))

/* A command number with another size: same direction, type, number. */
#define CMD_SIZE(cmd, size)						\
	_IOC(_IOC_DIR(cmd), _IOC_TYPE(cmd), _IOC_NR(cmd), (size))

/*
 * len bytes of src at the end of a fresh page, which is then made
 * read-only (a read-only struct that ends at a page's end).
 */
static void *review_ro(const void *src, size_t len)
{
	size_t pg = (size_t)sysconf(_SC_PAGESIZE);
	char *p = mmap(NULL, pg, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	CHECK(p != MAP_FAILED);
	memcpy(p + pg - len, src, len);
	CHECK_OK(mprotect(p, pg, PROT_READ));
	return p + pg - len;
}

/*
 * CONFIG and SUBMIT only read their struct: a larger one (24 bytes for
 * CONFIG, 32 for SUBMIT, and more) whose extra bytes are zero is taken
 * from read-only memory and does its work. An all-zero read-only page is
 * read and refused for what it says (EINVAL: tick 0; op_size 0), not
 * EFAULT. The old code wrote zeroes over the tail of every larger struct
 * (also of these), which faulted: EFAULT, nothing done.
 */
static void readonly_write_only(void)
{
	static const size_t sizes[] = { 16, 24, 32, 64, 4096 };
	size_t pg = (size_t)sysconf(_SC_PAGESIZE);
	unsigned char buf[4096];
	struct twheel_config *c = (void *)buf;
	struct twheel_submit *s = (void *)buf;
	struct twheel_op *ops;
	struct twheel_info info;
	unsigned int k;
	int fd, ret;
	void *zero;

	zero = mmap(NULL, pg, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK(zero != MAP_FAILED);
	ops = mmap(NULL, pg, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK(ops != MAP_FAILED);

	/* CONFIG: each size, a new tick each time (the last one counts). */
	fd = twt_open(O_NONBLOCK);
	for (k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
		unsigned long cmd = _IOC(_IOC_WRITE, TWHEEL_IOC_TYPE,
					 _IOC_NR(TWHEEL_IOC_CONFIG), sizes[k]);

		memset(buf, 0, sizeof(buf));
		c->tick_ns = 2000 + k * 1000;
		c->flags = k % 2 ? TWHEEL_CONFIG_MANUAL : 0;
		errno = 0;
		ret = ioctl(fd, cmd, review_ro(buf, sizes[k]));
		if (ret != 0)
			twt_fail(__FILE__, __LINE__,
				 "CONFIG of %zu bytes, read-only: %d (%s)",
				 sizes[k], ret, strerror(errno));
		info = twt_info(fd);
		CHECK_EQ(info.tick_ns, 2000 + k * 1000);
		CHECK_EQ(info.config_flags, k % 2 ? TWHEEL_CONFIG_MANUAL : 0);
		/* All zero, read-only: read, and tick 0 is EINVAL. */
		CHECK_ERR(ioctl(fd, cmd, (char *)zero + pg - sizes[k]), EINVAL);
		CHECK_EQ(twt_info(fd).tick_ns, 2000 + k * 1000);
	}
	close(fd);

	/* SUBMIT: the struct read-only, the operations writable. */
	for (k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
		unsigned long cmd = _IOC(_IOC_WRITE, TWHEEL_IOC_TYPE,
					 _IOC_NR(TWHEEL_IOC_SUBMIT), sizes[k]);

		if (sizes[k] < sizeof(*s))
			continue;
		fd = twt_open(O_NONBLOCK);
		memset(ops, 0, 3 * sizeof(*ops));
		ops[0].op = TWHEEL_OP_ADD;
		ops[0].cookie = 1;
		ops[0].expires_ns = 3600 * TWT_S;
		ops[0].clock = CLOCK_MONOTONIC;
		ops[1] = ops[0];
		ops[1].cookie = 2;
		ops[1].expires_ns = 0;
		ops[1].flags = TWHEEL_ABSTIME;	/* due: queued at once */
		ops[2].op = TWHEEL_OP_CANCEL;
		ops[2].id = 12345;		/* no such timer */
		memset(buf, 0, sizeof(buf));
		s->ops = (uint64_t)(uintptr_t)ops;
		s->nr = 3;
		s->op_size = sizeof(*ops);
		errno = 0;
		ret = ioctl(fd, cmd, review_ro(buf, sizes[k]));
		if (ret != 3)
			twt_fail(__FILE__, __LINE__,
				 "SUBMIT of %zu bytes, read-only: %d (%s)",
				 sizes[k], ret, strerror(errno));
		CHECK_EQ(ops[0].error, 0);
		CHECK(ops[0].id != 0);
		CHECK_EQ(ops[1].error, 0);
		CHECK(ops[1].id != 0 && ops[1].id != ops[0].id);
		CHECK_EQ(ops[2].error, -ENOENT);
		info = twt_info(fd);
		CHECK_EQ(info.timers, 2);
		CHECK_EQ(info.queued, 1);
		CHECK_EQ(twt_query(fd, ops[0].id).cookie, 1);
		/* nr 0: nothing to do, 0 done. */
		s->nr = 0;
		CHECK_EQ(ioctl(fd, cmd, review_ro(buf, sizes[k])), 0);
		/* All zero, read-only: read, and op_size 0 is EINVAL. */
		CHECK_ERR(ioctl(fd, cmd, (char *)zero + pg - sizes[k]), EINVAL);
		CHECK_EQ(twt_info(fd).timers, 2);
		close(fd);
	}
	munmap(ops, pg);
	munmap(zero, pg);
}

/*
 * The commands that write results do write: read-only, at their own
 * size or larger with a zero tail, EFAULT, and nothing changed (ADD
 * writes the new id: no timer is made).
 */
static void readonly_writers_efault(void)
{
	static const size_t extra[] = { 0, 8, 64 };
	int fd = twt_open_manual(O_NONBLOCK, TICK);
	unsigned char buf[4096];
	struct twheel_add *a = (void *)buf;
	struct twheel_modify *m = (void *)buf;
	struct twheel_cancel *c = (void *)buf;
	struct twheel_query *q = (void *)buf;
	struct twheel_list *l = (void *)buf;
	struct twheel_advance *adv = (void *)buf;
	static struct twheel_status st[4];
	struct twheel_status s0;
	struct twheel_info info;
	uint64_t id;
	unsigned int e;

	id = twt_add_abs(fd, 1, 5 * TWT_MS, CLOCK_MONOTONIC);
	s0 = twt_query(fd, id);
	for (e = 0; e < sizeof(extra) / sizeof(extra[0]); e++) {
		size_t x = extra[e];

		memset(buf, 0, sizeof(buf));
		a->cookie = 2;
		a->expires_ns = TWT_MS;
		a->clock = CLOCK_MONOTONIC;
		CHECK_ERR(ioctl(fd, CMD_SIZE(TWHEEL_IOC_ADD, sizeof(*a) + x),
				review_ro(buf, sizeof(*a) + x)), EFAULT);

		memset(buf, 0, sizeof(buf));
		m->id = id;
		m->expires_ns = TWT_MS;
		CHECK_ERR(ioctl(fd, CMD_SIZE(TWHEEL_IOC_MODIFY, sizeof(*m) + x),
				review_ro(buf, sizeof(*m) + x)), EFAULT);

		memset(buf, 0, sizeof(buf));
		c->id = id;
		CHECK_ERR(ioctl(fd, CMD_SIZE(TWHEEL_IOC_CANCEL, sizeof(*c) + x),
				review_ro(buf, sizeof(*c) + x)), EFAULT);

		memset(buf, 0, sizeof(buf));
		q->id = id;
		CHECK_ERR(ioctl(fd, CMD_SIZE(TWHEEL_IOC_QUERY, sizeof(*q) + x),
				review_ro(buf, sizeof(*q) + x)), EFAULT);

		memset(buf, 0, sizeof(buf));
		l->statuses = (uint64_t)(uintptr_t)st;
		l->capacity = 4;
		l->status_size = STSZ;
		CHECK_ERR(ioctl(fd, CMD_SIZE(TWHEEL_IOC_LIST, sizeof(*l) + x),
				review_ro(buf, sizeof(*l) + x)), EFAULT);

		memset(buf, 0, sizeof(buf));
		adv->delta_ns = 10 * TWT_MS;
		CHECK_ERR(ioctl(fd, CMD_SIZE(TWHEEL_IOC_ADVANCE,
					     sizeof(*adv) + x),
				review_ro(buf, sizeof(*adv) + x)), EFAULT);

		memset(buf, 0, sizeof(buf));
		CHECK_ERR(ioctl(fd, CMD_SIZE(TWHEEL_IOC_INFO,
					     sizeof(struct twheel_info) + x),
				review_ro(buf, sizeof(struct twheel_info) + x)),
			  EFAULT);

		/* Nothing changed: one pending timer, the clock at 0. */
		info = twt_info(fd);
		CHECK_EQ(info.timers, 1);
		CHECK_EQ(info.queued, 0);
		CHECK_EQ(twt_advance(fd, 0), 0);
		{
			struct twheel_status now = twt_query(fd, id);

			CHECK_EQ(now.state, TWHEEL_STATE_PENDING);
			CHECK_EQ(now.cookie, 1);
			CHECK_EQ(now.deadline_ns, s0.deadline_ns);
		}
	}
	close(fd);
}

TWT_MAIN("readonly",
	 TWT_CASE(readonly_write_only),
	 TWT_CASE(readonly_writers_efault))
