// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* XDP chain and join modes: in front of someone's XDP program (xdp_chain.h). */
#include "loader/xdp_chain.h"

#include <bpf/bpf.h>
#include <errno.h>
#include <linux/if_link.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "loader/pins.h"
#include "loader/xdp_peer.h"
#include "lib/util.h"

int ps_xdp_join_parse(const char *spec, struct ps_meta *m)
{
	const char *colon = strrchr(spec, ':');
	uint64_t slot;

	if (!colon || colon == spec || (size_t)(colon - spec) >= sizeof(m->join_path) ||
	    !ps_parse_u64(colon + 1, UINT32_MAX, &slot))
		return ps_error("bad --xdp-join '%s' (PINNED_PROG_ARRAY:SLOT, e.g. "
				"/sys/fs/bpf/lb/root_array:0)",
				spec);
	snprintf(m->join_path, sizeof(m->join_path), "%.*s", (int)(colon - spec), spec);
	m->join_slot = (__u32)slot;
	return 0;
}

/* The pinned root array of join mode, checked: a program array. */
static int open_root_array(const struct ps_meta *m, struct bpf_map_info *info)
{
	__u32 len = sizeof(*info);
	int fd = bpf_obj_get(m->join_path);

	if (fd < 0)
		return ps_error("cannot open '%s': %s", m->join_path, strerror(errno));
	memset(info, 0, sizeof(*info));
	if (bpf_obj_get_info_by_fd(fd, info, &len) || info->type != BPF_MAP_TYPE_PROG_ARRAY) {
		close(fd);
		return ps_error("'%s' is not a BPF program array", m->join_path);
	}
	return fd;
}

int ps_xdp_chain_prepare(struct bpf_map *chain_map, volatile __u32 *chain_first, struct ps_meta *m)
{
	struct bpf_map_info info;
	int fd, err;

	*chain_first = 0;
	if (m->xdp_mode != PS_XDP_JOIN)
		return 0;
	fd = open_root_array(m, &info);
	if (fd < 0)
		return -1;
	if (m->join_slot >= info.max_entries) {
		close(fd);
		return ps_error("slot %u is past the end of '%s' (%u slots)", m->join_slot,
				m->join_path, info.max_entries);
	}
	*chain_first = m->join_slot + 1;
	err = bpf_map__reuse_fd(chain_map, fd);
	close(fd);
	if (err)
		return ps_error("cannot use '%s': %s", m->join_path, strerror(-err));
	return 0;
}

static __u32 prog_id_of_fd(int fd)
{
	struct bpf_prog_info info = {};
	__u32 len = sizeof(info);

	return bpf_obj_get_info_by_fd(fd, &info, &len) ? 0 : info.id;
}

/* libxdp's tools tell what an interface runs by the program attached there
 * (xdp_peer.h): in front of a program they manage, pathscope's would be
 * taken for it, and xdp-filter drops its own pins on the first look. */
static int refuse_libxdp(int old_fd, const char *ifname)
{
	struct ps_xdp_peer p;
	char what[400];

	ps_xdp_peer_describe(old_fd, ifname, &p);
	if (!p.libxdp)
		return 0;
	if (p.dispatcher)
		return ps_error("'%s' runs libxdp's dispatcher (XDP program %u): attach without "
				"--xdp-chain, and libxdp runs pathscope first in it",
				ifname, p.id);
	ps_xdp_peer_format(&p, what, sizeof(what));
	return ps_error("'%s': %s is managed through libxdp, whose tools would take pathscope's "
			"program for it and lose track of it; not chaining (--no-xdp measures at "
			"tc only; on a kernel with freplace, attach without --xdp-chain and "
			"libxdp's dispatcher runs both)",
			ifname, what);
}

int ps_xdp_chain_check(int ifindex, const char *ifname)
{
	LIBBPF_OPTS(bpf_xdp_query_opts, q);
	int fd, err;

	if (bpf_xdp_query(ifindex, 0, &q) || !q.prog_id)
		return 0; /* attach_chain() says what is wrong */
	fd = bpf_prog_get_fd_by_id(q.prog_id);
	if (fd < 0)
		return 0;
	err = refuse_libxdp(fd, ifname);
	close(fd);
	return err;
}

