/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* ethtool -S (SIOCETHTOOL) lists for nic/ethtool_stats.c, for the test_nic_parse_*.c
 * programs: names (ETHTOOL_GSTRINGS of ETH_SS_STATS) and values (ETHTOOL_GSTATS). */
#ifndef PATHSCOPE_TESTS_UNIT_NIC_FIXTURES_ESTATS_H
#define PATHSCOPE_TESTS_UNIT_NIC_FIXTURES_ESTATS_H

#include <linux/ethtool.h>
#include <linux/types.h>

/* ethtool -S of virtio_net with 4 queue pairs as Linux 5.9 to 6.9 names them
 * (Debian 11's 5.10, Debian 12's 6.1): virtnet_get_strings prints every RX
 * queue's 8 counters (virtnet_rq_stats_desc), then every TX queue's 6
 * (virtnet_sq_stats_desc). Values: rx_queue_Q_packets 1000 (Q + 1) + 7,
 * bytes 98 each, drops Q, xdp_packets 500 (Q + 1), xdp_drops 2Q, kicks 10 + Q;
 * tx_queue_Q_packets 2000 (Q + 1) + 3, bytes 60 each, kicks 20 + Q
 *
 * Names of 32 bytes each, NUL-padded as the kernel copies them) and values
 * (ETHTOOL_GSTATS). veth's recorded on Linux 6.18; virtio_net's and e1000's
 * names as their drivers' sources print them, with made-up values. */
static const char fx_virtio_estats_names[56][ETH_GSTRING_LEN] = {
	"rx_queue_0_packets",	    "rx_queue_0_bytes",		"rx_queue_0_drops",
	"rx_queue_0_xdp_packets",   "rx_queue_0_xdp_tx",	"rx_queue_0_xdp_redirects",
	"rx_queue_0_xdp_drops",	    "rx_queue_0_kicks",		"rx_queue_1_packets",
	"rx_queue_1_bytes",	    "rx_queue_1_drops",		"rx_queue_1_xdp_packets",
	"rx_queue_1_xdp_tx",	    "rx_queue_1_xdp_redirects", "rx_queue_1_xdp_drops",
	"rx_queue_1_kicks",	    "rx_queue_2_packets",	"rx_queue_2_bytes",
	"rx_queue_2_drops",	    "rx_queue_2_xdp_packets",	"rx_queue_2_xdp_tx",
	"rx_queue_2_xdp_redirects", "rx_queue_2_xdp_drops",	"rx_queue_2_kicks",
	"rx_queue_3_packets",	    "rx_queue_3_bytes",		"rx_queue_3_drops",
	"rx_queue_3_xdp_packets",   "rx_queue_3_xdp_tx",	"rx_queue_3_xdp_redirects",
	"rx_queue_3_xdp_drops",	    "rx_queue_3_kicks",		"tx_queue_0_packets",
	"tx_queue_0_bytes",	    "tx_queue_0_xdp_tx",	"tx_queue_0_xdp_tx_drops",
	"tx_queue_0_kicks",	    "tx_queue_0_tx_timeouts",	"tx_queue_1_packets",
	"tx_queue_1_bytes",	    "tx_queue_1_xdp_tx",	"tx_queue_1_xdp_tx_drops",
	"tx_queue_1_kicks",	    "tx_queue_1_tx_timeouts",	"tx_queue_2_packets",
	"tx_queue_2_bytes",	    "tx_queue_2_xdp_tx",	"tx_queue_2_xdp_tx_drops",
	"tx_queue_2_kicks",	    "tx_queue_2_tx_timeouts",	"tx_queue_3_packets",
	"tx_queue_3_bytes",	    "tx_queue_3_xdp_tx",	"tx_queue_3_xdp_tx_drops",
	"tx_queue_3_kicks",	    "tx_queue_3_tx_timeouts",
};
static const __u64 fx_virtio_estats_vals[56] = {
	1007, 98686, 0,	   500,	   0,	 0,	 0,  10, 2007, 196686, 1,    1000,   0,	 0,
	2,    11,    3007, 294686, 2,	 1500,	 0,  0,	 4,    12,     4007, 392686, 3,	 2000,
	0,    0,     6,	   13,	   2003, 120180, 0,  0,	 20,   0,      4003, 240180, 0,	 0,
	21,   0,     6003, 360180, 0,	 0,	 22, 0,	 8003, 480180, 0,    0,	     23, 0,
};

