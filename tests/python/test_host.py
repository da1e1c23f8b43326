# SPDX-License-Identifier: GPL-2.0
"""Host tests of the Python binding: no module needed.

The layouts, constants and ioctl numbers of twheel are compared with
what gcc makes of uapi/linux/twheel.h: a C program is generated from the
binding's own field lists (so a field missing from, or misnamed against,
the header fails to compile), built and run at test time. The rest checks
the binding's own logic on ordinary fds (/dev/null, pipes): errno
propagation, record decoding, the iterators and the asyncio reader.
"""

import asyncio
import errno
import os
import shutil
import struct
import subprocess
import tempfile
import unittest

import twheel

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
UAPI = os.path.join(TOP, "uapi")

# Constants: Python name -> C expression.
CONSTANTS = {
    "ABI_VERSION": "TWHEEL_ABI_VERSION",
    "DEFAULT_TICK_NS": "TWHEEL_DEFAULT_TICK_NS",
    "MIN_TICK_NS": "TWHEEL_MIN_TICK_NS",
    "MAX_TICK_NS": "TWHEEL_MAX_TICK_NS",
    "MAX_BATCH": "TWHEEL_MAX_BATCH",
    "ABSTIME": "TWHEEL_ABSTIME",
    "SET_COOKIE": "TWHEEL_SET_COOKIE",
    "CONFIG_MANUAL": "TWHEEL_CONFIG_MANUAL",
    "CONFIG_MAX_TIMERS": "TWHEEL_CONFIG_MAX_TIMERS",
    "FEATURE_PERIODIC": "TWHEEL_FEATURE_PERIODIC",
    "FEATURE_TIMENS": "TWHEEL_FEATURE_TIMENS",
    "FEATURE_MANUAL_CLOCK": "TWHEEL_FEATURE_MANUAL_CLOCK",
    "FEATURE_RELATIVE_WALL": "TWHEEL_FEATURE_RELATIVE_WALL",
    "FEATURE_URING": "TWHEEL_FEATURE_URING",
    "FEATURE_MISSED": "TWHEEL_FEATURE_MISSED",
    "FEATURE_FD_MAX_TIMERS": "TWHEEL_FEATURE_FD_MAX_TIMERS",
    "CONFIG_TABLE": "TWHEEL_CONFIG_TABLE",
    "FEATURE_TABLE": "TWHEEL_FEATURE_TABLE",
    "TABLE_CANCEL": "TWHEEL_TABLE_CANCEL",
    "CANCEL_ON_SET": "TWHEEL_CANCEL_ON_SET",
    "CONFIG_CLOCK_SET": "TWHEEL_CONFIG_CLOCK_SET",
    "EVENT_CLOCK_SET": "TWHEEL_EVENT_CLOCK_SET",
    "FEATURE_ALARM": "TWHEEL_FEATURE_ALARM",
    "FEATURE_CLOCK_SET": "TWHEEL_FEATURE_CLOCK_SET",
    "CONFIG_RING": "TWHEEL_CONFIG_RING",
    "FEATURE_RING": "TWHEEL_FEATURE_RING",
    "RING_OFFSET": "TWHEEL_RING_OFFSET",
    "RING_ENTRIES": "TWHEEL_RING_ENTRIES",
    "MISSED_MASK": "TWHEEL_MISSED_MASK",
    "MISSED_COUNT": "TWHEEL_MISSED_COUNT",
    "MISSED_BURST": "TWHEEL_MISSED_BURST",
    "MISSED_DELAY": "TWHEEL_MISSED_DELAY",
    "MISSED_SKIP": "TWHEEL_MISSED_SKIP",
    "IOC_TYPE": "TWHEEL_IOC_TYPE",
    "State.PENDING": "TWHEEL_STATE_PENDING",
    "State.QUEUED": "TWHEEL_STATE_QUEUED",
    "OpCode.ADD": "TWHEEL_OP_ADD",
    "OpCode.MODIFY": "TWHEEL_OP_MODIFY",
    "OpCode.CANCEL": "TWHEEL_OP_CANCEL",
    "OpCode.QUERY": "TWHEEL_OP_QUERY",
    "Clock.REALTIME": "CLOCK_REALTIME",
    "Clock.MONOTONIC": "CLOCK_MONOTONIC",
    "Clock.BOOTTIME": "CLOCK_BOOTTIME",
    "Clock.TAI": "CLOCK_TAI",
    "Clock.REALTIME_ALARM": "CLOCK_REALTIME_ALARM",
    "Clock.BOOTTIME_ALARM": "CLOCK_BOOTTIME_ALARM",
}
# The table's entry macros, on ids and ticks at their edges: Python
# function -> C macro.
TABLE_IDS = [1, 2, 0xFFFF_FFFF, 0x2_0000_0001, 0x6_0000_0003,
             0xABCD_EF00_1234_5678, 0xFFFF_FFFE_FFFF_FFFF]
