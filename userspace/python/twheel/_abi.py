# SPDX-License-Identifier: LGPL-2.1-or-later
"""twheel._abi: the ABI of <linux/twheel.h>, mirrored.

Its constants (versions, tick limits, flags, features, the MISSED_*
policies, the shared table's entry encoding), the clock, state and
operation enums, TimerId, the struct layouts (_Layout: every struct's
fields, format and size) and the ioctl numbers; the durations (SEC, ...),
now() and the flags word of ADD and MODIFY. tests/python/test_host.py
compares every size, offset, constant and ioctl number here with what a
C compiler makes of uapi/linux/twheel.h. Re-exported by twheel.
"""

import enum
import struct
import time
from typing import Sequence

# ---- constants of <linux/twheel.h> ----

ABI_VERSION = 2
VERSION = "0.3"
DEFAULT_TICK_NS = 1_000_000
MIN_TICK_NS = 1_000
MAX_TICK_NS = 1_000_000_000
MAX_BATCH = 1024

ABSTIME = 0x1
SET_COOKIE = 0x2
# add/modify(cancel_on_set=True), with absolute=True on REALTIME, TAI or
# REALTIME_ALARM only (else EINVAL): a wall clock set ends the pending
# timer with a record whose flags are EVENT_CLOCK_SET and count 0.
CANCEL_ON_SET = 0x10
CONFIG_MANUAL = 0x1
CONFIG_MAX_TIMERS = 0x2
CONFIG_TABLE = 0x4       # config(table=True): the shared timer table
CONFIG_CLOCK_SET = 0x8   # config(clock_set=True): a record per clock set
CONFIG_RING = 0x10       # the record ring (not used by this binding)
# Event.flags: the record tells of a wall clock set (Event.clock_set).
EVENT_CLOCK_SET = 0x1

FEATURE_PERIODIC = 0x1
FEATURE_TIMENS = 0x2
FEATURE_MANUAL_CLOCK = 0x4
FEATURE_RELATIVE_WALL = 0x8
FEATURE_URING = 0x10     # io_uring commands (not used by this binding)
FEATURE_MISSED = 0x20    # the MISSED_* policies of periodic timers
FEATURE_FD_MAX_TIMERS = 0x40     # config(max_timers=)
FEATURE_TABLE = 0x80     # config(table=True), Wheel.table()
FEATURE_ALARM = 0x100    # Clock.REALTIME_ALARM, Clock.BOOTTIME_ALARM
FEATURE_CLOCK_SET = 0x200        # cancel_on_set=, config(clock_set=True)
FEATURE_RING = 0x400     # CONFIG_RING (not used by this binding)

# The record ring (TWHEEL_CONFIG_RING): its mmap offset, its records.
RING_OFFSET = 0x100_0000_0000
RING_ENTRIES = 128

# The shared timer table's entries (TWHEEL_TABLE_* of the header): entry
# table_index(id) belongs to timer id; table_deadline(id, tick) pushes a
# one-shot timer back to tick (only its low 32 bits are stored),
# table_cancelled(id) cancels it; bits 33-63 are the id's generation.
TABLE_CANCEL = 0x1_0000_0000


def table_index(id: int) -> int:
    """TWHEEL_TABLE_INDEX(id): the entry of timer @id."""
    return ((id & 0xFFFF_FFFF) - 1) & 0xFFFF_FFFF_FFFF_FFFF


def table_tag(id: int) -> int:
    """TWHEEL_TABLE_TAG(id): bits 32-63 of @id."""
    return id & 0xFFFF_FFFF_0000_0000


def table_deadline(id: int, tick: int) -> int:
    """TWHEEL_TABLE_DEADLINE(id, tick): timer @id's deadline is @tick."""
    return table_tag(id) | (tick & 0xFFFF_FFFF)


def table_cancelled(id: int) -> int:
    """TWHEEL_TABLE_CANCELLED(id): timer @id is cancelled."""
    return table_tag(id) | TABLE_CANCEL


# What a periodic timer does with missed deadlines (a flag of add and
# modify, with a period only): one record counting them all (COUNT, the
# default), one record each, at once (BURST), the next one period after
# the read (DELAY), or dropped (SKIP).
MISSED_MASK = 0xC
MISSED_COUNT = 0x0
MISSED_BURST = 0x4
MISSED_DELAY = 0x8
MISSED_SKIP = 0xC

# Durations in nanoseconds, for readable deadlines: 30 * twheel.SEC.
NSEC = 1
USEC = 1_000
MSEC = 1_000_000
SEC = 1_000_000_000
MIN = 60 * SEC


