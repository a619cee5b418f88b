/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* What the tests of the NIC readers (test_nic_parse_*.c) share: the recorded replies,
 * the facts they fill, a buffer to damage a copy of a fixture in or build a message by
 * hand, and the ethtool -S lists' arguments. */
#ifndef PATHSCOPE_TESTS_UNIT_NIC_PARSE_H
#define PATHSCOPE_TESTS_UNIT_NIC_PARSE_H

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
#include "tests/unit/nic_fixtures_estats.h"
#include "tests/unit/nic_fixtures_ethtool.h"
#include "tests/unit/nic_fixtures_netdev.h"
#include "tests/unit/nic_fixtures_rtnl.h"

/* Every value is asserted exactly; n/a must stay PS_NA, never 0. */
#define CHECK_NA(name, got) CHECK_EQ_U64(name, got, PS_NA)

static struct ps_nic_facts f __attribute__((unused));
static unsigned char buf[8192] __attribute__((unused));

/* A copy of a fixture in buf, to damage. */
static inline size_t copy(const unsigned char *fx, size_t len)
{
	memcpy(buf, fx, len);
	return len;
}

/* The first attribute of type in the first message of buf (after a genl
 * header when genl is set), found with libmnl. */
static inline struct nlattr *find_attr(bool genl, uint16_t type)
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

/* An ethtool -S fixture as ps_nic_parse_estats() takes it. */
#define ESTATS(fx) \
	(const char *)fx##_names, PS_ARRAY_N(fx##_names), fx##_vals, PS_ARRAY_N(fx##_vals)
#define PS_ARRAY_N(a) (sizeof(a) / sizeof((a)[0]))

static inline const struct ps_nic_equeue *equeue(enum ps_nic_qtype t, uint32_t id)
{
	return ps_nic_find_equeue(&f, t, id);
}

#endif /* PATHSCOPE_TESTS_UNIT_NIC_PARSE_H */
