/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* A NIC's receive-side scaling, read-only: the indirection table, the hash key and
 * function, the fields hashed per flow type, the count of ntuple rules, and the
 * queue that RSS alone gives a flow (ps_rss_predict, for `flows --flow`). */
#ifndef PATHSCOPE_NIC_RSS_H
#define PATHSCOPE_NIC_RSS_H

#include <json-c/json.h>
#include <linux/types.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "lib/toeplitz.h"

/* ice's PF table has 2048 entries, most NICs 128 to 512; keys are 40 or 52
 * bytes. A table entry past PS_RSS_MAX_QUEUE makes the reply malformed. */
#define PS_RSS_MAX_TABLE 4096
#define PS_RSS_MAX_KEY	 128
#define PS_RSS_MAX_QUEUE 65535

enum ps_rss_hfunc {
	PS_RSS_HFUNC_UNKNOWN, /* none or several bits, or a function of a later kernel */
	PS_RSS_HFUNC_TOEPLITZ,
	PS_RSS_HFUNC_XOR,
	PS_RSS_HFUNC_CRC32,
};
/* "unknown", "toeplitz", "xor", "crc32" (ethtool's names, JSON values). */
const char *ps_rss_hfunc_name(enum ps_rss_hfunc h);

/* The flow types whose hashed fields are read (ethtool's names as keys). */
enum { PS_RSS_TCP4, PS_RSS_UDP4, PS_RSS_TCP6, PS_RSS_UDP6, PS_RSS_NFLOW };
/* "tcp4", "udp4", "tcp6", "udp6" */
extern const char *const ps_rss_flow_names[PS_RSS_NFLOW];
/* RXH_DISCARD unsigned: the UAPI's (1 << 31) overflows an int. */
#define PS_RXH_DISCARD 0x80000000u
/* A flow type whose fields the driver did not give. */
#define PS_RSS_FIELDS_NA 0xffffffffu

struct ps_rss {
	/* No table: why says, one line without "not available", e.g. "veth has
	 * no RSS: ETHTOOL_MSG_RSS_GET, ETHTOOL_GRSSH: Operation not supported". */
	bool have_table;
	char why[160];
	__u32 table[PS_RSS_MAX_TABLE]; /* entry -> RX queue */
	__u32 table_size;
	__u8 key[PS_RSS_MAX_KEY];
	__u32 key_size; /* 0: the driver gave none */
	enum ps_rss_hfunc hfunc;
	__u32 input_xfrm; /* RXH_XFRM_* (symmetric-xor...), Linux 6.8; 0: none */
	/* RXH_* per flow type (ETHTOOL_GRXFH); PS_RSS_FIELDS_NA where the driver
	 * did not say; have_fields: it said for at least one */
	bool have_fields;
	__u32 fields[PS_RSS_NFLOW];
	char fields_why[96];
	/* ntuple rules present (ETHTOOL_GRXCLSRLCNT), which steer flows past RSS;
	 * -1: unknown, ntuple_why says why */
	int ntuple_rules;
	char ntuple_why[96];
	const char *source; /* "netlink" or "ioctl" (NULL: neither answered) */
};

/* Everything unknown: no table, fields PS_RSS_FIELDS_NA, rules -1. */
void ps_rss_init(struct ps_rss *r);

/* The RSS facts of ifname in the current network namespace. 0 also when the
 * NIC has no RSS (!have_table, why says); -errno (-ENODEV: no such
 * interface) on a failure to ask at all. From ethtool netlink RSS_GET (Linux
 * 6.2) or, before it, the SIOCETHTOOL ioctl ETHTOOL_GRSSH; the fields from
 * ETHTOOL_GRXFH on every kernel (netlink has them only since 6.17), the rules
 * from ETHTOOL_GRXCLSRLCNT. */
int ps_rss_read(const char *ifname, struct ps_rss *r);

/* per_queue[q]: the table's entries that point to queue q, q < nqueues
 * (entries of higher queues are not counted). */
void ps_rss_entries_per_queue(const struct ps_rss *r, __u32 *per_queue, __u32 nqueues);
/* The highest queue in the table plus one; 0 without a table. */
__u32 ps_rss_nqueues(const struct ps_rss *r);

/* The flow type (PS_RSS_*) of IP family 4 or 6 and protocol TCP or UDP;
 * -1 for any other. */
int ps_rss_flow_type(unsigned int family, unsigned int proto);
/* What the NIC hashes for flow type (PS_RSS_*), from its RXH_* bits: 1
 * addresses and no port, 0 ports too, -1 unknown (the driver did not say,
 * the type is discarded, or neither addresses nor ports are hashed). */
int ps_rss_l3_only(const struct ps_rss *r, int type);

/*
 * The RX queue RSS alone gives t: the Toeplitz hash of t's fields that the
 * NIC hashes for t's flow type, then table[hash % table_size]. That is the
 * hash's low bits where the size is a power of two, as virtio-net (qemu
 * masks with size - 1; its tables have 128 entries), ixgbe, i40e, ice and
 * mlx5 take them. 0 with *queue and *hash; -1 with *why (a static string,
 * valid until the next call) when RSS alone cannot say: no table or key, a
 * hash function other than Toeplitz, an input transform, ntuple rules, a
 * protocol other than TCP and UDP, fields unknown, none, or beyond
 * addresses and ports.
 */
int ps_rss_predict(const struct ps_rss *r, const struct ps_tuple *t, __u32 *queue, __u32 *hash,
		   const char **why);

/* Parsers of the replies, apart from the I/O so that tests feed them
 * recorded ones. ETHTOOL_MSG_RSS_GET's reply datagram: as nic/parse.h's
 * (1 parsed, < 0 -errno); -E2BIG for a table or key beyond the limits. */
int ps_rss_parse_netlink(const void *buf, size_t len, struct ps_rss *r);
/* ETHTOOL_GRSSH's struct ethtool_rxfh of len bytes (the header, indir_size
 * u32 entries, then key_size key bytes): 0, -EBADMSG when the sizes do not
 * fit len, -E2BIG beyond the limits. */
int ps_rss_parse_rxfh(const void *rxfh, size_t len, struct ps_rss *r);

#endif /* PATHSCOPE_NIC_RSS_H */
