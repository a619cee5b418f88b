// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "loader/attach.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <linux/if_link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <xdp/libxdp.h>

#include "loader/features.h"
#include "loader/iface.h"
#include "loader/kernel_probes.h"
#include "loader/pins.h"
#include "loader/status.h"
#include "lib/queues.h"
#include "loader/tc_clsact.h"
#include "loader/tracepoints.h"
#include "lib/util.h"
#include "loader/xdp_chain.h"
#include "nic/nic.h"
#include "pathscope_tc.skel.h"
#include "pathscope_txlat.skel.h"
#include "pathscope_xdp.skel.h"

/* Everything one attach holds open until its state is pinned. */
struct attach_state {
	struct ps_meta meta;
	char dir[256];
	struct pathscope_xdp *xdp;
	struct xdp_program *xdp_prog;
	struct pathscope_tc *tc;
	struct pathscope_txlat *txlat;
};

/* The tracepoint links of the txlat probes, pinned under these names. */
static const char *const txlat_links[] = { "txlat_queue", "txlat_start", "txlat_consume",
					   "txlat_kfree" };
#define TXLAT_NLINKS (sizeof(txlat_links) / sizeof(txlat_links[0]))

/* libxdp takes its lock in /sys/fs/bpf/xdp and leaves the directory behind.
 * Remove it again when it was not there before and is empty (rmdir fails on
 * a directory in use by libxdp's dispatcher pins). */
#define LIBXDP_DIR "/sys/fs/bpf/xdp"

static bool libxdp_dir_absent(void)
{
	return access(LIBXDP_DIR, F_OK) != 0;
}

static void libxdp_dir_tidy(bool was_absent)
{
	if (was_absent)
		rmdir(LIBXDP_DIR);
}

static int prog_id_of(int fd)
{
	struct bpf_prog_info info = {};
	__u32 len = sizeof(info);

	return bpf_obj_get_info_by_fd(fd, &info, &len) ? 0 : (int)info.id;
}

/* The ICMP echo maps, shared by the XDP and tc programs (echo.bpf.h). The
 * "other peers" entry (key 0) is created first, so that it always has room
 * and PS_ECHO_PEERS_MAX peers get entries of their own. */
static int pin_echo_maps(const char *dir, struct bpf_map *pending, struct bpf_map *stats,
			 struct bpf_map *peers)
{
	struct ps_peer_key other = {};
	struct ps_peer_stats *zero = calloc(1, sizeof(*zero));
	int err;

	if (!zero)
		return -ENOMEM;
	err = bpf_map_update_elem(bpf_map__fd(peers), &other, zero, BPF_NOEXIST) ? -errno : 0;
	free(zero);
	if (err && err != -EEXIST)
		return err;
	err = ps_pin_fd(dir, "echo_pending", bpf_map__fd(pending));

	if (!err)
		err = ps_pin_fd(dir, "echo_stats", bpf_map__fd(stats));
	if (!err)
		err = ps_pin_fd(dir, "echo_peers", bpf_map__fd(peers));
	return err;
}

/* Make the tc object use the XDP object's echo and driver-to-stack maps. */
static int share_echo_maps(struct pathscope_tc *tc, struct pathscope_xdp *xdp)
{
	int err = bpf_map__reuse_fd(tc->maps.echo_pending, bpf_map__fd(xdp->maps.echo_pending));

	if (!err)
		err = bpf_map__reuse_fd(tc->maps.echo_stats, bpf_map__fd(xdp->maps.echo_stats));
	if (!err)
		err = bpf_map__reuse_fd(tc->maps.echo_peers, bpf_map__fd(xdp->maps.echo_peers));
	if (!err) /* driver-to-stack samples travel from XDP to tc the same way */
		err = bpf_map__reuse_fd(tc->maps.d2s_slot, bpf_map__fd(xdp->maps.d2s_slot));
	if (!err)
		err = bpf_map__reuse_fd(tc->maps.d2s_stats, bpf_map__fd(xdp->maps.d2s_stats));
	return err;
}

