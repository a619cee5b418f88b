/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* What one read of an attachment holds, apart from the reading (snapshot.c)
 * so that the readers of its parts (flow_table.c) fill it without depending
 * on the code that calls them. */
#ifndef PATHSCOPE_STATS_READ_SNAPSHOT_TYPES_H
#define PATHSCOPE_STATS_READ_SNAPSHOT_TYPES_H

#include <stdint.h>
#include <linux/types.h>

#include "pathscope/meta.h"
#include "nic/phc.h"

struct ps_kern_snapshot; /* stats/read/kernel_path.h */
struct ps_nic_facts;	 /* nic/facts.h */
struct ps_nic_placement; /* nic/placement.h */
struct ps_rss;		 /* nic/rss.h */
struct ps_softnet_cpu;	 /* nic/softnet.h */
struct ps_qdiscs;	 /* nic/qdisc.h */
struct ps_flow_row;	 /* stats/read/flow_table.h */

struct ps_snapshot {
	struct ps_meta meta;
	char dir[256];
	uint64_t mono_ns;    /* CLOCK_MONOTONIC when read */
	uint64_t real_ns;    /* CLOCK_REALTIME when read */
	unsigned int nslots; /* meta.nqueues + 1: the last slot is "other queues" */
	struct ps_qstats *hook[PS_HOOK_COUNT]; /* nslots each; NULL: hook not attached */
	__u64 *xdp_cpu; /* XDP packets by slot and CPU (nslots x ncpus); NULL: no XDP hook */
	int ncpus;
	struct ps_icmp_qstats *echo;   /* nslots; NULL: echo maps not pinned */
	struct ps_txlat_qstats *txlat; /* nslots; NULL: txlat probes not attached */
	struct ps_d2s_qstats *d2s;     /* nslots; NULL: no XDP program */
	struct ps_fh_qstats *fh;       /* nslots; NULL: no feature firsthop */
	struct ps_phc phc;	       /* checked when frames carried a NIC timestamp */
	struct ps_peer_entry *peers;   /* per-peer echo statistics */
	unsigned int npeers;
	struct ps_tcp_qstats *tcp;	     /* nslots; NULL: tcp maps not pinned */
	struct ps_tcp_qhist *tcp_hist;	     /* nslots */
	struct ps_tcp_peer_entry *tcp_peers; /* per peer subnet */
	unsigned int ntcp_peers;
	__u64 tcp_halfopen;		       /* entries in tcp_halfopen when read */
	struct ps_sock_qstats *sock;	       /* nslots; NULL: sock maps not pinned */
	struct ps_sock_qhist *sock_hist;       /* nslots */
	struct ps_sock_pend *sock_pend;	       /* nslots: samples still waiting for a read */
	struct ps_sock_port_entry *sock_ports; /* per local port */
	unsigned int nsock_ports;
	struct ps_flows_qstate *flows_q; /* nslots, CPUs merged; NULL: flows not pinned */
	struct ps_rx_hash_q *rx_hash;	 /* nslots, CPUs summed; NULL: RX hash not measured */
	struct ps_flow_row *flows;	 /* the flow table as sampled (flow_table.h) */
	unsigned int nflows;
	struct ps_kern_snapshot *kern;	/* NULL: kernel probes not attached */
	struct ps_nic_facts *nic;	/* NULL: the interface is gone */
	struct ps_rss *rss;		/* NULL: no flows feature, or another namespace */
	struct ps_qdiscs *qdiscs;	/* NULL: not read (another namespace) */
	struct ps_softnet_cpu *softnet; /* /proc/net/softnet_stat; NULL: unreadable */
	/* Where each queue runs (IRQs, affinity, RPS, NUMA, NAPI); NULL: not
	 * read (ps_snapshot_read_placement), no XDP frames by CPU to judge it
	 * by, or another namespace. */
	struct ps_nic_placement *place;
	int nsoftnet;
};

struct ps_peer_entry {
	struct ps_peer_key key;
	struct ps_peer_stats stats;
};

/* Samples in sock_pending when read, by queue and protocol: younger than
 * PS_SOCK_MAX_AGE_NS (in flight), or older (expired: their read never came). */
struct ps_sock_pend {
	__u64 inflight[PS_SOCK_PROTOS];
	__u64 stale[PS_SOCK_PROTOS];
};

struct ps_sock_port_entry {
	struct ps_sock_port_key key;
	struct ps_sock_port_stats stats;
};

struct ps_tcp_peer_entry {
	struct ps_tcp_peer_key key;
	struct ps_tcp_peer_stats stats;
};

#endif /* PATHSCOPE_STATS_READ_SNAPSHOT_TYPES_H */
