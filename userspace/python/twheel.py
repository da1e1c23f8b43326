# SPDX-License-Identifier: LGPL-2.1-or-later
"""twheel: Python binding of /dev/twheel, many timers on one fd.

Standard library only (``fcntl.ioctl``, ``struct``, ``os``, ``select``,
``ctypes`` for the user pointers of batches and listings). The ABI is
``uapi/linux/twheel.h``; this module mirrors it struct for struct, and
``tests/python/test_host.py`` compares every size, offset, constant and
ioctl number with what a C compiler makes of that header.

Errors are the kernel's: every failing call raises :class:`OSError` with
the ``errno`` the system call failed with (``ENOENT`` for an unknown id,
``EINVAL`` for a bad clock or flag, ``EBUSY`` for a late CONFIG, ...).
Nothing is retried or hidden, except that an ``EAGAIN`` read of a
non-blocking fd returns no records instead of raising.

Example::

    import twheel

    with twheel.Wheel() as w:
        t = w.add(30 * twheel.SEC, cookie=order_id)     # relative, MONOTONIC
        w.modify(t, 60 * twheel.SEC)                    # same id, re-armed
        for ev in w.read():                             # blocks for >= 1 record
            print(ev.id, ev.cookie, ev.count)

Unit tests of timeout logic use the manual clock::

    w = twheel.Wheel(blocking=False)
    w.config(manual=True)
    t = w.add(30 * twheel.MIN, cookie=7)
    w.advance(30 * twheel.MIN - 1)    # nothing due: w.read() == []
    w.advance(1)                      # due: queued before advance returns
    [ev] = w.read()

A wall clock deadline that must not fire at a moment the clock no longer
means, and a watcher of clock sets::

    t = w.add(twheel.now(twheel.Clock.REALTIME) + 3600 * twheel.SEC,
              clock=twheel.Clock.REALTIME, absolute=True,
              cancel_on_set=True)     # a set ends it: ev.clock_set, count 0
    watch = twheel.Wheel()
    watch.config(clock_set=True)      # one record (id 0) per batch of sets

asyncio: on a non-blocking Wheel, ``await w.read_async()`` waits (through
``loop.add_reader``) for the next records, and ``async for ev in
w.records_async()`` yields them one at a time.

Idle timeouts, as libtwheel's twheel_idle_*(): an :class:`Idle` keeps one
timer per connection in the shared timer table, pushed back by one store,
and hands over only real expiries::

    idle = twheel.Idle(max_conns=10000, timeout_ns=30 * twheel.SEC)
    h = idle.add(conn_id)             # accept
    idle.touch(h)                     # activity: one store, no system call
    idle.remove(h)                    # close
    async for ev in idle.expiries():  # idle for the timeout
        conns.pop(ev.cookie).close()  # ... and idle.remove() of its handle
"""

import asyncio
import ctypes
import enum
import errno as _errno
import fcntl
import mmap
import os
import select
import struct
import time
from typing import Iterator, List, NamedTuple, Optional, Sequence

__all__ = [
    "ABI_VERSION", "VERSION", "DEFAULT_TICK_NS", "MIN_TICK_NS", "MAX_TICK_NS",
    "MAX_BATCH", "ABSTIME", "SET_COOKIE", "CONFIG_MANUAL", "CONFIG_MAX_TIMERS",
    "FEATURE_PERIODIC", "FEATURE_TIMENS", "FEATURE_MANUAL_CLOCK",
    "FEATURE_RELATIVE_WALL", "FEATURE_URING", "FEATURE_MISSED",
    "FEATURE_FD_MAX_TIMERS", "CONFIG_TABLE", "FEATURE_TABLE", "TABLE_CANCEL",
    "CANCEL_ON_SET", "CONFIG_CLOCK_SET", "EVENT_CLOCK_SET", "FEATURE_ALARM",
    "FEATURE_CLOCK_SET",
    "table_index", "table_tag", "table_deadline", "table_cancelled", "Table",
    "MISSED_MASK", "MISSED_COUNT", "MISSED_BURST", "MISSED_DELAY",
    "MISSED_SKIP", "NSEC", "USEC", "MSEC", "SEC", "MIN",
    "Clock", "State", "OpCode", "TimerId", "Event", "Status", "Info",
    "OpResult", "Batch", "Wheel", "now", "Idle", "IDLE_READDED",
    "IDLE_DROPPED",
    "IOC_INFO", "IOC_ADD", "IOC_CANCEL", "IOC_MODIFY", "IOC_QUERY",
    "IOC_LIST", "IOC_SUBMIT", "IOC_CONFIG", "IOC_ADVANCE",
]

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


# ---- what the kernel returns ----

