#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# tests/python/pip.sh PYTHON - the binding installs as README.md and
# userspace/python/README.md say: `pip install` of userspace/python into a
# fresh virtual environment, offline (--no-index; setuptools from the
# system: --no-build-isolation), from a copy of the directory (pip builds
# in the source tree, which must stay clean). Then `import twheel` outside
# the tree finds the installed module, of the header's version, and
# `pip uninstall` removes it. Prints "ok"/"not ok" lines.
set -u
py=${1:?usage: pip.sh PYTHON}
top=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

check() {	# check NAME COMMAND...: one TAP line
	name=$1
	shift
	if "$@" > "$tmp/out" 2>&1; then
		echo "ok python/host/$name"
	else
		sed 's/^/# /' "$tmp/out"
		echo "not ok python/host/$name"
	fi
}

want=$(sed -n 's/^#define TWHEEL_VERSION[[:space:]]*"\(.*\)"$/\1/p' \
	"$top/uapi/linux/twheel.h")
cp -R "$top/userspace/python" "$tmp/src"
check pip_venv "$py" -m venv --system-site-packages "$tmp/venv"
check pip_install "$tmp/venv/bin/python" -m pip install --no-index \
	--no-build-isolation --no-cache-dir --disable-pip-version-check \
	"$tmp/src"
# From /, with -I: neither the tree nor PYTHONPATH can supply the module.
check pip_import_installed sh -c "cd / && '$tmp/venv/bin/python' -I -c '
import sys, twheel
assert twheel.__file__.startswith(sys.prefix), twheel.__file__
assert twheel.VERSION == \"$want\", twheel.VERSION
assert callable(twheel.Wheel)
'"
check pip_version sh -c "'$tmp/venv/bin/python' -m pip show twheel |
	grep -qx 'Version: $want'"
check pip_uninstall sh -c "'$tmp/venv/bin/python' -m pip uninstall -y twheel &&
	cd / && ! '$tmp/venv/bin/python' -I -c 'import twheel'"
