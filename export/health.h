/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Is an attachment served by `pathscope serve` still live? (/healthz, pathscope_up) */
#ifndef PATHSCOPE_EXPORT_HEALTH_H
#define PATHSCOPE_EXPORT_HEALTH_H

#include <stddef.h>
#include <linux/types.h>

#include "pathscope/meta.h"

/* Check the attachment pinned in dir, as `pathscope status` does: the
 * pinned state is there, its interface is followed by identity (a renamed
 * one is still live), the XDP program (or chain) and the TCX link are still
 * pathscope's. Returns 0 when live; 1 when the pinned state is there but
 * not live; -1 when there is none. why (whylen bytes) gets the state ("ok",
 * "ok (renamed to X)", ...) or a short reason. */
int ps_serve_health(const char *dir, char *why, size_t whylen);

/* After detach: is pathscope's XDP program (meta m) still attached? */
int ps_serve_xdp_left(const struct ps_meta *m);

#endif /* PATHSCOPE_EXPORT_HEALTH_H */
