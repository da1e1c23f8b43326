#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Build the bench's idle-time module, twheel-idlestat.ko, for one test
# kernel, in build/idlestat-<kernel>/ (the source tree is never written).
#
#   tests/bench/idlestat/build.sh [stock|debug|rt]
#
# Prints IDLESTAT_KO=<path of the .ko> on stdout; the build log goes to
# stderr.
set -eu
top=$(cd "$(dirname "$0")/../../.." && pwd)
kernel=${1:-stock}
eval "$("$top/tests/vm/kernel.sh" "$kernel")"

out=$top/build/idlestat-$kernel
mkdir -p "$out"
exec 9> "$out.lock"
flock 9
for f in Kbuild twheel_idlestat.c; do
	cmp -s "$top/tests/bench/idlestat/$f" "$out/$f" ||
		cp "$top/tests/bench/idlestat/$f" "$out/$f"
done
make -C "$KDIR" M="$out" -j"$(nproc)" modules >&2
echo "IDLESTAT_KO=$out/twheel-idlestat.ko"
