// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The netlink parsers of stats/nic_*.c on replies recorded from a 4-queue veth
 * and a virtio_net NIC (nic_fixtures.h), and on damaged or hand-made variants:
 * a message cut short, attributes cut short, of a wrong length or of unknown
 * types. The ethtool -S name mapping (nic/ethtool_stats.c) on virtio_net's,
 * veth's and e1000's lists, on hand-made names of every pattern and near
 * misses, and on names and values that do not agree. Every value is asserted
 * exactly; n/a must stay PS_NA, never 0.
 */
#include <errno.h>
#include <json-c/json.h>
#include <libmnl/libmnl.h>
#include <linux/ethtool_netlink.h>
#include <linux/genetlink.h>
#include <linux/if_link.h>
#include <linux/rtnetlink.h>
#include <stdlib.h>

#include "tests/lib/check.h"
#include "lib/compat.h"
#include "nic/read.h"
#include "stats/render/nic_report.h"
#include "nic/parse.h"
#include "tests/unit/nic_fixtures.h"

#define CHECK_NA(name, got) CHECK_EQ_U64(name, got, PS_NA)

static struct ps_nic_facts f;
static unsigned char buf[8192];

/* A copy of a fixture in buf, to damage. */
static size_t copy(const unsigned char *fx, size_t len)
{
	memcpy(buf, fx, len);
	return len;
}

/* The first attribute of type in the first message of buf (after a genl
 * header when genl is set), found with libmnl. */
static struct nlattr *find_attr(bool genl, uint16_t type)
{
	struct nlmsghdr *nlh = (struct nlmsghdr *)buf;
	struct nlattr *attr;

	mnl_attr_for_each(attr, nlh, genl ? GENL_HDRLEN : sizeof(struct ifinfomsg))
	{
		if (mnl_attr_get_type(attr) == type)
			return attr;
	}
	return NULL;
}

static void test_family(void)
{
	uint16_t id = 0;

	CHECK_EQ_U64("family: parse",
		     ps_nl_parse_family(fx_family_ethtool, sizeof(fx_family_ethtool), &id), 1);
	CHECK_EQ_U64("family: ethtool id", id, 21);
	/* a kernel without the family answers ENOENT */
	{
		struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
		struct nlmsgerr *e = mnl_nlmsg_put_extra_header(nlh, sizeof(*e));

		nlh->nlmsg_type = NLMSG_ERROR;
		e->error = -ENOENT;
		CHECK_EQ_U64("family: unknown family", ps_nl_parse_family(buf, nlh->nlmsg_len, &id),
			     (uint64_t)-ENOENT);
	}
	CHECK_EQ_U64("family: channels reply is not a family reply",
		     ps_nl_parse_family(fx_veth_channels, sizeof(fx_veth_channels), &id),
		     (uint64_t)-EPROTO);
}

static void test_link(void)
{
	ps_nic_init(&f, 0);
	CHECK_EQ_U64("link: parse", ps_nic_parse_link(fx_veth_link, sizeof(fx_veth_link), &f), 1);
	CHECK_EQ_U64("link: ifindex", f.ifindex, 2);
	CHECK_TRUE("link: ifname vA", strcmp(f.ifname, "vA") == 0);
	CHECK_TRUE("link: valid and up", f.link.valid && f.link.up);
	CHECK_EQ_U64("link: rx_packets", f.link.v[PS_LINK_RX_PACKETS], 6);
	CHECK_EQ_U64("link: tx_packets", f.link.v[PS_LINK_TX_PACKETS], 9);
	CHECK_EQ_U64("link: rx_bytes", f.link.v[PS_LINK_RX_BYTES], 516);
	CHECK_EQ_U64("link: tx_bytes", f.link.v[PS_LINK_TX_BYTES], 762);
	CHECK_EQ_U64("link: rx_crc_errors", f.link.v[PS_LINK_RX_CRC_ERRORS], 0);
	CHECK_EQ_U64("link: rx_nohandler (6.18 sends 25 counters)", f.link.v[PS_LINK_RX_NOHANDLER],
		     0);
	CHECK_EQ_U64("link: rx_otherhost_dropped", f.link.v[PS_LINK_RX_OTHERHOST_DROPPED], 0);

	/* A netlink error reply (here: -ENODEV, as for an unknown ifindex). */
	{
		struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
		struct nlmsgerr *e = mnl_nlmsg_put_extra_header(nlh, sizeof(*e));

		nlh->nlmsg_type = NLMSG_ERROR;
		e->error = -ENODEV;
		ps_nic_init(&f, 0);
		CHECK_EQ_U64("link: error reply", ps_nic_parse_link(buf, nlh->nlmsg_len, &f),
			     (uint64_t)-ENODEV);
		CHECK_TRUE("link: error reply leaves link n/a", !f.link.valid);
		/* ... and one too short to hold a struct nlmsgerr */
		nlh->nlmsg_len = NLMSG_HDRLEN + 8;
		CHECK_EQ_U64("link: short error reply", ps_nic_parse_link(buf, nlh->nlmsg_len, &f),
			     (uint64_t)-EBADMSG);
	}
}

