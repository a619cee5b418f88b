// SPDX-License-Identifier: GPL-2.0
/* Someone else's XDP program, for the coexistence tests: passes every frame
 * and counts them, so a test can tell it still runs. */
#include "pathscope/kernel_types.bpf.h"
#include <bpf/bpf_helpers.h>

__u64 standin_xdp_packets = 0;

SEC("xdp")
int standin_xdp(struct xdp_md *ctx)
{
	__sync_fetch_and_add(&standin_xdp_packets, 1);
	return XDP_PASS;
}

char LICENSE[] SEC("license") = "GPL";
