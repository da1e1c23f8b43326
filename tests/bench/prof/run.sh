#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# tests/bench/prof/run.sh BIN [MODES] - `make bench-prof`: in one boot of
# the stock kernel (QEMU), load twheel.ko and profile each mode of
# twheel-prof (BIN; modes as in tests/bench/prof/twheel-prof.c, default
# all). Writes build/bench/prof.txt and prints it.
#
# PROF_CLOCK=icount boots one vCPU under QEMU's -icount shift=0,sleep=off:
# the guest's clock, and so the CPU-clock samples, then count executed
# instructions, and a function's share is its share of instructions
# (give or take the end of a translated block, see twheel-prof.c).
set -euo pipefail
top=$(cd "$(dirname "$0")/../../.." && pwd)
cd "$top"
bin=${1:?usage: run.sh BIN [MODES]}
modes=${2:-ppid info single b64 mod expiry}
out=build/bench
mkdir -p "$out"
rm -f "$out/prof.txt"

cmd="set -e
insmod /lib/twheel/twheel.ko
for m in $modes; do twheel-prof \$m >> /tmp/results; echo >> /tmp/results; done"
echo "bench-prof: modes $modes (under a minute in all)"
if [ "${PROF_CLOCK:-wall}" = icount ]; then
	export VM_SMP=1 VM_QEMU_ARGS="-icount shift=0,sleep=off"
	echo "bench-prof: under -icount: shares of guest instructions"
fi
VM_RESULTS="$top/$out/prof.txt" VM_LOG="$top/$out/prof-console.log" \
	VM_FILES="$bin" VM_QUIET=1 tests/vm/run.sh stock "$cmd"
cat "$out/prof.txt"
echo "bench-prof: $out/prof.txt"
