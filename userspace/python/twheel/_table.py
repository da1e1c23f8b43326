# SPDX-License-Identifier: LGPL-2.1-or-later
"""twheel._table: Table, the shared timer table of a Wheel, mapped
(Wheel.table()): deadlines pushed back and timers cancelled by one store
into an entry, no system call. Re-exported by twheel.
"""

import ctypes
import mmap

from ._abi import table_cancelled, table_deadline, table_index

# ---- the shared timer table ----

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
