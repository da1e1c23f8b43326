#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# tests/bench/publish.sh - `make bench-publish`: run the whole bench (the
# wall-clock boot and the icount boot, tests/bench/run.sh), then write
# docs/benchmarks.md and docs/bench/*.png from that run: its date, the git
# commit, the guest kernel, the host CPU, the exact command, the targets
# and every table of build/bench/bench.md; then what limits the targets
# it misses (tests/bench/limits.md) with the profile of the same commit
# under -icount (make bench-prof PROF_CLOCK=icount).
#
#   tests/bench/publish.sh [BENCH_BIN]
#
# BENCH_QUICK=1 (development) runs the quick bench; the page then says in
# its first lines that it is not a publishable run. The committed page
# comes from a full run. BENCH_PUBLISH_NORUN=1 rewrites the page from the
# results already in build/bench/ (as make bench-report does the report).
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"
bin=${1:-build/bench/twheel-bench}
out=build/bench
page=docs/benchmarks.md
quick=${BENCH_QUICK:-0}

cmd="make bench-publish"
[ "$quick" = 1 ] && cmd="make bench-publish BENCH_QUICK=1"
[ "${BENCH_REPS:-5}" != 5 ] && cmd="$cmd BENCH_REPS=$BENCH_REPS"
[ "${BENCH_NMAX:-1000000}" != 1000000 ] && cmd="$cmd BENCH_NMAX=$BENCH_NMAX"
idle_reps_default=3
[ "$quick" = 1 ] && idle_reps_default=1
[ "${BENCH_IDLE_REPS:-$idle_reps_default}" != "$idle_reps_default" ] &&
	cmd="$cmd BENCH_IDLE_REPS=$BENCH_IDLE_REPS"

t0=$(date +%s)
prof_modes="single b64 mod expiry table"
if [ "${BENCH_PUBLISH_NORUN:-0}" != 1 ]; then
	BENCH_CLOCK=icount tests/bench/run.sh "$bin"
	make --no-print-directory build/bench/twheel-prof
	PROF_CLOCK=icount tests/bench/prof/run.sh build/bench/twheel-prof \
		"$prof_modes"
fi
for f in "$out/results-wall.txt" "$out/results-icount.txt" "$out/bench.md" \
	 "$out/prof.txt"; do
	[ -s "$f" ] || { echo "bench-publish: $f missing: the run failed" >&2; exit 1; }
done
BENCH_PAGE=1 python3 tests/bench/report.py "$out" "$out/results-wall.txt" \
	"$out/results-icount.txt" > /dev/null

meta() {	# meta FILE KEY: the first "M KEY" value of a results file
	sed -n "s/^M $2 //p" "$1" | head -n1
}
commit=$(git rev-parse --short=12 HEAD)
# What was measured: the module, its ABI, the library and the bench's
# program and runner (the report's and this page's text are not).
dirty=$(git status --porcelain -- kmod uapi userspace/lib tests/bench/user \
	tests/bench/run.sh tests/bench/prof | wc -l)
# When the run was (the results' time: with BENCH_PUBLISH_NORUN, not now).
run_date=$(date -u -d "@$(stat -c %Y "$out/results-wall.txt")" '+%Y-%m-%d %H:%M UTC')
host_cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n1)
# The idle-timeout phase's repetitions: the -r of the twheel-bench that ran
# it (its "M opts" line, phases i).
# (The guest's console ends its lines with CR LF.)
idle_reps=$(tr -d '\r' < "$out/results-icount.txt" |
	sed -n 's/^M opts .* reps \([0-9][0-9]*\) .* phases [a-z]*i[a-z]*$/\1/p' |
	head -n1)
case ${idle_reps:-1} in
1) idle_reps_text="one repetition of every case: a case's figures move by up to
about 10% with the phase of the virtual clock at its start, so a target
within 10% is not decided by it" ;;
*) idle_reps_text="$idle_reps repetitions of every case, each a fresh start at
a later phase of the virtual clock, with which a case's figures move by up
to about 10%: its targets are judged in every repetition, on the worst,
its tables show the median and the range" ;;
esac

