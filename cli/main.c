// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* pathscope: one binary, subcommands in the style of ip and bpftool. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "loader/attach.h"
#include "loader/features.h"
#include "loader/status.h"
#include "lib/util.h"
#include "stats/check.h"
#include "lib/names.h"
#include "cli/nic.h"
#include "export/serve.h"
#include "cli/stats.h"
#include "lib/version.h"

static void usage(FILE *out)
{
	fprintf(
	    out,
	    "usage: pathscope COMMAND [ARGS]\n"
	    "\n"
	    "Per-queue packet-path measurement with XDP and tc BPF programs.\n"
	    "\n"
	    "commands:\n"
	    "  attach IFACE [options]   load and attach the programs, pin their state\n"
	    "  detach IFACE | --all     remove exactly what pathscope attached\n"
	    "  detach --gone            only leftovers: interface gone, attach interrupted\n"
	    "  status [--json]          list attachments (all network namespaces)\n"
	    "  stats [IFACE] [options]  per-queue report: table, --hist, --json\n"
	    "  check IFACE [options]    compare what each layer counted over an interval\n"
	    "  nic IFACE [--json]       NIC, queue and CPU facts from netlink and softnet_stat\n"
	    "  serve IFACE... [options] attach and export: Prometheus /metrics, JSON lines\n"
	    "  features [--json]        what this kernel supports, what pathscope uses\n"
	    "  help, version\n"
	    "\n"
	    "examples:\n"
	    "  pathscope attach eth1 --queues 0-3 --features class,ecn,sizes\n"
	    "  pathscope stats eth1 --interval 1 --count 10\n"
	    "  pathscope stats eth1 --json --hist\n"
	    "  pathscope check eth1 --duration 10\n"
	    "  pathscope detach eth1\n"
	    "\n"
	    "'pathscope COMMAND --help' shows the options of a command.\n"
	    "Needs CAP_BPF and CAP_NET_ADMIN (run as root); inside a network namespace use\n"
	    "'nsenter --net=/var/run/netns/NAME pathscope ...' ('ip netns exec' hides "
	    "/sys/fs/bpf).\n");
}

static void attach_usage(FILE *out)
{
	fprintf(
	    out,
	    "usage: pathscope attach IFACE [options]\n"
	    "  --queues LIST          measure only these queues, e.g. 0-3,7 (default: all)\n"
	    "  --features LIST        class,ecn,sizes,gro,icmp,d2s,txlat,kernel | default |\n"
	    "                         all | none (default: all but txlat and kernel, which\n"
	    "                         run on tracepoints of every packet of the host);\n"
	    "                         packets and bytes are always counted\n"
	    "  --xdp-mode native|skb  default: native where the driver has it, else skb\n"
	    "  --tc-mode tcx|clsact   default: tcx where the kernel has it, else clsact\n"
	    "  --tc-prio N            clsact filter priority (default %d)\n"
	    "  --sample N             txlat: time 1 in N transmitted skbs (default 1: all)\n"
	    "  --probe-mode tp_btf|tracepoint  tracepoint programs of txlat and kernel\n"
	    "                         (default: tp_btf where the kernel has it, else\n"
	    "                         classic tracepoints)\n"
	    "  --no-xdp, --no-tc      leave out the driver-ingress or the tc programs\n"
	    "  --xdp-chain            the interface runs another XDP program: put pathscope in\n"
	    "                         front of it and tail-call it (its verdicts unchanged;\n"
	    "                         detach puts it back)\n"
	    "  --xdp-join ARRAY:SLOT  join the pinned root program array of a balancer at an\n"
	    "                         empty SLOT; pathscope tail-calls the slots after it\n"
	    "examples:\n"
	    "  pathscope attach eth1\n"
	    "  pathscope attach eth1 --queues 0-3,7 --features ecn,sizes --no-xdp\n"
	    "  pathscope attach eth1 --features default,kernel,txlat\n"
	    "  pathscope attach eth1 --xdp-chain             # next to a load balancer\n"
	    "  pathscope attach eth1 --xdp-join /sys/fs/bpf/lb/root_array:0\n",
	    PS_TC_DEFAULT_PRIO);
}

