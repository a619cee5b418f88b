/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Kernel UAPI constants newer than Debian 12's linux-libc-dev (6.1). */
#ifndef PATHSCOPE_COMPAT_H
#define PATHSCOPE_COMPAT_H

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
#define PS_NETDEV_CMD_QSTATS_GET 12

#define PS_NETDEV_QUEUE_TYPE_RX	     0
#define PS_NETDEV_QUEUE_TYPE_TX	     1
#define PS_NETDEV_QSTATS_SCOPE_QUEUE 1

#define PS_NETDEV_A_QUEUE_ID	  1 /* u32 */
#define PS_NETDEV_A_QUEUE_IFINDEX 2 /* u32 */
#define PS_NETDEV_A_QUEUE_TYPE	  3 /* u32, PS_NETDEV_QUEUE_TYPE_* */
#define PS_NETDEV_A_QUEUE_NAPI_ID 4 /* u32 */

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

#endif /* PATHSCOPE_COMPAT_H */
