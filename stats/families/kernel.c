// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The kernel path view (feature kernel): per RX and TX queue, pathscope's own counts
 * next to what the kernel's tracepoints saw, the drops by reason and the NET_RX/NET_TX
 * softirq time per CPU. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "nic/qdisc.h"
#include "stats/read/drop_reasons.h"
#include "stats/families/families.h"
#include "stats/format/json.h"
#include "stats/format/table.h"
#include "stats/read/kernel_path.h"

static const char *const xdp_action_names[PS_XDP_ACTIONS] = { "aborted", "drop",     "pass",
							      "tx",	 "redirect", "other" };
static const char *const drop_dir_names[] = { "rx", "tx" };

static bool ps_kernel_on(const struct ps_snapshot *s)
{
	return s->kern;
}

static bool ps_kernel_slot_active(const struct ps_snapshot *s, unsigned int q)
{
	static const struct ps_kern_qstats zero;

	return s->kern && memcmp(&s->kern->q[q], &zero, sizeof(zero));
}

/* The queue a per-queue slot stands for in the NAPI and drop lists: slot
 * nslots is every queue, the last slot ("other") the unknown queue. */
static __u32 slot_queue(const struct ps_snapshot *c, unsigned int q)
{
	return q == c->nslots ? PS_ANY_QUEUE : q == c->nslots - 1 ? PS_QUEUE_UNKNOWN : q;
}

/* The kernel counts of the report's window (cur - prev, or since attach). */
static int kern_window(const struct ps_report *r, struct ps_kern_snapshot *w)
{
	static const struct ps_kern_snapshot empty;

	return ps_kern_window(r->cur->kern, r->prev && r->prev->kern ? r->prev->kern : &empty, w);
}

static void rx_row(FILE *out, const struct ps_report *r, const struct ps_kern_snapshot *k,
		   unsigned int q, const char *label)
{
	const struct ps_snapshot *c = r->cur;
	struct ps_qstats xdp = {}, tci = {};
	struct ps_kern_qstats kq;
	struct ps_napi_stats ns;
	char x[24], t[24], polls[24], wpp[16], ex[16];
	unsigned int nnapi;

	if (c->hook[PS_HOOK_XDP])
		ps_report_window(r, PS_HOOK_XDP, q, &xdp);
	if (c->hook[PS_HOOK_TC_INGRESS])
		ps_report_window(r, PS_HOOK_TC_INGRESS, q, &tci);
	ps_per_queue_total(k->q, sizeof(kq), k->nslots, q, &kq);
	nnapi = ps_kern_napi_sum(k, slot_queue(c, q), &ns);
	ps_fmt_u64(x, sizeof(x), xdp.packets, c->hook[PS_HOOK_XDP]);
	ps_fmt_u64(t, sizeof(t), ps_segments(&tci), c->hook[PS_HOOK_TC_INGRESS]);
	ps_fmt_u64(polls, sizeof(polls), ns.polls, nnapi);
	snprintf(wpp, sizeof(wpp), "-");
	snprintf(ex, sizeof(ex), "-");
	if (nnapi && ns.polls) {
		snprintf(wpp, sizeof(wpp), "%.1f", (double)ns.work / (double)ns.polls);
		snprintf(ex, sizeof(ex), "%.1f%%", 100.0 * (double)ns.exhausted / (double)ns.polls);
	}
	fprintf(out, "%-6s %12s %12llu %12llu %12llu %12s %10s %9s %9s %10llu\n", label, x,
		(unsigned long long)kq.gro_frames, (unsigned long long)kq.stack_segs,
		(unsigned long long)kq.stack_skbs, t, polls, wpp, ex,
		(unsigned long long)ps_kern_drops_sum(k, PS_DROP_RX, slot_queue(c, q)));
}

