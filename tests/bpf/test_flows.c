// SPDX-License-Identifier: GPL-2.0
/* Feature flows (include/pathscope/flows.bpf.h) on crafted frames through
 * BPF_PROG_TEST_RUN of the XDP program: exact keys and counts at N = 1, the distinct
 * estimate, and the sampling's error at N = 16 and 100. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <math.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <net/if.h>
#include <linux/types.h>
#include <bpf/libbpf.h>
#include <bpf/bpf.h>
#include "pathscope/abi.h"
#include "pathscope/flow_sample.h"
#include "pathscope_xdp.skel.h"
#include "stats/read/flow_table.h"
#include "tests/lib/check.h"
#include "tests/lib/frame.h"

#define NQ	   4
#define NSLOTS	   (NQ + 1)
#define IFNAME	   "psflows0"
#define XDP_PASS_V 2

static int ncpus;
static int ifindex; /* the 4-queue device; 0: none */
static bool ctx_ok; /* the test run takes rx_queue_index */
static struct pathscope_xdp *x;

static int load(__u32 n)
{
	pathscope_xdp__destroy(x);
	x = pathscope_xdp__open();
	if (!x)
		return -errno ? -errno : -ENOMEM;
	x->rodata->ps_features = PS_F_FLOWS;
	x->rodata->ps_nqueues = NQ;
	x->rodata->ps_all_queues = 1;
	x->rodata->ps_flow_sample = n;
	x->rodata->ps_flow_skip_k = ps_flow_skip_k(n);
	bpf_map__set_max_entries(x->maps.xdp_stats, NSLOTS);
	bpf_map__set_max_entries(x->maps.flows_q, NSLOTS);
	bpf_program__set_autoload(x->progs.pathscope_xdp_chain, false);
	return pathscope_xdp__load(x);
}

/* Run frame f repeat times as arriving on RX queue q (0 without a context). */
static int run_q(const struct frame *f, __u32 q, __u32 repeat)
{
	struct xdp_md md = { .data_end = f->len,
			     .ingress_ifindex = (__u32)ifindex,
			     .rx_queue_index = q };
	LIBBPF_OPTS(bpf_test_run_opts, o, .data_in = f->b, .data_size_in = f->len,
		    .repeat = (int)repeat);

	if (ctx_ok) {
		o.ctx_in = &md;
		o.ctx_size_in = sizeof(md);
	}
	if (bpf_prog_test_run_opts(bpf_program__fd(x->progs.pathscope_xdp), &o))
		return -errno;
	return o.retval == XDP_PASS_V ? 0 : -EBADMSG;
}

/* The queue a frame sent to q lands on. */
static __u32 qof(__u32 q)
{
	return ctx_ok ? q : 0;
}

/* ---- frames and the keys the documentation gives them ------------------- */

static void ip4(__u8 *ip, __u8 s, __u8 d)
{
	ip[12] = 10, ip[13] = 0, ip[14] = 0, ip[15] = s;
	ip[16] = 10, ip[17] = 0, ip[18] = 0, ip[19] = d;
}

static void ip6(__u8 *ip, __u8 s, __u8 d)
{
	memset(ip + 8, 0, 32);
	ip[8] = 0xfd, ip[23] = s;
	ip[24] = 0xfd, ip[39] = d;
}

static struct ps_flow_key key(__u32 q, __u8 family, __u8 proto, __u8 s, __u8 d, __u16 sport,
			      __u16 dport)
{
	struct ps_flow_key k;

	memset(&k, 0, sizeof(k));
	k.queue = qof(q);
	k.family = family;
	k.proto = proto;
	k.sport = htons(sport);
	k.dport = htons(dport);
	if (family == 4) {
		k.saddr[0] = 10, k.saddr[3] = s;
		k.daddr[0] = 10, k.daddr[3] = d;
	} else if (family == 6) {
		k.saddr[0] = 0xfd, k.saddr[15] = s;
		k.daddr[0] = 0xfd, k.daddr[15] = d;
	}
	return k;
}

static struct ps_flow_key key_ether(__u32 q, __u16 ethertype)
{
	struct ps_flow_key k;

	memset(&k, 0, sizeof(k));
	k.queue = qof(q);
	k.ethertype = htons(ethertype);
	return k;
}

