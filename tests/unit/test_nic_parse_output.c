// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The NIC facts as `nic` prints them (stats/render/nic_report.c): the JSON and the table
 * of a veth's recorded replies, n/a as null with the reason where JSON has it, and the
 * ethtool -S part of both. */
#include "tests/unit/nic_parse.h"

/* The JSON of the veth facts: n/a as null, never 0. */
static void test_json(void)
{
	json_object *o, *x, *q0;

	ps_nic_init(&f, 0);
	ps_nic_parse_link(fx_veth_link, sizeof(fx_veth_link), &f);
	ps_nic_parse_channels(fx_veth_channels, sizeof(fx_veth_channels), &f.channels);
	ps_nic_parse_rings(fx_veth_rings, sizeof(fx_veth_rings), &f.rings);
	snprintf(f.rings.why, sizeof(f.rings.why), "EOPNOTSUPP: not supported by the driver");
	ps_nic_parse_features(fx_veth_features, sizeof(fx_veth_features), &f.features);
	ps_nic_parse_queues(fx_veth_queues, sizeof(fx_veth_queues), 2, &f.queues);
	ps_nic_queues_sort(&f.queues);
	o = ps_nic_json(&f);

	CHECK_TRUE("json: rings null", json_object_object_get_ex(o, "rings", &x) &&
					   json_object_is_type(x, json_type_null));
	CHECK_TRUE("json: rings_na is the reason",
		   json_object_object_get_ex(o, "rings_na", &x) &&
		       strcmp(json_object_get_string(x), f.rings.why) == 0);
	CHECK_TRUE("json: channels.other null", json_object_object_get_ex(o, "channels", &x) &&
						    json_object_object_get_ex(x, "other", &x) &&
						    x == NULL);
	CHECK_TRUE("json: channels.rx_max 4", json_object_object_get_ex(o, "channels", &x) &&
						  json_object_object_get_ex(x, "rx_max", &x) &&
						  json_object_get_int(x) == 4);
	CHECK_TRUE("json: features.gro.state on", json_object_object_get_ex(o, "features", &x) &&
						      json_object_object_get_ex(x, "gro", &x) &&
						      json_object_object_get_ex(x, "state", &x) &&
						      strcmp(json_object_get_string(x), "on") == 0);
	CHECK_TRUE("json: 8 queues",
		   json_object_object_get_ex(o, "queues", &x) && json_object_array_length(x) == 8);
	q0 = json_object_array_get_idx(x, 0);
	CHECK_TRUE("json: queue napi_id null",
		   json_object_object_get_ex(q0, "napi_id", &x) && x == NULL);
	CHECK_TRUE("json: queue qstats null",
		   json_object_object_get_ex(q0, "qstats", &x) && x == NULL);
	CHECK_TRUE("json: link rx_packets 6", json_object_object_get_ex(o, "link", &x) &&
						  json_object_object_get_ex(x, "rx_packets", &x) &&
						  json_object_get_int(x) == 6);
	json_object_put(o);

	/* The table says n/a where JSON says null. */
	{
		char *text = NULL;
		size_t len = 0;
		FILE *m = open_memstream(&text, &len);

		ps_nic_print(m, &f);
		fclose(m);
		CHECK_TRUE("table: rings n/a with the reason",
			   strstr(text, "rings:    n/a (EOPNOTSUPP: not supported by the driver)"));
		CHECK_TRUE("table: channels",
			   strstr(text, "channels: rx 4 (max 4), tx 4 (max 4), other n/a, "
					"combined n/a"));
		CHECK_TRUE("table: features",
			   strstr(text, "features: gro on, lro off [fixed], gso on, tso on, "
					"rx-hashing off [fixed]"));
		free(text);
	}
	ps_nic_free(&f);
}

/* `nic --json` and the table: the ethtool -S part, n/a as null with the reason. */
static void test_estats_output(void)
{
	json_object *o, *x, *q;
	char *text = NULL;
	size_t len = 0;
	FILE *m;

	ps_nic_init(&f, 2);
	ps_nic_parse_estats(ESTATS(fx_veth_estats), &f.estats);
	o = ps_nic_json(&f);
	CHECK_TRUE("json: ethtool_stats of 4 queues",
		   json_object_object_get_ex(o, "ethtool_stats", &x) &&
		       json_object_array_length(x) == 4);
	q = json_object_array_get_idx(x, 2);
	CHECK_TRUE("json: rx 2 xdp_packets 2, packets null",
		   q && json_object_object_get_ex(q, "xdp_packets", &x) &&
		       json_object_get_int(x) == 2 && json_object_object_get_ex(q, "packets", &x) &&
		       x == NULL && json_object_object_get_ex(q, "type", &x) &&
		       strcmp(json_object_get_string(x), "rx") == 0);
	CHECK_TRUE("json: ethtool_stats_na null",
		   json_object_object_get_ex(o, "ethtool_stats_na", &x) && x == NULL);
	json_object_put(o);
	m = open_memstream(&text, &len);
	ps_nic_print(m, &f);
	fclose(m);
	CHECK_TRUE("table: ethtool line",
		   strstr(text, "ethtool:  per-queue counters of ethtool -S: 4 rx, 0 tx (of 37 "
				"counters)\n"));
	CHECK_TRUE("table: rx-0 row", strstr(text, "\n  rx-0               n/a              n/a "
						   "             4          0\n"));
	free(text);
	ps_nic_free(&f);

	ps_nic_init(&f, 3);
	ps_nic_parse_estats(ESTATS(fx_e1000_estats), &f.estats);
	o = ps_nic_json(&f);
	CHECK_TRUE("json e1000: ethtool_stats null",
		   json_object_object_get_ex(o, "ethtool_stats", &x) && x == NULL);
	CHECK_TRUE("json e1000: ethtool_stats_na the reason",
		   json_object_object_get_ex(o, "ethtool_stats_na", &x) &&
		       strcmp(json_object_get_string(x), f.estats.why) == 0);
	json_object_put(o);
	text = NULL;
	m = open_memstream(&text, &len);
	ps_nic_print(m, &f);
	fclose(m);
	CHECK_TRUE("table e1000: n/a with the reason",
		   strstr(text, "ethtool:  n/a (ethtool -S: 46 counters, none per queue by a "
				"known name)\n"));
	free(text);
	ps_nic_free(&f);
}

int main(void)
{
	test_json();
	test_estats_output();
	return check_exit_code();
}
