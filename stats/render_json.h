/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* JSON pieces shared by the renderers of each metric family. */
#ifndef PATHSCOPE_RENDER_JSON_H
#define PATHSCOPE_RENDER_JSON_H

#include <json-c/json.h>
#include <stdbool.h>
#include <linux/types.h>

#include "stats/report.h"

void ps_json_add_u64(json_object *o, const char *key, __u64 v);

/* {"count", "p50", "p90", "p99", "p99_9", "max", "hist": [...]} of a histogram. */
json_object *ps_json_dist(const __u64 *buckets, unsigned int n);

/* ICMP echo (render_echo.c): one queue slot (q == nslots: all), and the peers. */
json_object *ps_echo_json(const struct ps_report *r, unsigned int q);
json_object *ps_echo_peers_json(const struct ps_snapshot *s);
bool ps_echo_active(const struct ps_echo_qstats *e);

/* Driver-to-stack latency (render_d2s.c) of one queue slot (q == nslots: all). */
json_object *ps_d2s_json(const struct ps_report *r, unsigned int q);
bool ps_d2s_slot_active(const struct ps_snapshot *s, unsigned int q);

/* TX latency (render_txlat.c) of one queue slot (q == nslots: all). */
json_object *ps_txlat_json(const struct ps_report *r, unsigned int q);
bool ps_txlat_slot_active(const struct ps_snapshot *s, unsigned int q);

/* Kernel path (render_kernel.c): one queue slot (q == nslots: all), and the
 * interface-wide lists (NAPI instances, drops, XDP exceptions, softirq). */
json_object *ps_kernel_queue_json(const struct ps_snapshot *c, unsigned int q);
json_object *ps_kernel_json(const struct ps_snapshot *c);

/* The driver's view of queue q (render_nic.c): rx/tx NAPI id and qstats. */
json_object *ps_nic_queue_json(const struct ps_snapshot *c, unsigned int q);

#endif /* PATHSCOPE_RENDER_JSON_H */
