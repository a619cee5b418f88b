// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The report of `pathscope flows` (flows_report.h): the figures are gathered
 * once (struct report), then written by the text or the JSON emitter. */
#include "stats/render/flows_report.h"

#include <json-c/json.h>
#include <string.h>

#include "stats/analysis/hot_queue.h"
#include "stats/families/families.h"
#include "stats/format/flow_key.h"
#include "stats/format/json.h"
#include "stats/read/flow_table.h"
#include "stats/render/rss_report.h"

struct report {
	const struct ps_flows_opts *o;
	const struct ps_snapshot *cur;
	const struct ps_flows_q *qs;
	unsigned int nq, nrx; /* queue slots, and the RX queues: all but the last, "other" */
	__u64 packets, bytes; /* of every queue */
	struct ps_hot_report hot;
	struct ps_flow_check flow; /* with o->flow */
};

/* part of all, at most 1: a flow's count scaled by N is an estimate, which
 * may pass its queue's exact count. */
static double share(__u64 part, __u64 all)
{
	return !all ? 0 : part >= all ? 1 : (double)part / (double)all;
}

/* Slot i is shown: an RX queue, or "other" when it saw any packet. */
static bool shown(const struct report *r, unsigned int i)
{
	return i < r->nrx || r->qs[i].packets;
}

static bool cold(const struct report *r, unsigned int i)
{
	return r->o->rss->have_table && !r->hot.entries[i];
}

/* A queue the table gives no entry: RSS never sends it a flow (ethtool -X
 * weight 1 1 1 0, or a table that predates ethtool -L). */
static void cold_why(const struct report *r, char *buf, size_t len)
{
	snprintf(buf, len,
		 "the indirection table gives it none of its %u entries: RSS sends it no flow",
		 r->o->rss->table_size);
}

/* ---- text --------------------------------------------------------------------------- */

static void text_queue_name(FILE *out, const struct report *r, unsigned int i, const char *fmt_q,
			    const char *other)
{
	if (i == r->nrx)
		fputs(other, out);
	else
		fprintf(out, fmt_q, i);
}

static void text_flow(FILE *out, const struct report *r)
{
	const struct ps_flow_check *f = &r->flow;

	fprintf(out, "flow %s: ", r->o->flow_text);
	if (f->predicted)
		fprintf(out, "no prediction (%s)", f->why);
	else
		fprintf(out, "RSS predicts queue %u (Toeplitz hash 0x%08x)", f->queue, f->hash);
	if (f->seen >= 0)
		fprintf(out, "; pathscope saw it on queue %ld (%llu packets)\n", f->seen,
			(unsigned long long)f->seen_packets);
	else if (f->seen == -2)
		fprintf(out, "; pathscope saw it on a queue past the attachment's (%llu packets)\n",
			(unsigned long long)f->seen_packets);
	else
		fprintf(out, "; pathscope did not see it%s\n",
			ps_flows_sample(r->cur) > 1 ? " (sampled 1 in N: try N=1)" : "");
}

/* Flows evicted from the full flow table over the report's window. */
static unsigned long long evicted(const struct report *r)
{
	unsigned long long n = 0;
	unsigned int i;

	for (i = 0; i < r->nq; i++)
		n += r->qs[i].evicted;
	return n;
}

