/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* The kernel/user ABI of pathscope: map values, class and reason ids, feature bits.
 * Compiled by clang -target bpf (after kernel_types.bpf.h) and by gcc (after <linux/types.h>);
 * every counter is a 64-bit per-CPU count, which user space sums over the CPUs. */
#ifndef PATHSCOPE_ABI_H
#define PATHSCOPE_ABI_H

#include "hist.h"

/* Bumped whenever a map layout below changes; stored in the pinned meta map
 * so that a newer binary refuses to misread an older attachment. */
#define PS_ABI_VERSION 12

/* Queues: per-queue maps have nqueues + 1 slots; the last one counts packets
 * whose queue is unknown or >= nqueues (an interface that grew its queues). */
#define PS_MAX_QUEUES	 1024
#define PS_QUEUE_UNKNOWN 0xffffffffU
#define PS_QMASK_WORDS	 (PS_MAX_QUEUES / 64)

/* XDP chain mode: slots of pathscope's own program array, and how many slots
 * of a joined root array it tries after its own. */
#define PS_XDP_CHAIN_SLOTS 8

/* Feature bits (--features). Packets and bytes are always counted. */
enum ps_feature {
	PS_F_CLASS = 1U << 0,  /* L3/L4 class and parse-error counters */
	PS_F_ECN = 1U << 1,    /* ECN codepoints, IPv4 and IPv6 */
	PS_F_SIZES = 1U << 2,  /* frame/skb size histogram */
	PS_F_GRO = 1U << 3,    /* GRO/GSO segment histogram and gso_size (tc) */
	PS_F_ICMP = 1U << 4,   /* ICMP/ICMPv6 echo RTT and response time (icmp.bpf.h) */
	PS_F_TXLAT = 1U << 5,  /* qdisc sojourn and TX completion (probes/, keyed by skb) */
	PS_F_D2S = 1U << 6,    /* driver-to-stack latency, XDP -> tc ingress (sampled) */
	PS_F_KERNEL = 1U << 7, /* kernel path probes: NAPI, softirq, drops, xmit (probes/) */
	PS_F_TCP = 1U << 8,    /* passive TCP RTT, handshake RTT, host response (tcp.bpf.h) */
	PS_F_SOCK = 1U << 9,   /* stack to socket read latency (sock.bpf.h, probes/) */
	PS_F_FLOWS = 1U << 10, /* flows per RX queue, sampled, and distinct flows (flows.bpf.h) */
	PS_F_FIRSTHOP = 1U << 11, /* IRQ, NET_RX softirq and poll per RX queue (firsthop.bpf.h) */
};
#define PS_F_ALL                                                                             \
	(PS_F_CLASS | PS_F_ECN | PS_F_SIZES | PS_F_GRO | PS_F_ICMP | PS_F_TXLAT | PS_F_D2S | \
	 PS_F_KERNEL | PS_F_TCP | PS_F_SOCK | PS_F_FLOWS | PS_F_FIRSTHOP)
/* txlat, kernel and sock are opt-in: they run on tracepoints of every packet
 * (or socket read) of the host, not only this interface's. tcp is opt-in for
 * its maps (3.5 MiB per attachment) and because a balancer forwarding at XDP
 * sees only the flows its host terminates; per packet it costs 44 ns per skb
 * at tc for a flow without state, next to nothing for one with state
 * (bench/README.md, "Why tcp is opt-in"). */
/* flows is opt-in for its table (16,384 flows) and its cost per sampled
 * frame (bench/README.md, "flows"). */
/* firsthop is opt-in: its probes run on every IRQ and NET_RX softirq of the
 * host, and XDP pays two lookups per frame for it. */
#define PS_F_DEFAULT \
	(PS_F_ALL & ~(PS_F_TXLAT | PS_F_KERNEL | PS_F_SOCK | PS_F_TCP | PS_F_FLOWS | PS_F_FIRSTHOP))

/* L3 class: exactly one per packet, so the classes sum to packets. */
enum ps_l3 {
	PS_L3_IPV4,
	PS_L3_IPV6,
	PS_L3_ARP,
	PS_L3_OTHER,	 /* an ethertype pathscope does not parse */
	PS_L3_MALFORMED, /* see the L2/L3 reasons in enum ps_err */
	PS_L3_COUNT,
};

/* L4 class: exactly one per IPv4/IPv6 packet, so they sum to ipv4 + ipv6. */
enum ps_l4 {
	PS_L4_TCP,
	PS_L4_UDP,
	PS_L4_ICMP,
	PS_L4_ICMPV6,
	PS_L4_FRAGMENT,	 /* non-first fragment: no L4 header */
	PS_L4_OTHER,	 /* another protocol (ESP, SCTP, GRE, no-next-header...) */
	PS_L4_MALFORMED, /* see the L4 reasons in enum ps_err */
	PS_L4_COUNT,
};

