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
import re
import shutil
import subprocess
import sys
import tempfile

TOP = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                    '..', '..'))

INT_TYPES = {'int8': 1, 'int16': 2, 'int32': 4, 'int64': 8, 'intptr': 8}
PTR_SIZE = 8                 # amd64
DIRS = ('in', 'out', 'inout')
FIELD_ATTRS = set(DIRS)
STRUCT_ATTRS = ('packed',)
# Syscalls this description may specialise ($variant): name -> arg count.
BASE_SYSCALLS = {'openat': 4, 'read': 3, 'ioctl': 3, 'mmap': 6,
                 'syz_memcpy_off': 5}
# Pseudo-syscalls of syzkaller's executor: no __NR_ number.
PSEUDO_SYSCALLS = ('syz_memcpy_off',)
# Resources syzkaller itself defines (sys/linux/sys.txt), by base type.
BUILTIN_RESOURCES = {'fd': 'int32'}
# IOC direction bits (asm-generic/ioctl.h) and the pointer each needs.
IOC_DIR_PTR = {1: 'in', 2: 'out', 3: 'inout'}


class SyzError(Exception):
    def __init__(self, line, msg):
        super().__init__('line %d: %s' % (line, msg))
        self.line = line


# ----------------------------------------------------------------------
# Lexing and parsing

TOKEN_RE = re.compile(r'''
    (?P<ws>[ \t]+)
  | (?P<str>"[^"\n]*")
  | (?P<num>-?0x[0-9a-fA-F]+|-?[0-9]+)
  | (?P<ident>[A-Za-z_][A-Za-z0-9_]*)
  | (?P<punct>[\[\](){}<>,:=$./])
''', re.X)


def tokenize(text, lineno):
    toks = []
    pos = 0
    while pos < len(text):
        m = TOKEN_RE.match(text, pos)
        if not m:
            raise SyzError(lineno, 'unexpected character %r' % text[pos])
        pos = m.end()
        kind = m.lastgroup
        if kind == 'ws':
            continue
        toks.append((kind, m.group(kind)))
    return toks


def strip_comment(line):
    out = []
    in_str = False
    for ch in line:
        if ch == '"':
            in_str = not in_str
        if ch == '#' and not in_str:
            break
        out.append(ch)
    return ''.join(out).rstrip()


class Type:
    """A type expression: name[args]; an arg is a Type, int, str or range."""

    def __init__(self, name, args, line):
        self.name = name
        self.args = args
        self.line = line

    def __repr__(self):
        if not self.args:
            return self.name
        return '%s[%s]' % (self.name, ', '.join(map(repr, self.args)))


class Range:
    def __init__(self, lo, hi):
        self.lo = lo
        self.hi = hi

    def __repr__(self):
        return '%r:%r' % (self.lo, self.hi)


class Parser:
    def __init__(self, toks, line):
        self.toks = toks
        self.i = 0
        self.line = line

    def peek(self, k=0):
        j = self.i + k
        return self.toks[j] if j < len(self.toks) else (None, None)

    def take(self, kind=None, value=None):
        tok = self.peek()
        if tok[0] is None:
            raise SyzError(self.line, 'unexpected end of line')
        if (kind and tok[0] != kind) or (value and tok[1] != value):
            raise SyzError(self.line, 'expected %s, got %r' %
                           (value or kind, tok[1]))
        self.i += 1
        return tok[1]

    def at(self, value):
        return self.peek()[1] == value

    def done(self):
        return self.i >= len(self.toks)

    def expect_end(self):
        if not self.done():
            raise SyzError(self.line, 'trailing %r' % self.peek()[1])

    def value(self):
        """An int, a constant name or a string (flag values, resource
        specials, const[] and array sizes)."""
        kind, val = self.peek()
        if kind == 'num':
            self.i += 1
            return int(val, 0)
        if kind == 'ident':
            self.i += 1
            return val
        if kind == 'str':
            self.i += 1
            return val
        raise SyzError(self.line, 'expected a value, got %r' % val)

    def type_arg(self):
        kind, val = self.peek()
        if kind == 'num' or (kind == 'ident' and self.peek(1)[1] == ':'
                             and self.peek(2)[0] in ('num', 'ident')):
            lo = self.value()
            if self.at(':'):
                self.take()
                return Range(lo, self.value())
            return lo
        if kind == 'str':
            self.i += 1
            return val
        return self.type_expr()

    def type_expr(self):
        name = self.take('ident')
        args = []
        if self.at('['):
            self.take()
            while True:
                args.append(self.type_arg())
                if self.at(','):
                    self.take()
                    continue
                self.take('punct', ']')
                break
        return Type(name, args, self.line)


