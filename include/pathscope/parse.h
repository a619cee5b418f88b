/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Packet header parsing, the one copy used by the XDP and the tc programs: it reads
 * [data, data_end) and never writes. Every packet gets exactly one L3 class, every
 * IP packet exactly one L4 class, every malformed packet exactly one reason (abi.h). */
#ifndef PATHSCOPE_PARSE_H
#define PATHSCOPE_PARSE_H

#include "abi.h"

#define PS_ETH_P_IP	0x0800
#define PS_ETH_P_ARP	0x0806
#define PS_ETH_P_IPV6	0x86DD
#define PS_ETH_P_8021Q	0x8100
#define PS_ETH_P_8021AD 0x88A8

#define PS_IPPROTO_HOPOPTS  0
#define PS_IPPROTO_ICMP	    1
#define PS_IPPROTO_TCP	    6
#define PS_IPPROTO_UDP	    17
#define PS_IPPROTO_ROUTING  43
#define PS_IPPROTO_FRAGMENT 44
#define PS_IPPROTO_AH	    51
#define PS_IPPROTO_ICMPV6   58
#define PS_IPPROTO_DSTOPTS  60

/* Header structs are declared here rather than taken from vmlinux.h so the
 * layout is plainly the wire layout and the file has no kernel dependency. */
struct ps_ethhdr {
	__u8 dst[6];
	__u8 src[6];
	__be16 proto;
};

struct ps_vlanhdr {
	__be16 tci;
	__be16 proto;
};

struct ps_ipv4hdr {
	__u8 ver_ihl;
	__u8 tos;
	__be16 tot_len;
	__be16 id;
	__be16 frag_off;
	__u8 ttl;
	__u8 protocol;
	__be16 check;
	__be32 saddr;
	__be32 daddr;
};

struct ps_ipv6hdr {
	__u8 ver_tc;  /* version:4, traffic class high nibble:4 */
	__u8 tc_flow; /* traffic class low nibble:4 (ECN in bits 5..4), flow:4 */
	__be16 flow_lbl;
	__be16 payload_len;
	__u8 nexthdr;
	__u8 hop_limit;
	__u8 saddr[16];
	__u8 daddr[16];
};

struct ps_ipv6_opthdr { /* hop-by-hop, routing, destination options, AH */
	__u8 nexthdr;
	__u8 hdrlen;
	__u8 data[6];
};

struct ps_ipv6_fraghdr {
	__u8 nexthdr;
	__u8 reserved;
	__be16 frag_off; /* offset:13, res:2, M:1 */
	__be32 id;
};

struct ps_tcphdr {
	__be16 source;
	__be16 dest;
	__be32 seq;
	__be32 ack_seq;
	__u8 doff_res; /* data offset:4 */
	__u8 flags;
	__be16 window;
	__be16 check;
	__be16 urg_ptr;
};

struct ps_udphdr {
	__be16 source;
	__be16 dest;
	__be16 len;
	__be16 check;
};

struct ps_icmphdr { /* ICMP and ICMPv6 share the echo layout */
	__u8 type;
	__u8 code;
	__be16 check;
	__be16 id;
	__be16 seq;
};

/* TCP flags (the byte after the data offset). */
#define PS_TCP_FIN 0x01
#define PS_TCP_SYN 0x02
#define PS_TCP_RST 0x04
#define PS_TCP_ACK 0x10

/* TCP options: end of list, no-operation, timestamps (RFC 7323). */
#define PS_TCPOPT_EOL	 0
#define PS_TCPOPT_NOP	 1
#define PS_TCPOPT_TS	 8
#define PS_TCPOLEN_TS	 10
#define PS_TCP_OPT_STEPS 40 /* 40 option bytes: at most 40 options */

/* Header offsets stay below 16 KiB (6 IPv6 extension headers of at most
 * 2 KiB each); masking an offset with this lets the verifier see it. */
#define PS_MAX_HDR_OFF 0x3fff

/* What the parser found. l4 is PS_L4_COUNT for non-IP packets, err is
 * PS_ERR_COUNT when the packet parsed. */
struct ps_pkt {
	__u8 l3;
	__u8 l4;
	__u8 err;
	__u8 ipver;   /* enum ps_ipver, valid when l3 is IPv4 or IPv6 */
	__u8 ecn;     /* enum ps_ecn, valid when l3 is IPv4 or IPv6 */
	__u8 vlans;   /* VLAN tags found in the data */
	__u16 l3_off; /* offset of the IP header, valid when l3 is IPv4 or IPv6 */
	__u16 l4_off; /* offset of the L4 header, valid when l4 is TCP..ICMPV6 */
};

