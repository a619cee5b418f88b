/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Read the pinned per-queue maps of one attachment, summed over CPUs. */
#ifndef PATHSCOPE_READER_H
#define PATHSCOPE_READER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/types.h>

#include "pathscope/meta.h"

struct ps_kern_snapshot; /* kern_reader.h */
struct ps_nic_facts;	 /* nic.h */
struct ps_rss;		 /* nic/rss.h */
struct ps_softnet_cpu;	 /* softnet.h */
struct ps_qdiscs;	 /* qdisc.h */
struct ps_flow_row;	 /* flows.h */

struct ps_snapshot {
	struct ps_meta meta;
	char dir[256];
	uint64_t mono_ns;    /* CLOCK_MONOTONIC when read */
	uint64_t real_ns;    /* CLOCK_REALTIME when read */
	unsigned int nslots; /* meta.nqueues + 1: the last slot is "other queues" */
	struct ps_qstats *hook[PS_HOOK_COUNT]; /* nslots each; NULL: hook not attached */
	struct ps_echo_qstats *echo;	       /* nslots; NULL: echo maps not pinned */
	struct ps_txlat_qstats *txlat;	       /* nslots; NULL: txlat probes not attached */
	struct ps_d2s_qstats *d2s;	       /* nslots; NULL: no XDP program */
	struct ps_peer_entry *peers;	       /* per-peer echo statistics */
	unsigned int npeers;
	struct ps_tcp_qstats *tcp;	     /* nslots; NULL: tcp maps not pinned */
	struct ps_tcp_qhist *tcp_hist;	     /* nslots */
	struct ps_tcp_peer_entry *tcp_peers; /* per peer subnet */
	unsigned int ntcp_peers;
	struct ps_sock_qstats *sock;	       /* nslots; NULL: sock maps not pinned */
	struct ps_sock_qhist *sock_hist;       /* nslots */
	struct ps_sock_pend *sock_pend;	       /* nslots: samples still waiting for a read */
	struct ps_sock_port_entry *sock_ports; /* per local port */
	unsigned int nsock_ports;
	struct ps_flows_qstate *flows_q; /* nslots, CPUs merged; NULL: flows not pinned */
	struct ps_rx_hash_q *rx_hash;	 /* nslots, CPUs summed; NULL: RX hash not measured */
	struct ps_flow_row *flows;	 /* the flow table as sampled (stats/flows.h) */
	unsigned int nflows;
	struct ps_kern_snapshot *kern;	/* NULL: kernel probes not attached */
	struct ps_nic_facts *nic;	/* NULL: the interface is gone */
	struct ps_rss *rss;		/* NULL: no flows feature, or another namespace */
	struct ps_qdiscs *qdiscs;	/* NULL: not read (another namespace) */
	struct ps_softnet_cpu *softnet; /* /proc/net/softnet_stat; NULL: unreadable */
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

/* Read every hook of the attachment pinned in dir, and the NIC facts and
 * softnet counters of its interface (when it is in the current network
 * namespace). Returns 0 or -errno. */
int ps_snapshot_read(const char *dir, struct ps_snapshot *s);
void ps_snapshot_free(struct ps_snapshot *s);

/* The pin directory of ifname in the current network namespace; -ENOENT
 * when it is not attached, -ENODEV when there is no such interface. */
int ps_snapshot_dir(const char *ifname, char *dir, size_t len);

/* dst += src, field by field, for structs made only of __u64 (n bytes). */
void ps_u64s_add(void *dst, const void *src, size_t n);
/* out = a - b, field by field (0 where b > a), likewise. */
void ps_u64s_sub(void *out, const void *a, const void *b, size_t n);

/* Look up key in a per-CPU map of values of size bytes (multiples of 8) and
 * sum the CPUs into out; percpu is scratch space for ncpus values. */
int ps_percpu_sum(int fd, const void *key, void *percpu, size_t size, int ncpus, void *out);

/* The same for struct ps_qstats. */
void ps_qstats_add(struct ps_qstats *dst, const struct ps_qstats *src);
void ps_qstats_sub(struct ps_qstats *out, const struct ps_qstats *a, const struct ps_qstats *b);

/* Slot q of a per-queue array of nslots values of size bytes, or (q ==
 * nslots) the sum of all slots, into out. */
void ps_per_queue_total(const void *vals, size_t size, unsigned int nslots, unsigned int q,
			void *out);

/* Sum of the selected queue slots of one hook (the interface total). */
void ps_snapshot_total(const struct ps_snapshot *s, int hook, struct ps_qstats *out);

#endif /* PATHSCOPE_READER_H */
