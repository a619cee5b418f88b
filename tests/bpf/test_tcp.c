// SPDX-License-Identifier: GPL-2.0
/*
 * The TCP latency feature (include/pathscope/tcp.bpf.h) on crafted segments
 * through BPF_PROG_TEST_RUN: departures through the tc egress program,
 * arrivals through tc ingress (attach's default, --tcp-rx tc) in one pass and
 * through the XDP program (--tcp-rx xdp) in another, the two objects sharing
 * their TCP maps as the loader makes them. Each case checks the exact deltas of every
 * counter (summed over queues and CPUs), of the four histograms and of the
 * peer subnets, and the flow state where it matters. Then each latency (RTT,
 * handshake both sides, response with data, ACK delay) is held to
 * CLOCK_MONOTONIC: read around the two test runs 2 ms apart, it brackets the
 * exact sum the sample adds, and the bucket and queue slot it lands in.
 *
 * This host is 10.0.0.1 (fd00::1) port 40000 (and others); the peer is
 * 10.0.0.2 (fd00::2) port 80.
 *
 * In each pass the other hook must leave arrivals alone. The cases: the first
 * segment of a TSval timed and later ones not, a wrapped TSval, pure ACKs that
 * carry replies but are no sources, both handshakes, retransmitted SYNs and
 * SYN-ACKs counted and not timed, odd option layouts and malformed ones, IPv6
 * behind extension headers, 128 peer subnets before "other".
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
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

#define NCOUNTERS (sizeof(struct ps_tcp_qstats) / sizeof(__u64))
#define NSLOTS	  2 /* nqueues 1: queue 0 and "other" */

/* TCP option layouts of the crafted segments. */
enum layout {
	L_NONE,	     /* no options */
	L_STD,	     /* NOP NOP TS: what Linux sends */
	L_ODD,	     /* NOP TS NOP: the option at an odd offset */
	L_WS_TS,     /* window scale, TS, EOL padding */
	L_NOPS,	     /* 28 NOPs then TS: the longest walk */
	L_EOL_FIRST, /* EOL, then a TS that must not be read */
	L_TRUNC,     /* a TS whose length runs past the data offset */
	L_BADLEN,    /* a TS option of length 8 */
	L_ZEROLEN,   /* an option of length 0 */
};

struct seg {
	int v6;	     /* IPv6 instead of IPv4 */
	int ext;     /* IPv6: hop-by-hop and destination options headers first */
	int rx;	     /* arriving (peer -> this host) instead of leaving */
	__u16 lport; /* this host's port (40000 when 0) */
	__u8 flags;  /* TCP flags */
	__u32 seq, ack;
	enum layout layout;
	__u32 tsval, tsecr;
	__u32 payload; /* data bytes */
};

static struct pathscope_xdp *xdp;
static struct pathscope_tc *tc;
static int ncpus;

/* The pass: arrivals matched at XDP (--tcp-rx xdp) or at tc ingress. */
static bool rx_at_xdp;

/* A check's name, with its pass. */
static const char *named(const char *name)
{
	static char buf[256];

	snprintf(buf, sizeof(buf), "%s: %s", rx_at_xdp ? "rx at xdp" : "rx at tc", name);
	return buf;
}

#define check(ok, name, ...) check_report(ok, named(name), __VA_ARGS__)

static void wr32(__u8 *p, __u32 v)
{
	p[0] = (__u8)(v >> 24);
	p[1] = (__u8)(v >> 16);
	p[2] = (__u8)(v >> 8);
	p[3] = (__u8)v;
}

static void put_ts(__u8 *o, __u32 tsval, __u32 tsecr)
{
	o[0] = 8;
	o[1] = 10;
	wr32(o + 2, tsval);
	wr32(o + 6, tsecr);
}

/* The option bytes of a layout into o (40 bytes room); returns their count. */
static __u32 put_options(__u8 *o, const struct seg *g)
{
	switch (g->layout) {
	case L_NONE:
		return 0;
	case L_STD:
		o[0] = o[1] = 1;
		put_ts(o + 2, g->tsval, g->tsecr);
		return 12;
	case L_ODD:
		o[0] = 1;
		put_ts(o + 1, g->tsval, g->tsecr);
		o[11] = 1;
		return 12;
	case L_WS_TS:
		o[0] = 3, o[1] = 3, o[2] = 7; /* window scale 7 */
		put_ts(o + 3, g->tsval, g->tsecr);
		return 16; /* 3 EOL bytes of padding */
	case L_NOPS:
		memset(o, 1, 28);
		put_ts(o + 28, g->tsval, g->tsecr);
		return 40; /* 2 EOL bytes */
	case L_EOL_FIRST:
		o[0] = 0;
		o[1] = 1;
		put_ts(o + 2, g->tsval, g->tsecr);
		return 12;
	case L_TRUNC: /* 8 option bytes: NOP NOP and a TS cut after 6 */
		o[0] = o[1] = 1;
		put_ts(o + 2, g->tsval, g->tsecr);
		return 8;
	case L_BADLEN:
		o[0] = o[1] = 1;
		put_ts(o + 2, g->tsval, g->tsecr);
		o[3] = 8;
		return 12;
	case L_ZEROLEN:
		o[0] = 5, o[1] = 0; /* SACK of length 0 */
		put_ts(o + 2, g->tsval, g->tsecr);
		return 12;
	}
	return 0;
}

