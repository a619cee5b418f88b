// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The rtnetlink reader (nic/rtnl.c, ps_nic_parse_link) on a veth's recorded RTM_NEWLINK,
 * error replies and hand-made messages of older and newer kernels (23, 30 and 12
 * counters in IFLA_STATS64). Every value exact; n/a must stay PS_NA, never 0. */
#include "tests/unit/nic_parse.h"

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

int main(void)
{
	test_link();
	test_link_versions();
	return check_exit_code();
}
