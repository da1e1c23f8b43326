#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""report.py - the host side of `make bench`: turn twheel-bench's result
lines (format in tests/bench/user/bench.h) into build/bench/bench.md
(printed too), the gnuplot data files and the PNG plots.

    tests/bench/report.py RESULTS OUTDIR

Every figure is the median over the repetitions, with its spread: "±x%"
is half the min..max range relative to the median. A ratio twheel/other
is computed per repetition (the two measured in the same rep of the same
guest boot), then its median and min..max are given. Lower is better for
twheel.
"""
import os
import statistics
import subprocess
import sys
from collections import defaultdict

COST_IMPLS = ["twheel-ioctl", "twheel-b1", "twheel-b8", "twheel-b64",
              "twheel-b256", "timerfd", "timerfd-epoll_ctl", "heap"]
TW_CFGS = COST_IMPLS[:5]
OPS = ["schedule", "modify", "cancel"]
X_IMPLS = ["twheel", "timerfd", "heap"]
L_IMPLS = [("twheel-1ms", 1000000), ("twheel-1us", 1000), ("timerfd", 0),
           ("heap", 0)]
PATTERNS = ["dense", "churn", "survivor64"]
CGS = ["root", "memcg"]


def med(v):
    return statistics.median(v) if v else None


def spread(v):
    """Half the min..max range, relative to the median, in %."""
    m = med(v)
    if not v or not m:
        return None
    return 100.0 * (max(v) - min(v)) / 2 / abs(m)


def fmt(v, scale=1.0, prec=2):
    """median ±spread of a list, scaled (e.g. ns -> us)."""
    if not v:
        return "-"
    s = spread(v)
    text = f"{med(v) / scale:.{prec}f}"
    if s is not None and len(v) > 1:
        text += f" ±{s:.0f}%"
    return text


def fmt_ratio(r):
    if not r:
        return "-"
    if len(r) == 1:
        return f"{r[0]:.3f}"
    return f"{med(r):.3f} [{min(r):.3f}–{max(r):.3f}]"


def per_rep_ratio(a, b):
    """a, b: {rep: value}; ratios of the reps both have."""
    return [a[k] / b[k] for k in sorted(a) if k in b and b[k]]


def nlabel(n):
    e = len(str(n)) - 1
    return f"10^{e}" if n == 10 ** e else str(n)


class Results:
    def __init__(self, path):
        self.meta = defaultdict(list)
        # cost[cg][op][impl][N] = {rep: ns/op}
        self.cost = defaultdict(lambda: defaultdict(
            lambda: defaultdict(lambda: defaultdict(dict))))
        # expiry[cg][impl][K] = {rep: (wall_ns, cpu_ns_rec, sys_ns_rec)}
        self.expiry = defaultdict(lambda: defaultdict(
            lambda: defaultdict(dict)))
        # late[cg][impl] = {rep: (p50, p99, max, early, n)}
        self.late = defaultdict(lambda: defaultdict(dict))
        # quant[cg][impl][q] = [values over reps]
        self.quant = defaultdict(lambda: defaultdict(
            lambda: defaultdict(list)))
        # mem[cg][pattern] = {rep: (cache, index, memcg, slabinfo)}
        self.mem = defaultdict(lambda: defaultdict(dict))
        self.errors = []
        with open(path, errors="replace") as f:
            for line in f:
                self.parse(line.split())

    def parse(self, w):
        if not w:
            return
        try:
            if w[0] == "M":
                self.meta[w[1]].append(" ".join(w[2:]))
            elif w[0] == "E":
                self.errors.append(" ".join(w[1:]))
            elif w[:2] == ["R", "cost"]:
                cg, op, impl, n, rep, v = w[2], w[3], w[4], int(w[5]), \
                    int(w[6]), float(w[7])
                self.cost[cg][op][impl][n][rep] = v
            elif w[:2] == ["R", "expiry"]:
                cg, impl, k, rep = w[2], w[3], int(w[4]), int(w[5])
                self.expiry[cg][impl][k][rep] = (float(w[6]), float(w[7]),
                                                 float(w[8]))
            elif w[:2] == ["R", "late"]:
                cg, impl, rep = w[2], w[3], int(w[5])
                self.late[cg][impl][rep] = tuple(int(x) for x in w[6:11])
            elif w[:2] == ["Q", "late"]:
                cg, impl, q, v = w[2], w[3], float(w[6]), int(w[7])
                self.quant[cg][impl][q].append(v)
            elif w[:2] == ["R", "mem"]:
                cg, pat, rep = w[2], w[3], int(w[5])
                self.mem[cg][pat][rep] = tuple(float(x) for x in w[6:10])
        except (IndexError, ValueError):
            self.errors.append("unparsed: " + " ".join(w))

    def cgs(self):
        seen = set(self.cost) | set(self.expiry) | set(self.late) | \
            set(self.mem)
        return [c for c in CGS if c in seen]


class Report:
    def __init__(self, res):
        self.r = res
        self.lines = []
        # verdicts[(target, cg)] = (value text, met)
        self.targets = []

    def out(self, s=""):
        self.lines.append(s)

    def table(self, head, rows):
        self.out("| " + " | ".join(head) + " |")
        self.out("|" + "|".join("---" for _ in head) + "|")
        for row in rows:
            self.out("| " + " | ".join(row) + " |")
        self.out()

    def target(self, name, bound, cg, value, met, note=""):
        self.targets.append((name, bound, cg, value,
                             "**met**" if met else "**missed**", note))

    # ---- cost ----

    def sum_ops(self, cg, impl, n, ops):
        """{rep: sum over ops of ns/op} for reps where all ops exist."""
        d = [self.r.cost[cg][op][impl][n] for op in ops]
        reps = set(d[0])
        for x in d[1:]:
            reps &= set(x)
        return {k: sum(x[k] for x in d) for k in reps}

    def cost_section(self, cg):
        c = self.r.cost[cg]
        ns = sorted({n for op in c for impl in c[op] for n in c[op][impl]})
        if not ns:
            return
        self.out(f"### Cost per operation, µs (N pending) — {cg}")
        self.out()
        for op in OPS:
            rows = []
            for impl in COST_IMPLS:
                if impl not in c[op]:
                    continue
                label = impl
                if impl == "timerfd":
                    label = {"schedule": "timerfd (create+settime)",
                             "modify": "timerfd (settime)",
                             "cancel": "timerfd (close)"}[op]
                if impl == "timerfd-epoll_ctl":
                    label = "timerfd: + EPOLL_CTL_ADD"
                rows.append([label] + [
                    fmt(list(c[op][impl][n].values()), 1000.0)
                    for n in ns])
            self.out(f"**{op}**")
            self.out()
            self.table(["impl"] + [f"N={nlabel(n)}" for n in ns], rows)
        fl = c.get("floor", {})
        if fl:
            self.out("**floor**: a bare system call (getppid), an ioctl "
                     "the driver refuses (twheel-enotty: what any twheel "
                     "ioctl costs before it does anything) and "
                     "TWHEEL_IOC_INFO (the fd's mutex and a 96-byte copy, "
                     "no timer touched)")
            self.out()
            self.table(["call"] + [f"N={nlabel(n)}" for n in ns],
                       [[impl] + [fmt(list(fl[impl][n].values()), 1000.0)
                                  for n in ns] for impl in sorted(fl)])
        # Ratios, per rep.
        self.out(f"**ratios twheel / timerfd and twheel / heap** — {cg} "
                 "(median [min–max] of per-rep ratios)")
        self.out()
        rows = []
        for op in OPS:
            for cfg in TW_CFGS:
                for alt in ("timerfd", "heap"):
                    row = [f"{op} {cfg} / {alt}"]
                    for n in ns:
                        row.append(fmt_ratio(per_rep_ratio(
                            c[op][cfg][n], c[op][alt][n])))
                    rows.append(row)
        self.table(["ratio"] + [f"N={nlabel(n)}" for n in ns], rows)
        self.cost_targets(cg, ns)

    def worst_over_n(self, cg, ns, num, den, ops_num, ops_den=None):
        """Per N: per-rep ratio of summed ops; returns (worst median, N,
        per-N text)."""
        worst, wn, parts = None, None, []
        for n in ns:
            a = self.sum_ops(cg, num, n, ops_num)
            b = self.sum_ops(cg, den, n, ops_den or ops_num)
            r = per_rep_ratio(a, b)
            if not r:
                continue
            m = med(r)
            parts.append(f"{nlabel(n)}: {m:.3f}")
            if worst is None or m > worst:
                worst, wn = m, n
        return worst, wn, ", ".join(parts)

    def floor_note(self, cg, n, den, ops):
        """What one ioctl per operation costs before it touches a timer,
        against the same denominator at N = n: twheel-enotty (refused at
        once: the part no work in twheel can remove) and twheel-info (the
        cheapest ioctl that does something)."""
        fl = self.r.cost[cg].get("floor", {})
        b = self.sum_ops(cg, den, n, ops)
        parts = []
        for impl, what in (("twheel-enotty", "an ioctl refused with ENOTTY"),
                           ("twheel-info", "TWHEEL_IOC_INFO")):
            f = fl.get(impl, {}).get(n)
            reps = set(f or {}) & set(b)
            if reps:
                m = med([len(ops) * f[k] / b[k] for k in reps])
                parts.append(f"{len(ops)} × {what} alone is {m:.3f}")
        if not parts:
            return ""
        return f"floor at N={nlabel(n)}: " + "; ".join(parts)

    def cost_targets(self, cg, ns):
        sc = ["schedule", "cancel"]
        checks = [
            ("schedule+cancel, batched 64, vs timerfd create+arm+close",
             "≤ 0.05", 0.05, "twheel-b64", "timerfd", sc),
            ("schedule+cancel, batched 64, vs heap", "≤ 5", 5.0,
             "twheel-b64", "heap", sc),
            ("schedule+cancel, unbatched, vs timerfd create+arm+close",
             "≤ 0.2", 0.2, "twheel-ioctl", "timerfd", sc),
            ("modify, unbatched, vs timerfd_settime", "≤ 0.5", 0.5,
             "twheel-ioctl", "timerfd", ["modify"]),
            ("modify, batched 64, vs timerfd_settime", "≤ 0.2", 0.2,
             "twheel-b64", "timerfd", ["modify"]),
        ]
        for name, btxt, bound, num, den, ops in checks:
            w, wn, parts = self.worst_over_n(cg, ns, num, den, ops)
            if w is None:
                continue
            note = self.floor_note(cg, wn, den, ops) \
                if num == "twheel-ioctl" else ""
            self.target(name, btxt, cg, f"worst {w:.3f} (N={nlabel(wn)}); "
                        + parts, w <= bound, note)
        # Flatness: cost at the largest N over cost at 10^3, per config/op.
        lo, hi = min(ns), max(ns)
        if hi == lo:
            return
        worst, what, rows = None, None, []
        for cfg in COST_IMPLS:
            row = [cfg]
            for op in OPS:
                d = self.r.cost[cg][op][cfg]
                r = per_rep_ratio(d[hi], d[lo])
                row.append(fmt_ratio(r))
                if r and cfg in TW_CFGS and (worst is None or
                                             med(r) > worst):
                    worst, what = med(r), f"{cfg} {op}"
            rows.append(row)
        self.out(f"**flatness: cost at N={nlabel(hi)} / cost at "
                 f"N={nlabel(lo)}** — {cg}")
        self.out()
        self.table(["impl"] + OPS, rows)
        note = "" if hi >= 10 ** 6 else \
            f"measured up to N={nlabel(hi)} only, not 10^6"
        self.target(f"flat: cost/op at N={nlabel(hi)} ≤ 1.5 × at "
                    f"N={nlabel(lo)} (every twheel config and op)", "≤ 1.5",
                    cg, f"worst {worst:.2f} ({what})", worst <= 1.5, note)

    # ---- expiry ----

    def expiry_section(self, cg):
        e = self.r.expiry[cg]
        ks = sorted({k for impl in e for k in e[impl]})
        if not ks:
            return
        self.out(f"### Expiry delivery: K timers due at once — {cg}")
        self.out()
        rows = []
        # /proc/stat counts in 10 ms ticks: a total under 100 ms is noise.
        sys_ok = {}
        for impl in X_IMPLS:
            for k in ks:
                d = e[impl][k]
                if not d:
                    continue
                v = list(d.values())
                sys_ok[impl, k] = med([x[2] * k for x in v]) >= 1e8
                rows.append([impl, nlabel(k),
                             fmt([x[0] for x in v], 1e6, 2),
                             fmt([x[0] / k for x in v], 1000.0, 3),
                             fmt([x[1] for x in v], 1000.0, 3),
                             fmt([x[2] for x in v], 1000.0, 3)
                             if sys_ok[impl, k] else "(< 100 ms total)"])
        self.table(["impl", "K", "deadline → all read (ms)",
                    "wall / record (µs)", "process CPU / record (µs)",
                    "system CPU / record (µs)"], rows)
        rows = []
        for alt in ("timerfd", "heap"):
            for k in ks:
                tw, ot = e["twheel"][k], e[alt][k]
                ok = sys_ok.get(("twheel", k)) and sys_ok.get((alt, k))
                rows.append([f"twheel / {alt}", nlabel(k)] + [
                    fmt_ratio(per_rep_ratio(
                        {r: v[i] for r, v in tw.items()},
                        {r: v[i] for r, v in ot.items()}))
                    if i < 2 or ok else "-"
                    for i in range(3)])
        self.table(["ratio", "K", "wall", "process CPU", "system CPU"], rows)
        for i, what in enumerate(["wall time", "process CPU",
                                  "system CPU (/proc/stat)"]):
            worst, wk, parts = None, None, []
            for k in ks:
                if i == 2 and not (sys_ok.get(("twheel", k)) and
                                   sys_ok.get(("timerfd", k))):
                    continue
                r = per_rep_ratio({q: v[i] for q, v in
                                   e["twheel"][k].items()},
                                  {q: v[i] for q, v in
                                   e["timerfd"][k].items()})
                if not r:
                    continue
                parts.append(f"{nlabel(k)}: {med(r):.3f}")
                if worst is None or med(r) > worst:
                    worst, wk = med(r), k
            name = f"expiry per record ({what}) vs timerfd+epoll"
            if worst is not None:
                self.target(name, "≤ 0.1", cg,
                            f"worst {worst:.3f} (K={nlabel(wk)}); "
                            + ", ".join(parts), worst <= 0.1)
            else:
                self.targets.append((name, "≤ 0.1", cg, "-", "n/a",
                                     "every total under 100 ms, below "
                                     "/proc/stat's resolution"))

    # ---- lateness ----

    def late_section(self, cg):
        lt = self.r.late[cg]
        if not lt:
            return
        n = next(iter(next(iter(lt.values())).values()))[4]
        self.out(f"### Lateness: {n} timers over 2 s, one blocking reader, "
                 f"µs — {cg}")
        self.out()
        rows = []
        for impl, _ in L_IMPLS:
            d = lt.get(impl)
            if not d:
                continue
            v = list(d.values())
            rows.append([impl, fmt([x[0] for x in v], 1000.0, 0),
                         fmt([x[1] for x in v], 1000.0, 0),
                         fmt([x[2] for x in v], 1000.0, 0),
                         str(sum(x[3] for x in v)),
                         str(sum(x[4] for x in v))])
        self.table(["impl", "p50", "p99", "max", "early (all reps)",
                    "records (all reps)"], rows)
        tfd = lt.get("timerfd", {})
        for impl, tick in L_IMPLS[:2]:
            d = lt.get(impl)
            if not d:
                continue
            early = sum(x[3] for x in d.values())
            self.target(f"lateness {impl}: early records", "0", cg,
                        str(early), early == 0)
            for i, q in ((0, "p50"), (1, "p99")):
                diff = [d[r][i] - tfd[r][i] for r in d if r in tfd]
                if not diff:
                    continue
                m = med(diff)
                self.target(f"lateness {impl}: {q} ≤ timerfd {q} + 1 tick",
                            f"≤ +{tick / 1000:g} µs", cg,
                            f"{m / 1000:+.0f} µs (median over reps of "
                            f"twheel {q} − timerfd {q})", m <= tick)

    # ---- memory ----

    def mem_section(self, cg):
        mm = self.r.mem[cg]
        if not mm:
            return
        live = None
        rows = []
        worst = None
        for pat in PATTERNS:
            d = mm.get(pat)
            if not d:
                continue
            v = list(d.values())
            cache = [x[0] for x in v]
            index = [x[1] for x in v]
            both = [x[0] + x[1] for x in v]
            memcg = [x[2] for x in v if x[2] >= 0]
            slabinfo = [x[3] for x in v if x[3] >= 0]
            rows.append([pat, fmt(cache, 1, 1), fmt(index, 1, 1),
                         fmt(both, 1, 1), fmt(memcg, 1, 1) if memcg else "-",
                         fmt(slabinfo, 1, 1) if slabinfo else "-"])
            total = med(memcg) if memcg else med(both)
            total = max(total, med(both))
            if worst is None or total > worst[0]:
                worst = (total, pat)
        opts = self.r.meta.get("opts", [""])
        for o in opts:
            w = o.split()
            if w and w[0] == cg and "mem_live" in w:
                live = w[w.index("mem_live") + 1]
        self.out(f"### Kernel memory per live timer, bytes ({live} live) "
                 f"— {cg}")
        self.out()
        self.table(["pattern", "twheel_timer cache", "id index (fdinfo)",
                    "cache + index", "memory cgroup slab",
                    "/proc/slabinfo"], rows)
        self.target("memory per live timer, every pattern", "≤ 64 B", cg,
                    f"worst {worst[0]:.1f} B ({worst[1]})", worst[0] <= 64)

    def build(self):
        r = self.r
        self.out("# twheel benchmark: twheel vs timerfd+epoll vs a userspace "
                 "heap on one timerfd")
        self.out()
        for key in ("kernel", "cpus", "twheel", "slab", "slab_merged",
                    "slabinfo", "seed", "opts", "host"):
            for v in dict.fromkeys(r.meta.get(key, [])):
                self.out(f"- {key}: {v}")
        self.out("- guest: stock Debian kernel under QEMU TCG (software "
                 "emulation, no KVM, 2 vCPUs): absolute times are not those "
                 "of real hardware, and emulation shifts the relative cost "
                 "of syscall entry, memory (TLB) misses and plain "
                 "computation; compare within this run, not with native "
                 "figures. Other VMs on the host slow the vCPUs (see host).")
        self.out("- cost: wall time (CLOCK_MONOTONIC) of loops of "
                 "256-1024 operations with N timers pending (deadlines "
                 "uniform over 30 s, an hour ahead), summed over the "
                 "rounds of a rep, divided by the operations. twheel-ioctl: "
                 "TWHEEL_IOC_ADD/MODIFY/CANCEL; twheel-bB: TWHEEL_IOC_SUBMIT "
                 "of B ops. timerfd schedule = timerfd_create + "
                 "timerfd_settime (its EPOLL_CTL_ADD is timed apart, shown, "
                 "and left out of the targets), modify = timerfd_settime, "
                 "cancel = close. heap: push / re-key / delete plus the "
                 "timerfd_settime of its one timerfd when the minimum "
                 "changed.")
        self.out("- expiry: K timers due at one instant; from that instant "
                 "until user space has read all K. Process CPU counts the "
                 "waiter's own syscalls, not interrupt work done while it "
                 "slept (timerfd's hrtimer callbacks); system CPU "
                 "(/proc/stat, all CPUs) does, at 10 ms resolution.")
        self.out("- lateness: time user space has the expiry in hand minus "
                 "the deadline (twheel: when read() returns; timerfd: when "
                 "epoll_wait returns; heap: after its timerfd wake).")
        self.out("- memory: growth from a shrunk cache, per live timer. "
                 "The memory cgroup's figure also counts the 8-byte "
                 "obj_cgroup pointer the kernel keeps per accounted slab "
                 "object.")
        self.out("- figures: median over reps, ±x% = half the min–max "
                 "range / median; ratios: median [min–max] of per-rep "
                 "ratios (same rep, same boot). root = no memory cgroup; "
                 "memcg = inside a fresh cgroup v2 memory group.")
        self.out()
        for e in r.errors:
            self.out(f"- **error**: {e}")
        for cg in r.cgs():
            self.out(f"## {cg}")
            self.out()
            self.cost_section(cg)
            self.expiry_section(cg)
            self.late_section(cg)
            self.mem_section(cg)
        self.out("## Targets (the issue's), measured")
        self.out()
        self.table(["target", "bound", "cg", "measured", "verdict", "note"],
                   [list(t) for t in self.targets])
        return "\n".join(self.lines) + "\n"


def write_plot_data(res, outdir):
    pdir = os.path.join(outdir, "plot")
    os.makedirs(pdir, exist_ok=True)
    for f in os.listdir(pdir):
        if f.endswith(".dat"):
            os.unlink(os.path.join(pdir, f))
    for cg in res.cgs():
        for op in OPS:
            for impl in COST_IMPLS:
                d = res.cost[cg][op][impl]
                if not d:
                    continue
                with open(os.path.join(pdir, f"cost-{cg}-{op}-{impl}.dat"),
                          "w") as f:
                    for n in sorted(d):
                        if not d[n]:
                            continue
                        v = [x / 1000.0 for x in d[n].values()]
                        f.write(f"{n} {med(v):.4f} {min(v):.4f} "
                                f"{max(v):.4f}\n")
        for impl, _ in L_IMPLS:
            q = res.quant[cg].get(impl)
            if not q:
                continue
            with open(os.path.join(pdir, f"late-{cg}-{impl}.dat"), "w") as f:
                for p in sorted(q):
                    # log x axis: at least 1 µs
                    f.write(f"{max(med(q[p]) / 1000.0, 1.0):.3f} {p:.4f}\n")
    return pdir


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: report.py RESULTS OUTDIR")
    res = Results(sys.argv[1])
    outdir = sys.argv[2]
    if not res.cgs():
        sys.exit(f"report: no results in {sys.argv[1]}")
    text = Report(res).build()
    with open(os.path.join(outdir, "bench.md"), "w") as f:
        f.write(text)
    print(text, end="")
    pdir = write_plot_data(res, outdir)
    # Only the plots whose phases ran (twheel-bench -p may skip some).
    names = os.listdir(pdir)
    plots = [p for p, prefix in (("cost", "cost-"), ("lateness", "late-"))
             if any(n.startswith(prefix) for n in names)]
    pngs = {"cost": "cost-vs-n.png", "lateness": "lateness.png"}
    for p in pngs:
        if p not in plots and os.path.exists(os.path.join(outdir, pngs[p])):
            os.remove(os.path.join(outdir, pngs[p]))
    if plots:
        gp = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                          "plot.gp")
        rc = subprocess.call(["gnuplot", "-e",
                              f"dir='{pdir}'; out='{outdir}'; "
                              f"cgs='{' '.join(res.cgs())}'; "
                              f"plots='{' '.join(plots)}'", gp])
        if rc:
            sys.exit(f"report: gnuplot failed ({rc})")
    print(f"report: {outdir}/bench.md" +
          "".join(f", {outdir}/{pngs[p]}" for p in plots))


if __name__ == "__main__":
    main()