/* IPv4 (vlans tags) proto from 10.0.0.s to 10.0.0.d, ports for TCP/UDP,
 * pad payload bytes; frag: 0 none, 1 first (MF), 2 a later one. */
static void b4(struct frame *f, int vlans, __u8 proto, __u8 s, __u8 d, __u16 sport, __u16 dport,
	       __u32 pad, int frag)
{
	__u8 *ip, *l4;

	put_eth(f, vlans, ETH_IP);
	ip = put_ipv4(f, proto, 0);
	ip4(ip, s, d);
	if (frag == 1)
		wr16(ip + 6, 0x2000);
	else if (frag == 2)
		wr16(ip + 6, 185);
	if (frag != 2 && proto == P_UDP) {
		put_udp(f);
	} else if (frag != 2 && proto == P_TCP) {
		put_tcp(f, 5, 0);
	} else if (frag != 2 && proto == P_ICMP) {
		put_icmp(f, 8);
	}
	if (frag != 2 && (proto == P_UDP || proto == P_TCP)) {
		l4 = f->b + f->ip_off + 20;
		wr16(l4, sport);
		wr16(l4 + 2, dport);
	}
	if (pad)
		put_bytes(f, pad);
	fix_lengths(f);
}

/* IPv6 from fd00::s to fd00::d; ext: a hop-by-hop header first; frag: 0
 * none, 1 first fragment, 2 a later one. */
static void b6(struct frame *f, int vlans, __u8 proto, __u8 s, __u8 d, __u16 sport, __u16 dport,
	       int ext, int frag)
{
	__u8 first = ext ? P_HOP : frag ? P_FRAG : proto, *ip, *l4;

	put_eth(f, vlans, ETH_IPV6);
	ip = put_ipv6(f, first, 0);
	ip6(ip, s, d);
	if (ext)
		put_ext(f, P_HOP, frag ? P_FRAG : proto);
	if (frag)
		put_frag6(f, proto, frag == 2 ? 100 : 0, frag == 1);
	if (frag != 2 && proto == P_UDP) {
		l4 = f->b + f->len;
		put_udp(f);
		wr16(l4, sport);
		wr16(l4 + 2, dport);
	} else if (frag != 2 && proto == P_TCP) {
		l4 = f->b + f->len;
		put_tcp(f, 5, 0);
		wr16(l4, sport);
		wr16(l4 + 2, dport);
	} else {
		put_bytes(f, 16);
	}
	fix_lengths(f);
}

/* ---- reading the maps ----------------------------------------------------- */

static unsigned int table_size(void)
{
	int fd = bpf_map__fd(x->maps.flows);
	struct ps_flow_key k, next;
	unsigned int n = 0;
	void *prev = NULL;

	while (n < 2 * PS_FLOWS_MAX && bpf_map_get_next_key(fd, prev, &next) == 0) {
		k = next;
		prev = &k;
		n++;
	}
	return n;
}

static int flow_get(const struct ps_flow_key *k, struct ps_flow_count *v)
{
	return bpf_map_lookup_elem(bpf_map__fd(x->maps.flows), k, v) ? -errno : 0;
}

/* Queue slot q's per-CPU state: counts summed, registers merged by max. */
static void qstate(__u32 q, struct ps_flows_qstate *out)
{
	struct ps_flows_qstate *pc = calloc((size_t)ncpus, sizeof(*pc));
	int c, j;

	memset(out, 0, sizeof(*out));
	if (!pc || bpf_map_lookup_elem(bpf_map__fd(x->maps.flows_q), &q, pc)) {
		free(pc);
		return;
	}
	for (c = 0; c < ncpus; c++) {
		out->packets += pc[c].packets;
		out->bytes += pc[c].bytes;
		out->flows_new += pc[c].flows_new;
		for (j = 0; j < (int)PS_HLL_REGS; j++)
			if (pc[c].hll[j] > out->hll[j])
				out->hll[j] = pc[c].hll[j];
	}
	free(pc);
}

/* ---- N = 1: exact ----------------------------------------------------------- */

struct want {
	const char *what;
	struct ps_flow_key k;
	__u64 packets, bytes;
};

#define MAX_WANT 32
static struct want wants[MAX_WANT];
static unsigned int nwants;
static __u64 q_packets[NSLOTS], q_bytes[NSLOTS];

/* Send f count times to queue q, expecting it under key k (added up when
 * the same key is expected again). */