/* RTM_NEWLINK with IFLA_STATS64 of nfields counters 1, 2, 3, ... */
static size_t link_msg(unsigned int nfields)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct ifinfomsg *ifm = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifm));
	uint64_t v[32];
	unsigned int i;

	nlh->nlmsg_type = RTM_NEWLINK;
	ifm->ifi_index = 7;
	for (i = 0; i < nfields; i++)
		v[i] = i + 1;
	mnl_attr_put_strz(nlh, IFLA_IFNAME, "old0");
	mnl_attr_put(nlh, IFLA_STATS64, nfields * sizeof(v[0]), v);
	mnl_attr_put_u32(nlh, 999, 1); /* unknown: skipped */
	return nlh->nlmsg_len;
}

static void test_link_versions(void)
{
	size_t len;

	ps_nic_init(&f, 0);
	len = link_msg(23); /* Linux < 4.6: no rx_nohandler */
	CHECK_EQ_U64("link 23 counters: parse", ps_nic_parse_link(buf, len, &f), 1);
	CHECK_TRUE("link 23 counters: valid, not up", f.link.valid && !f.link.up);
	CHECK_EQ_U64("link 23 counters: ifindex", f.ifindex, 7);
	CHECK_EQ_U64("link 23 counters: rx_packets", f.link.v[PS_LINK_RX_PACKETS], 1);
	CHECK_EQ_U64("link 23 counters: tx_compressed", f.link.v[PS_LINK_TX_COMPRESSED], 23);
	CHECK_NA("link 23 counters: rx_nohandler n/a", f.link.v[PS_LINK_RX_NOHANDLER]);
	CHECK_NA("link 23 counters: rx_otherhost_dropped n/a",
		 f.link.v[PS_LINK_RX_OTHERHOST_DROPPED]);

	ps_nic_init(&f, 0);
	len = link_msg(30); /* a future kernel: the extra counters are ignored */
	CHECK_EQ_U64("link 30 counters: parse", ps_nic_parse_link(buf, len, &f), 1);
	CHECK_EQ_U64("link 30 counters: rx_otherhost_dropped",
		     f.link.v[PS_LINK_RX_OTHERHOST_DROPPED], 25);

	ps_nic_init(&f, 0);
	len = link_msg(12); /* not a stats64 at all */
	CHECK_EQ_U64("link 12 counters: parse", ps_nic_parse_link(buf, len, &f), 1);
	CHECK_TRUE("link 12 counters: link n/a", !f.link.valid);
	CHECK_NA("link 12 counters: rx_packets n/a", f.link.v[PS_LINK_RX_PACKETS]);
	CHECK_TRUE("link 12 counters: ifname still read", strcmp(f.ifname, "old0") == 0);
}

