/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* `pathscope status`: one attachment as a table line or a JSON object, from
 * its (checked) meta, its state in words and its map memory. */
#ifndef PATHSCOPE_STATS_RENDER_STATUS_H
#define PATHSCOPE_STATS_RENDER_STATUS_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <linux/types.h>

#include "loader/map_memory.h"
#include "loader/xdp_peer.h"
#include "pathscope/meta.h"

/* The text table: rows gathered first, so that each column is as wide as
 * its content, then printed (and freed) at once. */
#define PS_STATUS_COLS 9
struct ps_status_row {
	bool has_cells;			/* false: a line of its own (note) */
	char cell[PS_STATUS_COLS][128]; /* IFACE ... STATE */
	char note[320];			/* the features line under the row */
	char state_line[320];		/* the whole state, when it has a detail */
	char note2[640];		/* a further line under it (chain mode) */
};
struct ps_status_table {
	struct ps_status_row *rows;
	size_t n;
};

void ps_status_table_row(struct ps_status_table *t, const struct ps_meta *m, const char *state,
			 const struct ps_map_memory *mem);
/* A line under the last row (one: a second replaces it); a line of its own. */
void ps_status_table_note(struct ps_status_table *t, const char *text);
void ps_status_table_line(struct ps_status_table *t, const char *text);
void ps_status_table_print(FILE *out, struct ps_status_table *t);
json_object *ps_status_json(const char *dir, const struct ps_meta *m, const char *state,
			    const struct ps_map_memory *mem, uint64_t current_netns);

/* Chain mode: the program pathscope is chained in front of, as a line
 * under the attachment's and as its JSON member "chained" (null in the
 * other modes: p NULL). p->id 0: the program could not be read. */
void ps_status_chain_text(char *buf, size_t len, const struct ps_xdp_peer *p);
void ps_status_chain_json(json_object *o, const struct ps_xdp_peer *p);

/* A pin directory without a usable meta (interrupted or corrupt). */
void ps_status_incomplete_text(char *buf, size_t len, const char *dir, const char *reason);
json_object *ps_status_incomplete_json(const char *dir, const char *reason, uint64_t current_netns);
/* pathscope's programs left on ifname without their pins (an orphan):
 * what says which (loader/xdp_live.h, ps_orphan_text); tc_id[2]: the clsact
 * filters' programs, ingress and egress, 0 when not left. */
void ps_status_orphan_text(char *buf, size_t len, const char *ifname, const char *what);
json_object *ps_status_orphan_json(const char *ifname, int ifindex, __u32 xdp_id,
				   const unsigned int *tc_id, const char *what,
				   uint64_t current_netns);

#endif /* PATHSCOPE_STATS_RENDER_STATUS_H */
