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

# The package by role (each module's docstring says more):
#   _abi.py      the ABI of <linux/twheel.h>: constants, enums, TimerId,
#                struct layouts, ioctl numbers, now()
#   _records.py  what the kernel returns: Event, Status, Info, OpResult
#   _batch.py    Batch, the operations of TWHEEL_IOC_SUBMIT
#   _table.py    Table, the shared timer table, mapped
#   _wheel.py    Wheel, the fd (with its asyncio reader)
#   _idle.py     Idle, idle timeouts over the shared table
# Everything is re-exported here: `import twheel` and `from twheel import X`
# work as with the single-file module this was, whose top-level names
# (the standard library modules and typing names it imported too) all
# remain.

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
    "FEATURE_CLOCK_SET", "CONFIG_RING", "FEATURE_RING", "RING_OFFSET",
    "RING_ENTRIES",
    "table_index", "table_tag", "table_deadline", "table_cancelled", "Table",
    "MISSED_MASK", "MISSED_COUNT", "MISSED_BURST", "MISSED_DELAY",
    "MISSED_SKIP", "NSEC", "USEC", "MSEC", "SEC", "MIN",
    "Clock", "State", "OpCode", "TimerId", "Event", "Status", "Info",
    "OpResult", "Batch", "Wheel", "now", "Idle", "IDLE_READDED",
    "IDLE_DROPPED",
    "IOC_INFO", "IOC_ADD", "IOC_CANCEL", "IOC_MODIFY", "IOC_QUERY",
    "IOC_LIST", "IOC_SUBMIT", "IOC_CONFIG", "IOC_ADVANCE",
]

from ._abi import (  # noqa: F401
    ABI_VERSION, VERSION, DEFAULT_TICK_NS, MIN_TICK_NS, MAX_TICK_NS,
    MAX_BATCH, ABSTIME, SET_COOKIE, CANCEL_ON_SET, CONFIG_MANUAL,
    CONFIG_MAX_TIMERS, CONFIG_TABLE, CONFIG_CLOCK_SET, EVENT_CLOCK_SET,
    FEATURE_PERIODIC, FEATURE_TIMENS, FEATURE_MANUAL_CLOCK,
    FEATURE_RELATIVE_WALL, FEATURE_URING, FEATURE_MISSED,
    FEATURE_FD_MAX_TIMERS, FEATURE_TABLE, FEATURE_ALARM, FEATURE_CLOCK_SET,
    CONFIG_RING, FEATURE_RING, RING_OFFSET, RING_ENTRIES,
    TABLE_CANCEL, table_index, table_tag, table_deadline, table_cancelled,
    MISSED_MASK, MISSED_COUNT, MISSED_BURST, MISSED_DELAY, MISSED_SKIP,
    NSEC, USEC, MSEC, SEC, MIN,
    Clock, State, OpCode, TimerId, _clock, _state,
    _Layout, ADD, MODIFY, CANCEL, _STATUS_FIELDS, STATUS, QUERY, LIST, OP,
    SUBMIT, CONFIG, ADVANCE, EVENT, INFO, LAYOUTS,
    _IOC_NRBITS, _IOC_TYPEBITS, _IOC_SIZEBITS, _IOC_NRSHIFT,
    _IOC_TYPESHIFT, _IOC_SIZESHIFT, _IOC_DIRSHIFT, _IOC_NONE, _IOC_WRITE,
    _IOC_READ, _IOC, _IOR, _IOW, _IOWR,
    IOC_TYPE, IOC_INFO, IOC_ADD, IOC_CANCEL, IOC_MODIFY, IOC_QUERY,
    IOC_LIST, IOC_SUBMIT, IOC_CONFIG, IOC_ADVANCE,
    now, _flags,
)
from ._records import (  # noqa: F401
    Event, Status, Info, OpResult, _op_result,
)
from ._batch import Batch  # noqa: F401
from ._table import Table  # noqa: F401
from ._wheel import Wheel  # noqa: F401
from ._idle import (  # noqa: F401
    IDLE_READDED, IDLE_DROPPED, _IDLE_FREE, _IDLE_LIVE, _IDLE_EXPIRED,
    _IDLE_READ, _einval, Idle,
)
