// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Liveness of a served attachment. Mirrors health() of loader/status.c,
 * for the current network namespace only (serve runs in the interface's).
 */
#include "serve_health.h"

#include <bpf/libbpf.h>
#include <errno.h>
#include <linux/if_link.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "reader.h"
#include "../loader/iface.h"
#include "../loader/pins.h"
#include "../loader/xdp_chain.h"

static bool xdp_in_place(const struct ps_meta *m, const char **why)
{
	LIBBPF_OPTS(bpf_xdp_query_opts, q);

	if (m->xdp_mode == PS_XDP_CHAIN || m->xdp_mode == PS_XDP_JOIN) {
		*why = m->xdp_mode == PS_XDP_CHAIN ? "xdp chain replaced by someone else"
						   : "xdp join slot changed by someone else";
		return ps_xdp_chain_live(m);
	}
	if (m->xdp_mode != PS_XDP_NATIVE && m->xdp_mode != PS_XDP_SKB)
		return true;
	if (bpf_xdp_query((int)m->ifindex, 0, &q) || q.attach_mode == XDP_ATTACHED_NONE) {
		*why = "xdp detached by someone else";
		return false;
	}
	*why = "xdp replaced by someone else";
	return q.attach_mode == XDP_ATTACHED_MULTI || q.prog_id == m->xdp_prog_id;
}

int ps_serve_health(const char *ifname, char *dir, size_t dirlen, char *why, size_t whylen)
{
	const char *reason = NULL, *xdp_why = NULL;
	struct ps_iface ifc;
	struct ps_meta m;
	int err, fd;

	err = ps_snapshot_dir(ifname, dir, dirlen);
	if (err) {
		snprintf(why, whylen, "%s",
			 err == -ENODEV	  ? "interface gone"
			 : err == -ENOENT ? "not attached (pinned state gone)"
					  : strerror(-err));
		return -1;
	}
	err = ps_meta_read(dir, &m);
	if (err) {
		reason = err == -EPROTO ? "attached by a pathscope of another map ABI"
					: "pinned state incomplete";
	} else if (ps_iface_get(NULL, (int)m.ifindex, &ifc) || strcmp(ifc.name, m.ifname) != 0) {
		reason = "interface gone";
	} else if (!xdp_in_place(&m, &xdp_why)) {
		reason = xdp_why;
	} else if (m.tc_mode == PS_TC_TCX) {
		fd = ps_pin_open(dir, "tci_link");
		if (fd < 0)
			reason = "tc link missing";
		else
			close(fd);
	}
	if (reason) {
		snprintf(why, whylen, "%s", reason);
		return 1;
	}
	snprintf(why, whylen, "ok");
	return 0;
}

int ps_serve_xdp_left(const struct ps_meta *m)
{
	LIBBPF_OPTS(bpf_xdp_query_opts, q);

	if (m->xdp_mode != PS_XDP_NATIVE && m->xdp_mode != PS_XDP_SKB)
		return 0;
	if (bpf_xdp_query((int)m->ifindex, 0, &q))
		return 0; /* the interface is gone, and its program with it */
	return q.attach_mode != XDP_ATTACHED_NONE && q.prog_id == m->xdp_prog_id;
}
