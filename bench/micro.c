// SPDX-License-Identifier: GPL-2.0
/* Micro benchmark: the cost per packet of pathscope's XDP, tc ingress and tc egress
 * programs, measured with BPF_PROG_TEST_RUN beside an empty program of the same type
 * (bench/empty.bpf.c) measured in the same run. Prints one JSON object on stdout. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/types.h>
#include <bpf/libbpf.h>
#include <bpf/bpf.h>
#include "pathscope/abi.h"
#include "pathscope/flow_sample.h"
#include "pathscope_xdp.skel.h"
#include "pathscope_tc.skel.h"

#define XDP_PASS_VERDICT 2u
#define TC_NEXT_VERDICT	 0xffffffffu
#define NQUEUES		 4 /* per-queue maps sized as for a 4-queue NIC */
#define FRAME_MAX	 1600
#define MAX_RUNS	 101
#define ARRAY_SIZE(a)	 (sizeof(a) / sizeof((a)[0]))

/* ---------------------------------------------------------------------- */
/* Frames                                                                 */

struct frame {
	const char *name;
	const char *what;
	__u8 b[FRAME_MAX];
	__u32 len;
};

static void wr16(__u8 *p, unsigned int v)
{
	p[0] = (__u8)(v >> 8);
	p[1] = (__u8)v;
}

static __u8 *eth(struct frame *f, unsigned int type)
{
	static const __u8 macs[12] = { 0x02, 0, 0xc6, 0x12, 0, 0x02, 0x02, 0, 0xc6, 0x12, 0, 0x01 };

	memset(f->b, 0, sizeof(f->b));
	memcpy(f->b, macs, sizeof(macs));
	wr16(f->b + 12, type);
	return f->b + 14;
}

/* IPv4 198.18.0.1 -> 198.18.0.2 carrying total - 20 bytes of proto. */
static __u8 *ipv4(__u8 *ip, __u8 proto, __u8 tos, unsigned int total)
{
	ip[0] = 0x45;
	ip[1] = tos;
	wr16(ip + 2, total);
	wr16(ip + 4, 0x1234);
	ip[6] = 0x40; /* DF */
	ip[8] = 64;
	ip[9] = proto;
	ip[12] = 198, ip[13] = 18, ip[14] = 0, ip[15] = 1;
	ip[16] = 198, ip[17] = 18, ip[18] = 0, ip[19] = 2;
	return ip + 20;
}

static void build_frames(struct frame *fr)
{
	__u8 *l4, *ip6;

	/* 64-byte UDP: 14 + 20 + 8 + 22 bytes of payload. */
	fr[0].name = "udp64";
	fr[0].what = "IPv4 UDP, 64-byte frame";
	fr[0].len = 64;
	l4 = ipv4(eth(&fr[0], 0x0800), 17, 0, 64 - 14);
	wr16(l4, 40000), wr16(l4 + 2, 5201), wr16(l4 + 4, 64 - 34), wr16(l4 + 6, 0xbeef);

	/* 1500-byte TCP: a full-MTU IPv4 packet (1514-byte frame), ACK. */
	fr[1].name = "tcp1500";
	fr[1].what = "IPv4 TCP, 1500-byte packet (1514-byte frame), ACK";
	fr[1].len = 1514;
	l4 = ipv4(eth(&fr[1], 0x0800), 6, 0, 1500);
	wr16(l4, 40000), wr16(l4 + 2, 5201);
	l4[4] = 0x12, l4[7] = 0x34; /* seq */
	l4[11] = 0x56;		    /* ack */
	l4[12] = 5 << 4;	    /* doff 5 */
	l4[13] = 0x10;		    /* ACK */
	wr16(l4 + 14, 502);	    /* window */

	/* ICMP echo reply, as ping's default (56 data bytes): 98-byte frame. */
	fr[2].name = "icmp_reply";
	fr[2].what = "IPv4 ICMP echo reply, 98-byte frame (no request pending)";
	fr[2].len = 98;
	l4 = ipv4(eth(&fr[2], 0x0800), 1, 0, 98 - 14);
	l4[0] = 0; /* echo reply */
	wr16(l4 + 4, 0x4242), wr16(l4 + 6, 7);

	/* CE-marked IPv6 UDP, 128-byte frame: traffic class ECN = 3. */
	fr[3].name = "ipv6_ce";
	fr[3].what = "IPv6 UDP, CE-marked, 128-byte frame";
	fr[3].len = 128;
	ip6 = eth(&fr[3], 0x86dd);
	ip6[0] = 0x60;
	ip6[1] = 0x3 << 4; /* traffic class 0x03: ECN CE */
	wr16(ip6 + 4, 128 - 54);
	ip6[6] = 17;
	ip6[7] = 64;
	ip6[8] = 0x20, ip6[9] = 0x01, ip6[10] = 0x0d, ip6[11] = 0xb8, ip6[23] = 1;
	ip6[24] = 0x20, ip6[25] = 0x01, ip6[26] = 0x0d, ip6[27] = 0xb8, ip6[39] = 2;
	l4 = ip6 + 40;
	wr16(l4, 40000), wr16(l4 + 2, 5201), wr16(l4 + 4, 128 - 54), wr16(l4 + 6, 0xbeef);
}