def name_of(v):
    """A bare identifier argument (parsed as a type) as its name."""
    if isinstance(v, Type) and not v.args:
        return v.name
    return v


class Desc:
    def __init__(self):
        self.includes = []
        self.resources = {}     # name -> (base Type, [specials], line)
        self.flags = {}         # name -> ([values], line)
        self.structs = {}       # name -> dict(kind, fields, attrs, line)
        self.syscalls = []      # dict(name, base, args, ret, line)


def next_line(lines, i):
    """The first line at or after index i that is not blank once its
    comment is stripped: (its number, its tokens, the index after it), or
    None at the end."""
    while i < len(lines):
        raw = strip_comment(lines[i])
        i += 1
        if raw.strip():
            return i, tokenize(raw, i), i
    return None


def parse(text):
    desc = Desc()
    lines = text.split('\n')
    i = 0
    while True:
        got = next_line(lines, i)
        if got is None:
            break
        lineno, toks, i = got
        p = Parser(toks, lineno)
        head = p.peek()[1]
        if head in ('include', 'incdir'):
            p.take()
            p.take('punct', '<')
            path = []
            while not p.at('>'):
                path.append(p.take())
            p.take('punct', '>')
            p.expect_end()
            desc.includes.append(''.join(path))
            continue
        if head == 'resource':
            p.take()
            name = p.take('ident')
            p.take('punct', '[')
            base = p.type_expr()
            p.take('punct', ']')
            specials = []
            if p.at(':'):
                p.take()
                specials.append(p.value())
                while p.at(','):
                    p.take()
                    specials.append(p.value())
            p.expect_end()
            check_new_name(desc, name, lineno)
            desc.resources[name] = (base, specials, lineno)
            continue
        if head in ('type', 'define', 'meta'):
            raise SyzError(lineno, '%r is outside the subset check.py knows'
                           % head)
        name = p.take('ident')
        if p.at('='):
            p.take()
            vals = [p.value()]
            while p.at(','):
                p.take()
                vals.append(p.value())
            p.expect_end()
            if any(isinstance(v, str) and v.startswith('"') for v in vals):
                raise SyzError(lineno, 'string flags are not supported')
            check_new_name(desc, name, lineno)
            desc.flags[name] = (vals, lineno)
            continue
        if p.at('{') or (p.at('[') and p.i + 1 == len(p.toks)):
            kind = 'struct' if p.take() == '{' else 'union'
            p.expect_end()
            close = '}' if kind == 'struct' else ']'
            fields = []
            seen = set()
            while True:
                got = next_line(lines, i)
                if got is None:
                    raise SyzError(lineno, 'unterminated %s %s' % (kind, name))
                flineno, ftoks, i = got
                fp = Parser(ftoks, flineno)
                if fp.at(close):
                    fp.take()
                    attrs = []
                    if fp.at('['):
                        fp.take()
                        attrs.append(fp.take('ident'))
                        while fp.at(','):
                            fp.take()
                            attrs.append(fp.take('ident'))
                        fp.take('punct', ']')
                    fp.expect_end()
                    for a in attrs:
                        if a not in STRUCT_ATTRS:
                            raise SyzError(flineno, 'unknown attribute %r' % a)
                    break
                fname = fp.take('ident')
                ftype = fp.type_expr()
                fattrs = []
                if fp.at('('):
                    fp.take()
                    while not fp.at(')'):
                        fattrs.append(fp.take('ident'))
                    fp.take('punct', ')')
                fp.expect_end()
                if fname in seen:
                    raise SyzError(flineno, 'duplicate field %s in %s' %
                                   (fname, name))
                if fname == 'parent':
                    raise SyzError(flineno, 'reserved field name parent')
                for a in fattrs:
                    if a not in FIELD_ATTRS:
                        raise SyzError(flineno, 'unknown field attribute %r'
                                       % a)
                if len(fattrs) > 1:
                    raise SyzError(flineno, 'more than one direction')
                if kind == 'union' and fattrs:
                    raise SyzError(flineno, 'direction in a union')
                seen.add(fname)
                fields.append((fname, ftype, fattrs[0] if fattrs else None,
                               flineno))
            if not fields:
                raise SyzError(lineno, '%s %s has no fields' % (kind, name))
            check_new_name(desc, name, lineno)
            desc.structs[name] = dict(kind=kind, fields=fields, attrs=attrs,
                                      line=lineno)
            continue
        if p.at('$') or p.at('('):
            base = name
            variant = ''
            if p.at('$'):
                p.take()
                variant = p.take('ident')
            p.take('punct', '(')
            args = []
            seen = set()
            if not p.at(')'):
                while True:
                    aname = p.take('ident')
                    atype = p.type_expr()
                    if aname in seen:
                        raise SyzError(lineno, 'duplicate argument %s' % aname)
                    seen.add(aname)
                    args.append((aname, atype))
                    if p.at(','):
                        p.take()
                        continue
                    break
            p.take('punct', ')')
            ret = None
            if not p.done():
                ret = p.type_expr()
            p.expect_end()
            full = base + ('$' + variant if variant else '')
            if any(s['name'] == full for s in desc.syscalls):
                raise SyzError(lineno, 'syscall %s redeclared' % full)
            desc.syscalls.append(dict(name=full, base=base, args=args,
                                      ret=ret, line=lineno))
            continue
        raise SyzError(lineno, 'cannot parse %r' % raw.strip())
    return desc


