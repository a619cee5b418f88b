#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""sockload: a steady sender and a reader on a known schedule, for the socket
read latency tests (feature sock).

  sockload.py send  --proto tcp|udp --dst ADDR --port P --rate N --seconds S
  sockload.py recv  --proto tcp|udp --bind ADDR --port P --seconds S
                    [--period-ms MS | --eager | --never]

send: N messages of 100 bytes per second for S seconds, each starting with
its sequence number (TCP: TCP_NODELAY, one write each).
recv: the reader. --period-ms MS drains everything queued every MS
milliseconds on an absolute schedule (sleeps in between); --eager reads
with blocking calls; --never opens the socket and reads nothing. It prints
one JSON line: messages received, whether their sequence numbers came in
order, and the longest gap between the starts of two drains (the schedule's
own slack). Prints "ready" on stderr once it listens.
"""
import argparse
import json
import socket
import struct
import sys
import time

MSG = 100


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
    start = time.monotonic()
    s.settimeout(2)  # a receiver that never reads fills the window
    sent = 0
    for i in range(n):
        due = start + i / a.rate
        now = time.monotonic()
        if due > now:
            time.sleep(due - now)
        try:
            s.send(struct.pack("!I", i) + b"p" * (MSG - 4))
        except (socket.timeout, ConnectionRefusedError):
            break
        sent += 1
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
    if a.never:
        time.sleep(max(0, end - time.monotonic()))
    elif a.eager:
        s.settimeout(0.2)
        while time.monotonic() < end:
            try:
                data = s.recv(65536)
            except socket.timeout:
                continue
            if not data:
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
                if not data:
                    tick = end
                    break
                order.feed(data)
            tick += period
    print(json.dumps({"received": order.count, "in_order": order.in_order,
                      "max_gap_ms": round(gap * 1000, 3)}))


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
    r = sub.add_parser("recv")
    r.add_argument("--proto", choices=("tcp", "udp"), required=True)
    r.add_argument("--bind", required=True)
    r.add_argument("--port", type=int, required=True)
    r.add_argument("--seconds", type=float, default=3)
    m = r.add_mutually_exclusive_group(required=True)
    m.add_argument("--period-ms", type=float)
    m.add_argument("--eager", action="store_true")
    m.add_argument("--never", action="store_true")
    a = p.parse_args()
    send(a) if a.cmd == "send" else recv(a)


if __name__ == "__main__":
    main()