static void sendf(const char *what, const struct frame *f, __u32 q, __u32 count,
		  struct ps_flow_key k)
{
	unsigned int i;
	int err = run_q(f, q, count);

	if (err) {
		check_report(0, what, "test run: %s", strerror(-err));
		return;
	}
	q_packets[qof(q)] += count;
	q_bytes[qof(q)] += (__u64)count * f->len;
	for (i = 0; i < nwants; i++)
		if (!memcmp(&wants[i].k, &k, sizeof(k)))
			break;
	if (i == nwants) {
		if (nwants == MAX_WANT)
			exit(2);
		wants[nwants].what = what;
		wants[nwants].k = k;
		nwants++;
	}
	wants[i].packets += count;
	wants[i].bytes += (__u64)count * f->len;
}

static void test_exact(void)
{
	unsigned long long added;
	struct ps_flows_qstate qs;
	struct ps_flow_count v;
	struct frame f;
	char name[200];
	unsigned int i, n;
	__u32 q;
	int err;

	err = load(1);
	check_report(!err, "N=1: load the XDP program with feature flows", "%s", strerror(-err));
	if (err)
		return;

	b4(&f, 0, P_UDP, 2, 1, 1000, 4789, 58, 0);
	sendf("ipv4 udp, queue 0", &f, 0, 3, key(0, 4, 17, 2, 1, 1000, 4789));
	b4(&f, 0, P_UDP, 2, 1, 1000, 4789, 300, 0);
	sendf("ipv4 udp, queue 0", &f, 0, 1, key(0, 4, 17, 2, 1, 1000, 4789));
	b4(&f, 0, P_UDP, 2, 1, 1001, 4789, 10, 0); /* another source port: another flow */
	sendf("ipv4 udp, another port, queue 0", &f, 0, 2, key(0, 4, 17, 2, 1, 1001, 4789));
	b4(&f, 0, P_TCP, 3, 1, 2000, 80, 40, 0);
	sendf("ipv4 tcp, queue 1", &f, 1, 5, key(1, 4, 6, 3, 1, 2000, 80));
	/* the same 5-tuple on queue 3: a flow of its own (the key holds the queue) */
	sendf("ipv4 tcp, same tuple, queue 3", &f, 3, 2, key(3, 4, 6, 3, 1, 2000, 80));
	b4(&f, 1, P_TCP, 3, 1, 2000, 80, 40, 0);
	sendf("802.1Q ipv4 tcp keyed by its inner header, queue 3", &f, 3, 1,
	      key(3, 4, 6, 3, 1, 2000, 80));
	b4(&f, 2, P_TCP, 3, 1, 2000, 80, 40, 0);
	sendf("QinQ ipv4 tcp keyed by its inner header, queue 3", &f, 3, 4,
	      key(3, 4, 6, 3, 1, 2000, 80));
	b6(&f, 0, P_UDP, 2, 1, 3000, 53, 0, 0);
	sendf("ipv6 udp, queue 2", &f, 2, 2, key(2, 6, 17, 2, 1, 3000, 53));
	b6(&f, 1, P_TCP, 4, 1, 3001, 443, 1, 0);
	sendf("802.1Q ipv6 tcp behind a hop-by-hop header, queue 2", &f, 2, 3,
	      key(2, 6, 6, 4, 1, 3001, 443));
	b4(&f, 0, P_GRE, 4, 1, 0, 0, 24, 0);
	sendf("ipv4 gre: 3-tuple, queue 0", &f, 0, 2, key(0, 4, 47, 4, 1, 0, 0));
	b4(&f, 0, P_ICMP, 5, 1, 0, 0, 56, 0);
	sendf("ipv4 icmp echo: 3-tuple, queue 1", &f, 1, 1, key(1, 4, 1, 5, 1, 0, 0));
	b6(&f, 0, P_ESP, 5, 1, 0, 0, 0, 0);
	sendf("ipv6 esp: 3-tuple, queue 1", &f, 1, 2, key(1, 6, 50, 5, 1, 0, 0));
	b6(&f, 0, P_NONE, 5, 1, 0, 0, 1, 0);
	sendf("ipv6 hop-by-hop then no next header: 3-tuple of the first next header", &f, 1, 1,
	      key(1, 6, 0, 5, 1, 0, 0));
	b4(&f, 0, P_UDP, 6, 1, 5000, 5001, 100, 1);
	sendf("ipv4 udp first fragment: with its ports", &f, 2, 1, key(2, 4, 17, 6, 1, 5000, 5001));
	b4(&f, 0, P_UDP, 6, 1, 5000, 5001, 100, 2);
	sendf("ipv4 udp later fragment: 3-tuple", &f, 2, 2, key(2, 4, 17, 6, 1, 0, 0));
	b6(&f, 0, P_UDP, 6, 1, 5002, 5003, 0, 1);
	sendf("ipv6 udp first fragment: with its ports", &f, 3, 1, key(3, 6, 17, 6, 1, 5002, 5003));
	b6(&f, 0, P_UDP, 6, 1, 5002, 5003, 0, 2);
	sendf("ipv6 udp later fragment: 3-tuple, protocol 44", &f, 3, 3, key(3, 6, 44, 6, 1, 0, 0));
	b6(&f, 0, P_UDP, 6, 1, 5002, 5003, 1, 2);
	sendf("ipv6 later fragment behind a hop-by-hop header: the same 3-tuple", &f, 3, 1,
	      key(3, 6, 44, 6, 1, 0, 0));
	put_eth(&f, 0, ETH_ARP);
	put_bytes(&f, 28);
	sendf("arp: by ethertype", &f, 0, 2, key_ether(0, ETH_ARP));
	put_eth(&f, 0, ETH_OTHER);
	put_bytes(&f, 46);
	sendf("ethertype 0x88b5: by ethertype", &f, 1, 1, key_ether(1, ETH_OTHER));
	put_eth(&f, 1, ETH_OTHER);
	put_bytes(&f, 46);
	sendf("802.1Q ethertype 0x88b5: the same flow", &f, 1, 2, key_ether(1, ETH_OTHER));
	b4(&f, 0, P_UDP, 2, 1, 1000, 4789, 10, 0);
	f.b[ETH_LEN] = 0x43; /* IHL 3: malformed */
	sendf("ipv4 with IHL 3 (malformed): by ethertype 0x0800", &f, 2, 1, key_ether(2, ETH_IP));

	for (i = 0; i < nwants; i++) {
		err = flow_get(&wants[i].k, &v);
		snprintf(name, sizeof(name), "N=1: %s: packets %llu, bytes %llu", wants[i].what,
			 (unsigned long long)wants[i].packets, (unsigned long long)wants[i].bytes);
		if (err)
			check_report(0, name, "no such flow in the table (%s)", strerror(-err));
		else
			check_report(v.packets == wants[i].packets && v.bytes == wants[i].bytes,
				     name, "got packets %llu, bytes %llu",
				     (unsigned long long)v.packets, (unsigned long long)v.bytes);
	}
	n = table_size();
	check_report(n == nwants, "N=1: the table holds exactly those flows", "%u flows, want %u",
		     n, nwants);
	for (q = 0, added = 0; q < NSLOTS; q++) {
		qstate(q, &qs);
		added += qs.flows_new;
		snprintf(name, sizeof(name),
			 "N=1: queue slot %u's sampled totals are its frames (%llu, %llu B)", q,
			 (unsigned long long)q_packets[q], (unsigned long long)q_bytes[q]);
		check_report(qs.packets == q_packets[q] && qs.bytes == q_bytes[q], name,
			     "got %llu, %llu B", (unsigned long long)qs.packets,
			     (unsigned long long)qs.bytes);
	}
	check_report(added == nwants,
		     "N=1: the queues added exactly those flows to the table (flows_new): none "
		     "evicted",
		     "%llu added, want %u", (unsigned long long)added, nwants);
	if (!ctx_ok)
		check_report(1,
			     "N=1: this kernel's test run takes no rx_queue_index: "
			     "every frame on queue 0",
			     "");
}