/* Why a packet could not be parsed: exactly one reason per malformed packet,
 * so the reasons sum to l3[MALFORMED] + l4[MALFORMED]. */
enum ps_err {
	/* L2/L3: counted in l3[PS_L3_MALFORMED] */
	PS_ERR_L2_TRUNC,    /* shorter than an Ethernet header or a VLAN tag */
	PS_ERR_VLAN_DEPTH,  /* more than PS_MAX_VLAN tags */
	PS_ERR_L3_TRUNC,    /* IP header (or its options) past the end */
	PS_ERR_BAD_VERSION, /* IP version does not match the ethertype */
	PS_ERR_BAD_IHL,	    /* IPv4 IHL below 5 */
	PS_ERR_BAD_LEN,	    /* IPv4 total length below its header length */
	/* L4: counted in l4[PS_L4_MALFORMED] */
	PS_ERR_EXT_TRUNC, /* IPv6 extension header past the end */
	PS_ERR_EXT_DEPTH, /* more than PS_MAX_EXT_HDRS extension headers */
	PS_ERR_L4_TRUNC,  /* TCP/UDP/ICMP header past the end, or TCP doff < 5 */
	PS_ERR_COUNT,
};
#define PS_ERR_FIRST_L4 PS_ERR_EXT_TRUNC

#define PS_MAX_VLAN	2
#define PS_MAX_EXT_HDRS 6

enum ps_ipver { PS_IPV4, PS_IPV6, PS_IPVER_COUNT };

/* ECN codepoints, as on the wire (RFC 3168). */
enum ps_ecn { PS_ECN_NOT_ECT = 0, PS_ECN_ECT1 = 1, PS_ECN_ECT0 = 2, PS_ECN_CE = 3, PS_ECN_COUNT };

/* Histogram sizes (see hist.h). */
#define PS_SIZE_BITS	20 /* frame and skb sizes: exact below 16 B, up to 1 MiB */
#define PS_SIZE_BUCKETS PS_HIST_BUCKETS_FOR_BITS(PS_SIZE_BITS)
#define PS_SEGS_BITS	10 /* GRO/GSO segments per skb: up to 1023 */
#define PS_SEGS_BUCKETS PS_HIST_BUCKETS_FOR_BITS(PS_SEGS_BITS)

/* The hooks; each has its own per-queue map of struct ps_qstats. */
enum ps_hook {
	PS_HOOK_XDP,	    /* driver ingress, queue = rx_queue_index */
	PS_HOOK_TC_INGRESS, /* after GRO, queue = recorded rx queue */
	PS_HOOK_TC_EGRESS,  /* before the qdisc and GSO */
	PS_HOOK_COUNT,
};

/* Per queue, per CPU, per hook. GRO fields are used at the tc hooks only. */
struct ps_qstats {
	__u64 packets;
	__u64 bytes;
	__u64 l3[PS_L3_COUNT];
	__u64 l4[PS_L4_COUNT];
	__u64 err[PS_ERR_COUNT];
	__u64 ecn[PS_IPVER_COUNT][PS_ECN_COUNT];
	__u64 vlan_tagged; /* packets carrying at least one VLAN tag in the data */
	__u64 size_hist[PS_SIZE_BUCKETS];
	__u64 gso_packets;		  /* skbs with more than one segment */
	__u64 gso_segs;			  /* segments in those skbs */
	__u64 gso_size_sum;		  /* sum of gso_size over those skbs */
	__u64 segs_hist[PS_SEGS_BUCKETS]; /* segments per skb, 1 for plain skbs */
};

/* Latency histograms in nanoseconds: exact below 16 ns, up to 2^36 ns (68 s). */
#define PS_LAT_BITS    36
#define PS_LAT_BUCKETS PS_HIST_BUCKETS_FOR_BITS(PS_LAT_BITS)

/*
 * ICMP/ICMPv6 echo, matched in the datapath. Outbound: a request leaving
 * (tc egress) is remembered by peer, id and sequence; the matching reply at
 * driver ingress (XDP) gives the round-trip time, per RX queue and per peer.
 * Inbound: a request arriving (XDP) matched with this host's reply leaving
 * (tc egress) gives the host's response time, per RX queue of the request.
 */
enum ps_icmp_dir { PS_ICMP_OUT, PS_ICMP_IN };

struct ps_icmp_key {
	__u8 family; /* 4 or 6 */
	__u8 dir;    /* enum ps_icmp_dir */
	__be16 id;
	__be16 seq;
	__u16 pad;
	__u8 peer[16]; /* IPv4 in the first 4 bytes */
};

struct ps_icmp_pending {
	__u64 ts_ns; /* bpf_ktime_get_ns() when the request passed */
	__u32 queue; /* RX queue slot of an inbound request */
	__u32 pad;
};

