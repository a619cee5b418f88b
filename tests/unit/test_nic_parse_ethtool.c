// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The ethtool netlink readers (nic/ethtool.c): the family lookup and
 * CHANNELS/RINGS/FEATURES/COALESCE_GET on recorded, damaged and hand-made replies.
 * Every value is asserted exactly; n/a must stay PS_NA, never 0. */
#include "tests/unit/nic_parse.h"

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

/* A COALESCE_GET reply built by hand as the kernel writes it: the header
 * nest, then only what the driver supports. virtio_net 6.18's (ethtool -c
 * on this VM's eth0: rx-usecs 0, rx-frames 1, adaptive-rx off, tx-usecs 0,
 * tx-frames 1, no adaptive-tx); with irq set, a driver's that has the IRQ
 * values and adaptive RX and TX on (rx-usecs 50, rx-usecs-irq 8, tx-usecs
 * 100, tx-frames-irq 4); with damaged set, rx-usecs written as a u16 and
 * adaptive-rx as a u32 (both of a wrong length: n/a). */
static size_t coalesce_msg(bool irq, bool damaged)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct genlmsghdr *g = mnl_nlmsg_put_extra_header(nlh, sizeof(*g));
	struct nlattr *hdr;

	nlh->nlmsg_type = 21;
	g->cmd = ETHTOOL_MSG_COALESCE_GET_REPLY;
	hdr = mnl_attr_nest_start(nlh, ETHTOOL_A_COALESCE_HEADER);
	mnl_attr_put_u32(nlh, ETHTOOL_A_HEADER_DEV_INDEX, 2);
	mnl_attr_put_strz(nlh, ETHTOOL_A_HEADER_DEV_NAME, "eth0");
	mnl_attr_nest_end(nlh, hdr);
	if (damaged)
		mnl_attr_put_u16(nlh, ETHTOOL_A_COALESCE_RX_USECS, 3);
	else
		mnl_attr_put_u32(nlh, ETHTOOL_A_COALESCE_RX_USECS, irq ? 50 : 0);
	mnl_attr_put_u32(nlh, ETHTOOL_A_COALESCE_RX_MAX_FRAMES, 1);
	if (irq) {
		mnl_attr_put_u32(nlh, ETHTOOL_A_COALESCE_RX_USECS_IRQ, 8);
		mnl_attr_put_u32(nlh, ETHTOOL_A_COALESCE_TX_MAX_FRAMES_IRQ, 4);
	}
	mnl_attr_put_u32(nlh, ETHTOOL_A_COALESCE_TX_USECS, irq ? 100 : 0);
	mnl_attr_put_u32(nlh, ETHTOOL_A_COALESCE_TX_MAX_FRAMES, 1);
	if (damaged)
		mnl_attr_put_u32(nlh, ETHTOOL_A_COALESCE_USE_ADAPTIVE_RX, 1);
	else
		mnl_attr_put_u8(nlh, ETHTOOL_A_COALESCE_USE_ADAPTIVE_RX, irq);
	if (irq)
		mnl_attr_put_u8(nlh, ETHTOOL_A_COALESCE_USE_ADAPTIVE_TX, 1);
	return nlh->nlmsg_len;
}

static void test_coalesce(void)
{
	struct ps_nic_coalesce c;
	size_t len;

	ps_nic_coalesce_init(&c);
	len = coalesce_msg(false, false);
	CHECK_EQ_U64("virtio coalesce: parse", ps_nic_parse_coalesce(buf, len, &c), 1);
	CHECK_TRUE("virtio coalesce: valid", c.valid);
	CHECK_EQ_U64("virtio coalesce: rx-usecs 0 (not n/a)", c.rx_usecs, 0);
	CHECK_EQ_U64("virtio coalesce: rx-frames 1", c.rx_frames, 1);
	CHECK_EQ_U64("virtio coalesce: adaptive-rx off", c.adaptive_rx, 0);
	CHECK_EQ_U64("virtio coalesce: tx-usecs 0", c.tx_usecs, 0);
	CHECK_EQ_U64("virtio coalesce: tx-frames 1", c.tx_frames, 1);
	CHECK_NA("virtio coalesce: adaptive-tx n/a", c.adaptive_tx);
	CHECK_NA("virtio coalesce: rx-usecs-irq n/a", c.rx_usecs_irq);
	CHECK_NA("virtio coalesce: tx-frames-irq n/a", c.tx_frames_irq);

	ps_nic_coalesce_init(&c);
	len = coalesce_msg(true, false);
	CHECK_EQ_U64("irq coalesce: parse", ps_nic_parse_coalesce(buf, len, &c), 1);
	CHECK_TRUE("irq coalesce: rx-usecs 50, rx-usecs-irq 8, tx-usecs 100, tx-frames-irq 4",
		   c.rx_usecs == 50 && c.rx_usecs_irq == 8 && c.tx_usecs == 100 &&
		       c.tx_frames_irq == 4);
	CHECK_TRUE("irq coalesce: adaptive RX and TX on", c.adaptive_rx == 1 && c.adaptive_tx == 1);
	CHECK_NA("irq coalesce: rx-frames-irq n/a", c.rx_frames_irq);

	ps_nic_coalesce_init(&c);
	len = coalesce_msg(false, true);
	CHECK_EQ_U64("damaged coalesce: parse", ps_nic_parse_coalesce(buf, len, &c), 1);
	CHECK_NA("damaged coalesce: rx-usecs of 2 bytes n/a", c.rx_usecs);
	CHECK_NA("damaged coalesce: adaptive-rx of 4 bytes n/a", c.adaptive_rx);
	CHECK_EQ_U64("damaged coalesce: rx-frames still 1", c.rx_frames, 1);

	/* veth: no get_coalesce, the kernel answers EOPNOTSUPP */
	{
		struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
		struct nlmsgerr *e = mnl_nlmsg_put_extra_header(nlh, sizeof(*e));

		nlh->nlmsg_type = NLMSG_ERROR;
		e->error = -EOPNOTSUPP;
		ps_nic_coalesce_init(&c);
		CHECK_EQ_U64("veth coalesce: EOPNOTSUPP",
			     ps_nic_parse_coalesce(buf, nlh->nlmsg_len, &c), (uint64_t)-EOPNOTSUPP);
		CHECK_TRUE("veth coalesce: n/a", !c.valid && c.rx_usecs == PS_NA);
	}
	CHECK_EQ_U64("a rings reply is not a coalesce reply",
		     ps_nic_parse_coalesce(fx_virtio_rings, sizeof(fx_virtio_rings), &c),
		     (uint64_t)-EPROTO);
	len = coalesce_msg(false, false);
	CHECK_EQ_U64("coalesce cut short: EBADMSG", ps_nic_parse_coalesce(buf, len - 4, &c),
		     (uint64_t)-EBADMSG);
}

/* The replies recorded from a 4-queue veth and a virtio_net NIC
 * (tests/unit/nic_fixtures_ethtool.h), and on damaged or hand-made variants:
 * attributes cut short, of a wrong length or of unknown types, bitsets compact
 * and verbose. Every value is asserted exactly; n/a must stay PS_NA, never 0. */
int main(void)
{
	test_family();
	test_channels();
	test_rings();
	test_features();
	test_coalesce();
	return check_exit_code();
}