static int cmd_attach(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "queues", required_argument, NULL, 'q' },
		{ "features", required_argument, NULL, 'f' },
		{ "xdp-mode", required_argument, NULL, 'x' },
		{ "tc-mode", required_argument, NULL, 't' },
		{ "tc-prio", required_argument, NULL, 'p' },
		{ "no-xdp", no_argument, NULL, 'X' },
		{ "no-tc", no_argument, NULL, 'T' },
		{ "probe-mode", required_argument, NULL, 'P' },
		{ "sample", required_argument, NULL, 'S' },
		{ "xdp-chain", no_argument, NULL, 'C' },
		{ "xdp-join", required_argument, NULL, 'J' },
		{ "help", no_argument, NULL, 'h' },
		{},
	};
	struct ps_attach_opts o = { .features = PS_F_DEFAULT, .tc_prio = PS_TC_DEFAULT_PRIO };
	uint64_t num;
	int c;

	while ((c = getopt_long(argc, argv, "q:f:h", opts, NULL)) != -1) {
		switch (c) {
		case 'q':
			o.queues = optarg;
			break;
		case 'f':
			if (ps_features_parse(optarg, &o.features))
				return 2;
			break;
		case 'x':
			if (strcmp(optarg, "native") == 0)
				o.xdp_mode = PS_XDP_REQ_NATIVE;
			else if (strcmp(optarg, "skb") == 0 || strcmp(optarg, "generic") == 0)
				o.xdp_mode = PS_XDP_REQ_SKB;
			else
				return ps_error("bad --xdp-mode '%s' (native or skb)", optarg), 2;
			break;
		case 't':
			if (strcmp(optarg, "tcx") == 0)
				o.tc_mode = PS_TC_REQ_TCX;
			else if (strcmp(optarg, "clsact") == 0)
				o.tc_mode = PS_TC_REQ_CLSACT;
			else
				return ps_error("bad --tc-mode '%s' (tcx or clsact)", optarg), 2;
			break;
		case 'p':
			if (!ps_parse_u64(optarg, 0xffff, &num) || num == 0)
				return ps_error("bad --tc-prio '%s' (1..65535)", optarg), 2;
			o.tc_prio = (unsigned int)num;
			break;
		case 'P':
			if (strcmp(optarg, "tp_btf") == 0)
				o.probe_mode = PS_PROBE_REQ_TP_BTF;
			else if (strcmp(optarg, "tracepoint") == 0)
				o.probe_mode = PS_PROBE_REQ_TRACEPOINT;
			else
				return ps_error("bad --probe-mode '%s' (tp_btf or tracepoint)",
						optarg),
				       2;
			break;
		case 'S':
			if (!ps_parse_u64(optarg, 1U << 20, &num) || num == 0)
				return ps_error("bad --sample '%s' (1..1048576)", optarg), 2;
			o.tx_sample_every = (unsigned int)num;
			break;
		case 'X':
			o.no_xdp = true;
			break;
		case 'T':
			o.no_tc = true;
			break;
		case 'C':
			o.xdp_chain = true;
			break;
		case 'J':
			o.xdp_join = optarg;
			break;
		case 'h':
			attach_usage(stdout);
			return 0;
		default:
			attach_usage(stderr);
			return 2;
		}
	}
	if (optind != argc - 1)
		return ps_error(
			   "attach: expected one interface name (see 'pathscope attach --help')"),
		       2;
	if (o.no_xdp && o.no_tc)
		return ps_error("attach: --no-xdp and --no-tc leave nothing to attach"), 2;
	if ((o.xdp_chain || o.xdp_join) && (o.no_xdp || o.xdp_mode != PS_XDP_REQ_AUTO))
		return ps_error(
			   "attach: --xdp-chain and --xdp-join take the XDP mode of the program "
			   "they chain to; no --no-xdp or --xdp-mode with them"),
		       2;
	if (o.xdp_chain && o.xdp_join)
		return ps_error("attach: --xdp-chain or --xdp-join, not both"), 2;
	o.ifname = argv[optind];
	return ps_attach(&o) ? 1 : 0;
}

static int cmd_detach(int argc, char **argv)
{
	static const struct option opts[] = { { "all", no_argument, NULL, 'a' },
					      { "gone", no_argument, NULL, 'g' },
					      { "help", no_argument, NULL, 'h' },
					      {} };
	bool all = false, gone = false;
	int c;

	while ((c = getopt_long(argc, argv, "agh", opts, NULL)) != -1) {
		if (c == 'a')
			all = true;
		else if (c == 'g')
			gone = true;
		else if (c == 'h') {
			printf(
			    "usage: pathscope detach IFACE | --all | --gone\n"
			    "Remove exactly what pathscope attached (programs, links, pins, a "
			    "clsact\n"
			    "qdisc it created and nobody else uses). --all: every attachment, in\n"
			    "every named network namespace. --gone: only the leftovers, whose\n"
			    "interface is gone or whose attach was interrupted.\n");
			return 0;
		} else
			return 2;
	}
	if ((all || gone) && !(all && gone) && optind == argc)
		return ps_detach_all(gone) ? 1 : 0;
	if (!all && !gone && optind == argc - 1)
		return ps_detach_iface(argv[optind]) ? 1 : 0;
	return ps_error("detach: expected one interface name, --all or --gone"), 2;
}

int main(int argc, char **argv)
{
	const char *cmd = argc > 1 ? argv[1] : NULL;

	ps_quiet_libs();
	if (!cmd || strcmp(cmd, "help") == 0 || strcmp(cmd, "--help") == 0 ||
	    strcmp(cmd, "-h") == 0) {
		usage(cmd ? stdout : stderr);
		return cmd ? 0 : 2;
	}
	if (strcmp(cmd, "version") == 0 || strcmp(cmd, "--version") == 0) {
		printf("pathscope %s (abi %d)\n", PATHSCOPE_VERSION, PS_ABI_VERSION);
		return 0;
	}
	argc--;
	argv++;
	if (strcmp(cmd, "attach") == 0)
		return cmd_attach(argc, argv);
	if (strcmp(cmd, "detach") == 0)
		return cmd_detach(argc, argv);
	if (strcmp(cmd, "status") == 0)
		return ps_cmd_status(argc, argv);
	if (strcmp(cmd, "stats") == 0)
		return ps_cmd_stats(argc, argv);
	if (strcmp(cmd, "features") == 0)
		return ps_cmd_features(argc, argv);
	if (strcmp(cmd, "check") == 0)
		return ps_cmd_check(argc, argv);
	if (strcmp(cmd, "nic") == 0)
		return ps_cmd_nic(argc, argv);
	if (strcmp(cmd, "serve") == 0)
		return ps_cmd_serve(argc, argv);
	ps_error("unknown command '%s' (see 'pathscope help')", cmd);
	return 2;
}
