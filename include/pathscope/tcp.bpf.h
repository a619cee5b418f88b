/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Passive TCP latency in the datapath (BPF only; see abi.h): network RTT and this
 * host's response time from the timestamp option, and the handshake RTT; the loader
 * makes the XDP and tc objects share the maps. */
#ifndef PATHSCOPE_TCP_BPF_H
#define PATHSCOPE_TCP_BPF_H

#include "count.bpf.h"

/* Peer subnets: prefix lengths set by the loader (attach --peer-prefix). */
const volatile __u32 ps_tcp_prefix4 = PS_TCP_PREFIX4;
const volatile __u32 ps_tcp_prefix6 = PS_TCP_PREFIX6;

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, PS_TCP_FLOWS_MAX);
	__type(key, struct ps_tcp_flow_key);
	__type(value, struct ps_tcp_flow);
} tcp_flows SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, PS_TCP_HALFOPEN_MAX);
	__type(key, struct ps_tcp_flow_key);
	__type(value, struct ps_tcp_flow);
} tcp_halfopen SEC(".maps");

PS_PER_QUEUE_MAP(tcp_stats, struct ps_tcp_qstats);

/* Histograms per queue slot, one copy for all CPUs (atomic adds). */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 2); /* the loader sets nqueues + 1 */
	__type(key, __u32);
	__type(value, struct ps_tcp_qhist);
} tcp_hist SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, PS_TCP_PEERS_MAX + 1);
	__type(key, struct ps_tcp_peer_key);
	__type(value, struct ps_tcp_peer_stats);
} tcp_peers SEC(".maps");

/* Each direction's last (TSval, TSecr) per flow-hash slot (abi.h). */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, PS_TCP_SEEN_SLOTS);
	__type(key, __u32);
	__type(value, struct ps_tcp_seen);
} tcp_seen SEC(".maps");

/* One TCP segment, as the latency matching needs it. */
struct ps_tcp_seg {
	struct ps_tcp_flow_key key;
	__u32 seq, ack_seq;
	__u32 tsval, tsecr;
	__u8 flags;
	__u8 ts;       /* enum ps_tcp_ts_result */
	__u8 has_data; /* payload beyond the headers (or a length GSO left 0) */
};

/* Read the segment parsed into p; rx: this host is the destination. */
static __always_inline int ps_tcp_seg_read(void *data, void *data_end, const struct ps_pkt *p,
					   int rx, struct ps_tcp_seg *g)
{
	struct ps_tcphdr *th = data + (p->l4_off & PS_MAX_HDR_OFF);
	void *l3 = data + (p->l3_off & PS_MAX_HDR_OFF);
	__u32 hdrs, iplen;

	if (p->l4 != PS_L4_TCP || (void *)(th + 1) > data_end)
		return 0;
	__builtin_memset(g, 0, sizeof(*g));
	hdrs = (th->doff_res >> 4) * 4;
	if (p->l3 == PS_L3_IPV4) {
		struct ps_ipv4hdr *ip = l3;

		if ((void *)(ip + 1) > data_end)
			return 0;
		g->key.family = 4;
		__builtin_memcpy(g->key.laddr, rx ? &ip->daddr : &ip->saddr, 4);
		__builtin_memcpy(g->key.raddr, rx ? &ip->saddr : &ip->daddr, 4);
		iplen = bpf_ntohs(ip->tot_len);
		hdrs += (ip->ver_ihl & 0xf) * 4;
	} else {
		struct ps_ipv6hdr *ip6 = l3;

		if ((void *)(ip6 + 1) > data_end)
			return 0;
		g->key.family = 6;
		__builtin_memcpy(g->key.laddr, rx ? ip6->daddr : ip6->saddr, 16);
		__builtin_memcpy(g->key.raddr, rx ? ip6->saddr : ip6->daddr, 16);
		iplen = bpf_ntohs(ip6->payload_len);
		hdrs += (p->l4_off - p->l3_off - sizeof(*ip6)) & PS_MAX_HDR_OFF;
	}
	g->key.lport = rx ? th->dest : th->source;
	g->key.rport = rx ? th->source : th->dest;
	g->seq = bpf_ntohl(th->seq);
	g->ack_seq = bpf_ntohl(th->ack_seq);
	g->flags = th->flags;
	/* An IP length of 0 is a GSO skb larger than 64 KiB (BIG TCP). */
	g->has_data = iplen == 0 || iplen > hdrs;
	g->ts = ps_parse_tcp_ts(data, data_end, p, &g->tsval, &g->tsecr);
	return 1;
}

