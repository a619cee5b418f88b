/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* The hot-queue verdicts of one `pathscope flows` report (flows_verdict.h) from each
 * RX queue's flows (stats/read/flow_table.h) and the NIC's RSS (nic/rss.h); and,
 * for --flow, where RSS puts one flow beside where pathscope saw it. */
#ifndef PATHSCOPE_STATS_ANALYSIS_HOT_QUEUE_H
#define PATHSCOPE_STATS_ANALYSIS_HOT_QUEUE_H

#include <stdbool.h>
#include <linux/types.h>

#include "lib/toeplitz.h"
#include "nic/rss.h"
#include "stats/analysis/flows_verdict.h"
#include "stats/read/flow_table.h"

/* What the verdict needs of the nrx RX queues qs (entries: each queue's
 * entries in the indirection table, read only with rss->have_table) into
 * h[nrx]. A queue's protocol is its main one by packets among TCP and UDP
 * over IPv4 and IPv6; whether the NIC hashes it on addresses only comes
 * from the NIC's hashed fields where known, else from the RX hash types
 * of the queue's sampled frames. */
void ps_hot_input(const struct ps_flows_q *qs, unsigned int nrx, const struct ps_rss *rss,
		  const __u32 *entries, struct ps_hot_queue *h);

/* The verdicts of a report's nrx RX queues. */
struct ps_hot_report {
	unsigned int nrx;
	__u32 *entries;		  /* per queue: its entries in the table (0 without one) */
	bool *hot;		  /* per queue: hot, with its verdict in v */
	struct ps_hot_verdict *v; /* per queue */
};
/* 0, or -ENOMEM; ps_hot_report_free frees it either way. */
int ps_hot_report(const struct ps_flows_q *qs, unsigned int nrx, const struct ps_rss *rss,
		  struct ps_hot_report *out);
void ps_hot_report_free(struct ps_hot_report *r);

/* --flow: the queue RSS alone gives tuple t (ps_rss_predict), and where
 * pathscope saw it among the nq queue slots qs. */
struct ps_flow_check {
	int predicted; /* 0: queue and hash hold it; -1: why says why not */
	__u32 queue, hash;
	const char *why;
	long seen; /* the RX queue; -1: not seen; -2: on a queue past the attachment's */
	__u64 seen_packets;
};
void ps_flow_check(const struct ps_flows_q *qs, unsigned int nq, const struct ps_rss *rss,
		   const struct ps_tuple *t, struct ps_flow_check *out);

#endif /* PATHSCOPE_STATS_ANALYSIS_HOT_QUEUE_H */
