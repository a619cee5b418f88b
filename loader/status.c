// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* status: what is pinned under /sys/fs/bpf/pathscope, and whether it is still live:
 * the interface exists, the XDP program attached is still pathscope's, the tc
 * links or filters are there. */
#include "loader/status.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <linux/if_link.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "lib/compat.h"
#include "loader/attach_firsthop.h"
#include "loader/attach_probes.h"
#include "loader/iface.h"
#include "loader/iface_find.h"
#include "loader/kernel_probes.h"
#include "loader/netns_gone.h"
#include "loader/tc_clsact.h"
#include "nic/ethtool.h"
#include "loader/pins.h"
#include "lib/util.h"
#include "loader/xdp_chain.h"
#include "loader/xdp_live.h"

/* A state when the queues in use changed since attach, else NULL. veth sets
 * its XDP program on the RX queues it has when the program is attached or
 * the link comes up, not on those `ethtool -L` adds later
 * (drivers/net/veth.c, veth_set_channels): frames there skip XDP. */
static const char *queues_changed(const struct ps_meta *m, const struct ps_iface *ifc)
{
	static __thread char state[192]; /* serve asks from its HTTP thread too */
	unsigned int rx, tx;

	if (!m->rx_queues_at_attach || ps_nic_queues_in_use((int)m->ifindex, &rx, &tx) ||
	    (rx == m->rx_queues_at_attach && tx == m->tx_queues_at_attach))
		return NULL;
	if (rx > m->rx_queues_at_attach && strcmp(ifc->kind, "veth") == 0 &&
	    m->xdp_mode != PS_XDP_NONE && m->xdp_mode != PS_XDP_SKB)
		snprintf(state, sizeof(state),
			 "xdp may miss the RX queues added since attach (%u -> %u): veth runs "
			 "XDP only on the queues it had at attach or link up; attach again",
			 m->rx_queues_at_attach, rx);
	else
		snprintf(state, sizeof(state), "ok (queues since attach: rx %u -> %u, tx %u -> %u)",
			 m->rx_queues_at_attach, rx, m->tx_queues_at_attach, tx);
	return state;
}

/* A TCX link of dir (tci_link, tce_link) still attached to ifindex and
 * running prog_id; else its state. A link detached by someone else
 * (`bpftool link detach`) stays pinned, defunct: ifindex 0. */
static const char *tcx_state(const char *dir, const struct ps_meta *m, bool ingress)
{
	struct bpf_link_info info = {};
	__u32 len = sizeof(info);
	int fd, err;

	fd = ps_pin_open(dir, ingress ? "tci_link" : "tce_link");
	if (fd < 0)
		return ingress ? "tc ingress link gone: its pin removed"
			       : "tc egress link gone: its pin removed";
	err = bpf_obj_get_info_by_fd(fd, &info, &len);
	close(fd);
	if (err)
		return NULL; /* cannot tell */
	/* The 6.1 UAPI has no tcx member: its ifindex is the union's first
	 * field, where xdp's is. */
	if (info.type == PS_BPF_LINK_TYPE_TCX && info.xdp.ifindex != m->ifindex)
		return ingress ? "tc ingress detached by someone else"
			       : "tc egress detached by someone else";
	if (m->tc_prog_id[!ingress] && info.prog_id != m->tc_prog_id[!ingress])
		return ingress ? "tc ingress link's program replaced by someone else"
			       : "tc egress link's program replaced by someone else";
	return NULL;
}

/* The clsact filters (handle PS_TC_HANDLE at m->tc_prio) still there and
 * still running pathscope's programs; else their state. `tc qdisc del dev X
 * clsact` removes both. */
static const char *clsact_state(const struct ps_meta *m)
{
	unsigned int id[2];
	int i;

	for (i = 0; i < 2; i++)
		id[i] = ps_clsact_prog_id((int)m->ifindex, i == 0, m->tc_prio);
	if (!id[0] && !id[1])
		return "clsact filters gone";
	for (i = 0; i < 2; i++) {
		if (!id[i])
			return i == 0 ? "clsact ingress filter gone" : "clsact egress filter gone";
		if (m->tc_prog_id[i] && id[i] != m->tc_prog_id[i])
			return i == 0 ? "clsact ingress filter replaced by someone else"
				      : "clsact egress filter replaced by someone else";
	}
	return NULL;
}

/* Every pinned tracepoint link in names still there: a tracepoint link
 * cannot be detached (EOPNOTSUPP), only freed with its last pin. */
