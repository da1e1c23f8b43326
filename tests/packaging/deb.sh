#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# tests/packaging/deb.sh - the Debian packages (`make deb`,
# userspace/debian/): build them, lintian, their file lists, then the
# module built by DKMS from twheel-dkms's own source tree, loaded in the
# stock-kernel VM.
#
#   tests/packaging/deb.sh
#
# Nothing is installed on the host (no dpkg -i): twheel-dkms is unpacked
# with dpkg-deb -x into a temporary directory and DKMS builds from there
# with its own --dkmstree and --sourcetree (and a temporary signing key),
# for the stock kernel (-k, --kernelsourcedir: tests/vm/kernel.sh stock).
# That twheel.ko is passed to the VM (VM_FILES), insmod'ed from
# /usr/local/bin/twheel.ko; the guest checks /dev/twheel and runs
# `twheelctl info` on it, then rmmod. Prints TAP lines "ok packaging/..."
# / "not ok packaging/...", then "RESULT <pass> <fail> <skip>".
# Needs: dpkg-dev, debhelper, dh-dkms, dkms, lintian, the stock kernel's
# headers, QEMU (tests/deps.sh).
#
# The case functions run through check() (SC2317), and the check
# expressions passed to eval are expanded there, on purpose (SC2016).
# shellcheck disable=SC2317,SC2016
set -eu

top=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/twheel-deb.XXXXXX")
trap 'rm -rf "$work"' EXIT
TAP_PREFIX=packaging
# shellcheck source=tests/tap.sh
. "$top/tests/tap.sh"

eval "$("$top/tests/vm/kernel.sh" stock | grep -E '^(KDIR|KVER)=')"
version=$(sed -n 's/^#define TWHEEL_VERSION[[:space:]]*"\(.*\)"/\1/p' \
	"$top/uapi/linux/twheel.h")
abi=$(sed -n 's/^#define TWHEEL_ABI_VERSION[[:space:]]*\([0-9]*\).*/\1/p' \
	"$top/uapi/linux/twheel.h")
ma=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
arch=$(dpkg-architecture -qDEB_HOST_ARCH)
debs=$top/build/deb
echo "# twheel $version, stock kernel $KVER, $arch"

if ! make -C "$top" --no-print-directory deb > "$work/deb.log" 2>&1; then
	not_ok deb-build "make deb failed:"
	tail -n 40 "$work/deb.log" | sed 's/^/# /'
	finish
fi
ok deb-build

deb_of() { echo "$debs/$1_$version-1_$2.deb"; }

