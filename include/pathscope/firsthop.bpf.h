/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* The first hop at XDP (feature firsthop, BPF only): each frame marks its
 * queue in the CPU's poll; 1 in PS_FH_EVERY gives its place in the run. */
#ifndef PATHSCOPE_FIRSTHOP_BPF_H
#define PATHSCOPE_FIRSTHOP_BPF_H

#include "count.bpf.h"

PS_PER_QUEUE_MAP(fh_stats, struct ps_fh_qstats);

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct ps_fh_cpu);
} fh_cpu SEC(".maps");

/* XDP, every frame of a measured queue: the probe of napi:napi_poll counts
 * the poll for this slot when it ends. A sampled frame inside a NET_RX run
 * adds the time since the run began: the frames and polls ahead of it. */
static __always_inline void ps_firsthop_xdp(const struct ps_qstats *q, __u32 slot)
{
	struct ps_fh_qstats *s;
	struct ps_fh_cpu *c;
	__u32 zero = 0;
	__u64 d;

	c = bpf_map_lookup_elem(&fh_cpu, &zero);
	if (!c)
		return;
	if (c->poll_slot1 != slot + 1)
		c->poll_slot1 = slot + 1;
	if (q->packets % PS_FH_EVERY || !c->run_ns)
		return;
	s = bpf_map_lookup_elem(&fh_stats, &slot);
	if (!s)
		return;
	d = bpf_ktime_get_ns() - c->run_ns;
	s->sampled++;
	s->place_sum_ns += d;
	s->place_hist[ps_hist_bucket(d, PS_LAT_BUCKETS)]++;
}

#endif /* PATHSCOPE_FIRSTHOP_BPF_H */