static void test_channels(void)
{
	struct ps_nic_channels *c = &f.channels;
	struct nlattr *a;
	size_t len;

	ps_nic_init(&f, 0);
	CHECK_EQ_U64("veth channels: parse",
		     ps_nic_parse_channels(fx_veth_channels, sizeof(fx_veth_channels), c), 1);
	CHECK_TRUE("veth channels: valid", c->valid);
	CHECK_EQ_U64("veth channels: rx", c->rx, 4);
	CHECK_EQ_U64("veth channels: rx_max", c->rx_max, 4);
	CHECK_EQ_U64("veth channels: tx", c->tx, 4);
	CHECK_EQ_U64("veth channels: tx_max", c->tx_max, 4);
	CHECK_NA("veth channels: other n/a", c->other);
	CHECK_NA("veth channels: other_max n/a", c->other_max);
	CHECK_NA("veth channels: combined n/a", c->combined);
	CHECK_NA("veth channels: combined_max n/a", c->combined_max);

	ps_nic_init(&f, 0);
	CHECK_EQ_U64("virtio channels: parse",
		     ps_nic_parse_channels(fx_virtio_channels, sizeof(fx_virtio_channels), c), 1);
	CHECK_EQ_U64("virtio channels: combined", c->combined, 1);
	CHECK_EQ_U64("virtio channels: combined_max", c->combined_max, 1);
	CHECK_NA("virtio channels: rx n/a", c->rx);
	CHECK_NA("virtio channels: tx_max n/a", c->tx_max);

	/* cut short: the buffer ends before the message does */
	ps_nic_init(&f, 0);
	CHECK_EQ_U64("channels cut short: EBADMSG",
		     ps_nic_parse_channels(fx_veth_channels, sizeof(fx_veth_channels) - 4, c),
		     (uint64_t)-EBADMSG);
	CHECK_TRUE("channels cut short: n/a", !c->valid && c->rx == PS_NA);
	CHECK_EQ_U64("channels 10 bytes: EBADMSG", ps_nic_parse_channels(fx_veth_channels, 10, c),
		     (uint64_t)-EBADMSG);
	CHECK_EQ_U64("channels 0 bytes: EBADMSG", ps_nic_parse_channels(fx_veth_channels, 0, c),
		     (uint64_t)-EBADMSG);

	/* a message whose payload cannot hold its genl header */
	len = copy(fx_veth_channels, NLMSG_HDRLEN + 2);
	((struct nlmsghdr *)buf)->nlmsg_len = (uint32_t)len;
	CHECK_EQ_U64("channels without genl header: EBADMSG", ps_nic_parse_channels(buf, len, c),
		     (uint64_t)-EBADMSG);

	/* the last attribute (TX_COUNT) claims more bytes than the message has */
	len = copy(fx_veth_channels, sizeof(fx_veth_channels));
	a = find_attr(true, ETHTOOL_A_CHANNELS_TX_COUNT);
	CHECK_TRUE("channels: TX_COUNT is the last attribute",
		   a && (unsigned char *)a + 8 == buf + len);
	if (a) {
		a->nla_len = 12;
		ps_nic_init(&f, 0);
		CHECK_EQ_U64("channels attr past the end: parse",
			     ps_nic_parse_channels(buf, len, c), 1);
		CHECK_NA("channels attr past the end: tx ignored", c->tx);
		CHECK_EQ_U64("channels attr past the end: tx_max kept", c->tx_max, 4);
	}

	/* the message itself ends in the middle of that attribute */
	len = copy(fx_veth_channels, sizeof(fx_veth_channels));
	((struct nlmsghdr *)buf)->nlmsg_len = (uint32_t)len - 4;
	ps_nic_init(&f, 0);
	CHECK_EQ_U64("channels attr cut by nlmsg_len: parse",
		     ps_nic_parse_channels(buf, len - 4, c), 1);
	CHECK_NA("channels attr cut by nlmsg_len: tx ignored", c->tx);
	CHECK_EQ_U64("channels attr cut by nlmsg_len: rx kept", c->rx, 4);

	/* RX_MAX with a 2-byte payload: wrong length, ignored; the rest parses */
	len = copy(fx_veth_channels, sizeof(fx_veth_channels));
	a = find_attr(true, ETHTOOL_A_CHANNELS_RX_MAX);
	if (a)
		a->nla_len = 6;
	ps_nic_init(&f, 0);
	CHECK_EQ_U64("channels wrong length: parse", ps_nic_parse_channels(buf, len, c), 1);
	CHECK_NA("channels wrong length: rx_max n/a", c->rx_max);
	CHECK_EQ_U64("channels wrong length: rx kept", c->rx, 4);
	CHECK_EQ_U64("channels wrong length: tx kept", c->tx, 4);

	/* unknown attribute types appended: skipped */
	len = copy(fx_veth_channels, sizeof(fx_veth_channels));
	mnl_attr_put_u32((struct nlmsghdr *)buf, 77, 12345);
	mnl_attr_put_strz((struct nlmsghdr *)buf, 0x3fff, "future");
	len = ((struct nlmsghdr *)buf)->nlmsg_len;
	ps_nic_init(&f, 0);
	CHECK_EQ_U64("channels unknown attrs: parse", ps_nic_parse_channels(buf, len, c), 1);
	CHECK_EQ_U64("channels unknown attrs: rx_max", c->rx_max, 4);
	CHECK_NA("channels unknown attrs: combined n/a", c->combined);

	/* another command's reply */
	ps_nic_init(&f, 0);
	CHECK_EQ_U64("channels parser on a features reply: EPROTO",
		     ps_nic_parse_channels(fx_veth_features, sizeof(fx_veth_features), c),
		     (uint64_t)-EPROTO);
	CHECK_TRUE("channels parser on a features reply: n/a", !c->valid);
}