static void build(struct frame *f, const struct seg *g)
{
	__u8 opts[40] = {}, *ip, *t, a[16], b[16];
	__u32 optlen = put_options(opts, g), alen = g->v6 ? 16 : 4, off;

	put_eth(f, 0, g->v6 ? ETH_IPV6 : ETH_IP);
	if (g->v6) {
		ip = put_ipv6(f, g->ext ? P_HOP : P_TCP, 0);
		if (g->ext) {
			put_ext(f, P_HOP, P_DST);
			put_ext(f, P_DST, P_TCP);
		}
		off = 8;
	} else {
		ip = put_ipv4(f, P_TCP, 0);
		off = 12;
	}
	/* The builders write local (::1, .1) -> peer (::2, .2): swap for rx. */
	if (g->rx) {
		memcpy(a, ip + off, alen);
		memcpy(b, ip + off + alen, alen);
		memcpy(ip + off, b, alen);
		memcpy(ip + off + alen, a, alen);
	}
	put_tcp(f, 5 + (optlen + 3) / 4, (optlen + 3) / 4 * 4);
	t = f->b + f->len - 20 - (optlen + 3) / 4 * 4;
	wr16(t + (g->rx ? 2 : 0), g->lport ? g->lport : 40000);
	wr16(t + (g->rx ? 0 : 2), 80);
	wr32(t + 4, g->seq);
	wr32(t + 8, g->ack);
	t[13] = g->flags;
	memset(t + 20, 0, (optlen + 3) / 4 * 4);
	memcpy(t + 20, opts, optlen);
	if (g->payload)
		put_bytes(f, g->payload);
	fix_lengths(f);
}

/* The program that matches arrivals in this pass. */
static int rx_prog_fd(void)
{
	return rx_at_xdp ? bpf_program__fd(xdp->progs.pathscope_xdp)
			 : bpf_program__fd(tc->progs.pathscope_tc_ingress);
}

/* Run one segment through tc egress (leaving) or the RX program (arriving). */
static int run(const struct seg *g)
{
	struct frame f;
	LIBBPF_OPTS(bpf_test_run_opts, o);
	int fd, err;

	build(&f, g);
	o.data_in = f.b;
	o.data_size_in = f.len;
	o.repeat = 1;
	fd = g->rx ? rx_prog_fd() : bpf_program__fd(tc->progs.pathscope_tc_egress);
	err = bpf_prog_test_run_opts(fd, &o);
	if (err)
		return -errno;
	return (int)o.retval;
}

/* ---- reading the maps ----------------------------------------------------- */

struct state {
	__u64 c[NCOUNTERS]; /* struct ps_tcp_qstats, all slots and CPUs */
	__u64 hist[4];	    /* samples in rtt, handshake, resp_data, resp_ack */
	__u64 peer_rtt, peer_hs, peer_data, peer_ack; /* all peer entries */
};

static void read_state(struct state *st)
{
	int fs = bpf_map__fd(xdp->maps.tcp_stats), fh = bpf_map__fd(xdp->maps.tcp_hist);
	int fp = bpf_map__fd(xdp->maps.tcp_peers);
	struct ps_tcp_qstats *pc = calloc(ncpus, sizeof(*pc));
	static struct ps_tcp_qhist h;
	struct ps_tcp_peer_key k, *prev = NULL;
	struct ps_tcp_peer_stats ps;
	__u32 q, i, j;
	int cpu;

	memset(st, 0, sizeof(*st));
	for (q = 0; q < NSLOTS; q++) {
		if (bpf_map_lookup_elem(fs, &q, pc) == 0)
			for (cpu = 0; cpu < ncpus; cpu++)
				for (i = 0; i < NCOUNTERS; i++)
					st->c[i] += ((__u64 *)&pc[cpu])[i];
		if (bpf_map_lookup_elem(fh, &q, &h) == 0)
			for (j = 0; j < PS_LAT_BUCKETS; j++) {
				st->hist[0] += h.rtt[j];
				st->hist[1] += h.handshake[j];
				st->hist[2] += h.resp_data[j];
				st->hist[3] += h.resp_ack[j];
			}
	}
	while (bpf_map_get_next_key(fp, prev, &k) == 0) {
		if (bpf_map_lookup_elem(fp, &k, &ps) == 0) {
			st->peer_rtt += ps.rtt_count;
			st->peer_hs += ps.hs_count;
			st->peer_data += ps.resp_data_count;
			st->peer_ack += ps.resp_ack_count;
		}
		prev = &k;
	}
	free(pc);
}

#define F(field) (offsetof(struct ps_tcp_qstats, field) / sizeof(__u64))

static const char *const counter_names[NCOUNTERS] = {
	[F(rx_ts)] = "rx_ts",
	[F(rx_no_ts)] = "rx_no_ts",
	[F(tx_ts)] = "tx_ts",
	[F(tx_no_ts)] = "tx_no_ts",
	[F(opt_bad)] = "opt_bad",
	[F(rtt_taken)] = "rtt_taken",
	[F(rtt_matched)] = "rtt_matched",
	[F(rtt_expired)] = "rtt_expired",
	[F(resp_taken)] = "resp_taken",
	[F(resp_data)] = "resp_data",
	[F(resp_ack)] = "resp_ack",
	[F(resp_expired)] = "resp_expired",
	[F(hs_timed)] = "hs_timed",
	[F(syn_retrans)] = "syn_retrans",
	[F(halfopen_new)] = "halfopen_new",
};

