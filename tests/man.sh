#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# tests/man.sh - check twheel's man pages (userspace/man/*.[1-8]).
#
# For each page: it renders with man(1) (MANWIDTH=80, LC_ALL=C.UTF-8)
# without a single groff warning, no rendered line is wider than 80
# columns, it has the sections every page needs, and the C program of its
# EXAMPLES section (as rendered, so as a reader would copy it) compiles.
# Then each page against what it documents: twheel(4) names every macro,
# struct and field of uapi/linux/twheel.h and every fdinfo key the module
# prints (kmod/twheel_ctx_show.c); libtwheel(3) every function of libtwheel.h;
# twheelctl(1) every command and option of twheelctl (userspace/tools/).
#
# One "ok NAME" / "not ok NAME" line per check; last line:
# "RESULT <passed> <failed>". Exit status non-zero on any failure.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 1

export MANWIDTH=80 LC_ALL=C.UTF-8
CC=${CC:-cc}
passed=0
failed=0
work=$(mktemp -d "${TMPDIR:-/tmp}/twheel-man.XXXXXX")
trap 'rm -rf "$work"' EXIT

# result NAME STATUS [DETAIL...]: one TAP line; details as "# " lines.
result() {
	local name=$1 st=$2
	shift 2
	if [ "$st" = 0 ]; then
		echo "ok $name"
		passed=$((passed + 1))
	else
		echo "not ok $name"
		[ $# -gt 0 ] && printf '%s\n' "$@" | sed 's/^/# /'
		failed=$((failed + 1))
	fi
}

if ! command -v man > /dev/null; then
	result man/man-db-installed 1 "man(1) is missing: tests/deps.sh installs man-db"
	echo "RESULT $passed $failed"
	exit 1
fi

# missing PAGE_TEXT WORD...: the words (extended regular expressions) the
# rendered page lacks as whole words.
missing() {
	local text=$1 w
	shift
	for w in "$@"; do
		grep -qwE -- "$w" "$text" || echo "$w"
	done
}

# The C program of a rendered page's EXAMPLES section: from its first
# "#include" line to the "}" that closes main, indentation removed.
example_of() {
	awk '
		/^[A-Z][A-Z ]*$/ { sect = $0 }
		sect == "EXAMPLES" && !done {
			if (!on && $0 ~ /^ *#include/) {
				on = 1
				match($0, /^ */)
				ind = RLENGTH
			}
			if (on) {
				print substr($0, ind + 1)
				if ($0 == sprintf("%" ind "s}", ""))
					done = 1
			}
		}' "$1"
}

pages=$(ls userspace/man/*.[1-8] 2>/dev/null)
if [ -z "$pages" ]; then
	result man/pages-exist 1 "no page in userspace/man/"
fi

for page in $pages; do
	name=$(basename "$page")
	text=$work/$name.txt

	man --warnings=w -l "$page" > "$text" 2> "$work/$name.err"
	rc=$?
	if [ $rc = 0 ] && [ ! -s "$work/$name.err" ] && [ -s "$text" ]; then
		result "man/$name/render" 0
	else
		result "man/$name/render" 1 "man exit $rc" "$(cat "$work/$name.err")"
	fi

	wide=$(grep -n '.\{81\}' "$text")
	result "man/$name/width" "$([ -z "$wide" ]; echo $?)" "$wide"

	lack=$(missing "$text" NAME SYNOPSIS DESCRIPTION "SEE ALSO")
	for s in NAME SYNOPSIS DESCRIPTION "SEE ALSO"; do
		grep -qx "$s" "$text" || lack="$lack $s"
	done
	result "man/$name/sections" "$([ -z "$lack" ]; echo $?)" "missing:$lack"

	example_of "$text" > "$work/$name.c"
	if [ -s "$work/$name.c" ]; then
		$CC -std=gnu11 -Wall -Wextra -Werror -fsyntax-only -Iuapi \
			-Iuserspace/lib -x c "$work/$name.c" > "$work/$name.cc" 2>&1
		rc=$?
		result "man/$name/example_compiles" $rc "$(head -n 20 "$work/$name.cc")"
	fi
done

# twheel(4) and the ABI header: every macro, struct and field.
page4=$work/twheel.4.txt
if [ -f "$page4" ]; then
	hdr=uapi/linux/twheel.h
	macros=$(sed -n 's/^#define \(TWHEEL_[A-Z0-9_]*\).*/\1/p' "$hdr")
	structs=$(sed -n 's/^struct \(twheel_[a-z_]*\) {$/\1/p' "$hdr")
	fields=$(sed -n '/^struct twheel_[a-z_]* {$/,/^};$/s/^\t[a-z_0-9 ]* \**\([a-z_0-9]*\);$/\1/p' "$hdr" | sort -u)
	lack=$(missing "$page4" $macros)
	result man/twheel.4/documents_every_macro "$([ -z "$lack" ]; echo $?)" $lack
	lack=$(missing "$page4" $structs $fields)
	result man/twheel.4/documents_every_struct_and_field \
		"$([ -z "$lack" ]; echo $?)" $lack

	# fdinfo: the keys twheel_ctx_show() prints ("%s" in one: any name).
	keys=$(sed -n '/^void twheel_ctx_show(/,/^}/s/.*seq_printf(m, "\([a-z_%]*\):.*/\1/p' \
		kmod/twheel_ctx_show.c | sed 's/%s/[a-z]+/g')
	lack=$(missing "$page4" $keys)
	[ -n "$keys" ] || lack="(no keys found in kmod/twheel_ctx_show.c)"
	result man/twheel.4/documents_every_fdinfo_key "$([ -z "$lack" ]; echo $?)" $lack
fi

# libtwheel(3) and libtwheel.h: every function and macro.
page3=$work/libtwheel.3.txt
if [ -f "$page3" ]; then
	funcs=$(sed -n 's/^[a-z].*[ *]\(twheel_[a-z_]*\)(.*/\1/p' userspace/lib/libtwheel.h)
	macros=$(sed -n 's/^#define \(TWHEEL_[A-Z_]*\).*/\1/p' userspace/lib/libtwheel.h)
	lack=$(missing "$page3" $funcs $macros)
	[ -n "$funcs" ] || lack="(no functions found in libtwheel.h)"
	result man/libtwheel.3/documents_every_function "$([ -z "$lack" ]; echo $?)" $lack
fi

# twheelctl(1) and userspace/tools/twheelctl*.c: every command and every
# option.
page1=$work/twheelctl.1.txt
if [ -f "$page1" ]; then
	src=$(ls userspace/tools/twheelctl*.c)
	# shellcheck disable=SC2086 # one word per source file
	cmds=$(sed -n 's/^\t{ "\([a-z]*\)", cmd_[a-z]* },$/\1/p' $src)
	# shellcheck disable=SC2086
	opts=$(grep -ho '"--[a-z]*' $src | tr -d '"' | sort -u)
	# A command: a tag of its own in COMMANDS ("       quit, exit").
	lack=$(for c in $cmds; do
		grep -qE "^       ([a-z]+, )*$c([ ,]|\$)" "$page1" || echo "$c"
	done; missing "$page1" $opts)
	[ -n "$cmds" ] || lack="(no commands found in userspace/tools/twheelctl*.c)"
	result man/twheelctl.1/documents_every_command "$([ -z "$lack" ]; echo $?)" $lack
fi

echo "RESULT $passed $failed"
[ "$failed" = 0 ]
