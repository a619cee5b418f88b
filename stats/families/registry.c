// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The registry: one line per family (its descriptor ps_family_NAME, at the end
 * of NAME.c), in path order; every output walks it in this order. */
#include "stats/families/families.h"

#define PS_FAMILIES(X)                                                             \
	X(counters)  /* packets and classes per hook and queue: the hook table */  \
	X(sizes)     /* frame and skb sizes, GRO/GSO: columns of the hook table */ \
	X(placement) /* where each RX queue runs: its XDP frames by CPU */         \
	X(firsthop)  /* IRQ, NET_RX softirq and poll before XDP */                 \
	X(icmp)	     /* ICMP echo RTT and response */                              \
	X(tcp)	     /* TCP RTT, handshake, response */                            \
	X(flows)     /* distinct and top flows per RX queue */                     \
	X(rss)	     /* the NIC's RSS, beside the flows */                         \
	X(d2s)	     /* driver to stack */                                         \
	X(sock)	     /* stack to the socket read */                                \
	X(txlat)     /* qdisc sojourn, TX completion */                            \
	X(kernel)    /* the kernel path: NAPI, GRO, drops, softirq */              \
	X(nic)	     /* the NIC's and the kernel's own counts, per queue and CPU */

#define DECLARE(name) extern const struct ps_family ps_family_##name;
#define ENTRY(name)   &ps_family_##name,

PS_FAMILIES(DECLARE)

const struct ps_family *const ps_families[] = { PS_FAMILIES(ENTRY) };
const size_t ps_nfamilies = sizeof(ps_families) / sizeof(ps_families[0]);
