// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The ethtool -S name mapping (nic/ethtool_stats.c) on recorded and hand-made name
 * lists, and a driver queue's counts from netdev qstats, else ethtool -S. Every value
 * is asserted exactly; n/a must stay PS_NA, never 0. */
#include "tests/unit/nic_parse.h"

static void test_estats_virtio(void)
{
	struct ps_nic_estats *e = &f.estats;
	unsigned int q, bad = 0, na = 0;

	ps_nic_init(&f, 4);
	CHECK_EQ_U64("virtio ethtool -S: parse", ps_nic_parse_estats(ESTATS(fx_virtio_estats), e),
		     0);
	CHECK_TRUE("virtio ethtool -S: valid, no reason", e->valid && !e->why[0]);
	CHECK_EQ_U64("virtio ethtool -S: 56 counters", e->ncounters, 56);
	CHECK_EQ_U64("virtio ethtool -S: 4 rx + 4 tx queues", e->n, 8);
	for (q = 0; q < 4 && e->n == 8; q++) {
		const struct ps_nic_equeue *rx = &e->q[q], *tx = &e->q[4 + q];
		uint64_t rp = 1000 * (q + 1) + 7, tp = 2000 * (q + 1) + 3;

		bad += rx->type != PS_NIC_Q_RX || rx->id != q || tx->type != PS_NIC_Q_TX ||
		       tx->id != q;
		bad += rx->v[PS_NIC_ES_PACKETS] != rp || rx->v[PS_NIC_ES_BYTES] != rp * 98 ||
		       rx->v[PS_NIC_ES_XDP_PACKETS] != 500 * (q + 1) || rx->v[PS_NIC_ES_DROPS] != q;
		bad += tx->v[PS_NIC_ES_PACKETS] != tp || tx->v[PS_NIC_ES_BYTES] != tp * 60;
		na += tx->v[PS_NIC_ES_XDP_PACKETS] == PS_NA && tx->v[PS_NIC_ES_DROPS] == PS_NA;
	}
	CHECK_EQ_U64("virtio ethtool -S: rx-Q packets, bytes, xdp_packets (not xdp_drops), drops "
		     "and tx-Q packets, bytes of every queue, sorted",
		     bad, 0);
	CHECK_EQ_U64("virtio ethtool -S: tx xdp_packets and drops n/a (tx_queue_Q_xdp_tx is no "
		     "such counter)",
		     na, 4);
	ps_nic_free(&f);
}

static void test_estats_veth(void)
{
	struct ps_nic_estats *e = &f.estats;
	const struct ps_nic_equeue *rx;
	unsigned int q, bad = 0;

	ps_nic_init(&f, 2);
	CHECK_EQ_U64("veth ethtool -S: parse", ps_nic_parse_estats(ESTATS(fx_veth_estats), e), 0);
	CHECK_TRUE("veth ethtool -S: valid", e->valid);
	CHECK_EQ_U64("veth ethtool -S: 37 counters", e->ncounters, 37);
	CHECK_EQ_U64("veth ethtool -S: 4 rx queues, no tx (xdp_xmit is not mapped)", e->n, 4);
	for (q = 0; q < 4; q++) {
		rx = equeue(PS_NIC_Q_RX, q);
		bad += !rx || rx->v[PS_NIC_ES_XDP_PACKETS] != 4 - q ||
		       rx->v[PS_NIC_ES_DROPS] != 0 || rx->v[PS_NIC_ES_PACKETS] != PS_NA ||
		       rx->v[PS_NIC_ES_BYTES] != PS_NA;
	}
	CHECK_EQ_U64("veth ethtool -S: rx-Q xdp_packets 4, 3, 2, 1, drops 0 (reported), packets "
		     "and bytes n/a (veth has none)",
		     bad, 0);
	CHECK_TRUE("veth ethtool -S: no tx-0", !equeue(PS_NIC_Q_TX, 0));
	ps_nic_free(&f);
}

static void test_estats_e1000(void)
{
	struct ps_nic_estats *e = &f.estats;

	ps_nic_init(&f, 3);
	CHECK_EQ_U64("e1000 ethtool -S: parse", ps_nic_parse_estats(ESTATS(fx_e1000_estats), e), 0);
	CHECK_TRUE("e1000 ethtool -S: n/a, no queue", !e->valid && e->n == 0);
	CHECK_TRUE("e1000 ethtool -S: the reason counts them",
		   strcmp(e->why, "ethtool -S: 46 counters, none per queue by a known name") == 0);
	CHECK_TRUE("e1000 ethtool -S: rx-0 n/a, not 0", !equeue(PS_NIC_Q_RX, 0));
	ps_nic_free(&f);
}

