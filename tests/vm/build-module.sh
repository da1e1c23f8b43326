#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Build twheel.ko (and twheel_kunit.ko when the kernel has KUnit) for one
# test kernel, out of the source tree: the sources are mirrored into
# build/mod-<kernel>/ so builds for different kernels never share objects.
#
#   tests/vm/build-module.sh debug|stock|rt [extra kbuild args, e.g. W=1 C=2]
#
# Prints the kernel's assignments (see kernel.sh) plus MODDIR=... on stdout.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
kernel=$1
shift
vars=$("$top/tests/vm/kernel.sh" "$kernel")
eval "$vars"

mod=$top/build/mod-$kernel
mkdir -p "$mod"
# One build per kernel at a time: concurrent VM runs share build/mod-*.
exec 9> "$mod.lock"
flock 9
# Mirror the module sources: a file is copied only when its content
# differs, and then gets the time of the copy, so that make rebuilds what
# changed (a source's own time may be older than the object built from
# its earlier content) and nothing else.
# Sources only: not the *.mod.c an in-tree build (make module) generates
# for its own kernel, which another kernel's build would take as its own.
(cd "$top" && find Kbuild kmod uapi tests/kunit tests/wheel -type f \
	\( -name Kbuild -o -name '*.c' -o -name '*.h' \) \
	! -name '*.mod.c' 2>/dev/null) |
while read -r f; do
	cmp -s "$top/$f" "$mod/$f" && continue
	mkdir -p "$mod/$(dirname "$f")"
	cp "$top/$f" "$mod/$f"
done
# Drop mirrored files whose source is gone.
(cd "$mod" && find . -type f \( -name '*.c' -o -name '*.h' -o -name Kbuild \) \
	! -name '*.mod.c') |
while read -r f; do
	[ -e "$top/$f" ] || rm -f "$mod/$f"
done

make -C "$KDIR" M="$mod" -j"$(nproc)" "$@" modules >&2
echo "$vars"
echo "MODDIR=$mod"
