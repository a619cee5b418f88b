// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Sizes and GRO/GSO of every hook and queue (struct ps_qstats, counted in count.bpf.h
 * and tc/pathscope_tc.bpf.c): frame (XDP) and skb (tc) sizes, and at tc the segments
 * per skb and gso_size (what GRO merged at ingress, what GSO/TSO will split at egress). */
#include "lib/names.h"
#include "stats/families/families.h"
#include "stats/format/hist.h"
#include "stats/format/json.h"

/* ---- table: columns of the hook table's rows ---------------------------- */

void ps_sizes_table_header(FILE *out)
{
	fprintf(out, " %6s %6s %6s %6s", "SZ_P50", "SZ_P99", "SEGS", "GSO_SZ");
}

void ps_sizes_table_cells(FILE *out, const struct ps_meta *m, int h, const struct ps_qstats *t)
{
	char p50[16] = "-", p99[16] = "-", segs[16] = "-", gso[16] = "-";

	if ((m->features & PS_F_SIZES) && ps_hist_count(t->size_hist, PS_SIZE_BUCKETS)) {
		snprintf(p50, sizeof(p50), "%llu",
			 (unsigned long long)ps_hist_percentile(t->size_hist, PS_SIZE_BUCKETS, 50));
		snprintf(p99, sizeof(p99), "%llu",
			 (unsigned long long)ps_hist_percentile(t->size_hist, PS_SIZE_BUCKETS, 99));
	}
	if (h != PS_HOOK_XDP && (m->features & PS_F_GRO) && t->packets) {
		snprintf(segs, sizeof(segs), "%.2f", ps_avg_segs(t));
		if (t->gso_packets)
			snprintf(gso, sizeof(gso), "%.0f", ps_avg_gso_size(t));
	}
	fprintf(out, " %6s %6s %6s %6s", p50, p99, segs, gso);
}

/* ---- --hist: per hook and queue, then all queues ------------------------- */

static void ps_sizes_hist(FILE *out, const struct ps_report *r)
{
	const struct ps_snapshot *c = r->cur;
	struct ps_qstats s;
	unsigned int q;
	int h;

	for (h = 0; h < PS_HOOK_COUNT; h++) {
		if (!c->hook[h])
			continue;
		for (q = 0; q <= c->nslots; q++) {
			ps_report_total(r, h, q, &s);
			if (!s.packets)
				continue;
			if (q == c->nslots)
				fprintf(out, "\n%s %s %s, all queues:\n", c->meta.ifname,
					ps_hook_names[h], ps_hook_dirs[h]);
			else if (q == c->nslots - 1)
				fprintf(out, "\n%s %s %s, other (queue unknown or >= %u):\n",
					c->meta.ifname, ps_hook_names[h], ps_hook_dirs[h],
					c->meta.nqueues);
			else
				fprintf(out, "\n%s %s %s, queue %u:\n", c->meta.ifname,
					ps_hook_names[h], ps_hook_dirs[h], q);
			if (c->meta.features & PS_F_SIZES) {
				fprintf(out, "  %s size (bytes):\n",
					h == PS_HOOK_XDP ? "frame" : "skb");
				ps_print_hist(out, s.size_hist, PS_SIZE_BUCKETS, "bytes");
			}
			if (h != PS_HOOK_XDP && (c->meta.features & PS_F_GRO)) {
				fprintf(out, "  %s segments per skb:\n",
					h == PS_HOOK_TC_INGRESS ? "GRO" : "GSO");
				ps_print_hist(out, s.segs_hist, PS_SEGS_BUCKETS, "segments");
			}
		}
	}
}

/* ---- JSON: "size" and "gro" in a hook's totals --------------------------- */

