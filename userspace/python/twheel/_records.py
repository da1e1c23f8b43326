# SPDX-License-Identifier: LGPL-2.1-or-later
"""twheel._records: what the kernel returns, decoded.

Event (a record read(2) returns), Status (QUERY and LIST), Info
(TWHEEL_IOC_INFO) and OpResult (one operation of a batch after
TWHEEL_IOC_SUBMIT, made from its struct twheel_op by _op_result()).
Re-exported by twheel.
"""

import os
from typing import NamedTuple, Optional

from ._abi import (CONFIG_CLOCK_SET, CONFIG_MANUAL, CONFIG_TABLE,
                   EVENT_CLOCK_SET, OpCode, TimerId, _clock, _state)

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
