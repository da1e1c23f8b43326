# SPDX-License-Identifier: GPL-2.0
"""report_fmt.py - for tests/bench/report.py: the names of the bench's
phases, implementations and cases (as its results files and the report
spell them), their labels and bounds, and how a figure is written: median
±spread, ratios median [min–max] over the repetitions, N as 10^e.
"""
import statistics

TW_CFGS = ["twheel-ioctl", "twheel-b1", "twheel-b8", "twheel-b64",
           "twheel-b256"]
COST_IMPLS = TW_CFGS + ["timerfd", "heap"]
TFD_PARTS = {"schedule": ["timerfd.create", "timerfd.settime",
                          "timerfd.epoll_add"],
             "cancel": ["timerfd.epoll_del", "timerfd.close"],
             "modify": []}
OPS = ["schedule", "modify", "cancel"]
OP_NAME = {"schedule": "ADD", "modify": "MODIFY", "cancel": "CANCEL"}
TFD_LABEL = {"schedule": "timerfd (create + settime + EPOLL_CTL_ADD)",
             "modify": "timerfd (settime)",
             "cancel": "timerfd (EPOLL_CTL_DEL + close)"}
MODES = ["span", "spread"]
MODE_LABEL = {"span": "deadlines in one 30 s span, 1 h ahead",
              "spread": "deadlines log-uniform over 1 s .. 1 h"}
X_IMPLS = ["twheel", "timerfd", "heap"]
L_IMPLS = [("twheel-1ms", 1000000), ("twheel-1us", 1000), ("timerfd", 0),
           ("heap", 0)]
PATTERNS = ["dense", "churn", "survivor64"]
CGS = ["root", "memcg"]
# The shared timer table phase (tests/bench/user/table.c).
T_IMPLS = ["table", "modify", "b64", "timerfd", "heap"]
T_LABEL = {"table": "table store", "modify": "MODIFY",
           "b64": "batched MODIFY (≤64)", "timerfd": "timerfd_settime",
           "heap": "heap re-arm"}
T_BOUND = {1: 5.0, 10: 0.5, 100: 0.05}    # K -> table / heap re-arm
T_CANCEL_BOUND = 1.0                        # table cancel / heap removal
# The idle-timeout phase (tests/bench/user/idle.c).
I_MODES = ["table", "table-read", "modify", "b64", "timerfd", "uring",
           "heap-lazy", "heap-eager", "wheel-lazy", "wheel-eager"]
I_LABEL = {"table": "twheel table + ring",
           "table-read": "twheel table, read(2)",
           "modify": "twheel MODIFY",
           "b64": "twheel SUBMIT ≤64", "timerfd": "timerfd per timer",
           "uring": "io_uring", "heap-lazy": "lazy heap",
           "heap-eager": "eager heap (weaker)",
           "wheel-lazy": "lazy user wheel", "wheel-eager": "eager user wheel"}
MEM_COLS = ["twheel caches", "id index", "memcg slab", "whole slabinfo",
            "Slab", "SUnreclaim", "VmallocUsed", "MemAvailable fall"]


def med(v):
    return statistics.median(v) if v else None


def spread(v):
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
    if s is not None and len(v) > 1 and s >= 0.5:
        text += f" ±{s:.0f}%"
    return text


def fmt_ratio(r, prec=3):
    if not r:
        return "-"
    if len(r) == 1 or max(r) - min(r) < 10 ** -prec:
        return f"{med(r):.{prec}f}"
    return f"{med(r):.{prec}f} [{min(r):.{prec}f}–{max(r):.{prec}f}]"


def per_rep_ratio(a, b):
    """a, b: {rep: value}; {rep: a/b} for the reps both have."""
    return {k: a[k] / b[k] for k in sorted(a) if k in b and b[k]}


def nlabel(n):
    e = len(str(n)) - 1
    return f"10^{e}" if n == 10 ** e else str(n)