TABLE_TICKS = [0, 1, 0xFFFF_FFFF, 0x1_0000_0000, 0x1_2345_6789, -1]
TABLE_MACROS = {
    "table_index": "TWHEEL_TABLE_INDEX",
    "table_tag": "TWHEEL_TABLE_TAG",
    "table_cancelled": "TWHEEL_TABLE_CANCELLED",
}
IOCTLS = ["INFO", "ADD", "CANCEL", "MODIFY", "QUERY", "LIST", "SUBMIT",
          "CONFIG", "ADVANCE"]


def py_value(name):
    obj = twheel
    for part in name.split("."):
        obj = getattr(obj, part)
    return int(obj)


def c_program():
    """C source printing "KEY VALUE" lines for everything compared."""
    out = ['#include <stdio.h>', '#include <stddef.h>', '#include <time.h>',
           '#include <linux/twheel.h>',
           '#define SIGNED(x) ((__typeof__(x))-1 < (__typeof__(x))0)',
           'int main(void) {']
    for lay in twheel.LAYOUTS:
        s = f"struct {lay.cname}"
        out.append(f'printf("size.{lay.cname} %zu\\n", sizeof({s}));')
        for name, _ in lay.fields:
            m = f"(({s} *)0)->{name}"
            out.append(f'printf("offset.{lay.cname}.{name} %zu\\n", '
                       f'offsetof({s}, {name}));')
            out.append(f'printf("width.{lay.cname}.{name} %zu\\n", '
                       f'sizeof({m}));')
            out.append(f'printf("signed.{lay.cname}.{name} %d\\n", '
                       f'(int)SIGNED({m}));')
    for py, c in CONSTANTS.items():
        out.append(f'printf("const.{py} %llu\\n", '
                   f'(unsigned long long)({c}));')
    for name in IOCTLS:
        out.append(f'printf("ioctl.{name} %lu\\n", '
                   f'(unsigned long)TWHEEL_IOC_{name});')
    for fn, c in TABLE_MACROS.items():
        for i in TABLE_IDS:
            out.append(f'printf("{fn}.{i} %llu\\n", '
                       f'(unsigned long long){c}({i}ULL));')
    for i in TABLE_IDS:
        for t in TABLE_TICKS:
            out.append(f'printf("table_deadline.{i}.{t} %llu\\n", '
                       f'(unsigned long long)TWHEEL_TABLE_DEADLINE({i}ULL, '
                       f'({t}LL)));')
    out.append('printf("version %s\\n", TWHEEL_VERSION);')
    out.append('return 0; }')
    return "\n".join(out) + "\n"


