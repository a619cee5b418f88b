/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Why an RX queue is hot: the verdict `pathscope flows` gives for each queue that
 * carries more than 2/n of the interface's packets, from the queue's flows and the
 * NIC's RSS facts (nic/rss.h), which hot_queue.h turns into struct ps_hot_queue. */
#ifndef PATHSCOPE_STATS_ANALYSIS_FLOWS_VERDICT_H
#define PATHSCOPE_STATS_ANALYSIS_FLOWS_VERDICT_H

#include <stdbool.h>
#include <stdint.h>

/* The causes, in the order they are tried (the first that holds is the
 * verdict; every one that holds is listed):
 *   collision two or more flows on the queue each carry more than a fair
 *             share (1/n) of the interface's packets: RSS put them together,
 *             and they can be steered apart (an ntuple rule, the table's
 *             weights);
 *   elephant  one flow alone makes the queue hot: it carries more than 2/n
 *             of the interface's packets by itself, so any queue it is on
 *             is hot; RSS cannot split a flow: nothing to tune;
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
 *             not.
 * A cause that rests on sampled flow counts (collision, elephant) holds only
 * beyond their sampling error: a flow's count scaled by N (1 in N frames
 * sampled) has a standard deviation of sqrt(count x (N - 1)), and the
 * verdict takes the count less 3 of them (at N = 1: exact). */
enum ps_hot_cause {
	PS_HOT_COLLISION,
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
	uint64_t top_packets;	 /* of its heaviest flow (scaled by sample) */
	uint64_t second_packets; /* of its second heaviest (scaled) */
	uint32_t sample;	 /* N: 1 in N frames sampled (0 or 1: all) */
	/* The second flow as an ethtool ntuple rule's match ("flow-type udp4
	 * src-ip A dst-ip B src-port S dst-port D"; "" when it has none). */
	char steer[160];
	double distinct;  /* distinct flows, estimated */
	uint64_t evicted; /* its flows evicted from the full flow table */
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
	/* collision: the second flow's ntuple match (steer of its queue, "" if
	 * none) and the queue to steer it to, the one with the fewest packets. */
	char steer[160];
	uint32_t steer_to;
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
