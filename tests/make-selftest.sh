#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The make interface itself, as README.md describes it:
#   - `make help` starts with its title and names every target the
#     Makefile and its fragments declare .PHONY;
#   - without the running kernel's headers, `make` builds no module, says
#     which package to install and how to build for the test kernels, and
#     exits 0; `make module` fails (exit 2) with that message;
#   - `make vm-run` and `make vm-shell` boot the stock kernel unless
#     KERNEL= says otherwise; `make integration` defaults to the debug one
#     (checked with make -n: no VM);
#   - `make vm-run CMD=...` hands CMD to the guest's shell untouched
#     (several lines, quotes, $), without -e, and tests/vm/run.sh exits
#     with the status of CMD's last command.
# Output: TAP lines, then "RESULT <passed> <failed> <skipped>".
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 1
TAP_PREFIX="make"
# shellcheck source=tests/tap.sh
. "$top/tests/tap.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# --- make help ------------------------------------------------------
make -s --no-print-directory help > "$tmp/help" 2>&1
check help_exit_status test $? = 0
check help_first_line_is_title grep -q '^twheel targets' <(head -n1 "$tmp/help")
# Every .PHONY target of the Makefile and its fragments, except the
# internal ones (tw-*, FORCE, no-module, bench-bin-style helpers are listed).
# shellcheck disable=SC2046  # one word per included fragment
targets=$(cat Makefile $(sed -n 's/^-include //p' Makefile) 2>/dev/null |
	awk '/^\.PHONY:/ { cont = 1; sub(/^\.PHONY:/, "") }
	     cont { line = $0; cont = (line ~ /\\$/); gsub(/\\/, "", line); print line }' |
	tr ' \t' '\n\n' | grep -v '^$' | sort -u |
	grep -vE '^(FORCE|no-module|tw-.*)$')
missing=
for t in $targets; do
	grep -qE "(^|[ |])$t([ |]|$)" "$tmp/help" || missing="$missing $t"
done
if [ -z "$missing" ]; then
	ok help_lists_every_target
else
	echo "# targets missing from make help:$missing"
	not_ok help_lists_every_target
fi

# --- no headers for the running kernel --------------------------------
make -s --no-print-directory KERNEL_RUNNING_BUILD=/nonexistent/build \
	> "$tmp/all.out" 2> "$tmp/all.err"
check all_without_headers_exits_0 test $? = 0
check all_without_headers_says_why grep -q 'no module built: the running kernel' "$tmp/all.err"
check all_without_headers_names_package grep -q "apt-get install linux-headers-$(uname -r)" "$tmp/all.err"
check all_without_headers_names_test_kernels grep -q 'make module KERNEL=stock|debug|rt' "$tmp/all.err"
check all_without_headers_builds_userspace test -x build/bin/twheelctl
make -s --no-print-directory KERNEL_RUNNING_BUILD=/nonexistent/build module \
	> "$tmp/mod.out" 2> "$tmp/mod.err"
check module_without_headers_exits_2 test $? = 2
check module_without_headers_says_why grep -q 'no module built' "$tmp/mod.err"

# --- which kernel the VM targets boot (make -n: nothing runs) ---------
# runs_on TARGET WANT [VAR=VALUE...]: `make -n TARGET` prints a line
# that WANT (a basic regular expression) matches from its start, with no
# KERNEL from the environment. Called through check() (tap.sh): SC2317.
# shellcheck disable=SC2317
runs_on() {
	local target=$1 want=$2
	shift 2
	env -u KERNEL -u MAKEFLAGS -u MFLAGS -u MAKELEVEL \
		make -n --no-print-directory "$target" "$@" 2> /dev/null |
		grep -q -- "^$want"
}
check vm_run_defaults_to_stock runs_on vm-run 'tests/vm/run.sh stock '
check vm_shell_defaults_to_stock runs_on vm-shell 'tests/vm/run.sh --shell stock$'
check vm_run_kernel_debug runs_on vm-run 'tests/vm/run.sh debug ' KERNEL=debug
check vm_shell_kernel_rt runs_on vm-shell 'tests/vm/run.sh --shell rt$' KERNEL=rt
check integration_defaults_to_debug runs_on integration 'tests/integration/run.sh debug$'

# --- vm-run ----------------------------------------------------------
# shellcheck disable=SC2016  # the $ are for the guest's shell
# Several lines; single and double quotes; a $ for the guest's shell; a
# failing command that must not end the script; then a chosen status.
cmd='x="two words"; echo "A:$x"
echo '"'"'B:single $quoted'"'"'
false
echo "C:$((6 * 7))"
exit 7'
make -s --no-print-directory vm-run KERNEL=stock CMD="$cmd" > "$tmp/vm.out" 2>&1
mrc=$?
check vm_run_fails_with_the_command test "$mrc" != 0
check vm_run_dollar_kept grep -q '^A:two words' "$tmp/vm.out"
check vm_run_single_quotes grep -q '^B:single \$quoted' "$tmp/vm.out"
check vm_run_not_errexit grep -q '^C:42' "$tmp/vm.out"
VM_QUIET=1 tests/vm/run.sh stock "$cmd" > /dev/null 2>&1
check vm_run_exit_status_is_the_last_commands test $? = 7
VM_QUIET=1 tests/vm/run.sh stock 'false
true' > /dev/null 2>&1
check vm_run_exit_status_0_after_a_failure test $? = 0

finish
