/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The parsers of nic/'s readers, in one include for the tests and fuzzers
 * that feed them recorded messages: netlink.h (families), rtnl.h (link),
 * ethtool.h (channels, rings, features), netdev.h (queues, qstats),
 * ethtool_stats.h (ethtool -S). They are apart from the socket I/O.
 *
 * Each takes one received datagram (one or more complete netlink messages)
 * and returns:
 *   < 0  -errno: the kernel's error reply (e.g. -EOPNOTSUPP), -EBADMSG for a
 *        message cut short or malformed, -EPROTO for an unexpected message;
 *     0  a dump ended (NLMSG_DONE) or the kernel acknowledged;
 *     1  parsed; in a dump more may follow.
 * Attributes are validated with mnl_attr_validate: one with a wrong length is
 * ignored (its value stays n/a), unknown ones are skipped.
 */
#ifndef PATHSCOPE_NIC_PARSE_H
#define PATHSCOPE_NIC_PARSE_H

#include "nic/ethtool.h"
#include "nic/ethtool_stats.h"
#include "nic/netdev.h"
#include "nic/netlink.h"
#include "nic/rtnl.h"

#endif /* PATHSCOPE_NIC_PARSE_H */