/* ---------------------------------------------------------------------- */
/* Programs                                                               */

#define MAX_FSETS 16
static struct fset {
	const char *name;
	__u32 bits;
	__u32 flow_sample; /* flows: N (0: attach's default) */
} fsets[MAX_FSETS] = {
	{ "none", 0, 0 },
	{ "default", PS_F_DEFAULT, 0 },
	/* the default set and an opt-in feature: its cost on a line of its own */
	{ "default_tcp", PS_F_DEFAULT | PS_F_TCP, 0 },
	{ "default_flows", PS_F_DEFAULT | PS_F_FLOWS, 0 },
	{ "default_flows_n1", PS_F_DEFAULT | PS_F_FLOWS, 1 },
	{ "default_firsthop", PS_F_DEFAULT | PS_F_FIRSTHOP, 0 },
	{ "all", PS_F_ALL, 0 },
};
static size_t nfsets = 7; /* the defaults above; --fset NAME=MASK[:N] replaces them */
#define NFSETS MAX_FSETS

enum { P_XDP, P_TCI, P_TCE, NPROGS };
static const char *const prog_names[NPROGS] = { "xdp", "tc_ingress", "tc_egress" };

struct loaded {
	struct pathscope_xdp *x[NFSETS];
	struct pathscope_tc *t[NFSETS];
	int fd[NPROGS][NFSETS];
	struct bpf_object *empty;
	int empty_fd[NPROGS];
	int clock_fd; /* XDP: one bpf_ktime_get_ns(), the sampling tick's extra work */
};

/* Per-queue maps are declared with 2 slots; the loader sizes them. */
static void size_queue_maps(struct bpf_object *obj)
{
	static const char *const per_queue[] = { "xdp_stats", "tci_stats",  "tce_stats",
						 "d2s_stats", "icmp_stats", "tcp_stats",
						 "tcp_hist",  "sock_stats", "flows_q",
						 "fh_stats" };
	struct bpf_map *m;
	size_t i;

	for (m = bpf_object__next_map(obj, NULL); m; m = bpf_object__next_map(obj, m))
		for (i = 0; i < ARRAY_SIZE(per_queue); i++)
			if (!strcmp(bpf_map__name(m), per_queue[i]))
				bpf_map__set_max_entries(m, NQUEUES + 1);
}

static int load_all(struct loaded *l, const char *empty_path)
{
	struct bpf_program *p;
	size_t i;
	int err;

	for (i = 0; i < nfsets; i++) {
		l->x[i] = pathscope_xdp__open();
		l->t[i] = pathscope_tc__open();
		if (!l->x[i] || !l->t[i])
			return -ENOMEM;
		l->x[i]->rodata->ps_features = l->t[i]->rodata->ps_features = fsets[i].bits;
		l->x[i]->rodata->ps_nqueues = l->t[i]->rodata->ps_nqueues = NQUEUES;
		l->x[i]->rodata->ps_all_queues = l->t[i]->rodata->ps_all_queues = 1;
		l->x[i]->rodata->ps_flow_sample =
		    fsets[i].flow_sample ? fsets[i].flow_sample : PS_FLOW_SAMPLE_DEFAULT;
		l->x[i]->rodata->ps_flow_skip_k = ps_flow_skip_k(l->x[i]->rodata->ps_flow_sample);
		l->t[i]->rodata->ps_rx_queue_base = 0; /* veth: queue_mapping 0 = queue 0 */
		size_queue_maps(l->x[i]->obj);
		size_queue_maps(l->t[i]->obj);
		err = pathscope_xdp__load(l->x[i]);
		if (!err)
			err = pathscope_tc__load(l->t[i]);
		if (err)
			return err;
		l->fd[P_XDP][i] = bpf_program__fd(l->x[i]->progs.pathscope_xdp);
		l->fd[P_TCI][i] = bpf_program__fd(l->t[i]->progs.pathscope_tc_ingress);
		l->fd[P_TCE][i] = bpf_program__fd(l->t[i]->progs.pathscope_tc_egress);
	}
	l->empty = bpf_object__open_file(empty_path, NULL);
	if (libbpf_get_error(l->empty)) {
		l->empty = NULL;
		return -ENOENT;
	}
	err = bpf_object__load(l->empty);
	if (err)
		return err;
	p = bpf_object__find_program_by_name(l->empty, "empty_xdp");
	l->empty_fd[P_XDP] = p ? bpf_program__fd(p) : -1;
	p = bpf_object__find_program_by_name(l->empty, "empty_tc");
	l->empty_fd[P_TCI] = l->empty_fd[P_TCE] = p ? bpf_program__fd(p) : -1;
	p = bpf_object__find_program_by_name(l->empty, "clock_xdp");
	l->clock_fd = p ? bpf_program__fd(p) : -1;
	return l->empty_fd[P_XDP] < 0 || l->empty_fd[P_TCI] < 0 || l->clock_fd < 0 ? -ENOENT : 0;
}

