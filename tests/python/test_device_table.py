# SPDX-License-Identifier: GPL-2.0
"""Tests of the Python binding against /dev/twheel (run in the test VM):
the shared timer table (Wheel.table()), on the manual clock. Run by
test_device.py's load_tests, reported as test_device (devhelp.py).
"""

import errno
import os
import unittest

import twheel
from twheel import MSEC, Clock, State

from devhelp import TICK, DeviceTest


class SharedTable(DeviceTest):
    """The shared timer table, on the manual clock: exact times."""

    def table_wheel(self, max_timers=100):
        w = twheel.Wheel(blocking=False)
        w.config(TICK, manual=True, max_timers=max_timers, table=True)
        return w

    def test_info_and_mapping_rules(self):
        with twheel.Wheel(blocking=False) as w:
            i = w.info()
            self.assertTrue(i.features & twheel.FEATURE_TABLE)
            self.assertEqual((i.table_size, i.cancelled, i.table), (0, 0, False))
            self.assertErrno(errno.ENODEV, w.table)
        with self.table_wheel(1000) as w:
            i = w.info()
            self.assertEqual(i.config_flags,
                             twheel.CONFIG_MANUAL | twheel.CONFIG_TABLE)
            self.assertTrue(i.table)
            self.assertEqual(i.table_size, 8192)    # 8000 bytes, 2 pages
            with w.table() as tab:
                self.assertEqual(tab.size, 8192)
                # Mapped: the configuration is fixed.
                self.assertErrno(errno.EBUSY, w.config, TICK, table=True)

    def test_push_back(self):
        with self.table_wheel() as w, w.table() as tab:
            t = w.add(10 * MSEC, cookie=5)
            # The kernel wrote the deadline's tick.
            self.assertEqual(tab.entry(t), twheel.table_deadline(t, 10))
            self.assertEqual(tab.push(t, 30), 30)
            w.advance(10 * MSEC)
            self.assertEqual(w.read(), [])
            self.assertEqual(w.query(t).state, State.PENDING)
            w.advance(20 * MSEC - 1)
            self.assertEqual(w.read(), [])
            w.advance(1)
            evs = w.read()
            self.assertEqual(evs, [twheel.Event(t, 5, 30 * MSEC, 1,
                                                Clock.MONOTONIC, 0)])
            self.assertTrue(tab.expired(evs[0], 30))
            # Ended: the kernel cleared the entry.
            self.assertEqual(tab.entry(t), 0)

    def test_push_ns_rounds_up(self):
        with self.table_wheel() as w, w.table() as tab:
            t = w.add(MSEC)
            self.assertEqual(tab.push_ns(t, 5 * MSEC + 1), 6)
            w.advance(6 * MSEC - 1)
            self.assertEqual(w.read(), [])
            w.advance(1)
            self.assertEqual([e.time_ns for e in w.read()], [6 * MSEC])

    def test_cancel_by_store(self):
        with self.table_wheel() as w, w.table() as tab:
            t = w.add(10 * MSEC)
            tab.cancel(t)
            i = w.info()
            # A live timer until its deadline tick; counted once ended.
            self.assertEqual((i.timers, i.cancelled), (1, 0))
            w.advance(10 * MSEC)
            self.assertEqual(w.read(), [])
            i = w.info()
            self.assertEqual((i.timers, i.cancelled), (0, 1))
            self.assertErrno(errno.ENOENT, w.query, t)

    def test_late_store_and_stale_store(self):
        with self.table_wheel() as w, w.table() as tab:
            t = w.add(10 * MSEC)
            w.advance(10 * MSEC)            # queued: the kernel read it
            tick = tab.push(t, 50)          # too late: no effect
            evs = w.read()
            self.assertEqual([(e.id, e.time_ns) for e in evs],
                             [(t, 10 * MSEC)])
            self.assertFalse(tab.expired(evs[0], tick))
            # The next timer of the same entry ignores stores aimed at t.
            u = w.add(10 * MSEC)
            self.assertEqual(twheel.table_index(u), twheel.table_index(t))
            self.assertNotEqual(u, t)
            tab.store(u, twheel.table_cancelled(t))
            tab.store(u, twheel.table_deadline(t, 1000))
            w.advance(10 * MSEC)
            self.assertEqual([e.id for e in w.read()], [u])

    def test_earlier_deadline_and_garbage_do_nothing(self):
        with self.table_wheel() as w, w.table() as tab:
            t = w.add(10 * MSEC)
            tab.push(t, 5)                  # earlier: modify() only
            w.advance(5 * MSEC)
            self.assertEqual(w.read(), [])
            tab.store(t, 0xFFFF_FFFF_FFFF_FFFF)
            w.advance(5 * MSEC - 1)
            self.assertEqual(w.read(), [])
            w.advance(1)
            self.assertEqual([e.time_ns for e in w.read()], [10 * MSEC])

    def test_table_outlives_close(self):
        w = self.table_wheel()
        tab = w.table()
        t = w.add(10 * MSEC)
        fd = os.dup(w.fileno())
        w.close()
        try:
            # The dup and the mapping hold the set: the store still counts.
            tab.push(t, 20)
            w2 = twheel.Wheel.from_fd(fd)
            fd = -1
            w2.advance(10 * MSEC)
            self.assertEqual(w2.read(), [])
            w2.advance(10 * MSEC)
            self.assertEqual([e.time_ns for e in w2.read()], [20 * MSEC])
            w2.close()
        finally:
            if fd >= 0:
                os.close(fd)
            tab.close()



if __name__ == "__main__":
    unittest.main()
