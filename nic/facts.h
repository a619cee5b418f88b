/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* What the kernel knows about one interface, read-only over netlink (rtnetlink,
 * ethtool and netdev genl) and `ethtool -S`'s ioctl. Each part is available or
 * "n/a" with a reason; a value the driver does not report is PS_NA, never 0. */
#ifndef PATHSCOPE_NIC_FACTS_H
#define PATHSCOPE_NIC_FACTS_H

#include <net/if.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* A value the kernel or the driver did not report. */
#define PS_NA UINT64_MAX

#define PS_NIC_WHY_LEN 96

/* struct rtnl_link_stats64, field by field, in the kernel's order. */
enum {
	PS_LINK_RX_PACKETS,
	PS_LINK_TX_PACKETS,
	PS_LINK_RX_BYTES,
	PS_LINK_TX_BYTES,
	PS_LINK_RX_ERRORS,
	PS_LINK_TX_ERRORS,
	PS_LINK_RX_DROPPED,
	PS_LINK_TX_DROPPED,
	PS_LINK_MULTICAST,
	PS_LINK_COLLISIONS,
	PS_LINK_RX_LENGTH_ERRORS,
	PS_LINK_RX_OVER_ERRORS,
	PS_LINK_RX_CRC_ERRORS,
	PS_LINK_RX_FRAME_ERRORS,
	PS_LINK_RX_FIFO_ERRORS,
	PS_LINK_RX_MISSED_ERRORS,
	PS_LINK_TX_ABORTED_ERRORS,
	PS_LINK_TX_CARRIER_ERRORS,
	PS_LINK_TX_FIFO_ERRORS,
	PS_LINK_TX_HEARTBEAT_ERRORS,
	PS_LINK_TX_WINDOW_ERRORS,
	PS_LINK_RX_COMPRESSED,
	PS_LINK_TX_COMPRESSED,
	PS_LINK_RX_NOHANDLER,	      /* Linux >= 4.6 */
	PS_LINK_RX_OTHERHOST_DROPPED, /* Linux >= 5.19 */
	PS_LINK_COUNT
};
/* JSON keys, also the kernel's field names. */
extern const char *const ps_link_names[PS_LINK_COUNT];

struct ps_nic_link {
	bool valid;
	char why[PS_NIC_WHY_LEN];
	bool up;		   /* IFF_UP */
	uint64_t v[PS_LINK_COUNT]; /* PS_NA past the end of an older kernel's struct */
};

struct ps_nic_channels {
	bool valid;
	char why[PS_NIC_WHY_LEN];
	/* PS_NA when the driver omits the pair (its maximum is 0) */
	uint64_t rx, tx, other, combined;
	uint64_t rx_max, tx_max, other_max, combined_max;
};

struct ps_nic_rings {
	bool valid;
	char why[PS_NIC_WHY_LEN];
	uint64_t rx, rx_mini, rx_jumbo, tx;
	uint64_t rx_max, rx_mini_max, rx_jumbo_max, tx_max;
};

/* ethtool -c: interrupt moderation. The kernel sends only what the driver
 * supports: the rest stays PS_NA. */
struct ps_nic_coalesce {
	bool valid;
	char why[PS_NIC_WHY_LEN];
	uint64_t rx_usecs, rx_frames, rx_usecs_irq, rx_frames_irq;
	uint64_t tx_usecs, tx_frames, tx_usecs_irq, tx_frames_irq;
	uint64_t adaptive_rx, adaptive_tx; /* 1 on, 0 off */
};

enum ps_nic_onoff { PS_NIC_NA = 0, PS_NIC_OFF, PS_NIC_ON };
/* "on", "off" or "n/a". */
const char *ps_nic_onoff_name(enum ps_nic_onoff s);

