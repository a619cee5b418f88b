#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""Compare two pcap files as multisets of frames (order across queues may
differ): prints "same N" or "differ: A only X, B only Y".

Usage: pcap_frames.py send IFACE FILE [MAXLEN]  (send every frame of FILE as it
                                  is, or those up to MAXLEN bytes; prints how many)
       pcap_frames.py end IFACE   (send the end marker: one fixed broadcast frame,
                                  UDP 198.18.255.1 -> 198.18.255.2 port 47999)
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


# The same bytes every time, so that two captures holding it still compare.
END_MARKER = bytes.fromhex(
    "ffffffffffff" "020000ff0001" "0800"  # broadcast, from a made-up address
    "45000020" "00004000" "4011" "0000" "c612ff01" "c612ff02"  # IPv4, 32 bytes
    "bb7fbb7f" "000c" "0000"  # UDP 47999 -> 47999, no checksum
    "656e6421"  # "end!"
)


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "end":
        import socket
        s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
        s.bind((sys.argv[2], 0))
        s.send(END_MARKER)
        return
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
