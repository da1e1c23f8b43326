#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# tests/packaging/install.sh - `make install` and `make uninstall`
# (kmod/install.mk) into a staging directory, for PREFIX=/usr and
# PREFIX=/usr/local, with the module built for Debian's stock kernel
# (tests/vm/kernel.sh stock); then depmod into a staged module tree, and
# the DKMS source tree (`make dkms-install DESTDIR=`); and a host without
# the running kernel's headers (no KDIR, its build directory missing).
#
#   tests/packaging/install.sh
#
# Checks: the exact list of installed files (the module for the stock
# kernel's release, never twheel_kunit.ko), their modes, the module's
# vermagic, that the installed pkg-config file and header and library
# build and link a program (which checks twheel_open_hint()'s advice),
# that the shared library exports exactly libtwheel.h's functions
# (versioned), that uninstall leaves nothing but empty directories.
# Without headers: install puts all but the module, exits 0 and warns on
# stderr, naming the headers package and the next commands;
# modules_install alone exits 2 and installs nothing; uninstall still
# removes it all; a KDIR that is no kernel tree is named in the error.
# Prints TAP lines "ok packaging/..." / "not ok packaging/...", then
# "RESULT <pass> <fail> <skip>". Runs on the host (no VM); needs the
# stock kernel's headers, pkg-config, a C compiler, depmod.
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

