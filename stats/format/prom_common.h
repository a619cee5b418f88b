/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* What both Prometheus expositions share, below them (prom.c writes the text
 * format, prom_pb.c the protobuf one): label sets, the classic histogram
 * edges and the cumulative counts at them. */
#ifndef PATHSCOPE_STATS_FORMAT_PROM_COMMON_H
#define PATHSCOPE_STATS_FORMAT_PROM_COMMON_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

typedef unsigned __int128 ps_u128; /* cumulative counts of UINT64_MAX buckets */

/* A label set: escaped for the text format (a="x",b="y"), and as raw
 * pairs for the protobuf one (a\0x\0b\0y\0, npairs of them). */
struct ps_lbl {
	char s[768];
	size_t n;
	char raw[768];
	size_t rn;
	unsigned int npairs;
};

void ps_lbl_reset(struct ps_lbl *l);
/* Label values escape backslash, double quote and line feed. */
void ps_lbl_add(struct ps_lbl *l, const char *key, const char *val);
void ps_lbl_addu(struct ps_lbl *l, const char *key, unsigned long long v);

/* le = 2^k - 1 for k0 <= k <= k1; ns: values are ns, exported in seconds. */
struct ps_prom_edges {
	unsigned int k0, k1;
	bool ns;
};

/* The classic buckets: at most this many edges, +Inf included. */
#define PS_PROM_MAX_BUCKETS 66

/* The cumulative counts of b at e's edges (2^k - 1 for k = k0..k1), then at
 * +Inf (the total), into cum: k1 - k0 + 2 of them, which it returns. The one
 * place both expositions take their classic buckets from. */
unsigned int ps_prom_cumulative(const __u64 *b, unsigned int n, const struct ps_prom_edges *e,
				ps_u128 cum[PS_PROM_MAX_BUCKETS]);

#endif /* PATHSCOPE_STATS_FORMAT_PROM_COMMON_H */