class Clock(enum.IntEnum):
    """The clocks a timer may run on: clockid_t values, as for timerfd.

    The alarm clocks read as REALTIME and BOOTTIME and wake the system
    from suspend; adding a timer on one needs CAP_WAKE_ALARM (EPERM)."""

    REALTIME = 0
    MONOTONIC = 1
    BOOTTIME = 7
    TAI = 11
    REALTIME_ALARM = 8
    BOOTTIME_ALARM = 9


class State(enum.IntEnum):
    """A timer's state; also what CANCEL and MODIFY report it was in."""

    PENDING = 1   #: its next expiry has not happened yet
    QUEUED = 2    #: it expired and its record is unread


class OpCode(enum.IntEnum):
    """struct twheel_op.op: the operations of a batch."""

    ADD = 1
    MODIFY = 2
    CANCEL = 3
    QUERY = 4


class TimerId(int):
    """A timer's id: never 0, unique in its fd, never reused while it is open.

    An int (it is the ABI's __u64), typed so that an id is not confused
    with a cookie or a time.
    """

    __slots__ = ()

    def __repr__(self) -> str:
        return f"TimerId({int(self)})"


def _clock(c: int) -> int:
    """A clockid as the kernel sees it: known ones as Clock, others as given
    (the kernel decides: EINVAL)."""
    try:
        return Clock(c)
    except ValueError:
        return c


def _state(s: int) -> int:
    try:
        return State(s)
    except ValueError:
        return s


# ---- struct layouts ----
#
# Every struct of the ABI is naturally aligned and has no padding, so the
# standard-size, native-order struct format ("=") is its exact layout.
# Each is a list of (field, format) in header order; the host tests compile
# offsetof() of every field against uapi/linux/twheel.h.

class _Layout:
    """One C struct of the ABI: its fields, format and size."""

    def __init__(self, cname: str, fields: Sequence[tuple], size: int):
        self.cname = cname
        self.fields = tuple(fields)
        self.names = tuple(f for f, _ in self.fields)
        self.struct = struct.Struct("=" + "".join(t for _, t in self.fields))
        self.size = self.struct.size
        # The header's documented size: a mismatch is a bug here.
        assert self.size == size, (cname, self.size, size)

    def offset(self, field: str) -> int:
        """The byte offset of @field, as offsetof() in C."""
        fmt = "="
        for name, t in self.fields:
            if name == field:
                return struct.calcsize(fmt)
            fmt += t
        raise KeyError(field)

    def pack(self, **values) -> bytearray:
        """A zeroed struct with @values set (unknown names: KeyError)."""
        for k in values:
            if k not in self.names:
                raise KeyError(f"{self.cname} has no field {k}")
        return bytearray(self.struct.pack(*(values.get(n, 0) for n in self.names)))

    def unpack(self, buf, offset: int = 0) -> dict:
        return dict(zip(self.names, self.struct.unpack_from(buf, offset)))


ADD = _Layout("twheel_add", [
    ("cookie", "Q"), ("expires_ns", "q"), ("period_ns", "Q"),
    ("flags", "I"), ("clock", "I"), ("id", "Q")], 40)
MODIFY = _Layout("twheel_modify", [
    ("id", "Q"), ("cookie", "Q"), ("expires_ns", "q"), ("period_ns", "Q"),
    ("flags", "I"), ("result", "I")], 40)
CANCEL = _Layout("twheel_cancel", [
    ("id", "Q"), ("flags", "I"), ("result", "I")], 16)
_STATUS_FIELDS = [
    ("id", "Q"), ("cookie", "Q"), ("deadline_ns", "q"), ("period_ns", "Q"),
    ("count", "Q"), ("remaining_ns", "q"), ("clock", "I"), ("state", "I")]
STATUS = _Layout("twheel_status", _STATUS_FIELDS, 56)
# struct twheel_query embeds struct twheel_status as its member "status";
# its fields here are status.id, status.cookie, ...
QUERY = _Layout("twheel_query", [
    ("id", "Q"), ("flags", "I"), ("__reserved", "I")] +
    [("status." + n, t) for n, t in _STATUS_FIELDS], 72)
LIST = _Layout("twheel_list", [
    ("statuses", "Q"), ("capacity", "I"), ("count", "I"), ("cursor", "Q"),
    ("status_size", "I"), ("flags", "I")], 32)
OP = _Layout("twheel_op", [
    ("op", "I"), ("flags", "I"), ("id", "Q"), ("cookie", "Q"),
    ("expires_ns", "q"), ("period_ns", "Q"), ("clock", "I"), ("error", "i"),
    ("result", "I"), ("__reserved", "I"), ("count", "Q"),
    ("remaining_ns", "q")], 72)
