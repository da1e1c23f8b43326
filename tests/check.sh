#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make check: every test twheel has, in order, one line per stage, then
# one line "N passed, N failed, N skipped" (N counts test cases, KUnit
# cases included; skipped: cases the kernel cannot run, e.g. fault
# injection on Debian's kernel). Exit status non-zero on any failure. Logs: build/logs/.
# A stage still running after 30 s prints "check: ... NAME: Ns, STEP"
# every 30 s (never "passed"/"failed": only the stage lines count).
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 1
logs=$top/build/logs
mkdir -p "$logs"
total_pass=0
total_fail=0
total_skip=0
start_all=$(date +%s)

# stage_step NAME: what a running stage is doing, from its logs: the
# kernel being fetched or built, the test program or KUnit suite running in
# the VM (the console of this run, newer than the stage's log), else the
# log's last line.
stage_step() {
	local name=$1 log=$logs/$1.log con line
	if [ "$name" = kernels ]; then
		line=$(sed -n 's/^kernel\.sh: //p' "$log" | tail -n1)
		echo "${line:-resolving the debug, stock and rt kernels}"
		return
	fi
	con=$(find "$logs" -maxdepth 1 -name "$name*-console.log" -newer "$log" \
		2>/dev/null | head -n1)
	if [ -n "$con" ]; then
		line=$(tr -d '\r' < "$con" | grep -aE '^# running |^\[[^]]*\]     # Subtest: ' |
			tail -n1 | sed -E 's/^# running (.*\/)?/running /; s/.*# Subtest: /KUnit suite /')
		echo "${line:-booting the VM}"
		return
	fi
	line=$(grep -av '^[[:space:]]*$' "$log" 2>/dev/null | tail -n1 | cut -c1-80)
	echo "${line:-started}"
}

# stage_run NAME COMMAND...: run it into build/logs/NAME.log; every 30 s
# while it runs, one line: its time so far and its step (stage_step).
stage_run() {
	local name=$1 t0 rc pid n=0
	shift
	t0=$(date +%s)
	"$@" > "$logs/$name.log" 2>&1 &
	pid=$!
	while kill -0 "$pid" 2>/dev/null; do
		sleep 1
		n=$((n + 1))
		if [ $((n % 30)) = 0 ] && kill -0 "$pid" 2>/dev/null; then
			echo "check: ... $name: $(($(date +%s) - t0))s, $(stage_step "$name")"
		fi
	done
	wait "$pid"
	rc=$?
	echo "$rc $(($(date +%s) - t0))" > "$logs/$name.status"
}

# stage_report NAME: one line for a stage that ran; count its cases.
stage_report() {
	local name=$1 log=$logs/$1.log rc secs line p f s
	read -r rc secs < "$logs/$name.status"
	line=$(grep -E '^RESULT [0-9]+ [0-9]+( [0-9]+)?$|[0-9]+ passed, [0-9]+ failed' "$log" | tail -n1)
	s=0
	if [[ $line =~ ^RESULT\ ([0-9]+)\ ([0-9]+)(\ ([0-9]+))?$ ]] ||
	   [[ $line =~ ([0-9]+)\ passed,\ ([0-9]+)\ failed ]]; then
		p=${BASH_REMATCH[1]}
		f=${BASH_REMATCH[2]}
		s=${BASH_REMATCH[4]:-0}
	else
		p=0
		f=0
	fi
	# A stage that failed without saying which case counts as one failure.
	if [ "$rc" != 0 ] && [ "$f" = 0 ]; then
		f=1
	fi
	total_pass=$((total_pass + p))
	total_fail=$((total_fail + f))
	total_skip=$((total_skip + s))
	printf 'check: %-22s %4d passed, %d failed%s  (%ds)\n' "$name" "$p" "$f" \
		"$([ "$s" = 0 ] || echo ", $s skipped")" "$secs"
	if [ "$f" != 0 ]; then
		# The failing cases first (a long log must not push them out of
		# view), then the VM harness's verdict, then other diagnostics.
		{
			grep -B 6 -E '^not ok' "$log" | head -n 60
			grep -aE '^vm: ' "$log" | tail -n 10
			grep -E 'FAIL|error' "$log" | grep -vE '^(not )?ok ' | head -n 10
		} | sed 's/^/    /'
		echo "    (full log: $log)"
	fi
}

