/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Flows per RX queue (feature flows; BPF only, see abi.h), at XDP. Every frame costs
 * ps_flow_sampled(): with N = 1 nothing, else one per-CPU counter decremented. */
#ifndef PATHSCOPE_FLOWS_BPF_H
#define PATHSCOPE_FLOWS_BPF_H

#include "count.bpf.h"
#include "flow_sample.h"

/* N (attach --flow-sample) and K for the skip draw (flow_sample.h). */
const volatile __u32 ps_flow_sample = 1;
const volatile __u64 ps_flow_skip_k = 0;

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, PS_FLOWS_MAX);
	__type(key, struct ps_flow_key);
	__type(value, struct ps_flow_count);
} flows SEC(".maps");

PS_PER_QUEUE_MAP(flows_q, struct ps_flows_qstate);

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct ps_flow_tick);
} flow_tick SEC(".maps");

PS_PER_QUEUE_MAP(flows_rxhash, struct ps_rx_hash_q);

/* Linux 6.3. A program whose code calls it, even dead code, must be loaded
 * device-bound: only pathscope_xdp_rxhash calls it (ps_flows_rx_hash). */
extern int bpf_xdp_metadata_rx_hash(const struct xdp_md *ctx, __u32 *hash,
				    enum xdp_rss_hash_type *rss_type) __ksym __weak;

/* Frames to skip before the next sample: floor(-log2(U) * K). */
static __always_inline __u32 ps_flow_skip_draw(void)
{
	__u32 r = bpf_get_prandom_u32() | 1, x = r, e = 0, m;
	__u64 l;

	if (x >= 1U << 16) {
		x >>= 16;
		e += 16;
	}
	if (x >= 1U << 8) {
		x >>= 8;
		e += 8;
	}
	if (x >= 1U << 4) {
		x >>= 4;
		e += 4;
	}
	if (x >= 1U << 2) {
		x >>= 2;
		e += 2;
	}
	if (x >= 1U << 1)
		e += 1;
	/* r's six bits after its top bit: the table's index */
	m = (__u32)((((__u64)r << (31 - (e & 31))) >> 25) & 63);
	/* -log2(r / 2^32) in 16.16 */
	l = (32ULL << 16) - (((__u64)e << 16) + ps_log2_mant[m]);
	return (__u32)((l * ps_flow_skip_k) >> 32);
}

/* Every frame: is it sampled? */
static __always_inline int ps_flow_sampled(void)
{
	struct ps_flow_tick *t;
	__u32 zero = 0;

	if (ps_flow_sample <= 1)
		return 1;
	t = bpf_map_lookup_elem(&flow_tick, &zero);
	if (!t)
		return 0;
	if (t->left) {
		t->left--;
		return 0;
	}
	t->left = ps_flow_skip_draw();
	return 1;
}

/* The key of the frame parsed into p, on queue slot slot. Its protocol: IPv4,
 * the header's protocol field (fragments too); IPv6, the L4 protocol the
 * parser reached (6, 17, 58 or 1), 44 for a later fragment, else the IPv6
 * header's Next Header (an extension header chain ending in another protocol
 * is keyed by its first header). */
static __always_inline void ps_flow_key_read(void *data, void *data_end, const struct ps_pkt *p,
					     __u32 slot, struct ps_flow_key *k)
{
	void *l3 = data + (p->l3_off & PS_MAX_HDR_OFF);
	void *l4 = data + (p->l4_off & PS_MAX_HDR_OFF);

	__builtin_memset(k, 0, sizeof(*k));
	k->queue = slot;
	if (p->l3 == PS_L3_IPV4) {
		struct ps_ipv4hdr *ip = l3;

		if ((void *)(ip + 1) > data_end)
			return;
		k->family = 4;
		k->proto = ip->protocol;
		__builtin_memcpy(k->saddr, &ip->saddr, 4);
		__builtin_memcpy(k->daddr, &ip->daddr, 4);
	} else if (p->l3 == PS_L3_IPV6) {
		struct ps_ipv6hdr *ip6 = l3;

		if ((void *)(ip6 + 1) > data_end)
			return;
		k->family = 6;
		switch (p->l4) {
		case PS_L4_TCP:
			k->proto = PS_IPPROTO_TCP;
			break;
		case PS_L4_UDP:
			k->proto = PS_IPPROTO_UDP;
			break;
		case PS_L4_ICMPV6:
			k->proto = PS_IPPROTO_ICMPV6;
			break;
		case PS_L4_ICMP:
			k->proto = PS_IPPROTO_ICMP;
			break;
		case PS_L4_FRAGMENT:
			k->proto = PS_IPPROTO_FRAGMENT;
			break;
		default:
			k->proto = ip6->nexthdr;
		}
		__builtin_memcpy(k->saddr, ip6->saddr, 16);
		__builtin_memcpy(k->daddr, ip6->daddr, 16);
	} else {
		/* No IP header: the ethertype after the VLAN tags. */
		__u32 off = 12 + 4 * (p->vlans & 3);
		__be16 *et = data + off;

		if ((void *)(et + 1) <= data_end)
			k->ethertype = *et;
		return;
	}
	if (p->l4 == PS_L4_TCP || p->l4 == PS_L4_UDP) {
		__be16 *ports = l4; /* source and destination come first in both */

		if ((void *)(ports + 2) > data_end)
			return;
		k->sport = ports[0];
		k->dport = ports[1];
	}
}

