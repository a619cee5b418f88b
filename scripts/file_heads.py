#!/usr/bin/env python3
"""Each C source and header starts, after its SPDX line, with a head comment of
one to three lines that says what the file is for (issue 47); detail goes next
to the code it explains. Usage: file_heads.py [FILE...] (default: git's *.c and
*.h files). Names each file whose head is missing or longer, and exits 1 then."""
import subprocess
import sys

MAX_LINES = 3


def check(path):
    lines = open(path).read().split("\n")
    if not lines or "SPDX-License-Identifier" not in lines[0]:
        return f"{path}: no SPDX line first"
    i = 1
    while i < len(lines) and lines[i].strip() == "":
        i += 1
    first = lines[i] if i < len(lines) else ""
    if first.startswith("/*"):
        j = i
        while j < len(lines) and "*/" not in lines[j]:
            j += 1
        n = j - i + 1
    elif first.startswith("//"):
        j = i
        while j < len(lines) and lines[j].startswith("//"):
            j += 1
        n = j - i
    else:
        return f"{path}: no head comment after the SPDX line"
    if n > MAX_LINES:
        return f"{path}: head comment of {n} lines, at most {MAX_LINES}"
    return None


def main():
    paths = sys.argv[1:]
    if not paths:
        out = subprocess.run(["git", "ls-files", "*.c", "*.h"], capture_output=True, text=True,
                             check=True)
        paths = out.stdout.split()
    bad = [e for e in (check(p) for p in paths) if e]
    for e in bad:
        print(e)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
