/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Where the interface of an attachment is now, by identity (its XDP
 * program's id), not by its name or index. */
#ifndef PATHSCOPE_LOADER_IFACE_FIND_H
#define PATHSCOPE_LOADER_IFACE_FIND_H

#include <net/if.h>
#include <linux/types.h>
#include <stdint.h>

#include "pathscope/meta.h"

struct ps_iface_where {
	uint64_t netns_ino;
	int ifindex;
	char ifname[IF_NAMESIZE];
	char netns_name[64];  /* "blue" (/var/run/netns), or "net:[INO] of pid P" */
	char netns_path[300]; /* to enter it */
};

/* The attachment pinned in dir (meta m) in another network namespace than
 * its own (`ip link set DEV netns N`): found in the named namespaces
 * (/var/run/netns) and those of running processes (/proc/PID/ns/net), each
 * once, as the link whose XDP program is m->xdp_prog_id (alone or in
 * libxdp's dispatcher). Program ids are the machine's, so the link found
 * is the attachment's own. Without an XDP program (--no-xdp) it is not
 * looked for: its TCX links, which are all it has on the device, detach
 * by their pins from anywhere. Returns 0 when found, -ENOENT when not. */
int ps_iface_find_moved(const char *dir, const struct ps_meta *m, struct ps_iface_where *w);

/* Enter w's namespace: the original's fd for ps_netns_leave(), -2 on failure. */
int ps_iface_where_enter(const struct ps_iface_where *w);

/* The state of an attachment whose interface moved to another namespace
 * while attached: the words it starts with (with "interface gone" and
 * "namespace gone" of loader/status.h, a leftover for `detach --gone`). */
#define PS_STATE_MOVED "moved to namespace"

/* For ps_attachment_health (its own namespace entered, ifindex not found
 * under m->ifname): "moved to namespace N (ifindex M); ..." or, renamed
 * with the same index, "ok (renamed to X)", after which the other checks
 * go on; NULL when it is nowhere (interface gone). A thread's own buffer. */
const char *ps_iface_followed(const char *dir, const struct ps_meta *m);

#endif /* PATHSCOPE_LOADER_IFACE_FIND_H */
