// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The Prometheus renderer on synthetic snapshots with known counts: exact
 * sample lines, cumulative power-of-two buckets, label escaping, one HELP and
 * TYPE per family with its samples grouped after it, extreme values. */
#include <linux/types.h>
#include <stdlib.h>

#include "tests/lib/check.h"
#include "stats/render.h"

#define NQ 2

static struct ps_qstats slots[2][PS_HOOK_COUNT][NQ + 1];
static struct ps_echo_qstats echo[NQ + 1];
static struct ps_peer_entry peers[2];

static void base(struct ps_snapshot *s, const char *ifname, __u32 features)
{
	memset(s, 0, sizeof(*s));
	s->meta.abi_version = PS_ABI_VERSION;
	snprintf(s->meta.ifname, sizeof(s->meta.ifname), "%s", ifname);
	s->meta.ifindex = 7;
	s->meta.nqueues = NQ;
	s->meta.features = features;
	s->meta.all_queues = 1;
	s->meta.xdp_mode = PS_XDP_NATIVE;
	s->meta.tc_mode = PS_TC_TCX;
	s->meta.attach_monotonic_ns = 1000000000ULL;
	s->mono_ns = 3500000000ULL; /* 2.5 s after attach */
	s->nslots = NQ + 1;
}

/* Interface 0 ("test\"0"): every default feature, known traffic. */
static void fill0(struct ps_snapshot *s)
{
	struct ps_qstats *x;
	int h;

	base(s, "test\"0", PS_F_DEFAULT);
	for (h = 0; h < PS_HOOK_COUNT; h++)
		s->hook[h] = slots[0][h];
	/* xdp queue 0: 100 x 64 B + 1 x 1514 B */
	x = &slots[0][PS_HOOK_XDP][0];
	x->packets = 101;
	x->bytes = 100 * 64 + 1514;
	x->l3[PS_L3_IPV4] = 101;
	x->ecn[PS_IPV4][PS_ECN_CE] = 10;
	x->ecn[PS_IPV4][PS_ECN_NOT_ECT] = 91;
	x->size_hist[ps_hist_bucket(64, PS_SIZE_BUCKETS)] = 100;
	x->size_hist[ps_hist_bucket(1514, PS_SIZE_BUCKETS)] = 1;
	/* tc ingress queue 1: 3 skbs, one GRO'd from 10 segments */
	x = &slots[0][PS_HOOK_TC_INGRESS][1];
	x->packets = 3;
	x->bytes = 14546 + 2 * 66;
	x->gso_packets = 1;
	x->gso_segs = 10;
	x->gso_size_sum = 1448;
	x->segs_hist[1] = 2;
	x->segs_hist[10] = 1;
	/* tc egress queue "other": the counter extremes */
	x = &slots[0][PS_HOOK_TC_EGRESS][NQ];
	x->packets = UINT64_MAX;
	x->bytes = UINT64_MAX;
	x->size_hist[ps_hist_bucket(100, PS_SIZE_BUCKETS)] = UINT64_MAX;
	x->size_hist[PS_SIZE_BUCKETS - 1] = UINT64_MAX; /* clamped, beyond 1 MiB */
	/* ICMP: one RTT of 1500 ns on queue 1, one peer with an exact sum */
	s->echo = echo;
	echo[1].replies_in = 1;
	echo[1].rtt_hist[ps_hist_bucket(1500, PS_LAT_BUCKETS)] = 1;
	echo[NQ].requests_out = 1;
	peers[0].key.family = 4;
	memcpy(peers[0].key.addr, (const __u8[]){ 198, 18, 0, 1 }, 4);
	peers[0].stats.rtt_count = 1;
	peers[0].stats.rtt_sum_ns = 1500;
	peers[0].stats.rtt_hist[ps_hist_bucket(1500, PS_LAT_BUCKETS)] = 1;
	peers[0].stats.resp_count = 2;
	peers[0].stats.resp_sum_ns = 3000000001ULL;
	peers[1].key.family = 0; /* "other" */
	s->peers = peers;
	s->npeers = 2;
}

/* Interface 1: a name to escape, only the class feature, xdp only. */
static void fill1(struct ps_snapshot *s)
{
	base(s, "e\\x\ny", PS_F_CLASS);
	s->hook[PS_HOOK_XDP] = slots[1][PS_HOOK_XDP];
	slots[1][PS_HOOK_XDP][0].packets = 5;
}

static char *render(const struct ps_snapshot *s, int n, const struct ps_prom_extra *x)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	ps_render_prom(f, s, n, x);
	fclose(f);
	return text;
}

