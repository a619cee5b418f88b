/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Where each queue of a NIC runs, as the kernel is told: each RX queue's IRQ and
 * affinity, RPS, XPS, NAPI threads and knobs, busy polling, the NUMA node (sysfs,
 * procfs), and its coalescing (ethtool -c) and NAPIs over netlink; read-only. */
#ifndef PATHSCOPE_NIC_PLACEMENT_H
#define PATHSCOPE_NIC_PLACEMENT_H

#include <net/if.h>
#include <stdbool.h>

#include "nic/facts.h"

#define PS_NIC_PLACE_MAXQ 256

enum ps_nic_irq_src {
	PS_NIC_IRQ_NONE,
	PS_NIC_IRQ_PROC,   /* its IRQ's name in /proc/interrupts */
	PS_NIC_IRQ_NETDEV, /* its NAPI's IRQ (netdev NAPI_GET, Linux 6.8) */
};

struct ps_nic_place_rx {
	int irq; /* -1: none of its own */
	enum ps_nic_irq_src irq_src;
	char irq_name[48];  /* as /proc/interrupts names it */
	char affinity[64];  /* smp_affinity_list; "" n/a */
	char effective[64]; /* effective_affinity_list; "" n/a */
	char rps[64];	    /* rps_cpus as a list; "" none */
	long rps_flow_cnt;  /* -1 n/a */
	/* Its NAPI instance (netdev netlink; 0 and -1: n/a): its id, its
	 * thread's pid when threaded, its own deferral knobs (6.12, 6.13). */
	unsigned int napi_id;
	long napi_pid, napi_defer_hard_irqs, napi_gro_flush_timeout;
};

struct ps_nic_place_tx {
	char xps_cpus[64]; /* "" none, or n/a */
	char xps_rxqs[64];
};

struct ps_nic_placement {
	unsigned int nrx, ntx;
	struct ps_nic_place_rx rx[PS_NIC_PLACE_MAXQ];
	struct ps_nic_place_tx tx[PS_NIC_PLACE_MAXQ];
	int nvectors;		       /* the device's MSI/MSI-X vectors (0: none, as veth) */
	int irqs_mapped;	       /* RX queues with an IRQ of their own */
	int numa_node;		       /* -1: none or unknown */
	int threaded;		       /* NAPI threads: 1, 0, -1 n/a */
	long defer_hard_irqs;	       /* napi_defer_hard_irqs; -1 n/a */
	long gro_flush_timeout;	       /* ns; -1 n/a */
	long busy_poll, busy_read;     /* net.core.busy_poll, busy_read (us); -1 n/a */
	struct ps_nic_coalesce coal;   /* n/a until ps_nic_read_placement_nl */
	char napi_why[PS_NIC_WHY_LEN]; /* "": NAPI_GET answered */
	char numa_cpus[256];	       /* the NUMA node's cpulist; "" n/a */
};

/* Read ifname's placement under root ("" for /: tests give a tree of
 * their own with sys/ and proc/ in it): 0, or -errno when the interface has
 * no sysfs directory. */
int ps_nic_read_placement(const char *root, const char *ifname, struct ps_nic_placement *p);

/* What ps_nic_read_placement_nl reads. */
#define PS_NIC_PLACE_COALESCE (1U << 0) /* ethtool -c */
#define PS_NIC_PLACE_NAPI     (1U << 1) /* netdev NAPI_GET: queue -> NAPI -> IRQ */

/* The netlink parts of ifindex's placement (current network namespace)
 * into p, read before by ps_nic_read_placement; a part that cannot be read
 * is n/a with its reason. */
void ps_nic_read_placement_nl(int ifindex, unsigned int what, struct ps_nic_placement *p);

struct ps_nic_queues;
struct ps_nic_napis;
/* Each RX queue's NAPI (queues' NAPI ids, the NAPI instances): its id,
 * thread and knobs; and its IRQ where the NAPI has one, which replaces the
 * one matched by name (its affinity read again under root). */
void ps_nic_place_apply_napi(const char *root, struct ps_nic_placement *p,
			     const struct ps_nic_queues *q, const struct ps_nic_napis *n);

/* The RX queue an IRQ's name belongs to ("virtio0-input.3", "eth1-TxRx-3",
 * "mlx5_comp3@pci:...", "eth1-rx-3"): its number, or -1. */
int ps_nic_irq_queue(const char *name);

/* A hex CPU mask as sysfs writes it ("0000000f", "00000000,00000003") as a
 * list ("0-3", "0-1"); "" for an empty mask. */
void ps_nic_mask_list(const char *mask, char *buf, size_t len);

#endif /* PATHSCOPE_NIC_PLACEMENT_H */
