// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Driver-to-stack latency per RX queue, sampled: XDP (driver ingress, before GRO) to
 * tc ingress (after GRO). Born in include/pathscope/d2s.bpf.h, stored in struct
 * ps_d2s_qstats. */
#include <stddef.h>
#include <string.h>

#include "stats/families/families.h"
#include "stats/families/stages.h"
#include "stats/format/hist.h"
#include "stats/format/json.h"
#include "stats/format/table.h"

bool ps_d2s_on(const struct ps_snapshot *s)
{
	return s->d2s && (s->meta.features & PS_F_D2S);
}

static bool ps_d2s_slot_active(const struct ps_snapshot *s, unsigned int q)
{
	return ps_d2s_on(s) && (s->d2s[q].sampled || s->d2s[q].expired);
}

/* Cumulative counts of slot q (q == nslots: all slots). */
static void d2s_total(const struct ps_snapshot *s, unsigned int q, struct ps_d2s_qstats *out)
{
	ps_per_queue_total(s->d2s, sizeof(*out), s->nslots, q, out);
}

/* ---- table --------------------------------------------------------------- */

static void d2s_row(FILE *out, const struct ps_snapshot *s, unsigned int q, const char *qname)
{
	struct ps_d2s_qstats t;
	char v[6][16];

	d2s_total(s, q, &t);
	/* the exact mean, as JSON's avg_ns */
	ps_fmt_ns(v[5], sizeof(v[5]), t.matched ? t.sum_ns / t.matched : 0, t.matched);
	ps_fmt_lat(v[0], sizeof(v[0]), t.hist, 50);
	ps_fmt_lat(v[1], sizeof(v[1]), t.hist, 90);
	ps_fmt_lat(v[2], sizeof(v[2]), t.hist, 99);
	ps_fmt_lat(v[3], sizeof(v[3]), t.hist, 99.9);
	ps_fmt_lat(v[4], sizeof(v[4]), t.hist, PS_PCT_MAX);
	fprintf(out, "%-6s %9llu %9llu %9llu %9s %9s %9s %9s %9s %9s\n", qname,
		(unsigned long long)t.sampled, (unsigned long long)t.matched,
		(unsigned long long)t.expired, v[5], v[0], v[1], v[2], v[3], v[4]);
}

static void ps_d2s_table(FILE *out, const struct ps_report *r)
{
	const struct ps_snapshot *s = r->cur;
	char qname[16];
	unsigned int q;

	if (!ps_d2s_on(s))
		return;
	fprintf(out,
		"Driver to stack: XDP -> tc ingress, 1 in %d TCP/UDP packets per CPU sampled\n",
		PS_D2S_EVERY);
	fprintf(out, "%-6s %9s %9s %9s %9s %9s %9s %9s %9s %9s\n", "RXQ", "SAMPLED", "MATCHED",
		"EXPIRED", "AVG", "P50", "P90", "P99", "P99.9", "MAX");
	for (q = 0; q < s->nslots; q++) {
		if (!ps_d2s_slot_active(s, q))
			continue;
		ps_queue_label(s, q, qname, sizeof(qname));
		d2s_row(out, s, q, qname);
	}
	d2s_row(out, s, s->nslots, "all");
}

/* ---- --hist -------------------------------------------------------------- */

static void ps_d2s_hist(FILE *out, const struct ps_report *r)
{
	const struct ps_snapshot *s = r->cur;
	struct ps_d2s_qstats t;

	if (!ps_d2s_on(s))
		return;
	d2s_total(s, s->nslots, &t);
	fprintf(out, "\n%s driver to stack, all queues (sampled):\n", s->meta.ifname);
	ps_print_hist(out, t.hist, PS_LAT_BUCKETS, "ns");
}

/* ---- JSON ---------------------------------------------------------------- */

static json_object *ps_d2s_json(const struct ps_report *r, unsigned int q)
{
	json_object *o = json_object_new_object();
	struct ps_d2s_qstats t;

	d2s_total(r->cur, q, &t);
	ps_json_add_u64(o, "sample_every", PS_D2S_EVERY);
	ps_json_add_u64(o, "sampled", t.sampled);
	ps_json_add_u64(o, "matched", t.matched);
	ps_json_add_u64(o, "expired", t.expired);
	json_object_object_add(o, "latency_ns", ps_json_dist(t.hist, PS_LAT_BUCKETS));
	ps_json_add_u64(o, "avg_ns", t.matched ? t.sum_ns / t.matched : 0);
	return o;
}

/* ---- Prometheus ---------------------------------------------------------- */

static const void *d2s_base(const struct ps_snapshot *s)
{
	return s->d2s;
}

static const struct ps_prom_slots d2s_slots = { ps_d2s_on, d2s_base, sizeof(struct ps_d2s_qstats),
						true, PS_F_D2S };

static const struct ps_prom_counter d2s_counters[] = {
	{ "pathscope_d2s_sampled_total",
	  "Driver to stack: TCP/UDP packets sampled at xdp (1 in 64 per CPU), per RX queue.",
	  offsetof(struct ps_d2s_qstats, sampled), false },
	{ "pathscope_d2s_matched_total", "Driver to stack: samples found at tc ingress.",
	  offsetof(struct ps_d2s_qstats, matched), true },
	{ "pathscope_d2s_expired_total",
	  "Driver to stack: samples not found at tc ingress within 10 ms.",
	  offsetof(struct ps_d2s_qstats, expired), true },
};

static void latency(struct ps_prom *p, const struct ps_lbl *l, const struct ps_snapshot *s,
		    unsigned int q)
{
	struct ps_d2s_qstats t;

	d2s_total(s, q, &t);
	ps_prom_hist(p, l, t.hist, PS_LAT_BUCKETS, &ps_prom_lat_edges, t.sum_ns);
}

static void ps_d2s_prom(struct ps_prom *p, const struct ps_snapshot *s, int n)
{
	ps_prom_slot_counters(p, s, n, &d2s_slots, d2s_counters, PS_ARRAY_SIZE(d2s_counters));
	ps_prom_family(p, "pathscope_d2s_latency_seconds", "histogram",
		       "Driver to stack latency of matched samples, xdp (before GRO) to tc "
		       "ingress (after GRO).");
	ps_prom_each_slot(p, s, n, &d2s_slots, 0, latency);
}

/* ---- latency budget ------------------------------------------------------ */

void ps_d2s_latency(const struct ps_snapshot *s, unsigned int q, __u64 *out)
{
	struct ps_d2s_qstats t;

	d2s_total(s, q, &t);
	memcpy(out, t.hist, sizeof(t.hist));
}

/* ---- the family ---------------------------------------------------------- */

static const struct ps_stage stages[] = {
	{
	    .head = "RX d2s",
	    .key = "driver_to_stack",
	    .alias = "d2s",
	    .words = "driver to stack",
	    .where = "XDP to tc ingress",
	    .path = PS_PATH_RX,
	    .hist = ps_d2s_latency,
	    .json = { { "driver_to_stack", "latency_ns" } },
	},
};

const struct ps_family ps_family_d2s = {
	.name = "d2s",
	.features = PS_F_D2S,
	.on = ps_d2s_on,
	.slot_active = ps_d2s_slot_active,
	.table = ps_d2s_table,
	.hist = ps_d2s_hist,
	.json_key = "driver_to_stack",
	.queue_json = ps_d2s_json,
	.prom = ps_d2s_prom,
	.stages = stages,
	.nstages = PS_ARRAY_SIZE(stages),
};
