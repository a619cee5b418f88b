// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* One flow encoding (stats/format/flow_key.c) and the report of `pathscope flows`
 * (stats/render/flows_report.c), on snapshot_fixture.h. */
#include <arpa/inet.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stats/format/flow_key.h"
#include "stats/render/flows_report.h"
#include "tests/lib/check.h"
#include "tests/unit/snapshot_fixture.h"

static struct ps_flow_row row(int family, int proto, int sport, int dport, int ethertype)
{
	struct ps_flow_row r = { .packets = 6, .bytes = 600 };

	r.key.family = (__u8)family;
	r.key.proto = (__u8)proto;
	r.key.sport = htons((__u16)sport);
	r.key.dport = htons((__u16)dport);
	r.key.ethertype = htons((__u16)ethertype);
	if (family == 4) {
		memcpy(r.key.saddr, (const __u8[]){ 10, 0, 0, 2 }, 4);
		memcpy(r.key.daddr, (const __u8[]){ 10, 0, 0, 1 }, 4);
	} else if (family == 6) {
		r.key.saddr[0] = r.key.daddr[0] = 0xfe;
		r.key.saddr[1] = r.key.daddr[1] = 0x80;
		r.key.saddr[15] = 2;
		r.key.daddr[15] = 1;
	}
	return r;
}

static void encoding(void)
{
	static const struct {
		struct ps_flow_row r;
		const char *json, *text;
	} cases[] = {
		{ .json = "{\"src\":\"10.0.0.2\",\"dst\":\"10.0.0.1\",\"proto\":\"udp\",\"sport\":"
			  "40000,"
			  "\"dport\":4789,\"ethertype\":\"0x0800\",\"packets\":6,\"bytes\":600}",
		  .text = "udp 10.0.0.2:40000 > 10.0.0.1:4789" },
		{ .json =
		      "{\"src\":\"fe80::2\",\"dst\":\"fe80::1\",\"proto\":\"tcp\",\"sport\":443,"
		      "\"dport\":50000,\"ethertype\":\"0x86dd\",\"packets\":6,\"bytes\":600}",
		  .text = "tcp [fe80::2]:443 > [fe80::1]:50000" },
		{ .json = "{\"src\":\"10.0.0.2\",\"dst\":\"10.0.0.1\",\"proto\":\"icmp\",\"sport\":"
			  "null,"
			  "\"dport\":null,\"ethertype\":\"0x0800\",\"packets\":6,\"bytes\":600}",
		  .text = "icmp 10.0.0.2 > 10.0.0.1" },
		{ .json = "{\"src\":\"10.0.0.2\",\"dst\":\"10.0.0.1\",\"proto\":\"ip47\",\"sport\":"
			  "null,"
			  "\"dport\":null,\"ethertype\":\"0x0800\",\"packets\":6,\"bytes\":600}",
		  .text = "ip47 10.0.0.2 > 10.0.0.1" },
		{ .json =
		      "{\"src\":\"fe80::2\",\"dst\":\"fe80::1\",\"proto\":\"frag\",\"sport\":null,"
		      "\"dport\":null,\"ethertype\":\"0x86dd\",\"packets\":6,\"bytes\":600}",
		  .text = "frag fe80::2 > fe80::1" },
		{ .json =
		      "{\"src\":\"10.0.0.2\",\"dst\":\"10.0.0.1\",\"proto\":\"udp\",\"sport\":null,"
		      "\"dport\":null,\"ethertype\":\"0x0800\",\"packets\":6,\"bytes\":600}",
		  .text = "udp 10.0.0.2 > 10.0.0.1" },
		{ .json = "{\"src\":null,\"dst\":null,\"proto\":null,\"sport\":null,\"dport\":null,"
			  "\"ethertype\":\"0x0806\",\"packets\":6,\"bytes\":600}",
		  .text = "ethertype 0x0806" },
	};
	struct ps_flow_row rows[] = {
		row(4, 17, 40000, 4789, 0), row(6, 6, 443, 50000, 0), row(4, 1, 0, 0, 0),
		row(4, 47, 0, 0, 0),	    row(6, 44, 0, 0, 0),      row(4, 17, 0, 0, 0),
		row(0, 0, 0, 0, 0x0806),
	};
	char text[200], name[96];
	json_object *o;
	size_t i;

	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		o = ps_flow_json(&rows[i]);
		snprintf(name, sizeof(name), "flow %zu (%s): JSON", i, cases[i].text);
		CHECK_STR(name, json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN),
			  cases[i].json);
		json_object_put(o);
		ps_flow_text(&rows[i].key, text, sizeof(text));
		snprintf(name, sizeof(name), "flow %zu: text", i);
		CHECK_STR(name, text, cases[i].text);
	}
}

static char *report(const struct ps_snapshot *cur, const struct ps_snapshot *prev,
		    struct ps_flows_opts *o, bool json)
{
	char *buf = NULL;
	size_t len;
	FILE *f = open_memstream(&buf, &len);

