#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# tests/bench/run.sh - the host side of `make bench`: boot the stock kernel,
# run twheel-bench in it, then turn the guest's results into the report.
# Two boots by default:
#   wall    2 vCPUs, the host's clock: times as a (slow, emulated) machine
#           sees them; lateness, growth with N and memory are judged here.
#           Outside any memory cgroup (every phase), then inside a fresh
#           one (cost and memory: what the cgroup's charging changes).
#   icount  1 vCPU under QEMU's -icount shift=0,sleep=off: the guest's
#           clock counts executed instructions (1 ns = 1 instruction), so
#           per-operation figures repeat to 1.000x from boot to boot; 2
#           reps suffice. Cost (both deadline modes) and expiry only: idle
#           time is skipped under icount (lateness means nothing) and
#           memory latency vanishes (growth with N is judged in wall time).
#           The shared timer table on the manual clock (phase t,
#           tests/bench/user/table.c) only when asked (BENCH_EXTRA="-p t":
#           a manual clock's ADVANCE does not stand for a real tick); by
#           default the idle timeouts on the real
#           clock (phase i: tests/bench/user/idle.c; N up to
#           BENCH_IDLE_NMAX, a window of BENCH_IDLE_TICKS ticks per run,
#           BENCH_IDLE_REPS repetitions of every case).
#
#   tests/bench/run.sh [BENCH_BIN]
#
# Environment (make bench passes them):
#   BENCH_CLOCK  icount (default: the wall boot, then the icount boot) or
#                wall (the wall boot only)
#   BENCH_REPS   repetitions in the wall boot (default 5)
#   BENCH_NMAX   largest N of the cost phase (default 1000000)
#   BENCH_QUICK  1: N and K up to 10^4, 2 reps, smaller phases (development)
#   BENCH_CG     the wall boot's cgroup settings: "root memcg" (default)
#   BENCH_EXTRA  extra twheel-bench options for both boots (e.g. "-p cl")
#   BENCH_IDLE_NMAX   largest N of the idle-timeout phase (default 100000,
#                quick 10000; at most BENCH_NMAX)
#   BENCH_IDLE_TICKS  its timed window, 1 ms ticks (default 4096, one
#                period of a 64-slot wheel's level 2; quick 300)
#   BENCH_IDLE_REPS   its repetitions of every case, each a fresh start at
#                a later phase of the clock (default 3, quick 1; passed as
#                the -r of its twheel-bench)
#   BENCH_IDLE_EXTRA  extra options of its twheel-bench (e.g. "-M store,table")
#   BENCH_IDLE_ONLY   1: the icount boot runs the idle-timeout phase alone
#   BENCH_BOOTS  the boots to run, overriding BENCH_CLOCK (development:
#                "icount" with BENCH_EXTRA="-p t" runs the table phase only)
# Output in build/bench/: results-wall.txt, results-icount.txt (the
# guests' lines), console-*.log, host-load.txt, bench.md (also printed),
# cost-vs-n.png, lateness.png, plot/ (the plots' data).
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"
bin=${1:-build/bench/twheel-bench}
out=build/bench
reps=${BENCH_REPS:-5}
nmax=${BENCH_NMAX:-1000000}
quick=${BENCH_QUICK:-0}
cgs=${BENCH_CG:-root memcg}
clock=${BENCH_CLOCK:-icount}

case $clock in
icount) boots="wall icount" ;;
wall) boots="wall" ;;
*) echo "bench: BENCH_CLOCK=$clock: icount or wall" >&2; exit 2 ;;
esac
boots=${BENCH_BOOTS:-$boots}
[ -x "$bin" ] || { echo "bench: $bin missing (make bench builds it)" >&2; exit 1; }
for tool in qemu-system-x86_64 gnuplot python3; do
	command -v "$tool" >/dev/null ||
		{ echo "bench: $tool not installed (make deps)" >&2; exit 1; }
done

if [ "$quick" = 1 ]; then
	reps=${BENCH_REPS_QUICK:-2}
	[ "$nmax" -gt 10000 ] && nmax=10000
	wall_args="-r $reps -n $nmax -k 10000 -o 4096 -l 10000 -m 20000"
	icount_args="-r 2 -n $nmax -k 10000 -o 4096"
	idle_nmax=${BENCH_IDLE_NMAX:-10000}
	idle_ticks=${BENCH_IDLE_TICKS:-300}
	idle_reps=${BENCH_IDLE_REPS:-1}
else
	kmax=100000
	[ "$nmax" -lt "$kmax" ] && kmax=$nmax
	wall_args="-r $reps -n $nmax -k $kmax -o 32768 -l 10000 -m 100000"
	icount_args="-r 2 -n $nmax -k $kmax -o 8192"
	idle_nmax=${BENCH_IDLE_NMAX:-100000}
	idle_ticks=${BENCH_IDLE_TICKS:-4096}
	idle_reps=${BENCH_IDLE_REPS:-3}