/* Is line (without its newline) one of text's lines? */
static bool has_line(const char *text, const char *line)
{
	size_t n = strlen(line);
	const char *p = text;

	while ((p = strstr(p, line))) {
		if ((p == text || p[-1] == '\n') && p[n] == '\n')
			return true;
		p++;
	}
	return false;
}

#define CHECK_LINE(text, line)		check_report(has_line(text, line), "line: " line, "missing")
#define CHECK_NO_LINE(name, text, line) check_report(!has_line(text, line), name, "present")

static int count_prefix(const char *text, const char *prefix)
{
	size_t n = strlen(prefix);
	const char *p = text;
	int c = 0;

	for (; *p; p = strchr(p, '\n') + 1) {
		c += strncmp(p, prefix, n) == 0;
		if (!strchr(p, '\n'))
			break;
	}
	return c;
}

/* Every family has one HELP and one TYPE, in that order, and every sample
 * belongs to the family of the last TYPE line (the format's grouping). */
static void check_grouping(const char *text)
{
	char fam[128] = "", seen[8192] = " ", name[160], type[32];
	const char *p, *e;
	bool ok = true, help_ok = true;
	size_t n;

	for (p = text; *p; p = e + 1) {
		e = strchr(p, '\n');
		if (!e)
			break;
		if (sscanf(p, "# TYPE %127s %31s", fam, type) == 2) {
			snprintf(name, sizeof(name), " %s ", fam);
			if (strstr(seen, name))
				ok = false; /* a second TYPE for the family */
			if (strlen(seen) + strlen(name) < sizeof(seen))
				strcat(seen, name + 1);
			continue;
		}
		if (strncmp(p, "# HELP ", 7) == 0) {
			/* the next line must be this family's TYPE */
			n = strcspn(p + 7, " ");
			help_ok &= strncmp(e + 1, "# TYPE ", 7) == 0 &&
				   strncmp(e + 8, p + 7, n) == 0 && e[8 + n] == ' ';
			continue;
		}
		n = strcspn(p, "{ ");
		if (strncmp(p, fam, strlen(fam)) != 0 ||
		    (n != strlen(fam) && strncmp(p + strlen(fam), "_bucket", 7) != 0 &&
		     strncmp(p + strlen(fam), "_sum", 4) != 0 &&
		     strncmp(p + strlen(fam), "_count", 6) != 0)) {
			ok = false;
			printf("# sample outside its family (%s): %.*s\n", fam, (int)(e - p), p);
		}
	}
	CHECK_TRUE("every family has exactly one TYPE line", ok);
	CHECK_TRUE("every HELP line is followed by its family's TYPE", help_ok);
}

static void test_counters(const char *t)
{
	CHECK_LINE(t, "pathscope_packets_total{iface=\"test\\\"0\",queue=\"0\",hook=\"xdp\","
		      "direction=\"rx\"} 101");
	CHECK_LINE(t, "pathscope_bytes_total{iface=\"test\\\"0\",queue=\"0\",hook=\"xdp\","
		      "direction=\"rx\"} 7914");
	CHECK_LINE(t, "pathscope_ecn_packets_total{iface=\"test\\\"0\",queue=\"0\",hook=\"xdp\","
		      "direction=\"rx\",ipver=\"ipv4\",codepoint=\"ce\"} 10");
	CHECK_LINE(t, "pathscope_segments_total{iface=\"test\\\"0\",queue=\"1\","
		      "hook=\"tc_ingress\",direction=\"rx\"} 12");
	CHECK_LINE(t, "pathscope_multi_segment_skbs_total{iface=\"test\\\"0\",queue=\"1\","
		      "hook=\"tc_ingress\",direction=\"rx\"} 1");
	CHECK_LINE(t, "pathscope_packets_total{iface=\"test\\\"0\",queue=\"other\","
		      "hook=\"tc_egress\",direction=\"tx\"} 18446744073709551615");
	CHECK_LINE(t, "pathscope_icmp_echo_requests_sent_total{iface=\"test\\\"0\","
		      "queue=\"other\"} 1");
	CHECK_LINE(t, "pathscope_attached_seconds{iface=\"test\\\"0\"} 2.5");
	CHECK_NO_LINE("no segment counters at xdp", t,
		      "pathscope_segments_total{iface=\"test\\\"0\",queue=\"0\",hook=\"xdp\","
		      "direction=\"rx\"} 0");
}

