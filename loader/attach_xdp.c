// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The XDP step of attach: load pathscope_xdp and attach it through libxdp,
 * or in chain and join mode next to someone else's program (xdp_chain.c);
 * pin its maps. */
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <libmnl/libmnl.h>
#include <linux/rtnetlink.h>
#include <stdio.h>
#include <linux/if_link.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <xdp/libxdp.h>

#include "pathscope/flow_sample.h"
#include "lib/compat.h"
#include "lib/liblog.h"
#include "lib/util.h"
#include "loader/attach_xdp.h"
#include "loader/features.h"
#include "loader/pins.h"
#include "loader/xdp_chain.h"
#include "loader/libxdp_dir.h"
#include "loader/xdp_peer.h"
#include "pathscope_tc.skel.h"
#include "pathscope_xdp.skel.h"

#define PS_XDP_RUN_PRIO 1 /* libxdp's default is 50 */

/* Refuse when any XDP program is attached: pathscope never replaces one. */
int ps_check_no_xdp(const struct ps_iface *ifc)
{
	LIBBPF_OPTS(bpf_xdp_query_opts, q);
	struct xdp_multiprog *mp;
	struct ps_xdp_peer peer;
	bool absent, dispatcher;
	__u32 id;

	if (bpf_xdp_query(ifc->ifindex, 0, &q))
		return ps_error("cannot query XDP state of '%s': %s", ifc->name, strerror(errno));
	if (q.attach_mode == XDP_ATTACHED_NONE)
		return 0;
	/* A libxdp dispatcher takes one more program: libxdp adds pathscope's
	 * in front of the others (kernels with freplace; not this test kernel). */
	absent = ps_libxdp_dir_absent();
	mp = xdp_multiprog__get_from_ifindex(ifc->ifindex);
	dispatcher = !libxdp_get_error(mp) && !xdp_multiprog__is_legacy(mp);
	if (!libxdp_get_error(mp))
		xdp_multiprog__close(mp);
	ps_libxdp_dir_tidy(absent); /* the query may have made libxdp's lock dir */
	if (dispatcher && !ps_dispatcher_takes_pathscope())
		return ps_error(
		    "'%s' has libxdp's dispatcher, which cannot take pathscope's XDP "
		    "program on this kernel (its freplace refuses an extension's global "
		    "functions; Linux 6.1 takes it): --no-xdp measures at tc only",
		    ifc->name);
	if (dispatcher)
		return 0;
	id = q.prog_id ? q.prog_id : (q.drv_prog_id ? q.drv_prog_id : q.skb_prog_id);
	/* Opening it by id needs CAP_SYS_ADMIN; without, it goes undescribed. */
	if (q.prog_id && ps_xdp_peer_describe_id(q.prog_id, ifc->name, &peer) == 0 && peer.libxdp)
		return ps_error("'%s' already has an XDP program (id %u '%s' of %s, managed "
				"through libxdp); pathscope will neither replace it nor chain in "
				"front of it (--no-xdp measures at tc only)",
				ifc->name, id, peer.name, peer.tool);
	return ps_error("'%s' already has an XDP program (id %u); pathscope will not replace it "
			"(--xdp-chain chains to it, --no-xdp measures at tc only)",
			ifc->name, id);
}

static int pin_xdp_state(struct ps_attach_state *st, int prog_fd)
{
	int err;

	err = ps_pin_fd(st->dir, "xdp_stats", bpf_map__fd(st->xdp->maps.xdp_stats));
	if (!err)
		err = ps_pin_rx_maps(st->dir, st->xdp->obj);
	if (!err)
		err = ps_pin_fd(st->dir, "d2s_stats", bpf_map__fd(st->xdp->maps.d2s_stats));
	if (!err && (st->meta.features & PS_F_FLOWS))
		err = ps_pin_fd(st->dir, "flows", bpf_map__fd(st->xdp->maps.flows));
	if (!err && (st->meta.features & PS_F_FLOWS))
		err = ps_pin_fd(st->dir, "flows_q", bpf_map__fd(st->xdp->maps.flows_q));
	if (!err && (st->meta.flags & PS_META_RX_HASH))
		err = ps_pin_fd(st->dir, "flows_rxhash", bpf_map__fd(st->xdp->maps.flows_rxhash));
	if (!err)
		err = ps_pin_fd(st->dir, "xdp_prog", prog_fd);
	if (err)
		return ps_error("cannot pin XDP state under %s: %s", st->dir, strerror(-err));
	return 0;
}

