/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Driver-to-stack latency, sampled (BPF only; see abi.h). Unsampled packets cost a
 * test of the queue's packet count at XDP and one lookup and a compare at tc ingress. */
#ifndef PATHSCOPE_D2S_BPF_H
#define PATHSCOPE_D2S_BPF_H

#include "count.bpf.h"

/* XDP calls ps_d2s_candidate() after counting and ps_d2s_xdp() for a
 * candidate, tc ingress ps_d2s_waiting() and then ps_d2s_tc(); the loader
 * makes both objects share the maps. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct ps_d2s_slot);
} d2s_slot SEC(".maps");

PS_PER_QUEUE_MAP(d2s_stats, struct ps_d2s_qstats);

/* Same addresses, ports and protocol (BPF has no memcmp: compare words). */
static __always_inline int ps_flow_same(const struct ps_flow *a, const struct ps_flow *b)
{
	const __u64 *x = (const __u64 *)a->saddr, *y = (const __u64 *)b->saddr;

	return a->family == b->family && a->proto == b->proto && a->sport == b->sport &&
	       a->dport == b->dport && x[0] == y[0] && x[1] == y[1] && x[2] == y[2] && x[3] == y[3];
}

/* XDP, every packet: is it the PS_D2S_EVERY-th of its queue on this CPU, a
 * sampling candidate? The queue's per-CPU packet count, just incremented,
 * is the tick: no map lookup and no increment of its own per packet. The
 * rest of the work (ps_d2s_xdp) runs for candidates only. */
static __always_inline int ps_d2s_candidate(const struct ps_qstats *s)
{
	return !(s->packets % PS_D2S_EVERY);
}

/* tc ingress, every TCP/UDP skb: does this CPU have a sample waiting? */
static __always_inline int ps_d2s_waiting(void)
{
	__u32 zero = 0;
	struct ps_d2s_slot *slot = bpf_map_lookup_elem(&d2s_slot, &zero);

	return slot && slot->ts_ns;
}

/* XDP, a candidate: it becomes the sample, unless a younger sample still
 * waits for its skb. */
static __always_inline void ps_d2s_xdp(void *data, void *data_end, const struct ps_pkt *p,
				       __u64 len, __u32 slot_idx)
{
	__u32 zero = 0;
	struct ps_d2s_slot *slot = bpf_map_lookup_elem(&d2s_slot, &zero);
	struct ps_d2s_qstats *s;
	__u64 now;

	if (!slot)
		return;
	now = bpf_ktime_get_ns();
	if (slot->ts_ns && now - slot->ts_ns < PS_D2S_MAX_AGE_NS)
		return;
	if (slot->ts_ns) {
		s = bpf_map_lookup_elem(&d2s_stats, &slot->queue);
		if (s)
			s->expired++;
		slot->ts_ns = 0;
	}
	ps_flow_read(data, data_end, p, len, &slot->flow);
	if (!slot->flow.family)
		return; /* not TCP/UDP: the next tick tries again */
	slot->queue = slot_idx;
	slot->ts_ns = now;
	s = bpf_map_lookup_elem(&d2s_stats, &slot_idx);
	if (s)
		s->sampled++;
}

/* tc ingress: is this skb the one carrying the sample? */
static __always_inline void ps_d2s_tc(void *data, void *data_end, const struct ps_pkt *p, __u64 len)
{
	__u32 zero = 0;
	struct ps_d2s_slot *slot = bpf_map_lookup_elem(&d2s_slot, &zero);
	struct ps_d2s_qstats *s;
	struct ps_flow f;
	__u64 d;

	if (!slot || !slot->ts_ns)
		return;
	ps_flow_read(data, data_end, p, len, &f);
	if (!f.family || !ps_flow_same(&f, &slot->flow))
		return;
	if (f.proto == PS_IPPROTO_TCP) {
		/* A GRO'd skb carries the first segment's header: the sample
		 * is in it when its sequence lies in the skb's payload. */
		if (slot->flow.seq - f.seq >= (f.paylen ? f.paylen : 1))
			return;
	} else if (f.seq != slot->flow.seq) {
		return;
	}
	d = bpf_ktime_get_ns() - slot->ts_ns;
	slot->ts_ns = 0;
	s = bpf_map_lookup_elem(&d2s_stats, &slot->queue);
	if (!s)
		return;
	s->matched++;
	s->sum_ns += d;
	s->hist[ps_hist_bucket(d, PS_LAT_BUCKETS)]++;
}

#endif /* PATHSCOPE_D2S_BPF_H */
