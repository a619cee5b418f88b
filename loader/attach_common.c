// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* What the attach steps share: map sizes, program ids, the pins of the
 * matching that spans ingress and egress. */
#include "loader/attach_common.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <stdlib.h>

#include "pathscope/abi.h"
#include "loader/pins.h"

int ps_prog_id_of(int fd)
{
	struct bpf_prog_info info = {};
	__u32 len = sizeof(info);

	return bpf_obj_get_info_by_fd(fd, &info, &len) ? 0 : (int)info.id;
}

/* The per-queue maps of the objects: nqueues + 1 slots each. */
static const char *const per_queue_maps[] = {
	"xdp_stats",  "tci_stats", "tce_stats",	   "icmp_stats", "d2s_stats",
	"tcp_stats",  "tcp_hist",  "sock_stats",   "sock_hist",	 "txlat_stats",
	"kern_stats", "flows_q",   "flows_rxhash", "fh_stats",	 "fh_thread",
};

/* The maps a feature alone uses. The XDP and tc objects declare them all;
 * with the feature off the verifier has removed every access, so they get
 * one entry and cost next to nothing (stats reads a per-queue map with
 * fewer than nqueues + 1 entries as absent). */
static const struct {
	const char *name;
	__u32 feature;
} feature_maps[] = {
	{ "icmp_pending", PS_F_ICMP },	{ "icmp_stats", PS_F_ICMP },
	{ "icmp_waiting", PS_F_ICMP },	{ "icmp_peers", PS_F_ICMP },
	{ "d2s_slot", PS_F_D2S },	{ "d2s_stats", PS_F_D2S },
	{ "tcp_flows", PS_F_TCP },	{ "tcp_halfopen", PS_F_TCP },
	{ "tcp_stats", PS_F_TCP },	{ "tcp_hist", PS_F_TCP },
	{ "tcp_peers", PS_F_TCP },	{ "sock_tick", PS_F_SOCK },
	{ "sock_pending", PS_F_SOCK },	{ "sock_stats", PS_F_SOCK },
	{ "sock_hist", PS_F_SOCK },	{ "tcp_seen", PS_F_TCP },
	{ "sock_ports", PS_F_SOCK },	{ "sock_armed", PS_F_SOCK },
	{ "sock_addr", PS_F_SOCK },	{ "flows", PS_F_FLOWS },
	{ "flows_q", PS_F_FLOWS },	{ "flow_tick", PS_F_FLOWS },
	{ "flows_rxhash", PS_F_FLOWS }, { "fh_stats", PS_F_FIRSTHOP },
	{ "fh_cpu", PS_F_FIRSTHOP },	{ "fh_thread", PS_F_FIRSTHOP },
};

void ps_size_queue_maps(struct bpf_object *obj, const struct ps_meta *m)
{
	struct bpf_map *map;
	size_t i;

	for (i = 0; i < sizeof(per_queue_maps) / sizeof(per_queue_maps[0]); i++) {
		map = bpf_object__find_map_by_name(obj, per_queue_maps[i]);
		if (map)
			bpf_map__set_max_entries(map, m->nqueues + 1);
	}
	for (i = 0; i < sizeof(feature_maps) / sizeof(feature_maps[0]); i++) {
		map = bpf_object__find_map_by_name(obj, feature_maps[i].name);
		if (map && !(m->features & feature_maps[i].feature))
			bpf_map__set_max_entries(map, 1);
	}
}

/* The maps of the matching that spans ingress and egress, pinned from the
 * object that owns them (XDP's, or tc's without XDP; the other one reuses
 * them). The "other" entries of the peer maps (key 0) are created first, so
 * that they always have room and the first peers get entries of their own. */
static const char *const rx_maps[] = { "icmp_pending", "icmp_stats", "icmp_peers", "tcp_flows",
				       "tcp_halfopen", "tcp_stats",  "tcp_hist",   "tcp_peers" };

static int add_other_entry(struct bpf_object *obj, const char *map, size_t key_size,
			   size_t value_size)
{
	void *key = calloc(1, key_size), *zero = calloc(1, value_size);
	int err = -ENOMEM;

	if (key && zero) {
		err = bpf_map_update_elem(bpf_object__find_map_fd_by_name(obj, map), key, zero,
					  BPF_NOEXIST)
			  ? -errno
			  : 0;
		if (err == -EEXIST)
			err = 0;
	}
	free(key);
	free(zero);
	return err;
}

int ps_pin_rx_maps(const char *dir, struct bpf_object *obj)
{
	size_t i;
	int err;

	err = add_other_entry(obj, "icmp_peers", sizeof(struct ps_peer_key),
			      sizeof(struct ps_peer_stats));
	if (!err)
		err = add_other_entry(obj, "tcp_peers", sizeof(struct ps_tcp_peer_key),
				      sizeof(struct ps_tcp_peer_stats));
	for (i = 0; !err && i < sizeof(rx_maps) / sizeof(rx_maps[0]); i++)
		err = ps_pin_fd(dir, rx_maps[i], bpf_object__find_map_fd_by_name(obj, rx_maps[i]));
	return err;
}
