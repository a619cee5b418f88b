// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Passive TCP latency (include/pathscope/tcp.bpf.h): network RTT, handshake RTT, and
 * this host's response time, answered with data or with a pure ACK (the ACK delay). */
#include <arpa/inet.h>
#include <stddef.h>
#include <string.h>

#include "stats/families/families.h"
#include "stats/families/stages.h"
#include "stats/format/hist.h"
#include "stats/format/json.h"
#include "stats/format/table.h"

static bool ps_tcp_on(const struct ps_snapshot *s)
{
	return s->tcp && s->tcp_hist && (s->meta.features & PS_F_TCP);
}

/* Where arrivals are matched (attach --tcp-rx), as the table names it. */
static const char *ps_tcp_rx_hook(const struct ps_meta *m)
{
	return (m->flags & PS_META_TCP_RX_XDP) && m->xdp_mode != PS_XDP_NONE ? "XDP" : "tc ingress";
}

static bool ps_tcp_slot_active(const struct ps_snapshot *s, unsigned int q)
{
	static const struct ps_tcp_qstats zero;

	return ps_tcp_on(s) && memcmp(&s->tcp[q], &zero, sizeof(zero));
}

/* Slot q (q == nslots: all slots) of the counters and of the histograms. */
static void tcp_total(const struct ps_snapshot *s, unsigned int q, struct ps_tcp_qstats *c,
		      struct ps_tcp_qhist *h)
{
	ps_per_queue_total(s->tcp, sizeof(*c), s->nslots, q, c);
	ps_per_queue_total(s->tcp_hist, sizeof(*h), s->nslots, q, h);
}

/* "198.18.0.0/24", "2001:db8::/48" or "other". */
static void subnet_name(const struct ps_tcp_peer_key *k, char *buf, size_t len)
{
	char a[INET6_ADDRSTRLEN];

	if (k->family != 4 && k->family != 6) {
		snprintf(buf, len, "other");
		return;
	}
	inet_ntop(k->family == 4 ? AF_INET : AF_INET6, k->addr, a, sizeof(a));
	snprintf(buf, len, "%s/%u", a, k->prefix);
}

static __u64 avg(__u64 sum, __u64 n)
{
	return n ? sum / n : 0;
}

/* ---- table --------------------------------------------------------------- */

/* The network's side (RTT, handshake) of queue slot q, or with host set this
 * host's (response with data, ACK delay): two tables, each within 120
 * columns. p99.9 is in JSON and --hist. A queue's row whose cells would all
 * be 0 or "-" is left out (false) unless the reader asked for --all. */
static bool tcp_row(FILE *out, const struct ps_report *r, unsigned int q, const char *qname,
		    bool host)
{
	static struct ps_tcp_qhist h; /* 8.7 KB: not on the stack */
	const struct ps_snapshot *s = r->cur;
	struct ps_tcp_qstats c;
	char v[7][16];
	bool empty;

	tcp_total(s, q, &c, &h);
	empty = host ? !(c.resp_data + c.resp_ack)
		     : !(c.rtt_matched + c.hs_timed + c.rx_no_ts + c.tx_no_ts + c.rtt_expired +
			 c.resp_expired);
	if (q < s->nslots && empty && !(r->show & PS_SHOW_ALL))
		return false;
	if (host) {
		ps_fmt_lat(v[0], sizeof(v[0]), h.resp_data, 50);
		ps_fmt_lat(v[1], sizeof(v[1]), h.resp_data, 99);
		ps_fmt_lat(v[2], sizeof(v[2]), h.resp_ack, 50);
		ps_fmt_lat(v[3], sizeof(v[3]), h.resp_ack, 99);
		fprintf(out, "%-6s %8llu %8s %8s %8llu %8s %8s\n", qname,
			(unsigned long long)c.resp_data, v[0], v[1], (unsigned long long)c.resp_ack,
			v[2], v[3]);
		return true;
	}
	ps_fmt_lat(v[0], sizeof(v[0]), h.rtt, 50);
	ps_fmt_lat(v[1], sizeof(v[1]), h.rtt, 90);
	ps_fmt_lat(v[2], sizeof(v[2]), h.rtt, 99);
	ps_fmt_lat(v[3], sizeof(v[3]), h.rtt, PS_PCT_MAX);
	ps_fmt_lat(v[4], sizeof(v[4]), h.handshake, 50);
	ps_fmt_lat(v[5], sizeof(v[5]), h.handshake, 99);
	fprintf(out, "%-6s %8llu %8s %8s %8s %8s %6llu %8s %8s %9llu %8llu\n", qname,
		(unsigned long long)c.rtt_matched, v[0], v[1], v[2], v[3],
		(unsigned long long)c.hs_timed, v[4], v[5],
		(unsigned long long)(c.rx_no_ts + c.tx_no_ts),
		(unsigned long long)(c.rtt_expired + c.resp_expired));
	return true;
}

