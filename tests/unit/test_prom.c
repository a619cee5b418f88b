// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The Prometheus renderer on synthetic snapshots with known counts, at both detail
 * levels of serve and per family (--queue-detail), and the series count of a 64-queue
 * interface (at most 1,500 with the default features). */
#include <linux/types.h>
#include <stdlib.h>

#include "tests/lib/check.h"
#include "stats/format/prom.h"
#include "stats/render/render.h"
#include "tests/unit/snapshot_fixture.h"

#define NQ 2

static struct ps_qstats slots[2][PS_HOOK_COUNT][NQ + 1];
static struct ps_icmp_qstats echo[NQ + 1];
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

/* --detail interface (the default, extra NULL): per queue what differs
 * between queues, the rest per interface and hook, summed over the queues. */
static void test_interface_level(const struct ps_snapshot *s)
{
	char *t = render(s, 2, NULL);

	CHECK_LINE(t, "pathscope_packets_total{iface=\"test\\\"0\",queue=\"0\",hook=\"xdp\","
		      "direction=\"rx\"} 101");
	CHECK_LINE(t, "pathscope_bytes_total{iface=\"test\\\"0\",queue=\"other\","
		      "hook=\"tc_egress\",direction=\"tx\"} 18446744073709551615");
	CHECK_LINE(t, "pathscope_ce_packets_total{iface=\"test\\\"0\",queue=\"0\",hook=\"xdp\","
		      "direction=\"rx\"} 10");
	CHECK_LINE(t, "pathscope_ecn_packets_total{iface=\"test\\\"0\",hook=\"xdp\","
		      "direction=\"rx\",ipver=\"ipv4\",codepoint=\"ce\"} 10");
	CHECK_LINE(t, "pathscope_l3_packets_total{iface=\"test\\\"0\",hook=\"xdp\","
		      "direction=\"rx\",class=\"ipv4\"} 101");
	CHECK_LINE(t, "pathscope_l3_packets_total{iface=\"e\\\\x\\ny\",hook=\"xdp\","
		      "direction=\"rx\",class=\"malformed\"} 0");
#define ISZ(h, d, le)                                                                         \
	"pathscope_frame_size_bytes_bucket{iface=\"test\\\"0\",hook=\"" h "\",direction=\"" d \
	"\",le=\"" le "\"}"
	CHECK_LINE(t, ISZ("xdp", "rx", "63") " 0");
	CHECK_LINE(t, ISZ("xdp", "rx", "127") " 100");
	CHECK_LINE(t, ISZ("xdp", "rx", "+Inf") " 101");
	CHECK_LINE(t, ISZ("tc_egress", "tx", "127") " 18446744073709551615");
	CHECK_LINE(t, ISZ("tc_egress", "tx", "+Inf") " 36893488147419103230");
	CHECK_LINE(t, ISZ("tc_ingress", "rx", "+Inf") " 0");
	CHECK_LINE(t, "pathscope_frame_size_bytes_sum{iface=\"test\\\"0\",hook=\"xdp\","
		      "direction=\"rx\"} 7914");
	CHECK_LINE(t, "pathscope_frame_size_bytes_count{iface=\"test\\\"0\",hook=\"xdp\","
		      "direction=\"rx\"} 101");
	check_report(count_prefix(t, "pathscope_frame_size_bytes_") == 3 * 17,
		     "interface level: one size histogram per hook (3 x 17 series)", "got %d",
		     count_prefix(t, "pathscope_frame_size_bytes_"));
	CHECK_LINE(t, "pathscope_skb_segments_bucket{iface=\"test\\\"0\",hook=\"tc_ingress\","
		      "direction=\"rx\",le=\"15\"} 3");
	CHECK_LINE(t, "pathscope_segments_total{iface=\"test\\\"0\",hook=\"tc_ingress\","
		      "direction=\"rx\"} 12");
	CHECK_LINE(t, "pathscope_icmp_rtt_seconds_bucket{iface=\"test\\\"0\","
		      "le=\"0.000002047\"} 1");
	CHECK_LINE(t, "pathscope_icmp_rtt_seconds_sum{iface=\"test\\\"0\"} 0.000001471");
	CHECK_LINE(t, "pathscope_icmp_echo_requests_sent_total{iface=\"test\\\"0\"} 1");
	CHECK_LINE(t, "pathscope_icmp_echo_replies_matched_total{iface=\"test\\\"0\"} 1");
	CHECK_LINE(t, "pathscope_icmp_peer_rtt_seconds_sum{iface=\"test\\\"0\","
		      "peer=\"198.18.0.1\"} 0.0000015");
	{
		static const char *const per_iface[] = {
			"pathscope_frame_size_bytes",	   "pathscope_skb_segments",
			"pathscope_l3_packets_total",	   "pathscope_l4_packets_total",
			"pathscope_parse_errors_total",	   "pathscope_ecn_packets_total",
			"pathscope_segments_total",	   "pathscope_icmp_rtt_seconds",
			"pathscope_icmp_response_seconds", "pathscope_icmp_echo_expired_total",
		};
		char pre[128];
		size_t i;
		int bad = 0;

		for (i = 0; i < PS_ARRAY_SIZE(per_iface); i++) {
			const char *x;

			snprintf(pre, sizeof(pre), "\n%s", per_iface[i]);
			for (x = strstr(t, pre); x; x = strstr(x + 1, pre)) {
				const char *e = strchr(x + 1, '\n');

				if (strstr(x + 1, "queue=\"") && strstr(x + 1, "queue=\"") < e) {
					printf("# per queue: %.*s\n", (int)(e - x - 1), x + 1);
					bad++;
				}
			}
		}
		CHECK_TRUE("interface level: no queue label on histograms, classes, ECN, "
			   "ICMP counters",
			   bad == 0);
	}
	check_grouping(t);
	if (check_failures)
		fputs(t, stdout);
	free(t);
}

