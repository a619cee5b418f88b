// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * status: what is pinned under /sys/fs/bpf/pathscope, and whether it is
 * still live: the interface exists, the XDP program attached is still
 * pathscope's, the tc links or filters are there.
 */
#include "loader/status.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <linux/if_link.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "loader/iface.h"
#include "loader/iface_find.h"
#include "loader/netns_gone.h"
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

const char *ps_attachment_health(const char *dir, const struct ps_meta *m, bool *in_reach)
{
	static __thread char in_dispatcher[96]; /* serve asks from its HTTP thread too */
	enum ps_xdp_live live;
	unsigned int nprogs;
	struct ps_iface ifc;
	__u32 dispatcher;
	int self, fd;
	const char *state = "ok", *changed;

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
	if (m->tc_mode == PS_TC_TCX) {
		fd = ps_pin_open(dir, "tci_link");
		if (fd < 0) {
			state = "tc link missing";
			goto out;
		}
		close(fd);
	}
	if (!ifc.up)
		state = "ok (interface down)";
	else if ((changed = queues_changed(m, &ifc)))
		state = changed;
out:
	ps_netns_leave(self);
	return state;
}
