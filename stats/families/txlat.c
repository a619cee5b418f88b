// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* TX path latency per TX queue (qdisc sojourn, driver TX completion):
 * table rows, histograms and JSON. */
#include <string.h>

#include "stats/format/hist.h"
#include "stats/render_json.h"
#include "stats/report.h"

static bool txlat_active(const struct ps_txlat_qstats *t)
{
	return t->queued || t->completed || t->dropped || t->stale;
}

/* Cumulative counts of slot q (q == nslots: all slots). */
static void txlat_total(const struct ps_snapshot *s, unsigned int q, struct ps_txlat_qstats *out)
{
	ps_per_queue_total(s->txlat, sizeof(*out), s->nslots, q, out);
}

static bool has_completion(const struct ps_snapshot *s)
{
	return !(s->meta.flags & PS_META_NO_COMPLETION);
}

json_object *ps_txlat_json(const struct ps_report *r, unsigned int q)
{
	json_object *o = json_object_new_object();
	struct ps_txlat_qstats t;

	txlat_total(r->cur, q, &t);
	/* When sampling, drops are counted among timed skbs: scale them up. */
	ps_json_add_u64(o, "sample_every", r->cur->meta.tx_sample_every);
	ps_json_add_u64(o, "queued", t.queued);
	ps_json_add_u64(o, "dropped", t.dropped * r->cur->meta.tx_sample_every);
	ps_json_add_u64(o, "stale", t.stale);
	json_object_object_add(o, "sojourn_ns", ps_json_dist(t.sojourn_hist, PS_LAT_BUCKETS));
	if (has_completion(r->cur))
		json_object_object_add(o, "completion_ns",
				       ps_json_dist(t.completion_hist, PS_LAT_BUCKETS));
	else /* the device hands skbs on: there is no completion to time */
		json_object_object_add(o, "completion_ns", json_object_new_string("n/a"));
	return o;
}

bool ps_txlat_slot_active(const struct ps_snapshot *s, unsigned int q)
{
	return s->txlat && txlat_active(&s->txlat[q]);
}

static void txlat_row(FILE *out, const struct ps_snapshot *s, unsigned int q, const char *qname)
{
	struct ps_txlat_qstats t;
	char v[8][16];
	__u64 n, m;

	txlat_total(s, q, &t);
	n = ps_hist_count(t.sojourn_hist, PS_LAT_BUCKETS);
	m = ps_hist_count(t.completion_hist, PS_LAT_BUCKETS);
	ps_fmt_ns(v[0], sizeof(v[0]), ps_hist_percentile(t.sojourn_hist, PS_LAT_BUCKETS, 50), n);
	ps_fmt_ns(v[1], sizeof(v[1]), ps_hist_percentile(t.sojourn_hist, PS_LAT_BUCKETS, 90), n);
	ps_fmt_ns(v[2], sizeof(v[2]), ps_hist_percentile(t.sojourn_hist, PS_LAT_BUCKETS, 99), n);
	ps_fmt_ns(v[3], sizeof(v[3]), ps_hist_percentile(t.sojourn_hist, PS_LAT_BUCKETS, 99.9), n);
	ps_fmt_ns(v[4], sizeof(v[4]), ps_hist_max(t.sojourn_hist, PS_LAT_BUCKETS), n);
	if (has_completion(s)) {
		ps_fmt_ns(v[5], sizeof(v[5]),
			  ps_hist_percentile(t.completion_hist, PS_LAT_BUCKETS, 50), m);
		ps_fmt_ns(v[6], sizeof(v[6]),
			  ps_hist_percentile(t.completion_hist, PS_LAT_BUCKETS, 99), m);
		ps_fmt_ns(v[7], sizeof(v[7]), ps_hist_max(t.completion_hist, PS_LAT_BUCKETS), m);
	} else {
		snprintf(v[5], sizeof(v[5]), "n/a");
		snprintf(v[6], sizeof(v[6]), "n/a");
		snprintf(v[7], sizeof(v[7]), "n/a");
	}
	fprintf(out, "%-6s %9llu %9s %9s %9s %9s %9s %9s %9s %9s %8llu\n", qname,
		(unsigned long long)n, v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7],
		(unsigned long long)(t.dropped * s->meta.tx_sample_every));
}

void ps_render_txlat_table(FILE *out, const struct ps_snapshot *s)
{
	char qname[16];
	unsigned int q;

	if (!s->txlat)
		return;
	fprintf(out, "TX latency: SOJOURN = net_dev_queue -> net_dev_start_xmit (qdisc); "
		     "COMPL = start_xmit -> skb freed (driver TX completion)");
	if (s->meta.tx_sample_every > 1)
		fprintf(out, "; sampled 1 in %u, DROPPED scaled", s->meta.tx_sample_every);
	fputc('\n', out);
	fprintf(out, "%-6s %9s %9s %9s %9s %9s %9s %9s %9s %9s %8s\n", "TXQ", "SOJ_N", "SOJ_P50",
		"SOJ_P90", "SOJ_P99", "P99.9", "SOJ_MAX", "COMPL_P50", "COMPL_P99", "COMPL_MAX",
		"DROPPED");
	for (q = 0; q < s->nslots; q++) {
		if (!txlat_active(&s->txlat[q]))
			continue;
		ps_queue_label(s, q, qname, sizeof(qname));
		txlat_row(out, s, q, qname);
	}
	txlat_row(out, s, s->nslots, "all");
}

void ps_render_txlat_hist(FILE *out, const struct ps_snapshot *s)
{
	struct ps_txlat_qstats t;
	unsigned int q;

	if (!s->txlat)
		return;
	for (q = 0; q < s->nslots; q++) {
		if (!ps_hist_count(s->txlat[q].sojourn_hist, PS_LAT_BUCKETS))
			continue;
		fprintf(out, "\n%s qdisc sojourn, TX queue %u:\n", s->meta.ifname, q);
		ps_print_hist(out, s->txlat[q].sojourn_hist, PS_LAT_BUCKETS, "ns");
	}
	if (!has_completion(s))
		return;
	txlat_total(s, s->nslots, &t);
	fprintf(out, "\n%s TX completion, all queues:\n", s->meta.ifname);
	ps_print_hist(out, t.completion_hist, PS_LAT_BUCKETS, "ns");
}
