#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# twheel's static checks. Each prints what it found and a last line
# "RESULT <passed> <failed>" (one case per check).
#
#   tests/static.sh checkpatch   checkpatch --strict over kmod/ uapi/ tests/kunit/
#   tests/static.sh sparse       the module built with sparse (C=2), no warnings
#   tests/static.sh w1 KERNEL    the module built with W=1 for KERNEL, no warnings
#   tests/static.sh uapi         the uapi header alone, as C and as C++, -Werror
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 1
pass=0
fail=0
result() {	# result NAME OK?
	if [ "$2" = 0 ]; then
		echo "ok static/$1"
		pass=$((pass + 1))
	else
		echo "not ok static/$1"
		fail=$((fail + 1))
	fi
}

# A clean build log: no warning or error from the compiler, sparse or modpost.
clean_log() {
	! grep -E '(warning|error|WARNING|ERROR):' "$1"
}

case "${1:-}" in
checkpatch)
	eval "$(tests/vm/kernel.sh source)" || exit 1
	bad=0
	# The sources, not what a build generated there (*.mod.c): what git
	# tracks or would track; outside a git tree, every .c/.h but those.
	# The bench's kernel modules too.
	files=$(git ls-files -co --exclude-standard -- kmod uapi tests/kunit \
		tests/bench/kbench tests/bench/idlestat \
		2>/dev/null | grep -E '\.[ch]$' | sort)
	[ -n "$files" ] ||
		files=$(find kmod uapi tests/kunit tests/bench/kbench \
			tests/bench/idlestat -name '*.[ch]' ! -name '*.mod.c' | sort)
	for f in $files; do
		out=$("$KSRC/scripts/checkpatch.pl" --strict --no-tree --quiet \
			--show-types -f "$f" 2>&1)
		if [ -n "$out" ]; then
			printf '%s\n' "$out"
			bad=1
		fi
		# Kernel-doc on every non-static function and every struct.
		kd=$("$KSRC/scripts/kernel-doc" -none -Wall "$f" 2>&1)
		if [ -n "$kd" ]; then
			printf '%s\n' "$kd"
			bad=1
		fi
	done
	result checkpatch $bad
	;;
sparse)
	log=$(mktemp)
	tests/vm/build-module.sh debug C=2 > /dev/null 2> "$log"
	rc=$?
	cat "$log"
	[ $rc = 0 ] && clean_log "$log" > /dev/null
	result sparse $?
	rm -f "$log"
	;;
w1)
	k=${2:?kernel}
	log=$(mktemp)
	tests/vm/build-module.sh "$k" W=1 > /dev/null 2> "$log"
	rc=$?
	cat "$log"
	[ $rc = 0 ] && clean_log "$log" > /dev/null
	result "w1_build_$k" $?
	rm -f "$log"
	;;
uapi)
	# Alone, with nothing included before it, with padding reported.
	echo '#include <linux/twheel.h>' |
		${CC:-cc} -x c -std=c99 -Wall -Wextra -Wpadded -Werror -pedantic \
			-Iuapi -fsyntax-only -
	result uapi_c $?
	echo '#include <linux/twheel.h>' |
		${CXX:-c++} -x c++ -std=c++11 -Wall -Wextra -Wpadded -Werror \
			-Iuapi -fsyntax-only -
	result uapi_cxx $?
	;;
*)
	echo "usage: $0 checkpatch|sparse|w1 KERNEL|uapi" >&2
	exit 2
	;;
esac
echo "RESULT $pass $fail"
[ $fail = 0 ]
