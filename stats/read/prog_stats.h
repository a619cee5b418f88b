/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* BPF run time of an attachment's programs (kernel.bpf_stats_enabled). */
#ifndef PATHSCOPE_STATS_READ_PROG_STATS_H
#define PATHSCOPE_STATS_READ_PROG_STATS_H

#include <stdint.h>

/* Run time of one BPF program of an attachment (kernel.bpf_stats_enabled). */
struct ps_prom_prog {
	char ifname[16];
	char program[64]; /* its pin name: xdp_prog, tci_link, k_napi_poll ... */
	uint64_t run_time_ns;
	uint64_t run_cnt;
};

/* kernel.bpf_stats_enabled: 1, 0, or -1 when it cannot be read. */
int ps_bpf_stats_enabled(void);

/* Append to out (room for max) the run time and count of every program
 * pinned in the attachment directory dir, and of the program behind every
 * pinned link, sorted by pin name. Programs behind links are opened by id,
 * which needs CAP_SYS_ADMIN: without it they are left out. Returns how many
 * were added. */
int ps_prog_stats_read(const char *dir, const char *ifname, struct ps_prom_prog *out, int max);

#endif /* PATHSCOPE_STATS_READ_PROG_STATS_H */
