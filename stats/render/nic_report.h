/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* pathscope nic's report of one NIC's facts, "n/a" where not available; its
 * JSON is stats/format/nic_json.h's. */
#ifndef PATHSCOPE_STATS_RENDER_NIC_REPORT_H
#define PATHSCOPE_STATS_RENDER_NIC_REPORT_H

#include <json-c/json.h>
#include <stdio.h>

#include "nic/facts.h"
#include "stats/format/nic_json.h"

void ps_nic_print(FILE *out, const struct ps_nic_facts *f);

#endif /* PATHSCOPE_STATS_RENDER_NIC_REPORT_H */
