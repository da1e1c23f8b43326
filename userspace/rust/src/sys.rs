// SPDX-License-Identifier: LGPL-2.1-or-later
//! The raw ABI of `/dev/twheel`, as `uapi/linux/twheel.h` declares it.
//!
//! Every struct here is `#[repr(C)]` with the C header's field names, and
//! its size and every field's offset are checked against the header's at
//! compile time (the `assert_layout!` blocks below: a wrong layout does not
//! build). The ioctl command numbers are computed the way the kernel's
//! `_IOR`/`_IOW`/`_IOWR` macros compute them, for the running
//! architecture. The header stays the reference for what each field means;
//! the doc comments here only summarise it.
//!
//! Most programs use the typed API at the crate's root instead. This
//! module is for what it does not cover: raw requests (a field the typed
//! API cannot express, e.g. an invalid clock in a test), or reading
//! [`twheel_status`] arrays from [`crate::Twheel::list_page`].
#![allow(non_camel_case_types)]

use std::io;
use std::os::raw::{c_int, c_ulong, c_void};
use std::os::unix::io::RawFd;

/// `TWHEEL_ABI_VERSION`: the ABI version this crate speaks, reported by
/// `TWHEEL_IOC_INFO` as `version`.
pub const TWHEEL_ABI_VERSION: u32 = 2;
/// `TWHEEL_VERSION`: the module version of this ABI.
pub const TWHEEL_VERSION: &str = "0.3";

/// `TWHEEL_DEFAULT_TICK_NS`: the tick of a new fd (1 ms).
pub const TWHEEL_DEFAULT_TICK_NS: u64 = 1_000_000;
/// `TWHEEL_MIN_TICK_NS`: the shortest tick `TWHEEL_IOC_CONFIG` accepts (1 us).
pub const TWHEEL_MIN_TICK_NS: u64 = 1_000;
/// `TWHEEL_MAX_TICK_NS`: the longest tick `TWHEEL_IOC_CONFIG` accepts (1 s).
pub const TWHEEL_MAX_TICK_NS: u64 = 1_000_000_000;

/// `TWHEEL_MAX_BATCH`: the most operations one `TWHEEL_IOC_SUBMIT` takes.
pub const TWHEEL_MAX_BATCH: u32 = 1024;

/// `TWHEEL_ABSTIME`: `expires_ns` is an absolute time on the timer's clock.
pub const TWHEEL_ABSTIME: u32 = 0x0000_0001;
/// `TWHEEL_SET_COOKIE` (modify only): replace the cookie.
pub const TWHEEL_SET_COOKIE: u32 = 0x0000_0002;
/// `TWHEEL_CANCEL_ON_SET` (add, modify; with `TWHEEL_ABSTIME` on
/// `CLOCK_REALTIME`, `CLOCK_TAI` or `CLOCK_REALTIME_ALARM` only, else
/// `EINVAL`): a wall clock set ends the pending timer with a record whose
/// flags are `TWHEEL_EVENT_CLOCK_SET`.
pub const TWHEEL_CANCEL_ON_SET: u32 = 0x0000_0010;

/// `TWHEEL_STATE_PENDING`: the timer's next expiry has not happened.
pub const TWHEEL_STATE_PENDING: u32 = 1;
/// `TWHEEL_STATE_QUEUED`: the timer expired and its record is unread.
pub const TWHEEL_STATE_QUEUED: u32 = 2;

/// `TWHEEL_OP_ADD`: a batch operation as `TWHEEL_IOC_ADD`.
pub const TWHEEL_OP_ADD: u32 = 1;
/// `TWHEEL_OP_MODIFY`: a batch operation as `TWHEEL_IOC_MODIFY`.
pub const TWHEEL_OP_MODIFY: u32 = 2;
/// `TWHEEL_OP_CANCEL`: a batch operation as `TWHEEL_IOC_CANCEL`.
pub const TWHEEL_OP_CANCEL: u32 = 3;
/// `TWHEEL_OP_QUERY`: a batch operation as `TWHEEL_IOC_QUERY`.
pub const TWHEEL_OP_QUERY: u32 = 4;

