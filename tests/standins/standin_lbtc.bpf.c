// SPDX-License-Identifier: GPL-2.0
/* A stand-in tc program with verdicts of its own, for the coexistence
 * tests: drops UDP to port 9001 (TC_ACT_SHOT), lets everything else go on
 * (TC_ACT_UNSPEC), counting both. */
#include "pathscope/kernel_types.bpf.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

enum { LBTC_UNSPEC, LBTC_SHOT, LBTC_VERDICTS };

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, LBTC_VERDICTS);
	__type(key, __u32);
	__type(value, __u64);
} lbtc_verdicts SEC(".maps");

SEC("tc")
int standin_lbtc(struct __sk_buff *skb)
{
	void *data = (void *)(long)skb->data, *end = (void *)(long)skb->data_end;
	struct ethhdr *eth = data;
	struct iphdr *ip = (void *)(eth + 1);
	struct udphdr *udp = (void *)(ip + 1);
	__u32 v = LBTC_UNSPEC;
	__u64 *n;

	if ((void *)(udp + 1) <= end && eth->h_proto == bpf_htons(0x0800) && ip->ihl == 5 &&
	    ip->protocol == IPPROTO_UDP && udp->dest == bpf_htons(9001))
		v = LBTC_SHOT;
	n = bpf_map_lookup_elem(&lbtc_verdicts, &v);
	if (n)
		__sync_fetch_and_add(n, 1);
	return v == LBTC_SHOT ? 2 /* TC_ACT_SHOT */ : -1 /* TC_ACT_UNSPEC */;
}

char LICENSE[] SEC("license") = "GPL";
