// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* `pathscope flows IFACE`: the flows behind each RX queue (feature flows,
 * stats/flows.h), the NIC's RSS (nic/rss.h), and why a hot queue is hot
 * (stats/flows_verdict.h). With --flow, the queue RSS predicts for one flow
 * beside the queue pathscope saw it on. */
#include <arpa/inet.h>
#include <errno.h>
#include <json-c/json.h>
#include <linux/ethtool.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/options.h"
#include "lib/toeplitz.h"
#include "lib/util.h"
#include "nic/rss.h"
#include "stats/render/rss_report.h"
#include "stats/families/families.h"
#include "stats/read/flow_table.h"
#include "stats/analysis/flows_verdict.h"
#include "stats/format/json.h"
#include "stats/read/snapshot.h"

/* clang-format off */
static const char flows_help[] =
    "usage: pathscope flows IFACE [--interval S] [--count N] [--top K] [--json]\n"
    "                       [--flow SRC DST PROTO SPORT DPORT]\n"
    "The flows behind each RX queue of IFACE (attached with --features ...,flows),\n"
    "its RSS, and a verdict for each hot queue (more than 2/n of the packets):\n"
    "  elephant  one flow carries more than half of the queue: nothing to tune\n"
    "  table     the indirection table gives it more than 1.5/n of its entries\n"
    "  fields    the NIC hashes its protocol on addresses only, not ports\n"
    "  few       fewer distinct flows than 4 x the queues\n"
    "  bytes     none of these: the flows spread and their bytes do not\n"
    "and a queue the indirection table gives no entry is named: RSS sends it nothing.\n"
    "Per queue: packets and bytes (exact) and their share, the distinct flows it\n"
    "saw since attach (HyperLogLog, +-6.5%), the flows of the interval and the\n"
    "top K with their share of the queue (sampled 1 in N frames, scaled by N:\n"
    "attach --flow-sample). Without --interval: since attach.\n"
    "  -i, --interval S  over S seconds\n"
    "  -c, --count N     N reports (default 1; with --count alone the interval is 1 s)\n"
    "  -t, --top K       flows shown per queue (default 5, at most 100)\n"
    "  -j, --json        one JSON object per report\n"
    "  --flow SRC DST PROTO SPORT DPORT\n"
    "                    the queue this NIC's Toeplitz key and table predict for\n"
    "                    that flow (PROTO tcp or udp), and where pathscope saw it;\n"
    "                    no prediction where the hash is not Toeplitz or ntuple\n"
    "                    rules steer flows\n"
    "examples:\n"
    "  pathscope attach eth1 --features default,flows\n"
    "  pathscope flows eth1 --interval 10\n"
    "  pathscope flows eth1 --interval 5 --top 3 --json | jq '.hot'\n"
    "  pathscope flows eth1 --flow 198.18.0.1 198.18.0.2 udp 40000 9\n";
/* clang-format on */

#define MAX_TOP 100

struct flow_arg {
	bool given;
	struct ps_tuple t;
	char text[160];
};

struct view {
	const char *ifname;
	double interval; /* 0: since attach */
	unsigned int top;
	bool json;
	struct flow_arg flow;
	const struct ps_rss *rss;
};

/* ---- names ------------------------------------------------------------------------- */

static const char *proto_name(__u8 p, char *buf, size_t len)
{
	switch (p) {
	case IPPROTO_TCP:
		return "tcp";
	case IPPROTO_UDP:
		return "udp";
	case IPPROTO_ICMP:
		return "icmp";
	case IPPROTO_ICMPV6:
		return "icmpv6";
	}
	snprintf(buf, len, "%u", p);
	return buf;
}

static void addr_text(const struct ps_flow_key *k, const __u8 *a, char *buf, size_t len)
{
	if (!inet_ntop(k->family == 6 ? AF_INET6 : AF_INET, a, buf, (socklen_t)len))
		snprintf(buf, len, "?");
}

