#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# tests/bench/check-page.sh - every command docs/benchmarks.md shows
# exists: `make TARGET... VAR=VALUE...` (each target is one the Makefile
# and its fragments define, each variable one they or tests/bench/ read),
# paths in the repository (tests/..., docs/..., kmod/..., userspace/...,
# uapi/...) and the images it links. Commands are taken from code spans
# (`...`) and indented code lines; a quoted value is part of its word
# (VAR="a b" is one variable). Then a self-test: the checker must fail
# on a page with a renamed target, variable or script, and pass on a page
# of real ones. No VM; part of `make check`.
#
#   tests/bench/check-page.sh [PAGE]      (default docs/benchmarks.md)
#   tests/bench/check-page.sh --page PAGE (the page only, no self-test)
#
# One "ok"/"not ok" line per check, then "RESULT <passed> <failed>".
# shellcheck disable=SC2016	# the pages hold markdown backquotes, not expansions
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"
passed=0
failed=0

result() {	# result NAME STATUS [DETAIL]
	set -- "$(printf '%s' "$1" | tr -d '`' | sed 's/^[[:space:]]*//; s/[[:space:]]\+/_/g')" "${@:2}"
	if [ "$2" = 0 ]; then
		echo "ok $1"
		passed=$((passed + 1))
	else
		echo "not ok $1${3:+ # $3}"
		failed=$((failed + 1))
	fi
}

# make's database of rules (-q: nothing run; its status says nothing here).
targets=$({ make -pRrq : 2>/dev/null || true; } |
	awk -F: '/^[a-zA-Z0-9][^$#\/\t=]*:([^=]|$)/ { print $1 }' | sort -u)
mapfile -t var_sources < <(echo Makefile; sed -n 's/^-include //p' Makefile;
	echo tests/bench/run.sh; echo tests/bench/publish.sh)

# commands PAGE: the candidate commands, one per line.
commands() {
	{
		# shellcheck disable=SC2016	# backquotes, not an expansion
		grep -o '`[^`]*`' "$1" | tr -d '`'
		sed -n 's/^    \+//p' "$1"
	} | sed 's/[[:space:]]*$//' |
		grep -E '^(make( |$)|(\./)?(tests|docs|kmod|userspace|uapi)/)' | sort -u
}

# words LINE: its words, one per line; a quoted part ("..." or '...')
# stays in its word with its quotes, so VAR="a b c" is one word.
words() {
	printf '%s\n' "$1" | awk '{
		w = ""; q = ""; inw = 0
		for (i = 1; i <= length($0); i++) {
			c = substr($0, i, 1)
			if (q != "") {
				w = w c
				if (c == q)
					q = ""
			} else if (c == " " || c == "\t") {
				if (inw)
					print w
				w = ""; inw = 0
			} else {
				if (c == "\"" || c == "\047")
					q = c
				w = w c; inw = 1
			}
		}
		if (inw)
			print w
	}'
}

# check_page PAGE PREFIX: one check per command; returns the failures.
check_page() {
	local page=$1 pre=$2 line w bad=0 st why img
	if [ ! -f "$page" ]; then
		result "$pre/exists" 1 "$page missing"
		return 1
	fi
	while IFS= read -r line; do
		st=0
		why=
		if [[ $line == make* ]]; then
			while IFS= read -r w; do
				case $w in
				*=*)
					grep -qsw -- "${w%%=*}" "${var_sources[@]}" ||
						{ st=1; why="$why variable ${w%%=*} read nowhere;"; }
					;;
				-*|\'*|\"*|*\'|*\") ;;	# options, quoted values
				*)
					grep -qxF -- "$w" <<< "$targets" ||
						{ st=1; why="$why no target $w;"; }
					;;
				esac
			done < <(words "${line#make}")
		else
			w=${line%% *}
			[ -e "$w" ] || { st=1; why="no such path $w"; }
		fi
		result "$pre/$line" "$st" "$why"
		[ "$st" = 0 ] || bad=$((bad + 1))
	done < <(commands "$page")
	while IFS= read -r img; do
		st=0
		[ -f "$(dirname "$page")/$img" ] || st=1
		result "$pre/image:$img" "$st" "no file $(dirname "$page")/$img"
		[ "$st" = 0 ] || bad=$((bad + 1))
	done < <(grep -o '](bench/[^)]*)' "$page" | sed 's/^](//; s/)$//')
	[ "$(commands "$page" | grep -c .)" -gt 0 ] ||
		{ result "$pre/has-commands" 1 "no command found"; bad=$((bad + 1)); }
	return "$bad"
}

page=docs/benchmarks.md
selftest=1
if [ "${1:-}" = --page ]; then
	page=$2
	selftest=0
elif [ $# -gt 0 ]; then
	page=$1
fi
check_page "$page" page || true

if [ "$selftest" = 1 ]; then
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	printf '%s\n' '# t' 'Run `make bench-publish BENCH_QUICK=1`, see' \
		'`tests/bench/run.sh` and' '' '    make bench BENCH_CLOCK=wall' \
		'' 'and `make bench-prof PROF_MODES="spread-ring spread-table spread-timerfd"`.' \
		> "$tmp/good.md"
	for bogus in '`make bench-publsh`' '`make bench BENCH_QUIK=1`' \
		'`tests/bench/pubish.sh`' '    make bench-report nosuchtarget' \
		'`make bench-prof PROF_MODS="spread-ring spread-timerfd"`'; do
		printf '%s\n' '# t' 'Run `make bench-publish`.' "$bogus" > "$tmp/bad.md"
		st=0
		"$0" --page "$tmp/bad.md" > "$tmp/out" 2>&1 || st=$?
		# It must fail, and on that line.
		if [ "$st" != 0 ] && grep -q '^not ok' "$tmp/out" &&
		   [ "$(grep -c '^not ok' "$tmp/out")" = 1 ]; then
			result "selftest/fails-on:$bogus" 0
		else
			result "selftest/fails-on:$bogus" 1 "exit $st: $(tr '\n' ' ' < "$tmp/out")"
		fi
	done
	st=0
	"$0" --page "$tmp/good.md" > "$tmp/out" 2>&1 || st=$?
	result selftest/passes-on-real-commands "$st" "$(grep '^not ok' "$tmp/out" | tr '\n' ' ')"
fi
echo "RESULT $passed $failed"
[ "$failed" = 0 ]
