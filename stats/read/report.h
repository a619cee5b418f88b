/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* One report = one interface over one window: the cumulative counts of the current
 * snapshot and the rates over the window since the previous one (or since attach);
 * stats/render/render.h prints reports as a table, as histograms, or as JSON. */
#ifndef PATHSCOPE_STATS_READ_REPORT_H
#define PATHSCOPE_STATS_READ_REPORT_H

#include <stdbool.h>
#include <stdio.h>

#include "stats/read/snapshot.h"

/* What the tables show beyond their default, on request (stats --all, --ecn). */
#define PS_SHOW_ALL 1U /* rows and queues without packets */
#define PS_SHOW_ECN 2U /* the NOT_ECT, ECT0 and ECT1 columns beside CE */

struct ps_report {
	const struct ps_snapshot *cur;
	const struct ps_snapshot *prev; /* NULL: the window starts at attach */
	double window_s;
	unsigned int show; /* PS_SHOW_*; 0 from ps_report_init */
};

/* The window's counts of hook at queue slot q (q == nslots: all queues). */
void ps_report_window(const struct ps_report *r, int hook, unsigned int q, struct ps_qstats *out);
/* The cumulative counts (q == nslots: all queues). */
void ps_report_total(const struct ps_report *r, int hook, unsigned int q, struct ps_qstats *out);
void ps_report_init(struct ps_report *r, const struct ps_snapshot *cur,
		    const struct ps_snapshot *prev);

/* Derived figures shared by the renderers. */
double ps_avg_segs(const struct ps_qstats *s);		/* segments per skb */
double ps_avg_gso_size(const struct ps_qstats *s);	/* over multi-segment skbs */
__u64 ps_ip_packets(const struct ps_qstats *s);		/* sum of ECN counts */
__u64 ps_ecn_count(const struct ps_qstats *s, int ecn); /* IPv4 + IPv6 */
__u64 ps_segments(const struct ps_qstats *s);		/* packets, GSO/GRO skbs split */

#endif /* PATHSCOPE_STATS_READ_REPORT_H */
