/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* `pathscope features`: what this kernel supports and what pathscope uses. */
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
int ps_cmd_features(int argc, char **argv);

#endif /* PATHSCOPE_FEATURES_H */
