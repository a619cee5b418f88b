// SPDX-License-Identifier: GPL-2.0
/* Someone else's tc program, for the coexistence tests: lets every packet go
 * on (TC_ACT_UNSPEC) and counts them. */
#include "pathscope/kernel_types.bpf.h"
#include <bpf/bpf_helpers.h>

__u64 standin_tc_packets = 0;

SEC("tc")
int standin_tc(struct __sk_buff *skb)
{
	__sync_fetch_and_add(&standin_tc_packets, 1);
	return -1; /* TC_ACT_UNSPEC */
}

char LICENSE[] SEC("license") = "GPL";
