/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* `pathscope status`: one attachment as a table line or a JSON object, from
 * its (checked) meta, its state in words and its map memory. */
#ifndef PATHSCOPE_STATUS_FORMAT_H
#define PATHSCOPE_STATUS_FORMAT_H

#include <json-c/json.h>
#include <stdint.h>
#include <stdio.h>
#include <linux/types.h>

#include "loader/map_memory.h"
#include "loader/xdp_peer.h"
#include "pathscope/meta.h"

void ps_status_header(FILE *out);
void ps_status_line(FILE *out, const struct ps_meta *m, const char *state,
		    const struct ps_map_memory *mem);
json_object *ps_status_json(const char *dir, const struct ps_meta *m, const char *state,
			    const struct ps_map_memory *mem, uint64_t current_netns);

/* Chain mode: the program pathscope is chained in front of, as a line
 * under the attachment's and as its JSON member "chained" (null in the
 * other modes: p NULL). p->id 0: the program could not be read. */
void ps_status_chain_line(FILE *out, const struct ps_xdp_peer *p);
void ps_status_chain_json(json_object *o, const struct ps_xdp_peer *p);

/* A pin directory without a usable meta (interrupted or corrupt). */
void ps_status_incomplete_line(FILE *out, const char *dir, const char *reason);
json_object *ps_status_incomplete_json(const char *dir, const char *reason, uint64_t current_netns);

#endif /* PATHSCOPE_STATUS_FORMAT_H */
