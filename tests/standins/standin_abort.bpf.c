// SPDX-License-Identifier: GPL-2.0
/* Someone else's XDP program that fails on purpose: UDP to port 7777 gets
 * XDP_ABORTED (which the kernel reports as xdp:xdp_exception), every other
 * frame passes. For the kernel path test. */
#include "pathscope/kernel_types.bpf.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

#define ETH_P_IP_BE bpf_htons(0x0800)

SEC("xdp")
int standin_abort(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data, *end = (void *)(long)ctx->data_end;
	struct ethhdr *eth = data;
	struct iphdr *ip = (void *)(eth + 1);
	struct udphdr *udp = (void *)(ip + 1); /* no IP options in the test */

	if ((void *)(udp + 1) > end || eth->h_proto != ETH_P_IP_BE || ip->ihl != 5 ||
	    ip->protocol != IPPROTO_UDP)
		return XDP_PASS;
	return udp->dest == bpf_htons(7777) ? XDP_ABORTED : XDP_PASS;
}

char LICENSE[] SEC("license") = "GPL";