/* Pending requests older than this never match (a reused id/seq, a reply
 * that came much too late): they are counted as expired instead. */
#define PS_ICMP_MAX_AGE_NS  (10ULL * 1000000000ULL)
#define PS_ICMP_PENDING_MAX 4096 /* LRU: a flood to a dead host stays bounded */
#define PS_ICMP_PEERS_MAX   64	 /* peers with their own entry; key 0 = all others */

/* Per RX queue, per CPU. */
struct ps_icmp_qstats {
	__u64 requests_out; /* echo requests sent (tc egress), all queues: slot of no queue */
	__u64 replies_in;   /* matched replies received: rtt_hist samples */
	__u64 requests_in;  /* echo requests received (XDP) */
	__u64 replies_out;  /* matched replies sent: resp_hist samples */
	__u64 expired;	    /* matches older than PS_ICMP_MAX_AGE_NS, not recorded */
	__u64 rtt_hist[PS_LAT_BUCKETS];
	__u64 resp_hist[PS_LAT_BUCKETS];
};

struct ps_peer_key {
	__u8 family; /* 0: every peer beyond the first PS_ICMP_PEERS_MAX */
	__u8 pad[3];
	__u8 addr[16];
};

/* Per peer, shared by all CPUs (atomic adds). */
struct ps_peer_stats {
	__u64 rtt_count;
	__u64 rtt_sum_ns;
	__u64 resp_count;
	__u64 resp_sum_ns;
	__u64 rtt_hist[PS_LAT_BUCKETS];
};

/*
 * TX path latency per TX queue, from tracepoints keyed by skb address:
 *   sojourn    net:net_dev_queue -> net:net_dev_start_xmit (time in the qdisc)
 *   completion net:net_dev_start_xmit -> skb:consume_skb / skb:kfree_skb
 *              (the driver's TX completion). Devices that hand the skb on
 *              instead of completing it (veth) get no completion samples.
 */
enum ps_tx_stage { PS_TX_QUEUED = 1, PS_TX_STARTED = 2 };

struct ps_tx_inflight {
	__u64 ts_ns;
	__u32 queue;
	__u32 stage; /* enum ps_tx_stage */
};

#define PS_TX_INFLIGHT_MAX 16384 /* LRU: drops we never see cannot leak entries */
#define PS_TX_MAX_AGE_NS   (10ULL * 1000000000ULL)

/* Per TX queue, per CPU. */
struct ps_txlat_qstats {
	__u64 queued;	      /* net_dev_queue events */
	__u64 sojourn_n;      /* sojourn samples */
	__u64 completed;      /* completion samples */
	__u64 dropped;	      /* freed by kfree_skb after queueing (qdisc or driver drop) */
	__u64 stale;	      /* entries older than PS_TX_MAX_AGE_NS, not recorded */
	__u64 sojourn_sum_ns; /* exact sums: the means tests hold to a reference */
	__u64 completion_sum_ns;
	__u64 sojourn_hist[PS_LAT_BUCKETS];
	__u64 completion_hist[PS_LAT_BUCKETS];
};

/*
 * Driver-to-stack latency per RX queue: from XDP (driver ingress, before GRO)
 * to tc ingress (after GRO). No metadata rides with the packet (per-packet
 * metadata stops GRO from merging); instead XDP remembers one sampled TCP or
 * UDP packet per CPU, taken from every PS_D2S_EVERY-th packet of each queue
 * on that CPU, by flow and sequence, and tc ingress on the same CPU recognises the skb that carries
 * it: the same flow, and for TCP a GRO'd skb whose sequence range covers the sample's.
 */
#define PS_D2S_EVERY	  64
#define PS_D2S_MAX_AGE_NS (10ULL * 1000000ULL) /* a sample not seen in 10 ms expires */

struct ps_flow {
	__u8 family; /* 4 or 6; 0: not TCP/UDP */
	__u8 proto;
	__be16 sport;
	__be16 dport;
	__u16 pad;
	__u32 seq;    /* TCP: host-order sequence; UDP: IPv4 id << 16 | checksum */
	__u32 paylen; /* TCP payload bytes in this packet or skb */
	__u8 saddr[16];
	__u8 daddr[16];
};

/* The per-CPU sample slot. */
struct ps_d2s_slot {
	__u64 ts_ns; /* 0: empty */
	__u32 queue; /* RX queue slot of the sample */
	__u32 pad;
	struct ps_flow flow;
};

/* Per RX queue, per CPU. */
struct ps_d2s_qstats {
	__u64 sampled;
	__u64 matched;
	__u64 expired; /* samples never seen at tc ingress (merged into a batch
			* that started earlier, dropped, or taken by another CPU) */
	__u64 sum_ns;  /* of the matched samples: the exact mean */
	__u64 hist[PS_LAT_BUCKETS];
};