/* The key's words folded and mixed: a cheap hash, not tcp_flows' own. */
static __always_inline __u32 ps_tcp_flow_hash(const struct ps_tcp_flow_key *k)
{
	const __u32 *w = (const __u32 *)k;
	__u32 h = 0;
	int i;

#pragma unroll
	for (i = 0; i < (int)(sizeof(*k) / 4); i++)
		h ^= w[i];
	h ^= h >> 15;
	h *= 0x2c1b3c6d;
	return h ^ (h >> 12);
}

/* g's slot in tcp_seen, one per direction (tc ingress and egress share the
 * tc object's map), and in *h the hash that must match; NULL without TS. */
static __always_inline struct ps_tcp_seen *ps_tcp_seen_slot(const struct ps_tcp_seg *g, int rx,
							    __u32 *h)
{
	__u32 k;

	if (g->ts != PS_TS_FOUND)
		return 0;
	*h = ps_tcp_flow_hash(&g->key) ^ (rx ? 0 : 0x9e3779b9);
	k = *h & (PS_TCP_SEEN_SLOTS - 1);
	return bpf_map_lookup_elem(&tcp_seen, &k);
}

/* Did the last look at g's flow in this direction carry g's pair? */
static __always_inline int ps_tcp_seen_same(const struct ps_tcp_seen *e, __u32 h,
					    const struct ps_tcp_seg *g)
{
	return e && e->flow == h && e->tsval == g->tsval && e->tsecr == g->tsecr;
}

static __always_inline void ps_tcp_seen_note(struct ps_tcp_seen *e, __u32 h,
					     const struct ps_tcp_seg *g)
{
	if (e) {
		e->flow = h;
		e->tsval = g->tsval;
		e->tsecr = g->tsecr;
	}
}

/* Is TSval a later than b, modulo 2^32 (RFC 7323)? */
static __always_inline int ps_ts_after(__u32 a, __u32 b)
{
	return (__s32)(a - b) > 0;
}

static __always_inline struct ps_tcp_qstats *ps_tcp_slot(__u32 slot)
{
	return bpf_map_lookup_elem(&tcp_stats, &slot);
}

static __always_inline struct ps_tcp_qhist *ps_tcp_hist_slot(__u32 slot)
{
	return bpf_map_lookup_elem(&tcp_hist, &slot);
}

/* Keep the first prefix bits of the 16-byte address. */
static __always_inline void ps_addr_mask(__u8 *addr, __u32 prefix)
{
	__u32 *w = (__u32 *)addr, i, bits;

#pragma unroll
	for (i = 0; i < 4; i++) {
		bits = prefix > i * 32 ? prefix - i * 32 : 0;
		if (bits >= 32)
			continue;
		w[i] &= bits ? bpf_htonl(~0U << (32 - bits)) : 0;
	}
}

/* A zero value for new peer entries: too big for the BPF stack. */
static struct ps_tcp_peer_stats ps_tcp_peer_zero;

/* The peer subnet's entry while there is room, else the shared "other". */
static __always_inline struct ps_tcp_peer_stats *ps_tcp_peer(const struct ps_tcp_flow_key *k)
{
	struct ps_tcp_peer_key pk = {};
	struct ps_tcp_peer_stats *ps;

	pk.family = k->family;
	pk.prefix = k->family == 4 ? ps_tcp_prefix4 : ps_tcp_prefix6;
	__builtin_memcpy(pk.addr, k->raddr, 16);
	ps_addr_mask(pk.addr, pk.prefix);
	ps = bpf_map_lookup_elem(&tcp_peers, &pk);
	if (ps)
		return ps;
	if (bpf_map_update_elem(&tcp_peers, &pk, &ps_tcp_peer_zero, BPF_NOEXIST) == 0) {
		ps = bpf_map_lookup_elem(&tcp_peers, &pk);
		if (ps)
			return ps;
	}
	__builtin_memset(&pk, 0, sizeof(pk));
	ps = bpf_map_lookup_elem(&tcp_peers, &pk);
	if (ps)
		return ps;
	bpf_map_update_elem(&tcp_peers, &pk, &ps_tcp_peer_zero, BPF_NOEXIST);
	return bpf_map_lookup_elem(&tcp_peers, &pk);
}

