// SPDX-License-Identifier: GPL-2.0
/* The ICMP echo feature (include/pathscope/icmp.bpf.h) on crafted frames through
 * BPF_PROG_TEST_RUN, the XDP and tc objects sharing the echo maps as the loader makes
 * them, each latency held to CLOCK_MONOTONIC (tests/lib/bracket.h). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "tests/lib/bracket.h"
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
	struct ps_icmp_qstats q[NSLOTS];      /* summed over the CPUs */
	__u64 rtt_n, rtt_ns, resp_n, resp_ns; /* the peer (family v6 ? 6 : 4) */
};

static void read_state(struct state *st, bool v6)
{
	int fs = bpf_map__fd(xdp->maps.icmp_stats), fp = bpf_map__fd(xdp->maps.icmp_peers);
	struct ps_icmp_qstats *pc = calloc(ncpus, sizeof(*pc));
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

/* rtt: a request leaving, its reply arriving 2 ms later (the RTT); else a
 * request arriving, this host's reply leaving (the response time). */
static void test_latency(bool v6, bool rtt, __u16 seq)
{
	const char *what = rtt ? "RTT: request out, reply in" : "response: request in, reply out";
	struct state s0, s1;
	struct span a, b;
	__u64 lo, hi, n, ns, in, other, req, rep;
	char name[200];

	read_state(&s0, v6);
	run(&(struct echo){ v6, true, !rtt, seq }, &a);
	bracket_gap();
	run(&(struct echo){ v6, false, rtt, seq }, &b);
	read_state(&s1, v6);
	bracket_of(&a, &b, &lo, &hi);
	n = rtt ? s1.rtt_n - s0.rtt_n : s1.resp_n - s0.resp_n;
	ns = rtt ? s1.rtt_ns - s0.rtt_ns : s1.resp_ns - s0.resp_ns;
	in = rtt ? in_buckets(s1.q[0].rtt_hist, s0.q[0].rtt_hist, lo, hi)
		 : in_buckets(s1.q[0].resp_hist, s0.q[0].resp_hist, lo, hi);
	other = rtt ? hist_total(s1.q[1].rtt_hist) - hist_total(s0.q[1].rtt_hist)
		    : hist_total(s1.q[1].resp_hist) - hist_total(s0.q[1].resp_hist);
	/* requests leaving count in the slot of no queue (1), the rest in the
	 * RX queue's (0) */
	req = rtt ? s1.q[1].requests_out - s0.q[1].requests_out
		  : s1.q[0].requests_in - s0.q[0].requests_in;
	rep = rtt ? s1.q[0].replies_in - s0.q[0].replies_in
		  : s1.q[0].replies_out - s0.q[0].replies_out;
	snprintf(name, sizeof(name), "%s %s 2 ms later: the peer's exact sum in the bracket",
		 v6 ? "ICMPv6" : "ICMP", what);
	check_report(n == 1 && ns >= lo && ns <= hi, name,
		     "%llu samples, %llu ns; want 1 in [%llu, %llu] ns", (unsigned long long)n,
		     (unsigned long long)ns, (unsigned long long)lo, (unsigned long long)hi);
	snprintf(name, sizeof(name),
		 "%s %s: its bucket in RX queue 0's slot, one request and one reply counted",
		 v6 ? "ICMPv6" : "ICMP", what);
	check_report(in == 1 && other == 0 && req == 1 && rep == 1, name,
		     "queue 0 +%llu in the bracket's buckets, other +%llu, requests +%llu, "
		     "replies +%llu",
		     (unsigned long long)in, (unsigned long long)other, (unsigned long long)req,
		     (unsigned long long)rep);
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
	static const char *const shared[] = { "icmp_pending", "icmp_waiting", "icmp_stats",
					      "icmp_peers", NULL };

	return skel_pair_open(&xdp, &tc, PS_F_ICMP) ?: skel_pair_load(xdp, tc, shared);
}

/* The latencies:
 *   - RTT: an echo request leaving through tc egress, its reply arriving at
 *     XDP 2 ms later;
 *   - response: a request arriving at XDP, this host's reply leaving through
 *     tc egress 2 ms later.
 * The exact per-peer sum lies in the bracket; the sample's bucket too, in the
 * slot of the RX queue (XDP runs on queue 0) and under the peer's address; and
 * the counters move by exactly one. IPv4 and IPv6. A reply with no request, or
 * with another sequence number, is not timed.
 *
 * This host is 10.0.0.1 (fd00::1); the peer is 10.0.0.2 (fd00::2). */
int main(void)
{
	libbpf_set_print(skel_pair_quiet);
	ncpus = libbpf_num_possible_cpus();
	if (!skel_pair_ready("echo: BPF_PROG_TEST_RUN", geteuid() ? 0 : load()))
		return check_exit_code();
	test_latency(false, true, 1);
	test_latency(true, true, 2);
	test_latency(false, false, 3);
	test_latency(true, false, 4);
	test_unmatched();
	pathscope_tc__destroy(tc);
	pathscope_xdp__destroy(xdp);
	return check_exit_code();
}
