#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Build the in-kernel benchmark module, twheel-kbench.ko, for one test
# kernel. The sources it needs (tests/bench/kbench/, the wheel core from
# kmod/ and the uapi header) are mirrored into build/kbench-<kernel>/ so
# the build never writes into the source tree and never shares objects
# with build/mod-<kernel>/.
#
#   tests/bench/kbench/build.sh [stock|debug] [extra kbuild args]
#
# Prints the kernel's assignments (see tests/vm/kernel.sh) plus
# KBENCH_KO=<path of the .ko> on stdout; the build log goes to stderr.
set -eu
top=$(cd "$(dirname "$0")/../../.." && pwd)
kernel=${1:-stock}
[ $# -gt 0 ] && shift
vars=$("$top/tests/vm/kernel.sh" "$kernel")
eval "$vars"

out=$top/build/kbench-$kernel
mkdir -p "$out"
exec 9> "$out.lock"
flock 9
# Copy only what changed (with a fresh timestamp, so make rebuilds it):
# unchanged files keep theirs and make stays incremental.
for f in tests/bench/kbench/Kbuild tests/bench/kbench/twheel_kbench.c \
	 kmod/twheel_wheel.c kmod/twheel_wheel.h kmod/twheel_compat.h \
	 uapi/linux/twheel.h; do
	mkdir -p "$out/$(dirname "$f")"
	cmp -s "$top/$f" "$out/$f" || cp "$top/$f" "$out/$f"
done

make -C "$KDIR" M="$out/tests/bench/kbench" -j"$(nproc)" "$@" modules >&2
echo "$vars"
echo "KBENCH_KO=$out/tests/bench/kbench/twheel-kbench.ko"
