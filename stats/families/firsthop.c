// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The first hop per RX queue: its IRQ, what started each poll, the NET_RX
 * softirq's wait and each frame's place in its run. Born in
 * probes/pathscope_firsthop.bpf.c and firsthop.bpf.h; struct ps_fh_qstats. */
#include <stddef.h>
#include <string.h>

#include "stats/families/families.h"
#include "stats/families/stages.h"
#include "stats/format/hist.h"
#include "stats/format/json.h"
#include "stats/format/table.h"

/* Names of enum ps_fh_start, in JSON and in Prometheus' label start. */
static const char *const start_names[PS_FH_STARTS] = { "irq",	"ksoftirqd", "timer",
						       "other", "thread",    "busy_poll" };

static bool firsthop_on(const struct ps_snapshot *s)
{
	return s->fh && (s->meta.features & PS_F_FIRSTHOP);
}

static __u64 polls(const struct ps_fh_qstats *t)
{
	__u64 n = 0;

	for (int i = 0; i < PS_FH_STARTS; i++)
		n += t->polls[i];
	return n;
}

static bool firsthop_slot_active(const struct ps_snapshot *s, unsigned int q)
{
	return firsthop_on(s) && (s->fh[q].irqs || polls(&s->fh[q]));
}

/* Cumulative counts of slot q (q == nslots: all slots). */
static void fh_total(const struct ps_snapshot *s, unsigned int q, struct ps_fh_qstats *out)
{
	ps_per_queue_total(s->fh, sizeof(*out), s->nslots, q, out);
}

/* ---- table --------------------------------------------------------------- */

static void fh_row(FILE *out, const struct ps_snapshot *s, unsigned int q, const char *qname)
{
	struct ps_fh_qstats t;
	char v[4][16];
	__u64 n;

	fh_total(s, q, &t);
	n = polls(&t);
	ps_fmt_ns(v[0], sizeof(v[0]), t.waited ? t.wait_sum_ns / t.waited : 0, t.waited);
	ps_fmt_lat(v[1], sizeof(v[1]), t.wait_hist, 99);
	ps_fmt_ns(v[2], sizeof(v[2]), t.sampled ? t.place_sum_ns / t.sampled : 0, t.sampled);
	ps_fmt_lat(v[3], sizeof(v[3]), t.place_hist, 99);
	fprintf(out, "%-6s %9llu %9llu", qname, (unsigned long long)t.irqs, (unsigned long long)n);
	for (int i = 0; i < PS_FH_STARTS; i++)
		fprintf(out, " %5.1f%%", n ? 100.0 * t.polls[i] / n : 0.0);
	fprintf(out, " %9s %9s %9s %9s\n", v[0], v[1], v[2], v[3]);
}

static void firsthop_table(FILE *out, const struct ps_report *r)
{
	const struct ps_snapshot *s = r->cur;
	char qname[16];
	unsigned int q;

	if (!firsthop_on(s))
		return;
	fprintf(out,
		"First hop: IRQ -> NET_RX softirq -> XDP per RX queue; polls by what started "
		"them; 1 in %d frames placed\n",
		PS_FH_EVERY);
	if (!s->meta.fh_irqs)
		fprintf(out,
			"(%s has no IRQ per RX queue, as veth: its polls start in softirqs "
			"raised elsewhere)\n",
			s->meta.ifname);
	fprintf(out, "%-6s %9s %9s %6s %6s %6s %6s %6s %6s %9s %9s %9s %9s\n", "RXQ", "IRQS",
		"POLLS", "IRQ", "KSIRQD", "TIMER", "OTHER", "THREAD", "BUSY", "WAIT_AVG",
		"WAIT_P99", "PLACE_AVG", "PLACE_P99");
	for (q = 0; q < s->nslots; q++) {
		if (!firsthop_slot_active(s, q))
			continue;
		ps_queue_label(s, q, qname, sizeof(qname));
		fh_row(out, s, q, qname);
	}
	fh_row(out, s, s->nslots, "all");
}

