/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* The report of `pathscope flows`: per RX queue its packets, bytes, distinct and top
 * flows, the hot queues' verdicts (stats/analysis/hot_queue.h), the NIC's RSS; as text
 * or as JSON lines (its flows are pathscope-json(7)'s FLOW objects). */
#ifndef PATHSCOPE_STATS_RENDER_FLOWS_REPORT_H
#define PATHSCOPE_STATS_RENDER_FLOWS_REPORT_H

#include <stdbool.h>
#include <stdio.h>

#include "lib/toeplitz.h"
#include "nic/rss.h"
#include "stats/read/snapshot.h"

struct ps_flows_opts {
	const char *ifname;
	double interval_s;	     /* the report's interval; 0: since attach */
	unsigned int top;	     /* flows shown per queue */
	const struct ps_rss *rss;    /* the NIC's RSS facts */
	const struct ps_tuple *flow; /* --flow, or NULL */
	const char *flow_text;	     /* how --flow reads: "udp 198.18.0.1:40000 > 198.18.0.2:9" */
	bool json;		     /* one JSON object, not text */
};

/* One report of cur over prev (NULL: since attach) to out. 0, or -errno
 * when the flows cannot be read (or memory is short). */
int ps_flows_report(FILE *out, const struct ps_snapshot *cur, const struct ps_snapshot *prev,
		    const struct ps_flows_opts *o);

#endif /* PATHSCOPE_STATS_RENDER_FLOWS_REPORT_H */
