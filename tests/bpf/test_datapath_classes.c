// SPDX-License-Identifier: GPL-2.0
/* The XDP and tc programs, one crafted frame at a time (BPF_PROG_TEST_RUN;
 * tests/lib/datapath.h), at each hook with exact deltas of every counter of every
 * slot; then the invariants over all of those frames. */
#include "tests/lib/datapath.h"
#include "tests/lib/datapath_frames.h"

struct class_case {
	const char *name;
	build_fn build;
	struct cls c;
};

static const struct class_case class_cases[] = {
	{ "ipv4 tcp", b_v4_tcp, C_IP4(PS_L4_TCP) },
	{ "ipv4 udp", b_v4_udp, C_IP4(PS_L4_UDP) },
	{ "ipv4 icmp", b_v4_icmp, C_IP4(PS_L4_ICMP) },
	{ "ipv4 gre (other protocol)", b_v4_gre, C_IP4(PS_L4_OTHER) },
	{ "ipv4 ah (other protocol)", b_v4_ah, C_IP4(PS_L4_OTHER) },
	{ "ipv4 non-first fragment", b_v4_frag, C_IP4(PS_L4_FRAGMENT) },
	{ "ipv4 first fragment with DF, tcp", b_v4_first_frag, C_IP4(PS_L4_TCP) },
	{ "ipv4 with options (ihl 7), udp", b_v4_options, C_IP4(PS_L4_UDP) },
	{ "ipv6 tcp", b_v6_tcp, C_IP6(PS_L4_TCP) },
	{ "ipv6 udp", b_v6_udp, C_IP6(PS_L4_UDP) },
	{ "ipv6 icmpv6", b_v6_icmp, C_IP6(PS_L4_ICMPV6) },
	{ "ipv6 hop+dst+routing+fragment(first), udp", b_v6_ext_chain, C_IP6(PS_L4_UDP) },
	{ "ipv6 non-first fragment", b_v6_frag, C_IP6(PS_L4_FRAGMENT) },
	{ "ipv6 ah, tcp", b_v6_ah, C_IP6(PS_L4_TCP) },
	{ "ipv6 6 extension headers, udp", b_v6_6ext, C_IP6(PS_L4_UDP) },
	{ "ipv6 7 extension headers", b_v6_7ext, C_L4ERR(PS_L3_IPV6, PS_ERR_EXT_DEPTH) },
	{ "ipv6 no next header", b_v6_nonext, C_IP6(PS_L4_OTHER) },
	{ "ipv6 esp", b_v6_esp, C_IP6(PS_L4_OTHER) },
	{ "arp", b_arp, C_L3(PS_L3_ARP) },
	{ "unknown ethertype 0x88b5", b_other, C_L3(PS_L3_OTHER) },
};

static const char *const vlan_names[] = { "untagged", "802.1Q", "QinQ", "3 tags" };

/* Every class with 0, 1 and 2 VLAN tags, on every hook. */
static void test_classes(struct env *e)
{
	struct frame f;
	struct run r = { .f = &f };
	char name[160];
	size_t i;
	int vlans, hk;

	for (hk = 0; hk < NHOOKS; hk++)
		for (i = 0; i < ARRAY_SIZE(class_cases); i++)
			for (vlans = 0; vlans <= PS_MAX_VLAN; vlans++) {
				class_cases[i].build(&f, vlans, PS_ECN_NOT_ECT);
				snprintf(name, sizeof(name), "%s: %s, %s", e->h[hk].name,
					 class_cases[i].name, vlan_names[vlans]);
				check_frame(name, &e->h[hk], &r, 0, class_cases[i].c, vlans,
					    PS_ECN_NOT_ECT);
			}

	/* Three tags: one more than PS_MAX_VLAN. Two tags were read. */
	for (hk = 0; hk < NHOOKS; hk++) {
		b_v4_udp(&f, PS_MAX_VLAN + 1, 0);
		snprintf(name, sizeof(name), "%s: ipv4 udp, 3 vlan tags -> vlan_depth",
			 e->h[hk].name);
		check_frame(name, &e->h[hk], &r, 0, C_L3ERR(PS_ERR_VLAN_DEPTH), PS_MAX_VLAN, 0);
	}
}

