// SPDX-License-Identifier: GPL-2.0
/* Chain mode: pathscope's XDP program counts, then tail-calls the stand-in load
 * balancer in its chain (tests/standins/standin_lb.bpf.c); the verdict and the frame
 * are the balancer's, exactly. */
#include "tests/lib/datapath.h"

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

/* The cases: XDP_TX with its rewritten frame, XDP_DROP, XDP_PASS, and
 * XDP_PASS with an empty slot. */
int main(void)
{
	if (datapath_init() || !datapath_bpf_ok("datapath chain: load BPF programs"))
		return check_exit_code();

	test_chain();

	free(percpu);
	return check_exit_code();
}
