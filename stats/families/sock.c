// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Stack to socket latency: tc ingress to the application's read, per RX queue of the
 * packet, TCP and UDP apart (samples taken by include/pathscope/sock.bpf.h at tc
 * ingress, their reads found by probes/pathscope_sock.bpf.c). */
#include <arpa/inet.h>
#include <stddef.h>
#include <string.h>

#include "stats/families/families.h"
#include "stats/families/stages.h"
#include "stats/format/hist.h"
#include "stats/format/json.h"
#include "stats/format/table.h"

static const char *const proto_names[PS_SOCK_PROTOS] = { "tcp", "udp" };

bool ps_sock_on(const struct ps_snapshot *s)
{
	return s->sock && s->sock_hist && s->sock_pend && (s->meta.features & PS_F_SOCK);
}

/* Slot q (q == nslots: all) of the counters, histograms and pending. */
static void sock_total(const struct ps_snapshot *s, unsigned int q, struct ps_sock_qstats *c,
		       struct ps_sock_qhist *h, struct ps_sock_pend *p)
{
	ps_per_queue_total(s->sock, sizeof(*c), s->nslots, q, c);
	if (h)
		ps_per_queue_total(s->sock_hist, sizeof(*h), s->nslots, q, h);
	ps_per_queue_total(s->sock_pend, sizeof(*p), s->nslots, q, p);
}

static bool ps_sock_slot_active(const struct ps_snapshot *s, unsigned int q)
{
	struct ps_sock_qstats c;
	struct ps_sock_pend p;
	int i;

	if (!ps_sock_on(s))
		return false;
	sock_total(s, q, &c, NULL, &p);
	for (i = 0; i < PS_SOCK_PROTOS; i++)
		if (c.sampled[i] || c.expired[i] || c.skipped[i] || p.stale[i])
			return true;
	return false;
}

/* Expired: replaced unread in the datapath, or found past their age now. */
static __u64 expired(const struct ps_sock_qstats *c, const struct ps_sock_pend *p, int proto)
{
	return c->expired[proto] + p->stale[proto];
}

/* The latency histogram of slot q (q == nslots: all), both protocols. */
void ps_sock_latency(const struct ps_snapshot *s, unsigned int q, __u64 *out)
{
	static struct ps_sock_qhist h;
	unsigned int b;
	int i;

	memset(out, 0, sizeof(__u64) * PS_LAT_BUCKETS);
	if (!ps_sock_on(s))
		return;
	ps_per_queue_total(s->sock_hist, sizeof(h), s->nslots, q, &h);
	for (i = 0; i < PS_SOCK_PROTOS; i++)
		for (b = 0; b < PS_LAT_BUCKETS; b++)
			out[b] += h.hist[i][b];
}

/* ---- table --------------------------------------------------------------- */

static void sock_rows(FILE *out, const struct ps_snapshot *s, unsigned int q, const char *qname,
		      bool all)
{
	static struct ps_sock_qhist h;
	struct ps_sock_qstats c;
	struct ps_sock_pend p;
	char v[5][16];
	int i;

	sock_total(s, q, &c, &h, &p);
	for (i = 0; i < PS_SOCK_PROTOS; i++) {
		if (!all && !c.sampled[i] && !expired(&c, &p, i))
			continue;
		ps_fmt_lat(v[0], sizeof(v[0]), h.hist[i], 50);
		ps_fmt_lat(v[1], sizeof(v[1]), h.hist[i], 90);
		ps_fmt_lat(v[2], sizeof(v[2]), h.hist[i], 99);
		ps_fmt_lat(v[3], sizeof(v[3]), h.hist[i], 99.9);
		ps_fmt_lat(v[4], sizeof(v[4]), h.hist[i], PS_PCT_MAX);
		fprintf(out, "%-6s %-5s %9llu %9llu %9llu %9llu %9llu %9s %9s %9s %9s %9s\n", qname,
			proto_names[i], (unsigned long long)c.sampled[i],
			(unsigned long long)c.matched[i], (unsigned long long)expired(&c, &p, i),
			(unsigned long long)p.inflight[i], (unsigned long long)c.skipped[i], v[0],
			v[1], v[2], v[3], v[4]);
	}
}

static void port_name(const struct ps_sock_port_key *k, char *buf, size_t len)
{
	if (!k->own)
		snprintf(buf, len, "other");
	else
		snprintf(buf, len, "%s/%u", k->proto < PS_SOCK_PROTOS ? proto_names[k->proto] : "?",
			 ntohs(k->port));
}

