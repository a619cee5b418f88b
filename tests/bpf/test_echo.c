// SPDX-License-Identifier: GPL-2.0
/*
 * The ICMP echo feature (include/pathscope/echo.bpf.h) on crafted frames
 * through BPF_PROG_TEST_RUN, the XDP and tc objects sharing the echo maps as
 * the loader makes them. Each latency is held to CLOCK_MONOTONIC
 * (tests/lib/bracket.h):
 *   - RTT: an echo request leaving through tc egress, its reply arriving at
 *     XDP 2 ms later;
 *   - response: a request arriving at XDP, this host's reply leaving through
 *     tc egress 2 ms later.
 * The exact per-peer sum lies in the bracket; the sample's bucket too, in the
 * slot of the RX queue (XDP runs on queue 0) and under the peer's address;
 * and the counters move by exactly one. IPv4 and IPv6. A reply with no
 * request, or with another sequence number, is not timed.
 *
 * This host is 10.0.0.1 (fd00::1); the peer is 10.0.0.2 (fd00::2).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/types.h>
#include <bpf/libbpf.h>
#include <bpf/bpf.h>
#include "pathscope/abi.h"
#include "pathscope_xdp.skel.h"
#include "pathscope_tc.skel.h"
#include "loader/features.h"
#include "tests/lib/bracket.h"
#include "tests/lib/check.h"
#include "tests/lib/frame.h"
#include "tests/lib/skel_pair.h"

#define NSLOTS 2 /* nqueues 1: queue 0 and "other" */

static struct pathscope_xdp *xdp;
static struct pathscope_tc *tc;
static int ncpus;

/* One echo packet: request or reply, IPv4 or IPv6, arriving (peer -> this
 * host) or leaving, with its sequence number (id 7). */
struct echo {
	bool v6, request, rx;
	__u16 seq;
};

static void build(struct frame *f, const struct echo *e)
{
	__u8 *ip, *icmp, a[16], b[16];
	__u32 alen = e->v6 ? 16 : 4, off = e->v6 ? 8 : 12;

	memset(f, 0, sizeof(*f));
	put_eth(f, 0, e->v6 ? ETH_IPV6 : ETH_IP);
	ip = e->v6 ? put_ipv6(f, P_ICMPV6, 0) : put_ipv4(f, P_ICMP, 0);
	/* The builders write local (.1, ::1) -> peer (.2, ::2): swap arriving. */
	if (e->rx) {
		memcpy(a, ip + off, alen);
		memcpy(b, ip + off + alen, alen);
		memcpy(ip + off, b, alen);
		memcpy(ip + off + alen, a, alen);
	}
	put_icmp(f, e->v6 ? (e->request ? 128 : 129) : (e->request ? 8 : 0));
	icmp = f->b + f->len - 8;
	wr16(icmp + 6, e->seq);
	put_bytes(f, 56);
	fix_lengths(f);
}

/* Run e through XDP (arriving) or tc egress (leaving), timed in *s. */
static void run(const struct echo *e, struct span *s)
{
	struct frame f;
	LIBBPF_OPTS(bpf_test_run_opts, o);
	int fd = e->rx ? bpf_program__fd(xdp->progs.pathscope_xdp)
		       : bpf_program__fd(tc->progs.pathscope_tc_egress);
	int err, want = e->rx ? 2 : -1; /* XDP_PASS, TC_ACT_UNSPEC */
	struct span ignored;

	build(&f, e);
	o.data_in = f.b;
	o.data_size_in = f.len;
	o.repeat = 1;
	if (!s)
		s = &ignored;
	s->start = mono_ns();
	err = bpf_prog_test_run_opts(fd, &o);
	s->end = mono_ns();
	if (err || (int)o.retval != want)
		check_report(0, e->rx ? "xdp run" : "tc egress run", "err %d, verdict %d (want %d)",
			     err ? -errno : 0, (int)o.retval, want);
}

/* ---- reading the maps ----------------------------------------------------- */

struct state {
	struct ps_echo_qstats q[NSLOTS];      /* summed over the CPUs */
	__u64 rtt_n, rtt_ns, resp_n, resp_ns; /* the peer (family v6 ? 6 : 4) */
};

