#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The Python binding's tests (userspace/python/twheel/).
#   tests/python/run.sh [stock|debug|rt|host]     (default: stock)
#
# host: only the host tests (tests/python/test_host.py: layouts, constants
# and ioctl numbers against the C header compiled now, errno and record
# decoding on ordinary fds, the asyncio reader on a pipe; and
# tests/python/pip.sh: pip install into a fresh venv). Otherwise the
# host tests, then tests/python/test_device.py (with the test_device_*.py
# files it loads, all reported as python/KERNEL/test_device/CASE) and the
# example's selftest in a VM on that kernel, with Debian's python3 copied
# into the guest, then tests/python/own_script.py as a user runs a script
# (make vm-python)
# (tests/python/overlay.py builds the tree; tests/vm/run.sh's VM_OVERLAY
# copies it in).
# Prints "ok NAME" / "not ok NAME" lines, then "RESULT <passed> <failed>
# <skipped>". A VM that fails closed (a kernel splat, a leak, a crash, a
# time-out) counts as one more failed case. Logs: build/logs/python-*.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1
kernel=${1:-stock}
case $kernel in
stock | debug | rt | host) ;;
*)
	echo "usage: tests/python/run.sh [stock|debug|rt|host]" >&2
	exit 2
	;;
esac
# Debian's interpreter, whatever python3 comes first in PATH (pyenv, venv):
# the one copied into the guest, and the one the host tests run on.
py=/usr/bin/python3
if [ ! -x "$py" ]; then
	echo "not ok python/host/interpreter ($py missing: tests/deps.sh installs python3)"
	echo "RESULT 0 1 0"
	exit 1
fi
logs=$top/build/logs
mkdir -p "$logs"
res=$logs/python-$kernel.results
rm -f "$res"

# Host tests: their lines go to the results file, their output to a log.
$py -B tests/python/tap.py python/host test_host > "$logs/python-host.log" 2>&1
hostrc=$?
cp "$logs/python-host.log" "$res"
if [ $hostrc != 0 ] && ! grep -q '^not ok ' "$res"; then
	echo "not ok python/host/exit_status ($hostrc; log: $logs/python-host.log)" >> "$res"
fi

# pip install of the binding into a fresh venv (tests/python/pip.sh).
tests/python/pip.sh "$py" > "$logs/python-pip.log" 2>&1
grep -E '^(not )?ok ' "$logs/python-pip.log" >> "$res"

vmrc=0
console=$logs/python-$kernel-console.log
if [ "$kernel" != host ]; then
	overlay=$top/build/python-vm/overlay
	if ! $py -B tests/python/overlay.py "$overlay" > "$logs/python-overlay.log" 2>&1; then
		cat "$logs/python-overlay.log"
		echo "not ok python/$kernel/overlay (log: $logs/python-overlay.log)" >> "$res"
	else
		# In the guest: load the module, run the tests, unload it.
		# /tmp/results gets their lines; a crash that reported no
		# failed case is one.
		VM_QUIET=${VM_QUIET:-1} VM_RESULTS=$res.vm VM_LOG=$console \
			VM_OVERLAY=$overlay VM_TIMEOUT=${VM_TIMEOUT:-900} \
			tests/vm/run.sh "$kernel" "
res=/tmp/results
report() { if [ \"\$2\" = 0 ]; then echo \"ok \$1\"; else echo \"not ok \$1\"; fi | tee -a \$res; }
insmod /lib/twheel/twheel.ko
report python/$kernel/insmod \$?
t0=\$(cut -d. -f1 /proc/uptime)
python3 -B /opt/twheel/tests/python/tap.py python/$kernel test_device > /tmp/py.out 2>&1
rc=\$?
cat /tmp/py.out
grep -E '^(not )?ok |^# ' /tmp/py.out >> \$res
echo \"# python tests: \$((\$(cut -d. -f1 /proc/uptime) - t0)) s\" | tee -a \$res
if [ \$rc != 0 ] && ! grep -q '^not ok ' /tmp/py.out; then
	report python/$kernel/exit_status \$rc
fi
rmmod twheel
report python/$kernel/rmmod \$?
! grep -q '^not ok' \$res
"
		vmrc=$?
		cat "$res.vm" >> "$res" 2>/dev/null
		rm -f "$res.vm"
	fi
fi

# A user's own script in the VM, as README.md and
# userspace/python/README.md say: make vm-python SCRIPT=... (its own boot).
if [ "$kernel" != host ]; then
	if make --no-print-directory vm-python KERNEL="$kernel" \
		SCRIPT=tests/python/own_script.py > "$logs/python-vm-python.log" 2>&1 &&
	   grep -q '^{"own_script": "ran", "cookie": 4242}' "$logs/python-vm-python.log"; then
		echo "ok python/$kernel/make_vm_python" >> "$res"
	else
		tail -n 20 "$logs/python-vm-python.log" | sed 's/^/# /' >> "$res"
		echo "not ok python/$kernel/make_vm_python (log: $logs/python-vm-python.log)" >> "$res"
	fi
fi

exec tests/vm/tap-result.sh "$res" "$vmrc" "python/$kernel" "$console"
