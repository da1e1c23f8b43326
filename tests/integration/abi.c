// SPDX-License-Identifier: GPL-2.0
/*
 * abi: the uapi structs' layout (ABI version 2), the TWHEEL_IOC_INFO
 * handshake, fdinfo, and every way an ioctl's argument can be wrong, for
 * each of the nine ioctls: a size smaller than the first published one
 * (EINVAL), a larger one with a non-zero tail (E2BIG) or a zero tail
 * (accepted, tail zero; a write-only command, SUBMIT or CONFIG, takes it
 * from read-only memory), unknown flags and non-zero reserved fields
 * (EINVAL), the wrong direction bits or an unknown number (ENOTTY),
 * argument memory that cannot be read or written (EFAULT). Each bad call
 * gives its errno and changes nothing (checked with TWHEEL_IOC_INFO,
 * TWHEEL_IOC_QUERY, the manual clock, and by no record appearing).
 */
#include <stddef.h>
#include <termios.h>

#include "twtest.h"

#define FSZ(t, f)	sizeof(((t *)0)->f)

/* Field f of struct t is at offset off, naturally aligned. */
#define FIELD(t, f, off)						\
	_Static_assert(offsetof(struct t, f) == (off) &&		\
		       (off) % FSZ(struct t, f) == 0, #t "." #f)

/* struct t is sz bytes, 8-byte aligned, and its fields fill it (sum). */
#define NOPAD(t, sz, sum)						\
	_Static_assert(sizeof(struct t) == (sz) &&			\
		       _Alignof(struct t) == 8 && (sz) % 8 == 0 &&	\
		       (sum) == sizeof(struct t), #t " size or padding")

#define SIGNED(t, f)							\
	_Static_assert((__typeof__(((struct t *)0)->f))-1 < 0,		\
		       #t "." #f " signed")
#define UNSIGNED(t, f)							\
	_Static_assert((__typeof__(((struct t *)0)->f))-1 > 0,		\
		       #t "." #f " unsigned")

/* struct twheel_add: 40 bytes (version 1's 32 plus period_ns). */
FIELD(twheel_add, cookie, 0);
FIELD(twheel_add, expires_ns, 8);
FIELD(twheel_add, period_ns, 16);
FIELD(twheel_add, flags, 24);
FIELD(twheel_add, clock, 28);
FIELD(twheel_add, id, 32);
NOPAD(twheel_add, 40, 8 + 8 + 8 + 4 + 4 + 8);
SIGNED(twheel_add, expires_ns);
UNSIGNED(twheel_add, period_ns);
UNSIGNED(twheel_add, clock);

/* struct twheel_modify: 40 bytes. */
FIELD(twheel_modify, id, 0);
FIELD(twheel_modify, cookie, 8);
FIELD(twheel_modify, expires_ns, 16);
FIELD(twheel_modify, period_ns, 24);
FIELD(twheel_modify, flags, 32);
FIELD(twheel_modify, result, 36);
NOPAD(twheel_modify, 40, 8 + 8 + 8 + 8 + 4 + 4);
SIGNED(twheel_modify, expires_ns);
UNSIGNED(twheel_modify, period_ns);

/* struct twheel_cancel: 16 bytes, unchanged. */
FIELD(twheel_cancel, id, 0);
FIELD(twheel_cancel, flags, 8);
FIELD(twheel_cancel, result, 12);
NOPAD(twheel_cancel, 16, 8 + 4 + 4);

/* struct twheel_status: 56 bytes. */
FIELD(twheel_status, id, 0);
FIELD(twheel_status, cookie, 8);
FIELD(twheel_status, deadline_ns, 16);
FIELD(twheel_status, period_ns, 24);
FIELD(twheel_status, count, 32);
FIELD(twheel_status, remaining_ns, 40);
FIELD(twheel_status, clock, 48);
FIELD(twheel_status, state, 52);
NOPAD(twheel_status, 56, 8 * 6 + 4 + 4);
SIGNED(twheel_status, deadline_ns);
SIGNED(twheel_status, remaining_ns);
UNSIGNED(twheel_status, count);

/* struct twheel_query: 72 bytes, the status at 16. */
FIELD(twheel_query, id, 0);
FIELD(twheel_query, flags, 8);
FIELD(twheel_query, __reserved, 12);
_Static_assert(offsetof(struct twheel_query, status) == 16, "query.status");
NOPAD(twheel_query, 72, 8 + 4 + 4 + sizeof(struct twheel_status));

/* struct twheel_list: 32 bytes. */
FIELD(twheel_list, statuses, 0);
FIELD(twheel_list, capacity, 8);
FIELD(twheel_list, count, 12);
FIELD(twheel_list, cursor, 16);
FIELD(twheel_list, status_size, 24);
FIELD(twheel_list, flags, 28);
NOPAD(twheel_list, 32, 8 + 4 + 4 + 8 + 4 + 4);
UNSIGNED(twheel_list, statuses);	/* a pointer in a __u64 */

/* struct twheel_op: 72 bytes. */
FIELD(twheel_op, op, 0);
FIELD(twheel_op, flags, 4);
FIELD(twheel_op, id, 8);
FIELD(twheel_op, cookie, 16);
FIELD(twheel_op, expires_ns, 24);
FIELD(twheel_op, period_ns, 32);
FIELD(twheel_op, clock, 40);
FIELD(twheel_op, error, 44);
FIELD(twheel_op, result, 48);
FIELD(twheel_op, __reserved, 52);
FIELD(twheel_op, count, 56);
FIELD(twheel_op, remaining_ns, 64);
NOPAD(twheel_op, 72, 4 + 4 + 8 + 8 + 8 + 8 + 4 + 4 + 4 + 4 + 8 + 8);
SIGNED(twheel_op, expires_ns);
SIGNED(twheel_op, error);
SIGNED(twheel_op, remaining_ns);

/* struct twheel_submit: 24 bytes. */
FIELD(twheel_submit, ops, 0);
FIELD(twheel_submit, nr, 8);
FIELD(twheel_submit, op_size, 12);
FIELD(twheel_submit, flags, 16);
FIELD(twheel_submit, __reserved, 20);
NOPAD(twheel_submit, 24, 8 + 4 + 4 + 4 + 4);

/* struct twheel_config: 24 bytes (16 in version 2). */
FIELD(twheel_config, tick_ns, 0);
FIELD(twheel_config, flags, 8);
FIELD(twheel_config, __reserved, 12);
FIELD(twheel_config, max_timers, 16);
NOPAD(twheel_config, 24, 8 + 4 + 4 + 8);

/* struct twheel_advance: 24 bytes. */
FIELD(twheel_advance, delta_ns, 0);
FIELD(twheel_advance, flags, 8);
FIELD(twheel_advance, __reserved, 12);
FIELD(twheel_advance, now_ns, 16);
NOPAD(twheel_advance, 24, 8 + 4 + 4 + 8);
UNSIGNED(twheel_advance, delta_ns);
SIGNED(twheel_advance, now_ns);

/* struct twheel_event: 40 bytes, unchanged since version 1. */
FIELD(twheel_event, id, 0);
FIELD(twheel_event, cookie, 8);
FIELD(twheel_event, time_ns, 16);
FIELD(twheel_event, count, 24);
FIELD(twheel_event, clock, 32);
FIELD(twheel_event, flags, 36);
NOPAD(twheel_event, 40, 8 + 8 + 8 + 8 + 4 + 4);
SIGNED(twheel_event, time_ns);

/*
 * struct twheel_info: 112 bytes; the first 40 are version 1's, the first
 * 96 those of the module before the shared timer table.
 */
FIELD(twheel_info, version, 0);
FIELD(twheel_info, event_size, 4);
FIELD(twheel_info, tick_ns, 8);
FIELD(twheel_info, max_timers, 16);
FIELD(twheel_info, timers, 24);
FIELD(twheel_info, queued, 32);
FIELD(twheel_info, features, 40);
FIELD(twheel_info, ioctls, 48);
FIELD(twheel_info, clocks, 56);
FIELD(twheel_info, min_tick_ns, 64);
FIELD(twheel_info, max_tick_ns, 72);
FIELD(twheel_info, config_flags, 80);
FIELD(twheel_info, op_size, 84);
FIELD(twheel_info, status_size, 88);
FIELD(twheel_info, max_batch, 92);
FIELD(twheel_info, table_size, 96);
FIELD(twheel_info, cancelled, 104);
NOPAD(twheel_info, 112, 4 + 4 + 8 * 9 + 4 * 4 + 8 * 2);

/* The command numbers are ABI too. */
_Static_assert(TWHEEL_IOC_TYPE == 0xBA, "ioctl type");
_Static_assert(TWHEEL_IOC_INFO == 0x8070BA00U, "TWHEEL_IOC_INFO");
_Static_assert(TWHEEL_IOC_ADD == 0xC028BA01U, "TWHEEL_IOC_ADD");
_Static_assert(TWHEEL_IOC_CANCEL == 0xC010BA02U, "TWHEEL_IOC_CANCEL");
_Static_assert(TWHEEL_IOC_MODIFY == 0xC028BA03U, "TWHEEL_IOC_MODIFY");
_Static_assert(TWHEEL_IOC_QUERY == 0xC048BA04U, "TWHEEL_IOC_QUERY");
_Static_assert(TWHEEL_IOC_LIST == 0xC020BA05U, "TWHEEL_IOC_LIST");
_Static_assert(TWHEEL_IOC_SUBMIT == 0x4018BA06U, "TWHEEL_IOC_SUBMIT");
_Static_assert(TWHEEL_IOC_CONFIG == 0x4018BA07U, "TWHEEL_IOC_CONFIG");
_Static_assert(TWHEEL_IOC_ADVANCE == 0xC018BA08U, "TWHEEL_IOC_ADVANCE");

/* And the constants. */
_Static_assert(TWHEEL_ABI_VERSION == 2, "ABI version");
_Static_assert(TWHEEL_DEFAULT_TICK_NS == 1000000 &&
	       TWHEEL_MIN_TICK_NS == 1000 &&
	       TWHEEL_MAX_TICK_NS == 1000000000, "ticks");
_Static_assert(TWHEEL_MAX_BATCH == 1024, "max batch");
_Static_assert(TWHEEL_ABSTIME == 1 && TWHEEL_SET_COOKIE == 2 &&
	       TWHEEL_CANCEL_ON_SET == 0x10, "flags");
_Static_assert(TWHEEL_EVENT_CLOCK_SET == 1, "record flags");
_Static_assert(TWHEEL_STATE_PENDING == 1 && TWHEEL_STATE_QUEUED == 2,
	       "states");
_Static_assert(TWHEEL_OP_ADD == 1 && TWHEEL_OP_MODIFY == 2 &&
	       TWHEEL_OP_CANCEL == 3 && TWHEEL_OP_QUERY == 4, "ops");
_Static_assert(TWHEEL_CONFIG_MANUAL == 1 && TWHEEL_CONFIG_MAX_TIMERS == 2 &&
	       TWHEEL_CONFIG_TABLE == 4 && TWHEEL_CONFIG_CLOCK_SET == 8,
	       "config flags");
_Static_assert(TWHEEL_FEATURE_PERIODIC == 1 && TWHEEL_FEATURE_TIMENS == 2 &&
	       TWHEEL_FEATURE_MANUAL_CLOCK == 4 &&
	       TWHEEL_FEATURE_RELATIVE_WALL == 8 &&
	       TWHEEL_FEATURE_URING == 16 && TWHEEL_FEATURE_MISSED == 32 &&
	       TWHEEL_FEATURE_FD_MAX_TIMERS == 64 &&
	       TWHEEL_FEATURE_TABLE == 128 && TWHEEL_FEATURE_ALARM == 0x100 &&
	       TWHEEL_FEATURE_CLOCK_SET == 0x200, "features");
/*
 * The shared timer table's entries: slot = the id's low 32 bits - 1, tag
 * = bits 32-63 (bit 32 is 0 in every id), the cancel bit 32, a deadline
 * tick in bits 0-31.
 */
_Static_assert(TWHEEL_TABLE_INDEX(1) == 0 &&
	       TWHEEL_TABLE_INDEX(0x500000007ULL) == 6 &&
	       TWHEEL_TABLE_INDEX(0xffffffffULL) == 0xfffffffeULL,
	       "table index");
_Static_assert(TWHEEL_TABLE_TAG(0xABCDEF0012345678ULL) ==
	       0xABCDEF0000000000ULL, "table tag");
_Static_assert(TWHEEL_TABLE_CANCEL == 0x100000000ULL, "table cancel bit");
_Static_assert(TWHEEL_TABLE_DEADLINE(0x600000003ULL, 0x123456789ULL) ==
	       0x600000000ULL + 0x23456789ULL &&
	       TWHEEL_TABLE_DEADLINE(0x600000003ULL, -1) == 0x6ffffffffULL,
	       "table deadline: the tick's low 32 bits under the tag");
_Static_assert(TWHEEL_TABLE_CANCELLED(0x600000003ULL) == 0x700000000ULL,
	       "table cancelled");
_Static_assert(TWHEEL_MISSED_MASK == 0xC && TWHEEL_MISSED_COUNT == 0 &&
	       TWHEEL_MISSED_BURST == 4 && TWHEEL_MISSED_DELAY == 8 &&
	       TWHEEL_MISSED_SKIP == 0xC, "missed-deadline policies");
_Static_assert(sizeof(struct twheel_uring_cmd) == 16, "uring cmd");
/* Clocks are clockid_t values; these are the six a timer takes. */
_Static_assert(CLOCK_REALTIME == 0 && CLOCK_MONOTONIC == 1 &&
	       CLOCK_BOOTTIME == 7 && CLOCK_TAI == 11 &&
	       CLOCK_REALTIME_ALARM == 8 && CLOCK_BOOTTIME_ALARM == 9,
	       "clockids");

#define PARAM_MAX	"/sys/module/twheel/parameters/max_timers"
#define TICK		((int64_t)TWHEEL_DEFAULT_TICK_NS)

/* Every ioctl number the header defines (bits 0..8) and clock it takes. */
#define ALL_IOCTLS	0x1FFULL
#define ALL_CLOCKS	((1ULL << CLOCK_REALTIME) |			\
			 (1ULL << CLOCK_MONOTONIC) |			\
			 (1ULL << CLOCK_BOOTTIME) | (1ULL << CLOCK_TAI) | \
			 (1ULL << CLOCK_REALTIME_ALARM) |		\
			 (1ULL << CLOCK_BOOTTIME_ALARM))
/* The two alarm clocks (they need CAP_WAKE_ALARM). */
#define NALARMS		2
static const clockid_t alarm_clocks[NALARMS] = {
	CLOCK_REALTIME_ALARM, CLOCK_BOOTTIME_ALARM
};
/* An unprivileged uid (nobody) for the cases that drop root. */
#define NOBODY		65534
#define ALL_FEATURES	(TWHEEL_FEATURE_PERIODIC | TWHEEL_FEATURE_TIMENS | \
			 TWHEEL_FEATURE_MANUAL_CLOCK |			\
			 TWHEEL_FEATURE_RELATIVE_WALL | TWHEEL_FEATURE_URING | \
			 TWHEEL_FEATURE_MISSED | TWHEEL_FEATURE_FD_MAX_TIMERS | \
			 TWHEEL_FEATURE_TABLE | TWHEEL_FEATURE_ALARM |	\
			 TWHEEL_FEATURE_CLOCK_SET)

/* The version 1 size of struct twheel_add and of struct twheel_info. */
#define ADD_V1_SIZE	32
#define INFO_V1_SIZE	40
/* struct twheel_config before max_timers: its first published size. */
#define CONFIG_V2_SIZE	16

/* A command number with another size: same type, number, direction. */
#define CMD_SIZE(cmd, size)						\
	_IOC(_IOC_DIR(cmd), _IOC_TYPE(cmd), _IOC_NR(cmd), (size))
/* ... or another direction. */
#define CMD_DIR(cmd, dir)						\
	_IOC((dir), _IOC_TYPE(cmd), _IOC_NR(cmd), _IOC_SIZE(cmd))

/*
 * The fd holds exactly `timers` timers, none queued, and nothing becomes
 * readable within a short wait: no bad call left anything behind.
 */
#define CHECK_UNTOUCHED(fd, ntimers) do {				\
	struct twheel_info _i = twt_info(fd);				\
	struct twheel_event _e;						\
									\
	CHECK_EQ(_i.timers, (ntimers));					\
	CHECK_EQ(_i.queued, 0);						\
	CHECK_EQ(twt_poll((fd), 50), 0);				\
	CHECK_ERR(read((fd), &_e, sizeof(_e)), EAGAIN);			\
} while (0)

/* The same without the wait (the timers a bad call could add are far). */
#define CHECK_UNTOUCHED_NOW(fd, ntimers) do {				\
	struct twheel_info _i = twt_info(fd);				\
	struct twheel_event _e;						\
									\
	CHECK_EQ(_i.timers, (ntimers));					\
	CHECK_EQ(_i.queued, 0);						\
	CHECK_ERR(read((fd), &_e, sizeof(_e)), EAGAIN);			\
} while (0)