	o->json = json;
	check_report(ps_flows_report(f, cur, prev, o) == 0,
		     json ? "flows report: JSON" : "flows report: text", "failed");
	fclose(f);
	return buf;
}

static json_object *get(json_object *o, const char *path)
{
	char key[64];
	const char *dot;

	while (o && *path) {
		dot = strchr(path, '.');
		snprintf(key, sizeof(key), "%.*s", dot ? (int)(dot - path) : (int)strlen(path),
			 path);
		if (json_object_is_type(o, json_type_array))
			o = json_object_array_get_idx(o, (size_t)atoi(key));
		else if (!json_object_object_get_ex(o, key, &o))
			o = NULL;
		path = dot ? dot + 1 : "";
	}
	return o;
}

static void fixture_report(void)
{
	static struct ps_snapshot snaps[2][2];
	static struct ps_rss rss;
	struct ps_tuple t = { .family = 4, .proto = 17, .sport = 40000, .dport = 4789 };
	struct ps_flows_opts o = { .ifname = "veth0", .interval_s = 1, .top = 10 };
	json_object *flows, *stats, *a, *b;
	char *text, *js, *st = NULL;
	struct ps_report r;
	size_t len, q, k, n, same = 0, all = 0;
	FILE *f;

	fx_fill(snaps);
	memcpy(t.src, (const __u8[]){ 198, 18, 0, 2 }, 4);
	memcpy(t.dst, (const __u8[]){ 198, 18, 0, 1 }, 4);
	rss = *snaps[0][1].rss;
	rss.source = "netlink"; /* as ps_rss_read sets it */
	o.rss = &rss;
	o.flow = &t;
	o.flow_text = "udp 198.18.0.2:40000 > 198.18.0.1:4789";
	text = report(&snaps[0][1], &snaps[0][0], &o, false);
	js = report(&snaps[0][1], &snaps[0][0], &o, true);
	flows = json_tokener_parse(js);
	ps_report_init(&r, &snaps[0][1], &snaps[0][0]);
	f = open_memstream(&st, &len);
	ps_render_json(f, &r, 1);
	fclose(f);
	stats = json_tokener_parse(st);
	CHECK_TRUE("the two reports parse", flows && stats);

	/* Each flows --json flow, less its share, is stats --json's. */
	for (q = 0; q < 2; q++) {
		char path[64];

		snprintf(path, sizeof(path), "queues.%zu.flows", q);
		a = get(flows, path);
		snprintf(path, sizeof(path), "interfaces.0.queues.%zu.flows.top", q);
		b = get(stats, path);
		n = a ? json_object_array_length(a) : 0;
		for (k = 0; k < n; k++) {
			json_object *x = json_object_get(json_object_array_get_idx(a, k));

			json_object_object_del(x, "share");
			all++;
			same += b && k < json_object_array_length(b) &&
				json_object_equal(x, json_object_array_get_idx(b, k));
			json_object_put(x);
		}
	}
	CHECK_TRUE("flows --json: 4 flows on queues 0 and 1", all == 4);
	CHECK_EQ_U64("flows --json: each flow is stats --json's, with its share", same, all);
	CHECK_STR("flows --json: the ARP flow's ethertype",
		  json_object_get_string(get(flows, "queues.1.flows.0.ethertype")), "0x0806");
	CHECK_TRUE("text: the flows as stats's table writes them",
		   strstr(text, "udp 198.18.0.2:40000 > 198.18.0.1:4789 (79.2%)") &&
		       strstr(text, "  ethertype 0x0806"));
	CHECK_TRUE("text and JSON: queue 0 hot, with the same cause",
		   get(flows, "hot.0.cause") && !get(flows, "hot.1") &&
		       strstr(text, "hot: queue 0 carries") &&
		       strstr(text, json_object_get_string(get(flows, "hot.0.cause"))));
	CHECK_TRUE(
	    "text and JSON: --flow seen on queue 0, no prediction without a key",
	    json_object_get_int(get(flows, "flow.seen")) == 0 &&
		!strcmp(json_object_get_string(get(flows, "flow.no_prediction")), "no hash key") &&
		strstr(text, "flow udp 198.18.0.2:40000 > 198.18.0.1:4789: no prediction "
			     "(no hash key); pathscope saw it on queue 0 (160 packets)"));
	CHECK_TRUE("JSON: no cold queue (the table gives each about 43 entries)",
		   get(flows, "cold") && !json_object_array_length(get(flows, "cold")));
	if (getenv("FLOWS_REPORT_SHOW"))
		printf("%s%s", text, js);
	json_object_put(flows);
	json_object_put(stats);
	free(text);
	free(js);
	free(st);
}

/* The checks:
 *   - a flow as JSON and as text, for each kind of key: TCP and UDP with
 *     ports, ICMP, another IP protocol, an IPv6 later fragment, an IPv4
 *     later fragment (ports 0: null), a frame without IP;
 *   - flows --json's flow objects are stats --json's, with their share;
 *   - the text and the JSON name the same hot queue and the same --flow. */
int main(void)
{
	encoding();
	fixture_report();
	return check_exit_code();
}
