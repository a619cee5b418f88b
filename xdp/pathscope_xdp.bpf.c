// SPDX-License-Identifier: GPL-2.0
/* Driver ingress: count and classify every frame per RX queue, match ICMP
 * echo replies and requests, sample for driver-to-stack latency, then pass
 * the frame on. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>
#include "pathscope/d2s.bpf.h"
#include "pathscope/echo.bpf.h"

PS_QSTATS_MAP(xdp_stats);

SEC("xdp")
int pathscope_xdp(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *data_end = (void *)(long)ctx->data_end;
	long idx = ps_queue_index(ctx->rx_queue_index);
	__u32 key = (__u32)idx;
	struct ps_qstats *s;
	struct ps_pkt pkt;

	if (idx < 0)
		return XDP_PASS;
	s = bpf_map_lookup_elem(&xdp_stats, &key);
	if (!s || !ps_count(s, data, data_end, data_end - data, &pkt))
		return XDP_PASS;
	if (ps_features & PS_F_ICMP)
		ps_echo_rx(data, data_end, &pkt, key);
	if (ps_features & PS_F_D2S)
		ps_d2s_xdp(data, data_end, &pkt, data_end - data, key);
	return XDP_PASS;
}

char LICENSE[] SEC("license") = "GPL";
