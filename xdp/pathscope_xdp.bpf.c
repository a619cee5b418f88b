// SPDX-License-Identifier: GPL-2.0
/* Driver ingress: count and classify every frame per RX queue, then pass it. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>
#include "pathscope/count.bpf.h"

PS_QSTATS_MAP(xdp_stats);

SEC("xdp")
int pathscope_xdp(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *data_end = (void *)(long)ctx->data_end;
	struct ps_qstats *s;

	s = ps_queue_slot(&xdp_stats, ctx->rx_queue_index);
	if (s)
		ps_count(s, data, data_end, data_end - data);
	return XDP_PASS;
}

char LICENSE[] SEC("license") = "GPL";