static void set_rodata(volatile __u32 *features, volatile __u32 *nqueues, volatile __u32 *all,
		       volatile __u64 *mask, const struct ps_meta *m)
{
	int i;

	*features = m->features;
	*nqueues = m->nqueues;
	*all = m->all_queues;
	for (i = 0; i < PS_QMASK_WORDS; i++)
		mask[i] = m->queue_mask[i];
}

#define PS_XDP_RUN_PRIO 1 /* libxdp's default is 50 */

/* Refuse when any XDP program is attached: pathscope never replaces one. */
static int check_no_xdp(const struct ps_iface *ifc)
{
	LIBBPF_OPTS(bpf_xdp_query_opts, q);
	struct xdp_multiprog *mp;
	bool absent, dispatcher;

	if (bpf_xdp_query(ifc->ifindex, 0, &q))
		return ps_error("cannot query XDP state of '%s': %s", ifc->name, strerror(errno));
	if (q.attach_mode == XDP_ATTACHED_NONE)
		return 0;
	/* A libxdp dispatcher takes one more program: libxdp adds pathscope's
	 * in front of the others (kernels with freplace; not this test kernel). */
	absent = libxdp_dir_absent();
	mp = xdp_multiprog__get_from_ifindex(ifc->ifindex);
	dispatcher = !libxdp_get_error(mp) && !xdp_multiprog__is_legacy(mp);
	if (!libxdp_get_error(mp))
		xdp_multiprog__close(mp);
	libxdp_dir_tidy(absent); /* the query may have made libxdp's lock dir */
	if (dispatcher)
		return 0;
	return ps_error("'%s' already has an XDP program (id %u); pathscope will not replace it "
			"(--xdp-chain chains to it, --no-xdp measures at tc only)",
			ifc->name,
			q.prog_id ? q.prog_id : (q.drv_prog_id ? q.drv_prog_id : q.skb_prog_id));
}

static int pin_xdp_state(struct attach_state *st, int prog_fd)
{
	int err;

	err = ps_pin_fd(st->dir, "xdp_stats", bpf_map__fd(st->xdp->maps.xdp_stats));
	if (!err)
		err = pin_echo_maps(st->dir, st->xdp->maps.echo_pending, st->xdp->maps.echo_stats,
				    st->xdp->maps.echo_peers);
	if (!err)
		err = ps_pin_fd(st->dir, "d2s_stats", bpf_map__fd(st->xdp->maps.d2s_stats));
	if (!err)
		err = ps_pin_fd(st->dir, "xdp_prog", prog_fd);
	if (err)
		return ps_error("cannot pin XDP state under %s: %s", st->dir, strerror(-err));
	return 0;
}

/* Chain and join modes (xdp_chain.h): the skeleton loads the program itself,
 * with its tail calls switched on; libxdp is not involved. */
static int attach_xdp_chained(struct attach_state *st)
{
	struct pathscope_xdp *x = st->xdp;
	int err;

	if (ps_xdp_chain_prepare(x->maps.xdp_chain, &x->rodata->ps_chain,
				 &x->rodata->ps_chain_first, &st->meta))
		return -1;
	err = pathscope_xdp__load(x);
	if (err)
		return ps_error("cannot load the XDP program: %s (PATHSCOPE_DEBUG=1 shows the "
				"verifier log)",
				strerror(-err));
	/* A program array is emptied when its last file descriptor or pin
	 * goes, whatever programs still use it: the pin keeps the chain. */
	if (st->meta.xdp_mode == PS_XDP_CHAIN) {
		err = ps_pin_fd(st->dir, "xdp_chain", bpf_map__fd(x->maps.xdp_chain));
		if (err)
			return ps_error("cannot pin the XDP chain under %s: %s", st->dir,
					strerror(-err));
	}
	if (ps_xdp_chain_attach(bpf_program__fd(x->progs.pathscope_xdp),
				bpf_map__fd(x->maps.xdp_chain), st->dir, &st->meta))
		return -1;
	ps_kill_point("xdp-attached");
	ps_meta_write(st->dir, &st->meta); /* what detach needs, at once */
	return pin_xdp_state(st, bpf_program__fd(x->progs.pathscope_xdp));
}

