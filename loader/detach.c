// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* detach: undo an attachment, complete or interrupted, removing exactly what
 * pathscope added (checked by program id, or by name for an attach killed before
 * it recorded the id), and its pins. */
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <linux/if_link.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <xdp/libxdp.h>

#include "lib/util.h"
#include "loader/attach_firsthop.h"
#include "loader/attach_probes.h"
#include "loader/detach.h"
#include "loader/iface.h"
#include "loader/iface_find.h"
#include "loader/libxdp_dir.h"
#include "loader/kernel_probes.h"
#include "loader/netns_gone.h"
#include "loader/pins.h"
#include "loader/status.h"
#include "loader/tc_clsact.h"
#include "loader/tracepoints.h"
#include "loader/xdp_chain.h"
#include "loader/xdp_live.h"

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
	absent = ps_libxdp_dir_absent();
	mp = xdp_multiprog__get_from_ifindex(m->ifindex);
	if (libxdp_get_error(mp)) {
		/* Nothing attached (or the interface is gone). A dispatcher
		 * removed by someone else (ip link set DEV xdp off) leaves its
		 * pins, which hold pathscope's program: libxdp's own clean-up
		 * removes those of dispatchers no longer attached. */
		libxdp_clean_references(m->ifindex);
		ps_libxdp_dir_tidy(absent || (m->flags & PS_META_MADE_LIBXDP_DIR));
		return;
	}
	if (xdp_multiprog__is_legacy(mp)) {
		p = xdp_multiprog__main_prog(mp);
		if (p && xdp_program__id(p) == m->xdp_prog_id) {
			err = xdp_multiprog__detach(mp);
			if (err)
				ps_error("cannot detach XDP from '%s': %s", m->ifname,
					 strerror(-err));
		} else {
			libxdp_clean_references(m->ifindex); /* a dispatcher replaced */
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
	ps_libxdp_dir_tidy(absent || (m->flags & PS_META_MADE_LIBXDP_DIR));
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

static void detach_tracepoints(const char *dir, const struct ps_meta *m)
{
	if (m->features & PS_F_TXLAT)
		ps_tp_detach_pinned(dir, ps_txlat_links, PS_TXLAT_NLINKS);
	if (m->features & PS_F_SOCK)
		ps_tp_detach_pinned(dir, ps_sock_links, PS_SOCK_NLINKS);
	if (m->features & PS_F_KERNEL)
		ps_kernel_probes_detach_pinned(dir);
	if (m->features & PS_F_FIRSTHOP)
		ps_tp_detach_pinned(dir, ps_firsthop_links, PS_FIRSTHOP_NLINKS);
}

/* Undo an attachment described by m (complete or partial) and drop its pins.
 * Detach runs in the network namespace of the attachment. */
int ps_detach_meta(const char *dir, const struct ps_meta *m)
{
	if (m->xdp_mode == PS_XDP_CHAIN || m->xdp_mode == PS_XDP_JOIN)
		ps_xdp_chain_detach(dir, m);
	else if (m->xdp_mode != PS_XDP_NONE)
		detach_xdp(dir, m);
	/* A loader killed inside libxdp may have left libxdp's lock directory,
	 * which it removes when empty: remove it if it is empty. */
	if (m->flags & PS_META_ATTACHING)
		ps_libxdp_dir_tidy(true);
	if (m->tc_mode != PS_TC_NONE)
		detach_tc(dir, m);
	detach_tracepoints(dir, m);
	return ps_pin_dir_remove(dir);
}

/* Out of reach (a namespace with no name to enter, or gone): undo what needs
 * no namespace, the links (TCX; tracepoints, which are machine-wide) and a
 * join slot in a pinned program array, then the pins. An XDP program or a
 * clsact filter attached by netlink stays on its device, if that lives. */
static int detach_out_of_reach(const char *dir, const struct ps_meta *m)
{
	if (m->xdp_mode == PS_XDP_JOIN && ps_xdp_chain_live(m))
		ps_xdp_chain_detach(dir, m);
	if (m->tc_mode == PS_TC_TCX)
		detach_tc(dir, m);
	detach_tracepoints(dir, m);
	return ps_pin_dir_remove(dir);
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
	m->features = PS_F_TXLAT | PS_F_KERNEL | PS_F_SOCK;
	m->xdp_mode = PS_XDP_NATIVE;
	ps_pin_path(link, sizeof(link), dir, "tci_link");
	m->tc_mode = access(link, F_OK) == 0 ? PS_TC_TCX : PS_TC_CLSACT;
	m->tc_prio = PS_TC_DEFAULT_PRIO;
	return 0;
}

/* Is the attachment's interface away from its index in the namespace
 * entered: absent, or (with a program of its own) without it? */
static bool iface_away(const struct ps_meta *m)
{
	struct ps_iface ifc;
	unsigned int nprogs;
	__u32 disp;

	if (ps_iface_get(NULL, (int)m->ifindex, &ifc))
		return true;
	return (m->xdp_mode == PS_XDP_NATIVE || m->xdp_mode == PS_XDP_SKB) &&
	       ps_xdp_live((int)m->ifindex, m->xdp_prog_id, &disp, &nprogs) < PS_XDP_ALONE;
}

/* The interface was moved to another network namespace while attached (ip
 * link set DEV netns N), found there by its XDP program's id: undo there.
 * TCX links detach through their pins from anywhere; an XDP program
 * attached by netlink has no link, and the kernel removes it only by its
 * device's index, which means something only inside the device's
 * namespace: that one is entered. The program is removed only while it is
 * still pathscope's (detach_xdp checks the id, with XDP_FLAGS_REPLACE).
 * The clsact qdisc, and pathscope's filters on it, went with the move: a
 * clsact there is not pathscope's. Returns false when not found. */
static bool detach_moved(const char *dir, const struct ps_meta *m, int *err)
{
	struct ps_iface_where w;
	struct ps_meta here;
	int self;

	if (ps_iface_find_moved(dir, m, &w))
		return false;
	self = ps_iface_where_enter(&w);
	if (self == -2)
		return false;
	here = *m;
	here.ifindex = (__u32)w.ifindex;
	here.netns_ino = w.netns_ino;
	here.flags &= ~PS_META_CREATED_CLSACT;
	if (here.tc_mode == PS_TC_CLSACT)
		here.tc_prog_id[0] = here.tc_prog_id[1] = 0;
	*err = ps_detach_meta(dir, &here);
	ps_netns_leave(self);
	return true;
}

/* Detach in the attachment's own network namespace, entering it when it is a
 * named one; interface indexes mean nothing elsewhere. An interface moved
 * to another namespace is followed there (detach_moved). */
int ps_detach_dir(const char *dir, void *ctx)
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
		if (detach_moved(dir, &m, &err))
			return err ? -1 : 0;
		/* Its TCX links defunct: its device is gone, and with it all
		 * that only its namespace could have undone. */
		if (!ps_tcx_link_defunct(dir))
			ps_error("%s (%s) belongs to a network namespace pathscope cannot enter: "
				 "removing its pins only; detach it from inside that namespace",
				 dir, m.ifname);
		return detach_out_of_reach(dir, &m) ? -1 : 0;
	}
	if (!(m.flags & PS_META_ATTACHING) && iface_away(&m) && detach_moved(dir, &m, &err)) {
		ps_netns_leave(self);
		return err ? -1 : 0;
	}
	err = ps_detach_meta(dir, &m);
	ps_netns_leave(self);
	return err ? -1 : 0;
}

