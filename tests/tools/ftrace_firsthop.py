#!/usr/bin/env python3
"""The first hop as the kernel's own ftrace events tell it, the reference of
test_firsthop. It reads an ftrace instance's trace in raw form (option raw,
trace_clock mono: "PID CPU NS type: ID", nanoseconds; the events filtered in
the kernel: hrtimer_expire_entry/exit, softirq_raise and softirq_entry of
NET_RX, napi_poll of one device with work > 0) and pairs them per CPU the way
netdev-times does: a run's wait is its entry minus the first NET_RX raise on
that CPU since the run before; the raise was in a timer when it came between
an hrtimer_expire_entry and its exit; the run was ksoftirqd's when the task
that entered it is a ksoftirqd (/proc/PID/comm); a poll belongs to the run in
progress on its CPU.
Prints: polls, runs with a timed wait among the runs of those polls, their
mean wait in ns, the mean of poll end - run entry in ns, the polls started
by ksoftirqd, by a timer and otherwise, and the least and the most of those
runs pathscope can time at --softirq-sample EVERY (default 1): it times the
runs of each CPU whose number since attach is 1 more than a multiple of
EVERY, and the window's first run has an unknown number, so per CPU the
fewest and the most such runs in any of the EVERY residues of the CPU's
NET_RX runs (all of them, whatever they polled), summed over the CPUs.
A second line: the timed waits of the runs by what started them
("ksoftirqd N MEAN MAX timer N MEAN MAX other N MEAN MAX", ns).
A third line: of those polls, the ones in runs on top of a thread of PID 1
("init ksoftirqd N timer N other N"). On this project's VMs PID 1 is the
VM's agent, and the tracepoints' BPF programs (tp_btf and classic alike)
were not run for the napi_poll events of softirqs on top of its threads,
with no recursion miss counted, while ftrace recorded them (2026-11-28:
all 10 such polls of one run of 449, none other); pathscope cannot count
those polls.
Usage: ftrace_firsthop.py TRACE RAISE_ID ENTRY_ID POLL_ID [TIMER_ENTRY_ID TIMER_EXIT_ID [EVERY]]"""
import re
import sys

EV = re.compile(r"^\s*(\d+) (\d+) (\d+) type: (\d+)")


TGID = {}


def on_init(pid):
    """Is PID a thread of PID 1 (the idle task, 0, is not)?"""
    if pid not in TGID:
        try:
            status = open(f"/proc/{pid}/status").read()
            TGID[pid] = pid != "0" and status.split("Tgid:")[1].split()[0] == "1"
        except (OSError, IndexError):
            TGID[pid] = False
    return TGID[pid]


def comm(pid):
    try:
        return open(f"/proc/{pid}/comm").read().strip()
    except OSError:
        return ""


def main(path, raise_id, entry_id, poll_id, tentry_id="-", texit_id="-", every="1"):
    every = int(every)
    raise_at, entry_at, run_id, in_timer = {}, {}, {}, {}
    timed = {}  # CPU -> runs with a timed wait, by run number % every
    polls = 0
    waits, ends, seen = [], [], set()
    by_kind = {"ksoftirqd": [], "timer": [], "other": []}
    starts = {"ksoftirqd": 0, "timer": 0, "other": 0}
    init = {"ksoftirqd": 0, "timer": 0, "other": 0}
    for line in open(path):
        m = EV.search(line)
        if not m:
            continue
        pid, cpu, ts, ev = m.group(1), int(m.group(2)), int(m.group(3)), m.group(4)
        if ev == tentry_id:
            in_timer[cpu] = True
        elif ev == texit_id:
            in_timer[cpu] = False
        elif ev == raise_id:
            raise_at.setdefault(cpu, (ts, in_timer.get(cpu, False)))
        elif ev == entry_id:
            r = raise_at.pop(cpu, None)
            kind = "ksoftirqd" if comm(pid).startswith("ksoftirqd/") else "timer" if r and r[1] else "other"
            entry_at[cpu] = (ts, ts - r[0] if r else None, kind, pid)
            run_id[cpu] = run_id.get(cpu, 0) + 1
        elif ev == poll_id and cpu in entry_at:
            polls += 1
            ends.append(ts - entry_at[cpu][0])
            starts[entry_at[cpu][2]] += 1
            if on_init(entry_at[cpu][3]):
                init[entry_at[cpu][2]] += 1
            if (cpu, run_id[cpu]) not in seen:
                seen.add((cpu, run_id[cpu]))
                if entry_at[cpu][1] is not None:
                    waits.append(entry_at[cpu][1])
                    by_kind[entry_at[cpu][2]].append(entry_at[cpu][1])
                    by = timed.setdefault(cpu, [0] * every)
                    by[run_id[cpu] % every] += 1
    mean = lambda v: sum(v) // len(v) if v else 0
    lo = sum(min(v) for v in timed.values())
    hi = sum(max(v) for v in timed.values())
    print(polls, len(waits), mean(waits), mean(ends), starts["ksoftirqd"], starts["timer"], starts["other"], lo, hi)
    print(" ".join(f"{k} {len(v)} {mean(v)} {max(v, default=0)}" for k, v in by_kind.items()))
    print("init " + " ".join(f"{k} {n}" for k, n in init.items()))


if __name__ == "__main__":
    main(*sys.argv[1:8])
