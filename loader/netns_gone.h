/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Is an attachment's network namespace gone, or only out of reach (netns_gone.c)? */
#ifndef PATHSCOPE_LOADER_NETNS_GONE_H
#define PATHSCOPE_LOADER_NETNS_GONE_H

#include <stdbool.h>
#include <stdint.h>

/* Where an attachment out of reach (its namespace has no name pathscope can
 * enter) stands, from its pinned objects. */
enum ps_reach_fate {
	PS_FATE_UNKNOWN,   /* nothing pinned says: it may be live */
	PS_FATE_IFACE,	   /* detached from its device; the namespace lives */
	PS_FATE_NETNS_GONE /* detached, and nothing holds the namespace */
};

/* Does a TCX link pinned in dir report no device (ifindex 0)? The kernel
 * clears it when the device is unregistered (or the link detached). */
bool ps_tcx_link_defunct(const char *dir);

/* Does anything in user space hold the network namespace of inode ino: a
 * task in it, an open fd of it, or a bind mount of it in the mount
 * namespace of some process? */
bool ps_netns_held(uint64_t ino);

/* The fate of the attachment pinned in dir, in namespace netns_ino. */
enum ps_reach_fate ps_reach_fate(const char *dir, uint64_t netns_ino);

#endif /* PATHSCOPE_LOADER_NETNS_GONE_H */