/* One of the two per-queue tables: its queues' rows, "all", and how many
 * rows were left out. */
static void tcp_rows(FILE *out, const struct ps_report *r, bool host)
{
	const struct ps_snapshot *s = r->cur;
	unsigned int q, hidden = 0;
	char qname[16];

	for (q = 0; q < s->nslots; q++) {
		if (!ps_tcp_slot_active(s, q))
			continue;
		ps_queue_label(s, q, qname, sizeof(qname));
		hidden += !tcp_row(out, r, q, qname, host);
	}
	tcp_row(out, r, s->nslots, "all", host);
	if (hidden)
		fprintf(out,
			"(not shown: %u queue row%s without these samples; --all shows them)\n",
			hidden, hidden == 1 ? "" : "s");
}

static void peers_table(FILE *out, const struct ps_snapshot *s)
{
	char name[64], v[6][16];
	unsigned int i;

	fprintf(out, "%-24s %8s %8s %8s %8s %6s %8s %7s %8s %7s %8s\n", "PEER SUBNET", "RTT_N",
		"RTT_AVG", "RTT_P50", "RTT_P99", "HS_N", "HS_AVG", "RESP_N", "RESP_AVG", "ACKD_N",
		"ACKD_AVG");
	for (i = 0; i < s->ntcp_peers; i++) {
		const struct ps_tcp_peer_stats *p = &s->tcp_peers[i].stats;

		if (!p->rtt_count && !p->hs_count && !p->resp_data_count && !p->resp_ack_count)
			continue; /* the "other" entry before any overflow */
		subnet_name(&s->tcp_peers[i].key, name, sizeof(name));
		ps_fmt_ns(v[0], sizeof(v[0]), avg(p->rtt_sum_ns, p->rtt_count), p->rtt_count);
		ps_fmt_lat(v[1], sizeof(v[1]), p->rtt_hist, 50);
		ps_fmt_lat(v[2], sizeof(v[2]), p->rtt_hist, 99);
		ps_fmt_ns(v[3], sizeof(v[3]), avg(p->hs_sum_ns, p->hs_count), p->hs_count);
		ps_fmt_ns(v[4], sizeof(v[4]), avg(p->resp_data_sum_ns, p->resp_data_count),
			  p->resp_data_count);
		ps_fmt_ns(v[5], sizeof(v[5]), avg(p->resp_ack_sum_ns, p->resp_ack_count),
			  p->resp_ack_count);
		fprintf(out, "%-24s %8llu %8s %8s %8s %6llu %8s %7llu %8s %7llu %8s\n", name,
			(unsigned long long)p->rtt_count, v[0], v[1], v[2],
			(unsigned long long)p->hs_count, v[3],
			(unsigned long long)p->resp_data_count, v[4],
			(unsigned long long)p->resp_ack_count, v[5]);
	}
}

/* Handshakes evicted from the full half-open table (PS_TCP_HALFOPEN_MAX)
 * since attach, untimed: those added that it no longer holds. */
