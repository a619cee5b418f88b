/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Kernel UAPI constants newer than Debian 12's linux-libc-dev (6.1). */
#ifndef PATHSCOPE_LIB_COMPAT_H
#define PATHSCOPE_LIB_COMPAT_H

#include <linux/bpf.h>

#define PS_BPF_TCX_INGRESS	    46
#define PS_BPF_TCX_EGRESS	    47
#define PS_BPF_F_BEFORE		    (1U << 3) /* mprog placement: first */
#define PS_BPF_F_XDP_DEV_BOUND_ONLY (1U << 6)
#define PS_BPF_LINK_TYPE_TCX	    11

#ifndef BPF_FS_MAGIC
#define BPF_FS_MAGIC 0xcafe4a11
#endif

/*
 * netdev generic netlink (linux/netdev.h, not in the 6.1 UAPI headers).
 * Values from the kernel's include/uapi/linux/netdev.h; the enums only grow.
 */
#define PS_NETDEV_FAMILY_NAME	 "netdev"
#define PS_NETDEV_FAMILY_VERSION 1
#define PS_NETDEV_CMD_QUEUE_GET	 10
#define PS_NETDEV_CMD_NAPI_GET	 11 /* Linux 6.8 */
#define PS_NETDEV_CMD_QSTATS_GET 12

#define PS_NETDEV_QUEUE_TYPE_RX	     0
#define PS_NETDEV_QUEUE_TYPE_TX	     1
#define PS_NETDEV_QSTATS_SCOPE_QUEUE 1

#define PS_NETDEV_A_QUEUE_ID	  1 /* u32 */
#define PS_NETDEV_A_QUEUE_IFINDEX 2 /* u32 */
#define PS_NETDEV_A_QUEUE_TYPE	  3 /* u32, PS_NETDEV_QUEUE_TYPE_* */
#define PS_NETDEV_A_QUEUE_NAPI_ID 4 /* u32 */

/* NAPI_GET: irq and pid since 6.8, defer-hard-irqs 6.12, gro-flush-timeout 6.13. */
#define PS_NETDEV_A_NAPI_IFINDEX	   1 /* u32 */
#define PS_NETDEV_A_NAPI_ID		   2 /* u32 */
#define PS_NETDEV_A_NAPI_IRQ		   3 /* u32, absent without one (veth) */
#define PS_NETDEV_A_NAPI_PID		   4 /* u32, its thread's; absent unthreaded */
#define PS_NETDEV_A_NAPI_DEFER_HARD_IRQS   5 /* s32 */
#define PS_NETDEV_A_NAPI_GRO_FLUSH_TIMEOUT 6 /* uint (u32 or u64), ns */

#define PS_NETDEV_A_QSTATS_IFINDEX    1 /* u32 */
#define PS_NETDEV_A_QSTATS_QUEUE_TYPE 2 /* u32 */
#define PS_NETDEV_A_QSTATS_QUEUE_ID   3 /* u32 */
#define PS_NETDEV_A_QSTATS_SCOPE      4 /* uint (u32 or u64) */
/* The counters are "uint" (u32 or u64), in this order from RX_PACKETS on. */
#define PS_NETDEV_A_QSTATS_RX_PACKETS		  8
#define PS_NETDEV_A_QSTATS_RX_BYTES		  9
#define PS_NETDEV_A_QSTATS_TX_PACKETS		  10
#define PS_NETDEV_A_QSTATS_TX_BYTES		  11
#define PS_NETDEV_A_QSTATS_RX_ALLOC_FAIL	  12
#define PS_NETDEV_A_QSTATS_RX_HW_DROPS		  13
#define PS_NETDEV_A_QSTATS_RX_HW_DROP_OVERRUNS	  14
#define PS_NETDEV_A_QSTATS_RX_CSUM_COMPLETE	  15
#define PS_NETDEV_A_QSTATS_RX_CSUM_UNNECESSARY	  16
#define PS_NETDEV_A_QSTATS_RX_CSUM_NONE		  17
#define PS_NETDEV_A_QSTATS_RX_CSUM_BAD		  18
#define PS_NETDEV_A_QSTATS_RX_HW_GRO_PACKETS	  19
#define PS_NETDEV_A_QSTATS_RX_HW_GRO_BYTES	  20
#define PS_NETDEV_A_QSTATS_RX_HW_GRO_WIRE_PACKETS 21
#define PS_NETDEV_A_QSTATS_RX_HW_GRO_WIRE_BYTES	  22
#define PS_NETDEV_A_QSTATS_RX_HW_DROP_RATELIMITS  23
#define PS_NETDEV_A_QSTATS_TX_HW_DROPS		  24
#define PS_NETDEV_A_QSTATS_TX_HW_DROP_ERRORS	  25
#define PS_NETDEV_A_QSTATS_TX_CSUM_NONE		  26
#define PS_NETDEV_A_QSTATS_TX_NEEDS_CSUM	  27
#define PS_NETDEV_A_QSTATS_TX_HW_GSO_PACKETS	  28
#define PS_NETDEV_A_QSTATS_TX_HW_GSO_BYTES	  29
#define PS_NETDEV_A_QSTATS_TX_HW_GSO_WIRE_PACKETS 30
#define PS_NETDEV_A_QSTATS_TX_HW_GSO_WIRE_BYTES	  31
#define PS_NETDEV_A_QSTATS_TX_HW_DROP_RATELIMITS  32
#define PS_NETDEV_A_QSTATS_TX_STOP		  33
#define PS_NETDEV_A_QSTATS_TX_WAKE		  34

/*
 * ethtool netlink RSS_GET (Linux 6.2; include/uapi/linux/ethtool_netlink.h,
 * after PSE_SET and PSE_GET_REPLY, 37 in the 6.1 headers), and the hash
 * functions of ETH_RSS_HASH_* (include/linux/ethtool.h: not UAPI).
 */
#define PS_ETHTOOL_MSG_RSS_GET	     38
#define PS_ETHTOOL_MSG_RSS_GET_REPLY 38
#define PS_ETHTOOL_A_RSS_HEADER	     1	       /* nest */
#define PS_ETHTOOL_A_RSS_CONTEXT     2	       /* u32 */
#define PS_ETHTOOL_A_RSS_HFUNC	     3	       /* u32, ETH_RSS_HASH_* bits */
#define PS_ETHTOOL_A_RSS_INDIR	     4	       /* binary: u32 per entry */
#define PS_ETHTOOL_A_RSS_HKEY	     5	       /* binary */
#define PS_ETHTOOL_A_RSS_INPUT_XFRM  6	       /* u32, RXH_XFRM_* (Linux 6.8) */
#define PS_ETH_RSS_HASH_TOP	     (1U << 0) /* Toeplitz */
#define PS_ETH_RSS_HASH_XOR	     (1U << 1)
#define PS_ETH_RSS_HASH_CRC32	     (1U << 2)

#endif /* PATHSCOPE_LIB_COMPAT_H */
