# SPDX-License-Identifier: GPL-2.0
#
# tests/wheel/wheel.mk - native builds of the wheel core: differential test,
# fuzzer and core benchmark. Included by the top-level Makefile; make runs
# at the repo root, every path here is relative to it, every output goes
# under build/wheel/.
#
#   make wheel-test      native differential test, plain and ASan+UBSan
#                        WHEEL_SEED=0x...  (default: random, printed)
#                        WHEEL_OPS=200000  operations per random run
#                        WHEEL_RUNS=8      random runs per binary
#   make fuzz            libFuzzer, FUZZ_SECONDS=60, corpus kept in
#                        build/wheel/fuzz-corpus
#   make bench-core      add/remove/expire cost table, twheel vs heap vs
#                        hashed wheel, then a second table on the workload
#                        shape of W. Ahern's timeout.c benchmark (add N
#                        random, cancel half, expire 1 tick per call);
#                        BENCH_REPS=5; writes build/bench-core.txt (and
#                        the callgrind table, unless BENCH_CALLGRIND=0).
#                        BENCH_REPS=1 BENCH_CALLGRIND=0 takes ~15-20 s
#   make bench-core-callgrind   only the instructions/op table (N = 10^5)
#   make wheel-clean

WHEEL_DIR	:= tests/wheel
WHEEL_OUT	:= build/wheel
WHEEL_GCC	?= gcc
WHEEL_CLANG	?= clang
WHEEL_SRC	:= kmod/twheel_wheel.c
WHEEL_HDRS	:= kmod/twheel_wheel.h $(WHEEL_DIR)/twheel_shim.h \
		   $(WHEEL_DIR)/wheel_ref.h $(WHEEL_DIR)/wheel_ref_model.h \
		   $(WHEEL_DIR)/wheel_ref_check.h $(WHEEL_DIR)/wheel_ref_ops.h \
		   $(WHEEL_DIR)/wheel_ref_advance.h $(WHEEL_DIR)/wheel_ref_run.h \
		   $(WHEEL_DIR)/wheel_ref_case_clock.h \
		   $(WHEEL_DIR)/wheel_ref_case_level.h $(WHEEL_DIR)/wheel_ref_cases.h
WHEEL_CFLAGS	:= -std=gnu11 -Wall -Wextra -Werror -g -I$(WHEEL_DIR) -Ikmod
WHEEL_SAN	:= -O1 -fno-omit-frame-pointer -fsanitize=address,undefined \
		   -fno-sanitize-recover=all

WHEEL_SEED	?=
WHEEL_OPS	?= 200000
WHEEL_RUNS	?= 8
WHEEL_TIMEOUT	?= 600
FUZZ_SECONDS	?= 60
BENCH_REPS	?= 5
BENCH_CALLGRIND	?= 1

.PHONY: wheel-test fuzz bench-core bench-core-callgrind wheel-clean

$(WHEEL_OUT):
	@mkdir -p $@

$(WHEEL_OUT)/wheel_test: $(WHEEL_SRC) $(WHEEL_DIR)/wheel_test.c $(WHEEL_HDRS) | $(WHEEL_OUT)
	$(WHEEL_GCC) $(WHEEL_CFLAGS) -O2 -o $@ $(WHEEL_SRC) $(WHEEL_DIR)/wheel_test.c

$(WHEEL_OUT)/wheel_test_asan: $(WHEEL_SRC) $(WHEEL_DIR)/wheel_test.c $(WHEEL_HDRS) | $(WHEEL_OUT)
	$(WHEEL_GCC) $(WHEEL_CFLAGS) $(WHEEL_SAN) -o $@ $(WHEEL_SRC) $(WHEEL_DIR)/wheel_test.c

$(WHEEL_OUT)/wheel_fuzz: $(WHEEL_SRC) $(WHEEL_DIR)/wheel_fuzz.c $(WHEEL_HDRS) | $(WHEEL_OUT)
	$(WHEEL_CLANG) $(WHEEL_CFLAGS) -O1 -fno-omit-frame-pointer \
		-fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
		-o $@ $(WHEEL_SRC) $(WHEEL_DIR)/wheel_fuzz.c

BENCH_SRCS	:= $(WHEEL_DIR)/bench_core.c $(WHEEL_DIR)/bench_core_twheel.c \
		   $(WHEEL_DIR)/bench_core_heap.c $(WHEEL_DIR)/bench_core_hwheel.c
BENCH_HDRS	:= $(WHEEL_DIR)/bench_core.h kmod/twheel_wheel.h $(WHEEL_DIR)/twheel_shim.h

$(WHEEL_OUT)/bench_core: $(WHEEL_SRC) $(BENCH_SRCS) $(BENCH_HDRS) | $(WHEEL_OUT)
	$(WHEEL_GCC) $(WHEEL_CFLAGS) -O2 -DNDEBUG -o $@ $(WHEEL_SRC) $(BENCH_SRCS)

