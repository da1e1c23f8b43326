#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""An asyncio echo server whose per-connection idle timeouts all live in
ONE /dev/twheel fd.

The timer path, which is the point of the example:

  connect   Wheel.add(): a one-shot timer, the idle timeout from now,
            cookie = the connection's number.
  data      Wheel.modify() of that timer: "timeout from now" again. One
            ioctl per activity, id kept; had it just expired, its unread
            record is retracted, so a connection with activity is never
            closed for a stale expiry.
  expiry    one task iterates over ``wheel.records_async()`` (the fd in
            the event loop through loop.add_reader): a record names the
            connection by its cookie, which is closed.
  close     Wheel.cancel() of its timer (the client left first).

No asyncio timer, no per-connection task sleeping: 10 or 100 000
connections cost one fd and one reader in the loop.

Usage:
  idle_server.py [--port N | --unix PATH] [--timeout MS]   serve until killed
  idle_server.py --selftest                                 check itself

--selftest runs the server on a Unix socket with its own clients in this
process: "idle" clients send once and go quiet, "active" ones send every
timeout/10 for 3 timeouts and then close. It checks (CLOCK_MONOTONIC,
seen from the client) that every idle client is closed by the server, not
before the timeout after its last message; that no active client is
closed or loses an echo; and that every activity cost exactly one MODIFY.
It prints a summary, then "selftest: passed" (exit 0) or the violations
(exit 1). Only lower bounds on time are asserted: a slow machine delays
closes, it never makes them early.
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
    """Echo connections; close each one idle for @timeout_ns."""

    def __init__(self, wheel: twheel.Wheel, timeout_ns: int):
        self.wheel = wheel
        self.timeout_ns = timeout_ns
        self.conns = {}         # cookie -> (StreamWriter, TimerId)
        self.numbers = itertools.count(1)
        self.stats = dict(connections=0, idle_closed=0, client_closed=0,
                          activities=0, modifies=0)

    async def handle(self, reader, writer):
        n = next(self.numbers)
        timer = self.wheel.add(self.timeout_ns, cookie=n)
        self.conns[n] = (writer, timer)
        self.stats["connections"] += 1
        try:
            while True:
                data = await reader.read(4096)
                if not data or n not in self.conns:
                    break
                self.stats["activities"] += 1
                self.wheel.modify(timer, self.timeout_ns)
                self.stats["modifies"] += 1
                writer.write(data)
                await writer.drain()
        except ConnectionError:
            pass
        finally:
            if self.conns.pop(n, None) is not None:
                # The client left (or failed) first: the timer goes.
                self.wheel.cancel(timer)
                self.stats["client_closed"] += 1
                writer.close()

    async def reap(self):
        """Close the connections whose timer expired."""
        async for ev in self.wheel.records_async():
            conn = self.conns.pop(ev.cookie, None)
            if conn is not None:
                self.stats["idle_closed"] += 1
                conn[0].close()


async def serve(args):
    with twheel.Wheel(blocking=False) as wheel:
        srv = IdleServer(wheel, args.timeout * twheel.MSEC)
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
    reader, writer = await asyncio.open_unix_connection(path)
    # Before the send: the server re-arms the timer after it, so its
    # deadline is at least this plus the timeout.
    last = time.monotonic_ns()
    writer.write(b"hello")
    await writer.drain()
    if await reader.readexactly(5) != b"hello":
        problems.append("idle client: wrong echo")
    rest = await reader.read()          # until the server closes it
    quiet = time.monotonic_ns() - last
    writer.close()
    if rest:
        problems.append(f"idle client: unexpected data {rest!r}")
    if quiet < timeout_ns:
        problems.append(f"idle client closed early: after {quiet} ns "
                        f"< {timeout_ns} ns")
    return quiet


async def active_client(path, timeout_ns, problems):
    reader, writer = await asyncio.open_unix_connection(path)
    rounds = 30
    for i in range(rounds):
        msg = b"%04d" % i
        writer.write(msg)
        await writer.drain()
        got = await reader.read(4)
        if got != msg:
            problems.append(f"active client lost its echo {i}: got {got!r}")
            break
        await asyncio.sleep(timeout_ns / 10 / 1e9)
    writer.close()
    await writer.wait_closed()
    return rounds


async def selftest():
    timeout_ms = 1000
    timeout_ns = timeout_ms * twheel.MSEC
    n_idle, n_active = 5, 5
    problems = []
    with tempfile.TemporaryDirectory() as d, \
            twheel.Wheel(blocking=False) as wheel:
        path = os.path.join(d, "echo.sock")
        srv = IdleServer(wheel, timeout_ns)
        server = await asyncio.start_unix_server(srv.handle, path)
        reaper = asyncio.ensure_future(srv.reap())
        t0 = time.monotonic()
        results = await asyncio.gather(
            *[idle_client(path, timeout_ns, problems) for _ in range(n_idle)],
            *[active_client(path, timeout_ns, problems)
              for _ in range(n_active)])
        # Let the server see the active clients' closes.
        for _ in range(100):
            if not srv.conns:
                break
            await asyncio.sleep(0.05)
        server.close()
        await server.wait_closed()
        reaper.cancel()
        left = wheel.info().timers
        elapsed = time.monotonic() - t0
    st = srv.stats
    quiet = results[:n_idle]
    print(f"connections: {st['connections']}")
    print(f"idle_closed: {st['idle_closed']}")
    print(f"client_closed: {st['client_closed']}")
    print(f"activities: {st['activities']}")
    print(f"timer_modifies: {st['modifies']}")
    print(f"idle_quiet_ms: min {min(quiet) / 1e6:.1f} max "
          f"{max(quiet) / 1e6:.1f} (timeout {timeout_ms})")
    print(f"timers_left: {left}")
    print(f"elapsed_s: {elapsed:.1f}")
    expect = dict(connections=n_idle + n_active, idle_closed=n_idle,
                  client_closed=n_active)
    for k, v in expect.items():
        if st[k] != v:
            problems.append(f"{k}: {st[k]}, expected {v}")
    if st["modifies"] != st["activities"]:
        problems.append("not one MODIFY per activity")
    if st["activities"] != n_idle + 30 * n_active:
        problems.append(f"activities: {st['activities']}, expected "
                        f"{n_idle + 30 * n_active}")
    if left != 0:
        problems.append(f"{left} timers left in the wheel")
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
