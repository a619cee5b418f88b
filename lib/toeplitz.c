// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The Toeplitz hash of RSS (see lib/toeplitz.h). */
#include "lib/toeplitz.h"

#include <linux/ethtool.h>
#include <string.h>

/* Key bit i, 0 past the key's end. */
static unsigned int key_bit(const __u8 *key, size_t key_len, size_t i)
{
	return i / 8 < key_len ? (key[i / 8] >> (7 - i % 8)) & 1 : 0;
}

__u32 ps_toeplitz(const __u8 *key, size_t key_len, const __u8 *in, size_t len)
{
	__u32 hash = 0, window = 0;
	size_t i, bit;

	/* window: the 32 key bits that start at the current input bit */
	for (i = 0; i < 32; i++)
		window = (window << 1) | key_bit(key, key_len, i);
	for (bit = 0; bit < len * 8; bit++) {
		if ((in[bit / 8] >> (7 - bit % 8)) & 1)
			hash ^= window;
		window = (window << 1) | key_bit(key, key_len, bit + 32);
	}
	return hash;
}

__u32 ps_rss_hash(const __u8 *key, size_t key_len, const struct ps_tuple *t, __u32 rxh_fields)
{
	size_t alen = t->family == 6 ? 16 : 4, n = 0;
	__u8 in[2 * 16 + 4];

	if (rxh_fields & RXH_IP_SRC) {
		memcpy(in + n, t->src, alen);
		n += alen;
	}
	if (rxh_fields & RXH_IP_DST) {
		memcpy(in + n, t->dst, alen);
		n += alen;
	}
	if (rxh_fields & RXH_L4_B_0_1) {
		in[n++] = (__u8)(t->sport >> 8);
		in[n++] = (__u8)t->sport;
	}
	if (rxh_fields & RXH_L4_B_2_3) {
		in[n++] = (__u8)(t->dport >> 8);
		in[n++] = (__u8)t->dport;
	}
	return ps_toeplitz(key, key_len, in, n);
}
