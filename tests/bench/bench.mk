# SPDX-License-Identifier: GPL-2.0
#
# tests/bench/bench.mk - `make bench`: twheel beside timerfd+epoll and a
# userspace heap on one timerfd, measured inside one boot of the stock
# kernel under QEMU. Included by the top-level Makefile (paths are
# relative to the repo root).
#
#   make bench                  full run (BENCH_REPS=5, BENCH_NMAX=1000000):
#                               a wall-clock boot and an icount boot
#   make bench BENCH_CLOCK=wall the wall-clock boot only
#   make bench BENCH_QUICK=1    N up to 10^4, 2 reps (a few minutes)
#   make bench BENCH_BOOTS=icount BENCH_EXTRA="-p t"
#                               the shared timer table phase alone (icount)
#   make bench BENCH_BOOTS=icount BENCH_IDLE_ONLY=1 BENCH_QUICK=1
#                               the idle timeouts on the real clock alone
#                               (phase i, tests/bench/user/idle.c; N up to
#                               BENCH_IDLE_NMAX, default 10^5, quick 10^4;
#                               window BENCH_IDLE_TICKS, default 4096 ticks,
#                               quick 300;
#                               BENCH_IDLE_REPS repetitions of every case,
#                               default 3, quick 1: its targets are judged
#                               in every repetition)
#   make bench-report           redo the report from build/bench/results-*.txt
#   make bench-publish          the full bench, then docs/benchmarks.md and
#                               docs/bench/*.png from it (BENCH_QUICK=1 for
#                               development: the page then says so)
#   make bench-page-check       every command docs/benchmarks.md shows exists
#
# Writes build/bench/bench.md (printed), cost-vs-n.png, lateness.png,
# idle.png, verdict.md and idle-targets.md (the idle-timeout phase's).

BENCH_REPS	?= 5
BENCH_NMAX	?= 1000000
BENCH_QUICK	?= 0
BENCH_CLOCK	?= icount
BENCH_DIR	:= tests/bench
BENCH_OUT	:= build/bench
BENCH_BIN	:= $(BENCH_OUT)/twheel-bench
BENCH_SRC	:= $(wildcard $(BENCH_DIR)/user/*.c)

.PHONY: bench bench-bin bench-report bench-publish bench-page-check

bench-bin: $(BENCH_BIN)

$(BENCH_BIN): $(BENCH_SRC) $(wildcard $(BENCH_DIR)/user/*.h) $(LIB_DEPS)
	@mkdir -p $(BENCH_OUT)
	$(CC) $(USER_CFLAGS) -Iuserspace/lib -static -o $@ $(BENCH_SRC) $(LIB_SRC) -luring -lm

bench: $(BENCH_BIN)
	@tests/deps.sh --check >/dev/null 2>&1 || tests/deps.sh
	BENCH_REPS=$(BENCH_REPS) BENCH_NMAX=$(BENCH_NMAX) \
		BENCH_QUICK=$(BENCH_QUICK) BENCH_CLOCK=$(BENCH_CLOCK) \
		$(BENCH_DIR)/run.sh $(BENCH_BIN)

bench-report:
	python3 $(BENCH_DIR)/report.py $(BENCH_OUT) $(wildcard $(BENCH_OUT)/results-*.txt)

bench-publish: $(BENCH_BIN)
	@tests/deps.sh --check >/dev/null 2>&1 || tests/deps.sh
	BENCH_REPS=$(BENCH_REPS) BENCH_NMAX=$(BENCH_NMAX) \
		BENCH_QUICK=$(BENCH_QUICK) BENCH_CLOCK=icount \
		$(BENCH_DIR)/publish.sh $(BENCH_BIN)

bench-page-check:
	$(BENCH_DIR)/check-page.sh

# Where the kernel's time goes: twheel-prof samples each workload (mode)
# in the stock VM and ranks kernel functions; PROF_MODES picks modes;
# PROF_CLOCK=icount ranks them by guest instructions (one vCPU, -icount).
PROF_BIN	:= $(BENCH_OUT)/twheel-prof
PROF_MODES	?= ppid info single b64 mod expiry
PROF_CLOCK	?= wall

.PHONY: bench-prof

$(PROF_BIN): $(BENCH_DIR)/prof/twheel-prof.c $(BENCH_DIR)/prof/prof_sampler.c \
		$(BENCH_DIR)/prof/prof_sampler.h uapi/linux/twheel.h
	@mkdir -p $(BENCH_OUT)
	$(CC) $(USER_CFLAGS) -static -o $@ $(filter %.c,$^)

bench-prof: $(PROF_BIN)
	@tests/deps.sh --check >/dev/null 2>&1 || tests/deps.sh
	PROF_CLOCK=$(PROF_CLOCK) $(BENCH_DIR)/prof/run.sh $(PROF_BIN) "$(PROF_MODES)"

# In-kernel comparison: the wheel core beside timer_list and hrtimer, in
# the stock VM (KBENCH_N, KBENCH_REPS, KBENCH_TICKS, VM_MEM pass through
# the environment); writes build/bench/kbench.md.
.PHONY: kbench kbench-module

kbench-module:
	tests/bench/kbench/build.sh stock > /dev/null

kbench:
	tests/bench/kbench/run.sh stock
