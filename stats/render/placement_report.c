// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Where each queue runs, as pathscope nic shows it ("-": none, "n/a": not
 * known on this kernel or device). */
#include "stats/render/placement_report.h"

#include <string.h>

#include "stats/analysis/placement_verdict.h"
#include "stats/format/json.h"

static const char *dash(const char *s)
{
	return *s ? s : "-";
}

static void knob(FILE *out, const char *name, long v, const char *unit)
{
	if (v < 0)
		fprintf(out, " %s n/a", name);
	else
		fprintf(out, " %s %ld%s", name, v, unit);
}

/* " name V" (unit after it), " name n/a" when the driver does not support it. */
static void coal(FILE *out, const char *name, uint64_t v)
{
	if (v == PS_NA)
		fprintf(out, " %s n/a", name);
	else
		fprintf(out, " %s %llu", name, (unsigned long long)v);
}

static void onoff(FILE *out, const char *name, uint64_t v)
{
	fprintf(out, " %s %s", name, v == PS_NA ? "n/a" : v ? "on" : "off");
}

/* ethtool -c in one line: the six every driver may have, the IRQ ones only
 * where the driver has them. */
static void coalescing(FILE *out, const struct ps_nic_coalesce *c)
{
	fprintf(out, "coalescing:");
	if (!c->valid) {
		fprintf(out, " n/a (%s)\n", c->why);
		return;
	}
	coal(out, "rx-usecs", c->rx_usecs);
	coal(out, "rx-frames", c->rx_frames);
	if (c->rx_usecs_irq != PS_NA)
		coal(out, "rx-usecs-irq", c->rx_usecs_irq);
	if (c->rx_frames_irq != PS_NA)
		coal(out, "rx-frames-irq", c->rx_frames_irq);
	onoff(out, "adaptive-rx", c->adaptive_rx);
	fputc(';', out);
	coal(out, "tx-usecs", c->tx_usecs);
	coal(out, "tx-frames", c->tx_frames);
	if (c->tx_usecs_irq != PS_NA)
		coal(out, "tx-usecs-irq", c->tx_usecs_irq);
	if (c->tx_frames_irq != PS_NA)
		coal(out, "tx-frames-irq", c->tx_frames_irq);
	onoff(out, "adaptive-tx", c->adaptive_tx);
	fputc('\n', out);
}

void ps_placement_print(FILE *out, const struct ps_nic_placement *p)
{
	char irq[16], napi[16], pid[24];
	unsigned int i, nnetdev;

	fprintf(out, "placement: NUMA node ");
	if (p->numa_node < 0)
		fprintf(out, "-");
	else
		fprintf(out, "%d (CPUs %s)", p->numa_node, dash(p->numa_cpus));
	fprintf(out, ", NAPI threads %s;", p->threaded < 0 ? "n/a" : p->threaded ? "on" : "off");
	knob(out, "napi_defer_hard_irqs", p->defer_hard_irqs, "");
	knob(out, "gro_flush_timeout", p->gro_flush_timeout, " ns");
	knob(out, "busy_poll", p->busy_poll, " us");
	knob(out, "busy_read", p->busy_read, " us");
	fputc('\n', out);
	coalescing(out, &p->coal);
	fprintf(out, "%-4s %5s %-24s %-12s %-12s %-12s %7s %s\n", "RXQ", "IRQ", "IRQ_NAME",
		"AFFINITY", "EFFECTIVE", "RPS_CPUS", "NAPI", "THREAD");
	for (i = 0; i < p->nrx; i++) {
		const struct ps_nic_place_rx *r = &p->rx[i];

		snprintf(irq, sizeof(irq), "%d", r->irq);
		snprintf(napi, sizeof(napi), "%u", r->napi_id);
		snprintf(pid, sizeof(pid), "%ld", r->napi_pid);
		fprintf(out, "%-4u %5s %-24s %-12s %-12s %-12s %7s %s\n", i, r->irq < 0 ? "-" : irq,
			dash(r->irq_name), dash(r->affinity), dash(r->effective), dash(r->rps),
			r->napi_id ? napi : "-", r->napi_pid < 0 ? "-" : pid);
	}
	for (i = 0, nnetdev = 0; i < p->nrx; i++)
		nnetdev += p->rx[i].irq_src == PS_NIC_IRQ_NETDEV;
	if (p->irqs_mapped)
		fprintf(out,
			"(IRQs: %u from the queue's NAPI (netdev netlink), %u by name in "
			"/proc/interrupts)\n",
			nnetdev, (unsigned int)p->irqs_mapped - nnetdev);
	if (*p->napi_why)
		fprintf(out, "(NAPI ids and threads: n/a (%s))\n", p->napi_why);
	if (!p->nvectors && !p->irqs_mapped)
		fprintf(out, "(no IRQ vectors of its own, as veth: its RX queues run where their "
			     "frames are sent or polled)\n");
	else if (!p->irqs_mapped)
		fprintf(out,
			"(%d IRQ vectors, none named after an RX queue: see /proc/interrupts)\n",
			p->nvectors);
	fprintf(out, "%-4s %-12s %s\n", "TXQ", "XPS_CPUS", "XPS_RXQS");
	for (i = 0; i < p->ntx; i++)
		fprintf(out, "%-4u %-12s %s\n", i, dash(p->tx[i].xps_cpus),
			dash(p->tx[i].xps_rxqs));
}

