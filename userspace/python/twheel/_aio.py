# SPDX-License-Identifier: LGPL-2.1-or-later
"""twheel._aio: waiting for records without blocking the event loop, shared by
Wheel.read_async() and Idle.drain_async()."""

import asyncio
from typing import Callable, List

from ._records import Event


async def take_when_readable(fd: int,
                             take: Callable[[], List[Event]]) -> List[Event]:
    """Return what take() returns once it returns something: between two
    calls, wait until fd is readable. The loop watches fd with
    loop.add_reader only while this waits; cancelling the wait loses
    nothing, as only take() consumes. Readable may come with nothing for
    take() (another reader was first, EPOLLET, only records take() keeps
    to itself): then it waits again."""
    evs = take()
    if evs:
        return evs
    loop = asyncio.get_running_loop()
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
        evs = take()
        if evs:
            return evs
