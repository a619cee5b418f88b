#!/usr/bin/env python3
"""A NAPI thread's wait as the kernel's own ftrace events tell it, the
reference of test_vm_firsthop_thread. It reads an ftrace instance's trace in
raw form (option raw, trace_clock mono: "PID CPU NS type: ID", nanoseconds)
whose events the kernel filtered to one RX queue and its NAPI thread:
irq:irq_handler_entry of the queue's IRQ, sched:sched_switch to the thread
(next_pid), and napi:napi_poll of the device with work > 0 run by the thread.
Pairs them in time order: the first IRQ since the thread last switched in ->
the thread's next switch in (the wait), and -> the end of its next poll
with work (napi_poll fires as a poll ends: an upper bound of the moment XDP
sees the poll's first frame).
Prints: pairs, their mean wait to the switch in (ns), the pairs followed by
a poll with work, their mean IRQ -> poll end (ns), and the polls with work.
Usage: ftrace_thread_wait.py TRACE IRQ_ID SWITCH_ID POLL_ID"""
import re
import sys

EV = re.compile(r"^\s*(\d+) (\d+) (\d+) type: (\d+)")


def main(path, irq_id, switch_id, poll_id):
    irq = None  # the first IRQ not yet followed by a switch in
    paired = None  # the IRQ of the last pair, until a poll with work ends
    waits, ends, polls = [], [], 0
    for line in open(path):
        m = EV.search(line)
        if not m:
            continue
        ts, ev = int(m.group(3)), m.group(4)
        if ev == irq_id:
            if irq is None:
                irq = ts
        elif ev == switch_id:
            if irq is not None:
                waits.append(ts - irq)
                paired, irq = irq, None
        elif ev == poll_id:
            polls += 1
            if paired is not None:
                ends.append(ts - paired)
                paired = None
    mean = lambda v: sum(v) // len(v) if v else 0
    print(len(waits), mean(waits), len(ends), mean(ends), polls)


if __name__ == "__main__":
    main(*sys.argv[1:5])