/* Expected deltas of a case: counters by name, histogram samples, peers. */
struct want {
	__u64 c[NCOUNTERS];
	__u64 hist[4];
	__u64 peer_rtt, peer_hs, peer_data, peer_ack;
};

static struct state before;

static void begin(void)
{
	read_state(&before);
}

/* Every counter, histogram and peer total moved by exactly w. */
static void expect(const char *name, const struct want *w)
{
	struct state after;
	char why[512] = "";
	size_t i, n = 0;

	read_state(&after);
	for (i = 0; i < NCOUNTERS; i++)
		if (after.c[i] - before.c[i] != w->c[i])
			n += snprintf(why + n, n < sizeof(why) ? sizeof(why) - n : 0,
				      "%s +%llu (want +%llu) ", counter_names[i],
				      (unsigned long long)(after.c[i] - before.c[i]),
				      (unsigned long long)w->c[i]);
	for (i = 0; i < 4; i++)
		if (after.hist[i] - before.hist[i] != w->hist[i])
			n += snprintf(why + n, n < sizeof(why) ? sizeof(why) - n : 0,
				      "hist[%zu] +%llu (want +%llu) ", i,
				      (unsigned long long)(after.hist[i] - before.hist[i]),
				      (unsigned long long)w->hist[i]);
	if (after.peer_rtt - before.peer_rtt != w->peer_rtt ||
	    after.peer_hs - before.peer_hs != w->peer_hs ||
	    after.peer_data - before.peer_data != w->peer_data ||
	    after.peer_ack - before.peer_ack != w->peer_ack)
		n += snprintf(why + n, n < sizeof(why) ? sizeof(why) - n : 0,
			      "peers +%llu/%llu/%llu/%llu (want +%llu/%llu/%llu/%llu)",
			      (unsigned long long)(after.peer_rtt - before.peer_rtt),
			      (unsigned long long)(after.peer_hs - before.peer_hs),
			      (unsigned long long)(after.peer_data - before.peer_data),
			      (unsigned long long)(after.peer_ack - before.peer_ack),
			      (unsigned long long)w->peer_rtt, (unsigned long long)w->peer_hs,
			      (unsigned long long)w->peer_data, (unsigned long long)w->peer_ack);
	check(n == 0, name, "%s", why);
}

#define W(...) (&(struct want){ __VA_ARGS__ })
#define C(...) .c = { __VA_ARGS__ }

static void key_of(struct ps_tcp_flow_key *k, int v6, __u16 lport)
{
	memset(k, 0, sizeof(*k));
	k->family = v6 ? 6 : 4;
	k->lport = htons(lport ? lport : 40000);
	k->rport = htons(80);
	if (v6) {
		k->laddr[0] = k->raddr[0] = 0xfd;
		k->laddr[15] = 1;
		k->raddr[15] = 2;
	} else {
		k->laddr[0] = k->raddr[0] = 10;
		k->laddr[3] = 1;
		k->raddr[3] = 2;
	}
}

static bool flow_get(int v6, __u16 lport, struct ps_tcp_flow *f, bool halfopen)
{
	struct ps_tcp_flow_key k;

	key_of(&k, v6, lport);
	return bpf_map_lookup_elem(halfopen ? bpf_map__fd(xdp->maps.tcp_halfopen)
					    : bpf_map__fd(xdp->maps.tcp_flows),
				   &k, f) == 0;
}

/* Leave and arrive, checking each program's verdict. */
static void tx(const struct seg *g)
{
	struct seg s = *g;
	int v;

	s.rx = 0;
	v = run(&s);
	if (v != -1)
		check(0, "tc egress verdict", "got %d, want -1 (TC_ACT_UNSPEC)", v);
}

static void rx(const struct seg *g)
{
	struct seg s = *g;
	int v;

	s.rx = 1;
	v = run(&s);
	if (v != (rx_at_xdp ? 2 : -1))
		check(0, "rx verdict", "got %d, want %d (XDP_PASS or TC_ACT_UNSPEC)", v,
		      rx_at_xdp ? 2 : -1);
}

#define FIN	 0x01 /* TCP flags */
#define SYN	 0x02
#define RST	 0x04
#define ACK	 0x10
#define DATA(n)	 .payload = (n)
#define TS(v, e) .layout = L_STD, .tsval = (v), .tsecr = (e)

/* ---- the cases ------------------------------------------------------------- */

