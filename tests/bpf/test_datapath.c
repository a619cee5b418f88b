// SPDX-License-Identifier: GPL-2.0
/*
 * Real-kernel tests of the pathscope XDP and tc programs.
 *
 * Most checks use BPF_PROG_TEST_RUN on crafted frames: snapshot every slot of
 * the hook's per-queue map (summed over CPUs), run one frame, snapshot again
 * and require that every counter of every slot moved by exactly the expected
 * delta, that the program returned its pass verdict and that the frame came
 * out byte for byte as it went in.
 *
 * What this kernel's BPF_PROG_TEST_RUN allows (checked below, not assumed):
 *  - XDP and tc reject data_size_in < ETH_HLEN (14) with EINVAL.
 *  - tc (skb) also rejects an IPv4 frame shorter than 14 + 20 bytes and an
 *    IPv6 frame shorter than 14 + 40 bytes (it pulls the IP header).
 *  - XDP accepts a struct xdp_md whose data_end is below data_size_in: the
 *    program then sees a linear part of data_end bytes (the rest goes into a
 *    fragment). That is how L2 truncation below 14 bytes is reached.
 *  - XDP accepts ingress_ifindex + rx_queue_index for a device of the
 *    current netns, when rx_queue_index < its real_num_rx_queues. Before
 *    Linux 5.15 it takes no context at all (EINVAL): a probe with a
 *    two-instruction program finds that, and the cases that need one are
 *    reported as skipped ("this kernel cannot run it"), on 5.10 those of
 *    rx_queue_index and of the split frame; the live queue tests in the
 *    guests (tests/vm/) count XDP per queue there.
 *  - tc (__sk_buff) accepts gso_segs (<= 65535) and gso_size, but not
 *    queue_mapping (EINVAL). queue_mapping is 0 there, and the skb's socket
 *    is the harness's dummy socket with no cached TX queue, so both tc hooks
 *    see an unknown queue (rx base 1). tc queues are therefore also tested
 *    with live frames on a veth pair: a four-instruction tc program in front
 *    of pathscope sets queue_mapping (ingress), and connected UDP sockets
 *    give the egress program a cached TX queue, checked against XDP's
 *    rx_queue_index on the peer.
 *
 * Everything runs in a private network namespace (unshare), so the veth
 * pair and the tc hooks disappear with the process, even when it crashes.
 * Set PS_TEST_VERBOSE=1 to see the verifier log of a program that fails
 * to load.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <linux/types.h>
#include <linux/if_packet.h>
#include <linux/if_link.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <bpf/bpf.h>
#include "pathscope/abi.h"
#include "pathscope_xdp.skel.h"
#include "pathscope_tc.skel.h"
#include "tests/lib/check.h"
#include "lib/names.h"
#include "loader/features.h"
#include "pathscope/flow_sample.h"

#define ETH_LEN		 14
#define XDP_PASS_VERDICT 2	     /* XDP_PASS */
#define TC_NEXT_VERDICT	 0xffffffffu /* -1: TC_ACT_UNSPEC / TCX_NEXT */
#define MAX_SLOTS	 8
#define NFIELDS		 (sizeof(struct ps_qstats) / sizeof(__u64))
#define ARRAY_SIZE(a)	 (sizeof(a) / sizeof((a)[0]))

#include "tests/lib/frame.h"

/* ---------------------------------------------------------------------- */
/* Expected classification and counter deltas.                            */

#define NO_L4  PS_L4_COUNT
#define NO_ERR PS_ERR_COUNT

struct cls {
	__u8 l3, l4, err; /* l4 NO_L4 for non-IP, err NO_ERR when parsed */
};

#define C_L3(l3)       ((struct cls){ (l3), NO_L4, NO_ERR })
#define C_IP4(l4)      ((struct cls){ PS_L3_IPV4, (l4), NO_ERR })
#define C_IP6(l4)      ((struct cls){ PS_L3_IPV6, (l4), NO_ERR })
#define C_L3ERR(e)     ((struct cls){ PS_L3_MALFORMED, NO_L4, (e) })
#define C_L4ERR(l3, e) ((struct cls){ (l3), PS_L4_MALFORMED, (e) })

/* Names as in pathscope's own output (stats/names.c). */
static const char *cls_name(struct cls c, char *buf, size_t n)
{
	if (c.err < NO_ERR)
		snprintf(buf, n, "%s", ps_err_names[c.err]);
	else if (c.l4 < NO_L4)
		snprintf(buf, n, "%s/%s", ps_l3_names[c.l3], ps_l4_names[c.l4]);
	else
		snprintf(buf, n, "%s", ps_l3_names[c.l3]);
	return buf;
}

/* Name of counter i of struct ps_qstats, for failure messages. */
#define FIELD_IDX(f) (offsetof(struct ps_qstats, f) / sizeof(__u64))
static void field_name(size_t i, char *buf, size_t n)
{
	size_t j;

	if (i >= FIELD_IDX(segs_hist))
		snprintf(buf, n, "segs_hist[%zu]", i - FIELD_IDX(segs_hist));
	else if (i == FIELD_IDX(gso_size_sum))
		snprintf(buf, n, "gso_size_sum");
	else if (i == FIELD_IDX(gso_segs))
		snprintf(buf, n, "gso_segs");
	else if (i == FIELD_IDX(gso_packets))
		snprintf(buf, n, "gso_packets");
	else if (i >= FIELD_IDX(size_hist))
		snprintf(buf, n, "size_hist[%zu]", i - FIELD_IDX(size_hist));
	else if (i == FIELD_IDX(vlan_tagged))
		snprintf(buf, n, "vlan_tagged");
	else if (i >= FIELD_IDX(ecn)) {
		j = i - FIELD_IDX(ecn);
		snprintf(buf, n, "ecn[%s][%s]", j / PS_ECN_COUNT ? "ipv6" : "ipv4",
			 ps_ecn_names[j % PS_ECN_COUNT]);
	} else if (i >= FIELD_IDX(err))
		snprintf(buf, n, "err[%s]", ps_err_names[i - FIELD_IDX(err)]);
	else if (i >= FIELD_IDX(l4))
		snprintf(buf, n, "l4[%s]", ps_l4_names[i - FIELD_IDX(l4)]);
	else if (i >= FIELD_IDX(l3))
		snprintf(buf, n, "l3[%s]", ps_l3_names[i - FIELD_IDX(l3)]);
	else
		snprintf(buf, n, "%s", i == FIELD_IDX(bytes) ? "bytes" : "packets");
}

/* ---------------------------------------------------------------------- */
/* Programs, maps and snapshots.                                          */

enum { XDP, TCI, TCE, NHOOKS };

struct hook {
	const char *name;
	bool xdp;
	int prog_fd, map_fd;
	__u32 nslots;	/* nqueues + 1 */
	__u32 features; /* ps_features it was loaded with */
};

/* What env_load loads: 0 is every program of both objects (XDP with its
 * chain entry, tc ingress and egress). A queue test loads only the hooks
 * it runs frames through, P_XDP (without the chain entry) or P_TC: the
 * verifier takes a quarter to a half of the test's time in the guests of
 * tests/vm/, and every program is loaded with every feature set by
 * test_features; what a queue setting changes is in the programs run. */
enum { P_XDP = 1, P_TC = 2 };

struct cfg {
	__u32 features;
	__u32 nqueues;
	__u32 all_queues;
	__u64 mask0;   /* ps_queue_mask[0], queues 0..63 */
	__u32 rx_base; /* tc: ps_rx_queue_base */
	__u32 parts;   /* P_XDP | P_TC, or 0: every program */
};

/* nqueues 0: one slot that every queue, known or not, lands in; the class
 * tests do not depend on queue attribution, which has its own tests. */
static const struct cfg default_cfg = { PS_F_ALL, 0, 1, 0, 1, 0 };

struct env {
	struct pathscope_xdp *x;
	struct pathscope_tc *t;
	struct hook h[NHOOKS];
};

static void set_hook(struct hook *h, const char *name, const struct bpf_program *prog,
		     const struct bpf_map *map, const struct cfg *c)
{
	h->name = name;
	h->xdp = bpf_program__type(prog) == BPF_PROG_TYPE_XDP;
	h->prog_fd = bpf_program__fd(prog);
	h->map_fd = bpf_map__fd(map);
	h->nslots = c->nqueues + 1;
	h->features = c->features;
}

