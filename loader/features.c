// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Feature probes. Each one asks the kernel directly: it loads a two-
 * instruction program of the kind in question (never attaching it), or
 * queries, or looks at a file. Nothing is attached anywhere.
 */
#include "loader/features.h"

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <getopt.h>
#include <linux/bpf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "lib/compat.h"
#include "loader/tc_clsact.h"
#include "lib/util.h"

static const struct bpf_insn ret0[] = {
	{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = 0 },
	{ .code = BPF_JMP | BPF_EXIT },
};
static const struct bpf_insn ret_pass[] = {
	{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = 2 /* XDP_PASS */ },
	{ .code = BPF_JMP | BPF_EXIT },
};

static bool try_load(enum bpf_prog_type type, const struct bpf_insn *insns,
		     const struct bpf_prog_load_opts *opts)
{
	int fd = bpf_prog_load(type, NULL, "GPL", insns, 2, opts);

	if (fd < 0)
		return false;
	close(fd);
	return true;
}

/* A tracing program against a kernel BTF id (tp_btf or fentry). */
static bool probe_tracing(struct btf *vmlinux, const char *name, int kind,
			  enum bpf_attach_type type)
{
	int id = btf__find_by_name_kind(vmlinux, name, kind);
	LIBBPF_OPTS(bpf_prog_load_opts, opts, .expected_attach_type = type);

	if (id <= 0)
		return false;
	opts.attach_btf_id = id;
	return try_load(BPF_PROG_TYPE_TRACING, ret0, &opts);
}

/* freplace (what libxdp's dispatcher needs): an extension program that
 * replaces a BTF-described global function of a loaded XDP program. */
static bool probe_freplace(void)
{
	/* int f(struct xdp_md *ctx) { return 2; } with BTF so it can be a target. */
	struct btf *btf = btf__new_empty();
	LIBBPF_OPTS(bpf_prog_load_opts, xopts);
	LIBBPF_OPTS(bpf_prog_load_opts, eopts);
	struct bpf_func_info finfo = {};
	int ctx_id, ptr_id, int_id, proto_id, func_id, target = -1;
	bool ok = false;

	if (!btf)
		return false;
	int_id = btf__add_int(btf, "int", 4, BTF_INT_SIGNED);
	ctx_id = btf__add_struct(btf, "xdp_md", 0);
	ptr_id = btf__add_ptr(btf, ctx_id);
	proto_id = btf__add_func_proto(btf, int_id);
	btf__add_func_param(btf, "ctx", ptr_id);
	func_id = btf__add_func(btf, "pathscope_probe", BTF_FUNC_GLOBAL, proto_id);
	if (func_id < 0 || btf__load_into_kernel(btf))
		goto out;
	finfo.type_id = func_id;
	xopts.prog_btf_fd = btf__fd(btf);
	xopts.func_info = &finfo;
	xopts.func_info_rec_size = sizeof(finfo);
	xopts.func_info_cnt = 1;
	target = bpf_prog_load(BPF_PROG_TYPE_XDP, "ps_probe", "GPL", ret_pass, 2, &xopts);
	if (target < 0)
		goto out;
	eopts.attach_prog_fd = target;
	eopts.attach_btf_id = func_id;
	ok = try_load(BPF_PROG_TYPE_EXT, ret_pass, &eopts);
out:
	if (target >= 0)
		close(target);
	btf__free(btf);
	return ok;
}

bool ps_tp_btf_supported(void)
{
	struct btf *vmlinux;
	bool ok;

	if (ps_fallback_forced("tp_btf"))
		return false;
	vmlinux = btf__load_vmlinux_btf();
	if (libbpf_get_error(vmlinux) || !vmlinux)
		return false;
	ok = probe_tracing(vmlinux, "btf_trace_net_dev_queue", BTF_KIND_TYPEDEF, BPF_TRACE_RAW_TP);
	btf__free(vmlinux);
	return ok;
}

static int read_int_file(const char *path)
{
	FILE *f = fopen(path, "r");
	int v = -1;

	if (!f)
		return -1;
	if (fscanf(f, "%d", &v) != 1)
		v = -1;
	fclose(f);
	return v;
}

void ps_features_probe(struct ps_features *f)
{
	struct btf *vmlinux;
	struct statfs st;
	int v;

	memset(f, 0, sizeof(*f));
	f->btf = access("/sys/kernel/btf/vmlinux", R_OK) == 0;
	f->bpffs = statfs("/sys/fs/bpf", &st) == 0 && st.f_type == BPF_FS_MAGIC;
	f->tcx = ps_tcx_supported(1);
	f->kprobes = access("/sys/bus/event_source/devices/kprobe/type", R_OK) == 0;
	v = read_int_file("/proc/sys/kernel/bpf_stats_enabled");
	f->bpf_stats_available = v >= 0;
	f->bpf_stats_enabled = v > 0;
	f->freplace = !ps_fallback_forced("dispatcher") && probe_freplace();

	vmlinux = f->btf ? btf__load_vmlinux_btf() : NULL;
	if (!libbpf_get_error(vmlinux) && vmlinux) {
		f->tp_btf = !ps_fallback_forced("tp_btf") &&
			    probe_tracing(vmlinux, "btf_trace_net_dev_queue", BTF_KIND_TYPEDEF,
					  BPF_TRACE_RAW_TP);
		f->fentry =
		    probe_tracing(vmlinux, "netif_receive_skb", BTF_KIND_FUNC, BPF_TRACE_FENTRY);
		f->xdp_metadata_kfuncs =
		    btf__find_by_name_kind(vmlinux, "bpf_xdp_metadata_rx_timestamp",
					   BTF_KIND_FUNC) > 0;
		btf__free(vmlinux);
	}
}