/* Count segs segments (a GRO or GSO skb's) with or without the timestamp
 * option: GRO merges only segments with identical options, and GSO copies
 * the header to each. */
static __always_inline void ps_tcp_count(struct ps_tcp_qstats *s, const struct ps_tcp_seg *g,
					 int rx, __u32 segs)
{
	if (!s)
		return;
	if (g->ts == PS_TS_FOUND) {
		if (rx)
			s->rx_ts += segs;
		else
			s->tx_ts += segs;
		return;
	}
	if (rx)
		s->rx_no_ts += segs;
	else
		s->tx_no_ts += segs;
	if (g->ts == PS_TS_BAD)
		s->opt_bad++;
}

/* ---- handshake -------------------------------------------------------------- */

/* tc egress: a SYN (client) or SYN-ACK (server) leaves. The same sequence
 * number again is a retransmission: counted, and the handshake not timed. */
static __always_inline void ps_tcp_hs_start(const struct ps_tcp_seg *g, struct ps_tcp_qstats *s)
{
	struct ps_tcp_flow *h = bpf_map_lookup_elem(&tcp_halfopen, &g->key);
	struct ps_tcp_flow v = {};

	if (h && h->hs_seq == g->seq && h->hs_state != PS_TCP_HS_NONE) {
		h->hs_retrans++;
		h->hs_state = PS_TCP_HS_DONE;
		if (s)
			s->syn_retrans++;
		return;
	}
	v.hs_ns = bpf_ktime_get_ns();
	v.hs_seq = g->seq;
	v.hs_state = (g->flags & PS_TCP_ACK) ? PS_TCP_HS_SYNACK_SENT : PS_TCP_HS_SYN_SENT;
	if (bpf_map_update_elem(&tcp_halfopen, &g->key, &v, BPF_ANY) == 0 && !h && s)
		s->halfopen_new++;
}

/* Arrival: the reply that completes the handshake timed in h (the SYN-ACK for
 * a client, the ACK of the SYN-ACK for a server), in RX queue slot. */
static __always_inline void ps_tcp_hs_reply(const struct ps_tcp_seg *g, __u32 want, __u32 slot,
					    struct ps_tcp_qstats *s)
{
	struct ps_tcp_flow *h = bpf_map_lookup_elem(&tcp_halfopen, &g->key);
	struct ps_tcp_peer_stats *ps;
	struct ps_tcp_qhist *hist;
	__u64 d;

	if (!h || h->hs_state != want || g->ack_seq != h->hs_seq + 1)
		return;
	h->hs_state = PS_TCP_HS_DONE;
	d = bpf_ktime_get_ns() - h->hs_ns;
	if (d > PS_TCP_MAX_AGE_NS)
		return;
	if (s)
		s->hs_timed++;
	hist = ps_tcp_hist_slot(slot);
	if (hist)
		__sync_fetch_and_add(&hist->handshake[ps_hist_bucket(d, PS_LAT_BUCKETS)], 1);
	ps = ps_tcp_peer(&g->key);
	if (ps) {
		__sync_fetch_and_add(&ps->hs_count, 1);
		__sync_fetch_and_add(&ps->hs_sum_ns, d);
	}
}

/* ---- arrivals: tc ingress, or XDP (--tcp-rx xdp) ------------------------------ */

static __always_inline void ps_tcp_rtt(const struct ps_tcp_seg *g, __u64 rtt, __u32 slot,
				       struct ps_tcp_qstats *s)
{
	struct ps_tcp_peer_stats *ps;
	struct ps_tcp_qhist *hist;
	__u32 b = ps_hist_bucket(rtt, PS_LAT_BUCKETS);

