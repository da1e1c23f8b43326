# SPDX-License-Identifier: GPL-2.0
"""Tests of the Python binding against /dev/twheel (run in the test VM):
the asyncio reader, the idle tracker (twheel.Idle) and the example built
on it (examples/idle_server.py --selftest). Run by test_device.py's
load_tests, reported as test_device (devhelp.py).
"""

import asyncio
import errno
import os
import subprocess
import sys
import time
import unittest

import twheel
from twheel import MSEC, SEC, Clock

from devhelp import TICK, DeviceTest, manual

EXAMPLES = os.environ.get("TWHEEL_PYTHON_EXAMPLES") or os.path.join(
    os.path.dirname(os.path.abspath(__file__)), "..", "..", "userspace",
    "python", "examples")


class Asyncio(DeviceTest):
    def test_reader_receives_manual_records(self):
        async def main(w):
            loop = asyncio.get_running_loop()
            ids = [w.add((i + 1) * MSEC, cookie=i) for i in range(5)]
            # Another task moves the clock while the reader waits.
            loop.call_later(0.05, w.advance, 3 * MSEC)
            first = await asyncio.wait_for(w.read_async(), 30)
            loop.call_later(0.05, w.advance, 10 * MSEC)
            rest = await asyncio.wait_for(w.read_async(), 30)
            return ids, first, rest

        with manual() as w:
            ids, first, rest = asyncio.run(main(w))
        self.assertEqual([(e.id, e.time_ns) for e in first],
                         [(ids[0], 3 * MSEC), (ids[1], 3 * MSEC),
                          (ids[2], 3 * MSEC)])
        self.assertEqual([(e.id, e.time_ns) for e in rest],
                         [(ids[3], 13 * MSEC), (ids[4], 13 * MSEC)])

    def test_async_iterator_real_clock(self):
        # The reader waits first, on an fd with no timer; another task of
        # the loop runs three turns, then adds the timers. The reader can
        # only finish after that, so the count of turns does not depend on
        # the machine's speed.
        async def main(w):
            got = []
            ticks = 0
            t0 = None

            async def other_work():
                nonlocal ticks, t0
                for _ in range(3):
                    await asyncio.sleep(0.001)
                    ticks += 1
                t0 = twheel.now()
                for i in range(4):
                    w.add((4 - i) * 10 * MSEC, cookie=i)

            async def collect():
                async for ev in w.records_async():
                    got.append(ev)
                    if len(got) == 4:
                        return

            other = asyncio.ensure_future(other_work())
            await asyncio.wait_for(collect(), 30)
            await other
            return t0, got, ticks

        with twheel.Wheel(blocking=False) as w:
            t0, got, ticks = asyncio.run(main(w))
        self.assertEqual([e.cookie for e in got], [3, 2, 1, 0])
        for e in got:
            self.assertGreaterEqual(e.time_ns, t0 + (4 - e.cookie) * 10 * MSEC)
        # The loop kept running other tasks while the reader waited.
        self.assertEqual(ticks, 3)

    def test_cancelled_reader_loses_nothing(self):
        async def main(w):
            t = w.add(MSEC, cookie=8)
            task = asyncio.ensure_future(w.read_async())
            await asyncio.sleep(0.02)
            task.cancel()
            with self.assertRaises(asyncio.CancelledError):
                await task
            w.advance(MSEC)
            return t, await asyncio.wait_for(w.read_async(), 30)

        with manual() as w:
            t, evs = asyncio.run(main(w))
        self.assertEqual([(e.id, e.cookie) for e in evs], [(t, 8)])


