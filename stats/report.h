/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * One report = one interface over one window: the cumulative counts of the
 * current snapshot and the rates over the window since the previous one
 * (or since attach, for the first report). The renderers print reports as
 * a table, as histograms, or as JSON.
 */
#ifndef PATHSCOPE_REPORT_H
#define PATHSCOPE_REPORT_H

#include <stdbool.h>
#include <stdio.h>

#include "stats/snapshot.h"

struct ps_report {
	const struct ps_snapshot *cur;
	const struct ps_snapshot *prev; /* NULL: the window starts at attach */
	double window_s;
};

/* The window's counts of hook at queue slot q (q == nslots: all queues). */
void ps_report_window(const struct ps_report *r, int hook, unsigned int q, struct ps_qstats *out);
/* The cumulative counts (q == nslots: all queues). */
void ps_report_total(const struct ps_report *r, int hook, unsigned int q, struct ps_qstats *out);
void ps_report_init(struct ps_report *r, const struct ps_snapshot *cur,
		    const struct ps_snapshot *prev);

/* Derived figures shared by the renderers. */
double ps_avg_segs(const struct ps_qstats *s);		/* segments per skb */
double ps_avg_gso_size(const struct ps_qstats *s);	/* over multi-segment skbs */
__u64 ps_ip_packets(const struct ps_qstats *s);		/* sum of ECN counts */
__u64 ps_ecn_count(const struct ps_qstats *s, int ecn); /* IPv4 + IPv6 */
__u64 ps_segments(const struct ps_qstats *s);		/* packets, GSO/GRO skbs split */

void ps_render_table(FILE *out, const struct ps_report *r, int n);
void ps_render_hist(FILE *out, const struct ps_report *r, int n);
void ps_render_json(FILE *out, const struct ps_report *r, int n);

/* ICMP echo section of the table and of --hist (render_echo.c). */
void ps_render_echo_table(FILE *out, const struct ps_snapshot *s);
void ps_render_echo_hist(FILE *out, const struct ps_snapshot *s);

/* Driver-to-stack section of the table and of --hist (render_d2s.c). */
void ps_render_d2s_table(FILE *out, const struct ps_snapshot *s);
void ps_render_d2s_hist(FILE *out, const struct ps_snapshot *s);

/* TX latency section of the table and of --hist (render_txlat.c). */
void ps_render_txlat_table(FILE *out, const struct ps_snapshot *s);
void ps_render_txlat_hist(FILE *out, const struct ps_snapshot *s);

/* Kernel path section of the table (render_kernel.c; feature kernel). */
void ps_render_kernel_table(FILE *out, const struct ps_report *r);

/* NIC summary and driver per-queue counters; per-CPU softirq and softnet
 * (render_nic.c). */
void ps_render_nic_table(FILE *out, const struct ps_snapshot *s);
void ps_render_cpu_table(FILE *out, const struct ps_report *r);

/* The table label of queue slot q: its number, or "other" for the last slot. */
void ps_queue_label(const struct ps_snapshot *s, unsigned int q, char *buf, size_t len);

/* A latency in ns as a short human string (850ns, 45.3us, 12.1ms, 1.20s), or
 * "-" when count is 0. */
void ps_fmt_ns(char *buf, size_t len, __u64 ns, __u64 count);

/* Print one histogram in the seed tools' style, at power-of-two resolution
 * (JSON keeps the full log-linear resolution):
 *   [1K, 2K)     275351 |@@@@@@@@@@@@@@@@@@@@                    |  */
void ps_print_hist(FILE *out, const __u64 *buckets, unsigned int n, const char *unit);

#endif /* PATHSCOPE_REPORT_H */
