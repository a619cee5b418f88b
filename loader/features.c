// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Feature probes: each asks the kernel directly, by loading a two-instruction
 * program of the kind in question (never attached), a query, or a file. */
#include "loader/features.h"

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <linux/bpf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "lib/compat.h"
#include "lib/names.h"
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

/* The BTF of int NAME(struct xdp_md *ctx), global, added to btf; its id. */
static int add_xdp_func(struct btf *btf, const char *name)
{
	int int_id = btf__add_int(btf, "int", 4, BTF_INT_SIGNED);
	int ctx_id = btf__add_struct(btf, "xdp_md", 0);
	int ptr_id = btf__add_ptr(btf, ctx_id);
	int proto_id = btf__add_func_proto(btf, int_id);

	if (int_id < 0 || ctx_id < 0 || ptr_id < 0 || proto_id < 0 ||
	    btf__add_func_param(btf, "ctx", ptr_id))
		return -1;
	return btf__add_func(btf, name, BTF_FUNC_GLOBAL, proto_id);
}

/* freplace (what libxdp's dispatcher needs): an extension program that
 * replaces a BTF-described global function of a loaded XDP program; both
 * carry the function's BTF, whose prototypes the kernel compares. With
 * subprog, the extension also calls a global function of its own that
 * takes the context, as pathscope's XDP program does: Linux 5.10's verifier
 * refuses that ("Unrecognized arg#0 type PTR": it takes the context for the
 * extension's, not the XDP program's), 6.1's accepts it. */
