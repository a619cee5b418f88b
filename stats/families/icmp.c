// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* ICMP/ICMPv6 echo, matched in the datapath (include/pathscope/icmp.bpf.h; struct
 * ps_icmp_qstats per RX queue, ps_peer_stats per peer): RTT (request out at tc
 * egress, reply in at XDP) and this host's response time. */
#include <arpa/inet.h>
#include <stddef.h>
#include <string.h>

#include "stats/families/families.h"
#include "stats/families/stages.h"
#include "stats/format/hist.h"
#include "stats/format/json.h"
#include "stats/format/table.h"

static bool ps_icmp_on(const struct ps_snapshot *s)
{
	return s->echo && (s->meta.features & PS_F_ICMP);
}

static bool active(const struct ps_icmp_qstats *e)
{
	return e->requests_out || e->replies_in || e->requests_in || e->replies_out || e->expired;
}

static bool ps_icmp_slot_active(const struct ps_snapshot *s, unsigned int q)
{
	return s->echo && active(&s->echo[q]);
}

/* Cumulative echo counts of slot q (q == nslots: the sum of all slots). */
static void icmp_total(const struct ps_snapshot *s, unsigned int q, struct ps_icmp_qstats *out)
{
	ps_per_queue_total(s->echo, sizeof(*out), s->nslots, q, out);
}

static void peer_name(const struct ps_peer_key *k, char *buf, size_t len)
{
	if (k->family == 4)
		inet_ntop(AF_INET, k->addr, buf, len);
	else if (k->family == 6)
		inet_ntop(AF_INET6, k->addr, buf, len);
	else
		snprintf(buf, len, "other");
}

/* ---- table --------------------------------------------------------------- */

static void icmp_row(FILE *out, const struct ps_snapshot *s, unsigned int q, const char *qname)
{
	struct ps_icmp_qstats e;
	char v[7][16];

	/* p99.9 is in JSON and --hist: the table stays within 120 columns. */
	icmp_total(s, q, &e);
	ps_fmt_lat(v[0], sizeof(v[0]), e.rtt_hist, 50);
	ps_fmt_lat(v[1], sizeof(v[1]), e.rtt_hist, 90);
	ps_fmt_lat(v[2], sizeof(v[2]), e.rtt_hist, 99);
	ps_fmt_lat(v[3], sizeof(v[3]), e.rtt_hist, PS_PCT_MAX);
	ps_fmt_lat(v[4], sizeof(v[4]), e.resp_hist, 50);
	ps_fmt_lat(v[5], sizeof(v[5]), e.resp_hist, 99);
	ps_fmt_lat(v[6], sizeof(v[6]), e.resp_hist, PS_PCT_MAX);
	fprintf(out, "%-6s %8llu %8llu %8s %8s %8s %8s %8llu %8llu %8s %8s %8s %7llu\n", qname,
		(unsigned long long)e.requests_out,
		(unsigned long long)ps_hist_count(e.rtt_hist, PS_LAT_BUCKETS), v[0], v[1], v[2],
		v[3], (unsigned long long)e.requests_in,
		(unsigned long long)ps_hist_count(e.resp_hist, PS_LAT_BUCKETS), v[4], v[5], v[6],
		(unsigned long long)e.expired);
}

static void peers_table(FILE *out, const struct ps_snapshot *s)
{
	char name[64], avg[16], p50[16], p99[16], ravg[16];
	unsigned int i;

	fprintf(out, "%-40s %8s %8s %8s %8s %8s %8s\n", "PEER", "RTT_N", "RTT_AVG", "RTT_P50",
		"RTT_P99", "RESP_N", "RESP_AVG");
	for (i = 0; i < s->npeers; i++) {
		const struct ps_peer_stats *p = &s->peers[i].stats;

		if (!p->rtt_count && !p->resp_count)
			continue; /* the "other peers" entry before any overflow */
		peer_name(&s->peers[i].key, name, sizeof(name));
		ps_fmt_ns(avg, sizeof(avg), p->rtt_count ? p->rtt_sum_ns / p->rtt_count : 0,
			  p->rtt_count);
		ps_fmt_lat(p50, sizeof(p50), p->rtt_hist, 50);
		ps_fmt_lat(p99, sizeof(p99), p->rtt_hist, 99);
		ps_fmt_ns(ravg, sizeof(ravg), p->resp_count ? p->resp_sum_ns / p->resp_count : 0,
			  p->resp_count);
		fprintf(out, "%-40s %8llu %8s %8s %8s %8llu %8s\n", name,
			(unsigned long long)p->rtt_count, avg, p50, p99,
			(unsigned long long)p->resp_count, ravg);
	}
}

