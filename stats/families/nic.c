// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * NIC facts (netlink) and per-CPU counters in the stats view: a short NIC
 * summary, the driver's own per-queue counters next to pathscope's queues,
 * and one row per CPU joining the softirq probes with softnet_stat.
 */
#include <string.h>

#include "nic/nic.h"
#include "nic/qdisc.h"
#include "nic/softnet.h"
#include "stats/families/families.h"
#include "stats/format/json.h"
#include "stats/format/table.h"
#include "stats/kern_snapshot.h"

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

static const struct ps_nic_queue *nic_queue(const struct ps_nic_facts *f, enum ps_nic_qtype t,
					    unsigned int id)
{
	unsigned int i;

	for (i = 0; f && i < f->queues.n; i++)
		if (f->queues.q[i].type == t && f->queues.q[i].id == id)
			return &f->queues.q[i];
	return NULL;
}

void ps_nic_table(FILE *out, const struct ps_report *r)
{
	const struct ps_snapshot *c = r->cur;
	const struct ps_nic_facts *f = c->nic;
	const struct ps_nic_queue *nq;
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
		fprintf(out, ";");
		for (i = 0; i < PS_NIC_F_COUNT; i++)
			fprintf(out, " %s %s", ps_nic_feature_names[i],
				state_name(f->features.f[i].state));
	}
	fprintf(out, "\n");
	if (f->link.valid)
		fprintf(out,
			"     link since boot: rx %llu packets, %llu dropped, %llu missed, %llu "
			"fifo, %llu errors; tx %llu packets, %llu dropped, %llu errors\n",
			(unsigned long long)f->link.v[PS_LINK_RX_PACKETS],
			(unsigned long long)f->link.v[PS_LINK_RX_DROPPED],
			(unsigned long long)f->link.v[PS_LINK_RX_MISSED_ERRORS],
			(unsigned long long)f->link.v[PS_LINK_RX_FIFO_ERRORS],
			(unsigned long long)f->link.v[PS_LINK_RX_ERRORS],
			(unsigned long long)f->link.v[PS_LINK_TX_PACKETS],
			(unsigned long long)f->link.v[PS_LINK_TX_DROPPED],
			(unsigned long long)f->link.v[PS_LINK_TX_ERRORS]);
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
	if (!f->queues.qstats_valid) {
		fprintf(out, "     driver per-queue stats: n/a (%s)\n",
			f->queues.qstats_why[0] ? f->queues.qstats_why : "not reported");
		return;
	}
	fprintf(out, "     %-6s %8s %12s %10s %10s %12s %10s\n", "QUEUE", "NAPI", "RX_PACKETS",
		"RX_HWDROP", "ALLOCFAIL", "TX_PACKETS", "TX_HWDROP");
	for (i = 0; i < c->meta.nqueues; i++) {
		const struct ps_nic_queue *rx = nic_queue(f, PS_NIC_Q_RX, i);
		char n[16], rp[24], rd[24], af[24], tp[24], td[24];

		nq = nic_queue(f, PS_NIC_Q_TX, i);
		if (!rx && !nq)
			continue;
		snprintf(n, sizeof(n), rx && rx->napi_id ? "%u" : "n/a", rx ? rx->napi_id : 0);
		fmt_na(rp, sizeof(rp), rx ? rx->qstats[PS_NIC_QS_RX_PACKETS] : PS_NA);
		fmt_na(rd, sizeof(rd), rx ? rx->qstats[PS_NIC_QS_RX_HW_DROPS] : PS_NA);
		fmt_na(af, sizeof(af), rx ? rx->qstats[PS_NIC_QS_RX_ALLOC_FAIL] : PS_NA);
		fmt_na(tp, sizeof(tp), nq ? nq->qstats[PS_NIC_QS_TX_PACKETS] : PS_NA);
		fmt_na(td, sizeof(td), nq ? nq->qstats[PS_NIC_QS_TX_HW_DROPS] : PS_NA);
		fprintf(out, "     %-6u %8s %12s %10s %10s %12s %10s\n", i, n, rp, rd, af, tp, td);
	}
}

void ps_nic_cpu_table(FILE *out, const struct ps_report *r)
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

/* The driver's view of queue q: its NAPI id and per-queue counters, or null. */
static json_object *driver_queue_json(const struct ps_snapshot *c, unsigned int q)
{
	const struct ps_nic_queue *nq;
	json_object *o, *one;
	int t, k;

	if (!c->nic || q >= c->meta.nqueues)
		return NULL;
	o = json_object_new_object();
	for (t = PS_NIC_Q_RX; t <= PS_NIC_Q_TX; t++) {
		nq = nic_queue(c->nic, t, q);
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
	return o;
}

void ps_nic_queue_json(json_object *o, const struct ps_snapshot *s, unsigned int q)
{
	if (s->nic && q < s->meta.nqueues)
		json_object_object_add(o, "nic", driver_queue_json(s, q));
	if (s->qdiscs && q < s->meta.nqueues) {
		const struct ps_qdisc *qd = ps_qdisc_of_txq(s->qdiscs, q);

		json_object_object_add(o, "qdisc", qd ? ps_qdisc_json(qd) : NULL);
	}
}

void ps_nic_iface_json(json_object *o, const struct ps_snapshot *s)
{
	json_object_object_add(o, "nic", s->nic ? ps_nic_json(s->nic) : NULL);
	if (s->qdiscs)
		json_object_object_add(
		    o, "qdisc_root",
		    s->qdiscs->root >= 0 ? ps_qdisc_json(&s->qdiscs->q[s->qdiscs->root]) : NULL);
	json_object_object_add(o, "softnet",
			       s->softnet ? ps_softnet_json(s->softnet, s->nsoftnet) : NULL);
}
