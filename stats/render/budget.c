// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The latency budget (stats --latency): one row per stage along the path, one column
 * per queue with samples (and "all"), each cell the p50 and p99 of that stage's
 * latency on that queue; a stage whose feature is off says "off", one without samples "-". */
#include "stats/render/render.h"

#include <string.h>

#include "lib/queues.h"
#include "stats/families/families.h"
#include "stats/format/hist.h"
#include "stats/format/json.h"
#include "stats/format/table.h"
#include "stats/families/stages.h"

enum cell { CELL_OFF, CELL_NA, CELL_EMPTY, CELL_SAMPLES };

/* Stage k of queue slot q: its histogram in h, and what the cell shows. */
static enum cell stage_cell(const struct ps_snapshot *s, size_t k, unsigned int q, __u64 *h)
{
	const struct ps_stage *st = &ps_stages[k];

	if (!(s->meta.features & st->feature) || !st->on(s))
		return CELL_OFF;
	if (st->has && !st->has(s))
		return CELL_NA; /* e.g. veth hands skbs on: nothing to complete */
	st->hist(s, q, h);
	return ps_hist_count(h, PS_LAT_BUCKETS) ? CELL_SAMPLES : CELL_EMPTY;
}

/* Does queue slot q have a sample in any stage? */
static bool queue_has_samples(const struct ps_snapshot *s, unsigned int q)
{
	static __u64 h[PS_LAT_BUCKETS];
	size_t k;

	for (k = 0; k < ps_nstages; k++)
		if (stage_cell(s, k, q, h) == CELL_SAMPLES)
			return true;
	return false;
}

/* The cell of stage k on queue slot q, as the table shows it. */
static void cell_text(const struct ps_snapshot *s, size_t k, unsigned int q, char *cell, size_t len)
{
	static __u64 h[PS_LAT_BUCKETS];
	char p50[16], p99[16];

	switch (stage_cell(s, k, q, h)) {
	case CELL_OFF:
		snprintf(cell, len, "off");
		break;
	case CELL_NA:
		snprintf(cell, len, "n/a");
		break;
	case CELL_EMPTY:
		snprintf(cell, len, "-");
		break;
	case CELL_SAMPLES:
		ps_fmt_lat(p50, sizeof(p50), h, 50);
		ps_fmt_lat(p99, sizeof(p99), h, 99);
		snprintf(cell, len, "%s/%s", p50, p99);
		break;
	}
}

/* Queue columns per block: "STAGE" (9) and 6 cells of 1 + 15 make 105, within
 * 120 columns; more queues continue in a further block below. */
#define COLS_PER_BLOCK 6

static void block(FILE *out, const struct ps_snapshot *s, const unsigned int *cols, size_t ncols)
{
	char label[16], cell[40];
	size_t c, k;

	fprintf(out, "%-9s", "STAGE");
	for (c = 0; c < ncols; c++) {
		if (cols[c] == s->nslots)
			snprintf(label, sizeof(label), "all");
		else
			ps_queue_label(s, cols[c], label, sizeof(label));
		fprintf(out, " %15s", label);
	}
	fputc('\n', out);
	for (k = 0; k < ps_nstages; k++) {
		fprintf(out, "%-9s", ps_stages[k].head);
		for (c = 0; c < ncols; c++) {
			cell_text(s, k, cols[c], cell, sizeof(cell));
			fprintf(out, " %15s", cell);
		}
		fputc('\n', out);
	}
}

/* The stages:
 *   rx    driver -> stack (d2s), stack -> socket read (sock)
 *   tx    qdisc sojourn, driver completion (txlat)
 *   net   ICMP RTT, TCP RTT, TCP handshake
 *   host  ICMP response, TCP data response, TCP ACK delay
 * The families own the histograms and declare their stages
 * (stats/families/), stages.c gathers them; this view only lines them up. */
void ps_render_latency(FILE *out, const struct ps_report *r, int n)
{
	static unsigned int cols[PS_MAX_QUEUES + 2];
	size_t ncols, at, len;
	unsigned int q;
	int i;

	for (i = 0; i < n; i++) {
		const struct ps_snapshot *s = r[i].cur;

		fprintf(out,
			"%s%s (ifindex %u): latency budget, p50/p99 per queue (off: feature off; "
			"-: no samples;\n  RX and host stages by RX queue, TX by TX queue; "
			"n<100: too few samples for a p99)\n",
			i ? "\n" : "", s->meta.ifname, s->meta.ifindex);
		ncols = 0;
		for (q = 0; q < s->nslots; q++)
			if (queue_has_samples(s, q))
				cols[ncols++] = q;
		cols[ncols++] = s->nslots; /* all */
		for (at = 0; at < ncols; at += len) {
			len = ncols - at < COLS_PER_BLOCK ? ncols - at : COLS_PER_BLOCK;
			if (at)
				fputc('\n', out);
			block(out, s, cols + at, len);
		}
	}
	fflush(out);
}

/* {"QUEUE": {"stage": {"count", "p50_ns", "p99_ns"} | "off" | "n/a"}, ...} with the
 * queues that have samples and "all". */
json_object *ps_latency_json(const struct ps_snapshot *s)
{
	static __u64 h[PS_LAT_BUCKETS];
	json_object *o = json_object_new_object(), *qo, *c;
	char label[16];
	unsigned int q;
	size_t k;

	for (q = 0; q <= s->nslots; q++) {
		if (q < s->nslots && !queue_has_samples(s, q))
			continue;
		if (q == s->nslots)
			snprintf(label, sizeof(label), "all");
		else
			ps_queue_label(s, q, label, sizeof(label));
		qo = json_object_new_object();
		for (k = 0; k < ps_nstages; k++) {
			switch (stage_cell(s, k, q, h)) {
			case CELL_OFF:
				c = json_object_new_string("off");
				break;
			case CELL_NA:
				c = json_object_new_string("n/a");
				break;
			default:
				c = json_object_new_object();
				ps_json_add_u64(c, "count", ps_hist_count(h, PS_LAT_BUCKETS));
				if (ps_hist_count(h, PS_LAT_BUCKETS)) {
					ps_json_add_u64(c, "p50_ns",
							ps_hist_percentile(h, PS_LAT_BUCKETS, 50));
					ps_json_add_u64(c, "p99_ns",
							ps_hist_percentile(h, PS_LAT_BUCKETS, 99));
				} else {
					json_object_object_add(c, "p50_ns", NULL);
					json_object_object_add(c, "p99_ns", NULL);
				}
			}
			json_object_object_add(qo, ps_stages[k].key, c);
		}
		json_object_object_add(o, label, qo);
	}
	return o;
}
