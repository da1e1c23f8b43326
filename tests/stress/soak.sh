#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# soak.sh: `make soak`: the mixed load (rounds of 64 threads on one fd and
# of 100 fds x 1000 timers, alternating, each round checked by the
# exactly-once/never-early oracle) for SECONDS in one VM.
#
#   tests/stress/soak.sh debug|stock SECONDS     (after `make stress-build`)
#
# Last line: "soak: KERNEL SECONDS s: operations N records N early N lost N
# splats N". splats is the number of kernel splat lines tests/vm/run.sh
# found in the console: 0 only when the VM run was clean (no splat, no
# kmemleak report, no taint, no crash, no time-out). Exit status 0 when
# the soak passed and the run was clean.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1
kernel=${1:?usage: soak.sh debug|stock SECONDS}
secs=${2:-600}
bin=$top/build/stress
logs=$top/build/logs
mkdir -p "$logs"
res=$logs/soak-$kernel.results
console=$logs/soak-$kernel-console.log
vmerr=$logs/soak-$kernel-vm.log
rm -f "$res"

vmrc=0
VM_QUIET=1 VM_RESULTS=$res VM_LOG=$console VM_MEM=${VM_MEM:-2048} \
	VM_TIMEOUT=$((secs + 1200)) \
	VM_FILES="$bin/twstress-guest $bin/twstress-unload $bin/twstress-hold $bin/twstress-load" \
	tests/vm/run.sh "$kernel" "twstress-guest soak:$secs" 2> "$vmerr" || vmrc=$?
cat "$vmerr" >&2

[ ! -f "$res" ] || grep -E '^(not )?ok |^# ' "$res" || true
line=$(grep '^# soak: ' "$res" 2>/dev/null | tail -n1 || true)
val() { echo "$line" | sed -n "s/.* $1 \([0-9]*\).*/\1/p"; }
ops=$(val operations)
recs=$(val records)
early=$(val early)
lost=$(val lost)
# run.sh lists the splat lines it found after "vm: splat lines:".
splats=$(sed -n '/^vm: splat lines:/,/^vm: /p' "$vmerr" | grep -vc '^vm: ' || true)
if [ $vmrc != 0 ] && [ "$splats" = 0 ]; then
	# Not clean for another reason (leak, taint, crash, time-out).
	splats="? ($(grep '^vm: FAIL' "$vmerr" | tail -n1))"
fi
echo "soak: $kernel ${secs} s: operations ${ops:-?} records ${recs:-?} early ${early:-?} lost ${lost:-?} splats $splats"
[ "$vmrc" = 0 ] && ! grep -q '^not ok' "$res" && [ "${early:-x}" = 0 ] &&
	[ "${lost:-x}" = 0 ]
