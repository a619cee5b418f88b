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
	v = ps_read_int_file("/proc/sys/kernel/bpf_stats_enabled");
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