static void layout(void)
{
	/* The _Static_asserts above are the test; this runs for the record. */
	printf("# sizes add %zu modify %zu cancel %zu status %zu query %zu list %zu op %zu submit %zu config %zu advance %zu event %zu info %zu\n",
	       sizeof(struct twheel_add), sizeof(struct twheel_modify),
	       sizeof(struct twheel_cancel), sizeof(struct twheel_status),
	       sizeof(struct twheel_query), sizeof(struct twheel_list),
	       sizeof(struct twheel_op), sizeof(struct twheel_submit),
	       sizeof(struct twheel_config), sizeof(struct twheel_advance),
	       sizeof(struct twheel_event), sizeof(struct twheel_info));
	CHECK_EQ(_IOC_SIZE(TWHEEL_IOC_INFO), sizeof(struct twheel_info));
	CHECK_EQ(_IOC_SIZE(TWHEEL_IOC_ADD), sizeof(struct twheel_add));
	CHECK_EQ(_IOC_SIZE(TWHEEL_IOC_CANCEL), sizeof(struct twheel_cancel));
	CHECK_EQ(_IOC_SIZE(TWHEEL_IOC_MODIFY), sizeof(struct twheel_modify));
	CHECK_EQ(_IOC_SIZE(TWHEEL_IOC_QUERY), sizeof(struct twheel_query));
	CHECK_EQ(_IOC_SIZE(TWHEEL_IOC_LIST), sizeof(struct twheel_list));
	CHECK_EQ(_IOC_SIZE(TWHEEL_IOC_SUBMIT), sizeof(struct twheel_submit));
	CHECK_EQ(_IOC_SIZE(TWHEEL_IOC_CONFIG), sizeof(struct twheel_config));
	CHECK_EQ(_IOC_SIZE(TWHEEL_IOC_ADVANCE), sizeof(struct twheel_advance));
	CHECK_EQ(strcmp(TWHEEL_VERSION, "0.3"), 0);
}

/*
 * The fields of a struct twheel_info that describe the module (not the
 * fd), as the header defines them. Only those within the first len bytes
 * (the caller's size) are checked.
 */
#define INFO_HAS(len, f)	((len) >= offsetof(struct twheel_info, f) + \
				 sizeof(((struct twheel_info *)0)->f))
static void check_info_module(const struct twheel_info *i, size_t len)
{
	CHECK_EQ(i->version, TWHEEL_ABI_VERSION);
	CHECK_EQ(i->event_size, sizeof(struct twheel_event));
	CHECK_EQ(i->max_timers, twt_sysfs_read(PARAM_MAX));
	if (INFO_HAS(len, features))
		CHECK_EQ(i->features, ALL_FEATURES);
	if (INFO_HAS(len, ioctls))
		CHECK_EQ(i->ioctls, ALL_IOCTLS);
	if (INFO_HAS(len, clocks))
		CHECK_EQ(i->clocks, ALL_CLOCKS);
	if (INFO_HAS(len, min_tick_ns))
		CHECK_EQ(i->min_tick_ns, TWHEEL_MIN_TICK_NS);
	if (INFO_HAS(len, max_tick_ns))
		CHECK_EQ(i->max_tick_ns, TWHEEL_MAX_TICK_NS);
	if (INFO_HAS(len, op_size))
		CHECK_EQ(i->op_size, sizeof(struct twheel_op));
	if (INFO_HAS(len, status_size))
		CHECK_EQ(i->status_size, sizeof(struct twheel_status));
	if (INFO_HAS(len, max_batch))
		CHECK_EQ(i->max_batch, TWHEEL_MAX_BATCH);
}

/* The per-fd fields of an fd without a table, within len bytes. */
static void check_info_no_table(const struct twheel_info *i, size_t len)
{
	if (INFO_HAS(len, table_size))
		CHECK_EQ(i->table_size, 0);
	if (INFO_HAS(len, cancelled))
		CHECK_EQ(i->cancelled, 0);
}

/* The handshake on a new fd: every field. */
static void info_fresh(void)
{
	int fd = twt_open(O_NONBLOCK);
	struct twheel_info i = twt_info(fd);
	long long param = twt_sysfs_read(PARAM_MAX);
	unsigned long cmds[] = {
		TWHEEL_IOC_INFO, TWHEEL_IOC_ADD, TWHEEL_IOC_CANCEL,
		TWHEEL_IOC_MODIFY, TWHEEL_IOC_QUERY, TWHEEL_IOC_LIST,
		TWHEEL_IOC_SUBMIT, TWHEEL_IOC_CONFIG, TWHEEL_IOC_ADVANCE,
	};
	uint64_t bits = 0;
	unsigned int k;

	printf("# info: version %u event_size %u tick %llu features %#llx ioctls %#llx clocks %#llx ticks %llu..%llu config %#x op %u status %u batch %u\n",
	       i.version, i.event_size, (unsigned long long)i.tick_ns,
	       (unsigned long long)i.features, (unsigned long long)i.ioctls,
	       (unsigned long long)i.clocks,
	       (unsigned long long)i.min_tick_ns,
	       (unsigned long long)i.max_tick_ns, i.config_flags, i.op_size,
	       i.status_size, i.max_batch);
	CHECK_EQ(i.version, 2);
	CHECK_EQ(i.event_size, 40);
	CHECK_EQ(i.op_size, 72);
	CHECK_EQ(i.status_size, 56);
	CHECK_EQ(i.max_batch, 1024);
	CHECK_EQ(i.min_tick_ns, 1000);
	CHECK_EQ(i.max_tick_ns, 1000000000);
	CHECK_EQ(i.tick_ns, TWHEEL_DEFAULT_TICK_NS);
	CHECK_EQ(i.timers, 0);
	CHECK_EQ(i.queued, 0);
	CHECK_EQ(i.config_flags, 0);
	CHECK_EQ(param, 1048576);	/* the default; nobody changed it */
	CHECK_EQ(i.max_timers, param);
	/* Exactly the nine ioctls, bits 0..8, one per command. */
	for (k = 0; k < sizeof(cmds) / sizeof(cmds[0]); k++)
		bits |= 1ULL << _IOC_NR(cmds[k]);
	CHECK_EQ(bits, ALL_IOCTLS);
	CHECK_EQ(i.ioctls, 0x1FF);
	/* Exactly the six clocks: bits 0, 1, 7, 8, 9, 11. */
	CHECK_EQ(i.clocks, (1 << 0) | (1 << 1) | (1 << 7) | (1 << 8) |
			   (1 << 9) | (1 << 11));
	for (k = 0; k < TWT_NCLOCKS; k++)
		CHECK(i.clocks & (1ULL << twt_clock(k)));
	/* Every feature the header defines, and no other bit. */
	CHECK_EQ(i.features, 0x3FF);
	check_info_module(&i, sizeof(i));
	check_info_no_table(&i, sizeof(i));
	close(fd);
}

