#!/usr/bin/env python3
"""Each header's include guard is derived from its path: PATHSCOPE_ and the
path from the repository's top in capitals, include/pathscope/ left out
(include/pathscope/abi.h: PATHSCOPE_ABI_H; stats/read/snapshot.h:
PATHSCOPE_STATS_READ_SNAPSHOT_H), so a moved header cannot keep a stale one.
Usage: header_guards.py [--fix] [HEADER...] (default: git's *.h files).
Without --fix it names each wrong guard and exits 1; with --fix it rewrites
them (make format)."""
import re
import subprocess
import sys


def expected(path):
    p = re.sub(r"^include/pathscope/", "", path)
    return "PATHSCOPE_" + re.sub(r"[^A-Za-z0-9]", "_", p).upper()


def check(path, fix):
    text = open(path).read()
    lines = text.split("\n")
    # The guard: the first preprocessor line, #ifndef X, then #define X.
    i = next((k for k, l in enumerate(lines) if l.startswith("#")), None)
    if i is None or i + 1 >= len(lines):
        return f"{path}: no include guard"
    m = re.match(r"#ifndef (\w+)$", lines[i])
    if not m or lines[i + 1] != f"#define {m.group(1)}":
        return f"{path}: no include guard (#ifndef X, #define X first)"
    old, new = m.group(1), expected(path)
    last = max(k for k, l in enumerate(lines) if l.startswith("#endif"))
    closing = f"#endif /* {new} */"
    if old == new and lines[last] == closing:
        return None
    if not fix:
        return f"{path}: include guard {old}, expected {new}"
    lines[i], lines[i + 1], lines[last] = f"#ifndef {new}", f"#define {new}", closing
    open(path, "w").write("\n".join(lines))
    return None


def main():
    args = sys.argv[1:]
    fix = "--fix" in args
    paths = [a for a in args if a != "--fix"]
    if not paths:
        out = subprocess.run(["git", "ls-files", "*.h"], capture_output=True, text=True, check=True)
        paths = out.stdout.split()
    bad = [e for e in (check(p, fix) for p in paths) if e]
    for e in bad:
        print(e)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