static const char *yes_no(bool b)
{
	return b ? "yes" : "no";
}

static void usage(FILE *out)
{
	fprintf(out, "usage: pathscope features [--json]\n"
		     "Probe what this kernel supports (loads tiny programs, attaches nothing) and\n"
		     "say what pathscope will use.\n");
}

int ps_cmd_features(int argc, char **argv)
{
	static const struct option opts[] = { { "json", no_argument, NULL, 'j' },
					      { "help", no_argument, NULL, 'h' },
					      {} };
	struct ps_features f;
	bool json = false;
	int c;

	while ((c = getopt_long(argc, argv, "jh", opts, NULL)) != -1) {
		if (c == 'j')
			json = true;
		else if (c == 'h') {
			usage(stdout);
			return 0;
		} else {
			usage(stderr);
			return 2;
		}
	}
	if (optind < argc)
		return ps_error("features: unexpected argument '%s'", argv[optind]), 2;
	if (ps_require_privileges())
		return 1;
	ps_features_probe(&f);

	if (json) {
		printf("{\"btf\":%s,\"bpffs\":%s,\"tcx\":%s,\"tp_btf\":%s,\"fentry\":%s,"
		       "\"freplace\":%s,\"kprobes\":%s,\"xdp_metadata_kfuncs\":%s,"
		       "\"bpf_stats_available\":%s,\"bpf_stats_enabled\":%s,"
		       "\"uses\":{\"tc\":\"%s\",\"xdp\":\"%s\",\"tracepoints\":\"%s\"}}\n",
		       f.btf ? "true" : "false", f.bpffs ? "true" : "false",
		       f.tcx ? "true" : "false", f.tp_btf ? "true" : "false",
		       f.fentry ? "true" : "false", f.freplace ? "true" : "false",
		       f.kprobes ? "true" : "false", f.xdp_metadata_kfuncs ? "true" : "false",
		       f.bpf_stats_available ? "true" : "false",
		       f.bpf_stats_enabled ? "true" : "false", f.tcx ? "tcx" : "clsact",
		       f.freplace ? "libxdp-dispatcher" : "single-program",
		       f.tp_btf ? "tp_btf" : "tracepoint");
		return 0;
	}
	printf("%-28s %-4s %s\n", "CAPABILITY", "HERE", "PATHSCOPE USES");
	printf("%-28s %-4s %s\n", "kernel BTF", yes_no(f.btf),
	       f.btf ? "CO-RE" : "nothing works without it");
	printf("%-28s %-4s %s\n", "bpffs at /sys/fs/bpf", yes_no(f.bpffs),
	       f.bpffs ? "pins under /sys/fs/bpf/pathscope" : "mounts one at attach");
	printf("%-28s %-4s %s\n", "TCX links (>= 6.6)", yes_no(f.tcx),
	       f.tcx ? "tc via TCX links" : "tc via clsact + cls_bpf");
	printf("%-28s %-4s %s\n", "tp_btf", yes_no(f.tp_btf),
	       f.tp_btf ? "tp_btf probes" : "classic tracepoints");
	printf("%-28s %-4s %s\n", "fentry/fexit", yes_no(f.fentry), "not needed");
	printf("%-28s %-4s %s\n", "freplace (libxdp dispatcher)", yes_no(f.freplace),
	       f.freplace ? "XDP through libxdp's dispatcher" : "XDP as a single program");
	printf("%-28s %-4s %s\n", "kprobes", yes_no(f.kprobes), "never used");
	printf("%-28s %-4s %s\n", "XDP metadata kfuncs", yes_no(f.xdp_metadata_kfuncs),
	       "not used yet (per driver)");
	printf("%-28s %-4s %s\n", "bpf_stats", yes_no(f.bpf_stats_available),
	       f.bpf_stats_enabled ? "enabled: program run time is reported"
				   : "off (sysctl kernel.bpf_stats_enabled=1 to measure cost)");
	if (getenv("PATHSCOPE_FORCE_FALLBACK"))
		printf("(PATHSCOPE_FORCE_FALLBACK=%s: those capabilities read \"no\")\n",
		       getenv("PATHSCOPE_FORCE_FALLBACK"));
	return 0;
}
