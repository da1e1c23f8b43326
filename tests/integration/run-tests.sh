#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# twheel-run-tests: runs inside the test VM. Loads twheel.ko, runs every
# integration test program (/usr/bin/twt-*), checks the module's lifecycle,
# and appends one "ok"/"not ok" line per case to /tmp/results.
#   twheel-run-tests [PATTERN]   only programs whose name matches PATTERN
# (twt-isolation only when PATTERN is "isolation": see run.sh)
res=/tmp/results
pat=${1:-*}

report() {	# report NAME STATUS
	if [ "$2" = 0 ]; then
		echo "ok $1" | tee -a $res
	else
		echo "not ok $1" | tee -a $res
	fi
}

# A program still running after $limit s hangs (the slowest, twt-suspend
# on the debug kernel, takes ~110 s): dump each task's state and kernel
# stack, and its output so far, then kill its session. Its case lines
# are lost, so it fails by its exit status; the programs after it run.
limit=${TWHEEL_TEST_LIMIT:-300}
watchdog() {	# watchdog PID PROGRAM; a TERM ends it and its sleep
	sleep "$limit" &
	trap 'kill $! 2> /dev/null; exit 0' TERM
	wait $!
	kill -0 "$1" 2> /dev/null || exit 0
	echo "# watchdog: $(basename "$2") still running after $limit s: tasks, then its output so far"
	for d in /proc/[0-9]*; do
		cmd=$(tr '\0' ' ' < "$d/cmdline" 2> /dev/null | cut -c1-60)
		[ -n "$cmd" ] || continue	# a kernel thread
		echo "# task ${d#/proc/} $cmd: $(cut -d' ' -f3 "$d/stat") wchan $(cat "$d/wchan" 2> /dev/null)"
		sed 's/^/#   /' "$d/stack" 2> /dev/null
		for f in "$d"/fd/*; do
			[ "$(readlink "$f")" = /dev/twheel ] || continue
			echo "#   fd ${f##*/}: /dev/twheel"
			sed 's/^/#     /' "$d/fdinfo/${f##*/}"
		done
	done
	echo w > /proc/sysrq-trigger
	tail -n 40 /tmp/out.$$ | sed 's/^/# out: /'
	for f in /tmp/*-server.out; do
		[ -f "$f" ] && tail -n 20 "$f" | sed "s|^|# $f: |"
	done
	kill -KILL "-$1"
}

insmod /lib/twheel/twheel.ko
report vm/insmod $?
[ -c /dev/twheel ]
report vm/dev_node_created $?

for t in /usr/bin/twt-$pat; do
	[ -x "$t" ] || continue
	# Its bound holds in instruction time: its own -icount boot (run.sh).
	[ "$t" = /usr/bin/twt-isolation ] && [ "$pat" != isolation ] && continue
	echo "# running $t"
	t0=$(cut -d. -f1 /proc/uptime)
	# In a session of its own, so that a hung one and what it started
	# can be stopped together, after a dump of where they wait.
	setsid "$t" > /tmp/out.$$ 2>&1 &
	pid=$!
	watchdog "$pid" "$t" &
	wd=$!
	wait "$pid"
	rc=$?
	kill "$wd" 2> /dev/null
	wait "$wd" 2> /dev/null
	echo "# $(basename "$t"): $(($(cut -d. -f1 /proc/uptime) - t0)) s" >> /tmp/out.$$
	cat /tmp/out.$$
	cat /tmp/out.$$ >> $res
	# A program that died before reporting all its cases still fails.
	if [ $rc -gt 0 ] && ! grep -q '^not ok ' /tmp/out.$$; then
		report "$(basename "$t")/exit_status" $rc
	fi
	rm -f /tmp/out.$$
done

rmmod twheel
report vm/rmmod $?
[ ! -e /dev/twheel ]
report vm/dev_node_removed $?

# Autoload, the way /dev/fuse loads fuse: depmod turns the module's
# aliases into modules.devname, from which kmod creates the node c 10:250
# at boot (here: mknod); the first open() of it makes the kernel ask
# modprobe for char-major-10-250. A modprobe stand-in logs the request
# and loads the module when the name asked for is one of its aliases.
aliases=$(strings /lib/twheel/twheel.ko | sed -n 's/^alias=//p' | tr '\n' ' ')
echo "# module aliases: $aliases"
echo " $aliases " | grep -q ' devname:twheel ' &&
	echo " $aliases " | grep -q ' char-major-10-250 '
report vm/module_aliases $?
{
	echo '#!/bin/sh'
	echo 'echo "$*" >> /tmp/modprobe.log'
	echo "for name in $aliases; do"
	echo '	for arg in "$@"; do'
	echo '		[ "$arg" = "$name" ] && exec insmod /lib/twheel/twheel.ko'
	echo '	done'
	echo 'done'
	echo 'exit 1'
} > /tmp/modprobe
chmod +x /tmp/modprobe
old_modprobe=$(cat /proc/sys/kernel/modprobe)
echo /tmp/modprobe > /proc/sys/kernel/modprobe
mknod /dev/twheel c 10 250
twheelctl info > /dev/null 2>&1 && grep -q '^twheel ' /proc/modules &&
	grep -q 'char-major-10-250' /tmp/modprobe.log
report vm/autoload_on_open $?
echo "# modprobe was asked for: $(cat /tmp/modprobe.log 2>/dev/null)"
echo "$old_modprobe" > /proc/sys/kernel/modprobe
rmmod twheel
report vm/autoload_rmmod $?
rm -f /dev/twheel
! grep -q '^not ok' $res
