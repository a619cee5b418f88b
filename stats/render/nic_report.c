// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* NIC facts as a readable table (n/a = "n/a"); as JSON: stats/format/nic_json.c. */
#include <string.h>

#include "stats/render/nic_report.h"

static const char *num(uint64_t v)
{
	static char buf[8][24];
	static unsigned int next;
	char *b = buf[next++ % 8];

	if (v == PS_NA)
		return "n/a";
	snprintf(b, sizeof(buf[0]), "%llu", (unsigned long long)v);
	return b;
}

static void print_link(FILE *out, const struct ps_nic_link *l)
{
	const uint64_t *v = l->v;

	if (!l->valid) {
		fprintf(out, "link:     n/a (%s)\n", l->why);
		return;
	}
	fprintf(out, "link:     rx %s packets, %s bytes, %s errors, %s dropped, %s multicast\n",
		num(v[PS_LINK_RX_PACKETS]), num(v[PS_LINK_RX_BYTES]), num(v[PS_LINK_RX_ERRORS]),
		num(v[PS_LINK_RX_DROPPED]), num(v[PS_LINK_MULTICAST]));
	fprintf(out, "          tx %s packets, %s bytes, %s errors, %s dropped, %s collisions\n",
		num(v[PS_LINK_TX_PACKETS]), num(v[PS_LINK_TX_BYTES]), num(v[PS_LINK_TX_ERRORS]),
		num(v[PS_LINK_TX_DROPPED]), num(v[PS_LINK_COLLISIONS]));
	fprintf(out,
		"          rx errors: length %s, over %s, crc %s, frame %s, fifo %s, missed %s\n",
		num(v[PS_LINK_RX_LENGTH_ERRORS]), num(v[PS_LINK_RX_OVER_ERRORS]),
		num(v[PS_LINK_RX_CRC_ERRORS]), num(v[PS_LINK_RX_FRAME_ERRORS]),
		num(v[PS_LINK_RX_FIFO_ERRORS]), num(v[PS_LINK_RX_MISSED_ERRORS]));
	fprintf(out,
		"          tx errors: aborted %s, carrier %s, fifo %s, heartbeat %s, window %s\n",
		num(v[PS_LINK_TX_ABORTED_ERRORS]), num(v[PS_LINK_TX_CARRIER_ERRORS]),
		num(v[PS_LINK_TX_FIFO_ERRORS]), num(v[PS_LINK_TX_HEARTBEAT_ERRORS]),
		num(v[PS_LINK_TX_WINDOW_ERRORS]));
	fprintf(out, "          rx nohandler %s, otherhost dropped %s\n",
		num(v[PS_LINK_RX_NOHANDLER]), num(v[PS_LINK_RX_OTHERHOST_DROPPED]));
}

static void print_pair(FILE *out, const char *name, uint64_t cur, uint64_t max, const char *sep)
{
	if (cur == PS_NA && max == PS_NA)
		fprintf(out, "%s n/a%s", name, sep);
	else
		fprintf(out, "%s %s (max %s)%s", name, num(cur), num(max), sep);
}

static void print_features(FILE *out, const struct ps_nic_features *ft)
{
	static const char *const label[PS_NIC_F_COUNT] = { "gro", "lro", "gso", "tso",
							   "rx-hashing" };
	int i;

	if (!ft->valid) {
		fprintf(out, "features: n/a (%s)\n", ft->why);
		return;
	}
	fprintf(out, "features:");
	for (i = 0; i < PS_NIC_F_COUNT; i++)
		fprintf(out, " %s %s%s%s", label[i], ps_nic_onoff_name(ft->f[i].state),
			ft->f[i].fixed ? " [fixed]" : "", i + 1 < PS_NIC_F_COUNT ? "," : "\n");
}

/* The counters of a queue's direction: packets, bytes, hw drops, and
 * alloc-fail (rx) or stop/wake (tx). */
