// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Flows per RX queue (include/pathscope/flows.bpf.h; read by stats/read/flow_table.c):
 * the distinct flows since attach (HyperLogLog), the flows active in the window
 * and the top flows with their share of the queue's packets. */
#include <stdlib.h>
#include <string.h>

#include "stats/families/families.h"
#include "stats/read/flow_table.h"
#include "stats/format/flow_key.h"
#include "stats/format/json.h"
#include "stats/format/table.h"

#define PS_FLOWS_TOP_JSON 10 /* top flows per queue in stats --json */

/* The window's flows of slot q (q == nslots: every queue's, merged), sorted
 * by packets; *qo the slot's queue figures (for q == nslots: summed, and the
 * union's distinct estimate). NULL rows when there are none. */
static struct ps_flow_row *window_flows(const struct ps_report *r, unsigned int q,
					struct ps_flows_q *qo, unsigned int *nrows)
{
	struct ps_flows_q *qs;
	struct ps_flow_row *rows = NULL;
	unsigned int nq, i, n = 0;

	memset(qo, 0, sizeof(*qo));
	*nrows = 0;
	if (ps_flows_read(r->cur, r->prev, &qs, &nq))
		return NULL;
	if (q < nq) {
		*qo = qs[q];
		rows = qs[q].flows;
		n = qs[q].nflows;
		qs[q].flows = NULL;
	} else {
		for (i = 0; i < nq; i++)
			n += qs[i].nflows;
		rows = n ? calloc(n, sizeof(*rows)) : NULL;
		n = 0;
		for (i = 0; i < nq; i++) {
			qo->packets += qs[i].packets;
			qo->bytes += qs[i].bytes;
			qo->sampled += qs[i].sampled;
			qo->evicted += qs[i].evicted;
			qo->rx_hash = qs[i].rx_hash;
			qo->rx_hash_l4 += qs[i].rx_hash_l4;
			qo->rx_hash_l3 += qs[i].rx_hash_l3;
			qo->rx_hash_none += qs[i].rx_hash_none;
			if (rows && qs[i].nflows)
				memcpy(rows + n, qs[i].flows, qs[i].nflows * sizeof(*rows));
			n += rows ? qs[i].nflows : 0;
		}
		qo->queue = PS_QUEUE_UNKNOWN;
		qo->distinct = ps_flows_distinct(r->cur, r->cur->nslots);
		qo->distinct_err = PS_HLL_ERR;
		/* sorted by packets, descending */
		for (i = 1; i < n; i++) {
			struct ps_flow_row t = rows[i];
			unsigned int j = i;

			while (j > 0 && rows[j - 1].packets < t.packets) {
				rows[j] = rows[j - 1];
				j--;
			}
			rows[j] = t;
		}
	}
	qo->flows = NULL;
	qo->nflows = n;
	ps_flows_free(qs, nq);
	*nrows = n;
	return rows;
}

bool ps_flows_slot_active(const struct ps_snapshot *s, unsigned int q)
{
	return ps_flows_on(s) && q < s->nslots && s->flows_q[q].packets;
}

static double share(__u64 part, __u64 whole)
{
	if (!whole)
		return 0;
	return part >= whole ? 1.0 : (double)part / (double)whole;
}

/* ---- table --------------------------------------------------------------- */

static void flows_row(FILE *out, const struct ps_report *r, unsigned int q, const char *qname)
{
	struct ps_flows_q qo;
	unsigned int n;
	struct ps_flow_row *rows = window_flows(r, q, &qo, &n);
	char top[128] = "-", sh[16] = "-";

	if (n) {
		ps_flow_text(&rows[0].key, top, sizeof(top));
		snprintf(sh, sizeof(sh), "%.1f%%", 100 * share(rows[0].packets, qo.packets));
	}
	fprintf(out, "%-6s %10llu %8.0f %7u %7s  %s\n", qname, (unsigned long long)qo.packets,
		qo.distinct, n, sh, top);
	free(rows);
}

void ps_flows_table(FILE *out, const struct ps_report *r)
{
	const struct ps_snapshot *s = r->cur;
	unsigned int q;
	char qname[16];

	if (!ps_flows_on(s))
		return;
	fprintf(out,
		"FLOWS (XDP, 1 in %u frames sampled): DISTINCT since attach (+-%.1f%%), "
		"ACTIVE in the window,\n     TOP = the top flow and its share of the queue's "
		"packets\n",
		ps_flows_sample(s), 100 * PS_HLL_ERR);
	fprintf(out, "%-6s %10s %8s %7s %7s  %s\n", "QUEUE", "PACKETS", "DISTINCT", "ACTIVE", "TOP",
		"TOP_FLOW");
	for (q = 0; q < s->nslots; q++) {
		if (!ps_flows_slot_active(s, q))
			continue;
		ps_queue_label(s, q, qname, sizeof(qname));
		flows_row(out, r, q, qname);
	}
	flows_row(out, r, s->nslots, "all");
	if (ps_flows_evicted(s, s->nslots))
		fprintf(out,
			"(the flow table was full: %llu flows evicted since attach; ACTIVE and TOP "
			"are of the flows it kept, DISTINCT of all)\n",
			(unsigned long long)ps_flows_evicted(s, s->nslots));
}

/* ---- JSON ---------------------------------------------------------------- */

/* {"l4": n, "l3": n, "none": n}: the RX hash types of the sampled frames;
 * null when not measured (no device-bound XDP program). */
