# SPDX-License-Identifier: GPL-2.0
#
# make demo: runs as /bin/sh (busybox) in a VM on Debian's stock kernel,
# with the programs of build/vm-bin/ in PATH (see the top-level Makefile).
# Loads the module, shows what an fd is, a short twheelctl session, then
# the payment-deadline demo (userspace/demo/orders.c) live and on the
# manual clock, checkout sessions whose idle timeouts move by stores into
# the shared timer table, the same idle timeouts on a real clock beside
# one timerfd per session and a heap (userspace/demo/sessions.c), and
# unloads the module. Any failure ends it (set -e).
# userspace/demo/run.sh (make demo) shows the console from the
# "twheel-demo: begin" line on.
set -e
step() { echo; echo "==> $*"; }
echo "twheel-demo: begin"

step "insmod twheel.ko"
insmod /lib/twheel/twheel.ko
ls -l /dev/twheel
echo "twheel $(cat /sys/module/twheel/version), max_timers per fd: $(cat /sys/module/twheel/parameters/max_timers)"
echo "per user, by default from RAM: max_user_fds $(cat /proc/sys/fs/twheel/max_user_fds), max_user_timers $(cat /proc/sys/fs/twheel/max_user_timers)"
# The per-user limits bound what one user may hold to about 4% of RAM: the
# demo's 100 000 orders fit in the default 1 GiB VM, not in a much smaller
# VM_MEM. The demo shows the timers, not the limits: root raises them (at
# run time, as the sysctls allow).
echo 4096 > /proc/sys/fs/twheel/max_user_fds
echo 2000000 > /proc/sys/fs/twheel/max_user_timers

step "twheelctl info: the handshake of a new fd"
twheelctl info

step "twheelctl: one fd, commands from this script (>), expiries printed as they fire"
mkfifo /tmp/twheelctl.in
twheelctl < /tmp/twheelctl.in | tee /tmp/twheelctl.out &
exec 3> /tmp/twheelctl.in
cmd() { echo "> $*"; echo "$*" >&3; }
# added N: the id of the Nth timer added, once twheelctl has printed it.
added() {
	n=0
	while [ -z "$(sed -n 's/^added id=//p' /tmp/twheelctl.out | sed -n "${1}p")" ]; do
		n=$((n + 1))
		[ $n -lt 500 ] || { echo "demo: twheelctl did not answer" >&2; return 1; }
		usleep 20000
	done
	sed -n 's/^added id=//p' /tmp/twheelctl.out | sed -n "${1}p"
}
cmd add --cookie 1 500ms
cmd add --cookie 2 --period 200ms 200ms
cmd add --cookie 3 10s
one=$(added 1)
two=$(added 2)
three=$(added 3)
echo "# re-arm timer $one to 300 ms from now (same id), pay off timer $three:"
cmd modify "$one" 300ms
cmd cancel "$three"
cmd list
usleep 700000
echo "# after 0.7 s: stop the periodic timer"
cmd cancel "$two"
cmd list
cmd quit
exec 3>&-
wait
rm -f /tmp/twheelctl.in /tmp/twheelctl.out

step "twheel-orders live: 100 000 orders, payment deadlines 2-5 s, 80% paid in time (cancelled in SUBMIT batches), the rest expire"
twheel-orders live --orders 100000 --paid 80 --cgroup

step "twheel-orders manual: the same rule unit-tested on the manual clock (TWHEEL_CONFIG_MANUAL, 1 ms tick)"
twheel-orders manual --orders 10000 --paid 70

step "twheel-orders sessions: idle timeouts pushed back by a store into the shared timer table (TWHEEL_CONFIG_TABLE), no system call per activity"
twheel-orders sessions --orders 10000

step "twheel-sessions: idle timeouts on a real clock, three ways side by side: the table, one timerfd per session, a heap on one timerfd"
twheel-sessions --sessions 2000 --timeout 500 --seconds 3

step "rmmod twheel"
rmmod twheel
if [ -e /dev/twheel ]; then
	echo "demo: /dev/twheel still there after rmmod" >&2
	exit 1
fi
echo "/dev/twheel is gone"
