// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Counters and classes of every hook and queue (struct ps_qstats, counted in
 * include/pathscope/count.bpf.h): packets, bytes, L3/L4 classes, parse errors, VLAN
 * tags, ECN. The hook table (a row per queue and hook) is this family's; sizes adds columns. */
#include <stddef.h>
#include <string.h>

#include "lib/names.h"
#include "lib/queues.h"
#include "stats/families/families.h"
#include "stats/format/json.h"
#include "stats/format/table.h"

/* ---- table --------------------------------------------------------------- */

static bool ps_counters_slot_active(const struct ps_snapshot *s, unsigned int q)
{
	int h;

	for (h = 0; h < PS_HOOK_COUNT; h++)
		if (s->hook[h] && s->hook[h][q].packets)
			return true;
	return false;
}

/* One hook's row of queue slot q; false (and nothing printed) when it has no
 * packets and the reader did not ask for --all. */
static bool row(FILE *out, const struct ps_report *r, int h, unsigned int q, const char *qname)
{
	const struct ps_meta *m = &r->cur->meta;
	struct ps_qstats t, w;
	char pps[16], bps[20], ce_rate[16];
	__u64 ip_w;

	ps_report_total(r, h, q, &t);
	if (!t.packets && !(r->show & PS_SHOW_ALL))
		return false;
	ps_report_window(r, h, q, &w);
	ps_fmt_si(pps, sizeof(pps), (double)w.packets / r->window_s, "");
	ps_fmt_si(bps, sizeof(bps), (double)w.bytes * 8 / r->window_s, "bit/s");
	snprintf(ce_rate, sizeof(ce_rate), "-");
	ip_w = ps_ip_packets(&w);
	if ((m->features & PS_F_ECN) && ip_w)
		snprintf(ce_rate, sizeof(ce_rate), "%.2f%%",
			 100.0 * (double)ps_ecn_count(&w, PS_ECN_CE) / (double)ip_w);

	fprintf(out, "%-6s %-10s %-3s %12llu %9s %14s", qname, ps_hook_names[h], ps_hook_dirs[h],
		(unsigned long long)t.packets, pps, bps);
	ps_sizes_table_cells(out, m, h, &t);
	if (r->show & PS_SHOW_ECN) {
		if (m->features & PS_F_ECN)
			fprintf(out, " %10llu %10llu %10llu",
				(unsigned long long)ps_ecn_count(&t, PS_ECN_NOT_ECT),
				(unsigned long long)ps_ecn_count(&t, PS_ECN_ECT0),
				(unsigned long long)ps_ecn_count(&t, PS_ECN_ECT1));
		else
			fprintf(out, " %10s %10s %10s", "-", "-", "-");
	}
	if (m->features & PS_F_ECN)
		fprintf(out, " %10llu %7s\n", (unsigned long long)ps_ecn_count(&t, PS_ECN_CE),
			ce_rate);
	else
		fprintf(out, " %10s %7s\n", "-", "-");
	return true;
}

static void ps_counters_table(FILE *out, const struct ps_report *r)
{
	const struct ps_snapshot *c = r->cur;
	const struct ps_meta *m = &c->meta;
	bool all = r->show & PS_SHOW_ALL;
	unsigned int q, idle = 0, hidden = 0;
	char qname[16];
	int h;

	fprintf(out, "%-6s %-10s %-3s %12s %9s %14s", "QUEUE", "HOOK", "DIR", "PACKETS", "PPS",
		"BITRATE");
	ps_sizes_table_header(out);
	if (r->show & PS_SHOW_ECN)
		fprintf(out, " %10s %10s %10s", "NOT_ECT", "ECT0", "ECT1");
	fprintf(out, " %10s %7s\n", "CE", "CE%");
	for (q = 0; q < c->nslots; q++) {
		bool other = q == c->nslots - 1,
		     measured = other || (q < m->nqueues &&
					  (m->all_queues || ps_queue_selected(m->queue_mask, q)));

		if (!ps_counters_slot_active(c, q)) {
			if (!measured)
				continue; /* not a queue pathscope measures: nothing to hide */
			if (!all) {
				if (other) /* its rows, not a queue, are what was left out */
					for (h = 0; h < PS_HOOK_COUNT; h++)
						hidden += c->hook[h] != NULL;
				else
					idle++;
				continue;
			}
		}
		ps_queue_label(c, q, qname, sizeof(qname));
		for (h = 0; h < PS_HOOK_COUNT; h++)
			if (c->hook[h])
				hidden += !row(out, r, h, q, qname);
	}
	for (h = 0; h < PS_HOOK_COUNT; h++)
		if (c->hook[h])
			hidden += !row(out, r, h, c->nslots, "all");
	if (idle)
		fprintf(out, "(not shown: %u measured queue%s without packets; --all shows them)\n",
			idle, idle == 1 ? "" : "s");
	if (hidden)
		fprintf(out, "(not shown: %u hook row%s without packets; --all shows them)\n",
			hidden, hidden == 1 ? "" : "s");
	if (m->features & PS_F_SIZES)
		fprintf(out, "(SZ_P50, SZ_P99: bucket midpoints, within 1/16 of the size: 1514 B "
			     "reads 1471)\n");
	if (m->features & PS_F_ECN)
		fprintf(out, "(CE%%: of IP packets at xdp; of skbs at tc, where GRO and GSO merge "
			     "packets; --ecn: NOT_ECT, ECT0, ECT1)\n");
}

