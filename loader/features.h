/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* What this kernel supports (feature probes), for attach and `pathscope features`. */
#ifndef PATHSCOPE_LOADER_FEATURES_H
#define PATHSCOPE_LOADER_FEATURES_H

#include <linux/types.h>
#include <stdbool.h>

struct ps_features {
	char release[65]; /* uname -r */
	bool btf;
	bool tcx;
	bool tp_btf;
	bool fentry;
	bool freplace;
	bool dispatcher; /* freplace takes pathscope's XDP program (6.1: yes, 5.10: no) */
	bool kprobes;
	bool xdp_metadata_kfuncs;
	bool xdp_rx_hash; /* bpf_xdp_metadata_rx_hash(ctx, hash, type) (6.3) */
	bool bpf_stats_available;
	bool bpf_stats_enabled;
	bool bpffs;
	bool kern_ctx;	       /* the kfunc bpf_cast_to_kern_ctx (Linux 6.2) */
	bool sock_tracepoints; /* sock:sk_data_ready, sock:sock_recv_length (6.3) */
	bool drop_reason;      /* skb:kfree_skb's reason (5.17) */
};

void ps_features_probe(struct ps_features *f);

/* Can this kernel load tp_btf programs? (One probe of ps_features_probe.) */
bool ps_tp_btf_supported(void);

/* Can a classic tracepoint program be attached through a bpf_link, which a
 * pin can hold (BPF_PERF_EVENT links, Linux 5.15)? */
bool ps_perf_link_supported(void);

/* Can libxdp's dispatcher run pathscope's XDP program on this kernel? It
 * needs freplace, and an extension program whose global functions take the
 * context (not on Linux 5.10). PATHSCOPE_FORCE_FALLBACK=dispatcher says no. */
bool ps_dispatcher_takes_pathscope(void);

/* Does the kernel have the kfunc bpf_cast_to_kern_ctx (Linux 6.2)? The tc
 * programs read the TX queue without it, more slowly. PATHSCOPE_FORCE_FALLBACK
 * =kern_ctx says no, to test that way on a new kernel. */
bool ps_kern_ctx_supported(void);

/* Does the kernel have bpf_xdp_metadata_rx_hash() with its hash type
 * argument (Linux 6.3)? Then attach loads the XDP program device-bound with
 * feature flows where it runs alone. PATHSCOPE_FORCE_FALLBACK=rx_hash says no. */
bool ps_xdp_rx_hash_supported(void);

/* The features of the set that this kernel can run. Each one it cannot is
 * left out with one line on stderr naming what is missing and the first
 * Linux release that has it. */
__u32 ps_features_supported(__u32 features);

#endif /* PATHSCOPE_LOADER_FEATURES_H */
