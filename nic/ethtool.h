/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Channels, rings, offload features and coalescing: ethtool generic netlink. */
#ifndef PATHSCOPE_NIC_ETHTOOL_H
#define PATHSCOPE_NIC_ETHTOOL_H

#include <stddef.h>
#include <stdint.h>

#include "nic/facts.h"
#include "nic/netlink.h"

/* f->channels, f->rings, f->features over gn (NETLINK_GENERIC); a part
 * that cannot be read is n/a with its reason. */
void ps_nic_read_ethtool(struct ps_nl *gn, struct ps_nic_facts *f);

/* ethtool -c of ifindex over gn into c (every value PS_NA first); n/a
 * with its reason ("EOPNOTSUPP: not supported by the driver", veth's). */
void ps_nic_read_coalesce(struct ps_nl *gn, int ifindex, struct ps_nic_coalesce *c);

/* ethtool CHANNELS_GET, RINGS_GET, FEATURES_GET (verbose bitsets) and
 * COALESCE_GET replies. */
int ps_nic_parse_channels(const void *buf, size_t len, struct ps_nic_channels *c);
int ps_nic_parse_rings(const void *buf, size_t len, struct ps_nic_rings *r);
int ps_nic_parse_features(const void *buf, size_t len, struct ps_nic_features *ft);
int ps_nic_parse_coalesce(const void *buf, size_t len, struct ps_nic_coalesce *c);

/* The RX and TX queues ifindex (current network namespace) has in use now:
 * its ethtool channels, combined ones counted in both. 0, or -EOPNOTSUPP
 * when the driver reports no channels, another -errno on netlink failure. */
int ps_nic_queues_in_use(int ifindex, unsigned int *rx, unsigned int *tx);

#endif /* PATHSCOPE_NIC_ETHTOOL_H */
