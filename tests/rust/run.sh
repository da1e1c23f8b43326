#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The Rust binding's tests (userspace/rust/).
#
#   tests/rust/run.sh host                 on this machine, no module needed:
#                                          unit tests (layout, ioctl numbers,
#                                          encodings), the crate against the C
#                                          header, doc tests, the example built
#   tests/rust/run.sh stock|debug|rt [SUBSTRING]
#                                          the device tests (userspace/rust/
#                                          tests/device.rs) and the examples,
#                                          built static, in a VM on that kernel;
#                                          SUBSTRING picks device cases by name
#
# The tokio binding (userspace/rust/tokio/, crate twheel-tokio) is built
# and tested too, with its example (tokio/examples/idle_server.rs, run
# with --selftest in the VM), when Debian's tokio sources are installed
# (librust-tokio-dev: /usr/share/cargo/registry, a directory source its
# .cargo/config.toml names, read by cargo run in that directory); without
# them its cases are reported skipped.
#
# Prints "ok rust/NAME" / "not ok rust/NAME" lines and, last,
# "RESULT <passed> <failed> <skipped>"; exits 0 when nothing failed. A VM
# that fails closed (a kernel splat, a leak, a crash, a time-out) counts as
# one more failed case. Builds into build/rust/ (cargo --offline --locked:
# no network); logs in build/logs/rust-*.
#
# Cargo: $CARGO, else cargo from PATH (Debian 12: apt-get install cargo,
# rustc 1.63 is enough), else ~/.cargo/bin/cargo (rustup).
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1
mode=${1:?usage: run.sh host|stock|debug|rt [SUBSTRING]}
filter=${2:-}
crate=userspace/rust
out=$top/build/rust
logs=$top/build/logs
mkdir -p "$logs" "$out"

case "$filter" in
*[!A-Za-z0-9_]*) echo "run.sh: SUBSTRING may hold only letters, digits and _" >&2; exit 2 ;;
esac

if [ -z "${CARGO:-}" ]; then
	if command -v cargo >/dev/null 2>&1; then
		CARGO=cargo
	elif [ -x "$HOME/.cargo/bin/cargo" ]; then
		CARGO=$HOME/.cargo/bin/cargo
	else
		echo "not ok rust/cargo_found (Debian: apt-get install cargo)"
		echo "RESULT 0 1 0"
		exit 1
	fi
fi
# cargo finds rustc next to itself when it is not in PATH (rustup's).
PATH=$PATH:$(dirname "$(command -v "$CARGO")")
export PATH
cargo_flags="--offline --locked --manifest-path $crate/Cargo.toml --target-dir $out"
# The tokio binding: cargo runs in its directory (for its .cargo/config.toml).
tokio_crate=$top/$crate/tokio
tokio_flags="--offline --locked --target-dir $out/tokio"
have_tokio=0
ls -d /usr/share/cargo/registry/tokio-1.* >/dev/null 2>&1 && have_tokio=1

