// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* NIC facts (netlink) and per-CPU counters in the stats view: a short NIC summary, the
 * driver's own per-queue counters next to pathscope's queues, and one row per CPU
 * joining the softirq probes with softnet_stat. */
#include <string.h>

#include "nic/read.h"
#include "nic/qdisc.h"
#include "nic/softnet.h"
#include "stats/format/nic_json.h"
#include "stats/families/families.h"
#include "stats/format/json.h"
#include "stats/format/table.h"
#include "stats/read/kernel_path.h"

static const char *state_name(enum ps_nic_onoff s)
{
	return s == PS_NIC_ON ? "on" : s == PS_NIC_OFF ? "off" : "n/a";
}

static void fmt_na(char *buf, size_t len, uint64_t v)
{
	if (v == PS_NA)
		snprintf(buf, len, "n/a");
	else
		snprintf(buf, len, "%llu", (unsigned long long)v);
}

/* Set when a queue's count has a source; sources of one table row. */
/* " (1.06%)", dropped of all offered, after a non-zero drop count, so that a share
 * that matters is not left for the reader to work out. */
static void drop_share(char *buf, size_t len, uint64_t dropped, uint64_t passed)
{
	if (!dropped)
		buf[0] = '\0';
	else
		snprintf(buf, len, " (%.2f%%)",
			 100.0 * (double)dropped / (double)(dropped + passed));
}

static unsigned int src_bit(const struct ps_nic_count *c)
{
	return c->src == PS_NIC_SRC_NONE ? 0 : 1u << c->src;
}

/* A driver count: cumulative (p NULL), or over the window since p when p
 * has it from the same source ("reset" when it went back). */
static void fmt_drv(char *buf, size_t len, const struct ps_nic_count *c,
		    const struct ps_nic_count *p)
{
	if (c->v == PS_NA || (p && (p->src != c->src || p->v == PS_NA)))
		snprintf(buf, len, "n/a");
	else if (p && c->v < p->v)
		snprintf(buf, len, "reset");
	else
		snprintf(buf, len, "%llu", (unsigned long long)(c->v - (p ? p->v : 0)));
}

/* pathscope's packets of hook at queue q, as the driver's counts are shown:
 * over the window, or since attach; "-" where the hook did not count q. */
static void fmt_ps(char *buf, size_t len, const struct ps_report *r, bool window, int hook,
		   unsigned int q)
{
	struct ps_qstats st;

	if (!r->cur->hook[hook] || !ps_prom_slot_measured(r->cur, q)) {
		snprintf(buf, len, "-");
		return;
	}
	if (window)
		ps_report_window(r, hook, q, &st);
	else
		ps_report_total(r, hook, q, &st);
	snprintf(buf, len, "%llu", (unsigned long long)st.packets);
}

/* The driver's per-queue counts beside pathscope's XDP and tc egress
 * packets of the same queue: over the window when the previous snapshot has
 * the driver's counts too, else each since it started counting. */
