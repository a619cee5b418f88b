/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* pathscope nic's text report of one NIC's facts, "n/a" where not available. */
#ifndef PATHSCOPE_STATS_RENDER_NIC_REPORT_H
#define PATHSCOPE_STATS_RENDER_NIC_REPORT_H

#include <stdio.h>

#include "nic/nic.h"

void ps_nic_print(FILE *out, const struct ps_nic_facts *f);

#endif /* PATHSCOPE_STATS_RENDER_NIC_REPORT_H */