static void test_rings(void)
{
	struct ps_nic_rings *r = &f.rings;

	ps_nic_init(&f, 0);
	CHECK_EQ_U64("veth rings: EOPNOTSUPP",
		     ps_nic_parse_rings(fx_veth_rings, sizeof(fx_veth_rings), r),
		     (uint64_t)-EOPNOTSUPP);
	CHECK_TRUE("veth rings: n/a", !r->valid);
	CHECK_NA("veth rings: rx n/a", r->rx);
	CHECK_NA("veth rings: tx_max n/a", r->tx_max);

	ps_nic_init(&f, 0);
	CHECK_EQ_U64("virtio rings: parse",
		     ps_nic_parse_rings(fx_virtio_rings, sizeof(fx_virtio_rings), r), 1);
	CHECK_TRUE("virtio rings: valid", r->valid);
	CHECK_EQ_U64("virtio rings: rx", r->rx, 256);
	CHECK_EQ_U64("virtio rings: rx_max", r->rx_max, 256);
	CHECK_EQ_U64("virtio rings: tx", r->tx, 256);
	CHECK_EQ_U64("virtio rings: tx_max", r->tx_max, 256);
	CHECK_NA("virtio rings: rx_mini n/a", r->rx_mini);
	CHECK_NA("virtio rings: rx_jumbo_max n/a", r->rx_jumbo_max);
}

static void check_features(const char *what, enum ps_nic_onoff gro)
{
	const struct ps_nic_feature *x = f.features.f;
	char name[96];

	snprintf(name, sizeof(name), "%s: valid", what);
	CHECK_TRUE(name, f.features.valid);
	snprintf(name, sizeof(name), "%s: gro %s, not fixed", what,
		 gro == PS_NIC_ON ? "on" : "off");
	CHECK_TRUE(name, x[PS_NIC_F_GRO].state == gro && !x[PS_NIC_F_GRO].fixed);
	snprintf(name, sizeof(name), "%s: lro off [fixed]", what);
	CHECK_TRUE(name, x[PS_NIC_F_LRO].state == PS_NIC_OFF && x[PS_NIC_F_LRO].fixed);
	snprintf(name, sizeof(name), "%s: gso on", what);
	CHECK_TRUE(name, x[PS_NIC_F_GSO].state == PS_NIC_ON && !x[PS_NIC_F_GSO].fixed);
	snprintf(name, sizeof(name), "%s: tso on", what);
	CHECK_TRUE(name, x[PS_NIC_F_TSO].state == PS_NIC_ON && !x[PS_NIC_F_TSO].fixed);
	snprintf(name, sizeof(name), "%s: rx-hashing off [fixed]", what);
	CHECK_TRUE(name, x[PS_NIC_F_RXHASH].state == PS_NIC_OFF && x[PS_NIC_F_RXHASH].fixed);
}