void ps_sizes_json(json_object *o, const struct ps_qstats *s, __u32 features, int hook)
{
	json_object *gro;

	if (features & PS_F_SIZES)
		json_object_object_add(o, "size", ps_json_dist(s->size_hist, PS_SIZE_BUCKETS));
	if (hook == PS_HOOK_XDP || !(features & PS_F_GRO))
		return;
	gro = json_object_new_object();
	ps_json_add_u64(gro, "multi_segment_skbs", s->gso_packets);
	ps_json_add_u64(gro, "segments", ps_segments(s));
	json_object_object_add(gro, "avg_segments", ps_json_double(ps_avg_segs(s), 3));
	json_object_object_add(gro, "avg_gso_size", ps_json_double(ps_avg_gso_size(s), 3));
	json_object_object_add(gro, "segments_per_skb",
			       ps_json_dist(s->segs_hist, PS_SEGS_BUCKETS));
	json_object_object_add(o, "gro", gro);
}

/* ---- Prometheus ---------------------------------------------------------- */

static const struct ps_prom_edges size_edges = { 6, PS_SIZE_BITS - 1, false }; /* 63 B .. 512 KiB */
static const struct ps_prom_edges segs_edges = { 1, PS_SEGS_BITS - 1, false }; /* 1 .. 511 */

static void size_hist(struct ps_prom *p, const struct ps_lbl *l, const struct ps_qstats *st)
{
	ps_prom_hist(p, l, st->size_hist, PS_SIZE_BUCKETS, &size_edges, st->bytes);
}

static void multi(struct ps_prom *p, const struct ps_lbl *l, const struct ps_qstats *st)
{
	ps_prom_sample_u(p, l, st->gso_packets);
}

static void segments(struct ps_prom *p, const struct ps_lbl *l, const struct ps_qstats *st)
{
	ps_prom_sample_u(p, l, ps_segments(st));
}

static void gso_size(struct ps_prom *p, const struct ps_lbl *l, const struct ps_qstats *st)
{
	ps_prom_sample_u(p, l, st->gso_size_sum);
}

static void segs_hist(struct ps_prom *p, const struct ps_lbl *l, const struct ps_qstats *st)
{
	ps_prom_hist(p, l, st->segs_hist, PS_SEGS_BUCKETS, &segs_edges, ps_segments(st));
}

static void ps_sizes_prom(struct ps_prom *p, const struct ps_snapshot *s, int n)
{
	ps_prom_family(p, "pathscope_frame_size_bytes", "histogram",
		       "Frame (xdp) or skb (tc) length; le=2^k-1 counts lengths below 2^k exactly; "
		       "_sum is the bytes counter.");
	ps_prom_each_hook(p, s, n, PS_F_SIZES, 0, size_hist);
	ps_prom_family(p, "pathscope_multi_segment_skbs_total", "counter",
		       "tc only: skbs of more than one segment (what GRO merged at tc_ingress, "
		       "what GSO/TSO will split at tc_egress).");
	ps_prom_each_hook(p, s, n, PS_F_GRO, PS_PROM_TC_ONLY, multi);
	ps_prom_family(p, "pathscope_segments_total", "counter",
		       "tc only: segments in all skbs (a plain skb counts 1).");
	ps_prom_each_hook(p, s, n, PS_F_GRO, PS_PROM_TC_ONLY, segments);
	ps_prom_family(p, "pathscope_gso_size_bytes_total", "counter",
		       "tc only: sum of gso_size over multi-segment skbs (divide by "
		       "pathscope_multi_segment_skbs_total for the average).");
	ps_prom_each_hook(p, s, n, PS_F_GRO, PS_PROM_TC_ONLY, gso_size);
	ps_prom_family(p, "pathscope_skb_segments", "histogram",
		       "tc only: segments per skb; le=2^k-1 counts skbs of fewer than 2^k segments "
		       "exactly; _sum is pathscope_segments_total.");
	ps_prom_each_hook(p, s, n, PS_F_GRO, PS_PROM_TC_ONLY, segs_hist);
}

static bool sizes_on(const struct ps_snapshot *s)
{
	return s->meta.features & (PS_F_SIZES | PS_F_GRO);
}

/* Its table columns and JSON keys are in the counters' (counters.c). */
const struct ps_family ps_family_sizes = {
	.name = "sizes",
	.features = PS_F_SIZES | PS_F_GRO,
	.on = sizes_on,
	.hist = ps_sizes_hist,
	.prom = ps_sizes_prom,
};
