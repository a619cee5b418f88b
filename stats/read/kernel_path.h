/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Read the maps of the kernel path probes (feature kernel), and the window
 * between two reads. */
#ifndef PATHSCOPE_STATS_READ_KERNEL_PATH_H
#define PATHSCOPE_STATS_READ_KERNEL_PATH_H

#include <linux/types.h>

#include "pathscope/abi.h"
#include "loader/kernel_probes.h"

struct ps_napi_entry {
	__u32 id;
	__u32 queue; /* learned RX queue, PS_QUEUE_UNKNOWN when not seen */
	struct ps_napi_stats s;
};

struct ps_drop_entry {
	struct ps_drop_key key;
	__u64 count;
};

struct ps_kern_snapshot {
	unsigned int nslots;
	struct ps_kern_qstats *q; /* nslots, summed over CPUs */
	struct ps_napi_entry *napi;
	unsigned int nnapi;
	struct ps_drop_entry *drops;
	unsigned int ndrops;
	struct ps_softirq_cpu *softirq; /* one per possible CPU (entry_ns unused) */
	unsigned int ncpus;
	__u64 xdp_exc[PS_XDP_ACTIONS];
};

int ps_kern_read(const struct ps_kern_fds *fds, unsigned int nslots, struct ps_kern_snapshot *k);
void ps_kern_free(struct ps_kern_snapshot *k);

/* out = cur - prev: counts of the window (entries matched by napi id and by
 * drop key; an entry new in cur counts whole). out is freed with
 * ps_kern_free. */
int ps_kern_window(const struct ps_kern_snapshot *cur, const struct ps_kern_snapshot *prev,
		   struct ps_kern_snapshot *out);

/* Sums used by the views. dir -1 and queue PS_ANY_QUEUE match everything. */
#define PS_ANY_QUEUE 0xfffffffeU
__u64 ps_kern_drops_sum(const struct ps_kern_snapshot *k, int dir, __u32 queue);
/* The NAPI instances serving queue, summed; returns how many there are. */
unsigned int ps_kern_napi_sum(const struct ps_kern_snapshot *k, __u32 queue,
			      struct ps_napi_stats *out);

#endif /* PATHSCOPE_STATS_READ_KERNEL_PATH_H */
