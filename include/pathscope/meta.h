/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* What pathscope attached to one interface, pinned as a one-entry array map ("meta")
 * next to the stats maps, so that detach, status and stats know it after the loader
 * has exited. User space only, but persisted: a layout change bumps PS_ABI_VERSION. */
#ifndef PATHSCOPE_META_H
#define PATHSCOPE_META_H

#include "abi.h"

/* CHAIN: pathscope's XDP program took over the interface from another one,
 * which it tail-calls; JOIN: it sits in a slot of someone's root program
 * array and tail-calls the slots after it. */
enum ps_xdp_mode { PS_XDP_NONE, PS_XDP_NATIVE, PS_XDP_SKB, PS_XDP_CHAIN, PS_XDP_JOIN };
enum ps_tc_mode { PS_TC_NONE, PS_TC_TCX, PS_TC_CLSACT };

#define PS_META_CREATED_CLSACT	(1U << 0) /* detach may remove the clsact qdisc */
#define PS_META_NO_COMPLETION	(1U << 1) /* the driver hands skbs on (veth): no TX completion */
#define PS_META_TRACEPOINTS	(1U << 2) /* txlat probes on classic tracepoints, not tp_btf */
#define PS_META_ATTACHING	(1U << 3) /* attach in progress by loader_pid (or killed) */
#define PS_META_TCP_RX_XDP	(1U << 4) /* tcp: XDP matches arriving segments, not tc ingress */
#define PS_META_MADE_LIBXDP_DIR (1U << 5) /* /sys/fs/bpf/xdp was made by this attach's libxdp */
#define PS_META_BY_SERVE	(1U << 6) /* attached by serve, which detaches it on exit */
#define PS_META_RX_HASH		(1U << 7) /* XDP device-bound: flows' RX hash, firsthop's timestamp */

struct ps_meta {
	__u32 abi_version;
	__u32 ifindex;
	__u64 netns_ino; /* inode of the network namespace of ifindex */
	char ifname[16];
	__u32 nqueues; /* per-queue map slots = nqueues + 1 */
	__u32 features;
	__u32 all_queues;
	__u32 xdp_mode;
	__u32 tc_mode;
	__u32 flags;
	__u32 xdp_prog_id;
	__u32 tc_prog_id[2];	   /* ingress, egress */
	__u32 tc_prio;		   /* clsact filter priority (handle PS_TC_HANDLE) */
	__u32 rx_queue_base;	   /* tc ingress: RX queue = queue_mapping - base */
	__u64 attach_realtime_ns;  /* CLOCK_REALTIME at attach */
	__u64 attach_monotonic_ns; /* CLOCK_MONOTONIC at attach, for rates */
	__u64 queue_mask[PS_QMASK_WORDS];
	__u32 tx_sample_every; /* txlat: 1 in N transmitted skbs timed (1: all) */
	__u32 chain_prog_id;   /* chain: the program pathscope took over from */
	__u32 chain_flags;     /* chain: the XDP_FLAGS_*_MODE both are attached with */
	__u32 join_slot;       /* join: pathscope's slot in the root program array */
	char join_path[128];   /* join: the pinned root program array */
	__u32 loader_pid;      /* the process that attached (PS_META_ATTACHING) */
	/* RX and TX queues in use at attach (ethtool channels; 0: not known),
	 * to tell when they changed: on veth no XDP program runs on an RX queue
	 * added while it is attached. */
	__u16 rx_queues_at_attach;
	__u16 tx_queues_at_attach;
	/* tcp: peer subnets are the remote address's first N bits. */
	__u8 tcp_prefix4;
	__u8 tcp_prefix6;
	__u16 fh_irqs; /* firsthop: RX queues whose own IRQ the probes know */
	/* flows: 1 in flow_sample frames sampled (1: all); counts scale by it. */
	__u32 flow_sample;
	/* firsthop: 1 in softirq_sample NET_RX runs per CPU has its wait timed. */
	__u32 softirq_sample;
};

#define PS_TC_HANDLE	   0x7073 /* "ps" */
#define PS_TC_DEFAULT_PRIO 1

#endif /* PATHSCOPE_META_H */
