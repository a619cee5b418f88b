// SPDX-License-Identifier: GPL-2.0
/*
 * tc ingress (after GRO) and egress (before the qdisc and GSO): count and
 * classify every skb per queue, with its GRO/GSO segments, then let the next
 * program or filter decide: TCX_NEXT and TC_ACT_UNSPEC are both -1.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>
#include "pathscope/count.bpf.h"

#define PS_TC_NEXT -1

PS_QSTATS_MAP(tci_stats);
PS_QSTATS_MAP(tce_stats);

static __always_inline void ps_tc_count(void *map, struct __sk_buff *skb, __u32 queue)
{
	void *data = (void *)(long)skb->data;
	void *data_end = (void *)(long)skb->data_end;
	struct ps_qstats *s;
	__u32 segs;

	s = ps_queue_slot(map, queue);
	if (!s)
		return;
	ps_count(s, data, data_end, skb->len);

	if (ps_features & PS_F_GRO) {
		segs = skb->gso_segs ? skb->gso_segs : 1;
		if (segs > 1) {
			s->gso_packets++;
			s->gso_segs += segs;
			s->gso_size_sum += skb->gso_size;
		}
		s->segs_hist[ps_hist_bucket(segs, PS_SEGS_BUCKETS)]++;
	}
}

/* The driver records the RX queue as queue_mapping + 1; 0 means unrecorded
 * and is counted as queue 0. */
SEC("tc")
int pathscope_tc_ingress(struct __sk_buff *skb)
{
	__u32 qm = skb->queue_mapping;

	ps_tc_count(&tci_stats, skb, qm ? qm - 1 : 0);
	return PS_TC_NEXT;
}

SEC("tc")
int pathscope_tc_egress(struct __sk_buff *skb)
{
	ps_tc_count(&tce_stats, skb, skb->queue_mapping);
	return PS_TC_NEXT;
}

char LICENSE[] SEC("license") = "GPL";
