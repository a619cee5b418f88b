// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The netdev netlink readers (nic/netdev.c): QUEUE_GET, QSTATS_GET and NAPI_GET dumps
 * of a veth and a virtio_net NIC (nic_fixtures_netdev.h) and hand-made messages.
 * Every value is asserted exactly; n/a must stay PS_NA (-1 for NAPI's), never 0. */
#include "tests/unit/nic_parse.h"

static void check_veth_queues(const char *what, const struct ps_nic_queues *q)
{
	unsigned int i, bad = 0;
	char name[96];

	snprintf(name, sizeof(name), "%s: 8 queues", what);
	CHECK_EQ_U64(name, q->n, 8);
	if (q->n != 8)
		return;
	for (i = 0; i < 8; i++) {
		const struct ps_nic_queue *e = &q->q[i];

		if (e->type != (i < 4 ? PS_NIC_Q_RX : PS_NIC_Q_TX) || e->id != i % 4 ||
		    e->napi_id || e->has_qstats || e->qstats[PS_NIC_QS_RX_PACKETS] != PS_NA)
			bad++;
	}
	snprintf(name, sizeof(name), "%s: rx 0-3 then tx 0-3, napi and qstats n/a", what);
	CHECK_EQ_U64(name, bad, 0);
}

static void test_queues(void)
{
	struct ps_nic_queues *q = &f.queues;
	const size_t first = 4 * 44; /* four queue messages of 44 bytes */

	ps_nic_init(&f, 0);
	CHECK_EQ_U64("veth queues: dump done",
		     ps_nic_parse_queues(fx_veth_queues, sizeof(fx_veth_queues), 2, q), 0);
	ps_nic_queues_sort(q);
	CHECK_TRUE("veth queues: valid", q->valid);
	check_veth_queues("veth queues", q);
	CHECK_EQ_U64("veth qstats: only NLMSG_DONE",
		     ps_nic_parse_qstats(fx_veth_qstats, sizeof(fx_veth_qstats), 2, q), 0);
	CHECK_TRUE("veth qstats: n/a", !q->qstats_valid);
	check_veth_queues("veth queues after qstats", q);
	ps_nic_free(&f);

	/* the same dump in two datagrams */
	ps_nic_init(&f, 0);
	CHECK_EQ_U64("veth queues split: first part, more to come",
		     ps_nic_parse_queues(fx_veth_queues, first, 2, q), 1);
	CHECK_EQ_U64(
	    "veth queues split: second part, done",
	    ps_nic_parse_queues(fx_veth_queues + first, sizeof(fx_veth_queues) - first, 2, q), 0);
	ps_nic_queues_sort(q);
	check_veth_queues("veth queues split", q);
	ps_nic_free(&f);

	ps_nic_init(&f, 0);
	CHECK_EQ_U64("veth queues of ifindex 3: parse",
		     ps_nic_parse_queues(fx_veth_queues, sizeof(fx_veth_queues), 3, q), 0);
	CHECK_TRUE("veth queues of ifindex 3: none, n/a", q->n == 0 && !q->valid);
	CHECK_EQ_U64("veth queues cut short: EBADMSG",
		     ps_nic_parse_queues(fx_veth_queues, first + 10, 2, q), (uint64_t)-EBADMSG);
	ps_nic_free(&f);
}

/* A QSTATS_GET message of ifindex 4 rx queue 3: rx_packets as a u64, rx_bytes
 * with a 2-byte payload, and an unknown counter after TX_WAKE. */
static size_t qstats_msg(void)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct genlmsghdr *g = mnl_nlmsg_put_extra_header(nlh, sizeof(*g));

	nlh->nlmsg_type = 30;
	g->cmd = PS_NETDEV_CMD_QSTATS_GET;
	mnl_attr_put_u32(nlh, PS_NETDEV_A_QSTATS_IFINDEX, 4);
	mnl_attr_put_u32(nlh, PS_NETDEV_A_QSTATS_QUEUE_TYPE, PS_NETDEV_QUEUE_TYPE_RX);
	mnl_attr_put_u32(nlh, PS_NETDEV_A_QSTATS_QUEUE_ID, 3);
	mnl_attr_put_u64(nlh, PS_NETDEV_A_QSTATS_RX_PACKETS, 5000000000ULL);
	mnl_attr_put_u16(nlh, PS_NETDEV_A_QSTATS_RX_BYTES, 7);
	mnl_attr_put_u32(nlh, PS_NETDEV_A_QSTATS_RX_HW_DROPS, 9);
	mnl_attr_put_u64(nlh, PS_NETDEV_A_QSTATS_TX_WAKE + 1, 1);
	return nlh->nlmsg_len;
}