/// `TWHEEL_CONFIG_MANUAL`: the fd's clock is manual.
pub const TWHEEL_CONFIG_MANUAL: u32 = 0x0000_0001;
/// `TWHEEL_CONFIG_MAX_TIMERS`: `max_timers` is given.
pub const TWHEEL_CONFIG_MAX_TIMERS: u32 = 0x0000_0002;
/// `TWHEEL_CONFIG_TABLE`: the fd has a shared timer table (for mmap).
pub const TWHEEL_CONFIG_TABLE: u32 = 0x0000_0004;
/// `TWHEEL_CONFIG_CLOCK_SET`: a record (id 0) of each wall clock set.
pub const TWHEEL_CONFIG_CLOCK_SET: u32 = 0x0000_0008;
/// `TWHEEL_CONFIG_RING`: the fd has a record ring (for mmap at
/// [`TWHEEL_RING_OFFSET`]; not used by this crate).
pub const TWHEEL_CONFIG_RING: u32 = 0x0000_0010;

/// `TWHEEL_RING_OFFSET`: the mmap offset of the record ring.
pub const TWHEEL_RING_OFFSET: u64 = 0x100_0000_0000;
/// `TWHEEL_RING_ENTRIES`: the record ring's size in records.
pub const TWHEEL_RING_ENTRIES: u32 = 128;

/// `TWHEEL_EVENT_CLOCK_SET`: `struct twheel_event`'s flags of a record of
/// a wall clock set.
pub const TWHEEL_EVENT_CLOCK_SET: u32 = 0x0000_0001;

/// `TWHEEL_TABLE_CANCEL`: the cancel bit of a table entry.
pub const TWHEEL_TABLE_CANCEL: u64 = 0x0000_0001_0000_0000;

/// `TWHEEL_TABLE_INDEX(id)`: the table entry of timer `id`.
pub const fn twheel_table_index(id: u64) -> u64 {
    (id & 0xffff_ffff).wrapping_sub(1)
}

/// `TWHEEL_TABLE_TAG(id)`: bits 32 to 63 of `id`.
pub const fn twheel_table_tag(id: u64) -> u64 {
    id & 0xffff_ffff_0000_0000
}

/// `TWHEEL_TABLE_DEADLINE(id, tick)`: timer `id`'s deadline is `tick`
/// (its low 32 bits are stored).
pub const fn twheel_table_deadline(id: u64, tick: u64) -> u64 {
    twheel_table_tag(id) | (tick & 0xffff_ffff)
}

/// `TWHEEL_TABLE_CANCELLED(id)`: timer `id` is cancelled.
pub const fn twheel_table_cancelled(id: u64) -> u64 {
    twheel_table_tag(id) | TWHEEL_TABLE_CANCEL
}

/// `TWHEEL_FEATURE_PERIODIC`: periodic timers (`period_ns`).
pub const TWHEEL_FEATURE_PERIODIC: u64 = 0x1;
/// `TWHEEL_FEATURE_TIMENS`: times follow the opener's time namespace.
pub const TWHEEL_FEATURE_TIMENS: u64 = 0x2;
/// `TWHEEL_FEATURE_MANUAL_CLOCK`: `TWHEEL_CONFIG_MANUAL`.
pub const TWHEEL_FEATURE_MANUAL_CLOCK: u64 = 0x4;
/// `TWHEEL_FEATURE_RELATIVE_WALL`: relative `CLOCK_REALTIME`/`CLOCK_TAI` deadlines.
pub const TWHEEL_FEATURE_RELATIVE_WALL: u64 = 0x8;
/// `TWHEEL_FEATURE_URING`: commands as `IORING_OP_URING_CMD`
/// ([`twheel_uring_cmd`]) and reads through io_uring without a worker.
pub const TWHEEL_FEATURE_URING: u64 = 0x10;
/// `TWHEEL_FEATURE_MISSED`: the `TWHEEL_MISSED_*` policies of periodic timers.
pub const TWHEEL_FEATURE_MISSED: u64 = 0x20;
/// `TWHEEL_FEATURE_FD_MAX_TIMERS`: `struct twheel_config`'s `max_timers`.
pub const TWHEEL_FEATURE_FD_MAX_TIMERS: u64 = 0x40;
/// `TWHEEL_FEATURE_TABLE`: `TWHEEL_CONFIG_TABLE`, the shared timer table.
pub const TWHEEL_FEATURE_TABLE: u64 = 0x80;
/// `TWHEEL_FEATURE_ALARM`: `CLOCK_REALTIME_ALARM`, `CLOCK_BOOTTIME_ALARM`.
pub const TWHEEL_FEATURE_ALARM: u64 = 0x100;
/// `TWHEEL_FEATURE_CLOCK_SET`: `TWHEEL_CANCEL_ON_SET`, `TWHEEL_CONFIG_CLOCK_SET`.
pub const TWHEEL_FEATURE_CLOCK_SET: u64 = 0x200;
/// `TWHEEL_FEATURE_RING`: `TWHEEL_CONFIG_RING`, the record ring.
pub const TWHEEL_FEATURE_RING: u64 = 0x400;
/// `TWHEEL_MISSED_MASK`: the bits of a periodic timer's missed-deadline policy.
pub const TWHEEL_MISSED_MASK: u32 = 0xC;
/// `TWHEEL_MISSED_COUNT`: one record counting every missed deadline (default).
pub const TWHEEL_MISSED_COUNT: u32 = 0x0;
/// `TWHEEL_MISSED_BURST`: one record per deadline, the missed ones at once.
pub const TWHEEL_MISSED_BURST: u32 = 0x4;
/// `TWHEEL_MISSED_DELAY`: the next deadline one period after the read.
pub const TWHEEL_MISSED_DELAY: u32 = 0x8;
/// `TWHEEL_MISSED_SKIP`: missed deadlines dropped; count 1.
pub const TWHEEL_MISSED_SKIP: u32 = 0xC;