static const char *tp_state(const char *dir, const char *const *names, unsigned int n)
{
	static __thread char state[96]; /* serve asks from its HTTP thread too */
	unsigned int i;
	int fd;

	for (i = 0; i < n; i++) {
		fd = ps_pin_open(dir, names[i]);
		if (fd >= 0 && ps_pin_is(fd, PS_PIN_LINK)) {
			close(fd);
			continue;
		}
		if (fd >= 0)
			close(fd);
		snprintf(state, sizeof(state), "tracepoint probe %s gone: its pin removed",
			 names[i]);
		return state;
	}
	return NULL;
}

const char *ps_hooks_missing(const char *dir, const struct ps_meta *m)
{
	const char *state = NULL;

	if (m->tc_mode == PS_TC_TCX) {
		state = tcx_state(dir, m, true);
		if (!state)
			state = tcx_state(dir, m, false);
	} else if (m->tc_mode == PS_TC_CLSACT) {
		state = clsact_state(m);
	}
	if (!state && (m->features & PS_F_TXLAT))
		state = tp_state(dir, ps_txlat_links, PS_TXLAT_NLINKS);
	if (!state && (m->features & PS_F_SOCK))
		state = tp_state(dir, ps_sock_links, PS_SOCK_NLINKS);
	if (!state && (m->features & PS_F_KERNEL))
		state = tp_state(dir, ps_kernel_links, PS_KERNEL_NLINKS);
	if (!state && (m->features & PS_F_FIRSTHOP))
		state = tp_state(dir, ps_firsthop_links, PS_FIRSTHOP_NLINKS);
	return state;
}

const char *ps_attachment_health(const char *dir, const struct ps_meta *m, bool *in_reach)
{
	static __thread char in_dispatcher[96]; /* serve asks from its HTTP thread too */
	enum ps_xdp_live live;
	unsigned int nprogs;
	struct ps_iface ifc;
	__u32 dispatcher;
	int self;
	const char *state = "ok", *changed, *missing, *renamed = NULL;

	*in_reach = true;
	if (m->flags & PS_META_ATTACHING)
		return ps_loader_alive(m) ? "attaching"
					  : "attach interrupted (loader gone); detach removes it";
	self = ps_netns_enter(m->netns_ino);
	if (self == -2) {
		*in_reach = false;
		switch (ps_reach_fate(dir, m->netns_ino)) {
		case PS_FATE_NETNS_GONE:
			return PS_STATE_NETNS_GONE
			    " (deleted while attached); 'pathscope detach --gone' removes it";
		case PS_FATE_IFACE:
			return PS_STATE_IFACE_GONE " (namespace not reachable by name); "
						   "'pathscope detach --gone' removes it";
		default:
			return "unknown (namespace not reachable)";
		}
	}
	if (ps_iface_get(NULL, m->ifindex, &ifc) || strcmp(ifc.name, m->ifname) != 0) {
		/* Followed by identity: renamed ("ok (renamed to X)", checked on),
		 * moved to another namespace, or gone (loader/iface_find.c). */
		state = ps_iface_followed(dir, m);
		if (!state || strncmp(state, "ok", 2) != 0) {
			state = state ? state : PS_STATE_IFACE_GONE;
			goto out;
		}
		renamed = state; /* said over the other "ok (...)" notes below */
	}
	if ((m->xdp_mode == PS_XDP_CHAIN || m->xdp_mode == PS_XDP_JOIN) && !ps_xdp_chain_live(m)) {
		state = m->xdp_mode == PS_XDP_CHAIN ? "xdp chain replaced by someone else"
						    : "xdp join slot changed by someone else";
		goto out;
	}
	if (m->xdp_mode == PS_XDP_NATIVE || m->xdp_mode == PS_XDP_SKB) {
		live = ps_xdp_live((int)m->ifindex, m->xdp_prog_id, &dispatcher, &nprogs);
		if (live == PS_XDP_GONE || live == PS_XDP_REPLACED) {
			state = live == PS_XDP_GONE ? "xdp detached by someone else"
						    : "xdp replaced by someone else";
			goto out;
		}
		if (live == PS_XDP_DISPATCHED) {
			if (nprogs > 1)
				snprintf(in_dispatcher, sizeof(in_dispatcher),
					 "ok (xdp in libxdp's dispatcher, id %u, with %u other "
					 "program%s)",
					 dispatcher, nprogs - 1, nprogs == 2 ? "" : "s");
			else
				snprintf(in_dispatcher, sizeof(in_dispatcher),
					 "ok (xdp in libxdp's dispatcher, id %u, alone)",
					 dispatcher);
			state = in_dispatcher;
		}
	}
	if ((missing = ps_hooks_missing(dir, m))) {
		state = missing;
		goto out;
	}
	if (!ifc.up)
		state = "ok (interface down)";
	else if ((changed = queues_changed(m, &ifc)))
		state = changed;
	if (renamed && strncmp(state, "ok", 2) == 0)
		state = renamed;
out:
	ps_netns_leave(self);
	return state;
}