/* Chain and join modes (xdp_chain.h): the skeleton loads the program that
 * tail-calls the next one, pathscope_xdp_chain; libxdp is not involved. */
static int attach_xdp_chained(struct ps_attach_state *st)
{
	struct pathscope_xdp *x = st->xdp;
	int err;

	if (ps_xdp_chain_prepare(x->maps.xdp_chain, &x->rodata->ps_chain_first, &st->meta))
		return -1;
	bpf_program__set_autoload(x->progs.pathscope_xdp, false);
	ps_lib_log_reset();
	err = pathscope_xdp__load(x);
	if (err)
		return ps_load_error("the XDP program", err);
	/* A program array is emptied when its last file descriptor or pin
	 * goes, whatever programs still use it: the pin keeps the chain. */
	if (st->meta.xdp_mode == PS_XDP_CHAIN) {
		err = ps_pin_fd(st->dir, "xdp_chain", bpf_map__fd(x->maps.xdp_chain));
		if (err)
			return ps_error("cannot pin the XDP chain under %s: %s", st->dir,
					strerror(-err));
	}
	if (ps_xdp_chain_attach(bpf_program__fd(x->progs.pathscope_xdp_chain),
				bpf_map__fd(x->maps.xdp_chain), st->dir, &st->meta))
		return -1;
	ps_kill_point("xdp-attached");
	ps_meta_write(st->dir, &st->meta); /* what detach needs, at once */
	return pin_xdp_state(st, bpf_program__fd(x->progs.pathscope_xdp_chain));
}

/* Open the XDP object and set what the loader decides before the load. */
static int open_xdp(struct ps_attach_state *st)
{
	struct ps_meta *m = &st->meta;

	st->xdp = pathscope_xdp__open();
	if (!st->xdp)
		return ps_error("cannot open the XDP program: %s", strerror(errno));
	PS_SET_HOOK_RODATA(st->xdp->rodata, m);
	ps_size_queue_maps(st->xdp->obj, m);
	st->xdp->rodata->ps_tcp_rx_at_xdp = !!(m->flags & PS_META_TCP_RX_XDP);
	st->xdp->rodata->ps_flow_sample = m->flow_sample;
	st->xdp->rodata->ps_flow_skip_k = ps_flow_skip_k(m->flow_sample);
	st->xdp->rodata->ps_fh_place_every = PS_FH_PLACE_EVERY(m->softirq_sample);
	if (!(m->flags & PS_META_TCP_RX_XDP)) /* only the RX matching uses XDP's copy */
		bpf_map__set_max_entries(st->xdp->maps.tcp_seen, 1);
	/* Device-bound: only where attach_xdp_alone picks it. */
	bpf_program__set_autoload(st->xdp->progs.pathscope_xdp_rxhash, false);
	return 0;
}

/* The RX hash type (feature flows) and the RX timestamp (firsthop) need the
 * device-bound program, which must run alone: not in chain or join mode
 * (callers), not in libxdp's dispatcher, not in generic (skb) mode, which
 * refuses device-bound programs; and the kfuncs (Linux 6.3). */
static bool want_rx_hash(const struct ps_meta *m, enum ps_xdp_request req)
{
	return (m->features & (PS_F_FLOWS | PS_F_FIRSTHOP)) && req != PS_XDP_REQ_SKB &&
	       !ps_dispatcher_takes_pathscope() && ps_xdp_rx_hash_supported();
}

/* Alone on the interface through libxdp (or in its dispatcher): 0 or
 * -errno; with rx_hash, pathscope_xdp_rxhash, device-bound to the
 * interface (its ifindex resolved in this network namespace, the
 * interface's). */