json_object *ps_flows_rx_hash_json(const struct ps_flows_q *q)
{
	json_object *o;

	if (!q->rx_hash)
		return NULL;
	o = json_object_new_object();
	ps_json_add_u64(o, "l4", q->rx_hash_l4);
	ps_json_add_u64(o, "l3", q->rx_hash_l3);
	ps_json_add_u64(o, "none", q->rx_hash_none);
	return o;
}

json_object *ps_flows_json(const struct ps_report *r, unsigned int q)
{
	json_object *o = json_object_new_object(), *top = json_object_new_array();
	struct ps_flows_q qo;
	unsigned int n, i;
	struct ps_flow_row *rows = window_flows(r, q, &qo, &n);

	json_object_object_add(o, "sample", json_object_new_int64(ps_flows_sample(r->cur)));
	json_object_object_add(o, "distinct", json_object_new_double(qo.distinct));
	json_object_object_add(o, "distinct_err", json_object_new_double(qo.distinct_err));
	json_object_object_add(o, "active", json_object_new_int64(n));
	ps_json_add_u64(o, "sampled", qo.sampled);
	ps_json_add_u64(o, "evicted", qo.evicted);
	json_object_object_add(o, "rx_hash", ps_flows_rx_hash_json(&qo));
	for (i = 0; i < n && i < PS_FLOWS_TOP_JSON; i++)
		json_object_array_add(top, ps_flow_json(&rows[i]));
	json_object_object_add(o, "top", top);
	free(rows);
	return o;
}

/* ---- Prometheus ---------------------------------------------------------- */
/* No per-flow labels: per queue the distinct estimate and the top flows' shares. */

static const void *flows_base(const struct ps_snapshot *s)
{
	return s->flows_q;
}

static const struct ps_prom_slots flows_slots = { ps_flows_on, flows_base,
						  sizeof(struct ps_flows_qstate), true,
						  PS_F_FLOWS };

static void distinct_sample(struct ps_prom *p, const struct ps_lbl *l, const struct ps_snapshot *s,
			    unsigned int q)
{
	char v[32];

	snprintf(v, sizeof(v), "%.1f", ps_flows_distinct(s, q));
	ps_prom_sample(p, "", l, v);
}

/* The top (rank 0) or second (rank 1) flow's share of slot q's packets
 * since attach (scaled by N). */
static void rank_share_sample(struct ps_prom *p, const struct ps_lbl *l,
			      const struct ps_snapshot *s, unsigned int q, int rank)
{
	__u64 top[2] = { 0, 0 }, whole = s->hook[PS_HOOK_XDP] ? s->hook[PS_HOOK_XDP][q].packets : 0;
	unsigned int i;
	char v[32];

	for (i = 0; i < s->nflows; i++) {
		unsigned int fq =
		    s->flows[i].key.queue < s->nslots ? s->flows[i].key.queue : s->nslots - 1;
		__u64 n = s->flows[i].packets;

		if (fq != q)
			continue;
		if (n > top[0]) {
			top[1] = top[0];
			top[0] = n;
		} else if (n > top[1]) {
			top[1] = n;
		}
	}
	snprintf(v, sizeof(v), "%.4f", share(top[rank] * ps_flows_sample(s), whole));
	ps_prom_sample(p, "", l, v);
}

static void top_share_sample(struct ps_prom *p, const struct ps_lbl *l, const struct ps_snapshot *s,
			     unsigned int q)
{
	rank_share_sample(p, l, s, q, 0);
}

static void second_share_sample(struct ps_prom *p, const struct ps_lbl *l,
				const struct ps_snapshot *s, unsigned int q)
{
	rank_share_sample(p, l, s, q, 1);
}

static __u64 evicted_all(const struct ps_snapshot *s)
{
	return ps_flows_evicted(s, s->nslots);
}

void ps_flows_prom(struct ps_prom *p, const struct ps_snapshot *s, int n)
{
	ps_prom_family(p, "pathscope_flows_distinct", "gauge",
		       "Distinct flows per RX queue since attach (XDP, sampled frames; "
		       "HyperLogLog, relative standard error 6.5%).");
	ps_prom_each_slot(p, s, n, &flows_slots, PS_PROM_PER_QUEUE, distinct_sample);
	ps_prom_family(p, "pathscope_flows_top_share", "gauge",
		       "The top flow's share of its RX queue's packets since attach, 0..1 (its "
		       "sampled packets times N over the queue's XDP packets).");
	ps_prom_each_slot(p, s, n, &flows_slots, PS_PROM_PER_QUEUE, top_share_sample);
	ps_prom_family(p, "pathscope_flows_second_share", "gauge",
		       "The second heaviest flow's share of its RX queue's packets since attach, "
		       "0..1: with the top one, whether two flows collide on the queue.");
	ps_prom_each_slot(p, s, n, &flows_slots, PS_PROM_PER_QUEUE, second_share_sample);
	ps_prom_family(p, "pathscope_flows_evicted_total", "counter",
		       "Flows evicted from the full flow table (16384 flows, all queues) since "
		       "attach: the top flows and their shares are then of the flows it kept.");
	ps_prom_each_iface(p, s, n, ps_flows_on, evicted_all);
}

/* ---- the family ---------------------------------------------------------- */

const struct ps_family ps_family_flows = {
	.name = "flows",
	.features = PS_F_FLOWS,
	.on = ps_flows_on,
	.slot_active = ps_flows_slot_active,
	.table = ps_flows_table,
	.json_key = "flows",
	.queue_json = ps_flows_json,
	.prom = ps_flows_prom,
};
