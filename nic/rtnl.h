/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Link counters of one interface: rtnetlink RTM_GETLINK, IFLA_STATS64. */
#ifndef PATHSCOPE_NIC_RTNL_H
#define PATHSCOPE_NIC_RTNL_H

#include <stddef.h>
#include <stdint.h>

#include "nic/facts.h"
#include "nic/netlink.h"

/* f->ifindex, f->ifname and f->link over rt (NETLINK_ROUTE): 0, or -errno
 * when the link cannot be read (e.g. -ENODEV). */
int ps_nic_read_link(struct ps_nl *rt, struct ps_nic_facts *f);

/* RTM_NEWLINK reply: f->ifindex, f->ifname and f->link (IFLA_STATS64). */
int ps_nic_parse_link(const void *buf, size_t len, struct ps_nic_facts *f);

#endif /* PATHSCOPE_NIC_RTNL_H */