static void print_queues(FILE *out, const struct ps_nic_queues *q)
{
	unsigned int i, nrx = 0;

	for (i = 0; i < q->n; i++)
		nrx += q->q[i].type == PS_NIC_Q_RX;
	if (!q->valid)
		fprintf(out, "queues:   n/a (%s)\n", q->why);
	else
		fprintf(out, "queues:   %u rx, %u tx\n", nrx, q->n - nrx);
	if (!q->qstats_valid)
		fprintf(out, "qstats:   n/a (%s)\n", q->qstats_why);
	if (!q->n)
		return;
	fprintf(out, "  %-7s %10s %14s %16s %10s %10s %10s %10s\n", "QUEUE", "NAPI", "PACKETS",
		"BYTES", "HW_DROPS", "ALLOC_FAIL", "STOP", "WAKE");
	for (i = 0; i < q->n; i++) {
		const struct ps_nic_queue *e = &q->q[i];
		const uint64_t *s = e->qstats;
		bool rx = e->type == PS_NIC_Q_RX;
		char name[16];

		snprintf(name, sizeof(name), "%s-%u", rx ? "rx" : "tx", e->id);
		fprintf(out, "  %-7s %10s %14s %16s %10s %10s %10s %10s\n", name,
			num(e->napi_id ? e->napi_id : PS_NA),
			num(s[rx ? PS_NIC_QS_RX_PACKETS : PS_NIC_QS_TX_PACKETS]),
			num(s[rx ? PS_NIC_QS_RX_BYTES : PS_NIC_QS_TX_BYTES]),
			num(s[rx ? PS_NIC_QS_RX_HW_DROPS : PS_NIC_QS_TX_HW_DROPS]),
			num(rx ? s[PS_NIC_QS_RX_ALLOC_FAIL] : PS_NA),
			num(rx ? PS_NA : s[PS_NIC_QS_TX_STOP]),
			num(rx ? PS_NA : s[PS_NIC_QS_TX_WAKE]));
	}
}

/* The per-queue counters of ethtool -S that have a known name. */
static void print_estats(FILE *out, const struct ps_nic_estats *e)
{
	unsigned int i, nrx = 0;

	if (!e->valid) {
		fprintf(out, "ethtool:  n/a (%s)\n", e->why);
		return;
	}
	for (i = 0; i < e->n; i++)
		nrx += e->q[i].type == PS_NIC_Q_RX;
	fprintf(out, "ethtool:  per-queue counters of ethtool -S: %u rx, %u tx (of %u counters)\n",
		nrx, e->n - nrx, e->ncounters);
	fprintf(out, "  %-7s %14s %16s %14s %10s\n", "QUEUE", "PACKETS", "BYTES", "XDP_PACKETS",
		"DROPS");
	for (i = 0; i < e->n; i++) {
		const struct ps_nic_equeue *q = &e->q[i];
		char name[16];

		snprintf(name, sizeof(name), "%s-%u", q->type == PS_NIC_Q_RX ? "rx" : "tx", q->id);
		fprintf(out, "  %-7s %14s %16s %14s %10s\n", name, num(q->v[PS_NIC_ES_PACKETS]),
			num(q->v[PS_NIC_ES_BYTES]), num(q->v[PS_NIC_ES_XDP_PACKETS]),
			num(q->v[PS_NIC_ES_DROPS]));
	}
}

void ps_nic_print(FILE *out, const struct ps_nic_facts *f)
{
	const struct ps_nic_channels *c = &f->channels;
	const struct ps_nic_rings *r = &f->rings;

	fprintf(out, "%s (ifindex %d)\n", f->ifname, f->ifindex);
	print_link(out, &f->link);
	if (c->valid) {
		fprintf(out, "channels: ");
		print_pair(out, "rx", c->rx, c->rx_max, ", ");
		print_pair(out, "tx", c->tx, c->tx_max, ", ");
		print_pair(out, "other", c->other, c->other_max, ", ");
		print_pair(out, "combined", c->combined, c->combined_max, "\n");
	} else {
		fprintf(out, "channels: n/a (%s)\n", c->why);
	}
	if (r->valid) {
		fprintf(out, "rings:    ");
		print_pair(out, "rx", r->rx, r->rx_max, ", ");
		print_pair(out, "rx-mini", r->rx_mini, r->rx_mini_max, ", ");
		print_pair(out, "rx-jumbo", r->rx_jumbo, r->rx_jumbo_max, ", ");
		print_pair(out, "tx", r->tx, r->tx_max, "\n");
	} else {
		fprintf(out, "rings:    n/a (%s)\n", r->why);
	}
	print_features(out, &f->features);
	print_queues(out, &f->queues);
	print_estats(out, &f->estats);
}