class Event(NamedTuple):
    """One expiry record (struct twheel_event), as read(2) returns it."""

    id: TimerId
    cookie: int
    time_ns: int    #: when it was queued, on the timer's clock
    count: int      #: expiries it stands for (periodic: >= 1)
    clock: int      #: a Clock
    flags: int      #: 0, or EVENT_CLOCK_SET

    @property
    def clock_set(self) -> bool:
        """True for a record of a wall clock set: a cancel_on_set timer
        ended by one (count 0), or with config(clock_set=True) the fd's
        record of the sets (id 0, count the sets it stands for)."""
        return bool(self.flags & EVENT_CLOCK_SET)


class Status(NamedTuple):
    """One timer (struct twheel_status), as QUERY and LIST report it."""

    id: TimerId
    cookie: int
    deadline_ns: int    #: absolute time of the next expiry not yet counted
    period_ns: int
    count: int          #: expiries its queued record stands for; 0 pending
    remaining_ns: int
    clock: int
    state: int          #: a State

    @classmethod
    def _make_raw(cls, d: dict, prefix: str = "") -> "Status":
        g = lambda n: d[prefix + n]  # noqa: E731
        return cls(TimerId(g("id")), g("cookie"), g("deadline_ns"),
                   g("period_ns"), g("count"), g("remaining_ns"),
                   _clock(g("clock")), _state(g("state")))


class Info(NamedTuple):
    """TWHEEL_IOC_INFO (struct twheel_info): the module and this fd."""

    version: int
    event_size: int
    tick_ns: int
    max_timers: int
    timers: int
    queued: int
    features: int
    ioctls: int
    clocks: int
    min_tick_ns: int
    max_tick_ns: int
    config_flags: int
    op_size: int
    status_size: int
    max_batch: int
    table_size: int     # bytes of the fd's shared timer table, 0: none
    cancelled: int      # timers the kernel ended for a table cancel, ever

    @property
    def manual(self) -> bool:
        """True when the fd runs on the manual clock."""
        return bool(self.config_flags & CONFIG_MANUAL)

    @property
    def table(self) -> bool:
        """True when the fd has a shared timer table."""
        return bool(self.config_flags & CONFIG_TABLE)

    @property
    def clock_set(self) -> bool:
        """True when the fd gets a record of each wall clock set."""
        return bool(self.config_flags & CONFIG_CLOCK_SET)


class OpResult(NamedTuple):
    """One operation of a batch after TWHEEL_IOC_SUBMIT.

    ``error`` is 0 or the (positive) errno the single ioctl would have
    failed with; ``ok`` says which. ``id`` is ADD's new id; ``state`` is
    MODIFY's and CANCEL's previous state or QUERY's state; ``status`` is
    QUERY's whole status (None for other operations or on error).
    """

    op: OpCode
    error: int
    id: TimerId
    state: Optional[int]
    status: Optional[Status]

    @property
    def ok(self) -> bool:
        return self.error == 0

    def exception(self) -> Optional[OSError]:
        """The OSError the single ioctl would have raised, or None."""
        if not self.error:
            return None
        return OSError(self.error, os.strerror(self.error))

    def check(self) -> "OpResult":
        """Raise exception() if the operation failed; else return self."""
        if self.error:
            raise self.exception()
        return self


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


# ---- batches ----

class Batch:
    """Operations for one or more TWHEEL_IOC_SUBMIT calls, in order.

    Build with add(), modify(), cancel() and query() (each returns the
    operation's index), then ``wheel.submit(batch)``: one OpResult per
    operation, in order. Each operation behaves exactly as its single
    ioctl and fails alone; more than MAX_BATCH operations are submitted in
    several calls.
    """

    def __init__(self):
        self._ops: List[bytearray] = []

    def __len__(self) -> int:
        return len(self._ops)

    def _append(self, **fields) -> int:
        self._ops.append(OP.pack(**fields))
        return len(self._ops) - 1

    def add(self, expires_ns: int, *, cookie: int = 0, period_ns: int = 0,
            clock: int = Clock.MONOTONIC, absolute: bool = False,
            missed: int = MISSED_COUNT, cancel_on_set: bool = False) -> int:
        """Queue an ADD (as Wheel.add)."""
        return self._append(op=OpCode.ADD,
                            flags=_flags(absolute, missed, cancel_on_set),
                            cookie=cookie, expires_ns=expires_ns,
                            period_ns=period_ns, clock=int(clock))

    def modify(self, timer: int, expires_ns: int, *, period_ns: int = 0,
               cookie: Optional[int] = None, absolute: bool = False,
               missed: int = MISSED_COUNT,
               cancel_on_set: bool = False) -> int:
        """Queue a MODIFY (as Wheel.modify)."""
        flags = (_flags(absolute, missed, cancel_on_set) |
                 (SET_COOKIE if cookie is not None else 0))
        return self._append(op=OpCode.MODIFY, flags=flags, id=timer,
                            cookie=cookie or 0, expires_ns=expires_ns,
                            period_ns=period_ns)

    def cancel(self, timer: int) -> int:
        """Queue a CANCEL."""
        return self._append(op=OpCode.CANCEL, id=timer)

    def query(self, timer: int) -> int:
        """Queue a QUERY."""
        return self._append(op=OpCode.QUERY, id=timer)

    def raw(self, **fields) -> int:
        """Queue a struct twheel_op given field by field (for tests of the
        kernel's checks: unknown ops, flags, reserved bits)."""
        return self._append(**fields)


