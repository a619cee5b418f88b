/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Is pathscope's XDP program still attached to its interface, and how:
 * alone, or as one of the programs of libxdp's dispatcher (whose own id is
 * what the kernel reports for the interface)? */
#ifndef PATHSCOPE_LOADER_XDP_LIVE_H
#define PATHSCOPE_LOADER_XDP_LIVE_H

#include <linux/types.h>

enum ps_xdp_live {
	PS_XDP_GONE,	   /* no XDP program on the interface */
	PS_XDP_REPLACED,   /* another program, or a dispatcher without ours */
	PS_XDP_ALONE,	   /* ours, attached directly */
	PS_XDP_DISPATCHED, /* ours, in libxdp's dispatcher */
};

/* Where program id runs on ifindex (in the current network namespace). For
 * PS_XDP_DISPATCHED, *dispatcher_id is the dispatcher's program id and
 * *nprogs the number of programs it runs, ours included. */
enum ps_xdp_live ps_xdp_live(int ifindex, __u32 id, __u32 *dispatcher_id, unsigned int *nprogs);

#endif /* PATHSCOPE_LOADER_XDP_LIVE_H */
