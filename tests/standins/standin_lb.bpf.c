// SPDX-License-Identifier: GPL-2.0
/* A stand-in load balancer for the coexistence tests, in the style of Katran: answers
 * UDP to VIP 198.18.0.100 with XDP_TX (addresses and ports swapped, back to the sender),
 * drops UDP to VIP 198.18.0.101, and passes the rest, counting each verdict. */
#include "pathscope/kernel_types.bpf.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

#define ETH_ALEN 6
#define VIP_TX	 0xc6120064 /* 198.18.0.100 */
#define VIP_DROP 0xc6120065 /* 198.18.0.101 */

enum { LB_PASS, LB_DROP, LB_TX, LB_VERDICTS };

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, LB_VERDICTS);
	__type(key, __u32);
	__type(value, __u64);
} lb_verdicts SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PROG_ARRAY);
	__uint(max_entries, 4);
	__type(key, __u32);
	__type(value, __u32);
} lb_root SEC(".maps");

static __always_inline int verdict(__u32 v, int action)
{
	__u64 *n = bpf_map_lookup_elem(&lb_verdicts, &v);

	if (n)
		__sync_fetch_and_add(n, 1);
	return action;
}

SEC("xdp")
int standin_lb(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data, *end = (void *)(long)ctx->data_end;
	struct ethhdr *eth = data;
	struct iphdr *ip = (void *)(eth + 1);
	struct udphdr *udp = (void *)(ip + 1); /* no IP options in the test */
	unsigned char mac[ETH_ALEN];
	__u32 addr;
	__u16 port;

	if ((void *)(udp + 1) > end || eth->h_proto != bpf_htons(0x0800) || ip->ihl != 5 ||
	    ip->protocol != IPPROTO_UDP)
		return verdict(LB_PASS, XDP_PASS);
	if (ip->daddr == bpf_htonl(VIP_DROP))
		return verdict(LB_DROP, XDP_DROP);
	if (ip->daddr != bpf_htonl(VIP_TX))
		return verdict(LB_PASS, XDP_PASS);
	/* Swapping both addresses and both ports keeps the checksums valid. */
	__builtin_memcpy(mac, eth->h_dest, ETH_ALEN);
	__builtin_memcpy(eth->h_dest, eth->h_source, ETH_ALEN);
	__builtin_memcpy(eth->h_source, mac, ETH_ALEN);
	addr = ip->daddr;
	ip->daddr = ip->saddr;
	ip->saddr = addr;
	port = udp->dest;
	udp->dest = udp->source;
	udp->source = port;
	return verdict(LB_TX, XDP_TX);
}

/* For the "shared mode" of such balancers: a root program that tail-calls the
 * first program found in lb_root (slot 0 up), else passes. */
SEC("xdp")
int standin_root(struct xdp_md *ctx)
{
	__u32 i;

	for (i = 0; i < 4; i++)
		bpf_tail_call(ctx, &lb_root, i);
	return XDP_PASS;
}

char LICENSE[] SEC("license") = "GPL";
