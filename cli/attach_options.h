/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* The options of attach, which serve takes too (cli/attach_options.c): one table,
 * one parser, so that the two cannot drift. */
#ifndef PATHSCOPE_CLI_ATTACH_OPTIONS_H
#define PATHSCOPE_CLI_ATTACH_OPTIONS_H

#include "cli/options.h"
#include "loader/attach.h"

/* Their keys (serve's own come after them): */
enum {
	PS_ATTACH_XDP_MODE = PS_OPT_LONG,
	PS_ATTACH_TC_MODE,
	PS_ATTACH_TC_PRIO,
	PS_ATTACH_SAMPLE,
	PS_ATTACH_PEER_PREFIX,
	PS_ATTACH_TCP_RX,
	PS_ATTACH_FLOW_SAMPLE,
	PS_ATTACH_SOFTIRQ_SAMPLE,
	PS_ATTACH_PROBE_MODE,
	PS_ATTACH_NO_XDP,
	PS_ATTACH_NO_TC,
	PS_ATTACH_XDP_CHAIN,
	PS_ATTACH_XDP_JOIN,
	PS_ATTACH_KEYS_END /* serve's own keys start here */
};
extern const struct ps_opt ps_attach_opts[];
#define PS_ATTACH_OPTS_COL 25

/* Option c of ps_attach_opts with its value arg into o: 0; 2 after one line
 * on stderr for a bad value; 1 when c is not one of them. */
int ps_attach_opt(int c, const char *arg, struct ps_attach_opts *o);
/* What the options say together, checked before anything is touched (the
 * queue list's form, --xdp-join's form, the combinations): 0, or 2 after one
 * line on stderr naming cmd. */
int ps_attach_opts_check(const char *cmd, const struct ps_attach_opts *o);

#endif /* PATHSCOPE_CLI_ATTACH_OPTIONS_H */