/*
 * Passive TCP latency (feature tcp, include/pathscope/tcp.bpf.h), from the
 * timestamp option (RFC 7323) and the handshake, matched in the datapath:
 *   network RTT    a data segment leaves (tc egress) with TSval T; the first
 *                  segment arriving (XDP) with TSecr T gives the RTT, in the
 *                  RX queue of that segment and for the peer's subnet
 *   host response  a data segment arrives (XDP) with TSval X; the first
 *                  segment this host sends (tc egress) with TSecr X gives
 *                  this host's response time: "data" when it carries data
 *                  (the application answered), "ack" when it is a pure ACK
 *                  (the stack's ACK delay); in the RX queue of the arrival
 *   handshake      SYN out -> SYN-ACK in (client), SYN-ACK out -> the ACK
 *                  completing the handshake (server); retransmitted SYNs and
 *                  SYN-ACKs are counted, never timed
 * Each flow keeps at most one sample in flight per direction, in its flow
 * state: no map of pending timestamps, and a segment that takes or matches
 * no sample costs one flow lookup. Flow state is created only by segments
 * leaving this host: a SYN-ACK or SYN creates a half-open entry (a bounded
 * map of its own, so a SYN flood churns that map and not the live flows),
 * any other segment an established one.
 */
#define PS_TCP_FLOWS_MAX    16384 /* LRU: established flows */
#define PS_TCP_HALFOPEN_MAX 4096  /* LRU: handshakes in progress */
#define PS_TCP_PEERS_MAX    128	  /* peer subnets with their own entry; key 0 = all others */
#define PS_TCP_MAX_AGE_NS   (10ULL * 1000000000ULL) /* older samples expire */
#define PS_TCP_PREFIX4	    24			    /* default peer subnets: /24 and /48 */
#define PS_TCP_PREFIX6	    48

/* Both directions of a flow have one key: this host's end is "local". */
struct ps_tcp_flow_key {
	__u8 family; /* 4 or 6 */
	__u8 pad[3];
	__be16 lport;
	__be16 rport;
	__u8 laddr[16]; /* IPv4 in the first 4 bytes */
	__u8 raddr[16];
};

/* Per slot of a flow hash and direction (tcp.bpf.h's tcp_seen), the TSval
 * and TSecr of the segment the last lookup of its flow was for. A segment
 * carrying the same pair as its flow's last look in its direction has
 * nothing to do there. Arriving: no new echo for the RTT sample (same TSecr)
 * and no new arrival for the host response (same TSval). Leaving: no new
 * echo of a sampled arrival (same TSecr) and no new TSval to sample. It
 * skips the tcp_flows lookup, a 40-byte key hashed per skb. Two flows
 * sharing a slot only cost lookups. */
#define PS_TCP_SEEN_SLOTS 4096
struct ps_tcp_seen {
	__u32 flow; /* the flow's hash, all 32 bits */
	__u32 tsval;
	__u32 tsecr;
	__u32 pad;
};

enum ps_tcp_hs_state {
	PS_TCP_HS_NONE,
	PS_TCP_HS_SYN_SENT,    /* client: waiting for the SYN-ACK */
	PS_TCP_HS_SYNACK_SENT, /* server: waiting for the ACK of the SYN-ACK */
	PS_TCP_HS_DONE,	       /* timed, or retransmitted: not timed */
};

struct ps_tcp_flow {
	__u64 out_ns;	  /* network RTT: when the sampled segment left; 0: none */
	__u64 in_ns;	  /* host response: when the sampled segment arrived; 0: none */
	__u64 hs_ns;	  /* when the SYN or SYN-ACK left */
	__u32 out_tsval;  /* the sampled segment's TSval, waiting for its echo */
	__u32 last_out;	  /* the last TSval sent: only the first segment of a TSval is sampled */
	__u32 in_tsval;	  /* the sampled arrival's TSval, waiting for this host's echo */
	__u32 last_in;	  /* the last TSval received */
	__u32 in_queue;	  /* RX queue slot of the sampled arrival */
	__u32 hs_seq;	  /* sequence number of the SYN or SYN-ACK sent */
	__u32 hs_state;	  /* enum ps_tcp_hs_state */
	__u32 hs_retrans; /* retransmissions of the SYN or SYN-ACK */
};

/* Per queue, per CPU: what each TCP skb costs a counter, which counts its
 * segments (GRO and GSO: gso_segs). Arrivals count in their RX queue (tc
 * ingress, or XDP with --tcp-rx xdp), departures in their TX queue (tc
 * egress). opt_bad counts skbs. */