static void test_hist(const char *t)
{
	/* 100 x 64 B and 1 x 1514 B: cumulative at 2^k - 1 */
#define SZ(le)                                                                            \
	"pathscope_frame_size_bytes_bucket{iface=\"test\\\"0\",queue=\"0\",hook=\"xdp\"," \
	"direction=\"rx\",le=\"" le "\"}"
	CHECK_LINE(t, SZ("63") " 0");
	CHECK_LINE(t, SZ("127") " 100");
	CHECK_LINE(t, SZ("1023") " 100");
	CHECK_LINE(t, SZ("2047") " 101");
	CHECK_LINE(t, SZ("524287") " 101");
	CHECK_LINE(t, SZ("+Inf") " 101");
	CHECK_NO_LINE("size: no edge beyond 2^19 - 1 (the last bucket is clamped)", t,
		      SZ("1048575") " 101");
	CHECK_LINE(t, "pathscope_frame_size_bytes_sum{iface=\"test\\\"0\",queue=\"0\",hook=\"xdp\","
		      "direction=\"rx\"} 7914");
	CHECK_LINE(t, "pathscope_frame_size_bytes_count{iface=\"test\\\"0\",queue=\"0\","
		      "hook=\"xdp\",direction=\"rx\"} 101");
	check_report(count_prefix(t, "pathscope_frame_size_bytes_bucket{iface=\"test\\\"0\","
				     "queue=\"0\",hook=\"xdp\"") == 15,
		     "size: 14 power-of-two edges and +Inf per series", "got %d",
		     count_prefix(t, "pathscope_frame_size_bytes_bucket{iface=\"test\\\"0\","
				     "queue=\"0\",hook=\"xdp\""));
	/* empty histogram: same buckets, all zero */
	CHECK_LINE(t, SZ("+Inf") " 101");
	CHECK_LINE(t, "pathscope_frame_size_bytes_bucket{iface=\"test\\\"0\",queue=\"1\","
		      "hook=\"xdp\",direction=\"rx\",le=\"+Inf\"} 0");
	CHECK_LINE(t, "pathscope_frame_size_bytes_sum{iface=\"test\\\"0\",queue=\"1\",hook=\"xdp\","
		      "direction=\"rx\"} 0");
	CHECK_LINE(t, "pathscope_frame_size_bytes_count{iface=\"test\\\"0\",queue=\"1\","
		      "hook=\"xdp\",direction=\"rx\"} 0");
	/* two buckets of UINT64_MAX: exact past 64 bits, still cumulative */
#define SZX(le)                                                                  \
	"pathscope_frame_size_bytes_bucket{iface=\"test\\\"0\",queue=\"other\"," \
	"hook=\"tc_egress\",direction=\"tx\",le=\"" le "\"}"
	CHECK_LINE(t, SZX("63") " 0");
	CHECK_LINE(t, SZX("127") " 18446744073709551615");
	CHECK_LINE(t, SZX("524287") " 18446744073709551615");
	CHECK_LINE(t, SZX("+Inf") " 36893488147419103230");
	CHECK_LINE(t, "pathscope_frame_size_bytes_count{iface=\"test\\\"0\",queue=\"other\","
		      "hook=\"tc_egress\",direction=\"tx\"} 36893488147419103230");
	/* segments: 2 plain skbs and one of 10 */
#define SG(le)                                                           \
	"pathscope_skb_segments_bucket{iface=\"test\\\"0\",queue=\"1\"," \
	"hook=\"tc_ingress\",direction=\"rx\",le=\"" le "\"}"
	CHECK_LINE(t, SG("1") " 2");
	CHECK_LINE(t, SG("7") " 2");
	CHECK_LINE(t, SG("15") " 3");
	CHECK_LINE(t, SG("511") " 3");
	CHECK_LINE(t, SG("+Inf") " 3");
	CHECK_LINE(t, "pathscope_skb_segments_sum{iface=\"test\\\"0\",queue=\"1\","
		      "hook=\"tc_ingress\",direction=\"rx\"} 12");
	/* latency in seconds: 1500 ns lies in [1408, 1536), midpoint 1471 */
#define RTT(le) "pathscope_icmp_rtt_seconds_bucket{iface=\"test\\\"0\",queue=\"1\",le=\"" le "\"}"
	CHECK_LINE(t, RTT("0.000001023") " 0");
	CHECK_LINE(t, RTT("0.000002047") " 1");
	CHECK_LINE(t, RTT("34.359738367") " 1");
	CHECK_LINE(t, RTT("+Inf") " 1");
	CHECK_LINE(t,
		   "pathscope_icmp_rtt_seconds_sum{iface=\"test\\\"0\",queue=\"1\"} 0.000001471");
	CHECK_LINE(t, "pathscope_icmp_peer_rtt_seconds_sum{iface=\"test\\\"0\","
		      "peer=\"198.18.0.1\"} 0.0000015");
	CHECK_LINE(t, "pathscope_icmp_peer_response_seconds_sum{iface=\"test\\\"0\","
		      "peer=\"198.18.0.1\"} 3.000000001");
	CHECK_LINE(t, "pathscope_icmp_peer_response_seconds_count{iface=\"test\\\"0\","
		      "peer=\"other\"} 0");
}