static void tx_row(FILE *out, const struct ps_report *r, const struct ps_kern_snapshot *k,
		   unsigned int q, const char *label)
{
	const struct ps_snapshot *c = r->cur;
	const struct ps_qdisc *qd = q < c->meta.nqueues ? ps_qdisc_of_txq(c->qdiscs, q) : NULL;
	struct ps_qstats tce = {};

	if (q == c->nslots && c->qdiscs && c->qdiscs->root >= 0)
		qd = &c->qdiscs->q[c->qdiscs->root]; /* all queues: the root */
	struct ps_kern_qstats kq;
	char t[24], s[24], kind[16] = "-", backlog[24] = "-", drops[24] = "-";

	if (c->hook[PS_HOOK_TC_EGRESS])
		ps_report_window(r, PS_HOOK_TC_EGRESS, q, &tce);
	ps_per_queue_total(k->q, sizeof(kq), k->nslots, q, &kq);
	ps_fmt_u64(t, sizeof(t), tce.packets, c->hook[PS_HOOK_TC_EGRESS]);
	ps_fmt_u64(s, sizeof(s), ps_segments(&tce), c->hook[PS_HOOK_TC_EGRESS]);
	if (qd) {
		snprintf(kind, sizeof(kind), "%s", qd->kind);
		ps_fmt_u64(backlog, sizeof(backlog), qd->backlog, qd->has_stats);
		ps_fmt_u64(drops, sizeof(drops), qd->drops, qd->has_stats);
	}
	fprintf(out, "%-6s %12s %12s %12llu %10llu %10llu  %-8s %10s %10s\n", label, t, s,
		(unsigned long long)kq.xmit_ok, (unsigned long long)kq.xmit_busy,
		(unsigned long long)kq.xmit_dropped, kind, backlog, drops);
}

static bool rx_active(const struct ps_snapshot *c, const struct ps_kern_snapshot *k, unsigned int q)
{
	struct ps_napi_stats ns;

	return k->q[q].gro_frames || k->q[q].stack_skbs ||
	       ps_kern_drops_sum(k, PS_DROP_RX, slot_queue(c, q)) ||
	       ps_kern_napi_sum(k, slot_queue(c, q), &ns);
}

static void ps_kernel_table(FILE *out, const struct ps_report *r)
{
	const struct ps_snapshot *c = r->cur;
	struct ps_kern_snapshot k;
	char label[16], name[64];
	unsigned int q, i;
	bool any;

	if (!c->kern || kern_window(r, &k))
		return;
	fprintf(out, "Kernel path, RX queues (tracepoints; counts over the window)\n");
	fprintf(out, "%-6s %12s %12s %12s %12s %12s %10s %9s %9s %10s\n", "QUEUE", "XDP_PKTS",
		"GRO_IN", "STACK_PKTS", "STACK_SKBS", "TC_IN_PKTS", "NAPI_POLLS", "WORK/POLL",
		"EXHAUST", "DROPS");
	for (q = 0; q < c->nslots; q++) {
		if (!rx_active(c, &k, q))
			continue;
		ps_queue_label(c, q, label, sizeof(label));
		rx_row(out, r, &k, q, label);
	}
	rx_row(out, r, &k, c->nslots, "all");

	fprintf(out, "Kernel path, TX queues (qdisc: backlog now, drops since it was created)\n");
	fprintf(out, "%-6s %12s %12s %12s %10s %10s  %-8s %10s %10s\n", "QUEUE", "TC_OUT_SKBS",
		"TC_OUT_PKTS", "XMIT_OK", "BUSY", "XMIT_DROP", "QDISC", "Q_BACKLOG", "Q_DROPS");
	for (q = 0; q < c->nslots; q++) {
		const struct ps_qdisc *qd =
		    q < c->meta.nqueues ? ps_qdisc_of_txq(c->qdiscs, q) : NULL;

		if (!k.q[q].xmit_ok && !k.q[q].xmit_busy && !k.q[q].xmit_dropped &&
		    !(qd && qd->txq >= 0 && (qd->packets || qd->drops)))
			continue;
		ps_queue_label(c, q, label, sizeof(label));
		tx_row(out, r, &k, q, label);
	}
	tx_row(out, r, &k, c->nslots, "all");

	any = false;
	for (i = 0; i < k.ndrops; i++) {
		if (!k.drops[i].count)
			continue;
		if (!any)
			fprintf(out, "Drops (skb:kfree_skb)\n%-4s %-6s %-32s %10s\n", "DIR",
				"QUEUE", "REASON", "COUNT");
		any = true;
		if (k.drops[i].key.queue == PS_QUEUE_UNKNOWN)
			snprintf(label, sizeof(label), "-");
		else
			snprintf(label, sizeof(label), "%u", k.drops[i].key.queue);
		fprintf(out, "%-4s %-6s %-32s %10llu\n", drop_dir_names[k.drops[i].key.dir & 1],
			label, ps_drop_reason_name(k.drops[i].key.reason, name, sizeof(name)),
			(unsigned long long)k.drops[i].count);
	}
	if (!any)
		fprintf(out, "Drops (skb:kfree_skb): none\n");
	for (i = 0; i < PS_XDP_ACTIONS; i++)
		if (k.xdp_exc[i])
			fprintf(out, "xdp_exception %s: %llu\n", xdp_action_names[i],
				(unsigned long long)k.xdp_exc[i]);

	ps_kern_free(&k);
}