static int attach_xdp_alone(struct ps_attach_state *st, enum xdp_attach_mode mode, bool rx_hash)
{
	DECLARE_LIBXDP_OPTS(xdp_program_opts, popts, .prog_name = "pathscope_xdp");
	struct pathscope_xdp *x = st->xdp;
	struct ps_meta *m = &st->meta;
	bool absent;
	int err;

	/* libxdp loads the object: through its dispatcher where the kernel
	 * supports freplace, as the single program otherwise. Only
	 * pathscope_xdp (or its device-bound variant), which has no tail call. */
	bpf_program__set_autoload(x->progs.pathscope_xdp_chain, false);
	if (rx_hash) {
		bpf_program__set_autoload(x->progs.pathscope_xdp, false);
		bpf_program__set_autoload(x->progs.pathscope_xdp_rxhash, true);
		bpf_program__set_ifindex(x->progs.pathscope_xdp_rxhash, m->ifindex);
		bpf_program__set_flags(x->progs.pathscope_xdp_rxhash,
				       bpf_program__flags(x->progs.pathscope_xdp_rxhash) |
					   PS_BPF_F_XDP_DEV_BOUND_ONLY);
		popts.prog_name = "pathscope_xdp_rxhash";
	}
	popts.obj = x->obj;
	st->xdp_prog = xdp_program__create(&popts);
	err = libxdp_get_error(st->xdp_prog);
	if (err) {
		st->xdp_prog = NULL;
		return err;
	}
	/* In a dispatcher, run before every other program (lowest priority
	 * number) and go on to them after XDP_PASS, libxdp's default chain
	 * action: their verdicts stay theirs. */
	xdp_program__set_run_prio(st->xdp_prog, PS_XDP_RUN_PRIO);
	/* libxdp's own switch: where its dispatcher cannot take pathscope's
	 * program, it would try and fail instead of falling back. */
	if (!ps_dispatcher_takes_pathscope())
		setenv("LIBXDP_SKIP_DISPATCHER", "1", 1);
	absent = ps_libxdp_dir_absent();
	ps_lib_log_reset();
	err = xdp_program__attach(st->xdp_prog, m->ifindex, mode, 0);
	ps_kill_point("xdp-attached");
	ps_libxdp_dir_tidy(absent);
	/* In a dispatcher libxdp keeps its pins there: detach removes the
	 * directory again if this attach made it and it is empty then. */
	if (absent && !ps_libxdp_dir_absent())
		m->flags |= PS_META_MADE_LIBXDP_DIR;
	if (!err && rx_hash)
		m->flags |= PS_META_RX_HASH;
	return err;
}

/* The largest veth peer MTU native XDP takes on this kernel (veth_xdp_set():
 * SKB_WITH_OVERHEAD(PAGE_SIZE - VETH_XDP_HEADROOM) - ETH_HLEN, the headroom
 * XDP_PACKET_HEADROOM, skb_shared_info's size from the kernel's BTF, cache
 * aligned); 0 when that size cannot be read. */
static long veth_xdp_max_mtu(void)
{
	struct btf *btf = btf__load_vmlinux_btf();
	long page = sysconf(_SC_PAGESIZE), line = 64, shinfo = 0;
	__s32 id;

	if (libbpf_get_error(btf))
		return 0;
	id = btf__find_by_name_kind(btf, "skb_shared_info", BTF_KIND_STRUCT);
	if (id > 0)
		shinfo = btf__resolve_size(btf, id);
	btf__free(btf);
	if (shinfo <= 0 || page <= 0)
		return 0;
	shinfo = (shinfo + line - 1) / line * line;
	return page - 256 - shinfo - 14;
}

struct peer_link {
	int ifindex, netnsid;
	unsigned int mtu;
};

static int peer_attr_cb(const struct nlattr *attr, void *data)
{
	struct peer_link *p = data;

	switch (mnl_attr_get_type(attr)) {
	case IFLA_LINK:
		if (mnl_attr_validate(attr, MNL_TYPE_U32) == 0)
			p->ifindex = (int)mnl_attr_get_u32(attr);
		break;
	case IFLA_LINK_NETNSID:
		if (mnl_attr_validate(attr, MNL_TYPE_U32) == 0)
			p->netnsid = (int)mnl_attr_get_u32(attr);
		break;
	case IFLA_MTU:
		if (mnl_attr_validate(attr, MNL_TYPE_U32) == 0)
			p->mtu = mnl_attr_get_u32(attr);
		break;
	}
	return MNL_CB_OK;
}

static int peer_msg_cb(const struct nlmsghdr *nlh, void *data)
{
	return mnl_attr_parse(nlh, sizeof(struct ifinfomsg), peer_attr_cb, data);
}

/* RTM_GETLINK of ifindex (in the namespace of netnsid, -1: this one). */
static int get_link(struct mnl_socket *nl, int ifindex, int netnsid, struct peer_link *out)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	unsigned int seq = (unsigned int)ifindex, portid = mnl_socket_get_portid(nl);
	struct ifinfomsg *ifi;
	int ret;

	nlh->nlmsg_type = RTM_GETLINK;
	nlh->nlmsg_flags = NLM_F_REQUEST;
	nlh->nlmsg_seq = seq;
	ifi = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifi));
	ifi->ifi_family = AF_UNSPEC;
	ifi->ifi_index = ifindex;
	if (netnsid >= 0)
		mnl_attr_put_u32(nlh, IFLA_TARGET_NETNSID, (__u32)netnsid);
	if (mnl_socket_sendto(nl, nlh, nlh->nlmsg_len) < 0)
		return -1;
	ret = mnl_socket_recvfrom(nl, buf, sizeof(buf));
	if (ret <= 0)
		return -1;
	return mnl_cb_run(buf, ret, seq, portid, peer_msg_cb, out) < 0 ? -1 : 0;
}