/// The `clockid_t` values of `<time.h>` that twheel takes.
pub const CLOCK_REALTIME: u32 = 0;
/// `CLOCK_MONOTONIC`.
pub const CLOCK_MONOTONIC: u32 = 1;
/// `CLOCK_BOOTTIME`.
pub const CLOCK_BOOTTIME: u32 = 7;
/// `CLOCK_REALTIME_ALARM` (needs `CAP_WAKE_ALARM`).
pub const CLOCK_REALTIME_ALARM: u32 = 8;
/// `CLOCK_BOOTTIME_ALARM` (needs `CAP_WAKE_ALARM`).
pub const CLOCK_BOOTTIME_ALARM: u32 = 9;
/// `CLOCK_TAI`.
pub const CLOCK_TAI: u32 = 11;

/// `struct twheel_add`: argument of `TWHEEL_IOC_ADD`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct twheel_add {
    /// in: any value, returned in the timer's records
    pub cookie: u64,
    /// in: the first deadline, from now (>= 0) or absolute (`TWHEEL_ABSTIME`)
    pub expires_ns: i64,
    /// in: 0 for a one-shot timer, else its period
    pub period_ns: u64,
    /// in: `TWHEEL_ABSTIME` or 0
    pub flags: u32,
    /// in: a clockid
    pub clock: u32,
    /// out: the new timer's id
    pub id: u64,
}

/// `struct twheel_modify`: argument of `TWHEEL_IOC_MODIFY`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct twheel_modify {
    /// in: the timer's id
    pub id: u64,
    /// in: the new cookie, with `TWHEEL_SET_COOKIE`
    pub cookie: u64,
    /// in: the new next deadline
    pub expires_ns: i64,
    /// in: the new period (0: one-shot)
    pub period_ns: u64,
    /// in: `TWHEEL_ABSTIME`, `TWHEEL_SET_COOKIE`
    pub flags: u32,
    /// out: the state the timer was in
    pub result: u32,
}

/// `struct twheel_cancel`: argument of `TWHEEL_IOC_CANCEL`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct twheel_cancel {
    /// in: the timer's id
    pub id: u64,
    /// in: must be 0
    pub flags: u32,
    /// out: the state the timer was in
    pub result: u32,
}

/// `struct twheel_status`: one timer, as `TWHEEL_IOC_QUERY` and
/// `TWHEEL_IOC_LIST` report it.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct twheel_status {
    /// the timer's id
    pub id: u64,
    /// its cookie
    pub cookie: u64,
    /// the absolute time of its next expiry not yet counted; 0: none
    pub deadline_ns: i64,
    /// its period in effect (0: one-shot)
    pub period_ns: u64,
    /// the expiries its queued record stands for; 0 while pending
    pub count: u64,
    /// `deadline_ns` minus the clock's present time, at least 0
    pub remaining_ns: i64,
    /// its clockid
    pub clock: u32,
    /// `TWHEEL_STATE_PENDING` or `TWHEEL_STATE_QUEUED`
    pub state: u32,
}

/// `struct twheel_query`: argument of `TWHEEL_IOC_QUERY`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct twheel_query {
    /// in: the timer's id
    pub id: u64,
    /// in: must be 0
    pub flags: u32,
    /// in: must be 0
    pub __reserved: u32,
    /// out: the timer's status
    pub status: twheel_status,
}