static bool probe_freplace(bool subprog)
{
	/* main: call sub; exit.  sub: r0 = XDP_PASS; exit. */
	static const struct bpf_insn calls_sub[] = {
		{ .code = BPF_JMP | BPF_CALL, .src_reg = BPF_PSEUDO_CALL, .imm = 1 },
		{ .code = BPF_JMP | BPF_EXIT },
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = 2 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	struct btf *btf = btf__new_empty();
	LIBBPF_OPTS(bpf_prog_load_opts, xopts);
	LIBBPF_OPTS(bpf_prog_load_opts, eopts);
	struct bpf_func_info finfo[2] = {};
	int main_id, sub_id, target = -1, fd;
	bool ok = false;

	if (!btf)
		return false;
	main_id = add_xdp_func(btf, "pathscope_probe");
	sub_id = add_xdp_func(btf, "pathscope_probe_sub");
	if (main_id < 0 || sub_id < 0 || btf__load_into_kernel(btf))
		goto out;
	finfo[0].type_id = main_id;
	finfo[1].insn_off = 2;
	finfo[1].type_id = sub_id;
	xopts.prog_btf_fd = btf__fd(btf);
	xopts.func_info = finfo;
	xopts.func_info_rec_size = sizeof(finfo[0]);
	xopts.func_info_cnt = 1;
	target = bpf_prog_load(BPF_PROG_TYPE_XDP, "ps_probe", "GPL", ret_pass, 2, &xopts);
	if (target < 0)
		goto out;
	eopts.prog_btf_fd = btf__fd(btf);
	eopts.func_info = finfo;
	eopts.func_info_rec_size = sizeof(finfo[0]);
	eopts.func_info_cnt = subprog ? 2 : 1;
	eopts.attach_prog_fd = target;
	eopts.attach_btf_id = main_id;
	fd = bpf_prog_load(BPF_PROG_TYPE_EXT, NULL, "GPL", subprog ? calls_sub : ret_pass,
			   subprog ? 4 : 2, &eopts);
	ok = fd >= 0;
	if (ok)
		close(fd);
out:
	if (target >= 0)
		close(target);
	btf__free(btf);
	return ok;
}

bool ps_dispatcher_takes_pathscope(void)
{
	return !ps_fallback_forced("dispatcher") && probe_freplace(true);
}

/* Does the struct name of the kernel's BTF have a member member? */
static bool btf_has_member(const struct btf *vmlinux, const char *name, const char *member)
{
	int id = btf__find_by_name_kind(vmlinux, name, BTF_KIND_STRUCT);
	const struct btf_type *t = id > 0 ? btf__type_by_id(vmlinux, id) : NULL;
	const struct btf_member *mb;
	int i;

	if (!t)
		return false;
	mb = btf_members(t);
	for (i = 0; i < btf_vlen(t); i++, mb++)
		if (strcmp(btf__name_by_offset(vmlinux, mb->name_off), member) == 0)
			return true;
	return false;
}

/* The kfunc bpf_xdp_metadata_rx_hash with three arguments (context, hash,
 * hash type): Linux 6.3 (6.3's release candidates had two). A kfunc is in
 * the kernel's BTF as a function. */
static bool rx_hash_kfunc(const struct btf *vmlinux)
{
	int id = btf__find_by_name_kind(vmlinux, "bpf_xdp_metadata_rx_hash", BTF_KIND_FUNC);
	const struct btf_type *t = id > 0 ? btf__type_by_id(vmlinux, id) : NULL;

	t = t ? btf__type_by_id(vmlinux, t->type) : NULL;
	return t && btf_is_func_proto(t) && btf_vlen(t) == 3;
}

/* The capabilities read from the kernel's BTF. */
static void probe_btf(struct ps_features *f, const struct btf *vmlinux)
{
	f->kern_ctx = !ps_fallback_forced("kern_ctx") &&
		      btf__find_by_name_kind(vmlinux, "bpf_cast_to_kern_ctx", BTF_KIND_FUNC) > 0;
	/* Each tracepoint has its record type, for classic tracepoint
	 * programs, and its btf_trace_ typedef, for tp_btf ones. */
	f->sock_tracepoints =
	    btf__find_by_name_kind(vmlinux, "trace_event_raw_sk_data_ready", BTF_KIND_STRUCT) > 0 &&
	    btf__find_by_name_kind(vmlinux, "trace_event_raw_sock_msg_length", BTF_KIND_STRUCT) >
		0 &&
	    btf__find_by_name_kind(vmlinux, "btf_trace_sock_recv_length", BTF_KIND_TYPEDEF) > 0;
	f->drop_reason = btf_has_member(vmlinux, "trace_event_raw_kfree_skb", "reason");
	f->xdp_metadata_kfuncs =
	    btf__find_by_name_kind(vmlinux, "bpf_xdp_metadata_rx_timestamp", BTF_KIND_FUNC) > 0;
	f->xdp_rx_hash = !ps_fallback_forced("rx_hash") && rx_hash_kfunc(vmlinux);
}

bool ps_xdp_rx_hash_supported(void)
{
	struct btf *vmlinux = btf__load_vmlinux_btf();
	struct ps_features f = {};

	if (libbpf_get_error(vmlinux) || !vmlinux)
		return false;
	probe_btf(&f, vmlinux);
	btf__free(vmlinux);
	return f.xdp_rx_hash;
}

bool ps_kern_ctx_supported(void)
{
	struct btf *vmlinux = btf__load_vmlinux_btf();
	struct ps_features f = {};

	if (libbpf_get_error(vmlinux) || !vmlinux)
		return false;
	probe_btf(&f, vmlinux);
	btf__free(vmlinux);
	return f.kern_ctx;
}

/* What a feature needs of the kernel beyond what every supported one has. */
struct feature_need {
	__u32 feature;
	const char *missing; /* what the kernel lacks */
	const char *since;   /* the first Linux release that has it */
	bool (*have)(const struct ps_features *f);
};

static bool have_kern_ctx(const struct ps_features *f)
{
	return f->kern_ctx;
}

static bool have_sock_tracepoints(const struct ps_features *f)
{
	return f->sock_tracepoints;
}

static const struct feature_need needs[] = {
	{ PS_F_SOCK, "the tracepoints sock:sk_data_ready and sock:sock_recv_length", "6.3",
	  have_sock_tracepoints },
	{ PS_F_SOCK, "the kfunc bpf_cast_to_kern_ctx", "6.2", have_kern_ctx },
};

__u32 ps_features_supported(__u32 features)
{
	struct ps_features f = {};
	struct btf *vmlinux;
	struct utsname u;
	char name[16];
	size_t i;

	vmlinux = btf__load_vmlinux_btf();
	if (libbpf_get_error(vmlinux) || !vmlinux)
		return features; /* attach refuses a kernel without BTF anyway */
	probe_btf(&f, vmlinux);
	btf__free(vmlinux);
	if (uname(&u))
		snprintf(u.release, sizeof(u.release), "unknown");
	for (i = 0; i < sizeof(needs) / sizeof(needs[0]); i++) {
		if (!(features & needs[i].feature) || needs[i].have(&f))
			continue;
		ps_features_format(needs[i].feature, name, sizeof(name));
		fprintf(stderr,
			"pathscope: feature %s left out: it needs %s (Linux %s), which this "
			"kernel (%s) lacks\n",
			name, needs[i].missing, needs[i].since, u.release);
		features &= ~needs[i].feature;
	}
	return features;
}

bool ps_perf_link_supported(void)
{
	int fd = bpf_prog_load(BPF_PROG_TYPE_TRACEPOINT, NULL, "GPL", ret0, 2, NULL);
	bool ok;

	if (fd < 0)
		return false;
	/* No perf event behind -1: EBADF where the attach type exists, EINVAL
	 * (unknown attach type) before 5.15. */
	ok = bpf_link_create(fd, -1, BPF_PERF_EVENT, NULL) < 0 && errno == EBADF;
	close(fd);
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
	struct utsname u;
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
	f->freplace = !ps_fallback_forced("dispatcher") && probe_freplace(false);
	f->dispatcher = f->freplace && ps_dispatcher_takes_pathscope();
	if (uname(&u) == 0)
		snprintf(f->release, sizeof(f->release), "%s", u.release);

	vmlinux = f->btf ? btf__load_vmlinux_btf() : NULL;
	if (!libbpf_get_error(vmlinux) && vmlinux) {
		f->tp_btf = !ps_fallback_forced("tp_btf") &&
			    probe_tracing(vmlinux, "btf_trace_net_dev_queue", BTF_KIND_TYPEDEF,
					  BPF_TRACE_RAW_TP);
		f->fentry =
		    probe_tracing(vmlinux, "netif_receive_skb", BTF_KIND_FUNC, BPF_TRACE_FENTRY);
		probe_btf(f, vmlinux);
		btf__free(vmlinux);
	}
}