	if (s)
		s->rtt_matched++;
	hist = ps_tcp_hist_slot(slot);
	if (hist)
		__sync_fetch_and_add(&hist->rtt[b], 1);
	ps = ps_tcp_peer(&g->key);
	if (ps) {
		__sync_fetch_and_add(&ps->rtt_count, 1);
		__sync_fetch_and_add(&ps->rtt_sum_ns, rtt);
		__sync_fetch_and_add(&ps->rtt_hist[b], 1);
	}
}

/* A TCP segment (segs of them after GRO) arriving on RX queue slot `slot`:
 * called at tc ingress (after GRO: one run per GRO skb), or at XDP with attach
 * --tcp-rx xdp; ps_tcp_tx() at tc egress for each departing one. Cost: an skb
 * that takes or matches no sample costs the timestamp option's read, its
 * counter and one tcp_seen load (a flow lookup when its pair is new). Flow
 * state is created at tc egress only, so nothing a remote host sends can grow
 * the flow maps. */
static __always_inline void ps_tcp_rx(void *data, void *data_end, const struct ps_pkt *p,
				      __u32 slot, __u32 segs)
{
	struct ps_tcp_seen *seen;
	struct ps_tcp_qstats *s;
	struct ps_tcp_flow *f;
	struct ps_tcp_seg g;
	__u32 h = 0;
	__u64 now;

	if (!ps_tcp_seg_read(data, data_end, p, 1, &g))
		return;
	s = ps_tcp_slot(slot);
	ps_tcp_count(s, &g, 1, segs);
	if (g.flags & PS_TCP_SYN) {
		if (g.flags & PS_TCP_ACK) /* the SYN-ACK to a SYN this host sent */
			ps_tcp_hs_reply(&g, PS_TCP_HS_SYN_SENT, slot, s);
		return;
	}
	seen = ps_tcp_seen_slot(&g, 1, &h);
	if (ps_tcp_seen_same(seen, h, &g))
		return; /* nothing new for the RTT or the response sample */
	f = bpf_map_lookup_elem(&tcp_flows, &g.key);
	if (!f) { /* perhaps the (pure) ACK of a SYN-ACK this host sent */
		if ((g.flags & PS_TCP_ACK) && !g.has_data && !(g.flags & PS_TCP_FIN))
			ps_tcp_hs_reply(&g, PS_TCP_HS_SYNACK_SENT, slot, s);
		return;
	}
	if (g.ts != PS_TS_FOUND)
		return;
	ps_tcp_seen_note(seen, h, &g); /* what follows leaves nothing for the same pair */
	/* Network RTT: the echo of the segment this host sampled. */
	if (f->out_ns) {
		if (g.tsecr == f->out_tsval) {
			now = bpf_ktime_get_ns();
			if (now - f->out_ns <= PS_TCP_MAX_AGE_NS)
				ps_tcp_rtt(&g, now - f->out_ns, slot, s);
			else if (s)
				s->rtt_expired++;
			f->out_ns = 0;
		} else if (ps_ts_after(g.tsecr, f->out_tsval)) {
			f->out_ns = 0; /* echoes moved past it: it will never be echoed */
			if (s)
				s->rtt_expired++;
		}
	}
	/* Host response: sample the first data segment of a new TSval. */
	if (g.tsval == f->last_in)
		return;
	f->last_in = g.tsval;
	if (!g.has_data && !(g.flags & PS_TCP_FIN))
		return; /* a pure ACK is answered by nothing: no sample */
	if (f->in_ns) {
		now = bpf_ktime_get_ns();
		if (now - f->in_ns <= PS_TCP_MAX_AGE_NS)
			return;
		if (s)
			s->resp_expired++;
	} else {
		now = bpf_ktime_get_ns();
	}
	f->in_ns = now;
	f->in_tsval = g.tsval;
	f->in_queue = slot;
	if (s)
		s->resp_taken++;
}

/* ---- departures: tc egress ---------------------------------------------------------- */