static void ps_icmp_table(FILE *out, const struct ps_report *r)
{
	const struct ps_snapshot *s = r->cur;
	char qname[16];
	unsigned int q;

	if (!ps_icmp_on(s))
		return;
	fprintf(out,
		"ICMP echo: RTT = request out (tc egress) to reply in (XDP), by RX queue of the "
		"reply;\n           RESP = request in (XDP) to this host's reply out (tc "
		"egress), by RX queue of the request\n");
	fprintf(out, "%-6s %8s %8s %8s %8s %8s %8s %8s %8s %8s %8s %8s %7s\n", "QUEUE", "REQ_OUT",
		"RTT_N", "RTT_P50", "RTT_P90", "RTT_P99", "RTT_MAX", "REQ_IN", "RESP_N", "RESP_P50",
		"RESP_P99", "RESP_MAX", "EXPIRED");
	for (q = 0; q < s->nslots; q++) {
		if (!active(&s->echo[q]))
			continue;
		ps_queue_label(s, q, qname, sizeof(qname));
		icmp_row(out, s, q, qname);
	}
	icmp_row(out, s, s->nslots, "all");
	if (s->npeers)
		peers_table(out, s);
}

/* ---- --hist -------------------------------------------------------------- */

static void ps_icmp_hist(FILE *out, const struct ps_report *r)
{
	const struct ps_snapshot *s = r->cur;
	struct ps_icmp_qstats e;

	if (!ps_icmp_on(s))
		return;
	icmp_total(s, s->nslots, &e);
	fprintf(out, "\n%s ICMP echo RTT, all queues:\n", s->meta.ifname);
	ps_print_hist(out, e.rtt_hist, PS_LAT_BUCKETS, "ns");
	fprintf(out, "\n%s ICMP echo response time, all queues:\n", s->meta.ifname);
	ps_print_hist(out, e.resp_hist, PS_LAT_BUCKETS, "ns");
}

/* ---- JSON ---------------------------------------------------------------- */

static json_object *ps_icmp_json(const struct ps_report *r, unsigned int q)
{
	json_object *o = json_object_new_object();
	struct ps_icmp_qstats e;

	icmp_total(r->cur, q, &e);
	ps_json_add_u64(o, "requests_sent", e.requests_out);
	ps_json_add_u64(o, "replies_matched", e.replies_in);
	ps_json_add_u64(o, "requests_received", e.requests_in);
	ps_json_add_u64(o, "replies_sent", e.replies_out);
	ps_json_add_u64(o, "expired", e.expired);
	json_object_object_add(o, "rtt_ns", ps_json_dist(e.rtt_hist, PS_LAT_BUCKETS));
	json_object_object_add(o, "response_ns", ps_json_dist(e.resp_hist, PS_LAT_BUCKETS));
	return o;
}