static __u64 halfopen_evicted(const struct ps_snapshot *s)
{
	struct ps_tcp_qstats all;

	ps_per_queue_total(s->tcp, sizeof(all), s->nslots, s->nslots, &all);
	return all.halfopen_new > s->tcp_halfopen ? all.halfopen_new - s->tcp_halfopen : 0;
}

static void ps_tcp_table(FILE *out, const struct ps_report *r)
{
	const struct ps_snapshot *s = r->cur;
	struct ps_tcp_qstats all;

	if (!ps_tcp_on(s))
		return;
	fprintf(out,
		"TCP: RTT = data out (tc egress) to the echo of its TSval in (%s),\n     by "
		"RX queue of the echo; HS = handshake\n",
		ps_tcp_rx_hook(&s->meta));
	fprintf(out, "%-6s %8s %8s %8s %8s %8s %6s %8s %8s %9s %8s\n", "QUEUE", "RTT_N", "RTT_P50",
		"RTT_P90", "RTT_P99", "RTT_MAX", "HS_N", "HS_P50", "HS_P99", "NO_TS_SEG",
		"EXPIRED");
	tcp_rows(out, r, false);
	fprintf(out,
		"TCP host response: RESP / ACKD = data in (%s) to this host's first echo out\n"
		"     (tc egress), with data / a pure ACK, by RX queue of the data\n",
		ps_tcp_rx_hook(&s->meta));
	fprintf(out, "%-6s %8s %8s %8s %8s %8s %8s\n", "QUEUE", "RESP_N", "RESP_P50", "RESP_P99",
		"ACKD_N", "ACKD_P50", "ACKD_P99");
	tcp_rows(out, r, true);
	ps_per_queue_total(s->tcp, sizeof(all), s->nslots, s->nslots, &all);
	if (all.rx_no_ts + all.tx_no_ts && !(all.rx_ts + all.tx_ts))
		fprintf(out, "(no TCP segment carried the timestamp option: these flows have no "
			     "RTT or response time, only handshakes)\n");
	if (halfopen_evicted(s))
		fprintf(out,
			"(the half-open table (%u handshakes) was full: %llu handshakes evicted "
			"untimed since attach)\n",
			PS_TCP_HALFOPEN_MAX, (unsigned long long)halfopen_evicted(s));
	if (s->ntcp_peers)
		peers_table(out, s);
}

/* ---- --hist -------------------------------------------------------------- */

static void ps_tcp_hist(FILE *out, const struct ps_report *r)
{
	static const struct {
		size_t off;
		const char *what;
	} dists[] = {
		{ offsetof(struct ps_tcp_qhist, rtt), "TCP RTT" },
		{ offsetof(struct ps_tcp_qhist, handshake), "TCP handshake RTT" },
		{ offsetof(struct ps_tcp_qhist, resp_data),
		  "TCP response time (answered with data)" },
		{ offsetof(struct ps_tcp_qhist, resp_ack), "TCP ACK delay" },
	};
	static struct ps_tcp_qhist h;
	const struct ps_snapshot *s = r->cur;
	struct ps_tcp_qstats c;
	size_t i;

	if (!ps_tcp_on(s))
		return;
	tcp_total(s, s->nslots, &c, &h);
	for (i = 0; i < PS_ARRAY_SIZE(dists); i++) {
		fprintf(out, "\n%s %s, all queues:\n", s->meta.ifname, dists[i].what);
		ps_print_hist(out, (const __u64 *)((const char *)&h + dists[i].off), PS_LAT_BUCKETS,
			      "ns");
	}
}

/* ---- JSON ---------------------------------------------------------------- */