/* Per queue slot q (q == nslots: all), cumulative. */
static json_object *ps_kernel_queue_json(const struct ps_report *r, unsigned int q)
{
	const struct ps_snapshot *c = r->cur;
	const struct ps_kern_snapshot *k = c->kern;
	json_object *o = json_object_new_object(), *rx, *tx, *napi;
	__u32 dq = slot_queue(c, q);
	struct ps_kern_qstats kq;
	struct ps_napi_stats ns;
	unsigned int n;

	ps_per_queue_total(k->q, sizeof(kq), k->nslots, q, &kq);
	rx = json_object_new_object();
	ps_json_add_u64(rx, "gro_frames", kq.gro_frames);
	ps_json_add_u64(rx, "stack_skbs", kq.stack_skbs);
	ps_json_add_u64(rx, "stack_packets", kq.stack_segs);
	ps_json_add_u64(rx, "drops", ps_kern_drops_sum(k, PS_DROP_RX, dq));
	n = ps_kern_napi_sum(k, dq, &ns);
	napi = NULL;
	if (n) {
		napi = json_object_new_object();
		ps_json_add_u64(napi, "instances", n);
		ps_json_add_u64(napi, "polls", ns.polls);
		ps_json_add_u64(napi, "work", ns.work);
		ps_json_add_u64(napi, "budget_exhausted", ns.exhausted);
		ps_json_add_u64(napi, "idle_polls", ns.idle);
		ps_json_add_u64(napi, "budget", ns.budget);
	}
	json_object_object_add(rx, "napi", napi);
	json_object_object_add(o, "rx", rx);
	tx = json_object_new_object();
	ps_json_add_u64(tx, "xmit_ok", kq.xmit_ok);
	ps_json_add_u64(tx, "xmit_busy", kq.xmit_busy);
	ps_json_add_u64(tx, "xmit_dropped", kq.xmit_dropped);
	ps_json_add_u64(tx, "xmit_bytes", kq.xmit_bytes);
	json_object_object_add(o, "tx", tx);
	return o;
}

/* The interface-wide part: NAPI instances, drops, XDP exceptions, softirq. */
static json_object *ps_kernel_json(const struct ps_snapshot *c)
{
	const struct ps_kern_snapshot *k = c->kern;
	json_object *o = json_object_new_object(), *a, *e;
	char name[64];
	unsigned int i;

	a = json_object_new_array();
	for (i = 0; i < k->nnapi; i++) {
		e = json_object_new_object();
		ps_json_add_u64(e, "napi_id", k->napi[i].id);
		json_object_object_add(e, "queue",
				       k->napi[i].queue == PS_QUEUE_UNKNOWN
					   ? NULL
					   : json_object_new_uint64(k->napi[i].queue));
		ps_json_add_u64(e, "polls", k->napi[i].s.polls);
		ps_json_add_u64(e, "work", k->napi[i].s.work);
		ps_json_add_u64(e, "budget_exhausted", k->napi[i].s.exhausted);
		ps_json_add_u64(e, "idle_polls", k->napi[i].s.idle);
		ps_json_add_u64(e, "budget", k->napi[i].s.budget);
		json_object_array_add(a, e);
	}
	json_object_object_add(o, "napi", a);
	a = json_object_new_array();
	for (i = 0; i < k->ndrops; i++) {
		e = json_object_new_object();
		json_object_object_add(
		    e, "direction",
		    json_object_new_string(drop_dir_names[k->drops[i].key.dir & 1]));
		json_object_object_add(e, "queue",
				       k->drops[i].key.queue == PS_QUEUE_UNKNOWN
					   ? NULL
					   : json_object_new_uint64(k->drops[i].key.queue));
		json_object_object_add(e, "reason",
				       json_object_new_string(ps_drop_reason_name(
					   k->drops[i].key.reason, name, sizeof(name))));
		ps_json_add_u64(e, "reason_id", k->drops[i].key.reason);
		ps_json_add_u64(e, "count", k->drops[i].count);
		json_object_array_add(a, e);
	}
	json_object_object_add(o, "drops", a);
	e = json_object_new_object();
	for (i = 0; i < PS_XDP_ACTIONS; i++)
		ps_json_add_u64(e, xdp_action_names[i], k->xdp_exc[i]);
	json_object_object_add(o, "xdp_exceptions", e);
	a = json_object_new_array();
	for (i = 0; i < k->ncpus; i++) {
		const struct ps_softirq_cpu *s = &k->softirq[i];

		e = json_object_new_object();
		ps_json_add_u64(e, "cpu", i);
		ps_json_add_u64(e, "net_rx_count", s->count[PS_SIRQ_NET_RX]);
		ps_json_add_u64(e, "net_rx_ns", s->time_ns[PS_SIRQ_NET_RX]);
		ps_json_add_u64(e, "net_rx_timed", s->timed[PS_SIRQ_NET_RX]);
		ps_json_add_u64(e, "net_tx_count", s->count[PS_SIRQ_NET_TX]);
		ps_json_add_u64(e, "net_tx_ns", s->time_ns[PS_SIRQ_NET_TX]);
		ps_json_add_u64(e, "net_tx_timed", s->timed[PS_SIRQ_NET_TX]);
		json_object_array_add(a, e);
	}
	json_object_object_add(o, "softirq", a);
	return o;
}

