/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* JSON pieces every family uses (json-c). */
#ifndef PATHSCOPE_STATS_FORMAT_JSON_H
#define PATHSCOPE_STATS_FORMAT_JSON_H

#include <json-c/json.h>
#include <linux/types.h>
#include <stdbool.h>

#include <stdio.h>

void ps_json_add_u64(json_object *o, const char *key, __u64 v);

/* o on one line, then a newline: plain, and "/" not escaped ("/sys/fs/bpf",
 * not "\/sys\/fs\/bpf"; both are valid JSON, the first is what people read). */
void ps_json_print(FILE *out, json_object *o);
/* From now on ps_json_print indents (pathscope -p / --pretty). */
void ps_json_set_pretty(bool on);

/* A double printed with a fixed number of decimals, not %.17g. */
json_object *ps_json_double(double v, int decimals);

/* {"names[0]": v[0], ...} */
json_object *ps_json_counts(const __u64 *v, const char *const *names, int n);

/* {"count", "p50", "p90", "p99", "p99_9", "max", "hist": [{"low", "high",
 * "count"}]} of a log-linear histogram; high is exclusive, null for the
 * clamped last bucket; the percentiles are null when it is empty. */
json_object *ps_json_dist(const __u64 *buckets, unsigned int n);

#endif /* PATHSCOPE_STATS_FORMAT_JSON_H */