static int attach_chain(int prog_fd, int chain_map_fd, const char *dir, struct ps_meta *m)
{
	LIBBPF_OPTS(bpf_xdp_query_opts, q);
	LIBBPF_OPTS(bpf_xdp_attach_opts, a);
	__u32 zero = 0;
	int old_fd, err;

	if (bpf_xdp_query((int)m->ifindex, 0, &q))
		return ps_error("cannot query XDP state of '%s': %s", m->ifname, strerror(errno));
	if (q.attach_mode == XDP_ATTACHED_NONE)
		return ps_error("'%s' has no XDP program to chain; attach without --xdp-chain",
				m->ifname);
	if (q.attach_mode == XDP_ATTACHED_MULTI || q.attach_mode == XDP_ATTACHED_HW)
		return ps_error("'%s': chain mode takes over a single driver or generic XDP "
				"program, not %s",
				m->ifname,
				q.attach_mode == XDP_ATTACHED_HW ? "offload" : "several");
	m->chain_flags =
	    q.attach_mode == XDP_ATTACHED_SKB ? XDP_FLAGS_SKB_MODE : XDP_FLAGS_DRV_MODE;
	m->chain_prog_id = q.prog_id;
	old_fd = bpf_prog_get_fd_by_id(q.prog_id);
	if (old_fd < 0)
		return ps_error("cannot open XDP program %u of '%s': %s", q.prog_id, m->ifname,
				strerror(errno));
	if (refuse_libxdp(old_fd, m->ifname)) {
		close(old_fd);
		return -1;
	}
	/* The old program is in slot 0 before pathscope's goes in front of
	 * it, and it is replaced only if it is still the one attached. */
	err = bpf_map_update_elem(chain_map_fd, &zero, &old_fd, BPF_ANY);
	if (err) {
		err = -errno;
		close(old_fd);
		return ps_error("cannot chain XDP program %u: %s (a program of another kind, "
				"or device-bound?)",
				q.prog_id, strerror(-err));
	}
	err = ps_pin_fd(dir, "xdp_chained", old_fd);
	if (err) {
		close(old_fd);
		return ps_error("cannot pin XDP program %u under %s: %s", q.prog_id, dir,
				strerror(-err));
	}
	a.old_prog_fd = old_fd;
	err = bpf_xdp_attach((int)m->ifindex, prog_fd, m->chain_flags | XDP_FLAGS_REPLACE, &a);
	close(old_fd);
	if (err)
		return ps_error("cannot put pathscope in front of XDP program %u on '%s': %s",
				q.prog_id, m->ifname, strerror(-err));
	return 0;
}

static int attach_join(int prog_fd, struct ps_meta *m)
{
	struct bpf_map_info info;
	__u32 id;
	int fd, err;

	fd = open_root_array(m, &info);
	if (fd < 0)
		return -1;
	if (bpf_map_lookup_elem(fd, &m->join_slot, &id) == 0) {
		close(fd);
		return ps_error("slot %u of '%s' holds program %u; pathscope takes only an empty "
				"slot",
				m->join_slot, m->join_path, id);
	}
	/* Program arrays take only BPF_ANY; the slot was empty just above. */
	err = bpf_map_update_elem(fd, &m->join_slot, &prog_fd, BPF_ANY);
	err = err ? -errno : 0;
	close(fd);
	if (err)
		return ps_error("cannot join '%s' at slot %u: %s", m->join_path, m->join_slot,
				strerror(-err));
	return 0;
}

int ps_xdp_chain_attach(int prog_fd, int chain_map_fd, const char *dir, struct ps_meta *m)
{
	int err = m->xdp_mode == PS_XDP_JOIN ? attach_join(prog_fd, m)
					     : attach_chain(prog_fd, chain_map_fd, dir, m);

	if (!err)
		m->xdp_prog_id = prog_id_of_fd(prog_fd); /* what detach will undo */
	return err;
}

bool ps_xdp_chain_live(const struct ps_meta *m)
{
	LIBBPF_OPTS(bpf_xdp_query_opts, q);
	struct bpf_map_info info;
	__u32 id = 0;
	int fd;

	if (m->xdp_mode == PS_XDP_CHAIN)
		return bpf_xdp_query((int)m->ifindex, 0, &q) == 0 && q.prog_id == m->xdp_prog_id;
	fd = open_root_array(m, &info);
	if (fd < 0)
		return false;
	if (bpf_map_lookup_elem(fd, &m->join_slot, &id))
		id = 0;
	close(fd);
	return id == m->xdp_prog_id;
}

void ps_xdp_chain_detach(const char *dir, const struct ps_meta *m)
{
	LIBBPF_OPTS(bpf_xdp_attach_opts, a);
	int fd, old_fd, err;

	if (!m->xdp_prog_id)
		return; /* never attached */
	if (!ps_xdp_chain_live(m)) {
		ps_error("'%s': pathscope's XDP program is no longer in place; left as it is",
			 m->ifname);
		return;
	}
	if (m->xdp_mode == PS_XDP_JOIN) {
		fd = bpf_obj_get(m->join_path);
		if (fd >= 0 && bpf_map_delete_elem(fd, &m->join_slot))
			ps_error("cannot empty slot %u of '%s': %s", m->join_slot, m->join_path,
				 strerror(errno));
		if (fd >= 0)
			close(fd);
		return;
	}
	/* Put the original program back, atomically, in place of ours; both
	 * are pinned (opening them by id would need CAP_SYS_ADMIN). */
	old_fd = ps_pin_open(dir, "xdp_chained");
	fd = ps_pin_open(dir, "xdp_prog");
	if (old_fd < 0 || fd < 0) {
		ps_error("'%s': cannot reopen the chained XDP programs: %s", m->ifname,
			 strerror(-(old_fd < 0 ? old_fd : fd)));
	} else {
		a.old_prog_fd = fd;
		err =
		    bpf_xdp_attach((int)m->ifindex, old_fd, m->chain_flags | XDP_FLAGS_REPLACE, &a);
		if (err)
			ps_error("'%s': cannot restore XDP program %u: %s", m->ifname,
				 m->chain_prog_id, strerror(-err));
	}
	if (old_fd >= 0)
		close(old_fd);
	if (fd >= 0)
		close(fd);
}
