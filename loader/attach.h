/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* attach: load the programs, attach them, pin their state (detach.h undoes it). */
#ifndef PATHSCOPE_LOADER_ATTACH_H
#define PATHSCOPE_LOADER_ATTACH_H

#include <stdbool.h>
#include <linux/types.h>

#include "loader/attach_common.h"

struct ps_attach_opts {
	const char *ifname;
	const char *queues; /* NULL: all */
	__u32 features;
	bool no_xdp;
	bool no_tc;
	enum ps_xdp_request xdp_mode;
	bool xdp_chain;	      /* take over the attached XDP program and tail-call it */
	const char *xdp_join; /* "PINNED_PROG_ARRAY:SLOT": join a root array instead */
	enum ps_tc_request tc_mode;
	unsigned int tc_prio;
	enum ps_probe_request probe_mode;
	unsigned int tx_sample_every; /* txlat: time 1 in N skbs; 0 or 1: all */
	bool tcp_rx_xdp;	      /* tcp: match arriving segments at XDP, not tc ingress */
	bool peer_prefix_set;	      /* tcp: peer subnet prefix lengths given */
	unsigned int peer_prefix4;    /* 0..32 (default PS_TCP_PREFIX4) */
	unsigned int peer_prefix6;    /* 0..128 (default PS_TCP_PREFIX6) */
	unsigned int flow_sample;     /* flows: sample 1 in N frames; 0: the default */
	unsigned int softirq_sample;  /* firsthop: time 1 in N NET_RX runs; 0: the default */
	bool by_serve;		      /* serve attaches: a serve detaches it on exit */
};

/* Attach to opts->ifname (current network namespace). On any failure it
 * undoes what it did and returns -1 after printing one line. */
int ps_attach(const struct ps_attach_opts *opts);

#endif /* PATHSCOPE_LOADER_ATTACH_H */
