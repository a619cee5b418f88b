// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* JSON: one object per report interval; the schema is in README.md. */
#include <json-c/json.h>
#include <string.h>
#include <time.h>

#include "stats/format/hist.h"
#include "stats/kern_snapshot.h"
#include "nic/nic.h"
#include "nic/qdisc.h"
#include "nic/softnet.h"
#include "lib/names.h"
#include "stats/render_json.h"
#include "stats/report.h"
#include "lib/queues.h"

/* A double printed with a fixed number of decimals, not %.17g. */
static json_object *jdouble_p(double v, int decimals)
{
	char buf[64];

	snprintf(buf, sizeof(buf), "%.*f", decimals, v);
	return json_object_new_double_s(v, buf);
}

static json_object *jdouble(double v)
{
	return jdouble_p(v, 3);
}

void ps_json_add_u64(json_object *o, const char *k, __u64 v)
{
	json_object_object_add(o, k, json_object_new_uint64(v));
}

static json_object *counts(const __u64 *v, const char *const *names, int n)
{
	json_object *o = json_object_new_object();
	int i;

	for (i = 0; i < n; i++)
		ps_json_add_u64(o, names[i], v[i]);
	return o;
}

/* Non-empty buckets as [{"low": L, "high": H, "count": N}], high exclusive. */
static json_object *hist_array(const __u64 *b, unsigned int n)
{
	json_object *a = json_object_new_array();
	unsigned int i;

	for (i = 0; i < n; i++) {
		json_object *e;

		if (!b[i])
			continue;
		e = json_object_new_object();
		ps_json_add_u64(e, "low", ps_hist_bucket_low(i));
		if (i == n - 1)
			json_object_object_add(e, "high", NULL); /* clamped: no upper bound */
		else
			ps_json_add_u64(e, "high", ps_hist_bucket_high(i));
		ps_json_add_u64(e, "count", b[i]);
		json_object_array_add(a, e);
	}
	return a;
}

json_object *ps_json_dist(const __u64 *b, unsigned int n)
{
	json_object *o = json_object_new_object();
	__u64 count = ps_hist_count(b, n);

	ps_json_add_u64(o, "count", count);
	if (count) {
		ps_json_add_u64(o, "p50", ps_hist_percentile(b, n, 50));
		ps_json_add_u64(o, "p90", ps_hist_percentile(b, n, 90));
		ps_json_add_u64(o, "p99", ps_hist_percentile(b, n, 99));
		ps_json_add_u64(o, "p99_9", ps_hist_percentile(b, n, 99.9));
		ps_json_add_u64(o, "max", ps_hist_max(b, n));
	} else {
		json_object_object_add(o, "p50", NULL);
		json_object_object_add(o, "p90", NULL);
		json_object_object_add(o, "p99", NULL);
		json_object_object_add(o, "p99_9", NULL);
		json_object_object_add(o, "max", NULL);
	}
	json_object_object_add(o, "hist", hist_array(b, n));
	return o;
}

static json_object *totals(const struct ps_qstats *s, __u32 features, int hook)
{
	json_object *o = json_object_new_object(), *ecn, *gro;
	int v;

	ps_json_add_u64(o, "packets", s->packets);
	ps_json_add_u64(o, "bytes", s->bytes);
	if (features & PS_F_CLASS) {
		json_object_object_add(o, "l3", counts(s->l3, ps_l3_names, PS_L3_COUNT));
		json_object_object_add(o, "l4", counts(s->l4, ps_l4_names, PS_L4_COUNT));
		json_object_object_add(o, "errors", counts(s->err, ps_err_names, PS_ERR_COUNT));
		ps_json_add_u64(o, "vlan_tagged", s->vlan_tagged);
	}
	if (features & PS_F_ECN) {
		ecn = json_object_new_object();
		for (v = 0; v < PS_IPVER_COUNT; v++)
			json_object_object_add(ecn, ps_ipver_names[v],
					       counts(s->ecn[v], ps_ecn_names, PS_ECN_COUNT));
		json_object_object_add(o, "ecn", ecn);
	}
	if (features & PS_F_SIZES)
		json_object_object_add(o, "size", ps_json_dist(s->size_hist, PS_SIZE_BUCKETS));
	if (hook != PS_HOOK_XDP && (features & PS_F_GRO)) {
		gro = json_object_new_object();
		ps_json_add_u64(gro, "multi_segment_skbs", s->gso_packets);
		ps_json_add_u64(gro, "segments", ps_segments(s));
		json_object_object_add(gro, "avg_segments", jdouble(ps_avg_segs(s)));
		json_object_object_add(gro, "avg_gso_size", jdouble(ps_avg_gso_size(s)));
		json_object_object_add(gro, "segments_per_skb",
				       ps_json_dist(s->segs_hist, PS_SEGS_BUCKETS));
		json_object_object_add(o, "gro", gro);
	}
	return o;
}