fi
[ "$idle_nmax" -gt "$nmax" ] && idle_nmax=$nmax
case $idle_reps in
''|*[!0-9]*|0) echo "bench: BENCH_IDLE_REPS=$idle_reps: a count, at least 1" >&2; exit 2 ;;
esac

mkdir -p "$out"
rm -f "$out"/results-*.txt "$out/results.txt"
# The per-user limits (fs.twheel.max_user_fds, max_user_timers) default to
# what 4% of the guest's RAM bounds; the bench holds up to BENCH_NMAX
# timers (10^6 and more) on one fd as root, and its fds' slots stay
# charged until they close. It measures the timers, not the limits: raise
# both well above what it holds (as max_timers, per fd).
# CPU 0's idle time, read cheaply (tests/bench/idlestat/): without it the
# modes with an hrtimer per timer get no busy figure.
eval "$(tests/bench/idlestat/build.sh stock)"
setup="set -e
insmod /lib/twheel/twheel.ko max_timers=4194304
insmod /usr/local/bin/twheel-idlestat.ko
echo 4096 > /proc/sys/fs/twheel/max_user_fds
echo 16777216 > /proc/sys/fs/twheel/max_user_timers"

host_cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n1)

# boot NAME: one VM run; its lines in $out/results-NAME.txt.
boot() {
	local name=$1 cmd smp qargs res=$out/results-$1.txt t0 rc sampler
	local load=$out/host-load-$1.txt
	if [ "$name" = wall ]; then
		cmd=$setup
		for cg in $cgs; do
			if [ "$cg" = root ]; then
				cmd="$cmd
twheel-bench -c root -p cselm $wall_args ${BENCH_EXTRA:-} -f /tmp/results"
			else
				cmd="$cmd
twheel-bench -c $cg -p cm $wall_args ${BENCH_EXTRA:-} -f /tmp/results"
			fi
		done
		smp=2
		qargs=
	elif [ "${BENCH_IDLE_ONLY:-0}" = 1 ]; then
		cmd="$setup
twheel-bench -c root -p i -r $idle_reps -n $idle_nmax -w $idle_ticks ${BENCH_IDLE_EXTRA:-} -f /tmp/results"
		smp=1
		qargs="-icount shift=0,sleep=off"
	else
		cmd="$setup
twheel-bench -c root -p cse $icount_args ${BENCH_EXTRA:-} -f /tmp/results
twheel-bench -c root -p i -r $idle_reps -n $idle_nmax -w $idle_ticks ${BENCH_IDLE_EXTRA:-} -f /tmp/results"
		smp=1
		qargs="-icount shift=0,sleep=off"
	fi
	echo "bench: $name boot, guest runs:"
	printf '%s\n' "$cmd" | sed 's/^/bench:   /'
	# The host's load while the guest runs (other VMs share these CPUs
	# and slow the emulated vCPUs down): sampled every 10 s.
	: > "$load"
	(
		sleep 5
		while :; do
			echo "$(cut -d' ' -f1 /proc/loadavg) $(pgrep -c qemu-system || true)"
			sleep 10
		done
	) >> "$load" &
	sampler=$!
	t0=$(date +%s)
	# Progress lines only; the whole console goes to console-NAME.log.
	set +e
	VM_MEM=${VM_MEM:-6144} VM_TIMEOUT=${VM_TIMEOUT:-5400} \
		VM_SMP=$smp VM_QEMU_ARGS=$qargs \
		VM_RESULTS="$top/$res" VM_LOG="$top/$out/console-$name.log" \
		VM_FILES="$bin $IDLESTAT_KO" VM_QUIET=0 \
		tests/vm/run.sh stock "$cmd" 2>&1 |
		grep --line-buffered -aE '^(bench |twheel-bench|vm: |twheel-vm: )'
	rc=${PIPESTATUS[0]}
	set -e
	kill "$sampler" 2>/dev/null || true
	wait "$sampler" 2>/dev/null || true
	{
		echo "M clock $name"
		echo "M boot_seconds $(($(date +%s) - t0))"
		echo "M host_cpu $host_cpu; $(nproc) CPUs"
		# Our own VM is one qemu-system process; more means other
		# VMs ran too.
		awk -v cpus="$(nproc)" '{ n++; l += $1; if ($2 > 1) o++; if ($2 - 1 > m) m = $2 - 1 }
			END { if (n) printf "M host cpus %d, mean load %.2f over the run; another VM running in %d%% of %d samples (at most %d at once)\n",
				cpus, l / n, 100 * o / n, n, m }' "$load"
	} >> "$res"
	if [ "$rc" != 0 ]; then
		echo "bench: the $name VM run failed (exit $rc); console: $out/console-$name.log" >&2
		exit "$rc"
	fi
	echo "bench: $name boot done in $(($(date +%s) - t0)) s"
}

for b in $boots; do
	boot "$b"
done
files=()
for b in $boots; do
	files+=("$out/results-$b.txt")
done
python3 tests/bench/report.py "$out" "${files[@]}"