static void free_all(struct loaded *l)
{
	size_t i;

	for (i = 0; i < nfsets; i++) {
		pathscope_xdp__destroy(l->x[i]);
		pathscope_tc__destroy(l->t[i]);
	}
	bpf_object__close(l->empty);
}

/* ---------------------------------------------------------------------- */
/* Measuring                                                              */

/* One BPF_PROG_TEST_RUN of repeat repetitions: the kernel's average ns per
 * repetition in *ns. Checks the pass verdict. 0 or -errno. */
static int run(int prog, const struct frame *f, __u32 repeat, __u32 verdict, __u32 *ns)
{
	LIBBPF_OPTS(bpf_test_run_opts, o, .data_in = f->b, .data_size_in = f->len,
		    .repeat = (int)repeat);

	if (bpf_prog_test_run_opts(prog, &o))
		return -errno;
	if (o.retval != verdict) {
		fprintf(stderr, "micro: verdict %u, want %u\n", o.retval, verdict);
		return -EBADMSG;
	}
	*ns = o.duration;
	return 0;
}

static int cmp_u32(const void *a, const void *b)
{
	__u32 x = *(const __u32 *)a, y = *(const __u32 *)b;

	return x < y ? -1 : x > y;
}

/* Median of n values (sorts v); the mean of the middle two when n is even. */
static double median(__u32 *v, size_t n)
{
	qsort(v, n, sizeof(*v), cmp_u32);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + (double)v[n / 2]) / 2;
}

static void print_list(const char *key, const __u32 *v, size_t n)
{
	size_t i;

	printf("\"%s\": [", key);
	for (i = 0; i < n; i++)
		printf("%s%u", i ? ", " : "", v[i]);
	printf("]");
}

struct prog_size {
	__u32 xlated, jited;
};

static struct prog_size prog_size(int fd)
{
	struct bpf_prog_info info;
	__u32 len = sizeof(info);
	struct prog_size s = { 0, 0 };

	memset(&info, 0, sizeof(info));
	if (!bpf_obj_get_info_by_fd(fd, &info, &len)) {
		s.xlated = info.xlated_prog_len;
		s.jited = info.jited_prog_len;
	}
	return s;
}

/* run_time_ns / run_cnt that bpf_stats recorded over one run of repeat. */
static double stats_per_run(int prog, const struct frame *f, __u32 repeat, __u32 verdict)
{
	struct bpf_prog_info a, b;
	__u32 len = sizeof(a), ns;

	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	if (bpf_obj_get_info_by_fd(prog, &a, &len) || run(prog, f, repeat, verdict, &ns))
		return -1;
	len = sizeof(b);
	if (bpf_obj_get_info_by_fd(prog, &b, &len) || b.run_cnt == a.run_cnt)
		return -1;
	return (double)(b.run_time_ns - a.run_time_ns) / (double)(b.run_cnt - a.run_cnt);
}

static unsigned long arg_num(const char *s, unsigned long lo, unsigned long hi)
{
	char *end;
	unsigned long v = strtoul(s, &end, 10);

	if (*end || v < lo || v > hi) {
		fprintf(stderr, "micro: bad number '%s' (%lu..%lu)\n", s, lo, hi);
		exit(2);
	}
	return v;
}