static void nic_queue_table(FILE *out, const struct ps_report *r)
{
	const struct ps_snapshot *c = r->cur;
	const struct ps_nic_facts *f = c->nic, *pf = r->prev ? r->prev->nic : NULL;
	const char *const srcs[] = { "-", "qstats", "ethtool", "qstats+ethtool" };
	unsigned int i;

	if (!f->queues.qstats_valid && !f->estats.valid) {
		fprintf(out, "     driver per-queue counters: n/a\n");
		fprintf(out, "       qstats: %s\n",
			f->queues.qstats_why[0] ? f->queues.qstats_why : "not reported");
		fprintf(out, "       ethtool -S: %s\n",
			f->estats.why[0] ? f->estats.why : "not reported");
		return;
	}
	if (pf)
		fprintf(out,
			"     the driver's per-queue counts and pathscope's, over the window:\n");
	else
		fprintf(out, "     the driver's per-queue counts since it started counting, "
			     "pathscope's since attach:\n");
	fprintf(out, "     %-5s %6s %11s %11s %11s %11s %11s  %s\n", "QUEUE", "NAPI", "DRV_RX_PKTS",
		"DRV_RX_XDP", "PS_XDP_PKTS", "DRV_TX_PKTS", "PS_TC_OUT", "SRC");
	for (i = 0; i < c->meta.nqueues; i++) {
		const struct ps_nic_queue *nrx = ps_nic_find_queue(f, PS_NIC_Q_RX, i);
		struct ps_nic_driver_queue rx, tx, prx, ptx;
		char n[16], rp[24], rx_xdp[24], px[24], tp[24], pt[24];
		unsigned int src;

		ps_nic_driver_queue(f, PS_NIC_Q_RX, i, &rx);
		ps_nic_driver_queue(f, PS_NIC_Q_TX, i, &tx);
		if (!nrx && !ps_nic_find_queue(f, PS_NIC_Q_TX, i) &&
		    rx.packets.src == PS_NIC_SRC_NONE && rx.xdp_packets.src == PS_NIC_SRC_NONE &&
		    tx.packets.src == PS_NIC_SRC_NONE)
			continue;
		if (pf) {
			ps_nic_driver_queue(pf, PS_NIC_Q_RX, i, &prx);
			ps_nic_driver_queue(pf, PS_NIC_Q_TX, i, &ptx);
		}
		snprintf(n, sizeof(n), nrx && nrx->napi_id ? "%u" : "n/a", nrx ? nrx->napi_id : 0);
		fmt_drv(rp, sizeof(rp), &rx.packets, pf ? &prx.packets : NULL);
		fmt_drv(rx_xdp, sizeof(rx_xdp), &rx.xdp_packets, pf ? &prx.xdp_packets : NULL);
		fmt_drv(tp, sizeof(tp), &tx.packets, pf ? &ptx.packets : NULL);
		fmt_ps(px, sizeof(px), r, pf, PS_HOOK_XDP, i);
		fmt_ps(pt, sizeof(pt), r, pf, PS_HOOK_TC_EGRESS, i);
		src = (src_bit(&rx.packets) | src_bit(&rx.xdp_packets) | src_bit(&tx.packets)) >> 1;
		fprintf(out, "     %-5u %6s %11s %11s %11s %11s %11s  %s\n", i, n, rp, rx_xdp, px,
			tp, pt, srcs[src & 3]);
	}
}

static void ps_nic_table(FILE *out, const struct ps_report *r)
{
	const struct ps_snapshot *c = r->cur;
	const struct ps_nic_facts *f = c->nic;
	char a[24], b[24], d[24];
	unsigned int i;

	if (!f)
		return;
	fprintf(out, "NIC: ");
	if (f->channels.valid) {
		fmt_na(a, sizeof(a), f->channels.rx);
		fmt_na(b, sizeof(b), f->channels.tx);
		fmt_na(d, sizeof(d), f->channels.combined);
		fprintf(out, "channels rx %s tx %s combined %s", a, b, d);
	} else {
		fprintf(out, "channels n/a (%s)", f->channels.why);
	}
	if (f->rings.valid) {
		fmt_na(a, sizeof(a), f->rings.rx);
		fmt_na(b, sizeof(b), f->rings.tx);
		fprintf(out, "; rings rx %s tx %s", a, b);
	} else {
		fprintf(out, "; rings n/a (%s)", f->rings.why);
	}
	if (f->features.valid) {
		fprintf(out, "\n     offloads");
		for (i = 0; i < PS_NIC_F_COUNT; i++)
			fprintf(out, " %s %s", ps_nic_feature_names[i],
				state_name(f->features.f[i].state));
	}
	fprintf(out, "\n");
	if (f->link.valid) {
		char rxd[16], txd[16];

		drop_share(rxd, sizeof(rxd), f->link.v[PS_LINK_RX_DROPPED],
			   f->link.v[PS_LINK_RX_PACKETS]);
		drop_share(txd, sizeof(txd), f->link.v[PS_LINK_TX_DROPPED],
			   f->link.v[PS_LINK_TX_PACKETS]);
		fprintf(
		    out,
		    "     link counters (the device's, since it was created or its driver reset "
		    "them):\n       rx %llu packets, %llu dropped%s, %llu missed, %llu fifo, "
		    "%llu errors\n       tx %llu packets, %llu dropped%s, %llu errors\n",
		    (unsigned long long)f->link.v[PS_LINK_RX_PACKETS],
		    (unsigned long long)f->link.v[PS_LINK_RX_DROPPED], rxd,
		    (unsigned long long)f->link.v[PS_LINK_RX_MISSED_ERRORS],
		    (unsigned long long)f->link.v[PS_LINK_RX_FIFO_ERRORS],
		    (unsigned long long)f->link.v[PS_LINK_RX_ERRORS],
		    (unsigned long long)f->link.v[PS_LINK_TX_PACKETS],
		    (unsigned long long)f->link.v[PS_LINK_TX_DROPPED], txd,
		    (unsigned long long)f->link.v[PS_LINK_TX_ERRORS]);
	}
	if (c->qdiscs && c->qdiscs->root >= 0) {
		const struct ps_qdisc *root = &c->qdiscs->q[c->qdiscs->root];
		const char *sep = ";";

		fprintf(out, "     qdisc root %s", root->kind);
		for (i = 0; i < c->qdiscs->n; i++) {
			if (c->qdiscs->q[i].txq < 0)
				continue;
			fprintf(out, "%s tx-%d %s", sep, c->qdiscs->q[i].txq, c->qdiscs->q[i].kind);
			sep = ",";
		}
		fprintf(out, "\n");
	}
	nic_queue_table(out, r);
}