/* TWHEEL_IOC_CONFIG with TWHEEL_CONFIG_MAX_TIMERS, or fail the case. */
static void abi_config_max(int fd, uint64_t tick_ns, uint32_t flags,
			   uint64_t max_timers)
{
	struct twheel_config c;

	memset(&c, 0, sizeof(c));
	c.tick_ns = tick_ns;
	c.flags = flags | TWHEEL_CONFIG_MAX_TIMERS;
	c.max_timers = max_timers;
	CHECK_EQ(ioctl(fd, TWHEEL_IOC_CONFIG, &c), 0);
}

/*
 * config_flags and tick_ns follow TWHEEL_IOC_CONFIG (the last one before
 * the first timer counts); the module fields stay as they are.
 */
static void info_config(void)
{
	int fd = twt_open(O_NONBLOCK);
	struct twheel_info i;

	twt_config(fd, 250000, TWHEEL_CONFIG_MANUAL);
	i = twt_info(fd);
	CHECK_EQ(i.config_flags, TWHEEL_CONFIG_MANUAL);
	CHECK_EQ(i.tick_ns, 250000);
	check_info_module(&i, sizeof(i));
	twt_config(fd, TWHEEL_MAX_TICK_NS, 0);
	i = twt_info(fd);
	CHECK_EQ(i.config_flags, 0);
	CHECK_EQ(i.tick_ns, TWHEEL_MAX_TICK_NS);
	twt_config(fd, TWHEEL_MIN_TICK_NS, TWHEEL_CONFIG_MANUAL);
	i = twt_info(fd);
	CHECK_EQ(i.config_flags, TWHEEL_CONFIG_MANUAL);
	CHECK_EQ(i.tick_ns, TWHEEL_MIN_TICK_NS);
	check_info_no_table(&i, sizeof(i));
	/* Clock-set records: reported alone and with the manual clock. */
	twt_config(fd, TWHEEL_MIN_TICK_NS, TWHEEL_CONFIG_CLOCK_SET);
	i = twt_info(fd);
	CHECK_EQ(i.config_flags, TWHEEL_CONFIG_CLOCK_SET);
	check_info_module(&i, sizeof(i));
	twt_config(fd, TWHEEL_MIN_TICK_NS,
		   TWHEEL_CONFIG_MANUAL | TWHEEL_CONFIG_CLOCK_SET);
	i = twt_info(fd);
	CHECK_EQ(i.config_flags,
		 TWHEEL_CONFIG_MANUAL | TWHEEL_CONFIG_CLOCK_SET);
	CHECK_EQ(i.queued, 0);
	twt_config(fd, TWHEEL_MIN_TICK_NS, TWHEEL_CONFIG_MANUAL);
	i = twt_info(fd);
	CHECK_EQ(i.config_flags, TWHEEL_CONFIG_MANUAL);
	/*
	 * A table of 1000 entries: 8000 bytes, two pages; the flag is
	 * reported with the manual clock's.
	 */
	abi_config_max(fd, TWHEEL_MIN_TICK_NS,
		       TWHEEL_CONFIG_MANUAL | TWHEEL_CONFIG_TABLE, 1000);
	i = twt_info(fd);
	CHECK_EQ(i.config_flags, TWHEEL_CONFIG_MANUAL | TWHEEL_CONFIG_TABLE);
	CHECK_EQ(i.max_timers, 1000);
	CHECK_EQ(i.table_size, 2 * 4096);
	CHECK_EQ(i.cancelled, 0);
	/*
	 * A configuration without the flag takes the table away (and
	 * without TWHEEL_CONFIG_MAX_TIMERS, the fd's maximum is back).
	 */
	twt_config(fd, TWHEEL_MIN_TICK_NS, TWHEEL_CONFIG_MANUAL);
	i = twt_info(fd);
	CHECK_EQ(i.config_flags, TWHEEL_CONFIG_MANUAL);
	check_info_module(&i, sizeof(i));
	check_info_no_table(&i, sizeof(i));
	/* The first timer fixes it; it is reported as it was. */
	twt_add_rel(fd, 1, TWT_S);
	CHECK_ERR(twt_config_raw(fd, TWHEEL_DEFAULT_TICK_NS, 0), EBUSY);
	i = twt_info(fd);
	CHECK_EQ(i.config_flags, TWHEEL_CONFIG_MANUAL);
	CHECK_EQ(i.tick_ns, TWHEEL_MIN_TICK_NS);
	CHECK_EQ(i.timers, 1);
	check_info_module(&i, sizeof(i));
	/* Other fds are not configured. */
	close(fd);
	fd = twt_open(0);
	i = twt_info(fd);
	CHECK_EQ(i.config_flags, 0);
	CHECK_EQ(i.tick_ns, TWHEEL_DEFAULT_TICK_NS);
	close(fd);
}

/*
 * A program of version 1 asks with its 40-byte struct: it works, says
 * version 2, and exactly 40 bytes are written.
 */
static void info_v1_size(void)
{
	int fd = twt_open(O_NONBLOCK);
	unsigned long cmd = CMD_SIZE(TWHEEL_IOC_INFO, INFO_V1_SIZE);
	union {
		struct twheel_info i;
		unsigned char b[sizeof(struct twheel_info)];
	} u;
	struct twheel_info *i;
	int k;

	twt_add_rel(fd, 1, 3600 * TWT_S);
	twt_add_abs(fd, 2, 0, CLOCK_MONOTONIC);
	CHECK_EQ(cmd, 0x8028BA00U);	/* version 1's TWHEEL_IOC_INFO */
	memset(&u, 0xAA, sizeof(u));
	CHECK_EQ(ioctl(fd, cmd, &u), 0);
	CHECK_EQ(u.i.version, 2);
	CHECK_EQ(u.i.event_size, 40);
	CHECK_EQ(u.i.tick_ns, TWHEEL_DEFAULT_TICK_NS);
	CHECK_EQ(u.i.max_timers, twt_sysfs_read(PARAM_MAX));
	CHECK_EQ(u.i.timers, 2);
	CHECK_EQ(u.i.queued, 1);
	for (k = INFO_V1_SIZE; k < (int)sizeof(u); k++)
		CHECK_EQ(u.b[k], 0xAA);
	/* At the very end of a mapping: only 40 bytes are touched. */
	i = (struct twheel_info *)(twt_guard_map(4096) - INFO_V1_SIZE);
	CHECK_EQ(ioctl(fd, cmd, i), 0);
	CHECK_EQ(i->version, 2);
	CHECK_EQ(i->timers, 2);
	close(fd);
}

/* timers and queued follow adds, expiries, reads and cancels. */
static void info_counts(void)
{
	int fd = twt_open(O_NONBLOCK);
	uint64_t far[3], due[2];
	struct twheel_event ev;
	struct twheel_info i;
	int k;

	for (k = 0; k < 3; k++)
		far[k] = twt_add(fd, k, 3600 * TWT_S, 0, twt_clock(k));
	i = twt_info(fd);
	CHECK_EQ(i.timers, 3);
	CHECK_EQ(i.queued, 0);
	for (k = 0; k < 2; k++)
		due[k] = twt_add_abs(fd, 10 + k, 0, twt_clock(3 - k));
	i = twt_info(fd);
	CHECK_EQ(i.timers, 5);
	CHECK_EQ(i.queued, 2);
	CHECK_EQ(read(fd, &ev, sizeof(ev)), sizeof(ev));
	CHECK_EQ(ev.id, due[0]);
	i = twt_info(fd);
	CHECK_EQ(i.timers, 4);
	CHECK_EQ(i.queued, 1);
	CHECK_EQ(twt_cancel(fd, due[1]), TWHEEL_STATE_QUEUED);
	i = twt_info(fd);
	CHECK_EQ(i.timers, 3);
	CHECK_EQ(i.queued, 0);
	CHECK_EQ(twt_cancel(fd, far[1]), TWHEEL_STATE_PENDING);
	i = twt_info(fd);
	CHECK_EQ(i.timers, 2);
	CHECK_EQ(i.queued, 0);
	/* A pending timer expiring moves from pending to queued: same total. */
	twt_add_rel(fd, 99, 20 * TWT_MS);
	CHECK_EQ(twt_timers(fd), 3);
	CHECK(twt_poll(fd, 5000) & POLLIN);
	i = twt_info(fd);
	CHECK_EQ(i.timers, 3);
	CHECK_EQ(i.queued, 1);
	CHECK_EQ(read(fd, &ev, sizeof(ev)), sizeof(ev));
	CHECK_EQ(ev.cookie, 99);
	CHECK_UNTOUCHED(fd, 2);
	close(fd);
}

/* TWHEEL_IOC_INFO writes all 112 bytes, exactly, and nothing after them. */
static void info_writeback(void)
{
	int fd = twt_open(0);
	unsigned char buf[sizeof(struct twheel_info) + 16];
	struct twheel_info *i = (struct twheel_info *)buf;
	int fill, k;

	twt_add_rel(fd, 1, 3600 * TWT_S);
	twt_add_abs(fd, 2, 0, CLOCK_BOOTTIME);
	for (fill = 0; fill < 2; fill++) {
		memset(buf, fill ? 0x55 : 0xAA, sizeof(buf));
		CHECK_EQ(ioctl(fd, TWHEEL_IOC_INFO, buf), 0);
		check_info_module(i, sizeof(*i));
		CHECK_EQ(i->tick_ns, TWHEEL_DEFAULT_TICK_NS);
		CHECK_EQ(i->timers, 2);
		CHECK_EQ(i->queued, 1);
		CHECK_EQ(i->config_flags, 0);
		check_info_no_table(i, sizeof(*i));
		for (k = sizeof(*i); k < (int)sizeof(buf); k++)
			CHECK_EQ(buf[k], fill ? 0x55 : 0xAA);
	}
	/* Exactly at the end of a mapping: the kernel touches 112 bytes only. */
	i = (struct twheel_info *)(twt_guard_map(4096) - sizeof(*i));
	CHECK_EQ(ioctl(fd, TWHEEL_IOC_INFO, i), 0);
	CHECK_EQ(i->timers, 2);
	CHECK_EQ(i->max_batch, TWHEEL_MAX_BATCH);
	close(fd);
}

/*
 * ---- Every ioctl, one way: a table ----
 *
 * For each command: how to set up a fresh fd (timers to act on), fill a
 * valid argument, check that the call did its work (and wrote its out
 * fields, kept its in fields), and check that a refused call changed
 * nothing. The generic cases below run every command through them, with
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
#define JUNK64	0xAAAAAAAAAAAAAAAAULL
#define JUNK32	0xAAAAAAAAU
#define OP_JUNK	0x5A5A5A5A

/* INFO */
static void info_setup(struct ictx *x)
{
	twt_add_rel(x->fd, 1, 3600 * TWT_S);
	twt_add_abs(x->fd, 2, 0, CLOCK_TAI);
}