/* ---- distinct flows ----------------------------------------------------- */

static void test_distinct(unsigned int nflows)
{
	struct ps_flows_qstate qs;
	struct frame f;
	char name[200];
	double est, tol = 3 * 1.04 / sqrt(PS_HLL_REGS) * nflows;
	unsigned int i, n;
	int err = load(1);

	snprintf(name, sizeof(name), "distinct %u: load", nflows);
	check_report(!err, name, "%s", strerror(-err));
	if (err)
		return;
	b4(&f, 0, P_UDP, 2, 1, 0, 4789, 18, 0);
	for (i = 0; i < nflows && !err; i++) {
		__u8 *ip = f.b + f.ip_off;

		/* flows differ in the source address's last two bytes and the port */
		ip[14] = (__u8)(i >> 16);
		ip[15] = (__u8)(i >> 8);
		wr16(ip + 20, 1024 + (i & 0xff));
		err = run_q(&f, 0, 1);
	}
	snprintf(name, sizeof(name), "distinct %u: frames run", nflows);
	check_report(!err, name, "%s", strerror(-err));
	qstate(qof(0), &qs);
	est = ps_hll_estimate(qs.hll, PS_HLL_REGS);
	snprintf(name, sizeof(name),
		 "distinct %u: the estimate is within 3 standard errors (+-%.1f)", nflows, tol);
	check_report(fabs(est - nflows) <= tol, name, "estimate %.1f", est);
	printf("# distinct %u: estimate %.2f (%.2f%% off)\n", nflows, est,
	       100 * (est - nflows) / nflows);
	n = table_size();
	if (nflows <= PS_FLOWS_MAX) {
		snprintf(name, sizeof(name), "distinct %u: the table holds every flow", nflows);
		check_report(n == nflows, name, "%u flows", n);
	} else {
		snprintf(name, sizeof(name),
			 "distinct %u: the table stays within its %u flows (LRU)", nflows,
			 PS_FLOWS_MAX);
		check_report(n <= PS_FLOWS_MAX && n > 0, name, "%u flows", n);
	}
	/* What pathscope counts as evicted (added, less what the table holds)
	 * against the flows sent: every flow sent is held or evicted. */
	snprintf(name, sizeof(name),
		 "distinct %u: each flow added once (flows_new), the table holds %u: %u evicted",
		 nflows, n, nflows - n);
	check_report(qs.flows_new == nflows, name, "flows_new %llu",
		     (unsigned long long)qs.flows_new);
}

