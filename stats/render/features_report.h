/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* pathscope features' report of what loader/features.c probed. */
#ifndef PATHSCOPE_STATS_RENDER_FEATURES_REPORT_H
#define PATHSCOPE_STATS_RENDER_FEATURES_REPORT_H

#include <stdio.h>

#include "loader/features.h"

/* A table: each capability, here or not, and what pathscope uses. */
void ps_features_table(FILE *out, const struct ps_features *f);
/* One JSON object: the capabilities and "uses". */
void ps_features_json(FILE *out, const struct ps_features *f);

#endif /* PATHSCOPE_STATS_RENDER_FEATURES_REPORT_H */