static void info_fill(struct ictx *x, void *arg, size_t len)
{
	(void)x;
	memset(arg, 0xAA, len);		/* output only: never read */
}

static void info_done(struct ictx *x, void *arg, size_t len, int ret)
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

static void info_undone(struct ictx *x)
{
	struct twheel_info i = twt_info(x->fd);

	CHECK_EQ(i.timers, 2);
	CHECK_EQ(i.queued, 1);
}

/* ADD */
static void add_fill(struct ictx *x, void *arg, size_t len)
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

static void add_done(struct ictx *x, void *arg, size_t len, int ret)
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

static void add_undone(struct ictx *x)
{
	CHECK_UNTOUCHED_NOW(x->fd, 0);
}

/* CANCEL, MODIFY, QUERY: one pending timer, cookie 1, an hour away. */
static void one_setup(struct ictx *x)
{
	x->id = twt_add_rel(x->fd, 1, 3600 * TWT_S);
}

/* The timer of one_setup() as it was. */
static void one_undone(struct ictx *x)
{
	struct twheel_status st = twt_query(x->fd, x->id);

	CHECK_EQ(st.cookie, 1);
	CHECK_EQ(st.state, TWHEEL_STATE_PENDING);
	CHECK_EQ(st.period_ns, 0);
	CHECK(st.remaining_ns > 0 &&
	      st.remaining_ns <= 3600 * TWT_S + TICK);
	CHECK_UNTOUCHED_NOW(x->fd, 1);
}

static void cancel_fill(struct ictx *x, void *arg, size_t len)
{
	struct twheel_cancel *c = arg;

	(void)len;
	c->id = x->id;
	c->flags = 0;
	c->result = JUNK32;
}

static void cancel_done(struct ictx *x, void *arg, size_t len, int ret)
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

static void modify_fill(struct ictx *x, void *arg, size_t len)
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

static void modify_done(struct ictx *x, void *arg, size_t len, int ret)
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

static void query_fill(struct ictx *x, void *arg, size_t len)
{
	struct twheel_query *q = arg;

	(void)len;
	q->id = x->id;
	memset(&q->status, 0xAA, sizeof(q->status));	/* out */
}

static void query_done(struct ictx *x, void *arg, size_t len, int ret)
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
static void two_setup(struct ictx *x)
{
	x->id = twt_add_rel(x->fd, 1, 3600 * TWT_S);
	x->id2 = twt_add(x->fd, 2, 7200 * TWT_S, 0, CLOCK_BOOTTIME);
}

static void list_fill(struct ictx *x, void *arg, size_t len)
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

static void list_done(struct ictx *x, void *arg, size_t len, int ret)
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

static void two_undone(struct ictx *x)
{
	CHECK_EQ(twt_query(x->fd, x->id).cookie, 1);
	CHECK_EQ(twt_query(x->fd, x->id2).cookie, 2);
	CHECK_UNTOUCHED_NOW(x->fd, 2);
}

/* SUBMIT: one ADD operation. */
static void submit_fill(struct ictx *x, void *arg, size_t len)
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

static void submit_done(struct ictx *x, void *arg, size_t len, int ret)
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

static void submit_undone(struct ictx *x)
{
	CHECK_EQ(x->ops[0].error, OP_JUNK);	/* not done, not written */
	CHECK_EQ(x->ops[0].id, JUNK64);
	CHECK_UNTOUCHED_NOW(x->fd, 0);
}

/* CONFIG: a new tick. */
static void config_fill(struct ictx *x, void *arg, size_t len)
{
	struct twheel_config *c = arg;

	(void)x;
	(void)len;
	c->tick_ns = 250000;
	c->flags = 0;
	c->__reserved = 0;
}

static void config_done(struct ictx *x, void *arg, size_t len, int ret)
{
	struct twheel_info i = twt_info(x->fd);

	(void)arg;
	(void)len;
	CHECK_EQ(ret, 0);
	CHECK_EQ(i.tick_ns, 250000);
	CHECK_EQ(i.config_flags, 0);
}

static void config_undone(struct ictx *x)
{
	struct twheel_info i = twt_info(x->fd);

	CHECK_EQ(i.tick_ns, TWHEEL_DEFAULT_TICK_NS);
	CHECK_EQ(i.config_flags, 0);
	CHECK_UNTOUCHED_NOW(x->fd, 0);
}

/* ADVANCE: a manual fd with a timer due at 1 s. */
static void advance_setup(struct ictx *x)
{
	twt_config(x->fd, TWHEEL_DEFAULT_TICK_NS, TWHEEL_CONFIG_MANUAL);
	x->id = twt_add_rel(x->fd, 3, TWT_S);
}

static void advance_fill(struct ictx *x, void *arg, size_t len)
{
	struct twheel_advance *a = arg;

	(void)x;
	(void)len;
	a->delta_ns = 5 * TWT_S;
	a->flags = 0;
	a->__reserved = 0;
	a->now_ns = (int64_t)JUNK64;	/* out */
}

static void advance_done(struct ictx *x, void *arg, size_t len, int ret)
{
	struct twheel_advance *a = arg;

	(void)len;
	CHECK_EQ(ret, 0);
	CHECK_EQ(a->delta_ns, 5 * TWT_S);
	CHECK_EQ(a->now_ns, 5 * TWT_S);
	CHECK_EQ(twt_advance(x->fd, 0), 5 * TWT_S);
	CHECK_EQ(twt_queued(x->fd), 1);
}

static void advance_undone(struct ictx *x)
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
	 * has its rules), so it is tested as a bad flag below, not skipped.
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
	  TWHEEL_CONFIG_CLOCK_SET,
	  OFF(twheel_config, __reserved),
	  NULL, config_fill, config_done, config_undone },
	{ "ADVANCE", TWHEEL_IOC_ADVANCE, sizeof(struct twheel_advance), 1,
	  OFF(twheel_advance, flags), 0, OFF(twheel_advance, __reserved),
	  advance_setup, advance_fill, advance_done, advance_undone },
};
#define NDESCS	(sizeof(descs) / sizeof(descs[0]))

/* The largest argument the cases below pass. */
#define ARG_MAX	4096

static char *arg_guard;		/* a guard page, ARG_MAX bytes before it */
static unsigned char *valid;	/* a valid argument, zero after it */
static struct twheel_op *ops_page;
static struct twheel_status *st_page;

/* A fresh fd, set up for d, and a valid argument for it in valid[]. */
static void begin(const struct idesc *d, struct ictx *x)
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
static void *place(size_t len)
{
	void *p = arg_guard - len;

	memcpy(p, valid, len);
	return p;
}

/*
 * call(): the ioctl; on failure it must be -1 with errno want (0: must
 * succeed), and then nothing changed; on success done() checks it.
 */
static void call(const struct idesc *d, struct ictx *x, unsigned long cmd,
		 void *arg, size_t len, int want, const char *what)
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

static void end(struct ictx *x)
{
	close(x->fd);
}

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

/* Every flag bit a command does not take: EINVAL, nothing changed. */
static void bad_flags(void)
{
	struct ictx x = { 0 };
	unsigned int k, b;

	for (k = 0; k < NDESCS; k++) {
		const struct idesc *d = &descs[k];
		size_t size = _IOC_SIZE(d->cmd);

		if (d->flags_off == NONE)
			continue;
		for (b = 0; b <= 32; b++) {
			uint32_t bad = b < 32 ? 1U << b : ~d->flags_ok;
			unsigned char *p;

			if (bad & d->flags_ok)
				continue;
			begin(d, &x);
			p = place(size);
			*(uint32_t *)(p + d->flags_off) |= bad;
			call(d, &x, d->cmd, p, size, EINVAL, "bad flags");
			end(&x);
		}
	}
}

/* Any non-zero __reserved: EINVAL, nothing changed. */
static void bad_reserved(void)
{
	uint32_t bad[] = { 1, 2, 0x80000000U, 0xFFFFFFFFU };
	struct ictx x = { 0 };
	unsigned int k, b;

	for (k = 0; k < NDESCS; k++) {
		const struct idesc *d = &descs[k];
		size_t size = _IOC_SIZE(d->cmd);

		if (d->rsv_off == NONE)
			continue;
		for (b = 0; b < sizeof(bad) / sizeof(bad[0]); b++) {
			unsigned char *p;

			begin(d, &x);
			p = place(size);
			*(uint32_t *)(p + d->rsv_off) = bad[b];
			call(d, &x, d->cmd, p, size, EINVAL, "bad reserved");
			end(&x);
		}
	}
}

/*
 * Our numbers and sizes with the other direction bits are other,
 * unknown commands: ENOTTY, nothing changed.
 */
static void wrong_direction(void)
{
	unsigned int dirs[] = { _IOC_NONE, _IOC_READ, _IOC_WRITE,
				_IOC_READ | _IOC_WRITE };
	struct ictx x = { 0 };
	unsigned int k, i;

	for (k = 0; k < NDESCS; k++) {
		const struct idesc *d = &descs[k];
		size_t size = _IOC_SIZE(d->cmd);

		for (i = 0; i < 4; i++) {
			if (dirs[i] == _IOC_DIR(d->cmd))
				continue;
			begin(d, &x);
			call(d, &x, CMD_DIR(d->cmd, dirs[i]), place(size), size,
			     ENOTTY, "wrong direction");
			/* ... and with no size at all. */
			call(d, &x, _IOC(dirs[i], TWHEEL_IOC_TYPE,
					 _IOC_NR(d->cmd), 0),
			     place(size), size, ENOTTY, "wrong direction");
			end(&x);
		}
	}
}

/* Argument pointers that point nowhere: EFAULT, nothing changed. */
static void efault_pointers(void)
{
	struct ictx x = { 0 };
	unsigned int k, b;

	for (k = 0; k < NDESCS; k++) {
		const struct idesc *d = &descs[k];
		size_t size = _IOC_SIZE(d->cmd);
		void *bad[] = { NULL, NULL, NULL, (void *)1,
				(void *)0xffff880000000000ULL, (void *)-64L };

		begin(d, &x);
		bad[1] = arg_guard;
		bad[2] = arg_guard + 1000;
		for (b = 0; b < sizeof(bad) / sizeof(bad[0]); b++)
			call(d, &x, d->cmd, bad[b], size, EFAULT, "pointer");
		end(&x);
	}
}

/*
 * An argument whose first bytes are mapped and the rest not (every
 * 4-byte split): EFAULT, nothing changed.
 */
static void efault_straddle(void)
{
	struct ictx x = { 0 };
	unsigned int k;
	size_t cut;

	for (k = 0; k < NDESCS; k++) {
		const struct idesc *d = &descs[k];
		size_t size = _IOC_SIZE(d->cmd);

		for (cut = 4; cut < size; cut += 4) {
			begin(d, &x);
			call(d, &x, d->cmd, place(cut), size, EFAULT,
			     "straddle");
			end(&x);
		}
	}
}

/*
 * A read-only argument: the commands that write it back fail with
 * EFAULT and change nothing; those that only read it (SUBMIT, CONFIG)
 * work.
 */
