/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Interface facts from rtnetlink (libmnl), read-only. */
#ifndef PATHSCOPE_LOADER_IFACE_H
#define PATHSCOPE_LOADER_IFACE_H

#include <net/if.h>
#include <stdbool.h>

struct ps_iface {
	int ifindex;
	char name[IF_NAMESIZE];
	unsigned int type; /* ARPHRD_* */
	char kind[16];	   /* rtnetlink link kind ("veth", ...); empty for NIC drivers */
	unsigned int num_rx_queues;
	unsigned int num_tx_queues;
	unsigned int mtu;
	bool up;
};

/* Look up an interface of the current network namespace by name (or by
 * index when ifindex > 0 and name is NULL). Returns 0, -ENODEV when absent,
 * another -errno on netlink failure. */
int ps_iface_get(const char *name, int ifindex, struct ps_iface *out);

/* Same, with a one-line error for the user; also refuses non-Ethernet links. */
int ps_iface_require_ethernet(const char *name, struct ps_iface *out);

#endif /* PATHSCOPE_LOADER_IFACE_H */