static void test_features_and_escaping(const char *t)
{
	CHECK_LINE(t, "pathscope_packets_total{iface=\"e\\\\x\\ny\",queue=\"0\",hook=\"xdp\","
		      "direction=\"rx\"} 5");
	CHECK_LINE(t, "pathscope_l3_packets_total{iface=\"e\\\\x\\ny\",queue=\"0\",hook=\"xdp\","
		      "direction=\"rx\",class=\"malformed\"} 0");
	check_report(!strstr(t, "pathscope_frame_size_bytes_bucket{iface=\"e\\\\x"),
		     "no size histogram for an interface without the feature", "present");
	check_report(!strstr(t, "pathscope_ecn_packets_total{iface=\"e\\\\x"),
		     "no ECN counters for an interface without the feature", "present");
	CHECK_LINE(t, "pathscope_attachment_info{iface=\"e\\\\x\\ny\",ifindex=\"7\","
		      "xdp_mode=\"native\",tc_mode=\"tcx\",probe_mode=\"none\",features=\"class\","
		      "queues=\"all\",nqueues=\"2\"} 1");
	CHECK_TRUE("HELP and TYPE once for packets (2 interfaces)",
		   count_prefix(t, "# TYPE pathscope_packets_total ") == 1 &&
		       count_prefix(t, "# HELP pathscope_packets_total ") == 1);
	CHECK_LINE(t, "# TYPE pathscope_frame_size_bytes histogram");
	CHECK_LINE(t, "# TYPE pathscope_packets_total counter");
	CHECK_LINE(t, "# TYPE pathscope_icmp_peer_response_seconds summary");
	check_report(!strstr(t, "pathscope_kernel_"), "no kernel families without the feature",
		     "present");
	check_report(!strstr(t, "# TYPE pathscope_qdisc_sojourn_seconds"),
		     "no family header without samples", "present");
	check_grouping(t);
}

static void test_extra(const struct ps_snapshot *s)
{
	struct ps_prom_prog progs[] = { { "test\"0", "xdp_prog", 1500000000ULL, 42 } };
	struct ps_prom_iface ifs[] = { { "test\"0", true }, { "gone0", false } };
	struct ps_prom_extra x = { .version = "1.2.3",
				   .abi = 3,
				   .bpf_stats_enabled = 1,
				   .progs = progs,
				   .nprogs = 1,
				   .ifaces = ifs,
				   .nifaces = 2 };
	char *t;

	t = render(s, 1, &x);
	CHECK_LINE(t, "pathscope_build_info{version=\"1.2.3\",abi=\"3\"} 1");
	CHECK_LINE(t, "pathscope_up{iface=\"test\\\"0\"} 1");
	CHECK_LINE(t, "pathscope_up{iface=\"gone0\"} 0");
	CHECK_LINE(t, "pathscope_bpf_stats_enabled 1");
	CHECK_LINE(t,
		   "pathscope_bpf_run_seconds_total{iface=\"test\\\"0\",program=\"xdp_prog\"} 1.5");
	CHECK_LINE(t, "pathscope_bpf_runs_total{iface=\"test\\\"0\",program=\"xdp_prog\"} 42");
	check_grouping(t);
	free(t);
	x.bpf_stats_enabled = 0;
	t = render(s, 1, &x);
	CHECK_LINE(t, "pathscope_bpf_stats_enabled 0");
	check_report(!strstr(t, "pathscope_bpf_run"), "bpf_stats off: no per-program series",
		     "present");
	free(t);
	x.bpf_stats_enabled = -1;
	t = render(NULL, 0, &x);
	check_report(!strstr(t, "pathscope_bpf_"), "bpf_stats unknown: nothing about it",
		     "present");
	CHECK_LINE(t, "pathscope_up{iface=\"gone0\"} 0");
	check_report(!strstr(t, "pathscope_packets_total"), "no snapshots: no counters", "present");
	free(t);
}

int main(void)
{
	struct ps_snapshot s[2];
	char *t;

	fill0(&s[0]);
	fill1(&s[1]);
	t = render(s, 2, NULL);
	test_counters(t);
	test_hist(t);
	test_features_and_escaping(t);
	if (check_failures)
		fputs(t, stdout);
	free(t);
	test_extra(s);
	return check_exit_code();
}
