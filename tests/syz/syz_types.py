#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# tests/syz/syz_types.py - the type checker of the parsed description:
# every type and constant known, directions, resources produced and
# consumed, and each struct's layout (size, alignment, field offsets, as
# syzkaller lays it out on amd64). Imported by tests/syz/check.py; Python 3
# standard library.

from syz_parse import (BASE_SYSCALLS, BUILTIN_RESOURCES, DIRS, INT_TYPES,
                       PSEUDO_SYSCALLS, PTR_SIZE, Range, Type, name_of)


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