static void read_state(struct state *st, bool v6)
{
	int fs = bpf_map__fd(xdp->maps.echo_stats), fp = bpf_map__fd(xdp->maps.echo_peers);
	struct ps_echo_qstats *pc = calloc(ncpus, sizeof(*pc));
	struct ps_peer_key k, *prev = NULL;
	struct ps_peer_stats ps;
	__u32 q;
	size_t i;
	int cpu;

	memset(st, 0, sizeof(*st));
	for (q = 0; pc && q < NSLOTS; q++)
		if (bpf_map_lookup_elem(fs, &q, pc) == 0)
			for (cpu = 0; cpu < ncpus; cpu++)
				for (i = 0; i < sizeof(*pc) / sizeof(__u64); i++)
					((__u64 *)&st->q[q])[i] += ((__u64 *)&pc[cpu])[i];
	free(pc);
	while (bpf_map_get_next_key(fp, prev, &k) == 0) {
		if (bpf_map_lookup_elem(fp, &k, &ps) == 0 && k.family == (v6 ? 6 : 4) &&
		    k.addr[v6 ? 15 : 3] == 2) {
			st->rtt_n = ps.rtt_count, st->rtt_ns = ps.rtt_sum_ns;
			st->resp_n = ps.resp_count, st->resp_ns = ps.resp_sum_ns;
		}
		prev = &k;
	}
}

/* Samples of hist in slot q, buckets lo..hi, after minus before. */
static __u64 in_buckets(const __u64 *after, const __u64 *before, __u64 lo, __u64 hi)
{
	unsigned int j, blo = ps_hist_bucket(lo, PS_LAT_BUCKETS),
			bhi = ps_hist_bucket(hi, PS_LAT_BUCKETS);
	__u64 n = 0;

	for (j = blo; j <= bhi; j++)
		n += after[j] - before[j];
	return n;
}

static __u64 hist_total(const __u64 *h)
{
	__u64 n = 0;

	for (unsigned int j = 0; j < PS_LAT_BUCKETS; j++)
		n += h[j];
	return n;
}

/* ---- the cases ------------------------------------------------------------- */

static void test_rtt(bool v6, __u16 seq)
{
	const char *fam = v6 ? "ICMPv6" : "ICMP";
	struct state s0, s1;
	struct span a, b;
	__u64 lo, hi;
	char name[160];

	read_state(&s0, v6);
	run(&(struct echo){ v6, true, false, seq }, &a);
	bracket_gap();
	run(&(struct echo){ v6, false, true, seq }, &b);
	read_state(&s1, v6);
	bracket_of(&a, &b, &lo, &hi);
	snprintf(name, sizeof(name),
		 "%s RTT: request out, reply in 2 ms later: the peer's exact sum "
		 "in the bracket",
		 fam);
	check_report(
	    s1.rtt_n - s0.rtt_n == 1 && s1.rtt_ns - s0.rtt_ns >= lo && s1.rtt_ns - s0.rtt_ns <= hi,
	    name, "%llu samples, %llu ns; want 1 in [%llu, %llu] ns",
	    (unsigned long long)(s1.rtt_n - s0.rtt_n), (unsigned long long)(s1.rtt_ns - s0.rtt_ns),
	    (unsigned long long)lo, (unsigned long long)hi);
	snprintf(name, sizeof(name),
		 "%s RTT: its bucket in RX queue 0's slot, one request out, one "
		 "reply in",
		 fam);
	check_report(in_buckets(s1.q[0].rtt_hist, s0.q[0].rtt_hist, lo, hi) == 1 &&
			 hist_total(s1.q[1].rtt_hist) == hist_total(s0.q[1].rtt_hist) &&
			 s1.q[1].requests_out - s0.q[1].requests_out == 1 &&
			 s1.q[0].replies_in - s0.q[0].replies_in == 1,
		     name,
		     "queue 0 +%llu in the bracket's buckets, requests out +%llu, replies in +%llu",
		     (unsigned long long)in_buckets(s1.q[0].rtt_hist, s0.q[0].rtt_hist, lo, hi),
		     (unsigned long long)(s1.q[1].requests_out - s0.q[1].requests_out),
		     (unsigned long long)(s1.q[0].replies_in - s0.q[0].replies_in));
}

