#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""An asyncio echo server whose per-connection idle timeouts all live in
ONE /dev/twheel fd, through twheel.Idle (the shared timer table).

The timer logic, which is the point of the example (marked "# timer:"):

  open      Idle(max_conns, timeout_ns): the fd and its table.
  connect   idle.add(n): a handle, its timer the timeout from now,
            cookie = the connection's number.
  data      idle.touch(h): "timeout from now" again, by one store into
            the table (no system call).
  expiry    one task: ``async for ev in idle.expiries()`` yields the
            connections idle for the whole timeout (real expiries only:
            a touch that came late never closes one), each closed and
            its handle removed.
  close     idle.remove(h) (the client left first): one store.

No asyncio timer, no per-connection task sleeping: 10 or 100 000
connections cost one fd and one reader in the loop.

Usage:
  idle_server.py [--port N | --unix PATH] [--timeout MS]   serve until killed
  idle_server.py --selftest                                 check itself

--selftest runs the server on a Unix socket with its own clients in this
process: "idle" clients send once and go quiet, "active" ones send every
timeout/10 for 3 timeouts and then close. It checks (CLOCK_MONOTONIC,
seen from the client) that every idle client is closed by the server, not
before the timeout after its last message echoed; that no active client
is closed sooner than that (one closed later, after a stall of the
machine, is counted, not a failure) or loses an echo; and that no
connection is reported idle after the server saw it close. It prints a
summary, then "selftest: passed" (exit 0) or the violations (exit 1).
Only lower bounds on time are asserted: a slow machine delays closes, it
never makes them early.
"""

import argparse
import asyncio
import itertools
import os
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                ".."))
import twheel  # noqa: E402


class IdleServer:
    """Echo connections; close each one idle for the tracker's timeout."""

    def __init__(self, idle: twheel.Idle):
        self.idle = idle
        self.conns = {}         # cookie -> (StreamWriter, handle)
        self.numbers = itertools.count(1)
        self.stats = dict(connections=0, idle_closed=0, client_closed=0)

    async def handle(self, reader, writer):
        n = next(self.numbers)
        h = self.idle.add(n)                                # timer:
        self.conns[n] = (writer, h)
        self.stats["connections"] += 1
        try:
            # Not in conns: closed as idle meanwhile, h removed.
            while (data := await reader.read(4096)) and n in self.conns:
                self.idle.touch(h)                          # timer:
                writer.write(data)
                await writer.drain()
        except ConnectionError:
            pass
        finally:
            if self.conns.pop(n, None) is not None:     # the client left
                self.idle.remove(h)                         # timer:
                self.stats["client_closed"] += 1
                writer.close()

    async def reap(self):
        """Close the connections idle for the timeout (a KeyError: one
        reported after its close, which Idle never does)."""
        async for ev in self.idle.expiries():               # timer:
            writer, h = self.conns.pop(ev.cookie)
            self.idle.remove(h)                             # timer:
            self.stats["idle_closed"] += 1
            writer.close()


async def serve(args):
    with twheel.Idle(1024, args.timeout * twheel.MSEC) as idle:  # timer:
        srv = IdleServer(idle)
        if args.unix:
            server = await asyncio.start_unix_server(srv.handle, args.unix)
        else:
            server = await asyncio.start_server(srv.handle, "127.0.0.1",
                                                args.port)
        print(f"serving on {server.sockets[0].getsockname()}, idle timeout "
              f"{args.timeout} ms", flush=True)
        async with server:
            await asyncio.gather(server.serve_forever(), srv.reap())


# ---- --selftest ----

async def idle_client(path, timeout_ns, problems):
    # Before the connect and the send: the server's add and touch are
    # after, so its deadline is at least this plus the timeout.
    last = time.monotonic_ns()
    reader, writer = await asyncio.open_unix_connection(path)
    try:
        writer.write(b"hello")
        await writer.drain()
        got = await reader.read()       # the echo, until the server closes
    except ConnectionError:
        got = b""                       # closed before (a stall)
    quiet = time.monotonic_ns() - last
    writer.close()
    if got not in (b"hello", b""):
        problems.append(f"idle client: unexpected data {got!r}")
    if quiet < timeout_ns:
        problems.append(f"idle client closed early: after {quiet} ns "
                        f"< {timeout_ns} ns")
    return quiet


async def active_client(path, timeout_ns, problems):
    """0, or 1 when the server closed it (late: a stall)."""
    last = time.monotonic_ns()
    reader, writer = await asyncio.open_unix_connection(path)
    for i in range(30):
        sent, msg = time.monotonic_ns(), b"%04d" % i
        try:
            writer.write(msg)
            await writer.drain()
            got = await reader.read(4)
        except ConnectionError:
            got = b""
        if not got:
            # Closed by the server: never within the timeout of the last
            # message it echoed (touched before the echo).
            quiet = time.monotonic_ns() - last
            if quiet < timeout_ns:
                problems.append(f"active client closed early: after "
                                f"{quiet} ns < {timeout_ns} ns")
            writer.close()
            return 1
        if got != msg:
            problems.append(f"active client lost its echo {i}: got {got!r}")
            break
        last = sent
        await asyncio.sleep(timeout_ns / 10 / 1e9)
    writer.close()
    await writer.wait_closed()
    return 0


async def selftest():
    timeout_ms = 1000
    timeout_ns = timeout_ms * twheel.MSEC
    n_idle, n_active = 5, 5
    problems = []
    with tempfile.TemporaryDirectory() as d, \
            twheel.Idle(1024, timeout_ns) as idle:
        path = os.path.join(d, "echo.sock")
        srv = IdleServer(idle)
        server = await asyncio.start_unix_server(srv.handle, path)
        reaper = asyncio.ensure_future(srv.reap())
        t0 = time.monotonic()
        results = await asyncio.gather(
            *[idle_client(path, timeout_ns, problems) for _ in range(n_idle)],
            *[active_client(path, timeout_ns, problems)
              for _ in range(n_active)])
        quiet, late = results[:n_idle], sum(results[n_idle:])
        # Until the server saw every close (or closed it as idle), then
        # past the deadlines: a report after a close would end the reaper.
        while srv.conns and not reaper.done():
            await asyncio.sleep(0.05)
        await asyncio.sleep(2 * timeout_ns / 1e9)
        server.close()
        await server.wait_closed()
        if reaper.done():
            problems.append(f"reaper: {reaper.exception()!r}")
        reaper.cancel()
        elapsed = time.monotonic() - t0
    st = srv.stats
    for k in ("connections", "idle_closed", "client_closed"):
        print(f"{k}: {st[k]}")
    print(f"active_closed_late: {late}")
    print(f"idle_quiet_ms: min {min(quiet) / 1e6:.1f} max "
          f"{max(quiet) / 1e6:.1f} (timeout {timeout_ms})")
    print(f"elapsed_s: {elapsed:.1f}")
    if st["connections"] != n_idle + n_active:
        problems.append(f"connections: {st['connections']}")
    if st["idle_closed"] + st["client_closed"] != st["connections"]:
        problems.append("connections neither closed as idle nor by the client")
    for p in problems:
        print(f"selftest: FAIL: {p}")
    print("selftest: " + ("failed" if problems else "passed"))
    return 1 if problems else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--port", type=int, default=7007)
    ap.add_argument("--unix", metavar="PATH")
    ap.add_argument("--timeout", type=int, default=5000, metavar="MS")
    ap.add_argument("--selftest", action="store_true")
    args = ap.parse_args()
    if args.selftest:
        return asyncio.run(selftest())
    try:
        asyncio.run(serve(args))
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