/* "udp 198.18.0.1:40000 > 198.18.0.2:9", "icmp 198.18.0.1 > 198.18.0.2",
 * "ethertype 0x0806" */
static void flow_text(const struct ps_flow_key *k, char *buf, size_t len)
{
	char s[INET6_ADDRSTRLEN], d[INET6_ADDRSTRLEN], p[8];
	const char *pn = proto_name(k->proto, p, sizeof(p));
	bool ports = k->proto == IPPROTO_TCP || k->proto == IPPROTO_UDP;
	bool v6 = k->family == 6;

	if (!k->family) {
		snprintf(buf, len, "ethertype 0x%04x", ntohs(k->ethertype));
		return;
	}
	addr_text(k, k->saddr, s, sizeof(s));
	addr_text(k, k->daddr, d, sizeof(d));
	if (ports)
		snprintf(buf, len, "%s %s%s%s:%u > %s%s%s:%u", pn, v6 ? "[" : "", s, v6 ? "]" : "",
			 ntohs(k->sport), v6 ? "[" : "", d, v6 ? "]" : "", ntohs(k->dport));
	else
		snprintf(buf, len, "%s %s > %s", pn, s, d);
}

/* The flow type RSS reads fields for, or -1. */
static int flow_type(const struct ps_flow_key *k)
{
	if (k->proto != IPPROTO_TCP && k->proto != IPPROTO_UDP)
		return -1;
	if (k->family == 4)
		return k->proto == IPPROTO_TCP ? PS_RSS_TCP4 : PS_RSS_UDP4;
	if (k->family == 6)
		return k->proto == IPPROTO_TCP ? PS_RSS_TCP6 : PS_RSS_UDP6;
	return -1;
}

/* ---- the verdicts' input ------------------------------------------------------------ */

/* Queue q's main flow type by packets (-1: none of TCP and UDP). */
static int main_type(const struct ps_flows_q *q)
{
	__u64 by[PS_RSS_NFLOW] = { 0 }, best = 0;
	int t, main = -1;
	__u32 i;

	for (i = 0; i < q->nflows; i++) {
		t = flow_type(&q->flows[i].key);
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

/* From the NIC's hashed fields: 1: addresses and no port; 0: ports too;
 * -1: unknown. */
static int fields_l3_only(const struct ps_rss *rss, int type)
{
	__u32 f;

	if (type < 0 || !rss->have_fields || rss->fields[type] == PS_RSS_FIELDS_NA)
		return -1;
	f = rss->fields[type];
	if (f & PS_RXH_DISCARD)
		return -1;
	if (f & (RXH_L4_B_0_1 | RXH_L4_B_2_3))
		return 0;
	return (f & (RXH_IP_SRC | RXH_IP_DST)) ? 1 : -1;
}

/* 1: the queue's main protocol (type, TCP or UDP) is hashed on addresses
 * only; 0: ports too; -1: unknown. The NIC's hashed fields where known,
 * else the RX hash types the device-bound XDP program saw on the queue's
 * sampled frames: any L4 type says ports, L3 types and no L4 addresses. */
static int l3_only(const struct ps_rss *rss, int type, const struct ps_flows_q *q)
{
	int r = fields_l3_only(rss, type);

	if (r >= 0 || type < 0 || !q->rx_hash)
		return r;
	return ps_hot_l3_only_rx_hash(q->rx_hash_l4, q->rx_hash_l3);
}

/* The RX queues: the attachment's (its slots but "other"). */
static void hot_input(const struct ps_flows_q *qs, unsigned int nrx, const struct ps_rss *rss,
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
			.distinct = qs[i].distinct,
			.l3_only = l3_only(rss, type, &qs[i]),
			.proto = type >= 0 ? ps_rss_flow_names[type] : NULL,
			.entries = rss->have_table ? entries[i] : 0,
			.table_entries = rss->have_table ? rss->table_size : 0,
		};
	}
}

/* ---- --flow ----------------------------------------------------------------------------- */

