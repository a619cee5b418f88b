/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Names of the ABI's ids, as they appear in tables, JSON and --features. */
#ifndef PATHSCOPE_LIB_NAMES_H
#define PATHSCOPE_LIB_NAMES_H

#include <stddef.h>
#include <linux/types.h>

#include "pathscope/meta.h"

extern const char *const ps_l3_names[PS_L3_COUNT];
extern const char *const ps_l4_names[PS_L4_COUNT];
extern const char *const ps_err_names[PS_ERR_COUNT];
extern const char *const ps_ecn_names[PS_ECN_COUNT];
extern const char *const ps_ipver_names[PS_IPVER_COUNT];
extern const char *const ps_hook_names[PS_HOOK_COUNT];
extern const char *const ps_hook_dirs[PS_HOOK_COUNT];

/* Parse a --features list (names, default, all, none, comma-separated) into
 * feature bits; -1 after one line on stderr for an unknown name. */
int ps_features_parse(const char *list, __u32 *out);

const char *ps_xdp_mode_name(__u32 mode);
const char *ps_tc_mode_name(__u32 mode);
/* How the tracepoint probes are attached: "none", "tp_btf" or "tracepoint". */
const char *ps_probe_mode_name(const struct ps_meta *m);

/* "class,ecn,sizes,gro" or "none". */
void ps_features_format(__u32 features, char *buf, size_t len);

#endif /* PATHSCOPE_LIB_NAMES_H */