/* --queue-detail: only the families of the features given go per queue. */
static void test_family_detail(const struct ps_snapshot *s)
{
	struct ps_prom_extra x = { .bpf_stats_enabled = -1, .queue_detail = PS_F_SIZES };
	char *t = render(s, 2, &x);

	CHECK_LINE(t, "pathscope_frame_size_bytes_bucket{iface=\"test\\\"0\",queue=\"0\","
		      "hook=\"xdp\",direction=\"rx\",le=\"127\"} 100");
	CHECK_NO_LINE("--queue-detail sizes: no per-interface size histogram", t,
		      ISZ("xdp", "rx", "127") " 100");
	CHECK_LINE(t, "pathscope_skb_segments_bucket{iface=\"test\\\"0\",hook=\"tc_ingress\","
		      "direction=\"rx\",le=\"15\"} 3");
	CHECK_LINE(t, "pathscope_icmp_rtt_seconds_sum{iface=\"test\\\"0\"} 0.000001471");
	CHECK_LINE(t, "pathscope_ecn_packets_total{iface=\"test\\\"0\",hook=\"xdp\","
		      "direction=\"rx\",ipver=\"ipv4\",codepoint=\"ce\"} 10");
	check_grouping(t);
	free(t);
	x.queue_detail = PS_F_ICMP | PS_F_GRO;
	t = render(s, 2, &x);
	CHECK_LINE(t,
		   "pathscope_icmp_rtt_seconds_sum{iface=\"test\\\"0\",queue=\"1\"} 0.000001471");
	CHECK_LINE(t, "pathscope_icmp_echo_requests_sent_total{iface=\"test\\\"0\","
		      "queue=\"other\"} 1");
	CHECK_LINE(t, "pathscope_skb_segments_sum{iface=\"test\\\"0\",queue=\"1\","
		      "hook=\"tc_ingress\",direction=\"rx\"} 12");
	CHECK_LINE(t, ISZ("xdp", "rx", "+Inf") " 101");
	check_grouping(t);
	free(t);
}

/* ---- every series of one level against the other ------------------------ */

struct sample {
	char key[900]; /* name{labels} */
	ps_u128 v;     /* the value x 1e9 (integers and decimal seconds alike) */
};