static void ps_nic_cpu_table(FILE *out, const struct ps_report *r)
{
	const struct ps_snapshot *c = r->cur, *p = r->prev;
	struct ps_kern_snapshot w = {};
	unsigned int ncpus, i;
	int j;

	if (c->kern) {
		static const struct ps_kern_snapshot empty;

		if (ps_kern_window(c->kern, p && p->kern ? p->kern : &empty, &w))
			return;
	}
	ncpus = c->kern ? w.ncpus : 0;
	for (j = 0; j < c->nsoftnet; j++)
		if (c->softnet[j].cpu + 1 > ncpus)
			ncpus = c->softnet[j].cpu + 1;
	if (!ncpus)
		return;
	fprintf(out, "Per CPU (all devices): softirq over the window; softnet since boot\n");
	fprintf(out, "%-4s %10s %12s %10s %12s %12s %10s %10s\n", "CPU", "NET_RX_N", "NET_RX_TIME",
		"NET_TX_N", "NET_TX_TIME", "PROCESSED", "DROPPED", "SQUEEZED");
	for (i = 0; i < ncpus; i++) {
		char rxn[24] = "-", rxt[16] = "-", txn[24] = "-", txt[16] = "-";
		char pr[24] = "-", dr[24] = "-", sq[24] = "-";
		const struct ps_softnet_cpu *sn = NULL;

		for (j = 0; j < c->nsoftnet; j++)
			if (c->softnet[j].cpu == i)
				sn = &c->softnet[j];
		if (c->kern && i < w.ncpus) {
			const struct ps_softirq_cpu *s = &w.softirq[i];

			snprintf(rxn, sizeof(rxn), "%llu",
				 (unsigned long long)s->count[PS_SIRQ_NET_RX]);
			snprintf(txn, sizeof(txn), "%llu",
				 (unsigned long long)s->count[PS_SIRQ_NET_TX]);
			ps_fmt_ns(rxt, sizeof(rxt), s->time_ns[PS_SIRQ_NET_RX],
				  s->count[PS_SIRQ_NET_RX]);
			ps_fmt_ns(txt, sizeof(txt), s->time_ns[PS_SIRQ_NET_TX],
				  s->count[PS_SIRQ_NET_TX]);
		}
		if (sn) {
			fmt_na(pr, sizeof(pr), sn->processed);
			fmt_na(dr, sizeof(dr), sn->dropped);
			fmt_na(sq, sizeof(sq), sn->time_squeeze);
		}
		fprintf(out, "%-4u %10s %12s %10s %12s %12s %10s %10s\n", i, rxn, rxt, txn, txt, pr,
			dr, sq);
	}
	if (c->kern)
		ps_kern_free(&w);
}

/* Queue q's counters of ethtool -S, rx_* and tx_* (null: n/a), or null
 * when the driver has none of this queue. */
