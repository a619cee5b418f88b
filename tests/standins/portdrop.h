/* SPDX-License-Identifier: GPL-2.0 */
/* The body of two stand-in peers for test_coexist_xdptools: drop UDP to port 9 (IPv4
 * and IPv6), pass the rest, count each verdict in pd_verdicts (0: pass, 1: drop);
 * standin_pdrop.bpf.c as anyone would write it, standin_lxdrop.bpf.c for libxdp. */
#ifndef PATHSCOPE_TESTS_STANDINS_PORTDROP_H
#define PATHSCOPE_TESTS_STANDINS_PORTDROP_H

#include "pathscope/kernel_types.bpf.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

#define PD_PORT 9

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 2);
	__type(key, __u32);
	__type(value, __u64);
} pd_verdicts SEC(".maps");

static __always_inline int pd_verdict(__u32 v, int action)
{
	__u64 *n = bpf_map_lookup_elem(&pd_verdicts, &v);

	if (n)
		__sync_fetch_and_add(n, 1);
	return action;
}

static __always_inline int portdrop(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data, *end = (void *)(long)ctx->data_end;
	struct ethhdr *eth = data;
	struct udphdr *udp;
	__u8 proto;

	if ((void *)(eth + 1) > end)
		return pd_verdict(0, XDP_PASS);
	if (eth->h_proto == bpf_htons(0x0800)) {
		struct iphdr *ip = (void *)(eth + 1);

		if ((void *)(ip + 1) > end || ip->ihl != 5)
			return pd_verdict(0, XDP_PASS);
		proto = ip->protocol;
		udp = (void *)(ip + 1);
	} else if (eth->h_proto == bpf_htons(0x86DD)) {
		struct ipv6hdr *ip6 = (void *)(eth + 1);

		if ((void *)(ip6 + 1) > end)
			return pd_verdict(0, XDP_PASS);
		proto = ip6->nexthdr;
		udp = (void *)(ip6 + 1);
	} else {
		return pd_verdict(0, XDP_PASS);
	}
	if (proto != IPPROTO_UDP || (void *)(udp + 1) > end || udp->dest != bpf_htons(PD_PORT))
		return pd_verdict(0, XDP_PASS);
	return pd_verdict(1, XDP_DROP);
}

char LICENSE[] SEC("license") = "GPL";

#endif /* PATHSCOPE_TESTS_STANDINS_PORTDROP_H */