static json_object *ps_tcp_json(const struct ps_report *r, unsigned int q)
{
	static struct ps_tcp_qhist h;
	json_object *o = json_object_new_object(), *seg, *x;
	struct ps_tcp_qstats c;

	tcp_total(r->cur, q, &c, &h);
	seg = json_object_new_object();
	ps_json_add_u64(seg, "rx_with_ts", c.rx_ts);
	ps_json_add_u64(seg, "rx_without_ts", c.rx_no_ts);
	ps_json_add_u64(seg, "tx_with_ts", c.tx_ts);
	ps_json_add_u64(seg, "tx_without_ts", c.tx_no_ts);
	ps_json_add_u64(seg, "options_malformed", c.opt_bad);
	json_object_object_add(o, "segments", seg);
	x = json_object_new_object();
	ps_json_add_u64(x, "taken", c.rtt_taken);
	ps_json_add_u64(x, "matched", c.rtt_matched);
	ps_json_add_u64(x, "expired", c.rtt_expired);
	json_object_object_add(o, "rtt_samples", x);
	x = json_object_new_object();
	ps_json_add_u64(x, "taken", c.resp_taken);
	ps_json_add_u64(x, "data", c.resp_data);
	ps_json_add_u64(x, "ack", c.resp_ack);
	ps_json_add_u64(x, "expired", c.resp_expired);
	json_object_object_add(o, "response_samples", x);
	ps_json_add_u64(o, "handshakes_timed", c.hs_timed);
	ps_json_add_u64(o, "syn_retransmits", c.syn_retrans);
	json_object_object_add(o, "rtt_ns", ps_json_dist(h.rtt, PS_LAT_BUCKETS));
	json_object_object_add(o, "handshake_ns", ps_json_dist(h.handshake, PS_LAT_BUCKETS));
	json_object_object_add(o, "response_data_ns", ps_json_dist(h.resp_data, PS_LAT_BUCKETS));
	json_object_object_add(o, "ack_delay_ns", ps_json_dist(h.resp_ack, PS_LAT_BUCKETS));
	return o;
}

static json_object *ps_tcp_peers_json(const struct ps_snapshot *s)
{
	json_object *a = json_object_new_array();
	char name[64];
	unsigned int i;

	for (i = 0; i < s->ntcp_peers; i++) {
		const struct ps_tcp_peer_stats *p = &s->tcp_peers[i].stats;
		json_object *o = json_object_new_object();

		subnet_name(&s->tcp_peers[i].key, name, sizeof(name));
		json_object_object_add(o, "subnet", json_object_new_string(name));
		ps_json_add_u64(o, "rtt_count", p->rtt_count);
		ps_json_add_u64(o, "rtt_avg_ns", avg(p->rtt_sum_ns, p->rtt_count));
		json_object_object_add(o, "rtt_ns", ps_json_dist(p->rtt_hist, PS_LAT_BUCKETS));
		ps_json_add_u64(o, "handshake_count", p->hs_count);
		ps_json_add_u64(o, "handshake_avg_ns", avg(p->hs_sum_ns, p->hs_count));
		ps_json_add_u64(o, "response_data_count", p->resp_data_count);
		ps_json_add_u64(o, "response_data_avg_ns",
				avg(p->resp_data_sum_ns, p->resp_data_count));
		ps_json_add_u64(o, "ack_delay_count", p->resp_ack_count);
		ps_json_add_u64(o, "ack_delay_avg_ns", avg(p->resp_ack_sum_ns, p->resp_ack_count));
		json_object_array_add(a, o);
	}
	return a;
}

/* ---- Prometheus ---------------------------------------------------------- */

static const void *tcp_base(const struct ps_snapshot *s)
{
	return s->tcp;
}

static const struct ps_prom_slots tcp_slots = { ps_tcp_on, tcp_base, sizeof(struct ps_tcp_qstats),
						true, PS_F_TCP };

static void tcp_dist(const struct ps_snapshot *s, unsigned int q, size_t off, __u64 *out);

