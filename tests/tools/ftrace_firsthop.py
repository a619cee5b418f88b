#!/usr/bin/env python3
"""The first hop as the kernel's own ftrace events tell it, the reference of
test_firsthop. It reads an ftrace instance's trace in raw form (option raw,
trace_clock mono: "PID CPU NS type: ID", nanoseconds; the events filtered
in the kernel: softirq_raise and softirq_entry of NET_RX, napi_poll of one
device with work > 0) and pairs them per CPU the way netdev-times does: a
run's wait is its entry minus the first NET_RX raise on that CPU since the
run before; a poll belongs to the run in progress on its CPU.
Prints: polls, runs with a timed wait among the runs of those polls, their
mean wait in ns, and the mean of poll end - run entry in ns.
Usage: ftrace_firsthop.py TRACE RAISE_ID ENTRY_ID POLL_ID"""
import re
import sys

EV = re.compile(r"^\s*\d+ (\d+) (\d+) type: (\d+)")


def main(path, raise_id, entry_id, poll_id):
    raise_at, entry_at, run_id = {}, {}, {}
    polls = 0
    waits, ends, seen = [], [], set()
    for line in open(path):
        m = EV.search(line)
        if not m:
            continue
        cpu, ts, ev = int(m.group(1)), int(m.group(2)), m.group(3)
        if ev == raise_id:
            raise_at.setdefault(cpu, ts)
        elif ev == entry_id:
            entry_at[cpu] = (ts, ts - raise_at[cpu] if cpu in raise_at else None)
            raise_at.pop(cpu, None)
            run_id[cpu] = run_id.get(cpu, 0) + 1
        elif ev == poll_id and cpu in entry_at:
            polls += 1
            ends.append(ts - entry_at[cpu][0])
            if (cpu, run_id[cpu]) not in seen:
                seen.add((cpu, run_id[cpu]))
                if entry_at[cpu][1] is not None:
                    waits.append(entry_at[cpu][1])
    mean = lambda v: sum(v) // len(v) if v else 0
    print(polls, len(waits), mean(waits), mean(ends))


if __name__ == "__main__":
    main(*sys.argv[1:5])