def check_new_name(desc, name, line):
    if (name in desc.resources or name in desc.flags or
            name in desc.structs or name in INT_TYPES or
            name in BUILTIN_RESOURCES or name in BUILTINS):
        raise SyzError(line, '%s redeclared or a builtin name' % name)


# ----------------------------------------------------------------------
# Types: validation, directions, layout

BUILTINS = ('const', 'flags', 'len', 'bytesize', 'ptr', 'ptr64', 'buffer',
            'array', 'string', 'void', 'vma')


class Checker:
    def __init__(self, desc, consts):
        self.d = desc
        self.consts = consts
        self.errors = []
        self.used_consts = set()
        self.produced = set()
        self.consumed = set()
        self.used_types = set()

    def err(self, line, msg):
        self.errors.append('line %d: %s' % (line, msg))

    def const_value(self, v, line):
        v = name_of(v)
        if isinstance(v, int):
            return v
        if isinstance(v, str) and not v.startswith('"'):
            self.used_consts.add(v)
            if v not in self.consts:
                self.err(line, 'unknown constant %s (not in the .const file)'
                         % v)
                return 0
            return self.consts[v]
        self.err(line, 'expected an integer, got %r' % v)
        return 0

    def base_size(self, t, line, needed):
        """The int base type of const/flags/len; None when omitted."""
        if t is None:
            if needed:
                self.err(line, 'missing int base type (required in structs)')
            return PTR_SIZE
        if not isinstance(t, Type) or t.name not in INT_TYPES or t.args:
            self.err(line, 'bad int base type %r' % (t,))
            return PTR_SIZE
        return INT_TYPES[t.name]

    def resource_size(self, name, line, depth=0):
        if name in BUILTIN_RESOURCES:
            return INT_TYPES[BUILTIN_RESOURCES[name]]
        base = self.d.resources[name][0]
        if base.name in INT_TYPES:
            return INT_TYPES[base.name]
        if (base.name in self.d.resources or base.name in BUILTIN_RESOURCES) \
                and depth < 16:
            return self.resource_size(base.name, line, depth + 1)
        self.err(line, 'resource %s: bad base %r' % (name, base))
        return 8

    def check_type(self, t, direction, in_struct, siblings, line):
        """Validate t; note resources produced/consumed. Return (size,
        align); size None for a variable-length type."""
        if not isinstance(t, Type):
            self.err(line, 'expected a type, got %r' % (t,))
            return (0, 1)
        n = t.name
        a = t.args
        if n in INT_TYPES:
            if len(a) > 1:
                self.err(line, '%s takes at most a range' % n)
            if a and not isinstance(a[0], Range):
                self.err(line, '%s[...] must be a range lo:hi here' % n)
            if a and isinstance(a[0], Range):
                lo = self.const_value(a[0].lo, line)
                hi = self.const_value(a[0].hi, line)
                if lo > hi:
                    self.err(line, 'empty range %d:%d' % (lo, hi))
            return (INT_TYPES[n], INT_TYPES[n])
        if n in self.d.resources or n in BUILTIN_RESOURCES:
            if a:
                self.err(line, 'resource %s takes no arguments' % n)
            if direction in ('out', 'inout'):
                self.produced.add(n)
            if direction in ('in', 'inout'):
                self.consumed.add(n)
            sz = self.resource_size(n, line)
            return (sz, sz)
        if n == 'const':
            if not 1 <= len(a) <= 2:
                self.err(line, 'const[value, base]')
                return (8, 8)
            self.const_value(a[0], line)
            sz = self.base_size(a[1] if len(a) > 1 else None, line, in_struct)
            return (sz, sz)
        if n == 'flags':
            if not 1 <= len(a) <= 2:
                self.err(line, 'flags[set, base]')
                return (8, 8)
            sz = self.base_size(a[1] if len(a) > 1 else None, line, in_struct)
            if not isinstance(a[0], Type) or a[0].args or \
                    a[0].name not in self.d.flags:
                self.err(line, 'unknown flag set %r' % (a[0],))
            else:
                self.used_types.add(a[0].name)
                for v in self.d.flags[a[0].name][0]:
                    v = self.const_value(v, line)
                    if not -(1 << (8 * sz - 1)) <= v < (1 << (8 * sz)):
                        self.err(line, 'flag value %#x of %s does not fit '
                                 'in %d bytes' % (v, a[0].name, sz))
            return (sz, sz)
        if n in ('len', 'bytesize'):
            if not 1 <= len(a) <= 2:
                self.err(line, '%s[target, base]' % n)
                return (8, 8)
            if not isinstance(a[0], Type) or a[0].args or \
                    a[0].name not in siblings:
                self.err(line, '%s target %r is not a sibling' % (n, a[0]))
            sz = self.base_size(a[1] if len(a) > 1 else None, line, in_struct)
            return (sz, sz)
        if n in ('ptr', 'ptr64'):
            if len(a) != 2 or not isinstance(a[0], Type) or \
                    a[0].name not in DIRS:
                self.err(line, '%s[in|out|inout, type]' % n)
                return (8, 8)
            if n == 'ptr' and in_struct:
                self.err(line, 'ptr in a struct: use ptr64 for __u64 fields')
            self.check_type(a[1], a[0].name, False, {}, line)
            return (8 if n == 'ptr64' else PTR_SIZE,
                    8 if n == 'ptr64' else PTR_SIZE)
        if n == 'buffer':
            if len(a) != 1 or not isinstance(a[0], Type) or \
                    a[0].name not in DIRS:
                self.err(line, 'buffer[in|out|inout]')
            return (PTR_SIZE, PTR_SIZE)
        if n == 'array':
            if not 1 <= len(a) <= 2:
                self.err(line, 'array[type, size]')
                return (None, 1)
            esz, eal = self.check_type(a[0], direction, in_struct, {}, line)
            if len(a) == 2 and not isinstance(a[1], Range):
                cnt = self.const_value(a[1], line)
                if esz is None:
                    return (None, eal)
                return (esz * cnt, eal)
            if len(a) == 2:
                lo = self.const_value(a[1].lo, line)
                hi = self.const_value(a[1].hi, line)
                if lo > hi:
                    self.err(line, 'empty range')
            return (None, eal)
        if n == 'vma':
            # An address in syzkaller's data area (pages of its own).
            if a:
                self.err(line, 'vma takes no arguments here')
            return (PTR_SIZE, PTR_SIZE)
        if n == 'string':
            if len(a) != 1 or not isinstance(a[0], str):
                self.err(line, 'string["literal"]')
            return (None, 1)
        if n in self.d.structs:
            if a:
                self.err(line, 'struct %s takes no arguments' % n)
            self.used_types.add(n)
            return self.check_struct(n, direction)
        self.err(line, 'unknown type %s' % n)
        return (0, 1)

    def check_struct(self, name, direction):
        s = self.d.structs[name]
        siblings = {f[0]: f for f in s['fields']}
        packed = 'packed' in s['attrs']
        off = 0
        align = 1
        size_known = True
        offsets = {}
        for fname, ftype, fdir, line in s['fields']:
            fsz, fal = self.check_type(ftype, fdir or direction, True,
                                       siblings, line)
            if packed:
                fal = 1
            if s['kind'] == 'struct':
                if not size_known:
                    self.err(line, 'field after a variable-length one needs '
                             'a packed struct')
                off = (off + fal - 1) // fal * fal
                offsets[fname] = (off, fsz)
                if fsz is None:
                    size_known = False
                else:
                    off += fsz
            else:
                offsets[fname] = (0, fsz)
                if fsz is None:
                    size_known = False
                else:
                    off = max(off, fsz)
            align = max(align, fal)
        size = (off + align - 1) // align * align if size_known else None
        s['layout'] = (size, align, offsets)
        return (size, align)

    def run(self):
        for name, (base, specials, line) in self.d.resources.items():
            if base.args or not (base.name in INT_TYPES or
                                 base.name in self.d.resources or
                                 base.name in BUILTIN_RESOURCES):
                self.err(line, 'resource %s: base must be an int or a '
                         'resource' % name)
            for v in specials:
                self.const_value(v, line)
        for name, (vals, line) in self.d.flags.items():
            for v in vals:
                self.const_value(v, line)
        for sc in self.d.syscalls:
            line = sc['line']
            if sc['base'] not in BASE_SYSCALLS:
                self.err(line, 'unknown syscall %s' % sc['base'])
            elif len(sc['args']) != BASE_SYSCALLS[sc['base']]:
                self.err(line, '%s takes %d arguments' %
                         (sc['base'], BASE_SYSCALLS[sc['base']]))
            if sc['base'] not in PSEUDO_SYSCALLS and \
                    '__NR_' + sc['base'] not in self.consts:
                self.err(line, '__NR_%s is not in the .const file' %
                         sc['base'])
            siblings = {a[0]: a for a in sc['args']}
            for aname, atype in sc['args']:
                if atype.name in self.d.structs:
                    self.err(line, 'struct %s as a syscall argument (needs a '
                             'pointer)' % atype.name)
                self.check_type(atype, 'in', False, siblings, line)
            if sc['ret'] is not None:
                r = sc['ret']
                if r.name not in self.d.resources or r.args:
                    self.err(line, 'return type must be a resource')
                else:
                    self.produced.add(r.name)
        for name, s in self.d.structs.items():
            if name not in self.used_types:
                self.err(s['line'], 'unused %s %s' % (s['kind'], name))
            elif 'layout' not in s:
                self.check_struct(name, 'in')
        for name, (vals, line) in self.d.flags.items():
            if name not in self.used_types:
                self.err(line, 'unused flags %s' % name)
        for name, (base, specials, line) in self.d.resources.items():
            if name not in self.produced:
                self.err(line, 'resource %s is never produced' % name)
            if name not in self.consumed:
                self.err(line, 'resource %s is never consumed' % name)
        return self.errors


