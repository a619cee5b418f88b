/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The steps of one attach (attach.c runs them in order) and their undo
 * (detach.c), shared inside the loader: the XDP program (attach_xdp.c), the
 * tc programs (attach_tc.c), the tracepoint probes (attach_probes.c).
 * Each step returns 0, or -1 after one line on stderr.
 */
#ifndef PATHSCOPE_ATTACH_STEPS_H
#define PATHSCOPE_ATTACH_STEPS_H

#include <stdbool.h>
#include <linux/types.h>

#include "loader/attach.h"
#include "loader/iface.h"
#include "pathscope/meta.h"
#include "pathscope_sock.skel.h"
#include "pathscope_tc.skel.h"
#include "pathscope_txlat.skel.h"
#include "pathscope_xdp.skel.h"

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

int ps_attach_xdp(struct ps_attach_state *st, enum ps_xdp_request req);
int ps_attach_tc(struct ps_attach_state *st, enum ps_tc_request req);
int ps_attach_txlat(struct ps_attach_state *st, enum ps_probe_request req);
int ps_attach_kernel(struct ps_attach_state *st, enum ps_probe_request req);
int ps_attach_sock(struct ps_attach_state *st, enum ps_probe_request req);

/* Refuse when any XDP program is attached: pathscope never replaces one
 * (a libxdp dispatcher takes one more). */
int ps_check_no_xdp(const struct ps_iface *ifc);

/* Undo an attachment described by m (complete or partial) and drop its
 * pins, in its network namespace; ps_detach_dir enters that namespace. */
int ps_detach_meta(const char *dir, const struct ps_meta *m);
int ps_detach_dir(const char *dir, void *ctx);

/* Helpers of the steps. */

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

/* Give every per-queue map of obj its nqueues + 1 slots. */
void ps_size_queue_maps(struct bpf_object *obj, const struct ps_meta *m);
int ps_prog_id_of(int fd);
/* Pin the maps of the ingress/egress matching (ICMP echo, TCP) from obj. */
int ps_pin_rx_maps(const char *dir, struct bpf_object *obj);
/* libxdp's lock directory: was it absent, and remove it again if so. */
bool ps_libxdp_dir_absent(void);
void ps_libxdp_dir_tidy(bool was_absent);

/* The pin names of the txlat and sock probes' tracepoint links. */
#define PS_TXLAT_NLINKS 4
extern const char *const ps_txlat_links[PS_TXLAT_NLINKS];
#define PS_SOCK_NLINKS 3
extern const char *const ps_sock_links[PS_SOCK_NLINKS];

#endif /* PATHSCOPE_ATTACH_STEPS_H */
