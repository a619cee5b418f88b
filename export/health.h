/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Is an attachment served by `pathscope serve` still live? (/healthz, pathscope_up) */
#ifndef PATHSCOPE_EXPORT_HEALTH_H
#define PATHSCOPE_EXPORT_HEALTH_H

#include <stddef.h>
#include <linux/types.h>

#include "pathscope/meta.h"

/* Check the attachment of ifname in the current network namespace, as
 * `pathscope status` does: the interface exists under its name, the pinned
 * state is there, the XDP program (or chain) and the TCX link are still
 * pathscope's. Returns 0 when live; 1 when the pinned state is there but not
 * live; -1 when there is none. dir (dirlen bytes) gets the pin directory
 * when the result is >= 0; why (whylen bytes) a short reason when not 0. */
int ps_serve_health(const char *ifname, char *dir, size_t dirlen, char *why, size_t whylen);

/* After detach: is pathscope's XDP program (meta m) still attached? */
int ps_serve_xdp_left(const struct ps_meta *m);

#endif /* PATHSCOPE_EXPORT_HEALTH_H */
