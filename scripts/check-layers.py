#!/usr/bin/python3
# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
"""Checks that user/ keeps its layers (doc/design.md "Layers").

usage: check-layers.py LAYERS OBJDIR

LAYERS is the order from the bottom, space-separated (the Makefile's
LAYERS); OBJDIR holds the objects of user/ (OUTPUT/user), read with nm.
Every rule below is checked on the sources and, where objects are given,
on what the objects define and call; each breach is printed as
"check-layers: FILE: what" and the exit status is 1 if there was one.

  1. Every source is in a layer folder: user/LAYER/NAME.c or .h (and
     nothing else at user/'s top but the man pages).
  2. A file includes user headers with their folder ("kernel/pin.h"), and
     only headers of its own layer or of the layers below it.
  3. No cycle between modules (a module is NAME.c with NAME.h), neither
     through includes nor through calls.
  4. A call goes to the own layer or down, never up.
  5. One .c, one .h: a function or variable a module exports is declared
     in its own header, and a header declares only its own module's; a
     .c with exported symbols has its header; a symbol no other object
     uses and no header declares is static.
  6. No file of user/cmd/ includes a user/kernel/ header: a verb parses
     its options, calls ops/ for the kernel work and renders through
     out/.
  7. A module's private header, NAME_priv.h (its struct's fields, the
     calls its files make of each other), is part of module NAME and is
     included only by NAME.c and the files split from it (NAME_*.c of
     the same folder): no other file reads those fields.
"""
import os
import re
import subprocess
import sys

errors = []


def fail(path, what):
    errors.append(f"check-layers: {path}: {what}")


def sources(root):
    out = []
    for dirpath, _, files in os.walk(root):
        for f in files:
            out.append(os.path.join(dirpath, f))
    return sorted(out)


INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
# A declaration at column 0 (kernel style puts the return type and the
# name on one line): "int bw_x(", "const char *bw_x(", "extern ... bw_x;"
DECL = re.compile(r'^(?!static\b)(?!#)[A-Za-z_][\w \t\*]*?\b(bw_\w+)\s*[\(\[;]',
                  re.M)
COMMENT = re.compile(r'/\*.*?\*/|//[^\n]*', re.S)


def strip_comments(text):
    return COMMENT.sub('', text)


PRIV = '_priv'


def module_of(path):
    """user/LAYER/NAME.[ch] -> (LAYER, LAYER/NAME); NAME_priv.h is NAME's."""
    parts = path.split(os.sep)
    layer = parts[1]
    name = os.path.splitext(parts[2])[0]
    if path.endswith('.h') and name.endswith(PRIV):
        name = name[:-len(PRIV)]
    return layer, f"{layer}/{name}"


def private_reader(path, inc):
    """Whether path may include the private header inc (rule 7)."""
    owner = os.path.splitext(inc)[0][:-len(PRIV)]
    rel = os.path.relpath(path, 'user')
    return re.fullmatch(re.escape(owner) + r'(_\w+)?\.c', rel) is not None


def find_cycles(graph):
    """Strongly connected components with more than one module (Tarjan)."""
    index, low, stack, on, comps = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                comps.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in sorted(graph):
        if v not in index:
            visit(v)
    return comps


