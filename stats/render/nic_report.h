/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* pathscope nic's report of one NIC's facts, "n/a" where not available: as
 * text, and as JSON (stats --json's "nic" too). */
#ifndef PATHSCOPE_STATS_RENDER_NIC_REPORT_H
#define PATHSCOPE_STATS_RENDER_NIC_REPORT_H

#include <json-c/json.h>
#include <stdio.h>

#include "nic/facts.h"

void ps_nic_print(FILE *out, const struct ps_nic_facts *f);

/* {"ifname", "ifindex", "link", "channels", "rings", "features", "queues",
 *  "ethtool_stats", "<part>_na": reason or null}; n/a values and parts are
 *  JSON null. */
json_object *ps_nic_json(const struct ps_nic_facts *f);

#endif /* PATHSCOPE_STATS_RENDER_NIC_REPORT_H */
