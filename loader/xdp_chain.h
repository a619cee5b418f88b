/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* XDP chain mode, for interfaces that already run someone's XDP program (a load
 * balancer) on kernels where libxdp's dispatcher cannot work (no freplace). */
#ifndef PATHSCOPE_LOADER_XDP_CHAIN_H
#define PATHSCOPE_LOADER_XDP_CHAIN_H

#include <bpf/libbpf.h>
#include <stdbool.h>

#include "pathscope/meta.h"

/* The two modes:
 *   chain  pathscope's program replaces the attached one atomically and
 *          tail-calls it, so its verdicts stay exactly as they were; detach
 *          puts it back.
 *   join   pathscope's program goes into an empty slot of the balancer's
 *          pinned root program array (Katran's shared mode) and tail-calls
 *          the slots after it; detach empties the slot. */

/* Parse "PATH:SLOT" of --xdp-join into m->join_path and m->join_slot. */
int ps_xdp_join_parse(const char *spec, struct ps_meta *m);

/* Before anything is loaded, in chain mode: refuse (-1, one line on stderr)
 * when the XDP program of the interface is managed through libxdp, whose
 * tools would lose track of it behind pathscope's (xdp_peer.h). attach
 * checks again on the program it takes over. */
int ps_xdp_chain_check(int ifindex, const char *ifname);

/* Before load: point the program's chain map at the root array (join) and
 * set where the tail calls of pathscope_xdp_chain start. chain_map is the
 * program's xdp_chain. */
int ps_xdp_chain_prepare(struct bpf_map *chain_map, volatile __u32 *chain_first, struct ps_meta *m);

/* After load: put pathscope's program prog_fd in front of the other one
 * (m->xdp_mode says how); fills m->xdp_prog_id and the chain fields. In
 * chain mode the original program is pinned in dir ("xdp_chained"), so that
 * detach can put it back without CAP_SYS_ADMIN. */
int ps_xdp_chain_attach(int prog_fd, int chain_map_fd, const char *dir, struct ps_meta *m);

/* Undo: restore the original program, or empty the slot; only where
 * pathscope's program is still the one in place. */
void ps_xdp_chain_detach(const char *dir, const struct ps_meta *m);

/* Is pathscope's program still where it was put? */
bool ps_xdp_chain_live(const struct ps_meta *m);

#endif /* PATHSCOPE_LOADER_XDP_CHAIN_H */