static void test_virtio_queues(void)
{
	struct ps_nic_queues *q = &f.queues;
	const uint64_t *s;
	size_t len;

	ps_nic_init(&f, 0);
	CHECK_EQ_U64("virtio queues: done",
		     ps_nic_parse_queues(fx_virtio_queues, sizeof(fx_virtio_queues), 4, q), 0);
	CHECK_EQ_U64("virtio qstats: done",
		     ps_nic_parse_qstats(fx_virtio_qstats, sizeof(fx_virtio_qstats), 4, q), 0);
	ps_nic_queues_sort(q);
	CHECK_EQ_U64("virtio queues: 2", q->n, 2);
	CHECK_TRUE("virtio qstats: valid", q->qstats_valid);
	if (q->n != 2)
		return;
	s = q->q[0].qstats;
	CHECK_TRUE("virtio rx-0", q->q[0].type == PS_NIC_Q_RX && q->q[0].id == 0);
	CHECK_EQ_U64("virtio rx-0: napi id", q->q[0].napi_id, 257);
	CHECK_EQ_U64("virtio rx-0: rx_packets", s[PS_NIC_QS_RX_PACKETS], 697);
	CHECK_EQ_U64("virtio rx-0: rx_bytes", s[PS_NIC_QS_RX_BYTES], 27029362);
	CHECK_NA("virtio rx-0: rx_alloc_fail n/a", s[PS_NIC_QS_RX_ALLOC_FAIL]);
	CHECK_NA("virtio rx-0: rx_hw_drops n/a", s[PS_NIC_QS_RX_HW_DROPS]);
	CHECK_NA("virtio rx-0: tx_packets n/a", s[PS_NIC_QS_TX_PACKETS]);
	s = q->q[1].qstats;
	CHECK_TRUE("virtio tx-0", q->q[1].type == PS_NIC_Q_TX && q->q[1].id == 0);
	CHECK_EQ_U64("virtio tx-0: no napi id", q->q[1].napi_id, 0);
	CHECK_EQ_U64("virtio tx-0: tx_packets", s[PS_NIC_QS_TX_PACKETS], 505);
	CHECK_EQ_U64("virtio tx-0: tx_bytes", s[PS_NIC_QS_TX_BYTES], 42725);
	CHECK_EQ_U64("virtio tx-0: tx_stop 0 (reported, not n/a)", s[PS_NIC_QS_TX_STOP], 0);
	CHECK_EQ_U64("virtio tx-0: tx_wake 0", s[PS_NIC_QS_TX_WAKE], 0);
	CHECK_NA("virtio tx-0: tx_hw_drops n/a", s[PS_NIC_QS_TX_HW_DROPS]);

	/* a counter message for a queue QUEUE_GET did not list adds it */
	len = qstats_msg();
	CHECK_EQ_U64("hand-made qstats: parse", ps_nic_parse_qstats(buf, len, 4, q), 1);
	ps_nic_queues_sort(q);
	CHECK_EQ_U64("hand-made qstats: queue added", q->n, 3);
	if (q->n == 3) {
		s = q->q[1].qstats;
		CHECK_TRUE("hand-made qstats: rx-3 sorted after rx-0",
			   q->q[1].type == PS_NIC_Q_RX && q->q[1].id == 3);
		CHECK_EQ_U64("hand-made qstats: u64 rx_packets", s[PS_NIC_QS_RX_PACKETS],
			     5000000000ULL);
		CHECK_NA("hand-made qstats: 2-byte rx_bytes ignored", s[PS_NIC_QS_RX_BYTES]);
		CHECK_EQ_U64("hand-made qstats: rx_hw_drops", s[PS_NIC_QS_RX_HW_DROPS], 9);
	}
	CHECK_EQ_U64("qstats parser on a queue message: EPROTO",
		     ps_nic_parse_qstats(fx_virtio_queues, sizeof(fx_virtio_queues), 4, q),
		     (uint64_t)-EPROTO);
	ps_nic_free(&f);
}

/* One NAPI_GET message at the end of buf (at off): the attributes in the
 * kernel's order (id, ifindex, irq if any, pid if threaded, defer-hard-irqs
 * as an s32, irq-suspend-timeout and gro-flush-timeout as "uint"). irq or
 * pid < 0: not sent. */
