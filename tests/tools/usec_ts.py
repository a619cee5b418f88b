#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""usec_ts: TCP timestamps in microseconds on a route (Linux >= 6.7), which
Debian 12's iproute2 cannot set.

  usec_ts.py set DEV ADDR/LEN SRC
                                 replace the link route to ADDR/LEN on DEV
                                 (source address SRC) with the same one
                                 carrying the route feature tcp_usec_ts
                                 (RTAX_FEATURE_TCP_USEC_TS)
  usec_ts.py check ADDR PORT     connect to ADDR:PORT and print "usec" when
                                 the connection's TSvals are in microseconds
                                 (TCP_INFO tcpi_options & TCPI_OPT_USEC_TS),
                                 else "ms"

Both act in the caller's network namespace (run them under ip netns exec).
"""
import errno
import ipaddress
import socket
import struct
import sys

NETLINK_ROUTE = 0
RTM_NEWROUTE = 24
NLM_F_REQUEST, NLM_F_ACK, NLM_F_REPLACE = 0x1, 0x4, 0x100
NLMSG_ERROR = 2
RTA_DST, RTA_OIF, RTA_PREFSRC, RTA_METRICS, RTA_TABLE = 1, 4, 7, 8, 15
RTAX_FEATURES = 12
RTAX_FEATURE_TCP_USEC_TS = 1 << 4
RT_TABLE_MAIN, RTPROT_KERNEL, RT_SCOPE_LINK, RTN_UNICAST = 254, 2, 253, 1
TCPI_OPT_USEC_TS = 64


def rta(kind, payload):
    n = 4 + len(payload)
    return struct.pack("HH", n, kind) + payload + bytes((4 - n % 4) % 4)


def set_route(dev, prefix, src):
    net = ipaddress.ip_network(prefix)
    fam = socket.AF_INET if net.version == 4 else socket.AF_INET6
    body = struct.pack("BBBBBBBBI", fam, net.prefixlen, 0, 0, RT_TABLE_MAIN, RTPROT_KERNEL,
                       RT_SCOPE_LINK, RTN_UNICAST, 0)
    body += rta(RTA_DST, net.network_address.packed)
    body += rta(RTA_OIF, struct.pack("I", socket.if_nametoindex(dev)))
    body += rta(RTA_PREFSRC, ipaddress.ip_address(src).packed)
    body += rta(RTA_TABLE, struct.pack("I", RT_TABLE_MAIN))
    body += rta(RTA_METRICS, rta(RTAX_FEATURES, struct.pack("I", RTAX_FEATURE_TCP_USEC_TS)))
    flags = NLM_F_REQUEST | NLM_F_ACK | NLM_F_REPLACE
    msg = struct.pack("IHHII", 16 + len(body), RTM_NEWROUTE, flags, 1, 0) + body
    s = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, NETLINK_ROUTE)
    s.send(msg)
    reply = s.recv(4096)
    kind = struct.unpack_from("H", reply, 4)[0]
    err = struct.unpack_from("i", reply, 16)[0] if kind == NLMSG_ERROR else 0
    if err:
        sys.exit("usec_ts: %s on %s: %s" % (prefix, dev, errno.errorcode.get(-err, err)))


def check(addr, port):
    s = socket.create_connection((addr, int(port)), timeout=5)
    info = s.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, 104)
    s.close()
    print("usec" if info[5] & TCPI_OPT_USEC_TS else "ms")


def main():
    if len(sys.argv) == 5 and sys.argv[1] == "set":
        set_route(sys.argv[2], sys.argv[3], sys.argv[4])
    elif len(sys.argv) == 4 and sys.argv[1] == "check":
        check(sys.argv[2], sys.argv[3])
    else:
        sys.exit(__doc__.strip())


if __name__ == "__main__":
    main()