/// `struct twheel_list`: argument of `TWHEEL_IOC_LIST`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct twheel_list {
    /// in: user pointer to `capacity` `struct twheel_status`
    pub statuses: u64,
    /// in: the array's length, at least 1
    pub capacity: u32,
    /// out: the entries written
    pub count: u32,
    /// in/out: 0 to start; where the listing goes on; 0 when complete
    pub cursor: u64,
    /// in: `size_of::<twheel_status>()`
    pub status_size: u32,
    /// in: must be 0
    pub flags: u32,
}

/// `struct twheel_op`: one operation of a `TWHEEL_IOC_SUBMIT` batch.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct twheel_op {
    /// in: `TWHEEL_OP_*`
    pub op: u32,
    /// in: the flags of that operation's struct
    pub flags: u32,
    /// in: the timer (MODIFY, CANCEL, QUERY); out: ADD's new id
    pub id: u64,
    /// in: ADD, MODIFY with `TWHEEL_SET_COOKIE`; out: QUERY
    pub cookie: u64,
    /// in: ADD, MODIFY; out: QUERY's `deadline_ns`
    pub expires_ns: i64,
    /// in: ADD, MODIFY; out: QUERY
    pub period_ns: u64,
    /// in: ADD; out: QUERY
    pub clock: u32,
    /// out: 0, or the negative errno the single ioctl would have failed with
    pub error: i32,
    /// out: MODIFY, CANCEL: the state the timer was in; QUERY: its state
    pub result: u32,
    /// in: must be 0
    pub __reserved: u32,
    /// out: QUERY
    pub count: u64,
    /// out: QUERY
    pub remaining_ns: i64,
}

/// `struct twheel_submit`: argument of `TWHEEL_IOC_SUBMIT`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct twheel_submit {
    /// in: user pointer to `nr` `struct twheel_op`
    pub ops: u64,
    /// in: 0 to `TWHEEL_MAX_BATCH`
    pub nr: u32,
    /// in: `size_of::<twheel_op>()`
    pub op_size: u32,
    /// in: must be 0
    pub flags: u32,
    /// in: must be 0
    pub __reserved: u32,
}

/// `struct twheel_uring_cmd`: the command area of an `IORING_OP_URING_CMD`
/// SQE whose `cmd_op` is a `TWHEEL_IOC_*` command.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct twheel_uring_cmd {
    /// in: the argument's address, as `ioctl(2)`'s third argument
    pub arg: u64,
    /// in: must be 0
    pub __reserved: u64,
}

/// `struct twheel_config`: argument of `TWHEEL_IOC_CONFIG`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct twheel_config {
    /// in: the fd's tick, `TWHEEL_MIN_TICK_NS` to `TWHEEL_MAX_TICK_NS`
    pub tick_ns: u64,
    /// in: `TWHEEL_CONFIG_MANUAL`, `_MAX_TIMERS`, `_TABLE`, `_CLOCK_SET`
    pub flags: u32,
    /// in: must be 0
    pub __reserved: u32,
    /// in: the most timers the fd may hold; 0: what it was opened with
    pub max_timers: u64,
}

/// `struct twheel_advance`: argument of `TWHEEL_IOC_ADVANCE`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct twheel_advance {
    /// in: how far forward, in nanoseconds
    pub delta_ns: u64,
    /// in: must be 0
    pub flags: u32,
    /// in: must be 0
    pub __reserved: u32,
    /// out: the manual clock's time afterwards
    pub now_ns: i64,
}

/// `struct twheel_event`: one expiry record, as read(2) returns it.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct twheel_event {
    /// the timer's id
    pub id: u64,
    /// the timer's cookie
    pub cookie: u64,
    /// the time on the timer's clock at which the record was queued
    pub time_ns: i64,
    /// the expiries this record stands for (at least 1)
    pub count: u64,
    /// the timer's clockid
    pub clock: u32,
    /// 0 (reserved for future record kinds)
    pub flags: u32,
}

