/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* pathscope nic's placement section: where each queue runs (nic/placement.h),
 * as a table and as JSON. */
#ifndef PATHSCOPE_STATS_RENDER_PLACEMENT_REPORT_H
#define PATHSCOPE_STATS_RENDER_PLACEMENT_REPORT_H

#include <json-c/json.h>
#include <stdio.h>

#include "nic/placement.h"

void ps_placement_print(FILE *out, const struct ps_nic_placement *p);
json_object *ps_placement_json(const struct ps_nic_placement *p);

#endif /* PATHSCOPE_STATS_RENDER_PLACEMENT_REPORT_H */