/* FEATURES_GET_REPLY with an ACTIVE bitset in value/mask form (no NOMASK):
 * bits listed with or without the VALUE flag, and no HW set. */
static size_t features_msg(bool compact)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct genlmsghdr *g = mnl_nlmsg_put_extra_header(nlh, sizeof(*g));
	struct nlattr *set, *bits, *bit;
	static const struct {
		const char *name;
		bool value;
	} list[] = {
		{ "rx-gro", true },
		{ "rx-lro", false },
		{ "tx-tcp6-segmentation", true }, /* TSO: any of tx-tcp*-segmentation */
		{ "tx-generic-segmentation", false },
		{ "rx-some-future-feature", true },
	};
	unsigned int i;

	nlh->nlmsg_type = 21;
	g->cmd = ETHTOOL_MSG_FEATURES_GET_REPLY;
	set = mnl_attr_nest_start(nlh, ETHTOOL_A_FEATURES_ACTIVE);
	mnl_attr_put_u32(nlh, ETHTOOL_A_BITSET_SIZE, 64);
	if (compact) {
		uint32_t v[2] = { 0xffffffff, 0xffffffff };

		mnl_attr_put(nlh, ETHTOOL_A_BITSET_VALUE, sizeof(v), v);
		mnl_attr_put(nlh, ETHTOOL_A_BITSET_MASK, sizeof(v), v);
	} else {
		bits = mnl_attr_nest_start(nlh, ETHTOOL_A_BITSET_BITS);
		for (i = 0; i < sizeof(list) / sizeof(list[0]); i++) {
			bit = mnl_attr_nest_start(nlh, ETHTOOL_A_BITSET_BITS_BIT);
			mnl_attr_put_u32(nlh, ETHTOOL_A_BITSET_BIT_INDEX, i);
			mnl_attr_put_strz(nlh, ETHTOOL_A_BITSET_BIT_NAME, list[i].name);
			if (list[i].value)
				mnl_attr_put(nlh, ETHTOOL_A_BITSET_BIT_VALUE, 0, NULL);
			mnl_attr_nest_end(nlh, bit);
		}
		/* a bit whose name is not a string, and a bit that is not a nest */
		bit = mnl_attr_nest_start(nlh, ETHTOOL_A_BITSET_BITS_BIT);
		mnl_attr_put_u32(nlh, ETHTOOL_A_BITSET_BIT_NAME, 0x6f72782d);
		mnl_attr_nest_end(nlh, bit);
		mnl_attr_put_u8(nlh, ETHTOOL_A_BITSET_BITS_BIT, 1);
		mnl_attr_nest_end(nlh, bits);
	}
	mnl_attr_nest_end(nlh, set);
	return nlh->nlmsg_len;
}