/* For every program, feature set (none, default, all) and frame, each of
 * --runs rounds runs the empty program and then pathscope's, each with
 * --repeat repetitions; the kernel reports the average time per repetition.
 * The figure is the median over the rounds.
 *
 * Sampling: with the d2s feature the XDP program takes every PS_D2S_EVERY-th
 * packet of each RX queue on each CPU as a candidate sample. BPF_PROG_TEST_RUN
 * reports only an average, so the figure includes that share. In this loop a
 * sample, once taken, is never matched (no tc program runs), so it stays
 * pending for PS_D2S_MAX_AGE_NS and the candidates in between do one extra
 * clock read each. That clock read is measured too ("clock": an XDP program
 * calling bpf_ktime_get_ns() once, beside the empty one), so that the report
 * can subtract its 1/PS_D2S_EVERY share. Short runs (repeat < 64, so that none
 * is sampled) are not usable: every XDP run with repeat > 1 re-patches the
 * kernel's XDP dispatcher and waits for two RCU grace periods, and starts with
 * cold caches (the empty program reads ~55 ns at repeat 63, ~33 ns at repeat
 * 1000000 on the project's VM).
 *
 * Last, with run-time statistics on (BPF_ENABLE_STATS, for this process only
 * while its descriptor is open), the run time that bpf_stats records per run of
 * the empty programs: its own floor, which the live benchmark reports beside
 * the BPF time per packet of each configuration.
 *
 * Usage: micro EMPTY_BPF_O [--repeat N] [--runs N] */