/* Every ECN codepoint; DSCP bits and the flow label are set around it. */
static void test_ecn(struct env *e)
{
	struct frame f;
	struct run r = { .f = &f };
	char name[160];
	int hk, vlans;
	__u8 ecn;

	for (hk = 0; hk < NHOOKS; hk++)
		for (vlans = 0; vlans <= PS_MAX_VLAN; vlans += PS_MAX_VLAN)
			for (ecn = 0; ecn < PS_ECN_COUNT; ecn++) {
				b_v4_tcp(&f, vlans, (__u8)(46 << 2 | ecn));
				snprintf(name, sizeof(name), "%s: ipv4 tos 0x%02x ecn %s, %s",
					 e->h[hk].name, 46 << 2 | ecn, ps_ecn_names[ecn],
					 vlan_names[vlans]);
				check_frame(name, &e->h[hk], &r, 0, C_IP4(PS_L4_TCP), vlans, ecn);

				b_v6_udp(&f, vlans, (__u8)(46 << 2 | ecn));
				snprintf(name, sizeof(name),
					 "%s: ipv6 traffic class 0x%02x ecn %s, %s", e->h[hk].name,
					 46 << 2 | ecn, ps_ecn_names[ecn], vlan_names[vlans]);
				check_frame(name, &e->h[hk], &r, 0, C_IP6(PS_L4_UDP), vlans, ecn);
			}
}

/* ---------------------------------------------------------------------- */
/* Truncation: every prefix of a frame.                                   */

static void t_v4_tcp_opts(struct frame *f, int vlans, __u8 ecn)
{
	put_eth(f, vlans, ETH_IP);
	put_ipv4(f, P_TCP, ecn);
	put_tcp(f, 8, 12);
	fix_lengths(f);
}

static void t_v6_hop_udp(struct frame *f, int vlans, __u8 ecn)
{
	put_eth(f, vlans, ETH_IPV6);
	put_ipv6(f, P_HOP, ecn);
	put_ext(f, P_HOP, P_UDP);
	put_udp(f);
	put_bytes(f, 4);
	fix_lengths(f);
}

static void t_v4_icmp(struct frame *f, int vlans, __u8 ecn)
{
	put_eth(f, vlans, ETH_IP);
	put_ipv4(f, P_ICMP, ecn);
	put_icmp(f, 8);
	fix_lengths(f);
}

static void t_v4_udp(struct frame *f, int vlans, __u8 ecn)
{
	put_eth(f, vlans, ETH_IP);
	put_ipv4(f, P_UDP, ecn);
	put_udp(f);
	fix_lengths(f);
}

struct trunc_range {
	__u32 lo, hi; /* prefix lengths, inclusive */
	struct cls c;
	int vlans; /* complete VLAN tags in such a prefix */
};

struct trunc_case {
	const char *name;
	build_fn build;
	int vlans;
	__u8 ecn;
	__u32 full;
	struct trunc_range r[6]; /* ends at hi == 0 */
};

