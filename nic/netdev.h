/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Queues, NAPI ids and per-queue counters: netdev generic netlink. */
#ifndef PATHSCOPE_NIC_NETDEV_H
#define PATHSCOPE_NIC_NETDEV_H

#include <stddef.h>
#include <stdint.h>

#include "nic/facts.h"
#include "nic/netlink.h"

/* f->queues over gn (NETLINK_GENERIC); n/a with its reason when it
 * cannot be read. */
void ps_nic_read_netdev(struct ps_nl *gn, struct ps_nic_facts *f);

/* netdev QUEUE_GET and QSTATS_GET (scope queue) dump messages of ifindex:
 * the first appends queues, the second fills in their counters (adding a
 * queue it has not seen). Messages of other interfaces are skipped. */
int ps_nic_parse_queues(const void *buf, size_t len, int ifindex, struct ps_nic_queues *q);
int ps_nic_parse_qstats(const void *buf, size_t len, int ifindex, struct ps_nic_queues *q);
/* Sort rx queues by id, then tx queues by id. */
void ps_nic_queues_sort(struct ps_nic_queues *q);

#endif /* PATHSCOPE_NIC_NETDEV_H */
