# SPDX-License-Identifier: GPL-2.0
"""Build the tree tests/vm/run.sh copies into the guest (VM_OVERLAY) so
that the Python binding's tests run there.

    /usr/bin/python3 tests/python/overlay.py OUTDIR [SCRIPT...]

Run it with the interpreter to copy (Debian's /usr/bin/python3, not a
pyenv or venv one): the guest gets this very interpreter at its own path,
the shared libraries it and its extension modules need (from ldd), and
the part of its standard library the tests and the example import (found
by importing them here, plus the modules they import only on demand).
Every .py is byte-compiled with unchecked-hash pycs, valid whatever the
guest's file times. The project's files go to /opt/twheel/, laid out as
in the repository. OUTDIR is replaced.

Each SCRIPT (a user's own program, `make vm-python SCRIPT=...`) goes to
/opt/twheel/run/ under its own name, with the standard library modules
it imports (found by modulefinder, which reads its imports without
running it; a module it imports only by a computed name is not found).
"""

import glob
import importlib.util
import modulefinder
import os
import py_compile
import re
import shutil
import subprocess
import sys
import sysconfig

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
# The binding (every module of the package userspace/python/twheel/), the
# example, the device tests (test_device.py, the test_device_*.py files it
# loads, and their helpers devhelp.py).
DEVICE_TESTS = sorted(
    os.path.splitext(os.path.basename(f))[0]
    for f in glob.glob(os.path.join(TOP, "tests/python/test_device*.py")))
PROJECT_FILES = sorted(
    os.path.relpath(f, TOP)
    for f in glob.glob(os.path.join(TOP, "userspace/python/twheel/*.py"))) + [
    "userspace/python/examples/idle_server.py",
    "tests/python/tap.py",
    "tests/python/devhelp.py",
] + [f"tests/python/{name}.py" for name in DEVICE_TESTS]
# Imported by the tests, unittest or the example only when needed (on a
# failure, in a subprocess, ...): imported here so that they are found.
ON_DEMAND = [
    "argparse", "asyncio", "ctypes", "difflib", "pprint", "subprocess",
    "tempfile", "traceback", "linecache", "tokenize", "unittest", "site",
    "encodings.ascii", "encodings.latin_1", "encodings.utf_8",
    "encodings.utf_8_sig", "encodings.aliases",
]

# Loaded here, but optional to every module that imports them (asyncio
# without ssl, shutil without bz2 and lzma): left out of the guest, with
# the 5 MB of libssl and libcrypto they would bring.
LEFT_OUT = {"ssl", "_ssl", "bz2", "_bz2", "lzma", "_lzma"}


def fail(msg):
    sys.exit(f"overlay: {msg}")


def ldd(path):
    """The shared libraries @path loads, as absolute paths."""
    out = subprocess.run(["ldd", path], capture_output=True, text=True)
    if out.returncode != 0:
        if "not a dynamic executable" in out.stdout + out.stderr:
            return []
        fail(f"ldd {path}: {out.stderr.strip()}")
    libs = []
    for line in out.stdout.splitlines():
        m = re.search(r"(/\S+) \(0x", line)
        if m:
            libs.append(m.group(1))
        elif "not found" in line:
            fail(f"{path}: {line.strip()}")
    return libs


def copy(src, root, dest=None):
    """Copy file @src (symlinks followed) to @root + (@dest or @src)."""
    dst = os.path.join(root, (dest or src).lstrip("/"))
    os.makedirs(os.path.dirname(dst), exist_ok=True)
    shutil.copy2(os.path.realpath(src), dst)
    return dst


def compile_py(path, name):
    py_compile.compile(path, doraise=True, dfile=name,
                       invalidation_mode=py_compile.PycInvalidationMode.UNCHECKED_HASH)


def script_modules(scripts):
    """Files of the modules @scripts import, as modulefinder finds them."""
    files = set()
    for script in scripts:
        finder = modulefinder.ModuleFinder(
            path=[os.path.join(TOP, "userspace/python")] + sys.path,
            excludes=sorted(LEFT_OUT))
        try:
            finder.run_script(script)
        except (OSError, SyntaxError) as e:
            fail(f"{script}: {e}")
        for mod in finder.modules.values():
            if mod.__file__:
                files.add(os.path.abspath(mod.__file__))
    return files


def stdlib_modules(scripts):
    """Files of the standard library loaded by the tests and the example,
    and imported by @scripts."""
    sys.path[:0] = [os.path.join(TOP, "tests/python"),
                    os.path.join(TOP, "userspace/python")]
    for name in ("twheel", "tap", "devhelp", *DEVICE_TESTS):
        importlib.import_module(name)
    spec = importlib.util.spec_from_file_location(
        "idle_server", os.path.join(TOP, "userspace/python/examples/idle_server.py"))
    spec.loader.exec_module(importlib.util.module_from_spec(spec))
    for name in ON_DEMAND:
        __import__(name)
    stdlib = sysconfig.get_paths()["stdlib"]
    files = {f for f in script_modules(scripts)
             if f.startswith(stdlib + os.sep)}
    for name, mod in list(sys.modules.items()):
        f = getattr(mod, "__file__", None)
        if name in LEFT_OUT:
            continue
        if f and os.path.abspath(f).startswith(stdlib + os.sep):
            files.add(os.path.abspath(f))
    return stdlib, sorted(files)


def main():
    if len(sys.argv) < 2:
        fail("usage: overlay.py OUTDIR [SCRIPT...]")
    out = os.path.abspath(sys.argv[1])
    scripts = [os.path.abspath(s) for s in sys.argv[2:]]
    for script in scripts:
        if not os.path.isfile(script):
            fail(f"{script}: no such file")
    exe = os.path.realpath(sys.executable)
    if not exe.startswith("/usr/bin/"):
        fail(f"{exe} is not a system interpreter: run this with Debian's "
             "/usr/bin/python3 (package python3)")
    stdlib, files = stdlib_modules(scripts)
    if os.path.isdir(out):
        shutil.rmtree(out)
    os.makedirs(out)

    binaries = [exe]
    copy(exe, out)
    os.symlink(os.path.basename(exe), os.path.join(out, "usr/bin/python3"))
    # The landmark by which the interpreter finds its prefix, and the
    # directory of extension modules, even if none is needed.
    copy(os.path.join(stdlib, "os.py"), out)
    dynload = os.path.join(stdlib, "lib-dynload")
    os.makedirs(os.path.join(out, dynload.lstrip("/")), exist_ok=True)
    for f in files:
        dst = copy(f, out)
        if f.endswith(".py"):
            compile_py(dst, f)
        else:
            binaries.append(f)
    libs = set()
    for b in binaries:
        libs.update(ldd(b))
    for lib in sorted(libs):
        copy(lib, out)
    # The project's files, as in the repository.
    for rel in PROJECT_FILES:
        dst = copy(os.path.join(TOP, rel), out, "/opt/twheel/" + rel)
        compile_py(dst, "/opt/twheel/" + rel)
    # The user's scripts, by name.
    for script in scripts:
        dst = copy(script, out, "/opt/twheel/run/" + os.path.basename(script))
        os.chmod(dst, 0o755)
    print(f"overlay: {exe}, {len(files)} standard library files, "
          f"{len(libs)} shared libraries in {out}")


if __name__ == "__main__":
    main()
