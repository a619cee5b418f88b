/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* The latency stages along the packet path, one per latency histogram the families
 * keep per queue: the rows of the latency budget (stats --latency) and what a
 * heatmap draws. Each family declares its stages in its descriptor (families.h). */
#ifndef PATHSCOPE_STATS_FAMILIES_STAGES_H
#define PATHSCOPE_STATS_FAMILIES_STAGES_H

#include <stdbool.h>
#include <stddef.h>

#include "stats/families/families.h"

/* A stage's part of the path, in the budget's order. */
enum ps_stage_path {
	PS_PATH_RX,   /* driver, stack, socket */
	PS_PATH_TX,   /* qdisc, driver */
	PS_PATH_NET,  /* round trips over the network */
	PS_PATH_HOST, /* this host's response */
};

/* A stage names where its histogram is in a snapshot (hist) and in a queue's
 * object of the JSON report (json), so that a recording of JSON lines and a
 * live snapshot give the same figures; ps_stages lists them in path order. */
struct ps_stage {
	const char *head;  /* budget table row: "RX d2s" */
	const char *key;   /* its name in JSON and on the command line: "driver_to_stack" */
	const char *alias; /* a short name accepted too, or NULL: "d2s" */
	const char *words; /* for titles: "driver to stack" */
	const char *where; /* its hooks: "XDP to tc ingress" */
	enum ps_stage_path path;
	bool tx; /* per TX queue (else per RX queue) */
	/* Its family's features and on(): set in ps_stages, not in the family's
	 * declaration of it. */
	__u32 feature;
	bool (*on)(const struct ps_snapshot *s);
	/* NULL, or whether the device has this stage at all when the feature is
	 * on (TX completion: not on veth, which hands skbs on). */
	bool (*has)(const struct ps_snapshot *s);
	ps_latency_fn hist;
	/* The JSON histogram(s) in a queue object, as key paths; their buckets
	 * are summed (socket reads: TCP and UDP). */
	const char *json[2][3];
};

/* Every family's stages (ps_families), in path order (rx, tx, net, host),
 * each part in the registry's order; filled once as the program starts. */
extern const struct ps_stage *const ps_stages;
extern size_t ps_nstages;

/* The stage named name (its key or alias; '-' for '_' accepted), or NULL. */
const struct ps_stage *ps_stage_find(const char *name);
/* "driver_to_stack (d2s), socket_read (sock), ..." for help and errors. */
void ps_stage_names(char *buf, size_t len);

/* Whether stage st has data in snapshot s: its feature on, and for TX
 * completion a device that completes (veth hands skbs on). */
bool ps_stage_on(const struct ps_stage *st, const struct ps_snapshot *s);

#endif /* PATHSCOPE_STATS_FAMILIES_STAGES_H */
