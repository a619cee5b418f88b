/* SPDX-License-Identifier: GPL-2.0 */
/* What the TCP latency tests (test_tcp_cases.c, exact deltas; test_tcp_brackets.c, held
 * to CLOCK_MONOTONIC) share: crafted segments through BPF_PROG_TEST_RUN of
 * include/pathscope/tcp.bpf.h, and the exact deltas of every counter they move. */
#ifndef PATHSCOPE_TESTS_LIB_TCP_SEGMENTS_H
#define PATHSCOPE_TESTS_LIB_TCP_SEGMENTS_H

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

/* A crafted segment (struct seg, build()), run through the program of its
 * direction (tx(), rx()), and the exact deltas of every counter (summed over
 * queues and CPUs), of the four histograms and of the peer subnets (begin(),
 * expect()).
 *
 * This host is 10.0.0.1 (fd00::1) port 40000 (and others); the peer is 10.0.0.2
 * (fd00::2) port 80. */
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
static inline const char *named(const char *name)
{
	static char buf[256];

	snprintf(buf, sizeof(buf), "%s: %s", rx_at_xdp ? "rx at xdp" : "rx at tc", name);
	return buf;
}

#define check(ok, name, ...) check_report(ok, named(name), __VA_ARGS__)

static inline void wr32(__u8 *p, __u32 v)
{
	p[0] = (__u8)(v >> 24);
	p[1] = (__u8)(v >> 16);
	p[2] = (__u8)(v >> 8);
	p[3] = (__u8)v;
}

static inline void put_ts(__u8 *o, __u32 tsval, __u32 tsecr)
{
	o[0] = 8;
	o[1] = 10;
	wr32(o + 2, tsval);
	wr32(o + 6, tsecr);
}

/* The option bytes of a layout into o (40 bytes room); returns their count. */
static inline __u32 put_options(__u8 *o, const struct seg *g)
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

static inline void build(struct frame *f, const struct seg *g)
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
static inline int rx_prog_fd(void)
{
	return rx_at_xdp ? bpf_program__fd(xdp->progs.pathscope_xdp)
			 : bpf_program__fd(tc->progs.pathscope_tc_ingress);
}

/* Run one segment through tc egress (leaving) or the RX program (arriving). */
static inline int run(const struct seg *g)
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

static inline void read_state(struct state *st)
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

static inline void begin(void)
{
	read_state(&before);
}

/* Every counter, histogram and peer total moved by exactly w. */
static inline void expect(const char *name, const struct want *w)
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

static inline void key_of(struct ps_tcp_flow_key *k, int v6, __u16 lport)
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

static inline bool flow_get(int v6, __u16 lport, struct ps_tcp_flow *f, bool halfopen)
{
	struct ps_tcp_flow_key k;

	key_of(&k, v6, lport);
	return bpf_map_lookup_elem(halfopen ? bpf_map__fd(xdp->maps.tcp_halfopen)
					    : bpf_map__fd(xdp->maps.tcp_flows),
				   &k, f) == 0;
}

/* Leave and arrive, checking each program's verdict. */
static inline void tx(const struct seg *g)
{
	struct seg s = *g;
	int v;

	s.rx = 0;
	v = run(&s);
	if (v != -1)
		check(0, "tc egress verdict", "got %d, want -1 (TC_ACT_UNSPEC)", v);
}

static inline void rx(const struct seg *g)
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

static inline int load(bool at_xdp)
{
	static const char *const shared[] = { "tcp_flows", "tcp_halfopen", "tcp_stats",
					      "tcp_hist",  "tcp_peers",	   NULL };

	if (skel_pair_open(&xdp, &tc, PS_F_TCP))
		return -1;
	xdp->rodata->ps_tcp_rx_at_xdp = at_xdp;
	tc->rodata->ps_tcp_rx_at_tc = !at_xdp;
	return skel_pair_load(xdp, tc, shared);
}

/* The program's main: cases run in each pass, tc ingress first (attach's
 * default), on objects loaded fresh for it.
 *
 * Departures run through the tc egress program, arrivals through tc
 * ingress (attach's default, --tcp-rx tc) in one pass and through the XDP
 * program (--tcp-rx xdp) in another, the two objects sharing their TCP maps as
 * the loader makes them. */
static inline int tcp_passes(void (*cases)(void))
{
	libbpf_set_print(skel_pair_quiet);
	ncpus = libbpf_num_possible_cpus();
	for (int pass = 0; pass < 2; pass++) {
		rx_at_xdp = pass == 1; /* tc ingress first: attach's default */
		if (!skel_pair_ready("tcp: BPF_PROG_TEST_RUN", geteuid() ? 0 : load(rx_at_xdp)))
			return check_exit_code();
		cases();
		pathscope_tc__destroy(tc);
		pathscope_xdp__destroy(xdp);
		tc = NULL;
		xdp = NULL;
	}
	return check_exit_code();
}

#endif /* PATHSCOPE_TESTS_LIB_TCP_SEGMENTS_H */
