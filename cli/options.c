// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "cli/options.h"

#include <net/if_arp.h>
#include <stdio.h>
#include <string.h>

#include "lib/util.h"
#include "loader/iface.h"

int ps_cmd_opt(const struct ps_cmd *c, int argc, char **argv, int *rc)
{
	struct option all[32];
	char shortopts[32];
	int n = 0, ch;

	/* c->opts plus "help", rebuilt per call: getopt keeps its state in
	 * optind, not in the table. */
	while (c->opts && c->opts[n].name && n < 30) {
		all[n] = c->opts[n];
		n++;
	}
	all[n++] = (struct option){ "help", no_argument, NULL, 'h' };
	all[n] = (struct option){};
	snprintf(shortopts, sizeof(shortopts), ":%sh", c->shortopts ? c->shortopts : "");

	opterr = 0; /* one line of our own instead of getopt's */
	ch = getopt_long(argc, argv, shortopts, all, NULL);
	switch (ch) {
	case -1:
		return PS_OPT_END;
	case 'h':
		fputs(c->help, stdout);
		*rc = 0;
		return PS_OPT_EXIT;
	case ':':
		ps_error("%s: %s needs a value (see 'pathscope %s --help')", c->name,
			 argv[optind - 1], c->name);
		*rc = 2;
		return PS_OPT_EXIT;
	case '?':
		ps_error("%s: unknown option '%s' (see 'pathscope %s --help')", c->name,
			 argv[optind - 1], c->name);
		*rc = 2;
		return PS_OPT_EXIT;
	}
	return ch;
}

int ps_cmd_one_iface(const struct ps_cmd *c, int argc, char **argv, const char **ifname)
{
	if (optind != argc - 1)
		return ps_error("%s: expected one interface name (see 'pathscope %s --help')",
				c->name, c->name),
		       2;
	*ifname = argv[optind];
	return 0;
}

int ps_cmd_no_operand(const struct ps_cmd *c, int argc, char **argv)
{
	if (optind < argc)
		return ps_error("%s: unexpected argument '%s'", c->name, argv[optind]), 2;
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
