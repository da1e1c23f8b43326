#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# guest.sh: runs inside the test VM as twstress-guest (busybox sh); runs
# the stress steps given, in order, and appends their TAP lines and "#"
# diagnostics to /tmp/results (which tests/vm/run.sh hands to the host).
#
#   twstress-guest STEP...
#     unload:CYCLES            twstress-unload CYCLES
#     million:N                twstress-load million N
#     multifd:FDS:PER          twstress-load multifd FDS PER
#     threads:THREADS:SECS     twstress-load threads THREADS SECS
#     memcg:KIB                twstress-load memcg KIB
#     soak:SECS                twstress-load soak SECS
#
# The load steps load twheel.ko first if it is not loaded; at the end the
# module is unloaded (so kmemleak's final scan sees everything freed).
# Exit status 0 when no step failed.
set -eu
res=/tmp/results
out=/tmp/twstress-step.out
ko=/lib/twheel/twheel.ko

loaded() { grep -q '^twheel ' /proc/modules; }
secs() { cut -d. -f1 /proc/uptime; }

report() {	# report NAME STATUS
	if [ "$2" = 0 ]; then
		echo "ok $1" | tee -a $res
	else
		echo "not ok $1" | tee -a $res
	fi
}

step() {	# step NAME COMMAND...
	name=$1
	shift
	echo "# running $*"
	t0=$(secs)
	if "$@" > $out 2>&1; then
		rc=0
	else
		rc=$?
	fi
	echo "# $name: $(($(secs) - t0)) s" >> $out
	cat $out
	cat $out >> $res
	# A program that died before reporting its cases still fails.
	if [ $rc != 0 ] && ! grep -q '^not ok ' $out; then
		report "$name/exit_status_$rc" 1
	fi
	rm -f $out
}

for s in "$@"; do
	kind=${s%%:*}
	args=$(echo "${s#"$kind"}" | tr ':' ' ')
	if [ "$kind" = unload ]; then
		# shellcheck disable=SC2086
		step unload twstress-unload $args
		continue
	fi
	if ! loaded; then
		if insmod $ko; then
			report "stress/insmod_$kind" 0
		else
			report "stress/insmod_$kind" 1
		fi
	fi
	# shellcheck disable=SC2086
	step "load-$kind" twstress-load "$kind" $args
done
if loaded; then
	if rmmod twheel; then
		report stress/rmmod 0
	else
		report stress/rmmod 1
	fi
fi
! grep -q '^not ok' $res
