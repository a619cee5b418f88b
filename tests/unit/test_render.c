// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Percentiles from buckets and the JSON, table and histogram renderers, on a
 * synthetic snapshot with known counts. */
#include <json-c/json.h>
#include <linux/types.h>
#include <stdlib.h>

#include "tests/lib/check.h"
#include "stats/format/hist.h"
#include "stats/format/table.h"
#include "stats/render/render.h"

#define NQ 2

static struct ps_qstats slots[PS_HOOK_COUNT][NQ + 1];

static void fill(struct ps_snapshot *s)
{
	struct ps_qstats *x;
	int h;

	memset(s, 0, sizeof(*s));
	s->meta.abi_version = PS_ABI_VERSION;
	snprintf(s->meta.ifname, sizeof(s->meta.ifname), "test\"0");
	s->meta.ifindex = 7;
	s->meta.nqueues = NQ;
	s->meta.features = PS_F_ALL;
	s->meta.all_queues = 1;
	s->meta.xdp_mode = PS_XDP_NATIVE;
	s->meta.tc_mode = PS_TC_TCX;
	s->meta.attach_monotonic_ns = 1000000000ULL;
	s->mono_ns = 3000000000ULL; /* 2 s after attach */
	s->real_ns = 1700000000ULL * 1000000000ULL;
	s->nslots = NQ + 1;
	for (h = 0; h < PS_HOOK_COUNT; h++)
		s->hook[h] = slots[h];

	/* xdp queue 0: 100 x 64 B + 1 x 1514 B, 10 CE over IPv4, 2 ECT(0) over IPv6 */
	x = &slots[PS_HOOK_XDP][0];
	x->packets = 101;
	x->bytes = 100 * 64 + 1514;
	x->l3[PS_L3_IPV4] = 99;
	x->l3[PS_L3_IPV6] = 2;
	x->l4[PS_L4_UDP] = 101;
	x->ecn[PS_IPV4][PS_ECN_CE] = 10;
	x->ecn[PS_IPV4][PS_ECN_NOT_ECT] = 89;
	x->ecn[PS_IPV6][PS_ECN_ECT0] = 2;
	x->size_hist[ps_hist_bucket(64, PS_SIZE_BUCKETS)] = 100;
	x->size_hist[ps_hist_bucket(1514, PS_SIZE_BUCKETS)] = 1;
	/* xdp queue 1: 5 ARP of 42 B */
	x = &slots[PS_HOOK_XDP][1];
	x->packets = 5;
	x->bytes = 5 * 42;
	x->l3[PS_L3_ARP] = 5;
	x->size_hist[ps_hist_bucket(42, PS_SIZE_BUCKETS)] = 5;
	/* tc ingress queue 1: 3 skbs, one GRO'd from 10 segments of gso_size 1448 */
	x = &slots[PS_HOOK_TC_INGRESS][1];
	x->packets = 3;
	x->bytes = 14546 + 2 * 66;
	x->gso_packets = 1;
	x->gso_segs = 10;
	x->gso_size_sum = 1448;
	x->segs_hist[1] = 2;
	x->segs_hist[10] = 1;
	/* tc egress: 4 skbs of unknown queue */
	slots[PS_HOOK_TC_EGRESS][NQ].packets = 4;
	slots[PS_HOOK_TC_EGRESS][NQ].bytes = 400;
}

static json_object *path(json_object *o, const char *const *keys)
{
	for (; o && *keys; keys++) {
		if (json_object_is_type(o, json_type_array))
			o = json_object_array_get_idx(o, atoi(*keys));
		else if (!json_object_object_get_ex(o, *keys, &o))
			return NULL;
	}
	return o;
}

#define JGET(root, ...) path((root), (const char *const[]){ __VA_ARGS__, NULL })

static void check_u64(const char *name, json_object *v, uint64_t want)
{
	check_report(v && json_object_get_uint64(v) == want, name, "got %s, want %llu",
		     v ? json_object_to_json_string(v) : "(missing)", (unsigned long long)want);
}

