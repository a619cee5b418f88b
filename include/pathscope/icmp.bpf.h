/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* ICMP/ICMPv6 echo matching in the datapath (BPF only; see abi.h). Only echo requests
 * and replies pay for anything beyond one branch: a timestamp and one LRU hash
 * update or lookup-and-delete. */
#ifndef PATHSCOPE_ICMP_BPF_H
#define PATHSCOPE_ICMP_BPF_H

#include "count.bpf.h"

#define PS_ICMP_ECHO_REPLY     0
#define PS_ICMP_ECHO_REQUEST   8
#define PS_ICMPV6_ECHO_REQUEST 128
#define PS_ICMPV6_ECHO_REPLY   129

/* The XDP and the tc object both declare these maps; the loader makes them
 * share one instance (bpf_map__reuse_fd), so a request seen at tc egress is
 * found by the reply at XDP and vice versa. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, PS_ICMP_PENDING_MAX);
	__type(key, struct ps_icmp_key);
	__type(value, struct ps_icmp_pending);
} icmp_pending SEC(".maps");

PS_PER_QUEUE_MAP(icmp_stats, struct ps_icmp_qstats);

/* How many requests wait in icmp_pending, per direction (enum
 * ps_icmp_dir). A reply whose direction has none skips the lookup and the
 * clock. Entries the LRU evicts are not subtracted: that only costs lookups. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 2);
	__type(key, __u32);
	__type(value, __u64);
} icmp_waiting SEC(".maps");

static __always_inline __u64 *ps_icmp_waiting(__u32 dir)
{
	return bpf_map_lookup_elem(&icmp_waiting, &dir);
}

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, PS_ICMP_PEERS_MAX + 1);
	__type(key, struct ps_peer_key);
	__type(value, struct ps_peer_stats);
} icmp_peers SEC(".maps");

/* An echo request or reply, read from the packet; 0 when it is neither. */
struct ps_echo {
	struct ps_icmp_key key; /* peer = the other end of the exchange */
	int request;		/* 1: request, 0: reply */
};

/* What an ICMP/ICMPv6 packet parsed into p is: 1 an echo request, 0 an echo
 * reply, -1 neither (or not ICMP, or truncated). */
static __always_inline int ps_icmp_kind(void *data, void *data_end, const struct ps_pkt *p)
{
	struct ps_icmphdr *icmp = data + (p->l4_off & PS_MAX_HDR_OFF);

	if ((void *)(icmp + 1) > data_end)
		return -1;
	if (p->l4 == PS_L4_ICMP)
		return icmp->type == PS_ICMP_ECHO_REQUEST ? 1
		       : icmp->type == PS_ICMP_ECHO_REPLY ? 0
							  : -1;
	if (p->l4 == PS_L4_ICMPV6)
		return icmp->type == PS_ICMPV6_ECHO_REQUEST ? 1
		       : icmp->type == PS_ICMPV6_ECHO_REPLY ? 0
							    : -1;
	return -1;
}

/* Does a request of direction dir wait? */
static __always_inline int ps_icmp_awaited(__u32 dir)
{
	__u64 *waiting = ps_icmp_waiting(dir);

	return waiting && *waiting;
}

/* Is the packet parsed into p worth the echo feature's call: a request, or
 * a reply that a request of direction reply_dir waits for? The programs ask
 * this inline, before the call, so that every other packet, and a reply
 * nobody waits for, costs no call, key or per-queue or LRU lookup (make
 * bench, an ICMP echo reply no request waits for, ns above the empty
 * program: XDP 66 with no such test, 43 with it inside the call, 33 here;
 * tc egress 49 -> 25). */
static __always_inline int ps_icmp_worth(void *data, void *data_end, const struct ps_pkt *p,
					 __u32 reply_dir)
{
	int kind;

	if (p->l4 != PS_L4_ICMP && p->l4 != PS_L4_ICMPV6)
		return 0;
	kind = ps_icmp_kind(data, data_end, p);
	return kind > 0 || (kind == 0 && ps_icmp_awaited(reply_dir));
}

/* Fill e from an echo request (kind 1) or reply (kind 0) parsed into p.
 * rx: the peer is the source (packet arriving), else the destination
 * (packet leaving). */
static __always_inline int ps_icmp_read(void *data, void *data_end, const struct ps_pkt *p,
					int kind, int rx, struct ps_echo *e)
{
	struct ps_icmphdr *icmp = data + (p->l4_off & PS_MAX_HDR_OFF);
	void *l3 = data + (p->l3_off & PS_MAX_HDR_OFF);

	if ((void *)(icmp + 1) > data_end)
		return 0;
	__builtin_memset(&e->key, 0, sizeof(e->key));
	e->request = kind;
	if (p->l4 == PS_L4_ICMP) {
		struct ps_ipv4hdr *ip = l3;

		if ((void *)(ip + 1) > data_end)
			return 0;
		e->key.family = 4;
		__builtin_memcpy(e->key.peer, rx ? &ip->saddr : &ip->daddr, 4);
	} else {
		struct ps_ipv6hdr *ip6 = l3;

		if ((void *)(ip6 + 1) > data_end)
			return 0;
		e->key.family = 6;
		__builtin_memcpy(e->key.peer, rx ? ip6->saddr : ip6->daddr, 16);
	}
	e->key.id = icmp->id;
	e->key.seq = icmp->seq;
	return 1;
}

static __always_inline struct ps_icmp_qstats *ps_icmp_slot(__u32 slot)
{
	return bpf_map_lookup_elem(&icmp_stats, &slot);
}

/* A zero value for new peer entries: too big for the BPF stack. */
static struct ps_peer_stats ps_peer_zero;