class CHeader(unittest.TestCase):
    """twheel against the C header, compiled now."""

    values = None

    @classmethod
    def setUpClass(cls):
        cc = os.environ.get("CC") or shutil.which("gcc") or shutil.which("cc")
        if not cc:
            raise unittest.SkipTest("no C compiler")
        with tempfile.TemporaryDirectory() as d:
            src = os.path.join(d, "layout.c")
            exe = os.path.join(d, "layout")
            with open(src, "w") as f:
                f.write(c_program())
            subprocess.run([cc, "-std=gnu11", "-Wall", "-Werror", "-I", UAPI,
                            "-o", exe, src], check=True)
            out = subprocess.run([exe], check=True, capture_output=True,
                                 text=True).stdout
        cls.values = dict(ln.split(" ", 1) for ln in out.splitlines())

    def test_struct_sizes(self):
        for lay in twheel.LAYOUTS:
            with self.subTest(struct=lay.cname):
                self.assertEqual(lay.size,
                                 int(self.values[f"size.{lay.cname}"]))

    def test_field_offsets_widths_signedness(self):
        for lay in twheel.LAYOUTS:
            for name, fmt in lay.fields:
                key = f"{lay.cname}.{name}"
                with self.subTest(field=key):
                    self.assertEqual(lay.offset(name),
                                     int(self.values["offset." + key]))
                    self.assertEqual(struct.calcsize("=" + fmt),
                                     int(self.values["width." + key]))
                    self.assertEqual(fmt.islower(),
                                     self.values["signed." + key] == "1")

    def test_fields_cover_structs(self):
        # No field left out: the fields' widths add up to the C size
        # (there is no padding in this ABI), and the last one ends it.
        for lay in twheel.LAYOUTS:
            with self.subTest(struct=lay.cname):
                last, fmt = lay.fields[-1]
                self.assertEqual(lay.offset(last) + struct.calcsize("=" + fmt),
                                 int(self.values[f"size.{lay.cname}"]))

    def test_constants(self):
        for py in CONSTANTS:
            with self.subTest(constant=py):
                self.assertEqual(py_value(py), int(self.values["const." + py]))
        self.assertEqual(twheel.VERSION, self.values["version"].strip('"'))

    def test_every_header_constant_bound(self):
        # A constant added to the header fails here until the binding
        # (and CONSTANTS above) have it.
        import re
        with open(os.path.join(UAPI, "linux", "twheel.h")) as f:
            names = re.findall(r"^#define\s+(TWHEEL_\w+)\s", f.read(), re.M)
        known = set(CONSTANTS.values()) | {"TWHEEL_VERSION"} | {
            "TWHEEL_IOC_" + n for n in IOCTLS}
        self.assertTrue(names)
        self.assertEqual(sorted(set(names) - known), [])

    def test_table_macros(self):
        for fn in TABLE_MACROS:
            for i in TABLE_IDS:
                with self.subTest(macro=fn, id=hex(i)):
                    self.assertEqual(getattr(twheel, fn)(i),
                                     int(self.values[f"{fn}.{i}"]))
        for i in TABLE_IDS:
            for t in TABLE_TICKS:
                with self.subTest(macro="table_deadline", id=hex(i), tick=t):
                    self.assertEqual(twheel.table_deadline(i, t),
                                     int(self.values[
                                         f"table_deadline.{i}.{t}"]))

    def test_ioctl_numbers(self):
        for name in IOCTLS:
            with self.subTest(ioctl=name):
                self.assertEqual(getattr(twheel, "IOC_" + name),
                                 int(self.values["ioctl." + name]))


class IoctlNumbers(unittest.TestCase):
    """The _IOC arithmetic itself, on values known independently."""

    def test_known_linux_values(self):
        # From <asm-generic/ioctl.h> users: FIONREAD-style _IOR('T', ...),
        # e.g. TCGETS2 = _IOR('T', 0x2A, struct termios2 /* 44 */).
        self.assertEqual(twheel._IOC(twheel._IOC_READ, ord("T"), 0x2A, 44),
                         0x802C542A)
        # FS_IOC_GETFLAGS on 64-bit = _IOR('f', 1, long) = 0x80086601.
        self.assertEqual(twheel._IOC(twheel._IOC_READ, ord("f"), 1, 8),
                         0x80086601)

    def test_directions_and_numbers(self):
        for cmd, d, nr, lay in [
                (twheel.IOC_INFO, 2, 0, twheel.INFO),
                (twheel.IOC_ADD, 3, 1, twheel.ADD),
                (twheel.IOC_SUBMIT, 1, 6, twheel.SUBMIT),
                (twheel.IOC_CONFIG, 1, 7, twheel.CONFIG),
                (twheel.IOC_ADVANCE, 3, 8, twheel.ADVANCE)]:
            self.assertEqual(cmd >> 30, d)
            self.assertEqual(cmd & 0xFF, nr)
            self.assertEqual((cmd >> 8) & 0xFF, 0xBA)
            self.assertEqual((cmd >> 16) & 0x3FFF, lay.size)


