// SPDX-License-Identifier: GPL-2.0
/*
 * abi: the uapi structs' layout (ABI version 2), at compile time: each
 * field's offset, natural alignment and signedness, each struct's size,
 * 8-byte alignment and no padding; the ioctl numbers and the header's
 * constants (flags, features, states, operations, the shared timer
 * table's macros, the record ring's offset and size, the clockids). The
 * case layout prints the sizes and checks that each command's size is its
 * struct's.
 *
 * The rest of the ABI: abi_info (TWHEEL_IOC_INFO, fdinfo), abi_size,
 * abi_cmd, abi_fault, abi_add and abi_args (the ioctls' arguments);
 * abi.h, abi_table.h: what they share.
 */
#include <stddef.h>

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
 * struct twheel_ring: 5 248 bytes, head and tail each in a 64-byte cache
 * line of its own, then TWHEEL_RING_ENTRIES records.
 */
FIELD(twheel_ring, head, 0);
FIELD(twheel_ring, tail, 64);
_Static_assert(offsetof(struct twheel_ring, __pad1) == 4 &&
	       offsetof(struct twheel_ring, __pad2) == 68 &&
	       offsetof(struct twheel_ring, events) == 128, "twheel_ring");
NOPAD(twheel_ring, 5248, 4 + 60 + 4 + 60 + 128 * 40);
UNSIGNED(twheel_ring, head);
UNSIGNED(twheel_ring, tail);
_Static_assert(TWHEEL_RING_ENTRIES == 128 &&
	       TWHEEL_RING_OFFSET == 0x10000000000ULL, "ring");

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
	       TWHEEL_CONFIG_TABLE == 4 && TWHEEL_CONFIG_CLOCK_SET == 8 &&
	       TWHEEL_CONFIG_RING == 0x10, "config flags");
_Static_assert(TWHEEL_FEATURE_PERIODIC == 1 && TWHEEL_FEATURE_TIMENS == 2 &&
	       TWHEEL_FEATURE_MANUAL_CLOCK == 4 &&
	       TWHEEL_FEATURE_RELATIVE_WALL == 8 &&
	       TWHEEL_FEATURE_URING == 16 && TWHEEL_FEATURE_MISSED == 32 &&
	       TWHEEL_FEATURE_FD_MAX_TIMERS == 64 &&
	       TWHEEL_FEATURE_TABLE == 128 && TWHEEL_FEATURE_ALARM == 0x100 &&
	       TWHEEL_FEATURE_CLOCK_SET == 0x200 &&
	       TWHEEL_FEATURE_RING == 0x400, "features");
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

TWT_MAIN("abi",
	 TWT_CASE(layout))
