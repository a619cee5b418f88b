/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* A latency heatmap's data: one stage's histogram per queue and per interval, from a
 * recording of JSON reports (stats --interval S --json, serve --jsonl;
 * pathscope-json(7)) or from snapshots read live, which give the same. */
#ifndef PATHSCOPE_STATS_ANALYSIS_HEATMAP_H
#define PATHSCOPE_STATS_ANALYSIS_HEATMAP_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <linux/types.h>

#include "pathscope/abi.h"
#include "stats/families/stages.h"

#define PS_HEAT_MAX_PANELS (PS_MAX_QUEUES + 1) /* every queue, and "other" */
/* The JSON reports' schemas read: their histograms are the same in each. */
#define PS_HEAT_SCHEMA_MIN    1
#define PS_HEAT_SCHEMA_MAX    2
#define PS_HEAT_MAX_INTERVALS 1000000

/* The histograms are cumulative since attach, so each interval's counts are
 * the exact difference of two consecutive reports: nothing is lost between
 * intervals. The first report is the baseline; every later one closes an
 * interval. A count that goes down means the interface was attached anew:
 * that interval holds the new attachment's counts.
 *
 * One interval: its time, and each panel's histogram of it. */
struct ps_heat_interval {
	double t0, t1;	/* s since the baseline */
	unsigned int n; /* panels known when it closed (later ones had nothing) */
	__u64 **cell;	/* cell[p]: PS_LAT_BUCKETS counts, NULL if none */
};

struct ps_heat {
	/* What to draw; set before the first ps_heat_add. */
	const struct ps_stage *stage;
	char ifname[16]; /* "" until the first report (then the recording's only one) */
	bool whole;	 /* one panel of all queues ("totals"), not one per queue */

	unsigned int npanels;
	char (*panel)[16]; /* the queue of each panel: "0", "other", "all" */
	unsigned int nt;   /* intervals */
	struct ps_heat_interval *iv;
	uint64_t samples;		    /* the sum of every cell */
	unsigned int reattached;	    /* intervals that began with a new attachment */
	char first_time[32], last_time[32]; /* "time" of the baseline and of the last report */
	uint64_t nqueues;		    /* the interface's queues, in the last report */

	/* The previous and the current report's cumulative histogram per panel. */
	__u64 (*prev)[PS_LAT_BUCKETS], (*cur)[PS_LAT_BUCKETS];
	unsigned int cap_panels, cap_t;
	bool have_prev;
	double prev_attached_s, elapsed_s;
};

/* Interval t's histogram of panel p, or NULL when it has none. */
static inline const __u64 *ps_heat_cell(const struct ps_heat *h, unsigned int t, unsigned int p)
{
	return p < h->iv[t].n ? h->iv[t].cell[p] : NULL;
}

/* Take one JSON report (one line of a recording). 0 if used or without the
 * interface (skipped), else -1 with a one-line reason in err: a report of
 * another schema, several interfaces and no ifname chosen, too many queues
 * or intervals. */
int ps_heat_add(struct ps_heat *h, json_object *report, char *err, size_t errlen);
/* The same report into each of n heats (one per stage). */
int ps_heat_add_all(struct ps_heat *heats, size_t n, json_object *report, char *err, size_t errlen);
/* Read a whole recording, one report per line, into each of n heats. 0, or
 * -1 with err (the line number says where). */
int ps_heat_read(struct ps_heat *heats, size_t n, FILE *in, const char *name, char *err,
		 size_t errlen);
/* Take one snapshot of the interface, read live, into each of n heats: as
 * its JSON report would give, whose queues are the selected ones and, with
 * other, "other". 0, or -1 with err (too many queues or intervals, no
 * memory). */
struct ps_snapshot;
int ps_heat_add_snapshot(struct ps_heat *heats, size_t n, const struct ps_snapshot *s, bool other,
			 char *err, size_t errlen);
void ps_heat_free(struct ps_heat *h);

/* The histogram of one queue object's stage (the stage's JSON paths summed)
 * into out; false when the object has none (feature off). */
bool ps_heat_queue_hist(const struct ps_stage *st, json_object *queue, __u64 *out);

/* Rows (buckets) that hold a count in any cell: [*lo, *hi]; false if none. */
bool ps_heat_rows(const struct ps_heat *h, unsigned int *lo, unsigned int *hi);
/* The largest count of one cell. */
uint64_t ps_heat_max(const struct ps_heat *h);

#endif /* PATHSCOPE_STATS_ANALYSIS_HEATMAP_H */
