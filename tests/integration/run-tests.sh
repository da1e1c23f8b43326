#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# twheel-run-tests: runs inside the test VM. Loads twheel.ko, runs every
# integration test program (/usr/bin/twt-*), checks the module's lifecycle,
# and appends one "ok"/"not ok" line per case to /tmp/results.
#   twheel-run-tests [PATTERN]   only programs whose name matches PATTERN
res=/tmp/results
pat=${1:-*}

report() {	# report NAME STATUS
	if [ "$2" = 0 ]; then
		echo "ok $1" | tee -a $res
	else
		echo "not ok $1" | tee -a $res
	fi
}

insmod /lib/twheel/twheel.ko
report vm/insmod $?
[ -c /dev/twheel ]
report vm/dev_node_created $?

for t in /usr/bin/twt-$pat; do
	[ -x "$t" ] || continue
	echo "# running $t"
	t0=$(cut -d. -f1 /proc/uptime)
	"$t" > /tmp/out.$$ 2>&1
	rc=$?
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
! grep -q '^not ok' $res