static int env_load(struct env *e, const struct cfg *c)
{
	struct hook *h = e->h;
	__u32 parts = c->parts ? c->parts : P_XDP | P_TC;
	int err = 0;

	memset(e, 0, sizeof(*e));
	h[XDP].prog_fd = h[TCI].prog_fd = h[TCE].prog_fd = -1;
	h[XDP].map_fd = h[TCI].map_fd = h[TCE].map_fd = -1;
	if (c->nqueues + 1 > MAX_SLOTS)
		return -E2BIG;
	if (parts & P_XDP) {
		e->x = pathscope_xdp__open();
		if (!e->x)
			return -errno ? -errno : -ENOMEM;
		e->x->rodata->ps_features = c->features;
		e->x->rodata->ps_nqueues = c->nqueues;
		e->x->rodata->ps_all_queues = c->all_queues;
		e->x->rodata->ps_queue_mask[0] = c->mask0;
		/* flows at attach's default N: the verifier sees the skip draw */
		e->x->rodata->ps_flow_sample = PS_FLOW_SAMPLE_DEFAULT;
		e->x->rodata->ps_flow_skip_k = ps_flow_skip_k(PS_FLOW_SAMPLE_DEFAULT);
		bpf_map__set_max_entries(e->x->maps.xdp_stats, c->nqueues + 1);
		if (c->parts)
			bpf_program__set_autoload(e->x->progs.pathscope_xdp_chain, false);
		err = pathscope_xdp__load(e->x);
		if (err)
			return err;
		set_hook(&h[XDP], "xdp", e->x->progs.pathscope_xdp, e->x->maps.xdp_stats, c);
	}
	if (parts & P_TC) {
		e->t = pathscope_tc__open();
		if (!e->t)
			return -errno ? -errno : -ENOMEM;
		e->t->rodata->ps_features = c->features;
		e->t->rodata->ps_nqueues = c->nqueues;
		e->t->rodata->ps_all_queues = c->all_queues;
		e->t->rodata->ps_queue_mask[0] = c->mask0;
		e->t->rodata->ps_rx_queue_base = c->rx_base;
		e->t->rodata->ps_kern_ctx = ps_kern_ctx_supported();
		bpf_map__set_max_entries(e->t->maps.tci_stats, c->nqueues + 1);
		bpf_map__set_max_entries(e->t->maps.tce_stats, c->nqueues + 1);
		err = pathscope_tc__load(e->t);
		if (err)
			return err;
		set_hook(&h[TCI], "tc ingress", e->t->progs.pathscope_tc_ingress,
			 e->t->maps.tci_stats, c);
		set_hook(&h[TCE], "tc egress", e->t->progs.pathscope_tc_egress,
			 e->t->maps.tce_stats, c);
	}
	return 0;
}

static void env_free(struct env *e)
{
	pathscope_xdp__destroy(e->x);
	pathscope_tc__destroy(e->t);
	memset(e, 0, sizeof(*e));
}

/* A per-CPU lookup returns one value per possible CPU, each rounded up to 8
 * bytes: struct ps_qstats is all __u64, so no padding. */
_Static_assert(sizeof(struct ps_qstats) % 8 == 0, "ps_qstats is padded per CPU");

static int ncpus;
static struct ps_qstats *percpu; /* ncpus values, one lookup */

/* Every slot of the hook's map, each summed over the CPUs. */
static int snapshot(const struct hook *h, struct ps_qstats *out)
{
	__u32 slot, i;
	int cpu;

	memset(out, 0, sizeof(*out) * h->nslots);
	for (slot = 0; slot < h->nslots; slot++) {
		if (bpf_map_lookup_elem(h->map_fd, &slot, percpu))
			return -errno;
		for (cpu = 0; cpu < ncpus; cpu++)
			for (i = 0; i < NFIELDS; i++)
				((__u64 *)&out[slot])[i] += ((__u64 *)&percpu[cpu])[i];
	}
	return 0;
}

/* True when every counter of every slot moved by exactly want[slot]. */
static bool deltas_match(const struct hook *h, const struct ps_qstats *before,
			 const struct ps_qstats *after, const struct ps_qstats *want, char *why,
			 size_t n)
{
	char field[48];
	__u32 slot;
	size_t i;

	for (slot = 0; slot < h->nslots; slot++) {
		const __u64 *b = (const __u64 *)&before[slot], *a = (const __u64 *)&after[slot];
		const __u64 *w = (const __u64 *)&want[slot];

		for (i = 0; i < NFIELDS; i++) {
			if (a[i] - b[i] == w[i])
				continue;
			field_name(i, field, sizeof(field));
			snprintf(why, n, "slot %u %s moved by %lld, want %llu", slot, field,
				 (long long)(a[i] - b[i]), (unsigned long long)w[i]);
			return false;
		}
	}
	return true;
}

/* ---------------------------------------------------------------------- */
/* Running a frame.                                                       */

struct run {
	const struct frame *f;
	bool split;		  /* XDP: only the first `linear` bytes are linear */
	__u32 linear;		  /* XDP: ctx data_end when split */
	__u32 ifindex, rxq;	  /* XDP: ctx ingress_ifindex, rx_queue_index */
	__u32 gso_segs, gso_size; /* tc: ctx */
};

/* Bytes the program counts: the linear part at XDP, skb->len at tc. */
static __u32 run_len(const struct hook *h, const struct run *r)
{
	return h->xdp && r->split ? r->linear : r->f->len;
}

/* Does this kernel's BPF_PROG_TEST_RUN take an XDP context (5.15)? Probed
 * with a program of two instructions, not with pathscope's. */
static bool xdp_ctx_ok;