static int parse_flow(char **a, struct flow_arg *f)
{
	struct ps_tuple *t = &f->t;
	uint64_t sp, dp;
	int fam;

	memset(f, 0, sizeof(*f));
	fam = strchr(a[0], ':') ? AF_INET6 : AF_INET;
	if (inet_pton(fam, a[0], t->src) != 1 || inet_pton(fam, a[1], t->dst) != 1)
		return ps_error("bad --flow addresses '%s' '%s' (two IPv4 or two IPv6 addresses)",
				a[0], a[1]),
		       -1;
	t->family = fam == AF_INET6 ? 6 : 4;
	if (!strcmp(a[2], "tcp"))
		t->proto = IPPROTO_TCP;
	else if (!strcmp(a[2], "udp"))
		t->proto = IPPROTO_UDP;
	else
		return ps_error("bad --flow protocol '%s' (tcp or udp)", a[2]), -1;
	if (!ps_parse_u64(a[3], 65535, &sp) || !ps_parse_u64(a[4], 65535, &dp))
		return ps_error("bad --flow ports '%s' '%s' (0 to 65535)", a[3], a[4]), -1;
	t->sport = (__u16)sp;
	t->dport = (__u16)dp;
	f->given = true;
	snprintf(f->text, sizeof(f->text), "%s %s%s%s:%s > %s%s%s:%s", a[2],
		 fam == AF_INET6 ? "[" : "", a[0], fam == AF_INET6 ? "]" : "", a[3],
		 fam == AF_INET6 ? "[" : "", a[1], fam == AF_INET6 ? "]" : "", a[4]);
	return 0;
}

static bool same_flow(const struct ps_flow_key *k, const struct ps_tuple *t)
{
	size_t n = t->family == 6 ? 16 : 4;

	return k->family == t->family && k->proto == t->proto && ntohs(k->sport) == t->sport &&
	       ntohs(k->dport) == t->dport && !memcmp(k->saddr, t->src, n) &&
	       !memcmp(k->daddr, t->dst, n);
}

/* Where pathscope saw the flow: its queue and packets; -1: not seen. */
static long seen_on(const struct ps_flows_q *qs, unsigned int nq, const struct ps_tuple *t,
		    __u64 *packets)
{
	unsigned int i;
	__u32 j;

	for (i = 0; i < nq; i++)
		for (j = 0; j < qs[i].nflows; j++)
			if (same_flow(&qs[i].flows[j].key, t)) {
				*packets = qs[i].flows[j].packets;
				return qs[i].queue == PS_QUEUE_UNKNOWN ? -2 : (long)qs[i].queue;
			}
	return -1;
}

/* ---- one report ------------------------------------------------------------------------- */

/* part of all, at most 1: a flow's count scaled by N is an estimate, which
 * may pass its queue's exact count. */
static double share(__u64 part, __u64 all)
{
	return !all ? 0 : part >= all ? 1 : (double)part / (double)all;
}

static json_object *flow_json(const struct ps_flow_row *r, __u64 queue_packets)
{
	json_object *o = json_object_new_object();
	char s[INET6_ADDRSTRLEN], d[INET6_ADDRSTRLEN], p[8];
	bool ports = r->key.proto == IPPROTO_TCP || r->key.proto == IPPROTO_UDP;

	if (r->key.family) {
		addr_text(&r->key, r->key.saddr, s, sizeof(s));
		addr_text(&r->key, r->key.daddr, d, sizeof(d));
		json_object_object_add(o, "src", json_object_new_string(s));
		json_object_object_add(o, "dst", json_object_new_string(d));
		json_object_object_add(
		    o, "proto", json_object_new_string(proto_name(r->key.proto, p, sizeof(p))));
	} else {
		json_object_object_add(o, "src", NULL);
		json_object_object_add(o, "dst", NULL);
		snprintf(p, sizeof(p), "%04x", ntohs(r->key.ethertype));
		json_object_object_add(o, "proto", NULL);
		json_object_object_add(o, "ethertype", json_object_new_string(p));
	}
	json_object_object_add(o, "sport", ports ? json_object_new_int(ntohs(r->key.sport)) : NULL);
	json_object_object_add(o, "dport", ports ? json_object_new_int(ntohs(r->key.dport)) : NULL);
	json_object_object_add(o, "packets", json_object_new_uint64(r->packets));
	json_object_object_add(o, "bytes", json_object_new_uint64(r->bytes));
	json_object_object_add(o, "share", ps_json_double(share(r->packets, queue_packets), 4));
	return o;
}

