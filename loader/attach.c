// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* attach: load the programs, attach them, pin their state, one step at a time with
 * the attach lock held; each step records itself in the pinned meta (the steps:
 * attach_xdp.c, attach_tc.c, attach_probes.c; their undo: detach.c). */
#include "loader/attach.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <linux/if_link.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <xdp/libxdp.h>

#include "lib/queues.h"
#include "lib/util.h"
#include "loader/attach_common.h"
#include "loader/attach_firsthop.h"
#include "loader/attach_probes.h"
#include "loader/attach_tc.h"
#include "loader/attach_xdp.h"
#include "loader/detach.h"
#include "loader/features.h"
#include "loader/iface.h"
#include "loader/pins.h"
#include "loader/status.h"
#include "loader/xdp_chain.h"
#include "loader/xdp_live.h"
#include "nic/ethtool.h"
#include "loader/libxdp_dir.h"
#include "pathscope_sock.skel.h"
#include "pathscope_tc.skel.h"
#include "pathscope_txlat.skel.h"
#include "pathscope_xdp.skel.h"

static void attach_state_close(struct ps_attach_state *st)
{
	if (st->xdp_prog)
		xdp_program__close(st->xdp_prog);
	pathscope_xdp__destroy(st->xdp);
	pathscope_tc__destroy(st->tc);
	pathscope_txlat__destroy(st->txlat);
	pathscope_sock__destroy(st->sock);
}

/* After an attach step: record what it did in the pinned meta. */
static int step_done(struct ps_attach_state *st, int err, const char *step)
{
	int werr;

	ps_kill_point(step);
	werr = ps_meta_write(st->dir, &st->meta);

	if (werr && !err)
		return ps_error("cannot update the meta map under %s: %s", st->dir,
				strerror(-werr));
	return err;
}

/* Is the attachment pinned in dir dead: its interface deleted (and the
 * ifindex perhaps reused, even in a new namespace with a reused inode), its
 * programs gone from the interface, or its attach interrupted? Then its pins
 * are only leftovers. Called with the attach lock held: no other loader is at
 * work, so a meta still marked "attaching" (or none) is an attach that died. */
static bool attachment_is_stale(const char *dir, const struct ps_iface *ifc)
{
	enum ps_xdp_live live;
	unsigned int nprogs;
	struct ps_meta old;
	__u32 dispatcher;

	if (ps_meta_read(dir, &old) || (old.flags & PS_META_ATTACHING))
		return true;
	if (strcmp(old.ifname, ifc->name) != 0)
		return true;
	if (old.xdp_mode == PS_XDP_CHAIN || old.xdp_mode == PS_XDP_JOIN) {
		if (!ps_xdp_chain_live(&old))
			return true;
	} else if (old.xdp_mode != PS_XDP_NONE) {
		live = ps_xdp_live(ifc->ifindex, old.xdp_prog_id, &dispatcher, &nprogs);
		if (live != PS_XDP_ALONE && live != PS_XDP_DISPATCHED)
			return true;
	}
	return false;
}

/* A live attachment of which a hook is gone (a tc link detached, the clsact
 * filters deleted, a tracepoint link's pin removed): its state, copied to
 * buf; NULL when every hook is there. */
static const char *half_removed(const char *dir, char *buf, size_t len)
{
	const char *missing;
	struct ps_meta old;

	if (ps_meta_read(dir, &old) || !(missing = ps_hooks_missing(dir, &old)))
		return NULL;
	snprintf(buf, len, "%s", missing);
	return buf;
}

static int already_attached(const struct ps_meta *m, const char *dir)
{
	return ps_error("'%s' is already attached (state in %s); run 'pathscope detach %s' first",
			m->ifname, dir, m->ifname);
}

/* The queues in use now, for status to tell when they change; 0 where the
 * driver does not say (or says more than the device has). */
static void record_queues_in_use(struct ps_meta *m)
{
	unsigned int rx, tx;

	if (ps_nic_queues_in_use((int)m->ifindex, &rx, &tx) || rx > m->nqueues || tx > m->nqueues)
		return;
	m->rx_queues_at_attach = (__u16)rx;
	m->tx_queues_at_attach = (__u16)tx;
}

/* Attach, holding the attach lock: from the look at what is pinned for the
 * interface to the last step. */