enum {
	PS_NIC_F_GRO,	 /* rx-gro */
	PS_NIC_F_LRO,	 /* rx-lro */
	PS_NIC_F_GSO,	 /* tx-generic-segmentation */
	PS_NIC_F_TSO,	 /* any of tx-tcp{,-ecn,-mangleid,6}-segmentation, as ethtool -k */
	PS_NIC_F_RXHASH, /* rx-hashing */
	PS_NIC_F_COUNT
};
/* "gro", "lro", "gso", "tso", "rx_hashing" (JSON keys). */
extern const char *const ps_nic_feature_names[PS_NIC_F_COUNT];

struct ps_nic_feature {
	enum ps_nic_onoff state;
	bool fixed; /* cannot be changed (not in hw, or in nochange); for TSO: all four */
};

struct ps_nic_features {
	bool valid;
	char why[PS_NIC_WHY_LEN];
	struct ps_nic_feature f[PS_NIC_F_COUNT];
};

/* Per-queue counters of netdev QSTATS_GET, in the order of NETDEV_A_QSTATS_*
 * from RX_PACKETS on. */
enum {
	PS_NIC_QS_RX_PACKETS,
	PS_NIC_QS_RX_BYTES,
	PS_NIC_QS_TX_PACKETS,
	PS_NIC_QS_TX_BYTES,
	PS_NIC_QS_RX_ALLOC_FAIL,
	PS_NIC_QS_RX_HW_DROPS,
	PS_NIC_QS_RX_HW_DROP_OVERRUNS,
	PS_NIC_QS_RX_CSUM_COMPLETE,
	PS_NIC_QS_RX_CSUM_UNNECESSARY,
	PS_NIC_QS_RX_CSUM_NONE,
	PS_NIC_QS_RX_CSUM_BAD,
	PS_NIC_QS_RX_HW_GRO_PACKETS,
	PS_NIC_QS_RX_HW_GRO_BYTES,
	PS_NIC_QS_RX_HW_GRO_WIRE_PACKETS,
	PS_NIC_QS_RX_HW_GRO_WIRE_BYTES,
	PS_NIC_QS_RX_HW_DROP_RATELIMITS,
	PS_NIC_QS_TX_HW_DROPS,
	PS_NIC_QS_TX_HW_DROP_ERRORS,
	PS_NIC_QS_TX_CSUM_NONE,
	PS_NIC_QS_TX_NEEDS_CSUM,
	PS_NIC_QS_TX_HW_GSO_PACKETS,
	PS_NIC_QS_TX_HW_GSO_BYTES,
	PS_NIC_QS_TX_HW_GSO_WIRE_PACKETS,
	PS_NIC_QS_TX_HW_GSO_WIRE_BYTES,
	PS_NIC_QS_TX_HW_DROP_RATELIMITS,
	PS_NIC_QS_TX_STOP,
	PS_NIC_QS_TX_WAKE,
	PS_NIC_QSTATS_COUNT
};
/* "rx_packets", "rx_bytes", ... (JSON keys, the netdev spec's names with '_'). */
extern const char *const ps_nic_qstats_names[PS_NIC_QSTATS_COUNT];

enum ps_nic_qtype { PS_NIC_Q_RX, PS_NIC_Q_TX };

struct ps_nic_queue {
	enum ps_nic_qtype type;
	uint32_t id;
	uint32_t napi_id;		      /* 0: n/a (NAPI ids are never 0) */
	bool has_qstats;		      /* the driver reported this queue */
	uint64_t qstats[PS_NIC_QSTATS_COUNT]; /* PS_NA where the driver has no counter */
};

struct ps_nic_queues {
	bool valid;
	char why[PS_NIC_WHY_LEN];
	bool qstats_valid; /* at least one queue has stats */
	char qstats_why[PS_NIC_WHY_LEN];
	struct ps_nic_queue *q; /* sorted: rx by id, then tx by id */
	unsigned int n, cap;
};

