// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* pathscope features' report: what the kernel has, what pathscope uses of it. */
#include "stats/render/features_report.h"

#include <stdlib.h>

#include "stats/format/json.h"

static void add_bool(json_object *o, const char *key, bool v)
{
	json_object_object_add(o, key, json_object_new_boolean(v));
}

static void add_str(json_object *o, const char *key, const char *v)
{
	json_object_object_add(o, key, json_object_new_string(v));
}

void ps_features_json(FILE *out, const struct ps_features *f)
{
	json_object *o = json_object_new_object(), *uses = json_object_new_object();

	add_str(o, "release", f->release);
	add_bool(o, "btf", f->btf);
	add_bool(o, "bpffs", f->bpffs);
	add_bool(o, "tcx", f->tcx);
	add_bool(o, "tp_btf", f->tp_btf);
	add_bool(o, "fentry", f->fentry);
	add_bool(o, "freplace", f->freplace);
	add_bool(o, "dispatcher", f->dispatcher);
	add_bool(o, "kprobes", f->kprobes);
	add_bool(o, "xdp_metadata_kfuncs", f->xdp_metadata_kfuncs);
	add_bool(o, "xdp_rx_hash", f->xdp_rx_hash);
	add_bool(o, "kern_ctx", f->kern_ctx);
	add_bool(o, "sock_tracepoints", f->sock_tracepoints);
	add_bool(o, "drop_reason", f->drop_reason);
	add_bool(o, "bpf_stats_available", f->bpf_stats_available);
	add_bool(o, "bpf_stats_enabled", f->bpf_stats_enabled);
	add_str(uses, "tc", f->tcx ? "tcx" : "clsact");
	add_str(uses, "xdp", f->dispatcher ? "libxdp-dispatcher" : "single-program");
	add_str(uses, "tracepoints", f->tp_btf ? "tp_btf" : "tracepoint");
	add_str(uses, "tx_queue", f->kern_ctx ? "kern-ctx" : "probe-read");
	add_bool(uses, "sock", f->kern_ctx && f->sock_tracepoints);
	/* flows: the RX hash type, with XDP alone on the interface */
	add_bool(uses, "rx_hash", f->xdp_rx_hash && !f->dispatcher);
	json_object_object_add(o, "uses", uses);
	ps_json_print(out, o);
	json_object_put(o);
}

static void row(FILE *out, const char *capability, bool here, const char *uses)
{
	fprintf(out, "%-30s %-4s %s\n", capability, here ? "yes" : "no", uses);
}

void ps_features_table(FILE *out, const struct ps_features *f)
{
	fprintf(out, "kernel %s\n", f->release);
	fprintf(out, "%-30s %-4s %s\n", "CAPABILITY", "HERE", "PATHSCOPE USES");
	row(out, "kernel BTF", f->btf, f->btf ? "CO-RE" : "nothing works without it");
	row(out, "bpffs at /sys/fs/bpf", f->bpffs,
	    f->bpffs ? "pins under /sys/fs/bpf/pathscope" : "mounts one at attach");
	row(out, "TCX links (6.6)", f->tcx,
	    f->tcx ? "tc via TCX links" : "tc via clsact + cls_bpf");
	row(out, "tp_btf (5.5)", f->tp_btf, f->tp_btf ? "tp_btf probes" : "classic tracepoints");
	row(out, "freplace (5.6)", f->freplace,
	    f->dispatcher ? "XDP through libxdp's dispatcher"
	    : f->freplace ? "XDP as a single program (pathscope's cannot be an extension)"
			  : "XDP as a single program");
	row(out, "bpf_cast_to_kern_ctx (6.2)", f->kern_ctx,
	    f->kern_ctx ? "tc egress: TX queue in one load" : "tc egress: TX queue by probe read");
	row(out, "sock tracepoints (6.3)", f->sock_tracepoints && f->kern_ctx,
	    f->sock_tracepoints && f->kern_ctx ? "feature sock" : "feature sock left out");
	row(out, "kfree_skb drop reason (5.17)", f->drop_reason,
	    f->drop_reason ? "drops by reason" : "drops without a reason");
	row(out, "fentry/fexit", f->fentry, "not needed");
	row(out, "kprobes", f->kprobes, "never used");
	row(out, "XDP metadata kfuncs", f->xdp_metadata_kfuncs, "see the RX hash");
	row(out, "bpf_xdp_metadata_rx_hash (6.3)", f->xdp_rx_hash,
	    !f->xdp_rx_hash ? "flows without the RX hash type"
	    : f->dispatcher ? "not used: XDP goes through libxdp's dispatcher"
			    : "flows: the RX hash type (device-bound XDP, alone)");
	row(out, "bpf_stats", f->bpf_stats_available,
	    f->bpf_stats_enabled ? "enabled: program run time is reported"
				 : "off (sysctl kernel.bpf_stats_enabled=1 to measure cost)");
	if (getenv("PATHSCOPE_FORCE_FALLBACK"))
		fprintf(out, "(PATHSCOPE_FORCE_FALLBACK=%s: those capabilities read \"no\")\n",
			getenv("PATHSCOPE_FORCE_FALLBACK"));
}