# Both binaries run with one seed; each prints "wheel_test: P passed, F
# failed" and the totals are summed into the final line. A binary that
# dies or hangs (WHEEL_TIMEOUT) counts as one more failure.
wheel-test: $(WHEEL_OUT)/wheel_test $(WHEEL_OUT)/wheel_test_asan
	@seed='$(WHEEL_SEED)'; \
	[ -n "$$seed" ] || seed=0x$$(od -An -N8 -tx8 /dev/urandom | tr -d ' \n'); \
	pass=0; fail=0; \
	for t in wheel_test wheel_test_asan; do \
		echo "== $(WHEEL_OUT)/$$t $$seed $(WHEEL_OPS) $(WHEEL_RUNS)"; \
		timeout $(WHEEL_TIMEOUT) $(WHEEL_OUT)/$$t $$seed $(WHEEL_OPS) $(WHEEL_RUNS) \
			> $(WHEEL_OUT)/$$t.log 2>&1; rc=$$?; \
		cat $(WHEEL_OUT)/$$t.log; \
		line=$$(grep -E '^wheel_test: [0-9]+ passed, [0-9]+ failed$$' $(WHEEL_OUT)/$$t.log | tail -n 1); \
		p=$$(echo "$$line" | sed -nE 's/^wheel_test: ([0-9]+) passed.*/\1/p'); \
		f=$$(echo "$$line" | sed -nE 's/.* ([0-9]+) failed$$/\1/p'); \
		[ -n "$$p" ] || p=0; [ -n "$$f" ] || f=0; \
		if [ $$rc -ne 0 ] && [ $$f -eq 0 ]; then \
			echo "$$t: exit status $$rc"; f=1; \
		fi; \
		pass=$$((pass + p)); fail=$$((fail + f)); \
	done; \
	echo "wheel-test: $$pass passed, $$fail failed"; \
	[ $$fail -eq 0 ]

fuzz: $(WHEEL_OUT)/wheel_fuzz
	@mkdir -p $(WHEEL_OUT)/fuzz-corpus $(WHEEL_OUT)/fuzz-artifacts
	@echo "== libFuzzer for $(FUZZ_SECONDS) s, corpus $(WHEEL_OUT)/fuzz-corpus, log $(WHEEL_OUT)/fuzz.log"
	@$(WHEEL_OUT)/wheel_fuzz -max_total_time=$(FUZZ_SECONDS) -print_final_stats=1 \
		-artifact_prefix=$(WHEEL_OUT)/fuzz-artifacts/ \
		$(WHEEL_OUT)/fuzz-corpus > $(WHEEL_OUT)/fuzz.log 2>&1; rc=$$?; \
	grep -E 'INITED|DONE|^Done|^stat::|ERROR|mismatch|SUMMARY|artifact' $(WHEEL_OUT)/fuzz.log; \
	done=$$(grep -E '#[0-9]+[[:space:]]+DONE' $(WHEEL_OUT)/fuzz.log | tail -n 1); \
	execs=$$(grep -E '^stat::number_of_executed_units' $(WHEEL_OUT)/fuzz.log | awk '{print $$2}'); \
	cov=$$(echo "$$done" | sed -nE 's/.* cov: ([0-9]+).*/\1/p'); \
	ft=$$(echo "$$done" | sed -nE 's/.* ft: ([0-9]+).*/\1/p'); \
	corp=$$(echo "$$done" | sed -nE 's/.* corp: ([^ ]+).*/\1/p'); \
	echo "fuzz: $${execs:-?} execs in $(FUZZ_SECONDS) s, coverage $${cov:-?} edges ($${ft:-?} features), corpus $${corp:-?}, exit $$rc"; \
	exit $$rc

# Instructions per operation at N = 10^5: the bench runs once under
# callgrind with instrumentation off, switching it on around each measured
# loop and dumping a profile part per (structure, operation).
define WHEEL_CALLGRIND
	@command -v valgrind > /dev/null || { echo "bench-core-callgrind: valgrind not installed"; exit 1; }
	@rm -rf $(WHEEL_OUT)/callgrind && mkdir -p $(WHEEL_OUT)/callgrind
	valgrind --tool=callgrind --instr-atstart=no \
		--callgrind-out-file=$(WHEEL_OUT)/callgrind/cg.out \
		$(WHEEL_OUT)/bench_core -c -n 100000 > $(WHEEL_OUT)/callgrind/run.log 2>&1 || \
		{ tail -n 20 $(WHEEL_OUT)/callgrind/run.log; exit 1; }
	$(WHEEL_OUT)/bench_core -C $(WHEEL_OUT)/callgrind -n 100000 -o build/bench-core-callgrind.txt
endef

bench-core: $(WHEEL_OUT)/bench_core
	@mkdir -p build
	@echo "bench-core: $(BENCH_REPS) repetitions at N = 10^3..10^6, then callgrind: about 3 minutes"
	$(WHEEL_OUT)/bench_core -r $(BENCH_REPS) -o build/bench-core.txt
ifneq ($(BENCH_CALLGRIND),0)
	$(WHEEL_CALLGRIND)
endif

bench-core-callgrind: $(WHEEL_OUT)/bench_core
	@mkdir -p build
	$(WHEEL_CALLGRIND)

wheel-clean:
	rm -rf $(WHEEL_OUT) build/bench-core.txt build/bench-core-callgrind.txt
