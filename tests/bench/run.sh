#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# tests/bench/run.sh - the host side of `make bench`: boot the stock kernel
# once, run twheel-bench in it (first outside any memory cgroup, then
# inside a fresh one), then turn the guest's results into the report.
#
#   tests/bench/run.sh [BENCH_BIN]
#
# Environment (make bench passes them):
#   BENCH_REPS   repetitions of every measurement (default 5)
#   BENCH_NMAX   largest N of the cost phase (default 1000000)
#   BENCH_QUICK  1: N and K up to 10^4, 2 reps, smaller phases (development)
#   BENCH_CG     "root memcg" (default), or just one of them
#   BENCH_EXTRA  extra twheel-bench options (e.g. "-p cl")
# Output in build/bench/: results.txt (the guest's lines), console.log,
# host-load.txt, bench.md (also printed), cost-vs-n.png, lateness.png,
# plot/ (the plots' data).
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"
bin=${1:-build/bench/twheel-bench}
out=build/bench
reps=${BENCH_REPS:-5}
nmax=${BENCH_NMAX:-1000000}
quick=${BENCH_QUICK:-0}
cgs=${BENCH_CG:-root memcg}

[ -x "$bin" ] || { echo "bench: $bin missing (make bench builds it)" >&2; exit 1; }
for tool in qemu-system-x86_64 gnuplot python3; do
	command -v "$tool" >/dev/null ||
		{ echo "bench: $tool not installed (make deps)" >&2; exit 1; }
done

if [ "$quick" = 1 ]; then
	reps=${BENCH_REPS_QUICK:-2}
	[ "$nmax" -gt 10000 ] && nmax=10000
	args="-r $reps -n $nmax -k 10000 -o 4096 -l 10000 -m 10000"
else
	kmax=100000
	[ "$nmax" -lt "$kmax" ] && kmax=$nmax
	args="-r $reps -n $nmax -k $kmax -o 32768 -l 10000 -m 50000"
fi
args="$args ${BENCH_EXTRA:-}"

mkdir -p "$out"
rm -f "$out/results.txt"
# The per-user limits (fs.twheel.max_user_fds, max_user_timers) default to
# what 4% of the guest's RAM bounds; the bench holds up to BENCH_NMAX
# timers (10^6 and more) on one fd as root, and its fds' slots stay
# charged until they close. It measures the timers, not the limits: raise
# both well above what it holds (as max_timers, per fd).
cmd="set -e
insmod /lib/twheel/twheel.ko max_timers=4194304
echo 4096 > /proc/sys/fs/twheel/max_user_fds
echo 16777216 > /proc/sys/fs/twheel/max_user_timers"
for cg in $cgs; do
	cmd="$cmd
twheel-bench -c $cg $args -f /tmp/results"
done
echo "bench: guest runs:"
printf '%s\n' "$cmd" | sed 's/^/bench:   /'

# The host's load while the guest runs (other VMs share these CPUs and
# slow the emulated vCPUs down): sampled every 10 s, summed up below.
load=$out/host-load.txt
: > "$load"
(
	sleep 5
	while :; do
		echo "$(cut -d' ' -f1 /proc/loadavg) $(pgrep -c qemu-system || true)"
		sleep 10
	done
) >> "$load" &
sampler=$!
trap 'kill "$sampler" 2>/dev/null || true' EXIT

# Progress lines only; the whole console goes to $out/console.log.
set +e
VM_MEM=${VM_MEM:-6144} VM_TIMEOUT=${VM_TIMEOUT:-5400} \
	VM_RESULTS="$top/$out/results.txt" VM_LOG="$top/$out/console.log" \
	VM_FILES="$bin" VM_QUIET=0 \
	tests/vm/run.sh stock "$cmd" 2>&1 |
	grep --line-buffered -aE '^(bench |twheel-bench|vm: |twheel-vm: )'
rc=${PIPESTATUS[0]}
set -e
kill "$sampler" 2>/dev/null || true
wait "$sampler" 2>/dev/null || true
# Our own VM is one qemu-system process; more means other VMs ran too.
awk -v cpus="$(nproc)" '{ n++; l += $1; if ($2 > 1) o++; if ($2 - 1 > m) m = $2 - 1 }
	END { if (n) printf "M host cpus %d, mean load %.2f over the run; another VM running in %d%% of %d samples (at most %d at once)\n",
		cpus, l / n, 100 * o / n, n, m }' "$load" >> "$out/results.txt"
if [ "$rc" != 0 ]; then
	echo "bench: the VM run failed (exit $rc); console: $out/console.log" >&2
	exit "$rc"
fi
python3 tests/bench/report.py "$out/results.txt" "$out"
