# SPDX-License-Identifier: GPL-2.0
"""report_targets.py - for tests/bench/report.py: the table of targets
(all but issue 27's, report_idle.py): each judged on its worst case over
every repetition and every case it covers.
"""
from report_fmt import (L_IMPLS, MODES, OP_NAME, OPS, T_BOUND,
                        T_CANCEL_BOUND, TW_CFGS, nlabel, per_rep_ratio)


class Targets:
    """Report's targets (see report.Report)."""

    # ---- targets ----

    def target(self, name, bound, value, met, note=""):
        verdict = "n/a" if met is None else \
            ("**met**" if met else "**missed**")
        self.targets.append([name, bound, value, verdict, note])

    def worst(self, cases):
        """cases: [(value, where)] -> (worst value, where) or None."""
        cases = [c for c in cases if c[0] is not None]
        return max(cases, key=lambda c: c[0]) if cases else None

    def targets_build(self):
        i, w = self.i, self.w
        # Batched 64, instructions.
        for op in OPS:
            cases = []
            if i:
                for mode in MODES:
                    for n in self.cost_ns(i, "root", mode):
                        for rep, v in self.cost_of(i, "root", mode, op,
                                                   "twheel-b64", n).items():
                            cases.append((v, f"{mode} N={nlabel(n)} "
                                          f"rep {rep}"))
            wc = self.worst(cases)
            name = f"batched 64 (SUBMIT): {OP_NAME[op]}, instructions per op"
            if wc:
                self.target(name, "≤ 300", f"worst {wc[0]:.0f} ({wc[1]})",
                            wc[0] <= 300)
            else:
                self.target(name, "≤ 300", "-", None, "no icount boot")
        # Unbatched ratios, instructions.
        for op, bound, what in (("modify", 1.0, "timerfd_settime"),
                                ("schedule", 0.25, "timerfd_create + "
                                 "timerfd_settime + EPOLL_CTL_ADD"),
                                ("cancel", 0.25, "EPOLL_CTL_DEL + close")):
            cases = []
            if i:
                for mode in MODES:
                    for n in self.cost_ns(i, "root", mode):
                        r = per_rep_ratio(
                            self.cost_of(i, "root", mode, op,
                                         "twheel-ioctl", n),
                            self.cost_of(i, "root", mode, op, "timerfd", n))
                        for rep, v in r.items():
                            cases.append((v, f"{mode} N={nlabel(n)} "
                                          f"rep {rep}"))
            wc = self.worst(cases)
            name = f"unbatched {OP_NAME[op]} / {what}, instructions"
            if wc:
                self.target(name, f"≤ {bound:g}×",
                            f"worst {wc[0]:.3f}× ({wc[1]})", wc[0] <= bound)
            else:
                self.target(name, f"≤ {bound:g}×", "-", None,
                            "no icount boot")
        # Expiry, instructions.
        cases = []
        if i:
            e = i.expiry["root"]
            for k in sorted(e.get("twheel", {})):
                r = per_rep_ratio({q: v[0] for q, v in e["twheel"][k].items()},
                                  {q: v[0] for q, v in e["timerfd"][k].items()})
                for rep, v in r.items():
                    cases.append((v, f"K={nlabel(k)} rep {rep}"))
        wc = self.worst(cases)
        name = ("expiry: all CPU per delivered record / timerfd+epoll's, "
                "instructions")
        if wc:
            self.target(name, "≤ 0.1×", f"worst {wc[0]:.3f}× ({wc[1]})",
                        wc[0] <= 0.1)
        else:
            self.target(name, "≤ 0.1×", "-", None, "no icount boot")
        # Shared timer table (manual clock), instructions.
        for k in ([] if self.page else sorted(T_BOUND, reverse=True)):
            wc = self.worst(self.table_cases(k))
            name = (f"shared table, {k} activit{'y' if k == 1 else 'ies'} "
                    "per period: store + the kernel's share / heap re-arm, "
                    "instructions per activity")
            bound = f"≤ {T_BOUND[k]:g}×"
            if wc:
                self.target(name, bound, f"worst {wc[0]:.3f}× ({wc[1]})",
                            wc[0] <= T_BOUND[k])
            else:
                self.target(name, bound, "-", None, "no table phase")
        wc = self.worst(self.tcancel_cases())
        name = ("shared table: cancel by store, free at the deadline "
                "counted / heap removal, instructions per timer")
        bound = f"≤ {T_CANCEL_BOUND:g}×"
        if self.page:
            pass
        elif wc:
            self.target(name, bound, f"worst {wc[0]:.3f}× ({wc[1]})",
                        wc[0] <= T_CANCEL_BOUND)
        else:
            self.target(name, bound, "-", None, "no table phase")
        # Growth, wall.
        for op in OPS:
            cases, hi = [], None
            if w:
                for mode in MODES:
                    tf, _ = self.growth(w, "root", mode, op, "timerfd")
                    hp, _ = self.growth(w, "root", mode, op, "heap")
                    for cfg in TW_CFGS:
                        g, h = self.growth(w, "root", mode, op, cfg)
                        hi = h or hi
                        for rep, v in g.items():
                            if rep not in tf or rep not in hp:
                                continue
                            bound = min(tf[rep], hp[rep])
                            cases.append((v / bound,
                                          f"{cfg} {mode} rep {rep}: "
                                          f"{v:.2f} vs timerfd "
                                          f"{tf[rep]:.2f}, heap "
                                          f"{hp[rep]:.2f}"))
            wc = self.worst(cases)
            name = (f"growth: {OP_NAME[op]} wall cost at "
                    f"N={nlabel(hi) if hi else '10^6'} / at 10^3, every "
                    "twheel config")
            bound = "≤ timerfd's and ≤ the heap's"
            if wc and hi and hi >= 10 ** 6:
                self.target(name, bound, f"worst {wc[1]}", wc[0] <= 1.0)
            elif wc:
                self.target(name, bound, f"worst {wc[1]}", None,
                            f"measured up to N={nlabel(hi)} only")
            else:
                self.target(name, bound, "-", None, "no wall boot or one N")
        # Memory, whole slabinfo.
        cases = []
        if w:
            for cg in w.cgs():
                for pat, d in w.mem[cg].items():
                    for rep, x in d.items():
                        if x[3] >= 0:
                            cases.append((x[3], f"{cg} {pat} rep {rep}"))
        wc = self.worst(cases)
        name = "memory per live timer, whole /proc/slabinfo, every pattern"
        if wc:
            self.target(name, "≤ 64 B", f"worst {wc[0]:.1f} B ({wc[1]})",
                        wc[0] <= 64)
        else:
            self.target(name, "≤ 64 B", "-", None, "no memory phase")
        # Lateness, every rep.
        if w:
            for cg in w.cgs():
                lt = w.late[cg]
                tfd = lt.get("timerfd", {})
                for impl, tick in L_IMPLS[:2]:
                    d = lt.get(impl)
                    if not d:
                        continue
                    early = [(x[3], f"{cg} rep {r}") for r, x in d.items()]
                    wc = self.worst(early)
                    self.target(f"lateness {impl}: early records", "0",
                                f"worst {wc[0]} ({wc[1]})", wc[0] == 0)
                    for qi, q in ((0, "p50"), (1, "p99")):
                        cases = [((d[r][qi] - tfd[r][qi]),
                                  f"{cg} rep {r}: twheel {d[r][qi] / 1000:.0f}"
                                  f" µs, timerfd {tfd[r][qi] / 1000:.0f} µs")
                                 for r in d if r in tfd]
                        wc = self.worst(cases)
                        if not wc:
                            continue
                        self.target(f"lateness {impl}: {q} − timerfd's {q}",
                                    f"≤ +{tick / 1000:g} µs (1 tick)",
                                    f"worst {wc[0] / 1000:+.0f} µs "
                                    f"({wc[1]})", wc[0] <= tick)
        self.idle_targets()