static void report(const struct view *v, const struct ps_snapshot *cur, const struct ps_flows_q *qs,
		   unsigned int nq)
{
	unsigned int nrx = nq - 1, i, k, c, shown; /* the last slot: "other" queues */
	struct ps_hot_queue *h = calloc(nrx, sizeof(*h));
	__u32 *entries = calloc(nrx, sizeof(*entries));
	__u64 all = 0, all_bytes = 0, sp = 0;
	struct ps_hot_verdict hv;
	json_object *o = NULL, *jq = NULL, *jhot = NULL, *jcold = NULL, *x, *y;
	char text[200];
	__u32 pq, hash;
	const char *why;
	long seen;

	if (!h || !entries)
		goto out;
	if (v->rss->have_table)
		ps_rss_entries_per_queue(v->rss, entries, nrx);
	hot_input(qs, nrx, v->rss, entries, h);
	for (i = 0; i < nq; i++) {
		all += qs[i].packets;
		all_bytes += qs[i].bytes;
	}
	if (v->json) {
		o = json_object_new_object();
		jq = json_object_new_array();
		jhot = json_object_new_array();
		jcold = json_object_new_array();
		json_object_object_add(o, "iface", json_object_new_string(v->ifname));
		json_object_object_add(o, "interval_s",
				       v->interval ? ps_json_double(v->interval, 3) : NULL);
		json_object_object_add(o, "sample", json_object_new_int64(ps_flows_sample(cur)));
		json_object_object_add(o, "distinct_err", ps_json_double(PS_HLL_ERR, 3));
		json_object_object_add(o, "distinct",
				       ps_json_double(ps_flows_distinct(cur, cur->nslots), 1));
	} else {
		printf("%s: %u RX queues, %s%.1f s; 1 in %u frames sampled; distinct flows since "
		       "attach, +-%.1f%%\n",
		       v->ifname, nrx, v->interval ? "over " : "since attach: ",
		       v->interval ? v->interval
				   : (double)(cur->mono_ns - cur->meta.attach_monotonic_ns) / 1e9,
		       ps_flows_sample(cur), PS_HLL_ERR * 100);
		printf("%5s %12s %6s %14s %6s %8s %6s  %s\n", "queue", "packets", "share", "bytes",
		       "share", "distinct", "flows", "top flow (share of the queue)");
	}
	for (i = 0; i < nq; i++) {
		const struct ps_flows_q *q = &qs[i];

		if (i == nrx && !q->packets)
			continue; /* "other" queues: only when it saw any */
		if (v->json) {
			x = json_object_new_object();
			json_object_object_add(x, "queue",
					       i == nrx ? json_object_new_string("other")
							: json_object_new_int(i));
			json_object_object_add(x, "packets", json_object_new_uint64(q->packets));
			json_object_object_add(x, "bytes", json_object_new_uint64(q->bytes));
			json_object_object_add(x, "share",
					       ps_json_double(share(q->packets, all), 4));
			json_object_object_add(x, "byte_share",
					       ps_json_double(share(q->bytes, all_bytes), 4));
			json_object_object_add(x, "distinct", ps_json_double(q->distinct, 1));
			json_object_object_add(x, "flows_seen", json_object_new_int64(q->nflows));
			json_object_object_add(
			    x, "top_share",
			    ps_json_double(q->nflows ? share(q->flows[0].packets, q->packets) : 0,
					   4));
			y = json_object_new_array();
			for (k = 0; k < q->nflows && k < v->top; k++)
				json_object_array_add(y, flow_json(&q->flows[k], q->packets));
			json_object_object_add(x, "flows", y);
			json_object_object_add(x, "rx_hash", ps_flows_rx_hash_json(q));
			json_object_array_add(jq, x);
			continue;
		}
		if (q->nflows)
			flow_text(&q->flows[0].key, text, sizeof(text));
		else
			snprintf(text, sizeof(text), "-");
		if (i == nrx)
			printf("%5s", "other");
		else
			printf("%5u", i);
		printf(" %12llu %5.1f%% %14llu %5.1f%% %8.0f %6u  %s",
		       (unsigned long long)q->packets, 100 * share(q->packets, all),
		       (unsigned long long)q->bytes, 100 * share(q->bytes, all_bytes), q->distinct,
		       q->nflows, text);
		if (q->nflows)
			printf(" (%.1f%%)", 100 * share(q->flows[0].packets, q->packets));
		printf("\n");
	}
	/* Each queue's RX hash types, where measured: a line each. */
	for (i = 0, k = 0; !v->json && i < nq; i++) {
		const struct ps_flows_q *q = &qs[i];

		if (!q->rx_hash || !(q->rx_hash_l4 + q->rx_hash_l3 + q->rx_hash_none))
			continue;
		if (!k++)
			printf(
			    "RX hash types of the sampled frames (L4: ports hashed, L3: addresses "
			    "only, none: no type):\n");
		if (i == nrx)
			printf("  other queues:");
		else
			printf("  queue %u:", i);
		printf(" L4 %llu, L3 %llu, none %llu\n", (unsigned long long)q->rx_hash_l4,
		       (unsigned long long)q->rx_hash_l3, (unsigned long long)q->rx_hash_none);
	}
	if (!v->json && v->top > 1)
		for (i = 0; i < nq; i++) {
			const struct ps_flows_q *q = &qs[i];

			if (q->nflows < 2)
				continue;
			if (i == nrx)
				printf("other queues:");
			else
				printf("queue %u:", i);
			printf(" top %u of %u flows\n", q->nflows < v->top ? q->nflows : v->top,
			       q->nflows);
			for (k = 0, shown = 0; k < q->nflows && shown < v->top; k++, shown++) {
				flow_text(&q->flows[k].key, text, sizeof(text));
				printf("  %-56s %12llu packets %5.1f%% %14llu bytes\n", text,
				       (unsigned long long)q->flows[k].packets,
				       100 * share(q->flows[k].packets, q->packets),
				       (unsigned long long)q->flows[k].bytes);
			}
		}
	for (i = 0; i < nrx; i++) {
		if (!ps_hot_verdict(h, nrx, i, &hv))
			continue;
		if (v->json) {
			x = json_object_new_object();
			json_object_object_add(x, "queue", json_object_new_int(i));
			json_object_object_add(x, "share", ps_json_double(hv.share, 4));
			json_object_object_add(x, "byte_share", ps_json_double(hv.byte_share, 4));
			json_object_object_add(x, "cause",
					       json_object_new_string(ps_hot_cause_name(hv.cause)));
			y = json_object_new_object();
			for (c = 0; c < PS_HOT_NCAUSES; c++)
				if (hv.holds[c])
					json_object_object_add(y, ps_hot_cause_name(c),
							       json_object_new_string(hv.why[c]));
			json_object_object_add(x, "causes", y);
			json_object_object_add(
			    x, "advice", json_object_new_string(ps_hot_cause_advice(hv.cause)));
			json_object_array_add(jhot, x);
			continue;
		}
		printf(
		    "hot: queue %u carries %.0f%% of the packets (%.0f%% of the bytes): %s\n  %s\n",
		    i, hv.share * 100, hv.byte_share * 100, ps_hot_cause_name(hv.cause),
		    hv.why[hv.cause]);
		for (c = hv.cause + 1; c < PS_HOT_NCAUSES - 1; c++)
			if (hv.holds[c])
				printf("  also %s: %s\n", ps_hot_cause_name(c), hv.why[c]);
		printf("  %s\n", ps_hot_cause_advice(hv.cause));
	}
	/* A queue the table gives no entry: RSS never sends it a flow (ethtool -X
	 * weight 1 1 1 0, or a table that predates ethtool -L). */
	for (i = 0; v->rss->have_table && i < nrx; i++) {
		if (entries[i])
			continue;
		snprintf(text, sizeof(text),
			 "the indirection table gives it none of its %u entries: RSS sends it no "
			 "flow",
			 v->rss->table_size);
		if (v->json) {
			x = json_object_new_object();
			json_object_object_add(x, "queue", json_object_new_int(i));
			json_object_object_add(x, "cause", json_object_new_string("table"));
			json_object_object_add(x, "why", json_object_new_string(text));
			json_object_array_add(jcold, x);
		} else {
			printf("cold: queue %u: table: %s\n", i, text);
		}
	}
	if (!v->json)
		ps_rss_print(stdout, v->rss, nrx);
	if (v->flow.given) {
		int rc = ps_rss_predict(v->rss, &v->flow.t, &pq, &hash, &why);

		seen = seen_on(qs, nq, &v->flow.t, &sp);
		if (v->json) {
			x = json_object_new_object();
			json_object_object_add(x, "flow", json_object_new_string(v->flow.text));
			json_object_object_add(x, "predicted",
					       rc ? NULL : json_object_new_int64(pq));
			json_object_object_add(x, "hash", rc ? NULL : json_object_new_int64(hash));
			json_object_object_add(x, "no_prediction",
					       rc ? json_object_new_string(why) : NULL);
			json_object_object_add(x, "seen",
					       seen >= 0    ? json_object_new_int64(seen)
					       : seen == -2 ? json_object_new_string("other")
							    : NULL);
			json_object_object_add(x, "seen_packets",
					       seen != -1 ? json_object_new_uint64(sp) : NULL);
			json_object_object_add(o, "flow", x);
		} else {
			printf("flow %s: ", v->flow.text);
			if (rc)
				printf("no prediction (%s)", why);
			else
				printf("RSS predicts queue %u (Toeplitz hash 0x%08x)", pq, hash);
			if (seen >= 0)
				printf("; pathscope saw it on queue %ld (%llu packets)\n", seen,
				       (unsigned long long)sp);
			else if (seen == -2)
				printf("; pathscope saw it on a queue past the attachment's (%llu "
				       "packets)\n",
				       (unsigned long long)sp);
			else
				printf("; pathscope did not see it%s\n",
				       ps_flows_sample(cur) > 1 ? " (sampled 1 in N: try N=1)"
								: "");
		}
	}
	if (v->json) {
		json_object_object_add(o, "queues", jq);
		json_object_object_add(o, "hot", jhot);
		json_object_object_add(o, "cold", jcold);
		json_object_object_add(o, "rss", ps_rss_json(v->rss, nrx));
		ps_json_print(stdout, o);
		json_object_put(o);
	}
	fflush(stdout);
out:
	free(h);
	free(entries);
}

