#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Run twheel's KUnit suites in the debug VM and parse the KTAP with the
# kernel's own parser. Fails on any "not ok", on a crash, on a kernel splat
# and on zero tests run. Last line: "RESULT <passed> <failed>".
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1
logs=$top/build/logs
mkdir -p "$logs"
ktap=$logs/kunit.ktap
rm -f "$ktap"

VM_QUIET=${VM_QUIET:-1} VM_RESULTS=$ktap VM_LOG=$logs/kunit-console.log \
	tests/vm/run.sh debug '
set -e
insmod /lib/twheel/twheel.ko
echo TWHEEL-KTAP-BEGIN > /dev/kmsg
insmod /lib/twheel/twheel_kunit.ko
dmesg | sed -n "/TWHEEL-KTAP-BEGIN/,\$p" > /tmp/results
rmmod twheel_kunit
rmmod twheel'
vmrc=$?

eval "$(tests/vm/kernel.sh source)" || exit 1
parsed=$logs/kunit.parsed
python3 "$KSRC/tools/testing/kunit/kunit.py" parse "$ktap" > "$parsed" 2>&1
prc=$?
cat "$parsed"
# "Testing complete. Ran 12 tests: passed: 11, failed: 1"
summary=$(grep 'Testing complete' "$parsed" | tail -n1)
total=$(echo "$summary" | sed -n 's/.*Ran \([0-9]*\) tests.*/\1/p')
passed=$(echo "$summary" | sed -n 's/.*passed: \([0-9]*\).*/\1/p')
total=${total:-0}
passed=${passed:-0}
failed=$((total - passed))
if [ "$total" = 0 ]; then
	echo "kunit: no test ran"
	failed=1
elif [ $prc != 0 ] && [ $failed = 0 ]; then
	echo "kunit: the parser reported errors"
	failed=1
fi
if [ $vmrc != 0 ]; then
	echo "kunit: the VM run failed (exit $vmrc); console: $logs/kunit-console.log"
	grep -aE 'vm: ' "$logs/kunit-console.log" 2>/dev/null | tail -n 5
	failed=$((failed + 1))
fi
echo "RESULT $passed $failed"
[ $failed = 0 ]
