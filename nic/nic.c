// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* NIC facts: read each part from its source; a part that fails is n/a, not fatal.
 * Where a driver's per-queue count comes from when two sources have it. */
#include "nic/nic.h"

#include <errno.h>
#include <linux/netlink.h>
#include <stdlib.h>
#include <string.h>

#include "nic/netlink.h"
#include "lib/util.h"

void ps_nic_channels_init(struct ps_nic_channels *c)
{
	memset(c, 0, sizeof(*c));
	c->rx = c->tx = c->other = c->combined = PS_NA;
	c->rx_max = c->tx_max = c->other_max = c->combined_max = PS_NA;
}

void ps_nic_init(struct ps_nic_facts *f, int ifindex)
{
	memset(f, 0, sizeof(*f));
	f->ifindex = ifindex;
	/* every counter starts n/a; a parser overwrites what the kernel sends */
	memset(f->link.v, 0xff, sizeof(f->link.v));
	ps_nic_channels_init(&f->channels);
	f->rings.rx = f->rings.rx_mini = f->rings.rx_jumbo = f->rings.tx = PS_NA;
	f->rings.rx_max = f->rings.rx_mini_max = f->rings.rx_jumbo_max = f->rings.tx_max = PS_NA;
}

void ps_nic_free(struct ps_nic_facts *f)
{
	free(f->queues.q);
	f->queues.q = NULL;
	f->queues.n = f->queues.cap = 0;
	free(f->estats.q);
	f->estats.q = NULL;
	f->estats.n = f->estats.cap = 0;
}

const char *ps_nic_src_name(enum ps_nic_src s)
{
	return s == PS_NIC_SRC_QSTATS ? "qstats" : s == PS_NIC_SRC_ETHTOOL ? "ethtool" : "n/a";
}

const struct ps_nic_queue *ps_nic_find_queue(const struct ps_nic_facts *f, enum ps_nic_qtype t,
					     uint32_t id)
{
	unsigned int i;

	for (i = 0; f && i < f->queues.n; i++)
		if (f->queues.q[i].type == t && f->queues.q[i].id == id)
			return &f->queues.q[i];
	return NULL;
}

const struct ps_nic_equeue *ps_nic_find_equeue(const struct ps_nic_facts *f, enum ps_nic_qtype t,
					       uint32_t id)
{
	unsigned int i;

	for (i = 0; f && f->estats.valid && i < f->estats.n; i++)
		if (f->estats.q[i].type == t && f->estats.q[i].id == id)
			return &f->estats.q[i];
	return NULL;
}

/* The qstats counter when the kernel reports it, else the ethtool one. */
static struct ps_nic_count pick(const struct ps_nic_queue *nq, int qs,
				const struct ps_nic_equeue *eq, int es)
{
	if (nq && nq->has_qstats && qs >= 0 && nq->qstats[qs] != PS_NA)
		return (struct ps_nic_count){ nq->qstats[qs], PS_NIC_SRC_QSTATS };
	if (eq && eq->v[es] != PS_NA)
		return (struct ps_nic_count){ eq->v[es], PS_NIC_SRC_ETHTOOL };
	return (struct ps_nic_count){ PS_NA, PS_NIC_SRC_NONE };
}

void ps_nic_driver_queue(const struct ps_nic_facts *f, enum ps_nic_qtype t, uint32_t id,
			 struct ps_nic_driver_queue *d)
{
	const struct ps_nic_queue *nq = f->queues.qstats_valid ? ps_nic_find_queue(f, t, id) : NULL;
	const struct ps_nic_equeue *eq = ps_nic_find_equeue(f, t, id);
	bool rx = t == PS_NIC_Q_RX;

	d->packets =
	    pick(nq, rx ? PS_NIC_QS_RX_PACKETS : PS_NIC_QS_TX_PACKETS, eq, PS_NIC_ES_PACKETS);
	d->bytes = pick(nq, rx ? PS_NIC_QS_RX_BYTES : PS_NIC_QS_TX_BYTES, eq, PS_NIC_ES_BYTES);
	d->xdp_packets = rx ? pick(NULL, -1, eq, PS_NIC_ES_XDP_PACKETS)
			    : (struct ps_nic_count){ PS_NA, PS_NIC_SRC_NONE };
}

void ps_nic_why(char *why, size_t len, const char *what, int err)
{
	if (err == -EBADMSG)
		snprintf(why, len, "%s: malformed reply", what);
	else if (err == -EPROTO)
		snprintf(why, len, "%s: unexpected reply", what);
	else
		snprintf(why, len, "%s: %s", what, strerror(-err));
}

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