static json_object *ethtool_queue_json(const struct ps_nic_facts *f, unsigned int q)
{
	const struct ps_nic_equeue *rx = ps_nic_find_equeue(f, PS_NIC_Q_RX, q),
				   *tx = ps_nic_find_equeue(f, PS_NIC_Q_TX, q);
	static const struct {
		const char *key;
		enum ps_nic_qtype t;
		int k;
	} keys[] = {
		{ "rx_packets", PS_NIC_Q_RX, PS_NIC_ES_PACKETS },
		{ "rx_bytes", PS_NIC_Q_RX, PS_NIC_ES_BYTES },
		{ "rx_xdp_packets", PS_NIC_Q_RX, PS_NIC_ES_XDP_PACKETS },
		{ "rx_drops", PS_NIC_Q_RX, PS_NIC_ES_DROPS },
		{ "tx_packets", PS_NIC_Q_TX, PS_NIC_ES_PACKETS },
		{ "tx_bytes", PS_NIC_Q_TX, PS_NIC_ES_BYTES },
	};
	json_object *o;
	size_t i;

	if (!rx && !tx)
		return NULL;
	o = json_object_new_object();
	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		const struct ps_nic_equeue *e = keys[i].t == PS_NIC_Q_RX ? rx : tx;
		uint64_t v = e ? e->v[keys[i].k] : PS_NA;

		json_object_object_add(o, keys[i].key,
				       v == PS_NA ? NULL : json_object_new_uint64(v));
	}
	return o;
}

/* The driver's view of queue q: its NAPI id and per-queue counters (netdev
 * qstats under "rx" and "tx", ethtool -S under "ethtool"), or null. */
static json_object *driver_queue_json(const struct ps_snapshot *c, unsigned int q)
{
	const struct ps_nic_queue *nq;
	json_object *o, *one;
	int t, k;

	if (!c->nic || q >= c->meta.nqueues)
		return NULL;
	o = json_object_new_object();
	for (t = PS_NIC_Q_RX; t <= PS_NIC_Q_TX; t++) {
		nq = ps_nic_find_queue(c->nic, t, q);
		one = NULL;
		if (nq) {
			one = json_object_new_object();
			json_object_object_add(one, "napi_id",
					       nq->napi_id ? json_object_new_uint64(nq->napi_id)
							   : NULL);
			for (k = 0; k < PS_NIC_QSTATS_COUNT; k++)
				if (nq->has_qstats && nq->qstats[k] != PS_NA)
					ps_json_add_u64(one, ps_nic_qstats_names[k], nq->qstats[k]);
			if (!nq->has_qstats)
				json_object_object_add(one, "qstats", NULL);
		}
		json_object_object_add(o, t == PS_NIC_Q_RX ? "rx" : "tx", one);
	}
	json_object_object_add(o, "ethtool", ethtool_queue_json(c->nic, q));
	return o;
}

/* "nic" and "qdisc" in the JSON object of queue q. */
static void queue_json_into(json_object *o, const struct ps_report *r, unsigned int q)
{
	const struct ps_snapshot *s = r->cur;

	if (s->nic && q < s->meta.nqueues)
		json_object_object_add(o, "nic", driver_queue_json(s, q));
	if (s->qdiscs && q < s->meta.nqueues) {
		const struct ps_qdisc *qd = ps_qdisc_of_txq(s->qdiscs, q);

		json_object_object_add(o, "qdisc", qd ? ps_qdisc_json(qd) : NULL);
	}
}

static void ps_nic_iface_json(json_object *o, const struct ps_snapshot *s)
{
	json_object_object_add(o, "nic", s->nic ? ps_nic_json(s->nic) : NULL);
	if (s->qdiscs)
		json_object_object_add(
		    o, "qdisc_root",
		    s->qdiscs->root >= 0 ? ps_qdisc_json(&s->qdiscs->q[s->qdiscs->root]) : NULL);
	json_object_object_add(o, "softnet",
			       s->softnet ? ps_softnet_json(s->softnet, s->nsoftnet) : NULL);
}

/* ---- Prometheus ---------------------------------------------------------- */

/* One family's samples: each queue's packets per direction, or (xdp) its RX
 * frames through XDP; where the driver has no such count, none. */
static void nic_samples(struct ps_prom *p, const struct ps_snapshot *s, int n, bool xdp)
{
	struct ps_nic_driver_queue d;
	const struct ps_nic_count *c = xdp ? &d.xdp_packets : &d.packets;
	struct ps_lbl l;
	unsigned int q;
	int i, t;

	for (i = 0; i < n; i++)
		for (q = 0; s[i].nic && q < s[i].meta.nqueues; q++)
			for (t = PS_NIC_Q_RX; t <= (xdp ? PS_NIC_Q_RX : PS_NIC_Q_TX); t++) {
				ps_nic_driver_queue(s[i].nic, t, q, &d);
				if (c->src == PS_NIC_SRC_NONE)
					continue;
				ps_lbl_queue(&l, &s[i], q);
				if (!xdp)
					ps_lbl_add(&l, "direction", t == PS_NIC_Q_RX ? "rx" : "tx");
				ps_lbl_add(&l, "source", ps_nic_src_name(c->src));
				ps_prom_sample_u(p, &l, c->v);
			}
}