if [ "$mode" = host ]; then
	log=$logs/rust-host.log
	: > "$log"
	# step NAME COMMAND...: a cargo command; each libtest case it runs
	# becomes an "ok"/"not ok rust/host/CASE" line, and a command that
	# fails without a failed case (a build error) fails as NAME. The
	# output is in the log; its tail is shown on failure.
	step() {
		name=$1
		shift
		echo "# $*" >> "$log"
		"$@" > "$log.step" 2>&1
		rc=$?
		cases=$(sed -n -e 's|^test \(.*\) \.\.\. ok$|ok rust/host/\1|p' \
			-e 's|^test \(.*\) \.\.\. FAILED$|not ok rust/host/\1|p' \
			-e 's|^test \(.*\) \.\.\. ignored$|ok rust/host/\1 # SKIP|p' \
			"$log.step")
		[ -n "$cases" ] && printf '%s\n' "$cases" | tee -a "$log.cases"
		if [ $rc != 0 ]; then
			printf '%s\n' "$cases" | grep -q '^not ok ' ||
				echo "not ok rust/host/$name" | tee -a "$log.cases"
			tail -n 40 "$log.step" | sed 's/^/# /'
		fi
		cat "$log.step" >> "$log"
		rm -f "$log.step"
		return $rc
	}
	rm -f "$log.cases"
	# shellcheck disable=SC2086	# cargo_flags: several arguments
	step build "$CARGO" build $cargo_flags --lib --examples &&
		echo "ok rust/host/build" | tee -a "$log.cases"
	# shellcheck disable=SC2086
	step unit "$CARGO" test $cargo_flags --lib
	# shellcheck disable=SC2086
	step c_header "$CARGO" test $cargo_flags --test header
	# shellcheck disable=SC2086
	step doc "$CARGO" test $cargo_flags --doc
	if [ $have_tokio = 1 ]; then
		# shellcheck disable=SC2086
		step tokio env -C "$tokio_crate" "$CARGO" test $tokio_flags &&
			echo "ok rust/host/tokio" | tee -a "$log.cases"
	else
		echo "ok rust/host/tokio # SKIP no tokio sources (apt-get install librust-tokio-dev)" |
			tee -a "$log.cases"
	fi
	cat "$log.cases" >> "$log"
	pass=$(grep '^ok ' "$log.cases" | grep -vc ' # SKIP')
	skip=$(grep -c '^ok .* # SKIP' "$log.cases")
	fail=$(grep -c '^not ok ' "$log.cases")
	rm -f "$log.cases"
	echo "RESULT $pass $fail $skip"
	[ "$fail" = 0 ]
	exit
fi

kernel=$mode
case "$kernel" in
stock | debug | rt) ;;
*) echo "usage: run.sh host|stock|debug|rt [SUBSTRING]" >&2; exit 2 ;;
esac

# Static executables for the guest (its initramfs has no libc): glibc's
# libc.a (libc6-dev). RUSTFLAGS applies to the --target build only.
target=x86_64-unknown-linux-gnu
# One directory per kernel: runs on several kernels may overlap.
vmdir=$out/vm-$kernel
mkdir -p "$vmdir"
blog=$logs/rust-$kernel-build.log
build_static() {
	# shellcheck disable=SC2086	# cargo_flags: several arguments
	RUSTFLAGS="-C target-feature=+crt-static" "$CARGO" "$@" $cargo_flags \
		--target $target
}
tokio_build() {
	# shellcheck disable=SC2086	# tokio_flags: several arguments
	(cd "$tokio_crate" && RUSTFLAGS="-C target-feature=+crt-static" \
		"$CARGO" "$@" $tokio_flags --target $target)
}
if ! build_static test --no-run --test device --message-format=json > "$blog.json" 2> "$blog" ||
   ! build_static build --example idle_timeouts >> "$blog" 2>&1 ||
   { [ $have_tokio = 1 ] &&
     { ! tokio_build test --no-run --test device --message-format=json \
		> "$blog.tokio.json" 2>> "$blog" ||
       ! tokio_build build --example idle_server >> "$blog" 2>&1; }; }; then
	echo "not ok rust/$kernel/build (log: $blog)"
	tail -n 40 "$blog" | sed 's/^/# /'
	echo "RESULT 0 1 0"
	exit 1
fi
# The test binary's name has a hash: take it from cargo's own report.
dev=$(grep '"executable":"' "$blog.json" | grep '"name":"device"' |
	sed -n 's/.*"executable":"\([^"]*\)".*/\1/p' | tail -n 1)
ex=$out/$target/debug/examples/idle_timeouts
tok=
tokex=
if [ $have_tokio = 1 ]; then
	tok=$(grep '"executable":"' "$blog.tokio.json" | grep '"name":"device"' |
		sed -n 's/.*"executable":"\([^"]*\)".*/\1/p' | tail -n 1)
	tokex=$out/tokio/$target/debug/examples/idle_server