class Encoding(unittest.TestCase):
    def test_pack_rejects_unknown_field(self):
        with self.assertRaises(KeyError):
            twheel.ADD.pack(cokie=1)

    def test_pack_unpack_roundtrip(self):
        buf = twheel.OP.pack(op=2, flags=3, id=4, cookie=2**64 - 1,
                             expires_ns=-5, error=-errno.ENOENT)
        d = twheel.OP.unpack(buf)
        self.assertEqual((d["op"], d["flags"], d["id"], d["cookie"],
                          d["expires_ns"], d["error"]),
                         (2, 3, 4, 2**64 - 1, -5, -errno.ENOENT))
        self.assertEqual(len(buf), 72)

    def test_op_result_errors(self):
        r = twheel._op_result(twheel.OP.unpack(twheel.OP.pack(
            op=twheel.OpCode.CANCEL, id=9, error=-errno.ENOENT)))
        self.assertFalse(r.ok)
        self.assertEqual(r.error, errno.ENOENT)
        self.assertIsNone(r.state)
        e = r.exception()
        self.assertIsInstance(e, OSError)
        self.assertEqual(e.errno, errno.ENOENT)
        with self.assertRaises(FileNotFoundError):
            r.check()

    def test_op_result_query(self):
        r = twheel._op_result(twheel.OP.unpack(twheel.OP.pack(
            op=twheel.OpCode.QUERY, id=9, cookie=8, expires_ns=7,
            period_ns=6, clock=1, result=2, count=3, remaining_ns=0)))
        self.assertTrue(r.ok)
        self.assertEqual(r.state, twheel.State.QUEUED)
        self.assertEqual(r.status, twheel.Status(
            9, 8, 7, 6, 3, 0, twheel.Clock.MONOTONIC, twheel.State.QUEUED))

    def test_batch_builds_ops(self):
        b = twheel.Batch()
        self.assertEqual(b.add(5, cookie=1, clock=twheel.Clock.BOOTTIME,
                               absolute=True, period_ns=3), 0)
        self.assertEqual(b.modify(7, 8, cookie=0), 1)
        self.assertEqual(b.modify(7, 8), 2)
        self.assertEqual(b.cancel(7), 3)
        ops = [twheel.OP.unpack(o) for o in b._ops]
        self.assertEqual((ops[0]["op"], ops[0]["flags"], ops[0]["clock"],
                          ops[0]["period_ns"]), (1, twheel.ABSTIME, 7, 3))
        # A cookie of 0 is still a cookie: SET_COOKIE.
        self.assertEqual(ops[1]["flags"], twheel.SET_COOKIE)
        self.assertEqual(ops[2]["flags"], 0)
        self.assertEqual((ops[3]["op"], ops[3]["id"]), (3, 7))

    def test_batch_cancel_on_set(self):
        b = twheel.Batch()
        b.add(5, clock=twheel.Clock.REALTIME_ALARM, absolute=True,
              cancel_on_set=True)
        b.modify(7, 8, absolute=True, cancel_on_set=True)
        b.modify(7, 8, absolute=True)
        ops = [twheel.OP.unpack(o) for o in b._ops]
        self.assertEqual((ops[0]["flags"], ops[0]["clock"]),
                         (twheel.ABSTIME | twheel.CANCEL_ON_SET, 8))
        self.assertEqual(ops[1]["flags"],
                         twheel.ABSTIME | twheel.CANCEL_ON_SET)
        # Without it, a modify takes the flag away: not set.
        self.assertEqual(ops[2]["flags"], twheel.ABSTIME)

    def test_timer_id(self):
        t = twheel.TimerId(5)
        self.assertEqual(t, 5)
        self.assertEqual(repr(t), "TimerId(5)")


def event_bytes(id, cookie, time_ns, count=1, clock=1, flags=0):
    return twheel.EVENT.struct.pack(id, cookie, time_ns, count, clock, flags)


