#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Boot a test kernel in QEMU with twheel's modules and programs, run a
# command, and fail closed.
#
#   tests/vm/run.sh [--shell] debug|stock|rt 'CMD'
#
# Environment:
#   VM_FILES     extra static executables, placed in the guest's PATH
#   VM_OVERLAY   a directory whose tree is copied into the guest's root
#                (e.g. an interpreter with its libraries: usr/bin/..., lib64/...)
#   VM_TIMEOUT   seconds before the VM is killed (default 900)
#   VM_MEM       guest memory in MiB (default 1024)
#   VM_RESULTS   file that receives what the guest wrote to /tmp/results
#   VM_LOG       file that receives the guest console (default: a temp file)
#   VM_QUIET     1: do not copy the console to stdout
#   VM_SMP       virtual CPUs (default 2)
#   VM_QEMU_ARGS extra QEMU arguments, split on white space (e.g.
#                "-icount shift=0,sleep=off", which needs VM_SMP=1)
#   VM_APPEND    extra kernel parameters
#
# The guest has busybox, /lib/twheel/*.ko, the project's programs from
# build/vm-bin/ and $VM_FILES in its PATH, with /proc, /sys, /dev, debugfs
# and a tmpfs /tmp mounted. CMD (any shell text, one or more lines) runs in
# the guest's /bin/sh (busybox) as a script, without -e, like `sh -c CMD`:
# the exit status is the last command's. The exit status is CMD's,
# except that any kernel splat (see SPLAT below), a kmemleak report after
# the final scan, an unexpected taint, a missing exit report (crash) or a
# time-out makes it non-zero whatever CMD returned.
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
shell=0
if [ "${1:-}" = "--shell" ]; then
	shell=1
	shift
fi
kernel=${1:?usage: run.sh [--shell] debug|stock|rt CMD}
cmd=${2:-true}
timeout_s=${VM_TIMEOUT:-900}

# What a clean run never prints. Lockdep, KASAN, UBSAN, ODEBUG, might_sleep,
# list debugging and WARN/BUG all print one of these.
SPLAT='BUG:|WARNING:|KASAN:|UBSAN:|ODEBUG:|Call Trace:|Oops|Kernel panic|general protection fault|soft lockup|hard LOCKUP|blocked for more than|rcu_.* detected stall|self-detected stall|unreferenced object|suspected memory leak|sleeping function called from invalid context|list_add corruption|list_del corruption|kernel BUG at|inconsistent lock state|possible recursive locking|circular locking dependency|Memory state around the buggy address|leaked [0-9]+ objects|Objects remaining'
# Taint bits a clean run may have: O (out-of-tree module), E (unsigned
# module), N (a KUnit test ran).
TAINT_OK=$(((1 << 12) | (1 << 13) | (1 << 18)))

vars=$("$top/tests/vm/build-module.sh" "$kernel") || exit 1
eval "$vars"

work=$(mktemp -d "${TMPDIR:-/tmp}/twheel-vm.XXXXXX")
trap 'rm -rf "$work"' EXIT
root=$work/root
mkdir -p "$root"/{bin,sbin,etc,proc,sys,dev,tmp,lib/twheel,usr/bin,usr/local/bin}

# busybox-static installs a static /bin/busybox.
cp /bin/busybox "$root/bin/busybox"
find "$MODDIR" -name '*.ko' -exec cp {} "$root/lib/twheel/" \;
if [ -d "$top/build/vm-bin" ]; then
	cp -a "$top/build/vm-bin/." "$root/usr/bin/"
fi
for f in ${VM_FILES:-}; do
	cp "$f" "$root/usr/local/bin/"
done
if [ -n "${VM_OVERLAY:-}" ]; then
	cp -a "$VM_OVERLAY/." "$root/"
fi
printf 'root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/:/bin/sh\n' > "$root/etc/passwd"
printf 'root:x:0:\nnogroup:x:65534:\n' > "$root/etc/group"
printf '%s\n' "$cmd" > "$root/cmd"
echo "$shell" > "$root/interactive"

cat > "$root/init" <<'INIT'
#!/bin/busybox sh
/bin/busybox --install -s /bin
export PATH=/usr/local/bin:/usr/bin:/bin:/sbin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev 2>/dev/null
mount -t tmpfs tmpfs /tmp
mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
leak=/sys/kernel/debug/kmemleak
if [ -w $leak ]; then
	# Forget what boot left behind, so only what the run leaks counts.
	echo scan > $leak
	echo clear > $leak
fi
echo "twheel-vm: $(uname -r), $(nproc) cpus"
cd /tmp
if [ "$(cat /interactive)" = 1 ]; then
	setsid cttyhack sh -l
	rc=$?
else
	sh /cmd
	rc=$?