static void test_rtt(void)
{
	struct ps_tcp_flow f;

	begin();
	tx(&(struct seg){ .flags = ACK, TS(1000, 1), DATA(100) });
	expect("data out with a new TSval: a sample taken (the flow created at egress)",
	       W(C([F(tx_ts)] = 1, [F(rtt_taken)] = 1)));
	check(flow_get(0, 0, &f, false) && f.out_tsval == 1000 && f.out_ns && f.last_out == 1000,
	      "flow state holds the sample", "out_tsval %u", f.out_tsval);
	begin();
	tx(&(struct seg){ .flags = ACK, TS(1000, 1), DATA(100) });
	tx(&(struct seg){ .flags = ACK, TS(1001, 1), DATA(100) });
	expect("the same TSval again, and a new one while one is in flight: no sample",
	       W(C([F(tx_ts)] = 2)));
	begin();
	rx(&(struct seg){ .flags = ACK, TS(7000, 999) });
	expect("an echo of an older TSval: nothing", W(C([F(rx_ts)] = 1)));
	begin();
	rx(&(struct seg){ .flags = ACK, TS(7001, 1000) });
	expect("a pure ACK echoing it: an RTT, in its RX queue and its peer /24",
	       W(C([F(rx_ts)] = 1, [F(rtt_matched)] = 1), .hist = { 1 }, .peer_rtt = 1));
	check(flow_get(0, 0, &f, false) && f.out_ns == 0 && f.in_ns == 0,
	      "the sample is gone; a pure ACK arriving takes no response sample",
	      "out_ns %llu in_ns %llu", (unsigned long long)f.out_ns, (unsigned long long)f.in_ns);
	begin();
	rx(&(struct seg){ .flags = ACK, TS(7002, 1000) });
	expect("a second echo of the same TSval: nothing", W(C([F(rx_ts)] = 1)));

	begin();
	tx(&(struct seg){ .flags = ACK, TS(3000, 7002) });
	tx(&(struct seg){ .flags = ACK, TS(3000, 7002), DATA(10) });
	expect("a pure ACK leaving: no sample, and data with its TSval is not the first",
	       W(C([F(tx_ts)] = 2)));
	begin();
	tx(&(struct seg){ .flags = ACK | FIN, TS(3001, 7002) });
	expect("a FIN with a new TSval: a sample", W(C([F(tx_ts)] = 1, [F(rtt_taken)] = 1)));
	begin();
	rx(&(struct seg){ .flags = ACK, TS(7003, 3002) });
	expect("an echo past the sample: expired, never timed",
	       W(C([F(rx_ts)] = 1, [F(rtt_expired)] = 1)));
}

static void test_wrap(void)
{
	begin();
	tx(&(struct seg){ .lport = 40001, .flags = ACK, TS(0xfffffff0u, 1), DATA(1) });
	rx(&(struct seg){ .lport = 40001, .flags = ACK, TS(2, 0x00000005u) });
	expect("TSval wraparound: 0x5 comes after 0xfffffff0, the sample expires",
	       W(C([F(tx_ts)] = 1, [F(rtt_taken)] = 1, [F(rx_ts)] = 1, [F(rtt_expired)] = 1)));
	begin();
	tx(&(struct seg){ .lport = 40001, .flags = ACK, TS(0xfffffffeu, 1), DATA(1) });
	rx(&(struct seg){ .lport = 40001, .flags = ACK, TS(3, 0xfffffffdu) });
	rx(&(struct seg){ .lport = 40001, .flags = ACK, TS(4, 0xfffffffeu) });
	expect("0xfffffffd before 0xfffffffe: waits; its echo matches",
	       W(C([F(tx_ts)] = 1, [F(rtt_taken)] = 1, [F(rx_ts)] = 2, [F(rtt_matched)] = 1),
		 .hist = { 1 }, .peer_rtt = 1));
}

static void test_response(void)
{
	const __u16 p = 40002;
	struct ps_tcp_flow f;

	begin();
	rx(&(struct seg){ .lport = p, .flags = ACK, TS(500, 1), DATA(50) });
	expect("data arriving on a flow this host never sent on: no state, no sample",
	       W(C([F(rx_ts)] = 1)));
	check(!flow_get(0, p, &f, false), "arrivals create no flow state", "a flow entry exists");
	tx(&(struct seg){ .lport = p, .flags = ACK, TS(10, 500) });
	begin();
	rx(&(struct seg){ .lport = p, .flags = ACK, TS(501, 10), DATA(50) });
	expect("data in with a new TSval: a response sample",
	       W(C([F(rx_ts)] = 1, [F(resp_taken)] = 1)));
	begin();
	tx(&(struct seg){ .lport = p, .flags = ACK, TS(11, 501) });
	expect("a pure ACK echoing it: an ACK delay",
	       W(C([F(tx_ts)] = 1, [F(resp_ack)] = 1), .hist = { 0, 0, 0, 1 }, .peer_ack = 1));
	begin();
	rx(&(struct seg){ .lport = p, .flags = ACK, TS(502, 11), DATA(50) });
	tx(&(struct seg){ .lport = p, .flags = ACK, TS(12, 502), DATA(70) });
	expect("data echoing it: a response with data (and that data a new RTT sample)",
	       W(C([F(rx_ts)] = 1, [F(resp_taken)] = 1, [F(tx_ts)] = 1, [F(resp_data)] = 1,
		   [F(rtt_taken)] = 1),
		 .hist = { 0, 0, 1, 0 }, .peer_data = 1));
	begin();
	rx(&(struct seg){ .lport = p, .flags = ACK, TS(503, 12), DATA(50) });
	tx(&(struct seg){ .lport = p, .flags = ACK, TS(12, 504) });
	expect("this host echoes a later TSval: the response sample expires",
	       W(C([F(rx_ts)] = 1, [F(resp_taken)] = 1, [F(rtt_matched)] = 1, [F(tx_ts)] = 1,
		   [F(resp_expired)] = 1),
		 .hist = { 1 }, .peer_rtt = 1));
}

