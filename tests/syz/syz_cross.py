#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# tests/syz/syz_cross.py - the cross-check of the description against the
# real header: read uapi/linux/twheel.h's structs and TWHEEL_IOC_* commands,
# compile and run a C program that prints what the compiler makes of them,
# and compare ioctls, structs, constants, size fields and size variants.
# Imported by tests/syz/check.py; Python 3 standard library and a C
# compiler.

import os
import re
import shutil
import subprocess

from syz_parse import INT_TYPES, IOC_DIR_PTR, Range, name_of


# ----------------------------------------------------------------------
# The header

def parse_header(text):
    """struct name -> [(ctype, field)], and TWHEEL_IOC_* -> (dir, nr, struct)."""
    structs = {}
    for m in re.finditer(r'^struct (\w+) \{\n(.*?)^\};', text, re.S | re.M):
        fields = []
        for fl in m.group(2).split('\n'):
            fl = re.sub(r'/\*.*?\*/', '', fl).strip()
            if not fl:
                continue
            fm = re.match(r'^(struct \w+|__[us](?:8|16|32|64))\s+(\w+)'
                          r'(\[\w+\])?;$', fl)
            if not fm:
                fields.append(('?', fl))
                continue
            fields.append((fm.group(1) + (fm.group(3) or ''), fm.group(2)))
        structs[m.group(1)] = fields
    iocs = {}
    for m in re.finditer(r'^#define\s+(TWHEEL_IOC_\w+)\s+_IO(R|W|WR)\(\s*'
                         r'TWHEEL_IOC_TYPE\s*,\s*(\w+)\s*,\s*struct\s+(\w+)'
                         r'\s*\)', text, re.M):
        iocs[m.group(1)] = ({'R': 2, 'W': 1, 'WR': 3}[m.group(2)],
                            int(m.group(3), 0), m.group(4))
    others = [m.group(1) for m in
              re.finditer(r'^#define\s+(TWHEEL_IOC_\w+)\s+_IO', text, re.M)
              if m.group(1) not in iocs]
    return structs, iocs, others


def c_probe(header, desc, consts, hstructs, cc, workdir):
    """Compile and run a program that prints what the header says."""
    inc = os.path.join(workdir, 'inc')
    os.makedirs(os.path.join(inc, 'linux'), exist_ok=True)
    shutil.copyfile(header, os.path.join(inc, 'linux', 'twheel.h'))
    out = ['#include <stddef.h>', '#include <stdio.h>', '#include <fcntl.h>',
           '#include <time.h>', '#include <sys/mman.h>',
           '#include <sys/syscall.h>',
           '#include <linux/twheel.h>', '',
           '#define C(x) printf("const %s %llu\\n", #x, '
           '(unsigned long long)(long long)(x))',
           '#define S(s) printf("sizeof %s %zu\\n", #s, sizeof(struct s))',
           '#define F(s, f) printf("field %s %s %zu %zu\\n", #s, #f, '
           'offsetof(struct s, f), sizeof(((struct s *)0)->f))',
           '#define I(x) printf("ioc %s %u %u %u %u\\n", #x, _IOC_DIR(x), '
           '_IOC_TYPE(x), _IOC_NR(x), _IOC_SIZE(x))',
           '', 'int main(void)', '{']
    for name in sorted(consts):
        out.append('\tC(%s);' % name)
    for name in sorted(desc.structs):
        if name not in hstructs:
            continue
        out.append('\tS(%s);' % name)
        hnames = {f for _, f in hstructs[name]}
        for fname, _, _, _ in desc.structs[name]['fields']:
            if fname in hnames:
                out.append('\tF(%s, %s);' % (name, fname))
    for name in sorted(consts):
        if name.startswith('TWHEEL_IOC_') and name != 'TWHEEL_IOC_TYPE':
            out.append('\tI(%s);' % name)
    out += ['\treturn 0;', '}', '']
    src = os.path.join(workdir, 'probe.c')
    exe = os.path.join(workdir, 'probe')
    with open(src, 'w') as f:
        f.write('\n'.join(out))
    r = subprocess.run([cc, '-std=gnu11', '-Wall', '-I', inc, '-o', exe, src],
                       capture_output=True, text=True)
    if r.returncode:
        return None, r.stderr
    r = subprocess.run([exe], capture_output=True, text=True)
    if r.returncode:
        return None, 'probe exited %d' % r.returncode
    res = {'const': {}, 'sizeof': {}, 'field': {}, 'ioc': {}}
    for line in r.stdout.split('\n'):
        p = line.split()
        if not p:
            continue
        if p[0] == 'const':
            res['const'][p[1]] = int(p[2])
        elif p[0] == 'sizeof':
            res['sizeof'][p[1]] = int(p[2])
        elif p[0] == 'field':
            res['field'][(p[1], p[2])] = (int(p[3]), int(p[4]))
        elif p[0] == 'ioc':
            res['ioc'][p[1]] = tuple(int(x) for x in p[2:6])
    return res, None


