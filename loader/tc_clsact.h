/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Classic clsact attach (the fallback where TCX is missing) and TCX links. */
#ifndef PATHSCOPE_LOADER_TC_CLSACT_H
#define PATHSCOPE_LOADER_TC_CLSACT_H

#include <stdbool.h>

/* Does this kernel have TCX (>= 6.6)? Asks the kernel, attaches nothing. */
bool ps_tcx_supported(int ifindex);

/* Attach prog_fd as a TCX link first in line; returns the link fd. */
int ps_tcx_attach(int ifindex, int prog_fd, bool ingress);

/* Make sure the clsact qdisc is there; *created says whether this call
 * created it. */
int ps_clsact_create(int ifindex, bool *created);

/* Attach prog_fd as a cls_bpf filter (handle PS_TC_HANDLE, priority prio) on
 * the clsact qdisc. Never replaces an existing filter. */
int ps_clsact_attach(int ifindex, int prog_fd, bool ingress, unsigned int prio);

/* Remove pathscope's filter if it is still the program prog_id. */
/* The program of pathscope's filter (handle PS_TC_HANDLE) at prio; 0: none. */
unsigned int ps_clsact_prog_id(int ifindex, bool ingress, unsigned int prio);

int ps_clsact_detach(int ifindex, bool ingress, unsigned int prio, unsigned int prog_id);

/* Number of tc filters left on clsact ingress + egress (rtnetlink dump);
 * -errno on failure. */
int ps_clsact_filter_count(int ifindex);

/* Remove the clsact qdisc (only call when pathscope created it and
 * ps_clsact_filter_count() is 0). */
int ps_clsact_destroy(int ifindex);

#endif /* PATHSCOPE_LOADER_TC_CLSACT_H */