/* A 64-bit hash of the key (multiply-xorshift over its words, then
 * MurmurHash3's finaliser): the HyperLogLog needs well-mixed bits. */
static __always_inline __u64 ps_flow_hash(const struct ps_flow_key *k)
{
	const __u64 *w = (const __u64 *)k;
	__u64 h = 0x243f6a8885a308d3ULL;
	int i;

#pragma unroll
	for (i = 0; i < (int)(sizeof(*k) / 8); i++) {
		h ^= w[i];
		h *= 0x9e3779b97f4a7c15ULL;
		h ^= h >> 29;
	}
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdULL;
	h ^= h >> 33;
	h *= 0xc4ceb9fe1a85ec53ULL;
	h ^= h >> 33;
	return h;
}

/* HyperLogLog: the register of the hash's top PS_HLL_BITS bits keeps the
 * largest rank (position of the first 1 bit) of the rest. */
static __always_inline void ps_hll_add(__u8 *regs, __u64 h)
{
	__u32 idx = (__u32)(h >> (64 - PS_HLL_BITS)) & (PS_HLL_REGS - 1);
	__u64 w = (h << PS_HLL_BITS) | (1ULL << (PS_HLL_BITS - 1)); /* rank <= 57 */
	__u8 rank = 1;

	if (!(w >> 32)) {
		rank += 32;
		w <<= 32;
	}
	if (!(w >> 48)) {
		rank += 16;
		w <<= 16;
	}
	if (!(w >> 56)) {
		rank += 8;
		w <<= 8;
	}
	if (!(w >> 60)) {
		rank += 4;
		w <<= 4;
	}
	if (!(w >> 62)) {
		rank += 2;
		w <<= 2;
	}
	if (!(w >> 63))
		rank += 1;
	if (regs[idx] < rank)
		regs[idx] = rank;
}

/* A sampled frame of len bytes on queue slot slot (run inside a global
 * function of the XDP program): adds to its flow in the LRU hash (atomic adds:
 * a flow's frames come on one RX queue, so mostly one CPU), to its queue's
 * sampled totals and to its queue's HyperLogLog. */
static __always_inline void ps_flows_xdp(void *data, void *data_end, const struct ps_pkt *p,
					 __u64 len, __u32 slot)
{
	struct ps_flow_key k __attribute__((aligned(8)));
	struct ps_flows_qstate *q;
	struct ps_flow_count *v;

	ps_flow_key_read(data, data_end, p, slot, &k);
	q = bpf_map_lookup_elem(&flows_q, &slot);
	if (q) {
		q->packets++;
		q->bytes += len;
		ps_hll_add(q->hll, ps_flow_hash(&k));
	}
	v = bpf_map_lookup_elem(&flows, &k);
	if (!v) {
		struct ps_flow_count one = { 1, len };

		if (!bpf_map_update_elem(&flows, &k, &one, BPF_NOEXIST)) {
			if (q)
				q->flows_new++;
			return;
		}
		v = bpf_map_lookup_elem(&flows, &k); /* another CPU made it first */
		if (!v)
			return;
	}
	__sync_fetch_and_add(&v->packets, 1);
	__sync_fetch_and_add(&v->bytes, len);
}

/* A sampled frame on queue slot slot: the type of its RX hash, counted.
 * The device-bound program only (see bpf_xdp_metadata_rx_hash above). */
static __always_inline void ps_flows_rx_hash(struct xdp_md *ctx, __u32 slot)
{
	enum xdp_rss_hash_type type = XDP_RSS_TYPE_NONE;
	struct ps_rx_hash_q *q;
	__u32 hash = 0;

	q = bpf_map_lookup_elem(&flows_rxhash, &slot);
	if (!q)
		return;
	if (bpf_xdp_metadata_rx_hash(ctx, &hash, &type))
		q->none++; /* no hash: -ENODATA, -EOPNOTSUPP (the driver has none) */
	else if (type & XDP_RSS_L4)
		q->l4++;
	else if (type & (XDP_RSS_L3_IPV4 | XDP_RSS_L3_IPV6))
		q->l3++;
	else
		q->none++; /* a hash of no known headers (XDP_RSS_TYPE_NONE) */
}

#endif /* PATHSCOPE_FLOWS_BPF_H */