/* ---- sampling ------------------------------------------------------------- */

static void test_sampling(__u32 nsample)
{
	/* two flows on queue 0 and one on queue 1, frames in runs of
	 * alternating flows (the skip counter is per CPU, across flows) */
	static const __u32 frames[3] = { 60000, 20000, 40000 };
	struct ps_flow_count v;
	struct frame f[3];
	struct ps_flow_key k[3];
	__u64 sampled_total = 0;
	char name[240];
	double p = 1.0 / nsample, sd, dev;
	unsigned int i, r;
	int err = load(nsample);

	snprintf(name, sizeof(name), "N=%u: load", nsample);
	check_report(!err, name, "%s", strerror(-err));
	if (err)
		return;
	b4(&f[0], 0, P_UDP, 2, 1, 7000, 4789, 18, 0);
	k[0] = key(0, 4, 17, 2, 1, 7000, 4789);
	b4(&f[1], 0, P_TCP, 3, 1, 7001, 80, 400, 0);
	k[1] = key(0, 4, 6, 3, 1, 7001, 80);
	b6(&f[2], 0, P_UDP, 2, 1, 7002, 53, 0, 0);
	k[2] = key(1, 6, 17, 2, 1, 7002, 53);
	for (r = 0; r < 20 && !err; r++)
		for (i = 0; i < 3 && !err; i++)
			err = run_q(&f[i], i == 2 ? 1 : 0, frames[i] / 20);
	snprintf(name, sizeof(name), "N=%u: frames run", nsample);
	check_report(!err, name, "%s", strerror(-err));
	for (i = 0; i < 3; i++) {
		sd = sqrt(frames[i] * p * (1 - p));
		memset(&v, 0, sizeof(v));
		flow_get(&k[i], &v);
		dev = fabs((double)v.packets - frames[i] * p);
		snprintf(name, sizeof(name),
			 "N=%u: flow %u's %u frames: sampled %llu x %u within 4 binomial sd of "
			 "%u (+-%.0f)",
			 nsample, i, frames[i], (unsigned long long)v.packets, nsample, frames[i],
			 4 * sd * nsample);
		/* +1: the first frame of the run is always sampled */
		check_report(dev <= 4 * sd + 1, name, "%.1f sd off", dev / sd);
		check_report(v.bytes == v.packets * f[i].len, "sampled bytes are frames x length",
			     "%llu", (unsigned long long)v.bytes);
		sampled_total += v.packets;
	}
	{
		struct ps_flows_qstate a, b;
		__u64 sum;

		qstate(qof(0), &a);
		qstate(qof(1), &b);
		sum = a.packets + (qof(1) != qof(0) ? b.packets : 0);
		sd = sqrt(120000 * p * (1 - p));
		dev = fabs((double)sampled_total - 120000 * p);
		snprintf(name, sizeof(name),
			 "N=%u: all 120000 frames: %llu sampled, within 4 binomial sd of %.0f "
			 "(+-%.0f)",
			 nsample, (unsigned long long)sampled_total, 120000 * p, 4 * sd);
		check_report(dev <= 4 * sd + 1, name, "%.1f sd off", dev / sd);
		snprintf(name, sizeof(name),
			 "N=%u: the queues' sampled totals are the flows' (%llu)", nsample,
			 (unsigned long long)sampled_total);
		check_report(sum == sampled_total, name, "got %llu", (unsigned long long)sum);
	}
}