static void text(FILE *out, const struct report *r)
{
	const struct ps_flows_opts *o = r->o;
	const struct ps_snapshot *cur = r->cur;
	unsigned int i, k, c, n;
	char t[200];

	fprintf(out,
		"%s: %u RX queues, %s%.1f s; 1 in %u frames sampled; distinct flows since attach, "
		"+-%.1f%%\n",
		o->ifname, r->nrx, o->interval_s ? "over " : "since attach: ",
		o->interval_s ? o->interval_s
			      : (double)(cur->mono_ns - cur->meta.attach_monotonic_ns) / 1e9,
		ps_flows_sample(cur), PS_HLL_ERR * 100);
	if (evicted(r))
		fprintf(out,
			"the flow table was full: %llu flows evicted; the flows and top flows "
			"below are of those it kept\n",
			(unsigned long long)evicted(r));
	fprintf(out, "%5s %12s %6s %14s %6s %8s %6s  %s\n", "queue", "packets", "share", "bytes",
		"share", "distinct", "flows", "top flow (share of the queue)");
	for (i = 0; i < r->nq; i++) {
		const struct ps_flows_q *q = &r->qs[i];

		if (!shown(r, i))
			continue;
		if (q->nflows)
			ps_flow_text(&q->flows[0].key, t, sizeof(t));
		else
			snprintf(t, sizeof(t), "-");
		text_queue_name(out, r, i, "%5u", "other");
		fprintf(out, " %12llu %5.1f%% %14llu %5.1f%% %8.0f %6u  %s",
			(unsigned long long)q->packets, 100 * share(q->packets, r->packets),
			(unsigned long long)q->bytes, 100 * share(q->bytes, r->bytes), q->distinct,
			q->nflows, t);
		if (q->nflows)
			fprintf(out, " (%.1f%%)", 100 * share(q->flows[0].packets, q->packets));
		fputc('\n', out);
	}
	/* Each queue's RX hash types, where measured: a line each. */
	for (i = 0, n = 0; i < r->nq; i++) {
		const struct ps_flows_q *q = &r->qs[i];

		if (!q->rx_hash || !(q->rx_hash_l4 + q->rx_hash_l3 + q->rx_hash_none))
			continue;
		if (!n++)
			fputs(
			    "RX hash types of the sampled frames (L4: ports hashed, L3: addresses "
			    "only, none: no type):\n",
			    out);
		text_queue_name(out, r, i, "  queue %u:", "  other queues:");
		fprintf(out, " L4 %llu, L3 %llu, none %llu\n", (unsigned long long)q->rx_hash_l4,
			(unsigned long long)q->rx_hash_l3, (unsigned long long)q->rx_hash_none);
	}
	for (i = 0; o->top > 1 && i < r->nq; i++) {
		const struct ps_flows_q *q = &r->qs[i];

		if (q->nflows < 2)
			continue;
		text_queue_name(out, r, i, "queue %u:", "other queues:");
		fprintf(out, " top %u of %u flows\n", q->nflows < o->top ? q->nflows : o->top,
			q->nflows);
		for (k = 0; k < q->nflows && k < o->top; k++) {
			ps_flow_text(&q->flows[k].key, t, sizeof(t));
			fprintf(out, "  %-56s %12llu packets %5.1f%% %14llu bytes\n", t,
				(unsigned long long)q->flows[k].packets,
				100 * share(q->flows[k].packets, q->packets),
				(unsigned long long)q->flows[k].bytes);
		}
	}
	for (i = 0; i < r->nrx; i++) {
		const struct ps_hot_verdict *v = &r->hot.v[i];

		if (!r->hot.hot[i])
			continue;
		fprintf(
		    out,
		    "hot: queue %u carries %.0f%% of the packets (%.0f%% of the bytes): %s\n  %s\n",
		    i, v->share * 100, v->byte_share * 100, ps_hot_cause_name(v->cause),
		    v->why[v->cause]);
		for (c = v->cause + 1; c < PS_HOT_NCAUSES - 1; c++)
			if (v->holds[c])
				fprintf(out, "  also %s: %s\n", ps_hot_cause_name(c), v->why[c]);
		fprintf(out, "  %s\n", ps_hot_cause_advice(v->cause));
		if (v->cause == PS_HOT_COLLISION && *v->steer)
			fprintf(out, "  ethtool -N %s %s action %u\n", r->o->ifname, v->steer,
				v->steer_to);
	}
	for (i = 0; i < r->nrx; i++) {
		if (!cold(r, i))
			continue;
		cold_why(r, t, sizeof(t));
		fprintf(out, "cold: queue %u: table: %s\n", i, t);
	}
	ps_rss_print(out, o->rss, r->nrx);
	if (o->flow)
		text_flow(out, r);
}

/* ---- JSON --------------------------------------------------------------------------- */

static json_object *json_queue(const struct report *r, unsigned int i)
{
	const struct ps_flows_q *q = &r->qs[i];
	json_object *x = json_object_new_object(), *a = json_object_new_array(), *f;
	unsigned int k;

	json_object_object_add(x, "queue",
			       i == r->nrx ? json_object_new_string("other")
					   : json_object_new_int((int)i));
	ps_json_add_u64(x, "packets", q->packets);
	ps_json_add_u64(x, "bytes", q->bytes);
	json_object_object_add(x, "share", ps_json_double(share(q->packets, r->packets), 4));
	json_object_object_add(x, "byte_share", ps_json_double(share(q->bytes, r->bytes), 4));
	json_object_object_add(x, "distinct", ps_json_double(q->distinct, 1));
	json_object_object_add(x, "flows_seen", json_object_new_int64(q->nflows));
	json_object_object_add(
	    x, "top_share",
	    ps_json_double(q->nflows ? share(q->flows[0].packets, q->packets) : 0, 4));
	for (k = 0; k < q->nflows && k < r->o->top; k++) {
		f = ps_flow_json(&q->flows[k]);
		json_object_object_add(f, "share",
				       ps_json_double(share(q->flows[k].packets, q->packets), 4));
		json_object_array_add(a, f);
	}
	json_object_object_add(x, "flows", a);
	json_object_object_add(x, "rx_hash", ps_flows_rx_hash_json(q));
	return x;
}