def parse_consts(text):
    consts = {}
    errors = []
    for n, raw in enumerate(text.split('\n'), 1):
        line = raw.split('#', 1)[0].strip()
        if not line:
            continue
        m = re.match(r'^([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.+)$', line)
        if not m:
            errors.append('const line %d: cannot parse %r' % (n, raw))
            continue
        name, val = m.group(1), m.group(2).strip()
        if name == 'arches':
            if 'amd64' not in [a.strip() for a in val.split(',')]:
                errors.append('const line %d: no amd64' % n)
            continue
        # "123", or per arch "amd64:123, 386:456" (the amd64 one counts).
        v = None
        for part in val.split(','):
            part = part.strip()
            if ':' in part:
                arch, num = part.split(':', 1)
                if arch.strip() == 'amd64':
                    v = num.strip()
            elif v is None:
                v = part
        try:
            consts[name] = int(v, 0)
        except (TypeError, ValueError):
            errors.append('const line %d: bad value %r' % (n, val))
    return consts, errors


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


def ioc_decode(cmd):
    return ((cmd >> 30) & 3, (cmd >> 8) & 0xff, cmd & 0xff,
            (cmd >> 16) & 0x3fff)


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

    print('RESULT %d %d %d' % (tap.passed, tap.failed, tap.skipped))
    return 1 if tap.failed else 0


if __name__ == '__main__':
    sys.exit(main())