struct ps_tcp_qstats {
	__u64 rx_ts;	    /* segments received with the timestamp option */
	__u64 rx_no_ts;	    /* ... without it (such flows cannot be measured) */
	__u64 tx_ts;	    /* segments sent with the timestamp option */
	__u64 tx_no_ts;	    /* ... without it */
	__u64 opt_bad;	    /* option lists truncated or malformed (not read further) */
	__u64 rtt_taken;    /* network RTT samples taken, by TX queue */
	__u64 rtt_matched;  /* ... matched: RTTs, by RX queue of the echo */
	__u64 rtt_expired;  /* ... never echoed (the echo skipped it, or too old) */
	__u64 resp_taken;   /* host response samples taken, by RX queue */
	__u64 resp_data;    /* ... answered by a segment carrying data */
	__u64 resp_ack;	    /* ... answered by a pure ACK */
	__u64 resp_expired; /* ... never echoed */
	__u64 hs_timed;	    /* handshakes timed, by RX queue of the reply */
	__u64 syn_retrans;  /* SYNs and SYN-ACKs sent again (not timed), by TX queue */
	__u64 halfopen_new; /* handshakes added to tcp_halfopen, by TX queue: those
			     * not there any more were evicted (the LRU was full) */
};

/* Per queue, shared by the CPUs (atomic adds: samples are rare, and one
 * copy per CPU would cost CPUs x 8.7 KB per queue). */
struct ps_tcp_qhist {
	__u64 rtt[PS_LAT_BUCKETS];	 /* network RTT */
	__u64 handshake[PS_LAT_BUCKETS]; /* handshake RTT */
	__u64 resp_data[PS_LAT_BUCKETS]; /* this host's response, answered with data */
	__u64 resp_ack[PS_LAT_BUCKETS];	 /* ... with a pure ACK (ACK delay) */
};

/* Peer subnets (remote address masked to the attach's prefix lengths). */
struct ps_tcp_peer_key {
	__u8 family; /* 0: every subnet beyond the first PS_TCP_PEERS_MAX */
	__u8 prefix;
	__u8 pad[2];
	__u8 addr[16];
};

/* Per peer subnet, shared by the CPUs (atomic adds). */
struct ps_tcp_peer_stats {
	__u64 rtt_count;
	__u64 rtt_sum_ns;
	__u64 hs_count;
	__u64 hs_sum_ns;
	__u64 resp_data_count;
	__u64 resp_data_sum_ns;
	__u64 resp_ack_count;
	__u64 resp_ack_sum_ns;
	__u64 rtt_hist[PS_LAT_BUCKETS];
};

/*
 * Stack to socket latency (feature sock): from tc ingress (after GRO) to the
 * application's read of the data, per RX queue of the packet and per local
 * port. tc ingress samples 1 in PS_SOCK_EVERY TCP or UDP packets per CPU
 * (include/pathscope/sock.bpf.h), up to PS_SOCK_INFLIGHT in flight per
 * flow, keyed by flow; the probes (probes/pathscope_sock.bpf.c) recognise its read:
 *   TCP  skb:skb_copy_datagram_iovec, when the copy starts at or before the
 *        sample's first byte and reaches it (the socket's copied_seq): the
 *        sample survives tcp_try_coalesce merging its skb into another
 *   UDP  sock:sk_data_ready finds the sampled skb at the tail of its
 *        socket's queue and notes how many datagrams are queued up to it;
 *        sock:sock_recv_length counts the socket's reads (not MSG_PEEK)
 *        down to it. (consume_skb would be simpler, but skb_consume_udp
 *        frees most datagrams with no tracepoint: 317 of 1000 fired here.)
 * A sample whose read never comes (socket closed, packet dropped, read by
 * splice, kTLS or zerocopy receive) expires after PS_SOCK_MAX_AGE_NS.
 */
#define PS_SOCK_EVERY	    64
#define PS_SOCK_PENDING_MAX 4096 /* LRU: one per TCP flow or UDP local port */
#define PS_SOCK_PORTS_MAX   32	 /* local ports with their own entry; key 0 = all others */
#define PS_SOCK_MAX_AGE_NS  (2ULL * 1000000000ULL)

enum ps_sock_proto { PS_SOCK_TCP, PS_SOCK_UDP, PS_SOCK_PROTOS };

struct ps_sock_key {
	__u8 proto;  /* enum ps_sock_proto */
	__u8 family; /* 4 or 6 */
	__be16 lport;
	__be16 rport;
	__u16 pad;
	__u8 laddr[16];
	__u8 raddr[16];
};

struct ps_sock_sample {
	__u64 ts_ns;	 /* at tc ingress; 0: a free slot */
	__u64 skb;	 /* UDP: the sampled skb's address */
	__u64 sk;	 /* UDP: its socket, once queued there; 0 before */
	__u32 seq;	 /* TCP: the sampled skb's first sequence number */
	__u32 queue;	 /* RX queue slot */
	__u32 remaining; /* UDP: datagrams to read up to and including it */
	__u32 pad;
};