/* One name of every pattern and its near misses. */
static void test_estats_patterns(void)
{
	static const char names[][ETH_GSTRING_LEN] = {
		"rx0_packets",		  /* mlx5, virtio_net >= 6.10 */
		"rx0_hw_packets",	  /* virtio_net >= 6.10: the device's, not the queue's */
		"rx0_xdp_drop",		  /* mlx5 */
		"tx0_packets",		  /* mlx5 */
		"tx0_xdp_xmit",		  /* mlx5 */
		"rx_packets",		  /* a total */
		"rx1_xdp_packets",	  /* virtio_net >= 6.10 */
		"rx1_drops",		  /* virtio_net >= 6.10 */
		"rx-2.packets",		  /* i40e */
		"rx-2.bytes",		  /* i40e */
		"tx-2.packets",		  /* i40e */
		"tx-2.bytes",		  /* i40e */
		"rx_queue_3_packets",	  /* ixgbe, ice */
		"rx_queue_3_packets",	  /* the same again: the first counts */
		"rx_queue_03_bytes",	  /* leading zero */
		"rx_queue__packets",	  /* no id */
		"rx_queue_3x_packets",	  /* not a number */
		"rx_queue_3_packetsX",	  /* suffix */
		"rx_queue_65536_packets", /* no such queue */
		"tx_queue_65535_bytes",	  /* the last id taken */
		"rx_queue_4_xdp_bytes",	  /* veth: not mapped */
	};
	static const __u64 vals[] = { 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20,
				      21, 22, 23, 24, 25, 26, 27, 28, 29, 30 };
	struct ps_nic_estats *e = &f.estats;
	const struct ps_nic_equeue *q;

	_Static_assert(PS_ARRAY_N(names) == PS_ARRAY_N(vals), "one value per name");
	ps_nic_init(&f, 5);
	CHECK_EQ_U64(
	    "patterns: parse",
	    ps_nic_parse_estats((const char *)names, PS_ARRAY_N(names), vals, PS_ARRAY_N(vals), e),
	    0);
	CHECK_EQ_U64("patterns: rx-0, rx-1, rx-2, rx-3, tx-0, tx-2, tx-65535", e->n, 7);
	q = equeue(PS_NIC_Q_RX, 0);
	CHECK_TRUE("patterns: rx0_packets only (not rx0_hw_packets, rx0_xdp_drop)",
		   q && q->v[PS_NIC_ES_PACKETS] == 10 && q->v[PS_NIC_ES_BYTES] == PS_NA &&
		       q->v[PS_NIC_ES_XDP_PACKETS] == PS_NA && q->v[PS_NIC_ES_DROPS] == PS_NA);
	q = equeue(PS_NIC_Q_TX, 0);
	CHECK_TRUE("patterns: tx0_packets (not tx0_xdp_xmit)",
		   q && q->v[PS_NIC_ES_PACKETS] == 13 && q->v[PS_NIC_ES_BYTES] == PS_NA);
	q = equeue(PS_NIC_Q_RX, 1);
	CHECK_TRUE("patterns: rx1_xdp_packets, rx1_drops", q && q->v[PS_NIC_ES_XDP_PACKETS] == 16 &&
							       q->v[PS_NIC_ES_DROPS] == 17 &&
							       q->v[PS_NIC_ES_PACKETS] == PS_NA);
	q = equeue(PS_NIC_Q_RX, 2);
	CHECK_TRUE("patterns: i40e rx-2.packets, rx-2.bytes",
		   q && q->v[PS_NIC_ES_PACKETS] == 18 && q->v[PS_NIC_ES_BYTES] == 19);
	q = equeue(PS_NIC_Q_TX, 2);
	CHECK_TRUE("patterns: i40e tx-2.packets, tx-2.bytes",
		   q && q->v[PS_NIC_ES_PACKETS] == 20 && q->v[PS_NIC_ES_BYTES] == 21);
	q = equeue(PS_NIC_Q_RX, 3);
	CHECK_TRUE("patterns: rx_queue_3_packets, the first of two; near misses skipped",
		   q && q->v[PS_NIC_ES_PACKETS] == 22 && q->v[PS_NIC_ES_BYTES] == PS_NA);
	q = equeue(PS_NIC_Q_TX, 65535);
	CHECK_TRUE("patterns: tx_queue_65535_bytes", q && q->v[PS_NIC_ES_BYTES] == 29);
	CHECK_TRUE("patterns: no rx-4 (xdp_bytes), no rx-65536",
		   !equeue(PS_NIC_Q_RX, 4) && !equeue(PS_NIC_Q_RX, 65536));
	ps_nic_free(&f);
}

