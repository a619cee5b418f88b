/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* The parsers of nic/'s readers, apart from the socket I/O, in one include for the
 * tests and fuzzers that feed them recorded messages; each returns as
 * nic/netlink.h's ps_nl_parse_fn says. */
#ifndef PATHSCOPE_NIC_PARSE_H
#define PATHSCOPE_NIC_PARSE_H

#include "nic/ethtool.h"       /* channels, rings, features */
#include "nic/ethtool_stats.h" /* ethtool -S */
#include "nic/netdev.h"	       /* queues, qstats */
#include "nic/netlink.h"       /* generic netlink families */
#include "nic/rtnl.h"	       /* link */

#endif /* PATHSCOPE_NIC_PARSE_H */
