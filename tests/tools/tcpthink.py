#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""tcpthink: a TCP request/response server that thinks for a known time
before it answers, and its client, for the host response time tests
(feature tcp, response_data).

  tcpthink.py serve   --bind ADDR --port P --think-us US --seconds S
  tcpthink.py request --dst ADDR --port P --count N [--gap-ms MS]
  tcpthink.py sink    --bind ADDR --port P --seconds S
  tcpthink.py trickle --dst ADDR --port P --warm W --count N --gap-ms MS --go GO
  tcpthink.py accept  --bind ADDR --port P --count N --seconds S
  tcpthink.py connect --dst ADDR --port P --count N [--gap-ms MS]

serve: accepts one connection; for every 64-byte request it waits US
microseconds from the moment the request is read (sleeps, then spins the
last 200 us to the deadline, so the wait is US to within a few us rather
than the scheduler's slack), then writes a 64-byte answer. It prints one
JSON line at the end: requests answered and the measured think times
(min, median, mean, max, ns), and how long each request was held: from the
kernel's receive time of its first segment (SO_TIMESTAMPNS, stamped as the
stack takes the frame, just past XDP) to the answer's send(), so the
server's own wakeup is in it (held_count, held_mean_ns). Prints "ready" on
stderr once it listens.
request: N requests on one connection (TCP_NODELAY), the first MS
milliseconds after the handshake, each next one after the answer to the one
before plus MS milliseconds, then the FIN, and prints one JSON line: the
answers received, the median request->answer time (ns), and the kernel's
own RTT samples of the requests and the FIN: their count and exact sum
(kernel_rtt_count, kernel_rtt_sum_ns; see kernel_rtt_sum).
sink: accepts one connection, waits S seconds, then reads it to its end,
never writing: its host's ACKs are the only answers, and none is sent
early for a read (delayed or not, as the route says).
trickle: connects, sends W 64-byte messages MS milliseconds apart (each
after the ACK of the one before), prints "warm" on stderr and waits for the
file GO to exist (the caller's cue; a wait of more than the receiver's RTO,
200 ms or more, would put it back in quickack mode), then sends N more the
same way and prints one JSON line: the messages sent; the kernel's own RTT
of the connection (TCP_INFO tcpi_rtt, tcpi_rttvar, in us); the exact mean
of its N samples of the timed messages, which hold the receiver's ACK
delay; and the path's RTT: the mean of its samples of the warm-up under
30 ms (ACKed at once). Then it waits 1 s before it closes.
accept / connect: N bare connections, one after the other (connect waits
for the accept side's close, then MS milliseconds, before the next), for the
handshake counts; each prints {"connections": N, "kernel_rtt_sum_ns": S} at
the end, S the sum of each connection's first RTT sample, as its kernel
took it (the SYN's on connect, the SYN-ACK's on accept); accept prints
"ready" on stderr.
"""
import argparse
import json
import os
import socket
import statistics
import struct
import sys
import time

MSG = 64
SPIN_NS = 200_000
SO_TIMESTAMPNS = getattr(socket, "SO_TIMESTAMPNS", 35)  # = SCM_TIMESTAMPNS


def read_stamped(s, n):
    """Read n bytes; return them and the kernel's receive time (CLOCK_REALTIME,
    ns) of the first skb among them (SO_TIMESTAMPNS), or (None, 0)."""
    buf, stamp = b"", 0
    while len(buf) < n:
        data, anc, _, _ = s.recvmsg(n - len(buf), socket.CMSG_SPACE(16))
        if not data:
            return None, 0
        for level, kind, val in anc:
            if level == socket.SOL_SOCKET and kind == SO_TIMESTAMPNS and not stamp:
                sec, nsec = struct.unpack("qq", val[:16])
                stamp = sec * 1_000_000_000 + nsec
        buf += data
    return buf, stamp


def family(addr):
    return socket.AF_INET6 if ":" in addr else socket.AF_INET


def read_exact(s, n):
    buf = b""
    while len(buf) < n:
        chunk = s.recv(n - len(buf))
        if not chunk:
            return None
        buf += chunk
    return buf


def wait_until(deadline_ns):
    left = deadline_ns - time.monotonic_ns() - SPIN_NS
    if left > 0:
        time.sleep(left / 1e9)
    while time.monotonic_ns() < deadline_ns:
        pass


def listener(a, backlog):
    """A socket listening on a.bind:a.port, accept() timing out after
    a.seconds; "ready" on stderr once it listens."""
    ls = socket.socket(family(a.bind), socket.SOCK_STREAM)
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    ls.bind((a.bind, a.port))
    ls.listen(backlog)
    ls.settimeout(a.seconds)
    print("ready", file=sys.stderr, flush=True)
    return ls


def serve(a):
    ls = listener(a, 1)
    think, held = [], []
    try:
        c, _ = ls.accept()
    except socket.timeout:
        c = None
    if c is not None:
        c.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        c.setsockopt(socket.SOL_SOCKET, SO_TIMESTAMPNS, 1)
        c.settimeout(a.seconds)
        end = time.monotonic() + a.seconds
        while time.monotonic() < end:
            try:
                req, stamp = read_stamped(c, MSG)
            except socket.timeout:
                break
            if req is None:
                break
            t0 = time.monotonic_ns()
            wait_until(t0 + a.think_us * 1000)
            think.append(time.monotonic_ns() - t0)
            if stamp:
                held.append(time.time_ns() - stamp)
            c.sendall(req)
        c.close()
    ls.close()
    out = {"answered": len(think)}
    if think:
        out.update(min_ns=min(think), median_ns=int(statistics.median(think)),
                   mean_ns=int(statistics.mean(think)), max_ns=max(think))
    if held:
        out.update(held_count=len(held), held_mean_ns=int(statistics.mean(held)))
    print(json.dumps(out))


def request(a):
    s = socket.create_connection((a.dst, a.port), timeout=5)
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    rtts = []
    if a.gap_ms:  # the first request too: not in the handshake ACK's ms
        time.sleep(a.gap_ms / 1000)
    srtt = [tcp_info(s)[1]]
    for i in range(a.count):
        t0 = time.monotonic_ns()
        s.sendall(i.to_bytes(4, "big") + bytes(MSG - 4))
        if read_exact(s, MSG) is None:
            break
        rtts.append(time.monotonic_ns() - t0)
        srtt.append(tcp_info(s)[1])  # its ACK came before (or with) the answer
        if a.gap_ms:
            time.sleep(a.gap_ms / 1000)
    # The FIN: the server closes once it has read it, after ACKing it.
    s.shutdown(socket.SHUT_WR)
    s.settimeout(5)
    fin = read_exact(s, 1) is None
    if fin:
        srtt.append(tcp_info(s)[1])
    s.close()
    out = {"answers": len(rtts)}
    if rtts:
        out["median_ns"] = int(statistics.median(rtts))
    out.update(kernel_rtt_sum(srtt))
    print(json.dumps(out))


def kernel_rtt_sum(srtt):
    """The sum of the kernel's own RTT samples of a connection, from its
    smoothed RTT (tcpi_rtt, us) read before the first sample and after each:
    the kernel keeps S = 8 x srtt and takes each sample m as S += m - S / 8,
    so the samples sum to S_last - S_first + the sum of every reading but
    the last, exact to within 7 us (S / 8 is what TCP_INFO shows)."""
    if len(srtt) < 2:
        return {"kernel_rtt_count": 0, "kernel_rtt_sum_ns": 0}
    total = 8 * (srtt[-1] - srtt[0]) + sum(srtt[:-1])
    return {"kernel_rtt_count": len(srtt) - 1, "kernel_rtt_sum_ns": total * 1000}


TCP_INFO_RTT = 68  # offset of tcpi_rtt in struct tcp_info (tcpi_rttvar follows)
TCP_INFO_UNACKED = 24


def tcp_info(s):
    info = s.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, 104)
    unacked = struct.unpack_from("I", info, TCP_INFO_UNACKED)[0]
    rtt, rttvar = struct.unpack_from("II", info, TCP_INFO_RTT)
    return unacked, rtt, rttvar


def sink(a):
    ls = listener(a, 1)
    n = 0
    try:
        c, _ = ls.accept()
        time.sleep(a.seconds)
        c.settimeout(5)
        while True:
            data = c.recv(65536)
            if not data:
                break
            n += len(data)
        c.close()
    except socket.timeout:
        pass
    ls.close()
    print(json.dumps({"bytes": n}))


def trickle(a):
    s = socket.create_connection((a.dst, a.port), timeout=5)
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    sent = 0
    srtt = {"warm": [tcp_info(s)[1]]}
    for phase, count in (("warm", a.warm), ("timed", a.count)):
        for _ in range(count):
            t0 = time.monotonic()
            s.sendall(sent.to_bytes(4, "big") + bytes(MSG - 4))
            sent += 1
            # its ACK before the next message: one kernel sample for each
            while tcp_info(s)[0] and time.monotonic() < t0 + 1:
                time.sleep(0.0002)
            srtt[phase].append(tcp_info(s)[1])
            time.sleep(max(0.0, t0 + a.gap_ms / 1000 - time.monotonic()))
        if phase == "warm":
            srtt["timed"] = [srtt["warm"][-1]]
            print("warm", file=sys.stderr, flush=True)
            t0 = time.monotonic()
            while not os.path.exists(a.go) and time.monotonic() < t0 + 5:
                time.sleep(0.001)
            pause = time.monotonic() - t0
    unacked, rtt, rttvar = tcp_info(s)
    # The kernel's samples, one per message: m = 8 x srtt - 7 x the srtt
    # before (to within 8 us; see kernel_rtt_sum). Those of the warm-up under
    # 30 ms were ACKed at once (quickack mode, or the route's quickack): the
    # path's RTT; a delayed ACK takes 40 ms or more.
    r = srtt["warm"]
    quick = [m for m in (8 * r[i] - 7 * r[i - 1] for i in range(1, len(r))) if m < 30000]
    timed = kernel_rtt_sum(srtt["timed"])
    print(json.dumps({"sent": sent, "unacked": unacked, "rtt_us": rtt, "rttvar_us": rttvar,
                      "timed_kernel_rtt_mean_ns": timed["kernel_rtt_sum_ns"] // max(1, a.count),
                      "path_kernel_rtt_count": len(quick),
                      "path_kernel_rtt_mean_ns": 1000 * sum(quick) // max(1, len(quick)),
                      "cue_wait_ms": round(pause * 1000, 1)}),
          flush=True)
    time.sleep(1)
    s.close()


def accept(a):
    ls = listener(a, a.count)
    n = rtt_us = 0
    try:
        while n < a.count:
            c, _ = ls.accept()
            rtt_us += tcp_info(c)[1]  # its first sample: SYN-ACK out -> ACK in
            c.close()
            n += 1
    except socket.timeout:
        pass
    ls.close()
    print(json.dumps({"connections": n, "kernel_rtt_sum_ns": rtt_us * 1000}))


def connect(a):
    n = rtt_us = 0
    for _ in range(a.count):
        s = socket.create_connection((a.dst, a.port), timeout=5)
        rtt_us += tcp_info(s)[1]  # its first sample: SYN out -> SYN-ACK in
        s.settimeout(5)
        s.recv(1)  # the accept side closes: its FIN
        s.close()
        n += 1
        if a.gap_ms:
            time.sleep(a.gap_ms / 1000)
    print(json.dumps({"connections": n, "kernel_rtt_sum_ns": rtt_us * 1000}))


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("serve")
    s.add_argument("--bind", required=True)
    s.add_argument("--port", type=int, required=True)
    s.add_argument("--think-us", type=int, required=True)
    s.add_argument("--seconds", type=float, required=True)
    r = sub.add_parser("request")
    r.add_argument("--dst", required=True)
    r.add_argument("--port", type=int, required=True)
    r.add_argument("--count", type=int, required=True)
    r.add_argument("--gap-ms", type=float, default=0)
    k = sub.add_parser("sink")
    k.add_argument("--bind", required=True)
    k.add_argument("--port", type=int, required=True)
    k.add_argument("--seconds", type=float, required=True)
    t = sub.add_parser("trickle")
    t.add_argument("--dst", required=True)
    t.add_argument("--port", type=int, required=True)
    t.add_argument("--warm", type=int, required=True)
    t.add_argument("--count", type=int, required=True)
    t.add_argument("--gap-ms", type=float, required=True)
    t.add_argument("--go", required=True)
    for name in ("accept", "connect"):
        c = sub.add_parser(name)
        c.add_argument("--bind" if name == "accept" else "--dst", required=True)
        c.add_argument("--port", type=int, required=True)
        c.add_argument("--count", type=int, required=True)
        if name == "accept":
            c.add_argument("--seconds", type=float, required=True)
        else:
            c.add_argument("--gap-ms", type=float, default=0)
    a = p.parse_args()
    {"serve": serve, "request": request, "sink": sink, "trickle": trickle,
     "accept": accept, "connect": connect}[a.cmd](a)


if __name__ == "__main__":
    main()
