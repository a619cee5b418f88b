/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* The layers that see the same packets (XDP, GRO and stack tracepoints, tc, the
 * driver's link and per-queue stats; tc egress and net_dev_xmit), read twice and
 * compared pair by pair: `pathscope check` (cli/check.c). */
#ifndef PATHSCOPE_STATS_ANALYSIS_CHECK_H
#define PATHSCOPE_STATS_ANALYSIS_CHECK_H

#include <stdbool.h>

#include "loader/kernel_probes.h"
#include "nic/read.h"
#include "stats/read/kernel_path.h"
#include "stats/read/snapshot.h"

/* What one read of every layer gives. */
struct ps_check_layers {
	struct ps_snapshot snap;
	struct ps_kern_snapshot kern;
	struct ps_nic_facts nic;
	bool nic_ok;
};

/* Read every layer of the attachment pinned in dir, the kernel probes'
 * maps from fds: 0, or -1 after one line on stderr. */
int ps_check_read(const char *dir, const struct ps_kern_fds *fds, struct ps_check_layers *l);
void ps_check_free(struct ps_check_layers *l);

/* The layers are read one after the other: a packet crossing them meanwhile
 * is counted by some and not others. Read until two reads in a row counted
 * nothing between them (at most PS_CHECK_READS reads; under steady traffic
 * the last), so an interval's edge falls between packets. 0, or -1 after
 * one line on stderr. */
#define PS_CHECK_READS 5
int ps_check_read_settled(const char *dir, const struct ps_kern_fds *fds,
			  struct ps_check_layers *l);

/* Print the pairs of layers over the interval between two reads (a table,
 * or one JSON object) on stdout; true when some pair differs. */
bool ps_check_report(const struct ps_check_layers *before, const struct ps_check_layers *after,
		     double secs, bool json);

#endif /* PATHSCOPE_STATS_ANALYSIS_CHECK_H */