static void test_response(bool v6, __u16 seq)
{
	const char *fam = v6 ? "ICMPv6" : "ICMP";
	struct state s0, s1;
	struct span a, b;
	__u64 lo, hi;
	char name[160];

	read_state(&s0, v6);
	run(&(struct echo){ v6, true, true, seq }, &a);
	bracket_gap();
	run(&(struct echo){ v6, false, false, seq }, &b);
	read_state(&s1, v6);
	bracket_of(&a, &b, &lo, &hi);
	snprintf(name, sizeof(name),
		 "%s response: request in, reply out 2 ms later: the peer's "
		 "exact sum in the bracket",
		 fam);
	check_report(s1.resp_n - s0.resp_n == 1 && s1.resp_ns - s0.resp_ns >= lo &&
			 s1.resp_ns - s0.resp_ns <= hi,
		     name, "%llu samples, %llu ns; want 1 in [%llu, %llu] ns",
		     (unsigned long long)(s1.resp_n - s0.resp_n),
		     (unsigned long long)(s1.resp_ns - s0.resp_ns), (unsigned long long)lo,
		     (unsigned long long)hi);
	snprintf(name, sizeof(name), "%s response: its bucket in the request's RX queue slot (0)",
		 fam);
	check_report(in_buckets(s1.q[0].resp_hist, s0.q[0].resp_hist, lo, hi) == 1 &&
			 hist_total(s1.q[1].resp_hist) == hist_total(s0.q[1].resp_hist) &&
			 s1.q[0].requests_in - s0.q[0].requests_in == 1 &&
			 s1.q[0].replies_out - s0.q[0].replies_out == 1,
		     name,
		     "queue 0 +%llu in the bracket's buckets, requests in +%llu, replies out +%llu",
		     (unsigned long long)in_buckets(s1.q[0].resp_hist, s0.q[0].resp_hist, lo, hi),
		     (unsigned long long)(s1.q[0].requests_in - s0.q[0].requests_in),
		     (unsigned long long)(s1.q[0].replies_out - s0.q[0].replies_out));
}

/* Replies that no request of theirs waits for: not timed. */
static void test_unmatched(void)
{
	struct state s0, s1;

	read_state(&s0, false);
	run(&(struct echo){ false, false, true, 900 }, NULL);
	run(&(struct echo){ false, true, false, 901 }, NULL);
	run(&(struct echo){ false, false, true, 902 }, NULL);
	run(&(struct echo){ false, false, false, 903 }, NULL);
	read_state(&s1, false);
	check_report(s1.rtt_n == s0.rtt_n && s1.resp_n == s0.resp_n &&
			 s1.q[0].replies_in == s0.q[0].replies_in &&
			 s1.q[0].replies_out == s0.q[0].replies_out,
		     "a reply with no request, or another seq, is not timed",
		     "rtt +%llu, resp +%llu", (unsigned long long)(s1.rtt_n - s0.rtt_n),
		     (unsigned long long)(s1.resp_n - s0.resp_n));
}

static int load(void)
{
	static const char *const shared[] = { "echo_pending", "echo_waiting", "echo_stats",
					      "echo_peers", NULL };
	int err;

	xdp = pathscope_xdp__open();
	tc = pathscope_tc__open();
	if (!xdp || !tc)
		return -1;
	xdp->rodata->ps_features = PS_F_ICMP;
	tc->rodata->ps_features = PS_F_ICMP;
	tc->rodata->ps_kern_ctx = ps_kern_ctx_supported();
	err = pathscope_xdp__load(xdp);
	if (!err)
		err = skel_share_maps(xdp->obj, tc->obj, shared);
	if (!err)
		err = pathscope_tc__load(tc);
	return err;
}

int main(void)
{
	libbpf_set_print(skel_pair_quiet);
	ncpus = libbpf_num_possible_cpus();
	if (geteuid() != 0 || load()) {
		check_skip("echo: BPF_PROG_TEST_RUN",
			   geteuid() ? "needs root" : "cannot load the programs");
		return check_exit_code();
	}
	test_rtt(false, 1);
	test_rtt(true, 2);
	test_response(false, 3);
	test_response(true, 4);
	test_unmatched();
	pathscope_tc__destroy(tc);
	pathscope_xdp__destroy(xdp);
	return check_exit_code();
}
