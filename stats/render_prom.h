/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Prometheus text exposition (format 0.0.4) of snapshots: every counter and
 * histogram of the pinned maps, plus what the caller knows beside them
 * (build, liveness, BPF run time). Pure: it reads no kernel state.
 */
#ifndef PATHSCOPE_RENDER_PROM_H
#define PATHSCOPE_RENDER_PROM_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "stats/snapshot.h"

#define PS_PROM_CONTENT_TYPE "text/plain; version=0.0.4; charset=utf-8"

/* Run time of one BPF program of an attachment (kernel.bpf_stats_enabled). */
struct ps_prom_prog {
	char ifname[16];
	char program[64]; /* its pin name: xdp_prog, tci_link, k_napi_poll ... */
	uint64_t run_time_ns;
	uint64_t run_cnt;
};

/* An interface being served, whether or not its snapshot could be read. */
struct ps_prom_iface {
	char ifname[16];
	bool up; /* the attachment is live */
};

struct ps_prom_extra {
	const char *version;
	unsigned int abi;
	int bpf_stats_enabled; /* 1, 0, or -1: unknown (not exported) */
	const struct ps_prom_prog *progs;
	int nprogs;
	const struct ps_prom_iface *ifaces;
	int nifaces;
};

/* Write one exposition of n snapshots; extra may be NULL. */
void ps_render_prom(FILE *out, const struct ps_snapshot *snaps, int n,
		    const struct ps_prom_extra *extra);

#endif /* PATHSCOPE_RENDER_PROM_H */