static void test_percentiles(void)
{
	__u64 b[PS_SIZE_BUCKETS] = {};
	unsigned int i;

	CHECK_EQ_U64("percentile: empty histogram gives 0",
		     ps_hist_percentile(b, PS_SIZE_BUCKETS, 50), 0);
	CHECK_EQ_U64("max: empty histogram gives 0", ps_hist_max(b, PS_SIZE_BUCKETS), 0);
	for (i = 1; i <= 15; i++) /* exact buckets: value i once each */
		b[ps_hist_bucket(i, PS_SIZE_BUCKETS)]++;
	CHECK_EQ_U64("percentile: p50 of 1..15 is 8", ps_hist_percentile(b, PS_SIZE_BUCKETS, 50),
		     8);
	CHECK_EQ_U64("percentile: p100 of 1..15 is 15", ps_hist_percentile(b, PS_SIZE_BUCKETS, 100),
		     15);
	CHECK_EQ_U64("percentile: p1 of 1..15 is 1", ps_hist_percentile(b, PS_SIZE_BUCKETS, 1), 1);
	CHECK_EQ_U64("max: of 1..15 is 15", ps_hist_max(b, PS_SIZE_BUCKETS), 15);
	memset(b, 0, sizeof(b));
	b[ps_hist_bucket(1514, PS_SIZE_BUCKETS)] = 1000;
	/* 1514 lies in [1408, 1536): midpoint 1471, within 1/16 of 1514 */
	CHECK_EQ_U64("percentile: 1514 B reported as bucket midpoint 1471",
		     ps_hist_percentile(b, PS_SIZE_BUCKETS, 99), 1471);
	CHECK_EQ_U64("max: 1514 B bucket top is 1535", ps_hist_max(b, PS_SIZE_BUCKETS), 1535);
	b[PS_SIZE_BUCKETS - 1] = 1; /* clamped huge value */
	CHECK_EQ_U64("percentile: p100 reaches the clamped last bucket",
		     ps_hist_percentile(b, PS_SIZE_BUCKETS, 100) >= (1ULL << 19), 1);
}

static void test_json(const struct ps_report *r)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	json_object *root, *q;

	ps_render_json(f, r, 1);
	fclose(f);
	CHECK_TRUE("json: one line", strchr(text, '\n') == text + len - 1);
	root = json_tokener_parse(text);
	CHECK_TRUE("json: parses", root != NULL);
	if (!root) {
		free(text);
		return;
	}
	check_report(
	    strcmp(json_object_get_string(JGET(root, "interfaces", "0", "ifname")), "test\"0") == 0,
	    "json: ifname with a quote survives", "%s", text);
	check_report(
	    strcmp(json_object_get_string(JGET(root, "time")), "2023-11-14T22:13:20Z") == 0,
	    "json: time is RFC 3339 UTC", "%s", json_object_get_string(JGET(root, "time")));
	check_u64("json: xdp total packets = sum of queues",
		  JGET(root, "interfaces", "0", "totals", "xdp", "total", "packets"), 106);
	check_u64("json: xdp queue 0 packets",
		  JGET(root, "interfaces", "0", "queues", "0", "xdp", "total", "packets"), 101);
	check_u64("json: xdp queue 0 CE over IPv4",
		  JGET(root, "interfaces", "0", "queues", "0", "xdp", "total", "ecn", "ipv4", "ce"),
		  10);
	check_u64(
	    "json: xdp queue 0 ECT(0) over IPv6",
	    JGET(root, "interfaces", "0", "queues", "0", "xdp", "total", "ecn", "ipv6", "ect0"), 2);
	check_u64("json: xdp queue 1 arp",
		  JGET(root, "interfaces", "0", "queues", "1", "xdp", "total", "l3", "arp"), 5);
	check_u64("json: xdp queue 0 size p50 (64 B bucket midpoint)",
		  JGET(root, "interfaces", "0", "queues", "0", "xdp", "total", "size", "p50"), 67);
	check_u64("json: xdp queue 0 size max (1514 B bucket top)",
		  JGET(root, "interfaces", "0", "queues", "0", "xdp", "total", "size", "max"),
		  1535);
	check_u64("json: size hist first bucket low",
		  JGET(root, "interfaces", "0", "queues", "0", "xdp", "total", "size", "hist", "0",
		       "low"),
		  64);
	check_u64("json: size hist first bucket count",
		  JGET(root, "interfaces", "0", "queues", "0", "xdp", "total", "size", "hist", "0",
		       "count"),
		  100);
	check_u64(
	    "json: tc ingress segments (10 + 2 plain)",
	    JGET(root, "interfaces", "0", "queues", "1", "tc_ingress", "total", "gro", "segments"),
	    12);
	q = JGET(root, "interfaces", "0", "queues", "1", "tc_ingress", "total", "gro",
		 "avg_segments");
	check_report(q && json_object_get_double(q) == 4.0, "json: avg segments 12/3 = 4", "%s",
		     q ? json_object_to_json_string(q) : "(missing)");
	q = JGET(root, "interfaces", "0", "queues", "0", "xdp", "rate", "pps");
	check_report(q && json_object_get_double(q) == 50.5, "json: pps since attach 101/2 s", "%s",
		     q ? json_object_to_json_string(q) : "(missing)");
	q = JGET(root, "interfaces", "0", "queues", "0", "xdp", "rate", "ce_ratio");
	check_report(q && json_object_get_double(q) > 0.0990 && json_object_get_double(q) < 0.0991,
		     "json: ce_ratio 10/101", "%s",
		     q ? json_object_to_json_string(q) : "(missing)");
	q = JGET(root, "interfaces", "0", "queues", "2");
	check_report(q && strcmp(json_object_get_string(JGET(q, "queue")), "other") == 0,
		     "json: unknown-queue slot listed as queue \"other\"", "%s",
		     q ? json_object_to_json_string(q) : "(missing)");
	check_u64("json: other queue tc egress packets",
		  JGET(root, "interfaces", "0", "queues", "2", "tc_egress", "total", "packets"), 4);
	CHECK_TRUE("json: xdp has no gro object",
		   !JGET(root, "interfaces", "0", "queues", "0", "xdp", "total", "gro"));
	json_object_put(root);
	free(text);
}

