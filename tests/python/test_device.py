# SPDX-License-Identifier: GPL-2.0
"""Tests of the Python binding against /dev/twheel (run in the test VM):
the fd's basics.

Every case asserts values and errnos: exact record order, times and
periodic counts on the manual clock, batch per-op errors, and real-clock
timers never early. Skipped where /dev/twheel is absent (on the host).
The shared table is tested in test_device_table.py, the asyncio reader,
the idle tracker and the example in test_device_idle.py; load_tests
below runs their cases with these, all reported as test_device
(devhelp.py).
"""

import errno
import importlib
import time
import unittest

import twheel
from twheel import MSEC, SEC, Clock, State

from devhelp import ALARMS, ROOT, TICK, DeviceTest, manual

# The other files of the device tests, run with this one.
PARTS = ("test_device_table", "test_device_idle")


def load_tests(loader, tests, pattern):
    """This module's cases, then those of PARTS (unittest's load_tests
    protocol: tap.py and unittest.main() load test_device alone)."""
    for name in PARTS:
        tests.addTests(loader.loadTestsFromModule(
            importlib.import_module(name)))
    return tests


class Handshake(DeviceTest):
    def test_info(self):
        with twheel.Wheel() as w:
            i = w.info()
        self.assertEqual(i.version, twheel.ABI_VERSION)
        self.assertEqual(i.event_size, twheel.EVENT.size)
        self.assertEqual(i.op_size, twheel.OP.size)
        self.assertEqual(i.status_size, twheel.STATUS.size)
        self.assertEqual(i.max_batch, twheel.MAX_BATCH)
        self.assertEqual((i.min_tick_ns, i.max_tick_ns),
                         (twheel.MIN_TICK_NS, twheel.MAX_TICK_NS))
        self.assertEqual(i.tick_ns, TICK)
        self.assertEqual((i.timers, i.queued, i.config_flags), (0, 0, 0))
        self.assertFalse(i.manual)
        for c in Clock:
            self.assertTrue(i.clocks & (1 << c), c)
        self.assertEqual(i.clocks & ~sum(1 << c for c in Clock), 0)
        for cmd in (twheel.IOC_INFO, twheel.IOC_ADD, twheel.IOC_CANCEL,
                    twheel.IOC_MODIFY, twheel.IOC_QUERY, twheel.IOC_LIST,
                    twheel.IOC_SUBMIT, twheel.IOC_CONFIG, twheel.IOC_ADVANCE):
            self.assertTrue(i.ioctls & (1 << (cmd & 0xFF)), hex(cmd))
        self.assertTrue(i.features & twheel.FEATURE_MANUAL_CLOCK)
        self.assertTrue(i.features & twheel.FEATURE_PERIODIC)
        self.assertTrue(i.features & twheel.FEATURE_ALARM)
        self.assertTrue(i.features & twheel.FEATURE_CLOCK_SET)

    def test_blocking_flag(self):
        with twheel.Wheel() as w:
            self.assertTrue(w.blocking)
        with twheel.Wheel(blocking=False) as w:
            self.assertFalse(w.blocking)
            w.blocking = True
            self.assertTrue(w.blocking)


class Errors(DeviceTest):
    def test_unknown_id_is_enoent(self):
        with manual() as w:
            self.assertErrno(errno.ENOENT, w.cancel, 12345)
            self.assertErrno(errno.ENOENT, w.query, 12345)
            self.assertErrno(errno.ENOENT, w.modify, 12345, MSEC)
            t = w.add(MSEC)
            self.assertEqual(w.cancel(t), State.PENDING)
            self.assertErrno(errno.ENOENT, w.cancel, t)
            self.assertErrno(errno.ENOENT, w.query, t)
            # An id of another fd is unknown here.
            with manual() as other:
                self.assertErrno(errno.ENOENT, other.cancel, w.add(MSEC))

    def test_bad_clock_is_einval(self):
        with twheel.Wheel(blocking=False) as w:
            for bad in (2, 3, 4, 5, 6, 10, 12, 99, 2**32 - 1):
                self.assertErrno(errno.EINVAL, w.add, MSEC, clock=bad)
            self.assertEqual(w.info().timers, 0)
            for c in Clock:
                if c in ALARMS and not ROOT:
                    self.assertErrno(errno.EPERM, w.add, SEC, clock=c)
                    continue
                w.cancel(w.add(SEC, clock=c))

    def test_negative_relative_deadline_is_einval(self):
        with manual() as w:
            self.assertErrno(errno.EINVAL, w.add, -1)
            # Absolute: any value, a past one due at once.
            w.advance(5 * MSEC)
            t = w.add(-1, absolute=True, cookie=4)
            self.assertEqual([(e.id, e.cookie) for e in w.read()], [(t, 4)])

    def test_config_errors(self):
        with twheel.Wheel(blocking=False) as w:
            self.assertErrno(errno.EINVAL, w.config, twheel.MIN_TICK_NS - 1)
            self.assertErrno(errno.EINVAL, w.config, twheel.MAX_TICK_NS + 1)
            self.assertErrno(errno.EINVAL, w.advance, 0)
            w.config(twheel.MIN_TICK_NS)
            self.assertEqual(w.info().tick_ns, twheel.MIN_TICK_NS)
            self.assertErrno(errno.EINVAL, w.advance, 0)
            w.cancel(w.add(SEC))
            # Once a timer was added, even if gone: EBUSY.
            self.assertErrno(errno.EBUSY, w.config, TICK, manual=True)