/* tcp_seen: each direction skips the flow lookup for a segment carrying its
 * flow's last (TSval, TSecr) there. Arriving, a new TSecr alone must still
 * reach the RTT sample and a new TSval alone the host response sample;
 * leaving, a new TSecr alone the response echo and a new TSval the RTT
 * sample. */
static bool seen_holds(__u32 tsval, __u32 tsecr)
{
	struct ps_tcp_seen v;
	__u32 k;

	for (k = 0; k < PS_TCP_SEEN_SLOTS; k++)
		if (bpf_map_lookup_elem(rx_at_xdp ? bpf_map__fd(xdp->maps.tcp_seen)
						  : bpf_map__fd(tc->maps.tcp_seen),
					&k, &v) == 0 &&
		    v.tsval == tsval && v.tsecr == tsecr)
			return true;
	return false;
}

static void test_seen(void)
{
	const __u16 p = 40003;

	tx(&(struct seg){ .lport = p, .flags = ACK, TS(100, 50), DATA(10) });
	begin();
	rx(&(struct seg){ .lport = p, .flags = ACK, TS(60, 90) });
	rx(&(struct seg){ .lport = p, .flags = ACK, TS(60, 90) });
	expect("seen: one pair twice, echoing an older TSval: nothing", W(C([F(rx_ts)] = 2)));
	check(seen_holds(60, 90), "seen: the RX path remembers the flow's last pair",
	      "no slot holds TSval 60, TSecr 90");
	begin();
	rx(&(struct seg){ .lport = p, .flags = ACK, TS(60, 100) });
	expect("seen: the same TSval with a new TSecr, the sample's echo: an RTT",
	       W(C([F(rx_ts)] = 1, [F(rtt_matched)] = 1), .hist = { 1 }, .peer_rtt = 1));
	begin();
	rx(&(struct seg){ .lport = p, .flags = ACK, TS(61, 100), DATA(20) });
	expect("seen: a new TSval with the same TSecr, data: a response sample",
	       W(C([F(rx_ts)] = 1, [F(resp_taken)] = 1)));
	begin();
	rx(&(struct seg){ .lport = p, .flags = ACK, TS(61, 100), DATA(20) });
	expect("seen: that pair again: nothing", W(C([F(rx_ts)] = 1)));

	/* Leaving: the same, for the response echo and the RTT sample. */
	begin();
	tx(&(struct seg){ .lport = p, .flags = ACK, TS(100, 60) });
	tx(&(struct seg){ .lport = p, .flags = ACK, TS(100, 60) });
	expect("seen: out, one pair twice, echoing an older arrival: nothing",
	       W(C([F(tx_ts)] = 2)));
	begin();
	tx(&(struct seg){ .lport = p, .flags = ACK, TS(100, 61) });
	expect("seen: out, the same TSval echoing the sampled arrival: an ACK delay",
	       W(C([F(tx_ts)] = 1, [F(resp_ack)] = 1), .hist = { 0, 0, 0, 1 }, .peer_ack = 1));
	begin();
	tx(&(struct seg){ .lport = p, .flags = ACK, TS(101, 61), DATA(10) });
	expect("seen: out, a new TSval with the same TSecr, data: an RTT sample",
	       W(C([F(tx_ts)] = 1, [F(rtt_taken)] = 1)));
	begin();
	tx(&(struct seg){ .lport = p, .flags = ACK, TS(101, 61), DATA(10) });
	expect("seen: out, that pair again: nothing", W(C([F(tx_ts)] = 1)));
}

