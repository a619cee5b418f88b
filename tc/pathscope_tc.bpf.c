// SPDX-License-Identifier: GPL-2.0
/* tc ingress (after GRO) and egress (before the qdisc and GSO): count and classify every
 * skb per queue, with its GRO/GSO segments, then let the next program or filter decide. */
#include "pathscope/kernel_types.bpf.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>
#include "pathscope/d2s.bpf.h"
#include "pathscope/icmp.bpf.h"
#include "pathscope/feature.bpf.h"
#include "pathscope/kskb.bpf.h"
#include "pathscope/sock.bpf.h"
#include "pathscope/tcp.bpf.h"

#define PS_TC_NEXT -1 /* TCX_NEXT and TC_ACT_UNSPEC are both -1 */
/* What the parser may read: Ethernet, 2 VLAN tags, IPv6 and a TCP header
 * with its options (14 + 8 + 40 + 60 = 122). */
#define PS_TC_PULL 128

/* How the driver stores the RX queue in skb->queue_mapping: most record
 * queue + 1 (skb_record_rx_queue, 0 = unrecorded); veth passes the peer's TX
 * queue, which is the RX queue itself. Set by the loader per driver. */
const volatile __u32 ps_rx_queue_base = 1;

/* Without the XDP program, tc ingress does its share of the matching of
 * ICMP echoes. */
const volatile __u32 ps_match_rx_at_tc = 0;

/* tc ingress matches arriving TCP segments (attach --tcp-rx tc, the
 * default): GRO merges only segments whose options are identical, so one run
 * per skb sees every (TSval, TSecr) pair the frames carried, at a 32nd of
 * the runs of a bulk flow at XDP. 0: XDP matches them (--tcp-rx xdp). */
const volatile __u32 ps_tcp_rx_at_tc = 1;

PS_QSTATS_MAP(tci_stats);
PS_QSTATS_MAP(tce_stats);

/* Count the skb in the slot of queue; returns the slot, or -1 when the queue
 * is not measured. *parsed says whether pkt holds its headers. */
static __always_inline long ps_tc_count(__u32 features, void *map, struct __sk_buff *skb,
					__u32 queue, struct ps_pkt *pkt, int *parsed)
{
	void *data = (void *)(long)skb->data;
	void *data_end = (void *)(long)skb->data_end;
	long idx = ps_queue_index(queue);
	__u32 key = (__u32)idx;
	struct ps_qstats *s;
	__u32 segs;

	*parsed = 0;
	if (idx < 0)
		return -1;
	s = bpf_map_lookup_elem(map, &key);
	if (!s)
		return -1;
	*parsed = ps_wants_parse(features);
	if (*parsed) {
		ps_parse(data, data_end, pkt);
		/* Headers past the skb's linear part (virtio-net with XDP on
		 * Linux 5.10 hands over the IP header only): pull them in, as
		 * the stack does next (ip_rcv, pskb_may_pull), and parse again.
		 * The packet and its verdict stay as they are. Only such skbs
		 * pay for it. */
		if (ps_pkt_truncated(pkt) && skb->len > data_end - data &&
		    !bpf_skb_pull_data(skb, skb->len < PS_TC_PULL ? skb->len : PS_TC_PULL)) {
			data = (void *)(long)skb->data;
			data_end = (void *)(long)skb->data_end;
			ps_parse(data, data_end, pkt);
		}
	}
	ps_count_parsed(features, s, skb->len, pkt, *parsed);

	if (features & PS_F_GRO) {
		segs = skb->gso_segs ? skb->gso_segs : 1;
		if (segs > 1) {
			s->gso_packets++;
			s->gso_segs += segs;
			s->gso_size_sum += skb->gso_size;
		}
		s->segs_hist[ps_hist_bucket(segs, PS_SEGS_BUCKETS)]++;
	}
	return idx;
}