# The same without the module: what `make install` puts on a host without
# the running kernel's headers.
expected_user_files() {
	expected_files "$1" | grep -v '^lib/modules/'
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

# check_files DESTDIR PREFIX [LIST]: LIST (a function, expected_files by
# default) names exactly what is installed.
check_files() {
	local d=$1 prefix=$2 list=${3:-expected_files} diff
	if diff=$(diff <("$list" "$prefix" | LC_ALL=C sort) \
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
	#include <errno.h>
	#include <stdio.h>
	#include <string.h>
	#include <time.h>
	#include <linux/twheel.h>
	#include <libtwheel.h>

	/* twheel_open_hint(err) has @want in it (NULL: is NULL). */
	static int hint_is(int err, const char *want)
	{
		const char *h;

		errno = EBADF;
		h = twheel_open_hint(err);
		if (errno != EBADF) {
			fprintf(stderr, "twheel_open_hint(%d) set errno\n", err);
			return 0;
		}
		if (!want ? !h : h && strstr(h, want))
			return 1;
		fprintf(stderr, "twheel_open_hint(%d): \"%s\", not \"%s\"\n",
			err, h ? h : "(null)",
			want ? want : "(null)");
		return 0;
	}

	int main(void)
	{
		int64_t now = twheel_now(CLOCK_MONOTONIC);
		/* What to do after twheel_open() failed, as twheelctl says. */
		const char *mod = "is the module loaded? modprobe twheel (or insmod twheel.ko)";
		char abi[64];
		int hints;

		snprintf(abi, sizeof(abi), "ABI version is not %d,", TWHEEL_ABI_VERSION);
		hints = hint_is(ENOENT, mod) && hint_is(ENODEV, mod) &&
			    hint_is(ENXIO, mod) && !strcmp(twheel_open_hint(ENOENT), mod) &&
			    hint_is(EACCES, "ls -l /dev/twheel") &&
			    hint_is(EPERM, "device cgroup") &&
			    hint_is(EMFILE, "ulimit -n") &&
			    hint_is(EMFILE, "sysctl -w fs.twheel.max_user_fds=N") &&
			    hint_is(ENFILE, "fs.file-max") &&
			    hint_is(ENOMEM, "memory cgroup") &&
			    hint_is(EPROTO, abi) &&
			    hint_is(ENOTTY, "not twheel's device") &&
			    hint_is(0, NULL) && hint_is(EBADF, NULL) &&
			    hint_is(EINVAL, NULL) && hint_is(-1, NULL);

		printf("version=%s abi=%d hints=%s\n", TWHEEL_VERSION,
		       TWHEEL_ABI_VERSION, hints ? "ok" : "wrong");
		return now > 0 && hints ? 0 : 1;
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
	[ "$out" = "version=$version abi=$abi hints=ok" ] || return 1
	# The same program linked statically against the installed archive.
	# shellcheck disable=SC2046
	(cd "$work" && cc -std=gnu11 -Wall -Werror -o prog-static prog.c \
		$(pkg-config --cflags libtwheel) "$d$p/lib/libtwheel.a")
	"$work/prog-static" > /dev/null
}

# The installed shared library exports exactly the functions of
# libtwheel.h (not its static inline helpers), each under its version
# node of the linker version script userspace/lib/libtwheel.map
# (LIBTWHEEL_0, LIBTWHEEL_0.4, ...), and nothing else.
check_exports() {
	local lib=$1 want got funcs mapped
	funcs=$(sed -n '/^static inline/d; s/^[a-z].*[ *]\(twheel_[a-z_]*\)(.*/\1/p' \
		"$top/userspace/lib/libtwheel.h" | LC_ALL=C sort)
	mapped=$(awk '/^[A-Z][A-Z0-9_.]* *\{/ { node = $1; print node }
		/^[ \t]+twheel_[a-z_]*;/ { sub(/;/, "", $1); print $1 "@@" node }' \
		"$top/userspace/lib/libtwheel.map" | LC_ALL=C sort)
	diff <(printf '%s\n' "$funcs") \
		<(printf '%s\n' "$mapped" | sed -n 's/@@.*//p') ||
		{ echo "libtwheel.h (<) vs libtwheel.map (>)"; return 1; }
	want=$mapped
	got=$(nm -D --defined-only "$lib" | awk '{ print $NF }' | LC_ALL=C sort)
	[ "$(printf '%s\n' "$want" | wc -l)" -gt 10 ] ||
		{ echo "no functions found in libtwheel.h"; return 1; }
	diff <(printf '%s\n' "$want") <(printf '%s\n' "$got") ||
		{ echo "libtwheel.map (<) vs exported by $lib (>)"; return 1; }
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
	check "library-exports-$tag" check_exports "$d$prefix/lib/libtwheel.so.0"
	check "uninstall-$tag" tw_make uninstall DESTDIR="$d" PREFIX="$prefix"
	check "uninstall-leaves-nothing-$tag" check_empty "$d"
done

# A host without the running kernel's headers: no KDIR, no KERNEL=, and
# the running kernel's build directory (KERNEL_RUNNING_BUILD, by default
# /lib/modules/$(uname -r)/build) a path that does not exist. Neither from
# the environment: KDIR may be exported, a make above may pass variables
# down in MAKEFLAGS.
nohdr_build=$work/no-headers/build
nohdr_make() {
	env -u KDIR -u KERNEL -u MAKEFLAGS -u MFLAGS -u MAKELEVEL \
		make -C "$top" --no-print-directory \
		KERNEL_RUNNING_BUILD="$nohdr_build" "$@"
}

# check_stderr FILE TEXT...: FILE (a run's stderr) has each TEXT.
check_stderr() {
	local err=$1 w
	shift
	for w in "$@"; do
		grep -qF -- "$w" "$err" && continue
		echo "stderr lacks \"$w\"; it was:"
		cat "$err"
		return 1
	done
}

# The no-headers message of `make $1` into DESTDIR $2 (stderr in $3): what
# was not done, why, the headers package, the next commands.
check_nohdr_msg() {
	local target=$1 d=$2 err=$3 lead running
	running=$(uname -r)
	lead="module not installed"
	[ "$target" != install ] || lead="warning: installed all but the module"
	check_stderr "$err" "twheel: $lead: the running kernel $running" \
		"has no headers ($nohdr_build is missing)" \
		"apt-get install" "linux-headers-$running;" \
		"make modules_install DESTDIR=$d" \
		"make dkms-install DESTDIR=$d" \
		"make $target KDIR=/path/to/its/build/tree DESTDIR=$d"
}

d=$work/dest-no-headers
mkdir -p "$d"
rc=0
nohdr_make install DESTDIR="$d" PREFIX=/usr > "$work/install-no-headers.log" \
	2> "$work/install-no-headers.err" || rc=$?
# Exit 0: all it could install is installed (a packaging script must not
# see a failure after a partial install); the warning says what is not.
if [ "$rc" = 0 ]; then
	ok no-headers-install-status
else
	not_ok no-headers-install-status "make install without headers:" \
		"exit status $rc, expected 0"
	cat "$work/install-no-headers.log" "$work/install-no-headers.err" |
		tail -n 30 | sed 's/^/# /'
fi
check no-headers-install-message check_nohdr_msg install "$d" \
	"$work/install-no-headers.err"
check no-headers-files check_files "$d" /usr expected_user_files
check no-headers-modes check_modes "$d" /usr
check no-headers-pkgconfig-build check_pkgconfig "$d" /usr
check no-headers-uninstall nohdr_make uninstall DESTDIR="$d" PREFIX=/usr
check no-headers-uninstall-leaves-nothing check_empty "$d"

# modules_install alone: the same message, exit 2, nothing installed (not
# even a directory).
nohdr_modules_install_case() {
	local d=$work/dest-no-headers-ko rc=0
	mkdir -p "$d"
	nohdr_make modules_install DESTDIR="$d" 2> "$work/mi-no-headers.err" ||
		rc=$?
	[ "$rc" = 2 ] || { echo "exit status $rc, expected 2"; return 1; }
	check_nohdr_msg modules_install "$d" "$work/mi-no-headers.err" ||
		return 1
	[ -z "$(find "$d" -mindepth 1)" ] ||
		{ echo "installed:"; find "$d" -mindepth 1; return 1; }
}
check no-headers-modules_install nohdr_modules_install_case

# uninstall needs no headers to find the module that install put for the
# running kernel while it had them: its release is `uname -r`.
nohdr_uninstall_module_case() {
	local d=$work/dest-no-headers-rm ko
	ko=$d/lib/modules/$(uname -r)/updates/twheel.ko
	mkdir -p "${ko%/*}"
	: > "$ko"
	nohdr_make uninstall DESTDIR="$d"
	[ ! -e "$ko" ] || { echo "$ko left"; return 1; }
	check_empty "$d"
}
check no-headers-uninstall-module nohdr_uninstall_module_case

# A KDIR that is no kernel tree: the error says which and why (a failed
# read under the recipe's set -e used to end it silently), nothing is
# installed.
bad_kdir_case() {
	local d=$work/dest-bad-kdir k rc want
	mkdir -p "$d" "$work/empty-kdir"
	for k in "$work/no-such-kdir" "$work/empty-kdir"; do
		want="install: KDIR $k: no such directory"
		[ ! -d "$k" ] || want="install: no kernel release in $k/include/"
		rc=0
		make -C "$top" --no-print-directory KDIR="$k" modules_install \
			DESTDIR="$d" 2> "$work/bad-kdir.err" || rc=$?
		[ "$rc" = 2 ] || { echo "KDIR=$k: exit $rc, expected 2"; return 1; }
		check_stderr "$work/bad-kdir.err" "$want" || return 1
	done
	[ -z "$(find "$d" -mindepth 1)" ] ||
		{ echo "installed:"; find "$d" -mindepth 1; return 1; }
}
check bad-kdir-message bad_kdir_case

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
