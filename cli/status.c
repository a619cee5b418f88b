// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* `pathscope status`: every attachment, in every network namespace, and its
 * state (loader/status.c tells it). */
#include <errno.h>
#include <json-c/json.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli/commands.h"
#include "cli/options.h"
#include "lib/util.h"
#include "loader/map_memory.h"
#include "loader/pins.h"
#include "loader/status.h"
#include "stats/render/status.h"
#include "loader/xdp_live.h"
#include "loader/xdp_peer.h"
#include "stats/format/json.h"

struct status_ctx {
	bool json;
	json_object *list;
	struct ps_status_table table; /* text: printed once every row is in */
	int count;
};

/* Chain mode: the program pathscope took over, from its pin in dir (opened
 * without CAP_SYS_ADMIN); only the id recorded at attach when that is gone. */
static const struct ps_xdp_peer *chained_peer(const char *dir, const struct ps_meta *m,
					      struct ps_xdp_peer *p)
{
	int fd = ps_pin_open(dir, "xdp_chained");

	memset(p, 0, sizeof(*p));
	if (fd >= 0) {
		ps_xdp_peer_describe(fd, m->ifname, p);
		close(fd);
	}
	if (!p->id)
		p->id = m->chain_prog_id;
	return p;
}

static int status_one(const char *dir, void *arg)
{
	struct status_ctx *c = arg;
	const struct ps_xdp_peer *chained;
	struct ps_xdp_peer peer;
	struct ps_map_memory mem;
	json_object *o;
	struct ps_meta m;
	const char *state, *why;
	char reason[160], line[640];
	bool reach;
	int err;

	err = ps_meta_read_checked(dir, &m, &why);
	if (err) {
		snprintf(reason, sizeof(reason), "%s", why ? why : strerror(-err));
		if (c->json)
			json_object_array_add(
			    c->list, ps_status_incomplete_json(dir, reason, ps_netns_ino()));
		else {
			ps_status_incomplete_text(line, sizeof(line), dir, reason);
			ps_status_table_line(&c->table, line);
		}
		c->count++;
		return 0;
	}
	state = ps_attachment_health(dir, &m, &reach);
	ps_map_memory(dir, &mem);
	chained = m.xdp_mode == PS_XDP_CHAIN ? chained_peer(dir, &m, &peer) : NULL;
	if (c->json) {
		o = ps_status_json(dir, &m, state, &mem, ps_netns_ino());
		ps_status_chain_json(o, chained);
		json_object_array_add(c->list, o);
	} else {
		ps_status_table_row(&c->table, &m, state, &mem);
		if (chained) {
			ps_status_chain_text(line, sizeof(line), chained);
			ps_status_table_note(&c->table, line);
		}
	}
	c->count++;
	return 0;
}

/* pathscope's programs on an interface of this namespace that no
 * attachment records (its pins removed by hand): an orphan. */
static void orphan_one(const char *ifname, int ifindex, const struct ps_orphan *o, void *arg)
{
	struct status_ctx *c = arg;
	char what[192], line[320];

	ps_orphan_text(what, sizeof(what), o);
	if (c->json)
		json_object_array_add(c->list,
				      ps_status_orphan_json(ifname, ifindex, o->xdp_id, o->tc_id,
							    what, ps_netns_ino()));
	else {
		ps_status_orphan_text(line, sizeof(line), ifname, what);
		ps_status_table_line(&c->table, line);
	}
	c->count++;
}

static const char status_help[] =
    "usage: pathscope status [--json]\n"
    "List every pathscope attachment (all network namespaces) and whether\n"
    "it is still live.\n";

static const struct ps_opt status_opts[] = { { "json", 'j', NULL, "one JSON array" }, {} };

int ps_cmd_status(int argc, char **argv)
{
	static const struct ps_command cmd = {
		.about = status_help,
		.groups = { { .opts = status_opts, .col = 15 } },
	};
	struct status_ctx c = {};
	int ch, rc;

	while ((ch = ps_opt_next(&cmd, argc, argv, &rc)) != PS_OPT_END) {
		if (ch == PS_OPT_EXIT)
			return rc;
		c.json = true; /* 'j' */
	}
	if (ps_operand_none(argc, argv))
		return 2;
	if (ps_require_privileges())
		return 1;
	if (c.json)
		c.list = json_object_new_array();
	ps_pin_foreach(status_one, &c);
	ps_orphans_foreach(orphan_one, &c);
	if (c.json) {
		ps_json_print(stdout, c.list);
		json_object_put(c.list);
	} else if (!c.count) {
		printf("(nothing attached)\n");
	} else {
		ps_status_table_print(stdout, &c.table);
	}
	return 0;
}