# Every package the build must produce, at TWHEEL_VERSION.
check_built() {
	local p a
	for p in twheel-dkms:all libtwheel0:$arch libtwheel-dev:$arch \
			twheel-tools:$arch python3-twheel:all; do
		a=${p#*:}
		[ -f "$(deb_of "${p%%:*}" "$a")" ] ||
			{ echo "missing $(deb_of "${p%%:*}" "$a")"; return 1; }
	done
	[ "$(dpkg-deb -f "$(deb_of twheel-dkms all)" Version)" = "$version-1" ]
}
check deb-versions check_built

# lintian on the .changes (all the .debs): error tags not overridden fail
# one case, warnings another; overrides and their reasons are in
# userspace/debian/*.lintian-overrides.
lintian "$debs/twheel_$version-1_$arch.changes" > "$work/lintian.txt" 2>&1 || true
sed 's/^/# lintian: /' "$work/lintian.txt"
check lintian-no-errors eval '! grep -E "^E: " "$work/lintian.txt"'
check lintian-no-warnings eval '! grep -E "^W: " "$work/lintian.txt"'

# A package's regular files and links (not directories), as dpkg-deb -c
# lists them, without the leading "./" and a link's target.
deb_files() {
	dpkg-deb -c "$1" | awk '$1 !~ /^d/ { print $6 }' | sed 's|^\./||' |
		LC_ALL=C sort
}
# check_list PACKAGE ARCH EXPECTED...: the package holds exactly these.
check_list() {
	local deb diff
	deb=$(deb_of "$1" "$2")
	shift 2
	diff=$(diff <(printf '%s\n' "$@" | LC_ALL=C sort) <(deb_files "$deb")) ||
		{ echo "$deb: expected (<) vs packaged (>):"; printf '%s\n' "$diff"; return 1; }
}
# What every package has: its changelog, copyright, lintian overrides.
doc() {
	printf '%s\n' "usr/share/doc/$1/changelog.Debian.gz" \
		"usr/share/doc/$1/copyright" "usr/share/lintian/overrides/$1"
}

mapfile -t kmod_src < <(cd "$top" && for f in kmod/Kbuild kmod/*.[ch]; do
	case $f in *.mod.c) ;; *) echo "usr/src/twheel-$version/$f" ;; esac
done)
# shellcheck disable=SC2046 # doc's lines are single words
check deb-files-twheel-dkms check_list twheel-dkms all \
	"usr/src/twheel-$version/dkms.conf" \
	"usr/src/twheel-$version/uapi/linux/twheel.h" "${kmod_src[@]}" \
	lib/udev/rules.d/60-twheel.rules usr/share/man/man4/twheel.4.gz \
	usr/share/doc/twheel-dkms/README.md.gz \
	usr/share/doc/twheel-dkms/guide.md.gz \
	usr/share/doc/twheel-dkms/limits.md.gz \
	usr/share/doc/twheel-dkms/production.md.gz \
	usr/share/doc/twheel-dkms/examples/twheel.conf \
	$(doc twheel-dkms)
# shellcheck disable=SC2046
check deb-files-libtwheel0 check_list libtwheel0 "$arch" \
	"usr/lib/$ma/libtwheel.so.0" $(doc libtwheel0)
# shellcheck disable=SC2046
check deb-files-libtwheel-dev check_list libtwheel-dev "$arch" \
	usr/include/libtwheel.h usr/include/linux/twheel.h \
	"usr/lib/$ma/libtwheel.a" "usr/lib/$ma/libtwheel.so" \
	"usr/lib/$ma/pkgconfig/libtwheel.pc" \
	usr/share/man/man3/libtwheel.3.gz \
	usr/share/doc/libtwheel-dev/examples/delayq.c \
	usr/share/doc/libtwheel-dev/examples/echo-server.c \
	usr/share/doc/libtwheel-dev/examples/uring-timers.c \
	usr/share/doc/libtwheel-dev/examples/uv-timers.c \
	$(doc libtwheel-dev)
# shellcheck disable=SC2046
check deb-files-twheel-tools check_list twheel-tools "$arch" \
	usr/bin/twheelctl usr/share/man/man1/twheelctl.1.gz $(doc twheel-tools)

mapfile -t py_pkg < <(cd "$top/userspace/python" && for f in twheel/*.py; do
	echo "usr/lib/python3/dist-packages/$f"
done)
# shellcheck disable=SC2046
check deb-files-python3-twheel check_list python3-twheel all \
	"${py_pkg[@]}" \
	usr/share/doc/python3-twheel/README.md.gz \
	usr/share/doc/python3-twheel/examples/idle_server.py \
	$(doc python3-twheel)

# python3-twheel: the tree's package, importable from the unpacked package
# alone (from /, -I: not from the tree), of the header's version, and
# depending on python3.
check_python() {
	local r=$work/py-root f
	dpkg-deb -x "$(deb_of python3-twheel all)" "$r"
	for f in "$top"/userspace/python/twheel/*.py; do
		cmp "$f" "$r/usr/lib/python3/dist-packages/twheel/${f##*/}" ||
			return 1
	done
	(cd / && PYTHONPATH="$r/usr/lib/python3/dist-packages" python3 -c "
import twheel
assert twheel.__file__.startswith('$r'), twheel.__file__
assert twheel.VERSION == '$version', twheel.VERSION
") || return 1
	dpkg-deb -f "$(deb_of python3-twheel all)" Depends | grep -q '\<python3\>' ||
		{ echo "python3-twheel does not depend on python3"; return 1; }
}
check deb-python3 check_python

# libtwheel0's symbols control file is userspace/debian/libtwheel0.symbols
# (the build's dpkg-gensymbols -c4 already failed on any difference with
# the library), every symbol at version node LIBTWHEEL_0.
check_symbols() {
	local got
	got=$(dpkg-deb -I "$(deb_of libtwheel0 "$arch")" symbols) ||
		{ echo "libtwheel0 has no symbols control file"; return 1; }
	diff <(grep -v '^#' "$top/userspace/debian/libtwheel0.symbols") \
		<(printf '%s\n' "$got") ||
		{ echo "userspace/debian/libtwheel0.symbols (<) vs packaged (>)"; return 1; }
	[ "$(printf '%s\n' "$got" | grep -c '^ twheel_[a-z_]*@LIBTWHEEL_0 ')" -gt 10 ]
}
check deb-symbols check_symbols

# libtwheel-dev's examples: the tree's sources, and they build against the
# packages' own header and library (unpacked together; uv-timers.c and
# uring-timers.c only where libuv's and liburing's headers are installed),
# the shared library found by its versioned symbols.
check_examples() {
	local r=$work/dev-root f name libs
	dpkg-deb -x "$(deb_of libtwheel0 "$arch")" "$r"
	dpkg-deb -x "$(deb_of libtwheel-dev "$arch")" "$r"
	for f in delayq.c echo-server.c uring-timers.c uv-timers.c; do
		cmp "$top/userspace/examples/$f" \
			"$r/usr/share/doc/libtwheel-dev/examples/$f" || return 1
	done
	for f in "$r"/usr/share/doc/libtwheel-dev/examples/*.c; do
		name=$(basename "$f" .c)
		if [ "$name" = uv-timers ] && [ ! -f /usr/include/uv.h ]; then
			echo "$name: no libuv header, not built"
			continue
		fi
		if [ "$name" = uring-timers ] &&
		   [ ! -f /usr/include/liburing.h ]; then
			echo "$name: no liburing header, not built"
			continue
		fi
		libs=(-ltwheel)
		[ "$name" != uv-timers ] || libs+=(-luv)
		[ "$name" != uring-timers ] || libs+=(-luring)
		# Their #include "libtwheel.h" finds the package's header.
		(cd "$work" && cc -std=gnu11 -Wall -Wextra -Werror -pthread \
			-I"$r/usr/include" -o "ex-$name" "$f" \
			-L"$r/usr/lib/$ma" "${libs[@]}") || return 1
		readelf -d "$work/ex-$name" |
			grep -q 'NEEDED.*\[libtwheel\.so\.0\]' ||
			{ echo "ex-$name does not need libtwheel.so.0"; return 1; }
		readelf -V "$work/ex-$name" | grep -q 'Name: LIBTWHEEL_0' ||
			{ echo "ex-$name does not need version LIBTWHEEL_0"; return 1; }
	done
}
check deb-examples-build check_examples

# The packages' relations and the DKMS maintainer scripts. twheel-dkms
# recommends the kernel headers' meta package (DKMS builds nothing for a
# kernel without its headers); the device's man page, twheel(4), comes
# with the module (or the tools), not only with libtwheel-dev.
check_control() {
	local dk=$work/control-dkms p
	dpkg-deb -f "$(deb_of twheel-dkms all)" Depends | grep -q '\<dkms\>' ||
		{ echo "twheel-dkms does not depend on dkms"; return 1; }
	[ "$(dpkg-deb -f "$(deb_of twheel-dkms all)" Recommends)" = \
		'linux-headers-amd64 | linux-headers-generic' ] ||
		{ echo "twheel-dkms does not recommend linux-headers-amd64 | linux-headers-generic"; return 1; }
	for p in "$(deb_of twheel-dkms all)" "$(deb_of twheel-tools "$arch")" ''; do
		[ -n "$p" ] || { echo "twheel.4 is in neither twheel-dkms nor twheel-tools"; return 1; }
		deb_files "$p" | grep -qx 'usr/share/man/man4/twheel\.4\.gz' && break
	done
	dpkg-deb -f "$(deb_of libtwheel-dev "$arch")" Depends |
		grep -qF "libtwheel0 (= $version-1)" ||
		{ echo "libtwheel-dev: no libtwheel0 (= $version-1)"; return 1; }
	dpkg-deb -I "$(deb_of libtwheel0 "$arch")" shlibs |
		grep -qx "libtwheel 0 libtwheel0 (>= $version)" ||
		{ echo "libtwheel0: shlibs"; return 1; }
	dpkg-deb -e "$(deb_of twheel-dkms all)" "$dk"
	grep -q "DKMS_VERSION=$version\$" "$dk/postinst" &&
		grep -q 'common.postinst' "$dk/postinst" &&
		grep -q "dkms remove" "$dk/prerm"
}
check deb-control check_control

# DKMS, from the package's own files, away from the system's DKMS tree.
root=$work/root
dkms_tree=$work/dkms
ko=$dkms_tree/twheel/$version/$KVER/$(uname -m)/module/twheel.ko
system_before=$(ls -A /var/lib/dkms 2>/dev/null || true)
dkms_build() {
	dpkg-deb -x "$(deb_of twheel-dkms all)" "$root"
	mkdir -p "$dkms_tree"
	grep -qx "PACKAGE_VERSION=\"$version\"" \
		"$root/usr/src/twheel-$version/dkms.conf" ||
		{ echo "dkms.conf's PACKAGE_VERSION is not $version"; return 1; }
	# dkms signs what it builds; its key would otherwise go to
	# /var/lib/dkms/mok.key (the guest accepts an unknown key: taint E).
	mok_signing_key=$work/mok.key mok_certificate=$work/mok.pub \
	dkms build -m twheel -v "$version" -k "$KVER" \
		--kernelsourcedir "$KDIR" \
		--dkmstree "$dkms_tree" --sourcetree "$root/usr/src" ||
		{ cat "$dkms_tree"/twheel/"$version"/build/make.log 2>/dev/null; return 1; }
	[ -f "$ko" ] || { echo "no $ko"; return 1; }
	modinfo -F vermagic "$ko"
	[ "$(modinfo -F vermagic "$ko" | cut -d' ' -f1)" = "$KVER" ]
}
if ! command -v dkms > /dev/null; then
	echo "ok packaging/dkms-build # SKIP no dkms"
	skip=$((skip + 1))
	finish
fi
check dkms-build dkms_build
system_untouched() {
	[ "$(ls -A /var/lib/dkms 2>/dev/null || true)" = "$system_before" ]
}
check dkms-system-untouched system_untouched
[ -f "$ko" ] || finish

# In the stock VM: that module, and the static twheelctl built from the
# tree (the packaged one needs libc, which the guest does not have).
if ! make -C "$top" --no-print-directory build/vm-bin/twheelctl > "$work/ctl.log" 2>&1; then
	not_ok vm-dkms-module "building build/vm-bin/twheelctl failed:"
	tail -n 20 "$work/ctl.log" | sed 's/^/# /'
	finish
fi
cp "$ko" "$work/twheel.ko"
guest=$(cat <<EOF
r=/tmp/results
t() { n=\$1; shift; if "\$@"; then echo "ok packaging/\$n" >> \$r; else echo "not ok packaging/\$n" >> \$r; fi; }
t vm-insmod insmod /usr/local/bin/twheel.ko
t vm-dev-twheel test -c /dev/twheel
ls -l /dev/twheel
t vm-dev-mode test "\$(ls -l /dev/twheel | cut -c1-10)" = crw-rw-rw-
twheelctl info > /tmp/info || true
cat /tmp/info
t vm-twheelctl-info grep -qx "version=$abi" /tmp/info
t vm-rmmod rmmod twheel
t vm-dev-gone test ! -e /dev/twheel
true
EOF
)
if VM_FILES="$work/twheel.ko" VM_RESULTS="$work/vm-results" VM_QUIET=1 \
		VM_LOG="$work/vm-console.log" VM_TIMEOUT=600 \
		"$top/tests/vm/run.sh" stock "$guest" > "$work/vm.log" 2>&1; then
	ok vm-clean-run
else
	not_ok vm-clean-run "tests/vm/run.sh failed (splat, taint, crash?):"
	tail -n 20 "$work/vm.log" | sed 's/^/# /'
	tail -n 40 "$work/vm-console.log" 2>/dev/null | sed 's/^/# console: /'
fi
n=0
while read -r line; do
	case $line in
	"ok packaging/"*) ok "${line#ok packaging/}"; n=$((n + 1)) ;;
	"not ok packaging/"*) not_ok "${line#not ok packaging/}"; n=$((n + 1)) ;;
	esac
done < <(cat "$work/vm-results" 2>/dev/null || true)
# The guest runs six checks; fewer results means it never got there.
[ "$n" = 6 ] || not_ok vm-results "the guest reported $n of 6 checks"
finish