static int attach_xdp(struct attach_state *st, enum ps_xdp_request req)
{
	LIBBPF_OPTS(bpf_xdp_query_opts, q);
	DECLARE_LIBXDP_OPTS(xdp_program_opts, popts, .prog_name = "pathscope_xdp");
	enum xdp_attach_mode mode = req == PS_XDP_REQ_NATIVE ? XDP_MODE_NATIVE
				    : req == PS_XDP_REQ_SKB  ? XDP_MODE_SKB
							     : XDP_MODE_UNSPEC;
	struct ps_meta *m = &st->meta;
	bool absent;
	int err;

	st->xdp = pathscope_xdp__open();
	if (!st->xdp)
		return ps_error("cannot open the XDP program: %s", strerror(errno));
	set_rodata(&st->xdp->rodata->ps_features, &st->xdp->rodata->ps_nqueues,
		   &st->xdp->rodata->ps_all_queues, st->xdp->rodata->ps_queue_mask, m);
	bpf_map__set_max_entries(st->xdp->maps.xdp_stats, m->nqueues + 1);
	bpf_map__set_max_entries(st->xdp->maps.echo_stats, m->nqueues + 1);
	bpf_map__set_max_entries(st->xdp->maps.d2s_stats, m->nqueues + 1);

	if (m->xdp_mode == PS_XDP_CHAIN || m->xdp_mode == PS_XDP_JOIN)
		return attach_xdp_chained(st);

	/* libxdp loads the object: through its dispatcher where the kernel
	 * supports freplace, as the single program otherwise. */
	popts.obj = st->xdp->obj;
	st->xdp_prog = xdp_program__create(&popts);
	err = libxdp_get_error(st->xdp_prog);
	if (err) {
		st->xdp_prog = NULL;
		return ps_error("cannot prepare the XDP program: %s", strerror(-err));
	}
	/* In a dispatcher, run before every other program (lowest priority
	 * number) and go on to them after XDP_PASS, libxdp's default chain
	 * action: their verdicts stay theirs. */
	xdp_program__set_run_prio(st->xdp_prog, PS_XDP_RUN_PRIO);
	if (ps_fallback_forced("dispatcher"))
		setenv("LIBXDP_SKIP_DISPATCHER", "1", 1); /* libxdp's own switch */
	absent = libxdp_dir_absent();
	err = xdp_program__attach(st->xdp_prog, m->ifindex, mode, 0);
	ps_kill_point("xdp-attached");
	libxdp_dir_tidy(absent);
	if (err) {
		if (req == PS_XDP_REQ_NATIVE && (err == -EOPNOTSUPP || err == -EINVAL))
			return ps_error("'%s': the driver does not support native XDP (try "
					"--xdp-mode skb)",
					m->ifname);
		return ps_error("cannot attach XDP to '%s': %s", m->ifname, strerror(-err));
	}
	m->xdp_prog_id = xdp_program__id(st->xdp_prog);
	if (bpf_xdp_query(m->ifindex, 0, &q) == 0 && q.attach_mode == XDP_ATTACHED_SKB)
		m->xdp_mode = PS_XDP_SKB;
	else
		m->xdp_mode = PS_XDP_NATIVE;
	ps_meta_write(st->dir, m); /* what detach needs, at once */

	return pin_xdp_state(st, xdp_program__fd(st->xdp_prog));
}

static int attach_tc_one(struct attach_state *st, bool ingress, struct bpf_program *prog)
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
		m->tc_prog_id[!ingress] = prog_id_of(prog_fd);
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
		m->tc_prog_id[!ingress] = prog_id_of(prog_fd);
		err = ps_pin_fd(st->dir, ingress ? "tci_prog" : "tce_prog", prog_fd);
	}
	if (err)
		return ps_error("cannot pin tc state under %s: %s", st->dir, strerror(-err));
	return 0;
}

