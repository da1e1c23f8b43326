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

[ -f "$res" ] && grep -E '^(not )?ok |^# ' "$res"
passed=$(grep '^ok ' "$res" 2>/dev/null | grep -vc ' # SKIP')
skipped=$(grep -c '^ok .* # SKIP' "$res" 2>/dev/null)
failed=$(grep -c '^not ok ' "$res" 2>/dev/null)
passed=${passed:-0}
skipped=${skipped:-0}
failed=${failed:-0}
if [ $vmrc != 0 ] && [ "$failed" = 0 ]; then
	echo "not ok vm/$kernel/clean_run (VM exit $vmrc; console: $logs/integration-$kernel-console.log)"
	grep -aE '^vm: ' "$logs/integration-$kernel-console.log" 2>/dev/null | tail -n 5
	failed=1
fi
if [ "$passed" = 0 ] && [ "$failed" = 0 ]; then
	echo "not ok vm/$kernel/no_tests_ran"
	failed=1
fi
echo "RESULT $passed $failed $skipped"
[ "$failed" = 0 ]
