/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Why an RX queue is hot: the verdict `pathscope flows` gives for each
 * queue that carries more than 2/n of the interface's packets, from the
 * queue's flows (feature flows) and the NIC's RSS facts (nic/rss.h), which
 * hot_queue.h turns into struct ps_hot_queue. The
 * causes, in the order they are tried (the first that holds is the verdict;
 * every one that holds is listed):
 *   elephant  one flow carries more than half of the queue's packets:
 *             nothing to tune;
 *   table     the indirection table gives the queue more than 1.5/n of its
 *             entries: ethtool -X;
 *   fields    the NIC hashes the queue's main protocol on addresses only
 *             (its hashed fields, or the RX hash type seen): ethtool -N
 *             rx-flow-hash;
 *   few       fewer distinct flows on the interface than 4 x the queues:
 *             more flows, or RPS;
 *   overflow  none of these, and the flow table was full in the window (it
 *             evicted flows): the flows it lost cannot be weighed, so no
 *             guess is made; sample fewer (attach --flow-sample);
 *   bytes     none of these: the flows spread by hash and their bytes do
 *             not. */
#ifndef PATHSCOPE_STATS_ANALYSIS_FLOWS_VERDICT_H
#define PATHSCOPE_STATS_ANALYSIS_FLOWS_VERDICT_H

#include <stdbool.h>
#include <stdint.h>

enum ps_hot_cause {
	PS_HOT_ELEPHANT,
	PS_HOT_TABLE,
	PS_HOT_FIELDS,
	PS_HOT_FEW,
	PS_HOT_OVERFLOW,
	PS_HOT_BYTES,
	PS_HOT_NCAUSES,
};

/* What the verdict needs of one RX queue. */
struct ps_hot_queue {
	uint32_t queue;
	uint64_t packets, bytes;
	uint64_t top_packets; /* of its heaviest flow */
	double distinct;      /* distinct flows, estimated */
	uint64_t evicted;     /* its flows evicted from the full flow table */
	/* Its main protocol (by packets) is hashed on addresses only: 1 yes,
	 * 0 no (ports too), -1 unknown (no hashed fields, no RX hash type). */
	int l3_only;
	const char *proto; /* that protocol, e.g. "udp4" (NULL: none) */
	/* Entries of the indirection table that point to it; table_entries 0:
	 * no table known. */
	uint32_t entries, table_entries;
};

struct ps_hot_verdict {
	uint32_t queue;
	double share;	   /* of the interface's packets */
	double byte_share; /* of its bytes */
	enum ps_hot_cause cause;
	bool holds[PS_HOT_NCAUSES];
	char why[PS_HOT_NCAUSES][160]; /* the figures behind each that holds */
};

/* l3_only from the RX hash types the device-bound XDP program saw on a
 * queue's sampled frames (bpf_xdp_metadata_rx_hash), for a queue whose main
 * protocol is TCP or UDP and whose NIC's hashed fields are unknown: any L4
 * type says ports are hashed (0); L3 types and no L4 one, addresses only
 * (1); neither, unknown (-1). */
int ps_hot_l3_only_rx_hash(uint64_t l4, uint64_t l3);

/* Is the queue hot: more than 2/n of the interface's packets? */
bool ps_hot(const struct ps_hot_queue *qs, unsigned int nq, unsigned int i);

/* The verdict for queue i of nq (the interface's RX queues; 0 when it
 * carried no packets or is not hot). */
int ps_hot_verdict(const struct ps_hot_queue *qs, unsigned int nq, unsigned int i,
		   struct ps_hot_verdict *v);

/* "elephant", "table", ... */
const char *ps_hot_cause_name(enum ps_hot_cause c);

/* What to do about it, one line. */
const char *ps_hot_cause_advice(enum ps_hot_cause c);

#endif /* PATHSCOPE_STATS_ANALYSIS_FLOWS_VERDICT_H */