static void test_handshake(void)
{
	struct ps_tcp_flow f;

	begin();
	tx(&(struct seg){ .lport = 41000, .flags = SYN, .seq = 100, TS(20, 0) });
	rx(&(struct seg){ .lport = 41000, .flags = SYN | ACK, .seq = 900, .ack = 101, TS(60, 20) });
	expect("client: SYN out, SYN-ACK in: a handshake RTT",
	       W(C([F(tx_ts)] = 1, [F(rx_ts)] = 1, [F(hs_timed)] = 1, [F(halfopen_new)] = 1),
		 .hist = { 0, 1 }, .peer_hs = 1));
	check(flow_get(0, 41000, &f, true) && f.hs_state == PS_TCP_HS_DONE,
	      "the half-open entry is done", "state %u", f.hs_state);
	check(!flow_get(0, 41000, &f, false), "no established entry before the ACK", "present");
	begin();
	rx(&(struct seg){ .lport = 41000, .flags = SYN | ACK, .seq = 900, .ack = 101, TS(61, 20) });
	expect("the SYN-ACK again: not timed twice", W(C([F(rx_ts)] = 1)));

	begin();
	tx(&(struct seg){ .lport = 41001, .flags = SYN, .seq = 200 });
	rx(&(struct seg){ .lport = 41001, .flags = SYN | ACK, .seq = 5, .ack = 201 });
	expect("without the timestamp option: timed all the same",
	       W(C([F(tx_no_ts)] = 1, [F(rx_no_ts)] = 1, [F(hs_timed)] = 1, [F(halfopen_new)] = 1),
		 .hist = { 0, 1 }, .peer_hs = 1));

	begin();
	tx(&(struct seg){ .lport = 41002, .flags = SYN, .seq = 300, TS(30, 0) });
	tx(&(struct seg){ .lport = 41002, .flags = SYN, .seq = 300, TS(1030, 0) });
	rx(&(struct seg){ .lport = 41002, .flags = SYN | ACK, .seq = 7, .ack = 301, TS(70, 30) });
	expect("a retransmitted SYN: counted, and the handshake not timed (one half-open entry)",
	       W(C([F(tx_ts)] = 2, [F(rx_ts)] = 1, [F(syn_retrans)] = 1, [F(halfopen_new)] = 1)));

	begin();
	rx(&(struct seg){ .lport = 41003, .flags = SYN, .seq = 400, TS(80, 0) });
	tx(&(struct seg){ .lport = 41003, .flags = SYN | ACK, .seq = 600, .ack = 401, TS(40, 80) });
	rx(&(struct seg){ .lport = 41003, .flags = ACK, .seq = 401, .ack = 600, TS(81, 40) });
	rx(&(struct seg){ .lport = 41003, .flags = ACK, .seq = 401, .ack = 601, TS(81, 40) });
	expect("server: SYN-ACK out, the ACK of it in: a handshake RTT (an ACK of less is not)",
	       W(C([F(rx_ts)] = 3, [F(tx_ts)] = 1, [F(hs_timed)] = 1, [F(halfopen_new)] = 1),
		 .hist = { 0, 1 }, .peer_hs = 1));
	begin();
	tx(&(struct seg){ .lport = 41003, .flags = SYN | ACK, .seq = 600, .ack = 401 });
	expect("a retransmitted SYN-ACK after the handshake: counted",
	       W(C([F(tx_no_ts)] = 1, [F(syn_retrans)] = 1)));

	/* A SYN to a closed port: this host answers with a RST, which must
	 * not make a flow (a flood of them would fill the map). */
	begin();
	rx(&(struct seg){ .lport = 41004, .flags = SYN, .seq = 500, TS(90, 0) });
	tx(&(struct seg){ .lport = 41004, .flags = RST | ACK, .ack = 501 });
	expect("a SYN to a closed port and the RST: counted, no handshake",
	       W(C([F(rx_ts)] = 1, [F(tx_no_ts)] = 1)));
	check(!flow_get(0, 41004, &f, false), "the RST leaves no flow entry", "present");
}

static void test_layouts(void)
{
	static const struct {
		enum layout l;
		const char *name;
		int found, bad;
	} cases[] = {
		{ L_ODD, "TS at an odd offset (NOP TS NOP)", 1, 0 },
		{ L_WS_TS, "window scale, TS, EOL padding", 1, 0 },
		{ L_NOPS, "28 NOPs before the TS", 1, 0 },
		{ L_EOL_FIRST, "EOL first: the TS after it is not read", 0, 0 },
		{ L_TRUNC, "a TS running past the data offset: malformed", 0, 1 },
		{ L_BADLEN, "a TS of length 8: malformed", 0, 1 },
		{ L_ZEROLEN, "an option of length 0: malformed", 0, 1 },
	};
	char name[160];
	__u16 p;
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		p = (__u16)(42000 + i);
		begin();
		tx(&(struct seg){ .lport = p,
				  .flags = ACK,
				  .layout = cases[i].l,
				  .tsval = 900,
				  .tsecr = 1,
				  DATA(10) });
		rx(&(struct seg){
		    .lport = p, .flags = ACK, .layout = cases[i].l, .tsval = 5, .tsecr = 900 });
		snprintf(name, sizeof(name), "options: %s", cases[i].name);
		if (cases[i].found)
			expect(name, W(C([F(tx_ts)] = 1, [F(rx_ts)] = 1, [F(rtt_taken)] = 1,
					 [F(rtt_matched)] = 1),
				       .hist = { 1 }, .peer_rtt = 1));
		else
			expect(name, W(C([F(tx_no_ts)] = 1, [F(rx_no_ts)] = 1,
					 [F(opt_bad)] = cases[i].bad ? 2 : 0)));
	}
}

static void test_ipv6(void)
{
	begin();
	tx(&(struct seg){ .v6 = 1, .ext = 1, .flags = ACK, TS(100, 1), DATA(20) });
	rx(&(struct seg){ .v6 = 1, .ext = 1, .flags = ACK, TS(9, 100) });
	expect("IPv6 behind hop-by-hop and destination options: an RTT",
	       W(C([F(tx_ts)] = 1, [F(rx_ts)] = 1, [F(rtt_taken)] = 1, [F(rtt_matched)] = 1),
		 .hist = { 1 }, .peer_rtt = 1));
}