SUBMIT = _Layout("twheel_submit", [
    ("ops", "Q"), ("nr", "I"), ("op_size", "I"), ("flags", "I"),
    ("__reserved", "I")], 24)
CONFIG = _Layout("twheel_config", [
    ("tick_ns", "Q"), ("flags", "I"), ("__reserved", "I"),
    ("max_timers", "Q")], 24)
ADVANCE = _Layout("twheel_advance", [
    ("delta_ns", "Q"), ("flags", "I"), ("__reserved", "I"),
    ("now_ns", "q")], 24)
EVENT = _Layout("twheel_event", [
    ("id", "Q"), ("cookie", "Q"), ("time_ns", "q"), ("count", "Q"),
    ("clock", "I"), ("flags", "I")], 40)
INFO = _Layout("twheel_info", [
    ("version", "I"), ("event_size", "I"), ("tick_ns", "Q"),
    ("max_timers", "Q"), ("timers", "Q"), ("queued", "Q"),
    ("features", "Q"), ("ioctls", "Q"), ("clocks", "Q"),
    ("min_tick_ns", "Q"), ("max_tick_ns", "Q"), ("config_flags", "I"),
    ("op_size", "I"), ("status_size", "I"), ("max_batch", "I"),
    ("table_size", "Q"), ("cancelled", "Q")], 112)

LAYOUTS = (ADD, MODIFY, CANCEL, STATUS, QUERY, LIST, OP, SUBMIT, CONFIG,
           ADVANCE, EVENT, INFO)

# ---- ioctl numbers, as <asm-generic/ioctl.h> makes them ----

_IOC_NRBITS, _IOC_TYPEBITS, _IOC_SIZEBITS = 8, 8, 14
_IOC_NRSHIFT = 0
_IOC_TYPESHIFT = _IOC_NRSHIFT + _IOC_NRBITS
_IOC_SIZESHIFT = _IOC_TYPESHIFT + _IOC_TYPEBITS
_IOC_DIRSHIFT = _IOC_SIZESHIFT + _IOC_SIZEBITS
_IOC_NONE, _IOC_WRITE, _IOC_READ = 0, 1, 2


def _IOC(direction: int, typ: int, nr: int, size: int) -> int:
    assert 0 <= size < (1 << _IOC_SIZEBITS)
    return ((direction << _IOC_DIRSHIFT) | (typ << _IOC_TYPESHIFT) |
            (nr << _IOC_NRSHIFT) | (size << _IOC_SIZESHIFT))


def _IOR(typ, nr, layout):
    return _IOC(_IOC_READ, typ, nr, layout.size)


def _IOW(typ, nr, layout):
    return _IOC(_IOC_WRITE, typ, nr, layout.size)


def _IOWR(typ, nr, layout):
    return _IOC(_IOC_READ | _IOC_WRITE, typ, nr, layout.size)


IOC_TYPE = 0xBA
IOC_INFO = _IOR(IOC_TYPE, 0x00, INFO)
IOC_ADD = _IOWR(IOC_TYPE, 0x01, ADD)
IOC_CANCEL = _IOWR(IOC_TYPE, 0x02, CANCEL)
IOC_MODIFY = _IOWR(IOC_TYPE, 0x03, MODIFY)
IOC_QUERY = _IOWR(IOC_TYPE, 0x04, QUERY)
IOC_LIST = _IOWR(IOC_TYPE, 0x05, LIST)
IOC_SUBMIT = _IOW(IOC_TYPE, 0x06, SUBMIT)
IOC_CONFIG = _IOW(IOC_TYPE, 0x07, CONFIG)
IOC_ADVANCE = _IOWR(IOC_TYPE, 0x08, ADVANCE)


# ---- clocks and flags ----

def now(clock: int = Clock.MONOTONIC) -> int:
    """The present time of @clock in nanoseconds, for absolute deadlines.
    An alarm clock reads as REALTIME or BOOTTIME (as twheel reads it;
    clock_gettime() of the alarm clocks fails without a wake-up RTC)."""
    clock = {Clock.REALTIME_ALARM: Clock.REALTIME,
             Clock.BOOTTIME_ALARM: Clock.BOOTTIME}.get(clock, clock)
    return time.clock_gettime_ns(clock)


def _flags(absolute: bool, missed: int = MISSED_COUNT,
           cancel_on_set: bool = False) -> int:
    return ((ABSTIME if absolute else 0) | missed |
            (CANCEL_ON_SET if cancel_on_set else 0))
