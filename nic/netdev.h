/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Queues, NAPI ids and per-queue counters, NAPI instances: netdev generic
 * netlink. */
#ifndef PATHSCOPE_NIC_NETDEV_H
#define PATHSCOPE_NIC_NETDEV_H

#include <stddef.h>
#include <stdint.h>

#include "nic/facts.h"
#include "nic/netlink.h"

#define PS_NIC_NAPI_MAX 512

/* One NAPI instance as NAPI_GET (Linux 6.8) gives it; -1: not sent. */
struct ps_nic_napi {
	uint32_t id;
	long irq;		/* none on veth */
	long pid;		/* its thread's (threaded NAPI) */
	long defer_hard_irqs;	/* Linux 6.12 */
	long gro_flush_timeout; /* ns, Linux 6.13 */
};

struct ps_nic_napis {
	bool valid;
	char why[PS_NIC_WHY_LEN];
	unsigned int n;
	struct ps_nic_napi napi[PS_NIC_NAPI_MAX];
};

/* f->queues over gn (NETLINK_GENERIC); n/a with its reason when it
 * cannot be read. */
void ps_nic_read_netdev(struct ps_nl *gn, struct ps_nic_facts *f);

/* netdev QUEUE_GET and QSTATS_GET (scope queue) dump messages of ifindex:
 * the first appends queues, the second fills in their counters (adding a
 * queue it has not seen). Messages of other interfaces are skipped. */
int ps_nic_parse_queues(const void *buf, size_t len, int ifindex, struct ps_nic_queues *q);
int ps_nic_parse_qstats(const void *buf, size_t len, int ifindex, struct ps_nic_queues *q);
/* netdev NAPI_GET dump messages of ifindex, appended to n (others skipped;
 * past PS_NIC_NAPI_MAX dropped). */
int ps_nic_parse_napis(const void *buf, size_t len, int ifindex, struct ps_nic_napis *n);
/* ifindex's queues (QUEUE_GET: their NAPI ids) and NAPI instances over gn
 * into q (zeroed first; ps_nic_free's part: free(q->q)) and n; n/a with
 * the reason in n->why (Linux < 6.8: no NAPI_GET). */
void ps_nic_read_napis(struct ps_nl *gn, int ifindex, struct ps_nic_queues *q,
		       struct ps_nic_napis *n);
/* Sort rx queues by id, then tx queues by id. */
void ps_nic_queues_sort(struct ps_nic_queues *q);

#endif /* PATHSCOPE_NIC_NETDEV_H */
