# SPDX-License-Identifier: LGPL-2.1-or-later
"""twheel._idle: Idle, idle timeouts over the shared timer table, as
libtwheel's twheel_idle_*() (one timer per connection, pushed back by one
store; only real expiries handed over, also through asyncio: drain_async,
expiries). Re-exported by twheel.
"""

import errno as _errno
from typing import List, Optional

from ._aio import take_when_readable
from ._abi import (DEFAULT_TICK_NS, FEATURE_TABLE, MAX_TICK_NS, MIN_TICK_NS,
                   now, table_index)
from ._records import Event
from ._table import Table
from ._wheel import Wheel

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
        return await take_when_readable(self.fileno(),
                                        lambda: self.drain(max_records))

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
