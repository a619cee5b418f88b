/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Percentiles and totals computed from log-linear buckets (hist.h), and
 * the bar histogram of the tables. */
#ifndef PATHSCOPE_STATS_FORMAT_HIST_H
#define PATHSCOPE_STATS_FORMAT_HIST_H

#include <stdint.h>
#include <stdio.h>
#include <linux/types.h>

uint64_t ps_hist_count(const __u64 *buckets, unsigned int n);

/* The value at percentile pct (0 < pct <= 100): the midpoint of the bucket
 * holding that rank, so within 1/16 of the true value (exact below 16).
 * 0 for an empty histogram. */
uint64_t ps_hist_percentile(const __u64 *buckets, unsigned int n, double pct);

/* Largest value the histogram may hold: the top of its highest non-empty
 * bucket. 0 for an empty histogram. */
uint64_t ps_hist_max(const __u64 *buckets, unsigned int n);

/* Print one histogram in the seed tools' style, at power-of-two resolution
 * (JSON keeps the full log-linear resolution):
 *   [1K, 2K)     275351 |@@@@@@@@@@@@@@@@@@@@                    |
 * unit "ns" prints its bounds in human units: [1.05ms, 2.1ms). */
void ps_print_hist(FILE *out, const __u64 *buckets, unsigned int n, const char *unit);

#endif /* PATHSCOPE_STATS_FORMAT_HIST_H */
