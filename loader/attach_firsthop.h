/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* The first hop's step of attach (feature firsthop) and its links' pins. */
#ifndef PATHSCOPE_LOADER_ATTACH_FIRSTHOP_H
#define PATHSCOPE_LOADER_ATTACH_FIRSTHOP_H

#include "loader/attach_common.h"

/* 0, or -1 after one line on stderr. */
int ps_attach_firsthop(struct ps_attach_state *st, enum ps_probe_request req);

#define PS_FIRSTHOP_NLINKS 8
extern const char *const ps_firsthop_links[PS_FIRSTHOP_NLINKS];

#endif /* PATHSCOPE_LOADER_ATTACH_FIRSTHOP_H */