/// `struct twheel_info`: argument of `TWHEEL_IOC_INFO`, the handshake.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct twheel_info {
    /// `TWHEEL_ABI_VERSION` of the running module
    pub version: u32,
    /// `sizeof(struct twheel_event)` of the running module
    pub event_size: u32,
    /// the fd's tick
    pub tick_ns: u64,
    /// the most timers the fd may hold
    pub max_timers: u64,
    /// the timers it holds
    pub timers: u64,
    /// the records queued and unread
    pub queued: u64,
    /// `TWHEEL_FEATURE_*` bits
    pub features: u64,
    /// bit `_IOC_NR(cmd)` for each known `TWHEEL_IOC_*`
    pub ioctls: u64,
    /// bit `1 << clockid` for each clock taken
    pub clocks: u64,
    /// `TWHEEL_MIN_TICK_NS`
    pub min_tick_ns: u64,
    /// `TWHEEL_MAX_TICK_NS`
    pub max_tick_ns: u64,
    /// the fd's `TWHEEL_CONFIG_*` flags
    pub config_flags: u32,
    /// `sizeof(struct twheel_op)`
    pub op_size: u32,
    /// `sizeof(struct twheel_status)`
    pub status_size: u32,
    /// `TWHEEL_MAX_BATCH`
    pub max_batch: u32,
    /// the size in bytes of the fd's shared timer table, 0 when none
    pub table_size: u64,
    /// the timers whose table entry holds `TWHEEL_TABLE_CANCELLED`
    pub cancelled: u64,
}

/// Checks a struct's layout at compile time: its size, its alignment,
/// that its fields cover it without padding, and each field's offset.
///
/// Each field is filled with copies of one byte (its expected offset plus
/// one), the whole struct is transmuted to bytes, and every byte of the
/// field's expected range must hold that value. Fields in another order
/// or of another size put a different byte there and stop the build. No
/// `offset_of!` (Rust 1.77), so that Debian 12's rustc 1.63 builds it.
macro_rules! assert_layout {
    ($t:ident, $size:expr, { $($f:ident : $ft:ty = $off:expr),+ $(,)? }) => {
        const _: () = {
            use std::mem::{align_of, size_of, transmute};
            assert!(size_of::<$t>() == $size, concat!("size of ", stringify!($t)));
            assert!(align_of::<$t>() == 8, concat!("alignment of ", stringify!($t)));
            assert!(0 $(+ size_of::<$ft>())+ == $size,
                    concat!("padding or a missing field in ", stringify!($t)));
            // SAFETY: plain integer structs, every bit pattern valid; the
            // sizes match (checked by transmute itself). (Newer rustc
            // suggests from_ne_bytes for integers, which a nested struct
            // has not.)
            #[allow(unknown_lints, unnecessary_transmutes)]
            let v = $t {
                $($f: unsafe {
                    transmute::<[u8; size_of::<$ft>()], $ft>([($off + 1) as u8; size_of::<$ft>()])
                }),+
            };
            // SAFETY: no padding (asserted above): every byte is initialised.
            let b = unsafe { transmute::<$t, [u8; $size]>(v) };
            $({
                let mut i = 0;
                while i < size_of::<$ft>() {
                    assert!(b[$off + i] == ($off + 1) as u8,
                            concat!("offset of ", stringify!($t), ".", stringify!($f)));
                    i += 1;
                }
            })+
        };
    };
}