static int parse(const char *text, struct sample **out)
{
	const char *p = text, *e, *sp;
	struct sample *a = NULL;
	int n = 0, cap = 0;

	for (; *p; p = e + 1) {
		struct sample x = {};
		const char *d;
		int frac = 0;

		e = strchr(p, '\n');
		if (!e)
			break;
		if (*p == '#')
			continue;
		sp = e;
		while (sp > p && sp[-1] != ' ')
			sp--;
		snprintf(x.key, sizeof(x.key), "%.*s", (int)(sp - 1 - p), p);
		for (d = sp; d < e; d++) {
			if (*d == '.') {
				frac = 1;
				continue;
			}
			x.v = x.v * 10 + (unsigned int)(*d - '0');
			frac += frac > 0;
		}
		for (frac = frac ? frac - 1 : 0; frac < 9; frac++)
			x.v *= 10;
		if (n == cap) {
			cap = cap ? 2 * cap : 1024;
			a = realloc(a, (size_t)cap * sizeof(*a));
		}
		a[n++] = x;
	}
	*out = a;
	return n;
}

/* key without its queue label (false: it has none) */
static bool drop_queue(const char *key, char *out, size_t len)
{
	const char *q = strstr(key, "queue=\""), *e;

	if (!q)
		return false;
	e = strchr(q + 7, '"') + 1;
	if (*e == ',')
		e++;
	else if (q[-1] == ',')
		q--;
	snprintf(out, len, "%.*s%s", (int)(q - key), key, e);
	return true;
}

static void test_levels_agree(const struct ps_snapshot *s, int n)
{
	struct ps_prom_extra x = { .abi = PS_ABI_VERSION,
				   .bpf_stats_enabled = -1,
				   .queue_detail = PS_F_ALL };
	char *ti = render(s, n, NULL), *tq = render(s, n, &x), k[900];
	struct sample *a, *b;
	int na = parse(ti, &a), nb = parse(tq, &b), i, j, same = 0, sums = 0, bad = 0, lost = 0;

	for (i = 0; i < na; i++) {
		ps_u128 sum = 0;
		int parts = 0;

		for (j = 0; j < nb; j++)
			if (strcmp(a[i].key, b[j].key) == 0)
				break;
		if (j < nb) {
			same += a[i].v == b[j].v;
			bad += a[i].v != b[j].v;
			continue;
		}
		for (j = 0; j < nb; j++)
			if (drop_queue(b[j].key, k, sizeof(k)) && strcmp(k, a[i].key) == 0) {
				sum += b[j].v;
				parts++;
			}
		if (parts && sum == a[i].v) {
			sums++;
		} else {
			bad++;
			printf("# %s: %d queue series, %s\n", a[i].key, parts,
			       parts ? "another sum" : "none");
		}
	}
	/* Nothing lost: every queue series is kept, or summed into one. */
	for (j = 0; j < nb; j++) {
		bool found = false;

		for (i = 0; i < na && !found; i++)
			found = strcmp(a[i].key, b[j].key) == 0 ||
				(drop_queue(b[j].key, k, sizeof(k)) && strcmp(k, a[i].key) == 0);
		if (!found) {
			lost++;
			printf("# lost at the interface level: %s\n", b[j].key);
		}
	}
	printf("# %d series per interface (%d kept, %d sums) of %d per queue\n", na, same, sums,
	       nb);
	check_report(bad == 0 && sums > 0 && same > 0,
		     "every series of --detail interface is one of --detail queue or the exact sum "
		     "of its queues",
		     "%d differ", bad);
	check_report(lost == 0,
		     "every series of --detail queue is in --detail interface or in "
		     "one of its sums",
		     "%d lost", lost);
	free(a);
	free(b);
	free(ti);
	free(tq);
}

/* A 64-queue interface, idle (peer entries: "other" only): the series count
 * of each level, with the default features and with every feature. */
static int count_samples(const char *t)
{
	const char *p;
	int c = 0;

	for (p = t; *p; p++)
		if ((p == t || p[-1] == '\n') && *p != '#' && *p != '\n')
			c++;
	return c;
}

