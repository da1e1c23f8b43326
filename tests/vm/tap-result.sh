#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The end of every script that runs TAP-reporting tests in a VM: print the
# "ok"/"not ok"/"# " lines of RESULTS, one failed case more when the VM
# failed closed (a splat, a leak, a crash, a time-out) while no case said
# so, or when nothing ran; then "RESULT <passed> <failed> <skipped>".
# Exits 0 when nothing failed.
#
#   tests/vm/tap-result.sh RESULTS VM_EXIT_STATUS NAME CONSOLE
#
# NAME prefixes the extra cases (NAME/clean_run, NAME/no_tests_ran).
res=$1
vmrc=$2
name=$3
console=$4

[ -f "$res" ] && grep -aE '^(not )?ok |^# ' "$res"
passed=$(grep -a '^ok ' "$res" 2>/dev/null | grep -avc ' # SKIP')
skipped=$(grep -ac '^ok .* # SKIP' "$res" 2>/dev/null)
failed=$(grep -ac '^not ok ' "$res" 2>/dev/null)
passed=${passed:-0}
skipped=${skipped:-0}
failed=${failed:-0}
if [ "$vmrc" != 0 ] && [ "$failed" = 0 ]; then
	echo "not ok $name/clean_run (VM exit $vmrc; console: $console)"
	grep -aE '^vm: ' "$console" 2>/dev/null | tail -n 5
	failed=1
fi
if [ "$passed" = 0 ] && [ "$failed" = 0 ]; then
	echo "not ok $name/no_tests_ran"
	failed=1
fi
echo "RESULT $passed $failed $skipped"
[ "$failed" = 0 ]