static json_object *rates(const struct ps_qstats *w, double window_s, __u32 features)
{
	json_object *o = json_object_new_object();
	__u64 ip = ps_ip_packets(w);

	json_object_object_add(o, "pps", jdouble((double)w->packets / window_s));
	json_object_object_add(o, "bps", jdouble((double)w->bytes * 8 / window_s));
	if (features & PS_F_ECN) {
		json_object_object_add(o, "ce_pps",
				       jdouble((double)ps_ecn_count(w, PS_ECN_CE) / window_s));
		json_object_object_add(
		    o, "ce_ratio",
		    ip ? jdouble_p((double)ps_ecn_count(w, PS_ECN_CE) / (double)ip, 6) : NULL);
	}
	return o;
}

static json_object *hook_obj(const struct ps_report *r, int h, unsigned int q)
{
	json_object *o = json_object_new_object();
	__u32 f = r->cur->meta.features;
	struct ps_qstats t, w;

	ps_report_total(r, h, q, &t);
	ps_report_window(r, h, q, &w);
	json_object_object_add(o, "direction", json_object_new_string(ps_hook_dirs[h]));
	json_object_object_add(o, "total", totals(&t, f, h));
	json_object_object_add(o, "rate", rates(&w, r->window_s, f));
	return o;
}

static json_object *hooks_of(const struct ps_report *r, unsigned int q, json_object *o)
{
	int h;

	for (h = 0; h < PS_HOOK_COUNT; h++)
		if (r->cur->hook[h])
			json_object_object_add(o, ps_hook_names[h], hook_obj(r, h, q));
	if (r->cur->echo && (r->cur->meta.features & PS_F_ICMP))
		json_object_object_add(o, "icmp_echo", ps_echo_json(r, q));
	if (r->cur->txlat)
		json_object_object_add(o, "tx_latency", ps_txlat_json(r, q));
	if (r->cur->d2s && (r->cur->meta.features & PS_F_D2S))
		json_object_object_add(o, "driver_to_stack", ps_d2s_json(r, q));
	if (r->cur->kern)
		json_object_object_add(o, "kernel", ps_kernel_queue_json(r->cur, q));
	if (r->cur->nic && q < r->cur->meta.nqueues)
		json_object_object_add(o, "nic", ps_nic_queue_json(r->cur, q));
	if (r->cur->qdiscs && q < r->cur->meta.nqueues) {
		const struct ps_qdisc *qd = ps_qdisc_of_txq(r->cur->qdiscs, q);

		json_object_object_add(o, "qdisc", qd ? ps_qdisc_json(qd) : NULL);
	}
	return o;
}

