// SPDX-License-Identifier: GPL-2.0
/* Queue attribution at each hook (tests/lib/datapath.h): XDP's rx_queue_index, tc under
 * BPF_PROG_TEST_RUN, and tc with live frames whose queue_mapping a program in front
 * of pathscope sets. */
#include "tests/lib/datapath.h"
#include "tests/lib/datapath_frames.h"
#include "tests/lib/datapath_veth.h"

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

/* At each hook: XDP's rx_queue_index set through struct xdp_md on a 4-queue
 * veth (nqueues, the queue mask, the slot of other queues); tc under
 * BPF_PROG_TEST_RUN, where queue_mapping is 0 and no TX queue is cached; and tc
 * with live frames sent from an AF_PACKET socket on pstA, with a
 * four-instruction tc program in front of pathscope that sets queue_mapping:
 * ingress takes it (rx base 0 or 1), egress ignores it (a packet socket has no
 * cached TX queue: unknown). */
int main(void)
{
	int ifa, ifb;

	if (datapath_init() || !datapath_bpf_ok("datapath queues: load BPF programs"))
		return check_exit_code();
	if (veth_up(&ifa, &ifb))
		return check_exit_code();
	test_xdp_queues(ifa);
	test_tc_testrun_queues();
	test_tc_queues_live(ifa, ifb);
	veth_down();

	free(percpu);
	return check_exit_code();
}