static const struct trunc_case trunc_cases[] = {
	/* 14 eth + 20 ipv4 + 32 tcp (doff 8: 12 bytes of options) */
	{ "ipv4 tcp with options",
	  t_v4_tcp_opts,
	  0,
	  PS_ECN_ECT0,
	  66,
	  { { 0, 13, C_L3ERR(PS_ERR_L2_TRUNC), 0 },
	    { 14, 33, C_L3ERR(PS_ERR_L3_TRUNC), 0 },
	    { 34, 65, C_L4ERR(PS_L3_IPV4, PS_ERR_L4_TRUNC), 0 },
	    { 66, 66, C_IP4(PS_L4_TCP), 0 } } },
	/* 14 eth + 40 ipv6 + 16 hop-by-hop + 8 udp + 4 payload */
	{ "ipv6 hop-by-hop udp",
	  t_v6_hop_udp,
	  0,
	  PS_ECN_CE,
	  82,
	  { { 0, 13, C_L3ERR(PS_ERR_L2_TRUNC), 0 },
	    { 14, 53, C_L3ERR(PS_ERR_L3_TRUNC), 0 },
	    { 54, 69, C_L4ERR(PS_L3_IPV6, PS_ERR_EXT_TRUNC), 0 },
	    { 70, 77, C_L4ERR(PS_L3_IPV6, PS_ERR_L4_TRUNC), 0 },
	    { 78, 82, C_IP6(PS_L4_UDP), 0 } } },
	/* 14 eth + 20 ipv4 + 8 icmp */
	{ "ipv4 icmp",
	  t_v4_icmp,
	  0,
	  PS_ECN_ECT1,
	  42,
	  { { 0, 13, C_L3ERR(PS_ERR_L2_TRUNC), 0 },
	    { 14, 33, C_L3ERR(PS_ERR_L3_TRUNC), 0 },
	    { 34, 41, C_L4ERR(PS_L3_IPV4, PS_ERR_L4_TRUNC), 0 },
	    { 42, 42, C_IP4(PS_L4_ICMP), 0 } } },
	/* 14 eth + 4 802.1ad + 4 802.1Q + 20 ipv4 + 8 udp */
	{ "qinq ipv4 udp",
	  t_v4_udp,
	  2,
	  PS_ECN_NOT_ECT,
	  50,
	  { { 0, 17, C_L3ERR(PS_ERR_L2_TRUNC), 0 },
	    { 18, 21, C_L3ERR(PS_ERR_L2_TRUNC), 1 },
	    { 22, 41, C_L3ERR(PS_ERR_L3_TRUNC), 2 },
	    { 42, 49, C_L4ERR(PS_L3_IPV4, PS_ERR_L4_TRUNC), 2 },
	    { 50, 50, C_IP4(PS_L4_UDP), 2 } } },
};

/* Shortest prefix of full that BPF_PROG_TEST_RUN accepts for this hook's
 * program type, found with a program of two instructions, not pathscope's:
 * on 6.1 and later ETH_HLEN, and at tc also the IP header when the outer
 * ethertype is IPv4 or IPv6; Linux 5.10 accepts any length. */
