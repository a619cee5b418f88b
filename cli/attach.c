// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* `pathscope attach` and `pathscope detach`. */
#include <stdio.h>
#include <string.h>

#include "cli/options.h"
#include "lib/names.h"
#include "lib/util.h"

#define PS_STR_(x) #x
#define PS_STR(x)  PS_STR_(x)

/* clang-format off: it would break the macro inside the string */
static const char attach_help[] =
    "usage: pathscope attach IFACE [options]\n"
    "  --queues LIST          measure only these queues, e.g. 0-3,7 (default: all)\n"
    "  --features LIST        class,ecn,sizes,gro,icmp,d2s,tcp,sock,txlat,kernel |\n"
    "                         default | all | none (default: all but tcp, for its\n"
    "                         cost per TCP segment, and sock, txlat and kernel,\n"
    "                         which run on tracepoints of every packet or socket\n"
    "                         read of the host); packets and bytes are always\n"
    "                         counted\n"
    "  --xdp-mode native|skb  default: native where the driver has it, else skb\n"
    "  --tc-mode tcx|clsact   default: tcx where the kernel has it, else clsact\n"
    "  --tc-prio N            clsact filter priority (default " PS_STR(
	PS_TC_DEFAULT_PRIO) ")\n"
			    "  --sample N             txlat: time 1 in N transmitted skbs (default "
			    "1: all)\n"
			    "  --peer-prefix V4,V6    tcp: peers are counted by subnet, the remote "
			    "address's\n"
			    "                         first V4 (IPv4) or V6 (IPv6) bits (default "
			    "24,48)\n"
			    "  --tcp-rx tc|xdp        tcp: match arriving segments at tc ingress "
			    "after GRO,\n"
			    "                         once per skb (default), or at XDP, every "
			    "frame: the\n"
			    "                         driver's arrival time, at a higher cost per "
			    "packet\n"
			    "  --probe-mode tp_btf|tracepoint  tracepoint programs of txlat, "
			    "kernel and sock\n"
			    "                         (default: tp_btf where the kernel has it, "
			    "else\n"
			    "                         classic tracepoints)\n"
			    "  --no-xdp, --no-tc      leave out the driver-ingress or the tc "
			    "programs\n"
			    "  --xdp-chain            the interface runs another XDP program: put "
			    "pathscope in\n"
			    "                         front of it and tail-call it (its verdicts "
			    "unchanged;\n"
			    "                         detach puts it back)\n"
			    "  --xdp-join ARRAY:SLOT  join the pinned root program array of a "
			    "balancer at an\n"
			    "                         empty SLOT; pathscope tail-calls the slots "
			    "after it\n"
			    "examples:\n"
			    "  pathscope attach eth1\n"
			    "  pathscope attach eth1 --queues 0-3,7 --features ecn,sizes --no-xdp\n"
			    "  pathscope attach eth1 --features default,kernel,txlat\n"
			    "  pathscope attach eth1 --features default,sock --peer-prefix 16,32\n"
			    "  pathscope attach eth1 --xdp-chain             # next to a load "
			    "balancer\n"
			    "  pathscope attach eth1 --xdp-join /sys/fs/bpf/lb/root_array:0\n";
/* clang-format on */

int ps_cmd_attach(int argc, char **argv)
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
		{ "peer-prefix", required_argument, NULL, 'R' },
		{ "tcp-rx", required_argument, NULL, 'H' },
		{},
	};
	static const struct ps_cmd cmd = { "attach", attach_help, "q:f:", opts };
	struct ps_attach_opts o = { .features = PS_F_DEFAULT, .tc_prio = PS_TC_DEFAULT_PRIO };
	uint64_t num;
	int c, rc;

	while ((c = ps_cmd_opt(&cmd, argc, argv, &rc)) != PS_OPT_END) {
		switch (c) {
		case PS_OPT_EXIT:
			return rc;
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
			if (ps_opt_probe_mode(optarg, &o.probe_mode))
				return 2;
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
		case 'H':
			if (strcmp(optarg, "xdp") == 0)
				o.tcp_rx_xdp = true;
			else if (strcmp(optarg, "tc") != 0)
				return ps_error("bad --tcp-rx '%s' (tc or xdp)", optarg), 2;
			break;
		case 'R':
			if (ps_parse_prefixes(optarg, &o.peer_prefix4, &o.peer_prefix6))
				return ps_error("bad --peer-prefix '%s' (V4,V6: 0..32,0..128, e.g. "
						"24,48)",
						optarg),
				       2;
			o.peer_prefix_set = true;
			break;
		}
	}
	if (ps_cmd_one_iface(&cmd, argc, argv, &o.ifname))
		return 2;
	if (o.no_xdp && o.no_tc)
		return ps_error("attach: --no-xdp and --no-tc leave nothing to attach"), 2;
	if (o.no_tc && (o.features & PS_F_SOCK))
		return ps_error("attach: feature sock samples at tc ingress: not with --no-tc"), 2;
	if (o.no_tc && (o.features & PS_F_TCP))
		return ps_error("attach: feature tcp samples at tc egress: not with --no-tc"), 2;
	if (o.tcp_rx_xdp && (o.no_xdp || !(o.features & PS_F_TCP)))
		return ps_error("attach: --tcp-rx xdp needs feature tcp and the XDP program"), 2;
	if ((o.xdp_chain || o.xdp_join) && (o.no_xdp || o.xdp_mode != PS_XDP_REQ_AUTO))
		return ps_error(
			   "attach: --xdp-chain and --xdp-join take the XDP mode of the program "
			   "they chain to; no --no-xdp or --xdp-mode with them"),
		       2;
	if (o.xdp_chain && o.xdp_join)
		return ps_error("attach: --xdp-chain or --xdp-join, not both"), 2;
	return ps_attach(&o) ? 1 : 0;
}

static const char detach_help[] =
    "usage: pathscope detach IFACE | --all | --gone\n"
    "Remove exactly what pathscope attached (programs, links, pins, a clsact\n"
    "qdisc it created and nobody else uses). --all: every attachment, in\n"
    "every named network namespace. --gone: only the leftovers, whose\n"
    "interface is gone or whose attach was interrupted.\n";

int ps_cmd_detach(int argc, char **argv)
{
	static const struct option opts[] = { { "all", no_argument, NULL, 'a' },
					      { "gone", no_argument, NULL, 'g' },
					      {} };
	static const struct ps_cmd cmd = { "detach", detach_help, "ag", opts };
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
