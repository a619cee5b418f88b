// SPDX-License-Identifier: GPL-2.0
/* Stack to socket latency, the read half (see abi.h): the application's read of a
 * sample taken at tc ingress (include/pathscope/sock.bpf.h), per RX queue of the
 * packet and per local port. */
#include "pathscope/kernel_types.bpf.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_endian.h>
#include "pathscope/abi.h"
#include "pathscope/kread.bpf.h"
#include "pathscope/sock_armed.bpf.h"

#define PS_AF_INET     2
#define PS_AF_INET6    10
#define PS_IPPROTO_TCP 6
#define PS_IPPROTO_UDP 17
#define PS_MSG_PEEK    2

/* Taken over from the tc object (bpf_map__reuse_fd). */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, PS_SOCK_PENDING_MAX);
	__type(key, struct ps_sock_key);
	__type(value, struct ps_sock_pending);
} sock_pending SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 2); /* nqueues + 1, set by the loader */
	__type(key, __u32);
	__type(value, struct ps_sock_qstats);
} sock_stats SEC(".maps");

/* This object's own. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 2); /* nqueues + 1 */
	__type(key, __u32);
	__type(value, struct ps_sock_qhist);
} sock_hist SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, PS_SOCK_PORTS_MAX + 1);
	__type(key, struct ps_sock_port_key);
	__type(value, struct ps_sock_port_stats);
} sock_ports SEC(".maps");

static struct ps_sock_port_stats ps_port_zero;

/* The local port's entry while there is room, else the shared "other". */
static __always_inline struct ps_sock_port_stats *ps_sock_port(__u8 proto, __be16 port)
{
	struct ps_sock_port_key k = { .proto = proto, .own = 1, .port = port };
	struct ps_sock_port_stats *ps = bpf_map_lookup_elem(&sock_ports, &k);

	if (ps)
		return ps;
	if (bpf_map_update_elem(&sock_ports, &k, &ps_port_zero, BPF_NOEXIST) == 0) {
		ps = bpf_map_lookup_elem(&sock_ports, &k);
		if (ps)
			return ps;
	}
	__builtin_memset(&k, 0, sizeof(k));
	return bpf_map_lookup_elem(&sock_ports, &k); /* created by the loader */
}

/* The read of sample e of key k, which frees its slot. */
static __always_inline void ps_sock_read(const struct ps_sock_key *k, struct ps_sock_sample *e)
{
	__u64 now = bpf_ktime_get_ns(), ts = e->ts_ns, d = now - ts;
	__u32 q = e->queue, proto = k->proto, b;
	struct ps_sock_port_stats *ps;
	struct ps_sock_qstats *s;
	struct ps_sock_qhist *h;

	e->ts_ns = 0;
	if (proto >= PS_SOCK_PROTOS)
		return;
	s = bpf_map_lookup_elem(&sock_stats, &q);
	if (now < ts || d > PS_SOCK_MAX_AGE_NS) {
		if (s)
			s->expired[proto]++;
		return;
	}
	if (s)
		s->matched[proto]++;
	b = ps_hist_bucket(d, PS_LAT_BUCKETS);
	h = bpf_map_lookup_elem(&sock_hist, &q);
	if (h)
		__sync_fetch_and_add(&h->hist[proto][b], 1);
	ps = ps_sock_port(proto, k->lport);
	if (ps) {
		__sync_fetch_and_add(&ps->count, 1);
		__sync_fetch_and_add(&ps->sum_ns, d);
		__sync_fetch_and_add(&ps->hist[b], 1);
	}
}

/* The flow of a TCP socket, as tc ingress keys it (this host is local). An
 * IPv6 socket carrying IPv4 (a v4-mapped peer) is keyed as IPv4. */