/* ethtool -S of vB (veth, 4 RX and 4 TX queues, GRO on both ends, TSO off
 * on vA, 5 pings from vA to 198.18.0.2, which nobody has: ARP and IPv6
 * multicast) on Linux 6.18, as ethtool 6.1 printed it: peer_ifindex, 7
 * counters per RX queue, 2 per TX queue (only xdp_xmit, xdp_xmit_errors) */
static const char fx_veth_estats_names[37][ETH_GSTRING_LEN] = {
	"peer_ifindex",
	"rx_queue_0_xdp_packets",
	"rx_queue_0_xdp_bytes",
	"rx_queue_0_drops",
	"rx_queue_0_xdp_redirect",
	"rx_queue_0_xdp_drops",
	"rx_queue_0_xdp_tx",
	"rx_queue_0_xdp_tx_errors",
	"rx_queue_1_xdp_packets",
	"rx_queue_1_xdp_bytes",
	"rx_queue_1_drops",
	"rx_queue_1_xdp_redirect",
	"rx_queue_1_xdp_drops",
	"rx_queue_1_xdp_tx",
	"rx_queue_1_xdp_tx_errors",
	"rx_queue_2_xdp_packets",
	"rx_queue_2_xdp_bytes",
	"rx_queue_2_drops",
	"rx_queue_2_xdp_redirect",
	"rx_queue_2_xdp_drops",
	"rx_queue_2_xdp_tx",
	"rx_queue_2_xdp_tx_errors",
	"rx_queue_3_xdp_packets",
	"rx_queue_3_xdp_bytes",
	"rx_queue_3_drops",
	"rx_queue_3_xdp_redirect",
	"rx_queue_3_xdp_drops",
	"rx_queue_3_xdp_tx",
	"rx_queue_3_xdp_tx_errors",
	"tx_queue_0_xdp_xmit",
	"tx_queue_0_xdp_xmit_errors",
	"tx_queue_1_xdp_xmit",
	"tx_queue_1_xdp_xmit_errors",
	"tx_queue_2_xdp_xmit",
	"tx_queue_2_xdp_xmit_errors",
	"tx_queue_3_xdp_xmit",
	"tx_queue_3_xdp_xmit_errors",
};
static const __u64 fx_veth_estats_vals[37] = {
	3, 4, 264, 0, 0,  0, 0, 0, 3, 84, 0, 0, 0, 0, 0, 2, 152, 0, 0,
	0, 0, 0,   1, 72, 0, 0, 0, 0, 0,  0, 0, 0, 0, 0, 0, 0,	 0,
};

/* ethtool -S of e1000 (e1000_gstrings_stats of drivers/net/ethernet/intel/
 * e1000/e1000_ethtool.c, 46 counters): none is per queue. Values: 100 + index */
static const char fx_e1000_estats_names[46][ETH_GSTRING_LEN] = {
	"rx_packets",
	"tx_packets",
	"rx_bytes",
	"tx_bytes",
	"rx_broadcast",
	"tx_broadcast",
	"rx_multicast",
	"tx_multicast",
	"rx_errors",
	"tx_errors",
	"tx_dropped",
	"multicast",
	"collisions",
	"rx_length_errors",
	"rx_over_errors",
	"rx_crc_errors",
	"rx_frame_errors",
	"rx_no_buffer_count",
	"rx_missed_errors",
	"tx_aborted_errors",
	"tx_carrier_errors",
	"tx_fifo_errors",
	"tx_heartbeat_errors",
	"tx_window_errors",
	"tx_abort_late_coll",
	"tx_deferred_ok",
	"tx_single_coll_ok",
	"tx_multi_coll_ok",
	"tx_timeout_count",
	"tx_restart_queue",
	"rx_long_length_errors",
	"rx_short_length_errors",
	"rx_align_errors",
	"tx_tcp_seg_good",
	"tx_tcp_seg_failed",
	"rx_flow_control_xon",
	"rx_flow_control_xoff",
	"tx_flow_control_xon",
	"tx_flow_control_xoff",
	"rx_csum_offload_good",
	"rx_csum_offload_errors",
	"rx_header_split",
	"alloc_rx_buff_failed",
	"tx_smbus",
	"rx_smbus",
	"dropped_smbus",
};
static const __u64 fx_e1000_estats_vals[46] = {
	100, 101, 102, 103, 104, 105, 106, 107, 108, 109, 110, 111, 112, 113, 114, 115,
	116, 117, 118, 119, 120, 121, 122, 123, 124, 125, 126, 127, 128, 129, 130, 131,
	132, 133, 134, 135, 136, 137, 138, 139, 140, 141, 142, 143, 144, 145,
};

#endif /* PATHSCOPE_TESTS_UNIT_NIC_FIXTURES_ESTATS_H */
