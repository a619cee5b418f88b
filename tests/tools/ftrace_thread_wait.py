#!/usr/bin/env python3
"""A NAPI thread's wait as the kernel's own ftrace events tell it, the
reference of test_vm_firsthop_thread. It reads an ftrace instance's trace in
raw form (option raw, trace_clock mono: "PID CPU NS type: ID", nanoseconds)
whose events the kernel filtered to one RX queue and its NAPI thread:
irq:irq_handler_entry of the queue's IRQ, sched:sched_switch to the thread
(next_pid), net:napi_gro_receive_entry of the device run by the thread (each
frame XDP passed, right after XDP) and napi:napi_poll of the device with
work > 0 run by the thread (as a poll ends).

The wait is pathscope's: from the first IRQ since the thread's last poll took
one to the first frame of its next poll (here: the frame's
napi_gro_receive_entry, a few microseconds after XDP saw it). An IRQ that
comes while the thread still runs (it polls again without switching in)
starts a wait too; an IRQ during a poll, after its first frame, starts the
next poll's. Pairing the IRQ with the next switch in instead would join such
an IRQ to a later switch in, one wait fewer and a longer mean.

Prints: the waits, their mean (ns), their mean IRQ -> switch in (ns) over
the waits with a switch in between, those waits, and the polls with work.
Usage: ftrace_thread_wait.py TRACE IRQ_ID SWITCH_ID POLL_ID GRO_ID"""
import re
import sys

EV = re.compile(r"^\s*(\d+) (\d+) (\d+) type: (\d+)")


def main(path, irq_id, switch_id, poll_id, gro_id):
    irq = None  # the first IRQ not yet taken by a poll
    switched = None  # the thread's switch in since that IRQ
    in_poll = False  # a poll's first frame seen, its end not yet
    waits, switches, polls = [], [], 0
    for line in open(path):
        m = EV.search(line)
        if not m:
            continue
        ts, ev = int(m.group(3)), m.group(4)
        if ev == irq_id:
            if irq is None:
                irq, switched = ts, None
        elif ev == switch_id:
            if irq is not None and switched is None:
                switched = ts
        elif ev == gro_id:
            if not in_poll:
                in_poll = True
                if irq is not None:
                    waits.append(ts - irq)
                    if switched is not None:
                        switches.append(switched - irq)
                    irq = None
        elif ev == poll_id:
            polls += 1
            in_poll = False
    mean = lambda v: sum(v) // len(v) if v else 0
    print(len(waits), mean(waits), mean(switches), len(switches), polls)


if __name__ == "__main__":
    main(*sys.argv[1:6])