assert_layout!(twheel_add, 40, {
    cookie: u64 = 0, expires_ns: i64 = 8, period_ns: u64 = 16,
    flags: u32 = 24, clock: u32 = 28, id: u64 = 32,
});
assert_layout!(twheel_modify, 40, {
    id: u64 = 0, cookie: u64 = 8, expires_ns: i64 = 16, period_ns: u64 = 24,
    flags: u32 = 32, result: u32 = 36,
});
assert_layout!(twheel_cancel, 16, { id: u64 = 0, flags: u32 = 8, result: u32 = 12 });
assert_layout!(twheel_status, 56, {
    id: u64 = 0, cookie: u64 = 8, deadline_ns: i64 = 16, period_ns: u64 = 24,
    count: u64 = 32, remaining_ns: i64 = 40, clock: u32 = 48, state: u32 = 52,
});
assert_layout!(twheel_query, 72, {
    id: u64 = 0, flags: u32 = 8, __reserved: u32 = 12, status: twheel_status = 16,
});
assert_layout!(twheel_list, 32, {
    statuses: u64 = 0, capacity: u32 = 8, count: u32 = 12, cursor: u64 = 16,
    status_size: u32 = 24, flags: u32 = 28,
});
assert_layout!(twheel_op, 72, {
    op: u32 = 0, flags: u32 = 4, id: u64 = 8, cookie: u64 = 16, expires_ns: i64 = 24,
    period_ns: u64 = 32, clock: u32 = 40, error: i32 = 44, result: u32 = 48,
    __reserved: u32 = 52, count: u64 = 56, remaining_ns: i64 = 64,
});
assert_layout!(twheel_submit, 24, {
    ops: u64 = 0, nr: u32 = 8, op_size: u32 = 12, flags: u32 = 16, __reserved: u32 = 20,
});
assert_layout!(twheel_config, 24, { tick_ns: u64 = 0, flags: u32 = 8, __reserved: u32 = 12, max_timers: u64 = 16 });
assert_layout!(twheel_uring_cmd, 16, { arg: u64 = 0, __reserved: u64 = 8 });
assert_layout!(twheel_advance, 24, {
    delta_ns: u64 = 0, flags: u32 = 8, __reserved: u32 = 12, now_ns: i64 = 16,
});
assert_layout!(twheel_event, 40, {
    id: u64 = 0, cookie: u64 = 8, time_ns: i64 = 16, count: u64 = 24,
    clock: u32 = 32, flags: u32 = 36,
});
assert_layout!(twheel_info, 112, {
    version: u32 = 0, event_size: u32 = 4, tick_ns: u64 = 8, max_timers: u64 = 16,
    timers: u64 = 24, queued: u64 = 32, features: u64 = 40, ioctls: u64 = 48,
    clocks: u64 = 56, min_tick_ns: u64 = 64, max_tick_ns: u64 = 72,
    config_flags: u32 = 80, op_size: u32 = 84, status_size: u32 = 88, max_batch: u32 = 92,
    table_size: u64 = 96, cancelled: u64 = 104,
});

/// The kernel's ioctl number encoding (`_IOC`), per architecture.
///
/// Most architectures use `include/uapi/asm-generic/ioctl.h` (14 size
/// bits, `_IOC_WRITE` 1, `_IOC_READ` 2); mips, powerpc and sparc have 13
/// size bits and `_IOC_READ` 2, `_IOC_WRITE` 4.
pub mod ioc {
    /// Bits of the command's number (`_IOC_NRBITS`).
    pub const NRBITS: u32 = 8;
    /// Bits of the command's type (`_IOC_TYPEBITS`).
    pub const TYPEBITS: u32 = 8;
    #[cfg(any(
        target_arch = "mips",
        target_arch = "mips64",
        target_arch = "powerpc",
        target_arch = "powerpc64",
        target_arch = "sparc",
        target_arch = "sparc64"
    ))]
    mod arch {
        pub const SIZEBITS: u32 = 13;
        pub const WRITE: u32 = 4;
        pub const READ: u32 = 2;
    }
    #[cfg(not(any(
        target_arch = "mips",
        target_arch = "mips64",
        target_arch = "powerpc",
        target_arch = "powerpc64",
        target_arch = "sparc",
        target_arch = "sparc64"
    )))]
    mod arch {
        pub const SIZEBITS: u32 = 14;
        pub const WRITE: u32 = 1;
        pub const READ: u32 = 2;
    }
    /// Bits of the argument's size (`_IOC_SIZEBITS`).
    pub const SIZEBITS: u32 = arch::SIZEBITS;
    /// `_IOC_WRITE`: user space writes the argument (the kernel reads it).
    pub const WRITE: u32 = arch::WRITE;
    /// `_IOC_READ`: user space reads the argument (the kernel writes it).
    pub const READ: u32 = arch::READ;
    /// `_IOC_NRSHIFT`.
    pub const NRSHIFT: u32 = 0;
    /// `_IOC_TYPESHIFT`.
    pub const TYPESHIFT: u32 = NRSHIFT + NRBITS;
    /// `_IOC_SIZESHIFT`.
    pub const SIZESHIFT: u32 = TYPESHIFT + TYPEBITS;
    /// `_IOC_DIRSHIFT`.
    pub const DIRSHIFT: u32 = SIZESHIFT + SIZEBITS;

    /// `_IOC(dir, type, nr, size)`. A size that does not fit the size
    /// field fails the build where the result is a constant.
    pub const fn ioc(dir: u32, ty: u32, nr: u32, size: usize) -> u32 {
        assert!(size < (1 << SIZEBITS), "ioctl argument too large");
        assert!(ty < (1 << TYPEBITS) && nr < (1 << NRBITS));
        (dir << DIRSHIFT) | ((size as u32) << SIZESHIFT) | (ty << TYPESHIFT) | (nr << NRSHIFT)
    }
    /// `_IOR(type, nr, T)` with `size` = `sizeof(T)`.
    pub const fn ior(ty: u32, nr: u32, size: usize) -> u32 {
        ioc(READ, ty, nr, size)
    }
    /// `_IOW(type, nr, T)` with `size` = `sizeof(T)`.
    pub const fn iow(ty: u32, nr: u32, size: usize) -> u32 {
        ioc(WRITE, ty, nr, size)
    }
    /// `_IOWR(type, nr, T)` with `size` = `sizeof(T)`.
    pub const fn iowr(ty: u32, nr: u32, size: usize) -> u32 {
        ioc(READ | WRITE, ty, nr, size)
    }
    /// `_IOC_NR(cmd)`: the command's number.
    pub const fn nr(cmd: u32) -> u32 {
        (cmd >> NRSHIFT) & ((1 << NRBITS) - 1)
    }
    /// `_IOC_SIZE(cmd)`: the argument's size.
    pub const fn size(cmd: u32) -> u32 {
        (cmd >> SIZESHIFT) & ((1 << SIZEBITS) - 1)
    }
}

