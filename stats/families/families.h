/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* The measurement families, one module each: a family's module owns all its outputs
 * and declares them once, in the descriptor at the end of its file (struct
 * ps_family); the registry (registry.c) lists them in path order for every output. */
#ifndef PATHSCOPE_STATS_FAMILIES_FAMILIES_H
#define PATHSCOPE_STATS_FAMILIES_FAMILIES_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "stats/read/flow_table.h"
#include "stats/format/prom.h"
#include "stats/read/report.h"

struct ps_stage;

/* A family's metric is born in its BPF header (include/pathscope/) or probe
 * (probes/), stored in its part of the ABI (include/pathscope/abi.h), and
 * shown by its module here. The table, --hist, JSON, Prometheus, the latency
 * budget and the heatmap stages (stats/render/, stages.h) all walk the
 * registry; the formats are shared helpers (stats/format/).
 *
 * Names: a family, its file and its descriptor are named as its feature
 * (attach --features: icmp, d2s, txlat, kernel, ...; counters, sizes, nic
 * and rss have no feature of their own); the descriptor holds the names
 * users already have (json_key "icmp_echo", "driver_to_stack",
 * "tx_latency"; the pathscope_* metric names). The BPF headers and the ABI
 * keep theirs (icmp.bpf.h, struct ps_icmp_qstats for icmp), so that the BPF
 * objects stay byte for byte the same.
 *
 * Conventions: q is a queue slot, q == nslots means all queues; on() says
 * whether a snapshot has the family's data; slot_active() whether slot q
 * has anything to show (the JSON lists queue "other" when one has).
 *
 * One family: what it is and each of its outputs; NULL (0) for what it
 * lacks. The outputs call each in the registry's order. */
struct ps_family {
	const char *name; /* its file, stats/families/NAME.c */
	/* The PS_F_* bits that turn its measurements on; 0: always on (the NIC
	 * facts). */
	__u32 features;
	/* The snapshot has its data; NULL: always. It gates the JSON parts
	 * (each other output checks for itself, and prints nothing without). */
	bool (*on)(const struct ps_snapshot *s);
	/* Slot q has something to show (a queue's data, "other" listed). */
	bool (*slot_active)(const struct ps_snapshot *s, unsigned int q);
	/* Its section of an interface in the table, and a note printed after
	 * every family's section. */
	void (*table)(FILE *out, const struct ps_report *r);
	void (*table_note)(FILE *out, const struct ps_report *r);
	/* Its histograms in --hist. */
	void (*hist)(FILE *out, const struct ps_report *r);
	/* Its part of each queue's JSON object (and of "totals"): json_key with
	 * queue_json's value; or keys of its own added by queue_json_into (the
	 * hooks' counters, the NIC's "nic" and "qdisc"). */
	const char *json_key;
	json_object *(*queue_json)(const struct ps_report *r, unsigned int q);
	void (*queue_json_into)(json_object *o, const struct ps_report *r, unsigned int q);
	/* Its keys in the interface's JSON object, after "latency". */
	void (*iface_json)(json_object *o, const struct ps_snapshot *s);
	/* Its Prometheus metric families, each with every interface's samples. */
	void (*prom)(struct ps_prom *p, const struct ps_snapshot *s, int n);
	/* Its latency stages (stages.h), gathered in path order in ps_stages. */
	const struct ps_stage *stages;
	size_t nstages;
};

/* The registry: every family, in path order (registry.c). */
extern const struct ps_family *const ps_families[];
extern const size_t ps_nfamilies;

/* ---- what families and analyses use of one another ----------------------- */

/* A latency histogram of queue slot q (q == nslots: all), PS_LAT_BUCKETS
 * buckets. */
typedef void (*ps_latency_fn)(const struct ps_snapshot *s, unsigned int q, __u64 *out);

/* sizes.c: its columns in the counters' hook table, its keys ("size",
 * "gro") in a hook's JSON totals. */
void ps_sizes_table_header(FILE *out);
void ps_sizes_table_cells(FILE *out, const struct ps_meta *m, int hook, const struct ps_qstats *t);
void ps_sizes_json(json_object *total, const struct ps_qstats *t, __u32 features, int hook);

/* d2s.c and sock.c, for pathscope check's latency layers. */
bool ps_d2s_on(const struct ps_snapshot *s);
void ps_d2s_latency(const struct ps_snapshot *s, unsigned int q, __u64 *out);
bool ps_sock_on(const struct ps_snapshot *s);
void ps_sock_latency(const struct ps_snapshot *s, unsigned int q, __u64 *out);

/* placement.c: slot q's XDP frames by CPU over the report's window (q ==
 * nslots: every slot), into out[ncpus]; for the placement verdict. */
void ps_placement_window(const struct ps_report *r, unsigned int q, __u64 *out);

/* firsthop.c: slot q's first-hop counts over the report's window (q ==
 * nslots: every slot), into out; false (out untouched) when feature
 * firsthop is off. For the placement verdict. */
bool ps_firsthop_window(const struct ps_report *r, unsigned int q, struct ps_fh_qstats *out);

/* ---- flows (flows.c): per RX queue the distinct flows (HyperLogLog) and
 * the top flows, sampled at XDP; born in flows.bpf.h, stored in
 * ps_flows_qstate and the flow table; read by stats/flows.c (whose API
 * `pathscope flows` uses too). ps_flows_on() is in stats/flows.h. */
void ps_flows_table(FILE *out, const struct ps_report *r);
json_object *ps_flows_json(const struct ps_report *r, unsigned int q);
/* A queue's RX hash types, {"l4", "l3", "none"}; NULL (null) when not measured. */
json_object *ps_flows_rx_hash_json(const struct ps_flows_q *q);
bool ps_flows_slot_active(const struct ps_snapshot *s, unsigned int q);
void ps_flows_prom(struct ps_prom *p, const struct ps_snapshot *s, int n);

#endif /* PATHSCOPE_STATS_FAMILIES_FAMILIES_H */
