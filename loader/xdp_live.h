/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Is pathscope's XDP program still attached to its interface, and how:
 * alone, or as one of the programs of libxdp's dispatcher (whose own id is
 * what the kernel reports for the interface)? */
#ifndef PATHSCOPE_LOADER_XDP_LIVE_H
#define PATHSCOPE_LOADER_XDP_LIVE_H

#include <linux/types.h>
#include <stdbool.h>
#include <stddef.h>

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

/* What pathscope attached to an interface of the current network namespace
 * and no attachment pinned under /sys/fs/bpf/pathscope records (its pins
 * removed by hand, or lost with a private bpffs): an orphan. Recognised by
 * the program's name and its BTF function's name (pathscope_xdp,
 * pathscope_xdp_rxhash; pathscope_tc_ingress, pathscope_tc_egress as clsact
 * filters of handle PS_TC_HANDLE); never the chain program, which stands in
 * for someone else's. Each id 0 when absent. */
struct ps_orphan {
	__u32 xdp_id;
	unsigned int tc_id[2]; /* ingress, egress */
};

/* The XDP program's id, 0 when it is no orphan. */
__u32 ps_xdp_orphan(int ifindex);
/* The clsact filter's program id at prio, 0 when it is no orphan. */
unsigned int ps_clsact_orphan(int ifindex, bool ingress, unsigned int prio);
/* The orphans of ifindex (the filters at prio): true when there is one. */
bool ps_orphan_find(int ifindex, unsigned int prio, struct ps_orphan *o);
/* "pathscope's XDP program (id N) [and clsact filters (ids A, B)] left
 * without its/their pins" */
void ps_orphan_text(char *buf, size_t len, const struct ps_orphan *o);

struct ps_iface;
/* Remove the orphans of ifc (its filters at prio), saying so in one line:
 * 0 (removed or none), -1 after one line on failure. The clsact qdisc stays
 * (who made it is not known). Call with the attach lock held. */
int ps_orphans_remove(const struct ps_iface *ifc, unsigned int prio);

/* `detach IFNAME` without a pin directory: remove its orphans (filters at
 * the default priority). 1 when removed, 0 when there are none (or the
 * interface is attached), -1 after one line on failure. */
int ps_orphans_detach(const char *ifname);

/* Call fn for every interface with orphans in the current network namespace. */
void ps_orphans_foreach(void (*fn)(const char *ifname, int ifindex, const struct ps_orphan *o,
				   void *ctx),
			void *ctx);

#endif /* PATHSCOPE_LOADER_XDP_LIVE_H */