static void ps_sock_table(FILE *out, const struct ps_report *r)
{
	const struct ps_snapshot *s = r->cur;
	char qname[16], name[32], v[3][16];
	bool header = false;
	unsigned int q, i;

	if (!ps_sock_on(s))
		return;
	fprintf(out,
		"Socket read: tc ingress -> the application's read of the data (TCP: the copy "
		"reaching it;\n     UDP: its datagram's read), 1 in %d per CPU sampled\n",
		PS_SOCK_EVERY);
	fprintf(out, "%-6s %-5s %9s %9s %9s %9s %9s %9s %9s %9s %9s %9s\n", "RXQ", "PROTO",
		"SAMPLED", "MATCHED", "EXPIRED", "PENDING", "SKIPPED", "P50", "P90", "P99", "P99.9",
		"MAX");
	for (q = 0; q < s->nslots; q++) {
		if (!ps_sock_slot_active(s, q))
			continue;
		ps_queue_label(s, q, qname, sizeof(qname));
		sock_rows(out, s, q, qname, false);
	}
	sock_rows(out, s, s->nslots, "all", true);
	for (i = 0; i < s->nsock_ports; i++) {
		const struct ps_sock_port_stats *p = &s->sock_ports[i].stats;

		if (!p->count)
			continue;
		if (!header)
			fprintf(out, "%-12s %9s %9s %9s %9s\n", "LOCAL PORT", "READS", "AVG", "P50",
				"P99");
		header = true;
		port_name(&s->sock_ports[i].key, name, sizeof(name));
		ps_fmt_ns(v[0], sizeof(v[0]), p->sum_ns / p->count, p->count);
		ps_fmt_lat(v[1], sizeof(v[1]), p->hist, 50);
		ps_fmt_lat(v[2], sizeof(v[2]), p->hist, 99);
		fprintf(out, "%-12s %9llu %9s %9s %9s\n", name, (unsigned long long)p->count, v[0],
			v[1], v[2]);
	}
}

/* ---- --hist -------------------------------------------------------------- */

static void ps_sock_hist(FILE *out, const struct ps_report *r)
{
	static struct ps_sock_qhist h;
	const struct ps_snapshot *s = r->cur;
	struct ps_sock_qstats c;
	struct ps_sock_pend p;
	int i;

	if (!ps_sock_on(s))
		return;
	sock_total(s, s->nslots, &c, &h, &p);
	for (i = 0; i < PS_SOCK_PROTOS; i++) {
		if (!c.sampled[i])
			continue;
		fprintf(out, "\n%s socket read latency, %s, all queues (sampled):\n",
			s->meta.ifname, proto_names[i]);
		ps_print_hist(out, h.hist[i], PS_LAT_BUCKETS, "ns");
	}
}

/* ---- JSON ---------------------------------------------------------------- */

static json_object *ps_sock_json(const struct ps_report *r, unsigned int q)
{
	static struct ps_sock_qhist h;
	json_object *o = json_object_new_object(), *x;
	struct ps_sock_qstats c;
	struct ps_sock_pend p;
	int i;

	sock_total(r->cur, q, &c, &h, &p);
	ps_json_add_u64(o, "sample_every", PS_SOCK_EVERY);
	for (i = 0; i < PS_SOCK_PROTOS; i++) {
		x = json_object_new_object();
		ps_json_add_u64(x, "sampled", c.sampled[i]);
		ps_json_add_u64(x, "matched", c.matched[i]);
		ps_json_add_u64(x, "expired", expired(&c, &p, i));
		ps_json_add_u64(x, "pending", p.inflight[i]);
		ps_json_add_u64(x, "skipped", c.skipped[i]);
		json_object_object_add(x, "latency_ns", ps_json_dist(h.hist[i], PS_LAT_BUCKETS));
		json_object_object_add(o, proto_names[i], x);
	}
	return o;
}

static json_object *ps_sock_ports_json(const struct ps_snapshot *s)
{
	json_object *a = json_object_new_array();
	unsigned int i;

	for (i = 0; i < s->nsock_ports; i++) {
		const struct ps_sock_port_key *k = &s->sock_ports[i].key;
		const struct ps_sock_port_stats *p = &s->sock_ports[i].stats;
		json_object *o = json_object_new_object();

		json_object_object_add(o, "proto",
				       k->own && k->proto < PS_SOCK_PROTOS
					   ? json_object_new_string(proto_names[k->proto])
					   : NULL);
		json_object_object_add(o, "port",
				       k->own ? json_object_new_uint64(ntohs(k->port))
					      : json_object_new_string("other"));
		ps_json_add_u64(o, "reads", p->count);
		ps_json_add_u64(o, "avg_ns", p->count ? p->sum_ns / p->count : 0);
		json_object_object_add(o, "latency_ns", ps_json_dist(p->hist, PS_LAT_BUCKETS));
		json_object_array_add(a, o);
	}
	return a;
}

/* ---- Prometheus ---------------------------------------------------------- */

static const void *sock_base(const struct ps_snapshot *s)
{
	return s->sock;
}

