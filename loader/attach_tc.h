/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* The tc step of attach (attach.c runs it): 0, or -1 after one line on
 * stderr. */
#ifndef PATHSCOPE_LOADER_ATTACH_TC_H
#define PATHSCOPE_LOADER_ATTACH_TC_H

#include "loader/attach_common.h"

int ps_attach_tc(struct ps_attach_state *st, enum ps_tc_request req);

#endif /* PATHSCOPE_LOADER_ATTACH_TC_H */