/* This host answered the sampled arrival: record in the arrival's RX queue. */
static __always_inline void ps_tcp_response(const struct ps_tcp_seg *g, struct ps_tcp_flow *f,
					    __u64 resp)
{
	struct ps_tcp_qstats *s = ps_tcp_slot(f->in_queue);
	struct ps_tcp_peer_stats *ps;
	struct ps_tcp_qhist *hist = ps_tcp_hist_slot(f->in_queue);
	__u32 b = ps_hist_bucket(resp, PS_LAT_BUCKETS);

	ps = ps_tcp_peer(&g->key);
	if (g->has_data) {
		if (s)
			s->resp_data++;
		if (hist)
			__sync_fetch_and_add(&hist->resp_data[b], 1);
		if (ps) {
			__sync_fetch_and_add(&ps->resp_data_count, 1);
			__sync_fetch_and_add(&ps->resp_data_sum_ns, resp);
		}
	} else {
		if (s)
			s->resp_ack++;
		if (hist)
			__sync_fetch_and_add(&hist->resp_ack[b], 1);
		if (ps) {
			__sync_fetch_and_add(&ps->resp_ack_count, 1);
			__sync_fetch_and_add(&ps->resp_ack_sum_ns, resp);
		}
	}
}

/* A TCP segment (segs of them before GSO) leaving on TX queue slot `slot`. */
static __always_inline void ps_tcp_tx(void *data, void *data_end, const struct ps_pkt *p,
				      __u32 slot, __u32 segs)
{
	struct ps_tcp_flow fresh = {};
	struct ps_tcp_qstats *s, *in;
	struct ps_tcp_seen *seen;
	struct ps_tcp_flow *f;
	struct ps_tcp_seg g;
	__u32 h = 0;
	__u64 now;

	if (!ps_tcp_seg_read(data, data_end, p, 0, &g))
		return;
	s = ps_tcp_slot(slot);
	ps_tcp_count(s, &g, 0, segs);
	if (g.flags & PS_TCP_SYN) {
		ps_tcp_hs_start(&g, s);
		return;
	}
	seen = ps_tcp_seen_slot(&g, 0, &h);
	if (ps_tcp_seen_same(seen, h, &g))
		return; /* no new echo of an arrival, no new TSval to sample */
	f = bpf_map_lookup_elem(&tcp_flows, &g.key);
	if (!f) { /* the flow's first segment since its handshake (or attach) */
		if (g.flags & PS_TCP_RST)
			return; /* no flow: this host refuses one (a SYN to a closed port) */
		bpf_map_update_elem(&tcp_flows, &g.key, &fresh, BPF_NOEXIST);
		f = bpf_map_lookup_elem(&tcp_flows, &g.key);
		if (!f)
			return;
	}
	if (g.ts != PS_TS_FOUND)
		return;
	ps_tcp_seen_note(seen, h, &g);
	/* Host response: this host's first echo of the sampled arrival. */
	if (f->in_ns) {
		if (g.tsecr == f->in_tsval) {
			now = bpf_ktime_get_ns();
			if (now - f->in_ns <= PS_TCP_MAX_AGE_NS)
				ps_tcp_response(&g, f, now - f->in_ns);
			else if ((in = ps_tcp_slot(f->in_queue)))
				in->resp_expired++;
			f->in_ns = 0;
		} else if (ps_ts_after(g.tsecr, f->in_tsval)) {
			if ((in = ps_tcp_slot(f->in_queue)))
				in->resp_expired++;
			f->in_ns = 0;
		}
	}
	/* Network RTT: sample the first data segment of a new TSval. */
	if (g.tsval == f->last_out)
		return;
	f->last_out = g.tsval;
	if (!g.has_data && !(g.flags & PS_TCP_FIN))
		return; /* a pure ACK: the peer's think time would count as RTT */
	now = bpf_ktime_get_ns();
	if (f->out_ns) {
		if (now - f->out_ns <= PS_TCP_MAX_AGE_NS)
			return;
		if (s)
			s->rtt_expired++;
	}
	f->out_ns = now;
	f->out_tsval = g.tsval;
	if (s)
		s->rtt_taken++;
}

#endif /* PATHSCOPE_TCP_BPF_H */
