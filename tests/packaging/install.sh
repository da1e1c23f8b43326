#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# tests/packaging/install.sh - `make install` and `make uninstall`
# (kmod/install.mk) into a staging directory, for PREFIX=/usr and
# PREFIX=/usr/local, with the module built for Debian's stock kernel
# (tests/vm/kernel.sh stock); then depmod into a staged module tree, and
# the DKMS source tree (`make dkms-install DESTDIR=`).
#
#   tests/packaging/install.sh
#
# Checks: the exact list of installed files (the module for the stock
# kernel's release, never twheel_kunit.ko), their modes, the module's
# vermagic, that the installed pkg-config file and header and library
# build and link a program, that uninstall leaves nothing but empty
# directories. Prints TAP lines "ok packaging/..." / "not ok
# packaging/...", then "RESULT <pass> <fail> <skip>". Runs on the host (no
# VM); needs the stock kernel's headers, pkg-config, a C compiler, depmod.
# The case functions run through check() (tap.sh): SC2317.
# shellcheck disable=SC2317
set -eu

top=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/twheel-install.XXXXXX")
trap 'rm -rf "$work"' EXIT
TAP_PREFIX=packaging
# shellcheck source=tests/tap.sh
. "$top/tests/tap.sh"

eval "$("$top/tests/vm/kernel.sh" stock | grep -E '^(KDIR|KVER)=')"
version=$(sed -n 's/^#define TWHEEL_VERSION[[:space:]]*"\(.*\)"/\1/p' \
	"$top/uapi/linux/twheel.h")
abi=$(sed -n 's/^#define TWHEEL_ABI_VERSION[[:space:]]*\([0-9]*\).*/\1/p' \
	"$top/uapi/linux/twheel.h")
echo "# stock kernel $KVER ($KDIR), twheel $version"

tw_make() {
	make -C "$top" --no-print-directory KDIR="$KDIR" "$@"
}

# The files `make install PREFIX=$1` must install, relative to DESTDIR.
expected_files() {
	local p=${1#/}
	cat <<-EOF
	lib/modules/$KVER/updates/twheel.ko
	lib/udev/rules.d/60-twheel.rules
	$p/bin/twheelctl
	$p/include/libtwheel.h
	$p/include/linux/twheel.h
	$p/lib/libtwheel.a
	$p/lib/libtwheel.so
	$p/lib/libtwheel.so.0
	$p/lib/pkgconfig/libtwheel.pc
	$p/share/doc/twheel/examples/modules-load.d/twheel.conf
	$p/share/man/man1/twheelctl.1
	$p/share/man/man3/libtwheel.3
	$p/share/man/man4/twheel.4
	EOF
}

# Expected mode of each installed file (octal), or "link".
expected_mode() {
	case $1 in
	*/libtwheel.so) echo link ;;
	*/libtwheel.so.0 | */bin/twheelctl) echo 755 ;;
	*) echo 644 ;;
	esac
}

installed_files() {
	(cd "$1" && find . \( -type f -o -type l \) | sed 's|^\./||' | LC_ALL=C sort)
}

check_files() {
	local d=$1 prefix=$2 diff
	if diff=$(diff <(expected_files "$prefix" | LC_ALL=C sort) \
			<(installed_files "$d")); then
		# Redundant with the exact list, but the point of the list.
		if [ -n "$(find "$d" -name 'twheel_kunit*')" ]; then
			echo "twheel_kunit.ko was installed"
			return 1
		fi
		return 0
	fi
	echo "expected (<) vs installed (>):"
	printf '%s\n' "$diff"
	return 1
}

check_modes() {
	local d=$1 f want got bad=0
	while read -r f; do
		want=$(expected_mode "$f")
		got=$(stat -c %a "$d/$f")
		[ ! -L "$d/$f" ] || got="link"
		if [ "$got" != "$want" ]; then
			echo "$f: mode $got, expected $want"
			bad=1
		fi
	done < <(installed_files "$d")
	[ "$(readlink "$d/$2/lib/libtwheel.so")" = libtwheel.so.0 ] ||
		{ echo "libtwheel.so does not point to libtwheel.so.0"; bad=1; }
	return "$bad"
}

check_module() {
	local ko=$1/lib/modules/$KVER/updates/twheel.ko vm
	vm=$(modinfo -F vermagic "$ko")
	echo "vermagic: $vm"
	[ "$(modinfo -F name "$ko")" = twheel ] && [ "${vm%% *}" = "$KVER" ]
}

