/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* The outputs of pathscope stats and serve, each composed from the families in the
 * registry's order: the table, --hist, the JSON document (man/pathscope-json.7) and the
 * Prometheus exposition (format 0.0.4). Pure: they read no kernel state. */
#ifndef PATHSCOPE_STATS_RENDER_RENDER_H
#define PATHSCOPE_STATS_RENDER_RENDER_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "stats/read/prog_stats.h"
#include "stats/read/report.h"

void ps_render_table(FILE *out, const struct ps_report *r, int n);
void ps_render_hist(FILE *out, const struct ps_report *r, int n);
/* The report's "schema": raised when a key is removed or changes meaning
 * (pathscope-json(7)); a new key does not raise it. */
#define PS_JSON_SCHEMA 2
void ps_render_json(FILE *out, const struct ps_report *r, int n);
/* Whether the JSON report lists queue "other" (packets on queues >=
 * nqueues, or of unknown queue): some family has something on it. */
bool ps_render_json_other(const struct ps_snapshot *s);
/* The latency budget: a table (stats --latency), and its JSON object (in
 * every interface of ps_render_json, as "latency"). */
void ps_render_latency(FILE *out, const struct ps_report *r, int n);
json_object *ps_latency_json(const struct ps_snapshot *s);
/* The heat strip of one latency stage (stats --heatmap STAGE): a row per
 * queue, a column per bucket, shaded by the window's counts. */
struct ps_stage;
void ps_render_heat(FILE *out, const struct ps_report *r, int n, const struct ps_stage *st);

#define PS_PROM_CONTENT_TYPE "text/plain; version=0.0.4; charset=utf-8"

/* An interface being served, whether or not its snapshot could be read. */
struct ps_prom_iface {
	char ifname[16];
	bool up; /* the attachment is live */
};

/* What the caller knows beside the snapshots: build, liveness, BPF run time,
 * and the detail of the export. */
struct ps_prom_extra {
	const char *version;
	unsigned int abi;
	int bpf_stats_enabled; /* 1, 0, or -1: unknown (not exported) */
	const struct ps_prom_prog *progs;
	int nprogs;
	const struct ps_prom_iface *ifaces;
	int nifaces;
	/* The features (PS_F_*) whose families are exported per queue, beside
	 * what is per queue at every level (packets, bytes, CE, drops, matched
	 * and expired samples); the others per interface and hook. 0: serve's
	 * default (--detail interface), PS_F_ALL: --detail queue. */
	__u32 queue_detail;
	/* The protobuf exposition with native histograms (serve
	 * --native-histograms, to a scraper that asks for it), not the text. */
	bool protobuf;
	/* Leave out the per-peer families (ICMP peers, TCP peer subnets): they
	 * name the hosts this one talks to (serve --no-peer-metrics). */
	bool no_peers;
};

/* Write one exposition of n snapshots; extra may be NULL (detail 0, text).
 * 0, or -1 if the protobuf writer failed (memory). */
int ps_render_prom(FILE *out, const struct ps_snapshot *snaps, int n,
		   const struct ps_prom_extra *extra);

#endif /* PATHSCOPE_STATS_RENDER_RENDER_H */