static __always_inline void ps_l3_error(struct ps_pkt *p, __u8 err)
{
	p->l3 = PS_L3_MALFORMED;
	p->err = err;
}

static __always_inline void ps_l4_error(struct ps_pkt *p, __u8 err)
{
	p->l4 = PS_L4_MALFORMED;
	p->err = err;
}

/* Classify the L4 header at cur, for IP protocol proto. */
static __always_inline void ps_parse_l4(void *data, void *cur, void *data_end, __u8 proto,
					struct ps_pkt *p)
{
	__u32 need;

	switch (proto) {
	case PS_IPPROTO_TCP:
		p->l4 = PS_L4_TCP;
		need = sizeof(struct ps_tcphdr);
		if (cur + sizeof(struct ps_tcphdr) <= data_end) {
			need = (((struct ps_tcphdr *)cur)->doff_res >> 4) * 4;
			if (need < sizeof(struct ps_tcphdr))
				need = 0xffff; /* doff < 5: never fits */
		}
		break;
	case PS_IPPROTO_UDP:
		p->l4 = PS_L4_UDP;
		need = sizeof(struct ps_udphdr);
		break;
	case PS_IPPROTO_ICMP:
		p->l4 = PS_L4_ICMP;
		need = sizeof(struct ps_icmphdr);
		break;
	case PS_IPPROTO_ICMPV6:
		p->l4 = PS_L4_ICMPV6;
		need = sizeof(struct ps_icmphdr);
		break;
	default:
		p->l4 = PS_L4_OTHER;
		return;
	}
	if (cur + need > data_end) {
		ps_l4_error(p, PS_ERR_L4_TRUNC);
		return;
	}
	p->l4_off = (__u16)(cur - data);
}

static __always_inline void ps_parse_ipv4(void *data, void *cur, void *data_end, struct ps_pkt *p)
{
	struct ps_ipv4hdr *ip = cur;
	__u32 hlen;

	if ((void *)(ip + 1) > data_end) {
		ps_l3_error(p, PS_ERR_L3_TRUNC);
		return;
	}
	if ((ip->ver_ihl >> 4) != 4) {
		ps_l3_error(p, PS_ERR_BAD_VERSION);
		return;
	}
	hlen = (ip->ver_ihl & 0xf) * 4;
	if (hlen < sizeof(*ip)) {
		ps_l3_error(p, PS_ERR_BAD_IHL);
		return;
	}
	if (cur + hlen > data_end) {
		ps_l3_error(p, PS_ERR_L3_TRUNC);
		return;
	}
	if (bpf_ntohs(ip->tot_len) < hlen) {
		ps_l3_error(p, PS_ERR_BAD_LEN);
		return;
	}

	p->l3 = PS_L3_IPV4;
	p->l3_off = (__u16)(cur - data);
	p->ipver = PS_IPV4;
	p->ecn = ip->tos & 3;
	if (ip->frag_off & bpf_htons(0x1fff)) {
		p->l4 = PS_L4_FRAGMENT;
		return;
	}
	ps_parse_l4(data, cur + hlen, data_end, ip->protocol, p);
}

static __always_inline int ps_ipv6_is_ext(__u8 nexthdr)
{
	return nexthdr == PS_IPPROTO_HOPOPTS || nexthdr == PS_IPPROTO_ROUTING ||
	       nexthdr == PS_IPPROTO_DSTOPTS || nexthdr == PS_IPPROTO_AH ||
	       nexthdr == PS_IPPROTO_FRAGMENT;
}

