// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The hot-queue verdict (see flows_verdict.h). */
#include "stats/analysis/flows_verdict.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static uint64_t total_packets(const struct ps_hot_queue *qs, unsigned int nq)
{
	uint64_t n = 0;
	unsigned int i;

	for (i = 0; i < nq; i++)
		n += qs[i].packets;
	return n;
}

bool ps_hot(const struct ps_hot_queue *qs, unsigned int nq, unsigned int i)
{
	uint64_t all = total_packets(qs, nq);

	/* share > 2/n, in integers: packets * n > 2 * all */
	return nq > 1 && all && qs[i].packets * (uint64_t)nq > 2 * all;
}

/* A flow's scaled count less 3 standard deviations of its sampling: 1 in N
 * frames, counted N each, has a variance of count x (N - 1). */
static double low(uint64_t count, uint32_t n)
{
	return n > 1 ? (double)count - 3 * sqrt((double)count * (n - 1)) : (double)count;
}

int ps_hot_verdict(const struct ps_hot_queue *qs, unsigned int nq, unsigned int i,
		   struct ps_hot_verdict *v)
{
	const struct ps_hot_queue *q = &qs[i];
	uint64_t all = total_packets(qs, nq), all_bytes = 0, evicted = 0;
	double distinct = 0, top, fair;
	unsigned int k, coolest;
	int c;

	memset(v, 0, sizeof(*v));
	if (!ps_hot(qs, nq, i))
		return 0;
	for (k = 0; k < nq; k++) {
		all_bytes += qs[k].bytes;
		distinct += qs[k].distinct;
		evicted += qs[k].evicted;
	}
	v->queue = q->queue;
	v->share = (double)q->packets / (double)all;
	v->byte_share = all_bytes ? (double)q->bytes / (double)all_bytes : 0;
	fair = (double)all / nq;
	top = low(q->top_packets, q->sample);
	if (q->second_packets && low(q->second_packets, q->sample) > fair) {
		v->holds[PS_HOT_COLLISION] = true;
		snprintf(v->steer, sizeof(v->steer), "%s", q->steer);
		for (k = 1, coolest = 0; k < nq; k++)
			if (qs[k].packets < qs[coolest].packets)
				coolest = k;
		v->steer_to = qs[coolest].queue;
		snprintf(v->why[PS_HOT_COLLISION], sizeof(v->why[0]),
			 "its top two flows carry %.0f%% and %.0f%% of the interface's packets, "
			 "each over a fair share (%.0f%%)",
			 100.0 * q->top_packets / all, 100.0 * q->second_packets / all, 100.0 / nq);
	}
	/* The top flow alone is over 2/n: any queue it is on is hot. */
	if (top > 2.0 * all / nq) {
		v->holds[PS_HOT_ELEPHANT] = true;
		snprintf(v->why[PS_HOT_ELEPHANT], sizeof(v->why[0]),
			 "its top flow alone carries %.0f%% of the interface's packets (over 2/n: "
			 "%.0f%%)",
			 100.0 * q->top_packets / all, 200.0 / nq);
	}
	/* entries / table > 1.5 / n, in integers */
	if (q->table_entries && (uint64_t)q->entries * nq * 2 > (uint64_t)q->table_entries * 3) {
		v->holds[PS_HOT_TABLE] = true;
		snprintf(v->why[PS_HOT_TABLE], sizeof(v->why[0]),
			 "the indirection table gives it %u of %u entries (%.0f%%; even: %.0f%%)",
			 q->entries, q->table_entries, 100.0 * q->entries / q->table_entries,
			 100.0 / nq);
	}
	if (q->l3_only == 1) {
		v->holds[PS_HOT_FIELDS] = true;
		snprintf(v->why[PS_HOT_FIELDS], sizeof(v->why[0]),
			 "the NIC hashes %s on addresses only, not ports",
			 q->proto ? q->proto : "it");
	}
	if (distinct < 4.0 * nq) {
		v->holds[PS_HOT_FEW] = true;
		snprintf(v->why[PS_HOT_FEW], sizeof(v->why[0]),
			 "%.0f distinct flows for %u queues (fewer than 4 per queue)", distinct,
			 nq);
	}
	if (evicted) {
		v->holds[PS_HOT_OVERFLOW] = true;
		snprintf(v->why[PS_HOT_OVERFLOW], sizeof(v->why[0]),
			 "the flow table was full: %llu flows evicted, %llu of them this queue's",
			 (unsigned long long)evicted, (unsigned long long)q->evicted);
	}
	v->holds[PS_HOT_BYTES] = true;
	snprintf(v->why[PS_HOT_BYTES], sizeof(v->why[0]),
		 "%.0f%% of the packets and %.0f%% of the bytes; its flows: %.0f of %.0f",
		 v->share * 100, v->byte_share * 100, q->distinct, distinct);
	for (c = 0; c < PS_HOT_NCAUSES; c++)
		if (v->holds[c]) {
			v->cause = (enum ps_hot_cause)c;
			break;
		}
	return 1;
}

const char *ps_hot_cause_name(enum ps_hot_cause c)
{
	static const char *const names[] = { "collision", "elephant", "table", "fields",
					     "few",	  "overflow", "bytes" };

	return (unsigned int)c < PS_HOT_NCAUSES ? names[c] : "?";
}

const char *ps_hot_cause_advice(enum ps_hot_cause c)
{
	switch (c) {
	case PS_HOT_COLLISION:
		return "flows hashed to one queue: steer one to the coolest (the rule below), "
		       "or weigh the table: ethtool -X IFACE weight ...";
	case PS_HOT_ELEPHANT:
		return "one elephant flow: RSS cannot split a flow; nothing to tune";
	case PS_HOT_TABLE:
		return "an uneven indirection table: spread it with ethtool -X IFACE equal N";
	case PS_HOT_FIELDS:
		return "the NIC hashes on addresses only: ethtool -N IFACE rx-flow-hash PROTO sdfn";
	case PS_HOT_FEW:
		return "fewer flows than queues can spread: more flows (connections), or RPS";
	case PS_HOT_OVERFLOW:
		return "the flow table overflowed: its flows are not all known; sample fewer "
		       "(attach --flow-sample N)";
	case PS_HOT_BYTES:
	default:
		return "the flows spread by hash and their bytes do not: some flows are heavier";
	}
}

int ps_hot_l3_only_rx_hash(uint64_t l4, uint64_t l3)
{
	if (l4)
		return 0;
	return l3 ? 1 : -1;
}
