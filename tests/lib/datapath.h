/* SPDX-License-Identifier: GPL-2.0 */
/* What the datapath tests (tests/bpf/test_datapath_*.c) share: pathscope's XDP and tc
 * programs loaded with a feature and queue setting, per-slot snapshots, and one crafted
 * frame at a time through BPF_PROG_TEST_RUN, checked by exact counter deltas. */
#ifndef PATHSCOPE_TESTS_LIB_DATAPATH_H
#define PATHSCOPE_TESTS_LIB_DATAPATH_H

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
#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#endif

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
static inline const char *cls_name(struct cls c, char *buf, size_t n)
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
static inline void field_name(size_t i, char *buf, size_t n)
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
static const struct cfg default_cfg __attribute__((unused)) = { PS_F_ALL, 0, 1, 0, 1, 0 };

struct env {
	struct pathscope_xdp *x;
	struct pathscope_tc *t;
	struct hook h[NHOOKS];
};

static inline void set_hook(struct hook *h, const char *name, const struct bpf_program *prog,
			    const struct bpf_map *map, const struct cfg *c)
{
	h->name = name;
	h->xdp = bpf_program__type(prog) == BPF_PROG_TYPE_XDP;
	h->prog_fd = bpf_program__fd(prog);
	h->map_fd = bpf_map__fd(map);
	h->nslots = c->nqueues + 1;
	h->features = c->features;
}

static inline int env_load(struct env *e, const struct cfg *c)
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

static inline void env_free(struct env *e)
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
static inline int snapshot(const struct hook *h, struct ps_qstats *out)
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
static inline bool deltas_match(const struct hook *h, const struct ps_qstats *before,
				const struct ps_qstats *after, const struct ps_qstats *want,
				char *why, size_t n)
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
static inline __u32 run_len(const struct hook *h, const struct run *r)
{
	return h->xdp && r->split ? r->linear : r->f->len;
}

/* Does this kernel's BPF_PROG_TEST_RUN take an XDP context (5.15)? Probed
 * with a program of two instructions, not with pathscope's. */
static bool xdp_ctx_ok;

static inline bool probe_xdp_ctx(void)
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
 * frame comes out unchanged; a mismatch is reported as -EBADMSG in why.
 *
 * What this kernel's BPF_PROG_TEST_RUN allows (checked by the tests, not
 * assumed):
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
 *    with live frames on a veth pair (test_datapath_queues.c,
 *    test_datapath_udp.c). */
static inline int test_run(const struct hook *h, const struct run *r, char *why, size_t n)
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
static inline bool run_expect(const struct hook *h, const struct run *r, char *why, size_t n)
{
	if (snapshot(h, snap_before) || test_run(h, r, why, n) || snapshot(h, snap_after)) {
		if (!why[0])
			snprintf(why, n, "map lookup: %s", strerror(errno));
		return false;
	}
	return deltas_match(h, snap_before, snap_after, want, why, n);
}

/* Run a frame that the kernel must refuse with err, counting nothing. */
static inline bool run_rejected(const struct hook *h, const struct run *r, int err, char *why,
				size_t n)
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
static inline void expect(const struct hook *h, __u32 slot, const struct run *r, struct cls c,
			  int vlans, __u8 ecn)
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
static inline void check_frame(const char *name, const struct hook *h, const struct run *r,
			       __u32 slot, struct cls c, int vlans, __u8 ecn)
{
	char why[256] = "";

	expect(h, slot, r, c, vlans, ecn);
	check_report(run_expect(h, r, why, sizeof(why)), name, "%s", why);
}

/* libbpf messages, without the (long) verifier log unless asked for. */
static inline int libbpf_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	if (level == LIBBPF_DEBUG)
		return 0;
	if (strstr(fmt, "PROG LOAD LOG") && !getenv("PS_TEST_VERBOSE"))
		return fprintf(stderr, "libbpf: (verifier log: set PS_TEST_VERBOSE=1)\n");
	return vfprintf(stderr, fmt, ap);
}

/* Whether the queue tests may make a veth pair: the private namespace. */
static bool netns_ok;

/* The start of every datapath program: line-buffered output, libbpf's
 * messages, the per-CPU buffer, a private network namespace (the loopback
 * device BPF_PROG_TEST_RUN uses and any veth pair live and die with the
 * process) and the XDP context probe. 0, or -1 after a failure line.
 *
 * Each program runs in a private network namespace (unshare), so its veth pair
 * and tc hooks disappear with the process, even when it crashes. Set
 * PS_TEST_VERBOSE=1 to see the verifier log of a program that fails to load. */
static inline int datapath_init(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	libbpf_set_print(libbpf_print);
	ncpus = libbpf_num_possible_cpus();
	percpu = calloc((size_t)(ncpus > 0 ? ncpus : 1), sizeof(*percpu));
	if (ncpus <= 0 || !percpu) {
		check_report(0, "datapath: possible CPUs", "%d", ncpus);
		return -1;
	}
	netns_ok = unshare(CLONE_NEWNET) == 0;
	xdp_ctx_ok = probe_xdp_ctx();
	return 0;
}

/* Can this process load BPF programs at all? If not (no root, no BPF), one
 * skip line named what (a failure in CI) and false. */
static inline bool datapath_bpf_ok(const char *what)
{
	static const struct bpf_insn pass[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = 2 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	int fd = bpf_prog_load(BPF_PROG_TYPE_XDP, NULL, "GPL", pass, 2, NULL);

	if (fd >= 0) {
		close(fd);
		return true;
	}
	if (errno != EPERM && errno != ENOSYS && errno != EACCES)
		return true; /* the test's own load says what is wrong */
	check_skip(what, strerror(errno));
	return false;
}

#endif /* PATHSCOPE_TESTS_LIB_DATAPATH_H */
