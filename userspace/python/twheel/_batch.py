# SPDX-License-Identifier: LGPL-2.1-or-later
"""twheel._batch: Batch, the operations of one or more TWHEEL_IOC_SUBMIT
calls (Wheel.batch(), Wheel.submit()). Re-exported by twheel.
"""

from typing import List, Optional

from ._abi import MISSED_COUNT, OP, SET_COOKIE, Clock, OpCode, _flags

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
