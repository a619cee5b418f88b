#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""Per-test seconds in every stage of a CI run, as a Markdown table, most
expensive first: from the runner's "# NAME: N s" lines in the stage logs
(.ci/run keeps build/ci/asan.log and build/ci/test.log; the guests' consoles
are build/vm/KERNEL.log).

Usage: ci_times.py [DIR]   (DIR: the repository of the run, default .)
"""
import os
import re
import sys

LINE = re.compile(r"^(?:\[[^\]]*\] )?# (\S+): (\d+) s\s*$")


def times(path):
    out = {}
    try:
        with open(path, errors="replace") as f:
            for line in f:
                m = LINE.match(line.replace("\r", ""))
                if m:
                    name = os.path.basename(m.group(1))
                    if name.endswith(".sh"):
                        name = name[:-3]
                    elif "/" in m.group(1):  # a C test: its folder is its kind
                        name += " (C)"
                    out[name] = out.get(name, 0) + int(m.group(2))
    except OSError:
        pass
    return out


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else "."
    stages = [("test", "build/ci/test.log"), ("asan", "build/ci/asan.log")]
    stages += [("vm-" + k, "build/vm/%s.log" % k) for k in ("5.10", "6.1", "6.12")]
    cols = [(name, times(os.path.join(root, p))) for name, p in stages]
    tests = sorted({t for _, c in cols for t in c},
                   key=lambda t: (-sum(c.get(t, 0) for _, c in cols), t))
    print("| test | " + " | ".join(n for n, _ in cols) + " | all |")
    print("|---" * (len(cols) + 2) + "|")
    for t in tests:
        row = [str(c[t]) if t in c else "" for _, c in cols]
        print("| %s | %s | %d |" % (t, " | ".join(row), sum(c.get(t, 0) for _, c in cols)))
    print("| total | " + " | ".join(str(sum(c.values())) for _, c in cols) +
          " | %d |" % sum(sum(c.values()) for _, c in cols))


if __name__ == "__main__":
    main()