class ClockSets(DeviceTest):
    """TWHEEL_CANCEL_ON_SET and config(clock_set=True)."""

    def test_cancel_on_set_needs_absolute_wall_clock(self):
        rt = twheel.now(Clock.REALTIME) + 3600 * SEC
        with twheel.Wheel(blocking=False) as w:
            for c in Clock:
                if c in ALARMS and not ROOT:
                    continue
                ok = c in (Clock.REALTIME, Clock.TAI, Clock.REALTIME_ALARM)
                if ok:
                    w.cancel(w.add(rt, clock=c, absolute=True,
                                   cancel_on_set=True))
                else:
                    self.assertErrno(errno.EINVAL, w.add, rt, clock=c,
                                     absolute=True, cancel_on_set=True)
                # Relative: EINVAL on every clock.
                self.assertErrno(errno.EINVAL, w.add, SEC, clock=c,
                                 cancel_on_set=True)
            self.assertEqual(w.info().timers, 0)
            m = w.add(SEC)
            self.assertErrno(errno.EINVAL, w.modify, m, rt, absolute=True,
                             cancel_on_set=True)
            t = w.add(rt, clock=Clock.REALTIME, absolute=True)
            self.assertErrno(errno.EINVAL, w.modify, t, SEC,
                             cancel_on_set=True)
            self.assertEqual(w.modify(t, rt, absolute=True,
                                      cancel_on_set=True), State.PENDING)
            b = w.batch()
            b.add(rt, clock=Clock.TAI, absolute=True, cancel_on_set=True)
            b.add(rt, clock=Clock.MONOTONIC, absolute=True,
                  cancel_on_set=True)
            self.assertEqual([r.error for r in w.submit(b)],
                             [0, errno.EINVAL])

    def test_config_clock_set(self):
        with twheel.Wheel(blocking=False) as w:
            self.assertFalse(w.info().clock_set)
            w.config(clock_set=True)
            i = w.info()
            self.assertTrue(i.clock_set)
            self.assertEqual(i.config_flags, twheel.CONFIG_CLOCK_SET)
            w.config(manual=True, clock_set=True)
            self.assertEqual(w.info().config_flags,
                             twheel.CONFIG_MANUAL | twheel.CONFIG_CLOCK_SET)
            # The last configuration counts.
            w.config()
            self.assertEqual(w.info().config_flags, 0)
            self.assertEqual(w.read(), [])

    @unittest.skipUnless(ROOT, "setting the clock needs root")
    def test_set_ends_timer_and_is_recorded(self):
        with twheel.Wheel(blocking=False) as w:
            w.config(clock_set=True)
            rt = twheel.now(Clock.REALTIME) + 3600 * SEC
            t = w.add(rt, cookie=5, clock=Clock.REALTIME, absolute=True,
                      cancel_on_set=True)
            keep = w.add(rt, cookie=6, clock=Clock.REALTIME, absolute=True)
            # A set to (about) the present time: a set all the same.
            time.clock_settime_ns(time.CLOCK_REALTIME,
                                  twheel.now(Clock.REALTIME))
            # Added after the set: never ended by it.
            late = w.add(rt, cookie=7, clock=Clock.REALTIME, absolute=True,
                         cancel_on_set=True)
            self.assertTrue(w.wait(10))
            evs = w.read()
            self.assertEqual([(e.id, e.cookie, e.count, e.clock, e.flags)
                              for e in evs],
                             [(0, 0, 1, Clock.REALTIME,
                               twheel.EVENT_CLOCK_SET),
                              (t, 5, 0, Clock.REALTIME,
                               twheel.EVENT_CLOCK_SET)])
            self.assertTrue(all(e.clock_set for e in evs))
            self.assertErrno(errno.ENOENT, w.query, t)
            self.assertEqual(w.query(keep).state, State.PENDING)
            self.assertEqual(w.query(late).state, State.PENDING)
            self.assertEqual(w.info().timers, 2)


