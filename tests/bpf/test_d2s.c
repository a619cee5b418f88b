// SPDX-License-Identifier: GPL-2.0
/* Driver-to-stack latency (include/pathscope/d2s.bpf.h) on crafted frames through
 * BPF_PROG_TEST_RUN, the XDP and tc objects sharing the d2s maps as the loader makes
 * them, each sample held to CLOCK_MONOTONIC (tests/lib/bracket.h). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <sched.h>

#include "tests/lib/bracket.h"
#include "tests/lib/skel_pair.h"

#define NSLOTS 2 /* nqueues 1: queue 0 and "other" */

static struct pathscope_xdp *xdp;
static struct pathscope_tc *tc;
static int ncpus;

/* A datagram (or segment) from the peer: source port sport, IP id (UDP:
 * with the checksum, the datagram's identity) or TCP sequence seq. */
struct pkt {
	bool tcp;
	__u16 sport;
	__u32 seq;
};

static void build(struct frame *f, const struct pkt *k)
{
	__u8 *ip, a[4], *l4;

	memset(f, 0, sizeof(*f));
	put_eth(f, 0, ETH_IP);
	ip = put_ipv4(f, k->tcp ? P_TCP : P_UDP, 0);
	memcpy(a, ip + 12, 4); /* the builders write .1 -> .2: swap, arriving */
	memcpy(ip + 12, ip + 16, 4);
	memcpy(ip + 16, a, 4);
	if (k->tcp) {
		put_tcp(f, 5, 0);
		l4 = f->b + f->len - 20;
		wr16(l4 + 4, k->seq >> 16);
		wr16(l4 + 6, k->seq & 0xffff);
		l4[13] = 0x10; /* ACK */
	} else {
		wr16(ip + 4, k->seq); /* IP id */
		put_udp(f);
		l4 = f->b + f->len - 8;
	}
	wr16(l4, k->sport);
	put_bytes(f, 100);
	fix_lengths(f);
}

/* Run k through XDP or tc ingress, timed in *s (may be NULL). */
static void run(const struct pkt *k, bool at_xdp, struct span *s)
{
	struct frame f;
	LIBBPF_OPTS(bpf_test_run_opts, o);
	int fd = at_xdp ? bpf_program__fd(xdp->progs.pathscope_xdp)
			: bpf_program__fd(tc->progs.pathscope_tc_ingress);
	int err, want = at_xdp ? 2 : -1; /* XDP_PASS, TC_ACT_UNSPEC */
	struct span ignored;

	build(&f, k);
	o.data_in = f.b;
	o.data_size_in = f.len;
	o.repeat = 1;
	if (!s)
		s = &ignored;
	s->start = mono_ns();
	err = bpf_prog_test_run_opts(fd, &o);
	s->end = mono_ns();
	if (err || (int)o.retval != want)
		check_report(0, at_xdp ? "xdp run" : "tc ingress run",
			     "err %d, verdict %d (want %d)", err ? -errno : 0, (int)o.retval, want);
}

/* d2s_stats, slot by slot, summed over the CPUs. */
static void read_stats(struct ps_d2s_qstats *st)
{
	int fd = bpf_map__fd(xdp->maps.d2s_stats);
	struct ps_d2s_qstats *pc = calloc(ncpus, sizeof(*pc));
	__u32 q;
	size_t i;
	int cpu;

	memset(st, 0, NSLOTS * sizeof(*st));
	for (q = 0; pc && q < NSLOTS; q++)
		if (bpf_map_lookup_elem(fd, &q, pc) == 0)
			for (cpu = 0; cpu < ncpus; cpu++)
				for (i = 0; i < sizeof(*pc) / sizeof(__u64); i++)
					((__u64 *)&st[q])[i] += ((__u64 *)&pc[cpu])[i];
	free(pc);
}

/* Run k through XDP until it becomes the sample (at most PS_D2S_EVERY
 * frames: the queue's count ticks); the span of that run in *a. */
static bool sample(const struct pkt *k, struct span *a)
{
	struct ps_d2s_qstats st[NSLOTS];
	__u64 before;
	int i;

	read_stats(st);
	before = st[0].sampled;
	for (i = 0; i < PS_D2S_EVERY; i++) {
		run(k, true, a);
		read_stats(st);
		if (st[0].sampled != before)
			return st[0].sampled == before + 1;
	}
	return false;
}

/* A gap whose true value lies just above bucket b's lower edge (high: just
 * below its upper edge). */
static __u64 gap_in_bucket(unsigned int b, bool high)
{
	return high ? ps_hist_bucket_high(b) - 60000 : ps_hist_bucket_low(b) + 20000;
}

