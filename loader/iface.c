// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Interface facts from rtnetlink (libmnl), read-only (iface.h). */
#include "loader/iface.h"

#include <errno.h>
#include <libmnl/libmnl.h>
#include <linux/if_arp.h>
#include <linux/rtnetlink.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "lib/util.h"

static int linkinfo_attr_cb(const struct nlattr *attr, void *data)
{
	struct ps_iface *ifc = data;

	if (mnl_attr_get_type(attr) == IFLA_INFO_KIND &&
	    mnl_attr_validate(attr, MNL_TYPE_STRING) == 0)
		snprintf(ifc->kind, sizeof(ifc->kind), "%.*s", (int)mnl_attr_get_payload_len(attr),
			 mnl_attr_get_str(attr));
	return MNL_CB_OK;
}

static int link_attr_cb(const struct nlattr *attr, void *data)
{
	struct ps_iface *ifc = data;

	switch (mnl_attr_get_type(attr)) {
	case IFLA_IFNAME:
		if (mnl_attr_validate(attr, MNL_TYPE_NUL_STRING) == 0)
			snprintf(ifc->name, sizeof(ifc->name), "%s", mnl_attr_get_str(attr));
		break;
	case IFLA_NUM_RX_QUEUES:
		if (mnl_attr_validate(attr, MNL_TYPE_U32) == 0)
			ifc->num_rx_queues = mnl_attr_get_u32(attr);
		break;
	case IFLA_NUM_TX_QUEUES:
		if (mnl_attr_validate(attr, MNL_TYPE_U32) == 0)
			ifc->num_tx_queues = mnl_attr_get_u32(attr);
		break;
	case IFLA_LINKINFO:
		mnl_attr_parse_nested(attr, linkinfo_attr_cb, ifc);
		break;
	case IFLA_MTU:
		if (mnl_attr_validate(attr, MNL_TYPE_U32) == 0)
			ifc->mtu = mnl_attr_get_u32(attr);
		break;
	}
	return MNL_CB_OK;
}

static int link_msg_cb(const struct nlmsghdr *nlh, void *data)
{
	struct ifinfomsg *ifm = mnl_nlmsg_get_payload(nlh);
	struct ps_iface *ifc = data;

	ifc->ifindex = ifm->ifi_index;
	ifc->type = ifm->ifi_type;
	ifc->up = ifm->ifi_flags & IFF_UP;
	return mnl_attr_parse(nlh, sizeof(*ifm), link_attr_cb, ifc);
}

int ps_iface_get(const char *name, int ifindex, struct ps_iface *out)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct mnl_socket *nl;
	struct nlmsghdr *nlh;
	struct ifinfomsg *ifm;
	unsigned int seq = (unsigned int)time(NULL), portid;
	int ret;

	memset(out, 0, sizeof(*out));
	if (name && (!*name || strlen(name) >= IF_NAMESIZE))
		return -ENODEV;

	/* libmnl 1.0.4 does not clear attribute padding: the request is sent
	 * from a zeroed buffer (valgrind: uninitialised bytes in sendto). */
	memset(buf, 0, MNL_ALIGN(sizeof(struct nlmsghdr)) + 256);
	nlh = mnl_nlmsg_put_header(buf);
	nlh->nlmsg_type = RTM_GETLINK;
	nlh->nlmsg_flags = NLM_F_REQUEST;
	nlh->nlmsg_seq = seq;
	ifm = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifm));
	ifm->ifi_family = AF_UNSPEC;
	ifm->ifi_index = name ? 0 : ifindex;
	if (name)
		mnl_attr_put_strz(nlh, IFLA_IFNAME, name);
	mnl_attr_put_u32(nlh, IFLA_EXT_MASK, RTEXT_FILTER_SKIP_STATS);

	nl = mnl_socket_open(NETLINK_ROUTE);
	if (!nl)
		return -errno;
	if (mnl_socket_bind(nl, 0, MNL_SOCKET_AUTOPID) < 0) {
		ret = -errno;
		goto out;
	}
	portid = mnl_socket_get_portid(nl);
	if (mnl_socket_sendto(nl, nlh, nlh->nlmsg_len) < 0) {
		ret = -errno;
		goto out;
	}
	ret = mnl_socket_recvfrom(nl, buf, sizeof(buf));
	if (ret < 0) {
		ret = -errno;
		goto out;
	}
	ret = mnl_cb_run(buf, ret, seq, portid, link_msg_cb, out);
	ret = ret < 0 ? (errno == ENODEV ? -ENODEV : -errno) : 0;
	if (ret == 0 && out->ifindex <= 0)
		ret = -ENODEV;
out:
	mnl_socket_close(nl);
	return ret;
}

int ps_iface_require_ethernet(const char *name, struct ps_iface *out)
{
	int err = ps_iface_get(name, 0, out);

	if (err == -ENODEV)
		return ps_error_unknown_iface(name);
	if (err)
		return ps_error("cannot read interface '%s' over netlink: %s", name,
				strerror(-err));
	if (out->type != ARPHRD_ETHER)
		return ps_error("interface '%s' has no Ethernet framing (link type %u): pathscope "
				"parses Ethernet frames only",
				name, out->type);
	return 0;
}