static int attach_locked(struct ps_attach_state *st, const struct ps_attach_opts *o,
			 const struct ps_iface *ifc)
{
	struct ps_meta *m = &st->meta;
	char missing[128] = "";
	int err;

	ps_pin_dir(st->dir, sizeof(st->dir), m->netns_ino, m->ifindex);
	if (access(st->dir, F_OK) == 0) {
		if (attachment_is_stale(st->dir, ifc)) {
			fprintf(stderr,
				"pathscope: removing the leftover state of an earlier attachment "
				"whose interface or programs are gone (%s)\n",
				st->dir);
		} else if (!half_removed(st->dir, missing, sizeof(missing))) {
			return already_attached(m, st->dir);
		}
		/* What is left of it goes; the attach below makes it anew. */
		ps_detach_dir(st->dir, NULL);
	} else if (ps_orphans_remove(ifc, o->tc_prio)) {
		return -1; /* pathscope's programs left without their pins: removed */
	}
	/* Chain and join go next to the XDP program there; else there must be none. */
	if (!o->no_xdp && o->xdp_chain) {
		m->xdp_mode = PS_XDP_CHAIN;
		if (ps_xdp_chain_check(ifc->ifindex, ifc->name))
			return -1;
	} else if (!o->no_xdp && !o->xdp_join && ps_check_no_xdp(ifc))
		return -1;
	err = ps_pin_dir_create(st->dir);
	if (err)
		return ps_error("cannot create %s: %s", st->dir, strerror(-err));
	ps_kill_point("dir-created");

	/* meta is pinned first and rewritten after every step, so that a
	 * loader killed midway leaves a record that status shows and detach
	 * undoes (see detach_xdp() and detach_tc() for the steps' own windows). */
	m->flags |= PS_META_ATTACHING;
	m->loader_pid = (__u32)getpid();
	if (!o->no_xdp && m->xdp_mode == PS_XDP_NONE)
		m->xdp_mode = PS_XDP_NATIVE; /* until ps_attach_xdp() knows */
	err = ps_meta_pin(st->dir, m);
	if (err) {
		ps_error("cannot pin the meta map under %s: %s", st->dir, strerror(-err));
		ps_pin_dir_remove(st->dir);
		return -1;
	}
	ps_kill_point("meta-pinned");
	if (!o->no_xdp)
		err = step_done(st, ps_attach_xdp(st, o->xdp_mode), "xdp-done");
	if (!err && !o->no_tc)
		err = step_done(st, ps_attach_tc(st, o->tc_mode), "tc-done");
	if (!err && (m->features & PS_F_SOCK))
		err = step_done(st, ps_attach_sock(st, o->probe_mode), "sock-done");
	if (!err && (m->features & PS_F_TXLAT))
		err = step_done(st, ps_attach_txlat(st, o->probe_mode), "txlat-done");
	if (!err && (m->features & PS_F_KERNEL))
		err = step_done(st, ps_attach_kernel(st, o->probe_mode), "kernel-done");
	if (!err && (m->features & PS_F_FIRSTHOP))
		err = step_done(st, ps_attach_firsthop(st, o->probe_mode), "firsthop-done");
	if (!err) {
		m->flags &= ~PS_META_ATTACHING;
		err = step_done(st, 0, "attached");
	}
	if (err)
		ps_detach_meta(st->dir, m); /* leave nothing half-attached */
	else if (missing[0])
		fprintf(stderr, "pathscope: '%s': replaced a half-removed attachment (%s)\n",
			ifc->name, missing);
	return err ? -1 : 0;
}

int ps_attach(const struct ps_attach_opts *o)
{
	struct ps_attach_state st = {};
	struct ps_meta *m = &st.meta;
	struct ps_iface ifc;
	char qerr[160];
	int err;

	if (ps_require_load_privileges() || ps_require_btf())
		return -1;
	if (ps_iface_require_ethernet(o->ifname, &ifc))
		return -1;

	m->abi_version = PS_ABI_VERSION;
	m->ifindex = ifc.ifindex;
	m->netns_ino = ps_netns_ino();
	snprintf(m->ifname, sizeof(m->ifname), "%s", ifc.name);
	m->nqueues = ifc.num_rx_queues > ifc.num_tx_queues ? ifc.num_rx_queues : ifc.num_tx_queues;
	if (m->nqueues == 0)
		m->nqueues = 1;
	if (m->nqueues > PS_MAX_QUEUES)
		m->nqueues = PS_MAX_QUEUES;
	record_queues_in_use(m);
	m->features = ps_features_supported(o->features);
	m->all_queues = !o->queues || strcmp(o->queues, "all") == 0;
	if (ps_queues_parse(o->queues ? o->queues : "all", m->nqueues, m->queue_mask, qerr,
			    sizeof(qerr)))
		return ps_error("%s", qerr);
	m->tc_prio = o->tc_prio;
	m->tx_sample_every = o->tx_sample_every > 1 ? o->tx_sample_every : 1;
	m->tcp_prefix4 = (__u8)(o->peer_prefix_set ? o->peer_prefix4 : PS_TCP_PREFIX4);
	m->tcp_prefix6 = (__u8)(o->peer_prefix_set ? o->peer_prefix6 : PS_TCP_PREFIX6);
	m->flow_sample = o->flow_sample ? o->flow_sample : PS_FLOW_SAMPLE_DEFAULT;
	m->softirq_sample = o->softirq_sample ? o->softirq_sample : PS_FH_SIRQ_DEFAULT;
	if (o->tcp_rx_xdp)
		m->flags |= PS_META_TCP_RX_XDP;
	if (o->by_serve)
		m->flags |= PS_META_BY_SERVE;
	/* veth hands the peer's TX queue on as skb->queue_mapping; NIC drivers
	 * record RX queue + 1 (skb_record_rx_queue). */
	m->rx_queue_base = strcmp(ifc.kind, "veth") == 0 ? 0 : 1;
	/* veth hands transmitted skbs to its peer instead of completing them. */
	if (strcmp(ifc.kind, "veth") == 0)
		m->flags |= PS_META_NO_COMPLETION;
	m->attach_realtime_ns = ps_now_ns(CLOCK_REALTIME);
	m->attach_monotonic_ns = ps_now_ns(CLOCK_MONOTONIC);
	if (!o->no_xdp && o->xdp_join) {
		m->xdp_mode = PS_XDP_JOIN;
		if (ps_xdp_join_parse(o->xdp_join, m))
			return -1;
	}

	if (ps_bpffs_ensure() || ps_pins_lock())
		return -1;
	err = attach_locked(&st, o, &ifc);
	ps_pins_unlock();
	attach_state_close(&st);
	return err;
}
