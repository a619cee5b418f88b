// SPDX-License-Identifier: GPL-2.0
/* Driver ingress: count and classify every frame per RX queue, match ICMP echoes and
 * TCP timestamps and handshakes, sample for driver-to-stack latency and for the flows
 * of each queue, then pass the frame on (XDP_PASS, or a tail call in chain mode). */
#include "pathscope/kernel_types.bpf.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>
#include "pathscope/d2s.bpf.h"
#include "pathscope/icmp.bpf.h"
#include "pathscope/feature.bpf.h"
#include "pathscope/firsthop.bpf.h"
#include "pathscope/flows.bpf.h"
#include "pathscope/tcp.bpf.h"

PS_QSTATS_MAP(xdp_stats);

/* Chain and join modes (pathscope_xdp_chain): tail-call the first program
 * found in xdp_chain from slot ps_chain_first on (set by the loader); XDP_PASS
 * when there is none. */
const volatile __u32 ps_chain_first = 0;

struct {
	__uint(type, BPF_MAP_TYPE_PROG_ARRAY);
	__uint(max_entries, PS_XDP_CHAIN_SLOTS); /* join mode: the loader reuses the root array */
	__type(key, __u32);
	__type(value, __u32);
} xdp_chain SEC(".maps");

PS_FEATURE(ps_xdp_icmp, struct xdp_md, ctx, ps_icmp_rx(data, data_end, p, slot))
PS_FEATURE(ps_xdp_d2s, struct xdp_md, ctx, ps_d2s_xdp(data, data_end, p, data_end - data, slot))
PS_FEATURE(ps_xdp_tcp, struct xdp_md, ctx, ps_tcp_rx(data, data_end, p, slot, 1))
PS_FEATURE(ps_xdp_flows, struct xdp_md, ctx, ps_flows_xdp(data, data_end, p, data_end - data, slot))

/* Arriving TCP segments are matched here only with attach --tcp-rx xdp:
 * every frame then pays for the timestamp option's read and the tcp_seen
 * check. By default tc ingress matches them after GRO, once per skb. */
const volatile __u32 ps_tcp_rx_at_xdp = 0;

/* Count and classify the frame, and run the enabled features on it; when
 * bound (the device-bound program only), the RX hash type of the frames
 * sampled for flows and the RX timestamp of those placed by firsthop too. */
static __always_inline void ps_xdp_measure(struct xdp_md *ctx, int bound)
{
	void *data = (void *)(long)ctx->data;
	void *data_end = (void *)(long)ctx->data_end;
	__u32 features = ps_features_now();
	long idx = ps_queue_index(ctx->rx_queue_index);
	__u32 key = (__u32)idx;
	struct ps_qstats *s;
	struct ps_pkt pkt = {}; /* all of it goes to the feature calls */
	int parsed;

	if (idx < 0)
		return;
	s = bpf_map_lookup_elem(&xdp_stats, &key);
	if (!s)
		return;
	parsed = ps_count(features, s, data, data_end, data_end - data, &pkt);
	if (features & PS_F_FIRSTHOP) {
		ps_firsthop_xdp(key);
		if (bound)
			ps_firsthop_wire(ctx, s, key);
	}
	if (!parsed)
		return;
	if ((features & PS_F_ICMP) && ps_icmp_worth(data, data_end, &pkt, PS_ICMP_OUT))
		PS_FEATURE_CALL(ps_xdp_icmp, ctx, &pkt, key);
	if ((features & PS_F_D2S) && ps_d2s_candidate(s))
		PS_FEATURE_CALL(ps_xdp_d2s, ctx, &pkt, key);
	if (ps_tcp_rx_at_xdp && (features & PS_F_TCP) && pkt.l4 == PS_L4_TCP)
		PS_FEATURE_CALL(ps_xdp_tcp, ctx, &pkt, key);
	if ((features & PS_F_FLOWS) && ps_flow_sampled()) {
		PS_FEATURE_CALL(ps_xdp_flows, ctx, &pkt, key);
		if (bound)
			ps_flows_rx_hash(ctx, key);
	}
}

/* Alone on the interface, or one program of libxdp's dispatcher, which goes
 * on to the next program after XDP_PASS. No tail call: a dispatcher's
 * component that has one changes packet data in the eyes of the verifier
 * (Linux 6.12.y, 6.13), and the dispatcher's slot it replaces does not. */
SEC("xdp")
int pathscope_xdp(struct xdp_md *ctx)
{
	ps_xdp_measure(ctx, 0);
	return XDP_PASS;
}

/* Chain and join modes: tail-call the program that decides the frame's fate
 * (the one attached before, or the next slot of someone's root program
 * array), so that program's verdict is the frame's. */
SEC("xdp")
int pathscope_xdp_chain(struct xdp_md *ctx)
{
	__u32 i;

	ps_xdp_measure(ctx, 0);
	for (i = 0; i < PS_XDP_CHAIN_SLOTS; i++)
		bpf_tail_call(ctx, &xdp_chain, ps_chain_first + i); /* returns only if empty */
	return XDP_PASS;
}

/* pathscope_xdp with the NIC's metadata (kfuncs): the RX hash type of each
 * frame sampled for flows, the RX timestamp of each placed by firsthop. The
 * loader loads it device-bound to the interface (the kfuncs need that), and
 * only where it runs alone on the interface: a device-bound
 * program can neither be tail-called from nor replace part of another that
 * is not bound to the same device (chain, join, libxdp's dispatcher).
 * "?": not loaded unless the loader asks for it. */
SEC("?xdp")
int pathscope_xdp_rxhash(struct xdp_md *ctx)
{
	ps_xdp_measure(ctx, 1);
	return XDP_PASS;
}

char LICENSE[] SEC("license") = "GPL";
