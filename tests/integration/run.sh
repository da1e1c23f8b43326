#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Run the integration tests (tests/integration/*.c, built static into
# build/vm-bin/) in a VM on the debug, the stock or the PREEMPT_RT kernel,
# or (stock-icount) the stock kernel on one CPU under QEMU's -icount.
#   tests/integration/run.sh debug|stock|rt|stock-icount [PATTERN]
# On rt, TWHEEL_EXPECT_RT=1 makes rt/kernel_is_preempt_rt (rt.c) fail unless
# the guest really runs PREEMPT_RT.
# Last line: "RESULT <passed> <failed> <skipped>". A VM that fails closed (a kernel
# splat, a leak, a crash, a time-out) counts as one more failed case.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1
kernel=${1:?usage: run.sh debug|stock|rt|stock-icount [PATTERN]}
name=$kernel
# stock-icount: one CPU under QEMU's -icount, the guest's clocks counting
# its instructions: for bounds in time that no load on the host may
# stretch (isolation.c).
if [ "$kernel" = stock-icount ]; then
	kernel=stock
	export VM_SMP=1 VM_QEMU_ARGS="-icount shift=0,sleep=off"
fi
logs=$top/build/logs
mkdir -p "$logs"
res=$logs/integration-$name.results
rm -f "$res"
env=
[ "$kernel" = rt ] && env='TWHEEL_EXPECT_RT=1 '

VM_QUIET=${VM_QUIET:-1} VM_RESULTS=$res VM_LOG=$logs/integration-$name-console.log \
	tests/vm/run.sh "$kernel" "${env}twheel-run-tests '${2:-*}'"
vmrc=$?

exec tests/vm/tap-result.sh "$res" "$vmrc" "vm/$name" \
	"$logs/integration-$name-console.log"
