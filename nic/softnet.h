/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Per-CPU backlog counters of /proc/net/softnet_stat (global, not per namespace). */
#ifndef PATHSCOPE_NIC_SOFTNET_H
#define PATHSCOPE_NIC_SOFTNET_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "nic/read.h" /* PS_NA */

struct ps_softnet_cpu {
	unsigned int cpu;	   /* column 13 when present (offline CPUs have no line), else the
				    * index of the line among the valid ones */
	bool cpu_from_kernel;	   /* cpu came from column 13 */
	uint64_t processed;	   /* column 1: packets taken off the backlog */
	uint64_t dropped;	   /* 2: backlog full (netdev_max_backlog) */
	uint64_t time_squeeze;	   /* 3: net_rx_action ran out of budget or time */
	uint64_t received_rps;	   /* 10: RPS IPIs received */
	uint64_t flow_limit_count; /* 11: flow limit drops */
	uint64_t backlog_len;	   /* 12: input + process queue length now */
				   /* PS_NA for the columns an older kernel does not print */
};

/*
 * Parse the text of /proc/net/softnet_stat into at most max entries and
 * return how many. A line that is not whitespace-separated hex numbers is
 * skipped; a short line leaves its missing columns PS_NA.
 */
int ps_softnet_parse(const char *text, struct ps_softnet_cpu *out, unsigned int max);

/* Read /proc/net/softnet_stat into a malloc'd array: the count, or -errno. */
int ps_softnet_read(struct ps_softnet_cpu **out);

/* [{"cpu", "processed", "dropped", "time_squeeze", "received_rps",
 *   "flow_limit_count", "backlog_len"}], PS_NA as null. */
json_object *ps_softnet_json(const struct ps_softnet_cpu *c, int n);
void ps_softnet_print(FILE *out, const struct ps_softnet_cpu *c, int n);

#endif /* PATHSCOPE_NIC_SOFTNET_H */
