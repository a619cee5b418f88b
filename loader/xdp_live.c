// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "loader/xdp_live.h"

#include <bpf/libbpf.h>
#include <linux/if_link.h>
#include <stdbool.h>
#include <xdp/libxdp.h>

#include "loader/libxdp_dir.h"

enum ps_xdp_live ps_xdp_live(int ifindex, __u32 id, __u32 *dispatcher_id, unsigned int *nprogs)
{
	LIBBPF_OPTS(bpf_xdp_query_opts, q);
	enum ps_xdp_live live = PS_XDP_REPLACED;
	struct xdp_multiprog *mp;
	struct xdp_program *p;
	bool absent;

	*dispatcher_id = 0;
	*nprogs = 0;
	if (bpf_xdp_query(ifindex, 0, &q) || q.attach_mode == XDP_ATTACHED_NONE)
		return PS_XDP_GONE;
	if (q.attach_mode == XDP_ATTACHED_MULTI ? q.drv_prog_id == id || q.skb_prog_id == id
						: q.prog_id == id)
		return PS_XDP_ALONE;
	/* A libxdp dispatcher: look among its programs (opening them by id
	 * needs CAP_SYS_ADMIN; without it, ours is not found). */
	absent = ps_libxdp_dir_absent();
	mp = xdp_multiprog__get_from_ifindex(ifindex);
	if (!libxdp_get_error(mp) && !xdp_multiprog__is_legacy(mp)) {
		for (p = xdp_multiprog__next_prog(NULL, mp); p;
		     p = xdp_multiprog__next_prog(p, mp)) {
			++*nprogs;
			if (xdp_program__id(p) == id)
				live = PS_XDP_DISPATCHED;
		}
		if (live == PS_XDP_DISPATCHED)
			*dispatcher_id = xdp_program__id(xdp_multiprog__main_prog(mp));
	}
	if (!libxdp_get_error(mp))
		xdp_multiprog__close(mp);
	ps_libxdp_dir_tidy(absent);
	return live;
}
