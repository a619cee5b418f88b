// SPDX-License-Identifier: GPL-2.0
/* Live frames on a veth pair, where the kernel picks the queue (tests/lib/datapath.h):
 * UDP flows from connected sockets, every counter of every slot at each hook, and
 * feature flows' RX hash types. */
#include "tests/lib/datapath.h"
#include "tests/lib/datapath_frames.h"
#include "tests/lib/datapath_veth.h"

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

/* The frames: 8 UDP flows of 3 datagrams each from connected sockets, every
 * counter of every slot at XDP, tc ingress and tc egress against the known
 * 51-byte frame (egress: the first datagram under unknown, the next two on the
 * socket's TX queue, the queue XDP saw); and feature flows' RX hash types
 * (pathscope_xdp_rxhash, device-bound, where the kernel has
 * bpf_xdp_metadata_rx_hash): 20 UDP frames typed L4. */
int main(void)
{
	int ifa, ifb;

	if (datapath_init() || !datapath_bpf_ok("datapath udp: load BPF programs"))
		return check_exit_code();
	if (veth_up(&ifa, &ifb))
		return check_exit_code();
	test_tc_live_udp(ifa, ifb);
	test_xdp_rx_hash(ifa, ifb);
	veth_down();

	free(percpu);
	return check_exit_code();
}
