// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The words of `pathscope status`, kept apart from the kernel queries so the
 * fuzzer (tests/fuzz/fuzz_meta.c) can feed them any meta that passes the
 * check. */
#include "loader/status_format.h"

#include <string.h>
#include <time.h>

#include "lib/queues.h"
#include "lib/names.h"

struct status_words {
	char feats[64], queues[128], since[32];
};

static void words(const struct ps_meta *m, struct status_words *w)
{
	time_t t = (time_t)(m->attach_realtime_ns / 1000000000ULL);
	struct tm tm;

	ps_features_format(m->features, w->feats, sizeof(w->feats));
	if (m->all_queues)
		snprintf(w->queues, sizeof(w->queues), "all");
	else
		ps_queues_format(m->queue_mask, w->queues, sizeof(w->queues));
	if (!gmtime_r(&t, &tm) || !strftime(w->since, sizeof(w->since), "%Y-%m-%dT%H:%M:%SZ", &tm))
		snprintf(w->since, sizeof(w->since), "?");
}

void ps_status_header(FILE *out)
{
	fprintf(out, "%-16s %-8s %-12s %-6s %-6s %-20s %-10s %-20s %-10s %s\n", "IFACE", "IFINDEX",
		"NETNS", "XDP", "TC", "FEATURES", "QUEUES", "ATTACHED", "MAPMEM", "STATE");
}

void ps_status_line(FILE *out, const struct ps_meta *m, const char *state,
		    const struct ps_map_memory *mem)
{
	struct status_words w;
	char memtxt[24];

	words(m, &w);
	snprintf(memtxt, sizeof(memtxt), "%.1f MiB", (double)mem->bytes / (1 << 20));
	fprintf(out, "%-16s %-8u %-12llu %-6s %-6s %-20s %-10s %-20s %-10s %s\n", m->ifname,
		m->ifindex, (unsigned long long)m->netns_ino, ps_xdp_mode_name(m->xdp_mode),
		ps_tc_mode_name(m->tc_mode), w.feats, w.queues, w.since, memtxt, state);
}

json_object *ps_status_json(const char *dir, const struct ps_meta *m, const char *state,
			    const struct ps_map_memory *mem, uint64_t current_netns)
{
	json_object *o = json_object_new_object();
	struct status_words w;

	words(m, &w);
	json_object_object_add(o, "ifname", json_object_new_string(m->ifname));
	json_object_object_add(o, "ifindex", json_object_new_int64(m->ifindex));
	json_object_object_add(o, "netns", json_object_new_uint64(m->netns_ino));
	json_object_object_add(o, "current_netns",
			       json_object_new_boolean(m->netns_ino == current_netns));
	json_object_object_add(o, "xdp_mode",
			       json_object_new_string(ps_xdp_mode_name(m->xdp_mode)));
	json_object_object_add(o, "xdp_prog_id", json_object_new_int64(m->xdp_prog_id));
	json_object_object_add(o, "tc_mode", json_object_new_string(ps_tc_mode_name(m->tc_mode)));
	json_object_object_add(o, "features", json_object_new_string(w.feats));
	/* where arriving TCP segments are matched; null without feature tcp */
	json_object_object_add(o, "tcp_rx",
			       !(m->features & PS_F_TCP) ? NULL
			       : (m->flags & PS_META_TCP_RX_XDP) && m->xdp_mode != PS_XDP_NONE
				   ? json_object_new_string("xdp")
				   : json_object_new_string("tc"));
	json_object_object_add(o, "queues", json_object_new_string(w.queues));
	json_object_object_add(o, "nqueues", json_object_new_int64(m->nqueues));
	/* null: the driver reports no channels */
	json_object_object_add(
	    o, "rx_queues_at_attach",
	    m->rx_queues_at_attach ? json_object_new_int64(m->rx_queues_at_attach) : NULL);
	json_object_object_add(
	    o, "tx_queues_at_attach",
	    m->tx_queues_at_attach ? json_object_new_int64(m->tx_queues_at_attach) : NULL);
	json_object_object_add(o, "attached_at", json_object_new_string(w.since));
	json_object_object_add(o, "state", json_object_new_string(state));
	json_object_object_add(o, "map_memory_bytes", json_object_new_uint64(mem->bytes));
	json_object_object_add(o, "maps", json_object_new_uint64(mem->nmaps));
	json_object_object_add(o, "maps_not_readable", json_object_new_uint64(mem->nmissed));
	json_object_object_add(o, "pin_dir", json_object_new_string(dir));
	return o;
}

void ps_status_chain_line(FILE *out, const struct ps_xdp_peer *p)
{
	fprintf(out,
		"%-16s chained in front of XDP program %u '%s'; loaded by: %s; pinned at: %s\n", "",
		p->id, p->name[0] ? p->name : "?", p->tool[0] ? p->tool : "not known",
		p->pin[0] ? p->pin : "none found");
}

void ps_status_chain_json(json_object *o, const struct ps_xdp_peer *p)
{
	json_object *c;

	if (!p) {
		json_object_object_add(o, "chained", NULL);
		return;
	}
	c = json_object_new_object();
	json_object_object_add(c, "prog_id", json_object_new_int64(p->id));
	json_object_object_add(c, "name", p->name[0] ? json_object_new_string(p->name) : NULL);
	json_object_object_add(c, "loaded_by", p->tool[0] ? json_object_new_string(p->tool) : NULL);
	json_object_object_add(c, "pinned_at", p->pin[0] ? json_object_new_string(p->pin) : NULL);
	json_object_object_add(c, "libxdp", json_object_new_boolean(p->libxdp));
	json_object_object_add(o, "chained", c);
}

void ps_status_incomplete_line(FILE *out, const char *dir, const char *reason)
{
	fprintf(out, "%-16s %s: incomplete (no meta: %s); 'pathscope detach --gone' removes it\n",
		"?", dir, reason);
}

/* The namespace of a pin directory <root>/<netns inode>/<ifindex>, 0 if the
 * path has no such form. */
static uint64_t pin_dir_netns(const char *dir)
{
	const char *end = strrchr(dir, '/'), *p;
	unsigned long long ino = 0;

	if (!end || end == dir)
		return 0;
	for (p = end - 1; p > dir && *p != '/'; p--)
		;
	if (*p == '/' && sscanf(p + 1, "%llu/", &ino) != 1)
		return 0;
	return ino;
}

json_object *ps_status_incomplete_json(const char *dir, const char *reason, uint64_t current_netns)
{
	json_object *o = json_object_new_object();
	uint64_t netns = pin_dir_netns(dir);

	json_object_object_add(o, "pin_dir", json_object_new_string(dir));
	json_object_object_add(o, "netns", json_object_new_uint64(netns));
	json_object_object_add(o, "current_netns",
			       json_object_new_boolean(netns && netns == current_netns));
	json_object_object_add(o, "state", json_object_new_string("incomplete"));
	json_object_object_add(o, "reason", json_object_new_string(reason));
	return o;
}