PS_FEATURE(ps_tc_echo_rx, struct __sk_buff, skb, ps_icmp_rx(data, data_end, p, slot))
PS_FEATURE(ps_tc_echo_tx, struct __sk_buff, skb, ps_icmp_tx(data, data_end, p, slot))
PS_FEATURE(ps_tc_tcp_rx, struct __sk_buff, skb,
	   ps_tcp_rx(data, data_end, p, slot, skb->gso_segs ?: 1))
PS_FEATURE(ps_tc_tcp_tx, struct __sk_buff, skb,
	   ps_tcp_tx(data, data_end, p, slot, skb->gso_segs ?: 1))
PS_FEATURE(ps_tc_d2s, struct __sk_buff, skb, ps_d2s_tc(data, data_end, p, skb->len))
PS_FEATURE(ps_tc_sock, struct __sk_buff, skb, ps_sock_tc(skb, data, data_end, p, slot))

SEC("tc")
int pathscope_tc_ingress(struct __sk_buff *skb)
{
	__u32 features = ps_features_now();
	__u32 qm = skb->queue_mapping;
	struct ps_pkt pkt = {}; /* all of it goes to the feature calls */
	int parsed;
	long slot;

	slot = ps_tc_count(features, &tci_stats, skb,
			   qm >= ps_rx_queue_base ? qm - ps_rx_queue_base : PS_QUEUE_UNKNOWN, &pkt,
			   &parsed);
	if (!parsed)
		return PS_TC_NEXT;
	if (ps_match_rx_at_tc && (features & PS_F_ICMP) &&
	    ps_icmp_worth((void *)(long)skb->data, (void *)(long)skb->data_end, &pkt, PS_ICMP_OUT))
		PS_FEATURE_CALL(ps_tc_echo_rx, skb, &pkt, (__u32)slot);
	if (ps_tcp_rx_at_tc && (features & PS_F_TCP) && pkt.l4 == PS_L4_TCP)
		PS_FEATURE_CALL(ps_tc_tcp_rx, skb, &pkt, (__u32)slot);
	if ((features & PS_F_D2S) && (pkt.l4 == PS_L4_TCP || pkt.l4 == PS_L4_UDP) &&
	    ps_d2s_waiting())
		PS_FEATURE_CALL(ps_tc_d2s, skb, &pkt, (__u32)slot);
	if ((features & PS_F_SOCK) && (pkt.l4 == PS_L4_TCP || pkt.l4 == PS_L4_UDP))
		PS_FEATURE_CALL(ps_tc_sock, skb, &pkt, (__u32)slot);
	return PS_TC_NEXT;
}

/*
 * Since Linux 6.0 tc egress runs before the kernel picks the TX queue, so
 * skb->queue_mapping is not the TX queue yet. The queue the packet will take
 * is the one its socket has cached (sk_tx_queue_set() after each pick), as
 * the kernel itself reuses it: exact for TCP and connected UDP after a
 * flow's first packet. Packets without a cached queue (first of a flow,
 * unconnected sockets, forwarded traffic) count as queue unknown.
 */

SEC("tc")
int pathscope_tc_egress(struct __sk_buff *skb)
{
	__u32 features = ps_features_now();
	struct ps_pkt pkt = {}; /* all of it goes to the feature calls */
	int parsed;
	long slot;

	slot = ps_tc_count(features, &tce_stats, skb, ps_sk_tx_queue(skb), &pkt, &parsed);
	if (!parsed)
		return PS_TC_NEXT;
	if ((features & PS_F_ICMP) &&
	    ps_icmp_worth((void *)(long)skb->data, (void *)(long)skb->data_end, &pkt, PS_ICMP_IN))
		PS_FEATURE_CALL(ps_tc_echo_tx, skb, &pkt, ps_nqueues);
	if ((features & PS_F_TCP) && pkt.l4 == PS_L4_TCP)
		PS_FEATURE_CALL(ps_tc_tcp_tx, skb, &pkt, (__u32)slot);
	return PS_TC_NEXT;
}

char LICENSE[] SEC("license") = "GPL";