# A program built with pkg-config's flags against the installed header
# and library only (sysroot: the staging directory), run against the
# installed shared library.
check_pkgconfig() {
	local d=$1 p=$2 flags out w
	export PKG_CONFIG_SYSROOT_DIR=$d PKG_CONFIG_LIBDIR=$d$p/lib/pkgconfig
	export PKG_CONFIG_ALLOW_SYSTEM_CFLAGS=1 PKG_CONFIG_ALLOW_SYSTEM_LIBS=1
	[ "$(pkg-config --modversion libtwheel)" = "$version" ] ||
		{ echo "pkg-config --modversion: not $version"; return 1; }
	flags=$(pkg-config --cflags --libs libtwheel)
	echo "pkg-config: $flags"
	for w in "-I$d$p/include" "-L$d$p/lib" -ltwheel; do
		case " $flags " in
		*" $w "*) ;;
		*) echo "pkg-config: no $w"; return 1 ;;
		esac
	done
	cat > "$work/prog.c" <<-'EOF'
	/* Uses the installed <libtwheel.h> and <linux/twheel.h> only. */
	#include <stdio.h>
	#include <time.h>
	#include <linux/twheel.h>
	#include <libtwheel.h>

	int main(void)
	{
		int64_t now = twheel_now(CLOCK_MONOTONIC);

		printf("version=%s abi=%d\n", TWHEEL_VERSION, TWHEEL_ABI_VERSION);
		return now > 0 ? 0 : 1;
	}
	EOF
	# -nostdinc would also drop libc's headers; instead make sure the
	# source tree's headers are not on the path (it is not: cwd is $work).
	# shellcheck disable=SC2086 # $flags: pkg-config's words
	(cd "$work" && cc -std=gnu11 -Wall -Werror -o prog prog.c $flags)
	readelf -d "$work/prog" | grep -q 'NEEDED.*\[libtwheel\.so\.0\]' ||
		{ echo "prog does not need libtwheel.so.0"; return 1; }
	out=$(LD_LIBRARY_PATH=$d$p/lib "$work/prog")
	echo "prog: $out"
	[ "$out" = "version=$version abi=$abi" ] || return 1
	# The same program linked statically against the installed archive.
	# shellcheck disable=SC2046
	(cd "$work" && cc -std=gnu11 -Wall -Werror -o prog-static prog.c \
		$(pkg-config --cflags libtwheel) "$d$p/lib/libtwheel.a")
	"$work/prog-static" > /dev/null
}

# Nothing left but (empty) directories.
check_empty() {
	local left
	left=$(find "$1" ! -type d)
	[ -z "$left" ] || { echo "left behind:"; printf '%s\n' "$left"; return 1; }
}

for prefix in /usr /usr/local; do
	tag=${prefix//\//-}
	tag=prefix${tag}
	d=$work/dest$tag
	mkdir -p "$d"
	if ! tw_make install DESTDIR="$d" PREFIX="$prefix" > "$work/install$tag.log" 2>&1; then
		not_ok "install-$tag" "make install DESTDIR=$d PREFIX=$prefix failed:"
		tail -n 30 "$work/install$tag.log" | sed 's/^/# /'
		continue
	fi
	ok "install-$tag"
	check "files-$tag" check_files "$d" "$prefix"
	check "modes-$tag" check_modes "$d" "$prefix"
	check "module-vermagic-$tag" check_module "$d"
	check "pkgconfig-build-$tag" check_pkgconfig "$d" "$prefix"
	check "uninstall-$tag" tw_make uninstall DESTDIR="$d" PREFIX="$prefix"
	check "uninstall-leaves-nothing-$tag" check_empty "$d"
done

# depmod into a staged root file system that has the kernel's module tree
# (its modules.builtin and modules.order, here empty): install indexes the
# module, uninstall takes it out of the index again.
depmod_case() {
	local d=$work/rootfs m
	m=$d/lib/modules/$KVER
	mkdir -p "$m"
	: > "$m/modules.builtin"
	: > "$m/modules.order"
	tw_make modules_install DESTDIR="$d"
	grep -q '^updates/twheel\.ko:' "$m/modules.dep" ||
		{ echo "modules.dep lacks updates/twheel.ko"; return 1; }
	# The aliases that autoload it: kmod's static-nodes creates
	# /dev/twheel (misc major 10, minor 250) from this line at boot.
	grep -qx 'twheel twheel c10:250' "$m/modules.devname" ||
		{ echo "modules.devname lacks 'twheel twheel c10:250'"; return 1; }
	grep -qx 'alias char-major-10-250 twheel' "$m/modules.alias" ||
		{ echo "modules.alias lacks char-major-10-250"; return 1; }
	tw_make uninstall DESTDIR="$d"
	[ ! -e "$m/updates/twheel.ko" ] || { echo "twheel.ko left"; return 1; }
	! grep -q twheel "$m/modules.dep" ||
		{ echo "modules.dep still names twheel"; return 1; }
}
if PATH=$PATH:/sbin:/usr/sbin command -v depmod > /dev/null; then
	check depmod-staged-rootfs depmod_case
else
	echo "ok packaging/depmod-staged-rootfs # SKIP no depmod"
	skip=$((skip + 1))
fi

# The DKMS source tree: only what the module build needs, dkms.conf's
# version TWHEEL_VERSION; dkms-uninstall removes it all.
dkms_tree_case() {
	local d=$work/dkms t want
	t=$d/usr/src/twheel-$version
	tw_make dkms-install DESTDIR="$d"
	want=$( (cd "$top" && { echo dkms.conf; echo uapi/linux/twheel.h;
		echo kmod/Kbuild; for f in kmod/*.[ch]; do
			case $f in *.mod.c) ;; *) echo "$f" ;; esac
		done; }) | LC_ALL=C sort)
	diff <(printf '%s\n' "$want") <(installed_files "$t") ||
		{ echo "DKMS tree: expected (<) vs installed (>)"; return 1; }
	grep -qx "PACKAGE_VERSION=\"$version\"" "$t/dkms.conf" ||
		{ echo "dkms.conf: PACKAGE_VERSION is not \"$version\""; return 1; }
	grep -qx 'AUTOINSTALL="yes"' "$t/dkms.conf"
	tw_make dkms-uninstall DESTDIR="$d"
	check_empty "$d" && [ ! -e "$t" ]
}
check dkms-tree dkms_tree_case

finish