/* The note under an interface's sections when queue "other" counted. */
static void ps_counters_other_note(FILE *out, const struct ps_report *r)
{
	if (ps_counters_slot_active(r->cur, r->cur->nslots - 1))
		fprintf(out,
			"(other: queue unknown, e.g. tc egress before the socket has a TX "
			"queue, or >= %u)\n",
			r->cur->meta.nqueues);
}

/* ---- JSON ---------------------------------------------------------------- */

static json_object *totals(const struct ps_qstats *s, __u32 features, int hook)
{
	json_object *o = json_object_new_object(), *ecn;
	int v;

	ps_json_add_u64(o, "packets", s->packets);
	ps_json_add_u64(o, "bytes", s->bytes);
	if (features & PS_F_CLASS) {
		json_object_object_add(o, "l3", ps_json_counts(s->l3, ps_l3_names, PS_L3_COUNT));
		json_object_object_add(o, "l4", ps_json_counts(s->l4, ps_l4_names, PS_L4_COUNT));
		json_object_object_add(o, "errors",
				       ps_json_counts(s->err, ps_err_names, PS_ERR_COUNT));
		ps_json_add_u64(o, "vlan_tagged", s->vlan_tagged);
	}
	if (features & PS_F_ECN) {
		ecn = json_object_new_object();
		for (v = 0; v < PS_IPVER_COUNT; v++)
			json_object_object_add(
			    ecn, ps_ipver_names[v],
			    ps_json_counts(s->ecn[v], ps_ecn_names, PS_ECN_COUNT));
		json_object_object_add(o, "ecn", ecn);
	}
	ps_sizes_json(o, s, features, hook);
	return o;
}

static json_object *rates(const struct ps_qstats *w, double window_s, __u32 features)
{
	json_object *o = json_object_new_object();
	__u64 ip = ps_ip_packets(w);

	json_object_object_add(o, "pps", ps_json_double((double)w->packets / window_s, 3));
	json_object_object_add(o, "bps", ps_json_double((double)w->bytes * 8 / window_s, 3));
	if (features & PS_F_ECN) {
		json_object_object_add(
		    o, "ce_pps", ps_json_double((double)ps_ecn_count(w, PS_ECN_CE) / window_s, 3));
		json_object_object_add(
		    o, "ce_ratio",
		    ip ? ps_json_double((double)ps_ecn_count(w, PS_ECN_CE) / (double)ip, 6) : NULL);
	}
	return o;
}

static json_object *ps_counters_hook_json(const struct ps_report *r, int h, unsigned int q)
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

/* Each attached hook's object in queue slot q's, under the hook's name. */
static void queue_json_into(json_object *o, const struct ps_report *r, unsigned int q)
{
	int h;

	for (h = 0; h < PS_HOOK_COUNT; h++)
		if (r->cur->hook[h])
			json_object_object_add(o, ps_hook_names[h], ps_counters_hook_json(r, h, q));
}

/* ---- Prometheus ---------------------------------------------------------- */

static void packets(struct ps_prom *p, const struct ps_lbl *l, const struct ps_qstats *st)
{
	ps_prom_sample_u(p, l, st->packets);
}

static void bytes(struct ps_prom *p, const struct ps_lbl *l, const struct ps_qstats *st)
{
	ps_prom_sample_u(p, l, st->bytes);
}

