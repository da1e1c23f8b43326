#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# tests/syz/syz_parse.py - the subset of syzlang that tests/syz/twheel.txt
# uses: the tokenizer, the line parser (include, resource, flags, struct,
# union, syscall) into a Desc, the names syzkaller itself defines, and the
# .const file parser. Raises SyzError on a syntax error. Imported by
# tests/syz/check.py (the entry point); Python 3 standard library.

import re

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


# Type names the checker knows (tests/syz/syz_types.py); no declaration may
# reuse one.
BUILTINS = ('const', 'flags', 'len', 'bytesize', 'ptr', 'ptr64', 'buffer',
            'array', 'string', 'void', 'vma')


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