/*
 * The driver's own per-queue counters of `ethtool -S` (SIOCETHTOOL
 * ETHTOOL_GSTATS), mapped onto queues by their names (nic/ethtool_stats.c).
 * Older kernels (Debian's 5.10 and 6.1) have no netdev qstats, and
 * ethtool -S is where their drivers count per queue (virtio_net, veth).
 */
enum {
	PS_NIC_ES_PACKETS,
	PS_NIC_ES_BYTES,
	PS_NIC_ES_XDP_PACKETS, /* RX: frames of the driver's XDP path (veth: its NAPI poll) */
	PS_NIC_ES_DROPS,       /* RX: the driver's own drops */
	PS_NIC_ES_COUNT
};
/* "packets", "bytes", "xdp_packets", "drops" (JSON keys). */
extern const char *const ps_nic_estat_names[PS_NIC_ES_COUNT];

struct ps_nic_equeue {
	enum ps_nic_qtype type;
	uint32_t id;
	uint64_t v[PS_NIC_ES_COUNT]; /* PS_NA: the driver has no counter of that name */
};

struct ps_nic_estats {
	bool valid; /* at least one per-queue counter by a name pathscope knows */
	char why[PS_NIC_WHY_LEN];
	unsigned int ncounters;	 /* all of ethtool -S, per queue or not */
	struct ps_nic_equeue *q; /* sorted: rx by id, then tx by id */
	unsigned int n, cap;
};

/* Link stats64 (rtnetlink); channels, rings and offload features (ethtool
 * genl); queues, NAPI ids and per-queue stats (netdev genl); the driver's own
 * per-queue counters of `ethtool -S` (the SIOCETHTOOL ioctl: ethtool netlink
 * has no driver-private statistics). */
struct ps_nic_facts {
	int ifindex;
	char ifname[IF_NAMESIZE];
	struct ps_nic_link link;
	struct ps_nic_channels channels;
	struct ps_nic_rings rings;
	struct ps_nic_features features;
	struct ps_nic_queues queues;
	struct ps_nic_estats estats;
};

/* Where a driver count comes from. */
enum ps_nic_src { PS_NIC_SRC_NONE, PS_NIC_SRC_QSTATS, PS_NIC_SRC_ETHTOOL };
/* "n/a", "qstats", "ethtool" (Prometheus' source label, the tables). */
const char *ps_nic_src_name(enum ps_nic_src s);

struct ps_nic_count {
	uint64_t v; /* PS_NA with src PS_NIC_SRC_NONE */
	enum ps_nic_src src;
};

/* One direction of one queue as the driver counts it: netdev qstats where
 * the kernel reports the counter, else ethtool -S. XDP packets (RX) come
 * from ethtool -S only: qstats has no such counter. */
struct ps_nic_driver_queue {
	struct ps_nic_count packets, bytes, xdp_packets;
};
void ps_nic_driver_queue(const struct ps_nic_facts *f, enum ps_nic_qtype t, uint32_t id,
			 struct ps_nic_driver_queue *d);

/* The netdev queue (type, id) of f, its ethtool -S counters; NULL: none. */
const struct ps_nic_queue *ps_nic_find_queue(const struct ps_nic_facts *f, enum ps_nic_qtype t,
					     uint32_t id);
const struct ps_nic_equeue *ps_nic_find_equeue(const struct ps_nic_facts *f, enum ps_nic_qtype t,
					       uint32_t id);

/* Set every part to n/a with no reason and every value to PS_NA. */
void ps_nic_init(struct ps_nic_facts *f, int ifindex);
void ps_nic_channels_init(struct ps_nic_channels *c);
void ps_nic_coalesce_init(struct ps_nic_coalesce *c);
/* Free what ps_nic_read allocated in f (queues, ethtool -S counters). */
void ps_nic_free(struct ps_nic_facts *f);

/* A part's reason for n/a after err (-errno) from what: "what: malformed
 * reply", "what: unexpected reply", or "what: strerror". */
void ps_nic_why(char *why, size_t len, const char *what, int err);

#endif /* PATHSCOPE_NIC_FACTS_H */