static int attach_tc(struct attach_state *st, enum ps_tc_request req)
{
	struct ps_meta *m = &st->meta;
	bool tcx = ps_tcx_supported(m->ifindex);
	int err;

	if (req == PS_TC_REQ_TCX && !tcx)
		return ps_error("this kernel has no TCX (needs >= 6.6); use --tc-mode clsact");
	st->tc = pathscope_tc__open();
	if (!st->tc)
		return ps_error("cannot open the tc programs: %s", strerror(errno));
	set_rodata(&st->tc->rodata->ps_features, &st->tc->rodata->ps_nqueues,
		   &st->tc->rodata->ps_all_queues, st->tc->rodata->ps_queue_mask, m);
	st->tc->rodata->ps_rx_queue_base = m->rx_queue_base;
	st->tc->rodata->ps_echo_rx_at_tc = m->xdp_mode == PS_XDP_NONE;
	bpf_map__set_max_entries(st->tc->maps.tci_stats, m->nqueues + 1);
	bpf_map__set_max_entries(st->tc->maps.tce_stats, m->nqueues + 1);
	bpf_map__set_max_entries(st->tc->maps.echo_stats, m->nqueues + 1);
	bpf_map__set_max_entries(st->tc->maps.d2s_stats, m->nqueues + 1);
	if (st->xdp && m->xdp_mode != PS_XDP_NONE) {
		err = share_echo_maps(st->tc, st->xdp);
		if (err)
			return ps_error("cannot share the echo maps: %s", strerror(-err));
	}
	err = pathscope_tc__load(st->tc);
	if (err)
		return ps_error("cannot load the tc programs: %s (PATHSCOPE_DEBUG=1 shows the "
				"verifier log)",
				strerror(-err));
	err = ps_pin_fd(st->dir, "tci_stats", bpf_map__fd(st->tc->maps.tci_stats));
	if (!err)
		err = ps_pin_fd(st->dir, "tce_stats", bpf_map__fd(st->tc->maps.tce_stats));
	if (!err && m->xdp_mode == PS_XDP_NONE)
		err = pin_echo_maps(st->dir, st->tc->maps.echo_pending, st->tc->maps.echo_stats,
				    st->tc->maps.echo_peers);
	if (err)
		return ps_error("cannot pin tc maps under %s: %s", st->dir, strerror(-err));

	/* tc_mode is recorded before attaching so that an undo knows the kind. */
	m->tc_mode = (req == PS_TC_REQ_CLSACT || !tcx) ? PS_TC_CLSACT : PS_TC_TCX;
	err = attach_tc_one(st, true, st->tc->progs.pathscope_tc_ingress);
	if (!err)
		err = attach_tc_one(st, false, st->tc->progs.pathscope_tc_egress);
	return err;
}

/* qdisc sojourn and TX completion probes (probes/pathscope_txlat.bpf.c). */
static int attach_txlat(struct attach_state *st, enum ps_probe_request req)
{
	struct ps_meta *m = &st->meta;
	struct pathscope_txlat *t;
	bool classic;
	int err;

	if (ps_tp_choose_mode(req, &classic))
		return -1;
	if (classic)
		m->flags |= PS_META_TRACEPOINTS;
	st->txlat = t = pathscope_txlat__open();
	if (!t)
		return ps_error("cannot open the txlat probes: %s", strerror(errno));
	const struct ps_tp_prog progs[TXLAT_NLINKS] = {
		{ txlat_links[0], t->progs.pathscope_tx_queue, t->progs.pathscope_tp_queue },
		{ txlat_links[1], t->progs.pathscope_tx_start, t->progs.pathscope_tp_start },
		{ txlat_links[2], t->progs.pathscope_tx_consume, t->progs.pathscope_tp_consume },
		{ txlat_links[3], t->progs.pathscope_tx_kfree, t->progs.pathscope_tp_kfree },
	};
	ps_tp_set_autoload(progs, TXLAT_NLINKS, classic);
	t->rodata->ps_ifindex = m->ifindex;
	t->rodata->ps_netns_ino = (__u32)m->netns_ino;
	t->rodata->ps_nqueues = m->nqueues;
	t->rodata->ps_completion = !(m->flags & PS_META_NO_COMPLETION);
	t->rodata->ps_sample_every = m->tx_sample_every;
	bpf_map__set_max_entries(t->maps.txlat_stats, m->nqueues + 1);
	err = pathscope_txlat__load(t);
	if (err)
		return ps_error("cannot load the txlat probes: %s (PATHSCOPE_DEBUG=1 shows the "
				"verifier log)",
				strerror(-err));
	err = ps_pin_fd(st->dir, "txlat_stats", bpf_map__fd(t->maps.txlat_stats));
	if (!err)
		err = ps_pin_fd(st->dir, "tx_inflight", bpf_map__fd(t->maps.tx_inflight));
	if (err)
		return ps_error("cannot pin txlat maps under %s: %s", st->dir, strerror(-err));
	return ps_tp_attach(progs, TXLAT_NLINKS, classic, st->dir, NULL);
}

