// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Options declared once (options.h): getopt's tables and --help from one list. */
#include "cli/options.h"

#include <assert.h>
#include <ctype.h>
#include <net/if_arp.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "lib/util.h"
#include "loader/iface.h"

#define MAX_OPTS 48

/* Key k is none of the n options' in all, nor one getopt or --help uses. */
static bool key_free(const struct option *all, size_t n, int k)
{
	size_t i;

	if (k <= 0 || k == 'h' || k == '?' || k == ':' || (k < PS_OPT_LONG && !isalnum(k)))
		return false;
	for (i = 0; i < n; i++)
		if (all[i].val == k)
			return false;
	return true;
}

/* getopt's tables from c's groups, plus "help". */
static void getopt_tables(const struct ps_command *c, struct option *all, char *shortopts)
{
	const struct ps_opt *o;
	size_t g, n = 0, s = 0;

	shortopts[s++] = ':'; /* ':' for a missing value, not '?' */
	for (g = 0; g < sizeof(c->groups) / sizeof(c->groups[0]); g++) {
		for (o = c->groups[g].opts; o && o->name; o++) {
			if (o->key == PS_OPT_TAKEN)
				continue; /* the command's own, out of argv */
			/* A mistake in a table: the first run (--help) shows it. */
			assert(n + 2 < MAX_OPTS && key_free(all, n, o->key));
			all[n++] =
			    (struct option){ o->name, o->arg ? required_argument : no_argument,
					     NULL, o->key };
			if (o->key < PS_OPT_LONG) {
				shortopts[s++] = (char)o->key;
				if (o->arg)
					shortopts[s++] = ':';
			}
		}
	}
	all[n++] = (struct option){ "help", no_argument, NULL, 'h' };
	all[n] = (struct option){};
	shortopts[s++] = 'h';
	shortopts[s] = '\0';
}

int ps_opt_next(const struct ps_command *c, int argc, char **argv, int *rc)
{
	struct option all[MAX_OPTS];
	char shortopts[2 * MAX_OPTS + 2];
	int ch;

	/* Rebuilt per call: getopt keeps its state in optind, not in the table. */
	getopt_tables(c, all, shortopts);
	opterr = 0; /* one line of our own instead of getopt's */
	ch = getopt_long(argc, argv, shortopts, all, NULL);
	switch (ch) {
	case -1:
		return PS_OPT_END;
	case 'h':
		ps_command_help(stdout, c);
		*rc = 0;
		return PS_OPT_EXIT;
	case ':':
		ps_error("%s: %s needs a value (see 'pathscope %s --help')", argv[0],
			 argv[optind - 1], argv[0]);
		*rc = 2;
		return PS_OPT_EXIT;
	case '?':
		ps_error("%s: unknown option '%s' (see 'pathscope %s --help')", argv[0],
			 argv[optind - 1], argv[0]);
		*rc = 2;
		return PS_OPT_EXIT;
	}
	return ch;
}

/* printf onto buf's n characters, cut at its size. */
__attribute__((format(printf, 4, 5))) static void add(char *buf, size_t size, size_t *n,
						      const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	*n += (size_t)vsnprintf(buf + *n, size - *n, fmt, ap);
	va_end(ap);
	if (*n >= size)
		*n = size - 1;
}

/* "  -i, --interval S" and the names of the options joined to it: the last
 * of them. */
static const struct ps_opt *label(char *buf, size_t size, const struct ps_opt *o)
{
	size_t n = 0;

	add(buf, size, &n, "  ");
	for (;;) {
		if (o->key > 0 && o->key < PS_OPT_LONG)
			add(buf, size, &n, "-%c, ", o->key);
		add(buf, size, &n, "--%s%s%s", o->name, o->arg ? " " : "", o->arg ? o->arg : "");
		if (!o[1].name || !o[1].help || o[1].help[0])
			return o;
		o++;
		add(buf, size, &n, ", ");
	}
}

void ps_opts_help(FILE *out, const struct ps_opt *opts, int col)
{
	const struct ps_opt *o;
	const char *help, *line, *nl;
	char lbl[160];
	int len;

	for (o = opts; o->name; o++) {
		if (!o->help || !o->help[0])
			continue; /* not listed, or listed with the one before */
		help = o->help;
		o = label(lbl, sizeof(lbl), o);
		line = help;
		len = (int)strlen(lbl);
		if (len + 2 <= col)
			fprintf(out, "%-*s", col, lbl);
		else if (line[0] == ' ')
			fputs(lbl, out);
		else
			fprintf(out, "%s\n%*s", lbl, col, "");
		for (;; line = nl + 1) {
			nl = strchr(line, '\n');
			if (line != help)
				fprintf(out, "%*s", col, "");
			fprintf(out, "%.*s\n", nl ? (int)(nl - line) : (int)strlen(line), line);
			if (!nl || !nl[1])
				break;
		}
	}
}

void ps_command_help(FILE *out, const struct ps_command *c)
{
	size_t g;

	fputs(c->about, out);
	for (g = 0; g < sizeof(c->groups) / sizeof(c->groups[0]); g++) {
		if (c->groups[g].title)
			fputs(c->groups[g].title, out);
		if (c->groups[g].opts)
			ps_opts_help(out, c->groups[g].opts, c->groups[g].col);
	}
	if (c->examples)
		fputs(c->examples, out);
}

int ps_operand_iface(int argc, char **argv, const char **ifname)
{
	if (optind != argc - 1)
		return ps_error("%s: expected one interface name (see 'pathscope %s --help')",
				argv[0], argv[0]),
		       2;
	*ifname = argv[optind];
	return 0;
}

int ps_operand_none(int argc, char **argv)
{
	if (optind < argc)
		return ps_error("%s: unexpected argument '%s'", argv[0], argv[optind]), 2;
	return 0;
}

int ps_opt_probe_mode(const char *arg, enum ps_probe_request *out)
{
	if (strcmp(arg, "tp_btf") == 0)
		*out = PS_PROBE_REQ_TP_BTF;
	else if (strcmp(arg, "tracepoint") == 0)
		*out = PS_PROBE_REQ_TRACEPOINT;
	else
		return ps_error("bad --probe-mode '%s' (tp_btf or tracepoint)", arg), 2;
	return 0;
}

int ps_opt_seconds(const char *name, const char *arg, double *out)
{
	if (!ps_parse_seconds(arg, out))
		return ps_error("bad --%s '%s' (seconds, 0 < S <= 86400)", name, arg), 2;
	return 0;
}

int ps_opt_count(const char *arg, uint64_t *out)
{
	if (!ps_parse_u64(arg, UINT32_MAX, out) || !*out)
		return ps_error("bad --count '%s' (a positive integer)", arg), 2;
	return 0;
}

int ps_cmd_not_attached(const char *ifname)
{
	struct ps_iface ifc;

	/* Suggest attach only where attach would work. */
	if (ps_iface_get(ifname, 0, &ifc) == 0 && ifc.type != ARPHRD_ETHER)
		return ps_error("'%s' is not attached (nor can it be: it has no Ethernet framing)",
				ifname),
		       1;
	return ps_error("'%s' is not attached (run 'pathscope attach %s')", ifname, ifname), 1;
}

int ps_cmd_unknown_iface(const char *ifname)
{
	return ps_error_unknown_iface(ifname), 1;
}