/* ---- Prometheus ---------------------------------------------------------- */

static const void *kern_base(const struct ps_snapshot *s)
{
	return s->kern->q;
}

/* The tracepoint probes see every queue: no --queues filter. */
static const struct ps_prom_slots kern_slots = { ps_kernel_on, kern_base,
						 sizeof(struct ps_kern_qstats), false,
						 PS_F_KERNEL };

static void xmit(struct ps_prom *p, const struct ps_lbl *l, const struct ps_snapshot *s,
		 unsigned int q)
{
	struct ps_kern_qstats kq;

	ps_per_queue_total(s->kern->q, sizeof(kq), s->nslots, q, &kq);
	ps_prom_sample_u1(p, l, "result", "ok", kq.xmit_ok);
	ps_prom_sample_u1(p, l, "result", "busy", kq.xmit_busy);
	ps_prom_sample_u1(p, l, "result", "dropped", kq.xmit_dropped);
}

/* NAPI figures of the instances serving queue q; only queues that have one. */
static void napi(struct ps_prom *p, const struct ps_lbl *l, const struct ps_snapshot *s,
		 unsigned int q, size_t off)
{
	struct ps_napi_stats ns;

	if (ps_kern_napi_sum(s->kern, slot_queue(s, q), &ns))
		ps_prom_sample_u(p, l, *(const __u64 *)((const char *)&ns + off));
}

static void napi_polls(struct ps_prom *p, const struct ps_lbl *l, const struct ps_snapshot *s,
		       unsigned int q)
{
	napi(p, l, s, q, offsetof(struct ps_napi_stats, polls));
}

static void napi_work(struct ps_prom *p, const struct ps_lbl *l, const struct ps_snapshot *s,
		      unsigned int q)
{
	napi(p, l, s, q, offsetof(struct ps_napi_stats, work));
}

static void napi_exhausted(struct ps_prom *p, const struct ps_lbl *l, const struct ps_snapshot *s,
			   unsigned int q)
{
	napi(p, l, s, q, offsetof(struct ps_napi_stats, exhausted));
}

static void napi_idle(struct ps_prom *p, const struct ps_lbl *l, const struct ps_snapshot *s,
		      unsigned int q)
{
	napi(p, l, s, q, offsetof(struct ps_napi_stats, idle));
}

/* The interface-wide lists: drops by reason, XDP exceptions, softirq per CPU. */
static void lists_prom(struct ps_prom *p, const struct ps_snapshot *snaps, int n)
{
	static const char *const vec[PS_SIRQ_COUNT] = { "net_tx", "net_rx" };
	char name[64];
	struct ps_lbl l;
	unsigned int j;
	int i, a, pass;

	ps_prom_family(p, "pathscope_kernel_drops_total", "counter",
		       "skb:kfree_skb drops on the interface by the kernel's drop reason; "
		       "queue=\"other\" when unknown (always for tx).");
	for (i = 0; i < n; i++) {
		const struct ps_kern_snapshot *k = snaps[i].kern;

		for (j = 0; k && j < k->ndrops; j++) {
			ps_lbl_iface(&l, &snaps[i]);
			ps_lbl_add(&l, "direction", drop_dir_names[k->drops[j].key.dir & 1]);
			if (k->drops[j].key.queue == PS_QUEUE_UNKNOWN)
				ps_lbl_add(&l, "queue", "other");
			else
				ps_lbl_addu(&l, "queue", k->drops[j].key.queue);
			ps_lbl_add(&l, "reason",
				   ps_drop_reason_name(k->drops[j].key.reason, name, sizeof(name)));
			ps_prom_sample_u(p, &l, k->drops[j].count);
		}
	}
	ps_prom_family(p, "pathscope_kernel_xdp_exceptions_total", "counter",
		       "xdp:xdp_exception events on the interface, per action.");
	for (i = 0; i < n; i++) {
		if (!snaps[i].kern)
			continue;
		ps_lbl_iface(&l, &snaps[i]);
		for (a = 0; a < PS_XDP_ACTIONS; a++)
			ps_prom_sample_u1(p, &l, "action", xdp_action_names[a],
					  snaps[i].kern->xdp_exc[a]);
	}
	_Static_assert(PS_SIRQ_EVERY == 8, "the HELP text below says 1 run in 8");
	/* pass 0: time, pass 1: runs */
	for (pass = 0; pass < 2; pass++) {
		if (pass == 0)
			ps_prom_family(p, "pathscope_softirq_seconds_total", "counter",
				       "NET_RX/NET_TX softirq time per CPU (all devices of the "
				       "CPU), estimated from 1 run in 8.");
		else
			ps_prom_family(p, "pathscope_softirq_runs_total", "counter",
				       "NET_RX/NET_TX softirq runs per CPU (all devices of the "
				       "CPU).");
		for (i = 0; i < n; i++) {
			const struct ps_kern_snapshot *k = snaps[i].kern;

			for (j = 0; k && j < k->ncpus; j++)
				for (a = 0; a < PS_SIRQ_COUNT; a++) {
					ps_lbl_iface(&l, &snaps[i]);
					ps_lbl_addu(&l, "cpu", j);
					ps_lbl_add(&l, "vector", vec[a]);
					if (pass == 0)
						ps_prom_sample_seconds(p, &l,
								       k->softirq[j].time_ns[a]);
					else
						ps_prom_sample_u(p, &l, k->softirq[j].count[a]);
				}
		}
	}
}

