#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Run the in-kernel benchmark (twheel-kbench.ko) in a stock-kernel VM and
# write its table as markdown to build/bench/kbench.md.
#
#   tests/bench/kbench/run.sh [--format-only] [stock|debug]
#
# --format-only skips the VM and only rewrites the markdown from the log
# of the last run.
#
# Environment:
#   KBENCH_N       largest N (default 1000000: 10^3 .. 10^6)
#   KBENCH_REPS    repetitions, median reported (default 5)
#   KBENCH_TICKS   the wheel's tick(s) in ns, one module load and one
#                  table each (default "1000000 1000": twheel's default
#                  tick and its finest)
#   KBENCH_ARGS    more module parameters (min_ms=, span_ms=, batch=)
#   KBENCH_OUT     the markdown file (default build/bench/kbench.md)
#   VM_MEM         guest memory in MiB (default here 2048)
#   VM_TIMEOUT     seconds before the VM is killed (default here 3600)
#
# The raw log lines go to build/bench/kbench.log, the guest console to
# build/bench/kbench-console.log. Fails when the VM fails (kernel splat,
# crash, time-out), when a load does not finish its table, or when a
# kernel timer fired during a measurement.
set -euo pipefail

top=$(cd "$(dirname "$0")/../../.." && pwd)
format_only=0
if [ "${1:-}" = "--format-only" ]; then
	format_only=1
	shift
fi
kernel=${1:-stock}
n=${KBENCH_N:-1000000}
reps=${KBENCH_REPS:-5}
ticks=${KBENCH_TICKS:-1000000 1000}
args=${KBENCH_ARGS:-}
outdir=$top/build/bench
md=${KBENCH_OUT:-$outdir/kbench.md}
raw=$outdir/kbench.log
mkdir -p "$outdir"

if [ "$format_only" = 1 ]; then
	eval "$("$top/tests/vm/kernel.sh" "$kernel")"
else
	eval "$("$top/tests/bench/kbench/build.sh" "$kernel")"
fi

# VM_FILES copies by name into /usr/local/bin; the .ko is loaded from there.
# The whole benchmark runs in the module's init, which returns 0 once the
# table is printed (an error if a check failed); rmmod then unloads it.
# With -e, any failed load fails the run.
cmd="set -e; "
for t in $ticks; do
	cmd+="insmod /usr/local/bin/twheel-kbench.ko n=$n reps=$reps tick_ns=$t $args; rmmod twheel_kbench; "
done
cmd+="dmesg | sed -n 's/^.*twheel_kbench: //p' > /tmp/results; "
cmd+="test \$(grep -c '^done status=0 ' /tmp/results) = $(echo "$ticks" | wc -w)"

rc=0
[ "$format_only" = 1 ] ||
VM_FILES="$KBENCH_KO" VM_MEM=${VM_MEM:-2048} VM_TIMEOUT=${VM_TIMEOUT:-3600} \
	VM_RESULTS="$raw" VM_LOG="$outdir/kbench-console.log" VM_QUIET=1 \
	"$top/tests/vm/run.sh" "$kernel" "$cmd" || rc=$?
if [ "$rc" != 0 ]; then
	echo "kbench: the VM run failed (status $rc); see $outdir/kbench-console.log" >&2
	grep -a 'twheel_kbench' "$outdir/kbench-console.log" | tail -n 20 >&2 || true
	exit "$rc"
fi

# One markdown section per module load ("start" line); ratios are of the
# medians, wheel over the kernel timer.
awk -v kver="$KVER" -v kernel="$kernel" -v date="$(date -u '+%Y-%m-%d %H:%M UTC')" \
    -v host="$(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //')" '