use std::mem::size_of;

/// `TWHEEL_IOC_TYPE`: the ioctl type of every twheel command.
pub const TWHEEL_IOC_TYPE: u32 = 0xBA;
/// `TWHEEL_IOC_INFO`: `_IOR(0xBA, 0x00, struct twheel_info)`.
pub const TWHEEL_IOC_INFO: u32 = ioc::ior(TWHEEL_IOC_TYPE, 0x00, size_of::<twheel_info>());
/// `TWHEEL_IOC_ADD`: `_IOWR(0xBA, 0x01, struct twheel_add)`.
pub const TWHEEL_IOC_ADD: u32 = ioc::iowr(TWHEEL_IOC_TYPE, 0x01, size_of::<twheel_add>());
/// `TWHEEL_IOC_CANCEL`: `_IOWR(0xBA, 0x02, struct twheel_cancel)`.
pub const TWHEEL_IOC_CANCEL: u32 = ioc::iowr(TWHEEL_IOC_TYPE, 0x02, size_of::<twheel_cancel>());
/// `TWHEEL_IOC_MODIFY`: `_IOWR(0xBA, 0x03, struct twheel_modify)`.
pub const TWHEEL_IOC_MODIFY: u32 = ioc::iowr(TWHEEL_IOC_TYPE, 0x03, size_of::<twheel_modify>());
/// `TWHEEL_IOC_QUERY`: `_IOWR(0xBA, 0x04, struct twheel_query)`.
pub const TWHEEL_IOC_QUERY: u32 = ioc::iowr(TWHEEL_IOC_TYPE, 0x04, size_of::<twheel_query>());
/// `TWHEEL_IOC_LIST`: `_IOWR(0xBA, 0x05, struct twheel_list)`.
pub const TWHEEL_IOC_LIST: u32 = ioc::iowr(TWHEEL_IOC_TYPE, 0x05, size_of::<twheel_list>());
/// `TWHEEL_IOC_SUBMIT`: `_IOW(0xBA, 0x06, struct twheel_submit)`.
pub const TWHEEL_IOC_SUBMIT: u32 = ioc::iow(TWHEEL_IOC_TYPE, 0x06, size_of::<twheel_submit>());
/// `TWHEEL_IOC_CONFIG`: `_IOW(0xBA, 0x07, struct twheel_config)`.
pub const TWHEEL_IOC_CONFIG: u32 = ioc::iow(TWHEEL_IOC_TYPE, 0x07, size_of::<twheel_config>());
/// `TWHEEL_IOC_ADVANCE`: `_IOWR(0xBA, 0x08, struct twheel_advance)`.
pub const TWHEEL_IOC_ADVANCE: u32 = ioc::iowr(TWHEEL_IOC_TYPE, 0x08, size_of::<twheel_advance>());

/// The C library's `ioctl` request type: `unsigned long` in glibc, `int`
/// in musl.
#[cfg(not(target_env = "musl"))]
type Request = c_ulong;
#[cfg(target_env = "musl")]
type Request = c_int;

extern "C" {
    #[link_name = "ioctl"]
    fn libc_ioctl(fd: c_int, request: Request, ...) -> c_int;
}

