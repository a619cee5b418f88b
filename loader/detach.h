/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* detach: undo an attachment, complete or partial, and drop its pins. */
#ifndef PATHSCOPE_LOADER_DETACH_H
#define PATHSCOPE_LOADER_DETACH_H

#include <stdbool.h>

#include "pathscope/meta.h"

/* Undo an attachment described by m (complete or partial) and drop its
 * pins, in its network namespace; ps_detach_dir enters that namespace. */
int ps_detach_meta(const char *dir, const struct ps_meta *m);
int ps_detach_dir(const char *dir, void *ctx);

/* Detach pathscope from ifname (current network namespace). */
int ps_detach_iface(const char *ifname);
/* Every attachment (all named network namespaces); gone_only: only those whose
 * interface is gone or whose attach was interrupted. */
int ps_detach_all(bool gone_only);

#endif /* PATHSCOPE_LOADER_DETACH_H */
