/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* NIC facts as JSON: pathscope nic --json, and stats --json's "nic". */
#ifndef PATHSCOPE_STATS_FORMAT_NIC_JSON_H
#define PATHSCOPE_STATS_FORMAT_NIC_JSON_H

#include <json-c/json.h>

#include "nic/facts.h"

/* {"ifname", "ifindex", "link", "channels", "rings", "features", "queues",
 *  "ethtool_stats", "<part>_na": reason or null}; n/a values and parts are
 *  JSON null. */
json_object *ps_nic_json(const struct ps_nic_facts *f);

#endif /* PATHSCOPE_STATS_FORMAT_NIC_JSON_H */