static __always_inline int ps_sock_key_of(const struct sock *sk, struct ps_sock_key *k, int btf)
{
	__u16 family = PS_KREAD(btf, sk, __sk_common.skc_family);

	__builtin_memset(k, 0, sizeof(*k));
	k->proto = PS_SOCK_TCP;
	k->lport = bpf_htons(PS_KREAD(btf, sk, __sk_common.skc_num));
	k->rport = PS_KREAD(btf, sk, __sk_common.skc_dport);
	if (family == PS_AF_INET6) {
		struct in6_addr daddr = PS_KREAD(btf, sk, __sk_common.skc_v6_daddr);
		__u32 *w = (__u32 *)&daddr;

		if (!(w[0] == 0 && w[1] == 0 && w[2] == bpf_htonl(0xffff))) {
			struct in6_addr saddr = PS_KREAD(btf, sk, __sk_common.skc_v6_rcv_saddr);

			k->family = 6;
			__builtin_memcpy(k->laddr, &saddr, 16);
			__builtin_memcpy(k->raddr, &daddr, 16);
			return 0;
		}
	} else if (family != PS_AF_INET) {
		return -1;
	}
	k->family = 4;
	*(__be32 *)k->laddr = PS_KREAD(btf, sk, __sk_common.skc_rcv_saddr);
	*(__be32 *)k->raddr = PS_KREAD(btf, sk, __sk_common.skc_daddr);
	return 0;
}

/* The netns of sk is the attachment's. */
static __always_inline int ps_our_netns(const struct sock *sk, int btf)
{
	return ps_our_net(PS_KREAD(btf, sk, __sk_common.skc_net.net), btf);
}

/* skb_copy_datagram_iovec: TCP reads (UDP's are counted at sock_recv_length). */
static __always_inline void ps_sock_copy(const struct sk_buff *skb, int len, int btf)
{
	struct ps_sock_pending *p;
	struct ps_sock_key k;
	struct sock *sk;
	__u32 copied;
	int i;

	if (PS_KREAD(btf, skb, skb_iif) != (int)ps_ifindex)
		return;
	sk = PS_KREAD(btf, skb, sk);
	if (!sk || PS_KREAD(btf, sk, sk_protocol) != PS_IPPROTO_TCP || !ps_our_netns(sk, btf))
		return;
	if (ps_sock_key_of(sk, &k, btf))
		return;
	p = bpf_map_lookup_elem(&sock_pending, &k);
	if (!p)
		return;
	/* This copy is [copied_seq, copied_seq + len): does it reach the
	 * sample's first byte? (A copy past it means a read no tracepoint saw
	 * took it: the sample then expires.) */
	copied = BPF_CORE_READ((struct tcp_sock *)sk, copied_seq);
	if (len <= 0)
		return;
#pragma unroll
	for (i = 0; i < PS_SOCK_INFLIGHT; i++)
		if (p->s[i].ts_ns && p->s[i].seq - copied < (__u32)len)
			ps_sock_read(&k, &p->s[i]);
}

static __always_inline struct ps_sock_pending *ps_udp_pending(const struct sock *sk,
							      struct ps_sock_key *k, int btf)
{
	__builtin_memset(k, 0, sizeof(*k));
	k->proto = PS_SOCK_UDP;
	k->lport = bpf_htons(PS_KREAD(btf, sk, __sk_common.skc_num));
	return bpf_map_lookup_elem(&sock_pending, k);
}

/* sk_data_ready of a UDP socket: if the sample is the datagram just queued
 * (the queue's tail), note how many datagrams wait up to it. */