/* Up to PS_SOCK_INFLIGHT samples wait per flow (port): with one, a flow
 * whose reads come later than its next candidate would skip that one, and
 * only the long waits would be sampled. A candidate finding every slot
 * taken is counted as skipped. */
#define PS_SOCK_INFLIGHT 4
struct ps_sock_pending {
	struct ps_sock_sample s[PS_SOCK_INFLIGHT];
};

/* Per RX queue, per CPU. */
struct ps_sock_qstats {
	__u64 sampled[PS_SOCK_PROTOS];
	__u64 matched[PS_SOCK_PROTOS];
	__u64 expired[PS_SOCK_PROTOS]; /* replaced after PS_SOCK_MAX_AGE_NS unread */
	__u64 skipped[PS_SOCK_PROTOS]; /* candidates while PS_SOCK_INFLIGHT waited */
};

/* Per RX queue, one copy for all CPUs (atomic adds). */
struct ps_sock_qhist {
	__u64 hist[PS_SOCK_PROTOS][PS_LAT_BUCKETS];
};

struct ps_sock_port_key {
	__u8 proto; /* enum ps_sock_proto */
	__u8 own;   /* 1: this port's entry; 0 (all zero): every other port */
	__be16 port;
};

struct ps_sock_port_stats {
	__u64 count;
	__u64 sum_ns;
	__u64 hist[PS_LAT_BUCKETS];
};

/*
 * The kernel's own path for one interface (feature kernel), from stable
 * tracepoints (probes/pathscope_kernel.bpf.c). RX queue = recorded queue -
 * rx_queue_base, as at tc ingress; TX queue = the queue the skb was sent on.
 */
struct ps_kern_qstats {	    /* per queue, per CPU */
	__u64 gro_frames;   /* net:napi_gro_receive_entry: frames the driver gave GRO */
	__u64 stack_skbs;   /* net:netif_receive_skb: skbs entering the stack */
	__u64 stack_segs;   /* the packets in them (GRO'd skbs count each segment) */
	__u64 xmit_ok;	    /* net:net_dev_xmit returned NETDEV_TX_OK */
	__u64 xmit_busy;    /* NETDEV_TX_BUSY: the driver's ring was full */
	__u64 xmit_dropped; /* any other code (NET_XMIT_DROP, NET_XMIT_CN ...) */
	__u64 xmit_bytes;   /* bytes of the skbs sent with NETDEV_TX_OK */
};

/* NAPI instances of the interface, by napi id (per CPU). */
#define PS_NAPI_MAX 256
struct ps_napi_stats {
	__u64 polls;
	__u64 work;	 /* packets processed over all polls */
	__u64 exhausted; /* polls that used their whole budget */
	__u64 budget;	 /* the budget of the last poll */
	__u64 idle;	 /* polls that found nothing */
};

/* Which RX queue a NAPI instance serves, learned from the frames it hands to
 * GRO (skb->napi_id and the recorded queue). */
struct ps_napi_queue {
	__u32 queue;
	__u32 pad;
};

/* skb:kfree_skb drops on the interface (skb->dev), by reason (the kernel's
 * enum skb_drop_reason; names come from its BTF), direction and queue. */
enum ps_drop_dir { PS_DROP_RX, PS_DROP_TX };
#define PS_DROPS_MAX 1024
struct ps_drop_key {
	__u32 reason;
	__u32 queue; /* RX queue when recorded, else PS_QUEUE_UNKNOWN */
	__u32 dir;   /* enum ps_drop_dir: RX when the skb arrived on this interface */
	__u32 pad;
};

/* NET_TX and NET_RX softirq time per CPU (irq:softirq_entry/exit; every
 * softirq of the CPU, not only this interface's). Every run is counted; 1 in
 * PS_SIRQ_EVERY of each CPU and vector (the 1st, 9th, ...) is timed, and
 * stands for PS_SIRQ_EVERY runs in time_ns: two clock reads per run were a
 * tenth of `--features all`'s cost under a UDP flood, one run per datagram. */
#define PS_SIRQ_EVERY 8
enum ps_softirq_vec { PS_SIRQ_NET_TX, PS_SIRQ_NET_RX, PS_SIRQ_COUNT };
struct ps_softirq_cpu {
	__u64 entry_ns[PS_SIRQ_COUNT]; /* of the run being timed; 0: none */
	__u64 count[PS_SIRQ_COUNT];    /* runs entered */
	__u64 time_ns[PS_SIRQ_COUNT];  /* estimate: timed runs' time x PS_SIRQ_EVERY */
	__u64 timed[PS_SIRQ_COUNT];    /* runs timed */
};

