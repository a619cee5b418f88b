// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Is pathscope's XDP program still attached, alone or in libxdp's dispatcher (xdp_live.h)? */
#include "loader/xdp_live.h"

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <linux/if_link.h>
#include <net/if.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <xdp/libxdp.h>

#include "lib/util.h"
#include "loader/attach_common.h"
#include "loader/iface.h"
#include "loader/libxdp_dir.h"
#include "loader/pins.h"
#include "loader/tc_clsact.h"

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

/* The name of the first function of program fd in its BTF: the whole name,
 * where the program's own is cut at 15 characters. */
static bool btf_func_name(int fd, const struct bpf_prog_info *info, char *buf, size_t len)
{
	struct bpf_prog_info fi = {};
	struct bpf_func_info func[1];
	__u32 flen = sizeof(fi);
	const struct btf_type *t;
	struct btf *btf;
	bool ok = false;

	if (!info->btf_id || !info->nr_func_info)
		return false;
	fi.nr_func_info = 1;
	fi.func_info_rec_size = sizeof(func[0]);
	fi.func_info = (__u64)(unsigned long)func;
	if (bpf_obj_get_info_by_fd(fd, &fi, &flen))
		return false;
	btf = btf__load_from_kernel_by_id(info->btf_id);
	if (libbpf_get_error(btf))
		return false;
	t = btf__type_by_id(btf, func[0].type_id);
	if (t && btf_is_func(t)) {
		snprintf(buf, len, "%s", btf__name_by_offset(btf, t->name_off));
		ok = true;
	}
	btf__free(btf);
	return ok;
}

/* Is program id of type type one of pathscope's functions funcs (by its
 * name, cut at 15 characters, and its BTF function's whole name)? */
static bool prog_is(__u32 id, enum bpf_prog_type type, const char *const *funcs)
{
	struct bpf_prog_info info = {};
	__u32 len = sizeof(info);
	char func[64];
	bool ours = false;
	int fd = bpf_prog_get_fd_by_id(id), i;

	if (fd < 0)
		return false;
	if (bpf_obj_get_info_by_fd(fd, &info, &len) == 0 && info.type == type &&
	    btf_func_name(fd, &info, func, sizeof(func)))
		for (i = 0; funcs[i] && !ours; i++)
			ours = strcmp(func, funcs[i]) == 0 &&
			       strncmp(info.name, funcs[i], sizeof(info.name) - 1) == 0;
	close(fd);
	return ours;
}

/* pathscope's own XDP program: not the chain program, which stands in for
 * someone else's. */
static bool prog_is_pathscope_xdp(__u32 id)
{
	static const char *const funcs[] = { "pathscope_xdp", "pathscope_xdp_rxhash", NULL };

	return prog_is(id, BPF_PROG_TYPE_XDP, funcs);
}

static bool prog_is_pathscope_tc(__u32 id)
{
	static const char *const funcs[] = { "pathscope_tc_ingress", "pathscope_tc_egress", NULL };

	return prog_is(id, BPF_PROG_TYPE_SCHED_CLS, funcs);
}

struct recorded {
	__u32 id;
	bool found;
};

/* Does the attachment pinned in dir record program r->id: in its meta, or
 * pinned (an attach killed before it recorded the id)? */
static int recorded_one(const char *dir, void *ctx)
{
	static const char *const pins[] = { "xdp_prog", "tci_prog", "tce_prog" };
	struct recorded *r = ctx;
	struct ps_meta m;
	unsigned int i;
	int fd;

	if (ps_meta_read(dir, &m) == 0 &&
	    (m.xdp_prog_id == r->id || m.tc_prog_id[0] == r->id || m.tc_prog_id[1] == r->id))
		r->found = true;
	for (i = 0; i < sizeof(pins) / sizeof(pins[0]) && !r->found; i++) {
		fd = ps_pin_open(dir, pins[i]);
		if (fd >= 0) {
			if ((__u32)ps_prog_id_of(fd) == r->id)
				r->found = true;
			close(fd);
		}
	}
	return r->found;
}

static bool recorded(__u32 id)
{
	struct recorded r = { .id = id };

	ps_pin_foreach(recorded_one, &r);
	return r.found;
}

unsigned int ps_clsact_orphan(int ifindex, bool ingress, unsigned int prio)
{
	unsigned int id = ps_clsact_prog_id(ifindex, ingress, prio);

	return id && prog_is_pathscope_tc(id) && !recorded(id) ? id : 0;
}

__u32 ps_xdp_orphan(int ifindex)
{
	LIBBPF_OPTS(bpf_xdp_query_opts, q);

	if (bpf_xdp_query(ifindex, 0, &q) ||
	    (q.attach_mode != XDP_ATTACHED_DRV && q.attach_mode != XDP_ATTACHED_SKB))
		return 0;
	return prog_is_pathscope_xdp(q.prog_id) && !recorded(q.prog_id) ? q.prog_id : 0;
}

