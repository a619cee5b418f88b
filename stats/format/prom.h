/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Prometheus text format 0.0.4, the pieces every family uses: label sets, one family
 * header (HELP and TYPE with its first sample), samples, histograms with power-of-two
 * edges, and the per-queue iteration shared by the families that count per queue slot. */
#ifndef PATHSCOPE_STATS_FORMAT_PROM_H
#define PATHSCOPE_STATS_FORMAT_PROM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <linux/types.h>

#include "stats/format/prom_common.h"
#include "stats/read/snapshot.h"

struct ps_prom_pb;

/* The exposition being written and the family being written in it: the
 * text format on out, or the protobuf one when pb is set (prom_pb.h). */
struct ps_prom {
	FILE *out;
	struct ps_prom_pb *pb;
	const char *name, *type, *help;
	bool header_done;
	__u32 queue_detail; /* PS_F_* whose families go per queue (0: all per interface) */
	bool no_peers;	    /* no per-peer families (they name other hosts) */
};

/* Are the families of feature f per queue in this exposition? */
bool ps_prom_per_queue(const struct ps_prom *p, __u32 feature);

/* iface="NAME" (a fresh set). */
void ps_lbl_iface(struct ps_lbl *l, const struct ps_snapshot *s);
/* iface, queue ("0".."N-1", or "other" for the last slot). */
void ps_lbl_queue(struct ps_lbl *l, const struct ps_snapshot *s, unsigned int q);

const char *ps_prom_fmt_u128(char *buf, size_t len, ps_u128 v);
/* Nanoseconds as exact decimal seconds: 1.5, 0.000001023, 34. */
const char *ps_prom_fmt_seconds(char *buf, size_t len, ps_u128 ns);

/* Start a family; its header is written with its first sample, so a family
 * without samples writes nothing. */
void ps_prom_family(struct ps_prom *p, const char *name, const char *type, const char *help);
void ps_prom_sample(struct ps_prom *p, const char *suffix, const struct ps_lbl *l,
		    const char *value);
void ps_prom_sample_u(struct ps_prom *p, const struct ps_lbl *l, ps_u128 v);
void ps_prom_sample_seconds(struct ps_prom *p, const struct ps_lbl *l, ps_u128 ns);
/* A sample with one more label. */
void ps_prom_sample_u1(struct ps_prom *p, const struct ps_lbl *base, const char *key,
		       const char *val, ps_u128 v);

/* Histograms use a fixed set of power-of-two edges per family, so that every
 * series keeps the same buckets. The log-linear buckets of hist.h have every
 * power of two as an edge, so the count of values below 2^k is exact; the
 * values are integers (bytes, segments, nanoseconds), so "below 2^k" is
 * "less than or equal to 2^k - 1", and that is the le label. The top edge is
 * 2^(bits - 1): the last bucket also holds clamped values. */

/* Latencies: ns, exported in seconds, edges ~1 us .. ~34 s. */
extern const struct ps_prom_edges ps_prom_lat_edges;

/* _bucket at every edge, +Inf, _sum (given), _count. */
void ps_prom_hist(struct ps_prom *p, const struct ps_lbl *base, const __u64 *b, unsigned int n,
		  const struct ps_prom_edges *e, ps_u128 sum);
/* A latency histogram (ns, ~1 us .. ~34 s), _sum estimated from bucket
 * midpoints (the datapath stores no sum). */
void ps_prom_lat_hist(struct ps_prom *p, const struct ps_lbl *base, const __u64 *b);
/* The sum of a histogram estimated from its bucket midpoints. */
ps_u128 ps_prom_est_sum(const __u64 *b, unsigned int n);

/* ---- per queue slot ------------------------------------------------------ */

/* Detail (serve --detail, --queue-detail): what differs between queues
 * (packets, bytes, CE, drops, the matched and expired samples of the sampled
 * latencies) is exported per queue at every level. Everything else of a
 * feature (histograms, classes, codepoints, ...) is exported per queue only
 * when that feature is in ps_prom.queue_detail; otherwise once per interface
 * (and hook), summed over the queues, without a queue label. The iteration
 * helpers below make that choice, so the families do not: their slot
 * functions get q == nslots for "all queues" (families.h's convention). */

/* A family's per-queue array in a snapshot. */
struct ps_prom_slots {
	bool (*on)(const struct ps_snapshot *s);	  /* the family has data here */
	const void *(*base)(const struct ps_snapshot *s); /* nslots values of size bytes */
	size_t size;
	/* Counted by the hooks' programs, which measure only the queues of
	 * --queues (and not "other"); the tracepoint probes see every queue. */
	bool selected_only;
	__u32 feature; /* its PS_F_* bit: per queue when in queue_detail */
};

/* How a family is split (flags of the iteration helpers). */
#define PS_PROM_PER_QUEUE 1u /* per queue at every level: what differs between queues */
#define PS_PROM_TC_ONLY	  2u /* hooks: leave out the XDP hook */

/* Is queue slot q measured by the hooks (all queues, or one of --queues)? */
bool ps_prom_slot_measured(const struct ps_snapshot *s, unsigned int q);

/* q is a queue slot, or nslots: the sum of all slots (the interface). */
typedef void (*ps_prom_slot_fn)(struct ps_prom *p, const struct ps_lbl *l,
				const struct ps_snapshot *s, unsigned int q);

/* fn for every snapshot the family has data in: per queue slot with the
 * labels iface and queue, or once with q == nslots and the label iface
 * (flags: PS_PROM_PER_QUEUE, or the detail of k->feature decides). */
void ps_prom_each_slot(struct ps_prom *p, const struct ps_snapshot *snaps, int n,
		       const struct ps_prom_slots *k, unsigned int flags, ps_prom_slot_fn fn);

/* One sample per interface (label iface) whose snapshot on() says has the
 * family's data, of the value fn gives. */
void ps_prom_each_iface(struct ps_prom *p, const struct ps_snapshot *snaps, int n,
			bool (*on)(const struct ps_snapshot *s),
			__u64 (*fn)(const struct ps_snapshot *s));

/* A counter family: one __u64 at offset off of each slot's value; per
 * queue at every level, or as the detail of the slots' feature says. */
struct ps_prom_counter {
	const char *name, *help;
	size_t off;
	bool per_queue;
};
void ps_prom_slot_counters(struct ps_prom *p, const struct ps_snapshot *snaps, int n,
			   const struct ps_prom_slots *k, const struct ps_prom_counter *c,
			   size_t nc);

/* fn for every hook of every snapshot that has feature (0: always): per
 * measured queue slot with the labels iface, queue, hook and direction, or
 * once with the sum of the slots and the labels iface, hook and direction
 * (flags: PS_PROM_PER_QUEUE, or the detail of feature decides;
 * PS_PROM_TC_ONLY). */
typedef void (*ps_prom_hook_fn)(struct ps_prom *p, const struct ps_lbl *l,
				const struct ps_qstats *st);
void ps_prom_each_hook(struct ps_prom *p, const struct ps_snapshot *snaps, int n, __u32 feature,
		       unsigned int flags, ps_prom_hook_fn fn);

#define PS_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

#endif /* PATHSCOPE_STATS_FORMAT_PROM_H */
