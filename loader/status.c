// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * status: what is pinned under /sys/fs/bpf/pathscope, and whether it is
 * still live: the interface exists, the XDP program attached is still
 * pathscope's, the tc links or filters are there.
 */
#include "status.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <getopt.h>
#include <json-c/json.h>
#include <linux/if_link.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "iface.h"
#include "pins.h"
#include "queues.h"
#include "util.h"
#include "map_memory.h"
#include "xdp_chain.h"
#include "../stats/names.h"

struct status_ctx {
	bool json;
	json_object *list;
	int count;
};

const char *ps_attachment_health(const char *dir, const struct ps_meta *m, bool *in_reach)
{
	LIBBPF_OPTS(bpf_xdp_query_opts, q);
	struct ps_iface ifc;
	int self, fd;
	const char *state = "ok";

	*in_reach = true;
	if (m->flags & PS_META_ATTACHING)
		return ps_loader_alive(m) ? "attaching"
					  : "attach interrupted (loader gone); detach removes it";
	self = ps_netns_enter(m->netns_ino);
	if (self == -2) {
		*in_reach = false;
		return "unknown (namespace not reachable)";
	}
	if (ps_iface_get(NULL, m->ifindex, &ifc) || strcmp(ifc.name, m->ifname) != 0) {
		state =
		    ps_iface_get(NULL, m->ifindex, &ifc) ? "interface gone" : "interface renamed";
		goto out;
	}
	if ((m->xdp_mode == PS_XDP_CHAIN || m->xdp_mode == PS_XDP_JOIN) && !ps_xdp_chain_live(m)) {
		state = m->xdp_mode == PS_XDP_CHAIN ? "xdp chain replaced by someone else"
						    : "xdp join slot changed by someone else";
		goto out;
	}
	if (m->xdp_mode == PS_XDP_NATIVE || m->xdp_mode == PS_XDP_SKB) {
		if (bpf_xdp_query(m->ifindex, 0, &q) || q.attach_mode == XDP_ATTACHED_NONE) {
			state = "xdp detached by someone else";
			goto out;
		}
		if (q.attach_mode != XDP_ATTACHED_MULTI && q.prog_id != m->xdp_prog_id) {
			state = "xdp replaced by someone else";
			goto out;
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
out:
	ps_netns_leave(self);
	return state;
}

static int status_one(const char *dir, void *arg)
{
	struct status_ctx *c = arg;
	char feats[64], queues[128], since[32], memtxt[16];
	struct ps_map_memory mem;
	struct ps_meta m;
	const char *state;
	bool reach;
	time_t t;
	struct tm tm;
	int err;

	err = ps_meta_read(dir, &m);
	if (err) {
		if (c->json) {
			json_object *o = json_object_new_object();

			json_object_object_add(o, "pin_dir", json_object_new_string(dir));
			json_object_object_add(o, "state", json_object_new_string("incomplete"));
			json_object_array_add(c->list, o);
		} else {
			printf(
			    "%-16s %s: incomplete (no meta: %s); 'pathscope detach --gone' removes "
			    "it\n",
			    "?", dir, strerror(-err));
		}
		c->count++;
		return 0;
	}
	state = ps_attachment_health(dir, &m, &reach);
	ps_map_memory(dir, &mem);
	ps_features_format(m.features, feats, sizeof(feats));
	if (m.all_queues)
		snprintf(queues, sizeof(queues), "all");
	else
		ps_queues_format(m.queue_mask, queues, sizeof(queues));
	t = (time_t)(m.attach_realtime_ns / 1000000000ULL);
	gmtime_r(&t, &tm);
	strftime(since, sizeof(since), "%Y-%m-%dT%H:%M:%SZ", &tm);

	if (c->json) {
		json_object *o = json_object_new_object();

		json_object_object_add(o, "ifname", json_object_new_string(m.ifname));
		json_object_object_add(o, "ifindex", json_object_new_int(m.ifindex));
		json_object_object_add(o, "netns", json_object_new_uint64(m.netns_ino));
		json_object_object_add(o, "current_netns",
				       json_object_new_boolean(m.netns_ino == ps_netns_ino()));
		json_object_object_add(o, "xdp_mode",
				       json_object_new_string(ps_xdp_mode_name(m.xdp_mode)));
		json_object_object_add(o, "xdp_prog_id", json_object_new_int(m.xdp_prog_id));
		json_object_object_add(o, "tc_mode",
				       json_object_new_string(ps_tc_mode_name(m.tc_mode)));
		json_object_object_add(o, "features", json_object_new_string(feats));
		json_object_object_add(o, "queues", json_object_new_string(queues));
		json_object_object_add(o, "nqueues", json_object_new_int(m.nqueues));
		json_object_object_add(o, "attached_at", json_object_new_string(since));
		json_object_object_add(o, "state", json_object_new_string(state));
		json_object_object_add(o, "map_memory_bytes", json_object_new_uint64(mem.bytes));
		json_object_object_add(o, "maps", json_object_new_uint64(mem.nmaps));
		json_object_object_add(o, "maps_not_readable", json_object_new_uint64(mem.nmissed));
		json_object_object_add(o, "pin_dir", json_object_new_string(dir));
		json_object_array_add(c->list, o);
	} else {
		snprintf(memtxt, sizeof(memtxt), "%.1f MiB", (double)mem.bytes / (1 << 20));
		printf("%-16s %-8u %-12llu %-6s %-6s %-20s %-10s %-20s %-10s %s\n", m.ifname,
		       m.ifindex, (unsigned long long)m.netns_ino, ps_xdp_mode_name(m.xdp_mode),
		       ps_tc_mode_name(m.tc_mode), feats, queues, since, memtxt, state);
	}
	c->count++;
	return 0;
}

int ps_cmd_status(int argc, char **argv)
{
	static const struct option opts[] = { { "json", no_argument, NULL, 'j' },
					      { "help", no_argument, NULL, 'h' },
					      {} };
	struct status_ctx c = {};
	int ch;

	while ((ch = getopt_long(argc, argv, "jh", opts, NULL)) != -1) {
		if (ch == 'j')
			c.json = true;
		else if (ch == 'h') {
			printf(
			    "usage: pathscope status [--json]\n"
			    "List every pathscope attachment (all network namespaces) and whether\n"
			    "it is still live.\n");
			return 0;
		} else
			return 2;
	}
	if (optind < argc)
		return ps_error("status: unexpected argument '%s'", argv[optind]), 2;
	if (ps_require_privileges())
		return 1;
	if (c.json)
		c.list = json_object_new_array();
	else
		printf("%-16s %-8s %-12s %-6s %-6s %-20s %-10s %-20s %-10s %s\n", "IFACE", "IFINDEX",
		       "NETNS", "XDP", "TC", "FEATURES", "QUEUES", "ATTACHED", "MAPMEM", "STATE");
	ps_pin_foreach(status_one, &c);
	if (c.json) {
		printf("%s\n", json_object_to_json_string_ext(c.list, JSON_C_TO_STRING_PLAIN));
		json_object_put(c.list);
	} else if (!c.count) {
		printf("(nothing attached)\n");
	}
	return 0;
}