class IdleTracker(DeviceTest):
    """twheel.Idle, as libtwheel's twheel_idle_*() (tests/integration/
    idle.c): exact times on the manual clock, only lower bounds on the
    real one."""

    def idle(self, max_conns=4, timeout=100 * MSEC, **kw):
        notes = []
        kw.setdefault("manual", True)
        i = twheel.Idle(max_conns, timeout,
                        observe=lambda *a: notes.append(a), **kw)
        self.addCleanup(i.close)
        return i, notes

    def expect(self, i, t, cookies):
        evs = i.drain()
        self.assertEqual([e.cookie for e in evs], cookies)
        for e in evs:
            self.assertEqual((e.time_ns, e.count, e.clock),
                             (t, 1, Clock.MONOTONIC))
        return evs

    def test_touch(self):
        i, notes = self.idle(8)
        info = i.wheel.info()
        self.assertEqual((info.tick_ns, info.max_timers), (TICK, 16))
        self.assertEqual(info.config_flags,
                         twheel.CONFIG_MANUAL | twheel.CONFIG_TABLE)
        self.assertFalse(i.wheel.blocking)
        h = [i.add(10 + k) for k in range(3)]
        self.assertEqual(h, [0, 1, 2])
        i.advance(50 * MSEC)
        i.touch(h[0])                               # 150 ms
        i.advance(30 * MSEC)
        i.touch(h[1])                               # 180 ms
        i.advance(20 * MSEC - 1)
        self.expect(i, 0, [])
        i.advance(1)
        self.expect(i, 100 * MSEC, [12])
        self.assertEqual(i.wheel.info().timers, 2)
        self.assertErrno(errno.ETIME, i.touch, h[2])
        i.advance(50 * MSEC)
        self.expect(i, 150 * MSEC, [10])
        i.advance(30 * MSEC)
        self.expect(i, 180 * MSEC, [11])
        i.advance(SEC)
        self.expect(i, 0, [])
        for k in h:
            i.remove(k)
        self.assertErrno(errno.EINVAL, i.remove, h[2])
        info = i.wheel.info()
        self.assertEqual((info.timers, info.cancelled, notes), (0, 0, []))

    def test_late_push_added_again(self):
        i, notes = self.idle()
        h, k = i.add(7), i.add(8)
        i.advance(100 * MSEC)           # both records queued
        i.touch(h)                      # too late: 200 ms
        self.expect(i, 100 * MSEC, [8])
        self.assertEqual(len(notes), 1)
        what, ev, deadline = notes[0]
        self.assertEqual((what, ev.cookie, ev.time_ns, deadline),
                         (twheel.IDLE_READDED, 7, 100 * MSEC, 200 * MSEC))
        self.assertEqual(i.wheel.info().timers, 1)
        i.advance(50 * MSEC)
        i.touch(h)                      # in time: 250 ms
        i.advance(100 * MSEC - 1)
        self.expect(i, 0, [])
        i.advance(1)
        [e] = self.expect(i, 250 * MSEC, [7])
        self.assertNotEqual(e.id, ev.id)
        self.assertEqual(len(notes), 1)
        i.remove(h)
        i.remove(k)
        self.assertEqual(i.wheel.info().timers, 0)

    def test_removed_never_reported(self):
        i, notes = self.idle()
        a = i.add(1)
        i.remove(a)                     # a store: ends at 100 ms
        self.assertEqual(i.wheel.info().timers, 1)
        i.advance(100 * MSEC)
        self.expect(i, 0, [])
        self.assertEqual(i.wheel.info().cancelled, 1)
        b, c = i.add(2), i.add(3)       # 200 ms
        i.advance(100 * MSEC)           # both queued
        i.remove(b)                     # too late: its record is dropped
        d = i.add(4)                    # b's handle, at once: 300 ms
        self.assertEqual(d, b)
        self.expect(i, 200 * MSEC, [3])
        self.assertEqual([(w, e.cookie, dl) for w, e, dl in notes],
                         [(twheel.IDLE_DROPPED, 2, 0)])
        i.remove(c)
        i.advance(100 * MSEC)
        self.expect(i, 300 * MSEC, [4])
        i.remove(d)
        info = i.wheel.info()
        self.assertEqual((info.timers, info.queued, info.cancelled),
                         (0, 0, 1))

    def test_headroom(self):
        i, notes = self.idle(2, headroom=1)
        self.assertEqual(i.wheel.info().max_timers, 3)
        a, b = i.add(1), i.add(2)
        self.assertErrno(errno.ENOSPC, i.add, 3)
        i.remove(a)                     # a store
        self.assertEqual(i.wheel.info().timers, 2)
        i.remove(b)                     # past the headroom: a CANCEL
        self.assertEqual(i.wheel.info().timers, 1)
        c, d = i.add(3), i.add(4)
        self.assertEqual(i.wheel.info().timers, 3)
        i.advance(100 * MSEC)
        self.expect(i, 100 * MSEC, [3, 4])
        self.assertEqual(i.wheel.info().cancelled, 1)

    def test_drain_reads_no_more_than_it_returns(self):
        i, _ = self.idle()
        for k in range(3):
            i.add(20 + k)
        i.advance(100 * MSEC)
        for k in range(3):
            self.assertTrue(i.wheel.wait(0))
            self.assertEqual([e.cookie for e in i.drain(1)], [20 + k])
        self.assertFalse(i.wheel.wait(0))
        self.assertEqual(i.drain(), [])

    def test_bad_arguments(self):
        for args, kw in (((0, SEC), {}), ((1 << 31, SEC), {}),
                         ((4, 0), {}), ((4, -1), {}),
                         ((4, SEC), {"tick_ns": twheel.MIN_TICK_NS - 1}),
                         ((4, SEC), {"tick_ns": twheel.MAX_TICK_NS + 1}),
                         ((4, (1 << 31) * twheel.MIN_TICK_NS),
                          {"tick_ns": twheel.MIN_TICK_NS}),
                         ((4, SEC), {"headroom": -1})):
            with self.subTest(args=args, kw=kw):
                self.assertErrno(errno.EINVAL, twheel.Idle, *args, **kw)
        i, notes = self.idle(2)
        a = i.add(1)
        for h in (-1, 1, 2, 1 << 40, None, "0"):
            with self.subTest(handle=h):
                self.assertErrno(errno.EINVAL, i.touch, h)
                self.assertErrno(errno.EINVAL, i.remove, h)
        self.assertErrno(errno.EINVAL, i.add, -1)
        self.assertErrno(errno.EINVAL, i.add, 1 << 64)
        self.assertErrno(errno.EINVAL, i.drain, 0)
        b = i.add(2)
        self.assertErrno(errno.ENOSPC, i.add, 3)
        # Nothing changed: both expire as added.
        self.assertEqual(i.wheel.info().timers, 2)
        i.advance(100 * MSEC)
        self.expect(i, 100 * MSEC, [1, 2])
        i.remove(a)
        i.remove(b)
        self.assertEqual(notes, [])
        i.close()
        self.assertTrue(i.closed)
        self.assertRaises(ValueError, i.fileno)

    def test_asyncio_real_clock(self):
        """Idle, active and removed handles on CLOCK_MONOTONIC, and a late
        push made deterministic (the deadline passes with nobody waiting,
        an ioctl queues the record, then the touch): none reported before
        timeout after its last touch, none twice, none removed, every
        idle one; the late one added again."""
        timeout = 100 * MSEC

        async def main(i):
            touched = {}
            late = i.add(99)
            touched[99] = twheel.now()
            await asyncio.sleep(0.15)
            self.assertEqual(i.wheel.info().queued, 1)
            touched[99] = twheel.now()
            i.touch(late)
            handles = {}
            for k in range(12):
                touched[k] = twheel.now()
                handles[k] = i.add(k)
            for k in range(8, 12):      # removed: never reported
                i.remove(handles.pop(k))
            t0 = twheel.now()

            async def activity():
                # 4 to 7 active for 0.5 s, then idle.
                while twheel.now() - t0 < 500 * MSEC:
                    for k in range(4, 8):
                        if k in handles:
                            touched[k] = twheel.now()
                            i.touch(handles[k])
                    await asyncio.sleep(0.01)

            act = asyncio.ensure_future(activity())
            got = []

            async def collect():
                async for ev in i.expiries():
                    got.append((ev, twheel.now()))
                    h = handles.pop(ev.cookie, None)
                    if ev.cookie == 99:
                        h = late
                    i.remove(h)
                    if len(got) == 9:
                        return

            await asyncio.wait_for(collect(), 60)
            await act
            return touched, got

        i, notes = self.idle(16, timeout, manual=False)
        touched, got = asyncio.run(main(i))
        cookies = sorted(ev.cookie for ev, _ in got)
        self.assertEqual(cookies, list(range(8)) + [99])
        for ev, seen in got:
            self.assertGreaterEqual(ev.time_ns, touched[ev.cookie] + timeout)
            self.assertGreaterEqual(seen, ev.time_ns)
        readds = [n for n in notes if n[0] == twheel.IDLE_READDED]
        self.assertIn(99, [e.cookie for _, e, _ in readds])
        self.assertEqual([n for n in notes if n[0] == twheel.IDLE_DROPPED
                          and n[1].cookie < 8], [])
        time.sleep(2 * timeout / SEC)
        self.assertEqual(i.drain(), [])
        self.assertEqual(i.wheel.info().timers, 0)


class Example(DeviceTest):
    def test_idle_server_selftest(self):
        ex = os.path.join(EXAMPLES, "idle_server.py")
        out = subprocess.run([sys.executable, ex, "--selftest"],
                             capture_output=True, text=True, timeout=300)
        sys.stdout.write("".join("# " + ln + "\n"
                                 for ln in out.stdout.splitlines()[-12:]))
        sys.stdout.write("".join("# " + ln + "\n"
                                 for ln in out.stderr.splitlines()[-12:]))
        self.assertEqual(out.returncode, 0)
        self.assertIn("selftest: passed", out.stdout)


if __name__ == "__main__":
    unittest.main()
