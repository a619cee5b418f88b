// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* TX path latency per TX queue: qdisc sojourn (net_dev_queue -> net_dev_start_xmit)
 * and driver TX completion (start_xmit -> skb freed). Born in
 * probes/pathscope_txlat.bpf.c, stored in struct ps_txlat_qstats. */
#include <stddef.h>
#include <string.h>

#include "stats/families/families.h"
#include "stats/families/stages.h"
#include "stats/format/hist.h"
#include "stats/format/json.h"
#include "stats/format/table.h"

static bool ps_txlat_on(const struct ps_snapshot *s)
{
	return s->txlat;
}

static bool active(const struct ps_txlat_qstats *t)
{
	return t->queued || t->completed || t->dropped || t->stale;
}

static bool ps_txlat_slot_active(const struct ps_snapshot *s, unsigned int q)
{
	return s->txlat && active(&s->txlat[q]);
}

/* Cumulative counts of slot q (q == nslots: all slots). */
static void txlat_total(const struct ps_snapshot *s, unsigned int q, struct ps_txlat_qstats *out)
{
	ps_per_queue_total(s->txlat, sizeof(*out), s->nslots, q, out);
}

/* The device hands skbs on (veth) instead of completing them. */
static bool has_completion(const struct ps_snapshot *s)
{
	return !(s->meta.flags & PS_META_NO_COMPLETION);
}

/* The exact mean: sum / count, 0 without samples. */
static __u64 avg(__u64 sum, __u64 n)
{
	return n ? sum / n : 0;
}

/* ---- table --------------------------------------------------------------- */

static void txlat_row(FILE *out, const struct ps_snapshot *s, unsigned int q, const char *qname)
{
	struct ps_txlat_qstats t;
	char v[8][16] = { [4] = "n/a", [5] = "n/a", [6] = "n/a", [7] = "n/a" };
	__u64 soj_n;

	/* AVG: the exact means, as JSON's (the datapath keeps the sums); p90 and p99.9
	 * are in JSON and --hist, so that the table fits 120 columns. */
	txlat_total(s, q, &t);
	soj_n = ps_hist_count(t.sojourn_hist, PS_LAT_BUCKETS);
	ps_fmt_ns(v[0], sizeof(v[0]), avg(t.sojourn_sum_ns, t.sojourn_n), t.sojourn_n);
	ps_fmt_lat(v[1], sizeof(v[1]), t.sojourn_hist, 50);
	ps_fmt_lat(v[2], sizeof(v[2]), t.sojourn_hist, 99);
	ps_fmt_lat(v[3], sizeof(v[3]), t.sojourn_hist, PS_PCT_MAX);
	if (has_completion(s)) {
		ps_fmt_ns(v[4], sizeof(v[4]), avg(t.completion_sum_ns, t.completed), t.completed);
		ps_fmt_lat(v[5], sizeof(v[5]), t.completion_hist, 50);
		ps_fmt_lat(v[6], sizeof(v[6]), t.completion_hist, 99);
		ps_fmt_lat(v[7], sizeof(v[7]), t.completion_hist, PS_PCT_MAX);
	}
	fprintf(out, "%-6s %9llu %9s %9s %9s %9s %9s %9s %9s %9s %8llu\n", qname,
		(unsigned long long)soj_n, v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7],
		(unsigned long long)(t.dropped * s->meta.tx_sample_every));
}

static void ps_txlat_table(FILE *out, const struct ps_report *r)
{
	const struct ps_snapshot *s = r->cur;
	char qname[16];
	unsigned int q;

	if (!ps_txlat_on(s))
		return;
	fprintf(out, "TX latency: SOJOURN = net_dev_queue -> net_dev_start_xmit (qdisc);\n"
		     "     COMPL = start_xmit -> skb freed (driver TX completion)");
	if (s->meta.tx_sample_every > 1)
		fprintf(out, "; sampled 1 in %u, DROPPED scaled", s->meta.tx_sample_every);
	fputc('\n', out);
	fprintf(out, "%-6s %9s %9s %9s %9s %9s %9s %9s %9s %9s %8s\n", "TXQ", "SOJ_N", "SOJ_AVG",
		"SOJ_P50", "SOJ_P99", "SOJ_MAX", "COMPL_AVG", "COMPL_P50", "COMPL_P99", "COMPL_MAX",
		"DROPPED");
	for (q = 0; q < s->nslots; q++) {
		if (!active(&s->txlat[q]))
			continue;
		ps_queue_label(s, q, qname, sizeof(qname));
		txlat_row(out, s, q, qname);
	}
	txlat_row(out, s, s->nslots, "all");
}

/* ---- --hist -------------------------------------------------------------- */

static void ps_txlat_hist(FILE *out, const struct ps_report *r)
{
	const struct ps_snapshot *s = r->cur;
	struct ps_txlat_qstats t;
	unsigned int q;

	if (!ps_txlat_on(s))
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

/* ---- JSON ---------------------------------------------------------------- */

static json_object *ps_txlat_json(const struct ps_report *r, unsigned int q)
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
	ps_json_add_u64(o, "sojourn_avg_ns", avg(t.sojourn_sum_ns, t.sojourn_n));
	if (has_completion(r->cur)) {
		json_object_object_add(o, "completion_ns",
				       ps_json_dist(t.completion_hist, PS_LAT_BUCKETS));
		ps_json_add_u64(o, "completion_avg_ns", avg(t.completion_sum_ns, t.completed));
	} else { /* the device hands skbs on: there is no completion to time */
		json_object_object_add(o, "completion_ns", json_object_new_string("n/a"));
		json_object_object_add(o, "completion_avg_ns", json_object_new_string("n/a"));
	}
	return o;
}

