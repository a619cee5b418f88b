/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Heatmaps as self-contained SVG: no script, no external file, readable in any browser.
 * Every drawn cell carries its data as attributes (data-queue, data-interval, data-t0,
 * data-t1, data-low, data-high, data-count), so a test or a script can read it back. */
#ifndef PATHSCOPE_STATS_RENDER_HEATMAP_SVG_H
#define PATHSCOPE_STATS_RENDER_HEATMAP_SVG_H

#include <stdio.h>

#include "stats/analysis/heatmap.h"

/* Small multiples: one panel per queue (or one of all queues), time on x,
 * the histogram's log-linear buckets on y, colour for the count; the panels
 * share the axes and the colour scale. */
void ps_heat_svg(FILE *out, const struct ps_heat *h);

/* The latency budget: per queue, one bar per stage of the p50 over the
 * recording, the stages of one path (RX: driver to stack, then socket read;
 * TX: qdisc, then completion) stacked end to end, each stage's p99 marked.
 * heats[k] holds stage ps_stages[k] over the same recording. */
void ps_budget_svg(FILE *out, const struct ps_heat *heats);

#endif /* PATHSCOPE_STATS_RENDER_HEATMAP_SVG_H */