static void test_peer_subnets(void)
{
	struct ps_tcp_peer_key k = {}, *prev = NULL;
	struct ps_tcp_peer_stats ps;
	int fd = bpf_map__fd(xdp->maps.tcp_peers), n4 = 0, n6 = 0, other = 0;
	bool ok4 = false, ok6 = false;

	while (bpf_map_get_next_key(fd, prev, &k) == 0) {
		if (bpf_map_lookup_elem(fd, &k, &ps) == 0) {
			if (k.family == 4) {
				n4++;
				ok4 = k.prefix == 24 && k.addr[0] == 10 && k.addr[3] == 0 &&
				      ps.rtt_count == 7;
			} else if (k.family == 6) {
				n6++;
				ok6 = k.prefix == 48 && k.addr[0] == 0xfd && k.addr[15] == 0 &&
				      ps.rtt_count == 1;
			} else {
				other++;
			}
		}
		prev = &k;
	}
	check(n4 == 1 && ok4, "peers: 10.0.0.2 counted in 10.0.0.0/24 (7 RTTs)", "%d IPv4 entries",
	      n4);
	check(n6 == 1 && ok6, "peers: fd00::2 counted in fd00::/48 (1 RTT)", "%d IPv6 entries", n6);
	check(other == 0, "peers: no \"other\" entry until 128 subnets", "%d other entries", other);
}

/* ---- exact brackets against CLOCK_MONOTONIC (tests/lib/bracket.h) --------- */

static void timed(void (*fn)(const struct seg *), const struct seg *g, struct span *s)
{
	s->start = mono_ns();
	fn(g);
	s->end = mono_ns();
}

/* Each family's (rtt, handshake, resp_data, resp_ack) count and exact sum
 * over the peer subnets, and its histogram in each queue slot. */
struct sums {
	__u64 n[4], ns[4];
	__u64 hist[NSLOTS][4][PS_LAT_BUCKETS], all[4];
};

static void read_sums(struct sums *s)
{
	int fd = bpf_map__fd(xdp->maps.tcp_peers), fh = bpf_map__fd(xdp->maps.tcp_hist);
	struct ps_tcp_peer_key k, *prev = NULL;
	struct ps_tcp_peer_stats ps;
	static struct ps_tcp_qhist h;
	__u32 q, j;

	memset(s, 0, sizeof(*s));
	for (q = 0; q < NSLOTS; q++) {
		if (bpf_map_lookup_elem(fh, &q, &h))
			continue;
		for (j = 0; j < PS_LAT_BUCKETS; j++) {
			const __u64 v[4] = { h.rtt[j], h.handshake[j], h.resp_data[j],
					     h.resp_ack[j] };

			for (int i = 0; i < 4; i++) {
				s->all[i] += v[i];
				s->hist[q][i][j] = v[i];
			}
		}
	}
	while (bpf_map_get_next_key(fd, prev, &k) == 0) {
		if (bpf_map_lookup_elem(fd, &k, &ps) == 0) {
			s->n[0] += ps.rtt_count, s->ns[0] += ps.rtt_sum_ns;
			s->n[1] += ps.hs_count, s->ns[1] += ps.hs_sum_ns;
			s->n[2] += ps.resp_data_count, s->ns[2] += ps.resp_data_sum_ns;
			s->n[3] += ps.resp_ack_count, s->ns[3] += ps.resp_ack_sum_ns;
		}
		prev = &k;
	}
}

/* Family i gained one sample, inside the bracket of a then b: its exact sum,
 * and its histogram bucket, in the slot of the RX queue. XDP runs on RX
 * queue 0; a test-run skb has no RX queue recorded: "other". */
static void bracket(const char *name, int i, const struct sums *before, const struct span *a,
		    const struct span *b)
{
	struct sums after;
	unsigned int j, blo, bhi, in = 0, q = rx_at_xdp ? 0 : NSLOTS - 1;
	__u64 lo, hi, got;
	char label[200];

	bracket_of(a, b, &lo, &hi);
	blo = ps_hist_bucket(lo, PS_LAT_BUCKETS);
	bhi = ps_hist_bucket(hi, PS_LAT_BUCKETS);
	read_sums(&after);
	got = after.ns[i] - before->ns[i];
	check(after.n[i] - before->n[i] == 1 && lo <= got && got <= hi, name,
	      "%llu samples, %llu ns; want 1 in [%llu, %llu] ns",
	      (unsigned long long)(after.n[i] - before->n[i]), (unsigned long long)got,
	      (unsigned long long)lo, (unsigned long long)hi);
	for (j = blo; j <= bhi; j++)
		in += (unsigned int)(after.hist[q][i][j] - before->hist[q][i][j]);
	snprintf(label, sizeof(label), "%s: its bucket, in %s", name, q ? "slot other" : "queue 0");
	check(in == 1 && after.all[i] - before->all[i] == 1, label,
	      "%u in buckets %u..%u there, %llu in all slots", in, blo, bhi,
	      (unsigned long long)(after.all[i] - before->all[i]));
}