/* The report of cur over prev (NULL: since attach); 0 or 1. */
static int report_of(const struct view *v, const struct ps_snapshot *cur,
		     const struct ps_snapshot *prev)
{
	struct ps_flows_q *qs;
	unsigned int nq;
	int err;

	err = ps_flows_read(cur, prev, &qs, &nq);
	if (err)
		return ps_error("%s: cannot read the flows: %s", v->ifname, strerror(-err)), 1;
	report(v, cur, qs, nq);
	ps_flows_free(qs, nq);
	return 0;
}

static int read_report(const struct view *v, const char *dir, const struct ps_snapshot *prev,
		       struct ps_snapshot *cur)
{
	int err = ps_snapshot_read(dir, cur);

	if (err)
		return ps_error("%s: cannot read the attachment: %s", v->ifname, strerror(-err)), 1;
	if (report_of(v, cur, prev)) {
		ps_snapshot_free(cur);
		return 1;
	}
	return 0;
}

/* --flow takes five arguments: take them out of argv before getopt sees it. */
static int take_flow(int *argc, char **argv, struct flow_arg *f)
{
	int i, j;

	for (i = 1; i < *argc; i++) {
		if (strcmp(argv[i], "--flow") != 0)
			continue;
		if (*argc - i - 1 < 5)
			return ps_error("--flow needs SRC DST PROTO SPORT DPORT"), -1;
		if (f->given)
			return ps_error("--flow given twice"), -1;
		if (parse_flow(&argv[i + 1], f))
			return -1;
		for (j = i; j + 6 <= *argc; j++)
			argv[j] = argv[j + 6];
		*argc -= 6;
		i--;
	}
	return 0;
}