int main(int argc, char **argv)
{
	size_t nfsets_given = 0;
	static struct frame frames[4];
	static struct loaded l;
	__u32 repeat = 1000000, runs = 5;
	__u32 vp[MAX_RUNS], ve[MAX_RUNS];
	const char *empty_path = NULL;
	int i, ncpus, err, stats_fd, first = 1;
	size_t p, fs, f, r;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--repeat") && i + 1 < argc)
			repeat = (__u32)arg_num(argv[++i], 1, 100000000);
		else if (!strcmp(argv[i], "--runs") && i + 1 < argc)
			runs = (__u32)arg_num(argv[++i], 1, MAX_RUNS);
		else if (!strcmp(argv[i], "--fset") && i + 1 < argc) {
			/* NAME=MASK[:N]: feature sets of one's own (the first
			 * replaces the defaults), e.g. to cost one feature at a
			 * time; N: flows' --flow-sample */
			char *eq = strchr(argv[++i], '='), *colon;

			if (!eq || nfsets_given == MAX_FSETS) {
				fprintf(stderr, "micro: bad --fset '%s' (NAME=MASK)\n", argv[i]);
				return 2;
			}
			*eq = '\0';
			colon = strchr(eq + 1, ':');
			fsets[nfsets_given].flow_sample =
			    colon ? (__u32)arg_num(colon + 1, 1, PS_FLOW_SAMPLE_MAX) : 0;
			if (colon)
				*colon = '\0';
			fsets[nfsets_given].name = argv[i];
			fsets[nfsets_given++].bits = (__u32)strtoul(eq + 1, NULL, 0);
			nfsets = nfsets_given;
		} else if (argv[i][0] != '-' && !empty_path)
			empty_path = argv[i];
		else {
			fprintf(stderr, "usage: micro EMPTY_BPF_O [--repeat N] [--runs N]\n");
			return 2;
		}
	}
	if (!empty_path) {
		fprintf(stderr, "usage: micro EMPTY_BPF_O [--repeat N] [--runs N]\n");
		return 2;
	}
	ncpus = libbpf_num_possible_cpus();
	if (ncpus <= 0) {
		fprintf(stderr, "micro: out of memory\n");
		return 1;
	}
	build_frames(frames);
	err = load_all(&l, empty_path);
	if (err) {
		fprintf(stderr, "micro: cannot load the programs: %s\n", strerror(-err));
		free_all(&l);
		return 1;
	}

	printf("{\"repeat\": %u, \"runs\": %u, \"d2s_sample_every\": %d, \"possible_cpus\": %d, "
	       "\"nqueues\": %d, \"flow_sample_default\": %d,\n",
	       repeat, runs, PS_D2S_EVERY, ncpus, NQUEUES, PS_FLOW_SAMPLE_DEFAULT);
	printf("\"value_sizes\": {\"ps_qstats\": %zu, \"ps_icmp_qstats\": %zu, "
	       "\"ps_d2s_qstats\": %zu, \"ps_txlat_qstats\": %zu, \"ps_kern_qstats\": %zu},\n",
	       sizeof(struct ps_qstats), sizeof(struct ps_icmp_qstats),
	       sizeof(struct ps_d2s_qstats), sizeof(struct ps_txlat_qstats),
	       sizeof(struct ps_kern_qstats));
	printf("\"frames\": {");
	for (f = 0; f < ARRAY_SIZE(frames); f++)
		printf("%s\"%s\": {\"len\": %u, \"what\": \"%s\"}", f ? ", " : "", frames[f].name,
		       frames[f].len, frames[f].what);
	printf("},\n\"programs\": [");
	for (p = 0; p < NPROGS; p++)
		for (fs = 0; fs < nfsets; fs++) {
			struct prog_size s = prog_size(l.fd[p][fs]);

			printf(
			    "%s\n  {\"prog\": \"%s\", \"features\": \"%s\", \"xlated_bytes\": %u, "
			    "\"jited_bytes\": %u}",
			    first ? "" : ",", prog_names[p], fsets[fs].name, s.xlated, s.jited);
			first = 0;
		}
	printf("],\n\"results\": [");
	fflush(stdout);

	/* Averages over --repeat, runs alternating empty / pathscope. */
	first = 1;
	for (p = 0; p < NPROGS; p++) {
		__u32 verdict = p == P_XDP ? XDP_PASS_VERDICT : TC_NEXT_VERDICT;

		for (fs = 0; fs < nfsets; fs++)
			for (f = 0; f < ARRAY_SIZE(frames); f++) {
				for (r = 0; r < runs; r++) {
					err =
					    run(l.empty_fd[p], &frames[f], repeat, verdict, &ve[r]);
					if (!err)
						err = run(l.fd[p][fs], &frames[f], repeat, verdict,
							  &vp[r]);
					if (err)
						goto fail;
				}
				printf("%s\n  {\"prog\": \"%s\", \"features\": \"%s\", \"frame\": "
				       "\"%s\", ",
				       first ? "" : ",", prog_names[p], fsets[fs].name,
				       frames[f].name);
				print_list("ns", vp, runs);
				printf(", ");
				print_list("empty_ns", ve, runs);
				printf(", \"median_ns\": %.1f, \"empty_median_ns\": %.1f}",
				       median(vp, runs), median(ve, runs));
				fflush(stdout);
				first = 0;
			}
	}

	/* The sampling tick's clock read, beside the empty XDP program. */
	printf("],\n\"clock\": [");
	for (f = 0; f < ARRAY_SIZE(frames); f++) {
		for (r = 0; r < runs; r++) {
			err = run(l.empty_fd[P_XDP], &frames[f], repeat, XDP_PASS_VERDICT, &ve[r]);
			if (!err)
				err = run(l.clock_fd, &frames[f], repeat, XDP_PASS_VERDICT, &vp[r]);
			if (err)
				goto fail;
		}
		printf("%s\n  {\"prog\": \"xdp\", \"frame\": \"%s\", ", f ? "," : "",
		       frames[f].name);
		print_list("ns", vp, runs);
		printf(", ");
		print_list("empty_ns", ve, runs);
		printf(", \"median_ns\": %.1f, \"empty_median_ns\": %.1f}", median(vp, runs),
		       median(ve, runs));
		fflush(stdout);
	}
	/* What kernel.bpf_stats_enabled records for a program that does nothing
	 * (its own clock reads), for the live benchmark's BPF time per packet. */
	printf("],\n\"bpf_stats_floor\": ");
	stats_fd = bpf_enable_stats(BPF_STATS_RUN_TIME);
	if (stats_fd < 0) {
		printf("null");
	} else {
		double xdp = stats_per_run(l.empty_fd[P_XDP], &frames[0], repeat, XDP_PASS_VERDICT);
		double tc = stats_per_run(l.empty_fd[P_TCI], &frames[0], repeat, TC_NEXT_VERDICT);

		close(stats_fd);
		printf("{\"empty_xdp_ns\": %.1f, \"empty_tc_ns\": %.1f}", xdp, tc);
	}
	printf("}\n");
	free_all(&l);
	return 0;
fail:
	printf("]}\n");
	fprintf(stderr, "micro: BPF_PROG_TEST_RUN: %s\n", strerror(-err));
	free_all(&l);
	return 1;
}
