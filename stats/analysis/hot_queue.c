// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The hot-queue verdicts' inputs from the flows and the RSS (hot_queue.h). */
#include "stats/analysis/hot_queue.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* Queue q's main flow type (PS_RSS_*) by packets; -1: none of TCP and UDP. */
static int main_type(const struct ps_flows_q *q)
{
	__u64 by[PS_RSS_NFLOW] = { 0 }, best = 0;
	int t, main = -1;
	__u32 i;

	for (i = 0; i < q->nflows; i++) {
		t = ps_rss_flow_type(q->flows[i].key.family, q->flows[i].key.proto);
		if (t >= 0)
			by[t] += q->flows[i].packets;
	}
	for (t = 0; t < PS_RSS_NFLOW; t++)
		if (by[t] > best) {
			best = by[t];
			main = t;
		}
	return main;
}

/* 1: the queue's main protocol (type, TCP or UDP) is hashed on addresses
 * only; 0: ports too; -1: unknown. The NIC's hashed fields where known,
 * else the RX hash types the device-bound XDP program saw on the queue's
 * sampled frames: any L4 type says ports, L3 types and no L4 addresses. */
static int l3_only(const struct ps_rss *rss, int type, const struct ps_flows_q *q)
{
	int r = ps_rss_l3_only(rss, type);

	if (r >= 0 || type < 0 || !q->rx_hash)
		return r;
	return ps_hot_l3_only_rx_hash(q->rx_hash_l4, q->rx_hash_l3);
}

/* The ethtool ntuple match of a TCP or UDP flow as the queue saw it (its
 * source is the remote end): "flow-type udp4 src-ip A dst-ip B src-port S
 * dst-port D"; "" for another. */
static void steer_match(const struct ps_flow_key *k, char *buf, size_t len)
{
	char s[INET6_ADDRSTRLEN], d[INET6_ADDRSTRLEN];
	int af = k->family == 6 ? AF_INET6 : AF_INET;

	buf[0] = 0;
	if ((k->family != 4 && k->family != 6) || (k->proto != 6 && k->proto != 17) ||
	    !inet_ntop(af, k->saddr, s, sizeof(s)) || !inet_ntop(af, k->daddr, d, sizeof(d)))
		return;
	snprintf(buf, len, "flow-type %s%c src-ip %s dst-ip %s src-port %u dst-port %u",
		 k->proto == 6 ? "tcp" : "udp", k->family == 6 ? '6' : '4', s, d, ntohs(k->sport),
		 ntohs(k->dport));
}

void ps_hot_input(const struct ps_flows_q *qs, unsigned int nrx, const struct ps_rss *rss,
		  const __u32 *entries, struct ps_hot_queue *h)
{
	unsigned int i;
	int type;

	for (i = 0; i < nrx; i++) {
		type = main_type(&qs[i]);
		h[i] = (struct ps_hot_queue){
			.queue = i,
			.packets = qs[i].packets,
			.bytes = qs[i].bytes,
			.top_packets = !qs[i].nflows ? 0
				       : qs[i].flows[0].packets > qs[i].packets
					   ? qs[i].packets
					   : qs[i].flows[0].packets,
			.second_packets = qs[i].nflows < 2 ? 0 : qs[i].flows[1].packets,
			.sample = qs[i].sample,
			.distinct = qs[i].distinct,
			.evicted = qs[i].evicted,
			.l3_only = l3_only(rss, type, &qs[i]),
			.proto = type >= 0 ? ps_rss_flow_names[type] : NULL,
			.entries = rss->have_table ? entries[i] : 0,
			.table_entries = rss->have_table ? rss->table_size : 0,
		};
		if (qs[i].nflows >= 2)
			steer_match(&qs[i].flows[1].key, h[i].steer, sizeof(h[i].steer));
	}
}

int ps_hot_report(const struct ps_flows_q *qs, unsigned int nrx, const struct ps_rss *rss,
		  struct ps_hot_report *out)
{
	struct ps_hot_queue *h = calloc(nrx ? nrx : 1, sizeof(*h));
	unsigned int i;

	memset(out, 0, sizeof(*out));
	out->nrx = nrx;
	out->entries = calloc(nrx ? nrx : 1, sizeof(*out->entries));
	out->hot = calloc(nrx ? nrx : 1, sizeof(*out->hot));
	out->v = calloc(nrx ? nrx : 1, sizeof(*out->v));
	if (!h || !out->entries || !out->hot || !out->v) {
		free(h);
		return -ENOMEM;
	}
	if (rss->have_table)
		ps_rss_entries_per_queue(rss, out->entries, nrx);
	ps_hot_input(qs, nrx, rss, out->entries, h);
	for (i = 0; i < nrx; i++)
		out->hot[i] = ps_hot_verdict(h, nrx, i, &out->v[i]) == 1;
	free(h);
	return 0;
}

void ps_hot_report_free(struct ps_hot_report *r)
{
	free(r->entries);
	free(r->hot);
	free(r->v);
	memset(r, 0, sizeof(*r));
}

static bool same_flow(const struct ps_flow_key *k, const struct ps_tuple *t)
{
	size_t n = t->family == 6 ? 16 : 4;

	return k->family == t->family && k->proto == t->proto && ntohs(k->sport) == t->sport &&
	       ntohs(k->dport) == t->dport && !memcmp(k->saddr, t->src, n) &&
	       !memcmp(k->daddr, t->dst, n);
}

void ps_flow_check(const struct ps_flows_q *qs, unsigned int nq, const struct ps_rss *rss,
		   const struct ps_tuple *t, struct ps_flow_check *out)
{
	unsigned int i;
	__u32 j;

	memset(out, 0, sizeof(*out));
	out->predicted = ps_rss_predict(rss, t, &out->queue, &out->hash, &out->why);
	out->seen = -1;
	for (i = 0; i < nq; i++)
		for (j = 0; j < qs[i].nflows; j++)
			if (same_flow(&qs[i].flows[j].key, t)) {
				out->seen_packets = qs[i].flows[j].packets;
				out->seen =
				    qs[i].queue == PS_QUEUE_UNKNOWN ? -2 : (long)qs[i].queue;
				return;
			}
}