/* Sampled at tc ingress: the queue filter applies. */
static const struct ps_prom_slots sock_slots = { ps_sock_on, sock_base,
						 sizeof(struct ps_sock_qstats), true, PS_F_SOCK };

static void samples(struct ps_prom *p, const struct ps_lbl *l, const struct ps_snapshot *s,
		    unsigned int q)
{
	struct ps_sock_qstats c;
	struct ps_sock_pend pd;
	struct ps_lbl lp;
	int i;

	sock_total(s, q, &c, NULL, &pd);
	for (i = 0; i < PS_SOCK_PROTOS; i++) {
		lp = *l;
		ps_lbl_add(&lp, "proto", proto_names[i]);
		ps_prom_sample_u1(p, &lp, "result", "sampled", c.sampled[i]);
		ps_prom_sample_u1(p, &lp, "result", "expired", expired(&c, &pd, i));
		ps_prom_sample_u1(p, &lp, "result", "skipped", c.skipped[i]);
	}
}

static void latency(struct ps_prom *p, const struct ps_lbl *l, const struct ps_snapshot *s,
		    unsigned int q)
{
	static struct ps_sock_qhist h; /* 4.4 KB; the renderers run under one lock */
	struct ps_lbl lp;
	int i;

	ps_per_queue_total(s->sock_hist, sizeof(h), s->nslots, q, &h);
	for (i = 0; i < PS_SOCK_PROTOS; i++) {
		lp = *l;
		ps_lbl_add(&lp, "proto", proto_names[i]);
		ps_prom_lat_hist(p, &lp, h.hist[i]);
	}
}

static void ps_sock_prom(struct ps_prom *p, const struct ps_snapshot *s, int n)
{
	char name[32];
	struct ps_lbl l;
	unsigned int j;
	int i;

	ps_prom_family(p, "pathscope_sock_samples_total", "counter",
		       "Socket read samples taken at tc ingress (1 in 64 TCP/UDP packets per CPU), "
		       "expired unread, and skipped (4 already waiting on the flow), per RX queue "
		       "and protocol; the latency histogram's _count is the matched ones.");
	ps_prom_each_slot(p, s, n, &sock_slots, PS_PROM_PER_QUEUE, samples);
	ps_prom_family(p, "pathscope_sock_read_latency_seconds", "histogram",
		       "tc ingress to the application's read of the data, per RX queue of the "
		       "packet and protocol; _sum is estimated from bucket midpoints.");
	ps_prom_each_slot(p, s, n, &sock_slots, 0, latency);
	ps_prom_family(p, "pathscope_sock_port_read_latency_seconds", "histogram",
		       "The same per local port (the first 32 ports, then port=\"other\"); _sum is "
		       "exact.");
	for (i = 0; i < n; i++)
		for (j = 0; ps_sock_on(&s[i]) && j < s[i].nsock_ports; j++) {
			const struct ps_sock_port_entry *e = &s[i].sock_ports[j];

			ps_lbl_iface(&l, &s[i]);
			if (e->key.own) {
				ps_lbl_add(&l, "proto",
					   e->key.proto < PS_SOCK_PROTOS ? proto_names[e->key.proto]
									 : "?");
				snprintf(name, sizeof(name), "%u", ntohs(e->key.port));
				ps_lbl_add(&l, "port", name);
			} else {
				ps_lbl_add(&l, "proto", "any");
				ps_lbl_add(&l, "port", "other");
			}
			ps_prom_hist(p, &l, e->stats.hist, PS_LAT_BUCKETS, &ps_prom_lat_edges,
				     e->stats.sum_ns);
		}
}

/* ---- the family ---------------------------------------------------------- */

static void iface_json(json_object *o, const struct ps_snapshot *s)
{
	json_object_object_add(o, "socket_ports", ps_sock_ports_json(s));
}

static const struct ps_stage stages[] = {
	{
	    .head = "RX sock",
	    .key = "socket_read",
	    .alias = "sock",
	    .words = "socket read",
	    .where = "tc ingress to the application's read",
	    .path = PS_PATH_RX,
	    .hist = ps_sock_latency,
	    .json = { { "socket", "tcp", "latency_ns" }, { "socket", "udp", "latency_ns" } },
	},
};

/* Its maps: struct ps_sock_qstats per queue and CPU, ps_sock_qhist per queue,
 * the pending samples, ps_sock_port_stats per local port. */
const struct ps_family ps_family_sock = {
	.name = "sock",
	.features = PS_F_SOCK,
	.on = ps_sock_on,
	.slot_active = ps_sock_slot_active,
	.table = ps_sock_table,
	.hist = ps_sock_hist,
	.json_key = "socket",
	.queue_json = ps_sock_json,
	.iface_json = iface_json,
	.prom = ps_sock_prom,
	.stages = stages,
	.nstages = PS_ARRAY_SIZE(stages),
};
