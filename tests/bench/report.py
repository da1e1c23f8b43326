#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""report.py - the host side of `make bench`: turn twheel-bench's result
lines (format in tests/bench/user/bench.h) of one or two boots (a
wall-clock boot and an icount boot, each file saying which in its
"M clock" line) into OUTDIR/bench.md (printed too), the gnuplot data files
and the PNG plots.

    tests/bench/report.py OUTDIR RESULTS...

Figures are medians over the repetitions, with their spread: "±x%" is
half the min..max range relative to the median. A ratio twheel/other is
computed per repetition (the two measured in the same rep of the same
guest boot). A target is met only if it is met in every repetition (and
every N, K, pattern, deadline mode and cgroup setting it covers): the
table shows the worst case. Lower is better for twheel.

This script reads the results files and writes the report in the
page's order; its parts are modules beside it: report_fmt.py (names,
labels, formatting of figures), report_cost.py (cost, expiry, shared
table, lateness and memory sections), report_idle.py (the idle
timeouts: section, issue 27's targets, verdict), report_targets.py
(the other targets), report_plot.py (plot data and PNGs).
"""
import os
import sys
from collections import defaultdict

# The report's parts, beside this script (sys.path[0]).
from report_cost import CostSections
from report_fmt import CGS
from report_idle import IdleSection
from report_plot import draw_plots
from report_targets import Targets


def dd(depth):
    if depth == 1:
        return defaultdict(dict)
    return defaultdict(lambda: dd(depth - 1))


class Results:
    def __init__(self, path):
        self.path = path
        self.meta = defaultdict(list)
        self.cost = dd(5)       # [cg][mode][op][impl][N] = {rep: ns}
        self.costx = dd(4)      # [cg][impl][N] = {rep: (in_loops, drained)}
        self.expiry = dd(3)     # [cg][impl][K] = {rep: (busy, cpu, wall)}
        self.late = dd(2)       # [cg][impl] = {rep: (p50, p99, max, early, n)}
        self.quant = defaultdict(lambda: defaultdict(
            lambda: defaultdict(list)))
        self.mem = dd(2)        # [cg][pattern] = {rep: (8 columns)}
        self.idle = {}          # (cg, what) = (ns, busy)
        self.table = dd(4)      # [cg][impl][K][N] = {rep: per activity}
        self.tcancel = dd(3)    # [cg][impl][N] = {rep: per timer}
        # idle timeouts (idle.c): [(mode, N, K, shape)] = {rep: fields}
        self.itime = defaultdict(dict)
        self.iexp = defaultdict(dict)       # [mode] = {rep: fields}
        self.errors = []
        with open(path, errors="replace") as f:
            for line in f:
                self.parse(line.split())
        self.clock = (self.meta.get("clock") or ["wall"])[0]

    def parse(self, w):
        if not w:
            return
        try:
            if w[0] == "M":
                self.meta[w[1]].append(" ".join(w[2:]))
            elif w[0] == "E":
                self.errors.append(" ".join(w[1:]))
            elif w[:2] == ["R", "cost"]:
                cg, mode, op, impl = w[2:6]
                self.cost[cg][mode][op][impl][int(w[6])][int(w[7])] = \
                    float(w[8])
            elif w[:2] == ["R", "costx"]:
                cg, impl, n, rep = w[2], w[4], int(w[5]), int(w[6])
                self.costx[cg][impl][n][rep] = (int(w[7]), int(w[8]))
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
                self.mem[cg][pat][rep] = tuple(float(x) for x in w[6:14])
            elif w[:2] == ["R", "table"]:
                cg, impl, k, n, rep = w[2], w[3], int(w[4]), int(w[5]), \
                    int(w[6])
                self.table[cg][impl][k][n][rep] = float(w[7])
            elif w[:2] == ["R", "tcancel"]:
                cg, impl, n, rep = w[2], w[3], int(w[4]), int(w[5])
                self.tcancel[cg][impl][n][rep] = float(w[6])
            elif w[:2] == ["R", "itime"]:
                key = (w[3], int(w[4]), int(w[5]), w[6])
                f = [int(x) for x in w[8:19]]
                self.itime[key][int(w[7])] = dict(zip(
                    ("acts", "ticks", "busy", "proc", "vcsw", "sys", "loc",
                     "closes", "late", "raced", "late_turns"), f))
            elif w[:2] == ["R", "iexp"]:
                f = [int(x) for x in w[6:12]]
                self.iexp[w[3]][int(w[5])] = dict(zip(
                    ("acts", "busy", "proc", "vcsw", "sys", "loc"), f))
            elif w[:2] == ["R", "idle"]:
                self.idle[w[2], w[3]] = (int(w[4]), int(w[5]))
        except (IndexError, ValueError):
            self.errors.append("unparsed: " + " ".join(w))

    def cgs(self):
        seen = set(self.cost) | set(self.expiry) | set(self.late) | \
            set(self.mem) | set(self.table) | set(self.tcancel)
        if self.itime or self.iexp:
            seen.add("root")
        return [c for c in CGS if c in seen]

    def opt(self, cg, key):
        for o in self.meta.get("opts", []):
            w = o.split()
            if w and w[0] == cg and key in w:
                return w[w.index(key) + 1]
        return None


class Report(CostSections, IdleSection, Targets):
    """bench.md in the page's order (build()); its sections: report_cost.py,
    report_idle.py; its targets: report_targets.py."""

    def __init__(self, runs):
        self.w = runs.get("wall")
        self.i = runs.get("icount")
        self.lines = []
        self.targets = []
        self.itargets = []
        # The page (publish.sh) leaves out the manual-clock table phase.
        self.page = os.environ.get("BENCH_PAGE") == "1"

    def out(self, s=""):
        self.lines.append(s)

    def table(self, head, rows):
        if not rows:
            return
        self.out("| " + " | ".join(head) + " |")
        self.out("|" + "|".join("---" for _ in head) + "|")
        for row in rows:
            self.out("| " + " | ".join(row) + " |")
        self.out()

    def build(self):
        self.out("# twheel benchmark: twheel vs timerfd+epoll vs a "
                 "userspace heap on one timerfd")
        self.out()
        for res in (self.w, self.i):
            if not res:
                continue
            m = res.meta
            self.out(f"- **{res.clock} boot**: kernel "
                     f"{(m.get('kernel') or ['?'])[0]}, "
                     f"{(m.get('cpus') or ['?'])[0]} vCPU(s), "
                     f"{(m.get('boot_seconds') or ['?'])[0]} s; options: "
                     + "; ".join(dict.fromkeys(m.get("opts", []))))
            for key in ("host_cpu", "host", "twheel", "slab", "slab_merged"):
                for v in dict.fromkeys(m.get(key, [])):
                    self.out(f"  - {key}: {v}")
            for e in res.errors:
                self.out(f"  - **error**: {e}")
        self.out("- guest: Debian's stock kernel under QEMU TCG (software "
                 "emulation, no KVM): absolute times are not those of real "
                 "hardware. The **wall** boot (2 vCPUs, the host's clock) "
                 "gives times; other VMs on the host slow it down (see "
                 "host), so compare within the boot (ratios per rep). The "
                 "**icount** boot (1 vCPU, `-icount shift=0,sleep=off`) "
                 "counts guest instructions (1 ns of its clock = 1 "
                 "instruction): figures repeat from boot to boot to 1.000×, "
                 "so it runs 2 reps; instructions leave out memory latency "
                 "and differences in instruction cost.")
        self.out("- cost: time of loops of 256-1024 operations with N timers"
                 " pending, summed over a rep's rounds, divided by the "
                 "operations. twheel-ioctl: TWHEEL_IOC_ADD/MODIFY/CANCEL; "
                 "twheel-bB: TWHEEL_IOC_SUBMIT of B ops. timerfd: schedule = "
                 "timerfd_create + timerfd_settime + EPOLL_CTL_ADD, modify = "
                 "timerfd_settime, cancel = EPOLL_CTL_DEL + close (parts "
                 "shown). heap: push / re-key / delete plus the settime of "
                 "its one timerfd when the minimum changed. Two deadline "
                 "modes: span (one 30 s span an hour ahead: nothing expires)"
                 " and spread (log-uniform over 1 s .. 1 h after the "
                 "operation, as real timeouts; expired timers are drained "
                 "and re-armed untimed between timed loops, for every "
                 "implementation alike, and counted).")
        self.out("- figures: median over reps, ±x% = half the min–max range "
                 "/ median (left out below 0.5%); ratios: median [min–max] "
                 "of per-rep ratios. root = no memory cgroup; memcg = "
                 "inside a fresh cgroup v2 memory group (wall boot: cost in "
                 "span mode and memory only).")
        self.out()
        self.targets_build()
        if self.itargets and not self.page:
            self.lines += self.itargets_text()
        self.out("## Targets")
        self.out()
        self.out("A target is met only if it is met in every repetition "
                 "and every case it covers; the worst case is shown.")
        self.out()
        self.table(["target", "bound", "measured", "verdict", "note"],
                   self.targets)
        self.out("## Results")
        self.out()
        self.cost_section()
        self.expiry_section()
        if not self.page:
            self.table_section()
        self.idle_section()
        self.late_section()
        self.mem_section()
        return "\n".join(self.lines) + "\n"


def main():
    if len(sys.argv) < 3:
        sys.exit("usage: report.py OUTDIR RESULTS...")
    outdir = sys.argv[1]
    os.makedirs(outdir, exist_ok=True)
    runs = {}
    for path in sys.argv[2:]:
        res = Results(path)
        if res.cgs():
            runs[res.clock] = res
    if not runs:
        sys.exit(f"report: no results in {' '.join(sys.argv[2:])}")
    text = Report(runs).build()
    with open(os.path.join(outdir, "bench.md"), "w") as f:
        f.write(text)
    rep = Report(runs)
    rep.targets_build()
    tpath = os.path.join(outdir, "idle-targets.md")
    with open(tpath, "w") as f:
        f.write("\n".join(rep.itargets_text()))
    verdict = rep.idle_verdict()
    vpath = os.path.join(outdir, "verdict.md")
    if verdict:
        with open(vpath, "w") as f:
            f.write("\n".join(verdict) + "\n")
    elif os.path.exists(vpath):
        os.remove(vpath)
    print(text, end="")
    made = draw_plots(runs, outdir)
    print(f"report: {outdir}/bench.md" +
          "".join(f", {outdir}/{p}" for p in made))


if __name__ == "__main__":
    main()
