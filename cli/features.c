// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* `pathscope features`: what this kernel supports and what pathscope uses
 * (loader/features.c probes it). */
#include <stdio.h>
#include <stdlib.h>

#include "cli/options.h"
#include "lib/util.h"
#include "loader/features.h"

static const char *tf(bool b)
{
	return b ? "true" : "false";
}

static void row(const char *capability, bool here, const char *uses)
{
	printf("%-30s %-4s %s\n", capability, here ? "yes" : "no", uses);
}

static const char features_help[] =
    "usage: pathscope features [--json]\n"
    "Probe what this kernel supports (loads tiny programs, attaches nothing) and\n"
    "say what pathscope will use.\n"
    "  -j, --json   one JSON object\n";

int ps_cmd_features(int argc, char **argv)
{
	static const struct option opts[] = { { "json", no_argument, NULL, 'j' }, {} };
	static const struct ps_cmd cmd = { "features", features_help, "j", opts };
	struct ps_features f;
	bool json = false;
	int c, rc;

	while ((c = ps_cmd_opt(&cmd, argc, argv, &rc)) != PS_OPT_END) {
		if (c == PS_OPT_EXIT)
			return rc;
		json = true; /* 'j' */
	}
	if (ps_cmd_no_operand(&cmd, argc, argv))
		return 2;
	if (ps_require_privileges())
		return 1;
	ps_features_probe(&f);

	if (json) {
		printf("{\"release\":\"%s\",\"btf\":%s,\"bpffs\":%s,\"tcx\":%s,\"tp_btf\":%s,"
		       "\"fentry\":%s,\"freplace\":%s,\"dispatcher\":%s,\"kprobes\":%s,\"xdp_"
		       "metadata_kfuncs\":%s,"
		       "\"kern_ctx\":%s,\"sock_tracepoints\":%s,\"drop_reason\":%s,"
		       "\"bpf_stats_available\":%s,\"bpf_stats_enabled\":%s,"
		       "\"uses\":{\"tc\":\"%s\",\"xdp\":\"%s\",\"tracepoints\":\"%s\","
		       "\"tx_queue\":\"%s\",\"sock\":%s}}\n",
		       f.release, tf(f.btf), tf(f.bpffs), tf(f.tcx), tf(f.tp_btf), tf(f.fentry),
		       tf(f.freplace), tf(f.dispatcher), tf(f.kprobes), tf(f.xdp_metadata_kfuncs),
		       tf(f.kern_ctx), tf(f.sock_tracepoints), tf(f.drop_reason),
		       tf(f.bpf_stats_available), tf(f.bpf_stats_enabled), f.tcx ? "tcx" : "clsact",
		       f.dispatcher ? "libxdp-dispatcher" : "single-program",
		       f.tp_btf ? "tp_btf" : "tracepoint", f.kern_ctx ? "kern-ctx" : "probe-read",
		       tf(f.kern_ctx && f.sock_tracepoints));
		return 0;
	}
	printf("kernel %s\n", f.release);
	printf("%-30s %-4s %s\n", "CAPABILITY", "HERE", "PATHSCOPE USES");
	row("kernel BTF", f.btf, f.btf ? "CO-RE" : "nothing works without it");
	row("bpffs at /sys/fs/bpf", f.bpffs,
	    f.bpffs ? "pins under /sys/fs/bpf/pathscope" : "mounts one at attach");
	row("TCX links (6.6)", f.tcx, f.tcx ? "tc via TCX links" : "tc via clsact + cls_bpf");
	row("tp_btf (5.5)", f.tp_btf, f.tp_btf ? "tp_btf probes" : "classic tracepoints");
	row("freplace (5.6)", f.freplace,
	    f.dispatcher ? "XDP through libxdp's dispatcher"
	    : f.freplace ? "XDP as a single program (pathscope's cannot be an extension)"
			 : "XDP as a single program");
	row("bpf_cast_to_kern_ctx (6.2)", f.kern_ctx,
	    f.kern_ctx ? "tc egress: TX queue in one load" : "tc egress: TX queue by probe read");
	row("sock tracepoints (6.3)", f.sock_tracepoints && f.kern_ctx,
	    f.sock_tracepoints && f.kern_ctx ? "feature sock" : "feature sock left out");
	row("kfree_skb drop reason (5.17)", f.drop_reason,
	    f.drop_reason ? "drops by reason" : "drops without a reason");
	row("fentry/fexit", f.fentry, "not needed");
	row("kprobes", f.kprobes, "never used");
	row("XDP metadata kfuncs", f.xdp_metadata_kfuncs, "not used yet (per driver)");
	row("bpf_stats", f.bpf_stats_available,
	    f.bpf_stats_enabled ? "enabled: program run time is reported"
				: "off (sysctl kernel.bpf_stats_enabled=1 to measure cost)");
	if (getenv("PATHSCOPE_FORCE_FALLBACK"))
		printf("(PATHSCOPE_FORCE_FALLBACK=%s: those capabilities read \"no\")\n",
		       getenv("PATHSCOPE_FORCE_FALLBACK"));
	return 0;
}
