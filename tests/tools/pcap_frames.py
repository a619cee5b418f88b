#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""Compare two pcap files as multisets of frames (order across queues may
differ): prints "same N" or "differ: A only X, B only Y".

Usage: pcap_frames.py send IFACE FILE [MAXLEN]  (send every frame of FILE as it
                                  is, or those up to MAXLEN bytes; prints how many)
       pcap_frames.py count FILE MAXLEN  (how many frames of FILE have at most MAXLEN bytes)
       pcap_frames.py compare A B
"""
import collections
import sys

from scapy.utils import RawPcapReader


def frames(path, maxlen=None):
    out = []
    for data, _ in RawPcapReader(path):
        if maxlen is None or len(data) <= maxlen:
            out.append(bytes(data))
    return out


def main():
    if len(sys.argv) >= 4 and sys.argv[1] == "send":
        import socket
        s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
        s.bind((sys.argv[2], 0))
        maxlen = int(sys.argv[4]) if len(sys.argv) > 4 else None
        n = 0
        for f in frames(sys.argv[3], maxlen):
            s.send(f)
            n += 1
        print(n)
        return
    if len(sys.argv) == 4 and sys.argv[1] == "count":
        print(len(frames(sys.argv[2], int(sys.argv[3]))))
        return
    if len(sys.argv) >= 4 and sys.argv[1] == "compare":
        a = collections.Counter(frames(sys.argv[2]))
        b = collections.Counter(frames(sys.argv[3]))
        if a == b:
            print("same %d" % sum(a.values()))
        else:
            print("differ: A only %d, B only %d" % (sum((a - b).values()), sum((b - a).values())))
        return
    sys.exit(__doc__)


if __name__ == "__main__":
    main()
