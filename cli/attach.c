// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* `pathscope attach` and `pathscope detach`. */
#include <stdio.h>
#include <string.h>

#include "cli/attach_options.h"
#include "cli/commands.h"
#include "cli/options.h"
#include "lib/names.h"
#include "lib/util.h"
#include "loader/xdp_live.h"
#include "loader/detach.h"

/* clang-format off: it would break the strings' lines */
static const char attach_usage[] =
    "usage: pathscope attach IFACE [options]\n"
    "Load pathscope's programs, attach them to IFACE (this network namespace) and\n"
    "pin their state under /sys/fs/bpf/pathscope; 'pathscope detach IFACE' removes\n"
    "exactly that. Every value is checked before anything is touched.\n";
static const char attach_examples[] =
    "examples:\n"
    "  pathscope attach eth1\n"
    "  pathscope attach eth1 --queues 0-3,7 --features ecn,sizes --no-xdp\n"
    "  pathscope attach eth1 --features default,kernel,txlat\n"
    "  pathscope attach eth1 --features default,tcp --peer-prefix 16,32\n"
    "  pathscope attach eth1 --xdp-chain             # next to a load balancer\n"
    "  pathscope attach eth1 --xdp-join /sys/fs/bpf/lb/root_array:0\n";
/* clang-format on */

static const struct ps_command attach = {
	.about = attach_usage,
	.groups = { { .opts = ps_attach_opts, .col = PS_ATTACH_OPTS_COL } },
	.examples = attach_examples,
};

int ps_cmd_attach(int argc, char **argv)
{
	struct ps_attach_opts o = { .features = PS_F_DEFAULT, .tc_prio = PS_TC_DEFAULT_PRIO };
	int c, rc;

	while ((c = ps_opt_next(&attach, argc, argv, &rc)) != PS_OPT_END) {
		if (c == PS_OPT_EXIT)
			return rc;
		if (ps_attach_opt(c, optarg, &o))
			return 2;
	}
	if (ps_operand_iface(argc, argv, &o.ifname) || ps_attach_opts_check("attach", &o))
		return 2;
	return ps_attach(&o) ? 1 : 0;
}

static const char detach_help[] =
    "usage: pathscope detach IFACE | --all | --gone\n"
    "Remove exactly what pathscope attached (programs, links, pins, a clsact\n"
    "qdisc it created and nobody else uses). --all: every attachment, in\n"
    "every named network namespace. --gone: only the leftovers, whose\n"
    "interface or network namespace is gone (removed through their pins,\n"
    "without entering it) or whose attach was interrupted.\n";

enum { ALL = PS_OPT_LONG, GONE };

/* Their help is the usage line's and the text's. */
static const struct ps_opt detach_opts[] = {
	{ "all", ALL, NULL, NULL },
	{ "gone", GONE, NULL, NULL },
	{},
};

static const struct ps_command detach = {
	.about = detach_help,
	.groups = { { .opts = detach_opts, .col = 0 } },
};

int ps_cmd_detach(int argc, char **argv)
{
	bool all = false, gone = false;
	int c, rc;

	while ((c = ps_opt_next(&detach, argc, argv, &rc)) != PS_OPT_END) {
		if (c == PS_OPT_EXIT)
			return rc;
		if (c == ALL)
			all = true;
		else if (c == GONE)
			gone = true;
	}
	if ((all || gone) && !(all && gone) && optind == argc)
		return ps_detach_all(gone) ? 1 : 0;
	if (!all && !gone && optind == argc - 1) {
		/* pathscope's programs left without their pins: removed. */
		rc = ps_orphans_detach(argv[optind]);
		if (rc)
			return rc < 0 ? 1 : 0;
		return ps_detach_iface(argv[optind]) ? 1 : 0;
	}
	return ps_error("detach: expected one interface name, --all or --gone"), 2;
}