static void segments(struct ps_prom *p, const struct ps_lbl *l, const struct ps_snapshot *s,
		     unsigned int q)
{
	struct ps_lbl rx = *l, tx = *l;
	struct ps_tcp_qstats c;

	ps_per_queue_total(s->tcp, sizeof(c), s->nslots, q, &c);
	ps_lbl_add(&rx, "direction", "rx");
	ps_lbl_add(&tx, "direction", "tx");
	ps_prom_sample_u1(p, &rx, "timestamps", "yes", c.rx_ts);
	ps_prom_sample_u1(p, &rx, "timestamps", "no", c.rx_no_ts);
	ps_prom_sample_u1(p, &tx, "timestamps", "yes", c.tx_ts);
	ps_prom_sample_u1(p, &tx, "timestamps", "no", c.tx_no_ts);
}

#define TCP_HIST_FN(name, field)                                                                 \
	static void name(struct ps_prom *p, const struct ps_lbl *l, const struct ps_snapshot *s, \
			 unsigned int q)                                                         \
	{                                                                                        \
		__u64 b[PS_LAT_BUCKETS];                                                         \
                                                                                                 \
		tcp_dist(s, q, offsetof(struct ps_tcp_qhist, field), b);                         \
		ps_prom_lat_hist(p, l, b);                                                       \
	}
TCP_HIST_FN(rtt_hist, rtt)
TCP_HIST_FN(hs_hist, handshake)
TCP_HIST_FN(resp_hist, resp_data)
TCP_HIST_FN(ackd_hist, resp_ack)

static void subnet_label(struct ps_lbl *l, const struct ps_snapshot *s,
			 const struct ps_tcp_peer_key *k)
{
	char name[64];

	subnet_name(k, name, sizeof(name));
	ps_lbl_iface(l, s);
	ps_lbl_add(l, "subnet", name);
}

static void peers_prom(struct ps_prom *p, const struct ps_snapshot *snaps, int n)
{
	static const struct {
		const char *name, *help;
		size_t count, sum;
	} sums[] = {
		{ "pathscope_tcp_peer_handshake_seconds",
		  "TCP handshake RTT per peer subnet: exact _sum and _count.",
		  offsetof(struct ps_tcp_peer_stats, hs_count),
		  offsetof(struct ps_tcp_peer_stats, hs_sum_ns) },
		{ "pathscope_tcp_peer_response_seconds",
		  "This host's TCP response time (answered with data) per peer subnet: exact _sum "
		  "and _count.",
		  offsetof(struct ps_tcp_peer_stats, resp_data_count),
		  offsetof(struct ps_tcp_peer_stats, resp_data_sum_ns) },
		{ "pathscope_tcp_peer_ack_delay_seconds",
		  "This host's TCP ACK delay per peer subnet: exact _sum and _count.",
		  offsetof(struct ps_tcp_peer_stats, resp_ack_count),
		  offsetof(struct ps_tcp_peer_stats, resp_ack_sum_ns) },
	};
	char v[48];
	struct ps_lbl l;
	unsigned int j;
	size_t k;
	int i;

	if (p->no_peers)
		return;
	ps_prom_family(p, "pathscope_tcp_peer_rtt_seconds", "histogram",
		       "TCP network RTT per peer subnet (the first 128 subnets, then "
		       "subnet=\"other\"); _sum is exact.");
	for (i = 0; i < n; i++)
		for (j = 0; ps_tcp_on(&snaps[i]) && j < snaps[i].ntcp_peers; j++) {
			const struct ps_tcp_peer_stats *ps = &snaps[i].tcp_peers[j].stats;

			subnet_label(&l, &snaps[i], &snaps[i].tcp_peers[j].key);
			ps_prom_hist(p, &l, ps->rtt_hist, PS_LAT_BUCKETS, &ps_prom_lat_edges,
				     ps->rtt_sum_ns);
		}
	for (k = 0; k < PS_ARRAY_SIZE(sums); k++) {
		ps_prom_family(p, sums[k].name, "summary", sums[k].help);
		for (i = 0; i < n; i++)
			for (j = 0; ps_tcp_on(&snaps[i]) && j < snaps[i].ntcp_peers; j++) {
				const char *ps = (const char *)&snaps[i].tcp_peers[j].stats;

				subnet_label(&l, &snaps[i], &snaps[i].tcp_peers[j].key);
				ps_prom_sample(
				    p, "_sum", &l,
				    ps_prom_fmt_seconds(v, sizeof(v),
							*(const __u64 *)(ps + sums[k].sum)));
				ps_prom_sample(
				    p, "_count", &l,
				    ps_prom_fmt_u128(v, sizeof(v),
						     *(const __u64 *)(ps + sums[k].count)));
			}
	}
}