class ManualClock(DeviceTest):
    def test_advance(self):
        with manual() as w:
            self.assertTrue(w.info().manual)
            self.assertEqual(w.advance(0), 0)
            time.sleep(0.02)
            self.assertEqual(w.advance(0), 0)
            self.assertEqual(w.advance(5), 5)
            self.assertEqual(w.advance(SEC), SEC + 5)

    def test_add_query_fire(self):
        with manual() as w:
            t = w.add(1, cookie=9)
            st = w.query(t)
            self.assertEqual(st, twheel.Status(t, 9, TICK, 0, 0, TICK,
                                               Clock.MONOTONIC, State.PENDING))
            w.advance(TICK - 1)
            self.assertEqual(w.read(), [])
            self.assertEqual(w.query(t).remaining_ns, 1)
            w.advance(1)
            self.assertEqual(w.info().queued, 1)
            self.assertEqual(w.query(t).state, State.QUEUED)
            self.assertEqual(w.read(), [twheel.Event(
                t, 9, TICK, 1, Clock.MONOTONIC, 0)])
            # A one-shot timer whose record was read is gone.
            self.assertErrno(errno.ENOENT, w.query, t)
            self.assertEqual(w.info().timers, 0)

    def test_exact_record_order(self):
        # Deadlines in us, added in this order; several share a tick.
        dl_us = [7000, 3000, 5000, 3000, 10000, 1000, 7000, 3000, 12000,
                 5500, 5200, 6000, 11000, 11001, 2999, 2001, 6000, 1]
        with manual() as w:
            ids = []
            for i, us in enumerate(dl_us):
                clock = list(Clock)[i % 4]   # all on the one manual clock
                ids.append(w.add(us * 1000, cookie=i, clock=clock,
                                 absolute=bool(i % 2)))
            w.advance(11 * MSEC)

            def dtick(us):
                return -(-us * 1000 // TICK)
            due = sorted((i for i, us in enumerate(dl_us)
                          if dtick(us) * TICK <= 11 * MSEC),
                         key=lambda i: (dtick(dl_us[i]), i))
            evs = w.read(100)
            self.assertEqual([e.cookie for e in evs], due)
            self.assertEqual([e.id for e in evs], [ids[i] for i in due])
            self.assertTrue(all(e.time_ns == 11 * MSEC and e.count == 1
                                for e in evs))
            self.assertEqual([e.clock for e in evs],
                             [list(Clock)[i % 4] for i in due])
            # The rest share the 12 ms tick: in order of addition.
            w.advance(MSEC)
            self.assertEqual([e.cookie for e in w.read(100)], [8, 13])
            self.assertEqual(w.info().timers, 0)

    def test_periodic_counts(self):
        with manual() as w:
            t = w.add(10 * MSEC, period_ns=10 * MSEC, cookie=1)
            w.advance(35 * MSEC)
            st = w.query(t)
            self.assertEqual((st.state, st.count, st.deadline_ns),
                             (State.QUEUED, 3, 40 * MSEC))
            [ev] = w.read()
            self.assertEqual((ev.id, ev.count, ev.time_ns), (t, 3, 35 * MSEC))
            # Read: the next deadline is the first on the grid after now.
            st = w.query(t)
            self.assertEqual((st.state, st.deadline_ns, st.period_ns,
                              st.remaining_ns, st.count),
                             (State.PENDING, 40 * MSEC, 10 * MSEC, 5 * MSEC, 0))
            w.advance(5 * MSEC)
            self.assertEqual([(e.count, e.time_ns) for e in w.read()],
                             [(1, 40 * MSEC)])
            w.advance(100 * MSEC)       # 140 ms: 50..140 passed, 10 of them
            self.assertEqual([e.count for e in w.read()], [10])
            self.assertEqual(w.cancel(t), State.PENDING)
            self.assertErrno(errno.ENOENT, w.cancel, t)

    def test_missed_policies(self):
        # Read at 35 ms, a 10 ms timer due at 10 ms: COUNT one record of 3,
        # BURST three of 1 at once, DELAY one of 1 then next at 45 ms,
        # SKIP one of 1 then next at 40 ms.
        want = {twheel.MISSED_COUNT: ([3], 40),
                twheel.MISSED_BURST: ([1, 1, 1], 40),
                twheel.MISSED_DELAY: ([1], 45),
                twheel.MISSED_SKIP: ([1], 40)}
        for missed, (counts, nxt) in want.items():
            with self.subTest(missed=missed), manual() as w:
                t = w.add(10 * MSEC, period_ns=10 * MSEC, missed=missed)
                w.advance(35 * MSEC)
                self.assertEqual([e.count for e in w.read()], counts)
                self.assertEqual(w.query(t).deadline_ns, nxt * MSEC)
        with manual() as w:
            # A policy needs a period; MODIFY sets it, in a batch too.
            self.assertErrno(errno.EINVAL, w.add, MSEC,
                             missed=twheel.MISSED_BURST)
            t = w.add(10 * MSEC, period_ns=10 * MSEC)
            self.assertEqual(w.modify(t, 10 * MSEC, period_ns=10 * MSEC,
                                      absolute=True,
                                      missed=twheel.MISSED_SKIP),
                             State.PENDING)
            w.advance(35 * MSEC)
            self.assertEqual([e.count for e in w.read()], [1])
            b = twheel.Batch()
            b.add(MSEC, missed=twheel.MISSED_DELAY)
            [r] = w.submit(b)
            self.assertEqual(r.error, errno.EINVAL)

    def test_modify_retracts_and_sets_cookie(self):
        with manual() as w:
            t = w.add(MSEC, cookie=1)
            w.advance(MSEC)
            self.assertEqual(w.info().queued, 1)
            self.assertEqual(w.modify(t, 5 * MSEC), State.QUEUED)
            self.assertEqual(w.read(), [])      # the record was retracted
            self.assertEqual(w.modify(t, 2 * MSEC, cookie=77), State.PENDING)
            self.assertEqual(w.query(t).deadline_ns, 3 * MSEC)
            w.advance(2 * MSEC)
            self.assertEqual([(e.id, e.cookie, e.time_ns) for e in w.read()],
                             [(t, 77, 3 * MSEC)])
            # modify to periodic, absolute; cookie kept without one.
            t2 = w.add(SEC, cookie=5)
            self.assertEqual(w.modify(t2, 10 * MSEC, period_ns=MSEC,
                                      absolute=True), State.PENDING)
            st = w.query(t2)
            self.assertEqual((st.cookie, st.deadline_ns, st.period_ns),
                             (5, 10 * MSEC, MSEC))

    def test_cancel_queued_retracts(self):
        with manual() as w:
            a = w.add(MSEC, cookie=1)
            b = w.add(MSEC, cookie=2)
            w.advance(MSEC)
            self.assertEqual(w.cancel(a), State.QUEUED)
            self.assertEqual([e.cookie for e in w.read()], [2])
            self.assertErrno(errno.ENOENT, w.cancel, b)

    def test_list(self):
        with manual() as w:
            ids = {w.add((i + 1) * MSEC, cookie=i) for i in range(100)}
            listed = list(w.list(chunk=7))
            self.assertEqual(len(listed), 100)
            self.assertEqual({s.id for s in listed}, ids)
            self.assertTrue(all(s.deadline_ns == (s.cookie + 1) * MSEC
                                for s in listed))

    def test_order_expiry_rule(self):
        # "Cancel the order if unpaid after 30 minutes", in microseconds.
        with manual() as w:
            orders = {}
            for n in range(10):
                w.advance(MSEC)
                orders[n] = w.add(30 * twheel.MIN, cookie=n)
            for n in range(0, 10, 2):           # paid: cancelled
                self.assertEqual(w.cancel(orders[n]), State.PENDING)
            w.advance(30 * twheel.MIN - 5 * MSEC)
            expired = [e.cookie for e in w.read()]
            self.assertEqual(expired, [1, 3])   # added at 2 ms and 4 ms
            w.advance(twheel.MIN)
            self.assertEqual([e.cookie for e in w.read()], [5, 7, 9])


class Batches(DeviceTest):
    def test_per_op_errors(self):
        with manual() as w:
            b = w.batch()
            i_a = b.add(MSEC, cookie=10)
            i_b = b.add(2 * MSEC, cookie=11, period_ns=MSEC)
            i_bad = b.add(MSEC, clock=42)
            i_neg = b.add(-1)
            i_gone = b.cancel(999999)
            i_unk = b.raw(op=9)
            res = w.submit(b)
            self.assertEqual(len(res), 6)
            self.assertEqual([r.error for r in res],
                             [0, 0, errno.EINVAL, errno.EINVAL, errno.ENOENT,
                              errno.EINVAL])
            self.assertTrue(res[i_a].ok and res[i_b].ok)
            self.assertNotEqual(res[i_a].id, res[i_b].id)
            self.assertEqual(res[i_bad].exception().errno, errno.EINVAL)
            self.assertEqual(res[i_neg].id, 0)
            with self.assertRaises(FileNotFoundError):
                res[i_gone].check()
            self.assertEqual(res[i_unk].error, errno.EINVAL)
            a, p = res[i_a].id, res[i_b].id
            self.assertEqual(w.info().timers, 2)

            b = w.batch()
            b.query(a)
            b.modify(a, 5 * MSEC, cookie=20)
            b.query(a)
            b.cancel(p)
            b.query(p)
            b.modify(p, MSEC)
            res = w.submit(b)
            self.assertEqual(res[0].status, twheel.Status(
                a, 10, MSEC, 0, 0, MSEC, Clock.MONOTONIC, State.PENDING))
            self.assertEqual(res[1].state, State.PENDING)
            self.assertEqual((res[2].status.cookie, res[2].status.deadline_ns),
                             (20, 5 * MSEC))
            self.assertEqual(res[3].state, State.PENDING)
            self.assertEqual([r.error for r in res[4:]],
                             [errno.ENOENT, errno.ENOENT])
            self.assertIsNone(res[4].status)
            w.advance(5 * MSEC)
            self.assertEqual([(e.id, e.cookie) for e in w.read()], [(a, 20)])

    def test_large_batch_in_chunks(self):
        n = twheel.MAX_BATCH + 300
        with manual() as w:
            b = w.batch()
            for i in range(n):
                b.add(MSEC + i, cookie=i)
            res = w.submit(b)
            self.assertEqual(len(res), n)
            self.assertTrue(all(r.ok for r in res))
            self.assertEqual(len({r.id for r in res}), n)
            self.assertEqual(w.info().timers, n)
            b = w.batch()
            for r in res[::2]:
                b.cancel(r.id)
            self.assertTrue(all(r.state == State.PENDING
                                for r in w.submit(b)))
            w.advance(2 * MSEC)
            evs = w.read(n)
            self.assertEqual([e.cookie for e in evs], list(range(1, n, 2)))

    def test_empty_batch(self):
        with manual() as w:
            self.assertEqual(w.submit(w.batch()), [])


class Reading(DeviceTest):
    def test_nonblocking_empty(self):
        with twheel.Wheel(blocking=False) as w:
            self.assertEqual(w.read(), [])
            self.assertEqual(list(w.records()), [])
            self.assertFalse(w.wait(0))

    def test_blocking_read_real_clock_never_early(self):
        with twheel.Wheel() as w:
            t0 = twheel.now()
            t = w.add(50 * MSEC, cookie=3)
            [ev] = w.read()
            t1 = twheel.now()
            self.assertEqual((ev.id, ev.cookie, ev.count, ev.clock),
                             (t, 3, 1, Clock.MONOTONIC))
            self.assertGreaterEqual(ev.time_ns, t0 + 50 * MSEC)
            self.assertGreaterEqual(t1, t0 + 50 * MSEC)

    def test_absolute_boottime_and_iterator(self):
        with twheel.Wheel() as w:
            base = twheel.now(Clock.BOOTTIME)
            ids = [w.add(base + (3 - i) * 20 * MSEC, cookie=i,
                         clock=Clock.BOOTTIME, absolute=True)
                   for i in range(3)]
            got = []
            for ev in w:                       # blocking iterator
                got.append(ev)
                self.assertGreaterEqual(ev.time_ns,
                                        base + (3 - ev.cookie) * 20 * MSEC)
                if len(got) == 3:
                    break
            self.assertEqual([e.id for e in got], ids[::-1])
            self.assertTrue(all(e.clock == Clock.BOOTTIME for e in got))

    def test_wait(self):
        with twheel.Wheel(blocking=False) as w:
            w.add(30 * MSEC)
            self.assertTrue(w.wait(30))
            self.assertEqual(len(w.read()), 1)


if __name__ == "__main__":
    unittest.main()