static json_object *ps_icmp_peers_json(const struct ps_snapshot *s)
{
	json_object *a = json_object_new_array();
	char name[64];
	unsigned int i;

	for (i = 0; i < s->npeers; i++) {
		const struct ps_peer_stats *p = &s->peers[i].stats;
		json_object *o = json_object_new_object();

		peer_name(&s->peers[i].key, name, sizeof(name));
		json_object_object_add(o, "peer", json_object_new_string(name));
		ps_json_add_u64(o, "rtt_count", p->rtt_count);
		ps_json_add_u64(o, "rtt_avg_ns", p->rtt_count ? p->rtt_sum_ns / p->rtt_count : 0);
		json_object_object_add(o, "rtt_ns", ps_json_dist(p->rtt_hist, PS_LAT_BUCKETS));
		ps_json_add_u64(o, "response_count", p->resp_count);
		ps_json_add_u64(o, "response_avg_ns",
				p->resp_count ? p->resp_sum_ns / p->resp_count : 0);
		json_object_array_add(a, o);
	}
	return a;
}

/* ---- Prometheus ---------------------------------------------------------- */

static const void *icmp_base(const struct ps_snapshot *s)
{
	return s->echo;
}

static const struct ps_prom_slots icmp_slots = { ps_icmp_on, icmp_base,
						 sizeof(struct ps_icmp_qstats), true, PS_F_ICMP };

static const struct ps_prom_counter icmp_counters[] = {
	{ "pathscope_icmp_echo_requests_sent_total",
	  "ICMP/ICMPv6 echo requests sent (tc egress; mostly queue=\"other\": no cached TX "
	  "queue).",
	  offsetof(struct ps_icmp_qstats, requests_out), false },
	{ "pathscope_icmp_echo_replies_matched_total",
	  "Echo replies received and matched to a request sent, per RX queue of the reply.",
	  offsetof(struct ps_icmp_qstats, replies_in), false },
	{ "pathscope_icmp_echo_requests_received_total",
	  "Echo requests received (xdp), per RX queue.",
	  offsetof(struct ps_icmp_qstats, requests_in), false },
	{ "pathscope_icmp_echo_replies_sent_total",
	  "This host's echo replies matched to a request received, per RX queue of the "
	  "request.",
	  offsetof(struct ps_icmp_qstats, replies_out), false },
	{ "pathscope_icmp_echo_expired_total",
	  "Echo matches older than 10 s (reused id and sequence), not recorded.",
	  offsetof(struct ps_icmp_qstats, expired), false },
};

static void rtt(struct ps_prom *p, const struct ps_lbl *l, const struct ps_snapshot *s,
		unsigned int q)
{
	struct ps_icmp_qstats e;

	icmp_total(s, q, &e);
	ps_prom_lat_hist(p, l, e.rtt_hist);
}

static void resp(struct ps_prom *p, const struct ps_lbl *l, const struct ps_snapshot *s,
		 unsigned int q)
{
	struct ps_icmp_qstats e;

	icmp_total(s, q, &e);
	ps_prom_lat_hist(p, l, e.resp_hist);
}

static void peer_label(struct ps_lbl *l, const struct ps_snapshot *s, const struct ps_peer_key *k)
{
	char name[INET6_ADDRSTRLEN];

	peer_name(k, name, sizeof(name));
	ps_lbl_iface(l, s);
	ps_lbl_add(l, "peer", name);
}

typedef void (*peer_fn)(struct ps_prom *p, const struct ps_lbl *l, const struct ps_peer_stats *ps);

/* fn for every peer entry of every snapshot with echo, labelled iface, peer. */
static void each_peer(struct ps_prom *p, const struct ps_snapshot *snaps, int n, peer_fn fn)
{
	struct ps_lbl l;
	unsigned int j;
	int i;

	for (i = 0; i < n; i++) {
		if (!ps_icmp_on(&snaps[i]))
			continue;
		for (j = 0; j < snaps[i].npeers; j++) {
			peer_label(&l, &snaps[i], &snaps[i].peers[j].key);
			fn(p, &l, &snaps[i].peers[j].stats);
		}
	}
}

static void peer_rtt(struct ps_prom *p, const struct ps_lbl *l, const struct ps_peer_stats *ps)
{
	ps_prom_hist(p, l, ps->rtt_hist, PS_LAT_BUCKETS, &ps_prom_lat_edges, ps->rtt_sum_ns);
}

