// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* `pathscope features`: what this kernel supports and what pathscope uses
 * (loader/features.c probes it). */
#include <stdio.h>
#include <stdlib.h>

#include "cli/options.h"
#include "lib/util.h"
#include "loader/features.h"

static const char *yes_no(bool b)
{
	return b ? "yes" : "no";
}

static const char features_help[] =
    "usage: pathscope features [--json]\n"
    "Probe what this kernel supports (loads tiny programs, attaches nothing) and\n"
    "say what pathscope will use.\n";

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