static __always_inline void ps_parse_ipv6(void *data, void *cur, void *data_end, struct ps_pkt *p)
{
	struct ps_ipv6hdr *ip6 = cur;
	__u8 nexthdr;
	int i;

	if ((void *)(ip6 + 1) > data_end) {
		ps_l3_error(p, PS_ERR_L3_TRUNC);
		return;
	}
	if ((ip6->ver_tc >> 4) != 6) {
		ps_l3_error(p, PS_ERR_BAD_VERSION);
		return;
	}

	p->l3 = PS_L3_IPV6;
	p->l3_off = (__u16)(cur - data);
	p->ipver = PS_IPV6;
	p->ecn = (ip6->tc_flow >> 4) & 3;
	nexthdr = ip6->nexthdr;
	cur = ip6 + 1;

#pragma unroll
	for (i = 0; i < PS_MAX_EXT_HDRS; i++) {
		if (!ps_ipv6_is_ext(nexthdr))
			break;
		if (nexthdr == PS_IPPROTO_FRAGMENT) {
			struct ps_ipv6_fraghdr *fh = cur;

			if ((void *)(fh + 1) > data_end) {
				ps_l4_error(p, PS_ERR_EXT_TRUNC);
				return;
			}
			if (fh->frag_off & bpf_htons(0xfff8)) {
				p->l4 = PS_L4_FRAGMENT;
				return;
			}
			nexthdr = fh->nexthdr;
			cur = fh + 1;
		} else {
			struct ps_ipv6_opthdr *oh = cur;
			__u32 len;

			if (cur + 2 > data_end) {
				ps_l4_error(p, PS_ERR_EXT_TRUNC);
				return;
			}
			len =
			    nexthdr == PS_IPPROTO_AH ? (oh->hdrlen + 2) * 4 : (oh->hdrlen + 1) * 8;
			if (cur + len > data_end) {
				ps_l4_error(p, PS_ERR_EXT_TRUNC);
				return;
			}
			nexthdr = oh->nexthdr;
			cur += len;
		}
	}
	if (ps_ipv6_is_ext(nexthdr)) {
		ps_l4_error(p, PS_ERR_EXT_DEPTH);
		return;
	}
	ps_parse_l4(data, cur, data_end, nexthdr, p);
}

/* What the TCP option list holds of the timestamp option. */
enum ps_tcp_ts_result { PS_TS_NONE, PS_TS_FOUND, PS_TS_BAD };

/* The timestamp option of a TCP header parsed into p (l4 TCP): TSval and
 * TSecr in host order. Never reads past the header's data offset nor past
 * data_end; a truncated or malformed option list is PS_TS_BAD. */
static __always_inline int ps_parse_tcp_ts(void *data, void *data_end, const struct ps_pkt *p,
					   __u32 *tsval, __u32 *tsecr)
{
	__u32 off = p->l4_off & PS_MAX_HDR_OFF, end, i;
	struct ps_tcphdr *th = data + off;
	__u8 *o, kind, len;

	if ((void *)(th + 1) > data_end)
		return PS_TS_NONE;
	end = off + (th->doff_res >> 4) * 4;
	off += sizeof(*th);
	/* Linux and most stacks put NOP, NOP, TS first: one compare. */
	o = data + off;
	if (off + 12 <= end && (void *)(o + 12) <= data_end &&
	    *(__be32 *)o == bpf_htonl(0x0101080a)) {
		*tsval = bpf_ntohl(*(__be32 *)(o + 4));
		*tsecr = bpf_ntohl(*(__be32 *)(o + 8));
		return PS_TS_FOUND;
	}
	for (i = 0; i < PS_TCP_OPT_STEPS; i++) {
		off &= PS_MAX_HDR_OFF;
		o = data + off;
		if (off >= end || (void *)(o + 1) > data_end)
			return PS_TS_NONE;
		kind = o[0];
		if (kind == PS_TCPOPT_EOL)
			return PS_TS_NONE;
		if (kind == PS_TCPOPT_NOP) {
			off++;
			continue;
		}
		if (off + 2 > end || (void *)(o + 2) > data_end)
			return PS_TS_BAD;
		len = o[1];
		if (len < 2 || off + len > end)
			return PS_TS_BAD;
		if (kind == PS_TCPOPT_TS) {
			if (len != PS_TCPOLEN_TS || (void *)(o + PS_TCPOLEN_TS) > data_end)
				return PS_TS_BAD;
			*tsval = bpf_ntohl(*(__be32 *)(o + 2));
			*tsecr = bpf_ntohl(*(__be32 *)(o + 6));
			return PS_TS_FOUND;
		}
		off += len;
	}
	return PS_TS_NONE;
}

