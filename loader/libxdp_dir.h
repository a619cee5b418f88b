/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* libxdp takes its lock in /sys/fs/bpf/xdp and leaves the directory behind:
 * whoever calls libxdp notes whether it was absent, and removes it again. */
#ifndef PATHSCOPE_LOADER_LIBXDP_DIR_H
#define PATHSCOPE_LOADER_LIBXDP_DIR_H

#include <stdbool.h>

/* Is libxdp's lock directory absent (before a call into libxdp)? */
bool ps_libxdp_dir_absent(void);
/* Remove it again if it was absent before and is empty now (rmdir fails on a
 * directory in use by libxdp's dispatcher pins). */
void ps_libxdp_dir_tidy(bool was_absent);

#endif /* PATHSCOPE_LOADER_LIBXDP_DIR_H */