static size_t napi_msg(size_t off, uint32_t ifindex, uint32_t id, long irq, long pid, int32_t defer,
		       uint64_t gro)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf + off);
	struct genlmsghdr *g = mnl_nlmsg_put_extra_header(nlh, sizeof(*g));

	nlh->nlmsg_type = 30;
	nlh->nlmsg_flags = NLM_F_MULTI;
	g->cmd = PS_NETDEV_CMD_NAPI_GET;
	mnl_attr_put_u32(nlh, PS_NETDEV_A_NAPI_ID, id);
	mnl_attr_put_u32(nlh, PS_NETDEV_A_NAPI_IFINDEX, ifindex);
	if (irq >= 0)
		mnl_attr_put_u32(nlh, PS_NETDEV_A_NAPI_IRQ, (uint32_t)irq);
	if (pid >= 0)
		mnl_attr_put_u32(nlh, PS_NETDEV_A_NAPI_PID, (uint32_t)pid);
	mnl_attr_put_u32(nlh, PS_NETDEV_A_NAPI_DEFER_HARD_IRQS, (uint32_t)defer);
	mnl_attr_put_u32(nlh, PS_NETDEV_A_NAPI_GRO_FLUSH_TIMEOUT + 1, 0);
	if (gro > UINT32_MAX)
		mnl_attr_put_u64(nlh, PS_NETDEV_A_NAPI_GRO_FLUSH_TIMEOUT, gro);
	else
		mnl_attr_put_u32(nlh, PS_NETDEV_A_NAPI_GRO_FLUSH_TIMEOUT, (uint32_t)gro);
	return off + nlh->nlmsg_len;
}

static void test_napis(void)
{
	static struct ps_nic_napis n;
	const struct ps_nic_napi *e;
	size_t len;

	/* ifindex 4: a virtio NAPI with IRQ 41, threaded (pid 812), defer 2,
	 * gro-flush-timeout 500 us as a u32; one with IRQ 43, unthreaded, a
	 * gro-flush-timeout of 5 s as a u64; a veth-like one without IRQ;
	 * and one of ifindex 5, skipped. */
	len = napi_msg(0, 4, 8193, 41, 812, 2, 500000);
	len = napi_msg(len, 4, 8194, 43, -1, 0, 5000000000ULL);
	len = napi_msg(len, 4, 8195, -1, -1, 0, 0);
	len = napi_msg(len, 5, 9000, 50, -1, 0, 0);
	memset(&n, 0, sizeof(n));
	CHECK_EQ_U64("napi: parse", ps_nic_parse_napis(buf, len, 4, &n), 1);
	CHECK_TRUE("napi: valid, 3 of ifindex 4", n.valid && n.n == 3);
	e = &n.napi[0];
	CHECK_TRUE("napi 8193: IRQ 41, thread 812, defer 2, gro_flush_timeout 500000",
		   e->id == 8193 && e->irq == 41 && e->pid == 812 && e->defer_hard_irqs == 2 &&
		       e->gro_flush_timeout == 500000);
	e = &n.napi[1];
	CHECK_TRUE("napi 8194: IRQ 43, no thread, defer 0, gro_flush_timeout 5e9 (u64)",
		   e->id == 8194 && e->irq == 43 && e->pid == -1 && e->defer_hard_irqs == 0 &&
		       e->gro_flush_timeout == 5000000000L);
	e = &n.napi[2];
	CHECK_TRUE("napi 8195 (veth): no IRQ (-1), no thread",
		   e->id == 8195 && e->irq == -1 && e->pid == -1);
	memset(&n, 0, sizeof(n));
	CHECK_EQ_U64("napi cut short: EBADMSG", ps_nic_parse_napis(buf, len - 4, 4, &n),
		     (uint64_t)-EBADMSG);
	memset(&n, 0, sizeof(n));
	CHECK_EQ_U64("a QUEUE_GET dump is not a NAPI_GET one",
		     ps_nic_parse_napis(fx_veth_queues, sizeof(fx_veth_queues), 2, &n),
		     (uint64_t)-EPROTO);
	CHECK_TRUE("napi: nothing kept from it", !n.valid && n.n == 0);
}

int main(void)
{
	test_queues();
	test_virtio_queues();
	test_napis();
	return check_exit_code();
}
