#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Install what twheel's build, tests and demo need (Debian 12). Idempotent:
# installs only what is missing. On a system without apt it prints what to
# install instead and fails.
#
#   tests/deps.sh          install what is missing
#   tests/deps.sh --check  exit 1 if anything is missing, install nothing
set -eu

PKGS="build-essential bc bison flex libelf-dev libssl-dev cpio kmod xz-utils
gzip python3 qemu-system-x86 busybox-static sparse linux-source-6.12
linux-headers-amd64 linux-headers-rt-amd64 clang llvm libclang-rt-14-dev
valgrind libuv1-dev liburing-dev rustc cargo librust-tokio-dev man-db pkg-config gnuplot-nox dkms debhelper dh-dkms
lintian dpkg-dev python3-venv python3-setuptools python3-pip dh-python"

missing=
for p in $PKGS; do
	st=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
	case "$st" in
	*" installed") ;;
	*) missing="$missing $p" ;;
	esac
done 2>/dev/null

if ! command -v dpkg-query >/dev/null 2>&1 || ! command -v apt-get >/dev/null 2>&1; then
	echo "deps: no apt here. Install the equivalents of:" >&2
	echo "  $PKGS" | tr '\n' ' ' >&2
	echo >&2
	echo "  (a kernel source tree and headers for your kernel, QEMU, a static busybox, sparse, clang)" >&2
	exit 1
fi

if [ -z "$missing" ]; then
	[ "${1:-}" = --check ] || echo "deps: all installed"
	exit 0
fi
if [ "${1:-}" = --check ]; then
	echo "deps: missing:$missing" >&2
	exit 1
fi
if [ "$(id -u)" != 0 ]; then
	echo "deps: missing:$missing; run as root (or: sudo make deps)" >&2
	exit 1
fi
echo "deps: installing:$missing"
export DEBIAN_FRONTEND=noninteractive
apt-get update -q
# shellcheck disable=SC2086
apt-get install -y -q --no-install-recommends $missing