/* Per-peer statistics: the peer's own entry while there is room, else the
 * shared "other peers" entry (family 0). */
static __always_inline struct ps_peer_stats *ps_icmp_peer(const struct ps_icmp_key *k)
{
	struct ps_peer_key pk = {};
	struct ps_peer_stats *ps;

	pk.family = k->family;
	__builtin_memcpy(pk.addr, k->peer, 16);
	ps = bpf_map_lookup_elem(&icmp_peers, &pk);
	if (ps)
		return ps;
	if (bpf_map_update_elem(&icmp_peers, &pk, &ps_peer_zero, BPF_NOEXIST) == 0) {
		ps = bpf_map_lookup_elem(&icmp_peers, &pk);
		if (ps)
			return ps;
	}
	__builtin_memset(&pk, 0, sizeof(pk));
	ps = bpf_map_lookup_elem(&icmp_peers, &pk);
	if (ps)
		return ps;
	bpf_map_update_elem(&icmp_peers, &pk, &ps_peer_zero, BPF_NOEXIST);
	return bpf_map_lookup_elem(&icmp_peers, &pk);
}

/* The time since the matching request, removing it; 0 when there is none
 * or it expired (*expired = 1). *queue gets the request's stored queue. */
static __always_inline __u64 ps_icmp_match(struct ps_icmp_key *k, __u32 *queue, int *expired)
{
	__u64 *waiting = ps_icmp_waiting(k->dir), ts, now;
	struct ps_icmp_pending *pend;

	if (!waiting || !*waiting)
		return 0; /* no request of this direction waits: no lookup */
	pend = bpf_map_lookup_elem(&icmp_pending, k);
	if (!pend)
		return 0;
	ts = pend->ts_ns;
	*queue = pend->queue;
	bpf_map_delete_elem(&icmp_pending, k);
	__sync_fetch_and_add(waiting, -1);
	now = bpf_ktime_get_ns();
	if (now <= ts)
		return 0;
	if (now - ts > PS_ICMP_MAX_AGE_NS) {
		*expired = 1;
		return 0;
	}
	return now - ts;
}

/* Remember a request until its reply passes. */
static __always_inline void ps_icmp_remember(struct ps_icmp_key *k, __u32 queue)
{
	struct ps_icmp_pending pend = { .ts_ns = bpf_ktime_get_ns(), .queue = queue };
	__u64 *waiting = ps_icmp_waiting(k->dir);

	bpf_map_update_elem(&icmp_pending, k, &pend, BPF_ANY);
	if (waiting)
		__sync_fetch_and_add(waiting, 1);
}

/* A packet arriving on RX queue slot `slot` (XDP, or tc ingress without XDP). */
static __always_inline void ps_icmp_rx(void *data, void *data_end, const struct ps_pkt *p,
				       __u32 slot)
{
	struct ps_icmp_qstats *s;
	struct ps_peer_stats *ps;
	struct ps_echo e;
	int expired = 0;
	__u32 q;
	__u64 rtt;

	int kind = ps_icmp_kind(data, data_end, p);

	if (kind < 0) /* the caller asked ps_icmp_worth() */
		return;
	if (!ps_icmp_read(data, data_end, p, kind, 1, &e))
		return;
	s = ps_icmp_slot(slot);
	if (!s)
		return;
	if (e.request) { /* remember it until this host's reply leaves */
		e.key.dir = PS_ICMP_IN;
		ps_icmp_remember(&e.key, slot);
		s->requests_in++;
		return;
	}
	e.key.dir = PS_ICMP_OUT;
	rtt = ps_icmp_match(&e.key, &q, &expired);
	s->expired += expired;
	if (!rtt)
		return;
	s->replies_in++;
	s->rtt_hist[ps_hist_bucket(rtt, PS_LAT_BUCKETS)]++;
	ps = ps_icmp_peer(&e.key);
	if (ps) {
		__sync_fetch_and_add(&ps->rtt_count, 1);
		__sync_fetch_and_add(&ps->rtt_sum_ns, rtt);
		__sync_fetch_and_add(&ps->rtt_hist[ps_hist_bucket(rtt, PS_LAT_BUCKETS)], 1);
	}
}

/* A packet leaving (tc egress). Requests are remembered; replies to a
 * request seen at RX are recorded in the request's RX queue slot. */
static __always_inline void ps_icmp_tx(void *data, void *data_end, const struct ps_pkt *p,
				       __u32 noqueue_slot)
{
	struct ps_icmp_qstats *s;
	struct ps_peer_stats *ps;
	struct ps_echo e;
	__u32 q = noqueue_slot;
	int expired = 0;
	__u64 resp;

	int kind = ps_icmp_kind(data, data_end, p);

	if (kind < 0) /* the caller asked ps_icmp_worth() */
		return;
	if (!ps_icmp_read(data, data_end, p, kind, 0, &e))
		return;
	if (e.request) {
		e.key.dir = PS_ICMP_OUT;
		ps_icmp_remember(&e.key, 0);
		s = ps_icmp_slot(noqueue_slot);
		if (s)
			s->requests_out++;
		return;
	}
	e.key.dir = PS_ICMP_IN;
	resp = ps_icmp_match(&e.key, &q, &expired);
	s = ps_icmp_slot(q);
	if (!s)
		return;
	s->expired += expired;
	if (!resp)
		return;
	s->replies_out++;
	s->resp_hist[ps_hist_bucket(resp, PS_LAT_BUCKETS)]++;
	ps = ps_icmp_peer(&e.key);
	if (ps) {
		__sync_fetch_and_add(&ps->resp_count, 1);
		__sync_fetch_and_add(&ps->resp_sum_ns, resp);
	}
}

#endif /* PATHSCOPE_ICMP_BPF_H */