/// `ioctl(fd, cmd, arg)`: the call's non-negative return value, or the
/// `errno` it failed with as an [`io::Error`] (`raw_os_error()` gives it).
///
/// # Safety
///
/// `arg` must point to memory valid for reads and writes of
/// `ioc::size(cmd)` bytes, laid out as the command's struct, and any user
/// pointer inside it (`twheel_submit.ops`, `twheel_list.statuses`) must
/// point to as many valid elements as it says, for the whole call.
pub unsafe fn ioctl(fd: RawFd, cmd: u32, arg: *mut c_void) -> io::Result<c_int> {
    let ret = libc_ioctl(fd, cmd as Request, arg);
    if ret < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(ret)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // The values of the C header's macros, from `gcc -Iuapi` on x86-64
    // (tests/header.rs checks them against the header again, on any
    // architecture, when a C compiler is present).
    #[cfg(any(target_arch = "x86_64", target_arch = "aarch64", target_arch = "x86"))]
    #[test]
    fn ioctl_numbers_match_the_c_header() {
        assert_eq!(TWHEEL_IOC_INFO, 0x8070_ba00);
        assert_eq!(TWHEEL_IOC_ADD, 0xc028_ba01);
        assert_eq!(TWHEEL_IOC_CANCEL, 0xc010_ba02);
        assert_eq!(TWHEEL_IOC_MODIFY, 0xc028_ba03);
        assert_eq!(TWHEEL_IOC_QUERY, 0xc048_ba04);
        assert_eq!(TWHEEL_IOC_LIST, 0xc020_ba05);
        assert_eq!(TWHEEL_IOC_SUBMIT, 0x4018_ba06);
        assert_eq!(TWHEEL_IOC_CONFIG, 0x4018_ba07);
        assert_eq!(TWHEEL_IOC_ADVANCE, 0xc018_ba08);
    }

    #[test]
    fn ioc_fields_decode() {
        let cmds = [
            (TWHEEL_IOC_INFO, 0, 112),
            (TWHEEL_IOC_ADD, 1, 40),
            (TWHEEL_IOC_CANCEL, 2, 16),
            (TWHEEL_IOC_MODIFY, 3, 40),
            (TWHEEL_IOC_QUERY, 4, 72),
            (TWHEEL_IOC_LIST, 5, 32),
            (TWHEEL_IOC_SUBMIT, 6, 24),
            (TWHEEL_IOC_CONFIG, 7, 24),
            (TWHEEL_IOC_ADVANCE, 8, 24),
        ];
        for &(cmd, nr, size) in cmds.iter() {
            assert_eq!(ioc::nr(cmd), nr, "nr of {:#x}", cmd);
            assert_eq!(ioc::size(cmd), size, "size of {:#x}", cmd);
            assert_eq!((cmd >> ioc::TYPESHIFT) & 0xff, TWHEEL_IOC_TYPE);
        }
        // Direction: INFO is read-only, SUBMIT and CONFIG write-only.
        assert_eq!(TWHEEL_IOC_INFO >> ioc::DIRSHIFT, ioc::READ);
        assert_eq!(TWHEEL_IOC_SUBMIT >> ioc::DIRSHIFT, ioc::WRITE);
        assert_eq!(TWHEEL_IOC_CONFIG >> ioc::DIRSHIFT, ioc::WRITE);
        assert_eq!(TWHEEL_IOC_ADD >> ioc::DIRSHIFT, ioc::READ | ioc::WRITE);
    }

    #[test]
    fn sizes_as_the_module_reports_them() {
        // TWHEEL_IOC_INFO's event_size, op_size and status_size, and the
        // sizes TWHEEL_IOC_SUBMIT and TWHEEL_IOC_LIST demand.
        assert_eq!(size_of::<twheel_event>(), 40);
        assert_eq!(size_of::<twheel_op>(), 72);
        assert_eq!(size_of::<twheel_status>(), 56);
    }

    #[test]
    fn ioctl_on_a_non_twheel_fd_gives_enotty() {
        use std::os::unix::io::AsRawFd;
        let f = std::fs::File::open("/dev/null").unwrap();
        let mut info = twheel_info::default();
        let err = unsafe {
            ioctl(
                f.as_raw_fd(),
                TWHEEL_IOC_INFO,
                &mut info as *mut _ as *mut c_void,
            )
        }
        .unwrap_err();
        assert_eq!(err.raw_os_error(), Some(25)); // ENOTTY
    }
}
