/* SPDX-License-Identifier: GPL-2.0 */
/* The datapath tests' frames of every class (tests/lib/frame.h's builders): each takes
 * its VLAN tag count and the ECN byte of its IP header. */
#ifndef PATHSCOPE_TESTS_LIB_DATAPATH_FRAMES_H
#define PATHSCOPE_TESTS_LIB_DATAPATH_FRAMES_H

#include "tests/lib/datapath.h"

typedef void (*build_fn)(struct frame *f, int vlans, __u8 ecn);

static inline void b_v4_tcp(struct frame *f, int vlans, __u8 ecn)
{
	put_eth(f, vlans, ETH_IP);
	put_ipv4(f, P_TCP, ecn);
	put_tcp(f, 5, 0);
	put_bytes(f, 10);
	fix_lengths(f);
}

static inline void b_v4_udp(struct frame *f, int vlans, __u8 ecn)
{
	put_eth(f, vlans, ETH_IP);
	put_ipv4(f, P_UDP, ecn);
	put_udp(f);
	put_bytes(f, 18);
	fix_lengths(f);
}

static inline void b_v4_icmp(struct frame *f, int vlans, __u8 ecn)
{
	put_eth(f, vlans, ETH_IP);
	put_ipv4(f, P_ICMP, ecn);
	put_icmp(f, 8);
	put_bytes(f, 18);
	fix_lengths(f);
}

static inline void b_v4_gre(struct frame *f, int vlans, __u8 ecn)
{
	put_eth(f, vlans, ETH_IP);
	put_ipv4(f, P_GRE, ecn);
	put_bytes(f, 26);
	fix_lengths(f);
}

static inline void b_v4_ah(struct frame *f, int vlans, __u8 ecn)
{
	put_eth(f, vlans, ETH_IP);
	put_ipv4(f, P_AH, ecn);
	put_bytes(f, 26);
	fix_lengths(f);
}

/* Non-first fragment (offset 1480 bytes, MF set): no L4 header. */
static inline void b_v4_frag(struct frame *f, int vlans, __u8 ecn)
{
	__u8 *ip;

	put_eth(f, vlans, ETH_IP);
	ip = put_ipv4(f, P_UDP, ecn);
	wr16(ip + 6, 0x2000 | 185);
	put_bytes(f, 26);
	fix_lengths(f);
}

/* First fragment (offset 0, MF) with DF also set: a normal TCP header. */
static inline void b_v4_first_frag(struct frame *f, int vlans, __u8 ecn)
{
	__u8 *ip;

	put_eth(f, vlans, ETH_IP);
	ip = put_ipv4(f, P_TCP, ecn);
	wr16(ip + 6, 0x4000 | 0x2000);
	put_tcp(f, 5, 0);
	put_bytes(f, 6);
	fix_lengths(f);
}

/* IHL 7: 8 bytes of options (NOPs) before the UDP header. */
static inline void b_v4_options(struct frame *f, int vlans, __u8 ecn)
{
	__u8 *ip;

	put_eth(f, vlans, ETH_IP);
	ip = put_ipv4(f, P_UDP, ecn);
	ip[0] = 0x47;
	memset(put(f, 8), 1, 8);
	put_udp(f);
	put_bytes(f, 10);
	fix_lengths(f);
}

static inline void b_v6_tcp(struct frame *f, int vlans, __u8 ecn)
{
	put_eth(f, vlans, ETH_IPV6);
	put_ipv6(f, P_TCP, ecn);
	put_tcp(f, 5, 0);
	fix_lengths(f);
}

static inline void b_v6_udp(struct frame *f, int vlans, __u8 ecn)
{
	put_eth(f, vlans, ETH_IPV6);
	put_ipv6(f, P_UDP, ecn);
	put_udp(f);
	put_bytes(f, 4);
	fix_lengths(f);
}

static inline void b_v6_icmp(struct frame *f, int vlans, __u8 ecn)
{
	put_eth(f, vlans, ETH_IPV6);
	put_ipv6(f, P_ICMPV6, ecn);
	put_icmp(f, 128);
	fix_lengths(f);
}

/* Hop-by-hop, destination options, routing, fragment (first), UDP. */
static inline void b_v6_ext_chain(struct frame *f, int vlans, __u8 ecn)
{
	put_eth(f, vlans, ETH_IPV6);
	put_ipv6(f, P_HOP, ecn);
	put_ext(f, P_HOP, P_DST);
	put_ext(f, P_DST, P_ROUTING);
	put_ext(f, P_ROUTING, P_FRAG);
	put_frag6(f, P_UDP, 0, 1);
	put_udp(f);
	fix_lengths(f);
}

/* Hop-by-hop, then a non-first fragment. */
static inline void b_v6_frag(struct frame *f, int vlans, __u8 ecn)
{
	put_eth(f, vlans, ETH_IPV6);
	put_ipv6(f, P_HOP, ecn);
	put_ext(f, P_HOP, P_FRAG);
	put_frag6(f, P_UDP, 185, 0);
	put_bytes(f, 16);
	fix_lengths(f);
}

static inline void b_v6_ah(struct frame *f, int vlans, __u8 ecn)
{
	put_eth(f, vlans, ETH_IPV6);
	put_ipv6(f, P_AH, ecn);
	put_ext(f, P_AH, P_TCP);
	put_tcp(f, 5, 0);
	fix_lengths(f);
}

/* n extension headers (alternating destination options and AH), then UDP. */
static inline void b_v6_exts(struct frame *f, int vlans, __u8 ecn, int n)
{
	int i;

	put_eth(f, vlans, ETH_IPV6);
	put_ipv6(f, P_DST, ecn);
	for (i = 0; i < n; i++) {
		__u8 type = i % 2 ? P_AH : P_DST;
		__u8 next = i == n - 1 ? P_UDP : (i % 2 ? P_DST : P_AH);

		put_ext(f, type, next);
	}
	put_udp(f);
	fix_lengths(f);
}

static inline void b_v6_6ext(struct frame *f, int vlans, __u8 ecn)
{
	b_v6_exts(f, vlans, ecn, PS_MAX_EXT_HDRS);
}

static inline void b_v6_7ext(struct frame *f, int vlans, __u8 ecn)
{
	b_v6_exts(f, vlans, ecn, PS_MAX_EXT_HDRS + 1);
}

static inline void b_v6_nonext(struct frame *f, int vlans, __u8 ecn)
{
	put_eth(f, vlans, ETH_IPV6);
	put_ipv6(f, P_NONE, ecn);
	put_bytes(f, 8);
	fix_lengths(f);
}

static inline void b_v6_esp(struct frame *f, int vlans, __u8 ecn)
{
	put_eth(f, vlans, ETH_IPV6);
	put_ipv6(f, P_ESP, ecn);
	put_bytes(f, 24);
	fix_lengths(f);
}

static inline void b_arp(struct frame *f, int vlans, __u8 ecn)
{
	(void)ecn;
	put_eth(f, vlans, ETH_ARP);
	put_bytes(f, 28);
}

static inline void b_other(struct frame *f, int vlans, __u8 ecn)
{
	(void)ecn;
	put_eth(f, vlans, ETH_OTHER);
	put_bytes(f, 46);
}

#endif /* PATHSCOPE_TESTS_LIB_DATAPATH_FRAMES_H */