/* Parse an Ethernet frame: up to PS_MAX_VLAN tags, then IPv4/IPv6/ARP. */
static __always_inline void ps_parse(void *data, void *data_end, struct ps_pkt *p)
{
	struct ps_ethhdr *eth = data;
	__be16 proto;
	void *cur;
	int i;

	p->l3 = PS_L3_OTHER;
	p->l4 = PS_L4_COUNT;
	p->err = PS_ERR_COUNT;
	p->ipver = 0;
	p->ecn = 0;
	p->vlans = 0;
	p->l3_off = 0;
	p->l4_off = 0;

	if ((void *)(eth + 1) > data_end) {
		ps_l3_error(p, PS_ERR_L2_TRUNC);
		return;
	}
	proto = eth->proto;
	cur = eth + 1;

	/* The common frames first, in fewer tests: untagged IPv4 without options
	 * (not a fragment, total length sane) and IPv6 without extension headers.
	 * They get the same classification the general path below gives them. */
	if (proto == bpf_htons(PS_ETH_P_IP)) {
		struct ps_ipv4hdr *ip = cur;

		if ((void *)(ip + 1) <= data_end && ip->ver_ihl == 0x45 &&
		    bpf_ntohs(ip->tot_len) >= sizeof(*ip) && !(ip->frag_off & bpf_htons(0x1fff))) {
			p->l3 = PS_L3_IPV4;
			p->l3_off = sizeof(*eth);
			p->ecn = ip->tos & 3;
			ps_parse_l4(data, ip + 1, data_end, ip->protocol, p);
			return;
		}
	} else if (proto == bpf_htons(PS_ETH_P_IPV6)) {
		struct ps_ipv6hdr *ip6 = cur;

		if ((void *)(ip6 + 1) <= data_end && (ip6->ver_tc >> 4) == 6 &&
		    !ps_ipv6_is_ext(ip6->nexthdr)) {
			p->l3 = PS_L3_IPV6;
			p->l3_off = sizeof(*eth);
			p->ipver = PS_IPV6;
			p->ecn = (ip6->tc_flow >> 4) & 3;
			ps_parse_l4(data, ip6 + 1, data_end, ip6->nexthdr, p);
			return;
		}
	}

#pragma unroll
	for (i = 0; i < PS_MAX_VLAN; i++) {
		struct ps_vlanhdr *vh = cur;

		if (proto != bpf_htons(PS_ETH_P_8021Q) && proto != bpf_htons(PS_ETH_P_8021AD))
			break;
		if ((void *)(vh + 1) > data_end) {
			ps_l3_error(p, PS_ERR_L2_TRUNC);
			return;
		}
		proto = vh->proto;
		cur = vh + 1;
		p->vlans++;
	}
	if (proto == bpf_htons(PS_ETH_P_8021Q) || proto == bpf_htons(PS_ETH_P_8021AD)) {
		ps_l3_error(p, PS_ERR_VLAN_DEPTH);
		return;
	}

	if (proto == bpf_htons(PS_ETH_P_IP))
		ps_parse_ipv4(data, cur, data_end, p);
	else if (proto == bpf_htons(PS_ETH_P_IPV6))
		ps_parse_ipv6(data, cur, data_end, p);
	else if (proto == bpf_htons(PS_ETH_P_ARP))
		p->l3 = PS_L3_ARP;
}

/* The flow of a TCP/UDP packet parsed into p; f->family = 0 otherwise. */
static __always_inline void ps_flow_read(void *data, void *data_end, const struct ps_pkt *p,
					 __u64 len, struct ps_flow *f)
{
	void *l3 = data + (p->l3_off & PS_MAX_HDR_OFF);
	void *l4 = data + (p->l4_off & PS_MAX_HDR_OFF);

	__builtin_memset(f, 0, sizeof(*f));
	if (p->l4 != PS_L4_TCP && p->l4 != PS_L4_UDP)
		return;
	if (p->l3 == PS_L3_IPV4) {
		struct ps_ipv4hdr *ip = l3;

		if ((void *)(ip + 1) > data_end)
			return;
		__builtin_memcpy(f->saddr, &ip->saddr, 4);
		__builtin_memcpy(f->daddr, &ip->daddr, 4);
		f->seq = (__u32)bpf_ntohs(ip->id) << 16;
		f->family = 4;
	} else {
		struct ps_ipv6hdr *ip6 = l3;

		if ((void *)(ip6 + 1) > data_end)
			return;
		__builtin_memcpy(f->saddr, ip6->saddr, 16);
		__builtin_memcpy(f->daddr, ip6->daddr, 16);
		f->seq = 0;
		f->family = 6;
	}
	if (p->l4 == PS_L4_TCP) {
		struct ps_tcphdr *th = l4;
		__u32 hdr;

		if ((void *)(th + 1) > data_end) {
			f->family = 0;
			return;
		}
		f->proto = PS_IPPROTO_TCP;
		f->sport = th->source;
		f->dport = th->dest;
		f->seq = bpf_ntohl(th->seq);
		hdr = (p->l4_off & PS_MAX_HDR_OFF) + (th->doff_res >> 4) * 4;
		f->paylen = len > hdr ? (__u32)(len - hdr) : 0;
	} else {
		struct ps_udphdr *uh = l4;

		if ((void *)(uh + 1) > data_end) {
			f->family = 0;
			return;
		}
		f->proto = PS_IPPROTO_UDP;
		f->sport = uh->source;
		f->dport = uh->dest;
		f->seq |= bpf_ntohs(uh->check);
		f->paylen = 0;
	}
}

#endif /* PATHSCOPE_PARSE_H */
