/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* The qdiscs of one interface, read-only over rtnetlink (RTM_GETQDISC dump): kind,
 * handle, parent, TCA_STATS2 counters, and the TX queue each serves (children of
 * an mq/mqprio root: parent minor = queue + 1). */
#ifndef PATHSCOPE_NIC_QDISC_H
#define PATHSCOPE_NIC_QDISC_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ps_qdisc {
	char kind[16];
	uint32_t handle, parent;
	int txq; /* the TX queue it serves; -1: the root, or not directly under mq */
	bool has_stats;
	uint64_t bytes, packets;			     /* TCA_STATS_BASIC */
	uint32_t qlen, backlog, drops, requeues, overlimits; /* TCA_STATS_QUEUE */
};

struct ps_qdiscs {
	int ifindex;
	struct ps_qdisc *q;
	unsigned int n, cap;
	int root; /* index of the root qdisc, -1: none */
};

/* Parse one RTM_NEWQDISC datagram (possibly several messages) and append the
 * qdiscs of qs->ifindex. Returns as the parsers of nic/parse.h: <0 -errno, 0 at
 * the end of a dump, 1 parsed. Then ps_qdisc_link() sets the txq fields. */
int ps_qdisc_parse(const void *buf, size_t len, struct ps_qdiscs *qs);
void ps_qdisc_link(struct ps_qdiscs *qs);

/* Dump the qdiscs of ifindex (current network namespace): 0 or -errno. */
int ps_qdisc_read(int ifindex, struct ps_qdiscs *qs);
void ps_qdisc_free(struct ps_qdiscs *qs);

/* The qdisc serving TX queue txq: its mq child, or the root when the root is
 * not multi-queue (it serves every queue); NULL when there is none. */
const struct ps_qdisc *ps_qdisc_of_txq(const struct ps_qdiscs *qs, unsigned int txq);

json_object *ps_qdisc_json(const struct ps_qdisc *q);

#endif /* PATHSCOPE_NIC_QDISC_H */
