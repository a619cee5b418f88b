/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* The flows of each RX queue (feature flows, include/pathscope/flows.bpf.h): the reader
 * that `pathscope flows`, stats and serve use. */
#ifndef PATHSCOPE_STATS_READ_FLOW_TABLE_H
#define PATHSCOPE_STATS_READ_FLOW_TABLE_H

#include <stdbool.h>
#include <linux/types.h>

#include "pathscope/abi.h"

struct ps_snapshot;

struct ps_flow_row {
	struct ps_flow_key key; /* key.queue: the RX queue slot */
	__u64 packets, bytes;	/* scaled by N (in a snapshot: as sampled) */
};

/* Counts: the datapath counts 1 in N frames (attach --flow-sample N, in the
 * pinned meta); a flow's packets and bytes here are its sampled counts times
 * N, an unbiased estimate (exact with N = 1 while the flows fit the table of
 * PS_FLOWS_MAX; an evicted flow's counts are gone). A queue's packets and
 * bytes are the XDP hook's own counts, exact at any N.
 * RX hash types: where attach loaded the device-bound XDP program (flags
 * PS_META_RX_HASH, map flows_rxhash), per queue the sampled frames whose RX
 * hash the driver typed L4, L3 only, or gave none (abi.h, ps_rx_hash_q). */
struct ps_flows_q {
	__u32 queue;	      /* RX queue; PS_QUEUE_UNKNOWN for slot "other" */
	__u64 packets, bytes; /* of the queue (the XDP hook's counts: exact) */
	__u64 sampled;	      /* frames sampled (not scaled) */
	__u32 sample;	      /* N: 1 in N frames sampled, the flows' counts scaled by it */
	double distinct;      /* distinct flows since attach (HyperLogLog) */
	double distinct_err;  /* its relative standard error */
	__u32 nflows;	      /* flows with frames in the interval */
	__u64 evicted;	      /* flows evicted from the full table in the interval */
	/* The RX hash's type of the sampled frames (not scaled): with
	 * rx_hash false, not measured (not the device-bound XDP program). */
	bool rx_hash;
	__u64 rx_hash_l4, rx_hash_l3, rx_hash_none;
	struct ps_flow_row *flows; /* this queue's, sorted by packets, descending */
};

/* Does the snapshot have the flows maps? */
bool ps_flows_on(const struct ps_snapshot *s);
/* N: 1 in N frames sampled. */
__u32 ps_flows_sample(const struct ps_snapshot *s);

/* Per queue slot (nq = nslots), over the interval prev -> cur (prev NULL:
 * since attach); 0 or -errno. The caller frees with ps_flows_free. */
int ps_flows_read(const struct ps_snapshot *cur, const struct ps_snapshot *prev,
		  struct ps_flows_q **qs, unsigned int *nq);
void ps_flows_free(struct ps_flows_q *qs, unsigned int nq);

/* Flows of queue slot q (q == nslots: all) evicted from the flow table
 * since attach: those it added (flows_new) that it no longer holds. An LRU
 * hash evicts without a word; this is its count. */
__u64 ps_flows_evicted(const struct ps_snapshot *s, unsigned int q);

/* Distinct flows: a HyperLogLog of PS_HLL_REGS registers per queue, since
 * attach, over the sampled frames (with N > 1 a flow of k frames is seen with
 * probability 1 - (1 - 1/N)^k, so mice may be missed); relative standard
 * error 1.04 / sqrt(PS_HLL_REGS) (6.5%), and linear counting below 2.5 x
 * PS_HLL_REGS, so that 10 flows read as about 10. Over an interval it cannot
 * be split: nflows (the flows whose counts moved) is what the interval gives. */

/* The HyperLogLog estimate of m registers (linear counting for small
 * ranges), and of queue slot q of a snapshot (q == nslots: all queues,
 * the union). */
double ps_hll_estimate(const __u8 *regs, unsigned int m);
double ps_flows_distinct(const struct ps_snapshot *s, unsigned int q);
#define PS_HLL_ERR 0.065 /* 1.04 / sqrt(PS_HLL_REGS) */

/* Read the flows maps pinned in dir into s (ps_snapshot_read calls it);
 * nothing when they are not pinned. 0 or -errno. */
int ps_flows_snapshot_read(const char *dir, struct ps_snapshot *s, int ncpus);

#endif /* PATHSCOPE_STATS_READ_FLOW_TABLE_H */
