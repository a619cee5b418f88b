/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Per-queue counting shared by the XDP and tc programs (BPF only). */
#ifndef PATHSCOPE_COUNT_BPF_H
#define PATHSCOPE_COUNT_BPF_H

#include "parse.h"

/* The loader sets these before load, so the verifier prunes every branch of a
 * disabled feature: a feature that is off costs nothing per packet, and with
 * all queues selected the queue filter is gone too. */
const volatile __u32 ps_features = PS_F_DEFAULT;
const volatile __u32 ps_nqueues = 1;	/* per-queue map slots = ps_nqueues + 1 */
const volatile __u32 ps_all_queues = 1; /* 0: only queues in ps_queue_mask */
const volatile __u64 ps_queue_mask[PS_QMASK_WORDS] = {};

/* A per-queue, per-CPU map of value_type: nqueues + 1 slots (the loader sets
 * max_entries), the last one for queue "other". */
#define PS_PER_QUEUE_MAP(name, value_type)               \
	struct {                                         \
		__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY); \
		__uint(max_entries, 2);                  \
		__type(key, __u32);                      \
		__type(value, value_type);               \
	} name SEC(".maps")

#define PS_QSTATS_MAP(name) PS_PER_QUEUE_MAP(name, struct ps_qstats)

/* The map slot of queue q, or -1 when q is not measured. Unknown queues
 * (PS_QUEUE_UNKNOWN) are measured only when all queues are. */
static __always_inline long ps_queue_index(__u32 q)
{
	if (!ps_all_queues) {
		__u32 word = q / 64;

		/* Hide word from the optimiser so the bound check below is made
		 * on the very register used as index, as the verifier needs. */
		asm volatile("" : "+r"(word));
		if (word >= PS_QMASK_WORDS || !(ps_queue_mask[word] & (1ULL << (q % 64))))
			return -1;
	}
	return q < ps_nqueues ? q : ps_nqueues; /* the last slot: "other" */
}

/* The stats slot of queue q, or NULL when q is not measured. */
static __always_inline struct ps_qstats *ps_queue_slot(void *map, __u32 q)
{
	long idx = ps_queue_index(q);
	__u32 key = (__u32)idx;

	return idx < 0 ? NULL : bpf_map_lookup_elem(map, &key);
}

/* ps_features, read once per packet into a register. The verifier still
 * knows it as a constant and prunes what is off; each feature test then
 * costs an AND and a branch, where a test of ps_features itself also loads
 * the map address (two instruction slots) and the value: 7 tests per XDP
 * frame at the default features. The gain is below what make bench
 * resolves on this VM (1-2 ns, the minimum over 20 runs). */
static __always_inline __u32 ps_features_now(void)
{
	return ps_features;
}

/* Does a feature of features need the packet's headers parsed? (flows
 * needs them at XDP only; with every other such feature off, tc parses in
 * vain.) */
static __always_inline int ps_wants_parse(__u32 features)
{
	return !!(features & (PS_F_CLASS | PS_F_ECN | PS_F_ICMP | PS_F_D2S | PS_F_TCP | PS_F_SOCK |
			      PS_F_FLOWS));
}

/* Did the parse stop at the end of the bytes it was given? */
#define PS_ERRS_TRUNC                                                                   \
	((1U << PS_ERR_L2_TRUNC) | (1U << PS_ERR_L3_TRUNC) | (1U << PS_ERR_EXT_TRUNC) | \
	 (1U << PS_ERR_L4_TRUNC))
_Static_assert(PS_ERR_COUNT <= 32, "an error is a bit of a __u32");

static __always_inline int ps_pkt_truncated(const struct ps_pkt *p)
{
	return p->err < PS_ERR_COUNT && ((1U << p->err) & PS_ERRS_TRUNC);
}

/* Count one packet or skb of len bytes, whose headers *pkt holds when
 * parsed (ps_wants_parse). */
static __always_inline void ps_count_parsed(__u32 features, struct ps_qstats *s, __u64 len,
					    const struct ps_pkt *pkt, int parsed)
{
	s->packets++;
	s->bytes += len;

	if (parsed) {
		if (features & PS_F_CLASS) {
			if (pkt->l3 < PS_L3_COUNT)
				s->l3[pkt->l3]++;
			if (pkt->l4 < PS_L4_COUNT)
				s->l4[pkt->l4]++;
			if (pkt->err < PS_ERR_COUNT)
				s->err[pkt->err]++;
			if (pkt->vlans)
				s->vlan_tagged++;
		}
		if ((features & PS_F_ECN) && (pkt->l3 == PS_L3_IPV4 || pkt->l3 == PS_L3_IPV6) &&
		    pkt->ipver < PS_IPVER_COUNT)
			s->ecn[pkt->ipver][pkt->ecn & 3]++;
	}
	if (features & PS_F_SIZES)
		s->size_hist[ps_hist_bucket(len, PS_SIZE_BUCKETS)]++;
}

/* Count one packet or skb of len bytes whose headers are in [data, data_end).
 * Returns 1 when it parsed the headers into *pkt (some feature needs them).
 * features is ps_features_now(). */
static __always_inline int ps_count(__u32 features, struct ps_qstats *s, void *data, void *data_end,
				    __u64 len, struct ps_pkt *pkt)
{
	int parsed = ps_wants_parse(features);

	if (parsed)
		ps_parse(data, data_end, pkt);
	ps_count_parsed(features, s, len, pkt, parsed);
	return parsed;
}

#endif /* PATHSCOPE_COUNT_BPF_H */
