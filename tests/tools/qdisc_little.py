#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""qdisc_little: the mean time in a qdisc by Little's law, from the qdisc's
own counters: an independent reference for pathscope's qdisc sojourn.

    qdisc_little.py DEV STOPFILE

Reads the queue length and sent-packet counter of every qdisc on DEV from
rtnetlink (RTM_GETQDISC, TCA_STATS: what `tc -s qdisc` shows) about every
millisecond, each read dated on CLOCK_MONOTONIC, until STOPFILE exists. Prints
"ready" after the first read (start the load then), and at the end one line
per qdisc that sent packets meanwhile:

    handle H samples S packets P backlog_pkt_ns I mean_ns M

I is the integral of the queue length over time (trapezoids between
samples), P the packets the qdisc sent (its counter's increase), and M = I/P.
Over an interval that starts and ends with the queue empty, the sum of the
packets' times in the queue is exactly the integral of its length (Little's
law), so M is their mean time in it. Start before the queue fills and stop
after it drains.

The sampler is light (a netlink dump, no process per sample) and sleeps a
random 0.5-1.5 ms between reads: a busy sampler would take the CPU from the
senders that keep the queue full, and a fixed period could beat with the
qdisc's own timer. Exits 1 with one line on stderr on error.
"""
import os
import random
import socket
import struct
import sys
import time

RTM_NEWQDISC, RTM_GETQDISC = 36, 38
NLM_F_REQUEST, NLM_F_DUMP = 0x1, 0x300
NLMSG_ERROR, NLMSG_DONE = 2, 3
TCA_STATS = 3  # struct tc_stats: bytes u64, packets, drops, overlimits, bps, pps, qlen, backlog


def dump(sock, ifindex, seq):
    """{handle: (qlen, packets)} of the qdiscs on ifindex."""
    tcmsg = struct.pack("=BxxxiIII", socket.AF_UNSPEC, 0, 0, 0, 0)
    sock.send(struct.pack("=IHHII", 16 + len(tcmsg), RTM_GETQDISC,
                          NLM_F_REQUEST | NLM_F_DUMP, seq, 0) + tcmsg)
    out = {}
    while True:
        buf = sock.recv(1 << 16)
        off = 0
        while off + 16 <= len(buf):
            length, kind, _, _, _ = struct.unpack_from("=IHHII", buf, off)
            if kind == NLMSG_DONE:
                return out
            if kind == NLMSG_ERROR:
                err = struct.unpack_from("=i", buf, off + 16)[0]
                sys.exit(f"qdisc_little: RTM_GETQDISC: {os.strerror(-err)}")
            if kind == RTM_NEWQDISC:
                _, idx, handle, _, _ = struct.unpack_from("=BxxxiIII", buf, off + 16)
                a = off + 16 + 20
                while idx == ifindex and a + 4 <= off + length:
                    alen, atype = struct.unpack_from("=HH", buf, a)
                    if alen < 4:
                        break
                    if atype == TCA_STATS and alen >= 4 + 36:
                        packets = struct.unpack_from("=I", buf, a + 4 + 8)[0]
                        qlen = struct.unpack_from("=I", buf, a + 4 + 28)[0]
                        out[f"{handle >> 16:x}:"] = (qlen, packets)
                    a += (alen + 3) & ~3
            off += (length + 3) & ~3


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: qdisc_little.py DEV STOPFILE")
    dev, stop = sys.argv[1:]
    try:
        ifindex = socket.if_nametoindex(dev)
    except OSError as e:
        sys.exit(f"qdisc_little: {dev}: {e.strerror}")
    sock = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, socket.NETLINK_ROUTE)
    samples, seq = [], 0
    while True:
        seq += 1
        t0 = time.monotonic_ns()
        q = dump(sock, ifindex, seq)
        samples.append(((t0 + time.monotonic_ns()) // 2, q))
        if seq == 1:
            print("ready", flush=True)
        if os.path.exists(stop):
            break
        time.sleep(random.uniform(0.0005, 0.0015))
    first = samples[0][1]
    for h in sorted(first):
        sent = samples[-1][1].get(h, (0, 0))[1] - first[h][1]
        if sent <= 0:
            continue
        area = 0
        for (ta, qa), (tb, qb) in zip(samples, samples[1:]):
            area += (qa[h][0] + qb[h][0]) * (tb - ta) // 2
        print(f"handle {h} samples {len(samples)} packets {sent} "
              f"backlog_pkt_ns {area} mean_ns {area // sent}")


if __name__ == "__main__":
    main()