def check_sources(layers):
    rank = {l: i for i, l in enumerate(layers)}
    modules = {}
    incl = {}
    for path in sources('user'):
        rel = path.split(os.sep)
        if len(rel) == 2:
            if path not in ('user/bloomwall.8', 'user/bloomwall.yaml.5'):
                fail(path, "not in a layer folder (user/LAYER/)")
            continue
        if len(rel) != 3 or rel[1] not in rank:
            fail(path, f"not in a layer folder ({' '.join(layers)})")
            continue
        if not path.endswith(('.c', '.h')):
            fail(path, "not a .c or .h file")
            continue
        layer, mod = module_of(path)
        modules.setdefault(mod, []).append(path)
        incl.setdefault(mod, set())
        text = open(path, encoding='utf-8').read()
        for inc in INCLUDE.findall(text):
            if '/' not in inc:
                if os.path.exists(os.path.join('include', inc)) or \
                   inc.endswith('.skel.h'):
                    continue
                fail(path, f'includes "{inc}" without its folder')
                continue
            ilayer = inc.split('/')[0]
            if ilayer not in rank:
                fail(path, f'includes "{inc}": not a layer')
                continue
            if not os.path.exists(os.path.join('user', inc)):
                fail(path, f'includes "{inc}", which does not exist')
                continue
            if rank[ilayer] > rank[layer]:
                fail(path, f'includes "{inc}": {ilayer}/ is above {layer}/')
            if layer == 'cmd' and ilayer == 'kernel':
                fail(path, f'includes "{inc}": a verb\'s kernel work '
                     'is in ops/')
            if os.path.splitext(inc)[0].endswith(PRIV) and \
               not private_reader(path, inc):
                fail(path, f'includes "{inc}": private to '
                     f'{inc[:-len(PRIV) - 2]}*.c')
            _, imod = module_of(os.path.join('user', inc))
            if imod != mod:
                incl[mod].add(imod)
    for comp in find_cycles(incl):
        fail(comp[0] + '.[ch]',
             "include cycle between " + ', '.join(comp))
    return modules, incl, rank


def nm(obj):
    out = subprocess.run(['nm', obj], capture_output=True, text=True,
                         check=True).stdout
    defs, uses = set(), set()
    for line in out.splitlines():
        f = line.split()
        if len(f) == 3 and f[1] in 'TDBRV':
            defs.add(f[2])
        elif len(f) == 2 and f[0] == 'U':
            uses.add(f[1])
    return defs, uses


def header_decls(path):
    if not os.path.exists(path):
        return set()
    return set(DECL.findall(strip_comments(open(path, encoding='utf-8').read())))


def module_decls(mod):
    """What a module's headers declare: NAME.h and NAME_priv.h."""
    return header_decls(f"user/{mod}.h") | header_decls(f"user/{mod}{PRIV}.h")


def check_objects(objdir, modules, rank):
    defs, uses = {}, {}
    for mod in modules:
        obj = os.path.join(objdir, mod + '.o')
        if os.path.exists(obj):
            defs[mod], uses[mod] = nm(obj)
    owner = {}
    for mod, ds in defs.items():
        for s in ds:
            owner[s] = mod
    calls = {m: set() for m in defs}
    used_elsewhere = set()
    for mod, us in uses.items():
        for s in us:
            other = owner.get(s)
            if not other or other == mod:
                continue
            used_elsewhere.add(s)
            calls[mod].add(other)
            ol, ml = other.split('/')[0], mod.split('/')[0]
            if rank[ol] > rank[ml]:
                fail(f"user/{mod}.c", f"calls {s} of {other}.c: "
                     f"{ol}/ is above {ml}/")
    for comp in find_cycles(calls):
        fail(comp[0] + '.c', "call cycle between " + ', '.join(comp))
    for mod, ds in sorted(defs.items()):
        own = module_decls(mod)
        for s in sorted(ds):
            if s == 'main' or s.startswith('__'):
                continue
            if s in own:
                continue
            if s in used_elsewhere:
                fail(f"user/{mod}.c", f"{s} is used elsewhere but not "
                     f"declared in {mod}.h")
            else:
                fail(f"user/{mod}.c", f"{s} is used nowhere else and "
                     "declared in no header: make it static")
    for mod in sorted(modules):
        for s in sorted(module_decls(mod)):
            other = owner.get(s)
            if other and other != mod:
                fail(f"user/{mod}.h", f"declares {s}, which {other}.c "
                     "defines")


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__.split('\n\n')[1])
    layers = sys.argv[1].split()
    modules, _, rank = check_sources(layers)
    check_objects(sys.argv[2], modules, rank)
    for e in errors:
        print(e, file=sys.stderr)
    if errors:
        print(f"check-layers: {len(errors)} breaches of the layers",
              file=sys.stderr)
        sys.exit(1)
    print(f"check-layers: ok ({len(modules)} modules in "
          f"{len(layers)} layers)")


if __name__ == '__main__':
    main()