/* Kernel path probes (probes/pathscope_kernel.bpf.c), pinned with the rest. */
static int attach_kernel(struct attach_state *st, enum ps_probe_request req)
{
	struct ps_kernel_probes *kp;
	bool classic;

	if (ps_tp_choose_mode(req, &classic))
		return -1;
	if (classic)
		st->meta.flags |= PS_META_TRACEPOINTS;
	kp = ps_kernel_probes_start(&st->meta, classic, st->dir);
	ps_kernel_probes_stop(kp); /* the pins hold maps and links */
	return kp ? 0 : -1;
}

/* Is program id one of pathscope's (by name)? For an attach killed before
 * it could record the id; opening a program by id needs CAP_SYS_ADMIN. */
static bool prog_is_ours(__u32 id, const char *prefix)
{
	struct bpf_prog_info info = {};
	__u32 len = sizeof(info);
	int fd = id ? bpf_prog_get_fd_by_id(id) : -1;
	bool ours;

	if (fd < 0)
		return false;
	ours = bpf_obj_get_info_by_fd(fd, &info, &len) == 0 &&
	       strncmp(info.name, prefix, strlen(prefix)) == 0;
	close(fd);
	return ours;
}

/* A single program (no dispatcher) that is still pathscope's: detach it by
 * the pinned program, with XDP_FLAGS_REPLACE so that nothing attached
 * meanwhile is removed. Unlike libxdp, which opens the attached program by
 * id, this needs no CAP_SYS_ADMIN. Returns false when it does not apply. */
static bool detach_xdp_pinned(const char *dir, const struct ps_meta *m)
{
	LIBBPF_OPTS(bpf_xdp_query_opts, q);
	LIBBPF_OPTS(bpf_xdp_attach_opts, a);
	__u32 flags;
	int fd, err;

	if (bpf_xdp_query((int)m->ifindex, 0, &q) ||
	    (q.attach_mode != XDP_ATTACHED_DRV && q.attach_mode != XDP_ATTACHED_SKB))
		return false;
	if (!m->xdp_prog_id && (m->flags & PS_META_ATTACHING) &&
	    prog_is_ours(q.prog_id, "pathscope_xdp")) {
		fd = bpf_prog_get_fd_by_id(q.prog_id); /* killed before it recorded the id */
	} else {
		if (q.prog_id != m->xdp_prog_id)
			return false;
		fd = ps_pin_open(dir, "xdp_prog");
	}
	if (fd < 0)
		return false;
	flags = q.attach_mode == XDP_ATTACHED_SKB ? XDP_FLAGS_SKB_MODE : XDP_FLAGS_DRV_MODE;
	a.old_prog_fd = fd;
	err = bpf_xdp_detach((int)m->ifindex, flags | XDP_FLAGS_REPLACE, &a);
	close(fd);
	if (err)
		ps_error("cannot detach XDP from '%s': %s", m->ifname, strerror(-err));
	return true;
}

static void detach_xdp(const char *dir, const struct ps_meta *m)
{
	bool absent;
	struct xdp_multiprog *mp;
	struct xdp_program *p;
	int err;

	if (detach_xdp_pinned(dir, m))
		return;
	absent = libxdp_dir_absent();
	mp = xdp_multiprog__get_from_ifindex(m->ifindex);
	if (libxdp_get_error(mp)) {
		libxdp_dir_tidy(absent);
		return; /* nothing attached (or the interface is gone) */
	}
	if (xdp_multiprog__is_legacy(mp)) {
		p = xdp_multiprog__main_prog(mp);
		if (p && xdp_program__id(p) == m->xdp_prog_id) {
			err = xdp_multiprog__detach(mp);
			if (err)
				ps_error("cannot detach XDP from '%s': %s", m->ifname,
					 strerror(-err));
		} else {
			ps_error("'%s': the XDP program is no longer pathscope's; left as it is",
				 m->ifname);
		}
	} else {
		for (p = xdp_multiprog__next_prog(NULL, mp); p; p = xdp_multiprog__next_prog(p, mp))
			if (xdp_program__id(p) == m->xdp_prog_id)
				break;
		if (p) {
			err = xdp_program__detach(p, m->ifindex, XDP_MODE_UNSPEC, 0);
			if (err)
				ps_error("cannot detach XDP from '%s': %s", m->ifname,
					 strerror(-err));
		}
	}
	xdp_multiprog__close(mp);
	libxdp_dir_tidy(absent);
}

