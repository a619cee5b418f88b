/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Read the pinned per-queue maps of one attachment, summed over CPUs, into a
 * snapshot (snapshot_types.h); flow_table.c and kernel_path.c read their
 * parts of it. */
#ifndef PATHSCOPE_STATS_READ_SNAPSHOT_H
#define PATHSCOPE_STATS_READ_SNAPSHOT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/types.h>

#include "pathscope/meta.h"
#include "stats/read/percpu.h"
#include "stats/read/snapshot_types.h"

/* Read every hook of the attachment pinned in dir, and the NIC facts and
 * softnet counters of its interface (when it is in the current network
 * namespace). Returns 0 or -errno. */
int ps_snapshot_read(const char *dir, struct ps_snapshot *s);
void ps_snapshot_free(struct ps_snapshot *s);
/* Where each queue of s's interface runs (s->place), for the placement
 * verdict: apart, because it costs a few sysfs and procfs reads (0.7 ms
 * on a 1-queue virtio NIC) that serve's /metrics does not use. Nothing
 * without the XDP frames by CPU or outside this network namespace. */
void ps_snapshot_read_placement(struct ps_snapshot *s);

/* The pin directory of ifname in the current network namespace; -ENOENT
 * when it is not attached, -ENODEV when there is no such interface. */
int ps_snapshot_dir(const char *ifname, char *dir, size_t len);

/* The same for struct ps_qstats. */
void ps_qstats_add(struct ps_qstats *dst, const struct ps_qstats *src);
void ps_qstats_sub(struct ps_qstats *out, const struct ps_qstats *a, const struct ps_qstats *b);

/* Slot q of a per-queue array of nslots values of size bytes, or (q ==
 * nslots) the sum of all slots, into out. */
void ps_per_queue_total(const void *vals, size_t size, unsigned int nslots, unsigned int q,
			void *out);

/* Sum of the selected queue slots of one hook (the interface total). */
void ps_snapshot_total(const struct ps_snapshot *s, int hook, struct ps_qstats *out);

#endif /* PATHSCOPE_STATS_READ_SNAPSHOT_H */
