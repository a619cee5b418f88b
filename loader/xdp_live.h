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

/* pathscope's own XDP program (by its name and its BTF's function name:
 * pathscope_xdp, pathscope_xdp_rxhash; never the chain program, which stands
 * in for someone else's) attached alone to ifindex in the current network
 * namespace, recorded by no attachment pinned under /sys/fs/bpf/pathscope
 * (its pins removed by hand, or lost with a private bpffs): an orphan. Its
 * program id, 0 when there is none. */
__u32 ps_xdp_orphan(int ifindex);

struct ps_iface;
/* Remove the orphan of ifc, if any, saying so in one line: 0 (removed or
 * none), -1 after one line on failure. Call with the attach lock held. */
int ps_xdp_orphan_remove(const struct ps_iface *ifc);

/* `detach IFNAME` without a pin directory: remove its orphan. 1 when one
 * was removed, 0 when there is none (or the interface is attached), -1 after
 * one line on failure. */
int ps_xdp_orphan_detach(const char *ifname);

/* Call fn for every orphan in the current network namespace. */
void ps_xdp_orphan_foreach(void (*fn)(const char *ifname, int ifindex, __u32 id, void *ctx),
			   void *ctx);

#endif /* PATHSCOPE_LOADER_XDP_LIVE_H */
