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
#include "pathscope/meta.h"

void ps_status_header(FILE *out);
void ps_status_line(FILE *out, const struct ps_meta *m, const char *state,
		    const struct ps_map_memory *mem);
json_object *ps_status_json(const char *dir, const struct ps_meta *m, const char *state,
			    const struct ps_map_memory *mem, uint64_t current_netns);

/* A pin directory without a usable meta (interrupted or corrupt). */
void ps_status_incomplete_line(FILE *out, const char *dir, const char *reason);
json_object *ps_status_incomplete_json(const char *dir, const char *reason);

#endif /* PATHSCOPE_STATUS_FORMAT_H */
