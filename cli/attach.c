// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* `pathscope attach` and `pathscope detach`. */
#include <stdio.h>
#include <string.h>

#include "cli/options.h"
#include "lib/names.h"
#include "lib/util.h"
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

int ps_cmd_attach(int argc, char **argv)
{
	static const struct option opts[] = { PS_ATTACH_OPTIONS, {} };
	static char help[4096];
	struct ps_cmd cmd = { "attach", help, "q:f:", opts };
	struct ps_attach_opts o = { .features = PS_F_DEFAULT, .tc_prio = PS_TC_DEFAULT_PRIO };
	int c, rc;

	snprintf(help, sizeof(help), "%s%s%s", attach_usage, ps_attach_options_help,
		 attach_examples);
	while ((c = ps_cmd_opt(&cmd, argc, argv, &rc)) != PS_OPT_END) {
		if (c == PS_OPT_EXIT)
			return rc;
		if (ps_attach_opt(c, optarg, &o))
			return 2;
	}
	if (ps_cmd_one_iface(&cmd, argc, argv, &o.ifname) || ps_attach_opts_check("attach", &o))
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

int ps_cmd_detach(int argc, char **argv)
{
	static const struct option opts[] = { { "all", no_argument, NULL, 'a' },
					      { "gone", no_argument, NULL, 'g' },
					      {} };
	static const struct ps_cmd cmd = { "detach", detach_help, NULL, opts };
	bool all = false, gone = false;
	int c, rc;

	while ((c = ps_cmd_opt(&cmd, argc, argv, &rc)) != PS_OPT_END) {
		if (c == PS_OPT_EXIT)
			return rc;
		if (c == 'a')
			all = true;
		else if (c == 'g')
			gone = true;
	}
	if ((all || gone) && !(all && gone) && optind == argc)
		return ps_detach_all(gone) ? 1 : 0;
	if (!all && !gone && optind == argc - 1)
		return ps_detach_iface(argv[optind]) ? 1 : 0;
	return ps_error("detach: expected one interface name, --all or --gone"), 2;
}