static bool probe_xdp_ctx(void)
{
	static const struct bpf_insn pass[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = 2 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	__u8 frame[64] = { 0 };
	struct xdp_md md = { .data_end = sizeof(frame) };
	LIBBPF_OPTS(bpf_test_run_opts, opts, .data_in = frame, .data_size_in = sizeof(frame),
		    .ctx_in = &md, .ctx_size_in = sizeof(md), .repeat = 1);
	int fd = bpf_prog_load(BPF_PROG_TYPE_XDP, NULL, "GPL", pass, 2, NULL), err;

	if (fd < 0)
		return false;
	err = bpf_prog_test_run_opts(fd, &opts);
	close(fd);
	return err == 0;
}

/* BPF_PROG_TEST_RUN once; 0 or -errno. Checks the verdict and that the
 * frame comes out unchanged; a mismatch is reported as -EBADMSG in why. */
static int test_run(const struct hook *h, const struct run *r, char *why, size_t n)
{
	static __u8 out[FRAME_MAX + 64];
	struct xdp_md md = { 0 };
	struct __sk_buff skb = { 0 };
	__u32 verdict = h->xdp ? XDP_PASS_VERDICT : TC_NEXT_VERDICT;
	LIBBPF_OPTS(bpf_test_run_opts, opts, .data_in = r->f->b, .data_size_in = r->f->len,
		    .data_out = out, .data_size_out = sizeof(out), .repeat = 1);

	if (h->xdp && (r->split || r->ifindex || r->rxq)) {
		md.data_end = r->split ? r->linear : r->f->len;
		md.ingress_ifindex = r->ifindex;
		md.rx_queue_index = r->rxq;
		opts.ctx_in = &md;
		opts.ctx_size_in = sizeof(md);
	} else if (!h->xdp && (r->gso_segs || r->gso_size)) {
		skb.gso_segs = r->gso_segs;
		skb.gso_size = r->gso_size;
		opts.ctx_in = &skb;
		opts.ctx_size_in = sizeof(skb);
	}
	memset(out, 0, sizeof(out));
	if (bpf_prog_test_run_opts(h->prog_fd, &opts)) {
		snprintf(why, n, "BPF_PROG_TEST_RUN: %s", strerror(errno));
		if (h->xdp && opts.ctx_in && !xdp_ctx_ok)
			check_mark_unsupported("BPF_PROG_TEST_RUN takes an XDP context from "
					       "Linux 5.15");
		return -errno;
	}
	if (opts.retval != verdict) {
		snprintf(why, n, "returned %d, want %d", (int)opts.retval, (int)verdict);
		return -EBADMSG;
	}
	if (opts.data_size_out != r->f->len || memcmp(out, r->f->b, r->f->len)) {
		snprintf(why, n, "frame not passed through unchanged (%u bytes out, %u in)",
			 opts.data_size_out, r->f->len);
		return -EBADMSG;
	}
	return 0;
}

static struct ps_qstats snap_before[MAX_SLOTS], snap_after[MAX_SLOTS], want[MAX_SLOTS];

/* Run a frame that must be accepted and move the counters by want[]. */
static bool run_expect(const struct hook *h, const struct run *r, char *why, size_t n)
{
	if (snapshot(h, snap_before) || test_run(h, r, why, n) || snapshot(h, snap_after)) {
		if (!why[0])
			snprintf(why, n, "map lookup: %s", strerror(errno));
		return false;
	}
	return deltas_match(h, snap_before, snap_after, want, why, n);
}

/* Run a frame that the kernel must refuse with err, counting nothing. */
static bool run_rejected(const struct hook *h, const struct run *r, int err, char *why, size_t n)
{
	int ret;

	if (snapshot(h, snap_before)) {
		snprintf(why, n, "map lookup: %s", strerror(errno));
		return false;
	}
	ret = test_run(h, r, why, n);
	if (check_unsupported_why[0]) /* rejected for lack of any context */
		return false;
	if (ret != -err) {
		snprintf(why, n, "BPF_PROG_TEST_RUN returned %s, want %s",
			 ret ? strerror(-ret) : "success", strerror(err));
		return false;
	}
	if (snapshot(h, snap_after)) {
		snprintf(why, n, "map lookup: %s", strerror(errno));
		return false;
	}
	memset(want, 0, sizeof(want));
	return deltas_match(h, snap_before, snap_after, want, why, n);
}

/* Fill want[] for one frame of class c counted in slot, following the
 * hook's feature set. ecn is the codepoint in the frame's IP header. */
static void expect(const struct hook *h, __u32 slot, const struct run *r, struct cls c, int vlans,
		   __u8 ecn)
{
	struct ps_qstats *w = &want[slot];
	__u32 len = run_len(h, r), segs;

	memset(want, 0, sizeof(want));
	w->packets = 1;
	w->bytes = len;
	if (h->features & PS_F_CLASS) {
		w->l3[c.l3] = 1;
		if (c.l4 < NO_L4)
			w->l4[c.l4] = 1;
		if (c.err < NO_ERR)
			w->err[c.err] = 1;
		w->vlan_tagged = vlans > 0;
	}
	if ((h->features & PS_F_ECN) && (c.l3 == PS_L3_IPV4 || c.l3 == PS_L3_IPV6))
		w->ecn[c.l3 == PS_L3_IPV6 ? PS_IPV6 : PS_IPV4][ecn] = 1;
	if (h->features & PS_F_SIZES)
		w->size_hist[ps_hist_bucket(len, PS_SIZE_BUCKETS)] = 1;
	if (!h->xdp && (h->features & PS_F_GRO)) {
		segs = r->gso_segs ? r->gso_segs : 1;
		if (segs > 1) {
			w->gso_packets = 1;
			w->gso_segs = segs;
			w->gso_size_sum = r->gso_size;
		}
		w->segs_hist[ps_hist_bucket(segs, PS_SEGS_BUCKETS)] = 1;
	}
}

/* Run one frame expecting class c in slot and report one check. */
static void check_frame(const char *name, const struct hook *h, const struct run *r, __u32 slot,
			struct cls c, int vlans, __u8 ecn)
{
	char why[256] = "";

	expect(h, slot, r, c, vlans, ecn);
	check_report(run_expect(h, r, why, sizeof(why)), name, "%s", why);
}

/* ---------------------------------------------------------------------- */
/* Frames of every class.                                                 */

typedef void (*build_fn)(struct frame *f, int vlans, __u8 ecn);

static void b_v4_tcp(struct frame *f, int vlans, __u8 ecn)
{
	put_eth(f, vlans, ETH_IP);
	put_ipv4(f, P_TCP, ecn);
	put_tcp(f, 5, 0);
	put_bytes(f, 10);
	fix_lengths(f);
}

static void b_v4_udp(struct frame *f, int vlans, __u8 ecn)
{
	put_eth(f, vlans, ETH_IP);
	put_ipv4(f, P_UDP, ecn);
	put_udp(f);
	put_bytes(f, 18);
	fix_lengths(f);
}

static void b_v4_icmp(struct frame *f, int vlans, __u8 ecn)
{
	put_eth(f, vlans, ETH_IP);
	put_ipv4(f, P_ICMP, ecn);
	put_icmp(f, 8);
	put_bytes(f, 18);
	fix_lengths(f);
}

static void b_v4_gre(struct frame *f, int vlans, __u8 ecn)
{
	put_eth(f, vlans, ETH_IP);
	put_ipv4(f, P_GRE, ecn);
	put_bytes(f, 26);
	fix_lengths(f);
}

static void b_v4_ah(struct frame *f, int vlans, __u8 ecn)
{
	put_eth(f, vlans, ETH_IP);
	put_ipv4(f, P_AH, ecn);
	put_bytes(f, 26);
	fix_lengths(f);
}

/* Non-first fragment (offset 1480 bytes, MF set): no L4 header. */
static void b_v4_frag(struct frame *f, int vlans, __u8 ecn)
{
	__u8 *ip;

	put_eth(f, vlans, ETH_IP);
	ip = put_ipv4(f, P_UDP, ecn);
	wr16(ip + 6, 0x2000 | 185);
	put_bytes(f, 26);
	fix_lengths(f);
}

/* First fragment (offset 0, MF) with DF also set: a normal TCP header. */
static void b_v4_first_frag(struct frame *f, int vlans, __u8 ecn)
{
	__u8 *ip;

	put_eth(f, vlans, ETH_IP);
	ip = put_ipv4(f, P_TCP, ecn);
	wr16(ip + 6, 0x4000 | 0x2000);
	put_tcp(f, 5, 0);
	put_bytes(f, 6);
	fix_lengths(f);
}

/* IHL 7: 8 bytes of options (NOPs) before the UDP header. */
static void b_v4_options(struct frame *f, int vlans, __u8 ecn)
{
	__u8 *ip;

	put_eth(f, vlans, ETH_IP);
	ip = put_ipv4(f, P_UDP, ecn);
	ip[0] = 0x47;
	memset(put(f, 8), 1, 8);
	put_udp(f);
	put_bytes(f, 10);
	fix_lengths(f);
}

static void b_v6_tcp(struct frame *f, int vlans, __u8 ecn)
{
	put_eth(f, vlans, ETH_IPV6);
	put_ipv6(f, P_TCP, ecn);
	put_tcp(f, 5, 0);
	fix_lengths(f);
}

static void b_v6_udp(struct frame *f, int vlans, __u8 ecn)
{
	put_eth(f, vlans, ETH_IPV6);
	put_ipv6(f, P_UDP, ecn);
	put_udp(f);
	put_bytes(f, 4);
	fix_lengths(f);
}

static void b_v6_icmp(struct frame *f, int vlans, __u8 ecn)
{
	put_eth(f, vlans, ETH_IPV6);
	put_ipv6(f, P_ICMPV6, ecn);
	put_icmp(f, 128);
	fix_lengths(f);
}

/* Hop-by-hop, destination options, routing, fragment (first), UDP. */
static void b_v6_ext_chain(struct frame *f, int vlans, __u8 ecn)
{
	put_eth(f, vlans, ETH_IPV6);
	put_ipv6(f, P_HOP, ecn);
	put_ext(f, P_HOP, P_DST);
	put_ext(f, P_DST, P_ROUTING);
	put_ext(f, P_ROUTING, P_FRAG);
	put_frag6(f, P_UDP, 0, 1);
	put_udp(f);
	fix_lengths(f);
}

/* Hop-by-hop, then a non-first fragment. */
static void b_v6_frag(struct frame *f, int vlans, __u8 ecn)
{
	put_eth(f, vlans, ETH_IPV6);
	put_ipv6(f, P_HOP, ecn);
	put_ext(f, P_HOP, P_FRAG);
	put_frag6(f, P_UDP, 185, 0);
	put_bytes(f, 16);
	fix_lengths(f);
}

static void b_v6_ah(struct frame *f, int vlans, __u8 ecn)
{
	put_eth(f, vlans, ETH_IPV6);
	put_ipv6(f, P_AH, ecn);
	put_ext(f, P_AH, P_TCP);
	put_tcp(f, 5, 0);
	fix_lengths(f);
}

/* n extension headers (alternating destination options and AH), then UDP. */
static void b_v6_exts(struct frame *f, int vlans, __u8 ecn, int n)
{
	int i;

	put_eth(f, vlans, ETH_IPV6);
	put_ipv6(f, P_DST, ecn);
	for (i = 0; i < n; i++) {
		__u8 type = i % 2 ? P_AH : P_DST;
		__u8 next = i == n - 1 ? P_UDP : (i % 2 ? P_DST : P_AH);

		put_ext(f, type, next);
	}
	put_udp(f);
	fix_lengths(f);
}

static void b_v6_6ext(struct frame *f, int vlans, __u8 ecn)
{
	b_v6_exts(f, vlans, ecn, PS_MAX_EXT_HDRS);
}

static void b_v6_7ext(struct frame *f, int vlans, __u8 ecn)
{
	b_v6_exts(f, vlans, ecn, PS_MAX_EXT_HDRS + 1);
}

static void b_v6_nonext(struct frame *f, int vlans, __u8 ecn)
{
	put_eth(f, vlans, ETH_IPV6);
	put_ipv6(f, P_NONE, ecn);
	put_bytes(f, 8);
	fix_lengths(f);
}

static void b_v6_esp(struct frame *f, int vlans, __u8 ecn)
{
	put_eth(f, vlans, ETH_IPV6);
	put_ipv6(f, P_ESP, ecn);
	put_bytes(f, 24);
	fix_lengths(f);
}

static void b_arp(struct frame *f, int vlans, __u8 ecn)
{
	(void)ecn;
	put_eth(f, vlans, ETH_ARP);
	put_bytes(f, 28);
}

static void b_other(struct frame *f, int vlans, __u8 ecn)
{
	(void)ecn;
	put_eth(f, vlans, ETH_OTHER);
	put_bytes(f, 46);
}

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

/* ---------------------------------------------------------------------- */
/* Feature switches and GRO/GSO.                                          */

static void test_features(void)
{
	static const struct {
		__u32 f;
		const char *name;
	} sets[] = {
		{ 0, "none" },		 { PS_F_CLASS, "class" },
		{ PS_F_ECN, "ecn" },	 { PS_F_SIZES, "sizes" },
		{ PS_F_GRO, "gro" },	 { PS_F_CLASS | PS_F_ECN, "class,ecn" },
		{ PS_F_FLOWS, "flows" }, { PS_F_ALL, "all" },
	};
	struct cfg c = default_cfg;
	struct env e;
	struct frame f;
	struct run r = { .f = &f };
	char name[200];
	size_t i;
	int hk, err;

	for (i = 0; i < ARRAY_SIZE(sets); i++) {
		c.features = sets[i].f;
		err = env_load(&e, &c);
		snprintf(name, sizeof(name), "features=%s: load", sets[i].name);
		check_report(!err, name, "%s", strerror(-err));
		if (err) {
			env_free(&e);
			continue;
		}
		for (hk = 0; hk < NHOOKS; hk++) {
			const struct hook *h = &e.h[hk];

			b_v4_tcp(&f, 1, PS_ECN_CE);
			r.gso_segs = r.gso_size = 0;
			snprintf(name, sizeof(name), "features=%s: %s: ipv4 tcp ce, 802.1Q",
				 sets[i].name, h->name);
			check_frame(name, h, &r, 0, C_IP4(PS_L4_TCP), 1, PS_ECN_CE);

			b_v6_udp(&f, 0, PS_ECN_ECT1);
			r.gso_segs = h->xdp ? 0 : 10;
			r.gso_size = h->xdp ? 0 : 1448;
			snprintf(name, sizeof(name), "features=%s: %s: ipv6 udp ect1%s",
				 sets[i].name, h->name,
				 h->xdp ? "" : ", gso_segs 10, gso_size 1448");
			check_frame(name, h, &r, 0, C_IP6(PS_L4_UDP), 0, PS_ECN_ECT1);

			b_v4_tcp(&f, 0, PS_ECN_CE);
			f.b[ETH_LEN] = 0x43;
			r.gso_segs = r.gso_size = 0;
			snprintf(name, sizeof(name), "features=%s: %s: ipv4 ihl 3 (bad_ihl)",
				 sets[i].name, h->name);
			check_frame(name, h, &r, 0, C_L3ERR(PS_ERR_BAD_IHL), 0, 0);
		}
		env_free(&e);
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

/* ---------------------------------------------------------------------- */
/* Queues.                                                                */

static bool netns_ok;

static int sh(const char *cmd)
{
	int rc = system(cmd);

	return rc == 0 ? 0 : -1;
}

/* XDP: rx_queue_index through struct xdp_md, on a 4-queue veth. */
static void test_xdp_queues(int ifindex)
{
	struct cfg c = default_cfg;
	struct env e;
	struct frame f;
	struct run r = { .f = &f, .ifindex = (__u32)ifindex };
	char name[200], why[256];
	__u32 q;
	int err;

	b_v4_udp(&f, 0, 0);
	c.parts = P_XDP;

	/* All queues, nqueues 2: queues 2 and 3 go to the last slot. */
	c.nqueues = 2;
	err = env_load(&e, &c);
	check_report(!err, "xdp queues: load with nqueues 2", "%s", strerror(-err));
	if (!err) {
		for (q = 0; q < 4; q++) {
			r.rxq = q;
			snprintf(name, sizeof(name), "xdp: nqueues 2, rx queue %u -> slot %u%s", q,
				 q < 2 ? q : 2, q < 2 ? "" : " (other queues)");
			check_frame(name, &e.h[XDP], &r, q < 2 ? q : 2, C_IP4(PS_L4_UDP), 0, 0);
		}
		why[0] = 0;
		r.rxq = 4;
		check_report(run_rejected(&e.h[XDP], &r, EINVAL, why, sizeof(why)),
			     "xdp: rx queue 4 of a 4-queue device rejected by BPF_PROG_TEST_RUN",
			     "%s", why);
		why[0] = 0;
		r.ifindex = 0;
		r.rxq = 1;
		check_report(run_rejected(&e.h[XDP], &r, EINVAL, why, sizeof(why)),
			     "xdp: rx queue 1 without ingress_ifindex rejected by "
			     "BPF_PROG_TEST_RUN",
			     "%s", why);
		r.ifindex = (__u32)ifindex;
	}
	env_free(&e);

	/* Only queue 1 selected. */
	c.nqueues = 4;
	c.all_queues = 0;
	c.mask0 = 1ull << 1;
	err = env_load(&e, &c);
	check_report(!err, "xdp queues: load with queue mask {1}", "%s", strerror(-err));
	if (!err) {
		for (q = 0; q < 4; q++) {
			r.rxq = q;
			why[0] = 0;
			if (q == 1) {
				check_frame("xdp: mask {1}, rx queue 1 -> slot 1", &e.h[XDP], &r, 1,
					    C_IP4(PS_L4_UDP), 0, 0);
				continue;
			}
			memset(want, 0, sizeof(want));
			snprintf(name, sizeof(name), "xdp: mask {1}, rx queue %u -> not counted",
				 q);
			check_report(run_expect(&e.h[XDP], &r, why, sizeof(why)), name, "%s", why);
		}
	}
	env_free(&e);

	/* A selected queue beyond nqueues is counted in the last slot. */
	c.nqueues = 2;
	c.mask0 = 1ull << 3;
	err = env_load(&e, &c);
	check_report(!err, "xdp queues: load with nqueues 2, queue mask {3}", "%s", strerror(-err));
	if (!err) {
		r.rxq = 3;
		check_frame("xdp: nqueues 2, mask {3}, rx queue 3 -> slot 2 (other queues)",
			    &e.h[XDP], &r, 2, C_IP4(PS_L4_UDP), 0, 0);
		r.rxq = 1;
		why[0] = 0;
		memset(want, 0, sizeof(want));
		check_report(run_expect(&e.h[XDP], &r, why, sizeof(why)),
			     "xdp: nqueues 2, mask {3}, rx queue 1 -> not counted", "%s", why);
	}
	env_free(&e);
}

/* tc under BPF_PROG_TEST_RUN: queue_mapping is 0 and the skb's socket is
 * the harness's dummy socket, which has no cached TX queue. */
static void test_tc_testrun_queues(void)
{
	static const struct {
		__u32 rx_base, all_queues;
		__u64 mask0;
		int ingress_slot, egress_slot; /* -1: not counted */
		const char *what;
	} cases[] = {
		{ 1, 1, 0, 2, 2, "all queues, rx base 1" },
		{ 0, 1, 0, 0, 2, "all queues, rx base 0" },
		{ 0, 0, 1ull << 0, 0, -1, "mask {0}, rx base 0" },
		{ 1, 0, 1ull << 0, -1, -1, "mask {0}, rx base 1" },
	};
	struct cfg c = default_cfg;
	struct env e;
	struct frame f;
	struct run r = { .f = &f };
	char name[200], why[256];
	size_t i;
	int hk, err, slot;

	b_v4_udp(&f, 0, 0);
	c.nqueues = 2;
	c.parts = P_TC;
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		c.rx_base = cases[i].rx_base;
		c.all_queues = cases[i].all_queues;
		c.mask0 = cases[i].mask0;
		err = env_load(&e, &c);
		snprintf(name, sizeof(name), "tc test run queues: load with nqueues 2, %s",
			 cases[i].what);
		check_report(!err, name, "%s", strerror(-err));
		for (hk = TCI; hk <= TCE && !err; hk++) {
			slot = hk == TCI ? cases[i].ingress_slot : cases[i].egress_slot;
			snprintf(name, sizeof(name),
				 "%s (test run): nqueues 2, %s, queue_mapping 0%s", e.h[hk].name,
				 cases[i].what, hk == TCI ? "" : ", no cached TX queue");
			if (slot >= 0) {
				snprintf(name + strlen(name), sizeof(name) - strlen(name),
					 " -> slot %d%s", slot, slot == 2 ? " (unknown)" : "");
				check_frame(name, &e.h[hk], &r, (__u32)slot, C_IP4(PS_L4_UDP), 0,
					    0);
			} else {
				strcat(name, " -> not counted");
				why[0] = 0;
				memset(want, 0, sizeof(want));
				check_report(run_expect(&e.h[hk], &r, why, sizeof(why)), name, "%s",
					     why);
			}
		}
		env_free(&e);
	}
}

/* A four-instruction tc program: skb->queue_mapping = qm; return -1. It
 * runs in front of pathscope (lower tc priority) to hand it a queue. */
static int load_set_queue_mapping(__u32 qm)
{
	struct bpf_insn insns[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_2, .imm = (__s32)qm },
		{ .code = BPF_STX | BPF_MEM | BPF_W,
		  .dst_reg = BPF_REG_1,
		  .src_reg = BPF_REG_2,
		  .off = offsetof(struct __sk_buff, queue_mapping) },
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = -1 },
		{ .code = BPF_JMP | BPF_EXIT },
	};

	return bpf_prog_load(BPF_PROG_TYPE_SCHED_CLS, "ps_test_qm", "GPL", insns, ARRAY_SIZE(insns),
			     NULL);
}

