// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Link counters: rtnetlink RTM_GETLINK, IFLA_STATS64 (struct rtnl_link_stats64). */
#include <errno.h>
#include <linux/if_link.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <stdio.h>
#include <string.h>

#include "nic/rtnl.h"

/* Every kernel since 2.6.35 sends at least these 23 counters. */
#define STATS64_MIN_FIELDS 23

static void parse_stats64(const struct nlattr *attr, struct ps_nic_link *l)
{
	const char *p = mnl_attr_get_payload(attr);
	size_t len = mnl_attr_get_payload_len(attr), i;

	if (mnl_attr_validate(attr, MNL_TYPE_BINARY) < 0 ||
	    len < STATS64_MIN_FIELDS * sizeof(uint64_t))
		return;
	/* Older kernels send a shorter struct: the missing tail stays n/a. */
	for (i = 0; i < PS_LINK_COUNT && (i + 1) * sizeof(uint64_t) <= len; i++)
		memcpy(&l->v[i], p + i * sizeof(uint64_t), sizeof(uint64_t));
	l->valid = true;
}

static int link_attr_cb(const struct nlattr *attr, void *data)
{
	struct ps_nic_facts *f = data;

	switch (mnl_attr_get_type(attr)) {
	case IFLA_IFNAME:
		if (mnl_attr_validate(attr, MNL_TYPE_NUL_STRING) == 0)
			snprintf(f->ifname, sizeof(f->ifname), "%s", mnl_attr_get_str(attr));
		break;
	case IFLA_STATS64:
		parse_stats64(attr, &f->link);
		break;
	}
	return MNL_CB_OK;
}

static int link_msg_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct ifinfomsg *ifm;
	struct ps_nic_facts *f = data;

	if (nlh->nlmsg_type != RTM_NEWLINK) {
		errno = EPROTO;
		return MNL_CB_ERROR;
	}
	if (mnl_nlmsg_get_payload_len(nlh) < sizeof(*ifm)) {
		errno = EBADMSG;
		return MNL_CB_ERROR;
	}
	ifm = mnl_nlmsg_get_payload(nlh);
	f->ifindex = ifm->ifi_index;
	f->link.up = ifm->ifi_flags & IFF_UP;
	return mnl_attr_parse(nlh, sizeof(*ifm), link_attr_cb, f);
}

int ps_nic_parse_link(const void *buf, size_t len, struct ps_nic_facts *f)
{
	return ps_nl_run(buf, len, link_msg_cb, f);
}

static int link_parse(const void *buf, size_t len, void *data)
{
	return ps_nic_parse_link(buf, len, data);
}

int ps_nic_read_link(struct ps_nl *rt, struct ps_nic_facts *f)
{
	struct nlmsghdr *nlh = ps_nl_req(rt, RTM_GETLINK, 0);
	struct ifinfomsg *ifm = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifm));
	int ifindex = f->ifindex, err;

	ifm->ifi_family = AF_UNSPEC;
	ifm->ifi_index = ifindex;
	f->ifindex = 0;
	err = ps_nl_talk(rt, nlh, link_parse, f);
	if (!err && f->ifindex != ifindex)
		err = -ENODEV;
	if (err)
		return err;
	if (!f->link.valid)
		snprintf(f->link.why, sizeof(f->link.why), "no IFLA_STATS64 in the kernel's reply");
	return 0;
}
