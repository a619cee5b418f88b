// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* ICMP echo RTT and response time: table rows, histograms and JSON. */
#include <arpa/inet.h>
#include <string.h>

#include "stats/format/hist.h"
#include "stats/render_json.h"
#include "stats/report.h"

bool ps_echo_active(const struct ps_echo_qstats *e)
{
	return e->requests_out || e->replies_in || e->requests_in || e->replies_out || e->expired;
}

/* Cumulative echo counts of slot q (q == nslots: the sum of all slots). */
static void echo_total(const struct ps_snapshot *s, unsigned int q, struct ps_echo_qstats *out)
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

/* A latency in ns as a short human string: 850ns, 45.3us, 12.1ms, 1.20s. */
void ps_fmt_ns(char *buf, size_t len, __u64 ns, __u64 count)
{
	if (!count)
		snprintf(buf, len, "-");
	else if (ns < 1000)
		snprintf(buf, len, "%lluns", (unsigned long long)ns);
	else if (ns < 1000000)
		snprintf(buf, len, "%.1fus", ns / 1e3);
	else if (ns < 1000000000)
		snprintf(buf, len, "%.1fms", ns / 1e6);
	else
		snprintf(buf, len, "%.2fs", ns / 1e9);
}

json_object *ps_echo_json(const struct ps_report *r, unsigned int q)
{
	json_object *o = json_object_new_object();
	struct ps_echo_qstats e;

	echo_total(r->cur, q, &e);
	ps_json_add_u64(o, "requests_sent", e.requests_out);
	ps_json_add_u64(o, "replies_matched", e.replies_in);
	ps_json_add_u64(o, "requests_received", e.requests_in);
	ps_json_add_u64(o, "replies_sent", e.replies_out);
	ps_json_add_u64(o, "expired", e.expired);
	json_object_object_add(o, "rtt_ns", ps_json_dist(e.rtt_hist, PS_LAT_BUCKETS));
	json_object_object_add(o, "response_ns", ps_json_dist(e.resp_hist, PS_LAT_BUCKETS));
	return o;
}

json_object *ps_echo_peers_json(const struct ps_snapshot *s)
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

static void echo_row(FILE *out, const struct ps_snapshot *s, unsigned int q, const char *qname)
{
	struct ps_echo_qstats e;
	char v[8][16];
	__u64 n, m;

	echo_total(s, q, &e);
	n = ps_hist_count(e.rtt_hist, PS_LAT_BUCKETS);
	m = ps_hist_count(e.resp_hist, PS_LAT_BUCKETS);
	ps_fmt_ns(v[0], sizeof(v[0]), ps_hist_percentile(e.rtt_hist, PS_LAT_BUCKETS, 50), n);
	ps_fmt_ns(v[1], sizeof(v[1]), ps_hist_percentile(e.rtt_hist, PS_LAT_BUCKETS, 90), n);
	ps_fmt_ns(v[2], sizeof(v[2]), ps_hist_percentile(e.rtt_hist, PS_LAT_BUCKETS, 99), n);
	ps_fmt_ns(v[3], sizeof(v[3]), ps_hist_percentile(e.rtt_hist, PS_LAT_BUCKETS, 99.9), n);
	ps_fmt_ns(v[4], sizeof(v[4]), ps_hist_max(e.rtt_hist, PS_LAT_BUCKETS), n);
	ps_fmt_ns(v[5], sizeof(v[5]), ps_hist_percentile(e.resp_hist, PS_LAT_BUCKETS, 50), m);
	ps_fmt_ns(v[6], sizeof(v[6]), ps_hist_percentile(e.resp_hist, PS_LAT_BUCKETS, 99), m);
	ps_fmt_ns(v[7], sizeof(v[7]), ps_hist_max(e.resp_hist, PS_LAT_BUCKETS), m);
	fprintf(out, "%-6s %8llu %8llu %8s %8s %8s %8s %8s %8llu %8llu %8s %8s %8s %7llu\n", qname,
		(unsigned long long)e.requests_out, (unsigned long long)n, v[0], v[1], v[2], v[3],
		v[4], (unsigned long long)e.requests_in, (unsigned long long)m, v[5], v[6], v[7],
		(unsigned long long)e.expired);
}

void ps_render_echo_table(FILE *out, const struct ps_snapshot *s)
{
	char qname[16], name[64], avg[16], p50[16], p99[16], ravg[16];
	unsigned int q, i;

	if (!s->echo || !(s->meta.features & PS_F_ICMP))
		return;
	fprintf(out,
		"ICMP echo: RTT = request out (tc egress) to reply in (XDP), by RX queue of the "
		"reply;\n           RESP = request in (XDP) to this host's reply out (tc "
		"egress), by RX queue of the request\n");
	fprintf(out, "%-6s %8s %8s %8s %8s %8s %8s %8s %8s %8s %8s %8s %8s %7s\n", "QUEUE",
		"REQ_OUT", "RTT_N", "RTT_P50", "RTT_P90", "RTT_P99", "P99.9", "RTT_MAX", "REQ_IN",
		"RESP_N", "RESP_P50", "RESP_P99", "RESP_MAX", "EXPIRED");
	for (q = 0; q < s->nslots; q++) {
		if (!ps_echo_active(&s->echo[q]))
			continue;
		ps_queue_label(s, q, qname, sizeof(qname));
		echo_row(out, s, q, qname);
	}
	echo_row(out, s, s->nslots, "all");
	if (!s->npeers)
		return;
	fprintf(out, "%-40s %8s %8s %8s %8s %8s %8s\n", "PEER", "RTT_N", "RTT_AVG", "RTT_P50",
		"RTT_P99", "RESP_N", "RESP_AVG");
	for (i = 0; i < s->npeers; i++) {
		const struct ps_peer_stats *p = &s->peers[i].stats;

		if (!p->rtt_count && !p->resp_count)
			continue; /* the "other peers" entry before any overflow */
		peer_name(&s->peers[i].key, name, sizeof(name));
		ps_fmt_ns(avg, sizeof(avg), p->rtt_count ? p->rtt_sum_ns / p->rtt_count : 0,
			  p->rtt_count);
		ps_fmt_ns(p50, sizeof(p50), ps_hist_percentile(p->rtt_hist, PS_LAT_BUCKETS, 50),
			  p->rtt_count);
		ps_fmt_ns(p99, sizeof(p99), ps_hist_percentile(p->rtt_hist, PS_LAT_BUCKETS, 99),
			  p->rtt_count);
		ps_fmt_ns(ravg, sizeof(ravg), p->resp_count ? p->resp_sum_ns / p->resp_count : 0,
			  p->resp_count);
		fprintf(out, "%-40s %8llu %8s %8s %8s %8llu %8s\n", name,
			(unsigned long long)p->rtt_count, avg, p50, p99,
			(unsigned long long)p->resp_count, ravg);
	}
}

void ps_render_echo_hist(FILE *out, const struct ps_snapshot *s)
{
	struct ps_echo_qstats e;

	if (!s->echo || !(s->meta.features & PS_F_ICMP))
		return;
	echo_total(s, s->nslots, &e);
	fprintf(out, "\n%s ICMP echo RTT, all queues:\n", s->meta.ifname);
	ps_print_hist(out, e.rtt_hist, PS_LAT_BUCKETS, "ns");
	fprintf(out, "\n%s ICMP echo response time, all queues:\n", s->meta.ifname);
	ps_print_hist(out, e.resp_hist, PS_LAT_BUCKETS, "ns");
}
