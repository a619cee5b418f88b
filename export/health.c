// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Liveness of a served attachment: the state `pathscope status` shows
 * (loader/status.c), as one reason for /healthz. */
#include "export/health.h"

#include <bpf/libbpf.h>
#include <errno.h>
#include <linux/if_link.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "loader/pins.h"
#include "loader/status.h"

int ps_serve_health(const char *dir, char *why, size_t whylen)
{
	const char *reason = NULL, *state = "ok";
	struct ps_meta m;
	bool in_reach;
	int err;

	if (access(dir, F_OK)) {
		snprintf(why, whylen, "not attached (pinned state gone)");
		return -1;
	}
	err = ps_meta_read(dir, &m);
	if (err) {
		reason = err == -EPROTO ? "attached by a pathscope of another map ABI"
					: "pinned state incomplete";
	} else {
		state = ps_attachment_health(dir, &m, &in_reach);
		if (strncmp(state, "ok", 2) != 0)
			reason = state;
	}
	if (reason) {
		snprintf(why, whylen, "%s", reason);
		return 1;
	}
	snprintf(why, whylen, "%s", state);
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