static void test_features(void)
{
	struct ps_nic_features *ft = &f.features;
	size_t len;

	ps_nic_init(&f, 0);
	CHECK_EQ_U64("veth features: parse",
		     ps_nic_parse_features(fx_veth_features, sizeof(fx_veth_features), ft), 1);
	check_features("veth features", PS_NIC_ON);

	ps_nic_init(&f, 0);
	len = features_msg(false);
	CHECK_EQ_U64("features value/mask: parse", ps_nic_parse_features(buf, len, ft), 1);
	CHECK_TRUE("features value/mask: valid", ft->valid);
	CHECK_TRUE("features value/mask: gro on (VALUE flag)",
		   ft->f[PS_NIC_F_GRO].state == PS_NIC_ON);
	CHECK_TRUE("features value/mask: lro off (no VALUE flag)",
		   ft->f[PS_NIC_F_LRO].state == PS_NIC_OFF);
	CHECK_TRUE("features value/mask: tso on from tx-tcp6-segmentation",
		   ft->f[PS_NIC_F_TSO].state == PS_NIC_ON);
	CHECK_TRUE("features value/mask: gso off", ft->f[PS_NIC_F_GSO].state == PS_NIC_OFF);
	CHECK_TRUE("features value/mask: no hw set, so nothing is called fixed",
		   !ft->f[PS_NIC_F_GRO].fixed && !ft->f[PS_NIC_F_LRO].fixed);

	ps_nic_init(&f, 0);
	len = features_msg(true);
	CHECK_EQ_U64("features compact: parse", ps_nic_parse_features(buf, len, ft), 1);
	CHECK_TRUE("features compact: n/a with a reason", !ft->valid && *ft->why);
	CHECK_TRUE("features compact: gro n/a", ft->f[PS_NIC_F_GRO].state == PS_NIC_NA);

	/* The recorded reply with nlmsg_len cut: in the ACTIVE bitset (attribute
	 * 4 at bytes 3388-4391), then before NOCHANGE (attribute 5). */
	len = copy(fx_veth_features, sizeof(fx_veth_features));
	((struct nlmsghdr *)buf)->nlmsg_len = 4001;
	ps_nic_init(&f, 0);
	CHECK_EQ_U64("features cut in ACTIVE: parse", ps_nic_parse_features(buf, 4004, ft), 1);
	CHECK_TRUE("features cut in ACTIVE: n/a with a reason", !ft->valid && *ft->why);
	CHECK_EQ_U64("features cut in ACTIVE, buffer shorter than nlmsg_len: EBADMSG",
		     ps_nic_parse_features(buf, 4000, ft), (uint64_t)-EBADMSG);
	((struct nlmsghdr *)buf)->nlmsg_len = 4392;
	ps_nic_init(&f, 0);
	CHECK_EQ_U64("features without NOCHANGE: parse", ps_nic_parse_features(buf, 4392, ft), 1);
	check_features("features without NOCHANGE", PS_NIC_ON);
}

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

