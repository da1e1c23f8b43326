#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# unload.sh: module load/unload stress, run inside the test VM (busybox sh)
# as twstress-unload; twstress-hold (tests/stress/hold.c) is its helper.
#
#   twstress-unload [CYCLES]     default 1000
#
# 1. CYCLES insmod/rmmod cycles of /lib/twheel/twheel.ko; in three cycles
#    out of four an fd is opened between them (and closed), with an
#    hour-long timer pending, or with one more timer expired and read.
# 2. rmmod while an fd is open, while a timer is pending, while a record is
#    queued, while a reader is blocked in read(2) and in poll(2): each is
#    refused (the module stays, /dev/twheel still works) and rmmod succeeds
#    once the holder is gone.
# 3. Afterwards nothing of twheel is left: no /dev/twheel, no twheel line
#    in /proc/modules, /proc/slabinfo or /sys/kernel/slab. (kmemleak is
#    checked by tests/vm/run.sh after the command.)
#
# Prints TAP lines "ok unload/NAME" or "not ok unload/NAME" and "#"
# diagnostics; the exit status is the number of failed cases.
set -eu
ko=/lib/twheel/twheel.ko
cycles=${1:-1000}
failed=0
ready=/tmp/twstress-ready

ok() { echo "ok unload/$1"; }
not_ok() {	# not_ok NAME WHY
	echo "# unload/$1: $2"
	echo "not ok unload/$1"
	failed=$((failed + 1))
}
loaded() { grep -q '^twheel ' /proc/modules; }
# Milliseconds since boot (/proc/uptime has centiseconds).
ms() {
	read -r up _ < /proc/uptime
	echo $((${up%.*}${up#*.} * 10))
}
# The state letter of a process (third field of /proc/PID/stat).
pstate() { sed 's/^.*) \(.\).*/\1/' "/proc/$1/stat" 2>/dev/null || echo gone; }
# twheel's slab caches, as /proc/slabinfo and /sys/kernel/slab list them.
slab_lines() {
	grep '^twheel' /proc/slabinfo || true
	for f in /sys/kernel/slab/twheel*; do
		if [ -e "$f" ] || [ -L "$f" ]; then
			echo "${f##*/}"
		fi
	done
}

if loaded; then
	rmmod twheel
fi
for f in /proc/slabinfo /sys/kernel/slab; do
	[ -e $f ] || not_ok slab_files "$f missing: cannot check for leftover caches"
done

# 1. Cycles.
why=
t0=$(ms)
i=0
while [ $i -lt "$cycles" ]; do
	if ! insmod $ko; then
		why="insmod failed in cycle $i"
		break
	fi
	if [ ! -c /dev/twheel ]; then
		why="no /dev/twheel after insmod in cycle $i"
		break
	fi
	k=$((i % 4))
	if [ $k != 0 ] && ! twstress-hold cycle $((k - 1)); then
		why="twstress-hold cycle $((k - 1)) failed in cycle $i"
		break
	fi
	if ! rmmod twheel; then
		why="rmmod failed in cycle $i"
		break
	fi
	if [ -e /dev/twheel ] || loaded; then
		why="/dev/twheel or the module still there after rmmod in cycle $i"
		break
	fi
	i=$((i + 1))
done
t1=$(ms)
echo "# unload: $i cycles in $((t1 - t0)) ms, $(((t1 - t0) / (i > 0 ? i : 1))) ms per cycle"
if [ -z "$why" ]; then
	ok cycles
else
	not_ok cycles "$why"
fi

# 2. rmmod refused while an fd holds the module, allowed after.
if ! loaded; then
	insmod $ko
fi
if [ -e /sys/kernel/slab/twheel_timer ] && [ -e /sys/kernel/slab/twheel_ptimer ]; then
	ok slab_caches_visible
	echo "# loaded: $(slab_lines | tr '\n' ' ')"
else
	not_ok slab_caches_visible "/sys/kernel/slab/twheel_timer or twheel_ptimer missing while loaded"
fi
rmmod twheel

for mode in open pending queued read poll; do
	name=refused_$mode
	insmod $ko
	rm -f $ready
	twstress-hold hold $mode $ready &
	pid=$!
	n=0
	while [ ! -e $ready ] && [ $n -lt 600 ]; do
		sleep 0.1
		n=$((n + 1))
	done
	# A reader must be asleep in its read or poll, past the ready file.
	if [ $mode = read ] || [ $mode = poll ]; then
		n=0
		while [ "$(pstate $pid)" != S ] && [ $n -lt 600 ]; do
			sleep 0.1
			n=$((n + 1))
		done
		echo "# $mode: holder state $(pstate $pid), wchan $(cat /proc/$pid/wchan 2>/dev/null || echo '?')"
	fi
	why=
	if [ ! -e $ready ] || [ "$(pstate $pid)" = gone ]; then
		why="the holder did not get ready"
	elif rmmod twheel 2> /tmp/twstress-rmmod.err; then
		why="rmmod succeeded with an fd in state $mode"
	elif ! loaded || [ ! -c /dev/twheel ]; then
		why="a refused rmmod removed the module or /dev/twheel"
	elif ! twstress-hold probe; then
		why="/dev/twheel does not work after a refused rmmod"
	elif [ $mode = read ] || [ $mode = poll ] && [ "$(pstate $pid)" != S ]; then
		why="the blocked $mode was disturbed (state $(pstate $pid))"
	fi
	echo "# $mode: rmmod said: $(cat /tmp/twstress-rmmod.err 2>/dev/null)"
	kill $pid 2>/dev/null || true
	wait $pid 2>/dev/null || true
	if [ -z "$why" ]; then
		if ! rmmod twheel; then
			why="rmmod failed after the holder exited"
		elif [ -e /dev/twheel ] || loaded; then
			why="module or /dev/twheel left after rmmod"
		fi
	fi
	if [ -z "$why" ]; then
		ok $name
	else
		not_ok $name "$why"
	fi
	if loaded; then
		rmmod twheel || true
	fi
done

# 3. Nothing left.
why=
if [ -e /dev/twheel ]; then
	why="/dev/twheel left"
elif loaded; then
	why="twheel in /proc/modules"
elif [ -n "$(slab_lines)" ]; then
	why="slab cache left: $(slab_lines | tr '\n' ' ')"
fi
if [ -z "$why" ]; then
	ok nothing_left
else
	not_ok nothing_left "$why"
fi
exit $failed