static json_object *json_hot(const struct ps_hot_verdict *v, unsigned int i, const char *ifname)
{
	char rule[256];
	json_object *x = json_object_new_object(), *y = json_object_new_object();
	unsigned int c;

	json_object_object_add(x, "queue", json_object_new_int((int)i));
	json_object_object_add(x, "share", ps_json_double(v->share, 4));
	json_object_object_add(x, "byte_share", ps_json_double(v->byte_share, 4));
	json_object_object_add(x, "cause", json_object_new_string(ps_hot_cause_name(v->cause)));
	for (c = 0; c < PS_HOT_NCAUSES; c++)
		if (v->holds[c])
			json_object_object_add(y, ps_hot_cause_name(c),
					       json_object_new_string(v->why[c]));
	json_object_object_add(x, "causes", y);
	json_object_object_add(x, "advice", json_object_new_string(ps_hot_cause_advice(v->cause)));
	if (v->cause == PS_HOT_COLLISION && *v->steer) {
		snprintf(rule, sizeof(rule), "ethtool -N %s %s action %u", ifname, v->steer,
			 v->steer_to);
		json_object_object_add(x, "steer", json_object_new_string(rule));
	}
	return x;
}

static json_object *json_flow(const struct report *r)
{
	const struct ps_flow_check *f = &r->flow;
	json_object *x = json_object_new_object();
	bool ok = !f->predicted;

	json_object_object_add(x, "flow", json_object_new_string(r->o->flow_text));
	json_object_object_add(x, "predicted", ok ? json_object_new_int64(f->queue) : NULL);
	json_object_object_add(x, "hash", ok ? json_object_new_int64(f->hash) : NULL);
	json_object_object_add(x, "no_prediction", ok ? NULL : json_object_new_string(f->why));
	json_object_object_add(x, "seen",
			       f->seen >= 0    ? json_object_new_int64(f->seen)
			       : f->seen == -2 ? json_object_new_string("other")
					       : NULL);
	json_object_object_add(x, "seen_packets",
			       f->seen != -1 ? json_object_new_uint64(f->seen_packets) : NULL);
	return x;
}

static void json(FILE *out, const struct report *r)
{
	const struct ps_flows_opts *o = r->o;
	json_object *j = json_object_new_object(), *a, *x;
	unsigned int i;
	char why[200];

	json_object_object_add(j, "iface", json_object_new_string(o->ifname));
	json_object_object_add(j, "interval_s",
			       o->interval_s ? ps_json_double(o->interval_s, 3) : NULL);
	json_object_object_add(j, "sample", json_object_new_int64(ps_flows_sample(r->cur)));
	json_object_object_add(j, "distinct_err", ps_json_double(PS_HLL_ERR, 3));
	json_object_object_add(j, "distinct",
			       ps_json_double(ps_flows_distinct(r->cur, r->cur->nslots), 1));
	json_object_object_add(j, "evicted", json_object_new_uint64(evicted(r)));
	if (o->flow)
		json_object_object_add(j, "flow", json_flow(r));
	a = json_object_new_array();
	for (i = 0; i < r->nq; i++)
		if (shown(r, i))
			json_object_array_add(a, json_queue(r, i));
	json_object_object_add(j, "queues", a);
	a = json_object_new_array();
	for (i = 0; i < r->nrx; i++)
		if (r->hot.hot[i])
			json_object_array_add(a, json_hot(&r->hot.v[i], i, r->o->ifname));
	json_object_object_add(j, "hot", a);
	a = json_object_new_array();
	for (i = 0; i < r->nrx; i++) {
		if (!cold(r, i))
			continue;
		cold_why(r, why, sizeof(why));
		x = json_object_new_object();
		json_object_object_add(x, "queue", json_object_new_int((int)i));
		json_object_object_add(x, "cause", json_object_new_string("table"));
		json_object_object_add(x, "why", json_object_new_string(why));
		json_object_array_add(a, x);
	}
	json_object_object_add(j, "cold", a);
	json_object_object_add(j, "rss", ps_rss_json(o->rss, r->nrx));
	ps_json_print(out, j);
	json_object_put(j);
}

/* ---- the report --------------------------------------------------------------------- */

int ps_flows_report(FILE *out, const struct ps_snapshot *cur, const struct ps_snapshot *prev,
		    const struct ps_flows_opts *o)
{
	struct report r = { .o = o, .cur = cur };
	struct ps_flows_q *qs;
	unsigned int i;
	int err;

	err = ps_flows_read(cur, prev, &qs, &r.nq);
	if (err)
		return err;
	r.qs = qs;
	r.nrx = r.nq - 1; /* the last slot: "other" queues */
	for (i = 0; i < r.nq; i++) {
		r.packets += qs[i].packets;
		r.bytes += qs[i].bytes;
	}
	err = ps_hot_report(qs, r.nrx, o->rss, &r.hot);
	if (!err) {
		if (o->flow)
			ps_flow_check(qs, r.nq, o->rss, o->flow, &r.flow);
		if (o->json)
			json(out, &r);
		else
			text(out, &r);
		fflush(out);
	}
	ps_hot_report_free(&r.hot);
	ps_flows_free(qs, r.nq);
	return err;
}