static void ps_kernel_prom(struct ps_prom *p, const struct ps_snapshot *s, int n)
{
	static const struct ps_prom_counter rx[] = {
		{ "pathscope_kernel_gro_frames_total",
		  "Frames the driver handed to GRO (net:napi_gro_receive_entry), per RX queue.",
		  offsetof(struct ps_kern_qstats, gro_frames), false },
		{ "pathscope_kernel_stack_skbs_total",
		  "skbs entering the stack (net:netif_receive_skb), per RX queue.",
		  offsetof(struct ps_kern_qstats, stack_skbs), false },
		{ "pathscope_kernel_stack_packets_total",
		  "Packets in those skbs (GRO segments counted), per RX queue.",
		  offsetof(struct ps_kern_qstats, stack_segs), false },
	};
	static const struct ps_prom_counter xmit_bytes = {
		"pathscope_kernel_xmit_bytes_total",
		"Bytes of the skbs sent with NETDEV_TX_OK, per TX queue.",
		offsetof(struct ps_kern_qstats, xmit_bytes), false
	};
	static const struct {
		const char *name, *help;
		ps_prom_slot_fn fn;
	} napis[] = {
		{ "pathscope_napi_polls_total",
		  "NAPI polls (napi:napi_poll) of the instances serving each RX queue.",
		  napi_polls },
		{ "pathscope_napi_work_total", "Packets processed by those polls.", napi_work },
		{ "pathscope_napi_budget_exhausted_total",
		  "Polls that used their whole budget (the queue had more waiting).",
		  napi_exhausted },
		{ "pathscope_napi_idle_polls_total", "Polls that found nothing.", napi_idle },
	};
	size_t i;

	ps_prom_slot_counters(p, s, n, &kern_slots, rx, PS_ARRAY_SIZE(rx));
	ps_prom_family(p, "pathscope_kernel_xmit_total", "counter",
		       "Driver transmit return codes (net:net_dev_xmit) per TX queue: ok "
		       "(NETDEV_TX_OK), busy (NETDEV_TX_BUSY), dropped (anything else).");
	ps_prom_each_slot(p, s, n, &kern_slots, 0, xmit);
	ps_prom_slot_counters(p, s, n, &kern_slots, &xmit_bytes, 1);
	for (i = 0; i < PS_ARRAY_SIZE(napis); i++) {
		ps_prom_family(p, napis[i].name, "counter", napis[i].help);
		ps_prom_each_slot(p, s, n, &kern_slots, 0, napis[i].fn);
	}
	lists_prom(p, s, n);
}

/* ---- the family ---------------------------------------------------------- */

static void iface_json(json_object *o, const struct ps_snapshot *s)
{
	json_object_object_add(o, "kernel", ps_kernel_json(s));
}

const struct ps_family ps_family_kernel = {
	.name = "kernel",
	.features = PS_F_KERNEL,
	.on = ps_kernel_on,
	.slot_active = ps_kernel_slot_active,
	.table = ps_kernel_table,
	.json_key = "kernel",
	.queue_json = ps_kernel_queue_json,
	.iface_json = iface_json,
	.prom = ps_kernel_prom,
};
