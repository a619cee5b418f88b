/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* The RSS section of pathscope nic and flows: the table's lines, or one line
 * "RSS:      not available (why)". */
#ifndef PATHSCOPE_STATS_RENDER_RSS_REPORT_H
#define PATHSCOPE_STATS_RENDER_RSS_REPORT_H

#include <json-c/json.h>
#include <stdio.h>

#include "nic/rss.h"

void ps_rss_print(FILE *out, const struct ps_rss *r, __u32 nqueues);

/* The same as JSON (nic/rss.h says how); defined in rss_report.c. (nic/rss.h
 * declares it too, until its declaration there goes: issue 47.) */
json_object *ps_rss_json(const struct ps_rss *r, __u32 nqueues);

#endif /* PATHSCOPE_STATS_RENDER_RSS_REPORT_H */