fi
if [ -w $leak ]; then
	# kmemleak ignores objects younger than 5 s; scan after that.
	sleep 6
	echo scan > $leak
	echo scan > $leak
	echo "twheel-vm: kmemleak report begins"
	cat $leak
	echo "twheel-vm: kmemleak report ends"
fi
{
	[ -f /tmp/results ] && cat /tmp/results
	echo "twheel-vm: tainted=$(cat /proc/sys/kernel/tainted)"
	echo "twheel-vm: exit=$rc"
} > /dev/ttyS1
poweroff -f
INIT
chmod +x "$root/init"
(cd "$root" && find . | cpio -o -H newc --quiet | gzip -1) > "$work/initrd.gz"

log=${VM_LOG:-$work/console.log}
out=$work/result.txt
: > "$out"
# noirqdebug: QEMU's emulated UART, whose interrupt PREEMPT_RT handles in
# a thread, can look unhandled 100 000 times in a row while the guest
# writes its results to ttyS1 at full speed; the kernel then disables the
# line ("irq 3: nobody cared", with a stack dump) and the write hangs.
# rcupdate.rcu_cpu_stall_timeout=60: resuming from S3 (suspend.c), the
# debug kernel under TCG once spent 23 s between two steps of the resume
# with one CPU online, and RCU's 21 s default reported its grace-period
# kthread starved; a real stall still shows after 60 s.
append="console=ttyS0 panic=-1 oops=panic loglevel=7 noirqdebug rcupdate.rcu_cpu_stall_timeout=60 rdinit=/init${VM_APPEND:+ $VM_APPEND}"
# ACPI S3 (suspend to RAM) offered to the guest, which the RTC's alarm
# wakes (tests/integration/suspend.c): the default of QEMU's "pc" machine
# (i440fx, PIIX4 power management) today, stated so that it stays so.
# 4-level paging (la57=off), as on most machines: with QEMU's -cpu max the
# debug kernel otherwise boots with LA57, where an early-boot KASAN report
# unrelated to twheel (at an ff11... direct-map address) was seen once.
qemu=(qemu-system-x86_64 -cpu max,la57=off -smp "${VM_SMP:-2}"
	-m "${VM_MEM:-1024}"
	-kernel "$BZIMAGE" -initrd "$work/initrd.gz" -no-reboot
	-global PIIX4_PM.disable_s3=0
	-display none -vga none -nodefaults)
# shellcheck disable=SC2206	# split on purpose: several arguments
[ -n "${VM_QEMU_ARGS:-}" ] && qemu+=(${VM_QEMU_ARGS})
echo "vm: booting $kernel kernel $KVER${VM_QEMU_ARGS:+ ($VM_QEMU_ARGS)}" >&2
set +e
if [ "$shell" = 1 ]; then
	"${qemu[@]}" -serial mon:stdio -serial "file:$out" -append "$append"
	exit 0
fi
if [ "${VM_QUIET:-0}" = 1 ]; then
	timeout -k 5 "$timeout_s" "${qemu[@]}" -monitor none \
		-serial "file:$log" -serial "file:$out" -append "$append" \
		</dev/null >/dev/null 2>&1
	qrc=$?
else
	timeout -k 5 "$timeout_s" "${qemu[@]}" -monitor none \
		-serial stdio -serial "file:$out" -append "$append" \
		</dev/null 2>&1 | tee "$log"
	qrc=${PIPESTATUS[0]}
fi
set -e

fail=
if [ "$qrc" = 124 ] || [ "$qrc" = 137 ]; then
	fail="time-out after ${timeout_s}s"
fi
rc=$(sed -n 's/^twheel-vm: exit=\([0-9]*\).*/\1/p' "$out" | tail -n1)
taint=$(sed -n 's/^twheel-vm: tainted=\([0-9]*\).*/\1/p' "$out" | tail -n1)
if [ -z "$rc" ]; then
	fail=${fail:-"the guest never reported an exit status (crash?)"}
	rc=1
fi
splats=$(grep -aE "$SPLAT" "$log" | grep -av '^twheel-vm:' || true)
if [ -n "$splats" ]; then
	fail=${fail:-"kernel splat in the console"}
	echo "vm: splat lines:" >&2
	printf '%s\n' "$splats" | head -n 40 >&2
fi
if [ -n "$taint" ] && [ $((taint & ~TAINT_OK)) != 0 ]; then
	fail=${fail:-"unexpected kernel taint $taint"}
fi
if [ -n "${VM_RESULTS:-}" ]; then
	grep -av '^twheel-vm: ' "$out" > "$VM_RESULTS" || true
fi
if [ -n "$fail" ]; then
	echo "vm: FAIL: $fail (command exit status $rc)" >&2
	[ "$rc" != 0 ] && exit "$rc"
	exit 1
fi
echo "vm: command exit status $rc" >&2
exit "$rc"
