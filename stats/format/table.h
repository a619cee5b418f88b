/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Table cells every family uses: numbers, rates, latencies, queue labels. */
#ifndef PATHSCOPE_STATS_FORMAT_TABLE_H
#define PATHSCOPE_STATS_FORMAT_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/types.h>

#include "stats/format/duration.h"
#include "stats/read/snapshot.h"

/* A latency in ns as a short human string (850ns, 45.3us, 12.1ms, 1.20s), or
 * "-" when count is 0. */
void ps_fmt_ns(char *buf, size_t len, __u64 ns, __u64 count);
/* Percentile pct (0 < pct <= 100) of a latency histogram, or its maximum
 * for PS_PCT_MAX, as ps_fmt_ns ("-" when the histogram is empty). A
 * percentile above p50 and below p100 from fewer samples than it needs (p90:
 * 10, p99: 100, p99.9: 1000) reads "n<10", "n<100", "n<1000", not a value. */
#define PS_PCT_MAX 0.0
void ps_fmt_lat(char *buf, size_t len, const __u64 *lat_hist, double pct);

/* A rate with an SI prefix: 950, 1.20k, 3.36M... followed by unit. */
void ps_fmt_si(char *buf, size_t len, double v, const char *unit);

/* v in decimal, or "-" when !have. */
void ps_fmt_u64(char *buf, size_t len, __u64 v, bool have);

/* The table label of queue slot q: its number, or "other" for the last slot. */
void ps_queue_label(const struct ps_snapshot *s, unsigned int q, char *buf, size_t len);

#endif /* PATHSCOPE_STATS_FORMAT_TABLE_H */
