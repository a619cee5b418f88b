// SPDX-License-Identifier: GPL-2.0
/* The micro benchmark's baseline: programs of pathscope's types that only return the
 * same pass verdicts, so that BPF_PROG_TEST_RUN's own per-run cost (its loop, the
 * context, the clock reads) is measured beside pathscope and subtracted. */
#include "pathscope/kernel_types.bpf.h"
#include <bpf/bpf_helpers.h>

SEC("xdp")
int empty_xdp(struct xdp_md *ctx)
{
	return XDP_PASS;
}

SEC("tc")
int empty_tc(struct __sk_buff *skb)
{
	return -1; /* TC_ACT_UNSPEC / TCX_NEXT, as pathscope's tc programs */
}

/* One clock read: what a d2s sampling tick adds to pathscope's XDP program
 * while a sample is pending (see bench/micro.c). */
SEC("xdp")
int clock_xdp(struct xdp_md *ctx)
{
	volatile __u64 t = bpf_ktime_get_ns();

	(void)t;
	return XDP_PASS;
}

char LICENSE[] SEC("license") = "GPL";
