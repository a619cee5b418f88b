// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Driver-to-stack latency per RX queue (sampled): table rows, histogram and
 * JSON. */
#include <string.h>

#include "stats/format/hist.h"
#include "stats/render_json.h"
#include "stats/report.h"

static bool d2s_on(const struct ps_snapshot *s)
{
	return s->d2s && (s->meta.features & PS_F_D2S);
}

/* Cumulative counts of slot q (q == nslots: all slots). */
static void d2s_total(const struct ps_snapshot *s, unsigned int q, struct ps_d2s_qstats *out)
{
	ps_per_queue_total(s->d2s, sizeof(*out), s->nslots, q, out);
}

json_object *ps_d2s_json(const struct ps_report *r, unsigned int q)
{
	json_object *o = json_object_new_object();
	struct ps_d2s_qstats t;

	d2s_total(r->cur, q, &t);
	ps_json_add_u64(o, "sample_every", PS_D2S_EVERY);
	ps_json_add_u64(o, "sampled", t.sampled);
	ps_json_add_u64(o, "matched", t.matched);
	ps_json_add_u64(o, "expired", t.expired);
	json_object_object_add(o, "latency_ns", ps_json_dist(t.hist, PS_LAT_BUCKETS));
	return o;
}

bool ps_d2s_slot_active(const struct ps_snapshot *s, unsigned int q)
{
	return d2s_on(s) && (s->d2s[q].sampled || s->d2s[q].expired);
}

static void d2s_row(FILE *out, const struct ps_snapshot *s, unsigned int q, const char *qname)
{
	struct ps_d2s_qstats t;
	char v[5][16];
	__u64 n;

	d2s_total(s, q, &t);
	n = ps_hist_count(t.hist, PS_LAT_BUCKETS);
	ps_fmt_ns(v[0], sizeof(v[0]), ps_hist_percentile(t.hist, PS_LAT_BUCKETS, 50), n);
	ps_fmt_ns(v[1], sizeof(v[1]), ps_hist_percentile(t.hist, PS_LAT_BUCKETS, 90), n);
	ps_fmt_ns(v[2], sizeof(v[2]), ps_hist_percentile(t.hist, PS_LAT_BUCKETS, 99), n);
	ps_fmt_ns(v[3], sizeof(v[3]), ps_hist_percentile(t.hist, PS_LAT_BUCKETS, 99.9), n);
	ps_fmt_ns(v[4], sizeof(v[4]), ps_hist_max(t.hist, PS_LAT_BUCKETS), n);
	fprintf(out, "%-6s %9llu %9llu %9llu %9s %9s %9s %9s %9s\n", qname,
		(unsigned long long)t.sampled, (unsigned long long)t.matched,
		(unsigned long long)t.expired, v[0], v[1], v[2], v[3], v[4]);
}

void ps_render_d2s_table(FILE *out, const struct ps_snapshot *s)
{
	char qname[16];
	unsigned int q;

	if (!d2s_on(s))
		return;
	fprintf(out,
		"Driver to stack: XDP -> tc ingress, 1 in %d TCP/UDP packets per CPU sampled\n",
		PS_D2S_EVERY);
	fprintf(out, "%-6s %9s %9s %9s %9s %9s %9s %9s %9s\n", "RXQ", "SAMPLED", "MATCHED",
		"EXPIRED", "P50", "P90", "P99", "P99.9", "MAX");
	for (q = 0; q < s->nslots; q++) {
		if (!ps_d2s_slot_active(s, q))
			continue;
		ps_queue_label(s, q, qname, sizeof(qname));
		d2s_row(out, s, q, qname);
	}
	d2s_row(out, s, s->nslots, "all");
}

void ps_render_d2s_hist(FILE *out, const struct ps_snapshot *s)
{
	struct ps_d2s_qstats t;

	if (!d2s_on(s))
		return;
	d2s_total(s, s->nslots, &t);
	fprintf(out, "\n%s driver to stack, all queues (sampled):\n", s->meta.ifname);
	ps_print_hist(out, t.hist, PS_LAT_BUCKETS, "ns");
}
