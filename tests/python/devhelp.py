# SPDX-License-Identifier: GPL-2.0
"""What the device tests share (tests/python/test_device*.py): the
device, the default tick, the alarm clocks and whether we are root, a
manual-clock Wheel, and DeviceTest, the base of every case.

Every case reports as python/KERNEL/test_device/CASE, whichever
test_device*.py file holds it: tests/python/tap.py names a case by its
class's module, and DeviceTest sets that module to test_device.
test_device.py loads the cases of the other files (load_tests), so
tap.py runs them all as the one module test_device.
"""

import os
import unittest

import twheel
from twheel import Clock

DEV = "/dev/twheel"
TICK = twheel.DEFAULT_TICK_NS
ALARMS = (Clock.REALTIME_ALARM, Clock.BOOTTIME_ALARM)
# The alarm clocks need CAP_WAKE_ALARM: root has it.
ROOT = os.geteuid() == 0


def manual(tick_ns=TICK):
    """A non-blocking Wheel on the manual clock."""
    w = twheel.Wheel(blocking=False)
    w.config(tick_ns, manual=True)
    return w


@unittest.skipUnless(os.path.exists(DEV), f"no {DEV} (runs in the test VM)")
class DeviceTest(unittest.TestCase):
    # The module every case reports under (tap.py): test_device, as when
    # all were in that one file.
    REPORTED_MODULE = "test_device"

    def __init_subclass__(cls, **kw):
        super().__init_subclass__(**kw)
        cls.__module__ = DeviceTest.REPORTED_MODULE

    def assertErrno(self, err, fn, *args, **kw):
        with self.assertRaises(OSError) as cm:
            fn(*args, **kw)
        self.assertEqual(cm.exception.errno, err,
                         f"{fn.__name__}: {cm.exception}")
