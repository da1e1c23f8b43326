# SPDX-License-Identifier: GPL-2.0
"""report_idle.py - for tests/bench/report.py: the idle timeouts on the
real clock (phase i, tests/bench/user/idle.c): their section, issue 27's
targets (idle-targets.md) and the verdict's lines (verdict.md).
"""
from report_fmt import I_LABEL, I_MODES, fmt_ratio, med, nlabel


class IdleSection:
    """Report's idle-timeout section and targets (see report.Report)."""

    # ---- idle timeouts on the real clock (idle.c) ----

    def idle_res(self):
        """The boot whose idle-timeout figures count: icount, else wall."""
        for res in (self.i, self.w):
            if res and res.itime:
                return res
        return None

    @staticmethod
    def inet(res, mode, key, field):
        """{rep: mode per activity - store-only loop per activity} of one
        case: per activity on each side, since a mode's window may be
        shorter than the store-only loop's (timerfd, io_uring)."""
        m = res.itime.get((mode,) + key, {})
        st = res.itime.get(("store",) + key, {})
        out = {}
        for rep, r in m.items():
            if rep not in st or not r["acts"] or not st[rep]["acts"]:
                continue
            if field == "busy" and (r["busy"] < 0 or st[rep]["busy"] < 0):
                continue
            out[rep] = r[field] / r["acts"] - st[rep][field] / st[rep]["acts"]
        return out

    @staticmethod
    def icpu(res, mode, key):
        """The CPU figure a mode has: busy (all of CPU 0) or proc."""
        r = res.itime.get((mode,) + key, {})
        if r and all(x["busy"] >= 0 for x in r.values()):
            return "busy"
        return "proc"

    def iratio(self, res, a, b, key):
        """{rep: a / b}, net CPU per activity, on the figure both have."""
        f = "busy" if self.icpu(res, a, key) == "busy" and \
            self.icpu(res, b, key) == "busy" else "proc"
        x, y = self.inet(res, a, key, f), self.inet(res, b, key, f)
        return {r: x[r] / y[r] for r in x if r in y and y[r] > 0}, f

    def ikeys(self, res):
        return sorted({k[1:] for k in res.itime},
                      key=lambda k: (k[0], k[1], k[2] != "edge"))

    def ireps_text(self, res):
        """What the idle section says of its repetitions (none: "")."""
        n = self.ireps(res)
        if n <= 1:
            return ""
        return (f" **{n} repetitions** of every case and of the expiry "
                "run, each a fresh start (its own steady state, lead and "
                "window) at a later phase of the clock" +
                (" (under icount a case's figures move by up to about 10% "
                 "with the phase of the clock at its start)"
                 if res.clock == "icount" else "") +
                ", the modes interleaved (every mode's repetition 0, then "
                "every mode's repetition 1, ...), the store-only loop in "
                "each: a repetition's figures are net of its own "
                "store-only run. Figures: median [min–max] over the "
                "repetitions (the range left out where it rounds to "
                "nothing); ratios: per repetition, then the same; closes /"
                " late turns: the most of any repetition.")

    @staticmethod
    def ireps(res):
        """The idle phase's repetitions (of every case and the expiry
        run): how many REP values its lines carry."""
        return len({r for d in list(res.itime.values()) +
                    list(res.iexp.values()) for r in d})

    def idle_section(self):
        res = self.idle_res()
        if not res:
            return
        unit = "guest instructions" if res.clock == "icount" else "ns"
        self.out(f"### Idle timeouts on the real clock ({res.clock} boot, "
                 f"{unit})")
        self.out()
        self.out("One thread, one epoll loop blocked in epoll_pwait2() "
                 "between activities (CLOCK_MONOTONIC, 1 ms ticks, timer "
                 "slack 1 ns). N timers, K activities per timer per timeout"
                 " period P = max(1000, K·N/100) ticks, evenly spread "
                 "(≤ 100 a tick); an activity pushes the deadline to now + "
                 "P; a timer due unpushed closes and comes back as a new "
                 "connection. **edge**: activities on the tick boundary; "
                 "**half**: half a tick after it. Each run starts in the "
                 "steady state, then a lead of 100 ticks, then the timed "
                 "window of 4 096 ticks: one period of level 2 of a "
                 "64-slot wheel, where every case's deadlines go when they "
                 "cross a 4 096-tick boundary, so that every window holds "
                 "that level's cascade once (level 3's, every 262 144 "
                 "ticks, only by chance); 1 000 ticks for timerfd per timer "
                 "and io_uring, whose hrtimer tree cascades nothing. "
                 "**CPU/act**: the mode's CPU in the window minus "
                 "the store-only loop's (the same loop storing the deadline "
                 "in an array), per activity: **b** = all of CPU 0 (elapsed"
                 " - idle: user, kernel, interrupts; CPU 0's idle time "
                 "from tests/bench/idlestat's module, which reads the "
                 "kernel's idle accounting alone, where /proc/timer_list "
                 "would list every hrtimer first, in O(N²) with timerfd per"
                 " timer and io_uring), **p** = the process's CPU time "
                 "only (given where b is not measured). "
                 "**wake/act**: voluntary context switches, **sys/act**: "
                 "system calls the loop made, **LOC/act**: CPU 0's local "
                 "timer interrupts, each net of the store-only loop. "
                 "Ratios: CPU/act against the lazy heap and the lazy user "
                 "wheel, on the figure both have (b, else p). **closes / "
                 "late turns**: timers that closed in the window / loop "
                 "turns that began more than a tick late (0 / 0: the loop "
                 "kept up). `tests/bench/user/idle.c`." +
                 self.ireps_text(res))
        self.out()
        rows = []
        for key in self.ikeys(res):
            n, k, shape = key
            for mode in I_MODES:
                r = res.itime.get((mode,) + key)
                if not r:
                    continue
                f = self.icpu(res, mode, key)
                cpu = list(self.inet(res, mode, key, f).values())
                row = [nlabel(n), str(k), shape, I_LABEL[mode],
                       fmt_ratio(cpu, 0) + f" {f[0]}"]
                for fld in ("vcsw", "sys", "loc"):
                    row.append(fmt_ratio(list(self.inet(res, mode, key,
                                                        fld).values()), 3))
                for ref in ("heap-lazy", "wheel-lazy"):
                    rr, _ = self.iratio(res, mode, ref, key)
                    row.append(fmt_ratio(list(rr.values()), 2))
                cl = max(x["closes"] for x in r.values())
                lt = max(x["late_turns"] for x in r.values())
                row.append(f"{cl} / {lt}")
                rows.append(row)
        self.table(["N", "K", "shape", "mode", "CPU/act", "wake/act",
                    "sys/act", "LOC/act", "× lazy heap", "× lazy wheel",
                    "closes / late turns"], rows)
        rows = []
        for mode in I_MODES:
            r = res.iexp.get(mode)
            if not r:
                continue
            f = "busy" if all(x["busy"] >= 0 for x in r.values()) else \
                "proc"
            row = [I_LABEL[mode]]
            row.append(fmt_ratio([x[f] / x["acts"] for x in r.values()],
                                 0) + f" {f[0]}")
            row.append(fmt_ratio([x["proc"] / x["acts"]
                                  for x in r.values()], 0))
            for fld in ("vcsw", "sys", "loc"):
                row.append(fmt_ratio([x[fld] / x["acts"]
                                      for x in r.values()], 3))
            rr = self.iexp_ratio(res, mode, "heap-lazy")
            row.append(fmt_ratio(list(rr.values()), 2))
            rows.append(row)
        if rows:
            self.out("**Expiry**, per record: 10^4 deadlines spread over "
                     "1 s (10 a tick), no activity, until every timer has "
                     "closed once; the loop blocked in epoll_pwait2(). "
                     "twheel table + ring: the fd has the record ring "
                     "(TWHEEL_CONFIG_RING), mapped: the poll of "
                     "epoll_pwait2() moves the due records into it and the "
                     "loop takes them there, with a read(2) only when a "
                     "wake-up finds the ring empty; twheel table, read(2): "
                     "the same fd without the ring, its records read(2). "
                     "CPU/rec (b: all of CPU 0, p: process CPU), process "
                     "CPU alone, wake-ups, system calls and local timer "
                     "interrupts per record; ratio against the lazy heap "
                     "(on the figure both have)" +
                     (", per repetition." if self.ireps(res) > 1 else "."))
            self.out()
            self.table(["mode", "CPU/rec", "process CPU/rec", "wake/rec",
                        "sys/rec", "LOC/rec", "× lazy heap"], rows)

    @staticmethod
    def iexp_ratio(res, a, b):
        x, y = res.iexp.get(a, {}), res.iexp.get(b, {})
        f = "busy" if all(v["busy"] >= 0 for v in
                          list(x.values()) + list(y.values())) else "proc"
        return {r: (x[r][f] / x[r]["acts"]) / (y[r][f] / y[r]["acts"])
                for r in x if r in y and y[r][f] > 0}

    def icomp(self, res, mode, key):
        """wake-ups, syscalls, LOC per activity (net), medians."""
        out = []
        for fld in ("vcsw", "sys", "loc"):
            v = list(self.inet(res, mode, key, fld).values())
            out.append(med(v) if v else float("nan"))
        return out

    def ilimit(self, res, a, b, key):
        """What differs between modes a and b in case key, measured."""
        ca, cb = self.icomp(res, a, key), self.icomp(res, b, key)
        return (f"at N={nlabel(key[0])} K={key[1]} {key[2]}: {a} "
                f"{ca[0]:.3f} wake-ups, {ca[1]:.3f} syscalls, {ca[2]:.3f} "
                f"timer interrupts per activity; {b} {cb[0]:.3f}, "
                f"{cb[1]:.3f}, {cb[2]:.3f}")

    def idle_targets(self):
        res = self.idle_res()
        if not res:
            return
        keys = self.ikeys(res)
        big = [key for key in keys if key[0] >= 10000 and key[1] >= 10]
        why = {
            "heap-lazy": "the table's re-placement runs in the fd's "
            "hrtimer interrupt at each pushed timer's old deadline (its "
            "timer interrupts below; the loop is not woken), where the "
            "lazy heap re-keys in user space at the wake-ups its loop "
            "has anyway",
            "wheel-lazy": "about 12 instructions per activity are the "
            "program's own store into the table (the id's tag and index: "
            "the table mode's act() is 13 instructions in `objdump -d "
            "build/bench/twheel-bench`, the lazy modes' 1, their deadline "
            "being the store-only loop's own store); the rest, the table "
            "re-keys each pushed timer once a timeout, in the fd's "
            "hrtimer interrupt when the wheel cascades it (about 110 "
            "instructions an entry counted with `twheel-prof idle`, plus "
            "the interrupt's own entry and exit, one per 128 entries), "
            "where the user wheel re-links it in user space at the "
            "wake-ups its loop has anyway, with no kernel entry of its own",
            "uring": "io_uring moves the timeout's own hrtimer on each "
            "update (one io_uring_enter per loop turn) and finds it near "
            "the head of its list in this pattern's order, while the "
            "table's timers come due at their old deadlines and wake the "
            "loop there",
            "timerfd": "a system call per activity either way: the "
            "ioctl's path (the LSM's file_ioctl hook, a 32-byte argument,"
            " the fd's mutex) costs a few percent more than settime's "
            "where the timer stays in its wheel level (`twheel-prof "
            "modify` beside `settime`); where each MODIFY moves a timer "
            "about to come due (K = 1), the wheel places it a timeout "
            "ahead in a coarser level and moves it down again once a "
            "timeout (a cascade: about 110 instructions an "
            "entry), where the hrtimer tree places a timerfd's timer "
            "once",
        }

        # A target is judged on all of CPU 0 only: process CPU leaves out
        # the work done in interrupts, where the table does its own.
        proc_only = {}
        # Several repetitions: judged on the worst one (met only if met
        # in every repetition); the median over the repetitions beside it.
        nreps = self.ireps(res)

        def where(key, rep=None):
            return (f"N={nlabel(key[0])} K={key[1]} {key[2]}" +
                    (f" rep {rep}" if rep is not None and nreps > 1
                     else ""))

        def worst_of(a, b, cases):
            """(worst ratio, case, figure, rep, (worst median over the
            repetitions, its case)) or None."""
            out, pout, meds = [], [], []
            for key in cases:
                rr, f = self.iratio(res, a, b, key)
                for rep, v in rr.items():
                    (out if f == "busy" else pout).append((v, key, f, rep))
                if rr and f == "busy":
                    meds.append((med(list(rr.values())), key))
            if pout:
                proc_only[(a, b)] = max(pout, key=lambda c: c[0])
            if not out:
                return None
            return max(out, key=lambda c: c[0]) + \
                (max(meds, key=lambda c: c[0]),)

        def add(name, bound, wc, a, b):
            if not wc:
                p = proc_only.get((a, b))
                note = "not measured" if not p else (
                    "only process CPU measured (CPU 0's idle time not "
                    "read: the idlestat module was not loaded), which "
                    "leaves out the work done in interrupts (hrtimer "
                    "callbacks, the table's re-placements): worst "
                    f"{p[0]:.2f}× on it at {where(p[1], p[3])}")
                self.itargets.append([name, f"≤ {bound:g}×", "-", "n/a",
                                      note])
                return
            v, key, f, rep, (m, mkey) = wc
            ok = v <= bound
            measured = f"worst {v:.2f}× ({where(key, rep)}, {f[0]})"
            if nreps > 1:
                measured += f"; median {m:.2f}×" + \
                    ("" if mkey == key else f" ({where(mkey)})")
            self.itargets.append([
                name, f"≤ {bound:g}×", measured,
                "**PASS**" if ok else "**MISS**",
                "" if ok else
                ("the median over the repetitions is within the bound, "
                 f"rep {rep} is not; " if nreps > 1 and m <= bound
                 else "") + why.get(b, "") + "; " +
                self.ilimit(res, a, b, key)])

        for shape, bound in (("half", 0.5), ("edge", 1.0)):
            add(f"table / lazy heap, N ≥ 10^4, K ≥ 10, {shape}", bound,
                worst_of("table", "heap-lazy",
                         [k for k in big if k[2] == shape]),
                "table", "heap-lazy")
        add("table / lazy user wheel, N ≥ 10^4, K ≥ 10", 1.0,
            worst_of("table", "wheel-lazy", big), "table", "wheel-lazy")
        add("table / io_uring, every case", 1.0,
            worst_of("table", "uring", keys), "table", "uring")
        add("MODIFY / timerfd_settime, every case", 1.0,
            worst_of("modify", "timerfd", keys), "modify", "timerfd")
        rr = self.iexp_ratio(res, "table", "heap-lazy")
        if rr:
            r0 = max(rr, key=lambda r: rr[r])
            v = rr[r0]
            t, h = res.iexp["table"], res.iexp["heap-lazy"]
            measured = f"{v:.2f}×"
            if nreps > 1:
                measured = (f"worst {v:.2f}× (rep {r0}); median "
                            f"{med(list(rr.values())):.2f}×")
            # The calls each side made per record, as measured, then
            # where the rest of twheel's CPU goes: true whichever side
            # of the bound the figure falls.
            tc = [f"{t[r0][x] / t[r0]['acts']:.3f}" for x in ("vcsw", "sys")]
            hc = [f"{h[r0][x] / h[r0]['acts']:.3f}" for x in ("vcsw", "sys")]
            rd = self.iexp_ratio(res, "table-read", "heap-lazy")
            note = "" if v <= 1.0 else (
                ("the median over the repetitions is within the bound, "
                 f"rep {r0} is not; " if nreps > 1 and
                 med(list(rr.values())) <= 1.0 else "") +
                "per record" + (f" (rep {r0})" if nreps > 1 else "") +
                f": table + ring {tc[0]} wake-ups, {tc[1]} syscalls; lazy "
                f"heap {hc[0]}, {hc[1]}" +
                (": the same calls" if tc == hc else "") +
                "; the ring takes out the read(2) and its copy to user "
                "space, but the poll in epoll_pwait2() still brings the "
                "wheel up to date, moves the due records into the ring "
                "and frees each timer, where the heap pops its array and "
                "re-arms one timerfd" +
                (f"; the same fd with read(2) instead of the ring: "
                 f"{rd[r0]:.2f}×" if r0 in rd else "") +
                " (`make bench-prof PROF_CLOCK=icount "
                "PROF_MODES=\"spread-ring spread-table spread-timerfd\"`)")
            self.itargets.append(["expiry per record, table / lazy heap",
                                  "≤ 1×", measured,
                                  "**PASS**" if v <= 1.0 else "**MISS**",
                                  note])

    def itargets_text(self):
        """The section of issue 27's targets (after targets_build())."""
        if not self.itargets:
            return []
        saved, self.lines = self.lines, []
        self.out("## Targets of issue 27: idle timeouts on the real clock")
        self.out()
        res = self.idle_res()
        n = self.ireps(res) if res else 1
        self.out("Ratios of CPU per activity (net of the store-only loop), "
                 "worst case over the cases a target covers; the CPU figure"
                 " (b: all of CPU 0; p: process CPU) is the one both sides "
                 "have; a miss says what differs, as measured. Every case:"
                 " the idle-timeout section below." +
                 ("" if n <= 1 else
                  f" Every case ran {n} times (repetitions, each a fresh "
                  "start at a later phase of the clock, net of its own "
                  "store-only run): a target is met only if it is met in "
                  "every repetition; \"worst\" is the worst repetition "
                  "(which one: rep), \"median\" the highest of the cases' "
                  "medians over the repetitions."))
        self.out()
        self.table(["target", "bound", "measured", "verdict",
                    "what limits it"], self.itargets)
        text, self.lines = self.lines, saved
        return text

    def idle_verdict(self):
        """Five lines a user can act on, from the idle-timeout figures."""
        res = self.idle_res()
        if not res:
            return []
        keys = self.ikeys(res)
        big = [key for key in keys if key[0] >= 10000 and key[1] >= 10]
        nreps = self.ireps(res)

        def span(a, b, cases, fig="busy"):
            # All of CPU 0 by default (see idle_targets()); "proc": the
            # process's CPU, the work done in interrupts left out.
            # Several repetitions: the range over every case and every
            # repetition, then that of the cases' medians over them.
            v, meds = [], []
            for key in cases:
                rr, f = self.iratio(res, a, b, key)
                if f == fig and rr:
                    v += list(rr.values())
                    meds.append(med(list(rr.values())))
            if not v:
                return "not measured"
            # A net figure can come out below zero: the store-only
            # loop's own noise. Such a ratio is no figure: say so.
            if max(v) < 0.01:
                return ("< 0.01× (net of the store-only loop, within its"
                        " noise)")
            lo, hi = max(min(v), 0.0), max(v)
            text = f"{lo:.2f}–{hi:.2f}×" if len(v) > 1 and \
                (nreps <= 1 or f"{lo:.2f}" != f"{hi:.2f}") else f"{hi:.2f}×"
            if nreps <= 1:
                return text
            mlo, mhi = max(min(meds), 0.0), max(meds)
            mtext = f"{mlo:.2f}–{mhi:.2f}×" if len(meds) > 1 and \
                f"{mlo:.2f}" != f"{mhi:.2f}" else f"{mhi:.2f}×"
            return (f"{text} in {nreps} repetitions (median"
                    f"{'s' if len(meds) > 1 else ''} {mtext})")

        def fig_of(*pairs):
            # All of CPU 0 when every case of every pair has it, else
            # the process's CPU alone, with what that leaves out said.
            busy = all(self.iratio(res, a, b, key)[1] == "busy"
                       for a, b, cases in pairs for key in cases)
            return ("busy", "") if busy else \
                ("proc", "not measured on all of CPU 0 (its idle time not "
                 "read); on the process's CPU, which leaves out the "
                 "table's work in interrupts, ")

        lines = []
        fig, how = fig_of(("table", "timerfd", big),
                          ("modify", "timerfd", keys))
        lines.append("- **vs timerfd per timer** (settime per activity): "
                     f"{how}table / timerfd = "
                     f"{span('table', 'timerfd', big, fig)} (N ≥ 10^4, "
                     "K ≥ 10), MODIFY / timerfd = "
                     f"{span('modify', 'timerfd', keys, fig)}.")
        lines.append("- **vs a lazy heap on one timerfd** (Netty/nginx/Go "
                     "style): table / heap = "
                     f"{span('table', 'heap-lazy', [k for k in big if k[2] == 'edge'])}"
                     " with activities on the tick, "
                     f"{span('table', 'heap-lazy', [k for k in big if k[2] == 'half'])}"
                     " half a tick off (N ≥ 10^4, K ≥ 10).")
        lines.append("- **vs a lazy userspace wheel**: table / wheel = "
                     f"{span('table', 'wheel-lazy', big)} (N ≥ 10^4, "
                     "K ≥ 10, both shapes).")
        fig, how = fig_of(("table", "uring", keys))
        lines.append("- **vs io_uring timeouts** (TIMEOUT_UPDATE batched "
                     f"per loop turn): {how}table / io_uring = "
                     f"{span('table', 'uring', keys, fig)}; the process's "
                     "system calls: see the idle-timeout section.")

        def span_of(rr):
            if len(rr) > 1 and f"{min(rr):.2f}" != f"{max(rr):.2f}":
                return (f"{min(rr):.2f}–{max(rr):.2f}× in {len(rr)} "
                        f"repetitions (median {med(rr):.2f}×)")
            return f"{max(rr):.2f}× in each of {len(rr)} repetitions"

        rr = list(self.iexp_ratio(res, "table", "heap-lazy").values())
        ex = fmt_ratio(rr, 2) + "×" if rr else "not measured"
        if len(rr) > 1:
            ex = span_of(rr)

        rd = list(self.iexp_ratio(res, "table-read", "heap-lazy").values())
        if rr and rd:
            ex += (" with the records from the ring, " +
                   (fmt_ratio(rd, 2) + "×" if len(rd) == 1 else span_of(rd)) +
                   " by read(2)")
        lines.append("- **expiry**, per record (10^4 deadlines over 1 s): "
                     f"table / lazy heap = {ex}"
                     "; figures below are CPU per activity net of a "
                     "store-only loop, "
                     f"{'guest instructions' if res.clock == 'icount' else 'ns'}"
                     " (lower is better).")
        return lines
