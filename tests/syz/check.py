#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# tests/syz/check.py - check the syzkaller description of /dev/twheel
# (tests/syz/twheel.txt and twheel.txt.const) without syzkaller: parse the
# subset of syzlang it uses, fail on a syntax error, an unknown type or
# constant, then cross-check it against the real header by compiling a C
# program that includes it and prints every command number, struct size,
# field offset and size, and constant value.
#
#   tests/syz/check.py [--header PATH] [--desc PATH] [--const PATH] [-v]
#
# --header defaults to uapi/linux/twheel.h (give a modified copy to see the
# check fail). Output: TAP lines "ok syz/..." / "not ok syz/...", "#"
# diagnostics, and last "RESULT <pass> <fail> <skip>". Exit status 0 when
# nothing failed. Python 3 standard library and a C compiler ($CC or cc).

import argparse
import os
import shutil
import sys
import tempfile

# One role per file: the entry point, arguments and TAP output here; the
# modules next to this script (sys.path[0]) do the rest. No __pycache__ in
# the tree.
sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
if HERE not in sys.path:
    sys.path.insert(0, HERE)

from syz_cross import c_probe, cross_check, parse_header  # noqa: E402
from syz_parse import SyzError, name_of, parse, parse_consts  # noqa: E402
from syz_types import Checker  # noqa: E402

TOP = os.path.normpath(os.path.join(HERE, '..', '..'))


# ----------------------------------------------------------------------

class Tap:
    def __init__(self):
        self.passed = self.failed = self.skipped = 0

    def result(self, name, errors, skip=None):
        if skip:
            print('ok syz/%s # SKIP %s' % (name, skip))
            self.skipped += 1
            return
        if errors:
            for e in errors[:40]:
                print('# %s' % e)
            print('not ok syz/%s' % name)
            self.failed += 1
        else:
            print('ok syz/%s' % name)
            self.passed += 1


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument('--header', default=os.path.join(TOP, 'uapi', 'linux',
                                                     'twheel.h'))
    ap.add_argument('--desc', default=os.path.join(TOP, 'tests', 'syz',
                                                   'twheel.txt'))
    ap.add_argument('--const', default=None)
    ap.add_argument('-v', action='store_true', help='print the layouts')
    args = ap.parse_args()
    const_path = args.const or args.desc + '.const'
    tap = Tap()

    with open(args.desc) as f:
        text = f.read()
    try:
        desc = parse(text)
        tap.result('parse', [])
    except SyzError as e:
        tap.result('parse', [str(e)])
        print('RESULT %d %d %d' % (tap.passed, tap.failed, tap.skipped))
        return 1

    with open(const_path) as f:
        consts, cerrs = parse_consts(f.read())
    tap.result('const_file', cerrs)

    chk = Checker(desc, consts)
    terrs = chk.run()
    tap.result('types', terrs)
    unused = sorted(set(consts) - chk.used_consts -
                    {'__NR_' + s['base'] for s in desc.syscalls})
    tap.result('consts_used', ['%s is in the .const file but not used' % c
                               for c in unused])
    if args.v:
        for name, s in sorted(desc.structs.items()):
            if 'layout' in s:
                size, align, offs = s['layout']
                print('# %s: size %s align %d %s' % (name, size, align,
                                                     sorted(offs.items(),
                                                            key=lambda x:
                                                            x[1][0])))

    with open(args.header) as f:
        htext = f.read()
    hstructs, hiocs, hother = parse_header(htext)
    ioctls = {}
    for sc in desc.syscalls:
        if sc['base'] == 'ioctl':
            ioctls[sc['name'][len('ioctl$'):]] = sc

    # Every TWHEEL_IOC_* of the header is described, by its own name.
    errs = ['%s is defined in a form check.py does not read' % o
            for o in hother]
    for name in sorted(hiocs):
        sc = ioctls.get(name)
        if not sc:
            errs.append('%s has no ioctl$%s' % (name, name))
            continue
        cmd = sc['args'][1][1]
        if cmd.name != 'const' or not cmd.args or name_of(cmd.args[0]) != name:
            errs.append('ioctl$%s: cmd is %r, not const[%s]' % (name, cmd,
                                                                 name))
        if name not in consts:
            errs.append('%s is not in the .const file' % name)
    tap.result('every_ioctl_described', errs)

    cc = os.environ.get('CC', 'cc')
    if not shutil.which(cc):
        for what in ('compile', 'ioctls', 'structs', 'consts', 'size_fields',
                     'size_variants'):
            tap.result(what, [], skip='no C compiler (%s)' % cc)
        print('RESULT %d %d %d' % (tap.passed, tap.failed, tap.skipped))
        return 1 if tap.failed else 0

    with tempfile.TemporaryDirectory(prefix='twheel-syz.') as wd:
        res, cerr = c_probe(args.header, desc, consts, hstructs, cc, wd)
    if res is None:
        tap.result('compile', (cerr or '').strip().split('\n'))
        print('RESULT %d %d %d' % (tap.passed, tap.failed, tap.skipped))
        return 1
    tap.result('compile', [])

    cross_check(tap, desc, consts, htext, hstructs, hiocs, ioctls, res)

    print('RESULT %d %d %d' % (tap.passed, tap.failed, tap.skipped))
    return 1 if tap.failed else 0


if __name__ == '__main__':
    sys.exit(main())