static json_object *str_or_null(const char *s)
{
	return *s ? json_object_new_string(s) : NULL;
}

static json_object *long_or_null(long v)
{
	return v < 0 ? NULL : json_object_new_int64(v);
}

static json_object *u64_or_null(uint64_t v)
{
	return v == PS_NA ? NULL : json_object_new_uint64(v);
}

static json_object *bool_or_null(uint64_t v)
{
	return v == PS_NA ? NULL : json_object_new_boolean(v != 0);
}

/* Every member, null where the driver does not support it (all of them
 * when the part is n/a: coalescing_na says why). */
static json_object *coalescing_json(const struct ps_nic_coalesce *c)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "rx_usecs", u64_or_null(c->rx_usecs));
	json_object_object_add(o, "rx_frames", u64_or_null(c->rx_frames));
	json_object_object_add(o, "rx_usecs_irq", u64_or_null(c->rx_usecs_irq));
	json_object_object_add(o, "rx_frames_irq", u64_or_null(c->rx_frames_irq));
	json_object_object_add(o, "adaptive_rx", bool_or_null(c->adaptive_rx));
	json_object_object_add(o, "tx_usecs", u64_or_null(c->tx_usecs));
	json_object_object_add(o, "tx_frames", u64_or_null(c->tx_frames));
	json_object_object_add(o, "tx_usecs_irq", u64_or_null(c->tx_usecs_irq));
	json_object_object_add(o, "tx_frames_irq", u64_or_null(c->tx_frames_irq));
	json_object_object_add(o, "adaptive_tx", bool_or_null(c->adaptive_tx));
	return o;
}

json_object *ps_placement_json(const struct ps_nic_placement *p)
{
	json_object *o = json_object_new_object(), *rx = json_object_new_array(),
		    *tx = json_object_new_array(), *x;
	unsigned int i;

	json_object_object_add(o, "numa_node",
			       p->numa_node < 0 ? NULL : json_object_new_int(p->numa_node));
	json_object_object_add(o, "numa_node_cpus", str_or_null(p->numa_cpus));
	json_object_object_add(o, "napi_threaded",
			       p->threaded < 0 ? NULL : json_object_new_boolean(p->threaded));
	json_object_object_add(o, "napi_defer_hard_irqs", long_or_null(p->defer_hard_irqs));
	json_object_object_add(o, "gro_flush_timeout_ns", long_or_null(p->gro_flush_timeout));
	json_object_object_add(o, "busy_poll_us", long_or_null(p->busy_poll));
	json_object_object_add(o, "busy_read_us", long_or_null(p->busy_read));
	json_object_object_add(o, "irq_vectors", json_object_new_int(p->nvectors));
	json_object_object_add(o, "coalescing", coalescing_json(&p->coal));
	json_object_object_add(o, "coalescing_na",
			       p->coal.valid ? NULL : json_object_new_string(p->coal.why));
	json_object_object_add(o, "napi_na", str_or_null(p->napi_why));
	for (i = 0; i < p->nrx; i++) {
		const struct ps_nic_place_rx *r = &p->rx[i];

		x = json_object_new_object();
		json_object_object_add(x, "queue", json_object_new_int((int)i));
		json_object_object_add(x, "irq", r->irq < 0 ? NULL : json_object_new_int(r->irq));
		json_object_object_add(x, "irq_name", str_or_null(r->irq_name));
		json_object_object_add(x, "affinity", str_or_null(r->affinity));
		json_object_object_add(x, "effective_affinity", str_or_null(r->effective));
		json_object_object_add(x, "rps_cpus", str_or_null(r->rps));
		json_object_object_add(x, "rps_flow_cnt", long_or_null(r->rps_flow_cnt));
		json_object_object_add(
		    x, "irq_source",
		    r->irq_src == PS_NIC_IRQ_NETDEV ? json_object_new_string("netdev-genl")
		    : r->irq_src == PS_NIC_IRQ_PROC ? json_object_new_string("proc-interrupts")
						    : NULL);
		json_object_object_add(x, "napi_id",
				       r->napi_id ? json_object_new_int64(r->napi_id) : NULL);
		json_object_object_add(x, "napi_thread_pid", long_or_null(r->napi_pid));
		json_object_object_add(x, "napi_defer_hard_irqs",
				       long_or_null(r->napi_defer_hard_irqs));
		json_object_object_add(x, "napi_gro_flush_timeout_ns",
				       long_or_null(r->napi_gro_flush_timeout));
		json_object_array_add(rx, x);
	}
	for (i = 0; i < p->ntx; i++) {
		x = json_object_new_object();
		json_object_object_add(x, "queue", json_object_new_int((int)i));
		json_object_object_add(x, "xps_cpus", str_or_null(p->tx[i].xps_cpus));
		json_object_object_add(x, "xps_rxqs", str_or_null(p->tx[i].xps_rxqs));
		json_object_array_add(tx, x);
	}
	json_object_object_add(o, "rx", rx);
	json_object_object_add(o, "tx", tx);
	return o;
}

