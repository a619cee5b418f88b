/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* What every command shares: its options, each declared once with its help,
 * one-line usage errors, and the parsers of option values that several commands
 * take. Exit statuses: 0 ok, 1 error, 2 usage error. */
#ifndef PATHSCOPE_CLI_OPTIONS_H
#define PATHSCOPE_CLI_OPTIONS_H

#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "loader/attach.h"

/* One option, declared once: getopt's table and its line in --help both come
 * from it. key is what ps_opt_next returns for it: a letter is also the short
 * option -letter; keys from PS_OPT_LONG up have only the long one. help is
 * its lines in --help ('\n' between them); NULL: the command's text says it
 * (not listed); "": listed on the line of the option before it
 * ("--no-xdp, --no-tc"). Key PS_OPT_TAKEN: listed in --help only, not
 * getopt's (nor any abbreviation of it): the command takes it out of argv
 * before ps_opt_next (flows' --flow and its five values). */
struct ps_opt {
	const char *name; /* --name */
	int key;
	const char *arg; /* the value's name in --help ("S", "LIST"); NULL: none */
	const char *help;
};
#define PS_OPT_LONG  0x100
#define PS_OPT_TAKEN (-3)

/* Options listed together in --help, their help starting at column col. A
 * label too long for the column puts its help on the next line at col, or,
 * when the help starts with spaces, after them on the label's line. */
struct ps_opt_group {
	const char *title;	   /* a line before them, or NULL */
	const struct ps_opt *opts; /* ends with an entry without name */
	int col;
};

/* A command's command line: --help is about, then each group of options,
 * then examples; -h and --help are every command's. The command's name is
 * argv[0] (what main dispatched). */
struct ps_command {
	const char *about; /* the usage line(s) and what the command does */
	struct ps_opt_group groups[2];
	const char *examples; /* or NULL */
};

#define PS_OPT_END  (-1)
#define PS_OPT_EXIT (-2)

/* The next option of argv (argv[0] is the command's name): its key, or
 * PS_OPT_END when none is left, or PS_OPT_EXIT when the command must end
 * with *rc: 0 after --help, 2 after one line on stderr for an unknown option
 * or a missing value. */
int ps_opt_next(const struct ps_command *c, int argc, char **argv, int *rc);
/* The command's --help. */
void ps_command_help(FILE *out, const struct ps_command *c);
/* The lines of opts in --help, their help at column col. */
void ps_opts_help(FILE *out, const struct ps_opt *opts, int col);

/* Exactly one operand (an interface name) left after the options: 0, or 2
 * after one line on stderr. */
int ps_operand_iface(int argc, char **argv, const char **ifname);
/* No operand left: 0, or 2 after one line on stderr. */
int ps_operand_none(int argc, char **argv);

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

#endif /* PATHSCOPE_CLI_OPTIONS_H */