/* The MTU of ifindex's veth peer, wherever it is (IFLA_LINK and
 * IFLA_LINK_NETNSID, read with IFLA_TARGET_NETNSID); 0 when not known. */
static unsigned int veth_peer_mtu(int ifindex)
{
	struct peer_link self = { .netnsid = -1 }, peer = { .netnsid = -1 };
	struct mnl_socket *nl = mnl_socket_open(NETLINK_ROUTE);

	if (!nl)
		return 0;
	if (mnl_socket_bind(nl, 0, MNL_SOCKET_AUTOPID) < 0 || get_link(nl, ifindex, -1, &self) ||
	    self.ifindex <= 0 || get_link(nl, self.ifindex, self.netnsid, &peer))
		peer.mtu = 0;
	mnl_socket_close(nl);
	return peer.mtu;
}

/* veth refuses native XDP while its peer's MTU is larger than one page
 * holds (-ERANGE, "Peer MTU is too large to set XDP"). */
static int veth_mtu_error(const struct ps_meta *m)
{
	unsigned int peer = veth_peer_mtu((int)m->ifindex);
	long max = veth_xdp_max_mtu();
	char most[64] = "", mtu[24] = "";

	if (max > 0)
		snprintf(most, sizeof(most), " (at most %ld on this kernel)", max);
	if (peer)
		snprintf(mtu, sizeof(mtu), " (%u)", peer);
	return ps_error("cannot attach XDP to '%s': its veth peer's MTU%s is too large for native "
			"XDP%s; attach with --xdp-mode skb, or lower the peer's MTU",
			m->ifname, mtu, most);
}

int ps_attach_xdp(struct ps_attach_state *st, enum ps_xdp_request req)
{
	LIBBPF_OPTS(bpf_xdp_query_opts, q);
	enum xdp_attach_mode mode = req == PS_XDP_REQ_NATIVE ? XDP_MODE_NATIVE
				    : req == PS_XDP_REQ_SKB  ? XDP_MODE_SKB
							     : XDP_MODE_UNSPEC;
	struct ps_meta *m = &st->meta;
	bool rx_hash;
	int err;

	if (open_xdp(st))
		return -1;
	if (m->xdp_mode == PS_XDP_CHAIN || m->xdp_mode == PS_XDP_JOIN)
		return attach_xdp_chained(st);

	rx_hash = want_rx_hash(m, req);
	err = attach_xdp_alone(st, mode, rx_hash);
	if (err && rx_hash) {
		/* The device-bound program did not go (a driver without native
		 * XDP, libxdp falling back to generic mode): the plain one. */
		fprintf(stderr,
			"pathscope: '%s': the device-bound XDP program (flows' RX hash type) "
			"could not be attached (%s): attaching the plain one\n",
			m->ifname, strerror(-err));
		if (st->xdp_prog)
			xdp_program__close(st->xdp_prog);
		st->xdp_prog = NULL;
		pathscope_xdp__destroy(st->xdp);
		st->xdp = NULL;
		if (open_xdp(st))
			return -1;
		err = attach_xdp_alone(st, mode, false);
	}
	if (err) {
		if (!st->xdp_prog)
			return ps_error("cannot prepare the XDP program: %s", strerror(-err));
		if (req == PS_XDP_REQ_NATIVE && (err == -EOPNOTSUPP || err == -EINVAL))
			return ps_error("'%s': the driver does not support native XDP (try "
					"--xdp-mode skb)",
					m->ifname);
		if (err == -ERANGE && (m->flags & PS_META_NO_COMPLETION)) /* veth */
			return veth_mtu_error(m);
		return ps_error("cannot attach XDP to '%s': %s%s%s", m->ifname, strerror(-err),
				*ps_lib_log_reason() ? ": " : "", ps_lib_log_reason());
	}
	m->xdp_prog_id = xdp_program__id(st->xdp_prog);
	if (bpf_xdp_query(m->ifindex, 0, &q) == 0 && q.attach_mode == XDP_ATTACHED_SKB)
		m->xdp_mode = PS_XDP_SKB;
	else
		m->xdp_mode = PS_XDP_NATIVE;
	ps_meta_write(st->dir, m); /* what detach needs, at once */

	return pin_xdp_state(st, xdp_program__fd(st->xdp_prog));
}