/* ---- --hist -------------------------------------------------------------- */

static void firsthop_hist(FILE *out, const struct ps_report *r)
{
	const struct ps_snapshot *s = r->cur;
	struct ps_fh_qstats t;

	if (!firsthop_on(s))
		return;
	fh_total(s, s->nslots, &t);
	fprintf(out, "\n%s NET_RX softirq wait (raise -> entry), all queues:\n", s->meta.ifname);
	ps_print_hist(out, t.wait_hist, PS_LAT_BUCKETS, "ns");
	fprintf(out, "\n%s place in the softirq run (entry -> XDP), all queues (sampled):\n",
		s->meta.ifname);
	ps_print_hist(out, t.place_hist, PS_LAT_BUCKETS, "ns");
}

/* ---- JSON ---------------------------------------------------------------- */

static json_object *firsthop_json(const struct ps_report *r, unsigned int q)
{
	json_object *o = json_object_new_object(), *p = json_object_new_object();
	struct ps_fh_qstats t;

	fh_total(r->cur, q, &t);
	ps_json_add_u64(o, "irqs", t.irqs);
	for (int i = 0; i < PS_FH_STARTS; i++)
		ps_json_add_u64(p, start_names[i], t.polls[i]);
	json_object_object_add(o, "polls", p);
	ps_json_add_u64(o, "waited", t.waited);
	json_object_object_add(o, "softirq_wait_ns", ps_json_dist(t.wait_hist, PS_LAT_BUCKETS));
	ps_json_add_u64(o, "softirq_wait_avg_ns", t.waited ? t.wait_sum_ns / t.waited : 0);
	ps_json_add_u64(o, "sample_every", PS_FH_EVERY);
	ps_json_add_u64(o, "sampled", t.sampled);
	json_object_object_add(o, "place_ns", ps_json_dist(t.place_hist, PS_LAT_BUCKETS));
	ps_json_add_u64(o, "place_avg_ns", t.sampled ? t.place_sum_ns / t.sampled : 0);
	return o;
}

static void firsthop_iface_json(json_object *o, const struct ps_snapshot *s)
{
	if (firsthop_on(s))
		ps_json_add_u64(o, "firsthop_irq_queues", s->meta.fh_irqs);
}

/* ---- Prometheus ---------------------------------------------------------- */

static const void *fh_base(const struct ps_snapshot *s)
{
	return s->fh;
}

/* The probes see every queue; XDP only the selected ones. */
static const struct ps_prom_slots fh_slots = { firsthop_on, fh_base, sizeof(struct ps_fh_qstats),
					       false, PS_F_FIRSTHOP };

static const struct ps_prom_counter fh_counters[] = {
	{ "pathscope_firsthop_irqs_total",
	  "First hop: handler runs of each RX queue's own IRQ (irq:irq_handler_entry).",
	  offsetof(struct ps_fh_qstats, irqs), true },
	{ "pathscope_firsthop_softirq_waits_total",
	  "First hop: NET_RX softirq runs that polled the RX queue, with their wait timed.",
	  offsetof(struct ps_fh_qstats, waited), true },
};

static void fh_polls(struct ps_prom *p, const struct ps_lbl *l, const struct ps_snapshot *s,
		     unsigned int q)
{
	struct ps_fh_qstats t;

	fh_total(s, q, &t);
	for (int i = 0; i < PS_FH_STARTS; i++)
		ps_prom_sample_u1(p, l, "start", start_names[i], t.polls[i]);
}

/* The wait's sum per queue beside its count: the mean wait of a queue, which
 * the alert reads, for 2 series per queue where a histogram costs 30. */
static void fh_wait_sum(struct ps_prom *p, const struct ps_lbl *l, const struct ps_snapshot *s,
			unsigned int q)
{
	struct ps_fh_qstats t;

	fh_total(s, q, &t);
	ps_prom_sample_seconds(p, l, t.wait_sum_ns);
}