static int tx_sock = -1;

/* Send a whole frame out of ifindex through an AF_PACKET socket. */
static int send_frame(int ifindex, const struct frame *f)
{
	struct sockaddr_ll sll = { .sll_family = AF_PACKET,
				   .sll_ifindex = ifindex,
				   .sll_halen = 6 };
	ssize_t n;

	if (tx_sock < 0)
		tx_sock = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, 0);
	if (tx_sock < 0)
		return -errno;
	memcpy(sll.sll_addr, f->b, 6);
	n = sendto(tx_sock, f->b, f->len, 0, (struct sockaddr *)&sll, sizeof(sll));
	return n == (ssize_t)f->len ? 0 : -errno;
}

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

/* Sum of packets over the slots of a snapshot s of h. */
static __u64 packets_in(const struct hook *h, const struct ps_qstats *s)
{
	__u64 n = 0;
	__u32 i;

	for (i = 0; i < h->nslots; i++)
		n += s[i].packets;
	return n;
}

static __u64 total_packets(const struct hook *h)
{
	static struct ps_qstats s[MAX_SLOTS];

	return snapshot(h, s) ? 0 : packets_in(h, s);
}

/* Wait (up to 2 s) until h counted n packets more than in its snapshot
 * before, taken before the send (a veth often delivers within send()). h is
 * the last hook on the frames' way (tc ingress after pstA's tc egress and
 * pstB's XDP): once it counted them, so did the others. */