#define BIGQ 64
static struct ps_qstats big_hook[PS_HOOK_COUNT][BIGQ + 1];
static struct ps_icmp_qstats big_echo[BIGQ + 1];
static struct ps_d2s_qstats big_d2s[BIGQ + 1];
static struct ps_tcp_qstats big_tcp[BIGQ + 1];
static struct ps_tcp_qhist big_tcp_hist[BIGQ + 1];
static struct ps_sock_qstats big_sock[BIGQ + 1];
static struct ps_sock_qhist big_sock_hist[BIGQ + 1];
static struct ps_sock_pend big_sock_pend[BIGQ + 1];
static struct ps_txlat_qstats big_txlat[BIGQ + 1];

static void test_series_count(void)
{
	static struct ps_peer_entry other_peer;
	static struct ps_tcp_peer_entry other_subnet;
	static struct ps_sock_port_entry other_port;
	struct ps_prom_extra x = { .bpf_stats_enabled = -1 };
	struct ps_snapshot b;
	int f, h, c[2][2];
	char *t;

	memset(&b, 0, sizeof(b));
	b.meta.abi_version = PS_ABI_VERSION;
	snprintf(b.meta.ifname, sizeof(b.meta.ifname), "eth1");
	b.meta.nqueues = BIGQ;
	b.meta.all_queues = 1;
	b.nslots = BIGQ + 1;
	for (h = 0; h < PS_HOOK_COUNT; h++)
		b.hook[h] = big_hook[h];
	b.echo = big_echo;
	b.d2s = big_d2s;
	b.tcp = big_tcp;
	b.tcp_hist = big_tcp_hist;
	b.peers = &other_peer;
	b.npeers = 1;
	b.tcp_peers = &other_subnet;
	b.ntcp_peers = 1;
	for (f = 0; f < 2; f++) {
		b.meta.features = f ? PS_F_ALL & ~PS_F_KERNEL : PS_F_DEFAULT;
		if (f) { /* every feature but kernel (its lists depend on CPUs and NAPI) */
			b.sock = big_sock;
			b.sock_hist = big_sock_hist;
			b.sock_pend = big_sock_pend;
			b.sock_ports = &other_port;
			b.nsock_ports = 1;
			b.txlat = big_txlat;
		}
		x.queue_detail = 0;
		t = render(&b, 1, &x);
		c[f][0] = count_samples(t);
		free(t);
		x.queue_detail = PS_F_ALL;
		t = render(&b, 1, &x);
		c[f][1] = count_samples(t);
		free(t);
	}
	printf("# 64 queues, idle: default features %d series (interface), %d (queue); "
	       "all but kernel %d, %d\n",
	       c[0][0], c[0][1], c[1][0], c[1][1]);
	check_report(c[0][0] <= 1500,
		     "64 queues, default features, --detail interface: <= 1500 series", "%d",
		     c[0][0]);
	check_report(c[0][1] > 10 * c[0][0], "--detail queue has every queue's series", "%d",
		     c[0][1]);
}

/* The checks: exact sample lines, cumulative power-of-two buckets, label
 * escaping, one HELP and TYPE per family with its samples grouped after it,
 * extreme values; at both detail levels of serve (--detail queue: every family
 * per queue; the default, interface: per queue only what differs between
 * queues, the rest summed per interface and hook) and per family
 * (--queue-detail): every series of the default is a series of --detail queue
 * or the exact sum of its queues; and the series count of a 64-queue interface.
 *
 * A 64-queue snapshot with the default features has at most 1,500 series; the
 * sums hold on the test's own snapshots and on the golden fixture. */
int main(void)
{
	struct ps_prom_extra qd = { .bpf_stats_enabled = -1, .queue_detail = PS_F_ALL };
	static struct ps_snapshot fx[2][2];
	struct ps_snapshot s[2], cur[2];
	char *t;

	fill0(&s[0]);
	fill1(&s[1]);
	t = render(s, 2, &qd);
	test_counters(t);
	test_hist(t);
	test_features_and_escaping(t);
	if (check_failures)
		fputs(t, stdout);
	free(t);
	test_interface_level(s);
	test_family_detail(s);
	test_levels_agree(s, 2);
	fx_fill(fx);
	cur[0] = fx[0][1];
	cur[1] = fx[1][1];
	test_levels_agree(cur, 2);
	test_series_count();
	test_extra(s);
	return check_exit_code();
}
