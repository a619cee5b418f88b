// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* JSON: one object per report interval, each family's parts in the registry's
 * order; the schema is in man/pathscope-json.7. */
#include "stats/render/render.h"

#include <json-c/json.h>
#include <time.h>

#include "lib/names.h"
#include "lib/queues.h"
#include "stats/families/families.h"
#include "stats/format/json.h"
#include "stats/render/placement_report.h"

/* Family f has data in snapshot s: its JSON parts are there. */
static bool on(const struct ps_family *f, const struct ps_snapshot *s)
{
	return !f->on || f->on(s);
}

/* Queue slot q (q == nslots: all queues) of every family, into o. */
static json_object *queue_obj(const struct ps_report *r, unsigned int q, json_object *o)
{
	const struct ps_family *f;
	size_t k;

	for (k = 0; k < ps_nfamilies; k++) {
		f = ps_families[k];
		if (!on(f, r->cur))
			continue;
		if (f->queue_json_into)
			f->queue_json_into(o, r, q);
		if (f->json_key && f->queue_json)
			json_object_object_add(o, f->json_key, f->queue_json(r, q));
	}
	return o;
}

bool ps_render_json_other(const struct ps_snapshot *c)
{
	size_t k;

	for (k = 0; k < ps_nfamilies; k++)
		if (ps_families[k]->slot_active && ps_families[k]->slot_active(c, c->nslots - 1))
			return true;
	return false;
}

static json_object *iface_obj(const struct ps_report *r)
{
	const struct ps_snapshot *c = r->cur;
	const struct ps_meta *m = &c->meta;
	json_object *o = json_object_new_object(), *queues, *qo, *x;
	char buf[256];
	unsigned int q;
	size_t k;

	json_object_object_add(o, "ifname", json_object_new_string(m->ifname));
	ps_json_add_u64(o, "ifindex", m->ifindex);
	ps_json_add_u64(o, "netns", m->netns_ino);
	json_object_object_add(
	    o, "attached_for_s",
	    ps_json_double((double)(c->mono_ns - m->attach_monotonic_ns) / 1e9, 3));
	json_object_object_add(o, "xdp_mode",
			       json_object_new_string(ps_xdp_mode_name(m->xdp_mode)));
	json_object_object_add(o, "tc_mode", json_object_new_string(ps_tc_mode_name(m->tc_mode)));
	json_object_object_add(o, "probe_mode", json_object_new_string(ps_probe_mode_name(m)));
	ps_features_format(m->features, buf, sizeof(buf));
	json_object_object_add(o, "features", json_object_new_string(buf));
	if (m->all_queues)
		snprintf(buf, sizeof(buf), "all");
	else
		ps_queues_format(m->queue_mask, buf, sizeof(buf));
	json_object_object_add(o, "queues_selected", json_object_new_string(buf));
	ps_json_add_u64(o, "nqueues", m->nqueues);
	json_object_object_add(o, "totals", queue_obj(r, c->nslots, json_object_new_object()));

	queues = json_object_new_array();
	for (q = 0; q < m->nqueues; q++) {
		if (!m->all_queues && !ps_queue_selected(m->queue_mask, q))
			continue;
		qo = json_object_new_object();
		json_object_object_add(qo, "queue", json_object_new_uint64(q));
		json_object_array_add(queues, queue_obj(r, q, qo));
	}
	if (ps_render_json_other(c)) {
		qo = json_object_new_object();
		json_object_object_add(qo, "queue", json_object_new_string("other"));
		json_object_array_add(queues, queue_obj(r, c->nslots - 1, qo));
	}
	json_object_object_add(o, "queues", queues);
	json_object_object_add(o, "latency", ps_latency_json(c));
	for (k = 0; k < ps_nfamilies; k++)
		if (ps_families[k]->iface_json && on(ps_families[k], c))
			ps_families[k]->iface_json(o, c);
	/* Only where the placement was read (pathscope-json(7)). */
	if ((x = ps_placement_verdicts_json(r)))
		json_object_object_add(o, "placement_verdicts", x);
	return o;
}

void ps_render_json(FILE *out, const struct ps_report *r, int n)
{
	json_object *root = json_object_new_object(), *ifaces = json_object_new_array();
	char ts[40];
	struct tm tm;
	time_t secs;
	int i;

	secs = n ? (time_t)(r[0].cur->real_ns / 1000000000ULL) : time(NULL);
	gmtime_r(&secs, &tm);
	strftime(ts, sizeof(ts), "%Y-%m-%dT%H:%M:%SZ", &tm);
	json_object_object_add(root, "schema", json_object_new_int(PS_JSON_SCHEMA));
	json_object_object_add(root, "time", json_object_new_string(ts));
	json_object_object_add(root, "window_s", n ? ps_json_double(r[0].window_s, 3) : NULL);
	for (i = 0; i < n; i++)
		json_object_array_add(ifaces, iface_obj(&r[i]));
	json_object_object_add(root, "interfaces", ifaces);
	ps_json_print(out, root);
	fflush(out);
	json_object_put(root);
}
