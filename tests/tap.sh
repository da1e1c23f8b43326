# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# tests/tap.sh - sourced by the host-side test scripts (packaging/install.sh,
# packaging/deb.sh, make-selftest.sh): their TAP cases ("ok PREFIX/NAME",
# "not ok PREFIX/NAME" with "# " lines; PREFIX is $TAP_PREFIX), their counts
# (pass, fail, skip) and their last line, "RESULT <pass> <fail> <skip>".
pass=0
fail=0
skip=0

ok() { echo "ok $TAP_PREFIX/$1"; pass=$((pass + 1)); }
# not_ok NAME [LINE...]: a failed case, each LINE printed as "# LINE".
not_ok() {
	echo "not ok $TAP_PREFIX/$1"
	shift
	for l in "$@"; do echo "# $l"; done
	fail=$((fail + 1))
}
# check NAME COMMAND...: one case, ok when COMMAND succeeds; the last 40
# lines of its output are shown only when it fails.
check() {
	local name=$1 out
	shift
	if out=$("$@" 2>&1); then
		ok "$name"
	else
		not_ok "$name"
		printf '%s\n' "$out" | tail -n 40 | sed 's/^/# /'
	fi
}
# finish: the RESULT line; exit 0 when no case failed.
finish() {
	echo "RESULT $pass $fail $skip"
	[ "$fail" = 0 ] && exit 0
	exit 1
}
