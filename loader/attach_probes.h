/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* The tracepoint steps of attach (attach.c runs them): 0, or -1 after one
 * line on stderr; and the pin names of their links, which detach.c removes. */
#ifndef PATHSCOPE_LOADER_ATTACH_PROBES_H
#define PATHSCOPE_LOADER_ATTACH_PROBES_H

#include "loader/attach_common.h"

int ps_attach_txlat(struct ps_attach_state *st, enum ps_probe_request req);
int ps_attach_kernel(struct ps_attach_state *st, enum ps_probe_request req);
int ps_attach_sock(struct ps_attach_state *st, enum ps_probe_request req);
int ps_attach_firsthop(struct ps_attach_state *st, enum ps_probe_request req);

/* The pin names of the txlat and sock probes' tracepoint links. */
#define PS_TXLAT_NLINKS 4
extern const char *const ps_txlat_links[PS_TXLAT_NLINKS];
#define PS_SOCK_NLINKS 3
extern const char *const ps_sock_links[PS_SOCK_NLINKS];
#define PS_FIRSTHOP_NLINKS 8
extern const char *const ps_firsthop_links[PS_FIRSTHOP_NLINKS];

#endif /* PATHSCOPE_LOADER_ATTACH_PROBES_H */