static __u32 min_accepted(const struct hook *h, const struct frame *full)
{
	static const struct bpf_insn ret0[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = 0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	static __u8 out[FRAME_MAX + 64];
	int fd = bpf_prog_load(h->xdp ? BPF_PROG_TYPE_XDP : BPF_PROG_TYPE_SCHED_CLS, NULL, "GPL",
			       ret0, 2, NULL);
	__u32 len;

	for (len = 0; fd >= 0 && len < full->len; len++) {
		LIBBPF_OPTS(bpf_test_run_opts, opts, .data_in = full->b, .data_size_in = len,
			    .data_out = out, .data_size_out = sizeof(out), .repeat = 1);

		if (bpf_prog_test_run_opts(fd, &opts) == 0)
			break;
	}
	if (fd >= 0)
		close(fd);
	return len;
}

enum cut_mode {
	CUT_REJECTED, /* prefix the kernel refuses: EINVAL, nothing counted */
	CUT_PREFIX,   /* data_size_in = prefix length */
	CUT_LINEAR,   /* XDP: whole frame, linear part = prefix (rest in a fragment) */
};

/* Run the prefixes lo..hi of a truncation case on h: one check per range. */
static void check_cuts(const struct hook *h, const struct trunc_case *tc, const struct frame *full,
		       const struct trunc_range *tr, enum cut_mode mode, __u32 lo, __u32 hi)
{
	static struct frame cut;
	struct run r = { .f = &cut, .split = mode == CUT_LINEAR };
	char name[200], why[256] = "", cname[48];
	bool ok = true;
	__u32 len;

	for (len = lo; len <= hi && ok; len++) {
		cut = *full;
		if (mode == CUT_LINEAR)
			r.linear = len;
		else
			cut.len = len;
		if (mode == CUT_REJECTED) {
			ok = run_rejected(h, &r, EINVAL, why, sizeof(why));
		} else {
			expect(h, 0, &r, tr->c, tr->vlans, tc->ecn);
			ok = run_expect(h, &r, why, sizeof(why));
		}
		if (!ok)
			snprintf(why + strlen(why), sizeof(why) - strlen(why), " (at %u bytes)",
				 len);
	}
	cls_name(tr->c, cname, sizeof(cname));
	if (mode == CUT_REJECTED)
		snprintf(name, sizeof(name),
			 "%s: %s cut to %u..%u bytes: rejected by BPF_PROG_TEST_RUN (EINVAL)",
			 h->name, tc->name, lo, hi);
	else if (mode == CUT_PREFIX)
		snprintf(name, sizeof(name), "%s: %s cut to %u..%u bytes: %s", h->name, tc->name,
			 lo, hi, cname);
	else
		snprintf(name, sizeof(name), "%s: %s with a linear part of %u..%u bytes: %s",
			 h->name, tc->name, lo, hi, cname);
	check_report(ok, name, "%s", why);
}

static void test_truncation(struct env *e)
{
	const struct trunc_range *tr;
	struct frame full;
	size_t i;
	int hk;
	__u32 min;

	for (i = 0; i < ARRAY_SIZE(trunc_cases); i++) {
		const struct trunc_case *tc = &trunc_cases[i];

		tc->build(&full, tc->vlans, tc->ecn);
		if (full.len != tc->full) {
			check_report(0, tc->name, "built %u bytes, want %u", full.len, tc->full);
			continue;
		}
		for (hk = 0; hk < NHOOKS; hk++) {
			const struct hook *h = &e->h[hk];

			min = min_accepted(h, &full);
			for (tr = tc->r; tr->hi; tr++) {
				if (tr->lo < min)
					check_cuts(h, tc, &full, tr, CUT_REJECTED, tr->lo,
						   tr->hi < min ? tr->hi : min - 1);
				if (tr->hi >= min)
					check_cuts(h, tc, &full, tr, CUT_PREFIX,
						   tr->lo > min ? tr->lo : min, tr->hi);
				if (h->xdp && tr->lo < ETH_LEN)
					check_cuts(h, tc, &full, tr, CUT_LINEAR, tr->lo,
						   tr->hi < ETH_LEN ? tr->hi : ETH_LEN - 1);
			}
		}
	}
}

/* ---------------------------------------------------------------------- */
/* Malformed headers.                                                     */

static void test_malformed(struct env *e)
{
	struct frame f;
	struct run r = { .f = &f };
	char name[160];
	int hk, ihl;
	unsigned int doff, tot, hdr;

	for (hk = 0; hk < NHOOKS; hk++) {
		const struct hook *h = &e->h[hk];

		for (ihl = 0; ihl < 5; ihl++) {
			b_v4_tcp(&f, 0, PS_ECN_CE);
			f.b[ETH_LEN] = (__u8)(0x40 | ihl);
			snprintf(name, sizeof(name), "%s: ipv4 ihl %d -> bad_ihl", h->name, ihl);
			check_frame(name, h, &r, 0, C_L3ERR(PS_ERR_BAD_IHL), 0, 0);
		}

		/* IHL 15 asks for 60 header bytes; the frame ends first. */
		b_v4_tcp(&f, 0, 0);
		f.b[ETH_LEN] = 0x4f;
		snprintf(name, sizeof(name), "%s: ipv4 ihl 15 past the end -> l3_trunc", h->name);
		check_frame(name, h, &r, 0, C_L3ERR(PS_ERR_L3_TRUNC), 0, 0);

		/* An IPv6 packet behind the IPv4 ethertype, and vice versa. */
		put_eth(&f, 0, ETH_IP);
		put_ipv6(&f, P_UDP, 0);
		put_udp(&f);
		fix_lengths(&f);
		snprintf(name, sizeof(name), "%s: ipv4 ethertype, version 6 -> bad_version",
			 h->name);
		check_frame(name, h, &r, 0, C_L3ERR(PS_ERR_BAD_VERSION), 0, 0);

		put_eth(&f, 1, ETH_IPV6);
		put_ipv4(&f, P_UDP, 0);
		put_udp(&f);
		put_bytes(&f, 20);
		fix_lengths(&f);
		snprintf(name, sizeof(name), "%s: ipv6 ethertype, version 4, 802.1Q -> bad_version",
			 h->name);
		check_frame(name, h, &r, 0, C_L3ERR(PS_ERR_BAD_VERSION), 1, 0);

		/* Total length below the header length. */
		for (tot = 0; tot < 20; tot += 19) {
			b_v4_udp(&f, 0, 0);
			wr16(f.b + ETH_LEN + 2, tot);
			snprintf(name, sizeof(name), "%s: ipv4 total length %u (ihl 5) -> bad_len",
				 h->name, tot);
			check_frame(name, h, &r, 0, C_L3ERR(PS_ERR_BAD_LEN), 0, 0);
		}
		b_v4_options(&f, 0, 0);
		wr16(f.b + ETH_LEN + 2, 20);
		snprintf(name, sizeof(name), "%s: ipv4 total length 20 with ihl 7 -> bad_len",
			 h->name);
		check_frame(name, h, &r, 0, C_L3ERR(PS_ERR_BAD_LEN), 0, 0);

		/* Boundaries that are not errors: total length equal to the
		 * header, or larger than the frame (the parser bounds itself
		 * by the frame, not by the total length). */
		b_v4_udp(&f, 0, 0);
		wr16(f.b + ETH_LEN + 2, 20);
		snprintf(name, sizeof(name), "%s: ipv4 total length 20 (ihl 5) -> udp", h->name);
		check_frame(name, h, &r, 0, C_IP4(PS_L4_UDP), 0, 0);
		b_v4_udp(&f, 0, 0);
		wr16(f.b + ETH_LEN + 2, 9000);
		snprintf(name, sizeof(name), "%s: ipv4 total length 9000 > frame -> udp", h->name);
		check_frame(name, h, &r, 0, C_IP4(PS_L4_UDP), 0, 0);

		/* TCP data offset below 5. */
		for (doff = 0; doff < 5; doff++) {
			put_eth(&f, 0, ETH_IP);
			put_ipv4(&f, P_TCP, PS_ECN_ECT1);
			put_tcp(&f, doff, 0);
			put_bytes(&f, 20);
			fix_lengths(&f);
			snprintf(name, sizeof(name), "%s: tcp doff %u -> l4_trunc", h->name, doff);
			check_frame(name, h, &r, 0, C_L4ERR(PS_L3_IPV4, PS_ERR_L4_TRUNC), 0,
				    PS_ECN_ECT1);
		}

		/* doff 15 (60 header bytes) with 59 bytes in the frame, then 60. */
		for (hdr = 59; hdr <= 60; hdr++) {
			put_eth(&f, 0, ETH_IPV6);
			put_ipv6(&f, P_TCP, 0);
			put_tcp(&f, 15, hdr - 20);
			fix_lengths(&f);
			snprintf(name, sizeof(name), "%s: ipv6 tcp doff 15, %u header bytes -> %s",
				 h->name, hdr, hdr < 60 ? "l4_trunc" : "tcp");
			if (hdr < 60)
				check_frame(name, h, &r, 0, C_L4ERR(PS_L3_IPV6, PS_ERR_L4_TRUNC), 0,
					    0);
			else
				check_frame(name, h, &r, 0, C_IP6(PS_L4_TCP), 0, 0);
		}

		/* Extension headers cut inside: AH claiming more than the
		 * frame, and a fragment header with only 4 of its 8 bytes. */
		put_eth(&f, 0, ETH_IPV6);
		put_ipv6(&f, P_AH, 0);
		put_ext(&f, P_AH, P_TCP);
		f.b[f.len - 24 + 1] = 200;
		put_tcp(&f, 5, 0);
		fix_lengths(&f);
		snprintf(name, sizeof(name), "%s: ipv6 ah hdrlen 200 past the end -> ext_trunc",
			 h->name);
		check_frame(name, h, &r, 0, C_L4ERR(PS_L3_IPV6, PS_ERR_EXT_TRUNC), 0, 0);

		put_eth(&f, 0, ETH_IPV6);
		put_ipv6(&f, P_FRAG, 0);
		put(&f, 4)[0] = P_UDP;
		fix_lengths(&f);
		snprintf(name, sizeof(name), "%s: ipv6 fragment header of 4 bytes -> ext_trunc",
			 h->name);
		check_frame(name, h, &r, 0, C_L4ERR(PS_L3_IPV6, PS_ERR_EXT_TRUNC), 0, 0);
	}
}

/* gso_segs/gso_size from the __sk_buff context, at both tc hooks. */
static void test_gso(struct env *e)
{
	static const struct {
		__u32 segs, size;
	} g[] = { { 0, 0 }, { 1, 1448 }, { 2, 1448 }, { 10, 1448 }, { 64, 9000 }, { 65535, 1 } };
	struct frame f;
	struct run r = { .f = &f };
	char name[200], why[256];
	size_t i;
	int hk;

	b_v4_tcp(&f, 0, 0);
	for (hk = TCI; hk <= TCE; hk++) {
		for (i = 0; i < ARRAY_SIZE(g); i++) {
			r.gso_segs = g[i].segs;
			r.gso_size = g[i].size;
			snprintf(name, sizeof(name),
				 "%s: gso_segs %u gso_size %u -> segs_hist[%u]%s", e->h[hk].name,
				 g[i].segs, g[i].size,
				 (unsigned int)ps_hist_bucket(g[i].segs ? g[i].segs : 1,
							      PS_SEGS_BUCKETS),
				 g[i].segs > 1 ? ", gso_packets/segs/size_sum" : " only");
			check_frame(name, &e->h[hk], &r, 0, C_IP4(PS_L4_TCP), 0, 0);
		}
		r.gso_segs = 65536;
		r.gso_size = 1;
		why[0] = 0;
		snprintf(name, sizeof(name),
			 "%s: gso_segs 65536 (> GSO_MAX_SEGS) rejected by BPF_PROG_TEST_RUN",
			 e->h[hk].name);
		check_report(run_rejected(&e->h[hk], &r, EINVAL, why, sizeof(why)), name, "%s",
			     why);
	}
}

/* Frames shorter than an Ethernet header are refused by the kernel. */
static void test_short_data(struct env *e)
{
	struct frame f, full;
	struct run r = { .f = &f };
	char name[160], why[256] = "";
	int hk;
	bool ok;

	b_other(&full, 0, 0);
	for (hk = 0; hk < NHOOKS; hk++) {
		f = full;
		ok = true;
		for (f.len = 0; f.len < ETH_LEN && ok; f.len++)
			ok = run_rejected(&e->h[hk], &r, EINVAL, why, sizeof(why));
		snprintf(name, sizeof(name),
			 "%s: data_size_in 0..13 rejected by BPF_PROG_TEST_RUN (EINVAL)",
			 e->h[hk].name);
		/* Where the kernel takes them, the truncation tests count them. */
		if (!ok && min_accepted(&e->h[hk], &full) < ETH_LEN)
			check_mark_unsupported("its BPF_PROG_TEST_RUN takes frames shorter than "
					       "ETH_HLEN (Linux 5.10)");
		check_report(ok, name, "%s (data_size_in %u)", why, f.len - 1);
	}
}

/* Invariants over everything counted so far with all features on. */
static void test_invariants(struct env *e)
{
	struct ps_qstats t;
	char name[160];
	__u64 l3 = 0, l4 = 0, err_l3 = 0, err_l4 = 0, ecn4 = 0, ecn6 = 0, sizes = 0, segs = 0;
	__u32 slot, i;
	int hk;

	for (hk = 0; hk < NHOOKS; hk++) {
		const struct hook *h = &e->h[hk];

		if (snapshot(h, snap_after)) {
			check_report(0, h->name, "map lookup: %s", strerror(errno));
			continue;
		}
		memset(&t, 0, sizeof(t));
		for (slot = 0; slot < h->nslots; slot++)
			for (i = 0; i < NFIELDS; i++)
				((__u64 *)&t)[i] += ((__u64 *)&snap_after[slot])[i];
		l3 = l4 = err_l3 = err_l4 = ecn4 = ecn6 = sizes = segs = 0;
		for (i = 0; i < PS_L3_COUNT; i++)
			l3 += t.l3[i];
		for (i = 0; i < PS_L4_COUNT; i++)
			l4 += t.l4[i];
		for (i = 0; i < PS_ERR_COUNT; i++)
			*(i < PS_ERR_FIRST_L4 ? &err_l3 : &err_l4) += t.err[i];
		for (i = 0; i < PS_ECN_COUNT; i++)
			ecn4 += t.ecn[PS_IPV4][i], ecn6 += t.ecn[PS_IPV6][i];
		for (i = 0; i < PS_SIZE_BUCKETS; i++)
			sizes += t.size_hist[i];
		for (i = 0; i < PS_SEGS_BUCKETS; i++)
			segs += t.segs_hist[i];

#define INV(what, got, wantv)                                                      \
	do {                                                                       \
		snprintf(name, sizeof(name), "%s: after %llu frames, %s", h->name, \
			 (unsigned long long)t.packets, what);                     \
		CHECK_EQ_U64(name, got, wantv);                                    \
	} while (0)
		INV("sum(l3) == packets", l3, t.packets);
		INV("sum(l4) == l3[ipv4] + l3[ipv6]", l4, t.l3[PS_L3_IPV4] + t.l3[PS_L3_IPV6]);
		INV("sum(err) == l3[malformed] + l4[malformed]", err_l3 + err_l4,
		    t.l3[PS_L3_MALFORMED] + t.l4[PS_L4_MALFORMED]);
		INV("sum(L2/L3 err) == l3[malformed]", err_l3, t.l3[PS_L3_MALFORMED]);
		INV("sum(L4 err) == l4[malformed]", err_l4, t.l4[PS_L4_MALFORMED]);
		INV("sum(ecn[ipv4]) == l3[ipv4]", ecn4, t.l3[PS_L3_IPV4]);
		INV("sum(ecn[ipv6]) == l3[ipv6]", ecn6, t.l3[PS_L3_IPV6]);
		INV("sum(size_hist) == packets", sizes, t.packets);
		INV("sum(segs_hist) == packets (tc) or 0 (xdp)", segs, h->xdp ? 0 : t.packets);
#undef INV
	}
}

/* The frames: every class with 0, 1 and 2 VLAN tags (and 3, vlan_depth), every
 * ECN codepoint with DSCP around it, every prefix of four frames (truncation at
 * L2, L3, extension headers and L4, and XDP's linear part below 14 bytes),
 * malformed headers (IHL, IP version, total length, TCP data offset, extension
 * headers cut inside), GSO's segments at both tc hooks, and frames the kernel
 * itself refuses, at each hook with exact deltas of every counter of every
 * slot. Then the invariants (classes, errors, ECN, sizes and segments add up)
 * over all of those frames, so they stay in one program. */
int main(void)
{
	struct env e;
	int err;

	if (datapath_init())
		return check_exit_code();
	err = env_load(&e, &default_cfg);
	if (err == -EPERM || err == -ENOSYS || err == -EACCES) {
		check_skip("datapath: load the XDP and tc programs", strerror(-err));
		env_free(&e);
		return check_exit_code();
	}
	check_report(!err, "datapath: load the XDP and tc programs", "%s", strerror(-err));
	if (err) {
		env_free(&e);
		return check_exit_code();
	}

	test_short_data(&e);
	test_classes(&e);
	test_ecn(&e);
	test_truncation(&e);
	test_malformed(&e);
	test_gso(&e);
	test_invariants(&e);
	env_free(&e);

	free(percpu);
	return check_exit_code();
}
