#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""flowsend: flows of known 5-tuples, for the flows tests (test_flows.sh).

  flowsend.py udp SRC SPORT DST DPORT COUNT BYTES [NFLOWS]
  flowsend.py tcp SRC SPORT DST DPORT BYTES
  flowsend.py tcp-sink ADDR PORT

udp: NFLOWS (default 1) flows, one after the other, from source ports SPORT,
SPORT + 1, ...: each exactly COUNT datagrams of BYTES bytes of UDP payload
from one socket bound to SRC:port and connected to DST:DPORT (IPv6 when the
addresses are). IP_RECVERR is set, so a datagram the device could not take
(ENOBUFS) is an error that is retried (for at most 2 s), and the count stays
exact.
tcp: one connection from SRC:SPORT to DST:DPORT: BYTES bytes, then the
sender shuts its side down and reads until the peer closes.
tcp-sink: accepts one connection on ADDR:PORT, reads until its end, closes,
exits; prints "ready" on stderr once it listens.
Exit 1 with one line on stderr on any other error.
"""
import errno
import socket
import sys
import time

# <linux/in.h>, <linux/in6.h>: not in every Python's socket module
IP_RECVERR = getattr(socket, "IP_RECVERR", 11)
IPV6_RECVERR = getattr(socket, "IPV6_RECVERR", 25)


def family(addr):
    return socket.AF_INET6 if ":" in addr else socket.AF_INET


def udp(src, sport, dst, dport, count, size, nflows):
    fam = family(dst)
    payload = b"f" * size
    for i in range(nflows):
        s = socket.socket(fam, socket.SOCK_DGRAM)
        if fam == socket.AF_INET6:
            s.setsockopt(socket.IPPROTO_IPV6, IPV6_RECVERR, 1)
        else:
            s.setsockopt(socket.IPPROTO_IP, IP_RECVERR, 1)
        s.bind((src, sport + i))
        s.connect((dst, dport))
        for _ in range(count):
            deadline = None
            while True:
                try:
                    s.send(payload)
                    break
                except OSError as e:
                    if e.errno not in (errno.ENOBUFS, errno.EAGAIN):
                        raise
                    now = time.monotonic()
                    deadline = deadline or now + 2
                    if now > deadline:
                        raise
                    time.sleep(0.0001)
        s.close()


def tcp(src, sport, dst, dport, size):
    s = socket.socket(family(dst), socket.SOCK_STREAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind((src, sport))
    s.settimeout(10)
    s.connect((dst, dport))
    s.sendall(b"t" * size)
    s.shutdown(socket.SHUT_WR)
    while s.recv(65536):
        pass
    s.close()


def tcp_sink(addr, port):
    ls = socket.socket(family(addr), socket.SOCK_STREAM)
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    ls.bind((addr, port))
    ls.listen(1)
    ls.settimeout(30)
    print("ready", file=sys.stderr, flush=True)
    c, _ = ls.accept()
    c.settimeout(10)
    while c.recv(65536):
        pass
    c.close()
    ls.close()


def main(argv):
    try:
        if len(argv) in (8, 9) and argv[1] == "udp":
            udp(argv[2], int(argv[3]), argv[4], int(argv[5]), int(argv[6]), int(argv[7]),
                int(argv[8]) if len(argv) == 9 else 1)
        elif len(argv) == 7 and argv[1] == "tcp":
            tcp(argv[2], int(argv[3]), argv[4], int(argv[5]), int(argv[6]))
        elif len(argv) == 4 and argv[1] == "tcp-sink":
            tcp_sink(argv[2], int(argv[3]))
        else:
            print(__doc__.strip().split("\n\n")[1], file=sys.stderr)
            return 2
    except (OSError, ValueError) as e:
        print(f"flowsend: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
