/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* The kernel path probes (probes/pathscope_kernel.bpf.c, feature kernel): pinned
 * with an attachment, or started for a while by `pathscope check`. */
#ifndef PATHSCOPE_LOADER_KERNEL_PROBES_H
#define PATHSCOPE_LOADER_KERNEL_PROBES_H

#include <stdbool.h>
#include <linux/types.h>

#include "pathscope/meta.h"

/* The maps of one running set of kernel probes (pinned or live); -1: absent. */
struct ps_kern_fds {
	int stats;	/* per queue: struct ps_kern_qstats */
	int napi;	/* napi id -> struct ps_napi_stats (per CPU) */
	int napi_queue; /* napi id -> struct ps_napi_queue */
	int drops;	/* struct ps_drop_key -> count */
	int softirq;	/* per CPU: struct ps_softirq_cpu */
	int xdp_exc;	/* per action (per CPU) */
};

struct ps_kernel_probes;

/* Load and attach the probes for the interface described by m (ifindex,
 * netns, nqueues, rx_queue_base). With pin_dir, maps and links are pinned
 * there and stay after the process exits; without, they last until
 * ps_kernel_probes_stop(). NULL after printing one line on failure. */
struct ps_kernel_probes *ps_kernel_probes_start(const struct ps_meta *m, bool classic,
						const char *pin_dir);
void ps_kernel_probes_fds(const struct ps_kernel_probes *kp, struct ps_kern_fds *fds);
void ps_kernel_probes_stop(struct ps_kernel_probes *kp);

/* The pin names of the probes' tracepoint links (status checks them). */
#define PS_KERNEL_NLINKS 9
extern const char *const ps_kernel_links[PS_KERNEL_NLINKS];

/* Detach the pinned links of an attachment (its pins are removed after). */
void ps_kernel_probes_detach_pinned(const char *dir);

/* Open the pinned maps of dir; all -1 (and -ENOENT) when not pinned. */
int ps_kern_fds_open(const char *dir, struct ps_kern_fds *fds);
void ps_kern_fds_close(struct ps_kern_fds *fds);

#endif /* PATHSCOPE_LOADER_KERNEL_PROBES_H */
