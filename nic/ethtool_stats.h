/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* The driver's own per-queue counters, read as `ethtool -S` reads them
 * (the SIOCETHTOOL ioctl: ethtool netlink has no driver-private statistics). */
#ifndef PATHSCOPE_NIC_ETHTOOL_STATS_H
#define PATHSCOPE_NIC_ETHTOOL_STATS_H

#include <linux/types.h>
#include <stddef.h>

#include "nic/facts.h"

/* ethtool -S of f->ifname (f->estats). */
void ps_nic_read_estats(struct ps_nic_facts *f);

/* SIOCETHTOOL cmd (a struct ethtool_*) on ifname through socket fd: 0 or -errno. */
int ps_nic_eioctl(int fd, const char *ifname, void *cmd);

/*
 * The per-queue counters among the names and values of `ethtool -S`: names
 * holds nnames strings of ETH_GSTRING_LEN bytes each (ETHTOOL_GSTRINGS of
 * ETH_SS_STATS) and vals the nvals values of ETHTOOL_GSTATS, in the same
 * order. Fills e (e->q sorted; e->valid and e->why say whether any counter
 * is per queue). A name without a NUL, of no known pattern, or naming a
 * counter already found is skipped. Returns 0, -ENOMEM, or -EBADMSG when
 * nvals != nnames (the driver's set changed between the two reads: which
 * value is whose is unknown, so nothing is mapped).
 */
int ps_nic_parse_estats(const char *names, size_t nnames, const __u64 *vals, size_t nvals,
			struct ps_nic_estats *e);

#endif /* PATHSCOPE_NIC_ETHTOOL_STATS_H */