def _op_result(d: dict) -> OpResult:
    try:
        code = OpCode(d["op"])
    except ValueError:
        code = d["op"]
    err = -d["error"]
    status = None
    if code == OpCode.QUERY and not err:
        status = Status(TimerId(d["id"]), d["cookie"], d["expires_ns"],
                        d["period_ns"], d["count"], d["remaining_ns"],
                        _clock(d["clock"]), _state(d["result"]))
    state = _state(d["result"]) if code in (OpCode.MODIFY, OpCode.CANCEL,
                                            OpCode.QUERY) and not err else None
    return OpResult(code, err, TimerId(d["id"]), state, status)


# ---- the fd ----

class Table:
    """The shared timer table of a Wheel, mapped (Wheel.table()).

    push(id, tick) and push_ns(id, deadline_ns) move one-shot timer @id's
    deadline later with one 64-bit store into its entry, no system call;
    cancel(id) cancels a timer lazily (it ends with no record when its
    deadline tick comes due, and counts as a live timer until then). The
    kernel reads an entry when the timer's deadline tick comes due (and,
    for a later deadline, when the wheel cascades the timer before it): a
    store it has not read by the tick has no effect, and the record says so
    (expired(ev, tick) is False for it). A deadline is a tick: the time
    tick * tick_ns on the timer's clock (the manual clock on a manual fd),
    less than 2^31 ticks after the tick the kernel reads the entry at
    (else modify(); the exact rule: TWHEEL_TABLE_DEADLINE in the header);
    an earlier deadline takes modify() too. Only entries of ids the fd has
    given are touched here: a page of the table beyond them is not backed
    (SIGBUS). The
    mapping keeps the timers alive after the Wheel is closed, until
    close() (or the end of a with block) unmaps it.
    """

    def __init__(self, fd: int, size: int, tick_ns: int):
        self._map = mmap.mmap(fd, size, flags=mmap.MAP_SHARED,
                              prot=mmap.PROT_READ | mmap.PROT_WRITE)
        # One aligned 8-byte store or load per access (ctypes' memcpy of
        # a c_uint64), never torn on the 64-bit machines twheel runs on.
        self._entries = (ctypes.c_uint64 * (size // 8)).from_buffer(self._map)
        self.size = size
        self.tick_ns = tick_ns

    def tick(self, ns: int) -> int:
        """The tick of time @ns, rounded up (never before @ns)."""
        return -(-ns // self.tick_ns)

    def entry(self, id: int) -> int:
        """The value of timer @id's entry now."""
        return self._entries[table_index(id)]

    def store(self, id: int, value: int) -> None:
        """Store @value into timer @id's entry (any value is harmless)."""
        self._entries[table_index(id)] = value

    def push(self, id: int, tick: int) -> int:
        """Timer @id's deadline is @tick; returns @tick."""
        self.store(id, table_deadline(id, tick))
        return tick

    def push_ns(self, id: int, deadline_ns: int) -> int:
        """Timer @id's deadline is the absolute time @deadline_ns, rounded
        up to a tick; returns the tick stored, for expired()."""
        return self.push(id, self.tick(deadline_ns))

    def cancel(self, id: int) -> None:
        """Timer @id is cancelled, lazily."""
        self.store(id, table_cancelled(id))

    def expired(self, ev: "Event", tick: int) -> bool:
        """Is record @ev the expiry of deadline @tick, the last one stored
        for its timer? False when that store came too late."""
        return ev.time_ns >= tick * self.tick_ns

    @property
    def closed(self) -> bool:
        return self._map is None

    def close(self) -> None:
        """Unmap the table (the timers are not changed)."""
        if self._map is not None:
            m, self._map = self._map, None
            self._entries = None
            m.close()

    def __enter__(self) -> "Table":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


class Wheel:
    """An open /dev/twheel: one independent timer set.

    ``Wheel(path="/dev/twheel", blocking=True, check_version=True)``
    opens it O_RDWR | O_CLOEXEC (O_NONBLOCK when not @blocking). With
    @check_version, a module of another ABI version closes it again and
    raises OSError(EPROTO), as libtwheel's twheel_open() does.
    ``Wheel.from_fd(fd)`` wraps an fd opened elsewhere (it is then owned:
    close() closes it). A Wheel is a context manager and has fileno(), so
    select, selectors and asyncio take it as it is.
    """

    def __init__(self, path: str = "/dev/twheel", *, blocking: bool = True,
                 check_version: bool = True, _fd: Optional[int] = None):
        if _fd is None:
            flags = os.O_RDWR | os.O_CLOEXEC | (0 if blocking else os.O_NONBLOCK)
            _fd = os.open(path, flags)
        self._fd = _fd
        self._event_buf = None
        if check_version:
            try:
                v = self.info().version
            except BaseException:
                self.close()
                raise
            if v != ABI_VERSION:
                self.close()
                raise OSError(_errno.EPROTO,
                              f"twheel ABI version {v}, expected {ABI_VERSION}")

    @classmethod
    def from_fd(cls, fd: int, *, check_version: bool = True) -> "Wheel":
        """Wrap an already open twheel fd (owned from now on)."""
        return cls(_fd=fd, check_version=check_version)

    # -- the fd itself --

    def fileno(self) -> int:
        if self._fd < 0:
            raise ValueError("I/O operation on closed Wheel")
        return self._fd

    @property
    def closed(self) -> bool:
        return self._fd < 0

    def close(self) -> None:
        """Close the fd: every timer of the set goes with it."""
        if self._fd >= 0:
            fd, self._fd = self._fd, -1
            os.close(fd)

    def __enter__(self) -> "Wheel":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass

    @property
    def blocking(self) -> bool:
        """Whether read() blocks (the fd lacks O_NONBLOCK)."""
        return os.get_blocking(self.fileno())

    @blocking.setter
    def blocking(self, value: bool) -> None:
        os.set_blocking(self.fileno(), value)

    def _ioctl(self, cmd: int, buf: bytearray) -> int:
        # A bytearray is mutable: the kernel's outputs land in it.
        return fcntl.ioctl(self.fileno(), cmd, buf, True)

    # -- the handshake and the fd's setup --

    def info(self) -> Info:
        """TWHEEL_IOC_INFO: module version and sizes, this fd's tick,
        limits, timers and queued records."""
        buf = bytearray(INFO.size)
        self._ioctl(IOC_INFO, buf)
        return Info(**INFO.unpack(buf))

    def config(self, tick_ns: int = DEFAULT_TICK_NS, *,
               manual: bool = False, max_timers: int = 0,
               table: bool = False, clock_set: bool = False) -> None:
        """TWHEEL_IOC_CONFIG, before the fd's first timer (EBUSY after):
        the tick (MIN_TICK_NS to MAX_TICK_NS, else EINVAL); with @manual,
        the manual clock: it starts at 0 and moves only by advance();
        every timer runs on it, whatever clock it names; with @max_timers,
        the most timers the fd may hold (at most what it was opened with,
        else EINVAL; adds beyond fail with ENOSPC; 0: that maximum); with
        @table, a shared timer table of one entry per timer, for table()
        (EBUSY once it is mapped); with @clock_set, a record (id 0, flags
        EVENT_CLOCK_SET, count the sets) each time the wall clock is set
        from now on (none on a manual clock)."""
        flags = ((CONFIG_MANUAL if manual else 0) |
                 (CONFIG_MAX_TIMERS if max_timers else 0) |
                 (CONFIG_TABLE if table else 0) |
                 (CONFIG_CLOCK_SET if clock_set else 0))
        self._ioctl(IOC_CONFIG, CONFIG.pack(
            tick_ns=tick_ns, flags=flags, max_timers=max_timers))

    def table(self) -> "Table":
        """Map the fd's shared timer table (config(table=True) first):
        OSError(ENODEV) without one. See Table."""
        i = self.info()
        if not i.table_size:
            raise OSError(_errno.ENODEV, "the fd has no shared timer table")
        return Table(self.fileno(), i.table_size, i.tick_ns)

    def advance(self, delta_ns: int) -> int:
        """TWHEEL_IOC_ADVANCE: move the manual clock forward by @delta_ns
        (0 reads it); every timer due by then is queued before it returns.
        Returns the clock's new time. EINVAL on an fd not configured
        manual."""
        buf = ADVANCE.pack(delta_ns=delta_ns)
        self._ioctl(IOC_ADVANCE, buf)
        return ADVANCE.unpack(buf)["now_ns"]

    # -- one timer at a time --

    def add(self, expires_ns: int, *, cookie: int = 0, period_ns: int = 0,
            clock: int = Clock.MONOTONIC, absolute: bool = False,
            missed: int = MISSED_COUNT,
            cancel_on_set: bool = False) -> TimerId:
        """TWHEEL_IOC_ADD: schedule a timer; returns its id.

        @expires_ns is a delay from now (>= 0), or with @absolute a time
        on @clock. @period_ns: 0 one-shot, else periodic, with @missed
        (MISSED_COUNT, _BURST, _DELAY or _SKIP) saying what it does with
        deadlines missed while its record waits. @cookie comes back in its
        records. With @cancel_on_set (@absolute on REALTIME, TAI or
        REALTIME_ALARM only), a wall clock set while it is pending ends it
        with a record whose clock_set is True and count 0. EINVAL for a
        bad clock, a negative delay, a policy without a period or a
        misplaced @cancel_on_set; EPERM for an alarm clock without
        CAP_WAKE_ALARM; ENOSPC, ENOMEM at the limits.
        """
        buf = ADD.pack(cookie=cookie, expires_ns=expires_ns,
                       period_ns=period_ns,
                       flags=_flags(absolute, missed, cancel_on_set),
                       clock=int(clock))
        self._ioctl(IOC_ADD, buf)
        return TimerId(ADD.unpack(buf)["id"])

    def modify(self, timer: int, expires_ns: int, *, period_ns: int = 0,
               cookie: Optional[int] = None, absolute: bool = False,
               missed: int = MISSED_COUNT,
               cancel_on_set: bool = False) -> State:
        """TWHEEL_IOC_MODIFY: re-arm @timer in place (same id, same clock)
        with a new deadline and period (0: one-shot) and missed-deadline
        policy (as for add), replacing its cookie when @cookie is given;
        @cancel_on_set (as for add) says whether a clock set ends it from
        now on. Returns the state it was in: PENDING, or QUEUED (its
        unread record is retracted). ENOENT for an unknown id.
        """
        flags = (_flags(absolute, missed, cancel_on_set) |
                 (SET_COOKIE if cookie is not None else 0))
        buf = MODIFY.pack(id=timer, cookie=cookie or 0, expires_ns=expires_ns,
                          period_ns=period_ns, flags=flags)
        self._ioctl(IOC_MODIFY, buf)
        return _state(MODIFY.unpack(buf)["result"])

    def cancel(self, timer: int) -> State:
        """TWHEEL_IOC_CANCEL: returns the state it was in, PENDING or
        QUEUED (its unread record is retracted); ENOENT for an unknown id,
        one cancelled already, or a one-shot timer whose record was read."""
        buf = CANCEL.pack(id=timer)
        self._ioctl(IOC_CANCEL, buf)
        return _state(CANCEL.unpack(buf)["result"])

    def query(self, timer: int) -> Status:
        """TWHEEL_IOC_QUERY: one timer's Status; ENOENT as cancel()."""
        buf = QUERY.pack(id=timer)
        self._ioctl(IOC_QUERY, buf)
        return Status._make_raw(QUERY.unpack(buf), "status.")

    def list(self, chunk: int = 64) -> Iterator[Status]:
        """TWHEEL_IOC_LIST: every timer of the fd (each timer present
        throughout the listing exactly once), @chunk statuses per call,
        in the fd's internal order."""
        arr = (ctypes.c_char * (STATUS.size * chunk))()
        cursor = 0
        while True:
            buf = LIST.pack(statuses=ctypes.addressof(arr), capacity=chunk,
                            cursor=cursor, status_size=STATUS.size)
            self._ioctl(IOC_LIST, buf)
            out = LIST.unpack(buf)
            raw = bytes(arr)
            for i in range(out["count"]):
                yield Status._make_raw(STATUS.unpack(raw, i * STATUS.size))
            cursor = out["cursor"]
            if cursor == 0:
                return

    # -- batches --

    def batch(self) -> Batch:
        """A new, empty Batch (submit it with submit())."""
        return Batch()

    def submit(self, batch: Batch) -> List[OpResult]:
        """TWHEEL_IOC_SUBMIT the operations of @batch, in order, MAX_BATCH
        per call. Returns one OpResult per operation done: all of them,
        unless the kernel stopped a call early (a fatal signal), in which
        case the list is that much shorter. A failing operation fails
        alone: see OpResult.error. EINVAL and ENOMEM of the call itself
        raise OSError (no operation of that call done)."""
        results: List[OpResult] = []
        ops = batch._ops
        for start in range(0, len(ops), MAX_BATCH):
            chunk = ops[start:start + MAX_BATCH]
            arr = (ctypes.c_char * (OP.size * len(chunk))).from_buffer(
                bytearray(b"".join(chunk)))
            buf = SUBMIT.pack(ops=ctypes.addressof(arr), nr=len(chunk),
                              op_size=OP.size)
            # SUBMIT is _IOW: the kernel only reads the struct; a mutable
            # buffer makes fcntl.ioctl return the call's value (the number
            # of operations done) rather than the buffer.
            done = self._ioctl(IOC_SUBMIT, buf)
            raw = bytes(arr)
            for i in range(done):
                results.append(_op_result(OP.unpack(raw, i * OP.size)))
            if done < len(chunk):
                break
        return results

    # -- records --

    def read(self, max_records: int = 64) -> List[Event]:
        """read(2) up to @max_records records, in the order they were
        queued. A blocking Wheel waits for the first; a non-blocking one
        returns [] when none is queued (EAGAIN)."""
        if max_records < 1:
            raise ValueError("max_records must be at least 1")
        try:
            data = os.read(self.fileno(), max_records * EVENT.size)
        except BlockingIOError:
            return []
        return self._decode(data)

    @staticmethod
    def _decode(data: bytes) -> List[Event]:
        if len(data) % EVENT.size:
            raise OSError(_errno.EIO, f"twheel: read {len(data)} bytes, "
                          f"not whole {EVENT.size}-byte records")
        evs = []
        for i in range(0, len(data), EVENT.size):
            e = EVENT.unpack(data, i)
            evs.append(Event(TimerId(e["id"]), e["cookie"], e["time_ns"],
                             e["count"], _clock(e["clock"]), e["flags"]))
        return evs

    def wait(self, timeout: Optional[float] = None) -> bool:
        """Wait until a record is queued (poll POLLIN), at most @timeout
        seconds (None: for ever). Returns whether one is."""
        p = select.poll()
        p.register(self.fileno(), select.POLLIN)
        ms = -1 if timeout is None else max(0, int(timeout * 1000))
        return bool(p.poll(ms))

    def records(self) -> Iterator[Event]:
        """Iterate over records one at a time: for ever on a blocking
        Wheel, until none is queued on a non-blocking one."""
        while True:
            evs = self.read()
            if not evs:
                return
            yield from evs

    __iter__ = records

    # -- asyncio --

    async def read_async(self, max_records: int = 64) -> List[Event]:
        """Wait, without blocking the event loop, for the next records and
        read them (at least one). The Wheel must be non-blocking. The loop
        watches the fd with loop.add_reader only while this waits;
        cancelling it loses no record (records are read only here, after
        the wait)."""
        if self.blocking:
            raise ValueError("read_async() needs a non-blocking Wheel "
                             "(Wheel(blocking=False))")
        evs = self.read(max_records)
        if evs:
            return evs
        loop = asyncio.get_running_loop()
        fd = self.fileno()
        while True:
            fut = loop.create_future()

            def ready(fut=fut):
                if not fut.done():
                    fut.set_result(None)

            loop.add_reader(fd, ready)
            try:
                await fut
            finally:
                loop.remove_reader(fd)
            # Readable may be reported without a new record (see EPOLLET
            # in the header, or another reader took it): wait again.
            evs = self.read(max_records)
            if evs:
                return evs

    async def records_async(self):
        """An async iterator of records, one at a time, for ever:
        ``async for ev in wheel.records_async(): ...``."""
        while True:
            for ev in await self.read_async():
                yield ev

    def __repr__(self) -> str:
        return f"<twheel.Wheel fd={self._fd}>"


# ---- idle timeouts: libtwheel's twheel_idle_*() ----

IDLE_READDED = 1    # Idle(observe=): a push too late, the timer added again
IDLE_DROPPED = 2    # Idle(observe=): a record of a removed handle, dropped

_IDLE_FREE, _IDLE_LIVE, _IDLE_EXPIRED = 0, 1, 2
_IDLE_READ = 64


def _einval(what: str) -> OSError:
    return OSError(_errno.EINVAL, what)


class Idle:
    """An idle-timeout tracker over the shared timer table, as libtwheel's
    twheel_idle_*(): one timer per connection, pushed back on activity by
    one store, with everything the table leaves to a program kept here.

    ``Idle(max_conns, timeout_ns, tick_ns=DEFAULT_TICK_NS, headroom=0,
    manual=False, observe=None)`` opens a non-blocking Wheel with a shared
    timer table of max_conns + headroom timers (headroom 0: max_conns) on
    CLOCK_MONOTONIC (the manual clock with @manual: advance()). add(cookie)
    gives a handle (one ADD); touch(h) moves its deadline to timeout from
    now (one store, no system call but on a manual clock); remove(h)
    releases it (one store: a lazy cancel; TWHEEL_IOC_CANCEL once headroom
    removed timers may still wait for their deadline tick). drain() reads
    the records queued and returns those of real expiries only, each an
    Event with the handle's cookie: a record whose push came too late is
    added again for the deadline stored, one of a removed handle dropped;
    @observe, if given, is called for each as observe(what, ev,
    deadline_ns) (IDLE_READDED, IDLE_DROPPED with 0). An expired handle is
    held until remove(). ``await drain_async()`` waits for expiries,
    ``async for ev in expiries()`` yields them.

    Errors are OSError with libtwheel's errnos: EINVAL for a bad argument
    or a handle not held (nothing changed), ENOSPC when max_conns handles
    are held, ETIME for touch() of a handle reported expired, EOPNOTSUPP
    for a module without the table; the kernel's otherwise.
    """

    def __init__(self, max_conns: int, timeout_ns: int, *,
                 tick_ns: int = DEFAULT_TICK_NS, headroom: int = 0,
                 manual: bool = False, observe=None):
        if not 1 <= max_conns <= 0x7FFF_FFFF:
            raise _einval("max_conns: 1 to INT_MAX")
        if not MIN_TICK_NS <= tick_ns <= MAX_TICK_NS:
            raise _einval("tick_ns out of range")
        if timeout_ns <= 0 or timeout_ns // tick_ns >= (1 << 31) - 2:
            raise _einval("timeout_ns: more than 0, less than 2^31 - 2 ticks")
        if headroom < 0 or headroom >= 1 << 63:
            raise _einval("headroom out of range")
        self._wheel: Optional[Wheel] = None
        self._table: Optional[Table] = None
        w = Wheel(blocking=False)
        try:
            if not w.info().features & FEATURE_TABLE:
                raise OSError(_errno.EOPNOTSUPP,
                              "no shared timer table in this module")
            self.headroom = headroom or max_conns
            w.config(tick_ns, manual=manual,
                     max_timers=max_conns + self.headroom, table=True)
            self._table = w.table()
        except BaseException:
            w.close()
            raise
        self._wheel = w
        self.max_conns = max_conns
        self.timeout_ns = timeout_ns
        self.tick_ns = tick_ns
        self.manual = manual
        self.observe = observe
        n = max_conns
        self._state = [_IDLE_FREE] * n
        self._id = [0] * n
        self._tick = [0] * n
        self._cookie = [0] * n
        self._free = list(range(n - 1, -1, -1))    # pop() gives 0 first
        self._owner = {}        # table_index(id) -> handle
        self._stores = self._dropped = self._cancelled = 0
        self._pending = 0       # handles whose re-add failed

    # -- the fd --

    @property
    def wheel(self) -> Wheel:
        """The Wheel underneath (for info(); never read or add to it)."""
        if self._wheel is None:
            raise ValueError("I/O operation on closed Idle")
        return self._wheel

    def fileno(self) -> int:
        return self.wheel.fileno()

    @property
    def closed(self) -> bool:
        return self._wheel is None

    def close(self) -> None:
        """Unmap the table and close the fd: every timer ends."""
        if self._table is not None:
            self._table.close()
            self._table = None
        if self._wheel is not None:
            w, self._wheel = self._wheel, None
            w.close()

    def __enter__(self) -> "Idle":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass

    def advance(self, delta_ns: int) -> int:
        """The manual clock moved by @delta_ns (Idle(manual=True))."""
        return self.wheel.advance(delta_ns)

    # -- handles --

    def _deadline_tick(self) -> int:
        now_ns = self.wheel.advance(0) if self.manual else now()
        return -(-(now_ns + self.timeout_ns) // self.tick_ns)

    def _timer(self, h: int) -> None:
        """A new timer for handle @h at its tick (nothing changed on
        failure)."""
        t = self.wheel.add(self._tick[h] * self.tick_ns,
                           cookie=self._cookie[h], absolute=True)
        self._owner[table_index(t)] = h
        self._id[h] = t

    def _unown(self, h: int) -> None:
        if self._id[h]:
            self._owner.pop(table_index(self._id[h]), None)
        self._id[h] = 0

    def _held(self, h) -> int:
        if (not isinstance(h, int) or not 0 <= h < self.max_conns or
                self._state[h] == _IDLE_FREE):
            raise _einval(f"handle {h!r} not held")
        return h

    def add(self, cookie: int) -> int:
        """A new handle whose timer expires timeout_ns from now unless
        touched; its expiry carries @cookie (0 to 2^64 - 1). One ADD.
        ENOSPC when max_conns handles are held."""
        if not 0 <= cookie < 1 << 64:
            raise _einval("cookie: 0 to 2^64 - 1")
        if not self._free:
            raise OSError(_errno.ENOSPC, f"{self.max_conns} handles held")
        h = self._free[-1]
        self._cookie[h] = cookie
        self._tick[h] = self._deadline_tick()
        self._timer(h)
        self._free.pop()
        self._state[h] = _IDLE_LIVE
        return h

    def touch(self, h: int) -> None:
        """Activity on handle @h: its deadline becomes timeout from now,
        by one store (no system call but on a manual clock). EINVAL for a
        handle not held, ETIME for one reported expired."""
        self._held(h)
        if self._state[h] == _IDLE_EXPIRED:
            raise OSError(_errno.ETIME, f"handle {h} expired: remove it")
        tick = self._deadline_tick()
        if tick > self._tick[h]:
            self._tick[h] = tick
            if self._id[h]:
                self._table.push(self._id[h], tick)

    def _lingering(self) -> int:
        return max(0, self._stores - self._dropped - self._cancelled)

    def remove(self, h: int) -> None:
        """Release handle @h (held, or reported expired): its timer is
        cancelled by one store, or by TWHEEL_IOC_CANCEL when headroom
        removed timers may still be waiting; a record of it read later is
        dropped. EINVAL for a handle not held."""
        self._held(h)
        if self._state[h] == _IDLE_LIVE and self._id[h]:
            if self._lingering() >= self.headroom:
                self._cancelled = self.wheel.info().cancelled
            if self._lingering() >= self.headroom:
                try:
                    self.wheel.cancel(self._id[h])
                except FileNotFoundError:
                    pass            # ended already
            else:
                self._table.cancel(self._id[h])
                self._stores += 1
            self._unown(h)
        elif self._state[h] == _IDLE_LIVE:
            self._pending -= 1
        self._state[h] = _IDLE_FREE
        self._free.append(h)

    # -- records --

    def _lookup(self, ev: Event):
        h = self._owner.get(table_index(ev.id), -1) if ev.id else -1
        if h < 0 or self._id[h] != ev.id:
            self._dropped += 1
            return IDLE_DROPPED, -1
        self._unown(h)
        if ev.time_ns >= self._tick[h] * self.tick_ns:
            self._state[h] = _IDLE_EXPIRED
            return 0, h
        self._pending += 1
        return IDLE_READDED, h

    def _retry(self) -> None:
        for h in range(self.max_conns):
            if not self._pending:
                return
            if self._state[h] == _IDLE_LIVE and not self._id[h]:
                self._timer(h)
                self._pending -= 1

    def drain(self, max_records: int = 64) -> List[Event]:
        """Read the records queued (at most @max_records, without blocking)
        and return the real expiries among them, in queue order: each
        handle's cookie, not touched for the timeout. Records beyond stay
        queued (the fd stays readable). Every record read is handled; a
        re-add that failed raises its OSError when no expiry is returned
        (else the next call, which tries it again, does). EINVAL for
        @max_records below 1."""
        if max_records < 1:
            raise _einval("max_records must be at least 1")
        out: List[Event] = []
        err: Optional[OSError] = None
        if self._pending:
            try:
                self._retry()
            except OSError as e:
                err = e
        while len(out) < max_records:
            want = min(max_records - len(out), _IDLE_READ)
            evs = self.wheel.read(want)
            # All looked up first: these timers ended together, and a
            # re-add may take any of their entries.
            looked = [self._lookup(ev) for ev in evs]
            for ev, (what, h) in zip(evs, looked):
                if what == 0:
                    if self._state[h] == _IDLE_EXPIRED:
                        out.append(ev)
                    continue
                deadline = 0
                if (what == IDLE_READDED and self._state[h] == _IDLE_LIVE
                        and not self._id[h]):
                    deadline = self._tick[h] * self.tick_ns
                    try:
                        self._timer(h)
                        self._pending -= 1
                    except OSError as e:
                        err = e
                else:
                    what = IDLE_DROPPED
                if self.observe is not None:
                    self.observe(what, ev, deadline)
            if len(evs) < want:
                break
        if err is not None and not out:
            raise err
        return out

    async def drain_async(self, max_records: int = 64) -> List[Event]:
        """Wait, without blocking the event loop, for real expiries and
        return them (at least one). The fd is watched with loop.add_reader
        only while this waits; cancelling it loses nothing."""
        evs = self.drain(max_records)
        if evs:
            return evs
        loop = asyncio.get_running_loop()
        fd = self.fileno()
        while True:
            fut = loop.create_future()

            def ready(fut=fut):
                if not fut.done():
                    fut.set_result(None)

            loop.add_reader(fd, ready)
            try:
                await fut
            finally:
                loop.remove_reader(fd)
            # Readable with only re-adds or drops queued: wait again.
            evs = self.drain(max_records)
            if evs:
                return evs

    async def expiries(self):
        """An async iterator of real expiries, one at a time, for ever:
        ``async for ev in idle.expiries(): conns.pop(ev.cookie).close()``
        (and idle.remove() of its handle)."""
        while True:
            for ev in await self.drain_async():
                yield ev

    def __repr__(self) -> str:
        fd = self._wheel.fileno() if self._wheel is not None else -1
        return f"<twheel.Idle fd={fd} handles {self.max_conns - len(self._free)}/{self.max_conns}>"