fi
for f in "$dev" "$ex" $tok $tokex; do
	# A dynamic executable names its interpreter (ld.so); a static(-pie)
	# one does not.
	if [ ! -x "$f" ] || readelf -lW "$f" | grep -q 'program interpreter'; then
		echo "not ok rust/$kernel/static_binaries ($f: missing or dynamic)"
		echo "RESULT 0 1 0"
		exit 1
	fi
done
cp "$dev" "$vmdir/twheel-rust-device"
cp "$ex" "$vmdir/twheel-rust-idle-timeouts"
vm_files="$vmdir/twheel-rust-device $vmdir/twheel-rust-idle-timeouts"
if [ -n "$tok" ]; then
	cp "$tok" "$vmdir/twheel-rust-tokio-device"
	cp "$tokex" "$vmdir/twheel-rust-tokio-idle-server"
	vm_files="$vm_files $vmdir/twheel-rust-tokio-device $vmdir/twheel-rust-tokio-idle-server"
else
	rm -f "$vmdir/twheel-rust-tokio-device" "$vmdir/twheel-rust-tokio-idle-server"
fi

res=$logs/rust-$kernel.results
console=$logs/rust-$kernel-console.log
rm -f "$res"
# The guest's script: load the module, the device cases (each "ok"/"not
# ok" line goes to /tmp/results, which the VM hands back), the example on
# the manual and the real clock, the tokio example's selftest (a TCP echo
# server on 127.0.0.1: loopback brought up first), unload.
cmd=$(cat <<EOF
res=/tmp/results
report() {
	if [ "\$2" = 0 ]; then echo "ok \$1"; else echo "not ok \$1"; fi | tee -a \$res
}
insmod /lib/twheel/twheel.ko
report rust/insmod \$?
TWHEEL_REQUIRE_DEVICE=1 twheel-rust-device $filter > /tmp/out 2>&1
rc=\$?
cat /tmp/out
cat /tmp/out >> \$res
if [ \$rc != 0 ] && ! grep -q '^not ok ' /tmp/out; then
	report rust/device_exit_status \$rc
fi
if command -v twheel-rust-tokio-device >/dev/null; then
	TWHEEL_REQUIRE_DEVICE=1 twheel-rust-tokio-device $filter > /tmp/out 2>&1
	rc=\$?
	cat /tmp/out
	cat /tmp/out >> \$res
	if [ \$rc != 0 ] && ! grep -q '^not ok ' /tmp/out; then
		report rust/tokio_exit_status \$rc
	fi
fi
if [ -z "$filter" ]; then
	for mode in manual real; do
		arg=
		[ \$mode = real ] && arg=--real
		twheel-rust-idle-timeouts \$arg > /tmp/out 2>&1
		rc=\$?
		sed 's/^/# /' /tmp/out | tee -a \$res
		report rust/example_idle_timeouts_\$mode \$rc
	done
	if command -v twheel-rust-tokio-idle-server >/dev/null; then
		ip link set lo up
		twheel-rust-tokio-idle-server --selftest > /tmp/out 2>&1
		rc=\$?
		sed 's/^/# /' /tmp/out | tee -a \$res
		report rust/tokio/example_idle_server \$rc
	fi
fi
rmmod twheel
report rust/rmmod \$?
! grep -q '^not ok' \$res
EOF
)
VM_QUIET=${VM_QUIET:-1} VM_RESULTS=$res VM_LOG=$console \
	VM_FILES="$vm_files${VM_FILES:+ $VM_FILES}" \
	tests/vm/run.sh "$kernel" "$cmd"
vmrc=$?
[ -z "$tok" ] && [ -f "$res" ] &&
	echo "ok rust/tokio # SKIP no tokio sources (apt-get install librust-tokio-dev)" >> "$res"

exec tests/vm/tap-result.sh "$res" "$vmrc" "rust/$kernel" "$console"