static void efault_readonly(void)
{
	long pg = sysconf(_SC_PAGESIZE);
	struct ictx x = { 0 };
	unsigned int k;

	for (k = 0; k < NDESCS; k++) {
		const struct idesc *d = &descs[k];
		size_t size = _IOC_SIZE(d->cmd);
		unsigned char *p;

		p = mmap(NULL, pg, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		CHECK(p != MAP_FAILED);
		begin(d, &x);
		memcpy(p + pg - size, valid, size);
		CHECK_OK(mprotect(p, pg, PROT_READ));
		call(d, &x, d->cmd, p + pg - size, size,
		     d->writes ? EFAULT : 0, "read-only");
		end(&x);
		munmap(p, pg);
	}
}

/*
 * The same with a larger struct whose tail is zero: the commands that
 * write fail with EFAULT and change nothing; the write-only ones (SUBMIT,
 * CONFIG) only read it, and work. The old code wrote zeroes over the
 * tail of every larger struct before anything else, also for those two:
 * EFAULT, nothing done.
 */
static void efault_readonly_larger(void)
{
	static const size_t extra[] = { 8, 64, 1000 };
	long pg = sysconf(_SC_PAGESIZE);
	struct ictx x = { 0 };
	unsigned int k, e;

	for (k = 0; k < NDESCS; k++) {
		const struct idesc *d = &descs[k];

		for (e = 0; e < sizeof(extra) / sizeof(extra[0]); e++) {
			size_t size = _IOC_SIZE(d->cmd) + extra[e];
			unsigned char *p;

			p = mmap(NULL, pg, PROT_READ | PROT_WRITE,
				 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
			CHECK(p != MAP_FAILED);
			begin(d, &x);
			memcpy(p + pg - size, valid, size);
			CHECK_OK(mprotect(p, pg, PROT_READ));
			call(d, &x, CMD_SIZE(d->cmd, size), p + pg - size, size,
			     d->writes ? EFAULT : 0, "read-only, larger");
			end(&x);
			munmap(p, pg);
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

/*
 * fdinfo: tick_ns, timers, pending, queued, slots, and
 * next_expiry_<clock>_ns for each clock with pending timers. What "next expiry" means is not written
 * down beyond that; checked: it is not after the earliest pending
 * deadline (rounded up to a tick) and not before the fd's last add.
 */
static void fdinfo(void)
{
	int fd = twt_open(O_NONBLOCK);
	int64_t t0m = twt_now(CLOCK_MONOTONIC);
	int64_t t0b = twt_now(CLOCK_BOOTTIME);
	int64_t t0t = twt_now(CLOCK_TAI);
	int64_t m = t0m + 3 * TWT_MS + 123456, b = t0b + 7 * TWT_S + 654321;
	int64_t t = t0t + 9 * TWT_S + 111;
	int64_t tick = (int64_t)TWHEEL_DEFAULT_TICK_NS;
	long long v;
	struct twheel_event ev;
	unsigned int k;

	CHECK_EQ(twt_fdinfo(fd, "tick_ns", &v), 0);
	CHECK_EQ(v, TWHEEL_DEFAULT_TICK_NS);
	CHECK_EQ(twt_fdinfo(fd, "timers", &v), 0);
	CHECK_EQ(v, 0);
	CHECK_EQ(twt_fdinfo(fd, "queued", &v), 0);
	CHECK_EQ(v, 0);
	for (k = 0; k < TWT_NCLOCKS; k++) {
		char key[64];

		snprintf(key, sizeof(key), "next_expiry_%s_ns",
			 twt_clockname(twt_clock(k)));
		CHECK(twt_fdinfo(fd, key, &v) < 0);
	}

	/* Far ones first, so the near one must replace them as "next". */
	twt_add_abs(fd, 1, m + 3600 * TWT_S, CLOCK_MONOTONIC);
	twt_add_abs(fd, 2, m + 5 * TWT_S, CLOCK_MONOTONIC);
	twt_add_abs(fd, 3, b, CLOCK_BOOTTIME);
	twt_add_abs(fd, 5, m + 300 * TWT_S, CLOCK_MONOTONIC);
	twt_add_abs(fd, 7, t + 3600 * TWT_S, CLOCK_TAI);
	twt_add_abs(fd, 8, t, CLOCK_TAI);
	m += 1000 * TWT_MS;	/* the earliest monotonic deadline: */
	twt_add_abs(fd, 6, m, CLOCK_MONOTONIC);
	twt_add_abs(fd, 4, 0, CLOCK_REALTIME);	/* queued at once */
	CHECK_EQ(twt_fdinfo(fd, "timers", &v), 0);
	CHECK_EQ(v, 8);
	CHECK_EQ(twt_fdinfo(fd, "queued", &v), 0);
	CHECK_EQ(v, 1);
	CHECK_EQ(twt_fdinfo(fd, "pending", &v), 0);
	CHECK_EQ(v, 7);
	CHECK_EQ(twt_fdinfo(fd, "slots", &v), 0);
	CHECK_EQ(v, 8);
	CHECK_EQ(twt_fdinfo(fd, "next_expiry_monotonic_ns", &v), 0);
	printf("# next_expiry_monotonic_ns is deadline %+.3f ms\n", (v - m) / 1e6);
	CHECK(v <= (m + tick - 1) / tick * tick);
	CHECK(v >= t0m - tick);
	CHECK_EQ(twt_fdinfo(fd, "next_expiry_boottime_ns", &v), 0);
	printf("# next_expiry_boottime_ns is deadline %+.3f ms\n", (v - b) / 1e6);
	CHECK(v <= (b + tick - 1) / tick * tick);
	CHECK(v >= t0b - tick);
	CHECK_EQ(twt_fdinfo(fd, "next_expiry_tai_ns", &v), 0);
	printf("# next_expiry_tai_ns is deadline %+.3f ms\n", (v - t) / 1e6);
	CHECK(v <= (t + tick - 1) / tick * tick);
	CHECK(v >= t0t - tick);
	/* The realtime timer has expired: no pending realtime timer. */
	CHECK(twt_fdinfo(fd, "next_expiry_realtime_ns", &v) < 0);

	CHECK_EQ(read(fd, &ev, sizeof(ev)), sizeof(ev));
	CHECK_EQ(ev.cookie, 4);
	CHECK_EQ(twt_fdinfo(fd, "queued", &v), 0);
	CHECK_EQ(v, 0);
	CHECK_EQ(twt_fdinfo(fd, "timers", &v), 0);
	CHECK_EQ(v, 7);
	CHECK_EQ(twt_fdinfo(fd, "pending", &v), 0);
	CHECK_EQ(v, 7);
	/* The read timer's slot stays with the fd, for its next timer. */
	CHECK_EQ(twt_fdinfo(fd, "slots", &v), 0);
	CHECK_EQ(v, 8);
	/*
	 * The alarm clocks have keys of their own (read as CLOCK_REALTIME
	 * and CLOCK_BOOTTIME; the test runs as root, CAP_WAKE_ALARM).
	 */
	CHECK(twt_fdinfo(fd, "next_expiry_realtime_alarm_ns", &v) < 0);
	CHECK(twt_fdinfo(fd, "next_expiry_boottime_alarm_ns", &v) < 0);
	t0m = twt_now(CLOCK_REALTIME);
	t0b = twt_now(CLOCK_BOOTTIME);
	m = t0m + 5 * TWT_S + 17;
	b = t0b + 2 * TWT_S + 29;
	twt_add_abs(fd, 9, m, CLOCK_REALTIME_ALARM);
	twt_add_abs(fd, 10, b, CLOCK_BOOTTIME_ALARM);
	CHECK_EQ(twt_fdinfo(fd, "next_expiry_realtime_alarm_ns", &v), 0);
	printf("# next_expiry_realtime_alarm_ns is deadline %+.3f ms\n",
	       (v - m) / 1e6);
	CHECK(v <= (m + tick - 1) / tick * tick);
	CHECK(v >= t0m - tick);
	CHECK_EQ(twt_fdinfo(fd, "next_expiry_boottime_alarm_ns", &v), 0);
	printf("# next_expiry_boottime_alarm_ns is deadline %+.3f ms\n",
	       (v - b) / 1e6);
	CHECK(v <= (b + tick - 1) / tick * tick);
	CHECK(v >= t0b - tick);
	/* Not the plain clocks': no realtime timer is pending. */
	CHECK(twt_fdinfo(fd, "next_expiry_realtime_ns", &v) < 0);
	close(fd);
}

/*
 * Numbers 0x09..0xff of our type, in every direction and many sizes, and
 * other types with our numbers: ENOTTY, nothing happens.
 */
static void unknown_ioctl(void)
{
	int fd = twt_open(O_NONBLOCK);
	/* Room for any size below; valid as an add that is due at once. */
	union {
		struct twheel_add a;
		unsigned char pad[256];
	} u;
	unsigned long foreign[] = {
		_IOWR(0xBB, 0x01, struct twheel_add),
		_IOWR(0x00, 0x01, struct twheel_add),
		_IOR(0xB9, 0x00, struct twheel_info),
		_IOR(0xBB, 0x00, struct twheel_info),
		_IOW(0xBB, 0x07, struct twheel_config),
		TCGETS,
		0,
	};
	unsigned int dirs[] = { _IOC_NONE, _IOC_READ, _IOC_WRITE,
				_IOC_READ | _IOC_WRITE };
	size_t sizes[] = { 0, 8, 16, 24, 32, 40, 72, 96, 256 };
	const unsigned int nsizes = sizeof(sizes) / sizeof(sizes[0]);
	unsigned int nr, k;

	for (nr = 0x09; nr <= 0xff; nr++)
		for (k = 0; k < 4 * nsizes; k++) {
			unsigned long cmd = _IOC(dirs[k % 4], TWHEEL_IOC_TYPE,
						 nr, sizes[k / 4]);

			memset(&u, 0, sizeof(u));
			u.a.cookie = 1;
			u.a.flags = TWHEEL_ABSTIME;
			u.a.clock = CLOCK_MONOTONIC;
			errno = 0;
			if (ioctl(fd, cmd, &u) != -1 || errno != ENOTTY)
				twt_fail(__FILE__, __LINE__,
					 "cmd %#lx: want ENOTTY, got %s", cmd,
					 strerror(errno));
		}
	for (k = 0; k < sizeof(foreign) / sizeof(foreign[0]); k++) {
		memset(&u, 0, sizeof(u));
		u.a.cookie = 1;
		u.a.flags = TWHEEL_ABSTIME;
		u.a.clock = CLOCK_MONOTONIC;
		printf("# cmd %#lx\n", foreign[k]);
		CHECK_ERR(ioctl(fd, foreign[k], &u), ENOTTY);
	}
	CHECK_UNTOUCHED(fd, 0);
	close(fd);
}

static void add_bad_flags(void)
{
	int fd = twt_open(O_NONBLOCK);
	/*
	 * (TWHEEL_MISSED_* are flags of periodic timers: missed.c. 0x10,
	 * TWHEEL_CANCEL_ON_SET, is EINVAL on these relative timers, and on a
	 * monotonic one also absolute: add_cancel_on_set.)
	 */
	uint32_t bad[] = { 2, 0x10, 0x20, 1U << 31, 0xFFFFFFFF,
			   TWHEEL_ABSTIME | 2, TWHEEL_SET_COOKIE,
			   ~TWHEEL_ABSTIME };
	unsigned int k;

	for (k = 0; k < sizeof(bad) / sizeof(bad[0]); k++) {
		CHECK_ERR(twt_add_raw(fd, k, 0, bad[k], CLOCK_MONOTONIC,
				      NULL), EINVAL);
		CHECK_ERR(twt_add_raw(fd, k, TWT_MS, bad[k],
				      CLOCK_MONOTONIC, NULL), EINVAL);
		CHECK_ERR(twt_addp_raw(fd, k, 0, TWT_MS, bad[k],
				       CLOCK_REALTIME, NULL), EINVAL);
	}
	CHECK_UNTOUCHED(fd, 0);
	close(fd);
}

/*
 * Any clockid but the six is EINVAL, relative or absolute, one-shot or
 * periodic, also on a manual fd (which takes any of the six). The test
 * runs as root: the alarm clocks are taken too (add_alarm_unprivileged
 * without CAP_WAKE_ALARM).
 */
static void add_bad_clock(void)
{
	uint32_t bad[] = {
		CLOCK_PROCESS_CPUTIME_ID, CLOCK_THREAD_CPUTIME_ID,
		CLOCK_MONOTONIC_RAW, CLOCK_REALTIME_COARSE,
		CLOCK_MONOTONIC_COARSE, 10, 12, 13, 16, 31, 32, 63, 64,
		(uint32_t)-1, 0x80000000U, 0x7FFFFFFFU, 0x80000001U,
		8 + 32, 9 + 64, 0x100 | 8,
	};
	int manual;
	unsigned int k;

	_Static_assert(CLOCK_PROCESS_CPUTIME_ID == 2 &&
		       CLOCK_THREAD_CPUTIME_ID == 3 &&
		       CLOCK_MONOTONIC_RAW == 4 && CLOCK_REALTIME_COARSE == 5 &&
		       CLOCK_MONOTONIC_COARSE == 6 &&
		       CLOCK_REALTIME_ALARM == 8 && CLOCK_BOOTTIME_ALARM == 9,
		       "clockids");
	for (manual = 0; manual < 2; manual++) {
		int fd = manual ? twt_open_manual(O_NONBLOCK,
						  TWHEEL_DEFAULT_TICK_NS) :
				  twt_open(O_NONBLOCK);

		for (k = 0; k < sizeof(bad) / sizeof(bad[0]); k++) {
			CHECK_ERR(twt_add_raw(fd, k, 0, 0, bad[k], NULL),
				  EINVAL);
			CHECK_ERR(twt_add_raw(fd, k, TWT_MS, 0, bad[k], NULL),
				  EINVAL);
			CHECK_ERR(twt_add_raw(fd, k, 0, TWHEEL_ABSTIME, bad[k],
					      NULL), EINVAL);
			CHECK_ERR(twt_add_raw(fd, k, INT64_MAX, TWHEEL_ABSTIME,
					      bad[k], NULL), EINVAL);
			CHECK_ERR(twt_addp_raw(fd, k, TWT_S, TWT_S, 0, bad[k],
					       NULL), EINVAL);
		}
		CHECK_UNTOUCHED(fd, 0);
		/* The six are taken. */
		for (k = 0; k < TWT_NCLOCKS; k++)
			twt_add(fd, k, 3600 * TWT_S, 0, twt_clock(k));
		for (k = 0; k < NALARMS; k++)
			twt_add(fd, 10 + k, 3600 * TWT_S, 0, alarm_clocks[k]);
		CHECK_UNTOUCHED(fd, TWT_NCLOCKS + NALARMS);
		close(fd);
	}
}

/*
 * Version 1's clock numbers 0, 1, 2 are clockids now: 0 is
 * CLOCK_REALTIME, 1 is CLOCK_MONOTONIC, 2 (CLOCK_PROCESS_CPUTIME_ID) is
 * EINVAL. A record's clock and time say which clock a timer ran on.
 */
static void v1_clock_numbers(void)
{
	int fd = twt_open(O_NONBLOCK);
	int64_t tick = (int64_t)TWHEEL_DEFAULT_TICK_NS;
	unsigned int c, abs;

	printf("# realtime - monotonic: %.3f s\n",
	       (twt_now(CLOCK_REALTIME) - twt_mono()) / 1e9);
	for (c = 0; c < 2; c++)
		for (abs = 0; abs < 2; abs++) {
			struct twheel_event ev;
			int64_t t0, t1;
			uint64_t id;

			t0 = twt_now(c);
			id = twt_add(fd, c, 0, abs ? TWHEEL_ABSTIME : 0, c);
			t1 = twt_now(c);
			CHECK_EQ(read(fd, &ev, sizeof(ev)), sizeof(ev));
			CHECK_EQ(ev.id, id);
			CHECK_EQ(ev.clock, c);
			CHECK(ev.time_ns >= t0 - tick && ev.time_ns <= t1);
		}
	CHECK_ERR(twt_add_raw(fd, 2, 0, 0, 2, NULL), EINVAL);
	CHECK_ERR(twt_add_raw(fd, 2, 0, TWHEEL_ABSTIME, 2, NULL), EINVAL);
	CHECK_ERR(twt_add_raw(fd, 2, 3600 * TWT_S, 0, 2, NULL), EINVAL);
	CHECK_UNTOUCHED(fd, 0);
	close(fd);
}

/*
 * TWHEEL_CANCEL_ON_SET is taken only with TWHEEL_ABSTIME on
 * CLOCK_REALTIME, CLOCK_TAI or CLOCK_REALTIME_ALARM: on every other clock,
 * and relative on any clock, one-shot or periodic, ADD, MODIFY and a
 * batch's ADD and MODIFY fail with EINVAL and change nothing (the timer a
 * modify names keeps its deadline). Also on a manual fd, which takes any
 * of the six clocks. A timer added with it is a timer as any other.
 */
static void add_cancel_on_set(void)
{
	const uint32_t cos = TWHEEL_CANCEL_ON_SET;
	clockid_t all[TWT_NCLOCKS + NALARMS];
	int manual;
	unsigned int k;

	for (k = 0; k < TWT_NCLOCKS; k++)
		all[k] = twt_clock(k);
	for (k = 0; k < NALARMS; k++)
		all[TWT_NCLOCKS + k] = alarm_clocks[k];
	for (manual = 0; manual < 2; manual++) {
		int fd = manual ? twt_open_manual(O_NONBLOCK,
						  TWHEEL_DEFAULT_TICK_NS) :
				  twt_open(O_NONBLOCK);
		/*
		 * Far in the future on every clock (the manual one at 0), on
		 * the tick: a one-shot timer's deadline reads back as given.
		 */
		int64_t far = (twt_now(CLOCK_REALTIME) / TWT_S + 3600) * TWT_S;
		uint64_t ids[TWT_NCLOCKS + NALARMS], mono, wall;
		unsigned int n = 0;
		struct twheel_status st;
		struct twheel_op ops[3];
		uint32_t res;

		for (k = 0; k < TWT_NCLOCKS + NALARMS; k++) {
			clockid_t c = all[k];
			int wallc = c == CLOCK_REALTIME || c == CLOCK_TAI ||
				    c == CLOCK_REALTIME_ALARM;

			printf("# manual %d clock %d\n", manual, (int)c);
			CHECK_ERR(twt_add_raw(fd, k, TWT_S, cos, c, NULL),
				  EINVAL);
			CHECK_ERR(twt_add_raw(fd, k, 0, cos, c, NULL), EINVAL);
			CHECK_ERR(twt_addp_raw(fd, k, TWT_S, TWT_S, cos, c,
					       NULL), EINVAL);
			if (!wallc) {
				CHECK_ERR(twt_add_raw(fd, k, far,
						      TWHEEL_ABSTIME | cos, c,
						      NULL), EINVAL);
				CHECK_ERR(twt_addp_raw(fd, k, far, TWT_S,
						       TWHEEL_ABSTIME | cos,
						       c, NULL), EINVAL);
				continue;
			}
			CHECK_EQ(twt_add_raw(fd, 100 + k, far,
					     TWHEEL_ABSTIME | cos, c,
					     &ids[n]), 0);
			st = twt_query(fd, ids[n]);
			CHECK_EQ(st.state, TWHEEL_STATE_PENDING);
			CHECK_EQ(st.clock, (uint32_t)c);
			CHECK_EQ(st.cookie, 100 + k);
			n++;
			/* Periodic too. */
			CHECK_EQ(twt_addp_raw(fd, 200 + k, far, TWT_S,
					      TWHEEL_ABSTIME | cos, c,
					      &ids[n]), 0);
			CHECK_EQ(twt_cancel(fd, ids[n]),
				 TWHEEL_STATE_PENDING);
		}
		CHECK_EQ(n, 3);
		CHECK_UNTOUCHED_NOW(fd, 3);

		/* MODIFY: the flag by the timer's own clock. */
		mono = twt_add_abs(fd, 7, far, CLOCK_MONOTONIC);
		wall = twt_add_abs(fd, 8, far, CLOCK_REALTIME);
		CHECK_ERR(twt_modify_raw(fd, mono, 0, far + TWT_S, 0,
					 TWHEEL_ABSTIME | cos, NULL), EINVAL);
		CHECK_ERR(twt_modify_raw(fd, wall, 0, TWT_S, 0, cos, NULL),
			  EINVAL);
		CHECK_ERR(twt_modify_raw(fd, wall, 9, far + TWT_S, 0,
					 TWHEEL_ABSTIME | TWHEEL_SET_COOKIE |
					 cos | 0x20, NULL), EINVAL);
		st = twt_query(fd, mono);
		CHECK_EQ(st.deadline_ns, far);
		st = twt_query(fd, wall);
		CHECK_EQ(st.deadline_ns, far);
		CHECK_EQ(st.cookie, 8);
		CHECK_EQ(twt_modify_raw(fd, wall, 9, far + TWT_S, 0,
					TWHEEL_ABSTIME | TWHEEL_SET_COOKIE |
					cos, &res), 0);
		CHECK_EQ(res, TWHEEL_STATE_PENDING);
		st = twt_query(fd, wall);
		CHECK_EQ(st.deadline_ns, far + TWT_S);
		CHECK_EQ(st.cookie, 9);
		/* And taken away again. */
		CHECK_EQ(twt_modify_raw(fd, wall, 0, far, 0, TWHEEL_ABSTIME,
					&res), 0);

		/* A batch: each operation alone. */
		memset(ops, 0, sizeof(ops));
		ops[0].op = TWHEEL_OP_ADD;
		ops[0].flags = TWHEEL_ABSTIME | cos;
		ops[0].clock = CLOCK_BOOTTIME;
		ops[0].expires_ns = far;
		ops[1].op = TWHEEL_OP_ADD;
		ops[1].flags = TWHEEL_ABSTIME | cos;
		ops[1].clock = CLOCK_TAI;
		ops[1].expires_ns = far;
		ops[2].op = TWHEEL_OP_MODIFY;
		ops[2].flags = TWHEEL_ABSTIME | cos;
		ops[2].id = mono;
		ops[2].expires_ns = far;
		CHECK_EQ(twt_submit_raw(fd, ops, 3), 3);
		CHECK_EQ(ops[0].error, -EINVAL);
		CHECK_EQ(ops[0].id, 0);
		CHECK_EQ(ops[1].error, 0);
		CHECK(ops[1].id != 0);
		CHECK_EQ(ops[2].error, -EINVAL);
		CHECK_UNTOUCHED_NOW(fd, 6);
		close(fd);
	}
}

/*
 * Without CAP_WAKE_ALARM (an unprivileged user), adding a timer on an
 * alarm clock is EPERM, relative or absolute, one-shot or periodic, also
 * on a manual fd and in a batch; nothing is added. A bad argument is
 * EINVAL first (an unknown flag, TWHEEL_CANCEL_ON_SET relative). The
 * other clocks are the user's to use.
 */
static void add_alarm_unprivileged(void)
{
	pid_t pid = fork();
	int status;

	CHECK(pid >= 0);
	if (!pid) {
		int manual;
		unsigned int k;

		twt_become(NOBODY);
		for (manual = 0; manual < 2; manual++) {
			int fd = manual ?
				twt_open_manual(O_NONBLOCK,
						TWHEEL_DEFAULT_TICK_NS) :
				twt_open(O_NONBLOCK);
			int64_t far = twt_now(CLOCK_REALTIME) + 3600 * TWT_S;
			struct twheel_op op;

			for (k = 0; k < NALARMS; k++) {
				clockid_t c = alarm_clocks[k];

				CHECK_ERR(twt_add_raw(fd, k, TWT_S, 0, c,
						      NULL), EPERM);
				CHECK_ERR(twt_add_raw(fd, k, far,
						      TWHEEL_ABSTIME, c, NULL),
					  EPERM);
				CHECK_ERR(twt_addp_raw(fd, k, TWT_S, TWT_S, 0,
						       c, NULL), EPERM);
				CHECK_ERR(twt_add_raw(fd, k, TWT_S, 0x20, c,
						      NULL), EINVAL);
				CHECK_ERR(twt_add_raw(fd, k, TWT_S,
						      TWHEEL_CANCEL_ON_SET, c,
						      NULL), EINVAL);
				memset(&op, 0, sizeof(op));
				op.op = TWHEEL_OP_ADD;
				op.clock = c;
				op.expires_ns = TWT_S;
				CHECK_EQ(twt_submit_raw(fd, &op, 1), 1);
				CHECK_EQ(op.error, -EPERM);
				CHECK_EQ(op.id, 0);
			}
			CHECK_UNTOUCHED_NOW(fd, 0);
			for (k = 0; k < TWT_NCLOCKS; k++)
				twt_add(fd, k, 3600 * TWT_S, 0, twt_clock(k));
			CHECK_UNTOUCHED_NOW(fd, TWT_NCLOCKS);
			close(fd);
		}
		_exit(0);
	}
	CHECK_EQ(waitpid(pid, &status, 0), pid);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

/*
 * Relative CLOCK_REALTIME and CLOCK_TAI deadlines are taken (version 1
 * refused relative REALTIME): 0 is due at once; later ones are pending
 * on that clock, their deadline an absolute time of it; a huge one
 * saturates. (expiry.c checks that they follow the wall clock.)
 */
static void add_wall_relative(void)
{
	clockid_t clocks[] = { CLOCK_REALTIME, CLOCK_TAI };
	int fd = twt_open(O_NONBLOCK);
	int64_t tick = (int64_t)TWHEEL_DEFAULT_TICK_NS;
	unsigned int k;

	for (k = 0; k < 2; k++) {
		clockid_t c = clocks[k];
		struct twheel_status st;
		struct twheel_event ev;
		int64_t t0, t1;
		uint64_t id;

		t0 = twt_now(c);
		id = twt_add(fd, 10 + k, 0, 0, c);
		t1 = twt_now(c);
		CHECK_EQ(read(fd, &ev, sizeof(ev)), sizeof(ev));
		CHECK_EQ(ev.id, id);
		CHECK_EQ(ev.clock, c);
		CHECK(ev.time_ns >= t0 - tick && ev.time_ns <= t1);

		t0 = twt_now(c);
		id = twt_add(fd, 20 + k, 3600 * TWT_S, 0, c);
		t1 = twt_now(c);
		st = twt_query(fd, id);
		CHECK_EQ(st.clock, c);
		CHECK_EQ(st.state, TWHEEL_STATE_PENDING);
		CHECK(st.deadline_ns >= t0 + 3600 * TWT_S);
		CHECK(st.deadline_ns <= t1 + 3600 * TWT_S + tick);
		CHECK(st.remaining_ns > 3500 * TWT_S &&
		      st.remaining_ns <= 3600 * TWT_S + tick);

		id = twt_add(fd, 30 + k, INT64_MAX, 0, c);
		st = twt_query(fd, id);
		printf("# %s: relative INT64_MAX: deadline %lld\n",
		       twt_clockname(c), (long long)st.deadline_ns);
		CHECK(st.deadline_ns > t1 + 100LL * 365 * 24 * 3600 * TWT_S);
		CHECK_EQ(st.state, TWHEEL_STATE_PENDING);
	}
	CHECK_UNTOUCHED(fd, 4);
	close(fd);
}

static void add_negative_relative(void)
{
	int fd = twt_open(O_NONBLOCK);
	int64_t rel[] = { -1, -TWT_MS, -3600 * TWT_S, INT64_MIN, INT64_MIN + 1 };
	unsigned int k, c;

	for (c = 0; c < TWT_NCLOCKS; c++)
		for (k = 0; k < sizeof(rel) / sizeof(rel[0]); k++) {
			CHECK_ERR(twt_add_raw(fd, k, rel[k], 0, twt_clock(c),
					      NULL), EINVAL);
			CHECK_ERR(twt_addp_raw(fd, k, rel[k], TWT_S, 0,
					       twt_clock(c), NULL), EINVAL);
		}
	CHECK_UNTOUCHED(fd, 0);
	close(fd);
}

static void cancel_bad_flags(void)
{
	int fd = twt_open(O_NONBLOCK);
	uint64_t id = twt_add_rel(fd, 1, 3600 * TWT_S);
	uint64_t qid = twt_add_abs(fd, 2, 0, CLOCK_MONOTONIC);
	uint32_t bad[] = { 1, 2, 1U << 31, 0xFFFFFFFF };
	uint32_t result;
	unsigned int k;

	for (k = 0; k < sizeof(bad) / sizeof(bad[0]); k++) {
		CHECK_ERR(twt_cancel_raw(fd, id, bad[k], &result), EINVAL);
		CHECK_ERR(twt_cancel_raw(fd, qid, bad[k], &result), EINVAL);
	}
	CHECK_EQ(twt_timers(fd), 2);
	CHECK_EQ(twt_queued(fd), 1);
	CHECK_EQ(twt_cancel(fd, id), TWHEEL_STATE_PENDING);
	CHECK_EQ(twt_cancel(fd, qid), TWHEEL_STATE_QUEUED);
	CHECK_UNTOUCHED(fd, 0);
	close(fd);
}

/*
 * A read-only ADD: the kernel can read it but not write the id back. The
 * header: EFAULT, and nothing is changed: no timer is created (none ever
 * fires, also one that would be due at once or soon) and none cancelled.
 */
static void efault_readonly_add(void)
{
	int fd = twt_open(O_NONBLOCK);
	long pg = sysconf(_SC_PAGESIZE);
	uint64_t id = twt_add_rel(fd, 1, 3600 * TWT_S);
	uint64_t qid = twt_add_abs(fd, 2, 0, CLOCK_MONOTONIC);
	struct twheel_add *a;
	struct twheel_cancel *c;
	struct twheel_event ev;
	char *p;

	p = mmap(NULL, pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		 -1, 0);
	CHECK(p != MAP_FAILED);
	a = (struct twheel_add *)p;
	a->cookie = 100;
	a->expires_ns = 0;		/* due at once */
	a->flags = TWHEEL_ABSTIME;
	a->clock = CLOCK_MONOTONIC;
	a[1] = a[0];
	a[1].cookie = 101;
	a[1].expires_ns = 30 * TWT_MS;	/* pending, would fire soon */
	a[1].flags = 0;
	a[2] = a[1];
	a[2].cookie = 102;
	a[2].period_ns = 10 * TWT_MS;	/* periodic */
	a[2].clock = CLOCK_REALTIME;
	c = (struct twheel_cancel *)(p + 256);
	c[0].id = id;
	c[1].id = qid;
	CHECK_OK(mprotect(p, pg, PROT_READ));

	CHECK_ERR(ioctl(fd, TWHEEL_IOC_ADD, &a[0]), EFAULT);
	CHECK_ERR(ioctl(fd, TWHEEL_IOC_ADD, &a[1]), EFAULT);
	CHECK_ERR(ioctl(fd, TWHEEL_IOC_ADD, &a[2]), EFAULT);
	CHECK_ERR(ioctl(fd, TWHEEL_IOC_CANCEL, &c[0]), EFAULT);
	CHECK_ERR(ioctl(fd, TWHEEL_IOC_CANCEL, &c[1]), EFAULT);
	CHECK_ERR(ioctl(fd, TWHEEL_IOC_INFO, p), EFAULT);

	/* Still exactly the two timers from before, one queued. */
	CHECK_EQ(twt_timers(fd), 2);
	CHECK_EQ(twt_queued(fd), 1);
	twt_sleep_ms(100);		/* a[1] would have fired by now */
	CHECK_EQ(twt_timers(fd), 2);
	CHECK_EQ(twt_queued(fd), 1);
	CHECK_EQ(read(fd, &ev, sizeof(ev)), sizeof(ev));
	CHECK_EQ(ev.id, qid);
	CHECK_EQ(ev.cookie, 2);
	CHECK_EQ(twt_cancel(fd, id), TWHEEL_STATE_PENDING);
	CHECK_UNTOUCHED(fd, 0);
	close(fd);
}

/* TWHEEL_IOC_LIST's own checks: capacity, status_size, the array. */
static void list_bad_args(void)
{
	int fd = twt_open(O_NONBLOCK);
	struct twheel_status st[2];
	uint32_t sizes[] = { 0, 1, 40, 48, 55, 57, 64, 112, 0xFFFFFFFF };
	struct twheel_list l;
	unsigned int k;

	twt_add_rel(fd, 1, 3600 * TWT_S);
	memset(&l, 0, sizeof(l));
	l.statuses = (uint64_t)(uintptr_t)st;
	l.capacity = 0;
	l.status_size = sizeof(st[0]);
	CHECK_ERR(ioctl(fd, TWHEEL_IOC_LIST, &l), EINVAL);
	for (k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
		l.capacity = 2;
		l.status_size = sizes[k];
		CHECK_ERR(ioctl(fd, TWHEEL_IOC_LIST, &l), EINVAL);
	}
	/* An array that cannot be written: EFAULT. */
	l.status_size = sizeof(st[0]);
	l.statuses = 0;
	CHECK_ERR(ioctl(fd, TWHEEL_IOC_LIST, &l), EFAULT);
	l.statuses = (uint64_t)(uintptr_t)(twt_guard_map(4096) - 8);
	CHECK_ERR(ioctl(fd, TWHEEL_IOC_LIST, &l), EFAULT);
	/* And a good one. */
	l.statuses = (uint64_t)(uintptr_t)st;
	l.cursor = 0;
	CHECK_EQ(ioctl(fd, TWHEEL_IOC_LIST, &l), 0);
	CHECK(l.count <= 1);
	CHECK_UNTOUCHED(fd, 1);
	close(fd);
}

/*
 * TWHEEL_IOC_SUBMIT's own checks: op_size, nr (checked first), the ops
 * array. A bad struct twheel_submit does no operation.
 */
static void submit_bad_args(void)
{
	int fd = twt_open(O_NONBLOCK);
	static struct twheel_op ops[TWHEEL_MAX_BATCH + 1];
	uint32_t sizes[] = { 0, 1, 40, 64, 71, 73, 80, 144, 0xFFFFFFFF };
	uint32_t nrs[] = { TWHEEL_MAX_BATCH + 1, 2 * TWHEEL_MAX_BATCH,
			   0x80000000U, 0xFFFFFFFF };
	struct twheel_submit s;
	unsigned int k;

	for (k = 0; k <= TWHEEL_MAX_BATCH; k++) {
		ops[k].op = TWHEEL_OP_ADD;
		ops[k].cookie = k;
		ops[k].expires_ns = 3600 * TWT_S;
		ops[k].clock = CLOCK_MONOTONIC;
		ops[k].error = OP_JUNK;
	}
	memset(&s, 0, sizeof(s));
	s.ops = (uint64_t)(uintptr_t)ops;
	s.nr = 1;
	for (k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
		s.op_size = sizes[k];
		CHECK_ERR(ioctl(fd, TWHEEL_IOC_SUBMIT, &s), EINVAL);
	}
	s.op_size = sizeof(ops[0]);
	for (k = 0; k < sizeof(nrs) / sizeof(nrs[0]); k++) {
		s.nr = nrs[k];
		s.ops = (uint64_t)(uintptr_t)ops;
		CHECK_ERR(ioctl(fd, TWHEEL_IOC_SUBMIT, &s), EINVAL);
		/* nr is checked first: before the array and op_size. */
		s.ops = 0;
		CHECK_ERR(ioctl(fd, TWHEEL_IOC_SUBMIT, &s), EINVAL);
		s.op_size = 1;
		CHECK_ERR(ioctl(fd, TWHEEL_IOC_SUBMIT, &s), EINVAL);
		s.op_size = sizeof(ops[0]);
	}
	CHECK_EQ(ops[0].error, OP_JUNK);
	CHECK_EQ(ops[TWHEEL_MAX_BATCH].error, OP_JUNK);
	CHECK_UNTOUCHED(fd, 0);
	/* An empty batch does nothing, whatever the pointer. */
	s.nr = 0;
	s.ops = 0;
	CHECK_EQ(ioctl(fd, TWHEEL_IOC_SUBMIT, &s), 0);
	s.ops = (uint64_t)(uintptr_t)ops;
	CHECK_EQ(ioctl(fd, TWHEEL_IOC_SUBMIT, &s), 0);
	CHECK_EQ(ops[0].error, OP_JUNK);
	/* A first operation that cannot be read: -1, EFAULT. */
	s.nr = 1;
	s.ops = 0;
	CHECK_ERR(ioctl(fd, TWHEEL_IOC_SUBMIT, &s), EFAULT);
	s.ops = (uint64_t)(uintptr_t)(twt_guard_map(4096) - 8);
	CHECK_ERR(ioctl(fd, TWHEEL_IOC_SUBMIT, &s), EFAULT);
	CHECK_UNTOUCHED(fd, 0);
	close(fd);
}

/*
 * Inside a batch, an unknown operation, flags an operation does not take
 * and a non-zero __reserved fail that operation alone with -EINVAL (its
 * outputs 0); the batch goes on.
 */
static void submit_bad_ops(void)
{
	int fd = twt_open(O_NONBLOCK);
	uint64_t id = twt_add_rel(fd, 1, 3600 * TWT_S);
	struct {
		uint32_t op, flags, clock, rsv;
		int ok;
	} t[] = {
		{ TWHEEL_OP_ADD, 0, CLOCK_MONOTONIC, 0, 1 },
		{ 0, 0, CLOCK_MONOTONIC, 0, 0 },
		{ 5, 0, CLOCK_MONOTONIC, 0, 0 },
		{ 0xFFFFFFFF, 0, CLOCK_MONOTONIC, 0, 0 },
		{ TWHEEL_OP_ADD, TWHEEL_SET_COOKIE, CLOCK_MONOTONIC, 0, 0 },
		{ TWHEEL_OP_ADD, 4, CLOCK_MONOTONIC, 0, 0 },
		{ TWHEEL_OP_ADD, 0, CLOCK_MONOTONIC, 1, 0 },
		{ TWHEEL_OP_ADD, 0, CLOCK_PROCESS_CPUTIME_ID, 0, 0 },
		{ TWHEEL_OP_ADD, 0, 0xFFFFFFFF, 0, 0 },
		{ TWHEEL_OP_MODIFY, 4, 0, 0, 0 },
		{ TWHEEL_OP_MODIFY, 1U << 31, 0, 0, 0 },
		{ TWHEEL_OP_MODIFY, TWHEEL_SET_COOKIE, 0, 0x80000000U, 0 },
		{ TWHEEL_OP_CANCEL, TWHEEL_ABSTIME, 0, 0, 0 },
		{ TWHEEL_OP_CANCEL, 0, 0, 1, 0 },
		{ TWHEEL_OP_QUERY, TWHEEL_ABSTIME, 0, 0, 0 },
		{ TWHEEL_OP_QUERY, TWHEEL_SET_COOKIE, 0, 0, 0 },
		{ TWHEEL_OP_QUERY, 0, 0, 0xFFFFFFFF, 0 },
		{ TWHEEL_OP_QUERY, 0, 0, 0, 1 },
		{ TWHEEL_OP_ADD, 0, CLOCK_TAI, 0, 1 },
	};
	const unsigned int n = sizeof(t) / sizeof(t[0]);
	struct twheel_op ops[sizeof(t) / sizeof(t[0])];
	struct twheel_status st;
	unsigned int k, added = 0;

	memset(ops, 0, sizeof(ops));
	for (k = 0; k < n; k++) {
		ops[k].op = t[k].op;
		ops[k].flags = t[k].flags;
		ops[k].clock = t[k].clock;
		ops[k].__reserved = t[k].rsv;
		ops[k].cookie = 1000 + k;
		ops[k].expires_ns = 7200 * TWT_S;
		ops[k].error = OP_JUNK;
		ops[k].result = JUNK32;
		ops[k].count = JUNK64;
		ops[k].remaining_ns = (int64_t)JUNK64;
		if (t[k].op != TWHEEL_OP_ADD)
			ops[k].id = id;
	}
	CHECK_EQ(twt_submit_raw(fd, ops, n), n);
	for (k = 0; k < n; k++) {
		printf("# op %u (%u, flags %#x, reserved %#x): error %d\n", k,
		       t[k].op, t[k].flags, t[k].rsv, ops[k].error);
		CHECK_EQ(ops[k].op, t[k].op);
		CHECK_EQ(ops[k].flags, t[k].flags);
		CHECK_EQ(ops[k].__reserved, t[k].rsv);
		if (t[k].ok) {
			CHECK_EQ(ops[k].error, 0);
			added += t[k].op == TWHEEL_OP_ADD;
			continue;
		}
		CHECK_EQ(ops[k].error, -EINVAL);
		CHECK_EQ(ops[k].result, 0);
		CHECK_EQ(ops[k].count, 0);
		CHECK_EQ(ops[k].remaining_ns, 0);
		if (t[k].op == TWHEEL_OP_ADD)
			CHECK_EQ(ops[k].id, 0);
	}
	/* The QUERY that worked saw the timer as it was. */
	CHECK_EQ(ops[n - 2].result, TWHEEL_STATE_PENDING);
	CHECK_EQ(ops[n - 2].cookie, 1);
	st = twt_query(fd, id);
	CHECK_EQ(st.cookie, 1);
	CHECK(st.remaining_ns <= 3600 * TWT_S + TICK);
	CHECK_EQ(added, 2);
	CHECK_UNTOUCHED(fd, 1 + added);
	close(fd);
}

/* TWHEEL_IOC_CONFIG's tick range: 1 us .. 1 s, else EINVAL. */
static void config_bad_tick(void)
{
	int fd = twt_open(O_NONBLOCK);
	uint64_t bad[] = { 0, 1, TWHEEL_MIN_TICK_NS - 1,
			   TWHEEL_MAX_TICK_NS + 1, 2 * TWHEEL_MAX_TICK_NS,
			   1ULL << 63, UINT64_MAX };
	unsigned int k, f;

	for (k = 0; k < sizeof(bad) / sizeof(bad[0]); k++)
		for (f = 0; f < 2; f++) {
			CHECK_ERR(twt_config_raw(fd, bad[k],
						 f ? TWHEEL_CONFIG_MANUAL : 0),
				  EINVAL);
			CHECK_EQ(twt_info(fd).tick_ns, TWHEEL_DEFAULT_TICK_NS);
			CHECK_EQ(twt_info(fd).config_flags, 0);
		}
	twt_config(fd, TWHEEL_MIN_TICK_NS, 0);
	CHECK_EQ(twt_info(fd).tick_ns, TWHEEL_MIN_TICK_NS);
	twt_config(fd, TWHEEL_MAX_TICK_NS, 0);
	CHECK_EQ(twt_info(fd).tick_ns, TWHEEL_MAX_TICK_NS);
	CHECK_ERR(twt_config_raw(fd, 0, 0), EINVAL);
	CHECK_EQ(twt_info(fd).tick_ns, TWHEEL_MAX_TICK_NS);
	CHECK_UNTOUCHED(fd, 0);
	close(fd);
}

/* TWHEEL_IOC_ADVANCE on an fd without the manual clock: EINVAL. */
static void advance_not_manual(void)
{
	int fd = twt_open(O_NONBLOCK);
	uint64_t id = twt_add_rel(fd, 1, 3600 * TWT_S);
	uint64_t deltas[] = { 0, 1, 3600 * TWT_S, 7200 * TWT_S, UINT64_MAX };
	unsigned int k;
	int64_t now;

	for (k = 0; k < sizeof(deltas) / sizeof(deltas[0]); k++)
		CHECK_ERR(twt_advance_raw(fd, deltas[k], &now), EINVAL);
	CHECK_EQ(twt_query(fd, id).state, TWHEEL_STATE_PENDING);
	CHECK_UNTOUCHED(fd, 1);
	close(fd);
}

/* Timers on one fd are invisible to another. */
static void fds_independent(void)
{
	int a = twt_open(O_NONBLOCK), b = twt_open(O_NONBLOCK);
	uint64_t ida, idq;
	uint32_t r;

	ida = twt_add_rel(a, 1, 3600 * TWT_S);
	idq = twt_add_abs(a, 2, 0, CLOCK_MONOTONIC);
	CHECK_UNTOUCHED(b, 0);
	CHECK_ERR(twt_query_raw(b, ida, NULL), ENOENT);
	CHECK_ERR(twt_modify_raw(b, idq, 0, 0, 0, 0, &r), ENOENT);
	CHECK_EQ(twt_timers(a), 2);
	CHECK_EQ(twt_queued(a), 1);
	close(a);
	CHECK_UNTOUCHED(b, 0);
	close(b);
}

TWT_MAIN("abi",
	 TWT_CASE(layout),
	 TWT_CASE(info_fresh),
	 TWT_CASE(info_config),
	 TWT_CASE(info_v1_size),
	 TWT_CASE(info_counts),
	 TWT_CASE(info_writeback),
	 TWT_CASE(add_writeback),
	 TWT_CASE(cancel_writeback),
	 TWT_CASE(fdinfo),
	 TWT_CASE(unknown_ioctl),
	 TWT_CASE(wrong_direction),
	 TWT_CASE(bad_flags),
	 TWT_CASE(bad_reserved),
	 TWT_CASE(add_bad_flags),
	 TWT_CASE(add_bad_clock),
	 TWT_CASE(add_cancel_on_set),
	 TWT_CASE(add_alarm_unprivileged),
	 TWT_CASE(v1_clock_numbers),
	 TWT_CASE(add_wall_relative),
	 TWT_CASE(add_negative_relative),
	 TWT_CASE(cancel_bad_flags),
	 TWT_CASE(list_bad_args),
	 TWT_CASE(submit_bad_args),
	 TWT_CASE(submit_bad_ops),
	 TWT_CASE(config_bad_tick),
	 TWT_CASE(advance_not_manual),
	 TWT_CASE(efault_pointers),
	 TWT_CASE(efault_straddle),
	 TWT_CASE(efault_readonly),
	 TWT_CASE(efault_readonly_larger),
	 TWT_CASE(efault_readonly_add),
	 TWT_CASE(sizes_smaller),
	 TWT_CASE(add_v1_struct),
	 TWT_CASE_T(sizes_larger, 120),
	 TWT_CASE(fds_independent))