static void ps_tcp_prom(struct ps_prom *p, const struct ps_snapshot *s, int n)
{
	static const struct ps_prom_counter counters[] = {
		{ "pathscope_tcp_options_malformed_total",
		  "TCP segments whose option list is truncated or malformed (not read further).",
		  offsetof(struct ps_tcp_qstats, opt_bad), false },
		{ "pathscope_tcp_rtt_samples_taken_total",
		  "TCP data segments sent whose TSval waits for its echo (one per flow at a "
		  "time), per TX queue.",
		  offsetof(struct ps_tcp_qstats, rtt_taken), false },
		{ "pathscope_tcp_rtt_samples_expired_total",
		  "RTT samples never echoed (the echoes moved past them, or older than 10 s).",
		  offsetof(struct ps_tcp_qstats, rtt_expired), false },
		{ "pathscope_tcp_response_samples_taken_total",
		  "TCP data segments received whose TSval waits for this host's echo, per RX "
		  "queue.",
		  offsetof(struct ps_tcp_qstats, resp_taken), false },
		{ "pathscope_tcp_response_samples_expired_total",
		  "Response samples this host never echoed.",
		  offsetof(struct ps_tcp_qstats, resp_expired), false },
		{ "pathscope_tcp_syn_retransmits_total",
		  "SYNs and SYN-ACKs sent again (their handshakes are not timed), per TX queue.",
		  offsetof(struct ps_tcp_qstats, syn_retrans), false },
	};
	static const struct {
		const char *name, *help;
		ps_prom_slot_fn fn;
	} hists[] = {
		{ "pathscope_tcp_rtt_seconds",
		  "TCP network RTT, data out (tc egress) to the echo of its TSval in (tc ingress, "
		  "or xdp with attach --tcp-rx xdp), per "
		  "RX queue of the echo; _sum is estimated from bucket midpoints.",
		  rtt_hist },
		{ "pathscope_tcp_handshake_seconds",
		  "TCP handshake RTT (SYN out to SYN-ACK in, SYN-ACK out to its ACK in), per RX "
		  "queue of the reply; _sum is estimated from bucket midpoints.",
		  hs_hist },
		{ "pathscope_tcp_response_seconds",
		  "This host's TCP response time, data in (tc ingress or xdp) to its first echo "
		  "out (tc "
		  "egress) carrying data, per RX queue; _sum is estimated from bucket midpoints.",
		  resp_hist },
		{ "pathscope_tcp_ack_delay_seconds",
		  "This host's TCP ACK delay, data in (tc ingress or xdp) to its first echo out "
		  "(tc egress) "
		  "in a pure ACK, per RX queue; _sum is estimated from bucket midpoints.",
		  ackd_hist },
	};
	size_t i;

	ps_prom_family(p, "pathscope_tcp_segments_total", "counter",
		       "TCP segments with and without the timestamp option, per RX queue (rx, "
		       "tc ingress or xdp) and TX queue (tx, tc egress); flows without it have no "
		       "RTT.");
	ps_prom_each_slot(p, s, n, &tcp_slots, 0, segments);
	ps_prom_slot_counters(p, s, n, &tcp_slots, counters, PS_ARRAY_SIZE(counters));
	ps_prom_family(p, "pathscope_tcp_halfopen_evicted_total", "counter",
		       "Handshakes evicted untimed from the full half-open table (4096 "
		       "handshakes) since attach.");
	ps_prom_each_iface(p, s, n, ps_tcp_on, halfopen_evicted);

	for (i = 0; i < PS_ARRAY_SIZE(hists); i++) {
		ps_prom_family(p, hists[i].name, "histogram", hists[i].help);
		ps_prom_each_slot(p, s, n, &tcp_slots, 0, hists[i].fn);
	}
	peers_prom(p, s, n);
}