/*
 * The first hop, from the wire to XDP per RX queue (feature firsthop,
 * firsthop.bpf.h and probes/pathscope_firsthop.bpf.c), from stable
 * tracepoints: irq_handler_entry/exit of the queues' IRQs (the loader maps
 * IRQ numbers to queues), hrtimer_expire_entry/exit, softirq_raise/entry/exit
 * of NET_RX and napi_poll, and the frames at XDP. A poll of a queue is a NAPI poll that handed XDP
 * frames of it; it is counted once, at its first frame, by what started it.
 */
enum ps_fh_start {
	PS_FH_IRQ,	 /* a NET_RX softirq raised in the queue's own IRQ handler */
	PS_FH_KSOFTIRQD, /* a NET_RX softirq run by ksoftirqd (deferred) */
	PS_FH_TIMER,	 /* raised in an hrtimer: NAPI's deferral (gro_flush_timeout) */
	PS_FH_OTHER,	 /* raised elsewhere: another IRQ, a sender (veth) */
	PS_FH_THREAD,	 /* outside a softirq, in a NAPI thread */
	PS_FH_BUSY,	 /* outside a softirq, not a NAPI thread: busy polling */
	PS_FH_STARTS
};
/* Of each CPU's NET_RX softirq runs 1 in N has its wait timed (attach
 * --softirq-sample N, the 1st, N+1st, ... since attach): the raise before it
 * reads the clock and so does its entry; an untimed run reads no clock. Runs
 * and polls are all counted. Frames are placed only in timed runs (their
 * start is known there), 1 in PS_FH_EVERY / N of them per CPU (at least 1):
 * about 1 frame in PS_FH_EVERY, as without sampling. */
#define PS_FH_EVERY	     16 /* about 1 frame in 16 gives its place */
#define PS_FH_SIRQ_DEFAULT   8
#define PS_FH_SIRQ_MAX	     65536
#define PS_FH_PLACE_EVERY(n) ((n) < PS_FH_EVERY ? PS_FH_EVERY / (n) : 1)

struct ps_fh_qstats {
	__u64 irqs;		   /* its IRQ's handler runs */
	__u64 polls[PS_FH_STARTS]; /* polls that handed XDP its frames */
	__u64 waited;		   /* softirq runs of its polls with a timed wait (1 in N) */
	__u64 wait_sum_ns;	   /* NET_RX raised -> softirq entry */
	__u64 wait_hist[PS_LAT_BUCKETS];
	__u64 sampled;	    /* frames placed in their softirq run */
	__u64 place_sum_ns; /* softirq entry -> the frame at XDP */
	__u64 place_hist[PS_LAT_BUCKETS];
	/* Wire -> XDP, the device-bound program only (bpf_xdp_metadata_rx_timestamp,
	 * Linux 6.3), on the frames placed: with the NIC's timestamp, the time
	 * from it to XDP in CLOCK_TAI (meaningful only when the NIC clock is
	 * disciplined to TAI: user space checks); those without, by reason. */
	__u64 hw_stamped;
	__u64 hw_nodata;      /* ENODATA: the driver has them, this frame had none */
	__u64 hw_unsupported; /* another error: the driver has no RX timestamps */
	__u64 hw_ahead;	      /* stamped later than TAI at XDP: not counted below */
	__u64 wire_sum_ns;
	__u64 wire_hist[PS_LAT_BUCKETS];
	__u64 last_run; /* state, not a count: this CPU's softirq run seen last */
	/* NAPI thread polls (PS_FH_THREAD): the first IRQ of the queue since
	 * its last poll -> the thread's poll handing XDP its first frame. */
	__u64 thread_waited; /* thread polls with a timed wait */
	__u64 thread_wait_sum_ns;
	__u64 thread_wait_hist[PS_LAT_BUCKETS];
};

/* Per CPU: where its NET_RX processing stands (state, shared by the probes
 * and XDP). Queues are kept as queue + 1, 0 for none. */
struct ps_fh_cpu {
	__u64 raise_ns;	    /* the pending NET_RX raise, when its run is timed; else 0 */
	__u64 run_ns;	    /* the timed NET_RX run in progress began; else 0 */
	__u64 wait_ns;	    /* that run's wait since its raise (timed: wait_timed) */
	__u64 run;	    /* NET_RX softirq runs begun */
	__u32 irq_queue1;   /* the queue whose IRQ handler runs now */
	__u32 raise_queue1; /* the queue whose IRQ raised the pending NET_RX */
	__u32 run_queue1;   /* the queue whose IRQ raised the run */
	__u32 run_start;    /* enum ps_fh_start of the run */
	__u32 wait_timed;
	__u32 poll_slot1;  /* the slot of the frames XDP saw in the poll going on */
	__u32 in_timer;	   /* an hrtimer's function runs */
	__u32 raise_timer; /* the pending NET_RX was raised in an hrtimer */
	/* This CPU's ksoftirqd (set by the loader): a pid compare at each run's
	 * entry, where reading the task's name cost ~30 ns per run. */
	__u32 ksoftirqd_pid;
	__u32 raised;	  /* a NET_RX raise is pending (its run not begun) */
	__u32 in_run;	  /* a NET_RX softirq run is in progress */
	__u32 place_skip; /* frames of timed runs to let by before the next placed */
	/* The poll going on outside a softirq (a NAPI thread or a busy poll):
	 * the wait since its queue's IRQ, taken at its first frame. */
	__u64 thread_wait_ns;
	__u32 thread_timed;
	__u32 pad;
};
#define PS_FH_IRQS_MAX 1024 /* IRQ numbers mapped to queues */