/* Detach program id from ifindex, only if it is still the one attached. */
static int orphan_detach(int ifindex, __u32 id)
{
	LIBBPF_OPTS(bpf_xdp_query_opts, q);
	LIBBPF_OPTS(bpf_xdp_attach_opts, a);
	int fd, err;

	if (bpf_xdp_query(ifindex, 0, &q))
		return -errno;
	fd = bpf_prog_get_fd_by_id(id);
	if (fd < 0)
		return -errno;
	a.old_prog_fd = fd;
	err = bpf_xdp_detach(
	    ifindex,
	    (q.attach_mode == XDP_ATTACHED_SKB ? XDP_FLAGS_SKB_MODE : XDP_FLAGS_DRV_MODE) |
		XDP_FLAGS_REPLACE,
	    &a);
	close(fd);
	return err;
}

bool ps_orphan_find(int ifindex, unsigned int prio, struct ps_orphan *o)
{
	memset(o, 0, sizeof(*o));
	o->xdp_id = ps_xdp_orphan(ifindex);
	o->tc_id[0] = ps_clsact_orphan(ifindex, true, prio);
	o->tc_id[1] = ps_clsact_orphan(ifindex, false, prio);
	return o->xdp_id || o->tc_id[0] || o->tc_id[1];
}

void ps_orphan_text(char *buf, size_t len, const struct ps_orphan *o)
{
	char xdp[48] = "", tc[64] = "";

	if (o->xdp_id)
		snprintf(xdp, sizeof(xdp), "XDP program (id %u)", o->xdp_id);
	if (o->tc_id[0] && o->tc_id[1])
		snprintf(tc, sizeof(tc), "clsact filters (ids %u, %u)", o->tc_id[0], o->tc_id[1]);
	else if (o->tc_id[0] || o->tc_id[1])
		snprintf(tc, sizeof(tc), "clsact %s filter (id %u)",
			 o->tc_id[0] ? "ingress" : "egress",
			 o->tc_id[0] ? o->tc_id[0] : o->tc_id[1]);
	snprintf(buf, len, "pathscope's %s%s%s left without %s pins", xdp,
		 xdp[0] && tc[0] ? " and " : "", tc,
		 (xdp[0] && tc[0]) || (o->tc_id[0] && o->tc_id[1]) ? "their" : "its");
}

int ps_orphans_remove(const struct ps_iface *ifc, unsigned int prio)
{
	struct ps_orphan o;
	char dir[256], what[192];
	int i, err = 0;

	if (!ps_orphan_find(ifc->ifindex, prio, &o))
		return 0;
	ps_orphan_text(what, sizeof(what), &o);
	if (o.xdp_id)
		err = orphan_detach(ifc->ifindex, o.xdp_id);
	for (i = 0; i < 2 && !err; i++)
		if (o.tc_id[i])
			err = ps_clsact_detach(ifc->ifindex, i == 0, prio, o.tc_id[i]);
	if (err)
		return ps_error("cannot remove %s from '%s': %s", what, ifc->name, strerror(-err));
	/* The directories its pins were in, if left empty. */
	ps_pin_dir(dir, sizeof(dir), ps_netns_ino(), ifc->ifindex);
	*strrchr(dir, '/') = '\0';
	rmdir(dir);
	rmdir(PS_PIN_ROOT);
	fprintf(stderr, "pathscope: '%s': removed %s\n", ifc->name, what);
	return 0;
}

int ps_orphans_detach(const char *ifname)
{
	struct ps_orphan o;
	struct ps_iface ifc;
	char dir[256];
	int err;

	if (ps_iface_get(ifname, 0, &ifc))
		return 0; /* detach says what is wrong */
	ps_pin_dir(dir, sizeof(dir), ps_netns_ino(), ifc.ifindex);
	if (access(dir, F_OK) == 0 || !ps_orphan_find(ifc.ifindex, PS_TC_DEFAULT_PRIO, &o))
		return 0;
	if (ps_require_privileges() || ps_pins_lock())
		return -1;
	err = access(dir, F_OK) == 0 ? 0 : 1;
	if (err)
		err = ps_orphans_remove(&ifc, PS_TC_DEFAULT_PRIO) ? -1 : 1;
	ps_pins_unlock();
	return err;
}

void ps_orphans_foreach(void (*fn)(const char *ifname, int ifindex, const struct ps_orphan *o,
				   void *ctx),
			void *ctx)
{
	struct if_nameindex *ifs = if_nameindex(), *i;
	struct ps_orphan o;
	char dir[256];

	if (!ifs)
		return;
	for (i = ifs; i->if_index; i++) {
		ps_pin_dir(dir, sizeof(dir), ps_netns_ino(), (int)i->if_index);
		if (access(dir, F_OK) == 0)
			continue;
		if (ps_orphan_find((int)i->if_index, PS_TC_DEFAULT_PRIO, &o))
			fn(i->if_name, (int)i->if_index, &o, ctx);
	}
	if_freenameindex(ifs);
}