/* ---- stats: the verdict ------------------------------------------------------- */

#define WIDTH 120 /* every table of stats fits it */

/* head, then text word by word, continued on lines indented by 4 so that
 * none passes WIDTH. */
static void wrapped(FILE *out, const char *head, const char *text)
{
	int col = fprintf(out, "%s", head);
	const char *p = text;

	while (*p) {
		size_t n = strcspn(p, " ");

		if (col > 4 && col + 1 + (int)n > WIDTH) {
			fprintf(out, "\n   ");
			col = 3;
		}
		col += fprintf(out, " %.*s", (int)n, p);
		p += n;
		while (*p == ' ')
			p++;
	}
	fputc('\n', out);
}

void ps_placement_verdicts_print(FILE *out, const struct ps_report *r)
{
	struct ps_place_report pr;
	unsigned int i, fine = 0;
	char head[48];
	int c;

	if (ps_place_report(r, &pr) || !pr.known) {
		ps_place_report_free(&pr);
		return;
	}
	fprintf(out,
		"PLACEMENT VERDICT: where each RX queue ran, against its IRQ, RPS and NUMA "
		"node%s\n",
		pr.firsthop ? "; how its polls waited (first hop)" : "");
	/* without an IRQ: no shared_cpu, off_affinity or thread_starved */
	if (!pr.irq_per_queue)
		wrapped(out, "(no",
			pr.firsthop
			    ? "IRQ per RX queue, as veth: its queues run where their frames "
			      "are sent or polled; judged: spread, RPS, NUMA node, ksoftirqd, "
			      "deferred)"
			    : "IRQ per RX queue, as veth: its queues run where their frames "
			      "are sent or polled; judged: spread, RPS, NUMA node)");
	for (i = 0; i < pr.nq; i++) {
		const struct ps_place_verdict *v = &pr.v[i];
		bool any = false;

		for (c = 0; c < PS_PLACE_NCAUSES; c++) {
			if (!v->holds[c])
				continue;
			snprintf(head, sizeof(head), "queue %u %s:", v->queue,
				 ps_place_cause_name((enum ps_place_cause)c));
			wrapped(out, head, v->why[c]);
			wrapped(out, " ",
				ps_place_cause_advice((enum ps_place_cause)c, pr.irq_per_queue));
			any = true;
		}
		fine += !any;
	}
	if (fine == pr.nq)
		fprintf(out, "(no placement problem on its %u RX queues)\n", pr.nq);
	else if (fine)
		fprintf(out, "(no placement problem on its other %u RX queues)\n", fine);
	ps_place_report_free(&pr);
}

json_object *ps_placement_verdicts_json(const struct ps_report *r)
{
	json_object *o, *qs, *x, *causes, *y;
	struct ps_place_report pr;
	unsigned int i;
	int c;

	if (ps_place_report(r, &pr) || !pr.known) {
		ps_place_report_free(&pr);
		return NULL;
	}
	o = json_object_new_object();
	qs = json_object_new_array();
	json_object_object_add(o, "irq_per_queue", json_object_new_boolean(pr.irq_per_queue));
	json_object_object_add(o, "min_frames", json_object_new_int(PS_PLACE_MIN_FRAMES));
	json_object_object_add(o, "firsthop", json_object_new_boolean(pr.firsthop));
	for (i = 0; i < pr.nq; i++) {
		const struct ps_place_verdict *v = &pr.v[i];

		x = json_object_new_object();
		causes = json_object_new_object();
		json_object_object_add(x, "queue", json_object_new_int((int)v->queue));
		ps_json_add_u64(x, "frames", v->frames);
		for (c = 0; c < PS_PLACE_NCAUSES; c++) {
			if (!v->holds[c])
				continue;
			y = json_object_new_object();
			json_object_object_add(y, "why", json_object_new_string(v->why[c]));
			json_object_object_add(y, "advice",
					       json_object_new_string(ps_place_cause_advice(
						   (enum ps_place_cause)c, pr.irq_per_queue)));
			json_object_object_add(causes, ps_place_cause_name((enum ps_place_cause)c),
					       y);
		}
		json_object_object_add(x, "causes", causes);
		json_object_array_add(qs, x);
	}
	json_object_object_add(o, "queues", qs);
	ps_place_report_free(&pr);
	return o;
}
