// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* NIC facts as JSON (n/a = null), for pathscope nic and stats' nic family. */
#include "stats/format/nic_json.h"

#include <stdio.h>

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

static json_object *features_json(const struct ps_nic_features *ft)
{
	json_object *o = json_object_new_object();
	int i;

	for (i = 0; i < PS_NIC_F_COUNT; i++) {
		json_object *f = NULL;

		if (ft->f[i].state != PS_NIC_NA) {
			f = json_object_new_object();
			json_object_object_add(
			    f, "state", json_object_new_string(ps_nic_onoff_name(ft->f[i].state)));
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
