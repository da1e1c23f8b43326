# SPDX-License-Identifier: GPL-2.0
"""report_cost.py - for tests/bench/report.py: the sections of the results
other than the idle timeouts: cost per operation (with its floor, ratios,
expiries in spread mode and growth with N), expiry delivery, the shared
timer table (manual clock), lateness and kernel memory per timer.
"""
from report_fmt import (COST_IMPLS, MEM_COLS, MODE_LABEL, MODES, OP_NAME,
                        OPS, PATTERNS, T_BOUND, T_CANCEL_BOUND, T_IMPLS,
                        T_LABEL, TFD_LABEL, TFD_PARTS, L_IMPLS, X_IMPLS,
                        fmt, fmt_ratio, nlabel, per_rep_ratio)


class CostSections:
    """Report's sections but the idle timeouts' (see report.Report)."""

    # ---- cost ----

    def cost_of(self, res, cg, mode, op, impl, n):
        """{rep: ns/op}; timerfd's parts summed are its figure."""
        if res is None:
            return {}
        return res.cost[cg][mode][op][impl].get(n, {})

    def cost_ns(self, res, cg, mode):
        c = res.cost[cg][mode] if res else {}
        return sorted({n for op in OPS for impl in c.get(op, {})
                       for n in c[op][impl]})

    def cost_section(self):
        for mode in MODES:
            wall_cgs = [cg for cg in (self.w.cgs() if self.w else [])
                        if self.cost_ns(self.w, cg, mode)]
            ic_ns = self.cost_ns(self.i, "root", mode)
            if not wall_cgs and not ic_ns:
                continue
            self.out(f"### Cost per operation, {mode} mode "
                     f"({MODE_LABEL[mode]})")
            self.out()
            for op in OPS:
                self.out(f"**{op}** ({OP_NAME[op]} for twheel), per "
                         "operation: wall-clock µs · guest instructions "
                         "(i, icount boot, root)")
                self.out()
                for cg in wall_cgs or ["root"]:
                    ns = sorted(set(self.cost_ns(self.w, cg, mode)) |
                                (set(ic_ns) if cg == "root" else set()))
                    rows = []
                    impls = COST_IMPLS[:-1] + TFD_PARTS[op] + ["heap"]
                    for impl in impls:
                        label = TFD_LABEL[op] if impl == "timerfd" else impl
                        if impl.startswith("timerfd."):
                            label = "  part: " + impl
                        row = [label]
                        for n in ns:
                            wv = list(self.cost_of(self.w, cg, mode, op,
                                                   impl, n).values())
                            iv = list(self.cost_of(self.i, cg, mode, op,
                                                   impl, n).values()) \
                                if cg == "root" else []
                            parts = []
                            if wv:
                                parts.append(fmt(wv, 1000.0) + " µs")
                            if iv:
                                parts.append(fmt(iv, 1, 0) + " i")
                            row.append(" · ".join(parts) or "-")
                        if any(x != "-" for x in row[1:]):
                            rows.append(row)
                    self.out(f"{cg}:")
                    self.out()
                    self.table(["impl"] + [f"N={nlabel(n)}" for n in ns],
                               rows)
            self.floor_table(mode)
            self.ratio_table(mode)
            if mode == "spread":
                self.costx_table()
        self.growth_table()

    def floor_table(self, mode):
        rows = []
        for res, what in ((self.w, "wall µs"), (self.i, "instructions")):
            if not res:
                continue
            fl = res.cost["root"][mode].get("floor", {})
            for impl in sorted(fl):
                for n in sorted(fl[impl]):
                    v = list(fl[impl][n].values())
                    rows.append([impl, what, nlabel(n),
                                 fmt(v, 1000.0 if res is self.w else 1,
                                     2 if res is self.w else 0)])
        if rows:
            self.out(f"**floor** ({mode} mode, root): a bare system call "
                     "(getppid), an ioctl the driver refuses (twheel-enotty:"
                     " what any twheel ioctl costs before it does anything), "
                     "TWHEEL_IOC_INFO (the fd's mutex and a 96-byte copy, no "
                     "timer touched)")
            self.out()
            self.table(["call", "unit", "N", "per call"], rows)

    def ratio_table(self, mode):
        rows = []
        for res, unit in ((self.i, "icount"), (self.w, "wall")):
            if not res:
                continue
            ns = self.cost_ns(res, "root", mode)
            for op in OPS:
                for cfg in ("twheel-ioctl", "twheel-b64"):
                    for alt in ("timerfd", "heap"):
                        row = [f"{op} {cfg} / {alt}", unit]
                        for n in ns:
                            r = per_rep_ratio(
                                self.cost_of(res, "root", mode, op, cfg, n),
                                self.cost_of(res, "root", mode, op, alt, n))
                            row.append(fmt_ratio(list(r.values())))
                        rows.append(row)
            if rows:
                self.out(f"**ratios** ({mode} mode, root; median [min–max] "
                         "of per-rep ratios)")
                self.out()
                self.table(["ratio", "clock"] +
                           [f"N={nlabel(n)}" for n in ns], rows)
                rows = []

    def costx_table(self):
        rows = []
        for res, unit in ((self.w, "wall"), (self.i, "icount")):
            if not res:
                continue
            cx = res.costx["root"]
            for impl in COST_IMPLS:
                for n in sorted(cx.get(impl, {})):
                    v = cx[impl][n].values()
                    rows.append([impl, unit, nlabel(n),
                                 str(sum(x[0] for x in v)),
                                 str(sum(x[1] for x in v))])
        if rows:
            self.out("**expiries in spread mode** (root, all reps summed): "
                     "timers that expired while the phase ran were drained "
                     "and re-armed, untimed, before every timed loop; "
                     "\"in timed loops\" counts those whose deadline fell "
                     "inside a timed loop, whose expiry work is in that "
                     "loop's time")
            self.out()
            self.table(["impl", "clock", "N", "in timed loops",
                        "drained in all"], rows)

    def growth(self, res, cg, mode, op, impl):
        """{rep: cost at the largest N / cost at 10^3}, largest N."""
        ns = self.cost_ns(res, cg, mode)
        if not ns or len(ns) < 2:
            return {}, None
        lo, hi = ns[0], ns[-1]
        return per_rep_ratio(self.cost_of(res, cg, mode, op, impl, hi),
                             self.cost_of(res, cg, mode, op, impl, lo)), hi

    def growth_table(self):
        if not self.w:
            return
        rows, hi = [], None
        for mode in MODES:
            for impl in COST_IMPLS:
                row = [impl, mode]
                for op in OPS:
                    g, h = self.growth(self.w, "root", mode, op, impl)
                    hi = h or hi
                    row.append(fmt_ratio(list(g.values()), 2))
                if any(x != "-" for x in row[2:]):
                    rows.append(row)
        if rows:
            self.out(f"**growth with N: wall cost at N={nlabel(hi)} / at "
                     "N=10^3** (root, median [min–max] over reps). Judged "
                     "in wall time only: under icount memory latency "
                     "vanishes, an instruction costs the same whether it "
                     "hits the cache or not.")
            self.out()
            self.table(["impl", "mode"] + OPS, rows)

    # ---- expiry ----

    def expiry_section(self):
        rows = []
        for res, unit in ((self.w, "wall"), (self.i, "icount")):
            if not res:
                continue
            e = res.expiry["root"]
            for impl in X_IMPLS:
                for k in sorted(e.get(impl, {})):
                    v = list(e[impl][k].values())
                    if unit == "wall":
                        rows.append([impl, nlabel(k), unit,
                                     fmt([x[0] for x in v], 1000.0, 3) + " µs",
                                     fmt([x[1] for x in v], 1000.0, 3) + " µs",
                                     fmt([x[2] for x in v], 1e6, 2) + " ms"])
                    else:
                        rows.append([impl, nlabel(k), unit,
                                     fmt([x[0] for x in v], 1, 0),
                                     fmt([x[1] for x in v], 1, 0), "-"])
        if not rows:
            return
        self.out("### Expiry delivery: K timers due at once, one waiter "
                 "(root)")
        self.out()
        self.out("All CPU: everything CPU 0 did (the process, the kernel on "
                 "its behalf, interrupt work: hrtimer callbacks, the wheel's "
                 "cascades before the deadline) from the first ADD (timerfd:"
                 " settime; heap: push) to the last record read, divided by "
                 "K; the bench runs pinned to CPU 0, where its hrtimers are "
                 "armed and fire. Process CPU: the waiter's own CPU time "
                 "over the same span (no interrupt work done while it "
                 "slept). Under icount both are guest instructions.")
        self.out()
        self.table(["impl", "K", "clock", "all CPU / record",
                    "process CPU / record", "deadline → all read"], rows)
        rows = []
        for res, unit in ((self.i, "icount"), (self.w, "wall")):
            if not res:
                continue
            e = res.expiry["root"]
            for alt in ("timerfd", "heap"):
                for k in sorted(e.get("twheel", {})):
                    row = [f"twheel / {alt}", nlabel(k), unit]
                    for i in (0, 1):
                        r = per_rep_ratio(
                            {q: v[i] for q, v in e["twheel"][k].items()},
                            {q: v[i] for q, v in e[alt][k].items()})
                        row.append(fmt_ratio(list(r.values())))
                    rows.append(row)
        self.table(["ratio", "K", "clock", "all CPU", "process CPU"], rows)
        if self.w and self.w.idle:
            self.out("Check of the busy clock (CPU 0's elapsed time minus "
                     "its idle time, from tests/bench/idlestat's module): " + "; ".join(
                         f"{res.clock} {what}: {ns / 1e6:.1f} ms elapsed, "
                         f"{busy / 1e6:.3f} ms busy"
                         for res in (self.w, self.i) if res
                         for (cg, what), (ns, busy) in sorted(res.idle.items())
                         if cg == "root"))
            self.out()

    # ---- shared timer table ----

    def table_cases(self, k):
        """[(table / heap re-arm, where)] for K, every N and rep."""
        if not self.i:
            return []
        t = self.i.table["root"]
        out = []
        for n in sorted(t.get("table", {}).get(k, {})):
            r = per_rep_ratio(t["table"][k][n], t["heap"][k].get(n, {}))
            for rep, v in r.items():
                out.append((v, f"N={nlabel(n)}"))
        return out

    def tcancel_cases(self):
        if not self.i:
            return []
        c = self.i.tcancel["root"]
        out = []
        for n in sorted(c.get("table", {})):
            r = per_rep_ratio(c["table"][n], c["heap"].get(n, {}))
            for rep, v in r.items():
                out.append((v, f"N={nlabel(n)}"))
        return out

    def table_section(self):
        if not self.i or not self.i.table["root"]:
            return
        t = self.i.table["root"]
        self.out("### Shared timer table: a timeout pushed back per activity"
                 " (icount boot, guest instructions)")
        self.out()
        self.out("N timers with a timeout of P = 1000 ticks of 1 ms; K "
                 "activities per timer per period, evenly spaced (the timers"
                 " in a random order, K·N/P of them each tick); an activity "
                 "sets the timer's deadline to now + P + 1 tick. **table "
                 "store**: one store into the mapped entry "
                 "(TWHEEL_TABLE_DEADLINE); the kernel re-places the timer "
                 "when its old deadline comes due. The twheel fds run on "
                 "the manual clock, advanced by one TWHEEL_IOC_ADVANCE per "
                 "tick after that tick's activities (what the hrtimer and "
                 "the waiter's poll do on a real clock): the ADVANCEs, with "
                 "their cascades and re-placements, are counted, and a "
                 "figure is the whole run divided by the activities. The "
                 "table runs one untimed period, then a timed one; MODIFY "
                 "(TWHEEL_IOC_MODIFY per activity), batched MODIFY "
                 "(TWHEEL_IOC_SUBMIT of up to 64: a tick's activities, as "
                 "one event-loop iteration has them; at K·N/P < 64 a batch "
                 "holds fewer), timerfd_settime (one timerfd per timer) and "
                 "the heap (re-key plus its timerfd's settime when the "
                 "minimum changed; it changes once per tick, when a tick's "
                 "bucket is done) run a window of ticks (at least 8192 "
                 "activities or a whole period) after an untimed one. "
                 "Ratio: table / heap re-arm. One repetition (icount "
                 "figures repeat); `tests/bench/user/table.c`.")
        self.out()
        rows = []
        for k in sorted(T_BOUND):
            for n in sorted(t.get("table", {}).get(k, {})):
                row = [str(k), nlabel(n)]
                for impl in T_IMPLS:
                    v = list(t.get(impl, {}).get(k, {}).get(n, {}).values())
                    row.append(fmt(v, 1, 1))
                r = per_rep_ratio(t["table"][k][n],
                                  t.get("heap", {}).get(k, {}).get(n, {}))
                rv = list(r.values())
                row.append(fmt_ratio(rv))
                row.append(f"≤ {T_BOUND[k]:g}×")
                row.append("-" if not rv else
                           ("met" if max(rv) <= T_BOUND[k] else "**missed**"))
                rows.append(row)
        self.table(["K / period", "N"] + [T_LABEL[x] for x in T_IMPLS] +
                   ["table / heap", "target", "verdict"], rows)
        c = self.i.tcancel["root"]
        rows = []
        for n in sorted(c.get("table", {})):
            row = [nlabel(n)]
            for impl in ("table", "cancel-ioctl", "heap"):
                row.append(fmt(list(c.get(impl, {}).get(n, {}).values()),
                               1, 1))
            rv = list(per_rep_ratio(c["table"][n],
                                    c.get("heap", {}).get(n, {})).values())
            row.append(fmt_ratio(rv))
            row.append(f"≤ {T_CANCEL_BOUND:g}×")
            row.append("-" if not rv else
                       ("met" if max(rv) <= T_CANCEL_BOUND else
                        "**missed**"))
            rows.append(row)
        if rows:
            self.out("**cancel**, per timer: all N timers cancelled in a "
                     "random order. table: a TWHEEL_TABLE_CANCELLED store "
                     "each, then P + 1 ticks of ADVANCE, in which the kernel "
                     "frees them at their deadlines (counted); CANCEL ioctl: "
                     "TWHEEL_IOC_CANCEL each (for reference); heap: delete "
                     "each (with its timerfd's settime when the minimum "
                     "changed).")
            self.out()
            self.table(["N", "table store + free", "CANCEL ioctl",
                        "heap removal", "table / heap", "target",
                        "verdict"], rows)
        settimes = self.i.meta.get("table_heap_settimes", [])
        if settimes:
            self.out("Heap settimes in the timed windows: " +
                     "; ".join(settimes) + ".")
            self.out()

    # ---- lateness ----

    def late_section(self):
        if not self.w:
            return
        for cg in self.w.cgs():
            lt = self.w.late[cg]
            if not lt:
                continue
            n = next(iter(next(iter(lt.values())).values()))[4]
            self.out(f"### Lateness: {n} timers over 2 s, one blocking "
                     f"reader, µs, per repetition (wall boot, {cg})")
            self.out()
            self.out("Lateness is judged in the wall-clock boot only: under "
                     "icount the idle time between events is skipped, so "
                     "lateness and its tail mean nothing there.")
            self.out()
            rows = []
            for impl, _ in L_IMPLS:
                for rep, x in sorted(lt.get(impl, {}).items()):
                    rows.append([impl, str(rep), f"{x[0] / 1000:.0f}",
                                 f"{x[1] / 1000:.0f}", f"{x[2] / 1000:.0f}",
                                 str(x[3]), str(x[4])])
            self.table(["impl", "rep", "p50", "p99", "max", "early",
                        "records"], rows)

    # ---- memory ----

    def mem_section(self):
        if not self.w:
            return
        for cg in self.w.cgs():
            mm = self.w.mem[cg]
            if not mm:
                continue
            live = self.w.opt(cg, "mem_live")
            rows = []
            for pat in PATTERNS:
                v = list(mm.get(pat, {}).values())
                if not v:
                    continue
                row = [pat]
                for i in range(8):
                    col = [x[i] for x in v]
                    row.append("-" if i == 2 and cg == "root"
                               else fmt(col, 1, 1))
                rows.append(row)
            self.out(f"### Kernel memory per live timer, bytes ({live} live "
                     f"timers on one fd; wall boot, {cg})")
            self.out()
            self.out("Growth from the fd's first timer to the end, divided "
                     "by the live timers, each reading after every slab "
                     "cache was shrunk and the page cache dropped. twheel "
                     "caches: twheel_timer + twheel_ptimer; the id index: "
                     "fdinfo's index_bytes; whole slabinfo: every cache of "
                     "/proc/slabinfo (num_slabs × pages per slab); Slab, "
                     "SUnreclaim, VmallocUsed: /proc/meminfo; MemAvailable "
                     "fall: what an administrator sees go (every page, "
                     "noisiest).")
            self.out()
            self.table(["pattern"] + MEM_COLS, rows)