static void test_brackets(void)
{
	struct span a, b;
	struct sums s;

	read_sums(&s);
	timed(tx, &(struct seg){ .lport = 43000, .flags = ACK, TS(1000, 1), DATA(100) }, &a);
	bracket_gap();
	timed(rx, &(struct seg){ .lport = 43000, .flags = ACK, TS(7001, 1000) }, &b);
	bracket("bracket: RTT, data out to the ACK echoing it", 0, &s, &a, &b);

	read_sums(&s);
	timed(tx, &(struct seg){ .lport = 43001, .flags = SYN, .seq = 100, TS(20, 0) }, &a);
	bracket_gap();
	timed(
	    rx,
	    &(struct seg){ .lport = 43001, .flags = SYN | ACK, .seq = 900, .ack = 101, TS(60, 20) },
	    &b);
	bracket("bracket: handshake, client (SYN out to SYN-ACK in)", 1, &s, &a, &b);

	rx(&(struct seg){ .lport = 43002, .flags = SYN, .seq = 400, TS(80, 0) });
	read_sums(&s);
	timed(
	    tx,
	    &(struct seg){ .lport = 43002, .flags = SYN | ACK, .seq = 600, .ack = 401, TS(40, 80) },
	    &a);
	bracket_gap();
	timed(rx, &(struct seg){ .lport = 43002, .flags = ACK, .seq = 401, .ack = 601, TS(81, 40) },
	      &b);
	bracket("bracket: handshake, server (SYN-ACK out to its ACK in)", 1, &s, &a, &b);

	tx(&(struct seg){ .lport = 43003, .flags = ACK, TS(10, 500) });
	read_sums(&s);
	timed(rx, &(struct seg){ .lport = 43003, .flags = ACK, TS(501, 10), DATA(50) }, &a);
	bracket_gap();
	timed(tx, &(struct seg){ .lport = 43003, .flags = ACK, TS(11, 501) }, &b);
	bracket("bracket: ACK delay (data in to the pure ACK echoing it)", 3, &s, &a, &b);
	read_sums(&s);
	timed(rx, &(struct seg){ .lport = 43003, .flags = ACK, TS(502, 11), DATA(50) }, &a);
	bracket_gap();
	timed(tx, &(struct seg){ .lport = 43003, .flags = ACK, TS(12, 502), DATA(70) }, &b);
	bracket("bracket: response with data (data in to the data echoing it)", 2, &s, &a, &b);
}

static void test_not_tcp(void)
{
	struct frame f;
	LIBBPF_OPTS(bpf_test_run_opts, o);

	put_eth(&f, 0, ETH_IP);
	put_ipv4(&f, P_UDP, 0);
	put_udp(&f);
	put_bytes(&f, 20);
	fix_lengths(&f);
	o.data_in = f.b;
	o.data_size_in = f.len;
	begin();
	bpf_prog_test_run_opts(rx_prog_fd(), &o);
	bpf_prog_test_run_opts(bpf_program__fd(tc->progs.pathscope_tc_egress), &o);
	expect("UDP: no TCP counter moves", W(C(0)));
	/* A TCP header cut before its options end: the parser classes it
	 * malformed; the TCP code never sees it. */
	put_eth(&f, 0, ETH_IP);
	put_ipv4(&f, P_TCP, 0);
	put_tcp(&f, 8, 4); /* doff 8 (12 option bytes), only 4 present */
	fix_lengths(&f);
	o.data_size_in = f.len;
	begin();
	bpf_prog_test_run_opts(rx_prog_fd(), &o);
	expect("a TCP header cut short: not read", W(C(0)));
}

/* The hook that does not match arrivals in this pass leaves them alone. */
static void test_other_hook(void)
{
	struct seg g = { .rx = 1, .lport = 40000, .flags = ACK, TS(70, 100), DATA(20) };
	struct frame f;
	LIBBPF_OPTS(bpf_test_run_opts, o);

	build(&f, &g);
	o.data_in = f.b;
	o.data_size_in = f.len;
	begin();
	bpf_prog_test_run_opts(rx_at_xdp ? bpf_program__fd(tc->progs.pathscope_tc_ingress)
					 : bpf_program__fd(xdp->progs.pathscope_xdp),
			       &o);
	expect(rx_at_xdp ? "tc ingress leaves arriving segments to XDP"
			 : "XDP leaves arriving segments to tc ingress",
	       W(C(0)));
}

static int load(bool at_xdp)
{
	static const char *const shared[] = { "tcp_flows", "tcp_halfopen", "tcp_stats",
					      "tcp_hist",  "tcp_peers",	   NULL };

	if (skel_pair_open(&xdp, &tc, PS_F_TCP))
		return -1;
	xdp->rodata->ps_tcp_rx_at_xdp = at_xdp;
	tc->rodata->ps_tcp_rx_at_tc = !at_xdp;
	return skel_pair_load(xdp, tc, shared);
}

int main(void)
{
	libbpf_set_print(skel_pair_quiet);
	ncpus = libbpf_num_possible_cpus();
	for (int pass = 0; pass < 2; pass++) {
		rx_at_xdp = pass == 1; /* tc ingress first: attach's default */
		if (!skel_pair_ready("tcp: BPF_PROG_TEST_RUN", geteuid() ? 0 : load(rx_at_xdp)))
			return check_exit_code();
		test_rtt();
		test_wrap();
		test_response();
		test_seen();
		test_handshake();
		test_layouts();
		test_ipv6();
		test_peer_subnets();
		test_brackets();
		test_not_tcp();
		test_other_hook();
		pathscope_tc__destroy(tc);
		pathscope_xdp__destroy(xdp);
		tc = NULL;
		xdp = NULL;
	}
	return check_exit_code();
}
