/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* The kernel memory of an attachment's maps, for `pathscope status`. */
#ifndef PATHSCOPE_LOADER_MAP_MEMORY_H
#define PATHSCOPE_LOADER_MAP_MEMORY_H

#include <stdint.h>

struct ps_map_memory {
	uint64_t bytes;	      /* sum of the kernel's memlock figure of each map */
	unsigned int nmaps;   /* distinct maps counted */
	unsigned int nmissed; /* maps seen by id that could not be opened (no CAP_SYS_ADMIN) */
};

/* Every map pinned in dir, and every map used by a program pinned there or
 * behind a pinned link, each counted once. 0, or -errno when dir is unreadable. */
int ps_map_memory(const char *dir, struct ps_map_memory *out);

#endif /* PATHSCOPE_LOADER_MAP_MEMORY_H */
