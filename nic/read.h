/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* pathscope's NIC facts of one interface, each part from its reader (rtnl.c,
 * ethtool.c, netdev.c, ethtool_stats.c); the facts themselves: nic/facts.h. */
#ifndef PATHSCOPE_NIC_READ_H
#define PATHSCOPE_NIC_READ_H

#include "nic/facts.h"

/*
 * Read everything about ifindex in the current network namespace. Returns 0
 * even when some parts are n/a (each says why); -1 after printing one line
 * (ps_error) on a hard failure, e.g. no such interface. Free with ps_nic_free.
 */
int ps_nic_read(int ifindex, struct ps_nic_facts *f);

#endif /* PATHSCOPE_NIC_READ_H */