function kv(s, k,    i, a) {
	for (i = 1; i <= NF; i++) {
		split($i, a, "=")
		if (a[1] == k)
			return substr($i, length(k) + 2)
	}
	return ""
}
function ratio(a, b) {
	return (a == "" || b == "" || b + 0 == 0) ? "-" : sprintf("%.2f", a / b)
}
function flush(    i, key, w, t, h) {
	for (i = 1; i <= nkeys; i++) {
		key = keys[i]
		w = val[key, "wheel"]; t = val[key, "timer_list"]; h = val[key, "hrtimer"]
		l = val[key, "wheel+mutex"]
		printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", mname[key], nn[key],
		       cell(key, "wheel"), cell(key, "wheel+mutex"), cell(key, "timer_list"),
		       cell(key, "hrtimer"), ratio(w, t), ratio(w, h), ratio(l, t)
		if (mname[key] == "add+rm" && nn[key] == 100000 && t != "") {
			verdict = "MISSED (the wheel is slower than add_timer+timer_delete)"
			if (w + 0 <= t + 0)
				verdict = "MET (the wheel is no slower than add_timer+timer_delete)"
			target = sprintf("add+remove at N = 10^5, tick %s ns: wheel/timer_list = %.2f: %s; with a mutex per operation: %.2f",
					 tick, w / t, verdict, l / t)
		}
	}
	if (target != "")
		printf "\n**Target** %s\n", target
	nkeys = 0; target = ""
	delete val; delete mname; delete nn; delete range; delete seen
}
function cell(key, impl) {
	return val[key, impl] == "" ? "-" : val[key, impl] " (" range[key, impl] ")"
}
BEGIN {
	printf "# twheel in-kernel benchmark: wheel core vs timer_list vs hrtimer\n\n"
	printf "Kernel %s (%s VM, QEMU TCG software emulation, 2 vCPUs) on %s, %s.\n", kver, kernel, host, date
	printf "Produced by tests/bench/kbench/run.sh from twheel-kbench.ko (tests/bench/kbench/twheel_kbench.c).\n\n"
	printf "ns per operation, median of the repetitions (min-max). N deadlines uniform over\n"
	printf "[min_ms, min_ms + span_ms] from the start of each phase, the same for all; removal in\n"
	printf "one random order. add: N armed in an empty structure; remove: the N removed; add+rm:\n"
	printf "add + remove per timer; expire (wheel only): the N re-armed, then twheel_wheel_advance()\n"
	printf "once per 1 ms of time (a 1 kHz caller: max(1, 10^6 / tick_ns) ticks per call) from 0 to\n"
	printf "the last deadline, per entry handed back, every call included.\n\n"
	printf "wheel = kmod/twheel_wheel.c (the source twheel.ko is built from), deadlines in ticks, no\n"
	printf "lock; wheel+mutex = the same with a mutex locked and unlocked around every operation\n"
	printf "(twheel.ko holds its mutex once per ioctl batch: the two bracket it); timer_list =\n"
	printf "add_timer()/timer_delete() in jiffies; hrtimer = hrtimer_start(ABS)/hrtimer_cancel() on\n"
	printf "CLOCK_MONOTONIC. timer_setup()/hrtimer init are outside the timing. Ratios are wheel /\n"
	printf "other (below 1: the wheel is cheaper). Under TCG, absolute figures are far from hardware\n"
	printf "and memory-bound costs are under-weighted: read the ratios.\n"
}
{ sub(/\r$/, "") }
/^start / {
	if (nkeys)
		flush()
	tick = kv($0, "tick_ns")
	printf "\n## tick_ns=%s n=%s reps=%s min_ms=%s span_ms=%s batch=%s HZ=%s\n\n", tick,
	       kv($0, "n"), kv($0, "reps"), kv($0, "min_ms"), kv($0, "span_ms"), kv($0, "batch"), kv($0, "hz")
	print "| measure | N | wheel ns/op | wheel+mutex ns/op | timer_list ns/op | hrtimer ns/op | wheel/timer_list | wheel/hrtimer | wheel+mutex/timer_list |"
	print "|---|---:|---:|---:|---:|---:|---:|---:|---:|"
	next
}
/^m=/ {
	key = kv($0, "m") " " kv($0, "n")
	if (!(key in seen)) {
		seen[key] = 1
		keys[++nkeys] = key
		mname[key] = kv($0, "m"); nn[key] = kv($0, "n")
	}
	val[key, kv($0, "impl")] = kv($0, "ns_op")
	range[key, kv($0, "impl")] = kv($0, "min") "-" kv($0, "max")
	next
}
/^done / {
	flush()
	printf "\nload status %s, kernel timer callbacks run during the measurement: %s\n", kv($0, "status"), kv($0, "fired")
	if (kv($0, "fired") != 0)
		bad = 2
	next
}
/^skip / { printf "\n%s\n", $0 }
/^(wheel|timer_list|hrtimer)/ { printf "\nwarning: %s\n", $0 }
END { exit bad }
' "$raw" > "$md" || rc=$?
if [ "$rc" = 2 ]; then
	cat "$md"
	echo "kbench: a kernel timer fired during the measurement" >&2
	exit 1
elif [ "$rc" != 0 ]; then
	echo "kbench: cannot format $raw" >&2
	exit 1
fi
cat "$md"
echo "(written to ${md#"$top"/})"