static void wait_packets(const struct hook *h, const struct ps_qstats *before, __u64 n)
{
	__u64 want = packets_in(h, before) + n;
	int i;

	for (i = 0; i < 200 && total_packets(h) < want; i++)
		sleep_ms(10);
}

/* One check of a live frame: counted in slot (or nowhere when slot < 0). */
static void check_live(const struct hook *h, const struct run *r, const char *what, __u32 qm,
		       int slot, const struct ps_qstats *before, const struct ps_qstats *after,
		       bool sent, const char *send_err)
{
	char name[200], where[32], why[256];

	if (slot >= 0) {
		expect(h, (__u32)slot, r, C_IP4(PS_L4_UDP), 0, PS_ECN_ECT0);
		snprintf(where, sizeof(where), "slot %d%s", slot,
			 (__u32)slot == h->nslots - 1 ? " (unknown/other)" : "");
	} else {
		memset(want, 0, sizeof(want));
		snprintf(where, sizeof(where), "not counted");
	}
	snprintf(name, sizeof(name), "%s (live veth, AF_PACKET): %s, queue_mapping %u -> %s",
		 h->name, what, qm, where);
	snprintf(why, sizeof(why), "%s", send_err);
	check_report(sent && deltas_match(h, before, after, want, why, sizeof(why)), name, "%s",
		     why);
}

/*
 * tc queues with live frames sent from an AF_PACKET socket on pstA: pstB
 * ingress runs [set queue_mapping, pathscope ingress], pstA egress runs
 * [set queue_mapping, pathscope egress]. Egress must ignore queue_mapping
 * (the TX queue is not picked yet at that hook) and take the socket's
 * cached TX queue, which a packet socket never has: unknown.
 */
