#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""Every error message of the command line (each ps_error format in the given
C files) against the DIAGNOSTICS list of a man page: prints each message that
no line of the list matches (a conversion such as %s matches any words), and
exits 1 if there is one.

Usage: diagnostics.py PAGE FILE.c...
"""
import re
import sys


def formats(path):
    src = open(path).read()
    for m in re.finditer(r'ps_error\(\s*((?:"(?:[^"\\]|\\.)*"\s*)+)', src):
        yield "".join(re.findall(r'"((?:[^"\\]|\\.)*)"', m.group(1)))


def listed(page):
    """The lines of the page's DIAGNOSTICS literal block, a line broken
    there (continued by two spaces) joined again."""
    lines, on, block = [], False, False
    for line in open(page):
        line = line.rstrip("\n")
        if line.startswith(".Sh "):
            on = line == ".Sh DIAGNOSTICS"
        elif on and line.startswith(".Bd -literal"):
            block = True
        elif on and line == ".Ed":
            block = False
        elif block:
            line = line.replace("\\&", "")
            if line.startswith("  ") and lines:
                lines[-1] += " " + line.strip()
            else:
                lines.append(line)
    return lines


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    lines = listed(sys.argv[1])
    missing = set()
    for path in sys.argv[2:]:
        for fmt in formats(path):
            if fmt == "%s":
                continue  # a message made elsewhere, passed on
            pieces = re.split(r"%[-0-9.]*(?:ll|l|z)?[sduf]", fmt)
            pattern = ".+".join(re.escape(p) for p in pieces)
            if not any(re.fullmatch(pattern, line) for line in lines):
                missing.add(fmt)
    for fmt in sorted(missing):
        print(fmt)
    sys.exit(1 if missing else 0)


if __name__ == "__main__":
    main()
