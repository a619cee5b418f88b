#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""sockload: a steady sender and a reader on a known schedule, for the socket
read latency tests (feature sock).

  sockload.py send  --proto tcp|udp --dst ADDR --port P --rate N --seconds S
                    [--t0-ns T0] [--end]
  sockload.py recv  --proto tcp|udp --bind ADDR --port P --seconds S
                    [--period-ms MS | --eager | --never |
                     --deadline-ms D --t0-ns T0 --rate N [--every K]]

send: N messages of 100 bytes per second for S seconds, each starting with
its sequence number and its send time (CLOCK_MONOTONIC ns, read just before
the send call) (TCP: TCP_NODELAY, one write each). With --t0-ns, message i
is due at T0 + i / N (CLOCK_MONOTONIC ns; the sender spins the last part
of each wait to be on time), else from the start. --end (UDP): then one
datagram "end", which ends a draining or eager reader at once (TCP's end is
the connection's).
recv: the reader. --period-ms MS drains everything queued every MS
milliseconds on an absolute schedule (sleeps in between); --eager reads
with blocking calls; --never opens the socket and reads nothing. It prints
one JSON line: messages received, whether their sequence numbers came in
order, and the longest gap between the starts of two drains (the schedule's
own slack). Prints "ready" on stderr once it listens.
--deadline-ms D reads message i alone at T0 + i / N + D (sleeps, then spins
the last 200 us), the deadline reader of the socket read tests: each
message waits D in the socket, give or take the sender's and the reader's
own lateness, which it measures. It adds to the JSON line its read
latency: from each message's send time to the middle of the recv call
that returned it (mean_read_ns, std_read_ns, min_read_ns, max_read_ns over
reads), and how late it was for its deadlines at most (late_max_ns).
A 1-in-K sampler that counts the messages in order (pathscope's sock
feature, every 64th packet of a CPU) times those of one offset o: messages
o, o + K, ...; sub_means_ns[o] is the mean read latency of that set, for
each o below K (--every K, default 64).
"""
import argparse
import json
import socket
import struct
import sys
import time

MSG = 100
END = b"end"


def family(addr):
    return socket.AF_INET6 if ":" in addr else socket.AF_INET


def send(a):
    if a.proto == "tcp":
        s = socket.create_connection((a.dst, a.port), timeout=5)
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    else:
        s = socket.socket(family(a.dst), socket.SOCK_DGRAM)
        s.connect((a.dst, a.port))
    n = int(a.rate * a.seconds)
    start = a.t0_ns / 1e9 if a.t0_ns else time.monotonic()
    s.settimeout(2)  # a receiver that never reads fills the window
    sent = 0
    for i in range(n):
        due = start + i / a.rate
        now = time.monotonic()
        if due > now:
            time.sleep(due - now)
        if a.t0_ns:  # on schedule to the us: sleep above, spin the rest
            while time.monotonic() < due:
                pass
        try:
            s.send(struct.pack("!IQ", i, time.monotonic_ns()) + b"p" * (MSG - 12))
        except (socket.timeout, ConnectionRefusedError):
            break
        sent += 1
    if a.end and a.proto == "udp":
        s.send(END)
    s.close()
    print(json.dumps({"sent": sent}))


class Order:
    """Sequence numbers of the messages, in the order read."""

    def __init__(self, proto):
        self.proto, self.buf, self.count, self.next, self.in_order = proto, b"", 0, 0, True

    def feed(self, data):
        if self.proto == "udp":
            self.take(data)
            return
        self.buf += data
        while len(self.buf) >= MSG:
            self.take(self.buf[:MSG])
            self.buf = self.buf[MSG:]

    def take(self, msg):
        seq = struct.unpack("!I", msg[:4])[0]
        self.in_order &= seq == self.next
        self.next = seq + 1
        self.count += 1


def recv(a):
    fam = family(a.bind)
    if a.proto == "tcp":
        ls = socket.socket(fam, socket.SOCK_STREAM)
        ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        ls.bind((a.bind, a.port))
        ls.listen(1)
    else:
        s = socket.socket(fam, socket.SOCK_DGRAM)
        s.bind((a.bind, a.port))
    print("ready", file=sys.stderr, flush=True)
    end = time.monotonic() + a.seconds
    if a.proto == "tcp":
        ls.settimeout(a.seconds)
        s, _ = ls.accept()
    order, gap, last = Order(a.proto), 0.0, None
    extra = {}
    if a.deadline_ms is not None:
        extra = deadline_reads(a, s, order)
    elif a.never:
        time.sleep(max(0, end - time.monotonic()))
    elif a.eager:
        s.settimeout(0.2)
        while time.monotonic() < end:
            try:
                data = s.recv(65536)
            except socket.timeout:
                continue
            if not data or data == END:
                break
            order.feed(data)
    else:
        s.setblocking(False)
        period = a.period_ms / 1000.0
        tick = time.monotonic()
        while tick < end:
            now = time.monotonic()
            if tick > now:
                time.sleep(tick - now)
            now = time.monotonic()
            if last is not None:
                gap = max(gap, now - last)
            last = now
            while True:  # drain what is queued
                try:
                    data = s.recv(65536)
                except BlockingIOError:
                    break
                if not data or data == END:
                    tick = end
                    break
                order.feed(data)
            tick += period
    print(json.dumps({"received": order.count, "in_order": order.in_order,
                      "max_gap_ms": round(gap * 1000, 3), **extra}))


def read_one(s, proto):
    """One message: a datagram, or MSG bytes of the stream; None at its end."""
    if proto == "udp":
        return s.recv(65536)
    buf = b""
    while len(buf) < MSG:
        data = s.recv(MSG - len(buf))
        if not data:
            return None
        buf += data
    return buf


def deadline_reads(a, s, order):
    s.setblocking(True)
    s.settimeout(2)
    total = late = reads = 0
    lo, hi, sq = None, 0, 0
    each = []
    for i in range(int(a.rate * a.seconds)):
        due = a.t0_ns + int(i * 1e9 / a.rate) + int(a.deadline_ms * 1e6)
        left = due - time.monotonic_ns() - 200_000
        if left > 0:
            time.sleep(left / 1e9)
        while time.monotonic_ns() < due:
            pass
        before = time.monotonic_ns()
        late = max(late, before - due)
        try:
            msg = read_one(s, a.proto)
        except socket.timeout:
            break
        after = time.monotonic_ns()
        if not msg:
            break
        order.feed(msg)
        sent = struct.unpack("!IQ", msg[:12])[1]
        # Read at the middle of the call; if the message came during it
        # (the sender late by more than D), as the call returned.
        d = (before + after) // 2 - sent if before >= sent else after - sent
        total += d
        each.append(d)
        sq += d * d
        lo, hi = d if lo is None else min(lo, d), max(hi, d)
        reads += 1
    mean = total // reads if reads else 0
    std = int(max(0, sq / reads - mean * mean) ** 0.5) if reads else 0
    subs = [sum(each[o::a.every]) // len(each[o::a.every])
            for o in range(min(a.every, len(each)))]
    return {"reads": reads, "mean_read_ns": mean, "std_read_ns": std,
            "min_read_ns": lo or 0, "max_read_ns": hi, "late_max_ns": late,
            "sub_means_ns": subs}


def main():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("send")
    s.add_argument("--proto", choices=("tcp", "udp"), required=True)
    s.add_argument("--dst", required=True)
    s.add_argument("--port", type=int, required=True)
    s.add_argument("--rate", type=float, default=1000)
    s.add_argument("--seconds", type=float, default=3)
    s.add_argument("--t0-ns", type=int)
    s.add_argument("--end", action="store_true")
    r = sub.add_parser("recv")
    r.add_argument("--proto", choices=("tcp", "udp"), required=True)
    r.add_argument("--bind", required=True)
    r.add_argument("--port", type=int, required=True)
    r.add_argument("--seconds", type=float, default=3)
    m = r.add_mutually_exclusive_group(required=True)
    m.add_argument("--period-ms", type=float)
    m.add_argument("--eager", action="store_true")
    m.add_argument("--never", action="store_true")
    m.add_argument("--deadline-ms", type=float)
    r.add_argument("--t0-ns", type=int)
    r.add_argument("--rate", type=float, default=1000)
    r.add_argument("--every", type=int, default=64)
    a = p.parse_args()
    if a.cmd == "recv" and a.every < 1:
        p.error("--every must be 1 or more")
    if a.cmd == "recv" and a.deadline_ms is not None and not a.t0_ns:
        p.error("--deadline-ms needs --t0-ns")
    send(a) if a.cmd == "send" else recv(a)


if __name__ == "__main__":
    main()