static json_object *iface_obj(const struct ps_report *r)
{
	const struct ps_snapshot *c = r->cur;
	const struct ps_meta *m = &c->meta;
	json_object *o = json_object_new_object(), *queues, *qo;
	char buf[256];
	unsigned int q;
	int h;
	bool other = false;

	json_object_object_add(o, "ifname", json_object_new_string(m->ifname));
	ps_json_add_u64(o, "ifindex", m->ifindex);
	ps_json_add_u64(o, "netns", m->netns_ino);
	json_object_object_add(o, "attached_for_s",
			       jdouble((double)(c->mono_ns - m->attach_monotonic_ns) / 1e9));
	json_object_object_add(o, "xdp_mode",
			       json_object_new_string(ps_xdp_mode_name(m->xdp_mode)));
	json_object_object_add(o, "tc_mode", json_object_new_string(ps_tc_mode_name(m->tc_mode)));
	json_object_object_add(
	    o, "probe_mode",
	    json_object_new_string(!(m->features & (PS_F_TXLAT | PS_F_KERNEL)) ? "none"
				   : (m->flags & PS_META_TRACEPOINTS)	       ? "tracepoint"
									       : "tp_btf"));
	ps_features_format(m->features, buf, sizeof(buf));
	json_object_object_add(o, "features", json_object_new_string(buf));
	if (m->all_queues)
		snprintf(buf, sizeof(buf), "all");
	else
		ps_queues_format(m->queue_mask, buf, sizeof(buf));
	json_object_object_add(o, "queues_selected", json_object_new_string(buf));
	ps_json_add_u64(o, "nqueues", m->nqueues);
	json_object_object_add(o, "totals", hooks_of(r, c->nslots, json_object_new_object()));

	queues = json_object_new_array();
	for (q = 0; q < m->nqueues; q++) {
		if (!m->all_queues && !ps_queue_selected(m->queue_mask, q))
			continue;
		qo = json_object_new_object();
		json_object_object_add(qo, "queue", json_object_new_uint64(q));
		json_object_array_add(queues, hooks_of(r, q, qo));
	}
	for (h = 0; h < PS_HOOK_COUNT; h++)
		other |= c->hook[h] && c->hook[h][c->nslots - 1].packets;
	other |= c->echo && ps_echo_active(&c->echo[c->nslots - 1]);
	other |= ps_txlat_slot_active(c, c->nslots - 1);
	other |= ps_d2s_slot_active(c, c->nslots - 1);
	other |= c->kern && memcmp(&c->kern->q[c->nslots - 1], &(struct ps_kern_qstats){},
				   sizeof(struct ps_kern_qstats));
	if (other) { /* packets on queues >= nqueues (the queue count grew) */
		qo = json_object_new_object();
		json_object_object_add(qo, "queue", json_object_new_string("other"));
		json_object_array_add(queues, hooks_of(r, c->nslots - 1, qo));
	}
	json_object_object_add(o, "queues", queues);
	if (c->echo && (m->features & PS_F_ICMP))
		json_object_object_add(o, "icmp_peers", ps_echo_peers_json(c));
	if (c->kern)
		json_object_object_add(o, "kernel", ps_kernel_json(c));
	json_object_object_add(o, "nic", c->nic ? ps_nic_json(c->nic) : NULL);
	if (c->qdiscs)
		json_object_object_add(
		    o, "qdisc_root",
		    c->qdiscs->root >= 0 ? ps_qdisc_json(&c->qdiscs->q[c->qdiscs->root]) : NULL);
	json_object_object_add(o, "softnet",
			       c->softnet ? ps_softnet_json(c->softnet, c->nsoftnet) : NULL);
	return o;
}

void ps_render_json(FILE *out, const struct ps_report *r, int n)
{
	json_object *root = json_object_new_object(), *ifaces = json_object_new_array();
	char ts[40];
	struct tm tm;
	time_t secs;
	int i;

	secs = n ? (time_t)(r[0].cur->real_ns / 1000000000ULL) : time(NULL);
	gmtime_r(&secs, &tm);
	strftime(ts, sizeof(ts), "%Y-%m-%dT%H:%M:%SZ", &tm);
	json_object_object_add(root, "time", json_object_new_string(ts));
	json_object_object_add(root, "window_s", n ? jdouble(r[0].window_s) : NULL);
	for (i = 0; i < n; i++)
		json_object_array_add(ifaces, iface_obj(&r[i]));
	json_object_object_add(root, "interfaces", ifaces);
	fprintf(out, "%s\n", json_object_to_json_string_ext(root, JSON_C_TO_STRING_PLAIN));
	fflush(out);
	json_object_put(root);
}