static void detach_tc(const char *dir, const struct ps_meta *m)
{
	int i, fd, n, err;

	for (i = 0; i < 2; i++) {
		bool ingress = i == 0;

		if (m->tc_mode == PS_TC_TCX) {
			fd = ps_pin_open(dir, ingress ? "tci_link" : "tce_link");
			if (fd >= 0) {
				bpf_link_detach(fd);
				close(fd);
			}
		} else if (m->tc_prog_id[i] || (m->flags & PS_META_ATTACHING)) {
			__u32 id = m->tc_prog_id[i];

			/* Killed between adding the filter and recording it. */
			if (!id)
				id = ps_clsact_prog_id(m->ifindex, ingress, m->tc_prio);
			if (!m->tc_prog_id[i] && !prog_is_ours(id, "pathscope_tc"))
				continue;
			err = ps_clsact_detach(m->ifindex, ingress, m->tc_prio, id);
			if (err == -ESTALE)
				ps_error(
				    "'%s': the tc filter at priority %u is no longer pathscope's; "
				    "left as it is",
				    m->ifname, m->tc_prio);
		}
	}
	/* Remove the clsact qdisc only if pathscope created it and nobody has
	 * put a filter on it since. */
	if (m->tc_mode == PS_TC_CLSACT && (m->flags & PS_META_CREATED_CLSACT)) {
		n = ps_clsact_filter_count(m->ifindex);
		if (n == 0)
			ps_clsact_destroy(m->ifindex);
	}
}

/* Undo an attachment described by m (complete or partial) and drop its pins.
 * Detach runs in the network namespace of the attachment. */
static int detach_meta(const char *dir, const struct ps_meta *m)
{
	if (m->xdp_mode == PS_XDP_CHAIN || m->xdp_mode == PS_XDP_JOIN)
		ps_xdp_chain_detach(dir, m);
	else if (m->xdp_mode != PS_XDP_NONE)
		detach_xdp(dir, m);
	/* A loader killed inside libxdp may have left libxdp's lock directory,
	 * which it removes when empty: remove it if it is empty. */
	if (m->flags & PS_META_ATTACHING)
		libxdp_dir_tidy(true);
	if (m->tc_mode != PS_TC_NONE)
		detach_tc(dir, m);
	if (m->features & PS_F_TXLAT)
		ps_tp_detach_pinned(dir, txlat_links, TXLAT_NLINKS);
	if (m->features & PS_F_KERNEL)
		ps_kernel_probes_detach_pinned(dir);
	return ps_pin_dir_remove(dir);
}

static void attach_state_close(struct attach_state *st)
{
	if (st->xdp_prog)
		xdp_program__close(st->xdp_prog);
	pathscope_xdp__destroy(st->xdp);
	pathscope_tc__destroy(st->tc);
	pathscope_txlat__destroy(st->txlat);
}

static int detach_dir(const char *dir, void *ctx);

