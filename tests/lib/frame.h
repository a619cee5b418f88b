/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* A frame builder for the BPF_PROG_TEST_RUN tests: append wire-format headers (Ethernet,
 * VLAN tags, IPv4, IPv6 and its extension headers, TCP, UDP, ICMP) to a buffer, then fix
 * the IP lengths. */
#ifndef PATHSCOPE_TESTS_LIB_FRAME_H
#define PATHSCOPE_TESTS_LIB_FRAME_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/types.h>

#ifndef ETH_LEN
#define ETH_LEN 14
#endif

#define FRAME_MAX 512

enum { ETH_IP = 0x0800, ETH_ARP = 0x0806, ETH_IPV6 = 0x86dd, ETH_OTHER = 0x88b5 };
enum {
	P_HOP = 0,
	P_ICMP = 1,
	P_TCP = 6,
	P_UDP = 17,
	P_ROUTING = 43,
	P_FRAG = 44,
	P_GRE = 47,
	P_ESP = 50,
	P_AH = 51,
	P_ICMPV6 = 58,
	P_NONE = 59,
	P_DST = 60
};

struct frame {
	__u8 b[FRAME_MAX];
	__u32 len;
	__u32 ip_off; /* offset of the IP header, for fix_lengths() */
	int ip_ver;   /* 4 or 6 once an IP header was appended */
};

static inline void wr16(__u8 *p, unsigned int v)
{
	p[0] = (__u8)(v >> 8);
	p[1] = (__u8)v;
}

static inline __u8 *put(struct frame *f, __u32 n)
{
	__u8 *p = f->b + f->len;

	if (f->len + n > FRAME_MAX) {
		fprintf(stderr, "frame too long\n");
		exit(2);
	}
	memset(p, 0, n);
	f->len += n;
	return p;
}

/* Ethernet header, then vlans tags: one is 802.1Q, two or more start with
 * an 802.1ad outer tag followed by 802.1Q tags. */
static inline void put_eth(struct frame *f, int vlans, unsigned int type)
{
	static const __u8 macs[12] = { 0x02, 0, 0, 0, 0, 2, 0x02, 0, 0, 0, 0, 1 };
	__u8 *proto, *tag;
	int i;

	memset(f, 0, sizeof(*f));
	memcpy(put(f, ETH_LEN), macs, sizeof(macs));
	proto = f->b + 12;
	for (i = 0; i < vlans; i++) {
		wr16(proto, i == 0 && vlans >= 2 ? 0x88a8 : 0x8100);
		tag = put(f, 4);
		wr16(tag, 100 + i); /* TCI: VLAN id */
		proto = tag + 2;
	}
	wr16(proto, type);
}

static inline __u8 *put_ipv4(struct frame *f, __u8 proto, __u8 tos)
{
	__u8 *ip = put(f, 20);

	f->ip_off = (__u32)(ip - f->b);
	f->ip_ver = 4;
	ip[0] = 0x45; /* version 4, IHL 5 */
	ip[1] = tos;
	wr16(ip + 4, 0x1234); /* id */
	ip[8] = 64;	      /* ttl */
	ip[9] = proto;
	ip[12] = 10, ip[15] = 1; /* 10.0.0.1 -> 10.0.0.2 */
	ip[16] = 10, ip[19] = 2;
	return ip;
}

/* tclass is the whole traffic class: DSCP << 2 | ECN. */
static inline __u8 *put_ipv6(struct frame *f, __u8 nexthdr, __u8 tclass)
{
	__u8 *ip6 = put(f, 40);

	f->ip_off = (__u32)(ip6 - f->b);
	f->ip_ver = 6;
	ip6[0] = (__u8)(0x60 | tclass >> 4);
	ip6[1] = (__u8)((tclass & 0xf) << 4 | 0xa); /* flow label 0xabcde */
	wr16(ip6 + 2, 0xbcde);
	ip6[6] = nexthdr;
	ip6[7] = 64;
	ip6[8] = 0xfd, ip6[23] = 1; /* fd00::1 -> fd00::2 */
	ip6[24] = 0xfd, ip6[39] = 2;
	return ip6;
}

/* An IPv6 extension header. Hop-by-hop, routing and destination options
 * are 16 bytes (hdrlen 1, in 8-byte units after the first 8); AH is 24 bytes
 * (hdrlen 4, in 4-byte units minus 2), so a parser that mixes the two
 * formulas loses the next header. */
static inline void put_ext(struct frame *f, __u8 type, __u8 nexthdr)
{
	__u8 *h;

	if (type == P_AH) {
		h = put(f, 24);
		h[1] = 4;
		h[7] = 1; /* SPI */
	} else {
		h = put(f, 16);
		h[1] = 1;
		h[2] = 1; /* PadN option covering the rest */
		h[3] = 12;
	}
	h[0] = nexthdr;
}

/* An IPv6 fragment header; offset in 8-byte units, more = M flag. */
static inline void put_frag6(struct frame *f, __u8 nexthdr, unsigned int offset, int more)
{
	__u8 *h = put(f, 8);

	h[0] = nexthdr;
	wr16(h + 2, offset << 3 | (more ? 1 : 0));
	h[7] = 42; /* identification */
}

/* A TCP header with the given data offset field; optlen option bytes (NOP)
 * follow the 20 fixed bytes whatever doff says. */
static inline void put_tcp(struct frame *f, unsigned int doff, __u32 optlen)
{
	__u8 *t = put(f, 20 + optlen);

	wr16(t, 40000);
	wr16(t + 2, 80);
	t[12] = (__u8)(doff << 4);
	t[13] = 0x18; /* PSH ACK */
	wr16(t + 14, 65535);
	memset(t + 20, 1, optlen);
}

static inline void put_udp(struct frame *f)
{
	__u8 *u = put(f, 8);

	wr16(u, 40000);
	wr16(u + 2, 4789);
}

static inline void put_icmp(struct frame *f, __u8 type)
{
	__u8 *i = put(f, 8);

	i[0] = type;
	wr16(i + 4, 7); /* id */
	wr16(i + 6, 1); /* seq */
}

static inline void put_bytes(struct frame *f, __u32 n)
{
	memset(put(f, n), 0xa5, n);
}

/* Set the IPv4 total length or IPv6 payload length from the frame length. */
static inline void fix_lengths(struct frame *f)
{
	if (f->ip_ver == 4)
		wr16(f->b + f->ip_off + 2, f->len - f->ip_off);
	else if (f->ip_ver == 6)
		wr16(f->b + f->ip_off + 4, f->len - f->ip_off - 40);
}

#endif /* PATHSCOPE_TESTS_LIB_FRAME_H */
