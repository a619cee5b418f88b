/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Stack to socket latency, the tc ingress half (BPF only; see abi.h); the probes
 * (probes/pathscope_sock.bpf.c) find the sample's read and share these maps. */
#ifndef PATHSCOPE_SOCK_BPF_H
#define PATHSCOPE_SOCK_BPF_H

#include "count.bpf.h"
#include "kskb.bpf.h"
#include "sock_armed.bpf.h"

/* Every PS_SOCK_EVERY-th TCP or UDP packet of a CPU with data becomes a
 * sample of its flow (TCP) or local port (UDP), unless PS_SOCK_INFLIGHT wait
 * there. Unsampled packets cost one per-CPU increment. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} sock_tick SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, PS_SOCK_PENDING_MAX);
	__type(key, struct ps_sock_key);
	__type(value, struct ps_sock_pending);
} sock_pending SEC(".maps");

PS_PER_QUEUE_MAP(sock_stats, struct ps_sock_qstats);

/* The skb arriving at tc ingress on RX queue slot `slot`, parsed into p. */
static __always_inline void ps_sock_tc(struct __sk_buff *skb, void *data, void *data_end,
				       const struct ps_pkt *p, __u32 slot)
{
	struct ps_sock_pending v = {}, *old;
	struct ps_sock_qstats *s, *ps;
	struct ps_sock_sample *e;
	int i;
	struct ps_sock_key k = {};
	struct ps_flow f;
	__u32 zero = 0;
	__u64 *tick, now, kskb;

	if (!ps_kern_ctx) /* attach refuses sock without it */
		return;
	if (p->l4 != PS_L4_TCP && p->l4 != PS_L4_UDP)
		return;
	tick = bpf_map_lookup_elem(&sock_tick, &zero);
	if (!tick || ++*tick % PS_SOCK_EVERY)
		return;
	ps_flow_read(data, data_end, p, skb->len, &f);
	if (!f.family || (f.proto == PS_IPPROTO_TCP && !f.paylen))
		return; /* no data to read: the next tick tries again */
	k.lport = f.dport;
	if (f.proto == PS_IPPROTO_TCP) {
		k.proto = PS_SOCK_TCP;
		k.family = f.family;
		k.rport = f.sport;
		__builtin_memcpy(k.laddr, f.daddr, 16);
		__builtin_memcpy(k.raddr, f.saddr, 16);
	} else {
		k.proto = PS_SOCK_UDP; /* keyed by the local port alone */
	}
	now = bpf_ktime_get_ns();
	kskb = (__u64)bpf_cast_to_kern_ctx(skb);
	ps = bpf_map_lookup_elem(&sock_stats, &slot);
	old = bpf_map_lookup_elem(&sock_pending, &k);
	if (!old) { /* the flow's first: a new entry */
		v.s[0].ts_ns = now;
		v.s[0].skb = kskb;
		v.s[0].seq = f.seq;
		v.s[0].queue = slot;
		bpf_map_update_elem(&sock_pending, &k, &v, BPF_ANY);
		if (k.proto == PS_SOCK_UDP)
			ps_sock_arm((void *)kskb, 1);
		if (ps && k.proto < PS_SOCK_PROTOS)
			ps->sampled[k.proto]++;
		return;
	}
	/* A free slot, or one whose read never came. */
#pragma unroll
	for (i = 0; i < PS_SOCK_INFLIGHT; i++) {
		e = &old->s[i];
		if (!e->ts_ns)
			break;
		if (now - e->ts_ns > PS_SOCK_MAX_AGE_NS) {
			s = bpf_map_lookup_elem(&sock_stats, &e->queue);
			if (s && k.proto < PS_SOCK_PROTOS)
				s->expired[k.proto]++;
			break;
		}
	}
	if (i == PS_SOCK_INFLIGHT) {
		if (ps && k.proto < PS_SOCK_PROTOS)
			ps->skipped[k.proto]++;
		return;
	}
	e = &old->s[i & (PS_SOCK_INFLIGHT - 1)];
	if (k.proto == PS_SOCK_UDP) {
		if (e->ts_ns) /* an expired sample gives up its slot */
			ps_sock_arm((void *)(e->sk ? e->sk : e->skb), -1);
		ps_sock_arm((void *)kskb, 1);
	}
	e->skb = kskb;
	e->sk = 0;
	e->remaining = 0;
	e->seq = f.seq;
	e->queue = slot;
	e->ts_ns = now;
	if (ps && k.proto < PS_SOCK_PROTOS)
		ps->sampled[k.proto]++;
}

#endif /* PATHSCOPE_SOCK_BPF_H */
