#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""Write a corpus of hostile and malformed Ethernet frames as a pcap file.

Usage: hostile_corpus.py OUT.pcap [SEED]

Deterministic for a seed: fuzzed and truncated Ethernet, VLAN (802.1Q and
802.1ad, deep stacks), IPv4 (bad IHL, bad lengths, options), IPv6 with
extension-header chains (deep, truncated), TCP/UDP/ICMP/ICMPv6, fragments,
runts and 9000-byte jumbo frames. Destination MAC and IP addresses are the
test's receiver (198.18.0.2, 2001:db8::2), so every frame reaches it.
"""
import random
import sys

from scapy.all import (ICMP, IP, TCP, UDP, Dot1AD, Dot1Q, Ether, ICMPv6EchoRequest,
                       IPv6, IPv6ExtHdrDestOpt, IPv6ExtHdrFragment, IPv6ExtHdrHopByHop,
                       IPv6ExtHdrRouting, Raw, fragment, fuzz)
from scapy.utils import RawPcapWriter

DST_MAC, SRC_MAC = "02:00:c6:12:00:02", "02:00:c6:12:00:01"
SRC4, DST4 = "198.18.0.1", "198.18.0.2"
SRC6, DST6 = "2001:db8::1", "2001:db8::2"
MAX_FRAME = 9014  # 9000-byte MTU + Ethernet header


def eth():
    return Ether(dst=DST_MAC, src=SRC_MAC)


def l4(rng, v6):
    kind = rng.randrange(4)
    if kind == 0:
        return TCP(sport=rng.randrange(1, 65535), dport=rng.randrange(1, 65535),
                   flags=rng.choice(["S", "SA", "A", "FPU", ""]))
    if kind == 1:
        return UDP(sport=rng.randrange(1, 65535), dport=rng.randrange(1, 65535))
    if kind == 2:
        return ICMPv6EchoRequest() if v6 else ICMP(type=rng.choice([0, 8, 3, 11]))
    return Raw(bytes(rng.randrange(256) for _ in range(rng.randrange(0, 16))))


def payload(rng, size):
    return Raw(bytes(rng.randrange(256) for _ in range(size)))


def ipv6_chain(rng):
    chain = IPv6(src=SRC6, dst=DST6, tc=rng.randrange(256))
    for _ in range(rng.randrange(0, 9)):  # up to 8 headers: past the parser's 6
        chain = chain / rng.choice([IPv6ExtHdrHopByHop(), IPv6ExtHdrDestOpt(),
                                    IPv6ExtHdrRouting(), IPv6ExtHdrFragment(m=1)])
    return chain


def frames(rng):
    out = []
    for _ in range(300):  # well-formed skeletons with random fields
        v6 = rng.random() < 0.4
        ip = ipv6_chain(rng) if v6 else IP(src=SRC4, dst=DST4, tos=rng.randrange(256))
        out.append(eth() / ip / l4(rng, v6) / payload(rng, rng.randrange(0, 200)))
    for _ in range(300):  # scapy's fuzz(): every field random
        out.append(eth() / fuzz(IP(src=SRC4, dst=DST4)) / fuzz(UDP()) / payload(rng, 20))
        out.append(eth() / fuzz(IPv6(src=SRC6, dst=DST6)) / fuzz(TCP()))
    for _ in range(100):  # VLAN stacks, 1 to 4 deep
        depth = rng.randrange(1, 5)
        f = eth()
        for d in range(depth):
            f = f / (Dot1AD(vlan=rng.randrange(4096)) if d == 0 and depth > 1
                     else Dot1Q(vlan=rng.randrange(4096)))
        out.append(f / IP(src=SRC4, dst=DST4) / UDP() / payload(rng, 10))
    for _ in range(100):  # broken IPv4 headers
        ip = IP(src=SRC4, dst=DST4, ihl=rng.choice([0, 1, 4, 6, 15]),
                len=rng.choice([0, 1, 19, 20, 65535]), options=[])
        out.append(eth() / ip / UDP() / payload(rng, rng.randrange(0, 64)))
    for _ in range(20):  # fragments, IPv4 and IPv6
        big = IP(src=SRC4, dst=DST4) / UDP(dport=9) / payload(rng, 3000)
        out.extend(eth() / f for f in fragment(big, fragsize=rng.choice([8, 64, 1400])))
        out.append(eth() / IPv6(src=SRC6, dst=DST6) /
                   IPv6ExtHdrFragment(offset=rng.randrange(1, 8000), m=rng.randrange(2)) /
                   payload(rng, 100))
    for _ in range(20):  # jumbo frames, up to a 9000-byte MTU
        size = rng.randrange(8000, MAX_FRAME - 14 - 28)
        out.append(eth() / IP(src=SRC4, dst=DST4) / UDP(dport=9) / payload(rng, size))
    raw = []
    for f in out:
        b = bytes(f)[:MAX_FRAME]
        raw.append(b)
        if rng.random() < 0.3:  # the same frame cut short anywhere
            raw.append(b[:rng.randrange(14, max(15, len(b)))])
    for _ in range(50):  # runts and garbage after a valid Ethernet header
        raw.append(bytes(eth())[:12] + bytes(rng.randrange(256)
                                               for _ in range(rng.randrange(2, 50))))
    rng.shuffle(raw)
    return raw


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    seed = int(sys.argv[2]) if len(sys.argv) > 2 else 1
    rng = random.Random(seed)
    random.seed(seed)  # scapy's fuzz() draws from the module's generator
    raw = frames(rng)
    with RawPcapWriter(sys.argv[1], linktype=1) as w:  # the bytes as they are
        for b in raw:
            w.write(b)
    print(len(raw))


if __name__ == "__main__":
    main()