static void fh_wait(struct ps_prom *p, const struct ps_lbl *l, const struct ps_snapshot *s,
		    unsigned int q)
{
	struct ps_fh_qstats t;

	fh_total(s, q, &t);
	ps_prom_hist(p, l, t.wait_hist, PS_LAT_BUCKETS, &ps_prom_lat_edges, t.wait_sum_ns);
}

static void fh_place(struct ps_prom *p, const struct ps_lbl *l, const struct ps_snapshot *s,
		     unsigned int q)
{
	struct ps_fh_qstats t;

	fh_total(s, q, &t);
	ps_prom_hist(p, l, t.place_hist, PS_LAT_BUCKETS, &ps_prom_lat_edges, t.place_sum_ns);
}

static void firsthop_prom(struct ps_prom *p, const struct ps_snapshot *s, int n)
{
	ps_prom_slot_counters(p, s, n, &fh_slots, fh_counters, PS_ARRAY_SIZE(fh_counters));
	ps_prom_family(p, "pathscope_firsthop_polls_total", "counter",
		       "First hop: polls that handed XDP frames of the RX queue, by what started "
		       "them (irq: its own IRQ; ksoftirqd; timer: NAPI's deferral timer; other: "
		       "a softirq raised elsewhere; thread: a NAPI thread; busy_poll).");
	ps_prom_each_slot(p, s, n, &fh_slots, PS_PROM_PER_QUEUE, fh_polls);
	ps_prom_family(p, "pathscope_firsthop_softirq_wait_seconds_total", "counter",
		       "First hop: the timed NET_RX softirq waits of the RX queue, summed.");
	ps_prom_each_slot(p, s, n, &fh_slots, PS_PROM_PER_QUEUE, fh_wait_sum);
	ps_prom_family(p, "pathscope_firsthop_softirq_wait_seconds", "histogram",
		       "First hop: NET_RX softirq raised -> run, once per run that polled the RX "
		       "queue.");
	ps_prom_each_slot(p, s, n, &fh_slots, 0, fh_wait);
	ps_prom_family(p, "pathscope_firsthop_place_seconds", "histogram",
		       "First hop: NET_RX softirq entry -> the frame at XDP (1 frame in 16 per "
		       "CPU and RX queue).");
	ps_prom_each_slot(p, s, n, &fh_slots, 0, fh_place);
}

/* ---- latency budget ------------------------------------------------------ */

static void fh_wait_latency(const struct ps_snapshot *s, unsigned int q, __u64 *out)
{
	struct ps_fh_qstats t;

	fh_total(s, q, &t);
	memcpy(out, t.wait_hist, sizeof(t.wait_hist));
}

static void fh_place_latency(const struct ps_snapshot *s, unsigned int q, __u64 *out)
{
	struct ps_fh_qstats t;

	fh_total(s, q, &t);
	memcpy(out, t.place_hist, sizeof(t.place_hist));
}

/* ---- the family ---------------------------------------------------------- */

static const struct ps_stage stages[] = {
	{
	    .head = "RX sirq",
	    .key = "softirq_wait",
	    .words = "NET_RX softirq wait",
	    .where = "softirq raise to run",
	    .path = PS_PATH_RX,
	    .hist = fh_wait_latency,
	    .json = { { "firsthop", "softirq_wait_ns" } },
	},
	{
	    .head = "RX place",
	    .key = "softirq_place",
	    .words = "place in the softirq run",
	    .where = "softirq entry to XDP",
	    .path = PS_PATH_RX,
	    .hist = fh_place_latency,
	    .json = { { "firsthop", "place_ns" } },
	},
};

const struct ps_family ps_family_firsthop = {
	.name = "firsthop",
	.features = PS_F_FIRSTHOP,
	.on = firsthop_on,
	.slot_active = firsthop_slot_active,
	.table = firsthop_table,
	.hist = firsthop_hist,
	.json_key = "firsthop",
	.queue_json = firsthop_json,
	.iface_json = firsthop_iface_json,
	.prom = firsthop_prom,
	.stages = stages,
	.nstages = PS_ARRAY_SIZE(stages),
};