/* ---- setup ---------------------------------------------------------------- */

static int sh(const char *cmd)
{
	return system(cmd) == 0 ? 0 : -1;
}

static void setup_device(void)
{
	struct frame f;

	ifindex = 0;
	ctx_ok = false;
	if (unshare(CLONE_NEWNET) != 0)
		return;
	/* veth: this kernel has no dummy driver */
	if (sh("ip link add " IFNAME " numrxqueues 4 numtxqueues 4 type veth peer name " IFNAME
	       "p 2>/dev/null"))
		return;
	ifindex = (int)if_nametoindex(IFNAME);
	if (!ifindex || load(1))
		return;
	b4(&f, 0, P_UDP, 2, 1, 1, 2, 0, 0);
	ctx_ok = true;
	if (run_q(&f, 3, 1))
		ctx_ok = false;
}

static int libbpf_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	if (level == LIBBPF_DEBUG && !getenv("PS_TEST_VERBOSE"))
		return 0;
	return vfprintf(stderr, fmt, ap);
}

/* The checks:
 *  - N = 1: known flows on known RX queues (struct xdp_md's rx_queue_index
 *    on a 4-queue veth of a private network namespace; on a kernel
 *    whose test run takes no context, all on queue 0) have exactly their
 *    packets and bytes, under exactly the keys abi.h documents: TCP and UDP
 *    over IPv4 and IPv6 by 5-tuple, VLAN and QinQ frames by their inner
 *    header (one flow with the untagged frames), other protocols by 3-tuple,
 *    IPv4 and IPv6 first fragments with their ports and later fragments as
 *    3-tuples, IPv6 behind extension headers, non-IP and malformed frames by
 *    ethertype; nothing else is in the table, and each queue's sampled
 *    totals are its frames.
 *  - Distinct flows: fixed sets of 10, 1,000 and 100,000 flows read within
 *    3 standard errors (3 x 1.04 / sqrt(256) = 19.5%) of the truth by the
 *    user-space estimator (stats/read/flow_table.c) over the per-CPU registers.
 *  - N = 16 and N = 100: 1 frame in N sampled, the scaled count of each flow
 *    within 4 standard deviations of a binomial (Bernoulli 1/N per frame).
 * The process is pinned to one CPU, so the skip counter's start (the first
 * frame is sampled) happens once.
 *
 * Numbers: 17 flows at N = 1; the estimates measured 10.2, 998.5 and 100,976;
 * at N = 16 and 100, 120,000 frames of three flows on two queues, each flow's
 * sampled count and their sum within the bound. */
int main(void)
{
	cpu_set_t one;
	int err;

	setvbuf(stdout, NULL, _IOLBF, 0);
	libbpf_set_print(libbpf_print);
	ncpus = libbpf_num_possible_cpus();
	CPU_ZERO(&one);
	CPU_SET(0, &one);
	sched_setaffinity(0, sizeof(one), &one);
	setup_device();
	err = load(1);
	if (err == -EPERM || err == -EACCES) {
		check_skip("flows: load the XDP program", strerror(-err));
		return check_exit_code();
	}
	printf("# rx_queue_index in the test run: %s\n",
	       ctx_ok ? "yes (4-queue veth)" : "no (every frame on queue 0)");
	test_exact();
	test_distinct(10);
	test_distinct(1000);
	test_distinct(100000);
	test_sampling(16);
	test_sampling(100);
	pathscope_xdp__destroy(x);
	return check_exit_code();
}
