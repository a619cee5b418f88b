/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* What this kernel supports (feature probes), for attach and `pathscope features`. */
#ifndef PATHSCOPE_FEATURES_H
#define PATHSCOPE_FEATURES_H

#include <stdbool.h>

struct ps_features {
	bool btf;
	bool tcx;
	bool tp_btf;
	bool fentry;
	bool freplace;
	bool kprobes;
	bool xdp_metadata_kfuncs;
	bool bpf_stats_available;
	bool bpf_stats_enabled;
	bool bpffs;
};

void ps_features_probe(struct ps_features *f);

/* Can this kernel load tp_btf programs? (One probe of ps_features_probe.) */
bool ps_tp_btf_supported(void);

#endif /* PATHSCOPE_FEATURES_H */
