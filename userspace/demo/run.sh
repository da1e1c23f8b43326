#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make demo: says what it will show, builds what it needs and boots
# Debian's stock kernel in QEMU, printing one progress line per step; the
# build and boot output goes to build/logs/demo-*.log, shown only when a
# step fails. Then the demo itself (userspace/demo.sh, run in the guest)
# prints its own output, live.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1
logs=$top/build/logs
mkdir -p "$logs"

cat <<'INTRO'
twheel demo: boots Debian's stock kernel in QEMU (software emulation, no
root filesystem: a busybox initramfs), loads twheel.ko, and shows
  1. /dev/twheel and the handshake of a new fd (twheelctl info);
  2. a twheelctl session on one fd: timers added, one re-armed in place,
     one cancelled, a periodic one firing every 200 ms, then stopped;
  3. 100 000 orders with payment deadlines 2 to 5 s away on one fd, 80%
     paid in time (their timers cancelled in batches), the rest expiring:
     none early, none lost, the lateness and the kernel memory they took;
  4. the same rule tested on the manual clock: 30 minutes in milliseconds;
  5. checkout sessions with an idle timeout on the manual clock: each
     activity pushes its deadline back by one store into the shared timer
     table, with no system call; exactly the idle sessions expire;
  6. 2000 idle sessions on a real clock, their timeouts kept three ways
     side by side: the table, one timerfd per session, a heap on one
     timerfd: system calls, wake-ups, CPU time and kernel memory;
then unloads the module. Under a minute once the kernel is fetched.

INTRO

# step MESSAGE LOG COMMAND...: run COMMAND into LOG; on failure show LOG.
step() {
	local msg=$1 log=$2 t0=$SECONDS
	shift 2
	printf 'demo: %s... ' "$msg"
	if "$@" > "$log" 2>&1; then
		echo "done ($((SECONDS - t0)) s)"
		return 0
	fi
	echo "FAILED"
	echo "demo: the last lines of ${log#"$top"/}:"
	tail -n 40 "$log" | sed 's/^/    /'
	exit 1
}

install_deps() {
	tests/deps.sh --check > /dev/null 2>&1 || tests/deps.sh
}
step "checking the Debian packages it needs (make deps)" \
	"$logs/demo-deps.log" install_deps
step "building twheelctl and the demo program (static, for the VM)" \
	"$logs/demo-build.log" "${MAKE:-make}" --no-print-directory \
	build/vm-bin/twheelctl build/vm-bin/twheel-orders \
	build/vm-bin/twheel-sessions
step "fetching Debian's stock kernel and building twheel.ko for it" \
	"$logs/demo-module.log" tests/vm/build-module.sh stock

echo "demo: booting a VM on Debian's stock kernel (boot log: build/logs/demo-console.log)..."
# The guest's console: the boot, then the demo. Show the demo's lines
# only (from its first line on, without the kernel's own "[ time ]"
# messages); the whole console is kept in the log, and tests/vm/run.sh
# still fails on any kernel splat in it.
show_demo() {
	python3 -u -c '
import os, re, sys
kernel = re.compile(rb"^\[ *[0-9]+\.[0-9]+\] ")
started = False
buf = b""
def emit(line, end):
    global started
    if not started:
        started = line.startswith(b"twheel-demo: begin")
        return
    if kernel.match(line) or line.startswith(b"twheel-vm: "):
        return
    sys.stdout.buffer.write(line + end)
    sys.stdout.buffer.flush()
while True:
    data = os.read(0, 4096)
    if not data:
        break
    buf += data
    while True:
        m = re.search(rb"\r?\n|\r(?!\n|$)", buf)
        if not m:
            break
        emit(buf[:m.start()], b"\n" if m.group().endswith(b"\n") else b"\r")
        buf = buf[m.end():]
if buf:
    emit(buf, b"\n")
'
}
VM_QUIET=0 VM_LOG=$logs/demo-console.log \
	tests/vm/run.sh stock "$(cat userspace/demo.sh)" 2> "$logs/demo-vm.log" |
	show_demo
rc=${PIPESTATUS[0]}
echo
if [ "$rc" != 0 ]; then
	echo "demo: FAILED (exit status $rc). The VM harness said:"
	sed 's/^/    /' "$logs/demo-vm.log" | tail -n 20
	echo "demo: the console's last lines ($logs/demo-console.log):"
	tail -n 40 "$logs/demo-console.log" | tr -d '\r' | sed 's/^/    /'
	exit "$rc"
fi
echo "demo: done. Logs: build/logs/demo-*.log"
