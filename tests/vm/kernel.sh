#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Resolve (and build or fetch when missing) a test kernel for twheel.
#
#   tests/vm/kernel.sh debug   prints KDIR and BZIMAGE for the debug kernel
#   tests/vm/kernel.sh stock   prints KDIR and BZIMAGE for Debian's kernel
#   tests/vm/kernel.sh rt      the same for Debian's PREEMPT_RT kernel
#
# Output is shell assignments (KDIR=..., BZIMAGE=..., KSRC=..., KVER=...),
# one per line, on stdout; progress goes to stderr.
#
# The debug kernel is built from Debian's linux-source-6.12 tarball, out of
# tree, from tinyconfig plus tests/vm/debug.config. It is cached under
# $TWHEEL_CACHE keyed by the source package version and the fragment's
# hash, so a change of either rebuilds it by itself.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
cache=${TWHEEL_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/twheel}
jobs=${JOBS:-$(($(nproc) + 1))}
log() { echo "kernel.sh: $*" >&2; }
die() { log "error: $*"; exit 1; }

pkgver() {
	dpkg-query -W -f='${Status} ${Version}\n' "$1" 2>/dev/null |
		awk '$3 == "installed" { print $4 }'
}

source_tree() {
	mkdir -p "$cache"
	srcver=$(pkgver linux-source-6.12)
	[ -n "$srcver" ] || die "linux-source-6.12 is not installed (run: make deps)"
	src=$cache/src/linux-source-$srcver
	if [ ! -f "$src/.twheel-extracted" ]; then
		log "extracting linux-source $srcver"
		rm -rf "$src" "$src.tmp"
		mkdir -p "$src.tmp"
		tar -xf /usr/src/linux-source-6.12.tar.xz -C "$src.tmp" \
			--strip-components=1
		touch "$src.tmp/.twheel-extracted"
		mv "$src.tmp" "$src"
	fi
}

debug_kernel() {
	fraghash=$(sha256sum "$here/debug.config" | cut -c1-12)

	source_tree

	out=$cache/debug-$srcver-$fraghash
	# One builder at a time; the others wait and then find it built.
	exec 9>"$cache/debug.lock"
	flock 9
	if [ ! -f "$out/.twheel-built" ]; then
		log "building debug kernel $srcver ($fraghash) in $out"
		rm -rf "$out"
		mkdir -p "$out"
		log "configuring: tinyconfig + debug.config"
		make -s -C "$src" O="$out" tinyconfig >&2
		"$src/scripts/kconfig/merge_config.sh" -m -O "$out" \
			"$out/.config" "$here/debug.config" >&2
		make -s -C "$src" O="$out" olddefconfig >&2
		# Fail if any line of the fragment did not survive olddefconfig.
		grep -E '^(CONFIG_|# CONFIG_)' "$here/debug.config" | while read -r l; do
			grep -qxF "$l" "$out/.config" || { log "config lost: $l"; echo x; }
		done > "$out/.missing"
		[ ! -s "$out/.missing" ] || die "debug.config options were dropped (see above)"
		log "compiling bzImage and modules (-j$jobs; about 4 minutes on 2 cores)"
		make -s -C "$src" O="$out" -j"$jobs" bzImage modules >&2
		log "debug kernel built"
		touch "$out/.twheel-built"
		# Older builds of other keys are useless now; keep the cache small.
		for old in "$cache"/debug-*; do
			[ "$old" = "$out" ] || rm -rf "$old"
		done
	fi
	echo "KDIR=$out"
	echo "BZIMAGE=$out/arch/x86/boot/bzImage"
	echo "KSRC=$src"
	echo "KVER=$(cat "$out/include/config/kernel.release")"
}

# debian_kernel NAME META: a kernel Debian ships, e.g. stock from
# linux-image-amd64 or rt from linux-image-rt-amd64. Its ABI is resolved
# from the meta package at run time (never hard-coded); its headers are
# installed on demand; its vmlinuz is fetched with apt-get download into
# $cache/NAME-<kver>-<version>/.
debian_kernel() {
	name=$1
	meta=$2
	img=$(apt-cache depends "$meta" 2>/dev/null |
		awk '/Depends: linux-image-[0-9]/ { print $2; exit }')
	[ -n "$img" ] || die "cannot resolve $meta (run: make deps)"
	kver=${img#linux-image-}
	mkdir -p "$cache"
	# One fetcher per kernel at a time; the others wait and find it.
	exec 9>"$cache/$name.lock"
	flock 9
	kdir=/usr/src/linux-headers-$kver
	if [ ! -f "$kdir/Makefile" ]; then
		# The meta package moved on: fetch the matching headers.
		log "installing linux-headers-$kver"
		DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
			"linux-headers-$kver" >&2 ||
			die "linux-headers-$kver missing (run: make deps)"
	fi
	ver=$(apt-cache policy "$img" | awk '/Candidate:/ { print $2 }')
	dir=$cache/$name-$kver-$ver
	if [ ! -f "$dir/vmlinuz" ]; then
		log "fetching $img $ver"
		rm -rf "$dir" && mkdir -p "$dir/pkg"
		(cd "$dir" && apt-get download -q -o APT::Sandbox::User=root "$img" >&2)
		dpkg-deb -x "$dir"/*.deb "$dir/pkg"
		cp "$dir/pkg/boot/vmlinuz-$kver" "$dir/vmlinuz"
		rm -rf "$dir/pkg" "$dir"/*.deb
	fi
	echo "KDIR=$kdir"
	echo "BZIMAGE=$dir/vmlinuz"
	echo "KSRC="
	echo "KVER=$kver"
}

case "${1:-}" in
source) source_tree && echo "KSRC=$src" ;;
debug) debug_kernel ;;
stock) debian_kernel stock linux-image-amd64 ;;
rt) debian_kernel rt linux-image-rt-amd64 ;;
*) die "usage: $0 source|debug|stock|rt" ;;
esac
