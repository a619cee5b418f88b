// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* lib/toeplitz.c against the RSS verification suite: Microsoft's standard 40-byte key
 * and its five IPv4 and three IPv6 flows, each hashed on the addresses alone and with
 * both ports. */
#include <arpa/inet.h>
#include <linux/ethtool.h>
#include <string.h>

#include "tests/lib/check.h"
#include "lib/toeplitz.h"

static const __u8 ms_key[40] = {
	0x6d, 0x5a, 0x56, 0xda, 0x25, 0x5b, 0x0e, 0xc2, 0x41, 0x67, 0x25, 0x3d, 0x43, 0xa3,
	0x8f, 0xb0, 0xd0, 0xca, 0x2b, 0xcb, 0xae, 0x7b, 0x30, 0xb4, 0x77, 0xcb, 0x2d, 0xa3,
	0x80, 0x30, 0xf2, 0x0c, 0x6a, 0x42, 0xb7, 0x3b, 0xbe, 0xac, 0x01, 0xfa,
};

struct vector {
	const char *src, *dst;
	__u16 sport, dport;
	__u32 l3, l4; /* hash of the addresses; of the addresses and ports */
};

static const struct vector v4[] = {
	{ "66.9.149.187", "161.142.100.80", 2794, 1766, 0x323e8fc2, 0x51ccc178 },
	{ "199.92.111.2", "65.69.140.83", 14230, 4739, 0xd718262a, 0xc626b0ea },
	{ "24.19.198.95", "12.22.207.184", 12898, 38024, 0xd2d0a5de, 0x5c2b394a },
	{ "38.27.205.30", "209.142.163.6", 48228, 2217, 0x82989176, 0xafc7327f },
	{ "153.39.163.191", "202.188.127.2", 44251, 1303, 0x5d1809c5, 0x10e828a2 },
};

static const struct vector v6[] = {
	{ "3ffe:2501:200:1fff::7", "3ffe:2501:200:3::1", 2794, 1766, 0x2cc18cd5, 0x40207d3d },
	{ "3ffe:501:8::260:97ff:fe40:efab", "ff02::1", 14230, 4739, 0x0f0c461c, 0xdde51bbf },
	{ "3ffe:1900:4545:3:200:f8ff:fe21:67cf", "fe80::200:f8ff:fe21:67cf", 44251, 38024,
	  0x4b61e985, 0x02d1feef },
};

#define L3 (RXH_IP_SRC | RXH_IP_DST)
#define L4 (L3 | RXH_L4_B_0_1 | RXH_L4_B_2_3)

static void tuple_of(int family, const struct vector *v, struct ps_tuple *t)
{
	memset(t, 0, sizeof(*t));
	t->family = (__u8)family;
	t->proto = 6;
	inet_pton(family == 4 ? AF_INET : AF_INET6, v->src, t->src);
	inet_pton(family == 4 ? AF_INET : AF_INET6, v->dst, t->dst);
	t->sport = v->sport;
	t->dport = v->dport;
}

static void check_vectors(int family, const struct vector *vs, size_t n)
{
	struct ps_tuple t;
	char name[160];
	size_t i;

	for (i = 0; i < n; i++) {
		tuple_of(family, &vs[i], &t);
		snprintf(name, sizeof(name), "IPv%d %s -> %s: addresses", family, vs[i].src,
			 vs[i].dst);
		CHECK_EQ_U64(name, ps_rss_hash(ms_key, sizeof(ms_key), &t, L3), vs[i].l3);
		snprintf(name, sizeof(name), "IPv%d %s:%u -> %s:%u: addresses and ports", family,
			 vs[i].src, vs[i].sport, vs[i].dst, vs[i].dport);
		CHECK_EQ_U64(name, ps_rss_hash(ms_key, sizeof(ms_key), &t, L4), vs[i].l4);
	}
}

/* ps_toeplitz on the bytes themselves: the first IPv4 vector as the RSS
 * input (source, destination, ports, big-endian). */
static void test_raw(void)
{
	static const __u8 in[12] = { 66, 9, 149, 187, 161, 142, 100, 80, 0x0a, 0xea, 0x06, 0xe6 };
	static const __u8 one[1] = { 0x80 }, zero[4] = { 0 };

	CHECK_EQ_U64("raw: 12 bytes", ps_toeplitz(ms_key, sizeof(ms_key), in, sizeof(in)),
		     0x51ccc178);
	CHECK_EQ_U64("raw: 8 bytes", ps_toeplitz(ms_key, sizeof(ms_key), in, 8), 0x323e8fc2);
	/* the first input bit takes the key's first 32 bits */
	CHECK_EQ_U64("raw: bit 0 is the key's first word", ps_toeplitz(ms_key, 40, one, 1),
		     0x6d5a56da);
	CHECK_EQ_U64("raw: zeros hash to 0", ps_toeplitz(ms_key, 40, zero, 4), 0);
	CHECK_EQ_U64("raw: empty input", ps_toeplitz(ms_key, 40, in, 0), 0);
	/* key bits past the key's end count as 0: a 4-byte key hashes bit 1 to
	 * its last 31 bits, shifted */
	CHECK_EQ_U64("raw: short key, zeros past its end",
		     ps_toeplitz(ms_key, 4, (const __u8[]){ 0x40 }, 1), 0xdab4adb4);
}

/* Which fields: none hashes to 0; the order is source before destination. */
static void test_fields(void)
{
	struct ps_tuple t, swapped;

	tuple_of(4, &v4[0], &t);
	CHECK_EQ_U64("fields: none", ps_rss_hash(ms_key, 40, &t, 0), 0);
	CHECK_EQ_U64("fields: RXH_L3_PROTO and RXH_VLAN are not hashed",
		     ps_rss_hash(ms_key, 40, &t, L4 | RXH_L3_PROTO | RXH_VLAN), 0x51ccc178);
	swapped = t;
	memcpy(swapped.src, t.dst, 4);
	memcpy(swapped.dst, t.src, 4);
	CHECK_TRUE("fields: source and destination are not interchangeable",
		   ps_rss_hash(ms_key, 40, &swapped, L3) != 0x323e8fc2);
	/* the ports alone: the same bytes as the last 4 of the L4 input */
	CHECK_EQ_U64("fields: ports alone",
		     ps_rss_hash(ms_key, 40, &t, RXH_L4_B_0_1 | RXH_L4_B_2_3),
		     ps_toeplitz(ms_key, 40, (const __u8[]){ 0x0a, 0xea, 0x06, 0xe6 }, 4));
}

/* The vectors are public: Microsoft's "Verifying the RSS Hash Calculation"
 * (Windows driver docs), also Intel's 82599 datasheet 7.1.2.8.3 "RSS
 * Verification Suite"; taken here from DPDK's app/test/test_thash.c (v4_tbl,
 * v6_tbl), which quotes that datasheet. */
int main(void)
{
	check_vectors(4, v4, sizeof(v4) / sizeof(v4[0]));
	check_vectors(6, v6, sizeof(v6) / sizeof(v6[0]));
	test_raw();
	test_fields();
	return check_exit_code();
}