class OnOrdinaryFds(unittest.TestCase):
    """Errors and reading, on fds that are not /dev/twheel."""

    def test_ioctl_on_dev_null_is_enotty(self):
        with open("/dev/null", "rb") as f:
            w = twheel.Wheel.from_fd(os.dup(f.fileno()), check_version=False)
        with w:
            with self.assertRaises(OSError) as cm:
                w.info()
            self.assertEqual(cm.exception.errno, errno.ENOTTY)
            with self.assertRaises(OSError) as cm:
                w.add(1)
            self.assertEqual(cm.exception.errno, errno.ENOTTY)
        # check_version: the handshake fails, and the fd is closed again.
        fd = os.open("/dev/null", os.O_RDONLY)
        with self.assertRaises(OSError) as cm:
            twheel.Wheel.from_fd(fd)
        self.assertEqual(cm.exception.errno, errno.ENOTTY)
        with self.assertRaises(OSError) as cm:
            os.fstat(fd)
        self.assertEqual(cm.exception.errno, errno.EBADF)

    def test_open_missing_device(self):
        with self.assertRaises(OSError) as cm:
            twheel.Wheel("/nonexistent/twheel")
        self.assertEqual(cm.exception.errno, errno.ENOENT)

    def test_closed(self):
        r, wfd = os.pipe()
        os.close(wfd)
        w = twheel.Wheel.from_fd(r, check_version=False)
        w.close()
        self.assertTrue(w.closed)
        w.close()  # idempotent
        with self.assertRaises(ValueError):
            w.fileno()

    def test_read_decodes_and_nonblocking_empty(self):
        r, wfd = os.pipe()
        os.set_blocking(r, False)
        with twheel.Wheel.from_fd(r, check_version=False) as w:
            self.assertEqual(w.read(), [])
            self.assertFalse(w.wait(0))
            os.write(wfd, event_bytes(3, 30, 1000, 1, 1) +
                     event_bytes(4, 2**64 - 1, -1, 7, 11))
            self.assertTrue(w.wait(0))
            evs = w.read()
            self.assertEqual(evs, [
                twheel.Event(3, 30, 1000, 1, twheel.Clock.MONOTONIC, 0),
                twheel.Event(4, 2**64 - 1, -1, 7, twheel.Clock.TAI, 0)])
            self.assertIsInstance(evs[0].id, twheel.TimerId)
            self.assertIs(evs[1].clock, twheel.Clock.TAI)
            self.assertFalse(evs[0].clock_set)
            # A record of a clock set: its flag, the alarm clocks by name.
            os.write(wfd, event_bytes(0, 0, 9, 2, 0, 1) +
                     event_bytes(8, 1, 9, 0, 8, 1) +
                     event_bytes(9, 1, 9, 1, 9, 0))
            evs = w.read()
            self.assertEqual([(e.clock_set, e.flags, e.clock) for e in evs],
                             [(True, 1, twheel.Clock.REALTIME),
                              (True, 1, twheel.Clock.REALTIME_ALARM),
                              (False, 0, twheel.Clock.BOOTTIME_ALARM)])
            self.assertIs(evs[2].clock, twheel.Clock.BOOTTIME_ALARM)
            # records() ends when none is queued on a non-blocking fd.
            os.write(wfd, event_bytes(5, 0, 0) + event_bytes(6, 0, 0))
            self.assertEqual([e.id for e in w.records()], [5, 6])
            # Not whole records: refused, never half-decoded.
            os.write(wfd, b"x" * 41)
            with self.assertRaises(OSError) as cm:
                w.read()
            self.assertEqual(cm.exception.errno, errno.EIO)
            with self.assertRaises(ValueError):
                w.read(0)
        os.close(wfd)

    def test_read_async(self):
        r, wfd = os.pipe()
        os.set_blocking(r, False)
        w = twheel.Wheel.from_fd(r, check_version=False)

        async def main():
            loop = asyncio.get_running_loop()
            loop.call_later(0.05, os.write, wfd, event_bytes(1, 10, 5))
            first = await asyncio.wait_for(w.read_async(), 10)
            # Cancelled while waiting: the reader is removed again and
            # the record written afterwards is still there to read.
            task = asyncio.ensure_future(w.read_async())
            await asyncio.sleep(0.02)
            task.cancel()
            with self.assertRaises(asyncio.CancelledError):
                await task
            self.assertFalse(loop.remove_reader(r))
            os.write(wfd, event_bytes(2, 20, 6) + event_bytes(3, 30, 7))
            got = []
            async for ev in w.records_async():
                got.append(ev)
                if len(got) == 2:
                    break
            return first, got

        with w:
            first, got = asyncio.run(main())
        os.close(wfd)
        self.assertEqual([(e.id, e.cookie) for e in first], [(1, 10)])
        self.assertEqual([(e.id, e.cookie) for e in got], [(2, 20), (3, 30)])

    def test_read_async_needs_nonblocking(self):
        r, wfd = os.pipe()
        with twheel.Wheel.from_fd(r, check_version=False) as w:
            with self.assertRaises(ValueError):
                asyncio.run(w.read_async())
        os.close(wfd)


if __name__ == "__main__":
    unittest.main()