def ioc_decode(cmd):
    return ((cmd >> 30) & 3, (cmd >> 8) & 0xff, cmd & 0xff,
            (cmd >> 16) & 0x3fff)


def cross_check(tap, desc, consts, htext, hstructs, hiocs, ioctls, res):
    """Report the checks of the compiled probe's results res to tap."""
    def layout(name):
        s = desc.structs.get(name)
        return s.get('layout') if s else None

    def arg_type_size(t):
        if t.name in desc.structs:
            lay = layout(t.name)
            return lay[0] if lay else None
        if t.name == 'array' and len(t.args) == 2 and \
                not isinstance(t.args[1], Range):
            el = t.args[0]
            esz = (INT_TYPES.get(el.name) or
                   (layout(el.name)[0] if layout(el.name) else None))
            n = t.args[1] if isinstance(t.args[1], int) else \
                consts.get(name_of(t.args[1]))
            return esz * n if esz is not None and n is not None else None
        return INT_TYPES.get(t.name)

    # Each ioctl of the header: number, direction, size, argument struct.
    errs = []
    for name in sorted(hiocs):
        sc = ioctls.get(name)
        if not sc or name not in consts:
            continue
        hdir, hnr, hstruct = hiocs[name]
        cdir, ctype, cnr, csize = res['ioc'][name]
        if consts[name] != res['const'][name]:
            errs.append('%s: .const says %#x, the header %#x' %
                        (name, consts[name], res['const'][name]))
        if (cdir, cnr) != (hdir, hnr) or ctype != 0xBA:
            errs.append('%s: header parse and compiler disagree' % name)
        ptr = sc['args'][2][1]
        if ptr.name != 'ptr' or len(ptr.args) != 2:
            errs.append('ioctl$%s: argument is not a ptr' % name)
            continue
        if ptr.args[0].name != IOC_DIR_PTR[cdir]:
            errs.append('ioctl$%s: ptr[%s, ...] but the command is %s' %
                        (name, ptr.args[0].name,
                         {1: '_IOW', 2: '_IOR', 3: '_IOWR'}[cdir]))
        if ptr.args[1].name != hstruct:
            errs.append('ioctl$%s: argument %s, the header says struct %s' %
                        (name, ptr.args[1].name, hstruct))
        dsz = arg_type_size(ptr.args[1])
        if dsz != csize:
            errs.append('ioctl$%s: description size %s, _IOC_SIZE %d' %
                        (name, dsz, csize))
    tap.result('ioctls', errs)

    # Every struct of the description that the header has: same fields, in
    # order, same sizes and offsets, same size.
    errs = []
    described = 0
    for name, s in sorted(desc.structs.items()):
        if name not in hstructs:
            continue
        described += 1
        lay = s.get('layout')
        if not lay:
            errs.append('%s: no layout' % name)
            continue
        size, _, offs = lay
        dnames = [f[0] for f in s['fields']]
        hnames = [f for _, f in hstructs[name]]
        if dnames != hnames:
            errs.append('%s: fields %s, the header has %s' %
                        (name, ' '.join(dnames), ' '.join(hnames)))
        for fname in dnames:
            if (name, fname) not in res['field']:
                continue
            coff, csz = res['field'][(name, fname)]
            doff, dsz = offs[fname]
            if (doff, dsz) != (coff, csz):
                errs.append('%s.%s: description offset %s size %s, C '
                            'offset %d size %d' % (name, fname, doff, dsz,
                                                   coff, csz))
        if size != res['sizeof'][name]:
            errs.append('%s: description size %s, sizeof %d' %
                        (name, size, res['sizeof'][name]))
    # Every struct an ioctl or read takes is described.
    for name in sorted({v[2] for v in hiocs.values()} | {'twheel_event',
                                                         'twheel_status',
                                                         'twheel_op'}):
        if name not in desc.structs:
            errs.append('struct %s is not described' % name)
    if not described:
        errs.append('no struct of the header is described')
    tap.result('structs', errs)

    # Every constant: the .const value is the headers' value.
    errs = []
    for name in sorted(consts):
        if name in res['const']:
            if consts[name] != res['const'][name]:
                errs.append('%s: .const %d, headers %d' %
                            (name, consts[name], res['const'][name]))
    # Every TWHEEL_* flag/limit constant the header defines and the
    # description could use is in the .const file (a new flag must be
    # described).
    for m in re.finditer(r'^#define\s+(TWHEEL_(?:[A-Z_]+))\s+0x[0-9a-fA-F]+U?'
                         r'L*\b|^#define\s+(TWHEEL_(?:[A-Z_]+))\s+[0-9]+U?L*\b',
                         htext, re.M):
        name = m.group(1) or m.group(2)
        if name in ('TWHEEL_ABI_VERSION', 'TWHEEL_MAX_BATCH',
                    'TWHEEL_IOC_TYPE'):
            continue
        if name not in consts:
            errs.append('%s (header) is not in the description' % name)
    tap.result('consts', errs)

    # op_size/status_size/event_size fields: const[] equal to that struct.
    errs = []
    for name, s in sorted(desc.structs.items()):
        for fname, ftype, _, line in s['fields']:
            m = re.match(r'^(\w+)_size$', fname)
            if not m or ftype.name != 'const':
                continue
            target = 'twheel_' + m.group(1)
            lay = layout(target)
            v = name_of(ftype.args[0])
            v = consts.get(v, v) if not isinstance(v, int) else v
            if not lay or lay[0] != v:
                errs.append('%s.%s = %s, %s is %s bytes' %
                            (name, fname, v, target, lay and lay[0]))
            elif res['sizeof'].get(target) != v:
                errs.append('%s.%s = %s, sizeof(struct %s) is %s' %
                            (name, fname, v, target,
                             res['sizeof'].get(target)))
    tap.result('size_fields', errs)

    # ioctl variants with a literal command number (older or newer struct
    # sizes): the direction, type and number of the named command, the
    # size of the argument described.
    errs = []
    for vname, sc in sorted(ioctls.items()):
        if vname in hiocs:
            continue
        cmd = sc['args'][1][1]
        if cmd.name != 'const' or not cmd.args or \
                not isinstance(cmd.args[0], int):
            errs.append('ioctl$%s: not a TWHEEL_IOC_* name and no literal '
                        'command' % vname)
            continue
        base = re.sub(r'_v\d+$', '', vname)
        if base not in hiocs:
            errs.append('ioctl$%s: no command %s in the header' %
                        (vname, base))
            continue
        d, t, nr, sz = ioc_decode(cmd.args[0])
        bdir, _, bnr, _ = res['ioc'][base]
        if (d, t, nr) != (bdir, 0xBA, bnr):
            errs.append('ioctl$%s: %#x is not %s with another size' %
                        (vname, cmd.args[0], base))
        ptr = sc['args'][2][1]
        dsz = arg_type_size(ptr.args[1]) if ptr.name == 'ptr' else None
        if dsz != sz:
            errs.append('ioctl$%s: size %d in the command, %s described' %
                        (vname, sz, dsz))
        if ptr.name == 'ptr' and ptr.args[0].name != IOC_DIR_PTR.get(d):
            errs.append('ioctl$%s: pointer direction %s' %
                        (vname, ptr.args[0].name))
    tap.result('size_variants', errs)
