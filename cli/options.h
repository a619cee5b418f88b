/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * What every command shares: its --help text, option parsing with one-line
 * errors, and the parsers of option values that several commands take.
 * Exit statuses: 0 ok, 1 error, 2 usage error.
 */
#ifndef PATHSCOPE_CLI_OPTIONS_H
#define PATHSCOPE_CLI_OPTIONS_H

#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>

#include "loader/attach.h"

/* One command: its name, its --help text (stdout) and its options; every
 * command takes --help and -h besides. */
struct ps_cmd {
	const char *name;
	const char *help;
	const char *shortopts; /* getopt's optstring, without 'h' */
	const struct option *opts;
};

#define PS_OPT_END  (-1)
#define PS_OPT_EXIT (-2)

/* The next option of argv (argv[0] is the command's name): its val, or
 * PS_OPT_END when none is left, or PS_OPT_EXIT when the command must end
 * with *rc: 0 after --help, 2 after one line on stderr for an unknown option
 * or a missing value. */
int ps_cmd_opt(const struct ps_cmd *c, int argc, char **argv, int *rc);

/* Exactly one operand (an interface name) left after the options: 0, or 2
 * after one line on stderr. */
int ps_cmd_one_iface(const struct ps_cmd *c, int argc, char **argv, const char **ifname);
/* No operand left: 0, or 2 after one line on stderr. */
int ps_cmd_no_operand(const struct ps_cmd *c, int argc, char **argv);

/* The one-line errors for an interface that is not attached, and one that
 * does not exist, in one wording for every command: return 1. */
int ps_cmd_not_attached(const char *ifname);
int ps_cmd_unknown_iface(const char *ifname);

/* --probe-mode tp_btf|tracepoint: 0, or 2 after one line on stderr. */
int ps_opt_probe_mode(const char *arg, enum ps_probe_request *out);
/* --NAME S, seconds (0 < S <= 86400), as --interval and --duration take
 * them: 0, or 2 after one line on stderr. */
int ps_opt_seconds(const char *name, const char *arg, double *out);
/* --count N, a positive integer up to 2^32 - 1: 0, or 2 after one line on
 * stderr. */
int ps_opt_count(const char *arg, uint64_t *out);

/* The options of attach, which serve takes too (cli/attach_options.c): one
 * table, one parser, one help text, so that the two cannot drift. */
/* clang-format off */
#define PS_ATTACH_OPTIONS \
	{ "queues", required_argument, NULL, 'q' }, \
	{ "features", required_argument, NULL, 'f' }, \
	{ "xdp-mode", required_argument, NULL, 'x' }, \
	{ "tc-mode", required_argument, NULL, 't' }, \
	{ "tc-prio", required_argument, NULL, 'p' }, \
	{ "no-xdp", no_argument, NULL, 'X' }, \
	{ "no-tc", no_argument, NULL, 'T' }, \
	{ "probe-mode", required_argument, NULL, 'P' }, \
	{ "sample", required_argument, NULL, 'S' }, \
	{ "xdp-chain", no_argument, NULL, 'C' }, \
	{ "xdp-join", required_argument, NULL, 'J' }, \
	{ "peer-prefix", required_argument, NULL, 'R' }, \
	{ "tcp-rx", required_argument, NULL, 'H' }, \
	{ "flow-sample", required_argument, NULL, 'F' }
/* clang-format on */
extern const char ps_attach_options_help[];

/* Option c of the table above with its value arg into o: 0; 2 after one line
 * on stderr for a bad value; 1 when c is not one of them. */
int ps_attach_opt(int c, const char *arg, struct ps_attach_opts *o);
/* What the options say together, checked before anything is touched (the
 * queue list's form, --xdp-join's form, the combinations): 0, or 2 after one
 * line on stderr naming cmd. */
int ps_attach_opts_check(const char *cmd, const struct ps_attach_opts *o);

/* The commands (cli/<name>.c); argv[0] is the command's name. */
int ps_cmd_attach(int argc, char **argv);
int ps_cmd_detach(int argc, char **argv);
int ps_cmd_status(int argc, char **argv);
int ps_cmd_stats(int argc, char **argv);
int ps_cmd_check(int argc, char **argv);
int ps_cmd_heatmap(int argc, char **argv);
int ps_cmd_nic(int argc, char **argv);
int ps_cmd_flows(int argc, char **argv);
int ps_cmd_serve(int argc, char **argv);
int ps_cmd_features(int argc, char **argv);

#endif /* PATHSCOPE_CLI_OPTIONS_H */
