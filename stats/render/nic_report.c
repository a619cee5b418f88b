// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* NIC facts as JSON (n/a = null) and as a readable table (n/a = "n/a"). */
#include <string.h>

#include "stats/render/nic_report.h"

static json_object *ju64(uint64_t v)
{
	return v == PS_NA ? NULL : json_object_new_uint64(v);
}

static void add_na(json_object *o, const char *part, bool valid, const char *why)
{
	char key[32];

	snprintf(key, sizeof(key), "%s_na", part);
	json_object_object_add(o, key,
			       valid ? NULL : json_object_new_string(*why ? why : "not available"));
}

static json_object *link_json(const struct ps_nic_link *l)
{
	json_object *o = json_object_new_object();
	int i;

	for (i = 0; i < PS_LINK_COUNT; i++)
		json_object_object_add(o, ps_link_names[i], ju64(l->v[i]));
	return o;
}

static json_object *channels_json(const struct ps_nic_channels *c)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "rx", ju64(c->rx));
	json_object_object_add(o, "tx", ju64(c->tx));
	json_object_object_add(o, "other", ju64(c->other));
	json_object_object_add(o, "combined", ju64(c->combined));
	json_object_object_add(o, "rx_max", ju64(c->rx_max));
	json_object_object_add(o, "tx_max", ju64(c->tx_max));
	json_object_object_add(o, "other_max", ju64(c->other_max));
	json_object_object_add(o, "combined_max", ju64(c->combined_max));
	return o;
}

static json_object *rings_json(const struct ps_nic_rings *r)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "rx", ju64(r->rx));
	json_object_object_add(o, "rx_mini", ju64(r->rx_mini));
	json_object_object_add(o, "rx_jumbo", ju64(r->rx_jumbo));
	json_object_object_add(o, "tx", ju64(r->tx));
	json_object_object_add(o, "rx_max", ju64(r->rx_max));
	json_object_object_add(o, "rx_mini_max", ju64(r->rx_mini_max));
	json_object_object_add(o, "rx_jumbo_max", ju64(r->rx_jumbo_max));
	json_object_object_add(o, "tx_max", ju64(r->tx_max));
	return o;
}

static const char *onoff(enum ps_nic_onoff s)
{
	return s == PS_NIC_ON ? "on" : s == PS_NIC_OFF ? "off" : "n/a";
}

static json_object *features_json(const struct ps_nic_features *ft)
{
	json_object *o = json_object_new_object();
	int i;

	for (i = 0; i < PS_NIC_F_COUNT; i++) {
		json_object *f = NULL;

		if (ft->f[i].state != PS_NIC_NA) {
			f = json_object_new_object();
			json_object_object_add(f, "state",
					       json_object_new_string(onoff(ft->f[i].state)));
			json_object_object_add(f, "fixed", json_object_new_boolean(ft->f[i].fixed));
		}
		json_object_object_add(o, ps_nic_feature_names[i], f);
	}
	return o;
}

static json_object *queues_json(const struct ps_nic_queues *q)
{
	json_object *a = json_object_new_array();
	unsigned int i, k;

	for (i = 0; i < q->n; i++) {
		const struct ps_nic_queue *e = &q->q[i];
		json_object *o = json_object_new_object(), *s = NULL;

		json_object_object_add(
		    o, "type", json_object_new_string(e->type == PS_NIC_Q_RX ? "rx" : "tx"));
		json_object_object_add(o, "id", json_object_new_int64(e->id));
		json_object_object_add(o, "napi_id",
				       e->napi_id ? json_object_new_int64(e->napi_id) : NULL);
		if (e->has_qstats) {
			s = json_object_new_object();
			for (k = 0; k < PS_NIC_QSTATS_COUNT; k++)
				json_object_object_add(s, ps_nic_qstats_names[k],
						       ju64(e->qstats[k]));
		}
		json_object_object_add(o, "qstats", s);
		json_object_array_add(a, o);
	}
	return a;
}

static json_object *estats_json(const struct ps_nic_estats *e)
{
	json_object *a = json_object_new_array();
	unsigned int i, k;

	for (i = 0; i < e->n; i++) {
		const struct ps_nic_equeue *q = &e->q[i];
		json_object *o = json_object_new_object();

		json_object_object_add(
		    o, "type", json_object_new_string(q->type == PS_NIC_Q_RX ? "rx" : "tx"));
		json_object_object_add(o, "id", json_object_new_int64(q->id));
		for (k = 0; k < PS_NIC_ES_COUNT; k++)
			json_object_object_add(o, ps_nic_estat_names[k], ju64(q->v[k]));
		json_object_array_add(a, o);
	}
	return a;
}

json_object *ps_nic_json(const struct ps_nic_facts *f)
{
	json_object *o = json_object_new_object();
	const struct ps_nic_queues *q = &f->queues;

	json_object_object_add(o, "ifname", json_object_new_string(f->ifname));
	json_object_object_add(o, "ifindex", json_object_new_int(f->ifindex));
	json_object_object_add(o, "link", f->link.valid ? link_json(&f->link) : NULL);
	add_na(o, "link", f->link.valid, f->link.why);
	json_object_object_add(o, "channels",
			       f->channels.valid ? channels_json(&f->channels) : NULL);
	add_na(o, "channels", f->channels.valid, f->channels.why);
	json_object_object_add(o, "rings", f->rings.valid ? rings_json(&f->rings) : NULL);
	add_na(o, "rings", f->rings.valid, f->rings.why);
	json_object_object_add(o, "features",
			       f->features.valid ? features_json(&f->features) : NULL);
	add_na(o, "features", f->features.valid, f->features.why);
	json_object_object_add(o, "queues", q->valid || q->n ? queues_json(q) : NULL);
	add_na(o, "queues", q->valid, q->why);
	add_na(o, "qstats", q->qstats_valid, q->qstats_why);
	json_object_object_add(o, "ethtool_stats",
			       f->estats.valid ? estats_json(&f->estats) : NULL);
	add_na(o, "ethtool_stats", f->estats.valid, f->estats.why);
	return o;
}

/* ---- table ---------------------------------------------------------------- */

/* Rotating buffers, so that several numbers fit in one printf. */
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
		fprintf(out, " %s %s%s%s", label[i], onoff(ft->f[i].state),
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