static void test_text(const struct ps_report *r)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	ps_render_table(f, r, 1);
	ps_render_hist(f, r, 1);
	fclose(f);
	CHECK_TRUE("table: header row", strstr(text, "QUEUE  HOOK") != NULL);
	CHECK_TRUE("table: total row for xdp",
		   strstr(text, "all    xdp        rx           106") != NULL);
	CHECK_TRUE("table: CE share 9.90%", strstr(text, "9.90%") != NULL);
	CHECK_TRUE("table: unknown-queue row",
		   strstr(text, "\nother  tc_egress  tx             4") != NULL);
	CHECK_TRUE("hist: seed-style power-of-two line for 64 B",
		   strstr(text, "    [64, 128)                     100 "
				"|@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|\n") != NULL);
	CHECK_TRUE("hist: K suffix and a one-@ bar for the single 1514 B frame",
		   strstr(text, "    [1K, 2K)                        1 |@       ") != NULL);
	CHECK_TRUE("hist: empty power-of-two rows between samples are printed",
		   strstr(text, "    [512, 1K)                       0 |        ") != NULL);
	CHECK_TRUE("hist: 10 segments fall in [8, 16)",
		   strstr(text, "    [8, 16)                         1 |@@@@@@@@@@@@@@@@@@@@ ") !=
		       NULL);
	CHECK_TRUE("hist: a histogram without samples says so",
		   strstr(text, "(no samples)") != NULL);
	if (check_failures)
		fputs(text, stdout);
	free(text);
}

/* Percentile cells need their samples; latency bounds read in human units. */
static void test_latency_cells(void)
{
	static __u64 h[PS_LAT_BUCKETS];
	char buf[32], *text = NULL;
	size_t len = 0;
	FILE *f;

	h[ps_hist_bucket(1500000, PS_LAT_BUCKETS)] = 99; /* 1.5 ms, 99 times */
	ps_fmt_lat(buf, sizeof(buf), h, 50);
	CHECK_STR("cell: p50 of 99 samples is a value", buf, "1.5ms");
	ps_fmt_lat(buf, sizeof(buf), h, 90);
	CHECK_STR("cell: p90 of 99 samples is a value", buf, "1.5ms");
	ps_fmt_lat(buf, sizeof(buf), h, 99);
	CHECK_STR("cell: p99 of 99 samples is not", buf, "n<100");
	ps_fmt_lat(buf, sizeof(buf), h, 99.9);
	CHECK_STR("cell: p99.9 of 99 samples is not", buf, "n<1000");
	ps_fmt_lat(buf, sizeof(buf), h, PS_PCT_MAX);
	CHECK_TRUE("cell: the max of 99 samples is a value", strchr(buf, '<') == NULL);
	ps_fmt_lat(buf, sizeof(buf), h, 100);
	CHECK_STR("cell: p100 (the top sample) of 99 samples is a value", buf, "1.5ms");
	h[ps_hist_bucket(1500000, PS_LAT_BUCKETS)] = 100;
	ps_fmt_lat(buf, sizeof(buf), h, 99);
	CHECK_STR("cell: p99 of 100 samples is a value", buf, "1.5ms");
	h[ps_hist_bucket(1500000, PS_LAT_BUCKETS)] = 9;
	ps_fmt_lat(buf, sizeof(buf), h, 90);
	CHECK_STR("cell: p90 of 9 samples is not", buf, "n<10");

	f = open_memstream(&text, &len);
	ps_print_hist(f, h, PS_LAT_BUCKETS, "ns");
	fclose(f);
	CHECK_TRUE("hist: latency bounds in human units",
		   strstr(text, "    latency                     count  distribution\n"
				"    [1.05ms, 2.1ms)                 9 |@@@@") != NULL);
	if (check_failures)
		fputs(text, stdout);
	free(text);
}

int main(void)
{
	struct ps_snapshot s;
	struct ps_report r;

	test_percentiles();
	test_latency_cells();
	fill(&s);
	ps_report_init(&r, &s, NULL);
	test_json(&r);
	test_text(&r);
	return check_exit_code();
}