/* One value of the root qdisc of each interface that has one with stats
 * (for mq, the sum of its children), labelled iface and kind. */
static void qdisc_samples(struct ps_prom *p, const struct ps_snapshot *s, int n, bool drops)
{
	const struct ps_qdisc *q;
	struct ps_lbl l;
	int i;

	for (i = 0; i < n; i++) {
		if (!s[i].qdiscs || s[i].qdiscs->root < 0)
			continue;
		q = &s[i].qdiscs->q[s[i].qdiscs->root];
		if (!q->has_stats)
			continue;
		ps_lbl_iface(&l, &s[i]);
		ps_lbl_add(&l, "kind", q->kind);
		ps_prom_sample_u(p, &l, drops ? q->drops : q->packets);
	}
}

/* One column of /proc/net/softnet_stat summed over the CPUs (the host's,
 * the same in every snapshot: the first one that has it); none when no
 * snapshot could read it. */
static void softnet_sample(struct ps_prom *p, const struct ps_snapshot *s, int n, bool squeeze)
{
	ps_u128 sum = 0;
	int i, j;

	for (i = 0; i < n && !s[i].softnet; i++)
		;
	if (i == n)
		return;
	for (j = 0; j < s[i].nsoftnet; j++)
		sum += squeeze ? s[i].softnet[j].time_squeeze : s[i].softnet[j].dropped;
	ps_prom_sample_u(p, NULL, sum);
}

/* The driver's own per-queue counters, per queue at every detail level (they
 * are what differs between queues): RX and TX packets from one source each
 * (qstats where the kernel reports them, else ethtool -S), RX XDP packets
 * from ethtool -S: at most 3 series per queue. Then the root qdisc's own
 * counters (2 series per interface) and the host's softnet ones (2). */
static void ps_nic_prom(struct ps_prom *p, const struct ps_snapshot *s, int n)
{
	ps_prom_family(p, "pathscope_nic_queue_packets_total", "counter",
		       "Packets of each queue by the driver's own per-queue counters, since the "
		       "driver started counting: source=\"qstats\" (netdev netlink) where the "
		       "kernel reports them, else \"ethtool\" (ethtool -S).");
	nic_samples(p, s, n, false);
	ps_prom_family(p, "pathscope_nic_queue_xdp_packets_total", "counter",
		       "Frames through the driver's XDP path on each RX queue (ethtool -S, e.g. "
		       "rx_queue_N_xdp_packets), since the driver started counting; compare "
		       "pathscope_packets_total{hook=\"xdp\"}.");
	nic_samples(p, s, n, true);
	ps_prom_family(p, "pathscope_qdisc_packets_total", "counter",
		       "Packets sent by the interface's root qdisc (for mq, the sum of its "
		       "children), by its own counters (tc -s qdisc).");
	qdisc_samples(p, s, n, false);
	ps_prom_family(p, "pathscope_qdisc_drops_total", "counter",
		       "Packets dropped by the interface's root qdisc (for mq, the sum of its "
		       "children): queue full or policed, by its own counters (tc -s qdisc).");
	qdisc_samples(p, s, n, true);
	ps_prom_family(p, "pathscope_softnet_dropped_total", "counter",
		       "The host's packets dropped from a full per-CPU backlog "
		       "(net.core.netdev_max_backlog), all CPUs, all devices "
		       "(/proc/net/softnet_stat column 2).");
	softnet_sample(p, s, n, false);
	ps_prom_family(p, "pathscope_softnet_times_squeezed_total", "counter",
		       "The host's net_rx_action runs that ended with work left (budget or time "
		       "out: softnet squeeze), all CPUs (/proc/net/softnet_stat column 3).");
	softnet_sample(p, s, n, true);
}

/* ---- the family ---------------------------------------------------------- */

/* The NIC summary and per-queue counts, then the per-CPU table. */
static void table(FILE *out, const struct ps_report *r)
{
	ps_nic_table(out, r);
	ps_nic_cpu_table(out, r);
}

const struct ps_family ps_family_nic = {
	.name = "nic",
	.table = table,
	.queue_json_into = queue_json_into,
	.iface_json = ps_nic_iface_json,
	.prom = ps_nic_prom,
};
