// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The first hop per RX queue: its IRQ, what started each poll, the NET_RX
 * softirq's wait, a NAPI thread's wait and each frame's place in its run. Born in
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

/* N of attach --softirq-sample: 1 NET_RX run in N per CPU has its wait
 * timed; the waits shown are of those runs, unscaled. */
static unsigned int sirq_every(const struct ps_snapshot *s)
{
	return s->meta.softirq_sample ? s->meta.softirq_sample : 1;
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

bool ps_firsthop_window(const struct ps_report *r, unsigned int q, struct ps_fh_qstats *out)
{
	const struct ps_snapshot *c = r->cur, *p = r->prev;
	struct ps_fh_qstats b;
	__u64 *o = (__u64 *)out;
	const __u64 *base = (const __u64 *)&b;

	if (!firsthop_on(c))
		return false;
	fh_total(c, q, out);
	if (!p || !firsthop_on(p) || p->nslots != c->nslots)
		return true;
	fh_total(p, q, &b);
	/* every member a __u64 count (last_run, state, means nothing summed) */
	for (size_t i = 0; i < sizeof(*out) / sizeof(__u64); i++)
		o[i] = o[i] >= base[i] ? o[i] - base[i] : o[i];
	return true;
}

/* ---- wire -> XDP (the NIC's RX timestamp) -------------------------------- */

/* Whether wire -> XDP means something here; why not in why. */
static bool wire_comparable(const struct ps_snapshot *s, char *why, size_t len)
{
	const struct ps_phc *c = &s->phc;
	struct ps_fh_qstats t;
	__u64 placed; /* the frames that asked: 1 in PS_FH_EVERY */

	fh_total(s, s->nslots, &t);
	placed = t.hw_stamped + t.hw_nodata + t.hw_unsupported;
	if (!(s->meta.flags & PS_META_RX_HASH))
		snprintf(why, len,
			 "not available (XDP is not device-bound: that needs it alone, in "
			 "native mode, on Linux 6.3+)");
	else if (!placed)
		snprintf(why, len, "no frame sampled yet");
	else if (!t.hw_stamped && t.hw_unsupported)
		snprintf(why, len,
			 "not available (the driver has no XDP RX timestamp: %llu of %llu "
			 "sampled frames refused)",
			 (unsigned long long)t.hw_unsupported, (unsigned long long)placed);
	else if (!t.hw_stamped)
		snprintf(why, len,
			 "not available (no hardware RX timestamp on its %llu sampled "
			 "frames: timestamping off, or none on this device)",
			 (unsigned long long)placed);
	else if (!c->checked)
		snprintf(why, len,
			 "not comparable: the NIC clock was not checked (another network "
			 "namespace)");
	else if (*c->why)
		snprintf(why, len, "not comparable: the NIC clock cannot be read (%s)", c->why);
	else if (c->index < 0)
		snprintf(why, len, "not comparable: the NIC has no PTP clock to check against TAI");
	else if (!ps_phc_synced(c))
		snprintf(why, len,
			 "not comparable: the NIC clock is not synchronised (/dev/ptp%d is "
			 "%.3f s from TAI; ptp4l, phc2sys)",
			 c->index, c->offset_ns / 1e9);
	else
		return true;
	return false;
}

static bool wire_has(const struct ps_snapshot *s)
{
	char why[192];

	return firsthop_on(s) && wire_comparable(s, why, sizeof(why));
}

static void wire_line(FILE *out, const struct ps_snapshot *s)
{
	struct ps_fh_qstats t;
	char why[192], v[3][16];
	__u64 n;

	if (!wire_comparable(s, why, sizeof(why))) {
		fprintf(out, "wire -> XDP: %s\n", why);
		return;
	}
	fh_total(s, s->nslots, &t);
	n = t.hw_stamped - t.hw_ahead;
	ps_fmt_ns(v[0], sizeof(v[0]), n ? t.wire_sum_ns / n : 0, n);
	ps_fmt_lat(v[1], sizeof(v[1]), t.wire_hist, 50);
	ps_fmt_lat(v[2], sizeof(v[2]), t.wire_hist, 99);
	fprintf(out,
		"wire -> XDP (the NIC's RX timestamp to XDP, TAI): %llu frames stamped, AVG %s, "
		"P50 %s, P99 %s\n",
		(unsigned long long)t.hw_stamped, v[0], v[1], v[2]);
}

static void wire_latency(const struct ps_snapshot *s, unsigned int q, __u64 *out)
{
	struct ps_fh_qstats t;

	fh_total(s, q, &t);
	memcpy(out, t.wire_hist, sizeof(t.wire_hist));
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

/* The NAPI threads' waits, apart from the softirq's: another start (the
 * queue's IRQ, not the raise) and another end (the poll's first frame at XDP,
 * not the run's entry). Only where some thread poll was timed. */
static void thread_row(FILE *out, const struct ps_snapshot *s, unsigned int q, const char *qname)
{
	struct ps_fh_qstats t;
	char v[2][16];

	fh_total(s, q, &t);
	ps_fmt_ns(v[0], sizeof(v[0]), t.thread_waited ? t.thread_wait_sum_ns / t.thread_waited : 0,
		  t.thread_waited);
	ps_fmt_lat(v[1], sizeof(v[1]), t.thread_wait_hist, 99);
	fprintf(out, "%-6s %9llu %9s %9s\n", qname, (unsigned long long)t.thread_waited, v[0],
		v[1]);
}

static void thread_rows(FILE *out, const struct ps_snapshot *s)
{
	struct ps_fh_qstats t;
	char qname[16];
	unsigned int q;

	fh_total(s, s->nslots, &t);
	if (!t.thread_waited)
		return;
	fprintf(out, "NAPI thread wait: the queue's first IRQ since its last poll -> the thread's "
		     "poll at XDP\n");
	fprintf(out, "%-6s %9s %9s %9s\n", "RXQ", "WAITS", "AVG", "P99");
	for (q = 0; q < s->nslots; q++) {
		fh_total(s, q, &t);
		if (!t.thread_waited)
			continue;
		ps_queue_label(s, q, qname, sizeof(qname));
		thread_row(out, s, q, qname);
	}
	thread_row(out, s, s->nslots, "all");
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
		"them; timed: 1 run in %u per CPU\n",
		sirq_every(s));
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
	thread_rows(out, s);
	wire_line(out, s);
}

/* ---- --hist -------------------------------------------------------------- */

static void firsthop_hist(FILE *out, const struct ps_report *r)
{
	const struct ps_snapshot *s = r->cur;
	struct ps_fh_qstats t;

	if (!firsthop_on(s))
		return;
	fh_total(s, s->nslots, &t);
	fprintf(out, "\n%s NET_RX softirq wait (raise -> entry), all queues (1 run in %u timed):\n",
		s->meta.ifname, sirq_every(s));
	ps_print_hist(out, t.wait_hist, PS_LAT_BUCKETS, "ns");
	if (t.thread_waited) {
		fprintf(out,
			"\n%s NAPI thread wait (the queue's IRQ -> the thread's poll at XDP), "
			"all queues:\n",
			s->meta.ifname);
		ps_print_hist(out, t.thread_wait_hist, PS_LAT_BUCKETS, "ns");
	}
	fprintf(out, "\n%s place in the softirq run (entry -> XDP), all queues (sampled):\n",
		s->meta.ifname);
	ps_print_hist(out, t.place_hist, PS_LAT_BUCKETS, "ns");
}

/* ---- JSON ---------------------------------------------------------------- */

static json_object *firsthop_json(const struct ps_report *r, unsigned int q)
{
	json_object *o = json_object_new_object(), *p = json_object_new_object(),
		    *w = json_object_new_object();
	struct ps_fh_qstats t;

	fh_total(r->cur, q, &t);
	ps_json_add_u64(o, "irqs", t.irqs);
	for (int i = 0; i < PS_FH_STARTS; i++)
		ps_json_add_u64(p, start_names[i], t.polls[i]);
	json_object_object_add(o, "polls", p);
	ps_json_add_u64(o, "softirq_sample_every", sirq_every(r->cur));
	ps_json_add_u64(o, "waited", t.waited);
	json_object_object_add(o, "softirq_wait_ns", ps_json_dist(t.wait_hist, PS_LAT_BUCKETS));
	ps_json_add_u64(o, "softirq_wait_avg_ns", t.waited ? t.wait_sum_ns / t.waited : 0);
	ps_json_add_u64(o, "thread_waited", t.thread_waited);
	json_object_object_add(o, "thread_wait_ns",
			       ps_json_dist(t.thread_wait_hist, PS_LAT_BUCKETS));
	ps_json_add_u64(o, "thread_wait_avg_ns",
			t.thread_waited ? t.thread_wait_sum_ns / t.thread_waited : 0);
	ps_json_add_u64(o, "sample_every", PS_FH_PLACE_EVERY(sirq_every(r->cur)));
	ps_json_add_u64(o, "sampled", t.sampled);
	json_object_object_add(o, "place_ns", ps_json_dist(t.place_hist, PS_LAT_BUCKETS));
	ps_json_add_u64(o, "place_avg_ns", t.sampled ? t.place_sum_ns / t.sampled : 0);
	ps_json_add_u64(w, "stamped", t.hw_stamped);
	ps_json_add_u64(w, "nodata", t.hw_nodata);
	ps_json_add_u64(w, "unsupported", t.hw_unsupported);
	ps_json_add_u64(w, "ahead", t.hw_ahead);
	json_object_object_add(w, "latency_ns", ps_json_dist(t.wire_hist, PS_LAT_BUCKETS));
	ps_json_add_u64(w, "avg_ns",
			t.hw_stamped > t.hw_ahead ? t.wire_sum_ns / (t.hw_stamped - t.hw_ahead)
						  : 0);
	json_object_object_add(o, "wire", w);
	return o;
}

static void firsthop_iface_json(json_object *o, const struct ps_snapshot *s)
{
	json_object *w;
	char why[192];
	bool ok;

	if (!firsthop_on(s))
		return;
	ps_json_add_u64(o, "firsthop_irq_queues", s->meta.fh_irqs);
	w = json_object_new_object();
	ok = wire_comparable(s, why, sizeof(why));
	json_object_object_add(w, "comparable", json_object_new_boolean(ok));
	json_object_object_add(w, "why", ok ? NULL : json_object_new_string(why));
	json_object_object_add(
	    w, "phc",
	    s->phc.checked && s->phc.index >= 0 ? json_object_new_int(s->phc.index) : NULL);
	json_object_object_add(w, "phc_offset_ns",
			       s->phc.checked && s->phc.index >= 0 && !*s->phc.why
				   ? json_object_new_int64(s->phc.offset_ns)
				   : NULL);
	json_object_object_add(o, "wire_to_xdp", w);
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
	  "First hop: NET_RX softirq runs that polled the RX queue with their wait timed "
	  "(1 run in N per CPU: pathscope_firsthop_softirq_sample_every).",
	  offsetof(struct ps_fh_qstats, waited), true },
	{ "pathscope_firsthop_thread_waits_total",
	  "First hop: NAPI thread polls of the RX queue with their wait since its IRQ timed.",
	  offsetof(struct ps_fh_qstats, thread_waited), true },
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

static void fh_thread_wait_sum(struct ps_prom *p, const struct ps_lbl *l,
			       const struct ps_snapshot *s, unsigned int q)
{
	struct ps_fh_qstats t;

	fh_total(s, q, &t);
	ps_prom_sample_seconds(p, l, t.thread_wait_sum_ns);
}

static void fh_thread_wait(struct ps_prom *p, const struct ps_lbl *l, const struct ps_snapshot *s,
			   unsigned int q)
{
	struct ps_fh_qstats t;

	fh_total(s, q, &t);
	ps_prom_hist(p, l, t.thread_wait_hist, PS_LAT_BUCKETS, &ps_prom_lat_edges,
		     t.thread_wait_sum_ns);
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
	struct ps_lbl l;

	ps_prom_family(p, "pathscope_firsthop_softirq_sample_every", "gauge",
		       "First hop: 1 NET_RX softirq run in N per CPU has its wait timed (the "
		       "waits' counts, sums and histograms cover those).");
	for (int i = 0; i < n; i++) {
		if (!firsthop_on(&s[i]))
			continue;
		ps_lbl_iface(&l, &s[i]);
		ps_prom_sample_u(p, &l, sirq_every(&s[i]));
	}
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
		       "First hop: NET_RX softirq raised -> run, once per timed run (1 in N per "
		       "CPU) that polled the RX queue.");
	ps_prom_each_slot(p, s, n, &fh_slots, 0, fh_wait);
	ps_prom_family(p, "pathscope_firsthop_thread_wait_seconds_total", "counter",
		       "First hop: the timed NAPI thread waits of the RX queue, summed.");
	ps_prom_each_slot(p, s, n, &fh_slots, PS_PROM_PER_QUEUE, fh_thread_wait_sum);
	ps_prom_family(p, "pathscope_firsthop_thread_wait_seconds", "histogram",
		       "First hop: the RX queue's first IRQ since its last poll -> a NAPI "
		       "thread's poll handing XDP its first frame, once per such poll.");
	ps_prom_each_slot(p, s, n, &fh_slots, 0, fh_thread_wait);
	ps_prom_family(p, "pathscope_firsthop_place_seconds", "histogram",
		       "First hop: NET_RX softirq entry -> the frame at XDP (in the timed runs; "
		       "about 1 frame in 16).");
	ps_prom_each_slot(p, s, n, &fh_slots, 0, fh_place);
}

/* ---- latency budget ------------------------------------------------------ */

static void fh_wait_latency(const struct ps_snapshot *s, unsigned int q, __u64 *out)
{
	struct ps_fh_qstats t;

	fh_total(s, q, &t);
	memcpy(out, t.wait_hist, sizeof(t.wait_hist));
}

static void fh_thread_wait_latency(const struct ps_snapshot *s, unsigned int q, __u64 *out)
{
	struct ps_fh_qstats t;

	fh_total(s, q, &t);
	memcpy(out, t.thread_wait_hist, sizeof(t.thread_wait_hist));
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
	    .head = "RX wire",
	    .key = "wire_to_xdp",
	    .words = "wire to XDP",
	    .where = "the NIC's RX timestamp to XDP",
	    .path = PS_PATH_RX,
	    .has = wire_has,
	    .hist = wire_latency,
	    .json = { { "firsthop", "wire", "latency_ns" } },
	},
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
	    .head = "RX thrd",
	    .key = "thread_wait",
	    .words = "NAPI thread wait",
	    .where = "IRQ to the NAPI thread's poll at XDP",
	    .path = PS_PATH_RX,
	    .hist = fh_thread_wait_latency,
	    .json = { { "firsthop", "thread_wait_ns" } },
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
