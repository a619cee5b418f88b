#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""No circles in user space's #include graph (issue 47): no two source files,
and no two folders, depend on each other both ways.

A module is x.c with its header x.h next to it (or a header alone). Module a
depends on module b when a.c or a.h includes b.h (quote includes, relative to
the repository root, e.g. "stats/read/snapshot.h"); includes outside the
folders checked (the ABI, generated skeletons, system headers) are left out.
A folder (a file's directory: loader, stats/read) depends on another when one
of its modules does.

Reported, one line each, then the #include lines that make it (indented):
  circle: a.c -> b.c -> a.c                a cycle of modules
  folder circle: x -> y -> x               a cycle of folders
  declared elsewhere: f() defined in a.c, declared in b.h
                                           a function declared in the header
                                           of another module (or of another
                                           folder): its callers include b.h,
                                           and the graph would miss a.c
Every edge that lies on a cycle is shown in one cycle at least. A header
without a .c (stats/families/families.h) may declare the functions of its
own folder's files: it stands for the folder, whose circles with other
folders still show.

Usage: include_graph.py [--root DIR] [--dirs "lib nic ..."] [--known LINE]...
                        [--folders]
  --root     the tree (default: this repository)
  --dirs     the folders to check (default: USER_DIRS of ROOT/Makefile)
  --known    a line above known and left for later, to be shown but not
             counted (* matches any text); one that matches nothing counts
  --folders  print the folder graph ("a -> b (n includes)") and stop
Exit 0 with one count line when clean, 1 when anything is reported.
"""
import argparse
import fnmatch
import os
import re
import sys
from collections import deque

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')
USER_DIRS = re.compile(r"^USER_DIRS\s*:?=\s*(.*)$")
FALLBACK_DIRS = ("lib nic loader stats/read stats/format stats/families stats/analysis "
                 "stats/render export cli")


def user_dirs(root):
    try:
        with open(os.path.join(root, "Makefile")) as f:
            for line in f:
                m = USER_DIRS.match(line.strip())
                if m:
                    return m.group(1).split()
    except OSError:
        pass
    return FALLBACK_DIRS.split()


class Graph:
    def __init__(self, root, dirs):
        self.root = root
        self.dirs = [d.strip("/") for d in dirs]
        self.files = {}  # module -> [its files, .c first]
        for d in self.dirs:
            try:
                names = sorted(os.listdir(os.path.join(root, d)))
            except OSError:
                continue
            for n in names:
                if n.endswith(".c") or n.endswith(".h"):
                    mod = d + "/" + n[:-2]
                    self.files.setdefault(mod, []).append(d + "/" + n)
        for fl in self.files.values():
            fl.sort(key=lambda p: not p.endswith(".c"))
        # module -> {module: ["file:line: #include "x.h"", ...]}
        self.deps = {m: {} for m in self.files}
        for mod, fl in self.files.items():
            for path in fl:
                for lineno, inc in self.includes(path):
                    dep = self.resolve(path, inc)
                    if dep is None or dep == mod:
                        continue
                    why = '%s:%d: #include "%s"' % (path, lineno, inc)
                    self.deps[mod].setdefault(dep, []).append(why)

    def includes(self, path):
        out = []
        with open(os.path.join(self.root, path), errors="replace") as f:
            for i, line in enumerate(f, 1):
                m = INCLUDE.match(line)
                if m:
                    out.append((i, m.group(1)))
        return out

    def resolve(self, path, inc):
        """The module a quote include names, or None if it is not checked."""
        if not inc.endswith(".h"):
            return None
        for cand in (inc, os.path.normpath(os.path.join(os.path.dirname(path), inc))):
            mod = cand[:-2]
            if mod in self.files and os.path.isfile(os.path.join(self.root, cand)):
                return mod
        return None

    def name(self, mod):
        return self.files[mod][0]


def sccs(nodes, edges):
    """Strongly connected components (Tarjan, iterative), each sorted."""
    index, low, on, stack, out = {}, {}, set(), [], []
    counter = [0]
    for start in sorted(nodes):
        if start in index:
            continue
        work = [(start, iter(sorted(edges.get(start, ()))))]
        index[start] = low[start] = counter[0]
        counter[0] += 1
        stack.append(start)
        on.add(start)
        while work:
            v, it = work[-1]
            advanced = False
            for w in it:
                if w not in index:
                    index[w] = low[w] = counter[0]
                    counter[0] += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(edges.get(w, ())))))
                    advanced = True
                    break
                if w in on:
                    low[v] = min(low[v], index[w])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                out.append(sorted(comp))
    return out


def cycles(nodes, edges):
    """Cycles that together cover every edge lying on a cycle: for each such
    edge u -> v not yet shown, the shortest way back from v to u."""
    out = []
    for comp in sccs(nodes, edges):
        if len(comp) < 2:
            continue
        inside = set(comp)
        covered = set()
        for u in comp:
            for v in sorted(edges.get(u, ())):
                if v not in inside or (u, v) in covered:
                    continue
                prev = {v: None}
                q = deque([v])
                while q and u not in prev:
                    x = q.popleft()
                    for y in sorted(edges.get(x, ())):
                        if y in inside and y not in prev:
                            prev[y] = x
                            q.append(y)
                back = []  # u, ..., v: the way from v to u, reversed
                x = u
                while x is not None:
                    back.append(x)
                    x = prev[x]
                cyc = [u] + back[::-1]  # u, v, ..., u
                for a, b in zip(cyc, cyc[1:]):
                    covered.add((a, b))
                out.append(cyc)
    return out


COMMENT = re.compile(r"/\*.*?\*/|//[^\n]*", re.S)
IDENT_CALL = re.compile(r"\b([A-Za-z_]\w*)\s*\(")
KEYWORDS = {"if", "for", "while", "switch", "return", "sizeof", "defined", "__attribute__",
            "typeof", "__typeof__", "_Static_assert", "static_assert"}


def strip(text):
    text = COMMENT.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), text)
    # preprocessor lines (with their continuations) declare nothing here
    text = re.sub(r"(?m)^[ \t]*#(?:[^\n]*\\\n)*[^\n]*", "", text)
    return text


def defined_functions(text):
    """Functions with external linkage defined in a .c file (kernel style:
    the signature starts in column 0, the body's { alone on the next line)."""
    lines = strip(text).split("\n")
    out = []
    for i, line in enumerate(lines):
        if line.rstrip() != "{":
            continue
        j = i - 1
        while j > 0 and lines[j][:1] in ("\t", " ") and lines[j].strip():
            j -= 1  # continuation lines of the signature
        sig = " ".join(x.strip() for x in lines[j:i])
        if "(" not in sig:
            continue  # a struct's or an array's initializer
        if re.match(r"^(static|extern)\b", sig) or "=" in sig.split("(")[0]:
            continue
        m = IDENT_CALL.search(sig)
        if m and m.group(1) not in KEYWORDS:
            out.append(m.group(1))
    return out


def declared_functions(text):
    """Names a header declares as functions: name( at brace depth 0."""
    text = strip(text)
    out = set()
    depth = 0
    for m in re.finditer(r"[{}]|\b[A-Za-z_]\w*\s*\(", text):
        tok = m.group(0)
        if tok == "{":
            depth += 1
        elif tok == "}":
            depth -= 1
        elif depth == 0:
            name = tok.rstrip("( \t\n")
            if name not in KEYWORDS:
                out.add(name)
    return out


def misplaced_declarations(g):
    """(function, its .c, the headers declaring it) for a function declared in
    a header of another module (one with its own .c) or of another folder. A
    header alone in its folder's list of modules (stats/families/families.h)
    may declare the functions of its folder's files: it stands for the folder,
    whose own circles the folder graph still shows."""
    declares = {}  # header -> names
    for mod, fl in g.files.items():
        for path in fl:
            if path.endswith(".h"):
                with open(os.path.join(g.root, path), errors="replace") as f:
                    declares[path] = declared_functions(f.read())
    out = []
    for mod, fl in sorted(g.files.items()):
        c = [p for p in fl if p.endswith(".c")]
        if not c:
            continue
        own = mod + ".h"
        with open(os.path.join(g.root, c[0]), errors="replace") as f:
            names = defined_functions(f.read())
        for fn in names:
            where = []
            for h, n in sorted(declares.items()):
                if fn not in n or h == own:
                    continue
                alone = g.files[h[:-2]] == [h]
                folder_header = alone and os.path.dirname(h) == os.path.dirname(mod)
                if not folder_header:
                    where.append(h)
            if where:
                out.append((fn, c[0], where))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    here = os.path.dirname(os.path.abspath(__file__))
    ap.add_argument("--root", default=os.path.normpath(os.path.join(here, "..", "..")))
    ap.add_argument("--dirs", default=None)
    ap.add_argument("--folders", action="store_true", help="print the folder graph and stop")
    ap.add_argument("--known", action="append", default=[], metavar="LINE",
                    help="a report line known and left for later (* and ? match any text): "
                    "shown as 'known: LINE', not counted; a LINE that matches none is a "
                    "problem (drop it)")
    args = ap.parse_args()
    dirs = args.dirs.split() if args.dirs else user_dirs(args.root)
    g = Graph(args.root, dirs)
    reports = []  # (line, [detail lines])

    for fn, c, where in misplaced_declarations(g):
        reports.append(("declared elsewhere: %s() defined in %s, declared in %s"
                        % (fn, c, ", ".join(where)), []))

    edges = {m: set(d) for m, d in g.deps.items()}
    for cyc in cycles(g.files, edges):
        reports.append(("circle: " + " -> ".join(g.name(m) for m in cyc),
                        [why for a, b in zip(cyc, cyc[1:]) for why in g.deps[a][b]]))

    def folder(m):
        return os.path.dirname(m)

    fdeps = {}
    for a, ds in g.deps.items():
        for b, whys in ds.items():
            if folder(a) != folder(b):
                fdeps.setdefault(folder(a), {}).setdefault(folder(b), []).extend(whys)
    folders = sorted({folder(m) for m in g.files})
    if args.folders:
        for a in sorted(fdeps):
            for b in sorted(fdeps[a]):
                print("%s -> %s (%d)" % (a, b, len(fdeps[a][b])))
        return 0
    fedges = {f: set(d) for f, d in fdeps.items()}
    for cyc in cycles(folders, fedges):
        detail = []
        for a, b in zip(cyc, cyc[1:]):
            whys = sorted(fdeps[a][b])
            more = "  (and %d more)" % (len(whys) - 1) if len(whys) > 1 else ""
            detail.append(whys[0] + more)
        reports.append(("folder circle: " + " -> ".join(cyc), detail))

    found = 0
    seen = set()
    for line, detail in reports:
        known = [k for k in args.known if fnmatch.fnmatchcase(line, k)]
        if known:
            print("known: " + line)
            seen.update(known)
        else:
            print(line)
            found += 1
        for d in detail:
            print("    " + d)
    for line in args.known:
        if line not in seen:
            print("known but gone (drop it from the known list): " + line)
            found += 1

    nedges = sum(len(d) for d in g.deps.values())
    print("include graph: %d modules, %d dependencies, %d folders: %d problem%s"
          % (len(g.files), nedges, len(folders), found, "" if found == 1 else "s"),
          file=sys.stderr if found else sys.stdout)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