static void test_bracket(bool tcp, bool high)
{
	const struct pkt k = { tcp, 5000, 77 };
	const unsigned int b2ms = ps_hist_bucket(BRACKET_GAP_NS, PS_LAT_BUCKETS);
	struct ps_d2s_qstats s0[NSLOTS], s1[NSLOTS];
	struct span a, b;
	unsigned int j, blo, bhi;
	__u64 lo, hi, in = 0, other = 0;
	char name[160];

	snprintf(name, sizeof(name), "%s: XDP takes a sample within %d frames", tcp ? "TCP" : "UDP",
		 PS_D2S_EVERY);
	check_report(sample(&k, &a), name, "no sample, or more than one");
	read_stats(s0);
	bracket_until(a.end + gap_in_bucket(b2ms, high));
	run(&k, false, &b);
	read_stats(s1);
	bracket_of(&a, &b, &lo, &hi);
	blo = ps_hist_bucket(lo, PS_LAT_BUCKETS);
	bhi = ps_hist_bucket(hi, PS_LAT_BUCKETS);
	for (j = 0; j < PS_LAT_BUCKETS; j++) {
		if (j >= blo && j <= bhi)
			in += s1[0].hist[j] - s0[0].hist[j];
		other += s1[1].hist[j] - s0[1].hist[j];
	}
	snprintf(name, sizeof(name),
		 "%s: its skb at tc ingress %s bucket %u: one match, in the bracket's buckets, RX "
		 "queue 0's slot",
		 tcp ? "TCP" : "UDP", high ? "near the top of" : "at the bottom of", b2ms);
	check_report(s1[0].matched - s0[0].matched == 1 && in == 1 && other == 0, name,
		     "matched +%llu, +%llu in buckets %u..%u ([%llu, %llu] ns), +%llu in other",
		     (unsigned long long)(s1[0].matched - s0[0].matched), (unsigned long long)in,
		     blo, bhi, (unsigned long long)lo, (unsigned long long)hi,
		     (unsigned long long)other);
	snprintf(name, sizeof(name), "%s: %s bucket %u: the exact sum is in the bracket",
		 tcp ? "TCP" : "UDP", high ? "near the top of" : "at the bottom of", b2ms);
	check_report(s1[0].sum_ns - s0[0].sum_ns >= lo && s1[0].sum_ns - s0[0].sum_ns <= hi, name,
		     "sum +%llu ns, bracket [%llu, %llu] ns",
		     (unsigned long long)(s1[0].sum_ns - s0[0].sum_ns), (unsigned long long)lo,
		     (unsigned long long)hi);
}

/* Skbs that are not the sample's leave it waiting; its own then takes it. */
static void test_not_the_sample(void)
{
	const struct pkt k = { false, 5001, 90 };
	struct ps_d2s_qstats s0[NSLOTS], s1[NSLOTS];
	struct span a;

	check_report(sample(&k, &a), "UDP: a sample for the next case", "none");
	read_stats(s0);
	run(&(struct pkt){ false, 5002, 90 }, false, NULL); /* another flow */
	run(&(struct pkt){ false, 5001, 91 }, false, NULL); /* the next datagram */
	read_stats(s1);
	check_report(s1[0].matched == s0[0].matched,
		     "another flow's skb, and the flow's next datagram, do not take the sample",
		     "matched +%llu", (unsigned long long)(s1[0].matched - s0[0].matched));
	run(&k, false, NULL);
	read_stats(s1);
	check_report(s1[0].matched - s0[0].matched == 1, "the sample's own skb then does",
		     "matched +%llu", (unsigned long long)(s1[0].matched - s0[0].matched));
}

static int load(void)
{
	static const char *const shared[] = { "d2s_slot", "d2s_stats", NULL };

	return skel_pair_open(&xdp, &tc, PS_F_D2S) ?: skel_pair_load(xdp, tc, shared);
}

/* The test is pinned to one CPU (the sample slot is per CPU). XDP takes every PS_D2S_EVERY-th frame
 * of a queue as the sample; its skb at tc ingress about 2 ms later gives the latency, held to
 * CLOCK_MONOTONIC (tests/lib/bracket.h): one sample, in a bucket of the bracket, in the slot of the
 * RX queue XDP saw it on (0), and its exact sum inside the bracket. A bucket there is 131 us wide:
 * the gap is placed 20 us above a bucket's lower edge (a -200 us error falls out of it) and 60 us
 * below its upper edge (+200 us). Also: another flow's skb, or the same flow's next datagram, does
 * not take the sample; UDP and TCP.
 *
 * The peer 10.0.0.2 sends to this host, 10.0.0.1. */
int main(void)
{
	cpu_set_t one;

	libbpf_set_print(skel_pair_quiet);
	ncpus = libbpf_num_possible_cpus();
	/* The sample slot is per CPU: XDP and tc ingress must run on the same. */
	CPU_ZERO(&one);
	CPU_SET(sched_getcpu() < 0 ? 0 : sched_getcpu(), &one);
	if (sched_setaffinity(0, sizeof(one), &one)) {
		check_report(0, "d2s: pin to one CPU", "%s", strerror(errno));
		return check_exit_code();
	}
	if (!skel_pair_ready("d2s: BPF_PROG_TEST_RUN", geteuid() ? 0 : load()))
		return check_exit_code();
	test_bracket(false, false);
	test_bracket(false, true);
	test_bracket(true, false);
	test_bracket(true, true);
	test_not_the_sample();
	pathscope_tc__destroy(tc);
	pathscope_xdp__destroy(xdp);
	return check_exit_code();
}
