// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* JSON: one object per report interval; the schema is in man/pathscope-json.7. */
#include "stats/render/render.h"

#include <json-c/json.h>
#include <time.h>

#include "lib/names.h"
#include "lib/queues.h"
#include "stats/families/families.h"
#include "stats/format/json.h"

/* The per-queue parts of the families with a slot per queue, in order. */
static const struct queue_part {
	const char *key;
	bool (*on)(const struct ps_snapshot *s);
	json_object *(*json)(const struct ps_report *r, unsigned int q);
	bool (*slot_active)(const struct ps_snapshot *s, unsigned int q);
} queue_parts[] = {
	{ "icmp_echo", ps_echo_on, ps_echo_json, ps_echo_slot_active },
	{ "tcp", ps_tcp_on, ps_tcp_json, ps_tcp_slot_active },
	{ "flows", ps_flows_on, ps_flows_json, ps_flows_slot_active },
	{ "tx_latency", ps_txlat_on, ps_txlat_json, ps_txlat_slot_active },
	{ "driver_to_stack", ps_d2s_on, ps_d2s_json, ps_d2s_slot_active },
	{ "socket", ps_sock_on, ps_sock_json, ps_sock_slot_active },
	{ "kernel", ps_kernel_on, ps_kernel_queue_json, ps_kernel_slot_active },
};
#define NPARTS (sizeof(queue_parts) / sizeof(queue_parts[0]))

/* Queue slot q (q == nslots: all queues) of every family, into o. */
static json_object *queue_obj(const struct ps_report *r, unsigned int q, json_object *o)
{
	size_t k;
	int h;

	for (h = 0; h < PS_HOOK_COUNT; h++)
		if (r->cur->hook[h])
			json_object_object_add(o, ps_hook_names[h], ps_counters_hook_json(r, h, q));
	for (k = 0; k < NPARTS; k++)
		if (queue_parts[k].on(r->cur))
			json_object_object_add(o, queue_parts[k].key, queue_parts[k].json(r, q));
	ps_nic_queue_json(o, r->cur, q);
	return o;
}

bool ps_render_json_other(const struct ps_snapshot *c)
{
	size_t k;

	if (ps_counters_slot_active(c, c->nslots - 1))
		return true;
	for (k = 0; k < NPARTS; k++)
		if (queue_parts[k].slot_active(c, c->nslots - 1))
			return true;
	return false;
}

static json_object *iface_obj(const struct ps_report *r)
{
	const struct ps_snapshot *c = r->cur;
	const struct ps_meta *m = &c->meta;
	json_object *o = json_object_new_object(), *queues, *qo;
	char buf[256];
	unsigned int q;

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
	if (ps_echo_on(c))
		json_object_object_add(o, "icmp_peers", ps_echo_peers_json(c));
	if (ps_tcp_on(c)) {
		snprintf(buf, sizeof(buf), "%u,%u", m->tcp_prefix4, m->tcp_prefix6);
		json_object_object_add(o, "tcp_peer_prefix", json_object_new_string(buf));
		json_object_object_add(o, "tcp_peers", ps_tcp_peers_json(c));
	}
	if (ps_sock_on(c))
		json_object_object_add(o, "socket_ports", ps_sock_ports_json(c));
	if (ps_kernel_on(c))
		json_object_object_add(o, "kernel", ps_kernel_json(c));
	ps_nic_iface_json(o, c);
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