/* After an attach step: record what it did in the pinned meta. */
static int step_done(struct attach_state *st, int err, const char *step)
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
	LIBBPF_OPTS(bpf_xdp_query_opts, q);
	struct bpf_link_info info = {};
	__u32 len = sizeof(info);
	struct ps_meta old;
	bool stale = false;
	int fd;

	if (ps_meta_read(dir, &old) || (old.flags & PS_META_ATTACHING))
		return true;
	if (strcmp(old.ifname, ifc->name) != 0)
		return true;
	if (old.xdp_mode == PS_XDP_CHAIN || old.xdp_mode == PS_XDP_JOIN) {
		if (!ps_xdp_chain_live(&old))
			return true;
	} else if (old.xdp_mode != PS_XDP_NONE &&
		   (bpf_xdp_query(ifc->ifindex, 0, &q) ||
		    (q.attach_mode != XDP_ATTACHED_MULTI && q.prog_id != old.xdp_prog_id))) {
		return true;
	}
	if (old.tc_mode == PS_TC_TCX) {
		fd = ps_pin_open(dir, "tci_link");
		if (fd < 0)
			return true;
		/* A TCX link whose device is gone reports ifindex 0. Debian's
		 * 6.1 UAPI lacks info.tcx; its ifindex sits where xdp's does,
		 * first in the union. */
		stale = bpf_obj_get_info_by_fd(fd, &info, &len) == 0 &&
			info.xdp.ifindex != (__u32)ifc->ifindex;
		close(fd);
	}
	return stale;
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
static int attach_locked(struct attach_state *st, const struct ps_attach_opts *o,
			 const struct ps_iface *ifc)
{
	struct ps_meta *m = &st->meta;
	int err;

	ps_pin_dir(st->dir, sizeof(st->dir), m->netns_ino, m->ifindex);
	if (access(st->dir, F_OK) == 0) {
		if (!attachment_is_stale(st->dir, ifc))
			return already_attached(m, st->dir);
		fprintf(stderr,
			"pathscope: removing the leftover state of an earlier attachment "
			"whose interface or programs are gone (%s)\n",
			st->dir);
		detach_dir(st->dir, NULL);
	}
	/* Chain and join go next to the XDP program there; else there must be none. */
	if (!o->no_xdp && o->xdp_chain)
		m->xdp_mode = PS_XDP_CHAIN;
	else if (!o->no_xdp && !o->xdp_join && check_no_xdp(ifc))
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
		m->xdp_mode = PS_XDP_NATIVE; /* until attach_xdp() knows */
	err = ps_meta_pin(st->dir, m);
	if (err) {
		ps_error("cannot pin the meta map under %s: %s", st->dir, strerror(-err));
		ps_pin_dir_remove(st->dir);
		return -1;
	}
	ps_kill_point("meta-pinned");
	if (!o->no_xdp)
		err = step_done(st, attach_xdp(st, o->xdp_mode), "xdp-done");
	if (!err && !o->no_tc)
		err = step_done(st, attach_tc(st, o->tc_mode), "tc-done");
	if (!err && (m->features & PS_F_TXLAT))
		err = step_done(st, attach_txlat(st, o->probe_mode), "txlat-done");
	if (!err && (m->features & PS_F_KERNEL))
		err = step_done(st, attach_kernel(st, o->probe_mode), "kernel-done");
	if (!err) {
		m->flags &= ~PS_META_ATTACHING;
		err = step_done(st, 0, "attached");
	}
	if (err)
		detach_meta(st->dir, m); /* leave nothing half-attached */
	return err ? -1 : 0;
}