static void test_tc_queues_live(int ifa, int ifb)
{
	static const struct {
		__u32 rx_base, all_queues;
		__u64 mask0;
		__u32 qm;
		int ingress_slot, egress_slot; /* -1: not counted */
		const char *what;
	} cases[] = {
		/* nqueues 2: slots 0, 1 and 2 (unknown or >= nqueues) */
		{ 1, 1, 0, 0, 2, 2, "nqueues 2, rx base 1" },
		{ 1, 1, 0, 1, 0, 2, "nqueues 2, rx base 1" },
		{ 1, 1, 0, 2, 1, 2, "nqueues 2, rx base 1" },
		{ 1, 1, 0, 3, 2, 2, "nqueues 2, rx base 1" },
		{ 0, 1, 0, 0, 0, 2, "nqueues 2, rx base 0 (veth)" },
		{ 0, 1, 0, 1, 1, 2, "nqueues 2, rx base 0 (veth)" },
		{ 0, 1, 0, 3, 2, 2, "nqueues 2, rx base 0 (veth)" },
		{ 1, 0, 1ull << 1, 2, 1, -1, "nqueues 2, mask {1}, rx base 1" },
		{ 1, 0, 1ull << 1, 1, -1, -1, "nqueues 2, mask {1}, rx base 1" },
	};
	LIBBPF_OPTS(bpf_tc_hook, hook_a, .ifindex = ifa, .attach_point = BPF_TC_EGRESS);
	LIBBPF_OPTS(bpf_tc_hook, hook_b, .ifindex = ifb, .attach_point = BPF_TC_INGRESS);
	static struct ps_qstats eb[MAX_SLOTS], ea[MAX_SLOTS], ib[MAX_SLOTS], ia[MAX_SLOTS];
	struct cfg c = default_cfg;
	struct env e = { 0 };
	struct frame f;
	struct run r = { .f = &f };
	char name[200], why[256];
	size_t i;
	int err, setter;
	bool ok;

	if (bpf_tc_hook_create(&hook_a) || bpf_tc_hook_create(&hook_b)) {
		check_report(0, "tc queues live: create clsact on pstA/pstB", "%s",
			     strerror(errno));
		return;
	}
	b_v4_udp(&f, 0, PS_ECN_ECT0);
	put_bytes(&f, 60 - f.len);
	fix_lengths(&f);
	c.nqueues = 2;
	c.parts = P_TC;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		LIBBPF_OPTS(bpf_tc_opts, set_a, .handle = 1, .priority = 1);
		LIBBPF_OPTS(bpf_tc_opts, set_b, .handle = 1, .priority = 1);

		if (i == 0 || cases[i].rx_base != c.rx_base ||
		    cases[i].all_queues != c.all_queues || cases[i].mask0 != c.mask0) {
			LIBBPF_OPTS(bpf_tc_opts, ps_a, .handle = 2, .priority = 2,
				    .flags = BPF_TC_F_REPLACE);
			LIBBPF_OPTS(bpf_tc_opts, ps_b, .handle = 2, .priority = 2,
				    .flags = BPF_TC_F_REPLACE);

			env_free(&e);
			c.rx_base = cases[i].rx_base;
			c.all_queues = cases[i].all_queues;
			c.mask0 = cases[i].mask0;
			err = env_load(&e, &c);
			if (!err) {
				ps_a.prog_fd = e.h[TCE].prog_fd;
				ps_b.prog_fd = e.h[TCI].prog_fd;
				err = bpf_tc_attach(&hook_a, &ps_a);
				if (!err)
					err = bpf_tc_attach(&hook_b, &ps_b);
			}
			snprintf(name, sizeof(name), "tc queues live: load and attach with %s",
				 cases[i].what);
			check_report(!err, name, "%s", strerror(-err));
			if (err)
				break;
		}

		setter = load_set_queue_mapping(cases[i].qm);
		set_a.prog_fd = set_b.prog_fd = setter;
		set_a.flags = set_b.flags = BPF_TC_F_REPLACE;
		if (setter < 0 || bpf_tc_attach(&hook_a, &set_a) ||
		    bpf_tc_attach(&hook_b, &set_b)) {
			check_report(0, "tc queues live: attach the queue_mapping setter", "%s",
				     strerror(errno));
			if (setter >= 0)
				close(setter);
			break;
		}
		close(setter); /* the tc filters hold it */

		why[0] = 0;
		ok = !snapshot(&e.h[TCE], eb) && !snapshot(&e.h[TCI], ib) && !send_frame(ifa, &f);
		if (cases[i].ingress_slot >= 0)
			wait_packets(&e.h[TCI], ib, 1);
		else
			sleep_ms(200);
		ok = ok && !snapshot(&e.h[TCE], ea) && !snapshot(&e.h[TCI], ia);
		if (!ok)
			snprintf(why, sizeof(why), "send or map lookup: %s", strerror(errno));
		check_live(&e.h[TCI], &r, cases[i].what, cases[i].qm, cases[i].ingress_slot, ib, ia,
			   ok, why);
		check_live(&e.h[TCE], &r, cases[i].what, cases[i].qm, cases[i].egress_slot, eb, ea,
			   ok, why);
	}
	env_free(&e);
	/* Both attach points: removes the clsact qdiscs themselves. */
	hook_a.attach_point = hook_b.attach_point = BPF_TC_INGRESS | BPF_TC_EGRESS;
	bpf_tc_hook_destroy(&hook_a);
	bpf_tc_hook_destroy(&hook_b);
}

/* acc[slot] += count times the deltas of one frame of class c in slot
 * (what expect() puts in want[]). */
static void expect_add(struct ps_qstats *acc, const struct hook *h, __u32 slot, const struct run *r,
		       struct cls c, __u8 ecn, __u64 count)
{
	size_t i;

	expect(h, slot, r, c, 0, ecn);
	for (i = 0; i < NFIELDS; i++)
		((__u64 *)&acc[slot])[i] += count * ((__u64 *)&want[slot])[i];
}

/*
 * Connected UDP sockets on pstA (10.99.0.1) to a static neighbour behind
 * pstB: the kernel picks a TX queue per flow and caches it in the socket
 * after the flow's first packet. On veth, TX queue q of pstA is RX queue q
 * of pstB, which XDP on pstB reports as rx_queue_index and tc ingress (rx
 * base 0) as queue_mapping. Per flow of 3 packets: XDP and tc ingress count
 * all 3 on queue q; tc egress counts the first as unknown, then 2 on q.
 * Every counter of every slot is checked against the known frame: 14 bytes
 * of Ethernet, 20 of IPv4 (Not-ECT), 8 of UDP and the 9 bytes "pathscope",
 * a plain (one-segment) skb at tc.
 */
