/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* The XDP step of attach (attach.c runs it): 0, or -1 after one line on
 * stderr. */
#ifndef PATHSCOPE_LOADER_ATTACH_XDP_H
#define PATHSCOPE_LOADER_ATTACH_XDP_H

#include "loader/attach_common.h"
#include "loader/iface.h"

int ps_attach_xdp(struct ps_attach_state *st, enum ps_xdp_request req);

/* Refuse when any XDP program is attached: pathscope never replaces one
 * (a libxdp dispatcher takes one more). */
int ps_check_no_xdp(const struct ps_iface *ifc);

#endif /* PATHSCOPE_LOADER_ATTACH_XDP_H */
