#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Run the /dev/twheel fuzzer (tests/fuzz-kernel/twfuzz*.c) in a VM and print
# its result the way tests/integration/run.sh does: the TAP lines, the
# summary ("#" lines), and last "RESULT <passed> <failed> <skipped>".
#
#   tests/fuzz-kernel/run.sh [SECONDS] [KERNEL]     (default: 60 debug)
#
# Environment: FUZZ_SEED (default: random, printed), FUZZ_PROCS (4),
# FUZZ_THREADS (3), FUZZ_ARGS (more twfuzz options, e.g. -v), FUZZ_BIN (a prebuilt twfuzz; default: build one into
# build/fuzz-kernel/), VM_MEM, VM_TIMEOUT (default SECONDS + 600).
# A VM that fails closed (a kernel splat, a leak, a crash, a time-out)
# counts as a failed case. Logs: build/logs/fuzz-kernel-KERNEL*.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1
secs=${1:-60}
kernel=${2:-debug}
logs=$top/build/logs
mkdir -p "$logs" build/fuzz-kernel
res=$logs/fuzz-kernel-$kernel.results
console=$logs/fuzz-kernel-$kernel-console.log
rm -f "$res"

bin=${FUZZ_BIN:-}
if [ -z "$bin" ]; then
	bin=build/fuzz-kernel/twfuzz
	${CC:-cc} -std=gnu11 -O2 -g -Wall -Wextra -Werror -Iuapi -pthread \
		-Itests/integration -static -o "$bin" tests/fuzz-kernel/twfuzz*.c ||
		{ echo "not ok fuzz-kernel/build"; echo "RESULT 0 1 0"; exit 1; }
fi
args="-t $secs -j ${FUZZ_PROCS:-4} -T ${FUZZ_THREADS:-3}"
[ -n "${FUZZ_SEED:-}" ] && args="$args -s $FUZZ_SEED"
args="$args ${FUZZ_ARGS:-}"

# In the guest (sh -e): the fuzzer's output is the result file; then the
# module must unload cleanly (run.sh's kmemleak scan follows).
cmd="insmod /lib/twheel/twheel.ko
rc=0
twfuzz $args > /tmp/fuzz.out 2>&1 || rc=\$?
cp /tmp/fuzz.out /tmp/results
if rmmod twheel; then echo 'ok fuzz-kernel/rmmod' >> /tmp/results
else echo 'not ok fuzz-kernel/rmmod' >> /tmp/results; rc=1; fi
exit \$rc"

VM_QUIET=${VM_QUIET:-1} VM_RESULTS=$res VM_LOG=$console \
	VM_TIMEOUT=${VM_TIMEOUT:-$((secs + 600))} VM_FILES="$bin" \
	tests/vm/run.sh "$kernel" "$cmd"
vmrc=$?

exec tests/vm/tap-result.sh "$res" "$vmrc" "fuzz-kernel/vm_$kernel" "$console"
