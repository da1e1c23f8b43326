#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# tests/bench/prof/run.sh BIN [MODES] - `make bench-prof`: in one boot of
# the stock kernel (QEMU), load twheel.ko and profile each mode of
# twheel-prof (BIN; modes as in tests/bench/prof/twheel-prof.c, default
# all). Writes build/bench/prof.txt and prints it.
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
VM_RESULTS="$top/$out/prof.txt" VM_LOG="$top/$out/prof-console.log" \
	VM_FILES="$bin" VM_QUIET=1 tests/vm/run.sh stock "$cmd"
cat "$out/prof.txt"
echo "bench-prof: $out/prof.txt"