/* ---- latency budget ------------------------------------------------------ */

static void tcp_dist(const struct ps_snapshot *s, unsigned int q, size_t off, __u64 *out)
{
	static struct ps_tcp_qhist h;

	ps_per_queue_total(s->tcp_hist, sizeof(h), s->nslots, q, &h);
	memcpy(out, (const char *)&h + off, sizeof(h.rtt));
}

static void ps_tcp_rtt(const struct ps_snapshot *s, unsigned int q, __u64 *out)
{
	tcp_dist(s, q, offsetof(struct ps_tcp_qhist, rtt), out);
}

static void ps_tcp_handshake(const struct ps_snapshot *s, unsigned int q, __u64 *out)
{
	tcp_dist(s, q, offsetof(struct ps_tcp_qhist, handshake), out);
}

static void ps_tcp_response(const struct ps_snapshot *s, unsigned int q, __u64 *out)
{
	tcp_dist(s, q, offsetof(struct ps_tcp_qhist, resp_data), out);
}

static void ps_tcp_ack_delay(const struct ps_snapshot *s, unsigned int q, __u64 *out)
{
	tcp_dist(s, q, offsetof(struct ps_tcp_qhist, resp_ack), out);
}

/* ---- the family ---------------------------------------------------------- */

static void iface_json(json_object *o, const struct ps_snapshot *s)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%u,%u", s->meta.tcp_prefix4, s->meta.tcp_prefix6);
	json_object_object_add(o, "tcp_peer_prefix", json_object_new_string(buf));
	json_object_object_add(o, "tcp_peers", ps_tcp_peers_json(s));
	ps_json_add_u64(o, "tcp_halfopen_evicted", halfopen_evicted(s));
}

static const struct ps_stage stages[] = {
	{
	    .head = "NET tcp",
	    .key = "tcp_rtt",
	    .words = "TCP RTT",
	    .where = "segment at tc egress to its echo at tc ingress",
	    .path = PS_PATH_NET,
	    .hist = ps_tcp_rtt,
	    .json = { { "tcp", "rtt_ns" } },
	},
	{
	    .head = "NET hs",
	    .key = "tcp_handshake",
	    .words = "TCP handshake RTT",
	    .where = "SYN or SYN-ACK at tc egress to its answer",
	    .path = PS_PATH_NET,
	    .hist = ps_tcp_handshake,
	    .json = { { "tcp", "handshake_ns" } },
	},
	{
	    .head = "HOST data",
	    .key = "tcp_response",
	    .words = "TCP data response",
	    .where = "segment in to the data echoing it at tc egress",
	    .path = PS_PATH_HOST,
	    .hist = ps_tcp_response,
	    .json = { { "tcp", "response_data_ns" } },
	},
	{
	    .head = "HOST ack",
	    .key = "tcp_ack_delay",
	    .words = "TCP ACK delay",
	    .where = "segment in to the pure ACK echoing it at tc egress",
	    .path = PS_PATH_HOST,
	    .hist = ps_tcp_ack_delay,
	    .json = { { "tcp", "ack_delay_ns" } },
	},
};

/* Its maps: struct ps_tcp_qstats per queue and CPU, ps_tcp_qhist per queue,
 * ps_tcp_peer_stats per peer subnet. */
const struct ps_family ps_family_tcp = {
	.name = "tcp",
	.features = PS_F_TCP,
	.on = ps_tcp_on,
	.slot_active = ps_tcp_slot_active,
	.table = ps_tcp_table,
	.hist = ps_tcp_hist,
	.json_key = "tcp",
	.queue_json = ps_tcp_json,
	.iface_json = iface_json,
	.prom = ps_tcp_prom,
	.stages = stages,
	.nstages = PS_ARRAY_SIZE(stages),
};