# stage NAME COMMAND...: run it, then report it.
stage() {
	stage_run "$@"
	stage_report "$1"
}

if ! tests/deps.sh --check > /dev/null 2>&1; then
	echo "check: installing missing packages"
	tests/deps.sh > "$logs/deps.log" 2>&1 || {
		cat "$logs/deps.log"
		echo "0 passed, 1 failed"
		exit 1
	}
fi

# The test kernels first (built or fetched once, then cached), so that no
# later stage's log holds the kernel's own build output.
prepare_kernels() {
	tests/vm/kernel.sh debug && tests/vm/kernel.sh stock &&
		tests/vm/kernel.sh rt
}
stage kernels		prepare_kernels
stage checkpatch	tests/static.sh checkpatch
stage sparse		tests/static.sh sparse
stage w1-debug		tests/static.sh w1 debug
stage w1-stock		tests/static.sh w1 stock
stage w1-rt		tests/static.sh w1 rt
stage uapi		tests/static.sh uapi
if [ -f tests/wheel/wheel.mk ]; then
	stage wheel-native	make --no-print-directory wheel-test
fi
stage userspace-build	make --no-print-directory userspace examples vm-userspace
stage rust-host		tests/rust/run.sh host
stage man		tests/man.sh
stage bench-page	tests/bench/check-page.sh
stage syz		python3 tests/syz/check.py
stage make		tests/make-selftest.sh
stage packaging-install	tests/packaging/install.sh
stage packaging-deb	tests/packaging/deb.sh
# KUnit (debug VM) and the stock VM side by side: both spend much of their
# time asleep (boot, kmemleak's wait, timers), and neither asserts tight
# timing. The debug integration tests, the slowest and most timing-bound,
# run alone.
stage_run kunit			tests/kunit/run.sh &
stage_run integration-stock	tests/integration/run.sh stock &
wait
stage_report kunit
stage_report integration-stock
# One fd's batch against another fd's timer (isolation.c): a bound in
# time, so in instruction time, one CPU under -icount, immune to the
# host's load.
stage isolation		tests/integration/run.sh stock-icount isolation
stage integration-debug	tests/integration/run.sh debug
# The bindings' device tests: Rust (static test binaries) on both kernels,
# Python (Debian's interpreter brought into the guest) on the stock one.
stage rust-stock	tests/rust/run.sh stock
stage rust-debug	tests/rust/run.sh debug
stage python		tests/python/run.sh stock
# Debian's PREEMPT_RT kernel: hrtimer callbacks in threads; its lateness
# tail is the longest of the three, so it too runs alone.
stage integration-rt	tests/integration/run.sh rt
# Random valid and invalid calls from several processes and threads, with
# an exact model of every manual-clock fd as the oracle (60 s).
stage fuzz-kernel	tests/fuzz-kernel/run.sh 60 debug
# Load with an exactly-once, never-early oracle, unload cycles, a memory
# cgroup's limit: full sizes on stock (10^6 timers on one fd, 1000 fds x
# 1000, 1000 insmod/rmmod cycles), smaller under KASAN and lockdep.
stage stress-stock	make --no-print-directory stress KERNEL=stock
stage stress-debug	make --no-print-directory stress KERNEL=debug

# A copy outside the tree, so that the logs of a run in a throw-away clone
# (CI) can still be read after it is gone.
keep=${TWHEEL_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/twheel}/last-check-logs
rm -rf "$keep" && mkdir -p "$keep" && cp -p "$logs"/* "$keep"/ 2>/dev/null
echo "check: done in $(($(date +%s) - start_all))s; logs in $logs (copy: $keep)"
echo "$total_pass passed, $total_fail failed, $total_skip skipped"
[ $total_fail = 0 ]