/* The JSON of the veth facts: n/a as null, never 0. */
static void test_json(void)
{
	json_object *o, *x, *q0;

	ps_nic_init(&f, 0);
	ps_nic_parse_link(fx_veth_link, sizeof(fx_veth_link), &f);
	ps_nic_parse_channels(fx_veth_channels, sizeof(fx_veth_channels), &f.channels);
	ps_nic_parse_rings(fx_veth_rings, sizeof(fx_veth_rings), &f.rings);
	snprintf(f.rings.why, sizeof(f.rings.why), "EOPNOTSUPP: not supported by the driver");
	ps_nic_parse_features(fx_veth_features, sizeof(fx_veth_features), &f.features);
	ps_nic_parse_queues(fx_veth_queues, sizeof(fx_veth_queues), 2, &f.queues);
	ps_nic_queues_sort(&f.queues);
	o = ps_nic_json(&f);

	CHECK_TRUE("json: rings null", json_object_object_get_ex(o, "rings", &x) &&
					   json_object_is_type(x, json_type_null));
	CHECK_TRUE("json: rings_na is the reason",
		   json_object_object_get_ex(o, "rings_na", &x) &&
		       strcmp(json_object_get_string(x), f.rings.why) == 0);
	CHECK_TRUE("json: channels.other null", json_object_object_get_ex(o, "channels", &x) &&
						    json_object_object_get_ex(x, "other", &x) &&
						    x == NULL);
	CHECK_TRUE("json: channels.rx_max 4", json_object_object_get_ex(o, "channels", &x) &&
						  json_object_object_get_ex(x, "rx_max", &x) &&
						  json_object_get_int(x) == 4);
	CHECK_TRUE("json: features.gro.state on", json_object_object_get_ex(o, "features", &x) &&
						      json_object_object_get_ex(x, "gro", &x) &&
						      json_object_object_get_ex(x, "state", &x) &&
						      strcmp(json_object_get_string(x), "on") == 0);
	CHECK_TRUE("json: 8 queues",
		   json_object_object_get_ex(o, "queues", &x) && json_object_array_length(x) == 8);
	q0 = json_object_array_get_idx(x, 0);
	CHECK_TRUE("json: queue napi_id null",
		   json_object_object_get_ex(q0, "napi_id", &x) && x == NULL);
	CHECK_TRUE("json: queue qstats null",
		   json_object_object_get_ex(q0, "qstats", &x) && x == NULL);
	CHECK_TRUE("json: link rx_packets 6", json_object_object_get_ex(o, "link", &x) &&
						  json_object_object_get_ex(x, "rx_packets", &x) &&
						  json_object_get_int(x) == 6);
	json_object_put(o);

	/* The table says n/a where JSON says null. */
	{
		char *text = NULL;
		size_t len = 0;
		FILE *m = open_memstream(&text, &len);

		ps_nic_print(m, &f);
		fclose(m);
		CHECK_TRUE("table: rings n/a with the reason",
			   strstr(text, "rings:    n/a (EOPNOTSUPP: not supported by the driver)"));
		CHECK_TRUE("table: channels",
			   strstr(text, "channels: rx 4 (max 4), tx 4 (max 4), other n/a, "
					"combined n/a"));
		CHECK_TRUE("table: features",
			   strstr(text, "features: gro on, lro off [fixed], gso on, tso on, "
					"rx-hashing off [fixed]"));
		free(text);
	}
	ps_nic_free(&f);
}

/* Every prefix of every recording, and every recording with one byte
 * inverted, through every parser: each returns an error or parses, and never
 * reads outside the buffer (run under ASan to see that part). */
static int parse_any(int which, const unsigned char *b, size_t len)
{
	switch (which) {
	case 0:
		return ps_nic_parse_link(b, len, &f);
	case 1:
		return ps_nic_parse_channels(b, len, &f.channels);
	case 2:
		return ps_nic_parse_rings(b, len, &f.rings);
	case 3:
		return ps_nic_parse_features(b, len, &f.features);
	case 4:
		return ps_nic_parse_queues(b, len, 4, &f.queues);
	default:
		return ps_nic_parse_qstats(b, len, 4, &f.queues);
	}
}

static void test_damage(void)
{
	static const struct {
		const char *name;
		const unsigned char *b;
		size_t len;
		bool single; /* one message: every shorter prefix cuts it */
	} fx[] = {
		{ "veth link", fx_veth_link, sizeof(fx_veth_link), true },
		{ "veth channels", fx_veth_channels, sizeof(fx_veth_channels), true },
		{ "veth rings", fx_veth_rings, sizeof(fx_veth_rings), true },
		{ "veth features", fx_veth_features, sizeof(fx_veth_features), true },
		{ "veth queues", fx_veth_queues, sizeof(fx_veth_queues), false },
		{ "virtio qstats", fx_virtio_qstats, sizeof(fx_virtio_qstats), false },
	};
	unsigned int i, bad;
	size_t len, pos;
	int p, ret;
	char name[96];

	for (i = 0; i < sizeof(fx) / sizeof(fx[0]); i++) {
		bad = 0;
		for (p = 0; p < 6; p++) {
			for (len = 0; len <= fx[i].len; len++) {
				unsigned char *b = malloc(len ? len : 1); /* exact size for ASan */

				memcpy(b, fx[i].b, len);
				ps_nic_init(&f, 0);
				ret = parse_any(p, b, len);
				bad += ret > 1 || (ret >= 0 && len < fx[i].len && fx[i].single);
				ps_nic_free(&f);
				free(b);
			}
			for (pos = 0; pos < fx[i].len; pos++) {
				copy(fx[i].b, fx[i].len);
				buf[pos] ^= 0xff;
				ps_nic_init(&f, 0);
				bad += parse_any(p, buf, fx[i].len) > 1;
				ps_nic_free(&f);
			}
		}
		snprintf(name, sizeof(name),
			 "%s: every prefix (a cut message is an error) and every inverted byte, "
			 "6 parsers",
			 fx[i].name);
		CHECK_EQ_U64(name, bad, 0);
	}
}