mkdir -p docs/bench
rm -f docs/bench/*.png
pngs=()
for p in idle.png cost-vs-n.png cost-icount.png lateness.png; do
	if [ -f "$out/$p" ]; then
		cp "$out/$p" docs/bench/
		pngs+=("$p")
	fi
done

tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
{
	echo "# Benchmarks"
	echo
	if [ "$quick" = 1 ]; then
		echo "**Quick run (BENCH_QUICK=1, for development): small N and"
		echo "few repetitions. Not a publishable result; the committed page"
		echo "comes from a full \`make bench-publish\`.**"
		echo
	fi
	if [ -s "$out/verdict.md" ]; then
		echo "## Verdict: per-connection idle timeouts (issue 27)"
		echo
		echo "One thread, one epoll loop on the real clock, N timers pushed"
		echo "back by activities (section \"Idle timeouts on the real clock\""
		echo "below; \`tests/bench/user/idle.c\`):"
		echo
		cat "$out/verdict.md"
		echo
		if [ -f docs/bench/idle.png ]; then
			echo "![idle](bench/idle.png)"
			echo
		fi
		cat "$out/idle-targets.md"
		echo
		echo "## The run"
		echo
	fi
	echo "twheel beside timerfd+epoll and a userspace heap on one timerfd,"
	echo "measured by \`make bench\` (the program: \`tests/bench/user/\`, the"
	echo "runner: \`tests/bench/run.sh\`, the report: \`tests/bench/report.py\`)"
	echo "in Debian's stock kernel under QEMU. This page and its plots were"
	echo "written by \`tests/bench/publish.sh\` from one run:"
	echo
	echo "- date: $run_date"
	echo "- git commit: $commit$([ "$dirty" = 0 ] || echo " (with uncommitted changes in what was measured: kmod/, uapi/, userspace/lib/, tests/bench/user/, run.sh or prof/)")"
	echo "- guest kernel: $(meta "$out/results-wall.txt" kernel) (QEMU TCG, stock Debian)"
	echo "- host CPU: $host_cpu, $(nproc) CPUs (\`nproc\`)"
	echo "- wall boot: $(meta "$out/results-wall.txt" boot_seconds) s; icount boot: $(meta "$out/results-icount.txt" boot_seconds) s"
	echo "- host load: $(meta "$out/results-wall.txt" host)"
	echo "- command:"
	echo
	echo "      $cmd"
	echo
	echo "Run it again with \`$cmd\` (as root, from the repository's top;"
	echo "\`make bench\` alone writes \`build/bench/bench.md\` and leaves this"
	echo "page alone; \`make bench BENCH_CLOCK=wall\` runs the wall-clock boot"
	echo "only; \`make bench BENCH_QUICK=1\` takes a few minutes)."
	echo "\`make bench-page-check\` checks that every command on this page"
	echo "exists."
	echo
	echo "Two boots: the wall-clock boot (2 vCPUs, the host's clock; growth"
	echo "with N, lateness and memory are judged there) and the icount boot"
	echo "(1 vCPU, \`-icount shift=0,sleep=off\`: the guest's clock counts"
	echo "executed instructions, so its figures repeat from boot to boot to"
	echo "1.000x, and it runs 2 repetitions; the instruction targets are"
	echo "judged there). Instructions mean nothing for lateness (idle time is"
	echo "skipped under icount) nor for growth with N (memory latency"
	echo "vanishes), so those are shown in wall time only. The icount boot"
	echo "also measures the idle timeouts on the real clock ($idle_reps_text);"
	echo "the shared timer table's earlier figures on the manual clock"
	echo "(phase t) are left out of this page: a manual clock's"
	echo "TWHEEL_IOC_ADVANCE does not stand for a real tick."
	echo
	for p in "${pngs[@]}"; do
		[ "$p" = idle.png ] && continue
		echo "![${p%.png}](bench/$p)"
		echo
	done
	# The report, without its title.
	sed '1{/^# /d}' "$out/bench.md"
	echo
	cat tests/bench/limits.md
	echo
	echo "### The profile"
	echo
	echo "\`make bench-prof PROF_CLOCK=icount\`, modes $prof_modes:"
	echo
	sed 's/^/    /' "$out/prof.txt"
} > "$tmp"
mv "$tmp" "$page"
trap - EXIT
echo "bench-publish: wrote $page and docs/bench/ (${pngs[*]}) in $(($(date +%s) - t0)) s"