int ps_attach(const struct ps_attach_opts *o)
{
	struct attach_state st = {};
	struct ps_meta *m = &st.meta;
	struct ps_iface ifc;
	char qerr[160];
	int err;

	if (ps_require_privileges() || ps_require_btf())
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
	m->features = o->features;
	m->all_queues = !o->queues || strcmp(o->queues, "all") == 0;
	if (ps_queues_parse(o->queues ? o->queues : "all", m->nqueues, m->queue_mask, qerr,
			    sizeof(qerr)))
		return ps_error("%s", qerr);
	m->tc_prio = o->tc_prio;
	m->tx_sample_every = o->tx_sample_every > 1 ? o->tx_sample_every : 1;
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

/* A meta that fails ps_meta_problem() (rewritten by someone): trust only
 * the directory name (netns inode, ifindex) and undo as for an interrupted
 * attach, recognising pathscope's XDP program and clsact filter (default
 * priority) by name. TCX and tracepoint links go with their pins. A clsact
 * qdisc pathscope created stays: that record is lost. */
static int salvage_meta(const char *dir, struct ps_meta *m)
{
	unsigned long long netns;
	char link[512];
	int ifindex;

	if (sscanf(dir, PS_PIN_ROOT "/%llu/%d", &netns, &ifindex) != 2 || ifindex <= 0)
		return -EINVAL;
	memset(m, 0, sizeof(*m));
	m->abi_version = PS_ABI_VERSION;
	m->netns_ino = netns;
	m->ifindex = (__u32)ifindex;
	snprintf(m->ifname, sizeof(m->ifname), "#%u", (unsigned int)ifindex % 1000000000u);
	m->nqueues = 1;
	m->tx_sample_every = 1;
	m->flags = PS_META_ATTACHING;
	m->features = PS_F_TXLAT | PS_F_KERNEL;
	m->xdp_mode = PS_XDP_NATIVE;
	ps_pin_path(link, sizeof(link), dir, "tci_link");
	m->tc_mode = access(link, F_OK) == 0 ? PS_TC_TCX : PS_TC_CLSACT;
	m->tc_prio = PS_TC_DEFAULT_PRIO;
	return 0;
}

/* Detach in the attachment's own network namespace, entering it when it is a
 * named one; interface indexes mean nothing elsewhere. */
static int detach_dir(const char *dir, void *ctx)
{
	struct ps_meta m;
	const char *why;
	int self, err;

	(void)ctx;
	err = ps_meta_read_checked(dir, &m, &why);
	if (err == -EBADMSG && salvage_meta(dir, &m) == 0) {
		ps_error("%s: its meta map is not one pathscope writes (%s); removing what "
			 "pathscope's program names show",
			 dir, why);
	} else if (err) {
		/* An attach killed before it pinned meta: what it attached went
		 * away with its file descriptors; only the pins are left. */
		ps_error("%s: no readable meta (%s); removing its pins", dir,
			 why ? why : strerror(-err));
		return ps_pin_dir_remove(dir) ? -1 : 0;
	}
	self = ps_netns_enter(m.netns_ino);
	if (self == -2) {
		ps_error("%s (%s) belongs to a network namespace pathscope cannot enter: removing "
			 "its pins only; detach it from inside that namespace",
			 dir, m.ifname);
		if (m.tc_mode == PS_TC_TCX)
			detach_tc(dir, &m); /* links detach from anywhere */
		return ps_pin_dir_remove(dir) ? -1 : 0;
	}
	err = detach_meta(dir, &m);
	ps_netns_leave(self);
	return err ? -1 : 0;
}

int ps_detach_iface(const char *ifname)
{
	struct ps_iface ifc;
	char dir[256];
	int err;

	if (ps_require_privileges())
		return -1;
	err = ps_iface_get(ifname, 0, &ifc);
	if (err == -ENODEV)
		return ps_error("unknown interface '%s' (in this network namespace)", ifname);
	if (err)
		return ps_error("cannot read interface '%s': %s", ifname, strerror(-err));
	ps_pin_dir(dir, sizeof(dir), ps_netns_ino(), ifc.ifindex);
	if (access(dir, F_OK))
		return ps_error("'%s' is not attached", ifname);
	if (ps_pins_lock())
		return -1;
	/* Gone meanwhile: another detach (or a failed attach) was first. */
	err = access(dir, F_OK) ? ps_error("'%s' is not attached", ifname) : detach_dir(dir, NULL);
	ps_pins_unlock();
	return err;
}

static int detach_all_one(const char *dir, void *ctx)
{
	(*(int *)ctx) |= detach_dir(dir, NULL);
	return 0;
}

/* Leftovers only: an attachment whose interface is gone, or whose attach
 * was interrupted (its loader killed). */
static int detach_gone_one(const char *dir, void *ctx)
{
	struct ps_meta m;
	const char *state;
	bool reach;

	if (ps_meta_read(dir, &m) == 0) {
		state = ps_attachment_health(dir, &m, &reach);
		if (!reach || (strcmp(state, "interface gone") != 0 &&
			       strncmp(state, "attach interrupted", 18) != 0))
			return 0;
	}
	return detach_all_one(dir, ctx);
}

int ps_detach_all(bool gone_only)
{
	int failed = 0;

	if (ps_require_privileges() || ps_pins_lock())
		return -1;
	ps_pin_foreach(gone_only ? detach_gone_one : detach_all_one, &failed);
	ps_pins_unlock();
	return failed ? -1 : 0;
}
