#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# run.sh: the stress tests (unload cycles, load cases) in one VM.
#
#   tests/stress/run.sh debug|stock       (after `make stress-build`)
#
# What runs, per kernel (each overridable from the environment). The
# full sizes run on stock (about 6.5 minutes); the debug kernel (KASAN,
# kmemleak, lockdep under emulation: an add takes ~450 us, a load cycle
# 1.7 s) runs a tenth of them (about 6 minutes; the full sizes there
# take ~25 minutes: STRESS_UNLOAD=1000 STRESS_MILLION=1000000 STRESS_FDS=1000).
#   STRESS_UNLOAD     insmod/rmmod cycles             stock 1000, debug 100
#   STRESS_MILLION    timers on one fd                stock 1000000, debug 100000
#   STRESS_FDS, STRESS_PER_FD   fds x timers         stock 1000 x 1000, debug 100 x 1000
#   STRESS_THREADS, STRESS_SECS threads on one fd    64 for 30 s (debug 20 s)
#   STRESS_MEMCG_KIB  the memory cgroup's headroom    4096
#   STRESS_STEPS      the whole list of guest steps (see guest.sh)
# Prints the TAP lines and diagnostics, then "RESULT <passed> <failed>
# <skipped>" last, like tests/integration/run.sh. A VM that fails closed (a
# kernel splat, a kmemleak report, a crash, a time-out) counts as one
# more failed case. Logs: build/logs/stress-KERNEL*.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1
kernel=${1:?usage: run.sh debug|stock}
bin=$top/build/stress
logs=$top/build/logs
mkdir -p "$logs"
res=$logs/stress-$kernel.results
console=$logs/stress-$kernel-console.log
rm -f "$res"

case $kernel in
stock)	unload=1000 million=1000000 fds=1000 secs=30 ;;
debug)	unload=100 million=100000 fds=100 secs=20 ;;
*)	echo "usage: run.sh debug|stock" >&2; exit 2 ;;
esac
unload=${STRESS_UNLOAD:-$unload}
million=${STRESS_MILLION:-$million}
fds=${STRESS_FDS:-$fds}
per=${STRESS_PER_FD:-1000}
threads=${STRESS_THREADS:-64}
secs=${STRESS_SECS:-$secs}
kib=${STRESS_MEMCG_KIB:-4096}
steps=${STRESS_STEPS:-"unload:$unload million:$million multifd:$fds:$per threads:$threads:$secs memcg:$kib"}

for f in twstress-guest twstress-unload twstress-hold twstress-load; do
	[ -x "$bin/$f" ] || { echo "run.sh: $bin/$f missing: make stress-build" >&2; exit 1; }
done

echo "# stress on $kernel: $steps"
vmrc=0
VM_QUIET=${VM_QUIET:-1} VM_RESULTS=$res VM_LOG=$console \
	VM_MEM=${VM_MEM:-2048} VM_TIMEOUT=${VM_TIMEOUT:-3600} \
	VM_FILES="$bin/twstress-guest $bin/twstress-unload $bin/twstress-hold $bin/twstress-load" \
	tests/vm/run.sh "$kernel" "twstress-guest $steps" || vmrc=$?

exec tests/vm/tap-result.sh "$res" "$vmrc" "vm/$kernel" "$console"