static __always_inline void ps_sock_queued(const struct sock *sk, int btf)
{
	struct ps_sock_pending *p;
	struct ps_sock_key k;
	struct sk_buff *tail;
	int i;

	tail = PS_KREAD(btf, sk, sk_receive_queue.prev);
	if (!ps_sock_armed(tail) || !ps_our_netns(sk, btf))
		return;
	p = ps_udp_pending(sk, &k, btf);
	if (!p)
		return;
#pragma unroll
	for (i = 0; i < PS_SOCK_INFLIGHT; i++) {
		if (!p->s[i].ts_ns || p->s[i].sk || p->s[i].skb != (__u64)tail)
			continue;
		p->s[i].remaining = PS_KREAD(btf, sk, sk_receive_queue.qlen) +
				    BPF_CORE_READ((struct udp_sock *)sk, reader_queue.qlen);
		p->s[i].sk = (__u64)sk;
		ps_sock_arm(tail, -1); /* now waiting on its socket */
		ps_sock_arm(sk, 1);
	}
}

/* sock_recv_length of a UDP socket: one datagram read (not peeked). */
static __always_inline void ps_sock_udp_read(const struct sock *sk, int ret, int flags, int btf)
{
	struct ps_sock_pending *p;
	struct ps_sock_key k;
	int i;

	if (ret < 0 || (flags & PS_MSG_PEEK) || !ps_sock_armed(sk) || !ps_our_netns(sk, btf))
		return;
	p = ps_udp_pending(sk, &k, btf);
	if (!p)
		return;
		/* Not atomic: two threads reading one UDP socket at the same instant
		 * may miss a decrement, and the sample then expires. */
#pragma unroll
	for (i = 0; i < PS_SOCK_INFLIGHT; i++)
		if (p->s[i].ts_ns && p->s[i].sk == (__u64)sk && p->s[i].remaining &&
		    --p->s[i].remaining == 0) {
			ps_sock_read(&k, &p->s[i]);
			ps_sock_arm(sk, -1);
		}
}

/* The read of a sample:
 *   TCP  skb:skb_copy_datagram_iovec: the copy from the socket's copied_seq
 *        reaches the sample's first byte
 *   UDP  sock:sk_data_ready finds the sample at the tail of its socket's
 *        queue; sock:sock_recv_length counts the reads down to it
 * The tracepoints fire for every read and socket wakeup of the host: the
 * first tests are the protocol, then the skb's arrival interface (TCP) or
 * whether a sample can wait on the skb or socket at all (UDP, sock_armed:
 * one array load), then the socket's network namespace. tp_btf and classic
 * tracepoint programs do the same; the loader loads one set. */
SEC("tp_btf/skb_copy_datagram_iovec")
int BPF_PROG(pathscope_sock_copy, const struct sk_buff *skb, int len)
{
	ps_sock_copy(skb, len, 1);
	return 0;
}

SEC("tp_btf/sk_data_ready")
int BPF_PROG(pathscope_sock_queued, const struct sock *sk)
{
	if (sk->sk_protocol == PS_IPPROTO_UDP)
		ps_sock_queued(sk, 1);
	return 0;
}

SEC("tp_btf/sock_recv_length")
int BPF_PROG(pathscope_sock_recv, struct sock *sk, int ret, int flags)
{
	if (sk->sk_protocol == PS_IPPROTO_UDP)
		ps_sock_udp_read(sk, ret, flags, 1);
	return 0;
}

SEC("tracepoint/skb/skb_copy_datagram_iovec")
int pathscope_sock_tp_copy(struct trace_event_raw_skb_copy_datagram_iovec *ctx)
{
	ps_sock_copy(ctx->skbaddr, ctx->len, 0);
	return 0;
}

SEC("tracepoint/sock/sk_data_ready")
int pathscope_sock_tp_queued(struct trace_event_raw_sk_data_ready *ctx)
{
	if (ctx->protocol == PS_IPPROTO_UDP)
		ps_sock_queued(ctx->skaddr, 0);
	return 0;
}

SEC("tracepoint/sock/sock_recv_length")
int pathscope_sock_tp_recv(struct trace_event_raw_sock_msg_length *ctx)
{
	if (ctx->protocol == PS_IPPROTO_UDP)
		ps_sock_udp_read(ctx->sk, ctx->ret, ctx->flags, 0);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
