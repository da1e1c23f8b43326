# SPDX-License-Identifier: GPL-2.0
#
# tests/fuzz-kernel/fuzz.mk - the in-VM fuzzer of /dev/twheel (twfuzz) and
# the check of its syzkaller description. Included by the top-level
# Makefile (paths are relative to the repo root).
#
#   make fuzz-kernel [FUZZ_SECONDS=60] [KERNEL=debug|stock] [FUZZ_SEED=0x...]
#                    [FUZZ_PROCS=4] [FUZZ_THREADS=3] [FUZZ_ARGS=-v]
#        builds build/fuzz-kernel/twfuzz (static) and runs it in a VM;
#        fails on an oracle violation or any kernel splat; prints the
#        summary (operations, records, early/lost/duplicate counts)
#   make fuzz-kernel-bin   only build it
#   make syz-check         tests/syz/check.py: twheel.txt against the header
#
# (`make fuzz` is the libFuzzer run of the wheel core: tests/wheel/wheel.mk.)

FUZZ_SECONDS	?= 60
FUZZ_SEED	?=
FUZZ_PROCS	?= 4
FUZZ_THREADS	?= 3
FUZZ_ARGS	?=
FUZZK_OUT	:= build/fuzz-kernel
FUZZK_BIN	:= $(FUZZK_OUT)/twfuzz
FUZZK_SRC	:= $(addprefix tests/fuzz-kernel/, twfuzz.c twfuzz_util.c \
		   twfuzz_args.c twfuzz_model.c twfuzz_check.c twfuzz_ops.c \
		   twfuzz_submit.c twfuzz_events.c twfuzz_abi.c \
		   twfuzz_strict.c twfuzz_chaos.c twfuzz_table.c)

.PHONY: fuzz-kernel fuzz-kernel-bin syz-check

fuzz-kernel-bin: $(FUZZK_BIN)

$(FUZZK_BIN): $(FUZZK_SRC) tests/fuzz-kernel/twfuzz.h \
		tests/integration/twtest.h tests/integration/twtest_sys.h \
		uapi/linux/twheel.h
	@mkdir -p $(FUZZK_OUT)
	$(CC) $(USER_CFLAGS) -Itests/integration -static -o $@ $(FUZZK_SRC)

fuzz-kernel: $(FUZZK_BIN)
	FUZZ_BIN=$(FUZZK_BIN) FUZZ_SEED=$(FUZZ_SEED) FUZZ_PROCS=$(FUZZ_PROCS) \
		FUZZ_THREADS=$(FUZZ_THREADS) FUZZ_ARGS='$(FUZZ_ARGS)' \
		tests/fuzz-kernel/run.sh $(FUZZ_SECONDS) $(KERNEL)

syz-check:
	python3 tests/syz/check.py