/* ---- ethtool -S ------------------------------------------------------------ */

#define ESTATS(fx) \
	(const char *)fx##_names, PS_ARRAY_N(fx##_names), fx##_vals, PS_ARRAY_N(fx##_vals)
#define PS_ARRAY_N(a) (sizeof(a) / sizeof((a)[0]))

static const struct ps_nic_equeue *equeue(enum ps_nic_qtype t, uint32_t id)
{
	return ps_nic_find_equeue(&f, t, id);
}

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

/* `nic --json` and the table: the ethtool -S part, n/a as null with the reason. */
static void test_estats_output(void)
{
	json_object *o, *x, *q;
	char *text = NULL;
	size_t len = 0;
	FILE *m;

	ps_nic_init(&f, 2);
	ps_nic_parse_estats(ESTATS(fx_veth_estats), &f.estats);
	o = ps_nic_json(&f);
	CHECK_TRUE("json: ethtool_stats of 4 queues",
		   json_object_object_get_ex(o, "ethtool_stats", &x) &&
		       json_object_array_length(x) == 4);
	q = json_object_array_get_idx(x, 2);
	CHECK_TRUE("json: rx 2 xdp_packets 2, packets null",
		   q && json_object_object_get_ex(q, "xdp_packets", &x) &&
		       json_object_get_int(x) == 2 && json_object_object_get_ex(q, "packets", &x) &&
		       x == NULL && json_object_object_get_ex(q, "type", &x) &&
		       strcmp(json_object_get_string(x), "rx") == 0);
	CHECK_TRUE("json: ethtool_stats_na null",
		   json_object_object_get_ex(o, "ethtool_stats_na", &x) && x == NULL);
	json_object_put(o);
	m = open_memstream(&text, &len);
	ps_nic_print(m, &f);
	fclose(m);
	CHECK_TRUE("table: ethtool line",
		   strstr(text, "ethtool:  per-queue counters of ethtool -S: 4 rx, 0 tx (of 37 "
				"counters)\n"));
	CHECK_TRUE("table: rx-0 row", strstr(text, "\n  rx-0               n/a              n/a "
						   "             4          0\n"));
	free(text);
	ps_nic_free(&f);

	ps_nic_init(&f, 3);
	ps_nic_parse_estats(ESTATS(fx_e1000_estats), &f.estats);
	o = ps_nic_json(&f);
	CHECK_TRUE("json e1000: ethtool_stats null",
		   json_object_object_get_ex(o, "ethtool_stats", &x) && x == NULL);
	CHECK_TRUE("json e1000: ethtool_stats_na the reason",
		   json_object_object_get_ex(o, "ethtool_stats_na", &x) &&
		       strcmp(json_object_get_string(x), f.estats.why) == 0);
	json_object_put(o);
	text = NULL;
	m = open_memstream(&text, &len);
	ps_nic_print(m, &f);
	fclose(m);
	CHECK_TRUE("table e1000: n/a with the reason",
		   strstr(text, "ethtool:  n/a (ethtool -S: 46 counters, none per queue by a "
				"known name)\n"));
	free(text);
	ps_nic_free(&f);
}

int main(void)
{
	test_family();
	test_link();
	test_link_versions();
	test_channels();
	test_rings();
	test_features();
	test_queues();
	test_virtio_queues();
	test_json();
	test_damage();
	test_estats_virtio();
	test_estats_veth();
	test_estats_e1000();
	test_estats_patterns();
	test_estats_damage();
	test_driver_queue();
	test_estats_output();
	return check_exit_code();
}