int ps_cmd_flows(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "interval", required_argument, NULL, 'i' },
		{ "count", required_argument, NULL, 'c' },
		{ "top", required_argument, NULL, 't' },
		{ "json", no_argument, NULL, 'j' },
		{},
	};
	static const struct ps_cmd cmd = { "flows", flows_help, "i:c:t:j", opts };
	struct view v = { .top = 5 };
	struct ps_snapshot prev, cur;
	struct ps_rss *rss = NULL;
	char dir[256];
	uint64_t count = 0, done, top;
	int c, rc = 0, err;

	if (take_flow(&argc, argv, &v.flow))
		return 2;
	while ((c = ps_cmd_opt(&cmd, argc, argv, &err)) != PS_OPT_END) {
		switch (c) {
		case PS_OPT_EXIT:
			return err;
		case 'i':
			if (ps_opt_seconds("interval", optarg, &v.interval))
				return 2;
			break;
		case 'c':
			if (ps_opt_count(optarg, &count))
				return 2;
			break;
		case 't':
			if (!ps_parse_u64(optarg, MAX_TOP, &top) || !top)
				return ps_error("bad --top '%s' (1 to %d)", optarg, MAX_TOP), 2;
			v.top = (unsigned int)top;
			break;
		case 'j':
			v.json = true;
			break;
		}
	}
	if (ps_cmd_one_iface(&cmd, argc, argv, &v.ifname))
		return 2;
	if (ps_require_privileges())
		return 1;
	err = ps_snapshot_dir(v.ifname, dir, sizeof(dir));
	if (err == -ENODEV)
		return ps_cmd_unknown_iface(v.ifname);
	if (err == -ENOENT)
		return ps_cmd_not_attached(v.ifname);
	if (err)
		return ps_error("cannot read interface '%s': %s", v.ifname, strerror(-err)), 1;
	if (count && !v.interval)
		v.interval = 1;
	if (!count)
		count = 1;
	rss = malloc(sizeof(*rss));
	if (!rss)
		return ps_error("out of memory"), 1;
	err = ps_rss_read(v.ifname, rss);
	if (err) {
		ps_rss_init(rss);
		snprintf(rss->why, sizeof(rss->why), "cannot ask: %s", strerror(-err));
	}
	v.rss = rss;
	err = ps_snapshot_read(dir, &prev);
	if (err) {
		free(rss);
		return ps_error("%s: cannot read the attachment: %s", v.ifname, strerror(-err)), 1;
	}
	if (!ps_flows_on(&prev)) {
		ps_snapshot_free(&prev);
		free(rss);
		return ps_error("%s: feature flows is not attached (pathscope attach %s --features "
				"default,flows)",
				v.ifname, v.ifname),
		       1;
	}
	ps_stop_on_signals();
	if (!v.interval) {
		rc = report_of(&v, &prev, NULL);
		goto out;
	}
	for (done = 0; done < count && !ps_stop; done++) {
		ps_sleep_s(v.interval);
		if (ps_stop)
			break;
		if (read_report(&v, dir, &prev, &cur)) {
			rc = 1;
			break;
		}
		ps_snapshot_free(&prev);
		prev = cur;
	}
out:
	ps_snapshot_free(&prev);
	free(rss);
	return rc;
}
