// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* NIC facts, below their readers: a part starts n/a and says why when it
 * stays so; the names of the counters; where a driver's per-queue count comes
 * from when two sources have it. */
#include "nic/facts.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

const char *const ps_link_names[PS_LINK_COUNT] = {
	"rx_packets",
	"tx_packets",
	"rx_bytes",
	"tx_bytes",
	"rx_errors",
	"tx_errors",
	"rx_dropped",
	"tx_dropped",
	"multicast",
	"collisions",
	"rx_length_errors",
	"rx_over_errors",
	"rx_crc_errors",
	"rx_frame_errors",
	"rx_fifo_errors",
	"rx_missed_errors",
	"tx_aborted_errors",
	"tx_carrier_errors",
	"tx_fifo_errors",
	"tx_heartbeat_errors",
	"tx_window_errors",
	"rx_compressed",
	"tx_compressed",
	"rx_nohandler",
	"rx_otherhost_dropped",
};

const char *const ps_nic_feature_names[PS_NIC_F_COUNT] = {
	[PS_NIC_F_GRO] = "gro", [PS_NIC_F_LRO] = "lro",		  [PS_NIC_F_GSO] = "gso",
	[PS_NIC_F_TSO] = "tso", [PS_NIC_F_RXHASH] = "rx_hashing",
};

const char *const ps_nic_qstats_names[PS_NIC_QSTATS_COUNT] = {
	"rx_packets",
	"rx_bytes",
	"tx_packets",
	"tx_bytes",
	"rx_alloc_fail",
	"rx_hw_drops",
	"rx_hw_drop_overruns",
	"rx_csum_complete",
	"rx_csum_unnecessary",
	"rx_csum_none",
	"rx_csum_bad",
	"rx_hw_gro_packets",
	"rx_hw_gro_bytes",
	"rx_hw_gro_wire_packets",
	"rx_hw_gro_wire_bytes",
	"rx_hw_drop_ratelimits",
	"tx_hw_drops",
	"tx_hw_drop_errors",
	"tx_csum_none",
	"tx_needs_csum",
	"tx_hw_gso_packets",
	"tx_hw_gso_bytes",
	"tx_hw_gso_wire_packets",
	"tx_hw_gso_wire_bytes",
	"tx_hw_drop_ratelimits",
	"tx_stop",
	"tx_wake",
};

const char *const ps_nic_estat_names[PS_NIC_ES_COUNT] = {
	[PS_NIC_ES_PACKETS] = "packets",
	[PS_NIC_ES_BYTES] = "bytes",
	[PS_NIC_ES_XDP_PACKETS] = "xdp_packets",
	[PS_NIC_ES_DROPS] = "drops",
};

void ps_nic_channels_init(struct ps_nic_channels *c)
{
	memset(c, 0, sizeof(*c));
	c->rx = c->tx = c->other = c->combined = PS_NA;
	c->rx_max = c->tx_max = c->other_max = c->combined_max = PS_NA;
}

void ps_nic_coalesce_init(struct ps_nic_coalesce *c)
{
	memset(c, 0, sizeof(*c));
	c->rx_usecs = c->rx_frames = c->rx_usecs_irq = c->rx_frames_irq = PS_NA;
	c->tx_usecs = c->tx_frames = c->tx_usecs_irq = c->tx_frames_irq = PS_NA;
	c->adaptive_rx = c->adaptive_tx = PS_NA;
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

const char *ps_nic_onoff_name(enum ps_nic_onoff s)
{
	return s == PS_NIC_ON ? "on" : s == PS_NIC_OFF ? "off" : "n/a";
}