static void test_tc_live_udp(int ifa, int ifb)
{
	LIBBPF_OPTS(bpf_tc_hook, hook_a, .ifindex = ifa, .attach_point = BPF_TC_EGRESS);
	LIBBPF_OPTS(bpf_tc_hook, hook_b, .ifindex = ifb, .attach_point = BPF_TC_INGRESS);
	LIBBPF_OPTS(bpf_tc_opts, ps_a, .handle = 2, .priority = 2);
	LIBBPF_OPTS(bpf_tc_opts, ps_b, .handle = 2, .priority = 2);
	static struct ps_qstats xb[MAX_SLOTS], xa[MAX_SLOTS], eb[MAX_SLOTS], ea[MAX_SLOTS],
	    ib[MAX_SLOTS], ia[MAX_SLOTS], acc[MAX_SLOTS];
	static const char payload[] = "pathscope";
	/* Only the length of the known frame matters to expect(). */
	static const struct frame known = { .len = 14 + 20 + 8 + sizeof(payload) - 1 };
	const struct run r = { .f = &known };
	struct sockaddr_in dst = { .sin_family = AF_INET, .sin_port = htons(9) };
	struct cfg c = default_cfg;
	struct env e = { 0 };
	struct ifreq ifr;
	char name[200], why[256], cmd[256];
	const unsigned char *hw;
	__u32 q, xq, used = 0;
	int err, flow, k, fd;
	bool ok;

	/* An address on pstA and a permanent neighbour: no ARP, no replies.
	 * (/sys/class/net shows the netns sysfs was mounted in: ask ioctl.) */
	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "pstB");
	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	ok = fd >= 0 && !ioctl(fd, SIOCGIFHWADDR, &ifr);
	if (fd >= 0)
		close(fd);
	hw = (const unsigned char *)ifr.ifr_hwaddr.sa_data;
	snprintf(cmd, sizeof(cmd),
		 "ip addr add 10.99.0.1/24 dev pstA && "
		 "ip neigh replace 10.99.0.2 lladdr %02x:%02x:%02x:%02x:%02x:%02x dev pstA "
		 "nud permanent",
		 hw[0], hw[1], hw[2], hw[3], hw[4], hw[5]);
	c.nqueues = 4;
	c.rx_base = 0; /* veth */
	c.parts = P_XDP | P_TC;
	err = ok && !sh(cmd) ? env_load(&e, &c) : -EIO;
	if (!err) {
		ps_a.prog_fd = e.h[TCE].prog_fd;
		ps_b.prog_fd = e.h[TCI].prog_fd;
		err = bpf_tc_hook_create(&hook_a);
		if (!err || err == -EEXIST)
			err = bpf_tc_hook_create(&hook_b);
		if (!err || err == -EEXIST)
			err = bpf_tc_attach(&hook_a, &ps_a);
		if (!err)
			err = bpf_tc_attach(&hook_b, &ps_b);
		if (!err)
			err = bpf_xdp_attach(ifb, e.h[XDP].prog_fd, XDP_FLAGS_DRV_MODE, NULL);
	}
	check_report(!err,
		     "udp flows (live veth): address, neighbour, xdp (native) and tc attached",
		     "%s", strerror(-err));
	if (err)
		goto out;

	inet_pton(AF_INET, "10.99.0.2", &dst.sin_addr);
	for (flow = 0; flow < 8; flow++) {
		ok = !snapshot(&e.h[XDP], xb) && !snapshot(&e.h[TCE], eb) &&
		     !snapshot(&e.h[TCI], ib);
		fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
		ok = ok && fd >= 0 && !connect(fd, (struct sockaddr *)&dst, sizeof(dst));
		for (k = 0; k < 3 && ok; k++)
			ok = send(fd, payload, sizeof(payload) - 1, 0) == sizeof(payload) - 1;
		snprintf(why, sizeof(why), "socket, send or map lookup: %s", strerror(errno));
		if (fd >= 0)
			close(fd);
		wait_packets(&e.h[TCI], ib, 3);
		ok = ok && !snapshot(&e.h[XDP], xa) && !snapshot(&e.h[TCE], ea) &&
		     !snapshot(&e.h[TCI], ia);

		/* The queue XDP saw: the one slot that moved. */
		xq = c.nqueues;
		for (q = 0; q < c.nqueues; q++)
			if (xa[q].packets - xb[q].packets == 3)
				xq = q;
		if (ok && xq == c.nqueues) {
			ok = false;
			snprintf(why, sizeof(why), "xdp did not count 3 packets on one rx queue");
		}
		used |= 1u << xq;

		snprintf(name, sizeof(name),
			 "udp flow %d (live veth): xdp counts the 3 known frames on one rx queue, "
			 "every counter",
			 flow);
		memset(acc, 0, sizeof(acc));
		if (ok) {
			expect_add(acc, &e.h[XDP], xq, &r, C_IP4(PS_L4_UDP), PS_ECN_NOT_ECT, 3);
			ok = deltas_match(&e.h[XDP], xb, xa, acc, why, sizeof(why));
		}
		check_report(ok, name, "%s", why);

		snprintf(
		    name, sizeof(name),
		    "udp flow %d (live veth): tc ingress (rx base 0) counts the 3 known frames "
		    "on the xdp rx queue, every counter",
		    flow);
		memset(acc, 0, sizeof(acc));
		if (ok) {
			expect_add(acc, &e.h[TCI], xq, &r, C_IP4(PS_L4_UDP), PS_ECN_NOT_ECT, 3);
			ok = deltas_match(&e.h[TCI], ib, ia, acc, why, sizeof(why));
		}
		check_report(ok, name, "%s", why);

		/* Egress: first packet unknown, the next two on the TX queue. */
		snprintf(name, sizeof(name),
			 "udp flow %d (live veth): tc egress counts frame 1 as unknown, "
			 "frames 2-3 on the TX queue (= xdp rx queue), every counter",
			 flow);
		memset(acc, 0, sizeof(acc));
		if (xq < c.nqueues) {
			expect_add(acc, &e.h[TCE], c.nqueues, &r, C_IP4(PS_L4_UDP), PS_ECN_NOT_ECT,
				   1);
			expect_add(acc, &e.h[TCE], xq, &r, C_IP4(PS_L4_UDP), PS_ECN_NOT_ECT, 2);
			check_report(deltas_match(&e.h[TCE], eb, ea, acc, why, sizeof(why)), name,
				     "%s", why);
		} else {
			check_report(0, name, "%s", why);
		}
	}
	printf("# udp flows used tx queues (bitmask) 0x%x\n", used);
out:
	bpf_xdp_detach(ifb, XDP_FLAGS_DRV_MODE, NULL);
	hook_a.attach_point = hook_b.attach_point = BPF_TC_INGRESS | BPF_TC_EGRESS;
	bpf_tc_hook_destroy(&hook_a);
	bpf_tc_hook_destroy(&hook_b);
	env_free(&e);
}

/* Feature flows' RX hash types (pathscope_xdp_rxhash, device-bound):
 * loaded only where the probe finds bpf_xdp_metadata_rx_hash (Linux 6.3;
 * never on 5.10 or 6.1, where the plain program alone is loaded). Bound to
 * pstB and attached there (BPF_PROG_TEST_RUN refuses a device-bound
 * program: EINVAL on 6.18); IPv4 UDP frames sent from pstA's AF_PACKET
 * socket are typed L4 by veth (the skb's hash covers the ports). */
static void test_xdp_rx_hash(int ifa, int ifb)
{
	const int nframes = 20;
	struct pathscope_xdp *x;
	struct ps_rx_hash_q *pc = NULL, sum = { 0, 0, 0 };
	struct frame f;
	int err, fd, i, ncpus = libbpf_num_possible_cpus(), sent = 0;
	__u32 q;

	if (!ps_xdp_rx_hash_supported()) {
		/* The kernel's own BTF, read here, says whether the kfunc
		 * exists: a skip in CI too when it does not (Linux 6.3). */
		struct btf *vm = btf__load_vmlinux_btf();
		bool has = vm && btf__find_by_name_kind(vm, "bpf_xdp_metadata_rx_hash",
							BTF_KIND_FUNC) >= 0;

		btf__free(vm);
		if (!has)
			check_mark_unsupported(
			    "no bpf_xdp_metadata_rx_hash in its BTF (Linux 6.3)");
		check_report(0,
			     "xdp rx hash: the probe finds the kfunc where the kernel's BTF has it",
			     "%s", has ? "the BTF has it, the probe says no" : "none");
		return;
	}
	x = pathscope_xdp__open();
	if (!x) {
		check_report(0, "xdp rx hash: open", "%s", strerror(errno));
		return;
	}
	x->rodata->ps_features = PS_F_DEFAULT | PS_F_FLOWS;
	x->rodata->ps_nqueues = 4;
	x->rodata->ps_all_queues = 1;
	x->rodata->ps_flow_sample = 1;
	bpf_map__set_max_entries(x->maps.xdp_stats, 5);
	bpf_map__set_max_entries(x->maps.flows_q, 5);
	bpf_map__set_max_entries(x->maps.flows_rxhash, 5);
	bpf_program__set_autoload(x->progs.pathscope_xdp, false);
	bpf_program__set_autoload(x->progs.pathscope_xdp_chain, false);
	bpf_program__set_autoload(x->progs.pathscope_xdp_rxhash, true);
	bpf_program__set_ifindex(x->progs.pathscope_xdp_rxhash, (__u32)ifb);
	bpf_program__set_flags(x->progs.pathscope_xdp_rxhash, 1U << 6 /* DEV_BOUND_ONLY */);
	err = pathscope_xdp__load(x);
	check_report(!err, "xdp rx hash: pathscope_xdp_rxhash loads device-bound", "%s",
		     strerror(-err));
	if (err)
		goto out;
	fd = bpf_program__fd(x->progs.pathscope_xdp_rxhash);
	err = bpf_xdp_attach(ifb, fd, XDP_FLAGS_DRV_MODE, NULL);
	check_report(!err, "xdp rx hash: attached to pstB (native)", "%s", strerror(errno));
	if (err)
		goto out;
	b_v4_udp(&f, 0, 0);
	for (i = 0; i < nframes; i++)
		sent += !send_frame(ifa, &f);
	/* Until the frames are counted (each is typed once): 2 s at most. */
	pc = calloc(ncpus, sizeof(*pc));
	for (int tries = 0; pc && tries < 200; tries++) {
		sum = (struct ps_rx_hash_q){ 0, 0, 0 };
		for (q = 0; q < 5; q++) {
			if (bpf_map_lookup_elem(bpf_map__fd(x->maps.flows_rxhash), &q, pc))
				break;
			for (i = 0; i < ncpus; i++) {
				sum.l4 += pc[i].l4;
				sum.l3 += pc[i].l3;
				sum.none += pc[i].none;
			}
		}
		if (sum.l4 + sum.l3 + sum.none >= (__u64)sent)
			break;
		sleep_ms(10);
	}
	check_report(sent == nframes && sum.l4 == (__u64)nframes && !sum.l3 && !sum.none,
		     "xdp rx hash: 20 UDP frames on a veth: 20 typed L4, none L3 or untyped",
		     "sent %d: l4 %llu, l3 %llu, none %llu", sent, (unsigned long long)sum.l4,
		     (unsigned long long)sum.l3, (unsigned long long)sum.none);
	bpf_xdp_detach(ifb, XDP_FLAGS_DRV_MODE, NULL);
out:
	free(pc);
	pathscope_xdp__destroy(x);
}

