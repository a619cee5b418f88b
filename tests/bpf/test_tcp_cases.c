// SPDX-License-Identifier: GPL-2.0
/* The TCP latency feature's logic on crafted segments (tests/lib/tcp_segments.h), by
 * exact deltas of every counter, histogram and peer subnet; tests/bpf/test_tcp_brackets.c
 * holds each latency to CLOCK_MONOTONIC. */
#include "tests/lib/tcp_segments.h"

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

/* In this order: test_peer_subnets counts the RTTs of the cases before it. */
static void cases(void)
{
	test_rtt();
	test_wrap();
	test_response();
	test_seen();
	test_handshake();
	test_layouts();
	test_ipv6();
	test_peer_subnets();
	test_not_tcp();
	test_other_hook();
}

/* In each pass the other hook must leave arrivals alone. The cases: the first
 * segment of a TSval timed and later ones not, a wrapped TSval, pure ACKs that
 * carry replies but are no sources, both handshakes, retransmitted SYNs and
 * SYN-ACKs counted and not timed, odd option layouts and malformed ones, IPv6
 * behind extension headers, 128 peer subnets before "other". */
int main(void)
{
	return tcp_passes(cases);
}
