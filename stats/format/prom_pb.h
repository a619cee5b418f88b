/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* The Prometheus protobuf exposition (delimited MetricFamily messages, metrics.proto),
 * what `serve --native-histograms` answers: prom.h's text helpers hand their samples
 * here when ps_prom.pb is set, so the families write the same calls for both formats. */
#ifndef PATHSCOPE_STATS_FORMAT_PROM_PB_H
#define PATHSCOPE_STATS_FORMAT_PROM_PB_H

#include <stdio.h>

#include "stats/format/prom_common.h"

#define PS_PROM_PB_CONTENT_TYPE                                                      \
	"application/vnd.google.protobuf; proto=io.prometheus.client.MetricFamily; " \
	"encoding=delimited"

#define PS_PROM_NATIVE_SCHEMA 4
/* The zero bucket's half width, as Prometheus' Go client has it by default:
 * below every value but 0 that a histogram can hold (1 ns = 1e-9 s). */
#define PS_PROM_NATIVE_ZERO_THRESHOLD 2.938735877055719e-39 /* 2^-128 */

struct ps_prom_pb;

/* A writer of delimited MetricFamily messages to out; NULL when out of memory. */
struct ps_prom_pb *ps_prom_pb_new(FILE *out);
/* Write the family collected so far (if it has metrics), then start a new one. */
void ps_prom_pb_family(struct ps_prom_pb *pb, const char *name, const char *type, const char *help);
/* A counter, gauge or untyped sample (suffix ""), or a summary's _sum or _count
 * (merged into the summary of the same labels). value: as the text format
 * writes it. */
void ps_prom_pb_sample(struct ps_prom_pb *pb, const char *suffix, const struct ps_lbl *l,
		       const char *value);
/* A histogram of n log-linear buckets b (hist.h): classic buckets at e's edges
 * and the native buckets. sum: in the values' unit (ns when e->ns).
 * The native histogram is of schema PS_PROM_NATIVE_SCHEMA (16 buckets per
 * power of two): each log-linear bucket of hist.h goes whole into the native
 * bucket that holds its midpoint. Schema 4's buckets are narrower than any of
 * hist.h's (1/16 of a power of two against 1/15 to 1/8), so no two share a
 * native bucket and none is lost; a value is placed at most one native bucket
 * width (4.4%) from its log-linear bucket. The value 0 (bucket 0) goes to the
 * zero bucket. Latencies are in seconds there as in the text format, so their
 * power-of-two nanosecond edges are no native edges; sizes and segments are
 * integers, and every power of two 2^k is also an edge of schema 4: the
 * native count of values <= 2^k is the text format's le="2^k - 1" for
 * k >= 4 (a value equal to 2^k shares its log-linear bucket with 2^k + 1 and
 * goes above), and exact below 16, where the buckets are single values. */
void ps_prom_pb_hist(struct ps_prom_pb *pb, const struct ps_lbl *l, const __u64 *b, unsigned int n,
		     const struct ps_prom_edges *e, ps_u128 sum);
/* Write the last family and free pb. 0, or -1 if anything failed (memory,
 * packing, writing): then the output is incomplete. */
int ps_prom_pb_end(struct ps_prom_pb *pb);

/* The native bucket index of value v > 0 at schema s (0..8): the i with
 * 2^((i-1)/2^s) < v <= 2^(i/2^s). */
int ps_prom_native_index(double v, int schema);

#endif /* PATHSCOPE_STATS_FORMAT_PROM_PB_H */
