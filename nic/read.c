// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* NIC facts: read each part from its source; a part that fails is n/a, not fatal. */
#include "nic/read.h"

#include <errno.h>
#include <linux/netlink.h>
#include <stdlib.h>
#include <string.h>

#include "nic/ethtool.h"
#include "nic/ethtool_stats.h"
#include "nic/netdev.h"
#include "nic/netlink.h"
#include "nic/rtnl.h"
#include "lib/util.h"

int ps_nic_read(int ifindex, struct ps_nic_facts *f)
{
	struct ps_nl nl;
	int err;

	ps_nic_init(f, ifindex);
	err = ps_nl_open(&nl, NETLINK_ROUTE);
	if (err)
		return ps_error("cannot open a netlink socket: %s", strerror(-err));
	err = ps_nic_read_link(&nl, f);
	ps_nl_close(&nl);
	if (err == -ENODEV)
		return ps_error("no interface with index %d (in this network namespace)", ifindex);
	if (err)
		return ps_error("cannot read interface %d over netlink: %s", ifindex,
				strerror(-err));
	ps_nic_read_estats(f);

	err = ps_nl_open(&nl, NETLINK_GENERIC);
	if (err) {
		ps_nic_why(f->channels.why, sizeof(f->channels.why), "generic netlink", err);
		snprintf(f->rings.why, sizeof(f->rings.why), "%s", f->channels.why);
		snprintf(f->features.why, sizeof(f->features.why), "%s", f->channels.why);
		snprintf(f->queues.why, sizeof(f->queues.why), "%s", f->channels.why);
		snprintf(f->queues.qstats_why, sizeof(f->queues.qstats_why), "%s", f->channels.why);
		return 0;
	}
	ps_nic_read_ethtool(&nl, f);
	ps_nic_read_netdev(&nl, f);
	ps_nl_close(&nl);
	return 0;
}