static void test_queues(void)
{
	int ifa, ifb, fd;

	if (!netns_ok) {
		check_skip("queues", "no private network namespace (unshare failed)");
		return;
	}
	/* No IPv6 autoconfiguration traffic in the live tests. */
	fd = open("/proc/sys/net/ipv6/conf/default/disable_ipv6", O_WRONLY | O_CLOEXEC);
	if (fd >= 0) {
		if (write(fd, "1", 1) != 1)
			perror("disable_ipv6");
		close(fd);
	}
	if (sh("ip link add pstA numrxqueues 4 numtxqueues 4 type veth peer name pstB "
	       "numrxqueues 4 numtxqueues 4 && ip link set pstA up && ip link set pstB up")) {
		check_report(0, "queues: create veth pair pstA/pstB with 4 queues", "ip failed");
		return;
	}
	ifa = (int)if_nametoindex("pstA");
	ifb = (int)if_nametoindex("pstB");
	test_xdp_queues(ifa);
	test_tc_testrun_queues();
	test_tc_queues_live(ifa, ifb);
	test_tc_live_udp(ifa, ifb);
	test_xdp_rx_hash(ifa, ifb);
	if (tx_sock >= 0)
		close(tx_sock);
	sh("ip link del pstA");
}

/* libbpf messages, without the (long) verifier log unless asked for. */
static int libbpf_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	if (level == LIBBPF_DEBUG)
		return 0;
	if (strstr(fmt, "PROG LOAD LOG") && !getenv("PS_TEST_VERBOSE"))
		return fprintf(stderr, "libbpf: (verifier log: set PS_TEST_VERBOSE=1)\n");
	return vfprintf(stderr, fmt, ap);
}

/* ---------------------------------------------------------------------- */
/* Chain mode: pathscope's XDP program counts, then tail-calls the program */
/* in its chain (a stand-in load balancer); the verdict and the frame are  */
/* the balancer's, exactly.                                                */

/* The stand-in balancer object, under $PS_BUILD (default build). */
static const char *standin_lb_path(void)
{
	static char path[256];
	const char *b = getenv("PS_BUILD");

	snprintf(path, sizeof(path), "%s/tests/standin_lb.bpf.o", b && *b ? b : "build");
	return path;
}

/* A UDP frame to 198.18.0.<last>. */
static void lb_frame(struct frame *f, __u8 last)
{
	__u8 *ip;

	put_eth(f, 0, 0x0800);
	ip = put_ipv4(f, 17, 0);
	ip[16] = 198, ip[17] = 18, ip[18] = 0, ip[19] = last;
	put_udp(f);
	put(f, 32);
	fix_lengths(f);
}

static __u64 xdp_packets(int map_fd)
{
	__u64 sum = 0;
	__u32 key = 0;
	int cpu;

	if (bpf_map_lookup_elem(map_fd, &key, percpu))
		return (__u64)-1;
	for (cpu = 0; cpu < ncpus; cpu++)
		sum += percpu[cpu].packets;
	return sum;
}

static void chain_case(int prog_fd, int map_fd, __u8 last, __u32 want_verdict, bool swapped,
		       const char *name)
{
	static __u8 out[FRAME_MAX + 64];
	struct frame f;
	LIBBPF_OPTS(bpf_test_run_opts, opts, .data_out = out, .data_size_out = sizeof(out),
		    .repeat = 1);
	__u64 before = xdp_packets(map_fd);
	bool frame_ok;

	lb_frame(&f, last);
	opts.data_in = f.b;
	opts.data_size_in = f.len;
	if (bpf_prog_test_run_opts(prog_fd, &opts)) {
		check_report(0, name, "BPF_PROG_TEST_RUN: %s", strerror(errno));
		return;
	}
	/* XDP_TX: addresses and ports swapped by the balancer; else unchanged. */
	frame_ok = opts.data_size_out == f.len &&
		   (swapped ? memcmp(out + 26, f.b + 30, 4) == 0 &&
				  memcmp(out + 30, f.b + 26, 4) == 0 && memcmp(out, f.b + 6, 6) == 0
			    : memcmp(out, f.b, f.len) == 0);
	check_report(opts.retval == want_verdict && frame_ok && xdp_packets(map_fd) == before + 1,
		     name, "verdict %u (want %u), frame %s, counted %lld", opts.retval,
		     want_verdict, frame_ok ? "as expected" : "wrong",
		     (long long)(xdp_packets(map_fd) - before));
}

static void test_chain(void)
{
	struct pathscope_xdp *x = pathscope_xdp__open();
	struct bpf_object *lb = bpf_object__open_file(standin_lb_path(), NULL);
	struct bpf_program *lbprog;
	int prog_fd, map_fd, chain_fd, lb_fd, err;
	__u32 zero = 0;

	if (!x || libbpf_get_error(lb)) {
		check_report(0, "chain: open pathscope_xdp and the stand-in balancer", "%s %s",
			     standin_lb_path(), strerror(errno));
		goto out;
	}
	x->rodata->ps_features = PS_F_DEFAULT;
	x->rodata->ps_nqueues = 0;
	bpf_program__set_autoload(x->progs.pathscope_xdp, false);
	bpf_map__set_max_entries(x->maps.xdp_stats, 1);
	err = pathscope_xdp__load(x);
	if (!err)
		err = bpf_object__load(lb);
	lbprog = bpf_object__find_program_by_name(lb, "standin_lb");
	check_report(!err && lbprog, "chain: load pathscope_xdp_chain and the stand-in balancer",
		     "%s", strerror(-err));
	if (err || !lbprog)
		goto out;
	prog_fd = bpf_program__fd(x->progs.pathscope_xdp_chain);
	map_fd = bpf_map__fd(x->maps.xdp_stats);
	chain_fd = bpf_map__fd(x->maps.xdp_chain);
	lb_fd = bpf_program__fd(lbprog);

	chain_case(prog_fd, map_fd, 7, XDP_PASS_VERDICT, false,
		   "chain: empty chain: XDP_PASS, counted");
	err = bpf_map_update_elem(chain_fd, &zero, &lb_fd, BPF_ANY);
	check_report(!err, "chain: the balancer goes into slot 0", "%s", strerror(errno));
	chain_case(prog_fd, map_fd, 100, 3 /* XDP_TX */, true,
		   "chain: VIP 198.18.0.100: the balancer's XDP_TX and its rewritten frame");
	chain_case(prog_fd, map_fd, 101, 1 /* XDP_DROP */, false,
		   "chain: VIP 198.18.0.101: the balancer's XDP_DROP");
	chain_case(prog_fd, map_fd, 7, XDP_PASS_VERDICT, false,
		   "chain: any other address: the balancer's XDP_PASS");
	bpf_map_delete_elem(chain_fd, &zero);
	chain_case(prog_fd, map_fd, 100, XDP_PASS_VERDICT, false,
		   "chain: slot emptied: XDP_PASS again, frame untouched");
out:
	pathscope_xdp__destroy(x);
	if (!libbpf_get_error(lb))
		bpf_object__close(lb);
}

int main(void)
{
	struct env e;
	int err;

	setvbuf(stdout, NULL, _IOLBF, 0);
	libbpf_set_print(libbpf_print);
	ncpus = libbpf_num_possible_cpus();
	percpu = calloc((size_t)(ncpus > 0 ? ncpus : 1), sizeof(*percpu));
	if (ncpus <= 0 || !percpu) {
		check_report(0, "datapath: possible CPUs", "%d", ncpus);
		return check_exit_code();
	}
	/* A private netns: the loopback device BPF_PROG_TEST_RUN uses and the
	 * veth pair of the queue tests live and die with this process. */
	netns_ok = unshare(CLONE_NEWNET) == 0;
	xdp_ctx_ok = probe_xdp_ctx();

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

	test_features();
	test_queues();
	test_chain();

	free(percpu);
	return check_exit_code();
}
