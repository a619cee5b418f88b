/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* The Toeplitz hash of receive-side scaling in user space: what a NIC with this
 * key computes over a flow's fields, to predict its RX queue (nic/rss.h). */
#ifndef PATHSCOPE_LIB_TOEPLITZ_H
#define PATHSCOPE_LIB_TOEPLITZ_H

#include <linux/types.h>
#include <stddef.h>

/* A flow as RSS sees it. Addresses in network order (IPv4 in the first 4
 * bytes), ports in host order. */
struct ps_tuple {
	__u8 family; /* 4 or 6 */
	__u8 src[16], dst[16];
	__u8 proto; /* IPPROTO_TCP, IPPROTO_UDP, ... */
	__u16 sport, dport;
};

/* As Microsoft's RSS specification defines it and the kernel's selftest
 * net/toeplitz.c computes it: for every set bit of the input (most
 * significant first), XOR in the 32 bits of the key that start at that bit.
 * The hash of len bytes of in under key (key_len bytes; bits past its end
 * count as 0, so the input should be at most key_len - 4 bytes long: 36 of
 * a 40-byte key, enough for IPv6 with both ports). */
__u32 ps_toeplitz(const __u8 *key, size_t key_len, const __u8 *in, size_t len);

/*
 * The hash of t's fields that rxh_fields (ethtool's RXH_* bits, as
 * ETHTOOL_GRXFH gives them) names, in the order of the RSS specification:
 * source address (RXH_IP_SRC), destination address (RXH_IP_DST), source
 * port (RXH_L4_B_0_1), destination port (RXH_L4_B_2_3); ports big-endian.
 * Other bits (RXH_L2DA, RXH_VLAN, RXH_L3_PROTO, RXH_DISCARD) are not hashed
 * here: ps_rss_predict refuses to predict with them.
 */
__u32 ps_rss_hash(const __u8 *key, size_t key_len, const struct ps_tuple *t, __u32 rxh_fields);

#endif /* PATHSCOPE_LIB_TOEPLITZ_H */
