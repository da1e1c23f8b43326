/* SPDX-License-Identifier: GPL-2.0 */
/*
 * batch.h - for the integration tests of TWHEEL_IOC_SUBMIT (batch.c,
 * batch_outputs.c): struct twheel_op built for each operation, the checks
 * of what an ADD writes back, and batch_open(), an fd on the manual clock.
 * Exact results on the manual clock.
 */
#ifndef BATCH_H
#define BATCH_H

#include "twtest.h"

_Static_assert(sizeof(struct twheel_op) == 72, "twheel_op is 72 bytes");

static inline struct twheel_op batch_add_op(uint64_t cookie, int64_t expires,
					    uint64_t period, uint32_t flags,
					    uint32_t clock)
{
	struct twheel_op o;

	memset(&o, 0, sizeof(o));
	o.op = TWHEEL_OP_ADD;
	o.cookie = cookie;
	o.expires_ns = expires;
	o.period_ns = period;
	o.flags = flags;
	o.clock = clock;
	return o;
}

static inline struct twheel_op batch_modify_op(uint64_t id, uint64_t cookie,
					       int64_t expires, uint64_t period,
					       uint32_t flags)
{
	struct twheel_op o;

	memset(&o, 0, sizeof(o));
	o.op = TWHEEL_OP_MODIFY;
	o.id = id;
	o.cookie = cookie;
	o.expires_ns = expires;
	o.period_ns = period;
	o.flags = flags;
	return o;
}

/* CANCEL or QUERY of id. */
static inline struct twheel_op batch_id_op(uint32_t op, uint64_t id)
{
	struct twheel_op o;

	memset(&o, 0, sizeof(o));
	o.op = op;
	o.id = id;
	return o;
}

/* The fields every operation writes back as given. */
#define CHECK_INPUTS_KEPT(o, in) do {					\
	CHECK_EQ((o).op, (in).op);					\
	CHECK_EQ((o).flags, (in).flags);				\
	CHECK_EQ((o).__reserved, 0);					\
} while (0)

/* An ADD done: inputs as given, its id, no other output. */
#define CHECK_ADD_DONE(o, in) do {					\
	CHECK_INPUTS_KEPT(o, in);					\
	CHECK_EQ((o).error, 0);						\
	CHECK((o).id != 0);						\
	CHECK_EQ((o).cookie, (in).cookie);				\
	CHECK_EQ((o).expires_ns, (in).expires_ns);			\
	CHECK_EQ((o).period_ns, (in).period_ns);			\
	CHECK_EQ((o).clock, (in).clock);				\
	CHECK_EQ((o).result, 0);					\
	CHECK_EQ((o).count, 0);						\
	CHECK_EQ((o).remaining_ns, 0);					\
} while (0)

static inline int batch_open(void)
{
	return twt_open_manual(O_NONBLOCK, TWHEEL_DEFAULT_TICK_NS);
}

#endif /* BATCH_H */