static void peer_resp(struct ps_prom *p, const struct ps_lbl *l, const struct ps_peer_stats *ps)
{
	char v[48];

	ps_prom_sample(p, "_sum", l, ps_prom_fmt_seconds(v, sizeof(v), ps->resp_sum_ns));
	ps_prom_sample(p, "_count", l, ps_prom_fmt_u128(v, sizeof(v), ps->resp_count));
}

static void peers_prom(struct ps_prom *p, const struct ps_snapshot *snaps, int n)
{
	if (p->no_peers)
		return;
	ps_prom_family(p, "pathscope_icmp_peer_rtt_seconds", "histogram",
		       "ICMP echo RTT per peer (the first 64 peers, then peer=\"other\"); _sum is "
		       "exact.");
	each_peer(p, snaps, n, peer_rtt);
	ps_prom_family(p, "pathscope_icmp_peer_response_seconds", "summary",
		       "This host's ICMP echo response time per peer: exact _sum and _count.");
	each_peer(p, snaps, n, peer_resp);
}

static void ps_icmp_prom(struct ps_prom *p, const struct ps_snapshot *s, int n)
{
	ps_prom_slot_counters(p, s, n, &icmp_slots, icmp_counters, PS_ARRAY_SIZE(icmp_counters));
	ps_prom_family(p, "pathscope_icmp_rtt_seconds", "histogram",
		       "ICMP echo round-trip time, tc egress to xdp, per RX queue of the reply; "
		       "_sum is estimated from bucket midpoints (the datapath stores no sum).");
	ps_prom_each_slot(p, s, n, &icmp_slots, 0, rtt);
	ps_prom_family(p, "pathscope_icmp_response_seconds", "histogram",
		       "This host's ICMP echo response time, xdp to tc egress, per RX queue of the "
		       "request; _sum is estimated from bucket midpoints.");
	ps_prom_each_slot(p, s, n, &icmp_slots, 0, resp);
	peers_prom(p, s, n);
}

/* ---- latency budget ------------------------------------------------------ */

static void ps_icmp_rtt(const struct ps_snapshot *s, unsigned int q, __u64 *out)
{
	struct ps_icmp_qstats e;

	icmp_total(s, q, &e);
	memcpy(out, e.rtt_hist, sizeof(e.rtt_hist));
}

static void ps_icmp_response(const struct ps_snapshot *s, unsigned int q, __u64 *out)
{
	struct ps_icmp_qstats e;

	icmp_total(s, q, &e);
	memcpy(out, e.resp_hist, sizeof(e.resp_hist));
}

/* ---- the family ---------------------------------------------------------- */

static void iface_json(json_object *o, const struct ps_snapshot *s)
{
	json_object_object_add(o, "icmp_peers", ps_icmp_peers_json(s));
}

static const struct ps_stage stages[] = {
	{
	    .head = "NET icmp",
	    .key = "icmp_rtt",
	    .words = "ICMP echo RTT",
	    .where = "request at tc egress to reply at XDP",
	    .path = PS_PATH_NET,
	    .hist = ps_icmp_rtt,
	    .json = { { "icmp_echo", "rtt_ns" } },
	},
	{
	    .head = "HOST icmp",
	    .key = "icmp_response",
	    .words = "ICMP echo response",
	    .where = "request at XDP to reply at tc egress",
	    .path = PS_PATH_HOST,
	    .hist = ps_icmp_response,
	    .json = { { "icmp_echo", "response_ns" } },
	},
};

const struct ps_family ps_family_icmp = {
	.name = "icmp",
	.features = PS_F_ICMP,
	.on = ps_icmp_on,
	.slot_active = ps_icmp_slot_active,
	.table = ps_icmp_table,
	.hist = ps_icmp_hist,
	.json_key = "icmp_echo",
	.queue_json = ps_icmp_json,
	.iface_json = iface_json,
	.prom = ps_icmp_prom,
	.stages = stages,
	.nstages = PS_ARRAY_SIZE(stages),
};
