// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The tc step of attach: load pathscope_tc (sharing the echo and
 * driver-to-stack maps of the XDP object), attach ingress and egress through
 * TCX links or a clsact qdisc and cls_bpf filters; pin its maps. */
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "lib/liblog.h"
#include "lib/util.h"
#include "loader/attach_tc.h"
#include "loader/features.h"
#include "loader/pins.h"
#include "loader/tc_clsact.h"
#include "pathscope_tc.skel.h"
#include "pathscope_xdp.skel.h"

/* The maps the tc object takes from the XDP object (bpf_map__reuse_fd), so
 * that what one sees is matched by the other: ICMP echoes, driver-to-stack
 * samples, TCP flows. */
static const char *const shared_maps[] = { "icmp_pending", "icmp_waiting", "icmp_stats",
					   "icmp_peers",   "d2s_slot",	   "d2s_stats",
					   "tcp_flows",	   "tcp_halfopen", "tcp_stats",
					   "tcp_hist",	   "tcp_peers" };

static int share_maps(struct pathscope_tc *tc, struct pathscope_xdp *xdp)
{
	size_t i;
	int err = 0;

	for (i = 0; !err && i < sizeof(shared_maps) / sizeof(shared_maps[0]); i++)
		err = bpf_map__reuse_fd(bpf_object__find_map_by_name(tc->obj, shared_maps[i]),
					bpf_object__find_map_fd_by_name(xdp->obj, shared_maps[i]));
	return err;
}

static int attach_tc_one(struct ps_attach_state *st, bool ingress, struct bpf_program *prog)
{
	struct ps_meta *m = &st->meta;
	int prog_fd = bpf_program__fd(prog), fd, err;
	bool created;
	const char *dir = ingress ? "ingress" : "egress";

	if (m->tc_mode == PS_TC_TCX) {
		fd = ps_tcx_attach(m->ifindex, prog_fd, ingress);
		ps_kill_point(ingress ? "tc-ingress-added" : "tc-egress-added");
		if (fd < 0)
			return ps_error("cannot attach TCX %s on '%s': %s", dir, m->ifname,
					strerror(-fd));
		m->tc_prog_id[!ingress] = ps_prog_id_of(prog_fd);
		err = ps_pin_fd(st->dir, ingress ? "tci_link" : "tce_link", fd);
		close(fd); /* the pin holds the link now */
	} else {
		if (ingress) {
			/* Recorded before the qdisc exists: a loader killed right
			 * after creating it still leaves detach the note to
			 * remove it (detach removes it only without filters). */
			m->flags |= PS_META_CREATED_CLSACT;
			ps_meta_write(st->dir, m);
			err = ps_clsact_create(m->ifindex, &created);
			ps_kill_point("clsact-created");
			if (!created) { /* someone else's: never remove it */
				m->flags &= ~PS_META_CREATED_CLSACT;
				ps_meta_write(st->dir, m);
			}
			if (err)
				return ps_error("cannot create the clsact qdisc on '%s': %s",
						m->ifname, strerror(-err));
		}
		err = ps_clsact_attach(m->ifindex, prog_fd, ingress, m->tc_prio);
		ps_kill_point(ingress ? "tc-ingress-added" : "tc-egress-added");
		if (err == -EEXIST)
			return ps_error(
			    "'%s' already has a tc %s filter at priority %u handle 0x%x; "
			    "choose another with --tc-prio",
			    m->ifname, dir, m->tc_prio, PS_TC_HANDLE);
		if (err)
			return ps_error("cannot attach tc %s filter on '%s': %s", dir, m->ifname,
					strerror(-err));
		m->tc_prog_id[!ingress] = ps_prog_id_of(prog_fd);
		err = ps_pin_fd(st->dir, ingress ? "tci_prog" : "tce_prog", prog_fd);
	}
	if (err)
		return ps_error("cannot pin tc state under %s: %s", st->dir, strerror(-err));
	return 0;
}

int ps_attach_tc(struct ps_attach_state *st, enum ps_tc_request req)
{
	struct ps_meta *m = &st->meta;
	bool tcx = ps_tcx_supported(m->ifindex);
	int err;

	if (req == PS_TC_REQ_TCX && !tcx)
		return ps_error("this kernel has no TCX (needs >= 6.6); use --tc-mode clsact");
	st->tc = pathscope_tc__open();
	if (!st->tc)
		return ps_error("cannot open the tc programs: %s", strerror(errno));
	PS_SET_HOOK_RODATA(st->tc->rodata, m);
	st->tc->rodata->ps_rx_queue_base = m->rx_queue_base;
	st->tc->rodata->ps_kern_ctx = ps_kern_ctx_supported();
	st->tc->rodata->ps_match_rx_at_tc = m->xdp_mode == PS_XDP_NONE;
	st->tc->rodata->ps_tcp_rx_at_tc =
	    m->xdp_mode == PS_XDP_NONE || !(m->flags & PS_META_TCP_RX_XDP);
	ps_size_queue_maps(st->tc->obj, m);
	if (st->xdp && m->xdp_mode != PS_XDP_NONE) {
		err = share_maps(st->tc, st->xdp);
		if (err)
			return ps_error("cannot share the XDP program's maps: %s", strerror(-err));
	}
	ps_lib_log_reset();
	err = pathscope_tc__load(st->tc);
	if (err)
		return ps_load_error("the tc programs", err);
	err = ps_pin_fd(st->dir, "tci_stats", bpf_map__fd(st->tc->maps.tci_stats));
	if (!err)
		err = ps_pin_fd(st->dir, "tce_stats", bpf_map__fd(st->tc->maps.tce_stats));
	if (!err && m->xdp_mode == PS_XDP_NONE)
		err = ps_pin_rx_maps(st->dir, st->tc->obj);
	if (err)
		return ps_error("cannot pin tc maps under %s: %s", st->dir, strerror(-err));

	/* tc_mode is recorded before attaching so that an undo knows the kind. */
	m->tc_mode = (req == PS_TC_REQ_CLSACT || !tcx) ? PS_TC_CLSACT : PS_TC_TCX;
	err = attach_tc_one(st, true, st->tc->progs.pathscope_tc_ingress);
	if (!err)
		err = attach_tc_one(st, false, st->tc->progs.pathscope_tc_egress);
	return err;
}
