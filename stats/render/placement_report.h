/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* pathscope nic's placement section: where each queue runs (nic/placement.h),
 * as a table and as JSON; and in pathscope stats the placement verdict of
 * each RX queue (stats/analysis/placement_verdict.h). */
#ifndef PATHSCOPE_STATS_RENDER_PLACEMENT_REPORT_H
#define PATHSCOPE_STATS_RENDER_PLACEMENT_REPORT_H

#include <json-c/json.h>
#include <stdio.h>

#include "nic/placement.h"
#include "stats/read/report.h"

void ps_placement_print(FILE *out, const struct ps_nic_placement *p);
json_object *ps_placement_json(const struct ps_nic_placement *p);

/* stats: the verdict section, after RX QUEUES BY CPU (nothing when the
 * snapshot has no placement: another namespace, no XDP hook); its JSON
 * (NULL then), the interface's "placement_verdicts". */
void ps_placement_verdicts_print(FILE *out, const struct ps_report *r);
json_object *ps_placement_verdicts_json(const struct ps_report *r);

#endif /* PATHSCOPE_STATS_RENDER_PLACEMENT_REPORT_H */
