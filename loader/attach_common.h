/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* What the steps of one attach share, below them all (attach_xdp.c, attach_tc.c,
 * attach_probes.c, run by attach.c, undone by detach.c): what was asked, the
 * state one attach holds open, and the helpers they call. */
#ifndef PATHSCOPE_LOADER_ATTACH_COMMON_H
#define PATHSCOPE_LOADER_ATTACH_COMMON_H

#include <linux/types.h>

#include "pathscope/meta.h"

struct bpf_object;
struct pathscope_xdp;
struct pathscope_tc;
struct pathscope_txlat;
struct pathscope_sock;
struct xdp_program;

enum ps_xdp_request { PS_XDP_REQ_AUTO, PS_XDP_REQ_NATIVE, PS_XDP_REQ_SKB };
enum ps_tc_request { PS_TC_REQ_AUTO, PS_TC_REQ_TCX, PS_TC_REQ_CLSACT };
enum ps_probe_request { PS_PROBE_REQ_AUTO, PS_PROBE_REQ_TP_BTF, PS_PROBE_REQ_TRACEPOINT };

/* Everything one attach holds open until its state is pinned. */
struct ps_attach_state {
	struct ps_meta meta;
	char dir[256];
	struct pathscope_xdp *xdp;
	struct xdp_program *xdp_prog;
	struct pathscope_tc *tc;
	struct pathscope_txlat *txlat;
	struct pathscope_sock *sock;
};

/* The settings every hook program reads (count.bpf.h, tcp.bpf.h), the same
 * names in the XDP and the tc skeleton's rodata. */
#define PS_SET_HOOK_RODATA(rd, m)                                      \
	do {                                                           \
		int i_;                                                \
                                                                       \
		(rd)->ps_features = (m)->features;                     \
		(rd)->ps_nqueues = (m)->nqueues;                       \
		(rd)->ps_all_queues = (m)->all_queues;                 \
		for (i_ = 0; i_ < PS_QMASK_WORDS; i_++)                \
			(rd)->ps_queue_mask[i_] = (m)->queue_mask[i_]; \
		(rd)->ps_tcp_prefix4 = (m)->tcp_prefix4;               \
		(rd)->ps_tcp_prefix6 = (m)->tcp_prefix6;               \
	} while (0)

/* Give every per-queue map of obj its nqueues + 1 slots, and the maps of a
 * feature that is off one. */
void ps_size_queue_maps(struct bpf_object *obj, const struct ps_meta *m);
/* The id of the program behind fd, 0 when it cannot be read. */
int ps_prog_id_of(int fd);
/* Pin the maps of the ingress/egress matching (ICMP echo, TCP) from obj. */
int ps_pin_rx_maps(const char *dir, struct bpf_object *obj);

#endif /* PATHSCOPE_LOADER_ATTACH_COMMON_H */
