# SPDX-License-Identifier: LGPL-2.1-or-later
"""twheel._wheel: Wheel, an open /dev/twheel (the fd): the handshake and
setup (info, config, table, advance), one timer at a time (add, modify,
cancel, query, list), batches (submit), records (read, wait, records)
and their asyncio forms (read_async, records_async). Re-exported by
twheel.
"""

import ctypes
import errno as _errno
import fcntl
import os
import select
from typing import Iterator, List, Optional

from ._aio import take_when_readable
from ._abi import (ABI_VERSION, ADD, ADVANCE, CANCEL, CONFIG,
                   CONFIG_CLOCK_SET, CONFIG_MANUAL, CONFIG_MAX_TIMERS,
                   CONFIG_TABLE, DEFAULT_TICK_NS, EVENT, INFO, IOC_ADD,
                   IOC_ADVANCE, IOC_CANCEL, IOC_CONFIG, IOC_INFO, IOC_LIST,
                   IOC_MODIFY, IOC_QUERY, IOC_SUBMIT, LIST, MAX_BATCH,
                   MISSED_COUNT, MODIFY, OP, QUERY, SET_COOKIE, STATUS,
                   SUBMIT, Clock, State, TimerId, _clock, _flags, _state)
from ._batch import Batch
from ._records import Event, Info, OpResult, Status, _op_result
from ._table import Table

# ---- the fd ----

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
        return await take_when_readable(self.fileno(),
                                        lambda: self.read(max_records))

    async def records_async(self):
        """An async iterator of records, one at a time, for ever:
        ``async for ev in wheel.records_async(): ...``."""
        while True:
            for ev in await self.read_async():
                yield ev

    def __repr__(self) -> str:
        return f"<twheel.Wheel fd={self._fd}>"