static void l3(struct ps_prom *p, const struct ps_lbl *l, const struct ps_qstats *st)
{
	int c;

	for (c = 0; c < PS_L3_COUNT; c++)
		ps_prom_sample_u1(p, l, "class", ps_l3_names[c], st->l3[c]);
}

static void l4(struct ps_prom *p, const struct ps_lbl *l, const struct ps_qstats *st)
{
	int c;

	for (c = 0; c < PS_L4_COUNT; c++)
		ps_prom_sample_u1(p, l, "class", ps_l4_names[c], st->l4[c]);
}

static void errors(struct ps_prom *p, const struct ps_lbl *l, const struct ps_qstats *st)
{
	int c;

	for (c = 0; c < PS_ERR_COUNT; c++)
		ps_prom_sample_u1(p, l, "reason", ps_err_names[c], st->err[c]);
}

static void vlan(struct ps_prom *p, const struct ps_lbl *l, const struct ps_qstats *st)
{
	ps_prom_sample_u(p, l, st->vlan_tagged);
}

static void ce(struct ps_prom *p, const struct ps_lbl *l, const struct ps_qstats *st)
{
	ps_prom_sample_u(p, l, ps_ecn_count(st, PS_ECN_CE));
}

static void ecn(struct ps_prom *p, const struct ps_lbl *l, const struct ps_qstats *st)
{
	struct ps_lbl lv;
	int v, c;

	for (v = 0; v < PS_IPVER_COUNT; v++) {
		lv = *l;
		ps_lbl_add(&lv, "ipver", ps_ipver_names[v]);
		for (c = 0; c < PS_ECN_COUNT; c++)
			ps_prom_sample_u1(p, &lv, "codepoint", ps_ecn_names[c], st->ecn[v][c]);
	}
}

static void ps_counters_prom(struct ps_prom *p, const struct ps_snapshot *s, int n)
{
	/* feature: the families exist with it (0: always); detail: per queue
	 * only when that feature is in serve's --detail / --queue-detail. */
	static const struct {
		const char *name, *help;
		__u32 feature;
		unsigned int flags;
		ps_prom_hook_fn fn;
	} fams[] = {
		{ "pathscope_packets_total",
		  "Packets per queue and hook: frames at xdp (driver ingress), skbs at tc_ingress "
		  "(after GRO) and tc_egress (before the qdisc and GSO).",
		  0, PS_PROM_PER_QUEUE, packets },
		{ "pathscope_bytes_total",
		  "Bytes of those packets, Ethernet header included (a GRO/GSO skb with its full "
		  "length).",
		  0, PS_PROM_PER_QUEUE, bytes },
		{ "pathscope_ce_packets_total",
		  "IPv4 and IPv6 packets marked CE, per queue and hook "
		  "(pathscope_ecn_packets_total "
		  "has every codepoint).",
		  PS_F_ECN, PS_PROM_PER_QUEUE, ce },
		{ "pathscope_l3_packets_total",
		  "Packets by L3 class (exactly one each; the classes sum to packets).", PS_F_CLASS,
		  0, l3 },
		{ "pathscope_l4_packets_total", "IPv4/IPv6 packets by L4 class (exactly one each).",
		  PS_F_CLASS, 0, l4 },
		{ "pathscope_parse_errors_total",
		  "Malformed packets by reason (sum to the malformed L3 and L4 classes).",
		  PS_F_CLASS, 0, errors },
		{ "pathscope_vlan_tagged_packets_total",
		  "Packets carrying at least one VLAN tag in the packet data.", PS_F_CLASS, 0,
		  vlan },
		{ "pathscope_ecn_packets_total", "IP packets by ECN codepoint and IP version.",
		  PS_F_ECN, 0, ecn },
	};
	size_t i;

	for (i = 0; i < PS_ARRAY_SIZE(fams); i++) {
		ps_prom_family(p, fams[i].name, "counter", fams[i].help);
		ps_prom_each_hook(p, s, n, fams[i].feature, fams[i].flags, fams[i].fn);
	}
}

const struct ps_family ps_family_counters = {
	.name = "counters",
	.features = PS_F_CLASS | PS_F_ECN, /* packets and bytes: always */
	.slot_active = ps_counters_slot_active,
	.table = ps_counters_table,
	.table_note = ps_counters_other_note,
	.queue_json_into = queue_json_into,
	.prom = ps_counters_prom,
};
