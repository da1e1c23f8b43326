# SPDX-License-Identifier: GPL-2.0
"""report_plot.py - for tests/bench/report.py: the gnuplot data files
(OUTDIR/plot/*.dat) and the PNG plots drawn from them by plot.gp.
"""
import os
import subprocess
import sys

from report_fmt import COST_IMPLS, I_MODES, L_IMPLS, MODES, OPS, med
from report_idle import IdleSection


def write_plot_data(runs, outdir):
    pdir = os.path.join(outdir, "plot")
    os.makedirs(pdir, exist_ok=True)
    for f in os.listdir(pdir):
        if f.endswith(".dat"):
            os.unlink(os.path.join(pdir, f))
    panels = {"wall": [], "icount": [], "idle": None}
    for clock, res in runs.items():
        scale = 1000.0 if clock == "wall" else 1.0
        for cg in res.cgs():
            for mode in MODES:
                name = f"{cg}-{mode}"
                for op in OPS:
                    for impl in COST_IMPLS:
                        d = res.cost[cg][mode][op][impl]
                        if not d:
                            continue
                        if name not in panels[clock]:
                            panels[clock].append(name)
                        with open(os.path.join(
                                pdir, f"{clock}-cost-{name}-{op}-{impl}.dat"),
                                "w") as f:
                            for n in sorted(d):
                                v = [x / scale for x in d[n].values()]
                                f.write(f"{n} {med(v):.4f} {min(v):.4f} "
                                        f"{max(v):.4f}\n")
    idle = None
    for res in (runs.get("icount"), runs.get("wall")):
        if res and res.itime:
            idle = res
            break
    if idle:
        for key in sorted({k[1:] for k in idle.itime}):
            n, k, shape = key
            for mode in I_MODES:
                if (mode,) + key not in idle.itime:
                    continue
                # All of CPU 0 only: process CPU would leave out the
                # table's work in interrupts (timerfd and io_uring have
                # no other figure, and are not drawn).
                if IdleSection.icpu(idle, mode, key) != "busy":
                    continue
                # The median over the repetitions (then their range,
                # which plot.gp does not draw).
                v = list(IdleSection.inet(idle, mode, key, "busy").values())
                if not v:
                    continue
                with open(os.path.join(pdir, f"idle-{k}-{shape}-{mode}"
                                       ".dat"), "a") as fd:
                    fd.write(f"{n} {max(med(v), 10.0):.1f}" +
                             (f" {max(min(v), 10.0):.1f} "
                              f"{max(max(v), 10.0):.1f}" if len(v) > 1
                              else "") + "\n")
        panels["idle"] = idle.clock
        panels["idle_reps"] = IdleSection.ireps(idle)
    res = runs.get("wall")
    if res:
        for cg in res.cgs():
            for impl, _ in L_IMPLS:
                q = res.quant[cg].get(impl)
                if not q:
                    continue
                with open(os.path.join(pdir, f"late-{cg}-{impl}.dat"),
                          "w") as f:
                    for p in sorted(q):
                        f.write(f"{max(med(q[p]) / 1000.0, 1.0):.3f} "
                                f"{p:.4f}\n")
    return pdir, panels


def draw_plots(runs, outdir):
    """The data files, then the PNGs; the names of the PNGs drawn."""
    pdir, panels = write_plot_data(runs, outdir)
    gp = os.path.join(os.path.dirname(os.path.abspath(__file__)), "plot.gp")
    pngs = {"wall": "cost-vs-n.png", "icount": "cost-icount.png"}
    made = []
    for clock, png in pngs.items():
        path = os.path.join(outdir, png)
        if os.path.exists(path):
            os.remove(path)
        if not panels[clock]:
            continue
        unit = "µs per operation" if clock == "wall" else \
            "guest instructions per operation"
        rc = subprocess.call(["gnuplot", "-e",
                              f"dir='{pdir}'; png='{path}'; "
                              f"prefix='{clock}-cost'; unit='{unit}'; "
                              f"panels='{' '.join(panels[clock])}'; "
                              "plots='cost'", gp])
        if rc:
            sys.exit(f"report: gnuplot failed ({rc})")
        made.append(png)
    ipng = os.path.join(outdir, "idle.png")
    if os.path.exists(ipng):
        os.remove(ipng)
    if panels.get("idle"):
        unit = "guest instructions per activity" \
            if panels["idle"] == "icount" else "ns per activity"
        if panels.get("idle_reps", 1) > 1:
            unit += f", median of {panels['idle_reps']} repetitions"
        rc = subprocess.call(["gnuplot", "-e",
                              f"dir='{pdir}'; png='{ipng}'; "
                              f"unit='{unit}'; plots='idle'", gp])
        if rc:
            sys.exit(f"report: gnuplot failed ({rc})")
        made.append("idle.png")
    late = os.path.join(outdir, "lateness.png")
    if os.path.exists(late):
        os.remove(late)
    late_cgs = [cg for cg in runs["wall"].cgs() if runs["wall"].late[cg]] \
        if "wall" in runs else []
    if late_cgs:
        rc = subprocess.call(["gnuplot", "-e",
                              f"dir='{pdir}'; png='{late}'; "
                              f"cgs='{' '.join(late_cgs)}'; "
                              "plots='lateness'", gp])
        if rc:
            sys.exit(f"report: gnuplot failed ({rc})")
        made.append("lateness.png")
    return made
