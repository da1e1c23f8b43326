#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Run the integration tests (tests/integration/*.c, built static into
# build/vm-bin/) in a VM on the debug, the stock or the PREEMPT_RT kernel.
#   tests/integration/run.sh debug|stock|rt [PATTERN]
# On rt, TWHEEL_EXPECT_RT=1 makes rt/kernel_is_preempt_rt (rt.c) fail unless
# the guest really runs PREEMPT_RT.
# Last line: "RESULT <passed> <failed> <skipped>". A VM that fails closed (a kernel
# splat, a leak, a crash, a time-out) counts as one more failed case.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1
kernel=${1:?usage: run.sh debug|stock|rt [PATTERN]}
logs=$top/build/logs
mkdir -p "$logs"
res=$logs/integration-$kernel.results
rm -f "$res"
env=
[ "$kernel" = rt ] && env='TWHEEL_EXPECT_RT=1 '

VM_QUIET=${VM_QUIET:-1} VM_RESULTS=$res VM_LOG=$logs/integration-$kernel-console.log \
	tests/vm/run.sh "$kernel" "${env}twheel-run-tests '${2:-*}'"
vmrc=$?

exec tests/vm/tap-result.sh "$res" "$vmrc" "vm/$kernel" \
	"$logs/integration-$kernel-console.log"