/* ---- Prometheus ---------------------------------------------------------- */

static const void *txlat_base(const struct ps_snapshot *s)
{
	return s->txlat;
}

/* The tracepoint probes see every queue: no --queues filter. */
static const struct ps_prom_slots txlat_slots = { ps_txlat_on, txlat_base,
						  sizeof(struct ps_txlat_qstats), false,
						  PS_F_TXLAT };

static void dropped(struct ps_prom *p, const struct ps_lbl *l, const struct ps_snapshot *s,
		    unsigned int q)
{
	struct ps_txlat_qstats t;

	txlat_total(s, q, &t);
	ps_prom_sample_u(p, l, (ps_u128)t.dropped * s->meta.tx_sample_every);
}

static void sojourn(struct ps_prom *p, const struct ps_lbl *l, const struct ps_snapshot *s,
		    unsigned int q)
{
	struct ps_txlat_qstats t;

	txlat_total(s, q, &t);
	ps_prom_hist(p, l, t.sojourn_hist, PS_LAT_BUCKETS, &ps_prom_lat_edges, t.sojourn_sum_ns);
}

static void completion(struct ps_prom *p, const struct ps_lbl *l, const struct ps_snapshot *s,
		       unsigned int q)
{
	struct ps_txlat_qstats t;

	if (!has_completion(s))
		return;
	txlat_total(s, q, &t);
	ps_prom_hist(p, l, t.completion_hist, PS_LAT_BUCKETS, &ps_prom_lat_edges,
		     t.completion_sum_ns);
}

static void ps_txlat_prom(struct ps_prom *p, const struct ps_snapshot *s, int n)
{
	static const struct ps_prom_counter queued = {
		"pathscope_txlat_queued_total",
		"skbs entering the qdisc (net:net_dev_queue), per TX queue.",
		offsetof(struct ps_txlat_qstats, queued), true
	};
	static const struct ps_prom_counter stale = {
		"pathscope_txlat_stale_total", "In-flight entries older than 10 s, not recorded.",
		offsetof(struct ps_txlat_qstats, stale), false
	};
	struct ps_lbl l;
	int i;

	ps_prom_family(p, "pathscope_txlat_sample_every", "gauge",
		       "TX latency: 1 in N transmitted skbs is timed (histogram counts cover "
		       "those).");
	for (i = 0; i < n; i++) {
		if (!ps_txlat_on(&s[i]))
			continue;
		ps_lbl_iface(&l, &s[i]);
		ps_prom_sample_u(p, &l, s[i].meta.tx_sample_every);
	}
	ps_prom_slot_counters(p, s, n, &txlat_slots, &queued, 1);
	ps_prom_family(p, "pathscope_txlat_dropped_total", "counter",
		       "skbs freed by kfree_skb after entering the qdisc (scaled by the "
		       "sampling).");
	ps_prom_each_slot(p, s, n, &txlat_slots, PS_PROM_PER_QUEUE, dropped);
	ps_prom_slot_counters(p, s, n, &txlat_slots, &stale, 1);
	ps_prom_family(p, "pathscope_qdisc_sojourn_seconds", "histogram",
		       "Time in the qdisc, net_dev_queue to net_dev_start_xmit, per TX queue.");
	ps_prom_each_slot(p, s, n, &txlat_slots, 0, sojourn);
	ps_prom_family(p, "pathscope_tx_completion_seconds", "histogram",
		       "Driver TX completion, net_dev_start_xmit to the skb freed, per TX queue "
		       "(absent on veth).");
	ps_prom_each_slot(p, s, n, &txlat_slots, 0, completion);
}

/* ---- latency budget ------------------------------------------------------ */

static void ps_txlat_sojourn(const struct ps_snapshot *s, unsigned int q, __u64 *out)
{
	struct ps_txlat_qstats t;

	txlat_total(s, q, &t);
	memcpy(out, t.sojourn_hist, sizeof(t.sojourn_hist));
}

static void ps_txlat_completion(const struct ps_snapshot *s, unsigned int q, __u64 *out)
{
	struct ps_txlat_qstats t;

	txlat_total(s, q, &t);
	memcpy(out, t.completion_hist, sizeof(t.completion_hist));
}

/* ---- the family ---------------------------------------------------------- */

static const struct ps_stage stages[] = {
	{
	    .head = "TX qdisc",
	    .key = "qdisc_sojourn",
	    .alias = "sojourn",
	    .words = "qdisc sojourn",
	    .where = "net_dev_queue to net_dev_start_xmit",
	    .path = PS_PATH_TX,
	    .tx = true,
	    .hist = ps_txlat_sojourn,
	    .json = { { "tx_latency", "sojourn_ns" } },
	},
	{
	    .head = "TX compl",
	    .key = "tx_completion",
	    .alias = "completion",
	    .words = "TX completion",
	    .where = "net_dev_start_xmit to the skb freed",
	    .path = PS_PATH_TX,
	    .tx = true,
	    .has = has_completion,
	    .hist = ps_txlat_completion,
	    .json = { { "tx_latency", "completion_ns" } },
	},
};

const struct ps_family ps_family_txlat = {
	.name = "txlat",
	.features = PS_F_TXLAT,
	.on = ps_txlat_on,
	.slot_active = ps_txlat_slot_active,
	.table = ps_txlat_table,
	.hist = ps_txlat_hist,
	.json_key = "tx_latency",
	.queue_json = ps_txlat_json,
	.prom = ps_txlat_prom,
	.stages = stages,
	.nstages = PS_ARRAY_SIZE(stages),
};