/* Per RX queue slot, shared by all CPUs (fh_thread, an array): the IRQ that
 * a NAPI thread's poll waits for runs on another CPU than the thread. Each
 * field has one writer, with aligned 64-bit loads and stores, no atomics
 * (5.10 has none to exchange): irq_ns by the queue's IRQ handler (one at a
 * time), only when the last stamp was taken; taken_ns by the queue's polls
 * (one NAPI, one poll at a time). So irq_ns != taken_ns: an IRQ not yet
 * followed by a poll with frames, and it is the first since that poll. */
struct ps_fh_thread {
	__u64 irq_ns;	/* the first IRQ since the last poll took one */
	__u64 taken_ns; /* the irq_ns that the last poll took */
};

/*
 * Flows per RX queue (feature flows, include/pathscope/flows.bpf.h), at XDP.
 * Each frame is sampled with probability 1/N (attach --flow-sample N; a
 * per-CPU geometric skip counter, so an unsampled frame costs a decrement).
 * A sampled frame adds to its flow's entry in an LRU hash of PS_FLOWS_MAX
 * flows over all queues, to its queue's sampled totals, and to its queue's
 * HyperLogLog of distinct flows. User space scales sampled counts by N.
 *
 * The key: TCP and UDP over IPv4 and IPv6: addresses, ports, protocol (a
 * first fragment has its ports, as the parser reads them; later fragments
 * carry none and are keyed as a 3-tuple, ports 0). Other IP protocols:
 * addresses and protocol. VLAN-tagged frames: by their inner IP header.
 * Frames without an IP header that parsed (non-IP, or malformed): one flow
 * per ethertype after the VLAN tags (family 0, addresses and ports 0).
 */
#define PS_FLOWS_MAX	       16384 /* LRU hash entries, over all queues */
#define PS_FLOW_SAMPLE_DEFAULT 32    /* N: chosen from make bench (bench/README.md) */
#define PS_FLOW_SAMPLE_MAX     65536
#define PS_HLL_BITS	       8 /* 2^8 = 256 registers per queue: error 1.04/16 = 6.5% */
#define PS_HLL_REGS	       (1U << PS_HLL_BITS)

struct ps_flow_key {
	__u32 queue;	  /* RX queue slot */
	__u8 family;	  /* 4 or 6; 0: no IP header (non-IP or malformed) */
	__u8 proto;	  /* IP protocol (see flows.bpf.h for IPv6) */
	__be16 ethertype; /* family 0: the ethertype after the VLAN tags */
	__be16 sport;	  /* TCP and UDP; 0 otherwise and in later fragments */
	__be16 dport;
	__u32 pad;
	__u8 saddr[16]; /* IPv4 in the first 4 bytes */
	__u8 daddr[16];
};

/* Per flow, shared by the CPUs (atomic adds), sampled frames only. */
struct ps_flow_count {
	__u64 packets;
	__u64 bytes;
};

/* Per RX queue, per CPU: the sampled frames and the HyperLogLog registers
 * (each the largest rank seen; CPUs merge by max, not by sum). */
struct ps_flows_qstate {
	__u64 packets; /* sampled frames */
	__u64 bytes;
	__u64 flows_new; /* entries this queue added to the flow table: those
			  * not there any more were evicted (the LRU was full) */
	__u8 hll[PS_HLL_REGS];
};

/* Per RX queue, per CPU: the RX hash's type of the sampled frames, where
 * the XDP program is the device-bound variant (pathscope_xdp_rxhash, which
 * calls bpf_xdp_metadata_rx_hash(), Linux 6.3): L4 (the NIC hashed ports
 * too), L3 only (addresses), none (no hash: the driver gave none, or no
 * type). Pinned as flows_rxhash only when that variant is attached. */
struct ps_rx_hash_q {
	__u64 l4;
	__u64 l3;
	__u64 none;
};

/* Per CPU: frames still to skip before the next sample. */
struct ps_flow_tick {
	__u32 left;
	__u32 pad;
};

/* xdp:xdp_exception per action (XDP_ABORTED .. XDP_REDIRECT, then others). */
#define PS_XDP_ACTIONS 6

#endif /* PATHSCOPE_ABI_H */