/* Names and values that do not agree, a name without its NUL, nothing. */
static void test_estats_damage(void)
{
	struct ps_nic_estats *e = &f.estats;
	char *names;

	ps_nic_init(&f, 4);
	CHECK_EQ_U64("short values: EBADMSG",
		     ps_nic_parse_estats((const char *)fx_virtio_estats_names, 56,
					 fx_virtio_estats_vals, 40, e),
		     (uint64_t)-EBADMSG);
	CHECK_TRUE("short values: n/a, nothing mapped", !e->valid && e->n == 0);
	CHECK_TRUE("short values: the reason",
		   strcmp(e->why, "ethtool -S: 56 names but 40 values (the driver's counters "
				  "changed)") == 0);
	/* a list parsed before is replaced, not added to */
	ps_nic_parse_estats(ESTATS(fx_virtio_estats), e);
	CHECK_EQ_U64(
	    "more values than names: EBADMSG",
	    ps_nic_parse_estats((const char *)fx_veth_estats_names, 30, fx_veth_estats_vals, 37, e),
	    (uint64_t)-EBADMSG);
	CHECK_TRUE("more values than names: what the earlier list had is gone",
		   !e->valid && e->n == 0 && !equeue(PS_NIC_Q_RX, 0));

	CHECK_EQ_U64("no counters: parse", ps_nic_parse_estats(NULL, 0, NULL, 0, e), 0);
	CHECK_TRUE("no counters: n/a with the reason",
		   !e->valid && strcmp(e->why, "the driver has no ethtool -S counters") == 0);

	/* The last name fills its 32 bytes without a NUL, at the end of a
	 * buffer of exactly that size (ASan sees a read past it). */
	names = malloc(2 * ETH_GSTRING_LEN);
	memcpy(names, fx_virtio_estats_names[3], ETH_GSTRING_LEN); /* rx_queue_0_xdp_packets */
	memset(names + ETH_GSTRING_LEN, '1', ETH_GSTRING_LEN);
	memcpy(names + ETH_GSTRING_LEN, "rx_queue_1_packets", 18);
	CHECK_EQ_U64("name without NUL: parse",
		     ps_nic_parse_estats(names, 2, fx_virtio_estats_vals, 2, e), 0);
	CHECK_TRUE("name without NUL: skipped, the other mapped",
		   e->n == 1 && equeue(PS_NIC_Q_RX, 0) &&
		       equeue(PS_NIC_Q_RX, 0)->v[PS_NIC_ES_XDP_PACKETS] == 1007 &&
		       !equeue(PS_NIC_Q_RX, 1));
	free(names);
	ps_nic_free(&f);
}

/* Each count from netdev qstats when the kernel reports it, else ethtool -S. */
static void test_driver_queue(void)
{
	struct ps_nic_driver_queue d;

	ps_nic_init(&f, 4);
	ps_nic_parse_queues(fx_virtio_queues, sizeof(fx_virtio_queues), 4, &f.queues);
	ps_nic_parse_qstats(fx_virtio_qstats, sizeof(fx_virtio_qstats), 4, &f.queues);
	ps_nic_queues_sort(&f.queues);
	ps_nic_parse_estats(ESTATS(fx_virtio_estats), &f.estats);

	ps_nic_driver_queue(&f, PS_NIC_Q_RX, 0, &d);
	CHECK_TRUE("driver rx-0: packets and bytes of qstats",
		   d.packets.v == 697 && d.packets.src == PS_NIC_SRC_QSTATS &&
		       d.bytes.v == 27029362 && d.bytes.src == PS_NIC_SRC_QSTATS);
	CHECK_TRUE("driver rx-0: xdp_packets of ethtool -S (qstats has none)",
		   d.xdp_packets.v == 500 && d.xdp_packets.src == PS_NIC_SRC_ETHTOOL);
	ps_nic_driver_queue(&f, PS_NIC_Q_TX, 0, &d);
	CHECK_TRUE("driver tx-0: qstats; no xdp_packets",
		   d.packets.v == 505 && d.packets.src == PS_NIC_SRC_QSTATS &&
		       d.xdp_packets.v == PS_NA && d.xdp_packets.src == PS_NIC_SRC_NONE);
	ps_nic_driver_queue(&f, PS_NIC_Q_RX, 3, &d);
	CHECK_TRUE("driver rx-3: no qstats queue, ethtool -S",
		   d.packets.v == 4007 && d.packets.src == PS_NIC_SRC_ETHTOOL &&
		       d.bytes.v == 4007 * 98 && d.xdp_packets.v == 2000);
	ps_nic_driver_queue(&f, PS_NIC_Q_RX, 4, &d);
	CHECK_TRUE("driver rx-4: neither has it: n/a", d.packets.v == PS_NA &&
							   d.packets.src == PS_NIC_SRC_NONE &&
							   d.xdp_packets.src == PS_NIC_SRC_NONE);
	f.queues.qstats_valid = false; /* a kernel without qstats (Linux < 6.9) */
	ps_nic_driver_queue(&f, PS_NIC_Q_RX, 0, &d);
	CHECK_TRUE("driver rx-0 without qstats: ethtool -S",
		   d.packets.v == 1007 && d.packets.src == PS_NIC_SRC_ETHTOOL);
	CHECK_TRUE("source names", strcmp(ps_nic_src_name(PS_NIC_SRC_QSTATS), "qstats") == 0 &&
				       strcmp(ps_nic_src_name(PS_NIC_SRC_ETHTOOL), "ethtool") == 0);
	ps_nic_free(&f);
}

/* Checked on virtio_net's, veth's and e1000's lists
 * (tests/unit/nic_fixtures_estats.h), on hand-made names of every pattern and
 * near misses, and on names and values that do not agree; a driver queue's
 * counts from netdev qstats, else ethtool -S. Every value is asserted exactly;
 * n/a must stay PS_NA, never 0. */
int main(void)
{
	test_estats_virtio();
	test_estats_veth();
	test_estats_e1000();
	test_estats_patterns();
	test_estats_damage();
	test_driver_queue();
	return check_exit_code();
}