struct moved_here {
	int ifindex;
	char *dir;
	size_t len;
	bool found;
};

static int moved_here_one(const char *dir, void *ctx)
{
	struct moved_here *h = ctx;
	unsigned int nprogs;
	struct ps_meta m;
	__u32 disp;

	if (ps_meta_read(dir, &m) || m.netns_ino == ps_netns_ino() || !m.xdp_prog_id ||
	    (m.xdp_mode != PS_XDP_NATIVE && m.xdp_mode != PS_XDP_SKB &&
	     m.xdp_mode != PS_XDP_CHAIN) ||
	    ps_xdp_live(h->ifindex, m.xdp_prog_id, &disp, &nprogs) < PS_XDP_ALONE)
		return 0;
	snprintf(h->dir, h->len, "%s", dir);
	h->found = true;
	return 1;
}

/* An interface moved into this namespace while attached elsewhere: the
 * attachment whose XDP program (an id of the machine's) runs on ifindex.
 * 0 with its pin directory in dir, -1 when there is none. */
static int moved_here(int ifindex, char *dir, size_t len)
{
	struct moved_here h = { ifindex, dir, len, false };

	ps_pin_foreach(moved_here_one, &h);
	return h.found ? 0 : -1;
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
		return ps_error_unknown_iface(ifname);
	if (err)
		return ps_error("cannot read interface '%s': %s", ifname, strerror(-err));
	ps_pin_dir(dir, sizeof(dir), ps_netns_ino(), ifc.ifindex);
	if (access(dir, F_OK) && moved_here(ifc.ifindex, dir, sizeof(dir)))
		return ps_error("'%s' is not attached", ifname);
	if (ps_pins_lock())
		return -1;
	/* Gone meanwhile: another detach (or a failed attach) was first. */
	err =
	    access(dir, F_OK) ? ps_error("'%s' is not attached", ifname) : ps_detach_dir(dir, NULL);
	ps_pins_unlock();
	return err;
}

static int detach_all_one(const char *dir, void *ctx)
{
	(*(int *)ctx) |= ps_detach_dir(dir, NULL);
	return 0;
}

static bool starts(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* Leftovers only: an attachment whose interface or namespace is gone, whose
 * interface moved to another namespace, or whose attach was interrupted (its loader killed). Out of
 * reach, only what its pinned links say is gone (see netns_gone.c); never "unknown". */
static int detach_gone_one(const char *dir, void *ctx)
{
	struct ps_meta m;
	const char *state;
	bool reach;

	if (ps_meta_read(dir, &m) == 0) {
		state = ps_attachment_health(dir, &m, &reach);
		if (!starts(state, PS_STATE_IFACE_GONE) && !starts(state, PS_STATE_NETNS_GONE) &&
		    !starts(state, PS_STATE_MOVED) && !starts(state, "attach interrupted"))
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
