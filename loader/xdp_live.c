// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
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

/* Is program id pathscope's own XDP program (not the chain program)? */
static bool prog_is_pathscope_xdp(__u32 id)
{
	struct bpf_prog_info info = {};
	__u32 len = sizeof(info);
	char func[64];
	bool ours = false;
	int fd = bpf_prog_get_fd_by_id(id);

	if (fd < 0)
		return false;
	if (bpf_obj_get_info_by_fd(fd, &info, &len) == 0 && info.type == BPF_PROG_TYPE_XDP &&
	    (strcmp(info.name, "pathscope_xdp") == 0 ||
	     strcmp(info.name, "pathscope_xdp_r") == 0) &&
	    btf_func_name(fd, &info, func, sizeof(func)))
		ours =
		    strcmp(func, "pathscope_xdp") == 0 || strcmp(func, "pathscope_xdp_rxhash") == 0;
	close(fd);
	return ours;
}

struct recorded {
	__u32 id;
	bool found;
};

static int recorded_one(const char *dir, void *ctx)
{
	struct recorded *r = ctx;
	struct ps_meta m;
	int fd;

	if (ps_meta_read(dir, &m) == 0 && m.xdp_prog_id == r->id)
		r->found = true;
	/* An attach killed before it recorded the id: its pinned program. */
	fd = ps_pin_open(dir, "xdp_prog");
	if (fd >= 0) {
		if ((__u32)ps_prog_id_of(fd) == r->id)
			r->found = true;
		close(fd);
	}
	return r->found;
}

__u32 ps_xdp_orphan(int ifindex)
{
	LIBBPF_OPTS(bpf_xdp_query_opts, q);
	struct recorded r = {};

	if (bpf_xdp_query(ifindex, 0, &q) ||
	    (q.attach_mode != XDP_ATTACHED_DRV && q.attach_mode != XDP_ATTACHED_SKB))
		return 0;
	if (!prog_is_pathscope_xdp(q.prog_id))
		return 0;
	r.id = q.prog_id;
	ps_pin_foreach(recorded_one, &r);
	return r.found ? 0 : q.prog_id;
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

int ps_xdp_orphan_remove(const struct ps_iface *ifc)
{
	__u32 id = ps_xdp_orphan(ifc->ifindex);
	char dir[256];
	int err;

	if (!id)
		return 0;
	err = orphan_detach(ifc->ifindex, id);
	if (err)
		return ps_error(
		    "cannot remove pathscope's XDP program (id %u) left on '%s' without "
		    "its pins: %s",
		    id, ifc->name, strerror(-err));
	/* The directories its pins were in, if left empty. */
	ps_pin_dir(dir, sizeof(dir), ps_netns_ino(), ifc->ifindex);
	*strrchr(dir, '/') = '\0';
	rmdir(dir);
	rmdir(PS_PIN_ROOT);
	fprintf(stderr,
		"pathscope: '%s': removed pathscope's XDP program (id %u) left without its "
		"pins\n",
		ifc->name, id);
	return 0;
}

int ps_xdp_orphan_detach(const char *ifname)
{
	struct ps_iface ifc;
	char dir[256];
	int err;

	if (ps_iface_get(ifname, 0, &ifc))
		return 0; /* detach says what is wrong */
	ps_pin_dir(dir, sizeof(dir), ps_netns_ino(), ifc.ifindex);
	if (access(dir, F_OK) == 0 || !ps_xdp_orphan(ifc.ifindex))
		return 0;
	if (ps_require_privileges() || ps_pins_lock())
		return -1;
	err = access(dir, F_OK) == 0 ? 0 : ps_xdp_orphan(ifc.ifindex) ? 1 : 0;
	if (err)
		err = ps_xdp_orphan_remove(&ifc) ? -1 : 1;
	ps_pins_unlock();
	return err;
}

void ps_xdp_orphan_foreach(void (*fn)(const char *ifname, int ifindex, __u32 id, void *ctx),
			   void *ctx)
{
	struct if_nameindex *ifs = if_nameindex(), *i;
	char dir[256];
	__u32 id;

	if (!ifs)
		return;
	for (i = ifs; i->if_index; i++) {
		ps_pin_dir(dir, sizeof(dir), ps_netns_ino(), (int)i->if_index);
		if (access(dir, F_OK) == 0)
			continue;
		id = ps_xdp_orphan((int)i->if_index);
		if (id)
			fn(i->if_name, (int)i->if_index, id, ctx);
	}
	if_freenameindex(ifs);
}
